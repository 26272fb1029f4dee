/* t106: the Exodus II writer read back through libexodusii's own API (the library
   MOOSE/Cardinal read with; the int API of libexodusii 6.02: no EX_ALL_INT64_API).

   For each case a mesh is written with hx_export and reopened with ex_open:
   - header: 3 dimensions, one block of HEX8 (order 1) or HEX27 (order 2), element count,
     node count = the number of distinct node ids of ours among the written nodes;
   - coordinates and connectivity: Exodus node p of element e (p from the Exodus manual's
     HEX8/HEX27 node table, typed here from the manual, not shared with the writer) is the
     coordinate of our GLL node at that reference point, bit for bit when the orders agree;
     one Exodus node number <-> one node id of ours (shared nodes shared, no merges);
   - sidesets: ids = our boundary ids, names = ours, and the (element, side) pairs are
     exactly our boundary faces of that id: each side's 4 corner nodes (side table from the
     manual) must lie on our face (the reference coordinate of the face's direction is the
     face's end), one-to-one. */
#include <exodusII.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_config.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_iotest.h"
#include "hx_mesh.h"
#if HX_HAVE_MPI
#include <mpi.h>
#endif

/* Exodus manual: HEX27 node -> reference point in {-1,0,1}^3 (HEX8 = the first 8) */
static const int REF[27][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1}, {-1, -1, 1}, {1, -1, 1},  {1, 1, 1},
                               {-1, 1, 1},   {0, -1, -1}, {1, 0, -1}, {0, 1, -1},  {-1, 0, -1}, {-1, -1, 0}, {1, -1, 0},
                               {1, 1, 0},    {-1, 1, 0},  {0, -1, 1}, {1, 0, 1},   {0, 1, 1},   {-1, 0, 1},  {0, 0, 0},
                               {0, 0, -1},   {0, 0, 1},   {-1, 0, 0}, {1, 0, 0},   {0, -1, 0},  {0, 1, 0}};
/* Exodus manual: hex side -> its corner nodes (1-based) */
static const int SIDE[6][4] = {{1, 2, 6, 5}, {2, 3, 7, 6}, {3, 4, 8, 7}, {1, 5, 8, 4}, {1, 4, 3, 2}, {5, 6, 7, 8}};

static int fails;
#define CHECK(c, ...)                                                                                                            \
  do {                                                                                                                           \
    if (!(c)) {                                                                                                                  \
      printf("FAIL: " __VA_ARGS__);                                                                                              \
      printf("\n");                                                                                                              \
      fails++;                                                                                                                   \
    }                                                                                                                            \
  } while (0)

static void one(const char *kind, int mesh_order, int out_order) {
  hx_mesh *m = NULL;
  if (hx_iotest_make(kind, mesh_order, &m)) {
    printf("FAIL: make %s %d: %s\n", kind, mesh_order, hx_error_message());
    fails++;
    return;
  }
  char path[128];
  snprintf(path, sizeof path, "t106-%s-%d-%d.exo", kind, mesh_order, out_order);
  hx_export_opts o;
  hx_export_opts_default(&o);
  o.order = out_order;
  if (hx_export(m, path, &o)) {
    printf("FAIL: write %s: %s\n", path, hx_error_message());
    fails++;
    hx_mesh_destroy(&m);
    return;
  }
  int cws = 8, iows = 0;
  float ver = 0;
  int exoid = ex_open(path, EX_READ, &cws, &iows, &ver);
  CHECK(exoid >= 0, "%s: ex_open", path);
  if (exoid < 0) {
    hx_mesh_destroy(&m);
    return;
  }
  char title[MAX_LINE_LENGTH + 1];
  int ndim = 0, nn = 0, ne = 0, nblk = 0, nns = 0, nss = 0;
  CHECK(ex_get_init(exoid, title, &ndim, &nn, &ne, &nblk, &nns, &nss) >= 0, "%s: ex_get_init", path);
  const int npe = out_order == 1 ? 8 : 27, nd = m->nd, npm = nd * nd * nd;
  CHECK(ndim == 3 && ne == m->num_elem && nblk == 1 && nns == 0, "%s: dim %d elems %d (ours %lld) blocks %d nodesets %d", path,
        ndim, ne, (long long)m->num_elem, nblk, nns);
  int bid = 0, cnt = 0, npb = 0, ned = 0, nfa = 0, nat = 0;
  char type[MAX_STR_LENGTH + 1] = "";
  CHECK(ex_get_ids(exoid, EX_ELEM_BLOCK, &bid) >= 0, "%s: block ids", path);
  CHECK(ex_get_block(exoid, EX_ELEM_BLOCK, bid, type, &cnt, &npb, &ned, &nfa, &nat) >= 0, "%s: ex_get_block", path);
  CHECK(cnt == ne && npb == npe && !strcmp(type, npe == 8 ? "HEX8" : "HEX27"), "%s: block %d: %d x %s with %d nodes", path, bid,
        cnt, type, npb);
  if (cnt != m->num_elem || npb != npe || nn <= 0) {
    ex_close(exoid);
    hx_mesh_destroy(&m);
    return;
  }
  double *x = calloc((size_t)nn, sizeof *x), *y = calloc((size_t)nn, sizeof *y), *z = calloc((size_t)nn, sizeof *z);
  int *conn = calloc((size_t)ne * npe, sizeof *conn);
  CHECK(ex_get_coord(exoid, x, y, z) >= 0, "%s: ex_get_coord", path);
  CHECK(ex_get_conn(exoid, EX_ELEM_BLOCK, bid, conn, NULL, NULL) >= 0, "%s: ex_get_conn", path);
  /* coordinates: Exodus node at reference point REF[p] = our GLL node there (the
     reference points -1, 0, 1 are GLL nodes of every even order; order 1 output uses corners) */
  hx_gid *id_of = malloc((size_t)nn * sizeof *id_of);
  for (int i = 0; i < nn; i++) id_of[i] = -1;
  double maxerr = 0, scale = 0;
  int64_t badref = 0, badid = 0;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int p = 0; p < npe; p++) {
      int n = conn[(size_t)e * npe + p] - 1, l = 0;
      if (n < 0 || n >= nn) {
        badref++;
        continue;
      }
      for (int d = 2; d >= 0; d--) l = l * nd + (REF[p][d] + 1) * (nd - 1) / 2;
      double xf[3] = {x[n], y[n], z[n]};
      for (int d = 0; d < 3; d++) {
        double v = hx_mesh_elem_x(m, e, d)[l];
        if (fabs(v - xf[d]) > maxerr) maxerr = fabs(v - xf[d]);
        if (fabs(v) > scale) scale = fabs(v);
      }
      hx_gid id = m->node_id[(size_t)e * npm + l];
      if (id_of[n] < 0) id_of[n] = id;
      else if (id_of[n] != id) badid++;
    }
  double tol = mesh_order == out_order ? 0 : 1e-13 * (1 + scale);
  CHECK(badref == 0, "%s: %lld connectivity entries outside 1..%d", path, (long long)badref, nn);
  CHECK(maxerr <= tol, "%s: Exodus nodes differ from our GLL nodes by %.3e", path, maxerr);
  /* one Exodus node per node id: every Exodus node used, ids distinct */
  hx_gid *ids = malloc((size_t)nn * sizeof *ids);
  memcpy(ids, id_of, (size_t)nn * sizeof *ids);
  int64_t dup = 0, unused = 0;
  for (int i = 0; i < nn; i++) unused += ids[i] < 0;
  for (int i = 0; i < nn; i++) /* test meshes are small */
    for (int j = i + 1; j < nn && ids[i] >= 0; j++) dup += ids[j] == ids[i];
  CHECK(badid == 0 && dup == 0 && unused == 0,
        "%s: %lld Exodus nodes carry two of our ids, %lld ids have two Exodus nodes, %lld nodes unused", path, (long long)badid,
        (long long)dup, (long long)unused);
  printf("%s: %s, %d elements, %d nodes, max |x_exo - x_ours| = %.1e\n", path, type, ne, nn, maxerr);
  /* sidesets */
  int maxb = 0;
  for (hx_lid q = 0; q < m->num_faces; q++)
    if (m->faces[q].bid > maxb) maxb = m->faces[q].bid;
  int ours_nss = 0;
  for (int b = 1; b <= maxb; b++) {
    int has = 0;
    for (hx_lid q = 0; q < m->num_faces && !has; q++) has = m->faces[q].bid == b;
    ours_nss += has;
  }
  CHECK(nss == ours_nss, "%s: %d sidesets, ours %d", path, nss, ours_nss);
  int *sids = calloc((size_t)nss + 1, sizeof *sids);
  if (nss) CHECK(ex_get_ids(exoid, EX_SIDE_SET, sids) >= 0, "%s: sideset ids", path);
  char *used = calloc((size_t)m->num_faces + 1, 1);
  for (int s = 0; s < nss; s++) {
    int ns = 0, ndf = 0;
    CHECK(ex_get_set_param(exoid, EX_SIDE_SET, sids[s], &ns, &ndf) >= 0, "%s: sideset %d param", path, sids[s]);
    char name[MAX_STR_LENGTH + 1] = "";
    CHECK(ex_get_name(exoid, EX_SIDE_SET, sids[s], name) >= 0, "%s: sideset %d name", path, sids[s]);
    const char *ours = sids[s] > 0 && sids[s] < m->num_bnames && m->bnames[sids[s]] ? m->bnames[sids[s]] : "";
    CHECK(!strcmp(name, ours), "%s: sideset %d is named '%s', ours '%s'", path, sids[s], name, ours);
    int64_t ours_cnt = 0;
    for (hx_lid q = 0; q < m->num_faces; q++) ours_cnt += m->faces[q].bid == sids[s];
    CHECK(ns == ours_cnt, "%s: sideset %d has %d sides, ours %lld", path, sids[s], ns, (long long)ours_cnt);
    int *el = calloc((size_t)ns + 1, sizeof *el), *si = calloc((size_t)ns + 1, sizeof *si);
    CHECK(ex_get_set(exoid, EX_SIDE_SET, sids[s], el, si) >= 0, "%s: sideset %d", path, sids[s]);
    int64_t nomatch = 0;
    for (int i = 0; i < ns; i++) {
      int e = el[i] - 1, sd = si[i] - 1;
      if (e < 0 || e >= ne || sd < 0 || sd > 5) {
        nomatch++;
        continue;
      }
      /* the face of ours on which the side's 4 corners lie: one direction constant */
      int face = -1;
      for (int d = 0; d < 3; d++) {
        int r = REF[SIDE[sd][0] - 1][d], same = 1;
        for (int c = 1; c < 4; c++) same &= REF[SIDE[sd][c] - 1][d] == r;
        if (same) face = 2 * d + (r > 0);
      }
      int found = 0;
      for (hx_lid q = 0; q < m->num_faces && !found; q++)
        if (!used[q] && m->faces[q].elem == e && m->faces[q].face == face && m->faces[q].bid == sids[s]) used[q] = 1, found = 1;
      nomatch += !found;
    }
    CHECK(nomatch == 0, "%s: sideset %d: %lld (element, side) pairs are not boundary faces of ours", path, sids[s],
          (long long)nomatch);
    printf("%s: sideset %d '%s': %d sides\n", path, sids[s], name, ns);
    free(el);
    free(si);
  }
  int64_t missed = 0;
  for (hx_lid q = 0; q < m->num_faces; q++) missed += !used[q];
  CHECK(missed == 0, "%s: %lld of our boundary faces are in no sideset", path, (long long)missed);
  ex_close(exoid);
  remove(path);
  free(used);
  free(sids);
  free(ids);
  free(id_of);
  free(conn);
  free(x);
  free(y);
  free(z);
  hx_mesh_destroy(&m);
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#else
  (void)argc;
  (void)argv;
#endif
  ex_opts(0);
  one("box", 1, 1);     /* HEX8, separate boundary ids */
  one("kershaw", 1, 1); /* HEX8 */
  one("kershaw", 2, 2); /* HEX27 of a curved (non-affine) Kershaw map */
  one("sphere", 2, 2);  /* HEX27 of a curved sphere mesh, named boundary */
  one("box", 2, 1);     /* order-2 mesh written as HEX8: its corners */
  one("kershaw", 4, 2); /* order 4 written as HEX27: -1, 0, 1 are GLL nodes of order 4 */
  printf("%s\n", fails ? "FAILED" : "ok");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fails ? 1 : 0;
}
