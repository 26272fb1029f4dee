/* t504: min det J at the GLL nodes (the line search's second check, kernels/cpu/
   detj_nodes.c). (A) On a randomly perturbed p = 4 Kershaw mesh it equals the
   minimum of hx_mesh_jacobian_at_node (an independent implementation in core) to
   1e-12, with 1 and 2 threads. (B) A p = 4 element folded only between the
   quadrature points: moving one interior node toward the x = 0 face makes det J
   negative at a face node while every one of the 6^3 GLL quadrature points (-qo 8)
   stays positive; the quadrature check misses it, the node check sees it.
   (C) Optimizing that element with its boundary fixed (the node check is off
   because it starts folded there) unfolds it: energy drops and det J > 0 at every
   node. */
#include <stdio.h>
#include <stdlib.h>

#include "hx_kernels_cpu.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

static double node_min_core(const hx_mesh *m) {
  double D[HX_MAX_ND * HX_MAX_ND], mn = HUGE_VAL, J[3][3];
  hx_mesh_gll_derivative(m->nd, D);
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int k = 0; k < m->nd; k++)
      for (int j = 0; j < m->nd; j++)
        for (int i = 0; i < m->nd; i++) mn = fmin(mn, hx_mesh_jacobian_at_node(m, D, e, i, j, k, J));
  return mn;
}

static double qp_min(hx_mesh *m) {
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = "cpu";
  hx_tmop *tm = NULL;
  double v = NAN;
  if (hx_tmop_create(m, &o, &tm) == HX_OK) hx_tmop_min_detj(tm, hx_tmop_x0(tm), &v);
  hx_tmop_destroy(&tm);
  return v;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#else
  (void)argc;
  (void)argv;
#endif
  int fail = 0;
  /* (A) */
  hx_mesh *m = test_kershaw(HX_COMM_SELF, 6, 4, 4, 4, 0.3);
  if (!m) return 1;
  test_perturb(m, 0.002);
  double ref = node_min_core(m), a1, a2;
  hx_cpu_min_detj_nodes(m->nd, m->num_elem, m->x, 1, &a1);
  hx_cpu_min_detj_nodes(m->nd, m->num_elem, m->x, 2, &a2);
  double e1 = fabs(a1 - ref) / fabs(ref), e2 = fabs(a2 - a1);
  printf("A: perturbed Kershaw p = 4: node min det J %.6e (core %.6e), rel err %.1e, 1 vs 2 threads %.1e\n", a1, ref, e1, e2);
  fail |= !(e1 < 1e-12 && e2 == 0 && ref > 0);
  hx_mesh_destroy(&m);

  /* (B) one p = 4 element [0,1]^3; node (1,2,2) moves toward x = 0 */
  m = test_kershaw(HX_COMM_SELF, 1, 1, 1, 4, 1.0);
  if (!m) return 1;
  int nd = m->nd, a = (2 * nd + 2) * nd + 1;
  double x0 = hx_mesh_elem_x(m, 0, 0)[a], nodes = 1, quad = 1, shift = 0;
  for (shift = 0.01; shift < x0; shift += 0.01) {
    hx_mesh_elem_x(m, 0, 0)[a] = x0 - shift;
    hx_cpu_min_detj_nodes(nd, 1, m->x, 1, &nodes);
    if (nodes < 0) break;
  }
  quad = qp_min(m);
  printf("B: interior node moved by %.2f: min det J at the nodes %.4e, at the 6^3 quadrature points %.4e\n", shift, nodes, quad);
  fail |= !(nodes < 0 && quad > 0 && fabs(node_min_core(m) - nodes) <= 1e-12 * fabs(nodes));

  /* (C) */
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = "cpu";
  o.boundary = HX_BND_FIXED;
  o.num_threads = 1;
  hx_tmop_result r;
  if (hx_tmop_optimize(m, &o, &r) != HX_OK) {
    printf("C: optimize failed: %s\n", hx_error_message());
    fail = 1;
  } else {
    double after = node_min_core(m);
    printf("C: fixed boundary: energy %.4e -> %.4e, node min det J %.4e -> %.4e (%s)\n", r.energy0, r.energy, nodes, after,
           r.stop_reason);
    fail |= !(r.energy < 1e-3 * r.energy0 && after > 0);
  }
  hx_mesh_destroy(&m);
  printf("t504 %s\n", fail ? "FAILED" : "passed");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
