/* hexpack optimize: TMOP on a mesh file; also the optimizer's flags (hx_cli_tmop_table) and the
   optimize step that every mesher's --optimize shares (hx_cli_tmop_get, hx_cli_optimize). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_cli.h"
#include "hx_curve.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_kernels.h"
#include "hx_memory.h"
#include "hx_metrics.h"
#include "hx_quality.h"
#include "hx_tmop.h"

void hx_cli_tmop_sj_defaults(hx_optset *s, hx_tmop_opts *o) {
  hx_opts_default(s, "--metric", "318");
  hx_opts_default(s, "--target", "ideal-elem");
  hx_opts_default(s, "--weight", "equal");
  hx_opts_default(s, "--keep-sj", "0.1");
  hx_opts_default(s, "--newton-iters", "10");
  /* a mesher's mesh is valid at its GLL nodes by its own checks; a fold between them is not
     untangled: the untangling's energy does not see it (a 4-sphere bed at order 4: 4 such
     elements -> 3 in 35 untangling steps, the run 23 s -> 34 s) */
  hx_opts_help_line(s, "--untangle", "untangle an inverted mesh first, then optimize (default here: off)");
  o->untangle = 0;
}

int hx_cli_re2_guard_open(const hx_mesh *m, const hx_cli_common *c, hx_re2_guard *g, hx_tmop_opts *o) {
  memset(g, 0, sizeof *g);
  int any = 0;
  for (int k = 0; k < c->num_out; k++) {
    const hx_format *f = NULL;
    if (hx_format_for_path(c->out[k], &f)) hx_error_clear(); /* the writer says it */
    else any |= f->write == hx_export_re2;
  }
  if (!any) return HX_OK;
  return hx_re2_guard_open(m, g, &o->elem_ok, &o->elem_ok_ctx);
}

static int metric_check(const char *flag, const char *v) {
  const hx_metric_info *mi;
  return hx_opts_flag_error(flag, hx_metric_find(atoi(v), &mi));
}

static int target_check(const char *flag, const char *v) {
  int t;
  return hx_opts_flag_error(flag, hx_target_parse(v, &t));
}

/* --limit-dist D | small | elem into o */
static int limit_dist_parse(const char *flag, const char *v, hx_tmop_opts *o) {
  if (!strcmp(v, "small")) o->lim_dist_kind = HX_LIM_DIST_SMALL;
  else if (!strcmp(v, "elem")) o->lim_dist_kind = HX_LIM_DIST_ELEM;
  else {
    char *end = NULL;
    double d = strtod(v, &end);
    HX_CHECK(end != v && !*end && d > 0 && d <= 1e30, HX_ERR_INPUT, "flag %s expects a distance > 0, small or elem, got '%s'",
             flag, v);
    o->lim_dist_kind = HX_LIM_DIST_CONST;
    o->lim_dist = d;
  }
  return HX_OK;
}

static int limit_dist_check(const char *flag, const char *v) {
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  return limit_dist_parse(flag, v, &o);
}

static int adapt_check(const char *flag, const char *v) {
  int q;
  return hx_opts_flag_error(flag, hx_adapt_quad_parse(v, &q));
}

static int backend_check(const char *flag, const char *v) {
  const hx_backend *be;
  return hx_opts_flag_error(flag, hx_backend_find(v, &be));
}

/* The optimizer's flags (MFEM numbering and names where MFEM's mesh-optimizer has them). The
   defaults are the library's (hx_tmop_opts_default); a command's own are set on its table
   (hx_cli_tmop_sj_defaults, hx_opts_default). */
const hx_opt hx_cli_tmop_table[] = {
    {"--metric", NULL, HX_OPT_INT, "N", "303", 1, 999, 1, 1, NULL, 0, "TMOP metric, MFEM numbering", metric_check},
    {"--target", NULL, HX_OPT_CHOICE, NULL, "ideal-unit", 0, 0, 1, 1, "ideal-unit|ideal-equal|ideal-given|ideal-elem;1|2|3|4", 0,
     "target matrices, also by number 1..4 (MFEM -tid 1, 2, 3; ideal-elem: each element's own initial volume)", target_check},
    HX_INT("--newton-iters", "N", "100", 0, 100000, 0, "Newton steps at most"),
    HX_DBL("--keep-sj", "F", "0", 0, 1, 0,
           "then put back the nodes of every element whose Nek5000 scaled Jacobian fell below min(F, its initial value)"),
    HX_DBL("--keep-aspect", "A", "0", 0, 1e6, 0,
           "the same for an element whose aspect ratio rose above max(A, its initial value) (0: off)"),
    HX_DBLS("--repair", "S[,R[,W[,K]]]", "0", 1, 4, 0, 1e6, 0,
            "then solve again in patches of R rings (2) about the elements below scaled Jacobian S, weight W (10), K steps (10)"),
    HX_DBL("--limit", "C", "0", 0, 1e30, 0,
           "the limiting term (MFEM's -lc): the energy gains C 0.5 |x - x0|^2 / D^2 at every quadrature point (0: off)"),
    HX_STR("--limit-dist", "D|small|elem", "1", 0,
           "the limiting term's distance D (MFEM's 1); small: (mesh volume)^(1/3) / 100; elem: each element's volume^(1/3)",
           limit_dist_check),
    {"--backend", NULL, HX_OPT_CHOICE, NULL, "auto", 0, 0, 1, 1, "auto|cpu|cuda", 0,
     "backend of the kernels (auto: cuda where built and a device is present)", backend_check},
    HX_INT("--threads", "N", NULL, 1, 4096, 0, "OpenMP threads of the cpu backend (default: OpenMP's)"),
    HX_CHOICE("--boundary", "fixed|slide", "slide", 0,
              "boundary nodes slide on their planes, spheres and cylinders (and circles where two meet), or stay fixed"),
    HX_FLAG("--quiet", 0, "no per-iteration log"),
    HX_FLAG("--untangle", 0, "untangle an inverted mesh first, then optimize (default here: on where the mesh is inverted)"),
    HX_FLAG("--no-untangle", 0, "refuse an inverted mesh instead of untangling it"),
    HX_INT("--quad-order", "Q", "8", 1, 40, HX_OPT_EXPERT, "quadrature exact for order Q (MFEM -qo)"),
    HX_CHOICE("--quad-type", "gll|gauss;1|2", "gll", HX_OPT_EXPERT, "quadrature points: Gauss-Lobatto (1) or Gauss (2)"),
    HX_DBL("--newton-rtol", "R", "1e-10", 0, 1, HX_OPT_EXPERT, "stop when the residual fell by R"),
    HX_INT("--linear-iters", "N", "40", 1, 100000, HX_OPT_EXPERT, "linear solver iterations per Newton step at most"),
    HX_DBL("--linear-rtol", "R", NULL, 0, 1, HX_OPT_EXPERT, "fixed linear tolerance (default: Eisenstat-Walker type 1 forcing)"),
    HX_CHOICE("--linear-solver", "minres|cg", "minres", HX_OPT_EXPERT, "linear solver of the Newton steps"),
    HX_CHOICE("--precond", "auto|jacobi|two-level", "auto", HX_OPT_EXPERT,
              "the linear solver's preconditioner: Jacobi, or Jacobi plus a correction on the order-1 copy of the mesh "
              "(auto: two-level from order 2)"),
    HX_INT("--precond-degree", "K", "3", 1, 99, HX_OPT_EXPERT,
           "the two-level preconditioner's Chebyshev degree on the order-1 copy (odd)"),
    HX_CHOICE("--hessian", "onthefly|stored", "onthefly", HX_OPT_EXPERT, "Hessian action computed on the fly or stored"),
    HX_CHOICE("--weight", "volume|equal", "volume", HX_OPT_EXPERT,
              "each element's energy weighted by its target volume (MFEM) or alike"),
    HX_CHOICE("--detj-check", "auto|nodes|quad|fine|bound|auto-fine", "auto", HX_OPT_EXPERT,
              "the line search rejects det J <= 0 at: quadrature points and GLL nodes, quadrature points only, also Gauss "
              "points N + 4, or anywhere by the Bernstein bound (auto: bound up to order 4, nodes above; auto-fine: bound "
              "on cuda up to order 4, fine otherwise)"),
    HX_STR("--adapt-quad", "auto|off|Q", "off", HX_OPT_EXPERT,
           "adaptive quadrature: an element whose det J may dip between the quadrature points (Bernstein bound) is "
           "integrated exactly for order Q > --quad-order from then on (auto: --quad-order + 4, from order 4)",
           adapt_check),
    HX_CHOICE("--coarse-start", "auto|on|off", "off", HX_OPT_EXPERT,
              "solve the order-1 copy first and start from its moves (auto: from order 3)"),
    HX_FLAG("--strict-decrease", HX_OPT_EXPERT, "the line search demands an energy decrease"),
    HX_INT("--untangle-iters", "N", "200", 0, 1000000, HX_OPT_EXPERT, "the untangling's Newton steps at most"),
    HX_INT("--relaxed-max", "N", "20", 0, 1000000, HX_OPT_EXPERT,
           "stop after N steps in a row whose iterates fail the det J check (0: no limit)"),
    HX_FLAG("--no-recover", HX_OPT_EXPERT, "stop where no step passes the line search (no recovery)"),
    HX_FLAG("--sync-timers", HX_OPT_EXPERT, "the operator timers wait for the backend (profiling)"),
    HX_CHOICE("--debug", "tmop", NULL, HX_OPT_EXPERT,
              "diagnostics on stderr: the optimizer's boundary nodes and held-back elements"),
    {0},
};

void hx_cli_tmop_add(hx_optset *s) {
  static char help[400];
  hx_opts_add(s, hx_cli_tmop_table);
  snprintf(help, sizeof help, "TMOP metric, MFEM numbering: %s", hx_metric_names());
  hx_opts_help_line(s, "--metric", help);
}

/* 1 if the comma list s has the word w */
static int list_has(const char *s, const char *w) {
  size_t n = strlen(w);
  for (const char *p = s; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (!strncmp(p, w, n) && (p[n] == ',' || p[n] == 0)) return 1;
  return 0;
}

int hx_cli_tmop_get(const hx_optset *s, hx_tmop_opts *o, int *quiet) {
  hx_opts_int(s, "--metric", &o->metric);
  int t = hx_opts_choice(s, "--target");
  if (t >= 0) o->target = 1 + t % 4;
  hx_opts_int(s, "--newton-iters", &o->newton_iters);
  hx_opts_double(s, "--keep-sj", &o->keep_sj);
  hx_opts_double(s, "--keep-aspect", &o->keep_aspect);
  double p[4];
  int cnt = hx_opts_doubles(s, "--repair", p, 4);
  if (cnt > 0) {
    HX_CHECK(p[0] <= 1 && (cnt < 2 || (p[1] >= 1 && p[1] <= 16 && p[1] == floor(p[1]))) && (cnt < 3 || p[2] >= 1) &&
                 (cnt < 4 || (p[3] >= 1 && p[3] <= 1000 && p[3] == floor(p[3]))),
             HX_ERR_INPUT,
             "flag --repair: expected S[,R[,W[,K]]] with S in 0..1, R an integer in 1..16, W in 1..1e6, K an integer in "
             "1..1000, got '%s'",
             hx_opts_str(s, "--repair"));
    o->repair_sj = p[0];
    if (cnt > 1) o->repair_rings = (int)p[1];
    if (cnt > 2) o->repair_weight = p[2];
    if (cnt > 3) o->repair_iters = (int)p[3];
  }
  hx_opts_double(s, "--limit", &o->lim_const);
  HX_CALL(limit_dist_parse("--limit-dist", hx_opts_str(s, "--limit-dist"), o));
  o->backend = hx_opts_str(s, "--backend");
  hx_opts_int(s, "--threads", &o->num_threads);
  o->boundary = hx_opts_choice(s, "--boundary") == 0 ? HX_BND_FIXED : HX_BND_SLIDE;
  if (quiet && hx_opts_given(s, "--quiet")) *quiet = 1;
  /* --untangle and --no-untangle: the later one wins */
  int wu = hx_opts_where(s, "--untangle"), wn = hx_opts_where(s, "--no-untangle");
  if (wu || wn) o->untangle = wu > wn;
  hx_opts_int(s, "--quad-order", &o->quad_order);
  o->quad_type = hx_opts_choice(s, "--quad-type") % 2 == 1 ? HX_QUAD_GL : HX_QUAD_GLL;
  hx_opts_double(s, "--newton-rtol", &o->newton_rtol);
  hx_opts_int(s, "--linear-iters", &o->linear_iters);
  if (hx_opts_double(s, "--linear-rtol", &o->linear_rtol)) o->adaptive_rtol = 0;
  o->linear_solver = hx_opts_choice(s, "--linear-solver") == 1 ? HX_LIN_CG : HX_LIN_MINRES;
  o->precond = hx_opts_choice(s, "--precond") == 1 ? HX_PREC_JACOBI : HX_PREC_TWOLEVEL; /* two-level: from order 2 */
  hx_opts_int(s, "--precond-degree", &o->precond_degree);
  HX_CHECK(o->precond_degree % 2 == 1, HX_ERR_INPUT, "flag --precond-degree: expected an odd integer, got %d", o->precond_degree);
  o->hess_strategy = hx_opts_choice(s, "--hessian") == 1 ? HX_HESS_STORED : HX_HESS_ONTHEFLY;
  o->equal_weight = hx_opts_choice(s, "--weight") == 1;
  static const int detj[6] = {-1, 1, 0, 2, 3, -2};
  o->detj_nodes = detj[hx_opts_choice(s, "--detj-check")];
  static const int coarse[3] = {-1, 1, 0};
  o->coarse_order = coarse[hx_opts_choice(s, "--coarse-start")];
  o->strict_decrease = hx_opts_given(s, "--strict-decrease") > 0;
  hx_opts_int(s, "--untangle-iters", &o->untangle_iters);
  hx_opts_int(s, "--relaxed-max", &o->relaxed_max);
  const char *aq = hx_opts_str(s, "--adapt-quad");
  if (aq) HX_CALL(hx_opts_flag_error("--adapt-quad", hx_adapt_quad_parse(aq, &o->adapt_quad)));
  HX_CHECK(o->adapt_quad <= 0 || o->adapt_quad > o->quad_order, HX_ERR_INPUT,
           "flag --adapt-quad %d must exceed --quad-order %d (the rule of the elements it leaves)", o->adapt_quad, o->quad_order);
  o->recover = !hx_opts_given(s, "--no-recover");
  o->sync_timers = hx_opts_given(s, "--sync-timers") > 0;
  const char *dbg = hx_opts_str(s, "--debug");
  o->debug = dbg && list_has(dbg, "tmop");
  return HX_OK;
}

/* Nek5000's scaled Jacobian (min det J / max det J at the GLL nodes of an element):
   minimum and mean over the mesh (collective). */
static int nek_quality(const hx_mesh *m, double *sj_min, double *sj_mean) {
  hx_quality_opts qo;
  hx_quality_opts_default(&qo);
  qo.num_worst = 0;
  hx_quality_report q;
  memset(&q, 0, sizeof q);
  HX_CALL(hx_quality_mesh(m, &qo, NULL, &q));
  *sj_min = q.stat[4].min;
  *sj_mean = q.stat[4].mean;
  hx_quality_report_free(&q);
  return HX_OK;
}

/* The validity of an untangled mesh, proven by the Bernstein bound of det J (collective). */
static int untangle_proof(const hx_mesh *m, hx_detj_bound_summary *b) {
  hx_quality_opts qo;
  hx_quality_opts_default(&qo);
  qo.num_worst = 0;
  qo.validity = 1;
  hx_quality_report q;
  memset(&q, 0, sizeof q);
  HX_CALL(hx_quality_mesh(m, &qo, NULL, &q));
  *b = q.bound;
  hx_quality_report_free(&q);
  return HX_OK;
}

/* the untangling's fields (collective proof done by the caller) */
static void untangle_json(const hx_tmop_result *r, const hx_detj_bound_summary *b) {
  hx_cli_json_add("\"inverted0\": %lld, \"inverted\": %lld, \"untangle_iters\": %d, \"untangle_stop\": \"%s\", "
                  "\"validity\": \"%s\", \"num_proven\": %lld, \"num_not_proven\": %lld, \"num_invalid\": %lld, "
                  "\"seconds\": %.3f",
                  r->inverted0, r->inverted, r->untangle_iters, r->untangled ? r->untangle_stop : "no element inverted",
                  r->untangled ? hx_validity_name(b->verdict) : "unchecked", (long long)b->num_proven,
                  (long long)b->num_not_proven, (long long)b->num_invalid, r->untangle_time);
}

int hx_cli_optimize(hx_mesh *m, hx_tmop_opts *o, int quiet, const char *json_key) {
  int rank = hx_comm_rank(m->comm);
  FILE *log = hx_cli_log();
  o->log = (!quiet && rank == 0) ? log : NULL; /* the per-iteration log, line by line (main: line-buffered) */
  double sj0 = 0, sjm0 = 0, sj1 = 0, sjm1 = 0;
  HX_CALL(nek_quality(m, &sj0, &sjm0));
  hx_tmop_result r;
  HX_CALL(hx_tmop_optimize(m, o, &r));
  HX_CALL(nek_quality(m, &sj1, &sjm1));
  hx_detj_bound_summary b;
  memset(&b, 0, sizeof b);
  if (r.untangled) HX_CALL(untangle_proof(m, &b));
  if (rank == 0 && r.untangled)
    fprintf(log,
            "untangle: %lld -> %lld inverted element(s) (det J <= 0 at a GLL node, quadrature or Gauss point) in %d Newton "
            "step(s), %s, %.2f s; %s mesh: %s (%lld proven, %lld not proven, %lld invalid; min bound %.3e)\n",
            r.inverted0, r.inverted, r.untangle_iters, r.untangle_stop, r.untangle_time,
            o->untangle == 2 ? "untangled" : "optimized", hx_validity_name(b.verdict), (long long)b.num_proven,
            (long long)b.num_not_proven, (long long)b.num_invalid, b.lower_min);
  if (o->untangle == 2) { /* untangle only */
    hx_cli_json_open(json_key ? json_key : "untangle");
    untangle_json(&r, &b);
    hx_cli_json_close();
    if (rank == 0 && !r.untangled) fprintf(log, "untangle: no element inverted\n");
    return HX_OK;
  }
  if (json_key) hx_cli_json_open(json_key);
  if (r.untangled) {
    hx_cli_json_open("untangle");
    untangle_json(&r, &b);
    hx_cli_json_close();
  }
  hx_cli_json_add("\"metric\": %d, \"target\": \"%s\", \"vector_dofs\": %lld, "
                  "\"energy0\": %.10e, \"energy\": %.10e, \"min_detj0\": %.10e, \"min_detj\": %.10e, "
                  "\"scaled_jacobian_min0\": %.6f, \"scaled_jacobian_min\": %.6f, \"scaled_jacobian_mean0\": %.6f, "
                  "\"scaled_jacobian_mean\": %.6f, "
                  "\"newton_iters\": %d, \"linear_iters\": %d, \"stop\": \"%s\", \"nodes_reverted\": %lld, "
                  "\"keep_sj_rounds\": %d, \"repair_bad\": %lld, \"repair_free\": %lld, \"repair_after\": %lld, "
                  "\"repair_passes\": %d, \"seconds\": %.3f, \"recover_relaxed\": %d, \"recover_steepest\": %d, "
                  "\"recover_krylov\": %d, \"relaxed_iters\": %d, \"result_iter\": %d, \"coarse_order\": %d, "
                  "\"coarse_newton\": %d, \"coarse_held\": %lld, \"adapt_refined\": %lld, \"adapt_events\": %d, "
                  "\"seconds_setup\": %.3f, \"seconds_newton\": %.3f, \"seconds_keep\": %.3f, \"seconds_repair\": %.3f",
                  o->metric, hx_target_name(o->target), r.vector_dofs, r.energy0, r.energy, r.min_detj0, r.min_detj, sj0, sj1,
                  sjm0, sjm1, r.newton_iters, r.linear_iters, r.stop_reason, r.nodes_reverted, r.keep_sj_rounds, r.repair_bad,
                  r.repair_free, r.repair_after, r.repair_passes, r.time_total, r.recover_relaxed, r.recover_steepest,
                  r.recover_krylov, r.relaxed_iters, r.result_iter, r.coarse_order, r.coarse_newton, r.coarse_held,
                  r.adapt_refined, r.adapt_events, r.time_setup, r.time_newton, r.time_keep, r.time_repair);
  if (json_key) hx_cli_json_close();
  if (rank == 0) {
    fprintf(log,
            "optimize: metric %d, target %s, %lld vector DOFs: energy %.6e -> %.6e (%.2f%% decrease), "
            "min det J %.4e -> %.4e, %d Newton / %d linear iterations, %s, %.2f s (set-up %.2f s, solve %.2f s, "
            "hold-back %.2f s, repair %.2f s)\n",
            o->metric, hx_target_name(o->target), r.vector_dofs, r.energy0, r.energy,
            r.energy0 != 0 ? 100.0 * (r.energy0 - r.energy) / r.energy0 : 0.0, r.min_detj0, r.min_detj, r.newton_iters,
            r.linear_iters, r.stop_reason, r.time_total, r.time_setup, r.time_newton, r.time_keep, r.time_repair);
    if (o->log) /* not --quiet: where the first solve's time went (the operators' timers; with --sync-timers exact) */
      fprintf(log,
              "optimize: the solve's %.2f s: set-up %.2f s, energy %.2f s (%lld), gradient %.2f s (%lld), Hessian set-up %.2f s "
              "(%lld), Hessian action %.2f s (%lld), diagonal %.2f s (%lld), det J checks %.2f s (%lld), two-level corrections "
              "%.2f s (%lld), the rest %.2f s\n",
              r.time_setup + r.time_newton, r.time_setup, r.time_energy, r.n_energy, r.time_grad, r.n_grad, r.time_hess_setup,
              r.n_hess_setup, r.time_hess_apply, r.n_hess_apply, r.time_diag, r.n_diag, r.time_mindet, r.n_mindet, r.time_precond,
              r.n_precond,
              r.time_newton - r.time_energy - r.time_grad - r.time_hess_setup - r.time_hess_apply - r.time_diag - r.time_mindet -
                  r.time_precond);
    if (r.coarse_order)
      fprintf(log,
              "optimize: coarse start: the order-1 copy solved in %d Newton step(s) (%.2f s), its moves carried to "
              "order %d (%lld element(s) held back); the counts above are the solve's at order %d\n",
              r.coarse_newton, r.coarse_time, m->order, r.coarse_held, m->order);
    if (r.adapt_refined > 0)
      fprintf(log,
              "optimize: adaptive quadrature: %lld element(s) integrated with the higher rule (flagged before %d Newton "
              "step(s))\n",
              r.adapt_refined, r.adapt_events);
    if (r.recover_relaxed + r.recover_steepest + r.recover_krylov > 0 || r.result_iter != r.newton_iters)
      fprintf(log,
              "optimize: failed line searches recovered by det J at quadrature points only %d time(s) (%d Newton step(s) "
              "taken so), steepest descent %d, Krylov restart %d; the result is Newton step %d's\n",
              r.recover_relaxed, r.relaxed_iters, r.recover_steepest, r.recover_krylov, r.result_iter);
    if (o->keep_sj > 0 || o->keep_aspect > 0 || o->elem_ok)
      fprintf(log, "optimize: --keep-sj %g%s%s put back %lld node(s) in %d round(s) (the energy above is before)\n", o->keep_sj,
              o->keep_aspect > 0 ? " --keep-aspect" : "", o->elem_ok ? " and the .re2 rule" : "", r.nodes_reverted,
              r.keep_sj_rounds);
    if (o->repair_sj > 0)
      fprintf(log,
              "optimize: --repair %g: %lld element(s) below it after the solve, %lld in their patches, %lld after "
              "%d more Newton step(s) in %d pass(es)\n",
              o->repair_sj, r.repair_bad, r.repair_free, r.repair_after, r.repair_newton, r.repair_passes);
    fprintf(log, "optimize: Nek5000 scaled Jacobian min %.4f -> %.4f, mean %.4f -> %.4f\n", sj0, sj1, sjm0, sjm1);
  }
  return HX_OK;
}

int hx_cli_optimize_for(hx_mesh *m, hx_tmop_opts *o, const hx_cli_common *c, int quiet, const char *json_key) {
  hx_re2_guard guard;
  int rc = hx_cli_re2_guard_open(m, c, &guard, o);
  if (!rc) rc = hx_cli_optimize(m, o, quiet, json_key);
  hx_re2_guard_close(&guard, &o->elem_ok, &o->elem_ok_ctx);
  return rc;
}

static const hx_opt optimize_table[] = {
    HX_INT("--refine", "K", "0", 0, 6, 0,
           "split every element into 8, K times, on its curved geometry (MFEM mesh-optimizer's -rs), before --order"),
    HX_INTS("--fix-boundary", "IDS", NULL, 1, 16, 1, 1000000, 0,
            "boundary ids whose nodes stay fixed (mesh-optimizer's attribute 4), whatever --boundary says"),
    {0},
};

void hx_cmd_optimize_opts(hx_optset *s) {
  hx_opts_init(s, "optimize", "optimize MESH -o OUT [options]",
               "TMOP on a mesh file (any format with a reader): Newton with partial assembly on the cpu or cuda backend,\n"
               "boundary nodes sliding on their surfaces. Writes the optimized mesh to every -o.");
  hx_opts_add(s, optimize_table);
  hx_opts_add(s, hx_cli_output_table);
  hx_opts_default(s, "--order", "input");
  hx_opts_help_line(s, "--order", "raise the mesh to order N (curving onto its surfaces) before optimizing");
  hx_cli_tmop_add(s);
  hx_opts_default(s, "--coarse-start", "auto");
  hx_opts_default(s, "--adapt-quad", "auto");
}

int hx_cmd_optimize(hx_comm comm, int argc, char **argv) {
  hx_optset s;
  hx_cmd_optimize_opts(&s);
  HX_CALL(hx_opts_parse(&s, argc, argv, 1));
  if (s.stop) return HX_OK;
  hx_cli_common c;
  HX_CALL(hx_cli_common_get(&s, &c));
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  int quiet = 0, refine = 0, fix[16];
  HX_CALL(hx_cli_tmop_get(&s, &o, &quiet));
  hx_opts_int(&s, "--refine", &refine);
  int nfix = hx_opts_ints(&s, "--fix-boundary", fix, 16);
  HX_CHECK(s.num_args <= 1, HX_ERR_INPUT, "optimize takes one input mesh, got '%s' and '%s'", s.args[0], s.args[1]);
  const char *in = s.num_args ? s.args[0] : NULL;
  HX_CHECK(in, HX_ERR_INPUT, "optimize needs an input mesh: hexpack optimize MESH -o OUT");
  HX_CHECK(c.num_out > 0, HX_ERR_INPUT, "optimize needs at least one output: -o OUT");
  /* check every output before the (long) work, so a bad -o fails fast */
  for (int k = 0; k < c.num_out; k++)
    HX_CHECK(strcmp(c.out[k], in) != 0, HX_ERR_INPUT, "output '%s' is the input file", c.out[k]);
  HX_CALL(hx_cli_check_outputs(comm, &c, c.order));
  hx_mesh *m = NULL;
  HX_CALL(hx_import(comm, in, &m));
  int rc = HX_OK;
  for (int k = 0; k < refine && rc == HX_OK; k++) {
    hx_mesh *fine = NULL;
    rc = hx_mesh_refine(m, &fine);
    hx_mesh_destroy(&m);
    m = fine;
  }
  if (rc == HX_OK && !c.order) rc = hx_cli_check_outputs(comm, &c, m->order);
  if (rc == HX_OK) rc = hx_mesh_split_replicated(&m);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  if (c.order && c.order != m->order) {
    hx_mesh *raised = NULL;
    rc = hx_mesh_raise_order(m, c.order, &raised);
    hx_mesh_destroy(&m);
    if (rc) return rc;
    m = raised;
  }
  unsigned char *fixed = NULL;
  if (nfix) {
    /* the nodes of every face with one of the ids: fixed (the optimizer's per-node mask) */
    size_t npe = (size_t)hx_mesh_nodes_per_elem(m);
    rc = hx_malloc((size_t)m->num_elem * npe + 1, &fixed);
    if (rc) {
      hx_mesh_destroy(&m);
      return rc;
    }
    memset(fixed, 0, (size_t)m->num_elem * npe + 1);
    for (hx_lid f = 0; f < m->num_faces; f++) {
      int hit = 0;
      for (int k = 0; k < nfix; k++) hit |= m->faces[f].bid == fix[k];
      if (!hit) continue;
      for (int k = 0; k < m->nd; k++)
        for (int j = 0; j < m->nd; j++)
          for (int i = 0; i < m->nd; i++)
            if (hx_node_on_face(m->nd, m->faces[f].face, i, j, k))
              fixed[(size_t)m->faces[f].elem * npe + (size_t)hx_lex(m->nd, i, j, k)] = 1;
    }
    o.fixed_node = fixed;
  }
  rc = hx_cli_optimize_for(m, &o, &c, quiet, NULL);
  o.fixed_node = NULL;
  hx_free(&fixed);
  if (rc == HX_ERR_INVALID_MESH) { /* name the file the bad mesh came from */
    char msg[512];
    snprintf(msg, sizeof msg, "%s", hx_error_message());
    hx_error_clear(); /* the first error is kept: replace it */
    rc = HX_ERROR(rc, "%s: %s", in, msg);
    /* --force: the mesh as it is now (an untangling that left elements inverted leaves its best
       iterate in it) is written all the same; the exit status still says it failed */
    if (c.force) {
      c.order = m->order;
      int wrc = hx_cli_write_outputs(m, &c);
      if (!wrc && hx_comm_rank(comm) == 0)
        for (int k = 0; k < c.num_out; k++) fprintf(hx_cli_log(), "wrote %s (--force)\n", c.out[k]);
    }
  }
  if (!rc) {
    c.order = m->order;
    rc = hx_cli_write_outputs(m, &c);
    if (!rc && hx_comm_rank(comm) == 0)
      for (int k = 0; k < c.num_out; k++) fprintf(hx_cli_log(), "wrote %s\n", c.out[k]);
    if (!rc) hx_cli_json_outputs(&c);
  }
  hx_mesh_destroy(&m);
  return rc;
}
