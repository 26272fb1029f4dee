/* Progress on stderr (hx_progress.h). On a terminal a bar, redrawn at most 10 times a second
   and only when the shown tenth of a percent changes; into a file or a pipe (a batch job) a
   plain line every few seconds (hx_progress_set_interval); nothing unless enabled. */
#include "hx_progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int progress_on = 0;
static double line_interval = 5; /* seconds between the plain lines (0: none) */

void hx_progress_enable(int on) { progress_on = on; }

void hx_progress_set_interval(double seconds) { line_interval = seconds; }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void hx_progress_start(hx_progress *p, const char *label, hx_gid total) {
  memset(p, 0, sizeof *p);
  snprintf(p->label, sizeof p->label, "%s", label);
  p->total = total > 0 ? total : 1;
  p->tty = isatty(STDERR_FILENO);
  p->enabled = progress_on && (p->tty || line_interval > 0);
  p->t0 = now();
  p->last_permille = -1;
}

void hx_progress_update(hx_progress *p, hx_gid done) {
  p->done = done;
  if (!p->enabled) return;
  int permille = (int)(1000.0 * (double)done / (double)p->total);
  double t = now();
  if (!p->tty) { /* a plain line every line_interval seconds: stage, fraction, elapsed, ETA */
    if (t - (p->last_draw > 0 ? p->last_draw : p->t0) < line_interval) return;
    p->last_draw = t;
    double el = t - p->t0, eta = permille > 0 ? el * (1000 - permille) / permille : 0;
    fprintf(stderr, "progress: %s %.1f %% (%lld of %lld), %.1f s elapsed, eta %.1f s\n", p->label, permille / 10.0,
            (long long)done, (long long)p->total, el, eta);
    fflush(stderr);
    return;
  }
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
  if (p->enabled && p->tty && p->drawn) {
    fprintf(stderr, "\r%*s\r", 80, "");
    fflush(stderr);
  }
  p->drawn = 0;
}
