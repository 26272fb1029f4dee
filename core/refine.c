/* Uniform refinement of a curved hex mesh: every element split into 8, exactly on its geometry
   (MFEM's UniformRefinement on a mesh with nodes, mesh-optimizer's -rs).

   design:
   1. child (a, b, c) in {0,1}^3 of an element covers the parent's reference box
      [a/2, (a+1)/2] x ...; its GLL node q per direction lies at parent parameter (a + g_q) / 2,
      so the child's coordinates are the parent's GLL interpolant there: a tensor product of the
      two 1D matrices B_a[q][j] = l_j((a + g_q) / 2), exact (the same polynomial, restricted);
   2. node ids: a child node sits at the fine index I = a N + q in 0..2N per direction (GLL points
      are symmetric, so reversing a direction maps I to 2N - I). On the parent's boundary its
      identity is the parent entity it lies on (a corner: the parent's node id; an edge: its two
      corner ids and the index from the smaller; a face: its four corner ids and the index pair
      in the face's canonical frame, origin at the smallest corner id, first axis towards its
      smaller neighbour), so neighbours agree; inside the parent it is the parent's own. Keys are
      numbered by sorting; shared nodes get the first copy's coordinates (bitwise equal);
   3. boundary faces: each parent face gives the 4 child faces on it, same id; same surface for
      planes, none for spheres and cylinders (the children's nodes are on the parent's
      polynomial, which only approximates those); attributes, surfaces and names are copied. Serial or replicated meshes (the node
   ids are the rank's own). */
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_curve.h"
#include "hx_error.h"
#include "hx_memory.h"

typedef struct rkey {
  int64_t k[5]; /* kind, then the entity and position (see key_of) */
  int64_t o;    /* occurrence: child node index in the refined E-vector */
} rkey;

static int cmp_rkey(const void *a, const void *b) {
  const rkey *x = a, *y = b;
  for (int d = 0; d < 5; d++)
    if (x->k[d] != y->k[d]) return x->k[d] < y->k[d] ? -1 : 1;
  return x->o < y->o ? -1 : x->o > y->o;
}

/* the key of fine node (I, J, K) (0..2N) of parent e, whose corner node ids are cid[8] (c = i + 2j + 4k) */
static void key_of(int64_t e, const hx_gid *cid, int N, int I, int J, int K, int64_t k[5]) {
  int X[3] = {I, J, K}, M = 2 * N, nb = 0;
  for (int d = 0; d < 3; d++) nb += X[d] == 0 || X[d] == M;
  memset(k, 0, 5 * sizeof *k);
  if (nb == 3) {
    k[0] = 0, k[1] = cid[(I == M) + 2 * (J == M) + 4 * (K == M)];
  } else if (nb == 2) {
    int d = X[0] != 0 && X[0] != M ? 0 : X[1] != 0 && X[1] != M ? 1 : 2, c0 = 0;
    for (int a = 0; a < 3; a++)
      if (a != d && X[a] == M) c0 |= 1 << a;
    hx_gid A = cid[c0], B = cid[c0 | (1 << d)];
    k[0] = 1, k[1] = A < B ? A : B, k[2] = A < B ? B : A, k[3] = A < B ? X[d] : M - X[d];
  } else if (nb == 1) {
    int f = X[0] == 0 || X[0] == M ? 0 : X[1] == 0 || X[1] == M ? 1 : 2;
    int u = f == 0 ? 1 : 0, v = f == 2 ? 1 : 2, side = X[f] == M ? 1 << f : 0;
    /* the face's corners in its (u, v) frame: q[iu + 2 iv] */
    hx_gid q[4];
    for (int iv = 0; iv < 2; iv++)
      for (int iu = 0; iu < 2; iu++) q[iu + 2 * iv] = cid[side | (iu << u) | (iv << v)];
    int o = 0;
    for (int r = 1; r < 4; r++)
      if (q[r] < q[o]) o = r;
    /* the two neighbours of corner o differ from it in one of u (bit 0) or v (bit 1) */
    int nu = o ^ 1, nv = o ^ 2, first = q[nu] < q[nv] ? nu : nv, second = first == nu ? nv : nu;
    int U = X[u], V = X[v];
    /* position along the axis o -> first and o -> second, counted from o */
    int along1 = (first ^ o) == 1 ? ((o & 1) ? M - U : U) : ((o & 2) ? M - V : V);
    int along2 = (second ^ o) == 1 ? ((o & 1) ? M - U : U) : ((o & 2) ? M - V : V);
    hx_gid s[4] = {q[0], q[1], q[2], q[3]};
    for (int a = 1; a < 4; a++)
      for (int b = a; b > 0 && s[b - 1] > s[b]; b--) {
        hx_gid t = s[b];
        s[b] = s[b - 1];
        s[b - 1] = t;
      }
    /* the three smallest corner ids name the face in a conforming mesh (as MFEM's STable3D) */
    k[0] = 2, k[1] = s[0], k[2] = s[1], k[3] = s[2], k[4] = (int64_t)along1 * (M + 1) + along2;
  } else {
    k[0] = 3, k[1] = e, k[2] = I, k[3] = J, k[4] = K;
  }
}

int hx_mesh_refine(const hx_mesh *m, hx_mesh **out) {
  *out = NULL;
  int N = m->order, nd = m->nd, npe = nd * nd * nd;
  HX_CHECK(m->num_elem <= INT32_MAX / 8, HX_ERR_INPUT, "refining %lld elements exceeds the 32-bit local element index",
           (long long)m->num_elem);
  double g[HX_MAX_ND], w[HX_MAX_ND], B[2][HX_MAX_ND * HX_MAX_ND];
  HX_CALL(hx_gll(nd, g, w));
  for (int a = 0; a < 2; a++) {
    double t[HX_MAX_ND];
    for (int q = 0; q < nd; q++) t[q] = 0.5 * (a + g[q]);
    hx_lagrange_matrices(nd, g, nd, t, B[a], NULL);
    /* the child's end points are parent GLL nodes (0, 1/2 only when N is even, 1): exact rows there */
    for (int j = 0; j < nd; j++) {
      if (a == 0) B[a][j] = j == 0;
      else B[a][(nd - 1) * nd + j] = j == nd - 1;
    }
  }
  hx_mesh *r = NULL;
  HX_CALL(hx_mesh_create(m->comm, N, m->num_elem * 8, &r));
  size_t nn = (size_t)r->num_elem * (size_t)npe;
  rkey *keys = NULL;
  int rc = hx_malloc((nn + 1) * sizeof *keys, &keys);
  for (hx_lid e = 0; rc == HX_OK && e < m->num_elem; e++) {
    hx_gid cid[8];
    for (int c = 0; c < 8; c++) cid[c] = m->node_id[(size_t)e * npe + hx_corner_lex(nd, c)];
    for (int ch = 0; ch < 8; ch++) {
      int a = ch & 1, b = (ch >> 1) & 1, c = (ch >> 2) & 1;
      hx_lid ce = e * 8 + ch;
      for (int d = 0; d < 3; d++) {
        const double *xp = hx_mesh_elem_x(m, e, d);
        double *xc = hx_mesh_elem_x(r, ce, d), t1[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND], t2[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
        /* along i with B[a], along j with B[b], along k with B[c] */
        for (int k = 0; k < nd; k++)
          for (int j = 0; j < nd; j++)
            for (int q = 0; q < nd; q++) {
              double s = 0;
              for (int p = 0; p < nd; p++) s += B[a][q * nd + p] * xp[p + nd * (j + nd * k)];
              t1[q + nd * (j + nd * k)] = s;
            }
        for (int k = 0; k < nd; k++)
          for (int q = 0; q < nd; q++)
            for (int i = 0; i < nd; i++) {
              double s = 0;
              for (int p = 0; p < nd; p++) s += B[b][q * nd + p] * t1[i + nd * (p + nd * k)];
              t2[i + nd * (q + nd * k)] = s;
            }
        for (int q = 0; q < nd; q++)
          for (int j = 0; j < nd; j++)
            for (int i = 0; i < nd; i++) {
              double s = 0;
              for (int p = 0; p < nd; p++) s += B[c][q * nd + p] * t2[i + nd * (j + nd * p)];
              xc[i + nd * (j + nd * q)] = s;
            }
      }
      for (int k = 0; k < nd; k++)
        for (int j = 0; j < nd; j++)
          for (int i = 0; i < nd; i++) {
            size_t o = (size_t)ce * npe + (size_t)hx_lex(nd, i, j, k);
            key_of(e, cid, N, a * N + i, b * N + j, c * N + k, keys[o].k);
            keys[o].o = (int64_t)o;
          }
      r->elem_attr[ce] = m->elem_attr[e];
    }
  }
  if (rc == HX_OK) {
    /* number the keys; every copy takes the coordinates of the first */
    qsort(keys, nn, sizeof *keys, cmp_rkey);
    int64_t next = 0;
    for (size_t a = 0; a < nn;) {
      size_t b = a;
      while (b < nn && !memcmp(keys[b].k, keys[a].k, sizeof keys[a].k)) b++;
      int64_t o0 = keys[a].o; /* the smallest occurrence (sorted by o within equal keys) */
      for (size_t t = a; t < b; t++) {
        int64_t o = keys[t].o;
        r->node_id[o] = next;
        for (int d = 0; d < 3; d++)
          hx_mesh_elem_x(r, (hx_lid)(o / npe), d)[o % npe] = hx_mesh_elem_x(r, (hx_lid)(o0 / npe), d)[o0 % npe];
      }
      next++;
      a = b;
    }
    for (hx_lid e = 0; e < r->num_elem; e++)
      for (int c = 0; c < 8; c++) r->vert_id[(size_t)e * 8 + c] = r->node_id[(size_t)e * npe + hx_corner_lex(nd, c)];
  }
  for (int s = 0; rc == HX_OK && s < m->num_surfaces; s++) rc = hx_mesh_add_surface(r, &m->surfaces[s], NULL);
  for (int b = 1; rc == HX_OK && b < m->num_bnames; b++)
    if (m->bnames[b]) rc = hx_mesh_set_bname(r, b, m->bnames[b]);
  for (hx_lid f = 0; rc == HX_OK && f < m->num_faces; f++) {
    const hx_bface *bf = &m->faces[f];
    int d = bf->face / 2, side = bf->face % 2;
    /* a plane face stays on its plane; the children of a face on a sphere or cylinder lie on the
       parent's polynomial, not on the surface: they keep their id, not the surface */
    int surf = bf->surf >= 0 && m->surfaces[bf->surf].type == HX_SURF_PLANE ? bf->surf : -1;
    for (int ch = 0; ch < 8 && rc == HX_OK; ch++)
      if (((ch >> d) & 1) == side) rc = hx_mesh_add_face(r, bf->elem * 8 + ch, bf->face, bf->bid, surf);
  }
  hx_free(&keys);
  if (rc) {
    hx_mesh_destroy(&r);
    return rc;
  }
  *out = r;
  return HX_OK;
}
