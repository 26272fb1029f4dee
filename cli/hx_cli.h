/* Shared pieces of the command line: flag parsing with one-line errors that
   name the flag, the options every mesher takes, and the subcommand signature.

   A subcommand is int hx_cmd_<name>(hx_comm comm, int argc, char **argv), where
   argv[0] is the subcommand name. It returns an hx_status; main() prints the
   recorded message once and exits non-zero. */
#pragma once
#include "hx_comm.h"
#include "hx_io.h"
#include "hx_mesh.h"

#include <stdio.h>

/* ---------------------------------------------------------------- option tables

   Every command declares its flags once, in a table of hx_opt rows (name, type, default,
   allowed range or choices, one-line help, group). From the table come the parser
   (hx_opts_parse), --help (hx_opts_help), the man page and the bash completion (main.c:
   hexpack --man, hexpack --completion bash), the machine-readable list (hexpack --options)
   and the "options" echo of --json. A command reads each value back with hx_opts_int,
   hx_opts_double, ... which return the value given or the table's default, so no default
   lives anywhere else.

   A default that is a word rather than a number ("auto", "input") names a rule the command
   applies (its help line says which); the word is also accepted as a value and means the
   same as leaving the flag out. */
typedef enum hx_opt_type {
  HX_OPT_FLAG,    /* no value: on when given (HX_OPT_REPEAT: counted, -v -v) */
  HX_OPT_INT,     /* an integer in [lo, hi] */
  HX_OPT_DOUBLE,  /* a finite number in [lo, hi] */
  HX_OPT_STRING,  /* any text (a file, a spec the command parses; check validates it) */
  HX_OPT_CHOICE,  /* one word of choices ("gll|gauss") */
  HX_OPT_INTS,    /* nmin..nmax comma-separated integers, each in [lo, hi] */
  HX_OPT_DOUBLES, /* nmin..nmax comma-separated finite numbers, each in [lo, hi] */
} hx_opt_type;

enum {
  HX_OPT_EXPERT = 1, /* listed under "expert options" in --help */
  HX_OPT_REPEAT = 2, /* may be given several times: every value kept (-o), or counted (a flag) */
  HX_OPT_OPTVAL = 4, /* the value may be left out (--compress [LEVEL]: a single digit 1..9 follows or not) */
};

typedef struct hx_opt {
  const char *name;  /* "--metric" */
  const char *alias; /* another spelling ("-o" for "--output"), or NULL */
  hx_opt_type type;
  const char *meta;                                  /* the value's name in --help: "N", "FILE", "EY,EZ[,S]" (choices: NULL) */
  const char *def;                                   /* the default as text, NULL when there is none (off, not set) */
  double lo, hi;                                     /* the allowed range of a number, or of every number of a list */
  int nmin, nmax;                                    /* how many values a list takes */
  const char *choices;                               /* HX_OPT_CHOICE: the allowed words, '|'-separated */
  unsigned flags;                                    /* HX_OPT_EXPERT | HX_OPT_REPEAT | HX_OPT_OPTVAL */
  const char *help;                                  /* one line */
  int (*check)(const char *flag, const char *value); /* further checks of a STRING (registries), or NULL */
} hx_opt;

/* Row builders: one table row each (rows end with a {0} sentinel). */
#define HX_FLAG(name, flags, help)                                                                                               \
  { name, NULL, HX_OPT_FLAG, NULL, NULL, 0, 0, 0, 0, NULL, flags, help, NULL }
#define HX_INT(name, meta, def, lo, hi, flags, help)                                                                             \
  { name, NULL, HX_OPT_INT, meta, def, lo, hi, 1, 1, NULL, flags, help, NULL }
#define HX_DBL(name, meta, def, lo, hi, flags, help)                                                                             \
  { name, NULL, HX_OPT_DOUBLE, meta, def, lo, hi, 1, 1, NULL, flags, help, NULL }
#define HX_STR(name, meta, def, flags, help, check)                                                                              \
  { name, NULL, HX_OPT_STRING, meta, def, 0, 0, 1, 1, NULL, flags, help, check }
#define HX_CHOICE(name, choices, def, flags, help)                                                                               \
  { name, NULL, HX_OPT_CHOICE, NULL, def, 0, 0, 1, 1, choices, flags, help, NULL }
#define HX_INTS(name, meta, def, nmin, nmax, lo, hi, flags, help)                                                                \
  { name, NULL, HX_OPT_INTS, meta, def, lo, hi, nmin, nmax, NULL, flags, help, NULL }
#define HX_DBLS(name, meta, def, nmin, nmax, lo, hi, flags, help)                                                                \
  { name, NULL, HX_OPT_DOUBLES, meta, def, lo, hi, nmin, nmax, NULL, flags, help, NULL }

#define HX_OPTS_MAX 160
#define HX_OPTS_MAX_VALUES 32
#define HX_OPTS_MAX_ARGS 16

/** One command's table and, after hx_opts_parse, what the command line gave. */
typedef struct hx_optset {
  const char *cmd;    /* "box", "bench tmop" */
  const char *usage;  /* after "usage: hexpack ": "box [options] [-o FILE]..." */
  const char *about;  /* a short paragraph under the usage line */
  const char *epilog; /* after the flags (boundary ids, ...), or NULL */
  hx_opt opt[HX_OPTS_MAX];
  int num;
  int min_args, max_args; /* positional arguments (files) */
  /* parse results */
  const char *val[HX_OPTS_MAX];           /* the last value given, NULL where the flag was not given */
  int count[HX_OPTS_MAX];                 /* how often it was given */
  int where[HX_OPTS_MAX];                 /* argv index of its last use */
  const char *values[HX_OPTS_MAX_VALUES]; /* every value of HX_OPT_REPEAT flags, in order ... */
  int value_opt[HX_OPTS_MAX_VALUES];      /* ... and whose */
  int num_values;
  const char *args[HX_OPTS_MAX_ARGS];
  int num_args;
  int stop; /* --help or --dry-run was given: the command returns HX_OK without work */
} hx_optset;

/** Start the table of command cmd: the rows every command has (--help, --json, -v, --dry-run). */
void hx_opts_init(hx_optset *s, const char *cmd, const char *usage, const char *about);
/** Append the rows of table (ending in a {0} row); a row whose name is already in s is skipped. */
void hx_opts_add(hx_optset *s, const hx_opt *table);
/** Replace the default of flag name (the command's own default of a shared row). */
void hx_opts_default(hx_optset *s, const char *name, const char *def);
/** Set the default of flag name from a value in code (a library's default function), so that
    the table shows what the code uses. */
void hx_opts_default_int(hx_optset *s, const char *name, long v);
void hx_opts_default_double(hx_optset *s, const char *name, double v);
void hx_opts_default_list(hx_optset *s, const char *name, const double *v, int n);
/** Replace the help line of flag name. */
void hx_opts_help_line(hx_optset *s, const char *name, const char *help);
/** Take a row out of s (a command that shares another's table without one of its flags). */
void hx_opts_remove(hx_optset *s, const char *name);
/** Parse argv[first..argc-1] against the table: every value checked against its type and
    range, one-line errors naming the flag, the value and what is allowed; an unknown flag
    names the closest known one. --help prints the help (stdout) and sets s->stop; --dry-run
    sets s->stop after a successful parse (the "options" echo is the whole output). */
int hx_opts_parse(hx_optset *s, int argc, char **argv, int first);
/** A check's failure rc (a registry's message) said again with the flag first; HX_OK passes. */
int hx_opts_flag_error(const char *flag, int rc);
/** Start MPI (main.c): hx_opts_parse calls it once the flags of a run that does work are parsed. */
void hx_cli_mpi_start(void);
/** Print --help: usage, about, the common flags, then the expert flags under their heading. */
void hx_opts_help(const hx_optset *s, FILE *out);
/** How often flag name was given (0: not given). */
int hx_opts_given(const hx_optset *s, const char *name);
/** argv index of the last use of flag name (0: not given): for flags whose order matters. */
int hx_opts_where(const hx_optset *s, const char *name);
/** The value given, else the default (NULL when none). */
const char *hx_opts_str(const hx_optset *s, const char *name);
/** The value (given, else the default) into *out; returns 1 if set, 0 (*out untouched) where
    the default is none or a word (a rule the command applies). */
int hx_opts_int(const hx_optset *s, const char *name, int *out);
int hx_opts_double(const hx_optset *s, const char *name, double *out);
/** A list's values into out[max]; returns how many (0: none, or a word default). */
int hx_opts_ints(const hx_optset *s, const char *name, int *out, int max);
int hx_opts_doubles(const hx_optset *s, const char *name, double *out, int max);
/** The index of the choice (given, else the default) among the row's choices; -1 if none. */
int hx_opts_choice(const hx_optset *s, const char *name);
/** Every value of a HX_OPT_REPEAT flag in order; returns the count. */
int hx_opts_all(const hx_optset *s, const char *name, const char **out, int max);
/** Write the "options" object of the --json echo: every flag of the table with the value the
    run used (given, else the default): numbers, strings, lists as arrays, flags as true/false. */
void hx_opts_echo_json(const hx_optset *s, FILE *out);
/** The table as JSON (hexpack --options), the man page section, the bash completion case. */
void hx_opts_table_json(const hx_optset *s, FILE *out);
void hx_opts_man(const hx_optset *s, FILE *out);
void hx_opts_completion(const hx_optset *s, FILE *out);

/* The shared tables. */
extern const hx_opt hx_cli_output_table[];  /* -o, --order, --force and the output forms */
extern const hx_opt hx_cli_tmop_table[];    /* the optimizer's flags */
extern const hx_opt hx_cli_quality_table[]; /* --plot, --worst, --quad-order, --quad-type, --quad-points */

/* Each command's table (for hexpack --man, --completion, --options and the tests). */
void hx_cmd_box_opts(hx_optset *s);
void hx_cmd_quality_opts(hx_optset *s);
void hx_cmd_convert_opts(hx_optset *s);
void hx_cmd_demo_opts(hx_optset *s);
void hx_cmd_optimize_opts(hx_optset *s);
void hx_cmd_pebble_opts(hx_optset *s);
void hx_cmd_pack_opts(hx_optset *s);
void hx_cmd_rods_opts(hx_optset *s);
void hx_cmd_bench_tmop_opts(hx_optset *s);
void hx_cmd_bench_kernels_opts(hx_optset *s);

/* ---------------------------------------------------------------- the --json document

   A run prints at most one JSON document on stdout, on one line: {"command": ...,
   "schema_version": ..., "status": "ok" | "error", the command's fields, "options": {...}}.
   The command adds its fields while it runs; main() prints the document at the end (also
   for a failed run: "status": "error", "error": the message). With --json every human
   message goes to stderr (hx_cli_log). docs/json.md has the schema of every command. */
#define HX_JSON_SCHEMA_VERSION 1
/** Begin the document of command s->cmd if --json was given (hx_opts_parse calls it). */
void hx_cli_json_begin(const hx_optset *s);
/** 1 while a document is being built (--json). */
int hx_cli_json_on(void);
/** Append members: fmt is a printf format of '"key": value' pairs separated by ", ". */
void hx_cli_json_add(const char *fmt, ...);
/** Append "key": and return the stream to write one value into (NULL without --json). */
FILE *hx_cli_json_key(const char *key);
/** Open a nested object "key": {...} (inside an array: an element, key unused), or an array
    "key": [...]; hx_cli_json_close closes the innermost. */
void hx_cli_json_open(const char *key);
void hx_cli_json_array(const char *key);
void hx_cli_json_close(void);
/** Write s as a JSON string (quoted, escaped). */
void hx_cli_json_string(FILE *out, const char *s);
/** Print the document (rank 0 only) and free it; rc is the run's status. */
void hx_cli_json_end(int rc, int rank);
/** Where human messages go: stderr with --json, else stdout. */
FILE *hx_cli_log(void);

/** Options common to meshers and mesh-producing commands. */
#define HX_CLI_MAX_OUT 8
typedef struct hx_cli_common {
  const char *out[HX_CLI_MAX_OUT]; /* -o FILE (several allowed) */
  int num_out;
  int json;                 /* --json: one JSON document on stdout (hx_cli_json_*) */
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

/** Parse a finite double in [lo, hi] for flag. */
int hx_cli_double(const char *flag, const char *s, double lo, double hi, double *out);
/** Parse 1..max comma-separated doubles. */
int hx_cli_double_list(const char *flag, const char *s, int max, int *out_count, double *out);
/** The common flags' values (hx_cli_output_table, --json, --optimize) of a parsed set into *c;
    an order given as a word (no number) leaves c->order 0: the command's rule. */
int hx_cli_common_get(const hx_optset *s, hx_cli_common *c);
/** Check every -o path before any work (hx_export_check_paths: format, the format's limits at
    order (<= 0: not known yet), directory, no output twice), on rank 0; collective on comm. */
int hx_cli_check_outputs(hx_comm comm, const hx_cli_common *c, int order);
/** Write the mesh to every -o path (format from extension) at the requested order, as one output
    set: all files get their final names once all are written, or none does. Checks the paths
    again at the order written and the free space first. Refuses det J <= 0 unless --force. */
int hx_cli_write_outputs(const hx_mesh *m, const hx_cli_common *c);
/* Quality flags shared by quality, demo and pebble (cmd_quality.c): --plot, --plot-slice,
   --slice, --worst, --quad-order, --quad-type, --quad-points (the rows of hx_cli_quality_table). */
typedef struct hx_cli_plot {
  const char *path;       /* --plot: histograms and a slice, or NULL */
  const char *slice_path; /* --plot-slice: the slice alone, or NULL */
  const char *slice;      /* --slice AXIS=VALUE, or NULL (the middle of the mesh in z) */
} hx_cli_plot;
struct hx_quality_opts;
/** The quality flags' values of s into *o and *plot; a row another table put in s first (the
    optimizer's --quad-order in pebble) is not read. */
int hx_cli_quality_get(const hx_optset *s, struct hx_quality_opts *o, hx_cli_plot *plot);
/** --plot and --plot-slice must end in .png or .svg, --slice must parse and needs a picture
    (checked before any work). */
int hx_cli_plot_check(const hx_cli_plot *plot);
/** Compute and print the quality of m: the table on stdout (json 0), or the report's members in
    the --json document (json 1: at its top, the quality command; json 2: under "quality"); draw
    the pictures plot names. chk (the read checks of a mesh read from a file, or NULL): the
    table's first line is the verdict, "valid", "inverted: ..." or "broken: ...", and the JSON's
    first field "verdict". */
struct hx_read_check;
int hx_cli_quality_report(const hx_mesh *m, const struct hx_quality_opts *o, const hx_cli_plot *plot, int json,
                          const struct hx_read_check *chk);

/* Subcommands (one file each: cmd_<name>.c). */
int hx_cmd_box(hx_comm comm, int argc, char **argv);
int hx_cmd_optimize(hx_comm comm, int argc, char **argv);
int hx_cmd_bench(hx_comm comm, int argc, char **argv);

/* The TMOP flags every mesh-producing command takes with --optimize (cmd_optimize.c). */
struct hx_tmop_opts;
/** Add the optimizer's rows (hx_cli_tmop_table) to s. */
void hx_cli_tmop_add(hx_optset *s);
/** The meshers' optimizer defaults, set on their table, aimed at the Nek5000 scaled Jacobian (min /
    max det J in each element): metric 318 with each element's own volume as target, every element
    weighted alike, none left below min(0.1, its value as meshed), 10 Newton steps, no untangling
    (pebble, rods: their meshes are valid at the GLL nodes; --untangle asks for it). */
void hx_cli_tmop_sj_defaults(hx_optset *s, struct hx_tmop_opts *o);
/** Every optimizer flag's value (given, else the table's default) into *o; a word default
    (auto) leaves the field as the command set it; --quiet sets *quiet. */
int hx_cli_tmop_get(const hx_optset *s, struct hx_tmop_opts *o, int *quiet);
/** Optimize m in place with o; one log line per Newton iteration unless quiet; a summary line (or JSON). */
int hx_cli_optimize(hx_mesh *m, struct hx_tmop_opts *o, int quiet, const char *json_key);
/** The .re2 writer's rule (hx_re2_rule) as an optimizer hold-back: where an output of c is a
    .re2, hx_cli_re2_guard_open points o->elem_ok at it for mesh m (the order-N mesh written), so
    that no element the writer would have written is moved to one it refuses (Nek5000's geometry
    from corners and curved sides folding). Nothing where no output is a .re2. Close it after the
    optimizer, before m changes order or elements: hx_re2_guard_close(g, &o->elem_ok,
    &o->elem_ok_ctx). */
int hx_cli_re2_guard_open(const hx_mesh *m, const hx_cli_common *c, hx_re2_guard *g, struct hx_tmop_opts *o);
/** hx_cli_optimize of m, the mesh c's outputs are written from, with the .re2 guard where one
    is a .re2 (box, rods, optimize; pebble holds its guard across its transfer itself). */
int hx_cli_optimize_for(hx_mesh *m, struct hx_tmop_opts *o, const hx_cli_common *c, int quiet, const char *json_key);
/** The --json member "outputs": the files c's -o wrote. */
void hx_cli_json_outputs(const hx_cli_common *c);
int hx_cmd_quality(hx_comm comm, int argc, char **argv);
int hx_cmd_convert(hx_comm comm, int argc, char **argv);
int hx_cmd_demo(hx_comm comm, int argc, char **argv);
int hx_cmd_pebble(hx_comm comm, int argc, char **argv);
int hx_cmd_pack(hx_comm comm, int argc, char **argv);
int hx_cmd_rods(hx_comm comm, int argc, char **argv);
