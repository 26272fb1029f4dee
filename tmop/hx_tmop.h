/* TMOP mesh optimization (docs/optimizer.md): targets, the distributed nonlinear problem
   on L-vectors (unique nodes), Newton with MINRES/CG + Jacobi, line search, and
   boundary treatment (fixed, sliding on planes, sliding on spheres/cylinders).

   Usage:
     hx_tmop_opts o; hx_tmop_opts_default(&o); o.metric = 303; o.boundary = HX_BND_SLIDE;
     hx_tmop_result r;
     HX_CALL(hx_tmop_optimize(mesh, &o, &r));   mesh->x is replaced by the optimized nodes

   Lower level (tests, benchmarks):
     hx_tmop *tm; HX_CALL(hx_tmop_create(mesh, &o, &tm));
     n = hx_tmop_size(tm); x = hx_tmop_x0(tm)            L-vector [num_lnodes][3]
     hx_tmop_energy(tm, x, &e); hx_tmop_grad(tm, x, g); hx_tmop_hess_setup(tm, x);
     hx_tmop_hess_apply(tm, v, y); hx_tmop_min_detj(tm, x, &m); hx_tmop_destroy(&tm);
   Every call is collective on mesh->comm. */
#pragma once
#include <stdio.h>

#include "hx_kernels.h"
#include "hx_mesh.h"

typedef enum {
  HX_TARGET_IDEAL_SHAPE_UNIT_SIZE = 1,  /* MFEM -tid 1: W = I */
  HX_TARGET_IDEAL_SHAPE_EQUAL_SIZE = 2, /* -tid 2: W = (mean volume)^(1/3) I */
  HX_TARGET_IDEAL_SHAPE_GIVEN_SIZE = 3, /* -tid 3: W = (det A0(xi_q))^(1/3) I per point */
  HX_TARGET_IDEAL_SHAPE_ELEM_SIZE = 4,  /* hexpack: W = (V0_e)^(1/3) I, the element's own initial
                                           volume at every point of it (not in MFEM): with a
                                           shape+size metric it evens det J out inside elements */
  HX_TARGET_UNTANGLE = 5                /* the untangling solve's own (tmop/untangle.c; not for --target):
                                           W = h_e I per element, h_e^3 = the mean over its quadrature
                                           points of (|A|^2 / 3)^(3/2), the volume of a cube with A's edge
                                           lengths (> 0 on an inverted element too); every element weighted
                                           alike (the mean of the h_e^3) */
} hx_target_type;

typedef enum { HX_BND_FIXED = 0, HX_BND_SLIDE = 1 } hx_boundary_mode;
/* the limiting term's distance delta (hx_tmop_opts.lim_dist_kind) */
typedef enum {
  HX_LIM_DIST_CONST = 0, /* lim_dist everywhere (0: 1, MFEM's default) */
  HX_LIM_DIST_SMALL = 1, /* MFEM's small_phys_size: (the mesh's volume)^(1/3) / 100 everywhere */
  HX_LIM_DIST_ELEM = 2   /* per element: its own volume^(1/3) as the solve starts (hexpack's) */
} hx_lim_dist_kind;
typedef enum { HX_LIN_CG = 1, HX_LIN_MINRES = 2 } hx_linear_solver;
typedef enum { HX_PREC_JACOBI = 1, HX_PREC_TWOLEVEL = 2 } hx_precond_kind;

typedef struct hx_tmop_opts {
  int metric;           /* MFEM number (hx_metrics.h), default 303 */
  double metric_param;  /* 0: the registry default */
  int target;           /* hx_target_type, default 1 */
  int quad_type;        /* HX_QUAD_GLL (default) or HX_QUAD_GL */
  int quad_order;       /* MFEM -qo, default 8 */
  int hess_strategy;    /* HX_HESS_ONTHEFLY (default) or HX_HESS_STORED */
  const char *backend;  /* "auto" (default), "cpu", "cuda" */
  int num_threads;      /* 0: OpenMP default */
  int boundary;         /* hx_boundary_mode, default HX_BND_SLIDE */
  int newton_iters;     /* default 100 */
  double newton_rtol;   /* stop when |r| <= rtol |r0|, default 1e-10 */
  int linear_solver;    /* HX_LIN_MINRES (default) or HX_LIN_CG */
  int linear_iters;     /* default 40 */
  int precond;          /* the linear solver's preconditioner: HX_PREC_JACOBI (default) or HX_PREC_TWOLEVEL
                           (Jacobi plus a correction on the order-1 copy of the mesh, solved by
                           precond_degree Chebyshev steps; from order 2; docs/optimizer.md) */
  int precond_degree;   /* the two-level preconditioner's Chebyshev degree on the order-1 copy (odd; default 3) */
  double linear_rtol;   /* fixed linear tolerance when !adaptive_rtol, default 1e-12 */
  int adaptive_rtol;    /* 1: Eisenstat-Walker type 1 forcing (default), 0: linear_rtol */
  int strict_decrease;  /* line search: demand E_new < E (default 0: MFEM's rules) */
  int detj_nodes;       /* line search: also reject det J <= 0 at a GLL node (1; off when
                           the initial mesh already has one there); 0: quadrature points only (MFEM);
                           2: also at Gauss points nd + 3 per direction (a host pass: with the
                           quadrature at the GLL nodes, minimizers fold between them); 3: the
                           nodes, and no element proven invalid by the Bernstein bound of det J
                           (hx_detj_bound.h: no fold anywhere in the element it can find); -1 (default):
                           3 up to order 4, 1 above; -2: 3 on the cuda backend up to order 4, else 2 */
  int recover;          /* 1 (default): where no trial step passes the line search, recover (a retry with
                           det J at the quadrature points only, a steepest-descent step, a Krylov restart)
                           instead of stopping; 0: stop there (the result is still the best iterate that
                           passes the det J check) */
  int relaxed_max;      /* the most Newton steps in a row whose iterates fail the det J check (relaxed mode)
                           before the solve stops and returns the best valid iterate (default 20; 0: no
                           limit): a relaxed path that does not unfold soon tends to end in a folded minimizer */
  int adapt_quad;       /* > quad_order: adaptive quadrature: before each Newton step, every element whose det J
                           may dip between its quadrature points (its first Bernstein bound below 3/4 of its
                           smallest value there) is integrated from then on with the rule exact for order
                           adapt_quad (MFEM -qo); -1: auto (quad_order + 4 from order 4, else off); 0: off
                           (default). Only with constant or per-element targets and no limiting term (else off) */
  int coarse_order;     /* 1: the solve starts where the order-1 copy of the mesh (its elements' corners),
                           solved first with these options, moves it: its moves carried to the mesh's
                           order (hx_tmop_transfer, held back where an element would fold); the problem
                           (targets, boundary, keep-sj) stays the mesh's own; 0: off (default); -1: 1
                           from order 3 (the optimize command's default: a start near the optimum, far
                           fewer Newton steps at order >= 3) */
  int normalize;        /* 1: nu = 1 / initial energy */
  int equal_weight;     /* 1: every element's energy weighted alike (targets 3 and 4: det W, the
                           integral's weight, replaced by the mean element volume, so that small
                           elements count as much as large ones; targets 1 and 2 already are) */
  double lim_const;     /* > 0: the limiting term (MFEM mesh-optimizer -lc, TMOP_QuadraticLimiter): the energy
                           gains lim_const 0.5 |x - x0|^2 / delta^2 integrated with the metric's weights, x0 the
                           nodes the solve starts from (after untangling, which runs without it) (0: off, default) */
  int lim_dist_kind;    /* its delta: hx_lim_dist_kind (default HX_LIM_DIST_CONST) */
  double lim_dist;      /* with HX_LIM_DIST_CONST (0: 1) */
  double keep_sj;       /* > 0: after the solve, the nodes of every element whose Nek5000 scaled
                           Jacobian (min / max det J at its GLL nodes) fell below min(keep_sj, its
                           initial value) go back to their initial positions, in rounds until
                           none does (0: off, default) */
  double transfer_keep; /* > keep_sj: hx_tmop_transfer also holds back, where it can, an element that
                           would end below min(transfer_keep, its value before): through its corners
                           that no element below keep_sj before has (those keep their moves, which
                           the poorest elements need) (0: off, default) */
  double keep_aspect;   /* > 0: keep_sj's rounds and hx_tmop_transfer hold back an element whose aspect
                           ratio (longest / shortest corner edge) would rise above max(keep_aspect,
                           its value before) as they hold back one below keep_sj (0: off, default) */
  int (*elem_ok)(void *ctx, hx_lid e, const double *xe); /* non-NULL: keep_sj's rounds and
                           hx_tmop_transfer also hold back an element for which it returns 0 where
                           it returned 1 for the element as it was (e.g. a writer's rule, so that the
                           mesh stays writable); e: the local element, xe: its nodes [3][nd^3] at the
                           mesh's order; called from threads. Only for a mesh of the caller's order:
                           hx_tmop_optimize's keep_sj, or hx_tmop_transfer's m */
  void *elem_ok_ctx;
  double repair_sj;                /* > 0: after the solve (and keep_sj's rounds), a second solve on patches about the
                                      elements whose Nek5000 scaled Jacobian is below repair_sj: only nodes inside
                                      them (repair_rings layers of elements about each) move, those elements' energy
                                      counts repair_weight times, and keep_sj is repair_sj for it, so no element ends
                                      below min(repair_sj, its value after the first solve) (0: off, default) */
  int repair_rings;                /* layers of elements about each one below repair_sj (default 2) */
  double repair_weight;            /* their energy's weight (default 10) */
  int repair_iters;                /* Newton steps of the repair solve (default 10) */
  int repair_passes;               /* repair solves at most, each on the patches of the elements the last one
                                      left, while it gains: fewer left, or their smallest Nek5000 scaled
                                      Jacobian higher by 1e-3 (default 3) */
  double repair_final_sj;          /* > 0: hx_tmop_lower_order's repair at the mesh's own order, after the
                                      transfer, is below this instead of repair_sj (0: repair_sj, default) */
  const unsigned char *fixed_node; /* non-NULL: [num_elem][nd^3] E-nodes marked are fixed (the repair
                           solve's nodes on the border of its patches) */
  const double *elem_weight;       /* non-NULL: [num_elem] each element's energy weight is multiplied by it
                                 (targets 3 and 4, whose weights are per element or point) */
  int untangle;                    /* hx_tmop_optimize on a mesh with det J <= 0 at a GLL node, a quadrature point or
                                      a Gauss point nd + 3 per direction: 1 (default) untangle it first
                                      (hx_tmop_untangle), then optimize; 2 untangle only; 0 no untangling (a
                                      barrier metric refuses the mesh) */
  int untangle_iters;              /* the untangling solve's Newton steps at most (default 200) */
  FILE *log;                       /* one line per Newton iteration (NULL: none); rank 0 writes */
  int debug;                       /* 1: diagnostics on stderr: the boundary nodes by kind (every rank), keep_sj's
                                      failing elements per round by reason (rank 0) (default 0; --debug tmop) */
  int sync_timers;                 /* 1: the operator timers wait for the backend first (a 1-double download), so
                                      that asynchronous kernels are charged to their operator; profiling only: one
                                      synchronization per operator call (default 0; --sync-timers) */
} hx_tmop_opts;

void hx_tmop_opts_default(hx_tmop_opts *o);
/** Parse names: "1"/"ideal-unit", "2"/"ideal-equal", "3"/"ideal-given", "4"/"ideal-elem" ... */
int hx_target_parse(const char *s, int *target);
/** Parse an adaptive-quadrature setting: "auto" (-1), "off" (0) or a quadrature order 2..40. */
int hx_adapt_quad_parse(const char *s, int *adapt_quad);
const char *hx_target_name(int target);

typedef struct hx_tmop_result {
  double energy0, energy;     /* initial / final objective */
  double min_detj0, min_detj; /* min det A over quadrature points, before / after */
  int newton_iters, linear_iters;
  int converged;            /* 1: |r| <= rtol |r0| */
  long long nodes_reverted; /* keep_sj: global nodes put back (rounds: keep_sj_rounds) */
  int keep_sj_rounds;
  char stop_reason[64];    /* "converged", "iteration cap", "line search failed (recoveries failed)" (or
                              "(recovery budget spent)": a recovery that would have run had run its 8 times) */
  int recover_relaxed;     /* failed line searches retried with det J at the quadrature points only (recovery a), */
  int recover_steepest;    /* with the steepest-descent direction D^-1 r (b), */
  int recover_krylov;      /* with a Krylov restart to a tighter tolerance (c) */
  long long adapt_refined; /* opts.adapt_quad: the elements integrated with the higher rule at the end (global), */
  int adapt_events;        /* and the Newton steps before which some element was flagged */
  int relaxed_iters;       /* Newton steps accepted with det J checked at the quadrature points only (relaxed mode) */
  int result_iter;         /* the iterate returned (newton_iters, unless that one failed the det J check or an
                              earlier one that passed it had a lower energy) */
  long long repair_bad;    /* repair_sj: elements below it after the first solve, */
  long long repair_free;   /* the elements of the first pass's patches, */
  long long repair_after;  /* and those left after the last pass (global counts) */
  int repair_newton;       /* the repair solves' Newton steps, all passes (the fields above it are
                              the first solve's; time_total includes the repair) */
  int repair_passes;       /* the repair solves run */
  int coarse_order;        /* 1: the solve started from the coarse start's (opts.coarse_order), 0: from the mesh */
  int coarse_newton;       /* the order-1 solve's Newton and linear iterations, its final energy, */
  int coarse_linear;
  double coarse_energy;
  long long coarse_held;  /* the elements the carrying held back (some corner's move reduced), */
  double coarse_time;     /* and the coarse start's seconds (in time_total) */
  int untangled;          /* the untangling solve ran (opts.untangle and an inverted mesh) */
  long long inverted0;    /* elements with det J <= 0 at a GLL node, quadrature point or Gauss point nd + 3, */
  long long inverted;     /* before and after the untangling solve (global counts) */
  int untangle_iters;     /* its Newton steps */
  double untangle_time;   /* its seconds */
  char untangle_stop[64]; /* "untangled", "iteration cap", "line search failed", "no progress in N steps" */
  long long vector_dofs;  /* 3 x global unique nodes */
  double time_total;      /* seconds */
  double time_energy, time_grad, time_hess_setup, time_hess_apply, time_diag, time_mindet;
  long long n_energy, n_grad, n_hess_setup, n_hess_apply, n_diag, n_mindet;
  double time_bound; /* the det J bound's passes (detj_nodes = 3), part of time_mindet */
  long long n_bound;
  double time_adapt;   /* adaptive quadrature: the indicator's passes, part of time_mindet, */
  double time_rebuild; /* and of them the rebuilds of the parts whose elements changed */
  long long n_adapt, n_rebuild;
  double time_precond; /* the two-level preconditioner (opts.precond): its set-up per Newton step and its
                          corrections (n_precond), apart from the Jacobi part */
  long long n_precond;
  double time_setup;  /* of time_total: the problem's set-up (numbering, operators), */
  double time_newton; /* the first solve (coarse start and Newton), */
  double time_keep;   /* the keep_sj hold-back after it, */
  double time_repair; /* and the repair's passes (their set-up, solves and hold-backs) */
} hx_tmop_result;

/** Optimize the mesh's nodes in place (collective). An inverted mesh is untangled first
    (opts.untangle, hx_tmop_untangle); with untangling off, a mesh with det J <= 0 at a
    quadrature point is refused for a barrier metric (HX_ERR_INVALID_MESH, no change). */
int hx_tmop_optimize(hx_mesh *mesh, const hx_tmop_opts *o, hx_tmop_result *res);
/** The untangling solve alone (docs/optimizer.md, "Untangling"; collective): where some element
    has det J <= 0 at a GLL node, a quadrature point or a Gauss point nd + 3 per direction, Newton
    on the shifted-barrier metric 1360 (shift below the smallest det T, raised every step) until
    none has, at most opts.untangle_iters steps. res: the untangle fields only (the rest zero).
    Returns HX_ERR_INVALID_MESH ("untangling left N of M inverted element(s) ...") where it ends
    with elements still inverted; the mesh then holds the iterate with the fewest. */
int hx_tmop_untangle(hx_mesh *mesh, const hx_tmop_opts *o, hx_tmop_result *res);
/** Elements with det J <= 0 at a GLL node, a quadrature point of the quality report's rule or a
    Gauss point nd + 3 per direction (global count; collective). */
int hx_tmop_count_inverted(const hx_mesh *mesh, long long *count);
/** opts.repair_sj's second solve (hx_tmop_optimize runs it): the elements within
    opts.repair_rings layers of one below repair_sj are copied into a mesh of their own, solved
    there with the nodes they share with the rest fixed, and copied back (collective). */
int hx_tmop_repair(hx_mesh *mesh, const hx_tmop_opts *o, hx_tmop_result *res);
/** Carry the moves of a lower-order copy of the mesh to it (collective). lo: the same elements
    (equal vert_id) at order <= m's, optimized; lo_x0: lo's E-vector before. Each element of m
    gets its nodes plus lo's moves interpolated to m's GLL nodes, scaled by the trilinear blend of
    a factor alpha at its corners; nodes on curved surfaces are projected back onto them and the
    corrections blended into the element (edges, faces, volume, as hx_curve does). An element
    that would end below min(o->keep_sj, its Nek5000 scaled Jacobian now), or folded between its
    nodes where it is not now, halves its corners' alpha (1, 1/2, .. 1/16, 0), in rounds until
    none does; alpha = 0 at all 8 corners is the element as it was. With o->transfer_keep, an
    element that would end below min(transfer_keep, its value now) halves the alpha of those of
    its corners that no element now below keep_sj has (best effort: an element all of whose
    corners are such may end below). *nback: elements with some
    corner below alpha 1; *rounds: the rounds. */
int hx_tmop_transfer(hx_mesh *m, const hx_mesh *lo, const double *lo_x0, const hx_tmop_opts *o, long long *nback, int *rounds);

/** What hx_tmop_lower_order did: the copy's order (0: every copy folded, m unchanged), the
    transfer's held elements and rounds, and the repair at m's order. */
typedef struct hx_tmop_lower {
  int order;
  long long held;
  int rounds;
  hx_tmop_result repair;
  double time_copy, time_solve, time_transfer; /* seconds: the copy's meshing, its solve, the transfer */
} hx_tmop_lower;
/** The copy of m at a lower order made by copy(ctx, attempt, &lo) (attempt 0, then 1 where the
    solve refuses copy 0 with HX_ERR_INVALID_MESH: it folds at the quadrature points), solved by
    solve(ctx, lo, o) (NULL: hx_tmop_optimize) with o less its elem_ok (that is for m), its moves
    carried to m (hx_tmop_transfer with o); then, with o->repair_sj > 0, hx_tmop_repair of m with
    o at quadrature order repair_qo (0: o's). Where m is lazy (its order-1 mesh with m->lazy, a map
    to order N > the copy's), both run a block of elements at a time and m->lazy becomes the
    carried mesh (it keeps the solved copy; the repair on the region about the elements below its
    threshold, whose nodes it keeps): the same nodes as on the whole mesh. Collective. */
int hx_tmop_lower_order(hx_mesh *m, const hx_tmop_opts *o, int repair_qo, int (*copy)(void *ctx, int attempt, hx_mesh **lo),
                        int (*solve)(void *ctx, hx_mesh *lo, hx_tmop_opts *o), void *ctx, hx_tmop_lower *r);

typedef struct hx_tmop hx_tmop;
/** Set up the problem for mesh (borrowed: must outlive tm; its x is the initial state). */
int hx_tmop_create(hx_mesh *mesh, const hx_tmop_opts *o, hx_tmop **out);
void hx_tmop_destroy(hx_tmop **tm);
/** Length of L-vectors on this rank (3 x local unique nodes). */
size_t hx_tmop_size(const hx_tmop *tm);
/** Initial node positions as an L-vector (borrowed). */
const double *hx_tmop_x0(const hx_tmop *tm);
/** The PA data (for benchmarks: direct kernel calls). */
hx_pa *hx_tmop_pa(hx_tmop *tm);
/** Global energy at x (collective). */
int hx_tmop_energy(hx_tmop *tm, const double *x, double *e);
/** Global gradient at x, assembled and consistent on shared nodes; constrained
    directions removed (collective). */
int hx_tmop_grad(hx_tmop *tm, const double *x, double *g);
/** Unconstrained assembled gradient (for finite-difference checks). */
int hx_tmop_grad_raw(hx_tmop *tm, const double *x, double *g);
int hx_tmop_hess_setup(hx_tmop *tm, const double *x);
/** y = H v assembled; raw = 1 skips the boundary constraints (collective). */
int hx_tmop_hess_apply(hx_tmop *tm, const double *v, double *y, int raw);
/** Assembled Jacobi diagonal at the hess_setup point (unconstrained). */
int hx_tmop_diag(hx_tmop *tm, double *d);
int hx_tmop_min_detj(hx_tmop *tm, const double *x, double *m);
/** Global dot product of L-vectors (each shared node once). */
double hx_tmop_dot(const hx_tmop *tm, const double *a, const double *b);
/** Wall-clock seconds (monotonic), for benchmarks. */
double hx_tmop_now_public(void);
/** Copy an L-vector of positions into mesh->x. */
void hx_tmop_to_mesh(const hx_tmop *tm, const double *x, hx_mesh *mesh);
