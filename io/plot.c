/* Quality histograms drawn with cairo (a plotting library,
   never hand-rolled rasterizing). One panel per measure: bars, axes, the range
   of the bins on x and the largest count on y. */
#include "hx_plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_config.h"
#include "hx_error.h"
#include "hx_io.h"

#if HX_HAVE_CAIRO
#include <cairo-svg.h>
#include <cairo.h>

static const char *labels[HX_QUALITY_NUM_STATS] = {"det J min (GLL)",
                                                   "det J max (GLL)",
                                                   "det J min (quadrature)",
                                                   "det J max (quadrature)",
                                                   "scaled Jacobian (Nek5000, min/max)",
                                                   "corner scaled Jacobian (Knupp)",
                                                   "aspect ratio",
                                                   "min GLL spacing"};

static cairo_status_t write_cb(void *closure, const unsigned char *data, unsigned int length) {
  return hx_outfile_write((hx_outfile *)closure, data, length) == HX_OK ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static void panel(cairo_t *cr, const hx_quality_hist *h, double x0, double y0, double w, double ht) {
  double left = x0 + 60, right = x0 + w - 20, top = y0 + 40, bottom = y0 + ht - 45;
  double cmax = 0, total = 0;
  for (int b = 0; b < h->num_bins; b++) {
    cmax = fmax(cmax, h->counts[b]);
    total += h->counts[b];
  }
  char buf[128];
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, 14);
  cairo_move_to(cr, left, y0 + 24);
  cairo_show_text(cr, labels[h->measure]);
  /* bars */
  double bw = (right - left) / h->num_bins;
  cairo_set_source_rgb(cr, 0.22, 0.45, 0.70);
  for (int b = 0; b < h->num_bins; b++) {
    if (h->counts[b] <= 0) continue;
    double bh = cmax > 0 ? (bottom - top) * h->counts[b] / cmax : 0;
    bh = fmax(bh, 1.0); /* a non-empty bin stays visible */
    cairo_rectangle(cr, left + b * bw, bottom - bh, fmax(bw - 1, 0.5), bh);
  }
  cairo_fill(cr);
  /* axes */
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_move_to(cr, left, top);
  cairo_line_to(cr, left, bottom);
  cairo_line_to(cr, right, bottom);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 11);
  for (int t = 0; t <= 4; t++) {
    double v = h->lo + (h->hi - h->lo) * t / 4, x = left + (right - left) * t / 4;
    cairo_move_to(cr, x, bottom);
    cairo_line_to(cr, x, bottom + 4);
    cairo_stroke(cr);
    snprintf(buf, sizeof buf, "%.4g", v);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, buf, &ext);
    cairo_move_to(cr, x - ext.width / 2, bottom + 17);
    cairo_show_text(cr, buf);
  }
  snprintf(buf, sizeof buf, "%.0f", cmax);
  cairo_move_to(cr, x0 + 8, top + 10);
  cairo_show_text(cr, buf);
  cairo_move_to(cr, x0 + 8, bottom);
  cairo_show_text(cr, "0");
  snprintf(buf, sizeof buf, "%.0f elements, %d bins", total, h->num_bins);
  cairo_move_to(cr, left, bottom + 36);
  cairo_show_text(cr, buf);
}

int hx_plot_histograms(const char *path, const char *title, const hx_quality_hist *h, int num_panels) {
  size_t len = strlen(path);
  int svg = len >= 4 && !strcmp(path + len - 4, ".svg");
  int png = len >= 4 && !strcmp(path + len - 4, ".png");
  HX_CHECK(svg || png, HX_ERR_INPUT, "--plot '%s': the image must end in .png or .svg", path);
  HX_CHECK(num_panels >= 1, HX_ERR_INPUT, "plot: nothing to draw");
  int cols = num_panels < 2 ? 1 : 2, rows = (num_panels + cols - 1) / cols;
  double pw = 460, ph = 300, W = cols * pw, H = rows * ph + 40;
  hx_outfile f;
  HX_CALL(hx_outfile_open(&f, path));
  cairo_surface_t *s = svg ? cairo_svg_surface_create_for_stream(write_cb, &f, W, H)
                           : cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)W, (int)H);
  cairo_t *cr = cairo_create(s);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size(cr, 16);
  cairo_move_to(cr, 16, 26);
  cairo_show_text(cr, title);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  for (int p = 0; p < num_panels; p++) panel(cr, &h[p], (p % cols) * pw, 40 + (p / cols) * ph, pw, ph);
  cairo_status_t st = cairo_status(cr);
  cairo_destroy(cr);
  if (st == CAIRO_STATUS_SUCCESS && png) st = cairo_surface_write_to_png_stream(s, write_cb, &f);
  cairo_surface_finish(s);
  if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(s);
  cairo_surface_destroy(s);
  if (st != CAIRO_STATUS_SUCCESS) {
    hx_outfile_abort(&f);
    return HX_ERROR(HX_ERR_IO, "drawing '%s' failed: %s", path, cairo_status_to_string(st));
  }
  return hx_outfile_commit(&f);
}
#else
int hx_plot_histograms(const char *path, const char *title, const hx_quality_hist *h, int num_panels) {
  (void)title, (void)h, (void)num_panels;
  return HX_ERROR(HX_ERR_INPUT, "--plot '%s': this build has no cairo; install libcairo2-dev and reconfigure", path);
}
#endif
