/* Inside tmop/ only: the problem struct shared by tmop.c and newton.c. */
#pragma once
#include "hx_gs.h"
#include "hx_tmop.h"

struct hx_tmop {
  hx_mesh *mesh;          /* borrowed: must outlive the problem */
  hx_tmop_opts o;
  hx_lmap *lmap;
  hx_gs *gs;
  const hx_backend *be;   /* borrowed static table entry */
  hx_pa *pa;
  hx_lid nl;              /* local unique nodes */
  size_t nL, nE;          /* L-vector length (3 nl), E-vector length */
  double *x0;             /* [nl][3] initial positions */
  double *hE;             /* host E-vector scratch */
  double *dX, *dV, *dY;   /* backend E-vectors: linearization point, input, output */
  double *tmpL;           /* L scratch for the constrained Hessian action */
  int *ncon;              /* [nl] number of constrained directions (0..3) */
  int *curved;            /* [nl] surface index of a node sliding on a curved surface, else -1 */
  double *nrm;            /* [nl][3][3] orthonormal constrained directions */
  double t_energy, t_grad, t_hess_setup, t_hess_apply, t_diag, t_mindet;
  long long n_energy, n_grad, n_hess_setup, n_hess_apply, n_diag, n_mindet;
};

double hx_tmop_now(void);
/** v <- Pi v: remove the constrained components. */
void hx_tmop_project(const hx_tmop *tm, double *v);
/** Refresh the normals of nodes on curved surfaces at positions x. */
void hx_tmop_update_normals(hx_tmop *tm, const double *x);
/** Project nodes on curved surfaces back onto them. */
void hx_tmop_snap(const hx_tmop *tm, double *x);
