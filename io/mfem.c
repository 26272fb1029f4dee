/* MFEM mesh v1.0 with curved nodes in L2_T1_3D_P<N> (GLL, element by element,
   lexicographic: exactly hexpack's E-vector), writer and reader.
   The H1_3D_P<N> global numbering (4.4) is not implemented: the reader names it. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_config.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "io_gather.h"

/* hexpack face -> its 4 standard corners in MFEM's outward order (MFEM's Geometry::Cube) */
static const int MFEM_FACE[6][4] = {{3, 0, 4, 7}, {1, 2, 6, 5}, {0, 1, 5, 4}, {2, 3, 7, 6}, {3, 2, 1, 0}, {4, 5, 6, 7}};
static const int STD_TO_HX[8] = {0, 1, 3, 2, 4, 5, 7, 6};

int hx_export_mfem(const hx_mesh *m, const char *path, const hx_export_opts *o) {
  hx_export_opts def;
  if (!o) {
    hx_export_opts_default(&def);
    o = &def;
  }
  /* rank 0 writes; the other ranks send their blocks and faces (io_gather.h) */
  hx_gsrc g;
  int order = hx_io_out_order(m, o);
  HX_CALL(hx_gsrc_open(m, order, hx_io_skip_detj(o), &g));
  if (!g.root) return hx_gsrc_serve(&g);
  hx_idmap vm;
  size_t n8 = (size_t)g.num_elem * 8;
  int rc = hx_idmap_init_range(&vm, g.vert_lo, g.vert_hi, n8 / 4 + 16);
  hx_outfile f;
  if (rc == HX_OK) {
    rc = hx_outfile_open(&f, path);
    if (rc) hx_idmap_free(&vm);
  }
  if (rc) return hx_gsrc_close(&g, rc);
  FILE *fp = f.fp;
  fprintf(fp, "MFEM mesh v1.0\n\n# written by hexpack %s: order %d, nodes L2_T1 (GLL, lexicographic per element)\n", HX_VERSION,
          order);
  for (int b = 1; b < m->num_bnames; b++)
    if (m->bnames[b] && !strchr(m->bnames[b], '\n')) fprintf(fp, "# boundary %d %s\n", b, m->bnames[b]);
  fprintf(fp, "\ndimension\n3\n\nelements\n%lld\n", (long long)g.num_elem);
  int64_t next = 0;
  int64_t vid[8];
  const hx_gblock *b = NULL;
  rc = hx_gsrc_pass(&g, HX_GS_VERT | HX_GS_ATTR);
  while (rc == HX_OK && (rc = hx_gsrc_next(&g, &b)) == HX_OK && b) {
    const hx_mesh *v = &b->view;
    for (hx_lid e = 0; e < b->count && rc == HX_OK; e++) {
      fprintf(fp, "%d 5", v->elem_attr[e] >= 1 ? v->elem_attr[e] : 1);
      for (int s = 0; s < 8; s++) {
        int64_t id = next;
        int ins = hx_idmap_insert(&vm, v->vert_id[(size_t)e * 8 + STD_TO_HX[s]], &id);
        if (ins < 0) rc = -ins;
        if (ins == 1) next++;
        fprintf(fp, " %lld", (long long)id);
      }
      fprintf(fp, "\n");
    }
  }
  /* boundary elements in (element, face) order */
  if (rc == HX_OK) {
    fprintf(fp, "\nboundary\n%lld\n", (long long)g.num_faces);
    rc = hx_gsrc_face_pass(&g, 0, HX_GF_VERT);
  }
  const hx_gfaces *fb = NULL;
  while (rc == HX_OK && (rc = hx_gsrc_next_faces(&g, &fb)) == HX_OK && fb)
    for (hx_lid q = 0; q < fb->count; q++) {
      const hx_gface *bf = &fb->f[q];
      fprintf(fp, "%d 3", bf->bid);
      for (int t = 0; t < 4; t++) {
        hx_idmap_find(&vm, fb->ids[(size_t)q * 8 + STD_TO_HX[MFEM_FACE[bf->face][t]]], &vid[t]);
        fprintf(fp, " %lld", (long long)vid[t]);
      }
      fprintf(fp, "\n");
    }
  fprintf(fp,
          "\nvertices\n%lld\n\nnodes\nFiniteElementSpace\nFiniteElementCollection: L2_T1_3D_P%d\nVDim: 3\n"
          "Ordering: 1\n\n",
          (long long)next, order);
  int npe = g.npe;
  if (rc == HX_OK) rc = hx_gsrc_pass(&g, HX_GS_X);
  while (rc == HX_OK && (rc = hx_gsrc_next(&g, &b)) == HX_OK && b) {
    const hx_mesh *v = &b->view;
    for (hx_lid e = 0; e < b->count; e++)
      for (int p = 0; p < npe; p++)
        fprintf(fp, "%.17g %.17g %.17g\n", hx_mesh_elem_x(v, e, 0)[p], hx_mesh_elem_x(v, e, 1)[p], hx_mesh_elem_x(v, e, 2)[p]);
  }
  hx_idmap_free(&vm);
  if (rc == HX_OK) rc = hx_outfile_commit(&f);
  else hx_outfile_abort(&f);
  return hx_gsrc_close(&g, rc);
}

/* ---- reader ---------------------------------------------------------------------- */

typedef struct mtok {
  const char *path;
  const char *p, *end, *base;
} mtok;

static int line_of(const mtok *t) {
  int l = 1;
  for (const char *q = t->base; q < t->p; q++) l += *q == '\n';
  return l;
}

/* next token, skipping blanks and # comments */
static int next_tok(mtok *t, char *out, size_t cap) {
  for (;;) {
    while (t->p < t->end && isspace((unsigned char)*t->p)) t->p++;
    if (t->p < t->end && *t->p == '#') {
      while (t->p < t->end && *t->p != '\n') t->p++;
      continue;
    }
    break;
  }
  size_t n = 0;
  while (t->p < t->end && !isspace((unsigned char)*t->p)) {
    if (n + 1 < cap) out[n++] = *t->p;
    t->p++;
  }
  out[n] = 0;
  return n > 0;
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

static int expect(mtok *t, const char *word) {
  char b[128];
  HX_CHECK(next_tok(t, b, sizeof b) && !strcmp(b, word), HX_ERR_INPUT, "%s:%d: expected '%s', found '%s'", t->path, line_of(t),
           word, b);
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

int hx_import_mfem(hx_comm comm, const char *path, hx_mesh **out) {
  hx_infile in;
  HX_CALL(hx_infile_read(&in, path));
  mtok t = {path, in.data, in.data + in.size, in.data};
  hx_mesh *m = NULL;
  long long *ev = NULL, (*bf)[6] = NULL;
  int rc = HX_OK;
  char b[128];
  long long ne = 0, nbe = 0, nv = 0, dim = 0;
#define TRY(x)                                                                                                                   \
  do {                                                                                                                           \
    if ((rc = (x))) goto done;                                                                                                   \
  } while (0)
  if (in.size < 14 || (strncmp(in.data, "MFEM mesh v1.0", 14) && strncmp(in.data, "MFEM mesh v1.2", 14) &&
                       strncmp(in.data, "MFEM mesh v1.3", 14))) {
    rc = HX_ERROR(HX_ERR_INPUT, "%s:1: expected 'MFEM mesh v1.0' (v1.2, v1.3 also read; NC and NURBS meshes are not)", path);
    goto done;
  }
  t.p += 14;
  TRY(expect(&t, "dimension"));
  TRY(tok_ll(&t, 3, 3, "the dimension (3)", &dim));
  TRY(expect(&t, "elements"));
  TRY(tok_ll(&t, 1, (long long)in.size / 10, "the element count", &ne));
  TRY(hx_malloc((size_t)ne * 9 * sizeof(long long), &ev));
  for (long long e = 0; e < ne; e++) {
    long long a, g;
    TRY(tok_ll(&t, 1, INT32_MAX, "an element attribute", &a));
    TRY(tok_ll(&t, 5, 5, "geometry 5 (cube)", &g));
    ev[e * 9] = a;
    for (int s = 0; s < 8; s++) TRY(tok_ll(&t, 0, INT64_MAX / 2, "a vertex index", &ev[e * 9 + 1 + s]));
  }
  TRY(expect(&t, "boundary"));
  TRY(tok_ll(&t, 0, (long long)in.size / 8, "the boundary element count", &nbe));
  TRY(hx_malloc(((size_t)nbe + 1) * sizeof *bf, &bf));
  for (long long q = 0; q < nbe; q++) {
    long long g;
    TRY(tok_ll(&t, 1, 1000000, "a boundary attribute", &bf[q][0]));
    TRY(tok_ll(&t, 3, 3, "geometry 3 (square)", &g));
    for (int s = 0; s < 4; s++) TRY(tok_ll(&t, 0, INT64_MAX / 2, "a vertex index", &bf[q][1 + s]));
  }
  TRY(expect(&t, "vertices"));
  TRY(tok_ll(&t, 1, INT64_MAX / 2, "the vertex count", &nv));
  for (long long e = 0; e < ne * 8; e++)
    if (ev[(e / 8) * 9 + 1 + e % 8] >= nv) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s: element %lld uses vertex %lld of %lld", path, e / 8,
                    (long long)ev[(e / 8) * 9 + 1 + e % 8], nv);
      goto done;
    }
  TRY(expect(&t, "nodes"));
  TRY(expect(&t, "FiniteElementSpace"));
  TRY(expect(&t, "FiniteElementCollection:"));
  int order = 0;
  if (!next_tok(&t, b, sizeof b) || sscanf(b, "L2_T1_3D_P%d", &order) != 1 || order < 1 || order > HX_MAX_ORDER) {
    rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: nodes collection '%s' is not read; known: L2_T1_3D_P<N> (N = 1..%d)", path, line_of(&t),
                  b, HX_MAX_ORDER);
    goto done;
  }
  long long vdim, ordering;
  TRY(expect(&t, "VDim:"));
  TRY(tok_ll(&t, 3, 3, "VDim 3", &vdim));
  TRY(expect(&t, "Ordering:"));
  TRY(tok_ll(&t, 0, 1, "Ordering 0 or 1", &ordering));
  {
    /* refuse before allocating: every node value takes at least 2 bytes ("0 ") */
    size_t nd1 = (size_t)order + 1, need = (size_t)ne * nd1 * nd1 * nd1 * 3, left = (size_t)(t.end - t.p);
    if (need > left / 2) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: %lld elements of order %d need %zu node values, but only %zu bytes are left", path,
                    line_of(&t), ne, order, need, left);
      goto done;
    }
  }
  TRY(hx_mesh_create(comm, order, (hx_lid)ne, &m));
  {
    size_t npe = (size_t)hx_mesh_nodes_per_elem(m), ndof = (size_t)ne * npe;
    for (size_t k = 0; k < 3 * ndof; k++) {
      if (!next_tok(&t, b, sizeof b)) {
        rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: the nodes end after %zu of %zu values", path, line_of(&t), k, 3 * ndof);
        goto done;
      }
      char *e;
      double v = strtod(b, &e);
      if (*e || !isfinite(v)) {
        rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: node value '%s' is not a finite number", path, line_of(&t), b);
        goto done;
      }
      size_t dof = ordering ? k / 3 : k % ndof, c = ordering ? k % 3 : k / ndof;
      m->x[(dof / npe * 3 + c) * npe + dof % npe] = v;
    }
    for (long long e = 0; e < ne; e++) {
      m->elem_attr[e] = (int32_t)ev[e * 9];
      for (int s = 0; s < 8; s++) m->vert_id[e * 8 + STD_TO_HX[s]] = ev[e * 9 + 1 + s];
    }
    /* node ids: corners are the vertices; other nodes merged by coordinates */
    double *all = NULL;
    int64_t *rep = NULL;
    TRY(hx_malloc(ndof * 3 * sizeof(double), &all));
    if ((rc = hx_malloc(ndof * sizeof(int64_t), &rep))) {
      hx_free(&all);
      goto done;
    }
    for (size_t p = 0; p < ndof; p++)
      for (int c = 0; c < 3; c++) all[3 * p + c] = m->x[(p / npe * 3 + c) * npe + p % npe];
    double lo[3], hi[3];
    hx_mesh_bbox(m, lo, hi);
    double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    rc = hx_io_merge_points((int64_t)ndof, all, 1e-9 * (diag > 0 ? diag : 1), rep);
    for (size_t p = 0; p < ndof && rc == HX_OK; p++) m->node_id[p] = rep[p];
    hx_free(&all);
    hx_free(&rep);
    if (rc) goto done;
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
      /* the first match in (element, face) order, as the former linear search found */
      const mface *hit = bsearch(&key, fs, (size_t)ne * 6, sizeof *fs, cmp_mface);
      while (hit && hit > fs && !cmp_mface(hit - 1, &key)) hit--;
      if (!hit) rc = HX_ERROR(HX_ERR_INPUT, "%s: boundary element %lld is not a face of any element", path, q + 1);
      else rc = hx_mesh_add_face(m, (hx_lid)hit->e, hit->f, (int)bf[q][0], -1);
    }
    hx_free(&fs);
    if (rc) goto done;
    /* names from our comments "# boundary ID NAME" */
    for (const char *p = in.data; (p = strstr(p, "\n# boundary ")); p++) {
      int id;
      char name[128];
      if (sscanf(p, "\n# boundary %d %127[^\n]", &id, name) == 2 && id >= 1 && id < 1000000) TRY(hx_mesh_set_bname(m, id, name));
    }
  }
done:
#undef TRY
  hx_free(&ev);
  hx_free(&bf);
  hx_infile_free(&in);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}
