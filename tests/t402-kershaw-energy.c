/* t402: the Kershaw 24^3 mesh (eps 0.3, s = 1) with metric 303, the ideal-shape
   unit-size target and GLL -qo 8 (6 points) has initial energy 3.44458e+04 and
   min det J 0.09 (1/24)^3 = 6.5104e-06 at every order p = 1..4 (the reference
   values of the Kershaw benchmark, computed independently); Gauss-Legendre -qo 8 gives the same energy
   to 7 digits; the equal-size target scales it by 1/13824 (2.4917). */
#include <stdio.h>

#include "hx_basis.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  hx_comm comm = MPI_COMM_WORLD;
#else
  (void)argc;
  (void)argv;
  hx_comm comm = HX_COMM_SELF;
#endif
  int fail = 0, rank = hx_comm_rank(comm);
  for (int p = 1; p <= 4; p++) {
    hx_mesh *m = test_kershaw(comm, 24, 24, 24, p, 0.3);
    if (!m) return 1;
    for (int v = 0; v < 3; v++) {
      if (v > 0 && p != 2) continue;
      hx_tmop_opts o;
      hx_tmop_opts_default(&o);
      o.backend = "cpu";
      if (v == 1) o.quad_type = HX_QUAD_GL;
      if (v == 2) o.target = HX_TARGET_IDEAL_SHAPE_EQUAL_SIZE;
      hx_tmop *tm;
      if (hx_tmop_create(m, &o, &tm)) {
        printf("create failed: %s\n", hx_error_message());
        return 1;
      }
      double e, md;
      if (hx_tmop_energy(tm, hx_tmop_x0(tm), &e) || hx_tmop_min_detj(tm, hx_tmop_x0(tm), &md)) return 1;
      double want = v == 2 ? 3.44458e+04 / 13824.0 : 3.44458e+04;
      int ok = fabs(e - want) < 0.5e-5 * want && fabs(md - 0.09 / 13824.0) < 1e-14;
      const char *names[3] = {"gll-qo8", "gauss-qo8", "gll-qo8-equal-size"};
      if (rank == 0) printf("p %d %s energy %.5e min_detj %.4e %s\n", p, names[v], e, md, ok ? "ok" : "BAD");
      if (!ok) fail = 1;
      hx_tmop_destroy(&tm);
    }
    hx_mesh_destroy(&m);
  }
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
