/* Curving: raise an order-1 (or any order-M) mesh to order N with boundary nodes
   exactly on their analytic surfaces (docs/architecture.md, "Curving").

   Design:
   1. place GLL nodes of order N in every element by interpolating its current
      geometry (order M -> N);
   2. edges: an edge that lies on a boundary face on surface s (in ANY element that
      has it, found through an edge map keyed by its two sorted vertex ids) gets its
      nodes projected onto s (onto both surfaces when two boundary faces on different
      surfaces share it); the edge's nodes are a function of the edge alone, so both
      neighbours agree;
   3. faces: boundary-face nodes projected onto their surface;
   4. interior of faces and the volume filled by transfinite (Gordon-Hall) blending
      of the curved edges and faces.
   Node ids at order N come from the corner ids (vert_id): corners keep them,
   edge/face nodes are keyed by their sorted vertex ids (numbered in a canonical
   frame so that both neighbours give a node the same id), interiors by element.
   The ids are unique and dense when the vert_ids are (see hx_curve_id_bound).

   Usage, whole mesh:   hx_mesh *hi; HX_CALL(hx_mesh_raise_order(lo, 7, &hi));
   Usage, streaming:    hx_curve_ctx *cc; HX_CALL(hx_curve_create(lo, 7, &cc));
                        for blocks: HX_CALL(hx_curve_block(cc, e0, count, xblock, idblock));
                        hx_curve_destroy(&cc);
   xblock has the E-vector layout [count][3][nd][nd][nd]; idblock [count][nd^3] (may be NULL). */
#pragma once
#include "hx_mesh.h"

typedef struct hx_curve_ctx hx_curve_ctx;

/** Prepare curving of m (borrowed: must outlive the context) to order N. Builds
    the edge/face maps once. Works for any m->order (N may equal it: then a copy,
    with surfaces re-projected). */
int hx_curve_create(const hx_mesh *m, int order, hx_curve_ctx **out);
/** Curve elements [e0, e0+count) into xblock (and their order-N node ids into
    idblock if not NULL). Thread-safe for disjoint blocks. */
int hx_curve_block(const hx_curve_ctx *cc, hx_lid e0, hx_lid count, double *xblock, hx_gid *idblock);
/** Total distinct nodes at order N (for writers that need a node count up front). */
hx_gid hx_curve_num_nodes(const hx_curve_ctx *cc);
/** Every order-N node id lies in [0, hx_curve_id_bound). Corners keep vert_id, edge,
    face and interior nodes follow, so when the vert_ids are 0..V-1 without holes the
    bound equals hx_curve_num_nodes and an id can index a node array directly. */
hx_gid hx_curve_id_bound(const hx_curve_ctx *cc);
/** The target order N. */
int hx_curve_order(const hx_curve_ctx *cc);
/** det J > 0 at every GLL node of a curved block (as written by hx_curve_block)?
    Returns HX_OK, or HX_ERR_INVALID_MESH with a message naming the first failing
    element, its worst node and why (already inverted at the input order, or curving
    moved its boundary by a large part of its size). *num_bad (may be NULL) gets the
    count of failing elements in the block. */
int hx_curve_check_block(const hx_curve_ctx *cc, hx_lid e0, hx_lid count, const double *xblock, hx_gid *num_bad);
void hx_curve_destroy(hx_curve_ctx **cc);
/** Whole mesh at order N (new mesh; faces, names and surfaces copied). Fails with
    HX_ERR_INVALID_MESH (hx_curve_check_block's message) if an element has det J <= 0.
    One rank only for now: on several ranks hx_curve_create refuses. */
int hx_mesh_raise_order(const hx_mesh *m, int order, hx_mesh **out);

/** Uniform refinement (core/refine.c): every element split into 8 children, their GLL nodes the
    parent's polynomial map at the children's nodes (exact: the geometry does not change), node
    ids from the parent entities they lie on (so neighbours agree), boundary faces (4 per parent
    face, same id; same surface for planes, none for a sphere or cylinder), attributes, surfaces and names kept. Children of
   element e are 8e + (a + 2b + 4c), child (a,b,c) covering the parent's half [a/2, (a+1)/2] along xi1, ... The mesh's own node
   ids are used: serial or replicated meshes. Collective (hx_mesh_create). */
int hx_mesh_refine(const hx_mesh *m, hx_mesh **out);
/** Gordon-Hall blends of one component of a displacement field D [nd^3] at the GLL points xg
    (curving's steps d and e; hx_tmop_transfer): face f's inner nodes (those without own[a];
    own may be NULL) become the 2D transfinite blend of the face's edge nodes, and the element's
    inner nodes the 3D blend of its faces. Each uses only the boundary of its entity, so the
    elements that share it agree. */
void hx_gh_blend_face(int nd, const double *xg, int f, const unsigned char *own, double *D);
void hx_gh_blend_volume(int nd, const double *xg, double *D);
