/* hexpack bench: the benchmark drivers.

   hexpack bench tmop: the Kershaw benchmark run (CEED-MS39 Table 9 setting:
   Kershaw n^3, eps 0.3, metric 303, ideal-shape unit-size target, GLL -qo 8,
   sliding box faces), per order: vector DOFs, iterations, energies, min det J,
   time to solution, and kernel throughput (MDOF/s) for both Hessian strategies.

   hexpack bench kernels: CEED-benchmark-style throughput of the TMOP kernels of one
   backend against problem size (Kershaw n^3 boxes on one rank, eps 0.3, metric 303, GLL
   -qo 8 unless --gl), for each kernel and Hessian strategy, plus (cuda) the measured
   device-to-device copy bandwidth as the memory roofline and the effective bandwidth of
   the stored-Hessian action. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_box.h"
#include "hx_cli.h"
#include "hx_error.h"
#include "hx_kernels.h"
#include "hx_quality.h"
#include "hx_tmop.h"

static const hx_opt bench_tmop_table[] = {
    HX_INT("--n", "N", "24", 6, 10000, 0, "Kershaw N^3 elements (a multiple of 6)"),
    HX_INTS("--orders", "LIST", "1,2,3,4", 1, 8, 1, HX_MAX_ORDER, 0, "polynomial orders"),
    HX_INT("--reps", "R", "3", 1, 1000, 0, "repetitions of each kernel timing"),
    HX_INT("--smooth", "S", "1", 1, 3, 0, "the Kershaw map's smoothness (1: every element trilinear, as the benchmark)"),
    HX_FLAG("--csv", 0, "comma-separated rows"),
    HX_FLAG("--no-solve", 0, "time the kernels only, no solve"),
    HX_INT("--hv-kernel", "K", "0", 0, 999, 0,
           "cuda: the on-the-fly action's kernel: 0 the default (a thread per column of points), 1 a thread per point, 10 x "
           "elements per block + blocks per SM for another column kernel (23, 42, 81, 82), 100 + the same "
           "for the split column kernel (124, 125)"),
    {0},
};

void hx_cmd_bench_tmop_opts(hx_optset *s) {
  hx_opts_init(s, "bench tmop", "bench tmop [--n 24] [--orders 1,2,3,4] [--reps 3] [--csv] [--no-solve] [optimizer flags]",
               "The Kershaw benchmark (CEED-MS39 Table 9): Kershaw n^3, eps 0.3, metric 303, unit-size target, GLL -qo 8,\n"
               "sliding faces. Per order: vector DOFs, Newton/linear iterations, energy and min det J before/after, time to\n"
               "solution, the largest node distance from the uniform mesh (units of h), kernel MDOF/s of energy, gradient,\n"
               "Hessian action and diagonal for the stored (a) and on-the-fly (b) Hessian, the recoveries, the coarse\n"
               "start and the result's validity (the Bernstein bound). The solve starts from the mesh at order p unless\n"
               "--coarse-start on. -v: the per-iteration log.");
  hx_opts_add(s, bench_tmop_table);
  hx_cli_tmop_add(s);
  hx_opts_default(s, "--adapt-quad", "auto");
}

static const hx_opt bench_kernels_table[] = {
    {"--backend", NULL, HX_OPT_CHOICE, NULL, "cuda", 0, 0, 1, 1, "auto|cpu|cuda", 0, "the backend whose kernels are timed", NULL},
    HX_INTS("--orders", "LIST", "1,2,3,4", 1, 8, 1, HX_MAX_ORDER, 0, "polynomial orders"),
    HX_DBL("--max-mdofs", "X", "400", 1e-6, 1e9, 0, "largest problem, million vector DOFs"),
    HX_DBL("--min-time", "S", "0.05", 0, 3600, 0, "seconds each kernel is repeated for at least"),
    HX_FLAG("--gl", 0, "Gauss quadrature of order 2p + 2 (else GLL -qo 8)"),
    HX_FLAG("--csv", 0, "comma-separated rows"),
    HX_INT("--hv-kernel", "K", "0", 0, 999, 0,
           "cuda: the on-the-fly action's kernel in H.v(b): 0 the default (a thread per column of points), 10 x elements per "
           "block + blocks per SM for another column kernel (23, 42, 81, 82), 100 + the same for the "
           "split column kernel (124, 125); H.v(pt) is always the kernel with a thread per point"),
    {0},
};

void hx_cmd_bench_kernels_opts(hx_optset *s) {
  hx_opts_init(s, "bench kernels", "bench kernels [--backend cuda] [--orders 1,2,3,4] [--max-mdofs 400] [options]",
               "Throughput of one backend's TMOP kernels against problem size, on one rank: Kershaw n^3 boxes (eps 0.3,\n"
               "n = 6, 12, .. 96 while the vector DOFs stay below --max-mdofs million), metric 303. One row per (p, n):\n"
               "MDOF/s of energy, gradient, H.v stored (a) and on the fly (b), setup, diagonals, min det J; the stored\n"
               "action's GB/s and its fraction of the copy roofline (cuda; without a device: skipped, exit 0).");
  hx_opts_add(s, bench_kernels_table);
}

/* ------------------------------------------------------------------ bench tmop */

typedef struct kernel_rates {
  double energy, grad, setup_a, hess_a, diag_a, setup_b, hess_b, diag_b; /* MDOF/s */
} kernel_rates;

static int time_kernels(hx_comm comm, hx_mesh *m, const hx_tmop_opts *base, int reps, double vdofs, kernel_rates *kr) {
  for (int s = 0; s < 2; s++) {
    hx_tmop_opts o = *base;
    o.hess_strategy = s == 0 ? HX_HESS_STORED : HX_HESS_ONTHEFLY;
    hx_tmop *tm;
    HX_CALL(hx_tmop_create(m, &o, &tm));
    hx_pa *pa = hx_tmop_pa(tm);
    const hx_backend *be = pa->backend;
    size_t n = hx_pa_evec_size(pa);
    double *x = NULL, *y = NULL, *v = NULL, e;
    int rc = be->vec_alloc(pa, n, &x);
    if (!rc) rc = be->vec_alloc(pa, n, &y);
    if (!rc) rc = be->vec_alloc(pa, n, &v);
    if (!rc) rc = be->vec_upload(pa, m->x, x, n);
    if (!rc) rc = be->vec_upload(pa, m->x, v, n);
    double t[5] = {0};
    /* Backends may run asynchronously (cuda): a blocking 1-double download waits
       for the queued kernels, so each interval times the kernel, not its launch. */
    double probe;
#define HX_BENCH_SYNC() (rc = rc ? rc : be->vec_download(pa, y, &probe, 1))
    for (int r = 0; r <= reps && !rc; r++) { /* r = 0 is a warm-up */
      HX_BENCH_SYNC();
      double t0 = hx_tmop_now_public();
      if (s == 1 || r == 0) rc = rc ? rc : be->energy(pa, x, &e);
      double t1 = hx_tmop_now_public();
      if (s == 1 || r == 0) rc = rc ? rc : be->grad(pa, x, y);
      HX_BENCH_SYNC();
      double t2 = hx_tmop_now_public();
      rc = rc ? rc : be->hess_setup(pa, x);
      HX_BENCH_SYNC();
      double t3 = hx_tmop_now_public();
      rc = rc ? rc : be->hess_apply(pa, v, y);
      HX_BENCH_SYNC();
      double t4 = hx_tmop_now_public();
      rc = rc ? rc : be->diag(pa, y);
      HX_BENCH_SYNC();
      double t5 = hx_tmop_now_public();
      if (r > 0) {
        t[0] += t1 - t0;
        t[1] += t2 - t1;
        t[2] += t3 - t2;
        t[3] += t4 - t3;
        t[4] += t5 - t4;
      }
    }
#undef HX_BENCH_SYNC
    /* one rank's kernels run concurrently with the others': take the slowest */
    if (!rc) rc = hx_comm_max_double(comm, t, 5);
    double mdof = vdofs * 1e-6 * reps;
    if (s == 0) {
      kr->setup_a = mdof / t[2];
      kr->hess_a = mdof / t[3];
      kr->diag_a = mdof / t[4];
    } else {
      kr->energy = mdof / t[0];
      kr->grad = mdof / t[1];
      kr->setup_b = mdof / t[2];
      kr->hess_b = mdof / t[3];
      kr->diag_b = mdof / t[4];
    }
    be->vec_free(pa, &x);
    be->vec_free(pa, &y);
    be->vec_free(pa, &v);
    hx_tmop_destroy(&tm);
    HX_CALL(rc);
  }
  return HX_OK;
}

/* ------------------------------------------------------------------ bench kernels */

static int sync_be(const hx_backend *be) { return be == &hx_backend_cuda ? hx_cuda_sync() : HX_OK; }

/* seconds per call of kernel k (0 energy, 1 grad, 2 hess_setup, 3 hess_apply, 4 diag, 5 min_detj),
   repeated until min_time has passed */
static int time_kernel(const hx_backend *be, hx_pa *pa, int k, double *x, double *v, double *y, double min_time, double *sec) {
  double e;
  int reps = 1;
  for (;;) {
    HX_CALL(sync_be(be));
    double t0 = hx_tmop_now_public();
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
    double t = hx_tmop_now_public() - t0;
    if (t >= min_time || reps >= 1 << 16) {
      *sec = t / reps;
      return HX_OK;
    }
    reps = t > 0 ? (int)fmin(reps * 2.0 * fmax(2.0, min_time / t), 1 << 16) : reps * 4;
  }
}

/* one row of the table: order p, Kershaw n^3 */
static int kernels_row(const hx_backend *be, int p, int n, int gl, double min_time, double roof, int csv, int hv_kernel) {
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
  double sec_store = 0, rate_pt = 0;
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
      if (!rc && s == 1 && k == 3 && be == &hx_backend_cuda) { /* the baseline: a thread per point */
        rc = hx_cuda_hv_kernel(1);
        if (!rc) rc = time_kernel(be, pa, 3, x, v, y, 0, &t);
        if (!rc) rc = time_kernel(be, pa, 3, x, v, y, min_time, &t);
        if (!rc && t > 0) rate_pt = vdofs * 1e-6 / t;
        int rc2 = hx_cuda_hv_kernel(hv_kernel);
        if (!rc) rc = rc2;
      }
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
    fprintf(hx_cli_log(), "%d,%d,%d,%lld,%.0f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%.1f\n", p, nq, n, nel, vdofs,
            rate[1][0], rate[1][1], rate[0][3], rate[1][3], rate[0][2], rate[0][4], rate[1][4], rate[1][5], gbs,
            roof > 0 ? gbs / roof : 0, rate_pt);
  else
    fprintf(hx_cli_log(), "%2d %3d %4d %9lld %11.0f | %9.1f %9.1f | %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f %9.1f | %7.1f %5.2f\n",
            p, nq, n, nel, vdofs, rate[1][0], rate[1][1], rate[0][3], rate[1][3], rate_pt, rate[0][2], rate[0][4], rate[1][4],
            rate[1][5], gbs, roof > 0 ? gbs / roof : 0);
  hx_cli_json_open(NULL);
  hx_cli_json_add("\"p\": %d, \"nq\": %d, \"n\": %d, \"elements\": %lld, \"vdofs\": %.0f, \"energy\": %.1f, \"grad\": %.1f, "
                  "\"hv_stored\": %.1f, \"hv_onthefly\": %.1f, \"setup_stored\": %.1f, \"diag_stored\": %.1f, "
                  "\"diag_onthefly\": %.1f, \"mindetj\": %.1f, \"gbs_stored\": %.1f, \"frac_roof\": %.3f, "
                  "\"hv_onthefly_point\": %.1f",
                  p, nq, n, nel, vdofs, rate[1][0], rate[1][1], rate[0][3], rate[1][3], rate[0][2], rate[0][4], rate[1][4],
                  rate[1][5], gbs, roof > 0 ? gbs / roof : 0, rate_pt);
  hx_cli_json_close();
  fflush(hx_cli_log());
  return HX_OK;
}

static int bench_kernels(hx_comm comm, int argc, char **argv) {
  hx_optset s;
  hx_cmd_bench_kernels_opts(&s);
  HX_CALL(hx_opts_parse(&s, argc, argv, 2));
  if (s.stop) return HX_OK;
  HX_CHECK(s.num_args == 0, HX_ERR_INPUT, "bench kernels takes no file argument, got '%s'", s.args[0]);
  const char *bname = hx_opts_str(&s, "--backend");
  int orders[8], gl = hx_opts_given(&s, "--gl") > 0, csv = hx_opts_given(&s, "--csv") > 0;
  int norders = hx_opts_ints(&s, "--orders", orders, 8);
  double max_mdofs = 400, min_time = 0.05;
  hx_opts_double(&s, "--max-mdofs", &max_mdofs);
  hx_opts_double(&s, "--min-time", &min_time);
  HX_CHECK(hx_comm_size(comm) == 1, HX_ERR_INPUT, "bench kernels runs on one rank, not %d", hx_comm_size(comm));
  int hv_kernel = 0;
  hx_opts_int(&s, "--hv-kernel", &hv_kernel);
  const hx_backend *be;
  HX_CALL(hx_backend_find(bname, &be));
  double roof = 0;
  if (be == &hx_backend_cuda) {
    if (!hx_cuda_device_available()) {
      fprintf(hx_cli_log(), "bench kernels: skipped: no CUDA device\n");
      return HX_OK;
    }
    char info[256];
    HX_CALL(hx_cuda_device_info(info, sizeof info));
    HX_CALL(hx_cuda_copy_bandwidth((size_t)1 << 30, 10, &roof));
    fprintf(hx_cli_log(), "# device: %s\n# device-to-device copy bandwidth (1 GiB, read+write): %.1f GB/s\n", info, roof);
    if (hx_cuda_hv_kernel(hv_kernel)) {
      hx_error_clear();
      return HX_ERROR(HX_ERR_INPUT, "--hv-kernel: %d is not a kernel (0, 23, 42, 81, 82, 124 or 125)", hv_kernel);
    }
  }
  if (csv)
    fprintf(hx_cli_log(),
            "p,nq,n,elements,vdofs,energy,grad,hv_stored,hv_onthefly,setup_stored,diag_stored,diag_onthefly,mindetj,gbs_stored,"
            "frac_roof,hv_onthefly_point\n");
  else
    fprintf(hx_cli_log(),
            "# MDOF/s (vector DOFs per second); a = stored H, b = on-the-fly (pt: its kernel with a thread per point)\n"
            "%2s %3s %4s %9s %11s | %9s %9s | %9s %9s %9s | %9s %9s %9s %9s | %7s %5s\n",
            "p", "Q", "n", "elements", "vDOFs", "energy", "grad", "H.v(a)", "H.v(b)", "H.v(pt)", "setup(a)", "diag(a)", "diag(b)",
            "mindetJ", "GB/s(a)", "roof");
  static const int sizes[] = {6, 12, 18, 24, 30, 36, 48, 60, 72, 96};
  hx_cli_json_array("rows"); /* main closes it where a row fails */
  for (int k = 0; k < norders; k++) {
    int p = orders[k];
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      int n = sizes[s];
      double vd = 3.0 * pow(n * p + 1.0, 3);
      if (vd * 1e-6 > max_mdofs) break;
      /* stored H: 81 nq^3 doubles per element must fit with room to spare */
      if (be == &hx_backend_cuda) {
        size_t fr, tot;
        HX_CALL(hx_cuda_mem_info(&fr, &tot));
        int nq = gl ? p + 2 : hx_quad_points_for_order(HX_QUAD_GLL, 8);
        double need = (double)n * n * n * 8.0 * (81.0 * nq * nq * nq + 4 * 3.0 * (p + 1) * (p + 1) * (p + 1));
        if (need > 0.8 * (double)fr) break;
      }
      HX_CALL(kernels_row(be, p, n, gl, min_time, roof, csv, hv_kernel));
    }
  }
  return HX_OK;
}

static int bench_tmop(hx_comm comm, int argc, char **argv) {
  hx_optset s;
  hx_cmd_bench_tmop_opts(&s);
  HX_CALL(hx_opts_parse(&s, argc, argv, 2));
  if (s.stop) return HX_OK;
  HX_CHECK(s.num_args == 0, HX_ERR_INPUT, "bench tmop takes no file argument, got '%s'", s.args[0]);
  int n = 24, orders[8], reps = 3, csv = hx_opts_given(&s, "--csv") > 0, solve = !hx_opts_given(&s, "--no-solve");
  int quiet = !hx_opts_given(&s, "--verbose"), smooth = 1;
  hx_tmop_opts o;
  hx_tmop_opts_default(&o); /* no coarse start unless asked: the solver at order p, as MFEM's (the
                               Kershaw map of smoothness 1 is trilinear in every element, so the
                               coarse start would solve the order-1 problem and leave nothing to do) */
  HX_CALL(hx_cli_tmop_get(&s, &o, NULL));
  hx_opts_int(&s, "--n", &n);
  HX_CHECK(n % 6 == 0, HX_ERR_INPUT, "flag --n must be a multiple of 6 for the Kershaw map, got %d", n);
  int norders = hx_opts_ints(&s, "--orders", orders, 8);
  hx_opts_int(&s, "--reps", &reps);
  hx_opts_int(&s, "--smooth", &smooth);
  int hv_kernel = 0;
  hx_opts_int(&s, "--hv-kernel", &hv_kernel);
  if (hv_kernel && hx_cuda_hv_kernel(hv_kernel)) {
    hx_error_clear();
    return HX_ERROR(HX_ERR_INPUT, "--hv-kernel: %d is not a kernel of this build (1, 23, 42, 81, 82, 124 or 125 with CUDA)",
                    hv_kernel);
  }
  int rank = hx_comm_rank(comm);
  if (rank == 0) {
    if (csv)
      fprintf(hx_cli_log(),
              "p,vector_dofs,newton_iters,linear_iters,energy0,energy,min_detj0,min_detj,seconds,max_dev_h,stop,"
              "mdofs_energy,mdofs_grad,mdofs_hess_setup_a,mdofs_hess_a,mdofs_diag_a,mdofs_hess_setup_b,mdofs_hess_b,"
              "mdofs_diag_b,recover_relaxed,recover_steepest,recover_krylov,relaxed_iters,coarse_newton,coarse_held,"
              "coarse_seconds,validity,adapt_refined,adapt_events\n");
    else
      fprintf(hx_cli_log(),
              "Kershaw %d^3 eps 0.3 smoothness %d, metric %d, target %s, %s -qo %d, boundary %s, %d rank(s)\n"
              "%2s %10s %6s %6s %11s %10s %10s %10s %8s %9s | MDOF/s: %7s %7s | %8s %8s %8s | %8s %8s %8s | %s | %s | %s | %s\n",
              n, smooth, o.metric, hx_target_name(o.target), o.quad_type == 1 ? "GLL" : "Gauss", o.quad_order,
              o.boundary == HX_BND_SLIDE ? "slide" : "fixed", hx_comm_size(comm), "p", "vDOFs", "newton", "linear", "E0", "E1",
              "minJ0", "minJ1", "time_s", "dev/h", "energy", "grad", "setup(a)", "H.v(a)", "diag(a)", "setup(b)", "H.v(b)",
              "diag(b)", "recover (quad-only/relaxed steps, steepest, Krylov)", "coarse start (newton, held, s)", "result",
              "adaptive quadrature (elements, steps)");
  }
  hx_cli_json_array("rows"); /* main closes it where a row fails */
  for (int k = 0; k < norders; k++) {
    int p = orders[k];
    hx_box_opts bo;
    hx_box_opts_default(&bo);
    bo.n[0] = bo.n[1] = bo.n[2] = n;
    bo.order = p;
    bo.kershaw = 1;
    bo.eps_y = bo.eps_z = 0.3;
    bo.smooth = smooth;
    hx_mesh *m = NULL, *ref = NULL;
    HX_CALL(hx_mesher_box(comm, &bo, &m));
    bo.kershaw = 0;
    int rc = hx_mesher_box(comm, &bo, &ref);
    kernel_rates kr = {0};
    double vdofs = 3.0 * pow(n * p + 1.0, 3);
    if (!rc) rc = time_kernels(comm, m, &o, reps, vdofs, &kr);
    hx_tmop_result r = {0};
    double dev = 0;
    char valid[32] = "-";
    if (!rc && solve) {
      /* the line search's bound kernel launched once before the solve, as the kernels above
         were: CUDA loads a module at its first launch (tens of ms, once per process) */
      const hx_backend *be = NULL;
      if (hx_backend_find(o.backend ? o.backend : "auto", &be) == HX_OK && be == &hx_backend_cuda && m->num_elem > 0)
        (void)hx_detj_bound_first_cuda(p, 1, m->x, NULL, NULL, NULL);
      o.log = (!quiet && rank == 0) ? stderr : NULL;
      rc = hx_tmop_optimize(m, &o, &r);
      if (!rc && rank == 0) /* where the solve's time went (operator calls, incl. E<->L) */
        fprintf(stderr,
                "# p %d solve %.3f s: energy %.3f (%lld) grad %.3f (%lld) hess_setup %.3f (%lld) hess_apply %.3f (%lld) "
                "diag %.3f (%lld) min_detj %.3f (%lld; the bound %.3f in %lld; adaptive quadrature %.3f in %lld, its rebuilds "
                "%.3f in %lld) two-level %.3f (%lld) other %.3f\n",
                p, r.time_total, r.time_energy, r.n_energy, r.time_grad, r.n_grad, r.time_hess_setup, r.n_hess_setup,
                r.time_hess_apply, r.n_hess_apply, r.time_diag, r.n_diag, r.time_mindet, r.n_mindet, r.time_bound, r.n_bound,
                r.time_adapt, r.n_adapt, r.time_rebuild, r.n_rebuild, r.time_precond, r.n_precond,
                r.time_total - r.time_energy - r.time_grad - r.time_hess_setup - r.time_hess_apply - r.time_diag - r.time_mindet -
                    r.time_precond);
      if (!rc) { /* the result's validity, proven by the Bernstein bound of det J (quality's) */
        hx_quality_opts qo;
        hx_quality_opts_default(&qo);
        qo.num_worst = 0;
        qo.validity = 1;
        hx_quality_report q;
        memset(&q, 0, sizeof q);
        const hx_backend *vbe = NULL;
        if (hx_backend_find(o.backend, &vbe) == HX_OK && vbe == &hx_backend_cuda) {
          /* the first pass of the bound on the GPU, the undecided elements subdivided here */
          hx_detj_bound_opts bo_;
          hx_detj_bound_opts_default(&bo_);
          hx_detj_bound_summary bs;
          rc = hx_detj_bound_mesh_cuda(m, &bo_, &bs, NULL);
          if (!rc) snprintf(valid, sizeof valid, "%s", hx_validity_name(bs.verdict));
        } else {
          rc = hx_quality_mesh(m, &qo, NULL, &q);
          if (!rc) snprintf(valid, sizeof valid, "%s", hx_validity_name(q.bound.verdict));
        }
        hx_quality_report_free(&q);
      }
      size_t ne = (size_t)m->num_elem * 3 * m->nd * m->nd * m->nd;
      for (size_t i = 0; !rc && i < ne; i++) dev = fmax(dev, fabs(m->x[i] - ref->x[i]));
      if (!rc) hx_comm_max_double(comm, &dev, 1);
      dev *= n;
    }
    hx_mesh_destroy(&m);
    hx_mesh_destroy(&ref);
    HX_CALL(rc);
    char coarse[64] = "off";
    if (r.coarse_order) snprintf(coarse, sizeof coarse, "%d, %lld, %.3f", r.coarse_newton, r.coarse_held, r.coarse_time);
    hx_cli_json_open(NULL);
    hx_cli_json_add("\"p\": %d, \"vector_dofs\": %.0f, \"newton_iters\": %d, \"linear_iters\": %d, \"energy0\": %.6e, "
                    "\"energy\": %.6e, \"min_detj0\": %.6e, \"min_detj\": %.6e, \"seconds\": %.3f, \"max_dev_h\": %.3e, "
                    "\"stop\": \"%s\", \"mdofs_energy\": %.3f, \"mdofs_grad\": %.3f, \"mdofs_hess_setup_a\": %.3f, "
                    "\"mdofs_hess_a\": %.3f, \"mdofs_diag_a\": %.3f, \"mdofs_hess_setup_b\": %.3f, \"mdofs_hess_b\": %.3f, "
                    "\"mdofs_diag_b\": %.3f, \"recover_relaxed\": %d, \"recover_steepest\": %d, \"recover_krylov\": %d, "
                    "\"relaxed_iters\": %d, \"coarse_newton\": %d, \"coarse_held\": %lld, \"coarse_seconds\": %.3f, "
                    "\"validity\": \"%s\", \"adapt_refined\": %lld, \"adapt_events\": %d",
                    p, vdofs, r.newton_iters, r.linear_iters, r.energy0, r.energy, r.min_detj0, r.min_detj, r.time_total, dev,
                    solve ? r.stop_reason : "not-solved", kr.energy, kr.grad, kr.setup_a, kr.hess_a, kr.diag_a, kr.setup_b,
                    kr.hess_b, kr.diag_b, r.recover_relaxed, r.recover_steepest, r.recover_krylov, r.relaxed_iters,
                    r.coarse_order ? r.coarse_newton : -1, r.coarse_held, r.coarse_time, valid, r.adapt_refined, r.adapt_events);
    hx_cli_json_close();
    if (rank == 0) {
      if (csv)
        fprintf(
            hx_cli_log(),
            "%d,%.0f,%d,%d,%.6e,%.6e,%.6e,%.6e,%.3f,%.3e,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%d,%d,%d,%d,%lld,%.3f,%"
            "s,%lld,%d\n",
            p, vdofs, r.newton_iters, r.linear_iters, r.energy0, r.energy, r.min_detj0, r.min_detj, r.time_total, dev,
            solve ? r.stop_reason : "not-solved", kr.energy, kr.grad, kr.setup_a, kr.hess_a, kr.diag_a, kr.setup_b, kr.hess_b,
            kr.diag_b, r.recover_relaxed, r.recover_steepest, r.recover_krylov, r.relaxed_iters,
            r.coarse_order ? r.coarse_newton : -1, r.coarse_held, r.coarse_time, valid, r.adapt_refined, r.adapt_events);
      else
        fprintf(hx_cli_log(),
                "%2d %10.0f %6d %6d %11.5e %10.3e %10.4e %10.4e %8.2f %9.2e | %15s %7.2f %7.2f | %8.2f %8.2f %8.2f | "
                "%8.2f %8.2f %8.2f | %d/%d, %d, %d | %s | %s | %lld, %d\n",
                p, vdofs, r.newton_iters, r.linear_iters, r.energy0, r.energy, r.min_detj0, r.min_detj, r.time_total, dev, "",
                kr.energy, kr.grad, kr.setup_a, kr.hess_a, kr.diag_a, kr.setup_b, kr.hess_b, kr.diag_b, r.recover_relaxed,
                r.relaxed_iters, r.recover_steepest, r.recover_krylov, coarse, valid, r.adapt_refined, r.adapt_events);
      fflush(hx_cli_log());
    }
  }
  return HX_OK;
}

int hx_cmd_bench(hx_comm comm, int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    printf("usage: hexpack bench tmop|kernels [options]\n       (hexpack bench tmop --help, hexpack bench kernels --help)\n\n"
           "  tmop     the Kershaw benchmark: the optimizer's solve and kernel throughput per order\n"
           "  kernels  one backend's kernels against problem size\n");
    return argc < 2 ? HX_ERROR(HX_ERR_INPUT, "bench needs a benchmark name: hexpack bench tmop|kernels") : HX_OK;
  }
  if (!strcmp(argv[1], "kernels")) return bench_kernels(comm, argc, argv);
  HX_CHECK(!strcmp(argv[1], "tmop"), HX_ERR_INPUT, "unknown benchmark '%s'; known: tmop, kernels", argv[1]);
  return bench_tmop(comm, argc, argv);
}
