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
        double fa[3], fb[3], r[3];
        pb_node_foot(bd, ca, ra, cell, ea[ed], fa);
        pb_node_foot(bd, ca, ra, cell, eb[ed], fb);
        for (int c = 0; c < 3; c++) r[c] = (1 - t) * fa[c] + t * fb[c] - ca[c];
        double l = norm3(r);
        for (int c = 0; c < 3; c++) Fd[ed][i][c] = ca[c] + ra * r[c] / l;
      }
    }
  const double *C[4] = {bd->X + 3 * qx[0], bd->X + 3 * qx[1], bd->X + 3 * qx[3], bd->X + 3 * qx[2]};
  double FC[4][3];
  if (cell >= 0)
    for (int v = 0; v < 4; v++)
      memcpy(FC[v], (v == 0 ? Fd[0][0] : v == 1 ? Fd[1][0] : v == 2 ? Fd[3][0] : Fd[2][0]), 3 * sizeof(double));
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
        s0 = sg[E->layer], s1 = sg[E->layer + 1];
      }
      double rq0 = 0, rq1 = 0, rY = 0, rQ = 0;
      if (cell >= 0 && pb_spacing_on(sc->o->radial_volume, pb_map_order(sc->o, nd - 1))) {
        double dy[3], dq[3];
        for (int c = 0; c < 3; c++) dy[c] = Y[c] - ca[c], dq[c] = Q[c] - ca[c];
        rY = norm3(dy), rQ = norm3(dq);
        double r0 = rY + s0 * (rQ - rY), r1 = rY + s1 * (rQ - rY);
        rq0 = r0 * r0 * r0, rq1 = r1 * r1 * r1;
      }
      for (int k = 0; k < nd; k++) {
        int lex = i + nd * (j + nd * k);
        double sv = s0 + g[k] * (s1 - s0);
        if (rq1 > rq0 && rQ > rY && k > 0 && k < nd - 1) sv = (cbrt((1 - g[k]) * rq0 + g[k] * rq1) - rY) / (rQ - rY);
        for (int c = 0; c < 3; c++) {
          double v;
          if (cell >= 0) {
            v = Y[c] + sv * (Q[c] - Y[c]);
            if (k == 0 && E->layer == 0) v = Y[c];
            if (k == nd - 1 && E->layer + 1 == sc->o->layers) v = Q[c];
          } else {
            v = Q[c] + (c == 2 ? z0 + g[k] * (z1 - z0) : 0);
          }
          xe[(size_t)c * nd3 + lex] = v;
        }
      }
    }
}
