#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hx_cli.h"
#include "hx_error.h"
#include "hx_io.h"

int hx_cli_value(int argc, char **argv, int *i, const char **val) {
  HX_CHECK(*i + 1 < argc, HX_ERR_INPUT, "flag %s needs a value", argv[*i]);
  *i += 1;
  *val = argv[*i];
  return HX_OK;
}

int hx_cli_int(const char *flag, const char *s, long lo, long hi, int *out) {
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  HX_CHECK(end != s && *end == '\0' && errno == 0, HX_ERR_INPUT, "flag %s expects an integer, got '%s'", flag, s);
  HX_CHECK(v >= lo && v <= hi, HX_ERR_INPUT, "flag %s must be in %ld..%ld, got %ld", flag, lo, hi, v);
  *out = (int)v;
  return HX_OK;
}

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

int hx_cli_int_list(const char *flag, const char *s, int max, long lo, long hi, int *out, int *count) {
  char items[16][64];
  HX_CHECK(max <= 16, HX_ERR_INTERNAL, "list too long");
  HX_CALL(split_list(flag, s, max, items, count));
  for (int k = 0; k < *count; k++) HX_CALL(hx_cli_int(flag, items[k], lo, hi, &out[k]));
  return HX_OK;
}

int hx_cli_double_list(const char *flag, const char *s, int max, int *out_count, double *out) {
  char items[16][64];
  HX_CHECK(max <= 16, HX_ERR_INTERNAL, "list too long");
  HX_CALL(split_list(flag, s, max, items, out_count));
  for (int k = 0; k < *out_count; k++) HX_CALL(hx_cli_double(flag, items[k], -HUGE_VAL, HUGE_VAL, &out[k]));
  return HX_OK;
}

int hx_cli_common_flag(int argc, char **argv, int *i, hx_cli_common *c) {
  const char *a = argv[*i], *v = NULL;
  int rc;
  if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
    if ((rc = hx_cli_value(argc, argv, i, &v))) return -rc;
    if (c->num_out >= HX_CLI_MAX_OUT) return -HX_ERROR(HX_ERR_INPUT, "at most %d -o outputs", HX_CLI_MAX_OUT);
    c->out[c->num_out++] = v;
    return 1;
  }
  if (!strcmp(a, "--json")) {
    c->json = 1;
    return 1;
  }
  if (!strcmp(a, "--force")) {
    c->force = 1;
    return 1;
  }
  if (!strcmp(a, "--ascii")) {
    c->ascii = 1;
    return 1;
  }
  if (!strcmp(a, "--co2")) {
    c->co2 = 1;
    return 1;
  }
  if (!strcmp(a, "--mfem-nodes")) {
    if ((rc = hx_cli_value(argc, argv, i, &v))) return -rc;
    if (!strcmp(v, "h1")) c->mfem_h1 = 1;
    else if (!strcmp(v, "l2")) c->mfem_h1 = 0;
    else return -HX_ERROR(HX_ERR_INPUT, "flag --mfem-nodes expects h1 or l2, got '%s'", v);
    return 1;
  }
  if (!strcmp(a, "--compress")) {
    c->compress = 1;
    /* an optional level 1..9 may follow */
    if (*i + 1 < argc && argv[*i + 1][0] >= '1' && argv[*i + 1][0] <= '9' && argv[*i + 1][1] == '\0') {
      *i += 1;
      c->compress = argv[*i][0] - '0';
    }
    return 1;
  }
  if (!strcmp(a, "--optimize")) {
    c->optimize = 1;
    return 1;
  }
  if (!strcmp(a, "--point-window")) {
    double w;
    if ((rc = hx_cli_value(argc, argv, i, &v))) return -rc;
    if ((rc = hx_cli_double("--point-window", v, 1, 9e15, &w))) return -rc;
    c->point_window = (long long)w;
    return 1;
  }
  if (!strcmp(a, "--assume-free-bytes")) {
    if ((rc = hx_cli_value(argc, argv, i, &v))) return -rc;
    if ((rc = hx_cli_double("--assume-free-bytes", v, 1, 1e30, &c->assume_free_bytes))) return -rc;
    return 1;
  }
  if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
    hx_set_verbosity(hx_verbosity() + 1);
    return 1;
  }
  if (!strcmp(a, "--order") || !strcmp(a, "-N")) {
    if ((rc = hx_cli_value(argc, argv, i, &v))) return -rc;
    if ((rc = hx_cli_int("--order", v, 1, HX_MAX_ORDER, &c->order))) return -rc;
    return 1;
  }
  return 0;
}

int hx_cli_unknown_flag(const char *cmd, const char *flag) {
  return HX_ERROR(HX_ERR_INPUT, "unknown flag '%s' for 'hexpack %s' (see 'hexpack %s --help')", flag, cmd, cmd);
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

int hx_cli_is_tty(void) { return isatty(2); }
