/* t250: pebble-bed meshes, checked against independent computations.
   Usage: t250-pebble-mesh CASE, CASE one of
     box    12 monodisperse spheres dropped into a cylinder (hexpack pack, seed 1),
            meshed in the box around them, order 4;
     poly   30 spheres with radii 1 +- 20% (power diagram), box, order 4;
     pb67   the 67-pebble DEM bed (inputs/pb67.txt, R = 1.5, cylinder 6.6), order 2.
   Options after CASE: split=K, nek (--score nek), smooth=S, linear, order=N, aspect=A (--aspect A
   with --ratio 1 --score nek: some diagram edges must then be cut).
   Checks:
   - det J > 0 at every GLL node, equal node ids have equal coordinates, and every
     boundary-face node lies on its analytic surface (sphere, bridge cylinder,
     container) to 1e-12 relative (hx_mesh_check);
   - watertight: every element face is either shared by exactly two elements with
     the same order-N node ids (as sets) or is a recorded boundary face, and every
     recorded boundary face is unshared;
   - the fluid volume (GLL quadrature of det J) equals a Monte-Carlo estimate of the
     container minus the spheres minus the bridges (cylinders of radius r about the
     line of centres, between the centres; sphere-wall bridges from the centre to the
     wall), computed from the input alone, within 4 standard errors;
   - the boundary ids are contiguous from 1 and named. */
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

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static double urand(void) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return (double)(rs >> 11) * (1.0 / 9007199254740992.0);
}

static int run(int argc, char **argv);
int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  return tm_finalize(run(argc, argv));
}

static int run(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "box";
  hx_pebble_bed *bed = NULL;
  hx_pebble_opts o;
  hx_pebble_opts_default(&o);
  int rc;
  if (!strcmp(which, "pb67")) {
    char path[2048];
    snprintf(path, sizeof path, "%s/inputs/pb67.txt", getenv("HX_SOURCE_DIR") ? getenv("HX_SOURCE_DIR") : ".");
    rc = hx_pebble_bed_read(path, 1.5, &bed);
    o.container = HX_PEBBLE_CYLINDER;
    o.cyl_radius = 6.6;
    o.order = 2;
  } else if (!strncmp(which, "file:", 5)) {
    /* a bed from a file (tests/data), in its default cylinder, at order 3 */
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", getenv("HX_SOURCE_DIR") ? getenv("HX_SOURCE_DIR") : ".", which + 5);
    rc = hx_pebble_bed_read(path, 1.0, &bed);
    o.container = HX_PEBBLE_CYLINDER;
    o.order = 3;
  } else if (!strncmp(which, "cyl", 3)) {
    /* a poured bed in a cylinder (loose near the wall: cells reach it between spheres
       far apart along it, where the mirrors' tangent planes meet outside) */
    int poly = !strcmp(which, "cylpoly");
    rc = hx_pebble_pack(150, 1.0, poly ? 0.25 : 0, 4.0, poly ? 8 : 1, 8, &bed);
    o.container = HX_PEBBLE_CYLINDER;
    o.order = 3;
  } else {
    int poly = !strcmp(which, "poly");
    rc = hx_pebble_pack(poly ? 30 : 12, 1.0, poly ? 0.2 : 0, poly ? 4.0 : 3.0, poly ? 3 : 1, 8, &bed);
    o.container = HX_PEBBLE_BOX;
    o.order = 4;
  }
  /* further arguments: split=K (facet quads cut K x K), nek (variants scored by the Nek
     scaled Jacobian too), smooth=S (S sweeps of the facet-node optimization), linear
     (order-N points spaced evenly along the layers, the rings' edges and the fans' spokes),
     order=N, one (--contact-layers one) */
  for (int i = 2; i < argc; i++) {
    if (!strncmp(argv[i], "split=", 6)) o.split = atoi(argv[i] + 6);
    else if (!strcmp(argv[i], "nek")) o.score_nek = 1;
    else if (!strncmp(argv[i], "smooth=", 7)) o.smooth = atoi(argv[i] + 7);
    else if (!strcmp(argv[i], "linear")) o.radial_volume = o.ring_volume = 0;
    else if (!strncmp(argv[i], "order=", 6)) o.order = atoi(argv[i] + 6);
    else if (!strcmp(argv[i], "one")) o.contact_layers = 1;
    else if (!strncmp(argv[i], "aspect=", 7)) o.aspect = atof(argv[i] + 7), o.ratio = 1, o.score_nek = 1;
    else {
      printf("FAIL: unknown argument '%s'\n", argv[i]);
      return 1;
    }
  }
  if (!rc) rc = hx_pebble_opts_finish(&o, bed);
  if (!rc) rc = hx_pebble_bed_check(bed, &o);
  hx_mesh *m = NULL;
  hx_pebble_stats st;
  if (!rc) rc = hx_mesher_pebble(HX_COMM_SELF, bed, &o, &m, &st);
  if (rc) {
    printf("FAIL: meshing: %s\n", hx_error_message());
    return 1;
  }
  double rmin = INFINITY, rmax = 0;
  for (hx_lid i = 0; i < bed->n; i++) rmin = fmin(rmin, bed->r[i]), rmax = fmax(rmax, bed->r[i]);
  printf("case %s: %d spheres (radii %.3f..%.3f), %d elements at order %d, %d bridges + %d at walls\n", which, (int)bed->n, rmin,
         rmax, (int)m->num_elem, m->order, (int)st.num_bridges, (int)st.num_wall_bridges);
  if (!strcmp(which, "poly")) TM_EXPECT(rmax > 1.1 * rmin, "the polydisperse bed has equal radii");
  if (o.aspect > 0) {
    printf("--aspect %g: %d diagram edges cut (+%d segments)\n", o.aspect, (int)st.num_cut_edges, (int)st.num_cut_segments);
    TM_EXPECT(st.num_cut_edges > 0 && st.num_cut_segments >= 2 * st.num_cut_edges, "--aspect cut no edge");
  }
  /* 1. invariants */
  hx_mesh_check_report rep;
  rc = hx_mesh_check(m, 1e-12, &rep);
  printf("check: bad elements %lld (min det J %.3e), id mismatches %lld (max %.2e), off-surface nodes %lld (max rel "
         "%.2e), bad faces %lld\n",
         (long long)rep.bad_elems, rep.min_detj, (long long)rep.id_mismatch, rep.id_max_dist, (long long)rep.off_surface,
         rep.surf_max_rel, (long long)rep.bad_faces);
  TM_EXPECT(rc == HX_OK, "hx_mesh_check: %s", hx_error_message());
  hx_error_clear();
  /* 2. watertight */
  tm_faces wt;
  if (tm_watertight(m, &wt, 1)) return 1;
  printf("faces: %ld interior (shared by 2), %ld boundary (%d recorded); %ld faces in 3+ elements, %ld boundary "
         "mismatches, %ld shared faces with different nodes\n",
         wt.shared, wt.boundary, (int)m->num_faces, wt.bad_share, wt.bad_bound, wt.bad_nodes);
  TM_EXPECT(wt.bad_share == 0 && wt.bad_bound == 0 && wt.bad_nodes == 0 && wt.boundary == m->num_faces, "mesh is not watertight");
  /* 3. boundary ids contiguous from 1 */
  for (int b = 1; b < m->num_bnames; b++) {
    long n = 0;
    for (hx_lid k = 0; k < m->num_faces; k++) n += m->faces[k].bid == b;
    printf("boundary %d %-8s %ld faces\n", b, m->bnames[b] ? m->bnames[b] : "(null)", n);
    TM_EXPECT(n > 0 && m->bnames[b], "boundary id %d is empty or unnamed", b);
  }
  /* 4. volume: quadrature vs Monte Carlo */
  int nd = m->nd;
  double xg[HX_MAX_ND], wg[HX_MAX_ND], *D = malloc(sizeof(double) * nd * nd);
  hx_gll(nd, xg, wg);
  hx_mesh_gll_derivative(nd, D);
  double vol = 0;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          double J[3][3];
          vol += wg[i] * wg[j] * wg[k] * hx_mesh_jacobian_at_node(m, D, e, i, j, k, J);
        }
  free(D);
  /* container bounds and the bridges from the mesh's surfaces (cylinders other than
     the container): the solid between the centres on their axis */
  double lo[3], hi[3];
  int cyl = o.container == HX_PEBBLE_CYLINDER;
  if (cyl) lo[0] = lo[1] = -o.cyl_radius, hi[0] = hi[1] = o.cyl_radius;
  else lo[0] = o.box_lo[0], lo[1] = o.box_lo[1], hi[0] = o.box_hi[0], hi[1] = o.box_hi[1];
  lo[2] = o.zlo, hi[2] = o.zhi;
  int nbr = 0;
  typedef struct {
    double a[3], u[3], len, r;
  } seg;
  seg *br = malloc(sizeof(seg) * (size_t)(m->num_surfaces + 1));
  for (int s = 0; s < m->num_surfaces; s++) {
    const hx_surface *S = &m->surfaces[s];
    if (S->type != HX_SURF_CYLINDER || (cyl && fabs(S->r - o.cyl_radius) < 1e-12 && fabs(S->n[2]) == 1)) continue;
    int on[2], non = 0;
    for (hx_lid i = 0; i < bed->n && non < 2; i++) {
      double d[3], t = 0, q = 0;
      for (int c = 0; c < 3; c++) d[c] = bed->xyz[3 * i + c] - S->p[c], t += d[c] * S->n[c];
      for (int c = 0; c < 3; c++) q += (d[c] - t * S->n[c]) * (d[c] - t * S->n[c]);
      if (sqrt(q) < 1e-9 * bed->r[i]) on[non++] = (int)i;
    }
    seg *g = &br[nbr++];
    g->r = S->r;
    if (non == 2) {
      double L = 0;
      for (int c = 0; c < 3; c++)
        g->a[c] = bed->xyz[3 * on[0] + c], g->u[c] = bed->xyz[3 * on[1] + c] - g->a[c], L += g->u[c] * g->u[c];
      L = sqrt(L);
      for (int c = 0; c < 3; c++) g->u[c] /= L;
      g->len = L;
    } else if (non == 1) { /* to the wall: from the centre through the facet point */
      double t = 0;
      for (int c = 0; c < 3; c++) g->a[c] = bed->xyz[3 * on[0] + c], t += (S->p[c] - g->a[c]) * S->n[c];
      for (int c = 0; c < 3; c++) g->u[c] = t > 0 ? S->n[c] : -S->n[c];
      g->len = 1e30;
    } else {
      printf("FAIL: bridge surface %d has %d sphere centres on its axis\n", s, non);
      fail = 1;
      nbr--;
    }
  }
  long nmc = 2000000, hits = 0;
  for (long q = 0; q < nmc; q++) {
    double x[3];
    for (int c = 0; c < 3; c++) x[c] = lo[c] + (hi[c] - lo[c]) * urand();
    if (cyl && x[0] * x[0] + x[1] * x[1] > o.cyl_radius * o.cyl_radius) continue;
    int solid = 0;
    for (hx_lid i = 0; i < bed->n && !solid; i++) {
      double d2 = 0;
      for (int c = 0; c < 3; c++) d2 += (x[c] - bed->xyz[3 * i + c]) * (x[c] - bed->xyz[3 * i + c]);
      if (d2 < bed->r[i] * bed->r[i]) solid = 1;
    }
    for (int b = 0; b < nbr && !solid; b++) {
      double d[3], t = 0, q2 = 0;
      for (int c = 0; c < 3; c++) d[c] = x[c] - br[b].a[c], t += d[c] * br[b].u[c];
      if (t < 0 || t > br[b].len) continue;
      for (int c = 0; c < 3; c++) q2 += (d[c] - t * br[b].u[c]) * (d[c] - t * br[b].u[c]);
      if (q2 < br[b].r * br[b].r) solid = 1;
    }
    hits += !solid;
  }
  free(br);
  double vbox = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]), p = (double)hits / nmc;
  double vmc = vbox * p, sigma = vbox * sqrt(p * (1 - p) / nmc);
  printf("fluid volume: mesh %.6f, Monte Carlo %.6f +- %.6f (1 sigma, %ld samples); difference %.2f sigma\n", vol, vmc, sigma,
         nmc, (vol - vmc) / sigma);
  TM_EXPECT(fabs(vol - vmc) < 4 * sigma, "fluid volume differs from the Monte-Carlo estimate by more than 4 sigma");
  hx_mesh_destroy(&m);
  hx_pebble_bed_destroy(&bed);
  printf("%s\n", fail ? "FAILED" : "all ok");
  return fail;
}
