/* t502: sliding on analytic curved surfaces. A quarter annulus r in [1,2],
   theta in [0, pi/2], z in [0,1] (order 2) whose inner and outer faces lie on
   cylinders and whose other faces lie on planes gets its nodes perturbed along
   the boundaries (boundary nodes stay on their surfaces). Optimizing with sliding
   moves the cylinder nodes along the cylinders (they end on the surface to 1e-10)
   and reaches a lower energy than with fixed boundary nodes; det J stays
   positive; the line search never accepts det J <= 0. */
#include <stdio.h>
#include <stdlib.h>

#include "hx_test_tmop.h"
#include "hx_tmop.h"

static hx_mesh *annulus(hx_comm comm, int p) {
  hx_mesh *m = test_kershaw(comm, 4, 4, 2, p, 1.0); /* [0,1] x [0,1] x [0,0.5] */
  if (!m) return NULL;
  int npe = m->nd * m->nd * m->nd;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int a = 0; a < npe; a++) {
      double u[3];
      for (int c = 0; c < 3; c++) u[c] = hx_mesh_elem_x(m, e, c)[a];
      u[2] *= 2.0;
      /* perturb in parameter space, except across the boundary the node is on */
      hx_gid id = m->node_id[(size_t)e * npe + a];
      for (int c = 0; c < 3; c++)
        if (u[c] > 1e-12 && u[c] < 1 - 1e-12) u[c] += 0.04 * test_hash(id, c);
      double r = 1.0 + u[0], th = 0.5 * HX_PI * u[1];
      hx_mesh_elem_x(m, e, 0)[a] = r * cos(th);
      hx_mesh_elem_x(m, e, 1)[a] = r * sin(th);
      hx_mesh_elem_x(m, e, 2)[a] = u[2];
    }
  /* surfaces 0, 1 (the u = 0, 1 sides) become cylinders about the z axis; 3 (v = 1) the plane x = 0 */
  for (int s = 0; s < 2; s++) {
    hx_surface *S = &m->surfaces[s];
    S->type = HX_SURF_CYLINDER;
    S->p[0] = S->p[1] = S->p[2] = 0;
    S->n[0] = S->n[1] = 0;
    S->n[2] = 1;
    S->r = 1.0 + s;
  }
  hx_surface *P = &m->surfaces[3];
  P->p[0] = P->p[1] = P->p[2] = 0;
  P->n[0] = 1; P->n[1] = P->n[2] = 0;
  m->surfaces[5].p[2] = 1.0; /* z = 1 after the stretch */
  return m;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  hx_comm comm = MPI_COMM_WORLD;
#else
  (void)argc; (void)argv;
  hx_comm comm = HX_COMM_SELF;
#endif
  int fail = 0, rank = hx_comm_rank(comm);
  double efix = 0;
  for (int mode = 0; mode < 2; mode++) {
    hx_mesh *m = annulus(comm, 2), *m0 = annulus(comm, 2);
    if (!m || !m0) return 1;
    hx_mesh_check_report rep;
    if (hx_mesh_check(m, 1e-10, &rep)) { printf("test mesh invalid: %s\n", hx_error_message()); return 1; }
    hx_tmop_opts o;
    hx_tmop_opts_default(&o);
    o.backend = "cpu";
    o.num_threads = 1;
    o.newton_iters = 30;
    o.boundary = mode == 0 ? HX_BND_FIXED : HX_BND_SLIDE;
    if (getenv("T502_LOG")) o.log = stderr;
    hx_tmop_result r;
    if (hx_tmop_optimize(m, &o, &r)) { printf("optimize failed: %s\n", hx_error_message()); return 1; }
    /* curved-face nodes: on their cylinder, and how far they slid */
    double off = 0, moved = 0;
    int nd = m->nd;
    for (hx_lid f = 0; f < m->num_faces; f++) {
      const hx_bface *bf = &m->faces[f];
      if (bf->surf > 1) continue;
      double R = 1.0 + bf->surf;
      for (int k = 0; k < nd; k++)
        for (int j = 0; j < nd; j++)
          for (int i = 0; i < nd; i++) {
            if (!hx_node_on_face(nd, bf->face, i, j, k)) continue;
            int a = hx_lex(nd, i, j, k);
            double x = hx_mesh_elem_x(m, bf->elem, 0)[a], y = hx_mesh_elem_x(m, bf->elem, 1)[a];
            off = fmax(off, fabs(sqrt(x * x + y * y) - R));
            double d = 0;
            for (int c = 0; c < 3; c++) d += pow(hx_mesh_elem_x(m, bf->elem, c)[a] - hx_mesh_elem_x(m0, bf->elem, c)[a], 2);
            moved = fmax(moved, sqrt(d));
          }
    }
    hx_comm_max_double(comm, &off, 1);
    hx_comm_max_double(comm, &moved, 1);
    int ok = r.energy < r.energy0 && r.min_detj > 0 && off < 1e-10;
    if (mode == 0) { efix = r.energy; ok = ok && moved == 0; }
    else ok = ok && moved > 1e-3 && r.energy < 0.99 * efix;
    if (rank == 0) {
      printf("%s: energy drops %d, on cylinders %d, curved nodes %s, det J > 0 %d: %s\n", mode ? "slide" : "fixed",
             r.energy < r.energy0, off < 1e-10, moved > 1e-3 ? "moved" : "stayed", r.min_detj > 0, ok ? "ok" : "BAD");
      fprintf(stderr, "%s: E %.6e -> %.6e, newton %d, off-surface %.2e, max slide %.3e, min det %.3e (%s)\n",
              mode ? "slide" : "fixed", r.energy0, r.energy, r.newton_iters, off, moved, r.min_detj, r.stop_reason);
    }
    if (!ok) fail = 1;
    hx_mesh_destroy(&m);
    hx_mesh_destroy(&m0);
  }
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
