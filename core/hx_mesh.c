#include "hx_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "hx_progress.h"

#ifdef _OPENMP
#include <omp.h>
#endif

int hx_mesh_create(hx_comm comm, int order, hx_lid num_elem, hx_mesh **out) {
  HX_CHECK(order >= 1 && order <= HX_MAX_ORDER, HX_ERR_INPUT, "order must be in 1..%d, got %d", HX_MAX_ORDER, order);
  HX_CHECK(num_elem >= 0, HX_ERR_INPUT, "negative element count %d", (int)num_elem);
  hx_mesh *m;
  HX_CALL(hx_malloc(sizeof *m, &m));
  m->order = order;
  m->nd = order + 1;
  m->num_elem = num_elem;
  m->comm = comm;
  size_t npe = (size_t)m->nd * m->nd * m->nd;
  int rc = hx_malloc((size_t)num_elem * 3 * npe * sizeof(double), &m->x);
  if (rc == HX_OK) rc = hx_malloc((size_t)num_elem * npe * sizeof(hx_gid), &m->node_id);
  if (rc == HX_OK) rc = hx_malloc((size_t)num_elem * 8 * sizeof(hx_gid), &m->vert_id);
  if (rc == HX_OK) rc = hx_malloc((size_t)num_elem * sizeof(int32_t), &m->elem_attr);
  if (rc == HX_OK) {
    for (hx_lid e = 0; e < num_elem; e++) m->elem_attr[e] = 1;
    hx_gid ne = num_elem;
    rc = hx_comm_exscan_int64(comm, ne, &m->elem_offset);
    m->num_elem_global = ne;
    if (rc == HX_OK) rc = hx_comm_sum_int64(comm, &m->num_elem_global, 1);
  }
  if (rc != HX_OK) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}

void hx_mesh_destroy(hx_mesh **mesh) {
  if (!mesh || !*mesh) return;
  hx_mesh *m = *mesh;
  hx_free(&m->x);
  hx_free(&m->node_id);
  hx_free(&m->vert_id);
  hx_free(&m->elem_attr);
  hx_free(&m->faces);
  for (int i = 0; i < m->num_bnames; i++) hx_free(&m->bnames[i]);
  hx_free(&m->bnames);
  hx_free(&m->surfaces);
  if (m->lazy) {
    if (m->lazy->destroy) m->lazy->destroy(m->lazy->ctx);
    hx_free(&m->lazy->detj);
    hx_free(&m->lazy);
  }
  hx_free(mesh);
}

int hx_mesh_copy(const hx_mesh *s, hx_mesh **out) {
  hx_mesh *m;
  HX_CALL(hx_mesh_create(s->comm, s->order, s->num_elem, &m));
  size_t npe = (size_t)hx_mesh_nodes_per_elem(s);
  memcpy(m->x, s->x, (size_t)s->num_elem * 3 * npe * sizeof(double));
  memcpy(m->node_id, s->node_id, (size_t)s->num_elem * npe * sizeof(hx_gid));
  memcpy(m->vert_id, s->vert_id, (size_t)s->num_elem * 8 * sizeof(hx_gid));
  memcpy(m->elem_attr, s->elem_attr, (size_t)s->num_elem * sizeof(int32_t));
  int rc = HX_OK;
  for (hx_lid f = 0; f < s->num_faces && rc == HX_OK; f++)
    rc = hx_mesh_add_face(m, s->faces[f].elem, s->faces[f].face, s->faces[f].bid, s->faces[f].surf);
  for (int b = 1; b < s->num_bnames && rc == HX_OK; b++)
    if (s->bnames[b]) rc = hx_mesh_set_bname(m, b, s->bnames[b]);
  for (int i = 0; i < s->num_surfaces && rc == HX_OK; i++) rc = hx_mesh_add_surface(m, &s->surfaces[i], NULL);
  if (rc != HX_OK) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}

int hx_mesh_add_face(hx_mesh *m, hx_lid elem, int face, int bid, int surf) {
  if (m->num_faces == m->cap_faces) {
    hx_lid cap = m->cap_faces ? 2 * m->cap_faces : 64;
    HX_CALL(hx_realloc((size_t)cap * sizeof(hx_bface), &m->faces));
    m->cap_faces = cap;
  }
  hx_bface *f = &m->faces[m->num_faces++];
  f->elem = elem;
  f->face = face;
  f->bid = bid;
  f->surf = surf;
  return HX_OK;
}

int hx_mesh_set_bname(hx_mesh *m, int bid, const char *name) {
  HX_CHECK(bid >= 1 && bid < 1000000, HX_ERR_INPUT, "boundary id %d out of range (1..999999)", bid);
  if (bid >= m->num_bnames) {
    HX_CALL(hx_realloc((size_t)(bid + 1) * sizeof(char *), &m->bnames));
    for (int i = m->num_bnames; i <= bid; i++) m->bnames[i] = NULL;
    m->num_bnames = bid + 1;
  }
  hx_free(&m->bnames[bid]);
  size_t len = strlen(name);
  HX_CALL(hx_malloc(len + 1, &m->bnames[bid]));
  memcpy(m->bnames[bid], name, len + 1);
  return HX_OK;
}

int hx_mesh_find_bname(const hx_mesh *m, const char *name) {
  for (int b = 1; b < m->num_bnames; b++)
    if (m->bnames[b] && strcmp(m->bnames[b], name) == 0) return b;
  return -1;
}

int hx_mesh_add_surface(hx_mesh *m, const hx_surface *s, int *index) {
  HX_CALL(hx_realloc((size_t)(m->num_surfaces + 1) * sizeof(hx_surface), &m->surfaces));
  m->surfaces[m->num_surfaces] = *s;
  if (index) *index = m->num_surfaces;
  m->num_surfaces++;
  return HX_OK;
}

void hx_face_corners(int face, int corners[4]) {
  /* the fixed direction d and side s; the two free directions a < b */
  int d = face / 2, s = face % 2;
  int a = d == 0 ? 1 : 0, b = d == 2 ? 1 : 2;
  for (int v = 0; v < 2; v++)
    for (int u = 0; u < 2; u++) corners[u + 2 * v] = (s << d) | (u << a) | (v << b);
}

int hx_node_on_face(int nd, int face, int i, int j, int k) {
  int idx[3] = {i, j, k};
  int d = face / 2, s = face % 2;
  return idx[d] == (s ? nd - 1 : 0);
}

double hx_surface_scale(const hx_surface *s) { return (s->type == HX_SURF_SPHERE || s->type == HX_SURF_CYLINDER) ? s->r : 1.0; }

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

double hx_surface_distance(const hx_surface *s, const double x[3]) {
  double d[3] = {x[0] - s->p[0], x[1] - s->p[1], x[2] - s->p[2]};
  switch (s->type) {
  case HX_SURF_PLANE: return fabs(dot3(d, s->n));
  case HX_SURF_SPHERE: return fabs(sqrt(dot3(d, d)) - s->r);
  case HX_SURF_CYLINDER: {
    double t = dot3(d, s->n);
    double q[3] = {d[0] - t * s->n[0], d[1] - t * s->n[1], d[2] - t * s->n[2]};
    return fabs(sqrt(dot3(q, q)) - s->r);
  }
  default: return 0.0;
  }
}

void hx_surface_project(const hx_surface *s, const double x[3], double y[3]) {
  double d[3] = {x[0] - s->p[0], x[1] - s->p[1], x[2] - s->p[2]};
  switch (s->type) {
  case HX_SURF_PLANE: {
    double t = dot3(d, s->n);
    for (int c = 0; c < 3; c++) y[c] = x[c] - t * s->n[c];
    break;
  }
  case HX_SURF_SPHERE: {
    double len = sqrt(dot3(d, d));
    if (len == 0.0) {
      y[0] = s->p[0] + s->r;
      y[1] = s->p[1];
      y[2] = s->p[2];
      break;
    }
    for (int c = 0; c < 3; c++) y[c] = s->p[c] + d[c] * (s->r / len);
    break;
  }
  case HX_SURF_CYLINDER: {
    double t = dot3(d, s->n);
    double q[3] = {d[0] - t * s->n[0], d[1] - t * s->n[1], d[2] - t * s->n[2]};
    double len = sqrt(dot3(q, q));
    if (len == 0.0) {
      for (int c = 0; c < 3; c++) y[c] = x[c];
      break;
    }
    for (int c = 0; c < 3; c++) y[c] = s->p[c] + t * s->n[c] + q[c] * (s->r / len);
    break;
  }
  default:
    for (int c = 0; c < 3; c++) y[c] = x[c];
  }
}

void hx_surface_normal(const hx_surface *s, const double x[3], double nrm[3]) {
  double d[3] = {x[0] - s->p[0], x[1] - s->p[1], x[2] - s->p[2]};
  switch (s->type) {
  case HX_SURF_PLANE:
    for (int c = 0; c < 3; c++) nrm[c] = s->n[c];
    return;
  case HX_SURF_CYLINDER: {
    double t = dot3(d, s->n);
    for (int c = 0; c < 3; c++) d[c] -= t * s->n[c];
    break;
  }
  default: break;
  }
  double len = sqrt(dot3(d, d));
  for (int c = 0; c < 3; c++) nrm[c] = len > 0 ? d[c] / len : 0.0;
}

/* ---- L-numbering ------------------------------------------------------- */

typedef struct {
  hx_gid id;
  size_t pos;
} id_pos;

static int cmp_id_pos(const void *a, const void *b) {
  const id_pos *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

/* Smallest and largest id of the E-vector (n > 0). */
static void id_range(const hx_gid *id, size_t n, hx_gid *lo, hx_gid *hi) {
  hx_gid a = id[0], b = id[0];
#pragma omp parallel for reduction(min : a) reduction(max : b) schedule(static)
  for (size_t i = 0; i < n; i++) {
    if (id[i] < a) a = id[i];
    if (id[i] > b) b = id[i];
  }
  *lo = a;
  *hi = b;
}

/* Ids are "dense" when their range is at most twice the number of E-nodes (every
   mesher and the curving stage number nodes 0..n-1): then a direct table indexed
   by id replaces sorting (O(n) instead of O(n log n), and 4 bytes per id of range
   instead of 16 per E-node). */
static int ids_dense(size_t n, hx_gid lo, hx_gid hi) {
  return n > 0 && hi - lo < (hx_gid)(2 * n + 1024) && hi - lo < (hx_gid)INT32_MAX;
}

static int lnumbering_dense(const hx_mesh *m, size_t n, hx_gid lo, hx_gid hi, hx_lmap *map) {
  size_t range = (size_t)(hi - lo) + 1;
  int32_t *tab = NULL;
  HX_CALL(hx_malloc(range * sizeof *tab, &tab));
  /* tab[id - lo] = 1 where present, then the running count gives each id its L index */
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) {
#pragma omp atomic write
    tab[m->node_id[i] - lo] = 1;
  }
  hx_lid nl = 0;
  for (size_t r = 0; r < range; r++) tab[r] = tab[r] ? nl++ : -1;
  int rc = hx_malloc(n * sizeof(hx_lid), &map->e2l);
  if (rc == HX_OK) rc = hx_malloc((size_t)nl * sizeof(hx_gid), &map->l2g);
  if (rc == HX_OK) rc = hx_malloc((size_t)nl * sizeof(int), &map->mult);
  if (rc != HX_OK) {
    hx_free(&tab);
    return rc;
  }
  for (size_t r = 0; r < range; r++)
    if (tab[r] >= 0) map->l2g[tab[r]] = lo + (hx_gid)r;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) map->e2l[i] = tab[m->node_id[i] - lo];
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) {
#pragma omp atomic update
    map->mult[map->e2l[i]]++;
  }
  map->num_lnodes = nl;
  hx_free(&tab);
  return HX_OK;
}

int hx_mesh_lnumbering(const hx_mesh *m, hx_lmap **out) {
  size_t n = (size_t)m->num_elem * (size_t)hx_mesh_nodes_per_elem(m);
  HX_CHECK(n < (size_t)INT32_MAX, HX_ERR_INPUT, "%zu element nodes exceed the 32-bit local index; run on more ranks", n);
  hx_lmap *map;
  HX_CALL(hx_malloc(sizeof *map, &map));
  hx_gid lo = 0, hi = -1;
  if (n > 0) id_range(m->node_id, n, &lo, &hi);
  if (ids_dense(n, lo, hi)) {
    int rc = lnumbering_dense(m, n, lo, hi, map);
    if (rc != HX_OK) {
      hx_lmap_destroy(&map);
      return rc;
    }
    *out = map;
    return HX_OK;
  }
  id_pos *tmp = NULL;
  int rc = hx_malloc(n * sizeof *tmp, &tmp);
  if (rc == HX_OK) rc = hx_malloc(n * sizeof(hx_lid), &map->e2l);
  if (rc != HX_OK) {
    hx_free(&tmp);
    hx_lmap_destroy(&map);
    return rc;
  }
  for (size_t i = 0; i < n; i++) {
    tmp[i].id = m->node_id[i];
    tmp[i].pos = i;
  }
  qsort(tmp, n, sizeof *tmp, cmp_id_pos);
  hx_lid nl = 0;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || tmp[i].id != tmp[i - 1].id) nl++;
  rc = hx_malloc((size_t)nl * sizeof(hx_gid), &map->l2g);
  if (rc == HX_OK) rc = hx_malloc((size_t)nl * sizeof(int), &map->mult);
  if (rc != HX_OK) {
    hx_free(&tmp);
    hx_lmap_destroy(&map);
    return rc;
  }
  hx_lid l = -1;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || tmp[i].id != tmp[i - 1].id) {
      l++;
      map->l2g[l] = tmp[i].id;
    }
    map->e2l[tmp[i].pos] = l;
    map->mult[l]++;
  }
  map->num_lnodes = nl;
  hx_free(&tmp);
  *out = map;
  return HX_OK;
}

void hx_lmap_destroy(hx_lmap **map) {
  if (!map || !*map) return;
  hx_free(&(*map)->e2l);
  hx_free(&(*map)->l2g);
  hx_free(&(*map)->mult);
  hx_free(map);
}

void hx_lmap_gather(const hx_lmap *map, const hx_mesh *m, int ncomp, const double *E, double *L) {
  hx_lmap_gather_ranked(map, m, ncomp, E, NULL, map->num_lnodes, L);
}

/* rank NULL: every L-node into its own slot. Each thread owns a range of slots and scans every
   E-node in order, adding those in its range: each sum runs in ascending E index from 0, as on
   one thread (the same doubles), and the writes stay in the thread's range (no atomics, no
   shared cache lines but at the ends) */
void hx_lmap_gather_ranked(const hx_lmap *map, const hx_mesh *m, int ncomp, const double *E, const hx_lid *rank, hx_lid nr,
                           double *L) {
  size_t npe = (size_t)hx_mesh_nodes_per_elem(m), n = (size_t)m->num_elem * npe;
#pragma omp parallel
  {
    size_t t = 0, nt = 1;
#ifdef _OPENMP
    t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
#endif
    size_t lo = (size_t)nr * t / nt, hi = (size_t)nr * (t + 1) / nt;
    for (size_t i = lo * ncomp; i < hi * ncomp; i++) L[i] = 0;
    for (size_t i = 0; i < n; i++) {
      hx_lid r = rank ? rank[map->e2l[i]] : map->e2l[i];
      if (r < 0 || (size_t)r < lo || (size_t)r >= hi) continue;
      size_t e = i / npe, a = i % npe;
      for (int c = 0; c < ncomp; c++) L[(size_t)r * ncomp + c] += E[(e * ncomp + c) * npe + a];
    }
  }
}

void hx_lmap_scatter(const hx_lmap *map, const hx_mesh *m, int ncomp, const double *L, double *E) {
  hx_lid npe = hx_mesh_nodes_per_elem(m);
#pragma omp parallel for schedule(static)
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int c = 0; c < ncomp; c++)
      for (hx_lid a = 0; a < npe; a++)
        E[((size_t)e * ncomp + c) * npe + a] = L[(size_t)map->e2l[(size_t)e * npe + a] * ncomp + c];
}

/* ---- Jacobians and the checker ------------------------------------------ */

int hx_mesh_gll_derivative(int nd, double *D) {
  double x[HX_MAX_ND], w[HX_MAX_ND];
  HX_CALL(hx_gll(nd, x, w));
  hx_lagrange_matrices(nd, x, nd, x, NULL, D);
  return HX_OK;
}

double hx_mesh_jacobian_at_node(const hx_mesh *m, const double *D, hx_lid e, int i, int j, int k, double J[3][3]) {
  int nd = m->nd;
  for (int c = 0; c < 3; c++) {
    const double *xc = hx_mesh_elem_x(m, e, c);
    double d0 = 0, d1 = 0, d2 = 0;
    for (int a = 0; a < nd; a++) {
      d0 += D[i * nd + a] * xc[hx_lex(nd, a, j, k)];
      d1 += D[j * nd + a] * xc[hx_lex(nd, i, a, k)];
      d2 += D[k * nd + a] * xc[hx_lex(nd, i, j, a)];
    }
    J[c][0] = d0;
    J[c][1] = d1;
    J[c][2] = d2;
  }
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

void hx_mesh_bbox(const hx_mesh *m, double lo[3], double hi[3]) {
  hx_lid npe = hx_mesh_nodes_per_elem(m);
  for (int c = 0; c < 3; c++) {
    lo[c] = INFINITY;
    hi[c] = -INFINITY;
  }
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int c = 0; c < 3; c++) {
      const double *xc = hx_mesh_elem_x(m, e, c);
      for (hx_lid a = 0; a < npe; a++) {
        if (xc[a] < lo[c]) lo[c] = xc[a];
        if (xc[a] > hi[c]) hi[c] = xc[a];
      }
    }
}

/* Diagonal of the bounding box of the mesh over all ranks (collective). */
static int global_diag(const hx_mesh *m, double *diag) {
  double lo[3], hi[3];
  hx_mesh_bbox(m, lo, hi);
  HX_CALL(hx_comm_min_double(m->comm, lo, 3));
  HX_CALL(hx_comm_max_double(m->comm, hi, 3));
  *diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
  return HX_OK;
}

/* A boundary face record that names a local element, a face 0..5, an id >= 1 and a
   surface index (or none). */
static int face_valid(const hx_mesh *m, const hx_bface *bf) {
  return bf->elem >= 0 && bf->elem < m->num_elem && bf->face >= 0 && bf->face <= 5 && bf->bid >= 1 && bf->surf < m->num_surfaces;
}

/* Smallest and largest det J over the GLL nodes of one element (x: [3][nd^3]), from
   the collocation derivatives G[c][d][node] = d x_c / d xi_d, one direction at a time. */
void hx_elem_detj_range(int nd, const double *D, const double *xe, double *mn, double *mx) {
  hx_elem_detj_volume(nd, D, NULL, xe, mn, mx, NULL);
}

void hx_elem_detj_volume(int nd, const double *D, const double *w, const double *xe, double *mn, double *mx, double *vol) {
  int npe = nd * nd * nd;
  double G[3][3][HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  for (int c = 0; c < 3; c++) {
    const double *x = xe + (size_t)c * npe;
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          double d0 = 0, d1 = 0, d2 = 0;
          for (int a = 0; a < nd; a++) {
            d0 += D[i * nd + a] * x[a + nd * (j + nd * k)];
            d1 += D[j * nd + a] * x[i + nd * (a + nd * k)];
            d2 += D[k * nd + a] * x[i + nd * (j + nd * a)];
          }
          int p = i + nd * (j + nd * k);
          G[c][0][p] = d0;
          G[c][1][p] = d1;
          G[c][2][p] = d2;
        }
  }
  double emin = INFINITY, emax = -INFINITY, v = 0;
  for (int p = 0; p < npe; p++) {
    double det = G[0][0][p] * (G[1][1][p] * G[2][2][p] - G[1][2][p] * G[2][1][p]) -
                 G[0][1][p] * (G[1][0][p] * G[2][2][p] - G[1][2][p] * G[2][0][p]) +
                 G[0][2][p] * (G[1][0][p] * G[2][1][p] - G[1][1][p] * G[2][0][p]);
    if (det < emin) emin = det;
    if (det > emax) emax = det;
    if (w) v += w[p % nd] * w[(p / nd) % nd] * w[p / (nd * nd)] * det;
  }
  *mn = emin;
  *mx = emax;
  if (vol) *vol = v;
}

static double elem_min_detj(int nd, const double *D, const double *w, const double *xe, double *vol) {
  double mn, mx;
  hx_elem_detj_volume(nd, D, w, xe, &mn, &mx, vol);
  return mn;
}

/* Distance of the nodes of boundary face bf from its surface, for element e of the
   (block) mesh m: counted into r->off_surface / r->surf_max_rel. */
static void face_on_surface(const hx_mesh *m, hx_lid e, const hx_bface *bf, double diag, double surf_tol,
                            hx_mesh_check_report *r) {
  int nd = m->nd;
  const hx_surface *s = &m->surfaces[bf->surf];
  double scale = hx_surface_scale(s);
  if (s->type == HX_SURF_PLANE) scale = diag > 0 ? diag : 1.0;
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        if (!hx_node_on_face(nd, bf->face, i, j, k)) continue;
        int a = hx_lex(nd, i, j, k);
        double p[3] = {hx_mesh_elem_x(m, e, 0)[a], hx_mesh_elem_x(m, e, 1)[a], hx_mesh_elem_x(m, e, 2)[a]};
        double rel = hx_surface_distance(s, p) / scale;
        if (rel > r->surf_max_rel) r->surf_max_rel = rel;
        if (rel > surf_tol) r->off_surface++;
      }
}

/* Sum the counts of a check over the ranks, fill report, and name the first failure. */
static int check_finish(const hx_mesh *m, hx_mesh_check_report *rp, double surf_tol, hx_mesh_check_report *report) {
  hx_mesh_check_report r = *rp;
  int64_t counts[4] = {r.id_mismatch, r.off_surface, r.bad_elems, r.bad_faces};
  HX_CALL(hx_comm_sum_int64(m->comm, counts, 4));
  double mx[2] = {r.id_max_dist, r.surf_max_rel};
  HX_CALL(hx_comm_max_double(m->comm, mx, 2));
  HX_CALL(hx_comm_min_double(m->comm, &r.min_detj, 1));
  HX_CALL(hx_comm_sum_double(m->comm, &r.volume, 1));
  /* the first bad element over all ranks, as a global index (INT64_MAX: none) */
  int64_t first_bad_global = r.first_bad_elem >= 0 ? (int64_t)m->elem_offset + r.first_bad_elem : INT64_MAX;
  HX_CALL(hx_comm_min_int64(m->comm, &first_bad_global, 1));
  if (report) {
    *report = r;
    report->id_mismatch = counts[0];
    report->off_surface = counts[1];
    report->bad_elems = counts[2];
    report->bad_faces = counts[3];
    report->id_max_dist = mx[0];
    report->surf_max_rel = mx[1];
  }
  if (counts[3]) return HX_ERROR(HX_ERR_INVALID_MESH, "%lld boundary face record(s) are invalid", (long long)counts[3]);
  if (counts[0])
    return HX_ERROR(HX_ERR_INVALID_MESH, "%lld node copies disagree with another copy of the same node id (max distance %.3e)",
                    (long long)counts[0], mx[0]);
  if (counts[1])
    return HX_ERROR(HX_ERR_INVALID_MESH, "%lld boundary-face nodes lie off their surface (max relative distance %.3e > %.1e)",
                    (long long)counts[1], mx[1], surf_tol);
  if (counts[2])
    return HX_ERROR(HX_ERR_INVALID_MESH, "%lld element(s) have det J <= 0 at a GLL node (min %.6e; e.g. element %lld)",
                    (long long)counts[2], r.min_detj, (long long)first_bad_global);
  return HX_OK;
}

int hx_mesh_check(const hx_mesh *m, double surf_tol, hx_mesh_check_report *report) {
  hx_mesh_check_report r = {0};
  r.min_detj = INFINITY;
  r.first_bad_elem = -1;
  int nd = m->nd;
  hx_lid npe = hx_mesh_nodes_per_elem(m);
  double diag;
  HX_CALL(global_diag(m, &diag));
  double id_tol = 1e-10 * (diag > 0 ? diag : 1.0);

  /* 1. equal ids => equal coordinates (on this rank): compare every E-node with
        the first E-node of its id (a direct table by id when the ids are dense,
        else through the sorted L-numbering) */
  size_t n = (size_t)m->num_elem * (size_t)npe;
  hx_gid idlo = 0, idhi = -1;
  if (n > 0) id_range(m->node_id, n, &idlo, &idhi);
  HX_CHECK(n < (size_t)INT32_MAX, HX_ERR_INPUT, "%zu element nodes exceed the 32-bit local index; run on more ranks", n);
  int32_t *first = NULL; /* [ids] first E-node of each id */
  hx_lmap *map = NULL;
  if (ids_dense(n, idlo, idhi)) {
    size_t range = (size_t)(idhi - idlo) + 1;
    HX_CALL(hx_malloc(range * sizeof *first, &first));
    for (size_t r = 0; r < range; r++) first[r] = -1;
    for (size_t i = 0; i < n; i++)
      if (first[m->node_id[i] - idlo] < 0) first[m->node_id[i] - idlo] = (int32_t)i;
  } else if (n > 0) {
    HX_CALL(hx_mesh_lnumbering(m, &map));
    int rc = hx_malloc((size_t)map->num_lnodes * sizeof *first, &first);
    if (rc != HX_OK) {
      hx_lmap_destroy(&map);
      return rc;
    }
    for (hx_lid l = 0; l < map->num_lnodes; l++) first[l] = -1;
    for (size_t i = 0; i < n; i++)
      if (first[map->e2l[i]] < 0) first[map->e2l[i]] = (int32_t)i;
  }
  hx_gid mismatch = 0;
  double maxdist = 0;
#pragma omp parallel for reduction(+ : mismatch) reduction(max : maxdist) schedule(static)
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (hx_lid a = 0; a < npe; a++) {
      size_t i = (size_t)e * npe + a;
      int32_t f = map ? first[map->e2l[i]] : first[m->node_id[i] - idlo];
      if ((size_t)f == i) continue;
      hx_lid fe = f / npe, fa = f % npe;
      double d = 0;
      for (int c = 0; c < 3; c++) {
        double dd = hx_mesh_elem_x(m, e, c)[a] - hx_mesh_elem_x(m, fe, c)[fa];
        d += dd * dd;
      }
      d = sqrt(d);
      if (d > maxdist) maxdist = d;
      if (d > id_tol) mismatch++;
    }
  r.id_mismatch = mismatch;
  r.id_max_dist = maxdist;
  hx_free(&first);
  hx_lmap_destroy(&map);

  /* 2. face records valid and their nodes on the surfaces */
  for (hx_lid f = 0; f < m->num_faces; f++) {
    const hx_bface *bf = &m->faces[f];
    if (!face_valid(m, bf)) {
      r.bad_faces++;
      continue;
    }
    if (bf->surf < 0) continue;
    face_on_surface(m, bf->elem, bf, diag, surf_tol, &r);
  }

  /* 3. det J > 0 at every GLL node */
  double D[HX_MAX_ND * HX_MAX_ND];
  HX_CALL(hx_mesh_gll_derivative(nd, D));
  /* the volume summed in element order (ev), the same on any thread count */
  double min_detj = INFINITY, xg[HX_MAX_ND], wg[HX_MAX_ND], volume = 0, *ev = NULL;
  HX_CALL(hx_gll(nd, xg, wg));
  HX_CALL(hx_malloc(((size_t)m->num_elem + 1) * sizeof *ev, &ev));
  hx_gid bad_elems = 0;
  hx_lid first_bad = m->num_elem, block = 65536;
  hx_progress prog; /* blocks of elements between the progress updates */
  hx_progress_start(&prog, "check", m->num_elem);
  for (hx_lid e0 = 0; e0 < m->num_elem; e0 += block) {
    hx_lid e1 = m->num_elem - e0 < block ? m->num_elem : e0 + block;
#pragma omp parallel for reduction(min : min_detj, first_bad) reduction(+ : bad_elems) schedule(static)
    for (hx_lid e = e0; e < e1; e++) {
      double emin = elem_min_detj(nd, D, wg, m->x + (size_t)e * 3 * npe, &ev[e]);
      if (emin < min_detj) min_detj = emin;
      if (!(emin > 0)) {
        if (e < first_bad) first_bad = e;
        bad_elems++;
      }
    }
    hx_progress_update(&prog, e1);
  }
  hx_progress_finish(&prog);
  r.min_detj = min_detj;
  r.bad_elems = bad_elems;
  r.first_bad_elem = first_bad < m->num_elem ? first_bad : -1;
  for (hx_lid e = 0; e < m->num_elem; e++) volume += ev[e];
  hx_free(&ev);
  r.volume = volume;

  return check_finish(m, &r, surf_tol, report);
}

int hx_mesh_check_lazy(hx_mesh *m, double surf_tol, hx_mesh_check_report *report) {
  hx_mesh_lazy *lz = m->lazy;
  HX_CHECK(lz && lz->block, HX_ERR_INTERNAL, "hx_mesh_check_lazy: the mesh has no lazy geometry");
  hx_mesh_check_report r = {0};
  r.min_detj = INFINITY;
  r.first_bad_elem = -1;
  int nd = lz->order + 1;
  size_t npe = (size_t)nd * nd * nd;
  double diag;
  HX_CALL(global_diag(m, &diag));
  /* boundary faces by element (CSR), so that each block checks its own */
  hx_lid ne = m->num_elem, nf = m->num_faces, block = 2048;
  hx_lid *start = NULL, *order = NULL;
  double *xb = NULL, D[HX_MAX_ND * HX_MAX_ND];
  int rc = hx_malloc(((size_t)ne + 2) * sizeof *start, &start);
  if (!rc) rc = hx_malloc(((size_t)nf + 1) * sizeof *order, &order);
  if (!rc) rc = hx_malloc((size_t)block * 3 * npe * sizeof *xb, &xb);
  if (!rc) rc = hx_mesh_gll_derivative(nd, D);
  if (!rc && !lz->detj) rc = hx_malloc(((size_t)ne + 1) * 2 * sizeof *lz->detj, &lz->detj);
  if (!rc) {
    memset(start, 0, ((size_t)ne + 2) * sizeof *start);
    for (hx_lid f = 0; f < nf; f++) {
      if (!face_valid(m, &m->faces[f])) r.bad_faces++;
      else start[m->faces[f].elem + 2]++;
    }
    for (hx_lid e = 0; e < ne; e++) start[e + 2] += start[e + 1];
    for (hx_lid f = 0; f < nf; f++)
      if (face_valid(m, &m->faces[f])) order[start[m->faces[f].elem + 1]++] = f;
  }
  hx_mesh v = *m;
  v.order = lz->order;
  v.nd = nd;
  v.x = xb;
  v.node_id = NULL;
  v.lazy = NULL;
  double min_detj = INFINITY, xg[HX_MAX_ND], wg[HX_MAX_ND], volume = 0, *ev = NULL; /* ev: as hx_mesh_check */
  if (!rc) rc = hx_gll(nd, xg, wg);
  if (!rc) rc = hx_malloc((size_t)block * sizeof *ev, &ev);
  hx_gid bad_elems = 0;
  hx_lid first_bad = ne;
  hx_progress prog;
  hx_progress_start(&prog, "check", ne);
  for (hx_lid e0 = 0; !rc && e0 < ne; e0 += block) {
    hx_lid cnt = ne - e0 < block ? ne - e0 : block;
    rc = lz->block(lz->ctx, m, e0, cnt, xb, NULL);
    if (rc) break;
    v.num_elem = cnt;
#pragma omp parallel for reduction(min : min_detj, first_bad) reduction(+ : bad_elems) schedule(static)
    for (hx_lid e = 0; e < cnt; e++) {
      double emin, emax;
      hx_elem_detj_volume(nd, D, wg, xb + (size_t)e * 3 * npe, &emin, &emax, &ev[e]);
      lz->detj[e0 + e] = emin;
      lz->detj[ne + e0 + e] = hx_detj_ratio(emin, emax);
      if (emin < min_detj) min_detj = emin;
      if (!(emin > 0)) {
        if (e0 + e < first_bad) first_bad = e0 + e;
        bad_elems++;
      }
    }
    for (hx_lid e = 0; e < cnt; e++) volume += ev[e];
    for (hx_lid e = 0; e < cnt; e++)
      for (hx_lid k = start[e0 + e]; k < start[e0 + e + 1]; k++) {
        const hx_bface *bf = &m->faces[order[k]];
        if (bf->surf >= 0) face_on_surface(&v, e, bf, diag, surf_tol, &r);
      }
    hx_progress_update(&prog, e0 + cnt);
  }
  hx_progress_finish(&prog);
  hx_free(&start);
  hx_free(&order);
  hx_free(&xb);
  hx_free(&ev);
  if (rc) hx_free(&lz->detj); /* kept only when whole */
  rc = hx_comm_agree(m->comm, rc);
  HX_CALL(rc);
  r.min_detj = min_detj;
  r.bad_elems = bad_elems;
  r.first_bad_elem = first_bad < ne ? first_bad : -1;
  r.volume = volume;
  return check_finish(m, &r, surf_tol, report);
}
