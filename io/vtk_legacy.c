/* The cursor over a legacy VTK (.vtk) file that the mesh reader (vtk_read.c) and the particle
   reader (particles.c) share (io_impl.h): words, data type names, METADATA blocks and big-endian
   binary values. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "io_impl.h"

const char *hx_vtk_at(const hx_vtk_cursor *c, char *buf, size_t cap) {
  if (c->line > 0) snprintf(buf, cap, "%s:%d", c->path, c->line);
  else snprintf(buf, cap, "%s: byte %ld", c->path, (long)(c->p - c->base));
  return buf;
}

int hx_vtk_word(hx_vtk_cursor *c, char *out, size_t cap) {
  while (c->p < c->end && isspace((unsigned char)*c->p)) {
    if (*c->p == '\n' && c->line > 0) c->line++;
    c->p++;
  }
  size_t n = 0;
  while (c->p < c->end && !isspace((unsigned char)*c->p)) {
    if (n + 1 < cap) out[n++] = *c->p;
    c->p++;
  }
  out[n] = 0;
  return n > 0;
}

int hx_vtk_type(const char *t, int *is_float, int *is_signed) {
  static const struct {
    const char *n;
    int b, f, s;
  } T[] = {{"unsigned_char", 1, 0, 0}, {"char", 1, 0, 1},         {"unsigned_short", 2, 0, 0}, {"short", 2, 0, 1},
           {"unsigned_int", 4, 0, 0},  {"int", 4, 0, 1},          {"unsigned_long", 8, 0, 0},  {"long", 8, 0, 1},
           {"float", 4, 1, 1},         {"double", 8, 1, 1},       {"vtktypeint64", 8, 0, 1},   {"vtktypeuint64", 8, 0, 0},
           {"vtkIdType", 8, 0, 1},     {"vtktypeint32", 4, 0, 1}, {"vtktypeuint32", 4, 0, 0}};
  *is_float = 0, *is_signed = 1;
  for (size_t k = 0; k < sizeof T / sizeof T[0]; k++)
    if (!strcmp(t, T[k].n)) {
      *is_float = T[k].f, *is_signed = T[k].s;
      return T[k].b;
    }
  return 0;
}

void hx_vtk_skip_metadata(hx_vtk_cursor *c) {
  const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
  c->p = nl ? nl + 1 : c->end;
  if (c->line > 0) c->line++;
  while (c->p < c->end) {
    nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    if (!nl) {
      c->p = c->end;
      return;
    }
    int is_blank = 1;
    for (const char *q = c->p; q < nl; q++) is_blank &= isspace((unsigned char)*q) != 0;
    c->p = nl + 1;
    if (c->line > 0) c->line++;
    if (is_blank) return;
  }
}

double hx_vtk_be_value(const unsigned char *q, int sz, int fl, int sg, int64_t *i) {
  uint64_t u = 0;
  for (int b = 0; b < sz; b++) u = (u << 8) | q[b]; /* big-endian */
  double d;
  if (fl && sz == 4) {
    uint32_t u32 = (uint32_t)u;
    float f;
    memcpy(&f, &u32, 4);
    d = f;
  } else if (fl) {
    memcpy(&d, &u, 8);
  } else {
    if (sg && sz < 8 && (u >> (8 * sz - 1))) u |= ~0ull << (8 * sz); /* sign extension */
    d = sg ? (double)(int64_t)u : (double)u;
  }
  *i = fl ? 0 : (int64_t)u;
  return d;
}
