/* 3x3 matrix helpers and the invariants of TMOP (I1b, I2b, tau and their derivatives), as point
   functions usable from C and CUDA (HX_HD).

   Matrices are 9 doubles, row-major: T[3*i + j] = T_ij. C = cof(T) = tau T^{-T},
   tau = det T. "A:B" is the Frobenius product sum_ij A_ij B_ij. Every metric
   header mNNN.h builds on these. */
#pragma once
#include <math.h>

#include "hx_types.h"

/* Real cube root for x > 0 to full double precision: a bit-level first guess
   (about 3 % off) and three Halley steps (cubic convergence). Several times
   cheaper than libm's cbrt, which dominated the on-the-fly Hessian action. */
static inline HX_HD double hx_cbrt(double x) {
  if (!(x > 0)) return cbrt(x);
  union {
    double d;
    unsigned long long u;
  } v;
  v.d = x;
  v.u = v.u / 3 + 0x2A9F7893782DA1CEull; /* exponent / 3 and a tuned mantissa offset */
  double y = v.d;
  for (int k = 0; k < 3; k++) {
    double y3 = y * y * y;
    y = y * (y3 + 2.0 * x) / (2.0 * y3 + x);
  }
  return y;
}

static inline HX_HD double hx_m3_det(const double *T) {
  return T[0] * (T[4] * T[8] - T[5] * T[7]) - T[1] * (T[3] * T[8] - T[5] * T[6]) + T[2] * (T[3] * T[7] - T[4] * T[6]);
}

/* C = cof(T): C_ij = (-1)^(i+j) minor_ij, so that T^{-1} = C^T / det T. */
static inline HX_HD void hx_m3_cof(const double *T, double *C) {
  C[0] = T[4] * T[8] - T[5] * T[7];
  C[1] = T[5] * T[6] - T[3] * T[8];
  C[2] = T[3] * T[7] - T[4] * T[6];
  C[3] = T[2] * T[7] - T[1] * T[8];
  C[4] = T[0] * T[8] - T[2] * T[6];
  C[5] = T[1] * T[6] - T[0] * T[7];
  C[6] = T[1] * T[5] - T[2] * T[4];
  C[7] = T[2] * T[3] - T[0] * T[5];
  C[8] = T[0] * T[4] - T[1] * T[3];
}

static inline HX_HD double hx_m3_ddot(const double *A, const double *B) {
  double s = 0;
  for (int i = 0; i < 9; i++) s += A[i] * B[i];
  return s;
}

/* R = A B */
static inline HX_HD void hx_m3_mul(const double *A, const double *B, double *R) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}
/* R = A B^T */
static inline HX_HD void hx_m3_mul_abt(const double *A, const double *B, double *R) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[3 * i + j] = A[3 * i] * B[3 * j] + A[3 * i + 1] * B[3 * j + 1] + A[3 * i + 2] * B[3 * j + 2];
}
/* R = A^T B */
static inline HX_HD void hx_m3_mul_atb(const double *A, const double *B, double *R) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

/* dC = d cof(T)[dT] = ddI3b:dT = (1/tau)[(C:dT) C - C dT^T C] */
static inline HX_HD void hx_inv_dC(const double *C, double tau, const double *dT, double *dC) {
  double M[9], CdTt_C[9];
  hx_m3_mul_abt(C, dT, M); /* C dT^T */
  hx_m3_mul(M, C, CdTt_C); /* C dT^T C */
  double cd = hx_m3_ddot(C, dT);
  for (int i = 0; i < 9; i++) dC[i] = (cd * C[i] - CdTt_C[i]) / tau;
}

/* Everything the shape invariants need at one point. */
typedef struct hx_inv3 {
  double tau;    /* det T */
  double C[9];   /* cof(T) */
  double I1;     /* |T|^2 */
  double I2;     /* (I1^2 - |T T^T|^2)/2 = |C|^2 */
  double TTt[9]; /* T T^T */
} hx_inv3;

static inline HX_HD void hx_inv3_compute(const double *T, hx_inv3 *v) {
  hx_m3_cof(T, v->C);
  v->tau = T[0] * v->C[0] + T[1] * v->C[1] + T[2] * v->C[2];
  v->I1 = hx_m3_ddot(T, T);
  hx_m3_mul_abt(T, T, v->TTt);
  v->I2 = 0.5 * (v->I1 * v->I1 - hx_m3_ddot(v->TTt, v->TTt));
}

/* dI1b = 2 tau^(-2/3) [T - (I1/(3 tau)) C],  I1b = I1 tau^(-2/3) */
static inline HX_HD void hx_inv_dI1b(const double *T, const hx_inv3 *v, double *d) {
  double t23 = 1.0 / hx_cbrt(v->tau * v->tau);
  double c = v->I1 / (3.0 * v->tau);
  for (int i = 0; i < 9; i++) d[i] = 2.0 * t23 * (T[i] - c * v->C[i]);
}

/* dI2 = 2 I1 T - 2 T T^T T */
static inline HX_HD void hx_inv_dI2(const double *T, const hx_inv3 *v, double *d) {
  double M[9];
  hx_m3_mul(v->TTt, T, M);
  for (int i = 0; i < 9; i++) d[i] = 2.0 * v->I1 * T[i] - 2.0 * M[i];
}

/* dI2b = tau^(-4/3) [dI2 - (4 I2/(3 tau)) C],  I2b = I2 tau^(-4/3) */
static inline HX_HD void hx_inv_dI2b(const double *dI2, const hx_inv3 *v, double *d) {
  double t43 = 1.0 / (v->tau * hx_cbrt(v->tau));
  double c = 4.0 * v->I2 / (3.0 * v->tau);
  for (int i = 0; i < 9; i++) d[i] = t43 * (dI2[i] - c * v->C[i]);
}

/* ddI1b:dT = a[(2/3)(C:dT) C + C dT^T C] + b dT + g[(T:dT) C + (C:dT) T],
   a = (2/3) I1 tau^(-8/3), b = 2 tau^(-2/3), g = -(4/3) tau^(-5/3).
   hx_inv_ddI1b_abg: a, b, g, which depend on T alone (a cube root and three divisions). */
static inline HX_HD void hx_inv_ddI1b_abg(const hx_inv3 *v, double *abg) {
  double t13 = hx_cbrt(v->tau), t23 = t13 * t13;
  abg[0] = (2.0 / 3.0) * v->I1 / (v->tau * v->tau * t23);
  abg[1] = 2.0 / t23;
  abg[2] = -(4.0 / 3.0) / (v->tau * t23);
}
/* ddI1b:dT from T, its cofactor C and hx_inv_ddI1b_abg's scalars */
static inline HX_HD void hx_inv_ddI1b_dT_abg(const double *T, const double *C, const double *abg, const double *dT, double *R) {
  double a = abg[0], b = abg[1], g = abg[2];
  double M[9], CdTtC[9];
  hx_m3_mul_abt(C, dT, M);
  hx_m3_mul(M, C, CdTtC);
  double cd = hx_m3_ddot(C, dT), td = hx_m3_ddot(T, dT);
  for (int i = 0; i < 9; i++) R[i] = a * ((2.0 / 3.0) * cd * C[i] + CdTtC[i]) + b * dT[i] + g * (td * C[i] + cd * T[i]);
}
static inline HX_HD void hx_inv_ddI1b_dT(const double *T, const hx_inv3 *v, const double *dT, double *R) {
  double abg[3];
  hx_inv_ddI1b_abg(v, abg);
  hx_inv_ddI1b_dT_abg(T, v->C, abg, dT, R);
}

/* ddI2:dT = 2 I1 dT + 4 (T:dT) T - 2 dT T^T T - 2 T dT^T T - 2 T T^T dT */
static inline HX_HD void hx_inv_ddI2_dT(const double *T, const hx_inv3 *v, const double *dT, double *R) {
  double TtT[9], M1[9], M2[9], M3[9], dTtT[9];
  hx_m3_mul_atb(T, T, TtT);
  hx_m3_mul(dT, TtT, M1);     /* dT T^T T */
  hx_m3_mul_atb(dT, T, dTtT); /* dT^T T */
  hx_m3_mul(T, dTtT, M2);     /* T dT^T T */
  hx_m3_mul(v->TTt, dT, M3);  /* T T^T dT */
  double td = hx_m3_ddot(T, dT);
  for (int i = 0; i < 9; i++) R[i] = 2.0 * v->I1 * dT[i] + 4.0 * td * T[i] - 2.0 * (M1[i] + M2[i] + M3[i]);
}

/* ddI2b:dT = (16/9) tau^(-10/3) I2 (C:dT) C + (4/3) tau^(-10/3) I2 (C dT^T C)
              - (4/3) tau^(-7/3) [(C:dT) dI2 + (dI2:dT) C] + tau^(-4/3) (ddI2:dT) */
static inline HX_HD void hx_inv_ddI2b_dT(const double *T, const hx_inv3 *v, const double *dI2, const double *dT, double *R) {
  double t13 = hx_cbrt(v->tau);
  double t43 = v->tau * t13, t73 = t43 * v->tau, t103 = t73 * v->tau;
  double M[9], CdTtC[9], dd[9];
  hx_m3_mul_abt(v->C, dT, M);
  hx_m3_mul(M, v->C, CdTtC);
  hx_inv_ddI2_dT(T, v, dT, dd);
  double cd = hx_m3_ddot(v->C, dT), id = hx_m3_ddot(dI2, dT);
  for (int i = 0; i < 9; i++)
    R[i] = (16.0 / 9.0) * v->I2 * cd * v->C[i] / t103 + (4.0 / 3.0) * v->I2 * CdTtC[i] / t103 -
           (4.0 / 3.0) * (cd * dI2[i] + id * v->C[i]) / t73 + dd[i] / t43;
}

/* From any metric's Hessian action dP(T, dT) (a function name NAME_dP with the
   signature (const double *T, double par, const double *dT, double *dP)) build:
   NAME_H:   the full Hessian, H[9*(3i+j) + 3k+l] = H_ijkl (81 doubles, MFEM's stored form);
   NAME_hkk: the diagonal blocks used by the Jacobi preconditioner,
             Hkk[9k + 3j + l] = H_kjkl (27 doubles).
   HX_METRIC_DERIVED_H(NAME) gives NAME_H alone, for a metric that writes its own NAME_hkk. */
#define HX_METRIC_DERIVED_H(NAME)                                                                                                \
  static inline HX_HD void NAME##_H(const double *T, double par, double *H) {                                                    \
    for (int ij = 0; ij < 9; ij++) {                                                                                             \
      double E[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};                                                                                 \
      E[ij] = 1.0;                                                                                                               \
      NAME##_dP(T, par, E, H + 9 * ij);                                                                                          \
    }                                                                                                                            \
  }

#define HX_METRIC_DERIVED(NAME)                                                                                                  \
  HX_METRIC_DERIVED_H(NAME)                                                                                                      \
  static inline HX_HD void NAME##_hkk(const double *T, double par, double *Hkk) {                                                \
    for (int k = 0; k < 3; k++)                                                                                                  \
      for (int j = 0; j < 3; j++) {                                                                                              \
        double E[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, R[9];                                                                         \
        E[3 * k + j] = 1.0;                                                                                                      \
        NAME##_dP(T, par, E, R);                                                                                                 \
        for (int l = 0; l < 3; l++) Hkk[9 * k + 3 * j + l] = R[3 * k + l];                                                       \
      }                                                                                                                          \
  }
