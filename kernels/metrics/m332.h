/* mu_332 = (1 - gamma) mu_302 + gamma mu_315: 3D shape+size metric (MFEM
   numbering). par = gamma (mesh-optimizer uses 0.5). */
#pragma once
#include "m302.h"
#include "m315.h"

static inline HX_HD double hx_m332_mu(const double *T, double par) {
  return (1.0 - par) * hx_m302_mu(T, 0) + par * hx_m315_mu(T, 0);
}

static inline HX_HD void hx_m332_P(const double *T, double par, double *P) {
  double a[9], b[9];
  hx_m302_P(T, 0, a);
  hx_m315_P(T, 0, b);
  for (int i = 0; i < 9; i++) P[i] = (1.0 - par) * a[i] + par * b[i];
}

static inline HX_HD void hx_m332_dP(const double *T, double par, const double *dT, double *dP) {
  double a[9], b[9];
  hx_m302_dP(T, 0, dT, a);
  hx_m315_dP(T, 0, dT, b);
  for (int i = 0; i < 9; i++) dP[i] = (1.0 - par) * a[i] + par * b[i];
}

HX_METRIC_DERIVED(hx_m332)
