/* VTK XML UnstructuredGrid (.vtu) writer: Lagrange hexahedra (cell type 72),
   file version 2.2 (VTK 9 point order).

   design:
   1. number the points by node id (points.c: the used ids in increasing order,
      a bitmap and counts instead of an id -> index map; the same for any number of
      ranks); the cell data (min det J at the GLL nodes, Nek5000 scaled Jacobian =
      min/max det J) is computed by each element's owner when its block is sent
      (io_gather.h), or kept from the check of a lazy order-N geometry;
   2. write the XML header; with appended data every DataArray gets an offset
      placeholder that is patched at the end (compressed sizes are known only
      after compressing);
   3. stream the arrays: cell data, points (GLL geometry re-interpolated to the
      equispaced nodes VTK assumes, the first copy of a shared node; raw binary
      straight to its place in the file, ASCII and zlib in order, points.c),
      connectivity, offsets, types.
   Memory beyond the mesh: the point numbering on rank 0 (0.28 bytes a point), a
   page cache or window of points, one block, and two doubles per local element
   on each rank. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "io_gather.h"
#if HX_HAVE_ZLIB
#include <zlib.h>
#endif

#define VTU_BLOCK (1 << 20) /* bytes per compressed block */

typedef struct vtu_sink {
  hx_outfile *f;
  int ascii;
  int zlib;
  int zlevel;
  /* binary arrays */
  long appended_start; /* file position right after '_' */
  unsigned char *buf;  /* one block of uncompressed data */
  size_t fill;
  uint64_t total; /* bytes announced for this array */
  uint64_t nblocks, iblock;
  uint64_t *csize; /* compressed block sizes */
  unsigned char *cbuf;
  long header_pos;  /* where this array's header is */
  long ascii_count; /* values on the current text line */
} vtu_sink;

static int sink_flush_block(vtu_sink *s) {
  if (!s->zlib) {
    HX_CALL(hx_outfile_write(s->f, s->buf, s->fill));
    s->fill = 0;
    return HX_OK;
  }
#if HX_HAVE_ZLIB
  uLongf clen = compressBound(VTU_BLOCK);
  int zr = compress2(s->cbuf, &clen, s->buf, s->fill, s->zlevel);
  HX_CHECK(zr == Z_OK, HX_ERR_IO, "'%s': zlib compression failed (code %d)", s->f->path, zr);
  HX_CHECK(s->iblock < s->nblocks, HX_ERR_INTERNAL, "more data than announced in a .vtu array");
  s->csize[s->iblock++] = clen;
  HX_CALL(hx_outfile_write(s->f, s->cbuf, clen));
#endif
  s->fill = 0;
  return HX_OK;
}

/* Start a binary array of total bytes: write its header (patched later for zlib). */
static int sink_begin(vtu_sink *s, uint64_t total, long *offset_out) {
  *offset_out = ftell(s->f->fp) - s->appended_start;
  s->total = total;
  s->fill = 0;
  s->ascii_count = 0;
  if (s->ascii) return HX_OK;
  if (!s->zlib) return hx_outfile_write(s->f, &total, sizeof total);
  s->nblocks = total ? (total + VTU_BLOCK - 1) / VTU_BLOCK : 0;
  s->iblock = 0;
  hx_free(&s->csize);
  HX_CALL(hx_malloc((s->nblocks + 3) * sizeof(uint64_t), &s->csize));
  s->header_pos = ftell(s->f->fp);
  /* [nblocks, block size, last block size, compressed sizes...] (vtkZLibDataCompressor) */
  return hx_outfile_write(s->f, s->csize, (s->nblocks + 3) * sizeof(uint64_t));
}

static int sink_put(vtu_sink *s, const void *data, size_t bytes) {
  const unsigned char *p = data;
  while (bytes) {
    size_t take = VTU_BLOCK - s->fill;
    if (take > bytes) take = bytes;
    memcpy(s->buf + s->fill, p, take);
    s->fill += take;
    p += take;
    bytes -= take;
    if (s->fill == VTU_BLOCK) HX_CALL(sink_flush_block(s));
  }
  return HX_OK;
}

static int sink_end(vtu_sink *s) {
  if (s->ascii) return hx_outfile_write(s->f, "\n", 1);
  if (s->fill) HX_CALL(sink_flush_block(s));
  if (!s->zlib) return HX_OK;
  HX_CHECK(s->iblock == s->nblocks, HX_ERR_INTERNAL, "a .vtu array got %llu of %llu blocks", (unsigned long long)s->iblock,
           (unsigned long long)s->nblocks);
  uint64_t last = s->total % VTU_BLOCK;
  uint64_t hdr[3] = {s->nblocks, VTU_BLOCK, (s->total && !last) ? VTU_BLOCK : last};
  long end = ftell(s->f->fp);
  HX_CHECK(fseek(s->f->fp, s->header_pos, SEEK_SET) == 0, HX_ERR_IO, "'%s': seek failed", s->f->path);
  HX_CALL(hx_outfile_write(s->f, hdr, sizeof hdr));
  HX_CALL(hx_outfile_write(s->f, s->csize, s->nblocks * sizeof(uint64_t)));
  HX_CHECK(fseek(s->f->fp, end, SEEK_SET) == 0, HX_ERR_IO, "'%s': seek failed", s->f->path);
  return HX_OK;
}

/* Typed puts: binary copies, ASCII prints. */
static int put_f64(vtu_sink *s, const double *v, size_t n) {
  if (!s->ascii) return sink_put(s, v, n * sizeof *v);
  for (size_t i = 0; i < n; i++)
    if (fprintf(s->f->fp, (++s->ascii_count % 6) ? "%.17g " : "%.17g\n", v[i]) < 0)
      return HX_ERROR(HX_ERR_IO, "writing '%s' failed", s->f->path);
  return HX_OK;
}
static int put_i64(vtu_sink *s, const int64_t *v, size_t n) {
  if (!s->ascii) return sink_put(s, v, n * sizeof *v);
  for (size_t i = 0; i < n; i++)
    if (fprintf(s->f->fp, (++s->ascii_count % 12) ? "%lld " : "%lld\n", (long long)v[i]) < 0)
      return HX_ERROR(HX_ERR_IO, "writing '%s' failed", s->f->path);
  return HX_OK;
}
static int put_i32(vtu_sink *s, const int32_t *v, size_t n) {
  if (!s->ascii) return sink_put(s, v, n * sizeof *v);
  for (size_t i = 0; i < n; i++)
    if (fprintf(s->f->fp, (++s->ascii_count % 12) ? "%d " : "%d\n", (int)v[i]) < 0)
      return HX_ERROR(HX_ERR_IO, "writing '%s' failed", s->f->path);
  return HX_OK;
}
static int put_u8(vtu_sink *s, const uint8_t *v, size_t n) {
  if (!s->ascii) return sink_put(s, v, n);
  for (size_t i = 0; i < n; i++)
    if (fprintf(s->f->fp, (++s->ascii_count % 20) ? "%d " : "%d\n", (int)v[i]) < 0)
      return HX_ERROR(HX_ERR_IO, "writing '%s' failed", s->f->path);
  return HX_OK;
}

enum { A_DEG, A_MINJ, A_SJ, A_REGION, A_BND, A_BID, A_BFACES, A_POINTS, A_CONN, A_OFFS, A_TYPES, A_NUM };

/* the arrays of a piece: names, types, components. Cell data: boundary_ids holds the 6 faces'
   ids (what the reader reads back); boundary_id (the smallest id of a cell's faces, 0 inside)
   and boundary_faces (bit f set for face f on a boundary) are single numbers per cell that
   ParaView colours and thresholds by. */
static const char *names[A_NUM] = {"HigherOrderDegrees", "min_detj", "scaled_jacobian", "region",  "boundary_ids", "boundary_id",
                                   "boundary_faces",     "Points",   "connectivity",    "offsets", "types"};
static const char *types[A_NUM] = {"Int32", "Float64", "Float64", "Int32", "Int32", "Int32",
                                   "UInt8", "Float64", "Int64",   "Int64", "UInt8"};
static const int ncomp[A_NUM] = {3, 1, 1, 1, 6, 1, 1, 3, 1, 1, 1};

typedef struct vtu_ctx {
  const hx_mesh *m;
  hx_gsrc g; /* the elements of every rank, block by block (io_gather.h) */
  int order, nd, npe;
  int64_t num_points;
  hx_ptnum pid;   /* node id -> point index (points.c) */
  int64_t window; /* points per pass of the ordered writer (hx_export_opts.point_window) */
  int vtk_pos2lex[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  double B[HX_MAX_ND * HX_MAX_ND];
} vtu_ctx;

static int vtu_emit(void *ctx, const double *xyz, int64_t n) { return put_f64(ctx, xyz, (size_t)n * 3); }

static int vtu_write_array(vtu_ctx *c, vtu_sink *s, int a, long *offset) {
  size_t ne = (size_t)c->g.num_elem, npe = (size_t)c->npe;
  static const uint64_t elem_bytes[A_NUM] = {12, 8, 8, 4, 24, 4, 1, 0, 0, 8, 1};
  uint64_t total = elem_bytes[a] * ne;
  if (a == A_POINTS) total = (uint64_t)c->num_points * 24;
  if (a == A_CONN) total = ne * npe * 8;
  HX_CALL(sink_begin(s, total, offset));
  static const int need[A_NUM] = {0, HX_GS_QUAL, HX_GS_QUAL, HX_GS_ATTR, HX_GS_BND, HX_GS_BND, HX_GS_BND, 0, HX_GS_ID, 0, 0};
  switch (a) {
  case A_DEG:
    for (size_t e = 0; e < ne; e++) {
      int32_t d[3] = {c->order, c->order, c->order};
      HX_CALL(put_i32(s, d, 3));
    }
    break;
  case A_MINJ:
  case A_SJ:
  case A_REGION:
  case A_BND:
  case A_BID:
  case A_BFACES:
  case A_CONN: {
    int64_t conn[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
    const hx_gblock *b;
    HX_CALL(hx_gsrc_pass(&c->g, need[a]));
    for (;;) {
      HX_CALL(hx_gsrc_next(&c->g, &b));
      if (!b) break;
      const hx_mesh *v = &b->view;
      hx_lid cnt = b->count;
      if (a == A_MINJ) HX_CALL(put_f64(s, b->minj, (size_t)cnt));
      if (a == A_SJ) HX_CALL(put_f64(s, b->sj, (size_t)cnt));
      if (a == A_REGION) HX_CALL(put_i32(s, v->elem_attr, (size_t)cnt));
      if (a == A_BND) HX_CALL(put_i32(s, b->bnd, 6 * (size_t)cnt));
      for (hx_lid e = 0; (a == A_BID || a == A_BFACES) && e < cnt; e++) {
        int32_t bid = 0;
        uint8_t mask = 0;
        for (int f = 0; f < 6; f++) {
          int32_t id = b->bnd[(size_t)e * 6 + f];
          if (id > 0 && (bid == 0 || id < bid)) bid = id;
          if (id > 0) mask |= (uint8_t)(1u << f);
        }
        HX_CALL(a == A_BID ? put_i32(s, &bid, 1) : put_u8(s, &mask, 1));
      }
      if (a == A_CONN)
        for (hx_lid e = 0; e < cnt; e++) {
          for (size_t p = 0; p < npe; p++) conn[p] = hx_ptnum_of(&c->pid, v->node_id[(size_t)e * npe + c->vtk_pos2lex[p]]);
          HX_CALL(put_i64(s, conn, npe));
        }
    }
    break;
  }
  case A_POINTS:
    HX_CALL(s->ascii || s->zlib ? hx_ptnum_write_ordered(&c->g, &c->pid, c->B, c->window, vtu_emit, s)
                                : hx_ptnum_write_raw(&c->g, &c->pid, c->B, s->f));
    break;
  case A_OFFS:
    for (size_t e = 0; e < ne; e++) {
      int64_t o = (int64_t)((e + 1) * npe);
      HX_CALL(put_i64(s, &o, 1));
    }
    break;
  case A_TYPES:
    for (size_t e = 0; e < ne; e++) {
      uint8_t t = 72;
      HX_CALL(put_u8(s, &t, 1));
    }
    break;
  }
  return sink_end(s);
}

/* The boundary names as FieldData, which ParaView lists with the data (Information panel,
   spreadsheet view) and meshio reads as field_data: one Int32 array per named id, its name
   "boundary:" and the boundary's name, its one value the id. Inline ASCII whatever the other
   arrays' format (a few bytes). */
static void write_names(FILE *fp, const hx_mesh *m) {
  int n = 0;
  for (int b = 1; b < m->num_bnames; b++) n += m->bnames[b] != NULL;
  if (n == 0) return;
  fprintf(fp, "    <FieldData>\n");
  for (int b = 1; b < m->num_bnames; b++) {
    if (!m->bnames[b]) continue;
    fprintf(fp, "      <DataArray type=\"Int32\" Name=\"boundary:");
    for (const unsigned char *p = (const unsigned char *)m->bnames[b]; *p; p++) {
      if (*p == '&') fputs("&amp;", fp);
      else if (*p == '<') fputs("&lt;", fp);
      else if (*p == '>') fputs("&gt;", fp);
      else if (*p == '"') fputs("&quot;", fp);
      else if (*p < 0x20) fprintf(fp, "&#%d;", *p);
      else fputc(*p, fp);
    }
    fprintf(fp, "\" NumberOfTuples=\"1\" format=\"ascii\">%d</DataArray>\n", b);
  }
  fprintf(fp, "    </FieldData>\n");
}

static int vtu_write(vtu_ctx *c, hx_outfile *f, const hx_export_opts *o) {
  const hx_mesh *m = c->m;
  vtu_sink s = {0};
  s.f = f;
  s.ascii = !o->binary;
  s.zlib = !s.ascii && o->compress && HX_HAVE_ZLIB;
  s.zlevel = o->compress > 1 && o->compress <= 9 ? o->compress : 1;
  int rc = HX_OK;
  if (!s.ascii) {
    rc = hx_malloc(VTU_BLOCK, &s.buf);
#if HX_HAVE_ZLIB
    if (rc == HX_OK && s.zlib) rc = hx_malloc(compressBound(VTU_BLOCK), &s.cbuf);
#endif
    if (rc) goto out;
  }
  FILE *fp = f->fp;
  fprintf(fp,
          "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"2.2\" byte_order=\"%s\" "
          "header_type=\"UInt64\"%s>\n",
          hx_io_little_endian() ? "LittleEndian" : "BigEndian", s.zlib ? " compressor=\"vtkZLibDataCompressor\"" : "");
  fprintf(fp,
          "  <!-- written by hexpack %s: order %d Lagrange hexahedra; cell data: min_detj and scaled_jacobian "
          "(min/max det J over the GLL nodes), region, boundary_ids (per face xi1=0,xi1=1,xi2=0,xi2=1,xi3=0,xi3=1; "
          "0 = interior), boundary_id (the smallest of them), boundary_faces (bit f: face f on a boundary); "
          "field data: boundary:NAME = id -->\n",
          HX_VERSION, c->order);
  fprintf(fp, "  <UnstructuredGrid>\n");
  write_names(fp, m);
  fprintf(fp, "    <Piece NumberOfPoints=\"%lld\" NumberOfCells=\"%lld\">\n", (long long)c->num_points, (long long)c->g.num_elem);
  long patch[A_NUM], offs[A_NUM];
  for (int a = 0; a < A_NUM; a++) {
    if (a == A_DEG) fprintf(fp, "      <CellData HigherOrderDegrees=\"HigherOrderDegrees\" Scalars=\"scaled_jacobian\">\n");
    if (a == A_POINTS) fprintf(fp, "      </CellData>\n      <Points>\n");
    if (a == A_CONN) fprintf(fp, "      </Points>\n      <Cells>\n");
    fprintf(fp, "        <DataArray type=\"%s\" Name=\"%s\"", types[a], names[a]);
    if (ncomp[a] > 1) fprintf(fp, " NumberOfComponents=\"%d\"", ncomp[a]);
    if (s.ascii) {
      fprintf(fp, " format=\"ascii\">\n");
      if ((rc = vtu_write_array(c, &s, a, &offs[a]))) goto out;
      fprintf(fp, "        </DataArray>\n");
    } else {
      /* offset="N"/> padded with blanks after the tag: patched in place later */
      fprintf(fp, " format=\"appended\" ");
      patch[a] = ftell(fp);
      fprintf(fp, "%-36s\n", "offset=\"0\"/>");
    }
  }
  fprintf(fp, "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n");
  if (!s.ascii) {
    fprintf(fp, "  <AppendedData encoding=\"raw\">\n   _");
    s.appended_start = ftell(fp);
    for (int a = 0; a < A_NUM; a++)
      if ((rc = vtu_write_array(c, &s, a, &offs[a]))) goto out;
    fprintf(fp, "\n  </AppendedData>\n");
    long end = ftell(fp);
    for (int a = 0; a < A_NUM; a++) {
      char num[48], field[48];
      snprintf(num, sizeof num, "offset=\"%ld\"/>", offs[a]);
      snprintf(field, sizeof field, "%-36s", num);
      if (fseek(fp, patch[a], SEEK_SET) != 0 || fwrite(field, 1, 36, fp) != 36) {
        rc = HX_ERROR(HX_ERR_IO, "'%s': cannot patch the appended-data offsets", f->path);
        goto out;
      }
    }
    fseek(fp, end, SEEK_SET);
  }
  fprintf(fp, "</VTKFile>\n");
out:
  hx_free(&s.buf);
  hx_free(&s.cbuf);
  hx_free(&s.csize);
  return rc;
}

int hx_export_vtu(const hx_mesh *m, const char *path, const hx_export_opts *o) {
  hx_export_opts def;
  if (!o) {
    hx_export_opts_default(&def);
    o = &def;
  }
  vtu_ctx c;
  memset(&c, 0, sizeof c);
  c.m = m;
  c.order = hx_io_out_order(m, o);
  c.nd = c.order + 1;
  c.npe = c.nd * c.nd * c.nd;
  c.window = o->point_window;
  HX_CALL(hx_gsrc_open(m, c.order, hx_io_skip_detj(o), &c.g));
  if (!c.g.root) return hx_gsrc_serve(&c.g);
  hx_vtk_hex_order(c.order, c.vtk_pos2lex);
  int rc = hx_io_interp_matrix(c.nd, 1, c.B);
  if (rc == HX_OK) rc = hx_ptnum_build(&c.g, &c.pid);
  if (rc == HX_OK) c.num_points = c.pid.num_points;
  hx_outfile f;
  if (rc == HX_OK) {
    rc = hx_outfile_open(&f, path);
    if (rc == HX_OK) {
      rc = vtu_write(&c, &f, o);
      if (rc == HX_OK) rc = hx_outfile_commit(&f);
      else hx_outfile_abort(&f);
    }
  }
  hx_ptnum_free(&c.pid);
  return hx_gsrc_close(&c.g, rc);
}

/* ---- .pvtu: one piece per rank ------------------------------------------------------
   design:
   1. every rank writes its own elements as the piece "<base>_<rank>.vtu" beside the
      index (<base>: the index's file name without ".pvtu") with the serial writer
      above, on a shallow view of its part over HX_COMM_SELF: its own point numbering,
      and the nodes on the partition boundary in every piece that has them, as VTK's
      parallel format expects (no ghost cells);
   2. the ranks agree; after a failure anywhere no index is written and the output set
      removes every piece (no final name is created);
   3. rank 0 writes the index: the piece's arrays as PCellData / PPoints and one
      <Piece Source> per rank, by name relative to the index. */

static int piece_name(const char *path, int rank, char *full, size_t cap, const char **rel) {
  size_t n = strlen(path);
  HX_CHECK(n > 5 && !strcmp(path + n - 5, ".pvtu"), HX_ERR_INPUT, "'%s': a .pvtu path must end in .pvtu", path);
  int w = snprintf(full, cap, "%.*s_%d.vtu", (int)(n - 5), path, rank);
  HX_CHECK(w > 0 && (size_t)w < cap, HX_ERR_INPUT, "output path too long: %.60s...", path);
  const char *slash = strrchr(full, '/');
  *rel = slash ? slash + 1 : full;
  return HX_OK;
}

int hx_export_pvtu(const hx_mesh *m, const char *path, const hx_export_opts *o) {
  int rank = hx_comm_rank(m->comm), size = hx_comm_size(m->comm), order = hx_io_out_order(m, o);
  /* each piece alone would curve its partition boundary from its own faces only */
  HX_CHECK(size == 1 || order == m->order || (m->lazy && m->lazy->order == order), HX_ERR_INPUT,
           "'%s': a .pvtu at order %d of a distributed order-%d mesh needs curving, which runs on one rank only; "
           "write it at order %d or on one rank",
           path, order, m->order, m->order);
  char piece[4200];
  const char *rel;
  hx_outset_begin(); /* the pieces get their names before the index, or nothing does */
  int round0 = hx_outset_round(HX_OUT_COMPANION);
  int rc = piece_name(path, rank, piece, sizeof piece, &rel);
  if (rc == HX_OK) {
    hx_mesh part = *m;
    part.comm = HX_COMM_SELF;
    part.elem_offset = 0;
    part.num_elem_global = m->num_elem;
    rc = hx_export_vtu(&part, piece, o);
  }
  rc = hx_comm_agree(m->comm, rc);
  if (rc == HX_OK && rank == 0) {
    hx_outfile f;
    rc = hx_outfile_open(&f, path);
    if (rc == HX_OK) {
      FILE *fp = f.fp;
      f.round = HX_OUT_PRIMARY;
      fprintf(fp,
              "<?xml version=\"1.0\"?>\n<VTKFile type=\"PUnstructuredGrid\" version=\"2.2\" byte_order=\"%s\" "
              "header_type=\"UInt64\">\n",
              hx_io_little_endian() ? "LittleEndian" : "BigEndian");
      fprintf(fp, "  <!-- written by hexpack %s: %d piece(s), one per rank, order %d Lagrange hexahedra -->\n", HX_VERSION, size,
              hx_io_out_order(m, o));
      fprintf(fp, "  <PUnstructuredGrid GhostLevel=\"0\">\n");
      for (int a = 0; a < A_NUM; a++) {
        if (a == A_DEG) fprintf(fp, "    <PCellData HigherOrderDegrees=\"HigherOrderDegrees\" Scalars=\"scaled_jacobian\">\n");
        if (a == A_POINTS) fprintf(fp, "    </PCellData>\n    <PPoints>\n");
        if (a == A_CONN) break;
        fprintf(fp, "      <PDataArray type=\"%s\" Name=\"%s\"", types[a], names[a]);
        if (ncomp[a] > 1) fprintf(fp, " NumberOfComponents=\"%d\"", ncomp[a]);
        fprintf(fp, "/>\n");
      }
      fprintf(fp, "    </PPoints>\n");
      for (int r = 0; r < size && rc == HX_OK; r++) {
        char full[4200];
        const char *name;
        rc = piece_name(path, r, full, sizeof full, &name);
        if (rc == HX_OK) fprintf(fp, "    <Piece Source=\"%s\"/>\n", name);
      }
      fprintf(fp, "  </PUnstructuredGrid>\n</VTKFile>\n");
      if (rc == HX_OK) rc = hx_outfile_commit(&f);
      else hx_outfile_abort(&f);
    }
  }
  hx_outset_round(round0);
  return hx_outset_end(m->comm, rc);
}
