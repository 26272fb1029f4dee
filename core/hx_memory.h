/* All allocation goes through these: they report file and line and return
   HX_ERR_MEMORY instead of aborting (docs/architecture.md, "Errors, ownership, threads"). */
#pragma once
#include <stddef.h>

/** Allocate n bytes (zeroed) into *out. Returns HX_OK or HX_ERR_MEMORY. */
int hx_calloc_at(size_t n, void *out, const char *src, int line);
/** Reallocate *p to n bytes; on failure *p is unchanged. */
int hx_realloc_at(size_t n, void *p, const char *src, int line);
/** Free *p (NULL allowed) and set it to NULL. */
void hx_free_at(void *p);

/* out is the address of a pointer: double *x; HX_CALL(hx_malloc(n * sizeof *x, &x)); */
#define hx_malloc(n, out) hx_calloc_at((n), (out), __FILE__, __LINE__)
#define hx_realloc(n, p) hx_realloc_at((n), (p), __FILE__, __LINE__)
#define hx_free(p) hx_free_at(p)
