/* The metric registry: which TMOP metrics exist (MFEM numbering), what they
   are, and host entry points to their point functions (the inline HX_HD
   versions live in mNNN.h and hx_metric_point.h).

   Adding a metric: write kernels/metrics/mNNN.h (mu, P, dP; HX_METRIC_DERIVED gives
   H and the diagonal blocks), add a case to HX_METRIC_SWITCH in
   hx_metric_point.h, one row in metrics.c, and it is covered by t301. */
#pragma once

typedef struct hx_metric_info {
  int id;              /* MFEM number */
  const char *kind;    /* "shape", "size", "shape+size" */
  int barrier;         /* 1: mu -> infinity as det T -> 0+ (needs det T > 0) */
  double param;        /* default parameter (gamma of 332, lambda of 338; 0 = none) */
  const char *formula; /* one line for --help */
  double (*mu)(const double *T, double par);
  void (*P)(const double *T, double par, double *P);
  void (*dP)(const double *T, double par, const double *dT, double *dP);
  void (*hkk)(const double *T, double par, double *Hkk);
  void (*H)(const double *T, double par, double *H);
} hx_metric_info;

/** The table (terminated by id == 0). */
const hx_metric_info *hx_metrics(void);
/** Find metric id; HX_ERR_INPUT "unknown metric 'N'; known: 302, 303, ..." if absent. */
int hx_metric_find(int id, const hx_metric_info **out);
/** "302, 303, ..." for help and errors. */
const char *hx_metric_names(void);
