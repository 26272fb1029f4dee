/* t014: quality measures against hand-computed values.
   (a) affine element x = A xi + b at order 3: det J = det A everywhere, Nek scaled
       Jacobian exactly 1, corner scaled Jacobian det A / (|a1||a2||a3|), aspect
       max|a_d| / min|a_d|, min GLL spacing min|a_d| * (1 - 1/sqrt 5) / 2;
   (b) tapered element x = (xi1 (1 - a xi3), xi2, xi3), a = 1/2, at order 2:
       det J = 1 - a xi3 so GLL min/max 1/2 and 1, Nek SJ 1/2; at 2 Gauss points
       min 1 - a (1/2 + 1/(2 sqrt 3)); corner SJ 1/sqrt(1 + a^2); aspect
       sqrt(1 + a^2) / (1 - a);
   (c) the Kershaw box 24^3 (eps 0.3) at p = 1..4 has min det J 6.5104e-06 (the Kershaw map);
   (d) an inverted element is counted and listed first among the worst.
   All to 1e-13 relative (rounding in the GLL derivative matrix is ~1e-14). */
#include <math.h>
#include <stdio.h>

#include "hx_basis.h"
#include "hx_box.h"
#include "hx_quality.h"
#include "hx_test_meshes.h"

static int fail = 0;
static void expect(const char *what, double got, double want, double tol) {
  int ok = fabs(got - want) <= tol * fmax(1.0, fabs(want));
  printf("%-34s %.12f  %s\n", what, got, ok ? "ok" : "WRONG");
  if (!ok) printf("  off by %.3e\n", got - want);
  if (!ok) {
    printf("  expected %.15g\n", want);
    fail = 1;
  }
}

static hx_mesh *one_elem(int order, void (*map)(const double xi[3], double X[3])) {
  hx_mesh *m;
  if (hx_mesh_create(HX_COMM_SELF, order, 1, &m)) return NULL;
  int nd = order + 1;
  double xg[HX_MAX_ND], w[HX_MAX_ND];
  hx_gll(nd, xg, w);
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        double xi[3] = {xg[i], xg[j], xg[k]}, X[3];
        map(xi, X);
        for (int c = 0; c < 3; c++) hx_mesh_elem_x(m, 0, c)[hx_lex(nd, i, j, k)] = X[c];
        m->node_id[hx_lex(nd, i, j, k)] = hx_lex(nd, i, j, k);
      }
  return m;
}

static const double A[3][3] = {{2.0, 0.5, 0.3}, {0.0, 1.0, 0.2}, {0.1, 0.0, 0.5}};
static void affine(const double xi[3], double X[3]) {
  for (int r = 0; r < 3; r++) X[r] = 1.0 + A[r][0] * xi[0] + A[r][1] * xi[1] + A[r][2] * xi[2];
}
static void tapered(const double xi[3], double X[3]) {
  X[0] = xi[0] * (1 - 0.5 * xi[2]);
  X[1] = xi[1];
  X[2] = xi[2];
}

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  hx_quality_opts o;
  hx_quality_opts_default(&o);
  hx_quality_report r;

  /* (a) */
  hx_mesh *m = one_elem(3, affine);
  hx_elem_quality q;
  if (hx_quality_mesh(m, &o, &q, &r)) {
    printf("%s\n", hx_error_message());
    return 1;
  }
  double detA = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
  double len[3];
  for (int d = 0; d < 3; d++) len[d] = sqrt(A[0][d] * A[0][d] + A[1][d] * A[1][d] + A[2][d] * A[2][d]);
  double lmin = fmin(len[0], fmin(len[1], len[2])), lmax = fmax(len[0], fmax(len[1], len[2]));
  printf("affine: quadrature %d GLL points (MFEM -qo 8)\n", r.quad_points);
  expect("affine det J min (GLL)", q.detj_min, detA, 1e-13);
  expect("affine det J max (quadrature)", q.detj_max_q, detA, 1e-13);
  expect("affine scaled Jacobian (Nek)", q.scaled_jac, 1.0, 1e-13); /* 1 to rounding of D */
  expect("affine corner scaled Jacobian", q.corner_sj, detA / (len[0] * len[1] * len[2]), 1e-13);
  expect("affine aspect ratio", q.aspect, lmax / lmin, 1e-13);
  expect("affine min GLL spacing", q.min_spacing, lmin * (1 - 1 / sqrt(5.0)) / 2, 1e-13);
  expect("affine centroid x", q.centroid[0], 1.0 + (A[0][0] + A[0][1] + A[0][2]) / 2, 1e-13);
  hx_quality_report_free(&r);
  hx_mesh_destroy(&m);

  /* (b) */
  m = one_elem(2, tapered);
  o.quad_type = HX_QUAD_GL;
  o.quad_points = 2;
  if (hx_quality_mesh(m, &o, &q, &r)) return 1;
  double a = 0.5;
  expect("tapered det J min (GLL)", q.detj_min, 1 - a, 1e-13);
  expect("tapered det J max (GLL)", q.detj_max, 1.0, 1e-13);
  expect("tapered scaled Jacobian (Nek)", q.scaled_jac, 1 - a, 1e-13);
  expect("tapered det J min (2 Gauss)", q.detj_min_q, 1 - a * (0.5 + 0.5 / sqrt(3.0)), 1e-13);
  expect("tapered det J max (2 Gauss)", q.detj_max_q, 1 - a * (0.5 - 0.5 / sqrt(3.0)), 1e-13);
  expect("tapered corner scaled Jacobian", q.corner_sj, 1 / sqrt(1 + a * a), 1e-13);
  expect("tapered aspect ratio", q.aspect, sqrt(1 + a * a) / (1 - a), 1e-13);
  hx_quality_report_free(&r);
  hx_mesh_destroy(&m);

  /* (c) */
  hx_quality_opts_default(&o);
  for (int p = 1; p <= 4; p++) {
    hx_box_opts bo;
    hx_box_opts_default(&bo);
    bo.n[0] = bo.n[1] = bo.n[2] = 24;
    bo.order = p;
    bo.kershaw = 1;
    bo.eps_y = bo.eps_z = 0.3;
    if (hx_mesher_box(HX_COMM_SELF, &bo, &m) || hx_quality_mesh(m, &o, NULL, &r)) return 1;
    printf("kershaw p %d: min det J %.4e, scaled Jacobian min %.4f, corner SJ min %.4f, inverted %lld\n", p, r.stat[0].min,
           r.stat[4].min, r.stat[5].min, (long long)r.num_inverted);
    if (fabs(r.stat[0].min - 0.09 / 13824) > 1e-12 || r.num_inverted) fail = 1;
    hx_quality_report_free(&r);
    hx_mesh_destroy(&m);
  }

  /* (d) a 3x1x1 box with its middle element's x mirrored (inverted) */
  hx_box_opts bo;
  hx_box_opts_default(&bo);
  bo.n[0] = 3;
  bo.n[1] = bo.n[2] = 1;
  bo.order = 2;
  if (hx_mesher_box(HX_COMM_SELF, &bo, &m)) return 1;
  double *x1 = hx_mesh_elem_x(m, 1, 0);
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 3; j++) {
      double t = x1[hx_lex(3, 0, j, k)];
      x1[hx_lex(3, 0, j, k)] = x1[hx_lex(3, 2, j, k)];
      x1[hx_lex(3, 2, j, k)] = t;
    }
  o.num_worst = 2;
  if (hx_quality_mesh(m, &o, NULL, &r)) return 1;
  printf("inverted: %lld element(s), worst %lld (scaled Jacobian %.3f), then %lld\n", (long long)r.num_inverted,
         (long long)r.worst[0].elem, r.worst[0].q.scaled_jac, (long long)r.worst[1].elem);
  if (r.num_inverted != 1 || r.worst[0].elem != 1 || r.num_worst != 2) fail = 1;
  hx_quality_print(&r, stdout);
  hx_quality_report_free(&r);
  hx_mesh_destroy(&m);
  return tm_finalize(fail);
}
