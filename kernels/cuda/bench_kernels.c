/* hx_bench_kernels: CEED-benchmark-style throughput of the TMOP kernels of one
   backend against problem size (Kershaw n^3 boxes, eps 0.3, metric 303, GLL -qo 8
   unless --gl), for each kernel and Hessian strategy, plus (cuda) the measured
   device-to-device copy bandwidth as the memory roofline and the effective
   bandwidth of the stored-Hessian action.

   usage: hx_bench_kernels [--backend cuda] [--orders 1,2,3,4] [--max-mdofs 400]
                           [--min-time 0.05] [--gl] [--csv]
   Prints one row per (p, n): vector DOFs, elements, MDOF/s of energy, gradient,
   H.v stored (a), H.v on-the-fly (b), setup (a), diag (a), diag (b); the stored
   action's GB/s and its fraction of the copy roofline. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hx_basis.h"
#include "hx_box.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_kernels.h"
#include "hx_cuda.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int sync_be(const hx_backend *be) { return be == &hx_backend_cuda ? hx_cuda_sync() : HX_OK; }

/* seconds per call of kernel k (0 energy, 1 grad, 2 hess_setup, 3 hess_apply, 4 diag, 5 min_detj) */
static int time_kernel(const hx_backend *be, hx_pa *pa, int k, double *x, double *v, double *y, double min_time, double *sec) {
  double e;
  int reps = 1;
  for (;;) {
    HX_CALL(sync_be(be));
    double t0 = now();
    for (int r = 0; r < reps; r++) {
      switch (k) {
      case 0: HX_CALL(be->energy(pa, x, &e)); break;
      case 1: HX_CALL(be->grad(pa, x, y)); break;
      case 2: HX_CALL(be->hess_setup(pa, x)); break;
      case 3: HX_CALL(be->hess_apply(pa, v, y)); break;
      case 4: HX_CALL(be->diag(pa, y)); break;
      default: HX_CALL(be->min_detj(pa, x, &e)); break;
      }
    }
    HX_CALL(sync_be(be));
    double t = now() - t0;
    if (t >= min_time || reps >= 1 << 16) {
      *sec = t / reps;
      return HX_OK;
    }
    reps = t > 0 ? (int)fmin(reps * 2.0 * fmax(2.0, min_time / t), 1 << 16) : reps * 4;
  }
}

static int run(const hx_backend *be, int p, int n, int gl, double min_time, double roof, int csv) {
  hx_box_opts bo;
  hx_box_opts_default(&bo);
  bo.n[0] = bo.n[1] = bo.n[2] = n;
  bo.order = p;
  bo.kershaw = 1;
  bo.eps_y = bo.eps_z = 0.3;
  hx_mesh *m = NULL;
  HX_CALL(hx_mesher_box(HX_COMM_SELF, &bo, &m));
  double vdofs = 3.0 * pow(n * p + 1.0, 3);
  double rate[2][6] = {{0}};
  double sec_store = 0;
  int rc = HX_OK, nq = 0;
  for (int s = 0; s < 2 && !rc; s++) {
    hx_pa_desc d;
    hx_pa_desc_default(&d);
    d.hess_strategy = s == 0 ? HX_HESS_STORED : HX_HESS_ONTHEFLY;
    if (gl) {
      d.quad_type = HX_QUAD_GL;
      d.quad_order = 2 * p + 2;
    }
    hx_pa *pa = NULL;
    rc = hx_pa_create(be, m, &d, &pa);
    if (rc) break;
    nq = pa->nq;
    size_t ne = hx_pa_evec_size(pa);
    double *x = NULL, *v = NULL, *y = NULL;
    rc = be->vec_alloc(pa, ne, &x);
    if (!rc) rc = be->vec_alloc(pa, ne, &v);
    if (!rc) rc = be->vec_alloc(pa, ne, &y);
    if (!rc) rc = be->vec_upload(pa, m->x, x, ne);
    if (!rc) rc = be->vec_upload(pa, m->x, v, ne);
    for (int k = 0; k < 6 && !rc; k++) {
      double t = 0;
      if (k == 2 || k == 3 || k == 4 || s == 1) rc = time_kernel(be, pa, k == 3 || k == 4 ? 2 : k, x, v, y, 0, &t);
      if (!rc && (k == 2 || k == 3 || k == 4 || s == 1)) rc = time_kernel(be, pa, k, x, v, y, min_time, &t);
      if (!rc && t > 0) rate[s][k] = vdofs * 1e-6 / t;
      if (s == 0 && k == 3) sec_store = t;
    }
    be->vec_free(pa, &x);
    be->vec_free(pa, &v);
    be->vec_free(pa, &y);
    hx_pa_destroy(&pa);
  }
  long long nel = (long long)m->num_elem;
  hx_mesh_destroy(&m);
  if (rc) return rc;
  int nd = p + 1;
  double bytes = (double)nel * 8.0 * (81.0 * nq * nq * nq + 2.0 * 3 * nd * nd * nd);
  double gbs = sec_store > 0 ? bytes / sec_store * 1e-9 : 0;
  if (csv)
    printf("%d,%d,%d,%lld,%.0f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f\n", p, nq, n, nel, vdofs, rate[1][0], rate[1][1],
           rate[0][3], rate[1][3], rate[0][2], rate[0][4], rate[1][4], rate[1][5], gbs, roof > 0 ? gbs / roof : 0);
  else
    printf("%2d %3d %4d %9lld %11.0f | %9.1f %9.1f | %9.1f %9.1f | %9.1f %9.1f %9.1f %9.1f | %7.1f %5.2f\n", p, nq, n, nel, vdofs,
           rate[1][0], rate[1][1], rate[0][3], rate[1][3], rate[0][2], rate[0][4], rate[1][4], rate[1][5], gbs,
           roof > 0 ? gbs / roof : 0);
  fflush(stdout);
  return HX_OK;
}

static int body(int argc, char **argv);
int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#endif
  int rc = body(argc, argv);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return rc;
}

static int body(int argc, char **argv) {
  const char *bname = "cuda";
  int orders[8] = {1, 2, 3, 4}, norders = 4, gl = 0, csv = 0;
  double max_mdofs = 400, min_time = 0.05;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--backend") && i + 1 < argc) bname = argv[++i];
    else if (!strcmp(argv[i], "--orders") && i + 1 < argc) {
      norders = 0;
      for (char *t = strtok(argv[++i], ","); t && norders < 8; t = strtok(NULL, ",")) orders[norders++] = atoi(t);
    } else if (!strcmp(argv[i], "--max-mdofs") && i + 1 < argc) max_mdofs = atof(argv[++i]);
    else if (!strcmp(argv[i], "--min-time") && i + 1 < argc) min_time = atof(argv[++i]);
    else if (!strcmp(argv[i], "--gl")) gl = 1;
    else if (!strcmp(argv[i], "--csv")) csv = 1;
    else {
      fprintf(stderr, "hx_bench_kernels: unknown flag '%s'\n", argv[i]);
      return 2;
    }
  }
  const hx_backend *be;
  if (hx_backend_find(bname, &be)) {
    fprintf(stderr, "hx_bench_kernels: %s\n", hx_error_message());
    return 2;
  }
  double roof = 0;
  if (be == &hx_backend_cuda) {
    if (!hx_cuda_device_available()) {
      printf("hx_bench_kernels: skipped: no CUDA device\n");
      return 0;
    }
    char info[256];
    if (hx_cuda_device_info(info, sizeof info) || hx_cuda_copy_bandwidth((size_t)1 << 30, 10, &roof)) {
      fprintf(stderr, "hx_bench_kernels: %s\n", hx_error_message());
      return 1;
    }
    printf("# device: %s\n# device-to-device copy bandwidth (1 GiB, read+write): %.1f GB/s\n", info, roof);
  }
  if (csv)
    printf("p,nq,n,elements,vdofs,energy,grad,hv_stored,hv_onthefly,setup_stored,diag_stored,diag_onthefly,mindetj,gbs_stored,"
           "frac_roof\n");
  else
    printf("# MDOF/s (vector DOFs per second); a = stored H, b = on-the-fly\n"
           "%2s %3s %4s %9s %11s | %9s %9s | %9s %9s | %9s %9s %9s %9s | %7s %5s\n",
           "p", "Q", "n", "elements", "vDOFs", "energy", "grad", "H.v(a)", "H.v(b)", "setup(a)", "diag(a)", "diag(b)", "mindetJ",
           "GB/s(a)", "roof");
  static const int sizes[] = {6, 12, 18, 24, 30, 36, 48, 60, 72, 96};
  for (int k = 0; k < norders; k++) {
    int p = orders[k];
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      int n = sizes[s];
      double vd = 3.0 * pow(n * p + 1.0, 3);
      if (vd * 1e-6 > max_mdofs) break;
      /* stored H: 81 nq^3 doubles per element must fit with room to spare */
      if (be == &hx_backend_cuda) {
        size_t fr, tot;
        if (hx_cuda_mem_info(&fr, &tot)) return 1;
        int nq = gl ? p + 2 : hx_quad_points_for_order(HX_QUAD_GLL, 8);
        double need = (double)n * n * n * 8.0 * (81.0 * nq * nq * nq + 4 * 3.0 * (p + 1) * (p + 1) * (p + 1));
        if (need > 0.8 * (double)fr) break;
      }
      if (run(be, p, n, gl, min_time, roof, csv)) {
        fprintf(stderr, "hx_bench_kernels: %s\n", hx_error_message());
        return 1;
      }
    }
  }
  return 0;
}
