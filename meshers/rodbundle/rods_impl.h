/* Inside the rod-bundle mesher only: the lattice, the planar graph of power cells
   and the 2D quad mesh that is extruded (see hx_rods.h for the design). */
#pragma once
#include "hx_rods.h"

typedef struct rods_site {
  double c[2]; /* centre */
  int type;    /* rod type 0..num_types-1, or -1 for an empty site */
  int a, b;    /* square: row (0 = top), column; hex: ring, index in the ring */
  int rod;     /* rod index (surface order), -1 if empty */
} rods_site;

/* One 2D quad of the layer: corners in hx_mesh order (c = i + 2j), xi1 radial
   outward / patch i, xi2 counter-clockwise / patch j. */
typedef struct rods_quad {
  int v[4];     /* 2D node ids of corners 0..3 */
  int cell;     /* site whose cell holds it */
  int bsurf[4]; /* per local 2D side (faces 0..3): surface index (rod k: k, duct side s:
                   num_rods + s), or -1 if interior */
  int arc;      /* 1 if side 0 (corner 0 -> corner 2) is an arc of its rod's circle */
} rods_quad;

typedef struct rods_layer {
  /* input, resolved */
  int nsites, nrods;
  rods_site *sites;
  double rmax;
  int nduct;         /* duct sides (4 box, 6 hex) */
  double duct[6][2]; /* duct vertices, counter-clockwise; side s from s to s+1 */
  double duct_size[2];
  /* planar graph */
  int nverts, nedges;
  double *vx;          /* [nverts][2] */
  int *vduct;          /* [nverts] bit mask of the duct sides a vertex lies on */
  int *ev;             /* [nedges][2] vertex ids, ev[0] < ev[1] */
  int *ecell;          /* [nedges][2] cells on the two sides, or -1 - duct side */
  int *ek;             /* [nedges] segments */
  int *enode;          /* [nedges] first 2D node id of the interior nodes (ek - 1 of them, from ev[0]) */
  int *cstart, *cedge; /* cell c's edges cedge[cstart[c] .. cstart[c+1]): signed e + 1 (> 0 forward) */
  /* 2D mesh */
  int nnodes, nquads;
  double *x2; /* [nnodes][2] */
  rods_quad *quads;
  double min_half_gap;
  int min_gap_pair[2];
} rods_layer;

/* rods_input.c */
int rods_sites(const hx_rods_opts *o, rods_layer *L);
int rods_site_name(const hx_rods_opts *o, const rods_layer *L, int s, char *buf, int len);
/* rods_layer.c */
int rods_layer_build(const hx_rods_opts *o, rods_layer *L);
void rods_layer_free(rods_layer *L);
