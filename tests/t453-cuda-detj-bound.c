/* t453: the GPU's first pass of the proven validity bound (hx_detj_bound_first_cuda)
   against the CPU (hx_detj_bound_bernstein, hx_detj_bound_elem), per element: the first
   bound lower0 and the smallest corner value to 1e-12 relative (to the larger of the CPU
   value and the element's coefficient scale), and the verdicts: a verdict the GPU decides
   equals the CPU's, and the GPU pass with host subdivision of the undecided ones
   (hx_detj_bound_mesh_cuda) gives the CPU's summary. Elements: curved Kershaw boxes 6^3
   (eps 0.3, a smooth sine displacement) at p = 1..4; sectors of a spherical shell at p = 3, 4
   (some proven only after subdivision); elements at p = 3, 4 that fold only between their
   GLL nodes (t020's construction). Then the time of both on a Kershaw box 24^3 per order
   (elements per second: CPU one thread, GPU with the transfers). Without a CUDA device (or
   a build without CUDA) it prints one skip line and passes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_detj_bound.h"
#include "hx_kernels.h"
#include "hx_test_tmop.h"

static int fail = 0;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* compare the GPU pass with the CPU on ne elements of order p in xE */
static int compare(const char *what, int p, hx_lid ne, const double *xE) {
  int nd = p + 1, npe = nd * nd * nd;
  hx_detj_bound_opts o;
  hx_detj_bound_opts_default(&o);
  hx_detj_bound_ctx *bc;
  HX_CALL(hx_detj_bound_ctx_create(p, &o, &bc));
  int n = hx_detj_bound_ctx_size(bc), n3 = n * n * n;
  double *lo = malloc(ne * sizeof(double)), *cm = malloc(ne * sizeof(double)), *coef = malloc(n3 * sizeof(double));
  int *vd = malloc(ne * sizeof(int));
  /* the generic kernel first (the baseline), its results checked as the default's below */
  double *glo = malloc(ne * sizeof(double)), *gcm = malloc(ne * sizeof(double));
  int *gvd = malloc(ne * sizeof(int));
  hx_detj_bound_cuda_generic(1);
  int rc = hx_detj_bound_first_cuda(p, ne, xE, glo, gcm, gvd);
  hx_detj_bound_cuda_generic(0);
  if (!rc) rc = hx_detj_bound_first_cuda(p, ne, xE, lo, cm, vd);
  double err_lo = 0, err_cm = 0, gerr = 0;
  int count[4] = {0, 0, 0, 0}, gpu_decided = 0, mismatch = 0;
  for (hx_lid e = 0; !rc && e < ne; e++) {
    const double *x = xE + (size_t)e * 3 * npe;
    hx_detj_bound_result r;
    hx_detj_bound_elem(bc, x, &r);
    hx_detj_bound_bernstein(bc, x, coef);
    double cmin = INFINITY;
    for (int q = 0; q < 8; q++)
      cmin = fmin(cmin, coef[(q & 1 ? n - 1 : 0) + n * ((q & 2 ? n - 1 : 0) + n * (q & 4 ? n - 1 : 0))]);
    double s = r.scale > 0 ? r.scale : 1;
    err_lo = fmax(err_lo, fabs(lo[e] - r.lower0) / fmax(fabs(r.lower0), s));
    err_cm = fmax(err_cm, fabs(cm[e] - cmin) / fmax(fabs(cmin), s));
    gerr = fmax(gerr, fmax(fabs(glo[e] - r.lower0) / fmax(fabs(r.lower0), s), fabs(gcm[e] - cmin) / fmax(fabs(cmin), s)));
    if (isnan(lo[e]) || isnan(cm[e]) || isnan(glo[e]) || isnan(gcm[e])) err_lo = NAN;
    count[r.verdict]++;
    if (vd[e]) {
      gpu_decided++;
      if (vd[e] != r.verdict) mismatch++;
    }
    if (gvd[e] && gvd[e] != r.verdict) mismatch++;
  }
  if (!rc) {
    int ok = err_lo <= 1e-12 && err_cm <= 1e-12 && gerr <= 1e-12 && !mismatch;
    printf("%-26s p %d: %5d elements (proven %d, not proven %d, invalid %d), decided on the GPU %d, "
           "rel. err lower0 %.1e corner %.1e (generic kernel %.1e), verdicts %s\n",
           what, p, (int)ne, count[1], count[2], count[3], gpu_decided, err_lo, err_cm, gerr, mismatch ? "DIFFER" : "equal");
    if (!ok) fail = 1;
  }
  hx_detj_bound_ctx_destroy(&bc);
  free(lo);
  free(cm);
  free(coef);
  free(vd);
  free(glo);
  free(gcm);
  free(gvd);
  return rc;
}

/* the CPU summary (hx_detj_bound_elem per element) against hx_detj_bound_mesh_cuda */
static int compare_mesh(const char *what, hx_mesh *m) {
  hx_detj_bound_opts o;
  hx_detj_bound_opts_default(&o);
  hx_detj_bound_ctx *bc;
  HX_CALL(hx_detj_bound_ctx_create(m->order, &o, &bc));
  long long cnt[4] = {0, 0, 0, 0};
  size_t stride = 3 * (size_t)m->nd * m->nd * m->nd;
  double t0 = now();
  for (hx_lid e = 0; e < m->num_elem; e++) {
    hx_detj_bound_result r;
    hx_detj_bound_elem(bc, m->x + (size_t)e * stride, &r);
    cnt[r.verdict]++;
  }
  double tc = now() - t0;
  hx_detj_bound_ctx_destroy(&bc);
  hx_detj_bound_summary s;
  hx_lid nh = 0;
  /* the first pass on device-resident nodes (as the solver's line search runs it), the generic
     kernel and the default one, alternating, the best of 3 each */
  double tdev[2] = {INFINITY, INFINITY};
  HX_CALL(hx_detj_bound_first_cuda(m->order, 1, m->x, NULL, NULL, NULL)); /* warm the device up */
  for (int rep = 0; rep < 3; rep++)
    for (int g = 1; g >= 0; g--) {
      double ms;
      hx_detj_bound_cuda_generic(g);
      HX_CALL(hx_detj_bound_cuda_time(m->order, m->num_elem, m->x, 3, &ms));
      tdev[g] = fmin(tdev[g], 1e-3 * ms);
    }
  hx_detj_bound_cuda_generic(0);
  t0 = now();
  HX_CALL(hx_detj_bound_first_cuda(m->order, m->num_elem, m->x, NULL, NULL, NULL));
  double tg = now() - t0;
  t0 = now();
  HX_CALL(hx_detj_bound_mesh_cuda(m, &o, &s, &nh));
  double th = now() - t0;
  int ok = s.num_proven == cnt[1] && s.num_not_proven == cnt[2] && s.num_invalid == cnt[3];
  printf("%-26s p %d: %6d elements: cpu %lld/%lld/%lld, gpu+host %lld/%lld/%lld (proven/not/invalid, %d on the host) %s\n", what,
         m->order, (int)m->num_elem, cnt[1], cnt[2], cnt[3], (long long)s.num_proven, (long long)s.num_not_proven,
         (long long)s.num_invalid, (int)nh, ok ? "equal" : "DIFFER");
  printf("timing p %d: cpu (1 thread) %.3e elem/s, gpu first pass %.3e elem/s, gpu pass + host subdivision %.3e elem/s\n",
         m->order, m->num_elem / tc, m->num_elem / tg, m->num_elem / th);
  printf("timing p %d: first pass on device nodes: generic kernel %.3f ms, default %.3f ms (%.2fx)\n", m->order, 1e3 * tdev[1],
         1e3 * tdev[0], tdev[1] / tdev[0]);
  if (!ok) fail = 1;
  return HX_OK;
}

typedef void (*map_fn)(const double xi[3], double X[3], const double *par);

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

/* t020's (d): the cube-sphere patch at radius r1 + (r2 - r1) xi3; par r1, r2, a */
static void shell(const double xi[3], double X[3], const double *par) {
  double u[3] = {par[2] * (2 * xi[0] - 1), par[2] * (2 * xi[1] - 1), 1}, len = sqrt(u[0] * u[0] + u[1] * u[1] + 1);
  double r = par[0] + (par[1] - par[0]) * xi[2];
  for (int c = 0; c < 3; c++) X[c] = r * u[c] / len;
}

/* t020's (b): x1 folds back on (0.55, 0.6), par[0] scales the bend */
static void folded(const double xi[3], double X[3], const double *par) {
  double t = xi[0], x1 = (t * t * t / 3 - 1.15 * t * t / 2 + 0.33 * t) / (1.0 / 3 - 1.15 / 2 + 0.33);
  double u[3] = {x1, xi[1] + par[0] * xi[0] * xi[2], xi[2] + 0.02 * xi[0] * xi[1]};
  static const double A[3][3] = {{1.0, 0.2, 0.1}, {-0.1, 0.9, 0.2}, {0.05, -0.1, 1.1}};
  for (int r = 0; r < 3; r++) X[r] = A[r][0] * u[0] + A[r][1] * u[1] + A[r][2] * u[2];
}

static int body(void) {
  /* curved Kershaw boxes */
  for (int p = 1; p <= 4; p++) {
    hx_mesh *m = test_kershaw(HX_COMM_SELF, 6, 6, 6, p, 0.3);
    if (!m) return 1;
    test_curve(m, 0.03);
    HX_CALL(compare("kershaw 6^3 curved", p, m->num_elem, m->x));
    HX_CALL(compare_mesh("kershaw 6^3 curved", m));
    hx_mesh_destroy(&m);
  }
  /* shell sectors and folded elements at p = 3, 4 */
  for (int p = 3; p <= 4; p++) {
    int nd = p + 1, npe = nd * nd * nd, ns = 40, nf = 8;
    double *x = malloc((size_t)(ns > nf ? ns : nf) * 3 * npe * sizeof(double));
    for (int e = 0; e < ns; e++) { /* thickness 0.2 .. 0.6, tan of the half angle 0.3 .. 1.65 */
      double par[3] = {1.0, 1.2 + 0.4 * (e % 5) / 4.0, 0.3 + 1.35 * (e / 5) / 7.0};
      fill(p, shell, par, x + (size_t)e * 3 * npe);
    }
    HX_CALL(compare("shell sectors", p, ns, x));
    for (int e = 0; e < nf; e++) {
      double par[1] = {0.01 * e};
      fill(p, folded, par, x + (size_t)e * 3 * npe);
    }
    HX_CALL(compare("folded between nodes", p, nf, x));
    free(x);
  }
  /* timing */
  for (int p = 1; p <= 4; p++) {
    hx_mesh *m = test_kershaw(HX_COMM_SELF, 24, 24, 24, p, 0.3);
    if (!m) return 1;
    test_curve(m, 0.01);
    HX_CALL(compare_mesh("kershaw 24^3 curved", m));
    hx_mesh_destroy(&m);
  }
  printf(fail ? "t453: FAIL\n" : "t453: ok\n");
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
    printf("t453: skipped: %s\n", hx_backend_cuda.available ? "no CUDA device" : "CUDA backend not in this build");
  } else {
    rc = body();
    if (rc && rc != 1) printf("error: %s\n", hx_error_message());
  }
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return rc ? 1 : 0;
}
