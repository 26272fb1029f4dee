#include "hx_error.h"

#include <stdio.h>
#include <string.h>

/* One record for the process: the first error raised wins. Kernels do not fail; the
   pebble mesher's threaded variant scoring may raise one on any thread, hence the critical
   section (the message read after the parallel region is whole). */
static char err_msg[1024];
static char err_where[256];
static int err_code;
static int verbosity;

int hx_error_set(int code, const char *src, int line, const char *fmt, ...) {
#pragma omp critical(hx_error)
  if (err_code == HX_OK) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_msg, sizeof err_msg, fmt, ap);
    va_end(ap);
    /* one line, whatever bytes a message quotes from a broken input file */
    for (char *c = err_msg; *c; c++)
      if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    const char *base = strrchr(src, '/');
    snprintf(err_where, sizeof err_where, "%s:%d", base ? base + 1 : src, line);
    err_code = code;
  }
  return code;
}

const char *hx_error_message(void) { return err_msg; }
const char *hx_error_where(void) { return err_where; }

void hx_error_clear(void) {
  err_code = HX_OK;
  err_msg[0] = '\0';
  err_where[0] = '\0';
}

const char *hx_status_name(int code) {
  switch (code) {
  case HX_OK: return "ok";
  case HX_ERR_INPUT: return "input error";
  case HX_ERR_MEMORY: return "out of memory";
  case HX_ERR_BACKEND: return "backend error";
  case HX_ERR_MPI: return "MPI error";
  case HX_ERR_QHULL: return "Qhull error";
  case HX_ERR_IO: return "I/O error";
  case HX_ERR_INTERNAL: return "internal error";
  case HX_ERR_INVALID_MESH: return "invalid mesh";
  default: return "unknown error";
  }
}

void hx_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("hexpack: warning: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void hx_set_verbosity(int level) { verbosity = level; }
int hx_verbosity(void) { return verbosity; }

void hx_info(const char *fmt, ...) {
  if (verbosity < 1) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}
