/* 3D power diagram (weighted Voronoi) through Qhull's reentrant library.

   The power diagram of spheres (c_i, r_i) is dual to their regular triangulation:
   lift each centre to (c, |c|^2 - r^2) in 4D and take the lower convex hull. Each
   lower facet (a tetrahedron of four sites) is a power-diagram vertex, its power
   centre (the point with equal power distance |x - c|^2 - r^2 to its four sites);
   each triangulation edge (i, j) is the facet between cells i and j, whose polygon
   is the ring of tetrahedra around the edge (walk nbr[][] across the faces that
   contain the edge). Equal radii give the plain Voronoi diagram.

   Qhull runs with triangulated output ('Qt'): cospherical sites (lattices, mirrored
   ghost sites) give several tetrahedra with the same power centre, i.e. zero-length
   diagram edges, which the caller merges. Qhull's setjmp/longjmp error recovery
   stays inside this wrapper; a Qhull failure becomes HX_ERR_QHULL with Qhull's exit
   code, and Qhull's memory is always released.

   Usage:
     hx_power3d *pd;
     HX_CALL(hx_power3d_compute(xyz, r, n, &pd));   xyz [n][3], r [n] (NULL: all 0)
     for t < pd->num_tets: pd->tet[4t..4t+3] sites, pd->nbr[4t+k] tet opposite
       vertex k (-1: across the hull, i.e. the dual edge is unbounded), pd->centre[3t..]
     hx_power3d_destroy(&pd); */
#pragma once
#include <stdint.h>

#include "hx_types.h"

typedef struct hx_power3d {
  hx_lid num_sites;
  hx_lid num_tets; /* lower-hull tetrahedra (regular triangulation) */
  int32_t *tet;    /* [num_tets][4] site indices */
  int32_t *nbr;    /* [num_tets][4] tetrahedron opposite vertex k, or -1 */
  double *centre;  /* [num_tets][3] power centre (a vertex of the power diagram) */
} hx_power3d;

/** Regular triangulation / power diagram of n >= 5 weighted sites. Returns
    HX_ERR_QHULL (with Qhull's message code) if Qhull fails, HX_ERR_INPUT if the
    sites are degenerate (all coplanar), HX_ERR_MEMORY. Without Qhull at build
    time it returns HX_ERR_BACKEND with a clear message. */
int hx_power3d_compute(const double *xyz, const double *r, hx_lid n, hx_power3d **out);
void hx_power3d_destroy(hx_power3d **pd);
