/* The pebble-bed mesher: curved all-hex meshes of the fluid between packed spheres
   (the algorithm is described in docs/pebble.md).

   Usage:
     hx_pebble_bed *bed;
     HX_CALL(hx_pebble_bed_read("bed.txt", default_radius, &bed));   or fill one yourself
     hx_pebble_opts o; hx_pebble_opts_default(&o); o.container = ...;
     HX_CALL(hx_pebble_opts_finish(&o, bed));          planes from the bed when unset
     HX_CALL(hx_pebble_bed_check(bed, &o));            overlaps, outside spheres
     hx_mesh *m; hx_pebble_stats st;
     HX_CALL(hx_mesher_pebble(comm, bed, &o, &m, &st));  order-1 mesh + surfaces
     ... curve (hx_curve.h), check, export ...
     hx_pebble_bed_destroy(&bed);

   Boundary names, ids contiguous from 1 in this order where present: pebble,
   chamfer, wall, inlet, outlet. Surfaces: sphere k is surface k (k < num_spheres),
   then the container, planes, and one cylinder per bridge. */
#pragma once
#include "hx_mesh.h"

typedef struct hx_pebble_bed {
  hx_lid n;        /* spheres */
  double *xyz;     /* [n][3] centres */
  double *r;       /* [n] radii */
  int *line;       /* [n] input line of each sphere (0 if not from a file) */
  char path[1024]; /* input file, for messages ("" if none) */
} hx_pebble_bed;

enum { HX_PEBBLE_CYLINDER = 0, HX_PEBBLE_BOX = 1 };
/* contact models (docs/pebble.md, "Contact model"): a solid bridge about the line of centres of
   every pair closer than bridge_gap x d, or every pair closer than contact_gap x d moved apart to
   that gap by shrinking the spheres' radii (no bridge) */
enum { HX_PEBBLE_BRIDGE = 0, HX_PEBBLE_GAP = 1 };
/* the gap model's shrink rule: each sphere by the most its own contacts need (local), or every
   sphere by one factor (uniform) */
enum { HX_PEBBLE_SHRINK_LOCAL = 0, HX_PEBBLE_SHRINK_UNIFORM = 1 };

typedef struct hx_pebble_opts {
  int container;                /* HX_PEBBLE_CYLINDER (axis z through cx, cy) or HX_PEBBLE_BOX */
  double cyl_radius;            /* cylinder radius (0: not set) */
  double cx, cy;                /* cylinder axis */
  double box_lo[2], box_hi[2];  /* box x/y extent */
  double zlo, zhi;              /* bottom and top planes (NAN: from the bed, plane_gap below/above) */
  double plane_gap;             /* default planes: this fraction of the mean diameter beyond the spheres */
  double inlet_len, outlet_len; /* extrusion lengths (0: none) */
  int inlet_layers, outlet_layers;
  double extrude_ratio; /* growth ratio of the extruded layers away from the bed */
  int layers;           /* radial layers between facet and sphere (default 3) */
  double ratio;         /* growth ratio of the radial layers away from the sphere */
  double first_layer;   /* first-layer thickness as a fraction of the column height (0: use ratio) */
  double grade_height;  /* > 0: a column shorter than this x d gets a growth ratio between 1 (even layers,
                           at height 0) and the ratio above, linear in its height (default 0: off) */
  double grade_expand;  /* > 0: a column taller than this x d gets at least the growth ratio of its own
                           widening, ((R + h) / R)^(1/layers), blended in from this to twice this
                           (default 0: off) */
  int contact;          /* HX_PEBBLE_BRIDGE (default) or HX_PEBBLE_GAP */
  int contact_layers;   /* the bridge model with layers 3: 1: the columns of the ring of quads on a bridge's
                           circle have one layer, joined to the swept layers by one ring of transition
                           columns (three layers, their inner nodes pulled into the quad, and a cap
                           element each); 0 (default): every column swept with `layers` layers */
  double contact_gap;   /* the gap model: pairs (and sphere-wall pairs) closer than this x d (the pair's
                           smaller diameter) moved apart to it (default 0.01) */
  int contact_shrink;   /* the gap model: HX_PEBBLE_SHRINK_LOCAL (default) or HX_PEBBLE_SHRINK_UNIFORM */
  double bridge_frac;   /* bridge radius as a fraction of the (smaller) diameter, default 0.1 */
  double bridge_gap;    /* bridge pairs whose gap is below this fraction of d (default 0.02, 0.04 with aspect) */
  double wall_gap;      /* same threshold for sphere-wall gaps (default: bridge_gap) */
  double collapse;      /* collapse diagram edges shorter than this fraction of d (default 0.2) */
  double overlap_tol;   /* largest allowed overlap as a fraction of d (default 0.1) */
  int rings;            /* extra rings of quads around bridges / near contacts (default 1) */
  double ring_gap;      /* non-bridged facets with gap below this fraction of d get rings */
  double ring_sj;       /* in (0, 1): rings of each bridged / near-contact facet spaced so that the
                           estimated det J ratio (rho times column height) across one ring is at
                           least this, as many as needed (rings is then the minimum) and the ring
                           shape chosen among scored variants (default 0.1); 0: always `rings` rings (old rule) */
  double bridge_fit;    /* > 0: a bridge's radius grows to this fraction of its facet's inner radius
                           (capped at 0.25 d) when that is more than --bridge x d (default 0.5; 0: off) */
  double accept_sj;     /* a facet's fan variant is kept once its linear columns reach this corner
                           scaled Jacobian (else the best of all variants; default 0.3) */
  double aspect;        /* > 0: the diagram edges about bridges cut so that the elements next to a
                           bridge circle have aspect ratio about this or less (0: off, default) */
  int split;            /* > 1: every facet quad cut into split x split (default 1) */
  int score_nek;        /* 1: a variant's score is also capped by the Nek5000 scaled Jacobian (min / max
                           det J over each linear column element) of its columns, not only by their
                           corner scaled Jacobian (default 0) */
  int smooth;           /* > 0: sweeps of the max-min optimization of the nodes inside each facet
                           (fan centres, ring nodes) on its swept columns' quality (0: off; the CLI's
                           default is 10 with --optimize or --aspect, unless --split) */
  int radial_volume;    /* 1: GLL points of a layer spaced so that the cube of their distance from the
                           sphere's centre is linear (equal cone volume per step), 0: linearly; -1
                           (default): 1 from order 3 (at order 2 the one inner point moved costs
                           more geometric accuracy on the spheres than it gains) */
  int ring_volume;      /* 1: the order-N points of the radial edges inside a ring of quads (about a
                           contact) spaced so that distance from the axis x gap x step is constant,
                           the ring quads lofted between their chords; 0: evenly, Coons patch; -1
                           (default): 1 from order 3 */
  int edge_volume;      /* 1: the order-N points along the facets' boundary edges (the diagram's
                           edges, shared by the facets about them) spaced so that gap x step is
                           constant, the gap to a sphere next to the edge (not on an extruded
                           inlet/outlet plane); 0: evenly; -1 (default): 1 from order 3 */
  double max_snap;      /* refuse cells reaching beyond the wall by more than this x d (1.0) */
  int order;            /* > 1: return the mesh at this order, nodes placed by the mesher's own
                           sweep map (exact spheres, bridges, walls, curved layers) */
  int map_order;        /* > 0: place the order-`order` points by the sweep map of an order-map_order
                           mesh (its spacing choices and its guard's), i.e. the same map sampled
                           at fewer points (the low-order copy of --optimize-order); 0: order */
  int lazy;             /* with order > 1: return the order-1 mesh with that sweep map attached
                           as its hx_mesh_lazy (writers, checks and the quality report evaluate
                           it a block at a time), not the order-N mesh held whole */

  /* diagnostics on stderr (the CLI's --debug WHAT), all off by default */
  struct {
    int facets;           /* every facet's tessellation as kept (its sites and polygon), the order-1
                             elements with a corner det J <= 0 and the order-N nodes with det J <= 0 */
    long facet;           /* >= 0: this facet's tessellation at every variant tried; -1 (default): none */
    int mem;              /* the time, peak and current RSS after each stage */
    const char *classify; /* non-NULL (borrowed): after the order-N sweep (order > 1, not lazy), the
                             Nek5000 scaled Jacobian and aspect ratio by class of element; a value
                             starting with '2' ("2" or "2,A") also lists the elements below 0.05 or
                             above aspect A (default 100) */
    const char *elems;    /* non-NULL (borrowed): with classify, also list these elements ("3,17,40") */
  } debug;
} hx_pebble_opts;

typedef struct hx_pebble_stats {
  hx_lid num_spheres, num_ghosts, num_tets;
  hx_lid num_facets, num_wall_facets, num_dropped_facets, num_collapsed, num_negligible;
  hx_lid num_bridges, num_wall_bridges, num_overlaps;
  double max_overlap; /* largest overlap / d */
  hx_lid elems_bulk, elems_inlet, elems_outlet;
  double bridge_volume;       /* solid volume added by bridges (exact per bridge: the part of its cylinder
                                 between the spheres' surfaces, or between the sphere and the wall) */
  double vol_container;       /* the container between the bottom and top planes, with the extrusions */
  double vol_solid;           /* the spheres as given, inside the container (hx_pebble_bed_volume) */
  double vol_shrink;          /* the gap model: the solid volume the shrinking removed */
  hx_lid num_shrunk;          /* the gap model: spheres whose radius was reduced */
  double max_shrink;          /* the gap model: the largest relative radius reduction, 1 - r'/r */
  double mean_shrink;         /* the gap model: the mean over all spheres of 1 - r'/r */
  double t_diagram, t_mesh;   /* seconds */
  hx_lid num_repaired_facets; /* facets whose first tessellation folded (their vertices then guarded) */
  int num_repair_rounds;      /* clean-up rounds after the first */
  hx_lid num_smoothed_moves;  /* node moves kept by --smooth */
  hx_lid num_ring_even;       /* facets that kept even point spacing on their fan's spokes or on every edge
                                 (the volume spacing lowered their worst element at order N) */
  hx_lid num_edge_even;       /* boundary edges (segments of the diagram's edges) that kept even point
                                 spacing (the gap spacing lowered a facet's worst element at order N) */
  hx_lid num_cut_edges;       /* --aspect: diagram edges cut into more than two segments */
  hx_lid num_cut_segments;    /* the segments that added (with num_arc_cut_edges') */
  hx_lid num_arc_cut_edges;   /* cylinder edges of wall facets left folded, cut to at most 20 degrees a segment */
  hx_lid num_wide_bridges;    /* --aspect: bridges widened (1.2 or 1.4 x) where no other variant met the estimate */
  hx_lid num_trans_facets;    /* --contact-layers one: contact facets (bridged or near) meshed with the one-layer
                                 ring and the transition ring */
  hx_lid num_trans_elems;     /* their one-layer, transition and cap elements, on both sides */
  hx_lid num_spread_rings;    /* --aspect: near contacts whose rings ran out short of the polygon, respread */
} hx_pebble_stats;

void hx_pebble_opts_default(hx_pebble_opts *o);
/** The tessellation flags of hexpack pebble's two paths (docs/pebble.md, "Two paths") into o:
    quality (the default path) --ratio 1 --score nek --aspect 18 --grade-expand 0.75; else the
    fast path's, hx_pebble_opts_default's own. The other fields stay. */
void hx_pebble_opts_path(hx_pebble_opts *o, int quality);
/** The quality path's --keep-aspect (the optimizer's hold-back of the aspect ratio). */
#define HX_PEBBLE_QUALITY_KEEP_ASPECT 20.0
/** Read a centres file: 'x y z' or 'x y z r' per line, '#' comments, blank lines.
    default_radius (> 0) is used for 3-value lines; 0 makes such lines an error.
    Errors name path:line. */
int hx_pebble_bed_read(const char *path, double default_radius, hx_pebble_bed **out);
/** The same, every value of the file (centres and radii, not default_radius) multiplied by scale
    (> 0): a file in other units than the mesh's. Packings from DEM codes (LAMMPS dumps, CSV, VTK)
    are read by io/hx_particles.h. */
int hx_pebble_bed_read_scaled(const char *path, double default_radius, double scale, hx_pebble_bed **out);
/** Make a bed from arrays (copied); r may be NULL with radius > 0. */
int hx_pebble_bed_create(hx_lid n, const double *xyz, const double *r, double radius, hx_pebble_bed **out);
void hx_pebble_bed_destroy(hx_pebble_bed **bed);
/** Fill unset container data from the bed (planes at plane_gap beyond the spheres). */
int hx_pebble_opts_finish(hx_pebble_opts *o, const hx_pebble_bed *bed);
/** Input checks: at least two spheres, no duplicates, overlaps within overlap_tol,
    every sphere inside the container (touching allowed, within 1e-9 d). */
int hx_pebble_bed_check(const hx_pebble_bed *bed, const hx_pebble_opts *o);
/** Analytic volumes of a bed in its container (o finished): container, the cylinder or box
    between the bottom and top planes with the inlet and outlet extrusions; solid, the union
    of the spheres inside it (overlapping pairs' lenses counted once). */
int hx_pebble_bed_volume(const hx_pebble_bed *bed, const hx_pebble_opts *o, double *container, double *solid);

/** What hx_pebble_contact_shrink did. */
typedef struct hx_pebble_shrink {
  hx_lid num_pairs;   /* sphere pairs closer than the gap */
  hx_lid num_wall;    /* sphere-wall pairs closer than the gap */
  hx_lid num_shrunk;  /* spheres whose radius went down */
  double max_shrink;  /* largest 1 - r'/r */
  double mean_shrink; /* mean of 1 - r'/r over all spheres */
} hx_pebble_shrink;
/** The gap model: a copy of bed (out, owned by the caller) whose radii are reduced so that
    every pair and every sphere-wall pair is at least o->contact_gap x d apart (d the pair's
    smaller diameter, or the sphere's), by o->contact_shrink's rule. hx_mesher_pebble calls it
    itself when o->contact is HX_PEBBLE_GAP. */
int hx_pebble_contact_shrink(const hx_pebble_bed *bed, const hx_pebble_opts *o, hx_pebble_bed **out, hx_pebble_shrink *info);
/** The options of the order-P copy of the bed meshed with o, for a solve at order P carried to
    o's order: attempt 0 samples the order-N mesh's own map (map_order: its point spacings and
    its guard's choices), attempt 1 places the points by the order-P mesher's guard with the
    spacings still as at order N. Whole (not lazy). */
void hx_pebble_opts_lower(const hx_pebble_opts *o, int P, int attempt, hx_pebble_opts *out);
/** Mesh the fluid around the bed (order 1, with boundary faces and analytic surfaces). */
int hx_mesher_pebble(hx_comm comm, const hx_pebble_bed *bed, const hx_pebble_opts *o, hx_mesh **out, hx_pebble_stats *stats);
/** hx_mesher_pebble, and with lower_order P (1 < P < o->order) also the order-P copy into *lower
    from the same tessellation: the mesh hx_mesher_pebble gives with hx_pebble_opts_lower(o, P, 0),
    without meshing the bed a second time. The copy is whole where *out is lazy too. */
int hx_mesher_pebble_copy(hx_comm comm, const hx_pebble_bed *bed, const hx_pebble_opts *o, int lower_order, hx_mesh **out,
                          hx_mesh **lower, hx_pebble_stats *stats);

/** Packing generator (tests, demos; separate from the mesher): n spheres of radius
    r (uniform in r (1 +- poly)) dropped one by one into the cylinder of radius
    cyl_radius about z, resting on z = 0 or on earlier spheres; each takes the
    lowest of `trials` random positions. Reproducible from seed. */
int hx_pebble_pack(hx_lid n, double radius, double poly, double cyl_radius, uint64_t seed, int trials, hx_pebble_bed **out);
/** The same; square = 1 drops into the square prism |x|, |y| <= cyl_radius instead. */
int hx_pebble_pack2(hx_lid n, double radius, double poly, double cyl_radius, int square, uint64_t seed, int trials,
                    hx_pebble_bed **out);

/** The bundled 67-pebble DEM bed (inputs/pb67.txt, CC BY 4.0, Idaho National
    Laboratory Virtual Test Bed): centres, radius 1.5, container cylinder radius 6.6. */
extern const int hx_pb67_count;
extern const double hx_pb67_radius, hx_pb67_cylinder;
extern const double hx_pb67_xyz[][3];
