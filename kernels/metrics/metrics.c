/* The metric registry: one row per metric (MFEM numbering). */
#include "hx_metrics.h"

#include <stdio.h>
#include <string.h>

#include "hx_error.h"
#include "hx_metric_point.h"

/* Host entry points (plain functions with addresses) for each inline metric. */
#define HX_METRIC_WRAP(N)                                                                                                        \
  static double N##_mu_h(const double *T, double par) { return hx_##N##_mu(T, par); }                                            \
  static void N##_P_h(const double *T, double par, double *P) { hx_##N##_P(T, par, P); }                                         \
  static void N##_dP_h(const double *T, double par, const double *dT, double *dP) { hx_##N##_dP(T, par, dT, dP); }               \
  static void N##_hkk_h(const double *T, double par, double *H) { hx_##N##_hkk(T, par, H); }                                     \
  static void N##_H_h(const double *T, double par, double *H) { hx_##N##_H(T, par, H); }
HX_METRIC_WRAP(m302)
HX_METRIC_WRAP(m303)
HX_METRIC_WRAP(m315)
HX_METRIC_WRAP(m318)
HX_METRIC_WRAP(m321)
HX_METRIC_WRAP(m332)
HX_METRIC_WRAP(m338)
HX_METRIC_WRAP(m1360)
#define HX_METRIC_FNS(N) N##_mu_h, N##_P_h, N##_dP_h, N##_hkk_h, N##_H_h

static const hx_metric_info metric_table[] = {
    /* id  kind          barrier param       formula */
    {302, "shape", 1, 0.0, "I1b I2b / 9 - 1 = |T|^2 |T^-1|^2 / 9 - 1", HX_METRIC_FNS(m302)},
    {303, "shape", 1, 0.0, "I1b / 3 - 1 = |T|^2 / (3 det(T)^(2/3)) - 1", HX_METRIC_FNS(m303)},
    {315, "size", 0, 0.0, "(det T - 1)^2", HX_METRIC_FNS(m315)},
    {318, "size", 1, 0.0, "(det(T)^2 + det(T)^-2) / 2 - 1", HX_METRIC_FNS(m318)},
    {321, "shape+size", 1, 0.0, "I1 + I2 / I3 - 6 = |T - T^-T|^2", HX_METRIC_FNS(m321)},
    {332, "shape+size", 1, 0.5, "(1 - gamma) mu302 + gamma mu315, gamma = 0.5", HX_METRIC_FNS(m332)},
    {338, "shape+size", 1, 31.0 / 18.0, "mu302 + lambda mu318, lambda = 31/18", HX_METRIC_FNS(m338)},
    /* the untangling solve's metric (tmop/untangle.c sets par = the shift beta before each Newton step);
       out of --metric's range: not a metric to optimize with */
    {1360, "untangle", 0, 0.0, "((|T|^2 / 3)^(3/2) - det T) / (2 (det T - beta)), beta < min det T", HX_METRIC_FNS(m1360)},
    {0, NULL, 0, 0.0, NULL, NULL, NULL, NULL, NULL, NULL},
};

const hx_metric_info *hx_metrics(void) { return metric_table; }

const char *hx_metric_names(void) {
  static char names[256];
  if (!names[0]) {
    for (const hx_metric_info *m = metric_table; m->id; m++) {
      if (!strcmp(m->kind, "untangle")) continue; /* the untangling solve's own, not --metric's */
      char b[16];
      snprintf(b, sizeof b, "%s%d", names[0] ? ", " : "", m->id);
      strncat(names, b, sizeof names - strlen(names) - 1);
    }
  }
  return names;
}

int hx_metric_find(int id, const hx_metric_info **out) {
  for (const hx_metric_info *m = metric_table; m->id; m++)
    if (m->id == id) {
      *out = m;
      return HX_OK;
    }
  return HX_ERROR(HX_ERR_INPUT, "unknown metric '%d'; known: %s", id, hx_metric_names());
}
