/* The pebble mesher, step 4: every facet tessellated into quads (a fan from a centre, or
   rings about a bridge or near contact), the variants scored by the quality of the columns
   they sweep to, and the scoring spread over threads (score_facets); --aspect cuts of the
   diagram edges (mark_splits). */
#include "pebble_impl.h"
#ifdef _OPENMP
#include <omp.h>
#endif

int pb_emap_init(emap *e, hx_lid n) {
  e->cap = 64;
  while (e->cap < 2 * n) e->cap *= 2;
  HX_CALL(hx_malloc((size_t)e->cap * sizeof *e->key, &e->key));
  HX_CALL(hx_malloc((size_t)e->cap * sizeof *e->mid, &e->mid));
  HX_CALL(hx_malloc((size_t)e->cap * sizeof *e->mask, &e->mask));
  for (hx_lid i = 0; i < e->cap; i++) e->key[i] = -1, e->mid[i] = -1;
  return HX_OK;
}

hx_lid pb_emap_slot(const emap *e, int32_t u, int32_t v) {
  if (u > v) {
    int32_t t = u;
    u = v, v = t;
  }
  int64_t key = ((int64_t)u << 32) | (uint32_t)v;
  uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
  hx_lid s = (hx_lid)(h >> 20) & (e->cap - 1);
  while (e->key[s] != -1 && e->key[s] != key) s = (s + 1) & (e->cap - 1);
  e->key[s] = key;
  return s;
}

void pb_emap_free(emap *e) {
  hx_free(&e->key);
  hx_free(&e->mid);
  hx_free(&e->mask);
}

/* ---- facet tessellation ------------------------------------------------------ */

/* 2D polygon helpers in the facet frame */
static double seg_dist(double px, double py, double ax, double ay, double bx, double by) {
  double ex = bx - ax, ey = by - ay, l2 = ex * ex + ey * ey;
  double t = l2 > 0 ? ((px - ax) * ex + (py - ay) * ey) / l2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  return hypot(px - ax - t * ex, py - ay - t * ey);
}

/* signed: positive inside a CCW polygon */
double pb_poly_inner_dist(const double *P, int n, double px, double py) {
  double dmin = INFINITY;
  int inside = 1;
  for (int k = 0; k < n; k++) {
    const double *a = P + 2 * k, *b = P + 2 * ((k + 1) % n);
    double cr = (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0]);
    if (cr <= 0) inside = 0;
    dmin = fmin(dmin, seg_dist(px, py, a[0], a[1], b[0], b[1]));
  }
  return inside ? dmin : -dmin;
}

/* the fan (centre, B[2k-1], B[2k], B[2k+1]) has convex quads with every angle
   below ~145 degrees */
static int fan_ok_angle(const double *P2, int M, double ox, double oy, double mincos);

/* worst sine of the corner angles of the fan (centre, B[2k-1], B[2k], B[2k+1]);
   negative when a corner is reflex */
static double fan_quality(const double *P2, int M, double ox, double oy) {
  double worst = INFINITY;
  for (int k = 0; k < M / 2; k++) {
    double q[4][2] = {{ox, oy},
                      {P2[2 * ((2 * k + M - 1) % M)], P2[2 * ((2 * k + M - 1) % M) + 1]},
                      {P2[4 * k], P2[4 * k + 1]},
                      {P2[2 * (2 * k + 1)], P2[2 * (2 * k + 1) + 1]}};
    for (int v = 0; v < 4; v++) {
      const double *A = q[(v + 3) % 4], *V = q[v], *C = q[(v + 1) % 4];
      double ux = A[0] - V[0], uy = A[1] - V[1], wx = C[0] - V[0], wy = C[1] - V[1];
      double sn = (wx * uy - wy * ux) / (hypot(ux, uy) * hypot(wx, wy) + 1e-300);
      if (sn < worst) worst = sn;
    }
  }
  return worst;
}

static int fan_ok(const double *P2, int M, double ox, double oy) { return fan_ok_angle(P2, M, ox, oy, -0.82); }

/* a 2D quad (CCW) is strictly convex */
static int convex2d(const double *q[4]) {
  for (int v = 0; v < 4; v++) {
    const double *A = q[(v + 3) % 4], *V = q[v], *C = q[(v + 1) % 4];
    double cr = (V[0] - A[0]) * (C[1] - V[1]) - (V[1] - A[1]) * (C[0] - V[0]);
    if (cr <= 0) return 0;
  }
  return 1;
}

static int fan_ok_angle(const double *P2, int M, double ox, double oy, double mincos) {
  for (int k = 0; k < M / 2; k++) {
    double q[4][2] = {{ox, oy},
                      {P2[2 * ((2 * k + M - 1) % M)], P2[2 * ((2 * k + M - 1) % M) + 1]},
                      {P2[4 * k], P2[4 * k + 1]},
                      {P2[2 * (2 * k + 1)], P2[2 * (2 * k + 1) + 1]}};
    for (int v = 0; v < 4; v++) {
      const double *A = q[(v + 3) % 4], *V = q[v], *C = q[(v + 1) % 4];
      double ux = A[0] - V[0], uy = A[1] - V[1], wx = C[0] - V[0], wy = C[1] - V[1];
      double cr = wx * uy - wy * ux; /* CCW: turning left at V */
      double cosang = (ux * wx + uy * wy) / (hypot(ux, uy) * hypot(wx, wy) + 1e-300);
      if (cr <= 0 || cosang < mincos) return 0;
    }
  }
  return 1;
}

static double thinnest_layer(const pb_plan *pl, double h, double ra);

/* the column of quad qi of facet F swept to the sphere of the facet's side (0: a, 1: b),
   layer fractions sl: worst is lowered to each layer element's corner scaled Jacobian
   (and, with flags bit 0, its min / max det J) and returned, early once it is down to
   stop; -2 when a quad corner lies inside the sphere. Flags bit 1: the middle of a
   bridge-circle edge of a wall facet is put on the wall too, as pb_edge_point does (the
   variant scoring does not, and its choices are kept as they were) */
double pb_column_q(const builder *bd, const facet *F, hx_lid qi, int side, int flags, double worst, double stop) {
  const hx_pebble_opts *o = bd->plan->o;
  /* each quad is split 2 x 2 (bilinear on the facet, feet radially on the sphere) so
     that the sphere's curvature between the corners is seen, as the order-N sweep
     map will see it */
  enum { G = 2 }; /* fixed: the midpoint / centre construction below assumes 2 */
  double P[8 * 3];
  int L = o->layers;
  int32_t s = side ? F->b : F->a;
  const double *c = bd->sx + 3 * s;
  double r = bd->sr[s];
  int32_t qx[4];
  for (int v = 0; v < 4; v++) qx[v] = side ? bd->Q[qi].x[3 - v] : bd->Q[qi].x[v];
  const double *C0 = bd->X + 3 * qx[0], *C1 = bd->X + 3 * qx[1], *C2 = bd->X + 3 * qx[2], *C3 = bd->X + 3 * qx[3];
  double X[G + 1][G + 1][3], Y[G + 1][G + 1][3], YC[4][3];
  const double *CC[4] = {C0, C1, C2, C3};
  for (int v = 0; v < 4; v++) {
    if (bd->nbridge[qx[v]] >= 0) { /* along the bridge axis, as the sweep does */
      pb_foot_point(bd, c, r, s, bd->nbridge[qx[v]], CC[v], YC[v]);
      continue;
    }
    double d[3], l = 0;
    for (int k = 0; k < 3; k++) d[k] = CC[v][k] - c[k], l += d[k] * d[k];
    l = sqrt(l);
    if (l <= r) return -2;
    for (int k = 0; k < 3; k++) YC[v][k] = c[k] + r * d[k] / l;
  }
  /* the feet as the sweep map makes them: on an edge the blend of the end feet put
     back on the sphere, inside the Gordon-Hall blend of the edge feet put back */
  /* facet points as the sweep map makes them: edge midpoints on their walls, the
     centre by Gordon-Hall, on the facet's wall */
  for (int j = 0; j <= G; j++)
    for (int i = 0; i <= G; i++) {
      double a1 = (double)i / G, a2 = (double)j / G;
      for (int k = 0; k < 3; k++)
        X[j][i][k] = (1 - a1) * (1 - a2) * C0[k] + a1 * (1 - a2) * C1[k] + a1 * a2 * C2[k] + (1 - a1) * a2 * C3[k];
    }
  {
    static const int mij[4][2] = {{1, 0}, {2, 1}, {1, 2}, {0, 1}}; /* (i, j) of the midpoint of edge e */
    double sum[3] = {0, 0, 0};
    for (int e = 0; e < 4; e++) {
      uint8_t em = bd->Q[qi].emask[side ? (6 - e) % 4 : e];
      double *x = X[mij[e][1]][mij[e][0]];
      if (em) pb_snap(bd, em, x);
      if (bd->Q[qi].chamfer >> (side ? (6 - e) % 4 : e) & 1) { /* on the bridge circle's arc */
        const bridge *BR = &bd->B[F->bridge];
        double xp[3], t, l = 0;
        for (int k = 0; k < 3; k++) xp[k] = x[k] - BR->p[k];
        t = dot3(xp, BR->u);
        for (int k = 0; k < 3; k++) xp[k] -= t * BR->u[k], l += xp[k] * xp[k];
        l = sqrt(l);
        for (int k = 0; k < 3; k++) x[k] = BR->p[k] + t * BR->u[k] + BR->rb * xp[k] / l;
        if ((flags & 2) && F->wall >= 0) pb_wall_project_along(&bd->w[F->wall], x, BR->u); /* as pb_edge_point */
      }
      for (int k = 0; k < 3; k++) sum[k] += x[k];
    }
    for (int k = 0; k < 3; k++) X[1][1][k] = 0.5 * sum[k] - 0.25 * (C0[k] + C1[k] + C2[k] + C3[k]);
    if (F->wall >= 0) pb_wall_project(&bd->w[F->wall], X[1][1]);
  }
  for (int j = 0; j <= G; j++)
    for (int i = 0; i <= G; i++) {
      double a1 = (double)i / G, a2 = (double)j / G, d[3], l = 0;
      double e0[3], e1[3], e2[3], e3[3], b[3];
      for (int k = 0; k < 3; k++) {
        e0[k] = (1 - a1) * YC[0][k] + a1 * YC[1][k];
        e2[k] = (1 - a1) * YC[3][k] + a1 * YC[2][k];
        e3[k] = (1 - a2) * YC[0][k] + a2 * YC[3][k];
        e1[k] = (1 - a2) * YC[1][k] + a2 * YC[2][k];
      }
      double *ev[4] = {e0, e1, e2, e3};
      for (int q = 0; q < 4; q++) {
        double lq = 0;
        for (int k = 0; k < 3; k++) lq += (ev[q][k] - c[k]) * (ev[q][k] - c[k]);
        lq = sqrt(lq);
        for (int k = 0; k < 3; k++) ev[q][k] = c[k] + r * (ev[q][k] - c[k]) / lq;
      }
      for (int k = 0; k < 3; k++) {
        b[k] = (1 - a1) * (1 - a2) * YC[0][k] + a1 * (1 - a2) * YC[1][k] + a1 * a2 * YC[2][k] + (1 - a1) * a2 * YC[3][k];
        d[k] = (1 - a2) * e0[k] + a2 * e2[k] + (1 - a1) * e3[k] + a1 * e1[k] - b[k] - c[k];
        l += d[k] * d[k];
      }
      l = sqrt(l);
      for (int k = 0; k < 3; k++) Y[j][i][k] = c[k] + r * d[k] / l;
    }
  double sg[G + 1][G + 1][65]; /* the layer fractions of each sample point's column line */
  for (int j = 0; j <= G; j++)
    for (int i = 0; i <= G; i++) pb_column_grading(bd->plan, dist3(X[j][i], Y[j][i]), r, sg[j][i]);
  int32_t cn[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  for (int lay = 0; lay < L; lay++) {
    double dlo = INFINITY, dhi = 0; /* det J range over the element (its 2 x 2 parts' corners) */
    for (int j = 0; j < G; j++)
      for (int i = 0; i < G; i++) {
        for (int v = 0; v < 4; v++)
          for (int h = 0; h < 2; h++) {
            int ii = i + (v & 1), jj = j + (v >> 1);
            double t = sg[jj][ii][lay + h];
            for (int k = 0; k < 3; k++) P[3 * (v + 4 * h) + k] = Y[jj][ii][k] + t * (X[jj][ii][k] - Y[jj][ii][k]);
          }
        double q, lo, hi;
        pb_corner_quality(P, cn, &q, &lo, &hi);
        if (lo < dlo) dlo = lo;
        if (hi > dhi) dhi = hi;
        if (!(q > -1)) q = -1; /* NaN */
        if (q < worst) worst = q;
      }
    /* the Nek5000 scaled Jacobian (min / max det J) of the element */
    if ((flags & 1) && dlo > 0 && dlo / dhi < worst) worst = dlo / dhi;
    if (worst <= stop) return worst; /* cannot beat the best so far */
  }
  return worst;
}

/* worst corner scaled Jacobian (det / product of the three edge lengths) of every
   column of facet F's quads [q0, bd->nq) swept to each real sphere of the facet, in
   every layer (linear); <= 0: some column inverts; returns early (some value <= stop)
   once the worst is down to stop */
static double facet_columns_q(const builder *bd, const facet *F, hx_lid q0, double stop) {
  const hx_pebble_opts *o = bd->plan->o;
  double worst = 1;
  for (int side = 0; side < 2; side++) {
    if (bd->smask[side ? F->b : F->a]) break;
    for (hx_lid qi = q0; qi < bd->nq; qi++) {
      worst = pb_column_q(bd, F, qi, side, o->score_nek, worst, stop);
      if (worst < -1.5) return -1;
      if (worst <= stop) return worst;
    }
  }
  const wall *W = F->wall >= 0 ? &bd->w[F->wall] : NULL;
  if (o->score_nek && W && pb_extruded(o, W)) {
    /* a facet on an extruded plane: its quads are also the cross-sections of the straight
       inlet / outlet elements, whose Nek5000 scaled Jacobian is the quad's min / max corner
       det J (bilinear in the plane) */
    for (hx_lid qi = q0; qi < bd->nq; qi++) {
      double lo = INFINITY, hi = -INFINITY;
      for (int v = 0; v < 4; v++) {
        const double *x = bd->X + 3 * bd->Q[qi].x[v];
        double e1[3], e2[3], c[3];
        for (int k = 0; k < 3; k++)
          e1[k] = bd->X[3 * bd->Q[qi].x[(v + 1) % 4] + k] - x[k], e2[k] = bd->X[3 * bd->Q[qi].x[(v + 3) % 4] + k] - x[k];
        cross3(e1, e2, c);
        double det = dot3(c, W->n);
        lo = fmin(lo, det), hi = fmax(hi, det);
      }
      if (hi < 0) { /* the other orientation */
        double t = lo;
        lo = -hi, hi = -t;
      }
      double q = lo <= 0 ? -1 : lo / hi;
      if (q < worst) worst = q;
      if (worst <= stop) return worst;
    }
  }
  return worst;
}

/* the order-1 node of quad Qd's column at facet node x, level lv (0 the sphere's, L the facet
   node), in cell s (centre cs, radius rs), foot y, levels sv: a transition quad's inner node
   at levels 1 and 2 is pulled (pb_trans_pulled) */
static void column_node(const builder *bd, const quad *Qd, int wallk, int32_t s, int32_t x, const double *y, const double *sv,
                        int lv, double *out) {
  /* 9 parameters: the column (quad, its facet's wall, cell, node, its foot and levels) and the
     level's point */
  const double *X = bd->X + 3 * (size_t)x;
  int L = bd->plan->o->layers;
  if (Qd->lay == QL_TRANS && lv > 0 && lv < L && (x == Qd->x[2] || x == Qd->x[3])) {
    pb_trans_pulled(bd, bd->sx + 3 * s, bd->sr[s], s, x, x == Qd->x[2] ? Qd->x[1] : Qd->x[0], wallk, lv, out);
    return;
  }
  for (int c = 0; c < 3; c++) out[c] = lv == 0 ? y[c] : lv == L ? X[c] : y[c] + sv[lv] * (X[c] - y[c]);
}

/* quad qi's linear elements on side `side` of facet F (column_node) have positive corner
   Jacobians */
int pb_column_linear_ok(const builder *bd, const facet *F, hx_lid qi, int side) {
  const hx_pebble_opts *o = bd->plan->o;
  static const int q2l[4] = {0, 1, 3, 2}; /* quad corner -> hex corner (quad_to_lex) */
  static const int32_t cn[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  const quad *Qd = &bd->Q[qi];
  int L = o->layers;
  double P[24], X[4][3], Y[4][3];
  int32_t s = side ? F->b : F->a, xs[4];
  for (int v = 0; v < 4; v++) {
    xs[v] = Qd->x[side ? 3 - v : v];
    memcpy(X[v], bd->X + 3 * xs[v], sizeof X[v]);
    pb_foot_point(bd, bd->sx + 3 * s, bd->sr[s], s, bd->nbridge[xs[v]], X[v], Y[v]);
  }
  double sv[4][65];
  for (int v = 0; v < 4; v++) pb_column_grading(bd->plan, dist3(X[v], Y[v]), bd->sr[s], sv[v]);
  /* the column's elements: L layers; one (QL_ONE); L layers and the cap (QL_TRANS) */
  int nel = Qd->lay == QL_ONE ? 1 : Qd->lay == QL_TRANS ? L + 1 : L;
  for (int lay = 0; lay < nel; lay++) {
    if (lay == L) { /* the cap */
      for (int c = 0; c < 8; c++) {
        int32_t x;
        int lv;
        pb_cap_corner(Qd, side, c, &x, &lv);
        int v = 0;
        while (xs[v] != x) v++;
        column_node(bd, Qd, F->wall, s, x, Y[v], sv[v], lv, P + 3 * c);
      }
    } else
      for (int v = 0; v < 4; v++)
        for (int h = 0; h < 2; h++)
          column_node(bd, Qd, F->wall, s, xs[v], Y[v], sv[v], Qd->lay == QL_ONE ? h * L : lay + h, P + 3 * (q2l[v] + 4 * h));
    if (!(pb_min_corner_det(P, cn) > 0)) return 0;
  }
  return 1;
}

/* the linear columns of facet F's quads [q0, bd->nq) as the sweep builds them (feet
   radial, along the bridge axis on the circle; graded layers) have positive corner
   Jacobians to every real sphere of the facet */
static int facet_linear_ok(const builder *bd, const facet *F, hx_lid q0) {
  for (int side = 0; side < 2; side++) {
    if (bd->smask[side ? F->b : F->a]) break;
    for (hx_lid qi = q0; qi < bd->nq; qi++)
      if (!pb_column_linear_ok(bd, F, qi, side)) return 0;
  }
  return 1;
}

/* --contact-layers one on facet F's quads [q0, bd->nq): the nt quads from qt on are the
   transition ring, the no after them the one-layer quads inside it; kept swept where a linear
   element of theirs (either side) would fold */
static void trans_mark_facet(builder *bd, const facet *F, hx_lid q0, hx_lid qt, int nt, int no) {
  for (hx_lid k = 0; k < nt + no; k++) bd->Q[qt + k].lay = k < nt ? QL_TRANS : QL_ONE;
  if (facet_linear_ok(bd, F, q0)) return;
  for (hx_lid k = 0; k < nt + no; k++) bd->Q[qt + k].lay = QL_SWEPT;
}

/* one ring of M quads between the loops outer and In (quad k: outer k, k+1, In k+1, k);
   bmask: the outer loop's boundary edge masks when it is the facet boundary, else NULL */
static int ring_quads(builder *bd, const int32_t *outer, const int32_t *In, int M, uint8_t chamfer, int kind,
                      const uint8_t *bmask) {
  HX_CALL(pb_grow(&bd->Q, &bd->capq, bd->nq + M, sizeof *bd->Q));
  for (int k = 0; k < M; k++) {
    quad *q = &bd->Q[bd->nq++];
    q->x[0] = outer[k];
    q->x[1] = outer[(k + 1) % M];
    q->x[2] = In[(k + 1) % M];
    q->x[3] = In[k];
    q->chamfer = chamfer;
    q->kind = kind;
    q->lay = QL_SWEPT;
    memset(q->emask, 0, 4);
    if (bmask) q->emask[0] = bmask[k];
  }
  return HX_OK;
}

/* is the polygon P (M points, CCW) star-shaped from (ox, oy), every edge seen from its left? */
static int star_from(const double *P, int M, double ox, double oy) {
  for (int k = 0; k < M; k++) {
    const double *A = P + 2 * k, *B = P + 2 * ((k + 1) % M);
    if ((A[0] - ox) * (B[1] - oy) - (A[1] - oy) * (B[0] - ox) <= 0) return 0;
  }
  return 1;
}

/* the centroid of the kernel of the CCW polygon P (the points that see all of it): the
   polygon clipped by the left half-plane of every edge, each pulled in by 1e-9 of the
   polygon's size; 0 if that is empty */
static int poly_kernel_centre(const double *P, int M, double *kx, double *ky) {
  enum { CAP = 4 * MAXPOLY + 8 };
  double A[2 * CAP], B[2 * CAP], ext = 0;
  int n = M;
  if (M > 2 * MAXPOLY) return 0;
  for (int k = 0; k < M; k++) ext = fmax(ext, fabs(P[2 * k]) + fabs(P[2 * k + 1]));
  memcpy(A, P, (size_t)2 * M * sizeof *P);
  for (int e = 0; e < M && n >= 3; e++) {
    const double *p0 = P + 2 * e, *p1 = P + 2 * ((e + 1) % M);
    double dx = p1[0] - p0[0], dy = p1[1] - p0[1], l = hypot(dx, dy);
    if (!(l > 0)) continue;
    int m = 0;
    for (int k = 0; k < n && m < CAP - 1; k++) {
      const double *u = A + 2 * k, *v = A + 2 * ((k + 1) % n);
      double su = (dx * (u[1] - p0[1]) - dy * (u[0] - p0[0])) / l - 1e-9 * ext;
      double sv = (dx * (v[1] - p0[1]) - dy * (v[0] - p0[0])) / l - 1e-9 * ext;
      if (su >= 0) B[2 * m] = u[0], B[2 * m + 1] = u[1], m++;
      if ((su >= 0) != (sv >= 0)) {
        double t = su / (su - sv);
        B[2 * m] = u[0] + t * (v[0] - u[0]), B[2 * m + 1] = u[1] + t * (v[1] - u[1]), m++;
      }
    }
    n = m;
    memcpy(A, B, (size_t)2 * m * sizeof *B);
  }
  if (n < 3) return 0;
  double cx = 0, cy = 0, area = 0;
  for (int k = 0; k < n; k++) {
    const double *u = A + 2 * k, *v = A + 2 * ((k + 1) % n);
    double cr = u[0] * v[1] - v[0] * u[1];
    area += cr, cx += (u[0] + v[0]) * cr, cy += (u[1] + v[1]) * cr;
  }
  if (!(fabs(area) > 0)) return 0;
  *kx = cx / (3 * area), *ky = cy / (3 * area);
  return 1;
}

/* --aspect: the longest element edge allowed at distance rho from the pierce point p of the
   facet between spheres a and b: ASPECT_MARGIN x A x the thinnest layer of the columns there
   (height |x - c| - R to each sphere, x in the facet's plane) */
static double aspect_step(const builder *bd, int32_t a, int32_t b, const double *p, double rho) {
  const hx_pebble_opts *o = bd->plan->o;
  double t = INFINITY;
  for (int side = 0; side < 2; side++) {
    int32_t s = side ? b : a;
    if (bd->smask[s]) break;
    double da = dist3(bd->sx + 3 * s, p);
    t = fmin(t, thinnest_layer(bd->plan, fmax(sqrt(da * da + rho * rho) - bd->sr[s], 0), bd->sr[s]));
  }
  return ASPECT_MARGIN * o->aspect * t;
}

/* --aspect: the largest estimated aspect ratio of the elements swept from facet F's quads
   [q0, bd->nq): of each layer's element of each column, straight from the feet (as the sweep
   places them) to the quad's corners, the longest over the shortest of its twelve edges.
   An earlier version took the quad's edges on the facet and the column's
   layers only: it missed the quad shrunk on the sphere under a long column (pb67: a wall
   triangle 4 R from its sphere, estimated 15, had elements of 42) */
double pb_quad_aspect_est(const builder *bd, const facet *F, hx_lid qi) {
  const hx_pebble_opts *o = bd->plan->o;
  int L = o->layers;
  const quad *Q = &bd->Q[qi];
  double lo = INFINITY, hi = 0; /* the quad's own edges (a wall facet's, on the wall) */
  for (int v = 0; v < 4; v++) {
    double l = dist3(bd->X + 3 * Q->x[v], bd->X + 3 * Q->x[(v + 1) % 4]);
    if (l > hi) hi = l; /* a NaN skipped, as fmin / fmax do */
    if (l < lo) lo = l;
  }
  double worst = hi / fmax(lo, 1e-300);
  /* --contact-layers one: a one-layer column's element spans its levels 0 and L; a transition
     column's inner corners (2, 3) take the pulled nodes at levels 1 and 2 (about where
     pb_trans_node puts them, on the straight radial edge), and its cap is estimated too */
  int one = Q->lay == QL_ONE, tr = Q->lay == QL_TRANS;
  for (int side = 0; side < 2; side++) {
    int32_t s = side ? F->b : F->a;
    if (bd->smask[s]) break;
    /* each layer's element: its corners where the layer levels cut the straight
       lines from the feet on the sphere to the quad's corners (a facet far from its
       sphere shrinks there by about R / distance under columns as long as near it) */
    const double *cs = bd->sx + 3 * s;
    double rs = bd->sr[s], y[4][3], lev[65][4][3];
    for (int v = 0; v < 4; v++) pb_foot_point(bd, cs, rs, s, bd->nbridge[Q->x[v]], bd->X + 3 * Q->x[v], y[v]);
    for (int v = 0; v < 4; v++) {
      const double *x = bd->X + 3 * Q->x[v];
      double fr[65];
      pb_column_grading(bd->plan, dist3(x, y[v]), rs, fr);
      for (int k = 0; k <= L; k++)
        for (int c = 0; c < 3; c++) lev[k][v][c] = y[v][c] + fr[k] * (x[c] - y[v][c]);
      if (tr && v >= 2) { /* inner corner v, its radial edge to corner 3 - v */
        const double *z = bd->X + 3 * Q->x[3 - v];
        double al = fmin(fmax(TRANS_ALPHA * dist3(x, y[v]) / dist3(x, z), 0.05), 0.45), Qp[3], r[3], Yp[3];
        for (int c = 0; c < 3; c++) Qp[c] = (1 - al) * x[c] + al * z[c], r[c] = (1 - al) * y[v][c] + al * y[3 - v][c] - cs[c];
        double l = norm3(r);
        for (int c = 0; c < 3; c++) Yp[c] = cs[c] + rs * r[c] / l;
        for (int k = 1; k < L; k++)
          for (int c = 0; c < 3; c++) lev[k][v][c] = Yp[c] + (k == 1 ? TRANS_BETA : 1 - TRANS_BETA) * (Qp[c] - Yp[c]);
      }
    }
    /* the elements: (corners, bottom level, top level) */
    int nel = one ? 1 : tr ? L + 1 : L;
    for (int k = 0; k < nel; k++) {
      double elo = INFINITY, ehi = 0;
      if (k == L) { /* the cap: the inner corners' levels 0..3 */
        for (int v = 2; v < 4; v++)
          for (int a = 0; a <= L; a++) {
            double l = a < L ? dist3(lev[a][v], lev[a + 1][v]) : dist3(lev[0][v], lev[L][v]);
            elo = fmin(elo, l), ehi = fmax(ehi, l);
            l = dist3(lev[a][2], lev[a][3]);
            elo = fmin(elo, l), ehi = fmax(ehi, l);
          }
      } else {
        int kb = one ? 0 : k, kt = one ? L : k + 1;
        for (int t = 0; t < 2; t++)
          for (int v = 0; v < 4; v++) {
            double l = dist3(lev[t ? kt : kb][v], lev[t ? kt : kb][(v + 1) % 4]);
            if (l < elo) elo = l;
            if (l > ehi) ehi = l;
          }
        for (int v = 0; v < 4; v++) {
          double l = dist3(lev[kt][v], lev[kb][v]);
          if (l < elo) elo = l;
          if (l > ehi) ehi = l;
        }
      }
      worst = fmax(worst, ehi / fmax(elo, 1e-300));
    }
  }
  return worst;
}

static double facet_aspect_est(const builder *bd, const facet *F, hx_lid q0) {
  double worst = 0;
  for (hx_lid qi = q0; qi < bd->nq; qi++) worst = fmax(worst, pb_quad_aspect_est(bd, F, qi));
  return worst;
}

/* a tessellation variant's score: its columns' quality (facet_columns_q); with --aspect A,
   evaluated whole and times min(1, ASPECT_EST_MARGIN A / its estimated largest aspect ratio)^4 (a variant 10 %
   over the limit keeps 0.68 of its score: pb67 at N = 3 had 156 elements above 20 on bridge
   circles with the first power, 106 with the fourth, and fewer below 0.3 too) */
static double variant_score(const builder *bd, const facet *F, hx_lid q0, double stop, int *asp_ok) {
  const hx_pebble_opts *o = bd->plan->o;
  *asp_ok = 1;
  if (!(o->aspect > 0)) return facet_columns_q(bd, F, q0, stop);
  double a = facet_aspect_est(bd, F, q0), lim = ASPECT_EST_MARGIN * o->aspect;
  *asp_ok = a <= lim;
  double pen = *asp_ok ? 1 : pow(lim / a, 4);
  /* the columns' evaluation may stop once q x pen cannot beat stop */
  double q = facet_columns_q(bd, F, q0, stop / pen);
  return q > 0 ? q * pen : q;
}

/* --aspect: the thinnest layer of the columns on a bridge circle of radius rb about the axis
   (p, u) of the facet between spheres a and b (feet along the axis, as the sweep places them) */
static double circle_layer(const builder *bd, int32_t a, int32_t b, const double *p, const double *u, double rb) {
  double t = INFINITY;
  for (int side = 0; side < 2; side++) {
    int32_t s = side ? b : a;
    if (bd->smask[s]) break;
    double r[3];
    for (int c = 0; c < 3; c++) r[c] = p[c] - bd->sx[3 * s + c];
    double h = fabs(dot3(r, u)) - sqrt(fmax(0, bd->sr[s] * bd->sr[s] - rb * rb));
    /* --contact-layers one: the columns on the circle are one layer */
    t = fmin(t, bd->plan->o->contact_layers && bd->plan->o->layers == 3 ? fmax(h, 0)
                                                                        : thinnest_layer(bd->plan, fmax(h, 0), bd->sr[s]));
  }
  return t;
}

/* --aspect: the segments a loop about a contact needs so that the elements from its radius r out
   to 1.6 r stay below the longest edge allowed, lmax (0 where one is enough) */
static int loop_segments(double lmax, double r) {
  double arg = lmax / (2 * 1.6 * r);
  return arg >= 1 ? 0 : (int)ceil(HX_PI / asin(arg) - 1e-9);
}

/* a near contact: the facet between real spheres a and b whose gap is below --ring-gap x d;
   with --aspect also a sphere's facet on one wall (against its own mirror) whose gap to that
   wall is below --ring-gap x d (its thin columns are sized alike) */
static int near_contact(const builder *bd, int32_t a, int32_t b) {
  const hx_pebble_opts *o = bd->plan->o;
  if (!bd->smask[b]) return pb_pair_gap(bd, a, b) < o->ring_gap * 2 * fmin(bd->sr[a], bd->sr[b]);
  int k = o->aspect > 0 ? pb_own_wall(bd, a, b) : -1;
  return k >= 0 && pb_wall_dist(&bd->w[k], bd->sx + 3 * a) - bd->sr[a] < o->ring_gap * 2 * bd->sr[a];
}

/* the number of segments of the diagram edge (u, v): 2 (its midpoint), more where --aspect cut it */
static int edge_segments(const builder *bd, int32_t u, int32_t v) {
  if (!bd->nskey) return 2;
  int64_t key = u < v ? ((int64_t)u << 32) | (uint32_t)v : ((int64_t)v << 32) | (uint32_t)u;
  hx_lid lo = 0, hi = bd->nskey;
  while (lo < hi) {
    hx_lid mid = (lo + hi) / 2;
    if (bd->skey[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo < bd->nskey && bd->skey[lo] == key ? bd->sseg[lo] : 2;
}

/* does a cylinder facet (nodes B[0..M)) reach more than 60 degrees round the wall from the
   radial direction u, where its projection onto the tangent plane at u starts to crowd (and
   folds at 90)? */
static int wraps(const wall *W, const double u[3], const double *X, const int32_t *B, int M) {
  for (int k = 0; k < M; k++) {
    double rx = X[3 * B[k]] - W->p[0], ry = X[3 * B[k] + 1] - W->p[1];
    if (rx * u[0] + ry * u[1] < 0.5 * hypot(rx, ry) * hypot(u[0], u[1])) return 1;
  }
  return 0;
}

/* a facet's 2D frame: the plane through p spanned by e1, e2 (normal u), points mapped back
   along u onto the facet's wall W; or, unrolled, the cylinder W with x = R (theta - th0) and
   y = z - p_z */
typedef struct chart {
  double p[3], u[3], e1[3], e2[3];
  const wall *W;
  int unrolled;
  double th0;
} chart;

static void chart_point(const chart *ch, double x2, double y2, double x[3]) {
  if (ch->unrolled) {
    pb_cyl_at(ch->W, ch->th0 + x2 / ch->W->R, x);
    x[2] = ch->p[2] + y2;
    return;
  }
  for (int c = 0; c < 3; c++) x[c] = ch->p[c] + x2 * ch->e1[c] + y2 * ch->e2[c];
  if (ch->W) pb_wall_project_along(ch->W, x, ch->u);
}

/* the point at angle ang of the bridge circle (radius rb about the chart's axis): on the
   bridge's cylinder, as pb_edge_point places it. The unrolled chart's lengths are arcs of the
   wall, which would put the circle's nodes off the bridge's side by up to rb^3 / (6 R^2); its
   axes there are the wall's tangent at th0 and z. */
static void chart_circle_point(const chart *ch, double rb, double ang, double x[3]) {
  if (!ch->unrolled) {
    chart_point(ch, rb * cos(ang), rb * sin(ang), x);
    return;
  }
  const double t1[3] = {-sin(ch->th0), cos(ch->th0), 0}, t2[3] = {0, 0, 1};
  for (int c = 0; c < 3; c++) x[c] = ch->p[c] + rb * (cos(ang) * t1[c] + sin(ang) * t2[c]);
  pb_wall_project_along(ch->W, x, ch->u);
}

/* a facet being tessellated (pb_tessellate and its steps) */
typedef struct tess {
  hx_lid f;
  facet *F;
  int32_t a, b;               /* its sites */
  int M;                      /* nodes of the boundary loop */
  int32_t Bn[2 * MAXPOLY];    /* the boundary loop */
  uint8_t bmask[2 * MAXPOLY]; /* the wall mask of its segment (Bn[k], Bn[k + 1]) */
  double P2[4 * MAXPOLY];     /* [M][2] the loop in the chart */
  double p[3], u[3];          /* the pierce point of the power plane (or the wall point), the axis */
  double L, tpar;             /* |a b|, and p = a + tpar (b - a) */
  double dmin;                /* the smaller diameter */
  const wall *W;              /* the facet's wall, or NULL */
  chart ch;
  int pre;                                  /* the variant chosen before (the scoring ranks, a repair round), or -1 */
  int kept;                                 /* the variant built */
  double fq;                                /* the kept variant's score, where variants were scored */
  int32_t In[2 * MAXPOLY], Rn[2 * MAXPOLY]; /* scratch: a ring's nodes, the ring outside it */
} tess;

/* a bridge's radius: at least the overlap circle's (rb_min), fitted to the facet (rb_fit), the
   facet's room about the pierce point (inner) */
typedef struct bridge_radii {
  double rb_min, rb_fit, inner;
} bridge_radii;

/* one variant's rings about a bridge circle (bridge_rings) */
typedef struct bring {
  double rb, hc, sq0, da, fb; /* circle radius; RING_F's column at the circle, sqrt(da^2 + rb^2), da, RING_F(rb) */
  double ablend, apow;        /* the node angles blended towards uniform by ablend (1 - fr)^apow */
  int KV, fgeo;               /* rings outside the circle's; radii geometric in RING_F (else in rho) */
  const double *thb, *thu;    /* [M] the boundary's angles and uniform ones */
} bring;

/* a fan's centre in the chart and its room (the distance to the loop) */
typedef struct fan_centre_at {
  double ox, oy, inner_d;
} fan_centre_at;

/* RING_F(rho) = rho h(rho): the det J of a ring element about a bridge grows like its width rho
   times its column height h(rho) = hc + sqrt(da^2 + rho^2) - sqrt(da^2 + rb^2) (tessellate_bridge) */
#define RING_F(rho_) ((rho_) * (hc + sqrt(da * da + (rho_) * (rho_)) - sq0))

/* a facet's boundary loop (pb_tessellate): v0 m0 v1 m1 ... (an edge cut into m segments: v0, its
   m - 1 nodes, v1), the nodes on an edge made by the first facet about it (em: by the edge) */
static int boundary_loop(builder *bd, emap *em, tess *t) {
  const facet *F = t->F;
  int n = F->nv, M = 0, rc = HX_OK;
  int32_t *Bn = t->Bn;
  uint8_t *bmask = t->bmask;
  /* boundary loop: v0 m0 v1 m1 ... (an edge cut into m segments: v0, its m - 1 nodes, v1);
     bmask: the mask of the boundary segment (Bn[k], Bn[k+1]) */
  for (int k = 0; k < n && !rc; k++) {
    int32_t u = bd->fv[F->v0 + k], v = bd->fv[F->v0 + (k + 1) % n];
    hx_lid s = pb_emap_slot(em, u, v);
    int m = edge_segments(bd, u, v);
    if (M + m + 2 * (n - k - 1) > 2 * MAXPOLY) m = 2;
    int32_t lo = u < v ? u : v, hi = u < v ? v : u;
    /* on the cylinder along its longer arc (pb_cyl_arc): evenly in angle */
    double dth = 0;
    const wall *Wl = NULL; /* the cylinder when the edge takes its longer arc */
    for (int k2 = 0; k2 < bd->nw && em->mid[s] < 0; k2++)
      if ((em->mask[s] >> k2 & 1) && bd->w[k2].cyl && pb_cyl_arc(bd, &bd->w[k2], F->a, bd->X + 3 * lo, bd->X + 3 * hi, &dth))
        Wl = &bd->w[k2];
    if (em->mid[s] < 0) /* the edge's m - 1 nodes, evenly from the lower id */
      for (int t = 1; t < m && !rc; t++) {
        double x[3], w = (double)t / m;
        int32_t id;
        for (int c = 0; c < 3; c++) x[c] = (1 - w) * bd->X[3 * lo + c] + w * bd->X[3 * hi + c];
        if (Wl) pb_cyl_at(Wl, pb_cyl_angle(Wl, bd->X + 3 * lo) + w * dth, x);
        pb_snap(bd, em->mask[s], x);
        rc = pb_add_node(bd, x, em->mask[s], -1, &id);
        if (t == 1) em->mid[s] = id;
      }
    if (rc) break;
    for (int t = 0; t < m; t++) {
      bmask[M] = em->mask[s];
      Bn[M++] = t == 0 ? u : em->mid[s] + (u == lo ? t - 1 : m - 1 - t);
    }
  }
  t->M = M;
  return rc;
}

/* a facet's frame (pb_tessellate): the axis a -> b and the pierce point of the power plane (a
   wall facet of another sphere's mirror: the wall's normal at the loop's centroid), the chart
   (the plane, or the cylinder unrolled) and the loop in it */
static void facet_frame(const builder *bd, tess *t) {
  const facet *F = t->F;
  int32_t a = t->a, b = t->b;
  int M = t->M;
  const int32_t *Bn = t->Bn;
  double *P2 = t->P2;
  /* frame: axis a -> b, pierce point p of the power plane */
  double d[3], *u = t->u, L2 = 0;
  for (int c = 0; c < 3; c++) d[c] = bd->sx[3 * b + c] - bd->sx[3 * a + c], L2 += d[c] * d[c];
  double L = sqrt(L2);
  for (int c = 0; c < 3; c++) u[c] = d[c] / L;
  double tpar = (L2 + bd->sr[a] * bd->sr[a] - bd->sr[b] * bd->sr[b]) / (2 * L2);
  double *p = t->p;
  for (int c = 0; c < 3; c++) p[c] = bd->sx[3 * a + c] + tpar * d[c];
  const wall *Wf = F->wall >= 0 ? &bd->w[F->wall] : NULL;
  if (Wf && !(bd->sparent[b] == a && bd->smask[b] == (1u << F->wall))) {
    /* a wall facet of another sphere's mirror: frame from the wall at the
       polygon's centroid (the bisector plane is oblique to the wall) */
    double cen[3] = {0, 0, 0};
    for (int k = 0; k < M; k++)
      for (int c = 0; c < 3; c++) cen[c] += bd->X[3 * Bn[k] + c] / M;
    pb_wall_project(Wf, cen);
    memcpy(p, cen, sizeof cen);
    if (Wf->cyl) {
      double rx = cen[0] - Wf->p[0], ry = cen[1] - Wf->p[1], rr = hypot(rx, ry);
      u[0] = rx / rr, u[1] = ry / rr, u[2] = 0;
    } else {
      memcpy(u, Wf->n, sizeof Wf->n);
    }
  }
  double e1[3], e2[3], tmp[3] = {1, 0, 0};
  if (fabs(u[0]) > 0.6) tmp[0] = 0, tmp[1] = 1;
  cross3(u, tmp, e1);
  double l1 = norm3(e1);
  for (int c = 0; c < 3; c++) e1[c] /= l1;
  cross3(u, e1, e2);
  const wall *W = F->wall >= 0 ? &bd->w[F->wall] : NULL;
  t->W = W;
  chart ch = {.W = W};
  memcpy(ch.p, p, 3 * sizeof *p), memcpy(ch.u, u, 3 * sizeof *u), memcpy(ch.e1, e1, sizeof e1), memcpy(ch.e2, e2, sizeof e2);
  /* a cylinder facet reaching far round the wall from u (the top of a thin column, whose
     cell covers a wide arc, even all but a sliver of the circumference): the plane would
     crowd or fold it, so it is unrolled */
  if (W && W->cyl && wraps(W, u, bd->X, Bn, M)) ch.unrolled = 1, ch.th0 = atan2(u[1], u[0]);
  double thp = 0; /* unrolled: the angle from th0 of the node before, continued along the loop */
  for (int k = 0; k < M; k++) {
    const double *x = bd->X + 3 * Bn[k];
    if (ch.unrolled) {
      double th = pb_cyl_angle(W, x) - ch.th0;
      th -= 2 * HX_PI * round((th - thp) / (2 * HX_PI));
      P2[2 * k] = W->R * th, P2[2 * k + 1] = x[2] - p[2];
      thp = th;
      continue;
    }
    double r[3];
    for (int c = 0; c < 3; c++) r[c] = x[c] - p[c];
    P2[2 * k] = dot3(r, e1);
    P2[2 * k + 1] = dot3(r, e2);
  }
  t->ch = ch;
  t->L = L, t->tpar = tpar;
}

/* the bridge of a contact facet (pb_tessellate): its radius (the requested fraction of d, at
   least the overlap circle's, fitted to the facet's room: r) and its record in bd->B */
static int make_bridge(builder *bd, tess *t, double gap, hx_pebble_stats *st, bridge_radii *r) {
  int rc = HX_OK;
  const hx_pebble_opts *o = bd->plan->o;
  facet *F = t->F;
  int32_t a = t->a;
  int32_t b = t->b;
  int M = t->M;
  const double *P2 = t->P2;
  const double *p = t->p;
  const double *u = t->u;
  const wall *W = t->W;
  double dmin = t->dmin;
  double L = t->L;
  double tpar = t->tpar;
  if (W && pb_extruded(o, W)) {
    char name[1200];
    rc = HX_ERROR(HX_ERR_INPUT,
                  "%s touches the %s plane z = %g (gap %.3g), which is extruded: expected a gap of at least --wall-gap "
                  "%g x d there (move the plane with --bottom/--top, drop the extrusion, or --contact gap)",
                  pb_sphere_name(bd, a, name, sizeof name), W->kind == 1 ? "bottom" : "top", W->p[2], gap, o->wall_gap);
    return rc;
  }
  /* bridge radius: requested fraction of d, or above the overlap circle so that
     the bridge is at least as long as a touching contact's */
  double rb0 = o->bridge_frac * dmin, rb = rb0;
  for (int side = 0; side < 2; side++) {
    int32_t s = side ? b : a;
    if (side && bd->smask[b]) break;
    double rs = bd->sr[s], hs = side ? (1 - tpar) * L : tpar * L;
    double lmin = rs - sqrt(fmax(0, rs * rs - rb0 * rb0));
    double need = rs * rs - (hs - lmin) * (hs - lmin);
    if (need > rb * rb) rb = sqrt(need);
  }
  double inner = pb_poly_inner_dist(P2, M, 0, 0), rb_min = rb;
  r->inner = inner, r->rb_min = rb_min;
  if (o->bridge_fit > 0) { /* a taller innermost ring: the column height at the circle grows like rb^2 */
    double want = fmin(o->bridge_fit * inner, 0.25 * dmin);
    if (want > rb) rb = want;
  }
  double rb_fit = rb;
  r->rb_fit = rb_fit;
  if (inner < 1.2 * rb) {
    char name[1200], other[200];
    if (bd->smask[b]) snprintf(other, sizeof other, "the container wall");
    else {
      const double *y = bd->plan->bed->xyz + 3 * (size_t)bd->sparent[b];
      snprintf(other, sizeof other, "sphere %d (%g, %g, %g)", (int)bd->sparent[b] + 1, y[0], y[1], y[2]);
    }
    rc = HX_ERROR(HX_ERR_INPUT,
                  "%s and %s (gap %.3g d): their bridge (radius %.3g) does not fit their facet (room %.3g): expected room "
                  "of 1.2 x the bridge radius (too dense a bed there: the contact is too close to other spheres or the "
                  "wall; --bridge, --bridge-fit, or --contact gap)",
                  pb_sphere_name(bd, a, name, sizeof name), other, gap / dmin, rb, inner);
    return rc;
  }
  if ((rc = pb_grow(&bd->B, &bd->capb, bd->nb + 1, sizeof *bd->B))) return rc;
  bridge *BR = &bd->B[bd->nb];
  memcpy(BR->p, p, 3 * sizeof *p);
  memcpy(BR->u, u, 3 * sizeof *u);
  BR->rb = rb;
  BR->a = a;
  BR->b = bd->smask[b] ? -1 : b;
  BR->surf = -1;
  F->bridge = (int)bd->nb;
  bd->nb++;
  if (bd->smask[b]) st->num_wall_bridges++;
  else st->num_bridges++;
  if (!bd->smask[b] && gap < 0) st->num_overlaps++;
  return HX_OK;
}

/* one variant's rings about the bridge circle (tessellate_bridge): KV + 1 rings of quads from
   the boundary loop in to the circle, by g */
static int bridge_rings(builder *bd, tess *t, const bring *g) {
  int rc = HX_OK;
  double rb = g->rb, hc = g->hc, sq0 = g->sq0, da = g->da, fb = g->fb, ablend = g->ablend, apow = g->apow;
  int KV = g->KV, fgeo = g->fgeo;
  const double *thb = g->thb, *thu = g->thu;
  double rprev[2 * MAXPOLY]; /* radii of the ring outside the one being placed */
  int32_t *outer = t->Bn;
  uint8_t outer_is_boundary = 1;
  const hx_pebble_opts *o = bd->plan->o;
  facet *F = t->F;
  int32_t a = t->a;
  int32_t b = t->b;
  int M = t->M;
  int32_t *In = t->In;
  int32_t *Rn = t->Rn;
  const uint8_t *bmask = t->bmask;
  const double *P2 = t->P2;
  const double *p = t->p;
  const double *u = t->u;
  const wall *W = t->W;
  const chart ch = t->ch;
  for (int ring = KV; ring >= 0 && !rc; ring--) {
    double fr = (double)ring / (KV + 1), wa = ablend * pow(1 - fr, apow);
    double rr2[2 * MAXPOLY], an2[2 * MAXPOLY];
    if (ring == KV)
      for (int k = 0; k < M; k++) rprev[k] = hypot(P2[2 * k], P2[2 * k + 1]);
    for (int k = 0; k < M; k++) {
      double rho = hypot(P2[2 * k], P2[2 * k + 1]), ang = thb[k] + wa * (thu[k] - thb[k]);
      double rr = rb * pow(rho / rb, fr);
      if (fgeo && ring > 0 && rho > rb) { /* f(rr) = fb^(1-fr) f(rho)^fr */
        double ft = fb * pow(RING_F(rho) / fb, fr), lo = rb, hi = rho;
        for (int it = 0; it < 60; it++) {
          double mid = 0.5 * (lo + hi);
          if (RING_F(mid) < ft) lo = mid;
          else hi = mid;
        }
        rr = 0.5 * (lo + hi);
      }
      rr2[k] = rr, an2[k] = ang;
    }
    if (ring == 1 && o->aspect > 0 && KV > 0) {
      /* --aspect: the ring next to the circle no farther out than the limit at the
         circle's columns allows (its steps and its segments), unless the clearance
         below needs it */
      double s0 = ASPECT_MARGIN * o->aspect * circle_layer(bd, a, b, p, u, rb), rcap = fmin(rb + s0, s0 / (2 * sin(HX_PI / M)));
      for (int k = 0; k < M; k++)
        if (rr2[k] > rcap) rr2[k] = fmax(rcap, rb + 0.3 * (rr2[k] - rb));
    }
    if (ring == 1 && o->ring_sj > 0) {
      /* the ring next to the circle: its chords must clear the circle's arcs (which
         bulge out by rb (1 - cos(dtheta / 2))) with a margin, or the elements between
         fold at the chord's middle once curved */
      for (int pass = 0; pass < 3; pass++)
        for (int k = 0; k < M; k++) {
          int k1 = (k + 1) % M;
          double ax = rr2[k] * cos(an2[k]), ay = rr2[k] * sin(an2[k]);
          double bx = rr2[k1] * cos(an2[k1]), by = rr2[k1] * sin(an2[k1]);
          double dc = fabs(ax * by - ay * bx) / (hypot(bx - ax, by - ay) + 1e-300);
          if (dc < 1.25 * rb) {
            double sc = 1.25 * rb / dc;
            for (int t = 0; t < 2; t++) {
              int kk = t ? k1 : k;
              double lim =
                  fmin(0.5 * (rb + hypot(P2[2 * kk], P2[2 * kk + 1])), rb + 0.85 * (rprev[kk] - rb)); /* inside the next ring */
              rr2[kk] = fmin(rr2[kk] * sc, fmax(rr2[kk], lim));
            }
          }
        }
    }
    memcpy(rprev, rr2, (size_t)M * sizeof *rr2);
    for (int k = 0; k < M && !rc; k++) {
      double x[3];
      if (ring == 0) chart_circle_point(&ch, rr2[k], an2[k], x);
      else chart_point(&ch, rr2[k] * cos(an2[k]), rr2[k] * sin(an2[k]), x);
      rc = pb_add_node(bd, x, W ? (uint8_t)(1u << F->wall) : 0, ring == 0 ? F->bridge : -1, &In[k]);
    }
    if (rc) break;
    /* quads between outer and In */
    /* edge 2 = (x2, x3) of the innermost ring lies on the circle */
    if ((rc = ring_quads(bd, outer, In, M, ring == 0 ? 4 : 0, ring == 0 ? QK_BRIDGE_IN : QK_BRIDGE_OUT,
                         outer_is_boundary ? bmask : NULL)))
      break;
    memcpy(Rn, In, (size_t)M * sizeof *In);
    outer = Rn;
    outer_is_boundary = 0;
  }
  /* --contact-layers one: the ring on the circle one layer, the next the transition, where
     their linear elements are sound (else swept) */
  if (!rc && o->contact_layers && o->layers == 3 && KV >= 1)
    trans_mark_facet(bd, F, bd->nq - (KV + 1) * (hx_lid)M, bd->nq - 2 * (hx_lid)M, M, M);
  return rc;
}

/* a contact facet (pb_tessellate): its bridge, then rings of quads from the boundary loop in to
   the bridge circle; the variants (angle blend, rings, bridge radius) scored, the first
   reaching --accept-sj kept, else the best */
static int tessellate_bridge(builder *bd, tess *t, double gap, hx_pebble_stats *st) {
  bridge_radii r = {0, 0, 0};
  int rc = make_bridge(bd, t, gap, st, &r);
  if (rc) return rc;
  double inner = r.inner, rb_min = r.rb_min, rb_fit = r.rb_fit, rb = rb_fit;
  const hx_pebble_opts *o = bd->plan->o;
  facet *F = t->F;
  int32_t a = t->a;
  int M = t->M;
  const double *P2 = t->P2;
  const double *p = t->p;
  double dmin = t->dmin;
  int pre = t->pre;
  /* rings between the circle and each boundary node. With --ring-sj S: the det J of
     a ring element varies like rho h(rho) (tangential width times column height
     h(rho) = h_c + sqrt(da^2 + rho^2) - sqrt(da^2 + rb^2), h_c the column on the
     circle, da the centre-facet distance), so the ring radii are geometric in
     f = rho h and as many rings as keep f within a factor 1/S from one ring to the
     next; else radii geometric in rho and --rings rings. */
  double da = dist3(bd->sx + 3 * a, p), Ra = bd->sr[a];
  /* node angles: the boundary's at the polygon, blended inwards towards uniform
     spacing on the circle (weight a (1 - fr)^pw at ring fraction fr), so that the
     inner rings' chords stay clear of the circle's arcs and are not skewed by uneven
     boundary spacing. Variants (blend, power, one more ring) are scored like the fan
     variants; the first reaching --accept-sj is kept, else the best. */
  double thb[2 * MAXPOLY], thu[2 * MAXPOLY];
  {
    double mean = 0;
    for (int k = 0; k < M; k++) {
      double t = atan2(P2[2 * k + 1], P2[2 * k]);
      if (k) {
        while (t <= thb[k - 1]) t += 2 * HX_PI;
        while (t > thb[k - 1] + 2 * HX_PI) t -= 2 * HX_PI;
      }
      thb[k] = t;
      mean += t - thb[0] - 2 * HX_PI * k / M;
    }
    mean /= M;
    for (int k = 0; k < M; k++) thu[k] = thb[0] + mean + 2 * HX_PI * k / M;
  }
  /* {angle blend, its power, extra rings, radius (0 --bridge, 1 fitted, above 1 that much wider), radii by f (else by rho)}:
     the six main ones; then, with --aspect, seven with one or two more rings, tried only where
     no main variant passes the aspect estimate (a DEM overlap whose facet boundary is uneven
     seen from the contact: pb67's spheres 56 and 62, estimate 23.1 -> 20.0, no element above
     20 as meshed with --aspect 18), and five with the bridge 1.2 or 1.4 times as wide (at most
     0.6 of the facet's room about the contact): the columns on the circle grow like rb^2
     (pb67's default container, the overlap of spheres 49 and 62 with
     columns 0.03 high on its circle, above 20 as meshed 14 -> 0, and about 8 % fewer elements in
     all, the wider circle needing fewer rings); the last ones are fall-backs: the requested
     radius, then the old rule */
  static const double bvar[][5] = {
      {1, 1, 0, 1, 1}, {1, 2, 0, 1, 1},   {0.5, 1, 0, 1, 1},   {0, 1, 0, 1, 1},   {1, 2, 1, 1, 1},   {0.5, 2, 1, 1, 1},
      {1, 1, 1, 1, 1}, {0.5, 1, 1, 1, 1}, {0, 1, 1, 1, 1},     {1, 2, 2, 1, 1},   {0.5, 2, 2, 1, 1}, {0.5, 1, 2, 1, 1},
      {0, 1, 2, 1, 1}, {1, 1, 0, 1.2, 1}, {0.5, 1, 0, 1.2, 1}, {1, 1, 1, 1.2, 1}, {1, 1, 0, 1.4, 1}, {0.5, 1, 1, 1.4, 1},
      {1, 1, 0, 0, 1}, {0, 1, 0, 0, 1},   {0, 1, 0, 0, 0}};
  int nbv = o->ring_sj > 0 ? (int)(sizeof bvar / sizeof bvar[0]) : 1, nmain = 6, any_aok = 0;
  int nasp = (int)(sizeof bvar / sizeof bvar[0]) - 3; /* the fall-backs' first */
  /* any_aok: a valid variant passed the aspect estimate */
  hx_lid nn0 = bd->nn, nq0 = bd->nq;
  int best = -1, var0 = 0;
  double best_q = -INFINITY;
  if (pre >= 0) best = pre, var0 = nbv; /* build the variant chosen before */
  for (int var = var0; var <= nbv && !rc; var++) {
    if (var == nmain && var < nbv && (any_aok || !(o->aspect > 0))) var = nasp; /* the extra rings only where needed */
    if (var == nasp && var < nbv && best_q > 0) var = nbv;                      /* fall-backs only when nothing is valid */
    if (var == nbv && best == var - 1 && !var0) break;                          /* the best is the one just built */
    int vs = var == nbv ? (best >= 0 ? best : 0) : var;
    t->kept = vs;
    double ablend = o->ring_sj > 0 ? bvar[vs][0] : 0, apow = bvar[vs][1];
    int fgeo = o->ring_sj > 0 && o->ring_sj < 1 && bvar[vs][4] > 0;
    rb = (o->ring_sj > 0 && !(bvar[vs][3] > 0)) ? rb_min : rb_fit;
    if (o->ring_sj > 0 && bvar[vs][3] > 1) /* a wider bridge, its facet's inner room allowing */
      rb = fmin(rb_fit * bvar[vs][3], fmax(rb_fit, 0.6 * inner));
    bd->B[F->bridge].rb = rb;
    double hc = fmax(da - sqrt(fmax(0, Ra * Ra - rb * rb)), 1e-6 * dmin), sq0 = sqrt(da * da + rb * rb);
    double fb = RING_F(rb);
    int K = o->rings;
    /* --contact-layers one: the ring on the circle one layer, the next the transition, and no
       more rings for the det J ratio (the rings' volume spacing and the optimizer even it out;
       the variants with more rings remain for the aspect estimate): pb67 in its cylinder with
       --goals, 1,146 -> 1,076 elements per pebble, as many below 0.3 as meshed */
    if (fgeo && !(o->contact_layers && o->layers == 3)) {
      double rmax = 0;
      for (int k = 0; k < M; k++) rmax = fmax(rmax, hypot(P2[2 * k], P2[2 * k + 1]));
      int need = (int)ceil(log(RING_F(rmax) / fb) / -log(o->ring_sj) - 1e-9) - 1;
      K = need > o->rings ? need : o->rings;
      if (K > 16) K = 16;
    }
    int KV = K + (int)bvar[vs][2];
    bring g = {rb, hc, sq0, da, fb, ablend, apow, KV, fgeo, thb, thu};
    bd->nn = nn0, bd->nq = nq0;
    rc = bridge_rings(bd, t, &g);
    if (rc || var == nbv || nbv == 1) break;
    int aok;
    double qv = variant_score(bd, F, nq0, best_q, &aok);
    if (qv > 0 && !facet_linear_ok(bd, F, nq0)) qv = 0;
    if (qv > 0 && aok) any_aok = 1;
    if (qv > best_q) best_q = qv, best = var;
    if (qv > 0 && qv >= o->accept_sj && aok) break;
  }
  if (rc) return rc;
  if (best >= 0) t->fq = best_q;
  if (bvar[t->kept][3] > 1) st->num_wide_bridges++; /* kept is 0 when only the first variant is built */
  return HX_OK;
}

#undef RING_F

/* the centre of a fan variant (fan_variant): the pierce point, unless the centroid, the vertex
   mean or a blend gives clearly better fan corners, or the variant's own; 1 if the loop is
   star-shaped about it */
static int fan_centre(const tess *t, int var, double *oxp, double *oyp) {
  int M = t->M;
  const double *P2 = t->P2;
  /* centre: the pierce point if well inside, else the centroid */
  double cx = 0, cy = 0, area = 0;
  for (int k = 0; k < M; k++) {
    const double *A = P2 + 2 * k, *Bp = P2 + 2 * ((k + 1) % M);
    double cr = A[0] * Bp[1] - Bp[0] * A[1];
    area += cr;
    cx += (A[0] + Bp[0]) * cr;
    cy += (A[1] + Bp[1]) * cr;
  }
  if (fabs(area) > 0) cx /= 3 * area, cy /= 3 * area;
  double dp = pb_poly_inner_dist(P2, M, 0, 0), dc = pb_poly_inner_dist(P2, M, cx, cy);
  double ox = 0, oy = 0;
  (void)dp, (void)dc;
  /* the fan centre: the pierce point, unless the centroid, the vertex mean or a
     blend gives clearly better fan corners (sin of the corner angles) */
  double vx = 0, vy = 0;
  for (int k = 0; k < M; k++) vx += P2[2 * k] / M, vy += P2[2 * k + 1] / M;
  double cand[5][2] = {{0, 0}, {cx, cy}, {vx, vy}, {0.5 * cx, 0.5 * cy}, {0.5 * (cx + vx), 0.5 * (cy + vy)}};
  double qbest = -INFINITY, q0 = fan_quality(P2, M, 0, 0);
  for (int ci = 0; ci < 5; ci++) {
    double q = fan_quality(P2, M, cand[ci][0], cand[ci][1]);
    if (q > qbest) qbest = q, ox = cand[ci][0], oy = cand[ci][1];
  }
  if (q0 > 0 && q0 >= 0.8 * qbest && var != 1 && var != 4) ox = 0, oy = 0;
  if (var == 5) ox = cx, oy = cy;
  if (var >= 6) { /* extra variants: each fan centre candidate and a blend, with / without a ring */
    int ci = (var - 6) / 2;
    if (ci < 5) ox = cand[ci][0], oy = cand[ci][1];
    else ox = 0.25 * (cx + vx), oy = 0.25 * (cy + vy);
  }
  /* star-shaped around the centre (needed by the rings); else from the centroid of
     the polygon's kernel (a short edge that the clean-up could not collapse can make
     a small reflex notch that every candidate above sees from behind) */
  if (!star_from(P2, M, ox, oy)) {
    double kx, ky;
    if (poly_kernel_centre(P2, M, &kx, &ky) && star_from(P2, M, kx, ky)) ox = kx, oy = ky;
  }
  *oxp = ox, *oyp = oy;
  return star_from(P2, M, ox, oy);
}

/* the rings of a near contact's fan variant (fan_variant), as fractions rfr[1..K] of the way
   from the centre c = (ox, oy) to the loop (inner_d: c's room): with --aspect sized for it,
   else with --ring-sj geometric in rho h(rho); K raised to their count; 1 if they are so placed */
static int near_contact_rings(const builder *bd, const tess *t, const fan_centre_at *c, int sp_now, int *Kp, double *rfr,
                              int *capped) {
  double ox = c->ox, oy = c->oy, inner_d = c->inner_d;
  int K = *Kp, geo = 0;
  const hx_pebble_opts *o = bd->plan->o;
  int32_t a = t->a;
  int32_t b = t->b;
  int M = t->M;
  const double *P2 = t->P2;
  const double *p = t->p;
  double dmin = t->dmin;
  if (o->aspect > 0) {
    /* --aspect: the rings are the polygon scaled about the centre by fr_1 < fr_2 < ...
       < 0.8; the fan's spokes and chords (fr_1 x the polygon's) and each ring's
       segments and steps (fr_j+1 x its segments, (fr_j+1 - fr_j) x its radii) below
       ASPECT_MARGIN x A x the thinnest layer inside them (at the centre, on ring j nearest the
       centre: columns of height |x - c| - R to each sphere) */
    double seg = 0, rmx = 0;
    for (int k = 0; k < M; k++) {
      seg = fmax(seg, hypot(P2[2 * ((k + 1) % M)] - P2[2 * k], P2[2 * ((k + 1) % M) + 1] - P2[2 * k + 1]));
      rmx = fmax(rmx, hypot(P2[2 * k] - ox, P2[2 * k + 1] - oy));
    }
    double fr1 = aspect_step(bd, a, b, p, 0) / fmax(rmx, seg);
    int Ka = 0;
    if (fr1 < 0.6) {
      rfr[++Ka] = fr1;
      while (Ka < NC_RINGS) {
        double sj = aspect_step(bd, a, b, p, rfr[Ka] * inner_d), nx = fmin(sj / seg, rfr[Ka] + sj / rmx);
        nx = fmax(nx, 1.2 * rfr[Ka]);
        if (nx >= 0.8) break;
        rfr[++Ka] = nx;
      }
      if (Ka == NC_RINGS) {
        /* the rings ran out short of 0.8 (each at least 1.2 x the last), leaving
           the band out to it wide (p300: aspect up to 24 with --aspect 18); spread: the
           rings geometric from fr_1 to the polygon instead */
        *capped = 1;
        if (sp_now)
          for (int j = 2; j <= Ka; j++) rfr[j] = rfr[1] * pow(1 / rfr[1], (double)(j - 1) / Ka);
      }
      if (Ka > K) K = Ka;
      if (K == Ka) geo = 1;
    }
  }
  if (o->ring_sj > 0 && o->ring_sj < 1 && !geo) {
    double g = fmax(pb_pair_gap(bd, a, b), 1e-3 * dmin), rhoc = sqrt(g * dmin);
    double da = dist3(bd->sx + 3 * a, p), Ra = bd->sr[a];
#define FAN_F(rho_) ((rho_)*fmax(sqrt(da * da + (rho_) * (rho_)) - Ra, 1e-9 * dmin))
    if (rhoc < 0.6 * inner_d) {
      int Kg = (int)ceil(log(FAN_F(inner_d) / FAN_F(rhoc)) / -log(o->ring_sj) - 1e-9);
      if (Kg > 2) Kg = 2;
      if (Kg > K) K = Kg;
      if (K >= 1) {
        geo = 1;
        double f0 = FAN_F(rhoc), f1 = FAN_F(inner_d);
        for (int j = 1; j <= K; j++) {
          double ft = f0 * pow(f1 / f0, (double)(j - 1) / K), lo = rhoc, hi = inner_d;
          for (int it = 0; it < 60; it++) {
            double mid = 0.5 * (lo + hi);
            if (FAN_F(mid) < ft) lo = mid;
            else hi = mid;
          }
          rfr[j] = 0.5 * (lo + hi) / inner_d;
        }
      }
    }
#undef FAN_F
  }
  *Kp = K;
  return geo;
}

/* one variant of a fan facet (tessellate_fan): the centre, rings (near contacts, flat or reflex
   fan corners, corners that straighten on a wall), the fan; *skip where the variant has no
   star-shaped centre and is not the final build */
static int fan_variant(builder *bd, tess *t, int var, int final, int sp_now, int *capped, int *skip) {
  int rc = HX_OK;
  double ox, oy;
  int found = fan_centre(t, var, &ox, &oy);
  int32_t *outer = t->Bn;
  uint8_t outer_is_boundary = 1;
  const hx_pebble_opts *o = bd->plan->o;
  facet *F = t->F;
  int32_t a = t->a;
  int32_t b = t->b;
  int M = t->M;
  int32_t *In = t->In;
  int32_t *Rn = t->Rn;
  const uint8_t *bmask = t->bmask;
  const double *P2 = t->P2;
  const wall *W = t->W;
  const chart ch = t->ch;
  double dmin = t->dmin;
  if (!found && !final) {
    *skip = 1;
    return HX_OK;
  }
  if (!found) {
    rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: the facet between spheres %d and %s%d is not star-shaped", (int)bd->sparent[a] + 1,
                  bd->smask[b] ? "the wall near sphere " : "", (int)bd->sparent[b] + 1);
    return rc;
  }
  double cpt[3];
  chart_point(&ch, ox, oy, cpt);
  int32_t cid;
  if ((rc = pb_add_node(bd, cpt, W ? (uint8_t)(1u << F->wall) : 0, -1, &cid))) return rc;
  F->centre = cid;
  /* rings for near contacts: the gap grows like rho^2, so one ring halfway;
     a fan that would have flat or reflex corners gets a ring too, whose inner
     loop is a rounded polygon (angles halfway to uniform, midpoint-aligned
     nodes slightly inside) so the fan on it has proper corners */
  int K = 0;
  int near_c = near_contact(bd, a, b);
  if (near_c && !(o->ring_sj > 0)) K = o->rings;
  int round_inner = !fan_ok(P2, M, ox, oy);
  if (round_inner && K < 1) K = 1;
  /* a vertex whose two edges lie on the same other wall (the rim of the
     container, a box edge) becomes straight once the edges are curved onto
     that wall: it must not be a fan corner */
  int straight = 0;
  for (int k = 0; k < M / 2; k++) {
    uint8_t other = (uint8_t)(bmask[(2 * k + M - 1) % M] & bmask[2 * k]);
    if (F->wall >= 0) other &= (uint8_t) ~(1u << F->wall);
    if (other) straight = 1;
  }
  if (straight && K < 1) K = 1;
  if (var == 2 || var == 5) round_inner = 0, K = K < 1 ? 1 : K;
  if (var == 3) round_inner = 1, K = K < 1 ? 1 : K;
  if (var == 4) round_inner = 0, K = 0;
  double pull = 1; /* the innermost ring's midpoint-aligned nodes pulled in by this factor, so
                      that a boundary vertex with a straight angle is a proper fan corner */
  if (var >= 6) round_inner = 0, K = (var & 1) ? (K < 1 ? 1 : K) : K, pull = (var & 1) ? 0.8 : 1;
  double th[2 * MAXPOLY], inner_d = pb_poly_inner_dist(P2, M, ox, oy);
  {
    double acc = 0, mean = 0;
    for (int k = 0; k < M; k++) {
      double t = atan2(P2[2 * k + 1] - oy, P2[2 * k] - ox);
      if (k == 0) acc = t;
      else {
        double dt = t - fmod(acc, 2 * HX_PI);
        while (dt <= 0) dt += 2 * HX_PI;
        while (dt > 2 * HX_PI) dt -= 2 * HX_PI;
        acc += dt;
      }
      th[k] = acc;
      mean += acc - th[0] - 2 * HX_PI * k / M;
    }
    mean /= M;
    if (round_inner)
      for (int k = 0; k < M; k++) th[k] = 0.5 * (th[k] + th[0] + mean + 2 * HX_PI * k / M);
  }
  if (round_inner && K == 1 && var != 3) {
    /* keep the rounded ring only if its quads are convex in the plane; else the
       plain fan if that is convex, else a scaled ring */
    double I2[4 * MAXPOLY];
    for (int k = 0; k < M; k++) {
      double rr = 0.5 * inner_d * ((k & 1) ? 0.85 : 1.0);
      I2[2 * k] = ox + rr * cos(th[k]), I2[2 * k + 1] = oy + rr * sin(th[k]);
    }
    int ok = fan_ok_angle(I2, M, ox, oy, -0.95);
    for (int k = 0; k < M && ok; k++) {
      const double *q[4] = {P2 + 2 * k, P2 + 2 * ((k + 1) % M), I2 + 2 * ((k + 1) % M), I2 + 2 * k};
      if (!convex2d(q)) ok = 0;
    }
    if (!ok) {
      round_inner = 0;
      int near = !bd->smask[b] && pb_pair_gap(bd, a, b) < o->ring_gap * dmin && o->rings > 0;
      if (!near && !straight && fan_ok_angle(P2, M, ox, oy, -1.0)) K = 0;
    }
  }
  /* near contacts with --ring-sj: the innermost ring where the column height
     (about g/2 + rho^2 / 2R) is three times its value at the centre, rho_c =
     sqrt(g d), and rings from there to the polygon geometric in rho h(rho) (see
     the bridge rings) */
  double rfr[NC_RINGS + 1];
  fan_centre_at cat = {ox, oy, inner_d};
  int geo = near_c ? near_contact_rings(bd, t, &cat, sp_now, &K, rfr, capped) : 0;
  for (int ring = K; ring >= 1 && !rc; ring--) {
    double fr = geo ? rfr[ring] : (double)ring / (K + 1);
    for (int k = 0; k < M && !rc; k++) {
      double x2, y2;
      if (round_inner && ring == 1) {
        double rr = fr * inner_d * ((k & 1) ? 0.85 : 1.0);
        x2 = ox + rr * cos(th[k]), y2 = oy + rr * sin(th[k]);
      } else {
        double fk = fr * ((ring == 1 && (k & 1)) ? pull : 1);
        x2 = ox + fk * (P2[2 * k] - ox), y2 = oy + fk * (P2[2 * k + 1] - oy);
      }
      double x[3];
      chart_point(&ch, x2, y2, x);
      rc = pb_add_node(bd, x, W ? (uint8_t)(1u << F->wall) : 0, -1, &In[k]);
    }
    if (rc) break;
    if ((rc = ring_quads(bd, outer, In, M, 0, QK_RING, outer_is_boundary ? bmask : NULL))) break;
    memcpy(Rn, In, (size_t)M * sizeof *In);
    outer = Rn;
    outer_is_boundary = 0;
  }
  if (rc) return rc;
  /* fan: (centre, B[2k-1], B[2k], B[2k+1]) */
  if ((rc = pb_grow(&bd->Q, &bd->capq, bd->nq + M / 2, sizeof *bd->Q))) return rc;
  for (int k = 0; k < M / 2; k++) {
    quad *q = &bd->Q[bd->nq++];
    q->x[0] = cid;
    q->x[1] = outer[(2 * k + M - 1) % M];
    q->x[2] = outer[2 * k];
    q->x[3] = outer[2 * k + 1];
    q->chamfer = 0;
    q->kind = outer_is_boundary ? QK_FAN : QK_FAN_RINGED;
    q->lay = QL_SWEPT;
    memset(q->emask, 0, 4);
    if (outer_is_boundary) {
      q->emask[1] = bmask[(2 * k + M - 1) % M];
      q->emask[2] = bmask[2 * k];
    }
  }
  /* --contact-layers one: a near contact's fan one layer, its innermost ring the transition,
     where their linear elements are sound (else swept) */
  if (o->contact_layers && o->layers == 3 && near_c && K >= 1 && !outer_is_boundary)
    trans_mark_facet(bd, F, bd->nq - (hx_lid)K * M - M / 2, bd->nq - M - M / 2, M, M / 2);
  return HX_OK;
}

/* a facet without a bridge (pb_tessellate): fan variants (centre, rings) tried in turn until
   every column of the facet (to both spheres, every layer) scores --accept-sj, else the best;
   the variant chosen before built at once */
static int tessellate_fan(builder *bd, tess *t, hx_pebble_stats *st) {
  int rc = HX_OK;
  const hx_pebble_opts *o = bd->plan->o;
  facet *F = t->F;
  hx_lid f = t->f;
  int32_t a = t->a;
  int32_t b = t->b;
  int M = t->M;
  int32_t *Bn = t->Bn;
  const double *P2 = t->P2;
  const double *p = t->p;
  const double *u = t->u;
  int pre = t->pre;
  /* variants of the tessellation, tried in turn until every column of the facet
     (to both spheres, every layer) has positive corner Jacobians; var 6 = var 0 kept */
  hx_lid nn0 = bd->nn, nq0 = bd->nq;
  /* spread: a near contact's rings, capped short of the polygon, respread (see there); a
     variant that fails the aspect estimate with capped rings is tried again so */
  int best = -1, var0 = 0, best_sp = 0, retry = 0, last_sp = 0;
  double best_q = -INFINITY;
  if (pre >= 0) best = pre % SPREAD, best_sp = pre >= SPREAD, var0 = NVAR; /* build the variant chosen before */
  for (int var = var0; var <= NVAR && !rc; var++) {
    if (var == NVAR && best == var - 1 && best_sp == last_sp && !var0) break; /* the best is the one just built */
    int sp_now = retry ? 1 : var == NVAR ? best_sp : 0, capped = 0;
    retry = 0, last_sp = sp_now;
    bd->nn = nn0, bd->nq = nq0;
    int vsel = var == NVAR ? (best >= 0 ? best : 0) : var, var_outer = var;
    t->kept = vsel + SPREAD * sp_now;
    int skip = 0;
    rc = fan_variant(bd, t, vsel, var_outer == NVAR, sp_now, &capped, &skip);
    if (skip) continue;
    if (rc) break;
    if ((var == NVAR && o->debug.facets) || o->debug.facet == (long)f) {
      fprintf(stderr, "facet %d var %d q %.3f: a %d (%.4f %.4f %.4f r %.3f) b %d mask %d (%.4f %.4f %.4f) wall %d nv %d\n",
              (int)f, var, facet_columns_q(bd, F, nq0, -INFINITY), (int)a, bd->sx[3 * a], bd->sx[3 * a + 1], bd->sx[3 * a + 2],
              bd->sr[a], (int)b, bd->smask[b], bd->sx[3 * b], bd->sx[3 * b + 1], bd->sx[3 * b + 2], F->wall, F->nv);
      for (int k = 0; k < M; k++) {
        const double *x = bd->X + 3 * Bn[k];
        double r2[3];
        for (int c = 0; c < 3; c++) r2[c] = x[c] - p[c];
        fprintf(stderr, "   B%d node %d mask %d: %.4f %.4f %.4f  off-plane %.3e |x-a| %.4f  2d %.4f %.4f\n", k, Bn[k],
                bd->nmask[Bn[k]], x[0], x[1], x[2], dot3(r2, u), dist3(x, bd->sx + 3 * a), P2[2 * k], P2[2 * k + 1]);
      }
    }
    if (var_outer == NVAR) break;
    int aok;
    double qv = variant_score(bd, F, nq0, best_q, &aok);
    if (qv > best_q) best_q = qv, best = var_outer, best_sp = sp_now;
    if (qv > 0 && qv >= o->accept_sj && aok) break;
    if (capped && !sp_now && !aok) retry = 1, var--; /* this variant again, spread */
  }
  if (best >= 0) t->fq = best_q;
  if (t->kept >= SPREAD) st->num_spread_rings++;
  return rc;
}

int pb_tessellate(builder *bd, hx_pebble_stats *st) {
  emap em;
  HX_CALL(pb_emap_init(&em, bd->nfv));
  /* edge masks: walls of the wall facets containing the edge */
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    for (int k = 0; k < F->nv; k++) {
      hx_lid s = pb_emap_slot(&em, bd->fv[F->v0 + k], bd->fv[F->v0 + (k + 1) % F->nv]);
      if (F->wall >= 0) em.mask[s] |= (uint8_t)(1u << F->wall);
    }
  }
  int rc = HX_OK;
  hx_lid f_end = bd->f_hi ? bd->f_hi : bd->nf;
  /* the scoring of every facet on one thread (pb_score_facets shows its own progress) */
  hx_progress prog;
  int show = !bd->forced && !bd->f_hi;
  if (show) hx_progress_start(&prog, "tessellation", f_end - bd->f_lo);
  for (hx_lid f = bd->f_lo; f < f_end && !rc; f++) {
    if (show && (f - bd->f_lo) % 64 == 0) hx_progress_update(&prog, f - bd->f_lo);
    facet *F = &bd->F[f];
    tess t;
    t.f = f, t.F = F, t.a = F->a, t.b = F->b;
    t.kept = 0;
    t.fq = 1;
    /* the variant chosen before: by the scoring ranks, or in the round before a repair */
    t.pre = bd->forced ? bd->choice[f] : bd->prechoice ? bd->prechoice[f] : -1;
    if ((rc = boundary_loop(bd, &em, &t))) break;
    facet_frame(bd, &t);
    double gap = 0;
    int contact = pb_facet_contact(bd, F, &gap);
    t.dmin = 2 * fmin(bd->sr[t.a], bd->sr[t.b]);
    F->q0 = (int32_t)bd->nq;
    rc = contact ? tessellate_bridge(bd, &t, gap, st) : tessellate_fan(bd, &t, st);
    if (rc) break;
    F->nq = (int32_t)(bd->nq - F->q0);
    if (bd->fbad && !bd->forced) bd->fbad[f] = t.pre < 0 && t.fq <= 0;
    if (bd->fscore && !bd->forced) bd->fscore[f] = t.pre < 0 ? t.fq : 1;
    if (bd->choice && !bd->forced) bd->choice[f] = (int8_t)t.kept;
  }
  if (show) hx_progress_finish(&prog);
  pb_emap_free(&em);
  return rc;
}

/* the thinnest layer of a column of height h on a sphere of radius ra (pb_column_grading) */
static double thinnest_layer(const pb_plan *pl, double h, double ra) {
  double thick;
  return pb_layer_range(pl, h, ra, &thick);
}

/* the thinnest and (in *thick) the thickest layer of a column of height h on a sphere of
   radius ra (pb_column_grading) */
double pb_layer_range(const pb_plan *pl, double h, double ra, double *thick) {
  const hx_pebble_opts *o = pl->o;
  double out[65], t = INFINITY, T = 0;
  pb_column_grading(pl, h, ra, out);
  for (int k = 0; k < o->layers; k++) t = fmin(t, out[k + 1] - out[k]), T = fmax(T, out[k + 1] - out[k]);
  *thick = T * h;
  return t * h;
}

typedef struct ecut {
  int64_t key; /* u << 32 | v, u < v */
  int seg;     /* segments asked for */
} ecut;

static int cmp_ecut(const void *pa, const void *pb) {
  const ecut *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return (a->seg > b->seg) - (a->seg < b->seg);
}

/* facet F's boundary to have at least `need` segments: two more at a time on the edge whose
   segments are longest among those below 16 (at most 16 an edge); the edges cut are appended to cuts */
static int split_facet(const builder *bd, const facet *F, const double *pc, int need, ecut **cuts, hx_lid *cap, hx_lid *nk) {
  int n = F->nv, M = 0;
  if (need > 2 * MAXPOLY) need = 2 * MAXPOLY;
  double len[MAXPOLY];
  int seg[MAXPOLY];
  for (int k = 0; k < n; k++) {
    /* an edge's segments below ASPECT_MARGIN x A x the thinnest layer at 3/4 of its distance from the
       centre pc (where the last ring of the facet's tessellation is about) */
    const double *A = bd->X + 3 * bd->fv[F->v0 + k], *B = bd->X + 3 * bd->fv[F->v0 + (k + 1) % n];
    double ab[3], ap[3], l2 = 0, t = 0;
    for (int c = 0; c < 3; c++) ab[c] = B[c] - A[c], ap[c] = pc[c] - A[c], l2 += ab[c] * ab[c], t += ab[c] * ap[c];
    t = l2 > 0 ? fmin(1, fmax(0, t / l2)) : 0;
    double q[3];
    for (int c = 0; c < 3; c++) q[c] = A[c] + t * ab[c];
    double lmax = aspect_step(bd, F->a, F->b, pc, 0.75 * dist3(q, pc));
    len[k] = sqrt(l2);
    seg[k] = lmax > 0 ? 2 * (int)ceil(len[k] / (2 * lmax) - 1e-9) : 2;
    if (seg[k] < 2) seg[k] = 2;
    if (seg[k] > 16) seg[k] = 16;
    M += seg[k];
  }
  while (M < need) {
    int kb = -1;
    for (int k = 0; k < n; k++)
      if (seg[k] < 16 && (kb < 0 || len[k] / seg[k] > len[kb] / seg[kb])) kb = k;
    if (kb < 0) break;
    seg[kb] += 2, M += 2;
  }
  if (M > 2 * MAXPOLY) return HX_OK;
  HX_CALL(pb_grow(cuts, cap, *nk + n, sizeof **cuts));
  for (int k = 0; k < n; k++)
    if (seg[k] > 2) {
      int32_t u = bd->fv[F->v0 + k], v = bd->fv[F->v0 + (k + 1) % n];
      ecut *c = &(*cuts)[(*nk)++];
      c->key = u < v ? ((int64_t)u << 32) | (uint32_t)v : ((int64_t)v << 32) | (uint32_t)u;
      c->seg = seg[k];
    }
  return HX_OK;
}

/* bd->skey / bd->sseg from the cuts asked for (sorted here; an edge asked for several counts
   takes the largest); *ncut the number of edges cut */
static int set_cuts(builder *bd, ecut *cuts, hx_lid nk, hx_lid *ncut) {
  if (nk) qsort(cuts, (size_t)nk, sizeof *cuts, cmp_ecut); /* a key's largest count last */
  hx_lid m = 0;
  for (hx_lid k = 0; k < nk; k++) m += k + 1 == nk || cuts[k + 1].key != cuts[k].key;
  hx_free(&bd->skey), hx_free(&bd->sseg);
  bd->nskey = 0;
  if (m) HX_CALL(hx_malloc((size_t)m * sizeof *bd->skey, &bd->skey));
  if (m) HX_CALL(hx_malloc((size_t)m * sizeof *bd->sseg, &bd->sseg));
  hx_lid j = 0;
  for (hx_lid k = 0; k < nk; k++)
    if (k + 1 == nk || cuts[k + 1].key != cuts[k].key) bd->skey[j] = cuts[k].key, bd->sseg[j++] = (int8_t)cuts[k].seg;
  bd->nskey = m;
  *ncut = m;
  return HX_OK;
}

/* --aspect A: which diagram edges to cut into more than two segments, from the tessellation
   built without cuts. About a contact the columns are thin (the gap grows like rho^2 away from
   the axis), and a swept element's aspect ratio is about its longest facet edge over its
   thinnest layer; so, with ASPECT_MARGIN x A x the thinnest layer as the longest edge allowed (aspect_step):
   - a bridged facet: the elements on the circle (radius rb) reach out to about 1.6 rb, whose arc
     over M, the facet's boundary segments, must stay below it at the circle's columns;
   - a near contact (no bridge, gap below --ring-gap d): likewise about the fan round its pierce
     point, of spokes r0 = 0.9 x the limit at the centre (its rings: tessellate);
   - and every edge of those facets: its segments below the limit at 3/4 of the edge's distance
     from the centre, where the last ring is about.
   A facet short of its M gets two more segments at a time on the edge whose segments are
   longest (split_facet); an edge shared by several facets takes the largest count asked for,
   so every facet about it has the same nodes. Returns the number of edges cut in *ncut. */
int pb_mark_splits(builder *bd, hx_lid *ncut) {
  const hx_pebble_opts *o = bd->plan->o;
  hx_lid cap = 0, nk = 0;
  ecut *cuts = NULL;
  int rc0 = HX_OK;
  *ncut = 0;
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    if (F->bridge < 0) {
      /* a near contact: its fan's spokes r0 = 0.9 x the limit at the centre, the
         first ring out to 1.6 r0 as about a bridge circle */
      if (!near_contact(bd, F->a, F->b)) continue;
      double d[3], L2 = 0, pp[3];
      for (int c = 0; c < 3; c++) d[c] = bd->sx[3 * F->b + c] - bd->sx[3 * F->a + c], L2 += d[c] * d[c];
      double tpar = (L2 + bd->sr[F->a] * bd->sr[F->a] - bd->sr[F->b] * bd->sr[F->b]) / (2 * L2);
      for (int c = 0; c < 3; c++) pp[c] = bd->sx[3 * F->a + c] + tpar * d[c];
      double r0 = 0.9 * aspect_step(bd, F->a, F->b, pp, 0);
      if (!(r0 > 0)) continue;
      rc0 = split_facet(bd, F, pp, loop_segments(aspect_step(bd, F->a, F->b, pp, r0), r0), &cuts, &cap, &nk);
      if (rc0) break;
      continue;
    }
    const bridge *BR = &bd->B[F->bridge];
    double lmax = ASPECT_MARGIN * o->aspect * circle_layer(bd, F->a, F->b, BR->p, BR->u, BR->rb);
    rc0 = split_facet(bd, F, BR->p, loop_segments(lmax, BR->rb), &cuts, &cap, &nk);
    if (rc0) break;
  }
  if (!rc0) rc0 = set_cuts(bd, cuts, nk, ncut);
  hx_free(&cuts);
  return rc0;
}

/* a folded wall facet's cylinder edges: no segment wider than this angle round the wall */
#define ARC_SEG_MAX (HX_PI / 9)

/* Where the scoring left a facet on the cylinder wall folded (bd->fbad) after its clean-up, the
   cause measured on poured beds is a wide facet (the top or bottom of a thin column, reaching far
   round the wall, meshed in the unrolled chart) whose quads span 40 to 60 degrees of the wall:
   their straight chords cut into a gap of a fraction of a diameter, and the linear and curved
   columns fold. Its edges on the cylinder are cut into segments of at most ARC_SEG_MAX of arc
   (even counts, at most 16 an edge), kept with the cuts already made (an edge takes the larger
   count), so the next build has narrower quads there. Returns the number of edges whose count
   rose in *ncut (0: nothing to do). */
/* whether pb_mark_arc_splits cuts facet f's edges: a facet on the cylinder the scoring left folded */
int pb_arc_facet(const builder *bd, hx_lid f) {
  const facet *F = &bd->F[f];
  return bd->fbad[f] && F->wall >= 0 && bd->w[F->wall].cyl;
}

int pb_mark_arc_splits(builder *bd, hx_lid *ncut) {
  hx_lid cap = 0, nk = 0, nrise = 0;
  ecut *cuts = NULL;
  int rc = HX_OK;
  *ncut = 0;
  if (bd->nskey) rc = pb_grow(&cuts, &cap, bd->nskey, sizeof *cuts);
  for (hx_lid k = 0; !rc && k < bd->nskey; k++) cuts[nk].key = bd->skey[k], cuts[nk++].seg = bd->sseg[k];
  for (hx_lid f = 0; !rc && f < bd->nf; f++) {
    if (!pb_arc_facet(bd, f)) continue;
    const facet *F = &bd->F[f];
    const wall *W = &bd->w[F->wall];
    int n = F->nv;
    if ((rc = pb_grow(&cuts, &cap, nk + n, sizeof *cuts))) break;
    for (int k = 0; k < n; k++) {
      int32_t u = bd->fv[F->v0 + k], v = bd->fv[F->v0 + (k + 1) % n];
      int32_t lo = u < v ? u : v, hi = u < v ? v : u;
      double dth = pb_cyl_angle(W, bd->X + 3 * hi) - pb_cyl_angle(W, bd->X + 3 * lo);
      dth -= 2 * HX_PI * round(dth / (2 * HX_PI));
      double dl = 0;
      if (pb_cyl_arc(bd, W, F->a, bd->X + 3 * lo, bd->X + 3 * hi, &dl)) dth = dl;
      int seg = 2 * (int)ceil(fabs(dth) / (2 * ARC_SEG_MAX) - 1e-9);
      if (seg > 16) seg = 16;
      int had = edge_segments(bd, u, v);
      if (seg <= had) continue;
      cuts[nk].key = ((int64_t)lo << 32) | (uint32_t)hi, cuts[nk++].seg = seg;
      nrise++;
    }
  }
  hx_lid nkey;
  if (!rc && nrise) rc = set_cuts(bd, cuts, nk, &nkey);
  hx_free(&cuts);
  if (!rc) *ncut = nrise;
  return rc;
}

int pb_nthreads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

int pb_thread(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

/* a thread's own copy of the node, bridge-count, mask and bridge arrays (the rest of bd is shared) */
static int score_copy(builder *c, const builder *bd) {
  *c = *bd;
  c->capn = bd->nn > 0 ? bd->nn : 1;
  c->X = NULL, c->nbridge = NULL, c->nmask = NULL, c->Q = NULL, c->capq = 0, c->B = NULL, c->capb = 0;
  c->forced = 0;
  int rc = hx_malloc((size_t)c->capn * 3 * sizeof *c->X, &c->X);
  if (!rc) rc = hx_malloc((size_t)c->capn * sizeof *c->nbridge, &c->nbridge);
  if (!rc) rc = hx_malloc((size_t)c->capn * sizeof *c->nmask, &c->nmask);
  if (!rc) rc = pb_grow(&c->B, &c->capb, bd->nb + 1, sizeof *c->B);
  if (!rc) {
    memcpy(c->X, bd->X, (size_t)bd->nn * 3 * sizeof *c->X);
    memcpy(c->nbridge, bd->nbridge, (size_t)bd->nn * sizeof *c->nbridge);
    memcpy(c->nmask, bd->nmask, (size_t)bd->nn * sizeof *c->nmask);
    if (bd->nb) memcpy(c->B, bd->B, (size_t)bd->nb * sizeof *c->B);
  }
  return rc;
}

static void score_copy_free(builder *c) {
  hx_free(&c->X), hx_free(&c->nbridge), hx_free(&c->nmask), hx_free(&c->Q), hx_free(&c->B);
}

/* score facets [f_lo, f_hi) in the copy c, from bd's state */
static int score_chunk(builder *c, const builder *bd, hx_lid f_lo, hx_lid f_hi, const hx_pebble_stats *st) {
  c->nn = bd->nn, c->nq = 0, c->nb = bd->nb;
  c->f_lo = f_lo, c->f_hi = f_hi;
  hx_pebble_stats scratch = *st;
  return f_lo < f_hi ? pb_tessellate(c, &scratch) : HX_OK;
}

/* The variant scoring of facets [lo, hi) (most of the tessellation time) on the OpenMP
   threads: each thread tessellates chunks of the range in its own copy of the node, quad
   and bridge arrays (the polygons' vertices are the first nn nodes, the same in every
   copy), recording each facet's kept variant in bd->choice and its fold in bd->fbad; the
   caller then builds the whole tessellation with those variants (bd->forced). A facet's
   variant depends on its polygon only, so the choices are those of one thread scoring
   every facet, the property the MPI distribution of the scoring rests on too. Where facets
   fail, the error reported is the first failing facet's, whatever the threads' timing: the
   lowest failing chunk (which holds it, as a chunk stops at its first failure) is scored
   again alone after the region, and its message replaces the one raised first. */
int pb_score_facets(builder *bd, hx_lid lo, hx_lid hi, const hx_pebble_stats *st) {
  int nt = pb_nthreads();
  hx_lid n = hi - lo, nchunk = n < 16 * (hx_lid)nt ? n : 16 * (hx_lid)nt;
  int rc = HX_OK;
  hx_lid kfail = nchunk; /* the lowest failing chunk */
  hx_lid done = 0;       /* facets scored, counted by every thread; the first thread shows them */
  hx_progress prog;
  hx_progress_start(&prog, "tessellation", n);
#pragma omp parallel num_threads(nt)
  {
    builder c;
    int trc = score_copy(&c, bd);
    hx_lid kbad = nchunk;
#pragma omp for schedule(dynamic, 1)
    for (hx_lid k = 0; k < nchunk; k++) {
      if (trc) continue;
      trc = score_chunk(&c, bd, lo + n * k / nchunk, lo + n * (k + 1) / nchunk, st);
      if (trc) kbad = k;
      hx_lid now;
#pragma omp atomic capture
      now = done += n * (k + 1) / nchunk - n * k / nchunk;
      if (pb_thread() == 0) hx_progress_update(&prog, now);
    }
    score_copy_free(&c);
#pragma omp critical(hx_pebble_score)
    {
      if (trc && !rc) rc = trc;
      if (kbad < kfail) kfail = kbad;
    }
  }
  hx_progress_finish(&prog);
  if (rc && kfail < nchunk && nt > 1) { /* the first failing facet's message */
    builder c;
    hx_error_clear();
    rc = score_copy(&c, bd);
    if (!rc) rc = score_chunk(&c, bd, lo + n * kfail / nchunk, lo + n * (kfail + 1) / nchunk, st);
    score_copy_free(&c);
    if (!rc)
      rc = HX_ERROR(HX_ERR_INTERNAL, "tessellation: facets [%lld, %lld) failed on a thread but not alone",
                    (long long)(lo + n * kfail / nchunk), (long long)(lo + n * (kfail + 1) / nchunk));
  }
  return rc;
}
