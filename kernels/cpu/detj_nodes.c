/* Minimum of det J at the GLL nodes of every element (the points the writers and
   hx_mesh_check test), for the Newton line search: det J is a polynomial of degree
   3p - 1 per direction, and the quadrature points alone (all the energy sees) can
   miss a fold between them (an element that is valid at every quadrature point but
   inverted at a node). Plain host code: the CPU backend's min_detj_nodes, and tmop's
   host fallback for backends without the op. */
#include <math.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_detj_point.h"
#include "hx_error.h"
#include "hx_kernels_cpu.h"
#include "hx_mesh.h"
#if HX_HAVE_OPENMP
#include <omp.h>
#endif

int hx_cpu_min_detj_nodes(int nd, hx_lid num_elem, const double *xE, int num_threads, double *m) {
  HX_CHECK(nd >= 2 && nd <= HX_MAX_ND, HX_ERR_INPUT, "min det J at nodes: %d nodes per direction", nd);
  double xg[HX_MAX_ND], wg[HX_MAX_ND], I[HX_MAX_ND * HX_MAX_ND], D[HX_MAX_ND * HX_MAX_ND];
  HX_CALL(hx_gll(nd, xg, wg));
  hx_lagrange_matrices(nd, xg, nd, xg, I, D); /* D[i][a] = phi_a'(xi_i) */
  size_t n3 = (size_t)nd * nd * nd;
  double mn = HUGE_VAL;
  int nan = 0; /* OpenMP's min reduction drops NaN: count them apart */
  int nt = num_threads;
#if HX_HAVE_OPENMP
  if (nt <= 0) nt = omp_get_max_threads();
#endif
  (void)nt;
#pragma omp parallel for num_threads(nt) reduction(min : mn) reduction(| : nan) schedule(static) if (nt > 1)
  for (hx_lid e = 0; e < num_elem; e++) {
    const double *x = xE + (size_t)e * 3 * n3;
    double emn = HUGE_VAL;
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          double d = hx_detj_node(nd, D, x, i, j, k);
          if (isnan(d)) nan = 1;
          else if (d < emn) emn = d;
        }
    if (emn < mn) mn = emn;
  }
  *m = nan ? NAN : mn;
  return HX_OK;
}
