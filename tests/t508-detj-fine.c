/* t508: the line search's fold test between the GLL nodes (--detj-check fine,
   hx_tmop_dmin_detj_fine) against an analytic answer. One order-3 element of the unit cube
   with x replaced by the cubic f(t) = (c / 3) ((t - 1/2)^3 + 1/8) - d t (exact at order 3), so
   det J = f'(t) = c (t - 1/2)^2 - d: with c = 40, d = 1 it is positive at the four GLL nodes
   (t = 0, 0.276, 0.724, 1: 9, 1.0, 1.0, 9) and negative around t = 1/2 (-1). The node test
   must see 1.0 (> 0, the fold missed); the fine test, Gauss points nd + 3 = 7 per direction,
   must equal min f' over those points computed here (negative: the fold seen). */
#include <math.h>
#include <stdio.h>

#include "hx_basis.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"
#include "hx_tmop_impl.h"

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
  hx_box_opts bo;
  hx_box_opts_default(&bo);
  bo.n[0] = bo.n[1] = bo.n[2] = 1;
  bo.order = 3;
  hx_mesh *m = NULL;
  if (hx_mesher_box(comm, &bo, &m)) {
    printf("box failed: %s\n", hx_error_message());
    return 1;
  }
  int npe = m->nd * m->nd * m->nd;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int a = 0; a < npe; a++) {
      double *x = hx_mesh_elem_x(m, e, 0) + a, t = *x;
      *x = c / 3 * ((t - 0.5) * (t - 0.5) * (t - 0.5) + 0.125) - d * t;
    }
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
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return !ok;
}
