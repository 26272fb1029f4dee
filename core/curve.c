/* Curving: raise an order-M mesh to order N with boundary nodes on their analytic
   surfaces (the contract is hx_curve.h; docs/architecture.md, "Curving").

   design:
   1. hx_curve_create builds, once, hash maps of the mesh's vertices (vert_id),
      edges (two sorted vertex ids) and faces (four sorted vertex ids). Every
      entity gets a dense index in order of first appearance, and the set of
      analytic surfaces it lies on (collected from the boundary faces that touch
      it; an edge where a sphere face meets a cylinder face gets both).
   2. hx_curve_block curves each element alone, reading only the context:
      a. X0 = the element's geometry interpolated from order M to order N (tensor
         Lagrange interpolation at the order-N GLL nodes);
      b. corners: projected onto all their surfaces (alternating projections);
      c. edges: computed in the edge's canonical direction (from the smaller vertex
         id) from the order-M edge nodes alone, moved with their end corners, and
         projected onto all the edge's surfaces: so every element sharing the
         edge gets bitwise the same nodes;
      d. faces: X0 plus the 2D transfinite (Gordon-Hall) blend of the edge
         displacements; boundary faces then have their interior nodes projected;
      e. volume: X0 plus the 3D Gordon-Hall blend of the face displacements.
   3. Node ids at order N: corners keep vert_id; edge nodes are
      Vb + edge * (N-1) + t along the canonical direction; face nodes
      Vb + E (N-1) + face * (N-1)^2 + (p, q) in the face's canonical frame (origin
      at the smallest vertex id, first axis towards its smaller neighbour);
      interior nodes follow, per global element. Vb = max vert_id + 1, so the ids
      fill [0, bound) without holes when the vert_ids do. */
#include "hx_curve.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "hx_progress.h"

#define MAX_SURF 4 /* surfaces one vertex/edge may lie on */

/* ---- a small open-addressing hash table of keys of K int64 words ---------- */

typedef struct keytab {
  int K;
  size_t cap;   /* power of 2 */
  hx_gid *keys; /* [cap][K] */
  int32_t *val; /* [cap], -1 = empty */
  int32_t count;
} keytab;

static uint64_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

static int keytab_init(keytab *t, int K, size_t expected) {
  t->K = K;
  t->cap = 64;
  while (t->cap < 2 * expected) t->cap *= 2;
  t->count = 0;
  t->keys = NULL;
  t->val = NULL;
  HX_CALL(hx_malloc(t->cap * K * sizeof(hx_gid), &t->keys));
  HX_CALL(hx_malloc(t->cap * sizeof(int32_t), &t->val));
  for (size_t i = 0; i < t->cap; i++) t->val[i] = -1;
  return HX_OK;
}

static void keytab_free(keytab *t) {
  hx_free(&t->keys);
  hx_free(&t->val);
}

static size_t keytab_slot(const keytab *t, const hx_gid *key) {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (int k = 0; k < t->K; k++) h = mix64(h ^ (uint64_t)key[k]);
  size_t mask = t->cap - 1, i = (size_t)h & mask;
  while (t->val[i] >= 0 && memcmp(&t->keys[i * t->K], key, t->K * sizeof(hx_gid))) i = (i + 1) & mask;
  return i;
}

/* Double the capacity and re-insert every key (load factor stays <= 1/2). */
static int keytab_grow(keytab *t) {
  keytab n = *t;
  n.cap = 2 * t->cap;
  n.keys = NULL;
  n.val = NULL;
  int rc = hx_malloc(n.cap * n.K * sizeof(hx_gid), &n.keys);
  if (rc == HX_OK) rc = hx_malloc(n.cap * sizeof(int32_t), &n.val);
  if (rc != HX_OK) {
    keytab_free(&n);
    return rc;
  }
  for (size_t i = 0; i < n.cap; i++) n.val[i] = -1;
  for (size_t i = 0; i < t->cap; i++) {
    if (t->val[i] < 0) continue;
    size_t j = keytab_slot(&n, &t->keys[i * t->K]);
    memcpy(&n.keys[j * n.K], &t->keys[i * t->K], n.K * sizeof(hx_gid));
    n.val[j] = t->val[i];
  }
  keytab_free(t);
  *t = n;
  return HX_OK;
}

/* Index of key in *idx (inserting it with the next index if absent when insert != 0;
   -1 if absent and not inserting). */
static int keytab_get(keytab *t, const hx_gid *key, int insert, int32_t *idx) {
  size_t i = keytab_slot(t, key);
  if (t->val[i] >= 0 || !insert) {
    *idx = t->val[i];
    return HX_OK;
  }
  HX_CHECK(t->count < INT32_MAX, HX_ERR_INPUT, "curving: more than 2^31 mesh entities on one rank");
  if (2 * ((size_t)t->count + 1) > t->cap) {
    HX_CALL(keytab_grow(t));
    i = keytab_slot(t, key);
  }
  memcpy(&t->keys[i * t->K], key, t->K * sizeof(hx_gid));
  t->val[i] = t->count++;
  *idx = t->val[i];
  return HX_OK;
}

static void sort_gids(hx_gid *a, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
      hx_gid t = a[j];
      a[j] = a[j - 1];
      a[j - 1] = t;
    }
}

/* ---- local numbering of hex edges ---------------------------------------- */

/* Edge le = 4 d + m runs along direction d from corner c0 to c0 + (1 << d); the two
   other corner bits come from m (the lower-numbered direction first). */
static void edge_corners(int le, int *c0, int *c1) {
  int d = le / 4, m = le % 4;
  int a = d == 0 ? 1 : 0, b = d == 2 ? 1 : 2;
  *c0 = ((m & 1) << a) | (((m >> 1) & 1) << b);
  *c1 = *c0 | (1 << d);
}

/* The 4 edges of local face f, with which end of the face they are: edges along
   the face's first free direction u at v = 0 / v = 1, then along v at u = 0 / 1. */
static int edge_of(int c0, int d) {
  int a = d == 0 ? 1 : 0, b = d == 2 ? 1 : 2;
  return 4 * d + ((c0 >> a) & 1) + 2 * ((c0 >> b) & 1);
}

struct hx_curve_ctx {
  const hx_mesh *m;                /* borrowed */
  int N, nd;                       /* target order and nodes per direction */
  int ndm;                         /* nodes per direction of the input mesh */
  double xg[HX_MAX_ND];            /* order-N GLL nodes on [0,1] */
  double B[HX_MAX_ND * HX_MAX_ND]; /* [nd][ndm] interpolation order M -> N */
  int32_t *elem_vert;              /* [num_elem][8] dense vertex index */
  int32_t *elem_edge;              /* [num_elem][12] dense edge index */
  int32_t *elem_face;              /* [num_elem][6] dense face index */
  uint8_t *face_frame;             /* [num_elem][6] canonical frame: bit0 ou, bit1 ov, bit2 swap */
  int32_t num_verts, num_edges, num_faces;
  int32_t *vert_set, *edge_set, *face_surf; /* surface set index (-1 none) / face surface */
  int32_t (*sets)[MAX_SURF];                /* surface sets, -1 padded */
  int32_t num_sets;
  hx_gid vbound; /* max vert_id + 1 */
  hx_gid num_nodes, id_bound;
};

/* Add surface s to the set slot[MAX_SURF] (-1 padded) if absent. */
static int set_add(int32_t *slot, int32_t s, hx_gid entity, const char *what) {
  for (int i = 0; i < MAX_SURF; i++) {
    if (slot[i] == s) return HX_OK;
    if (slot[i] < 0) {
      slot[i] = s;
      return HX_OK;
    }
  }
  return HX_ERROR(HX_ERR_INPUT, "curving: %s %lld lies on more than %d analytic surfaces", what, (long long)entity, MAX_SURF);
}

/* Replace per-entity slots [n][MAX_SURF] by indices into the deduplicated set table. */
static int dedupe_sets(hx_curve_ctx *cc, keytab *settab, int32_t (*slots)[MAX_SURF], int32_t n, int32_t *out) {
  for (int32_t i = 0; i < n; i++) {
    if (slots[i][0] < 0) {
      out[i] = -1;
      continue;
    }
    hx_gid key[MAX_SURF];
    for (int k = 0; k < MAX_SURF; k++) key[k] = slots[i][k];
    /* canonical order so that the same set found from different faces is one entry */
    int cnt = 0;
    while (cnt < MAX_SURF && key[cnt] >= 0) cnt++;
    sort_gids(key, cnt);
    int32_t idx;
    HX_CALL(keytab_get(settab, key, 1, &idx));
    if (idx == cc->num_sets) {
      HX_CALL(hx_realloc((size_t)(cc->num_sets + 1) * sizeof *cc->sets, &cc->sets));
      for (int k = 0; k < MAX_SURF; k++) cc->sets[idx][k] = (int32_t)key[k];
      cc->num_sets++;
    }
    out[i] = idx;
  }
  return HX_OK;
}

static int create_impl(hx_curve_ctx *cc) {
  const hx_mesh *m = cc->m;
  hx_lid ne = m->num_elem;
  HX_CHECK(hx_comm_size(m->comm) == 1, HX_ERR_INPUT,
           "curving a mesh distributed over %d ranks is not supported yet (edge and face node ids "
           "would not agree across ranks); curve on one rank",
           hx_comm_size(m->comm));
  double xm[HX_MAX_ND], w[HX_MAX_ND];
  HX_CALL(hx_gll(cc->nd, cc->xg, w));
  HX_CALL(hx_gll(cc->ndm, xm, w));
  hx_lagrange_matrices(cc->ndm, xm, cc->nd, cc->xg, cc->B, NULL);

  HX_CALL(hx_malloc((size_t)ne * 8 * sizeof(int32_t), &cc->elem_vert));
  HX_CALL(hx_malloc((size_t)ne * 12 * sizeof(int32_t), &cc->elem_edge));
  HX_CALL(hx_malloc((size_t)ne * 6 * sizeof(int32_t), &cc->elem_face));
  HX_CALL(hx_malloc((size_t)ne * 6, &cc->face_frame));

  keytab vt = {0}, et = {0}, ft = {0}, st = {0};
  int32_t(*vslot)[MAX_SURF] = NULL, (*eslot)[MAX_SURF] = NULL;
  /* initial sizes: the counts of a large structured mesh (about 1, 3 and 3 per
     element); the tables grow when a mesh has more */
  int rc = keytab_init(&vt, 1, (size_t)ne + 16);
  if (rc == HX_OK) rc = keytab_init(&et, 2, (size_t)ne * 3 + 16);
  if (rc == HX_OK) rc = keytab_init(&ft, 4, (size_t)ne * 3 + 16);
  if (rc == HX_OK) rc = keytab_init(&st, MAX_SURF, 64 + (size_t)m->num_faces);
  hx_gid vmax = -1;
  for (hx_lid e = 0; e < ne && rc == HX_OK; e++) {
    const hx_gid *v = &m->vert_id[(size_t)e * 8];
    for (int c = 0; c < 8; c++) {
      if (v[c] < 0) {
        rc = HX_ERROR(HX_ERR_INPUT, "curving: element %lld has a negative vertex id", (long long)e);
        break;
      }
      if (v[c] > vmax) vmax = v[c];
      rc = keytab_get(&vt, &v[c], 1, &cc->elem_vert[(size_t)e * 8 + c]);
      if (rc != HX_OK) break;
    }
    for (int le = 0; le < 12 && rc == HX_OK; le++) {
      int c0, c1;
      edge_corners(le, &c0, &c1);
      hx_gid key[2] = {v[c0] < v[c1] ? v[c0] : v[c1], v[c0] < v[c1] ? v[c1] : v[c0]};
      if (key[0] == key[1])
        rc = HX_ERROR(HX_ERR_INPUT, "curving: element %lld has a collapsed edge (vertex %lld twice)", (long long)e,
                      (long long)key[0]);
      if (rc == HX_OK) rc = keytab_get(&et, key, 1, &cc->elem_edge[(size_t)e * 12 + le]);
    }
    for (int f = 0; f < 6 && rc == HX_OK; f++) {
      int fc[4];
      hx_face_corners(f, fc);
      hx_gid key[4] = {v[fc[0]], v[fc[1]], v[fc[2]], v[fc[3]]};
      sort_gids(key, 4);
      rc = keytab_get(&ft, key, 1, &cc->elem_face[(size_t)e * 6 + f]);
      /* canonical frame: origin at the smallest id, first axis towards the smaller
         of its two neighbours in the face (face-local (u, v) in {0,1}^2) */
      int o = 0;
      for (int q = 1; q < 4; q++)
        if (v[fc[q]] < v[fc[o]]) o = q;
      int ou = o & 1, ov = o >> 1;
      hx_gid nu = v[fc[(1 - ou) + 2 * ov]], nv = v[fc[ou + 2 * (1 - ov)]];
      cc->face_frame[(size_t)e * 6 + f] = (uint8_t)(ou | (ov << 1) | ((nv < nu) << 2));
    }
  }
  if (rc == HX_OK) {
    cc->num_verts = vt.count;
    cc->num_edges = et.count;
    cc->num_faces = ft.count;
    rc = hx_malloc((size_t)cc->num_verts * sizeof *vslot, &vslot);
  }
  if (rc == HX_OK) rc = hx_malloc((size_t)cc->num_edges * sizeof *eslot, &eslot);
  if (rc == HX_OK) rc = hx_malloc((size_t)cc->num_verts * sizeof(int32_t), &cc->vert_set);
  if (rc == HX_OK) rc = hx_malloc((size_t)cc->num_edges * sizeof(int32_t), &cc->edge_set);
  if (rc == HX_OK) rc = hx_malloc((size_t)cc->num_faces * sizeof(int32_t), &cc->face_surf);
  if (rc == HX_OK) {
    memset(vslot, 0xff, (size_t)cc->num_verts * sizeof *vslot);
    memset(eslot, 0xff, (size_t)cc->num_edges * sizeof *eslot);
    for (int32_t f = 0; f < cc->num_faces; f++) cc->face_surf[f] = -1;
  }
  /* surfaces of faces, and through them of their edges and corners */
  for (hx_lid b = 0; b < m->num_faces && rc == HX_OK; b++) {
    const hx_bface *bf = &m->faces[b];
    if (bf->surf < 0) continue;
    if (bf->elem < 0 || bf->elem >= ne || bf->face < 0 || bf->face > 5 || bf->surf >= m->num_surfaces) {
      rc = HX_ERROR(HX_ERR_INPUT, "curving: boundary face record %lld is invalid (element %lld, face %d, surface %d)",
                    (long long)b, (long long)bf->elem, (int)bf->face, (int)bf->surf);
      break;
    }
    int32_t fidx = cc->elem_face[(size_t)bf->elem * 6 + bf->face];
    if (cc->face_surf[fidx] >= 0 && cc->face_surf[fidx] != bf->surf) {
      rc = HX_ERROR(HX_ERR_INPUT, "curving: face %d of element %lld is tagged with two surfaces (%d and %d)", (int)bf->face,
                    (long long)bf->elem, (int)cc->face_surf[fidx], (int)bf->surf);
      break;
    }
    cc->face_surf[fidx] = bf->surf;
    int fc[4];
    hx_face_corners(bf->face, fc);
    for (int q = 0; q < 4 && rc == HX_OK; q++) {
      int c = fc[q];
      rc = set_add(vslot[cc->elem_vert[(size_t)bf->elem * 8 + c]], bf->surf, m->vert_id[(size_t)bf->elem * 8 + c], "vertex");
    }
    int d = bf->face / 2;
    for (int q = 0; q < 4 && rc == HX_OK; q++) {
      /* face edges: along both free directions, starting at each corner whose bit is 0 */
      for (int dd = 0; dd < 3 && rc == HX_OK; dd++) {
        if (dd == d || (fc[q] >> dd) & 1) continue;
        int32_t eidx = cc->elem_edge[(size_t)bf->elem * 12 + edge_of(fc[q], dd)];
        rc = set_add(eslot[eidx], bf->surf, eidx, "edge");
      }
    }
  }
  if (rc == HX_OK) rc = dedupe_sets(cc, &st, vslot, cc->num_verts, cc->vert_set);
  if (rc == HX_OK) rc = dedupe_sets(cc, &st, eslot, cc->num_edges, cc->edge_set);
  hx_free(&vslot);
  hx_free(&eslot);
  keytab_free(&vt);
  keytab_free(&et);
  keytab_free(&ft);
  keytab_free(&st);
  HX_CALL(rc);
  for (int s = 0; s < m->num_surfaces; s++) {
    const hx_surface *S = &m->surfaces[s];
    HX_CHECK(S->type >= HX_SURF_NONE && S->type <= HX_SURF_CYLINDER, HX_ERR_INPUT, "curving: surface %d has unknown type %d", s,
             S->type);
    HX_CHECK(S->type == HX_SURF_PLANE || S->type == HX_SURF_NONE || S->r > 0, HX_ERR_INPUT,
             "curving: surface %d has radius %g <= 0", s, S->r);
  }
  cc->vbound = vmax + 1;
  hx_gid N1 = cc->N - 1;
  cc->num_nodes =
      cc->num_verts + (hx_gid)cc->num_edges * N1 + (hx_gid)cc->num_faces * N1 * N1 + m->num_elem_global * N1 * N1 * N1;
  cc->id_bound = cc->num_nodes - cc->num_verts + cc->vbound;
  return HX_OK;
}

int hx_curve_create(const hx_mesh *m, int order, hx_curve_ctx **out) {
  HX_CHECK(order >= 1 && order <= HX_MAX_ORDER, HX_ERR_INPUT, "curving: order must be in 1..%d, got %d", HX_MAX_ORDER, order);
  hx_curve_ctx *cc;
  HX_CALL(hx_malloc(sizeof *cc, &cc));
  cc->m = m;
  cc->N = order;
  cc->nd = order + 1;
  cc->ndm = m->nd;
  int rc = create_impl(cc);
  if (rc != HX_OK) {
    hx_curve_destroy(&cc);
    return rc;
  }
  *out = cc;
  return HX_OK;
}

void hx_curve_destroy(hx_curve_ctx **pcc) {
  if (!pcc || !*pcc) return;
  hx_curve_ctx *cc = *pcc;
  hx_free(&cc->elem_vert);
  hx_free(&cc->elem_edge);
  hx_free(&cc->elem_face);
  hx_free(&cc->face_frame);
  hx_free(&cc->vert_set);
  hx_free(&cc->edge_set);
  hx_free(&cc->face_surf);
  hx_free(&cc->sets);
  hx_free(pcc);
}

hx_gid hx_curve_num_nodes(const hx_curve_ctx *cc) { return cc->num_nodes; }
hx_gid hx_curve_id_bound(const hx_curve_ctx *cc) { return cc->id_bound; }
int hx_curve_order(const hx_curve_ctx *cc) { return cc->N; }

/* ---- per-element curving --------------------------------------------------- */

/* Put x onto every surface of set (alternating projections until it moves by less
   than 1e-15 of the surfaces' scale; one projection for a single surface). */
static void project_set(const hx_curve_ctx *cc, int32_t set, double x[3]) {
  if (set < 0) return;
  const int32_t *s = cc->sets[set];
  int n = 0;
  while (n < MAX_SURF && s[n] >= 0) n++;
  const hx_surface *surf = cc->m->surfaces;
  if (n == 1) {
    hx_surface_project(&surf[s[0]], x, x);
    return;
  }
  double scale = 0;
  for (int i = 0; i < n; i++) {
    double sc = hx_surface_scale(&surf[s[i]]);
    scale = sc > scale ? sc : scale;
  }
  for (int it = 0; it < 200; it++) {
    double moved = 0;
    for (int i = 0; i < n; i++) {
      double y[3];
      hx_surface_project(&surf[s[i]], x, y);
      for (int c = 0; c < 3; c++) {
        moved = fmax(moved, fabs(y[c] - x[c]));
        x[c] = y[c];
      }
    }
    if (moved <= 1e-16 * scale) break;
  }
}

static void project_one(const hx_curve_ctx *cc, int32_t surf, double x[3]) {
  if (surf >= 0) hx_surface_project(&cc->m->surfaces[surf], x, x);
}

/* position (i, j, k) of the node at parameter t along local edge le */
static int edge_lex(int nd, int le, int t) {
  int c0, c1;
  edge_corners(le, &c0, &c1);
  int idx[3] = {(c0 & 1) ? nd - 1 : 0, (c0 & 2) ? nd - 1 : 0, (c0 & 4) ? nd - 1 : 0};
  idx[le / 4] = t;
  return hx_lex(nd, idx[0], idx[1], idx[2]);
}

/* ---- Gordon-Hall blends of a displacement field (also hx_tmop_transfer) ---- */

void hx_gh_blend_face(int nd, const double *xg, int f, const unsigned char *own, double *D) {
  int N = nd - 1, d = f / 2, da = d == 0 ? 1 : 0, db = d == 2 ? 1 : 2, idx[3];
  idx[d] = (f & 1) ? N : 0;
#define FLEX(uu, vv) (idx[da] = (uu), idx[db] = (vv), hx_lex(nd, idx[0], idx[1], idx[2]))
  for (int v = 1; v < N; v++)
    for (int u = 1; u < N; u++) {
      int a = FLEX(u, v);
      if (own && own[a]) continue;
      int u0 = FLEX(0, v), u1 = FLEX(N, v), v0 = FLEX(u, 0), v1 = FLEX(u, N);
      int c00 = FLEX(0, 0), c10 = FLEX(N, 0), c01 = FLEX(0, N), c11 = FLEX(N, N);
      double r = xg[u], t = xg[v];
      D[a] = (1 - r) * D[u0] + r * D[u1] + (1 - t) * D[v0] + t * D[v1] -
             ((1 - r) * (1 - t) * D[c00] + r * (1 - t) * D[c10] + (1 - r) * t * D[c01] + r * t * D[c11]);
    }
#undef FLEX
}

void hx_gh_blend_volume(int nd, const double *xg, double *D) {
  int N = nd - 1;
  for (int k = 1; k < N; k++)
    for (int j = 1; j < N; j++)
      for (int i = 1; i < N; i++) {
        double w1[2] = {1 - xg[i], xg[i]}, w2[2] = {1 - xg[j], xg[j]}, w3[2] = {1 - xg[k], xg[k]};
        int I[2] = {0, N};
        double v = 0;
        for (int s = 0; s < 2; s++) {
          v += w1[s] * D[hx_lex(nd, I[s], j, k)] + w2[s] * D[hx_lex(nd, i, I[s], k)] + w3[s] * D[hx_lex(nd, i, j, I[s])];
          for (int t = 0; t < 2; t++) {
            v -= w1[s] * w2[t] * D[hx_lex(nd, I[s], I[t], k)] + w1[s] * w3[t] * D[hx_lex(nd, I[s], j, I[t])] +
                 w2[s] * w3[t] * D[hx_lex(nd, i, I[s], I[t])];
            for (int u = 0; u < 2; u++) v += w1[s] * w2[t] * w3[u] * D[hx_lex(nd, I[s], I[t], I[u])];
          }
        }
        D[hx_lex(nd, i, j, k)] = v;
      }
}

/* Curve one element into X ([3][nd^3]) with ids into id ([nd^3], may be NULL). */
static void curve_elem(const hx_curve_ctx *cc, hx_lid e, double *X, hx_gid *id) {
  const hx_mesh *m = cc->m;
  int nd = cc->nd, ndm = cc->ndm, N = cc->N, npe = nd * nd * nd;
  const double *B = cc->B, *xg = cc->xg;
  double X0[3 * HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  double tmp1[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND], DL[3][HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];

  /* a. X0: tensor interpolation M -> N, one direction at a time */
  for (int c = 0; c < 3; c++) hx_tensor_interp(ndm, nd, B, hx_mesh_elem_x(m, e, c), X0 + c * npe);
  /* X starts as X0; every boundary stage overwrites its nodes of X */
  memcpy(X, X0, 3 * (size_t)npe * sizeof(double));
  const hx_gid *vid = &m->vert_id[(size_t)e * 8];

  /* b. corners */
  for (int c = 0; c < 8; c++) {
    int a = hx_corner_lex(nd, c);
    double p[3] = {X0[a], X0[npe + a], X0[2 * npe + a]};
    project_set(cc, cc->vert_set[cc->elem_vert[(size_t)e * 8 + c]], p);
    for (int q = 0; q < 3; q++) X[q * npe + a] = p[q];
  }
  /* c. edges, in canonical direction, from the order-M edge nodes only */
  for (int le = 0; le < 12; le++) {
    int c0, c1;
    edge_corners(le, &c0, &c1);
    int flip = vid[c0] > vid[c1];
    int32_t set = cc->edge_set[cc->elem_edge[(size_t)e * 12 + le]];
    int ca = flip ? c1 : c0, cb = flip ? c0 : c1;
    double em[3][HX_MAX_ND], va[3], vb[3];
    for (int q = 0; q < 3; q++) {
      const double *xm = hx_mesh_elem_x(m, e, q);
      for (int t = 0; t < ndm; t++) em[q][t] = xm[edge_lex(ndm, le, flip ? ndm - 1 - t : t)];
      va[q] = X[q * npe + hx_corner_lex(nd, ca)];
      vb[q] = X[q * npe + hx_corner_lex(nd, cb)];
    }
    for (int t = 1; t < N; t++) {
      double p[3];
      for (int q = 0; q < 3; q++) {
        double s = 0;
        for (int a = 0; a < ndm; a++) s += B[t * ndm + a] * em[q][a];
        /* follow the corners' moves linearly */
        p[q] = s + (1.0 - xg[t]) * (va[q] - em[q][0]) + xg[t] * (vb[q] - em[q][ndm - 1]);
      }
      project_set(cc, set, p);
      int a = edge_lex(nd, le, flip ? N - t : t);
      for (int q = 0; q < 3; q++) X[q * npe + a] = p[q];
    }
  }
  /* d. faces: X0 + 2D Gordon-Hall blend of the edge displacements, then project */
  double *dl = tmp1;
  for (int q = 0; q < 3; q++) { /* the blends read the edges only: all faces first */
    for (int a = 0; a < npe; a++) DL[q][a] = X[q * npe + a] - X0[q * npe + a];
    for (int f = 0; f < 6; f++) hx_gh_blend_face(nd, xg, f, NULL, DL[q]);
  }
  for (int f = 0; f < 6; f++) {
    int32_t surf = cc->face_surf[cc->elem_face[(size_t)e * 6 + f]];
    int d = f / 2, da = d == 0 ? 1 : 0, db = d == 2 ? 1 : 2, idx[3];
    idx[d] = (f & 1) ? N : 0;
    for (int v = 1; v < N; v++)
      for (int u = 1; u < N; u++) {
        idx[da] = u, idx[db] = v;
        int a = hx_lex(nd, idx[0], idx[1], idx[2]);
        double p[3];
        for (int q = 0; q < 3; q++) p[q] = X0[q * npe + a] + DL[q][a];
        project_one(cc, surf, p);
        for (int q = 0; q < 3; q++) X[q * npe + a] = p[q];
      }
  }
  /* e. volume: X0 + 3D Gordon-Hall blend of the boundary displacements */
  for (int q = 0; q < 3; q++) {
    double *x = X + q * npe;
    const double *x0 = X0 + q * npe;
    for (int a = 0; a < npe; a++) dl[a] = x[a] - x0[a];
    hx_gh_blend_volume(nd, xg, dl);
    for (int k = 1; k < N; k++)
      for (int j = 1; j < N; j++)
        for (int i = 1; i < N; i++) x[hx_lex(nd, i, j, k)] = x0[hx_lex(nd, i, j, k)] + dl[hx_lex(nd, i, j, k)];
  }

  /* ids */
  if (!id) return;
  hx_gid N1 = N - 1, ebase = cc->vbound, fbase = ebase + (hx_gid)cc->num_edges * N1,
         ibase = fbase + (hx_gid)cc->num_faces * N1 * N1;
  for (int c = 0; c < 8; c++) id[hx_corner_lex(nd, c)] = vid[c];
  for (int le = 0; le < 12; le++) {
    int c0, c1;
    edge_corners(le, &c0, &c1);
    int flip = vid[c0] > vid[c1];
    hx_gid base = ebase + (hx_gid)cc->elem_edge[(size_t)e * 12 + le] * N1;
    for (int t = 1; t < N; t++) id[edge_lex(nd, le, t)] = base + (flip ? N - t : t) - 1;
  }
  for (int f = 0; f < 6; f++) {
    int d = f / 2, s = f % 2;
    int da = d == 0 ? 1 : 0, db = d == 2 ? 1 : 2;
    int fr = cc->face_frame[(size_t)e * 6 + f];
    int ou = fr & 1, ov = (fr >> 1) & 1, sw = (fr >> 2) & 1;
    hx_gid base = fbase + (hx_gid)cc->elem_face[(size_t)e * 6 + f] * N1 * N1;
    for (int v = 1; v < N; v++)
      for (int u = 1; u < N; u++) {
        int up = ou ? N - u : u, vp = ov ? N - v : v;
        int p = sw ? vp : up, qq = sw ? up : vp;
        int idx[3];
        idx[d] = s ? N : 0;
        idx[da] = u;
        idx[db] = v;
        id[hx_lex(nd, idx[0], idx[1], idx[2])] = base + (p - 1) + N1 * (qq - 1);
      }
  }
  hx_gid gbase = ibase + (m->elem_offset + e) * N1 * N1 * N1;
  for (int k = 1; k < N; k++)
    for (int j = 1; j < N; j++)
      for (int i = 1; i < N; i++) id[hx_lex(nd, i, j, k)] = gbase + (i - 1) + N1 * ((j - 1) + N1 * (k - 1));
}

int hx_curve_block(const hx_curve_ctx *cc, hx_lid e0, hx_lid count, double *xblock, hx_gid *idblock) {
  HX_CHECK(e0 >= 0 && count >= 0 && e0 + count <= cc->m->num_elem, HX_ERR_INPUT,
           "curving: block [%lld, %lld) is outside the mesh's %lld elements", (long long)e0, (long long)e0 + count,
           (long long)cc->m->num_elem);
  size_t npe = (size_t)cc->nd * cc->nd * cc->nd;
#pragma omp parallel for schedule(dynamic, 64)
  for (hx_lid b = 0; b < count; b++)
    curve_elem(cc, e0 + b, xblock + (size_t)b * 3 * npe, idblock ? idblock + (size_t)b * npe : NULL);
  return HX_OK;
}

/* ---- validity: say which elements fail and why ------------------------------ */

static double elem_min_detj(int nd, const double *D, const double *X, int *worst) {
  int npe = nd * nd * nd;
  double mn = INFINITY;
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        double J[3][3];
        for (int c = 0; c < 3; c++) {
          const double *x = X + c * npe;
          double d0 = 0, d1 = 0, d2 = 0;
          for (int a = 0; a < nd; a++) {
            d0 += D[i * nd + a] * x[hx_lex(nd, a, j, k)];
            d1 += D[j * nd + a] * x[hx_lex(nd, i, a, k)];
            d2 += D[k * nd + a] * x[hx_lex(nd, i, j, a)];
          }
          J[c][0] = d0, J[c][1] = d1, J[c][2] = d2;
        }
        double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                     J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
        if (det < mn) {
          mn = det;
          if (worst) *worst = hx_lex(nd, i, j, k);
        }
      }
  return mn;
}

int hx_curve_check_block(const hx_curve_ctx *cc, hx_lid e0, hx_lid count, const double *xblock, hx_gid *num_bad) {
  const hx_mesh *m = cc->m;
  int nd = cc->nd, npe = nd * nd * nd;
  double D[HX_MAX_ND * HX_MAX_ND], Dm[HX_MAX_ND * HX_MAX_ND];
  HX_CALL(hx_mesh_gll_derivative(nd, D));
  HX_CALL(hx_mesh_gll_derivative(m->nd, Dm));
  hx_gid bad = 0;
  hx_lid first = -1;
  int first_node = 0;
  double first_det = 0;
#pragma omp parallel for reduction(+ : bad) schedule(dynamic, 64)
  for (hx_lid b = 0; b < count; b++) {
    int node = 0;
    double mn = elem_min_detj(nd, D, xblock + (size_t)b * 3 * npe, &node);
    if (!(mn > 0)) {
      bad++;
#pragma omp critical(hx_curve_first_bad)
      if (first < 0 || b < first) {
        first = b;
        first_node = node;
        first_det = mn;
      }
    }
  }
  if (num_bad) *num_bad = bad;
  if (!bad) return HX_OK;
  /* why: was the order-M element already inverted, or did curving move its
     boundary by a large part of its size (linear mesh too coarse for the surface)? */
  hx_lid e = e0 + first;
  const double *X = xblock + (size_t)first * 3 * npe;
  double in_det = elem_min_detj(m->nd, Dm, m->x + (size_t)e * 3 * m->nd * m->nd * m->nd, NULL);
  double hmin = INFINITY, move = 0;
  int nm = m->nd;
  for (int le = 0; le < 12; le++) {
    int c0, c1;
    edge_corners(le, &c0, &c1);
    double l2 = 0;
    for (int c = 0; c < 3; c++) {
      const double *x = hx_mesh_elem_x(m, e, c);
      double dd = x[hx_corner_lex(nm, c1)] - x[hx_corner_lex(nm, c0)];
      l2 += dd * dd;
    }
    hmin = fmin(hmin, sqrt(l2));
  }
  /* displacement of the curved element from its order-M geometry, over all nodes */
  for (int a = 0; a < npe; a++) {
    int i = a % nd, j = (a / nd) % nd, k = a / (nd * nd);
    double p0[3];
    for (int c = 0; c < 3; c++) {
      /* evaluate the order-M element at the order-N node by tensor interpolation */
      const double *x = hx_mesh_elem_x(m, e, c);
      double s = 0;
      for (int kk = 0; kk < nm; kk++)
        for (int jj = 0; jj < nm; jj++)
          for (int ii = 0; ii < nm; ii++)
            s += cc->B[i * nm + ii] * cc->B[j * nm + jj] * cc->B[k * nm + kk] * x[hx_lex(nm, ii, jj, kk)];
      p0[c] = s;
    }
    double d2 = 0;
    for (int c = 0; c < 3; c++) d2 += (X[c * npe + a] - p0[c]) * (X[c * npe + a] - p0[c]);
    move = fmax(move, sqrt(d2));
  }
  int fi = first_node % nd, fj = (first_node / nd) % nd, fk = first_node / (nd * nd);
  if (!(in_det > 0))
    return HX_ERROR(HX_ERR_INVALID_MESH,
                    "curving: %lld element(s) have det J <= 0; element %lld (det J %.3e at GLL node %d,%d,%d) "
                    "is already inverted at order %d (min det J %.3e there)",
                    (long long)bad, (long long)(m->elem_offset + e), first_det, fi, fj, fk, m->order, in_det);
  return HX_ERROR(HX_ERR_INVALID_MESH,
                  "curving: %lld element(s) have det J <= 0 at order %d; element %lld (det J %.3e at GLL node "
                  "%d,%d,%d) is valid at order %d but curving moved its boundary by %.3g, %.0f%% of its shortest "
                  "edge %.3g: the linear mesh is too coarse for the surface curvature there",
                  (long long)bad, cc->N, (long long)(m->elem_offset + e), first_det, fi, fj, fk, m->order, move,
                  100.0 * move / hmin, hmin);
}

int hx_mesh_raise_order(const hx_mesh *m, int order, hx_mesh **out) {
  hx_curve_ctx *cc;
  HX_CALL(hx_curve_create(m, order, &cc));
  hx_mesh *h = NULL;
  int rc = hx_mesh_create(m->comm, order, m->num_elem, &h);
  hx_progress prog;
  hx_progress_start(&prog, "curving", m->num_elem);
  size_t npe = (size_t)hx_mesh_nodes_per_elem(h);
  for (hx_lid e0 = 0; e0 < m->num_elem && rc == HX_OK; e0 += 16384) {
    hx_lid cnt = m->num_elem - e0 < 16384 ? m->num_elem - e0 : 16384;
    rc = hx_curve_block(cc, e0, cnt, h->x + (size_t)e0 * 3 * npe, h->node_id + (size_t)e0 * npe);
    hx_progress_update(&prog, e0 + cnt);
  }
  hx_progress_finish(&prog);
  if (rc == HX_OK) rc = hx_curve_check_block(cc, 0, m->num_elem, h->x, NULL);
  if (rc == HX_OK) {
    memcpy(h->vert_id, m->vert_id, (size_t)m->num_elem * 8 * sizeof(hx_gid));
    memcpy(h->elem_attr, m->elem_attr, (size_t)m->num_elem * sizeof(int32_t));
  }
  for (hx_lid f = 0; f < m->num_faces && rc == HX_OK; f++)
    rc = hx_mesh_add_face(h, m->faces[f].elem, m->faces[f].face, m->faces[f].bid, m->faces[f].surf);
  for (int b = 1; b < m->num_bnames && rc == HX_OK; b++)
    if (m->bnames[b]) rc = hx_mesh_set_bname(h, b, m->bnames[b]);
  for (int i = 0; i < m->num_surfaces && rc == HX_OK; i++) rc = hx_mesh_add_surface(h, &m->surfaces[i], NULL);
  hx_curve_destroy(&cc);
  if (rc != HX_OK) {
    hx_mesh_destroy(&h);
    return rc;
  }
  *out = h;
  return HX_OK;
}
