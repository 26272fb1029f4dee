/* t540: the limiting term (MFEM's TMOP_QuadraticLimiter: lim_const 0.5 |x - x0|^2 / delta^2 at every
   quadrature point, with the metric's weights w_q det W) against independent answers:
   (a) a box of 2 x 2 x 2 elements on [0,1]^3 at order 2, nodes moved by an affine map
       x -> x + b + M x: the term (energy with it minus without) is
       c / delta^2 0.5 (det W / V_e) int_[0,1]^3 |b + M x|^2 dx (V_e = 1/8 the element volume), the
       integral in closed form (|b|^2 + b.M(1,1,1) + sum_ij (M^T M)_ij (i == j ? 1/3 : 1/4));
       target 2 (det W = V_e: the physical integral) and target 1 (det W = 1: each element's
       reference integral, 8 times the physical one, as MFEM weighs it); delta given (0.5), MFEM's small
       (volume^(1/3) / 100) and per element (its volume^(1/3) = 1/2);
   (b) on a perturbed Kershaw box (p = 2, moved off x0): the assembled gradient against central
       differences of the energy, the Hessian action against central differences of the gradient,
       the Jacobi diagonal against e_i.H e_i, with the term large against the metric's (metric 303
       with target 1 on its vectorized path and with stored H, metric 338 with target 3 per point,
       metric 318 with target 4 per element);
   (c) Newton on a perturbed Kershaw box (p = 2, boundary fixed): with c = 1e6 the nodes end within
       a hundredth of the largest move the solve makes without the term, with c = 1 in between;
       off (c = 0) the iterates are bitwise those of the options without the fields.
   Runs on 1 and 2 ranks. */
#include <stdlib.h>
#include <string.h>

#include "hx_metrics.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

static double nmax(double a, double b) { return (a != a || b != b) ? NAN : (a > b ? a : b); }

static int fail;
#define CHECKP(ok, ...)                                                                                                          \
  do {                                                                                                                           \
    if (rank == 0) printf(__VA_ARGS__);                                                                                          \
    if (!(ok)) fail = 1;                                                                                                         \
  } while (0)

/* energy at L-vector x (the tmop's own numbering) */
static int energy_at(hx_mesh *m, const hx_tmop_opts *o, const double *b, const double M[9], double *e) {
  hx_tmop *tm;
  HX_CALL(hx_tmop_create(m, o, &tm));
  size_t n = hx_tmop_size(tm);
  double *x = malloc((n + 1) * sizeof *x);
  memcpy(x, hx_tmop_x0(tm), n * sizeof *x);
  for (size_t i = 0; i < n; i += 3) {
    const double *p = hx_tmop_x0(tm) + i;
    for (int c = 0; c < 3; c++) x[i + c] = p[c] + b[c] + M[3 * c] * p[0] + M[3 * c + 1] * p[1] + M[3 * c + 2] * p[2];
  }
  int rc = hx_tmop_energy(tm, x, e);
  free(x);
  hx_tmop_destroy(&tm);
  return rc;
}

/* (a) the term on the unit box against the closed form */
static int part_a(hx_comm comm) {
  int rank = hx_comm_rank(comm);
  hx_mesh *m = test_kershaw(comm, 2, 2, 2, 2, 1.0); /* eps 1: no Kershaw map, the unit cube */
  if (!m) return HX_ERR_INTERNAL;
  const double b[3] = {0.03, -0.02, 0.05};
  const double M[9] = {0.02, -0.01, 0.03, 0.015, -0.025, 0.01, -0.02, 0.005, 0.01};
  double I = b[0] * b[0] + b[1] * b[1] + b[2] * b[2]; /* int_[0,1]^3 |b + M x|^2 dx */
  for (int c = 0; c < 3; c++) I += b[c] * (M[3 * c] + M[3 * c + 1] + M[3 * c + 2]);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double mtm = M[i] * M[j] + M[3 + i] * M[3 + j] + M[6 + i] * M[6 + j];
      I += mtm * (i == j ? 1.0 / 3.0 : 0.25);
    }
  struct {
    int target, kind;
    double dist, want_delta, detw;
    const char *name;
  } cases[] = {
      {2, HX_LIM_DIST_CONST, 0.5, 0.5, 0.125, "target 2, delta 0.5"},
      {1, HX_LIM_DIST_CONST, 0.5, 0.5, 1.0, "target 1, delta 0.5"},
      {2, HX_LIM_DIST_CONST, 0.0, 1.0, 0.125, "target 2, delta default 1"},
      {2, HX_LIM_DIST_SMALL, 0.0, 0.01, 0.125, "target 2, delta small"},
      {2, HX_LIM_DIST_ELEM, 0.0, 0.5, 0.125, "target 2, delta elem"},
  };
  int rc = HX_OK;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0] && !rc; k++) {
    hx_tmop_opts o;
    hx_tmop_opts_default(&o);
    o.backend = "cpu";
    o.target = cases[k].target;
    double e0, e1, c = 3.0;
    rc = energy_at(m, &o, b, M, &e0);
    o.lim_const = c;
    o.lim_dist_kind = cases[k].kind;
    o.lim_dist = cases[k].dist;
    if (!rc) rc = energy_at(m, &o, b, M, &e1);
    double d = cases[k].want_delta;
    double want = c / (d * d) * 0.5 * I * cases[k].detw / 0.125;
    double err = fabs((e1 - e0) - want) / want;
    CHECKP(!rc && err < 1e-12, "(a) %-26s term %s\n", cases[k].name, err < 1e-12 ? "ok" : "BAD");
    if (rank == 0) fprintf(stderr, "(a) %s: %.15e want %.15e rel %.1e\n", cases[k].name, e1 - e0, want, err);
  }
  hx_mesh_destroy(&m);
  return rc;
}

/* (b) derivatives of the energy with the term */
static int part_b(hx_comm comm, int metric, int target, int strategy) {
  int rank = hx_comm_rank(comm), p = 2;
  hx_mesh *m = test_kershaw(comm, 6, 4, 4, p, 0.3);
  if (!m) return HX_ERR_INTERNAL;
  test_perturb(m, 0.03 / 4 / p);
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.metric = metric;
  o.target = target;
  o.hess_strategy = strategy;
  o.backend = "cpu";
  o.num_threads = 2;
  o.lim_const = 1e6;
  o.lim_dist = 0.1;
  hx_tmop *tm, *tm0;
  HX_CALL(hx_tmop_create(m, &o, &tm));
  hx_tmop_opts o0 = o;
  o0.lim_const = 0;
  HX_CALL(hx_tmop_create(m, &o0, &tm0));
  size_t n = hx_tmop_size(tm);
  hx_lmap *map;
  HX_CALL(hx_mesh_lnumbering(m, &map));
  double *x = calloc(n, sizeof(double)), *v = calloc(n, sizeof(double)), *g = calloc(n, sizeof(double)),
         *hv = calloc(n, sizeof(double)), *dg = calloc(n, sizeof(double)), *t1 = calloc(n, sizeof(double)),
         *t2 = calloc(n, sizeof(double)), *fd = calloc(n, sizeof(double));
  for (hx_lid i = 0; i < map->num_lnodes; i++)
    for (int c = 0; c < 3; c++) {
      x[3 * i + c] = hx_tmop_x0(tm)[3 * i + c] + 0.01 / 4 / p * test_hash(map->l2g[i] + 5, c);
      v[3 * i + c] = test_hash(map->l2g[i] + 77, c) / (p * p);
    }
  double e, e0;
  HX_CALL(hx_tmop_energy(tm, x, &e));
  HX_CALL(hx_tmop_energy(tm0, x, &e0));
  HX_CALL(hx_tmop_grad_raw(tm, x, g));
  HX_CALL(hx_tmop_hess_setup(tm, x));
  HX_CALL(hx_tmop_hess_apply(tm, v, hv, 1));
  HX_CALL(hx_tmop_diag(tm, dg));
  /* 4th-order central differences along v */
  double h = 1e-4, Ep[2], Em[2];
  for (int k = 0; k < 2; k++) {
    double hh = h * (k + 1);
    for (size_t i = 0; i < n; i++) t1[i] = x[i] + hh * v[i], t2[i] = x[i] - hh * v[i];
    HX_CALL(hx_tmop_energy(tm, t1, &Ep[k]));
    HX_CALL(hx_tmop_energy(tm, t2, &Em[k]));
    double *gp = calloc(n, sizeof(double)), *gm = calloc(n, sizeof(double));
    HX_CALL(hx_tmop_grad_raw(tm, t1, gp));
    HX_CALL(hx_tmop_grad_raw(tm, t2, gm));
    for (size_t i = 0; i < n; i++) fd[i] += (k ? -1.0 : 8.0) * (gp[i] - gm[i]) / (12 * h);
    free(gp);
    free(gm);
  }
  double dE = (8 * (Ep[0] - Em[0]) - (Ep[1] - Em[1])) / (12 * h), gv = hx_tmop_dot(tm, g, v);
  double err_g = fabs(dE - gv) / fabs(gv);
  for (size_t i = 0; i < n; i++) t1[i] = hv[i] - fd[i];
  double err_h = sqrt(hx_tmop_dot(tm, t1, t1)) / sqrt(hx_tmop_dot(tm, fd, fd));
  double err_d = 0;
  for (int t = 0; t < 6; t++) {
    hx_gid want = (hx_gid)(t * 29 + 11);
    int c = t % 3;
    hx_lid li = -1;
    for (hx_lid i = 0; i < map->num_lnodes; i++)
      if (map->l2g[i] == want) li = i;
    memset(t1, 0, n * sizeof(double));
    if (li >= 0) t1[3 * li + c] = 1.0;
    HX_CALL(hx_tmop_hess_apply(tm, t1, t2, 1));
    if (li >= 0) err_d = nmax(err_d, fabs(t2[3 * li + c] - dg[3 * li + c]) / fabs(dg[3 * li + c]));
  }
  HX_CALL(hx_comm_max_double(comm, &err_d, 1));
  double share = (e - e0) / e; /* the term's share of the energy: it must matter */
  int ok = err_g < 1e-6 && err_h < 1e-6 && err_d < 1e-10 && share > 0.3;
  CHECKP(ok, "(b) metric %d target %d %s: fd-grad %s fd-hess %s diag %s term-share %s\n", metric, target,
         strategy == HX_HESS_STORED ? "stored" : "onthefly", err_g < 1e-6 ? "ok" : "BAD", err_h < 1e-6 ? "ok" : "BAD",
         err_d < 1e-10 ? "ok" : "BAD", share > 0.3 ? "ok" : "BAD");
  if (rank == 0)
    fprintf(stderr, "(b) metric %d target %d: E %.6e (term %.6e) grad %.2e hess %.2e diag %.2e\n", metric, target, e, e - e0,
            err_g, err_h, err_d);
  free(x), free(v), free(g), free(hv), free(dg), free(t1), free(t2), free(fd);
  hx_lmap_destroy(&map);
  hx_tmop_destroy(&tm);
  hx_tmop_destroy(&tm0);
  hx_mesh_destroy(&m);
  return HX_OK;
}

/* the largest node move of the optimized copy from m0 (same elements, E-vectors), over ranks */
static double max_move(const hx_mesh *m0, const hx_mesh *m1) {
  size_t n = (size_t)m0->num_elem * 3 * m0->nd * m0->nd * m0->nd;
  double d = 0;
  for (size_t i = 0; i < n; i++) d = nmax(d, fabs(m1->x[i] - m0->x[i]));
  hx_comm_max_double(m0->comm, &d, 1);
  return d;
}

/* (c) Newton with the term */
static int part_c(hx_comm comm) {
  int rank = hx_comm_rank(comm);
  hx_mesh *m = test_kershaw(comm, 6, 4, 4, 2, 0.3);
  if (!m) return HX_ERR_INTERNAL;
  test_perturb(m, 0.02 / 8);
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = "cpu";
  o.boundary = HX_BND_FIXED;
  o.newton_iters = 8;
  double c[3] = {0, 1, 1e6}, mv[3] = {0, 0, 0};
  hx_tmop_result r[3];
  hx_mesh *out[3] = {NULL, NULL, NULL};
  for (int k = 0; k < 3; k++) {
    o.lim_const = c[k];
    out[k] = test_optimized_copy(m, &o, &r[k]);
    if (!out[k]) return HX_ERR_INTERNAL;
    mv[k] = max_move(m, out[k]);
    if (rank == 0)
      fprintf(stderr, "(c) c %g: E %.6e -> %.6e, %d Newton, %s, largest move %.3e, min det J %.3e\n", c[k], r[k].energy0,
              r[k].energy, r[k].newton_iters, r[k].stop_reason, mv[k], r[k].min_detj);
  }
  CHECKP(mv[0] > 0 && mv[2] < mv[0] / 100 && mv[1] < mv[0] && mv[1] > mv[2], "(c) large c keeps the nodes near x0 %s\n",
         mv[2] < mv[0] / 100 ? "ok" : "BAD");
  CHECKP(r[1].min_detj > 0 && r[2].min_detj > 0 && r[1].energy < r[1].energy0, "(c) limited solves valid and descending %s\n",
         r[1].energy < r[1].energy0 ? "ok" : "BAD");
  /* off: bitwise the run without the fields (lim_dist set, lim_const 0) */
  o.lim_const = 0;
  o.lim_dist = 0.25;
  o.lim_dist_kind = HX_LIM_DIST_ELEM;
  hx_tmop_result r0;
  hx_mesh *off = test_optimized_copy(m, &o, &r0);
  if (!off) return HX_ERR_INTERNAL;
  size_t n = (size_t)m->num_elem * 3 * m->nd * m->nd * m->nd;
  int same = !memcmp(off->x, out[0]->x, n * sizeof(double)) && r0.energy == r[0].energy && r0.newton_iters == r[0].newton_iters;
  int64_t all = same;
  hx_comm_min_int64(comm, &all, 1);
  CHECKP(all, "(c) off: bitwise unchanged %s\n", all ? "ok" : "BAD");
  hx_mesh_destroy(&off);
  for (int k = 0; k < 3; k++) hx_mesh_destroy(&out[k]);
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
  int rc = part_a(comm);
  if (!rc) rc = part_b(comm, 303, 1, HX_HESS_ONTHEFLY);
  if (!rc) rc = part_b(comm, 303, 1, HX_HESS_STORED);
  if (!rc) rc = part_b(comm, 338, 3, HX_HESS_ONTHEFLY);
  if (!rc) rc = part_b(comm, 318, 4, HX_HESS_ONTHEFLY);
  if (!rc) rc = part_c(comm);
  if (rc) {
    printf("error: %s\n", hx_error_message());
    fail = 1;
  }
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
