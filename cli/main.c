/* hexpack: the command line. Subcommands are registered in one table; the help text and the
   "unknown subcommand" error are both printed from it, and every command's option table gives
   the man page (--man), the bash completion (--completion bash) and the tables as JSON
   (--options). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_build.h"
#include "hx_cli.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_kernels.h"
#include "hx_progress.h"

typedef struct hx_command {
  const char *name;
  int (*run)(hx_comm comm, int argc, char **argv); /* NULL: not built yet */
  const char *summary;
} hx_command;

static const hx_command commands[] = {
    /* name       run          summary */
    {"box", hx_cmd_box, "structured box of hexes, optionally Kershaw-deformed (benchmarks)"},
    {"quality", hx_cmd_quality, "quality report: det J, scaled Jacobians, aspect ratio, histogram"},
    {"convert", hx_cmd_convert, "convert a mesh between formats (.re2 .msh .vtu .pvtu .mesh .exo)"},
    {"demo", hx_cmd_demo, "the bundled example end to end"},
    {"optimize", hx_cmd_optimize, "TMOP mesh optimization (Newton, partial assembly, cpu|cuda)"},
    {"pebble", hx_cmd_pebble, "curved all-hex mesh of the fluid between packed spheres"},
    {"pack", hx_cmd_pack, "generate a packing of spheres in a container (tests, demos)"},
    {"rods", hx_cmd_rods, "curved all-hex mesh of a rod bundle (square/hex lattice, PWR 17x17)"},
    {"bench", hx_cmd_bench, "throughput benchmarks (tmop, pebble, rods, io)"},
};
static const int num_commands = (int)(sizeof commands / sizeof commands[0]);

static void print_help(FILE *out) {
  fprintf(out,
          "hexpack %s: curved high-order all-hex meshes, TMOP optimization, solver formats\n\n"
          "usage: hexpack <command> [options]    (hexpack <command> --help for its options)\n\n"
          "commands:\n",
          HX_VERSION);
  for (int c = 0; c < num_commands; c++)
    fprintf(out, "  %-9s %s%s\n", commands[c].name, commands[c].summary, commands[c].run ? "" : " (not built yet)");
  fprintf(out, "\nEvery command takes --help (its flags), --json (one JSON document on stdout), -v and --dry-run.\n"
               "hexpack --man: the manual page; hexpack --completion bash: the bash completion; hexpack --options:\n"
               "every command's flags as JSON.\n");
}

/* every command's option table, in the order of the manual */
static void (*const option_tables[])(hx_optset *s) = {
    hx_cmd_box_opts,    hx_cmd_quality_opts, hx_cmd_convert_opts, hx_cmd_demo_opts,       hx_cmd_optimize_opts,
    hx_cmd_pebble_opts, hx_cmd_pack_opts,    hx_cmd_rods_opts,    hx_cmd_bench_tmop_opts, hx_cmd_bench_kernels_opts,
};
static const int num_option_tables = (int)(sizeof option_tables / sizeof option_tables[0]);

static void print_man(FILE *out) {
  fprintf(out,
          ".TH HEXPACK 1 \"\" \"hexpack %s\" \"User Commands\"\n"
          ".SH NAME\nhexpack \\- curved high\\-order all\\-hex meshes, TMOP optimization, solver formats\n"
          ".SH SYNOPSIS\n.B hexpack\n.I command\n[options]\n.SH DESCRIPTION\n"
          "hexpack meshes packed beds of spheres and rod bundles with curved high\\-order hexahedra, optimizes meshes\n"
          "with TMOP, checks their quality and writes them in the formats of Nek5000, MFEM, Gmsh, VTK and Exodus.\n"
          "The output format follows the file extension of each\n.B \\-o\nFILE.\n.SH COMMANDS\n",
          HX_VERSION);
  for (int c = 0; c < num_commands; c++) fprintf(out, ".TP\n.B %s\n%s\n", commands[c].name, commands[c].summary);
  fprintf(out, ".SH OPTIONS\n");
  hx_optset *s = malloc(sizeof *s);
  for (int t = 0; s && t < num_option_tables; t++) option_tables[t](s), hx_opts_man(s, out);
  free(s);
  fprintf(out,
          ".SH EXIT STATUS\n0 on success; otherwise non\\-zero, with one line on stderr naming the file, line or flag.\n"
          ".SH SEE ALSO\nThe pages under docs/ in the source tree: docs/json.md (the \\-\\-json documents), docs/pebble.md,\n"
          "docs/rods.md, docs/optimizer.md, docs/formats.md.\n");
}

static void print_completion(FILE *out) {
  fprintf(out, "# bash completion for hexpack (hexpack --completion bash)\n"
               "_hexpack() {\n"
               "  local cur prev cmd flags\n"
               "  cur=\"${COMP_WORDS[COMP_CWORD]}\"; prev=\"${COMP_WORDS[COMP_CWORD-1]}\"; cmd=\"${COMP_WORDS[1]}\"\n"
               "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
               "    COMPREPLY=($(compgen -W \"");
  for (int c = 0; c < num_commands; c++) fprintf(out, "%s ", commands[c].name);
  fprintf(out, "--help --version --man --completion --options\" -- \"$cur\")); return\n"
               "  fi\n"
               "  if [ \"$cmd\" = bench ]; then\n"
               "    if [ \"$COMP_CWORD\" -eq 2 ]; then COMPREPLY=($(compgen -W \"tmop kernels\" -- \"$cur\")); return; fi\n"
               "    cmd=\"bench ${COMP_WORDS[2]}\"\n"
               "  fi\n"
               "  case \"$cmd\" in\n");
  hx_optset *s = malloc(sizeof *s);
  for (int t = 0; s && t < num_option_tables; t++) option_tables[t](s), hx_opts_completion(s, out);
  free(s);
  fprintf(out, "  *) return ;;\n"
               "  esac\n"
               "  if [[ \"$cur\" == -* ]]; then COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n"
               "  else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n"
               "}\n"
               "complete -o filenames -F _hexpack hexpack\n");
}

static void print_options(FILE *out) {
  fprintf(out, "{\"schema_version\": %d, \"commands\": [", HX_JSON_SCHEMA_VERSION);
  hx_optset *s = malloc(sizeof *s);
  for (int t = 0; s && t < num_option_tables; t++) {
    option_tables[t](s);
    fprintf(out, "%s\n", t ? "," : "");
    hx_opts_table_json(s, out);
  }
  free(s);
  fprintf(out, "]}\n");
}

static int mpi_started;

static hx_comm world(void) {
#if HX_HAVE_MPI
  return MPI_COMM_WORLD;
#else
  return HX_COMM_SELF;
#endif
}

void hx_cli_mpi_start(void) {
  if (mpi_started) return;
  mpi_started = 1;
#if HX_HAVE_MPI
  MPI_Init(NULL, NULL);
#endif
  /* progress on stderr, from rank 0 only */
  hx_progress_enable(hx_comm_rank(world()) == 0);
  /* on a host with several GPUs its ranks take one each in turn (before any CUDA work) */
  int host_rank = 0;
  if (hx_comm_size(world()) > 1 && !hx_comm_host_rank(world(), &host_rank)) hx_cuda_select_device(host_rank);
}

/* this process's rank; before MPI started (a bad flag), the launcher's word for it, so that
   under mpirun one rank says the error */
static int cli_rank(hx_comm comm) {
  if (mpi_started) return hx_comm_rank(comm);
  static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
  for (int k = 0; k < 3; k++)
    if (getenv(vars[k])) return atoi(getenv(vars[k]));
  return 0;
}

int main(int argc, char **argv) {
  /* human messages and logs line by line, also into a file or a pipe (batch jobs) */
  setvbuf(stdout, NULL, _IOLBF, 0);
  setvbuf(stderr, NULL, _IOLBF, 0);
  /* what comes from the tables alone: no MPI, no work */
  if (argc == 2 && !strcmp(argv[1], "--man")) {
    print_man(stdout);
    return 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "--completion")) {
    if (argc == 3 && !strcmp(argv[2], "bash")) {
      print_completion(stdout);
      return 0;
    }
    fprintf(stderr, "hexpack: error: flag --completion expects bash, got '%s'\n", argc > 2 ? argv[2] : "");
    return 2;
  }
  if (argc == 2 && !strcmp(argv[1], "--options")) {
    print_options(stdout);
    return 0;
  }
  /* MPI starts once a command's flags are parsed (hx_cli_mpi_start): --help, --dry-run and a
     bad flag need no MPI */
  hx_comm comm = HX_COMM_SELF;
#if HX_HAVE_MPI
  comm = MPI_COMM_WORLD;
#endif
  int rc = HX_OK;
  /* SIGINT, SIGTERM, SIGHUP: remove the temporary files of the outputs being written */
  hx_outset_signals();
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    print_help(stdout);
    rc = argc < 2 ? HX_ERR_INPUT : HX_OK;
    if (argc < 2) fprintf(stderr, "hexpack: error: no command given\n");
    goto done;
  }
  if (!strcmp(argv[1], "--version")) {
    /* version, commit and features (core/build.c); --json: one JSON object */
    int json = argc == 3 && !strcmp(argv[2], "--json");
    if (argc > 2 && !json) rc = HX_ERROR(HX_ERR_INPUT, "flag --version: takes only --json, got '%s'", argv[2]);
    else if (cli_rank(comm) == 0) hx_build_print(stdout, json ? HX_JSON_SCHEMA_VERSION : 0);
    goto report;
  }
  const hx_command *cmd = NULL;
  for (int c = 0; c < num_commands; c++)
    if (!strcmp(argv[1], commands[c].name)) cmd = &commands[c];
  if (!cmd) {
    char known[512] = "";
    for (int c = 0; c < num_commands; c++) {
      if (!commands[c].run) continue;
      if (known[0]) strcat(known, ", ");
      strcat(known, commands[c].name);
    }
    rc = HX_ERROR(HX_ERR_INPUT, "unknown command '%s'; known: %s", argv[1], known);
  } else if (!cmd->run) {
    rc = HX_ERROR(HX_ERR_INPUT, "command '%s' is not built yet", cmd->name);
  } else {
    rc = cmd->run(comm, argc - 1, argv + 1);
  }
report:
  hx_cli_json_end(rc, cli_rank(comm)); /* the one --json document, also for a failed run */
  if (rc != HX_OK && cli_rank(comm) == 0) {
    fprintf(stderr, "hexpack: error: %s\n", hx_error_message()[0] ? hx_error_message() : hx_status_name(rc));
    if (hx_verbosity() > 0) fprintf(stderr, "  (raised at %s)\n", hx_error_where());
  }
done:
  hx_outset_cleanup(); /* no temporary outlives the program */
#if HX_HAVE_MPI
  if (mpi_started) MPI_Finalize();
#endif
  return rc == HX_OK ? 0 : (rc < 100 ? 1 + rc : 1);
}
