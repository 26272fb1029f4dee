/* t456: the smallest det J of each element at the points of a rule on the GPU
   (hx_detj_points_min_cuda, the points' part of hx_tmop_fold_state on the cuda backend) against
   the CPU (hx_quality_elem_parts), per element, to 1e-12 of the element's largest |det J| at
   the nodes, with the same sign wherever the CPU's value is not within that of zero. Rules:
   the fold tests' two (6 GLL points a direction, and Gauss nd + 3) and GLL 12 (the kernel's
   largest, 1728 points). Elements: curved Kershaw boxes 6^3 at p = 1, 3, 7; elements at p = 3, 4
   that fold only between their GLL nodes (t020's construction: positive at the nodes, negative
   at p = 4's Gauss points). Then hx_tmop_fold_state of a curved order-7 box with backend cuda against
   backend cpu, with all elements and with every third: f to that tolerance, the nodes' ratio
   and the aspect ratio equal. Without a CUDA device (or a build without CUDA) it prints one
   skip line and passes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_kernels.h"
#include "hx_quality.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"
#include "hx_tmop_impl.h"

static int fail = 0;

/* GPU against CPU on ne elements of order p in xE, with the rule of qc */
static int compare(const char *what, int p, hx_lid ne, const double *xE, const hx_quality_ctx *qc, int *nneg) {
  int nd = p + 1, Q = hx_quality_ctx_points(qc);
  size_t stride = 3 * (size_t)nd * nd * nd;
  const double *B, *G;
  hx_quality_ctx_rule(qc, &B, &G);
  double *fg = malloc(((size_t)ne + 1) * sizeof *fg);
  int rc = hx_detj_points_min_cuda(nd, Q, B, G, ne, xE, fg);
  double err = 0;
  int sign = 0, neg = 0;
  for (hx_lid e = 0; !rc && e < ne; e++) {
    hx_elem_quality q;
    rc = hx_quality_elem_parts(qc, xE + e * stride, HX_QUALITY_POINTS | HX_QUALITY_NODES, &q);
    double scale = fmax(fabs(q.detj_min), fabs(q.detj_max)), d = fabs(fg[e] - q.detj_min_q) / scale;
    err = fmax(err, d);
    neg += q.detj_min_q < 0;
    sign += fabs(q.detj_min_q) > 1e-12 * scale && (fg[e] < 0) != (q.detj_min_q < 0);
  }
  free(fg);
  HX_CALL(rc);
  if (nneg) *nneg += neg;
  int ok = err <= 1e-12 && !sign;
  printf("%s %-22s p %d, %2d points a direction, %4d elements (%d negative at the points): largest difference %.2e of the "
         "scale, %d sign(s) differ\n",
         ok ? "ok  " : "FAIL", what, p, Q, (int)ne, neg, err, sign);
  if (!ok) fail = 1;
  return HX_OK;
}

/* t020's (b): x1 folds back on (0.55, 0.6), par scales the bend */
static void folded(int p, double par, double *x) {
  int nd = p + 1, npe = nd * nd * nd;
  double xg[HX_MAX_ND], w[HX_MAX_ND];
  hx_gll(nd, xg, w);
  static const double A[3][3] = {{1.0, 0.2, 0.1}, {-0.1, 0.9, 0.2}, {0.05, -0.1, 1.1}};
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        double t = xg[i], x1 = (t * t * t / 3 - 1.15 * t * t / 2 + 0.33 * t) / (1.0 / 3 - 1.15 / 2 + 0.33);
        double u[3] = {x1, xg[j] + par * xg[i] * xg[k], xg[k] + 0.02 * xg[i] * xg[j]};
        for (int r = 0; r < 3; r++) x[r * npe + hx_lex(nd, i, j, k)] = A[r][0] * u[0] + A[r][1] * u[1] + A[r][2] * u[2];
      }
}

/* hx_tmop_fold_state with backend cuda against cpu on m, with all elements and with every third */
static int fold_state(hx_mesh *m) {
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  hx_quality_ctx *qc[2];
  HX_CALL(hx_tmop_fold_ctx(m->nd, 0, &qc[0]));
  HX_CALL(hx_tmop_fold_ctx(m->nd, 1, &qc[1]));
  hx_lid ne = m->num_elem;
  double *v[2][3];
  unsigned char *only = malloc((size_t)ne + 1);
  for (hx_lid e = 0; e < ne; e++) only[e] = e % 3 == 0;
  for (int sub = 0; sub < 2; sub++) {
    for (int b = 0; b < 2; b++) {
      o.backend = b ? "cuda" : "cpu";
      hx_tmop *tm = NULL;
      HX_CALL(hx_tmop_base(m, &o, 1, &tm));
      for (int k = 0; k < 3; k++) {
        v[b][k] = malloc(((size_t)ne + 1) * sizeof(double));
        for (hx_lid e = 0; e < ne; e++) v[b][k][e] = 7; /* untouched where not asked */
      }
      HX_CALL(hx_tmop_fold_state(tm, m->x, qc, 2, v[b][0], v[b][1], v[b][2], NULL, sub ? only : NULL));
      hx_tmop_destroy(&tm);
    }
    double err = 0;
    int same = 1;
    for (hx_lid e = 0; e < ne; e++) {
      same &= v[0][0][e] == v[1][0][e] && v[0][1][e] == v[1][1][e];
      err = fmax(err, fabs(v[0][2][e] - v[1][2][e]) / fmax(fabs(v[0][2][e]), 1e-300));
      if (sub && !only[e]) same &= v[1][2][e] == 7;
    }
    int ok = same && err <= 1e-12;
    printf("%s hx_tmop_fold_state p %d, %s: cuda against cpu: ratio and aspect %s, det J at the points %.2e apart\n",
           ok ? "ok  " : "FAIL", m->order, sub ? "every third element" : "all elements", same ? "equal" : "DIFFER", err);
    if (!ok) fail = 1;
    for (int b = 0; b < 2; b++)
      for (int k = 0; k < 3; k++) free(v[b][k]);
  }
  free(only);
  hx_quality_ctx_destroy(&qc[0]), hx_quality_ctx_destroy(&qc[1]);
  return HX_OK;
}

static int body(void) {
  static const int orders[3] = {1, 3, 7};
  for (int t = 0; t < 3; t++) {
    int p = orders[t];
    hx_mesh *m = test_kershaw(HX_COMM_SELF, 6, 6, 6, p, 0.3);
    if (!m) return 1;
    test_curve(m, 0.03);
    for (int k = 0; k < 3; k++) {
      hx_quality_ctx *qc;
      if (k < 2) HX_CALL(hx_tmop_fold_ctx(p + 1, k, &qc));
      else {
        hx_quality_opts qo;
        hx_quality_opts_default(&qo);
        qo.quad_order = 20; /* 12 GLL points: the kernel's largest rule */
        HX_CALL(hx_quality_ctx_create(p + 1, &qo, &qc));
      }
      HX_CALL(compare("kershaw 6^3 curved", p, m->num_elem, m->x, qc, NULL));
      hx_quality_ctx_destroy(&qc);
    }
    if (p == 7) HX_CALL(fold_state(m));
    hx_mesh_destroy(&m);
  }
  int neg = 0; /* p = 4's fold shows at the Gauss points (8 of 8 on the CPU) */
  for (int p = 3; p <= 4; p++) {
    int nd = p + 1, npe = nd * nd * nd, nf = 8;
    double *x = malloc((size_t)nf * 3 * npe * sizeof(double));
    for (int e = 0; e < nf; e++) folded(p, 0.01 * e, x + (size_t)e * 3 * npe);
    for (int k = 0; k < 2; k++) {
      hx_quality_ctx *qc;
      HX_CALL(hx_tmop_fold_ctx(nd, k, &qc));
      HX_CALL(compare("folded between nodes", p, nf, x, qc, &neg));
      hx_quality_ctx_destroy(&qc);
    }
    free(x);
  }
  if (!neg) {
    printf("FAIL folded between nodes: no element negative at the points\n");
    fail = 1;
  }
  printf(fail ? "t456: FAIL\n" : "t456: ok\n");
  return fail;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#else
  (void)argc;
  (void)argv;
#endif
  int rc = 0;
  if (!hx_backend_cuda.available || !hx_cuda_device_available()) {
    printf("t456: skipped: %s\n", hx_backend_cuda.available ? "no CUDA device" : "CUDA backend not in this build");
  } else {
    rc = body();
    if (rc && rc != 1) printf("error: %s\n", hx_error_message());
  }
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return rc ? 1 : 0;
}
