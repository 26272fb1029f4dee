/* Gmsh MSH 4.1 reader, ASCII and binary, on its own (no Gmsh library): the files our
   writer makes and the files Gmsh writes for hexahedra of order 1..9.

   design:
   1. the file in memory (hx_infile); sections in any order; $MeshFormat must say 4.1
      with 8-byte sizes (binary: the int 1 after it gives the byte order);
      $PhysicalNames, $Entities, $Nodes and $Elements are parsed; any other section is
      skipped to its $End line; $PartitionedEntities is refused;
   2. every count is checked against the bytes left before anything is allocated, so
      storage grows with what the file holds, never with a number it names; every tag,
      entity reference and element type is checked before use: one line naming the file,
      the line (ASCII) or byte offset (binary) and what was expected;
   3. nodes: tags and coordinates by node count; tag -> index through a map sized by the
      node count (hx_idmap: dense only where the tags are dense), so a huge tag costs
      nothing; node id = index in the file;
   4. elements: the hexahedra of the volume entities (complete Lagrange, types 5, 12,
      92..98, one order), their equispaced nodes re-interpolated to GLL; quadrangles of
      the surface entities become boundary faces, matched to hexahedron faces by their
      sorted corner nodes (a quadrangle between two hexahedra is an internal surface and
      is left out); boundary id = the surface's first physical tag, else its entity tag;
      name = the physical name. Points and lines are read past; other element types in a
      volume are refused. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "io_impl.h"

/* boundary ids above this are refused (the writers size tables by the largest id) */
#define MSH_MAX_BID 1000000

typedef struct mrd {
  const char *path;
  const char *base, *p, *end;
  int binary, swap;
} mrd;

static int line_at(const mrd *r, const char *at) {
  int l = 1;
  for (const char *q = r->base; q < at && q < r->end; q++) l += *q == '\n';
  return l;
}

/* one line: "path:LINE: ..." (ASCII) or "path: byte N: ..." (binary) */
static int fail_at(const mrd *r, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(const mrd *r, const char *at, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (r->binary && at) return HX_ERROR(HX_ERR_INPUT, "%s: byte %zu: %s", r->path, (size_t)(at - r->base), msg);
  return HX_ERROR(HX_ERR_INPUT, "%s:%d: %s", r->path, line_at(r, at ? at : r->p), msg);
}

static size_t left(const mrd *r) { return (size_t)(r->end - r->p); }

static void skip_space(mrd *r) {
  while (r->p < r->end && isspace((unsigned char)*r->p)) r->p++;
}

/* next whitespace-separated token (ASCII parts); *at = its start */
static int token(mrd *r, char *out, size_t cap, const char **at) {
  skip_space(r);
  *at = r->p;
  size_t n = 0;
  while (r->p < r->end && !isspace((unsigned char)*r->p)) {
    if (n + 1 < cap) out[n++] = *r->p;
    r->p++;
  }
  out[n] = 0;
  return n > 0;
}

/* an integer in [lo, hi]: ASCII token, or binary of width W (4: int, 8: size_t) */
static int get_int(mrd *r, int W, int64_t lo, int64_t hi, const char *what, int64_t *v) {
  if (r->binary && W) {
    const char *at = r->p;
    if (left(r) < (size_t)W) return fail_at(r, at, "file ends where %s (%d bytes) was expected", what, W);
    unsigned char t[8];
    memcpy(t, r->p, (size_t)W);
    if (r->swap) hx_io_swap(t, 1, (size_t)W);
    r->p += W;
    if (W == 4) {
      int32_t x;
      memcpy(&x, t, 4);
      *v = x;
    } else {
      uint64_t x;
      memcpy(&x, t, 8);
      if (x > (uint64_t)INT64_MAX)
        return fail_at(r, at, "expected %s in %lld..%lld, got %llu", what, (long long)lo, (long long)hi, (unsigned long long)x);
      *v = (int64_t)x;
    }
    if (*v < lo || *v > hi)
      return fail_at(r, at, "expected %s in %lld..%lld, got %lld", what, (long long)lo, (long long)hi, (long long)*v);
    return HX_OK;
  }
  char b[64];
  const char *at;
  if (!token(r, b, sizeof b, &at)) return fail_at(r, at, "file ends where %s was expected", what);
  char *e;
  errno = 0;
  long long x = strtoll(b, &e, 10);
  if (*e || e == b || errno || x < lo || x > hi)
    return fail_at(r, at, "expected %s (an integer in %lld..%lld), got '%s'", what, (long long)lo, (long long)hi, b);
  *v = x;
  return HX_OK;
}

static int get_real(mrd *r, const char *what, double *v) {
  const char *at = r->p;
  if (r->binary) {
    if (left(r) < 8) return fail_at(r, at, "file ends where %s (8 bytes) was expected", what);
    unsigned char t[8];
    memcpy(t, r->p, 8);
    if (r->swap) hx_io_swap(t, 1, 8);
    memcpy(v, t, 8);
    r->p += 8;
  } else {
    char b[128], *e;
    if (!token(r, b, sizeof b, &at)) return fail_at(r, at, "file ends where %s was expected", what);
    *v = strtod(b, &e);
    if (*e || e == b) return fail_at(r, at, "expected %s (a number), got '%s'", what, b);
  }
  if (!isfinite(*v)) return fail_at(r, at, "%s is not finite", what);
  return HX_OK;
}

/* the rest of the current line (after a section's binary data: blanks and one newline) */
static void end_line(mrd *r) {
  while (r->p < r->end && *r->p != '\n') r->p++;
  if (r->p < r->end) r->p++;
}

/* "$EndName" after the section body */
static int expect_end(mrd *r, const char *name) {
  char b[64], want[64];
  const char *at;
  snprintf(want, sizeof want, "$End%s", name);
  if (!token(r, b, sizeof b, &at) || strcmp(b, want)) return fail_at(r, at, "expected '%s', found '%.40s'", want, b);
  end_line(r);
  return HX_OK;
}

/* Gmsh element types: nodes per element (0: not known here) */
static int type_nodes(int64_t t) {
  static const int nn[] = {0, 2, 3, 4,  4,  8,  6,  5,  3, 6, 9,  10, 27, 18, 14, 1,  8,  20, 15, 13, 9,  10, 12, 15, 15,  21,
                           4, 5, 6, 20, 35, 56, 22, 28, 0, 0, 16, 25, 36, 12, 16, 20, 28, 36, 45, 55, 66, 49, 64, 81, 100, 121};
  if (t >= 1 && t < (int64_t)(sizeof nn / sizeof nn[0])) return nn[t];
  if (t >= 62 && t <= 66) return (int)t - 55;                           /* lines of order 6..10 */
  if (t >= 92 && t <= 98) return (int)((t - 88) * (t - 88) * (t - 88)); /* hexahedra of order 3..9 */
  return 0;
}
static int hex_order(int64_t t) {
  if (t == 5) return 1;
  if (t == 12) return 2;
  if (t >= 92 && t <= 98) return (int)t - 89;
  return 0;
}
static int is_quad(int64_t t) { return t == 3 || t == 10 || t == 16 || (t >= 36 && t <= 41) || (t >= 47 && t <= 51); }

typedef struct {
  int64_t tag, phys; /* phys: first physical tag, 0 if none */
} ment;

typedef struct {
  int64_t k[4];
  hx_lid elem;
  int face;
} fkey;

static int cmp_fkey4(const void *a, const void *b) {
  const fkey *x = a, *y = b;
  for (int d = 0; d < 4; d++)
    if (x->k[d] != y->k[d]) return x->k[d] < y->k[d] ? -1 : 1;
  return 0;
}
static int cmp_fkey(const void *a, const void *b) {
  int c = cmp_fkey4(a, b);
  if (c) return c;
  const fkey *x = a, *y = b;
  if (x->elem != y->elem) return x->elem < y->elem ? -1 : 1;
  return x->face - y->face;
}

static void sort4(int64_t *v) {
  for (int a = 1; a < 4; a++)
    for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
      int64_t t = v[b];
      v[b] = v[b - 1];
      v[b - 1] = t;
    }
}

typedef struct {
  int64_t dim, tag;
  char name[128];
} mphys;

typedef struct msh_data {
  mphys *phys;
  int64_t nphys;
  ment *ent[4]; /* points, curves, surfaces, volumes */
  int64_t nent[4];
  int have_entities;
  int64_t nnodes, *ntag;
  double *xyz;
  hx_idmap map; /* node tag -> index */
  int have_nodes, have_elements;
  int order;
  int64_t nhex, *hexn;       /* [nhex][npe] node indices, Gmsh order */
  int64_t nquad, (*quad)[6]; /* bid, element tag, 4 corner node indices */
} msh_data;

static void msh_data_free(msh_data *d) {
  hx_free(&d->phys);
  for (int k = 0; k < 4; k++) hx_free(&d->ent[k]);
  hx_free(&d->ntag);
  hx_free(&d->xyz);
  hx_idmap_free(&d->map);
  hx_free(&d->hexn);
  hx_free(&d->quad);
}

static int read_physical_names(mrd *r, msh_data *d) {
  if (d->phys) return fail_at(r, r->p, "a second $PhysicalNames section (expected one)");
  int bin = r->binary;
  r->binary = 0; /* this section is text in binary files too */
  int64_t n;
  int rc = get_int(r, 0, 0, (int64_t)left(r) / 6, "the number of physical names", &n);
  if (!rc) rc = hx_malloc((size_t)(n + 1) * sizeof *d->phys, &d->phys);
  for (int64_t i = 0; i < n && !rc; i++) {
    mphys *q = &d->phys[i];
    rc = get_int(r, 0, 0, 3, "a physical group dimension", &q->dim);
    if (!rc) rc = get_int(r, 0, 1, INT32_MAX, "a physical tag", &q->tag);
    if (rc) break;
    skip_space(r);
    const char *at = r->p;
    if (r->p >= r->end || *r->p != '"') {
      rc = fail_at(r, at, "expected a quoted physical name");
      break;
    }
    const char *q0 = ++r->p;
    while (r->p < r->end && *r->p != '"' && *r->p != '\n') r->p++;
    if (r->p >= r->end || *r->p != '"' || r->p - q0 >= (ptrdiff_t)sizeof q->name) {
      rc = fail_at(r, at, "expected a quoted physical name of at most %zu characters on one line", sizeof q->name - 1);
      break;
    }
    memcpy(q->name, q0, (size_t)(r->p - q0));
    q->name[r->p - q0] = 0;
    r->p++;
    d->nphys = i + 1;
  }
  if (!rc) rc = expect_end(r, "PhysicalNames");
  r->binary = bin;
  return rc;
}

static int read_entities(mrd *r, msh_data *d) {
  if (d->have_entities) return fail_at(r, r->p, "a second $Entities section (expected one)");
  int64_t cnt[4];
  /* an entity takes at least 8 bytes as text ("1 0 0 0 0 ") and 40 in binary */
  int64_t most = (int64_t)left(r) / (r->binary ? 40 : 8);
  for (int k = 0; k < 4; k++) HX_CALL(get_int(r, 8, 0, most, "an entity count", &cnt[k]));
  HX_CHECK(cnt[0] + cnt[1] + cnt[2] + cnt[3] <= most, HX_ERR_INPUT,
           "%s: $Entities: %lld entities cannot fit in the %zu bytes left", r->path,
           (long long)(cnt[0] + cnt[1] + cnt[2] + cnt[3]), left(r));
  for (int k = 0; k < 4; k++) {
    HX_CALL(hx_malloc((size_t)(cnt[k] + 1) * sizeof(ment), &d->ent[k]));
    d->nent[k] = cnt[k];
    for (int64_t i = 0; i < cnt[k]; i++) {
      ment *e = &d->ent[k][i];
      double x;
      int64_t np, t;
      HX_CALL(get_int(r, 4, 1, INT32_MAX, "an entity tag", &e->tag));
      for (int c = 0; c < (k ? 6 : 3); c++) HX_CALL(get_real(r, "a bounding box coordinate", &x));
      HX_CALL(get_int(r, 8, 0, (int64_t)left(r) / 2, "the number of physical tags", &np));
      e->phys = 0;
      for (int64_t j = 0; j < np; j++) {
        HX_CALL(get_int(r, 4, -INT32_MAX, INT32_MAX, "a physical tag", &t));
        if (j == 0) e->phys = t;
      }
      if (k) {
        HX_CALL(get_int(r, 8, 0, (int64_t)left(r) / 2, "the number of bounding entities", &np));
        for (int64_t j = 0; j < np; j++) HX_CALL(get_int(r, 4, -INT32_MAX, INT32_MAX, "a bounding entity tag", &t));
      }
    }
  }
  d->have_entities = 1;
  return expect_end(r, "Entities");
}

static const ment *find_entity(const msh_data *d, int64_t dim, int64_t tag) {
  for (int64_t i = 0; i < d->nent[dim]; i++)
    if (d->ent[dim][i].tag == tag) return &d->ent[dim][i];
  return NULL;
}

/* an element block's (dim, tag): declared in $Entities when the file has one */
static int check_entity(mrd *r, const char *at, const msh_data *d, int64_t dim, int64_t tag, const ment **e) {
  *e = d->have_entities ? find_entity(d, dim, tag) : NULL;
  if (d->have_entities && !*e)
    return fail_at(r, at, "entity (dimension %lld, tag %lld) is not in $Entities", (long long)dim, (long long)tag);
  return HX_OK;
}

static int read_nodes(mrd *r, msh_data *d) {
  if (d->have_nodes || d->ntag) return fail_at(r, r->p, "a second $Nodes section (expected one)");
  int64_t nb, nn, lo, hi;
  const char *at = r->p;
  /* a node takes at least 8 bytes as text ("1\n0 0 0\n") and 32 in binary */
  HX_CALL(get_int(r, 8, 0, (int64_t)left(r) / 12, "the number of node blocks", &nb));
  HX_CALL(get_int(r, 8, 0, (int64_t)left(r) / (r->binary ? 32 : 8), "the number of nodes (bounded by the file's size)", &nn));
  HX_CALL(get_int(r, 8, 0, INT64_MAX, "the smallest node tag", &lo));
  HX_CALL(get_int(r, 8, 0, INT64_MAX, "the largest node tag", &hi));
  if (nn > 0 && (lo < 1 || hi < lo))
    return fail_at(r, at, "node tags %lld..%lld: expected 1 <= smallest <= largest", (long long)lo, (long long)hi);
  HX_CALL(hx_malloc((size_t)(nn + 1) * sizeof(int64_t), &d->ntag));
  HX_CALL(hx_malloc((size_t)(nn + 1) * 3 * sizeof(double), &d->xyz));
  HX_CALL(hx_idmap_init_range(&d->map, lo, hi, (size_t)nn));
  int64_t got = 0;
  for (int64_t b = 0; b < nb; b++) {
    int64_t dim, tag, par, cnt;
    const ment *e;
    at = r->p;
    HX_CALL(get_int(r, 4, 0, 3, "an entity dimension", &dim));
    HX_CALL(get_int(r, 4, 1, INT32_MAX, "an entity tag", &tag));
    HX_CALL(check_entity(r, at, d, dim, tag, &e));
    HX_CALL(get_int(r, 4, 0, 1, "the parametric flag (0 or 1)", &par));
    HX_CALL(get_int(r, 8, 0, nn - got, "the nodes of this block (within the total)", &cnt));
    for (int64_t i = 0; i < cnt; i++) {
      at = r->p;
      int64_t t, idx = got + i;
      HX_CALL(get_int(r, 8, lo, hi, "a node tag (within the smallest and largest)", &t));
      d->ntag[got + i] = t;
      int ins = hx_idmap_insert(&d->map, t, &idx);
      HX_CHECK(ins >= 0, HX_ERR_MEMORY, "%s: out of memory mapping node tags", r->path);
      if (!ins) return fail_at(r, at, "node tag %lld appears twice", (long long)t);
    }
    int extra = par ? (int)dim : 0;
    for (int64_t i = 0; i < cnt; i++) {
      double u;
      for (int c = 0; c < 3; c++) HX_CALL(get_real(r, "a node coordinate", &d->xyz[3 * (got + i) + c]));
      for (int c = 0; c < extra; c++) HX_CALL(get_real(r, "a parametric coordinate", &u));
    }
    got += cnt;
  }
  if (got != nn)
    return fail_at(r, r->p, "the node blocks hold %lld nodes; the header announced %lld", (long long)got, (long long)nn);
  d->nnodes = nn;
  d->have_nodes = 1;
  return expect_end(r, "Nodes");
}

static int read_elements(mrd *r, msh_data *d) {
  if (!d->have_nodes) return fail_at(r, r->p, "$Elements before $Nodes (expected $Nodes first)");
  if (d->have_elements || d->hexn || d->quad) return fail_at(r, r->p, "a second $Elements section (expected one)");
  int64_t nb, ne, lo, hi;
  const char *at = r->p;
  /* an element takes at least 4 bytes as text ("1 1\n") and 16 in binary */
  HX_CALL(get_int(r, 8, 0, (int64_t)left(r) / 12, "the number of element blocks", &nb));
  HX_CALL(get_int(r, 8, 0, (int64_t)left(r) / (r->binary ? 16 : 4), "the number of elements (bounded by the file's size)", &ne));
  HX_CALL(get_int(r, 8, 0, INT64_MAX, "the smallest element tag", &lo));
  HX_CALL(get_int(r, 8, 0, INT64_MAX, "the largest element tag", &hi));
  if (ne > 0 && (lo < 1 || hi < lo))
    return fail_at(r, at, "element tags %lld..%lld: expected 1 <= smallest <= largest", (long long)lo, (long long)hi);
  int64_t got = 0, hcap = 0, qcap = 0;
  for (int64_t b = 0; b < nb; b++) {
    int64_t dim, tag, type, cnt;
    const ment *e;
    at = r->p;
    HX_CALL(get_int(r, 4, 0, 3, "an entity dimension", &dim));
    HX_CALL(get_int(r, 4, 1, INT32_MAX, "an entity tag", &tag));
    HX_CALL(check_entity(r, at, d, dim, tag, &e));
    const char *tat = r->p;
    HX_CALL(get_int(r, 4, 1, INT32_MAX, "an element type", &type));
    HX_CALL(get_int(r, 8, 0, ne - got, "the elements of this block (within the total)", &cnt));
    int nn = type_nodes(type), ord = hex_order(type), quad = is_quad(type);
    if (dim == 3 && !ord)
      return fail_at(r, tat,
                     "volume %lld holds elements of type %lld; expected complete Lagrange hexahedra (types 5, 12, 92..98)",
                     (long long)tag, (long long)type);
    if (ord && dim != 3)
      return fail_at(r, tat, "hexahedra (type %lld) in an entity of dimension %lld; expected dimension 3", (long long)type,
                     (long long)dim);
    if (ord && d->order && ord != d->order)
      return fail_at(r, tat, "hexahedra of orders %d and %d; expected one order per mesh", d->order, ord);
    if (ord > HX_MAX_ORDER) return fail_at(r, tat, "hexahedra of order %d; at most %d is read", ord, HX_MAX_ORDER);
    if (!nn && r->binary) return fail_at(r, tat, "element type %lld is not a Gmsh type hexpack knows", (long long)type);
    if (ord) d->order = ord;
    int64_t bid = 0;
    if (quad && dim == 2) {
      bid = e && e->phys ? e->phys : tag;
      if (bid < 1 || bid > MSH_MAX_BID)
        return fail_at(r, at, "surface %lld has boundary id %lld; expected 1..%d", (long long)tag, (long long)bid, MSH_MAX_BID);
    }
    /* each element: its tag and nn node tags, at least 2 bytes each as text */
    if (cnt > 0 && nn && (size_t)cnt * (size_t)(nn + 1) > left(r) / (r->binary ? 8 : 2))
      return fail_at(r, tat, "%lld elements of type %lld cannot fit in the %zu bytes left", (long long)cnt, (long long)type,
                     left(r));
    if (ord && d->nhex + cnt > hcap) {
      hcap = 2 * (d->nhex + cnt);
      HX_CALL(hx_realloc((size_t)hcap * (size_t)nn * sizeof(int64_t), &d->hexn));
    }
    if (quad && dim == 2 && d->nquad + cnt > qcap) {
      qcap = 2 * (d->nquad + cnt);
      HX_CALL(hx_realloc((size_t)qcap * sizeof *d->quad, &d->quad));
    }
    for (int64_t i = 0; i < cnt; i++) {
      int64_t et, t, idx;
      HX_CALL(get_int(r, 8, lo, hi, "an element tag (within the smallest and largest)", &et));
      if (!nn) { /* a type not known here, outside volumes, in a text file: the rest of its line */
        while (r->p < r->end && *r->p != '\n') r->p++;
        continue;
      }
      for (int p = 0; p < nn; p++) {
        const char *nat = r->p;
        HX_CALL(get_int(r, 8, 1, INT64_MAX, "a node tag", &t));
        if (!hx_idmap_find(&d->map, t, &idx))
          return fail_at(r, nat, "element %lld refers to node %lld, which is not in $Nodes", (long long)et, (long long)t);
        if (ord) d->hexn[(size_t)d->nhex * (size_t)nn + (size_t)p] = idx;
        else if (quad && dim == 2 && p < 4) d->quad[d->nquad][2 + p] = idx;
      }
      if (ord) d->nhex++;
      else if (quad && dim == 2) {
        d->quad[d->nquad][0] = bid;
        d->quad[d->nquad][1] = et;
        d->nquad++;
      }
    }
    got += cnt;
  }
  if (got != ne)
    return fail_at(r, r->p, "the element blocks hold %lld elements; the header announced %lld", (long long)got, (long long)ne);
  d->have_elements = 1;
  return expect_end(r, "Elements");
}

static int parse_msh(mrd *r, msh_data *d) {
  char b[64];
  const char *at;
  if (!token(r, b, sizeof b, &at) || strcmp(b, "$MeshFormat"))
    return HX_ERROR(HX_ERR_INPUT, "%s: byte 0: expected '$MeshFormat' (not a Gmsh .msh file)", r->path);
  int64_t ft, ds;
  if (!token(r, b, sizeof b, &at)) return fail_at(r, at, "file ends where the MSH version was expected");
  if (strcmp(b, "4.1")) return fail_at(r, at, "MSH version '%s': expected 4.1 (convert with: gmsh FILE -save -format msh41)", b);
  HX_CALL(get_int(r, 0, 0, 1, "the file type (0 text, 1 binary)", &ft));
  HX_CALL(get_int(r, 0, 8, 8, "the data size (8)", &ds));
  end_line(r);
  if (ft == 1) {
    r->binary = 1;
    const char *oat = r->p;
    if (left(r) < 4) return fail_at(r, oat, "file ends where the binary one (4 bytes) was expected");
    int32_t one;
    memcpy(&one, r->p, 4);
    if (one == 0x01000000) r->swap = 1;
    else if (one != 1) return fail_at(r, oat, "expected the int 1 (byte order), got %d", one);
    r->p += 4;
  }
  HX_CALL(expect_end(r, "MeshFormat"));
  for (;;) {
    skip_space(r);
    if (r->p >= r->end) break;
    const char *sat = r->p;
    token(r, b, sizeof b, &at);
    if (b[0] != '$') return fail_at(r, sat, "expected a section ('$Name'), found '%.40s'", b);
    end_line(r);
    if (!strcmp(b, "$PhysicalNames")) HX_CALL(read_physical_names(r, d));
    else if (!strcmp(b, "$Entities")) HX_CALL(read_entities(r, d));
    else if (!strcmp(b, "$Nodes")) HX_CALL(read_nodes(r, d));
    else if (!strcmp(b, "$Elements")) HX_CALL(read_elements(r, d));
    else if (!strcmp(b, "$PartitionedEntities"))
      return fail_at(r, sat, "partitioned meshes are not read (expected a whole mesh: gmsh FILE -save without partitions)");
    else {
      /* any other section: skipped to its end line */
      char want[80];
      snprintf(want, sizeof want, "\n$End%s", b + 1);
      const char *q = r->p - 1, *hit = NULL;
      size_t wl = strlen(want);
      for (; q + wl <= r->end; q++)
        if (*q == '\n' && !memcmp(q, want, wl)) {
          hit = q;
          break;
        }
      if (!hit) return fail_at(r, sat, "section %s has no '$End%s'", b, b + 1);
      r->p = hit + wl;
      end_line(r);
    }
  }
  if (!d->have_nodes) return fail_at(r, r->end, "no $Nodes section (expected one)");
  if (!d->have_elements) return fail_at(r, r->end, "no $Elements section (expected one)");
  if (!d->nhex) return fail_at(r, r->end, "no hexahedra in any volume (hexpack reads all-hex meshes)");
  return HX_OK;
}

static const char *phys_name(const msh_data *d, int64_t dim, int64_t tag) {
  for (int64_t i = 0; i < d->nphys; i++)
    if (d->phys[i].dim == dim && d->phys[i].tag == tag) return d->phys[i].name;
  return NULL;
}

static int build_mesh(hx_comm comm, const char *path, const msh_data *d, hx_mesh **out) {
  hx_mesh *m = NULL;
  fkey *fk = NULL;
  HX_CHECK(d->nhex <= INT32_MAX, HX_ERR_INPUT, "%s: %lld hexahedra; at most %d are read", path, (long long)d->nhex, INT32_MAX);
  HX_CALL(hx_mesh_create(comm, d->order, (hx_lid)d->nhex, &m));
  int nd = d->order + 1, npe = nd * nd * nd, rc = HX_OK;
  int pos2lex[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  double B[HX_MAX_ND * HX_MAX_ND], eq[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  hx_gmsh_hex_order(d->order, pos2lex);
  rc = hx_io_interp_matrix(nd, 0, B);
  for (int64_t e = 0; e < d->nhex && rc == HX_OK; e++) {
    const int64_t *en = d->hexn + (size_t)e * (size_t)npe;
    for (int c = 0; c < 3; c++) {
      for (int p = 0; p < npe; p++) eq[pos2lex[p]] = d->xyz[3 * en[p] + c];
      hx_io_tensor3(nd, B, eq, hx_mesh_elem_x(m, (hx_lid)e, c));
    }
    for (int p = 0; p < npe; p++) m->node_id[(size_t)e * (size_t)npe + (size_t)pos2lex[p]] = (hx_gid)en[p];
  }
  if (rc == HX_OK) {
    hx_io_set_vert_ids(m);
    rc = hx_io_unify_shared(m);
  }
  /* boundary quadrangles -> faces, through the hexahedron faces sorted by their sorted corners */
  size_t nf = (size_t)d->nhex * 6;
  if (rc == HX_OK && d->nquad) rc = hx_malloc(nf * sizeof(fkey), &fk);
  if (rc == HX_OK && d->nquad) {
    for (size_t e = 0; e < (size_t)d->nhex; e++)
      for (int f = 0; f < 6; f++) {
        int c[4];
        hx_face_corners(f, c);
        fkey *q = &fk[e * 6 + f];
        for (int k = 0; k < 4; k++) q->k[k] = m->vert_id[e * 8 + c[k]];
        sort4(q->k);
        q->elem = (hx_lid)e;
        q->face = f;
      }
    qsort(fk, nf, sizeof(fkey), cmp_fkey);
  }
  for (int64_t q = 0; q < d->nquad && rc == HX_OK; q++) {
    fkey key;
    for (int k = 0; k < 4; k++) key.k[k] = d->quad[q][2 + k];
    sort4(key.k);
    const fkey *hit = bsearch(&key, fk, nf, sizeof(fkey), cmp_fkey4);
    if (!hit) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s: quadrangle %lld (surface, boundary id %lld) is not a face of any hexahedron", path,
                    (long long)d->quad[q][1], (long long)d->quad[q][0]);
      break;
    }
    while (hit > fk && !cmp_fkey4(hit - 1, &key)) hit--;
    if (hit + 1 < fk + nf && !cmp_fkey4(hit + 1, &key)) continue; /* between two hexahedra: an internal surface */
    rc = hx_mesh_add_face(m, hit->elem, hit->face, (int)d->quad[q][0], -1);
  }
  /* boundary names: the physical names of the surfaces' physical groups */
  for (int64_t s = 0; s < d->nent[2] && rc == HX_OK; s++) {
    int64_t bid = d->ent[2][s].phys;
    const char *name = bid >= 1 && bid <= MSH_MAX_BID ? phys_name(d, 2, bid) : NULL;
    if (name && name[0]) rc = hx_mesh_set_bname(m, (int)bid, name);
  }
  hx_free(&fk);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}

int hx_import_msh(hx_comm comm, const char *path, hx_mesh **out) {
  hx_infile in;
  HX_CALL(hx_infile_read(&in, path));
  mrd r = {path, in.data, in.data, in.data + in.size, 0, 0};
  msh_data d;
  memset(&d, 0, sizeof d);
  int rc = parse_msh(&r, &d);
  if (rc == HX_OK) rc = build_mesh(comm, path, &d, out);
  msh_data_free(&d);
  hx_infile_free(&in);
  return rc;
}
