/* t507: two TMOP options against independent answers.
   (a) --weight equal with target 4 on the box stretched by x -> x^2 on [1, 2] at order 2:
       tau = 2 x / (a + b) in the element [a, b], so with every element weighted by the mean
       element volume Vbar instead of its own V_e, E_315 = sum_e Vbar ((b - a) / (a + b))^2 / 3
       exactly (with V_e it is t506's (c)); the two differ on this mesh.
   (b) --keep-sj on a Kershaw box (order 3, eps 0.3), metric 318 + target 4, equal weights,
       boundary fixed, 15 Newton steps: without it some element's Nek5000 scaled Jacobian
       (min / max det J at its GLL nodes, computed here from hx_mesh_jacobian_at_node, not
       from the optimizer's pass) ends below min(K, its initial value), K = 0.5, so the case
       has teeth; with keep_sj = K none does (1e-12), yet nodes moved (the mesh is not the
       initial one) and some were put back.
   Run with NP 1 and 2 (energies and counts are sums over ranks). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_test_tmop.h"
#include "hx_tmop.h"

static hx_mesh *box(hx_comm comm, int p, double x0, double x1) {
  hx_box_opts o;
  hx_box_opts_default(&o);
  o.n[0] = 5, o.n[1] = 3, o.n[2] = 2;
  o.lo[0] = x0, o.hi[0] = x1;
  o.lo[1] = 0, o.hi[1] = 0.6;
  o.lo[2] = 0, o.hi[2] = 0.5;
  o.order = p;
  hx_mesh *m = NULL;
  if (hx_mesher_box(comm, &o, &m)) printf("box failed: %s\n", hx_error_message());
  return m;
}

/* every element's min / max det J at its GLL nodes */
static void ratios(const hx_mesh *m, double *r) {
  int nd = m->nd;
  double D[HX_MAX_ND * HX_MAX_ND], J[3][3];
  hx_mesh_gll_derivative(nd, D);
  for (hx_lid e = 0; e < m->num_elem; e++) {
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          double d = hx_mesh_jacobian_at_node(m, D, e, i, j, k, J);
          lo = fmin(lo, d), hi = fmax(hi, d);
        }
    r[e] = hi > 0 ? lo / hi : -1;
  }
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  hx_comm comm = MPI_COMM_WORLD;
#else
  (void)argc; (void)argv;
  hx_comm comm = HX_COMM_SELF;
#endif
  int fail = 0, rank = hx_comm_rank(comm);
  /* (a) equal weights, analytic energy */
  {
    hx_mesh *m = box(comm, 2, 1, 2);
    if (!m) return 1;
    int npe = m->nd * m->nd * m->nd;
    for (hx_lid e = 0; e < m->num_elem; e++)
      for (int a = 0; a < npe; a++) {
        double *x = hx_mesh_elem_x(m, e, 0) + a;
        *x = *x * *x;
      }
    double sum = 0, vol = 0;
    for (hx_lid e = 0; e < m->num_elem; e++) {
      double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
      for (int a = 0; a < npe; a++)
        for (int c = 0; c < 3; c++) {
          double v = hx_mesh_elem_x(m, e, c)[a];
          lo[c] = fmin(lo[c], v), hi[c] = fmax(hi[c], v);
        }
      double a = sqrt(lo[0]), b = sqrt(hi[0]);
      vol += (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
      sum += ((b - a) / (a + b)) * ((b - a) / (a + b)) / 3;
    }
    double v[2] = {sum, vol};
    hx_comm_sum_double(comm, v, 2);
    double exact = v[1] / (double)m->num_elem_global * v[0];
    double e[2] = {NAN, NAN};
    for (int w = 0; w < 2; w++) {
      hx_tmop_opts o;
      hx_tmop_opts_default(&o);
      o.backend = "cpu";
      o.metric = 315;
      o.target = 4;
      o.equal_weight = w;
      hx_tmop *tm = NULL;
      if (hx_tmop_create(m, &o, &tm) || hx_tmop_energy(tm, hx_tmop_x0(tm), &e[w])) {
        printf("tmop failed: %s\n", hx_error_message());
        return 1;
      }
      hx_tmop_destroy(&tm);
    }
    int ok = exact > 0 && fabs(e[1] - exact) <= 1e-12 * exact && fabs(e[0] - exact) > 1e-3 * exact;
    if (rank == 0)
      printf("(a) metric 315, target 4, equal weights: E %.15e, analytic %.15e (volume weights: %.6e) %s\n", e[1],
             exact, e[0], ok ? "ok" : "BAD");
    fail |= !ok;
    hx_mesh_destroy(&m);
  }
  /* (b) keep_sj */
  {
    hx_mesh *m0 = test_kershaw(comm, 6, 6, 6, 3, 0.3);
    if (!m0) return 1;
    hx_lid ne = m0->num_elem;
    double *r0 = malloc((ne + 1) * sizeof *r0), *r1 = malloc((ne + 1) * sizeof *r1);
    ratios(m0, r0);
    const double K = 0.5;
    long long worse[2] = {0, 0}, back = 0;
    double mean[3] = {0, 0, 0}, slack = HUGE_VAL, moved = 0;
    for (hx_lid e = 0; e < ne; e++) mean[0] += r0[e];
    for (int keep = 0; keep < 2; keep++) {
      hx_mesh *m = NULL;
      if (hx_mesh_copy(m0, &m)) return 1;
      hx_tmop_opts o;
      hx_tmop_opts_default(&o);
      o.backend = "cpu";
      o.metric = 318;
      o.target = 4;
      o.equal_weight = 1;
      o.boundary = HX_BND_FIXED;
      o.newton_iters = 15;
      o.keep_sj = keep ? K : 0.0;
      hx_tmop_result r;
      if (hx_tmop_optimize(m, &o, &r)) {
        printf("optimize failed: %s\n", hx_error_message());
        return 1;
      }
      if (keep) back = r.keep_sj_rounds;
      ratios(m, r1);
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
      printf("(b) Kershaw order 3, metric 318: mean Nek SJ %.4f -> %.4f (free), %.4f (keep_sj %g); elements below "
             "min(%g, initial): %lld free, %lld kept (min margin %.3e); largest move kept %.3e, rounds %lld %s\n",
             sums[0] / n, sums[1] / n, sums[2] / n, K, K, (long long)w[0], (long long)w[1], slack, moved, back,
             ok ? "ok" : "BAD");
    fail |= !ok;
    free(r0), free(r1);
    hx_mesh_destroy(&m0);
  }
  if (rank == 0) printf("%s\n", fail ? "t507 FAILED" : "t507 passed");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
