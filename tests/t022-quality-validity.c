/* t022: the quality report's validity (hx_quality_opts.validity): a mesh of three order-3
   elements (affine, folded only between its GLL nodes as in t020 (b), gently curved) is
   reported invalid with 1 invalid and 2 proven elements while 0 are counted as inverted at
   the GLL and quadrature points (the case the bound is for); with the folded element
   replaced by a curved one, valid: proven; with validity off, no verdict. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_quality.h"
#include "hx_test_meshes.h"

static void map(int which, const double xi[3], double X[3]) {
  double t = xi[0];
  if (which == 0) { /* affine */
    X[0] = 2 * xi[0] + 0.5 * xi[1];
    X[1] = xi[1] + 0.2 * xi[2];
    X[2] = 0.1 * xi[0] + 0.5 * xi[2];
  } else if (which == 1) { /* x1' = (t - 0.55)(t - 0.6) / x(1): folds on (0.55, 0.6) */
    X[0] = (t * t * t / 3 - 1.15 * t * t / 2 + 0.33 * t) / (1.0 / 3 - 1.15 / 2 + 0.33);
    X[1] = xi[1];
    X[2] = xi[2];
  } else { /* gently curved */
    X[0] = xi[0] + 0.05 * sin(3 * xi[1]);
    X[1] = xi[1] + 0.05 * xi[0] * xi[2];
    X[2] = xi[2] + 0.03 * cos(2 * xi[0]);
  }
}

static int run(int with_fold, int validity, hx_quality_report *r) {
  int p = 3, nd = p + 1, npe = nd * nd * nd;
  hx_mesh *m;
  if (hx_mesh_create(HX_COMM_SELF, p, 3, &m)) return 1;
  double xg[HX_MAX_ND], w[HX_MAX_ND];
  hx_gll(nd, xg, w);
  for (int e = 0; e < 3; e++)
    for (int a = 0; a < npe; a++) {
      int i = a % nd, j = (a / nd) % nd, k = a / (nd * nd);
      double xi[3] = {xg[i], xg[j], xg[k]}, X[3];
      map(e == 1 && !with_fold ? 2 : e, xi, X);
      for (int c = 0; c < 3; c++) hx_mesh_elem_x(m, e, c)[a] = X[c] + 3.0 * e;
      m->node_id[(size_t)e * npe + a] = (hx_gid)e * npe + a;
    }
  hx_quality_opts o;
  hx_quality_opts_default(&o);
  o.validity = validity;
  int rc = hx_quality_mesh(m, &o, NULL, r);
  hx_mesh_destroy(&m);
  return rc;
}

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  int fail = 0;
  hx_quality_report r;
  if (run(1, 1, &r)) return tm_finalize(1);
  hx_quality_print_validity(&r, stdout);
  printf("inverted at GLL / quadrature points: %lld\n", (long long)r.num_inverted);
  if (!(r.validity_checked && r.bound.verdict == HX_INVALID && r.bound.num_invalid == 1 && r.bound.num_proven == 2 &&
        r.bound.found_min < 0 && r.num_inverted == 0))
    fail = 1, printf("FAIL: the folded mesh\n");
  hx_quality_report_free(&r);
  if (run(0, 1, &r)) return tm_finalize(1);
  hx_quality_print_validity(&r, stdout);
  if (!(r.bound.verdict == HX_VALID_PROVEN && r.bound.num_proven == 3 && r.bound.lower_min > 0))
    fail = 1, printf("FAIL: the valid mesh\n");
  hx_quality_report_free(&r);
  if (run(1, 0, &r)) return tm_finalize(1);
  if (r.validity_checked) fail = 1, printf("FAIL: a verdict without opts.validity\n");
  hx_quality_report_free(&r);
  printf("%s\n", fail ? "FAILED" : "ok");
  return tm_finalize(fail);
}
