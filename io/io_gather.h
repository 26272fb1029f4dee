/* Inside io only: the writers' view of a mesh distributed over m->comm.

   design (docs/formats.md): rank 0 writes the file; the other ranks
   serve their elements to it, block by block, in global element order (rank order),
   when rank 0 asks. A writer is written once, as if serial:

     hx_gsrc g;
     HX_CALL(hx_gsrc_open(m, order, o->force, &g));      collective: global counts
     if (!g.root) return hx_gsrc_serve(&g);               ranks > 0 answer until rank 0 ends
     rc = ... passes on rank 0:
          hx_gsrc_pass(&g, HX_GS_X | HX_GS_ID);
          while ((rc = hx_gsrc_next(&g, &b)) == HX_OK && b) { use b->view, b->e0 ... }
          hx_gsrc_face_pass(&g, bid, HX_GF_NODES);
          while ((rc = hx_gsrc_next_faces(&g, &fb)) == HX_OK && fb) { ... }
     return hx_gsrc_close(&g, rc);                          every rank returns rc

   Rank 0 holds its own part, one block (the next one is prepared by its owner
   while rank 0 writes the current one) and what the writer keeps (the node
   numbering map). On one rank (and without MPI) nothing is sent: the same code
   reads the local mesh. Boundary faces come in the canonical order (global
   element, local face), so the file does not depend on the partition. Curved
   blocks (output order != mesh order) are made and checked by their owner;
   a failure there reaches rank 0 with its message. */
#pragma once
#include "hx_progress.h"
#include "io_impl.h"

/* what a block carries */
enum {
  HX_GS_X = 1,     /* x at the output order, E-vector layout */
  HX_GS_ID = 2,    /* node ids at the output order */
  HX_GS_VERT = 4,  /* vert_id [count][8] */
  HX_GS_ATTR = 8,  /* elem_attr [count] */
  HX_GS_QUAL = 16, /* minj, sj [count]: min det J at the GLL nodes and min/max (computed by the owner) */
  HX_GS_BND = 32,  /* bnd [count][6]: boundary id per face, 0 = none */
  HX_GS_SURF = 64  /* bsurf [count][6]: surface index of boundary faces, -1 = none */
};
/* what a face chunk carries besides the records */
enum { HX_GF_VERT = 1 /* the element's 8 vert ids */, HX_GF_NODES = 2 /* the element's nd^3 node ids */ };

typedef struct hx_gface {
  hx_gid elem; /* global element index */
  int32_t face, bid, surf, pad;
} hx_gface;

typedef struct hx_gblock {
  hx_gid e0; /* global index of the first element */
  hx_lid count;
  const double *minj, *sj;
  const int32_t *bnd, *bsurf;
  hx_mesh view; /* shallow mesh of the block: x, node_id, vert_id, elem_attr, order, nd, num_elem */
} hx_gblock;

typedef struct hx_gfaces {
  hx_lid count;
  const hx_gface *f;
  const hx_gid *ids; /* [count][8] (HX_GF_VERT) or [count][nd^3] (HX_GF_NODES) */
} hx_gfaces;

typedef struct hx_gsrc {
  const hx_mesh *m;
  int rank, size, root; /* root: this rank writes (rank 0) */
  int order, nd, npe;
  hx_elemsrc src;
  hx_lid block, fblock; /* elements per block, faces per chunk */
  /* global facts, on every rank */
  hx_gid num_elem, num_faces;
  hx_gid id_bound;         /* output node ids lie in [0, id_bound) */
  hx_gid vert_lo, vert_hi; /* range of vert ids */
  int max_bid;
  int64_t *bid_count;  /* [max_bid + 1] faces per boundary id */
  int64_t *rank_elems; /* [size] */
  /* this rank's faces sorted by (element, face), and per element (CSR) */
  hx_lid *face_order, *face_start;
  hx_gface *fbuf; /* one chunk of face records */
  hx_gid *fids;
  double *qual;         /* [2][num_elem] cache of minj, sj */
  unsigned char *qdone; /* per block */
  int32_t *bb;          /* [block][6] bnd or bsurf */
  int32_t *sb;
  /* rank 0: the pass in progress */
  int mask, cur, pending, pend_mask; /* pending: rank asked ahead (0 = none) */
  hx_gid pos, pend_pos, gbase;
  hx_lid pend_cnt;
  int fbid, fwhat, fdone;
  void *rx[8]; /* receive buffers per field */
  hx_gblock blk;
  hx_gfaces fch;
  double D[HX_MAX_ND * HX_MAX_ND];
  hx_progress prog; /* the element pass in progress, "writing, pass N" */
  int npass;
} hx_gsrc;

/** Collective on m->comm: open the local source and agree on the global counts.
    On failure every rank returns the same code. */
int hx_gsrc_open(const hx_mesh *m, int order, int force, hx_gsrc *g);
/** Ranks other than 0: answer rank 0 until it closes; returns its code and frees g. */
int hx_gsrc_serve(hx_gsrc *g);
/** Rank 0: start a pass over every element with the given fields. */
int hx_gsrc_pass(hx_gsrc *g, int mask);
/** Rank 0: the next block of the pass (NULL at its end). */
int hx_gsrc_next(hx_gsrc *g, const hx_gblock **b);
/** Rank 0: start a pass over the boundary faces (bid 0: all) with the extra ids what. */
int hx_gsrc_face_pass(hx_gsrc *g, int bid, int what);
/** Rank 0: the next chunk of faces (NULL at the end). */
int hx_gsrc_next_faces(hx_gsrc *g, const hx_gfaces **fb);
/** Rank 0: end the write with code rc (every server returns it); frees g. */
int hx_gsrc_close(hx_gsrc *g, int rc);

/* Writers that write their own part (every rank at its offsets, e.g. hx_io_pwrite): after
   hx_gsrc_open, every rank walks its own elements and faces (global element indices, the
   same blocks and face order as rank 0 would receive) and frees g without messages. */
/** Every rank: the next block of its own elements with the fields of mask (NULL at the end);
 *pos (local) starts at 0. */
int hx_gsrc_own_next(hx_gsrc *g, int mask, hx_gid *pos, const hx_gblock **b);
/** Every rank: the next chunk of its own boundary faces, in (element, face) order. */
int hx_gsrc_own_faces(hx_gsrc *g, hx_gid *pos, const hx_gfaces **fb);
/** Every rank, instead of serve / close: frees g. */
void hx_gsrc_own_close(hx_gsrc *g);
/* ---- output points numbered by node id (points.c: .vtu and .msh) --------------------- */

/** Point index of a node id: the rank of the id among the ids used (see points.c). */
typedef struct hx_ptnum {
  uint64_t *used; /* [nwords] bit per id */
  uint16_t *off;  /* [nwords] used ids before each word, within its group of 1024 words */
  int64_t *cum;   /* [groups] used ids before each group */
  int64_t nwords;
  int64_t num_points; /* used ids */
  uint64_t *done;     /* [num_points / 64 + 1] points written */
  double *xq;         /* [xq_cap][3][nd^3] a block re-interpolated */
  hx_lid xq_cap;
} hx_ptnum;

/** bits set in x (SWAR: no POPCNT instruction assumed) */
static inline int64_t hx_pop64(uint64_t x) {
  x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
  x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
  x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
  return (int64_t)((x * UINT64_C(0x0101010101010101)) >> 56);
}
static inline int64_t hx_ptnum_of(const hx_ptnum *p, int64_t id) {
  int64_t w = id >> 6;
  return p->cum[w >> 10] + p->off[w] + hx_pop64(p->used[w] & ((UINT64_C(1) << (id & 63)) - 1));
}
/** Rank 0: number the points (one pass of g over the node ids). */
int hx_ptnum_build(hx_gsrc *g, hx_ptnum *p);
void hx_ptnum_free(hx_ptnum *p);
/** Rank 0: the coordinates of every point (x y z doubles, the first copy of each, the
    element re-interpolated by the 1D matrix B first) straight into f at its position,
    which is then after the array. */
int hx_ptnum_write_raw(hx_gsrc *g, hx_ptnum *p, const double *B, hx_outfile *f);
/** Rank 0: the same coordinates in point order through emit (n points, 3 n doubles), a
    window of `window` points per pass over the elements (0: 2^24; hx_export_opts.point_window). */
int hx_ptnum_write_ordered(hx_gsrc *g, hx_ptnum *p, const double *B, int64_t window,
                           int (*emit)(void *ctx, const double *xyz, int64_t n), void *ctx);
