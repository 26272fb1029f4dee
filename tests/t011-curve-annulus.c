/* t011: curving a cylinder annulus (8 hexes around, 0.5 <= r <= 1, 0 <= z <= 1) and
   the same annulus capped by the sphere |x| = 2 (its top edges lie on a cylinder and
   a sphere at once: alternating projections must put them on both) to order
   N = 1..8: boundary nodes on all their surfaces to 1e-13 relative (the checker
   tests each face against its surface; an edge shared by two tagged faces is
   tested against both), equal ids => equal coordinates, det J > 0, and the volume
   converges to the exact value (pi (r2^2 - r1^2) h, and
   2 pi / 3 ((R^2 - r1^2)^(3/2) - (R^2 - r2^2)^(3/2)) for the cap) with the error
   falling by at least 300 every two orders (measured 650-880) (asserted) until rounding. */
#include <math.h>
#include <stdio.h>

#include "hx_curve.h"
#include "hx_test_meshes.h"

static int run(const char *name, hx_mesh *lo, double exact, double min_ratio2) {
  int fail = 0;
  double err_hist[10] = {0};
  printf("%s: exact volume %.15f\nN   volume              rel_error   ratio  ratio2  check\n", name, exact);
  for (int N = 1; N <= 8; N++) {
    hx_mesh *h;
    if (hx_mesh_raise_order(lo, N, &h)) {
      printf("N %d raise: %s\n", N, hx_error_message());
      return 1;
    }
    hx_mesh_check_report r;
    int rc = hx_mesh_check(h, 1e-13, &r);
    double vol = tm_volume(h), err = fabs(vol - exact) / exact;
    err_hist[N] = err;
    double ratio = N > 1 ? err_hist[N - 1] / err : 0, ratio2 = N > 2 ? err_hist[N - 2] / err : 0;
    printf("%d  %.15f  %.3e  %6.2f  %6.1f  %d\n", N, vol, err, ratio, ratio2, rc);
    if (rc || r.surf_max_rel > 1e-13 || r.bad_elems) {
      printf("N %d: check failed: %s\n", N, hx_error_message());
      fail = 1;
    }
    if (N > 1 && ratio < 1 && err_hist[N - 1] > 1e-13) {
      printf("N %d: error grew\n", N);
      fail = 1;
    }
    if (N > 2 && err_hist[N - 2] > 1e-12 && ratio2 < min_ratio2) {
      printf("N %d: two-step error ratio %.2f < %g\n", N, ratio2, min_ratio2);
      fail = 1;
    }
    hx_mesh_destroy(&h);
  }
  return fail;
}

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  int fail = 0;
  double r1 = 0.5, r2 = 1.0, R = 2.0;
  hx_mesh *m;
  if (tm_annulus(8, 1, 1, r1, r2, 1.0, 0, &m)) return 1;
  fail |= run("annulus", m, HX_PI * (r2 * r2 - r1 * r1), 300);
  hx_mesh_destroy(&m);
  if (tm_annulus(8, 1, 1, r1, r2, 0, R, &m)) return 1;
  fail |= run("capped annulus", m, 2 * HX_PI / 3 * (pow(R * R - r1 * r1, 1.5) - pow(R * R - r2 * r2, 1.5)), 300);
  hx_mesh_destroy(&m);
  return tm_finalize(fail);
}
