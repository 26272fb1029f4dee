/* t683: regression for inverted columns next to a container wall in large beds (issue 5).
   The 29 spheres below (radius 1) are a window of a 10^4-sphere bed dropped by
   `hexpack pack --n 10000 --container box:19.4194 --trials 20` (its top layer next to the
   wall y = -19.4194), trimmed by deleting spheres while the bug stayed. Before the fix
   the diagram clean-up moved a cluster of 7 collapsed power-diagram vertices on the top
   plane to their mean, 0.14 off the power plane of spheres 20 and 27 (0-based below),
   whose small triangular facet then was no longer star-shaped seen from sphere 27: every
   tessellation variant left a column with corner Jacobians < 0 and the order-1 mesh had 3
   elements with det J < 0 (min -5.6e-4). Checks, at order 1 and order 3:
   - the mesher succeeds and reports no element with det J <= 0;
   - hx_mesh_check: det J > 0 at every GLL node, consistent node ids, boundary nodes on
     their analytic surfaces (1e-12 relative);
   - watertight: every element face is shared by exactly two elements with the same
     node ids (as sets) or is a recorded boundary face, and no recorded face is shared;
   - the smallest corner scaled Jacobian of the linear mesh is above 0.02.
   With arguments BED RC SJ it runs the same checks on a bed file in a cylinder of radius RC
   (SJ the corner scaled Jacobian bound); t683-pebble-thin-column-* so run three thin columns
   of 30 spheres in a cylinder of radius 3 (1.5 d; `hexpack pack --n 30 --container cyl:3
   --trials 20`, the seeds in the files' first lines), which failed before: "the facet between
   spheres 28 and the wall near sphere 28 is not star-shaped" (seed 1: the top sphere's cell
   covers a wide arc of the wall far round from it, folded when projected onto the plane at
   its pierce point), the same for seed 5 with --poly 0.2 (a top-plane facet closed by a rim
   arc longer than half the circle, taken on the wrong side), and 3 elements with det J <= 0
   at order 3 (seed 11). t683-pebble-unrolled-bridge runs a 40-sphere bed (`--n 40
   --container cyl:3 --seed 4`) whose top sphere's wall facet is meshed in the unrolled chart
   and holds a sphere-wall bridge: its circle's nodes lay at arc length rb on the wall, up to
   rb^3 / (6 R^2) inside the bridge's side, and 140 boundary nodes were off their surface. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "hx_pebble.h"
#include "hx_test_meshes.h"

static int fail = 0;

static const double xyz[][3] = {
    {4.2255379629758503, -10.932392835823242, 63.33665529643816},  {10.628874351793071, -15.576150228561751, 63.490519195275326},
    {9.9119358059100033, -11.596595172277773, 63.011510986043056}, {13.280149465005012, -9.4256099601125083, 63.903901532306648},
    {6.0648079902085446, -17.685554816936477, 64.253116947414185}, {5.3165962612867066, -14.421053741724913, 64.710102184175682},
    {8.5563660902820295, -9.2854596422109754, 64.241701909545171}, {8.7012859683407928, -15.175916258501069, 64.475032699021583},
    {10.292422427387182, -12.830461864745386, 64.538862588033254}, {13.108380045819832, -13.732573334534527, 64.774303366550683},
    {4.4930314938075071, -12.548289962959133, 64.598658670313966}, {12.1837114605654, -11.257233773208334, 64.892465231626929},
    {9.0222152571698633, -10.945445771544431, 65.255324425146767}, {7.4060121299398229, -16.627132817297866, 65.292787244312606},
    {10.706866888466926, -14.495093229448118, 65.567083482750121}, {7.2038331439154044, -14.280299254242905, 65.452532172324752},
    {11.714045512231518, -9.5095586124991289, 65.743961226696257}, {13.86153688868492, -17.493397803976226, 65.956276434332821},
    {6.325014773709337, -11.890114094112979, 65.777575215087367},  {9.057214212548466, -16.088457916805602, 66.284432863459131},
    {9.7611562052982173, -11.715231325052937, 66.946890704308046}, {7.9696636498785391, -12.774386313460823, 66.52291988288836},
    {11.978802508444934, -12.789757831541728, 66.161079567024146}, {12.369219912397728, -14.976034996016669, 66.569718730984519},
    {4.745663797526503, -10.862917170683993, 66.448780827795602},  {12.105011148650469, -17.99008313518501, 66.773540777346582},
    {7.6536490972309581, -10.694581786390501, 66.692019913699767}, {6.8935760097403183, -14.455776849642, 67.420512894845757},
    {7.8914941678259849, -17.832255275033891, 66.8133092115187},
};

/* smallest corner scaled Jacobian of the trilinear hexes of the element corners */
static double min_corner_sj(const hx_mesh *m) {
  double worst = INFINITY;
  int nd = m->nd, q = nd - 1, n3 = nd * nd * nd;
  for (hx_lid e = 0; e < m->num_elem; e++) {
    const double *x = m->x + (size_t)e * 3 * n3; /* [3][nd][nd][nd] */
    for (int c = 0; c < 8; c++) {
      int i = c & 1, j = c >> 1 & 1, k = c >> 2 & 1;
      int p = hx_lex(nd, i * q, j * q, k * q), pi = hx_lex(nd, (1 - i) * q, j * q, k * q),
          pj = hx_lex(nd, i * q, (1 - j) * q, k * q), pk = hx_lex(nd, i * q, j * q, (1 - k) * q);
      double J[3][3];
      for (int d = 0; d < 3; d++) {
        J[d][0] = (x[d * n3 + pi] - x[d * n3 + p]) * (i ? -1 : 1);
        J[d][1] = (x[d * n3 + pj] - x[d * n3 + p]) * (j ? -1 : 1);
        J[d][2] = (x[d * n3 + pk] - x[d * n3 + p]) * (k ? -1 : 1);
      }
      double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                   J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
      double l = 1;
      for (int a = 0; a < 3; a++) l *= sqrt(J[0][a] * J[0][a] + J[1][a] * J[1][a] + J[2][a] * J[2][a]);
      worst = fmin(worst, det / l);
    }
  }
  return worst;
}

/* mesh the bed with o at its order and run the checks */
static int check_bed(const hx_pebble_bed *bed, hx_pebble_opts *o, double min_sj) {
  int order = o->order;
  hx_mesh *m = NULL;
  hx_pebble_stats st;
  int rc = hx_pebble_opts_finish(o, bed);
  if (!rc) rc = hx_pebble_bed_check(bed, o);
  if (!rc) rc = hx_mesher_pebble(HX_COMM_SELF, bed, o, &m, &st);
  if (rc) {
    printf("FAIL: order %d: meshing: %s\n", order, hx_error_message());
    return 1;
  }
  printf("order %d: %d spheres, %d elements, %d facets, %d collapsed edges, %d dropped facets\n", order, (int)bed->n,
         (int)m->num_elem, (int)st.num_facets, (int)st.num_collapsed, (int)st.num_dropped_facets);
  hx_mesh_check_report rep;
  rc = hx_mesh_check(m, 1e-12, &rep);
  printf("  check: bad elements %lld (min det J %.3e), id mismatches %lld, off-surface nodes %lld, bad faces %lld\n",
         (long long)rep.bad_elems, rep.min_detj, (long long)rep.id_mismatch, (long long)rep.off_surface,
         (long long)rep.bad_faces);
  TM_EXPECT(rc == HX_OK && rep.bad_elems == 0, "order %d: hx_mesh_check: %s", order, hx_error_message());
  hx_error_clear();
  /* watertight */
  tm_faces wt;
  if (tm_watertight(m, &wt, 1)) {
    hx_mesh_destroy(&m);
    return 1;
  }
  long bad = wt.bad_share + wt.bad_bound + wt.bad_nodes;
  printf("  faces: %ld shared, %ld boundary (%d recorded), %ld bad\n", wt.shared, wt.boundary, (int)m->num_faces, bad);
  TM_EXPECT(bad == 0 && wt.boundary == m->num_faces, "order %d: the mesh is not watertight", order);
  double sj = min_corner_sj(m);
  printf("  smallest corner scaled Jacobian %.4f\n", sj);
  TM_EXPECT(sj > min_sj, "order %d: smallest corner scaled Jacobian %.4f <= %g", order, sj, min_sj);
  hx_mesh_destroy(&m);
  return 0;
}

static int run(int argc, char **argv);
int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  return tm_finalize(run(argc, argv));
}

/* no arguments: the bed above; BED RC [SJ]: the bed file in the cylinder of radius RC about z,
   its smallest corner scaled Jacobian above SJ (0.02) */
static int run(int argc, char **argv) {
  double min_sj = argc >= 4 ? atof(argv[3]) : 0.02;
  for (int order = 1; order <= 3; order += 2) {
    hx_pebble_bed *bed = NULL;
    hx_pebble_opts o;
    hx_pebble_opts_default(&o);
    o.order = order;
    int rc;
    if (argc >= 3) {
      o.container = HX_PEBBLE_CYLINDER;
      o.cyl_radius = atof(argv[2]);
      rc = hx_pebble_bed_read(argv[1], 1.0, &bed);
    } else {
      o.container = HX_PEBBLE_BOX;
      o.box_lo[0] = 2.936007, o.box_hi[0] = 14.961537;
      o.box_lo[1] = -19.4194, o.box_hi[1] = -8.185460;
      o.zhi = 68.76287547602679;
      rc = hx_pebble_bed_create((hx_lid)(sizeof xyz / sizeof xyz[0]), &xyz[0][0], NULL, 1.0, &bed);
    }
    if (rc) {
      printf("FAIL: the bed: %s\n", hx_error_message());
      return 1;
    }
    if (check_bed(bed, &o, min_sj)) fail = 1;
    hx_pebble_bed_destroy(&bed);
  }
  printf(fail ? "FAILED\n" : "PASSED\n");
  return fail;
}
