/* The distributed TMOP problem on L-vectors: E <-> L maps, the MPI
   gather-scatter, targets, boundary constraints, and the assembled operators
   built on a backend's element kernels (hx_kernels.h), with the fold tests between
   the nodes. The bottom layer of tmop/: the solver (newton.c) and the drivers above
   it (repair.c, transfer.c) build on it.

   design:
   1. L-vector = the rank's unique nodes (hx_lmap, sorted by global id) x 3
      components; shared nodes between ranks are kept equal on every rank
      (hx_gs sums assembled vectors in rank order).
   2. An operator call scatters L -> E on the host, uploads to the backend,
      runs the element kernel, downloads, gathers E -> L and sums over ranks.
   3. Boundary constraints are a per-node orthogonal projector Pi removing the
      components along up to 3 orthonormal normals: fixed nodes (all three),
      nodes on planes (the planes' normals; two planes -> slide on the edge line,
      three -> fixed), nodes on one sphere/cylinder (its normal at the current
      position, refreshed every Newton step; the node is projected back onto the
      surface after every trial step), nodes where two surfaces meet in a circle
      (a sphere and a coaxial cylinder, a plane and a cylinder along its normal, ...:
      the circle's axis and radial direction, refreshed and projected the same way;
      any other meeting of a curved surface with another is fixed). The constrained Hessian is
      Pi H Pi + (I - Pi), the residual Pi r (for axis-aligned planes this is
      exactly MFEM's essential-vdof treatment). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_detj_bound.h"
#include "hx_error.h"
#include "hx_gs.h"
#include "hx_invariants.h"
#include "hx_kernels.h"
#include "hx_memory.h"
#include "hx_metrics.h"
#include "hx_quality.h"
#include "hx_tmop_impl.h"
#if HX_HAVE_OPENMP
#include <omp.h>
#endif

double hx_tmop_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double hx_tmop_now_public(void) { return hx_tmop_now(); }

void hx_tmop_opts_default(hx_tmop_opts *o) {
  memset(o, 0, sizeof *o);
  o->metric = 303;
  o->target = HX_TARGET_IDEAL_SHAPE_UNIT_SIZE;
  o->quad_type = HX_QUAD_GLL;
  o->quad_order = 8;
  o->hess_strategy = HX_HESS_ONTHEFLY;
  o->backend = "auto";
  o->boundary = HX_BND_SLIDE;
  o->newton_iters = 100;
  o->newton_rtol = 1e-10;
  o->linear_solver = HX_LIN_MINRES;
  o->linear_iters = 40;
  o->precond = HX_PREC_JACOBI;
  o->precond_degree = 3;
  o->linear_rtol = 1e-12;
  o->adaptive_rtol = 1;
  o->detj_nodes = -1;
  o->recover = 1;
  o->relaxed_max = 20;
  o->coarse_order = 0;
  o->repair_rings = 2;
  o->repair_weight = 10;
  o->repair_iters = 10;
  o->repair_passes = 3;
  o->untangle = 1;
  o->untangle_iters = 200;
}

static const char *target_names[5] = {NULL, "ideal-unit", "ideal-equal", "ideal-given", "ideal-elem"};

const char *hx_target_name(int target) { return target >= 1 && target <= 4 ? target_names[target] : "?"; }

int hx_target_parse(const char *s, int *target) {
  for (int t = 1; t <= 4; t++) {
    char num[4];
    snprintf(num, sizeof num, "%d", t);
    if (!strcmp(s, num) || !strcmp(s, target_names[t])) {
      *target = t;
      return HX_OK;
    }
  }
  return HX_ERROR(HX_ERR_INPUT, "unknown target '%s'; known: 1|ideal-unit, 2|ideal-equal, 3|ideal-given, 4|ideal-elem", s);
}

int hx_adapt_quad_parse(const char *s, int *adapt_quad) {
  char *end;
  long q = strtol(s, &end, 10);
  if (!strcmp(s, "auto")) *adapt_quad = -1;
  else if (!strcmp(s, "off")) *adapt_quad = 0;
  else if (end != s && !*end && q >= 2 && q <= 40) *adapt_quad = (int)q;
  else return HX_ERROR(HX_ERR_INPUT, "adaptive quadrature: expected auto, off or a quadrature order 2..40, got '%s'", s);
  return HX_OK;
}

/* ------------------------------------------------------------------ targets */

/* Target 5 (the untangling solve's): W = h_e I per element with h_e^3 the weighted mean of c
   (c: [num_elem][nq^3], (|A|^2 / 3)^(3/2) per point), every element weighted by the mean h_e^3 */
static int untangle_target(const hx_mesh *m, int nq, const double *wq, const double *c, hx_pa_desc *d, double **winv,
                           double **detw) {
  size_t nq3 = (size_t)nq * nq * nq, ne = (size_t)m->num_elem;
  HX_CALL(hx_malloc((9 * ne + 1) * sizeof(double), winv));
  HX_CALL(hx_malloc((ne + 1) * sizeof(double), detw));
  double sum = 0;
  int rc = HX_OK;
  for (size_t e = 0; e < ne; e++) {
    double h3 = 0;
    for (size_t q = 0; q < nq3; q++) h3 += wq[q % nq] * wq[(q / nq) % nq] * wq[q / (nq * nq)] * c[e * nq3 + q];
    if (!(h3 > 0) && !rc)
      rc = HX_ERROR(HX_ERR_INVALID_MESH, "element %lld has collapsed to a point: nothing to untangle it from",
                    (long long)(m->elem_offset + (hx_gid)e));
    double *W = *winv + 9 * e;
    memset(W, 0, 9 * sizeof(double));
    W[0] = W[4] = W[8] = h3 > 0 ? 1.0 / cbrt(h3) : 1.0;
    sum += h3;
  }
  HX_CALL(hx_comm_sum_double(m->comm, &sum, 1));
  HX_CALL(rc);
  for (size_t e = 0; e < ne; e++) (*detw)[e] = sum / (double)m->num_elem_global;
  d->w_per_elem = 1;
  return HX_OK;
}

/* All three ideal-shape targets for hexes are W = s I (W_ideal = I),
   with s = 1, s = (V / NE)^(1/3), or s = (det A0(xi_q))^(1/3) per point; hexpack's
   target 4 takes s = (V0_e)^(1/3) per element (V0_e = the element's initial volume, for
   the reference cube [0,1]^3), stored per point like target 3. */
static int build_target(const hx_mesh *m, const hx_tmop_opts *o, hx_pa_desc *d, double **winv, double **detw) {
  *winv = *detw = NULL;
  if (o->target == HX_TARGET_IDEAL_SHAPE_UNIT_SIZE) return HX_OK;
  int nd = m->nd, nq = hx_quad_points_for_order(o->quad_type, o->quad_order);
  HX_CHECK(nq >= 1 && nq <= HX_MAX_Q, HX_ERR_INPUT, "--quad-order %d is out of range", o->quad_order);
  double qp[HX_MAX_Q], wq[HX_MAX_Q], xg[HX_MAX_ND], wg[HX_MAX_ND], B[HX_MAX_Q * HX_MAX_ND], G[HX_MAX_Q * HX_MAX_ND];
  HX_CALL(hx_quad_rule(o->quad_type, nq, qp, wq));
  HX_CALL(hx_gll(nd, xg, wg));
  hx_lagrange_matrices(nd, xg, nq, qp, B, G);
  size_t nq3 = (size_t)nq * nq * nq, npe = (size_t)3 * nd * nd * nd,
         nwork = (size_t)3 * nd * nd * nq + (size_t)3 * nd * nq * nq + 16;
  int nt = 1;
#if HX_HAVE_OPENMP
  nt = omp_get_max_threads();
#endif
  /* per thread: A at the points and the contractions' work; per element its smallest det J */
  double *A = NULL, *work = NULL, *dets = NULL, *cube = NULL, *emin = NULL;
  int rc = hx_malloc(((size_t)nt * 9 * nq3 + 1) * sizeof(double), &A);
  if (!rc) rc = hx_malloc(((size_t)nt * nwork + 1) * sizeof(double), &work);
  if (!rc) rc = hx_malloc(((size_t)m->num_elem * nq3 + 1) * sizeof(double), &dets);
  if (!rc) rc = hx_malloc(((size_t)m->num_elem + 1) * sizeof(double), &emin);
  if (!rc && o->target == HX_TARGET_UNTANGLE) rc = hx_malloc(((size_t)m->num_elem * nq3 + 1) * sizeof(double), &cube);
  if (!rc) {
#pragma omp parallel for schedule(static)
    for (hx_lid e = 0; e < m->num_elem; e++) {
      int t = 0;
#if HX_HAVE_OPENMP
      t = omp_get_thread_num();
#endif
      double *At = A + (size_t)t * 9 * nq3, mn = HUGE_VAL;
      hx_elem_jacobian_host(nd, nq, B, G, m->x + e * npe, At, work + (size_t)t * nwork);
      for (size_t q = 0; q < nq3; q++) {
        double dt = hx_m3_det(At + 9 * q);
        dets[e * nq3 + q] = dt;
        if (cube) { /* the size of a cube with A's edge lengths */
          double c = sqrt(hx_m3_ddot(At + 9 * q, At + 9 * q) / 3.0);
          cube[e * nq3 + q] = c * c * c;
        }
        if (dt < mn) mn = dt;
      }
      emin[e] = mn;
    }
  }
  hx_free(&A);
  hx_free(&work);
  /* the volume as one running sum in element order, and the first element with the smallest det J:
     the same doubles and the same element on any number of threads */
  double vol = 0, mindet = HUGE_VAL;
  hx_lid bad_elem = -1;
  for (hx_lid e = 0; e < m->num_elem && !rc; e++) {
    for (size_t q = 0; q < nq3; q++) vol += wq[q % nq] * wq[(q / nq) % nq] * wq[q / (nq * nq)] * dets[e * nq3 + q];
    if (emin[e] < mindet) {
      mindet = emin[e];
      if (mindet <= 0) bad_elem = e;
    }
  }
  hx_free(&emin);
  if (cube) { /* untangle_target reads (|A|^2 / 3)^(3/2) per point */
    hx_free(&dets);
    dets = cube, cube = NULL;
  }
  if (rc == HX_OK) {
    HX_CALL(hx_comm_sum_double(m->comm, &vol, 1));
    if (o->target == HX_TARGET_IDEAL_SHAPE_EQUAL_SIZE) {
      double vbar = vol / (double)m->num_elem_global;
      double s = cbrt(vbar);
      memset(d->Winv_c, 0, sizeof d->Winv_c);
      d->Winv_c[0] = d->Winv_c[4] = d->Winv_c[8] = 1.0 / s;
      d->detW_c = vbar;
    } else if (o->target == HX_TARGET_UNTANGLE) {
      rc = untangle_target(m, nq, wq, dets, d, winv, detw);
    } else {
      int bad = bad_elem >= 0;
      rc = bad ? HX_ERROR(HX_ERR_INVALID_MESH,
                          "target ideal-given needs det J > 0 at every quadrature point of the initial mesh; "
                          "element %lld has det J = %.3e",
                          (long long)(m->elem_offset + bad_elem), mindet)
               : HX_OK;
      /* target 4 is constant over each element: one W per element (the kernels index it by
         element), 1/nq^3 of a per-point layout (5.6 GB of a 10^3-sphere bed at order 3) */
      int per_elem = o->target == HX_TARGET_IDEAL_SHAPE_ELEM_SIZE;
      size_t nw = (size_t)m->num_elem * (per_elem ? 1 : nq3);
      double *size = dets; /* per point, or the element's volume */
      if (!rc) rc = hx_malloc((9 * nw + 1) * sizeof(double), winv);
      if (!rc) rc = hx_malloc((nw + 1) * sizeof(double), detw);
      if (!rc && per_elem) rc = hx_malloc(((size_t)m->num_elem + 1) * sizeof(double), &size);
      if (!rc && per_elem) {
#pragma omp parallel for schedule(static)
        for (hx_lid e = 0; e < m->num_elem; e++) { /* the element's volume */
          double ve = 0;
          for (size_t q = 0; q < nq3; q++) ve += wq[q % nq] * wq[(q / nq) % nq] * wq[q / (nq * nq)] * dets[e * nq3 + q];
          size[e] = ve;
        }
      }
      d->w_per_elem = per_elem;
      if (!rc) {
        double *Wv = *winv, *dw = *detw;
#pragma omp parallel for schedule(static)
        for (size_t g = 0; g < nw; g++) {
          double sc = cbrt(size[g]);
          double *W = Wv + 9 * g;
          memset(W, 0, 9 * sizeof(double));
          W[0] = W[4] = W[8] = 1.0 / sc;
          dw[g] = o->equal_weight ? vol / (double)m->num_elem_global : size[g];
          if (o->elem_weight) dw[g] *= o->elem_weight[per_elem ? g : g / nq3];
        }
      }
      if (size != dets) hx_free(&size);
    }
  }
  hx_free(&dets);
  rc = hx_comm_agree(m->comm, rc);
  if (rc) {
    hx_free(winv);
    hx_free(detw);
  }
  d->Winv = *winv;
  d->detW = *detw;
  return rc;
}

/* The limiting term's distance per element where opts ask for one from the volumes: the
   element's volume^(1/3) (HX_LIM_DIST_ELEM) or MFEM's small_phys_size, (the mesh's volume)^(1/3) /
   100 (HX_LIM_DIST_SMALL); volumes by the solve's quadrature of det J. *dist: [num_elem], or NULL
   for a constant distance (d->lim_dist). */
static int limit_dist(const hx_mesh *m, const hx_tmop_opts *o, hx_pa_desc *d, double **dist) {
  *dist = NULL;
  d->lim_const = o->lim_const;
  d->lim_dist = o->lim_dist;
  if (o->lim_const == 0.0 || o->lim_dist_kind == HX_LIM_DIST_CONST) return HX_OK;
  HX_CHECK(o->lim_dist_kind == HX_LIM_DIST_SMALL || o->lim_dist_kind == HX_LIM_DIST_ELEM, HX_ERR_INPUT,
           "unknown limiting distance kind %d", o->lim_dist_kind);
  int nd = m->nd, nq = hx_quad_points_for_order(o->quad_type, o->quad_order);
  HX_CHECK(nq >= 1 && nq <= HX_MAX_Q, HX_ERR_INPUT, "--quad-order %d is out of range", o->quad_order);
  double qp[HX_MAX_Q], wq[HX_MAX_Q], xg[HX_MAX_ND], wg[HX_MAX_ND], B[HX_MAX_Q * HX_MAX_ND], G[HX_MAX_Q * HX_MAX_ND];
  HX_CALL(hx_quad_rule(o->quad_type, nq, qp, wq));
  HX_CALL(hx_gll(nd, xg, wg));
  hx_lagrange_matrices(nd, xg, nq, qp, B, G);
  size_t nq3 = (size_t)nq * nq * nq, npe = (size_t)3 * nd * nd * nd;
  double *A = NULL, *work = NULL;
  int rc = hx_malloc((9 * nq3 + 1) * sizeof(double), &A);
  if (!rc) rc = hx_malloc(((size_t)3 * nd * nd * nq + (size_t)3 * nd * nq * nq + 16) * sizeof(double), &work);
  if (!rc) rc = hx_malloc(((size_t)m->num_elem + 1) * sizeof(double), dist);
  double vol = 0;
  for (hx_lid e = 0; e < m->num_elem && !rc; e++) {
    hx_elem_jacobian_host(nd, nq, B, G, m->x + e * npe, A, work);
    double ve = 0;
    for (size_t q = 0; q < nq3; q++) ve += wq[q % nq] * wq[(q / nq) % nq] * wq[q / (nq * nq)] * hx_m3_det(A + 9 * q);
    (*dist)[e] = cbrt(ve);
    vol += ve;
  }
  hx_free(&A);
  hx_free(&work);
  if (!rc) rc = hx_comm_sum_double(m->comm, &vol, 1);
  if (!rc && o->lim_dist_kind == HX_LIM_DIST_SMALL) {
    d->lim_dist = cbrt(vol) / 100.0;
    hx_free(dist);
  }
  rc = hx_comm_agree(m->comm, rc);
  if (rc) hx_free(dist);
  d->lim_dist_elem = *dist;
  return rc;
}

/* ------------------------------------------------------------------ constraints */

/* A boundary face without an analytic surface (e.g. read from a file): if all
   its nodes share one coordinate d (to 1e-10 of the face size), it lies in the
   plane x_d = const and its nodes may slide in it: return d, else -1. */
static int flat_axis_face(const hx_mesh *m, const hx_bface *bf) {
  int nd = m->nd;
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++)
        if (hx_node_on_face(nd, bf->face, i, j, k))
          for (int c = 0; c < 3; c++) {
            double v = hx_mesh_elem_x(m, bf->elem, c)[hx_lex(nd, i, j, k)];
            lo[c] = fmin(lo[c], v);
            hi[c] = fmax(hi[c], v);
          }
  double size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  for (int c = 0; c < 3; c++)
    if (hi[c] - lo[c] <= 1e-10 * size) return c;
  return -1;
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* d = x's offset from circle C's axis (perpendicular to it); returns its length */
static double circle_radial(const double C[7], const double x[3], double d[3]) {
  for (int k = 0; k < 3; k++) d[k] = x[k] - C[k];
  double h = dot3(d, C + 3);
  for (int k = 0; k < 3; k++) d[k] -= h * C[3 + k];
  return sqrt(dot3(d, d));
}

/* The circle C (centre, unit axis, radius) where surfaces s1 and s2 meet through the node x,
   if they meet in one: a plane with a sphere, or with a cylinder along its normal; two
   spheres; a sphere with a cylinder whose axis passes through its centre (the circle on x's
   side). Returns 1 if x lies on it (to 1e-8 of its radius), else 0 (the node stays fixed). */
static int surfaces_circle(const hx_surface *s1, const hx_surface *s2, const double x[3], double C[7]) {
  if (s1->type > s2->type) {
    const hx_surface *t = s1;
    s1 = s2, s2 = t;
  }
  double *c = C, *a = C + 3, r = 0;
  if (s1->type == HX_SURF_PLANE && s2->type == HX_SURF_SPHERE) {
    double h = dot3(s1->n, s2->p) - dot3(s1->n, s1->p); /* height of the sphere's centre */
    if (fabs(h) >= s2->r) return 0;
    for (int k = 0; k < 3; k++) c[k] = s2->p[k] - h * s1->n[k], a[k] = s1->n[k];
    r = sqrt(s2->r * s2->r - h * h);
  } else if (s1->type == HX_SURF_PLANE && s2->type == HX_SURF_CYLINDER) {
    double na = dot3(s1->n, s2->n);
    if (fabs(na) < 1 - 1e-12) return 0;
    double t = (dot3(s1->n, s1->p) - dot3(s1->n, s2->p)) / na; /* the axis meets the plane */
    for (int k = 0; k < 3; k++) c[k] = s2->p[k] + t * s2->n[k], a[k] = s2->n[k];
    r = s2->r;
  } else if (s1->type == HX_SURF_SPHERE && s2->type == HX_SURF_SPHERE) {
    double d[3] = {s2->p[0] - s1->p[0], s2->p[1] - s1->p[1], s2->p[2] - s1->p[2]}, dl = sqrt(dot3(d, d));
    if (dl == 0) return 0;
    double t = (dl * dl + s1->r * s1->r - s2->r * s2->r) / (2 * dl); /* the circle's plane from s1's centre */
    if (fabs(t) >= s1->r) return 0;
    for (int k = 0; k < 3; k++) a[k] = d[k] / dl, c[k] = s1->p[k] + t * a[k];
    r = sqrt(s1->r * s1->r - t * t);
  } else if (s1->type == HX_SURF_SPHERE && s2->type == HX_SURF_CYLINDER) {
    double d[3] = {s1->p[0] - s2->p[0], s1->p[1] - s2->p[1], s1->p[2] - s2->p[2]}, t = dot3(d, s2->n);
    for (int k = 0; k < 3; k++) d[k] -= t * s2->n[k]; /* the sphere's centre off the axis */
    if (sqrt(dot3(d, d)) > 1e-10 * s1->r || s2->r >= s1->r) return 0;
    double h = sqrt(s1->r * s1->r - s2->r * s2->r), e[3] = {x[0] - s1->p[0], x[1] - s1->p[1], x[2] - s1->p[2]};
    if (dot3(e, s2->n) < 0) h = -h;
    for (int k = 0; k < 3; k++) a[k] = s2->n[k], c[k] = s1->p[k] + h * a[k];
    r = s2->r;
  } else return 0;
  C[6] = r;
  double d[3], e[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
  return fabs(dot3(e, a)) <= 1e-8 * r && fabs(circle_radial(C, x, d) - r) <= 1e-8 * r;
}

/* The node's track (tm->curved's codes): y = x projected onto it; N = its constrained
   directions at x (a surface's normal; a circle's axis and radial direction). */
void hx_tmop_track_project(const hx_tmop *tm, int t, const double x[3], double y[3]) {
  if (t >= 0) {
    hx_surface_project(&tm->mesh->surfaces[t], x, y);
    return;
  }
  const double *C = tm->circ + 7 * (size_t)(-2 - t);
  double d[3], len = circle_radial(C, x, d);
  for (int k = 0; k < 3; k++) y[k] = len > 0 ? C[k] + d[k] * (C[6] / len) : x[k];
}

static void track_normals(const hx_tmop *tm, int t, const double x[3], double N[9]) {
  if (t >= 0) {
    hx_surface_normal(&tm->mesh->surfaces[t], x, N);
    return;
  }
  const double *C = tm->circ + 7 * (size_t)(-2 - t);
  double d[3], len = circle_radial(C, x, d);
  for (int k = 0; k < 3; k++) N[k] = C[3 + k], N[3 + k] = len > 0 ? d[k] / len : 0.0;
}

/* each node's set of codes: surface indices, CODE_AXIS + d (a flat axis-aligned face without a
   surface record), CODE_FIXED; more codes than a set holds (HX_GS_SET_FULL) also fix it */
#define CODE_AXIS (HX_GS_SET_FULL - 4)
#define CODE_FIXED (HX_GS_SET_FULL - 1)
/* build_constraints' mark of a node where two curved surfaces meet, numbered after the rest */
#define CIRCLE_NODE INT_MIN

/* node i's constraint from its set of codes b (not empty): ncon, curved and the normals; a node
   where two curved surfaces meet is fixed and marked CIRCLE_NODE (build_constraints' pass in node
   order tracks it along their circle) */
static void node_constraint(hx_tmop *tm, const uint32_t *b, hx_lid i) {
  const hx_mesh *m = tm->mesh;
  int ncodes = 0;
  while (ncodes < HX_GS_SET_WIDTH && b[ncodes] != HX_GS_SET_EMPTY) ncodes++;
  if (b[0] == HX_GS_SET_FULL || b[ncodes - 1] == CODE_FIXED) {
    tm->ncon[i] = 3;
    return;
  }
  int ncurved = 0, cs = -1, nplanes = 0, naxis = 0;
  for (int k = 0; k < ncodes; k++) {
    if (b[k] >= CODE_AXIS) naxis++;
    else if (m->surfaces[b[k]].type == HX_SURF_PLANE) nplanes++;
    else {
      ncurved++;
      cs = (int)b[k];
    }
  }
  nplanes += naxis;
  if (ncurved > 1 || (ncurved == 1 && nplanes > 0)) {
    tm->ncon[i] = 3;
    if (ncodes == 2 && !naxis) tm->curved[i] = CIRCLE_NODE;
    return;
  }
  if (ncurved == 1) {
    tm->curved[i] = cs;
    tm->ncon[i] = 1;
    if (tm->nrm) hx_surface_normal(&m->surfaces[cs], tm->x0 + 3 * (size_t)i, tm->nrm + 9 * (size_t)i);
    return;
  }
  int nc = 0;
  double scratch[9], *N = tm->nrm ? tm->nrm + 9 * (size_t)i : scratch; /* the directions decide nc */
  for (int k = 0; k < ncodes && nc < 3; k++) {
    double v[3] = {0, 0, 0};
    if (b[k] >= CODE_AXIS) v[b[k] - CODE_AXIS] = 1.0;
    else memcpy(v, m->surfaces[b[k]].n, sizeof v);
    for (int q = 0; q < nc; q++) {
      double dd = v[0] * N[3 * q] + v[1] * N[3 * q + 1] + v[2] * N[3 * q + 2];
      for (int c = 0; c < 3; c++) v[c] -= dd * N[3 * q + c];
    }
    double nv = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (nv < 1e-8) continue; /* parallel planes: same constraint */
    for (int c = 0; c < 3; c++) N[3 * nc + c] = v[c] / nv;
    nc++;
  }
  tm->ncon[i] = nc;
}

static int build_constraints(hx_tmop *tm, int normals) {
  hx_mesh *m = tm->mesh;
  hx_lid nl = tm->nl;
  int nd = m->nd, npe = nd * nd * nd;
  enum { W = HX_GS_SET_WIDTH };
  uint32_t *set = NULL;
  HX_CALL(hx_malloc(((size_t)nl * W + 1) * sizeof(uint32_t), &set));
  /* the per-node arrays first written by the threads (on an order-7 mesh of 10^8 nodes these
     passes over fresh memory are seconds on one thread) */
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < (size_t)nl * W; i++) set[i] = HX_GS_SET_EMPTY;
  for (hx_lid f = 0; f < m->num_faces; f++) {
    const hx_bface *bf = &m->faces[f];
    int s = bf->surf;
    uint32_t code;
    if (tm->o.boundary == HX_BND_FIXED) code = CODE_FIXED;
    else if (s >= 0 && s < m->num_surfaces && (uint32_t)s < CODE_AXIS) code = (uint32_t)s;
    else {
      int d = s < 0 ? flat_axis_face(m, bf) : -1;
      code = d >= 0 ? CODE_AXIS + (uint32_t)d : CODE_FIXED;
    }
    const int d = bf->face / 2, fix = bf->face % 2 ? nd - 1 : 0; /* the face's nodes: index d at fix */
    for (int v = 0; v < nd; v++)
      for (int u = 0; u < nd; u++) {
        int I[3];
        I[d] = fix, I[(d + 1) % 3] = u, I[(d + 2) % 3] = v;
        hx_gs_set_insert(set + (size_t)tm->lmap->e2l[(size_t)bf->elem * npe + hx_lex(nd, I[0], I[1], I[2])] * W, code);
      }
  }
  if (tm->o.fixed_node)
    for (size_t a = 0; a < (size_t)m->num_elem * npe; a++)
      if (tm->o.fixed_node[a]) hx_gs_set_insert(set + (size_t)tm->lmap->e2l[a] * W, CODE_FIXED);
  int rc = hx_gs_union(tm->gs, set);
  if (!rc) rc = hx_malloc(((size_t)nl + 1) * sizeof(int), &tm->ncon);
  if (!rc) rc = hx_malloc(((size_t)nl + 1) * sizeof(int), &tm->curved);
  if (!rc && normals) rc = hx_malloc((9 * (size_t)nl + 1) * sizeof(double), &tm->nrm);
  if (!rc) {
#pragma omp parallel for schedule(static)
    for (hx_lid i = 0; i < nl; i++) tm->curved[i] = -1;
  }
  /* each node from its own set alone, in parallel; a node where two curved surfaces meet
     (CIRCLE_NODE) is left to the pass after, in node order, as it numbers the circles */
  if (!rc) {
#pragma omp parallel for schedule(dynamic, 4096)
    for (hx_lid i = 0; i < nl; i++)
      if (set[(size_t)i * W] != HX_GS_SET_EMPTY) node_constraint(tm, set + (size_t)i * W, i);
  }
  /* the circle nodes' positions: tm->x0's, or without it (normals 0) the same sums of their
     copies (hx_lmap_gather_ranked, into xc by their rank among the circle nodes) over the
     multiplicity */
  hx_lid *rank = NULL, ncn = 0;
  double *xc = NULL;
  if (!rc && !tm->x0) {
    for (hx_lid i = 0; i < nl; i++) ncn += tm->curved[i] == CIRCLE_NODE;
    if (ncn) rc = hx_malloc(((size_t)nl + 1) * sizeof *rank, &rank);
    if (!rc && ncn) rc = hx_malloc((3 * (size_t)ncn + 1) * sizeof *xc, &xc);
    if (!rc && ncn) {
      for (hx_lid i = 0, k = 0; i < nl; i++) rank[i] = tm->curved[i] == CIRCLE_NODE ? k++ : -1;
      hx_lmap_gather_ranked(tm->lmap, m, 3, m->x, rank, ncn, xc);
    }
  }
  for (hx_lid i = 0; i < nl && !rc; i++) {
    if (tm->curved[i] != CIRCLE_NODE) continue;
    tm->curved[i] = -1;
    const uint32_t *b = set + (size_t)i * W;
    double C[7], xi[3];
    for (int c = 0; c < 3; c++) xi[c] = tm->x0 ? tm->x0[3 * (size_t)i + c] : xc[3 * (size_t)rank[i] + c] / tm->lmap->mult[i];
    if (!surfaces_circle(&m->surfaces[b[0]], &m->surfaces[b[1]], xi, C)) continue;
    if (tm->ncirc % 256 == 0 && (rc = hx_realloc((size_t)(tm->ncirc + 256) * 7 * sizeof(double), &tm->circ))) break;
    memcpy(tm->circ + 7 * (size_t)tm->ncirc, C, sizeof C);
    tm->curved[i] = -2 - tm->ncirc++;
    tm->ncon[i] = 2;
    if (tm->nrm) track_normals(tm, tm->curved[i], tm->x0 + 3 * (size_t)i, tm->nrm + 9 * (size_t)i);
  }
  hx_free(&rank), hx_free(&xc);
  if (tm->o.debug) {
    long long cnt[4] = {0, 0, 0, 0};
    for (hx_lid i = 0; i < nl; i++) {
      if (set[(size_t)i * W] == HX_GS_SET_EMPTY) continue;
      if (tm->curved[i] <= -2) cnt[0]++;
      else if (tm->curved[i] >= 0) cnt[1]++;
      else if (tm->ncon[i] == 3) cnt[2]++;
      else cnt[3]++;
    }
    fprintf(stderr,
            "constraints: %d surfaces; boundary nodes: %lld on circles, %lld on one curved surface, %lld fixed, %lld on planes\n",
            m->num_surfaces, cnt[0], cnt[1], cnt[2], cnt[3]);
  }
  hx_free(&set);
  return rc;
}

/* ------------------------------------------------------------------ create / destroy */

/* the rank's L-space for an hx_pa over elements whose E -> L map is e2l */
static hx_lspace lspace_of(const hx_tmop *tm, const hx_lid *e2l) {
  return (hx_lspace){.nl = tm->nl,
                     .e2l = e2l,
                     .owned = tm->gs_active ? hx_gs_owned(tm->gs) : NULL,
                     .ncon = tm->ncon,
                     .nrm = tm->nrm,
                     .ncurved = tm->ncurved,
                     .curved = tm->cidx};
}

/* Hand the rank's numbering and constraints to the backend (once). */
static int setup_lspace(hx_tmop *tm) {
  hx_lid nc = 0;
  for (hx_lid i = 0; i < tm->nl; i++) nc += tm->curved[i] != -1;
  tm->ncurved = nc;
  HX_CALL(hx_malloc(((size_t)nc + 1) * sizeof(hx_lid), &tm->cidx));
  HX_CALL(hx_malloc(((size_t)nc + 1) * sizeof(int), &tm->csurf));
  HX_CALL(hx_malloc((9 * (size_t)nc + 1) * sizeof(double), &tm->hC));
  HX_CALL(tm->be->vec_alloc(tm->pa, 9 * (size_t)nc, &tm->dC));
  nc = 0;
  for (hx_lid i = 0; i < tm->nl; i++)
    if (tm->curved[i] != -1) {
      tm->cidx[nc] = i;
      tm->csurf[nc++] = tm->curved[i];
    }
  /* on a device backend the shared nodes, whose sums alone cross to the host (gs_sum_backend) */
  const unsigned char *sh = tm->gs_active && !tm->be->host_memory ? hx_gs_shared(tm->gs) : NULL;
  hx_lid ns = 0;
  for (hx_lid i = 0; sh && i < tm->nl; i++) ns += sh[i] != 0;
  tm->nshared = ns;
  HX_CALL(hx_malloc(((size_t)ns + 1) * sizeof(hx_lid), &tm->sidx));
  HX_CALL(hx_malloc((3 * (size_t)ns + 1) * sizeof(double), &tm->hS));
  if (!tm->be->host_memory) HX_CALL(tm->be->vec_alloc(tm->pa, 3 * (size_t)ns, &tm->dS));
  ns = 0;
  for (hx_lid i = 0; sh && i < tm->nl; i++)
    if (sh[i]) tm->sidx[ns++] = i;
  hx_lspace ls = lspace_of(tm, tm->lmap->e2l);
  ls.nshared = tm->nshared;
  ls.shared = tm->sidx;
  return tm->be->lsetup(tm->pa, &ls);
}

/* ------------------------------------------------------------------ adaptive quadrature */

static double now_sync(hx_tmop *tm);

static void part_free(hx_tmop *tm, int k) {
  struct hx_tmop_part *p = &tm->part[k];
  if (p->pa) {
    tm->be->vec_free(p->pa, &p->dX);
    tm->be->vec_free(p->pa, &p->dV);
    tm->be->vec_free(p->pa, &p->dY);
  }
  hx_pa_destroy(&p->pa);
  hx_free(&p->e2l);
  hx_free(&p->elems);
}

int hx_tmop_adapt_order(const hx_tmop *tm, int k) { return k == 0 ? tm->o.quad_order : tm->o.adapt_quad + 4 * (k - 1); }

/* Part k: the elements e with refined[e] == k, at level k's rule (no element: pa NULL). The
   problem's description, its per-element W cut to the part, the rank's L-space with the part's
   own E -> L map. */
static int part_build(hx_tmop *tm, int k) {
  part_free(tm, k);
  struct hx_tmop_part *p = &tm->part[k];
  const hx_mesh *m = tm->mesh;
  size_t n3 = (size_t)m->nd * m->nd * m->nd;
  hx_lid ne = 0;
  for (hx_lid e = 0; e < m->num_elem; e++) ne += tm->refined[e] == k;
  if (ne == 0) return HX_OK;
  hx_pa_desc d = tm->pdesc;
  d.quad_order = hx_tmop_adapt_order(tm, k);
  double *winv = NULL, *detw = NULL;
  int rc = hx_malloc(n3 * (size_t)ne * sizeof(hx_lid), &p->e2l);
  if (!rc) rc = hx_malloc((size_t)ne * sizeof(hx_lid), &p->elems);
  if (!rc && tm->winv_e) {
    rc = hx_malloc((9 * (size_t)ne + 1) * sizeof(double), &winv);
    if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof(double), &detw);
  }
  if (rc) goto out;
  hx_lid j = 0;
  for (hx_lid e = 0; e < m->num_elem; e++) {
    if (tm->refined[e] != k) continue;
    p->elems[j] = e;
    memcpy(p->e2l + (size_t)j * n3, tm->lmap->e2l + (size_t)e * n3, n3 * sizeof(hx_lid));
    if (winv) {
      memcpy(winv + 9 * (size_t)j, tm->winv_e + 9 * (size_t)e, 9 * sizeof(double));
      detw[j] = tm->detw_e[e];
    }
    j++;
  }
  d.Winv = winv, d.detW = detw, d.w_per_elem = winv != NULL;
  hx_mesh sub = *m; /* hx_pa_create reads the order and the element count (the limiting term's x0
                       aside, which adaptive quadrature does not take) */
  sub.num_elem = ne;
  sub.x = NULL;
  rc = hx_pa_create(tm->be, &sub, &d, &p->pa);
  if (rc) goto out;
  p->pa->scale = tm->pa->scale;
  size_t nE = (size_t)ne * 3 * n3;
  rc = tm->be->vec_alloc(p->pa, nE, &p->dX);
  if (!rc) rc = tm->be->vec_alloc(p->pa, nE, &p->dV);
  if (!rc) rc = tm->be->vec_alloc(p->pa, nE, &p->dY);
  if (!rc) { /* the numbering alone: a part's pa runs the element operators only (the
                constraints and the dot products are the whole pa's), so the per-node normals
                (9 doubles a node) are not copied at every rebuild */
    hx_lspace ls = lspace_of(tm, p->e2l);
    ls.owned = NULL, ls.ncon = NULL, ls.nrm = NULL, ls.ncurved = 0, ls.curved = NULL;
    rc = tm->be->lsetup(p->pa, &ls);
  }
out:
  hx_free(&winv);
  hx_free(&detw);
  if (rc) part_free(tm, k);
  return rc;
}

/* rebuild the parts whose membership changed (changed[k]; NULL: all) */
static int parts_rebuild(hx_tmop *tm, const int *changed) {
  hx_lid ne = tm->mesh->num_elem;
  int was = tm->nrefined > 0;
  tm->nrefined = 0;
  for (hx_lid e = 0; e < ne; e++) tm->nrefined += tm->refined[e] > 0;
  for (int k = 0; k <= HX_ADAPT_LEVELS; k++) {
    if (!tm->nrefined) part_free(tm, k);
    else if (!changed || changed[k] || !was) HX_CALL(part_build(tm, k));
  }
  return HX_OK;
}

int hx_tmop_adapt_set(hx_tmop *tm, const unsigned char *levels) {
  HX_CHECK(hx_tmop_adapt_possible(tm), HX_ERR_INPUT,
           "adaptive quadrature needs opts.adapt_quad > opts.quad_order, constant or per-element targets and no limiting term");
  hx_lid ne = tm->mesh->num_elem;
  if (!tm->refined) HX_CALL(hx_malloc((size_t)ne + 1, &tm->refined));
  if (levels)
    for (hx_lid e = 0; e < ne; e++) tm->refined[e] = levels[e] > HX_ADAPT_LEVELS ? HX_ADAPT_LEVELS : levels[e];
  return parts_rebuild(tm, NULL);
}

int hx_tmop_adapt_possible(const hx_tmop *tm) {
  const hx_tmop_opts *o = &tm->o;
  int w_ok = tm->pdesc.Winv == NULL && (o->target == HX_TARGET_IDEAL_SHAPE_UNIT_SIZE ||
                                        o->target == HX_TARGET_IDEAL_SHAPE_EQUAL_SIZE || tm->winv_e != NULL);
  return o->adapt_quad > o->quad_order && w_ok && o->lim_const == 0.0 && tm->dLs != NULL;
}

/* The indicator, per element below the top level: the first Bernstein bound of det J (its
   smallest coefficient, hx_detj_bound.h) against the smallest det J at its rule's quadrature
   points. The bound is within a few per cent of the minimum on a smooth element; far below it,
   det J dips between the points (or the element is too curved for the rule to see its shape), so
   the rule is not resolving the element. */
int hx_tmop_adapt(hx_tmop *tm, const double *x, long long *nnew) {
  *nnew = 0;
  if (!hx_tmop_adapt_possible(tm)) return HX_OK;
  double t = now_sync(tm);
  const hx_mesh *m = tm->mesh;
  hx_lid ne = m->num_elem;
  int npe = m->nd * m->nd * m->nd, rc = HX_OK;
  if (!tm->refined) HX_CALL(hx_malloc((size_t)ne + 1, &tm->refined));
  double *qmin = NULL, *low = NULL, *qp = NULL;
  int gpu = tm->be == &hx_backend_cuda;
  HX_CHECK(tm->be->min_detj_elem, HX_ERR_BACKEND, "adaptive quadrature: backend '%s' has no per-element det J", tm->be->name);
  rc = hx_malloc(3 * ((size_t)ne + 1) * sizeof(double), &qmin);
  low = qmin + ne + 1, qp = low + ne + 1;
  /* each element's smallest det J at its own rule's points, by the backend (per part) */
  if (!rc && !tm->nrefined) {
    rc = tm->be->l2e(tm->pa, x, tm->dV);
    if (!rc) rc = tm->be->min_detj_elem(tm->pa, tm->dV, qmin);
  }
  for (int k = 0; !rc && tm->nrefined && k <= HX_ADAPT_LEVELS; k++) {
    struct hx_tmop_part *p = &tm->part[k];
    if (!p->pa || k == HX_ADAPT_LEVELS) continue; /* the top level goes no higher */
    rc = tm->be->l2e(p->pa, x, p->dV);
    if (!rc) rc = tm->be->min_detj_elem(p->pa, p->dV, qp);
    for (hx_lid j = 0; !rc && j < p->pa->num_elem; j++) qmin[p->elems[j]] = qp[j];
  }
  /* the first Bernstein bound: on the device E-vector with cuda, else here (the E-vector is host
     memory) */
  if (!rc && tm->nrefined) rc = tm->be->l2e(tm->pa, x, tm->dV);
  if (!rc && gpu && ne > 0) rc = hx_detj_bound_first_cuda_dev(m->order, ne, tm->dV, low, NULL, NULL);
  int64_t cnt = 0;
  int err = 0, up[HX_ADAPT_LEVELS + 1] = {0};
  if (!rc) {
    const double *xE = tm->dV;
#pragma omp parallel reduction(+ : cnt) reduction(| : err)
    {
      hx_detj_bound_opts bo;
      hx_detj_bound_opts_default(&bo);
      bo.max_splits = 0;
      hx_detj_bound_ctx *bc = NULL;
      if (!gpu && hx_detj_bound_ctx_create(m->order, &bo, &bc)) err |= 1;
#pragma omp for schedule(dynamic, 16)
      for (hx_lid e = 0; e < ne; e++) {
        if (err || tm->refined[e] >= HX_ADAPT_LEVELS) continue;
        if (!gpu) {
          hx_detj_bound_result r;
          if (hx_detj_bound_elem(bc, xE + (size_t)e * 3 * npe, &r)) {
            err |= 1;
            continue;
          }
          low[e] = r.lower0;
        }
        if (low[e] < HX_ADAPT_RATIO * qmin[e]) {
          int k = tm->refined[e]++;
#pragma omp atomic write
          up[k] = 1;
          cnt++;
        }
      }
      hx_detj_bound_ctx_destroy(&bc);
    }
    if (err) rc = HX_ERROR(HX_ERR_MEMORY, "adaptive quadrature: no memory for the det J bound's work arrays");
  }
  hx_free(&qmin);
  if (!rc && cnt > 0) {
    int changed[HX_ADAPT_LEVELS + 1] = {0};
    for (int k = 0; k < HX_ADAPT_LEVELS; k++)
      if (up[k]) changed[k] = changed[k + 1] = 1;
    double tr = now_sync(tm);
    rc = parts_rebuild(tm, changed);
    tm->t_rebuild += now_sync(tm) - tr;
    tm->n_rebuild++;
  }
  HX_CALL(hx_comm_agree(m->comm, rc));
  HX_CALL(hx_comm_sum_int64(m->comm, &cnt, 1));
  *nnew = cnt;
  double dt = now_sync(tm) - t;
  tm->t_mindet += dt, tm->t_adapt += dt;
  tm->n_adapt++;
  return HX_OK;
}

/* The numbering part of a TMOP context: the rank's L-numbering and the shared-node exchange
   (hx_tmop_repair needs no more). *out is NULL only if its allocation failed; else the caller
   destroys it. */
int hx_tmop_numbering(hx_mesh *mesh, const hx_tmop_opts *o, hx_tmop **out) {
  hx_tmop *tm = NULL;
  *out = NULL;
  HX_CALL(hx_malloc(sizeof *tm, &tm));
  *out = tm;
  tm->mesh = mesh;
  tm->o = *o;
  int rc = hx_mesh_lnumbering(mesh, &tm->lmap);
  if (!rc) {
    tm->nl = tm->lmap->num_lnodes;
    tm->nL = 3 * (size_t)tm->nl;
    tm->nE = (size_t)mesh->num_elem * 3 * hx_mesh_nodes_per_elem(mesh);
    rc = hx_gs_create(mesh->comm, tm->nl, tm->lmap->l2g, &tm->gs);
    tm->gs_active = hx_comm_size(mesh->comm) > 1;
  }
  return rc;
}

/* The part of a TMOP context that needs no backend: hx_tmop_numbering's, the initial nodes as an
   L-vector and the boundary constraints (hx_tmop_create and hx_tmop_transfer). *out as there. */
int hx_tmop_base(hx_mesh *mesh, const hx_tmop_opts *o, int normals, hx_tmop **out) {
  double t0 = hx_tmop_now();
  int rc = hx_tmop_numbering(mesh, o, out);
  hx_tmop *tm = *out;
  if (!tm) return rc;
  double t1 = hx_tmop_now(), t2 = t1, t3 = t1;
  /* L-vector of the initial nodes: every copy of a node holds the same coordinates, so gather
     (sum) and divide by the multiplicity; without the normals (the transfer) the constraints
     read the circle nodes' alone (build_constraints gathers those) */
  if (!rc && normals) rc = hx_malloc((tm->nL + 1) * sizeof(double), &tm->x0);
  if (!rc && normals) {
    hx_lmap_gather(tm->lmap, mesh, 3, mesh->x, tm->x0);
#pragma omp parallel for schedule(static)
    for (hx_lid i = 0; i < tm->nl; i++)
      for (int c = 0; c < 3; c++) tm->x0[3 * (size_t)i + c] /= tm->lmap->mult[i];
  }
  if (!rc) {
    t2 = hx_tmop_now();
    rc = build_constraints(tm, normals);
    t3 = hx_tmop_now();
  }
  if (o->debug && hx_comm_rank(mesh->comm) == 0)
    fprintf(stderr, "set-up at order %d: %lld nodes; numbering %.2f s, initial nodes %.2f s, constraints %.2f s\n", mesh->order,
            (long long)tm->nl, t1 - t0, t2 - t1, t3 - t2);
  return rc;
}

int hx_tmop_create(hx_mesh *mesh, const hx_tmop_opts *o, hx_tmop **out) {
  const hx_metric_info *mi;
  HX_CALL(hx_metric_find(o->metric, &mi));
  HX_CHECK(o->target >= 1 && o->target <= HX_TARGET_UNTANGLE, HX_ERR_INPUT, "unknown target %d; known: 1, 2, 3, 4", o->target);
  const hx_backend *be;
  HX_CALL(hx_backend_find(o->backend ? o->backend : "auto", &be));
  hx_tmop *tm;
  int rc = hx_tmop_base(mesh, o, 1, &tm);
  if (!tm) return rc;
  tm->be = be;
  /* adaptive quadrature's auto: from order 4, the rule exact for 4 orders more (at p = 3 the
     Kershaw solves converge at -qo 8 without it, and sooner: benchmarks.md) */
  if (tm->o.adapt_quad < 0) tm->o.adapt_quad = mesh->order >= 4 ? o->quad_order + 4 : 0;
  /* the line search's det J rule, auto: the Bernstein bound up to order 4, where a pass costs 5-7 %
     of a Newton step on cuda and 6-13 % on the cpu, and where the node rule alone let Kershaw
     24^3 at p = 3 fold on the cpu (benchmarks.md); the GLL nodes above, where the bound's O(p^6)
     products cost more than the step */
  if (tm->o.detj_nodes == -1) tm->o.detj_nodes = mesh->order <= 4 ? 3 : 1;
  /* auto-fine (the pebble mesher's): the bound where it runs on the device up to order 4, the Gauss
     points N + 4 otherwise, a host pass that costs 70 % of a 300-sphere bed's order-3 solve on
     cuda and a fraction of the bound's passes on the cpu (benchmarks.md, "The quality path's time") */
  if (tm->o.detj_nodes == -2) tm->o.detj_nodes = be == &hx_backend_cuda && mesh->order <= 4 ? 3 : 2;
  if (!rc) rc = hx_malloc((tm->nL + 1) * sizeof(double), &tm->hL);
  double ts[5];
  ts[0] = hx_tmop_now();
  hx_pa_desc d;
  hx_pa_desc_default(&d);
  d.metric = o->metric;
  d.metric_param = o->metric_param;
  d.quad_type = o->quad_type;
  d.quad_order = o->quad_order;
  d.hess_strategy = o->hess_strategy;
  d.num_threads = o->num_threads;
  double *winv = NULL, *detw = NULL, *ldist = NULL;
  if (!rc) rc = build_target(mesh, o, &d, &winv, &detw);
  if (!rc) rc = limit_dist(mesh, o, &d, &ldist);
  ts[1] = hx_tmop_now();
  if (!rc) rc = hx_pa_create(be, mesh, &d, &tm->pa);
  ts[2] = hx_tmop_now();
  tm->pdesc = d;
  tm->pdesc.Winv = tm->pdesc.detW = tm->pdesc.lim_x0 = tm->pdesc.lim_dist_elem = NULL;
  if (!rc && d.Winv && d.w_per_elem && tm->o.adapt_quad > 0) {
    /* the parts of adaptive quadrature take their elements' W from these */
    tm->winv_e = winv, tm->detw_e = detw;
    winv = detw = NULL;
  }
  hx_free(&winv);
  hx_free(&detw);
  hx_free(&ldist);
  if (!rc) rc = be->vec_alloc(tm->pa, tm->nE, &tm->dX);
  if (!rc) rc = be->vec_alloc(tm->pa, tm->nE, &tm->dV);
  if (!rc) rc = be->vec_alloc(tm->pa, tm->nE, &tm->dY);
  if (!rc) rc = be->vec_alloc(tm->pa, tm->nL, &tm->dLa);
  if (!rc) rc = be->vec_alloc(tm->pa, tm->nL, &tm->dLb);
  if (!rc) rc = be->vec_alloc(tm->pa, tm->nL, &tm->dLt);
  if (!rc && tm->o.adapt_quad > 0) rc = be->vec_alloc(tm->pa, tm->nL, &tm->dLs);
  if (!rc) rc = setup_lspace(tm);
  ts[3] = hx_tmop_now();
  if (!rc && o->normalize) {
    double e0;
    rc = hx_tmop_energy(tm, tm->x0, &e0);
    if (!rc) tm->pa->scale = e0 > 0 ? 1.0 / e0 : 1.0;
  }
  /* the two-level preconditioner: from order 2 (at order 1 it is the problem itself) */
  if (!rc && o->precond == HX_PREC_TWOLEVEL && mesh->order >= 2) rc = hx_tmop_pmg_create(tm);
  ts[4] = hx_tmop_now();
  if (o->debug && hx_comm_rank(mesh->comm) == 0)
    fprintf(stderr,
            "set-up at order %d, the backend's: targets %.2f s, kernels' data %.2f s, vectors and L-space %.2f s, "
            "coarse level %.2f s\n",
            mesh->order, ts[1] - ts[0], ts[2] - ts[1], ts[3] - ts[2], ts[4] - ts[3]);
  rc = hx_comm_agree(mesh->comm, rc);
  if (rc) {
    hx_tmop_destroy(&tm);
    return rc;
  }
  *out = tm;
  return HX_OK;
}

void hx_tmop_destroy(hx_tmop **tmp) {
  if (!tmp || !*tmp) return;
  hx_tmop *tm = *tmp;
  hx_tmop_pmg_destroy(tm);
  for (int k = 0; k <= HX_ADAPT_LEVELS; k++) part_free(tm, k);
  hx_free(&tm->refined);
  hx_free(&tm->winv_e);
  hx_free(&tm->detw_e);
  if (tm->pa) {
    tm->be->vec_free(tm->pa, &tm->dLs);
    tm->be->vec_free(tm->pa, &tm->dX);
    tm->be->vec_free(tm->pa, &tm->dV);
    tm->be->vec_free(tm->pa, &tm->dY);
    tm->be->vec_free(tm->pa, &tm->dLa);
    tm->be->vec_free(tm->pa, &tm->dLb);
    tm->be->vec_free(tm->pa, &tm->dLt);
    tm->be->vec_free(tm->pa, &tm->dC);
    tm->be->vec_free(tm->pa, &tm->dS);
  }
  hx_pa_destroy(&tm->pa);
  hx_gs_destroy(&tm->gs);
  hx_lmap_destroy(&tm->lmap);
  hx_free(&tm->x0);
  hx_free(&tm->xstart);
  hx_free(&tm->hL);
  hx_free(&tm->cidx);
  hx_free(&tm->sidx);
  hx_free(&tm->hS);
  hx_free(&tm->csurf);
  hx_free(&tm->hC);
  hx_free(&tm->ncon);
  hx_free(&tm->curved);
  hx_free(&tm->circ);
  hx_free(&tm->nrm);
  hx_free(tmp);
}

size_t hx_tmop_size(const hx_tmop *tm) { return tm->nL; }
const double *hx_tmop_x0(const hx_tmop *tm) { return tm->x0; }
hx_pa *hx_tmop_pa(hx_tmop *tm) { return tm->pa; }
double hx_tmop_dot(const hx_tmop *tm, const double *a, const double *b) { return hx_gs_dot(tm->gs, a, b, 3); }

void hx_tmop_to_mesh(const hx_tmop *tm, const double *x, hx_mesh *mesh) { hx_lmap_scatter(tm->lmap, mesh, 3, x, mesh->x); }

/* ------------------------------------------------------------------ operators */

/* Operators on backend L-vectors: L -> E scatter, element kernel, E -> L gather
   on the backend; with several ranks the assembled vector's shared rows cross to the host
   for the shared-node exchange (hx_gs_sum) and back. */

/* Timer reads: with opts.sync_timers, wait for the backend first (a 1-double download), so
   that asynchronous kernels are charged to their operator (profiling only: it adds a
   synchronization per operator call). */
static double now_sync(hx_tmop *tm) {
  if (tm->o.sync_timers) {
    double t;
    (void)tm->be->vec_download(tm->pa, tm->dLt, &t, 1);
  }
  return hx_tmop_now();
}

/* On a device backend only the shared nodes' rows cross to the host: hx_gs_sum reads and writes
   no other entry of the host vector, so the sums are the same doubles as with the whole vector. */
static int gs_sum_backend(hx_tmop *tm, double *L) {
  if (!tm->gs_active) return HX_OK;
  if (tm->be->host_memory) return hx_gs_sum(tm->gs, L, 3);
  size_t ns = (size_t)tm->nshared;
  if (ns) {
    HX_CALL(tm->be->spick(tm->pa, L, tm->dS));
    HX_CALL(tm->be->vec_download(tm->pa, tm->dS, tm->hS, 3 * ns));
  }
  for (size_t k = 0; k < ns; k++)
    for (int c = 0; c < 3; c++) tm->hL[3 * (size_t)tm->sidx[k] + c] = tm->hS[3 * k + c];
  HX_CALL(hx_gs_sum(tm->gs, tm->hL, 3));
  if (!ns) return HX_OK;
  for (size_t k = 0; k < ns; k++)
    for (int c = 0; c < 3; c++) tm->hS[3 * k + c] = tm->hL[3 * (size_t)tm->sidx[k] + c];
  HX_CALL(tm->be->vec_upload(tm->pa, tm->hS, tm->dS, 3 * ns));
  return tm->be->sput(tm->pa, tm->dS, L);
}

int hx_tmop_dassemble(hx_tmop *tm, double *L) { return gs_sum_backend(tm, L); }

/* The hx_pa's the operators sum over, with their E-vectors: adaptive quadrature's parts in
   level order while elements are refined, else the whole rank (in *whole). Returns their count. */
static int op_parts(hx_tmop *tm, struct hx_tmop_part *whole, struct hx_tmop_part *ps[HX_ADAPT_LEVELS + 1]) {
  if (!tm->nrefined) {
    *whole = (struct hx_tmop_part){.pa = tm->pa, .dX = tm->dX, .dV = tm->dV, .dY = tm->dY};
    ps[0] = whole;
    return 1;
  }
  int n = 0;
  for (int k = 0; k <= HX_ADAPT_LEVELS; k++)
    if (tm->part[k].pa) ps[n++] = &tm->part[k];
  return n;
}

/* out = sum over op_parts of E -> L of op on the part's elements (op: 0 gradient at xin, 1
   Hessian action on xin, 2 Jacobi diagonal); one part writes out directly. */
static int parts_sum(hx_tmop *tm, int op, const double *xin, double *out) {
  struct hx_tmop_part whole, *ps[HX_ADAPT_LEVELS + 1];
  int n = op_parts(tm, &whole, ps);
  for (int k = 0; k < n; k++) {
    struct hx_tmop_part *p = ps[k];
    if (op < 2) HX_CALL(tm->be->l2e(p->pa, xin, p->dV));
    if (op == 0) HX_CALL(tm->be->grad(p->pa, p->dV, p->dY));
    else if (op == 1) HX_CALL(tm->be->hess_apply(p->pa, p->dV, p->dY));
    else HX_CALL(tm->be->diag(p->pa, p->dY));
    HX_CALL(tm->be->e2l(p->pa, p->dY, k ? tm->dLs : out));
    if (k) HX_CALL(tm->be->axpby(tm->pa, tm->nL, 1.0, tm->dLs, 1.0, out));
  }
  if (n == 0) HX_CALL(tm->be->vzero(tm->pa, tm->nL, out));
  return HX_OK;
}

int hx_tmop_denergy(hx_tmop *tm, const double *x, double *e) {
  double t = now_sync(tm);
  struct hx_tmop_part whole, *ps[HX_ADAPT_LEVELS + 1];
  int n = op_parts(tm, &whole, ps);
  *e = 0;
  for (int k = 0; k < n; k++) {
    double ek;
    HX_CALL(tm->be->l2e(ps[k]->pa, x, ps[k]->dV));
    HX_CALL(tm->be->energy(ps[k]->pa, ps[k]->dV, &ek));
    *e += ek;
  }
  HX_CALL(hx_comm_sum_double(tm->mesh->comm, e, 1));
  tm->t_energy += now_sync(tm) - t;
  tm->n_energy++;
  return HX_OK;
}

int hx_tmop_dgrad(hx_tmop *tm, const double *x, double *g, int raw) {
  double t = now_sync(tm);
  HX_CALL(parts_sum(tm, 0, x, g));
  HX_CALL(gs_sum_backend(tm, g));
  if (!raw) HX_CALL(tm->be->project(tm->pa, g, g));
  tm->t_grad += now_sync(tm) - t;
  tm->n_grad++;
  return HX_OK;
}

int hx_tmop_dhess_setup(hx_tmop *tm, const double *x) {
  double t = now_sync(tm);
  struct hx_tmop_part whole, *ps[HX_ADAPT_LEVELS + 1];
  int n = op_parts(tm, &whole, ps);
  for (int k = 0; k < n; k++) {
    HX_CALL(tm->be->l2e(ps[k]->pa, x, ps[k]->dX));
    HX_CALL(tm->be->hess_setup(ps[k]->pa, ps[k]->dX));
  }
  tm->t_hess_setup += now_sync(tm) - t;
  tm->n_hess_setup++;
  return HX_OK;
}

int hx_tmop_dhess_apply(hx_tmop *tm, const double *v, double *y, int raw) {
  double t = now_sync(tm);
  if (!raw && !tm->gs_active && !tm->nrefined) {
    /* one rank: the projections fused into the E <-> L passes (same numbers) */
    HX_CALL(tm->be->l2e_proj(tm->pa, v, tm->dV));
    HX_CALL(tm->be->hess_apply(tm->pa, tm->dV, tm->dY));
    HX_CALL(tm->be->e2l_constrain(tm->pa, tm->dY, v, y));
    tm->t_hess_apply += now_sync(tm) - t;
    tm->n_hess_apply++;
    return HX_OK;
  }
  const double *vin = v;
  if (!raw) {
    HX_CALL(tm->be->project(tm->pa, v, tm->dLt));
    vin = tm->dLt;
  }
  HX_CALL(parts_sum(tm, 1, vin, y));
  HX_CALL(gs_sum_backend(tm, y));
  if (!raw) HX_CALL(tm->be->constrain(tm->pa, v, y)); /* Pi H Pi v + (I - Pi) v */
  tm->t_hess_apply += now_sync(tm) - t;
  tm->n_hess_apply++;
  return HX_OK;
}

int hx_tmop_ddiag(hx_tmop *tm, double *d) {
  double t = now_sync(tm);
  HX_CALL(parts_sum(tm, 2, NULL, d));
  HX_CALL(gs_sum_backend(tm, d));
  tm->t_diag += now_sync(tm) - t;
  tm->n_diag++;
  return HX_OK;
}

int hx_tmop_dmin_detj(hx_tmop *tm, const double *x, double *m) {
  double t = now_sync(tm);
  struct hx_tmop_part whole, *ps[HX_ADAPT_LEVELS + 1];
  int n = op_parts(tm, &whole, ps);
  *m = HUGE_VAL;
  for (int k = 0; k < n; k++) {
    double mk;
    HX_CALL(tm->be->l2e(ps[k]->pa, x, ps[k]->dV));
    HX_CALL(tm->be->min_detj(ps[k]->pa, ps[k]->dV, &mk));
    if (isnan(mk) || mk < *m) *m = mk;
  }
  HX_CALL(hx_comm_min_double(tm->mesh->comm, m, 1));
  tm->t_mindet += now_sync(tm) - t;
  tm->n_mindet++;
  return HX_OK;
}

int hx_tmop_dmin_detj_nodes(hx_tmop *tm, const double *x, double *m) {
  double t = now_sync(tm);
  if (tm->be->min_detj_nodes) {
    HX_CALL(tm->be->l2e(tm->pa, x, tm->dV));
    HX_CALL(tm->be->min_detj_nodes(tm->pa, tm->dV, m));
  } else {
    /* host fallback: the positions down, scattered to elements, checked here */
    HX_CALL(tm->be->vec_download(tm->pa, x, tm->hL, tm->nL));
    double *xe = NULL;
    HX_CALL(hx_malloc((tm->nE + 1) * sizeof(double), &xe));
    hx_lmap_scatter(tm->lmap, tm->mesh, 3, tm->hL, xe);
    int rc = hx_min_detj_nodes_host(tm->mesh->nd, tm->mesh->num_elem, xe, tm->o.num_threads, m);
    hx_free(&xe);
    HX_CALL(rc);
  }
  HX_CALL(hx_comm_min_double(tm->mesh->comm, m, 1));
  tm->t_mindet += now_sync(tm) - t;
  return HX_OK;
}

/* The quality contexts of the fold tests between the GLL nodes: qc[0] the quality report's rule
   (hx_quality_opts_default), qc[1] Gauss points nd + 3 per direction (a finer grid, as a
   solver's dealiasing grid). A node-only test misses an element folded between its nodes (pb67
   at order 7 with the quadrature at the nodes: 3 648 elements). */
int hx_tmop_fold_ctx(int nd, int k, hx_quality_ctx **qc) {
  hx_quality_opts qo;
  hx_quality_opts_default(&qo);
  if (k) qo.quad_type = HX_QUAD_GL, qo.quad_points = nd + 3;
  return hx_quality_ctx_create(nd, &qo, qc);
}

/* The points' part of hx_tmop_fold_state on the GPU where the problem's backend is cuda and a device
   is present (the host keeps the GLL nodes' part and elem_ok): per element with only[e] (all where
   NULL) the smallest det J at the points of qc[0 .. nqc) into f, as the host loop would (the
   same rules; the sums may differ in the last bits). *done = 0 where it did not run: no device, a
   rule the kernel does not take (the host does it then). */
static int fold_points_device(const hx_tmop *tm, const double *xe, hx_quality_ctx *const *qc, int nqc, double *f,
                              const unsigned char *only, int *done) {
  *done = 0;
  const hx_backend *be = tm->be;
  if (!be && hx_backend_find(tm->o.backend ? tm->o.backend : "auto", &be)) {
    hx_error_clear();
    return HX_OK;
  }
  if (be != &hx_backend_cuda || !hx_cuda_device_available()) return HX_OK;
  const hx_mesh *m = tm->mesh;
  int nd = m->nd;
  size_t npe = (size_t)3 * nd * nd * nd;
  hx_lid ne = m->num_elem, nsel = 0, *sel = NULL;
  for (hx_lid e = 0; e < ne; e++) nsel += !only || only[e];
  if (!nsel) {
    *done = 1;
    return HX_OK;
  }
  const hx_lid chunk = 1 << 15; /* elements packed a call where only some are asked */
  int all = nsel == ne;
  hx_lid nb = all ? ne : (nsel < chunk ? nsel : chunk);
  double *buf = NULL, *fk = NULL;
  int rc = hx_malloc(((size_t)nb + 1) * sizeof *fk, &fk);
  if (!rc && !all) rc = hx_malloc(((size_t)nsel + 1) * sizeof *sel, &sel);
  if (!rc && !all) rc = hx_malloc(((size_t)nb * npe + 1) * sizeof *buf, &buf);
  if (!rc && !all) {
    hx_lid j = 0;
    for (hx_lid e = 0; e < ne; e++)
      if (only[e]) sel[j++] = e;
  }
  int ok = 1;
  for (hx_lid j0 = 0; j0 < nsel && !rc && ok; j0 += nb) {
    hx_lid cnt = nsel - j0 < nb ? nsel - j0 : nb;
    const double *x = xe;
    if (!all) {
#pragma omp parallel for schedule(static)
      for (hx_lid j = 0; j < cnt; j++) memcpy(buf + (size_t)j * npe, xe + (size_t)sel[j0 + j] * npe, npe * sizeof *buf);
      x = buf;
    }
    for (int k = 0; k < nqc && ok; k++) {
      const double *B, *G;
      hx_quality_ctx_rule(qc[k], &B, &G);
      if (hx_detj_points_min_cuda(nd, hx_quality_ctx_points(qc[k]), B, G, cnt, x, fk)) {
        hx_error_clear(); /* the host does it */
        ok = 0;
        break;
      }
      for (hx_lid j = 0; j < cnt; j++) { /* the host loop's rule: -1 where NaN, else the smallest over the sets */
        hx_lid e = all ? j : sel[j0 + j];
        f[e] = isnan(fk[j]) ? -1 : k ? fmin(f[e], fk[j]) : fk[j];
      }
    }
  }
  hx_free(&buf), hx_free(&fk), hx_free(&sel);
  *done = ok && !rc;
  return rc;
}

/* Per element of the E-vector xe (those with only[e], or all where only is NULL): unless NULL, the
   smallest det J at the points of qc[0 .. nqc) into f (-1 where NaN), the Nek5000 ratio at the
   GLL nodes into r, the aspect ratio into asp, tm->o.elem_ok's verdict (1 without one) into ok;
   only the parts asked for are evaluated (hx_quality_elem_parts); f on the GPU where the backend
   is cuda (fold_points_device). */
int hx_tmop_fold_state(const hx_tmop *tm, const double *xe, hx_quality_ctx *const *qc, int nqc, double *r, double *asp, double *f,
                       unsigned char *ok, const unsigned char *only) {
  const hx_mesh *m = tm->mesh;
  const hx_tmop_opts *o = &tm->o;
  size_t npe = (size_t)3 * m->nd * m->nd * m->nd;
  int rc = HX_OK, dev = 0;
  if (f) HX_CALL(fold_points_device(tm, xe, qc, nqc, f, only, &dev));
  /* each context's part that is asked for: the GLL nodes (r, asp) of the first, the points (f) of each */
  int nodes = r || asp ? HX_QUALITY_NODES : 0, pts = f && !dev ? HX_QUALITY_POINTS : 0;
#pragma omp parallel for schedule(dynamic, 64)
  for (hx_lid e = 0; e < m->num_elem; e++) {
    if (only && !only[e]) continue;
    double fm = HUGE_VAL;
    for (int k = 0; k < nqc; k++) {
      int parts = (k ? 0 : nodes) | pts;
      if (!parts) break;
      hx_elem_quality q;
      if (hx_quality_elem_parts(qc[k], xe + (size_t)e * npe, parts, &q)) {
#pragma omp atomic write
        rc = HX_ERR_MEMORY;
        continue;
      }
      if (pts) fm = isnan(q.detj_min_q) ? -1 : fmin(fm, q.detj_min_q);
      if (r && !k) r[e] = q.scaled_jac;
      if (asp && !k) asp[e] = q.aspect;
    }
    if (pts) f[e] = fm;
    if (ok) ok[e] = !o->elem_ok || o->elem_ok(o->elem_ok_ctx, e, xe + (size_t)e * npe) != 0;
  }
  return rc;
}

int hx_tmop_fold_initial(const hx_tmop *tm, const double *xe0, const double *xl0, hx_quality_ctx *const *qc, int nqc,
                         const double *f1, const unsigned char *w1, double *f0, unsigned char *w0, unsigned char *have) {
  const hx_mesh *m = tm->mesh;
  const hx_tmop_opts *o = &tm->o;
  size_t n3 = (size_t)m->nd * m->nd * m->nd;
  int rc = HX_OK;
#pragma omp parallel
  {
    double *xe = NULL;
    if (!xe0 && hx_malloc(3 * n3 * sizeof *xe, &xe)) {
#pragma omp atomic write
      rc = HX_ERR_MEMORY;
    }
#pragma omp for schedule(dynamic, 16)
    for (hx_lid e = 0; e < m->num_elem; e++) {
      if (have[e] || (f1[e] > 0 && w1[e]) || rc) continue;
      const double *x = xe0 ? xe0 + (size_t)e * 3 * n3 : xe;
      if (!xe0) /* the element's slice of the L-vector: E-node i of component c at 3 l + c */
        for (size_t i = 0; i < n3; i++)
          for (int c = 0; c < 3; c++) xe[c * n3 + i] = xl0[3 * (size_t)tm->lmap->e2l[(size_t)e * n3 + i] + c];
      double fm = HUGE_VAL;
      for (int k = 0; k < nqc; k++) {
        hx_elem_quality q;
        if (hx_quality_elem_parts(qc[k], x, HX_QUALITY_POINTS, &q)) {
#pragma omp atomic write
          rc = HX_ERR_MEMORY;
          break;
        }
        fm = isnan(q.detj_min_q) ? -1 : fmin(fm, q.detj_min_q);
      }
      f0[e] = fm;
      w0[e] = !o->elem_ok || o->elem_ok(o->elem_ok_ctx, e, x) != 0;
      have[e] = 1;
    }
    hx_free(&xe);
  }
  return rc ? HX_ERROR(rc, "fold state: no memory for an element's initial nodes") : HX_OK;
}

int hx_tmop_dmin_detj_fine(hx_tmop *tm, const double *x, double *m) {
  double t = now_sync(tm);
  HX_CALL(tm->be->vec_download(tm->pa, x, tm->hL, tm->nL));
  double *xe = NULL, *f = NULL;
  hx_quality_ctx *qc = NULL;
  int rc = hx_tmop_fold_ctx(tm->mesh->nd, 1, &qc);
  if (!rc) rc = hx_malloc((tm->nE + 1) * sizeof *xe, &xe);
  if (!rc) rc = hx_malloc(((size_t)tm->mesh->num_elem + 1) * sizeof *f, &f);
  if (!rc) {
    hx_lmap_scatter(tm->lmap, tm->mesh, 3, tm->hL, xe);
    rc = hx_tmop_fold_state(tm, xe, &qc, 1, NULL, NULL, f, NULL, NULL);
  }
  *m = HUGE_VAL;
  for (hx_lid e = 0; !rc && e < tm->mesh->num_elem; e++) *m = fmin(*m, f[e]);
  hx_free(&xe), hx_free(&f);
  hx_quality_ctx_destroy(&qc);
  HX_CALL(rc);
  HX_CALL(hx_comm_min_double(tm->mesh->comm, m, 1));
  tm->t_mindet += now_sync(tm) - t;
  return HX_OK;
}

int hx_tmop_dbound_invalid(hx_tmop *tm, const double *x, long long *ninv) {
  double t = now_sync(tm);
  const hx_mesh *m = tm->mesh;
  hx_lid ne = m->num_elem;
  int npe = m->nd * m->nd * m->nd, rc = HX_OK;
  /* on the GPU backend the first pass there, on the device E-vector (0 = undecided) */
  int *vd = NULL, gpu = tm->be == &hx_backend_cuda && ne > 0;
  hx_lid nund = ne;
  if (gpu) {
    rc = hx_malloc((size_t)ne * sizeof *vd, &vd);
    if (!rc) rc = tm->be->l2e(tm->pa, x, tm->dV);
    if (!rc) rc = hx_detj_bound_first_cuda_dev(m->order, ne, tm->dV, NULL, NULL, vd);
    nund = 0;
    for (hx_lid e = 0; !rc && e < ne; e++) nund += !vd[e];
  }
  /* the undecided elements (every element on the CPU) on the host, subdivided */
  if (!rc && nund > 0) rc = tm->be->vec_download(tm->pa, x, tm->hL, tm->nL);
  int64_t cnt = 0;
  int err = 0;
  if (!rc) {
    const hx_lid *e2l = tm->lmap->e2l;
    const double *hL = tm->hL;
#pragma omp parallel reduction(+ : cnt) reduction(| : err)
    {
      hx_detj_bound_opts bo;
      hx_detj_bound_opts_default(&bo);
      hx_detj_bound_ctx *bc = NULL;
      double *xe = NULL;
      if (nund > 0 && (hx_detj_bound_ctx_create(m->order, &bo, &bc) || hx_malloc((size_t)3 * npe * sizeof *xe, &xe))) err |= 1;
#pragma omp for schedule(dynamic, 16)
      for (hx_lid e = 0; e < ne; e++) {
        if (err) continue;
        if (vd && vd[e]) {
          cnt += vd[e] == HX_INVALID;
          continue;
        }
        for (int a = 0; a < npe; a++) {
          hx_lid l = e2l[(size_t)e * npe + a];
          for (int c = 0; c < 3; c++) xe[(size_t)c * npe + a] = hL[3 * (size_t)l + c];
        }
        hx_detj_bound_result r;
        if (hx_detj_bound_elem(bc, xe, &r)) err |= 1;
        else cnt += r.verdict == HX_INVALID;
      }
      hx_detj_bound_ctx_destroy(&bc);
      hx_free(&xe);
    }
    if (err) rc = HX_ERROR(HX_ERR_MEMORY, "the det J bound: no memory for its work arrays");
  }
  hx_free(&vd);
  HX_CALL(hx_comm_agree(m->comm, rc));
  HX_CALL(hx_comm_sum_int64(m->comm, &cnt, 1));
  *ninv = cnt;
  double dt = now_sync(tm) - t;
  tm->t_mindet += dt, tm->t_bound += dt;
  tm->n_bound++;
  return HX_OK;
}

int hx_tmop_ddot(hx_tmop *tm, const double *a, const double *b, double *out) {
  HX_CALL(tm->be->dot(tm->pa, a, b, out));
  return hx_comm_sum_double(tm->mesh->comm, out, 1);
}

int hx_tmop_dproject(hx_tmop *tm, double *v) { return tm->be->project(tm->pa, v, v); }

int hx_tmop_dupdate_normals(hx_tmop *tm, const double *x) {
  if (!tm->ncurved) return HX_OK;
  HX_CALL(tm->be->pick(tm->pa, x, tm->dC));
  HX_CALL(tm->be->vec_download(tm->pa, tm->dC, tm->hC, 3 * (size_t)tm->ncurved));
  /* positions (3 per node) -> normals (9 per node): backwards, in place */
  for (hx_lid k = tm->ncurved - 1; k >= 0; k--) {
    double p[3] = {tm->hC[3 * (size_t)k], tm->hC[3 * (size_t)k + 1], tm->hC[3 * (size_t)k + 2]};
    track_normals(tm, tm->csurf[k], p, tm->hC + 9 * (size_t)k);
  }
  HX_CALL(tm->be->vec_upload(tm->pa, tm->hC, tm->dC, 9 * (size_t)tm->ncurved));
  return tm->be->nrm_put(tm->pa, tm->dC);
}

int hx_tmop_dsnap(hx_tmop *tm, double *x) {
  if (!tm->ncurved) return HX_OK;
  HX_CALL(tm->be->pick(tm->pa, x, tm->dC));
  HX_CALL(tm->be->vec_download(tm->pa, tm->dC, tm->hC, 3 * (size_t)tm->ncurved));
  for (hx_lid k = 0; k < tm->ncurved; k++) {
    double *p = tm->hC + 3 * (size_t)k;
    hx_tmop_track_project(tm, tm->csurf[k], p, p);
  }
  HX_CALL(tm->be->vec_upload(tm->pa, tm->hC, tm->dC, 3 * (size_t)tm->ncurved));
  return tm->be->put(tm->pa, tm->dC, x);
}

/* Host-API wrappers: host L-vectors in and out (copied through backend scratch
   unless the backend works on host memory). */

static const double *host_in(hx_tmop *tm, const double *x, double *scratch, int *rc) {
  if (tm->be->host_memory) return x;
  *rc = tm->be->vec_upload(tm->pa, x, scratch, tm->nL);
  return scratch;
}

static int host_out(hx_tmop *tm, const double *dev, double *y) {
  if (tm->be->host_memory) return HX_OK;
  return tm->be->vec_download(tm->pa, dev, y, tm->nL);
}

int hx_tmop_energy(hx_tmop *tm, const double *x, double *e) {
  int rc = HX_OK;
  const double *xd = host_in(tm, x, tm->dLa, &rc);
  HX_CALL(rc);
  return hx_tmop_denergy(tm, xd, e);
}

int hx_tmop_grad_raw(hx_tmop *tm, const double *x, double *g) {
  int rc = HX_OK;
  const double *xd = host_in(tm, x, tm->dLa, &rc);
  HX_CALL(rc);
  double *gd = tm->be->host_memory ? g : tm->dLb;
  HX_CALL(hx_tmop_dgrad(tm, xd, gd, 1));
  return host_out(tm, gd, g);
}

int hx_tmop_grad(hx_tmop *tm, const double *x, double *g) {
  int rc = HX_OK;
  const double *xd = host_in(tm, x, tm->dLa, &rc);
  HX_CALL(rc);
  double *gd = tm->be->host_memory ? g : tm->dLb;
  HX_CALL(hx_tmop_dgrad(tm, xd, gd, 0));
  return host_out(tm, gd, g);
}

int hx_tmop_hess_setup(hx_tmop *tm, const double *x) {
  int rc = HX_OK;
  const double *xd = host_in(tm, x, tm->dLa, &rc);
  HX_CALL(rc);
  return hx_tmop_dhess_setup(tm, xd);
}

int hx_tmop_hess_apply(hx_tmop *tm, const double *v, double *y, int raw) {
  int rc = HX_OK;
  const double *vd = host_in(tm, v, tm->dLa, &rc);
  HX_CALL(rc);
  double *yd = tm->be->host_memory ? y : tm->dLb;
  HX_CALL(hx_tmop_dhess_apply(tm, vd, yd, raw));
  return host_out(tm, yd, y);
}

int hx_tmop_diag(hx_tmop *tm, double *d) {
  double *dd = tm->be->host_memory ? d : tm->dLb;
  HX_CALL(hx_tmop_ddiag(tm, dd));
  return host_out(tm, dd, d);
}

int hx_tmop_min_detj(hx_tmop *tm, const double *x, double *m) {
  int rc = HX_OK;
  const double *xd = host_in(tm, x, tm->dLa, &rc);
  HX_CALL(rc);
  return hx_tmop_dmin_detj(tm, xd, m);
}
