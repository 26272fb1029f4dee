/* Shared helpers of the format tests (tests/hx_iotest.c). */
#pragma once
#include <stdio.h>

#include "hx_mesh.h"

/** Test meshes: "cubic" (one non-affine element with a cubic map), "sphere" (6-element
    shell between spheres of radius 1 and 2, faces on sphere surfaces), "kershaw"
    (6x2x2 Kershaw box), "box" (3x2x2, ids 1..6). */
int hx_iotest_make(const char *kind, int order, hx_mesh **m);
/** One element of the given order (serial), its GLL nodes at map(reference point in [0,1]^3),
    node ids lexicographic, no boundary faces. */
int hx_iotest_single(int order, void (*map)(const double t[3], double X[3], void *ctx), void *ctx, hx_mesh **m);
/** The GLL interpolant of one component of an element at reference point t. */
double hx_iotest_eval(int nd, const double *gll, const double *xc, const double t[3]);
/** Lines "e t1 t2 t3 x y z": our map at the equispaced grid, the centre, 8 pseudo-random points. */
void hx_iotest_samples(const hx_mesh *m, FILE *fp);
/** Compare two meshes: counts, order, coordinates within tol * bbox diagonal (0 = bitwise),
    the node-id partition, boundary faces and names. Prints one line; returns 0 if equal. */
int hx_iotest_cmp(const hx_mesh *a, const hx_mesh *b, double tol);
/** The mesh's volume: det J of each element's GLL interpolant integrated by a Gauss rule exact for
    it (degree <= 3N per direction); per_elem [num_elem] (may be NULL) gets each element's. */
double hx_iotest_volume(const hx_mesh *m, double *per_elem);
/** The area of the boundary faces with id bid (|dx/du x dx/dv| by a 16-point Gauss rule per
    direction) and their count. */
double hx_iotest_bid_area(const hx_mesh *m, int bid, int *count);
