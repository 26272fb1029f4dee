/* MFEM's global numbering of the H1_3D_P<N> space on a conforming hex mesh (docs/formats.md,
   "MFEM"), shared by the .mesh writer (--mfem-nodes h1) and reader.

   design:
   1. edges: every (element, MFEM edge 0..11) in element order gets the index of its vertex pair
      by first appearance (MFEM's DSTable over GetVertexToVertexTable); the edge's m = N - 1 dofs
      run from its smaller vertex index to its larger one;
   2. faces: every (element, MFEM face 0..5) gets the index of its vertex quadruple by first
      appearance (STable3D::Push4); the face's m^2 dofs are lexicographic in the frame of the
      first element that has it (its local face corners q0, q1, q3: u along q0->q1, v along
      q0->q3), the frame GenerateFaces gives the face element;
   3. dofs: vertices 0..NV-1, then the edges' m each, the faces' m^2 each, then every element's
      m^3 interior dofs, lexicographic;
   4. per element, each lexicographic GLL node (i,j,k) is classified once per order (corner, the
      MFEM edge or face it lies on with its local parameters, interior) and mapped through the
      orientations of step 1 and 2.
   The entities are numbered by sorting (vertex keys, occurrence): O(n log n), no hash table. */
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "io_impl.h"

/* MFEM's reference cube (fem/geom.cpp): corners in standard order, edges, faces (outward) */
static const int STD_POS[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
static const int MFEM_EDGE[12][2] = {{0, 1}, {1, 2}, {3, 2}, {0, 3}, {4, 5}, {5, 6},
                                     {7, 6}, {4, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
static const int MFEM_FACEV[6][4] = {{3, 2, 1, 0}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}, {4, 5, 6, 7}};

typedef struct ekey {
  int64_t k[4]; /* sorted vertex indices (edges: k[2] = k[3] = -1) */
  int64_t o;    /* occurrence: element * (12 or 6) + local entity */
} ekey;

static int cmp_ekey(const void *a, const void *b) {
  const ekey *x = a, *y = b;
  for (int d = 0; d < 4; d++)
    if (x->k[d] != y->k[d]) return x->k[d] < y->k[d] ? -1 : 1;
  return x->o < y->o ? -1 : x->o > y->o;
}

/* keys[0..n) with k filled and o = index: id[o] = entity number by first appearance, lead[o] =
   the first occurrence of the same entity; *count = entities. keys is sorted on return. */
static void number_entities(int64_t n, ekey *keys, int64_t *id, int64_t *lead, int64_t *count) {
  qsort(keys, (size_t)n, sizeof *keys, cmp_ekey);
  for (int64_t a = 0; a < n;) {
    int64_t b = a;
    while (b < n && !memcmp(keys[b].k, keys[a].k, sizeof keys[a].k)) lead[keys[b++].o] = keys[a].o;
    a = b;
  }
  int64_t next = 0;
  for (int64_t o = 0; o < n; o++) id[o] = lead[o] == o ? next++ : id[lead[o]];
  *count = next;
}

static void sort_small(int64_t *v, int n) {
  for (int a = 1; a < n; a++)
    for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
      int64_t t = v[b];
      v[b] = v[b - 1];
      v[b - 1] = t;
    }
}

/* what node lex of an order-N element is: kind 0 corner (ent = standard corner), 1 edge (ent =
   MFEM edge, s = 1..N-1 from its first corner), 2 face (ent = MFEM face, (s, t) in its local
   frame), 3 interior */
typedef struct nodecls {
  int8_t kind, ent;
  int16_t s, t;
} nodecls;

static void classify(int N, nodecls *cls) {
  int nd = N + 1;
  for (int k = 0; k <= N; k++)
    for (int j = 0; j <= N; j++)
      for (int i = 0; i <= N; i++) {
        int X[3] = {i, j, k}, nb = 0;
        for (int d = 0; d < 3; d++) nb += X[d] == 0 || X[d] == N;
        nodecls *c = &cls[hx_lex(nd, i, j, k)];
        memset(c, 0, sizeof *c);
        c->kind = (int8_t)(3 - nb);
        if (nb == 3) {
          for (int s = 0; s < 8; s++)
            if (STD_POS[s][0] * N == i && STD_POS[s][1] * N == j && STD_POS[s][2] * N == k) c->ent = (int8_t)s;
        } else if (nb == 2) {
          for (int e = 0; e < 12; e++) {
            const int *A = STD_POS[MFEM_EDGE[e][0]], *B = STD_POS[MFEM_EDGE[e][1]];
            int on = 1, t = 0;
            for (int d = 0; d < 3; d++) {
              if (A[d] == B[d]) on &= X[d] == A[d] * N;
              else t = (B[d] - A[d]) > 0 ? X[d] : N - X[d];
            }
            if (on) c->ent = (int8_t)e, c->s = (int16_t)t;
          }
        } else if (nb == 1) {
          for (int f = 0; f < 6; f++) {
            const int *Q0 = STD_POS[MFEM_FACEV[f][0]], *Q1 = STD_POS[MFEM_FACEV[f][1]], *Q3 = STD_POS[MFEM_FACEV[f][3]];
            int on = 1, s = 0, t = 0;
            for (int d = 0; d < 3; d++) {
              if (Q0[d] == Q1[d] && Q0[d] == Q3[d]) on &= X[d] == Q0[d] * N;
              s += (X[d] - Q0[d] * N) * (Q1[d] - Q0[d]);
              t += (X[d] - Q0[d] * N) * (Q3[d] - Q0[d]);
            }
            if (on) c->ent = (int8_t)f, c->s = (int16_t)s, c->t = (int16_t)t;
          }
        }
      }
}

int hx_mfem_h1_dofs(const char *path, int64_t ne, const int64_t *ev, int64_t nv, int order, int64_t *dof, int64_t *ndof) {
  int N = order, nd = N + 1, m = N - 1;
  size_t npe = (size_t)nd * nd * nd;
  for (int64_t e = 0; e < ne; e++)
    for (int a = 0; a < 8; a++) {
      HX_CHECK(ev[e * 8 + a] >= 0 && ev[e * 8 + a] < nv, HX_ERR_INPUT, "%s: element %lld uses vertex %lld of %lld", path,
               (long long)e, (long long)ev[e * 8 + a], (long long)nv);
      for (int b = 0; b < a; b++)
        HX_CHECK(ev[e * 8 + a] != ev[e * 8 + b], HX_ERR_INPUT, "%s: element %lld uses vertex %lld twice", path, (long long)e,
                 (long long)ev[e * 8 + a]);
    }
  nodecls *cls = NULL;
  ekey *keys = NULL;
  int64_t *eid = NULL, *elead = NULL, *fid = NULL, *flead = NULL, nedge = 0, nface = 0;
  int rc = hx_malloc(npe * sizeof *cls, &cls);
  if (rc == HX_OK && m > 0) {
    size_t n = (size_t)ne * 12;
    rc = hx_malloc((n + 1) * sizeof *keys, &keys);
    if (rc == HX_OK) rc = hx_malloc((n + 1) * sizeof(int64_t), &eid);
    if (rc == HX_OK) rc = hx_malloc((n + 1) * sizeof(int64_t), &elead);
    if (rc == HX_OK) rc = hx_malloc(((size_t)ne * 6 + 1) * sizeof(int64_t), &fid);
    if (rc == HX_OK) rc = hx_malloc(((size_t)ne * 6 + 1) * sizeof(int64_t), &flead);
    if (rc == HX_OK) {
      for (int64_t e = 0; e < ne; e++)
        for (int j = 0; j < 12; j++) {
          ekey *k = &keys[e * 12 + j];
          k->k[0] = ev[e * 8 + MFEM_EDGE[j][0]], k->k[1] = ev[e * 8 + MFEM_EDGE[j][1]], k->k[2] = k->k[3] = -1;
          sort_small(k->k, 2);
          k->o = e * 12 + j;
        }
      number_entities(ne * 12, keys, eid, elead, &nedge);
      for (int64_t e = 0; e < ne; e++)
        for (int j = 0; j < 6; j++) {
          ekey *k = &keys[e * 6 + j];
          for (int c = 0; c < 4; c++) k->k[c] = ev[e * 8 + MFEM_FACEV[j][c]];
          sort_small(k->k, 4);
          k->o = e * 6 + j;
        }
      number_entities(ne * 6, keys, fid, flead, &nface);
    }
  }
  if (rc) goto done;
  classify(N, cls);
  int64_t ebase = nv, fbase = ebase + nedge * m, ibase = fbase + nface * m * m;
  for (int64_t e = 0; e < ne; e++) {
    /* per face of e: the owner's frame in e's local face coordinates (P0 + u' d1 + v' d3) */
    int P0[6][2], d1[6][2], d3[6][2];
    for (int f = 0; f < 6 && m > 0; f++) {
      int64_t o = flead[e * 6 + f], oe = o / 6, of = (int)(o % 6);
      static const int C[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
      int r[4] = {-1, -1, -1, -1};
      for (int q = 0; q < 4; q++)
        for (int p = 0; p < 4; p++)
          if (ev[oe * 8 + MFEM_FACEV[of][q]] == ev[e * 8 + MFEM_FACEV[f][p]]) r[q] = p;
      if (r[0] < 0 || r[1] < 0 || r[3] < 0) {
        rc = HX_ERROR(HX_ERR_INPUT, "%s: elements %lld and %lld share a face whose vertices do not match", path, (long long)oe,
                      (long long)e);
        goto done;
      }
      for (int d = 0; d < 2; d++) {
        P0[f][d] = C[r[0]][d] * N;
        d1[f][d] = C[r[1]][d] - C[r[0]][d];
        d3[f][d] = C[r[3]][d] - C[r[0]][d];
      }
    }
    int64_t *de = dof + (size_t)e * npe;
    for (size_t p = 0; p < npe; p++) {
      const nodecls *c = &cls[p];
      if (c->kind == 0) de[p] = ev[e * 8 + c->ent];
      else if (c->kind == 1) {
        int a = MFEM_EDGE[c->ent][0], b = MFEM_EDGE[c->ent][1];
        int t = ev[e * 8 + a] < ev[e * 8 + b] ? c->s - 1 : N - 1 - c->s;
        de[p] = ebase + eid[e * 12 + c->ent] * m + t;
      } else if (c->kind == 2) {
        int f = c->ent, s = c->s - P0[f][0], t = c->t - P0[f][1];
        int u = s * d1[f][0] + t * d1[f][1], v = s * d3[f][0] + t * d3[f][1];
        de[p] = fbase + fid[e * 6 + f] * m * m + (u - 1) + m * (v - 1);
      } else {
        int i = (int)(p % (size_t)nd), j = (int)(p / (size_t)nd % (size_t)nd), k = (int)(p / ((size_t)nd * nd));
        de[p] = ibase + e * m * m * m + (i - 1) + m * ((j - 1) + m * (k - 1));
      }
    }
  }
  *ndof = ibase + ne * m * m * m;
done:
  hx_free(&cls);
  hx_free(&keys);
  hx_free(&eid);
  hx_free(&elead);
  hx_free(&fid);
  hx_free(&flead);
  return rc;
}
