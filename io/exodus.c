/* Exodus II writer and reader. Writer: one element block of HEX8 (order 1) or
   HEX27 (order 2), coordinates in double, one named sideset per boundary id with
   (element, side) pairs in Exodus's side numbering. The Exodus library opens the
   file itself: it creates the registered temporary name (hx_outtmp_open) and the output set
   renames it on success.
   Streaming: a numbering pass, then coordinates, connectivity and sidesets are
   written in pieces (ex_put_partial_coord / ex_put_n_elem_conn / ex_put_partial_set)
   as the blocks come, from this rank or the others (io_gather.h).
   Reader (hx_import_exodus): every element block of HEX8, HEX20 or HEX27; side sets become
   boundary ids with their names. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "hx_config.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "io_gather.h"

int hx_exodus_check(const char *path, int order) {
#if HX_HAVE_EXODUS
  HX_CHECK(order == 1 || order == 2, HX_ERR_INPUT,
           "'%s': Exodus II is written as HEX8 (order 1) or HEX27 (order 2), not order %d; use --order 1 or --order 2", path,
           order);
  return HX_OK;
#else
  (void)order;
  return HX_ERROR(HX_ERR_INPUT, "'%s': Exodus II output is not in this build (libexodusii-dev was not found at configure time)",
                  path);
#endif
}

#if HX_HAVE_EXODUS
#include <exodusII.h>

/* hexpack face -> Exodus side (1-based): side 1 = xi2=0, 2 = xi1=1, 3 = xi2=1, 4 = xi1=0, 5 = xi3=0, 6 = xi3=1 */
static const int EXO_SIDE[6] = {4, 2, 1, 3, 5, 6};

/* Exodus node p -> (a,b,c) on the 3x3x3 grid (the Exodus II HEX27 node table); HEX8 = first 8 */
static const int EXO_HEX27[27][3] = {
    {0, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0}, {0, 0, 2}, {2, 0, 2}, {2, 2, 2}, {0, 2, 2}, /* corners */
    {1, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 1, 0},                                             /* bottom edges */
    {0, 0, 1}, {2, 0, 1}, {2, 2, 1}, {0, 2, 1},                                             /* vertical edges */
    {1, 0, 2}, {2, 1, 2}, {1, 2, 2}, {0, 1, 2},                                             /* top edges */
    {1, 1, 1},                                                                              /* centre */
    {1, 1, 0}, {1, 1, 2}, {0, 1, 1}, {2, 1, 1}, {1, 0, 1}, {1, 2, 1}};                      /* faces z-,z+,x-,x+,y-,y+ */

#define EXO_TRY(call, what)                                                                                                      \
  do {                                                                                                                           \
    if (rc == HX_OK && (call) < 0) rc = HX_ERROR(HX_ERR_IO, "'%s': Exodus II library failed to %s", path, what);                 \
  } while (0)

#define EXO_CHUNK 65536 /* nodes per ex_put_partial_coord call */

int hx_export_exodus(const hx_mesh *m, const char *path, const hx_export_opts *o) {
  hx_export_opts def;
  if (!o) {
    hx_export_opts_default(&def);
    o = &def;
  }
  int order = hx_io_out_order(m, o);
  HX_CALL(hx_exodus_check(path, order));
  int nd = order + 1, npe = order == 1 ? 8 : 27, lpe = nd * nd * nd;
  int lex[27];
  for (int p = 0; p < npe; p++) {
    const int *g = EXO_HEX27[p];
    int s = order == 1 ? 2 : 1; /* grid step 2 = index 1 at order 1 */
    lex[p] = g[0] / s + nd * (g[1] / s + nd * (g[2] / s));
  }
  /* rank 0 writes; the other ranks send their blocks and faces (io_gather.h) */
  hx_gsrc g;
  HX_CALL(hx_gsrc_open(m, order, hx_io_skip_detj(o), &g));
  if (!g.root) return hx_gsrc_serve(&g);
  hx_gid ne = g.num_elem;
  hx_idmap pid;
  memset(&pid, 0, sizeof pid);
  int64_t *conn = NULL, *elist = NULL, *slist = NULL;
  double *cx = NULL;
  char **names = NULL;
  int nss = 0, exoid = -1, slot = -1;
  int64_t nn = 0;
  char tmp[4200] = "";
  const hx_gblock *b = NULL;
  const hx_gfaces *fb = NULL;
  int rc = hx_idmap_init_range(&pid, 0, g.id_bound - 1, (size_t)ne * (size_t)lpe / 2 + 64);
  if (rc == HX_OK) rc = hx_malloc((size_t)g.block * (size_t)npe * sizeof(int64_t), &conn);
  if (rc == HX_OK) rc = hx_malloc((size_t)EXO_CHUNK * 3 * sizeof(double), &cx);
  if (rc == HX_OK) rc = hx_malloc((size_t)g.fblock * sizeof(int64_t), &elist);
  if (rc == HX_OK) rc = hx_malloc((size_t)g.fblock * sizeof(int64_t), &slist);
  if (rc == HX_OK) rc = hx_malloc(((size_t)g.max_bid + 2) * sizeof(char *), &names);
  /* node numbering: first appearance in element order, Exodus node order */
  if (rc == HX_OK) rc = hx_gsrc_pass(&g, HX_GS_ID);
  while (rc == HX_OK && (rc = hx_gsrc_next(&g, &b)) == HX_OK && b)
    for (hx_lid e = 0; rc == HX_OK && e < b->count; e++)
      for (int p = 0; p < npe; p++) {
        int64_t val = nn;
        int ins = hx_idmap_insert(&pid, b->view.node_id[(size_t)e * lpe + lex[p]], &val);
        if (ins < 0) {
          rc = -ins;
          break;
        }
        nn += ins == 1;
      }
  if (rc == HX_OK)
    for (int k = 1; k <= g.max_bid; k++) nss += g.bid_count[k] > 0;
  if (rc == HX_OK) {
    rc = hx_outtmp_open(path, &slot);
    if (rc == HX_OK) snprintf(tmp, sizeof tmp, "%s", hx_outtmp_name(slot));
  }
  if (rc == HX_OK) {
    int cpu_ws = 8, io_ws = 8;
    ex_opts(0); /* errors are reported here, not printed by the library */
    exoid = ex_create(tmp, EX_CLOBBER | EX_LARGE_MODEL, &cpu_ws, &io_ws);
    if (exoid < 0) rc = HX_ERROR(HX_ERR_IO, "cannot create '%s' (Exodus II/netCDF)", tmp);
  }
  EXO_TRY(ex_set_int64_status(exoid, EX_ALL_INT64_API), "select the 64-bit API");
  char title[128];
  snprintf(title, sizeof title, "hexpack %s, order %d", HX_VERSION, order);
  EXO_TRY(ex_put_init(exoid, title, 3, nn, (int64_t)ne, 1, 0, nss), "write the header");
  /* coordinates, streamed in chunks of x, y, z */
  int64_t written = 0, flushed = 0;
  if (rc == HX_OK) rc = hx_gsrc_pass(&g, HX_GS_X | HX_GS_ID);
  while (rc == HX_OK && (rc = hx_gsrc_next(&g, &b)) == HX_OK && b)
    for (hx_lid e = 0; rc == HX_OK && e < b->count; e++)
      for (int p = 0; rc == HX_OK && p < npe; p++) {
        int64_t pi = -1;
        hx_idmap_find(&pid, b->view.node_id[(size_t)e * lpe + lex[p]], &pi);
        if (pi != written) continue;
        int64_t k = written - flushed;
        for (int c = 0; c < 3; c++) cx[c * EXO_CHUNK + k] = hx_mesh_elem_x(&b->view, e, c)[lex[p]];
        written++;
        if (written - flushed == EXO_CHUNK) {
          EXO_TRY(ex_put_partial_coord(exoid, flushed + 1, EXO_CHUNK, cx, cx + EXO_CHUNK, cx + 2 * EXO_CHUNK),
                  "write the coordinates");
          flushed = written;
        }
      }
  if (rc == HX_OK && written > flushed)
    EXO_TRY(ex_put_partial_coord(exoid, flushed + 1, written - flushed, cx, cx + EXO_CHUNK, cx + 2 * EXO_CHUNK),
            "write the coordinates");
  if (rc == HX_OK && written != nn)
    rc = HX_ERROR(HX_ERR_INTERNAL, "wrote %lld of %lld Exodus nodes", (long long)written, (long long)nn);
  char *cnames[3] = {"x", "y", "z"};
  EXO_TRY(ex_put_coord_names(exoid, cnames), "write the coordinate names");
  EXO_TRY(ex_put_block(exoid, EX_ELEM_BLOCK, 1, order == 1 ? "HEX8" : "HEX27", (int64_t)ne, npe, 0, 0, 0),
          "write the element block");
  /* connectivity, a block of elements at a time */
  if (rc == HX_OK) rc = hx_gsrc_pass(&g, HX_GS_ID);
  while (rc == HX_OK && (rc = hx_gsrc_next(&g, &b)) == HX_OK && b) {
    for (hx_lid e = 0; e < b->count; e++)
      for (int p = 0; p < npe; p++) {
        int64_t val = 0;
        hx_idmap_find(&pid, b->view.node_id[(size_t)e * lpe + lex[p]], &val);
        conn[(size_t)e * npe + p] = val + 1;
      }
    EXO_TRY(ex_put_n_elem_conn(exoid, 1, b->e0 + 1, b->count, conn), "write the connectivity");
  }
  /* sidesets: one per boundary id, faces in (element, face) order */
  for (int bid = 1, k = 0; rc == HX_OK && bid <= g.max_bid; bid++) {
    if (!g.bid_count[bid]) continue;
    EXO_TRY(ex_put_set_param(exoid, EX_SIDE_SET, bid, g.bid_count[bid], 0), "write a sideset header");
    int64_t off = 0;
    if (rc == HX_OK) rc = hx_gsrc_face_pass(&g, bid, 0);
    while (rc == HX_OK && (rc = hx_gsrc_next_faces(&g, &fb)) == HX_OK && fb) {
      for (hx_lid q = 0; q < fb->count; q++) {
        elist[q] = (int64_t)fb->f[q].elem + 1;
        slist[q] = EXO_SIDE[fb->f[q].face];
      }
      EXO_TRY(ex_put_partial_set(exoid, EX_SIDE_SET, bid, off + 1, fb->count, elist, slist), "write a sideset");
      off += fb->count;
    }
    names[k++] = (bid < m->num_bnames && m->bnames[bid]) ? m->bnames[bid] : "";
  }
  if (rc == HX_OK && nss) EXO_TRY(ex_put_names(exoid, EX_SIDE_SET, names), "write the sideset names");
  char *bn[1] = {"hexpack"};
  EXO_TRY(ex_put_names(exoid, EX_ELEM_BLOCK, bn), "write the block name");
  if (exoid >= 0 && ex_close(exoid) < 0 && rc == HX_OK) rc = HX_ERROR(HX_ERR_IO, "'%s': closing failed (disk full?)", tmp);
  if (rc == HX_OK) rc = hx_outtmp_done(slot, HX_OUT_ALONE);
  else hx_outtmp_drop(slot);
  hx_free(&cx);
  hx_free(&conn);
  hx_free(&elist);
  hx_free(&slist);
  hx_free(&names);
  hx_idmap_free(&pid);
  return hx_gsrc_close(&g, rc);
}

/* ---- reader ---------------------------------------------------------------------------
   design:
   1. the header, coordinates, and per block its type and connectivity (1-based node numbers);
      every block must be a hexahedron of 8, 20 or 27 nodes (HEX8, HEX20, HEX27; "HEX" by its
      node count); anything else refuses the file naming the block and its type;
   2. order 1 when every block is HEX8, else order 2: the 27-point grid {0, 1/2, 1}^3, which is
      the GLL grid of order 2, filled from the Exodus node table (HEX27), from the 20 nodes and
      their serendipity interpolant at the face and body centres (HEX20: exact, the serendipity
      space lies in the triquadratic one), or trilinearly from the corners (HEX8 beside
      order-2 blocks);
   3. node ids: the Exodus node numbers; where centres were made (HEX20, HEX8 raised) the nodes
      are merged by coordinates instead;
   4. side sets: (element, side) pairs, side 1..6 in Exodus numbering, become boundary faces
      with the set's id and name; without side sets every exterior face gets id 1;
   5. element attributes: the block ids (when one is 0, MOOSE's default subdomain, the block's
      position 1, 2, ... instead). */

/* Exodus side (1-based) -> hexpack face */
static const int SIDE_TO_FACE[6] = {2, 1, 3, 0, 4, 5};

#define EXO_RD(call, what)                                                                                                       \
  do {                                                                                                                           \
    if (rc == HX_OK && (call) < 0) rc = HX_ERROR(HX_ERR_INPUT, "%s: the Exodus II library cannot read %s", path, what);          \
  } while (0)

int hx_import_exodus(hx_comm comm, const char *path, hx_mesh **out) {
  int cpu_ws = 8, io_ws = 0, rc = HX_OK, order = 1, raise = 0;
  float version = 0;
  ex_opts(0);
  FILE *probe = fopen(path, "rb");
  HX_CHECK(probe, HX_ERR_IO, "cannot read '%s'", path);
  fclose(probe);
  int exoid = ex_open(path, EX_READ, &cpu_ws, &io_ws, &version);
  HX_CHECK(exoid >= 0, HX_ERR_INPUT, "%s: not an Exodus II file (the Exodus II/netCDF library cannot open it)", path);
  ex_set_int64_status(exoid, EX_ALL_INT64_API);
  char title[MAX_LINE_LENGTH + 1];
  int64_t ndim = 0, nn = 0, ne = 0, nblk = 0, nns = 0, nss = 0;
  hx_mesh *m = NULL;
  double *x = NULL, *xyz = NULL;
  int64_t *bids = NULL, *conn = NULL, *sids = NULL, *el = NULL, *sl = NULL, *rep = NULL, *nper = NULL, *bcount = NULL;
  char **names = NULL;
  int nlen = 0;
  EXO_RD(ex_get_init(exoid, title, &ndim, &nn, &ne, &nblk, &nns, &nss), "its header");
  if (rc == HX_OK && ndim != 3)
    rc = HX_ERROR(HX_ERR_INPUT, "%s: the mesh is %lldD; only 3D hexahedral meshes are read", path, (long long)ndim);
  if (rc == HX_OK && (ne <= 0 || nn <= 0 || nblk <= 0))
    rc = HX_ERROR(HX_ERR_INPUT, "%s: %lld elements, %lld nodes in %lld blocks; expected at least one of each", path,
                  (long long)ne, (long long)nn, (long long)nblk);
  if (rc == HX_OK && ne > INT32_MAX)
    rc = HX_ERROR(HX_ERR_INPUT, "%s: %lld elements exceed the 32-bit local element index", path, (long long)ne);
  if (rc == HX_OK) rc = hx_malloc((size_t)nn * 3 * sizeof *x, &x);
  if (rc == HX_OK) rc = hx_malloc((size_t)nblk * sizeof *bids, &bids);
  if (rc == HX_OK) rc = hx_malloc((size_t)nblk * sizeof *nper, &nper);
  if (rc == HX_OK) rc = hx_malloc((size_t)nblk * sizeof *bcount, &bcount);
  EXO_RD(ex_get_coord(exoid, x, x + nn, x + 2 * nn), "the coordinates");
  for (int64_t i = 0; rc == HX_OK && i < 3 * nn; i++)
    if (!isfinite(x[i])) rc = HX_ERROR(HX_ERR_INPUT, "%s: node %lld has a non-finite coordinate", path, (long long)(i % nn) + 1);
  EXO_RD(ex_get_ids(exoid, EX_ELEM_BLOCK, bids), "the element block ids");
  /* pass 1: block types and sizes */
  int64_t total = 0, min_id = INT64_MAX;
  for (int64_t b = 0; rc == HX_OK && b < nblk; b++) {
    char type[MAX_STR_LENGTH + 1] = "";
    int64_t cnt = 0, npe = 0, ned = 0, nfa = 0, nat = 0;
    EXO_RD(ex_get_block(exoid, EX_ELEM_BLOCK, bids[b], type, &cnt, &npe, &ned, &nfa, &nat), "an element block");
    if (rc) break;
    int hex = !strncasecmp(type, "HEX", 3);
    if (!hex || (npe != 8 && npe != 20 && npe != 27))
      rc = HX_ERROR(HX_ERR_INPUT, "%s: element block %lld is %s with %lld nodes; only hexahedra are read (HEX8, HEX20, HEX27)",
                    path, (long long)bids[b], type, (long long)npe);
    nper[b] = npe, bcount[b] = cnt, total += cnt;
    if (npe > 8) order = 2;
    if (bids[b] < min_id) min_id = bids[b];
  }
  if (rc == HX_OK && total != ne)
    rc = HX_ERROR(HX_ERR_INPUT, "%s: the blocks hold %lld elements, the header says %lld", path, (long long)total, (long long)ne);
  if (rc == HX_OK) rc = hx_mesh_create(comm, order, (hx_lid)ne, &m);
  if (rc == HX_OK) rc = hx_malloc((size_t)ne * 27 * sizeof *conn, &conn);
  /* pass 2: connectivity onto the grid of the mesh's order */
  int nd = order + 1, npe_m = nd * nd * nd;
  int64_t e0 = 0;
  for (int64_t b = 0; rc == HX_OK && b < nblk; b++) {
    int64_t cnt = bcount[b], npe = nper[b];
    EXO_RD(ex_get_conn(exoid, EX_ELEM_BLOCK, bids[b], conn, NULL, NULL), "a block's connectivity");
    for (int64_t e = 0; rc == HX_OK && e < cnt; e++) {
      hx_lid me = (hx_lid)(e0 + e);
      double g[3][27];
      int have[27] = {0};
      for (int p = 0; p < npe; p++) {
        int64_t n = conn[e * npe + p];
        if (n < 1 || n > nn) {
          rc = HX_ERROR(HX_ERR_INPUT, "%s: element %lld of block %lld uses node %lld of %lld", path, (long long)e + 1,
                        (long long)bids[b], (long long)n, (long long)nn);
          break;
        }
        const int *a = EXO_HEX27[p];
        int s = order == 1 ? 2 : 1, q = a[0] / s + nd * (a[1] / s + nd * (a[2] / s));
        for (int d = 0; d < 3; d++) g[d][q] = x[d * nn + n - 1];
        m->node_id[(size_t)me * npe_m + q] = n - 1;
        have[q] = 1;
      }
      if (rc) break;
      if (order == 2 && npe == 8) {
        /* a HEX8 among order-2 blocks: trilinear from the corners */
        raise = 1;
        for (int q = 0; q < 27; q++) {
          if (have[q]) continue;
          int t[3] = {q % 3, q / 3 % 3, q / 9};
          for (int d = 0; d < 3; d++) {
            double v = 0;
            for (int c = 0; c < 8; c++) {
              int ci[3] = {c & 1, (c >> 1) & 1, (c >> 2) & 1};
              double w = 1;
              for (int k = 0; k < 3; k++) w *= ci[k] ? t[k] / 2.0 : 1 - t[k] / 2.0;
              v += w * g[d][2 * ci[0] + 3 * (2 * ci[1] + 3 * 2 * ci[2])];
            }
            g[d][q] = v;
          }
        }
      } else if (npe == 20) {
        raise = 1;
        for (int d = 0; d < 3; d++) hx_io_serendipity_centres(g[d]);
      }
      for (int d = 0; d < 3; d++) memcpy(hx_mesh_elem_x(m, me, d), g[d], (size_t)npe_m * sizeof(double));
      m->elem_attr[me] = min_id >= 1 && bids[b] <= INT32_MAX ? (int32_t)bids[b] : (int32_t)(b + 1);
    }
    e0 += cnt;
  }
  if (rc == HX_OK && raise) {
    /* merge by coordinates: the made centres have no Exodus node number */
    size_t n = (size_t)ne * (size_t)npe_m;
    rc = hx_malloc(n * 3 * sizeof *xyz, &xyz);
    if (rc == HX_OK) rc = hx_malloc(n * sizeof *rep, &rep);
    if (rc == HX_OK) {
      for (size_t p = 0; p < n; p++)
        for (int d = 0; d < 3; d++) xyz[3 * p + d] = hx_mesh_elem_x(m, (hx_lid)(p / (size_t)npe_m), d)[p % (size_t)npe_m];
      double lo[3], hi[3];
      hx_mesh_bbox(m, lo, hi);
      double diag =
          sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
      rc = hx_io_merge_points((int64_t)n, xyz, 1e-9 * (diag > 0 ? diag : 1), rep);
      for (size_t p = 0; rc == HX_OK && p < n; p++) m->node_id[p] = rep[p];
    }
  }
  if (rc == HX_OK) {
    hx_io_set_vert_ids(m);
    rc = hx_io_unify_shared(m);
  }
  /* side sets */
  if (rc == HX_OK && nss > 0) {
    nlen = (int)ex_inquire_int(exoid, EX_INQ_DB_MAX_USED_NAME_LENGTH);
    if (nlen < MAX_STR_LENGTH) nlen = MAX_STR_LENGTH;
    if (nlen > 255) nlen = 255;
    ex_set_max_name_length(exoid, nlen);
    rc = hx_malloc((size_t)nss * sizeof *sids, &sids);
    if (rc == HX_OK) rc = hx_malloc((size_t)nss * sizeof *names, &names);
    for (int64_t k = 0; rc == HX_OK && k < nss; k++) names[k] = NULL;
    for (int64_t k = 0; rc == HX_OK && k < nss; k++) {
      rc = hx_malloc((size_t)nlen + 1, &names[k]);
      if (rc == HX_OK) names[k][0] = 0;
    }
    EXO_RD(ex_get_ids(exoid, EX_SIDE_SET, sids), "the side set ids");
    EXO_RD(ex_get_names(exoid, EX_SIDE_SET, names), "the side set names");
    for (int64_t k = 0; rc == HX_OK && k < nss; k++) {
      int64_t cnt = 0, ndf = 0;
      if (sids[k] < 1 || sids[k] > 1000000) {
        rc = HX_ERROR(HX_ERR_INPUT, "%s: side set id %lld is outside 1..1000000 (hexpack's boundary ids)", path,
                      (long long)sids[k]);
        break;
      }
      EXO_RD(ex_get_set_param(exoid, EX_SIDE_SET, sids[k], &cnt, &ndf), "a side set's size");
      if (rc == HX_OK && (cnt < 0 || cnt > 6 * ne))
        rc = HX_ERROR(HX_ERR_INPUT, "%s: side set %lld has %lld sides, more than the elements have", path, (long long)sids[k],
                      (long long)cnt);
      hx_free(&el);
      hx_free(&sl);
      if (rc == HX_OK) rc = hx_malloc((size_t)cnt * sizeof *el + 8, &el);
      if (rc == HX_OK) rc = hx_malloc((size_t)cnt * sizeof *sl + 8, &sl);
      EXO_RD(ex_get_set(exoid, EX_SIDE_SET, sids[k], el, sl), "a side set");
      for (int64_t q = 0; rc == HX_OK && q < cnt; q++) {
        if (el[q] < 1 || el[q] > ne || sl[q] < 1 || sl[q] > 6)
          rc = HX_ERROR(HX_ERR_INPUT, "%s: side set %lld entry %lld: element %lld side %lld; expected element 1..%lld, side 1..6",
                        path, (long long)sids[k], (long long)q + 1, (long long)el[q], (long long)sl[q], (long long)ne);
        else rc = hx_mesh_add_face(m, (hx_lid)(el[q] - 1), SIDE_TO_FACE[sl[q] - 1], (int)sids[k], -1);
      }
      if (rc == HX_OK && names[k][0]) rc = hx_mesh_set_bname(m, (int)sids[k], names[k]);
    }
  } else if (rc == HX_OK) {
    rc = hx_io_exterior_faces(m, 1, "boundary");
  }
  ex_close(exoid);
  for (int64_t k = 0; names && k < nss; k++) hx_free(&names[k]);
  hx_free(&names);
  hx_free(&x);
  hx_free(&xyz);
  hx_free(&bids);
  hx_free(&conn);
  hx_free(&sids);
  hx_free(&el);
  hx_free(&sl);
  hx_free(&rep);
  hx_free(&nper);
  hx_free(&bcount);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}

#else

int hx_export_exodus(const hx_mesh *m, const char *path, const hx_export_opts *o) {
  (void)m;
  (void)o;
  return hx_exodus_check(path, 1);
}

int hx_import_exodus(hx_comm comm, const char *path, hx_mesh **out) {
  (void)comm;
  (void)out;
  return HX_ERROR(HX_ERR_INPUT, "'%s': Exodus II input is not in this build (libexodusii-dev was not found at configure time)",
                  path);
}

#endif
