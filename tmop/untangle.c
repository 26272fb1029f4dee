/* Untangling: the solve that takes a mesh with det J <= 0 somewhere to one with det J > 0 at
   every checked point, before the optimization proper (docs/optimizer.md, "Untangling").

   design:
   1. Count the inverted elements: det J <= 0 at a GLL node, at a quadrature point of the
      quality report's rule, or at a Gauss point nd + 3 per direction (between the nodes).
      None: nothing to do.
   2. Set up a problem of its own: metric 1360, a shifted barrier around the non-barrier shape
      metric 360, mu = ((|T|^2 / 3)^(3/2) - tau) / (2 (tau - beta)), finite for tau > beta;
      target 5, W = h_e I with h_e from the element's edge lengths (|A|), which stays positive on
      an inverted element, so tau = det T is about 1 on a fair element of any size; every element
      weighted alike. The user's boundary treatment; no hold-back, no repair.
   3. Every Newton step: tau_min, the smallest det T over the solver's quadrature points and the
      check points of step 1; the shift beta = 1.5 tau_min - eps (eps = 1e-3: below tau_min, and
      rising towards -eps as the mesh unfolds; MFEM's shifted barrier with alpha = 1.5); the
      energy, gradient and Hessian at beta; MINRES + Jacobi for the direction; a line search
      (s = 1, halving, 12 trials) that takes the first trial with a finite energy below the
      step's (mu is +infinity where tau <= beta, so the rule is tau - beta > 0 at every
      quadrature point), else the same with the steepest-descent direction D^-1 r.
   4. Where no check point has det J <= 0, the Bernstein bound of det J (hx_detj_bound.h) looks
      between them: an element it finds invalid counts as inverted (its smallest det T found sets
      beta), and the steps go on. Stop when no element is inverted so ("untangled"), at opts.untangle_iters
      steps, when neither direction passes the line search, or after NO_PROGRESS steps without a
      better iterate. The iterate with the fewest inverted elements (then the largest tau_min) is
      kept; it goes into the mesh, with HX_ERR_INVALID_MESH where some element is still inverted. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hx_detj_bound.h"
#include "hx_error.h"
#include "hx_invariants.h"
#include "hx_memory.h"
#include "hx_quality.h"
#include "hx_tmop_impl.h"

#define BE (tm->be)
#define PA (tm->pa)

/* the shift's margin below alpha tau_min, in units of a fair element's det T (1) */
static const double UNTANGLE_EPS = 1e-3, UNTANGLE_ALPHA = 1.5;
/* steps without a better iterate before the solve gives up */
enum { NO_PROGRESS = 30 };

/* The check points of step 1 for one element's nodes xe ([3][nd^3]): the smallest det J at the
   GLL nodes and the quality report's quadrature points (qc[0]) and the Gauss points nd + 3 per
   direction (qc[1]); NaN counts as -1. */
static double elem_check_min(hx_quality_ctx *const *qc, const double *xe, int *err) {
  double fm = HUGE_VAL;
  for (int k = 0; k < 2; k++) {
    hx_elem_quality q;
    if (hx_quality_elem(qc[k], xe, &q)) {
      *err = 1;
      return -1;
    }
    if (isnan(q.detj_min_q) || isnan(q.detj_min)) return -1;
    fm = fmin(fm, q.detj_min_q);
    if (!k) fm = fmin(fm, q.detj_min);
  }
  return fm;
}

/* Per element of the E-vector xe: emin[e] = the smallest det J at its check points (step 1); with
   pa, the smallest at the solver's quadrature points too, each scaled to det T (by pa's per-element
   W^-1: target 5). *ninv = global count of the elements with emin <= 0, *tau_min the global
   smallest. */
static int check_state(const hx_mesh *m, const hx_pa *pa, const double *xe, hx_quality_ctx *const *qc, double *emin,
                       long long *ninv, double *tau_min) {
  size_t npe = (size_t)3 * m->nd * m->nd * m->nd;
  int nd = m->nd, nq = pa ? pa->nq : 0, err = 0;
  size_t nq3 = (size_t)nq * nq * nq, nwork = (size_t)3 * nd * nd * nq + (size_t)3 * nd * nq * nq + 16;
  int64_t cnt = 0;
  double tmin = HUGE_VAL;
#pragma omp parallel reduction(+ : cnt) reduction(min : tmin) reduction(| : err)
  {
    double *A = NULL, *work = NULL;
    if (pa && (hx_malloc((9 * nq3 + 1) * sizeof *A, &A) || hx_malloc(nwork * sizeof *work, &work))) err |= 1;
#pragma omp for schedule(dynamic, 64)
    for (hx_lid e = 0; e < m->num_elem; e++) {
      if (err) continue;
      const double *x = xe + (size_t)e * npe;
      double f = elem_check_min(qc, x, &err);
      if (pa) {
        hx_elem_jacobian_host(nd, nq, pa->B, pa->G, x, A, work);
        for (size_t q = 0; q < nq3; q++) f = fmin(f, hx_m3_det(A + 9 * q));
        double wi = pa->Winv[9 * (size_t)e];
        f *= wi * wi * wi;
      }
      emin[e] = f;
      cnt += !(f > 0);
      tmin = fmin(tmin, f);
    }
    hx_free(&A), hx_free(&work);
  }
  int rc = err ? HX_ERROR(HX_ERR_MEMORY, "untangling: no memory for the det J checks") : HX_OK;
  rc = hx_comm_agree(m->comm, rc);
  HX_CALL(rc);
  HX_CALL(hx_comm_sum_int64(m->comm, &cnt, 1));
  HX_CALL(hx_comm_min_double(m->comm, &tmin, 1));
  *ninv = cnt;
  *tau_min = tmin;
  return HX_OK;
}

/* Where no check point of step 1 has det J <= 0 (*ninv = 0): the elements that the Bernstein
   bound of det J finds invalid (a point between the checked ones with det J <= 0) count as
   inverted too, their smallest det T found into emin and *tau_min. */
static int bound_state(const hx_mesh *m, const hx_pa *pa, const double *xe, double *emin, long long *ninv, double *tau_min) {
  size_t npe = (size_t)3 * m->nd * m->nd * m->nd;
  int64_t cnt = 0;
  int err = 0;
  double tmin = *tau_min;
#pragma omp parallel reduction(+ : cnt) reduction(min : tmin) reduction(| : err)
  {
    hx_detj_bound_opts bo;
    hx_detj_bound_opts_default(&bo);
    hx_detj_bound_ctx *bc = NULL;
    if (hx_detj_bound_ctx_create(m->order, &bo, &bc)) err |= 1;
#pragma omp for schedule(dynamic, 16)
    for (hx_lid e = 0; e < m->num_elem; e++) {
      if (err) continue;
      hx_detj_bound_result r;
      hx_detj_bound_elem(bc, xe + (size_t)e * npe, &r);
      if (r.verdict != HX_INVALID) continue;
      double wi = pa->Winv[9 * (size_t)e];
      emin[e] = r.min_found * wi * wi * wi;
      cnt++;
      tmin = fmin(tmin, emin[e]);
    }
    hx_detj_bound_ctx_destroy(&bc);
  }
  int rc = err ? HX_ERROR(HX_ERR_MEMORY, "untangling: no memory for the det J bound") : HX_OK;
  HX_CALL(hx_comm_agree(m->comm, rc));
  HX_CALL(hx_comm_sum_int64(m->comm, &cnt, 1));
  HX_CALL(hx_comm_min_double(m->comm, &tmin, 1));
  *ninv = cnt;
  *tau_min = tmin;
  return HX_OK;
}

int hx_tmop_count_inverted(const hx_mesh *mesh, long long *count) {
  hx_quality_ctx *qc[2] = {NULL, NULL};
  double *f = NULL, tmin;
  int rc = HX_OK;
  for (int k = 0; k < 2 && !rc; k++) rc = hx_tmop_fold_ctx(mesh->nd, k, &qc[k]);
  if (!rc) rc = hx_malloc(((size_t)mesh->num_elem + 1) * sizeof *f, &f);
  rc = hx_comm_agree(mesh->comm, rc);
  if (!rc) rc = check_state(mesh, NULL, mesh->x, qc, f, count, &tmin);
  hx_free(&f);
  hx_quality_ctx_destroy(&qc[0]), hx_quality_ctx_destroy(&qc[1]);
  return rc;
}

/* The untangling line search along -c from x at energy E: the first of s = 1, 1/2, ... (12
   trials) whose x_s (curved-surface nodes projected back) has a finite energy below E. */
static int search(hx_tmop *tm, const double *x, const double *c, double E, double *xt, double *Et, double *st, int *ok) {
  double s = 1.0;
  *ok = 0;
  for (int trial = 0; trial < 12; trial++, s *= 0.5) {
    HX_CALL(BE->waxpy(PA, tm->nL, xt, x, -s, c));
    HX_CALL(hx_tmop_dsnap(tm, xt));
    HX_CALL(hx_tmop_denergy(tm, xt, Et));
    if (isfinite(*Et) && *Et < E) {
      *ok = 1;
      *st = s;
      return HX_OK;
    }
  }
  return HX_OK;
}

int hx_tmop_untangle(hx_mesh *mesh, const hx_tmop_opts *o, hx_tmop_result *res) {
  double t_start = hx_tmop_now();
  memset(res, 0, sizeof *res);
  hx_quality_ctx *qc[2] = {NULL, NULL};
  double *emin = NULL, *xe = NULL;
  hx_tmop *tm = NULL;
  double *x = NULL, *xt = NULL, *r = NULL, *c = NULL, *xbest = NULL;
  int rank = hx_comm_rank(mesh->comm);
  FILE *log = rank == 0 ? o->log : NULL;
  int rc = HX_OK;
  for (int k = 0; k < 2 && !rc; k++) rc = hx_tmop_fold_ctx(mesh->nd, k, &qc[k]);
  if (!rc) rc = hx_malloc(((size_t)mesh->num_elem + 1) * sizeof *emin, &emin);
  rc = hx_comm_agree(mesh->comm, rc);
  double tau_min;
  long long ninv = 0;
  if (!rc) rc = check_state(mesh, NULL, mesh->x, qc, emin, &ninv, &tau_min);
  res->inverted0 = res->inverted = ninv;
  if (rc || ninv == 0) goto done;
  res->untangled = 1;
  snprintf(res->untangle_stop, sizeof res->untangle_stop, "iteration cap");

  hx_tmop_opts u = *o;
  u.metric = 1360;
  u.metric_param = -1.0; /* replaced before the first step */
  u.target = HX_TARGET_UNTANGLE;
  u.normalize = 0;
  u.keep_sj = 0, u.keep_aspect = 0, u.transfer_keep = 0, u.repair_sj = 0;
  u.elem_ok = NULL, u.elem_weight = NULL;
  u.lim_const = 0; /* no limiting towards the inverted mesh: the optimization after it limits towards
                      the untangled one */
  /* Jacobi alone: the order-1 copy of an inverted mesh has no valid corners for the two-level
     correction, and the shift of its metric would be the fine problem's per step */
  u.precond = HX_PREC_JACOBI;
  if ((rc = hx_tmop_create(mesh, &u, &tm))) goto done;
  size_t n = tm->nL;
  double *bufs[5] = {0};
  for (int k = 0; k < 5 && !rc; k++) rc = BE->vec_alloc(PA, n, &bufs[k]);
  if (!rc) rc = hx_malloc((tm->nE + 1) * sizeof *xe, &xe);
  rc = hx_comm_agree(mesh->comm, rc);
  x = bufs[0], xt = bufs[1], r = bufs[2], c = bufs[3], xbest = bufs[4];
  if (!rc) rc = BE->vec_upload(PA, tm->x0, x, n);
  if (!rc) rc = BE->axpby(PA, n, 1.0, x, 0.0, xbest);
  if (rc) goto done_tm;
  if (log)
    fprintf(log, "untangle: %lld of %lld element(s) inverted (det J <= 0 at a GLL node, quadrature or Gauss point)\n", ninv,
            (long long)mesh->num_elem_global);
  long long best_inv = -1;
  double best_tau = -HUGE_VAL;
  int since_best = 0, it;
  for (it = 0;; it++) {
    /* the state of x: inverted elements and tau_min at the check and quadrature points */
    if ((rc = BE->vec_download(PA, x, tm->hL, n))) break;
    hx_lmap_scatter(tm->lmap, mesh, 3, tm->hL, xe);
    if ((rc = check_state(mesh, PA, xe, qc, emin, &ninv, &tau_min))) break;
    if (!ninv && (rc = bound_state(mesh, PA, xe, emin, &ninv, &tau_min))) break;
    if (best_inv < 0 || ninv < best_inv || (ninv == best_inv && tau_min > best_tau)) {
      best_inv = ninv, best_tau = tau_min, since_best = 0;
      if ((rc = BE->axpby(PA, n, 1.0, x, 0.0, xbest))) break;
    } else since_best++;
    if (ninv == 0) {
      snprintf(res->untangle_stop, sizeof res->untangle_stop, "untangled");
      break;
    }
    if (it >= o->untangle_iters) break;
    if (since_best >= NO_PROGRESS) {
      snprintf(res->untangle_stop, sizeof res->untangle_stop, "no progress in %d steps", NO_PROGRESS);
      break;
    }
    /* the shift for this step (tau_min <= 0 here: beta < tau_min) */
    double beta = UNTANGLE_ALPHA * fmin(tau_min, 0.0) - UNTANGLE_EPS;
    PA->metric_param = beta;
    double E;
    if ((rc = hx_tmop_denergy(tm, x, &E))) break;
    if ((rc = hx_tmop_dupdate_normals(tm, x))) break;
    if ((rc = hx_tmop_dgrad(tm, x, r, 0))) break;
    if ((rc = hx_tmop_dhess_setup(tm, x))) break;
    int li = 0, ok = 0, steep = 0;
    double Et = E, s = 0;
    if ((rc = hx_tmop_direction(tm, r, c, 1e-4, o->linear_iters, 0, &li))) break;
    res->linear_iters += li;
    if ((rc = search(tm, x, c, E, xt, &Et, &s, &ok))) break;
    if (!ok) {
      steep = 1;
      if ((rc = hx_tmop_direction(tm, r, c, 0, 0, 1, &li))) break;
      if ((rc = search(tm, x, c, E, xt, &Et, &s, &ok))) break;
    }
    if (log)
      fprintf(log, "untangle %3d  inverted %lld  min det T %.4e  beta %.4e  energy %.6e -> %.6e  lin %3d  step %.4f%s\n", it + 1,
              ninv, tau_min, beta, E, ok ? Et : E, li, ok ? s : 0.0,
              !ok     ? "  line search failed"
              : steep ? "  steepest"
                      : "");
    if (!ok) {
      snprintf(res->untangle_stop, sizeof res->untangle_stop, "line search failed");
      break;
    }
    double *sw = x;
    x = xt, xt = sw;
    res->untangle_iters = it + 1;
  }
  bufs[0] = x, bufs[1] = xt;
  if (!rc) {
    res->inverted = best_inv;
    rc = BE->vec_download(PA, xbest, tm->hL, n);
  }
  if (!rc) hx_tmop_to_mesh(tm, tm->hL, mesh);
  if (!rc && log)
    fprintf(log, "untangle: %lld -> %lld inverted element(s) in %d Newton step(s), %s\n", res->inverted0, res->inverted,
            res->untangle_iters, res->untangle_stop);
  if (!rc && res->inverted > 0)
    rc = HX_ERROR(HX_ERR_INVALID_MESH,
                  "untangling left %lld of %lld inverted element(s) inverted (det J <= 0 at a GLL node, quadrature or Gauss "
                  "point; min det J / h^3 %.3e) after %d Newton step(s): %s",
                  res->inverted, res->inverted0, best_tau, res->untangle_iters, res->untangle_stop);
done_tm:
  for (int k = 0; k < 5; k++)
    if (tm) BE->vec_free(PA, &bufs[k]);
  hx_tmop_destroy(&tm);
done:
  hx_free(&emin), hx_free(&xe);
  hx_quality_ctx_destroy(&qc[0]), hx_quality_ctx_destroy(&qc[1]);
  res->untangle_time = hx_tmop_now() - t_start;
  return rc;
}
