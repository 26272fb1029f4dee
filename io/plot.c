/* Pictures of a mesh's quality drawn with cairo (a plotting library, never hand-rolled
   rasterizing), PNG or SVG by the file's extension:
   - histograms, one panel per measure: bars, the count axis with grid lines, the measure's
     axis with ticks at round values whose labels never overlap (fewer ticks until they
     fit), and a log10 axis where the histogram's bins are logarithmic;
   - a planar slice through the curved elements (hx_slice.h): each element's cut filled by
     its value on a colour scale, the cut curves drawn over the fills, axes in the plane's
     coordinates and a colour bar. */
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

/* ---- axes: round tick values and labels that fit -------------------------------------- */

/* The round step (1, 2, 2.5 or 5 times a power of ten) giving at most max_ticks ticks on a range. */
static double nice_step(double range, int max_ticks) {
  double raw = range / (max_ticks > 1 ? max_ticks - 1 : 1), p = pow(10, floor(log10(raw))), f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * p;
}

/* Ticks k * step inside [lo, hi] (at most 32). */
static int tick_values(double lo, double hi, double step, double *t) {
  int n = 0;
  for (double k = ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step && n < 32; k++) t[n++] = k == 0 ? 0 : k * step;
  return n;
}

/* A tick label with as many decimals as the step needs; an exponent form far from 1. */
static void tick_label(char *buf, size_t cap, double v, double step) {
  double a = fmax(fabs(v), step);
  if (v == 0) {
    snprintf(buf, cap, "0");
  } else if (a >= 1e-3 && a < 1e5) {
    int dec = 0;
    while (dec < 8 && fabs(step * pow(10, dec) - round(step * pow(10, dec))) > 1e-6 * step * pow(10, dec)) dec++;
    snprintf(buf, cap, "%.*f", dec, v);
  } else {
    /* 2.5e-05 -> 2.5e-5 */
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.2g", v);
    char *e = strchr(tmp, 'e');
    if (e) {
      char sign = e[1] == '-' ? '-' : 0;
      const char *d = e + 1 + (e[1] == '-' || e[1] == '+');
      while (*d == '0' && d[1]) d++;
      *e = 0;
      snprintf(buf, cap, "%se%s%s", tmp, sign ? "-" : "", d);
    } else {
      snprintf(buf, cap, "%s", tmp);
    }
  }
}

typedef struct axis_ticks {
  int n;
  double pos[32];    /* in the axis's own coordinate (the value, or log10 of it) */
  char text[32][80]; /* labels */
  double minor[64];  /* unlabelled ticks (log axes: 2..9 times each decade) */
  int num_minor;
} axis_ticks;

/* Ticks for [lo, hi] (log: lo, hi are log10 of the values, ticks at whole decades) whose
   labels, at the current font, fit in `length` pixels with room between them. */
static void make_ticks(cairo_t *cr, double lo, double hi, int log, double length, axis_ticks *at) {
  for (int max_ticks = 7; max_ticks >= 2; max_ticks--) {
    memset(at, 0, sizeof *at);
    if (!(hi > lo)) {
      at->n = 1;
      at->pos[0] = lo;
      tick_label(at->text[0], sizeof at->text[0], log ? pow(10, lo) : lo, fabs(lo) > 0 ? fabs(lo) / 1000 : 1);
      return;
    }
    double step = log ? fmax(1, ceil(nice_step(hi - lo, max_ticks))) : nice_step(hi - lo, max_ticks);
    at->n = tick_values(lo, hi, step, at->pos);
    double widest = 0;
    for (int k = 0; k < at->n; k++) {
      if (log) tick_label(at->text[k], sizeof at->text[k], pow(10, at->pos[k]), pow(10, at->pos[k]));
      else tick_label(at->text[k], sizeof at->text[k], at->pos[k], step);
      cairo_text_extents_t ext;
      cairo_text_extents(cr, at->text[k], &ext);
      widest = fmax(widest, ext.x_advance);
    }
    if (log && step == 1)
      for (double d = floor(lo); d <= hi && at->num_minor < 60; d++)
        for (int m = 2; m <= 9 && at->num_minor < 64; m++) {
          double p = d + log10(m);
          if (p > lo && p < hi) at->minor[at->num_minor++] = p;
        }
    double spacing = at->n > 1 ? length * step / (hi - lo) : length;
    if (spacing >= widest + 10 || max_ticks == 2) return;
  }
}

/* ---- histograms ------------------------------------------------------------------------ */

static void panel(cairo_t *cr, const hx_quality_hist *h, double x0, double y0, double w, double ht) {
  double left = x0 + 64, right = x0 + w - 24, top = y0 + 40, bottom = y0 + ht - 52;
  double cmax = 0, total = h->below;
  for (int b = 0; b < h->num_bins; b++) {
    cmax = fmax(cmax, h->counts[b]);
    total += h->counts[b];
  }
  char buf[160];
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, 14);
  cairo_move_to(cr, left, y0 + 24);
  cairo_show_text(cr, labels[h->measure]);
  /* the count axis: round ticks from 0 to the largest count, light grid lines */
  cairo_set_font_size(cr, 11);
  double ystep = fmax(1, nice_step(cmax > 0 ? cmax : 1, 5)), yt[32];
  double ymax = ystep * ceil((cmax > 0 ? cmax : 1) / ystep); /* the axis ends at a labelled tick */
  int ny = tick_values(0, ymax, ystep, yt);
  for (int k = 0; k < ny; k++) {
    double y = bottom - (bottom - top) * yt[k] / ymax;
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, left, y);
    cairo_line_to(cr, right, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    tick_label(buf, sizeof buf, yt[k], ystep);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, buf, &ext);
    cairo_move_to(cr, left - 6 - ext.x_advance, y + 4);
    cairo_show_text(cr, buf);
  }
  /* bars */
  double bw = (right - left) / h->num_bins;
  cairo_set_source_rgb(cr, 0.22, 0.45, 0.70);
  for (int b = 0; b < h->num_bins; b++) {
    if (h->counts[b] <= 0) continue;
    double bh = (bottom - top) * h->counts[b] / ymax;
    bh = fmax(bh, 1.5); /* a non-empty bin stays visible */
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
  double lo = h->log10 ? log10(h->lo) : h->lo, hi = h->log10 ? log10(h->hi) : h->hi;
  axis_ticks at;
  make_ticks(cr, lo, hi, h->log10, right - left, &at);
  double span = hi > lo ? hi - lo : 1;
  for (int k = 0; k < at.num_minor; k++) {
    double x = left + (right - left) * (at.minor[k] - lo) / span;
    cairo_move_to(cr, x, bottom);
    cairo_line_to(cr, x, bottom + 2.5);
  }
  cairo_stroke(cr);
  for (int k = 0; k < at.n; k++) {
    double x = hi > lo ? left + (right - left) * (at.pos[k] - lo) / span : 0.5 * (left + right);
    cairo_move_to(cr, x, bottom);
    cairo_line_to(cr, x, bottom + 5);
    cairo_stroke(cr);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, at.text[k], &ext);
    double tx = fmin(x - ext.x_advance / 2, x0 + w - 2 - ext.x_advance); /* the last label stays in the panel */
    cairo_move_to(cr, tx, bottom + 18);
    cairo_show_text(cr, at.text[k]);
  }
  snprintf(buf, sizeof buf, "%.0f elements, %d bins%s", total, h->num_bins, h->log10 ? ", log scale" : "");
  cairo_move_to(cr, left, bottom + 38);
  cairo_show_text(cr, buf);
  if (h->below > 0) {
    cairo_text_extents_t ext;
    cairo_text_extents(cr, buf, &ext);
    snprintf(buf, sizeof buf, "; %.0f <= 0 not shown", h->below);
    cairo_set_source_rgb(cr, 0.80, 0.10, 0.10);
    cairo_move_to(cr, left + ext.x_advance, bottom + 38);
    cairo_show_text(cr, buf);
  }
}

/* ---- the slice ------------------------------------------------------------------------- */

/* A perceptually uniform scale from dark blue-violet (0) through teal to yellow (1). */
static void colour_scale(double t, double rgb[3]) {
  static const double c[10][4] = {{0.0, 0.267, 0.005, 0.329},   {0.125, 0.283, 0.141, 0.458}, {0.25, 0.254, 0.265, 0.530},
                                  {0.375, 0.207, 0.372, 0.553}, {0.5, 0.164, 0.471, 0.558},   {0.625, 0.128, 0.567, 0.551},
                                  {0.75, 0.135, 0.659, 0.518},  {0.875, 0.267, 0.749, 0.441}, {0.9375, 0.560, 0.815, 0.250},
                                  {1.0, 0.993, 0.906, 0.144}};
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  int k = 0;
  while (k < 8 && t > c[k + 1][0]) k++;
  double s = (t - c[k][0]) / (c[k + 1][0] - c[k][0]);
  for (int q = 0; q < 3; q++) rgb[q] = c[k][q + 1] + s * (c[k + 1][q + 1] - c[k][q + 1]);
}
static const double inverted_rgb[3] = {0.85, 0.10, 0.10};

/* The colour range: [0, 1] (a scaled Jacobian), down to the smallest value in tenths below 0. */
static void value_range(const hx_slice *s, double *lo, double *hi) {
  double mn = 0, mx = 1;
  for (int64_t k = 0; k < s->num_cut; k++) mn = fmin(mn, s->value[k]), mx = fmax(mx, s->value[k]);
  *lo = mn < 0 ? fmax(-1, floor(mn * 10) / 10) : 0;
  *hi = mx > 1 ? ceil(mx * 10) / 10 : 1;
}

static void value_colour(double v, double lo, double hi, double rgb[3]) {
  if (v < 0 && lo < 0) {
    memcpy(rgb, inverted_rgb, sizeof inverted_rgb);
    return;
  }
  colour_scale((v - (lo < 0 ? 0 : lo)) / (hi - (lo < 0 ? 0 : lo)), rgb);
}

/* The plane's axes: u, v and their letters. */
static void plane_axes(const hx_slice *s, int *ua, int *va) {
  *ua = s->axis == 0 ? 1 : 0;
  *va = s->axis == 2 ? 1 : 2;
}

/* The plot area of a slice panel of width w (height at most max_h): its size in pixels. */
enum { SL_LEFT = 64, SL_RIGHT = 118, SL_TOP = 44, SL_BOTTOM = 46 };
static void slice_area(const hx_slice *s, double w, double max_h, double *aw, double *ah, double box[4]) {
  int ua, va;
  plane_axes(s, &ua, &va);
  double du = s->hi[ua] - s->lo[ua], dv = s->hi[va] - s->lo[va];
  if (!(du > 0) && !(dv > 0)) du = dv = 1;
  if (!(du > 0)) du = dv * 1e-3;
  if (!(dv > 0)) dv = du * 1e-3;
  /* a margin of 2% so that the outer curves are not on the frame */
  box[0] = s->lo[ua] - 0.02 * du;
  box[1] = s->lo[va] - 0.02 * dv;
  box[2] = 1.04 * du;
  box[3] = 1.04 * dv;
  *aw = w - SL_LEFT - SL_RIGHT;
  *ah = *aw * box[3] / box[2];
  if (*ah > max_h) {
    *ah = max_h;
    *aw = *ah * box[2] / box[3];
  }
}

static double slice_panel_height(const hx_slice *s, double w, double max_h) {
  double aw, ah, box[4];
  slice_area(s, w, max_h, &aw, &ah, box);
  return ah + SL_TOP + SL_BOTTOM;
}

static void loops_path(cairo_t *cr, const hx_slice *s, int64_t k, double px0, double py0, double scale, const double box[4]) {
  for (int64_t l = s->elem_loop[k]; l < s->elem_loop[k + 1]; l++) {
    for (int64_t p = s->loop_pt[l]; p < s->loop_pt[l + 1]; p++) {
      double x = px0 + (s->pt[2 * p] - box[0]) * scale, y = py0 - (s->pt[2 * p + 1] - box[1]) * scale;
      if (p == s->loop_pt[l]) cairo_move_to(cr, x, y);
      else cairo_line_to(cr, x, y);
    }
    cairo_close_path(cr);
  }
}

static void slice_panel(cairo_t *cr, const hx_slice *s, const char *value_name, double x0, double y0, double w, double max_h) {
  double aw, ah, box[4];
  slice_area(s, w, max_h, &aw, &ah, box);
  double scale = aw / box[2];
  double left = x0 + SL_LEFT + 0.5 * (w - SL_LEFT - SL_RIGHT - aw), top = y0 + SL_TOP, bottom = top + ah;
  int ua, va;
  plane_axes(s, &ua, &va);
  const char *axis_names = "xyz";
  char buf[256];
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_font_size(cr, 14);
  snprintf(buf, sizeof buf, "slice %c = %.6g: %lld element%s cut, coloured by %s", axis_names[s->axis], s->at,
           (long long)s->num_cut, s->num_cut == 1 ? "" : "s", value_name);
  cairo_move_to(cr, x0 + SL_LEFT, y0 + 26);
  cairo_show_text(cr, buf);
  double lo, hi;
  value_range(s, &lo, &hi);
  /* fills, then the cut curves over them (which also hide the seams between fills) */
  cairo_save(cr);
  cairo_rectangle(cr, left, top, aw, ah);
  cairo_clip(cr);
  cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD);
  double area = 0;
  for (int64_t k = 0; k < s->num_cut; k++) {
    double rgb[3];
    value_colour(s->value[k], lo, hi, rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_new_path(cr);
    loops_path(cr, s, k, left, bottom, scale, box);
    cairo_fill(cr);
    for (int64_t l = s->elem_loop[k]; l < s->elem_loop[k + 1]; l++) {
      double a = 0;
      for (int64_t p = s->loop_pt[l], q = s->loop_pt[l + 1] - 1; p < s->loop_pt[l + 1]; q = p++)
        a += s->pt[2 * q] * s->pt[2 * p + 1] - s->pt[2 * p] * s->pt[2 * q + 1];
      area += 0.5 * fabs(a);
    }
  }
  /* lines a tenth of an element's size in pixels, within 0.25 .. 1 */
  double elem_px = s->num_cut > 0 ? sqrt(area / s->num_cut) * scale : 1;
  cairo_set_line_width(cr, fmin(1.0, fmax(0.25, 0.1 * elem_px)));
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_source_rgb(cr, 0.12, 0.12, 0.12);
  cairo_new_path(cr);
  for (int64_t k = 0; k < s->num_cut; k++) loops_path(cr, s, k, left, bottom, scale, box);
  cairo_stroke(cr);
  cairo_restore(cr);
  if (s->num_cut == 0) {
    cairo_set_font_size(cr, 13);
    const char *msg = "the plane cuts no element";
    cairo_text_extents_t ext;
    cairo_text_extents(cr, msg, &ext);
    cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
    cairo_move_to(cr, left + 0.5 * (aw - ext.x_advance), top + 0.5 * ah);
    cairo_show_text(cr, msg);
  }
  /* frame and axes in the plane's coordinates */
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, left, top, aw, ah);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 11);
  axis_ticks at;
  make_ticks(cr, box[0], box[0] + box[2], 0, aw, &at);
  for (int k = 0; k < at.n; k++) {
    double x = left + (at.pos[k] - box[0]) * scale;
    cairo_move_to(cr, x, bottom);
    cairo_line_to(cr, x, bottom + 5);
    cairo_stroke(cr);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, at.text[k], &ext);
    cairo_move_to(cr, x - ext.x_advance / 2, bottom + 18);
    cairo_show_text(cr, at.text[k]);
  }
  buf[0] = axis_names[ua], buf[1] = 0;
  cairo_move_to(cr, left + 0.5 * aw - 3, bottom + 36);
  cairo_show_text(cr, buf);
  /* the v axis: labels stacked, so they need their height, not their width */
  make_ticks(cr, box[1], box[1] + box[3], 0, ah * 3, &at);
  if (at.n > 1 && (at.pos[1] - at.pos[0]) * scale < 18) make_ticks(cr, box[1], box[1] + box[3], 0, 4 * 18 * 3, &at);
  for (int k = 0; k < at.n; k++) {
    double y = bottom - (at.pos[k] - box[1]) * scale;
    cairo_move_to(cr, left, y);
    cairo_line_to(cr, left - 5, y);
    cairo_stroke(cr);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, at.text[k], &ext);
    cairo_move_to(cr, left - 8 - ext.x_advance, y + 4);
    cairo_show_text(cr, at.text[k]);
  }
  buf[0] = axis_names[va];
  cairo_move_to(cr, x0 + 10, top + 0.5 * ah);
  cairo_show_text(cr, buf);
  /* the colour bar: the scale as a gradient, red below 0 where elements are inverted */
  double bx = left + aw + 22, bw = 16, bh = fmin(ah, 320), by = top + 0.5 * (ah - bh);
  double zero = lo < 0 ? 0 : lo;
  cairo_pattern_t *grad = cairo_pattern_create_linear(0, by + bh, 0, by);
  if (lo < 0) {
    double tz = (zero - lo) / (hi - lo);
    cairo_pattern_add_color_stop_rgb(grad, 0, inverted_rgb[0], inverted_rgb[1], inverted_rgb[2]);
    cairo_pattern_add_color_stop_rgb(grad, tz, inverted_rgb[0], inverted_rgb[1], inverted_rgb[2]);
  }
  for (int k = 0; k <= 32; k++) {
    double t = k / 32.0, rgb[3];
    colour_scale(t, rgb);
    cairo_pattern_add_color_stop_rgb(grad, (zero + t * (hi - zero) - lo) / (hi - lo), rgb[0], rgb[1], rgb[2]);
  }
  cairo_rectangle(cr, bx, by, bw, bh);
  cairo_set_source(cr, grad);
  cairo_fill_preserve(cr);
  cairo_pattern_destroy(grad);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_stroke(cr);
  make_ticks(cr, lo, hi, 0, 3 * bh, &at);
  for (int k = 0; k < at.n; k++) {
    double y = by + bh - bh * (at.pos[k] - lo) / (hi - lo);
    cairo_move_to(cr, bx + bw, y);
    cairo_line_to(cr, bx + bw + 4, y);
    cairo_stroke(cr);
    cairo_move_to(cr, bx + bw + 7, y + 4);
    cairo_show_text(cr, at.text[k]);
  }
  cairo_save(cr);
  cairo_move_to(cr, bx - 6, by + bh);
  cairo_rotate(cr, -HX_PI / 2);
  cairo_show_text(cr, value_name);
  cairo_restore(cr);
}

/* ---- the figure ------------------------------------------------------------------------ */

typedef struct figure {
  hx_outfile f;
  cairo_surface_t *surf;
  cairo_t *cr;
  int png;
} figure;

static int figure_open(figure *fg, const char *path, double W, double H) {
  size_t len = strlen(path);
  int svg = len >= 4 && !strcmp(path + len - 4, ".svg");
  fg->png = len >= 4 && !strcmp(path + len - 4, ".png");
  HX_CHECK(svg || fg->png, HX_ERR_INPUT, "'%s': a picture must end in .png or .svg", path);
  HX_CALL(hx_outfile_open(&fg->f, path));
  fg->surf = svg ? cairo_svg_surface_create_for_stream(write_cb, &fg->f, W, H)
                 : cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(W), (int)ceil(H));
  fg->cr = cairo_create(fg->surf);
  cairo_set_source_rgb(fg->cr, 1, 1, 1);
  cairo_paint(fg->cr);
  cairo_select_font_face(fg->cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  return HX_OK;
}

static int figure_close(figure *fg, const char *path) {
  cairo_status_t st = cairo_status(fg->cr);
  cairo_destroy(fg->cr);
  if (st == CAIRO_STATUS_SUCCESS && fg->png) st = cairo_surface_write_to_png_stream(fg->surf, write_cb, &fg->f);
  cairo_surface_finish(fg->surf);
  if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(fg->surf);
  cairo_surface_destroy(fg->surf);
  if (st != CAIRO_STATUS_SUCCESS) {
    hx_outfile_abort(&fg->f);
    return HX_ERROR(HX_ERR_IO, "drawing '%s' failed: %s", path, cairo_status_to_string(st));
  }
  return hx_outfile_commit(&fg->f);
}

static void figure_title(cairo_t *cr, const char *title) {
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size(cr, 16);
  cairo_move_to(cr, 16, 26);
  cairo_show_text(cr, title);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
}

int hx_plot_quality(const char *path, const char *title, const hx_quality_hist *h, int num_panels, const hx_slice *slice,
                    const char *value_name) {
  HX_CHECK(num_panels >= 1 || slice, HX_ERR_INPUT, "plot: nothing to draw");
  int cols = num_panels < 2 ? 1 : 2, rows = (num_panels + cols - 1) / cols;
  double pw = 460, ph = 300, W = 2 * pw, sh = slice ? slice_panel_height(slice, W, 640) : 0, H = 40 + sh + rows * ph;
  figure fg;
  HX_CALL(figure_open(&fg, path, W, H));
  figure_title(fg.cr, title);
  if (slice) slice_panel(fg.cr, slice, value_name ? value_name : "value", 0, 40, W, 640);
  for (int p = 0; p < num_panels; p++) panel(fg.cr, &h[p], (p % cols) * pw, 40 + sh + (p / cols) * ph, pw, ph);
  return figure_close(&fg, path);
}

int hx_plot_slice(const char *path, const char *title, const hx_slice *slice, const char *value_name, int width) {
  HX_CHECK(width >= 200 && width <= 20000, HX_ERR_INPUT, "plot: width %d outside 200..20000 pixels", width);
  double W = width, sh = slice_panel_height(slice, W, 1.2 * W), H = (title ? 40 : 0) + sh;
  figure fg;
  HX_CALL(figure_open(&fg, path, W, H));
  if (title) figure_title(fg.cr, title);
  slice_panel(fg.cr, slice, value_name ? value_name : "value", 0, title ? 40 : 0, W, 1.2 * W);
  return figure_close(&fg, path);
}
#else
int hx_plot_quality(const char *path, const char *title, const hx_quality_hist *h, int num_panels, const hx_slice *slice,
                    const char *value_name) {
  (void)title, (void)h, (void)num_panels, (void)slice, (void)value_name;
  return HX_ERROR(HX_ERR_INPUT, "--plot '%s': this build has no cairo; install libcairo2-dev and reconfigure", path);
}
int hx_plot_slice(const char *path, const char *title, const hx_slice *slice, const char *value_name, int width) {
  (void)title, (void)slice, (void)value_name, (void)width;
  return HX_ERROR(HX_ERR_INPUT, "--plot-slice '%s': this build has no cairo; install libcairo2-dev and reconfigure", path);
}
#endif

int hx_plot_histograms(const char *path, const char *title, const hx_quality_hist *h, int num_panels) {
  return hx_plot_quality(path, title, h, num_panels, NULL, NULL);
}
