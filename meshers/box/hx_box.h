/* The box mesher: n_x x n_y x n_z hexes of [lo, hi], any order, optionally
   Kershaw-deformed (docs/optimizer.md, "The Kershaw benchmark"), for benchmarks.

   Boundary ids per side follow MFEM's cube.mesh convention so that TMOP's plane
   sliding works as in mesh-optimizer: x-faces 1, y-faces 2, z-faces 3 by default
   (names xmin/xmax, ymin/ymax, zmin/zmax share the id of their axis), or one id per
   side with separate_ids. Each side also carries its plane as an analytic surface. */
#pragma once
#include "hx_mesh.h"

typedef struct hx_box_opts {
  int n[3];  /* elements per direction */
  int order; /* geometry order N >= 1 */
  double lo[3], hi[3];
  int kershaw;         /* apply the Kershaw map */
  double eps_y, eps_z; /* Kershaw parameters in (0, 1] */
  int smooth;          /* transition smoothness s = 1, 2, 3 */
  int separate_ids;    /* 1: ids 1..6 for xmin,xmax,ymin,ymax,zmin,zmax */
} hx_box_opts;

void hx_box_opts_default(hx_box_opts *o);
/** Build the box mesh (collective on comm: elements are split into contiguous
    ranges of the lexicographic element index, node ids are global lattice ids). */
int hx_mesher_box(hx_comm comm, const hx_box_opts *o, hx_mesh **out);
/** The Kershaw map of the unit cube, (x,y,z) -> X (Kershaw, CEED-MS39). */
void hx_kershaw_map(double eps_y, double eps_z, int smooth, const double x[3], double X[3]);
