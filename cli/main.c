/* hexpack: the command line. Subcommands are registered in one table; the
   help text and the "unknown subcommand" error are both printed from it. */
#include <stdio.h>
#include <string.h>

#include "hx_build.h"
#include "hx_cli.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_io.h"
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
  fprintf(out, "\ncommon options: -o FILE (format from the extension; several allowed), --order N,\n"
               "  --json, --force (write even with det J <= 0), -v (verbose), --help;\n"
               "  output forms: --ascii (.msh/.vtu text), --compress [LEVEL] (.vtu zlib), --co2 (.re2 + .co2),\n"
               "                --mfem-nodes h1|l2 (.mesh nodes: MFEM's continuous H1 space or L2 per element, the default)\n"
               "  expert (tests): --point-window N (points per pass of the writers that put points in order;\n"
               "  default 2^24), --assume-free-bytes B (the free space the pre-write space check takes)\n");
}

int main(int argc, char **argv) {
  hx_comm comm = HX_COMM_SELF;
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  comm = MPI_COMM_WORLD;
#endif
  int rc = HX_OK;
  /* SIGINT, SIGTERM, SIGHUP: remove the temporary files of the outputs being written */
  hx_outset_signals();
  /* progress bars on a terminal, from rank 0 only */
  hx_progress_enable(hx_comm_rank(comm) == 0);
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
    else if (hx_comm_rank(comm) == 0) hx_build_print(stdout, json);
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
  if (rc != HX_OK && hx_comm_rank(comm) == 0) {
    fprintf(stderr, "hexpack: error: %s\n", hx_error_message()[0] ? hx_error_message() : hx_status_name(rc));
    if (hx_verbosity() > 0) fprintf(stderr, "  (raised at %s)\n", hx_error_where());
  }
done:
  hx_outset_cleanup(); /* no temporary outlives the program */
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return rc == HX_OK ? 0 : (rc < 100 ? 1 + rc : 1);
}
