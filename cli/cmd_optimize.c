/* hexpack optimize: TMOP on a mesh file; also the TMOP flags and the optimize
   step that every mesher's --optimize shares (hx_cli_tmop_flag, hx_cli_optimize). */
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

void hx_cli_tmop_sj_defaults(hx_tmop_opts *o) {
  o->metric = 318;
  o->target = HX_TARGET_IDEAL_SHAPE_ELEM_SIZE;
  o->equal_weight = 1;
  o->keep_sj = 0.1;
  o->newton_iters = 10;
  /* a mesher's mesh is valid at its GLL nodes by its own checks; a fold between them is not
     untangled: the untangling's energy does not see it (a 4-sphere bed at order 4: 4 such
     elements -> 3 in 35 untangling steps, the run 23 s -> 34 s) */
  o->untangle = 0;
}

static int re2_guard_ok(void *ctx, hx_lid e, const double *xe) {
  const hx_cli_re2_guard *g = ctx;
  return hx_re2_rule_ok(g->rule, xe, g->bsurf + (size_t)e * 6);
}

int hx_cli_re2_guard_open(const hx_mesh *m, const hx_cli_common *c, hx_cli_re2_guard *g, hx_tmop_opts *o) {
  memset(g, 0, sizeof *g);
  int any = 0;
  for (int k = 0; k < c->num_out; k++) {
    const hx_format *f = NULL;
    if (hx_format_for_path(c->out[k], &f)) hx_error_clear(); /* the writer says it */
    else any |= f->write == hx_export_re2;
  }
  if (!any) return HX_OK;
  HX_CALL(hx_malloc(((size_t)m->num_elem * 6 + 1) * sizeof *g->bsurf, &g->bsurf));
  for (size_t i = 0; i < (size_t)m->num_elem * 6; i++) g->bsurf[i] = -1;
  for (hx_lid k = 0; k < m->num_faces; k++) g->bsurf[(size_t)m->faces[k].elem * 6 + m->faces[k].face] = m->faces[k].surf;
  int rc = hx_re2_rule_create(m, &g->rule);
  if (rc) {
    hx_free(&g->bsurf);
    return rc;
  }
  o->elem_ok = re2_guard_ok;
  o->elem_ok_ctx = g;
  return HX_OK;
}

void hx_cli_re2_guard_close(hx_cli_re2_guard *g, hx_tmop_opts *o) {
  hx_re2_rule_destroy(&g->rule);
  hx_free(&g->bsurf);
  o->elem_ok = NULL;
  o->elem_ok_ctx = NULL;
}

void hx_cli_tmop_help(void) {
  printf("optimizer flags (TMOP, MFEM numbering):\n"
         "  --metric N          %s (default 303)\n"
         "  --target T          1|ideal-unit (default), 2|ideal-equal, 3|ideal-given,\n"
         "                      4|ideal-elem (each element's own initial volume; not in MFEM)\n"
         "  --quad-order Q      MFEM -qo, default 8 (GLL: 6 points per direction)\n"
         "  --quad-type T       gll (default) or gauss\n"
         "  --newton-iters N    default 100      --newton-rtol R   default 1e-10\n"
         "  --linear-iters N    default 40       --linear-solver minres|cg (default minres)\n"
         "  --linear-rtol R     fixed linear tolerance (default: Eisenstat-Walker type 1)\n"
         "  --boundary fixed|slide   slide (default): nodes move in their boundary planes, on\n"
         "                      their sphere/cylinder, or along the circle where two of these\n"
         "                      meet (else fixed); fixed: every boundary node stays\n"
         "  --hessian onthefly|stored  Hessian strategy (default onthefly)\n"
         "  --strict-decrease   line search demands an energy decrease\n"
         "  --keep-sj F         after the solve, put back the nodes of every element whose Nek5000\n"
         "                      scaled Jacobian (min / max det J at its GLL nodes) fell below\n"
         "                      min(F, its initial value), until none does (default 0: off)\n"
         "  --keep-aspect A     the same for an element whose aspect ratio (longest / shortest\n"
         "                      corner edge) rose above max(A, its initial value) (default 0: off)\n"
         "                      (with a .re2 output also one that Nek5000's rule from corners\n"
         "                      and curved sides would fold, as the writer checks)\n"
         "  --repair S[,R[,W[,K]]]  then a second solve about the elements below Nek5000 scaled\n"
         "                      Jacobian S: only nodes within R layers of elements (default 2)\n"
         "                      about them move, their energy counts W times (default 10), K Newton\n"
         "                      steps (default 10), and none ends below min(S, its value before it);\n"
         "                      again about those left (3 passes at most) while fewer are left or\n"
         "                      the poorest rose (default 0: off)\n"
         "  --limit C           the limiting term (MFEM's -lc): the energy gains\n"
         "                      C 0.5 |x - x0|^2 / D^2 at every quadrature point, with the metric's\n"
         "                      weights, x0 the nodes the solve starts from (default 0: off)\n"
         "  --limit-dist D|small|elem  its distance D (default 1, MFEM's); small: MFEM's\n"
         "                      (mesh volume)^(1/3) / 100; elem: each element's volume^(1/3)\n"
         "  --weight volume|equal  each element's energy weighted by its target volume (volume,\n"
         "                      default, MFEM) or alike (equal; targets 3 and 4 differ)\n"
         "  --detj-check nodes|quad|fine|bound  line search rejects det J <= 0 at quadrature\n"
         "                      points and GLL nodes (nodes, default) or at quadrature points only\n"
         "                      (quad, MFEM); fine: also at Gauss points N + 4 per direction, between\n"
         "                      the nodes; bound: also any element the Bernstein bound of det J\n"
         "                      proves folded anywhere (proven validity of every accepted step)\n"
         "  --coarse-start auto|on|off  solve the order-1 copy of the mesh (its corners) first and\n"
         "                      start from its moves carried to the mesh's order, held back where an\n"
         "                      element would fold; the problem and its result stay the mesh's own\n"
         "                      (auto: on from order 3, the default of optimize and box --optimize;\n"
         "                      off elsewhere)\n"
         "  --backend B         auto (default), %s\n"
         "  --threads N         OpenMP threads of the cpu backend\n"
         "  --quiet             no per-iteration log\n"
         "expert flags:\n"
         "  --debug tmop        diagnostics on stderr: the boundary nodes by kind (circles, one curved\n"
         "                      surface, fixed, planes) and --keep-sj's failing elements per round by\n"
         "                      reason (a comma list naming tmop also works where the command has\n"
         "                      its own --debug words)\n"
         "  --sync-timers       the solve's operator timers wait for the backend (profiling: one\n"
         "                      synchronization per operator call; bench tmop's breakdown)\n"
         "  --no-recover        stop where no step passes the line search (default: recover by\n"
         "                      det J at the quadrature points only, steepest descent, a Krylov\n"
         "                      restart, and stop only when they fail too)\n"
         "  --relaxed-max N     stop after N steps in a row whose iterates fail the det J check\n"
         "                      (relaxed mode), with the best valid iterate (default 20; 0: no limit)\n"
         "untangling (an input with det J <= 0 at a GLL node, quadrature or Gauss point):\n"
         "  --untangle          untangle it first, then optimize (the default whenever the mesh to\n"
         "                      optimize is inverted): Newton on a shifted-barrier metric, the shift\n"
         "                      kept below the smallest det J and raised as the mesh unfolds, until\n"
         "                      no element is inverted; a mesh still inverted then is an error (the\n"
         "                      best one is written with --force); on convert: untangle only\n"
         "  --untangle-iters N  the untangling's Newton steps at most (default 200)\n"
         "  --no-untangle       refuse an inverted mesh (barrier metrics) instead\n",
         hx_metric_names(), hx_backend_names());
}

/* 1 if the comma list s has the word w */
static int list_has(const char *s, const char *w) {
  size_t n = strlen(w);
  for (const char *p = s; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (!strncmp(p, w, n) && (p[n] == ',' || p[n] == 0)) return 1;
  return 0;
}

/* 1 if every word of the comma list s is w */
static int list_only(const char *s, const char *w) {
  size_t n = strlen(w);
  for (const char *p = s; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (strncmp(p, w, n) || (p[n] != ',' && p[n] != 0)) return 0;
  return 1;
}

int hx_cli_tmop_flag(int argc, char **argv, int *i, hx_tmop_opts *o, int *quiet) {
  const char *a = argv[*i], *v = NULL;
  int rc;
#define VAL()                                                                                                                    \
  do {                                                                                                                           \
    if ((rc = hx_cli_value(argc, argv, i, &v))) return -rc;                                                                      \
  } while (0)
#define TRY(expr)                                                                                                                \
  do {                                                                                                                           \
    if ((rc = (expr))) return -rc;                                                                                               \
  } while (0)
  if (!strcmp(a, "--metric")) {
    int id;
    VAL();
    TRY(hx_cli_int("--metric", v, 1, 999, &id));
    const hx_metric_info *mi;
    TRY(hx_metric_find(id, &mi));
    o->metric = id;
  } else if (!strcmp(a, "--target")) {
    VAL();
    TRY(hx_target_parse(v, &o->target));
  } else if (!strcmp(a, "--quad-order")) {
    VAL();
    TRY(hx_cli_int("--quad-order", v, 1, 40, &o->quad_order));
  } else if (!strcmp(a, "--quad-type")) {
    VAL();
    if (!strcmp(v, "gll") || !strcmp(v, "1")) o->quad_type = HX_QUAD_GLL;
    else if (!strcmp(v, "gauss") || !strcmp(v, "2")) o->quad_type = HX_QUAD_GL;
    else return -HX_ERROR(HX_ERR_INPUT, "flag --quad-type expects gll or gauss, got '%s'", v);
  } else if (!strcmp(a, "--newton-iters")) {
    VAL();
    TRY(hx_cli_int("--newton-iters", v, 0, 100000, &o->newton_iters));
  } else if (!strcmp(a, "--newton-rtol")) {
    VAL();
    TRY(hx_cli_double("--newton-rtol", v, 0, 1, &o->newton_rtol));
  } else if (!strcmp(a, "--linear-iters")) {
    VAL();
    TRY(hx_cli_int("--linear-iters", v, 1, 100000, &o->linear_iters));
  } else if (!strcmp(a, "--linear-rtol")) {
    VAL();
    TRY(hx_cli_double("--linear-rtol", v, 0, 1, &o->linear_rtol));
    o->adaptive_rtol = 0;
  } else if (!strcmp(a, "--linear-solver")) {
    VAL();
    if (!strcmp(v, "minres")) o->linear_solver = HX_LIN_MINRES;
    else if (!strcmp(v, "cg")) o->linear_solver = HX_LIN_CG;
    else return -HX_ERROR(HX_ERR_INPUT, "flag --linear-solver expects minres or cg, got '%s'", v);
  } else if (!strcmp(a, "--boundary")) {
    VAL();
    if (!strcmp(v, "fixed")) o->boundary = HX_BND_FIXED;
    else if (!strcmp(v, "slide")) o->boundary = HX_BND_SLIDE;
    else return -HX_ERROR(HX_ERR_INPUT, "flag --boundary expects fixed or slide, got '%s'", v);
  } else if (!strcmp(a, "--hessian")) {
    VAL();
    if (!strcmp(v, "onthefly")) o->hess_strategy = HX_HESS_ONTHEFLY;
    else if (!strcmp(v, "stored")) o->hess_strategy = HX_HESS_STORED;
    else return -HX_ERROR(HX_ERR_INPUT, "flag --hessian expects onthefly or stored, got '%s'", v);
  } else if (!strcmp(a, "--detj-check")) {
    VAL();
    if (!strcmp(v, "nodes")) o->detj_nodes = 1;
    else if (!strcmp(v, "quad")) o->detj_nodes = 0;
    else if (!strcmp(v, "fine")) o->detj_nodes = 2;
    else if (!strcmp(v, "bound")) o->detj_nodes = 3;
    else return -HX_ERROR(HX_ERR_INPUT, "flag --detj-check expects nodes, quad, fine or bound, got '%s'", v);
  } else if (!strcmp(a, "--strict-decrease")) {
    o->strict_decrease = 1;
  } else if (!strcmp(a, "--keep-sj")) {
    VAL();
    TRY(hx_cli_double("--keep-sj", v, 0, 1, &o->keep_sj));
  } else if (!strcmp(a, "--keep-aspect")) {
    VAL();
    TRY(hx_cli_double("--keep-aspect", v, 0, 1e6, &o->keep_aspect));
  } else if (!strcmp(a, "--repair")) {
    double p[4];
    int cnt;
    VAL();
    TRY(hx_cli_double_list("--repair", v, 4, &cnt, p));
    if (!(p[0] >= 0 && p[0] <= 1) || (cnt > 1 && !(p[1] >= 1 && p[1] <= 16 && p[1] == floor(p[1]))) ||
        (cnt > 2 && !(p[2] >= 1 && p[2] <= 1e6)) || (cnt > 3 && !(p[3] >= 1 && p[3] <= 1000 && p[3] == floor(p[3]))))
      return -HX_ERROR(HX_ERR_INPUT,
                       "flag --repair: expected S[,R[,W[,K]]] with S in 0..1, R an integer in 1..16, W in 1..1e6, "
                       "K an integer in 1..1000, got '%s'",
                       v);
    o->repair_sj = p[0];
    if (cnt > 1) o->repair_rings = (int)p[1];
    if (cnt > 2) o->repair_weight = p[2];
    if (cnt > 3) o->repair_iters = (int)p[3];
  } else if (!strcmp(a, "--limit")) {
    VAL();
    TRY(hx_cli_double("--limit", v, 0, 1e30, &o->lim_const));
  } else if (!strcmp(a, "--limit-dist")) {
    VAL();
    if (!strcmp(v, "small")) o->lim_dist_kind = HX_LIM_DIST_SMALL;
    else if (!strcmp(v, "elem")) o->lim_dist_kind = HX_LIM_DIST_ELEM;
    else {
      char *end = NULL;
      double dd = strtod(v, &end);
      if (end == v || *end || !(dd > 0 && dd <= 1e30))
        return -HX_ERROR(HX_ERR_INPUT, "flag --limit-dist expects a distance > 0, small or elem, got '%s'", v);
      o->lim_dist_kind = HX_LIM_DIST_CONST;
      o->lim_dist = dd;
    }
  } else if (!strcmp(a, "--weight")) {
    VAL();
    if (!strcmp(v, "volume")) o->equal_weight = 0;
    else if (!strcmp(v, "equal")) o->equal_weight = 1;
    else return -HX_ERROR(HX_ERR_INPUT, "flag --weight expects volume or equal, got '%s'", v);
  } else if (!strcmp(a, "--backend")) {
    VAL();
    const hx_backend *be;
    TRY(hx_backend_find(v, &be));
    o->backend = v;
  } else if (!strcmp(a, "--threads")) {
    VAL();
    TRY(hx_cli_int("--threads", v, 1, 4096, &o->num_threads));
  } else if (!strcmp(a, "--quiet")) {
    *quiet = 1;
  } else if (!strcmp(a, "--sync-timers")) {
    o->sync_timers = 1;
  } else if (!strcmp(a, "--no-recover")) {
    o->recover = 0;
  } else if (!strcmp(a, "--coarse-start")) {
    TRY(hx_cli_value(argc, argv, i, &v));
    if (!strcmp(v, "auto")) o->coarse_order = -1;
    else if (!strcmp(v, "on")) o->coarse_order = 1;
    else if (!strcmp(v, "off")) o->coarse_order = 0;
    else TRY(HX_ERROR(HX_ERR_INPUT, "--coarse-start: expected auto, on or off, got '%s'", v));
  } else if (!strcmp(a, "--untangle")) {
    o->untangle = 1;
  } else if (!strcmp(a, "--no-untangle")) {
    o->untangle = 0;
  } else if (!strcmp(a, "--untangle-iters")) {
    VAL();
    TRY(hx_cli_int("--untangle-iters", v, 0, 1000000, &o->untangle_iters));
  } else if (!strcmp(a, "--relaxed-max")) {
    TRY(hx_cli_value(argc, argv, i, &v));
    TRY(hx_cli_int("--relaxed-max", v, 0, 1000000, &o->relaxed_max));
  } else if (!strcmp(a, "--debug") && *i + 1 < argc && list_has(argv[*i + 1], "tmop")) {
    /* --debug tmop is ours. A list with other words too (pebble's --debug sites,tmop) is
       the command's own flag: the optimizer's debug is set here, and "not mine" (0) lets
       the command's parser take the whole list (it skips the word tmop). A list without
       tmop is not ours either. */
    o->debug = 1;
    if (!list_only(argv[*i + 1], "tmop")) return 0;
    VAL();
  } else {
    return 0;
  }
#undef VAL
#undef TRY
  return 1;
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

int hx_cli_optimize(hx_mesh *m, hx_tmop_opts *o, int quiet, int json) {
  int rank = hx_comm_rank(m->comm);
  o->log = (!quiet && rank == 0) ? (json ? stderr : stdout) : NULL;
  double sj0 = 0, sjm0 = 0, sj1 = 0, sjm1 = 0;
  HX_CALL(nek_quality(m, &sj0, &sjm0));
  hx_tmop_result r;
  HX_CALL(hx_tmop_optimize(m, o, &r));
  HX_CALL(nek_quality(m, &sj1, &sjm1));
  hx_detj_bound_summary b;
  memset(&b, 0, sizeof b);
  if (r.untangled) HX_CALL(untangle_proof(m, &b));
  if (rank == 0 && r.untangled)
    fprintf(json ? stderr : stdout,
            "untangle: %lld -> %lld inverted element(s) (det J <= 0 at a GLL node, quadrature or Gauss point) in %d Newton "
            "step(s), %s, %.2f s; %s mesh: %s (%lld proven, %lld not proven, %lld invalid; min bound %.3e)\n",
            r.inverted0, r.inverted, r.untangle_iters, r.untangle_stop, r.untangle_time,
            o->untangle == 2 ? "untangled" : "optimized", hx_validity_name(b.verdict), (long long)b.num_proven,
            (long long)b.num_not_proven, (long long)b.num_invalid, b.lower_min);
  if (o->untangle == 2) { /* untangle only */
    if (rank == 0 && json)
      printf("{\"command\": \"untangle\", \"inverted0\": %lld, \"inverted\": %lld, \"untangle_iters\": %d, "
             "\"untangle_stop\": \"%s\", \"validity\": \"%s\", \"num_proven\": %lld, \"num_not_proven\": %lld, "
             "\"num_invalid\": %lld, \"seconds\": %.3f}\n",
             r.inverted0, r.inverted, r.untangle_iters, r.untangled ? r.untangle_stop : "no element inverted",
             r.untangled ? hx_validity_name(b.verdict) : "unchecked", (long long)b.num_proven, (long long)b.num_not_proven,
             (long long)b.num_invalid, r.untangle_time);
    else if (rank == 0 && !r.untangled) printf("untangle: no element inverted\n");
    return HX_OK;
  }
  if (rank == 0) {
    if (json && r.untangled) /* the untangling's fields first; a run without it prints as before */
      printf("{\"untangle\": {\"inverted0\": %lld, \"inverted\": %lld, \"untangle_iters\": %d, \"untangle_stop\": \"%s\", "
             "\"validity\": \"%s\", \"num_proven\": %lld, \"num_not_proven\": %lld, \"num_invalid\": %lld, "
             "\"seconds\": %.3f}, ",
             r.inverted0, r.inverted, r.untangle_iters, r.untangle_stop, hx_validity_name(b.verdict), (long long)b.num_proven,
             (long long)b.num_not_proven, (long long)b.num_invalid, r.untangle_time);
    if (json)
      printf("%s\"command\": \"optimize\", \"metric\": %d, \"target\": \"%s\", \"vector_dofs\": %lld, "
             "\"energy0\": %.10e, \"energy\": %.10e, \"min_detj0\": %.10e, \"min_detj\": %.10e, "
             "\"scaled_jacobian_min0\": %.6f, \"scaled_jacobian_min\": %.6f, \"scaled_jacobian_mean0\": %.6f, "
             "\"scaled_jacobian_mean\": %.6f, "
             "\"newton_iters\": %d, \"linear_iters\": %d, \"stop\": \"%s\", \"nodes_reverted\": %lld, "
             "\"keep_sj_rounds\": %d, \"repair_bad\": %lld, \"repair_free\": %lld, \"repair_after\": %lld, "
             "\"repair_passes\": %d, \"seconds\": %.3f, \"recover_relaxed\": %d, \"recover_steepest\": %d, "
             "\"recover_krylov\": %d, \"relaxed_iters\": %d, \"result_iter\": %d, \"coarse_order\": %d, "
             "\"coarse_newton\": %d, \"coarse_held\": %lld}\n",
             r.untangled ? "" : "{", o->metric, hx_target_name(o->target), r.vector_dofs, r.energy0, r.energy, r.min_detj0,
             r.min_detj, sj0, sj1, sjm0, sjm1, r.newton_iters, r.linear_iters, r.stop_reason, r.nodes_reverted, r.keep_sj_rounds,
             r.repair_bad, r.repair_free, r.repair_after, r.repair_passes, r.time_total, r.recover_relaxed, r.recover_steepest,
             r.recover_krylov, r.relaxed_iters, r.result_iter, r.coarse_order, r.coarse_newton, r.coarse_held);
    else {
      printf("optimize: metric %d, target %s, %lld vector DOFs: energy %.6e -> %.6e (%.2f%% decrease), "
             "min det J %.4e -> %.4e, %d Newton / %d linear iterations, %s, %.2f s\n",
             o->metric, hx_target_name(o->target), r.vector_dofs, r.energy0, r.energy,
             r.energy0 != 0 ? 100.0 * (r.energy0 - r.energy) / r.energy0 : 0.0, r.min_detj0, r.min_detj, r.newton_iters,
             r.linear_iters, r.stop_reason, r.time_total);
      if (r.coarse_order)
        printf("optimize: coarse start: the order-1 copy solved in %d Newton step(s) (%.2f s), its moves carried to "
               "order %d (%lld element(s) held back); the counts above are the solve's at order %d\n",
               r.coarse_newton, r.coarse_time, m->order, r.coarse_held, m->order);
      if (r.recover_relaxed + r.recover_steepest + r.recover_krylov > 0 || r.result_iter != r.newton_iters)
        printf("optimize: failed line searches recovered by det J at quadrature points only %d time(s) (%d Newton step(s) "
               "taken so), steepest descent %d, Krylov restart %d; the result is Newton step %d's\n",
               r.recover_relaxed, r.relaxed_iters, r.recover_steepest, r.recover_krylov, r.result_iter);
      if (o->keep_sj > 0 || o->keep_aspect > 0 || o->elem_ok)
        printf("optimize: --keep-sj %g%s%s put back %lld node(s) in %d round(s) (the energy above is before)\n", o->keep_sj,
               o->keep_aspect > 0 ? " --keep-aspect" : "", o->elem_ok ? " and the .re2 rule" : "", r.nodes_reverted,
               r.keep_sj_rounds);
      if (o->repair_sj > 0)
        printf("optimize: --repair %g: %lld element(s) below it after the solve, %lld in their patches, %lld after "
               "%d more Newton step(s) in %d pass(es)\n",
               o->repair_sj, r.repair_bad, r.repair_free, r.repair_after, r.repair_newton, r.repair_passes);
      printf("optimize: Nek5000 scaled Jacobian min %.4f -> %.4f, mean %.4f -> %.4f\n", sj0, sj1, sjm0, sjm1);
    }
  }
  return HX_OK;
}

int hx_cli_optimize_for(hx_mesh *m, hx_tmop_opts *o, const hx_cli_common *c, int quiet) {
  hx_cli_re2_guard guard;
  int rc = hx_cli_re2_guard_open(m, c, &guard, o);
  if (!rc) rc = hx_cli_optimize(m, o, quiet, c->json);
  hx_cli_re2_guard_close(&guard, o);
  return rc;
}

static void optimize_help(void) {
  printf("usage: hexpack optimize MESH -o OUT [--refine K] [--order N] [optimizer flags] [--json] [--force]\n\n"
         "  MESH                any format with a reader (format from the extension)\n"
         "  -o OUT              write the optimized mesh (several allowed)\n"
         "  --refine K          split every element into 8, K times, exactly on its curved geometry\n"
         "                      (MFEM mesh-optimizer's -rs), before --order\n"
         "  --order N           raise the mesh to order N (curving onto its surfaces) first\n"
         "  --fix-boundary IDS  comma list of boundary ids whose nodes stay fixed (mesh-optimizer's\n"
         "                      attribute 4), whatever --boundary says for the others\n\n");
  hx_cli_tmop_help();
}

int hx_cmd_optimize(hx_comm comm, int argc, char **argv) {
  hx_cli_common c = {0};
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.coarse_order = -1; /* the command's default: the coarse start from order 3 */
  int quiet = 0, refine = 0, nfix = 0, fix[16];
  const char *in = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      optimize_help();
      return HX_OK;
    }
    if (!strcmp(a, "--fix-boundary")) {
      const char *v;
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int_list("--fix-boundary", v, 16, 1, 1000000, fix, &nfix));
      continue;
    }
    if (!strcmp(a, "--refine")) {
      const char *v;
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int("--refine", v, 0, 6, &refine));
      continue;
    }
    int r = hx_cli_common_flag(argc, argv, &i, &c);
    if (r < 0) return -r;
    if (r > 0) continue;
    r = hx_cli_tmop_flag(argc, argv, &i, &o, &quiet);
    if (r < 0) return -r;
    if (r > 0) continue;
    if (!strcmp(a, "--debug"))
      return HX_ERROR(HX_ERR_INPUT, "flag --debug expects tmop (a comma list of: tmop), got '%s'",
                      i + 1 < argc ? argv[i + 1] : "");
    if (a[0] == '-') return hx_cli_unknown_flag("optimize", a);
    HX_CHECK(!in, HX_ERR_INPUT, "optimize takes one input mesh, got '%s' and '%s'", in, a);
    in = a;
  }
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
  rc = hx_cli_optimize_for(m, &o, &c, quiet);
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
      if (!wrc && hx_comm_rank(comm) == 0 && !c.json)
        for (int k = 0; k < c.num_out; k++) printf("wrote %s (--force)\n", c.out[k]);
    }
  }
  if (!rc) {
    c.order = m->order;
    rc = hx_cli_write_outputs(m, &c);
    if (!rc && hx_comm_rank(comm) == 0 && !c.json)
      for (int k = 0; k < c.num_out; k++) printf("wrote %s\n", c.out[k]);
  }
  hx_mesh_destroy(&m);
  return rc;
}
