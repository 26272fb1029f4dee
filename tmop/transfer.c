/* hx_tmop_transfer: moves found at a lower order (an optimized copy of the mesh) carried to the
   mesh's order, held back per corner where an element would end below min(keep_sj, as it is) or
   fold (a driver above the solver, as repair.c; it runs no solve of its own).

   design:
   1. Each element gets its initial nodes plus the low-order moves interpolated to its GLL nodes,
      scaled by the trilinear blend of a factor alpha at its corners; nodes on curved surfaces are
      projected back and the corrections blended into the element (transfer_elem).
   2. Rounds: an element that fails keep_fails halves its corners' alpha (1, 1/2 .. 1/16, 0), and
      only the elements with a corner changed are evaluated again, until none changes.
   3. With opts.transfer_keep, a second phase holds back the elements below min(transfer_keep, as
      they are) through the corners that no element below keep_sj has.
   4. The rounds (carry_rounds) ask an evaluator for the state of the elements they changed: the
      whole mesh's (whole_eval: an E-vector of the carried mesh) or, where the mesh is lazy, a
      block of elements at a time from the mesher's map (stream_eval); then the lazy mesh gives
      the carried elements (stream_block) and the repair at order N runs on the region about the
      elements below its threshold (stream_repair). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_curve.h"
#include "hx_error.h"
#include "hx_gs.h"
#include "hx_memory.h"
#include "hx_quality.h"
#include "hx_tmop_impl.h"

/* D [nd^3], one component: the nodes with own[a] keep theirs; every other node gets the
   hierarchy of hx_curve's blending from them: an edge's inner nodes linear between its
   corners, a face's the 2D Gordon-Hall blend of its edges, the volume's the 3D blend of its
   faces. Each entity uses its own boundary alone, so elements sharing it agree. */
static void blend_moves(int nd, const double *g, const unsigned char *own, double *D) {
  int N = nd - 1;
  for (int dir = 0; dir < 3; dir++) /* edges along dir */
    for (int p = 0; p < 2; p++)
      for (int q = 0; q < 2; q++)
        for (int t = 1; t < N; t++) {
          int I[3], I0[3], I1[3], o1 = (dir + 1) % 3, o2 = (dir + 2) % 3;
          I[o1] = I0[o1] = I1[o1] = p ? N : 0;
          I[o2] = I0[o2] = I1[o2] = q ? N : 0;
          I[dir] = t, I0[dir] = 0, I1[dir] = N;
          int a = hx_lex(nd, I[0], I[1], I[2]);
          if (!own[a]) D[a] = (1 - g[t]) * D[hx_lex(nd, I0[0], I0[1], I0[2])] + g[t] * D[hx_lex(nd, I1[0], I1[1], I1[2])];
        }
  for (int f = 0; f < 6; f++) hx_gh_blend_face(nd, g, f, own, D);
  hx_gh_blend_volume(nd, g, D); /* no inner node lies on a boundary */
}

/* Element e of the carried mesh into xe ([3][nd^3]) from its initial nodes x0 (the same layout;
   x0 may be xe): x0 plus the low-order moves of lo's element e interpolated and scaled by the
   trilinear blend of the factors ac at its corners, then the nodes on curved surfaces (track[a]
   != -1, tp's codes: tp->mesh's surfaces and tp's circles) projected back onto them, their
   corrections blended into the rest (blend_moves: nodes with own[a], the constrained ones, keep
   theirs; nodes on planes keep their moves, which the low-order solve kept in-plane). */
static void transfer_elem(const hx_tmop *tp, const hx_mesh *lo, const double *lo_x0, const double *B, const double *g,
                          const double ac[8], const unsigned char *own, const int *track, hx_lid e, int nd, const double *x0,
                          double *xe) {
  int ndp = lo->nd, n3 = nd * nd * nd, np3 = ndp * ndp * ndp;
  double u[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND], d[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  for (int c = 0; c < 3; c++) {
    const double *xl = lo->x + ((size_t)e * 3 + c) * np3, *xl0 = lo_x0 + ((size_t)e * 3 + c) * np3;
    for (int a = 0; a < np3; a++) u[a] = xl[a] - xl0[a];
    hx_tensor_interp(ndp, nd, B, u, d);
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          int a = hx_lex(nd, i, j, k);
          double wi = g[i], wj = g[j], wk = g[k];
          double al = (1 - wk) * ((1 - wj) * ((1 - wi) * ac[0] + wi * ac[1]) + wj * ((1 - wi) * ac[2] + wi * ac[3])) +
                      wk * ((1 - wj) * ((1 - wi) * ac[4] + wi * ac[5]) + wj * ((1 - wi) * ac[6] + wi * ac[7]));
          xe[(size_t)c * n3 + a] = x0[(size_t)c * n3 + a] + al * d[a];
        }
  }
  /* corrections of the nodes on curved surfaces */
  double corr[3][HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  for (int a = 0; a < n3; a++) {
    corr[0][a] = corr[1][a] = corr[2][a] = 0;
    if (track[a] != -1) {
      double y[3] = {xe[a], xe[n3 + a], xe[2 * (size_t)n3 + a]}, p[3];
      hx_tmop_track_project(tp, track[a], y, p);
      for (int c = 0; c < 3; c++) corr[c][a] = p[c] - y[c];
    }
  }
  for (int c = 0; c < 3; c++) {
    blend_moves(nd, g, own, corr[c]);
    for (int a = 0; a < n3; a++) xe[(size_t)c * n3 + a] += corr[c][a];
  }
}

/* The hold-back rounds' state, per element: r (Nek5000 ratio), a (aspect ratio), f (smallest
   det J at the fold points), w (elem_ok) as meshed (0) and carried (1); have0: f0 and w0
   evaluated (hx_tmop_fold_initial). */
typedef struct carry_state {
  double *r0, *a0, *f0, *r1, *a1, *f1;
  unsigned char *w0, *w1, *have0;
} carry_state;

/* How the rounds evaluate the carried mesh: eval(ctx, first, dirty, s) carries the elements with
   dirty[e] (every element where first) at the corner levels now (the rounds' lev, which ctx
   reads) and writes their r1, a1, f1, w1 (and where they decide f0, w0); where first, also r0 and
   a0 of every element as meshed. */
typedef int (*carry_eval)(void *ctx, int first, const unsigned char *dirty, carry_state *s);

/* The hold-back rounds of the transfer over ne elements whose corner c has node ecl[8 e + c] of
   nl (numbered in common with the other ranks through gs, or gs NULL): lev[nl] (zeroed on entry)
   ends as each corner's level; *nheld the global count of elements with a corner held back. */
static int carry_rounds(const hx_tmop_opts *o, hx_comm comm, hx_gs *gs, hx_lid ne, hx_lid nl, const hx_lid *ecl, carry_eval eval,
                        void *ctx, unsigned char *lev, carry_state *s, int *rounds, int64_t *nheld, int64_t *nevals) {
  *rounds = 0, *nheld = 0, *nevals = 0;
  uint64_t *flag = NULL;
  unsigned char *dirty = NULL;
  hx_lid *cl = NULL, nv = 0;
  int rc = hx_malloc(((size_t)nl + 1) * sizeof *flag, &flag);
  if (!rc) rc = hx_malloc((size_t)ne + 1, &dirty);
  if (!rc) memset(dirty, 1, (size_t)ne);
  /* the per-node arrays are read and written at the elements' corners alone: the rounds go over
     the list of those nodes (cl, nv of them), not over all nl */
  if (!rc) rc = hx_malloc(((size_t)ne * 8 + 1) * sizeof *cl, &cl);
  for (size_t i = 0; i < (size_t)ne * 8 && !rc; i++)
    if (!flag[ecl[i]]) flag[ecl[i]] = 1, cl[nv++] = ecl[i]; /* flag (zeroed) marks the listed ones; each round clears it */
  /* transfer_keep (soft > keep_sj): once the rounds end with every element passing keep_fails
     (phase 1), more rounds (phase 2) hold back the elements that end below min(soft, as meshed)
     through those of their corners that are neither PROTECTED (the corners of the
     elements below keep_sj as meshed, whose gain they carry) nor frozen. An element that fails
     keep_fails in phase 2 gets its corners' phase-1 alpha back (it is then its phase-1 self,
     which passed) and they are FROZEN. So keep_fails' guarantee holds, the elements below
     keep_sj as meshed end as after phase 1 (their corners keep phase-1 alpha), and the rounds
     end: alpha only falls, or a corner freezes. */
  double soft = o->transfer_keep > o->keep_sj ? o->transfer_keep : 0;
  enum { PROTECTED = 1, FROZEN = 2 };        /* node2 bits (phase 2) */
  enum { HALVE = 1, RESTORE = 2 };           /* flag bits, or-ed over the ranks */
  unsigned char *node2 = NULL, *lev1 = NULL; /* lev1: phase 1's levels */
  int phase = 1, first = 1;
  if (!rc && soft > 0) rc = hx_malloc((size_t)nl + 1, &node2);
  if (!rc && soft > 0) rc = hx_malloc((size_t)nl + 1, &lev1);
#define ECL(e, c) ecl[(size_t)(e)*8 + (c)]
  while (!rc) {
    for (hx_lid e = 0; e < ne; e++) *nevals += dirty[e];
    if ((rc = eval(ctx, first, dirty, s))) break;
    first = 0;
    for (hx_lid v = 0; v < nv; v++) flag[cl[v]] = 0;
    for (hx_lid e = 0; e < ne; e++)
      if (keep_fails(o, s->r0[e], s->r1[e], s->f0[e], s->f1[e], s->a0[e], s->a1[e], s->w0[e], s->w1[e])) {
        for (int c = 0; c < 8; c++) flag[ECL(e, c)] |= phase == 2 ? RESTORE : HALVE;
      } else if (phase == 2 && !(s->r1[e] >= fmin(soft, s->r0[e]))) {
        for (int c = 0; c < 8; c++)
          if (!(node2[ECL(e, c)] & PROTECTED)) flag[ECL(e, c)] |= HALVE;
      }
    if (gs && (rc = hx_gs_or(gs, flag))) break;
    int64_t moved = 0;
    for (hx_lid v = 0; v < nv; v++) {
      hx_lid l = cl[v];
      int ch = 0;
      if (flag[l] & RESTORE) {
        node2[l] |= FROZEN;
        ch = lev[l] != lev1[l];
        lev[l] = lev1[l];
      } else if ((flag[l] & HALVE) && lev[l] < HOLD_LEVELS && !(phase == 2 && (node2[l] & FROZEN))) {
        lev[l]++;
        ch = 1;
      }
      flag[l] = (uint64_t)ch; /* from here: the corners changed in this round */
      moved += ch;
    }
    /* an element's nodes depend on its own corners' alpha alone (the trilinear blend on a shared
       face or edge uses that entity's corners), so a round evaluates only the elements with a
       corner changed in the round before */
    for (hx_lid e = 0; e < ne; e++) {
      dirty[e] = 0;
      for (int c = 0; c < 8; c++) dirty[e] |= flag[ECL(e, c)] != 0;
    }
    if ((rc = hx_comm_sum_int64(comm, &moved, 1))) break;
    if (!moved && soft > 0 && phase == 1) {
      phase = 2;
      for (hx_lid v = 0; v < nv; v++) lev1[cl[v]] = lev[cl[v]], flag[cl[v]] = 0;
      for (hx_lid e = 0; e < ne; e++)
        if (!(s->r0[e] >= o->keep_sj))
          for (int c = 0; c < 8; c++) flag[ECL(e, c)] = 1;
      if (gs && (rc = hx_gs_or(gs, flag))) break;
      for (hx_lid v = 0; v < nv; v++) node2[cl[v]] = flag[cl[v]] ? PROTECTED : 0;
      continue;
    }
    if (!moved) break;
    (*rounds)++;
  }
  for (hx_lid e = 0; e < ne && !rc; e++) {
    int any = 0;
    for (int c = 0; c < 8; c++) any |= lev[ECL(e, c)] > 0;
    *nheld += any;
  }
#undef ECL
  if (!rc) rc = hx_comm_sum_int64(comm, nheld, 1);
  if (!rc) rc = hx_comm_sum_int64(comm, nevals, 1);
  hx_free(&flag), hx_free(&dirty), hx_free(&cl), hx_free(&node2), hx_free(&lev1);
  return rc;
}

/* the carry_state's arrays for ne elements (f0 and w0 not yet evaluated: have0 zeroed) */
static int carry_state_alloc(hx_lid ne, carry_state *s) {
  memset(s, 0, sizeof *s);
  double **d[6] = {&s->r0, &s->a0, &s->f0, &s->r1, &s->a1, &s->f1};
  unsigned char **b[3] = {&s->w0, &s->w1, &s->have0};
  for (int k = 0; k < 6; k++) HX_CALL(hx_malloc(((size_t)ne + 1) * sizeof(double), d[k]));
  for (int k = 0; k < 3; k++) HX_CALL(hx_malloc((size_t)ne + 1, b[k]));
  return HX_OK;
}
static void carry_state_free(carry_state *s) {
  hx_free(&s->r0), hx_free(&s->a0), hx_free(&s->f0), hx_free(&s->r1), hx_free(&s->a1), hx_free(&s->f1);
  hx_free(&s->w0), hx_free(&s->w1), hx_free(&s->have0);
}

/* ---- the whole order-N mesh (m->x) */

typedef struct whole_ctx {
  const hx_tmop *tm; /* m's numbering and constraints */
  const hx_mesh *lo;
  const double *lo_x0, *B, *g;
  const hx_lid *ecl;
  const unsigned char *lev; /* the rounds' corner levels */
  double *xe;               /* the carried E-vector */
  hx_quality_ctx **qc;
  double t_carry, t_state;
} whole_ctx;

static int whole_eval(void *ctx, int first, const unsigned char *dirty, carry_state *s) {
  whole_ctx *w = ctx;
  const hx_tmop *tm = w->tm;
  const hx_mesh *m = tm->mesh;
  int nd = m->nd, n3 = nd * nd * nd, rc = HX_OK;
  double t = hx_tmop_now();
  if (first) { /* as meshed: r0 and a0 of every element; f0 and w0 only where a round asks */
    rc = hx_tmop_fold_state(tm, m->x, w->qc, 2, s->r0, s->a0, NULL, NULL, NULL);
    double t1 = hx_tmop_now();
    w->t_state += t1 - t, t = t1;
  }
#pragma omp parallel for schedule(dynamic, 64)
  for (hx_lid e = 0; e < m->num_elem; e++) {
    if (!dirty[e]) continue;
    unsigned char own[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
    int track[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
    const hx_lid *e2l = tm->lmap->e2l + (size_t)e * n3;
    for (int a = 0; a < n3; a++) own[a] = tm->ncon[e2l[a]] > 0, track[a] = tm->curved[e2l[a]];
    double ac[8];
    for (int c = 0; c < 8; c++) ac[c] = hold_factor(w->lev[w->ecl[(size_t)e * 8 + c]]);
    transfer_elem(tm, w->lo, w->lo_x0, w->B, w->g, ac, own, track, e, nd, hx_mesh_elem_x(m, e, 0), w->xe + (size_t)e * 3 * n3);
  }
  double t1 = hx_tmop_now();
  w->t_carry += t1 - t;
  if (!rc) rc = hx_tmop_fold_state(tm, w->xe, w->qc, 2, s->r1, s->a1, s->f1, s->w1, dirty);
  if (!rc) rc = hx_tmop_fold_initial(tm, m->x, NULL, w->qc, 2, s->f1, s->w1, s->f0, s->w0, s->have0);
  w->t_state += hx_tmop_now() - t1;
  return rc;
}

/* the corners' L-nodes of tm's elements: [num_elem][8] */
static int corner_lnodes(const hx_tmop *tm, hx_lid **ecl) {
  const hx_mesh *m = tm->mesh;
  int nd = m->nd;
  size_t n3 = (size_t)nd * nd * nd;
  HX_CALL(hx_malloc(((size_t)m->num_elem * 8 + 1) * sizeof **ecl, ecl));
#pragma omp parallel for schedule(static)
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int c = 0; c < 8; c++) (*ecl)[(size_t)e * 8 + c] = tm->lmap->e2l[(size_t)e * n3 + hx_corner_lex(nd, c)];
  return HX_OK;
}

/* hx_tmop_transfer; with keep, its context's numbering part is handed to *keep (the order-N
   repair's, hx_tmop_repair_tm: the L-numbering depends on the node ids alone) */
static int transfer_run(hx_mesh *m, const hx_mesh *lo, const double *lo_x0, const hx_tmop_opts *o, long long *nback, int *rounds,
                        hx_tmop **keep) {
  *nback = 0, *rounds = 0;
  if (keep) *keep = NULL;
  HX_CHECK(lo->num_elem == m->num_elem && lo->order <= m->order, HX_ERR_INPUT,
           "transfer: the low-order mesh has %lld elements of order %d, the mesh %lld of order %d", (long long)lo->num_elem,
           lo->order, (long long)m->num_elem, m->order);
  for (size_t i = 0; i < (size_t)m->num_elem * 8; i++)
    HX_CHECK(lo->vert_id[i] == m->vert_id[i], HX_ERR_INPUT, "transfer: element %lld has other corners in the low-order mesh",
             (long long)(i / 8));
  double t_start = hx_tmop_now();
  hx_tmop *tm = NULL;
  int rc = hx_tmop_base(m, o, 0, &tm);
  if (!tm) return rc;
  double t_setup = hx_tmop_now() - t_start;
  int nd = m->nd, ndp = lo->nd;
  double *xe = NULL, *B = NULL, g[HX_MAX_ND], w[HX_MAX_ND], gp[HX_MAX_ND], wp[HX_MAX_ND];
  unsigned char *lev = NULL;
  hx_lid *ecl = NULL;
  hx_quality_ctx *qc[2] = {NULL, NULL};
  carry_state s;
  memset(&s, 0, sizeof s);
  if (!rc) rc = hx_malloc((tm->nE + 1) * sizeof *xe, &xe);
  if (!rc) rc = hx_malloc((size_t)tm->nl + 1, &lev); /* zeroed: alpha 1 */
  if (!rc) rc = hx_malloc((size_t)nd * ndp * sizeof *B, &B);
  if (!rc) rc = hx_gll(nd, g, w);
  if (!rc) rc = hx_gll(ndp, gp, wp);
  if (!rc) rc = corner_lnodes(tm, &ecl);
  if (!rc) rc = carry_state_alloc(m->num_elem, &s);
  for (int k = 0; k < 2 && !rc; k++) rc = hx_tmop_fold_ctx(nd, k, &qc[k]);
  if (!rc) hx_lagrange_matrices(ndp, gp, nd, g, B, NULL);
  whole_ctx wc = {tm, lo, lo_x0, B, g, ecl, lev, xe, qc, 0, 0};
  int64_t held = 0, nevals = 0;
  if (!rc)
    rc = carry_rounds(o, m->comm, tm->gs_active ? tm->gs : NULL, m->num_elem, tm->nl, ecl, whole_eval, &wc, lev, &s, rounds,
                      &held, &nevals);
  if (!rc) {
    size_t n3 = (size_t)nd * nd * nd;
#pragma omp parallel for schedule(static)
    for (hx_lid e = 0; e < m->num_elem; e++) memcpy(m->x + (size_t)e * 3 * n3, xe + (size_t)e * 3 * n3, 3 * n3 * sizeof *xe);
    *nback = held;
  }
  if (!rc && o->log)
    fprintf(o->log,
            "transfer to order %d: %lld element(s) held back in %d round(s), %lld element evaluation(s), %.2f s (set-up %.2f s, "
            "carrying the moves %.2f s, det J and the rules %.2f s)\n",
            m->order, (long long)*nback, *rounds, (long long)nevals, hx_tmop_now() - t_start, t_setup, wc.t_carry, wc.t_state);
  hx_free(&xe), hx_free(&lev), hx_free(&B), hx_free(&ecl);
  carry_state_free(&s);
  hx_quality_ctx_destroy(&qc[0]), hx_quality_ctx_destroy(&qc[1]);
  if (!rc && keep) { /* the numbering alone: the initial nodes and the constraints are the transfer's */
    hx_free(&tm->x0), hx_free(&tm->ncon), hx_free(&tm->curved), hx_free(&tm->nrm), hx_free(&tm->circ);
    tm->ncirc = 0;
    *keep = tm;
  } else hx_tmop_destroy(&tm);
  return rc;
}

/* ---- a lazy order-N mesh (m->lazy, the mesher's map): carried a block of elements at a time */

enum { STREAM_BLOCK = 1024 }; /* elements a block in the rounds and the region's copy */

/* The carried order-N geometry, m->lazy's context in place of the mesher's: an element is its
   initial nodes (the mesher's map) carried by transfer_elem at its corners' levels, or where the
   repair solved it, its nodes from that solve. The order-N nodes' constraints are those of the
   order-P copy's node on the same entity of the element (a corner, an edge, a face, the inside:
   each order-P node of an entity has the set of boundary faces of every order-N node on it, which
   is what decides a node's constraint and track). */
typedef struct stream_geom {
  hx_mesh_lazy inner;                         /* the mesher's map: its block and context (owned) */
  hx_mesh *lo;                                /* the solved order-P copy (owned) */
  double *lo_x0;                              /* its nodes as meshed (owned) */
  hx_tmop *tp;                                /* lo's numbering and constraints (owned; its mesh is lo) */
  int nd;                                     /* N + 1 */
  int rep[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND]; /* order-N node a -> the order-P node (lex) on its entity */
  unsigned char *lev;                         /* [tp->nl] the corners' hold levels */
  hx_lid *ecl;                                /* [ne][8] the corners' nodes in tp's numbering */
  double *B, g[HX_MAX_ND];
  hx_lid *ovr; /* [ne] the element's index in ox, or -1 */
  double *ox;  /* the repaired elements' nodes [][3][nd^3] */
} stream_geom;

static void stream_destroy(void *ctx) {
  stream_geom *z = ctx;
  if (!z) return;
  if (z->inner.destroy) z->inner.destroy(z->inner.ctx);
  hx_tmop_destroy(&z->tp); /* before lo, its mesh */
  hx_mesh_destroy(&z->lo);
  hx_free(&z->lo_x0), hx_free(&z->lev), hx_free(&z->ecl), hx_free(&z->B), hx_free(&z->ovr), hx_free(&z->ox);
  hx_free(&z);
}

/* element e's nodes carried from its initial nodes x0 into xe (x0 may be xe) */
static void stream_elem(const stream_geom *z, hx_lid e, const double *x0, double *xe) {
  int nd = z->nd, n3 = nd * nd * nd, np3 = z->lo->nd * z->lo->nd * z->lo->nd;
  if (z->ovr && z->ovr[e] >= 0) {
    memcpy(xe, z->ox + (size_t)z->ovr[e] * 3 * n3, 3 * (size_t)n3 * sizeof *xe);
    return;
  }
  unsigned char own[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  int track[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  const hx_lid *e2l = z->tp->lmap->e2l + (size_t)e * np3;
  for (int a = 0; a < n3; a++) {
    hx_lid l = e2l[z->rep[a]];
    own[a] = z->tp->ncon[l] > 0, track[a] = z->tp->curved[l];
  }
  double ac[8];
  for (int c = 0; c < 8; c++) ac[c] = hold_factor(z->lev[z->ecl[(size_t)e * 8 + c]]);
  transfer_elem(z->tp, z->lo, z->lo_x0, z->B, z->g, ac, own, track, e, nd, x0, xe);
}

/* hx_mesh_lazy's block: the mesher's, then carried in place */
static int stream_block(void *ctx, const hx_mesh *m, hx_lid e0, hx_lid cnt, double *x, hx_gid *ids) {
  stream_geom *z = ctx;
  HX_CALL(z->inner.block(z->inner.ctx, m, e0, cnt, x, ids));
  if (!x) return HX_OK;
  size_t n3 = (size_t)z->nd * z->nd * z->nd;
#pragma omp parallel for schedule(dynamic, 16)
  for (hx_lid j = 0; j < cnt; j++) stream_elem(z, e0 + j, x + (size_t)j * 3 * n3, x + (size_t)j * 3 * n3);
  return HX_OK;
}

/* opts.elem_ok asked of a block's element by its index in the mesh */
typedef struct offset_ok {
  const hx_tmop_opts *o;
  const hx_lid *map; /* the block's element j is map[j], or e0 + j where map is NULL */
  hx_lid e0;
} offset_ok;
static int offset_elem_ok(void *ctx, hx_lid j, const double *xe) {
  const offset_ok *c = ctx;
  return c->o->elem_ok(c->o->elem_ok_ctx, c->map ? c->map[j] : c->e0 + j, xe);
}

typedef struct stream_ctx {
  stream_geom *z;
  const hx_mesh *m;
  const hx_tmop_opts *o;
  hx_quality_ctx **qc;
  double *x0, *x1; /* a block's initial and carried nodes */
  double t_carry, t_state;
} stream_ctx;

/* carry_eval on the lazy mesh: block by block, the blocks with an element to evaluate; the fold
   state through hx_tmop_fold_state on a view of the block (its elements, m's options with
   elem_ok asked by the mesh's index) */
static int stream_eval(void *ctx, int first, const unsigned char *dirty, carry_state *s) {
  stream_ctx *c = ctx;
  const hx_mesh *m = c->m;
  stream_geom *z = c->z;
  size_t n3 = (size_t)z->nd * z->nd * z->nd;
  int rc = HX_OK;
  for (hx_lid e0 = 0; e0 < m->num_elem && !rc; e0 += STREAM_BLOCK) {
    hx_lid cnt = m->num_elem - e0 < STREAM_BLOCK ? m->num_elem - e0 : STREAM_BLOCK, any = 0;
    for (hx_lid j = 0; j < cnt && !any; j++) any = dirty[e0 + j]; /* all where first */
    if (!any) continue;
    double t = hx_tmop_now();
    if ((rc = z->inner.block(z->inner.ctx, m, e0, cnt, c->x0, NULL))) break;
#pragma omp parallel for schedule(dynamic, 16)
    for (hx_lid j = 0; j < cnt; j++)
      if (dirty[e0 + j]) stream_elem(z, e0 + j, c->x0 + (size_t)j * 3 * n3, c->x1 + (size_t)j * 3 * n3);
    double t1 = hx_tmop_now();
    c->t_carry += t1 - t;
    hx_mesh vm = *m; /* the block as a mesh of its own for the fold state */
    vm.num_elem = cnt, vm.order = z->nd - 1, vm.nd = z->nd, vm.lazy = NULL;
    hx_tmop v = {.mesh = &vm, .o = *c->o};
    offset_ok okc = {c->o, NULL, e0};
    if (c->o->elem_ok) v.o.elem_ok = offset_elem_ok, v.o.elem_ok_ctx = &okc;
    if (first) rc = hx_tmop_fold_state(&v, c->x0, c->qc, 2, s->r0 + e0, s->a0 + e0, NULL, NULL, NULL);
    if (!rc) rc = hx_tmop_fold_state(&v, c->x1, c->qc, 2, s->r1 + e0, s->a1 + e0, s->f1 + e0, s->w1 + e0, dirty + e0);
    if (!rc) rc = hx_tmop_fold_initial(&v, c->x0, NULL, c->qc, 2, s->f1 + e0, s->w1 + e0, s->f0 + e0, s->w0 + e0, s->have0 + e0);
    c->t_state += hx_tmop_now() - t1;
  }
  return rc;
}

/* The region of one repair pass on the lazy mesh: the elements below ro->repair_sj (r, their
   ratios) with every element within repair_rings + 1 layers of one (a pass's patches reach
   repair_rings layers, their border one more), as a mesh of its own (*rg, its element j being
   (*map)[j], ascending), its nodes those of the carried mesh now. */
static int repair_region(stream_geom *z, const hx_mesh *m, const hx_tmop_opts *ro, const double *r, hx_mesh **rg, hx_lid **map) {
  hx_lid ne = m->num_elem, nr = 0;
  int nd = z->nd;
  size_t n3 = (size_t)nd * nd * nd;
  const hx_tmop *tp = z->tp;
  uint64_t *vf = NULL;
  unsigned char *in = NULL;
  double *xb = NULL;
  hx_gid *ib = NULL;
  *rg = NULL, *map = NULL;
  int rc = hx_malloc(((size_t)tp->nl + 1) * sizeof *vf, &vf); /* zeroed */
  if (!rc) rc = hx_malloc((size_t)ne + 1, &in);
  for (hx_lid e = 0; e < ne && !rc; e++)
    if (!(r[e] >= ro->repair_sj))
      for (int c = 0; c < 8; c++) vf[z->ecl[(size_t)e * 8 + c]] = 1;
  static const size_t corner[8] = {0, 1, 2, 3, 4, 5, 6, 7}; /* ecl's layout */
  if (!rc) rc = hx_tmop_corner_layers(tp->gs_active ? tp->gs : NULL, ne, z->ecl, 8, corner, ro->repair_rings + 1, vf, in);
  hx_free(&vf);
  for (hx_lid e = 0; e < ne && !rc; e++) nr += in[e];
  if (!rc) rc = hx_mesh_create(m->comm, nd - 1, nr, rg); /* collective */
  if (!rc) rc = hx_malloc(((size_t)nr + 1) * sizeof **map, map);
  if (!rc) rc = hx_malloc(((size_t)STREAM_BLOCK * 3 * n3 + 1) * sizeof *xb, &xb);
  if (!rc) rc = hx_malloc(((size_t)STREAM_BLOCK * n3 + 1) * sizeof *ib, &ib);
  for (int k = 0; k < m->num_surfaces && !rc; k++) rc = hx_mesh_add_surface(*rg, &m->surfaces[k], NULL);
  /* the nodes a whole block at a time (every thread busy), the region's elements copied out */
  hx_lid j = 0;
  for (hx_lid e0 = 0; e0 < ne && !rc; e0 += STREAM_BLOCK) {
    hx_lid cnt = ne - e0 < STREAM_BLOCK ? ne - e0 : STREAM_BLOCK, any = 0;
    for (hx_lid i = 0; i < cnt && !any; i++) any = in[e0 + i];
    if (!any || (rc = stream_block(z, m, e0, cnt, xb, ib))) continue;
    for (hx_lid i = 0; i < cnt; i++) {
      hx_lid e = e0 + i;
      if (!in[e]) continue;
      (*map)[j] = e;
      memcpy((*rg)->x + (size_t)j * 3 * n3, xb + (size_t)i * 3 * n3, 3 * n3 * sizeof *xb);
      memcpy((*rg)->node_id + (size_t)j * n3, ib + (size_t)i * n3, n3 * sizeof *ib);
      memcpy((*rg)->vert_id + (size_t)j * 8, m->vert_id + (size_t)e * 8, 8 * sizeof *m->vert_id);
      (*rg)->elem_attr[j++] = m->elem_attr[e];
    }
  }
  hx_free(&xb), hx_free(&ib);
  for (hx_lid f = 0; f < m->num_faces && !rc; f++) {
    const hx_bface *bf = &m->faces[f];
    if (!in[bf->elem]) continue;
    hx_lid lo = 0, hi = nr - 1; /* map is ascending */
    while (lo < hi) {
      hx_lid mid = lo + (hi - lo) / 2;
      if ((*map)[mid] < bf->elem) lo = mid + 1;
      else hi = mid;
    }
    rc = hx_mesh_add_face(*rg, lo, bf->face, bf->bid, bf->surf);
  }
  hx_free(&in);
  if (rc) hx_mesh_destroy(rg), hx_free(map);
  return rc;
}

/* the global count of the elements below sj (r, their ratios) and the smallest ratio */
static int count_below(hx_comm comm, hx_lid ne, const double *r, double sj, int64_t *nbad, double *rmin) {
  *nbad = 0, *rmin = HUGE_VAL;
  for (hx_lid e = 0; e < ne; e++) *nbad += !(r[e] >= sj), *rmin = fmin(*rmin, r[e]);
  HX_CALL(hx_comm_sum_int64(comm, nbad, 1));
  return hx_comm_min_double(comm, rmin, 1);
}

/* The repair at order N on the lazy mesh, pass by pass as hx_tmop_repair_tm's passes: each on the
   region about the elements below ro->repair_sj (repair_region), repaired by one pass of
   hx_tmop_repair; the region's nodes then stand for theirs in the carried mesh (z->ovr), r is
   updated, and the passes go on while they gain (fewer left, or the poorest higher). A pass sees
   what it sees in the whole mesh: the same patches, borders, sub-meshes and solves. */
static int stream_repair(stream_geom *z, const hx_mesh *m, const hx_tmop_opts *ro, double *r, hx_tmop_result *res) {
  hx_lid ne = m->num_elem;
  size_t n3 = (size_t)z->nd * z->nd * z->nd;
  memset(res, 0, sizeof *res);
  int64_t nbad = 0;
  double rmin = 0;
  HX_CALL(count_below(m->comm, ne, r, ro->repair_sj, &nbad, &rmin));
  res->repair_bad = res->repair_after = nbad;
  hx_quality_ctx *qc = NULL;
  int rc = hx_tmop_fold_ctx(z->nd, 0, &qc);
  if (!rc && !z->ovr) rc = hx_malloc(((size_t)ne + 1) * sizeof *z->ovr, &z->ovr);
  for (hx_lid e = 0; e < ne && !rc; e++) z->ovr[e] = -1;
  hx_lid nox = 0; /* elements in z->ox */
  while (!rc && nbad > 0 && res->repair_passes < ro->repair_passes) {
    double tp = hx_tmop_now();
    hx_mesh *rg = NULL;
    hx_lid *map = NULL;
    rc = repair_region(z, m, ro, r, &rg, &map);
    hx_tmop_opts o1 = *ro;
    offset_ok okc = {ro, map, 0};
    if (ro->elem_ok) o1.elem_ok = offset_elem_ok, o1.elem_ok_ctx = &okc;
    o1.repair_passes = 1, o1.log = NULL;
    hx_tmop_result pr;
    memset(&pr, 0, sizeof pr);
    if (!rc) rc = hx_tmop_repair(rg, &o1, &pr);
    hx_lid nr = rg ? rg->num_elem : 0;
    long long nreg = rg ? (long long)rg->num_elem_global : 0;
    if (!rc && nr) rc = hx_realloc(((size_t)nox + nr) * 3 * n3 * sizeof *z->ox, &z->ox);
    if (!rc && nr) { /* the region's nodes into the carried mesh, its ratios into r */
      memcpy(z->ox + (size_t)nox * 3 * n3, rg->x, (size_t)nr * 3 * n3 * sizeof *z->ox);
      for (hx_lid k = 0; k < nr; k++) z->ovr[map[k]] = nox + k;
      nox += nr;
      hx_tmop v = {.mesh = rg, .o = *ro};
      double *rr = NULL;
      rc = hx_malloc(((size_t)nr + 1) * sizeof *rr, &rr);
      if (!rc) rc = hx_tmop_fold_state(&v, rg->x, &qc, 1, rr, NULL, NULL, NULL, NULL);
      for (hx_lid k = 0; k < nr && !rc; k++) r[map[k]] = rr[k];
      hx_free(&rr);
    }
    hx_mesh_destroy(&rg);
    hx_free(&map);
    if (rc) break;
    int64_t n0 = nbad;
    double r0 = rmin;
    if ((rc = count_below(m->comm, ne, r, ro->repair_sj, &nbad, &rmin))) break;
    if (!res->repair_passes) res->repair_free = pr.repair_free;
    res->repair_passes++, res->repair_newton += pr.repair_newton, res->repair_after = nbad;
    if (ro->log)
      fprintf(ro->log,
              "repair pass %d at order %d (streamed: %lld element(s) in the patches, %lld in their region): %lld -> %lld "
              "element(s) below %g (min %.4f -> %.4f), %d Newton step(s), %.2f s\n",
              res->repair_passes, z->nd - 1, (long long)pr.repair_free, nreg, (long long)n0, (long long)nbad, ro->repair_sj, r0,
              rmin, pr.repair_newton, hx_tmop_now() - tp);
    if (!(nbad < n0 || rmin > r0 + 1e-3)) break;
  }
  hx_quality_ctx_destroy(&qc);
  return rc;
}

/* The transfer and the repair at order N where m is lazy (its order-1 mesh with the mesher's
   order-N map): m->lazy then gives the carried mesh, its context holding lo and lo_x0 (taken
   over: *lo and *lo_x0 become NULL) and the hold levels. */
static int stream_run(hx_mesh *m, hx_mesh **lo_p, double **x0_p, const hx_tmop_opts *o, int repair_qo, hx_tmop_lower *r) {
  hx_mesh *lo = *lo_p;
  int N = m->lazy->order, nd = N + 1;
  HX_CHECK(lo->num_elem == m->num_elem && lo->order < N, HX_ERR_INPUT,
           "transfer: the low-order mesh has %lld elements of order %d, the lazy mesh %lld of order %d", (long long)lo->num_elem,
           lo->order, (long long)m->num_elem, N);
  for (size_t i = 0; i < (size_t)m->num_elem * 8; i++)
    HX_CHECK(lo->vert_id[i] == m->vert_id[i], HX_ERR_INPUT, "transfer: element %lld has other corners in the low-order mesh",
             (long long)(i / 8));
  double t_start = hx_tmop_now();
  stream_geom *z = NULL;
  HX_CALL(hx_malloc(sizeof *z, &z));
  memset(z, 0, sizeof *z);
  /* from here m->lazy is the carried mesh (at alpha 1 until the rounds end) */
  z->inner = *m->lazy, z->inner.detj = NULL;
  hx_free(&m->lazy->detj); /* the check's figures were the mesher's */
  m->lazy->ctx = z, m->lazy->block = stream_block, m->lazy->destroy = stream_destroy;
  z->lo = lo, z->lo_x0 = *x0_p, z->nd = nd;
  *lo_p = NULL, *x0_p = NULL;
  /* the constraints of lo as meshed (the whole path's are those of m as meshed) */
  double *xs = lo->x;
  lo->x = z->lo_x0;
  int rc = hx_tmop_base(lo, o, 0, &z->tp);
  lo->x = xs;
  int ndp = lo->nd, P = ndp - 1;
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        int I[3] = {i, j, k};
        for (int d = 0; d < 3; d++) I[d] = I[d] == 0 ? 0 : I[d] == N ? P : 1;
        z->rep[hx_lex(nd, i, j, k)] = hx_lex(ndp, I[0], I[1], I[2]);
      }
  double w[HX_MAX_ND], gp[HX_MAX_ND], wp[HX_MAX_ND];
  if (!rc) rc = hx_malloc((size_t)z->tp->nl + 1, &z->lev); /* zeroed: alpha 1 */
  if (!rc) rc = corner_lnodes(z->tp, &z->ecl);
  if (!rc) rc = hx_malloc((size_t)nd * ndp * sizeof *z->B, &z->B);
  if (!rc) rc = hx_gll(nd, z->g, w);
  if (!rc) rc = hx_gll(ndp, gp, wp);
  if (!rc) hx_lagrange_matrices(ndp, gp, nd, z->g, z->B, NULL);
  double t_setup = hx_tmop_now() - t_start;
  size_t n3 = (size_t)nd * nd * nd;
  hx_quality_ctx *qc[2] = {NULL, NULL};
  carry_state s;
  memset(&s, 0, sizeof s);
  stream_ctx sc = {z, m, o, qc, NULL, NULL, 0, 0};
  if (!rc) rc = carry_state_alloc(m->num_elem, &s);
  if (!rc) rc = hx_malloc(((size_t)STREAM_BLOCK * 3 * n3 + 1) * sizeof *sc.x0, &sc.x0);
  if (!rc) rc = hx_malloc(((size_t)STREAM_BLOCK * 3 * n3 + 1) * sizeof *sc.x1, &sc.x1);
  for (int k = 0; k < 2 && !rc; k++) rc = hx_tmop_fold_ctx(nd, k, &qc[k]);
  int64_t held = 0, nevals = 0;
  if (!rc)
    rc = carry_rounds(o, m->comm, z->tp->gs_active ? z->tp->gs : NULL, m->num_elem, z->tp->nl, z->ecl, stream_eval, &sc, z->lev,
                      &s, &r->rounds, &held, &nevals);
  hx_free(&sc.x0), hx_free(&sc.x1);
  hx_quality_ctx_destroy(&qc[0]), hx_quality_ctx_destroy(&qc[1]);
  r->held = held;
  if (!rc && o->log)
    fprintf(o->log,
            "transfer to order %d (streamed): %lld element(s) held back in %d round(s), %lld element evaluation(s), %.2f s "
            "(set-up %.2f s, carrying the moves %.2f s, det J and the rules %.2f s)\n",
            N, (long long)held, r->rounds, (long long)nevals, hx_tmop_now() - t_start, t_setup, sc.t_carry, sc.t_state);
  r->time_transfer = hx_tmop_now() - t_start;
  if (!rc) r->order = lo->order;
  double rsj = o->repair_final_sj > 0 ? o->repair_final_sj : o->repair_sj;
  if (!rc && rsj > 0) {
    hx_tmop_opts ro = *o;
    ro.repair_sj = rsj;
    if (repair_qo > 0) ro.quad_order = repair_qo;
    double t = hx_tmop_now();
    rc = stream_repair(z, m, &ro, s.r1, &r->repair);
    r->repair.time_repair = hx_tmop_now() - t;
  }
  carry_state_free(&s);
  return rc;
}

int hx_tmop_transfer(hx_mesh *m, const hx_mesh *lo, const double *lo_x0, const hx_tmop_opts *o, long long *nback, int *rounds) {
  return transfer_run(m, lo, lo_x0, o, nback, rounds, NULL);
}

int hx_tmop_lower_order(hx_mesh *m, const hx_tmop_opts *o, int repair_qo, int (*copy)(void *ctx, int attempt, hx_mesh **lo),
                        int (*solve)(void *ctx, hx_mesh *lo, hx_tmop_opts *o), void *ctx, hx_tmop_lower *r) {
  memset(r, 0, sizeof *r);
  for (int attempt = 0; attempt < 2; attempt++) {
    hx_mesh *lo = NULL;
    double *x0 = NULL, t0 = hx_tmop_now();
    HX_CALL(copy(ctx, attempt, &lo));
    double t1 = hx_tmop_now();
    r->time_copy += t1 - t0;
    size_t n = (size_t)lo->num_elem * 3 * (size_t)hx_mesh_nodes_per_elem(lo);
    int rc = hx_malloc((n + 1) * sizeof *x0, &x0);
    if (!rc) memcpy(x0, lo->x, n * sizeof *x0);
    hx_tmop_opts lo_opt = *o; /* o's elem_ok (the .re2 guard) is for m */
    lo_opt.elem_ok = NULL, lo_opt.elem_ok_ctx = NULL;
    hx_tmop_result res;
    if (!rc) rc = solve ? solve(ctx, lo, &lo_opt) : hx_tmop_optimize(lo, &lo_opt, &res);
    double t2 = hx_tmop_now();
    r->time_solve += t2 - t1;
    if (rc == HX_ERR_INVALID_MESH) { /* the copy folds at the quadrature points: the next attempt */
      hx_error_clear();
      hx_free(&x0);
      hx_mesh_destroy(&lo);
      continue;
    }
    if (!rc && m->lazy) { /* the transfer and the repair a block at a time */
      rc = stream_run(m, &lo, &x0, o, repair_qo, r);
      hx_free(&x0);
      hx_mesh_destroy(&lo);
      return rc;
    }
    hx_tmop *tn = NULL; /* the transfer's numbering of m, for the repair */
    if (!rc) rc = transfer_run(m, lo, x0, o, &r->held, &r->rounds, &tn);
    r->time_transfer = hx_tmop_now() - t2;
    if (!rc) r->order = lo->order;
    double rsj = o->repair_final_sj > 0 ? o->repair_final_sj : o->repair_sj;
    if (!rc && rsj > 0) {
      /* the transfer's own elements below --repair (an order-N element meshed below it that the
         lower-order solve raised, which the transfer raises less) solved again at m's order, below
         repair_final_sj where given: the lower-order solve's threshold may keep a margin for the
         transfer, which this repair no longer needs */
      hx_tmop_opts ro = *o;
      ro.repair_sj = rsj;
      if (repair_qo > 0) ro.quad_order = repair_qo;
      rc = hx_tmop_repair_tm(tn, &ro, hx_tmop_now(), &r->repair);
      tn = NULL;
    }
    hx_tmop_destroy(&tn);
    hx_free(&x0);
    hx_mesh_destroy(&lo);
    return rc;
  }
  return HX_OK;
}
