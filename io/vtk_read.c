/* Legacy VTK (.vtk) UNSTRUCTURED_GRID reader: ASCII and BINARY (big-endian), file versions 2.0 to
   5.1, hexahedral cells of one order: VTK_HEXAHEDRON (12), VTK_QUADRATIC_HEXAHEDRON (25, the
   20-node serendipity cell), VTK_TRIQUADRATIC_HEXAHEDRON (29) and VTK_LAGRANGE_HEXAHEDRON (72).

   design:
   1. sections by keyword: POINTS, CELLS (count-prefixed lists before 5.1; OFFSETS and
      CONNECTIVITY arrays in 5.1), CELL_TYPES, CELL_DATA (an integer SCALARS array named
      material, region or attribute gives the element attributes); METADATA blocks and FIELD
      arrays are skipped; every array is ASCII tokens or raw big-endian values;
   2. a cell's points in VTK order are placed on the equispaced (N+1)^3 grid (Lagrange order of
      vtkHigherOrderHexahedron, which for N = 2 is type 29's; type 25 is its first 20 points),
      the 20-node cell gets its face and body centres from its serendipity interpolant, which is
      exact: the serendipity space lies in the triquadratic one, so the order-2 Lagrange cell
      through the 20 nodes and those 7 values is the serendipity map itself; then the
      equispaced grid is re-interpolated to GLL;
   3. node ids: VTK point indices; a file of 25 cells or of points never shared is merged by
      coordinates; every exterior face gets boundary id 1 ("boundary"), legacy VTK has none.
   Errors name the file and the byte offset. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "io_impl.h"

typedef hx_vtk_cursor vcur; /* the shared legacy-VTK cursor (vtk_legacy.c), positions in bytes */

static long off_of(const vcur *c) { return (long)(c->p - c->base); }

static int word_ll(vcur *c, long long lo, long long hi, const char *what, long long *v) {
  char b[64];
  long at = off_of(c);
  HX_CHECK(hx_vtk_word(c, b, sizeof b), HX_ERR_INPUT, "%s: byte %ld: file ends where %s was expected", c->path, at, what);
  char *e;
  *v = strtoll(b, &e, 10);
  HX_CHECK(*e == 0 && *v >= lo && *v <= hi, HX_ERR_INPUT, "%s: byte %ld: %s must be an integer in %lld..%lld, got '%s'", c->path,
           at, what, lo, hi, b);
  return HX_OK;
}

/* n values of type t at the cursor into dv (doubles) or iv (int64); ASCII tokens or raw big-endian
   bytes (after the header line's newline) */
static int read_values(vcur *c, const char *t, size_t n, double *dv, int64_t *iv, const char *what) {
  int fl = 0, sgn = 1, sz = hx_vtk_type(t, &fl, &sgn);
  HX_CHECK(sz > 0, HX_ERR_INPUT, "%s: byte %ld: data type '%s' of %s is not read", c->path, off_of(c), t, what);
  if (!c->binary) {
    char b[128];
    for (size_t k = 0; k < n; k++) {
      long at = off_of(c);
      HX_CHECK(hx_vtk_word(c, b, sizeof b), HX_ERR_INPUT, "%s: byte %ld: %s end after %zu of %zu values", c->path, at, what, k,
               n);
      char *e;
      if (dv) {
        dv[k] = strtod(b, &e);
        HX_CHECK(*e == 0 && isfinite(dv[k]), HX_ERR_INPUT, "%s: byte %ld: %s: '%s' is not a finite number", c->path, at, what, b);
      } else {
        long long v = strtoll(b, &e, 10);
        HX_CHECK(*e == 0, HX_ERR_INPUT, "%s: byte %ld: %s: '%s' is not an integer", c->path, at, what, b);
        iv[k] = v;
      }
    }
    return HX_OK;
  }
  /* binary: the data starts after the newline that ends the header line */
  while (c->p < c->end && *c->p != '\n') c->p++;
  HX_CHECK(c->p < c->end, HX_ERR_INPUT, "%s: byte %ld: file ends before the binary %s", c->path, off_of(c), what);
  c->p++;
  HX_CHECK((size_t)(c->end - c->p) / (size_t)sz >= n, HX_ERR_INPUT, "%s: byte %ld: %s need %zu bytes, %zu are left", c->path,
           off_of(c), what, n * (size_t)sz, (size_t)(c->end - c->p));
  const unsigned char *q = (const unsigned char *)c->p;
  for (size_t k = 0; k < n; k++, q += sz) {
    int64_t i;
    double d = hx_vtk_be_value(q, sz, fl, sgn, &i);
    if (fl) {
      /* integers stored as reals (an index array of type float): only finite, in range */
      if (!dv) {
        HX_CHECK(isfinite(d) && fabs(d) < 9.0e18, HX_ERR_INPUT, "%s: byte %ld: %s: value %zu is not an integer", c->path,
                 (long)((const char *)q - c->base), what, k);
        i = (int64_t)d;
      }
    }
    if (dv) {
      HX_CHECK(isfinite(d), HX_ERR_INPUT, "%s: byte %ld: %s: value %zu is not a finite number", c->path,
               (long)((const char *)q - c->base), what, k);
      dv[k] = d;
    } else iv[k] = i;
  }
  c->p = (const char *)q;
  return HX_OK;
}

/* cell arrays taken as element attributes */
static int is_attr_name(const char *n) {
  return !strcmp(n, "material") || !strcmp(n, "region") || !strcmp(n, "attribute") || !strcmp(n, "block_id");
}

/* refuse before allocating: n values of type t need at least n * size bytes (binary) or 2 n bytes
   (ASCII: a digit and a separator) in what is left of the file */
static int values_fit(const vcur *c, const char *t, size_t n, const char *what) {
  int fl = 0, sg = 1, sz = hx_vtk_type(t, &fl, &sg);
  size_t per = c->binary ? (size_t)(sz > 0 ? sz : 1) : 2, left = (size_t)(c->end - c->p);
  HX_CHECK(n <= left / per, HX_ERR_INPUT, "%s: byte %ld: %s: %zu values cannot fit in the %zu bytes left", c->path, off_of(c),
           what, n, left);
  return HX_OK;
}

/* the serendipity interpolant of a 20-node cell at its face and body centres (equispaced lex
   3x3x3 grid, one component): face centre = 1/2 (its 4 edge midpoints) - 1/4 (its 4 corners),
   body centre = 1/4 (12 edge midpoints) - 1/4 (8 corners) (the 20-node shape functions there) */
static void serendipity_centres(double *g) {
  for (int d = 0; d < 3; d++)
    for (int s = 0; s <= 2; s += 2) {
      double edges = 0, corners = 0;
      for (int a = 0; a <= 2; a++)
        for (int b = 0; b <= 2; b++) {
          if (a == 1 && b == 1) continue;
          int X[3];
          X[d] = s, X[(d + 1) % 3] = a, X[(d + 2) % 3] = b;
          double v = g[X[0] + 3 * (X[1] + 3 * X[2])];
          if (a == 1 || b == 1) edges += v;
          else corners += v;
        }
      int X[3];
      X[d] = s, X[(d + 1) % 3] = 1, X[(d + 2) % 3] = 1;
      g[X[0] + 3 * (X[1] + 3 * X[2])] = 0.5 * edges - 0.25 * corners;
    }
  double edges = 0, corners = 0;
  for (int k = 0; k <= 2; k++)
    for (int j = 0; j <= 2; j++)
      for (int i = 0; i <= 2; i++) {
        int nb = (i != 1) + (j != 1) + (k != 1);
        if (nb == 3) corners += g[i + 3 * (j + 3 * k)];
        if (nb == 2) edges += g[i + 3 * (j + 3 * k)];
      }
  g[13] = 0.25 * edges - 0.25 * corners;
}

void hx_io_serendipity_centres(double *g27) { serendipity_centres(g27); }

int hx_import_vtk(hx_comm comm, const char *path, hx_mesh **out) {
  hx_infile in;
  HX_CALL(hx_infile_read(&in, path));
  vcur c = {path, in.data, in.data, in.data + in.size, 0, 0};
  hx_mesh *m = NULL;
  double *pts = NULL;
  int64_t *cells = NULL, *offs = NULL, *types = NULL, *attr = NULL, *rep = NULL;
  long long np = -1, nc = -1, nconn = 0;
  int rc = HX_OK, v51 = 0;
  char b[256], t[64];
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
    /* line 1: version, line 2: title, line 3: ASCII | BINARY, then DATASET */
    int maj = 0, min = 0;
    if (sscanf(in.data, "# vtk DataFile Version %d.%d", &maj, &min) != 2)
      FAIL("%s: byte 0: expected '# vtk DataFile Version X.Y' (a legacy VTK file)", path);
    v51 = maj > 5 || (maj == 5 && min >= 1);
    for (int l = 0; l < 2; l++) {
      const char *nl = memchr(c.p, '\n', (size_t)(c.end - c.p));
      if (!nl) FAIL("%s: byte %ld: file ends in the header", path, off_of(&c));
      c.p = nl + 1;
    }
    hx_vtk_word(&c, b, sizeof b);
    if (!strcmp(b, "BINARY")) c.binary = 1;
    else if (strcmp(b, "ASCII")) FAIL("%s: byte %ld: expected ASCII or BINARY, found '%s'", path, off_of(&c), b);
    hx_vtk_word(&c, b, sizeof b);
    hx_vtk_word(&c, t, sizeof t);
    if (strcmp(b, "DATASET") || strcmp(t, "UNSTRUCTURED_GRID"))
      FAIL("%s: byte %ld: expected 'DATASET UNSTRUCTURED_GRID', found '%s %s'", path, off_of(&c), b, t);
  }
  int in_cell_data = 0;
  while (hx_vtk_word(&c, b, sizeof b)) {
    if (!strcmp(b, "METADATA")) {
      hx_vtk_skip_metadata(&c);
    } else if (!strcmp(b, "POINTS")) {
      TRY(word_ll(&c, 0, (long long)in.size, "the point count", &np));
      if (!hx_vtk_word(&c, t, sizeof t)) FAIL("%s: byte %ld: POINTS without a data type", path, off_of(&c));
      if (pts) FAIL("%s: byte %ld: a second POINTS section", path, off_of(&c));
      TRY(values_fit(&c, t, (size_t)np * 3, "POINTS"));
      TRY(hx_malloc(((size_t)np * 3 + 1) * sizeof *pts, &pts));
      TRY(read_values(&c, t, (size_t)np * 3, pts, NULL, "POINTS"));
    } else if (!strcmp(b, "CELLS")) {
      long long n1, n2;
      TRY(word_ll(&c, 0, (long long)in.size, "the CELLS count", &n1));
      TRY(word_ll(&c, 0, (long long)in.size, "the CELLS size", &n2));
      if (cells) FAIL("%s: byte %ld: a second CELLS section", path, off_of(&c));
      if (v51) {
        /* OFFSETS type, n1 values; CONNECTIVITY type, n2 values */
        nc = n1 - 1, nconn = n2;
        if (nc < 0) FAIL("%s: byte %ld: CELLS %lld: 5.1 files give the offsets count (cells + 1)", path, off_of(&c), n1);
        if (!hx_vtk_word(&c, b, sizeof b) || strcmp(b, "OFFSETS") || !hx_vtk_word(&c, t, sizeof t))
          FAIL("%s: byte %ld: expected 'OFFSETS <type>' (file version 5.1)", path, off_of(&c));
        TRY(values_fit(&c, t, (size_t)n1, "OFFSETS"));
        TRY(hx_malloc((size_t)n1 * sizeof *offs + 8, &offs));
        TRY(read_values(&c, t, (size_t)n1, NULL, offs, "OFFSETS"));
        if (!hx_vtk_word(&c, b, sizeof b) || strcmp(b, "CONNECTIVITY") || !hx_vtk_word(&c, t, sizeof t))
          FAIL("%s: byte %ld: expected 'CONNECTIVITY <type>' (file version 5.1)", path, off_of(&c));
        TRY(values_fit(&c, t, (size_t)n2, "CONNECTIVITY"));
        TRY(hx_malloc((size_t)n2 * sizeof *cells + 8, &cells));
        TRY(read_values(&c, t, (size_t)n2, NULL, cells, "CONNECTIVITY"));
        if (offs[0] != 0 || offs[nc] != n2)
          FAIL("%s: OFFSETS run from %lld to %lld; expected 0 to %lld", path, (long long)offs[0], (long long)offs[nc], n2);
      } else {
        /* per cell: point count, then the points (int) */
        nc = n1;
        TRY(values_fit(&c, "int", (size_t)n2, "CELLS"));
        TRY(hx_malloc((size_t)n2 * sizeof *cells + 8, &cells));
        TRY(read_values(&c, "int", (size_t)n2, NULL, cells, "CELLS"));
        TRY(hx_malloc(((size_t)nc + 1) * sizeof *offs, &offs));
        long long q = 0, w = 0;
        for (long long e = 0; e < nc; e++) {
          if (q >= n2 || cells[q] < 0 || cells[q] > n2 - q - 1)
            FAIL("%s: CELLS: cell %lld's point count runs past the %lld values", path, e, n2);
          long long k = cells[q++];
          offs[e] = w;
          for (long long a = 0; a < k; a++) cells[w++] = cells[q++];
        }
        if (q != n2) FAIL("%s: CELLS: %lld cells use %lld of the %lld values given", path, nc, q, n2);
        offs[nc] = w, nconn = w;
      }
    } else if (!strcmp(b, "CELL_TYPES")) {
      long long n;
      TRY(word_ll(&c, 0, (long long)in.size, "the CELL_TYPES count", &n));
      if (n != nc) FAIL("%s: byte %ld: CELL_TYPES %lld, but CELLS has %lld cells", path, off_of(&c), n, nc);
      if (types) FAIL("%s: byte %ld: a second CELL_TYPES section", path, off_of(&c));
      TRY(hx_malloc(((size_t)n + 1) * sizeof *types, &types));
      TRY(read_values(&c, "int", (size_t)n, NULL, types, "CELL_TYPES"));
    } else if (!strcmp(b, "CELL_DATA") || !strcmp(b, "POINT_DATA")) {
      long long n;
      TRY(word_ll(&c, 0, (long long)in.size, "the data count", &n));
      in_cell_data = !strcmp(b, "CELL_DATA");
    } else if (!strcmp(b, "SCALARS")) {
      /* SCALARS name type [ncomp], LOOKUP_TABLE name, values */
      char name[128], look[64];
      long long ncomp = 1;
      if (!hx_vtk_word(&c, name, sizeof name) || !hx_vtk_word(&c, t, sizeof t))
        FAIL("%s: byte %ld: SCALARS without a name and type", path, off_of(&c));
      if (!hx_vtk_word(&c, look, sizeof look)) FAIL("%s: byte %ld: SCALARS %s without LOOKUP_TABLE", path, off_of(&c), name);
      if (strcmp(look, "LOOKUP_TABLE")) {
        ncomp = strtoll(look, NULL, 10);
        if (ncomp < 1 || ncomp > 4) FAIL("%s: byte %ld: SCALARS %s: %s components", path, off_of(&c), name, look);
        hx_vtk_word(&c, look, sizeof look);
      }
      if (strcmp(look, "LOOKUP_TABLE") || !hx_vtk_word(&c, look, sizeof look))
        FAIL("%s: byte %ld: SCALARS %s: expected 'LOOKUP_TABLE <name>'", path, off_of(&c), name);
      long long n = in_cell_data ? nc : np;
      if (n < 0) FAIL("%s: byte %ld: SCALARS %s before the cells and points", path, off_of(&c), name);
      int64_t *v = NULL;
      TRY(values_fit(&c, t, (size_t)n * (size_t)ncomp, name));
      TRY(hx_malloc(((size_t)n * (size_t)ncomp + 1) * sizeof *v, &v));
      int fl = 0, sg = 1;
      hx_vtk_type(t, &fl, &sg);
      double *dv = NULL;
      if (fl && (rc = hx_malloc(((size_t)n * (size_t)ncomp + 1) * sizeof *dv, &dv))) {
        hx_free(&v);
        goto done;
      }
      rc = read_values(&c, t, (size_t)n * (size_t)ncomp, dv, fl ? NULL : v, name);
      hx_free(&dv);
      if (rc == HX_OK && in_cell_data && ncomp == 1 && !fl && !attr && is_attr_name(name)) {
        attr = v;
        v = NULL;
      }
      hx_free(&v);
      if (rc) goto done;
    } else if (!strcmp(b, "FIELD")) {
      /* FIELD name n, then n arrays: name ncomp ntuples type, values */
      char name[128];
      long long na;
      if (!hx_vtk_word(&c, name, sizeof name)) FAIL("%s: byte %ld: FIELD without a name", path, off_of(&c));
      TRY(word_ll(&c, 0, 100000, "the FIELD array count", &na));
      for (long long a = 0; a < na; a++) {
        long long ncomp, ntup;
        if (!hx_vtk_word(&c, name, sizeof name)) FAIL("%s: byte %ld: FIELD array %lld without a name", path, off_of(&c), a);
        TRY(word_ll(&c, 1, 1000000, "a FIELD array's components", &ncomp));
        TRY(word_ll(&c, 0, (long long)in.size, "a FIELD array's tuples", &ntup));
        if (!hx_vtk_word(&c, t, sizeof t)) FAIL("%s: byte %ld: FIELD array %s without a type", path, off_of(&c), name);
        int fl = 0, sg = 1, sz = hx_vtk_type(t, &fl, &sg);
        if (!sz) FAIL("%s: byte %ld: FIELD array %s: data type '%s' is not read", path, off_of(&c), name, t);
        size_t n = (size_t)ncomp * (size_t)ntup;
        TRY(values_fit(&c, t, n, name));
        double *dv = NULL;
        TRY(hx_malloc((n + 1) * sizeof *dv, &dv));
        int64_t *iv = (int64_t *)dv;
        rc = read_values(&c, t, n, fl ? dv : NULL, fl ? NULL : iv, name);
        if (rc == HX_OK && in_cell_data && ncomp == 1 && ntup == nc && !fl && !attr && is_attr_name(name)) {
          attr = iv; /* what VTK's own writer makes of a cell array: a FIELD array */
          dv = NULL;
        }
        hx_free(&dv);
        if (rc) goto done;
      }
    } else if (!strcmp(b, "LOOKUP_TABLE") || !strcmp(b, "VECTORS") || !strcmp(b, "NORMALS") || !strcmp(b, "TENSORS") ||
               !strcmp(b, "COLOR_SCALARS") || !strcmp(b, "TEXTURE_COORDINATES")) {
      FAIL("%s: byte %ld: the attribute '%s' is not read; only SCALARS and FIELD arrays are (and skipped unless material/region)",
           path, off_of(&c), b);
    } else {
      FAIL("%s: byte %ld: unexpected keyword '%s'", path, off_of(&c) - (long)strlen(b), b);
    }
  }
  if (np < 0) FAIL("%s: no POINTS section", path);
  if (nc < 0) FAIL("%s: no CELLS section", path);
  if (!types) FAIL("%s: no CELL_TYPES section", path);
  if (nc == 0) FAIL("%s: the file has no cells", path);
  if (nc > INT32_MAX) FAIL("%s: %lld cells exceed the 32-bit local element index", path, nc);
  /* one order for every cell */
  int order = 0, any25 = 0;
  for (long long e = 0; e < nc; e++) {
    long long ty = types[e], k = offs[e + 1] - offs[e];
    int o = 0;
    if (ty == 12 && k == 8) o = 1;
    else if ((ty == 29 && k == 27) || (ty == 25 && k == 20)) o = 2, any25 |= ty == 25;
    else if (ty == 72) {
      o = (int)lround(cbrt((double)k)) - 1;
      if (o < 1 || o > HX_MAX_ORDER || (long long)(o + 1) * (o + 1) * (o + 1) != k)
        FAIL("%s: cell %lld (VTK_LAGRANGE_HEXAHEDRON) has %lld points, not (N+1)^3 for an order N in 1..%d", path, e, k,
             HX_MAX_ORDER);
    } else if (ty == 12 || ty == 25 || ty == 29) FAIL("%s: cell %lld of VTK type %lld has %lld points", path, e, ty, k);
    else FAIL("%s: cell %lld has VTK type %lld; only hexahedra are read (12, 25, 29, 72)", path, e, ty);
    if (e == 0) order = o;
    else if (o != order) FAIL("%s: cell %lld has order %d, cell 0 order %d; all cells must have one order", path, e, o, order);
  }
  for (long long i = 0; i < nconn; i++)
    if (cells[i] < 0 || cells[i] >= np)
      FAIL("%s: connectivity entry %lld = %lld is outside the %lld points", path, i, (long long)cells[i], np);
  int nd = order + 1, npe = nd * nd * nd;
  int pos2lex[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  hx_vtk_hex_order(order, pos2lex);
  if (!v51 && order > 1 && types[0] == 72) {
    /* before 5.1: VTK 8's order, the vertical edges (1,1) and (0,1) swapped */
    int m1 = order - 1, e10 = 8 + 10 * m1, e11 = 8 + 11 * m1;
    for (int q = 0; q < m1; q++) {
      int tmp = pos2lex[e10 + q];
      pos2lex[e10 + q] = pos2lex[e11 + q];
      pos2lex[e11 + q] = tmp;
    }
  }
  TRY(hx_mesh_create(comm, order, (hx_lid)nc, &m));
  {
    double B[HX_MAX_ND * HX_MAX_ND], eq[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
    TRY(hx_io_interp_matrix(nd, 0, B));
    for (long long e = 0; e < nc; e++) {
      const int64_t *ce = cells + offs[e];
      int k = (int)(offs[e + 1] - offs[e]);
      for (int d = 0; d < 3; d++) {
        for (int p = 0; p < k; p++) eq[pos2lex[p]] = pts[3 * ce[p] + d];
        if (k == 20) serendipity_centres(eq);
        hx_io_tensor3(nd, B, eq, hx_mesh_elem_x(m, (hx_lid)e, d));
      }
      for (int p = 0; p < npe; p++) m->node_id[e * npe + p] = -1;
      for (int p = 0; p < k; p++) m->node_id[e * npe + pos2lex[p]] = ce[p];
    }
  }
  {
    /* merge by coordinates when the file does not share its points (or lacks the centres) */
    int shared = 0;
    unsigned char *used = NULL;
    TRY(hx_malloc((size_t)np + 1, &used));
    memset(used, 0, (size_t)np + 1);
    for (long long i = 0; i < nconn && !shared; i++) {
      if (used[cells[i]]) shared = 1;
      used[cells[i]] = 1;
    }
    hx_free(&used);
    if (any25 || (!shared && nc > 1)) {
      size_t n = (size_t)nc * (size_t)npe;
      double *all = NULL;
      TRY(hx_malloc(n * 3 * sizeof *all, &all));
      if ((rc = hx_malloc(n * sizeof *rep, &rep))) {
        hx_free(&all);
        goto done;
      }
      for (size_t p = 0; p < n; p++)
        for (int d = 0; d < 3; d++) all[3 * p + d] = hx_mesh_elem_x(m, (hx_lid)(p / (size_t)npe), d)[p % (size_t)npe];
      double lo[3], hi[3];
      hx_mesh_bbox(m, lo, hi);
      double diag =
          sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
      rc = hx_io_merge_points((int64_t)n, all, 1e-9 * (diag > 0 ? diag : 1), rep);
      hx_free(&all);
      if (rc) goto done;
      for (size_t p = 0; p < n; p++) m->node_id[p] = rep[p];
    }
  }
  hx_io_set_vert_ids(m);
  TRY(hx_io_unify_shared(m));
  if (attr)
    for (long long e = 0; e < nc; e++) m->elem_attr[e] = attr[e] >= 1 && attr[e] < INT32_MAX ? (int32_t)attr[e] : 1;
  TRY(hx_io_exterior_faces(m, 1, "boundary"));
done:
#undef TRY
#undef FAIL
  hx_free(&pts);
  hx_free(&cells);
  hx_free(&offs);
  hx_free(&types);
  hx_free(&attr);
  hx_free(&rep);
  hx_infile_free(&in);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}
