/* mu_318 = (tau^2 + tau^-2)/2 - 1: 3D size metric, barrier (MFEM numbering). par unused.
   P = (tau - tau^-3) C;  dP = (1 + 3 tau^-4)(C:dT) C + (tau - tau^-3) dC. */
#pragma once
#include "hx_invariants.h"

static inline HX_HD double hx_m318_mu(const double *T, double par) {
  (void)par;
  double t2 = hx_m3_det(T);
  t2 *= t2;
  return 0.5 * (t2 + 1.0 / t2) - 1.0;
}

static inline HX_HD void hx_m318_P(const double *T, double par, double *P) {
  (void)par;
  double C[9];
  hx_m3_cof(T, C);
  double tau = T[0] * C[0] + T[1] * C[1] + T[2] * C[2];
  double f = tau - 1.0 / (tau * tau * tau);
  for (int i = 0; i < 9; i++) P[i] = f * C[i];
}

static inline HX_HD void hx_m318_dP(const double *T, double par, const double *dT, double *dP) {
  (void)par;
  double C[9], dC[9];
  hx_m3_cof(T, C);
  double tau = T[0] * C[0] + T[1] * C[1] + T[2] * C[2];
  hx_inv_dC(C, tau, dT, dC);
  double t2 = tau * tau, t4 = t2 * t2;
  double cd = hx_m3_ddot(C, dT);
  double f = tau - 1.0 / (t2 * tau), g = 1.0 + 3.0 / t4;
  for (int i = 0; i < 9; i++) dP[i] = g * cd * C[i] + f * dC[i];
}

/* H_kjkl in closed form: with dT = e_k e_j^T, C:dT = C_kj and (C dT^T C)_kl = C_kj C_kl, so dC_kl
   = (C_kj C_kl - C_kj C_kl) / tau = 0 (exactly, in floating point too) and H_kjkl = g C_kj C_kl,
   g = 1 + 3 tau^-4: the same doubles as the nine dP calls of HX_METRIC_DERIVED. */
static inline HX_HD void hx_m318_hkk(const double *T, double par, double *Hkk) {
  (void)par;
  double C[9];
  hx_m3_cof(T, C);
  double tau = T[0] * C[0] + T[1] * C[1] + T[2] * C[2];
  double t2 = tau * tau, t4 = t2 * t2;
  double g = 1.0 + 3.0 / t4;
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 3; j++)
      for (int l = 0; l < 3; l++) Hkk[9 * k + 3 * j + l] = g * C[3 * k + j] * C[3 * k + l];
}

HX_METRIC_DERIVED_H(hx_m318)
