/* The pebble-bed mesher (meshers.md section 1; docs/architecture.md "Pebble beds").

   1. sites: the spheres plus ghost sites mirrored across every container wall they
      are near (and across pairs of walls near corners), so that the power diagram
      of all sites, restricted to the real cells, fills the container;
   2. power diagram through Qhull (meshers/qhull/power3d.c): vertices = power centres
      of the regular tetrahedra, facets = rings of tetrahedra around each edge that
      has a real site;
   3. vertices incident to a ghost are snapped onto its wall(s); coincident vertices
      are merged, then short diagram edges collapsed (union-find, guarded so that no
      facet pinches and no contact facet disappears); facets left with < 3 vertices
      are dropped;
   4. every facet is tessellated once: its boundary loop (vertices + edge midpoints,
      midpoints keyed by the edge, so neighbouring facets agree), then either a fan
      from a centre (n-gon -> n quads), or around a bridge (contact or near contact)
      a ring of 2n quads whose inner loop is the bridge circle, with optional extra
      rings of geometrically graded radius;
   5. every facet quad is swept to each real sphere owning the facet: radial
      projection for ordinary nodes, along the bridge axis for bridge-circle nodes,
      split into graded layers;
   6. plane facets are extruded into inlet/outlet sections;
   7. boundary faces get ids (pebble, chamfer, wall, inlet, outlet) and surfaces. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "hx_basis.h"
#include "hx_curve.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "hx_pebble.h"
#include "hx_quality.h"
#include "hx_power3d.h"

#define MAXW 6 /* walls */

typedef struct wall {
  int cyl;     /* 1: container cylinder, 0: plane */
  double p[3]; /* plane point / axis point */
  double n[3]; /* plane outward normal / axis */
  double R;    /* cylinder radius */
  int kind;    /* 0 wall, 1 inlet (bottom), 2 outlet (top) */
  int surf;    /* surface index */
} wall;

typedef struct bridge {
  double p[3], u[3]; /* a point on the axis (facet centre) and the unit axis a -> b */
  double rb;
  int32_t a, b; /* real sphere a; b real sphere or -1 (wall) */
  int surf;
} bridge;

typedef struct facet {
  int32_t a, b;   /* sites: a real; b real (> a) or ghost */
  int32_t v0, nv; /* polygon vertices in fv[v0 .. v0+nv) (node ids), CCW about a -> b */
  int32_t q0, nq; /* quads */
  int wall;       /* wall index or -1 */
  int bridge;     /* bridge index or -1 */
  int32_t centre; /* the fan's centre node (the rings' centre on facets without a bridge) or -1 */
} facet;

typedef struct quad {
  int32_t x[4];
  uint8_t chamfer;  /* bit e: edge (x[e], x[e+1]) lies on the bridge circle */
  uint8_t emask[4]; /* wall mask of edge e when it lies on the facet boundary */
  uint8_t kind;     /* QK_*: where in its facet's tessellation (quality analysis) */
  uint8_t rp;       /* bit e: edge e is shared with another ring quad (or, a spoke, fan quad) of the
                       facet, its order-N points spaced by volume (--ring-points, ring_edges) */
} quad;

/* quad kinds: fan of a facet without rings, fan inside a ring, ring of a non-bridged
   facet, bridge ring on the bridge circle, outer bridge rings */
enum { QK_FAN, QK_FAN_RINGED, QK_RING, QK_BRIDGE_IN, QK_BRIDGE_OUT, QK_N };

/* the foot of a node added by --split is the parent column's foot map at that point:
   kind 1, on the edge c0 -> c1 at a: the end feet blended and put back on the sphere;
   kind 2, inside at (a, b): the Gordon-Hall blend of the feet of the edge nodes
   c0 (a, 0), c1 (a, 1), c2 (0, b), c3 (1, b) less the bilinear one of the corners
   c4..c7, put back on the sphere (so that a node near a bridge circle does not get a
   radial foot inside the circle's own foot) */
typedef struct footrec {
  int32_t c[8];
  double a, b;
  int kind;
} footrec;

typedef struct builder {
  /* sites */
  hx_lid ns, nreal;
  double *sx, *sr;
  int32_t *sparent; /* real sphere of the site */
  uint8_t *smask;   /* walls mirrored (0 for real sites) */
  wall w[MAXW];
  int nw;
  /* nodes */
  hx_lid nn, capn;
  double *X;
  int32_t *nbridge; /* bridge of a bridge-circle node, else -1 */
  uint8_t *nmask;
  /* diagram */
  hx_power3d *pd;
  facet *F;
  hx_lid nf, capf;
  int32_t *fv;
  hx_lid nfv, capfv;
  quad *Q;
  hx_lid nq, capq;
  bridge *B;
  hx_lid nb, capb;
  /* --split: feet of the nodes it adds (nfoot[node]: recipe in FR, -1: foot_point) */
  int32_t *nfoot;
  struct footrec *FR;
  hx_lid nfr, capfr;
  /* distribution of the variant scoring: tessellate facets [f_lo, f_hi) only (f_hi 0:
     all) and record each facet's kept variant in choice[f]; forced: build choice[f] */
  hx_lid f_lo, f_hi;
  int8_t *choice;
  int forced;
  /* local repair: fbad[f] set by tessellate when no variant of facet f sweeps without
     inverted columns; vnode[t] the node of diagram vertex t after the clean-up (-1: none);
     vguard[t] set for the vertices of such facets before the diagram is built again */
  uint8_t *fbad, *vguard;
  int32_t *vnode;
  hx_lid nvdiag;
  int8_t *prechoice; /* a repair round: the variant kept before for a facet unchanged since (-1: none) */
  /* the facets' boundary edges (--edge-points): qseg[4 q + e] the segment of quad q's edge e
     (-1: none), segsph[s] the sphere whose gap spaces segment s, segon[s] 1 while spaced */
  int32_t *qseg, *segsph;
  uint8_t *segon;
  hx_lid nseg;
  /* --aspect: the diagram edges cut into more than two segments (keys u << 32 | v, u < v,
     sorted; sseg: the segment count, even) */
  int64_t *skey;
  int8_t *sseg;
  hx_lid nskey;
} builder;

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double norm3(const double *a) { return sqrt(dot3(a, a)); }
static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
static double dist3(const double *a, const double *b) {
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return norm3(d);
}

static int grow(void *pp, hx_lid *cap, hx_lid need, size_t elsize) {
  if (need <= *cap) return HX_OK;
  hx_lid nc = *cap ? *cap : 64;
  while (nc < need) nc *= 2;
  HX_CALL(hx_realloc((size_t)nc * elsize, pp));
  *cap = nc;
  return HX_OK;
}

static int add_node(builder *bd, const double x[3], uint8_t mask, int32_t br, int32_t *id) {
  hx_lid old = bd->capn;
  HX_CALL(grow(&bd->X, &bd->capn, bd->nn + 1, 3 * sizeof(double)));
  if (bd->capn != old) { /* the side arrays follow X's capacity */
    HX_CALL(hx_realloc((size_t)bd->capn * sizeof *bd->nbridge, &bd->nbridge));
    HX_CALL(hx_realloc((size_t)bd->capn * sizeof *bd->nmask, &bd->nmask));
  }
  memcpy(bd->X + 3 * bd->nn, x, 3 * sizeof(double));
  bd->nbridge[bd->nn] = br;
  bd->nmask[bd->nn] = mask;
  *id = bd->nn++;
  return HX_OK;
}

/* ---- walls ---------------------------------------------------------------- */

static double wall_dist(const wall *w, const double x[3]) {
  if (w->cyl) {
    double rho = hypot(x[0] - w->p[0], x[1] - w->p[1]);
    return w->R - rho;
  }
  double d[3] = {x[0] - w->p[0], x[1] - w->p[1], x[2] - w->p[2]};
  return -dot3(d, w->n);
}

static void wall_reflect(const wall *w, const double x[3], double y[3]) {
  if (w->cyl) {
    double dx = x[0] - w->p[0], dy = x[1] - w->p[1], rho = hypot(dx, dy);
    double ex = 1, ey = 0;
    if (rho > 0) ex = dx / rho, ey = dy / rho;
    double r2 = 2 * w->R - rho;
    y[0] = w->p[0] + r2 * ex;
    y[1] = w->p[1] + r2 * ey;
    y[2] = x[2];
    return;
  }
  double d[3] = {x[0] - w->p[0], x[1] - w->p[1], x[2] - w->p[2]};
  double s = 2 * dot3(d, w->n);
  for (int c = 0; c < 3; c++) y[c] = x[c] - s * w->n[c];
}

/* closest point of the wall (radial projection for the cylinder) */
static void wall_project(const wall *w, double x[3]) {
  if (w->cyl) {
    double dx = x[0] - w->p[0], dy = x[1] - w->p[1], rho = hypot(dx, dy);
    if (rho > 0) {
      x[0] = w->p[0] + w->R * dx / rho;
      x[1] = w->p[1] + w->R * dy / rho;
    }
    return;
  }
  double d[3] = {x[0] - w->p[0], x[1] - w->p[1], x[2] - w->p[2]};
  double s = dot3(d, w->n);
  for (int c = 0; c < 3; c++) x[c] -= s * w->n[c];
}

/* move x along the unit direction u onto the wall (the root nearest x) */
static void wall_project_along(const wall *w, double x[3], const double u[3]) {
  if (!w->cyl) {
    double d[3] = {x[0] - w->p[0], x[1] - w->p[1], x[2] - w->p[2]};
    double un = dot3(u, w->n);
    if (fabs(un) < 1e-12) {
      wall_project(w, x);
      return;
    }
    double t = -dot3(d, w->n) / un;
    for (int c = 0; c < 3; c++) x[c] += t * u[c];
    return;
  }
  /* |(x + t u - p)_xy| = R */
  double dx = x[0] - w->p[0], dy = x[1] - w->p[1];
  double A = u[0] * u[0] + u[1] * u[1], Bq = 2 * (dx * u[0] + dy * u[1]), C = dx * dx + dy * dy - w->R * w->R;
  if (A < 1e-14) {
    wall_project(w, x);
    return;
  }
  double disc = Bq * Bq - 4 * A * C;
  if (disc < 0) disc = 0;
  double s = sqrt(disc), t1 = (-Bq + s) / (2 * A), t2 = (-Bq - s) / (2 * A);
  double t = fabs(t1) < fabs(t2) ? t1 : t2;
  for (int c = 0; c < 3; c++) x[c] += t * u[c];
}

/* snap x onto every wall of mask (planes first, then the cylinder; they commute
   for the walls we build: the cylinder's axis is parallel to the planes' normals
   or the planes are the box sides) */
static void snap(const builder *bd, uint8_t mask, double x[3]) {
  for (int k = 0; k < bd->nw; k++)
    if ((mask >> k & 1) && !bd->w[k].cyl) wall_project(&bd->w[k], x);
  for (int k = 0; k < bd->nw; k++)
    if ((mask >> k & 1) && bd->w[k].cyl) wall_project(&bd->w[k], x);
}

/* the power of point x to real site s, and the real site of least power at x (its power in
 *pmin): the cell x lies in */
static double site_power(const builder *bd, hx_lid s, const double x[3]) {
  const double *c = bd->sx + 3 * s;
  return (x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) + (x[2] - c[2]) * (x[2] - c[2]) - bd->sr[s] * bd->sr[s];
}
static int32_t power_owner(const builder *bd, const double x[3], double *pmin) {
  int32_t best = 0;
  *pmin = INFINITY;
  for (hx_lid s = 0; s < bd->nreal; s++) {
    double pw = site_power(bd, s, x);
    if (pw < *pmin) *pmin = pw, best = (int32_t)s;
  }
  return best;
}

/* the angle of x about the cylinder W's axis, and the point of the wall at angle th (x, y) */
static double cyl_angle(const wall *W, const double x[3]) { return atan2(x[1] - W->p[1], x[0] - W->p[0]); }
static void cyl_at(const wall *W, double th, double x[3]) { x[0] = W->p[0] + W->R * cos(th), x[1] = W->p[1] + W->R * sin(th); }

/* The arc of the cylinder W from x1 to x2 (both on it) along an edge of sphere a's cell, as
   the angle dth to turn from x1 (signed). Edges spanning more than 90 degrees occur only at
   the top of thin columns, where one cell covers a wide arc; the arc is then the one whose
   midpoint lies on a's cell (the other's midpoint is deep in another cell), and it can be
   the longer one, which a chord's midpoint projected onto the wall would miss. Returns 1
   where it is the longer one. */
static int cyl_arc(const builder *bd, const wall *W, int32_t a, const double x1[3], const double x2[3], double *dth) {
  double t1 = cyl_angle(W, x1), d = remainder(cyl_angle(W, x2) - t1, 2 * HX_PI);
  *dth = d;
  if (fabs(d) <= 0.5 * HX_PI) return 0;
  double excess[2];
  for (int side = 0; side < 2; side++) {
    double m[3] = {0, 0, 0.5 * (x1[2] + x2[2])}, pmin;
    cyl_at(W, t1 + 0.5 * (side ? d - copysign(2 * HX_PI, d) : d), m);
    power_owner(bd, m, &pmin);
    excess[side] = site_power(bd, a, m) - pmin;
  }
  if (excess[1] >= excess[0]) return 0;
  *dth = d - copysign(2 * HX_PI, d);
  return 1;
}

/* ---- sites ---------------------------------------------------------------- */

static int build_sites(builder *bd, const hx_pebble_bed *bed, const hx_pebble_opts *o) {
  double dmax = 0;
  for (hx_lid i = 0; i < bed->n; i++) dmax = fmax(dmax, 2 * bed->r[i]);
  double near = 3 * dmax;
  hx_lid cap = bed->n * 4 + 16;
  bd->nreal = bed->n;
  HX_CALL(hx_malloc((size_t)cap * 3 * sizeof *bd->sx, &bd->sx));
  HX_CALL(hx_malloc((size_t)cap * sizeof *bd->sr, &bd->sr));
  HX_CALL(hx_malloc((size_t)cap * sizeof *bd->sparent, &bd->sparent));
  HX_CALL(hx_malloc((size_t)cap * sizeof *bd->smask, &bd->smask));
  hx_lid ns = 0;
  for (hx_lid i = 0; i < bed->n; i++) {
    memcpy(bd->sx + 3 * ns, bed->xyz + 3 * i, 3 * sizeof(double));
    bd->sr[ns] = bed->r[i];
    bd->sparent[ns] = i;
    bd->smask[ns] = 0;
    ns++;
  }
  for (hx_lid i = 0; i < bed->n; i++) {
    uint8_t nearmask = 0;
    for (int k = 0; k < bd->nw; k++)
      if (wall_dist(&bd->w[k], bed->xyz + 3 * i) < near) nearmask |= (uint8_t)(1u << k);
    /* every non-empty subset of the near walls */
    for (unsigned sub = nearmask; sub; sub = (sub - 1) & nearmask) {
      if (ns + 1 > cap) {
        cap *= 2;
        HX_CALL(hx_realloc((size_t)cap * 3 * sizeof *bd->sx, &bd->sx));
        HX_CALL(hx_realloc((size_t)cap * sizeof *bd->sr, &bd->sr));
        HX_CALL(hx_realloc((size_t)cap * sizeof *bd->sparent, &bd->sparent));
        HX_CALL(hx_realloc((size_t)cap * sizeof *bd->smask, &bd->smask));
      }
      double y[3];
      memcpy(y, bed->xyz + 3 * i, sizeof y);
      for (int k = 0; k < bd->nw; k++)
        if (sub >> k & 1) wall_reflect(&bd->w[k], y, y);
      memcpy(bd->sx + 3 * ns, y, sizeof y);
      bd->sr[ns] = bed->r[i];
      bd->sparent[ns] = i;
      bd->smask[ns] = (uint8_t)sub;
      ns++;
    }
  }
  (void)o;
  bd->ns = ns;
  return HX_OK;
}

/* ---- diagram -------------------------------------------------------------- */

typedef struct edgekey {
  int64_t key;
  int32_t tet;
} edgekey;
static int cmp_edgekey(const void *a, const void *b) {
  const edgekey *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->tet - y->tet;
}

static int find(int32_t *par, int32_t v) {
  while (par[v] != v) {
    par[v] = par[par[v]];
    v = par[v];
  }
  return v;
}

typedef struct pedge {
  double len;
  int32_t u, v;
} pedge;
static int cmp_pedge(const void *a, const void *b) {
  const pedge *x = a, *y = b;
  return x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
}

/* distinct cyclic vertex list of facet f under the union-find (roots), into out;
   returns its length */
static int facet_roots(const builder *bd, int32_t *par, const facet *f, int32_t *out, int max) {
  int m = 0;
  for (int k = 0; k < f->nv; k++) {
    int32_t r = find(par, bd->fv[f->v0 + k]);
    if (m && out[m - 1] == r) continue;
    if (m == max) return max + 1;
    out[m++] = r;
  }
  while (m > 1 && out[m - 1] == out[0]) m--;
  return m;
}

#define MAXPOLY 64
#define NVAR 18    /* tessellation variants of a fan facet (the last re-builds the best) */
#define SPREAD 32  /* a fan facet's kept variant + SPREAD: its near-contact rings spread (choice[f]) */
#define NC_RINGS 9 /* --aspect: the most rings about a near contact */
/* --aspect A: the tessellation sized for ASPECT_MARGIN x A, as the swept and curved elements
   come out longer than the estimates (pb67 at N = 7 after --optimize: 144 elements above 20
   with 0.8, 204 with 0.9, 122 with 0.75 at 6 % more elements) */
#define ASPECT_MARGIN 0.8
/* --aspect A: a tessellation variant passes where its estimate (facet_aspect_est: straight
   lines between the columns' corners) is at most ASPECT_EST_MARGIN x A; the swept elements come
   out a few % above it (pb67 at order 3: above 20 60 -> 52 with 0.95, the same elements; the
   300-sphere poured cylinder 42 -> 30 with 0.2 % more; 0.9: 52 and 26 with 0.6 % more) */
#define ASPECT_EST_MARGIN 0.95

static double pair_gap(const builder *bd, int32_t a, int32_t b) {
  return dist3(bd->sx + 3 * a, bd->sx + 3 * b) - bd->sr[a] - bd->sr[b];
}

/* the wall across which site b mirrors sphere a (b a's own mirror in exactly one wall), else -1 */
static int own_wall(const builder *bd, int32_t a, int32_t b) {
  if (bd->sparent[b] != a) return -1;
  int nb = 0, k = -1;
  for (int q = 0; q < bd->nw; q++)
    if (bd->smask[b] >> q & 1) nb++, k = q;
  return nb == 1 ? k : -1;
}

/* 1: wall w is an inlet / outlet plane that is extruded */
static int extruded(const hx_pebble_opts *o, const wall *w) {
  return (w->kind == 1 && o->inlet_len > 0) || (w->kind == 2 && o->outlet_len > 0);
}

/* A facet (a, b) needs a bridge: real pair or own mirror with a gap below the threshold */
static int facet_contact(const builder *bd, const hx_pebble_opts *o, const facet *f, double *gap) {
  int32_t a = f->a, b = f->b;
  double dmin = 2 * fmin(bd->sr[a], bd->sr[b]);
  if (bd->smask[b] == 0) {
    *gap = pair_gap(bd, a, b);
    return *gap < o->bridge_gap * dmin;
  }
  int k = own_wall(bd, a, b);
  if (k < 0) return 0;
  *gap = wall_dist(&bd->w[k], bd->sx + 3 * a) - bd->sr[a];
  return *gap < o->wall_gap * dmin;
}

/* ---- plane fit of diagram vertices ------------------------------------------ */

/* the plane of a wall near x (the tangent plane for the cylinder): n . y = off */
static void wall_plane(const wall *w, const double x[3], double n[3], double *off) {
  if (w->cyl) {
    double rx = x[0] - w->p[0], ry = x[1] - w->p[1], rr = hypot(rx, ry);
    if (!(rr > 0)) rx = 1, ry = 0, rr = 1;
    n[0] = rx / rr, n[1] = ry / rr, n[2] = 0;
    *off = n[0] * (w->p[0] + w->R * n[0]) + n[1] * (w->p[1] + w->R * n[1]);
    return;
  }
  memcpy(n, w->n, 3 * sizeof(double));
  *off = dot3(w->n, w->p);
}

/* the plane a facet's polygon should lie in: the power plane of its two sites, or the
   wall for a facet with a ghost (the tessellation puts those on the wall) */
static void facet_plane(const builder *bd, const facet *F, const double x[3], double n[3], double *off) {
  if (F->wall >= 0) {
    wall_plane(&bd->w[F->wall], x, n, off);
    return;
  }
  const double *xa = bd->sx + 3 * F->a, *xb = bd->sx + 3 * F->b;
  double d[3], L2 = 0;
  for (int c = 0; c < 3; c++) d[c] = xb[c] - xa[c], L2 += d[c] * d[c];
  double L = sqrt(L2), t = (L2 + bd->sr[F->a] * bd->sr[F->a] - bd->sr[F->b] * bd->sr[F->b]) / (2 * L2);
  *off = 0;
  for (int c = 0; c < 3; c++) n[c] = d[c] / L, *off += n[c] * (xa[c] + t * d[c]);
}

/* Where a diagram vertex goes when it is snapped onto its walls or when a cluster of
   vertices is merged: the least-squares point of the planes of every facet incident to
   the cluster (each facet once), the walls of mask weighted 100, pulled towards x0 with
   weight 0.01. Moving along the wall normal (snap) or to the cluster's mean instead
   takes the vertex off the power planes of its facets; a small facet seen nearly edge
   on from a sphere centre then stops being star-shaped from it and its columns fold
   (issue 5). The caller snaps the result and checks how far it moved. A vertex on the
   cylinder keeps x0. */
static void plane_fit(const builder *bd, const int32_t *vf_start, const int32_t *vf, const int32_t *next, int32_t r1, int32_t r2,
                      uint8_t mask, const double x0[3], double out[3]) {
  /* not on the container cylinder: its mirror sites' power planes are only tangent to
     it, the facets there are curved onto it, and fitting planes made facets there worse */
  memcpy(out, x0, 3 * sizeof(double));
  for (int k = 0; k < bd->nw; k++)
    if ((mask >> k & 1) && bd->w[k].cyl) return;
  double A[3][3] = {{0.01, 0, 0}, {0, 0.01, 0}, {0, 0, 0.01}}, rhs[3];
  for (int c = 0; c < 3; c++) rhs[c] = 0.01 * x0[c];
  int32_t seen[128];
  int nseen = 0;
  for (int side = 0; side < 2; side++)
    for (int32_t t = side ? r2 : r1; t >= 0; t = next ? next[t] : -1)
      for (int32_t k = vf_start[t]; k < vf_start[t + 1]; k++) {
        int32_t f = vf[k], dup = 0;
        for (int z = 0; z < nseen && !dup; z++) dup = seen[z] == f;
        if (dup) continue;
        if (nseen < 128) seen[nseen++] = f;
        double n[3], off;
        facet_plane(bd, &bd->F[f], x0, n, &off);
        for (int i = 0; i < 3; i++) {
          rhs[i] += off * n[i];
          for (int j = 0; j < 3; j++) A[i][j] += n[i] * n[j];
        }
      }
  for (int k = 0; k < bd->nw; k++)
    if (mask >> k & 1) {
      double n[3], off;
      wall_plane(&bd->w[k], x0, n, &off);
      for (int i = 0; i < 3; i++) {
        rhs[i] += 100 * off * n[i];
        for (int j = 0; j < 3; j++) A[i][j] += 100 * n[i] * n[j];
      }
    }
  double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
               A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
  for (int c = 0; c < 3; c++) {
    double M[3][3];
    memcpy(M, A, sizeof M);
    for (int i = 0; i < 3; i++) M[i][c] = rhs[i];
    out[c] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
              M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) /
             det;
  }
  if (!(isfinite(out[0]) && isfinite(out[1]) && isfinite(out[2]))) memcpy(out, x0, 3 * sizeof(double));
}

static double poly_inner_dist(const double *P, int n, double px, double py);

/* room about the pierce point of facet F (line of centres through the power plane) if
   its polygon were the m points pts: the signed distance to the polygon's boundary,
   > 0 when the whole polygon is seen from there (poly_inner_dist), in the power plane */
static double facet_room(const builder *bd, const facet *F, const double *const *pts, int m) {
  const double *xa = bd->sx + 3 * F->a, *xb = bd->sx + 3 * F->b;
  double d[3], u[3], p[3], L2 = 0;
  for (int c = 0; c < 3; c++) d[c] = xb[c] - xa[c], L2 += d[c] * d[c];
  double L = sqrt(L2), t = (L2 + bd->sr[F->a] * bd->sr[F->a] - bd->sr[F->b] * bd->sr[F->b]) / (2 * L2);
  for (int c = 0; c < 3; c++) u[c] = d[c] / L, p[c] = xa[c] + t * d[c];
  double e1[3], e2[3], tmp[3] = {1, 0, 0};
  if (fabs(u[0]) > 0.6) tmp[0] = 0, tmp[1] = 1;
  cross3(u, tmp, e1);
  double l1 = norm3(e1);
  for (int c = 0; c < 3; c++) e1[c] /= l1;
  cross3(u, e1, e2);
  double P2[2 * MAXPOLY], area = 0;
  for (int k = 0; k < m; k++) {
    double r[3];
    for (int c = 0; c < 3; c++) r[c] = pts[k][c] - p[c];
    P2[2 * k] = dot3(r, e1), P2[2 * k + 1] = dot3(r, e2);
  }
  for (int k = 0; k < m; k++) area += P2[2 * k] * P2[2 * ((k + 1) % m) + 1] - P2[2 * ((k + 1) % m)] * P2[2 * k + 1];
  if (area < 0)
    for (int i = 0, j = m - 1; i < j; i++, j--)
      for (int c = 0; c < 2; c++) {
        double x = P2[2 * i + c];
        P2[2 * i + c] = P2[2 * j + c], P2[2 * j + c] = x;
      }
  return poly_inner_dist(P2, m, 0, 0);
}

/* ---- the container cylinder: clipping ---------------------------------------- */

static int cmp_chord(const void *pa, const void *pb) {
  const int32_t *x = pa, *y = pb;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* the input error for a sphere whose power cell does not fit the container (what: how) */
static int wall_gap_error(const builder *bd, int32_t sphere, const char *what) {
  const double *c = bd->sx + 3 * sphere;
  return HX_ERROR(HX_ERR_INPUT,
                  "pebble: the power cell of the sphere at (%g, %g, %g) %s; the mesher needs spheres near every part "
                  "of the wall",
                  c[0], c[1], c[2], what);
}

/* record the wall chord (c1, c2) of facet F for each real sphere of F: (cell, c1, c2) */
static int push_chord(const builder *bd, const facet *F, int32_t c1, int32_t c2, int32_t **chord, hx_lid *nch, hx_lid *capch) {
  for (int side = 0; side < 2; side++) {
    int32_t cell = side ? F->b : F->a;
    if (bd->smask[cell]) continue;
    if (*nch + 1 > *capch) {
      *capch = 2 * *capch + 64;
      HX_CALL(hx_realloc((size_t)*capch * 3 * sizeof **chord, chord));
    }
    (*chord)[3 * *nch] = cell, (*chord)[3 * *nch + 1] = c1, (*chord)[3 * *nch + 2] = c2;
    (*nch)++;
  }
  return HX_OK;
}

/* The mirror sites of the container cylinder are radial reflections. Every point inside
   the cylinder is nearer (in power) to a real sphere than to any mirror, so the real
   cells cover the inside, but they reach beyond the wall: between spheres far apart
   along the wall the mirrors' tangent planes meet well outside it, and snapping those
   vertices back folds facets. So the cells are clipped by the cylinder instead:
   every facet with a cylinder mirror is dropped (it lies outside), every other facet is
   clipped (each diagram edge crossing the wall gets one vertex on it, shared by the
   facets of the edge), and the wall facet of a sphere is rebuilt as the loop of the
   chords its clipped facets leave on the wall, as the facet with its own mirror.
   Vertex ids: tetrahedra [0, T), crossings [T, T + nc); their initial positions and
   wall masks are returned in *pos and *msk. */
static int clip_cylinder(builder *bd, double dmean, hx_lid *nvert, double **pos, uint8_t **msk) {
  hx_power3d *pd = bd->pd;
  hx_lid T = pd->num_tets;
  int cw = -1;
  for (int k = 0; k < bd->nw; k++)
    if (bd->w[k].cyl) cw = k;
  uint8_t cbit = (uint8_t)(1u << cw);
  const wall *W = &bd->w[cw];
  double eps = 1e-7 * dmean;
  uint8_t *tm;
  HX_CALL(hx_malloc((size_t)T * sizeof *tm, &tm));
  for (hx_lid t = 0; t < T; t++) {
    uint8_t m = 0;
    for (int k = 0; k < 4; k++) m |= bd->smask[pd->tet[4 * t + k]];
    tm[t] = m;
  }
  /* crossings keyed by the edge (open addressing) */
  hx_lid hcap = 64;
  while (hcap < 2 * bd->nfv) hcap *= 2;
  int64_t *hkey = NULL;
  int32_t *hval = NULL, *fv2 = NULL, *chord = NULL;
  double *cp = NULL;
  uint8_t *cm = NULL;
  hx_lid nc = 0, capc = 0, nfv2 = 0, capfv2 = bd->nfv + 16, nch = 0, capch = 0, nf2 = 0;
  int rc = hx_malloc((size_t)hcap * sizeof *hkey, &hkey);
  if (!rc) rc = hx_malloc((size_t)hcap * sizeof *hval, &hval);
  if (!rc) rc = hx_malloc((size_t)capfv2 * sizeof *fv2, &fv2);
  for (hx_lid i = 0; i < hcap && !rc; i++) hkey[i] = -1;
  for (hx_lid f = 0; f < bd->nf && !rc; f++) {
    facet F = bd->F[f];
    if (bd->smask[F.b] & cbit) continue; /* outside the wall */
    int32_t out[2 * MAXPOLY + 2], no = 0, cr[2 * MAXPOLY + 2], ncr = 0;
    /* vertices in (1), on the wall (0) or out (-1); events where the loop leaves the
       inside (the last point in or on) or enters it (the first point in or on) */
    int first_in = 0;
    for (int k = 0; k < F.nv && !rc; k++) {
      int32_t P = bd->fv[F.v0 + k], Q = bd->fv[F.v0 + (k + 1) % F.nv];
      double dP = wall_dist(W, pd->centre + 3 * P), dQ = wall_dist(W, pd->centre + 3 * Q);
      int sP = dP > eps ? 1 : dP >= -eps ? 0 : -1, sQ = dQ > eps ? 1 : dQ >= -eps ? 0 : -1;
      if (k == 0) first_in = sP >= 0;
      if (sP >= 0 && no < 2 * MAXPOLY) out[no++] = P;
      if (sP == 0 && sQ < 0) cr[ncr++] = P; /* leaves at P */
      if (sP < 0 && sQ == 0) cr[ncr++] = Q; /* enters at Q (output as the next P) */
      if (sP == 0 && sQ == 0) {
        /* both ends on the wall: along it (a generator; two spheres of the bottom layer at
           the same height give such edges) the edge is a chord of the wall facets itself */
        double mid[3];
        for (int c = 0; c < 3; c++) mid[c] = 0.5 * (pd->centre[3 * P + c] + pd->centre[3 * Q + c]);
        if (fabs(wall_dist(W, mid)) <= eps && (rc = push_chord(bd, &F, P, Q, &chord, &nch, &capch))) break;
      }
      if (sP * sQ >= 0) continue;
      int64_t key = (int64_t)(P < Q ? P : Q) * T + (P < Q ? Q : P);
      hx_lid h = (hx_lid)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 20) & (hcap - 1);
      while (hkey[h] >= 0 && hkey[h] != key) h = (h + 1) & (hcap - 1);
      if (hkey[h] < 0) {
        /* the crossing: |x_xy - axis| = R on the segment from the inner end */
        int inP = sP > 0;
        const double *A = pd->centre + 3 * (inP ? P : Q), *B = pd->centre + 3 * (inP ? Q : P);
        double lo = 0, hi = 1, x[3];
        for (int it = 0; it < 60; it++) {
          double mid = 0.5 * (lo + hi);
          for (int c = 0; c < 3; c++) x[c] = A[c] + mid * (B[c] - A[c]);
          if (wall_dist(W, x) >= 0) lo = mid;
          else hi = mid;
        }
        for (int c = 0; c < 3; c++) x[c] = A[c] + lo * (B[c] - A[c]);
        wall_project(W, x);
        if (nc + 1 > capc) {
          capc = 2 * capc + 64;
          if ((rc = hx_realloc((size_t)capc * 3 * sizeof *cp, &cp)) || (rc = hx_realloc((size_t)capc * sizeof *cm, &cm))) break;
        }
        memcpy(cp + 3 * nc, x, sizeof x);
        cm[nc] = (uint8_t)(cbit | (tm[P] & tm[Q] & ~cbit));
        hkey[h] = key, hval[h] = (int32_t)(T + nc);
        nc++;
        if (2 * (nc + 1) > hcap) {
          rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: crossing table full");
          break;
        }
      }
      if (no < 2 * MAXPOLY) out[no++] = hval[h];
      cr[ncr++] = hval[h];
    }
    if (rc) break;
    if (no > MAXPOLY) {
      rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: a facet has more than %d vertices", MAXPOLY);
      break;
    }
    if (ncr % 2) {
      rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: a facet crosses the container wall an odd number of times");
      break;
    }
    /* chords: the outside runs, between the leaving and the entering crossing */
    if (ncr) {
      for (int z = 0; z < ncr; z += 2) {
        int32_t c1 = first_in ? cr[z] : cr[(z + ncr - 1) % ncr], c2 = first_in ? cr[z + 1] : cr[z];
        if (c1 != c2 && (rc = push_chord(bd, &F, c1, c2, &chord, &nch, &capch))) break;
      }
    }
    if (rc || no < 3) continue;
    if (nfv2 + no > capfv2) {
      capfv2 = 2 * (nfv2 + no);
      if ((rc = hx_realloc((size_t)capfv2 * sizeof *fv2, &fv2))) break;
    }
    F.v0 = (int32_t)nfv2;
    F.nv = no;
    memcpy(fv2 + nfv2, out, (size_t)no * sizeof *out);
    nfv2 += no;
    bd->F[nf2++] = F;
  }
  hx_free(&hkey), hx_free(&hval);
  /* wall facets: the chord loop of every cell that reaches the wall, kept as the facet
     with the cell's own cylinder mirror (mirror[a]) */
  int32_t *mirror = NULL;
  if (!rc) rc = hx_malloc((size_t)bd->nreal * sizeof *mirror, &mirror);
  if (!rc) {
    for (hx_lid s2 = 0; s2 < bd->nreal; s2++) mirror[s2] = -1;
    for (hx_lid s2 = bd->nreal; s2 < bd->ns; s2++)
      if (bd->smask[s2] == cbit) mirror[bd->sparent[s2]] = (int32_t)s2;
    qsort(chord, (size_t)nch, 3 * sizeof *chord, cmp_chord);
  }
  for (hx_lid i = 0; i < nch && !rc;) {
    hx_lid j = i;
    while (j < nch && chord[3 * j] == chord[3 * i]) j++;
    int32_t a = chord[3 * i], loop[MAXPOLY + 1];
    int n = (int)(j - i), nl = 0;
    /* coincident vertices (cospherical sites give several tetrahedra one power centre;
       the clean-up merges them later) are one point of the loop: chords between them
       are dropped and their ends renamed to one of them */
    for (int z = 0; z < n; z++) {
      int32_t c1 = chord[3 * (i + z) + 1], c2 = chord[3 * (i + z) + 2];
      const double *x1 = c1 < T ? pd->centre + 3 * c1 : cp + 3 * (c1 - T);
      const double *x2 = c2 < T ? pd->centre + 3 * c2 : cp + 3 * (c2 - T);
      if (c1 == c2 || dist3(x1, x2) > 1e-9 * dmean) continue;
      for (int y = 0; y < n; y++)
        for (int e = 1; e <= 2; e++)
          if (chord[3 * (i + y) + e] == c2) chord[3 * (i + y) + e] = c1;
    }
    {
      int m = 0;
      for (int z = 0; z < n; z++) {
        int32_t c1 = chord[3 * (i + z) + 1], c2 = chord[3 * (i + z) + 2], dup = c1 == c2;
        for (int y = 0; y < m && !dup; y++) {
          int32_t d1 = chord[3 * (i + y) + 1], d2 = chord[3 * (i + y) + 2];
          dup = (d1 == c1 && d2 == c2) || (d1 == c2 && d2 == c1);
        }
        if (dup) continue;
        chord[3 * (i + m) + 1] = c1, chord[3 * (i + m) + 2] = c2;
        m++;
      }
      n = m;
    }
    if (n > MAXPOLY) {
      rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: the wall facet of sphere %d has more than %d vertices", (int)bd->sparent[a],
                    MAXPOLY);
      break;
    }
    uint8_t used[MAXPOLY] = {0};
    int32_t cur = chord[3 * i + 2];
    loop[nl++] = chord[3 * i + 1];
    used[0] = 1;
    while (cur != loop[0] && nl <= n) {
      loop[nl++] = cur;
      int nx = -1;
      for (int z = 0; z < n; z++) {
        if (used[z]) continue;
        if (chord[3 * (i + z) + 1] == cur) nx = z, cur = chord[3 * (i + z) + 2];
        else if (chord[3 * (i + z) + 2] == cur) nx = z, cur = chord[3 * (i + z) + 1];
        if (nx >= 0) break;
      }
      if (nx < 0) break;
      used[nx] = 1;
    }
    if (cur != loop[0] || nl != n) {
      rc = wall_gap_error(bd, a,
                          "meets the container wall in more than one piece (a sphere far from the wall between "
                          "others near it)");
      break;
    }
    if (mirror[a] < 0) {
      rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: sphere %d reaches the wall but has no mirror site", (int)bd->sparent[a]);
      break;
    }
    if (nfv2 + nl > capfv2) {
      capfv2 = 2 * (nfv2 + nl);
      if ((rc = hx_realloc((size_t)capfv2 * sizeof *fv2, &fv2))) break;
    }
    if ((rc = grow(&bd->F, &bd->capf, nf2 + 1, sizeof *bd->F))) break;
    facet *F = &bd->F[nf2++];
    F->a = a, F->b = mirror[a], F->v0 = (int32_t)nfv2, F->nv = nl, F->wall = cw, F->bridge = -1, F->centre = -1,
    F->q0 = F->nq = 0;
    memcpy(fv2 + nfv2, loop, (size_t)nl * sizeof *loop);
    nfv2 += nl;
    i = j;
  }
  hx_free(&chord), hx_free(&mirror);
  /* a plane with no facet left lies inside one cell, whose wall facet is then a band round
     the whole cylinder (the top of a thin column with one sphere above the rest), or no
     diagram vertex is inside the container near it (a bed of a few spheres) */
  for (int k = 0; k < bd->nw && !rc; k++) {
    if (bd->w[k].cyl) continue;
    hx_lid n = 0;
    for (hx_lid f = 0; f < nf2; f++) n += bd->F[f].wall == k;
    if (n) continue;
    double z = bd->w[k].p[2], centre[3] = {W->p[0], W->p[1], z}, pmin; /* the planes are normal to the axis, z */
    const double *c = bd->sx + 3 * power_owner(bd, centre, &pmin);
    rc = HX_ERROR(HX_ERR_INPUT,
                  "pebble: no facet meets the %s plane z = %g inside the container: the power cell of the sphere at "
                  "(%g, %g, %g) covers it whole, or too few spheres span the container (the mesher needs spheres near "
                  "every part of the wall)",
                  bd->w[k].kind == 1 ? "bottom" : "top", z, c[0], c[1], c[2]);
  }
  if (rc) {
    hx_free(&fv2), hx_free(&cp), hx_free(&cm), hx_free(&tm);
    return rc;
  }
  hx_free(&bd->fv);
  bd->fv = fv2, bd->nfv = nfv2, bd->capfv = capfv2, bd->nf = nf2;
  /* initial positions and masks of every vertex */
  hx_lid NV = T + nc;
  double *P0 = NULL;
  uint8_t *M0 = NULL;
  rc = hx_malloc((size_t)(NV + 1) * 3 * sizeof *P0, &P0);
  if (!rc) rc = hx_malloc((size_t)(NV + 1) * sizeof *M0, &M0);
  if (rc) {
    hx_free(&P0), hx_free(&M0), hx_free(&cp), hx_free(&cm), hx_free(&tm);
    return rc;
  }
  memcpy(P0, pd->centre, (size_t)T * 3 * sizeof *P0);
  if (nc) memcpy(P0 + 3 * T, cp, (size_t)nc * 3 * sizeof *P0);
  for (hx_lid t = 0; t < T; t++) /* on the cylinder only where the centre is */
    M0[t] = fabs(wall_dist(W, pd->centre + 3 * t)) <= eps ? tm[t] | cbit : tm[t] & (uint8_t)~cbit;
  for (hx_lid k = 0; k < nc; k++) M0[T + k] = cm[k];
  hx_free(&cp), hx_free(&cm), hx_free(&tm);
  *nvert = NV, *pos = P0, *msk = M0;
  return HX_OK;
}

/* may the diagram vertex clusters ru and rv merge? Not if a facet of ru that also has rv
   would be pinched (they are not neighbours on it) or would vanish (3 vertices left) while
   it is a contact or near-contact facet */
static int collapse_keeps_facets(const builder *bd, const hx_pebble_opts *o, int32_t *par, const int32_t *next,
                                 const int32_t *vf_start, const int32_t *vf, int32_t ru, int32_t rv) {
  int ok = 1;
  for (int32_t t = ru; t >= 0 && ok; t = next[t])
    for (int32_t k = vf_start[t]; k < vf_start[t + 1] && ok; k++) {
      const facet *F = &bd->F[vf[k]];
      int32_t poly[MAXPOLY + 1];
      int m2 = facet_roots(bd, par, F, poly, MAXPOLY);
      int iu = -1, iv = -1;
      for (int z = 0; z < m2 && z <= MAXPOLY; z++) {
        if (poly[z] == ru) iu = z;
        if (poly[z] == rv) iv = z;
      }
      if (iu < 0 || iv < 0) continue;
      int adj = (iu + 1) % m2 == iv || (iv + 1) % m2 == iu;
      if (!adj) ok = 0; /* would pinch the facet */
      else if (m2 <= 3) {
        /* the facet would vanish: never a contact facet */
        double gap;
        if (facet_contact(bd, o, F, &gap)) ok = 0;
        if (bd->smask[F->b] == 0 && pair_gap(bd, F->a, F->b) < o->ring_gap * 2 * fmin(bd->sr[F->a], bd->sr[F->b])) ok = 0;
      }
    }
  return ok;
}

/* contact facets of either cluster: the merge of ru and rv at P must not take their
   pierce point (the bridge axis) out of view of the polygon, nor close to its boundary,
   when it was clear before (the vertices of a cluster drift with every merge); with
   plane_guard, nor a vertex far off a contact's plane (below) */
static int collapse_keeps_room(const builder *bd, const hx_pebble_opts *o, int32_t *par, const int32_t *next,
                               const int32_t *vf_start, const int32_t *vf, const double *V, int32_t ru, int32_t rv,
                               const double P[3], int plane_guard) {
  for (int side = 0; side < 2; side++)
    for (int32_t t = side ? rv : ru; t >= 0; t = next[t])
      for (int32_t k = vf_start[t]; k < vf_start[t + 1]; k++) {
        const facet *F = &bd->F[vf[k]];
        double gap;
        if (!facet_contact(bd, o, F, &gap)) continue;
        int32_t poly[MAXPOLY + 1];
        int m2 = facet_roots(bd, par, F, poly, MAXPOLY);
        if (m2 < 3 || m2 > MAXPOLY) continue;
        const double *before[MAXPOLY], *after[MAXPOLY];
        int na = 0;
        for (int z = 0; z < m2; z++) {
          before[z] = V + 3 * poly[z];
          const double *x = poly[z] == ru || poly[z] == rv ? P : V + 3 * poly[z];
          if (!na || after[na - 1] != x) after[na++] = x;
        }
        while (na > 1 && after[na - 1] == after[0]) na--;
        if (na < 3) continue; /* the vanishing guard decides */
        double dmin = 2 * fmin(bd->sr[F->a], bd->sr[F->b]), room_min = 1.5 * o->bridge_frac * dmin;
        double r1 = facet_room(bd, F, after, na);
        if (r1 < room_min && r1 < facet_room(bd, F, before, m2)) return 0;
        /* nor take a vertex off the contact's power plane by more than 5 % of d: its rings
           follow the polygon, and near a contact the spheres are within rho^2 / 2R of
           the plane (a 10^5 cylinder bed had vertices 0.1 d off a touching pair's plane and
           a ring node inside a sphere) */
        if (plane_guard && !bd->smask[F->b]) {
          double n[3], off, worst = 0;
          facet_plane(bd, F, P, n, &off);
          for (int z = 0; z < m2; z++) worst = fmax(worst, fabs(dot3(n, before[z]) - off));
          double dp = fabs(dot3(n, P) - off);
          if (dp > 0.05 * dmin && dp > worst) return 0;
        }
      }
  return 1;
}

static double min_corner_sj(const double *X, const int32_t *cn);

/* the worst corner scaled Jacobian of the linear columns of the plain fan of the
   triangle pts (about its centroid, split at the edge midpoints, those snapped onto the
   walls of both ends; msk: the vertices' wall masks) swept radially to either sphere of
   F; one column from facet to sphere (the layers and the sphere's curvature between
   the corners, which the tessellation's own check sees, lower it further) */
static double tri_fan_q(const builder *bd, const facet *F, const double *const pts[3], const uint8_t msk[3]) {
  static const int q2l[4] = {0, 1, 3, 2}; /* quad corner -> hex corner */
  double T[3][3], Mid[3][3], O[3] = {0, 0, 0}, nrm[3], d[3], e1[3], e2[3];
  uint8_t M[3];
  for (int v = 0; v < 3; v++) {
    M[v] = msk[v];
    for (int c = 0; c < 3; c++) T[v][c] = pts[v][c], O[c] += pts[v][c] / 3;
  }
  for (int c = 0; c < 3; c++) e1[c] = T[1][c] - T[0][c], e2[c] = T[2][c] - T[0][c];
  cross3(e1, e2, nrm);
  for (int c = 0; c < 3; c++) d[c] = bd->sx[3 * F->b + c] - bd->sx[3 * F->a + c];
  if (dot3(nrm, d) < 0) { /* CCW about a -> b */
    for (int c = 0; c < 3; c++) {
      double x = T[1][c];
      T[1][c] = T[2][c], T[2][c] = x;
    }
    uint8_t t = M[1];
    M[1] = M[2], M[2] = t;
  }
  /* midpoints on the walls of both ends (as the tessellation puts a wall edge's) */
  for (int v = 0; v < 3; v++) {
    for (int c = 0; c < 3; c++) Mid[v][c] = 0.5 * (T[v][c] + T[(v + 1) % 3][c]);
    snap(bd, M[v] & M[(v + 1) % 3], Mid[v]);
  }
  int32_t cn[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  double worst = 1;
  for (int side = 0; side < 2; side++) {
    int32_t s = side ? F->b : F->a;
    const double *c0 = bd->sx + 3 * s;
    for (int k = 0; k < 3; k++) {
      const double *q[4] = {O, Mid[(k + 2) % 3], T[k], Mid[k]};
      double P[24];
      for (int v = 0; v < 4; v++) {
        const double *x = q[side ? 3 - v : v];
        double r[3], l;
        for (int c = 0; c < 3; c++) r[c] = x[c] - c0[c];
        l = norm3(r);
        for (int c = 0; c < 3; c++) {
          P[3 * q2l[v] + c] = c0[c] + bd->sr[s] * r[c] / l;
          P[3 * (q2l[v] + 4) + c] = x[c];
        }
      }
      double sj = min_corner_sj(P, cn);
      if (!(sj > -1)) sj = -1;
      worst = fmin(worst, sj);
    }
  }
  return worst;
}

/* is P outside every sphere of the facets of clusters ru and rv by 5 % of its radius?
   (the negligible-facet collapse moves vertices by up to --collapse d) */
static int collapse_clears_spheres(const builder *bd, const int32_t *next, const int32_t *vf_start, const int32_t *vf, int32_t ru,
                                   int32_t rv, const double P[3]) {
  for (int side = 0; side < 2; side++)
    for (int32_t t = side ? rv : ru; t >= 0; t = next[t])
      for (int32_t k = vf_start[t]; k < vf_start[t + 1]; k++) {
        const facet *F = &bd->F[vf[k]];
        for (int w = 0; w < 2; w++) {
          int32_t c = w ? F->b : F->a;
          if (bd->smask[c]) continue;
          if (dist3(P, bd->sx + 3 * c) < 1.05 * bd->sr[c]) return 0;
        }
      }
  return 1;
}

/* union of the vertex clusters: rv into ru, the merged vertex at P with wall mask m */
static void cluster_union(int32_t *par, double *V, uint8_t *vmask, int32_t *csize, int32_t *next, int32_t *tail, int32_t ru,
                          int32_t rv, const double P[3], uint8_t m) {
  par[rv] = ru;
  memcpy(V + 3 * ru, P, 3 * sizeof(double));
  vmask[ru] = m;
  csize[ru] += csize[rv];
  next[tail[ru]] = rv;
  tail[ru] = tail[rv];
}

/* the merge of a negligible or far wall triangle's edge (ru, rv) at P: under the pinch /
   vanish / contact-room guards of the main pass, 5 % clear of the spheres, and of no guarded
   vertex; 1 if merged */
static int guarded_merge(const builder *bd, const hx_pebble_opts *o, int32_t *par, int32_t *next, int32_t *tail, int32_t *csize,
                         uint8_t *vmask, uint8_t *gfl, double *V, const int32_t *vf_start, const int32_t *vf, int32_t ru,
                         int32_t rv, const double P[3], uint8_t m) {
  if ((gfl[ru] | gfl[rv]) || !collapse_keeps_facets(bd, o, par, next, vf_start, vf, ru, rv) ||
      !collapse_keeps_room(bd, o, par, next, vf_start, vf, V, ru, rv, P, 0) ||
      !collapse_clears_spheres(bd, next, vf_start, vf, ru, rv, P))
    return 0;
  gfl[ru] |= gfl[rv];
  cluster_union(par, V, vmask, csize, next, tail, ru, rv, P, m);
  return 1;
}

static int orient_facets(builder *bd);
static void grading(int n, double ratio, double first, double *s);
static double layer_range(const hx_pebble_opts *o, const double *sl, double h, double ra, double *thick);

static int build_diagram(builder *bd, const hx_pebble_opts *o, const hx_pebble_bed *bed, hx_pebble_stats *st) {
  hx_power3d *pd = bd->pd;
  hx_lid T = pd->num_tets;
  double dmean = 0;
  for (hx_lid i = 0; i < bd->nreal; i++) dmean += 2 * bd->sr[i];
  dmean /= bd->nreal;
  /* 1. edges with a real site */
  edgekey *ek;
  hx_lid nek = 0;
  HX_CALL(hx_malloc((size_t)T * 6 * sizeof *ek, &ek));
  static const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (hx_lid t = 0; t < T; t++) {
    const int32_t *s = pd->tet + 4 * t;
    for (int p = 0; p < 6; p++) {
      int32_t a = s[pairs[p][0]], b = s[pairs[p][1]];
      if (a > b) {
        int32_t tmp = a;
        a = b, b = tmp;
      }
      if (bd->smask[a] && bd->smask[b]) continue; /* both ghosts */
      if (bd->smask[a]) continue;                 /* a < b and reals come first: not reached */
      ek[nek].key = (int64_t)a * bd->ns + b;
      ek[nek].tet = (int32_t)t;
      nek++;
    }
  }
  qsort(ek, (size_t)nek, sizeof *ek, cmp_edgekey);
  /* 2. facets: ring walks */
  int rc = HX_OK;
  for (hx_lid g = 0; g < nek && !rc;) {
    hx_lid h = g;
    while (h < nek && ek[h].key == ek[g].key) h++;
    int32_t a = (int32_t)(ek[g].key / bd->ns), b = (int32_t)(ek[g].key % bd->ns);
    hx_lid cnt = h - g;
    if ((rc = grow(&bd->fv, &bd->capfv, bd->nfv + cnt, sizeof *bd->fv))) break;
    if ((rc = grow(&bd->F, &bd->capf, bd->nf + 1, sizeof *bd->F))) break;
    int32_t t0 = ek[g].tet, t = t0;
    /* the two other sites of t0 */
    int32_t other[2], no = 0;
    for (int k = 0; k < 4; k++)
      if (pd->tet[4 * t + k] != a && pd->tet[4 * t + k] != b) other[no++] = pd->tet[4 * t + k];
    int32_t shared = other[1]; /* we leave t0 through the face (a, b, other[1]) */
    hx_lid steps = 0;
    facet *f = &bd->F[bd->nf];
    f->a = a;
    f->b = b;
    f->v0 = bd->nfv;
    f->wall = -1;
    f->bridge = -1;
    f->centre = -1;
    int32_t leave_opp = other[0];
    while (1) {
      bd->fv[bd->nfv++] = t;
      steps++;
      int lo = -1;
      for (int k = 0; k < 4; k++)
        if (pd->tet[4 * t + k] == leave_opp) lo = k;
      int32_t nt = lo >= 0 ? pd->nbr[4 * t + lo] : -1;
      if (nt < 0) {
        rc = wall_gap_error(bd, bd->sparent[a],
                            "is unbounded: no container wall within 3 diameters beyond the bed there (the container "
                            "is far from the bed)");
        break;
      }
      if (nt == t0) break;
      if (steps > cnt) {
        rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: inconsistent ring of tetrahedra around sites %d-%d", (int)a, (int)b);
        break;
      }
      /* in nt: sites a, b, shared, and a new one */
      int32_t nw = -1;
      for (int k = 0; k < 4; k++) {
        int32_t s = pd->tet[4 * nt + k];
        if (s != a && s != b && s != shared) nw = s;
      }
      leave_opp = shared;
      shared = nw;
      t = nt;
    }
    if (rc) break;
    if (steps != cnt) {
      rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: ring around sites %d-%d has %d of %d tetrahedra", (int)a, (int)b, (int)steps,
                    (int)cnt);
      break;
    }
    f->nv = (int32_t)steps;
    if (bd->smask[b]) {
      int k = 0;
      while (!(bd->smask[b] >> k & 1)) k++;
      f->wall = k;
    }
    bd->nf++;
    g = h;
  }
  hx_free(&ek);
  if (rc) return rc;
  st->num_tets = T;
  /* vertices: the tetrahedra's power centres, plus the wall crossings of a cylinder */
  hx_lid NV = T;
  const double *C0 = pd->centre;
  double *Cc = NULL;
  uint8_t *Mc = NULL;
  for (int k = 0; k < bd->nw; k++)
    if (bd->w[k].cyl) {
      HX_CALL(clip_cylinder(bd, dmean, &NV, &Cc, &Mc));
      C0 = Cc;
    }
  /* vertex -> facets incidence, for the plane fit and the collapse guards */
  int32_t *vf_start, *vf;
  HX_CALL(hx_malloc((size_t)(NV + 1) * sizeof *vf_start, &vf_start));
  HX_CALL(hx_malloc((size_t)bd->nfv * sizeof *vf, &vf));
  for (hx_lid f = 0; f < bd->nf; f++)
    for (int k = 0; k < bd->F[f].nv; k++) vf_start[bd->fv[bd->F[f].v0 + k] + 1]++;
  for (hx_lid t = 0; t < NV; t++) vf_start[t + 1] += vf_start[t];
  {
    int32_t *fill;
    HX_CALL(hx_malloc((size_t)NV * sizeof *fill, &fill));
    for (hx_lid f = 0; f < bd->nf; f++)
      for (int k = 0; k < bd->F[f].nv; k++) {
        int32_t t = bd->fv[bd->F[f].v0 + k];
        vf[vf_start[t] + fill[t]++] = (int32_t)f;
      }
    hx_free(&fill);
  }
  /* guarded vertices (repair_guard; flags per cluster root, or-ed by the merges) take
     part in no collapse of an edge of non-zero length */
  uint8_t *gfl;
  HX_CALL(hx_malloc((size_t)NV * sizeof *gfl, &gfl));
  if (bd->vguard && bd->nvdiag == NV) memcpy(gfl, bd->vguard, (size_t)NV);
  /* 3. vertex positions: power centres snapped onto the walls of their ghost sites,
     along the power planes of their facets (plane_fit) where that stays near */
  double *V;
  uint8_t *vmask;
  int32_t *par;
  HX_CALL(hx_malloc((size_t)NV * 3 * sizeof *V, &V));
  HX_CALL(hx_malloc((size_t)NV * sizeof *vmask, &vmask));
  HX_CALL(hx_malloc((size_t)NV * sizeof *par, &par));
  for (hx_lid t = 0; t < NV; t++) {
    uint8_t m = 0;
    if (Mc) m = Mc[t];
    else
      for (int k = 0; k < 4; k++) m |= bd->smask[pd->tet[4 * t + k]];
    vmask[t] = m;
    par[t] = (int32_t)t;
    memcpy(V + 3 * t, C0 + 3 * t, 3 * sizeof(double));
    double y[3];
    memcpy(y, V + 3 * t, sizeof y);
    snap(bd, m, y);
    if (m) {
      double z[3];
      plane_fit(bd, vf_start, vf, NULL, (int32_t)t, -1, m, C0 + 3 * t, z);
      snap(bd, m, z);
      double dz = dist3(z, C0 + 3 * t), dy = dist3(y, C0 + 3 * t);
      if (dz <= 3 * dy + 1e-12 * dmean && dz < 0.5 * o->max_snap * dmean) memcpy(y, z, sizeof y);
    }
    memcpy(V + 3 * t, y, sizeof y);
  }
  /* snapping distance check: only for vertices that are used */
  for (hx_lid f = 0; f < bd->nf; f++)
    for (int k = 0; k < bd->F[f].nv; k++) {
      int32_t t = bd->fv[bd->F[f].v0 + k];
      double dsn = dist3(V + 3 * t, C0 + 3 * t);
      if (dsn > o->max_snap * dmean) {
        double *c = bd->sx + 3 * bd->F[f].a;
        hx_free(&V), hx_free(&vmask), hx_free(&par), hx_free(&gfl);
        return HX_ERROR(HX_ERR_INPUT,
                        "pebble: the power cell of the sphere at (%g, %g, %g) reaches %.3g beyond the container "
                        "(a large empty region next to the wall); the mesher needs spheres near every part of "
                        "the wall",
                        c[0], c[1], c[2], dsn);
      }
    }
  /* 4. merge coincident vertices, then collapse short edges (increasing length) */
  pedge *pe;
  hx_lid npe = 0;
  HX_CALL(hx_malloc((size_t)bd->nfv * sizeof *pe, &pe));
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    for (int k = 0; k < F->nv; k++) {
      int32_t u = bd->fv[F->v0 + k], v = bd->fv[F->v0 + (k + 1) % F->nv];
      pe[npe].u = u, pe[npe].v = v, pe[npe].len = dist3(V + 3 * u, V + 3 * v);
      npe++;
    }
  }
  qsort(pe, (size_t)npe, sizeof *pe, cmp_pedge);
  /* cluster member lists (linked) to enumerate the facets of a cluster */
  int32_t *next, *csize;
  HX_CALL(hx_malloc((size_t)NV * sizeof *next, &next));
  HX_CALL(hx_malloc((size_t)NV * sizeof *csize, &csize));
  for (hx_lid t = 0; t < NV; t++) next[t] = -1, csize[t] = 1;
  int32_t *tail;
  HX_CALL(hx_malloc((size_t)NV * sizeof *tail, &tail));
  for (hx_lid t = 0; t < NV; t++) tail[t] = (int32_t)t;
  double eps0 = 1e-9 * dmean, tol = o->collapse * dmean;
  hx_lid collapsed = 0;
  for (hx_lid q = 0; q < npe; q++) {
    if (pe[q].len > tol) break;
    int32_t ru = find(par, pe[q].u), rv = find(par, pe[q].v);
    if (ru == rv) continue;
    double *Pu = V + 3 * ru, *Pv = V + 3 * rv;
    double len = dist3(Pu, Pv);
    uint8_t m = vmask[ru] | vmask[rv];
    double P[3];
    for (int c = 0; c < 3; c++) P[c] = (csize[ru] * Pu[c] + csize[rv] * Pv[c]) / (csize[ru] + csize[rv]);
    if (len > eps0) { /* on the facets' planes rather than at the mean, if near */
      double z[3];
      plane_fit(bd, vf_start, vf, next, ru, rv, m, P, z);
      snap(bd, m, z);
      if (dist3(z, P) < 0.5 * tol) memcpy(P, z, sizeof P);
    }
    snap(bd, m, P);
    if (len > eps0) {
      if (len > tol) continue;
      if (dist3(P, Pu) > 0.6 * tol || dist3(P, Pv) > 0.6 * tol) continue;
      /* guards on the facets of ru that also contain rv */
      int ok = !(gfl[ru] | gfl[rv]) && collapse_keeps_facets(bd, o, par, next, vf_start, vf, ru, rv);
      if (ok) ok = collapse_keeps_room(bd, o, par, next, vf_start, vf, V, ru, rv, P, len > 0.5 * tol);
      if (!ok) continue;
      collapsed++;
    }
    gfl[ru] |= gfl[rv];
    cluster_union(par, V, vmask, csize, next, tail, ru, rv, P, m);
  }
  /* --aspect A: a sphere's triangle on a wall far from it (where the container's cylinder
     meets the bottom or top plane, 3 R or more from the sphere's centre) sweeps even as its
     plain fan, its fewest quads, to columns as long as near the sphere on quads shrunk by
     R / distance there: aspect about the thickest layer over the fan's shortest edge (a
     spoke from the centroid to a midpoint, or half an edge) on the sphere. Above 1.25 A its
     shortest edge (< --collapse d) is collapsed, each vertex moving by up to --collapse d,
     under the negligible facets' guards (guarded_merge; pb67: a triangle 4.8 from its sphere's centre, estimated 31.9,
     had elements of 39.8; c300 one of 27.6). Not from A: a collapse changes the diagram about
     it, and two beds (a thin column estimated 21.6, and a 100-sphere bed whose triangle the
     inradius estimated 22.9, the fan 18.5) were left with an element folded at order 3 */
  double sl_far[65]; /* the layer grading */
  grading(o->layers, o->ratio, o->first_layer, sl_far);
  for (hx_lid f = 0; f < bd->nf && o->aspect > 0; f++) {
    const facet *F = &bd->F[f];
    if (F->wall < 0 || !bd->smask[F->b]) continue;
    int32_t poly[MAXPOLY + 1];
    if (facet_roots(bd, par, F, poly, MAXPOLY) != 3) continue;
    const double *pts[3] = {V + 3 * poly[0], V + 3 * poly[1], V + 3 * poly[2]};
    double len[3], cen[3] = {0, 0, 0};
    int emin = 0;
    for (int e = 0; e < 3; e++) {
      len[e] = dist3(pts[e], pts[(e + 1) % 3]);
      if (len[e] < len[emin]) emin = e;
      for (int c = 0; c < 3; c++) cen[c] += pts[e][c] / 3;
    }
    if (len[emin] > tol) continue;
    double emn = INFINITY; /* the fan's shortest edge: a spoke (centroid to midpoint) or half an edge */
    for (int e = 0; e < 3; e++) {
      double mid[3];
      for (int c = 0; c < 3; c++) mid[c] = 0.5 * (pts[e][c] + pts[(e + 1) % 3][c]);
      emn = fmin(emn, fmin(dist3(mid, cen), 0.5 * len[e]));
    }
    double R = bd->sr[F->a], D = dist3(cen, bd->sx + 3 * F->a), thick;
    layer_range(o, sl_far, D - R, R, &thick);
    if (thick * D / (emn * R) <= 1.25 * o->aspect) continue;
    int32_t ru = poly[emin], rv = poly[(emin + 1) % 3];
    double P[3];
    uint8_t m = vmask[ru] | vmask[rv];
    for (int c = 0; c < 3; c++) P[c] = (csize[ru] * V[3 * ru + c] + csize[rv] * V[3 * rv + c]) / (csize[ru] + csize[rv]);
    snap(bd, m, P);
    if (dist3(P, V + 3 * ru) > tol || dist3(P, V + 3 * rv) > tol) continue;
    if (!guarded_merge(bd, o, par, next, tail, csize, vmask, gfl, V, vf_start, vf, ru, rv, P, m)) continue;
    collapsed++;
    st->num_negligible++;
  }
  /* negligible facets: a triangle between two spheres that the line of their centres
     misses is seen edge on from both; when its plain fan already sweeps to a poor column
     (tri_fan_q below 0.2, or 0.3 next to the container cylinder: a wall triangle of a
     10^5 cylinder bed scored 0.275 and folded, while 0.3 everywhere made a 10^5 box bed
     fold elsewhere through the collapses it added), no tessellation of it sweeps without
     folding (four such facets gave the 42 inverted elements of a 10^5 box bed): its
     shortest edge (< --collapse d) is collapsed whatever the vertices move, under the
     same guards */
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    if (F->wall >= 0 || bd->smask[F->b]) continue;
    double dmin = 2 * fmin(bd->sr[F->a], bd->sr[F->b]), gap;
    if (facet_contact(bd, o, F, &gap) || pair_gap(bd, F->a, F->b) < o->ring_gap * dmin) continue;
    int32_t poly[MAXPOLY + 1];
    if (facet_roots(bd, par, F, poly, MAXPOLY) != 3) continue;
    const double *pts[3] = {V + 3 * poly[0], V + 3 * poly[1], V + 3 * poly[2]};
    double lmin = INFINITY;
    int emin = 0;
    for (int e = 0; e < 3; e++) {
      double l = dist3(pts[e], pts[(e + 1) % 3]);
      if (l < lmin) lmin = l, emin = e;
    }
    /* a needle (vertices nearly on a line: twice its area under 5 % of its longest edge
       squared) may be thin with no edge shorter than tol: its shortest edge is collapsed
       up to 2.5 tol (a 10^5 cylinder bed had one, edges 0.24 / 0.35 / 0.59 d, 0.03 d off
       its plane, and its fan folded) */
    double lmax = fmax(dist3(pts[0], pts[1]), fmax(dist3(pts[1], pts[2]), dist3(pts[2], pts[0]))), ar[3], e1[3], e2[3];
    for (int c = 0; c < 3; c++) e1[c] = pts[1][c] - pts[0][c], e2[c] = pts[2][c] - pts[0][c];
    cross3(e1, e2, ar);
    int needle = norm3(ar) < 0.05 * lmax * lmax;
    if ((lmin > tol && !(needle && lmin <= 2.5 * tol)) || facet_room(bd, F, pts, 3) >= 0) continue;
    const uint8_t msk[3] = {vmask[poly[0]], vmask[poly[1]], vmask[poly[2]]};
    int on_cyl = 0;
    for (int k = 0; k < bd->nw; k++)
      if (bd->w[k].cyl && ((msk[0] | msk[1] | msk[2]) >> k & 1)) on_cyl = 1;
    if (tri_fan_q(bd, F, pts, msk) >= (on_cyl ? 0.3 : 0.2)) continue;
    int32_t ru = poly[emin], rv = poly[(emin + 1) % 3];
    double P[3];
    uint8_t m = vmask[ru] | vmask[rv];
    for (int c = 0; c < 3; c++) P[c] = (csize[ru] * V[3 * ru + c] + csize[rv] * V[3 * rv + c]) / (csize[ru] + csize[rv]);
    {
      double z[3];
      plane_fit(bd, vf_start, vf, next, ru, rv, m, P, z);
      snap(bd, m, z);
      if (dist3(z, P) < 0.5 * tol) memcpy(P, z, sizeof P);
    }
    snap(bd, m, P);
    if (!guarded_merge(bd, o, par, next, tail, csize, vmask, gfl, V, vf_start, vf, ru, rv, P, m)) continue;
    collapsed++;
    st->num_negligible++;
  }
  st->num_collapsed = collapsed;
  hx_free(&pe), hx_free(&vf_start), hx_free(&vf), hx_free(&next), hx_free(&csize), hx_free(&tail);
  /* 5. compact: nodes for the surviving roots, facets rebuilt */
  int32_t *node_of;
  HX_CALL(hx_malloc((size_t)NV * sizeof *node_of, &node_of));
  for (hx_lid t = 0; t < NV; t++) node_of[t] = -1;
  hx_lid nf2 = 0, dropped = 0;
  int32_t *fv2;
  hx_lid nfv2 = 0;
  HX_CALL(hx_malloc((size_t)bd->nfv * sizeof *fv2, &fv2));
  for (hx_lid f = 0; f < bd->nf; f++) {
    facet F = bd->F[f];
    int32_t poly[MAXPOLY + 1];
    int m = facet_roots(bd, par, &F, poly, MAXPOLY);
    if (m > MAXPOLY) {
      hx_free(&fv2), hx_free(&node_of), hx_free(&V), hx_free(&vmask), hx_free(&par), hx_free(&gfl);
      return HX_ERROR(HX_ERR_INTERNAL, "pebble: a facet has more than %d vertices", MAXPOLY);
    }
    /* pinched polygons: a root twice */
    int pinched = 0;
    for (int i = 0; i < m; i++)
      for (int j = i + 1; j < m; j++)
        if (poly[i] == poly[j]) pinched = 1;
    if (m < 3 || pinched) {
      if (pinched) hx_warn("pebble: dropped a pinched facet between sites %d and %d", (int)F.a, (int)F.b);
      dropped++;
      continue;
    }
    F.v0 = (int32_t)nfv2;
    F.nv = m;
    for (int i = 0; i < m; i++) {
      int32_t r = poly[i];
      if (node_of[r] < 0) {
        int32_t id;
        int rc2 = add_node(bd, V + 3 * r, vmask[r], -1, &id);
        if (rc2) return rc2;
        node_of[r] = id;
      }
      fv2[nfv2++] = node_of[r];
    }
    bd->F[nf2++] = F;
  }
  st->num_dropped_facets = dropped;
  hx_free(&bd->vnode);
  if (!hx_malloc((size_t)NV * sizeof *bd->vnode, &bd->vnode)) {
    for (hx_lid t = 0; t < NV; t++) bd->vnode[t] = node_of[find(par, (int32_t)t)];
    bd->nvdiag = NV;
  }
  hx_free(&gfl);
  hx_free(&bd->fv);
  bd->fv = fv2;
  bd->nfv = nfv2;
  bd->capfv = nfv2;
  bd->nf = nf2;
  hx_free(&node_of), hx_free(&V), hx_free(&vmask), hx_free(&par), hx_free(&Cc), hx_free(&Mc);
  /* 6. orient every polygon CCW about a -> b */
  HX_CALL(orient_facets(bd));
  for (hx_lid f = 0; f < bd->nf; f++) {
    facet *F = &bd->F[f];
    if (F->wall >= 0) st->num_wall_facets++;
  }
  st->num_facets = (hx_lid)bd->nf;
  (void)bed;
  return HX_OK;
}

/* ---- edges: midpoints keyed by the edge ------------------------------------ */

typedef struct emap {
  hx_lid cap;
  int64_t *key;
  int32_t *mid; /* the edge's midpoint, or on an edge cut into m segments (--aspect) the first of its
                   m - 1 nodes (consecutive ids, from the lower end node's side) */
  uint8_t *mask;
} emap;

static int emap_init(emap *e, hx_lid n) {
  e->cap = 64;
  while (e->cap < 2 * n) e->cap *= 2;
  HX_CALL(hx_malloc((size_t)e->cap * sizeof *e->key, &e->key));
  HX_CALL(hx_malloc((size_t)e->cap * sizeof *e->mid, &e->mid));
  HX_CALL(hx_malloc((size_t)e->cap * sizeof *e->mask, &e->mask));
  for (hx_lid i = 0; i < e->cap; i++) e->key[i] = -1, e->mid[i] = -1;
  return HX_OK;
}
static hx_lid emap_slot(const emap *e, int32_t u, int32_t v) {
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
static void emap_free(emap *e) {
  hx_free(&e->key);
  hx_free(&e->mid);
  hx_free(&e->mask);
}

/* Orient every facet polygon CCW about a -> b by its Newell normal. An edge of a cylinder
   facet is an arc of the wall: its midpoint on the wall counts too (a plane facet at the top
   of a thin column can be a near-straight chain of vertices closed by one long rim arc, whose
   area is all in the arc). On the cylinder the normal is compared with the outward direction
   at the vertex mean instead (a -> b can be near tangent to a facet far round the wall from
   a). */
static int orient_facets(builder *bd) {
  int cw = -1;
  for (int k = 0; k < bd->nw; k++)
    if (bd->w[k].cyl) cw = k;
  emap em = {0};
  if (cw >= 0) {
    HX_CALL(emap_init(&em, bd->nfv));
    for (hx_lid f = 0; f < bd->nf; f++) {
      const facet *F = &bd->F[f];
      if (F->wall == cw)
        for (int k = 0; k < F->nv; k++) em.mask[emap_slot(&em, bd->fv[F->v0 + k], bd->fv[F->v0 + (k + 1) % F->nv])] = 1;
    }
  }
  for (hx_lid f = 0; f < bd->nf; f++) {
    facet *F = &bd->F[f];
    double nrm[3] = {0, 0, 0}, d[3];
    for (int k = 0; k < F->nv; k++) {
      int32_t u = bd->fv[F->v0 + k], v = bd->fv[F->v0 + (k + 1) % F->nv];
      const double *p = bd->X + 3 * u, *q = bd->X + 3 * v;
      double m[3];
      int arc = cw >= 0 && F->wall >= 0 && em.mask[emap_slot(&em, u, v)];
      if (arc) {
        const wall *W = &bd->w[cw];
        double dth;
        if (cyl_arc(bd, W, F->a, p, q, &dth)) {
          cyl_at(W, cyl_angle(W, p) + 0.5 * dth, m);
          m[2] = 0.5 * (p[2] + q[2]);
        } else {
          for (int c = 0; c < 3; c++) m[c] = 0.5 * (p[c] + q[c]);
          wall_project(W, m);
        }
      }
      for (int h = 0; h <= arc; h++) { /* p -> q, or p -> m -> q */
        const double *s0 = arc && h ? m : p, *s1 = arc && !h ? m : q;
        nrm[0] += (s0[1] - s1[1]) * (s0[2] + s1[2]);
        nrm[1] += (s0[2] - s1[2]) * (s0[0] + s1[0]);
        nrm[2] += (s0[0] - s1[0]) * (s0[1] + s1[1]);
      }
    }
    for (int c = 0; c < 3; c++) d[c] = bd->sx[3 * F->b + c] - bd->sx[3 * F->a + c];
    if (F->wall == cw && cw >= 0) {
      const wall *W = &bd->w[cw];
      d[0] = d[1] = d[2] = 0;
      for (int k = 0; k < F->nv; k++)
        for (int c = 0; c < 2; c++) d[c] += bd->X[3 * bd->fv[F->v0 + k] + c] - W->p[c];
    }
    if (dot3(nrm, d) < 0)
      for (int i = 0, j = F->nv - 1; i < j; i++, j--) {
        int32_t tmp = bd->fv[F->v0 + i];
        bd->fv[F->v0 + i] = bd->fv[F->v0 + j];
        bd->fv[F->v0 + j] = tmp;
      }
  }
  if (cw >= 0) emap_free(&em);
  return HX_OK;
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
static double poly_inner_dist(const double *P, int n, double px, double py) {
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

static void grading(int n, double ratio, double first, double *s);
static void column_grading(const hx_pebble_opts *o, const double *s, double h, double ra, double *out);
static double thinnest_layer(const hx_pebble_opts *o, const double *sl, double h, double ra);
static double layer_range(const hx_pebble_opts *o, const double *sl, double h, double ra, double *thick);
static double min_corner_det(const double *X, const int32_t *cn);

static double min_corner_sj(const double *X, const int32_t *cn);
static void corner_det_range(const double *X, const int32_t *cn, double *lo, double *hi);
static void foot_point(const builder *bd, const double *ca, double ra, int32_t a, int br, const double x[3], double y[3]);

/* the column of quad qi of facet F swept to the sphere of the facet's side (0: a, 1: b),
   layer fractions sl: worst is lowered to each layer element's corner scaled Jacobian
   (and, with flags bit 0, its min / max det J) and returned, early once it is down to
   stop; -2 when a quad corner lies inside the sphere. Flags bit 1: the middle of a
   bridge-circle edge of a wall facet is put on the wall too, as edge_point does (the
   variant scoring does not, and its choices are kept as they were) */
static double column_q(const builder *bd, const hx_pebble_opts *o, const facet *F, hx_lid qi, int side, const double *sl,
                       int flags, double worst, double stop) {
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
      foot_point(bd, c, r, s, bd->nbridge[qx[v]], CC[v], YC[v]);
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
      if (em) snap(bd, em, x);
      if (bd->Q[qi].chamfer >> (side ? (6 - e) % 4 : e) & 1) { /* on the bridge circle's arc */
        const bridge *BR = &bd->B[F->bridge];
        double xp[3], t, l = 0;
        for (int k = 0; k < 3; k++) xp[k] = x[k] - BR->p[k];
        t = dot3(xp, BR->u);
        for (int k = 0; k < 3; k++) xp[k] -= t * BR->u[k], l += xp[k] * xp[k];
        l = sqrt(l);
        for (int k = 0; k < 3; k++) x[k] = BR->p[k] + t * BR->u[k] + BR->rb * xp[k] / l;
        if ((flags & 2) && F->wall >= 0) wall_project_along(&bd->w[F->wall], x, BR->u); /* as edge_point */
      }
      for (int k = 0; k < 3; k++) sum[k] += x[k];
    }
    for (int k = 0; k < 3; k++) X[1][1][k] = 0.5 * sum[k] - 0.25 * (C0[k] + C1[k] + C2[k] + C3[k]);
    if (F->wall >= 0) wall_project(&bd->w[F->wall], X[1][1]);
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
    for (int i = 0; i <= G; i++) column_grading(o, sl, dist3(X[j][i], Y[j][i]), r, sg[j][i]);
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
        double q = min_corner_sj(P, cn), lo, hi;
        corner_det_range(P, cn, &lo, &hi);
        dlo = fmin(dlo, lo), dhi = fmax(dhi, hi);
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
static double facet_columns_q(const builder *bd, const hx_pebble_opts *o, const facet *F, hx_lid q0, double stop) {
  double worst = 1, sl[65];
  grading(o->layers, o->ratio, o->first_layer, sl);
  for (int side = 0; side < 2; side++) {
    if (bd->smask[side ? F->b : F->a]) break;
    for (hx_lid qi = q0; qi < bd->nq; qi++) {
      worst = column_q(bd, o, F, qi, side, sl, o->score_nek, worst, stop);
      if (worst < -1.5) return -1;
      if (worst <= stop) return worst;
    }
  }
  const wall *W = F->wall >= 0 ? &bd->w[F->wall] : NULL;
  if (o->score_nek && W && extruded(o, W)) {
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

/* the linear columns of facet F's quads [q0, bd->nq) as the sweep builds them (feet
   radial, along the bridge axis on the circle; graded layers) have positive corner
   Jacobians to every real sphere of the facet */
static int column_linear_ok(const builder *bd, const hx_pebble_opts *o, const facet *F, hx_lid qi, int side, const double *sl) {
  static const int q2l[4] = {0, 1, 3, 2}; /* quad corner -> hex corner (quad_to_lex) */
  static const int32_t cn[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  double P[24], X[4][3], Y[4][3];
  int32_t s = side ? F->b : F->a;
  for (int v = 0; v < 4; v++) {
    int32_t x = bd->Q[qi].x[side ? 3 - v : v];
    memcpy(X[v], bd->X + 3 * x, sizeof X[v]);
    foot_point(bd, bd->sx + 3 * s, bd->sr[s], s, bd->nbridge[x], X[v], Y[v]);
  }
  double sv[4][65];
  for (int v = 0; v < 4; v++) column_grading(o, sl, dist3(X[v], Y[v]), bd->sr[s], sv[v]);
  for (int lay = 0; lay < o->layers; lay++) {
    for (int v = 0; v < 4; v++)
      for (int h = 0; h < 2; h++)
        for (int k = 0; k < 3; k++) P[3 * (q2l[v] + 4 * h) + k] = Y[v][k] + sv[v][lay + h] * (X[v][k] - Y[v][k]);
    if (!(min_corner_det(P, cn) > 0)) return 0;
  }
  return 1;
}

static int facet_linear_ok(const builder *bd, const hx_pebble_opts *o, const facet *F, hx_lid q0) {
  double sl[65];
  grading(o->layers, o->ratio, o->first_layer, sl);
  for (int side = 0; side < 2; side++) {
    if (bd->smask[side ? F->b : F->a]) break;
    for (hx_lid qi = q0; qi < bd->nq; qi++)
      if (!column_linear_ok(bd, o, F, qi, side, sl)) return 0;
  }
  return 1;
}

/* one ring of M quads between the loops outer and In (quad k: outer k, k+1, In k+1, k);
   bmask: the outer loop's boundary edge masks when it is the facet boundary, else NULL */
static int ring_quads(builder *bd, const int32_t *outer, const int32_t *In, int M, uint8_t chamfer, int kind,
                      const uint8_t *bmask) {
  HX_CALL(grow(&bd->Q, &bd->capq, bd->nq + M, sizeof *bd->Q));
  for (int k = 0; k < M; k++) {
    quad *q = &bd->Q[bd->nq++];
    q->x[0] = outer[k];
    q->x[1] = outer[(k + 1) % M];
    q->x[2] = In[(k + 1) % M];
    q->x[3] = In[k];
    q->chamfer = chamfer;
    q->kind = kind;
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
static double aspect_step(const builder *bd, const hx_pebble_opts *o, const double *sl, int32_t a, int32_t b, const double *p,
                          double rho) {
  double t = INFINITY;
  for (int side = 0; side < 2; side++) {
    int32_t s = side ? b : a;
    if (bd->smask[s]) break;
    double da = dist3(bd->sx + 3 * s, p);
    t = fmin(t, thinnest_layer(o, sl, fmax(sqrt(da * da + rho * rho) - bd->sr[s], 0), bd->sr[s]));
  }
  return ASPECT_MARGIN * o->aspect * t;
}

/* --aspect: the largest estimated aspect ratio of the elements swept from facet F's quads
   [q0, bd->nq): of each layer's element of each column, straight from the feet (as the sweep
   places them) to the quad's corners, the longest over the shortest of its twelve edges.
   Before the seventeenth session this took the quad's edges on the facet and the column's
   layers only: it missed the quad shrunk on the sphere under a long column (pb67: a wall
   triangle 4 R from its sphere, estimated 15, had elements of 42) */
static double quad_aspect_est(const builder *bd, const hx_pebble_opts *o, const double *sl, const facet *F, hx_lid qi) {
  int L = o->layers;
  const quad *Q = &bd->Q[qi];
  double lo = INFINITY, hi = 0; /* the quad's own edges (a wall facet's, on the wall) */
  for (int v = 0; v < 4; v++) {
    double l = dist3(bd->X + 3 * Q->x[v], bd->X + 3 * Q->x[(v + 1) % 4]);
    hi = fmax(hi, l), lo = fmin(lo, l);
  }
  double worst = hi / fmax(lo, 1e-300);
  for (int side = 0; side < 2; side++) {
    int32_t s = side ? F->b : F->a;
    if (bd->smask[s]) break;
    /* each layer's element: its corners where the layer levels cut the straight
       lines from the feet on the sphere to the quad's corners (a facet far from its
       sphere shrinks there by about R / distance under columns as long as near it) */
    double y[4][3], fr[4][65], h[4];
    for (int v = 0; v < 4; v++) {
      const double *x = bd->X + 3 * Q->x[v];
      foot_point(bd, bd->sx + 3 * s, bd->sr[s], s, bd->nbridge[Q->x[v]], x, y[v]);
      h[v] = dist3(x, y[v]);
      column_grading(o, sl, h[v], bd->sr[s], fr[v]);
    }
    double lev[2][4][3];
    for (int k = 0; k <= L; k++) {
      double *cur = &lev[k & 1][0][0];
      for (int v = 0; v < 4; v++)
        for (int c = 0; c < 3; c++) {
          const double *x = bd->X + 3 * Q->x[v];
          cur[3 * v + c] = y[v][c] + fr[v][k] * (x[c] - y[v][c]);
        }
      if (k == 0) continue;
      double elo = INFINITY, ehi = 0;
      for (int t = 0; t < 2; t++)
        for (int v = 0; v < 4; v++) {
          double l = dist3(lev[(k - t) & 1][v], lev[(k - t) & 1][(v + 1) % 4]);
          elo = fmin(elo, l), ehi = fmax(ehi, l);
        }
      for (int v = 0; v < 4; v++) {
        double l = (fr[v][k] - fr[v][k - 1]) * h[v];
        elo = fmin(elo, l), ehi = fmax(ehi, l);
      }
      worst = fmax(worst, ehi / fmax(elo, 1e-300));
    }
  }
  return worst;
}

static double facet_aspect_est(const builder *bd, const hx_pebble_opts *o, const double *sl, const facet *F, hx_lid q0) {
  double worst = 0;
  for (hx_lid qi = q0; qi < bd->nq; qi++) worst = fmax(worst, quad_aspect_est(bd, o, sl, F, qi));
  return worst;
}

/* a tessellation variant's score: its columns' quality (facet_columns_q); with --aspect A,
   evaluated whole and times min(1, ASPECT_EST_MARGIN A / its estimated largest aspect ratio)^4 (a variant 10 %
   over the limit keeps 0.68 of its score: pb67 at N = 3 had 156 elements above 20 on bridge
   circles with the first power, 106 with the fourth, and fewer below 0.3 too) */
static double variant_score(const builder *bd, const hx_pebble_opts *o, const double *sl, const facet *F, hx_lid q0, double stop,
                            int *asp_ok) {
  *asp_ok = 1;
  if (!(o->aspect > 0)) return facet_columns_q(bd, o, F, q0, stop);
  double a = facet_aspect_est(bd, o, sl, F, q0), lim = ASPECT_EST_MARGIN * o->aspect;
  *asp_ok = a <= lim;
  double pen = *asp_ok ? 1 : pow(lim / a, 4);
  /* the columns' evaluation may stop once q x pen cannot beat stop */
  double q = facet_columns_q(bd, o, F, q0, stop / pen);
  return q > 0 ? q * pen : q;
}

/* --aspect: the thinnest layer of the columns on a bridge circle of radius rb about the axis
   (p, u) of the facet between spheres a and b (feet along the axis, as the sweep places them) */
static double circle_layer(const builder *bd, const hx_pebble_opts *o, const double *sl, int32_t a, int32_t b, const double *p,
                           const double *u, double rb) {
  double t = INFINITY;
  for (int side = 0; side < 2; side++) {
    int32_t s = side ? b : a;
    if (bd->smask[s]) break;
    double r[3];
    for (int c = 0; c < 3; c++) r[c] = p[c] - bd->sx[3 * s + c];
    double h = fabs(dot3(r, u)) - sqrt(fmax(0, bd->sr[s] * bd->sr[s] - rb * rb));
    t = fmin(t, thinnest_layer(o, sl, fmax(h, 0), bd->sr[s]));
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
static int near_contact(const builder *bd, const hx_pebble_opts *o, int32_t a, int32_t b) {
  if (!bd->smask[b]) return pair_gap(bd, a, b) < o->ring_gap * 2 * fmin(bd->sr[a], bd->sr[b]);
  int k = o->aspect > 0 ? own_wall(bd, a, b) : -1;
  return k >= 0 && wall_dist(&bd->w[k], bd->sx + 3 * a) - bd->sr[a] < o->ring_gap * 2 * bd->sr[a];
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
    cyl_at(ch->W, ch->th0 + x2 / ch->W->R, x);
    x[2] = ch->p[2] + y2;
    return;
  }
  for (int c = 0; c < 3; c++) x[c] = ch->p[c] + x2 * ch->e1[c] + y2 * ch->e2[c];
  if (ch->W) wall_project_along(ch->W, x, ch->u);
}

static int tessellate(builder *bd, const hx_pebble_opts *o, hx_pebble_stats *st) {
  double sl[65]; /* the layer grading (--aspect's estimates) */
  grading(o->layers, o->ratio, o->first_layer, sl);
  emap em;
  HX_CALL(emap_init(&em, bd->nfv));
  /* edge masks: walls of the wall facets containing the edge */
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    for (int k = 0; k < F->nv; k++) {
      hx_lid s = emap_slot(&em, bd->fv[F->v0 + k], bd->fv[F->v0 + (k + 1) % F->nv]);
      if (F->wall >= 0) em.mask[s] |= (uint8_t)(1u << F->wall);
    }
  }
  int rc = HX_OK;
  int32_t Bn[2 * MAXPOLY], In[2 * MAXPOLY], Rn[2 * MAXPOLY];
  double P2[4 * MAXPOLY];
  hx_lid f_end = bd->f_hi ? bd->f_hi : bd->nf;
  for (hx_lid f = bd->f_lo; f < f_end && !rc; f++) {
    facet *F = &bd->F[f];
    int n = F->nv, M = 0, kept = 0;
    double fq = 1; /* the kept variant's score, where variants were scored */
    /* the variant chosen before: by the scoring ranks, or in the round before a repair */
    int pre = bd->forced ? bd->choice[f] : bd->prechoice ? bd->prechoice[f] : -1;
    /* boundary loop: v0 m0 v1 m1 ... (an edge cut into m segments: v0, its m - 1 nodes, v1);
       bmask: the mask of the boundary segment (Bn[k], Bn[k+1]) */
    uint8_t bmask[2 * MAXPOLY];
    for (int k = 0; k < n && !rc; k++) {
      int32_t u = bd->fv[F->v0 + k], v = bd->fv[F->v0 + (k + 1) % n];
      hx_lid s = emap_slot(&em, u, v);
      int m = edge_segments(bd, u, v);
      if (M + m + 2 * (n - k - 1) > 2 * MAXPOLY) m = 2;
      int32_t lo = u < v ? u : v, hi = u < v ? v : u;
      /* on the cylinder along its longer arc (cyl_arc): evenly in angle */
      double dth = 0;
      const wall *Wl = NULL; /* the cylinder when the edge takes its longer arc */
      for (int k2 = 0; k2 < bd->nw && em.mid[s] < 0; k2++)
        if ((em.mask[s] >> k2 & 1) && bd->w[k2].cyl && cyl_arc(bd, &bd->w[k2], F->a, bd->X + 3 * lo, bd->X + 3 * hi, &dth))
          Wl = &bd->w[k2];
      if (em.mid[s] < 0) /* the edge's m - 1 nodes, evenly from the lower id */
        for (int t = 1; t < m && !rc; t++) {
          double x[3], w = (double)t / m;
          int32_t id;
          for (int c = 0; c < 3; c++) x[c] = (1 - w) * bd->X[3 * lo + c] + w * bd->X[3 * hi + c];
          if (Wl) cyl_at(Wl, cyl_angle(Wl, bd->X + 3 * lo) + w * dth, x);
          snap(bd, em.mask[s], x);
          rc = add_node(bd, x, em.mask[s], -1, &id);
          if (t == 1) em.mid[s] = id;
        }
      if (rc) break;
      for (int t = 0; t < m; t++) {
        bmask[M] = em.mask[s];
        Bn[M++] = t == 0 ? u : em.mid[s] + (u == lo ? t - 1 : m - 1 - t);
      }
    }
    if (rc) break;
    /* frame: axis a -> b, pierce point p of the power plane */
    int32_t a = F->a, b = F->b;
    double d[3], u[3], L2 = 0;
    for (int c = 0; c < 3; c++) d[c] = bd->sx[3 * b + c] - bd->sx[3 * a + c], L2 += d[c] * d[c];
    double L = sqrt(L2);
    for (int c = 0; c < 3; c++) u[c] = d[c] / L;
    double tpar = (L2 + bd->sr[a] * bd->sr[a] - bd->sr[b] * bd->sr[b]) / (2 * L2);
    double p[3];
    for (int c = 0; c < 3; c++) p[c] = bd->sx[3 * a + c] + tpar * d[c];
    const wall *Wf = F->wall >= 0 ? &bd->w[F->wall] : NULL;
    if (Wf && !(bd->sparent[b] == a && bd->smask[b] == (1u << F->wall))) {
      /* a wall facet of another sphere's mirror: frame from the wall at the
         polygon's centroid (the bisector plane is oblique to the wall) */
      double cen[3] = {0, 0, 0};
      for (int k = 0; k < M; k++)
        for (int c = 0; c < 3; c++) cen[c] += bd->X[3 * Bn[k] + c] / M;
      wall_project(Wf, cen);
      memcpy(p, cen, sizeof p);
      if (Wf->cyl) {
        double rx = cen[0] - Wf->p[0], ry = cen[1] - Wf->p[1], rr = hypot(rx, ry);
        u[0] = rx / rr, u[1] = ry / rr, u[2] = 0;
      } else {
        memcpy(u, Wf->n, sizeof u);
      }
    }
    double e1[3], e2[3], tmp[3] = {1, 0, 0};
    if (fabs(u[0]) > 0.6) tmp[0] = 0, tmp[1] = 1;
    cross3(u, tmp, e1);
    double l1 = norm3(e1);
    for (int c = 0; c < 3; c++) e1[c] /= l1;
    cross3(u, e1, e2);
    const wall *W = F->wall >= 0 ? &bd->w[F->wall] : NULL;
    chart ch = {.W = W};
    memcpy(ch.p, p, sizeof p), memcpy(ch.u, u, sizeof u), memcpy(ch.e1, e1, sizeof e1), memcpy(ch.e2, e2, sizeof e2);
    /* a cylinder facet reaching far round the wall from u (the top of a thin column, whose
       cell covers a wide arc, even all but a sliver of the circumference): the plane would
       crowd or fold it, so it is unrolled */
    if (W && W->cyl && wraps(W, u, bd->X, Bn, M)) ch.unrolled = 1, ch.th0 = atan2(u[1], u[0]);
    double thp = 0; /* unrolled: the angle from th0 of the node before, continued along the loop */
    for (int k = 0; k < M; k++) {
      const double *x = bd->X + 3 * Bn[k];
      if (ch.unrolled) {
        double th = cyl_angle(W, x) - ch.th0;
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
    double gap = 0;
    int contact = facet_contact(bd, o, F, &gap);
    double dmin = 2 * fmin(bd->sr[a], bd->sr[b]);
    F->q0 = (int32_t)bd->nq;
    int32_t *outer = Bn;
    uint8_t outer_is_boundary = 1;
    if (contact) {
      if (W && extruded(o, W)) {
        rc = HX_ERROR(HX_ERR_INPUT,
                      "pebble: sphere %d touches the %s plane (gap %.3g) and that plane is extruded; move the plane "
                      "(--bottom/--top) or drop the extrusion",
                      (int)a, W->kind == 1 ? "bottom" : "top", gap);
        break;
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
      double inner = poly_inner_dist(P2, M, 0, 0), rb_min = rb;
      if (o->bridge_fit > 0) { /* a taller innermost ring: the column height at the circle grows like rb^2 */
        double want = fmin(o->bridge_fit * inner, 0.25 * dmin);
        if (want > rb) rb = want;
      }
      double rb_fit = rb;
      if (inner < 1.2 * rb) {
        rc = HX_ERROR(HX_ERR_INPUT,
                      "pebble: the bridge (radius %.3g) between sphere %d and %s %d does not fit its facet (room "
                      "%.3g); the contact is too close to other spheres or the wall",
                      rb, (int)bd->sparent[a], bd->smask[b] ? "the wall of sphere" : "sphere", (int)bd->sparent[b], inner);
        break;
      }
      if ((rc = grow(&bd->B, &bd->capb, bd->nb + 1, sizeof *bd->B))) break;
      bridge *BR = &bd->B[bd->nb];
      memcpy(BR->p, p, sizeof p);
      memcpy(BR->u, u, sizeof u);
      BR->rb = rb;
      BR->a = a;
      BR->b = bd->smask[b] ? -1 : b;
      BR->surf = -1;
      F->bridge = (int)bd->nb;
      bd->nb++;
      if (bd->smask[b]) st->num_wall_bridges++;
      else st->num_bridges++;
      if (!bd->smask[b] && gap < 0) st->num_overlaps++;
      /* rings between the circle and each boundary node. With --ring-sj S: the det J of
         a ring element varies like rho h(rho) (tangential width times column height
         h(rho) = h_c + sqrt(da^2 + rho^2) - sqrt(da^2 + rb^2), h_c the column on the
         circle, da the centre-facet distance), so the ring radii are geometric in
         f = rho h and as many rings as keep f within a factor 1/S from one ring to the
         next; else radii geometric in rho and --rings rings. */
      double da = dist3(bd->sx + 3 * a, p), Ra = bd->sr[a];
#define RING_F(rho_) ((rho_) * (hc + sqrt(da * da + (rho_) * (rho_)) - sq0))
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
      double rprev[2 * MAXPOLY]; /* radii of the ring outside the one being placed */
      /* {angle blend, its power, extra rings, radius (0 --bridge, 1 fitted, above 1 that much wider), radii by f (else by rho)}:
         the six main ones; then, with --aspect, seven with one or two more rings, tried only where
         no main variant passes the aspect estimate (a DEM overlap whose facet boundary is uneven
         seen from the contact: pb67's spheres 56 and 62, estimate 23.1 -> 20.0, no element above
         20 as meshed with --aspect 18), and five with the bridge 1.2 or 1.4 times as wide (at most
         0.6 of the facet's room about the contact): the columns on the circle grow like rb^2
         (twenty-third session: pb67's default container, the overlap of spheres 49 and 62 with
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
        kept = vs;
        double ablend = o->ring_sj > 0 ? bvar[vs][0] : 0, apow = bvar[vs][1];
        int fgeo = o->ring_sj > 0 && o->ring_sj < 1 && bvar[vs][4] > 0;
        rb = (o->ring_sj > 0 && !(bvar[vs][3] > 0)) ? rb_min : rb_fit;
        if (o->ring_sj > 0 && bvar[vs][3] > 1) /* a wider bridge, its facet's inner room allowing */
          rb = fmin(rb_fit * bvar[vs][3], fmax(rb_fit, 0.6 * inner));
        bd->B[F->bridge].rb = rb;
        double hc = fmax(da - sqrt(fmax(0, Ra * Ra - rb * rb)), 1e-6 * dmin), sq0 = sqrt(da * da + rb * rb);
        double fb = RING_F(rb);
        int K = o->rings;
        if (fgeo) {
          double rmax = 0;
          for (int k = 0; k < M; k++) rmax = fmax(rmax, hypot(P2[2 * k], P2[2 * k + 1]));
          int need = (int)ceil(log(RING_F(rmax) / fb) / -log(o->ring_sj) - 1e-9) - 1;
          K = need > o->rings ? need : o->rings;
          if (K > 16) K = 16;
        }
        int KV = K + (int)bvar[vs][2];
        bd->nn = nn0, bd->nq = nq0;
        outer = Bn;
        outer_is_boundary = 1;
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
            double s0 = ASPECT_MARGIN * o->aspect * circle_layer(bd, o, sl, a, b, p, u, rb),
                   rcap = fmin(rb + s0, s0 / (2 * sin(HX_PI / M)));
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
                    double lim = fmin(0.5 * (rb + hypot(P2[2 * kk], P2[2 * kk + 1])),
                                      rb + 0.85 * (rprev[kk] - rb)); /* inside the next ring */
                    rr2[kk] = fmin(rr2[kk] * sc, fmax(rr2[kk], lim));
                  }
                }
              }
          }
          memcpy(rprev, rr2, (size_t)M * sizeof *rr2);
          for (int k = 0; k < M && !rc; k++) {
            double x[3];
            chart_point(&ch, rr2[k] * cos(an2[k]), rr2[k] * sin(an2[k]), x);
            rc = add_node(bd, x, W ? (uint8_t)(1u << F->wall) : 0, ring == 0 ? F->bridge : -1, &In[k]);
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
#undef RING_F
        if (rc || var == nbv || nbv == 1) break;
        int aok;
        double qv = variant_score(bd, o, sl, F, nq0, best_q, &aok);
        if (qv > 0 && !facet_linear_ok(bd, o, F, nq0)) qv = 0;
        if (qv > 0 && aok) any_aok = 1;
        if (qv > best_q) best_q = qv, best = var;
        if (qv > 0 && qv >= o->accept_sj && aok) break;
      }
      if (rc) break;
      if (best >= 0) fq = best_q;
      if (bvar[kept][3] > 1) st->num_wide_bridges++; /* kept is 0 when only the first variant is built */
    } else {
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
        outer = Bn; /* a previous variant's rings are gone */
        outer_is_boundary = 1;
        int vsel = var == NVAR ? (best >= 0 ? best : 0) : var, var_outer = var;
        kept = vsel + SPREAD * sp_now;
        {
          int var = vsel;
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
          double dp = poly_inner_dist(P2, M, 0, 0), dc = poly_inner_dist(P2, M, cx, cy);
          double ox = 0, oy = 0;
          (void)dp, (void)dc;
          /* the fan centre: the pierce point, unless the centroid, the vertex mean or a
             blend gives clearly better fan corners (sin of the corner angles) */
          double vx = 0, vy = 0;
          for (int k = 0; k < M; k++) vx += P2[2 * k] / M, vy += P2[2 * k + 1] / M;
          double cand[5][2] = {{0, 0}, {cx, cy}, {vx, vy}, {0.5 * cx, 0.5 * cy}, {0.5 * (cx + vx), 0.5 * (cy + vy)}};
          double qbest = -INFINITY, q0 = fan_quality(P2, M, 0, 0);
          int found = 0;
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
          found = star_from(P2, M, ox, oy);
          if (!found && var_outer < NVAR) continue;
          if (!found) {
            rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: the facet between spheres %d and %s%d is not star-shaped",
                          (int)bd->sparent[a], bd->smask[b] ? "the wall near sphere " : "", (int)bd->sparent[b]);
            break;
          }
          double cpt[3];
          chart_point(&ch, ox, oy, cpt);
          int32_t cid;
          if ((rc = add_node(bd, cpt, W ? (uint8_t)(1u << F->wall) : 0, -1, &cid))) break;
          F->centre = cid;
          /* rings for near contacts: the gap grows like rho^2, so one ring halfway;
             a fan that would have flat or reflex corners gets a ring too, whose inner
             loop is a rounded polygon (angles halfway to uniform, midpoint-aligned
             nodes slightly inside) so the fan on it has proper corners */
          int K = 0;
          int near_c = near_contact(bd, o, a, b);
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
          double th[2 * MAXPOLY], inner_d = poly_inner_dist(P2, M, ox, oy);
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
              int near = !bd->smask[b] && pair_gap(bd, a, b) < o->ring_gap * dmin && o->rings > 0;
              if (!near && !straight && fan_ok_angle(P2, M, ox, oy, -1.0)) K = 0;
            }
          }
          /* near contacts with --ring-sj: the innermost ring where the column height
             (about g/2 + rho^2 / 2R) is three times its value at the centre, rho_c =
             sqrt(g d), and rings from there to the polygon geometric in rho h(rho) (see
             the bridge rings) */
          double rfr[NC_RINGS + 1];
          int geo = 0;
          if (near_c && o->aspect > 0) {
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
            double fr1 = aspect_step(bd, o, sl, a, b, p, 0) / fmax(rmx, seg);
            int Ka = 0;
            if (fr1 < 0.6) {
              rfr[++Ka] = fr1;
              while (Ka < NC_RINGS) {
                double sj = aspect_step(bd, o, sl, a, b, p, rfr[Ka] * inner_d), nx = fmin(sj / seg, rfr[Ka] + sj / rmx);
                nx = fmax(nx, 1.2 * rfr[Ka]);
                if (nx >= 0.8) break;
                rfr[++Ka] = nx;
              }
              if (Ka == NC_RINGS) {
                /* the rings ran out short of 0.8 (each at least 1.2 x the last), leaving
                   the band out to it wide (p300: aspect up to 24 with --aspect 18); spread: the
                   rings geometric from fr_1 to the polygon instead */
                capped = 1;
                if (sp_now)
                  for (int j = 2; j <= Ka; j++) rfr[j] = rfr[1] * pow(1 / rfr[1], (double)(j - 1) / Ka);
              }
              if (Ka > K) K = Ka;
              if (K == Ka) geo = 1;
            }
          }
          if (near_c && o->ring_sj > 0 && o->ring_sj < 1 && !geo) {
            double g = fmax(pair_gap(bd, a, b), 1e-3 * dmin), rhoc = sqrt(g * dmin);
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
              rc = add_node(bd, x, W ? (uint8_t)(1u << F->wall) : 0, -1, &In[k]);
            }
            if (rc) break;
            if ((rc = ring_quads(bd, outer, In, M, 0, QK_RING, outer_is_boundary ? bmask : NULL))) break;
            memcpy(Rn, In, (size_t)M * sizeof *In);
            outer = Rn;
            outer_is_boundary = 0;
          }
          if (rc) break;
          /* fan: (centre, B[2k-1], B[2k], B[2k+1]) */
          if ((rc = grow(&bd->Q, &bd->capq, bd->nq + M / 2, sizeof *bd->Q))) break;
          for (int k = 0; k < M / 2; k++) {
            quad *q = &bd->Q[bd->nq++];
            q->x[0] = cid;
            q->x[1] = outer[(2 * k + M - 1) % M];
            q->x[2] = outer[2 * k];
            q->x[3] = outer[2 * k + 1];
            q->chamfer = 0;
            q->kind = outer_is_boundary ? QK_FAN : QK_FAN_RINGED;
            memset(q->emask, 0, 4);
            if (outer_is_boundary) {
              q->emask[1] = bmask[(2 * k + M - 1) % M];
              q->emask[2] = bmask[2 * k];
            }
          }
        }
        if (rc) break;
        if ((var == NVAR || (getenv("HX_PEBBLE_FACET") && atoi(getenv("HX_PEBBLE_FACET")) == (int)f)) &&
            getenv("HX_PEBBLE_DEBUG")) {
          fprintf(stderr, "facet %d var %d q %.3f: a %d (%.4f %.4f %.4f r %.3f) b %d mask %d (%.4f %.4f %.4f) wall %d nv %d\n",
                  (int)f, var, facet_columns_q(bd, o, F, nq0, -INFINITY), (int)a, bd->sx[3 * a], bd->sx[3 * a + 1],
                  bd->sx[3 * a + 2], bd->sr[a], (int)b, bd->smask[b], bd->sx[3 * b], bd->sx[3 * b + 1], bd->sx[3 * b + 2],
                  F->wall, F->nv);
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
        double qv = variant_score(bd, o, sl, F, nq0, best_q, &aok);
        if (qv > best_q) best_q = qv, best = var_outer, best_sp = sp_now;
        if (qv > 0 && qv >= o->accept_sj && aok) break;
        if (capped && !sp_now && !aok) retry = 1, var--; /* this variant again, spread */
      }
      if (best >= 0) fq = best_q;
      if (kept >= SPREAD) st->num_spread_rings++;
    }
    F->nq = (int32_t)(bd->nq - F->q0);
    if (bd->fbad && !bd->forced) bd->fbad[f] = pre < 0 && fq <= 0;
    if (bd->choice && !bd->forced) bd->choice[f] = (int8_t)kept;
  }
  emap_free(&em);
  return rc;
}

/* the thinnest layer of a column of height h on a sphere of radius ra (column_grading) */
static double thinnest_layer(const hx_pebble_opts *o, const double *sl, double h, double ra) {
  double thick;
  return layer_range(o, sl, h, ra, &thick);
}

/* the thinnest and (in *thick) the thickest layer of a column of height h on a sphere of
   radius ra (column_grading) */
static double layer_range(const hx_pebble_opts *o, const double *sl, double h, double ra, double *thick) {
  double out[65], t = INFINITY, T = 0;
  column_grading(o, sl, h, ra, out);
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
   segments are longest among those below 16 (at most 16 an edge; before the seventeenth
   session the cuts stopped once the longest had 16); the edges cut are appended to cuts */
static int split_facet(const builder *bd, const hx_pebble_opts *o, const double *sl, const facet *F, const double *pc, int need,
                       ecut **cuts, hx_lid *cap, hx_lid *nk) {
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
    double lmax = aspect_step(bd, o, sl, F->a, F->b, pc, 0.75 * dist3(q, pc));
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
  HX_CALL(grow(cuts, cap, *nk + n, sizeof **cuts));
  for (int k = 0; k < n; k++)
    if (seg[k] > 2) {
      int32_t u = bd->fv[F->v0 + k], v = bd->fv[F->v0 + (k + 1) % n];
      ecut *c = &(*cuts)[(*nk)++];
      c->key = u < v ? ((int64_t)u << 32) | (uint32_t)v : ((int64_t)v << 32) | (uint32_t)u;
      c->seg = seg[k];
    }
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
static int mark_splits(builder *bd, const hx_pebble_opts *o, hx_lid *ncut) {
  double sl[65];
  grading(o->layers, o->ratio, o->first_layer, sl);
  hx_lid cap = 0, nk = 0;
  ecut *cuts = NULL;
  int rc0 = HX_OK;
  *ncut = 0;
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    if (F->bridge < 0) {
      /* a near contact: its fan's spokes r0 = 0.9 x the limit at the centre, the
         first ring out to 1.6 r0 as about a bridge circle */
      if (!near_contact(bd, o, F->a, F->b)) continue;
      double d[3], L2 = 0, pp[3];
      for (int c = 0; c < 3; c++) d[c] = bd->sx[3 * F->b + c] - bd->sx[3 * F->a + c], L2 += d[c] * d[c];
      double tpar = (L2 + bd->sr[F->a] * bd->sr[F->a] - bd->sr[F->b] * bd->sr[F->b]) / (2 * L2);
      for (int c = 0; c < 3; c++) pp[c] = bd->sx[3 * F->a + c] + tpar * d[c];
      double r0 = 0.9 * aspect_step(bd, o, sl, F->a, F->b, pp, 0);
      if (!(r0 > 0)) continue;
      rc0 = split_facet(bd, o, sl, F, pp, loop_segments(aspect_step(bd, o, sl, F->a, F->b, pp, r0), r0), &cuts, &cap, &nk);
      if (rc0) break;
      continue;
    }
    const bridge *BR = &bd->B[F->bridge];
    double lmax = ASPECT_MARGIN * o->aspect * circle_layer(bd, o, sl, F->a, F->b, BR->p, BR->u, BR->rb);
    rc0 = split_facet(bd, o, sl, F, BR->p, loop_segments(lmax, BR->rb), &cuts, &cap, &nk);
    if (rc0) break;
  }
  if (nk) qsort(cuts, (size_t)nk, sizeof *cuts, cmp_ecut); /* a key's largest count last */
  hx_lid m = 0;
  for (hx_lid k = 0; k < nk; k++) m += k + 1 == nk || cuts[k + 1].key != cuts[k].key;
  hx_free(&bd->skey), hx_free(&bd->sseg);
  if (!rc0 && m) rc0 = hx_malloc((size_t)m * sizeof *bd->skey, &bd->skey);
  if (!rc0 && m) rc0 = hx_malloc((size_t)m * sizeof *bd->sseg, &bd->sseg);
  if (!rc0) {
    hx_lid j = 0;
    for (hx_lid k = 0; k < nk; k++)
      if (k + 1 == nk || cuts[k + 1].key != cuts[k].key) bd->skey[j] = cuts[k].key, bd->sseg[j++] = (int8_t)cuts[k].seg;
    bd->nskey = m;
    *ncut = m;
  }
  hx_free(&cuts);
  return rc0;
}

/* smallest corner Jacobian determinant of the trilinear hex with corners cn (sj = 0)
   or smallest corner scaled Jacobian (sj = 1) */
static double corner_det(const double *X, const int32_t *cn, int sj) {
  double mn = INFINITY;
  for (int c = 0; c < 8; c++) {
    int i = c & 1, j = c >> 1 & 1, k = c >> 2 & 1;
    int ci = c ^ 1, cj = c ^ 2, ck = c ^ 4;
    double J[3][3];
    for (int d = 0; d < 3; d++) {
      J[d][0] = (X[3 * cn[ci] + d] - X[3 * cn[c] + d]) * (i ? -1 : 1);
      J[d][1] = (X[3 * cn[cj] + d] - X[3 * cn[c] + d]) * (j ? -1 : 1);
      J[d][2] = (X[3 * cn[ck] + d] - X[3 * cn[c] + d]) * (k ? -1 : 1);
    }
    double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                 J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    if (sj) {
      double l[3];
      for (int q = 0; q < 3; q++) l[q] = sqrt(J[0][q] * J[0][q] + J[1][q] * J[1][q] + J[2][q] * J[2][q]);
      det /= l[0] * l[1] * l[2] + 1e-300;
    }
    mn = fmin(mn, det);
  }
  return mn;
}
/* smallest and largest corner Jacobian determinant of the trilinear hex with corners cn */
static void corner_det_range(const double *X, const int32_t *cn, double *lo, double *hi) {
  double mn = INFINITY, mx = -INFINITY;
  for (int c = 0; c < 8; c++) {
    int i = c & 1, j = c >> 1 & 1, k = c >> 2 & 1;
    double J[3][3];
    for (int d = 0; d < 3; d++) {
      J[d][0] = (X[3 * cn[c ^ 1] + d] - X[3 * cn[c] + d]) * (i ? -1 : 1);
      J[d][1] = (X[3 * cn[c ^ 2] + d] - X[3 * cn[c] + d]) * (j ? -1 : 1);
      J[d][2] = (X[3 * cn[c ^ 4] + d] - X[3 * cn[c] + d]) * (k ? -1 : 1);
    }
    double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                 J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
    mn = fmin(mn, det), mx = fmax(mx, det);
  }
  *lo = mn, *hi = mx;
}
static double min_corner_det(const double *X, const int32_t *cn) { return corner_det(X, cn, 0); }
static double min_corner_sj(const double *X, const int32_t *cn) { return corner_det(X, cn, 1); }

/* ---- sweep, extrusion, mesh ------------------------------------------------- */

/* hex corner c (lexicographic) of quad corner: c0=x0, c1=x1, c2=x3, c3=x2 */
static const int quad_to_lex[4] = {0, 1, 3, 2};
/* local hex face of quad edge e (x[e], x[e+1]) */
static const int edge_face[4] = {2, 1, 3, 0};

static void grading(int n, double ratio, double first, double *s) {
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
static void column_grading(const hx_pebble_opts *o, const double *s, double h, double ra, double *out) {
  int L = o->layers;
  double H = o->grade_height * 2 * ra, T = o->grade_expand * 2 * ra;
  double g0 = L >= 2 ? (s[2] - s[1]) / (s[1] - s[0]) : 1, g = g0;
  if (L >= 2 && H > 0 && h < H) g = 1 + (g0 - 1) * fmax(h, 0) / H;
  if (L >= 2 && T > 0 && h > T) g = fmax(g, 1 + (pow((ra + h) / ra, 1.0 / L) - 1) * fmin(1, (h - T) / T));
  if (g == g0) memcpy(out, s, (size_t)(L + 1) * sizeof *out);
  else grading(L, g, 0, out);
}

/* ---- order N: the sweep map ------------------------------------------------
   Gordon-Hall blending of the linear mesh (hx_curve) only knows each element's
   boundary faces; a thin layer on a sphere then inverts where the sphere's
   sagitta exceeds the layer. So the mesher evaluates its own map at every GLL node:
   facet point Q(xi1, xi2) (Gordon-Hall of the facet quad's edges, each edge on its
   walls or on the bridge circle; wall facets projected onto the wall), foot
   Y(xi1, xi2) on the sphere (radial projection of the blended feet of the edges),
   and x = Y + s(xi3) (Q - Y) with s between the layer fractions. Extruded
   elements are Q shifted along z. Shared edges and faces are functions of the
   shared entity alone, so neighbours agree; node ids come from hx_curve. */

typedef struct elinfo {
  int32_t quad, cell; /* cell < 0: extrusion of plane -1-cell */
  int16_t layer;
  int16_t rev;
} elinfo;

typedef struct sweep_ctx {
  const builder *bd;
  const hx_pebble_bed *bed;
  const hx_pebble_opts *o;
  const double *s;
  const double *se[2];
  const int *NE;
  const elinfo *ei;
  int bnd_off; /* 1: the facet's boundary edges evenly spaced whatever segon says (the guard) */
} sweep_ctx;

static void bridge_frame(const double u[3], double e1[3], double e2[3]) {
  double tmp[3] = {1, 0, 0};
  if (fabs(u[0]) > 0.6) tmp[0] = 0, tmp[1] = 1;
  cross3(u, tmp, e1);
  double l = norm3(e1);
  for (int c = 0; c < 3; c++) e1[c] /= l;
  cross3(u, e1, e2);
}

/* point at t of the facet edge A -> B: on the bridge circle (br >= 0), on the walls
   of emask, or straight */
static void edge_point(const builder *bd, int32_t A, int32_t B, double t, uint8_t emask, int br, int wallk, double x[3]) {
  const double *XA = bd->X + 3 * A, *XB = bd->X + 3 * B;
  if (br >= 0) {
    const bridge *BR = &bd->B[br];
    double e1[3], e2[3], ra[3], rbv[3];
    bridge_frame(BR->u, e1, e2);
    for (int c = 0; c < 3; c++) ra[c] = XA[c] - BR->p[c], rbv[c] = XB[c] - BR->p[c];
    double fa = atan2(dot3(ra, e2), dot3(ra, e1)), fb = atan2(dot3(rbv, e2), dot3(rbv, e1));
    double df = fb - fa;
    while (df > HX_PI) df -= 2 * HX_PI;
    while (df < -HX_PI) df += 2 * HX_PI;
    double f = fa + t * df, ta = dot3(ra, BR->u), tb = dot3(rbv, BR->u), tau = (1 - t) * ta + t * tb;
    for (int c = 0; c < 3; c++) x[c] = BR->p[c] + BR->rb * (cos(f) * e1[c] + sin(f) * e2[c]) + tau * BR->u[c];
    if (wallk >= 0) wall_project_along(&bd->w[wallk], x, BR->u);
    return;
  }
  for (int c = 0; c < 3; c++) x[c] = (1 - t) * XA[c] + t * XB[c];
  if (emask) snap(bd, emask, x);
}

/* foot on sphere a of facet point x: along the bridge axis for bridge-circle
   points, else radial */
static void foot_point(const builder *bd, const double *ca, double ra, int32_t a, int br, const double x[3], double y[3]) {
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
   facet points (edge_point on the quad's edges, so on the bridge circle or the walls
   where the edge is, and its Gordon-Hall blend inside, projected onto the facet's wall),
   so the refined columns fill the same region with the same boundary surfaces. An edge
   shared by quads (of one facet, or of the three facets on a diagram edge) is split once,
   keyed by its end nodes, its points ordered from the lower node id: neighbours agree. */
static int add_footrec(builder *bd, int32_t **rec, hx_lid *nrec, hx_lid *caprec, int32_t node, int kind, const int32_t c[8],
                       double a, double b) {
  HX_CALL(grow(&bd->FR, &bd->capfr, bd->nfr + 1, sizeof *bd->FR));
  HX_CALL(grow(rec, caprec, *nrec + 1, sizeof **rec));
  footrec *R = &bd->FR[bd->nfr];
  memcpy(R->c, c, sizeof R->c);
  R->a = a, R->b = b, R->kind = kind;
  (*rec)[(*nrec)++] = node; /* record nrec - 1 is node's */
  bd->nfr++;
  return HX_OK;
}

static int split_quads(builder *bd, int K) {
  enum { KMAX = 8 };
  if (K <= 1) return HX_OK;
  if (K > KMAX) return HX_ERROR(HX_ERR_INPUT, "pebble: --split %d is above %d", K, KMAX);
  emap em;
  HX_CALL(emap_init(&em, 2 * bd->nq + 16));
  int32_t *rec = NULL; /* node of each foot recipe */
  hx_lid nrec = 0, caprec = 0;
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
        hx_lid sl = emap_slot(&em, u, v);
        int br = (Qd.chamfer >> e & 1) ? F->bridge : -1;
        if (em.mid[sl] < 0) {
          int32_t lo = u < v ? u : v, hi = u < v ? v : u;
          em.mid[sl] = (int32_t)bd->nn;
          for (int k = 1; k < K && !rc; k++) {
            double x[3];
            int32_t id;
            edge_point(bd, lo, hi, (double)k / K, Qd.emask[e], br, wallk, x);
            if (wallk >= 0) wall_project(&bd->w[wallk], x);
            rc = add_node(bd, x, (uint8_t)(Qd.emask[e] | fmask), br, &id);
            if (!rc && br < 0) rc = add_footrec(bd, &rec, &nrec, &caprec, id, 1, (int32_t[8]){lo, hi}, (double)k / K, 0);
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
          if (wallk >= 0) wall_project(&bd->w[wallk], x);
          rc = add_node(bd, x, fmask, -1, &G[j][i]);
          int32_t cs[8] = {G[0][i], G[K][i], G[j][0], G[j][K], G[0][0], G[0][K], G[K][K], G[K][0]};
          if (!rc) rc = add_footrec(bd, &rec, &nrec, &caprec, G[j][i], 2, cs, a, b);
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
  emap_free(&em);
  if (!rc) rc = hx_malloc((size_t)bd->nn * sizeof *bd->nfoot, &bd->nfoot);
  if (!rc) {
    for (hx_lid i = 0; i < bd->nn; i++) bd->nfoot[i] = -1;
    for (hx_lid r = 0; r < nrec; r++) bd->nfoot[rec[r]] = (int32_t)r;
  }
  hx_free(&rec);
  if (rc) {
    hx_free(&NQ);
    return rc;
  }
  hx_free(&bd->Q);
  bd->Q = NQ, bd->nq = nq, bd->capq = nq;
  return HX_OK;
}

/* the foot on sphere a of node x (see footrec) */
static void node_foot(const builder *bd, const double *ca, double ra, int32_t a, int32_t x, double y[3]) {
  int32_t r = bd->nfoot ? bd->nfoot[x] : -1;
  if (r < 0) {
    foot_point(bd, ca, ra, a, bd->nbridge[x], bd->X + 3 * x, y);
    return;
  }
  const footrec *R = &bd->FR[r];
  double f[8][3], v[3];
  int n = R->kind == 1 ? 2 : 8;
  for (int k = 0; k < n; k++) node_foot(bd, ca, ra, a, R->c[k], f[k]);
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
static int32_t quad_facet(const builder *bd, int32_t q) {
  int32_t lo = 0, hi = (int32_t)bd->nf - 1;
  while (lo < hi) {
    int32_t mid = (lo + hi + 1) / 2;
    if (bd->F[mid].q0 <= q) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* the volume spacings (--radial, --ring-points) at order N: -1 means from order 3 */
static int spacing_on(int flag, int order) { return flag > 0 || (flag < 0 && order >= 3); }
/* the order whose point placement the sweep map follows: o->map_order when set (a lower-order
   copy of an order-N mesh, --optimize-order: the same map, sampled at fewer points), else the
   order it is evaluated at */
static int map_order(const hx_pebble_opts *o, int order) { return o->map_order > 0 ? o->map_order : order; }

/* --ring-points volume. Inside a ring of quads about a contact the gap between the two
   spheres grows like rho^2 and the ring's width like rho (rho: distance from the axis),
   so with points spaced evenly along a ring's radial edges det J grows like rho^3 across
   an element; along a ring's chords it follows the gap, taller where the chord's node is
   aligned with a polygon vertex. ring_edges marks the edges that two ring quads of a facet
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
   (sweep_elem), and ring_points_guard keeps even spacing on a facet where this is worse.
   Measured on pb67 at N = 7 (docs/benchmarks.md): the mean Nek scaled Jacobian 0.20 -> 0.51,
   elements below 0.3 27 602 -> 4 770 (with --radial volume). */
#define IS_RING(k) ((k) == QK_RING || (k) == QK_BRIDGE_IN || (k) == QK_BRIDGE_OUT)
#define IS_FAN(k) ((k) == QK_FAN || (k) == QK_FAN_RINGED)
typedef struct qedge {
  int32_t u, v, q; /* end nodes (u < v), quad */
  int e;           /* the edge's index in the quad */
} qedge;

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
static int32_t seg_on(const builder *bd, hx_lid q, int e) {
  int32_t sg = bd->qseg ? bd->qseg[4 * (size_t)q + e] : -1;
  return sg >= 0 && bd->segon[sg] ? sg : -1;
}

static int ring_edges(builder *bd, const hx_pebble_opts *o) {
  /* an edge is marked in both quads or in neither, with the same kind of weight in both (so
     --split's children, whose inner edges are chords in one child and spokes in the other,
     stay unmarked there); a facet's edges are sorted by their end nodes to pair them; the
     edges of one quad alone are the facet's boundary (boundary_segments) */
  int ring = spacing_on(o->ring_volume, map_order(o, o->order)), edge = spacing_on(o->edge_volume, map_order(o, o->order));
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
    if (extruded(o, &bd->w[k])) offmask |= 1u << k;
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

/* the kinds of spaced edge (ring_edges): a ring's radial edge, a ring's chord, a fan's spoke,
   a facet's boundary edge (spaced by the gap to sphere gs alone, boundary_segments) */
enum { RE_RADIAL, RE_CHORD, RE_SPOKE, RE_GAP };

/* t[i] = t(g[i]) for the edge A -> B of facet F, of kind RE_* (see ring_edges) */
static void ring_edge_map(const builder *bd, const facet *F, int32_t A, int32_t B, uint8_t emask, int wallk, int nd,
                          const double *g, double *t, int kind, int32_t gs) {
  enum { K = 32 };
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
  double ax[3] = {0, 0, 0}, au[3] = {0, 0, 0}, fa[2][3], fb[2][3], cum[K + 1], w[K + 1];
  if (F->bridge >= 0) {
    memcpy(ax, bd->B[F->bridge].p, sizeof ax);
    memcpy(au, bd->B[F->bridge].u, sizeof au);
  } else if (F->centre >= 0) {
    memcpy(ax, bd->X + 3 * F->centre, sizeof ax);
  }
  int ns = kind == RE_GAP ? 0 : bd->smask[F->b] ? 1 : 2;
  for (int side = 0; side < ns; side++) {
    int32_t sp = side ? F->b : F->a;
    node_foot(bd, bd->sx + 3 * sp, bd->sr[sp], sp, P0, fa[side]);
    node_foot(bd, bd->sx + 3 * sp, bd->sr[sp], sp, P1, fb[side]);
  }
  for (int j = 0; j <= K; j++) {
    double tj = (double)j / K, x[3], d[3], H = 0;
    edge_point(bd, P0, P1, tj, emask, -1, wallk, x);
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
  for (int i = 0; i < nd; i++) {
    int ic = rev ? nd - 1 - i : i;
    double tc;
    if (ic == 0) tc = 0;
    else if (ic == nd - 1 || !(cum[K] > 0)) tc = ic == nd - 1 ? 1 : g[ic];
    else {
      double target = g[ic] * cum[K];
      int j = 0;
      while (j < K - 1 && cum[j + 1] < target) j++;
      double dc = cum[j + 1] - cum[j];
      tc = (j + (dc > 0 ? (target - cum[j]) / dc : 0)) / K;
    }
    t[i] = rev ? 1 - tc : tc;
  }
}

/* The sweep map of element e at the GLL points g[nd] into xe [3][nd^3]. */
static void sweep_elem(const sweep_ctx *sc, hx_lid e, int nd, const double *g, double *xe) {
  const builder *bd = sc->bd;
  int nd3 = nd * nd * nd;
  const elinfo *E = &sc->ei[e];
  const quad *Qd = &bd->Q[E->quad];
  const facet *F = &bd->F[quad_facet(bd, E->quad)];
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
    if (spacing_on(sc->o->ring_volume, map_order(sc->o, nd - 1)) && (Qd->rp >> e_orig & 1) && cham[ed] < 0)
      ring_edge_map(bd, F, ea[ed], eb[ed], em[ed], wallk, nd, g, tm[ed],
                    IS_FAN(Qd->kind) ? RE_SPOKE
                    : (e_orig & 1)   ? RE_RADIAL
                                     : RE_CHORD,
                    -1);
    else if (!sc->bnd_off && spacing_on(sc->o->edge_volume, map_order(sc->o, nd - 1)) && cham[ed] < 0 &&
             seg_on(bd, E->quad, e_orig) >= 0)
      ring_edge_map(bd, F, ea[ed], eb[ed], em[ed], wallk, nd, g, tm[ed], RE_GAP, bd->segsph[seg_on(bd, E->quad, e_orig)]);
    else memcpy(tm[ed], g, (size_t)nd * sizeof *g);
  }
  for (int ed = 0; ed < 4; ed++)
    for (int i = 0; i < nd; i++) {
      double t = tm[ed][i];
      edge_point(bd, ea[ed], eb[ed], t, em[ed], cham[ed], wallk, Ed[ed][i]);
      if (cell < 0) continue;
      if (cham[ed] >= 0) {
        foot_point(bd, ca, ra, cell, cham[ed], Ed[ed][i], Fd[ed][i]);
      } else {
        /* the feet of the end nodes (along the axis for bridge-circle nodes), blended
           and put back on the sphere: a function of the edge alone */
        double fa[3], fb[3], r[3];
        node_foot(bd, ca, ra, cell, ea[ed], fa);
        node_foot(bd, ca, ra, cell, eb[ed], fb);
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
  int loft = spacing_on(sc->o->ring_volume, map_order(sc->o, nd - 1)) && IS_RING(Qd->kind) && (Qd->rp & 10) == 10;
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
      if (wallk >= 0) wall_project(&bd->w[wallk], Q);
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
        column_grading(sc->o, sc->s, dist3(Q, Y), ra, sg);
        s0 = sg[E->layer], s1 = sg[E->layer + 1];
      }
      double rq0 = 0, rq1 = 0, rY = 0, rQ = 0;
      if (cell >= 0 && spacing_on(sc->o->radial_volume, map_order(sc->o, nd - 1))) {
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

/* the Nek scaled Jacobian (min / max det J over the GLL points, -1 if NaN) of the element sc->ei[0]
   describes, as the sweep map makes it at order nd - 1 (its nodes into xe) */
static double elem_ratio(const sweep_ctx *sc, int nd, const double *g, const double *D, double *xe) {
  double mn, mx;
  sweep_elem(sc, 0, nd, g, xe);
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
  if (W && extruded(sc.o, W))
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
   spaced by volume (ring_edges; facet_spaced) */
static int facet_bnd_spaced(const builder *bd, const facet *F) {
  for (int32_t q = F->q0; q < F->q0 + F->nq; q++)
    for (int e = 0; e < 4; e++)
      if (seg_on(bd, q, e) >= 0) return 1;
  return 0;
}
static int facet_spaced(const builder *bd, const facet *F) {
  for (int32_t q = F->q0; q < F->q0 + F->nq; q++)
    if (bd->Q[q].rp) return 1;
  return facet_bnd_spaced(bd, F);
}

/* The guard's outcome for facet F (its interior edges as ring_edges marked them, its boundary
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

/* The volume spacing (ring_edges, boundary_segments) is a reparametrization the degree-N
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
static int ring_points_guard(const sweep_ctx *sc0, int order, hx_comm comm, hx_lid *nback, hx_lid *nsegeven) {
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
#pragma omp parallel for schedule(dynamic, 8)
    for (hx_lid k = lo; k < hi; k++) {
      const facet *F = &bd->F[list[k]];
      double *xe = malloc((size_t)3 * nd * nd * nd * sizeof *xe);
      uint8_t *keep = malloc((size_t)F->nq + 1);
      bad[list[k]] = xe && keep ? facet_guard(sc0, F, nd, g, D, xe, keep) : 1 | 4; /* no memory: even */
      free(xe), free(keep);
    }
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
          int32_t sg = seg_on(bd, q, e);
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

static int sweep_curve(const sweep_ctx *sc, const hx_mesh *m1, int order, hx_mesh **out) {
  const builder *bd = sc->bd;
  int nd = order + 1, nd3 = nd * nd * nd;
  double g[HX_MAX_ND], w[HX_MAX_ND];
  HX_CALL(hx_gll(nd, g, w));
  /* node ids: pnum_ids (the caller) */
  hx_mesh *m = NULL;
  int rc = hx_mesh_create(m1->comm, order, m1->num_elem, &m);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  memcpy(m->vert_id, m1->vert_id, (size_t)m1->num_elem * 8 * sizeof *m->vert_id);
  memcpy(m->elem_attr, m1->elem_attr, (size_t)m1->num_elem * sizeof *m->elem_attr);
#pragma omp parallel for schedule(dynamic, 16)
  for (hx_lid e = 0; e < m1->num_elem; e++) sweep_elem(sc, e, nd, g, m->x + (size_t)e * 3 * nd3);
  if (getenv("HX_PEBBLE_DEBUG")) {
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
                int32_t lo = quad_facet(bd, E->quad);
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

/* whether element e is in the comma-separated list s (HX_PEBBLE_ELEMS: elements to describe) */
static int listed(const char *s, long long e) {
  while (s && *s) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s) return 0;
    if (v == e) return 1;
    s = *end == ',' ? end + 1 : end;
  }
  return 0;
}

/* Quality analysis (HX_PEBBLE_CLASSIFY set): Nek5000 scaled Jacobian and aspect
   ratio of the order-N mesh by class of element (where its quad lies in the facet
   tessellation, on a wall facet or not, extrusion), with counts below 0.1 / 0.3 and
   of aspect > 20, and per radial layer; printed to stderr. */
static int classify_report(const builder *bd, const elinfo *ei, const hx_mesh *m, int layers) {
  static const char *kname[QK_N] = {"fan", "fan in ring", "ring (no bridge)", "bridge ring (circle)", "bridge outer ring"};
  hx_elem_quality *q = NULL;
  hx_quality_opts qo;
  hx_quality_opts_default(&qo);
  qo.num_worst = 0;
  hx_quality_report r;
  HX_CALL(hx_malloc((size_t)m->num_elem * sizeof *q, &q));
  int rc = hx_quality_mesh(m, &qo, q, &r);
  if (rc) {
    hx_free(&q);
    return rc;
  }
  hx_quality_report_free(&r);
  enum { NC = 2 * QK_N + 1 + 64 };
  hx_lid cnt[NC] = {0}, lo1[NC] = {0}, lo3[NC] = {0}, asp[NC] = {0};
  double mn[NC], amax[NC];
  for (int c = 0; c < NC; c++) mn[c] = INFINITY, amax[c] = 0;
  /* HX_PEBBLE_CLASSIFY=2[,A]: also list the elements below 0.05 or above aspect A (100) */
  const char *env = getenv("HX_PEBBLE_CLASSIFY");
  int list = env[0] == '2';
  double alist = list && env[1] == ',' ? atof(env + 2) : 100;
  const char *elems = getenv("HX_PEBBLE_ELEMS"); /* and these */
  for (hx_lid e = 0; e < m->num_elem; e++) {
    const elinfo *E = &ei[e];
    int cls[2] = {2 * QK_N, -1};
    if (E->cell >= 0) {
      int32_t lo = quad_facet(bd, E->quad);
      cls[0] = bd->Q[E->quad].kind + (bd->F[lo].wall >= 0 ? QK_N : 0);
      if ((list && (q[e].scaled_jac < 0.05 || q[e].aspect > alist)) || listed(elems, (long long)e)) {
        const facet *F = &bd->F[lo];
        fprintf(stderr,
                "  e%lld SJ %.3f asp %.1f kind %d facet %d (a %d b %d ghost %d wall %d nv %d nq %d) gap/d %.4f rb/d %.3f quad %d "
                "layer %d\n",
                (long long)e, q[e].scaled_jac, q[e].aspect, bd->Q[E->quad].kind, (int)lo, F->a, F->b, bd->smask[F->b], F->wall,
                F->nv, F->nq, bd->smask[F->b] ? -1.0 : pair_gap(bd, F->a, F->b) / (2 * bd->sr[F->a]),
                F->bridge >= 0 ? bd->B[F->bridge].rb / (2 * bd->sr[F->a]) : 0.0, E->quad - F->q0, E->layer);
      }
      cls[1] = 2 * QK_N + 1 + (E->rev ? E->layer : E->layer); /* layer 0 on the sphere */
    }
    for (int t = 0; t < 2; t++) {
      int c = cls[t];
      if (c < 0) continue;
      cnt[c]++;
      if (q[e].scaled_jac < 0.1) lo1[c]++;
      if (q[e].scaled_jac < 0.3) lo3[c]++;
      if (q[e].aspect > 20) asp[c]++;
      mn[c] = fmin(mn[c], q[e].scaled_jac);
      amax[c] = fmax(amax[c], q[e].aspect);
    }
  }
  fprintf(stderr, "%-34s %8s %8s %8s %8s %10s %8s\n", "class", "elems", "SJ<0.1", "SJ<0.3", "asp>20", "min SJ", "max asp");
  for (int c = 0; c < 2 * QK_N + 1 + layers; c++) {
    if (!cnt[c]) continue;
    char name[64];
    if (c < 2 * QK_N) snprintf(name, sizeof name, "%s%s", kname[c % QK_N], c >= QK_N ? " [wall facet]" : "");
    else if (c == 2 * QK_N) snprintf(name, sizeof name, "inlet/outlet extrusion");
    else snprintf(name, sizeof name, "  bulk layer %d (0: on the sphere)", c - 2 * QK_N - 1);
    fprintf(stderr, "%-34s %8lld %8lld %8lld %8lld %10.3e %8.1f\n", name, (long long)cnt[c], (long long)lo1[c], (long long)lo3[c],
            (long long)asp[c], mn[c], amax[c]);
  }
  hx_free(&q);
  return HX_OK;
}

/* ---- numbering shared by every rank (the distribution) ---------------------
   Pseudo-cell c (sphere, or extrusion n / n+1) with Lc layers, nN_c distinct facet
   nodes, nQ_c quads and nT_c distinct tessellation edges. Layout of the global ids:
   vertices: facet nodes [0, nfn), then per cell Lc * nN_c column nodes (vbase);
   elements: per cell Lc * nQ_c (ebase);
   edges:    tessellation edges [0, nte), then one "vertical" edge per column node
             (the edge from it towards the facet, index nte + id - nfn), then per cell
             Lc * nT_c layer copies of its tessellation edges (hbase);
   faces:    tessellation quads [0, nq), then per cell Lc * nQ_c layer copies of its
             quads and Lc * nT_c side faces (fbase).
   Order-N node ids: vertex ids, then (N-1) per edge, (N-1)^2 per face, (N-1)^3 per
   element, each entity's nodes in a frame fixed by its corner ids alone. */
typedef struct pnum {
  hx_lid n, ncell, nfn, nq, nte;
  int L[3];                               /* layers of a sphere cell, of the inlet, of the outlet */
  int32_t *cf_start;                      /* [ncell + 1] */
  int32_t *cf;                            /* 2 f + reversed */
  int32_t *qedge;                         /* [4 nq] tessellation edge of quad edge (x[e], x[e+1]) */
  int64_t *vbase, *ebase, *hbase, *fbase; /* [ncell + 1] */
  int32_t *nQ;                            /* [ncell] quads of each cell */
} pnum;

static int pnum_layers(const pnum *P, hx_lid c) { return c < P->n ? P->L[0] : P->L[1 + (c - P->n)]; }

static void pnum_free(pnum *P) {
  hx_free(&P->cf_start), hx_free(&P->cf), hx_free(&P->qedge), hx_free(&P->nQ);
  hx_free(&P->vbase), hx_free(&P->ebase), hx_free(&P->hbase), hx_free(&P->fbase);
}

static int pnum_build(pnum *P, const builder *bd) {
  hx_lid n = P->n, nc = P->ncell;
  HX_CALL(hx_malloc((size_t)(nc + 1) * sizeof *P->cf_start, &P->cf_start));
  HX_CALL(hx_malloc((size_t)(3 * bd->nf + 1) * sizeof *P->cf, &P->cf));
  /* cell -> facets: a sphere's facets, and the plane facets of an extruded wall */
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    P->cf_start[bd->sparent[F->a] + 1]++;
    if (!bd->smask[F->b]) P->cf_start[bd->sparent[F->b] + 1]++;
    if (F->wall >= 0 && bd->w[F->wall].kind && P->L[bd->w[F->wall].kind]) P->cf_start[n + bd->w[F->wall].kind]++;
  }
  for (hx_lid i = 0; i < nc; i++) P->cf_start[i + 1] += P->cf_start[i];
  int32_t *fill = NULL, *stamp = NULL, *tstamp = NULL;
  HX_CALL(hx_malloc((size_t)(nc + 1) * sizeof *fill, &fill));
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    int32_t a = F->a;
    P->cf[P->cf_start[a] + fill[a]++] = (int32_t)(2 * f);
    if (!bd->smask[F->b]) P->cf[P->cf_start[F->b] + fill[F->b]++] = (int32_t)(2 * f + 1); /* reversed */
    if (F->wall >= 0 && bd->w[F->wall].kind && P->L[bd->w[F->wall].kind]) {
      hx_lid c = n + bd->w[F->wall].kind - 1;
      P->cf[P->cf_start[c] + fill[c]++] = (int32_t)(2 * f + 1); /* extruded away from the bed */
    }
  }
  hx_free(&fill);
  /* tessellation edges */
  int rc = hx_malloc((size_t)(4 * P->nq + 1) * sizeof *P->qedge, &P->qedge);
  emap em = {0};
  if (!rc) rc = emap_init(&em, 4 * P->nq + 16);
  P->nte = 0;
  for (hx_lid q = 0; q < P->nq && !rc; q++)
    for (int e = 0; e < 4; e++) {
      hx_lid sl = emap_slot(&em, bd->Q[q].x[e], bd->Q[q].x[(e + 1) % 4]);
      if (em.mid[sl] < 0) em.mid[sl] = (int32_t)P->nte++;
      P->qedge[4 * q + e] = em.mid[sl];
    }
  emap_free(&em);
  if (!rc) rc = hx_malloc((size_t)(nc + 1) * sizeof *P->vbase, &P->vbase);
  if (!rc) rc = hx_malloc((size_t)(nc + 1) * sizeof *P->ebase, &P->ebase);
  if (!rc) rc = hx_malloc((size_t)(nc + 1) * sizeof *P->hbase, &P->hbase);
  if (!rc) rc = hx_malloc((size_t)(nc + 1) * sizeof *P->fbase, &P->fbase);
  if (!rc) rc = hx_malloc((size_t)(nc + 1) * sizeof *P->nQ, &P->nQ);
  if (!rc) rc = hx_malloc((size_t)(P->nfn + 1) * sizeof *stamp, &stamp);
  if (!rc) rc = hx_malloc((size_t)(P->nte + 1) * sizeof *tstamp, &tstamp);
  if (rc) {
    hx_free(&stamp), hx_free(&tstamp);
    return rc;
  }
  for (hx_lid i = 0; i < P->nfn; i++) stamp[i] = -1;
  for (hx_lid i = 0; i < P->nte; i++) tstamp[i] = -1;
  /* per-cell counts, then the prefix sums */
  P->vbase[0] = P->nfn, P->ebase[0] = 0;
  P->hbase[0] = 0, P->fbase[0] = P->nq;
  int64_t nvert = 0;
  for (hx_lid c = 0; c < nc; c++) {
    int64_t nN = 0, nQ = 0, nT = 0, Lc = pnum_layers(P, c);
    for (int32_t z = P->cf_start[c]; z < P->cf_start[c + 1]; z++) {
      const facet *F = &bd->F[P->cf[z] / 2];
      for (int32_t q = F->q0; q < F->q0 + F->nq; q++) {
        nQ++;
        for (int v = 0; v < 4; v++) {
          int32_t x = bd->Q[q].x[v], t = P->qedge[4 * q + v];
          if (stamp[x] != (int32_t)c) stamp[x] = (int32_t)c, nN++;
          if (tstamp[t] != (int32_t)c) tstamp[t] = (int32_t)c, nT++;
        }
      }
    }
    P->nQ[c] = (int32_t)nQ;
    P->vbase[c + 1] = P->vbase[c] + Lc * nN;
    P->ebase[c + 1] = P->ebase[c] + Lc * nQ;
    P->hbase[c + 1] = P->hbase[c] + Lc * nT;
    P->fbase[c + 1] = P->fbase[c] + Lc * (nQ + nT);
    nvert += Lc * nN;
  }
  /* the layer edges come after the tessellation and vertical edges */
  for (hx_lid c = 0; c <= nc; c++) P->hbase[c] += P->nte + nvert;
  hx_free(&stamp), hx_free(&tstamp);
  HX_CHECK(P->vbase[nc] < INT32_MAX, HX_ERR_INPUT, "pebble: %lld order-1 nodes exceed the 32-bit node index",
           (long long)P->vbase[nc]);
  return HX_OK;
}

/* Bound of the order-N node ids of pnum_ids_range: corners, edge, face and interior
   nodes in turn (num_elem_global elements). */
static int64_t pnum_id_bound(const pnum *P, int N, hx_gid num_elem_global) {
  int64_t N1 = N - 1, V = P->vbase[P->ncell], nE = P->hbase[P->ncell], nF = P->fbase[P->ncell];
  return V + nE * N1 + nF * N1 * N1 + (int64_t)num_elem_global * N1 * N1 * N1;
}

/* Order-N node ids of local elements [e0, e0 + cnt) (vert_id: the mesh's, elem_offset:
   global index of local element 0) into nid [cnt][nd^3], from the shared numbering
   alone: the same ids for any number of ranks and any blocks. tloc [nte + 1] and qloc
   [nq + 1] are scratch. */
static void pnum_ids_range(const pnum *P, const builder *bd, const elinfo *ei, int N, const hx_gid *vert_id, hx_gid elem_offset,
                           hx_lid e0, hx_lid cnt, int32_t *tloc, int32_t *qloc, hx_gid *nid_out) {
  int nd = N + 1, N1 = N - 1;
  size_t npe = (size_t)nd * nd * nd;
  int64_t V = P->vbase[P->ncell], nE = P->hbase[P->ncell], nF = P->fbase[P->ncell];
  int64_t ebase = V, fbase = V + nE * N1, ibase = fbase + nF * N1 * N1;
  static const int lex_to_quad[4] = {0, 1, 3, 2};
  static const int face_edge[4] = {3, 1, 0, 2}; /* element side face -> quad edge (inverse of edge_face) */
  hx_lid cur = -1;
  for (hx_lid e = e0; e < e0 + cnt; e++) {
    const elinfo *E = &ei[e];
    hx_lid c = E->cell >= 0 ? E->cell : P->n + (-1 - E->cell);
    int Lc = pnum_layers(P, c);
    if (c != cur) { /* local numbering of the cell's tessellation edges and quads, in sweep order */
      cur = c;
      int32_t nt = 0, nqc = 0;
      for (int32_t z = P->cf_start[c]; z < P->cf_start[c + 1]; z++) {
        const facet *F = &bd->F[P->cf[z] / 2];
        for (int32_t q = F->q0; q < F->q0 + F->nq; q++) {
          qloc[q] = nqc++;
          for (int v = 0; v < 4; v++) tloc[P->qedge[4 * q + v]] = -1;
        }
      }
      for (int32_t z = P->cf_start[c]; z < P->cf_start[c + 1]; z++) {
        const facet *F = &bd->F[P->cf[z] / 2];
        for (int32_t q = F->q0; q < F->q0 + F->nq; q++)
          for (int v = 0; v < 4; v++)
            if (tloc[P->qedge[4 * q + v]] < 0) tloc[P->qedge[4 * q + v]] = nt++;
      }
    }
    /* distance (in layers) of the bottom (xi3 = 0) and top faces from the facet */
    int db = E->cell >= 0 ? Lc - E->layer : E->layer + 1, dt = db - 1;
    const hx_gid *vid = vert_id + (size_t)e * 8;
    /* tessellation edge of the quad edge between lex corners c0, c1 of one level */
    int64_t eid[12], fid[6];
    int ec[12][2];
    int ne_ = 0;
    for (int dir = 0; dir < 3; dir++)
      for (int c0 = 0; c0 < 8; c0++) {
        if (c0 >> dir & 1) continue;
        int c1 = c0 | 1 << dir;
        ec[ne_][0] = c0, ec[ne_][1] = c1;
        int64_t id;
        if (dir == 2) {
          id = P->nte + (vid[c0] - P->nfn); /* from the far (bottom) node towards the facet */
        } else {
          int v0 = lex_to_quad[c0 & 3], v1 = lex_to_quad[c1 & 3];
          int eq = v1 == (v0 + 1) % 4 ? v0 : v1;
          int eo = E->rev ? (6 - eq) % 4 : eq;
          int32_t te = P->qedge[4 * E->quad + eo];
          int d = c0 < 4 ? db : dt;
          id = d == 0 ? te : P->hbase[c] + (int64_t)Lc * tloc[te] + d - 1;
        }
        eid[ne_++] = id;
      }
    for (int f = 0; f < 6; f++) {
      if (f >= 4) {
        int d = f == 4 ? db : dt;
        fid[f] = d == 0 ? E->quad : P->fbase[c] + (int64_t)Lc * qloc[E->quad] + d - 1;
      } else {
        int eq = face_edge[f];
        int eo = E->rev ? (6 - eq) % 4 : eq;
        int32_t te = P->qedge[4 * E->quad + eo];
        fid[f] = P->fbase[c] + (int64_t)Lc * P->nQ[c] + (int64_t)Lc * tloc[te] + dt;
      }
    }
    hx_gid *nid = nid_out + (size_t)(e - e0) * npe;
    int64_t g = elem_offset + e;
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          int ijk[3] = {i, j, k}, nb = 0, bmask = 0;
          for (int d = 0; d < 3; d++)
            if (ijk[d] == 0 || ijk[d] == N) nb++, bmask |= 1 << d;
          hx_gid id;
          if (nb == 3) {
            id = vid[(i ? 1 : 0) + (j ? 2 : 0) + (k ? 4 : 0)];
          } else if (nb == 2) {
            int dir = 0;
            while (bmask >> dir & 1) dir++;
            int c0 = 0;
            for (int d = 0; d < 3; d++)
              if (d != dir && ijk[d] == N) c0 |= 1 << d;
            int c1 = c0 | 1 << dir, slot = 0;
            while (ec[slot][0] != c0 || ec[slot][1] != c1) slot++;
            int t = vid[c0] < vid[c1] ? ijk[dir] : N - ijk[dir];
            id = ebase + eid[slot] * N1 + (t - 1);
          } else if (nb == 1) {
            int fd = 0;
            while (!(bmask >> fd & 1)) fd++;
            int f = 2 * fd + (ijk[fd] == N), u = fd == 0 ? 1 : 0, w = fd == 2 ? 1 : 2;
            int side = ijk[fd] == N ? 1 << fd : 0;
            hx_gid cv[2][2];
            for (int pu = 0; pu < 2; pu++)
              for (int qw = 0; qw < 2; qw++) cv[pu][qw] = vid[side | pu << u | qw << w];
            int pu0 = 0, qw0 = 0;
            for (int pu = 0; pu < 2; pu++)
              for (int qw = 0; qw < 2; qw++)
                if (cv[pu][qw] < cv[pu0][qw0]) pu0 = pu, qw0 = qw;
            int p = pu0 ? N - ijk[u] : ijk[u], q = qw0 ? N - ijk[w] : ijk[w];
            if (cv[1 - pu0][qw0] > cv[pu0][1 - qw0]) {
              int t = p;
              p = q, q = t;
            }
            id = fbase + fid[f] * N1 * N1 + (p - 1) + (int64_t)N1 * (q - 1);
          } else {
            id = ibase + g * N1 * N1 * N1 + (i - 1) + (int64_t)N1 * ((j - 1) + (int64_t)N1 * (k - 1));
          }
          nid[hx_lex(nd, i, j, k)] = id;
        }
  }
}

/* Order-N node ids of every local element of m (vert_id and elem_offset set). */
static int pnum_ids(const pnum *P, const builder *bd, const elinfo *ei, hx_mesh *m) {
  int32_t *tloc = NULL, *qloc = NULL;
  int rc = hx_malloc((size_t)(P->nte + 1) * sizeof *tloc, &tloc);
  if (!rc) rc = hx_malloc((size_t)(P->nq + 1) * sizeof *qloc, &qloc);
  if (!rc) pnum_ids_range(P, bd, ei, m->order, m->vert_id, m->elem_offset, 0, m->num_elem, tloc, qloc, m->node_id);
  hx_free(&tloc), hx_free(&qloc);
  return rc;
}

static void builder_free(builder *bd) {
  hx_free(&bd->sx), hx_free(&bd->sr), hx_free(&bd->sparent), hx_free(&bd->smask);
  hx_free(&bd->X), hx_free(&bd->nbridge), hx_free(&bd->nmask);
  hx_free(&bd->F), hx_free(&bd->fv), hx_free(&bd->Q), hx_free(&bd->B);
  hx_free(&bd->nfoot), hx_free(&bd->FR);
  hx_free(&bd->qseg), hx_free(&bd->segsph), hx_free(&bd->segon);
  hx_free(&bd->fbad), hx_free(&bd->vguard), hx_free(&bd->vnode), hx_free(&bd->prechoice), hx_free(&bd->choice);
}

/* ---- lazy order N (hx_mesh_lazy): the sweep map and the numbering, block by block --- */

typedef struct plazy {
  builder bd;        /* the tessellation (moved from the mesher) */
  pnum P;            /* the shared numbering (moved) */
  elinfo *ei;        /* [num_elem] (moved) */
  hx_pebble_bed bed; /* copies of the centres and radii */
  hx_pebble_opts o;
  double s[65], se[2][65];
  int NE[2];
  sweep_ctx sc; /* points into this struct */
  int order;
  double g[HX_MAX_ND];
  int32_t *tloc, *qloc; /* pnum_ids_range scratch */
} plazy;

static void plazy_destroy(void *ctx) {
  plazy *z = ctx;
  if (!z) return;
  builder_free(&z->bd);
  pnum_free(&z->P);
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
    for (hx_lid e = 0; e < cnt; e++) sweep_elem(&z->sc, e0 + e, nd, z->g, x + (size_t)e * 3 * nd3);
  }
  if (ids) pnum_ids_range(&z->P, &z->bd, z->ei, z->order, m->vert_id, m->elem_offset, e0, cnt, z->tloc, z->qloc, ids);
  return HX_OK;
}

/* Move the builder (sc->bd), numbering P and element records (sc->ei) into a lazy
   order-N geometry of m; on success the caller's copies are emptied. */
static int plazy_attach(hx_mesh *m, const sweep_ctx *sc, pnum *P, int order) {
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
  memcpy(z->s, sc->s, sizeof z->s);
  for (int k = 0; k < 2; k++) memcpy(z->se[k], sc->se[k], sizeof z->se[k]);
  memcpy(z->NE, sc->NE, sizeof z->NE);
  z->order = order;
  z->bd = *sc->bd;
  memset((builder *)sc->bd, 0, sizeof *sc->bd);
  z->P = *P;
  memset(P, 0, sizeof *P);
  z->ei = (elinfo *)sc->ei;
  z->sc = (sweep_ctx){&z->bd, &z->bed, &z->o, z->s, {z->se[0], z->se[1]}, z->NE, z->ei, 0};
  m->lazy->order = order;
  m->lazy->id_bound = pnum_id_bound(&z->P, order, m->num_elem_global);
  m->lazy->ctx = z;
  m->lazy->block = plazy_block;
  m->lazy->destroy = plazy_destroy;
  return HX_OK;
}

/* HX_PEBBLE_MEM set: peak and current RSS after each stage, on stderr */
static void stage_mem(const char *stage) {
  if (!getenv("HX_PEBBLE_MEM")) return;
  FILE *f = fopen("/proc/self/status", "r");
  char line[256], out[256] = "";
  static struct timespec t0;
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  if (!t0.tv_sec) t0 = t;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6) || !strncmp(line, "VmRSS:", 6)) {
      line[strcspn(line, "\n")] = 0;
      strncat(out, line, sizeof out - strlen(out) - 2);
      strcat(out, " ");
    }
  if (f) fclose(f);
  fprintf(stderr, "pebble mem %-14s %7.2f s  %s\n", stage,
          (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec), out);
}

static int nthreads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* The variant scoring of facets [lo, hi) (most of the tessellation time) on the OpenMP
   threads: each thread tessellates chunks of the range in its own copy of the node, quad
   and bridge arrays (the polygons' vertices are the first nn nodes, the same in every
   copy), recording each facet's kept variant in bd->choice and its fold in bd->fbad; the
   caller then builds the whole tessellation with those variants (bd->forced). A facet's
   variant depends on its polygon only, so the choices are those of one thread scoring
   every facet, the property the MPI distribution of the scoring rests on too. */
static int score_facets(builder *bd, const hx_pebble_opts *o, hx_lid lo, hx_lid hi, const hx_pebble_stats *st) {
  int nt = nthreads();
  hx_lid n = hi - lo, nchunk = n < 16 * (hx_lid)nt ? n : 16 * (hx_lid)nt;
  int rc = HX_OK;
#pragma omp parallel num_threads(nt)
  {
    builder c = *bd;
    c.capn = bd->nn > 0 ? bd->nn : 1;
    c.X = NULL, c.nbridge = NULL, c.nmask = NULL, c.Q = NULL, c.capq = 0, c.B = NULL, c.capb = 0;
    int trc = hx_malloc((size_t)c.capn * 3 * sizeof *c.X, &c.X);
    if (!trc) trc = hx_malloc((size_t)c.capn * sizeof *c.nbridge, &c.nbridge);
    if (!trc) trc = hx_malloc((size_t)c.capn * sizeof *c.nmask, &c.nmask);
    if (!trc) trc = grow(&c.B, &c.capb, bd->nb + 1, sizeof *c.B);
    if (!trc) {
      memcpy(c.X, bd->X, (size_t)bd->nn * 3 * sizeof *c.X);
      memcpy(c.nbridge, bd->nbridge, (size_t)bd->nn * sizeof *c.nbridge);
      memcpy(c.nmask, bd->nmask, (size_t)bd->nn * sizeof *c.nmask);
      if (bd->nb) memcpy(c.B, bd->B, (size_t)bd->nb * sizeof *c.B);
    }
    c.forced = 0;
#pragma omp for schedule(dynamic, 1)
    for (hx_lid k = 0; k < nchunk; k++) {
      if (trc) continue;
      c.nn = bd->nn, c.nq = 0, c.nb = bd->nb;
      c.f_lo = lo + n * k / nchunk, c.f_hi = lo + n * (k + 1) / nchunk;
      hx_pebble_stats scratch = *st;
      if (c.f_lo < c.f_hi) trc = tessellate(&c, o, &scratch);
    }
    hx_free(&c.X), hx_free(&c.nbridge), hx_free(&c.nmask), hx_free(&c.Q), hx_free(&c.B);
#pragma omp critical(hx_pebble_score)
    if (trc && !rc) rc = trc;
  }
  return rc;
}

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
   Jacobian and Nek5000 min / max det J (column_q), with every linear column valid
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
   nineteenth session, H200). */
static double smooth_quad_q(const builder *bd, const hx_pebble_opts *o, const facet *F, hx_lid qi, const double *sl) {
  double w = 1;
  for (int side = 0; side < 2; side++) {
    if (bd->smask[side ? F->b : F->a]) break;
    w = column_q(bd, o, F, qi, side, sl, 3, w, -INFINITY);
    if (w < -1.5) return -1;
    if (w > 0 && !column_linear_ok(bd, o, F, qi, side, sl)) return 0;
  }
  return w;
}

#define SMOOTH_GOOD 0.3
static int smooth_facets(builder *bd, const hx_pebble_opts *o, int sweeps, hx_pebble_stats *st) {
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
  double sl[65];
  grading(o->layers, o->ratio, o->first_layer, sl);
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
      qq[j] = smooth_quad_q(bd, o, F, F->q0 + j, sl), fq = fmin(fq, qq[j]);
      clr[j] = fmin(1.25, chord_clearance(bd, F, F->q0 + j));
      asp[j] = o->aspect > 0 ? quad_aspect_est(bd, o, sl, F, F->q0 + j) : 0;
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
        if (cur >= SMOOTH_GOOD) continue;  /* the node's quads are good enough already */
        facet_plane(bd, F, x0, nrm, &off); /* moves in the power plane, or the wall's tangent plane */
        bridge_frame(nrm, t1, t2);
        for (int dir = 0; dir < 8; dir++) {
          double ang = HX_PI / 4 * dir, ca = cos(ang), sa = sin(ang), qn[MAXI], mn = 1;
          for (int c = 0; c < 3; c++) X0[c] = x0[c] + h[t] * (ca * t1[c] + sa * t2[c]);
          if (W) wall_project(W, X0);
          for (int i = 0; i < ninc[t] && mn > cur; i++) {
            if (chord_clearance(bd, F, F->q0 + inc[t][i]) < clr[inc[t][i]]) {
              mn = -INFINITY;
              break;
            }
            qn[i] = smooth_quad_q(bd, o, F, F->q0 + inc[t][i], sl);
            mn = fmin(mn, qn[i]);
            /* and none of the node's quads taken from SMOOTH_GOOD or more to below it, nor
               (--aspect A) to an estimated aspect ratio above max(ASPECT_EST_MARGIN A, its value) */
            na[i] = o->aspect > 0 ? quad_aspect_est(bd, o, sl, F, F->q0 + inc[t][i]) : 0;
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
   vertices of the facets that failed: repair_guard marks the diagram vertices (before the
   clean-up) merged into their polygon's nodes, and the next round's clean-up keeps those
   vertices out of every collapse of an edge of non-zero length (each then keeps its own
   power centre, on the planes of its facets). Beds with no such facet are built once,
   as before. */
#define MAX_REPAIR 2
static int repair_guard(builder *bd) {
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

/* The variants kept in a round, by facet (its two sites) and a hash of its polygon
   (vertex coordinates and wall masks in order), so that the repair round scores only the
   facets the guards changed; every other facet gets the variant it had, which is the one
   scoring it again would pick (the tessellation of a facet depends on its polygon only). */
typedef struct fsave {
  hx_lid n;
  int64_t *key; /* sorted */
  uint64_t *hash;
  int8_t *choice; /* -1: the facet folded (scored again) */
} fsave;

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

static int fsave_store(fsave *sv, const builder *bd) {
  hx_free(&sv->key), hx_free(&sv->hash), hx_free(&sv->choice);
  sv->n = bd->nf;
  HX_CALL(hx_malloc((size_t)(sv->n + 1) * sizeof *sv->key, &sv->key));
  HX_CALL(hx_malloc((size_t)(sv->n + 1) * sizeof *sv->hash, &sv->hash));
  HX_CALL(hx_malloc((size_t)(sv->n + 1) * sizeof *sv->choice, &sv->choice));
  /* facets are made in increasing (a, b) order by build_diagram: keys sorted already */
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    sv->key[f] = (int64_t)F->a * bd->ns + F->b;
    sv->hash[f] = facet_hash(bd, F);
    sv->choice[f] = bd->fbad[f] ? -1 : bd->choice[f];
  }
  return HX_OK;
}

static int fsave_lookup(const fsave *sv, builder *bd) {
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

int hx_mesher_pebble(hx_comm comm, const hx_pebble_bed *bed, const hx_pebble_opts *o, hx_mesh **out, hx_pebble_stats *stats) {
  *out = NULL;
  hx_pebble_stats st;
  memset(&st, 0, sizeof st);
  struct timespec t0, t1, t2;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  HX_CHECK(o->layers >= 1 && o->layers <= 64, HX_ERR_INPUT, "pebble: --layers must be in 1..64");
  HX_CHECK(bed->n >= 2, HX_ERR_INPUT, "pebble: a bed needs at least two spheres");
  HX_CHECK(!(o->smooth > 0 && o->split > 1), HX_ERR_INPUT,
           "pebble: --smooth and --split %d do not go together (the smoothing scores the parent quads; "
           "their split children fold)",
           o->split);
  builder B;
  memset(&B, 0, sizeof B);
  builder *bd = &B;
  /* walls */
  if (o->container == HX_PEBBLE_CYLINDER) {
    wall *w = &bd->w[bd->nw++];
    w->cyl = 1;
    w->p[0] = o->cx, w->p[1] = o->cy, w->p[2] = 0;
    w->n[2] = 1;
    w->R = o->cyl_radius;
  } else {
    for (int c = 0; c < 2; c++)
      for (int side = 0; side < 2; side++) {
        wall *w = &bd->w[bd->nw++];
        w->p[c] = side ? o->box_hi[c] : o->box_lo[c];
        w->n[c] = side ? 1 : -1;
      }
  }
  {
    wall *w = &bd->w[bd->nw++];
    w->p[2] = o->zlo, w->n[2] = -1, w->kind = 1;
    w = &bd->w[bd->nw++];
    w->p[2] = o->zhi, w->n[2] = 1, w->kind = 2;
  }
  stage_mem("start");
  int rc = build_sites(bd, bed, o);
  st.num_spheres = bed->n;
  st.num_ghosts = bd->ns - bd->nreal;
  /* diagram and tessellation; where a facet has no tessellation that sweeps without
     inverted columns, the clean-up is run again with its vertices guarded (repair_guard) */
  hx_pebble_stats st0 = st;
  double t_diag = 0;
  fsave sv = {0};
  if (!rc) rc = hx_power3d_compute(bd->sx, bd->sr, bd->ns, &bd->pd); /* kept for a repair round */
  {
    struct timespec tq;
    clock_gettime(CLOCK_MONOTONIC, &tq);
    t_diag = (double)(tq.tv_sec - t0.tv_sec) + 1e-9 * (double)(tq.tv_nsec - t0.tv_nsec); /* sites and Qhull */
  }
  for (int round = 0; !rc; round++) {
    struct timespec ta, tb;
    clock_gettime(CLOCK_MONOTONIC, &ta);
    st = st0;
    st.num_repair_rounds = round;
    rc = build_diagram(bd, o, bed, &st);
    stage_mem("diagram");
    clock_gettime(CLOCK_MONOTONIC, &tb);
    t_diag += (double)(tb.tv_sec - ta.tv_sec) + 1e-9 * (double)(tb.tv_nsec - ta.tv_nsec);
    if (!rc) rc = hx_malloc((size_t)(bd->nf + 1) * sizeof *bd->fbad, &bd->fbad);
    if (!rc) rc = hx_malloc((size_t)(bd->nf + 1) * sizeof *bd->choice, &bd->choice);
    if (!rc && round > 0) rc = fsave_lookup(&sv, bd);
    hx_free(&bd->skey), hx_free(&bd->sseg);
    bd->nskey = 0;
    hx_lid nn_diag = bd->nn;
    hx_pebble_stats st_diag = st;
    for (int pass = 0; pass < 2; pass++) { /* --aspect: a second pass with the edges cut */
      if (!rc && hx_comm_size(comm) > 1) {
        /* the variant scoring (most of the tessellation time) is shared: each rank scores
           a contiguous range of facets, the kept variants are combined (max over ranks of
           -1 elsewhere), and every rank then builds the whole tessellation in facet order
           with those variants, i.e. the same nodes and quads as one rank scoring them all */
        int np = hx_comm_size(comm), me = hx_comm_rank(comm);
        hx_lid nn0 = bd->nn, nb0 = bd->nb, nf = bd->nf;
        int64_t *ch = NULL;
        hx_pebble_stats scratch = st;
        rc = hx_malloc((size_t)(nf + 1) * sizeof *ch, &ch);
        hx_lid lo = nf * me / np, hi = nf * (me + 1) / np;
        if (!rc && lo < hi) rc = score_facets(bd, o, lo, hi, &scratch);
        if (!rc) /* the kept variant, + 1000 where the facet is left with inverted columns */
          for (hx_lid f = 0; f < nf; f++) ch[f] = f >= lo && f < hi ? bd->choice[f] + 1000 * bd->fbad[f] : -1;
        int rca = hx_comm_agree(comm, rc);
        if (rca && !rc) rc = HX_ERROR(rca, "pebble: tessellation failed on another rank");
        if (!rc) rc = hx_comm_max_int64(comm, ch, (int)nf);
        if (!rc) {
          for (hx_lid f = 0; f < nf; f++) bd->choice[f] = (int8_t)(ch[f] % 1000), bd->fbad[f] = ch[f] >= 1000;
          bd->nn = nn0, bd->nb = nb0, bd->nq = 0;
          bd->forced = 1;
        }
        hx_free(&ch);
        stage_mem("variant scoring");
      } else if (!rc && nthreads() > 1 && bd->nf > 0) { /* one rank, several threads */
        rc = score_facets(bd, o, 0, bd->nf, &st);
        bd->forced = 1;
        stage_mem("variant scoring");
      }
      if (!rc) rc = tessellate(bd, o, &st);
      bd->forced = 0;
      if (!rc && o->aspect > 0 && !bd->nskey) {
        /* --aspect: cut the edges about contacts that need more segments, and build again */
        hx_lid ncut = 0;
        rc = mark_splits(bd, o, &ncut);
        if (!rc && ncut) {
          bd->nn = nn_diag, bd->nq = 0, bd->nb = 0;
          st = st_diag;
          st.num_cut_edges = ncut;
          for (hx_lid k = 0; k < bd->nskey; k++) st.num_cut_segments += bd->sseg[k] - 2;
          for (hx_lid f = 0; f < bd->nf; f++) bd->F[f].q0 = bd->F[f].nq = 0, bd->F[f].bridge = -1, bd->F[f].centre = -1;
          hx_free(&bd->prechoice);
          continue; /* the same scoring and build, now with the cuts */
        }
      }
      break;
    }
    hx_free(&bd->prechoice);
    if (rc) break;
    hx_lid nbad = 0;
    for (hx_lid f = 0; f < bd->nf; f++) nbad += bd->fbad[f];
    if (round == 0) st0.num_repaired_facets = nbad;
    if (!nbad || round == MAX_REPAIR || !bd->vnode) break;
    rc = repair_guard(bd);
    if (!rc) rc = fsave_store(&sv, bd);
    /* the next round starts from the diagram again */
    bd->nn = 0, bd->nf = 0, bd->nfv = 0, bd->nq = 0, bd->nb = 0;
    hx_free(&bd->fbad), hx_free(&bd->choice);
  }
  hx_free(&bd->fbad), hx_free(&bd->choice), hx_free(&bd->prechoice);
  hx_free(&sv.key), hx_free(&sv.hash), hx_free(&sv.choice), hx_free(&bd->skey), hx_free(&bd->sseg);
  hx_power3d_destroy(&bd->pd);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (!rc) rc = smooth_facets(bd, o, o->smooth, &st);
  if (!rc) rc = split_quads(bd, o->split);
  int mo = map_order(o, o->order);
  if (!rc && (spacing_on(o->ring_volume, mo) || spacing_on(o->edge_volume, mo))) rc = ring_edges(bd, o);
  stage_mem("tessellation");
  hx_mesh *m = NULL;
  int32_t *stamp = NULL, *colbase = NULL;
  elinfo *einfo = NULL;
  typedef struct pface {
    int32_t e, f, kind, surf;
  } pface;
  pface *pf = NULL;
  hx_lid npf = 0, cappf = 0, ne = 0, cape = 0;
  int L = o->layers;
  int debug = getenv("HX_PEBBLE_DEBUG") != NULL;
  double s[65];
  grading(L, o->ratio, o->first_layer, s);
  int NE[2] = {o->inlet_len > 0 ? o->inlet_layers : 0, o->outlet_len > 0 ? o->outlet_layers : 0};
  double se[2][65];
  for (int k = 0; k < 2; k++)
    if (NE[k]) grading(NE[k], o->extrude_ratio, 0, se[k]);
  if (!rc && (spacing_on(o->ring_volume, mo) || spacing_on(o->edge_volume, mo)) && o->order > 1) {
    sweep_ctx sc = {bd, bed, o, s, {se[0], se[1]}, NE, NULL, 0};
    rc = ring_points_guard(&sc, mo, comm, &st.num_ring_even, &st.num_edge_even);
  }
  /* surfaces: spheres, walls, extrusion end planes, bridges */
  int nsurf = 0;
  hx_surface *surf = NULL;
  int end_surf[2] = {-1, -1};
  if (!rc) rc = hx_malloc(((size_t)bed->n + (size_t)bd->nw + 2 + (size_t)bd->nb) * sizeof *surf, &surf);
  if (!rc) {
    for (hx_lid i = 0; i < bed->n; i++) {
      hx_surface *S = &surf[nsurf++];
      S->type = HX_SURF_SPHERE;
      memcpy(S->p, bed->xyz + 3 * i, 3 * sizeof(double));
      S->r = bed->r[i];
    }
    for (int k = 0; k < bd->nw; k++) {
      hx_surface *S = &surf[nsurf];
      bd->w[k].surf = nsurf++;
      S->type = bd->w[k].cyl ? HX_SURF_CYLINDER : HX_SURF_PLANE;
      memcpy(S->p, bd->w[k].p, sizeof S->p);
      memcpy(S->n, bd->w[k].n, sizeof S->n);
      S->r = bd->w[k].R;
    }
    for (int k = 0; k < 2; k++)
      if (NE[k]) {
        hx_surface *S = &surf[nsurf];
        end_surf[k] = nsurf++;
        S->type = HX_SURF_PLANE;
        S->n[2] = k ? 1 : -1;
        S->p[2] = k ? o->zhi + o->outlet_len : o->zlo - o->inlet_len;
      }
    for (hx_lid k = 0; k < bd->nb; k++) {
      hx_surface *S = &surf[nsurf];
      bd->B[k].surf = nsurf++;
      S->type = HX_SURF_CYLINDER;
      memcpy(S->p, bd->B[k].p, sizeof S->p);
      memcpy(S->n, bd->B[k].u, sizeof S->n);
      S->r = bd->B[k].rb;
    }
  }
  /* ---- distribution over the ranks --------------------------------------------
     Pseudo-cells c: the spheres 0..n-1, then the inlet (n) and outlet (n+1)
     extrusions; each is a list of (facet, reversed) in facet order, swept into Lc
     layers (L for a sphere, NE[k] for an extrusion). Nodes, elements and the order-N
     edges/faces are numbered cell by cell from prefix sums of per-cell counts that
     every rank computes from the replicated tessellation, so a rank sweeps only its
     own contiguous range of cells and still gets the ids and element order of a
     1-rank run (pnum). */
  pnum P;
  memset(&P, 0, sizeof P);
  P.n = bed->n;
  P.ncell = bed->n + 2;
  P.L[0] = L, P.L[1] = NE[0], P.L[2] = NE[1];
  P.nfn = bd->nn;
  P.nq = bd->nq;
  if (!rc) rc = pnum_build(&P, bd);
  int nrank = hx_comm_size(comm), myrank = hx_comm_rank(comm);
  hx_lid c_lo = 0, c_hi = 0;
  if (!rc) {
    /* cell c goes to the rank whose share of the global element range holds its first element */
    int64_t etot = P.ebase[P.ncell];
    while (c_lo < P.ncell && (etot ? P.ebase[c_lo] * nrank / etot : 0) < myrank) c_lo++;
    c_hi = c_lo;
    while (c_hi < P.ncell && (etot ? P.ebase[c_hi] * nrank / etot : 0) < myrank + 1) c_hi++;
    if (myrank == nrank - 1) c_hi = P.ncell;
    st.elems_bulk = (hx_lid)P.ebase[bed->n];
    st.elems_inlet = (hx_lid)(P.ebase[bed->n + 1] - P.ebase[bed->n]);
    st.elems_outlet = (hx_lid)(P.ebase[bed->n + 2] - P.ebase[bed->n + 1]);
  }
  /* the elements go straight into the mesh; the column nodes of one cell at a time
     live in Xl (ids xbase..) */
  int64_t xbase = 0, xmax = 1;
  double *Xl = NULL;
  hx_lid nfacetnodes = bd->nn;
  for (hx_lid c = c_lo; c < c_hi && !rc; c++)
    if (P.vbase[c + 1] - P.vbase[c] > xmax) xmax = P.vbase[c + 1] - P.vbase[c];
  if (!rc) rc = hx_malloc((size_t)xmax * 3 * sizeof *Xl, &Xl);
  if (!rc) rc = hx_malloc((size_t)nfacetnodes * sizeof *stamp, &stamp);
  if (!rc) rc = hx_malloc((size_t)nfacetnodes * sizeof *colbase, &colbase);
  if (!rc)
    for (hx_lid i = 0; i < nfacetnodes; i++) stamp[i] = -1;
  if (!rc) {
    cape = (hx_lid)(P.ebase[c_hi] - P.ebase[c_lo]);
    if (o->order > 1) rc = hx_malloc((size_t)(cape + 1) * sizeof *einfo, &einfo); /* for the sweep map */
  }
  {
    int rca = hx_comm_agree(comm, rc);
    if (rca && !rc) rc = HX_ERROR(rca, "pebble: meshing failed on another rank");
  }
  if (!rc) rc = hx_mesh_create(comm, 1, cape, &m);
#define NODE_X(id) ((id) < (int32_t)nfacetnodes ? bd->X + 3 * (size_t)(id) : Xl + 3 * (size_t)((id)-xbase))
#define ADD_ELEM(cn, attr)                                                                                                       \
  do {                                                                                                                           \
    for (int c_ = 0; c_ < 8; c_++) {                                                                                             \
      const double *xv_ = NODE_X((cn)[c_]);                                                                                      \
      m->vert_id[8 * ne + c_] = m->node_id[8 * ne + c_] = (cn)[c_];                                                              \
      for (int d_ = 0; d_ < 3; d_++) hx_mesh_elem_x(m, ne, d_)[c_] = xv_[d_];                                                    \
    }                                                                                                                            \
    m->elem_attr[ne] = (attr);                                                                                                   \
    ne++;                                                                                                                        \
  } while (0)
#define ADD_FACE(E_, F_, K_, S_)                                                                                                 \
  do {                                                                                                                           \
    if ((rc = grow(&pf, &cappf, npf + 1, sizeof *pf))) break;                                                                    \
    pf[npf].e = (int32_t)(E_), pf[npf].f = (F_), pf[npf].kind = (K_), pf[npf].surf = (S_);                                       \
    npf++;                                                                                                                       \
  } while (0)
  /* sweep of this rank's sphere cells */
  for (hx_lid a = c_lo; a < c_hi && a < bed->n && !rc; a++) {
    const double *ca = bed->xyz + 3 * a;
    double ra = bed->r[a];
    int32_t nextcol = (int32_t)P.vbase[a];
    xbase = P.vbase[a];
    for (int32_t z = P.cf_start[a]; z < P.cf_start[a + 1] && !rc; z++) {
      const facet *F = &bd->F[P.cf[z] / 2];
      for (int32_t qi = F->q0; qi < F->q0 + F->nq && !rc; qi++)
        for (int v = 0; v < 4 && !rc; v++) {
          int32_t x = bd->Q[qi].x[v];
          if (stamp[x] == (int32_t)a) continue;
          stamp[x] = (int32_t)a;
          colbase[x] = nextcol;
          nextcol += L;
          double X[3], y[3], r[3];
          memcpy(X, bd->X + 3 * x, sizeof X);
          for (int c = 0; c < 3; c++) r[c] = X[c] - ca[c];
          int32_t br = bd->nbridge[x];
          double rl = norm3(r);
          if (br < 0 && !(bd->nfoot && bd->nfoot[x] >= 0) && !(rl > ra * (1 + 1e-9))) { /* radial foot */
            rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: a facet node at (%g, %g, %g) lies inside sphere %d (distance %g, radius %g)",
                          X[0], X[1], X[2], (int)a, rl, ra);
            break;
          }
          node_foot(bd, ca, ra, (int32_t)a, x, y);
          double sx[65];
          column_grading(o, s, dist3(X, y), ra, sx);
          for (int k = 0; k < L; k++) {
            double *q = Xl + 3 * (size_t)(colbase[x] + k - xbase);
            for (int c = 0; c < 3; c++) q[c] = y[c] + sx[k] * (X[c] - y[c]);
            if (k == 0 && br < 0) /* exactly on the sphere */
              for (int c = 0; c < 3; c++) q[c] = y[c];
          }
        }
      if (rc) break;
      int rev = P.cf[z] & 1;
      for (int32_t qi = F->q0; qi < F->q0 + F->nq && !rc; qi++) {
        const quad *Qd = &bd->Q[qi];
        int32_t qx[4];
        uint8_t cham = 0;
        for (int v = 0; v < 4; v++) qx[v] = rev ? Qd->x[3 - v] : Qd->x[v];
        for (int e = 0; e < 4; e++)
          if (Qd->chamfer >> e & 1) cham |= (uint8_t)(1u << (rev ? (6 - e) % 4 : e));
        for (int k = 0; k < L && !rc; k++) {
          int32_t cn[8];
          for (int v = 0; v < 4; v++) {
            int32_t x = qx[v];
            cn[quad_to_lex[v]] = colbase[x] + k;
            cn[4 + quad_to_lex[v]] = k + 1 == L ? x : colbase[x] + k + 1;
          }
          ADD_ELEM(cn, 1);
          hx_lid e = ne - 1;
          if (einfo) einfo[e].quad = qi, einfo[e].cell = (int32_t)a, einfo[e].layer = k, einfo[e].rev = rev;
          if (debug) {
            double P8[24];
            const int32_t c8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
            for (int c = 0; c < 8; c++) memcpy(P8 + 3 * c, NODE_X(cn[c]), 3 * sizeof(double));
            double dm = min_corner_det(P8, c8);
            if (dm <= 0)
              fprintf(stderr,
                      "bad elem %lld: cell %d facet %d (b=%d ghost=%d wall=%d bridge=%d nv=%d nq=%d) quad %d layer %d at (%.3f "
                      "%.3f %.3f) det %.3e\n",
                      (long long)(P.ebase[c_lo] + e), (int)a, P.cf[z] / 2, (int)F->b, bd->smask[F->b], F->wall, F->bridge, F->nv,
                      F->nq, qi - F->q0, k, P8[0], P8[1], P8[2], dm);
          }
          if (k == 0) ADD_FACE(e, 4, 1, (int32_t)a);
          for (int ed = 0; ed < 4 && !rc; ed++)
            if (cham >> ed & 1) ADD_FACE(e, edge_face[ed], 2, bd->B[F->bridge].surf);
          if (!rc && k == L - 1 && F->wall >= 0) {
            const wall *W = &bd->w[F->wall];
            int extruded = (W->kind == 1 && NE[0]) || (W->kind == 2 && NE[1]);
            if (!extruded) ADD_FACE(e, 5, 3 + W->kind, W->surf);
          }
        }
      }
    }
  }
  /* extrusion of the plane facets (pseudo-cells n, n+1) */
  for (int k = 0; k < 2 && !rc; k++) {
    hx_lid c = bed->n + k;
    if (c < c_lo || c >= c_hi || !NE[k]) continue;
    double len = k ? o->outlet_len : o->inlet_len, dir = k ? 1 : -1;
    int32_t nextcol = (int32_t)P.vbase[c];
    xbase = P.vbase[c];
    for (int32_t z = P.cf_start[c]; z < P.cf_start[c + 1] && !rc; z++) {
      const facet *F = &bd->F[P.cf[z] / 2];
      for (int32_t qi = F->q0; qi < F->q0 + F->nq && !rc; qi++) {
        const quad *Qd = &bd->Q[qi];
        for (int v = 0; v < 4; v++) {
          int32_t x = Qd->x[v];
          if (stamp[x] == (int32_t)c) continue;
          stamp[x] = (int32_t)c;
          colbase[x] = nextcol;
          nextcol += NE[k];
          for (int l = 1; l <= NE[k]; l++) {
            double *q = Xl + 3 * (size_t)(colbase[x] + l - 1 - xbase);
            memcpy(q, bd->X + 3 * x, 3 * sizeof(double));
            q[2] = (k ? o->zhi : o->zlo) + dir * len * se[k][l];
          }
        }
        int32_t qx[4];
        uint8_t em[4];
        for (int v = 0; v < 4; v++) qx[v] = Qd->x[3 - v];
        for (int e = 0; e < 4; e++) em[e] = Qd->emask[(6 - e) % 4];
        for (int l = 0; l < NE[k] && !rc; l++) {
          int32_t cn[8];
          for (int v = 0; v < 4; v++) {
            int32_t x = qx[v];
            cn[quad_to_lex[v]] = colbase[x] + l;                      /* deeper: level l+1 */
            cn[4 + quad_to_lex[v]] = l == 0 ? x : colbase[x] + l - 1; /* level l */
          }
          ADD_ELEM(cn, 2 + k);
          hx_lid e = ne - 1;
          if (einfo) einfo[e].quad = qi, einfo[e].cell = -1 - k, einfo[e].layer = l, einfo[e].rev = 1;
          if (l == NE[k] - 1) ADD_FACE(e, 4, 4 + k, end_surf[k]);
          for (int ed = 0; ed < 4 && !rc; ed++) {
            uint8_t side = em[ed] & (uint8_t) ~((1u << (bd->nw - 1)) | (1u << (bd->nw - 2)));
            if (!side) continue;
            int wk = 0;
            while (!(side >> wk & 1)) wk++;
            ADD_FACE(e, edge_face[ed], 3, bd->w[wk].surf);
          }
        }
      }
    }
  }
#undef ADD_ELEM
#undef ADD_FACE
  if (!rc && ne != cape)
    rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: rank %d swept %lld elements, the counts said %lld", myrank, (long long)ne,
                  (long long)cape);
  hx_free(&stamp), hx_free(&colbase);
  stage_mem("sweep");
  clock_gettime(CLOCK_MONOTONIC, &t2);
  hx_free(&Xl);
  /* boundary faces, names, surfaces (collective: every rank gets here, with rc agreed) */
  {
    int rca = hx_comm_agree(comm, rc);
    if (rca && !rc) rc = HX_ERROR(rca, "pebble: meshing failed on another rank");
  }
  if (!rc) {
    /* boundary ids contiguous from 1 in the order pebble, chamfer, wall, inlet, outlet
       (the kinds present on any rank) */
    static const char *names[5] = {"pebble", "chamfer", "wall", "inlet", "outlet"};
    int64_t present[6] = {0};
    int bid[6] = {0}, next = 1;
    for (hx_lid i = 0; i < npf; i++) present[pf[i].kind] = 1;
    rc = hx_comm_max_int64(comm, present, 6);
    for (int k = 1; k <= 5 && !rc; k++)
      if (present[k]) {
        bid[k] = next;
        rc = hx_mesh_set_bname(m, next++, names[k - 1]);
      }
    for (hx_lid i = 0; i < npf && !rc; i++) rc = hx_mesh_add_face(m, pf[i].e, pf[i].f, bid[pf[i].kind], pf[i].surf);
    hx_free(&pf);
    for (int k = 0; k < nsurf && !rc; k++) rc = hx_mesh_add_surface(m, &surf[k], NULL);
  }
#undef NODE_X
  stage_mem("order-1 mesh");
  if (!rc && o->order > 1 && !o->lazy) {
    hx_mesh *hi = NULL;
    sweep_ctx sc = {bd, bed, o, s, {se[0], se[1]}, NE, einfo, 0};
    rc = sweep_curve(&sc, m, o->order, &hi);
    if (!rc) rc = pnum_ids(&P, bd, einfo, hi);
    if (!rc && getenv("HX_PEBBLE_CLASSIFY")) rc = classify_report(bd, einfo, hi, L);
    if (!rc) {
      hx_mesh_destroy(&m);
      m = hi;
    } else hx_mesh_destroy(&hi);
  }
  {
    int rca = hx_comm_agree(comm, rc);
    if (rca && !rc) rc = HX_ERROR(rca, "pebble: meshing failed on another rank");
  }
  st.t_diagram = t_diag;
  st.t_mesh = (double)(t2.tv_sec - t0.tv_sec) + 1e-9 * (double)(t2.tv_nsec - t0.tv_nsec) - t_diag;
  /* bridge volume (solid added): cylinder segments between the caps, approximate */
  for (hx_lid k = 0; k < bd->nb; k++) {
    const bridge *BR = &bd->B[k];
    double rb = BR->rb, len = 0;
    double ha = dist3(BR->p, bd->sx + 3 * BR->a);
    len += ha - sqrt(fmax(0, bd->sr[BR->a] * bd->sr[BR->a] - rb * rb));
    if (BR->b >= 0) {
      double hb = dist3(BR->p, bd->sx + 3 * BR->b);
      len += hb - sqrt(fmax(0, bd->sr[BR->b] * bd->sr[BR->b] - rb * rb));
    }
    st.bridge_volume += HX_PI * rb * rb * len;
  }
  hx_free(&stamp), hx_free(&colbase), hx_free(&Xl);
  /* lazy order N: the order-1 mesh keeps the tessellation, numbering and element
     records (moved into its hx_mesh_lazy) to evaluate the sweep map block by block */
  if (!rc && o->order > 1 && o->lazy) {
    sweep_ctx sc = {bd, bed, o, s, {se[0], se[1]}, NE, einfo, 0};
    rc = plazy_attach(m, &sc, &P, o->order);
    if (!rc) einfo = NULL;
    rc = hx_comm_agree(comm, rc);
  }
  pnum_free(&P);
  hx_free(&einfo), hx_free(&pf), hx_free(&surf);
  builder_free(bd);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  if (stats) *stats = st;
  *out = m;
  return HX_OK;
}
