/* t520: the Newton solve recovers where no step passes the line search (issue 34, item 2).
   Kershaw 6 x 4 x 4 ([0, 1.5] x [0, 1]^2), metric 303, unit target, GLL -qo 8, sliding faces, 100 Newton / 40 MINRES:
   (a) eps 0.2 at p = 4: without recovery (opts.recover = 0) the solve stops on a failed line
       search far above the optimum (the GLL-node det J check refuses every step); with it, it
       converges (E1 <= 1e-8 E0, every node within 1e-6 h of the uniform mesh), some recovery
       ran, Newton steps were taken in relaxed mode, and det J > 0 at every GLL node of the
       result (hx_mesh_check, independent of the optimizer);
   (b) the same with the iteration cap at two steps past the failed line search, reached in relaxed mode (folded at a GLL node):
       the result is the last iterate that passed the node check, bitwise the stopped run's of (a);
   (c) eps 0.3 at p = 3, which converged before: no recovery runs, and the run with recovery
       equals the one without bitwise (nodes, energy, iterations);
   (d) that case with strict decrease and |r| <= 1e-16 |r0| (out of reach): where rounding stops the
       energy falling, the Newton direction fails the line search, steepest descent (b) and Krylov
       restarts (c) run (each logged) until neither passes, and the solve stops saying so;
   (e) (a)'s case with the Bernstein bound in the line search (--detj-check bound): converges
       as (a), the bound ran, and every element of the result is proven valid by the bound
       (hx_detj_bound_elem, independent of the solve's own passes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_detj_bound.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

/* (b)'s iteration cap: two Newton steps after (a)'s line search failed */
enum { CAP = 13 };
/* the line search's det J rule (opts.detj_nodes): the nodes, the default; 3 in (e) */
static int detj_rule = 1;

static int run_opts(hx_comm comm, int p, double eps, int recover, int iters, int strict, hx_tmop_result *r, hx_mesh **out) {
  hx_mesh *m = test_kershaw(comm, 6, 4, 4, p, eps);
  if (!m) return 1;
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.recover = recover;
  o.detj_nodes = detj_rule;
  o.newton_iters = iters;
  o.num_threads = 2;
  if (strict) {
    o.strict_decrease = 1;
    o.newton_rtol = 1e-16;
  }
  o.backend = "cpu";
  if (hx_tmop_optimize(m, &o, r)) {
    printf("optimize failed: %s\n", hx_error_message());
    hx_mesh_destroy(&m);
    return 1;
  }
  *out = m;
  return 0;
}

static int run(hx_comm comm, int p, double eps, int recover, int iters, hx_tmop_result *r, hx_mesh **out) {
  return run_opts(comm, p, eps, recover, iters, 0, r, out);
}

static int same_x(const hx_mesh *a, const hx_mesh *b) {
  size_t nx = (size_t)a->num_elem * 3 * a->nd * a->nd * a->nd;
  return memcmp(a->x, b->x, nx * sizeof *a->x) == 0;
}

static int check(const char *what, int ok) {
  printf("%-72s %s\n", what, ok ? "ok" : "FAIL");
  return !ok;
}

static int checks(hx_comm comm);

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
  printf("t520: %s\n", fail ? "FAILED" : "passed");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}

static int checks(hx_comm comm) {
  int fail = 0;
  hx_tmop_result r0, r1, r2, r3, r4, r5;
  hx_mesh *m0 = NULL, *m1 = NULL, *m2 = NULL, *m3 = NULL, *m4 = NULL, *m5 = NULL;
  if (run(comm, 4, 0.2, 0, 100, &r0, &m0) || run(comm, 4, 0.2, 1, 100, &r1, &m1) || run(comm, 4, 0.2, 1, CAP, &r2, &m2) ||
      run(comm, 3, 0.3, 0, 100, &r3, &m3) || run(comm, 3, 0.3, 1, 100, &r4, &m4) || run_opts(comm, 3, 0.3, 1, 100, 1, &r5, &m5))
    return 1;

  /* (a) */
  printf("(a) without recovery: %d Newton, E %.3e -> %.3e, %s\n", r0.newton_iters, r0.energy0, r0.energy, r0.stop_reason);
  printf("(a) with recovery:    %d Newton, E %.3e -> %.3e, %s; recoveries %d %d %d, relaxed steps %d\n", r1.newton_iters,
         r1.energy0, r1.energy, r1.stop_reason, r1.recover_relaxed, r1.recover_steepest, r1.recover_krylov, r1.relaxed_iters);
  fail |= check("(a) without recovery the line search fails above 0.1 E0",
                !strcmp(r0.stop_reason, "line search failed") && r0.energy > 0.1 * r0.energy0);
  fail |= check("(a) with recovery: converged, E1 <= 1e-8 E0", r1.converged && r1.energy <= 1e-8 * r1.energy0);
  fail |= check("(a) some recovery ran, steps taken in relaxed mode",
                r1.recover_relaxed + r1.recover_steepest + r1.recover_krylov > 0 && r1.relaxed_iters > 0);
  fail |= check("(a) the result is the last iterate", r1.result_iter == r1.newton_iters);
  hx_mesh *ref = test_kershaw(comm, 6, 4, 4, 4, 2.0); /* eps >= 1: the uniform mesh */
  if (!ref) return 1;
  double dev = 0;
  size_t nx = (size_t)m1->num_elem * 3 * m1->nd * m1->nd * m1->nd;
  for (size_t i = 0; i < nx; i++) dev = fmax(dev, fabs(m1->x[i] - ref->x[i]));
  printf("(a) largest distance from the uniform mesh: %.2e h\n", dev * 4);
  fail |= check("(a) every node within 1e-6 h of the uniform mesh", dev * 4 < 1e-6);
  hx_mesh_check_report rep;
  if (hx_mesh_check(m1, 1e-12, &rep)) return 1;
  printf("(a) min det J at the GLL nodes of the result: %.4e\n", rep.min_detj);
  fail |= check("(a) det J > 0 at every GLL node of the result", rep.min_detj > 0);

  /* (b) */
  printf("(b) cap %d: %d Newton, %s, result iterate %d, E %.10e\n", CAP, r2.newton_iters, r2.stop_reason, r2.result_iter,
         r2.energy);
  fail |= check("(b) the cap is reached in relaxed mode", r2.newton_iters == CAP && r2.relaxed_iters > 0);
  fail |= check("(b) the result is the stopped run's last iterate, bitwise",
                r2.result_iter == r0.newton_iters && r2.energy == r0.energy && r2.min_detj == r0.min_detj && same_x(m2, m0));
  if (hx_mesh_check(m2, 1e-12, &rep)) return 1;
  fail |= check("(b) det J > 0 at every GLL node of the result", rep.min_detj > 0);

  /* (c) */
  printf("(c) p = 3 eps 0.3: %d Newton / %d MINRES, E %.3e -> %.3e, %s\n", r4.newton_iters, r4.linear_iters, r4.energy0,
         r4.energy, r4.stop_reason);
  fail |= check("(c) converged, no recovery ran",
                r4.converged && r4.recover_relaxed + r4.recover_steepest + r4.recover_krylov + r4.relaxed_iters == 0 &&
                    r4.result_iter == r4.newton_iters);
  fail |= check("(c) the same run as without recovery, bitwise",
                r4.newton_iters == r3.newton_iters && r4.linear_iters == r3.linear_iters && r4.energy == r3.energy &&
                    r4.min_detj == r3.min_detj && same_x(m4, m3));
  /* (d) */
  printf("(d) strict decrease to |r| <= 1e-16 |r0|: %d Newton, E1 %.3e, %s; recoveries %d %d %d\n", r5.newton_iters, r5.energy,
         r5.stop_reason, r5.recover_relaxed, r5.recover_steepest, r5.recover_krylov);
  fail |= check("(d) steepest descent and Krylov restarts ran, then the solve stopped",
                r5.recover_steepest > 0 && r5.recover_krylov > 0 && !strncmp(r5.stop_reason, "line search failed (", 20));
  fail |= check("(d) the result is the last iterate (the energy only fell), E1 <= 1e-8 E0",
                r5.result_iter == r5.newton_iters && r5.energy <= 1e-8 * r5.energy0);
  if (hx_mesh_check(m5, 1e-12, &rep)) return 1;
  fail |= check("(d) det J > 0 at every GLL node of the result", rep.min_detj > 0);
  hx_mesh_destroy(&m5);
  /* (e) */
  hx_tmop_result r6;
  hx_mesh *m6 = NULL;
  detj_rule = 3;
  if (run(comm, 4, 0.2, 1, 100, &r6, &m6)) return 1;
  detj_rule = 1;
  printf("(e) --detj-check bound: %d Newton, E %.3e -> %.3e, %s; %lld bound passes, %.3f s of %.3f s\n", r6.newton_iters,
         r6.energy0, r6.energy, r6.stop_reason, r6.n_bound, r6.time_bound, r6.time_total);
  fail |= check("(e) converged, E1 <= 1e-8 E0; the bound ran", r6.converged && r6.energy <= 1e-8 * r6.energy0 && r6.n_bound > 0);
  hx_detj_bound_opts bo;
  hx_detj_bound_opts_default(&bo);
  hx_detj_bound_ctx *bc = NULL;
  if (hx_detj_bound_ctx_create(m6->order, &bo, &bc)) return 1;
  long long proven = 0;
  size_t npe6 = (size_t)3 * m6->nd * m6->nd * m6->nd;
  for (hx_lid e = 0; e < m6->num_elem; e++) {
    hx_detj_bound_result br;
    if (hx_detj_bound_elem(bc, m6->x + (size_t)e * npe6, &br)) return 1;
    proven += br.verdict == HX_VALID_PROVEN;
  }
  hx_detj_bound_ctx_destroy(&bc);
  printf("(e) proven valid: %lld of %lld elements\n", proven, (long long)m6->num_elem);
  fail |= check("(e) every element of the result proven valid", proven == m6->num_elem);
  hx_mesh_destroy(&m6);
  hx_mesh_destroy(&ref);
  hx_mesh_destroy(&m0);
  hx_mesh_destroy(&m1);
  hx_mesh_destroy(&m2);
  hx_mesh_destroy(&m3);
  hx_mesh_destroy(&m4);
  return fail;
}
