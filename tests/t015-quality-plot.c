/* t015: the quality histograms of the Kershaw box 12x4x4 are drawn with cairo into a
   PNG (signature, IHDR size 920 x 640 for 4 panels) and an SVG (an <svg> document with
   the panel titles as text); bin counts add up to the element count; an
   unwritable path fails with a message naming it and leaves no file. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hx_box.h"
#include "hx_config.h"
#include "hx_memory.h"
#include "hx_plot.h"
#include "hx_test_meshes.h"

static long file_size(const char *p) {
  FILE *f = fopen(p, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  int fail = 0;
  hx_box_opts bo;
  hx_box_opts_default(&bo);
  bo.n[0] = 12;
  bo.n[1] = bo.n[2] = 4;
  bo.order = 3;
  bo.kershaw = 1;
  bo.eps_y = bo.eps_z = 0.3;
  hx_mesh *m;
  if (hx_mesher_box(HX_COMM_SELF, &bo, &m)) return 1;
  hx_quality_opts o;
  hx_quality_opts_default(&o);
  hx_elem_quality *q;
  hx_quality_report r;
  if (hx_malloc(m->num_elem * sizeof *q, &q) || hx_quality_mesh(m, &o, q, &r)) return 1;
  hx_quality_hist h[4];
  int meas[4] = {4, 5, 0, 6};
  for (int p = 0; p < 4; p++) {
    if (hx_quality_histogram(m->comm, q, m->num_elem, meas[p], 40, p < 2 ? 0 : 1, p < 2 ? 1 : 0, &h[p])) return 1;
    double total = 0;
    for (int b = 0; b < h[p].num_bins; b++) total += h[p].counts[b];
    printf("histogram %s: %g elements in [%.4g, %.4g]\n", hx_quality_stat_names[meas[p]], total, h[p].lo, h[p].hi);
    if (total != m->num_elem) fail = 1;
  }
  if (!HX_HAVE_CAIRO) {
    printf("no cairo in this build\n");
    return tm_finalize(fail);
  }
  remove("t015.png");
  remove("t015.svg");
  if (hx_plot_histograms("t015.png", "t015 Kershaw box", h, 4) || hx_plot_histograms("t015.svg", "t015 Kershaw box", h, 4)) {
    printf("plot: %s\n", hx_error_message());
    return 1;
  }
  unsigned char b[24] = {0};
  FILE *f = fopen("t015.png", "rb");
  if (!f || fread(b, 1, 24, f) != 24) fail = 1;
  if (f) fclose(f);
  unsigned w = (unsigned)b[16] << 24 | b[17] << 16 | b[18] << 8 | b[19],
           ht = (unsigned)b[20] << 24 | b[21] << 16 | b[22] << 8 | b[23];
  int sig = !memcmp(b, "\x89PNG\r\n\x1a\n", 8) && !memcmp(b + 12, "IHDR", 4);
  printf("png: signature %d, %u x %u, non-trivial %d\n", sig, w, ht, file_size("t015.png") > 5000);
  if (!sig || w != 920 || ht != 640 || file_size("t015.png") < 5000) fail = 1;
  char svg[4096] = {0};
  f = fopen("t015.svg", "rb");
  size_t n = f ? fread(svg, 1, sizeof svg - 1, f) : 0;
  if (f) fclose(f);
  int is_svg = n > 0 && strstr(svg, "<svg") != NULL;
  printf("svg: document %d\n", is_svg);
  if (!is_svg) fail = 1;
  int rc = hx_plot_histograms("/nonexistent-dir/q.png", "x", h, 4);
  printf("unwritable: rc %d names path %d, no file %d\n", rc, strstr(hx_error_message(), "/nonexistent-dir/q.png") != NULL,
         access("/nonexistent-dir/q.png", F_OK) != 0);
  if (rc == 0 || !strstr(hx_error_message(), "/nonexistent-dir/q.png")) fail = 1;
  hx_quality_report_free(&r);
  hx_free(&q);
  hx_mesh_destroy(&m);
  return tm_finalize(fail);
}
