/* MFEM mesh v1.0 writer: curved nodes in L2_T1_3D_P<N> (GLL, element by element, lexicographic:
   exactly hexpack's E-vector; the default) or H1_3D_P<N> (GLL, MFEM's global numbering of
   vertices, edges, faces and interiors, mfem_h1.c; o->mfem_h1). The reader is mfem_read.c. */
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

/* H1 nodes: every element's GLL nodes stored at their global dof (mfem_h1.c), then the dofs in
   order, one per line (Ordering 1: x y z). Shared dofs get the same value from every element. */
static int write_h1_nodes(hx_gsrc *g, const char *path, const int64_t *ev, int64_t nv, FILE *fp) {
  size_t npe = (size_t)g->npe;
  int64_t *dof = NULL, ndof = 0;
  double *val = NULL;
  const hx_gblock *b = NULL;
  int rc = hx_malloc((size_t)g->num_elem * npe * sizeof *dof + 1, &dof);
  if (rc == HX_OK) rc = hx_mfem_h1_dofs(path, g->num_elem, ev, nv, g->order, dof, &ndof);
  if (rc == HX_OK) rc = hx_malloc((size_t)ndof * 3 * sizeof *val + 1, &val);
  if (rc == HX_OK) rc = hx_gsrc_pass(g, HX_GS_X);
  while (rc == HX_OK && (rc = hx_gsrc_next(g, &b)) == HX_OK && b)
    for (hx_lid e = 0; e < b->count; e++)
      for (size_t p = 0; p < npe; p++)
        for (int c = 0; c < 3; c++) val[dof[(size_t)(b->e0 + e) * npe + p] * 3 + c] = hx_mesh_elem_x(&b->view, e, c)[p];
  for (int64_t d = 0; rc == HX_OK && d < ndof; d++)
    fprintf(fp, "%.17g %.17g %.17g\n", val[3 * d], val[3 * d + 1], val[3 * d + 2]);
  hx_free(&dof);
  hx_free(&val);
  return rc;
}

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
  int h1 = o->mfem_h1;
  int64_t *ev = NULL; /* H1: [num_elem][8] the vertex indices of the file, standard corner order */
  int rc = hx_idmap_init_range(&vm, g.vert_lo, g.vert_hi, n8 / 4 + 16);
  if (rc == HX_OK && h1 && (rc = hx_malloc((n8 + 1) * sizeof *ev, &ev))) hx_idmap_free(&vm);
  hx_outfile f;
  if (rc == HX_OK) {
    rc = hx_outfile_open(&f, path);
    if (rc) hx_idmap_free(&vm);
  }
  if (rc) {
    hx_free(&ev);
    return hx_gsrc_close(&g, rc);
  }
  FILE *fp = f.fp;
  fprintf(fp, "MFEM mesh v1.0\n\n# written by hexpack %s: order %d, nodes %s\n", HX_VERSION, order,
          h1 ? "H1 (GLL, MFEM's global dof numbering)" : "L2_T1 (GLL, lexicographic per element)");
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
        if (ev) ev[(size_t)(b->e0 + e) * 8 + s] = id;
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
          "\nvertices\n%lld\n\nnodes\nFiniteElementSpace\nFiniteElementCollection: %s_3D_P%d\nVDim: 3\n"
          "Ordering: 1\n\n",
          (long long)next, h1 ? "H1" : "L2_T1", order);
  int npe = g.npe;
  if (h1 && rc == HX_OK) {
    rc = write_h1_nodes(&g, path, ev, next, fp);
  } else {
    if (rc == HX_OK) rc = hx_gsrc_pass(&g, HX_GS_X);
    while (rc == HX_OK && (rc = hx_gsrc_next(&g, &b)) == HX_OK && b) {
      const hx_mesh *v = &b->view;
      for (hx_lid e = 0; e < b->count; e++)
        for (int p = 0; p < npe; p++)
          fprintf(fp, "%.17g %.17g %.17g\n", hx_mesh_elem_x(v, e, 0)[p], hx_mesh_elem_x(v, e, 1)[p], hx_mesh_elem_x(v, e, 2)[p]);
    }
  }
  hx_free(&ev);
  hx_idmap_free(&vm);
  if (rc == HX_OK) rc = hx_outfile_commit(&f);
  else hx_outfile_abort(&f);
  return hx_gsrc_close(&g, rc);
}
