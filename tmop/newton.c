/* Newton's method for grad F = 0 with MINRES or CG + Jacobi, Eisenstat-Walker
   forcing and the line search of MFEM's TMOPNewtonSolver. This is the
   pure solve (hx_tmop_solve) on a problem set up by tmop.c: what to do with its result
   (keep-sj, repair) is the drivers' business (repair.c), never called from here.

   design:
   1. r = Pi grad F(x); stop when |r| <= rtol |r0|, at the iteration cap, or when
      the line search fails and every recovery of step 4 failed too.
   2. Linearize at x (hess_setup), Jacobi from |diag| (constrained directions 1),
      solve (Pi H Pi + I - Pi) c = r to the forcing tolerance.
   3. Line search from s = 1, halving, at most 12 trials: x_s = x - s c, nodes on
      curved surfaces projected back; reject if min det J <= 0 at any quadrature
      point (and, unless opts.detj_nodes = 0, at any GLL node; with 2 also at Gauss points
      nd + 3 per direction; with 3 where the Bernstein bound of det J proves an element folded
      anywhere), if E_s > E + 0.2 |E| or NaN (strict mode: E_s >= E), or if
      |r_s| > 1.2 |r|.
   4. No trial passes: recover (hx_tmop_solve's design below) by the quadrature points' check
      alone (MFEM's rule; the iterates may fold between them on the way and unfold later), a
      steepest-descent direction, or a tighter Krylov solve; the result is never an iterate that
      fails the det J check it started with, nor one with more energy than the best that passes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "hx_metrics.h"
#include "hx_progress.h"
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
  if (hx_tmop_pmg_active(tm)) { /* plus the two-level preconditioner's coarse correction (pmg.c) */
    HX_CALL(BE->precond(PA, dinv, r, z));
    HX_CALL(hx_tmop_pmg_add(tm, r, z));
    return hx_tmop_ddot(tm, r, z, rz);
  }
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

/* The line search's validity rule beyond det J > 0 at the quadrature points (MFEM's, always
   checked): nodes, also at every GLL node; fine, also at the Gauss points nd + 3 per direction;
   bound, no element that the Bernstein bound of det J proves folded (anywhere in it). */
typedef struct ls_rule {
  int nodes, fine, bound;
} ls_rule;

/* *ok = 1 where x passes the rule's checks beyond the quadrature points. */
static int passes_extra(hx_tmop *tm, const double *x, ls_rule rule, int *ok) {
  *ok = 1;
  if (rule.nodes) {
    double mdn;
    HX_CALL(hx_tmop_dmin_detj_nodes(tm, x, &mdn));
    if (!(mdn > 0)) *ok = 0;
  }
  if (*ok && rule.fine) {
    double mdf;
    HX_CALL(hx_tmop_dmin_detj_fine(tm, x, &mdf));
    if (!(mdf > 0)) *ok = 0;
  }
  if (*ok && rule.bound) {
    long long ninv;
    HX_CALL(hx_tmop_dbound_invalid(tm, x, &ninv));
    if (ninv > 0) *ok = 0;
  }
  return HX_OK;
}

#define HX_TMOP_MAX_COORD 1e30

/* NaN or Inf in the energy, the residual or det J (coordinates beyond double's range, a
   metric's overflow): stop with the step where it appeared, never go on or report it as a result */
static int finite_check(double E, double rn, double mind, int step) {
  if (isfinite(E) && isfinite(rn) && isfinite(mind)) return HX_OK;
  return HX_ERROR(HX_ERR_INVALID_MESH,
                  "optimize: the %s is not finite (%g) at Newton step %d (energy %g, |r| %g, min det J %g): the mesh's "
                  "coordinates or element sizes are beyond what double precision holds",
                  !isfinite(E)    ? "energy"
                  : !isfinite(rn) ? "residual"
                                  : "min det J",
                  !isfinite(E)    ? E
                  : !isfinite(rn) ? rn
                                  : mind,
                  step, E, rn, mind);
}

/* A line search's outcome: the accepted trial's step, energy, |r| and min det J at the
   quadrature points, and the trials refused only by the rule's extra checks. */
typedef struct ls_out {
  int accepted, nrej_extra;
  double s_extra;                         /* the longest trial refused by the rule's extra checks only */
  int nrej_detj, nrej_energy, nrej_resid; /* trials refused by det J at the quadrature points, the
                                             energy test, the residual test */
  double s, E, rn, mind;
} ls_out;

/* MFEM's line search along -c from x (energy E, residual norm rn): s = 1, halving, 12 trials;
   x_s = x - s c, nodes on curved surfaces projected back; x_s is refused if det J <= 0 at a
   quadrature point or where the rule checks, if E_s > E + 0.2 |E| or NaN (strict mode: E_s >=
   E), or if |r_s| > 1.2 |r|. The accepted trial is left in xt, its residual in rt. */
static int line_search(hx_tmop *tm, const double *x, const double *c, double E, double rn, ls_rule rule, double *xt, double *rt,
                       ls_out *out) {
  size_t n = tm->nL;
  memset(out, 0, sizeof *out);
  double s = 1.0;
  for (int trial = 0; trial < 12; trial++, s *= 0.5) {
    HX_CALL(BE->waxpy(PA, n, xt, x, -s, c));
    HX_CALL(hx_tmop_dsnap(tm, xt));
    HX_CALL(hx_tmop_dmin_detj(tm, xt, &out->mind));
    if (!(out->mind > 0)) {
      out->nrej_detj++;
      continue;
    }
    int ok;
    HX_CALL(passes_extra(tm, xt, rule, &ok));
    if (!ok) {
      if (!out->nrej_extra++) out->s_extra = s;
      continue;
    }
    HX_CALL(hx_tmop_denergy(tm, xt, &out->E));
    if (isnan(out->E) || out->E > E + 0.2 * fabs(E) || (tm->o.strict_decrease && !(out->E < E))) {
      out->nrej_energy++;
      continue;
    }
    HX_CALL(hx_tmop_dgrad(tm, xt, rt, 0));
    HX_CALL(norm(tm, rt, &out->rn));
    if (out->rn > 1.2 * rn) {
      out->nrej_resid++;
      continue;
    }
    out->accepted = 1;
    out->s = s;
    return HX_OK;
  }
  return HX_OK;
}

/* Each recovery kind runs at most this many times per solve. */
enum { RECOVER_MAX = 8 };

static int solve_linear(hx_tmop *tm, lin_ws *w, const double *r, double *c, double tol, int maxit, int *li) {
  if (tm->o.linear_solver == HX_LIN_CG) HX_CALL(cg(tm, w, r, c, tol, maxit, li));
  else HX_CALL(minres(tm, w, r, c, tol, maxit, li));
  return hx_tmop_dproject(tm, c);
}

/* After adaptive quadrature raised elements: the best valid iterate's energy and min det J, and
   the energy, residual (r) and its norm at x, under the new rules. */
static int adapt_reevaluate(hx_tmop *tm, const double *x, const double *xbest, double *r, double *E, double *rn, double *Ebest,
                            double *mindbest) {
  HX_CALL(hx_tmop_denergy(tm, xbest, Ebest));
  HX_CALL(hx_tmop_dmin_detj(tm, xbest, mindbest));
  HX_CALL(hx_tmop_denergy(tm, x, E));
  HX_CALL(hx_tmop_dgrad(tm, x, r, 0));
  return norm(tm, r, rn);
}

/* design:
   1. Every Newton step: linearize at x, solve for the direction c (step 2 of the file's design),
      line search along -c under the rule in force: opts' (det J at the GLL nodes by default), or
      in relaxed mode the quadrature points only (MFEM's rule).
   2. When no trial passes, recover instead of stopping, in this order, each kind at most
      RECOVER_MAX times per solve and each logged: (a) where the rule's extra checks (nodes, fine)
      refused some trial, the same direction with the quadrature points checked only; (b) the
      preconditioned steepest-descent direction D^-1 r (the Jacobi diagonal of step 1); (c) the
      Newton direction again from a Krylov solve with a 100 times tighter tolerance and 4 times the
      iterations. (b) and (c) search under the relaxed rule where (a) ran. A step accepted under
      the relaxed rule whose iterate fails opts' rule puts the solve in relaxed mode, which lasts
      until an iterate passes opts' rule again. The solve stops when every recovery failed or its
      budget is spent.
   3. The best iterate that passes opts' rule (lowest energy) is kept (xbest); the result is the
      last iterate where it passes opts' rule and converged or has no higher energy, else xbest.
   Where no line search fails, nothing of this runs and the iterates are those of plain Newton;
   with opts.recover = 0 a failed line search stops the solve (step 3 still holds). */
int hx_tmop_solve(hx_tmop *tm, double *xout, hx_tmop_result *res) {
  hx_mesh *mesh = tm->mesh;
  const hx_tmop_opts *o = &tm->o;
  double t_start = hx_tmop_now();
  memset(res, 0, sizeof *res);
  const hx_metric_info *mi;
  HX_CALL(hx_metric_find(o->metric, &mi));
  size_t n = tm->nL;
  int rank = hx_comm_rank(mesh->comm);
  FILE *log = rank == 0 ? o->log : NULL;
  /* coordinates whose det J or energy overflow double precision: refused before the solve */
  double xmax = 0;
  for (size_t i = 0; i < tm->nL; i++) xmax = fmax(xmax, isfinite(tm->x0[i]) ? fabs(tm->x0[i]) : INFINITY);
  HX_CALL(hx_comm_max_double(mesh->comm, &xmax, 1));
  HX_CHECK(xmax <= HX_TMOP_MAX_COORD, HX_ERR_INPUT,
           "optimize: the mesh has coordinates up to %g: beyond %g its det J and energy overflow double precision (scale the "
           "mesh)",
           xmax, HX_TMOP_MAX_COORD);
  double *x = NULL, *xt = NULL, *r = NULL, *rt = NULL, *c = NULL, *xbest = NULL;
  lin_ws w = {0};
  int rc = HX_OK;
  hx_progress prog; /* the iterations done of the cap (on stderr where the CLI turned it on) */
  hx_progress_start(&prog, "newton", o->newton_iters);
  double *bufs[6] = {0};
  for (int k = 0; k < 6 && !rc; k++) rc = BE->vec_alloc(PA, n, &bufs[k]);
  for (int k = 0; k < 7 && !rc; k++) rc = BE->vec_alloc(PA, n, &w.v[k]);
  if (!rc) rc = BE->vec_alloc(PA, n, &w.dinv);
  if (rc) goto done;
  x = bufs[0], xt = bufs[1], r = bufs[2], rt = bufs[3], c = bufs[4], xbest = bufs[5];
  /* the convergence test is relative to the gradient at the problem's initial nodes, also where
     the solve starts elsewhere (the coarse start's point: its own gradient is far smaller); E0
     and min det J0 are reported there too */
  double rn_ref = -1, E_ref = 0, mind_ref = 0;
  if (tm->xstart) {
    if ((rc = BE->vec_upload(PA, tm->x0, x, n))) goto done;
    if ((rc = hx_tmop_dmin_detj(tm, x, &mind_ref))) goto done;
    if ((rc = hx_tmop_denergy(tm, x, &E_ref))) goto done;
    if ((rc = hx_tmop_dgrad(tm, x, r, 0))) goto done;
    if ((rc = norm(tm, r, &rn_ref))) goto done;
  }
  if ((rc = BE->vec_upload(PA, tm->xstart ? tm->xstart : tm->x0, x, n))) goto done;
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
                  "needs a valid mesh (untangling is off)",
                  mind, o->metric);
    goto done;
  }
  /* det J at the GLL nodes too (a fold between quadrature points is invisible to
     the energy; the writers refuse it), unless the mesh starts with one there */
  ls_rule rule = {o->detj_nodes != 0, o->detj_nodes == 2, o->detj_nodes == 3}, quad_rule = {0, 0, 0};
  if (rule.nodes) {
    double mn0;
    if ((rc = hx_tmop_dmin_detj_nodes(tm, x, &mn0))) goto done;
    rule.nodes = mn0 > 0;
  }
  if (rule.fine) {
    double mf0;
    if ((rc = hx_tmop_dmin_detj_fine(tm, x, &mf0))) goto done;
    rule.fine = mf0 > 0;
  }
  if (rule.bound) {
    long long ninv0;
    if ((rc = hx_tmop_dbound_invalid(tm, x, &ninv0))) goto done;
    rule.bound = ninv0 == 0;
  }
  const int extra = rule.nodes || rule.fine || rule.bound; /* a relaxed rule exists */
  if ((rc = hx_tmop_denergy(tm, x, &E))) goto done;
  if ((rc = hx_tmop_dgrad(tm, x, r, 0))) goto done;
  res->energy0 = res->energy = E;
  if (tm->xstart) res->energy0 = E_ref, res->min_detj0 = mind_ref;
  double rn;
  if ((rc = norm(tm, r, &rn))) goto done;
  double rn0 = rn_ref >= 0 ? rn_ref : rn;
  if (log) fprintf(log, "newton %3d  energy %.10e  |r| %.4e  lin %3d  step %.4f  min detJ %.4e\n", 0, E, rn, 0, 0.0, mind);
  if ((rc = finite_check(E, rn, mind, 0))) goto done;
  /* the best iterate that passes rule: energy, min det J, step (the start mesh passes it) */
  double Ebest = E, mindbest = mind;
  int itbest = 0, relaxed = 0, relaxed_run = 0;
  if ((rc = BE->axpby(PA, n, 1.0, x, 0.0, xbest))) goto done;
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
    if (hx_tmop_adapt_possible(tm)) {
      /* adaptive quadrature: elements newly flagged take the higher rule from this step on; the
         energy, the residual and the best valid iterate's energy are those of the new rules */
      long long nnew;
      if ((rc = hx_tmop_adapt(tm, x, &nnew))) goto done;
      if (nnew > 0) {
        res->adapt_events++;
        /* flagged too late: x folds at a point of the new rule. The iterate before it had every
           element now flagged with a positive bound (it was checked there and not flagged), so
           det J > 0 on them: the solve goes on from there */
        int back = 0;
        if ((rc = hx_tmop_dmin_detj(tm, x, &mind))) goto done;
        if (!(mind > 0) && it > 0) {
          double *sw = x;
          x = xt, xt = sw;
          back = 1;
          if ((rc = hx_tmop_dmin_detj(tm, x, &mind))) goto done;
          if (itbest == it) { /* the best valid iterate was the one left: the one before, if valid */
            int v_ok = 1;
            if (extra && (rc = passes_extra(tm, x, rule, &v_ok))) goto done;
            if (v_ok) {
              itbest = it - 1;
              if ((rc = BE->axpby(PA, n, 1.0, x, 0.0, xbest))) goto done;
            }
          }
        }
        if ((rc = adapt_reevaluate(tm, x, xbest, r, &E, &rn, &Ebest, &mindbest))) goto done;
        if (log)
          fprintf(log, "newton %3d  adaptive quadrature: %lld element(s) up a level%s; energy %.10e  |r| %.4e\n", it, nnew,
                  back ? " (folded at the new points: back to the iterate before)" : "", E, rn);
        if ((rc = finite_check(E, rn, mind, it))) goto done;
        if (rn <= o->newton_rtol * rn0 || rn == 0) {
          res->converged = 1;
          snprintf(res->stop_reason, sizeof res->stop_reason, "converged");
          break;
        }
      }
    }
    if ((rc = hx_tmop_dupdate_normals(tm, x))) goto done;
    if ((rc = hx_tmop_dproject(tm, r))) goto done;
    if ((rc = hx_tmop_dhess_setup(tm, x))) goto done;
    if ((rc = hx_tmop_ddiag(tm, w.dinv))) goto done;
    if ((rc = BE->inv_abs(PA, n, w.dinv))) goto done;
    if ((rc = hx_tmop_pmg_setup(tm, x))) goto done;
    if (log && tm->pmg && !hx_tmop_pmg_active(tm))
      fprintf(log, "newton %3d  two-level correction off for this step: the order-1 copy is not valid here\n", it);
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
    if ((rc = solve_linear(tm, &w, r, c, tol, o->linear_iters, &li))) goto done;
    res->linear_iters += li;
    if (o->adaptive_rtol) {
      /* |J c - F| for the next forcing term (one more Hessian action, as MFEM) */
      if ((rc = hx_tmop_dhess_apply(tm, c, rt, 0))) goto done;
      if ((rc = BE->axpby(PA, n, -1.0, r, 1.0, rt))) goto done;
      if ((rc = norm(tm, rt, &lin_res_prev))) goto done;
      rn_prev = rn;
    }
    ls_rule cur = relaxed ? quad_rule : rule;
    ls_out ls;
    if ((rc = line_search(tm, x, c, E, rn, cur, xt, rt, &ls))) goto done;
    if (log) hx_progress_finish(&prog);           /* a bar on a terminal erased before the log's lines */
    const char *how = relaxed ? "relaxed" : NULL; /* the log's note on the accepted step */
    if (!ls.accepted && !o->recover) {
      snprintf(res->stop_reason, sizeof res->stop_reason, "line search failed");
      if (log) fprintf(log, "newton %3d  line search failed after 12 trials\n", it + 1);
      break;
    }
    if (!ls.accepted && ls.nrej_extra > 0 && hx_tmop_adapt_possible(tm)) {
      /* adaptive quadrature first: the longest trial refused by the extra checks alone had det J > 0
         at every quadrature point, so its folds lie between them: their elements go up a level
         there and the step is taken again from x under the new rules (x is valid under them: at x
         each of those elements had a positive bound, checked before this step) */
      long long nnew;
      if ((rc = BE->waxpy(PA, n, xt, x, -ls.s_extra, c))) goto done;
      if ((rc = hx_tmop_dsnap(tm, xt))) goto done;
      if ((rc = hx_tmop_adapt(tm, xt, &nnew))) goto done;
      if (nnew > 0) {
        res->adapt_events++;
        if ((rc = hx_tmop_dmin_detj(tm, x, &mind))) goto done;
        if ((rc = adapt_reevaluate(tm, x, xbest, r, &E, &rn, &Ebest, &mindbest))) goto done;
        if (log)
          fprintf(log,
                  "newton %3d  line search failed after 12 trials; adaptive quadrature: %lld element(s) up a level (folded "
                  "between the points at step %g); energy %.10e  |r| %.4e\n",
                  it + 1, nnew, ls.s_extra, E, rn);
        if ((rc = finite_check(E, rn, mind, it))) goto done;
        continue;
      }
    }
    if (!ls.accepted) {
      /* recovery, (a) to (c) of the design */
      const char *what = "Newton direction";
      if (log) fprintf(log, "newton %3d  line search failed after 12 trials (%s)\n", it + 1, what);
      if (extra && !relaxed && ls.nrej_extra > 0 && res->recover_relaxed < RECOVER_MAX) {
        res->recover_relaxed++;
        cur = quad_rule;
        if ((rc = line_search(tm, x, c, E, rn, cur, xt, rt, &ls))) goto done;
        what = "recovery (a): det J at the quadrature points only";
        how = "recover relaxed";
        if (!ls.accepted && log) fprintf(log, "newton %3d  line search failed after 12 trials (%s)\n", it + 1, what);
      }
      int ran_b = 0, ran_c = 0;
      if (!ls.accepted && res->recover_steepest < RECOVER_MAX) {
        res->recover_steepest++, ran_b = 1;
        if ((rc = BE->precond(PA, w.dinv, r, c))) goto done;
        if ((rc = hx_tmop_dproject(tm, c))) goto done;
        if ((rc = line_search(tm, x, c, E, rn, cur, xt, rt, &ls))) goto done;
        what = "recovery (b): steepest descent D^-1 r";
        how = "recover steepest";
        if (!ls.accepted && log) fprintf(log, "newton %3d  line search failed after 12 trials (%s)\n", it + 1, what);
      }
      if (!ls.accepted && res->recover_krylov < RECOVER_MAX) {
        res->recover_krylov++, ran_c = 1;
        int li2 = 0, maxit = o->linear_iters > 100000 / 4 ? 100000 : 4 * o->linear_iters;
        if ((rc = solve_linear(tm, &w, r, c, fmax(1e-2 * tol, 1e-14), maxit, &li2))) goto done;
        res->linear_iters += li2;
        li += li2;
        if ((rc = line_search(tm, x, c, E, rn, cur, xt, rt, &ls))) goto done;
        what = "recovery (c): Krylov restart";
        how = "recover krylov";
        if (!ls.accepted && log) fprintf(log, "newton %3d  line search failed after 12 trials (%s)\n", it + 1, what);
      }
      if (!ls.accepted) {
        int spent = !ran_b || !ran_c;
        snprintf(res->stop_reason, sizeof res->stop_reason, "line search failed (%s)",
                 spent ? "recovery budget spent" : "recoveries failed");
        if (log) fprintf(log, "newton %3d  stop: %s\n", it + 1, res->stop_reason);
        break;
      }
    }
    double *sw = x;
    x = xt;
    xt = sw;
    sw = r;
    r = rt;
    rt = sw;
    E = ls.E;
    rn = ls.rn;
    mind = ls.mind;
    res->newton_iters = it + 1;
    if ((rc = finite_check(E, rn, mind, it + 1))) goto done;
    /* an iterate accepted under the relaxed rule: does it pass opts' rule again? */
    int valid = 1;
    if (extra && (cur.nodes != rule.nodes || cur.fine != rule.fine || cur.bound != rule.bound)) {
      res->relaxed_iters++;
      if ((rc = passes_extra(tm, x, rule, &valid))) goto done;
    }
    const char *note = "";
    if (valid && relaxed) note = "  (relaxed mode ends: valid again)";
    else if (!valid && !relaxed) note = "  (relaxed mode: det J <= 0 at a GLL node)";
    relaxed = !valid;
    relaxed_run = relaxed ? relaxed_run + 1 : 0;
    if (valid && E <= Ebest) {
      Ebest = E, mindbest = mind, itbest = it + 1;
      if ((rc = BE->axpby(PA, n, 1.0, x, 0.0, xbest))) goto done;
    }
    if (log) {
      fprintf(log, "newton %3d  energy %.10e  |r| %.4e  lin %3d  step %.4f  min detJ %.4e", it + 1, E, rn, li, ls.s, mind);
      fprintf(log, "%s%s%s", how ? "  " : "", how ? how : "", note);
      if (o->debug)
        fprintf(log, "  (refused: det J %d, nodes %d, energy %d, |r| %d)", ls.nrej_detj, ls.nrej_extra, ls.nrej_energy,
                ls.nrej_resid);
      fprintf(log, "\n");
    }
    if (o->relaxed_max > 0 && relaxed_run >= o->relaxed_max) {
      snprintf(res->stop_reason, sizeof res->stop_reason, "relaxed mode: %d steps without a valid iterate", relaxed_run);
      if (log) fprintf(log, "newton %3d  %d steps in a row fail the det J check: stop\n", it + 1, relaxed_run);
      break;
    }
    hx_progress_update(&prog, it + 1);
  }
  if (it == o->newton_iters && rn <= o->newton_rtol * rn0) {
    res->converged = 1;
    snprintf(res->stop_reason, sizeof res->stop_reason, "converged");
  }
  /* the result: the last iterate, unless it fails opts' rule or a valid one had a lower energy */
  const double *xres = x;
  res->result_iter = res->newton_iters;
  if (relaxed || (!res->converged && E > Ebest)) {
    xres = xbest, E = Ebest, mind = mindbest, res->result_iter = itbest;
    if (res->converged) {
      res->converged = 0;
      snprintf(res->stop_reason, sizeof res->stop_reason, "converged to a mesh that fails the det J check");
    }
    if (log)
      fprintf(log, "newton: the result is iterate %d (energy %.10e), the best that passes the det J check\n", itbest, Ebest);
  }
  res->energy = E;
  res->min_detj = mind;
  {
    int64_t nr = tm->nrefined;
    if ((rc = hx_comm_sum_int64(mesh->comm, &nr, 1))) goto done;
    res->adapt_refined = nr;
  }
  /* the one whole-vector download: the optimized nodes */
  if ((rc = BE->vec_download(PA, xres, xout, n))) goto done;
  bufs[0] = x, bufs[1] = xt, bufs[2] = r, bufs[3] = rt;
done:
  hx_progress_finish(&prog);
  res->time_total = hx_tmop_now() - t_start;
  res->time_energy = tm->t_energy;
  res->time_grad = tm->t_grad;
  res->time_hess_setup = tm->t_hess_setup;
  res->time_hess_apply = tm->t_hess_apply;
  res->time_diag = tm->t_diag;
  res->time_mindet = tm->t_mindet;
  res->time_bound = tm->t_bound;
  res->n_bound = tm->n_bound;
  res->time_adapt = tm->t_adapt;
  res->time_rebuild = tm->t_rebuild;
  res->n_adapt = tm->n_adapt;
  res->n_rebuild = tm->n_rebuild;
  res->time_precond = tm->t_pmg_setup + tm->t_pmg_apply;
  res->n_precond = tm->n_pmg_apply;
  res->n_energy = tm->n_energy;
  res->n_grad = tm->n_grad;
  res->n_hess_setup = tm->n_hess_setup;
  res->n_hess_apply = tm->n_hess_apply;
  res->n_diag = tm->n_diag;
  res->n_mindet = tm->n_mindet;
  for (int k = 0; k < 6; k++) BE->vec_free(PA, &bufs[k]);
  for (int k = 0; k < 7; k++) BE->vec_free(PA, &w.v[k]);
  BE->vec_free(PA, &w.dinv);
  return rc;
}

/* The Newton direction for a driver with a loop of its own (untangle.c), at the point of the
   last hx_tmop_dhess_setup: c solves (Pi H Pi + I - Pi) c = r with opts' linear solver to tol
   (at most maxit iterations, *li of them used), preconditioned by Jacobi from |diag|; with
   steepest, c = Pi D^-1 Pi r + (I - Pi) r instead (*li = 0). Vectors are backend L-vectors. */
int hx_tmop_direction(hx_tmop *tm, const double *r, double *c, double tol, int maxit, int steepest, int *li) {
  size_t n = tm->nL;
  lin_ws w = {0};
  int rc = HX_OK;
  *li = 0;
  for (int k = 0; k < 7 && !rc; k++) rc = BE->vec_alloc(PA, n, &w.v[k]);
  if (!rc) rc = BE->vec_alloc(PA, n, &w.dinv);
  if (!rc) rc = hx_tmop_ddiag(tm, w.dinv);
  if (!rc) rc = BE->inv_abs(PA, n, w.dinv);
  if (!rc && steepest) rc = BE->precond(PA, w.dinv, r, c);
  if (!rc && steepest) rc = hx_tmop_dproject(tm, c);
  if (!rc && !steepest) rc = solve_linear(tm, &w, r, c, tol, maxit, li);
  for (int k = 0; k < 7; k++) BE->vec_free(PA, &w.v[k]);
  BE->vec_free(PA, &w.dinv);
  return rc;
}
