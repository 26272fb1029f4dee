/* mu_321 = I1 + I2/I3 - 6 = |T - T^{-T}|^2: 3D shape+size metric, barrier, invex
   (MFEM numbering). par unused.
   P  = 2T + dI2/tau^2 - (2 I2/tau^3) C
   dP = 2dT + (ddI2:dT)/tau^2 - (2/tau^3)[(C:dT) dI2 + (dI2:dT) C]
        + (6 I2/tau^4)(C:dT) C - (2 I2/tau^3) dC */
#pragma once
#include "hx_invariants.h"

static inline HX_HD double hx_m321_mu(const double *T, double par) {
  (void)par;
  hx_inv3 v;
  hx_inv3_compute(T, &v);
  return v.I1 + v.I2 / (v.tau * v.tau) - 6.0;
}

static inline HX_HD void hx_m321_P(const double *T, double par, double *P) {
  (void)par;
  hx_inv3 v;
  hx_inv3_compute(T, &v);
  double dI2[9];
  hx_inv_dI2(T, &v, dI2);
  double t2 = v.tau * v.tau;
  for (int i = 0; i < 9; i++) P[i] = 2.0 * T[i] + dI2[i] / t2 - 2.0 * v.I2 / (t2 * v.tau) * v.C[i];
}

static inline HX_HD void hx_m321_dP(const double *T, double par, const double *dT, double *dP) {
  (void)par;
  hx_inv3 v;
  hx_inv3_compute(T, &v);
  double dI2[9], dd[9], dC[9];
  hx_inv_dI2(T, &v, dI2);
  hx_inv_ddI2_dT(T, &v, dT, dd);
  hx_inv_dC(v.C, v.tau, dT, dC);
  double t2 = v.tau * v.tau, t3 = t2 * v.tau, t4 = t2 * t2;
  double cd = hx_m3_ddot(v.C, dT), id = hx_m3_ddot(dI2, dT);
  for (int i = 0; i < 9; i++)
    dP[i] = 2.0 * dT[i] + dd[i] / t2 - (2.0 / t3) * (cd * dI2[i] + id * v.C[i]) + (6.0 * v.I2 / t4) * cd * v.C[i] -
            (2.0 * v.I2 / t3) * dC[i];
}

HX_METRIC_DERIVED(hx_m321)
