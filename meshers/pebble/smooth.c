/* The pebble mesher: the per-facet node optimization (--smooth) and the local repair rounds
   (repair guards; the variants kept by facet, fsave). */
#include "pebble_impl.h"

/* distance, in the bridge's plane, of the chord opposite quad qi's bridge-circle edge
   from the bridge axis over the bridge radius (the ring next to the circle must clear
   the circle's arcs, tessellate: 1.25); INFINITY for quads without such an edge */
static double chord_clearance(const builder *bd, const facet *F, hx_lid qi) {
  const quad *Q = &bd->Q[qi];
  if (!Q->chamfer || F->bridge < 0) return INFINITY;
  const bridge *BR = &bd->B[F->bridge];
  int e = 0;
  while (e < 4 && !(Q->chamfer >> e & 1)) e++;
  const double *A = bd->X + 3 * Q->x[(e + 2) % 4], *Bq = bd->X + 3 * Q->x[(e + 3) % 4];
  double a[3], b[3], ab[3];
  for (int c = 0; c < 3; c++) a[c] = A[c] - BR->p[c], b[c] = Bq[c] - BR->p[c];
  double ta = dot3(a, BR->u), tb = dot3(b, BR->u);
  for (int c = 0; c < 3; c++) a[c] -= ta * BR->u[c], b[c] -= tb * BR->u[c], ab[c] = b[c] - a[c];
  double l2 = dot3(ab, ab), t = l2 > 0 ? -dot3(a, ab) / l2 : 0;
  t = fmin(1, fmax(0, t));
  double d[3];
  for (int c = 0; c < 3; c++) d[c] = a[c] + t * ab[c];
  return norm3(d) / BR->rb;
}

/* ---- per-facet node optimization (--smooth) ----------------------------------
   The nodes a facet's tessellation adds inside its polygon (fan centre, ring nodes, not
   the bridge circle's) belong to that facet alone; the polygon's vertices and edge
   midpoints are shared with its neighbours and stay. Each inner node is moved in the
   facet's plane (on the wall for wall facets) to raise the worst quality of the swept
   columns of its quads on both sides: the 2 x 2 sampled layer elements' corner scaled
   Jacobian and Nek5000 min / max det J (pb_column_q), with every linear column valid
   (max-min smoothing, Freitag's local optimization: a move is kept only where it raises
   the minimum over the node's quads, so no element gets worse than the worst it
   touched). The result depends on the facet alone, so every rank and thread count
   gives the same nodes. A move is also refused where it takes one of the node's quads from
   SMOOTH_GOOD or more to below it, or (--aspect A) that quad's estimated aspect ratio above
   max(ASPECT_EST_MARGIN A, its value); the quads below SMOOTH_GOOD may trade among themselves,
   which is what lifts the worst. pb67 at order 7 after --optimize (--ratio 1 --score nek
   --aspect 20), below 0.1 / 0.3 / above aspect 20: 6 / 35 / 48 without smoothing, 0 / 6 / 14
   with 10 sweeps unguarded, 0 / 7 / 17 guarded, the worst element 0.106 unguarded, 0.195
   guarded (the 300-sphere poured cylinder: 0 / 14 / 0 at 0.173, 0 / 10 / 2 at 0.212;
   H200). */
static double smooth_quad_q(const builder *bd, const facet *F, hx_lid qi, double stop) {
  /* stop: a trial move is kept only where every quad's value exceeds it, so the evaluation
     ends once the value is down to it (some value <= stop: the same decision as the exact one) */
  double w = 1;
  for (int side = 0; side < 2; side++) {
    if (bd->smask[side ? F->b : F->a]) break;
    w = pb_column_q(bd, F, qi, side, 3, w, stop);
    if (w < -1.5) return -1;
    if (w <= stop) return w;
    if (w > 0 && !pb_column_linear_ok(bd, F, qi, side)) return 0;
  }
  return w;
}

#define SMOOTH_GOOD 0.3

int pb_smooth_facets(builder *bd, int sweeps, hx_pebble_stats *st) {
  const hx_pebble_opts *o = bd->plan->o;
  if (sweeps <= 0 || bd->nq == 0) return HX_OK;
  int32_t *owner;
  HX_CALL(hx_malloc((size_t)bd->nn * sizeof *owner, &owner));
  for (hx_lid x = 0; x < bd->nn; x++) owner[x] = bd->nbridge[x] >= 0 ? -2 : -1;
  for (hx_lid k = 0; k < bd->nfv; k++) owner[bd->fv[k]] = -2; /* polygon vertices */
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    for (int32_t q = F->q0; q < F->q0 + F->nq; q++)
      for (int v = 0; v < 4; v++) {
        int32_t x = bd->Q[q].x[v];
        if (owner[x] == -1) owner[x] = (int32_t)f;
        else if (owner[x] != (int32_t)f) owner[x] = -2;
      }
  }
  hx_lid moved = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : moved)
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    enum { MAXQ = 512, MAXN = 256, MAXI = 16 };
    if (F->nq > MAXQ) continue;
    int32_t node[MAXN], inc[MAXN][MAXI], ninc[MAXN];
    double qq[MAXQ], h[MAXN], clr[MAXQ], asp[MAXQ];
    int nn = 0;
    for (int j = 0; j < F->nq; j++)
      for (int v = 0; v < 4; v++) {
        int32_t x = bd->Q[F->q0 + j].x[v];
        if (owner[x] != (int32_t)f) continue;
        int t = 0;
        while (t < nn && node[t] != x) t++;
        if (t == nn) {
          if (nn == MAXN) continue;
          node[nn] = x, ninc[nn] = 0, h[nn] = INFINITY, nn++;
        }
        if (ninc[t] < MAXI) inc[t][ninc[t]++] = j;
        /* step: a tenth of the shortest quad edge at the node */
        const double *X0 = bd->X + 3 * x;
        for (int e = 1; e < 4; e += 2) {
          double l = dist3(X0, bd->X + 3 * bd->Q[F->q0 + j].x[(v + e) % 4]);
          if (0.1 * l < h[t]) h[t] = 0.1 * l;
        }
      }
    if (!nn) continue;
    double fq = 1;
    for (int j = 0; j < F->nq; j++) {
      qq[j] = smooth_quad_q(bd, F, F->q0 + j, -INFINITY), fq = fmin(fq, qq[j]);
      clr[j] = fmin(1.25, chord_clearance(bd, F, F->q0 + j));
      asp[j] = o->aspect > 0 ? pb_quad_aspect_est(bd, F, F->q0 + j) : 0;
    }
    if (!(fq < SMOOTH_GOOD)) continue;
    const wall *W = F->wall >= 0 ? &bd->w[F->wall] : NULL;
    for (int it = 0; it < sweeps; it++) {
      int any = 0;
      for (int t = 0; t < nn; t++) {
        double *X0 = bd->X + 3 * (size_t)node[t], x0[3], nrm[3], off, t1[3], t2[3];
        memcpy(x0, X0, sizeof x0);
        double cur = 1, nq_best[MAXI], na[MAXI], na_best[MAXI], best = -INFINITY, xb[3];
        for (int i = 0; i < ninc[t]; i++) cur = fmin(cur, qq[inc[t][i]]);
        if (cur >= SMOOTH_GOOD) continue;     /* the node's quads are good enough already */
        pb_facet_plane(bd, F, x0, nrm, &off); /* moves in the power plane, or the wall's tangent plane */
        pb_bridge_frame(nrm, t1, t2);
        for (int dir = 0; dir < 8; dir++) {
          double ang = HX_PI / 4 * dir, ca = cos(ang), sa = sin(ang), qn[MAXI], mn = 1;
          for (int c = 0; c < 3; c++) X0[c] = x0[c] + h[t] * (ca * t1[c] + sa * t2[c]);
          if (W) pb_wall_project(W, X0);
          for (int i = 0; i < ninc[t] && mn > cur; i++) {
            if (chord_clearance(bd, F, F->q0 + inc[t][i]) < clr[inc[t][i]]) {
              mn = -INFINITY;
              break;
            }
            qn[i] = smooth_quad_q(bd, F, F->q0 + inc[t][i], fmax(cur + 1e-9, best));
            mn = fmin(mn, qn[i]);
            /* and none of the node's quads taken from SMOOTH_GOOD or more to below it, nor
               (--aspect A) to an estimated aspect ratio above max(ASPECT_EST_MARGIN A, its value) */
            na[i] = o->aspect > 0 ? pb_quad_aspect_est(bd, F, F->q0 + inc[t][i]) : 0;
            if ((qq[inc[t][i]] >= SMOOTH_GOOD && qn[i] < SMOOTH_GOOD) ||
                (o->aspect > 0 && na[i] > fmax(ASPECT_EST_MARGIN * o->aspect, asp[inc[t][i]]))) {
              mn = -INFINITY;
              break;
            }
          }
          if (mn > cur + 1e-9 && mn > best) {
            best = mn;
            memcpy(xb, X0, sizeof xb);
            memcpy(nq_best, qn, (size_t)ninc[t] * sizeof *qn);
            memcpy(na_best, na, (size_t)ninc[t] * sizeof *na);
          }
        }
        if (best > -INFINITY) {
          memcpy(X0, xb, sizeof xb);
          for (int i = 0; i < ninc[t]; i++) qq[inc[t][i]] = nq_best[i], asp[inc[t][i]] = na_best[i];
          any = 1, moved++;
        } else {
          memcpy(X0, x0, sizeof x0);
          h[t] *= 0.5;
        }
      }
      if (!any && it > 1) break;
    }
  }
  hx_free(&owner);
  st->num_smoothed_moves = moved;
  return HX_OK;
}

/* Local repair. The clean-up's collapses and plane fits are decided vertex by vertex,
   and a few of them leave a facet that no tessellation variant sweeps without folding (a
   vertex pulled off a near contact's plane, a warped triangle). Changing the rule for every
   vertex moves such sites elsewhere in a large bed, so the rule changes only at the
   vertices of the facets that failed: pb_repair_guard marks the diagram vertices (before the
   clean-up) merged into their polygon's nodes, and the next round's clean-up keeps those
   vertices out of every collapse of an edge of non-zero length (each then keeps its own
   power centre, on the planes of its facets). Beds with no such facet are built once,
   as before. */
int pb_repair_guard(builder *bd) {
  uint8_t *mark;
  HX_CALL(hx_malloc((size_t)bd->nn * sizeof *mark, &mark));
  for (hx_lid f = 0; f < bd->nf; f++)
    if (bd->fbad[f])
      for (int k = 0; k < bd->F[f].nv; k++) mark[bd->fv[bd->F[f].v0 + k]] = 1;
  if (!bd->vguard) {
    int rc = hx_malloc((size_t)bd->nvdiag * sizeof *bd->vguard, &bd->vguard);
    if (rc) {
      hx_free(&mark);
      return rc;
    }
  }
  for (hx_lid t = 0; t < bd->nvdiag; t++)
    if (bd->vnode[t] >= 0 && mark[bd->vnode[t]]) bd->vguard[t] = 1;
  hx_free(&mark);
  return HX_OK;
}

static uint64_t facet_hash(const builder *bd, const facet *F) {
  uint64_t h = 1469598103934665603ull;
#define MIX(p, n)                                                                                                                \
  for (size_t i_ = 0; i_ < (n); i_++) h = (h ^ ((const uint8_t *)(p))[i_]) * 1099511628211ull
  MIX(&F->nv, sizeof F->nv);
  for (int k = 0; k < F->nv; k++) {
    int32_t x = bd->fv[F->v0 + k];
    MIX(bd->X + 3 * (size_t)x, 3 * sizeof(double));
    MIX(bd->nmask + x, 1);
  }
#undef MIX
  return h;
}

int pb_fsave_store(fsave *sv, const builder *bd) {
  hx_free(&sv->key), hx_free(&sv->hash), hx_free(&sv->choice);
  sv->n = bd->nf;
  HX_CALL(hx_malloc((size_t)(sv->n + 1) * sizeof *sv->key, &sv->key));
  HX_CALL(hx_malloc((size_t)(sv->n + 1) * sizeof *sv->hash, &sv->hash));
  HX_CALL(hx_malloc((size_t)(sv->n + 1) * sizeof *sv->choice, &sv->choice));
  /* facets are made in increasing (a, b) order by pb_build_diagram: keys sorted already */
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    sv->key[f] = (int64_t)F->a * bd->ns + F->b;
    sv->hash[f] = facet_hash(bd, F);
    sv->choice[f] = bd->fbad[f] ? -1 : bd->choice[f];
  }
  return HX_OK;
}

int pb_fsave_lookup(const fsave *sv, builder *bd) {
  hx_free(&bd->prechoice);
  HX_CALL(hx_malloc((size_t)(bd->nf + 1) * sizeof *bd->prechoice, &bd->prechoice));
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    int64_t key = (int64_t)F->a * bd->ns + F->b;
    hx_lid lo = 0, hi = sv->n;
    while (lo < hi) {
      hx_lid mid = lo + (hi - lo) / 2;
      if (sv->key[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    bd->prechoice[f] = lo < sv->n && sv->key[lo] == key && sv->hash[lo] == facet_hash(bd, F) ? sv->choice[lo] : -1;
  }
  return HX_OK;
}
