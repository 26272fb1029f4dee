/* det J at one GLL node of one element, shared by the CPU and CUDA backends
   (HX_HD): the line search's fold check (min_detj_nodes). x is the element's
   E-vector block [3][nd][nd][nd] (last index fastest), D[i][a] = l_a'(xi_i) at the
   GLL nodes, (i, j, k) the node. The sums run in one fixed order, so both backends
   give the same bits. */
#pragma once
#include "hx_types.h"

static inline HX_HD double hx_detj_node(int nd, const double *D, const double *x, int i, int j, int k) {
  const int n3 = nd * nd * nd;
  double J[9];
  for (int c = 0; c < 3; c++) {
    const double *xc = x + c * n3;
    double d1 = 0, d2 = 0, d3 = 0;
    for (int a = 0; a < nd; a++) {
      d1 += D[i * nd + a] * xc[(k * nd + j) * nd + a];
      d2 += D[j * nd + a] * xc[(k * nd + a) * nd + i];
      d3 += D[k * nd + a] * xc[(a * nd + j) * nd + i];
    }
    J[3 * c] = d1, J[3 * c + 1] = d2, J[3 * c + 2] = d3;
  }
  return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) + J[2] * (J[3] * J[7] - J[4] * J[6]);
}
