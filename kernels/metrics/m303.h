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

/* hx_m303_dP split in two for a caller that applies H(T) many times at one T (the CUDA column
   kernel of the Hessian action): hx_m303_abg once per T (the cube root and the divisions), then
   hx_m303_dP_abg per dT; the same doubles as hx_m303_dP. */
static inline HX_HD void hx_m303_abg(const double *T, double *abg) {
  hx_inv3 v;
  hx_m303_inv(T, &v);
  hx_inv_ddI1b_abg(&v, abg);
}
static inline HX_HD void hx_m303_dP_abg(const double *T, const double *abg, const double *dT, double *dP) {
  double C[9];
  hx_m3_cof(T, C);
  hx_inv_ddI1b_dT_abg(T, C, abg, dT, dP);
  for (int i = 0; i < 9; i++) dP[i] *= 1.0 / 3.0;
}

/* H_kjkl in closed form, the Jacobi diagonal's 27 entries at the cost of one dP: hx_m303_dP with
   dT = e_k e_j^T has C:dT = C_kj, T:dT = T_kj and (C dT^T C)_kl = C_kj C_kl, so
   H_kjkl = (1/3){a[(2/3) C_kj C_kl + C_kj C_kl] + b delta_jl + g (T_kj C_kl + C_kj T_kl)}
   (a, b, g of hx_inv_ddI1b_dT), evaluated in the order dP evaluates it: the same doubles as
   the nine dP calls of HX_METRIC_DERIVED (the terms it drops are exact zeros). */
static inline HX_HD void hx_m303_hkk(const double *T, double par, double *Hkk) {
  (void)par;
  hx_inv3 v;
  hx_m303_inv(T, &v);
  double t13 = hx_cbrt(v.tau), t23 = t13 * t13;
  double a = (2.0 / 3.0) * v.I1 / (v.tau * v.tau * t23);
  double b = 2.0 / t23;
  double g = -(4.0 / 3.0) / (v.tau * t23);
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 3; j++) {
      double ckj = v.C[3 * k + j], tkj = T[3 * k + j];
      for (int l = 0; l < 3; l++) {
        double ckl = v.C[3 * k + l];
        Hkk[9 * k + 3 * j + l] =
            (a * ((2.0 / 3.0) * ckj * ckl + ckj * ckl) + (j == l ? b : 0.0) + g * (tkj * ckl + ckj * T[3 * k + l])) * (1.0 / 3.0);
      }
    }
}

HX_METRIC_DERIVED_H(hx_m303)
