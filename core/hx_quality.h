/* Quality of a high-order hex mesh (docs/architecture.md, "Quality").

   Usage, whole mesh:
     hx_quality_opts o; hx_quality_opts_default(&o);        GLL, MFEM -qo 8, 10 worst
     hx_quality_report r;
     HX_CALL(hx_quality_mesh(m, &o, NULL, &r));             collective on m->comm
     hx_quality_print(&r, stdout);  or  hx_quality_json(&r, stdout);
     hx_quality_report_free(&r);
   Usage, one element at a time (streaming writers, any order):
     hx_quality_ctx *qc; HX_CALL(hx_quality_ctx_create(nd, &o, &qc));
     hx_quality_elem(qc, xelem, &q);                         xelem: [3][nd][nd][nd]
     hx_quality_ctx_destroy(&qc);

   Per element (hx_elem_quality):
   - det J min/max at the element's GLL nodes and at a tensor quadrature rule of
     Q points per direction (GLL or Gauss; Q from MFEM's -qo convention);
   - Nek5000's scaled Jacobian: min det J / max det J over the GLL nodes (1 for an
     affine element; <= 0 when inverted; -1 when det J < 0 at every node);
   - the normalized corner scaled Jacobian of Knupp / Verdict: at each of the 8
     corners, the determinant of the three unit edge vectors leaving it (signed so
     that the reference cube gives 1), minimum over the corners (order-1 geometry);
   - aspect ratio: longest / shortest of the 12 straight corner-to-corner edges;
   - min GLL spacing: shortest distance between two neighbouring GLL nodes of a
     grid line (Nek5000's dxmin).
   With opts.validity the mesh report also says whether det J > 0 is proven on every
   element (not only at sample points): hx_detj_bound_elem per element, the counts of
   each verdict and the smallest bound in report.bound, one line in the table and the
   fields validity, bound_min, detj_min_found and the counts in the JSON. */
#pragma once
#include <stdio.h>

#include "hx_detj_bound.h"
#include "hx_mesh.h"

typedef struct hx_quality_opts {
  int quad_type;   /* HX_QUAD_GLL (default) or HX_QUAD_GL */
  int quad_order;  /* MFEM -qo: exact for polynomials of this order (default 8) */
  int quad_points; /* > 0 overrides quad_order: points per direction */
  int num_worst;   /* elements listed in the report (default 10) */
  int validity;    /* 1: also prove validity with the Bernstein bound of det J (hx_detj_bound.h,
                      default options); default 0 */
} hx_quality_opts;

void hx_quality_opts_default(hx_quality_opts *o);

typedef struct hx_elem_quality {
  double detj_min, detj_max;     /* at the GLL nodes */
  double detj_min_q, detj_max_q; /* at the quadrature points */
  double scaled_jac;             /* Nek5000: detj_min / detj_max */
  double corner_sj;              /* Knupp/Verdict normalized corner scaled Jacobian */
  double aspect;                 /* longest / shortest corner edge */
  double min_spacing;            /* shortest GLL grid-line spacing */
  double centroid[3];            /* mean of the 8 corners */
} hx_elem_quality;

typedef struct hx_quality_ctx hx_quality_ctx;
/** Precompute the bases for elements with nd GLL nodes per direction. */
int hx_quality_ctx_create(int nd, const hx_quality_opts *o, hx_quality_ctx **out);
void hx_quality_ctx_destroy(hx_quality_ctx **qc);
/** Quadrature points per direction the context uses. */
int hx_quality_ctx_points(const hx_quality_ctx *qc);
/** The context's rule: B and G [Q][nd], the GLL Lagrange basis's values and derivatives at its
    Q points a direction (Q = hx_quality_ctx_points); borrowed from qc. */
void hx_quality_ctx_rule(const hx_quality_ctx *qc, const double **B, const double **G);
/** Quality of one element; x has shape [3][nd][nd][nd]. Thread-safe. Fails only
    if scratch for more than 12 quadrature points per direction cannot be had. */
int hx_quality_elem(const hx_quality_ctx *qc, const double *x, hx_elem_quality *q);
/** The parts of hx_quality_elem's answer: HX_QUALITY_NODES (det J at the GLL nodes, the scaled
    Jacobians, aspect ratio, spacing, centroid), HX_QUALITY_POINTS (det J at the quadrature
    points; NaN without it); the other members are left unset. The same values as
    hx_quality_elem's, for less work where a caller needs one part. */
enum { HX_QUALITY_NODES = 1, HX_QUALITY_POINTS = 2 };
int hx_quality_elem_parts(const hx_quality_ctx *qc, const double *x, int parts, hx_elem_quality *q);

/** Min, mean, max of one measure over all elements. */
typedef struct hx_quality_stat {
  double min, mean, max;
} hx_quality_stat;

/** A listed element: global index and its measures. */
typedef struct hx_quality_worst {
  hx_gid elem;
  hx_elem_quality q;
} hx_quality_worst;

#define HX_QUALITY_NUM_STATS 8
/** Names of the measures, in hx_quality_report.stat order. */
extern const char *const hx_quality_stat_names[HX_QUALITY_NUM_STATS];

typedef struct hx_quality_report {
  hx_gid num_elem; /* global */
  int order;
  int quad_type, quad_points;
  hx_gid num_inverted; /* elements with det J <= 0 at a GLL node or quadrature point */
  /* detj_min, detj_max, detj_min_q, detj_max_q, scaled_jac, corner_sj, aspect, min_spacing */
  hx_quality_stat stat[HX_QUALITY_NUM_STATS];
  int num_worst; /* entries in worst, by ascending scaled Jacobian (Nek) */
  hx_quality_worst *worst;
  int validity_checked;        /* opts.validity was set: bound holds the verdicts */
  hx_detj_bound_summary bound; /* counts of proven / not proven / invalid, smallest bound */
  const char *verdict;         /* set by the caller: "valid", "inverted" or "broken", the JSON's first
                                  field; NULL: left out */
} hx_quality_report;

/** Quality of every element of m. per_elem ([num_elem], may be NULL) receives the
    local per-element values; r the global summary. Collective on m->comm (the
    worst list is gathered to every rank). */
int hx_quality_mesh(const hx_mesh *m, const hx_quality_opts *o, hx_elem_quality *per_elem, hx_quality_report *r);
void hx_quality_report_free(hx_quality_report *r);
/** The summary table and the worst elements, for people. */
void hx_quality_print(const hx_quality_report *r, FILE *out);
/** The validity line alone (the table prints it when r->validity_checked). */
void hx_quality_print_validity(const hx_quality_report *r, FILE *out);
/** The same as one JSON object. */
void hx_quality_json(const hx_quality_report *r, FILE *out);
/** Value of measure s (0..HX_QUALITY_NUM_STATS-1) of q. */
double hx_quality_value(const hx_elem_quality *q, int s);

/** A histogram of one measure over the mesh (for plots and text summaries). */
#define HX_QUALITY_MAX_BINS 200
typedef struct hx_quality_hist {
  int measure; /* 0..HX_QUALITY_NUM_STATS-1 */
  int num_bins;
  double lo, hi;                      /* bin b covers [lo + b h, lo + (b+1) h) */
  int log10;                          /* 1: the bins are equal in log10 of the value, from log10 lo to log10 hi */
  double below;                       /* log10 bins only: values <= 0, counted in no bin */
  double counts[HX_QUALITY_MAX_BINS]; /* values <= lo land in bin 0, >= hi in the last */
} hx_quality_hist;
/** Histogram of measure over the local per-element values q[0..n), on [lo, hi] (lo >= hi:
    the global min and max of the values). Collective on comm. */
int hx_quality_histogram(hx_comm comm, const hx_elem_quality *q, hx_lid n, int measure, int num_bins, double lo, double hi,
                         hx_quality_hist *h);
/** The same on a range read from the values: linear bins from the global min to max, or bins
    equal in log10 when the positive values span more than two decades (det J of graded meshes:
    on a linear axis they fill one bin); values <= 0 are then counted in h->below. Collective on
    comm. */
int hx_quality_histogram_auto(hx_comm comm, const hx_elem_quality *q, hx_lid n, int measure, int num_bins, hx_quality_hist *h);
