/* Shared helpers of the TMOP tests: small Kershaw boxes and deterministic
   perturbations keyed by global node id (so every MPI rank agrees). */
#pragma once
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_box.h"
#include "hx_error.h"
#include "hx_mesh.h"
#include "hx_tmop.h"

/* Kershaw box nx x ny x nz of [0, nx/ny] x [0,1] x [0, nz/ny] (cubic elements
   when undeformed), eps_y = eps_z = eps (eps >= 1: the uniform box), order p, the map's
   smoothness s (1: trilinear elements; 3: curved). */
static inline hx_mesh *test_kershaw_s(hx_comm comm, int nx, int ny, int nz, int p, double eps, int s) {
  hx_box_opts o;
  hx_box_opts_default(&o);
  o.n[0] = nx;
  o.n[1] = ny;
  o.n[2] = nz;
  o.hi[0] = (double)nx / ny;
  o.hi[1] = 1.0;
  o.hi[2] = (double)nz / ny;
  o.order = p;
  o.kershaw = eps < 1.0;
  o.eps_y = o.eps_z = eps;
  o.smooth = s;
  hx_mesh *m = NULL;
  if (hx_mesher_box(comm, &o, &m)) {
    printf("mesher failed: %s\n", hx_error_message());
    return NULL;
  }
  return m;
}

/* the same with the benchmark's trilinear map (smoothness 1) */
static inline hx_mesh *test_kershaw(hx_comm comm, int nx, int ny, int nz, int p, double eps) {
  return test_kershaw_s(comm, nx, ny, nz, p, eps, 1);
}

/* |a - b| / |b| (2-norms) */
static inline double test_vrel(const double *a, const double *b, size_t n) {
  double d = 0, s = 0;
  for (size_t i = 0; i < n; i++) d += (a[i] - b[i]) * (a[i] - b[i]), s += b[i] * b[i];
  return sqrt(d / fmax(s, 1e-300));
}

/* Kershaw n^3 at order p with the map's smoothness s optimized with o (collective): the result
   into r, and into dev the largest distance of a node from the uniform mesh's, in units of h */
static inline int test_solve_uniform(hx_comm comm, int n, int p, int s, const hx_tmop_opts *o, hx_tmop_result *r, double *dev) {
  hx_mesh *m = test_kershaw_s(comm, n, n, n, p, 0.3, s), *ref = test_kershaw_s(comm, n, n, n, p, 1.0, s);
  int rc = m && ref ? hx_tmop_optimize(m, o, r) : HX_ERR_INPUT;
  if (rc) printf("optimize: %s\n", hx_error_message());
  *dev = 0;
  size_t nx = m ? (size_t)m->num_elem * 3 * m->nd * m->nd * m->nd : 0;
  for (size_t i = 0; !rc && i < nx; i++) *dev = fmax(*dev, fabs(m->x[i] - ref->x[i]) * n);
  hx_comm_max_double(comm, dev, 1);
  hx_mesh_destroy(&m);
  hx_mesh_destroy(&ref);
  return rc;
}

/* one element of order p bent through 220 degrees of the annulus 1 <= r <= 2 about the z axis,
   no boundary faces: valid at order p >= 4, its chord (order-1) copy inverted */
static inline hx_mesh *test_bent_element(int p) {
  hx_box_opts bo;
  hx_box_opts_default(&bo);
  bo.n[0] = bo.n[1] = bo.n[2] = 1;
  bo.order = p;
  hx_mesh *m = NULL;
  if (hx_mesher_box(HX_COMM_SELF, &bo, &m)) return NULL;
  size_t n3 = (size_t)m->nd * m->nd * m->nd;
  double *x = hx_mesh_elem_x(m, 0, 0), *y = hx_mesh_elem_x(m, 0, 1);
  for (size_t a = 0; a < n3; a++) {
    double th = y[a] * 220.0 * 3.14159265358979323846 / 180.0, rr = 1 + x[a];
    x[a] = rr * cos(th), y[a] = rr * sin(th);
  }
  m->num_faces = 0; /* every node fixed: no surface to slide on */
  return m;
}

/* the options the bent element is solved with: cpu, one thread, every boundary node fixed, 3
   Newton steps */
static inline void test_bent_opts(hx_tmop_opts *o) {
  hx_tmop_opts_default(o);
  o->backend = "cpu";
  o->num_threads = 1;
  o->boundary = HX_BND_FIXED;
  o->newton_iters = 3;
}

/* optimize m with o and destroy it; its nodes (E-vector) into a new *xout of *nx doubles */
static inline int test_optimize_nodes(hx_mesh *m, const hx_tmop_opts *o, hx_tmop_result *r, double **xout, size_t *nx) {
  int rc = hx_tmop_optimize(m, o, r);
  *nx = (size_t)m->num_elem * 3 * m->nd * m->nd * m->nd;
  *xout = (double *)malloc(*nx * sizeof(double));
  memcpy(*xout, m->x, *nx * sizeof(double));
  hx_mesh_destroy(&m);
  return rc;
}

static inline double test_hash(long long id, int c) {
  unsigned long long z = (unsigned long long)id * 0x9E3779B97F4A7C15ull + (unsigned long long)(c + 1) * 0xBF58476D1CE4E5B9ull;
  z ^= z >> 31;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 29;
  return (double)(z >> 11) / 9007199254740992.0 - 0.5;
}

/* move every E-node by amp * hash(node id) (all copies alike) */
static inline void test_perturb(hx_mesh *m, double amp) {
  int npe = m->nd * m->nd * m->nd;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int a = 0; a < npe; a++)
      for (int c = 0; c < 3; c++) hx_mesh_elem_x(m, e, c)[a] += amp * test_hash(m->node_id[(size_t)e * npe + a], c);
}

/* a smooth displacement of every node by amp (the curved Kershaw boxes of the CUDA tests) */
static inline void test_curve(hx_mesh *m, double amp) {
  size_t npe = (size_t)m->nd * m->nd * m->nd;
  for (hx_lid e = 0; e < m->num_elem; e++) {
    double *X = hx_mesh_elem_x(m, e, 0), *Y = hx_mesh_elem_x(m, e, 1), *Z = hx_mesh_elem_x(m, e, 2);
    for (size_t a = 0; a < npe; a++) {
      double x = X[a], y = Y[a], z = Z[a];
      X[a] += amp * sin(3 * y) * sin(2 * z);
      Y[a] += amp * sin(2 * x + z);
      Z[a] += amp * 0.7 * cos(3 * x) * sin(2 * y);
    }
  }
}

/* every element's Nek5000 ratio min / max det J over its GLL nodes (-1 where max <= 0), from
   hx_mesh_jacobian_at_node: independent of the optimizer's and the quality report's passes */
static inline void test_nek_ratios(const hx_mesh *m, double *r) {
  int nd = m->nd;
  double D[HX_MAX_ND * HX_MAX_ND], J[3][3];
  hx_mesh_gll_derivative(nd, D);
  for (hx_lid e = 0; e < m->num_elem; e++) {
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          double d = hx_mesh_jacobian_at_node(m, D, e, i, j, k, J);
          lo = fmin(lo, d), hi = fmax(hi, d);
        }
    r[e] = hi > 0 ? lo / hi : -1;
  }
}

/* the pebble optimizer's aim on a test mesh: metric 318, target 4 (each element's own volume),
   equal weights, boundary fixed, the cpu backend, iters Newton steps */
static inline void test_sj_opts(hx_tmop_opts *o, int iters) {
  hx_tmop_opts_default(o);
  o->backend = "cpu";
  o->metric = 318;
  o->target = 4;
  o->equal_weight = 1;
  o->boundary = HX_BND_FIXED;
  o->newton_iters = iters;
}

/* a copy of m0 optimized with o; NULL (the message printed) on failure */
static inline hx_mesh *test_optimized_copy(const hx_mesh *m0, const hx_tmop_opts *o, hx_tmop_result *r) {
  hx_mesh *m = NULL;
  if (hx_mesh_copy(m0, &m)) return NULL;
  if (hx_tmop_optimize(m, o, r)) {
    printf("optimize failed: %s\n", hx_error_message());
    hx_mesh_destroy(&m);
  }
  return m;
}
