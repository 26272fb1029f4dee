/* The pebble mesher, step 5: the sweep of every facet quad to its spheres (layer grading,
   split quads and their feet, the order-N element map sweep_elem). */
#include "pebble_impl.h"

/* the corner Jacobian matrix of the trilinear hex with corners cn at corner c and its
   determinant; the comparisons below keep min / max as fmin / fmax do (a NaN is skipped)
   without their library calls (most of the variant scoring's time) */
static inline double corner_jac(const double *X, const int32_t *cn, int c, double J[3][3]) {
  int i = c & 1, j = c >> 1 & 1, k = c >> 2 & 1;
  for (int d = 0; d < 3; d++) {
    J[d][0] = (X[3 * cn[c ^ 1] + d] - X[3 * cn[c] + d]) * (i ? -1 : 1);
    J[d][1] = (X[3 * cn[c ^ 2] + d] - X[3 * cn[c] + d]) * (j ? -1 : 1);
    J[d][2] = (X[3 * cn[c ^ 4] + d] - X[3 * cn[c] + d]) * (k ? -1 : 1);
  }
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

static inline double corner_sj(double J[3][3], double det) {
  double l[3];
  for (int q = 0; q < 3; q++) l[q] = sqrt(J[0][q] * J[0][q] + J[1][q] * J[1][q] + J[2][q] * J[2][q]);
  return det / (l[0] * l[1] * l[2] + 1e-300);
}

/* smallest corner Jacobian determinant of the trilinear hex with corners cn (sj = 0)
   or smallest corner scaled Jacobian (sj = 1) */
static double corner_det(const double *X, const int32_t *cn, int sj) {
  double mn = INFINITY;
  for (int c = 0; c < 8; c++) {
    double J[3][3], det = corner_jac(X, cn, c, J);
    if (sj) det = corner_sj(J, det);
    if (det < mn) mn = det;
  }
  return mn;
}

/* smallest corner scaled Jacobian and smallest and largest corner det J of the trilinear hex
   with corners cn, in one pass */
void pb_corner_quality(const double *X, const int32_t *cn, double *sj, double *lo, double *hi) {
  double ms = INFINITY, mn = INFINITY, mx = -INFINITY;
  for (int c = 0; c < 8; c++) {
    double J[3][3], det = corner_jac(X, cn, c, J), q = corner_sj(J, det);
    if (q < ms) ms = q;
    if (det < mn) mn = det;
    if (det > mx) mx = det;
  }
  *sj = ms, *lo = mn, *hi = mx;
}

double pb_min_corner_det(const double *X, const int32_t *cn) { return corner_det(X, cn, 0); }

double pb_min_corner_sj(const double *X, const int32_t *cn) { return corner_det(X, cn, 1); }

void pb_grading(int n, double ratio, double first, double *s) {
  /* s[0] = 0 .. s[n] = 1; thickness t_k = t0 g^k */
  double g = ratio;
  if (first > 0 && first < 1) {
    /* solve first = (g - 1)/(g^n - 1) (or 1/n at g = 1) for g by bisection */
    double lo = 1e-3, hi = 1e3;
    for (int it = 0; it < 200; it++) {
      double mid = sqrt(lo * hi);
      double f = fabs(mid - 1) < 1e-12 ? 1.0 / n : (mid - 1) / (pow(mid, n) - 1);
      if (f > first) lo = mid;
      else hi = mid;
    }
    g = sqrt(lo * hi);
  }
  double tot = 0, t = 1;
  for (int k = 0; k < n; k++) tot += t, t *= g;
  s[0] = 0;
  t = 1;
  for (int k = 0; k < n; k++) s[k + 1] = s[k] + t / tot, t *= g;
  s[n] = 1;
}

/* the layer fractions out[0..L] of a column of height h (facet point to foot) on a sphere
   of radius ra: s (the grading of every column) unless
   - --grade-height H is on and h < H d: then a growth ratio between 1 (h = 0) and s's own,
     linear in h;
   - --grade-expand T is on and h > T d: then at least the growth ratio q = ((ra + h) / ra)^(1/L)
     of the column's own widening (its quads grow like the distance from the centre, so each
     layer keeps the same thickness over width; full from 2 T d, from 1 at T d). A tall column
     of even layers has its layer on the sphere thin against its length over its narrow foot
     (pb67: a column of 3.7 to the bottom corner, feet 0.059 apart, aspect ratio 22.5), and
     that layer's det J ratio (ra / r1)^2 low.
   A function of the column's two end points alone, so that elements sharing a column line agree. */
void pb_column_grading(const pb_plan *pl, double h, double ra, double *out) {
  const hx_pebble_opts *o = pl->o;
  const double *s = pl->sl;
  int L = o->layers;
  double H = o->grade_height * 2 * ra, T = o->grade_expand * 2 * ra;
  double g0 = L >= 2 ? (s[2] - s[1]) / (s[1] - s[0]) : 1, g = g0;
  if (L >= 2 && H > 0 && h < H) g = 1 + (g0 - 1) * fmax(h, 0) / H;
  if (L >= 2 && T > 0 && h > T) g = fmax(g, 1 + (pow((ra + h) / ra, 1.0 / L) - 1) * fmin(1, (h - T) / T));
  if (g == g0) memcpy(out, s, (size_t)(L + 1) * sizeof *out);
  else pb_grading(L, g, 0, out);
}

void pb_bridge_frame(const double u[3], double e1[3], double e2[3]) {
  double tmp[3] = {1, 0, 0};
  if (fabs(u[0]) > 0.6) tmp[0] = 0, tmp[1] = 1;
  cross3(u, tmp, e1);
  double l = norm3(e1);
  for (int c = 0; c < 3; c++) e1[c] /= l;
  cross3(u, e1, e2);
}

/* point at t of the facet edge A -> B: on the bridge circle (br >= 0), on the walls
   of emask, or straight */
void pb_edge_point(const builder *bd, int32_t A, int32_t B, double t, uint8_t emask, int br, int wallk, double x[3]) {
  /* 8 parameters: the edge A -> B with what it lies on (emask, br, wallk), t, and the point */
  const double *XA = bd->X + 3 * A, *XB = bd->X + 3 * B;
  if (br >= 0) {
    const bridge *BR = &bd->B[br];
    double e1[3], e2[3], ra[3], rbv[3];
    pb_bridge_frame(BR->u, e1, e2);
    for (int c = 0; c < 3; c++) ra[c] = XA[c] - BR->p[c], rbv[c] = XB[c] - BR->p[c];
    double fa = atan2(dot3(ra, e2), dot3(ra, e1)), fb = atan2(dot3(rbv, e2), dot3(rbv, e1));
    double df = fb - fa;
    while (df > HX_PI) df -= 2 * HX_PI;
    while (df < -HX_PI) df += 2 * HX_PI;
    double f = fa + t * df, ta = dot3(ra, BR->u), tb = dot3(rbv, BR->u), tau = (1 - t) * ta + t * tb;
    for (int c = 0; c < 3; c++) x[c] = BR->p[c] + BR->rb * (cos(f) * e1[c] + sin(f) * e2[c]) + tau * BR->u[c];
    if (wallk >= 0) pb_wall_project_along(&bd->w[wallk], x, BR->u);
    return;
  }
  for (int c = 0; c < 3; c++) x[c] = (1 - t) * XA[c] + t * XB[c];
  if (emask) pb_snap(bd, emask, x);
}

/* foot on sphere a of facet point x: along the bridge axis for bridge-circle
   points, else radial */
void pb_foot_point(const builder *bd, const double *ca, double ra, int32_t a, int br, const double x[3], double y[3]) {
  if (br >= 0) {
    const bridge *BR = &bd->B[br];
    double xp[3], ua[3];
    for (int c = 0; c < 3; c++) xp[c] = x[c] - BR->p[c], ua[c] = BR->a == a ? BR->u[c] : -BR->u[c];
    double t = dot3(xp, BR->u), h = sqrt(fmax(0, ra * ra - BR->rb * BR->rb));
    for (int c = 0; c < 3; c++) y[c] = ca[c] + h * ua[c] + (xp[c] - t * BR->u[c]);
    return;
  }
  double r[3];
  for (int c = 0; c < 3; c++) r[c] = x[c] - ca[c];
  double l = norm3(r);
  for (int c = 0; c < 3; c++) y[c] = ca[c] + ra * r[c] / l;
}

/* --split K: every facet quad cut into K x K. The new nodes are the sweep map's own
   facet points (pb_edge_point on the quad's edges, so on the bridge circle or the walls
   where the edge is, and its Gordon-Hall blend inside, projected onto the facet's wall),
   so the refined columns fill the same region with the same boundary surfaces. An edge
   shared by quads (of one facet, or of the three facets on a diagram edge) is split once,
   keyed by its end nodes, its points ordered from the lower node id: neighbours agree. */
/* the nodes of the foot recipes, in the order of bd->FR */
typedef struct recnodes {
  int32_t *node;
  hx_lid n, cap;
} recnodes;

static int add_footrec(builder *bd, recnodes *rec, int32_t node, const footrec *fr) {
  HX_CALL(pb_grow(&bd->FR, &bd->capfr, bd->nfr + 1, sizeof *bd->FR));
  HX_CALL(pb_grow(&rec->node, &rec->cap, rec->n + 1, sizeof *rec->node));
  bd->FR[bd->nfr] = *fr;
  rec->node[rec->n++] = node; /* record n - 1 is node's */
  bd->nfr++;
  return HX_OK;
}

int pb_split_quads(builder *bd, int K) {
  enum { KMAX = 8 };
  if (K <= 1) return HX_OK;
  if (K > KMAX) return HX_ERROR(HX_ERR_INPUT, "pebble: --split %d is above %d", K, KMAX);
  emap em;
  HX_CALL(pb_emap_init(&em, 2 * bd->nq + 16));
  recnodes rec = {NULL, 0, 0}; /* the node of each foot recipe */
  quad *NQ = NULL;
  int rc = hx_malloc((size_t)K * K * (size_t)bd->nq * sizeof *NQ, &NQ);
  hx_lid nq = 0;
  for (hx_lid f = 0; f < bd->nf && !rc; f++) {
    facet *F = &bd->F[f];
    int wallk = F->wall;
    uint8_t fmask = wallk >= 0 ? (uint8_t)(1u << wallk) : 0;
    hx_lid q0 = nq;
    for (hx_lid qi = F->q0; qi < F->q0 + F->nq && !rc; qi++) {
      const quad Qd = bd->Q[qi];
      int32_t G[KMAX + 1][KMAX + 1]; /* G[j][i]: the node at (i / K, j / K), x0 (0,0) x1 (1,0) x2 (1,1) x3 (0,1) */
      G[0][0] = Qd.x[0], G[0][K] = Qd.x[1], G[K][K] = Qd.x[2], G[K][0] = Qd.x[3];
      for (int e = 0; e < 4 && !rc; e++) {
        int32_t u = Qd.x[e], v = Qd.x[(e + 1) % 4];
        hx_lid sl = pb_emap_slot(&em, u, v);
        int br = (Qd.chamfer >> e & 1) ? F->bridge : -1;
        if (em.mid[sl] < 0) {
          int32_t lo = u < v ? u : v, hi = u < v ? v : u;
          em.mid[sl] = (int32_t)bd->nn;
          for (int k = 1; k < K && !rc; k++) {
            double x[3];
            int32_t id;
            pb_edge_point(bd, lo, hi, (double)k / K, Qd.emask[e], br, wallk, x);
            if (wallk >= 0) pb_wall_project(&bd->w[wallk], x);
            rc = pb_add_node(bd, x, (uint8_t)(Qd.emask[e] | fmask), br, &id);
            if (!rc && br < 0) rc = add_footrec(bd, &rec, id, &(footrec){.c = {lo, hi}, .a = (double)k / K, .b = 0, .kind = 1});
          }
        }
        for (int k = 1; k < K; k++) {
          int32_t id = em.mid[sl] + (u < v ? k - 1 : K - 1 - k); /* the point at k / K from u */
          switch (e) {
          case 0: G[0][k] = id; break;
          case 1: G[k][K] = id; break;
          case 2: G[K][K - k] = id; break;
          default: G[K - k][0] = id; break;
          }
        }
      }
      for (int j = 1; j < K && !rc; j++)
        for (int i = 1; i < K && !rc; i++) {
          double a = (double)i / K, b = (double)j / K, x[3];
          const double *X = bd->X;
          for (int c = 0; c < 3; c++) {
            double bil = (1 - a) * (1 - b) * X[3 * G[0][0] + c] + a * (1 - b) * X[3 * G[0][K] + c] + a * b * X[3 * G[K][K] + c] +
                         (1 - a) * b * X[3 * G[K][0] + c];
            x[c] = (1 - b) * X[3 * G[0][i] + c] + b * X[3 * G[K][i] + c] + (1 - a) * X[3 * G[j][0] + c] + a * X[3 * G[j][K] + c] -
                   bil;
          }
          if (wallk >= 0) pb_wall_project(&bd->w[wallk], x);
          rc = pb_add_node(bd, x, fmask, -1, &G[j][i]);
          int32_t cs[8] = {G[0][i], G[K][i], G[j][0], G[j][K], G[0][0], G[0][K], G[K][K], G[K][0]};
          footrec fr = {.a = a, .b = b, .kind = 2};
          memcpy(fr.c, cs, sizeof fr.c);
          if (!rc) rc = add_footrec(bd, &rec, G[j][i], &fr);
        }
      for (int j = 0; j < K && !rc; j++)
        for (int i = 0; i < K; i++) {
          quad *q = &NQ[nq++];
          q->x[0] = G[j][i], q->x[1] = G[j][i + 1], q->x[2] = G[j + 1][i + 1], q->x[3] = G[j + 1][i];
          q->kind = Qd.kind;
          q->lay = QL_SWEPT;
          q->chamfer = 0;
          memset(q->emask, 0, 4);
          int on[4] = {j == 0, i == K - 1, j == K - 1, i == 0}; /* sub-quad edge e on the parent's edge e */
          for (int e = 0; e < 4; e++)
            if (on[e]) {
              q->chamfer |= (uint8_t)(Qd.chamfer & (1u << e));
              q->emask[e] = Qd.emask[e];
            }
        }
    }
    F->q0 = (int32_t)q0;
    F->nq = (int32_t)(nq - q0);
  }
  pb_emap_free(&em);
  if (!rc) rc = hx_malloc((size_t)bd->nn * sizeof *bd->nfoot, &bd->nfoot);
  if (!rc) {
    for (hx_lid i = 0; i < bd->nn; i++) bd->nfoot[i] = -1;
    for (hx_lid r = 0; r < rec.n; r++) bd->nfoot[rec.node[r]] = (int32_t)r;
  }
  hx_free(&rec.node);
  if (rc) {
    hx_free(&NQ);
    return rc;
  }
  hx_free(&bd->Q);
  bd->Q = NQ, bd->nq = nq, bd->capq = nq;
  return HX_OK;
}

/* the foot on sphere a of node x (see footrec) */
void pb_node_foot(const builder *bd, const double *ca, double ra, int32_t a, int32_t x, double y[3]) {
  int32_t r = bd->nfoot ? bd->nfoot[x] : -1;
  if (r < 0) {
    pb_foot_point(bd, ca, ra, a, bd->nbridge[x], bd->X + 3 * x, y);
    return;
  }
  const footrec *R = &bd->FR[r];
  double f[8][3], v[3];
  int n = R->kind == 1 ? 2 : 8;
  for (int k = 0; k < n; k++) pb_node_foot(bd, ca, ra, a, R->c[k], f[k]);
  double A = R->a, B = R->b;
  for (int c = 0; c < 3; c++) {
    if (R->kind == 1) v[c] = (1 - A) * f[0][c] + A * f[1][c];
    else
      v[c] = (1 - B) * f[0][c] + B * f[1][c] + (1 - A) * f[2][c] + A * f[3][c] -
             ((1 - A) * (1 - B) * f[4][c] + A * (1 - B) * f[5][c] + A * B * f[6][c] + (1 - A) * B * f[7][c]);
    v[c] -= ca[c];
  }
  double l = norm3(v);
  for (int c = 0; c < 3; c++) y[c] = ca[c] + ra * v[c] / l;
}

/* The facet whose quads (q0 .. q0 + nq - 1, facets in quad order) hold quad q. */
int32_t pb_quad_facet(const builder *bd, int32_t q) {
  int32_t lo = 0, hi = (int32_t)bd->nf - 1;
  while (lo < hi) {
    int32_t mid = (lo + hi + 1) / 2;
    if (bd->F[mid].q0 <= q) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* the volume spacings (--radial, --ring-points) at order N: -1 means from order 3 */
int pb_spacing_on(int flag, int order) { return flag > 0 || (flag < 0 && order >= 3); }

/* the order whose point placement the sweep map follows: o->map_order when set (a lower-order
   copy of an order-N mesh, --optimize-order: the same map, sampled at fewer points), else the
   order it is evaluated at */
int pb_map_order(const hx_pebble_opts *o, int order) { return o->map_order > 0 ? o->map_order : order; }

/* ---- --contact-layers one: the transition ring ---------------------------------------
   A transition quad's columns (QL_TRANS) join the one-layer column of the ring inside
   (its edge 2, x[2] -> x[3]) to the three layers of the swept columns outside. In the
   section through a radial edge, (u, s): u from the inner side (0) to the outer (1) along
   the quad, s up the column from the sphere (0) to the facet (1): the outer side keeps the
   swept levels s_1, s_2; the inner side has the sphere and facet ends D (0, 0) and C (0, 1)
   only, and the two pulled nodes p_1, p_2 at (alpha, 1/3) and (alpha, 2/3). The three layer
   elements run from D - p_1 - p_2 - C to the outer side's levels; the cap element (D, p_1,
   p_2, C) fills the rest. So every element is the sweep map x = Y(u, v) + s (Q(u, v) - Y(u,
   v)) of a Coons patch in (u, s) whose edges are straight, except on the outer side (the
   swept column's own spacing, shared with the columns outside) and the cap's inner side (the
   one-layer column's, shared with it). */

static double trans_beta(int lv) { return lv == 1 ? TRANS_BETA : 1 - TRANS_BETA; }

/* alpha on the radial edge from inner node x to outer node z in cell a: TRANS_ALPHA x the inner
   column's height over the edge's length, within [0.05, 0.45]; the edge's alone */
static double trans_alpha(const builder *bd, const double *ca, double ra, int32_t a, int32_t x, int32_t z) {
  double y[3];
  pb_node_foot(bd, ca, ra, a, x, y);
  double h = dist3(bd->X + 3 * (size_t)x, y), w = dist3(bd->X + 3 * (size_t)x, bd->X + 3 * (size_t)z);
  return fmin(fmax(TRANS_ALPHA * h / w, 0.05), 0.45);
}

/* the foot on sphere a at t of the plain edge A -> B: the end feet blended, back on the sphere */
static void edge_foot(const builder *bd, const double *ca, double ra, int32_t a, int32_t A, int32_t B, double t, double y[3]) {
  double fa[3], fb[3], r[3];
  pb_node_foot(bd, ca, ra, a, A, fa);
  pb_node_foot(bd, ca, ra, a, B, fb);
  for (int c = 0; c < 3; c++) r[c] = (1 - t) * fa[c] + t * fb[c] - ca[c];
  double l = norm3(r);
  for (int c = 0; c < 3; c++) y[c] = ca[c] + ra * r[c] / l;
}

/* tpart of the transition rings (builder.tpart): for each inner node, a transition quad that has
   it (x[3] or x[2]) and so its radial edge */
int pb_trans_mark(builder *bd) {
  hx_free(&bd->tpart);
  int any = 0;
  for (hx_lid q = 0; q < bd->nq && !any; q++) any = bd->Q[q].lay != QL_SWEPT;
  if (!any) return HX_OK;
  HX_CALL(hx_malloc((size_t)(bd->nn + 1) * sizeof *bd->tpart, &bd->tpart));
  for (hx_lid x = 0; x < bd->nn; x++) bd->tpart[x] = -1;
  for (hx_lid q = 0; q < bd->nq; q++)
    if (bd->Q[q].lay == QL_TRANS) bd->tpart[bd->Q[q].x[3]] = bd->tpart[bd->Q[q].x[2]] = (int32_t)q;
  return HX_OK;
}

/* the radial edge of transition quad Qd at its inner node x[3] (to x[0], quad edge 3) or x[2]
   (to x[1], quad edge 1), and its parameter from the inner node: even, or with --ring-points
   volume (its rp bit, as the guard left it) the edge's volume spacing */
typedef struct tradial {
  int32_t in, out;
  int spaced;
  double cum[RE_K + 1];
} tradial;

static void tradial_init(const sweep_ctx *sc, const facet *F, const quad *Qd, int at2, int order, tradial *r) {
  const builder *bd = sc->bd;
  const hx_pebble_opts *o = sc->o; /* the map's order is the sweep's (an order-P copy samples the order-N map) */
  int e = at2 ? 1 : 3;
  r->in = Qd->x[at2 ? 2 : 3], r->out = Qd->x[at2 ? 1 : 0];
  r->spaced = pb_spacing_on(o->ring_volume, pb_map_order(o, order)) && (Qd->rp >> e & 1);
  if (r->spaced) pb_ring_edge_cum(bd, F, r->in, r->out, 0, F->wall, RE_RADIAL, -1, r->cum);
}

static double tradial_t(const tradial *r, double u) {
  if (!r->spaced || u <= 0 || u >= 1) return u;
  return r->in < r->out ? pb_ring_cum_at(r->cum, u) : 1 - pb_ring_cum_at(r->cum, 1 - u);
}

/* the inverse: the section's u of the edge's parameter t from the inner node */
static double tradial_u(const tradial *r, double t) {
  if (!r->spaced || t <= 0 || t >= 1) return t;
  double tl = r->in < r->out ? t : 1 - t, x = tl * RE_K;
  int j = (int)x;
  if (j >= RE_K) j = RE_K - 1;
  double f = (r->cum[j] + (x - j) * (r->cum[j + 1] - r->cum[j])) / r->cum[RE_K];
  return r->in < r->out ? f : 1 - f;
}

/* the pulled node at level lv (1, 2) of inner node x of a transition ring in cell a, on its
   radial edge to z (facet on wall wallk or -1): where the edge's parameter is alpha, at every
   order (the order-N map's section places it at the u the edge's spacing maps there) */
void pb_trans_pulled(const builder *bd, const double *ca, double ra, int32_t a, int32_t x, int32_t z, int wallk, int lv,
                     double p[3]) {
  /* 9 parameters: the cell, the radial edge with its wall, the level and the point */
  double al = trans_alpha(bd, ca, ra, a, x, z), Q[3], Y[3];
  pb_edge_point(bd, x, z, al, 0, -1, wallk, Q);
  if (wallk >= 0) pb_wall_project(&bd->w[wallk], Q);
  edge_foot(bd, ca, ra, a, x, z, al, Y);
  for (int c = 0; c < 3; c++) p[c] = Y[c] + trans_beta(lv) * (Q[c] - Y[c]);
}

/* the same for an inner node of the tessellation's transition rings (builder.tpart): the
   order-1 column node */
void pb_trans_node(const builder *bd, const double *ca, double ra, int32_t a, int32_t x, double p[3], int lv) {
  const quad *Qd = &bd->Q[bd->tpart[x]];
  const facet *F = &bd->F[pb_quad_facet(bd, bd->tpart[x])];
  pb_trans_pulled(bd, ca, ra, a, x, x == Qd->x[2] ? Qd->x[1] : Qd->x[0], F->wall, lv, p);
}

/* the fraction at t of a layer from s0 to s1 of the column from foot radius rY to facet radius
   rQ: with the volume spacing (on; not at the layer's ends) the cube of the radius linear in t */
static double layer_frac(double s0, double s1, double rY, double rQ, int on, double t) {
  double sv = s0 + t * (s1 - s0);
  if (!on || !(rQ > rY)) return sv;
  double r0 = rY + s0 * (rQ - rY), r1 = rY + s1 * (rQ - rY), rq0 = r0 * r0 * r0, rq1 = r1 * r1 * r1;
  return rq1 > rq0 ? (cbrt((1 - t) * rq0 + t * rq1) - rY) / (rQ - rY) : sv;
}

/* the points of a transition quad's facet map and feet at chord parameter a1 (GLL point i,
   whose chord samples are Ed, Fd) and across-ring parameter a2: the Gordon-Hall blend of
   pb_sweep_elem with the radial edges (1, 3; plain: never chamfered or split) evaluated at a2
   itself, their feet blended from the corner feet FC (lexicographic: qx0, qx1, qx3, qx2) */
typedef struct tquad {
  const builder *bd;
  const double *ca;
  double ra;
  int32_t ea[4], eb[4];
  int wallk, nd;
  const double *C[4];
  const double (*FC)[3], (*Ed)[HX_MAX_ND][3], (*Fd)[HX_MAX_ND][3];
} tquad;

static void tquad_point(const tquad *T, int i, double a1, double a2, double Q[3], double Y[3]) {
  int nd = T->nd;
  double E1[3], E3[3], F1[3], F3[3], l1 = 0, l3 = 0;
  pb_edge_point(T->bd, T->ea[1], T->eb[1], a2, 0, -1, T->wallk, E1);
  pb_edge_point(T->bd, T->ea[3], T->eb[3], 1 - a2, 0, -1, T->wallk, E3);
  for (int c = 0; c < 3; c++) { /* edge 1 runs qx1 -> qx2, edge 3 qx3 -> qx0 */
    F1[c] = (1 - a2) * T->FC[1][c] + a2 * T->FC[3][c] - T->ca[c], l1 += F1[c] * F1[c];
    F3[c] = (1 - a2) * T->FC[0][c] + a2 * T->FC[2][c] - T->ca[c], l3 += F3[c] * F3[c];
  }
  for (int c = 0; c < 3; c++) F1[c] = T->ca[c] + T->ra * F1[c] / sqrt(l1), F3[c] = T->ca[c] + T->ra * F3[c] / sqrt(l3);
  double GH[3];
  for (int c = 0; c < 3; c++) {
    double bil =
        (1 - a1) * (1 - a2) * T->C[0][c] + a1 * (1 - a2) * T->C[1][c] + (1 - a1) * a2 * T->C[2][c] + a1 * a2 * T->C[3][c];
    Q[c] = (1 - a2) * T->Ed[0][i][c] + a2 * T->Ed[2][nd - 1 - i][c] + (1 - a1) * E3[c] + a1 * E1[c] - bil;
    double fil =
        (1 - a1) * (1 - a2) * T->FC[0][c] + a1 * (1 - a2) * T->FC[1][c] + (1 - a1) * a2 * T->FC[2][c] + a1 * a2 * T->FC[3][c];
    GH[c] = (1 - a2) * T->Fd[0][i][c] + a2 * T->Fd[2][nd - 1 - i][c] + (1 - a1) * F3[c] + a1 * F1[c] - fil;
  }
  if (T->wallk >= 0) pb_wall_project(&T->bd->w[T->wallk], Q);
  double r[3];
  for (int c = 0; c < 3; c++) r[c] = GH[c] - T->ca[c];
  double l = norm3(r);
  for (int c = 0; c < 3; c++) Y[c] = T->ca[c] + T->ra * r[c] / l;
}

/* a layer element or the cap of a transition quad (E->layer == layers), from pb_sweep_elem's
   samples of its edges (Ed, Fd; the chords are what the neighbours share) and corner feet FC */
static void trans_elem(const sweep_ctx *sc, const elinfo *E, int nd, const double *g, double (*Ed)[HX_MAX_ND][3],
                       double (*Fd)[HX_MAX_ND][3], const double (*FC)[3], double *xe) {
  /* 8 parameters: the element, the points and pb_sweep_elem's samples, the output */
  const builder *bd = sc->bd;
  const quad *Qd = &bd->Q[E->quad];
  const facet *F = &bd->F[pb_quad_facet(bd, E->quad)];
  int nd3 = nd * nd * nd, L = sc->o->layers, rev = E->rev, cap = E->layer == L;
  int on = pb_spacing_on(sc->o->radial_volume, pb_map_order(sc->o, nd - 1));
  int32_t qx[4];
  for (int v = 0; v < 4; v++) qx[v] = rev ? Qd->x[3 - v] : Qd->x[v];
  tquad T = {bd,
             sc->bed->xyz + 3 * E->cell,
             sc->bed->r[E->cell],
             {qx[0], qx[1], qx[2], qx[3]},
             {qx[1], qx[2], qx[3], qx[0]},
             F->wall,
             nd,
             {bd->X + 3 * qx[0], bd->X + 3 * qx[1], bd->X + 3 * qx[3], bd->X + 3 * qx[2]},
             FC,
             Ed,
             Fd};
  /* the radial edges of a1 = 0 (x[3] -> x[0]) and a1 = 1 (x[2] -> x[1]): alpha and the map
     from the section's u to the edge's parameter */
  tradial rA, rB;
  tradial_init(sc, F, Qd, 0, nd - 1, &rA);
  tradial_init(sc, F, Qd, 1, nd - 1, &rB);
  double alA = tradial_u(&rA, trans_alpha(bd, T.ca, T.ra, E->cell, Qd->x[3], Qd->x[0]));
  double alB = tradial_u(&rB, trans_alpha(bd, T.ca, T.ra, E->cell, Qd->x[2], Qd->x[1]));
  for (int i = 0; i < nd; i++) {
    double a1 = g[i], al = (1 - a1) * alA + a1 * alB;
    /* the outer and inner column lines at this chord point: their levels and radii */
    double Qo[3], Yo[3], Qi[3], Yi[3], so[65], si[65];
    tquad_point(&T, i, a1, rev ? 1 : 0, Qo, Yo);
    tquad_point(&T, i, a1, rev ? 0 : 1, Qi, Yi);
    pb_column_grading(bd->plan, dist3(Qo, Yo), T.ra, so);
    pb_column_grading(bd->plan, dist3(Qi, Yi), T.ra, si);
    double rYo = dist3(Yo, T.ca), rQo = dist3(Qo, T.ca), rYi = dist3(Yi, T.ca), rQi = dist3(Qi, T.ca);
    /* the section's corners (u, s): bottom-inner, bottom-outer, top-inner, top-outer */
    double c00[2], c10[2], c01[2], c11[2];
    int l = E->layer;
    if (!cap) {
      c00[0] = l == 0 ? 0 : al, c00[1] = l == 0 ? 0 : trans_beta(l);
      c01[0] = l == L - 1 ? 0 : al, c01[1] = l == L - 1 ? 1 : trans_beta(l + 1);
      c10[0] = 1, c10[1] = so[l], c11[0] = 1, c11[1] = so[l + 1];
    } else { /* the inner side D, C; the pulled side p_1, p_2 */
      c00[0] = 0, c00[1] = si[0], c01[0] = 0, c01[1] = si[L];
      c10[0] = al, c10[1] = trans_beta(1), c11[0] = al, c11[1] = trans_beta(2);
    }
    for (int j = 0; j < nd; j++)
      for (int k = 0; k < nd; k++) {
        double et = rev ? g[j] : 1 - g[j], ze = g[k];
        /* the four edges at (et, ze): the curved one is the outer side of a layer element, the
           inner side of the cap */
        double in[2], out[2], bot[2], top[2];
        for (int d = 0; d < 2; d++) {
          in[d] = (1 - ze) * c00[d] + ze * c01[d];
          out[d] = (1 - ze) * c10[d] + ze * c11[d];
          bot[d] = (1 - et) * c00[d] + et * c10[d];
          top[d] = (1 - et) * c01[d] + et * c11[d];
        }
        int mid = on && k > 0 && k < nd - 1;
        if (!cap) out[1] = layer_frac(c10[1], c11[1], rYo, rQo, mid, ze);
        else in[1] = layer_frac(c00[1], c01[1], rYi, rQi, mid, ze);
        double us[2];
        for (int d = 0; d < 2; d++)
          us[d] = (1 - et) * in[d] + et * out[d] + (1 - ze) * bot[d] + ze * top[d] -
                  ((1 - et) * (1 - ze) * c00[d] + et * (1 - ze) * c10[d] + (1 - et) * ze * c01[d] + et * ze * c11[d]);
        double up = (1 - a1) * tradial_t(&rA, us[0]) + a1 * tradial_t(&rB, us[0]);
        double Q[3], Y[3], a2 = rev ? up : 1 - up;
        tquad_point(&T, i, a1, a2, Q, Y);
        int lex = i + nd * (j + nd * k);
        for (int c = 0; c < 3; c++)
          xe[(size_t)c * nd3 + lex] = us[1] <= 0 ? Y[c] : us[1] >= 1 ? Q[c] : Y[c] + us[1] * (Q[c] - Y[c]);
      }
  }
}

/* The sweep map of element e at the GLL points g[nd] into xe [3][nd^3]. */
void pb_sweep_elem(const sweep_ctx *sc, hx_lid e, int nd, const double *g, double *xe) {
  const builder *bd = sc->bd;
  int nd3 = nd * nd * nd;
  const elinfo *E = &sc->ei[e];
  const quad *Qd = &bd->Q[E->quad];
  const facet *F = &bd->F[pb_quad_facet(bd, E->quad)];
  int32_t qx[4];
  uint8_t em[4];
  int cham[4];
  for (int v = 0; v < 4; v++) {
    qx[v] = E->rev ? Qd->x[3 - v] : Qd->x[v];
    int e_orig = E->rev ? (6 - v) % 4 : v;
    em[v] = Qd->emask[e_orig];
    cham[v] = (Qd->chamfer >> e_orig & 1) ? F->bridge : -1;
  }
  int wallk = F->wall;
  /* edges sampled at the GLL points: E0(xi1) x0->x1, E1(xi2) x1->x2, E2 x2->x3 reversed, E3 x3->x0 reversed */
  double Ed[4][HX_MAX_ND][3], Fd[4][HX_MAX_ND][3];
  int32_t ea[4] = {qx[0], qx[1], qx[2], qx[3]}, eb[4] = {qx[1], qx[2], qx[3], qx[0]};
  int cell = E->cell;
  const double *ca = cell >= 0 ? sc->bed->xyz + 3 * cell : NULL;
  double ra = cell >= 0 ? sc->bed->r[cell] : 0;
  double tm[4][HX_MAX_ND];
  for (int ed = 0; ed < 4; ed++) {
    int e_orig = E->rev ? (6 - ed) % 4 : ed;
    if (pb_spacing_on(sc->o->ring_volume, pb_map_order(sc->o, nd - 1)) && (Qd->rp >> e_orig & 1) && cham[ed] < 0)
      pb_ring_edge_map(bd, F, ea[ed], eb[ed], em[ed], wallk, nd, g, tm[ed],
                       IS_FAN(Qd->kind) ? RE_SPOKE
                       : (e_orig & 1)   ? RE_RADIAL
                                        : RE_CHORD,
                       -1);
    else if (!sc->bnd_off && pb_spacing_on(sc->o->edge_volume, pb_map_order(sc->o, nd - 1)) && cham[ed] < 0 &&
             pb_seg_on(bd, E->quad, e_orig) >= 0)
      pb_ring_edge_map(bd, F, ea[ed], eb[ed], em[ed], wallk, nd, g, tm[ed], RE_GAP, bd->segsph[pb_seg_on(bd, E->quad, e_orig)]);
    else memcpy(tm[ed], g, (size_t)nd * sizeof *g);
  }
  for (int ed = 0; ed < 4; ed++)
    for (int i = 0; i < nd; i++) {
      double t = tm[ed][i];
      pb_edge_point(bd, ea[ed], eb[ed], t, em[ed], cham[ed], wallk, Ed[ed][i]);
      if (cell < 0) continue;
      if (cham[ed] >= 0) {
        pb_foot_point(bd, ca, ra, cell, cham[ed], Ed[ed][i], Fd[ed][i]);
      } else {
        /* the feet of the end nodes (along the axis for bridge-circle nodes), blended
           and put back on the sphere: a function of the edge alone */
        edge_foot(bd, ca, ra, cell, ea[ed], eb[ed], t, Fd[ed][i]);
      }
    }
  const double *C[4] = {bd->X + 3 * qx[0], bd->X + 3 * qx[1], bd->X + 3 * qx[3], bd->X + 3 * qx[2]};
  double FC[4][3];
  if (cell >= 0)
    for (int v = 0; v < 4; v++)
      memcpy(FC[v], (v == 0 ? Fd[0][0] : v == 1 ? Fd[1][0] : v == 2 ? Fd[3][0] : Fd[2][0]), 3 * sizeof(double));
  if (cell >= 0 && Qd->lay == QL_TRANS) {
    trans_elem(sc, E, nd, g, Ed, Fd, (const double(*)[3])FC, xe);
    return;
  }
  /* the layer's levels: a one-layer column spans the whole column */
  int llo = E->layer, lhi = E->layer + 1;
  if (cell >= 0 && Qd->lay == QL_ONE) llo = 0, lhi = sc->o->layers;
  double s0 = 0, s1 = 1, z0 = 0, z1 = 0; /* s0, s1: the layer's fractions, per column line below */
  if (cell < 0) {
    int k = -1 - cell;
    double zp = k ? sc->o->zhi : sc->o->zlo, len = k ? sc->o->outlet_len : sc->o->inlet_len, dir = k ? 1 : -1;
    z0 = zp + dir * len * sc->se[k][E->layer + 1] - zp; /* deeper level at xi3 = 0 */
    z1 = E->layer == 0 ? 0 : zp + dir * len * sc->se[k][E->layer] - zp;
  }
  /* a ring quad whose radial edges (1 and 3) are spaced by volume: the facet points and
     feet are lofted between edges 0 and 2 along straight segments, at the fraction blended
     from the two radial edges' maps (the Coons patch of such edges folds where the ring
     next to a bridge circle is narrow) */
  int loft = pb_spacing_on(sc->o->ring_volume, pb_map_order(sc->o, nd - 1)) && IS_RING(Qd->kind) && (Qd->rp & 10) == 10;
  for (int j = 0; j < nd; j++)
    for (int i = 0; i < nd; i++) {
      double a1 = g[i], a2 = g[j];
      double Q[3], Y[3] = {0, 0, 0};
      double lam = loft ? (1 - a1) * (1 - tm[3][nd - 1 - j]) + a1 * tm[1][j] : 0;
      for (int c = 0; c < 3; c++) {
        double bil = (1 - a1) * (1 - a2) * C[0][c] + a1 * (1 - a2) * C[1][c] + (1 - a1) * a2 * C[2][c] + a1 * a2 * C[3][c];
        Q[c] = (1 - a2) * Ed[0][i][c] + a2 * Ed[2][nd - 1 - i][c] + (1 - a1) * Ed[3][nd - 1 - j][c] + a1 * Ed[1][j][c] - bil;
        if (loft) Q[c] = (1 - lam) * Ed[0][i][c] + lam * Ed[2][nd - 1 - i][c];
      }
      if (wallk >= 0) pb_wall_project(&bd->w[wallk], Q);
      if (cell >= 0) {
        double GH[3];
        for (int c = 0; c < 3; c++) {
          double bil = (1 - a1) * (1 - a2) * FC[0][c] + a1 * (1 - a2) * FC[1][c] + (1 - a1) * a2 * FC[2][c] + a1 * a2 * FC[3][c];
          GH[c] = (1 - a2) * Fd[0][i][c] + a2 * Fd[2][nd - 1 - i][c] + (1 - a1) * Fd[3][nd - 1 - j][c] + a1 * Fd[1][j][c] - bil;
          if (loft) GH[c] = (1 - lam) * Fd[0][i][c] + lam * Fd[2][nd - 1 - i][c];
        }
        double r[3];
        for (int c = 0; c < 3; c++) r[c] = GH[c] - ca[c];
        double l = norm3(r);
        for (int c = 0; c < 3; c++) Y[c] = ca[c] + ra * r[c] / l;
      }
      /* radial parametrization: with --radial volume the layer's points are spaced so that
         the cube of their distance from the centre is linear in xi3 (equal volume per step
         of the cone the column is part of), else linearly */
      if (cell >= 0) {
        double sg[65];
        pb_column_grading(sc->bd->plan, dist3(Q, Y), ra, sg);
        s0 = sg[llo], s1 = sg[lhi];
      }
      double rY = 0, rQ = 0;
      int on = cell >= 0 && pb_spacing_on(sc->o->radial_volume, pb_map_order(sc->o, nd - 1));
      if (on) rY = dist3(Y, ca), rQ = dist3(Q, ca);
      for (int k = 0; k < nd; k++) {
        int lex = i + nd * (j + nd * k);
        double sv = layer_frac(s0, s1, rY, rQ, on && k > 0 && k < nd - 1, g[k]);
        for (int c = 0; c < 3; c++) {
          double v;
          if (cell >= 0) {
            v = Y[c] + sv * (Q[c] - Y[c]);
            if (k == 0 && llo == 0) v = Y[c];
            if (k == nd - 1 && lhi == sc->o->layers) v = Q[c];
          } else {
            v = Q[c] + (c == 2 ? z0 + g[k] * (z1 - z0) : 0);
          }
          xe[(size_t)c * nd3 + lex] = v;
        }
      }
    }
}
