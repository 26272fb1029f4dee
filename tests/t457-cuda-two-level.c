/* t457: the two-level preconditioner (tmop/pmg.c) on the CUDA backend against the CPU backend.
   A 6^3 Kershaw box at order 3 with its nodes perturbed: the corners taken from the nodes, P of a
   field keyed by global node id, P^T of another, and the whole preconditioner M (Jacobi plus the
   coarse correction, Chebyshev degree 3) of a third agree to 1e-12 relative; then a Kershaw 6^3
   solve at order 3 with the two-level preconditioner: the same Newton and linear iteration
   counts, final nodes to 1e-9 relative. Skips with one line without a CUDA device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_config.h"
#include "hx_kernels.h"
#include "hx_test_meshes.h"
#include "hx_test_pmg.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

typedef struct state {
  double *xc, *pu, *ptr, *mv;
  size_t n, nc;
} state;

static int eval(const char *backend, state *s) {
  hx_mesh *m = test_kershaw(HX_COMM_SELF, 6, 6, 6, 3, 0.3);
  if (!m) return 1;
  test_perturb(m, 0.002);
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = backend;
  o.precond = HX_PREC_TWOLEVEL;
  hx_tmop *tm = NULL;
  pmg_io io;
  HX_CALL(hx_tmop_create(m, &o, &tm));
  HX_CALL(pmg_io_open(tm, &io));
  hx_tmop *c = hx_tmop_pmg_coarse(tm);
  size_t n = tm->nL, nc = c->nL;
  s->n = n, s->nc = nc;
  s->xc = calloc(nc, sizeof(double)), s->pu = calloc(n, sizeof(double)), s->ptr = calloc(nc, sizeof(double));
  s->mv = calloc(n, sizeof(double));
  double *cu = calloc(nc, sizeof(double)), *r = calloc(n, sizeof(double)), *v = calloc(n, sizeof(double));
  for (hx_lid i = 0; i < c->nl; i++)
    for (int k = 0; k < 3; k++) cu[3 * (size_t)i + k] = test_hash((long long)c->lmap->l2g[i] + 11, k);
  for (hx_lid i = 0; i < tm->nl; i++)
    for (int k = 0; k < 3; k++) {
      r[3 * (size_t)i + k] = test_hash((long long)tm->lmap->l2g[i] + 3, k);
      v[3 * (size_t)i + k] = test_hash((long long)tm->lmap->l2g[i] + 5, k);
    }
  int rc = pmg_io_linearize(&io, hx_tmop_x0(tm));
  if (!rc) rc = pmg_io_transfer(&io, 2, NULL, s->xc);
  if (!rc) rc = pmg_io_transfer(&io, 0, cu, s->pu);
  if (!rc) rc = pmg_io_transfer(&io, 1, r, s->ptr);
  if (!rc) rc = pmg_io_apply(&io, v, s->mv);
  if (!rc && !hx_tmop_pmg_active(tm)) rc = HX_ERROR(HX_ERR_INTERNAL, "the coarse correction is off");
  free(cu), free(r), free(v);
  pmg_io_close(&io);
  hx_tmop_destroy(&tm);
  hx_mesh_destroy(&m);
  return rc;
}

static int solve(const char *backend, hx_tmop_result *r, double **xout, size_t *nx) {
  hx_mesh *m = test_kershaw(HX_COMM_SELF, 6, 6, 6, 3, 0.3);
  if (!m) return 1;
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = backend;
  o.precond = HX_PREC_TWOLEVEL;
  return test_optimize_nodes(m, &o, r, xout, nx);
}

static int body(void) {
  if (!hx_backend_cuda.available || !hx_cuda_device_available()) {
    printf("t457: skipped: %s\n", hx_backend_cuda.available ? "no CUDA device" : "CUDA backend not in this build");
    return 0;
  }
  state a = {0}, b = {0};
  if (eval("cpu", &a) || eval("cuda", &b)) {
    printf("error: %s\n", hx_error_message());
    return 1;
  }
  double exc = test_vrel(b.xc, a.xc, a.nc), epu = test_vrel(b.pu, a.pu, a.n), ept = test_vrel(b.ptr, a.ptr, a.nc),
         emv = test_vrel(b.mv, a.mv, a.n);
  int ok1 = a.n == b.n && a.nc == b.nc && exc <= 1e-12 && epu <= 1e-12 && ept <= 1e-12 && emv <= 1e-12;
  printf("corners %.1e, P u %.1e, P^T r %.1e, M v %.1e %s\n", exc, epu, ept, emv, ok1 ? "ok" : "BAD");
  hx_tmop_result ra, rb;
  double *xa = NULL, *xb = NULL;
  size_t n;
  if (solve("cpu", &ra, &xa, &n) || solve("cuda", &rb, &xb, &n)) {
    printf("error: %s\n", hx_error_message());
    return 1;
  }
  double dx = test_vrel(xb, xa, n);
  int ok2 = ra.converged && rb.converged && ra.newton_iters == rb.newton_iters && ra.linear_iters == rb.linear_iters &&
            rb.n_precond > 0 && dx <= 1e-9;
  printf("solve: newton %d / %d, linear %d / %d, corrections %lld / %lld, E %.6e / %.6e, nodes %.1e %s\n", ra.newton_iters,
         rb.newton_iters, ra.linear_iters, rb.linear_iters, ra.n_precond, rb.n_precond, ra.energy, rb.energy, dx,
         ok2 ? "ok" : "BAD");
  free(xa), free(xb), free(a.xc), free(a.pu), free(a.ptr), free(a.mv), free(b.xc), free(b.pu), free(b.ptr), free(b.mv);
  return !(ok1 && ok2);
}

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  return tm_finalize(body());
}
