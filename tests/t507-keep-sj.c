/* t507: --keep-sj against an independent evaluation (the equal weights are
   checked in t506 (c')).
   On a Kershaw box (order 3, eps 0.3), metric 318 + target 4, equal weights, boundary fixed,
   15 Newton steps: without it some element's Nek5000 scaled Jacobian (min / max det J at its
   GLL nodes, computed here from hx_mesh_jacobian_at_node, not from the optimizer's pass) ends
   below min(K, its initial value), K = 0.5, so the case has teeth; with keep_sj = K none does
   (1e-12), yet nodes moved (the mesh is not the initial one) and some were put back.
   Then keep_aspect: the same case with keep_sj 0 and keep_aspect = 1 (no element may end with
   an aspect ratio above its initial one; the ratio of the longest to the shortest of the 12
   corner edges, computed here from the corner nodes): without it some element's rises, with it
   none does (1e-12), yet nodes moved.
   Then elem_ok (a caller's rule, e.g. the .re2 writer's): the same case with keep_sj 0 and a
   rule that passes an element whose nodes moved at most D from the initial mesh, D = half the
   largest move of the free run (so that the case has teeth): with it, no element ends with a
   node moved more than D (the rule, computed here from the nodes), yet nodes moved.
   Run with NP 1 and 2 (energies and counts are sums over ranks). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_test_tmop.h"
#include "hx_tmop.h"

/* longest / shortest of element e's 12 straight corner edges */
static double corner_aspect(const hx_mesh *m, hx_lid e) {
  int nd = m->nd, N = nd - 1;
  size_t n3 = (size_t)nd * nd * nd;
  const double *x = m->x + (size_t)e * 3 * n3;
  double P[8][3];
  for (int c = 0; c < 8; c++) {
    size_t a = (size_t)((c & 1) * N) + (size_t)nd * ((c >> 1 & 1) * N) + (size_t)nd * nd * ((c >> 2) * N);
    for (int d = 0; d < 3; d++) P[c][d] = x[d * n3 + a];
  }
  double lo = HUGE_VAL, hi = 0;
  for (int c = 0; c < 8; c++)
    for (int b = 0; b < 3; b++) {
      int c2 = c | (1 << b);
      if (c2 == c) continue;
      double l = sqrt((P[c][0] - P[c2][0]) * (P[c][0] - P[c2][0]) + (P[c][1] - P[c2][1]) * (P[c][1] - P[c2][1]) +
                      (P[c][2] - P[c2][2]) * (P[c][2] - P[c2][2]));
      lo = fmin(lo, l), hi = fmax(hi, l);
    }
  return hi / lo;
}

/* the largest move of element e's nodes xe from m0's */
static double elem_move(const hx_mesh *m0, hx_lid e, const double *xe) {
  size_t n = 3 * (size_t)hx_mesh_nodes_per_elem(m0);
  double mv = 0;
  for (size_t i = 0; i < n; i++) mv = fmax(mv, fabs(xe[i] - m0->x[(size_t)e * n + i]));
  return mv;
}

typedef struct move_rule {
  const hx_mesh *m0;
  double D;
} move_rule;

static int move_ok(void *ctx, hx_lid e, const double *xe) {
  const move_rule *r = ctx;
  return elem_move(r->m0, e, xe) <= r->D;
}

/* a copy of m0 optimized as the cases below (metric 318, target 4, equal weights, boundary
   fixed, 15 Newton steps) with the given keep_sj, keep_aspect and elem_ok rule (or NULL);
   NULL on failure */
static hx_mesh *optimized_rule(const hx_mesh *m0, double keep_sj, double keep_aspect, move_rule *rule, hx_tmop_result *r) {
  hx_tmop_opts o;
  test_sj_opts(&o, 15);
  o.keep_sj = keep_sj;
  o.keep_aspect = keep_aspect;
  if (rule) o.elem_ok = move_ok, o.elem_ok_ctx = rule;
  return test_optimized_copy(m0, &o, r);
}

static hx_mesh *optimized(const hx_mesh *m0, double keep_sj, double keep_aspect, hx_tmop_result *r) {
  return optimized_rule(m0, keep_sj, keep_aspect, NULL, r);
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
  int fail = 0, rank = hx_comm_rank(comm);
  {
    hx_mesh *m0 = test_kershaw(comm, 6, 6, 6, 3, 0.3);
    if (!m0) return 1;
    hx_lid ne = m0->num_elem;
    double *r0 = malloc((ne + 1) * sizeof *r0), *r1 = malloc((ne + 1) * sizeof *r1);
    test_nek_ratios(m0, r0);
    const double K = 0.5;
    long long worse[2] = {0, 0}, back = 0;
    double mean[3] = {0, 0, 0}, slack = HUGE_VAL, moved = 0;
    for (hx_lid e = 0; e < ne; e++) mean[0] += r0[e];
    for (int keep = 0; keep < 2; keep++) {
      hx_tmop_result r;
      hx_mesh *m = optimized(m0, keep ? K : 0.0, 0.0, &r);
      if (!m) return 1;
      if (keep) back = r.keep_sj_rounds;
      test_nek_ratios(m, r1);
      for (hx_lid e = 0; e < ne; e++) {
        double floor = fmin(K, r0[e]);
        mean[1 + keep] += r1[e];
        worse[keep] += r1[e] < floor * (1 - 1e-12);
        if (keep) slack = fmin(slack, r1[e] - floor);
      }
      size_t nx = (size_t)ne * 3 * m->nd * m->nd * m->nd;
      for (size_t i = 0; keep && i < nx; i++) moved = fmax(moved, fabs(m->x[i] - m0->x[i]));
      hx_mesh_destroy(&m);
    }
    double sums[3] = {mean[0], mean[1], mean[2]};
    hx_comm_sum_double(comm, sums, 3);
    int64_t w[2] = {worse[0], worse[1]};
    hx_comm_sum_int64(comm, w, 2);
    hx_comm_min_double(comm, &slack, 1);
    double neg = -moved;
    hx_comm_min_double(comm, &neg, 1);
    moved = -neg;
    double n = (double)m0->num_elem_global;
    int ok = w[0] > 0 && w[1] == 0 && moved > 1e-6 && back > 0;
    if (rank == 0)
      printf("Kershaw order 3, metric 318: mean Nek SJ %.4f -> %.4f (free), %.4f (keep_sj %g); elements below "
             "min(%g, initial): %lld free, %lld kept (min margin %.3e); largest move kept %.3e, rounds %lld %s\n",
             sums[0] / n, sums[1] / n, sums[2] / n, K, K, (long long)w[0], (long long)w[1], slack, moved, back,
             ok ? "ok" : "BAD");
    fail |= !ok;
    free(r0), free(r1);
    hx_mesh_destroy(&m0);
  }
  {
    hx_mesh *m0 = test_kershaw(comm, 6, 6, 6, 3, 0.3);
    if (!m0) return 1;
    hx_lid ne = m0->num_elem;
    double *a0 = malloc((ne + 1) * sizeof *a0);
    for (hx_lid e = 0; e < ne; e++) a0[e] = corner_aspect(m0, e);
    long long worse[2] = {0, 0};
    double moved = 0;
    for (int keep = 0; keep < 2; keep++) {
      hx_tmop_result r;
      hx_mesh *m = optimized(m0, 0.0, keep ? 1.0 : 0.0, &r);
      if (!m) return 1;
      for (hx_lid e = 0; e < ne; e++) worse[keep] += corner_aspect(m, e) > a0[e] * (1 + 1e-12);
      size_t nx = (size_t)ne * 3 * m->nd * m->nd * m->nd;
      for (size_t i = 0; keep && i < nx; i++) moved = fmax(moved, fabs(m->x[i] - m0->x[i]));
      hx_mesh_destroy(&m);
    }
    int64_t w[2] = {worse[0], worse[1]};
    hx_comm_sum_int64(comm, w, 2);
    double neg = -moved;
    hx_comm_min_double(comm, &neg, 1);
    moved = -neg;
    int ok = w[0] > 0 && w[1] == 0 && moved > 1e-6;
    if (rank == 0)
      printf("Kershaw order 3, metric 318: elements whose aspect ratio rose: %lld free, %lld with keep_aspect 1; "
             "largest move kept %.3e %s\n",
             (long long)w[0], (long long)w[1], moved, ok ? "ok" : "BAD");
    fail |= !ok;
    free(a0);
    hx_mesh_destroy(&m0);
  }
  {
    hx_mesh *m0 = test_kershaw(comm, 6, 6, 6, 3, 0.3);
    if (!m0) return 1;
    hx_lid ne = m0->num_elem;
    size_t npe = 3 * (size_t)hx_mesh_nodes_per_elem(m0);
    double far[2] = {0, 0}; /* the largest element move: free, with the rule */
    move_rule rule = {m0, 0};
    for (int keep = 0; keep < 2; keep++) {
      hx_tmop_result r;
      hx_mesh *m = optimized_rule(m0, 0.0, 0.0, keep ? &rule : NULL, &r);
      if (!m) return 1;
      for (hx_lid e = 0; e < ne; e++) far[keep] = fmax(far[keep], elem_move(m0, e, m->x + (size_t)e * npe));
      hx_comm_max_double(comm, &far[keep], 1);
      if (!keep) rule.D = 0.5 * far[0];
      hx_mesh_destroy(&m);
    }
    int ok = far[0] > 1e-6 && far[1] <= rule.D && far[1] > 1e-3 * far[0];
    if (rank == 0)
      printf("Kershaw order 3, metric 318: largest element move %.3e free; %.3e with a rule passing moves <= %.3e "
             "%s\n",
             far[0], far[1], rule.D, ok ? "ok" : "BAD");
    fail |= !ok;
    hx_mesh_destroy(&m0);
  }
  if (rank == 0) printf("%s\n", fail ? "t507 FAILED" : "t507 passed");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
