/* Writers on distributed meshes: rank 0 pulls the other ranks' elements and
   boundary faces block by block (io_gather.h). Protocol, rank 0 -> rank r
   (tag TAG_REQ): a request {cmd, mask, pos, count, bid, what, rc}; rank r answers
   (tag TAG_REP) with a header {rc, count, next, done, message} and, when rc is
   HX_OK, one message per field. Rank 0 asks for the next block before it writes
   the current one, so the owner prepares it meanwhile; an unanswered request is
   drained before a new pass and at the end, so no rank is left blocked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "io_gather.h"

enum { TAG_REQ = 7301, TAG_REP = 7302 };
enum { CMD_BLOCK = 1, CMD_FACES = 2, CMD_END = 3 };
enum { F_X, F_ID, F_VERT, F_ATTR, F_MINJ, F_SJ, F_BND, F_SURF, F_NUM };

typedef struct gs_req {
  int64_t cmd, mask, pos, count, bid, what, rc;
} gs_req;

typedef struct gs_rep {
  int64_t rc, count, next, done;
  char msg[480];
} gs_rep;

static size_t field_bytes(const hx_gsrc *g, int f) {
  switch (f) {
  case F_X: return (size_t)3 * g->npe * sizeof(double);
  case F_ID: return (size_t)g->npe * sizeof(hx_gid);
  case F_VERT: return 8 * sizeof(hx_gid);
  case F_ATTR: return sizeof(int32_t);
  case F_MINJ:
  case F_SJ: return sizeof(double);
  default: return 6 * sizeof(int32_t);
  }
}

static int field_in_mask(int f, int mask) {
  static const int bit[F_NUM] = {HX_GS_X, HX_GS_ID, HX_GS_VERT, HX_GS_ATTR, HX_GS_QUAL, HX_GS_QUAL, HX_GS_BND, HX_GS_SURF};
  return (mask & bit[f]) != 0;
}

typedef struct {
  hx_gid elem;
  int32_t face;
  hx_lid idx;
} fkey;
static int cmp_fkey(const void *a, const void *b) {
  const fkey *x = a, *y = b;
  if (x->elem != y->elem) return x->elem < y->elem ? -1 : 1;
  if (x->face != y->face) return x->face < y->face ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ull;
  return h;
}

static void gs_free(hx_gsrc *g) {
  hx_progress_finish(&g->prog);
  hx_elemsrc_close(&g->src);
  hx_free(&g->bid_count);
  hx_free(&g->rank_elems);
  hx_free(&g->face_order);
  hx_free(&g->face_start);
  hx_free(&g->fbuf);
  hx_free(&g->fids);
  hx_free(&g->qual);
  hx_free(&g->qdone);
  hx_free(&g->bb);
  hx_free(&g->sb);
  for (int f = 0; f < F_NUM; f++) {
    void *p = g->rx[f];
    hx_free(&p);
    g->rx[f] = NULL;
  }
}

/* local checks and tables (no communication) */
static int gs_local(const hx_mesh *m, int order, int force, hx_gsrc *g, int64_t *maxbid) {
  HX_CALL(hx_elemsrc_open(m, order, force, &g->src));
  size_t cap = ((size_t)1 << 21) / (size_t)g->npe;
  g->block = g->src.block < (hx_lid)cap ? g->src.block : (hx_lid)(cap ? cap : 1);
  g->fblock = g->block;
  hx_lid nf = m->num_faces, ne = m->num_elem;
  *maxbid = 0;
  for (hx_lid q = 0; q < nf; q++) {
    const hx_bface *b = &m->faces[q];
    HX_CHECK(b->elem >= 0 && b->elem < ne && b->face >= 0 && b->face <= 5 && b->bid >= 1, HX_ERR_INVALID_MESH,
             "boundary face %lld (element %lld, face %d, id %d) is invalid", (long long)q, (long long)b->elem, b->face, b->bid);
    if (b->bid > *maxbid) *maxbid = b->bid;
  }
  fkey *k = NULL;
  HX_CALL(hx_malloc(((size_t)nf + 1) * sizeof *k, &k));
  for (hx_lid q = 0; q < nf; q++) k[q] = (fkey){m->faces[q].elem, m->faces[q].face, q};
  qsort(k, (size_t)nf, sizeof *k, cmp_fkey);
  int rc = hx_malloc(((size_t)nf + 1) * sizeof(hx_lid), &g->face_order);
  if (rc == HX_OK) rc = hx_malloc(((size_t)ne + 1) * sizeof(hx_lid), &g->face_start);
  if (rc == HX_OK) {
    for (hx_lid q = 0; q < nf; q++) g->face_order[q] = k[q].idx;
    hx_lid q = 0;
    for (hx_lid e = 0; e <= ne; e++) {
      while (q < nf && k[q].elem < e) q++;
      g->face_start[e] = q;
    }
  }
  hx_free(&k);
  HX_CALL(rc);
  HX_CALL(hx_malloc((size_t)g->fblock * sizeof(hx_gface), &g->fbuf));
  HX_CALL(hx_malloc((size_t)g->fblock * (size_t)(g->npe > 8 ? g->npe : 8) * sizeof(hx_gid), &g->fids));
  HX_CALL(hx_malloc((size_t)g->block * 6 * sizeof(int32_t), &g->bb));
  HX_CALL(hx_malloc((size_t)g->block * 6 * sizeof(int32_t), &g->sb));
  HX_CALL(hx_mesh_gll_derivative(g->nd, g->D));
  return HX_OK;
}

int hx_gsrc_open(const hx_mesh *m, int order, int force, hx_gsrc *g) {
  memset(g, 0, sizeof *g);
  g->m = m;
  g->rank = hx_comm_rank(m->comm);
  g->size = hx_comm_size(m->comm);
  g->root = g->rank == 0;
  g->order = order;
  g->nd = order + 1;
  g->npe = g->nd * g->nd * g->nd;
  int64_t maxbid = 0;
  int rc = (order >= 1 && order <= HX_MAX_ORDER) ? gs_local(m, order, force, g, &maxbid)
                                                 : HX_ERROR(HX_ERR_INPUT, "output order %d outside 1..%d", order, HX_MAX_ORDER);
  if (rc == HX_OK) rc = hx_malloc((size_t)g->size * sizeof(int64_t), &g->rank_elems);
  rc = hx_comm_agree(m->comm, rc);
  if (rc) {
    gs_free(g);
    return rc;
  }
  /* global facts: id bound, boundary ids, vert id range, names + surfaces agree */
  uint64_t h = 1469598103934665603ull;
  for (int b = 1; b < m->num_bnames; b++) {
    h = fnv(h, &b, sizeof b);
    if (m->bnames[b]) h = fnv(h, m->bnames[b], strlen(m->bnames[b]) + 1);
  }
  h = fnv(h, &m->num_surfaces, sizeof m->num_surfaces);
  if (m->num_surfaces) h = fnv(h, m->surfaces, (size_t)m->num_surfaces * sizeof *m->surfaces);
  int64_t vlo = INT64_MAX, vhi = -1;
  for (size_t i = 0; i < (size_t)m->num_elem * 8; i++) {
    if (m->vert_id[i] < vlo) vlo = m->vert_id[i];
    if (m->vert_id[i] > vhi) vhi = m->vert_id[i];
  }
  int64_t v[6] = {hx_elemsrc_id_bound(&g->src), maxbid, vhi, -vlo, (int64_t)(h >> 1), -(int64_t)(h >> 1)};
  rc = hx_comm_max_int64(m->comm, v, 6);
  if (rc == HX_OK) rc = hx_comm_allgather_int64(m->comm, m->num_elem, g->rank_elems);
  if (rc == HX_OK && v[4] != -v[5])
    rc = HX_ERROR(HX_ERR_INVALID_MESH, "the ranks hold different boundary names or surfaces: a distributed mesh "
                                       "must carry the same tables on every rank");
  g->id_bound = v[0];
  g->max_bid = (int)v[1];
  g->vert_hi = v[2];
  g->vert_lo = -v[3];
  if (rc == HX_OK) rc = hx_malloc(((size_t)g->max_bid + 1) * sizeof(int64_t), &g->bid_count);
  rc = hx_comm_agree(m->comm, rc);
  if (rc == HX_OK) {
    memset(g->bid_count, 0, ((size_t)g->max_bid + 1) * sizeof(int64_t));
    for (hx_lid q = 0; q < m->num_faces; q++) g->bid_count[m->faces[q].bid]++;
    rc = hx_comm_sum_int64(m->comm, g->bid_count, g->max_bid + 1);
  }
  if (rc) {
    gs_free(g);
    return rc;
  }
  g->num_elem = 0;
  for (int r = 0; r < g->size; r++) g->num_elem += g->rank_elems[r];
  g->num_faces = 0;
  for (int b = 0; b <= g->max_bid; b++) g->num_faces += g->bid_count[b];
  return HX_OK;
}

/* ---- producing blocks and face chunks from this rank's mesh --------------------- */

/* Fields of local elements [pos, pos+cnt) into ptr[F_*] (pointers into the mesh,
   the element source or this rank's buffers, valid until the next call). */
static int local_block(hx_gsrc *g, int mask, hx_gid pos, hx_lid cnt, const void *ptr[F_NUM]) {
  const hx_mesh *m = g->m;
  const hx_mesh *v = NULL;
  memset(ptr, 0, sizeof(void *) * F_NUM);
  if (mask & HX_GS_X) {
    HX_CALL(hx_elemsrc_get(&g->src, (hx_lid)pos, cnt, &v));
    ptr[F_X] = v->x;
    ptr[F_ID] = v->node_id;
  } else if (mask & HX_GS_ID) {
    const hx_mesh *vi = NULL;
    HX_CALL(hx_elemsrc_get_ids(&g->src, (hx_lid)pos, cnt, &vi));
    ptr[F_ID] = vi->node_id;
  }
  ptr[F_VERT] = m->vert_id + (size_t)pos * 8;
  ptr[F_ATTR] = m->elem_attr + pos;
  if (mask & HX_GS_QUAL) {
    size_t nb = ((size_t)m->num_elem + g->block - 1) / g->block + 1, bi = (size_t)pos / g->block;
    if (!g->qual) {
      HX_CALL(hx_malloc(((size_t)m->num_elem + 1) * 2 * sizeof(double), &g->qual));
      HX_CALL(hx_malloc(nb, &g->qdone));
      memset(g->qdone, 0, nb);
    }
    HX_CHECK(pos % g->block == 0, HX_ERR_INTERNAL, "quality block at %lld", (long long)pos);
    double *mj = g->qual + pos, *sj = g->qual + m->num_elem + pos;
    int done = 0;
    if (!g->qdone[bi]) HX_CALL(hx_elemsrc_detj(&g->src, (hx_lid)pos, cnt, mj, sj, &done));
    if (done) g->qdone[bi] = 1; /* kept by the lazy geometry's check: no evaluation */
    if (!g->qdone[bi]) {
      if (!v) HX_CALL(hx_elemsrc_get(&g->src, (hx_lid)pos, cnt, &v));
      if (g->src.q_cnt == cnt && g->src.q_e0 == (hx_lid)pos) { /* computed by the source's check */
        memcpy(mj, g->src.qmin, (size_t)cnt * sizeof *mj);
        memcpy(sj, g->src.qsj, (size_t)cnt * sizeof *sj);
      } else {
#pragma omp parallel for schedule(dynamic, 16)
        for (hx_lid e = 0; e < cnt; e++) hx_io_elem_detj(v, g->D, e, &mj[e], &sj[e]);
      }
      g->qdone[bi] = 1;
    }
    ptr[F_MINJ] = mj;
    ptr[F_SJ] = sj;
  }
  if (mask & (HX_GS_BND | HX_GS_SURF)) {
    for (size_t i = 0; i < (size_t)cnt * 6; i++) g->bb[i] = 0, g->sb[i] = -1;
    for (hx_lid e = 0; e < cnt; e++)
      for (hx_lid k = g->face_start[pos + e]; k < g->face_start[pos + e + 1]; k++) {
        const hx_bface *b = &m->faces[g->face_order[k]];
        g->bb[(size_t)e * 6 + b->face] = b->bid;
        g->sb[(size_t)e * 6 + b->face] = b->surf;
      }
    ptr[F_BND] = g->bb;
    ptr[F_SURF] = g->sb;
  }
  return HX_OK;
}

/* Faces of this rank's sorted list from position start (bid 0: all): up to fblock of
   them into fbuf/fids; *next = where to go on, *done = the list is exhausted. */
static int local_faces(hx_gsrc *g, int bid, int what, hx_gid start, hx_lid *count, hx_gid *next, int *done) {
  const hx_mesh *m = g->m;
  hx_lid n = 0, k = (hx_lid)start, nf = m->num_faces;
  size_t per = what == HX_GF_NODES ? (size_t)g->npe : 8;
  for (; k < nf && n < g->fblock; k++) {
    const hx_bface *b = &m->faces[g->face_order[k]];
    if (bid && b->bid != bid) continue;
    hx_gface *r = &g->fbuf[n];
    r->elem = m->elem_offset + b->elem;
    r->face = b->face, r->bid = b->bid, r->surf = b->surf, r->pad = 0;
    hx_gid *ids = g->fids + (size_t)n * per;
    if (what == HX_GF_VERT) {
      memcpy(ids, m->vert_id + (size_t)b->elem * 8, 8 * sizeof(hx_gid));
    } else if (what == HX_GF_NODES) {
      const hx_mesh *v;
      HX_CALL(hx_elemsrc_get_ids(&g->src, b->elem, 1, &v));
      memcpy(ids, v->node_id, per * sizeof(hx_gid));
    }
    n++;
  }
  *count = n;
  *next = k;
  *done = k >= nf;
  return HX_OK;
}

/* ---- ranks > 0 ---------------------------------------------------------------------- */

static int reply_error(hx_gsrc *g, int rc) {
  gs_rep h;
  memset(&h, 0, sizeof h);
  h.rc = rc;
  snprintf(h.msg, sizeof h.msg, "rank %d: %s", g->rank, hx_error_message()[0] ? hx_error_message() : hx_status_name(rc));
  hx_error_clear();
  return hx_comm_send(g->m->comm, &h, sizeof h, 0, TAG_REP);
}

int hx_gsrc_serve(hx_gsrc *g) {
  hx_comm comm = g->m->comm;
  int rc = HX_OK;
  for (;;) {
    gs_req q;
    if ((rc = hx_comm_recv(comm, &q, sizeof q, 0, TAG_REQ))) break;
    if (q.cmd == CMD_END) {
      rc = (int)q.rc;
      if (rc) HX_ERROR(rc, "rank 0 failed writing (%s)", hx_status_name(rc));
      break;
    }
    gs_rep h;
    memset(&h, 0, sizeof h);
    if (q.cmd == CMD_BLOCK) {
      const void *ptr[F_NUM];
      int lrc = local_block(g, (int)q.mask, q.pos, (hx_lid)q.count, ptr);
      if (lrc) {
        if ((rc = reply_error(g, lrc))) break;
        continue;
      }
      h.count = q.count;
      if ((rc = hx_comm_send(comm, &h, sizeof h, 0, TAG_REP))) break;
      for (int f = 0; f < F_NUM && rc == HX_OK; f++)
        if (field_in_mask(f, (int)q.mask)) rc = hx_comm_send(comm, ptr[f], (size_t)q.count * field_bytes(g, f), 0, TAG_REP);
      if (rc) break;
    } else if (q.cmd == CMD_FACES) {
      hx_lid n = 0;
      hx_gid next = 0;
      int done = 1;
      int lrc = local_faces(g, (int)q.bid, (int)q.what, q.pos, &n, &next, &done);
      if (lrc) {
        if ((rc = reply_error(g, lrc))) break;
        continue;
      }
      h.count = n, h.next = next, h.done = done;
      if ((rc = hx_comm_send(comm, &h, sizeof h, 0, TAG_REP))) break;
      if (n) {
        size_t per = q.what == HX_GF_NODES ? (size_t)g->npe : q.what == HX_GF_VERT ? 8 : 0;
        rc = hx_comm_send(comm, g->fbuf, (size_t)n * sizeof(hx_gface), 0, TAG_REP);
        if (rc == HX_OK && per) rc = hx_comm_send(comm, g->fids, (size_t)n * per * sizeof(hx_gid), 0, TAG_REP);
        if (rc) break;
      }
    } else {
      rc = HX_ERROR(HX_ERR_INTERNAL, "unknown request %lld from rank 0", (long long)q.cmd);
      break;
    }
  }
  gs_free(g);
  return rc;
}

/* ---- rank 0 --------------------------------------------------------------------------- */

static int send_req(hx_gsrc *g, int r, int cmd, int mask, hx_gid pos, hx_gid count, int bid, int what) {
  gs_req q = {cmd, mask, pos, count, bid, what, 0};
  return hx_comm_send(g->m->comm, &q, sizeof q, r, TAG_REQ);
}

/* the answer header from rank r; a failure there becomes this rank's error */
static int recv_rep(hx_gsrc *g, int r, gs_rep *h) {
  HX_CALL(hx_comm_recv(g->m->comm, h, sizeof *h, r, TAG_REP));
  h->msg[sizeof h->msg - 1] = 0;
  if (h->rc) return HX_ERROR((int)h->rc, "%s", h->msg);
  return HX_OK;
}

static int recv_block(hx_gsrc *g, int r, int mask, hx_lid cnt) {
  gs_rep h;
  HX_CALL(recv_rep(g, r, &h));
  HX_CHECK(h.count == cnt, HX_ERR_INTERNAL, "rank %d sent %lld elements, %lld were asked", r, (long long)h.count, (long long)cnt);
  for (int f = 0; f < F_NUM; f++) {
    if (!field_in_mask(f, mask)) continue;
    if (!g->rx[f]) {
      void *p = NULL;
      HX_CALL(hx_malloc((size_t)g->block * field_bytes(g, f), &p));
      g->rx[f] = p;
    }
    HX_CALL(hx_comm_recv(g->m->comm, g->rx[f], (size_t)cnt * field_bytes(g, f), r, TAG_REP));
  }
  return HX_OK;
}

/* receive (and drop) the answer to a block request sent ahead */
static int drain(hx_gsrc *g) {
  if (!g->pending) return HX_OK;
  int r = g->pending;
  g->pending = 0;
  return recv_block(g, r, g->pend_mask, g->pend_cnt);
}

/* the progress of a pass over the elements: the passes of one output are numbered from 1 */
static void pass_progress(hx_gsrc *g, hx_gid total) {
  char label[32];
  hx_progress_finish(&g->prog);
  snprintf(label, sizeof label, "writing, pass %d", ++g->npass);
  hx_progress_start(&g->prog, label, total);
}

int hx_gsrc_pass(hx_gsrc *g, int mask) {
  HX_CALL(drain(g));
  pass_progress(g, g->num_elem);
  g->mask = mask;
  g->cur = 0;
  g->pos = 0;
  g->gbase = 0;
  return HX_OK;
}

static int block_at(hx_gsrc *g, int r, hx_gid pos, const void *ptr[F_NUM]) {
  hx_lid cnt = (hx_lid)(g->rank_elems[r] - pos < g->block ? g->rank_elems[r] - pos : g->block);
  if (r == 0) return local_block(g, g->mask, pos, cnt, ptr);
  if (!(g->pending == r && g->pend_pos == pos)) {
    HX_CALL(drain(g));
    HX_CALL(send_req(g, r, CMD_BLOCK, g->mask, pos, cnt, 0, 0));
  }
  g->pending = 0;
  HX_CALL(recv_block(g, r, g->mask, cnt));
  /* ask for the next block now: its owner prepares it while this one is written */
  int r2 = r;
  hx_gid p2 = pos + cnt;
  if (p2 >= g->rank_elems[r]) {
    for (r2 = r + 1; r2 < g->size && g->rank_elems[r2] == 0; r2++) {}
    p2 = 0;
  }
  if (r2 < g->size) {
    hx_lid c2 = (hx_lid)(g->rank_elems[r2] - p2 < g->block ? g->rank_elems[r2] - p2 : g->block);
    HX_CALL(send_req(g, r2, CMD_BLOCK, g->mask, p2, c2, 0, 0));
    g->pending = r2, g->pend_pos = p2, g->pend_cnt = c2, g->pend_mask = g->mask;
  }
  for (int f = 0; f < F_NUM; f++) ptr[f] = field_in_mask(f, g->mask) ? g->rx[f] : NULL;
  return HX_OK;
}

static const hx_gblock *fill_block(hx_gsrc *g, hx_gid e0, hx_lid cnt, const void *ptr[F_NUM]);

int hx_gsrc_next(hx_gsrc *g, const hx_gblock **b) {
  *b = NULL;
  hx_progress_update(&g->prog, g->gbase + g->pos); /* the blocks handed out before are done */
  while (g->cur < g->size && g->pos >= g->rank_elems[g->cur]) {
    g->gbase += g->rank_elems[g->cur];
    g->cur++;
    g->pos = 0;
  }
  if (g->cur >= g->size) return HX_OK;
  const void *ptr[F_NUM];
  HX_CALL(block_at(g, g->cur, g->pos, ptr));
  hx_lid cnt = (hx_lid)(g->rank_elems[g->cur] - g->pos < g->block ? g->rank_elems[g->cur] - g->pos : g->block);
  *b = fill_block(g, g->gbase + g->pos, cnt, ptr);
  g->pos += cnt;
  return HX_OK;
}

/* the block record of elements [e0, e0 + cnt) (global) from the fields ptr */
static const hx_gblock *fill_block(hx_gsrc *g, hx_gid e0, hx_lid cnt, const void *ptr[F_NUM]) {
  hx_gblock *k = &g->blk;
  memset(k, 0, sizeof *k);
  k->e0 = e0;
  k->count = cnt;
  k->minj = ptr[F_MINJ];
  k->sj = ptr[F_SJ];
  k->bnd = ptr[F_BND];
  k->bsurf = ptr[F_SURF];
  k->view = *g->m;
  k->view.order = g->order;
  k->view.nd = g->nd;
  k->view.num_elem = cnt;
  k->view.x = (double *)ptr[F_X];
  k->view.node_id = (hx_gid *)ptr[F_ID];
  k->view.vert_id = (hx_gid *)ptr[F_VERT];
  k->view.elem_attr = (int32_t *)ptr[F_ATTR];
  k->view.num_faces = 0;
  k->view.faces = NULL;
  return k;
}

/* ---- every rank, its own part (writers that write it themselves) ------------------ */

int hx_gsrc_own_next(hx_gsrc *g, int mask, hx_gid *pos, const hx_gblock **b) {
  *b = NULL;
  const hx_mesh *m = g->m;
  if (*pos == 0) pass_progress(g, m->num_elem);
  hx_progress_update(&g->prog, *pos); /* the blocks handed out before are done */
  if (*pos >= m->num_elem) return HX_OK;
  hx_gid base = 0;
  for (int r = 0; r < g->rank; r++) base += g->rank_elems[r];
  hx_lid cnt = (hx_lid)(m->num_elem - *pos < g->block ? m->num_elem - *pos : g->block);
  const void *ptr[F_NUM];
  HX_CALL(local_block(g, mask, *pos, cnt, ptr));
  for (int f = 0; f < F_NUM; f++)
    if (!field_in_mask(f, mask)) ptr[f] = NULL;
  *b = fill_block(g, base + *pos, cnt, ptr);
  *pos += cnt;
  return HX_OK;
}

int hx_gsrc_own_faces(hx_gsrc *g, hx_gid *pos, const hx_gfaces **fb) {
  *fb = NULL;
  hx_lid n = 0;
  hx_gid next = 0;
  int done = 1;
  HX_CALL(local_faces(g, 0, 0, *pos, &n, &next, &done));
  *pos = next;
  if (!n) return HX_OK;
  g->fch.count = n;
  g->fch.f = g->fbuf;
  g->fch.ids = NULL;
  *fb = &g->fch;
  return HX_OK;
}

void hx_gsrc_own_close(hx_gsrc *g) { gs_free(g); }

int hx_gsrc_face_pass(hx_gsrc *g, int bid, int what) {
  HX_CALL(drain(g));
  hx_progress_finish(&g->prog);
  g->fbid = bid;
  g->fwhat = what;
  g->cur = 0;
  g->pos = 0;
  g->fdone = 0;
  return HX_OK;
}

int hx_gsrc_next_faces(hx_gsrc *g, const hx_gfaces **fb) {
  *fb = NULL;
  size_t per = g->fwhat == HX_GF_NODES ? (size_t)g->npe : g->fwhat == HX_GF_VERT ? 8 : 0;
  for (;;) {
    if (g->cur >= g->size) return HX_OK;
    if (g->fdone) {
      g->cur++;
      g->pos = 0;
      g->fdone = 0;
      continue;
    }
    hx_lid n = 0;
    hx_gid next = 0;
    int done = 1;
    if (g->cur == 0) {
      HX_CALL(local_faces(g, g->fbid, g->fwhat, g->pos, &n, &next, &done));
    } else {
      gs_rep h;
      HX_CALL(send_req(g, g->cur, CMD_FACES, 0, g->pos, 0, g->fbid, g->fwhat));
      HX_CALL(recv_rep(g, g->cur, &h));
      HX_CHECK(h.count >= 0 && h.count <= g->fblock, HX_ERR_INTERNAL, "rank %d sent %lld faces", g->cur, (long long)h.count);
      n = (hx_lid)h.count, next = h.next, done = (int)h.done;
      if (n) HX_CALL(hx_comm_recv(g->m->comm, g->fbuf, (size_t)n * sizeof(hx_gface), g->cur, TAG_REP));
      if (n && per) HX_CALL(hx_comm_recv(g->m->comm, g->fids, (size_t)n * per * sizeof(hx_gid), g->cur, TAG_REP));
    }
    g->pos = next;
    g->fdone = done;
    if (!n) continue;
    g->fch.count = n;
    g->fch.f = g->fbuf;
    g->fch.ids = per ? g->fids : NULL;
    *fb = &g->fch;
    return HX_OK;
  }
}

int hx_gsrc_close(hx_gsrc *g, int rc) {
  int drc = drain(g);
  if (rc == HX_OK) rc = drc;
  for (int r = 1; r < g->size; r++) {
    gs_req q = {CMD_END, 0, 0, 0, 0, 0, rc};
    int src = hx_comm_send(g->m->comm, &q, sizeof q, r, TAG_REQ);
    if (rc == HX_OK) rc = src;
  }
  gs_free(g);
  return rc;
}
