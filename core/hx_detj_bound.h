/* Proven validity of a curved hex: a lower bound of det J on the whole element
   (docs/architecture.md, "Proven validity").

   det J of an order-p hex is a polynomial of degree 3p - 1 in each reference
   direction (p = 1: degree 2). Written in the Bernstein basis on a box, it is bounded
   below by its smallest coefficient, and its corner coefficients are its values at the
   box corners; de Casteljau subdivision of the box narrows the gap between the two.
   The coefficients are formed exactly from those of the Jacobian entries (products of
   Bernstein polynomials), not from samples of det J (detj_bound.c says why). The bound
   and subdivision follow Johnen, Remacle and Geuzaine (geometrical validity of
   curvilinear finite elements, J. Comput. Phys. 233, 2013), used by Gmsh.

   Usage, one element at a time (one context per thread: it holds scratch space):
     hx_detj_bound_opts o; hx_detj_bound_opts_default(&o);
     hx_detj_bound_ctx *bc; HX_CALL(hx_detj_bound_ctx_create(order, &o, &bc));
     hx_detj_bound_result r;
     hx_detj_bound_elem(bc, xelem, &r);               xelem: [3][nd][nd][nd], no allocation
     ... r.verdict, r.lower, r.min_found ...
     hx_detj_bound_ctx_destroy(&bc);
   Over a whole mesh: hx_quality_mesh with opts.validity (hx_quality.h), which bounds each
   element in the same pass as its other measures and fills an hx_detj_bound_summary. */
#pragma once
#include "hx_types.h"

/** Verdict on one element (or a mesh: the worst of its elements). */
typedef enum {
  HX_VALID_PROVEN = 1,     /* det J > 0 everywhere: the lower bound is positive */
  HX_VALID_NOT_PROVEN = 2, /* no point with det J <= 0 found, no positive bound within the limits */
  HX_INVALID = 3           /* a point with det J <= 0 was found (evaluated from the nodes) */
} hx_validity;

/** Name of a verdict: "proven", "not proven", "invalid" ("unknown" otherwise). */
const char *hx_validity_name(int verdict);

typedef struct hx_detj_bound_opts {
  int max_depth;  /* most halvings of the element along one path (any direction), default 18 */
  int max_splits; /* most subdivisions per element in all, default 2000 */
  double tol;     /* a box whose bound is within tol * scale of its smallest corner value is not
                     split further (det J within tol of 0 there: not proven), default 1e-9 */
} hx_detj_bound_opts;

void hx_detj_bound_opts_default(hx_detj_bound_opts *o);

/** Result for one element. scale is the mean size of det J's Bernstein coefficients
    (their mean is the element's volume); decisions relative to it make the tolerances
    independent of the element's size. */
typedef struct hx_detj_bound_result {
  double lower;     /* lower bound of det J on the element (after subdivision) */
  double lower0;    /* the first bound: smallest Bernstein coefficient of the whole element */
  double min_found; /* smallest det J value found at a point (corners of the boxes) */
  double xi_min[3]; /* reference point of min_found */
  double scale;     /* mean |Bernstein coefficient| of det J */
  int verdict;      /* hx_validity */
  int num_splits;   /* de Casteljau subdivisions used */
} hx_detj_bound_result;

typedef struct hx_detj_bound_ctx hx_detj_bound_ctx;

/** Precompute, for geometry order 1..HX_MAX_ORDER, the GLL values -> Bernstein matrix,
    binomials, and the scratch of one element's subdivision (the options are copied). */
int hx_detj_bound_ctx_create(int order, const hx_detj_bound_opts *o, hx_detj_bound_ctx **out);
void hx_detj_bound_ctx_destroy(hx_detj_bound_ctx **bc);
/** Bernstein coefficients per direction, n = 3 order (degree n - 1). */
int hx_detj_bound_ctx_size(const hx_detj_bound_ctx *bc);

/** Bound, verdict and smallest value of det J of one element, x of shape [3][nd][nd][nd]
    (E-vector layout). Uses the context's scratch: one call at a time per context.
    Allocates nothing; always returns HX_OK (kept int for the convention). */
int hx_detj_bound_elem(hx_detj_bound_ctx *bc, const double *x, hx_detj_bound_result *r);

/** The Bernstein coefficients of det J on the whole element, coef of shape [n][n][n]
    (n = hx_detj_bound_ctx_size, lexicographic with the xi1 index fastest):
    det J(xi) = sum_{ijk} coef[i + n (j + n k)] b_i(xi1) b_j(xi2) b_k(xi3),
    b_i(t) = C(n-1, i) t^i (1-t)^(n-1-i). For tests and plots. */
int hx_detj_bound_bernstein(hx_detj_bound_ctx *bc, const double *x, double *coef);

/** For other implementations of the first bound (the CUDA pass, hx_kernels.h): the
    context's matrix Wg [nd][nd] taking values at the GLL nodes to Bernstein coefficients of
    degree p (row k: coefficient k), its GLL nodes xg [nd], and kappa = |Wg|_inf^3. A box is
    proven when its bound exceeds hx_detj_bound_margin(bc, H, cmax), H the rounding scale of
    the products (detj_bound.c) and cmax the largest |coefficient|. */
void hx_detj_bound_ctx_basis(const hx_detj_bound_ctx *bc, const double **Wg, const double **xg, double *kappa);
double hx_detj_bound_margin(const hx_detj_bound_ctx *bc, double H, double cmax);

/** det J of one element at the reference point xi, evaluated from its GLL nodes. */
double hx_detj_bound_eval(const hx_detj_bound_ctx *bc, const double *x, const double xi[3]);

/** The mesh-wide summary (hx_quality_report.bound). */
typedef struct hx_detj_bound_summary {
  hx_gid num_proven, num_not_proven, num_invalid; /* global counts of the verdicts */
  double lower_min;                               /* smallest element lower bound */
  double found_min;                               /* smallest det J found at a point */
  hx_gid num_splits;                              /* subdivisions over all elements */
  int verdict;                                    /* invalid if any, else not proven if any, else proven */
} hx_detj_bound_summary;
