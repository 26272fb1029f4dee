/* t301: for every registered metric, P = dmu/dT against central finite
   differences of mu, and the Hessian action dP = H:dT (contracted formulas)
   against finite differences of P, at random T with det T > 0; the stored 81-entry
   H and the diagonal blocks H_kjkl agree with dP; H is symmetric. Relative errors
   must be below 1e-6. The untangling metric 1360 also at inverted T (det T < 0) with its
   shift beta below det T, and its barrier (+infinity where det T <= beta). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hx_invariants.h"
#include "hx_metric_point.h"
#include "hx_metrics.h"

static double rnd(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffffff) / (double)0x1000000;
}

/* a random T with det T > 0, not too close to singular */
static void random_T(unsigned *s, double *T) {
  do {
    for (int i = 0; i < 9; i++) T[i] = (i % 4 == 0 ? 1.0 : 0.0) + 0.6 * (rnd(s) - 0.5);
    double sc = 0.3 + 2.0 * rnd(s);
    for (int i = 0; i < 9; i++) T[i] *= sc;
  } while (hx_m3_det(T) < 0.05);
}

static double norm9(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * a[i];
  return sqrt(s);
}

int main(void) {
  unsigned seed = 12345;
  int fail = 0;
  for (const hx_metric_info *m = hx_metrics(); m->id; m++) {
    double err_P = 0, err_dP = 0, err_H = 0, err_hkk = 0, err_sym = 0, err_disp = 0;
    for (int trial = 0; trial < 20; trial++) {
      double T[9], dT[9], P[9], dP[9];
      random_T(&seed, T);
      for (int i = 0; i < 9; i++) dT[i] = rnd(&seed) - 0.5;
      double par = m->param;
      m->P(T, par, P);
      m->dP(T, par, dT, dP);
      /* P vs FD of mu, per entry (4th-order central differences) */
      double h = 1e-4 * sqrt(hx_m3_ddot(T, T)), Pfd[9];
      for (int i = 0; i < 9; i++) {
        double Tp[9], Tm[9], Tp2[9], Tm2[9];
        for (int k = 0; k < 9; k++) Tp[k] = Tm[k] = Tp2[k] = Tm2[k] = T[k];
        Tp[i] += h;
        Tm[i] -= h;
        Tp2[i] += 2 * h;
        Tm2[i] -= 2 * h;
        Pfd[i] = (8 * (m->mu(Tp, par) - m->mu(Tm, par)) - (m->mu(Tp2, par) - m->mu(Tm2, par))) / (12 * h);
      }
      double d[9];
      for (int i = 0; i < 9; i++) d[i] = P[i] - Pfd[i];
      double e = norm9(d, 9) / fmax(norm9(P, 9), 1e-12);
      if (e > err_P) err_P = e;
      /* dP vs directional FD of P */
      double Pp[9], Pm[9], Pp2[9], Pm2[9], Tp[9], Tm[9], Tp2[9], Tm2[9];
      for (int k = 0; k < 9; k++) {
        Tp[k] = T[k] + h * dT[k];
        Tm[k] = T[k] - h * dT[k];
        Tp2[k] = T[k] + 2 * h * dT[k];
        Tm2[k] = T[k] - 2 * h * dT[k];
      }
      m->P(Tp, par, Pp);
      m->P(Tm, par, Pm);
      m->P(Tp2, par, Pp2);
      m->P(Tm2, par, Pm2);
      for (int i = 0; i < 9; i++) d[i] = dP[i] - (8 * (Pp[i] - Pm[i]) - (Pp2[i] - Pm2[i])) / (12 * h);
      e = norm9(d, 9) / fmax(norm9(dP, 9), 1e-12);
      if (e > err_dP) err_dP = e;
      /* full H: H:dT == dP, symmetric; hkk == its diagonal blocks, bitwise (303 has its own closed form) */
      double H[81], hkk[27], r[9];
      m->H(T, par, H);
      m->hkk(T, par, hkk);
      for (int kl = 0; kl < 9; kl++) {
        r[kl] = 0;
        for (int ij = 0; ij < 9; ij++) r[kl] += H[9 * ij + kl] * dT[ij];
      }
      for (int i = 0; i < 9; i++) d[i] = r[i] - dP[i];
      e = norm9(d, 9) / fmax(norm9(dP, 9), 1e-12);
      if (e > err_H) err_H = e;
      double hn = norm9(H, 81);
      for (int a = 0; a < 9; a++)
        for (int b = 0; b < 9; b++) err_sym = fmax(err_sym, fabs(H[9 * a + b] - H[9 * b + a]) / hn);
      for (int k = 0; k < 3; k++)
        for (int j = 0; j < 3; j++)
          for (int l = 0; l < 3; l++) err_hkk = fmax(err_hkk, fabs(hkk[9 * k + 3 * j + l] - H[9 * (3 * k + j) + 3 * k + l]) / hn);
      /* the run-time dispatch gives the same numbers as the registry entry */
      double P2[9];
      hx_metric_P(m->id, par, T, P2);
      for (int i = 0; i < 9; i++) err_disp = fmax(err_disp, fabs(P2[i] - P[i]));
      err_disp = fmax(err_disp, fabs(hx_metric_mu(m->id, par, T) - m->mu(T, par)));
    }
    int ok = err_P < 1e-6 && err_dP < 1e-6 && err_H < 1e-12 && err_sym < 1e-12 && err_hkk == 0 && err_disp == 0;
    printf("metric %d P %s dP %s H %s\n", m->id, err_P < 1e-6 ? "ok" : "BAD", err_dP < 1e-6 ? "ok" : "BAD", ok ? "ok" : "BAD");
    fprintf(stderr, "metric %d: rel err P %.2e dP %.2e H:dT %.2e sym %.2e hkk %.2e\n", m->id, err_P, err_dP, err_H, err_sym,
            err_hkk);
    if (!ok) fail = 1;
  }
  /* the untangling metric 1360 where it works: inverted T (det T < 0) above the shift beta, and
     beta < 0 < det T; P and dP against finite differences as above */
  {
    double err_P = 0, err_dP = 0;
    for (int trial = 0; trial < 40; trial++) {
      double T[9], dT[9], P[9], dP[9], Pfd[9], d[9];
      random_T(&seed, T);
      if (trial % 2) /* mirror: det T < 0 */
        for (int j = 0; j < 3; j++) T[j] = -T[j];
      for (int i = 0; i < 9; i++) dT[i] = rnd(&seed) - 0.5;
      double tau = hx_m3_det(T), par = tau - (0.05 + rnd(&seed)) * fabs(tau); /* beta < tau */
      hx_m1360_P(T, par, P);
      hx_m1360_dP(T, par, dT, dP);
      double h = 1e-5 * sqrt(hx_m3_ddot(T, T));
      for (int i = 0; i < 9; i++) {
        double Tp[9], Tm[9], Tp2[9], Tm2[9];
        for (int k = 0; k < 9; k++) Tp[k] = Tm[k] = Tp2[k] = Tm2[k] = T[k];
        Tp[i] += h, Tm[i] -= h, Tp2[i] += 2 * h, Tm2[i] -= 2 * h;
        Pfd[i] = (8 * (hx_m1360_mu(Tp, par) - hx_m1360_mu(Tm, par)) - (hx_m1360_mu(Tp2, par) - hx_m1360_mu(Tm2, par))) / (12 * h);
      }
      for (int i = 0; i < 9; i++) d[i] = P[i] - Pfd[i];
      err_P = fmax(err_P, norm9(d, 9) / fmax(norm9(P, 9), 1e-12));
      double Pp[9], Pm[9], Pp2[9], Pm2[9], Tp[9], Tm[9], Tp2[9], Tm2[9];
      for (int k = 0; k < 9; k++) {
        Tp[k] = T[k] + h * dT[k], Tm[k] = T[k] - h * dT[k];
        Tp2[k] = T[k] + 2 * h * dT[k], Tm2[k] = T[k] - 2 * h * dT[k];
      }
      hx_m1360_P(Tp, par, Pp), hx_m1360_P(Tm, par, Pm), hx_m1360_P(Tp2, par, Pp2), hx_m1360_P(Tm2, par, Pm2);
      for (int i = 0; i < 9; i++) d[i] = dP[i] - (8 * (Pp[i] - Pm[i]) - (Pp2[i] - Pm2[i])) / (12 * h);
      err_dP = fmax(err_dP, norm9(d, 9) / fmax(norm9(dP, 9), 1e-12));
    }
    /* the barrier: +infinity at and below the shift */
    double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    int bar = isinf(hx_m1360_mu(I3, 1.0)) && isinf(hx_m1360_mu(I3, 2.0)) && hx_m1360_mu(I3, 0.5) == 0.0;
    int ok = err_P < 1e-6 && err_dP < 1e-6 && bar;
    printf("metric 1360 inverted T, shifted: P %s dP %s barrier %s\n", err_P < 1e-6 ? "ok" : "BAD", err_dP < 1e-6 ? "ok" : "BAD",
           bar ? "ok" : "BAD");
    fprintf(stderr, "metric 1360 (det T < 0 half the time, beta < det T): rel err P %.2e dP %.2e\n", err_P, err_dP);
    if (!ok) fail = 1;
  }
  /* values that are known exactly: mu = 0 at T = I for every metric */
  double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (const hx_metric_info *m = hx_metrics(); m->id; m++)
    if (fabs(m->mu(I, m->param)) > 1e-14) {
      printf("metric %d mu(I) = %g != 0\n", m->id, m->mu(I, m->param));
      fail = 1;
    }
  /* mu_303 of a stretched cube diag(2,1,1): |T|^2 = 6, det = 2: 6/(3 2^(2/3)) - 1 */
  double S[9] = {2, 0, 0, 0, 1, 0, 0, 0, 1};
  if (fabs(hx_m303_mu(S, 0) - (2.0 / cbrt(4.0) - 1.0)) > 1e-15) fail = 1;
  const hx_metric_info *mi;
  int rc = hx_metric_find(999, &mi);
  printf("unknown metric refused: %d\n", rc != 0);
  if (!rc) fail = 1;
  return fail;
}
