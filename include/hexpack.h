/* hexpack: the public C API of libhexpack (docs/api.md).

   Mesh a pebble bed, a rod bundle or a box, read a mesh, optimize it with TMOP, check its quality and write it
   in any format, with the same code and the same results as the hexpack command line.

   Usage:
     hexpack_opts *o = NULL;
     hexpack_opts_create(&o);
     hexpack_opts_set(o, "container", "cyl:6.6");     options are the command line's flags,
     hexpack_opts_set_int(o, "order", 3);             named without the leading "--"
     hexpack_opts_set(o, "optimize", "1");
     hexpack_mesh *m = NULL;
     if (hexpack_pebble(n, centres, radii, o, &m)) fprintf(stderr, "%s\n", hexpack_last_error());
     hexpack_quality q;
     hexpack_mesh_quality(m, NULL, &q);                q.scaled_jacobian_min, q.num_inverted, ...
     hexpack_write(m, "bed.re2", NULL);               format from the extension
     hexpack_mesh_destroy(&m);
     hexpack_opts_destroy(&o);

   Every function that can fail returns a hexpack_status (HEXPACK_OK = 0) and records a one-line
   message, read back with hexpack_last_error() (per thread). No function prints to stdout, exits
   or aborts. Objects are opaque: whoever creates one destroys it (destroy accepts NULL and sets
   the pointer to NULL); every pointer argument is borrowed for the call only. The library works on
   one process (meshes are not distributed; with MPI in the build it initializes MPI itself when
   the caller has not). */
#ifndef HEXPACK_H
#define HEXPACK_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes (the same numbers as the command line's internal codes). */
typedef enum hexpack_status {
  HEXPACK_OK = 0,
  HEXPACK_ERR_INPUT = 1,       /* a value, option or input file is wrong */
  HEXPACK_ERR_MEMORY = 2,      /* an allocation failed */
  HEXPACK_ERR_BACKEND = 3,     /* a compute backend (CUDA) failed or is not in the build */
  HEXPACK_ERR_MPI = 4,         /* an MPI call failed */
  HEXPACK_ERR_QHULL = 5,       /* Qhull failed */
  HEXPACK_ERR_IO = 6,          /* reading or writing a file failed */
  HEXPACK_ERR_INTERNAL = 7,    /* a bug of ours */
  HEXPACK_ERR_INVALID_MESH = 8 /* the mesh has det J <= 0 or breaks an invariant */
} hexpack_status;

/** The library's version ("0.1.0"). */
const char *hexpack_version(void);
/** The message of the last failure of a hexpack call on this thread ("" after a success). */
const char *hexpack_last_error(void);
/** A short name of a status ("input error", ...). */
const char *hexpack_status_name(int status);

/* ---- options ---------------------------------------------------------------------------------

   A set of named options. The names are the command line's flags without "--" ("container",
   "order", "newton-iters"; '_' is taken for '-'), the values its values as text ("cyl:6.6",
   "3", "2.5,4"); a switch takes "1"/"0" (also true/false, yes/no, on/off). A value is checked
   when set (range, form); an option that the called function does not take is refused by the
   call, naming the options it takes (hexpack_option_names). */
typedef struct hexpack_opts hexpack_opts;

int hexpack_opts_create(hexpack_opts **out);
void hexpack_opts_destroy(hexpack_opts **o);
/** Set (or replace) an option. */
int hexpack_opts_set(hexpack_opts *o, const char *name, const char *value);
int hexpack_opts_set_int(hexpack_opts *o, const char *name, long value);
int hexpack_opts_set_double(hexpack_opts *o, const char *name, double value);
/** The options a function takes, as a comma-separated list: what is one of "pebble", "box",
    "rods", "read", "optimize", "quality", "write"; NULL for an unknown name. Static storage. */
const char *hexpack_option_names(const char *what);

/* ---- meshes ----------------------------------------------------------------------------------- */
typedef struct hexpack_mesh hexpack_mesh;

/** Mesh the fluid about n spheres (`hexpack pebble`): centres [n][3], radii [n] (NULL: every
    sphere has the option "radius"). Options: the pebble flags ("container", "order" (default 7),
    "layers", "inlet", ...), "optimize" (TMOP as `pebble --optimize`, with its defaults, and the
    optimizer's options), "force" (keep a mesh that fails the det J check). */
int hexpack_pebble(int64_t n, const double *centres, const double *radii, const hexpack_opts *o, hexpack_mesh **out);
/** A structured box (`hexpack box`): "n", "order" (default 1), "kershaw", "lo", "hi", "separate-ids",
    "optimize" and the optimizer's options, "force". */
int hexpack_box(const hexpack_opts *o, hexpack_mesh **out);
/** A rod bundle in its duct (`hexpack rods`): "preset" (pwr17x17, hex7, ...), "lattice", "pitch",
    "rods", "rings", "rod-radius", "map", "duct", "duct-size", "duct-gap", "sectors", "bl-layers",
    "bl-first", "bl-growth", "gap-layers", "z", "nz", "grading", "periodic", "separate-ids", "order"
    (default 1; the rods and the duct exact at every order), "optimize" and the optimizer's
    options, "force". */
int hexpack_rods(const hexpack_opts *o, hexpack_mesh **out);
/** Read a mesh file of any format with a reader (by extension) and check it as `hexpack quality`
    does; "force" keeps a mesh the checks find broken. */
int hexpack_read(const char *path, const hexpack_opts *o, hexpack_mesh **out);
void hexpack_mesh_destroy(hexpack_mesh **m);

/** TMOP in place. A mesh made by hexpack_pebble is optimized as `pebble --optimize` does it (the
    bed meshed again at the solve's order, its moves carried to the mesh's order, then repaired),
    with the pebble optimizer's defaults; a rod bundle as `rods --optimize` (its defaults); any
    other mesh as `hexpack optimize` does. Options: the
    optimizer's flags ("metric", "target", "newton-iters", "backend", "keep-sj", "repair", ...),
    "verbose" (the per-iteration log on stderr) and "re2-guard" (default 1: no element is moved
    to one the .re2 writer would refuse, as the command line does when a .re2 is among its
    outputs; 0: as the command line without a .re2 output). */
int hexpack_optimize(hexpack_mesh *m, const hexpack_opts *o);

/** The quality summary of a mesh (`hexpack quality`; det J at the GLL nodes and at a quadrature
    rule, options "quad-order", "quad-type", "quad-points", "validity"). */
typedef struct hexpack_quality {
  int64_t num_elem;
  int32_t order;
  int32_t quad_points;         /* quadrature points per direction */
  int64_t num_inverted;        /* elements with det J <= 0 at a GLL node or quadrature point */
  double detj_min, detj_max;   /* det J at the GLL nodes */
  double detj_min_quad;        /* det J at the quadrature points */
  double scaled_jacobian_min;  /* Nek5000: min / max det J over an element's GLL nodes */
  double scaled_jacobian_mean; /*   its mean over the elements */
  double corner_sj_min;        /* the normalized corner scaled Jacobian (Knupp, Verdict) */
  double corner_sj_mean;
  double aspect_max, aspect_mean; /* longest / shortest corner edge */
  double min_spacing;             /* shortest GLL grid-line spacing */
  int32_t validity;               /* with "validity": 1 det J > 0 proven, 2 not proven, 3 invalid; 0 not checked */
  int32_t reserved;
} hexpack_quality;
int hexpack_mesh_quality(const hexpack_mesh *m, const hexpack_opts *o, hexpack_quality *q);

/** Write the mesh to a file, format from the extension (.re2 .msh .vtu .pvtu .mesh .exo), under a
    temporary name renamed when complete. Options: "order" (curve to this order; default the
    mesh's), "force", "ascii", "compress", "co2", "mfem-nodes". */
int hexpack_write(const hexpack_mesh *m, const char *path, const hexpack_opts *o);
/** Write n files as one set: all of them get their names, or none when one fails. */
int hexpack_write_files(const hexpack_mesh *m, const char *const *paths, int n, const hexpack_opts *o);

/* ---- the mesh's arrays ------------------------------------------------------------------------

   Nodes are the mesh's distinct GLL nodes; an element lists its (order + 1)^3 nodes in
   lexicographic order (the first reference direction fastest) on the reference cube [0,1]^3,
   corner c = i + 2j + 4k. A boundary face is (element, local face 0..5: xi1 = 0, xi1 = 1, xi2 = 0,
   xi2 = 1, xi3 = 0, xi3 = 1, boundary id >= 1). */
typedef struct hexpack_mesh_info {
  int32_t order;
  int32_t num_boundaries; /* boundary ids run 1..num_boundaries */
  int64_t num_elem;
  int64_t num_nodes;
  int64_t num_faces; /* boundary faces */
} hexpack_mesh_info;
int hexpack_mesh_get_info(const hexpack_mesh *m, hexpack_mesh_info *info);
/** xyz [num_nodes][3]. */
int hexpack_mesh_nodes(const hexpack_mesh *m, double *xyz);
/** conn [num_elem][(order + 1)^3]: node indices from 0. */
int hexpack_mesh_elements(const hexpack_mesh *m, int64_t *conn);
/** faces [num_faces][3]: element, local face, boundary id. */
int hexpack_mesh_faces(const hexpack_mesh *m, int64_t *faces);
/** The name of boundary id bid ("pebble", "wall", ...; "" when it has none, NULL out of range);
    valid while the mesh lives. */
const char *hexpack_mesh_boundary_name(const hexpack_mesh *m, int bid);

#ifdef __cplusplus
}
#endif
#endif
