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
#include "hx_tmop.h"

static hx_mesh *kershaw3(hx_comm comm, int p, int kershaw) {
  hx_box_opts bo;
  hx_box_opts_default(&bo);
  bo.n[0] = bo.n[1] = bo.n[2] = 6;
  bo.order = p;
  bo.kershaw = kershaw;
  bo.eps_y = bo.eps_z = 0.3;
  bo.smooth = 3;
  hx_mesh *m = NULL;
  if (hx_mesher_box(comm, &bo, &m)) {
    printf("box: %s\n", hx_error_message());
    return NULL;
  }
  return m;
}

static int check(const char *what, int ok) {
  printf("%-72s %s\n", what, ok ? "ok" : "FAIL");
  return !ok;
}

static int solve(hx_comm comm, int coarse, hx_tmop_result *r, double *dev) {
  hx_mesh *m = kershaw3(comm, 3, 1), *ref = kershaw3(comm, 3, 0);
  if (!m || !ref) return 1;
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = "cpu";
  o.num_threads = 2;
  o.coarse_order = coarse;
  int rc = hx_tmop_optimize(m, &o, r);
  if (rc) printf("optimize: %s\n", hx_error_message());
  *dev = 0;
  size_t nx = (size_t)m->num_elem * 3 * m->nd * m->nd * m->nd;
  for (size_t i = 0; !rc && i < nx; i++) *dev = fmax(*dev, fabs(m->x[i] - ref->x[i]) * 6);
  hx_comm_max_double(comm, dev, 1);
  hx_mesh_destroy(&m);
  hx_mesh_destroy(&ref);
  return rc;
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

  /* (d) a shell of one element through the thickness, 1 <= r <= 2 about the origin, four
     elements around a quarter turn: curved (valid) at order 3, the chord copy inverted */
  {
    hx_box_opts bo;
    hx_box_opts_default(&bo);
    bo.n[0] = 1, bo.n[1] = 1, bo.n[2] = 1;
    bo.order = 4;
    hx_mesh *m = NULL;
    int ok = !hx_mesher_box(HX_COMM_SELF, &bo, &m);
    if (ok) {
      size_t n3 = (size_t)m->nd * m->nd * m->nd;
      for (hx_lid e = 0; e < m->num_elem; e++)
        for (size_t a = 0; a < n3; a++) {
          double *x = hx_mesh_elem_x(m, e, 0), *y = hx_mesh_elem_x(m, e, 1);
          double th = y[a] * 220.0 * 3.14159265358979323846 / 180.0, rr = 1 + x[a];
          x[a] = rr * cos(th), y[a] = rr * sin(th);
        }
      m->num_faces = 0; /* every node fixed: no surface to slide on */
      hx_tmop_opts o;
      hx_tmop_opts_default(&o);
      o.backend = "cpu";
      o.num_threads = 1;
      o.boundary = HX_BND_FIXED;
      o.newton_iters = 3;
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
