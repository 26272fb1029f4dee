/* Shared pieces of the format writers and readers (io_impl.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_curve.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "io_impl.h"

/* ---- VTK Lagrange hexahedron (VTK 9 point order) --------------------------- */

int hx_vtk_hex_index(int N, int i, int j, int k) {
  int m = N - 1;
  int ib = (i == 0 || i == N), jb = (j == 0 || j == N), kb = (k == 0 || k == N);
  int nb = ib + jb + kb;
  if (nb == 3) {
    static const int c[4] = {0, 1, 3, 2};
    return c[(i > 0) + 2 * (j > 0)] + 4 * (k > 0);
  }
  if (nb == 2) {
    if (!ib) {
      static const int o[4] = {0, 2, 4, 6};
      return 8 + (i - 1) + m * o[(j > 0) + 2 * (k > 0)];
    }
    if (!jb) {
      static const int o[4] = {3, 1, 7, 5};
      return 8 + (j - 1) + m * o[(i > 0) + 2 * (k > 0)];
    }
    static const int o[4] = {0, 1, 3, 2};
    return 8 + 8 * m + (k - 1) + m * o[(i > 0) + 2 * (j > 0)];
  }
  int F = 8 + 12 * m;
  if (nb == 1) {
    if (ib) return F + (i > 0) * m * m + (j - 1) + m * (k - 1);
    if (jb) return F + 2 * m * m + (j > 0) * m * m + (i - 1) + m * (k - 1);
    return F + 4 * m * m + (k > 0) * m * m + (i - 1) + m * (j - 1);
  }
  return F + 6 * m * m + (i - 1) + m * ((j - 1) + m * (k - 1));
}

void hx_vtk_hex_order(int N, int *pos2lex) {
  int nd = N + 1;
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) pos2lex[hx_vtk_hex_index(N, i, j, k)] = hx_lex(nd, i, j, k);
}

/* ---- Gmsh orderings, built recursively ------------------ */

static int gmsh_quad_rec(int n, int s, int *uv, int pos) {
  if (n == 0) {
    uv[2 * pos] = s, uv[2 * pos + 1] = s;
    return pos + 1;
  }
  const int c[4][2] = {{0, 0}, {n, 0}, {n, n}, {0, n}};
  for (int q = 0; q < 4; q++, pos++) uv[2 * pos] = c[q][0] + s, uv[2 * pos + 1] = c[q][1] + s;
  if (n > 1) {
    for (int e = 0; e < 4; e++) {
      const int *a = c[e], *b = c[(e + 1) % 4];
      for (int t = 1; t < n; t++, pos++) {
        uv[2 * pos] = s + a[0] + (b[0] - a[0]) * t / n;
        uv[2 * pos + 1] = s + a[1] + (b[1] - a[1]) * t / n;
      }
    }
    pos = gmsh_quad_rec(n - 2, s + 1, uv, pos);
  }
  return pos;
}

void hx_gmsh_quad_uv(int n, int *uv) { gmsh_quad_rec(n, 0, uv, 0); }

static int gmsh_hex_rec(int n, int s, int *abc, int pos) {
  if (n == 0) {
    abc[3 * pos] = abc[3 * pos + 1] = abc[3 * pos + 2] = s;
    return pos + 1;
  }
  const int P[8][3] = {{0, 0, 0}, {n, 0, 0}, {n, n, 0}, {0, n, 0}, {0, 0, n}, {n, 0, n}, {n, n, n}, {0, n, n}};
  for (int q = 0; q < 8; q++, pos++)
    for (int d = 0; d < 3; d++) abc[3 * pos + d] = P[q][d] + s;
  if (n < 2) return pos;
  static const int E[12][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
  for (int e = 0; e < 12; e++)
    for (int t = 1; t < n; t++, pos++)
      for (int d = 0; d < 3; d++) abc[3 * pos + d] = s + P[E[e][0]][d] + (P[E[e][1]][d] - P[E[e][0]][d]) * t / n;
  static const int F[6][4] = {{0, 3, 2, 1}, {0, 1, 5, 4}, {0, 4, 7, 3}, {1, 2, 6, 5}, {2, 3, 7, 6}, {4, 5, 6, 7}};
  int nq = (n - 1) * (n - 1);
  int uv[2 * HX_MAX_ND * HX_MAX_ND];
  gmsh_quad_rec(n - 2, 1, uv, 0);
  for (int f = 0; f < 6; f++)
    for (int q = 0; q < nq; q++, pos++)
      for (int d = 0; d < 3; d++) {
        int p0 = P[F[f][0]][d], p1 = P[F[f][1]][d], p3 = P[F[f][3]][d];
        abc[3 * pos + d] = s + p0 + uv[2 * q] * (p1 - p0) / n + uv[2 * q + 1] * (p3 - p0) / n;
      }
  return gmsh_hex_rec(n - 2, s + 1, abc, pos);
}

void hx_gmsh_hex_order(int N, int *pos2lex) {
  int nd = N + 1;
  int *abc = malloc(sizeof(int) * 3 * nd * nd * nd);
  if (!abc) return;
  gmsh_hex_rec(N, 0, abc, 0);
  for (int p = 0; p < nd * nd * nd; p++) pos2lex[p] = hx_lex(nd, abc[3 * p], abc[3 * p + 1], abc[3 * p + 2]);
  free(abc);
}

/* ---- interpolation ----------------------------------------------------------- */

int hx_io_interp_matrix(int nd, int to_equi, double *B) {
  double g[HX_MAX_ND], w[HX_MAX_ND], t[HX_MAX_ND];
  HX_CHECK(nd >= 2 && nd <= HX_MAX_ND, HX_ERR_INPUT, "order %d outside 1..%d", nd - 1, HX_MAX_ORDER);
  HX_CALL(hx_gll(nd, g, w));
  hx_equispaced(nd, t);
  if (to_equi) hx_lagrange_matrices(nd, g, nd, t, B, NULL);
  else hx_lagrange_matrices(nd, t, nd, g, B, NULL);
  /* the end points are shared by both node sets: make those rows exact */
  for (int a = 0; a < nd; a++) {
    B[a] = (a == 0);
    B[(nd - 1) * nd + a] = (a == nd - 1);
  }
  return HX_OK;
}

void hx_io_tensor3(int nd, const double *B, const double *in, double *out) {
  double t1[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND], t2[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  int n2 = nd * nd;
  for (int k = 0; k < nd; k++) /* along i */
    for (int j = 0; j < nd; j++)
      for (int q = 0; q < nd; q++) {
        double s = 0;
        for (int a = 0; a < nd; a++) s += B[q * nd + a] * in[a + nd * j + n2 * k];
        t1[q + nd * j + n2 * k] = s;
      }
  for (int k = 0; k < nd; k++) /* along j */
    for (int q = 0; q < nd; q++)
      for (int i = 0; i < nd; i++) {
        double s = 0;
        for (int a = 0; a < nd; a++) s += B[q * nd + a] * t1[i + nd * a + n2 * k];
        t2[i + nd * q + n2 * k] = s;
      }
  for (int q = 0; q < nd; q++) /* along k */
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        double s = 0;
        for (int a = 0; a < nd; a++) s += B[q * nd + a] * t2[i + nd * j + n2 * a];
        out[i + nd * j + n2 * q] = s;
      }
}

double hx_io_eval_gll(int nd, const double *gll, const double *xc, const double t[3]) {
  double p0[HX_MAX_ND], p1[HX_MAX_ND], p2[HX_MAX_ND];
  hx_lagrange_eval(nd, gll, t[0], p0, NULL);
  hx_lagrange_eval(nd, gll, t[1], p1, NULL);
  hx_lagrange_eval(nd, gll, t[2], p2, NULL);
  double s = 0;
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) s += p0[i] * p1[j] * p2[k] * xc[hx_lex(nd, i, j, k)];
  return s;
}

/* ---- id hash map -------------------------------------------------------------- */

static size_t id_hash(int64_t key, size_t mask) {
  uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
  return (size_t)(h ^ (h >> 29)) & mask;
}

int hx_idmap_init(hx_idmap *h, size_t expected) {
  memset(h, 0, sizeof *h);
  size_t cap = 1024;
  while (cap < expected + expected / 2) cap *= 2;
  HX_CALL(hx_malloc(cap * sizeof(int64_t), &h->keys));
  int rc = hx_malloc(cap * sizeof(int64_t), &h->vals);
  if (rc) {
    hx_free(&h->keys);
    return rc;
  }
  memset(h->keys, 0xff, cap * sizeof(int64_t));
  h->cap = cap;
  return HX_OK;
}

int hx_idmap_init_for(hx_idmap *h, const int64_t *ids, size_t n, size_t expected) {
  int64_t lo = INT64_MAX, hi = -1;
  for (size_t i = 0; i < n; i++) {
    if (ids[i] < lo) lo = ids[i];
    if (ids[i] > hi) hi = ids[i];
  }
  if (n == 0) return hx_idmap_init(h, expected);
  return hx_idmap_init_range(h, lo, hi, expected);
}

int hx_idmap_init_range(hx_idmap *h, int64_t lo, int64_t hi, size_t expected) {
  if (lo < 0 || hi < lo || (uint64_t)(hi - lo) >= 2 * (uint64_t)expected + 1024) return hx_idmap_init(h, expected);
  memset(h, 0, sizeof *h);
  h->lo = lo;
  h->cap = (size_t)(hi - lo + 1);
  HX_CALL(hx_malloc(h->cap * sizeof(int64_t), &h->vals));
  memset(h->vals, 0xff, h->cap * sizeof(int64_t));
  return HX_OK;
}

void hx_idmap_free(hx_idmap *h) {
  hx_free(&h->keys);
  hx_free(&h->vals);
  h->cap = h->count = 0;
}

static int idmap_grow(hx_idmap *h) {
  hx_idmap g;
  HX_CALL(hx_idmap_init(&g, h->cap));
  for (size_t s = 0; s < h->cap; s++)
    if (h->keys[s] >= 0) {
      size_t p = id_hash(h->keys[s], g.cap - 1);
      while (g.keys[p] >= 0) p = (p + 1) & (g.cap - 1);
      g.keys[p] = h->keys[s];
      g.vals[p] = h->vals[s];
    }
  g.count = h->count;
  hx_idmap_free(h);
  *h = g;
  return HX_OK;
}

int hx_idmap_insert(hx_idmap *h, int64_t key, int64_t *val) {
  if (key < 0) return -HX_ERROR(HX_ERR_INPUT, "negative node id %lld", (long long)key);
  if (!h->keys) { /* dense */
    if (key < h->lo || (uint64_t)(key - h->lo) >= h->cap)
      return -HX_ERROR(HX_ERR_INTERNAL, "node id %lld outside the dense map", (long long)key);
    int64_t *v = &h->vals[key - h->lo];
    if (*v >= 0) {
      *val = *v;
      return 0;
    }
    *v = *val;
    h->count++;
    return 1;
  }
  if ((h->count + 1) * 10 > h->cap * 7) {
    int rc = idmap_grow(h);
    if (rc) return -rc;
  }
  size_t mask = h->cap - 1, p = id_hash(key, mask);
  while (h->keys[p] >= 0) {
    if (h->keys[p] == key) {
      *val = h->vals[p];
      return 0;
    }
    p = (p + 1) & mask;
  }
  h->keys[p] = key;
  h->vals[p] = *val;
  h->count++;
  return 1;
}

int hx_idmap_find(const hx_idmap *h, int64_t key, int64_t *val) {
  if (!h->cap || key < 0) return 0;
  if (!h->keys) {
    if (key < h->lo || (uint64_t)(key - h->lo) >= h->cap || h->vals[key - h->lo] < 0) return 0;
    *val = h->vals[key - h->lo];
    return 1;
  }
  size_t mask = h->cap - 1, p = id_hash(key, mask);
  while (h->keys[p] >= 0) {
    if (h->keys[p] == key) {
      *val = h->vals[p];
      return 1;
    }
    p = (p + 1) & mask;
  }
  return 0;
}

/* ---- replicated meshes ------------------------------------------------------------ */

int hx_mesh_split_replicated(hx_mesh **mp) {
  hx_mesh *m = *mp;
  int rank = hx_comm_rank(m->comm), size = hx_comm_size(m->comm);
  if (size == 1) return HX_OK;
  /* replicated = every rank holds the same elements: same count and node-id checksum */
  int64_t v[4] = {m->num_elem, -(int64_t)m->num_elem, 0, 0};
  size_t npe0 = (size_t)hx_mesh_nodes_per_elem(m);
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < (size_t)m->num_elem * npe0; i++) h = (h ^ (uint64_t)m->node_id[i]) * 1099511628211ull;
  v[2] = (int64_t)(h >> 1);
  v[3] = -v[2];
  HX_CALL(hx_comm_max_int64(m->comm, v, 4));
  if (v[0] != -v[1] || v[2] != -v[3]) return HX_OK; /* already distributed */
  hx_gid ne = m->num_elem, e0 = ne * rank / size, e1 = ne * (rank + 1) / size;
  hx_mesh *p = NULL;
  HX_CALL(hx_mesh_create(m->comm, m->order, (hx_lid)(e1 - e0), &p));
  size_t npe = (size_t)hx_mesh_nodes_per_elem(m);
  int rc = HX_OK;
  memcpy(p->x, m->x + (size_t)e0 * 3 * npe, (size_t)(e1 - e0) * 3 * npe * sizeof(double));
  memcpy(p->node_id, m->node_id + (size_t)e0 * npe, (size_t)(e1 - e0) * npe * sizeof(hx_gid));
  memcpy(p->vert_id, m->vert_id + (size_t)e0 * 8, (size_t)(e1 - e0) * 8 * sizeof(hx_gid));
  for (hx_gid e = e0; e < e1; e++) p->elem_attr[e - e0] = m->elem_attr[e];
  for (int b = 1; b < m->num_bnames && !rc; b++)
    if (m->bnames[b]) rc = hx_mesh_set_bname(p, b, m->bnames[b]);
  for (int s = 0; s < m->num_surfaces && !rc; s++) rc = hx_mesh_add_surface(p, &m->surfaces[s], NULL);
  for (hx_lid f = 0; f < m->num_faces && !rc; f++) {
    const hx_bface *b = &m->faces[f];
    if (b->elem >= e0 && b->elem < e1) rc = hx_mesh_add_face(p, (hx_lid)(b->elem - e0), b->face, b->bid, b->surf);
  }
  hx_mesh_destroy(mp);
  if (rc) {
    hx_mesh_destroy(&p);
    return rc;
  }
  *mp = p;
  return HX_OK;
}

/* ---- element source -------------------------------------------------------------- */

/* Refuse a block with det J <= 0 somewhere (minj of its elements), unless forced. */
static int refuse_bad(hx_elemsrc *s, hx_lid e0, hx_lid count, const double *minj) {
  if (s->force || e0 + count <= s->checked) return HX_OK;
  for (hx_lid e = 0; e < count; e++)
    if (!(minj[e] > 0))
      return HX_ERROR(HX_ERR_INVALID_MESH,
                      "refusing to write at order %d: element %lld has det J %.3e <= 0 at a GLL node; use --force "
                      "to write anyway",
                      s->order, (long long)(s->m->elem_offset + e0 + e), minj[e]);
  s->checked = e0 + count;
  return HX_OK;
}

int hx_elemsrc_detj(hx_elemsrc *s, hx_lid e0, hx_lid count, double *minj, double *sj, int *done) {
  *done = 0;
  if (!s->lz || !s->lz->detj) return HX_OK;
  const double *dj = s->lz->detj;
  if (minj) memcpy(minj, dj + e0, (size_t)count * sizeof *minj);
  if (sj) memcpy(sj, dj + s->m->num_elem + e0, (size_t)count * sizeof *sj);
  *done = 1;
  return refuse_bad(s, e0, count, dj + e0);
}

int hx_elemsrc_open(const hx_mesh *m, int order, int force, hx_elemsrc *s) {
  memset(s, 0, sizeof *s);
  HX_CHECK(order >= 1 && order <= HX_MAX_ORDER, HX_ERR_INPUT, "output order %d outside 1..%d", order, HX_MAX_ORDER);
  s->m = m;
  s->order = order;
  s->nd = order + 1;
  s->block = 4096;
  s->force = force;
  s->view = *m;
  s->view.order = order;
  s->view.nd = order + 1;
  s->view.num_faces = 0;
  s->view.faces = NULL;
  s->view.lazy = NULL;
  if (m->lazy && m->lazy->order == order) {
    /* the mesher's own order-N map, block by block (hx_mesh_lazy) */
    s->lz = m->lazy;
    HX_CALL(hx_mesh_gll_derivative(s->nd, s->D));
  } else if (order != m->order) {
    /* the curving stage raises the order block by block (core/curve.c) */
    hx_curve_ctx *cc = NULL;
    HX_CALL(hx_curve_create(m, order, &cc));
    s->cc = cc;
  }
  if (s->lz || s->cc) {
    size_t npe = (size_t)s->nd * s->nd * s->nd;
    int rc = hx_malloc((size_t)s->block * 3 * npe * sizeof(double), &s->xb);
    if (rc == HX_OK) rc = hx_malloc((size_t)s->block * npe * sizeof(hx_gid), &s->idb);
    if (rc == HX_OK && s->lz) rc = hx_malloc((size_t)s->block * 2 * sizeof(double), &s->qmin);
    if (rc == HX_OK && s->lz) s->qsj = s->qmin + s->block;
    if (rc) {
      hx_elemsrc_close(s);
      return rc;
    }
  }
  return HX_OK;
}

hx_gid hx_elemsrc_id_bound(const hx_elemsrc *s) {
  if (s->lz) return s->lz->id_bound;
  if (s->cc) return hx_curve_id_bound((const hx_curve_ctx *)s->cc);
  hx_gid hi = -1;
  size_t n = (size_t)s->m->num_elem * hx_mesh_nodes_per_elem(s->m);
  for (size_t i = 0; i < n; i++)
    if (s->m->node_id[i] > hi) hi = s->m->node_id[i];
  return hi + 1;
}

int hx_elemsrc_get(hx_elemsrc *s, hx_lid e0, hx_lid count, const hx_mesh **view) {
  size_t npe = (size_t)s->nd * s->nd * s->nd;
  HX_CHECK(count <= s->block || !(s->cc || s->lz), HX_ERR_INTERNAL, "block of %d elements exceeds %d", count, s->block);
  s->view.num_elem = count;
  s->view.vert_id = s->m->vert_id + (size_t)e0 * 8;
  s->view.elem_attr = s->m->elem_attr + e0;
  if (s->lz) {
    HX_CALL(s->lz->block(s->lz->ctx, s->m, e0, count, s->xb, s->idb));
    s->view.x = s->xb;
    s->view.node_id = s->idb;
    if (!s->force && e0 + count > s->checked) {
      int done = 0;
      HX_CALL(hx_elemsrc_detj(s, e0, count, NULL, NULL, &done));
      if (!done) { /* no values kept by the check: computed here, and kept for the cell data */
        const hx_mesh *v = &s->view;
#pragma omp parallel for schedule(dynamic, 16)
        for (hx_lid e = 0; e < count; e++) hx_io_elem_detj(v, s->D, e, &s->qmin[e], &s->qsj[e]);
        s->q_e0 = e0, s->q_cnt = count;
        HX_CALL(refuse_bad(s, e0, count, s->qmin));
      }
    }
  } else if (!s->cc) {
    s->view.x = s->m->x + (size_t)e0 * 3 * npe;
    s->view.node_id = s->m->node_id + (size_t)e0 * npe;
  } else {
    const hx_curve_ctx *cc = s->cc;
    HX_CALL(hx_curve_block(cc, e0, count, s->xb, s->idb));
    if (!s->force && e0 + count > s->checked) {
      hx_gid bad = 0;
      int rc = hx_curve_check_block(cc, e0, count, s->xb, &bad);
      if (rc == HX_ERR_INVALID_MESH) {
        const char *why = hx_error_message();
        char msg[512];
        snprintf(msg, sizeof msg, "%s", why);
        hx_error_clear();
        return HX_ERROR(HX_ERR_INVALID_MESH, "refusing to write at order %d: %s; use --force to write anyway", s->order, msg);
      }
      HX_CALL(rc);
      s->checked = e0 + count;
    }
    s->view.x = s->xb;
    s->view.node_id = s->idb;
  }
  *view = &s->view;
  return HX_OK;
}

int hx_elemsrc_get_ids(hx_elemsrc *s, hx_lid e0, hx_lid count, const hx_mesh **view) {
  if (!s->lz) return hx_elemsrc_get(s, e0, count, view);
  HX_CHECK(count <= s->block, HX_ERR_INTERNAL, "block of %d elements exceeds %d", count, s->block);
  HX_CALL(s->lz->block(s->lz->ctx, s->m, e0, count, NULL, s->idb));
  s->view.num_elem = count;
  s->view.vert_id = s->m->vert_id + (size_t)e0 * 8;
  s->view.elem_attr = s->m->elem_attr + e0;
  s->view.x = NULL;
  s->view.node_id = s->idb;
  *view = &s->view;
  return HX_OK;
}

void hx_elemsrc_close(hx_elemsrc *s) {
  hx_free(&s->qmin);
  s->qsj = NULL;
  hx_free(&s->xb);
  hx_free(&s->idb);
  hx_curve_ctx *cc = s->cc;
  hx_curve_destroy(&cc);
  s->cc = NULL;
}

void hx_io_elem_detj(const hx_mesh *m, const double *D, hx_lid e, double *minj, double *ratio) {
  double mn, mx;
  hx_elem_detj_range(m->nd, D, m->x + (size_t)e * 3 * hx_mesh_nodes_per_elem(m), &mn, &mx);
  *minj = mn;
  *ratio = hx_detj_ratio(mn, mx);
}

int hx_io_pwrite(int fd, const void *data, size_t bytes, int64_t offset, const char *path) {
  const char *p = data;
  off_t at = (off_t)offset;
  while (bytes) {
    ssize_t w = pwrite(fd, p, bytes, at);
    if (w < 0 && errno == EINTR) continue;
    HX_CHECK(w > 0, HX_ERR_IO, "writing '%s' failed: %s", path, w < 0 ? strerror(errno) : "short write");
    p += w, bytes -= (size_t)w, at += w;
  }
  return HX_OK;
}

/* ---- bytes ---------------------------------------------------------------------- */

void hx_io_swap(void *data, size_t count, size_t size) {
  unsigned char *p = data;
  for (size_t i = 0; i < count; i++, p += size)
    for (size_t a = 0, b = size - 1; a < b; a++, b--) {
      unsigned char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

static int b64val(int c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

long hx_base64_decode(const char *src, size_t n, unsigned char *dst, size_t *len) {
  size_t cap = *len, out = 0;
  unsigned acc = 0;
  int bits = 0;
  size_t i = 0;
  for (; i < n && out < cap; i++) {
    int c = (unsigned char)src[i];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') continue;
    int v = b64val(c);
    if (v < 0) return -1;
    acc = (acc << 6) | (unsigned)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      dst[out++] = (unsigned char)(acc >> bits);
      acc &= (1u << bits) - 1;
    }
  }
  /* consume trailing padding of the group */
  while (i < n && (src[i] == '=')) i++;
  *len = out;
  return (long)i;
}

/* ---- input files --------------------------------------------------------------- */

int hx_io_check_input(const char *path) {
  struct stat st;
  HX_CHECK(stat(path, &st) == 0, HX_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
  HX_CHECK(!S_ISDIR(st.st_mode), HX_ERR_INPUT, "%s: is a directory, expected a mesh file", path);
  HX_CHECK(S_ISREG(st.st_mode), HX_ERR_INPUT, "%s: is not a regular file, expected a mesh file", path);
  return HX_OK;
}

int hx_infile_read(hx_infile *f, const char *path) {
  memset(f, 0, sizeof *f);
  f->path = path;
  HX_CALL(hx_io_check_input(path));
  FILE *fp = fopen(path, "rb");
  HX_CHECK(fp, HX_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
  if (fseek(fp, 0, SEEK_END) != 0) {
    fclose(fp);
    return HX_ERROR(HX_ERR_IO, "cannot read '%s': not a regular file", path);
  }
  long sz = ftell(fp);
  if (sz < 0) {
    fclose(fp);
    return HX_ERROR(HX_ERR_IO, "cannot read '%s': not a regular file", path);
  }
  rewind(fp);
  int rc = hx_malloc((size_t)sz + 1, &f->data);
  if (rc) {
    fclose(fp);
    return rc;
  }
  size_t got = fread(f->data, 1, (size_t)sz, fp);
  fclose(fp);
  if (got != (size_t)sz) {
    hx_free(&f->data);
    return HX_ERROR(HX_ERR_IO, "reading '%s' failed after %zu of %ld bytes", path, got, sz);
  }
  f->data[sz] = 0;
  f->size = (size_t)sz;
  return HX_OK;
}

void hx_infile_free(hx_infile *f) { hx_free(&f->data); }

/* ---- mesh helpers for readers -------------------------------------------------- */

int hx_io_merge_points(int64_t np, const double *xyz, double tol, int64_t *rep) {
  if (!(tol > 0)) tol = 1e-300;
  hx_idmap heads;
  int64_t *next = NULL;
  HX_CALL(hx_idmap_init(&heads, (size_t)np));
  int rc = hx_malloc((size_t)(np > 0 ? np : 1) * sizeof(int64_t), &next);
  if (rc) {
    hx_idmap_free(&heads);
    return rc;
  }
  /* cells of h = 256 tol: a point looks into a neighbour cell only along the axes where it
     lies within tol of its cell's side (about 1.02 cells per point, not 27); distinct mesh
     points are far more than h apart, so a cell's chain holds only coincident points */
  const double h = 256 * tol;
  for (int64_t p = 0; p < np; p++) {
    const double *x = xyz + 3 * p;
    int64_t c[3];
    int lo[3], hi[3];
    for (int d = 0; d < 3; d++) { /* cells clamped to +-2^62 (huge or non-finite values): no overflow below */
      double r = x[d] / h, fl = floor(r);
      c[d] = fl < 4.6e18 && fl > -4.6e18 ? (int64_t)fl : (fl > 0 ? INT64_C(1) << 62 : -(INT64_C(1) << 62));
      lo[d] = (r - fl) * h <= tol ? -1 : 0;
      hi[d] = (fl + 1 - r) * h <= tol ? 1 : 0;
    }
    rep[p] = p;
    for (int dz = lo[2]; dz <= hi[2] && rep[p] == p; dz++)
      for (int dy = lo[1]; dy <= hi[1] && rep[p] == p; dy++)
        for (int dx = lo[0]; dx <= hi[0] && rep[p] == p; dx++) {
          uint64_t key = ((uint64_t)(c[0] + dx) * 73856093ull) ^ ((uint64_t)(c[1] + dy) * 19349663ull) ^
                         ((uint64_t)(c[2] + dz) * 83492791ull);
          int64_t q;
          if (!hx_idmap_find(&heads, (int64_t)(key >> 2), &q)) continue;
          for (; q >= 0; q = next[q]) {
            const double *y = xyz + 3 * q;
            double d2 = (x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2]);
            if (d2 <= tol * tol) {
              rep[p] = rep[q];
              break;
            }
          }
        }
    uint64_t key = ((uint64_t)c[0] * 73856093ull) ^ ((uint64_t)c[1] * 19349663ull) ^ ((uint64_t)c[2] * 83492791ull);
    int64_t head = p;
    int ins = hx_idmap_insert(&heads, (int64_t)(key >> 2), &head);
    if (ins < 0) {
      rc = -ins;
      break;
    }
    if (ins == 1) {
      next[p] = -1;
    } else {
      /* push p at the head of the chain */
      next[p] = head;
      size_t mask = heads.cap - 1, s = id_hash((int64_t)(key >> 2), mask);
      while (heads.keys[s] != (int64_t)(key >> 2)) s = (s + 1) & mask;
      heads.vals[s] = p;
    }
  }
  hx_free(&next);
  hx_idmap_free(&heads);
  return rc;
}

typedef struct {
  hx_gid k[4];
  hx_lid elem;
  int face;
} face_key;

static int cmp_face_key(const void *a, const void *b) {
  const face_key *x = a, *y = b;
  for (int d = 0; d < 4; d++)
    if (x->k[d] != y->k[d]) return x->k[d] < y->k[d] ? -1 : 1;
  return 0;
}

static void sort4(hx_gid *v) {
  for (int a = 1; a < 4; a++)
    for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
      hx_gid t = v[b];
      v[b] = v[b - 1];
      v[b - 1] = t;
    }
}

int hx_io_exterior_faces(hx_mesh *m, int bid, const char *name) {
  size_t n = (size_t)m->num_elem * 6;
  face_key *fk = NULL;
  HX_CALL(hx_malloc((n ? n : 1) * sizeof *fk, &fk));
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int f = 0; f < 6; f++) {
      int c[4];
      hx_face_corners(f, c);
      face_key *q = &fk[(size_t)e * 6 + f];
      for (int d = 0; d < 4; d++) q->k[d] = m->vert_id[(size_t)e * 8 + c[d]];
      sort4(q->k);
      q->elem = e;
      q->face = f;
    }
  qsort(fk, n, sizeof *fk, cmp_face_key);
  int rc = HX_OK, any = 0;
  for (size_t a = 0; a < n && rc == HX_OK;) {
    size_t b = a + 1;
    while (b < n && !cmp_face_key(&fk[a], &fk[b])) b++;
    if (b == a + 1) {
      rc = hx_mesh_add_face(m, fk[a].elem, fk[a].face, bid, -1);
      any = 1;
    }
    a = b;
  }
  hx_free(&fk);
  if (rc == HX_OK && any && name) rc = hx_mesh_set_bname(m, bid, name);
  return rc;
}

int hx_io_unify_shared(hx_mesh *m) {
  size_t npe = (size_t)hx_mesh_nodes_per_elem(m), n = (size_t)m->num_elem * npe;
  hx_idmap h;
  HX_CALL(hx_idmap_init(&h, n / 2 + 16));
  for (size_t p = 0; p < n; p++) {
    int64_t first = (int64_t)p;
    int ins = hx_idmap_insert(&h, m->node_id[p], &first);
    if (ins < 0) {
      hx_idmap_free(&h);
      return -ins;
    }
    if (ins == 0) {
      size_t e = p / npe, a = p % npe, fe = (size_t)first / npe, fa = (size_t)first % npe;
      for (int c = 0; c < 3; c++) m->x[(e * 3 + c) * npe + a] = m->x[(fe * 3 + c) * npe + fa];
    }
  }
  hx_idmap_free(&h);
  return HX_OK;
}

void hx_io_set_vert_ids(hx_mesh *m) {
  size_t npe = (size_t)hx_mesh_nodes_per_elem(m);
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int c = 0; c < 8; c++) m->vert_id[(size_t)e * 8 + c] = m->node_id[(size_t)e * npe + hx_corner_lex(m->nd, c)];
}
