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
#include "hx_test_meshes.h"

/* Watertight conformity (tm_watertight): every face is shared by exactly two elements with
   the same node ids, or is a recorded boundary face (and every recorded face is unshared).
   Returns the number of violations (-1: out of memory); prints the first few. */
static inline long rc_conformity(const hx_mesh *m) {
  tm_faces r;
  if (tm_watertight(m, &r, 1)) return -1;
  return r.bad_share + r.bad_bound + r.bad_nodes;
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
typedef struct {
  double volume, min_detj, min_ratio, mean_ratio, max_aspect;
  long below_half;
} rc_stats;

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
