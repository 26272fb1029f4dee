#include "hx_basis.h"

#include <math.h>

#include "hx_error.h"

/* Legendre polynomial P_n(x) and its derivative on [-1,1] by the three-term recurrence. */
static void legendre(int n, double x, double *p, double *dp) {
  double p0 = 1.0, p1 = x;
  if (n == 0) {
    *p = 1.0;
    *dp = 0.0;
    return;
  }
  for (int k = 2; k <= n; k++) {
    double pk = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
    p0 = p1;
    p1 = pk;
  }
  *p = p1;
  /* P_n'(x) = n (x P_n - P_{n-1}) / (x^2 - 1), valid away from +-1 */
  *dp = n * (x * p1 - p0) / (x * x - 1.0);
}

int hx_gauss(int n, double *x, double *w) {
  HX_CHECK(n >= 1 && n <= HX_MAX_Q, HX_ERR_INPUT, "Gauss-Legendre rule needs 1..%d points, got %d", HX_MAX_Q, n);
  for (int i = 0; i < n; i++) {
    /* Newton on P_n from the Chebyshev-like initial guess, points descending in z */
    double z = cos(HX_PI * (i + 0.75) / (n + 0.5)), p, dp;
    for (int it = 0; it < 100; it++) {
      legendre(n, z, &p, &dp);
      double dz = p / dp;
      z -= dz;
      if (fabs(dz) < 1e-16) break;
    }
    legendre(n, z, &p, &dp);
    /* map [-1,1] -> [0,1], ascending; weights 2/((1-z^2) P'^2) scaled by 1/2 */
    x[n - 1 - i] = 0.5 * (1.0 + z);
    w[n - 1 - i] = 1.0 / ((1.0 - z * z) * dp * dp);
  }
  return HX_OK;
}

int hx_gll(int n, double *x, double *w) {
  HX_CHECK(n >= 2 && n <= HX_MAX_Q, HX_ERR_INPUT, "Gauss-Lobatto-Legendre rule needs 2..%d points, got %d", HX_MAX_Q, n);
  int N = n - 1;
  /* interior nodes are the roots of P_N'; Newton on (1-z^2) P_N' from Chebyshev-Gauss-Lobatto guesses */
  for (int i = 0; i < n; i++) {
    double z = -cos(HX_PI * i / N);
    if (i > 0 && i < N) {
      for (int it = 0; it < 100; it++) {
        /* q(z) = P_{N+1} - P_{N-1} has the GLL points as roots; q' = (2N+1) P_N */
        double pN, dpN, pNp1, dpNp1, pNm1, dpNm1;
        legendre(N, z, &pN, &dpN);
        legendre(N + 1, z, &pNp1, &dpNp1);
        legendre(N - 1, z, &pNm1, &dpNm1);
        double q = pNp1 - pNm1, dq = (2.0 * N + 1.0) * pN;
        double dz = q / dq;
        z -= dz;
        if (fabs(dz) < 1e-16) break;
      }
    }
    double pN, dpN;
    if (i == 0 || i == N) {
      pN = (i == 0 && (N % 2)) ? -1.0 : 1.0;
    } else {
      legendre(N, z, &pN, &dpN);
    }
    x[i] = 0.5 * (1.0 + z);
    /* w = 2/(N(N+1) P_N(z)^2) on [-1,1], halved for [0,1] */
    w[i] = 1.0 / (N * (N + 1.0) * pN * pN);
  }
  x[0] = 0.0;
  x[N] = 1.0;
  /* symmetrize to kill rounding asymmetry */
  for (int i = 0; i < n / 2; i++) {
    double a = 0.5 * (x[i] + 1.0 - x[N - i]);
    x[i] = a;
    x[N - i] = 1.0 - a;
    double ww = 0.5 * (w[i] + w[N - i]);
    w[i] = w[N - i] = ww;
  }
  if (n % 2) x[N / 2] = 0.5;
  return HX_OK;
}

int hx_quad_rule(int type, int n, double *x, double *w) {
  if (type == HX_QUAD_GLL) return hx_gll(n, x, w);
  if (type == HX_QUAD_GL) return hx_gauss(n, x, w);
  return HX_ERROR(HX_ERR_INPUT, "unknown quadrature type %d; known: 1 (GLL), 2 (Gauss-Legendre)", type);
}

int hx_quad_points_for_order(int type, int qo) {
  if (type == HX_QUAD_GLL) return (qo + 3 + 1) / 2;
  return (qo + 1 + 1) / 2;
}

void hx_lagrange_eval(int n, const double *nodes, double t, double *phi, double *dphi) {
  for (int a = 0; a < n; a++) {
    double num = 1.0, den = 1.0, dsum = 0.0;
    int at_node = -1;
    for (int b = 0; b < n; b++) {
      if (b == a) continue;
      num *= t - nodes[b];
      den *= nodes[a] - nodes[b];
      if (t == nodes[b]) at_node = b;
    }
    phi[a] = num / den;
    if (dphi) {
      if (at_node < 0) {
        for (int b = 0; b < n; b++)
          if (b != a) dsum += 1.0 / (t - nodes[b]);
        dphi[a] = phi[a] * dsum;
      } else {
        /* t sits on node at_node != a: only the term missing that factor survives */
        double p = 1.0;
        for (int b = 0; b < n; b++)
          if (b != a && b != at_node) p *= t - nodes[b];
        dphi[a] = p / den;
      }
    }
  }
  /* exact derivative at t == nodes[a] itself: sum over b != a of 1/(x_a - x_b) */
  if (dphi) {
    for (int a = 0; a < n; a++) {
      if (t != nodes[a]) continue;
      double s = 0.0;
      for (int b = 0; b < n; b++)
        if (b != a) s += 1.0 / (nodes[a] - nodes[b]);
      dphi[a] = s;
    }
  }
}

void hx_lagrange_matrices(int n, const double *nodes, int m, const double *pts, double *B, double *G) {
  double phi[HX_MAX_Q > HX_MAX_ND ? HX_MAX_Q : HX_MAX_ND], dphi[HX_MAX_Q > HX_MAX_ND ? HX_MAX_Q : HX_MAX_ND];
  for (int q = 0; q < m; q++) {
    hx_lagrange_eval(n, nodes, pts[q], phi, dphi);
    for (int a = 0; a < n; a++) {
      if (B) B[q * n + a] = phi[a];
      if (G) G[q * n + a] = dphi[a];
    }
  }
}

void hx_tensor_interp(int ndm, int nd, const double *B, const double *u, double *v) {
  double t1[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND], t2[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  for (int k = 0; k < ndm; k++) /* along i: [k][j][i'] */
    for (int j = 0; j < ndm; j++)
      for (int i = 0; i < nd; i++) {
        double s = 0;
        for (int a = 0; a < ndm; a++) s += B[i * ndm + a] * u[a + ndm * (j + ndm * k)];
        t1[i + nd * (j + ndm * k)] = s;
      }
  for (int k = 0; k < ndm; k++) /* along j */
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        double s = 0;
        for (int a = 0; a < ndm; a++) s += B[j * ndm + a] * t1[i + nd * (a + ndm * k)];
        t2[i + nd * (j + nd * k)] = s;
      }
  for (int k = 0; k < nd; k++) /* along k */
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        double s = 0;
        for (int a = 0; a < ndm; a++) s += B[k * ndm + a] * t2[i + nd * (j + nd * a)];
        v[i + nd * (j + nd * k)] = s;
      }
}

void hx_equispaced(int n, double *t) {
  if (n == 1) {
    t[0] = 0.5;
    return;
  }
  for (int i = 0; i < n; i++) t[i] = (double)i / (n - 1);
}
