/* hexpack bench tmop: the Kershaw benchmark run (CEED-MS39 Table 9 setting:
   Kershaw n^3, eps 0.3, metric 303, ideal-shape unit-size target, GLL -qo 8,
   sliding box faces), per order: vector DOFs, iterations, energies, min det J,
   time to solution, and kernel throughput (MDOF/s) for both Hessian strategies. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_box.h"
#include "hx_cli.h"
#include "hx_error.h"
#include "hx_kernels.h"
#include "hx_tmop.h"

static void bench_help(void) {
  printf("usage: hexpack bench tmop [--n 24] [--orders 1,2,3,4] [--reps 3] [--csv] [--no-solve]\n"
         "                          [--backend B] [--threads N] [--newton-iters 100] [--linear-iters 40] ...\n\n"
         "  Kershaw n^3 (eps 0.3), metric 303, unit-size target, GLL -qo 8, sliding faces.\n"
         "  Prints per order: vector DOFs, Newton/linear iterations, energy and min det J\n"
         "  before/after, time to solution, the largest node distance from the uniform mesh\n"
         "  (in units of h), and kernel MDOF/s (vector DOFs per second) of energy, gradient,\n"
         "  Hessian action and diagonal for the stored-H (a) and on-the-fly (b) strategies.\n\n");
  hx_cli_tmop_help();
}

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

int hx_cmd_bench(hx_comm comm, int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    bench_help();
    return argc < 2 ? HX_ERROR(HX_ERR_INPUT, "bench needs a benchmark name: hexpack bench tmop") : HX_OK;
  }
  HX_CHECK(!strcmp(argv[1], "tmop"), HX_ERR_INPUT, "unknown benchmark '%s'; known: tmop", argv[1]);
  int n = 24, orders[8] = {1, 2, 3, 4}, norders = 4, reps = 3, csv = 0, solve = 1, quiet = 1;
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      bench_help();
      return HX_OK;
    }
    int r = hx_cli_tmop_flag(argc, argv, &i, &o, &quiet);
    if (r < 0) return -r;
    if (r > 0) continue;
    if (!strcmp(a, "--n")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int("--n", v, 6, 10000, &n));
      HX_CHECK(n % 6 == 0, HX_ERR_INPUT, "flag --n must be a multiple of 6 for the Kershaw map, got %d", n);
    } else if (!strcmp(a, "--orders")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int_list("--orders", v, 8, 1, HX_MAX_ORDER, orders, &norders));
    } else if (!strcmp(a, "--reps")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int("--reps", v, 1, 1000, &reps));
    } else if (!strcmp(a, "--csv")) {
      csv = 1;
    } else if (!strcmp(a, "--no-solve")) {
      solve = 0;
    } else if (!strcmp(a, "-v")) {
      quiet = 0;
    } else {
      return hx_cli_unknown_flag("bench tmop", a);
    }
  }
  int rank = hx_comm_rank(comm);
  if (rank == 0) {
    if (csv)
      printf("p,vector_dofs,newton_iters,linear_iters,energy0,energy,min_detj0,min_detj,seconds,max_dev_h,stop,"
             "mdofs_energy,mdofs_grad,mdofs_hess_setup_a,mdofs_hess_a,mdofs_diag_a,mdofs_hess_setup_b,mdofs_hess_b,"
             "mdofs_diag_b\n");
    else
      printf("Kershaw %d^3 eps 0.3, metric %d, target %s, %s -qo %d, boundary %s, %d rank(s)\n"
             "%2s %10s %6s %6s %11s %10s %10s %10s %8s %9s | MDOF/s: %7s %7s | %8s %8s %8s | %8s %8s %8s\n",
             n, o.metric, hx_target_name(o.target), o.quad_type == 1 ? "GLL" : "Gauss", o.quad_order,
             o.boundary == HX_BND_SLIDE ? "slide" : "fixed", hx_comm_size(comm), "p", "vDOFs", "newton", "linear", "E0", "E1",
             "minJ0", "minJ1", "time_s", "dev/h", "energy", "grad", "setup(a)", "H.v(a)", "diag(a)", "setup(b)", "H.v(b)",
             "diag(b)");
  }
  for (int k = 0; k < norders; k++) {
    int p = orders[k];
    hx_box_opts bo;
    hx_box_opts_default(&bo);
    bo.n[0] = bo.n[1] = bo.n[2] = n;
    bo.order = p;
    bo.kershaw = 1;
    bo.eps_y = bo.eps_z = 0.3;
    hx_mesh *m = NULL, *ref = NULL;
    HX_CALL(hx_mesher_box(comm, &bo, &m));
    bo.kershaw = 0;
    int rc = hx_mesher_box(comm, &bo, &ref);
    kernel_rates kr = {0};
    double vdofs = 3.0 * pow(n * p + 1.0, 3);
    if (!rc) rc = time_kernels(comm, m, &o, reps, vdofs, &kr);
    hx_tmop_result r = {0};
    double dev = 0;
    if (!rc && solve) {
      o.log = (!quiet && rank == 0) ? stderr : NULL;
      rc = hx_tmop_optimize(m, &o, &r);
      if (!rc && rank == 0) /* where the solve's time went (operator calls, incl. E<->L) */
        fprintf(stderr,
                "# p %d solve %.3f s: energy %.3f (%lld) grad %.3f (%lld) hess_setup %.3f (%lld) hess_apply %.3f (%lld) "
                "diag %.3f (%lld) min_detj %.3f (%lld) other %.3f\n",
                p, r.time_total, r.time_energy, r.n_energy, r.time_grad, r.n_grad, r.time_hess_setup, r.n_hess_setup,
                r.time_hess_apply, r.n_hess_apply, r.time_diag, r.n_diag, r.time_mindet, r.n_mindet,
                r.time_total - r.time_energy - r.time_grad - r.time_hess_setup - r.time_hess_apply - r.time_diag - r.time_mindet);
      size_t ne = (size_t)m->num_elem * 3 * m->nd * m->nd * m->nd;
      for (size_t i = 0; !rc && i < ne; i++) dev = fmax(dev, fabs(m->x[i] - ref->x[i]));
      if (!rc) hx_comm_max_double(comm, &dev, 1);
      dev *= n;
    }
    hx_mesh_destroy(&m);
    hx_mesh_destroy(&ref);
    HX_CALL(rc);
    if (rank == 0) {
      if (csv)
        printf("%d,%.0f,%d,%d,%.6e,%.6e,%.6e,%.6e,%.3f,%.3e,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", p, vdofs,
               r.newton_iters, r.linear_iters, r.energy0, r.energy, r.min_detj0, r.min_detj, r.time_total, dev,
               solve ? r.stop_reason : "not-solved", kr.energy, kr.grad, kr.setup_a, kr.hess_a, kr.diag_a, kr.setup_b, kr.hess_b,
               kr.diag_b);
      else
        printf("%2d %10.0f %6d %6d %11.5e %10.3e %10.4e %10.4e %8.2f %9.2e | %15s %7.2f %7.2f | %8.2f %8.2f %8.2f | "
               "%8.2f %8.2f %8.2f\n",
               p, vdofs, r.newton_iters, r.linear_iters, r.energy0, r.energy, r.min_detj0, r.min_detj, r.time_total, dev, "",
               kr.energy, kr.grad, kr.setup_a, kr.hess_a, kr.diag_a, kr.setup_b, kr.hess_b, kr.diag_b);
      fflush(stdout);
    }
  }
  return HX_OK;
}
