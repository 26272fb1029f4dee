/* Inside the library API (api/): the objects behind the opaque handles of include/hexpack.h and
   the option table that turns named options into the stages' option structs. */
#pragma once
#include <stdio.h>

#include "hexpack.h"
#include "hx_box.h"
#include "hx_io.h"
#include "hx_mesh.h"
#include "hx_pebble.h"
#include "hx_quality.h"
#include "hx_rods.h"
#include "hx_tmop.h"

/* what a function takes: each option belongs to one group, each call accepts some groups */
enum {
  API_G_PEBBLE = 1 << 0,     /* the pebble mesher's flags */
  API_G_BOX = 1 << 1,        /* the box mesher's flags */
  API_G_TMOP = 1 << 2,       /* the optimizer's flags */
  API_G_WRITE = 1 << 3,      /* output forms */
  API_G_QUALITY = 1 << 4,    /* the quality report's quadrature, validity */
  API_G_ORDER = 1 << 5,      /* order */
  API_G_FORCE = 1 << 6,      /* force */
  API_G_OPTIMIZE = 1 << 7,   /* optimize (meshers) */
  API_G_RUN = 1 << 8,        /* verbose, re2-guard (every call that optimizes) */
  API_G_PEBBLE_OPT = 1 << 9, /* optimize-order, transfer-keep, repair-final: pebble, and optimize on a pebble mesh */
  API_G_RODS = 1 << 10       /* the rod-bundle mesher's flags */
};
enum {
  API_OP_PEBBLE = API_G_PEBBLE | API_G_TMOP | API_G_ORDER | API_G_FORCE | API_G_OPTIMIZE | API_G_RUN | API_G_PEBBLE_OPT,
  API_OP_BOX = API_G_BOX | API_G_TMOP | API_G_ORDER | API_G_FORCE | API_G_OPTIMIZE | API_G_RUN,
  API_OP_RODS = API_G_RODS | API_G_TMOP | API_G_ORDER | API_G_FORCE | API_G_OPTIMIZE | API_G_RUN,
  API_OP_OPTIMIZE = API_G_TMOP | API_G_RUN | API_G_PEBBLE_OPT,
  API_OP_READ = API_G_FORCE,
  API_OP_QUALITY = API_G_QUALITY,
  API_OP_WRITE = API_G_WRITE | API_G_ORDER | API_G_FORCE
};

/* Everything the options of one call set, with the defaults of the command the call stands for. */
typedef struct api_run {
  hx_pebble_opts po;
  double radius;                      /* radius: spheres given without one */
  int opt_order;                      /* optimize-order (0: min(order, 3)) */
  int user_tk;                        /* transfer-keep given */
  int user_rf;                        /* repair-final given */
  int stream;                         /* stream: the order-N geometry attached lazily */
  int fast;                           /* fast: the mesher's own flags, no optimizer */
  const char *bridge_flag, *gap_flag; /* a bridge or gap model's option given (for the conflict check) */
  hx_box_opts bo;
  hx_rods_opts ro;
  int rods_lattice_set; /* lattice given (rings then leaves it) */
  hx_tmop_opts to;
  hx_export_opts eo;
  hx_quality_opts qo;
  int order, force, optimize, verbose, re2_guard;
  int ascii, mfem_h1; /* the output forms (applied to eo) */
  hx_mesh *made;      /* the order-P copy made with the pebble mesh (hx_mesher_pebble_copy), taken by the solve */
} api_run;

#define API_MAX_OPTS 128
typedef struct api_opt_value {
  int def;     /* index in the option table */
  char *value; /* the value as text (owned) */
} api_opt_value;

struct hexpack_opts {
  int num;
  api_opt_value v[API_MAX_OPTS];
};

/* how a mesh came to be: a mesh made by the pebble mesher keeps its bed and options, so that
   hexpack_optimize can mesh the bed again at the solve's order as the command line does */
enum { API_KIND_OTHER = 0, API_KIND_PEBBLE = 1, API_KIND_BOX = 2, API_KIND_RODS = 3 };

struct hexpack_mesh {
  hx_mesh *m;
  int kind;
  int checked;        /* the box or rods command's check passed at the mesh's order (the writers skip theirs) */
  hx_pebble_bed *bed; /* API_KIND_PEBBLE: the bed and the finished mesher options (order N, not lazy) */
  hx_pebble_opts po;
  int fast, opt_order, user_tk;
  double transfer_keep;
  hx_lmap *lmap; /* the node numbering of the arrays (built on first use) */
};

/** Set the defaults of the command an operation stands for: API_OP_PEBBLE (hexpack pebble),
    API_OP_BOX (hexpack box), API_OP_RODS (hexpack rods), API_OP_OPTIMIZE (hexpack optimize; on a
    mesh of kind API_KIND_PEBBLE or API_KIND_RODS that command's optimizer defaults), ... */
void api_run_defaults(api_run *r, int op, int kind);
/** Apply the options of o (may be NULL) that op takes to r; an option op does not take fails,
    naming the options it takes. fast is applied first, so that other options override it. */
int api_apply(const hexpack_opts *o, int op, const char *op_name, api_run *r);
/** The comma list of the options of op. */
const char *api_option_list(int op);
/** Check one option's name and value (hexpack_opts_set); *def receives its table index. */
int api_opt_check(const char *name, const char *value, int *def);

/** The meshers' optimizer defaults (rods; metric 318, ...) on top of hx_tmop_opts_default. */
void api_tmop_sj_defaults(hx_tmop_opts *o);
/** The pebble command's: api_tmop_sj_defaults and its own. */
void api_tmop_pebble_defaults(hx_tmop_opts *o);
/** The pebble command's optimization of hm (a pebble mesh): the bed meshed at the solve's order,
    solved, the moves carried to the mesh's order and repaired; r holds the optimizer options.
    Then hx_mesh_check. r->made, where set, is the order-P copy it takes instead of meshing one. */
int api_pebble_optimize(hexpack_mesh *hm, api_run *r);
/** The order P < N the pebble optimization solves at (optimize-order, else min(N, 3)). */
int api_pebble_solve_order(const api_run *r, int order);
/** The optimize command's (and box --optimize's) solve of hm->m with r's options (a box: then hx_mesh_check). */
int api_generic_optimize(hexpack_mesh *hm, api_run *r);
