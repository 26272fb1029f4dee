#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_cli.h"
#include "hx_error.h"
#include "hx_io.h"

int hx_cli_double(const char *flag, const char *s, double lo, double hi, double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  HX_CHECK(end != s && *end == '\0' && errno == 0 && isfinite(v), HX_ERR_INPUT, "flag %s expects a finite number, got '%s'", flag,
           s);
  HX_CHECK(v >= lo && v <= hi, HX_ERR_INPUT, "flag %s must be in [%g, %g], got %g", flag, lo, hi, v);
  *out = v;
  return HX_OK;
}

static int split_list(const char *flag, const char *s, int max, char items[][64], int *count) {
  int n = 0;
  const char *p = s;
  while (1) {
    const char *c = strchr(p, ',');
    size_t len = c ? (size_t)(c - p) : strlen(p);
    HX_CHECK(n < max, HX_ERR_INPUT, "flag %s takes at most %d comma-separated values, got '%s'", flag, max, s);
    HX_CHECK(len > 0 && len < 64, HX_ERR_INPUT, "flag %s has an empty or overlong value in '%s'", flag, s);
    memcpy(items[n], p, len);
    items[n][len] = '\0';
    n++;
    if (!c) break;
    p = c + 1;
  }
  *count = n;
  return HX_OK;
}

int hx_cli_double_list(const char *flag, const char *s, int max, int *out_count, double *out) {
  char items[16][64];
  HX_CHECK(max <= 16, HX_ERR_INTERNAL, "list too long");
  HX_CALL(split_list(flag, s, max, items, out_count));
  for (int k = 0; k < *out_count; k++) HX_CALL(hx_cli_double(flag, items[k], -HUGE_VAL, HUGE_VAL, &out[k]));
  return HX_OK;
}

const hx_opt hx_cli_output_table[] = {
    {"--output", "-o", HX_OPT_STRING, "FILE", NULL, 0, 0, 1, 1, NULL, HX_OPT_REPEAT,
     "write the mesh to FILE, the format from its extension (.re2 .msh .vtu .pvtu .mesh .exo); several allowed", NULL},
    {"--order", "-N", HX_OPT_INT, "N", "1", 1, HX_MAX_ORDER, 1, 1, NULL, 0, "geometry order of the mesh written", NULL},
    HX_FLAG("--force", 0, "write the mesh even where det J <= 0 (the exit status still says so)"),
    HX_FLAG("--ascii", 0, "text form of .msh and .vtu outputs"),
    {"--compress", NULL, HX_OPT_INT, "LEVEL", "0", 0, 9, 1, 1, NULL, HX_OPT_OPTVAL,
     "zlib-compressed .vtu data, level 1..9 (bare: 1; 0: off)", NULL},
    HX_FLAG("--co2", 0, "also write the Nek5000 .co2 connectivity next to a .re2"),
    HX_CHOICE("--mfem-nodes", "l2|h1", "l2", 0, "MFEM .mesh nodes: L2 per element or MFEM's continuous H1 space"),
    HX_DBL("--point-window", "N", "16777216", 1, 9e15, HX_OPT_EXPERT, "points per pass of the writers that put points in order"),
    HX_DBL("--assume-free-bytes", "B", NULL, 1, 1e30, HX_OPT_EXPERT,
           "the free space the pre-write space check takes, in bytes (default: the filesystem's)"),
    {0},
};

static int has(const hx_optset *s, const char *name) {
  for (int k = 0; k < s->num; k++)
    if (!strcmp(s->opt[k].name, name)) return 1;
  return 0;
}

int hx_cli_common_get(const hx_optset *s, hx_cli_common *c) {
  memset(c, 0, sizeof *c);
  c->json = hx_opts_given(s, "--json") > 0;
  if (has(s, "--output")) c->num_out = hx_opts_all(s, "--output", c->out, HX_CLI_MAX_OUT);
  HX_CHECK(!has(s, "--output") || hx_opts_given(s, "--output") <= HX_CLI_MAX_OUT, HX_ERR_INPUT, "at most %d -o outputs",
           HX_CLI_MAX_OUT);
  if (has(s, "--order")) hx_opts_int(s, "--order", &c->order);
  if (has(s, "--optimize")) c->optimize = hx_opts_given(s, "--optimize") > 0;
  if (!has(s, "--ascii")) return HX_OK; /* the output forms */
  c->force = hx_opts_given(s, "--force") > 0;
  c->ascii = hx_opts_given(s, "--ascii") > 0;
  c->co2 = hx_opts_given(s, "--co2") > 0;
  hx_opts_int(s, "--compress", &c->compress);
  c->mfem_h1 = hx_opts_choice(s, "--mfem-nodes") == 1;
  double w = 0;
  if (hx_opts_double(s, "--point-window", &w)) c->point_window = (long long)w;
  hx_opts_double(s, "--assume-free-bytes", &c->assume_free_bytes);
  return HX_OK;
}

int hx_cli_check_outputs(hx_comm comm, const hx_cli_common *c, int order) {
  int rc = HX_OK;
  /* rank 0 probes the directories (every rank writes to the same file system) */
  if (hx_comm_rank(comm) == 0) rc = hx_export_check_paths(c->out, c->num_out, order);
  return hx_comm_agree(comm, rc);
}

int hx_cli_write_outputs(const hx_mesh *m, const hx_cli_common *c) {
  hx_export_opts eo;
  hx_export_opts_default(&eo);
  eo.force = c->force;
  eo.checked = c->checked;
  eo.binary = !c->ascii;
  eo.compress = c->compress;
  eo.co2 = c->co2;
  eo.mfem_h1 = c->mfem_h1;
  eo.point_window = c->point_window;
  eo.free_bytes = c->assume_free_bytes;
  eo.order = c->order ? c->order : m->order;
  /* every output's format, order and directory before writing any ... */
  HX_CALL(hx_cli_check_outputs(m->comm, c, eo.order));
  /* ... and their estimated sizes against the free space, all outputs on one filesystem together */
  if (c->num_out) HX_CALL(hx_export_check_space(m, c->out, c->num_out, &eo));
  /* one output set: every file under a temporary name, all renamed once all are written */
  hx_outset_begin();
  int rc = HX_OK;
  for (int k = 0; k < c->num_out && rc == HX_OK; k++) rc = hx_export(m, c->out[k], &eo);
  return hx_outset_end(m->comm, rc);
}

void hx_cli_json_outputs(const hx_cli_common *c) {
  FILE *f = hx_cli_json_key("outputs");
  if (!f) return;
  fprintf(f, "[");
  for (int k = 0; k < c->num_out; k++) fprintf(f, "%s", k ? ", " : ""), hx_cli_json_string(f, c->out[k]);
  fprintf(f, "]");
}
