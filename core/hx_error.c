#include "hx_error.h"

#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The error record is per thread (C11 _Thread_local): a program that runs independent hexpack calls
   on threads of its own gets each call's first error back on the thread that made it. Inside an
   OpenMP parallel region (the pebble mesher scores facet variants on every thread) a worker's error
   goes instead to the one record of the region's team, under a critical section; the thread that
   started the region takes that record over as its own the next time it raises, reads or clears an
   error (the caller sees the code returned from the region and then reads the message). Kernels do
   not fail. The verbosity is a setting, not a record: the program sets it once, before any work. */
typedef struct record {
  char msg[1024];
  char where[256];
  int code;
} record;

static _Thread_local record own;
static record team; /* the errors raised inside parallel regions, guarded by critical(hx_error) */
static int verbosity;

static int in_parallel(void) {
#ifdef _OPENMP
  return omp_in_parallel();
#else
  return 0;
#endif
}

/* take over the team's record when this thread has none of its own (outside parallel regions) */
static void adopt(void) {
  if (in_parallel()) return;
#pragma omp critical(hx_error)
  {
    if (team.code != HX_OK) {
      if (own.code == HX_OK) own = team;
      team.code = HX_OK;
      team.msg[0] = team.where[0] = '\0';
    }
  }
}

static void fill(record *r, int code, const char *src, int line, const char *fmt, va_list ap) {
  vsnprintf(r->msg, sizeof r->msg, fmt, ap);
  /* one line, whatever bytes a message quotes from a broken input file */
  for (char *c = r->msg; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  const char *base = strrchr(src, '/');
  snprintf(r->where, sizeof r->where, "%s:%d", base ? base + 1 : src, line);
  r->code = code;
}

int hx_error_set(int code, const char *src, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (in_parallel()) {
#pragma omp critical(hx_error)
    if (team.code == HX_OK) fill(&team, code, src, line, fmt, ap);
  } else {
    adopt();
    if (own.code == HX_OK) fill(&own, code, src, line, fmt, ap);
  }
  va_end(ap);
  return code;
}

const char *hx_error_message(void) {
  adopt();
  return own.msg;
}
const char *hx_error_where(void) {
  adopt();
  return own.where;
}

void hx_error_clear(void) {
  adopt();
  own.code = HX_OK;
  own.msg[0] = '\0';
  own.where[0] = '\0';
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
