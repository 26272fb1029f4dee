/* Planar slices through curved hexahedra: where the plane x_axis = value cuts the elements,
   as closed curves in the plane (for pictures of a mesh; io/hx_plot.h draws them).

   Usage:
     hx_slice s;
     HX_CALL(hx_slice_mesh(m, 2, 0.3, sj, 0, &s));   the plane z = 0.3, one value per element
     ... on rank 0: element k has value s.value[k] and the loops
         s.elem_loop[k] .. s.elem_loop[k + 1] - 1; loop l has the points
         s.loop_pt[l] .. s.loop_pt[l + 1] - 1 of s.pt ([2] each: the plane's (u, v)) ...
     hx_slice_free(&s);

   The plane's coordinates (u, v) are the two other axes in increasing order: (y, z) for a
   slice x = c, (x, z) for y = c, (x, y) for z = c. */
#pragma once
#include "hx_mesh.h"

typedef struct hx_slice {
  int axis;           /* 0, 1, 2: the plane x, y or z = at */
  double at;          /* the plane's position */
  double lo[3];       /* the mesh's bounding box (corner and GLL nodes, all ranks) */
  double hi[3];       /* "" */
  int64_t num_cut;    /* elements the plane cuts (on rank 0: all ranks' together) */
  int64_t num_loop;   /* closed curves */
  int64_t num_pt;     /* their points */
  hx_gid *elem;       /* [num_cut] global element index */
  double *value;      /* [num_cut] the caller's value of each cut element (colour) */
  int64_t *elem_loop; /* [num_cut + 1] first loop of each element */
  int64_t *loop_pt;   /* [num_loop + 1] first point of each loop */
  double *pt;         /* [num_pt][2] (u, v) in the plane */
} hx_slice;

/** The mesh's bounding box over every rank from its nodes (order-N nodes, or the corners of a
    mesh with lazy geometry). Collective on m->comm. */
int hx_mesh_bbox_global(const hx_mesh *m, double lo[3], double hi[3]);

/** Cut every element of m by the plane x_axis = at and gather the curves on rank 0.
    design:
    1. skip the elements whose nodes lie all on one side of the plane by more than a tenth
       of the element's extent (curved faces bulge past their nodes only that little);
    2. sample each of the 6 faces of the others on an (S + 1)^2 grid (S = samples, 0: 4 N
       clamped to 8..48) through the order-N GLL interpolant of the face's nodes;
    3. marching squares on each face grid: a segment in each grid cell where the plane
       crosses, with its ends on the cell edges at the linear root between two samples;
       each end is named by its edge of the element's (S + 1)^3 sample lattice, so that the
       faces that meet on an element edge share their ends exactly;
    4. every end then belongs to two segments, so following the segments gives closed loops
       (one per cut, more where a curved element is cut several times).
    value ([num_elem] local, may be NULL: 0) is carried along to colour each element. Other
    ranks send their curves to rank 0 and get an empty slice (lo, hi, axis, at set).
    Collective on m->comm. */
int hx_slice_mesh(const hx_mesh *m, int axis, double at, const double *value, int samples, hx_slice *s);

/** Free the arrays of s (accepts a zeroed slice). */
void hx_slice_free(hx_slice *s);

/** Parse "x=0.3", "y=-1" or "z=2.5e-3" (the --slice flag) into axis and position; "z" alone
    or "z=mid" means the middle of the bounding box (*mid = 1). Returns HX_ERR_INPUT naming
    the flag and the value on a bad spec. */
int hx_slice_parse(const char *flag, const char *spec, int *axis, double *at, int *mid);
