/* Progress bar on stderr (hx_progress.h). Redraws at most 10 times a second and
   only when the shown tenth of a percent changes; nothing at all unless enabled
   and stderr is a terminal. */
#include "hx_progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int progress_on = 0;

void hx_progress_enable(int on) { progress_on = on; }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void hx_progress_start(hx_progress *p, const char *label, hx_gid total) {
  memset(p, 0, sizeof *p);
  snprintf(p->label, sizeof p->label, "%s", label);
  p->total = total > 0 ? total : 1;
  p->enabled = progress_on && isatty(STDERR_FILENO);
  p->t0 = now();
  p->last_permille = -1;
}

void hx_progress_update(hx_progress *p, hx_gid done) {
  p->done = done;
  if (!p->enabled) return;
  int permille = (int)(1000.0 * (double)done / (double)p->total);
  double t = now();
  /* wait half a second before the first draw so short stages stay quiet */
  if (permille == p->last_permille || t - p->t0 < 0.5 || t - p->last_draw < 0.1) return;
  p->last_permille = permille;
  p->last_draw = t;
  char bar[41];
  int fill = permille * 40 / 1000;
  for (int i = 0; i < 40; i++) bar[i] = i < fill ? '#' : '.';
  bar[40] = 0;
  double el = t - p->t0, eta = permille > 0 ? el * (1000 - permille) / permille : 0;
  fprintf(stderr, "\r%-12s [%s] %5.1f%%  %6.1fs  eta %6.1fs", p->label, bar, permille / 10.0, el, eta);
  fflush(stderr);
  p->drawn = 1;
}

void hx_progress_finish(hx_progress *p) {
  if (p->enabled && p->drawn) {
    fprintf(stderr, "\r%*s\r", 80, "");
    fflush(stderr);
  }
  p->drawn = 0;
}
