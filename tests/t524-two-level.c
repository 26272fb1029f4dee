/* t524: the two-level preconditioner (opts.precond = HX_PREC_TWOLEVEL, tmop/pmg.c) on the cpu
   backend, on the ranks of COMM_WORLD.
   (a) the transfers reproduce the mesh: on Kershaw 6^3 of smoothness 1 at order 3 (every element
       trilinear), the corners taken from the mesh's nodes and interpolated back (P) give every
       node to 1e-13; a linear field of the corners is interpolated exactly, independently
       checked against the same field of the nodes' coordinates;
   (b) P^T is P's transpose: (P u, r) = (u, P^T r) to 1e-13 for fields keyed by global node id;
   (c) the preconditioner is symmetric positive definite: (u, M v) = (M u, v) to 1e-12 and
       (v, M v) > (v, D^-1 v) > 0 (the coarse part adds a positive term) at a perturbed mesh, at
       Chebyshev degrees 1, 3 and 5;
   (d) solves: Kershaw 6^3 of smoothness 3 (curved elements) at orders 2 and 3, with Jacobi and
       with the two-level preconditioner, converge to the uniform mesh (E1 <= 1e-8 E0, every node
       within 1e-6 h of the box mesher's mesh without the map), the two-level ones in fewer
       linear iterations;
   (e) a degree that is not odd is refused with a message naming it;
   (f) where the order-1 copy is not valid (an element bent through 220 degrees, its chord copy
       inverted) the correction is off and the solve runs with Jacobi alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_box.h"
#include "hx_error.h"
#include "hx_test_pmg.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

static int check(hx_comm comm, const char *what, int ok) {
  int64_t bad = !ok;
  hx_comm_max_int64(comm, &bad, 1);
  if (hx_comm_rank(comm) == 0) printf("%-78s %s\n", what, bad ? "FAIL" : "ok");
  return (int)bad;
}

static double gdot(hx_tmop *tm, const double *a, const double *b) { return hx_tmop_dot(tm, a, b); }

/* (a), (b), (c) */
static int operators(hx_comm comm) {
  int fail = 0, rank = hx_comm_rank(comm);
  hx_mesh *m = test_kershaw(comm, 6, 6, 6, 3, 0.3);
  if (!m) return 1;
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = "cpu";
  o.num_threads = 2;
  o.precond = HX_PREC_TWOLEVEL;
  hx_tmop *tm = NULL;
  pmg_io io;
  if (hx_tmop_create(m, &o, &tm) || pmg_io_open(tm, &io)) {
    printf("create: %s\n", hx_error_message());
    return 1;
  }
  hx_tmop *c = hx_tmop_pmg_coarse(tm);
  size_t n = tm->nL, nc = c->nL;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
  double *w = malloc(n * sizeof *w), *cx = malloc(nc * sizeof *cx), *cu = malloc(nc * sizeof *cu), *cv = malloc(nc * sizeof *cv);
  memcpy(x, hx_tmop_x0(tm), n * sizeof *x);
  if (pmg_io_linearize(&io, x) || pmg_io_transfer(&io, 2, NULL, cx) || pmg_io_transfer(&io, 0, cx, y)) {
    printf("transfer: %s\n", hx_error_message());
    return 1;
  }
  double e = 0;
  for (size_t i = 0; i < n; i++) e = fmax(e, fabs(y[i] - x[i]));
  hx_comm_max_double(comm, &e, 1);
  if (rank == 0) printf("P (corners of x): max |P x_c - x| = %.2e\n", e);
  fail |= check(comm, "(a) the corners interpolated back give every node (trilinear elements)", e <= 1e-13);
  /* a linear field of the corners against the same field of the nodes */
  for (size_t i = 0; i < nc / 3; i++)
    for (int k = 0; k < 3; k++) cu[3 * i + k] = 0.3 + (k + 1) * cx[3 * i] - 0.7 * cx[3 * i + 1] + 0.25 * k * cx[3 * i + 2];
  if (pmg_io_transfer(&io, 0, cu, y)) return 1;
  e = 0;
  for (size_t i = 0; i < n / 3; i++)
    for (int k = 0; k < 3; k++)
      e = fmax(e, fabs(y[3 * i + k] - (0.3 + (k + 1) * x[3 * i] - 0.7 * x[3 * i + 1] + 0.25 * k * x[3 * i + 2])));
  hx_comm_max_double(comm, &e, 1);
  if (rank == 0) printf("P (a linear field): max error %.2e\n", e);
  fail |= check(comm, "(a) a linear field is interpolated exactly", e <= 1e-13);
  /* (b) */
  for (hx_lid i = 0; i < c->nl; i++)
    for (int k = 0; k < 3; k++) cu[3 * (size_t)i + k] = test_hash((long long)c->lmap->l2g[i] + 11, k);
  for (hx_lid i = 0; i < tm->nl; i++)
    for (int k = 0; k < 3; k++) u[3 * (size_t)i + k] = test_hash((long long)tm->lmap->l2g[i] + 3, k);
  if (pmg_io_transfer(&io, 0, cu, y) || pmg_io_transfer(&io, 1, u, cv)) return 1;
  double lhs = gdot(tm, y, u), rhs = gdot(c, cu, cv);
  if (rank == 0) printf("(P u, r) = %.15e, (u, P^T r) = %.15e\n", lhs, rhs);
  fail |= check(comm, "(b) P^T is the transpose of P", fabs(lhs - rhs) <= 1e-13 * fabs(lhs) && fabs(lhs) > 0);
  /* (c) at a perturbed state, degrees 1, 3, 5 */
  for (hx_lid i = 0; i < tm->nl; i++)
    for (int k = 0; k < 3; k++) {
      x[3 * (size_t)i + k] += 0.01 * test_hash((long long)tm->lmap->l2g[i] + 7, k);
      v[3 * (size_t)i + k] = test_hash((long long)tm->lmap->l2g[i] + 5, k);
    }
  hx_tmop_dproject(tm, u); /* cpu: backend vectors are host arrays */
  hx_tmop_dproject(tm, v);
  for (int deg = 1; deg <= 5; deg += 2) {
    pmg_io_close(&io);
    tm->o.precond_degree = deg;
    hx_tmop_pmg_destroy(tm);
    if (hx_tmop_pmg_create(tm) || pmg_io_open(tm, &io) || pmg_io_linearize(&io, x) || pmg_io_apply(&io, v, y) ||
        pmg_io_apply(&io, u, w)) {
      printf("apply: %s\n", hx_error_message());
      return 1;
    }
    double uMv = gdot(tm, u, y), vMu = gdot(tm, v, w), vMv = gdot(tm, v, y);
    /* the Jacobi part alone */
    if (tm->be->precond(tm->pa, io.dinv, v, w)) return 1;
    double vDv = gdot(tm, v, w);
    if (rank == 0)
      printf("degree %d: (u, M v) = %.15e, (M u, v) = %.15e, (v, M v) = %.6e, (v, D^-1 v) = %.6e, active %d\n", deg, uMv, vMu,
             vMv, vDv, hx_tmop_pmg_active(tm));
    char what[96];
    snprintf(what, sizeof what, "(c) degree %d: M symmetric, positive, above Jacobi alone", deg);
    fail |= check(comm, what, hx_tmop_pmg_active(tm) && fabs(uMv - vMu) <= 1e-12 * fabs(uMv) && vMv > vDv && vDv > 0);
  }
  pmg_io_close(&io);
  hx_tmop_destroy(&tm);
  hx_mesh_destroy(&m);
  free(x), free(y), free(u), free(v), free(w), free(cx), free(cu), free(cv);
  return fail;
}

static int solve(hx_comm comm, int p, int precond, hx_tmop_result *r, double *dev) {
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = "cpu";
  o.num_threads = 2;
  o.precond = precond;
  return test_solve_uniform(comm, 6, p, 3, &o, r, dev);
}

static int checks(hx_comm comm) {
  int fail = operators(comm), rank = hx_comm_rank(comm);
  for (int p = 2; p <= 3; p++) {
    hx_tmop_result rj, rt;
    double dj, dt;
    if (solve(comm, p, HX_PREC_JACOBI, &rj, &dj) || solve(comm, p, HX_PREC_TWOLEVEL, &rt, &dt)) return 1;
    if (rank == 0)
      printf("p %d: jacobi %d Newton / %d linear, E %.3e, dev %.2e h; two-level %d / %d, E %.3e, dev %.2e h\n", p,
             rj.newton_iters, rj.linear_iters, rj.energy, dj, rt.newton_iters, rt.linear_iters, rt.energy, dt);
    char what[96];
    snprintf(what, sizeof what, "(d) p = %d: both converge to the uniform mesh", p);
    fail |= check(comm, what,
                  rj.converged && rt.converged && rj.energy <= 1e-8 * rj.energy0 && rt.energy <= 1e-8 * rt.energy0 && dj < 1e-6 &&
                      dt < 1e-6);
    snprintf(what, sizeof what, "(d) p = %d: the two-level solve takes fewer linear iterations", p);
    fail |= check(comm, what, rt.linear_iters < rj.linear_iters);
  }
  /* (f) an element of order 4 bent through 220 degrees of an annulus (1 <= r <= 2): valid, its
     chord copy inverted, so every step's correction is off (Jacobi alone) and the solve runs */
  {
    hx_mesh *m = test_bent_element(4);
    int ok = m != NULL;
    if (ok) {
      hx_tmop_opts o;
      test_bent_opts(&o);
      o.precond = HX_PREC_TWOLEVEL;
      o.log = tmpfile(); /* the solve's log says the correction is off in every step */
      hx_tmop_result r;
      int rc = hx_tmop_optimize(m, &o, &r), off = 0;
      if (o.log) {
        char line[512];
        rewind(o.log);
        while (fgets(line, sizeof line, o.log)) off += strstr(line, "two-level correction off") != NULL;
        fclose(o.log);
      }
      if (rank == 0)
        printf("bent element: rc %d, %d Newton, E %.4e -> %.4e, corrections %lld, steps logged without one %d\n", rc,
               r.newton_iters, r.energy0, r.energy, r.n_precond, off);
      ok = rc == 0 && r.newton_iters > 0 && r.energy < r.energy0 && r.n_precond == 0 && off == r.newton_iters;
      if (rc) printf("optimize: %s\n", hx_error_message());
    }
    fail |= check(comm, "(f) an invalid order-1 copy: the correction off, the solve runs", ok);
    hx_mesh_destroy(&m);
  }
  /* (e) */
  {
    hx_mesh *m = test_kershaw(comm, 6, 6, 6, 2, 0.3);
    hx_tmop_opts o;
    hx_tmop_opts_default(&o);
    o.backend = "cpu";
    o.precond = HX_PREC_TWOLEVEL;
    o.precond_degree = 4;
    hx_tmop *tm = NULL;
    int rc = hx_tmop_create(m, &o, &tm);
    const char *msg = hx_error_message();
    if (rank == 0) printf("degree 4: rc %d: %s\n", rc, msg);
    fail |= check(comm, "(e) an even degree is refused, the message names it",
                  rc == HX_ERR_INPUT && strstr(msg, "odd") && strstr(msg, "4") && !tm);
    hx_error_clear();
    hx_tmop_destroy(&tm);
    hx_mesh_destroy(&m);
  }
  return fail;
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
  int fail = checks(comm);
  if (hx_comm_rank(comm) == 0) printf("t524: %s\n", fail ? "FAILED" : "passed");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
