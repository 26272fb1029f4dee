/* t502: sliding on analytic curved surfaces. A quarter annulus r in [1,2],
   theta in [0, pi/2], z in [0,1] (order 2) whose inner and outer faces lie on
   cylinders and whose other faces lie on planes gets its nodes perturbed along
   the boundaries (boundary nodes stay on their surfaces). Optimizing with sliding
   moves the cylinder nodes along the cylinders (they end on the surface to 1e-10)
   and reaches a lower energy than with fixed boundary nodes; det J stays
   positive; the line search never accepts det J <= 0. The nodes where the
   cylinders meet the end planes z = 0, 1 (perturbed along those circles) slide
   along the circles: they end on both surfaces to 1e-10 and move, while the
   nodes where a cylinder meets the plane x = 0 (a line, not a circle) stay.
   The same mesh with 64 unused surfaces numbered before its own (a pebble bed
   has hundreds) optimizes to the same energy: nodes slide on surfaces of any
   index (an earlier version fixed those from index 60 on). */
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
  P->n[0] = 1;
  P->n[1] = P->n[2] = 0;
  m->surfaces[5].p[2] = 1.0; /* z = 1 after the stretch */
  return m;
}

/* 64 unused surfaces before the mesh's own, its faces renumbered to match */
static int pad_surfaces(hx_mesh *m) {
  int ns = m->num_surfaces;
  hx_surface far = {.type = HX_SURF_PLANE, .p = {0, 0, 100}, .n = {0, 0, 1}, .r = 0};
  for (int k = 0; k < 64; k++)
    if (hx_mesh_add_surface(m, &far, NULL)) return 1;
  for (int s = 0; s < ns; s++) {
    hx_surface copy = m->surfaces[s];
    if (hx_mesh_add_surface(m, &copy, NULL)) return 1;
  }
  for (hx_lid f = 0; f < m->num_faces; f++)
    if (m->faces[f].surf >= 0) m->faces[f].surf += 64 + ns;
  return 0;
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
  int fail = 0, rank = hx_comm_rank(comm);
  const char *mode_name[3] = {"fixed", "slide", "slide, 64 more surfaces"};
  double efix = 0, eslide = 0;
  for (int mode = 0; mode < 3; mode++) {
    hx_mesh *m = annulus(comm, 2), *m0 = annulus(comm, 2);
    if (!m || !m0) return 1;
    if (mode == 2 && (pad_surfaces(m) || pad_surfaces(m0))) {
      printf("padding failed: %s\n", hx_error_message());
      return 1;
    }
    hx_mesh_check_report rep;
    if (hx_mesh_check(m, 1e-10, &rep)) {
      printf("test mesh invalid: %s\n", hx_error_message());
      return 1;
    }
    hx_tmop_opts o;
    hx_tmop_opts_default(&o);
    o.backend = "cpu";
    o.num_threads = 1;
    o.newton_iters = 30;
    o.boundary = mode == 0 ? HX_BND_FIXED : HX_BND_SLIDE;
    if (getenv("T502_LOG")) o.log = stderr;
    hx_tmop_result r;
    if (hx_tmop_optimize(m, &o, &r)) {
      printf("optimize failed: %s\n", hx_error_message());
      return 1;
    }
    /* curved-face nodes: on their cylinder, and how far they slid */
    double off = 0, moved = 0, circ_off = 0, circ_moved = 0, line_moved = 0;
    int nd = m->nd;
    for (hx_lid f = 0; f < m->num_faces; f++) {
      const hx_bface *bf = &m->faces[f];
      int si = mode == 2 ? bf->surf - 64 - (m->num_surfaces - 64) / 2 : bf->surf; /* the annulus's own index */
      if (si > 1) continue;
      double R = 1.0 + si;
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
            double z0 = hx_mesh_elem_x(m0, bf->elem, 2)[a], x0 = hx_mesh_elem_x(m0, bf->elem, 0)[a];
            if (z0 == 0.0 || z0 == 1.0) { /* on a circle: on the cylinder (above) and its plane */
              circ_off = fmax(circ_off, fabs(hx_mesh_elem_x(m, bf->elem, 2)[a] - z0));
              circ_moved = fmax(circ_moved, sqrt(d));
            } else if (fabs(x0) < 1e-14) line_moved = fmax(line_moved, sqrt(d));
          }
    }
    hx_comm_max_double(comm, &off, 1);
    hx_comm_max_double(comm, &moved, 1);
    double cm[4] = {circ_off, circ_moved, line_moved, 0};
    hx_comm_max_double(comm, cm, 3);
    int ok = r.energy < r.energy0 && r.min_detj > 0 && off < 1e-10 && cm[0] < 1e-10;
    if (mode == 0) {
      efix = r.energy;
      ok = ok && moved == 0;
    } else ok = ok && moved > 1e-3 && r.energy < 0.99 * efix && cm[1] > 1e-3 && cm[2] == 0;
    if (mode == 1) eslide = r.energy;
    if (mode == 2) ok = ok && fabs(r.energy - eslide) <= 1e-12 * eslide;
    if (rank == 0) {
      printf("%s: energy drops %d, on cylinders %d, curved nodes %s, det J > 0 %d: %s\n", mode_name[mode], r.energy < r.energy0,
             off<1e-10, moved> 1e-3 ? "moved" : "stayed", r.min_detj > 0, ok ? "ok" : "BAD");
      printf("%s: circle nodes on both surfaces %d, %s; cylinder-line nodes %s\n", mode_name[mode],
             cm[0]<1e-10, cm[1]> 1e-3 ? "moved" : "stayed", cm[2] > 0 ? "moved" : "stayed");
      fprintf(
          stderr,
          "%s: E %.6e -> %.6e, newton %d, off-surface %.2e, max slide %.3e (circles %.3e, off plane %.2e), min det %.3e (%s)\n",
          mode_name[mode], r.energy0, r.energy, r.newton_iters, off, moved, cm[1], cm[0], r.min_detj, r.stop_reason);
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
