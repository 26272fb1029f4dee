/* Exodus II writer (formats.md section 5): one element block of HEX8 (order 1) or
   HEX27 (order 2), coordinates in double, one named sideset per boundary id with
   (element, side) pairs in Exodus's side numbering. The Exodus library opens the
   file itself, so it writes "<path>.tmp.<pid>" and renames it on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hx_config.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "io_impl.h"

#if HX_HAVE_EXODUS
#include <exodusII.h>

/* hexpack face -> Exodus side (1-based): side 1 = xi2=0, 2 = xi1=1, 3 = xi2=1, 4 = xi1=0, 5 = xi3=0, 6 = xi3=1 */
static const int EXO_SIDE[6] = {4, 2, 1, 3, 5, 6};

/* Exodus node p -> (a,b,c) on the 3x3x3 grid (formats.md 5, HEX27 table); HEX8 = first 8 */
static const int EXO_HEX27[27][3] = {
  {0, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0}, {0, 0, 2}, {2, 0, 2}, {2, 2, 2}, {0, 2, 2},  /* corners */
  {1, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 1, 0},                                              /* bottom edges */
  {0, 0, 1}, {2, 0, 1}, {2, 2, 1}, {0, 2, 1},                                              /* vertical edges */
  {1, 0, 2}, {2, 1, 2}, {1, 2, 2}, {0, 1, 2},                                              /* top edges */
  {1, 1, 1},                                                                               /* centre */
  {1, 1, 0}, {1, 1, 2}, {0, 1, 1}, {2, 1, 1}, {1, 0, 1}, {1, 2, 1}};                       /* faces z-,z+,x-,x+,y-,y+ */

#define EXO_TRY(call, what)                                                                          \
  do {                                                                                               \
    if (rc == HX_OK && (call) < 0) rc = HX_ERROR(HX_ERR_IO, "'%s': Exodus II library failed to %s", path, what); \
  } while (0)

int hx_export_exodus(const hx_mesh *m, const char *path, const hx_export_opts *o) {
  hx_export_opts def;
  if (!o) {
    hx_export_opts_default(&def);
    o = &def;
  }
  HX_CALL(hx_io_require_serial(m, path, ".exo"));
  int order = hx_io_out_order(m, o);
  HX_CHECK(order == 1 || order == 2, HX_ERR_INPUT,
           "'%s': Exodus II is written as HEX8 (order 1) or HEX27 (order 2), not order %d; use --order 1 or --order 2",
           path, order);
  int nd = order + 1, npe = order == 1 ? 8 : 27;
  int lex[27];
  for (int p = 0; p < npe; p++) {
    const int *g = EXO_HEX27[p];
    int s = order == 1 ? 2 : 1; /* grid step 2 = index 1 at order 1 */
    lex[p] = g[0] / s + nd * (g[1] / s + nd * (g[2] / s));
  }
  for (hx_lid q = 0; q < m->num_faces; q++)
    HX_CHECK(m->faces[q].bid >= 1 && m->faces[q].elem >= 0 && m->faces[q].elem < m->num_elem &&
                 m->faces[q].face >= 0 && m->faces[q].face <= 5,
             HX_ERR_INVALID_MESH, "'%s': boundary face %lld is invalid", path, (long long)q);
  hx_elemsrc src;
  HX_CALL(hx_elemsrc_open(m, order, o->force, &src));
  size_t ne = (size_t)m->num_elem, nnp = ne * (size_t)(nd * nd * nd);
  hx_idmap pid;
  memset(&pid, 0, sizeof pid);
  int64_t *conn = NULL, *elist = NULL, *slist = NULL;
  double *xyz = NULL;
  int *bcount = NULL;
  char **names = NULL;
  int maxb = 0, nss = 0, exoid = -1;
  int64_t nn = 0;
  char tmp[4200] = "";
  int rc = hx_idmap_init_range(&pid, 0, hx_elemsrc_id_bound(&src) - 1, nnp / 2 + 64);
  if (rc == HX_OK) rc = hx_malloc(ne * (size_t)npe * sizeof(int64_t), &conn);
  if (rc == HX_OK) rc = hx_malloc(nnp * 3 * sizeof(double), &xyz); /* upper bound, x then y then z blocks later */
  for (hx_lid e0 = 0; rc == HX_OK && e0 < m->num_elem; e0 += src.block) {
    hx_lid cnt = m->num_elem - e0 < src.block ? m->num_elem - e0 : src.block;
    const hx_mesh *v;
    rc = hx_elemsrc_get(&src, e0, cnt, &v);
    for (hx_lid e = 0; rc == HX_OK && e < cnt; e++)
      for (int p = 0; p < npe; p++) {
        size_t l = (size_t)e * (size_t)(nd * nd * nd) + (size_t)lex[p];
        int64_t val = nn;
        int ins = hx_idmap_insert(&pid, v->node_id[l], &val);
        if (ins < 0) {
          rc = -ins;
          break;
        }
        if (ins == 1) {
          for (int c = 0; c < 3; c++) xyz[3 * (size_t)nn + c] = hx_mesh_elem_x(v, e, c)[lex[p]];
          nn++;
        }
        conn[(size_t)(e0 + e) * npe + p] = val + 1;
      }
  }
  /* coordinates as three arrays */
  double *cx = NULL;
  if (rc == HX_OK) rc = hx_malloc((size_t)(nn > 0 ? nn : 1) * 3 * sizeof(double), &cx);
  for (int64_t i = 0; rc == HX_OK && i < nn; i++)
    for (int c = 0; c < 3; c++) cx[c * nn + i] = xyz[3 * i + c];
  hx_free(&xyz);
  /* sidesets: one per boundary id, faces in mesh order */
  for (hx_lid q = 0; q < m->num_faces; q++)
    if (m->faces[q].bid > maxb) maxb = m->faces[q].bid;
  if (rc == HX_OK) rc = hx_malloc(((size_t)maxb + 2) * sizeof(int), &bcount);
  if (rc == HX_OK) rc = hx_malloc(((size_t)m->num_faces + 1) * sizeof(int64_t), &elist);
  if (rc == HX_OK) rc = hx_malloc(((size_t)m->num_faces + 1) * sizeof(int64_t), &slist);
  if (rc == HX_OK) rc = hx_malloc(((size_t)maxb + 2) * sizeof(char *), &names);
  if (rc == HX_OK) {
    for (hx_lid q = 0; q < m->num_faces; q++) bcount[m->faces[q].bid]++;
    for (int b = 1; b <= maxb; b++) nss += bcount[b] > 0;
  }
  if (rc == HX_OK) {
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int cpu_ws = 8, io_ws = 8;
    ex_opts(0); /* errors are reported here, not printed by the library */
    exoid = ex_create(tmp, EX_CLOBBER | EX_LARGE_MODEL, &cpu_ws, &io_ws);
    if (exoid < 0) rc = HX_ERROR(HX_ERR_IO, "cannot create '%s' (Exodus II/netCDF)", tmp);
  }
  EXO_TRY(ex_set_int64_status(exoid, EX_ALL_INT64_API), "select the 64-bit API");
  char title[128];
  snprintf(title, sizeof title, "hexpack %s, order %d", HX_VERSION, order);
  EXO_TRY(ex_put_init(exoid, title, 3, nn, (int64_t)ne, 1, 0, nss), "write the header");
  EXO_TRY(ex_put_coord(exoid, cx, cx + nn, cx + 2 * nn), "write the coordinates");
  char *cnames[3] = {"x", "y", "z"};
  EXO_TRY(ex_put_coord_names(exoid, cnames), "write the coordinate names");
  EXO_TRY(ex_put_block(exoid, EX_ELEM_BLOCK, 1, order == 1 ? "HEX8" : "HEX27", (int64_t)ne, npe, 0, 0, 0),
          "write the element block");
  EXO_TRY(ex_put_conn(exoid, EX_ELEM_BLOCK, 1, conn, NULL, NULL), "write the connectivity");
  for (int b = 1, k = 0; rc == HX_OK && b <= maxb; b++) {
    if (!bcount[b]) continue;
    int64_t n = 0;
    for (hx_lid q = 0; q < m->num_faces; q++)
      if (m->faces[q].bid == b) {
        elist[n] = (int64_t)m->faces[q].elem + 1;
        slist[n++] = EXO_SIDE[m->faces[q].face];
      }
    EXO_TRY(ex_put_set_param(exoid, EX_SIDE_SET, b, n, 0), "write a sideset header");
    EXO_TRY(ex_put_set(exoid, EX_SIDE_SET, b, elist, slist), "write a sideset");
    names[k++] = (b < m->num_bnames && m->bnames[b]) ? m->bnames[b] : "";
  }
  if (rc == HX_OK && nss) EXO_TRY(ex_put_names(exoid, EX_SIDE_SET, names), "write the sideset names");
  char *bn[1] = {"hexpack"};
  EXO_TRY(ex_put_names(exoid, EX_ELEM_BLOCK, bn), "write the block name");
  if (exoid >= 0 && ex_close(exoid) < 0 && rc == HX_OK) rc = HX_ERROR(HX_ERR_IO, "'%s': closing failed (disk full?)", tmp);
  if (rc == HX_OK && rename(tmp, path) != 0) rc = HX_ERROR(HX_ERR_IO, "cannot rename '%s' to '%s'", tmp, path);
  if (rc != HX_OK && tmp[0]) remove(tmp);
  hx_free(&cx);
  hx_free(&conn);
  hx_free(&elist);
  hx_free(&slist);
  hx_free(&bcount);
  hx_free(&names);
  hx_idmap_free(&pid);
  hx_elemsrc_close(&src);
  return rc;
}

#else

int hx_export_exodus(const hx_mesh *m, const char *path, const hx_export_opts *o) {
  (void)m;
  (void)o;
  return HX_ERROR(HX_ERR_INPUT, "'%s': Exodus II output is not in this build (libexodusii-dev was not found at configure time)",
                  path);
}

#endif
