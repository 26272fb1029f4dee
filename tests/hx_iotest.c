/* Shared helpers of the format tests: test meshes, samples of our map, mesh comparison. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_box.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_iotest.h"

/* the cubic map of the single element: ref cube -> a twisted, bulged hex */
static void cubic_map(const double t[3], double X[3]) {
  double u = t[0], v = t[1], w = t[2];
  X[0] = 2.0 * u + 0.15 * v * v * w - 0.1 * u * u * u + 0.05 * v * w;
  X[1] = 1.5 * v + 0.2 * u * u * (1 - u) + 0.1 * w * w * w;
  X[2] = 1.0 * w + 0.12 * u * v * v + 0.08 * u * u * w;
}

int hx_iotest_single(int order, void (*map)(const double t[3], double X[3], void *ctx), void *ctx, hx_mesh **out) {
  hx_mesh *m;
  HX_CALL(hx_mesh_create(HX_COMM_SELF, order, 1, &m));
  int nd = m->nd;
  double g[HX_MAX_ND], w[HX_MAX_ND];
  hx_gll(nd, g, w);
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        double t[3] = {g[i], g[j], g[k]}, X[3];
        map(t, X, ctx);
        for (int c = 0; c < 3; c++) hx_mesh_elem_x(m, 0, c)[hx_lex(nd, i, j, k)] = X[c];
        m->node_id[hx_lex(nd, i, j, k)] = hx_lex(nd, i, j, k);
      }
  for (int c = 0; c < 8; c++) m->vert_id[c] = m->node_id[hx_corner_lex(nd, c)];
  *out = m;
  return HX_OK;
}

static void cubic_map_ctx(const double t[3], double X[3], void *ctx) {
  (void)ctx;
  cubic_map(t, X);
}

int hx_iotest_cubic(int order, hx_mesh **out) {
  hx_mesh *m;
  HX_CALL(hx_iotest_single(order, cubic_map_ctx, NULL, &m));
  for (int f = 0; f < 6; f++) HX_CALL(hx_mesh_add_face(m, 0, f, 1 + f % 3, -1));
  HX_CALL(hx_mesh_set_bname(m, 1, "one"));
  HX_CALL(hx_mesh_set_bname(m, 2, "two"));
  HX_CALL(hx_mesh_set_bname(m, 3, "three"));
  *out = m;
  return HX_OK;
}

/* 6 elements between spheres of radius 1 and 2 (a cubed-sphere shell), order N,
   outer faces on the sphere (surface 0), inner on surface 1. */
int hx_iotest_sphere(int order, hx_mesh **out) {
  hx_mesh *m;
  HX_CALL(hx_mesh_create(HX_COMM_SELF, order, 6, &m));
  int nd = m->nd;
  double g[HX_MAX_ND], w[HX_MAX_ND];
  hx_gll(nd, g, w);
  hx_surface so = {HX_SURF_SPHERE, {0, 0, 0}, {0, 0, 0}, 2.0}, si = {HX_SURF_SPHERE, {0, 0, 0}, {0, 0, 0}, 1.0};
  HX_CALL(hx_mesh_add_surface(m, &so, NULL));
  HX_CALL(hx_mesh_add_surface(m, &si, NULL));
  /* cube face e: axis a = e/2, sign s; local (u,v) along the two other axes chosen right-handed */
  for (int e = 0; e < 6; e++) {
    int a = e / 2, s = (e % 2) ? 1 : -1;
    int b = (a + 1) % 3, c = (a + 2) % 3;
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          double u = 2 * g[i] - 1, v = 2 * g[j] - 1, r = 1 + g[k];
          if (s < 0) u = -u; /* keep the element right-handed */
          double p[3];
          p[a] = s, p[b] = u, p[c] = v;
          double len = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
          for (int d = 0; d < 3; d++) hx_mesh_elem_x(m, e, d)[hx_lex(nd, i, j, k)] = r * p[d] / len;
        }
    HX_CALL(hx_mesh_add_face(m, e, 5, 1, 0));
    HX_CALL(hx_mesh_add_face(m, e, 4, 2, 1));
  }
  /* node ids: merge equal coordinates (quadratic, fine for 6 elements) */
  size_t npe = (size_t)nd * nd * nd;
  /* simpler and exact: merge by coordinate through a sort of rounded keys */
  for (size_t p = 0; p < 6 * npe; p++) m->node_id[p] = -1;
  hx_gid next = 0;
  for (size_t p = 0; p < 6 * npe; p++) {
    if (m->node_id[p] >= 0) continue;
    size_t e = p / npe, q = p % npe;
    m->node_id[p] = next;
    for (size_t r = p + 1; r < 6 * npe; r++) {
      size_t f = r / npe, t = r % npe;
      double d = 0;
      for (int c = 0; c < 3; c++) {
        double z = hx_mesh_elem_x(m, (hx_lid)e, c)[q] - hx_mesh_elem_x(m, (hx_lid)f, c)[t];
        d += z * z;
      }
      if (d < 1e-20) {
        m->node_id[r] = next;
        for (int c = 0; c < 3; c++) hx_mesh_elem_x(m, (hx_lid)f, c)[t] = hx_mesh_elem_x(m, (hx_lid)e, c)[q];
      }
    }
    next++;
  }
  for (int e = 0; e < 6; e++)
    for (int c = 0; c < 8; c++) m->vert_id[e * 8 + c] = m->node_id[e * npe + hx_corner_lex(nd, c)];
  HX_CALL(hx_mesh_set_bname(m, 1, "outer"));
  HX_CALL(hx_mesh_set_bname(m, 2, "inner"));
  *out = m;
  return HX_OK;
}

int hx_iotest_make(const char *kind, int order, hx_mesh **m) {
  if (!strcmp(kind, "cubic")) return hx_iotest_cubic(order, m);
  if (!strcmp(kind, "sphere")) return hx_iotest_sphere(order, m);
  hx_box_opts o;
  hx_box_opts_default(&o);
  o.order = order;
  if (!strcmp(kind, "kershaw")) {
    o.n[0] = 6, o.n[1] = 2, o.n[2] = 2;
    o.kershaw = 1;
    o.eps_y = o.eps_z = 0.3;
  } else if (!strcmp(kind, "box")) {
    o.n[0] = 3, o.n[1] = 2, o.n[2] = 2;
    o.separate_ids = 1;
  } else {
    fprintf(stderr, "unknown kind %s\n", kind);
    return HX_ERR_INPUT;
  }
  return hx_mesher_box(HX_COMM_SELF, &o, m);
}

/* our map at reference point t: the tensor GLL interpolant of one component */
double hx_iotest_eval(int nd, const double *g, const double *xc, const double t[3]) {
  double p0[HX_MAX_ND], p1[HX_MAX_ND], p2[HX_MAX_ND];
  hx_lagrange_eval(nd, g, t[0], p0, NULL);
  hx_lagrange_eval(nd, g, t[1], p1, NULL);
  hx_lagrange_eval(nd, g, t[2], p2, NULL);
  double s = 0;
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) s += p0[i] * p1[j] * p2[k] * xc[hx_lex(nd, i, j, k)];
  return s;
}

void hx_iotest_samples(const hx_mesh *m, FILE *fp) {
  int nd = m->nd, N = m->order;
  double g[HX_MAX_ND], w[HX_MAX_ND];
  hx_gll(nd, g, w);
  unsigned s = 12345;
  for (hx_lid e = 0; e < m->num_elem; e++) {
    int ns = nd * nd * nd + 1 + 8;
    for (int q = 0; q < ns; q++) {
      double t[3];
      if (q < nd * nd * nd) {
        t[0] = (double)(q % nd) / N, t[1] = (double)((q / nd) % nd) / N, t[2] = (double)(q / (nd * nd)) / N;
      } else if (q == nd * nd * nd) {
        t[0] = t[1] = t[2] = 0.5;
      } else {
        for (int d = 0; d < 3; d++) {
          s = s * 1103515245u + 12345u;
          t[d] = (double)((s >> 8) % 100000) / 100000.0;
        }
      }
      fprintf(fp, "%d %.17g %.17g %.17g", (int)e, t[0], t[1], t[2]);
      for (int c = 0; c < 3; c++) fprintf(fp, " %.17g", hx_iotest_eval(nd, g, hx_mesh_elem_x(m, e, c), t));
      fprintf(fp, "\n");
    }
  }
}

int hx_iotest_cmp(const hx_mesh *a, const hx_mesh *b, double tol) {
  if (a->num_elem != b->num_elem || a->order != b->order) {
    printf("FAIL: %d elements order %d vs %d elements order %d\n", a->num_elem, a->order, b->num_elem, b->order);
    return 1;
  }
  size_t npe = (size_t)a->nd * a->nd * a->nd, n = (size_t)a->num_elem * npe;
  double lo[3], hi[3];
  hx_mesh_bbox(a, lo, hi);
  double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
  double dmax = 0;
  for (size_t i = 0; i < 3 * n; i++) {
    double d = fabs(a->x[i] - b->x[i]);
    if (d > dmax || d != d) dmax = d;
  }
  int fail = 0;
  if (!(dmax <= tol * diag)) {
    printf("FAIL: coordinates differ by %.3e (tol %.1e of %.3e)\n", dmax, tol, diag);
    fail = 1;
  }
  /* id partition: map a-id -> b-id must be a bijection */
  hx_lmap *ma, *mb;
  if (hx_mesh_lnumbering(a, &ma) || hx_mesh_lnumbering(b, &mb)) return 1;
  if (ma->num_lnodes != mb->num_lnodes) {
    printf("FAIL: %d distinct nodes vs %d\n", ma->num_lnodes, mb->num_lnodes);
    fail = 1;
  } else {
    int *to = calloc((size_t)ma->num_lnodes, sizeof(int));
    for (int i = 0; i < ma->num_lnodes; i++) to[i] = -1;
    for (size_t p = 0; p < n; p++) {
      int la = ma->e2l[p], lb = mb->e2l[p];
      if (to[la] < 0) to[la] = lb;
      else if (to[la] != lb) {
        printf("FAIL: node %zu: id partitions differ\n", p);
        fail = 1;
        break;
      }
    }
    free(to);
  }
  hx_lmap_destroy(&ma);
  hx_lmap_destroy(&mb);
  /* boundary faces as sets of (elem, face, bid) */
  int *fa = calloc((size_t)a->num_elem * 6, sizeof(int)), *fb = calloc((size_t)a->num_elem * 6, sizeof(int));
  for (int f = 0; f < a->num_faces; f++) fa[a->faces[f].elem * 6 + a->faces[f].face] = a->faces[f].bid;
  for (int f = 0; f < b->num_faces; f++) fb[b->faces[f].elem * 6 + b->faces[f].face] = b->faces[f].bid;
  if (a->num_faces != b->num_faces || memcmp(fa, fb, sizeof(int) * 6 * (size_t)a->num_elem)) {
    printf("FAIL: boundary faces differ (%d vs %d)\n", a->num_faces, b->num_faces);
    fail = 1;
  }
  free(fa);
  free(fb);
  for (int bid = 1; bid < a->num_bnames && bid < b->num_bnames; bid++)
    if (a->bnames[bid] && b->bnames[bid] && strcmp(a->bnames[bid], b->bnames[bid])) {
      printf("FAIL: boundary %d named '%s' vs '%s'\n", bid, a->bnames[bid], b->bnames[bid]);
      fail = 1;
    }
  if (!fail) printf("same: %d elements, order %d, max coordinate difference %.3e\n", a->num_elem, a->order, dmax);
  return fail;
}

/* x(t) and its derivatives dx/dt_d at reference point t of element e (GLL interpolant) */
static void eval_point(const hx_mesh *m, const double *gll, hx_lid e, const double t[3], double x[3], double J[3][3]) {
  int nd = m->nd;
  double p[3][HX_MAX_ND], d[3][HX_MAX_ND];
  for (int a = 0; a < 3; a++) hx_lagrange_eval(nd, gll, t[a], p[a], d[a]);
  for (int c = 0; c < 3; c++) {
    const double *xc = hx_mesh_elem_x(m, e, c);
    x[c] = J[c][0] = J[c][1] = J[c][2] = 0;
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          double v = xc[hx_lex(nd, i, j, k)];
          x[c] += p[0][i] * p[1][j] * p[2][k] * v;
          J[c][0] += d[0][i] * p[1][j] * p[2][k] * v;
          J[c][1] += p[0][i] * d[1][j] * p[2][k] * v;
          J[c][2] += p[0][i] * p[1][j] * d[2][k] * v;
        }
  }
}

double hx_iotest_volume(const hx_mesh *m, double *per_elem) {
  int nd = m->nd, nq = (3 * m->order) / 2 + 2;
  double gll[HX_MAX_ND], w[HX_MAX_ND], q[64], qw[64], vol = 0;
  hx_gll(nd, gll, w);
  hx_gauss(nq, q, qw);
  for (hx_lid e = 0; e < m->num_elem; e++) {
    double ve = 0;
    for (int k = 0; k < nq; k++)
      for (int j = 0; j < nq; j++)
        for (int i = 0; i < nq; i++) {
          double t[3] = {q[i], q[j], q[k]}, x[3], J[3][3];
          eval_point(m, gll, e, t, x, J);
          double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                       J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
          ve += qw[i] * qw[j] * qw[k] * det;
        }
    if (per_elem) per_elem[e] = ve;
    vol += ve;
  }
  return vol;
}

double hx_iotest_bid_area(const hx_mesh *m, int bid, int *count) {
  int nf = 16;
  double fq[16], fw[16], gll[HX_MAX_ND], w[HX_MAX_ND], area = 0;
  hx_gauss(nf, fq, fw);
  hx_gll(m->nd, gll, w);
  *count = 0;
  for (hx_lid f = 0; f < m->num_faces; f++) {
    if (m->faces[f].bid != bid) continue;
    (*count)++;
    int face = m->faces[f].face, d = face / 2, u = (d + 1) % 3, v = (d + 2) % 3;
    for (int j = 0; j < nf; j++)
      for (int i = 0; i < nf; i++) {
        double t[3], x[3], J[3][3];
        t[d] = face % 2, t[u] = fq[i], t[v] = fq[j];
        eval_point(m, gll, m->faces[f].elem, t, x, J);
        double n[3] = {J[1][u] * J[2][v] - J[2][u] * J[1][v], J[2][u] * J[0][v] - J[0][u] * J[2][v],
                       J[0][u] * J[1][v] - J[1][u] * J[0][v]};
        area += fw[i] * fw[j] * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      }
  }
  return area;
}
