/* Inside io only: node orderings of the foreign formats, GLL <-> equispaced
   interpolation, a node-id hash map, the block-of-elements source that every
   streaming writer reads from, byte order and base64 helpers, and a bounded
   reader for input files (every read names the byte offset it failed at). */
#pragma once
#include <stdint.h>
#include <stdio.h>

#include "hx_io.h"
#include "hx_mesh.h"

/* ---- orderings (Gmsh, VTK, Nek5000) ------------------------ */

/** VTK Lagrange hexahedron (type 72) of order N: pos2lex[p] = lexicographic index
    i + nd*(j + nd*k) of VTK point p (nd^3 entries). */
void hx_vtk_hex_order(int N, int *pos2lex);
/** VTK 9 index of tensor node (i,j,k) (vtkHigherOrderHexahedron::PointIndexFromIJK). */
int hx_vtk_hex_index(int N, int i, int j, int k);
/** Gmsh hexahedron of order N (types 5, 12, 92..98): pos2lex as above. */
void hx_gmsh_hex_order(int N, int *pos2lex);
/** Gmsh quadrangle list Q(n): pos -> (u,v) as uv[2*pos], uv[2*pos+1]. */
void hx_gmsh_quad_uv(int n, int *uv);

/** hexpack corner c (i + 2j + 4k) <-> standard corner (VTK/Gmsh/MFEM/Exodus/Nek pre). */
static inline int hx_corner_to_std(int c) {
  static const int t[8] = {0, 1, 3, 2, 4, 5, 7, 6};
  return t[c];
}

/** MFEM's H1_3D_P<order> global dof numbering (mfem_h1.c; docs/formats.md "MFEM") for ne hexes
    with vertex indices ev [ne][8] (standard corner order, 0 <= index < nv, as in the file):
    dof [ne][nd^3] = the global dof of each lexicographic GLL node, *ndof = the space's size.
    HX_ERR_INPUT (naming path) for an index out of range or repeated in an element. */
int hx_mfem_h1_dofs(const char *path, int64_t ne, const int64_t *ev, int64_t nv, int order, int64_t *dof, int64_t *ndof);

/** The 20-node serendipity hexahedron's map at its 6 face centres and its body centre, written
    into g27 (one component on the equispaced 3x3x3 lexicographic grid, the 20 nodes given). */
void hx_io_serendipity_centres(double *g27);

/* ---- interpolation --------------------------------------------------------- */

/** 1D matrix [nd][nd] from GLL nodes to equispaced points (to_equi = 1) or back. */
int hx_io_interp_matrix(int nd, int to_equi, double *B);
/** out = (B x B x B) in for one component of nd^3 values (lexicographic). */
void hx_io_tensor3(int nd, const double *B, const double *in, double *out);
/** Evaluate the GLL interpolant of one element component at reference point t[3]. */
double hx_io_eval_gll(int nd, const double *gll, const double *xc, const double t[3]);

/* ---- node id -> index hash map -------------------------------------------- */

typedef struct hx_idmap {
  int64_t *keys; /* [cap], -1 = empty; NULL in dense mode */
  int64_t *vals; /* [cap]; dense mode: vals[key - lo], -1 = empty */
  size_t cap, count;
  int64_t lo; /* dense mode: smallest key */
} hx_idmap;
int hx_idmap_init(hx_idmap *h, size_t expected);
/** A map for the keys of ids[0..n) (all >= 0): a dense array when their range is
    small (box meshes, meshes read from files), else a hash map. */
int hx_idmap_init_for(hx_idmap *h, const int64_t *ids, size_t n, size_t expected);
/** Dense map for keys in [lo, hi] when that range is at most about 2x expected, else a hash map. */
int hx_idmap_init_range(hx_idmap *h, int64_t lo, int64_t hi, size_t expected);
void hx_idmap_free(hx_idmap *h);
/** Insert key with value *val if absent (returns 1, *val unchanged) or return the
    stored value in *val (returns 0). Negative = error (memory). */
int hx_idmap_insert(hx_idmap *h, int64_t key, int64_t *val);
/** Look up key: 1 and *val if present, 0 if not. */
int hx_idmap_find(const hx_idmap *h, int64_t key, int64_t *val);

/* ---- blocks of elements at the output order -------------------------------- */

/** Streams a mesh at the writer's order, a block of elements at a time, without
    holding a second copy of the mesh. view is a shallow hx_mesh of the current
    block (x, node_id, order, nd, num_elem = count) usable with the core helpers
    (hx_mesh_elem_x, hx_mesh_jacobian_at_node). */
typedef struct hx_elemsrc {
  const hx_mesh *m;
  int order, nd;
  hx_lid block;
  void *cc;               /* hx_curve_ctx when order != m->order (and no lazy geometry of that order) */
  const hx_mesh_lazy *lz; /* m->lazy when it gives this order: its blocks, not hx_curve's */
  int force;              /* skip the det J check of curved blocks */
  hx_lid checked;         /* curved blocks below this element were checked */
  double *xb;             /* block buffers (curving only) */
  hx_gid *idb;
  hx_mesh view;
  double D[HX_MAX_ND * HX_MAX_ND];
  double *qmin, *qsj; /* lazy: min det J and min/max of the block last checked ... */
  hx_lid q_e0, q_cnt; /* ... [q_e0, q_e0 + q_cnt) (hx_io_elem_detj; q_cnt 0: none) */
} hx_elemsrc;
/** Open a source at order: m's own nodes at m->order, else the lazy geometry when
    m->lazy gives that order, else curving block by block (hx_curve); lazy and
    curved blocks are checked for det J > 0 unless force. */
int hx_elemsrc_open(const hx_mesh *m, int order, int force, hx_elemsrc *s);
/** Upper bound of the node ids the source produces (for dense id maps). */
hx_gid hx_elemsrc_id_bound(const hx_elemsrc *s);
int hx_elemsrc_get(hx_elemsrc *s, hx_lid e0, hx_lid count, const hx_mesh **view);
/** The node ids of a block only: view->x may be NULL (a lazy geometry is then not
    evaluated, nor checked: the passes that need coordinates check them). */
int hx_elemsrc_get_ids(hx_elemsrc *s, hx_lid e0, hx_lid count, const hx_mesh **view);
/** Min det J and min/max of elements [e0, e0 + count) without evaluating them, where
    the lazy geometry's check kept them (hx_mesh_lazy.detj): *done = 1, minj / sj
    (either may be NULL) filled, and the block refused (HX_ERR_INVALID_MESH) if one
    is <= 0, unless force. Else *done = 0 and nothing is done. */
int hx_elemsrc_detj(hx_elemsrc *s, hx_lid e0, hx_lid count, double *minj, double *sj, int *done);
void hx_elemsrc_close(hx_elemsrc *s);
/** The order a writer must produce: o->order, or m->order when 0. */
static inline int hx_io_out_order(const hx_mesh *m, const hx_export_opts *o) { return (o && o->order > 0) ? o->order : m->order; }
/** Whether a writer skips its own det J pass over the nodes: --force (write even with det J <= 0)
    or the caller checked det J > 0 itself (checked; the .re2 writer still applies Nek5000's rule). */
static inline int hx_io_skip_detj(const hx_export_opts *o) { return o->force || o->checked; }

/** min det J over the GLL nodes and min/max ratio (Nek5000 scaled Jacobian) of
    element e of a (block) mesh. D from hx_mesh_gll_derivative. */
void hx_io_elem_detj(const hx_mesh *m, const double *D, hx_lid e, double *minj, double *ratio);

/** pwrite all bytes at offset (retrying short writes and EINTR); HX_ERR_IO names path. */
int hx_io_pwrite(int fd, const void *data, size_t bytes, int64_t offset, const char *path);

/* ---- bytes ------------------------------------------------------------------- */
static inline int hx_io_little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}
void hx_io_swap(void *data, size_t count, size_t size);
/** Base64: decode n chars from src (whitespace skipped) into dst (capacity *len
    on input, bytes written on output); returns chars consumed or -1 on a bad char. */
long hx_base64_decode(const char *src, size_t n, unsigned char *dst, size_t *len);

/* ---- input files ------------------------------------------------------------- */
/** A whole input file in memory (NUL-terminated). */
typedef struct hx_infile {
  const char *path;
  char *data;
  size_t size;
} hx_infile;
/** Refuse what is not a regular file (one line: "<path>: is a directory, expected a mesh file"). */
int hx_io_check_input(const char *path);
int hx_infile_read(hx_infile *f, const char *path);
void hx_infile_free(hx_infile *f);

/** Merge points closer than tol (spatial hash): rep[p] = representative index
    (the smallest index of its cluster). */
int hx_io_merge_points(int64_t np, const double *xyz, double tol, int64_t *rep);
/** Fill boundary faces of m that have no neighbour (faces whose corner-id set is
    used once) with boundary id bid; used by readers of formats without boundary
    information. */
int hx_io_exterior_faces(hx_mesh *m, int bid, const char *name);
/** Make coordinates of nodes with equal ids bit-identical (first copy wins). */
int hx_io_unify_shared(hx_mesh *m);
/** Set vert_id from node_id at the corners. */
void hx_io_set_vert_ids(hx_mesh *m);
/** hx_export_check_space; verbose = 0: no -v estimate lines (hx_export's own check). */
int hx_io_check_space(const hx_mesh *m, const char *const *paths, int n, const hx_export_opts *o, int verbose);

/* ---- legacy VTK (vtk_legacy.c): the cursor of vtk_read.c and particles.c ------------- */
typedef struct hx_vtk_cursor {
  const char *path, *base, *p, *end;
  int line; /* > 0: the line of p, counted by hx_vtk_word; 0: positions are given as bytes */
  int binary;
} hx_vtk_cursor;
/** "path:line", or "path: byte N" where c->line is 0, into buf (returned). */
const char *hx_vtk_at(const hx_vtk_cursor *c, char *buf, size_t cap);
/** The next whitespace-separated word into out (cut to cap - 1); 0 at the end of the file. */
int hx_vtk_word(hx_vtk_cursor *c, char *out, size_t cap);
/** The bytes of VTK data type t (0: not read, e.g. bit), whether it is a float and signed. */
int hx_vtk_type(const char *t, int *is_float, int *is_signed);
/** Past a METADATA block (the cursor just after the keyword): the rest of its line, then lines
    up to the first blank one. */
void hx_vtk_skip_metadata(hx_vtk_cursor *c);
/** One big-endian value of sz bytes at q, a float (fl) or an integer (sg: signed), as a double;
 *i: the integer (0 for a float). */
double hx_vtk_be_value(const unsigned char *q, int sz, int fl, int sg, int64_t *i);

/* ---- particles (hx_particles.h) ---------------------------------------------------- */
/** The points of a particle file and one point-data array of it. */
typedef struct hx_io_points {
  int64_t n;
  double *xyz;               /* [n][3], owned by the caller */
  double *val;               /* [n] the array picked, owned by the caller (NULL: none of the names) */
  int which;                 /* its index in names (-1: none) */
  char found[256];           /* the point-data arrays of the file, comma-separated (for messages) */
  int line_points, line_val; /* the lines of the Points and the picked array's DataArray tags */
} hx_io_points;
/** VTK XML UnstructuredGrid or PolyData (vtu_read.c): the points of every <Piece>, in order, and
    the point-data array whose name is the earliest of names (NULL-terminated; case ignored). */
int hx_io_vtu_points(hx_infile *in, const char *const *names, hx_io_points *out);
