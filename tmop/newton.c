/* Newton's method for grad F = 0 with MINRES or CG + Jacobi, Eisenstat-Walker
   forcing and the line search of MFEM's TMOPNewtonSolver. This is the
   pure solve (hx_tmop_solve) on a problem set up by tmop.c: what to do with its result
   (keep-sj, repair) is the drivers' business (repair.c), never called from here.

   design:
   1. r = Pi grad F(x); stop when |r| <= rtol |r0|, at the iteration cap, or when
      the line search fails.
   2. Linearize at x (hess_setup), Jacobi from |diag| (constrained directions 1),
      solve (Pi H Pi + I - Pi) c = r to the forcing tolerance.
   3. Line search from s = 1, halving, at most 12 trials: x_s = x - s c, nodes on
      curved surfaces projected back; reject if min det J <= 0 at any quadrature
      point (and, unless opts.detj_nodes = 0, at any GLL node; with 2 also at Gauss points
      nd + 3 per direction), if E_s > E + 0.2 |E| or NaN (strict mode: E_s >= E), or if
      |r_s| > 1.2 |r|. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "hx_metrics.h"
#include "hx_tmop_impl.h"

/* Every vector below is a backend L-vector (device memory for cuda); the loop
   sees only scalars: dot products, energies, min det J. */
typedef struct lin_ws {
  double *dinv; /* [nL] 1/|diag| on free directions */
  double *v[8];
} lin_ws;

#define BE (tm->be)
#define PA (tm->pa)

/* z = M^{-1} r = Pi D^{-1} Pi r + (I - Pi) r (backend precond), */
/* fused with the dot product that follows (global: MPI sum of the local value) */
static int precond_dot(hx_tmop *tm, const double *dinv, const double *r, double *z, double *rz) {
  HX_CALL(BE->precond_dot(PA, dinv, r, z, rz));
  return hx_comm_sum_double(tm->mesh->comm, rz, 1);
}
static int axpby_dot(hx_tmop *tm, double a, const double *x, double *y, const double *w, double *wy) {
  HX_CALL(BE->axpby_dot(PA, tm->nL, a, x, 1.0, y, w, wy));
  return hx_comm_sum_double(tm->mesh->comm, wy, 1);
}

/* Preconditioned MINRES (Paige & Saunders) for A x = b, x0 = 0. Returns iterations. */
static int minres(hx_tmop *tm, lin_ws *w, const double *b, double *x, double rtol, int maxit, int *iters) {
  size_t n = tm->nL;
  double *r1 = w->v[0], *r2 = w->v[1], *y = w->v[2], *v = w->v[3], *wv = w->v[4], *w1 = w->v[5], *w2 = w->v[6];
  HX_CALL(BE->vzero(PA, n, x));
  HX_CALL(BE->axpby(PA, n, 1.0, b, 0.0, r1));
  double beta1;
  HX_CALL(precond_dot(tm, w->dinv, r1, y, &beta1));
  *iters = 0;
  if (!(beta1 > 0)) return HX_OK;
  beta1 = sqrt(beta1);
  HX_CALL(BE->axpby(PA, n, 1.0, r1, 0.0, r2));
  HX_CALL(BE->vzero(PA, n, wv));
  HX_CALL(BE->vzero(PA, n, w2));
  double oldb = 0, beta = beta1, dbar = 0, epsln = 0, phibar = beta1, cs = -1, sn = 0;
  for (int it = 1; it <= maxit; it++) {
    double s = 1.0 / beta;
    HX_CALL(BE->axpby(PA, n, s, y, 0.0, v));
    HX_CALL(hx_tmop_dhess_apply(tm, v, y, 0));
    double alfa;
    if (it >= 2) HX_CALL(axpby_dot(tm, -(beta / oldb), r1, y, v, &alfa));
    else HX_CALL(hx_tmop_ddot(tm, v, y, &alfa));
    HX_CALL(BE->axpby(PA, n, -(alfa / beta), r2, 1.0, y));
    /* r1 <- r2, r2 <- y, y <- free (rotate the buffers: no copies) */
    double *t0 = r1;
    r1 = r2;
    r2 = y;
    y = t0;
    oldb = beta;
    HX_CALL(precond_dot(tm, w->dinv, r2, y, &beta));
    beta = beta > 0 ? sqrt(beta) : 0;
    double oldeps = epsln;
    double delta = cs * dbar + sn * alfa;
    double gbar = sn * dbar - cs * alfa;
    epsln = sn * beta;
    dbar = -cs * beta;
    double gamma = sqrt(gbar * gbar + beta * beta);
    if (gamma < 1e-300) gamma = 1e-300;
    cs = gbar / gamma;
    sn = beta / gamma;
    double phi = cs * phibar;
    phibar = sn * phibar;
    double denom = 1.0 / gamma;
    double *t = w1;
    w1 = w2;
    w2 = wv;
    wv = t;
    /* wv = (v - oldeps w1 - delta w2) / gamma; x += phi wv */
    HX_CALL(BE->lc3(PA, n, wv, v, -oldeps, w1, -delta, w2, denom));
    HX_CALL(BE->axpby(PA, n, phi, wv, 1.0, x));
    *iters = it;
    if (phibar <= rtol * beta1 || beta == 0) break;
  }
  return HX_OK;
}

/* Preconditioned CG for A x = b, x0 = 0. */
static int cg(hx_tmop *tm, lin_ws *w, const double *b, double *x, double rtol, int maxit, int *iters) {
  size_t n = tm->nL;
  double *r = w->v[0], *z = w->v[1], *p = w->v[2], *q = w->v[3];
  HX_CALL(BE->vzero(PA, n, x));
  HX_CALL(BE->axpby(PA, n, 1.0, b, 0.0, r));
  double rz;
  HX_CALL(precond_dot(tm, w->dinv, r, z, &rz));
  HX_CALL(BE->axpby(PA, n, 1.0, z, 0.0, p));
  double rz0 = rz;
  *iters = 0;
  if (!(rz0 > 0)) return HX_OK;
  for (int it = 1; it <= maxit; it++) {
    HX_CALL(hx_tmop_dhess_apply(tm, p, q, 0));
    double pq;
    HX_CALL(hx_tmop_ddot(tm, p, q, &pq));
    *iters = it;
    if (!(pq > 0)) break; /* not positive definite here: keep what we have */
    double a = rz / pq;
    HX_CALL(BE->axpby(PA, n, a, p, 1.0, x));
    HX_CALL(BE->axpby(PA, n, -a, q, 1.0, r));
    double rzn;
    HX_CALL(precond_dot(tm, w->dinv, r, z, &rzn));
    if (rzn <= rtol * rtol * rz0) break;
    HX_CALL(BE->axpby(PA, n, 1.0, z, rzn / rz, p));
    rz = rzn;
  }
  return HX_OK;
}

static int norm(hx_tmop *tm, const double *v, double *out) {
  HX_CALL(hx_tmop_ddot(tm, v, v, out));
  *out = sqrt(*out);
  return HX_OK;
}

int hx_tmop_solve(hx_tmop *tm, double *xout, hx_tmop_result *res) {
  hx_mesh *mesh = tm->mesh;
  const hx_tmop_opts *o = &tm->o;
  double t_start = hx_tmop_now();
  memset(res, 0, sizeof *res);
  const hx_metric_info *mi;
  HX_CALL(hx_metric_find(o->metric, &mi));
  size_t n = tm->nL;
  int rank = hx_comm_rank(mesh->comm);
  double *x = NULL, *xt = NULL, *r = NULL, *rt = NULL, *c = NULL;
  lin_ws w = {0};
  int rc = HX_OK;
  double *bufs[5] = {0};
  for (int k = 0; k < 5 && !rc; k++) rc = BE->vec_alloc(PA, n, &bufs[k]);
  for (int k = 0; k < 7 && !rc; k++) rc = BE->vec_alloc(PA, n, &w.v[k]);
  if (!rc) rc = BE->vec_alloc(PA, n, &w.dinv);
  if (rc) goto done;
  x = bufs[0], xt = bufs[1], r = bufs[2], rt = bufs[3], c = bufs[4];
  if ((rc = BE->vec_upload(PA, tm->x0, x, n))) goto done;
  hx_gid nnodes = 0;
  for (hx_lid i = 0; i < tm->nl; i++) nnodes += hx_gs_owned(tm->gs)[i];
  hx_comm_sum_int64(mesh->comm, &nnodes, 1);
  res->vector_dofs = 3 * (long long)nnodes;

  double E, mind;
  if ((rc = hx_tmop_dmin_detj(tm, x, &mind))) goto done;
  res->min_detj0 = res->min_detj = mind;
  if (!(mind > 0) && mi->barrier) {
    rc = HX_ERROR(HX_ERR_INVALID_MESH,
                  "the mesh has det J = %.3e <= 0 at a quadrature point; metric %d is a barrier metric and "
                  "needs a valid mesh (untangling is not available)",
                  mind, o->metric);
    goto done;
  }
  /* det J at the GLL nodes too (a fold between quadrature points is invisible to
     the energy; the writers refuse it), unless the mesh starts with one there */
  int node_check = o->detj_nodes, fine_check = o->detj_nodes == 2;
  if (node_check) {
    double mn0;
    if ((rc = hx_tmop_dmin_detj_nodes(tm, x, &mn0))) goto done;
    node_check = mn0 > 0;
  }
  if (fine_check) {
    double mf0;
    if ((rc = hx_tmop_dmin_detj_fine(tm, x, &mf0))) goto done;
    fine_check = mf0 > 0;
  }
  if ((rc = hx_tmop_denergy(tm, x, &E))) goto done;
  if ((rc = hx_tmop_dgrad(tm, x, r, 0))) goto done;
  res->energy0 = res->energy = E;
  double rn;
  if ((rc = norm(tm, r, &rn))) goto done;
  double rn0 = rn;
  if (o->log && rank == 0)
    fprintf(o->log, "newton %3d  energy %.10e  |r| %.4e  lin %3d  step %.4f  min detJ %.4e\n", 0, E, rn, 0, 0.0, mind);
  /* Eisenstat-Walker type 1 state */
  double eta = 0.5, eta_prev = 0.5, lin_res_prev = 0, rn_prev = rn;
  const double ew_alpha = 0.5 * (1.0 + sqrt(5.0));
  snprintf(res->stop_reason, sizeof res->stop_reason, "iteration cap");
  int it;
  for (it = 0; it < o->newton_iters; it++) {
    if (rn <= o->newton_rtol * rn0 || rn == 0) {
      res->converged = 1;
      snprintf(res->stop_reason, sizeof res->stop_reason, "converged");
      break;
    }
    if ((rc = hx_tmop_dupdate_normals(tm, x))) goto done;
    if ((rc = hx_tmop_dproject(tm, r))) goto done;
    if ((rc = hx_tmop_dhess_setup(tm, x))) goto done;
    if ((rc = hx_tmop_ddiag(tm, w.dinv))) goto done;
    if ((rc = BE->inv_abs(PA, n, w.dinv))) goto done;
    double tol = o->linear_rtol;
    if (o->adaptive_rtol) {
      if (it > 0) {
        eta = fabs(rn - lin_res_prev) / rn_prev;
        double sg = pow(eta_prev, ew_alpha);
        if (sg > 0.1 && eta < sg) eta = sg;
        if (eta > 0.9) eta = 0.9;
      }
      tol = eta;
      eta_prev = eta;
    }
    int li = 0;
    if (o->linear_solver == HX_LIN_CG) rc = cg(tm, &w, r, c, tol, o->linear_iters, &li);
    else rc = minres(tm, &w, r, c, tol, o->linear_iters, &li);
    if (rc) goto done;
    if ((rc = hx_tmop_dproject(tm, c))) goto done;
    res->linear_iters += li;
    if (o->adaptive_rtol) {
      /* |J c - F| for the next forcing term (one more Hessian action, as MFEM) */
      if ((rc = hx_tmop_dhess_apply(tm, c, rt, 0))) goto done;
      if ((rc = BE->axpby(PA, n, -1.0, r, 1.0, rt))) goto done;
      if ((rc = norm(tm, rt, &lin_res_prev))) goto done;
      rn_prev = rn;
    }
    /* line search */
    double s = 1.0, Et = 0, rnt = 0, mdt = 0;
    int accepted = 0;
    for (int trial = 0; trial < 12; trial++, s *= 0.5) {
      if ((rc = BE->waxpy(PA, n, xt, x, -s, c))) goto done;
      if ((rc = hx_tmop_dsnap(tm, xt))) goto done;
      if ((rc = hx_tmop_dmin_detj(tm, xt, &mdt))) goto done;
      if (!(mdt > 0)) continue;
      if (node_check) {
        double mdn;
        if ((rc = hx_tmop_dmin_detj_nodes(tm, xt, &mdn))) goto done;
        if (!(mdn > 0)) continue;
      }
      if (fine_check) {
        double mdf;
        if ((rc = hx_tmop_dmin_detj_fine(tm, xt, &mdf))) goto done;
        if (!(mdf > 0)) continue;
      }
      if ((rc = hx_tmop_denergy(tm, xt, &Et))) goto done;
      if (isnan(Et) || Et > E + 0.2 * fabs(E)) continue;
      if (o->strict_decrease && !(Et < E)) continue;
      if ((rc = hx_tmop_dgrad(tm, xt, rt, 0))) goto done;
      if ((rc = norm(tm, rt, &rnt))) goto done;
      if (rnt > 1.2 * rn) continue;
      accepted = 1;
      break;
    }
    if (!accepted) {
      snprintf(res->stop_reason, sizeof res->stop_reason, "line search failed");
      if (o->log && rank == 0) fprintf(o->log, "newton %3d  line search failed after 12 trials\n", it + 1);
      break;
    }
    double *sw = x;
    x = xt;
    xt = sw;
    sw = r;
    r = rt;
    rt = sw;
    E = Et;
    rn = rnt;
    mind = mdt;
    res->newton_iters = it + 1;
    if (o->log && rank == 0)
      fprintf(o->log, "newton %3d  energy %.10e  |r| %.4e  lin %3d  step %.4f  min detJ %.4e\n", it + 1, E, rn, li, s, mind);
  }
  if (it == o->newton_iters && rn <= o->newton_rtol * rn0) {
    res->converged = 1;
    snprintf(res->stop_reason, sizeof res->stop_reason, "converged");
  }
  res->energy = E;
  res->min_detj = mind;
  /* the one whole-vector download: the optimized nodes */
  if ((rc = BE->vec_download(PA, x, xout, n))) goto done;
  bufs[0] = x, bufs[1] = xt, bufs[2] = r, bufs[3] = rt;
done:
  res->time_total = hx_tmop_now() - t_start;
  res->time_energy = tm->t_energy;
  res->time_grad = tm->t_grad;
  res->time_hess_setup = tm->t_hess_setup;
  res->time_hess_apply = tm->t_hess_apply;
  res->time_diag = tm->t_diag;
  res->time_mindet = tm->t_mindet;
  res->n_energy = tm->n_energy;
  res->n_grad = tm->n_grad;
  res->n_hess_setup = tm->n_hess_setup;
  res->n_hess_apply = tm->n_hess_apply;
  res->n_diag = tm->n_diag;
  res->n_mindet = tm->n_mindet;
  for (int k = 0; k < 5; k++) BE->vec_free(PA, &bufs[k]);
  for (int k = 0; k < 7; k++) BE->vec_free(PA, &w.v[k]);
  BE->vec_free(PA, &w.dinv);
  return rc;
}
