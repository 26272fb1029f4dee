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
      they are) through the corners that no element below keep_sj has. */
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

/* the L-node of corner c (c = i + 2j + 4k) of element e */
static inline hx_lid corner_lnode(const hx_tmop *tm, hx_lid e, int c) {
  int nd = tm->mesh->nd;
  return tm->lmap->e2l[(size_t)e * nd * nd * nd + hx_corner_lex(nd, c)];
}

/* Element e of the carried mesh into xe ([3][nd^3]): its initial nodes plus the low-order
   moves interpolated and scaled by the trilinear blend of its corners' factors (alpha =
   hold_factor(lev)), then the nodes on
   curved surfaces projected back onto them, their corrections blended into the rest
   (blend_moves; nodes on planes keep their moves, which the low-order solve kept in-plane). */
static void transfer_elem(const hx_tmop *tm, const hx_mesh *lo, const double *lo_x0, const double *B, const double *g,
                          const unsigned char *lev, hx_lid e, double *xe) {
  const hx_mesh *m = tm->mesh;
  int nd = m->nd, ndp = lo->nd, n3 = nd * nd * nd, np3 = ndp * ndp * ndp;
  double u[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND], d[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  unsigned char own[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  const hx_lid *e2l = tm->lmap->e2l + (size_t)e * n3;
  double ac[8];
  for (int c = 0; c < 8; c++) ac[c] = hold_factor(lev[corner_lnode(tm, e, c)]);
  for (int c = 0; c < 3; c++) {
    const double *xl = lo->x + ((size_t)e * 3 + c) * np3, *xl0 = lo_x0 + ((size_t)e * 3 + c) * np3;
    for (int a = 0; a < np3; a++) u[a] = xl[a] - xl0[a];
    hx_tensor_interp(ndp, nd, B, u, d);
    const double *x0 = hx_mesh_elem_x(m, e, c);
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          int a = hx_lex(nd, i, j, k);
          double wi = g[i], wj = g[j], wk = g[k];
          double al = (1 - wk) * ((1 - wj) * ((1 - wi) * ac[0] + wi * ac[1]) + wj * ((1 - wi) * ac[2] + wi * ac[3])) +
                      wk * ((1 - wj) * ((1 - wi) * ac[4] + wi * ac[5]) + wj * ((1 - wi) * ac[6] + wi * ac[7]));
          xe[(size_t)c * n3 + a] = x0[a] + al * d[a];
        }
  }
  /* corrections of the nodes on curved surfaces */
  double corr[3][HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  for (int a = 0; a < n3; a++) {
    hx_lid l = e2l[a];
    own[a] = tm->ncon[l] > 0;
    corr[0][a] = corr[1][a] = corr[2][a] = 0;
    if (tm->curved[l] != -1) {
      double y[3] = {xe[a], xe[n3 + a], xe[2 * (size_t)n3 + a]}, p[3];
      hx_tmop_track_project(tm, tm->curved[l], y, p);
      for (int c = 0; c < 3; c++) corr[c][a] = p[c] - y[c];
    }
  }
  for (int c = 0; c < 3; c++) {
    blend_moves(nd, g, own, corr[c]);
    for (int a = 0; a < n3; a++) xe[(size_t)c * n3 + a] += corr[c][a];
  }
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
  double t_start = hx_tmop_now(), t_carry = 0, t_state = 0; /* the log's split */
  hx_tmop *tm = NULL;
  int rc = hx_tmop_base(m, o, 0, &tm);
  if (!tm) return rc;
  double t_setup = hx_tmop_now() - t_start;
  int nd = m->nd, ndp = lo->nd, n3 = nd * nd * nd;
  hx_lid ne = m->num_elem, nl = tm->nl;
  double *xe = NULL, *r0 = NULL, *r1 = NULL, *f0 = NULL, *f1 = NULL, *a0 = NULL, *a1 = NULL, *B = NULL;
  uint64_t *flag = NULL;
  unsigned char *lev = NULL, *dirty = NULL, *w0 = NULL, *w1 = NULL, *have0 = NULL;
  hx_quality_ctx *qc[2] = {NULL, NULL};
  double g[HX_MAX_ND], w[HX_MAX_ND], gp[HX_MAX_ND], wp[HX_MAX_ND];
  if (!rc) rc = hx_malloc((tm->nE + 1) * sizeof *xe, &xe);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *r0, &r0);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *r1, &r1);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *f0, &f0);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *f1, &f1);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *a0, &a0);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *a1, &a1);
  if (!rc) rc = hx_malloc(((size_t)nl + 1) * sizeof *flag, &flag);
  if (!rc) rc = hx_malloc((size_t)nl + 1, &lev); /* zeroed: alpha 1 */
  if (!rc) rc = hx_malloc((size_t)ne + 1, &w0);
  if (!rc) rc = hx_malloc((size_t)ne + 1, &w1);
  if (!rc) rc = hx_malloc((size_t)ne + 1, &have0); /* zeroed: f0 and w0 not yet evaluated */
  if (!rc) rc = hx_malloc((size_t)nd * ndp * sizeof *B, &B);
  if (!rc) rc = hx_gll(nd, g, w);
  if (!rc) rc = hx_gll(ndp, gp, wp);
  for (int k = 0; k < 2 && !rc; k++) rc = hx_tmop_fold_ctx(nd, k, &qc[k]);
  if (!rc) {
    hx_lagrange_matrices(ndp, gp, nd, g, B, NULL);
    /* as meshed: r0 and a0 of every element; f0 and w0 only where a round asks (m->x holds the
       mesh as meshed until the end) */
    double t = hx_tmop_now();
    rc = hx_tmop_fold_state(tm, m->x, qc, 2, r0, a0, NULL, NULL, NULL);
    t_state += hx_tmop_now() - t;
  }
  /* an element's nodes depend on its own corners' alpha alone (the trilinear blend on a shared
     face or edge uses that entity's corners), so a round evaluates only the elements with a
     corner changed in the round before */
  if (!rc) rc = hx_malloc((size_t)ne + 1, &dirty);
  if (!rc) memset(dirty, 1, (size_t)ne);
  /* the per-node arrays are read and written at the elements' corners alone: the rounds go over
     the list of those L-nodes (cl, nv of them), not over all nl (nd^3 an element at order N) */
  hx_lid *cl = NULL, nv = 0;
  if (!rc) rc = hx_malloc(((size_t)ne * 8 + 1) * sizeof *cl, &cl);
  for (hx_lid e = 0; e < ne && !rc; e++)
    for (int c = 0; c < 8; c++) {
      hx_lid l = corner_lnode(tm, e, c);
      if (!flag[l]) flag[l] = 1, cl[nv++] = l; /* flag (zeroed) marks the listed ones; each round clears it */
    }
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
  int phase = 1;
  if (!rc && soft > 0) rc = hx_malloc((size_t)nl + 1, &node2);
  if (!rc && soft > 0) rc = hx_malloc((size_t)nl + 1, &lev1);
  int64_t nevals = 0; /* element evaluations over the rounds */
  while (!rc) {
    double t = hx_tmop_now();
#pragma omp parallel for schedule(dynamic, 64)
    for (hx_lid e = 0; e < ne; e++)
      if (dirty[e]) transfer_elem(tm, lo, lo_x0, B, g, lev, e, xe + (size_t)e * 3 * n3);
    for (hx_lid e = 0; e < ne; e++) nevals += dirty[e];
    double t1 = hx_tmop_now();
    t_carry += t1 - t;
    if ((rc = hx_tmop_fold_state(tm, xe, qc, 2, r1, a1, f1, w1, dirty))) break;
    if ((rc = hx_tmop_fold_initial(tm, m->x, NULL, qc, 2, f1, w1, f0, w0, have0))) break;
    t_state += hx_tmop_now() - t1;
    for (hx_lid v = 0; v < nv; v++) flag[cl[v]] = 0;
    for (hx_lid e = 0; e < ne; e++)
      if (keep_fails(o, r0[e], r1[e], f0[e], f1[e], a0[e], a1[e], w0[e], w1[e])) {
        for (int c = 0; c < 8; c++) flag[corner_lnode(tm, e, c)] |= phase == 2 ? RESTORE : HALVE;
      } else if (phase == 2 && !(r1[e] >= fmin(soft, r0[e]))) {
        for (int c = 0; c < 8; c++)
          if (!(node2[corner_lnode(tm, e, c)] & PROTECTED)) flag[corner_lnode(tm, e, c)] |= HALVE;
      }
    if (tm->gs_active && (rc = hx_gs_or(tm->gs, flag))) break;
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
    for (hx_lid e = 0; e < ne; e++) {
      dirty[e] = 0;
      for (int c = 0; c < 8; c++) dirty[e] |= flag[corner_lnode(tm, e, c)] != 0;
    }
    if ((rc = hx_comm_sum_int64(m->comm, &moved, 1))) break;
    if (!moved && soft > 0 && phase == 1) {
      phase = 2;
      for (hx_lid v = 0; v < nv; v++) lev1[cl[v]] = lev[cl[v]], flag[cl[v]] = 0;
      for (hx_lid e = 0; e < ne; e++)
        if (!(r0[e] >= o->keep_sj))
          for (int c = 0; c < 8; c++) flag[corner_lnode(tm, e, c)] = 1;
      if (tm->gs_active && (rc = hx_gs_or(tm->gs, flag))) break;
      for (hx_lid v = 0; v < nv; v++) node2[cl[v]] = flag[cl[v]] ? PROTECTED : 0;
      continue;
    }
    if (!moved) break;
    (*rounds)++;
  }
  if (!rc) {
#pragma omp parallel for schedule(static)
    for (hx_lid e = 0; e < ne; e++) memcpy(m->x + (size_t)e * 3 * n3, xe + (size_t)e * 3 * n3, 3 * n3 * sizeof *xe);
    int64_t held = 0;
    for (hx_lid e = 0; e < ne; e++) {
      int any = 0;
      for (int c = 0; c < 8; c++) any |= lev[corner_lnode(tm, e, c)] > 0;
      held += any;
    }
    rc = hx_comm_sum_int64(m->comm, &held, 1);
    *nback = held;
  }
  if (!rc) rc = hx_comm_sum_int64(m->comm, &nevals, 1);
  if (!rc && o->log)
    fprintf(o->log,
            "transfer to order %d: %lld element(s) held back in %d round(s), %lld element evaluation(s), %.2f s (set-up %.2f s, "
            "carrying the moves %.2f s, det J and the rules %.2f s)\n",
            m->order, (long long)*nback, *rounds, (long long)nevals, hx_tmop_now() - t_start, t_setup, t_carry, t_state);
  hx_free(&xe), hx_free(&r0), hx_free(&r1), hx_free(&f0), hx_free(&f1), hx_free(&a0), hx_free(&a1), hx_free(&flag), hx_free(&lev),
      hx_free(&B);
  hx_free(&dirty), hx_free(&node2), hx_free(&lev1), hx_free(&w0), hx_free(&w1), hx_free(&have0), hx_free(&cl);
  hx_quality_ctx_destroy(&qc[0]), hx_quality_ctx_destroy(&qc[1]);
  if (!rc && keep) { /* the numbering alone: the initial nodes and the constraints are the transfer's */
    hx_free(&tm->x0), hx_free(&tm->ncon), hx_free(&tm->curved), hx_free(&tm->nrm), hx_free(&tm->circ);
    tm->ncirc = 0;
    *keep = tm;
  } else hx_tmop_destroy(&tm);
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
