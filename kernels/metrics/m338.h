/* mu_338 = mu_302 + lambda mu_318: balanced 3D shape+size metric (MFEM
   numbering). par = lambda; MFEM's balanced weight is (4/9 + 3)/2 = 31/18. */
#pragma once
#include "m302.h"
#include "m318.h"

static inline HX_HD double hx_m338_mu(const double *T, double par) { return hx_m302_mu(T, 0) + par * hx_m318_mu(T, 0); }

static inline HX_HD void hx_m338_P(const double *T, double par, double *P) {
  double a[9], b[9];
  hx_m302_P(T, 0, a);
  hx_m318_P(T, 0, b);
  for (int i = 0; i < 9; i++) P[i] = a[i] + par * b[i];
}

static inline HX_HD void hx_m338_dP(const double *T, double par, const double *dT, double *dP) {
  double a[9], b[9];
  hx_m302_dP(T, 0, dT, a);
  hx_m318_dP(T, 0, dT, b);
  for (int i = 0; i < 9; i++) dP[i] = a[i] + par * b[i];
}

HX_METRIC_DERIVED(hx_m338)
