/* Per-node boundary-constraint maths on L-vectors, shared by the CPU and CUDA
   backends (HX_HD): Pi removes the components of a node's 3-vector along its nc
   orthonormal constrained directions N[k][3] (nc = 3: the node is fixed). The
   operation order is the one tmop/ used on the host before the solver moved to
   backend vectors, so the CPU results are unchanged bit for bit. */
#pragma once
#include "hx_types.h"

/* p <- Pi p */
static inline HX_HD void hx_lvec_project_node(int nc, const double *N, double *p) {
  if (!nc) return;
  if (nc == 3) {
    p[0] = p[1] = p[2] = 0;
    return;
  }
  for (int k = 0; k < nc; k++) {
    double d = p[0] * N[3 * k] + p[1] * N[3 * k + 1] + p[2] * N[3 * k + 2];
    for (int c = 0; c < 3; c++) p[c] -= d * N[3 * k + c];
  }
}

/* z = Pi D^{-1} Pi r + (I - Pi) r for one node (dinv: its 3 entries) */
static inline HX_HD void hx_lvec_precond_node(int nc, const double *N, const double *dinv, const double *r, double *z) {
  double t[3] = {r[0], r[1], r[2]}, o[3];
  hx_lvec_project_node(nc, N, t);
  for (int c = 0; c < 3; c++) o[c] = dinv[c] * t[c];
  hx_lvec_project_node(nc, N, o);
  for (int c = 0; c < 3; c++) z[c] = o[c] + (r[c] - t[c]);
}

/* y = Pi y + (v - Pi v) for one node */
static inline HX_HD void hx_lvec_constrain_node(int nc, const double *N, const double *v, double *y) {
  if (!nc) return;
  double t[3] = {v[0], v[1], v[2]};
  hx_lvec_project_node(nc, N, t);
  hx_lvec_project_node(nc, N, y);
  for (int c = 0; c < 3; c++) y[c] += v[c] - t[c];
}
