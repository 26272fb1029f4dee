/* t261: the contact models and the volume report of the pebble mesher.
   Usage: t261-pebble-contact BED [MODEL [order=N] [tol=T]], BED one of
     pb67   the 67-pebble DEM bed (inputs/pb67.txt, R = 1.5, cylinder 6.6; 63 overlapping pairs);
     c300   300 spheres poured into a cylinder of radius 5 (hexpack pack --n 300 --container cyl:5
            --seed 3 --trials 20, as the golden runs make it);
   MODEL one of bridge (the default), gap (local shrinking), gap-uniform.
   Checks:
   - the mesh is valid (det J > 0 at the GLL nodes, nodes on their surfaces: hx_mesh_check);
   - the mesh's volume (Gauss quadrature of det J, N + 3 points a direction) equals the fluid
     volume the model says, computed analytically from the input (container less the spheres
     as given, less the bridges' solid, plus what the shrinking freed), within T relative
     (default 3e-5 at order 7, 3e-4 at order 5, 3e-3 below: the order-N geometry's own error, larger
     about the gap model's thin gaps: pb67 at order 7 1.1e-5 with gaps, 2.2e-6 with bridges);
   - the check's volume (GLL quadrature at the nodes) agrees with the Gauss one to T as well;
   - gap model: no bridge (no chamfer boundary, no bridge cylinder); from the mesh's own sphere
     surfaces, every pair of spheres and every sphere and the wall at least g x d apart (d the
     pair's smaller diameter as given), the closest exactly g x d; no radius grown; local: the
     spheres with no contact closer than the gap keep their radius, uniform: one factor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_error.h"
#include "hx_pebble.h"
#include "hx_quality.h"
#include "hx_test_meshes.h"

static int fail = 0;

static int run(int argc, char **argv);
int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  return tm_finalize(run(argc, argv));
}

/* v[Q^3] = (A3 x A2 x A1) u[nd^3], A_k of shape [Q][nd], i fastest (sum factorization) */
static void tensor3(int nd, int Q, const double *A1, const double *A2, const double *A3, const double *u, double *v) {
  double t1[HX_MAX_Q * HX_MAX_ND * HX_MAX_ND], t2[HX_MAX_Q * HX_MAX_Q * HX_MAX_ND];
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int q = 0; q < Q; q++) {
        double s = 0;
        for (int i = 0; i < nd; i++) s += A1[q * nd + i] * u[i + nd * (j + nd * k)];
        t1[q + Q * (j + nd * k)] = s;
      }
  for (int k = 0; k < nd; k++)
    for (int r = 0; r < Q; r++)
      for (int q = 0; q < Q; q++) {
        double s = 0;
        for (int j = 0; j < nd; j++) s += A2[r * nd + j] * t1[q + Q * (j + nd * k)];
        t2[q + Q * (r + Q * k)] = s;
      }
  for (int p = 0; p < Q; p++)
    for (int r = 0; r < Q; r++)
      for (int q = 0; q < Q; q++) {
        double s = 0;
        for (int k = 0; k < nd; k++) s += A3[p * nd + k] * t2[q + Q * (r + Q * k)];
        v[q + Q * (r + Q * p)] = s;
      }
}

/* the mesh's volume: det J by Gauss quadrature, Q = N + 3 points a direction (det J has degree
   3N - 1 a direction; the points beyond the GLL nodes' exactness 2N - 1) */
static double gauss_volume(const hx_mesh *m) {
  int nd = m->nd, Q = nd + 2 > HX_MAX_Q ? HX_MAX_Q : nd + 2, npe = nd * nd * nd;
  double xg[HX_MAX_ND], w[HX_MAX_ND], xq[HX_MAX_Q], wq[HX_MAX_Q], B[HX_MAX_Q * HX_MAX_ND], G[HX_MAX_Q * HX_MAX_ND];
  hx_gll(nd, xg, w);
  hx_gauss(Q, xq, wq);
  hx_lagrange_matrices(nd, xg, Q, xq, B, G);
  double vol = 0;
  static double J[3][3][HX_MAX_Q * HX_MAX_Q * HX_MAX_Q];
  for (hx_lid e = 0; e < m->num_elem; e++) {
    for (int c = 0; c < 3; c++) {
      const double *x = m->x + ((size_t)e * 3 + c) * npe;
      tensor3(nd, Q, G, B, B, x, J[c][0]);
      tensor3(nd, Q, B, G, B, x, J[c][1]);
      tensor3(nd, Q, B, B, G, x, J[c][2]);
    }
    for (int p = 0; p < Q * Q * Q; p++) {
      double det = J[0][0][p] * (J[1][1][p] * J[2][2][p] - J[1][2][p] * J[2][1][p]) -
                   J[0][1][p] * (J[1][0][p] * J[2][2][p] - J[1][2][p] * J[2][0][p]) +
                   J[0][2][p] * (J[1][0][p] * J[2][1][p] - J[1][1][p] * J[2][0][p]);
      vol += wq[p % Q] * wq[(p / Q) % Q] * wq[p / (Q * Q)] * det;
    }
  }
  return vol;
}

/* the gap model's checks on the mesh's spheres (surface k = sphere k) against the bed as given */
static void check_gaps(const hx_mesh *m, const hx_pebble_bed *bed, const hx_pebble_opts *o, int uniform) {
  double g = o->contact_gap, gmin = INFINITY, flo = INFINITY, fhi = 0;
  long close = 0, kept_wrong = 0;
  char *tight = calloc((size_t)bed->n, 1);
  for (hx_lid i = 0; i < bed->n; i++) {
    const hx_surface *S = &m->surfaces[i];
    TM_EXPECT(S->type == HX_SURF_SPHERE && fabs(S->p[0] - bed->xyz[3 * i]) == 0, "surface %d is not sphere %d", (int)i, (int)i);
    TM_EXPECT(S->r <= bed->r[i], "sphere %d grew: %g > %g", (int)i, S->r, bed->r[i]);
    flo = fmin(flo, S->r / bed->r[i]), fhi = fmax(fhi, S->r / bed->r[i]);
    /* the wall (cylinder about the axis of o) and the planes */
    const double *x = bed->xyz + 3 * i;
    double w[3] = {o->cyl_radius - hypot(x[0] - o->cx, x[1] - o->cy), x[2] - o->zlo, o->zhi - x[2]};
    for (int k = 0; k < 3; k++) {
      double given = (w[k] - bed->r[i]) / (2 * bed->r[i]), now = (w[k] - S->r) / (2 * bed->r[i]);
      if (given < g) tight[i] = 1;
      if (given < g) gmin = fmin(gmin, now / g);
      TM_EXPECT(now >= g * (1 - 1e-9) || now >= given, "sphere %d is %g x d from a wall, below the gap %g", (int)i, now, g);
    }
    for (hx_lid j = i + 1; j < bed->n; j++) {
      double dist = 0;
      for (int c = 0; c < 3; c++) dist += (x[c] - bed->xyz[3 * j + c]) * (x[c] - bed->xyz[3 * j + c]);
      dist = sqrt(dist);
      double dmin = 2 * fmin(bed->r[i], bed->r[j]);
      double given = (dist - bed->r[i] - bed->r[j]) / dmin, now = (dist - S->r - m->surfaces[j].r) / dmin;
      if (given < g) close++, tight[i] = tight[j] = 1, gmin = fmin(gmin, now / g);
      TM_EXPECT(now >= g * (1 - 1e-9), "spheres %d and %d are %g x d apart, below the gap %g", (int)i, (int)j, now, g);
    }
  }
  for (hx_lid i = 0; i < bed->n; i++)
    if (!uniform && !tight[i] && m->surfaces[i].r != bed->r[i]) kept_wrong++;
  free(tight);
  printf("gap model: %ld pairs closer than %g x d as given; closest gap now %.9f x the gap; radii x [%.5f, %.5f]\n", close, g,
         gmin, flo, fhi);
  TM_EXPECT(close > 0 && fabs(gmin - 1) < 1e-9, "the closest pair is not at the gap (%.12g x g)", gmin);
  TM_EXPECT(!kept_wrong, "%ld spheres without a close contact changed radius", kept_wrong);
  if (uniform) TM_EXPECT(fhi - flo < 1e-12, "uniform shrinking gave factors %g..%g", flo, fhi);
  for (int s = 0; s < m->num_surfaces; s++)
    TM_EXPECT(!(m->surfaces[s].type == HX_SURF_CYLINDER && fabs(m->surfaces[s].n[2]) != 1), "surface %d is a bridge", s);
  for (int b = 1; b < m->num_bnames; b++) TM_EXPECT(strcmp(m->bnames[b], "chamfer"), "a chamfer boundary in the gap model");
}

static int run(int argc, char **argv) {
  if (argc < 2) {
    printf("usage: t261-pebble-contact pb67|c300 [bridge|gap|gap-uniform] [order=N] [tol=T]\n");
    return 1;
  }
  const char *which = argv[1], *model = argc > 2 ? argv[2] : "bridge";
  hx_pebble_bed *bed = NULL;
  hx_pebble_opts o;
  hx_pebble_opts_default(&o);
  o.order = 7;
  double tol = 0;
  for (int i = 3; i < argc; i++) {
    if (!strncmp(argv[i], "order=", 6)) o.order = atoi(argv[i] + 6);
    else if (!strncmp(argv[i], "tol=", 4)) tol = atof(argv[i] + 4);
    else {
      printf("FAIL: unknown argument '%s'\n", argv[i]);
      return 1;
    }
  }
  if (!tol) tol = o.order >= 7 ? 3e-5 : o.order >= 5 ? 3e-4 : 3e-3;
  int rc;
  o.container = HX_PEBBLE_CYLINDER;
  if (!strcmp(which, "pb67")) {
    char path[2048];
    snprintf(path, sizeof path, "%s/inputs/pb67.txt", getenv("HX_SOURCE_DIR") ? getenv("HX_SOURCE_DIR") : ".");
    rc = hx_pebble_bed_read(path, 1.5, &bed);
    o.cyl_radius = 6.6;
  } else if (!strcmp(which, "c300")) {
    rc = hx_pebble_pack(300, 1.0, 0, 5.0, 3, 20, &bed);
    o.cyl_radius = 5;
  } else {
    printf("FAIL: unknown bed '%s'\n", which);
    return 1;
  }
  if (!strncmp(model, "gap", 3)) o.contact = HX_PEBBLE_GAP;
  if (!strcmp(model, "gap-uniform")) o.contact_shrink = HX_PEBBLE_SHRINK_UNIFORM;
  if (!rc) rc = hx_pebble_opts_finish(&o, bed);
  if (!rc) rc = hx_pebble_bed_check(bed, &o);
  hx_mesh *m = NULL;
  hx_pebble_stats st;
  if (!rc) rc = hx_mesher_pebble(HX_COMM_SELF, bed, &o, &m, &st);
  if (rc) {
    printf("FAIL: meshing: %s\n", hx_error_message());
    return 1;
  }
  printf("%s, %s model: %d spheres, %d elements at order %d, %d bridges + %d at walls, %d spheres shrunk (up to %.3f %%)\n",
         which, model, (int)bed->n, (int)m->num_elem, m->order, (int)st.num_bridges, (int)st.num_wall_bridges, (int)st.num_shrunk,
         100 * st.max_shrink);
  hx_mesh_check_report rep;
  rc = hx_mesh_check(m, 1e-12, &rep);
  TM_EXPECT(rc == HX_OK, "hx_mesh_check: %s", hx_error_message());
  hx_error_clear();
  double vol = gauss_volume(m);
  double ideal = st.vol_container - st.vol_solid, want = ideal - st.bridge_volume + st.vol_shrink;
  double rel = (vol - want) / want, rel_gll = (rep.volume - vol) / vol;
  printf("volumes: container %.6f, spheres %.6f, fluid as given %.6f; bridges %.6f (%.3f %%), shrinking %.6f (%.3f %%)\n",
         st.vol_container, st.vol_solid, ideal, st.bridge_volume, 100 * st.bridge_volume / ideal, st.vol_shrink,
         100 * st.vol_shrink / ideal);
  printf("fluid: model %.6f, mesh %.6f (Gauss), relative difference %.2e (tolerance %.1e); GLL at the nodes %.6f (%.2e)\n", want,
         vol, rel, tol, rep.volume, rel_gll);
  TM_EXPECT(fabs(rel) < tol, "the mesh's volume differs from the model's by %.2e relative", rel);
  TM_EXPECT(fabs(rel_gll) < tol, "the check's GLL volume differs from the Gauss one by %.2e", rel_gll);
  if (o.contact == HX_PEBBLE_BRIDGE)
    TM_EXPECT(st.bridge_volume > 0 && st.vol_shrink == 0 && st.num_shrunk == 0, "bridge model: no bridge volume, or shrinking");
  else check_gaps(m, bed, &o, o.contact_shrink == HX_PEBBLE_SHRINK_UNIFORM);
  /* the quality, for the record */
  hx_quality_opts qo;
  hx_quality_opts_default(&qo);
  qo.num_worst = 0;
  hx_quality_report qr;
  if (hx_quality_mesh(m, &qo, NULL, &qr) == HX_OK) {
    printf("quality: Nek scaled Jacobian min %.4f mean %.4f, aspect max %.1f\n", qr.stat[4].min, qr.stat[4].mean, qr.stat[6].max);
    hx_quality_report_free(&qr);
  }
  hx_mesh_destroy(&m);
  hx_pebble_bed_destroy(&bed);
  printf("%s\n", fail ? "FAILED" : "all ok");
  return fail;
}
