/* t401: the assembled TMOP operators on a randomly perturbed Kershaw mesh,
   orders 1..4: gradient against central differences of the energy, Hessian action
   against central differences of the gradient, Jacobi diagonal against e_i.H e_i;
   the stored-H and on-the-fly strategies, and 1 vs 2 OpenMP threads, agree to
   1e-12 relative on energy, gradient, H v, diagonal and min det J. Every metric is
   checked at p = 2. Runs on 1, 2 and 4 ranks. */
#include <stdlib.h>
#include <string.h>

#include "hx_metrics.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

/* max that propagates NaN (fmax drops it), so a NaN error can never pass */
static double nmax(double a, double b) { return (a != a || b != b) ? NAN : (a > b ? a : b); }

static double rel(const hx_tmop *tm, const double *a, const double *b, size_t n, double *tmp) {
  for (size_t i = 0; i < n; i++) tmp[i] = a[i] - b[i];
  double d = sqrt(hx_tmop_dot(tm, tmp, tmp)), s = sqrt(hx_tmop_dot(tm, a, a));
  return d / (s > 0 ? s : 1);
}

typedef struct state {
  double e, md;
  double *g, *hv, *dg;
} state;

static int eval(hx_tmop *tm, const double *x, const double *v, state *s) {
  size_t n = hx_tmop_size(tm);
  s->g = calloc(n, sizeof(double));
  s->hv = calloc(n, sizeof(double));
  s->dg = calloc(n, sizeof(double));
  HX_CALL(hx_tmop_energy(tm, x, &s->e));
  HX_CALL(hx_tmop_min_detj(tm, x, &s->md));
  HX_CALL(hx_tmop_grad_raw(tm, x, s->g));
  HX_CALL(hx_tmop_hess_setup(tm, x));
  HX_CALL(hx_tmop_hess_apply(tm, v, s->hv, 1));
  HX_CALL(hx_tmop_diag(tm, s->dg));
  return HX_OK;
}
static void state_free(state *s) {
  free(s->g);
  free(s->hv);
  free(s->dg);
}

static int check(hx_comm comm, int metric, int p, int full, int *fail) {
  int rank = hx_comm_rank(comm);
  hx_mesh *m = test_kershaw(comm, 6, 4, 4, p, 0.3);
  if (!m) return 1;
  test_perturb(m, 0.03 / 4 / p);
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.metric = metric;
  o.backend = "cpu";
  o.num_threads = 2;
  if (metric == 315 || metric == 318) o.target = HX_TARGET_IDEAL_SHAPE_EQUAL_SIZE;
  if (metric == 332 || metric == 338) o.target = HX_TARGET_IDEAL_SHAPE_GIVEN_SIZE;
  hx_tmop *tm;
  HX_CALL(hx_tmop_create(m, &o, &tm));
  size_t n = hx_tmop_size(tm);
  const double *x0 = hx_tmop_x0(tm);
  double *v = calloc(n, sizeof(double)), *xp = calloc(n, sizeof(double)), *xm = calloc(n, sizeof(double)),
         *tmp = calloc(n, sizeof(double)), *gp = calloc(n, sizeof(double)), *gm = calloc(n, sizeof(double));
  /* a direction keyed by the node: every rank agrees on shared nodes */
  hx_lmap *map;
  HX_CALL(hx_mesh_lnumbering(m, &map));
  for (hx_lid i = 0; i < map->num_lnodes; i++)
    for (int c = 0; c < 3; c++) v[3 * i + c] = test_hash(map->l2g[i] + 77, c) / (p * p);
  state s;
  HX_CALL(eval(tm, x0, v, &s));
  /* FD of energy and gradient (4th-order central differences) */
  double h = 1e-4, Ep[2], Em[2];
  double *gp2 = calloc(n, sizeof(double)), *gm2 = calloc(n, sizeof(double));
  for (int k = 0; k < 2; k++) {
    double hh = h * (k + 1);
    for (size_t i = 0; i < n; i++) {
      xp[i] = x0[i] + hh * v[i];
      xm[i] = x0[i] - hh * v[i];
    }
    HX_CALL(hx_tmop_energy(tm, xp, &Ep[k]));
    HX_CALL(hx_tmop_energy(tm, xm, &Em[k]));
    HX_CALL(hx_tmop_grad_raw(tm, xp, k ? gp2 : gp));
    HX_CALL(hx_tmop_grad_raw(tm, xm, k ? gm2 : gm));
  }
  double dE = (8 * (Ep[0] - Em[0]) - (Ep[1] - Em[1])) / (12 * h), gv = hx_tmop_dot(tm, s.g, v);
  double err_g = fabs(dE - gv) / fabs(gv);
  for (size_t i = 0; i < n; i++) tmp[i] = (8 * (gp[i] - gm[i]) - (gp2[i] - gm2[i])) / (12 * h);
  double err_h = rel(tm, s.hv, tmp, n, xp);
  /* diagonal: e_i . H e_i at a few nodes (global ids spread over the mesh) */
  double err_d = 0;
  for (int t = 0; t < 4; t++) {
    hx_gid want = (hx_gid)(t * 32 + 13); /* the same node on every rank that holds it */
    int c = t % 3;
    memset(xp, 0, n * sizeof(double));
    hx_lid li = -1;
    for (hx_lid i = 0; i < map->num_lnodes; i++)
      if (map->l2g[i] == want) li = i;
    if (li >= 0) xp[3 * li + c] = 1.0;
    HX_CALL(hx_tmop_hess_apply(tm, xp, xm, 1));
    if (li >= 0 && getenv("DBG"))
      fprintf(stderr, "rank %d id %lld c %d Hii %.6e diag %.6e\n", rank, (long long)want, c, xm[3 * li + c], s.dg[3 * li + c]);
    if (li >= 0) err_d = nmax(err_d, fabs(xm[3 * li + c] - s.dg[3 * li + c]) / fmax(fabs(s.dg[3 * li + c]), 1e-300));
  }
  hx_comm_max_double(comm, &err_d, 1);
  int ok = err_g < 1e-6 && err_h < 1e-6 && err_d < 1e-10;
  /* strategies and threads */
  double err_s = 0, err_t = 0;
  if (full) {
    for (int variant = 0; variant < 2; variant++) {
      hx_tmop_opts o2 = o;
      if (variant == 0) o2.hess_strategy = HX_HESS_STORED;
      else o2.num_threads = 1;
      hx_tmop *tm2;
      HX_CALL(hx_tmop_create(m, &o2, &tm2));
      state s2;
      HX_CALL(eval(tm2, x0, v, &s2));
      double e = nmax(fabs(s2.e - s.e) / fabs(s.e), fabs(s2.md - s.md) / fabs(s.md));
      e = nmax(e, rel(tm, s.g, s2.g, n, tmp));
      e = nmax(e, rel(tm, s.hv, s2.hv, n, tmp));
      e = nmax(e, rel(tm, s.dg, s2.dg, n, tmp));
      if (variant == 0) err_s = e;
      else err_t = e;
      state_free(&s2);
      hx_tmop_destroy(&tm2);
    }
    ok = ok && err_s < 1e-12 && err_t < 1e-12;
  }
  if (rank == 0) {
    printf("metric %d p %d fd-grad %s fd-hess %s diag %s", metric, p, err_g < 1e-6 ? "ok" : "BAD", err_h < 1e-6 ? "ok" : "BAD",
           err_d < 1e-10 ? "ok" : "BAD");
    if (full) printf(" stored-vs-onthefly %s threads-1-vs-2 %s", err_s < 1e-12 ? "ok" : "BAD", err_t < 1e-12 ? "ok" : "BAD");
    printf("\n");
    fprintf(stderr, "metric %d p %d: E %.6e grad %.2e hess %.2e diag %.2e strat %.2e thr %.2e\n", metric, p, s.e, err_g, err_h,
            err_d, err_s, err_t);
  }
  if (!ok) *fail = 1;
  state_free(&s);
  free(v);
  free(xp);
  free(xm);
  free(tmp);
  free(gp);
  free(gm);
  free(gp2);
  free(gm2);
  hx_lmap_destroy(&map);
  hx_tmop_destroy(&tm);
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
  for (int p = 1; p <= 4 && !fail; p++)
    if (check(comm, 303, p, 1, &fail)) {
      printf("error: %s\n", hx_error_message());
      fail = 1;
    }
  for (const hx_metric_info *mi = hx_metrics(); mi->id && !fail; mi++)
    if (mi->id != 303 && check(comm, mi->id, 2, 0, &fail)) {
      printf("error: %s\n", hx_error_message());
      fail = 1;
    }
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
