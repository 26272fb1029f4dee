/* Run-time dispatch over the metrics with point functions: one switch on the
   MFEM number, usable from C loops and CUDA kernels (HX_HD). A kernel that is
   templated on the metric can call hx_mNNN_* directly instead.

   For every metric id in {302, 303, 315, 318, 321, 332, 338, 1360} and a scalar
   parameter par (gamma for 332, lambda for 338, the shift beta for 1360, unused otherwise):
     hx_metric_mu(id, par, T)            mu(T)
     hx_metric_P(id, par, T, P)          P = dmu/dT                    (9)
     hx_metric_dP(id, par, T, dT, dP)    dP = H:dT, from T alone       (9)
     hx_metric_hkk(id, par, T, Hkk)      Hkk[9k+3j+l] = H_kjkl         (27)
     hx_metric_H(id, par, T, H)          H[9(3i+j)+3k+l] = H_ijkl      (81)
   An unknown id gives NAN / zeros (the registry in hx_metrics.h rejects it first). */
#pragma once
#include "m302.h"
#include "m303.h"
#include "m315.h"
#include "m318.h"
#include "m321.h"
#include "m332.h"
#include "m338.h"
#include "m1360.h"

#define HX_METRIC_SWITCH(id, CALL)                                                                                               \
  switch (id) {                                                                                                                  \
  case 302: CALL(hx_m302); break;                                                                                                \
  case 303: CALL(hx_m303); break;                                                                                                \
  case 315: CALL(hx_m315); break;                                                                                                \
  case 318: CALL(hx_m318); break;                                                                                                \
  case 321: CALL(hx_m321); break;                                                                                                \
  case 332: CALL(hx_m332); break;                                                                                                \
  case 338: CALL(hx_m338); break;                                                                                                \
  case 1360: CALL(hx_m1360); break;                                                                                              \
  default: break;                                                                                                                \
  }

static inline HX_HD double hx_metric_mu(int id, double par, const double *T) {
  double r = NAN;
#define HX_MU_(N) r = N##_mu(T, par)
  HX_METRIC_SWITCH(id, HX_MU_)
#undef HX_MU_
  return r;
}

static inline HX_HD void hx_metric_P(int id, double par, const double *T, double *P) {
  for (int i = 0; i < 9; i++) P[i] = 0;
#define HX_P_(N) N##_P(T, par, P)
  HX_METRIC_SWITCH(id, HX_P_)
#undef HX_P_
}

static inline HX_HD void hx_metric_dP(int id, double par, const double *T, const double *dT, double *dP) {
  for (int i = 0; i < 9; i++) dP[i] = 0;
#define HX_DP_(N) N##_dP(T, par, dT, dP)
  HX_METRIC_SWITCH(id, HX_DP_)
#undef HX_DP_
}

static inline HX_HD void hx_metric_hkk(int id, double par, const double *T, double *Hkk) {
  for (int i = 0; i < 27; i++) Hkk[i] = 0;
#define HX_HKK_(N) N##_hkk(T, par, Hkk)
  HX_METRIC_SWITCH(id, HX_HKK_)
#undef HX_HKK_
}

static inline HX_HD void hx_metric_H(int id, double par, const double *T, double *H) {
  for (int i = 0; i < 81; i++) H[i] = 0;
#define HX_H_(N) N##_H(T, par, H)
  HX_METRIC_SWITCH(id, HX_H_)
#undef HX_H_
}
