/* t450: the CUDA backend's kernels against the CPU reference backend, on the same
   E-vectors: energy, min det J, gradient, Hessian action and Jacobi diagonal, with
   both Hessian strategies, to 1e-12 relative (2-norm of the difference over the
   2-norm of the CPU result). Meshes: randomly perturbed Kershaw boxes at orders 1..6
   (metric 303, GLL -qo 8); every metric at p = 2; and a curved mesh (Kershaw with a
   smooth sine displacement of every node, p = 3) with a per-point, non-scalar
   target W (the general W path of the kernels), and with one W per element (w_per_elem); the limiting term
   (x0 off the nodes, a constant and a per-element distance, p = 2 and 3, a generic pair); a box of
   27 elements at p = 4 (an odd count: blocks of several elements end past the mesh), metrics
   303, 318 and 302. Also checks that the stored and
   on-the-fly CUDA strategies agree with each other, and that every column kernel of the
   on-the-fly action gives what the kernel with a thread per point gives. Without a CUDA device (or a
   build without CUDA) it prints one skip line and passes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_invariants.h"
#include "hx_config.h"
#include "hx_kernels.h"
#include "hx_metrics.h"
#include "hx_test_tmop.h"

typedef struct res {
  double e, md, mdn; /* energy, min det J at quadrature points, at GLL nodes */
  double *g, *hv, *dg;
} res;

static double relv(const double *a, const double *b, size_t n) {
  double d = 0, s = 0;
  for (size_t i = 0; i < n; i++) {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    s += b[i] * b[i];
  }
  return sqrt(d) / (s > 0 ? sqrt(s) : 1);
}

/* run every kernel of backend be on x (E-vector), direction v */
static int eval(const hx_backend *be, const hx_mesh *m, const hx_pa_desc *d, const double *x, const double *v, res *r) {
  hx_pa *pa;
  HX_CALL(hx_pa_create(be, m, d, &pa));
  size_t n = hx_pa_evec_size(pa);
  double *dx = NULL, *dv = NULL, *dy = NULL;
  int rc = be->vec_alloc(pa, n, &dx);
  if (!rc) rc = be->vec_alloc(pa, n, &dv);
  if (!rc) rc = be->vec_alloc(pa, n, &dy);
  r->g = calloc(n, sizeof(double));
  r->hv = calloc(n, sizeof(double));
  r->dg = calloc(n, sizeof(double));
  if (!rc) rc = be->vec_upload(pa, x, dx, n);
  if (!rc) rc = be->vec_upload(pa, v, dv, n);
  if (!rc) rc = be->energy(pa, dx, &r->e);
  if (!rc) rc = be->min_detj(pa, dx, &r->md);
  if (!rc) rc = be->min_detj_nodes ? be->min_detj_nodes(pa, dx, &r->mdn) : HX_ERR_BACKEND;
  if (!rc) rc = be->grad(pa, dx, dy);
  if (!rc) rc = be->vec_download(pa, dy, r->g, n);
  if (!rc) rc = be->hess_setup(pa, dx);
  if (!rc) rc = be->hess_apply(pa, dv, dy);
  if (!rc) rc = be->vec_download(pa, dy, r->hv, n);
  if (!rc) rc = be->diag(pa, dy);
  if (!rc) rc = be->vec_download(pa, dy, r->dg, n);
  be->vec_free(pa, &dx);
  be->vec_free(pa, &dv);
  be->vec_free(pa, &dy);
  hx_pa_destroy(&pa);
  return rc;
}

static void res_free(res *r) {
  free(r->g);
  free(r->hv);
  free(r->dg);
}

static double cmp(const res *a, const res *b, size_t n) {
  double r[6] = {fabs(a->e - b->e) / fabs(b->e), fabs(a->md - b->md) / fabs(b->md),   relv(a->g, b->g, n), relv(a->hv, b->hv, n),
                 relv(a->dg, b->dg, n),          fabs(a->mdn - b->mdn) / fabs(b->mdn)};
  fprintf(stderr, "  rel: energy %.1e detJ %.1e grad %.1e H.v %.1e diag %.1e detJ(nodes) %.1e\n", r[0], r[1], r[2], r[3], r[4],
          r[5]);
  double e = 0;
  for (int i = 0; i < 6; i++) e = (isnan(r[i]) || isnan(e)) ? NAN : fmax(e, r[i]); /* NaN sticks */
  return e;
}

static int check(const char *what, hx_mesh *m, hx_pa_desc *d, int *fail) {
  size_t n = (size_t)m->num_elem * 3 * m->nd * m->nd * m->nd;
  double *v = malloc(n * sizeof(double));
  int npe = m->nd * m->nd * m->nd;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int c = 0; c < 3; c++)
      for (int a = 0; a < npe; a++) v[((size_t)e * 3 + c) * npe + a] = test_hash(m->node_id[(size_t)e * npe + a] + 99, c);
  double worst = 0;
  for (int s = 0; s < 2; s++) {
    d->hess_strategy = s == 0 ? HX_HESS_STORED : HX_HESS_ONTHEFLY;
    res rc_, rg;
    HX_CALL(eval(&hx_backend_cpu, m, d, m->x, v, &rc_));
    HX_CALL(eval(&hx_backend_cuda, m, d, m->x, v, &rg));
    double e = cmp(&rg, &rc_, n);
    worst = (isnan(e) || isnan(worst)) ? NAN : fmax(worst, e);
    if (!(rg.md > 0)) *fail = 1, fprintf(stderr, "%s: the test mesh is not valid\n", what);
    fprintf(stderr, "%s %s: E %.15e/%.15e detJ %.6e rel %.2e\n", what, s ? "on-the-fly" : "stored", rc_.e, rg.e, rg.md, e);
    res_free(&rc_);
    res_free(&rg);
  }
  printf("%-28s cuda-vs-cpu %s\n", what, worst < 1e-12 ? "ok" : "BAD");
  if (!(worst < 1e-12)) *fail = 1;
  free(v);
  return HX_OK;
}

/* The on-the-fly Hessian action's CUDA kernels against each other (hx_cuda_hv_kernel): every
   column kernel (a thread per (qx, qy) column, the z direction in registers) against the kernel
   with a thread per point, on the same E-vectors. They sum in the same order: the same doubles
   are expected; the test allows 1e-14 relative and says whether they are identical. Then the
   action and the diagonal with A(x_lin) remade in chunks against it held whole: identical. */
static int variants(const char *what, const hx_mesh *m, const hx_pa_desc *d0, int *fail) {
  static const int codes[] = {0, 23, 42, 81, 82, 124, 125};
  hx_pa_desc d = *d0;
  d.hess_strategy = HX_HESS_ONTHEFLY;
  const hx_backend *be = &hx_backend_cuda;
  hx_pa *pa;
  HX_CALL(hx_pa_create(be, m, &d, &pa));
  size_t n = hx_pa_evec_size(pa);
  double *dx = NULL, *dv = NULL, *dy = NULL, *v = malloc(n * sizeof(double)), *y1 = calloc(n, sizeof(double)),
         *y2 = calloc(n, sizeof(double));
  for (size_t i = 0; i < n; i++) v[i] = test_hash((long long)i + 7, 1);
  int rc = be->vec_alloc(pa, n, &dx);
  if (!rc) rc = be->vec_alloc(pa, n, &dv);
  if (!rc) rc = be->vec_alloc(pa, n, &dy);
  if (!rc) rc = be->vec_upload(pa, m->x, dx, n);
  if (!rc) rc = be->vec_upload(pa, v, dv, n);
  if (!rc) rc = be->hess_setup(pa, dx);
  if (!rc) rc = hx_cuda_hv_kernel(1);
  if (!rc) rc = be->hess_apply(pa, dv, dy);
  if (!rc) rc = be->vec_download(pa, dy, y1, n);
  double worst = 0;
  int same = 1;
  for (size_t k = 0; k < sizeof codes / sizeof codes[0] && !rc; k++) {
    rc = hx_cuda_hv_kernel(codes[k]);
    if (!rc) rc = be->hess_apply(pa, dv, dy);
    if (!rc) rc = be->vec_download(pa, dy, y2, n);
    if (rc) break;
    double r = relv(y2, y1, n);
    worst = (isnan(r) || isnan(worst)) ? NAN : fmax(worst, r);
    if (memcmp(y1, y2, n * sizeof(double))) same = 0;
  }
  int rc2 = hx_cuda_hv_kernel(0);
  if (!rc) rc = rc2;
  /* A(x_lin) remade 5 elements at a time before each action and diagonal (hx_cuda_hess_chunk; the
     last chunk short: 216 elements), against it held for every element: the same doubles */
  int chunk_same = 1;
  double *d1 = calloc(n, sizeof(double)), *d2 = calloc(n, sizeof(double));
  if (!rc) rc = be->hess_apply(pa, dv, dy);
  if (!rc) rc = be->vec_download(pa, dy, y1, n);
  if (!rc) rc = be->diag(pa, dy);
  if (!rc) rc = be->vec_download(pa, dy, d1, n);
  if (!rc) rc = hx_cuda_hess_chunk(5);
  if (!rc) rc = be->hess_setup(pa, dx);
  if (!rc) rc = be->hess_apply(pa, dv, dy);
  if (!rc) rc = be->vec_download(pa, dy, y2, n);
  if (!rc) rc = be->diag(pa, dy);
  if (!rc) rc = be->vec_download(pa, dy, d2, n);
  rc2 = hx_cuda_hess_chunk(0);
  if (!rc) rc = rc2;
  if (!rc && (memcmp(y1, y2, n * sizeof(double)) || memcmp(d1, d2, n * sizeof(double)))) chunk_same = 0;
  free(d1);
  free(d2);
  be->vec_free(pa, &dx);
  be->vec_free(pa, &dv);
  be->vec_free(pa, &dy);
  hx_pa_destroy(&pa);
  free(v);
  free(y1);
  free(y2);
  if (rc) return rc;
  printf("%-28s column-vs-point %s (%s, rel %.1e)\n", what, worst <= 1e-14 ? "ok" : "BAD", same ? "identical" : "not identical",
         worst);
  printf("%-28s chunked-vs-whole %s\n", what, chunk_same ? "ok" : "BAD");
  if (!(worst <= 1e-14) || !chunk_same) *fail = 1;
  return HX_OK;
}

static int body(void);
int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#else
  (void)argc;
  (void)argv;
#endif
  int rc = body();
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return rc;
}

static int body(void) {
  if (!hx_backend_cuda.available || !hx_cuda_device_available()) {
    printf("t450: skipped: %s\n", hx_backend_cuda.available ? "no CUDA device" : "CUDA backend not in this build");
    return 0;
  }
  int fail = 0;
  char what[64];
  for (int p = 1; p <= 6 && !fail; p++) {
    hx_mesh *m = test_kershaw(HX_COMM_SELF, 6, 6, 6, p, 0.3);
    if (!m) return 1;
    test_perturb(m, 0.01 / 6 / p); /* keeps det J > 0 (a barrier metric needs a valid mesh) */
    hx_pa_desc d;
    hx_pa_desc_default(&d);
    snprintf(what, sizeof what, "kershaw 6^3 p %d m303", p);
    if (check(what, m, &d, &fail) || variants(what, m, &d, &fail)) {
      printf("error: %s\n", hx_error_message());
      fail = 1;
    }
    if (p <= 4) { /* the Gauss pair nq = p + 2 and a generic metric (the column kernel's switch) */
      hx_pa_desc dg;
      hx_pa_desc_default(&dg);
      dg.quad_type = HX_QUAD_GL;
      dg.quad_order = 2 * p + 2;
      dg.metric = p == 2 ? 302 : 303;
      snprintf(what, sizeof what, "kershaw 6^3 p %d GL m%d", p, dg.metric);
      if (variants(what, m, &dg, &fail)) {
        printf("error: %s\n", hx_error_message());
        fail = 1;
      }
      hx_pa_desc_default(&dg);
      dg.metric = 302;
      snprintf(what, sizeof what, "kershaw 6^3 p %d m302", p);
      if (variants(what, m, &dg, &fail)) {
        printf("error: %s\n", hx_error_message());
        fail = 1;
      }
    }
    if (p == 2)
      for (const hx_metric_info *mi = hx_metrics(); mi->id && !fail; mi++) {
        d.metric = mi->id;
        d.metric_param = mi->id == 1360 ? -0.5 : 0; /* the untangling metric with a shift, as untangling runs it */
        snprintf(what, sizeof what, "kershaw 6^3 p 2 m%d", mi->id);
        if (check(what, m, &d, &fail)) {
          printf("error: %s\n", hx_error_message());
          fail = 1;
        }
      }
    if (p == 3) { /* the bench pairing nq = p + 2 (Gauss-Legendre) and a generic pair (GLL nq = 9) */
      hx_pa_desc_default(&d);
      d.quad_type = HX_QUAD_GL;
      d.quad_order = 2 * p + 2;
      snprintf(what, sizeof what, "kershaw 6^3 p 3 GL qo 8");
      if (check(what, m, &d, &fail)) {
        printf("error: %s\n", hx_error_message());
        fail = 1;
      }
      hx_pa_desc_default(&d);
      d.quad_order = 14;
      snprintf(what, sizeof what, "kershaw 6^3 p 3 GLL qo 14");
      if (check(what, m, &d, &fail)) {
        printf("error: %s\n", hx_error_message());
        fail = 1;
      }
    }
    hx_mesh_destroy(&m);
  }
  for (int p = 2; p <= 3 && !fail; p++) { /* the limiting term: x0 off the nodes, so its gradient is not zero */
    hx_mesh *m = test_kershaw(HX_COMM_SELF, 6, 6, 6, p, 0.3);
    if (!m) return 1;
    test_perturb(m, 0.01 / 6 / p);
    size_t n = (size_t)m->num_elem * 3 * m->nd * m->nd * m->nd;
    double *x0 = malloc(n * sizeof(double)), *de = malloc((size_t)m->num_elem * sizeof(double));
    for (size_t i = 0; i < n; i++) x0[i] = m->x[i] + 0.02 / p * test_hash((long long)i, 3);
    for (hx_lid e = 0; e < m->num_elem; e++) de[e] = 0.1 + 0.05 * (e % 7);
    hx_pa_desc d;
    hx_pa_desc_default(&d);
    d.lim_const = 20;
    d.lim_dist = 0.1;
    d.lim_x0 = x0;
    for (int k = 0; k < 3 && !fail; k++) {
      if (k == 1) d.lim_dist_elem = de, d.metric = 318;
      if (k == 2) d.quad_order = 14; /* GLL nq = 9: a generic pair of the metric's kernels */
      snprintf(what, sizeof what, "kershaw 6^3 p %d m%d limit%s", p, d.metric, k == 0 ? "" : k == 1 ? " elem" : " qo 14");
      if (check(what, m, &d, &fail)) {
        printf("error: %s\n", hx_error_message());
        fail = 1;
      }
    }
    free(x0);
    free(de);
    hx_mesh_destroy(&m);
  }
  if (!fail) { /* curved mesh, per-point non-scalar target */
    int p = 3;
    hx_mesh *m = test_kershaw(HX_COMM_SELF, 6, 6, 6, p, 0.3);
    if (!m) return 1;
    size_t npe = (size_t)m->nd * m->nd * m->nd;
    for (hx_lid e = 0; e < m->num_elem; e++) {
      double *X = hx_mesh_elem_x(m, e, 0), *Y = hx_mesh_elem_x(m, e, 1), *Z = hx_mesh_elem_x(m, e, 2);
      for (size_t a = 0; a < npe; a++) {
        double x = X[a], y = Y[a], z = Z[a];
        X[a] += 0.03 * sin(3 * y) * sin(2 * z);
        Y[a] += 0.03 * sin(2 * x + z);
        Z[a] += 0.02 * cos(3 * x) * sin(2 * y);
      }
    }
    hx_pa_desc d;
    hx_pa_desc_default(&d);
    int nq = hx_quad_points_for_order(d.quad_type, d.quad_order);
    size_t nqe = (size_t)m->num_elem * nq * nq * nq;
    double *Wi = malloc(9 * nqe * sizeof(double)), *dW = malloc(nqe * sizeof(double));
    for (size_t g = 0; g < nqe; g++) {
      double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
      for (int i = 0; i < 9; i++) W[i] += 0.1 * test_hash((long long)g, i);
      double det = hx_m3_det(W), C[9];
      hx_m3_cof(W, C);
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Wi[9 * g + 3 * i + j] = C[3 * j + i] / det; /* W^{-1} = C^T / det */
      dW[g] = det;
    }
    d.Winv = Wi;
    d.detW = dW;
    for (int k = 0; k < 2 && !fail; k++) {
      d.metric = k ? 302 : 303;
      snprintf(what, sizeof what, "curved p 3 per-point W m%d", d.metric);
      if (check(what, m, &d, &fail) || variants(what, m, &d, &fail)) {
        printf("error: %s\n", hx_error_message());
        fail = 1;
      }
    }
    /* one W per element (w_per_elem, the layout of target 4): the first num_elem entries */
    d.w_per_elem = 1;
    for (int k = 0; k < 2 && !fail; k++) {
      d.metric = k ? 318 : 303;
      snprintf(what, sizeof what, "curved p 3 per-element W m%d", d.metric);
      if (check(what, m, &d, &fail) || variants(what, m, &d, &fail)) {
        printf("error: %s\n", hx_error_message());
        fail = 1;
      }
    }
    free(Wi);
    free(dW);
    hx_mesh_destroy(&m);
  }
  if (!fail) { /* an odd element count: the column kernels' last block holds elements past the mesh's end */
    hx_mesh *m = test_kershaw(HX_COMM_SELF, 3, 3, 3, 4, 1.0);
    if (!m) return 1;
    test_perturb(m, 0.01 / 3 / 4);
    hx_pa_desc d;
    hx_pa_desc_default(&d);
    for (int k = 0; k < 3 && !fail; k++) {
      d.metric = k == 0 ? 303 : k == 1 ? 318 : 302;
      snprintf(what, sizeof what, "box 3^3 p 4 m%d", d.metric);
      if (check(what, m, &d, &fail) || variants(what, m, &d, &fail)) {
        printf("error: %s\n", hx_error_message());
        fail = 1;
      }
    }
    hx_mesh_destroy(&m);
  }
  return fail;
}
