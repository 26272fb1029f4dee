/* hx_mesh: the one data structure every stage passes along (docs/architecture.md, "Core").

   Usage:
     hx_mesh *m;
     HX_CALL(hx_mesh_create(comm, order, num_elem, &m));   allocates x, node_id, vert_id
     ... fill m->x, m->node_id, m->vert_id, add faces/surfaces/names ...
     HX_CALL(hx_mesh_check(m, &report));                   invariants
     hx_mesh_destroy(&m);

   Conventions: reference cube [0,1]^3; corner c = i + 2j + 4k;
   faces 0: xi1=0, 1: xi1=1, 2: xi2=0, 3: xi2=1, 4: xi3=0, 5: xi3=1; GLL nodes,
   lexicographic with i fastest. A mesh of order 1 is the "linear" mesh a mesher
   produces; curving (hx_curve.h) raises it to order N, either whole or a block of
   elements at a time for streaming exporters. */
#pragma once
#include <stdint.h>

#include "hx_comm.h"
#include "hx_types.h"

typedef enum {
  HX_SURF_NONE = 0,
  HX_SURF_PLANE = 1,   /* points x with n.(x - p) = 0 */
  HX_SURF_SPHERE = 2,  /* |x - p| = r */
  HX_SURF_CYLINDER = 3 /* distance from the line p + t n equals r */
} hx_surface_type;

/** An analytic surface that boundary faces lie on (curving and TMOP sliding use it). */
typedef struct hx_surface {
  int type;    /* hx_surface_type */
  double p[3]; /* plane: a point on it; sphere: centre; cylinder: a point on the axis */
  double n[3]; /* plane: unit normal; cylinder: unit axis direction; sphere: unused */
  double r;    /* sphere / cylinder radius */
} hx_surface;

/** A boundary face: element, local face 0..5, boundary id (>= 1), surface index or -1. */
typedef struct hx_bface {
  hx_lid elem;
  int32_t face;
  int32_t bid;
  int32_t surf;
} hx_bface;

struct hx_mesh;

/** Order-N geometry evaluated on demand (a mesh may stay at
    order 1 while the curving stage is applied lazily). A mesher whose own map is
    better than hx_curve's blending (the pebble sweep) attaches one to its order-1
    mesh; the writers' element source, the quality report and hx_mesh_check_lazy
    then ask it for blocks of elements, so the order-N mesh is never held whole.
    Owned by the mesh (hx_mesh_destroy calls destroy); hx_mesh_copy does not copy it. */
typedef struct hx_mesh_lazy {
  int order;       /* order N of the geometry it gives */
  hx_gid id_bound; /* its node ids lie in [0, id_bound), the same bound on every rank */
  void *ctx;
  /** Local elements [e0, e0 + count) at order N: coordinates into x ([count][3][nd^3],
      E-vector layout) and node ids into ids ([count][nd^3]); either may be NULL.
      One call at a time per mesh (the context keeps scratch space). */
  int (*block)(void *ctx, const struct hx_mesh *m, hx_lid e0, hx_lid count, double *x, hx_gid *ids);
  void (*destroy)(void *ctx);
  /* [2][num_elem] or NULL: min det J over the GLL nodes of each local element, then
     min/max (Nek5000 scaled Jacobian), kept by hx_mesh_check_lazy so that the writers
     neither evaluate nor check them again */
  double *detj;
} hx_mesh_lazy;

typedef struct hx_mesh {
  int order;          /* geometry order N >= 1 */
  int nd;             /* N + 1 GLL nodes per direction */
  hx_lid num_elem;    /* local elements */
  double *x;          /* [num_elem][3][nd][nd][nd], E-vector of GLL node coordinates */
  hx_gid *node_id;    /* [num_elem][nd^3] global node ids (equal id = same node) */
  hx_gid *vert_id;    /* [num_elem][8] global corner ids, corner c = i + 2j + 4k */
  int32_t *elem_attr; /* [num_elem] region/block id >= 1 */

  hx_lid num_faces; /* boundary faces on this rank */
  hx_lid cap_faces;
  hx_bface *faces;

  int num_bnames; /* boundary ids run 1..num_bnames-1; bnames[0] is unused (NULL) */
  char **bnames;  /* bid -> name ("pebble", "wall", ...) */

  int num_surfaces;
  hx_surface *surfaces;

  hx_mesh_lazy *lazy; /* order-N geometry on demand, or NULL (see hx_mesh_lazy) */

  hx_comm comm;           /* communicator the mesh is distributed over (borrowed) */
  hx_gid elem_offset;     /* global index of the first local element */
  hx_gid num_elem_global; /* elements over all ranks */
} hx_mesh;

/** Create a mesh of num_elem elements of the given order on comm (collective:
    computes elem_offset and num_elem_global). x, node_id, vert_id, elem_attr are
    allocated (zeroed; elem_attr set to 1). */
int hx_mesh_create(hx_comm comm, int order, hx_lid num_elem, hx_mesh **out);
/** Free everything; accepts NULL and sets *mesh to NULL. */
void hx_mesh_destroy(hx_mesh **mesh);
/** Deep copy. */
int hx_mesh_copy(const hx_mesh *src, hx_mesh **out);

/** Append a boundary face. */
int hx_mesh_add_face(hx_mesh *m, hx_lid elem, int face, int bid, int surf);
/** Set the name of boundary id bid (>= 1); grows the table. The name is copied. */
int hx_mesh_set_bname(hx_mesh *m, int bid, const char *name);
/** Find a boundary id by name; returns -1 if absent. */
int hx_mesh_find_bname(const hx_mesh *m, const char *name);
/** Append a surface, returning its index in *index (may be NULL). */
int hx_mesh_add_surface(hx_mesh *m, const hx_surface *s, int *index);

/** Number of nodes per element, nd^3. */
static inline hx_lid hx_mesh_nodes_per_elem(const hx_mesh *m) { return m->nd * m->nd * m->nd; }
/** Pointer to coordinate component c (0..2) of element e: nd^3 doubles. */
static inline double *hx_mesh_elem_x(const hx_mesh *m, hx_lid e, int c) {
  return m->x + ((size_t)e * 3 + (size_t)c) * (size_t)hx_mesh_nodes_per_elem(m);
}

/** Local node index (i,j,k) -> lexicographic position. */
static inline int hx_lex(int nd, int i, int j, int k) { return i + nd * (j + nd * k); }
/** Lexicographic position of corner c (c = i + 2j + 4k) in an nd^3 element. */
static inline int hx_corner_lex(int nd, int c) {
  int N = nd - 1;
  return hx_lex(nd, (c & 1) ? N : 0, (c & 2) ? N : 0, (c & 4) ? N : 0);
}
/** Corners of local face f in an outward-consistent order is not needed by the
    core; hx_face_corners gives the 4 corners of face f (a, b, c, d) with (a->b)
    along the first free direction and (a->c) along the second (lexicographic). */
void hx_face_corners(int face, int corners[4]);
/** Whether lexicographic node (i,j,k) of an nd-node element lies on face f. */
int hx_node_on_face(int nd, int face, int i, int j, int k);

/** Distance-like residual of point x from surface s (0 on it; sign not meaningful). */
double hx_surface_distance(const hx_surface *s, const double x[3]);
/** Closest point on s to x, written to y (x and y may alias). */
void hx_surface_project(const hx_surface *s, const double x[3], double y[3]);
/** Outward-agnostic unit normal of s at (or near) x. */
void hx_surface_normal(const hx_surface *s, const double x[3], double nrm[3]);
/** Length scale of s (radius; 1 for planes) for relative tolerances. */
double hx_surface_scale(const hx_surface *s);

/** E -> L: gather (sum over copies) of an E-vector with ncomp components per node
    into an L-vector indexed by the compressed local numbering of node_id. The
    L-numbering is built by hx_mesh_lnumbering. */
typedef struct hx_lmap {
  hx_lid num_lnodes; /* unique nodes on this rank */
  hx_lid *e2l;       /* [num_elem * nd^3] E-node -> L-node */
  hx_gid *l2g;       /* [num_lnodes] L-node -> global id */
  int *mult;         /* [num_lnodes] number of E copies of each L-node */
} hx_lmap;
/** Build the local L-numbering from node_id (L-nodes sorted by global id). */
int hx_mesh_lnumbering(const hx_mesh *m, hx_lmap **out);
void hx_lmap_destroy(hx_lmap **map);
/** L[e2l[i]] += E[i] per component; L has layout [num_lnodes][ncomp]; E has the
    E-vector layout [num_elem][ncomp][nd^3]. L is zeroed first. */
void hx_lmap_gather(const hx_lmap *map, const hx_mesh *m, int ncomp, const double *E, double *L);
/** The same sums for some L-nodes alone: L-node l (rank[l] >= 0) into L[rank[l]], nr of them
    (rank[l] < nr), in the same order as hx_lmap_gather (the same doubles). L is zeroed first. */
void hx_lmap_gather_ranked(const hx_lmap *map, const hx_mesh *m, int ncomp, const double *E, const hx_lid *rank, hx_lid nr,
                           double *L);
/** E[i] = L[e2l[i]] per component (scatter = copy). */
void hx_lmap_scatter(const hx_lmap *map, const hx_mesh *m, int ncomp, const double *L, double *E);

/** Result of hx_mesh_check: counts of invariant violations and worst values. */
typedef struct hx_mesh_check_report {
  hx_gid id_mismatch;    /* E-nodes whose coordinates differ from another copy of the same id */
  double id_max_dist;    /* largest such distance */
  hx_gid off_surface;    /* boundary-face nodes farther than tol from their surface */
  double surf_max_rel;   /* largest relative distance of a face node from its surface */
  hx_gid bad_elems;      /* elements with det J <= 0 at some GLL node */
  double min_detj;       /* smallest det J over all GLL nodes */
  hx_lid first_bad_elem; /* a failing element, or -1 */
  hx_gid bad_faces;      /* faces with an invalid element/face/bid/surface index */
  double volume;         /* the mesh's volume: the sum over elements of det J by GLL quadrature at the nodes
                            (the points the det J check evaluates; over all ranks) */
} hx_mesh_check_report;

/** Verify the invariants: equal ids => equal coordinates (to tol_rel * the mesh
    size), boundary-face nodes on their surfaces (to surf_tol relative), det J > 0
    at every GLL node, face records valid. Returns HX_OK if all hold, else
    HX_ERR_INVALID_MESH with a message naming the first failure; the report is
    filled either way (may be NULL). Collective on m->comm. */
int hx_mesh_check(const hx_mesh *m, double surf_tol, hx_mesh_check_report *report);

/** hx_mesh_check's det J and surface checks on the lazy order-N geometry of m
    (m->lazy), a block of elements at a time (the id check is left out: the lazy
    source numbers nodes from shared entities). Keeps the per-element det J range
    in m->lazy->detj. Collective on m->comm. */
int hx_mesh_check_lazy(hx_mesh *m, double surf_tol, hx_mesh_check_report *report);

/** Jacobian matrix J[3][3] (J[i][j] = dx_i/dxi_j) and det at lexicographic node
    (i,j,k) of element e, using the derivative matrix D ([nd][nd], D[q][a] = l_a'(x_q)
    at GLL points). */
double hx_mesh_jacobian_at_node(const hx_mesh *m, const double *D, hx_lid e, int i, int j, int k, double J[3][3]);
/** Smallest and largest det J over the GLL nodes of one element, xe [3][nd^3]
    (E-vector layout), D from hx_mesh_gll_derivative. */
void hx_elem_detj_range(int nd, const double *D, const double *xe, double *mn, double *mx);
/** The same, and the element's volume by GLL quadrature of det J at the nodes (w: the GLL
    weights on [0,1], hx_gll; vol may be NULL). */
void hx_elem_detj_volume(int nd, const double *D, const double *w, const double *xe, double *mn, double *mx, double *vol);
/** Nek5000's scaled Jacobian of an element from its det J range: min/max, or -1 when
    max <= 0 and min < 0 (0 when both are 0). */
static inline double hx_detj_ratio(double mn, double mx) { return mx > 0 ? mn / mx : (mn < 0 ? -1.0 : 0.0); }
/** D matrix of the mesh's GLL basis at its own GLL nodes ([nd][nd]). */
int hx_mesh_gll_derivative(int nd, double *D);

/** Bounding box of the local mesh: lo[3], hi[3]. */
void hx_mesh_bbox(const hx_mesh *m, double lo[3], double hi[3]);
