/* The --json document (hx_cli.h): built in memory while the command runs, printed once by
   main() on one line, so that stdout holds exactly one JSON document whatever the command
   prints on the way (human messages go to stderr under --json: hx_cli_log). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hx_cli.h"
#include "hx_error.h"

/* the process's one document (the command line is a process-wide thing) */
static struct {
  FILE *fp; /* open_memstream over buf while --json is on */
  char *buf;
  size_t len;
  hx_optset opts; /* the command's table and values: the "options" echo */
  int have_opts;
  int members[8]; /* members written so far at each nesting depth */
  int array[8];   /* 1 where the depth is an array */
  int depth;
} doc;

int hx_cli_json_on(void) { return doc.fp != NULL; }

FILE *hx_cli_log(void) { return doc.fp ? stderr : stdout; }

void hx_cli_json_begin(const hx_optset *s) {
  if (doc.fp) return;
  doc.fp = open_memstream(&doc.buf, &doc.len);
  if (!doc.fp) return;
  doc.opts = *s; /* the values point into argv and the static tables, which outlive the command */
  doc.have_opts = 1;
  doc.depth = 0;
  doc.members[0] = 0;
  doc.array[0] = 0;
  fprintf(doc.fp, "{\"command\": ");
  hx_cli_json_string(doc.fp, s->cmd);
  fprintf(doc.fp, ", \"schema_version\": %d", HX_JSON_SCHEMA_VERSION);
  doc.members[0] = 2;
}

static void separate(void) {
  if (doc.members[doc.depth]++) fprintf(doc.fp, ", ");
}

void hx_cli_json_add(const char *fmt, ...) {
  if (!doc.fp) return;
  separate();
  va_list ap;
  va_start(ap, fmt);
  vfprintf(doc.fp, fmt, ap);
  va_end(ap);
}

FILE *hx_cli_json_key(const char *key) {
  if (!doc.fp) return NULL;
  separate();
  hx_cli_json_string(doc.fp, key);
  fprintf(doc.fp, ": ");
  return doc.fp;
}

static void open_nested(const char *key, int array) {
  if (!doc.fp || doc.depth + 1 >= (int)(sizeof doc.members / sizeof doc.members[0])) return;
  if (doc.array[doc.depth] || !key) separate(); /* an element of an array */
  else hx_cli_json_key(key);
  fprintf(doc.fp, array ? "[" : "{");
  doc.depth++;
  doc.members[doc.depth] = 0;
  doc.array[doc.depth] = array;
}

void hx_cli_json_open(const char *key) { open_nested(key, 0); }

void hx_cli_json_array(const char *key) { open_nested(key, 1); }

void hx_cli_json_close(void) {
  if (!doc.fp || doc.depth == 0) return;
  fprintf(doc.fp, doc.array[doc.depth] ? "]" : "}");
  doc.depth--;
}

void hx_cli_json_string(FILE *out, const char *s) {
  if (!out) return; /* hx_cli_json_key without --json */
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
    else if (*p == '\n') fprintf(out, "\\n");
    else if (*p == '\t') fprintf(out, "\\t");
    else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
    else fputc(*p, out);
  }
  fputc('"', out);
}

void hx_cli_json_end(int rc, int rank) {
  if (!doc.fp) return;
  while (doc.depth > 0) hx_cli_json_close(); /* a failure inside a nested part */
  if (rc != HX_OK) {
    hx_cli_json_add("\"status\": \"error\"");
    hx_cli_json_string(hx_cli_json_key("error"), hx_error_message()[0] ? hx_error_message() : hx_status_name(rc));
  } else {
    hx_cli_json_add("\"status\": \"ok\"");
  }
  if (doc.have_opts) {
    hx_opts_echo_json(&doc.opts, hx_cli_json_key("options"));
    FILE *a = hx_cli_json_key("arguments");
    fprintf(a, "[");
    for (int k = 0; k < doc.opts.num_args; k++) fprintf(a, "%s", k ? ", " : ""), hx_cli_json_string(a, doc.opts.args[k]);
    fprintf(a, "]");
  }
  fprintf(doc.fp, "}");
  fclose(doc.fp);
  doc.fp = NULL;
  if (rank == 0) {
    /* one line: the pieces some writers spread over lines (the quality report) joined */
    for (size_t k = 0; k < doc.len; k++)
      if (doc.buf[k] != '\n') putchar(doc.buf[k]);
    putchar('\n');
    fflush(stdout);
  }
  free(doc.buf);
  doc.buf = NULL;
}
