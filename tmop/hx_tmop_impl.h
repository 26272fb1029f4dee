/* Inside tmop/ only: the problem struct and the internal calls shared by the files of tmop/, in
   three layers, each calling only the ones below it:
     repair.c, transfer.c,  the drivers: hx_tmop_optimize (coarse start, solve, keep-sj, repair),
     coarse.c               the repair solve on patches, the carrying of moves to a higher order
     newton.c               the solver: hx_tmop_solve (Newton, linear solvers, line search)
     tmop.c                 the problem: set-up (targets, constraints), operators, fold tests */
#pragma once
#include <math.h>

#include "hx_gs.h"
#include "hx_quality.h"
#include "hx_tmop.h"

/* adaptive quadrature: an element goes up a level where its first Bernstein bound of det J is below
   HX_ADAPT_RATIO times its smallest det J at its rule's points; levels 1..HX_ADAPT_LEVELS. One
   level above the base: a second (-qo 16, 10 points per direction) needs more shared memory per
   block than the CUDA kernels have at orders 3 and 4 (255-269 KB against 227 KB on an H200). */
#define HX_ADAPT_RATIO 0.75
#define HX_ADAPT_LEVELS 1

struct hx_tmop {
  hx_mesh *mesh; /* borrowed: must outlive the problem */
  hx_tmop_opts o;
  hx_lmap *lmap;
  hx_gs *gs;
  int gs_active;        /* more than one rank: assembled vectors need hx_gs_sum */
  const hx_backend *be; /* borrowed static table entry */
  hx_pa *pa;
  hx_lid nl;               /* local unique nodes */
  size_t nL, nE;           /* L-vector length (3 nl), E-vector length */
  double *x0;              /* [nl][3] initial positions (host) */
  double *xstart;          /* [nl][3] the solve's starting point where it is not x0 (the coarse
                              start's), else NULL (host, owned) */
  double *hL;              /* host L scratch (MPI exchange of backend vectors) */
  double *dX, *dV, *dY;    /* backend E-vectors: linearization point, input, output */
  double *dLa, *dLb, *dLt; /* backend L scratch: host-API input/output, projected Hessian input */
  int *ncon;               /* [nl] number of constrained directions (0..3) */
  int *curved;             /* [nl] the node's track: s >= 0 it slides on curved surface s, -2 - c on
                              circle c (where two surfaces meet), -1 neither (fixed, or on planes) */
  double *circ;            /* [ncirc][7] circles: centre, unit axis, radius */
  int ncirc;
  double *nrm;    /* [nl][3][3] orthonormal constrained directions (initial) */
  hx_lid ncurved; /* nodes on curved surfaces: their list, surfaces, host/backend buffers */
  hx_lid *cidx;
  int *csurf;      /* their tracks (as curved[]) */
  double *hC, *dC; /* [ncurved][9] positions (3) or normals (9) */
  hx_lid nshared;  /* nodes other ranks hold too (gs_active): their list, host/backend buffers */
  hx_lid *sidx;
  double *hS, *dS; /* [nshared][3] */
  /* adaptive quadrature (opts.adapt_quad): refined[e] = the level of element e's rule (0: opts.quad_order,
     k >= 1: hx_tmop_adapt_order(tm, k)). While some element is above 0 (nrefined > 0), the operators
     run on parts, each an hx_pa over the elements of one level (a level with no element has pa
     NULL); else tm->pa over every element. tm->pa stays the whole mesh's (the L-vector operations,
     the node checks). */
  struct hx_tmop_part {
    hx_pa *pa;
    hx_lid *elems;        /* [its elements] their local indices */
    hx_lid *e2l;          /* [its elements][nd^3] E-node -> L-node */
    double *dX, *dV, *dY; /* backend E-vectors of its elements */
  } part[HX_ADAPT_LEVELS + 1];
  unsigned char *refined; /* [num_elem] or NULL */
  hx_lid nrefined;        /* local count of elements above level 0 (> 0: the parts are on) */
  double *dLs;            /* backend L scratch: the parts' sums */
  hx_pa_desc pdesc;       /* the problem's hx_pa_desc (its per-element W kept in winv_e/detw_e) */
  double *winv_e, *detw_e;
  double t_energy, t_grad, t_hess_setup, t_hess_apply, t_diag, t_mindet, t_bound; /* t_bound: part of t_mindet */
  long long n_energy, n_grad, n_hess_setup, n_hess_apply, n_diag, n_mindet, n_bound;
  double t_adapt, t_rebuild; /* adaptive quadrature's indicator passes and its parts' rebuilds (part of t_mindet) */
  long long n_adapt, n_rebuild;
  struct hx_tmop_pmg *pmg;         /* the two-level preconditioner (opts.precond; pmg.c), NULL: Jacobi alone */
  double t_pmg_setup, t_pmg_apply; /* its per-step set-up and its corrections */
  long long n_pmg_apply;
};

double hx_tmop_now(void);

/* ---- tmop.c: the problem */

/** The numbering part of a TMOP context: the rank's L-numbering and the shared-node exchange
    (hx_tmop_repair needs no more). *out is NULL only if its allocation failed; else the caller
    destroys it (hx_tmop_destroy). */
int hx_tmop_numbering(hx_mesh *mesh, const hx_tmop_opts *o, hx_tmop **out);
/** The part of a TMOP context that needs no backend: hx_tmop_numbering's, the initial nodes as
    an L-vector and the boundary constraints (hx_tmop_create and hx_tmop_transfer). *out as there.
    normals 0: the constraints' counts and tracks without their directions (nrm stays NULL; the
    transfer, which runs no solve, needs none: 72 bytes a node). */
int hx_tmop_base(hx_mesh *mesh, const hx_tmop_opts *o, int normals, hx_tmop **out);
/** hx_tmop_repair of tm->mesh on tm, a context with hx_tmop_numbering's part of that mesh (its
    options become o), which it takes over and destroys; t_start: the clock the repair's time
    counts from (hx_tmop_now). */
int hx_tmop_repair_tm(hx_tmop *tm, const hx_tmop_opts *o, double t_start, hx_tmop_result *res);
/** The elements within `layers` layers (at least one) of some seeds, sharing a corner: element e's
    corner c is node e2l[e stride + corner[c]]; vf (one flag a node, shared with the other ranks
    through gs, or gs NULL) has the seeds' corners flagged on entry and more on return; in[e] = 1
    for the elements found, else 0. Collective where gs is. */
int hx_tmop_corner_layers(hx_gs *gs, hx_lid ne, const hx_lid *e2l, size_t stride, const size_t corner[8], int layers,
                          uint64_t *vf, unsigned char *in);
/** y = x projected onto track t of tm->curved's codes (a curved surface s >= 0, or the circle
    -2 - t where two surfaces meet). */
void hx_tmop_track_project(const hx_tmop *tm, int t, const double x[3], double y[3]);
/** The quality contexts of the fold tests between the GLL nodes: k = 0 the quality report's
    rule (hx_quality_opts_default), k = 1 Gauss points nd + 3 per direction. */
int hx_tmop_fold_ctx(int nd, int k, hx_quality_ctx **qc);
/** Per element of the E-vector xe (those with only[e], or all where only is NULL), each unless
    NULL: the smallest det J at the points of qc[0 .. nqc) into f (-1 where NaN), the Nek5000
    ratio at the GLL nodes into r, the aspect ratio into asp, tm->o.elem_ok's verdict (1 without
    one) into ok. Only the parts asked for are evaluated. */
int hx_tmop_fold_state(const hx_tmop *tm, const double *xe, hx_quality_ctx *const *qc, int nqc, double *r, double *asp, double *f,
                       unsigned char *ok, const unsigned char *only);
/** keep_fails' initial f0 and w0 where they decide: of the elements with !(f1[e] > 0) or !w1[e]
    (a fold or a failed elem_ok now) not yet evaluated (have[e] == 0; set here), from their
    initial nodes: the element's slice of the E-vector xe0 or, xe0 NULL, of the L-vector xl0. An
    initial state then costs the GLL nodes' part of every element (hx_tmop_fold_state with f and
    ok NULL) and the points and elem_ok only of these few: keep_fails reads f0 only where f1 <= 0
    and w0 only where w1 fails. */
int hx_tmop_fold_initial(const hx_tmop *tm, const double *xe0, const double *xl0, hx_quality_ctx *const *qc, int nqc,
                         const double *f1, const unsigned char *w1, double *f0, unsigned char *w0, unsigned char *have);

/* The operators on backend L-vectors (memory of tm->be: device arrays for cuda).
   The hx_tmop_* functions of hx_tmop.h are host wrappers around these. */
int hx_tmop_denergy(hx_tmop *tm, const double *x, double *e);
/** g = assembled gradient; raw = 0 projects out the constrained directions. */
int hx_tmop_dgrad(hx_tmop *tm, const double *x, double *g, int raw);
int hx_tmop_dhess_setup(hx_tmop *tm, const double *x);
int hx_tmop_dhess_apply(hx_tmop *tm, const double *v, double *y, int raw);
int hx_tmop_ddiag(hx_tmop *tm, double *d);
int hx_tmop_dmin_detj(hx_tmop *tm, const double *x, double *m);
/** Global min det J at the GLL nodes (the writers' test; the line search's second check). */
int hx_tmop_dmin_detj_nodes(hx_tmop *tm, const double *x, double *m);
/** Adaptive quadrature (opts.adapt_quad > 0, docs/optimizer.md "Adaptive quadrature"): every
    element of x (backend L-vector) below the top level whose first Bernstein bound of det J is
    below HX_ADAPT_RATIO times its smallest det J at its rule's points goes up a level, and the
    parts are rebuilt where some did. *nnew: the elements raised by this call (global). A no-op
    (*nnew = 0) where the problem's targets or limiting term are per point. */
int hx_tmop_adapt(hx_tmop *tm, const double *x, long long *nnew);
/** Set every element's level (levels[e], 0..HX_ADAPT_LEVELS; NULL: tm->refined as it is) and
    rebuild the parts (local: the caller keeps the ranks in step). */
int hx_tmop_adapt_set(hx_tmop *tm, const unsigned char *levels);
/** The quadrature order (MFEM -qo) of level k: opts.quad_order at 0, opts.adapt_quad + 4 (k - 1) above. */
int hx_tmop_adapt_order(const hx_tmop *tm, int k);
/** Whether hx_tmop_adapt can run on this problem (constant or per-element targets, no limiting). */
int hx_tmop_adapt_possible(const hx_tmop *tm);
/** Global min det J at Gauss points nd + 3 per direction (host pass; detj_nodes = 2). */
int hx_tmop_dmin_detj_fine(hx_tmop *tm, const double *x, double *m);
/** Global count of the elements that the Bernstein bound of det J proves invalid (det J <= 0 at
    some point: a fold between the nodes), the first pass on the GPU on the cuda backend (host
    pass; detj_nodes = 3). */
int hx_tmop_dbound_invalid(hx_tmop *tm, const double *x, long long *ninv);
/** Global dot product (owned nodes once, MPI sum). */
int hx_tmop_ddot(hx_tmop *tm, const double *a, const double *b, double *out);
/** v <- Pi v: remove the constrained components. */
int hx_tmop_dproject(hx_tmop *tm, double *v);
/** Refresh the normals of nodes on curved surfaces at positions x. */
int hx_tmop_dupdate_normals(hx_tmop *tm, const double *x);
/** Project nodes on curved surfaces back onto them. */
int hx_tmop_dsnap(hx_tmop *tm, double *x);

/** L = L summed over the ranks that share its nodes (a no-op on one rank). */
int hx_tmop_dassemble(hx_tmop *tm, double *L);

/* ---- pmg.c: the two-level preconditioner (beside the solver; newton.c calls it) */

/** The order-1 copy of tm's mesh and its problem, the transfers' vectors (opts.precond =
    HX_PREC_TWOLEVEL, a mesh of order >= 2). tm->pmg is NULL on failure. */
int hx_tmop_pmg_create(hx_tmop *tm);
void hx_tmop_pmg_destroy(hx_tmop *tm);
/** Linearize the order-1 copy at the corners of x (backend L-vector) after tm's own
    linearization: its Hessian, Jacobi diagonal and the Chebyshev interval. Collective. */
int hx_tmop_pmg_setup(hx_tmop *tm, const double *x);
/** z += the coarse correction of r (a no-op where the step's correction is off). Collective. */
int hx_tmop_pmg_add(hx_tmop *tm, const double *r, double *z);
/** 1 if this Newton step's coarse correction is on. */
int hx_tmop_pmg_active(const hx_tmop *tm);
/** Its transfers (for tests): op 0 out = P in (coarse to fine L-vector), 1 out = P^T in (fine to
    coarse), 2 out = the corners of the last hx_tmop_pmg_setup's x (a coarse L-vector). */
int hx_tmop_pmg_transfer(hx_tmop *tm, int op, const double *in, double *out);
/** The order-1 copy's problem (NULL without the preconditioner). */
hx_tmop *hx_tmop_pmg_coarse(hx_tmop *tm);

/* ---- coarse.c */

/** The order-1 copy of m: its elements' corners, faces, surfaces, names and attributes. */
int hx_tmop_linear_copy(const hx_mesh *m, hx_mesh **out);

/* ---- newton.c: the solver */

/** Newton from tm's initial nodes (tm->x0) with tm->o; the nodes it ends at into the host
    L-vector x ([nl][3]: tm->hL will do), res's fields of the solve (energies, min det J,
    iterations, stop reason, vector DOFs, operator timers; time_total: the solve's). It calls
    nothing above it: keep-sj and repair are the drivers' (repair.c). Collective. */
int hx_tmop_solve(hx_tmop *tm, double *x, hx_tmop_result *res);

/** The Newton direction at the last hx_tmop_dhess_setup point, for a driver with its own loop
    (untangle.c): opts' linear solver on (Pi H Pi + I - Pi) c = r to tol with Jacobi from |diag|,
    or, with steepest, c = Pi D^-1 Pi r + (I - Pi) r. Backend L-vectors; collective. */
int hx_tmop_direction(hx_tmop *tm, const double *r, double *c, double tol, int maxit, int steepest, int *li);

/* ---- repair.c, transfer.c, coarse.c, untangle.c: the drivers above the solver */

/** opts.coarse_order's start: the order-1 copy of tm's mesh solved, its moves carried to the
    mesh's order into tm->xstart (NULL, and res->coarse_order 0, where the copy is not valid for
    the metric); res's coarse_* fields (collective). */
int hx_tmop_coarse_start(hx_tmop *tm, hx_tmop_result *res);

/** opts.keep_sj: put back (to tm->x0) the nodes of every element of host L-vector x whose
    Nek5000 scaled Jacobian fell below min(keep_sj, its initial value), in rounds until none
    does (collective); the global count of nodes put back and the rounds. */
int hx_tmop_keep_sj(hx_tmop *tm, double *x, long long *nrev, int *rounds);

/* --keep-sj's test of an element, 0 where it passes, else the reasons it fails as bits: 1 below
   min(keep_sj, its initial Nek ratio r0), 2 folded between its nodes (f, the smallest det J of
   hx_tmop_fold_state) where it was not, 4 (keep_aspect > 0) its aspect ratio a above max(keep_aspect,
   its initial a0), 8 failing elem_ok (w) where it passed */
static inline int keep_fails(const hx_tmop_opts *o, double r0, double r1, double f0, double f1, double a0, double a1, int w0,
                             int w1) {
  return (!(r1 >= fmin(o->keep_sj, r0))) | (!(f1 > 0) && f0 > 0) << 1 |
         (o->keep_aspect > 0 && a1 > fmax(o->keep_aspect, a0)) << 2 | (w0 && !w1) << 3;
}

/* the hold-back factor of level lev (--keep-sj's nodes, the transfer's corners): 1, 1/2 .. 1/16,
   then 0 at HOLD_LEVELS (the initial node) */
enum { HOLD_LEVELS = 5 };
static inline double hold_factor(int lev) { return lev < HOLD_LEVELS ? ldexp(1.0, -lev) : 0.0; }
