/* Planar slices through curved hexahedra (hx_slice.h): the plane's cut of each element's six
   curved faces by marching squares on a fine sample grid, joined into closed loops. */
#include "hx_slice.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_error.h"
#include "hx_memory.h"

#define SLICE_MAX_S 48

/* Scratch for one element: the face samples, the cut points named by lattice edge, and the
   two neighbours of every cut point. */
typedef struct cutter {
  int nd, S, axis;
  double at;
  double Bs[(SLICE_MAX_S + 1) * HX_MAX_ND]; /* [S + 1][nd]: l_a(s / S) */
  double *P;                                /* [3][S + 1][S + 1]: one face's samples */
  int32_t *key_pt;                          /* [3 (S + 1)^3]: lattice edge -> cut point, or -1 */
  int64_t *keys;                            /* [max_pt] the keys set, to reset them */
  double *pu, *pv;                          /* [max_pt] the cut points in the plane */
  int32_t (*nb)[2];                         /* [max_pt] neighbours */
  int8_t *deg;                              /* [max_pt] */
  int32_t num_pt, max_pt;
  int bad; /* a point met a third segment: the element's curves are left out */
} cutter;

static void cutter_free(cutter *c) {
  hx_free(&c->P);
  hx_free(&c->key_pt);
  hx_free(&c->keys);
  hx_free(&c->pu);
  hx_free(&c->pv);
  hx_free(&c->nb);
  hx_free(&c->deg);
}

static int cutter_init(cutter *c, int nd, int S, int axis, double at) {
  memset(c, 0, sizeof *c);
  c->nd = nd;
  c->S = S;
  c->axis = axis;
  c->at = at;
  double gll[HX_MAX_ND], w[HX_MAX_ND], t[SLICE_MAX_S + 1];
  HX_CALL(hx_gll(nd, gll, w));
  for (int s = 0; s <= S; s++) t[s] = (double)s / S;
  hx_lagrange_matrices(nd, gll, S + 1, t, c->Bs, NULL);
  size_t n1 = (size_t)S + 1, lattice_edges = 3 * n1 * n1 * n1;
  /* every face has 2 S (S + 1) grid edges, each with at most one cut point */
  c->max_pt = (int32_t)(6 * 2 * (size_t)S * n1);
  int rc = hx_malloc(3 * n1 * n1 * sizeof *c->P, &c->P);
  if (rc == HX_OK) rc = hx_malloc(lattice_edges * sizeof *c->key_pt, &c->key_pt);
  if (rc == HX_OK) rc = hx_malloc((size_t)c->max_pt * sizeof *c->keys, &c->keys);
  if (rc == HX_OK) rc = hx_malloc((size_t)c->max_pt * sizeof *c->pu, &c->pu);
  if (rc == HX_OK) rc = hx_malloc((size_t)c->max_pt * sizeof *c->pv, &c->pv);
  if (rc == HX_OK) rc = hx_malloc((size_t)c->max_pt * sizeof *c->nb, &c->nb);
  if (rc == HX_OK) rc = hx_malloc((size_t)c->max_pt * sizeof *c->deg, &c->deg);
  if (rc != HX_OK) {
    cutter_free(c);
    return rc;
  }
  for (size_t k = 0; k < lattice_edges; k++) c->key_pt[k] = -1;
  return HX_OK;
}

/* The cut point on the lattice edge from sample p to its neighbour q of the current face
   (indices into the face grid) with lower lattice point L and direction dir. */
static int32_t cut_point(cutter *c, const int L[3], int dir, int p, int q) {
  int n1 = c->S + 1;
  int64_t key = (((int64_t)L[2] * n1 + L[1]) * n1 + L[0]) * 3 + dir;
  if (c->key_pt[key] >= 0) return c->key_pt[key];
  size_t ns = (size_t)n1 * n1;
  const double *X = c->P;
  double fp = X[c->axis * ns + p] - c->at, fq = X[c->axis * ns + q] - c->at;
  double t = fp / (fp - fq); /* the signs differ: fp - fq != 0 */
  int u = c->axis == 0 ? 1 : 0, v = c->axis == 2 ? 1 : 2;
  int32_t k = c->num_pt++;
  c->pu[k] = X[u * ns + p] + t * (X[u * ns + q] - X[u * ns + p]);
  c->pv[k] = X[v * ns + p] + t * (X[v * ns + q] - X[v * ns + p]);
  c->deg[k] = 0;
  c->keys[k] = key;
  c->key_pt[key] = k;
  return k;
}

static void segment(cutter *c, int32_t a, int32_t b) {
  if (c->deg[a] >= 2 || c->deg[b] >= 2) {
    c->bad = 1;
    return;
  }
  c->nb[a][c->deg[a]++] = b;
  c->nb[b][c->deg[b]++] = a;
}

/* Sample face f of the element xe ([3][nd^3]) and add its cut segments. */
static void cut_face(cutter *c, const double *xe, int f) {
  int nd = c->nd, S = c->S, n1 = S + 1, d = f >> 1, side = f & 1;
  int d1 = d == 0 ? 1 : 0, d2 = d == 2 ? 1 : 2;
  size_t npe = (size_t)nd * nd * nd, ns = (size_t)n1 * n1;
  double F[HX_MAX_ND * HX_MAX_ND], T[HX_MAX_ND * (SLICE_MAX_S + 1)];
  for (int comp = 0; comp < 3; comp++) {
    /* the face's nodes F[b][a], a along d1, b along d2 */
    for (int b = 0; b < nd; b++)
      for (int a = 0; a < nd; a++) {
        int I[3];
        I[d] = side ? nd - 1 : 0;
        I[d1] = a;
        I[d2] = b;
        F[b * nd + a] = xe[comp * npe + (size_t)hx_lex(nd, I[0], I[1], I[2])];
      }
    /* T[b][sa] = sum_a Bs[sa][a] F[b][a]; P[sb][sa] = sum_b Bs[sb][b] T[b][sa] */
    for (int b = 0; b < nd; b++)
      for (int sa = 0; sa < n1; sa++) {
        double acc = 0;
        for (int a = 0; a < nd; a++) acc += c->Bs[sa * nd + a] * F[b * nd + a];
        T[b * n1 + sa] = acc;
      }
    double *P = c->P + comp * ns;
    for (int sb = 0; sb < n1; sb++)
      for (int sa = 0; sa < n1; sa++) {
        double acc = 0;
        for (int b = 0; b < nd; b++) acc += c->Bs[sb * nd + b] * T[b * n1 + sa];
        P[sb * n1 + sa] = acc;
      }
  }
  const double *phi = c->P + c->axis * ns;
  for (int b = 0; b < S; b++)
    for (int a = 0; a < S; a++) {
      /* corners 0 (a,b), 1 (a+1,b), 2 (a+1,b+1), 3 (a,b+1); a sample on the plane counts as above it */
      int g[4] = {b * n1 + a, b * n1 + a + 1, (b + 1) * n1 + a + 1, (b + 1) * n1 + a};
      int in[4], cs = 0;
      for (int k = 0; k < 4; k++) cs |= (in[k] = phi[g[k]] - c->at >= 0) << k;
      if (cs == 0 || cs == 15) continue;
      /* edges: 0 (corner 0-1, along d1 from (a,b)), 1 (1-2, along d2 from (a+1,b)),
         2 (3-2, along d1 from (a,b+1)), 3 (0-3, along d2 from (a,b)) */
      int32_t pt[4] = {-1, -1, -1, -1};
      static const int ea[4] = {0, 1, 3, 0}, eb[4] = {1, 2, 2, 3}, ed[4] = {0, 1, 0, 1}, oa[4] = {0, 1, 0, 0},
                       ob[4] = {0, 0, 1, 0};
      for (int k = 0; k < 4; k++) {
        if (in[ea[k]] == in[eb[k]]) continue;
        int L[3];
        L[d] = side ? S : 0;
        L[d1] = a + oa[k];
        L[d2] = b + ob[k];
        pt[k] = cut_point(c, L, ed[k] ? d2 : d1, g[ea[k]], g[eb[k]]);
      }
      if (cs == 5 || cs == 10) { /* a saddle: the centre's side decides which corners the cuts part */
        double centre = 0.25 * (phi[g[0]] + phi[g[1]] + phi[g[2]] + phi[g[3]]) - c->at;
        if ((centre >= 0) == in[0]) {
          segment(c, pt[0], pt[1]); /* around corner 1 */
          segment(c, pt[2], pt[3]); /* around corner 3 */
        } else {
          segment(c, pt[3], pt[0]);
          segment(c, pt[1], pt[2]);
        }
      } else {
        int32_t e[2], n = 0;
        for (int k = 0; k < 4; k++)
          if (pt[k] >= 0) e[n++] = pt[k];
        segment(c, e[0], e[1]);
      }
    }
}

typedef struct grow {
  int64_t cap_cut, cap_loop, cap_pt;
} grow;

static int reserve(hx_slice *s, grow *g, int64_t cut, int64_t loop, int64_t pt) {
  if (s->num_cut + cut > g->cap_cut) {
    int64_t n = 2 * (s->num_cut + cut) + 64;
    HX_CALL(hx_realloc((size_t)n * sizeof *s->elem, &s->elem));
    HX_CALL(hx_realloc((size_t)n * sizeof *s->value, &s->value));
    HX_CALL(hx_realloc((size_t)(n + 1) * sizeof *s->elem_loop, &s->elem_loop));
    g->cap_cut = n;
  }
  if (s->num_loop + loop > g->cap_loop) {
    int64_t n = 2 * (s->num_loop + loop) + 64;
    HX_CALL(hx_realloc((size_t)(n + 1) * sizeof *s->loop_pt, &s->loop_pt));
    g->cap_loop = n;
  }
  if (s->num_pt + pt > g->cap_pt) {
    int64_t n = 2 * (s->num_pt + pt) + 256;
    HX_CALL(hx_realloc((size_t)n * 2 * sizeof *s->pt, &s->pt));
    g->cap_pt = n;
  }
  return HX_OK;
}

/* Cut one element; its loops go to s. */
static int cut_element(cutter *c, const double *xe, hx_gid elem, double value, hx_slice *s, grow *g) {
  c->num_pt = 0;
  c->bad = 0;
  for (int f = 0; f < 6; f++) cut_face(c, xe, f);
  int rc = HX_OK;
  if (c->num_pt > 0 && !c->bad) {
    for (int32_t k = 0; k < c->num_pt; k++)
      if (c->deg[k] != 2) c->bad = 1;
  }
  if (c->num_pt > 0 && !c->bad) {
    rc = reserve(s, g, 1, c->num_pt / 3 + 1, c->num_pt);
    if (rc == HX_OK) {
      s->elem[s->num_cut] = elem;
      s->value[s->num_cut] = value;
      s->elem_loop[s->num_cut] = s->num_loop;
      /* follow the neighbours; deg doubles as "visited" (set to 3) */
      for (int32_t start = 0; start < c->num_pt; start++) {
        if (c->deg[start] == 3) continue;
        int64_t first = s->num_pt;
        int32_t prev = -1, cur = start;
        do {
          s->pt[2 * s->num_pt] = c->pu[cur];
          s->pt[2 * s->num_pt + 1] = c->pv[cur];
          s->num_pt++;
          c->deg[cur] = 3;
          int32_t next = (c->nb[cur][0] == prev && prev >= 0) ? c->nb[cur][1] : c->nb[cur][0];
          prev = cur;
          cur = next;
        } while (cur != start && c->deg[cur] != 3);
        if (s->num_pt - first >= 3) s->loop_pt[s->num_loop++] = first;
        else s->num_pt = first;
      }
      if (s->num_loop > s->elem_loop[s->num_cut]) s->num_cut++;
    }
  }
  for (int32_t k = 0; k < c->num_pt; k++) c->key_pt[c->keys[k]] = -1;
  return rc;
}

int hx_mesh_bbox_global(const hx_mesh *m, double lo[3], double hi[3]) {
  hx_mesh_bbox(m, lo, hi);
  HX_CALL(hx_comm_min_double(m->comm, lo, 3));
  HX_CALL(hx_comm_max_double(m->comm, hi, 3));
  return HX_OK;
}

void hx_slice_free(hx_slice *s) {
  hx_free(&s->elem);
  hx_free(&s->value);
  hx_free(&s->elem_loop);
  hx_free(&s->loop_pt);
  hx_free(&s->pt);
  s->num_cut = s->num_loop = s->num_pt = 0;
}

/* Ranks > 0 send their curves to rank 0, which appends them in rank order. */
static int gather_root(const hx_mesh *m, hx_slice *s, grow *g) {
  int rank = hx_comm_rank(m->comm), size = hx_comm_size(m->comm);
  enum { TAG = 7301 };
  if (size == 1) return HX_OK;
  if (rank > 0) {
    int64_t n[3] = {s->num_cut, s->num_loop, s->num_pt};
    HX_CALL(hx_comm_send(m->comm, n, sizeof n, 0, TAG));
    if (n[0] > 0) {
      HX_CALL(hx_comm_send(m->comm, s->elem, (size_t)n[0] * sizeof *s->elem, 0, TAG));
      HX_CALL(hx_comm_send(m->comm, s->value, (size_t)n[0] * sizeof *s->value, 0, TAG));
      HX_CALL(hx_comm_send(m->comm, s->elem_loop, (size_t)n[0] * sizeof *s->elem_loop, 0, TAG));
      HX_CALL(hx_comm_send(m->comm, s->loop_pt, (size_t)n[1] * sizeof *s->loop_pt, 0, TAG));
      HX_CALL(hx_comm_send(m->comm, s->pt, (size_t)n[2] * 2 * sizeof *s->pt, 0, TAG));
    }
    hx_slice_free(s);
    return HX_OK;
  }
  for (int r = 1; r < size; r++) {
    int64_t n[3];
    HX_CALL(hx_comm_recv(m->comm, n, sizeof n, r, TAG));
    if (n[0] <= 0) continue;
    HX_CALL(reserve(s, g, n[0], n[1], n[2]));
    int64_t c0 = s->num_cut, l0 = s->num_loop, p0 = s->num_pt;
    HX_CALL(hx_comm_recv(m->comm, s->elem + c0, (size_t)n[0] * sizeof *s->elem, r, TAG));
    HX_CALL(hx_comm_recv(m->comm, s->value + c0, (size_t)n[0] * sizeof *s->value, r, TAG));
    HX_CALL(hx_comm_recv(m->comm, s->elem_loop + c0, (size_t)n[0] * sizeof *s->elem_loop, r, TAG));
    HX_CALL(hx_comm_recv(m->comm, s->loop_pt + l0, (size_t)n[1] * sizeof *s->loop_pt, r, TAG));
    HX_CALL(hx_comm_recv(m->comm, s->pt + 2 * p0, (size_t)n[2] * 2 * sizeof *s->pt, r, TAG));
    for (int64_t k = 0; k < n[0]; k++) s->elem_loop[c0 + k] += l0;
    for (int64_t k = 0; k < n[1]; k++) s->loop_pt[l0 + k] += p0;
    s->num_cut += n[0];
    s->num_loop += n[1];
    s->num_pt += n[2];
  }
  return HX_OK;
}

int hx_slice_mesh(const hx_mesh *m, int axis, double at, const double *value, int samples, hx_slice *s) {
  memset(s, 0, sizeof *s);
  HX_CHECK(axis >= 0 && axis <= 2, HX_ERR_INPUT, "slice: axis %d is not 0 (x), 1 (y) or 2 (z)", axis);
  HX_CHECK(isfinite(at), HX_ERR_INPUT, "slice: the plane's position %g is not finite", at);
  s->axis = axis;
  s->at = at;
  HX_CALL(hx_mesh_bbox_global(m, s->lo, s->hi));
  const hx_mesh_lazy *lz = m->lazy;
  int order = lz ? lz->order : m->order, nd = order + 1;
  int S = samples > 0 ? samples : 4 * order;
  S = S < 8 ? 8 : (S > SLICE_MAX_S ? SLICE_MAX_S : S);
  cutter c;
  grow g = {0, 0, 0};
  size_t npe_held = (size_t)hx_mesh_nodes_per_elem(m), stride = (size_t)3 * nd * nd * nd;
  double *xb = NULL; /* [block][3][nd^3] the lazy geometry of a block */
  enum { BLOCK = 256 };
  int rc = cutter_init(&c, nd, S, axis, at);
  if (rc == HX_OK && lz) rc = hx_malloc(BLOCK * stride * sizeof *xb, &xb);
  if (rc == HX_OK) rc = reserve(s, &g, 1, 1, 1);
  /* the lazy geometry bulges further from the corners it is held by than order-N nodes */
  double pad_frac = lz && m->order == 1 ? 0.25 : 0.1;
  for (hx_lid e0 = 0; e0 < m->num_elem && rc == HX_OK; e0 += BLOCK) {
    hx_lid e1 = e0 + BLOCK < m->num_elem ? e0 + BLOCK : m->num_elem;
    unsigned char cand[BLOCK];
    hx_lid first = -1, last = -1;
    for (hx_lid e = e0; e < e1; e++) {
      double lo[3], hi[3];
      for (int d = 0; d < 3; d++) {
        const double *x = hx_mesh_elem_x(m, e, d);
        lo[d] = hi[d] = x[0];
        for (size_t p = 1; p < npe_held; p++) lo[d] = fmin(lo[d], x[p]), hi[d] = fmax(hi[d], x[p]);
      }
      double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])), pad = pad_frac * ext;
      cand[e - e0] = at >= lo[axis] - pad && at <= hi[axis] + pad;
      if (cand[e - e0]) {
        if (first < 0) first = e;
        last = e;
      }
    }
    if (first < 0) continue;
    if (lz) rc = lz->block(lz->ctx, m, first, last - first + 1, xb, NULL);
    for (hx_lid e = first; e <= last && rc == HX_OK; e++) {
      if (!cand[e - e0]) continue;
      const double *xe = lz ? xb + (size_t)(e - first) * stride : m->x + (size_t)e * stride;
      rc = cut_element(&c, xe, m->elem_offset + e, value ? value[e] : 0, s, &g);
    }
  }
  cutter_free(&c);
  hx_free(&xb);
  rc = hx_comm_agree(m->comm, rc);
  if (rc == HX_OK) rc = gather_root(m, s, &g);
  if (rc == HX_OK && s->elem_loop) s->elem_loop[s->num_cut] = s->num_loop;
  if (rc == HX_OK && s->loop_pt) s->loop_pt[s->num_loop] = s->num_pt;
  if (rc != HX_OK) hx_slice_free(s);
  return rc;
}

int hx_slice_parse(const char *flag, const char *spec, int *axis, double *at, int *mid) {
  HX_CHECK(spec && (spec[0] == 'x' || spec[0] == 'y' || spec[0] == 'z') && (spec[1] == 0 || spec[1] == '='), HX_ERR_INPUT,
           "flag %s expects AXIS=VALUE with AXIS x, y or z (e.g. z=0.3, or z for the middle), got '%s'", flag, spec ? spec : "");
  *axis = spec[0] - 'x';
  *mid = 0;
  *at = 0;
  if (spec[1] == 0 || !strcmp(spec + 2, "mid")) {
    *mid = 1;
    return HX_OK;
  }
  char *end = NULL;
  double v = strtod(spec + 2, &end);
  HX_CHECK(end != spec + 2 && *end == 0 && isfinite(v), HX_ERR_INPUT,
           "flag %s expects a finite number after '%c=' (e.g. %c=0.3), got '%s'", flag, spec[0], spec[0], spec);
  *at = v;
  return HX_OK;
}
