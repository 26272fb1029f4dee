/* mu_303 = I1b/3 - 1 = |T|^2 / (3 tau^(2/3)) - 1: 3D shape metric, barrier,
   polyconvex (MFEM numbering; the Kershaw benchmark metric). par is unused.
   P = (1/3) dI1b;  dP = H:dT = (1/3) ddI1b:dT. */
#pragma once
#include "hx_invariants.h"

static inline HX_HD double hx_m303_mu(const double *T, double par) {
  (void)par;
  double tau = hx_m3_det(T);
  return hx_m3_ddot(T, T) / (3.0 * hx_cbrt(tau * tau)) - 1.0;
}

/* only tau, C and I1 are needed by mu_303's derivatives (not T T^T, I2) */
static inline HX_HD void hx_m303_inv(const double *T, hx_inv3 *v) {
  hx_m3_cof(T, v->C);
  v->tau = T[0] * v->C[0] + T[1] * v->C[1] + T[2] * v->C[2];
  v->I1 = hx_m3_ddot(T, T);
}

static inline HX_HD void hx_m303_P(const double *T, double par, double *P) {
  (void)par;
  hx_inv3 v;
  hx_m303_inv(T, &v);
  hx_inv_dI1b(T, &v, P);
  for (int i = 0; i < 9; i++) P[i] *= 1.0 / 3.0;
}

static inline HX_HD void hx_m303_dP(const double *T, double par, const double *dT, double *dP) {
  (void)par;
  hx_inv3 v;
  hx_m303_inv(T, &v);
  hx_inv_ddI1b_dT(T, &v, dT, dP);
  for (int i = 0; i < 9; i++) dP[i] *= 1.0 / 3.0;
}

HX_METRIC_DERIVED(hx_m303)
