/* Inside tmop/ only: the problem struct shared by tmop.c and newton.c. */
#pragma once
#include "hx_gs.h"
#include "hx_tmop.h"

struct hx_tmop {
  hx_mesh *mesh; /* borrowed: must outlive the problem */
  hx_tmop_opts o;
  hx_lmap *lmap;
  hx_gs *gs;
  int gs_active;        /* more than one rank: assembled vectors need hx_gs_sum */
  int sync_timers;      /* HX_TMOP_SYNC_TIMERS: operator timers wait for the backend */
  const hx_backend *be; /* borrowed static table entry */
  hx_pa *pa;
  hx_lid nl;               /* local unique nodes */
  size_t nL, nE;           /* L-vector length (3 nl), E-vector length */
  double *x0;              /* [nl][3] initial positions (host) */
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
  double t_energy, t_grad, t_hess_setup, t_hess_apply, t_diag, t_mindet;
  long long n_energy, n_grad, n_hess_setup, n_hess_apply, n_diag, n_mindet;
};

double hx_tmop_now(void);
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
/** Global min det J at Gauss points nd + 3 per direction (host pass; detj_nodes = 2). */
int hx_tmop_dmin_detj_fine(hx_tmop *tm, const double *x, double *m);
/** opts.keep_sj: put back (to tm->x0) the nodes of every element of host L-vector x whose
    Nek5000 scaled Jacobian fell below min(keep_sj, its initial value), in rounds until none
    does (collective); the global count of nodes put back and the rounds. */
int hx_tmop_keep_sj(hx_tmop *tm, double *x, long long *nrev, int *rounds);
/** Global dot product (owned nodes once, MPI sum). */
int hx_tmop_ddot(hx_tmop *tm, const double *a, const double *b, double *out);
/** v <- Pi v: remove the constrained components. */
int hx_tmop_dproject(hx_tmop *tm, double *v);
/** Refresh the normals of nodes on curved surfaces at positions x. */
int hx_tmop_dupdate_normals(hx_tmop *tm, const double *x);
/** Project nodes on curved surfaces back onto them. */
int hx_tmop_dsnap(hx_tmop *tm, double *x);
