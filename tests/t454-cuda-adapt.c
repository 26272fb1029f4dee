/* t454: adaptive quadrature on the CUDA backend against the CPU backend. A 6^3 box at order 4,
   its nodes perturbed so that its elements are curved (about half are flagged at the start; none
   inverted): hx_tmop_adapt flags the same elements on
   both (the indicator: the device's first Bernstein pass and per-element min det J against the
   host's), and with them at -qo 12 the two-part energy, gradient, Hessian action and Jacobi
   diagonal agree to 1e-10 relative; then a 15-step solve with adaptive quadrature on: the same
   Newton and linear iteration counts, the same elements refined, final nodes to 1e-9 relative.
   Skips with one line without a CUDA device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_config.h"
#include "hx_kernels.h"
#include "hx_test_meshes.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"
#include "hx_tmop_impl.h"

#define N_SIDE 6
#define AMP 0.002
#define EPS 1.0

typedef struct state {
  long long nflag;
  double e, *g, *hv, *dg;
  size_t n;
} state;

static int eval(const char *backend, state *s) {
  hx_mesh *m = test_kershaw(HX_COMM_SELF, N_SIDE, N_SIDE, N_SIDE, 4, EPS);
  if (!m) return 1;
  test_perturb(m, AMP);
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = backend;
  o.adapt_quad = 12;
  hx_tmop *tm = NULL;
  HX_CALL(hx_tmop_create(m, &o, &tm));
  size_t n = hx_tmop_size(tm);
  s->n = n;
  s->g = calloc(n, sizeof(double)), s->hv = calloc(n, sizeof(double)), s->dg = calloc(n, sizeof(double));
  double *x = calloc(n, sizeof(double)), *v = calloc(n, sizeof(double));
  memcpy(x, hx_tmop_x0(tm), n * sizeof(double));
  for (hx_lid i = 0; i < tm->nl; i++)
    for (int c = 0; c < 3; c++) v[3 * (size_t)i + c] = test_hash((long long)tm->lmap->l2g[i] + 5, c);
  double *xd = x;
  int rc = HX_OK;
  if (!tm->be->host_memory) {
    rc = tm->be->vec_alloc(tm->pa, n, &xd);
    if (!rc) rc = tm->be->vec_upload(tm->pa, x, xd, n);
  }
  if (!rc) rc = hx_tmop_adapt(tm, xd, &s->nflag);
  if (!tm->be->host_memory) tm->be->vec_free(tm->pa, &xd);
  if (!rc) rc = hx_tmop_energy(tm, x, &s->e);
  if (!rc) rc = hx_tmop_grad_raw(tm, x, s->g);
  if (!rc) rc = hx_tmop_hess_setup(tm, x);
  if (!rc) rc = hx_tmop_hess_apply(tm, v, s->hv, 1);
  if (!rc) rc = hx_tmop_diag(tm, s->dg);
  free(x), free(v);
  hx_tmop_destroy(&tm);
  hx_mesh_destroy(&m);
  return rc;
}

static int solve(const char *backend, hx_tmop_result *r, double **xout, size_t *nx) {
  hx_mesh *m = test_kershaw(HX_COMM_SELF, N_SIDE, N_SIDE, N_SIDE, 4, EPS);
  if (!m) return 1;
  test_perturb(m, AMP);
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = backend;
  o.adapt_quad = 12;
  o.newton_iters = 15;
  o.detj_nodes = 3; /* the line search's default rule (auto) up to order 4, on both */
  return test_optimize_nodes(m, &o, r, xout, nx);
}

static int body(void) {
  if (!hx_backend_cuda.available || !hx_cuda_device_available()) {
    printf("t454: skipped: %s\n", hx_backend_cuda.available ? "no CUDA device" : "CUDA backend not in this build");
    return 0;
  }
  state a = {0}, b = {0};
  if (eval("cpu", &a) || eval("cuda", &b)) {
    printf("error: %s\n", hx_error_message());
    return 1;
  }
  double eg = test_vrel(b.g, a.g, a.n), eh = test_vrel(b.hv, a.hv, a.n), ed = test_vrel(b.dg, a.dg, a.n);
  int ok1 =
      a.nflag > 0 && a.nflag == b.nflag && fabs(b.e - a.e) <= 1e-10 * fabs(a.e) && eg <= 1e-10 && eh <= 1e-10 && ed <= 1e-10;
  printf("flagged cpu %lld cuda %lld (of %d); energy %.15e / %.15e, gradient %.1e, H v %.1e, diagonal %.1e %s\n", a.nflag,
         b.nflag, N_SIDE * N_SIDE * N_SIDE, a.e, b.e, eg, eh, ed, ok1 ? "ok" : "BAD");
  hx_tmop_result ra, rb;
  double *xa = NULL, *xb = NULL;
  size_t n;
  if (solve("cpu", &ra, &xa, &n) || solve("cuda", &rb, &xb, &n)) {
    printf("error: %s\n", hx_error_message());
    return 1;
  }
  double dx = test_vrel(xb, xa, n);
  int ok2 = ra.newton_iters == rb.newton_iters && ra.linear_iters == rb.linear_iters && ra.adapt_refined == rb.adapt_refined &&
            ra.adapt_refined > 0 && dx <= 1e-9;
  printf("solve: newton %d / %d, linear %d / %d, refined %lld / %lld, E %.10e / %.10e, nodes %.1e %s\n", ra.newton_iters,
         rb.newton_iters, ra.linear_iters, rb.linear_iters, ra.adapt_refined, rb.adapt_refined, ra.energy, rb.energy, dx,
         ok2 ? "ok" : "BAD");
  free(xa), free(xb), free(a.g), free(a.hv), free(a.dg), free(b.g), free(b.hv), free(b.dg);
  return !(ok1 && ok2);
}

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  return tm_finalize(body());
}
