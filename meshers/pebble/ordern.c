/* The pebble mesher, the order-N point placement: the volume spacing of ring, spoke and
   boundary edges (ring_edges, ring_edge_map), its guards, the order-N sweep of the whole
   mesh (sweep_curve) and the lazy order-N map attached to an order-1 mesh (plazy_*). */
#include "pebble_impl.h"

/* --ring-points volume. Inside a ring of quads about a contact the gap between the two
   spheres grows like rho^2 and the ring's width like rho (rho: distance from the axis),
   so with points spaced evenly along a ring's radial edges det J grows like rho^3 across
   an element; along a ring's chords it follows the gap, taller where the chord's node is
   aligned with a polygon vertex. pb_ring_edges marks the edges that two ring quads of a facet
   share (radial edges 1 and 3, chords 0 and 2; a boundary chord, shared with other facets,
   and the bridge circle's arcs are not), and the spokes (centre -> edge midpoint) that two
   fan quads share; the sweep map spaces their points so that w x step is constant: the
   parameter t(xi) inverts the cumulative integral of w(t) = rho(t) H(t) on radial edges
   (equal volume of the gap's annulus per step), H(t) on chords and width(t) H(t) on spokes
   (width: the two fan quads' cross vectors to their opposite edges at the same parameter),
   H the summed column heights to the facet's spheres, rho the distance from the
   bridge axis or, about a near contact, from the fan centre the rings surround (w at least a
   quarter of its largest value on the edge: the spacing varies at most 4 x, a map that
   degree N resolves). The map is a function of the edge and its facet alone, computed from
   the lower node id, so the quads on both sides of the edge, both cells and the extrusions
   agree. The ring quads' facet points and feet are then lofted between their two chords
   (pb_sweep_elem), and pb_ring_points_guard keeps even spacing on a facet where this is worse.
   Measured on pb67 at N = 7 (docs/benchmarks.md): the mean Nek scaled Jacobian 0.20 -> 0.51,
   elements below 0.3 27 602 -> 4 770 (with --radial volume). */
static int cmp_qedge(const void *pa, const void *pb) {
  const qedge *a = pa, *b = pb;
  if (a->u != b->u) return a->u < b->u ? -1 : 1;
  if (a->v != b->v) return a->v < b->v ? -1 : 1;
  return a->q < b->q ? -1 : (a->q > b->q);
}

/* may edge e of quad A and edge k of quad B (the same edge) be spaced by volume, with the
   same kind of weight in both? */
static int spaced_pair(const quad *A, int e, const quad *B, int k) {
  if (IS_RING(A->kind) && IS_RING(B->kind)) return (e & 1) == (k & 1);
  return IS_FAN(A->kind) && IS_FAN(B->kind) && (e == 0 || e == 3) && (k == 0 || k == 3);
}

/* a boundary edge of facet f (boundary_segments) */
typedef struct bedge {
  int32_t u, v, q, sph; /* end nodes (u < v), quad, the facet's lowest real sphere */
  int e, off;           /* the edge's index in the quad; 1: on an extruded inlet/outlet plane */
} bedge;

static int cmp_bedge(const void *pa, const void *pb) {
  const bedge *a = pa, *b = pb;
  if (a->u != b->u) return a->u < b->u ? -1 : 1;
  if (a->v != b->v) return a->v < b->v ? -1 : 1;
  return a->q < b->q ? -1 : (a->q > b->q);
}

/* The facets' boundary edges (a diagram edge, or a piece of one where it is split) are shared
   by the two or three facets about the diagram edge. Each becomes a segment spaced by the gap
   to one sphere, the lowest real sphere of those facets: about a diagram edge the spheres are
   equally far (power diagram: their power is equal), so the spacing suits every column on
   it, and being a function of the segment alone, every facet's quads, both cells and the
   extrusions agree. Segments on an extruded inlet/outlet plane stay even: the extrusion's
   columns are straight, and the plane's spacing is theirs too. */
static int boundary_segments(builder *bd, bedge *S, hx_lid nbe) {
  qsort(S, (size_t)nbe, sizeof *S, cmp_bedge); /* in place: the caller's scratch */
  hx_lid nseg = 0;
  for (hx_lid i = 0; i < nbe; i++) nseg += i == 0 || S[i].u != S[i - 1].u || S[i].v != S[i - 1].v;
  int rc = hx_malloc((size_t)bd->nq * 4 * sizeof *bd->qseg, &bd->qseg);
  if (!rc) rc = hx_malloc(((size_t)nseg + 1) * sizeof *bd->segsph, &bd->segsph);
  if (!rc) rc = hx_malloc((size_t)nseg + 1, &bd->segon);
  if (rc) return rc;
  for (size_t k = 0; k < (size_t)bd->nq * 4; k++) bd->qseg[k] = -1;
  hx_lid sg = -1;
  for (hx_lid i = 0; i < nbe; i++) {
    if (i == 0 || S[i].u != S[i - 1].u || S[i].v != S[i - 1].v) {
      sg++;
      bd->segsph[sg] = S[i].sph;
      bd->segon[sg] = 1;
    }
    if (S[i].sph < bd->segsph[sg]) bd->segsph[sg] = S[i].sph;
    if (S[i].off) bd->segon[sg] = 0;
    bd->qseg[4 * (size_t)S[i].q + S[i].e] = (int32_t)sg;
  }
  bd->nseg = nseg;
  return HX_OK;
}

/* the segment of quad q's edge e while it is spaced by the gap, else -1 */
int32_t pb_seg_on(const builder *bd, hx_lid q, int e) {
  int32_t sg = bd->qseg ? bd->qseg[4 * (size_t)q + e] : -1;
  return sg >= 0 && bd->segon[sg] ? sg : -1;
}

int pb_ring_edges(builder *bd) {
  const hx_pebble_opts *o = bd->plan->o;
  /* an edge is marked in both quads or in neither, with the same kind of weight in both (so
     --split's children, whose inner edges are chords in one child and spokes in the other,
     stay unmarked there); a facet's edges are sorted by their end nodes to pair them; the
     edges of one quad alone are the facet's boundary (boundary_segments) */
  int ring = pb_spacing_on(o->ring_volume, pb_map_order(o, o->order)),
      edge = pb_spacing_on(o->edge_volume, pb_map_order(o, o->order));
  int32_t maxq = 0;
  for (hx_lid f = 0; f < bd->nf; f++) maxq = bd->F[f].nq > maxq ? bd->F[f].nq : maxq;
  qedge *E;
  bedge *BE = NULL;
  hx_lid nbe = 0;
  HX_CALL(hx_malloc(((size_t)4 * maxq + 1) * sizeof *E, &E));
  if (edge) {
    int rc = hx_malloc(((size_t)4 * bd->nq + 1) * sizeof *BE, &BE);
    if (rc) {
      hx_free(&E);
      return rc;
    }
  }
  unsigned offmask = 0; /* walls that are extruded inlet/outlet planes */
  for (int k = 0; k < bd->nw; k++)
    if (pb_extruded(o, &bd->w[k])) offmask |= 1u << k;
  for (hx_lid q = 0; q < bd->nq; q++) bd->Q[q].rp = 0;
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    int n = 0;
    for (int32_t q = F->q0; q < F->q0 + F->nq; q++)
      for (int e = 0; e < 4; e++) {
        int32_t u = bd->Q[q].x[e], v = bd->Q[q].x[(e + 1) % 4];
        E[n].u = u < v ? u : v, E[n].v = u < v ? v : u, E[n].q = q, E[n].e = e, n++;
      }
    qsort(E, (size_t)n, sizeof *E, cmp_qedge);
    for (int i = 0; i < n;) {
      int j = i + 1;
      while (j < n && E[j].u == E[i].u && E[j].v == E[i].v) j++;
      for (int x = i; x < j; x++)
        for (int y = i; y < j; y++)
          if (ring && x != y && spaced_pair(&bd->Q[E[x].q], E[x].e, &bd->Q[E[y].q], E[y].e))
            bd->Q[E[x].q].rp |= (uint8_t)(1u << E[x].e);
      const quad *Qd = &bd->Q[E[i].q];
      if (edge && j == i + 1 && !(Qd->chamfer >> E[i].e & 1)) {
        bedge *b = &BE[nbe++];
        b->u = E[i].u, b->v = E[i].v, b->q = E[i].q, b->e = E[i].e;
        b->sph = F->a;
        if (!bd->smask[F->b] && F->b < b->sph) b->sph = F->b;
        b->off = (Qd->emask[E[i].e] & offmask) != 0;
      }
      i = j;
    }
  }
  hx_free(&E);
  int rc = edge ? boundary_segments(bd, BE, nbe) : HX_OK;
  hx_free(&BE);
  return rc;
}

/* cum[0..RE_K]: the cumulative weight of the edge A -> B of facet F, of kind RE_* (see
   pb_ring_edges), at RE_K + 1 even steps from its lower node id to the higher */
void pb_ring_edge_cum(const builder *bd, const facet *F, int32_t A, int32_t B, uint8_t emask, int wallk, int kind, int32_t gs,
                      double *cum) {
  /* 9 parameters: the edge (A, B, its walls emask, wallk) as pb_sweep_elem holds it, the weight
     (kind, gs) and the output */
  enum { K = RE_K };
  int rev = A > B;
  int32_t P0 = rev ? B : A, P1 = rev ? A : B;
  /* a spoke's width: the two fan quads' cross vectors at the point, from the edge to the
     opposite edge at the same parameter */
  const double *o0[2] = {NULL, NULL}, *o1[2] = {NULL, NULL};
  int nw = 0;
  if (kind == RE_SPOKE)
    for (int32_t q = F->q0; q < F->q0 + F->nq && nw < 2; q++) {
      const quad *Qd = &bd->Q[q];
      for (int e = 0; e < 4; e++) {
        int32_t u = Qd->x[e], v = Qd->x[(e + 1) % 4];
        if (!((u == P0 && v == P1) || (u == P1 && v == P0))) continue;
        /* opposite edge x[e+3] -> x[e+2] runs alongside x[e] -> x[e+1] */
        const double *s0 = bd->X + 3 * Qd->x[(e + 3) % 4], *s1 = bd->X + 3 * Qd->x[(e + 2) % 4];
        o0[nw] = u == P0 ? s0 : s1, o1[nw] = u == P0 ? s1 : s0, nw++;
      }
    }
  /* a radial edge's width grows with the distance from the rings' axis: the bridge's, or
     the line through the fan centre the rings of a near contact surround (every ring quad
     lies in a facet with one or the other) */
  double ax[3] = {0, 0, 0}, au[3] = {0, 0, 0}, fa[2][3], fb[2][3], w[K + 1];
  if (F->bridge >= 0) {
    memcpy(ax, bd->B[F->bridge].p, sizeof ax);
    memcpy(au, bd->B[F->bridge].u, sizeof au);
  } else if (F->centre >= 0) {
    memcpy(ax, bd->X + 3 * F->centre, sizeof ax);
  }
  int ns = kind == RE_GAP ? 0 : bd->smask[F->b] ? 1 : 2;
  for (int side = 0; side < ns; side++) {
    int32_t sp = side ? F->b : F->a;
    pb_node_foot(bd, bd->sx + 3 * sp, bd->sr[sp], sp, P0, fa[side]);
    pb_node_foot(bd, bd->sx + 3 * sp, bd->sr[sp], sp, P1, fb[side]);
  }
  for (int j = 0; j <= K; j++) {
    double tj = (double)j / K, x[3], d[3], H = 0;
    pb_edge_point(bd, P0, P1, tj, emask, -1, wallk, x);
    for (int side = 0; side < ns; side++) {
      int32_t sp = side ? F->b : F->a;
      const double *cs = bd->sx + 3 * sp;
      double r[3], y[3];
      for (int c = 0; c < 3; c++) r[c] = (1 - tj) * fa[side][c] + tj * fb[side][c] - cs[c];
      double l = norm3(r);
      for (int c = 0; c < 3; c++) y[c] = cs[c] + bd->sr[sp] * r[c] / l;
      H += dist3(x, y);
    }
    if (kind == RE_GAP) H = dist3(x, bd->sx + 3 * gs) - bd->sr[gs];
    double width = 1; /* a chord's width, the ring's spacing, varies little along it */
    if (kind == RE_RADIAL) {
      for (int c = 0; c < 3; c++) d[c] = x[c] - ax[c];
      double along = dot3(d, au);
      for (int c = 0; c < 3; c++) d[c] -= along * au[c];
      width = norm3(d);
    } else if (kind == RE_SPOKE) {
      width = 0;
      for (int k = 0; k < nw; k++) {
        double cr[3];
        for (int c = 0; c < 3; c++) cr[c] = (1 - tj) * o0[k][c] + tj * o1[k][c] - x[c];
        width += norm3(cr);
      }
    }
    w[j] = fmax(width * H, 0);
  }
  { /* at most 4 x between the densest and the sparsest spacing: a map that degree N resolves */
    double wmax = 0;
    for (int j = 0; j <= K; j++) wmax = fmax(wmax, w[j]);
    for (int j = 0; j <= K; j++) w[j] = fmax(w[j], 0.25 * wmax);
  }
  cum[0] = 0;
  for (int j = 1; j <= K; j++) cum[j] = cum[j - 1] + 0.5 * (w[j - 1] + w[j]);
}

/* the parameter (from the lower node id) at which the cumulative weight cum reaches the fraction
   f in (0, 1) of its total (f itself where the weight is nil) */
double pb_ring_cum_at(const double *cum, double f) {
  enum { K = RE_K };
  if (!(cum[K] > 0)) return f;
  double target = f * cum[K];
  int j = 0;
  while (j < K - 1 && cum[j + 1] < target) j++;
  double dc = cum[j + 1] - cum[j];
  return (j + (dc > 0 ? (target - cum[j]) / dc : 0)) / K;
}

/* t[i] = t(g[i]) for the edge A -> B of facet F, of kind RE_* (see pb_ring_edges) */
void pb_ring_edge_map(const builder *bd, const facet *F, int32_t A, int32_t B, uint8_t emask, int wallk, int nd, const double *g,
                      double *t, int kind, int32_t gs) {
  /* 11 parameters: the edge (A, B, its walls emask, wallk) as pb_sweep_elem holds it, the points
     (nd, g, out t) and the weight (kind, gs); a struct would only repack them at its two calls */
  int rev = A > B;
  double cum[RE_K + 1];
  pb_ring_edge_cum(bd, F, A, B, emask, wallk, kind, gs, cum);
  for (int i = 0; i < nd; i++) {
    int ic = rev ? nd - 1 - i : i;
    double tc = ic == 0 ? 0 : ic == nd - 1 ? 1 : pb_ring_cum_at(cum, g[ic]);
    t[i] = rev ? 1 - tc : tc;
  }
}

/* the Nek scaled Jacobian (min / max det J over the GLL points, -1 if NaN) of the element sc->ei[0]
   describes, as the sweep map makes it at order nd - 1 (its nodes into xe) */
static double elem_ratio(const sweep_ctx *sc, int nd, const double *g, const double *D, double *xe) {
  double mn, mx;
  pb_sweep_elem(sc, 0, nd, g, xe);
  hx_elem_detj_range(nd, D, xe, &mn, &mx);
  double r = hx_detj_ratio(mn, mx);
  return r > -1 ? r : -1;
}

/* The worst Nek scaled Jacobian (min / max det J over the GLL points) of facet F's elements,
   both sides, every layer, as the sweep map makes them at order nd - 1 */
static double facet_elems_ratio(const sweep_ctx *sc0, const facet *F, int nd, const double *g, const double *D, double *xe) {
  const builder *bd = sc0->bd;
  elinfo ei;
  sweep_ctx sc = *sc0;
  sc.ei = &ei;
  double worst = 1;
  for (int side = 0; side < 2; side++) {
    if (side && bd->smask[F->b]) break;
    for (int32_t q = F->q0; q < F->q0 + F->nq; q++)
      for (int l = 0; l < sc.o->layers; l++) {
        ei.quad = q, ei.cell = side ? F->b : F->a, ei.layer = (int16_t)l, ei.rev = (int16_t)side;
        worst = fmin(worst, elem_ratio(&sc, nd, g, D, xe));
        if (worst <= 0) return worst;
      }
  }
  const wall *W = F->wall >= 0 ? &bd->w[F->wall] : NULL;
  if (W && pb_extruded(sc.o, W))
    for (int32_t q = F->q0; q < F->q0 + F->nq; q++) {
      /* a facet on an extruded plane: the inlet / outlet elements on its quads too (their
         layers are straight copies of the first, whose det J ratio they share) */
      ei.quad = q, ei.cell = W->kind == 1 ? -1 : -2, ei.layer = 0, ei.rev = 1;
      worst = fmin(worst, elem_ratio(&sc, nd, g, D, xe));
      if (worst <= 0) return worst;
    }
  return worst;
}

/* 1: facet F has a boundary edge spaced by the gap (facet_bnd_spaced), or that or an edge
   spaced by volume (pb_ring_edges; facet_spaced) */
static int facet_bnd_spaced(const builder *bd, const facet *F) {
  for (int32_t q = F->q0; q < F->q0 + F->nq; q++)
    for (int e = 0; e < 4; e++)
      if (pb_seg_on(bd, q, e) >= 0) return 1;
  return 0;
}

static int facet_spaced(const builder *bd, const facet *F) {
  for (int32_t q = F->q0; q < F->q0 + F->nq; q++)
    if (bd->Q[q].rp) return 1;
  return facet_bnd_spaced(bd, F);
}

/* The guard's outcome for facet F (its interior edges as pb_ring_edges marked them, its boundary
   edges as segon says): 0 keep, 1 every interior edge even, 2 the fan's spokes even; | 4: the
   facet's boundary edges even would lift its worst element. Leaves the quads as it found them. */
static int64_t facet_guard(const sweep_ctx *sc0, const facet *F, int nd, const double *g, const double *D, double *xe,
                           uint8_t *keep) {
  builder *bd = (builder *)sc0->bd; /* the quads of facet F are this thread's alone */
  sweep_ctx sc = *sc0;
  sc.bnd_off = 0;
  double rv = facet_elems_ratio(&sc, F, nd, g, D, xe), best = rv;
  if (rv >= 0.1) return 0;
  int64_t code = 0;
  for (int32_t q = F->q0; q < F->q0 + F->nq; q++) keep[q - F->q0] = bd->Q[q].rp;
  int inner = 0;
  for (int32_t q = F->q0; q < F->q0 + F->nq; q++) inner |= bd->Q[q].rp;
  if (inner) {
    for (int32_t q = F->q0; q < F->q0 + F->nq; q++) bd->Q[q].rp = 0;
    double re = facet_elems_ratio(&sc, F, nd, g, D, xe);
    for (int32_t q = F->q0; q < F->q0 + F->nq; q++) bd->Q[q].rp = keep[q - F->q0];
    if (!(rv > 0) || rv < re) {
      /* the rings spaced, the fan's spokes even: kept if that is no worse than all even */
      int fans = 0;
      for (int32_t q = F->q0; q < F->q0 + F->nq; q++)
        if (IS_FAN(bd->Q[q].kind) && bd->Q[q].rp) fans = 1, bd->Q[q].rp = 0;
      double rr = fans ? facet_elems_ratio(&sc, F, nd, g, D, xe) : -1;
      if (!(rr > 0) || rr < re) code = 1, best = re;
      else code = 2, best = rr;
      for (int32_t q = F->q0; q < F->q0 + F->nq; q++) bd->Q[q].rp = keep[q - F->q0];
    }
  }
  if (!(best >= 0.1) && facet_bnd_spaced(bd, F)) {
    for (int32_t q = F->q0; q < F->q0 + F->nq; q++)
      if (code == 1 || (code == 2 && IS_FAN(bd->Q[q].kind))) bd->Q[q].rp = 0;
    sc.bnd_off = 1;
    double rb = facet_elems_ratio(&sc, F, nd, g, D, xe);
    for (int32_t q = F->q0; q < F->q0 + F->nq; q++) bd->Q[q].rp = keep[q - F->q0];
    if (rb > best) code |= 4;
  }
  return code;
}

/* The volume spacing (pb_ring_edges, boundary_segments) is a reparametrization the degree-N
   polynomial must follow; where a ring is skewed (a rounded inner loop, a fan centre off the
   line of centres) and thin, a low order can fold or nearly fold an element that even spacing
   keeps sound. So every facet with spaced edges has its elements (both sides, every layer)
   evaluated at order N first; where the worst Nek scaled Jacobian is below 0.1, the facet is
   evaluated with its interior edges even too, and keeps their volume spacing only where that
   is no worse (else the rings spaced and the fan's spokes even, if that is no worse, else all
   even). Where it is still below 0.1 and even spacing on its boundary edges would lift it,
   those edges (shared with the facets about the same diagram edges) go even for every facet,
   and the facets on them are evaluated again, in rounds until none asks: so every facet's
   choice is made knowing its boundary, and a boundary edge is spaced alike in all its quads.
   A facet's outcome in a round depends on it and its boundary alone; under MPI each rank
   evaluates a share of the round's facets and the outcomes are combined. */
int pb_ring_points_guard(const sweep_ctx *sc0, int order, hx_comm comm, hx_lid *nback, hx_lid *nsegeven) {
  enum { MAX_ROUNDS = 32 };
  builder *bd = (builder *)sc0->bd;
  int nd = order + 1, rc = HX_OK;
  *nback = 0, *nsegeven = 0;
  double g[HX_MAX_ND], w[HX_MAX_ND], D[HX_MAX_ND * HX_MAX_ND];
  HX_CALL(hx_gll(nd, g, w));
  HX_CALL(hx_mesh_gll_derivative(nd, D));
  int64_t *bad = NULL;
  hx_lid *list = NULL;
  uint8_t *rp0 = NULL, *dirty = NULL, *fresh = NULL;
  rc = hx_malloc((size_t)(bd->nf + 1) * sizeof *bad, &bad);
  if (!rc) rc = hx_malloc((size_t)(bd->nf + 1) * sizeof *list, &list);
  if (!rc) rc = hx_malloc((size_t)bd->nq + 1, &rp0);
  if (!rc) rc = hx_malloc((size_t)bd->nf + 1, &dirty);
  if (!rc) rc = hx_malloc((size_t)bd->nseg + 1, &fresh);
  int np = hx_comm_size(comm), me = hx_comm_rank(comm);
  if (!rc) {
    for (hx_lid q = 0; q < bd->nq; q++) rp0[q] = bd->Q[q].rp;
    for (hx_lid f = 0; f < bd->nf; f++) dirty[f] = (uint8_t)facet_spaced(bd, &bd->F[f]);
  }
  for (int round = 0; round < MAX_ROUNDS && !rc; round++) {
    /* the round's facets start from their interior spacing as marked */
    hx_lid nl = 0;
    for (hx_lid f = 0; f < bd->nf; f++) {
      bad[f] = 0;
      if (!dirty[f]) continue;
      list[nl++] = f;
      const facet *F = &bd->F[f];
      for (int32_t q = F->q0; q < F->q0 + F->nq; q++) bd->Q[q].rp = rp0[q];
    }
    if (!nl) break;
    hx_lid lo = nl * me / np, hi = nl * (me + 1) / np;
    hx_progress prog;
    hx_progress_start(&prog, "point spacing", hi - lo);
    for (hx_lid k0 = lo; k0 < hi; k0 += 256) { /* in blocks of facets, the progress between them */
      hx_lid k1 = hi - k0 < 256 ? hi : k0 + 256;
#pragma omp parallel for schedule(dynamic, 8)
      for (hx_lid k = k0; k < k1; k++) {
        const facet *F = &bd->F[list[k]];
        double *xe = malloc((size_t)3 * nd * nd * nd * sizeof *xe);
        uint8_t *keep = malloc((size_t)F->nq + 1);
        bad[list[k]] = xe && keep ? facet_guard(sc0, F, nd, g, D, xe, keep) : 1 | 4; /* no memory: even */
        free(xe), free(keep);
      }
      hx_progress_update(&prog, k1 - lo);
    }
    hx_progress_finish(&prog);
    if (np > 1) rc = hx_comm_max_int64(comm, bad, (int)bd->nf);
    if (rc) break;
    hx_lid nnew = 0;
    memset(fresh, 0, (size_t)bd->nseg + 1);
    for (hx_lid k = 0; k < nl; k++) {
      const facet *F = &bd->F[list[k]];
      int64_t c = bad[list[k]];
      dirty[list[k]] = 0;
      for (int32_t q = F->q0; q < F->q0 + F->nq; q++) {
        if ((c & 3) == 1 || ((c & 3) == 2 && IS_FAN(bd->Q[q].kind))) bd->Q[q].rp = 0;
        for (int e = 0; (c & 4) && e < 4; e++) {
          int32_t sg = pb_seg_on(bd, q, e);
          if (sg >= 0) bd->segon[sg] = 0, fresh[sg] = 1, nnew++;
        }
      }
    }
    *nsegeven += nnew;
    if (!nnew) break;
    /* the facets about the edges that went even choose again */
    for (hx_lid f = 0; f < bd->nf; f++) {
      const facet *F = &bd->F[f];
      for (int32_t q = F->q0; q < F->q0 + F->nq && !dirty[f]; q++)
        for (int e = 0; e < 4; e++) {
          int32_t sg = bd->qseg[4 * (size_t)q + e];
          if (sg >= 0 && fresh[sg]) dirty[f] = 1;
        }
    }
  }
  for (hx_lid f = 0; f < bd->nf && !rc; f++) {
    const facet *F = &bd->F[f];
    int changed = 0;
    for (int32_t q = F->q0; q < F->q0 + F->nq; q++) changed |= bd->Q[q].rp != rp0[q];
    *nback += changed;
  }
  hx_free(&bad), hx_free(&list), hx_free(&rp0), hx_free(&dirty), hx_free(&fresh);
  return rc;
}

int pb_sweep_curve(const sweep_ctx *sc, const hx_mesh *m1, int order, hx_mesh **out) {
  const builder *bd = sc->bd;
  int nd = order + 1, nd3 = nd * nd * nd;
  double g[HX_MAX_ND], w[HX_MAX_ND];
  HX_CALL(hx_gll(nd, g, w));
  /* node ids: pb_pnum_ids (the caller) */
  hx_mesh *m = NULL;
  int rc = hx_mesh_create(m1->comm, order, m1->num_elem, &m);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  memcpy(m->vert_id, m1->vert_id, (size_t)m1->num_elem * 8 * sizeof *m->vert_id);
  memcpy(m->elem_attr, m1->elem_attr, (size_t)m1->num_elem * sizeof *m->elem_attr);
  hx_progress prog;
  hx_progress_start(&prog, "order-N map", m1->num_elem);
  for (hx_lid e0 = 0; e0 < m1->num_elem; e0 += 16384) { /* in blocks, the progress between them */
    hx_lid e1 = m1->num_elem - e0 < 16384 ? m1->num_elem : e0 + 16384;
#pragma omp parallel for schedule(dynamic, 16)
    for (hx_lid e = e0; e < e1; e++) pb_sweep_elem(sc, e, nd, g, m->x + (size_t)e * 3 * nd3);
    hx_progress_update(&prog, e1);
  }
  hx_progress_finish(&prog);
  if (sc->o->debug.facets) {
    double *Dm = NULL;
    if (!hx_malloc((size_t)nd * nd * sizeof *Dm, &Dm)) {
      hx_mesh_gll_derivative(nd, Dm);
      for (hx_lid e = 0; e < m->num_elem; e++)
        for (int k = 0; k < nd; k++)
          for (int j = 0; j < nd; j++)
            for (int i = 0; i < nd; i++) {
              double J[3][3];
              double dj = hx_mesh_jacobian_at_node(m, Dm, e, i, j, k, J);
              if (dj <= 0) {
                const elinfo *E = &sc->ei[e];
                int32_t lo = pb_quad_facet(bd, E->quad);
                const facet *F = &bd->F[lo];
                fprintf(stderr,
                        "order-N bad e%d node (%d %d %d) det %.3e: cell %d facet %d (a %d b %d mask %d wall %d bridge %d nv %d "
                        "nq %d) quad %d (cham %d emask %d %d %d %d) layer %d rev %d\n",
                        (int)e, i, j, k, dj, E->cell, lo, F->a, F->b, bd->smask[F->b], F->wall, F->bridge, F->nv, F->nq,
                        E->quad - F->q0, bd->Q[E->quad].chamfer, bd->Q[E->quad].emask[0], bd->Q[E->quad].emask[1],
                        bd->Q[E->quad].emask[2], bd->Q[E->quad].emask[3], E->layer, E->rev);
                i = j = k = nd;
              }
            }
      hx_free(&Dm);
    }
    /* first mismatching node copy */
    hx_gid maxid = 0;
    size_t tot = (size_t)m->num_elem * nd3;
    for (size_t q = 0; q < tot; q++)
      if (m->node_id[q] > maxid) maxid = m->node_id[q];
    int64_t *first = NULL;
    if (!hx_malloc((size_t)(maxid + 1) * sizeof *first, &first)) {
      for (hx_gid q = 0; q <= maxid; q++) first[q] = -1;
      int shown = 0;
      for (size_t q = 0; q < tot && shown < 8; q++) {
        hx_gid id = m->node_id[q];
        if (first[id] < 0) {
          first[id] = (int64_t)q;
          continue;
        }
        size_t q0 = (size_t)first[id];
        hx_lid e1 = (hx_lid)(q0 / nd3), e2 = (hx_lid)(q / nd3);
        int l1 = (int)(q0 % nd3), l2 = (int)(q % nd3);
        double dd = 0;
        for (int c = 0; c < 3; c++) {
          double t = hx_mesh_elem_x(m, e1, c)[l1] - hx_mesh_elem_x(m, e2, c)[l2];
          dd += t * t;
        }
        if (sqrt(dd) > 1e-9) {
          shown++;
          fprintf(stderr,
                  "mismatch id %lld dist %.3e: e%d (cell %d quad %d layer %d rev %d) lex %d (%d %d %d) vs e%d (cell %d quad %d "
                  "layer %d rev %d) lex %d (%d %d %d)\n",
                  (long long)id, sqrt(dd), (int)e1, sc->ei[e1].cell, sc->ei[e1].quad, sc->ei[e1].layer, sc->ei[e1].rev, l1,
                  l1 % nd, l1 / nd % nd, l1 / nd / nd, (int)e2, sc->ei[e2].cell, sc->ei[e2].quad, sc->ei[e2].layer,
                  sc->ei[e2].rev, l2, l2 % nd, l2 / nd % nd, l2 / nd / nd);
        }
      }
      hx_free(&first);
    }
  }
  for (hx_lid f = 0; !rc && f < m1->num_faces; f++)
    rc = hx_mesh_add_face(m, m1->faces[f].elem, m1->faces[f].face, m1->faces[f].bid, m1->faces[f].surf);
  for (int b = 1; !rc && b < m1->num_bnames; b++) rc = hx_mesh_set_bname(m, b, m1->bnames[b]);
  for (int k = 0; !rc && k < m1->num_surfaces; k++) rc = hx_mesh_add_surface(m, &m1->surfaces[k], NULL);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}

/* ---- lazy order N (hx_mesh_lazy): the sweep map and the numbering, block by block --- */

typedef struct plazy {
  builder bd;        /* the tessellation (moved from the mesher) */
  pnum P;            /* the shared numbering (moved) */
  elinfo *ei;        /* [num_elem] (moved) */
  hx_pebble_bed bed; /* copies of the centres and radii */
  hx_pebble_opts o;  /* its debug strings dropped: the caller's */
  pb_plan plan;      /* a copy, o pointing at the copy above */
  double s[65], se[2][65];
  int NE[2];
  sweep_ctx sc; /* points into this struct */
  int order;
  double g[HX_MAX_ND];
  int32_t *tloc, *qloc; /* pb_pnum_ids_range scratch */
} plazy;

static void plazy_destroy(void *ctx) {
  plazy *z = ctx;
  if (!z) return;
  pb_builder_free(&z->bd);
  pb_pnum_free(&z->P);
  hx_free(&z->ei), hx_free(&z->bed.xyz), hx_free(&z->bed.r);
  hx_free(&z->tloc), hx_free(&z->qloc);
  hx_free(&z);
}

static int plazy_block(void *ctx, const hx_mesh *m, hx_lid e0, hx_lid cnt, double *x, hx_gid *ids) {
  plazy *z = ctx;
  int nd = z->order + 1;
  size_t nd3 = (size_t)nd * nd * nd;
  HX_CHECK(e0 >= 0 && cnt >= 0 && e0 + cnt <= m->num_elem, HX_ERR_INTERNAL, "pebble: lazy block %lld+%lld of %lld", (long long)e0,
           (long long)cnt, (long long)m->num_elem);
  if (x) {
#pragma omp parallel for schedule(dynamic, 16)
    for (hx_lid e = 0; e < cnt; e++) pb_sweep_elem(&z->sc, e0 + e, nd, z->g, x + (size_t)e * 3 * nd3);
  }
  if (ids) pb_pnum_ids_range(&z->P, &z->bd, z->ei, m, z->order, &(pnum_block){e0, cnt, z->tloc, z->qloc, ids});
  return HX_OK;
}

/* Move the builder (sc->bd), numbering P and element records (sc->ei) into a lazy
   order-N geometry of m; on success the caller's copies are emptied. */
int pb_plazy_attach(hx_mesh *m, const sweep_ctx *sc, pnum *P, int order) {
  plazy *z = NULL;
  HX_CALL(hx_malloc(sizeof *z, &z));
  memset(z, 0, sizeof *z);
  hx_lid n = sc->bed->n;
  int rc = hx_malloc((size_t)n * 3 * sizeof(double), &z->bed.xyz);
  if (!rc) rc = hx_malloc((size_t)n * sizeof(double), &z->bed.r);
  if (!rc) rc = hx_malloc((size_t)(P->nte + 1) * sizeof *z->tloc, &z->tloc);
  if (!rc) rc = hx_malloc((size_t)(P->nq + 1) * sizeof *z->qloc, &z->qloc);
  double wq[HX_MAX_ND];
  if (!rc) rc = hx_gll(order + 1, z->g, wq);
  if (!rc) rc = hx_malloc(sizeof *m->lazy, &m->lazy);
  if (rc) {
    plazy_destroy(z);
    return rc;
  }
  z->bed.n = n;
  memcpy(z->bed.xyz, sc->bed->xyz, (size_t)n * 3 * sizeof(double));
  memcpy(z->bed.r, sc->bed->r, (size_t)n * sizeof(double));
  z->o = *sc->o;
  z->o.debug.classify = z->o.debug.elems = NULL;
  memcpy(z->s, sc->s, sizeof z->s);
  for (int k = 0; k < 2; k++) memcpy(z->se[k], sc->se[k], sizeof z->se[k]);
  memcpy(z->NE, sc->NE, sizeof z->NE);
  z->order = order;
  z->bd = *sc->bd;
  memset((builder *)sc->bd, 0, sizeof *sc->bd);
  z->plan = *z->bd.plan;
  z->plan.o = &z->o;
  z->plan.bed = &z->bed;
  z->bd.plan = &z->plan;
  z->P = *P;
  memset(P, 0, sizeof *P);
  z->ei = (elinfo *)sc->ei;
  z->sc = (sweep_ctx){&z->bd, &z->bed, &z->o, z->s, {z->se[0], z->se[1]}, z->NE, z->ei, 0};
  m->lazy->order = order;
  m->lazy->id_bound = pb_pnum_id_bound(&z->P, order, m->num_elem_global);
  m->lazy->ctx = z;
  m->lazy->block = plazy_block;
  m->lazy->destroy = plazy_destroy;
  return HX_OK;
}
