/* One-dimensional nodes, weights and Lagrange bases on [0,1].

   Everything tensor-product in hexpack is built from these: GLL nodes of the
   geometry (nd = order + 1 per direction), quadrature rules with Q points per
   direction (GLL or Gauss-Legendre, weights summing to 1), and the 1D matrices
   B (values) and G (derivatives) of the nodal Lagrange basis at a set of points. */
#pragma once
#include "hx_types.h"

typedef enum { HX_QUAD_GLL = 1, HX_QUAD_GL = 2 } hx_quad_type;

/** Gauss-Lobatto-Legendre nodes and weights on [0,1], n >= 2 points (n <= HX_MAX_Q).
    Nodes ascending, weights sum to 1. */
int hx_gll(int n, double *x, double *w);
/** Gauss-Legendre nodes and weights on [0,1], n >= 1 points. */
int hx_gauss(int n, double *x, double *w);
/** Points of a rule by type (HX_QUAD_GLL or HX_QUAD_GL). */
int hx_quad_rule(int type, int n, double *x, double *w);
/** MFEM's -qo convention: points per direction of a rule integrating order qo exactly.
    GLL: ceil((qo + 3) / 2) (qo 8 -> 6); GL: ceil((qo + 1) / 2) (qo 8 -> 5). */
int hx_quad_points_for_order(int type, int qo);

/** Lagrange basis through nodes[0..n-1], evaluated at t: phi[a] = l_a(t),
    dphi[a] = l_a'(t) (dphi may be NULL). */
void hx_lagrange_eval(int n, const double *nodes, double t, double *phi, double *dphi);
/** B[q][a] = l_a(pts[q]), G[q][a] = l_a'(pts[q]) for q < m points, a < n nodes.
    Either output may be NULL. Shapes: [m][n], row-major. */
void hx_lagrange_matrices(int n, const double *nodes, int m, const double *pts, double *B, double *G);
/** v [nd^3] = u [ndm^3] interpolated along each direction by B [nd][ndm] (e.g. from
    hx_lagrange_matrices: Lagrange data of order ndm - 1 evaluated at nd points), one direction
    at a time (sum factorization); lexicographic, i fastest. nd, ndm <= HX_MAX_ND. */
void hx_tensor_interp(int ndm, int nd, const double *B, const double *u, double *v);
/** Equispaced points t_m = m/(n-1) on [0,1], n >= 2 (n = 1 gives 0.5). */
void hx_equispaced(int n, double *t);
