/* t505: Newton-MINRES on Kershaw meshes with every boundary node fixed, p = 1..4
   (6 x 4 x 4 elements, eps 0.3, and a stronger eps 0.15 at p = 2), metric 303,
   unit-size target, GLL -qo 8:
   - the energy drops (final < 0.9 E0), the reported min det J stays positive,
     and every accepted iterate in the per-iteration log has min det J > 0;
   - an independent recomputation on the written mesh (a fresh problem built on
     the optimized nodes) gives the same energy and a positive min det J at the
     quadrature points, and hx_mesh_check passes (det J > 0 at the GLL nodes);
   - no boundary node moved (bitwise);
   - whole runs with strategy (a) stored H and with 2 OpenMP threads reach the
     same energy, iteration count and nodes as strategy (b) on one thread, to 1e-12. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_test_tmop.h"
#include "hx_tmop.h"

/* every accepted iterate's min det J from the log; returns the count of lines */
static int scan_log(FILE *f, double *min_md, int *bad_lines) {
  rewind(f);
  char line[256];
  int cnt = 0;
  *min_md = HUGE_VAL;
  *bad_lines = 0;
  while (fgets(line, sizeof line, f)) {
    int it, li;
    double e, r, s, md;
    if (sscanf(line, "newton %d energy %lf |r| %lf lin %d step %lf min detJ %lf", &it, &e, &r, &li, &s, &md) == 6) {
      cnt++;
      if (!(md < *min_md)) continue;
      *min_md = md;
    } else if (!strstr(line, "line search failed")) {
      (*bad_lines)++;
    }
  }
  return cnt;
}

static int is_boundary_node(const hx_mesh *m, hx_lid e, int a) {
  /* a node on a box face: some coordinate at the box's bounds, found through the
     mesh's boundary faces */
  int nd = m->nd;
  int i = a % nd, j = (a / nd) % nd, k = a / (nd * nd);
  for (hx_lid f = 0; f < m->num_faces; f++) {
    const hx_bface *b = &m->faces[f];
    if (b->elem != e) continue;
    /* faces in hx_mesh order: 0 -x, 1 +x, 2 -y, 3 +y, 4 -z, 5 +z */
    int t = b->face;
    if ((t == 0 && i == 0) || (t == 1 && i == nd - 1) || (t == 2 && j == 0) || (t == 3 && j == nd - 1) || (t == 4 && k == 0) ||
        (t == 5 && k == nd - 1))
      return 1;
  }
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
  for (int run = 0; run < 5; run++) {
    int p = run < 4 ? run + 1 : 2;
    double eps = run < 4 ? 0.3 : 0.15;
    hx_mesh *m0 = test_kershaw(comm, 6, 4, 4, p, eps);
    if (!m0) return 1;
    size_t nx = (size_t)m0->num_elem * 3 * m0->nd * m0->nd * m0->nd;
    double *xref = NULL;
    hx_tmop_result r0;
    memset(&r0, 0, sizeof r0);
    for (int variant = 0; variant < 3; variant++) {
      if (variant > 0 && p != 2) continue;
      hx_mesh *m = test_kershaw(comm, 6, 4, 4, p, eps);
      if (!m) return 1;
      hx_tmop_opts o;
      hx_tmop_opts_default(&o);
      o.backend = "cpu";
      o.boundary = HX_BND_FIXED;
      o.newton_iters = 40;
      o.num_threads = variant == 2 ? 2 : 1;
      if (variant == 1) o.hess_strategy = HX_HESS_STORED;
      FILE *log = tmpfile();
      o.log = log;
      hx_tmop_result r;
      if (hx_tmop_optimize(m, &o, &r)) {
        printf("optimize failed: %s\n", hx_error_message());
        return 1;
      }
      double md_log = 0;
      int bad_lines = 0, lines = 0;
      if (rank == 0) lines = scan_log(log, &md_log, &bad_lines);
      fclose(log);
      /* independent recomputation on the optimized nodes */
      hx_tmop_opts oc = o;
      oc.log = NULL;
      hx_tmop *tm;
      double e_chk = 0, md_chk = 0;
      if (hx_tmop_create(m, &oc, &tm) || hx_tmop_energy(tm, hx_tmop_x0(tm), &e_chk) ||
          hx_tmop_min_detj(tm, hx_tmop_x0(tm), &md_chk)) {
        printf("recheck failed: %s\n", hx_error_message());
        return 1;
      }
      hx_tmop_destroy(&tm);
      hx_mesh_check_report rep;
      int chk = hx_mesh_check(m, 1e-12, &rep);
      hx_error_clear();
      /* boundary nodes: bitwise unchanged; interior nodes: some moved */
      double bmove = 0, imove = 0;
      int npe = m->nd * m->nd * m->nd;
      for (hx_lid e = 0; e < m->num_elem; e++)
        for (int a = 0; a < npe; a++)
          for (int c = 0; c < 3; c++) {
            double d = fabs(hx_mesh_elem_x(m, e, c)[a] - hx_mesh_elem_x(m0, e, c)[a]);
            if (is_boundary_node(m, e, a)) bmove = fmax(bmove, d);
            else imove = fmax(imove, d);
          }
      hx_comm_max_double(comm, &bmove, 1);
      hx_comm_max_double(comm, &imove, 1);
      int ok = r.energy < 0.9 * r.energy0 && r.min_detj > 0 && md_chk > 0 && chk == HX_OK &&
               fabs(e_chk - r.energy) <= 1e-12 * fabs(r.energy) && bmove == 0 && imove > 1e-3 / p;
      if (rank == 0) ok = ok && lines == r.newton_iters + 1 && md_log > 0 && bad_lines == 0;
      double dx = 0;
      if (variant == 0) {
        xref = malloc(nx * sizeof(double));
        memcpy(xref, m->x, nx * sizeof(double));
        r0 = r;
      } else {
        for (size_t i = 0; i < nx; i++) dx = fmax(dx, fabs(m->x[i] - xref[i]));
        hx_comm_max_double(comm, &dx, 1);
        ok = ok && dx < 1e-12 && fabs(r.energy - r0.energy) <= 1e-12 * r0.energy && r.newton_iters == r0.newton_iters;
      }
      const char *names[3] = {"onthefly-1thread", "stored-1thread", "onthefly-2threads"};
      if (rank == 0) {
        printf("p %d eps %.2f fixed %s: energy drops, det J > 0, boundary fixed %s\n", p, eps, names[variant], ok ? "ok" : "BAD");
        fprintf(stderr,
                "p %d eps %.2f %-18s E0 %.6e E %.6e (%.1f%%) newton %d (%s) min detJ %.4e -> %.4e (log min %.4e, "
                "recheck %.4e) boundary move %.1e interior move %.2e vs reference %.1e\n",
                p, eps, names[variant], r.energy0, r.energy, 100 * (1 - r.energy / r.energy0), r.newton_iters, r.stop_reason,
                r.min_detj0, r.min_detj, md_log, md_chk, bmove, imove, dx);
      }
      if (!ok) fail = 1;
      hx_mesh_destroy(&m);
    }
    free(xref);
    hx_mesh_destroy(&m0);
  }
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
