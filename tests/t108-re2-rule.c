/* t108: hx_re2_rule (the .re2 writer's Nek5000 geometry rule as a per-element check, for the
   optimizer's hold-back) agrees with the writer itself, through hx_export (no --force).
   (a) One element at order 7, the sector r in [1, 1.2], z in [0, 0.2] of an annulus, of angle
       theta = 30, 60, .. 330 degrees, its GLL nodes exact on the circles: Nek's geometry from
       its corners and edge midpoints ('m', a quadratic through each) is valid, the rule
       passes and the writer writes.
   (b) tests/data/re2-rule-fold.txt: one element of pb67 after --optimize, valid at order 7
       (det J > 0 at every GLL node, computed here) that Nek would fold with every curve set:
       the rule fails and the writer refuses it.
   (c) The same element with hx_export_opts.checked (the caller checked det J itself) is still
       refused (Nek's rule is no det J check), and written with force.
   Serial. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_iotest.h"

/* the sector of angle *theta (radians) at reference point t */
static void sector_map(const double t[3], double X[3], void *ctx) {
  double theta = *(const double *)ctx, r = 1 + 0.2 * t[0], a = theta * t[1];
  X[0] = r * cos(a), X[1] = r * sin(a), X[2] = 0.2 * t[2];
}

/* the fixture (see its header): one element and its boundary faces' surfaces */
static hx_mesh *fixture(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("FAIL cannot open %s\n", path);
    return NULL;
  }
  char line[512];
  hx_mesh *m = NULL;
  size_t n = 0, want = 0;
  int bad = 0;
  while (!bad && fgets(line, sizeof line, f)) {
    int order, face, type;
    hx_surface s;
    if (line[0] == '#') continue;
    if (sscanf(line, "order %d", &order) == 1) {
      bad = order < 1 || order > 9 || hx_mesh_create(HX_COMM_SELF, order, 1, &m);
      if (!bad) want = 3 * (size_t)hx_mesh_nodes_per_elem(m);
    } else if (sscanf(line, "face %d type %d p %lf %lf %lf n %lf %lf %lf r %lf", &face, &type, &s.p[0], &s.p[1], &s.p[2], &s.n[0],
                      &s.n[1], &s.n[2], &s.r) == 9) {
      int idx;
      s.type = type;
      bad = !m || hx_mesh_add_surface(m, &s, &idx) || hx_mesh_add_face(m, 0, face, 1, idx);
    } else {
      bad = !m || n >= want || sscanf(line, "%lf", &m->x[n++]) != 1;
    }
  }
  fclose(f);
  if (bad || !m || n != want) {
    printf("FAIL %s: malformed (%zu of %zu coordinates)\n", path, n, want);
    hx_mesh_destroy(&m);
    return NULL;
  }
  for (size_t a = 0; a < want / 3; a++) m->node_id[a] = (hx_gid)a;
  for (int c = 0; c < 8; c++) m->vert_id[c] = m->node_id[hx_corner_lex(m->nd, c)];
  hx_mesh_set_bname(m, 1, "pebble");
  return m;
}

/* whether hx_export writes m to path with the given force and checked; the files removed */
static int writes(const hx_mesh *m, const char *path, int force, int checked) {
  hx_export_opts o;
  hx_export_opts_default(&o);
  o.force = force, o.checked = checked;
  int ok = hx_export(m, path, &o) == HX_OK;
  hx_error_clear();
  char fld[256];
  hx_re2_field_path(path, fld, sizeof fld);
  unlink(path), unlink(fld);
  return ok;
}

/* the rule on element 0, and whether hx_export writes m as a .re2 (no --force) */
static int rule_and_writer(const hx_mesh *m, const char *path, int *wrote) {
  int32_t bs[6] = {-1, -1, -1, -1, -1, -1};
  for (hx_lid k = 0; k < m->num_faces; k++) bs[m->faces[k].face] = m->faces[k].surf;
  hx_re2_rule *rule = NULL;
  if (hx_re2_rule_create(m, &rule)) return -1;
  int ok = hx_re2_rule_ok(rule, m->x, bs);
  hx_re2_rule_destroy(&rule);
  hx_export_opts o;
  hx_export_opts_default(&o);
  *wrote = hx_export(m, path, &o) == HX_OK;
  if (!*wrote) printf("     writer: %s\n", hx_error_message());
  hx_error_clear();
  char fld[256];
  hx_re2_field_path(path, fld, sizeof fld);
  unlink(path), unlink(fld);
  return ok;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#else
  (void)argc, (void)argv;
#endif
  int fail = 0;
  for (int deg = 30; deg <= 330; deg += 30) {
    double theta = deg * 3.14159265358979323846 / 180;
    hx_mesh *m = NULL;
    if (hx_iotest_single(7, sector_map, &theta, &m)) m = NULL;
    int wrote = 0, ok = m ? rule_and_writer(m, "t108-sector.re2", &wrote) : -1;
    int good = ok == 1 && wrote;
    printf("%s (a) sector %3d deg: rule %s, writer %s\n", good ? "ok  " : "FAIL", deg, ok == 1 ? "passes" : "fails",
           wrote ? "wrote" : "refused");
    fail |= !good;
    hx_mesh_destroy(&m);
  }
  const char *src = getenv("HX_SOURCE_DIR");
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/data/re2-rule-fold.txt", src ? src : "..");
  hx_mesh *m = fixture(path);
  if (!m) return 1;
  int nd = m->nd;
  double D[HX_MAX_ND * HX_MAX_ND], J[3][3], lo = HUGE_VAL;
  hx_mesh_gll_derivative(nd, D);
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) lo = fmin(lo, hx_mesh_jacobian_at_node(m, D, 0, i, j, k, J));
  int wrote = 0, ok = rule_and_writer(m, "t108-fold.re2", &wrote);
  int good = lo > 0 && ok == 0 && !wrote;
  printf("%s (b) pb67's element: min det J %.3e at its GLL nodes, rule %s, writer %s\n", good ? "ok  " : "FAIL", lo,
         ok == 1 ? "passes" : "fails", wrote ? "wrote" : "refused");
  fail |= !good;
  /* (c) a caller that checked det J itself (hexpack box and rods: hx_export_opts.checked) skips
     the writers' pass over the nodes, not Nek's rule; --force writes anyway */
  int wc = writes(m, "t108-fold.re2", 0, 1), wf = writes(m, "t108-fold.re2", 1, 0);
  good = !wc && wf;
  printf("%s (c) pb67's element: %s with checked, %s with force\n", good ? "ok  " : "FAIL", wc ? "written" : "refused",
         wf ? "written" : "refused");
  fail |= !good;
  hx_mesh_destroy(&m);
  printf("%s\n", fail ? "t108 FAILED" : "t108 passed");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
