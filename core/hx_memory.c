#include "hx_memory.h"

#include <stdlib.h>
#include <string.h>

#include "hx_error.h"

int hx_calloc_at(size_t n, void *out, const char *src, int line) {
  void *p = calloc(n ? n : 1, 1);
  if (!p) return hx_error_set(HX_ERR_MEMORY, src, line, "out of memory allocating %zu bytes", n);
  memcpy(out, &p, sizeof p);
  return HX_OK;
}

int hx_realloc_at(size_t n, void *pp, const char *src, int line) {
  void *old;
  memcpy(&old, pp, sizeof old);
  void *p = realloc(old, n ? n : 1);
  if (!p) return hx_error_set(HX_ERR_MEMORY, src, line, "out of memory reallocating %zu bytes", n);
  memcpy(pp, &p, sizeof p);
  return HX_OK;
}

void hx_free_at(void *pp) {
  void *p;
  memcpy(&p, pp, sizeof p);
  free(p);
  p = NULL;
  memcpy(pp, &p, sizeof p);
}
