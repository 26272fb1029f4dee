/* mu_315 = (tau - 1)^2: 3D size metric, not a barrier (MFEM numbering). par unused.
   P = 2 (tau - 1) C;  dP = 2 (C:dT) C + 2 (tau - 1) dC. */
#pragma once
#include "hx_invariants.h"

static inline HX_HD double hx_m315_mu(const double *T, double par) {
  (void)par;
  double t = hx_m3_det(T) - 1.0;
  return t * t;
}

static inline HX_HD void hx_m315_P(const double *T, double par, double *P) {
  (void)par;
  double C[9];
  hx_m3_cof(T, C);
  double tau = T[0] * C[0] + T[1] * C[1] + T[2] * C[2];
  for (int i = 0; i < 9; i++) P[i] = 2.0 * (tau - 1.0) * C[i];
}

static inline HX_HD void hx_m315_dP(const double *T, double par, const double *dT, double *dP) {
  (void)par;
  double C[9], dC[9];
  hx_m3_cof(T, C);
  double tau = T[0] * C[0] + T[1] * C[1] + T[2] * C[2];
  hx_inv_dC(C, tau, dT, dC);
  double cd = hx_m3_ddot(C, dT);
  for (int i = 0; i < 9; i++) dP[i] = 2.0 * cd * C[i] + 2.0 * (tau - 1.0) * dC[i];
}

HX_METRIC_DERIVED(hx_m315)
