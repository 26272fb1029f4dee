/* Gmsh MSH 4.1 writer, ASCII or binary, streaming.

   design:
   1. number the points by node id (points.c: the used ids in increasing order, as
      the .vtu writer; on several ranks rank 0 writes, pulling the other ranks' blocks
      and faces in global order, io_gather.h): node tags 1..NP, one node block on
      volume 1;
   2. $PhysicalNames: the volume (3D group 1, "volume") and one 2D group per boundary
      id (tag = id, name = the boundary name or "boundary_<id>"); $Entities: one
      surface per boundary id (tag = id) and volume 1, zero boxes, empty bounding
      lists;
   3. $Nodes: tags, then coordinates re-interpolated from GLL to the equispaced
      nodes Gmsh assumes (the first copy of a shared node; binary straight to its
      place in the file, ASCII in order, points.c);
   4. $Elements: the hexahedra (types 5, 12, 92..98) in Gmsh's order, then per
      boundary id a block of quadrangles of the same order whose corners follow the
      outward face order of 2.4 and whose nodes follow Q(N).
   Gmsh has no hexahedron of order 10 or more: those are refused with a message. */
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "io_gather.h"

static const int GMSH_HEX_TYPE[10] = {0, 5, 12, 92, 93, 94, 95, 96, 97, 98};
static const int GMSH_QUAD_TYPE[10] = {0, 3, 10, 36, 37, 38, 47, 48, 49, 50};
/* Gmsh's faces as standard corners (q0,q1,q2,q3), outward */
static const int GMSH_FACE[6][4] = {{0, 3, 2, 1}, {0, 1, 5, 4}, {0, 4, 7, 3}, {1, 2, 6, 5}, {2, 3, 7, 6}, {4, 5, 6, 7}};
/* hexpack face -> Gmsh face */
static const int HX_TO_GMSH_FACE[6] = {2, 3, 1, 4, 0, 5};
/* standard corner -> integer position (0/1 per direction) */
static const int STD_POS[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

typedef struct msh_ctx {
  const hx_mesh *m;
  hx_gsrc g; /* the elements and faces of every rank (io_gather.h) */
  int order, nd, npe, binary;
  int64_t num_points;
  hx_ptnum pid;   /* node id -> point index (points.c) */
  int64_t window; /* points per pass of the ordered writer (hx_export_opts.point_window) */
  int hex_lex[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  int quad_uv[2 * HX_MAX_ND * HX_MAX_ND];
  double B[HX_MAX_ND * HX_MAX_ND];
  int *bids; /* distinct boundary ids, increasing */
  int nbids;
} msh_ctx;

static int wr(hx_outfile *f, const void *p, size_t n) { return hx_outfile_write(f, p, n); }
static int wr_u64(hx_outfile *f, uint64_t v) { return wr(f, &v, 8); }
static int wr_i32(hx_outfile *f, int32_t v) { return wr(f, &v, 4); }

static int msh_emit_text(void *ctx, const double *xyz, int64_t n) {
  hx_outfile *f = ctx;
  for (int64_t i = 0; i < n; i++)
    if (fprintf(f->fp, "%.17g %.17g %.17g\n", xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]) < 0)
      return HX_ERROR(HX_ERR_IO, "writing '%s' failed", f->path);
  return HX_OK;
}

/* lex index of the node of quad position q on hexpack face hf of an order-N hex */
static int quad_node_lex(const msh_ctx *c, int hf, int q) {
  const int *F = GMSH_FACE[HX_TO_GMSH_FACE[hf]];
  int N = c->order, u = c->quad_uv[2 * q], v = c->quad_uv[2 * q + 1], ijk[3];
  for (int d = 0; d < 3; d++)
    ijk[d] = STD_POS[F[0]][d] * N + u * (STD_POS[F[1]][d] - STD_POS[F[0]][d]) + v * (STD_POS[F[3]][d] - STD_POS[F[0]][d]);
  return hx_lex(c->nd, ijk[0], ijk[1], ijk[2]);
}

static int write_msh(msh_ctx *c, hx_outfile *f) {
  const hx_mesh *m = c->m;
  FILE *fp = f->fp;
  int bin = c->binary;
  fprintf(fp, "$MeshFormat\n4.1 %d 8\n", bin);
  if (bin) {
    HX_CALL(wr_i32(f, 1));
    fprintf(fp, "\n");
  }
  fprintf(fp, "$EndMeshFormat\n$PhysicalNames\n%d\n3 1 \"volume\"\n", c->nbids + 1);
  for (int k = 0; k < c->nbids; k++) {
    int b = c->bids[k];
    const char *name = b < m->num_bnames ? m->bnames[b] : NULL;
    if (name && !strchr(name, '"') && strlen(name) < 120) fprintf(fp, "2 %d \"%s\"\n", b, name);
    else fprintf(fp, "2 %d \"boundary_%d\"\n", b, b);
  }
  fprintf(fp, "$EndPhysicalNames\n$Entities\n");
  if (!bin) {
    fprintf(fp, "0 0 %d 1\n", c->nbids);
    for (int k = 0; k < c->nbids; k++) fprintf(fp, "%d 0 0 0 0 0 0 1 %d 0\n", c->bids[k], c->bids[k]);
    fprintf(fp, "1 0 0 0 0 0 0 1 1 0\n");
  } else {
    double box[6] = {0, 0, 0, 0, 0, 0};
    HX_CALL(wr_u64(f, 0));
    HX_CALL(wr_u64(f, 0));
    HX_CALL(wr_u64(f, (uint64_t)c->nbids));
    HX_CALL(wr_u64(f, 1));
    for (int k = 0; k < c->nbids; k++) {
      HX_CALL(wr_i32(f, c->bids[k]));
      HX_CALL(wr(f, box, sizeof box));
      HX_CALL(wr_u64(f, 1));
      HX_CALL(wr_i32(f, c->bids[k]));
      HX_CALL(wr_u64(f, 0));
    }
    HX_CALL(wr_i32(f, 1));
    HX_CALL(wr(f, box, sizeof box));
    HX_CALL(wr_u64(f, 1));
    HX_CALL(wr_i32(f, 1));
    HX_CALL(wr_u64(f, 0));
    fprintf(fp, "\n");
  }
  fprintf(fp, "$EndEntities\n$Nodes\n");
  uint64_t np = (uint64_t)c->num_points;
  if (!bin) {
    fprintf(fp, "1 %llu 1 %llu\n3 1 0 %llu\n", (unsigned long long)np, (unsigned long long)np, (unsigned long long)np);
    for (uint64_t t = 1; t <= np; t++) fprintf(fp, "%llu\n", (unsigned long long)t);
  } else {
    uint64_t h[4] = {1, np, 1, np};
    HX_CALL(wr(f, h, sizeof h));
    HX_CALL(wr_i32(f, 3));
    HX_CALL(wr_i32(f, 1));
    HX_CALL(wr_i32(f, 0));
    HX_CALL(wr_u64(f, np));
    uint64_t buf[1024];
    for (uint64_t t = 1; t <= np;) {
      int k = 0;
      for (; k < 1024 && t <= np; k++, t++) buf[k] = t;
      HX_CALL(wr(f, buf, (size_t)k * 8));
    }
  }
  /* coordinates, by node id */
  const hx_gblock *gb;
  if (bin) HX_CALL(hx_ptnum_write_raw(&c->g, &c->pid, c->B, f));
  else HX_CALL(hx_ptnum_write_ordered(&c->g, &c->pid, c->B, c->window, msh_emit_text, f));
  if (bin) fprintf(fp, "\n");
  fprintf(fp, "$EndNodes\n$Elements\n");
  uint64_t ne = (uint64_t)c->g.num_elem + (uint64_t)c->g.num_faces;
  int nq = c->nd * c->nd;
  if (!bin) {
    fprintf(fp, "%d %llu 1 %llu\n3 1 %d %lld\n", c->nbids + 1, (unsigned long long)ne, (unsigned long long)ne,
            GMSH_HEX_TYPE[c->order], (long long)c->g.num_elem);
  } else {
    uint64_t h[4] = {(uint64_t)c->nbids + 1, ne, 1, ne};
    HX_CALL(wr(f, h, sizeof h));
    HX_CALL(wr_i32(f, 3));
    HX_CALL(wr_i32(f, 1));
    HX_CALL(wr_i32(f, GMSH_HEX_TYPE[c->order]));
    HX_CALL(wr_u64(f, (uint64_t)c->g.num_elem));
  }
  uint64_t row[1 + HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  HX_CALL(hx_gsrc_pass(&c->g, HX_GS_ID));
  for (;;) {
    HX_CALL(hx_gsrc_next(&c->g, &gb));
    if (!gb) break;
    const hx_mesh *v = &gb->view;
    for (hx_lid e = 0; e < gb->count; e++) {
      row[0] = (uint64_t)(gb->e0 + e) + 1;
      for (int p = 0; p < c->npe; p++) {
        row[1 + p] = (uint64_t)hx_ptnum_of(&c->pid, v->node_id[(size_t)e * c->npe + c->hex_lex[p]]) + 1;
      }
      if (bin) {
        HX_CALL(wr(f, row, (size_t)(1 + c->npe) * 8));
      } else {
        for (int p = 0; p <= c->npe; p++) fprintf(fp, p < c->npe ? "%llu " : "%llu\n", (unsigned long long)row[p]);
      }
    }
  }
  /* per boundary id its faces in (element, face) order */
  uint64_t tag = (uint64_t)c->g.num_elem;
  for (int k = 0; k < c->nbids; k++) {
    int b = c->bids[k];
    int64_t count = c->g.bid_count[b];
    if (!bin) {
      fprintf(fp, "2 %d %d %lld\n", b, GMSH_QUAD_TYPE[c->order], (long long)count);
    } else {
      HX_CALL(wr_i32(f, 2));
      HX_CALL(wr_i32(f, b));
      HX_CALL(wr_i32(f, GMSH_QUAD_TYPE[c->order]));
      HX_CALL(wr_u64(f, (uint64_t)count));
    }
    const hx_gfaces *fb;
    int64_t got = 0;
    HX_CALL(hx_gsrc_face_pass(&c->g, b, HX_GF_NODES));
    for (;;) {
      HX_CALL(hx_gsrc_next_faces(&c->g, &fb));
      if (!fb) break;
      for (hx_lid t = 0; t < fb->count; t++, got++) {
        const hx_gid *ids = fb->ids + (size_t)t * c->npe;
        row[0] = ++tag;
        for (int p = 0; p < nq; p++) {
          row[1 + p] = (uint64_t)hx_ptnum_of(&c->pid, ids[quad_node_lex(c, fb->f[t].face, p)]) + 1;
        }
        if (bin) {
          HX_CALL(wr(f, row, (size_t)(1 + nq) * 8));
        } else {
          for (int p = 0; p <= nq; p++) fprintf(fp, p < nq ? "%llu " : "%llu\n", (unsigned long long)row[p]);
        }
      }
    }
    HX_CHECK(got == count, HX_ERR_INTERNAL, "boundary %d: %lld faces written, %lld counted", b, (long long)got, (long long)count);
  }
  if (bin) fprintf(fp, "\n");
  fprintf(fp, "$EndElements\n");
  return HX_OK;
}

int hx_msh_check(const char *path, int order) {
  HX_CHECK(order >= 1 && order <= 9, HX_ERR_INPUT,
           "'%s': Gmsh has Lagrange hexahedra of order 1..9 only, not %d; write at --order 9 or less", path, order);
  return HX_OK;
}

int hx_export_msh(const hx_mesh *m, const char *path, const hx_export_opts *o) {
  hx_export_opts def;
  if (!o) {
    hx_export_opts_default(&def);
    o = &def;
  }
  msh_ctx c;
  memset(&c, 0, sizeof c);
  c.m = m;
  c.order = hx_io_out_order(m, o);
  HX_CALL(hx_msh_check(path, c.order));
  HX_CHECK(sizeof(size_t) == 8, HX_ERR_INTERNAL, "the binary .msh writer needs an 8-byte size_t");
  c.nd = c.order + 1;
  c.npe = c.nd * c.nd * c.nd;
  c.binary = o->binary;
  c.window = o->point_window;
  hx_gmsh_hex_order(c.order, c.hex_lex);
  hx_gmsh_quad_uv(c.order, c.quad_uv);
  HX_CALL(hx_gsrc_open(m, c.order, hx_io_skip_detj(o), &c.g));
  if (!c.g.root) return hx_gsrc_serve(&c.g);
  int rc = hx_io_interp_matrix(c.nd, 1, c.B);
  if (rc == HX_OK) rc = hx_malloc(((size_t)c.g.max_bid + 1) * sizeof(int), &c.bids);
  if (rc == HX_OK)
    for (int b = 1; b <= c.g.max_bid; b++)
      if (c.g.bid_count[b]) c.bids[c.nbids++] = b;
  /* node numbering */
  if (rc == HX_OK) rc = hx_ptnum_build(&c.g, &c.pid);
  c.num_points = c.pid.num_points;
  hx_outfile f;
  if (rc == HX_OK) rc = hx_outfile_open(&f, path);
  if (rc == HX_OK) {
    rc = write_msh(&c, &f);
    if (rc == HX_OK) rc = hx_outfile_commit(&f);
    else hx_outfile_abort(&f);
  }
  hx_ptnum_free(&c.pid);
  hx_free(&c.bids);
  return hx_gsrc_close(&c.g, rc);
}
