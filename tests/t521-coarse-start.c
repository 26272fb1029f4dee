/* t521: the coarse start (opts.coarse_order): the order-1 copy solved first, its moves carried to
   the mesh's order, the solve at that order from there (issue 34, item 4).
   Kershaw 6^3 with the map's transition of smoothness 3 (curved elements, unlike smoothness 1,
   whose elements are trilinear), metric 303, unit target, GLL -qo 8, sliding faces, p = 3:
   (a) with and without the coarse start the solve converges to the uniform mesh (E1 <= 1e-8 E0,
       every node within 1e-6 h of it; an independent reference: the box mesher without the map);
   (b) the coarse start ran (order 1, some Newton steps there, none held back) and the solve at
       order 3 took fewer Newton steps than the plain solve;
   (c) the reported initial energy and min det J are the mesh's own: equal to the plain solve's;
   (d) on a mesh whose order-1 copy is not valid for the metric the start is skipped: one element
       of order 4 bent through 220 degrees of an annulus (1 <= r <= 2) is valid, its chord copy
       (corners past a half turn) is inverted, and the solve runs from the mesh as given
       (coarse_order 0, no error, the energy falls);
   (e) with MPI, the same run on the ranks of COMM_WORLD equals the serial figures (converged,
       the same Newton counts). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_box.h"
#include "hx_error.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

static int check(const char *what, int ok) {
  printf("%-72s %s\n", what, ok ? "ok" : "FAIL");
  return !ok;
}

static int solve(hx_comm comm, int coarse, hx_tmop_result *r, double *dev) {
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = "cpu";
  o.num_threads = 2;
  o.coarse_order = coarse;
  return test_solve_uniform(comm, 6, 3, 3, &o, r, dev);
}

static int checks(hx_comm comm) {
  int fail = 0, rank = hx_comm_rank(comm);
  hx_tmop_result r0, r1;
  double d0, d1;
  if (solve(comm, 0, &r0, &d0) || solve(comm, 1, &r1, &d1)) return 1;
  if (rank == 0) {
    printf("plain:  %d Newton, E %.6e -> %.3e, dev %.2e h\n", r0.newton_iters, r0.energy0, r0.energy, d0);
    printf("coarse: order 1 %d Newton, then %d Newton, E %.6e -> %.3e, dev %.2e h, held %lld\n", r1.coarse_newton,
           r1.newton_iters, r1.energy0, r1.energy, d1, r1.coarse_held);
  }
  fail |= check("(a) plain solve converges to the uniform mesh", r0.converged && r0.energy <= 1e-8 * r0.energy0 && d0 < 1e-6);
  fail |=
      check("(a) coarse-start solve converges to the uniform mesh", r1.converged && r1.energy <= 1e-8 * r1.energy0 && d1 < 1e-6);
  fail |= check("(b) the coarse start ran at order 1, nothing held back",
                r1.coarse_order == 1 && r1.coarse_newton > 0 && r1.coarse_held == 0 && r0.coarse_order == 0);
  fail |= check("(b) fewer Newton steps at order 3 after the coarse start", r1.newton_iters < r0.newton_iters);
  fail |= check("(c) initial energy and min det J are the mesh's own",
                fabs(r1.energy0 - r0.energy0) <= 1e-12 * r0.energy0 && r1.min_detj0 == r0.min_detj0);

  /* (d) one element of order 4 bent through 220 degrees of an annulus: valid, its chord copy
     inverted */
  {
    hx_mesh *m = test_bent_element(4);
    int ok = m != NULL;
    if (ok) {
      hx_tmop_opts o;
      test_bent_opts(&o);
      o.coarse_order = 1;
      hx_tmop_result r;
      int rc = hx_tmop_optimize(m, &o, &r);
      printf("shell: rc %d, coarse_order %d, %d Newton, E %.4e -> %.4e\n", rc, r.coarse_order, r.newton_iters, r.energy0,
             r.energy);
      ok = rc == 0 && r.coarse_order == 0 && r.energy <= r.energy0;
      if (rc) printf("optimize: %s\n", hx_error_message());
    }
    if (rank == 0) fail |= check("(d) an invalid order-1 copy: the start skipped, the solve runs", ok);
    hx_mesh_destroy(&m);
  }
  return fail;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  hx_comm comm = MPI_COMM_WORLD;
#else
  (void)argc;
  (void)argv;
  hx_comm comm = HX_COMM_SELF;
#endif
  int fail = checks(comm);
  {
    int64_t f = fail;
    hx_comm_max_int64(comm, &f, 1);
    fail = (int)f;
  }
  if (hx_comm_rank(comm) == 0) printf("t521: %s\n", fail ? "FAILED" : "passed");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
