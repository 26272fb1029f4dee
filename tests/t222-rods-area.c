/* t222: the fluid cross-section of a 3x3 lattice with a larger centre tube converges
   to box area minus rod areas as the order N grows: the error falls by at least 10x
   every two orders up to N = 8 (where it is below 1e-9 relative), and at N = 1 it is
   positive and of the size of the missing circle segments (the rods are polygons).
   Also a hex 7-pin bundle in a hex duct (area sqrt(3)/2 F^2 - 7 pi r^2). */
#include <math.h>
#include <stdio.h>

#include "hx_error.h"
#include "hx_rods.h"
#include "rods_checks.h"

static int series(const char *name, hx_rods_opts *o, double exact_fn(const hx_rods_info *)) {
  double err[9] = {0};
  int fail = 0;
  for (int N = 1; N <= 8; N++) {
    o->order = N;
    hx_mesh *m;
    hx_rods_info info;
    if (hx_mesher_rods(HX_COMM_SELF, o, &m, &info)) {
      printf("mesher failed: %s\n", hx_error_message());
      return 1;
    }
    rc_stats s = rc_element_stats(m);
    double exact = exact_fn(&info);
    err[N] = (s.volume / (o->z[1] - o->z[0]) - exact) / exact;
    fprintf(stderr, "%s N %d rel err %.3e\n", name, N, err[N]);
    hx_mesh_destroy(&m);
  }
  int drops = 1;
  for (int N = 1; N + 2 <= 8; N++) drops &= fabs(err[N + 2]) < 0.1 * fabs(err[N]) || fabs(err[N + 2]) < 1e-12;
  printf("%s: N=1 error positive and < 5e-2 %d, drops 10x per two orders %d, N=8 below 1e-9 %d\n", name,
         err[1] > 0 && err[1] < 5e-2, drops, fabs(err[8]) < 1e-9);
  fail = !(err[1] > 0 && err[1] < 5e-2) || !drops || !(fabs(err[8]) < 1e-9);
  return fail;
}

static double sq_exact(const hx_rods_info *info) {
  return info->duct_size[0] * info->duct_size[1] - 8 * HX_PI * 0.4 * 0.4 - HX_PI * 0.5 * 0.5;
}
static double hex_exact(const hx_rods_info *info) {
  double F = info->duct_size[0];
  return sqrt(3.0) / 2 * F * F - 7 * HX_PI * 0.292 * 0.292;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#else
  (void)argc, (void)argv;
#endif
  hx_rods_opts o;
  hx_rods_opts_default(&o);
  o.pitch = 1.2;
  o.nx = o.ny = 3;
  o.num_types = 2;
  o.radius[0] = 0.4;
  o.radius[1] = 0.5;
  o.map = "111/121/111";
  o.sectors = 16;
  o.z[1] = 0.5;
  int fail = series("square 3x3", &o, sq_exact);
  hx_rods_opts_default(&o);
  hx_rods_preset(&o, "hex7");
  o.sectors = 18;
  fail |= series("hex 7", &o, hex_exact);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
