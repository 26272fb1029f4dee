/* Small order-1 meshes on analytic surfaces for the curving and quality tests:
   a cubed-sphere shell and a cylinder annulus (optionally capped by a sphere).
   Header-only (static functions) so that each test stays one .c file. Also the watertight
   check of the mesher tests (tm_watertight). */
#pragma once
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_mesh.h"

/* Fill element e from 8 corner points/ids in reference order (c = i + 2j + 4k);
   if the trilinear map is left-handed, mirror xi1 so that det J > 0. Returns 1 if
   mirrored (the caller's faces 4/5 keep their meaning: mirroring xi1 swaps only
   faces 0 and 1). */
static inline int tm_set_elem(hx_mesh *m, hx_lid e, double P[8][3], const hx_gid id[8]) {
  double a[3], b[3], c[3];
  for (int q = 0; q < 3; q++) {
    a[q] = P[1][q] - P[0][q] + P[3][q] - P[2][q] + P[5][q] - P[4][q] + P[7][q] - P[6][q];
    b[q] = P[2][q] - P[0][q] + P[3][q] - P[1][q] + P[6][q] - P[4][q] + P[7][q] - P[5][q];
    c[q] = P[4][q] - P[0][q] + P[5][q] - P[1][q] + P[6][q] - P[2][q] + P[7][q] - P[3][q];
  }
  double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
  int mirror = det < 0;
  for (int k = 0; k < 8; k++) {
    int src = mirror ? (k ^ 1) : k;
    for (int q = 0; q < 3; q++) hx_mesh_elem_x(m, e, q)[k] = P[src][q];
    m->vert_id[(size_t)e * 8 + k] = id[src];
    m->node_id[(size_t)e * 8 + k] = id[src];
  }
  return mirror;
}

/* Spherical shell r1 < |x| < r2 around the origin: each of the 6 cube faces split
   into n x n, `layers` radial layers. Boundary 1 "inner" (sphere r1), 2 "outer". */
static inline int tm_shell(int n, int layers, double r1, double r2, hx_mesh **out) {
  hx_mesh *m;
  HX_CALL(hx_mesh_create(HX_COMM_SELF, 1, 6 * n * n * layers, &m));
  hx_surface si = {0}, so = {0};
  si.type = so.type = HX_SURF_SPHERE;
  si.r = r1;
  so.r = r2;
  int s_in, s_out;
  HX_CALL(hx_mesh_add_surface(m, &si, &s_in));
  HX_CALL(hx_mesh_add_surface(m, &so, &s_out));
  HX_CALL(hx_mesh_set_bname(m, 1, "inner"));
  HX_CALL(hx_mesh_set_bname(m, 2, "outer"));
  hx_lid e = 0;
  hx_gid n1 = n + 1;
  for (int f = 0; f < 6; f++) {
    int d = f / 2, s = f % 2, da = (d + 1) % 3, db = (d + 2) % 3;
    for (int l = 0; l < layers; l++)
      for (int bj = 0; bj < n; bj++)
        for (int bi = 0; bi < n; bi++) {
          double P[8][3];
          hx_gid id[8];
          for (int c = 0; c < 8; c++) {
            int ci = bi + (c & 1), cj = bj + ((c >> 1) & 1), cl = l + ((c >> 2) & 1);
            int lat[3];
            lat[d] = s ? n : 0;
            lat[da] = ci;
            lat[db] = cj;
            /* equiangular cube-to-sphere direction */
            double dir[3], len = 0;
            for (int q = 0; q < 3; q++) {
              dir[q] = tan(HX_PI / 4 * (2.0 * lat[q] / n - 1.0));
              len += dir[q] * dir[q];
            }
            double r = r1 + (r2 - r1) * cl / layers;
            for (int q = 0; q < 3; q++) P[c][q] = r * dir[q] / sqrt(len);
            id[c] = lat[0] + n1 * (lat[1] + n1 * lat[2]) + n1 * n1 * n1 * cl;
          }
          tm_set_elem(m, e, P, id);
          if (l == 0) HX_CALL(hx_mesh_add_face(m, e, 4, 1, s_in));
          if (l == layers - 1) HX_CALL(hx_mesh_add_face(m, e, 5, 2, s_out));
          e++;
        }
  }
  *out = m;
  return HX_OK;
}

/* Annulus r1 < r < r2 around the z axis, 0 < z < top(r): ntheta elements around,
   nr radial layers, nz axial layers. top(r) = h (plane) or, with cap_R > 0,
   sqrt(cap_R^2 - r^2) (a sphere of radius cap_R centred at the origin), so that the
   top edges lie on a cylinder and a sphere at once. Boundaries: 1 "inner", 2 "outer",
   3 "bottom", 4 "top". */
static inline int tm_annulus(int ntheta, int nr, int nz, double r1, double r2, double h, double cap_R, hx_mesh **out) {
  hx_mesh *m;
  HX_CALL(hx_mesh_create(HX_COMM_SELF, 1, ntheta * nr * nz, &m));
  hx_surface ci = {0}, co = {0}, bot = {0}, top = {0};
  ci.type = co.type = HX_SURF_CYLINDER;
  ci.n[2] = co.n[2] = 1;
  ci.r = r1;
  co.r = r2;
  bot.type = HX_SURF_PLANE;
  bot.n[2] = 1;
  if (cap_R > 0) {
    top.type = HX_SURF_SPHERE;
    top.r = cap_R;
  } else {
    top.type = HX_SURF_PLANE;
    top.n[2] = 1;
    top.p[2] = h;
  }
  int s[4];
  HX_CALL(hx_mesh_add_surface(m, &ci, &s[0]));
  HX_CALL(hx_mesh_add_surface(m, &co, &s[1]));
  HX_CALL(hx_mesh_add_surface(m, &bot, &s[2]));
  HX_CALL(hx_mesh_add_surface(m, &top, &s[3]));
  const char *names[4] = {"inner", "outer", "bottom", "top"};
  for (int b = 0; b < 4; b++) HX_CALL(hx_mesh_set_bname(m, b + 1, names[b]));
  hx_lid e = 0;
  for (int kz = 0; kz < nz; kz++)
    for (int kr = 0; kr < nr; kr++)
      for (int kt = 0; kt < ntheta; kt++) {
        double P[8][3];
        hx_gid id[8];
        for (int c = 0; c < 8; c++) {
          int it = (kt + (c & 1)) % ntheta, ir = kr + ((c >> 1) & 1), iz = kz + ((c >> 2) & 1);
          double th = 2 * HX_PI * it / ntheta, r = r1 + (r2 - r1) * ir / nr;
          double zt = cap_R > 0 ? sqrt(cap_R * cap_R - r * r) : h;
          P[c][0] = r * cos(th);
          P[c][1] = r * sin(th);
          P[c][2] = zt * iz / nz;
          id[c] = it + (hx_gid)ntheta * (ir + (hx_gid)(nr + 1) * iz);
        }
        int mir = tm_set_elem(m, e, P, id);
        (void)mir; /* mirroring xi1 (theta) leaves faces 2..5 in place */
        if (kr == 0) HX_CALL(hx_mesh_add_face(m, e, 2, 1, s[0]));
        if (kr == nr - 1) HX_CALL(hx_mesh_add_face(m, e, 3, 2, s[1]));
        if (kz == 0) HX_CALL(hx_mesh_add_face(m, e, 4, 3, s[2]));
        if (kz == nz - 1) HX_CALL(hx_mesh_add_face(m, e, 5, 4, s[3]));
        e++;
      }
  *out = m;
  return HX_OK;
}

/* Volume = sum over elements of the Gauss-quadrature integral of det J. */
#include "hx_basis.h"
static inline double tm_volume(const hx_mesh *m) {
  int nd = m->nd, Q = 2 * nd + 1 > HX_MAX_Q ? HX_MAX_Q : 2 * nd + 1, npe = nd * nd * nd;
  double xg[HX_MAX_ND], w[HX_MAX_ND], xq[HX_MAX_Q], wq[HX_MAX_Q];
  double B[HX_MAX_Q * HX_MAX_ND], G[HX_MAX_Q * HX_MAX_ND];
  hx_gll(nd, xg, w);
  hx_gauss(Q, xq, wq);
  hx_lagrange_matrices(nd, xg, Q, xq, B, G);
  double vol = 0;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int k = 0; k < Q; k++)
      for (int j = 0; j < Q; j++)
        for (int i = 0; i < Q; i++) {
          double J[3][3] = {{0}};
          for (int c = 0; c < 3; c++) {
            const double *x = hx_mesh_elem_x(m, e, c);
            for (int a = 0; a < npe; a++) {
              int ai = a % nd, aj = (a / nd) % nd, ak = a / (nd * nd);
              J[c][0] += G[i * nd + ai] * B[j * nd + aj] * B[k * nd + ak] * x[a];
              J[c][1] += B[i * nd + ai] * G[j * nd + aj] * B[k * nd + ak] * x[a];
              J[c][2] += B[i * nd + ai] * B[j * nd + aj] * G[k * nd + ak] * x[a];
            }
          }
          double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                       J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
          vol += wq[i] * wq[j] * wq[k] * det;
        }
  return vol;
}

/* Watertightness: every element face (by its corner ids) is shared by exactly two elements
   whose order-N node ids on it agree, or belongs to one element and is recorded once as a
   boundary face. Counts: faces shared by two, unshared, in 3+ elements, boundary mismatches
   (recorded but shared, or unshared but not recorded once), shared faces with other node
   ids; with verbose the first few violations are printed. Returns 1 when out of memory. */
typedef struct tm_faces {
  long shared, boundary, bad_share, bad_bound, bad_nodes;
} tm_faces;
typedef struct tm_fkey {
  hx_gid v[4];
  hx_lid elem;
  int face;
} tm_fkey;
static inline int tm_cmp_gid(const void *a, const void *b) {
  hx_gid x = *(const hx_gid *)a, y = *(const hx_gid *)b;
  return x < y ? -1 : x > y;
}
static inline int tm_cmp_fkey(const void *a, const void *b) {
  const tm_fkey *x = a, *y = b;
  for (int k = 0; k < 4; k++)
    if (x->v[k] != y->v[k]) return x->v[k] < y->v[k] ? -1 : 1;
  return 0;
}
/* the order-N node ids of face f of element e, sorted */
static inline void tm_face_ids(const hx_mesh *m, hx_lid e, int f, hx_gid *out) {
  int nd = m->nd, n = 0;
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++)
        if (hx_node_on_face(nd, f, i, j, k)) out[n++] = m->node_id[(size_t)e * nd * nd * nd + hx_lex(nd, i, j, k)];
  qsort(out, (size_t)n, sizeof *out, tm_cmp_gid);
}
static inline int tm_watertight(const hx_mesh *m, tm_faces *r, int verbose) {
  memset(r, 0, sizeof *r);
  hx_lid E = m->num_elem;
  int nfn = m->nd * m->nd;
  tm_fkey *fk = malloc((size_t)(E * 6 + 1) * sizeof *fk);
  char *isb = calloc((size_t)(E * 6 + 1), 1);
  hx_gid *ia = malloc(sizeof(hx_gid) * nfn), *ib = malloc(sizeof(hx_gid) * nfn);
  if (!fk || !isb || !ia || !ib) {
    free(fk), free(isb), free(ia), free(ib);
    return 1;
  }
  for (hx_lid e = 0; e < E; e++)
    for (int f = 0; f < 6; f++) {
      int c[4];
      hx_face_corners(f, c);
      tm_fkey *k = &fk[6 * e + f];
      for (int q = 0; q < 4; q++) k->v[q] = m->vert_id[8 * e + c[q]];
      qsort(k->v, 4, sizeof(hx_gid), tm_cmp_gid);
      k->elem = e, k->face = f;
    }
  qsort(fk, (size_t)E * 6, sizeof *fk, tm_cmp_fkey);
  for (hx_lid k = 0; k < m->num_faces; k++) isb[6 * m->faces[k].elem + m->faces[k].face]++;
  for (hx_lid k = 0; k < E * 6;) {
    hx_lid h = k;
    while (h < E * 6 && !tm_cmp_fkey(&fk[k], &fk[h])) h++;
    long nbad = r->bad_share + r->bad_bound + r->bad_nodes;
    int say = verbose && nbad < 5;
    if (h - k == 2) {
      r->shared++;
      if (isb[6 * fk[k].elem + fk[k].face] || isb[6 * fk[k + 1].elem + fk[k + 1].face]) {
        r->bad_bound++;
        if (say) printf("  interior face recorded as boundary: elements %d and %d\n", (int)fk[k].elem, (int)fk[k + 1].elem);
      }
      tm_face_ids(m, fk[k].elem, fk[k].face, ia);
      tm_face_ids(m, fk[k + 1].elem, fk[k + 1].face, ib);
      if (memcmp(ia, ib, sizeof(hx_gid) * nfn)) {
        r->bad_nodes++;
        if (say) printf("  node ids differ on the face shared by elements %d and %d\n", (int)fk[k].elem, (int)fk[k + 1].elem);
      }
    } else if (h - k == 1) {
      r->boundary++;
      if (isb[6 * fk[k].elem + fk[k].face] != 1) {
        r->bad_bound++;
        if (say) printf("  open face: element %d face %d is unshared but not recorded once\n", (int)fk[k].elem, fk[k].face);
      }
    } else {
      r->bad_share++;
      if (say) printf("  face shared by %d elements (element %d)\n", (int)(h - k), (int)fk[k].elem);
    }
    k = h;
  }
  free(fk), free(isb), free(ia), free(ib);
  return 0;
}

/* A check of a test: where cond is false, prints "FAIL: " and the message and sets the test's
   own flag `fail` (a static int of the test file, 0 at the start). */
#define TM_EXPECT(cond, ...)                                                                                                     \
  do {                                                                                                                           \
    if (!(cond)) {                                                                                                               \
      printf("FAIL: " __VA_ARGS__);                                                                                              \
      printf("\n");                                                                                                              \
      fail = 1;                                                                                                                  \
    }                                                                                                                            \
  } while (0)

/* MPI start/stop for single-rank tests built in an MPI configuration. */
static inline void tm_init(int *argc, char ***argv) {
#if HX_HAVE_MPI
  MPI_Init(argc, argv);
#else
  (void)argc, (void)argv;
#endif
}
static inline int tm_finalize(int rc) {
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return rc;
}
