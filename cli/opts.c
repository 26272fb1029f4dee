/* Option tables (hx_cli.h): the one parser of every command's flags, and what is printed
   from the tables: --help, the man page, the bash completion, the JSON list of the tables
   and the "options" echo of --json.

   design:
   1. a command builds its hx_optset from rows (its own and the shared tables), then
      overrides the defaults that are its own (hx_opts_default);
   2. hx_opts_parse checks every value against its row as it comes (type, range, choices,
      list length), so a bad value fails in one line before any work;
   3. the command reads each value back (given, else the row's default) with the typed
      accessors; a default is written nowhere but in its row. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_cli.h"
#include "hx_error.h"
#include "hx_progress.h"

enum { HX_OPT_BASE = 1u << 8 }; /* rows every command has (printed after the command's own) */

static const hx_opt base_table[] = {
    {"--help", "-h", HX_OPT_FLAG, NULL, NULL, 0, 0, 0, 0, NULL, HX_OPT_BASE, "print this help and exit", NULL},
    {"--json", NULL, HX_OPT_FLAG, NULL, NULL, 0, 0, 0, 0, NULL, HX_OPT_BASE,
     "print one JSON document on stdout (docs/json.md); human messages go to stderr", NULL},
    {"--verbose", "-v", HX_OPT_FLAG, NULL, NULL, 0, 0, 0, 0, NULL, HX_OPT_BASE | HX_OPT_REPEAT,
     "more messages (an error also says where it was raised)", NULL},
    {"--progress-interval", NULL, HX_OPT_DOUBLE, "S", "5", 0, 3600, 1, 1, NULL, HX_OPT_BASE | HX_OPT_EXPERT,
     "seconds between the plain progress lines on stderr when it is not a terminal (0: none)", NULL},
    {"--dry-run", NULL, HX_OPT_FLAG, NULL, NULL, 0, 0, 0, 0, NULL, HX_OPT_BASE | HX_OPT_EXPERT,
     "check the flags, print the options the run would use, and stop", NULL},
    {0},
};

void hx_opts_init(hx_optset *s, const char *cmd, const char *usage, const char *about) {
  memset(s, 0, sizeof *s);
  s->cmd = cmd, s->usage = usage, s->about = about;
  hx_opts_add(s, base_table);
}

static int find(const hx_optset *s, const char *name) {
  for (int k = 0; k < s->num; k++)
    if (!strcmp(s->opt[k].name, name) || (s->opt[k].alias && !strcmp(s->opt[k].alias, name))) return k;
  return -1;
}

/* a row the command asks for that is not in its table: our bug, said loudly */
static int need(const hx_optset *s, const char *name) {
  int k = find(s, name);
  if (k < 0) fprintf(stderr, "hexpack: internal error: flag %s is not in the table of '%s'\n", name, s->cmd);
  return k;
}

void hx_opts_add(hx_optset *s, const hx_opt *table) {
  for (const hx_opt *r = table; r->name; r++) {
    if (find(s, r->name) >= 0) continue;
    if (s->num >= HX_OPTS_MAX) {
      fprintf(stderr, "hexpack: internal error: more than %d flags for '%s'\n", HX_OPTS_MAX, s->cmd);
      return;
    }
    s->opt[s->num++] = *r;
  }
}

void hx_opts_default(hx_optset *s, const char *name, const char *def) {
  int k = need(s, name);
  if (k >= 0) s->opt[k].def = def;
}

void hx_opts_help_line(hx_optset *s, const char *name, const char *help) {
  int k = need(s, name);
  if (k >= 0) s->opt[k].help = help;
}

void hx_opts_remove(hx_optset *s, const char *name) {
  int k = need(s, name);
  if (k < 0) return;
  memmove(&s->opt[k], &s->opt[k + 1], (size_t)(s->num - k - 1) * sizeof s->opt[0]);
  s->num--;
}

/* ------------------------------------------------------------------ checking values */

static int takes_value(const hx_opt *o) { return o->type != HX_OPT_FLAG; }

/* a number that is not a word: the default is a rule (auto, input) when this is 0 */
static int parse_long(const char *t, long *v) {
  char *end = NULL;
  errno = 0;
  *v = strtol(t, &end, 10);
  return end != t && *end == '\0' && errno == 0;
}

static int parse_double(const char *t, double *v) {
  char *end = NULL;
  errno = 0;
  *v = strtod(t, &end);
  return end != t && *end == '\0' && errno == 0 && isfinite(*v);
}

/* the allowed range in words: "1..999", "[0, 1]", "> 0", "any finite number" */
static void range_text(const hx_opt *o, int integer, char *buf, size_t cap) {
  if (integer) snprintf(buf, cap, "%.0f..%.0f", o->lo, o->hi);
  else if (o->lo <= -1e300 && o->hi >= 1e300) snprintf(buf, cap, "any finite number");
  else if (o->hi >= 1e300) snprintf(buf, cap, o->lo > 0 && o->lo <= 1e-300 ? "> 0" : ">= %g", o->lo);
  else if (o->lo <= -1e300) snprintf(buf, cap, "<= %g", o->hi);
  else snprintf(buf, cap, "[%g, %g]", o->lo, o->hi);
}

/* the length of the choices --help shows (up to ';') */
static int shown(const char *choices) { return (int)strcspn(choices, ";"); }

/* "a or b", "a, b or c" from "a|b|c" */
static void choices_text(const char *choices, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  const char *p = choices, *end = choices + shown(choices);
  while (p < end && n + 1 < cap) {
    size_t len = strcspn(p, "|;");
    const char *next = p + len < end ? p + len + 1 : end;
    const char *sep = p == choices ? "" : (next < end ? ", " : " or ");
    n += (size_t)snprintf(buf + n, cap - n, "%s%.*s", sep, (int)len, p);
    p = next;
  }
}

/* the index of v among choices "a|b;c|d" (the words after ';' are accepted spellings that
   --help does not show: --quad-type 1 for gll) */
static int choice_index(const char *choices, const char *v) {
  int k = 0;
  size_t vl = strlen(v);
  for (const char *p = choices; *p; k++) {
    size_t len = strcspn(p, "|;");
    if (len == vl && !strncmp(p, v, len)) return k;
    p += len + (p[len] != 0);
  }
  return -1;
}

/* one number of flag o (a single value or one item of a list) */
static int check_number(const hx_opt *o, const char *flag, const char *t) {
  int integer = o->type == HX_OPT_INT || o->type == HX_OPT_INTS;
  char range[96];
  range_text(o, integer, range, sizeof range);
  if (integer) {
    long v;
    HX_CHECK(parse_long(t, &v), HX_ERR_INPUT, "flag %s expects an integer, got '%s' (allowed: %s)", flag, t, range);
    HX_CHECK(v >= o->lo && v <= o->hi, HX_ERR_INPUT, "flag %s must be in %s, got %s", flag, range, t);
  } else {
    double v;
    HX_CHECK(parse_double(t, &v), HX_ERR_INPUT, "flag %s expects a finite number, got '%s' (allowed: %s)", flag, t, range);
    HX_CHECK(v >= o->lo && v <= o->hi, HX_ERR_INPUT, "flag %s must be in %s, got %s", flag, range, t);
  }
  return HX_OK;
}

static int check_type(const hx_opt *o, const char *flag, const char *v) {
  switch (o->type) {
  case HX_OPT_INT:
  case HX_OPT_DOUBLE: return check_number(o, flag, v);
  case HX_OPT_CHOICE:
    /* a row with its own check (a registry) says its own message */
    if (choice_index(o->choices, v) < 0 && o->check) HX_CALL(o->check(flag, v));
    if (choice_index(o->choices, v) < 0) {
      char words[256];
      choices_text(o->choices, words, sizeof words);
      return HX_ERROR(HX_ERR_INPUT, "flag %s expects %s, got '%s'", flag, words, v);
    }
    return HX_OK;
  case HX_OPT_STRING:
    HX_CHECK(*v, HX_ERR_INPUT, "flag %s expects %s, got an empty value", flag, o->meta ? o->meta : "a value");
    return HX_OK;
  case HX_OPT_INTS:
  case HX_OPT_DOUBLES: {
    int n = 0;
    for (const char *p = v;; n++) {
      size_t len = strcspn(p, ",");
      char item[64];
      HX_CHECK(len > 0 && len < sizeof item, HX_ERR_INPUT, "flag %s has an empty or overlong value in '%s' (expected %s)", flag,
               v, o->meta);
      memcpy(item, p, len), item[len] = 0;
      HX_CHECK(n < o->nmax, HX_ERR_INPUT, "flag %s takes at most %d comma-separated values (%s), got '%s'", flag, o->nmax,
               o->meta, v);
      HX_CALL(check_number(o, flag, item));
      if (!p[len]) break;
      p += len + 1;
    }
    HX_CHECK(n + 1 >= o->nmin, HX_ERR_INPUT, "flag %s takes at least %d comma-separated values (%s), got '%s'", flag, o->nmin,
             o->meta, v);
    return HX_OK;
  }
  default: return HX_OK;
  }
}

/* the type's checks, then the row's own (a registry: metrics, backends); a word default (a
   rule: auto, input) may be given by name */
static int check_value(const hx_opt *o, const char *flag, const char *v) {
  double d;
  if (o->def && o->type != HX_OPT_CHOICE && !strcmp(v, o->def) && !parse_double(v, &d)) return HX_OK;
  HX_CALL(check_type(o, flag, v));
  return o->check ? o->check(flag, v) : HX_OK;
}

int hx_opts_flag_error(const char *flag, int rc) {
  if (rc == HX_OK) return rc;
  char msg[512];
  snprintf(msg, sizeof msg, "%s", hx_error_message());
  hx_error_clear(); /* the first error is kept: replace it */
  return HX_ERROR(rc, "flag %s: %s", flag, msg);
}

/* ------------------------------------------------------------------ the closest flag */

static int edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63) return 99;
  int d[64][64];
  for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= la; i++)
    for (size_t j = 1; j <= lb; j++) {
      int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
      d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
  return d[la][lb];
}

static const char *closest(const hx_optset *s, const char *flag) {
  const char *best = NULL;
  int bd = 1 << 20;
  for (int k = 0; k < s->num; k++) {
    int d = edit_distance(flag, s->opt[k].name);
    if (d < bd) bd = d, best = s->opt[k].name;
  }
  return best;
}

/* ------------------------------------------------------------------ parsing */

static int store(hx_optset *s, int k, const char *v, int where) {
  const hx_opt *o = &s->opt[k];
  if ((o->flags & HX_OPT_REPEAT) && takes_value(o)) {
    HX_CHECK(s->num_values < HX_OPTS_MAX_VALUES, HX_ERR_INPUT, "flag %s given more than %d times", o->name, HX_OPTS_MAX_VALUES);
    s->values[s->num_values] = v;
    s->value_opt[s->num_values++] = k;
  }
  s->val[k] = v;
  s->count[k]++;
  s->where[k] = where;
  return HX_OK;
}

static int parse(hx_optset *s, int argc, char **argv, int first);

int hx_opts_parse(hx_optset *s, int argc, char **argv, int first) {
  int rc = parse(s, argc, argv, first);
  /* a bad command line still gets its one (error) document where --json was asked for */
  for (int i = first; rc && i < argc; i++)
    if (!strcmp(argv[i], "--json")) hx_cli_json_begin(s);
  return rc;
}

static int parse(hx_optset *s, int argc, char **argv, int first) {
  for (int i = first; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      hx_opts_help(s, stdout);
      s->stop = 1;
      return HX_OK;
    }
  for (int i = first; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || !a[1]) { /* a file ("-" too) */
      HX_CHECK(s->num_args < HX_OPTS_MAX_ARGS, HX_ERR_INPUT, "'hexpack %s' takes at most %d file arguments, got '%s'", s->cmd,
               HX_OPTS_MAX_ARGS, a);
      s->args[s->num_args++] = a;
      continue;
    }
    /* --flag=value is --flag value */
    char name[64];
    const char *v = NULL, *eq = a[1] == '-' ? strchr(a, '=') : NULL;
    size_t nl = eq ? (size_t)(eq - a) : strlen(a);
    if (nl >= sizeof name) nl = sizeof name - 1;
    memcpy(name, a, nl), name[nl] = 0;
    int k = find(s, name);
    if (k < 0)
      return HX_ERROR(HX_ERR_INPUT, "unknown flag '%s' for 'hexpack %s'; the closest is %s (see 'hexpack %s --help')", name,
                      s->cmd, closest(s, name), s->cmd);
    const hx_opt *o = &s->opt[k];
    if (!takes_value(o)) {
      HX_CHECK(!eq, HX_ERR_INPUT, "flag %s takes no value, got '%s'", o->name, a);
      HX_CALL(store(s, k, NULL, i));
      continue;
    }
    if (eq) v = eq + 1;
    else if (o->flags & HX_OPT_OPTVAL) {
      /* a single digit 1..9 may follow */
      v = "1";
      if (i + 1 < argc && argv[i + 1][0] >= '1' && argv[i + 1][0] <= '9' && argv[i + 1][1] == '\0') v = argv[++i];
    } else {
      HX_CHECK(i + 1 < argc, HX_ERR_INPUT, "flag %s needs a value (%s)", a, o->meta ? o->meta : o->choices);
      v = argv[++i];
    }
    HX_CALL(check_value(o, name, v));
    HX_CALL(store(s, k, v, i));
  }
  int verbose = hx_opts_given(s, "--verbose");
  if (verbose) hx_set_verbosity(hx_verbosity() + verbose);
  if (hx_opts_given(s, "--json")) hx_cli_json_begin(s);
  double interval = 5;
  hx_opts_double(s, "--progress-interval", &interval);
  hx_progress_set_interval(interval);
  if (!hx_opts_given(s, "--dry-run")) hx_cli_mpi_start(); /* the work begins */
  if (hx_opts_given(s, "--dry-run")) {
    s->stop = 1;
    if (!hx_cli_json_on()) {
      printf("hexpack %s: the options of this run (dry run, no work done):\n", s->cmd);
      for (int k = 0; k < s->num; k++) {
        const hx_opt *o = &s->opt[k];
        if (o->flags & HX_OPT_BASE) continue;
        const char *v = hx_opts_str(s, o->name);
        if (o->type == HX_OPT_FLAG) printf("  %-24s %s\n", o->name, s->count[k] ? "on" : "off");
        else printf("  %-24s %s%s\n", o->name, v ? v : "(none)", s->count[k] ? "" : " (default)");
      }
      for (int a = 0; a < s->num_args; a++) printf("  argument %d: %s\n", a + 1, s->args[a]);
    }
  }
  return HX_OK;
}

/* ------------------------------------------------------------------ reading values back */

int hx_opts_given(const hx_optset *s, const char *name) {
  int k = need(s, name);
  return k < 0 ? 0 : s->count[k];
}

int hx_opts_where(const hx_optset *s, const char *name) {
  int k = need(s, name);
  return k < 0 ? 0 : s->where[k];
}

const char *hx_opts_str(const hx_optset *s, const char *name) {
  int k = need(s, name);
  if (k < 0) return NULL;
  return s->val[k] ? s->val[k] : s->opt[k].def;
}

int hx_opts_int(const hx_optset *s, const char *name, int *out) {
  const char *v = hx_opts_str(s, name);
  long x;
  if (!v || !parse_long(v, &x)) return 0;
  *out = (int)x;
  return 1;
}

int hx_opts_double(const hx_optset *s, const char *name, double *out) {
  const char *v = hx_opts_str(s, name);
  double x;
  if (!v || !parse_double(v, &x)) return 0;
  *out = x;
  return 1;
}

static int list_values(const char *v, double *out, int max) {
  int n = 0;
  for (const char *p = v; *p && n < max;) {
    char *end = NULL;
    out[n++] = strtod(p, &end);
    if (end == p) return 0; /* a word default */
    p = *end == ',' ? end + 1 : end;
  }
  return n;
}

int hx_opts_ints(const hx_optset *s, const char *name, int *out, int max) {
  const char *v = hx_opts_str(s, name);
  double d[HX_OPTS_MAX_VALUES];
  int n = v ? list_values(v, d, max < HX_OPTS_MAX_VALUES ? max : HX_OPTS_MAX_VALUES) : 0;
  for (int k = 0; k < n; k++) out[k] = (int)d[k];
  return n;
}

int hx_opts_doubles(const hx_optset *s, const char *name, double *out, int max) {
  const char *v = hx_opts_str(s, name);
  return v ? list_values(v, out, max) : 0;
}

int hx_opts_choice(const hx_optset *s, const char *name) {
  int k = need(s, name);
  const char *v = k < 0 ? NULL : hx_opts_str(s, name);
  return v ? choice_index(s->opt[k].choices, v) : -1;
}

int hx_opts_all(const hx_optset *s, const char *name, const char **out, int max) {
  int k = need(s, name), n = 0;
  for (int j = 0; j < s->num_values && n < max; j++)
    if (s->value_opt[j] == k) out[n++] = s->values[j];
  return n;
}

/* ------------------------------------------------------------------ JSON */

/* the shortest text that reads back as v */
static void shortest(double v, char *buf, size_t cap) {
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, cap, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

/* one value of row o as JSON: a number, a list of numbers, a string (a word), or null */
static void json_value(const hx_opt *o, const char *v, FILE *out) {
  long l;
  double d, x[HX_OPTS_MAX_VALUES];
  if (!v) {
    fprintf(out, "null");
  } else if (o->type == HX_OPT_INT && parse_long(v, &l)) {
    fprintf(out, "%ld", l);
  } else if (o->type == HX_OPT_DOUBLE && parse_double(v, &d)) {
    char b[32];
    shortest(d, b, sizeof b);
    fprintf(out, "%s", b);
  } else if ((o->type == HX_OPT_INTS || o->type == HX_OPT_DOUBLES) && list_values(v, x, HX_OPTS_MAX_VALUES) > 0) {
    int n = list_values(v, x, HX_OPTS_MAX_VALUES);
    fprintf(out, "[");
    for (int k = 0; k < n; k++) {
      char b[32];
      shortest(x[k], b, sizeof b);
      fprintf(out, "%s%s", k ? ", " : "", b);
    }
    fprintf(out, "]");
  } else {
    hx_cli_json_string(out, v);
  }
}

void hx_opts_echo_json(const hx_optset *s, FILE *out) {
  fprintf(out, "{");
  int first = 1;
  for (int k = 0; k < s->num; k++) {
    const hx_opt *o = &s->opt[k];
    if (!strcmp(o->name, "--help")) continue;
    fprintf(out, "%s\"%s\": ", first ? "" : ", ", o->name);
    first = 0;
    if (o->type == HX_OPT_FLAG) {
      if (o->flags & HX_OPT_REPEAT) fprintf(out, "%d", s->count[k]);
      else fprintf(out, "%s", s->count[k] ? "true" : "false");
    } else if (o->flags & HX_OPT_REPEAT) {
      fprintf(out, "[");
      for (int j = 0, n = 0; j < s->num_values; j++)
        if (s->value_opt[j] == k) fprintf(out, "%s", n++ ? ", " : ""), json_value(o, s->values[j], out);
      if (!s->count[k] && o->def) json_value(o, o->def, out); /* demo's demo.vtu */
      fprintf(out, "]");
    } else {
      json_value(o, hx_opts_str(s, o->name), out);
    }
  }
  fprintf(out, "}");
}

static const char *type_name(hx_opt_type t) {
  static const char *names[] = {"flag", "int", "double", "string", "choice", "int-list", "double-list"};
  return names[t];
}

void hx_opts_table_json(const hx_optset *s, FILE *out) {
  fprintf(out, "{\"command\": \"%s\", \"options\": [", s->cmd);
  for (int k = 0; k < s->num; k++) {
    const hx_opt *o = &s->opt[k];
    fprintf(out, "%s\n  {\"name\": \"%s\", \"alias\": ", k ? "," : "", o->name);
    if (o->alias) fprintf(out, "\"%s\"", o->alias);
    else fprintf(out, "null");
    fprintf(out, ", \"type\": \"%s\", \"group\": \"%s\", \"repeat\": %s, \"default\": ", type_name(o->type),
            o->flags & HX_OPT_EXPERT ? "expert" : "common", o->flags & HX_OPT_REPEAT ? "true" : "false");
    if (o->def) hx_cli_json_string(out, o->def);
    else fprintf(out, "null");
    if (o->type == HX_OPT_INT || o->type == HX_OPT_DOUBLE || o->type == HX_OPT_INTS || o->type == HX_OPT_DOUBLES)
      fprintf(out, ", \"min\": %.17g, \"max\": %.17g", o->lo, o->hi);
    if (o->type == HX_OPT_INTS || o->type == HX_OPT_DOUBLES)
      fprintf(out, ", \"count_min\": %d, \"count_max\": %d", o->nmin, o->nmax);
    if (o->type == HX_OPT_CHOICE) {
      fprintf(out, ", \"choices\": [");
      for (const char *p = o->choices, *end = o->choices + shown(o->choices); p < end;) {
        size_t len = strcspn(p, "|;");
        fprintf(out, "%s\"%.*s\"", p == o->choices ? "" : ", ", (int)len, p);
        p += len + (p < end);
      }
      fprintf(out, "]");
    }
    fprintf(out, ", \"help\": ");
    hx_cli_json_string(out, o->help);
    fprintf(out, "}");
  }
  fprintf(out, "]}");
}

/* ------------------------------------------------------------------ help, man, completion */

/* "--metric N", "-o, --output FILE", "--quad-type gll|gauss" */
static void flag_text(const hx_opt *o, char *buf, size_t cap) {
  size_t n = 0;
  if (o->alias) n += (size_t)snprintf(buf, cap, "%s, ", o->alias);
  n += (size_t)snprintf(buf + n, cap - n, "%s", o->name);
  if (o->type == HX_OPT_CHOICE) n += (size_t)snprintf(buf + n, cap - n, " %.*s", shown(o->choices), o->choices);
  else if (takes_value(o)) n += (size_t)snprintf(buf + n, cap - n, (o->flags & HX_OPT_OPTVAL) ? " [%s]" : " %s", o->meta);
}

enum { HELP_WIDTH = 100, HELP_COLUMN = 29 }; /* --help's lines at most; where a flag's help starts */

/* The len characters of t (one line) from column col on, wrapped at spaces so that no line
   passes HELP_WIDTH (a word longer than that stands alone); a continuation starts at column
   indent. Spaces inside [keep, keep_end) and inside square brackets do not break. */
static void wrap_line(FILE *out, const char *t, size_t len, int col, int indent, const char *keep, const char *keep_end) {
  const char *p = t, *end = t + len;
  while (p < end) {
    /* the longest run from p that fits, ending before a space that may break */
    const char *brk = NULL;
    int depth = 0;
    for (const char *q = p; q <= end; q++) {
      if (q < end) depth += (*q == '[') - (*q == ']');
      int breakable = q == end || (*q == ' ' && depth <= 0 && !(q >= keep && q < keep_end));
      if (!breakable) continue;
      if (col + (q - p) > HELP_WIDTH && brk) break;
      brk = q;
      if (col + (q - p) > HELP_WIDTH) break; /* one word longer than the width */
    }
    fprintf(out, "%.*s", (int)(brk - p), p);
    p = brk;
    while (p < end && *p == ' ') p++;
    if (p < end) fprintf(out, "\n%*s", indent, ""), col = indent;
  }
}

/* text of lines (each ending in a newline or the end), a line longer than HELP_WIDTH wrapped at
   its last space that fits: what is cut off goes before the next line where that continues the
   paragraph (the same indent, not empty), else on a line of its own (wrap_line) */
static void wrap_text(FILE *out, const char *t) {
  char carry[4096] = "", line[8192];
  while (*t || carry[0]) {
    size_t len = strcspn(t, "\n");
    int indent = (int)strspn(t, " "), cont = len > (size_t)indent && carry[0];
    if (carry[0] && !cont) { /* the cut-off part alone */
      wrap_line(out, carry, strlen(carry), 0, 0, NULL, NULL);
      fprintf(out, "\n");
      carry[0] = 0;
      continue;
    }
    int n = cont ? snprintf(line, sizeof line, "%*s%s %.*s", indent, "", carry, (int)(len - (size_t)indent), t + indent)
                 : snprintf(line, sizeof line, "%.*s", (int)len, t);
    n = n < (int)sizeof line ? n : (int)sizeof line - 1;
    carry[0] = 0;
    t += len + (t[len] == '\n');
    const char *cut = NULL;
    if (n > HELP_WIDTH && *t && t[strspn(t, " ")] != '\n' && (int)strspn(t, " ") == indent)
      for (const char *q = line + HELP_WIDTH; q > line + indent && !cut; q--)
        if (*q == ' ') cut = q;
    if (cut) {
      snprintf(carry, sizeof carry, "%s", cut + 1);
      n = (int)(cut - line);
    }
    wrap_line(out, line, (size_t)n, 0, indent, NULL, NULL);
    fprintf(out, "\n");
  }
}

static void help_rows(const hx_optset *s, FILE *out, int expert) {
  for (int pass = 0; pass < 2; pass++) /* the command's rows, then the ones every command has */
    for (int k = 0; k < s->num; k++) {
      const hx_opt *o = &s->opt[k];
      if (!(o->flags & HX_OPT_EXPERT) != !expert || !(o->flags & HX_OPT_BASE) != !pass) continue;
      char f[128], text[2048];
      flag_text(o, f, sizeof f);
      int col = strlen(f) <= 25 ? fprintf(out, "  %-26s ", f) : fprintf(out, "  %s  ", f);
      int n = snprintf(text, sizeof text, "%s", o->help), d = n;
      if (o->def) n += snprintf(text + n, sizeof text - (size_t)n, " (default: %s)", o->def);
      n = n < (int)sizeof text ? n : (int)sizeof text - 1;
      /* the help wrapped under the help column, "(default: X)" kept on one line */
      wrap_line(out, text, (size_t)n, col, HELP_COLUMN, text + d + 1, text + n);
      fprintf(out, "\n");
    }
}

void hx_opts_help(const hx_optset *s, FILE *out) {
  fprintf(out, "usage: hexpack ");
  wrap_line(out, s->usage, strlen(s->usage), 15, 15, NULL, NULL);
  fprintf(out, "\n\n");
  if (s->about) wrap_text(out, s->about), fprintf(out, "\n");
  fprintf(out, "options:\n");
  help_rows(s, out, 0);
  fprintf(out, "\nexpert options:\n");
  help_rows(s, out, 1);
  if (s->epilog) fprintf(out, "\n"), wrap_text(out, s->epilog);
}

/* text for troff: a leading '.' or '\'' guarded, '\' and '-' escaped */
static void man_text(FILE *out, const char *t) {
  if (*t == '.' || *t == '\'') fprintf(out, "\\&");
  for (; *t; t++) {
    if (*t == '\\') fprintf(out, "\\e");
    else if (*t == '-') fprintf(out, "\\-");
    else if (*t == '\n') fprintf(out, "\n.br\n%s", t[1] == '.' || t[1] == '\'' ? "\\&" : "");
    else fputc(*t, out);
  }
}

void hx_opts_man(const hx_optset *s, FILE *out) {
  fprintf(out, ".SS \"hexpack %s\"\n.B hexpack ", s->cmd);
  man_text(out, s->usage);
  fprintf(out, "\n.PP\n");
  if (s->about) man_text(out, s->about), fprintf(out, "\n");
  for (int expert = 0; expert < 2; expert++) {
    fprintf(out, ".PP\n%s\n", expert ? "Expert options:" : "Options:");
    for (int k = 0; k < 2 * s->num; k++) { /* the command's rows, then the ones every command has */
      const hx_opt *o = &s->opt[k % s->num];
      if (!(o->flags & HX_OPT_EXPERT) != !expert || !(o->flags & HX_OPT_BASE) != !(k >= s->num)) continue;
      char f[128];
      flag_text(o, f, sizeof f);
      fprintf(out, ".TP\n.B ");
      man_text(out, f);
      fprintf(out, "\n");
      man_text(out, o->help);
      char range[96] = "";
      if (o->type == HX_OPT_INT || o->type == HX_OPT_INTS) range_text(o, 1, range, sizeof range);
      if (o->type == HX_OPT_DOUBLE || o->type == HX_OPT_DOUBLES) range_text(o, 0, range, sizeof range);
      if (range[0]) fprintf(out, "; allowed: "), man_text(out, range);
      if (o->def) fprintf(out, "; default: "), man_text(out, o->def);
      fprintf(out, ".\n");
    }
  }
  if (s->epilog) fprintf(out, ".PP\n"), man_text(out, s->epilog), fprintf(out, "\n");
}

void hx_opts_completion(const hx_optset *s, FILE *out) {
  fprintf(out, "  \"%s\")\n    case \"$prev\" in\n", s->cmd);
  for (int k = 0; k < s->num; k++) {
    const hx_opt *o = &s->opt[k];
    if (!takes_value(o) || (o->flags & HX_OPT_OPTVAL)) continue;
    fprintf(out, "    %s%s%s) ", o->name, o->alias ? "|" : "", o->alias ? o->alias : "");
    if (o->type == HX_OPT_CHOICE) {
      fprintf(out, "COMPREPLY=($(compgen -W \"");
      for (const char *p = o->choices; p < o->choices + shown(o->choices); p++) fputc(*p == '|' ? ' ' : *p, out);
      fprintf(out, "\" -- \"$cur\")); return ;;\n");
    } else if (o->type == HX_OPT_STRING) {
      fprintf(out, "COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n");
    } else {
      fprintf(out, "COMPREPLY=(); return ;;\n");
    }
  }
  fprintf(out, "    *) flags=\"");
  for (int k = 0; k < s->num; k++)
    fprintf(out, "%s%s%s%s", k ? " " : "", s->opt[k].name, s->opt[k].alias ? " " : "", s->opt[k].alias ? s->opt[k].alias : "");
  fprintf(out, "\" ;;\n    esac ;;\n");
}

/* ------------------------------------------------------------------ defaults from code */

/* the text of defaults taken from a library's default function (append-only, process-wide:
   the tables live as long as the process) */
static char pool[1 << 16];
static size_t pool_used;

static const char *pool_text(const char *t) {
  size_t n = strlen(t) + 1;
  if (pool_used + n > sizeof pool) return "?";
  char *p = pool + pool_used;
  memcpy(p, t, n);
  pool_used += n;
  return p;
}

void hx_opts_default_int(hx_optset *s, const char *name, long v) {
  char b[32];
  snprintf(b, sizeof b, "%ld", v);
  hx_opts_default(s, name, pool_text(b));
}

void hx_opts_default_double(hx_optset *s, const char *name, double v) {
  char b[32];
  shortest(v, b, sizeof b);
  hx_opts_default(s, name, pool_text(b));
}

void hx_opts_default_list(hx_optset *s, const char *name, const double *v, int n) {
  char b[512] = "";
  size_t len = 0;
  for (int k = 0; k < n && len + 40 < sizeof b; k++) {
    if (k) b[len++] = ',';
    shortest(v[k], b + len, sizeof b - len);
    len = strlen(b);
  }
  hx_opts_default(s, name, pool_text(b));
}
