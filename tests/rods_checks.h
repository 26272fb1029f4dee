/* Checks shared by the rod-bundle tests (t22x): watertight conformity, nodes on
   rod cylinders, cross-section area, per-element det J statistics. Header-only,
   static functions; computed independently of the mesher's own bookkeeping. */
#pragma once
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_mesh.h"

typedef struct { hx_gid v[4]; hx_lid e; int f; } rc_face;

static inline int rc_cmp_face(const void *a, const void *b) {
  const rc_face *x = a, *y = b;
  for (int k = 0; k < 4; k++)
    if (x->v[k] != y->v[k]) return x->v[k] < y->v[k] ? -1 : 1;
  return 0;
}
static inline int rc_cmp_gid(const void *a, const void *b) {
  hx_gid x = *(const hx_gid *)a, y = *(const hx_gid *)b;
  return x < y ? -1 : x > y;
}

/* Sorted node ids of face f of element e into ids (nd^2 of them). */
static inline void rc_face_ids(const hx_mesh *m, hx_lid e, int f, hx_gid *ids) {
  int nd = m->nd, n = 0;
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++)
        if (hx_node_on_face(nd, f, i, j, k)) ids[n++] = m->node_id[(size_t)e * nd * nd * nd + hx_lex(nd, i, j, k)];
  qsort(ids, (size_t)n, sizeof *ids, rc_cmp_gid);
}

/* Watertight conformity: every face is shared by exactly two elements with the same
   node ids, or is a recorded boundary face (and every recorded face is unshared).
   Returns the number of violations; prints the first few. */
static inline long rc_conformity(const hx_mesh *m) {
  size_t nf = (size_t)m->num_elem * 6;
  rc_face *F = malloc(nf * sizeof *F);
  int nd = m->nd;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int f = 0; f < 6; f++) {
      int c[4];
      hx_face_corners(f, c);
      rc_face *x = &F[(size_t)e * 6 + f];
      for (int k = 0; k < 4; k++) x->v[k] = m->vert_id[(size_t)e * 8 + c[k]];
      qsort(x->v, 4, sizeof(hx_gid), rc_cmp_gid);
      x->e = e, x->f = f;
    }
  qsort(F, nf, sizeof *F, rc_cmp_face);
  /* boundary face lookup: mark[e*6+f] */
  char *bmark = calloc(nf, 1);
  for (hx_lid k = 0; k < m->num_faces; k++) bmark[(size_t)m->faces[k].elem * 6 + m->faces[k].face]++;
  long bad = 0;
  hx_gid *a = malloc(sizeof(hx_gid) * nd * nd), *b = malloc(sizeof(hx_gid) * nd * nd);
  for (size_t i = 0; i < nf;) {
    size_t j = i + 1;
    while (j < nf && !rc_cmp_face(&F[i], &F[j])) j++;
    size_t cnt = j - i;
    if (cnt == 1) {
      if (bmark[(size_t)F[i].e * 6 + F[i].f] != 1) {
        if (bad++ < 5) printf("  open face: element %d face %d is unshared but not a boundary face\n", F[i].e, F[i].f);
      }
    } else if (cnt == 2) {
      for (size_t q = i; q < j; q++)
        if (bmark[(size_t)F[q].e * 6 + F[q].f]) {
          if (bad++ < 5) printf("  interior face recorded as boundary: element %d face %d\n", F[q].e, F[q].f);
        }
      rc_face_ids(m, F[i].e, F[i].f, a);
      rc_face_ids(m, F[i + 1].e, F[i + 1].f, b);
      if (memcmp(a, b, sizeof(hx_gid) * nd * nd)) {
        if (bad++ < 5) printf("  node ids differ on the face shared by elements %d and %d\n", F[i].e, F[i + 1].e);
      }
    } else {
      if (bad++ < 5) printf("  face shared by %zu elements (element %d)\n", cnt, F[i].e);
    }
    i = j;
  }
  free(a), free(b), free(F), free(bmark);
  return bad;
}

/* Largest relative distance of a boundary-face node from its cylinder, over the faces
   with bid in [bid_lo, bid_hi] that lie on cylinders (other surfaces are skipped). */
static inline double rc_cylinder_error(const hx_mesh *m, int bid_lo, int bid_hi) {
  int nd = m->nd;
  double worst = 0;
  for (hx_lid k = 0; k < m->num_faces; k++) {
    const hx_bface *F = &m->faces[k];
    if (F->bid < bid_lo || F->bid > bid_hi) continue;
    const hx_surface *s = &m->surfaces[F->surf];
    if (s->type != HX_SURF_CYLINDER) continue;
    for (int kk = 0; kk < nd; kk++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          if (!hx_node_on_face(nd, F->face, i, j, kk)) continue;
          int a = hx_lex(nd, i, j, kk);
          double x = hx_mesh_elem_x(m, F->elem, 0)[a] - s->p[0], y = hx_mesh_elem_x(m, F->elem, 1)[a] - s->p[1];
          worst = fmax(worst, fabs(hypot(x, y) - s->r) / s->r);
        }
  }
  return worst;
}

/* Volume by GLL quadrature of det J, and per-element min/max det J statistics:
   Nek5000's scaled Jacobian min_e (min det J / max det J). */
typedef struct { double volume, min_detj, min_ratio, mean_ratio, max_aspect; long below_half; } rc_stats;

static inline rc_stats rc_element_stats(const hx_mesh *m) {
  int nd = m->nd;
  double xq[HX_MAX_ND], wq[HX_MAX_ND], D[HX_MAX_ND * HX_MAX_ND];
  hx_gll(nd, xq, wq);
  hx_mesh_gll_derivative(nd, D);
  rc_stats s = {0, HUGE_VAL, HUGE_VAL, 0, 0, 0};
  for (hx_lid e = 0; e < m->num_elem; e++) {
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          double J[3][3], d = hx_mesh_jacobian_at_node(m, D, e, i, j, k, J);
          s.volume += wq[i] * wq[j] * wq[k] * d;
          lo = fmin(lo, d), hi = fmax(hi, d);
        }
    double r = lo / hi;
    s.min_detj = fmin(s.min_detj, lo);
    s.min_ratio = fmin(s.min_ratio, r);
    s.mean_ratio += r;
    if (r < 0.5) s.below_half++;
    /* aspect ratio: longest over shortest of the 12 corner-to-corner edges */
    static const int E[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    double emin = HUGE_VAL, emax = 0;
    for (int q = 0; q < 12; q++) {
      int a = hx_corner_lex(nd, E[q][0]), b = hx_corner_lex(nd, E[q][1]);
      double l2 = 0;
      for (int c = 0; c < 3; c++) {
        double d = hx_mesh_elem_x(m, e, c)[a] - hx_mesh_elem_x(m, e, c)[b];
        l2 += d * d;
      }
      emin = fmin(emin, sqrt(l2)), emax = fmax(emax, sqrt(l2));
    }
    s.max_aspect = fmax(s.max_aspect, emax / emin);
  }
  s.mean_ratio /= m->num_elem > 0 ? m->num_elem : 1;
  return s;
}
