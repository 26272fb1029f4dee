/* t001: GLL and Gauss-Legendre rules on [0,1] integrate polynomials of degree
   2n-3 / 2n-1 exactly; Lagrange derivatives differentiate polynomials exactly. */
#include <math.h>
#include <stdio.h>

#include "hx_basis.h"

int main(void) {
  int fail = 0;
  for (int n = 2; n <= 20; n++) {
    double x[HX_MAX_Q], w[HX_MAX_Q];
    for (int type = 1; type <= 2; type++) {
      hx_quad_rule(type, n, x, w);
      int exact = type == HX_QUAD_GLL ? 2 * n - 3 : 2 * n - 1;
      for (int p = 0; p <= exact; p++) {
        double s = 0;
        for (int q = 0; q < n; q++) s += w[q] * pow(x[q], p);
        if (fabs(s - 1.0 / (p + 1)) > 1e-13) {
          printf("rule %d n=%d fails x^%d: %.16e\n", type, n, p, s);
          fail = 1;
        }
      }
    }
    /* derivative of x^(n-1) through the n GLL nodes, at Gauss points */
    double g[HX_MAX_Q], gw[HX_MAX_Q], G[HX_MAX_Q * HX_MAX_Q], f[HX_MAX_Q];
    hx_gll(n, x, w);
    hx_gauss(n, g, gw);
    hx_lagrange_matrices(n, x, n, g, NULL, G);
    for (int a = 0; a < n; a++) f[a] = pow(x[a], n - 1);
    for (int q = 0; q < n; q++) {
      double d = 0;
      for (int a = 0; a < n; a++) d += G[q * n + a] * f[a];
      double ex = (n - 1) * pow(g[q], n - 2);
      if (fabs(d - ex) > 1e-10 * (1 + fabs(ex))) {
        printf("derivative n=%d q=%d: %.16e vs %.16e\n", n, q, d, ex);
        fail = 1;
      }
    }
    /* derivative at the nodes themselves */
    hx_lagrange_matrices(n, x, n, x, NULL, G);
    for (int q = 0; q < n; q++) {
      double d = 0;
      for (int a = 0; a < n; a++) d += G[q * n + a] * f[a];
      double ex = (n - 1) * pow(x[q], n - 2);
      if (fabs(d - ex) > 1e-9 * (1 + fabs(ex))) {
        printf("node derivative n=%d q=%d: %.16e vs %.16e\n", n, q, d, ex);
        fail = 1;
      }
    }
  }
  printf("qo 8: GLL %d points, GL %d points\n", hx_quad_points_for_order(HX_QUAD_GLL, 8),
         hx_quad_points_for_order(HX_QUAD_GL, 8));
  printf("%s\n", fail ? "FAIL" : "ok");
  return fail;
}
