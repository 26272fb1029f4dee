/* Exodus II writer: one element block of HEX8 (order 1) or
   HEX27 (order 2), coordinates in double, one named sideset per boundary id with
   (element, side) pairs in Exodus's side numbering. The Exodus library opens the
   file itself: it creates the registered temporary name (hx_outtmp_open) and the output set
   renames it on success.
   Streaming: a numbering pass, then coordinates, connectivity and sidesets are
   written in pieces (ex_put_partial_coord / ex_put_n_elem_conn / ex_put_partial_set)
   as the blocks come, from this rank or the others (io_gather.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

#else

int hx_export_exodus(const hx_mesh *m, const char *path, const hx_export_opts *o) {
  (void)m;
  (void)o;
  return hx_exodus_check(path, 1);
}

#endif
