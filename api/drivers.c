/* The stages as the commands drive them: each command's defaults, the pebble command's
   optimization (the bed meshed at the solve's order, the moves carried to the mesh's order,
   repaired), the optimize command's solve, and the .re2 writer's rule as a hold-back. The
   command line (cli/cmd_pebble.c, cli/cmd_optimize.c, cli/cmd_box.c) makes the same calls in
   the same order with the same values, so that a library call gives the command's files byte
   for byte (tests/t700-api-python.py checks it). */
#include <string.h>

#include "api_impl.h"
#include "hx_basis.h"
#include "hx_error.h"
#include "hx_kernels.h"
#include "hx_memory.h"

_Static_assert(HX_QUAD_GLL == 1 && HX_QUAD_GL == 2, "the option table's quad-type values");
_Static_assert(HX_LIN_CG == 1 && HX_LIN_MINRES == 2, "the option table's linear-solver values");
_Static_assert(HX_HESS_STORED == 1 && HX_HESS_ONTHEFLY == 2, "the option table's hessian values");
_Static_assert(HX_BND_FIXED == 0 && HX_BND_SLIDE == 1, "the option table's boundary values");

void api_tmop_sj_defaults(hx_tmop_opts *o) {
  /* aimed at the Nek5000 scaled Jacobian: the size metric with each element's own volume as
     target, every element weighted alike, none left below min(0.1, its value as meshed), 10 Newton
     steps, no untangling (the meshers' meshes are valid at their GLL nodes) */
  o->metric = 318;
  o->target = HX_TARGET_IDEAL_SHAPE_ELEM_SIZE;
  o->equal_weight = 1;
  o->keep_sj = 0.1;
  o->newton_iters = 10;
  o->untangle = 0;
}

void api_tmop_pebble_defaults(hx_tmop_opts *o) {
  api_tmop_sj_defaults(o);
  /* the pebble command's own: keep-aspect from --aspect, transfer-keep 0.3, repair by --aspect
     (resolved in api_pebble_optimize), det J also checked between the GLL nodes (by the bound on
     cuda up to order 4), the quadrature by the solve's order */
  o->keep_aspect = -1;
  o->transfer_keep = 0.3;
  o->repair_sj = -1;
  o->repair_rings = -1;
  o->repair_final_sj = -1;
  o->detj_nodes = -2;
  o->quad_order = 0;
  o->precond = HX_PREC_JACOBI;
}

void api_run_defaults(api_run *r, int op, int kind) {
  memset(r, 0, sizeof *r);
  hx_pebble_opts_default(&r->po);
  r->po.smooth = -1; /* 10 with optimize or aspect (unless split), else 0 */
  hx_box_opts_default(&r->bo);
  hx_rods_opts_default(&r->ro);
  hx_tmop_opts_default(&r->to);
  /* the two-level preconditioner from order 2 as the commands' --precond auto, Jacobi for the beds */
  r->to.precond = HX_PREC_TWOLEVEL;
  if (op == API_OP_PEBBLE || (op == API_OP_OPTIMIZE && kind == API_KIND_PEBBLE)) api_tmop_pebble_defaults(&r->to);
  else if (op == API_OP_RODS || (op == API_OP_OPTIMIZE && kind == API_KIND_RODS)) api_tmop_sj_defaults(&r->to);
  else { /* optimize and box --optimize: the coarse start from order 3, adaptive quadrature from 4 */ r->to.coarse_order = -1;
    r->to.adapt_quad = -1;
  }
  /* pebble: the quality path (the mesher's flags for the goals, the optimizer on) unless fast, as
     hexpack pebble (cli/cmd_pebble.c) */
  if (op == API_OP_PEBBLE) {
    hx_pebble_opts_path(&r->po, 1);
    r->to.keep_aspect = HX_PEBBLE_QUALITY_KEEP_ASPECT, r->optimize = 1;
  }
  hx_export_opts_default(&r->eo);
  hx_quality_opts_default(&r->qo);
  r->qo.num_worst = 0;
  r->re2_guard = 1;
}

/* the pebble optimizer's quadrature at order P: -qo 2P - 2 (the GLL nodes) from order 5, else 8 */
static int default_quad_order(int P) { return 2 * P - 2 > 8 ? 2 * P - 2 : 8; }

/* the order-P copy of the bed (hx_tmop_lower_order's callback) */
typedef struct lower_ctx {
  const hexpack_mesh *hm;
  int P;
  hx_mesh **made; /* attempt 0's copy made with the mesh, or pointing at NULL */
} lower_ctx;

static int lower_copy(void *ctx, int attempt, hx_mesh **lo) {
  const lower_ctx *l = ctx;
  if (attempt == 0 && *l->made) {
    *lo = *l->made, *l->made = NULL;
    return HX_OK;
  }
  hx_pebble_opts op;
  hx_pebble_stats st;
  hx_pebble_opts_lower(&l->hm->po, l->P, attempt, &op);
  return hx_mesher_pebble(l->hm->m->comm, l->hm->bed, &op, lo, &st);
}

/* The solve at order P < N: the bed meshed at order P by the order-N mesh's own map (a second
   attempt with the order-P mesher's own spacings where that copy folds at the quadrature points),
   solved, its moves carried to m, then the elements left below repair_sj solved again at order N
   (hx_tmop_lower_order). *done = 0 when both copies fold: the caller solves at order N. */
static int optimize_at_order(const hexpack_mesh *hm, hx_mesh *m, int P, api_run *r0, int user_qo, int *done) {
  hx_tmop_opts *topt = &r0->to;
  lower_ctx l = {hm, P, &r0->made}; /* made at P (api_pebble_solve_order) with the mesh, or NULL */
  hx_tmop_lower r;
  int rc = hx_tmop_lower_order(m, topt, user_qo ? 0 : default_quad_order(hm->po.order), lower_copy, NULL, &l, &r);
  *done = !rc && r.order > 0;
  return rc;
}

int api_pebble_solve_order(const api_run *r, int order) { return r->opt_order ? r->opt_order : order > 3 ? 3 : order; }

int api_pebble_optimize(hexpack_mesh *hm, api_run *r) {
  hx_mesh *m = hm->m;
  hx_tmop_opts *topt = &r->to;
  int order = m->lazy ? m->lazy->order : m->order; /* streamed: the order of its attached geometry */
  HX_CHECK(r->opt_order <= order, HX_ERR_INPUT, "option optimize-order: %d is above the mesh's order %d", r->opt_order, order);
  /* the repair at order N: the goal of 0.3 itself unless repair is given (cmd_pebble.c says why) */
  if (topt->repair_final_sj < 0) topt->repair_final_sj = topt->repair_sj < 0 ? 0.3 : topt->repair_sj;
  if (topt->repair_sj < 0) topt->repair_sj = hm->po.aspect > 0 ? 0.4 : 0.3;
  if (topt->repair_rings < 0) topt->repair_rings = hm->po.aspect > 0 ? 3 : 2;
  if (topt->keep_aspect < 0) topt->keep_aspect = hm->po.aspect;
  int solve_order = api_pebble_solve_order(r, order), user_qo = topt->quad_order != 0;
  if (!topt->quad_order) topt->quad_order = default_quad_order(solve_order);
  topt->log = r->verbose ? stderr : NULL;
  HX_CHECK(!m->lazy || solve_order < order, HX_ERR_INPUT,
           "optimize: a streamed mesh (option stream) is optimized below its order; it solves at order %d here", solve_order);
  hx_re2_guard guard = {0};
  int rc = r->re2_guard ? hx_re2_guard_open(m, &guard, &topt->elem_ok, &topt->elem_ok_ctx) : HX_OK, done = 0;
  if (!rc && solve_order < order) {
    rc = optimize_at_order(hm, m, solve_order, r, user_qo, &done);
    if (!rc && !done && !user_qo) topt->quad_order = default_quad_order(order); /* no valid order-P copy: at order N */
  }
  hx_tmop_result res;
  if (!rc && !done && m->lazy)
    rc = HX_ERROR(HX_ERR_INVALID_MESH,
                  "optimize: the order-%d copy folds at its quadrature points, and the streamed order-%d mesh cannot be "
                  "solved at its own order: give optimize-order, or optimize false",
                  solve_order, order);
  else if (!rc && !done) rc = hx_tmop_optimize(m, topt, &res);
  if (r->re2_guard) hx_re2_guard_close(&guard, &topt->elem_ok, &topt->elem_ok_ctx);
  hx_mesh_check_report rep;
  if (!rc) rc = m->lazy ? hx_mesh_check_lazy(m, 1e-12, &rep) : hx_mesh_check(m, 1e-12, &rep);
  return rc;
}

int api_generic_optimize(hexpack_mesh *hm, api_run *r) {
  hx_mesh *m = hm->m;
  HX_CHECK(!m->lazy, HX_ERR_INPUT, "optimize: needs the whole order-N mesh, not a streamed one (option stream)");
  r->to.log = r->verbose ? stderr : NULL;
  hx_re2_guard guard = {0};
  int rc = r->re2_guard ? hx_re2_guard_open(m, &guard, &r->to.elem_ok, &r->to.elem_ok_ctx) : HX_OK;
  hx_tmop_result res;
  if (!rc) rc = hx_tmop_optimize(m, &r->to, &res);
  if (r->re2_guard) hx_re2_guard_close(&guard, &r->to.elem_ok, &r->to.elem_ok_ctx);
  /* box and rods --optimize check the result again (and their writers then skip their check);
     optimize leaves that to the writers */
  int own = hm->kind == API_KIND_BOX || hm->kind == API_KIND_RODS;
  hx_mesh_check_report rep;
  if (!rc && own) rc = hx_mesh_check(m, 1e-12, &rep);
  hm->checked = own && !rc;
  return rc;
}
