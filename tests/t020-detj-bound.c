/* t020: the Bernstein lower bound of det J (hx_detj_bound.h) against dense sampling.
   (a) random smooth curved elements at p = 1..4, 6, 8: the Bernstein coefficients give
       back det J (evaluated from the nodes) at random points to 1e-10 of the scale, the
       bound is below det J at 20^3 points, and the verdict agrees with the sampling
       (proven only where every sample is positive, invalid only where min_found <= 0);
       mild ones are all proven;
   (b) elements at p = 3, 4 that fold only between their GLL nodes (det J > 0 at every
       node, < 0 at some of the 20^3 points, both checked here) are never proven: their
       bound is negative and the subdivision finds a point with det J <= 0;
   (c) affine elements at p = 1..4 are proven with bound det A to 1e-12, no subdivision;
   (d) a sector of a spherical shell at p = 3, 4 (a cube-sphere patch wider than a cube
       face) whose first bound is negative is proven after subdivision (thickness and angle
       scanned; the cases found are printed: at p = 4, tan 1.53 to 1.62 of the half angle,
       3 subdivisions; from about 1.7 the p = 4 interpolant itself folds, p = 3 is proven
       at once throughout). Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hx_basis.h"
#include "hx_detj_bound.h"
#include "hx_memory.h"
#include "hx_mesh.h"

static int fail = 0;
#define CHECK(cond, ...)                                                                                                         \
  do {                                                                                                                           \
    if (!(cond)) {                                                                                                               \
      printf("FAIL: " __VA_ARGS__);                                                                                              \
      printf("\n");                                                                                                              \
      fail = 1;                                                                                                                  \
    }                                                                                                                            \
  } while (0)

typedef void (*map_fn)(const double xi[3], double X[3], const double *par);

/* x [3][nd^3] = map at the GLL nodes of order p */
static void fill(int p, map_fn map, const double *par, double *x) {
  int nd = p + 1, npe = nd * nd * nd;
  double xg[HX_MAX_ND], w[HX_MAX_ND];
  hx_gll(nd, xg, w);
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        double xi[3] = {xg[i], xg[j], xg[k]}, X[3];
        map(xi, X, par);
        for (int c = 0; c < 3; c++) x[c * npe + hx_lex(nd, i, j, k)] = X[c];
      }
}

/* smallest det J at 20^3 equispaced points (ends included) */
static double dense_min(const hx_detj_bound_ctx *bc, const double *x) {
  double mn = INFINITY;
  for (int k = 0; k < 20; k++)
    for (int j = 0; j < 20; j++)
      for (int i = 0; i < 20; i++) {
        double xi[3] = {i / 19.0, j / 19.0, k / 19.0};
        mn = fmin(mn, hx_detj_bound_eval(bc, x, xi));
      }
  return mn;
}

/* the Bernstein polynomial with coefficients coef [n^3] at xi, summed directly */
static double bernstein_eval(int n, const double *coef, const double xi[3]) {
  double b[3][3 * HX_MAX_ORDER];
  for (int d = 0; d < 3; d++) {
    double binom = 1;
    for (int i = 0; i < n; i++) {
      b[d][i] = binom * pow(xi[d], i) * pow(1 - xi[d], n - 1 - i);
      binom = binom * (n - 1 - i) / (i + 1);
    }
  }
  double s = 0;
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) s += coef[i + n * (j + n * k)] * b[0][i] * b[1][j] * b[2][k];
  return s;
}

static double urand(void) { return rand() / (RAND_MAX + 1.0); }

/* par: A [9], amp, frequencies [9], phases [3] */
static void smooth(const double xi[3], double X[3], const double *par) {
  const double *A = par, *f = par + 10, *ph = par + 19;
  for (int r = 0; r < 3; r++) {
    double arg = f[3 * r] * xi[0] + f[3 * r + 1] * xi[1] + f[3 * r + 2] * xi[2] + ph[r];
    X[r] = 5.0 + A[3 * r] * xi[0] + A[3 * r + 1] * xi[1] + A[3 * r + 2] * xi[2] + par[9] * sin(arg);
  }
}

static void random_smooth(double amp, double *par) {
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) par[3 * r + c] = (r == c ? 1.0 : 0.0) + 0.3 * (urand() - 0.5);
  par[9] = amp;
  for (int k = 0; k < 9; k++) par[10 + k] = 4 * (urand() - 0.5);
  for (int k = 0; k < 3; k++) par[19 + k] = 2 * HX_PI * urand();
}

/* (b) x1 folds back on (0.55, 0.6): x1' = (t - 0.55)(t - 0.6) / x(1), positive at every GLL
   node of order 3 (0, 0.276, 0.724, 1) and 4 (0, 0.173, 0.5, 0.827, 1); then a shear and a
   small bend, and an affine map */
static void folded(const double xi[3], double X[3], const double *par) {
  (void)par;
  double t = xi[0], x1 = (t * t * t / 3 - 1.15 * t * t / 2 + 0.33 * t) / (1.0 / 3 - 1.15 / 2 + 0.33);
  double u[3] = {x1, xi[1] + 0.03 * xi[0] * xi[2], xi[2] + 0.02 * xi[0] * xi[1]};
  static const double A[3][3] = {{1.0, 0.2, 0.1}, {-0.1, 0.9, 0.2}, {0.05, -0.1, 1.1}};
  for (int r = 0; r < 3; r++) X[r] = A[r][0] * u[0] + A[r][1] * u[1] + A[r][2] * u[2];
}

static const double Aff[3][3] = {{2.0, 0.5, 0.3}, {0.0, 1.0, 0.2}, {0.1, 0.0, 0.5}};
static void affine(const double xi[3], double X[3], const double *par) {
  (void)par;
  for (int r = 0; r < 3; r++) X[r] = 1.0 + Aff[r][0] * xi[0] + Aff[r][1] * xi[1] + Aff[r][2] * xi[2];
}

/* (d) par: r1, r2, a: the cube-sphere patch (a (2 xi1 - 1), a (2 xi2 - 1), 1) / |.| at
   radius r1 + (r2 - r1) xi3 */
static void shell(const double xi[3], double X[3], const double *par) {
  double u[3] = {par[2] * (2 * xi[0] - 1), par[2] * (2 * xi[1] - 1), 1}, len = sqrt(u[0] * u[0] + u[1] * u[1] + 1);
  double r = par[0] + (par[1] - par[0]) * xi[2];
  for (int c = 0; c < 3; c++) X[c] = r * u[c] / len;
}

int main(void) {
  hx_detj_bound_opts o;
  hx_detj_bound_opts_default(&o);
  static double x[3 * HX_MAX_ND * HX_MAX_ND * HX_MAX_ND], coef[27 * HX_MAX_ORDER * HX_MAX_ORDER * HX_MAX_ORDER];
  srand(34);

  /* (a) */
  const int orders[] = {1, 2, 3, 4, 6, 8};
  for (int io = 0; io < 6; io++) {
    int p = orders[io];
    hx_detj_bound_ctx *bc;
    if (hx_detj_bound_ctx_create(p, &o, &bc)) return 1;
    int n = hx_detj_bound_ctx_size(bc), proven_mild = 0, nmild = 12, nwild = 12, verdicts[4] = {0, 0, 0, 0};
    double max_err = 0;
    for (int e = 0; e < nmild + nwild; e++) {
      double par[22];
      int mild = e < nmild;
      random_smooth(mild ? 0.04 : 0.45, par);
      fill(p, smooth, par, x);
      hx_detj_bound_result r;
      hx_detj_bound_elem(bc, x, &r);
      hx_detj_bound_bernstein(bc, x, coef);
      for (int t = 0; t < 30; t++) {
        double xi[3] = {urand(), urand(), urand()};
        double err = fabs(bernstein_eval(n, coef, xi) - hx_detj_bound_eval(bc, x, xi)) / r.scale;
        max_err = fmax(max_err, err);
      }
      double dmin = dense_min(bc, x);
      verdicts[r.verdict]++;
      CHECK(r.lower <= dmin + 1e-12 * r.scale, "p %d element %d: bound %.6e above the sampled min %.6e", p, e, r.lower, dmin);
      CHECK(r.lower0 <= r.lower + 1e-12 * r.scale, "p %d element %d: subdivision lowered the bound", p, e);
      CHECK(r.verdict != HX_VALID_PROVEN || dmin > 0, "p %d element %d: proven but det J %.3e at a sample", p, e, dmin);
      CHECK(r.verdict != HX_INVALID || r.min_found <= 0, "p %d element %d: invalid without a point", p, e);
      CHECK(r.verdict == HX_INVALID || dmin > 0 || r.verdict == HX_VALID_NOT_PROVEN,
            "p %d element %d: det J %.3e at a sample, verdict %s", p, e, dmin, hx_validity_name(r.verdict));
      if (mild && r.verdict == HX_VALID_PROVEN) proven_mild++;
    }
    printf("(a) p %d: Bernstein vs det J max error %.1e of the scale; mild proven %d/%d; wild: proven %d, not proven %d, "
           "invalid %d\n",
           p, max_err, proven_mild, nmild, verdicts[HX_VALID_PROVEN] - proven_mild, verdicts[HX_VALID_NOT_PROVEN],
           verdicts[HX_INVALID]);
    CHECK(max_err <= 1e-10, "p %d: the Bernstein coefficients give back det J to %.3e only", p, max_err);
    CHECK(proven_mild == nmild, "p %d: only %d of %d mild elements proven", p, proven_mild, nmild);
    hx_detj_bound_ctx_destroy(&bc);
  }

  /* (b) */
  for (int p = 3; p <= 4; p++) {
    hx_detj_bound_ctx *bc;
    if (hx_detj_bound_ctx_create(p, &o, &bc)) return 1;
    fill(p, folded, NULL, x);
    int nd = p + 1;
    double D[HX_MAX_ND * HX_MAX_ND], gmin, gmax;
    hx_mesh_gll_derivative(nd, D);
    hx_elem_detj_range(nd, D, x, &gmin, &gmax);
    double dmin = dense_min(bc, x);
    hx_detj_bound_result r;
    hx_detj_bound_elem(bc, x, &r);
    printf("(b) p %d folded between nodes: det J min at GLL nodes %.4f, at 20^3 points %.4f; first bound %.4f, bound %.4f, "
           "det J %.4f found at (%.4f, %.4f, %.4f) after %d subdivisions: %s\n",
           p, gmin, dmin, r.lower0, r.lower, r.min_found, r.xi_min[0], r.xi_min[1], r.xi_min[2], r.num_splits,
           hx_validity_name(r.verdict));
    CHECK(gmin > 0 && dmin < 0, "p %d: the element does not fold only between its nodes", p);
    CHECK(r.verdict != HX_VALID_PROVEN && r.lower < 0, "p %d: a folded element proven valid", p);
    CHECK(r.verdict == HX_INVALID && r.min_found < 0 && hx_detj_bound_eval(bc, x, r.xi_min) < 0,
          "p %d: no point with det J < 0 found", p);
    hx_detj_bound_ctx_destroy(&bc);
  }

  /* (c) */
  double detA = Aff[0][0] * (Aff[1][1] * Aff[2][2] - Aff[1][2] * Aff[2][1]) -
                Aff[0][1] * (Aff[1][0] * Aff[2][2] - Aff[1][2] * Aff[2][0]) +
                Aff[0][2] * (Aff[1][0] * Aff[2][1] - Aff[1][1] * Aff[2][0]);
  for (int p = 1; p <= 4; p++) {
    hx_detj_bound_ctx *bc;
    if (hx_detj_bound_ctx_create(p, &o, &bc)) return 1;
    fill(p, affine, NULL, x);
    hx_detj_bound_result r;
    hx_detj_bound_elem(bc, x, &r);
    double rel = fabs(r.lower - detA) / detA;
    printf("(c) p %d affine: bound %.15f (det A %.15f, off %.1e), %s, %d subdivisions\n", p, r.lower, detA, rel,
           hx_validity_name(r.verdict), r.num_splits);
    CHECK(rel <= 1e-12 && r.verdict == HX_VALID_PROVEN && r.num_splits == 0, "p %d: affine element", p);
    hx_detj_bound_ctx_destroy(&bc);
  }

  /* (d) */
  int found = 0;
  for (int p = 3; p <= 4; p++) {
    hx_detj_bound_ctx *bc;
    if (hx_detj_bound_ctx_create(p, &o, &bc)) return 1;
    const double thick[] = {2.0, 0.5, 0.1}, ang[] = {1.5, 1.53, 1.56, 1.59, 1.62};
    for (int i1 = 0; i1 < 3; i1++)
      for (int i2 = 0; i2 < 5; i2++) {
        double par[3] = {1.0, 1.0 + thick[i1], ang[i2]};
        fill(p, shell, par, x);
        hx_detj_bound_result r;
        hx_detj_bound_elem(bc, x, &r);
        double dmin = dense_min(bc, x);
        CHECK(r.lower <= dmin + 1e-12 * r.scale, "shell p %d: bound above the sampled min", p);
        CHECK(r.verdict != HX_VALID_PROVEN || dmin > 0, "shell p %d: proven but det J <= 0 at a sample", p);
        if (r.lower0 < 0 && r.verdict == HX_VALID_PROVEN) {
          found++;
          printf("(d) p %d shell sector r 1..%.1f, tan of the half angle %.2f: first bound %.3e, proven after %d "
                 "subdivisions (bound %.3e, det J min at 20^3 points %.3e)\n",
                 p, 1 + thick[i1], ang[i2], r.lower0, r.num_splits, r.lower, dmin);
        }
      }
    hx_detj_bound_ctx_destroy(&bc);
  }
  printf("(d) %d shell sectors with a negative first bound proven valid by subdivision\n", found);
  CHECK(found > 0, "no shell sector needed and passed subdivision");
  printf("%s\n", fail ? "FAILED" : "ok");
  return fail;
}
