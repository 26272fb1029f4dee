/* Shared helpers of the two-level preconditioner's tests (t524, t457): its operators on host
   arrays through any backend (uploads and downloads around the backend's own vectors). */
#pragma once
#include <stdlib.h>
#include <string.h>

#include "hx_kernels.h"
#include "hx_tmop_impl.h"

typedef struct pmg_io {
  hx_tmop *tm;
  double *a, *b, *ca, *cb, *dinv; /* backend: fine in / out, coarse in / out, Jacobi */
} pmg_io;

static inline int pmg_io_open(hx_tmop *tm, pmg_io *io) {
  memset(io, 0, sizeof *io);
  io->tm = tm;
  hx_tmop *c = hx_tmop_pmg_coarse(tm);
  if (!c) return HX_ERROR(HX_ERR_INTERNAL, "no two-level preconditioner");
  HX_CALL(tm->be->vec_alloc(tm->pa, tm->nL, &io->a));
  HX_CALL(tm->be->vec_alloc(tm->pa, tm->nL, &io->b));
  HX_CALL(tm->be->vec_alloc(tm->pa, tm->nL, &io->dinv));
  HX_CALL(c->be->vec_alloc(c->pa, c->nL, &io->ca));
  return c->be->vec_alloc(c->pa, c->nL, &io->cb);
}

static inline void pmg_io_close(pmg_io *io) {
  hx_tmop *tm = io->tm, *c = hx_tmop_pmg_coarse(tm);
  tm->be->vec_free(tm->pa, &io->a);
  tm->be->vec_free(tm->pa, &io->b);
  tm->be->vec_free(tm->pa, &io->dinv);
  c->be->vec_free(c->pa, &io->ca);
  c->be->vec_free(c->pa, &io->cb);
}

/* linearize at the host L-vector x as a Newton step does: Hessian, |diag|^-1, the coarse set-up */
static inline int pmg_io_linearize(pmg_io *io, const double *x) {
  hx_tmop *tm = io->tm;
  HX_CALL(tm->be->vec_upload(tm->pa, x, io->a, tm->nL));
  HX_CALL(hx_tmop_dupdate_normals(tm, io->a));
  HX_CALL(hx_tmop_dhess_setup(tm, io->a));
  HX_CALL(hx_tmop_ddiag(tm, io->dinv));
  HX_CALL(tm->be->inv_abs(tm->pa, tm->nL, io->dinv));
  return hx_tmop_pmg_setup(tm, io->a);
}

/* host out = M in (Jacobi plus the coarse correction, as MINRES applies it) */
static inline int pmg_io_apply(pmg_io *io, const double *in, double *out) {
  hx_tmop *tm = io->tm;
  HX_CALL(tm->be->vec_upload(tm->pa, in, io->a, tm->nL));
  HX_CALL(tm->be->precond(tm->pa, io->dinv, io->a, io->b));
  HX_CALL(hx_tmop_pmg_add(tm, io->a, io->b));
  return tm->be->vec_download(tm->pa, io->b, out, tm->nL);
}

/* op 0: fine out = P coarse in; op 1: coarse out = P^T fine in; op 2: coarse out = the corners */
static inline int pmg_io_transfer(pmg_io *io, int op, const double *in, double *out) {
  hx_tmop *tm = io->tm, *c = hx_tmop_pmg_coarse(tm);
  if (op == 0) {
    HX_CALL(c->be->vec_upload(c->pa, in, io->ca, c->nL));
    HX_CALL(hx_tmop_pmg_transfer(tm, 0, io->ca, io->a));
    return tm->be->vec_download(tm->pa, io->a, out, tm->nL);
  }
  if (op == 1) HX_CALL(tm->be->vec_upload(tm->pa, in, io->a, tm->nL));
  HX_CALL(hx_tmop_pmg_transfer(tm, op, io->a, io->cb));
  return c->be->vec_download(c->pa, io->cb, out, c->nL);
}
