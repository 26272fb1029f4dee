/* Error codes and the error record (docs/architecture.md, "Errors, ownership, threads").

   Every function that can fail returns int (HX_OK = 0). The first failure records
   a message with hx_error_set(); callers pass the code up with HX_CALL; main()
   prints hx_error_message() once. The record is kept per thread: a thread reads back
   the errors of the calls it made (and of the OpenMP parallel regions it started).
   Errors raised inside a parallel region are taken over by the thread that started it
   when it next raises, reads or clears an error; two threads of one program must not
   both run parallel regions that fail at the same time. */
#pragma once
#include <stdarg.h>

typedef enum {
  HX_OK = 0,
  HX_ERR_INPUT,       /* the user's input (flag, file, value) is wrong */
  HX_ERR_MEMORY,      /* an allocation failed */
  HX_ERR_BACKEND,     /* a compute backend (CUDA, ...) failed or is missing */
  HX_ERR_MPI,         /* an MPI call failed */
  HX_ERR_QHULL,       /* Qhull failed */
  HX_ERR_IO,          /* reading or writing a file failed */
  HX_ERR_INTERNAL,    /* our bug */
  HX_ERR_INVALID_MESH /* the mesh has det J <= 0 or breaks an invariant */
} hx_status;

/** Record an error message (first one wins unless hx_error_clear()), return code.
    @param code  an hx_status other than HX_OK
    @param src   source file (__FILE__), printed with -v
    @param line  source line (__LINE__) */
int hx_error_set(int code, const char *src, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/** The recorded message (empty string if none). */
const char *hx_error_message(void);
/** Where the recorded message was raised ("file.c:123"), for -v. */
const char *hx_error_where(void);
/** Forget the recorded error (e.g. after a recovered failure). */
void hx_error_clear(void);
/** Short name of a code ("input error", ...). */
const char *hx_status_name(int code);

/** Print a warning line to stderr ("hexpack: warning: ..."). */
void hx_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Verbosity: 0 quiet summary, 1 (-v) details. hx_info prints at level >= 1. A setting of the
    program (one for the process), set once before any work, not per call. */
void hx_set_verbosity(int level);
int hx_verbosity(void);
void hx_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define HX_CALL(expr)                                                                                                            \
  do {                                                                                                                           \
    int hx_rc_ = (expr);                                                                                                         \
    if (hx_rc_ != HX_OK) return hx_rc_;                                                                                          \
  } while (0)
#define HX_CHECK(cond, code, ...)                                                                                                \
  do {                                                                                                                           \
    if (!(cond)) return hx_error_set((code), __FILE__, __LINE__, __VA_ARGS__);                                                   \
  } while (0)
#define HX_ERROR(code, ...) hx_error_set((code), __FILE__, __LINE__, __VA_ARGS__)

#ifdef NDEBUG
#define HX_ASSERT(cond) ((void)0)
#else
#define HX_ASSERT(cond)                                                                                                          \
  do {                                                                                                                           \
    if (!(cond)) return hx_error_set(HX_ERR_INTERNAL, __FILE__, __LINE__, "assertion failed: %s", #cond);                        \
  } while (0)
#endif
