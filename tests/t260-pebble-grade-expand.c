/* t260: --grade-expand T (hx_pebble_opts.grade_expand, issue 5). A column whose facet end is
   h above its sphere (radius R) is radial: its foot is the facet point's projection towards the
   centre, so its quads widen like the distance from the centre. With --grade-expand T such a
   column gets the growth ratio q = ((R + h) / R)^(1/L) of that widening where h >= 2 T d,
   blended from 1 at h = T d (q_b = 1 + (q - 1) (h - T d) / (T d)), and the user's ratio (here
   1: even layers) below T d. So in a radial column of the order-1 mesh the layer nodes are at
   radii r_k with r_k - r_(k-1) = t0 q_b^(k-1), t0 from sum = h; where q_b = q exactly,
   r_k = R q^k. 30 spheres of radius 1 dropped into a cylinder of radius 3 (hx_pebble_pack,
   seed 3), 3 layers, --ratio 1:
   - with --grade-expand 0.1: every radial column's layer radii match the rule above to 1e-9
     (computed here from the column's own end points), with columns checked in each of the
     three ranges (even, blended, full);
   - with --grade-expand 0 (the control): every radial column's layers are even, and some
     column taller than 0.2 d (2 T) exists, so the expanded rule differs there;
   - both meshes: det J > 0 at every GLL node, boundary nodes on their surfaces (1e-12),
     watertight, at order 1 and order 3. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "hx_pebble.h"
#include "hx_test_meshes.h"

static int fail = 0;

#define R 1.0
#define L 3

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* the radii of the layer nodes of every radial column of mesh m (order 1), checked against
   the rule of grade_expand T (0: even layers); counts[3]: columns checked below T d, blended,
   full; *hmax: the tallest column */
static void check_columns(const hx_mesh *m, const hx_pebble_bed *bed, double T, long counts[3], double *hmax) {
  int n3 = m->nd * m->nd * m->nd;
  hx_lid np = m->num_elem * 8;
  double *P = malloc((size_t)np * 3 * sizeof *P);
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int c = 0; c < 8; c++)
      for (int d = 0; d < 3; d++) P[3 * (e * 8 + c) + d] = m->x[(size_t)e * 3 * n3 + (size_t)d * n3 + hx_corner_lex(m->nd, c)];
  double Td = T * 2 * R, worst = 0;
  *hmax = 0;
  counts[0] = counts[1] = counts[2] = 0;
  for (hx_lid s = 0; s < bed->n; s++) {
    const double *c = bed->xyz + 3 * s;
    for (hx_lid a = 0; a < np; a++) {
      double u[3], ru = 0;
      for (int d = 0; d < 3; d++) u[d] = P[3 * a + d] - c[d], ru += u[d] * u[d];
      ru = sqrt(ru);
      if (fabs(ru - R) > 1e-12) continue; /* a foot on sphere s */
      for (int d = 0; d < 3; d++) u[d] /= ru;
      double r[64];
      int nr = 0;
      for (hx_lid b = 0; b < np && nr < 64; b++) {
        double v[3], t = 0, off = 0;
        for (int d = 0; d < 3; d++) v[d] = P[3 * b + d] - c[d], t += v[d] * u[d];
        if (!(t > R + 1e-9)) continue;
        for (int d = 0; d < 3; d++) off += (v[d] - t * u[d]) * (v[d] - t * u[d]);
        if (sqrt(off) > 1e-9 * t) continue;
        int dup = 0;
        for (int k = 0; k < nr; k++) dup |= fabs(r[k] - t) < 1e-9;
        if (!dup) r[nr++] = t;
      }
      if (nr != L) continue; /* not a radial column (a bridge's, along its axis) */
      qsort(r, (size_t)nr, sizeof *r, cmp_dbl);
      double h = r[L - 1] - R, g = 1;
      *hmax = fmax(*hmax, h);
      int range = 0;
      if (Td > 0 && h > Td) {
        double q = pow((R + h) / R, 1.0 / L);
        range = h >= 2 * Td ? 2 : 1;
        g = 1 + (q - 1) * fmin(1, (h - Td) / Td);
      }
      /* layer k of thickness t0 g^k, the L layers summing to h */
      double sum = 0;
      for (int k = 0; k < L; k++) sum += pow(g, k);
      double rk = R, err = 0;
      for (int k = 0; k < L; k++) {
        rk += h * pow(g, k) / sum;
        err = fmax(err, fabs(r[k] - rk) / r[k]);
      }
      if (range == 2) err = fmax(err, fabs(r[0] - R * pow((R + h) / R, 1.0 / L)) / r[0]);
      worst = fmax(worst, err);
      counts[range]++;
    }
  }
  printf("  radial columns: %ld even, %ld blended, %ld full; tallest %.3f; largest deviation %.2e\n", counts[0], counts[1],
         counts[2], *hmax, worst);
  TM_EXPECT(worst < 1e-9, "T = %g: the layer radii deviate by %.2e from the rule", T, worst);
  free(P);
}

static int mesh_bed(const hx_pebble_bed *bed, double T, int order, hx_mesh **m) {
  hx_pebble_opts o;
  hx_pebble_opts_default(&o);
  o.order = order;
  o.container = HX_PEBBLE_CYLINDER;
  o.cyl_radius = 3;
  o.ratio = 1;
  o.layers = L;
  o.grade_expand = T;
  hx_pebble_stats st;
  int rc = hx_pebble_opts_finish(&o, bed);
  if (!rc) rc = hx_pebble_bed_check(bed, &o);
  if (!rc) rc = hx_mesher_pebble(HX_COMM_SELF, bed, &o, m, &st);
  if (rc) printf("FAIL: T = %g, order %d: %s\n", T, order, hx_error_message());
  return rc;
}

static void check_valid(const hx_mesh *m, double T) {
  hx_mesh_check_report rep;
  int rc = hx_mesh_check(m, 1e-12, &rep);
  TM_EXPECT(rc == HX_OK && rep.bad_elems == 0 && rep.off_surface == 0,
            "T = %g, order %d: hx_mesh_check: %lld bad elements, %lld nodes off their surfaces", T, m->order,
            (long long)rep.bad_elems, (long long)rep.off_surface);
  hx_error_clear();
  tm_faces wt;
  if (tm_watertight(m, &wt, 0)) {
    fail = 1;
    return;
  }
  long bad = wt.bad_share + wt.bad_bound + wt.bad_nodes;
  TM_EXPECT(bad == 0 && wt.boundary == m->num_faces, "T = %g, order %d: not watertight", T, m->order);
  printf("  order %d: %d elements, min det J %.3e, watertight\n", m->order, (int)m->num_elem, rep.min_detj);
}

static int run(void) {
  const double Ts[2] = {0.1, 0};
  hx_pebble_bed *bed = NULL;
  if (hx_pebble_pack(30, R, 0, 3, 3, 20, &bed)) {
    printf("FAIL: the packing: %s\n", hx_error_message());
    return 1;
  }
  for (int t = 0; t < 2 && !fail; t++) {
    double T = Ts[t];
    printf("--grade-expand %g:\n", T);
    for (int order = 1; order <= 3; order += 2) {
      hx_mesh *m = NULL;
      if (mesh_bed(bed, T, order, &m)) {
        hx_pebble_bed_destroy(&bed);
        return 1;
      }
      check_valid(m, T);
      if (order == 1) {
        long counts[3];
        double hmax;
        check_columns(m, bed, T, counts, &hmax);
        if (T > 0)
          TM_EXPECT(counts[0] > 10 && counts[1] > 10 && counts[2] > 10,
                    "T = %g: too few radial columns checked in a range (%ld / %ld / %ld)", T, counts[0], counts[1], counts[2]);
        else TM_EXPECT(counts[0] > 30 && hmax > 2 * 0.1 * 2 * R, "control: %ld columns, tallest %.3f", counts[0], hmax);
      }
      hx_mesh_destroy(&m);
    }
  }
  hx_pebble_bed_destroy(&bed);
  printf(fail ? "FAILED\n" : "PASSED\n");
  return fail;
}

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  return tm_finalize(run());
}
