/* t508: the line search's fold test between the GLL nodes (--detj-check fine,
   hx_tmop_dmin_detj_fine) against an analytic answer. One order-3 element of the unit cube
   with x replaced by the cubic f(t) = (c / 3) ((t - 1/2)^3 + 1/8) - d t (exact at order 3), so
   det J = f'(t) = c (t - 1/2)^2 - d: with c = 40, d = 1 it is positive at the four GLL nodes
   (t = 0, 0.276, 0.724, 1: 9, 1.0, 1.0, 9) and negative around t = 1/2 (-1). The node test
   must see 1.0 (> 0, the fold missed); the fine test, Gauss points nd + 3 = 7 per direction,
   must equal min f' over those points computed here (negative: the fold seen).
   The Bernstein bound's test (--detj-check bound, hx_tmop_dbound_invalid) must count that
   element folded; and one with f' = c (t - 0.4)^2 - 0.2, negative only on |t - 0.4| < 0.071,
   between the GLL nodes and between the 7 Gauss points (0.297, 0.5) too (f' > 0 at every one:
   the fine test misses it), folded as well; and none with f' = c (t - 1/2)^2 + 1. */
#include <math.h>
#include <stdio.h>

#include "hx_basis.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"
#include "hx_tmop_impl.h"

/* one order-3 element of the unit cube with x replaced by f(t) = (c / 3) ((t - t0)^3 + t0^3) - d t:
   det J = f'(t) = c (t - t0)^2 - d */
static hx_mesh *cubic_box(hx_comm comm, double c, double t0, double d) {
  hx_box_opts bo;
  hx_box_opts_default(&bo);
  bo.n[0] = bo.n[1] = bo.n[2] = 1;
  bo.order = 3;
  hx_mesh *m = NULL;
  if (hx_mesher_box(comm, &bo, &m)) {
    printf("box failed: %s\n", hx_error_message());
    return NULL;
  }
  int npe = m->nd * m->nd * m->nd;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int a = 0; a < npe; a++) {
      double *x = hx_mesh_elem_x(m, e, 0) + a, t = *x;
      *x = c / 3 * ((t - t0) * (t - t0) * (t - t0) + t0 * t0 * t0) - d * t;
    }
  return m;
}

/* the folded elements of (t0, d) counted by the bound's line-search test, and min det J at the
   Gauss points nd + 3 */
static int bound_count(hx_comm comm, double c, double t0, double d, long long *ninv, double *mf) {
  hx_mesh *m = cubic_box(comm, c, t0, d);
  if (!m) return 1;
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = "cpu";
  o.metric = 315;
  hx_tmop *tm = NULL;
  int rc = hx_tmop_create(m, &o, &tm);
  if (!rc) rc = hx_tmop_dbound_invalid(tm, hx_tmop_x0(tm), ninv);
  if (!rc) rc = hx_tmop_dmin_detj_fine(tm, hx_tmop_x0(tm), mf);
  if (rc) printf("failed: %s\n", hx_error_message());
  hx_tmop_destroy(&tm);
  hx_mesh_destroy(&m);
  return rc;
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
  const double c = 40, d = 1;
  hx_mesh *m = cubic_box(comm, c, 0.5, d);
  if (!m) return 1;
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = "cpu";
  o.metric = 315; /* not a barrier: the folded element is accepted for the test */
  hx_tmop *tm = NULL;
  if (hx_tmop_create(m, &o, &tm)) {
    printf("create failed: %s\n", hx_error_message());
    return 1;
  }
  double mn = NAN, mf = NAN, xg[HX_MAX_Q], wg[HX_MAX_Q], exact = HUGE_VAL;
  int rc = hx_tmop_dmin_detj_nodes(tm, hx_tmop_x0(tm), &mn);
  if (!rc) rc = hx_tmop_dmin_detj_fine(tm, hx_tmop_x0(tm), &mf);
  if (!rc) rc = hx_quad_rule(HX_QUAD_GL, m->nd + 3, xg, wg);
  if (rc) {
    printf("failed: %s\n", hx_error_message());
    return 1;
  }
  for (int k = 0; k < m->nd + 3; k++) exact = fmin(exact, c * (xg[k] - 0.5) * (xg[k] - 0.5) - d);
  double node_exact = c * 0.25 / 5 - d; /* (t - 1/2)^2 = 1/20 at the inner GLL nodes */
  int ok = fabs(mn - node_exact) <= 1e-12 && mn > 0 && exact < 0 && fabs(mf - exact) <= 1e-12;
  if (hx_comm_rank(comm) == 0)
    printf("min det J at the GLL nodes %.15f (analytic %.15f), at Gauss %d^3 %.15f (analytic %.15f) %s\n", mn, node_exact,
           m->nd + 3, mf, exact, ok ? "ok" : "BAD");
  hx_tmop_destroy(&tm);
  hx_mesh_destroy(&m);
  long long nb[3] = {-1, -1, -1};
  double mfs[3] = {NAN, NAN, NAN};
  const double t0s[3] = {0.5, 0.4, 0.5}, ds[3] = {1, 0.2, -1};
  for (int k = 0; k < 3; k++)
    if (bound_count(comm, c, t0s[k], ds[k], &nb[k], &mfs[k])) return 1;
  int okb = nb[0] == 1 && nb[1] == 1 && mfs[1] > 0 && nb[2] == 0;
  if (hx_comm_rank(comm) == 0)
    printf("the bound's test: folded at t = 1/2: %lld; at t = 0.4, between the Gauss points (min det J there %.4f): %lld; "
           "valid: %lld %s\n",
           nb[0], mfs[1], nb[1], nb[2], okb ? "ok" : "BAD");
  ok = ok && okb;
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return !ok;
}
