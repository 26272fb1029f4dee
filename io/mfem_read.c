/* MFEM mesh reader: "MFEM mesh v1.0", "v1.2" and "v1.3" (docs/formats.md, "MFEM"), hexahedra only.

   design:
   1. sections in MFEM's order (Mesh::ReadMFEMMesh): dimension 3, elements (every one geometry 5;
      any other type refuses the file naming it), attribute_sets (v1.3; also taken in the other
      versions), boundary (squares), bdr_attribute_sets, vertices;
   2. geometry: either the vertices' coordinates (order 1), or a nodes grid function whose
      collection gives the space (H1: global dofs numbered as MFEM does, mfem_h1.c; L2: element
      by element, lexicographic) and the 1D basis (GLL, Gauss-Legendre, open/closed uniform,
      open half-uniform points, or Bernstein); each element's coefficients are turned into
      values at hexpack's GLL nodes by a tensor-product matrix, exact for every basis (all span
      the same polynomials);
   3. node ids: vertices and H1 dofs are ids as they are (shared dofs = shared nodes); L2 nodes
      are merged by coordinates;
   4. boundary elements become boundary faces through their vertex sets; a boundary attribute
      set of one attribute names that id (as do our own "# boundary ID NAME" comments).
   Every refusal is one line "file:line: what was expected". */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "io_impl.h"

/* hexpack face -> its 4 standard corners in MFEM's outward order (MFEM's Geometry::Cube) */
static const int MFEM_FACE[6][4] = {{3, 0, 4, 7}, {1, 2, 6, 5}, {0, 1, 5, 4}, {2, 3, 7, 6}, {3, 2, 1, 0}, {4, 5, 6, 7}};
static const int STD_TO_HX[8] = {0, 1, 3, 2, 4, 5, 7, 6};
static const char *GEOM_NAME[8] = {"point", "segment", "triangle", "square", "tetrahedron", "cube", "prism", "pyramid"};

typedef struct mtok {
  const char *path;
  const char *p, *end, *base;
} mtok;

static int line_of(const mtok *t) {
  int l = 1;
  for (const char *q = t->base; q < t->p; q++) l += *q == '\n';
  return l;
}

static void skip_blank(mtok *t) {
  for (;;) {
    while (t->p < t->end && isspace((unsigned char)*t->p)) t->p++;
    if (t->p < t->end && *t->p == '#') {
      while (t->p < t->end && *t->p != '\n') t->p++;
      continue;
    }
    break;
  }
}

/* next token, skipping blanks and # comments */
static int next_tok(mtok *t, char *out, size_t cap) {
  skip_blank(t);
  size_t n = 0;
  while (t->p < t->end && !isspace((unsigned char)*t->p)) {
    if (n + 1 < cap) out[n++] = *t->p;
    t->p++;
  }
  out[n] = 0;
  return n > 0;
}

/* the next token without taking it */
static int peek_tok(mtok *t, char *out, size_t cap) {
  mtok s = *t;
  return next_tok(&s, out, cap);
}

static int tok_ll(mtok *t, long long lo, long long hi, const char *what, long long *v) {
  char b[64];
  HX_CHECK(next_tok(t, b, sizeof b), HX_ERR_INPUT, "%s:%d: file ends where %s was expected", t->path, line_of(t), what);
  char *e;
  *v = strtoll(b, &e, 10);
  HX_CHECK(*e == 0 && *v >= lo && *v <= hi, HX_ERR_INPUT, "%s:%d: %s must be an integer in %lld..%lld, got '%s'", t->path,
           line_of(t), what, lo, hi, b);
  return HX_OK;
}

static int tok_double(mtok *t, const char *what, double *v) {
  char b[128];
  HX_CHECK(next_tok(t, b, sizeof b), HX_ERR_INPUT, "%s:%d: file ends where %s was expected", t->path, line_of(t), what);
  char *e;
  *v = strtod(b, &e);
  HX_CHECK(*e == 0 && isfinite(*v), HX_ERR_INPUT, "%s:%d: %s '%s' is not a finite number", t->path, line_of(t), what, b);
  return HX_OK;
}

static int expect(mtok *t, const char *word) {
  char b[128];
  int got = next_tok(t, b, sizeof b);
  HX_CHECK(got && !strcmp(b, word), HX_ERR_INPUT, "%s:%d: expected '%s', found %s%s%s", t->path, line_of(t), word,
           got ? "'" : "the end of the file", got ? b : "", got ? "'" : "");
  return HX_OK;
}

/* An attribute set name (MFEM's ArraysByName::Load: std::quoted, or one token). */
static int set_name(mtok *t, char *out, size_t cap) {
  skip_blank(t);
  HX_CHECK(t->p < t->end, HX_ERR_INPUT, "%s:%d: file ends where an attribute set name was expected", t->path, line_of(t));
  size_t n = 0;
  if (*t->p == '"') {
    t->p++;
    while (t->p < t->end && *t->p != '"') {
      if (*t->p == '\\' && t->p + 1 < t->end) t->p++;
      if (*t->p == '\n') break;
      if (n + 1 < cap) out[n++] = *t->p;
      t->p++;
    }
    HX_CHECK(t->p < t->end && *t->p == '"', HX_ERR_INPUT, "%s:%d: attribute set name without its closing '\"'", t->path,
             line_of(t));
    t->p++;
  } else {
    while (t->p < t->end && !isspace((unsigned char)*t->p)) {
      if (n + 1 < cap) out[n++] = *t->p;
      t->p++;
    }
  }
  out[n] = 0;
  return HX_OK;
}

/* attribute_sets / bdr_attribute_sets: "count", then per set "name", "size", size attributes.
   With m (boundary sets): a set of exactly one attribute names that boundary id. */
static int read_sets(mtok *t, hx_mesh *m) {
  long long ns, n, a;
  char name[128];
  HX_CALL(tok_ll(t, 0, 1000000, "the number of attribute sets", &ns));
  for (long long s = 0; s < ns; s++) {
    HX_CALL(set_name(t, name, sizeof name));
    HX_CALL(tok_ll(t, 0, 1000000, "the size of an attribute set", &n));
    for (long long q = 0; q < n; q++) {
      HX_CALL(tok_ll(t, 1, 1000000, "an attribute of a set", &a));
      if (m && n == 1 && name[0]) HX_CALL(hx_mesh_set_bname(m, (int)a, name));
    }
  }
  return HX_OK;
}

typedef struct mface {
  long long k[4]; /* vertex ids, sorted */
  long long e;
  int f;
} mface;

static void sort4ll(long long *v) {
  for (int a = 1; a < 4; a++)
    for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
      long long t = v[b];
      v[b] = v[b - 1];
      v[b - 1] = t;
    }
}

/* by vertex quadruple, then element and face (so equal keys keep mesh order) */
static int cmp_mface(const void *a, const void *b) {
  const mface *x = a, *y = b;
  for (int d = 0; d < 4; d++)
    if (x->k[d] != y->k[d]) return x->k[d] < y->k[d] ? -1 : 1;
  return 0;
}

static int cmp_mface_full(const void *a, const void *b) {
  int c = cmp_mface(a, b);
  if (c) return c;
  const mface *x = a, *y = b;
  if (x->e != y->e) return x->e < y->e ? -1 : 1;
  return x->f - y->f;
}

/* A nodes collection: H1 (continuous, global numbering) or L2, MFEM basis type, order. */
typedef struct mcoll {
  int h1, btype, order;
  int legacy; /* "Linear", "Quadratic", "Cubic": H1 on equispaced points; Cubic's interior dofs
                 run counter-clockwise per layer (LagrangeHexFiniteElement in fem/fe/fe_fixed_order.cpp) */
} mcoll;

/* "H1_3D_P2", "H1Pos_3D_P2", "H1@U_3D_P2", "L2_3D_P2", "L2_T1_3D_P2" (fem/fe_coll.cpp's names) */
static int parse_collection(const char *s, mcoll *c) {
  int n = -1, p = 0, bt = 0;
  char ch = 0;
  memset(c, 0, sizeof *c);
  if (!strcmp(s, "Linear") || !strcmp(s, "Quadratic") || !strcmp(s, "Cubic")) {
    c->h1 = 1, c->btype = 4, c->legacy = 1, c->order = s[0] == 'L' ? 1 : s[0] == 'Q' ? 2 : 3;
    return 1;
  }
  if (sscanf(s, "H1_3D_P%d%n", &p, &n) == 1 && n == (int)strlen(s)) c->h1 = 1, c->btype = 1;
  else if (n = -1, sscanf(s, "H1Pos_3D_P%d%n", &p, &n) == 1 && n == (int)strlen(s)) c->h1 = 1, c->btype = 2;
  else if (n = -1, sscanf(s, "H1@%c_3D_P%d%n", &ch, &p, &n) == 2 && n == (int)strlen(s)) {
    c->h1 = 1;
    c->btype = ch == 'G' || ch == 's' ? 1 : ch == 'P' ? 2 : ch == 'U' ? 4 : -1;
  } else if (n = -1, sscanf(s, "L2_3D_P%d%n", &p, &n) == 1 && n == (int)strlen(s)) c->btype = 0;
  else if (n = -1, sscanf(s, "L2_T%d_3D_P%d%n", &bt, &p, &n) == 2 && n == (int)strlen(s)) c->btype = bt >= 0 && bt <= 5 ? bt : -1;
  else return 0;
  c->order = p;
  return c->btype >= 0 && p >= 1 && p <= HX_MAX_ORDER;
}

/* B [nd][nd]: values at the GLL nodes of the coefficients in MFEM basis type bt (0 Gauss-Legendre,
   1 GLL, 2 Bernstein, 3 open uniform, 4 closed uniform, 5 open half-uniform; BasisType in
   fem/fe/fe_base.hpp). Exact: every basis spans the polynomials of degree nd - 1. */
static int basis_to_gll(int bt, int nd, double *B) {
  double g[HX_MAX_ND], w[HX_MAX_ND], x[HX_MAX_ND];
  HX_CALL(hx_gll(nd, g, w));
  int N = nd - 1;
  if (bt == 2) {
    for (int q = 0; q < nd; q++)
      for (int a = 0; a < nd; a++) {
        double c = 1;
        for (int r = 1; r <= a; r++) c = c * (N - a + r) / r;
        B[q * nd + a] = c * pow(g[q], a) * pow(1 - g[q], N - a);
      }
    return HX_OK;
  }
  if (bt == 0) HX_CALL(hx_gauss(nd, x, w));
  for (int a = 0; a < nd; a++) {
    if (bt == 1) x[a] = g[a];
    if (bt == 3) x[a] = (a + 1.0) / (nd + 1.0);
    if (bt == 4) x[a] = (double)a / N;
    if (bt == 5) x[a] = (a + 0.5) / nd;
  }
  hx_lagrange_matrices(nd, x, nd, g, B, NULL);
  if (bt == 1 || bt == 4) /* the end points are nodes of both sets: exact rows there */
    for (int a = 0; a < nd; a++) {
      B[a] = a == 0;
      B[N * nd + a] = a == N;
    }
  return HX_OK;
}

int hx_import_mfem(hx_comm comm, const char *path, hx_mesh **out) {
  hx_infile in;
  HX_CALL(hx_infile_read(&in, path));
  mtok t = {path, in.data, in.data + in.size, in.data};
  hx_mesh *m = NULL;
  mtok bsets = {0}; /* where bdr_attribute_sets start (read again once the mesh exists) */
  long long *ev = NULL, (*bf)[5] = NULL;
  int64_t *dof = NULL, *ev64 = NULL;
  double *vals = NULL;
  int rc = HX_OK, version = 0;
  char b[128];
  long long ne = 0, nbe = 0, nv = 0, dim = 0;
#define TRY(x)                                                                                                                   \
  do {                                                                                                                           \
    if ((rc = (x))) goto done;                                                                                                   \
  } while (0)
#define FAIL(...)                                                                                                                \
  do {                                                                                                                           \
    rc = HX_ERROR(HX_ERR_INPUT, __VA_ARGS__);                                                                                    \
    goto done;                                                                                                                   \
  } while (0)
  {
    size_t l = 0;
    while (l < in.size && l < 64 && in.data[l] != '\n' && in.data[l] != '\r') l++;
    char head[80];
    memcpy(head, in.data, l);
    head[l] = 0;
    if (!strcmp(head, "MFEM mesh v1.0")) version = 10;
    else if (!strcmp(head, "MFEM mesh v1.2")) version = 12;
    else if (!strcmp(head, "MFEM mesh v1.3")) version = 13;
    else if (!strncmp(head, "MFEM NC mesh", 12) || !strcmp(head, "MFEM mesh v1.1"))
      FAIL("%s:1: '%s' is a non-conforming mesh; only conforming meshes (MFEM mesh v1.0, v1.2, v1.3) are read", path, head);
    else if (!strncmp(head, "MFEM NURBS mesh", 15))
      FAIL("%s:1: '%s' is a NURBS mesh; only conforming meshes (MFEM mesh v1.0, v1.2, v1.3) are read", path, head);
    else FAIL("%s:1: expected 'MFEM mesh v1.0' (or v1.2, v1.3)", path);
    t.p += l;
  }
  TRY(expect(&t, "dimension"));
  TRY(tok_ll(&t, 1, 3, "the dimension", &dim));
  if (dim != 3) FAIL("%s:%d: the mesh is %lldD; only 3D hexahedral meshes are read", path, line_of(&t), dim);
  TRY(expect(&t, "elements"));
  TRY(tok_ll(&t, 1, (long long)in.size / 10, "the element count", &ne));
  TRY(hx_malloc((size_t)ne * 9 * sizeof(long long), &ev));
  for (long long e = 0; e < ne; e++) {
    long long a, g;
    TRY(tok_ll(&t, 1, INT32_MAX, "an element attribute", &a));
    TRY(tok_ll(&t, 0, 7, "an element geometry (0..7)", &g));
    if (g != 5)
      FAIL("%s:%d: element %lld is a %s (geometry %lld); only hexahedra (geometry 5, cube) are read", path, line_of(&t), e,
           GEOM_NAME[g], g);
    ev[e * 9] = a;
    for (int s = 0; s < 8; s++) TRY(tok_ll(&t, 0, INT64_MAX / 2, "a vertex index", &ev[e * 9 + 1 + s]));
  }
  if (peek_tok(&t, b, sizeof b) && !strcmp(b, "attribute_sets")) {
    next_tok(&t, b, sizeof b);
    TRY(read_sets(&t, NULL));
  } else if (version == 13) TRY(expect(&t, "attribute_sets"));
  TRY(expect(&t, "boundary"));
  TRY(tok_ll(&t, 0, (long long)in.size / 8, "the boundary element count", &nbe));
  TRY(hx_malloc(((size_t)nbe + 1) * sizeof *bf, &bf));
  for (long long q = 0; q < nbe; q++) {
    long long g;
    TRY(tok_ll(&t, 1, 1000000, "a boundary attribute", &bf[q][0]));
    TRY(tok_ll(&t, 0, 7, "a boundary geometry (0..7)", &g));
    if (g != 3)
      FAIL("%s:%d: boundary element %lld is a %s (geometry %lld); a hexahedral mesh has squares (geometry 3)", path, line_of(&t),
           q, GEOM_NAME[g], g);
    for (int s = 0; s < 4; s++) TRY(tok_ll(&t, 0, INT64_MAX / 2, "a vertex index", &bf[q][1 + s]));
  }
  if (peek_tok(&t, b, sizeof b) && !strcmp(b, "bdr_attribute_sets")) {
    next_tok(&t, b, sizeof b);
    bsets = t;
    TRY(read_sets(&t, NULL));
  } else if (version == 13) TRY(expect(&t, "bdr_attribute_sets"));
  TRY(expect(&t, "vertices"));
  /* every vertex has at least one value (a coordinate or a dof) in the file */
  TRY(tok_ll(&t, 1, (long long)in.size, "the vertex count", &nv));
  for (long long e = 0; e < ne * 8; e++)
    if (ev[(e / 8) * 9 + 1 + e % 8] >= nv)
      FAIL("%s:%d: element %lld uses vertex %lld, but the vertices section has %lld", path, line_of(&t), e / 8,
           (long long)ev[(e / 8) * 9 + 1 + e % 8], nv);
  for (long long q = 0; q < nbe; q++)
    for (int s = 0; s < 4; s++)
      if (bf[q][1 + s] >= nv)
        FAIL("%s:%d: boundary element %lld uses vertex %lld, but the vertices section has %lld", path, line_of(&t), q,
             bf[q][1 + s], nv);
  TRY(hx_malloc((size_t)ne * 8 * sizeof *ev64, &ev64));
  for (long long e = 0; e < ne; e++)
    for (int s = 0; s < 8; s++) ev64[e * 8 + s] = ev[e * 9 + 1 + s];
  if (!peek_tok(&t, b, sizeof b))
    FAIL("%s:%d: file ends where the vertex coordinates or 'nodes' were expected", path, line_of(&t));
  if (strcmp(b, "nodes")) {
    /* order 1: the vertices' coordinates */
    long long sdim;
    TRY(tok_ll(&t, 1, 3, "the space dimension", &sdim));
    if (sdim != 3) FAIL("%s:%d: the vertices have %lld coordinates; a 3D mesh needs 3", path, line_of(&t), sdim);
    if ((size_t)nv * 3 > (size_t)(t.end - t.p) / 2)
      FAIL("%s:%d: %lld vertices need %lld coordinates, but only %zu bytes are left", path, line_of(&t), nv, nv * 3,
           (size_t)(t.end - t.p));
    TRY(hx_malloc((size_t)nv * 3 * sizeof *vals, &vals));
    for (long long v = 0; v < nv * 3; v++) TRY(tok_double(&t, "vertex coordinate", &vals[v]));
    if (peek_tok(&t, b, sizeof b) && strcmp(b, "mfem_mesh_end")) {
      next_tok(&t, b, sizeof b);
      FAIL("%s:%d: the file goes on after the %lld vertices ('%s')", path, line_of(&t), nv, b);
    }
    TRY(hx_mesh_create(comm, 1, (hx_lid)ne, &m));
    for (long long e = 0; e < ne; e++)
      for (int s = 0; s < 8; s++) {
        int c = STD_TO_HX[s];
        long long v = ev64[e * 8 + s];
        for (int d = 0; d < 3; d++) hx_mesh_elem_x(m, e, d)[c] = vals[v * 3 + d];
        m->node_id[e * 8 + c] = v;
      }
  } else {
    next_tok(&t, b, sizeof b);
    int fes10 = 0;
    if (!next_tok(&t, b, sizeof b)) FAIL("%s:%d: file ends where 'FiniteElementSpace' was expected", path, line_of(&t));
    if (!strcmp(b, "MFEM")) {
      TRY(expect(&t, "FiniteElementSpace"));
      TRY(expect(&t, "v1.0"));
      fes10 = 1;
    } else if (strcmp(b, "FiniteElementSpace")) FAIL("%s:%d: expected 'FiniteElementSpace', found '%s'", path, line_of(&t), b);
    TRY(expect(&t, "FiniteElementCollection:"));
    mcoll col;
    if (!next_tok(&t, b, sizeof b) || !parse_collection(b, &col))
      FAIL("%s:%d: nodes collection '%s' is not read; known: H1_3D_P<N>, H1Pos_3D_P<N>, H1@G/P/U_3D_P<N>, L2_3D_P<N>, "
           "L2_T<0..5>_3D_P<N> (N = 1..%d), Linear, Quadratic, Cubic",
           path, line_of(&t), b, HX_MAX_ORDER);
    long long vdim, ordering;
    TRY(expect(&t, "VDim:"));
    TRY(tok_ll(&t, 3, 3, "VDim 3", &vdim));
    TRY(expect(&t, "Ordering:"));
    TRY(tok_ll(&t, 0, 1, "Ordering 0 or 1", &ordering));
    if (fes10) {
      TRY(expect(&t, "End:"));
      TRY(expect(&t, "MFEM"));
      TRY(expect(&t, "FiniteElementSpace"));
      TRY(expect(&t, "v1.0"));
    }
    int order = col.order, nd = order + 1;
    size_t npe = (size_t)nd * nd * nd;
    {
      /* refuse before allocating: the space has at least the elements' own dofs (all of them in L2,
         the interior ones in H1), each value at least 2 bytes */
      size_t m1 = (size_t)order - 1, own = col.h1 ? m1 * m1 * m1 : npe, left = (size_t)(t.end - t.p);
      if ((size_t)ne * own > left / 6)
        FAIL("%s:%d: %lld elements in %s need %zu node values or more, but only %zu bytes are left", path, line_of(&t), ne, b,
             (size_t)ne * own * 3, left);
    }
    TRY(hx_malloc((size_t)ne * npe * sizeof *dof, &dof));
    int64_t ndof = 0;
    if (col.h1) TRY(hx_mfem_h1_dofs(path, ne, ev64, nv, order, dof, &ndof));
    else {
      ndof = (int64_t)ne * (int64_t)npe;
      for (size_t p = 0; p < (size_t)ndof; p++) dof[p] = (int64_t)p;
    }
    if (col.legacy && order == 3) {
      /* the legacy cubic hex numbers its 8 interior dofs counter-clockwise per layer:
         (1,1) (2,1) (2,2) (1,2) at k = 1, then at k = 2 */
      static const int CCW[2][2] = {{0, 3}, {1, 2}}; /* [i-1][j-1] */
      for (long long e = 0; e < ne; e++) {
        int64_t *de = dof + (size_t)e * npe, i0 = de[hx_lex(nd, 1, 1, 1)];
        for (int k = 1; k <= 2; k++)
          for (int j = 1; j <= 2; j++)
            for (int i = 1; i <= 2; i++) de[hx_lex(nd, i, j, k)] = i0 + CCW[i - 1][j - 1] + 4 * (k - 1);
      }
    }
    /* refuse before allocating: every node value takes at least 2 bytes ("0 ") */
    size_t need = (size_t)ndof * 3, left = (size_t)(t.end - t.p);
    if (need > left / 2)
      FAIL("%s:%d: %lld elements in %s need %zu node values, but only %zu bytes are left", path, line_of(&t), ne, b, need, left);
    TRY(hx_malloc(need * sizeof *vals, &vals));
    for (size_t k = 0; k < need; k++) {
      char v[128];
      if (!next_tok(&t, v, sizeof v)) FAIL("%s:%d: the nodes end after %zu of %zu values", path, line_of(&t), k, need);
      char *e;
      double x = strtod(v, &e);
      if (*e || !isfinite(x)) FAIL("%s:%d: node value '%s' is not a finite number", path, line_of(&t), v);
      size_t d = ordering ? k / 3 : k % (size_t)ndof, c = ordering ? k % 3 : k / (size_t)ndof;
      vals[d * 3 + c] = x;
    }
    {
      /* nothing may follow but MFEM's end mark: left-over values mean the space was misread */
      char v[128];
      mtok after = t;
      if (next_tok(&after, v, sizeof v) && strcmp(v, "mfem_mesh_end"))
        FAIL("%s:%d: the file goes on after the %lld node dofs of %s ('%s'); the values do not fit the space", path,
             line_of(&after), (long long)ndof, b, v);
    }
    TRY(hx_mesh_create(comm, order, (hx_lid)ne, &m));
    double B[HX_MAX_ND * HX_MAX_ND], cf[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
    TRY(basis_to_gll(col.btype, nd, B));
    for (long long e = 0; e < ne; e++)
      for (int c = 0; c < 3; c++) {
        double *xe = hx_mesh_elem_x(m, e, c);
        for (size_t p = 0; p < npe; p++) cf[p] = vals[dof[(size_t)e * npe + p] * 3 + c];
        if (col.btype == 1) memcpy(xe, cf, npe * sizeof *xe);
        else hx_io_tensor3(nd, B, cf, xe);
      }
    if (col.h1) {
      memcpy(m->node_id, dof, (size_t)ne * npe * sizeof *dof);
      if (col.btype != 1) TRY(hx_io_unify_shared(m));
    } else {
      /* L2: node ids by coordinates (coincident nodes of neighbours carry equal values) */
      double *all = NULL;
      int64_t *rep = NULL;
      size_t nn = (size_t)ne * npe;
      TRY(hx_malloc(nn * 3 * sizeof(double), &all));
      if ((rc = hx_malloc(nn * sizeof(int64_t), &rep))) {
        hx_free(&all);
        goto done;
      }
      for (size_t p = 0; p < nn; p++)
        for (int c = 0; c < 3; c++) all[3 * p + c] = m->x[(p / npe * 3 + c) * npe + p % npe];
      double lo[3], hi[3];
      hx_mesh_bbox(m, lo, hi);
      double diag =
          sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
      rc = hx_io_merge_points((int64_t)nn, all, 1e-9 * (diag > 0 ? diag : 1), rep);
      for (size_t p = 0; p < nn && rc == HX_OK; p++) m->node_id[p] = rep[p];
      hx_free(&all);
      hx_free(&rep);
      if (rc) goto done;
    }
  }
  for (long long e = 0; e < ne; e++) {
    m->elem_attr[e] = (int32_t)ev[e * 9];
    for (int s = 0; s < 8; s++) m->vert_id[e * 8 + STD_TO_HX[s]] = ev64[e * 8 + s];
  }
  {
    /* boundary faces: match the face's vertex set to an element face through the
       element faces sorted by their sorted vertex quadruple (n log n, not ne x nbe) */
    mface *fs = NULL;
    TRY(hx_malloc(((size_t)ne * 6 + 1) * sizeof *fs, &fs));
    for (long long e = 0; e < ne; e++)
      for (int f = 0; f < 6; f++) {
        mface *x = &fs[e * 6 + f];
        for (int c = 0; c < 4; c++) x->k[c] = m->vert_id[e * 8 + STD_TO_HX[MFEM_FACE[f][c]]];
        sort4ll(x->k);
        x->e = e, x->f = f;
      }
    qsort(fs, (size_t)ne * 6, sizeof *fs, cmp_mface_full);
    for (long long q = 0; q < nbe && rc == HX_OK; q++) {
      mface key = {{bf[q][1], bf[q][2], bf[q][3], bf[q][4]}, 0, 0};
      sort4ll(key.k);
      /* the first match in (element, face) order */
      const mface *hit = bsearch(&key, fs, (size_t)ne * 6, sizeof *fs, cmp_mface);
      while (hit && hit > fs && !cmp_mface(hit - 1, &key)) hit--;
      if (!hit) rc = HX_ERROR(HX_ERR_INPUT, "%s: boundary element %lld is not a face of any element", path, q);
      else rc = hx_mesh_add_face(m, (hx_lid)hit->e, hit->f, (int)bf[q][0], -1);
    }
    hx_free(&fs);
    if (rc) goto done;
    if (bsets.path) TRY(read_sets(&bsets, m));
    /* names from our comments "# boundary ID NAME" */
    for (const char *p = in.data; (p = strstr(p, "\n# boundary ")); p++) {
      int id;
      char name[128];
      if (sscanf(p, "\n# boundary %d %127[^\n]", &id, name) == 2 && id >= 1 && id < 1000000) TRY(hx_mesh_set_bname(m, id, name));
    }
  }
done:
#undef TRY
#undef FAIL
  hx_free(&ev);
  hx_free(&ev64);
  hx_free(&bf);
  hx_free(&dof);
  hx_free(&vals);
  hx_infile_free(&in);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}
