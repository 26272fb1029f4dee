/* t220: the Qhull power-diagram neighbour pairs (meshers/qhull/power2d.c) contain
   every pair whose power cells share an edge, found here by brute force (clip a
   big box by every other site's bisector, keep the sites whose bisector bounds a
   positive-length edge), for weighted random sites, a weighted square lattice with
   cocircular sites, and the tiny/collinear fallbacks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "hx_power2d.h"

static unsigned long long seed = 12345;
static double rnd(void) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(seed >> 11) / 9007199254740992.0;
}

/* Brute-force cell of site i: returns for every j whether its bisector bounds an edge longer than tol. */
static void brute_neighbours(int n, const double *xy, const double *w, int i, char *nb, double tol) {
  double px[256], py[256];
  int lab[256], m = 4;
  double B = 1e3;
  double bx[4] = {-B, B, B, -B}, by[4] = {-B, -B, B, B};
  for (int k = 0; k < 4; k++) px[k] = bx[k], py[k] = by[k], lab[k] = -1;
  for (int j = 0; j < n; j++) {
    if (j == i) continue;
    /* |x - ci|^2 - wi <= |x - cj|^2 - wj */
    double a0 = 2 * (xy[2 * j] - xy[2 * i]), a1 = 2 * (xy[2 * j + 1] - xy[2 * i + 1]);
    double b = xy[2 * j] * xy[2 * j] + xy[2 * j + 1] * xy[2 * j + 1] - xy[2 * i] * xy[2 * i] - xy[2 * i + 1] * xy[2 * i + 1] +
               w[i] - w[j];
    double qx[256], qy[256];
    int ql[256], q = 0;
    for (int k = 0; k < m; k++) {
      int k1 = (k + 1) % m;
      double fc = a0 * px[k] + a1 * py[k] - b, fd = a0 * px[k1] + a1 * py[k1] - b;
      if (fc <= 0) {
        qx[q] = px[k], qy[q] = py[k], ql[q++] = lab[k];
        if (fd > 0) {
          double t = fc / (fc - fd);
          qx[q] = px[k] + t * (px[k1] - px[k]), qy[q] = py[k] + t * (py[k1] - py[k]), ql[q++] = j;
        }
      } else if (fd <= 0) {
        double t = fc / (fc - fd);
        qx[q] = px[k] + t * (px[k1] - px[k]), qy[q] = py[k] + t * (py[k1] - py[k]), ql[q++] = lab[k];
      }
    }
    m = q;
    memcpy(px, qx, sizeof(double) * q), memcpy(py, qy, sizeof(double) * q), memcpy(lab, ql, sizeof(int) * q);
  }
  memset(nb, 0, (size_t)n);
  for (int k = 0; k < m; k++) {
    int k1 = (k + 1) % m;
    if (lab[k] >= 0 && hypot(px[k1] - px[k], py[k1] - py[k]) > tol) nb[lab[k]] = 1;
  }
}

static int check(const char *what, int n, const double *xy, const double *w) {
  int np, *pairs;
  if (hx_power2d_pairs(n, xy, w, &np, &pairs)) {
    printf("%s: failed: %s\n", what, hx_error_message());
    return 1;
  }
  char *in = calloc((size_t)n * n, 1), *nb = malloc((size_t)n);
  for (int k = 0; k < np; k++) in[pairs[2 * k] * n + pairs[2 * k + 1]] = in[pairs[2 * k + 1] * n + pairs[2 * k]] = 1;
  int missing = 0, true_pairs = 0;
  for (int i = 0; i < n; i++) {
    brute_neighbours(n, xy, w, i, nb, 1e-7);
    for (int j = 0; j < n; j++)
      if (nb[j]) {
        true_pairs++;
        if (!in[i * n + j]) missing++;
      }
  }
  printf("%s: sites %d pairs_ok %d missing %d\n", what, n, np >= true_pairs / 2, missing);
  free(in), free(nb), hx_free(&pairs);
  return missing != 0;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#else
  (void)argc, (void)argv;
#endif
  int fail = 0;
  static double xy[2 * 400], w[400];
  /* random weighted sites */
  for (int i = 0; i < 200; i++) xy[2 * i] = 10 * rnd(), xy[2 * i + 1] = 10 * rnd(), w[i] = 0.3 * rnd();
  fail |= check("random", 200, xy, w);
  /* square lattice 9x9, weights P r with larger tubes on a pattern: many cocircular lifts */
  int n = 0;
  for (int r = 0; r < 9; r++)
    for (int c = 0; c < 9; c++, n++) {
      xy[2 * n] = 1.26 * c, xy[2 * n + 1] = 1.26 * r;
      w[n] = 1.26 * ((r % 3 == 1 && c % 3 == 1) ? 0.61 : 0.475);
    }
  fail |= check("lattice", n, xy, w);
  /* equal weights: fully degenerate square lattice */
  for (int k = 0; k < n; k++) w[k] = 0.5;
  fail |= check("equal", n, xy, w);
  /* fallbacks: 1, 2, 3 sites and a collinear row */
  fail |= check("one", 1, xy, w);
  fail |= check("three", 3, xy, w);
  for (int k = 0; k < 7; k++) xy[2 * k] = k, xy[2 * k + 1] = 2.0, w[k] = 0.1 * (k % 2);
  fail |= check("row", 7, xy, w);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
