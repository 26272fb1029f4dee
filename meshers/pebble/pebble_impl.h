/* Private to meshers/pebble/: the types the pebble mesher's steps share (walls, bridges,
   facets, quads, the builder that carries them from step to step) and the functions that
   cross its files, each named pb_ and listed under the file that holds it. The steps are
   listed in pebble.c. */
#pragma once
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_curve.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "hx_pebble.h"
#include "hx_power3d.h"
#include "hx_progress.h"
#include "hx_quality.h"
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
                       facet, its order-N points spaced by volume (--ring-points, pb_ring_edges) */
  uint8_t lay;      /* QL_*: how its columns are layered (--contact-layers) */
} quad;

/* the layering of a quad's columns: swept (--layers layers); one layer (the ring on a bridge
   circle with --contact-layers one); transition (the ring next to it: its inner side, edge 2,
   is one layer, its outer side --layers = 3: the three layers' inner nodes pulled into the
   quad and a cap element between them and the inner side) */
enum { QL_SWEPT, QL_ONE, QL_TRANS };

/* the transition's pulled nodes (pb_trans_node): at TRANS_ALPHA x the inner column's height
   along the radial edge (as a fraction of it, within [0.05, 0.45]), at TRANS_BETA and
   1 - TRANS_BETA of the column there */
#define TRANS_ALPHA 0.15
#define TRANS_BETA 0.25

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

/* The options digested once (pb_plan_build, in pebble.c): the values the steps read, the
   derived ones computed once. Every step reaches it through its builder (builder.plan). */
typedef struct pb_plan {
  const hx_pebble_opts *o;  /* borrowed: the options as given */
  const hx_pebble_bed *bed; /* borrowed: the bed as meshed (for the input errors' names and positions) */
  double dmean;             /* the mean sphere diameter (the unit of the clean-up's tolerances) */
  double sl[65];            /* [layers + 1] the layer fractions of a radial column (--layers, --ratio, --first-layer) */
  int NE[2];                /* the inlet's and the outlet's extruded layers (0: none) */
  double se[2][65];         /* [NE[k] + 1] their layer fractions (--extrude-ratio) */
} pb_plan;

typedef struct builder {
  const pb_plan *plan; /* borrowed: the options digested */
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
  /* --split: feet of the nodes it adds (nfoot[node]: recipe in FR, -1: pb_foot_point) */
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
  double *fscore; /* fscore[f]: the kept variant's score where the facet was scored (1: not scored) */
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
  /* --contact-layers one: tpart[x] the outer end of the radial edge from node x, an inner node
     of a transition ring (-1: none); pb_trans_mark */
  int32_t *tpart;
} builder;

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

/* ---- edges: midpoints keyed by the edge ------------------------------------ */

typedef struct emap {
  hx_lid cap;
  int64_t *key;
  int32_t *mid; /* the edge's midpoint, or on an edge cut into m segments (--aspect) the first of its
                   m - 1 nodes (consecutive ids, from the lower end node's side) */
  uint8_t *mask;
} emap;

/* ---- sweep, extrusion, mesh ------------------------------------------------- */

/* hex corner c (lexicographic) of quad corner: c0=x0, c1=x1, c2=x3, c3=x2 */
static const int quad_to_lex[4] = {0, 1, 3, 2};

/* local hex face of quad edge e (x[e], x[e+1]) */
static const int edge_face[4] = {2, 1, 3, 0};

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

/* quad kinds of a ring and of a fan (pb_ring_edges) */
#define IS_RING(k) ((k) == QK_RING || (k) == QK_BRIDGE_IN || (k) == QK_BRIDGE_OUT)

#define IS_FAN(k) ((k) == QK_FAN || (k) == QK_FAN_RINGED)

typedef struct qedge {
  int32_t u, v, q; /* end nodes (u < v), quad */
  int e;           /* the edge's index in the quad */
} qedge;

/* the kinds of spaced edge (pb_ring_edges): a ring's radial edge, a ring's chord, a fan's spoke,
   a facet's boundary edge (spaced by the gap to sphere gs alone, boundary_segments) */
enum { RE_RADIAL, RE_CHORD, RE_SPOKE, RE_GAP };
#define RE_K 32 /* steps of a spaced edge's cumulative weight */

/* ---- numbering shared by every rank (the distribution) ---------------------
   Pseudo-cell c (sphere, or extrusion n / n+1) with Lc layers, nN_c distinct facet
   nodes, nQ_c quads and nT_c distinct tessellation edges. Layout of the global ids:
   vertices: facet nodes [0, nfn), then per cell Lc * nN_c column nodes (vbase);
   elements: per cell Lc per swept quad, 1 per one-layer quad, Lc + 1 per transition quad
             (ebase);
   edges:    tessellation edges [0, nte), then one "vertical" edge per column node
             (the edge from it towards the facet, index nte + id - nfn), with
             --contact-layers one as many span edges (a node's sphere-level node to its facet
             node, spanbase + id - nfn), then per cell Lc * nT_c layer copies of its
             tessellation edges (hbase);
   faces:    tessellation quads [0, nq), then per cell Lc * nQ_c layer copies of its
             quads and (Lc + xs) * nT_c side faces (fbase): slot Lc of an edge is the span
             face of a one-layer column, or on a transition ring's radial edge its caps' face.
   Ids a cell's layering does not use are left unused.
   Order-N node ids: vertex ids, then (N-1) per edge, (N-1)^2 per face, (N-1)^3 per
   element, each entity's nodes in a frame fixed by its corner ids alone. */
/* corner c (lexicographic) of the cap element of transition quad Qd (rev: swept into the
   facet's second cell): its facet node (i = c & 1: x[3], x[2]) and level (0 the sphere, 3 the
   facet, 1 and 2 the pulled nodes); j = c >> 1 & 1 runs from the pulled nodes to the inner
   side (rev: back), k = c >> 2 up the column, the handedness of the quad's swept elements */
static inline void pb_cap_corner(const quad *Qd, int rev, int c, int32_t *node, int *level) {
  int i = c & 1, j = c >> 1 & 1, k = c >> 2 & 1, pulled = rev ? j : !j;
  *node = Qd->x[i ? 2 : 3];
  *level = pulled ? 1 + k : 3 * k;
}

typedef struct pnum {
  hx_lid n, ncell, nfn, nq, nte;
  int L[3];                               /* layers of a sphere cell, of the inlet, of the outlet */
  int32_t *cf_start;                      /* [ncell + 1] */
  int32_t *cf;                            /* 2 f + reversed */
  int32_t *qedge;                         /* [4 nq] tessellation edge of quad edge (x[e], x[e+1]) */
  int64_t *vbase, *ebase, *hbase, *fbase; /* [ncell + 1] */
  int32_t *nQ;                            /* [ncell] quads of each cell */
  int xs;                                 /* 1 with --contact-layers one: a span slot after each tessellation
                                             edge's Lc side faces, span edges after the vertical ones */
  int64_t spanbase;                       /* the span edge of column node id x: spanbase + x - nfn */
} pnum;

/* a block of local elements [e0, e0 + cnt) whose order-N node ids pb_pnum_ids_range writes to
   nid [cnt][nd^3]; tloc [nte + 1] and qloc [nq + 1] are its scratch */
typedef struct pnum_block {
  hx_lid e0, cnt;
  int32_t *tloc, *qloc;
  hx_gid *nid;
} pnum_block;

#define MAX_REPAIR 2 /* repair rounds after the first (pb_repair_guard in smooth.c) */

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

static inline double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static inline double norm3(const double *a) { return sqrt(dot3(a, a)); }

static inline void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double dist3(const double *a, const double *b) {
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return norm3(d);
}

/* ---- sites.c ------------------------------------------------------------------------------- */
int pb_grow(void *pp, hx_lid *cap, hx_lid need, size_t elsize);
int pb_add_node(builder *bd, const double x[3], uint8_t mask, int32_t br, int32_t *id);
double pb_wall_dist(const wall *w, const double x[3]);
void pb_wall_project(const wall *w, double x[3]);
void pb_wall_project_along(const wall *w, double x[3], const double u[3]);
void pb_snap(const builder *bd, uint8_t mask, double x[3]);
int32_t pb_power_owner(const builder *bd, const double x[3], double *pmin);
double pb_cyl_angle(const wall *W, const double x[3]);
void pb_cyl_at(const wall *W, double th, double x[3]);
int pb_cyl_arc(const builder *bd, const wall *W, int32_t a, const double x1[3], const double x2[3], double *dth);
int pb_build_sites(builder *bd, const hx_pebble_bed *bed, const hx_pebble_opts *o);

/* ---- diagram.c ----------------------------------------------------------------------------- */
double pb_pair_gap(const builder *bd, int32_t a, int32_t b);
int pb_own_wall(const builder *bd, int32_t a, int32_t b);
int pb_extruded(const hx_pebble_opts *o, const wall *w);
int pb_facet_contact(const builder *bd, const facet *f, double *gap);
void pb_facet_plane(const builder *bd, const facet *F, const double x[3], double n[3], double *off);
int pb_build_diagram(builder *bd, const hx_pebble_bed *bed, hx_pebble_stats *st);

/* ---- tessellate.c -------------------------------------------------------------------------- */
int pb_emap_init(emap *e, hx_lid n);
hx_lid pb_emap_slot(const emap *e, int32_t u, int32_t v);
void pb_emap_free(emap *e);
double pb_poly_inner_dist(const double *P, int n, double px, double py);
double pb_column_q(const builder *bd, const facet *F, hx_lid qi, int side, int flags, double worst, double stop);
int pb_column_linear_ok(const builder *bd, const facet *F, hx_lid qi, int side);
double pb_quad_aspect_est(const builder *bd, const facet *F, hx_lid qi);
int pb_tessellate(builder *bd, hx_pebble_stats *st);
double pb_layer_range(const pb_plan *pl, double h, double ra, double *thick);
int pb_mark_splits(builder *bd, hx_lid *ncut);
int pb_arc_facet(const builder *bd, hx_lid f);
int pb_mark_arc_splits(builder *bd, hx_lid *ncut);
int pb_nthreads(void);
int pb_thread(void); /* this OpenMP thread (0 without OpenMP) */
int pb_score_facets(builder *bd, hx_lid lo, hx_lid hi, const hx_pebble_stats *st);

/* ---- sweep.c ------------------------------------------------------------------------------- */
void pb_corner_quality(const double *X, const int32_t *cn, double *sj, double *lo, double *hi);
double pb_min_corner_det(const double *X, const int32_t *cn);
double pb_min_corner_sj(const double *X, const int32_t *cn);
void pb_grading(int n, double ratio, double first, double *s);
void pb_column_grading(const pb_plan *pl, double h, double ra, double *out);
void pb_bridge_frame(const double u[3], double e1[3], double e2[3]);
void pb_edge_point(const builder *bd, int32_t A, int32_t B, double t, uint8_t emask, int br, int wallk, double x[3]);
void pb_foot_point(const builder *bd, const double *ca, double ra, int32_t a, int br, const double x[3], double y[3]);
int pb_split_quads(builder *bd, int K);
void pb_node_foot(const builder *bd, const double *ca, double ra, int32_t a, int32_t x, double y[3]);
int32_t pb_quad_facet(const builder *bd, int32_t q);
int pb_spacing_on(int flag, int order);
int pb_map_order(const hx_pebble_opts *o, int order);
void pb_sweep_elem(const sweep_ctx *sc, hx_lid e, int nd, const double *g, double *xe);
void pb_trans_node(const builder *bd, const double *ca, double ra, int32_t a, int32_t x, double p[3], int lv);
void pb_trans_pulled(const builder *bd, const double *ca, double ra, int32_t a, int32_t x, int32_t z, int wallk, int lv,
                     double p[3]);
int pb_trans_mark(builder *bd);

/* ---- ordern.c ------------------------------------------------------------------------------ */
int32_t pb_seg_on(const builder *bd, hx_lid q, int e);
int pb_ring_edges(builder *bd);
void pb_ring_edge_map(const builder *bd, const facet *F, int32_t A, int32_t B, uint8_t emask, int wallk, int nd, const double *g,
                      double *t, int kind, int32_t gs);
void pb_ring_edge_cum(const builder *bd, const facet *F, int32_t A, int32_t B, uint8_t emask, int wallk, int kind, int32_t gs,
                      double *cum);
double pb_ring_cum_at(const double *cum, double f);
int pb_ring_points_guard(const sweep_ctx *sc0, int order, hx_comm comm, hx_lid *nback, hx_lid *nsegeven);
int pb_sweep_curve(const sweep_ctx *sc, const hx_mesh *m1, int order, hx_mesh **out);
int pb_plazy_attach(hx_mesh *m, const sweep_ctx *sc, pnum *P, int order);

/* ---- numbering.c --------------------------------------------------------------------------- */
void pb_pnum_free(pnum *P);
int pb_pnum_build(pnum *P, const builder *bd);
int64_t pb_pnum_id_bound(const pnum *P, int N, hx_gid num_elem_global);
void pb_pnum_ids_range(const pnum *P, const builder *bd, const elinfo *ei, const hx_mesh *m, int N, const pnum_block *blk);
int pb_pnum_ids(const pnum *P, const builder *bd, const elinfo *ei, hx_mesh *m);

/* ---- smooth.c ------------------------------------------------------------------------------ */
int pb_smooth_facets(builder *bd, int sweeps, hx_pebble_stats *st);
int pb_repair_guard(builder *bd);
int pb_fsave_store(fsave *sv, const builder *bd);
int pb_fsave_lookup(const fsave *sv, builder *bd);

/* ---- contact.c ---------------------------------------------------------------------------- */
/** fn(ctx, i, j, dist) for every pair i < j of spheres less than reach apart (surface to surface;
    reach 0: the overlapping pairs), found through a sorted uniform grid; stops at the first
    non-zero return and returns it. */
int pb_bed_pairs(const hx_pebble_bed *b, double reach, int (*fn)(void *ctx, hx_lid i, hx_lid j, double dist), void *ctx);
/** The solid bridge BR adds (W: the wall of a sphere-wall bridge, else NULL). */
double pb_bridge_solid(const builder *bd, const bridge *BR, const wall *W);

/* ---- report.c ------------------------------------------------------------------------------ */
int pb_classify_report(const builder *bd, const elinfo *ei, const hx_mesh *m);
void pb_stage_mem(int on, const char *stage);

/* ---- pebble.c ------------------------------------------------------------------------------ */
void pb_builder_free(builder *bd);
void pb_plan_build(pb_plan *pl, const hx_pebble_opts *o, const hx_pebble_bed *bed);
const char *pb_sphere_name(const builder *bd, int32_t site, char *buf, size_t len);
