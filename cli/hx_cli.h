/* Shared pieces of the command line: flag parsing with one-line errors that
   name the flag, the options every mesher takes, and the subcommand signature.

   A subcommand is int hx_cmd_<name>(hx_comm comm, int argc, char **argv), where
   argv[0] is the subcommand name. It returns an hx_status; main() prints the
   recorded message once and exits non-zero. */
#pragma once
#include "hx_comm.h"
#include "hx_mesh.h"

/** Options common to meshers and mesh-producing commands. */
#define HX_CLI_MAX_OUT 8
typedef struct hx_cli_common {
  const char *out[HX_CLI_MAX_OUT]; /* -o FILE (several allowed) */
  int num_out;
  int json;                 /* --json: machine-readable summary on stdout */
  int force;                /* --force: write even with det J <= 0 */
  int checked;              /* the command checked det J > 0 itself: the writers skip that pass (hx_export_opts) */
  int order;                /* --order N (0 = command default) */
  int optimize;             /* --optimize */
  int ascii;                /* --ascii: text form of .msh / .vtu */
  int compress;             /* --compress [LEVEL]: zlib-compressed .vtu appended data */
  int co2;                  /* --co2: also write the Nek5000 .co2 connectivity next to a .re2 */
  int mfem_h1;              /* --mfem-nodes h1: MFEM .mesh nodes in H1_3D_P<N> (l2: L2_T1_3D_P<N>, the default) */
  long long point_window;   /* --point-window N: points per pass of the writers that order points (0: 2^24) */
  double assume_free_bytes; /* --assume-free-bytes B: the free space the space check takes (0: the filesystem's) */
} hx_cli_common;

/** Take the value after flag argv[*i] (advancing *i) into *val, or fail with
    "flag X needs a value". */
int hx_cli_value(int argc, char **argv, int *i, const char **val);
/** Parse an integer in [lo, hi] for flag; the message names the flag and range. */
int hx_cli_int(const char *flag, const char *s, long lo, long hi, int *out);
/** Parse a finite double in [lo, hi] for flag. */
int hx_cli_double(const char *flag, const char *s, double lo, double hi, double *out);
/** Parse 1..max comma-separated integers; *count receives how many. */
int hx_cli_int_list(const char *flag, const char *s, int max, long lo, long hi, int *out, int *count);
/** Parse 1..max comma-separated doubles. */
int hx_cli_double_list(const char *flag, const char *s, int max, int *out_count, double *out);
/** Try the common flags (-o, --json, --force, --order, --optimize, -v). Returns
    1 if argv[*i] was one (consumed), 0 if not, or a negative hx_status on error. */
int hx_cli_common_flag(int argc, char **argv, int *i, hx_cli_common *c);
/** Error for an unknown flag of a subcommand. */
int hx_cli_unknown_flag(const char *cmd, const char *flag);
/** Check every -o path before any work (hx_export_check_paths: format, the format's limits at
    order (<= 0: not known yet), directory, no output twice), on rank 0; collective on comm. */
int hx_cli_check_outputs(hx_comm comm, const hx_cli_common *c, int order);
/** Write the mesh to every -o path (format from extension) at the requested order, as one output
    set: all files get their final names once all are written, or none does. Checks the paths
    again at the order written and the free space first. Refuses det J <= 0 unless --force. */
int hx_cli_write_outputs(const hx_mesh *m, const hx_cli_common *c);
/** True if stderr is a terminal (progress bars are drawn only then). */
int hx_cli_is_tty(void);

/* Quality flags shared by quality, demo and pebble (cmd_quality.c): --plot, --plot-slice,
   --slice, --worst, --quad-order, --quad-type, --quad-points. Returns 1 if consumed, 0 if not
   one of them, -1 on error (message recorded). */
typedef struct hx_cli_plot {
  const char *path;       /* --plot: histograms and a slice, or NULL */
  const char *slice_path; /* --plot-slice: the slice alone, or NULL */
  const char *slice;      /* --slice AXIS=VALUE, or NULL (the middle of the mesh in z) */
} hx_cli_plot;
struct hx_quality_opts;
int hx_cli_quality_flag(int argc, char **argv, int *i, struct hx_quality_opts *o, hx_cli_plot *plot);
/** --plot and --plot-slice must end in .png or .svg, --slice must parse (checked before any work). */
int hx_cli_plot_check(const hx_cli_plot *plot);
/** Compute and print (table or JSON) the quality of m; draw the pictures plot names.
    chk (the read checks of a mesh read from a file, or NULL): the table's first line is the
    verdict, "valid", "inverted: ..." or "broken: ...", and the JSON's first field "verdict". */
struct hx_read_check;
int hx_cli_quality_report(const hx_mesh *m, const struct hx_quality_opts *o, const hx_cli_plot *plot, int json,
                          const struct hx_read_check *chk);

/* Subcommands (one file each: cmd_<name>.c). */
int hx_cmd_box(hx_comm comm, int argc, char **argv);
int hx_cmd_optimize(hx_comm comm, int argc, char **argv);
int hx_cmd_bench(hx_comm comm, int argc, char **argv);

/* The TMOP flags every mesh-producing command takes with --optimize (cmd_optimize.c). */
struct hx_tmop_opts;
/** Print the optimizer flags. */
void hx_cli_tmop_help(void);
/** The meshers' optimizer defaults, aimed at the Nek5000 scaled Jacobian (min / max det J in each
    element): metric 318 with each element's own volume as target, every element weighted alike,
    none left below min(0.1, its value as meshed), 10 Newton steps, no untangling (pebble,
    rods: their meshes are valid at the GLL nodes; --untangle asks for it). */
void hx_cli_tmop_sj_defaults(struct hx_tmop_opts *o);
/** Try one optimizer flag (--metric, --target, ...): 1 consumed, 0 not one, < 0 -error. */
int hx_cli_tmop_flag(int argc, char **argv, int *i, struct hx_tmop_opts *o, int *quiet);
/** Optimize m in place with o; one log line per Newton iteration unless quiet; a summary line (or JSON). */
int hx_cli_optimize(hx_mesh *m, struct hx_tmop_opts *o, int quiet, int json);
/** The .re2 writer's rule (hx_re2_rule) as an optimizer hold-back: where an output of c is a
    .re2, hx_cli_re2_guard_open points o->elem_ok at it for mesh m (the order-N mesh written), so
    that no element the writer would have written is moved to one it refuses (Nek5000's geometry
    from corners and curved sides folding). Nothing where no output is a .re2. Close after the
    optimizer, before m changes order or elements. */
typedef struct hx_cli_re2_guard {
  struct hx_re2_rule *rule;
  int32_t *bsurf; /* [num_elem][6] surface index of each face, -1 */
} hx_cli_re2_guard;
int hx_cli_re2_guard_open(const hx_mesh *m, const hx_cli_common *c, hx_cli_re2_guard *g, struct hx_tmop_opts *o);
void hx_cli_re2_guard_close(hx_cli_re2_guard *g, struct hx_tmop_opts *o);
/** hx_cli_optimize of m, the mesh c's outputs are written from, with the .re2 guard where one
    is a .re2 (box, rods, optimize; pebble holds its guard across its transfer itself). */
int hx_cli_optimize_for(hx_mesh *m, struct hx_tmop_opts *o, const hx_cli_common *c, int quiet);
int hx_cmd_quality(hx_comm comm, int argc, char **argv);
int hx_cmd_convert(hx_comm comm, int argc, char **argv);
int hx_cmd_demo(hx_comm comm, int argc, char **argv);
int hx_cmd_pebble(hx_comm comm, int argc, char **argv);
int hx_cmd_pack(hx_comm comm, int argc, char **argv);
int hx_cmd_rods(hx_comm comm, int argc, char **argv);
