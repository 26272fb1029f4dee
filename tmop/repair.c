/* The drivers above the solver: hx_tmop_optimize (the solve, then opts.keep_sj's hold-back,
   then opts.repair_sj's repair), the hold-back itself, and the repair solve on patches.

   design:
   1. hx_tmop_optimize: hx_tmop_create, with opts.coarse_order the coarse start (coarse.c: the
      order-1 copy solved, its moves carried up as the solve's starting point), hx_tmop_solve
      (newton.c: the pure Newton solve), then
      hx_tmop_keep_sj on its nodes (rounds of halving the moves of the elements that fall below
      min(keep_sj, as they were), or fold, or break opts.elem_ok), into the mesh.
   2. With opts.repair_sj: hx_tmop_repair cuts the elements within repair_rings layers of each one
      below repair_sj into a mesh of their own (their border nodes fixed, those below it weighted
      repair_weight times), solves it with keep_sj = repair_sj (step 1 on the sub-mesh) and copies
      it back, pass after pass while it gains.
   0. With opts.untangle, an inverted mesh is untangled first (untangle.c: hx_tmop_untangle).
   The solver never calls back up into this file: the circle runs downwards only. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_gs.h"
#include "hx_memory.h"
#include "hx_quality.h"
#include "hx_tmop_impl.h"

/* The solve (newton.c), from the coarse start where opts ask for it (coarse.c), then opts.keep_sj's
   hold-back on the nodes it ended at, into the mesh. */
static int solve_keep(hx_mesh *mesh, const hx_tmop_opts *o, hx_tmop_result *res) {
  double t_start = hx_tmop_now();
  memset(res, 0, sizeof *res);
  hx_tmop *tm;
  HX_CALL(hx_tmop_create(mesh, o, &tm));
  double t_setup = hx_tmop_now();
  int rc = HX_OK,
      coarse = mesh->order > 1 && !o->fixed_node && (o->coarse_order > 0 || (o->coarse_order < 0 && mesh->order >= 3));
  hx_tmop_result cr = {0};
  if (coarse) rc = hx_tmop_coarse_start(tm, &cr);
  if (!rc) rc = hx_tmop_solve(tm, tm->hL, res); /* E0, min det J0 and |r0| at the mesh as given */
  double t_keep = hx_tmop_now();
  res->time_setup = t_setup - t_start; /* after the solve, which clears res */
  res->time_newton = t_keep - t_setup;
  if (!rc && tm->xstart) { /* the coarse start's figures */
    res->coarse_order = cr.coarse_order, res->coarse_newton = cr.coarse_newton, res->coarse_linear = cr.coarse_linear;
    res->coarse_energy = cr.coarse_energy, res->coarse_held = cr.coarse_held;
  }
  res->coarse_time = cr.coarse_time;
  if (!rc && (o->keep_sj > 0 || o->keep_aspect > 0 || o->elem_ok))
    rc = hx_tmop_keep_sj(tm, tm->hL, &res->nodes_reverted, &res->keep_sj_rounds);
  if (!rc) hx_tmop_to_mesh(tm, tm->hL, mesh);
  res->time_keep = hx_tmop_now() - t_keep;
  res->time_total = hx_tmop_now() - t_start;
  hx_tmop_destroy(&tm);
  return rc;
}

int hx_tmop_optimize(hx_mesh *mesh, const hx_tmop_opts *o, hx_tmop_result *res) {
  hx_tmop_result ur;
  memset(&ur, 0, sizeof ur);
  int rc = o->untangle ? hx_tmop_untangle(mesh, o, &ur) : HX_OK;
  if (!rc && o->untangle != 2) rc = solve_keep(mesh, o, res);
  else memset(res, 0, sizeof *res);
  if (!rc && o->untangle != 2 && o->repair_sj > 0) rc = hx_tmop_repair(mesh, o, res);
  /* the untangling solve's fields (solve_keep starts from a cleared result) */
  res->untangled = ur.untangled;
  res->inverted0 = ur.inverted0;
  res->inverted = ur.inverted;
  res->untangle_iters = ur.untangle_iters;
  res->untangle_time = ur.untangle_time;
  res->linear_iters += ur.linear_iters;
  memcpy(res->untangle_stop, ur.untangle_stop, sizeof res->untangle_stop);
  return rc;
}

/* Every element ends with a Nek5000 scaled Jacobian of at least min(keep_sj, its initial
   value), and with det J > 0 between its nodes (hx_tmop_fold_ctx) where it had that: an element
   that fails either has its nodes' moves halved (x = x0 + a (x1 - x0), a = 1,
   1/2, ... 1/16, then 0), and the elements about them are evaluated again. The rounds end:
   every round lowers at least one node's a, an element whose nodes are all back (a = 0) is
   its initial self. A node's a is lowered on every rank that holds it (hx_gs_or), so the ranks
   agree; a node on a curved surface is projected back onto it. */
int hx_tmop_keep_sj(hx_tmop *tm, double *x, long long *nrev, int *rounds) {
  hx_mesh *m = tm->mesh;
  size_t n3 = (size_t)m->nd * m->nd * m->nd;
  hx_lid ne = m->num_elem, nl = tm->nl;
  double *xe = NULL, *r0 = NULL, *r1 = NULL, *f0 = NULL, *f1 = NULL, *a0 = NULL, *a1 = NULL;
  hx_quality_ctx *qc[2] = {NULL, NULL};
  uint64_t *flag = NULL;
  unsigned char *lev = NULL, *w0 = NULL, *w1 = NULL; /* a = hold_factor(lev); w: elem_ok */
  unsigned char *dirty = NULL;                       /* the elements with a node moved in the round before */
  unsigned char *have0 = NULL;                       /* f0 and w0 evaluated (hx_tmop_fold_initial) */
  const unsigned char *owned = tm->gs_active ? hx_gs_owned(tm->gs) : NULL;
  *nrev = 0, *rounds = 0;
  int rc = hx_malloc((tm->nE + 1) * sizeof *xe, &xe);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *r0, &r0);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *r1, &r1);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *f0, &f0);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *f1, &f1);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *a0, &a0);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *a1, &a1);
  for (int k = 0; k < 2 && !rc; k++) rc = hx_tmop_fold_ctx(m->nd, k, &qc[k]);
  if (!rc) rc = hx_malloc(((size_t)nl + 1) * sizeof *flag, &flag);
  if (!rc) rc = hx_malloc((size_t)nl + 1, &lev); /* zeroed */
  if (!rc) rc = hx_malloc((size_t)ne + 1, &w0);
  if (!rc) rc = hx_malloc((size_t)ne + 1, &w1);
  if (!rc) rc = hx_malloc((size_t)ne + 1, &dirty);
  if (!rc) rc = hx_malloc((size_t)ne + 1, &have0);
  double *x1 = NULL;
  if (!rc) rc = hx_malloc((tm->nL + 1) * sizeof *x1, &x1);
  if (!rc) memcpy(x1, x, tm->nL * sizeof *x1);
  if (!rc) {
    /* the initial state: r0 and a0 of every element; f0 and w0 only where a round asks */
    hx_lmap_scatter(tm->lmap, m, 3, tm->x0, xe);
    rc = hx_tmop_fold_state(tm, xe, qc, 2, r0, a0, NULL, NULL, NULL);
  }
  /* an element's state is a function of its own nodes: a round evaluates again only the elements
     with a node moved in the round before (the first round all of them) */
  if (!rc) memset(dirty, 1, (size_t)ne);
  while (!rc) {
    hx_lmap_scatter(tm->lmap, m, 3, x, xe);
    rc = hx_tmop_fold_state(tm, xe, qc, 2, r1, a1, f1, w1, dirty);
    if (!rc) rc = hx_tmop_fold_initial(tm, NULL, tm->x0, qc, 2, f1, w1, f0, w0, have0);
    if (rc) break;
    memset(flag, 0, (size_t)nl * sizeof *flag);
    int64_t why[4] = {0, 0, 0, 0}; /* opts.debug: the failing elements by reason */
    for (hx_lid e = 0; e < ne; e++) {
      int bits = keep_fails(&tm->o, r0[e], r1[e], f0[e], f1[e], a0[e], a1[e], w0[e], w1[e]);
      if (!bits) continue;
      for (size_t i = 0; i < n3; i++) flag[tm->lmap->e2l[(size_t)e * n3 + i]] = 1;
      for (int b = 0; b < 4; b++) why[b] += bits >> b & 1;
    }
    if (tm->o.debug) {
      if ((rc = hx_comm_sum_int64(m->comm, why, 4))) break;
      if (hx_comm_rank(m->comm) == 0)
        fprintf(stderr,
                "keep-sj round %d: elements failing: %lld below min(keep_sj, before), %lld folded, %lld aspect, %lld rule\n",
                *rounds, (long long)why[0], (long long)why[1], (long long)why[2], (long long)why[3]);
    }
    if (tm->gs_active && (rc = hx_gs_or(tm->gs, flag))) break;
    int64_t cnt = 0, moved = 0;
    for (hx_lid l = 0; l < nl; l++) {
      if (!flag[l] || lev[l] >= HOLD_LEVELS) {
        flag[l] = 0; /* from here: the nodes moved in this round */
        continue;
      }
      lev[l]++;
      double a = hold_factor(lev[l]), *xl = x + 3 * (size_t)l;
      for (int c = 0; c < 3; c++) xl[c] = tm->x0[3 * (size_t)l + c] + a * (x1[3 * (size_t)l + c] - tm->x0[3 * (size_t)l + c]);
      if (tm->curved[l] != -1 && a > 0) hx_tmop_track_project(tm, tm->curved[l], xl, xl);
      cnt += (!owned || owned[l]) && lev[l] == HOLD_LEVELS;
      moved += !owned || owned[l];
    }
#pragma omp parallel for schedule(static)
    for (hx_lid e = 0; e < ne; e++) {
      unsigned char d = 0;
      for (size_t i = 0; i < n3 && !d; i++) d = flag[tm->lmap->e2l[(size_t)e * n3 + i]] != 0;
      dirty[e] = d;
    }
    int64_t both[2] = {cnt, moved};
    if ((rc = hx_comm_sum_int64(m->comm, both, 2))) break;
    if (!both[1]) break;
    *nrev += both[0];
    (*rounds)++;
  }
  hx_free(&xe), hx_free(&r0), hx_free(&r1), hx_free(&f0), hx_free(&f1), hx_free(&a0), hx_free(&a1), hx_free(&flag), hx_free(&lev),
      hx_free(&x1), hx_free(&w0), hx_free(&w1), hx_free(&dirty), hx_free(&have0);
  hx_quality_ctx_destroy(&qc[0]), hx_quality_ctx_destroy(&qc[1]);
  return rc;
}

/* opts.repair_sj on the mesh's nodes now: r[e] the Nek5000 scaled Jacobian of the elements with
   only[e] (every element where only is NULL; the others keep theirs), bad[e] marks each element
   below repair_sj, *nbad their global count, *rmin the smallest ratio (global) */
static int repair_below(hx_tmop *tm, double *r, const unsigned char *only, unsigned char *bad, int64_t *nbad, double *rmin) {
  hx_mesh *m = tm->mesh;
  hx_quality_ctx *qc = NULL;
  int rc = hx_tmop_fold_ctx(m->nd, 0, &qc);
  if (!rc) rc = hx_tmop_fold_state(tm, m->x, &qc, 1, r, NULL, NULL, NULL, only); /* the GLL nodes' part alone */
  *nbad = 0, *rmin = HUGE_VAL;
  for (hx_lid e = 0; !rc && e < m->num_elem; e++) {
    *nbad += bad[e] = !(r[e] >= tm->o.repair_sj);
    *rmin = fmin(*rmin, r[e]);
  }
  if (!rc) rc = hx_comm_sum_int64(m->comm, nbad, 1);
  if (!rc) rc = hx_comm_min_double(m->comm, rmin, 1);
  hx_quality_ctx_destroy(&qc);
  return rc;
}

int hx_tmop_corner_layers(hx_gs *gs, hx_lid ne, const hx_lid *e2l, size_t stride, const size_t corner[8], int layers,
                          uint64_t *vf, unsigned char *in) {
  int rc = HX_OK;
  /* layer by layer: the elements with a flagged corner, then their corners flagged */
  for (int k = 0; !rc; k++) {
    if (gs && (rc = hx_gs_or(gs, vf))) break;
#pragma omp parallel for schedule(static)
    for (hx_lid e = 0; e < ne; e++) {
      unsigned char any = 0;
      for (int c = 0; c < 8 && !any; c++) any = vf[e2l[(size_t)e * stride + corner[c]]] != 0;
      in[e] = any;
    }
    if (k + 1 >= layers) break;
    for (hx_lid e = 0; e < ne; e++)
      if (in[e])
        for (int c = 0; c < 8; c++) vf[e2l[(size_t)e * stride + corner[c]]] = 1;
  }
  return rc;
}

/* opts.repair_sj's patches about the elements bad[e] (repair_below): patch[e] marks the
   elements within repair_rings layers (sharing a node) of one bad, weight[e] is repair_weight
   on those bad and 1 elsewhere, border[l] (zeroed on entry) flags the L-nodes of the patches'
   elements that an element outside the patches has too; *nfree the global count of the
   elements marked. In a conforming mesh two elements share a node exactly where they share a
   corner, so the rings go by the corners' L-nodes (8 an element, not nd^3), and only the
   elements outside with a patch corner write their nodes into border; vf (nl + 1, zeroed) is
   the corners' flags. */
static int repair_patches(hx_tmop *tm, const unsigned char *bad, unsigned char *patch, double *weight, uint64_t *border,
                          uint64_t *vf, int64_t *nfree) {
  hx_mesh *m = tm->mesh;
  const hx_tmop_opts *o = &tm->o;
  hx_lid ne = m->num_elem;
  size_t n3 = (size_t)m->nd * m->nd * m->nd;
  const hx_lid *e2l = tm->lmap->e2l;
  int rc = HX_OK;
  size_t corner[8];
  for (int c = 0; c < 8; c++) corner[c] = (size_t)hx_corner_lex(m->nd, c);
#define CORNER(e, c) e2l[(size_t)(e)*n3 + corner[c]]
  for (hx_lid e = 0; e < ne; e++) {
    weight[e] = bad[e] ? o->repair_weight : 1.0;
    if (bad[e])
      for (int c = 0; c < 8; c++) vf[CORNER(e, c)] = 1;
  }
  rc = hx_tmop_corner_layers(tm->gs_active ? tm->gs : NULL, ne, e2l, n3, corner, o->repair_rings, vf, patch);
  /* the patches' corners alone, then the border: the nodes of the elements outside that have one */
  for (hx_lid e = 0; !rc && e < ne; e++)
    for (int c = 0; c < 8; c++) vf[CORNER(e, c)] = 0;
  for (hx_lid e = 0; !rc && e < ne; e++)
    if (patch[e])
      for (int c = 0; c < 8; c++) vf[CORNER(e, c)] = 1;
  if (!rc && tm->gs_active) rc = hx_gs_or(tm->gs, vf);
  *nfree = 0;
  for (hx_lid e = 0; !rc && e < ne; e++) {
    *nfree += patch[e];
    if (patch[e]) continue;
    unsigned char touch = 0;
    for (int c = 0; c < 8 && !touch; c++) touch = vf[CORNER(e, c)] != 0;
    if (touch)
      for (size_t i = 0; i < n3; i++) border[e2l[(size_t)e * n3 + i]] = 1;
  }
#undef CORNER
  if (!rc && tm->gs_active) rc = hx_gs_or(tm->gs, border);
  if (!rc) rc = hx_comm_sum_int64(m->comm, nfree, 1);
  return rc;
}

/* the mesh of the elements marked in patch (their nodes, ids, boundary faces and every
   surface), with fixed [sub elements][nd^3] set where border has the node */
static int repair_submesh(const hx_tmop *tm, const unsigned char *patch, const double *weight, const uint64_t *border,
                          hx_mesh **out, hx_lid **map, unsigned char **fixed, double **sw) {
  const hx_mesh *m = tm->mesh;
  size_t n3 = (size_t)hx_mesh_nodes_per_elem(m);
  hx_lid ns = 0, *inv = NULL;
  for (hx_lid e = 0; e < m->num_elem; e++) ns += patch[e] != 0;
  hx_mesh *s = NULL;
  int rc = hx_mesh_create(m->comm, m->order, ns, &s);
  if (!rc) rc = hx_malloc(((size_t)ns + 1) * sizeof **map, map);
  if (!rc) rc = hx_malloc(((size_t)ns * n3 + 1), fixed);
  if (!rc) rc = hx_malloc(((size_t)ns + 1) * sizeof **sw, sw);
  if (!rc) rc = hx_malloc(((size_t)m->num_elem + 1) * sizeof *inv, &inv);
  for (int k = 0; k < m->num_surfaces && !rc; k++) rc = hx_mesh_add_surface(s, &m->surfaces[k], NULL);
  hx_lid j = 0;
  for (hx_lid e = 0; e < m->num_elem && !rc; e++) {
    inv[e] = -1;
    if (!patch[e]) continue;
    inv[e] = j, (*map)[j] = e, (*sw)[j] = weight[e];
    memcpy(s->x + (size_t)j * 3 * n3, m->x + (size_t)e * 3 * n3, 3 * n3 * sizeof *s->x);
    memcpy(s->node_id + (size_t)j * n3, m->node_id + (size_t)e * n3, n3 * sizeof *s->node_id);
    memcpy(s->vert_id + (size_t)j * 8, m->vert_id + (size_t)e * 8, 8 * sizeof *s->vert_id);
    s->elem_attr[j] = m->elem_attr[e];
    for (size_t i = 0; i < n3; i++) (*fixed)[(size_t)j * n3 + i] = border[tm->lmap->e2l[(size_t)e * n3 + i]] != 0;
    j++;
  }
  for (hx_lid f = 0; f < m->num_faces && !rc; f++) {
    const hx_bface *bf = &m->faces[f];
    if (inv[bf->elem] >= 0) rc = hx_mesh_add_face(s, inv[bf->elem], bf->face, bf->bid, bf->surf);
  }
  hx_free(&inv);
  if (rc) hx_mesh_destroy(&s);
  *out = s;
  return rc;
}

/* the caller's rule (opts.elem_ok) asked of a repair sub-mesh's element by its own index */
typedef struct repair_ok_ctx {
  const hx_tmop_opts *o;
  const hx_lid *map;
} repair_ok_ctx;
static int repair_elem_ok(void *ctx, hx_lid e, const double *xe) {
  const repair_ok_ctx *c = ctx;
  return c->o->elem_ok(c->o->elem_ok_ctx, c->map[e], xe);
}

/* one repair pass: the patches about the elements bad[e] solved as a mesh of their own, their
   nodes copied back; then bad, *nbad and *rmin are those left */
static int repair_pass(hx_tmop *tm, const hx_tmop_opts *o, double *r, unsigned char *bad, int64_t *nbad, double *rmin,
                       hx_tmop_result *res, double split[3]) {
  hx_mesh *mesh = tm->mesh, *sub = NULL;
  hx_lid ne = mesh->num_elem;
  size_t n3 = (size_t)hx_mesh_nodes_per_elem(mesh);
  unsigned char *patch = NULL, *fixed = NULL;
  double *weight = NULL, *sw = NULL;
  uint64_t *border = NULL, *vf = NULL;
  hx_lid *map = NULL;
  int64_t nfree = 0;
  int rc = hx_malloc((size_t)ne + 1, &patch);
  if (!rc) rc = hx_malloc(((size_t)ne + 1) * sizeof *weight, &weight);
  if (!rc) rc = hx_malloc(((size_t)tm->nl + 1) * sizeof *border, &border); /* zeroed */
  if (!rc) rc = hx_malloc(((size_t)tm->nl + 1) * sizeof *vf, &vf);
  if (!rc) rc = repair_patches(tm, bad, patch, weight, border, vf, &nfree);
  hx_free(&vf);
  if (!rc && !res->repair_passes) res->repair_free = nfree;
  if (!rc) rc = repair_submesh(tm, patch, weight, border, &sub, &map, &fixed, &sw);
  if (!rc) {
    hx_tmop_opts o2 = *o;
    repair_ok_ctx okc = {o, map};
    o2.fixed_node = fixed, o2.elem_weight = sw;
    if (o->elem_ok) o2.elem_ok = repair_elem_ok, o2.elem_ok_ctx = &okc;
    o2.keep_sj = o->repair_sj, o2.newton_iters = o->repair_iters, o2.repair_sj = 0;
    hx_tmop_result r2;
    rc = solve_keep(sub, &o2, &r2); /* o2.repair_sj = 0: no repair of the repair */
    if (!rc) {
      res->repair_newton += r2.newton_iters, res->repair_passes++;
      split[0] = r2.time_setup, split[1] = r2.time_newton, split[2] = r2.time_keep;
      for (hx_lid j = 0; j < sub->num_elem; j++)
        memcpy(mesh->x + (size_t)map[j] * 3 * n3, sub->x + (size_t)j * 3 * n3, 3 * n3 * sizeof *mesh->x);
      rc = repair_below(tm, r, patch, bad, nbad, rmin); /* the elements outside the patches did not move */
    }
  }
  hx_mesh_destroy(&sub);
  hx_free(&patch), hx_free(&weight), hx_free(&border), hx_free(&map), hx_free(&fixed), hx_free(&sw);
  return rc;
}

int hx_tmop_repair(hx_mesh *mesh, const hx_tmop_opts *o, hx_tmop_result *res) {
  double t_start = hx_tmop_now();
  hx_tmop *tm = NULL;
  int rc = hx_tmop_numbering(mesh, o, &tm);
  if (!tm) return rc;
  if (rc) {
    hx_tmop_destroy(&tm);
    return rc;
  }
  return hx_tmop_repair_tm(tm, o, t_start, res);
}

int hx_tmop_repair_tm(hx_tmop *tm, const hx_tmop_opts *o, double t_start, hx_tmop_result *res) {
  hx_mesh *mesh = tm->mesh;
  tm->o = *o;
  int rc = HX_OK;
  unsigned char *bad = NULL;
  int64_t nbad = 0;
  double rmin = 0, *r = NULL;
  if (!rc) rc = hx_malloc((size_t)mesh->num_elem + 1, &bad);
  if (!rc) rc = hx_malloc(((size_t)mesh->num_elem + 1) * sizeof *r, &r);
  if (!rc) rc = repair_below(tm, r, NULL, bad, &nbad, &rmin);
  res->repair_bad = res->repair_after = nbad, res->repair_free = 0, res->repair_newton = 0, res->repair_passes = 0;
  /* pass after pass while it gains (fewer left, or the poorest higher): a pass's hold-back leaves
     a new state about the elements it could not raise enough, from which the next may */
  while (!rc && nbad > 0 && res->repair_passes < o->repair_passes) {
    int64_t n0 = nbad;
    double r0 = rmin, tp = hx_tmop_now();
    int newton0 = res->repair_newton;
    double split[3] = {0, 0, 0};
    rc = repair_pass(tm, o, r, bad, &nbad, &rmin, res, split);
    res->repair_after = nbad;
    if (!rc && o->log)
      fprintf(o->log,
              "repair pass %d at order %d: %lld -> %lld element(s) below %g (min %.4f -> %.4f), %d Newton step(s), %.2f s "
              "(set-up %.2f s, solve %.2f s, hold-back %.2f s)\n",
              res->repair_passes, mesh->order, (long long)n0, (long long)nbad, o->repair_sj, r0, rmin,
              res->repair_newton - newton0, hx_tmop_now() - tp, split[0], split[1], split[2]);
    if (!(nbad < n0 || rmin > r0 + 1e-3)) break;
  }
  res->time_repair = hx_tmop_now() - t_start;
  res->time_total += res->time_repair;
  hx_free(&bad), hx_free(&r);
  hx_tmop_destroy(&tm);
  return rc;
}
