/* mu_1360 = f / (2 (tau - beta)), f = (I1 / 3)^(3/2) - tau = |T|^3 / 3^(3/2) - det T:
   hexpack's untangling metric, a shifted barrier around MFEM's non-barrier 3D shape metric
   mu_360. It is MFEM's TMOP_WorstCaseUntangleOptimizer_Metric with the "shifted" barrier
   (2 phi = 2 (tau - beta)) and no worst-case transform, which MFEM offers for 2D base metrics
   only; the shift follows Garanzha and Kaporin's shifted barrier. par = beta, the shift, set
   below the smallest det T of the mesh by the untangling solve (tmop/untangle.c) before every
   Newton step, so the energy is finite on an inverted mesh; beta = 0 gives mu_304 / 2.

   f >= 0 for every T (the arithmetic-geometric mean inequality on the singular values:
   (|T|^2 / 3)^(3/2) >= |det T|), f = 0 only for T = s R with R a rotation, s >= 0. So mu_1360
   >= 0 wherever tau > beta, and an inverted T (tau < 0) has f > |tau| + (I1 / 3)^(3/2): the
   energy drives det T up against the barrier at beta.

   With s = (I1 / 3)^(1/2), d = tau - beta, C = cof T and dC the directional derivative of C
   (a polynomial in T: no division by tau, which may be 0 here):
     df = s T - C,  ddf:dT = s dT + (T:dT) / (3 s) T - dC
     P  = df / (2 d) - f C / (2 d^2)
     dP = ddf:dT / (2 d) - [(C:dT) df + (df:dT) C + f dC] / (2 d^2) + f (C:dT) C / d^3 */
#pragma once
#include "hx_invariants.h"

/* dC = d cof(T)[dT]: each 2 x 2 minor's product rule */
static inline HX_HD void hx_m1360_dcof(const double *T, const double *D, double *R) {
#define HX_MIX_(a, b, c, d) (T[a] * D[b] + D[a] * T[b] - T[c] * D[d] - D[c] * T[d])
  R[0] = HX_MIX_(4, 8, 5, 7);
  R[1] = HX_MIX_(5, 6, 3, 8);
  R[2] = HX_MIX_(3, 7, 4, 6);
  R[3] = HX_MIX_(2, 7, 1, 8);
  R[4] = HX_MIX_(0, 8, 2, 6);
  R[5] = HX_MIX_(1, 6, 0, 7);
  R[6] = HX_MIX_(1, 5, 2, 4);
  R[7] = HX_MIX_(2, 3, 0, 5);
  R[8] = HX_MIX_(0, 4, 1, 3);
#undef HX_MIX_
}

static inline HX_HD double hx_m1360_mu(const double *T, double par) {
  double tau = hx_m3_det(T), I1 = hx_m3_ddot(T, T);
  double s = sqrt(I1 / 3.0);
  /* the barrier: +infinity where det T <= beta, so an energy summed over such a point is
     infinite and the line search refuses it (tau - beta > 0 is its validity rule) */
  return tau > par ? (s * s * s - tau) / (2.0 * (tau - par)) : INFINITY;
}

static inline HX_HD void hx_m1360_P(const double *T, double par, double *P) {
  double C[9];
  hx_m3_cof(T, C);
  double tau = T[0] * C[0] + T[1] * C[1] + T[2] * C[2], I1 = hx_m3_ddot(T, T);
  double s = sqrt(I1 / 3.0), f = s * s * s - tau, d = tau - par;
  double a = 1.0 / (2.0 * d), b = f / (2.0 * d * d);
  for (int i = 0; i < 9; i++) P[i] = a * (s * T[i] - C[i]) - b * C[i];
}

static inline HX_HD void hx_m1360_dP(const double *T, double par, const double *dT, double *dP) {
  double C[9], dC[9], df[9];
  hx_m3_cof(T, C);
  hx_m1360_dcof(T, dT, dC);
  double tau = T[0] * C[0] + T[1] * C[1] + T[2] * C[2], I1 = hx_m3_ddot(T, T);
  double s = sqrt(I1 / 3.0), f = s * s * s - tau, d = tau - par;
  for (int i = 0; i < 9; i++) df[i] = s * T[i] - C[i];
  double tdt = hx_m3_ddot(T, dT), cdt = hx_m3_ddot(C, dT), dfdt = hx_m3_ddot(df, dT);
  double ts = s > 0 ? tdt / (3.0 * s) : 0.0; /* T -> 0: the term (T:dT) T / (3 s) -> 0 */
  double a = 1.0 / (2.0 * d), b = 1.0 / (2.0 * d * d), c = f / (d * d * d);
  for (int i = 0; i < 9; i++) {
    double ddf = s * dT[i] + ts * T[i] - dC[i];
    dP[i] = a * ddf - b * (cdt * df[i] + dfdt * C[i] + f * dC[i]) + c * cdt * C[i];
  }
}

HX_METRIC_DERIVED(hx_m1360)
