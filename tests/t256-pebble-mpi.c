/* t256: the pebble mesher distributed over the ranks gives the 1-rank mesh.
   Usage: t256-pebble-mpi [CASE] (under mpiexec with 1, 2 or 4 ranks; no CASE: both), CASE one of
     box   30 spheres with radii 1 +- 20 % dropped into a square prism, box container,
           inlet and outlet extrusions (3 and 2 layers), order 3;
     pb67  the 67-pebble DEM bed (inputs/pb67.txt, R = 1.5, cylinder 6.6), order 2.
   Every rank also meshes the whole bed on its own (HX_COMM_SELF) and compares:
   - the global element count, each rank's element range (elem_offset), and for every
     local element its global counterpart: the same corner ids, the same order-N node
     ids and bitwise the same coordinates, the same region;
   - the boundary faces of the local elements: the same (element, face, id, surface)
     records as the 1-rank mesh's faces of those elements; names and surfaces equal;
   - hx_mesh_check passes on the distributed mesh (collective), with the same min det J;
   - the fluid volume (GLL quadrature of det J, summed over ranks) equals the 1-rank one.
   The printed figures do not depend on the number of ranks (one golden file). */
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

static double volume(const hx_mesh *m) {
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
  return vol;
}

typedef struct frec {
  int64_t e;
  int32_t f, bid, surf;
} frec;
static int cmp_frec(const void *a, const void *b) {
  const frec *x = a, *y = b;
  if (x->e != y->e) return x->e < y->e ? -1 : 1;
  if (x->f != y->f) return x->f < y->f ? -1 : 1;
  if (x->bid != y->bid) return x->bid < y->bid ? -1 : 1;
  return x->surf < y->surf ? -1 : x->surf > y->surf;
}

static int run(hx_comm comm, const char *which) {
  int rank = hx_comm_rank(comm);
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
  } else {
    rc = hx_pebble_pack2(30, 1.0, 0.2, 3.0, 1, 5, 8, &bed);
    o.container = HX_PEBBLE_BOX;
    o.box_lo[0] = o.box_lo[1] = -3, o.box_hi[0] = o.box_hi[1] = 3;
    o.inlet_len = 2, o.inlet_layers = 3;
    o.outlet_len = 1.5, o.outlet_layers = 2;
    o.order = 3;
  }
  if (!rc) rc = hx_pebble_opts_finish(&o, bed);
  if (!rc) rc = hx_pebble_bed_check(bed, &o);
  hx_mesh *md = NULL, *ms = NULL;
  hx_pebble_stats st, st1;
  if (!rc) rc = hx_mesher_pebble(comm, bed, &o, &md, &st);
  if (!rc) rc = hx_mesher_pebble(HX_COMM_SELF, bed, &o, &ms, &st1);
  if (rc) {
    printf("FAIL: meshing: %s\n", hx_error_message());
    return 1;
  }
  int64_t cnt[2] = {md->num_elem, md->num_elem > 0};
  hx_comm_sum_int64(comm, cnt, 2);
  if (rank == 0)
    printf("case %s: %d spheres, %lld elements at order %d (bulk %d, inlet %d, outlet %d)\n", which, (int)bed->n,
           (long long)md->num_elem_global, md->order, (int)st.elems_bulk, (int)st.elems_inlet, (int)st.elems_outlet);
  TM_EXPECT(cnt[0] == ms->num_elem && md->num_elem_global == ms->num_elem, "element count %lld (global %lld) vs 1 rank %d",
            (long long)cnt[0], (long long)md->num_elem_global, (int)ms->num_elem);
  TM_EXPECT(cnt[1] == hx_comm_size(comm), "only %lld of %d ranks got elements", (long long)cnt[1], hx_comm_size(comm));
  TM_EXPECT(st.elems_bulk == st1.elems_bulk && st.elems_inlet == st1.elems_inlet && st.elems_outlet == st1.elems_outlet,
            "stats differ from the 1-rank run");
  int64_t off = 0;
  hx_comm_exscan_int64(comm, md->num_elem, &off);
  TM_EXPECT(md->elem_offset == off, "elem_offset %lld, expected %lld", (long long)md->elem_offset, (long long)off);
  /* element by element against the 1-rank mesh */
  long bad_v = 0, bad_n = 0, bad_x = 0, bad_a = 0;
  size_t npe = (size_t)md->nd * md->nd * md->nd;
  for (hx_lid e = 0; e < md->num_elem && md->order == ms->order; e++) {
    hx_lid g = (hx_lid)(md->elem_offset + e);
    if (g >= ms->num_elem) {
      bad_v++;
      continue;
    }
    bad_v += memcmp(md->vert_id + 8 * (size_t)e, ms->vert_id + 8 * (size_t)g, 8 * sizeof(hx_gid)) != 0;
    bad_n += memcmp(md->node_id + npe * e, ms->node_id + npe * g, npe * sizeof(hx_gid)) != 0;
    bad_x += memcmp(md->x + 3 * npe * e, ms->x + 3 * npe * g, 3 * npe * sizeof(double)) != 0;
    bad_a += md->elem_attr[e] != ms->elem_attr[g];
  }
  int64_t bad[4] = {bad_v, bad_n, bad_x, bad_a};
  hx_comm_sum_int64(comm, bad, 4);
  if (rank == 0)
    printf("elements differing from the 1-rank mesh: corner ids %lld, node ids %lld, coordinates %lld, regions %lld\n",
           (long long)bad[0], (long long)bad[1], (long long)bad[2], (long long)bad[3]);
  TM_EXPECT(bad[0] + bad[1] + bad[2] + bad[3] == 0, "the distributed mesh differs from the 1-rank mesh");
  /* boundary faces */
  frec *a = NULL, *b = NULL;
  hx_lid nb = 0;
  if (hx_malloc((size_t)(md->num_faces + 1) * sizeof *a, &a) || hx_malloc((size_t)(ms->num_faces + 1) * sizeof *b, &b)) return 1;
  for (hx_lid k = 0; k < md->num_faces; k++)
    a[k] = (frec){md->faces[k].elem + md->elem_offset, md->faces[k].face, md->faces[k].bid, md->faces[k].surf};
  for (hx_lid k = 0; k < ms->num_faces; k++)
    if (ms->faces[k].elem >= md->elem_offset && ms->faces[k].elem < md->elem_offset + md->num_elem)
      b[nb++] = (frec){ms->faces[k].elem, ms->faces[k].face, ms->faces[k].bid, ms->faces[k].surf};
  qsort(a, (size_t)md->num_faces, sizeof *a, cmp_frec);
  qsort(b, (size_t)nb, sizeof *b, cmp_frec);
  int64_t fb[2] = {md->num_faces, nb != md->num_faces || memcmp(a, b, (size_t)nb * sizeof *a) != 0};
  hx_comm_sum_int64(comm, fb, 2);
  hx_free(&a), hx_free(&b);
  if (rank == 0)
    printf("boundary faces %lld (1 rank %d), ranks with other records %lld\n", (long long)fb[0], (int)ms->num_faces,
           (long long)fb[1]);
  TM_EXPECT(fb[0] == ms->num_faces && fb[1] == 0, "boundary faces differ from the 1-rank mesh");
  int same_names = md->num_bnames == ms->num_bnames && md->num_surfaces == ms->num_surfaces &&
                   !memcmp(md->surfaces, ms->surfaces, (size_t)ms->num_surfaces * sizeof *ms->surfaces);
  for (int k = 1; same_names && k < md->num_bnames; k++) same_names = !strcmp(md->bnames[k], ms->bnames[k]);
  TM_EXPECT(same_names, "boundary names or surfaces differ from the 1-rank mesh");
  if (rank == 0)
    for (int k = 1; k < md->num_bnames; k++) printf("boundary %d %s\n", k, md->bnames[k]);
  /* invariants and volume */
  hx_mesh_check_report rd, r1;
  int rcd = hx_mesh_check(md, 1e-12, &rd);
  TM_EXPECT(rcd == HX_OK, "hx_mesh_check (distributed): %s", hx_error_message());
  hx_error_clear();
  int rc1 = hx_mesh_check(ms, 1e-12, &r1);
  TM_EXPECT(rc1 == HX_OK, "hx_mesh_check (1 rank): %s", hx_error_message());
  hx_error_clear();
  TM_EXPECT(rd.min_detj == r1.min_detj, "min det J %.17g vs 1 rank %.17g", rd.min_detj, r1.min_detj);
  double vd = volume(md), v1 = volume(ms);
  hx_comm_sum_double(comm, &vd, 1);
  TM_EXPECT(fabs(vd - v1) <= 1e-12 * v1, "volume %.15g vs 1 rank %.15g", vd, v1);
  if (rank == 0)
    printf("check: bad elements %lld, id mismatches %lld, off-surface %lld; min det J %.6e; fluid volume %.10f\n",
           (long long)rd.bad_elems, (long long)rd.id_mismatch, (long long)rd.off_surface, rd.min_detj, vd);
  hx_mesh_destroy(&md);
  hx_mesh_destroy(&ms);
  hx_pebble_bed_destroy(&bed);
  int64_t f = fail;
  hx_comm_max_int64(comm, &f, 1);
  if (rank == 0) printf("%s\n", f ? "FAILED" : "ok");
  return (int)f;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  hx_comm comm = MPI_COMM_WORLD;
#else
  hx_comm comm = HX_COMM_SELF;
#endif
  int r = argc > 1 ? run(comm, argv[1]) : run(comm, "box") | run(comm, "pb67");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return r;
}
