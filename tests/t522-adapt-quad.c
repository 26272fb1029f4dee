/* t522: adaptive quadrature (opts.adapt_quad; tmop.c's parts, hx_tmop_adapt).
   1. The operators over the parts against independent computations, on a perturbed Kershaw
      6^3 box at order 3 with its elements at levels 0 .. HX_ADAPT_LEVELS in turn (by global
      index: -qo 8, 12, ...):
      the energy equals the sum of per-element energies, each from an hx_pa of that one element
      at its own rule (not tmop's parts); the gradient matches central differences of the
      energy, the Hessian action central differences of the gradient, the Jacobi diagonal the
      action on unit vectors. With every element at level 1, the energy equals -qo 12's.
   2. The indicator: an order-3 element with det J = 40 (t - 1/2)^2 + 0.05 along x (smallest
      value 0.05 at t = 1/2, about 0.86 at the nearest of the 6 GLL points of -qo 8) goes up a
      level; the undeformed box (det J constant) does not. Runs on 1 and 2 ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hx_test_tmop.h"
#include "hx_tmop.h"
#include "hx_tmop_impl.h"

/* the test's levels: 0 .. HX_ADAPT_LEVELS in turn by global index (rules -qo 8, 12, ...) */
static int level(hx_gid g) { return (int)(g % (HX_ADAPT_LEVELS + 1)); }

/* sum over the rank's elements of each element's energy at its own rule (an hx_pa of one element) */
static int energy_by_element(const hx_mesh *m, double *e) {
  const hx_backend *be;
  HX_CALL(hx_backend_find("cpu", &be));
  size_t npe = (size_t)3 * m->nd * m->nd * m->nd;
  *e = 0;
  for (hx_lid el = 0; el < m->num_elem; el++) {
    hx_pa_desc d;
    hx_pa_desc_default(&d);
    d.quad_order = 8 + 4 * level(m->elem_offset + el);
    hx_mesh one = *m;
    one.num_elem = 1;
    one.x = m->x + el * npe;
    hx_pa *pa = NULL;
    double ee = 0;
    HX_CALL(hx_pa_create(be, &one, &d, &pa));
    int rc = be->energy(pa, one.x, &ee);
    hx_pa_destroy(&pa);
    HX_CALL(rc);
    *e += ee;
  }
  return hx_comm_sum_double(m->comm, e, 1);
}

/* v[i][c] = hash of the node's global id (the same on every rank) */
static void node_vector(const hx_tmop *tm, int salt, double *v) {
  for (hx_lid i = 0; i < tm->nl; i++)
    for (int c = 0; c < 3; c++) v[3 * (size_t)i + c] = test_hash((long long)tm->lmap->l2g[i] * 7 + salt, c);
}

static double rel(double a, double b) { return fabs(a - b) / fmax(fabs(b), 1e-300); }

static int check_parts(hx_comm comm, int *ok) {
  hx_mesh *m = test_kershaw(comm, 6, 6, 6, 3, 0.3);
  if (!m) return 1;
  test_perturb(m, 0.0025);
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = "cpu";
  o.adapt_quad = 12;
  o.boundary = HX_BND_FIXED;
  hx_tmop *tm = NULL;
  HX_CALL(hx_tmop_create(m, &o, &tm));
  unsigned char *fl = calloc((size_t)m->num_elem + 1, 1);
  for (hx_lid e = 0; e < m->num_elem; e++) fl[e] = (unsigned char)level(m->elem_offset + e);
  HX_CALL(hx_tmop_adapt_set(tm, fl));
  size_t n = hx_tmop_size(tm);
  double *x = calloc(n, sizeof *x), *v = calloc(n, sizeof *v), *g = calloc(n, sizeof *g), *gp = calloc(n, sizeof *gp),
         *gm = calloc(n, sizeof *gm), *y = calloc(n, sizeof *y), *dg = calloc(n, sizeof *dg), *u = calloc(n, sizeof *u);
  for (size_t i = 0; i < n; i++) x[i] = hx_tmop_x0(tm)[i];
  node_vector(tm, 1, v);
  double E, Eref;
  HX_CALL(hx_tmop_energy(tm, x, &E));
  HX_CALL(energy_by_element(m, &Eref));
  /* gradient and Hessian action against 4th-order central differences along v (small steps: the
     Kershaw map's thinnest elements make the energy strongly nonlinear) */
  const double h = 1e-8;
  double Es[4], *gs[4] = {gp, gm, calloc(n, sizeof(double)), calloc(n, sizeof(double))};
  const double sh[4] = {1, -1, 2, -2};
  HX_CALL(hx_tmop_grad_raw(tm, x, g));
  for (int k = 0; k < 4; k++) {
    for (size_t i = 0; i < n; i++) x[i] = hx_tmop_x0(tm)[i] + sh[k] * h * v[i];
    HX_CALL(hx_tmop_energy(tm, x, &Es[k]));
    HX_CALL(hx_tmop_grad_raw(tm, x, gs[k]));
  }
  for (size_t i = 0; i < n; i++) x[i] = hx_tmop_x0(tm)[i];
  double gv = hx_tmop_dot(tm, g, v), fd = (8 * (Es[0] - Es[1]) - (Es[2] - Es[3])) / (12 * h);
  HX_CALL(hx_tmop_hess_setup(tm, x));
  HX_CALL(hx_tmop_hess_apply(tm, v, y, 1));
  for (size_t i = 0; i < n; i++) gp[i] = (8 * (gs[0][i] - gs[1][i]) - (gs[2][i] - gs[3][i])) / (12 * h) - y[i];
  free(gs[2]), free(gs[3]);
  double herr = sqrt(hx_tmop_dot(tm, gp, gp) / hx_tmop_dot(tm, y, y));
  /* the diagonal against the action on unit vectors (a few nodes of rank 0's numbering) */
  HX_CALL(hx_tmop_diag(tm, dg));
  double derr = 0;
  int single = hx_comm_size(comm) == 1;
  for (size_t i = 0; single && i < n; i += n / 7 + 1) {
    for (size_t j = 0; j < n; j++) u[j] = j == i;
    HX_CALL(hx_tmop_hess_apply(tm, u, y, 1));
    derr = fmax(derr, rel(dg[i], y[i]));
  }
  /* every element at level 1: the -qo 12 energy */
  for (hx_lid e = 0; e < m->num_elem; e++) fl[e] = 1;
  HX_CALL(hx_tmop_adapt_set(tm, fl));
  double E12, E12ref;
  HX_CALL(hx_tmop_energy(tm, x, &E12));
  hx_tmop_opts o12 = o;
  o12.quad_order = 12;
  o12.adapt_quad = 0;
  hx_tmop *t12 = NULL;
  HX_CALL(hx_tmop_create(m, &o12, &t12));
  HX_CALL(hx_tmop_energy(t12, x, &E12ref));
  hx_tmop_destroy(&t12);
  *ok = rel(E, Eref) <= 1e-12 && rel(gv, fd) <= 1e-6 && herr <= 1e-6 && derr <= 1e-12 && rel(E12, E12ref) <= 1e-12 &&
        rel(E, E12ref) > 1e-9;
  if (hx_comm_rank(comm) == 0)
    printf("parts: energy %.15e, by element %.15e; g.v %.10e, central difference %.10e; |H v - dg| / |H v| %.2e; "
           "diagonal %.2e; all at -qo 12: %.15e, -qo 12 alone %.15e %s\n",
           E, Eref, gv, fd, herr, derr, E12, E12ref, *ok ? "ok" : "BAD");
  free(x), free(v), free(g), free(gp), free(gm), free(y), free(dg), free(u), free(fl);
  hx_tmop_destroy(&tm);
  hx_mesh_destroy(&m);
  return 0;
}

/* the elements hx_tmop_adapt flags on a 2 x 1 x 1 box of order 3 whose x is replaced by the cubic
   with f' = c (t - 1/2)^2 + 0.05 in every element (c = 0: the undeformed box) */
static int indicator(hx_comm comm, double c, long long *nflag) {
  hx_box_opts bo;
  hx_box_opts_default(&bo);
  bo.n[0] = 2, bo.n[1] = bo.n[2] = 1;
  bo.hi[0] = 2;
  bo.order = 3;
  hx_mesh *m = NULL;
  HX_CALL(hx_mesher_box(comm, &bo, &m));
  int npe = m->nd * m->nd * m->nd;
  for (hx_lid e = 0; e < m->num_elem && c > 0; e++)
    for (int a = 0; a < npe; a++) {
      double *xp = hx_mesh_elem_x(m, e, 0) + a, t = *xp - floor(*xp), k = floor(*xp);
      if (*xp == 2) t = 1, k = 1;
      *xp = k + c / 3 * ((t - 0.5) * (t - 0.5) * (t - 0.5) + 0.125) + 0.05 * t;
    }
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = "cpu";
  o.adapt_quad = 12;
  hx_tmop *tm = NULL;
  int rc = hx_tmop_create(m, &o, &tm);
  double *x = NULL;
  if (!rc) x = calloc(hx_tmop_size(tm) + 1, sizeof *x);
  for (size_t i = 0; !rc && i < hx_tmop_size(tm); i++) x[i] = hx_tmop_x0(tm)[i];
  if (!rc) rc = hx_tmop_adapt(tm, x, nflag);
  free(x);
  hx_tmop_destroy(&tm);
  hx_mesh_destroy(&m);
  return rc;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  hx_comm comm = MPI_COMM_WORLD;
#else
  (void)argc;
  (void)argv;
  hx_comm comm = HX_COMM_SELF;
#endif
  int ok = 0;
  if (check_parts(comm, &ok)) {
    printf("failed: %s\n", hx_error_message());
    return 1;
  }
  long long nd = -1, nu = -1;
  if (indicator(comm, 40, &nd) || indicator(comm, 0, &nu)) {
    printf("failed: %s\n", hx_error_message());
    return 1;
  }
  int oki = nd == 2 && nu == 0;
  if (hx_comm_rank(comm) == 0)
    printf("indicator: elements flagged with det J dipping between the points %lld (expected 2), undeformed %lld (0) %s\n", nd,
           nu, oki ? "ok" : "BAD");
  ok = ok && oki;
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return !ok;
}
