/* Output points numbered by node id, and their coordinates written in that order
   (.vtu and .msh; io_gather.h).

   design:
   1. one pass over the node ids of every rank's elements marks them in a bitmap over
      [0, id_bound); the points are the used ids in increasing order and a point's
      index is the rank of its id: the ids used before its group of 65,536 ids
      (int64), before its 64-id word within the group (16 bits) and a popcount in the
      word. 0.16 bytes an id, where a map id -> index takes 8 or more, and the same
      numbering for any number of ranks (global ids);
   2. coordinates: a pass over the elements at the output order writes the first copy
      of every point (global element order; a bitmap of the points done), after
      re-interpolating the element to the format's nodes. Raw binary goes straight to
      the point's place in the file (pwrite) through a direct-mapped cache of pages,
      written back as runs of filled slots; a text or compressed array, which must
      come in order, is collected a window of points per pass. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "io_gather.h"

int hx_ptnum_build(hx_gsrc *g, hx_ptnum *p) {
  memset(p, 0, sizeof *p);
  int64_t bound = g->id_bound > 0 ? g->id_bound : 1;
  p->nwords = (bound + 63) / 64;
  HX_CALL(hx_malloc((size_t)p->nwords * sizeof *p->used, &p->used));
  HX_CALL(hx_malloc((size_t)p->nwords * sizeof *p->off, &p->off));
  HX_CALL(hx_malloc((size_t)(p->nwords / 1024 + 2) * sizeof *p->cum, &p->cum));
  const hx_gblock *b;
  HX_CALL(hx_gsrc_pass(g, HX_GS_ID));
  for (;;) {
    HX_CALL(hx_gsrc_next(g, &b));
    if (!b) break;
    for (size_t q = 0; q < (size_t)b->count * g->npe; q++) {
      int64_t id = b->view.node_id[q];
      HX_CHECK(id >= 0 && id < bound, HX_ERR_INTERNAL, "node id %lld outside [0, %lld)", (long long)id, (long long)bound);
      p->used[id >> 6] |= UINT64_C(1) << (id & 63);
    }
  }
  int64_t n = 0;
  for (int64_t w = 0; w < p->nwords; w++) {
    if (!(w & 1023)) p->cum[w >> 10] = n;
    p->off[w] = (uint16_t)(n - p->cum[w >> 10]);
    n += hx_pop64(p->used[w]);
  }
  p->num_points = n;
  return hx_malloc((size_t)(n / 64 + 1) * sizeof *p->done, &p->done);
}

void hx_ptnum_free(hx_ptnum *p) {
  hx_free(&p->used);
  hx_free(&p->off);
  hx_free(&p->cum);
  hx_free(&p->done);
  hx_free(&p->xq);
  p->xq_cap = 0;
}

/* Calls put(ctx, point, xyz) for the first copy of every point of a block with index
   in [lo, hi) not done yet, in element order. */
typedef int (*point_fn)(void *ctx, int64_t pt, const double xyz[3]);
static int block_points(hx_ptnum *P, int nd, const double *B, const hx_gblock *b, int64_t lo, int64_t hi, point_fn put,
                        void *ctx) {
  const hx_mesh *v = &b->view;
  size_t npe = (size_t)nd * nd * nd;
  /* the block re-interpolated at once (every element has points of its own: its interior) */
  if (b->count > P->xq_cap) {
    hx_free(&P->xq);
    P->xq_cap = 0;
    HX_CALL(hx_malloc((size_t)b->count * 3 * npe * sizeof *P->xq, &P->xq));
    P->xq_cap = b->count;
  }
  double *xq = P->xq;
#pragma omp parallel for schedule(static)
  for (hx_lid e = 0; e < b->count; e++)
    for (int d = 0; d < 3; d++) hx_io_tensor3(nd, B, hx_mesh_elem_x(v, e, d), xq + ((size_t)e * 3 + d) * npe);
  for (hx_lid e = 0; e < b->count; e++) {
    const double *xe = xq + (size_t)e * 3 * npe;
    for (size_t q = 0; q < npe; q++) {
      int64_t pt = hx_ptnum_of(P, v->node_id[(size_t)e * npe + q]);
      if (pt < lo || pt >= hi || (P->done[pt >> 6] >> (pt & 63) & 1)) continue;
      P->done[pt >> 6] |= UINT64_C(1) << (pt & 63);
      double xyz[3] = {xe[q], xe[npe + q], xe[2 * npe + q]};
      HX_CALL(put(ctx, pt, xyz));
    }
  }
  return HX_OK;
}

static int check_all_done(const hx_ptnum *P) {
  int64_t done = 0;
  for (int64_t w = 0; w < P->num_points / 64 + 1; w++) done += hx_pop64(P->done[w]);
  HX_CHECK(done == P->num_points, HX_ERR_INTERNAL, "wrote %lld of %lld points", (long long)done, (long long)P->num_points);
  return HX_OK;
}

/* ---- raw: in place, through a cache of pages ---------------------------------------- */

#define PC_PAGE (1 << 15) /* points a page (768 KB) */
#define PC_SLOTS 64
typedef struct pcache {
  hx_outfile *f;
  int fd;
  int64_t base;          /* file offset of point 0 */
  int64_t tag[PC_SLOTS]; /* page held by each slot, -1: none */
  uint64_t *fill;        /* [PC_SLOTS][PC_PAGE / 64] */
  double *buf;           /* [PC_SLOTS][PC_PAGE][3] */
} pcache;

static int pc_writeback(pcache *c, int slot) {
  if (c->tag[slot] < 0) return HX_OK;
  uint64_t *fill = c->fill + (size_t)slot * (PC_PAGE / 64);
  const double *buf = c->buf + (size_t)slot * PC_PAGE * 3;
  for (int64_t i = 0; i < PC_PAGE;) {
    uint64_t wd = fill[i >> 6] >> (i & 63);
    if (!wd) { /* no filled slot left in this word */
      i = (i | 63) + 1;
      continue;
    }
    i += __builtin_ctzll(wd);
    int64_t j = i;
    while (j < PC_PAGE) {                         /* the end of this run of filled slots: the next empty one */
      uint64_t holes = ~fill[j >> 6] >> (j & 63); /* the zeros shifted in are not holes */
      if (holes) {
        j += __builtin_ctzll(holes);
        break;
      }
      j = (j | 63) + 1;
    }
    HX_CALL(hx_io_pwrite(c->fd, buf + 3 * i, (size_t)(j - i) * 24, c->base + (c->tag[slot] * PC_PAGE + i) * 24, c->f->path));
    i = j;
  }
  memset(fill, 0, PC_PAGE / 8);
  c->tag[slot] = -1;
  return HX_OK;
}

static int pc_put(void *ctx, int64_t pt, const double xyz[3]) {
  pcache *c = ctx;
  int64_t page = pt / PC_PAGE, i = pt % PC_PAGE;
  int slot = (int)(page % PC_SLOTS);
  if (c->tag[slot] != page) {
    HX_CALL(pc_writeback(c, slot));
    c->tag[slot] = page;
  }
  memcpy(c->buf + ((size_t)slot * PC_PAGE + (size_t)i) * 3, xyz, 3 * sizeof(double));
  c->fill[(size_t)slot * (PC_PAGE / 64) + (size_t)(i >> 6)] |= UINT64_C(1) << (i & 63);
  return HX_OK;
}

int hx_ptnum_write_raw(hx_gsrc *g, hx_ptnum *P, const double *B, hx_outfile *f) {
  pcache pc;
  memset(&pc, 0, sizeof pc);
  pc.f = f;
  for (int k = 0; k < PC_SLOTS; k++) pc.tag[k] = -1;
  HX_CHECK(fflush(f->fp) == 0, HX_ERR_IO, "writing '%s' failed: %s", f->path, strerror(errno));
  pc.fd = fileno(f->fp);
  pc.base = (int64_t)ftell(f->fp);
  int rc = hx_malloc((size_t)PC_SLOTS * (PC_PAGE / 64) * sizeof *pc.fill, &pc.fill);
  if (!rc) rc = hx_malloc((size_t)PC_SLOTS * PC_PAGE * 3 * sizeof *pc.buf, &pc.buf);
  const hx_gblock *b;
  if (!rc) rc = hx_gsrc_pass(g, HX_GS_X | HX_GS_ID);
  while (!rc && !(rc = hx_gsrc_next(g, &b)) && b) rc = block_points(P, g->nd, B, b, 0, P->num_points, pc_put, &pc);
  for (int k = 0; k < PC_SLOTS && !rc; k++) rc = pc_writeback(&pc, k);
  hx_free(&pc.fill);
  hx_free(&pc.buf);
  HX_CALL(rc);
  HX_CALL(check_all_done(P));
  /* on after the array */
  HX_CHECK(fseek(f->fp, (long)(pc.base + (off_t)P->num_points * 24), SEEK_SET) == 0, HX_ERR_IO, "'%s': seek failed", f->path);
  return HX_OK;
}

/* ---- in order: a window of points per pass ----------------------------------------- */

typedef struct pwindow {
  double *xyz;
  int64_t lo;
} pwindow;

static int pw_put(void *ctx, int64_t pt, const double xyz[3]) {
  pwindow *w = ctx;
  memcpy(w->xyz + 3 * (pt - w->lo), xyz, 3 * sizeof(double));
  return HX_OK;
}

int hx_ptnum_write_ordered(hx_gsrc *g, hx_ptnum *P, const double *B, int64_t window,
                           int (*emit)(void *ctx, const double *xyz, int64_t n), void *ctx) {
  int64_t win = window > 0 ? window : (int64_t)1 << 24; /* 384 MB of points a pass */
  if (win > P->num_points) win = P->num_points > 0 ? P->num_points : 1;
  pwindow pw = {NULL, 0};
  int rc = hx_malloc((size_t)win * 3 * sizeof(double), &pw.xyz);
  for (int64_t lo = 0; !rc && lo < P->num_points; lo += win) {
    int64_t hi = lo + win < P->num_points ? lo + win : P->num_points;
    const hx_gblock *b;
    pw.lo = lo;
    rc = hx_gsrc_pass(g, HX_GS_X | HX_GS_ID);
    while (!rc && !(rc = hx_gsrc_next(g, &b)) && b) rc = block_points(P, g->nd, B, b, lo, hi, pw_put, &pw);
    if (!rc) rc = emit(ctx, pw.xyz, hi - lo);
  }
  hx_free(&pw.xyz);
  HX_CALL(rc);
  return check_all_done(P);
}
