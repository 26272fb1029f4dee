/* The rod-bundle mesher: curved all-hex meshes of the fluid around a square or
   hexagonal lattice of rods inside a duct (docs/rods.md).

   Usage:
     hx_rods_opts o;
     hx_rods_opts_default(&o);
     HX_CALL(hx_rods_preset(&o, "pwr17x17"));        or fill the fields by hand
     o.nz = 10; o.z[1] = 50.0;
     hx_mesh *m; hx_rods_info info;
     HX_CALL(hx_mesher_rods(comm, &o, &m, &info));    order-1 mesh (or o.order)
     ... export (curving raises rods onto their cylinders) ...
     hx_mesh_destroy(&m);

   design:
   1. sites of the lattice (square nx x ny, or hexagonal rings), a rod type per site
      from the rod map ('-' = empty site);
   2. 2D power diagram of the sites (meshers/qhull) with weights w_i = P r_i, so the
      radical axis of two neighbours at pitch distance P splits their gap exactly at
      mid-gap; every cell is the duct polygon clipped by the bisectors;
   3. one planar graph of the cell vertices and edges (shared edges once), edges
      shorter than a fraction of a sector collapsed; every edge subdivided once
      (a deterministic function of the edge), so both cells agree;
   4. per rod cell an O-grid: boundary nodes of the cell polygon joined radially to
      the rod circle, boundary layers of absolute thickness at the rod, then gap
      layers spaced geometrically in radius up to the cell boundary; an empty site's
      cell gets a structured q x q patch (its boundary count must be 4q);
   5. extrusion along z over layers (zones, grading); order N nodes by transfinite
      blending with the rod edges on their exact circles (only when o.order > 1).

   Boundary ids: 1 rod (all rods; with separate_ids, rod type k = 2, 3, ... gets id
   3 + k, named "rod_type<k>", and id 1 is named "rod_type1"), 2 inlet (z min), 3 outlet (z max), 4 duct. With periodic set,
   ids 2 and 3 are named "periodic_zmin"/"periodic_zmax" and hx_rods_periodic_partner
   pairs them. Surfaces: one cylinder per rod (axis along z through its centre), one
   plane per duct side, the two end planes. */
#pragma once
#include "hx_mesh.h"

#define HX_RODS_MAX_TYPES 8
#define HX_RODS_MAX_ZONES 15

typedef enum { HX_RODS_SQUARE = 0, HX_RODS_HEX = 1 } hx_rods_lattice;
typedef enum { HX_RODS_DUCT_BOX = 0, HX_RODS_DUCT_HEX = 1, HX_RODS_DUCT_NONE = 2 } hx_rods_duct;

typedef struct hx_rods_opts {
  int lattice;                      /* hx_rods_lattice */
  double pitch;                     /* centre-to-centre distance of neighbouring sites */
  int nx, ny;                       /* square lattice: sites per row (x) and per column (y) */
  int rings;                        /* hex lattice: rings around the centre site (0: one site) */
  int num_types;                    /* rod types (>= 1) */
  double radius[HX_RODS_MAX_TYPES]; /* rod radius per type */
  const char *map;                  /* rod map (borrowed), NULL: every site type 1. One character per
                                       site: '1'..'8' rod type, '-' empty; blanks and '/' ignored. Square:
                                       row by row from the top row (largest y), left to right. Hex: ring by
                                       ring from the centre, each ring counter-clockwise from +x. */
  int duct;                         /* hx_rods_duct; box needs a square lattice, hex a hex lattice */
  double duct_size;                 /* box side (square: x and y extent), hex flat-to-flat; 0: from duct_gap */
  double duct_size_y;               /* box extent in y (0: nx == ny square box uses duct_size) */
  double duct_gap;                  /* distance from the outermost rod surfaces to the duct when
                                       duct_size == 0; < 0: half a pitch minus the type-1 radius */
  int sectors;                      /* target elements around a rod (edges get round(sectors * angle / 2 pi)) */
  int bl_layers;                    /* boundary layers at every rod */
  double bl_first;                  /* first layer thickness; 0: automatic (a fifth of the narrowest half-gap / bl_layers) */
  double bl_growth;                 /* thickness ratio between successive boundary layers */
  int gap_layers;                   /* element layers from the boundary layers out to the cell edge */
  double z[HX_RODS_MAX_ZONES + 1];  /* zone boundaries z[0] < z[1] < ... (num_zones + 1 values) */
  int num_zones;
  int nz[HX_RODS_MAX_ZONES];         /* element layers per zone */
  double grading[HX_RODS_MAX_ZONES]; /* ratio of last to first layer thickness per zone (1: uniform) */
  int periodic;                      /* axial ends periodic (ids 2, 3 paired) instead of inlet/outlet */
  int separate_ids;                  /* rod type k >= 2 (1-based) gets its own boundary id 3 + k */
  int order;                         /* order of the mesh built (1: corners; > 1 nodes placed exactly) */
  double collapse;                   /* edges subtending less than collapse x one sector from both cells are collapsed */
} hx_rods_opts;

/** What the mesher built, for summaries and exporters. */
typedef struct hx_rods_info {
  int num_sites, num_rods; /* lattice sites and rods (sites minus empty ones) */
  hx_lid elems_per_layer;  /* 2D quads; element e lies in layer e / elems_per_layer */
  int num_layers;          /* total axial layers */
  double zmin, zmax;
  int periodic;             /* 1: faces on id 2 (z min) pair with faces on id 3 (z max) */
  double min_half_gap;      /* narrowest distance from a rod to its cell boundary */
  int min_half_gap_site[2]; /* the rod and its neighbour there (-1: the duct) */
  double duct_size[2];      /* duct extent used (box: x, y; hex: flat-to-flat, 0) */
  double bl_first;          /* first boundary-layer thickness used (automatic or given) */
} hx_rods_info;

void hx_rods_opts_default(hx_rods_opts *o);
/** Fill o from a named preset: "pwr17x17", "hex7", "hex19", "hex37", "hex61", "hex127",
    "hex217". Unknown names give HX_ERR_INPUT listing the known ones. Only geometry
    fields are set; meshing fields keep their values unless the preset defines them. */
int hx_rods_preset(hx_rods_opts *o, const char *name);
/** Names of the presets, comma-separated (for --help and errors). */
const char *hx_rods_preset_names(void);

/** Build the mesh. Serial: on several ranks each rank builds the whole 2D layer and
    keeps a contiguous range of axial layers (node ids are global). Bad input gives
    HX_ERR_INPUT with a message naming the rods/gap/flag and by how much.
    info may be NULL. Collective on comm. */
int hx_mesher_rods(hx_comm comm, const hx_rods_opts *o, hx_mesh **out, hx_rods_info *info);

/** Periodic axial pairing for exporters (.re2 'P' records): for a face on the z-min
    boundary (local face 4 of a layer-0 element, global element index e) give the
    matching face on z-max (face 5 of element e + elems_per_layer * (num_layers - 1)),
    and back. Element indices are global (elem_offset + local). Returns 1 and fills
    the partner when (e, face) is a periodic face, 0 otherwise. The two faces' corners
    match by translation (0, 0, zmax - zmin) with the same local corner order. */
int hx_rods_periodic_partner(const hx_rods_info *info, hx_gid e, int face, hx_gid *e_partner, int *face_partner);
