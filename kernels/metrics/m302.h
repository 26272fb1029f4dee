/* mu_302 = I1b I2b / 9 - 1 = |T|^2 |T^{-1}|^2 / 9 - 1: 3D shape metric, barrier,
   polyconvex (MFEM numbering). par is unused.
   P  = (1/9)(I1b dI2b + I2b dI1b)
   dP = (1/9)[(dI2b:dT) dI1b + (dI1b:dT) dI2b + I1b (ddI2b:dT) + I2b (ddI1b:dT)] */
#pragma once
#include "hx_invariants.h"

static inline HX_HD double hx_m302_mu(const double *T, double par) {
  (void)par;
  hx_inv3 v;
  hx_inv3_compute(T, &v);
  /* I1b I2b = I1 I2 tau^(-2) */
  return v.I1 * v.I2 / (9.0 * v.tau * v.tau) - 1.0;
}

static inline HX_HD void hx_m302_P(const double *T, double par, double *P) {
  (void)par;
  hx_inv3 v;
  hx_inv3_compute(T, &v);
  double d1[9], dI2[9], d2[9];
  hx_inv_dI1b(T, &v, d1);
  hx_inv_dI2(T, &v, dI2);
  hx_inv_dI2b(dI2, &v, d2);
  double t23 = hx_cbrt(v.tau * v.tau);
  double I1b = v.I1 / t23, I2b = v.I2 / (t23 * t23);
  for (int i = 0; i < 9; i++) P[i] = (I1b * d2[i] + I2b * d1[i]) / 9.0;
}

static inline HX_HD void hx_m302_dP(const double *T, double par, const double *dT, double *dP) {
  (void)par;
  hx_inv3 v;
  hx_inv3_compute(T, &v);
  double d1[9], dI2[9], d2[9], h1[9], h2[9];
  hx_inv_dI1b(T, &v, d1);
  hx_inv_dI2(T, &v, dI2);
  hx_inv_dI2b(dI2, &v, d2);
  hx_inv_ddI1b_dT(T, &v, dT, h1);
  hx_inv_ddI2b_dT(T, &v, dI2, dT, h2);
  double t23 = hx_cbrt(v.tau * v.tau);
  double I1b = v.I1 / t23, I2b = v.I2 / (t23 * t23);
  double a = hx_m3_ddot(d2, dT), b = hx_m3_ddot(d1, dT);
  for (int i = 0; i < 9; i++) dP[i] = (a * d1[i] + b * d2[i] + I1b * h2[i] + I2b * h1[i]) / 9.0;
}

HX_METRIC_DERIVED(hx_m302)
