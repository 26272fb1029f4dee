/* The library's named options: one table row per option (the command line's flag without "--"),
   with its group, type and range; values are checked when set and applied to the option structs
   of the stage a call drives (api_apply), over the defaults of the command the call stands for. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "hx_basis.h"
#include "hx_error.h"
#include "hx_kernels.h"
#include "hx_metrics.h"

enum { T_INT, T_DOUBLE, T_BOOL, T_ENUM, T_FN };

typedef struct opt_def {
  const char *name;
  int group;
  int type;
  double lo, hi;       /* T_INT, T_DOUBLE */
  size_t off;          /* T_INT, T_DOUBLE, T_BOOL, T_ENUM: an int or double of api_run */
  const char *choices; /* T_ENUM: "word=value,..." */
  int (*fn)(const char *name, const char *v, api_run *r);
} opt_def;

/* ---- values ---- */

static int parse_int(const char *name, const char *s, double lo, double hi, int *out) {
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  HX_CHECK(end != s && *end == '\0' && errno == 0, HX_ERR_INPUT, "option %s expects an integer, got '%s'", name, s);
  HX_CHECK(v >= lo && v <= hi, HX_ERR_INPUT, "option %s must be in %.0f..%.0f, got %ld", name, lo, hi, v);
  *out = (int)v;
  return HX_OK;
}

static int parse_double(const char *name, const char *s, double lo, double hi, double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  HX_CHECK(end != s && *end == '\0' && errno == 0 && isfinite(v), HX_ERR_INPUT, "option %s expects a finite number, got '%s'",
           name, s);
  HX_CHECK(v >= lo && v <= hi, HX_ERR_INPUT, "option %s must be in [%g, %g], got %g", name, lo, hi, v);
  *out = v;
  return HX_OK;
}

static int parse_bool(const char *name, const char *s, int *out) {
  static const char *yes[] = {"1", "true", "yes", "on", "True"}, *no[] = {"0", "false", "no", "off", "False"};
  for (int k = 0; k < 5; k++) {
    if (!strcmp(s, yes[k])) return *out = 1, HX_OK;
    if (!strcmp(s, no[k])) return *out = 0, HX_OK;
  }
  return HX_ERROR(HX_ERR_INPUT, "option %s is a switch: expected 1 or 0 (true/false, yes/no, on/off), got '%s'", name, s);
}

/* "word=value,word=value": the value of word s, or an error listing the words */
static int parse_enum(const char *name, const char *s, const char *choices, int *out) {
  char words[256] = "";
  for (const char *p = choices; *p;) {
    size_t n = strcspn(p, "="), m;
    const char *val = p + n + 1;
    m = strcspn(val, ",");
    if (strlen(s) == n && !strncmp(p, s, n)) return *out = atoi(val), HX_OK;
    size_t l = strlen(words);
    snprintf(words + l, sizeof words - l, "%s%.*s", l ? ", " : "", (int)n, p);
    p = val + m + (val[m] == ',');
  }
  return HX_ERROR(HX_ERR_INPUT, "option %s: expected one of %s, got '%s'", name, words, s);
}

/* 1..max comma-separated numbers */
static int parse_list(const char *name, const char *s, int max, int *count, double *out) {
  int n = 0;
  for (const char *p = s;;) {
    size_t len = strcspn(p, ",");
    char item[64];
    HX_CHECK(n < max, HX_ERR_INPUT, "option %s takes at most %d comma-separated values, got '%s'", name, max, s);
    HX_CHECK(len > 0 && len < sizeof item, HX_ERR_INPUT, "option %s has an empty or overlong value in '%s'", name, s);
    memcpy(item, p, len), item[len] = 0;
    HX_CALL(parse_double(name, item, -HUGE_VAL, HUGE_VAL, &out[n++]));
    if (!p[len]) break;
    p += len + 1;
  }
  *count = n;
  return HX_OK;
}

/* ---- options with their own form ---- */

static int opt_container(const char *name, const char *v, api_run *r) {
  double p[4];
  int cnt = 0;
  hx_pebble_opts *o = &r->po;
  if (!strncmp(v, "cyl:", 4)) {
    HX_CALL(parse_list(name, v + 4, 3, &cnt, p));
    HX_CHECK(cnt == 1 || cnt == 3, HX_ERR_INPUT, "option container: expected cyl:R or cyl:R,CX,CY, got '%s'", v);
    HX_CHECK(p[0] > 0, HX_ERR_INPUT, "option container: the cylinder radius must be positive, got '%s'", v);
    o->container = HX_PEBBLE_CYLINDER;
    o->cyl_radius = p[0];
    if (cnt == 3) o->cx = p[1], o->cy = p[2];
  } else if (!strcmp(v, "box")) {
    o->container = HX_PEBBLE_BOX;
  } else if (!strncmp(v, "box:", 4)) {
    HX_CALL(parse_list(name, v + 4, 4, &cnt, p));
    HX_CHECK(cnt == 4 && p[1] > p[0] && p[3] > p[2], HX_ERR_INPUT,
             "option container: expected box:X0,X1,Y0,Y1 with X0 < X1, Y0 < Y1, got '%s'", v);
    o->container = HX_PEBBLE_BOX;
    o->box_lo[0] = p[0], o->box_hi[0] = p[1], o->box_lo[1] = p[2], o->box_hi[1] = p[3];
  } else {
    return HX_ERROR(HX_ERR_INPUT, "option container: expected cyl:R[,CX,CY], box or box:X0,X1,Y0,Y1, got '%s'", v);
  }
  return HX_OK;
}

static int opt_extrude(const char *name, const char *v, api_run *r) {
  double p[2];
  int cnt = 0;
  HX_CALL(parse_list(name, v, 2, &cnt, p));
  HX_CHECK(p[0] >= 0, HX_ERR_INPUT, "option %s: the length must be >= 0, got '%s'", name, v);
  int inlet = !strcmp(name, "inlet");
  *(inlet ? &r->po.inlet_len : &r->po.outlet_len) = p[0];
  if (cnt == 2) {
    HX_CHECK(p[1] >= 1 && p[1] <= 64 && p[1] == floor(p[1]), HX_ERR_INPUT,
             "option %s: the layer count must be an integer in 1..64, got '%s'", name, v);
    *(inlet ? &r->po.inlet_layers : &r->po.outlet_layers) = (int)p[1];
  }
  return HX_OK;
}

static int opt_gap_model(const char *name, const char *v, api_run *r) {
  if (!strcmp(name, "contact-gap")) HX_CALL(parse_double(name, v, 1e-4, 0.2, &r->po.contact_gap));
  else HX_CALL(parse_enum(name, v, "local=0,uniform=1", &r->po.contact_shrink));
  r->gap_flag = name; /* a table row's name: static */
  return HX_OK;
}

static int opt_bridge_model(const char *name, const char *v, api_run *r) {
  if (!strcmp(name, "bridge")) HX_CALL(parse_double(name, v, 0.01, 0.4, &r->po.bridge_frac));
  else if (!strcmp(name, "bridge-gap")) HX_CALL(parse_double(name, v, 0, 1, &r->po.bridge_gap));
  else if (!strcmp(name, "wall-gap")) HX_CALL(parse_double(name, v, 0, 1, &r->po.wall_gap));
  else HX_CALL(parse_double(name, v, 0, 0.8, &r->po.bridge_fit));
  r->bridge_flag = name; /* a table row's name: static */
  return HX_OK;
}

static int opt_transfer_keep(const char *name, const char *v, api_run *r) {
  HX_CALL(parse_double(name, v, 0, 1, &r->to.transfer_keep));
  r->user_tk = 1;
  return HX_OK;
}

static int opt_repair_final(const char *name, const char *v, api_run *r) {
  HX_CALL(parse_double(name, v, 0, 1, &r->to.repair_final_sj));
  r->user_rf = 1;
  return HX_OK;
}

static int opt_box_n(const char *name, const char *v, api_run *r) {
  double p[3];
  int cnt = 0;
  HX_CALL(parse_list(name, v, 3, &cnt, p));
  HX_CHECK(cnt == 1 || cnt == 3, HX_ERR_INPUT, "option n expects NX or NX,NY,NZ, got '%s'", v);
  for (int d = 0; d < cnt; d++)
    HX_CHECK(p[d] >= 1 && p[d] <= 100000 && p[d] == floor(p[d]), HX_ERR_INPUT,
             "option n: element counts must be integers in 1..100000, got '%s'", v);
  for (int d = 0; d < 3; d++) r->bo.n[d] = (int)p[cnt == 1 ? 0 : d];
  return HX_OK;
}

static int opt_kershaw(const char *name, const char *v, api_run *r) {
  double p[3];
  int cnt = 0;
  HX_CALL(parse_list(name, v, 3, &cnt, p));
  HX_CHECK(cnt >= 2, HX_ERR_INPUT, "option kershaw expects EPS_Y,EPS_Z[,S], got '%s'", v);
  HX_CHECK(p[0] > 0 && p[0] <= 1 && p[1] > 0 && p[1] <= 1, HX_ERR_INPUT,
           "option kershaw: EPS_Y and EPS_Z must be in (0, 1], got '%s'", v);
  r->bo.kershaw = 1, r->bo.eps_y = p[0], r->bo.eps_z = p[1];
  if (cnt == 3) {
    HX_CHECK(p[2] == 1 || p[2] == 2 || p[2] == 3, HX_ERR_INPUT, "option kershaw: smoothness S must be 1, 2 or 3, got '%s'", v);
    r->bo.smooth = (int)p[2];
  }
  return HX_OK;
}

static int opt_box_corner(const char *name, const char *v, api_run *r) {
  double p[3];
  int cnt = 0;
  HX_CALL(parse_list(name, v, 3, &cnt, p));
  HX_CHECK(cnt == 3, HX_ERR_INPUT, "option %s expects X,Y,Z, got '%s'", name, v);
  for (int d = 0; d < 3; d++)
    HX_CHECK(fabs(p[d]) <= 1e30, HX_ERR_INPUT,
             "option %s: coordinate %g is too large for double-precision geometry (|x| <= 1e30)", name, p[d]);
  memcpy(!strcmp(name, "lo") ? r->bo.lo : r->bo.hi, p, sizeof p);
  return HX_OK;
}

static int opt_metric(const char *name, const char *v, api_run *r) {
  int id = 0;
  const hx_metric_info *mi;
  HX_CALL(parse_int(name, v, 1, 999, &id));
  HX_CALL(hx_metric_find(id, &mi));
  r->to.metric = id;
  return HX_OK;
}

static int opt_target(const char *name, const char *v, api_run *r) {
  (void)name;
  return hx_target_parse(v, &r->to.target);
}

static int opt_backend(const char *name, const char *v, api_run *r) {
  const hx_backend *be;
  (void)name;
  HX_CALL(hx_backend_find(v, &be));
  r->to.backend = v; /* borrowed from the options, which outlive the call */
  return HX_OK;
}

static int opt_linear_rtol(const char *name, const char *v, api_run *r) {
  HX_CALL(parse_double(name, v, 0, 1, &r->to.linear_rtol));
  r->to.adaptive_rtol = 0;
  return HX_OK;
}

static int opt_precond_degree(const char *name, const char *v, api_run *r) {
  int k = 0;
  HX_CALL(parse_int(name, v, 1, 99, &k));
  HX_CHECK(k % 2 == 1, HX_ERR_INPUT, "option %s: expected an odd integer, got '%s'", name, v);
  r->to.precond_degree = k;
  return HX_OK;
}

static int opt_adapt(const char *name, const char *v, api_run *r) {
  (void)name;
  return hx_adapt_quad_parse(v, &r->to.adapt_quad);
}

static int opt_repair(const char *name, const char *v, api_run *r) {
  double p[4];
  int cnt = 0;
  HX_CALL(parse_list(name, v, 4, &cnt, p));
  HX_CHECK((p[0] >= 0 && p[0] <= 1) && (cnt < 2 || (p[1] >= 1 && p[1] <= 16 && p[1] == floor(p[1]))) &&
               (cnt < 3 || (p[2] >= 1 && p[2] <= 1e6)) && (cnt < 4 || (p[3] >= 1 && p[3] <= 1000 && p[3] == floor(p[3]))),
           HX_ERR_INPUT,
           "option repair: expected S[,R[,W[,K]]] with S in 0..1, R an integer in 1..16, W in 1..1e6, K an integer in "
           "1..1000, got '%s'",
           v);
  r->to.repair_sj = p[0];
  if (cnt > 1) r->to.repair_rings = (int)p[1];
  if (cnt > 2) r->to.repair_weight = p[2];
  if (cnt > 3) r->to.repair_iters = (int)p[3];
  return HX_OK;
}

static int opt_rods_lattice(const char *name, const char *v, api_run *r) {
  HX_CALL(parse_enum(name, v, "square=0,hex=1", &r->ro.lattice));
  r->rods_lattice_set = 1;
  return HX_OK;
}

/* rings: a hexagonal lattice (unless lattice is given) in a hexagonal duct (unless a duct is) */
static int opt_rods_rings(const char *name, const char *v, api_run *r) {
  HX_CALL(parse_int(name, v, 0, 60, &r->ro.rings));
  if (!r->rods_lattice_set) r->ro.lattice = HX_RODS_HEX;
  if (r->ro.duct == HX_RODS_DUCT_BOX) r->ro.duct = HX_RODS_DUCT_HEX;
  return HX_OK;
}

static int opt_rods_count(const char *name, const char *v, api_run *r) {
  double p[2];
  int cnt = 0;
  HX_CALL(parse_list(name, v, 2, &cnt, p));
  for (int k = 0; k < cnt; k++)
    HX_CHECK(p[k] >= 1 && p[k] <= 1000 && p[k] == floor(p[k]), HX_ERR_INPUT,
             "option rods: expected NX[,NY], integers in 1..1000, got '%s'", v);
  r->ro.nx = (int)p[0];
  r->ro.ny = (int)p[cnt > 1 ? 1 : 0];
  return HX_OK;
}

static int opt_rods_radius(const char *name, const char *v, api_run *r) {
  double p[HX_RODS_MAX_TYPES];
  int cnt = 0;
  HX_CALL(parse_list(name, v, HX_RODS_MAX_TYPES, &cnt, p));
  for (int k = 0; k < cnt; k++)
    HX_CHECK(p[k] > 0, HX_ERR_INPUT, "option rod-radius: radius %d must be positive, got %g", k + 1, p[k]);
  r->ro.num_types = cnt;
  memcpy(r->ro.radius, p, (size_t)cnt * sizeof *p);
  return HX_OK;
}

static int opt_rods_map(const char *name, const char *v, api_run *r) {
  (void)name;
  r->ro.map = v; /* borrowed from the options, which outlive the call */
  return HX_OK;
}

static int opt_rods_duct_size(const char *name, const char *v, api_run *r) {
  double p[2];
  int cnt = 0;
  HX_CALL(parse_list(name, v, 2, &cnt, p));
  HX_CHECK(p[0] > 0 && (cnt < 2 || p[1] > 0), HX_ERR_INPUT, "option duct-size must be positive, got '%s'", v);
  r->ro.duct_size = p[0];
  r->ro.duct_size_y = cnt > 1 ? p[1] : 0;
  return HX_OK;
}

static int opt_rods_duct_gap(const char *name, const char *v, api_run *r) {
  HX_CALL(parse_double(name, v, 0, 1e300, &r->ro.duct_gap));
  r->ro.duct_size = 0;
  return HX_OK;
}

static int opt_rods_z(const char *name, const char *v, api_run *r) {
  double d[HX_RODS_MAX_ZONES + 1];
  int cnt = 0;
  HX_CALL(parse_list(name, v, HX_RODS_MAX_ZONES + 1, &cnt, d));
  HX_CHECK(cnt >= 2, HX_ERR_INPUT, "option z expects Z0,Z1[,Z2...] (at least two values), got '%s'", v);
  for (int k = 0; k + 1 < cnt; k++) HX_CHECK(d[k + 1] > d[k], HX_ERR_INPUT, "option z: values must increase, got '%s'", v);
  hx_rods_opts *o = &r->ro;
  int old = o->num_zones;
  o->num_zones = cnt - 1;
  memcpy(o->z, d, (size_t)cnt * sizeof *d);
  for (int k = old; k < o->num_zones; k++) o->nz[k] = o->nz[0], o->grading[k] = 1;
  return HX_OK;
}

static int opt_rods_nz(const char *name, const char *v, api_run *r) {
  double d[HX_RODS_MAX_ZONES];
  int cnt = 0;
  HX_CALL(parse_list(name, v, HX_RODS_MAX_ZONES, &cnt, d));
  for (int k = 0; k < cnt; k++)
    HX_CHECK(d[k] >= 1 && d[k] <= 1000000 && d[k] == floor(d[k]), HX_ERR_INPUT,
             "option nz: layer counts must be integers in 1..1000000, got '%s'", v);
  for (int k = 0; k < HX_RODS_MAX_ZONES; k++) r->ro.nz[k] = (int)d[k < cnt ? k : cnt - 1];
  HX_CHECK(cnt < 2 || cnt == r->ro.num_zones, HX_ERR_INPUT, "option nz: %d values for %d zones (give z first, one nz per zone)",
           cnt, r->ro.num_zones);
  return HX_OK;
}

static int opt_rods_grading(const char *name, const char *v, api_run *r) {
  double d[HX_RODS_MAX_ZONES];
  int cnt = 0;
  HX_CALL(parse_list(name, v, HX_RODS_MAX_ZONES, &cnt, d));
  for (int k = 0; k < cnt; k++) HX_CHECK(d[k] > 0, HX_ERR_INPUT, "option grading: ratios must be positive, got '%s'", v);
  for (int k = 0; k < HX_RODS_MAX_ZONES; k++) r->ro.grading[k] = d[k < cnt ? k : cnt - 1];
  return HX_OK;
}

static int opt_rods_preset(const char *name, const char *v, api_run *r) {
  (void)name, (void)r; /* applied first, by api_apply; here only its name is checked */
  hx_rods_opts t;
  hx_rods_opts_default(&t);
  return hx_rods_preset(&t, v);
}

#define R(f) offsetof(api_run, f)
#define G_P API_G_PEBBLE
#define G_T API_G_TMOP
static const opt_def table[] = {
    /* the pebble mesher (hexpack pebble) */
    {"radius", G_P, T_DOUBLE, 1e-300, 1e300, R(radius), NULL, NULL},
    {"container", G_P, T_FN, 0, 0, 0, NULL, opt_container},
    {"bottom", G_P, T_DOUBLE, -1e300, 1e300, R(po.zlo), NULL, NULL},
    {"top", G_P, T_DOUBLE, -1e300, 1e300, R(po.zhi), NULL, NULL},
    {"plane-gap", G_P, T_DOUBLE, 0, 100, R(po.plane_gap), NULL, NULL},
    {"inlet", G_P, T_FN, 0, 0, 0, NULL, opt_extrude},
    {"outlet", G_P, T_FN, 0, 0, 0, NULL, opt_extrude},
    {"extrude-ratio", G_P, T_DOUBLE, 0.1, 10, R(po.extrude_ratio), NULL, NULL},
    {"layers", G_P, T_INT, 1, 64, R(po.layers), NULL, NULL},
    {"ratio", G_P, T_DOUBLE, 0.1, 10, R(po.ratio), NULL, NULL},
    {"first-layer", G_P, T_DOUBLE, 1e-6, 0.999, R(po.first_layer), NULL, NULL},
    {"grade-height", G_P, T_DOUBLE, 0, 2, R(po.grade_height), NULL, NULL},
    {"grade-expand", G_P, T_DOUBLE, 0, 10, R(po.grade_expand), NULL, NULL},
    {"contact", G_P, T_ENUM, 0, 0, R(po.contact), "bridge=0,gap=1", NULL},
    {"contact-layers", G_P, T_ENUM, 0, 0, R(po.contact_layers), "swept=0,one=1", NULL},
    {"contact-gap", G_P, T_FN, 0, 0, 0, NULL, opt_gap_model},
    {"contact-shrink", G_P, T_FN, 0, 0, 0, NULL, opt_gap_model},
    {"bridge", G_P, T_FN, 0, 0, 0, NULL, opt_bridge_model},
    {"bridge-gap", G_P, T_FN, 0, 0, 0, NULL, opt_bridge_model},
    {"wall-gap", G_P, T_FN, 0, 0, 0, NULL, opt_bridge_model},
    {"bridge-fit", G_P, T_FN, 0, 0, 0, NULL, opt_bridge_model},
    {"collapse", G_P, T_DOUBLE, 0, 0.5, R(po.collapse), NULL, NULL},
    {"overlap-tol", G_P, T_DOUBLE, 0, 0.3, R(po.overlap_tol), NULL, NULL},
    {"rings", G_P, T_INT, 0, 8, R(po.rings), NULL, NULL},
    {"ring-gap", G_P, T_DOUBLE, 0, 10, R(po.ring_gap), NULL, NULL},
    {"ring-sj", G_P, T_DOUBLE, 0, 0.9, R(po.ring_sj), NULL, NULL},
    {"aspect", G_P, T_DOUBLE, 0, 1000, R(po.aspect), NULL, NULL},
    {"accept-sj", G_P, T_DOUBLE, 0, 1, R(po.accept_sj), NULL, NULL},
    {"score", G_P, T_ENUM, 0, 0, R(po.score_nek), "corner=0,nek=1", NULL},
    {"split", G_P, T_INT, 1, 8, R(po.split), NULL, NULL},
    {"smooth", G_P, T_INT, 0, 1000, R(po.smooth), NULL, NULL},
    {"radial", G_P, T_ENUM, 0, 0, R(po.radial_volume), "linear=0,volume=1", NULL},
    {"ring-points", G_P, T_ENUM, 0, 0, R(po.ring_volume), "linear=0,volume=1", NULL},
    {"edge-points", G_P, T_ENUM, 0, 0, R(po.edge_volume), "linear=0,volume=1", NULL},
    {"fast", G_P, T_BOOL, 0, 0, R(fast), NULL, NULL},
    {"stream", G_P, T_BOOL, 0, 0, R(stream), NULL, NULL},
    {"optimize-order", API_G_PEBBLE_OPT, T_INT, 1, HX_MAX_ORDER, R(opt_order), NULL, NULL},
    {"transfer-keep", API_G_PEBBLE_OPT, T_FN, 0, 0, 0, NULL, opt_transfer_keep},
    {"repair-final", API_G_PEBBLE_OPT, T_FN, 0, 0, 0, NULL, opt_repair_final},
    /* the box mesher (hexpack box) */
    {"n", API_G_BOX, T_FN, 0, 0, 0, NULL, opt_box_n},
    {"kershaw", API_G_BOX, T_FN, 0, 0, 0, NULL, opt_kershaw},
    {"lo", API_G_BOX, T_FN, 0, 0, 0, NULL, opt_box_corner},
    {"hi", API_G_BOX, T_FN, 0, 0, 0, NULL, opt_box_corner},
    {"separate-ids", API_G_BOX, T_BOOL, 0, 0, R(bo.separate_ids), NULL, NULL},
    /* the rod-bundle mesher (hexpack rods) */
    {"preset", API_G_RODS, T_FN, 0, 0, 0, NULL, opt_rods_preset},
    {"lattice", API_G_RODS, T_FN, 0, 0, 0, NULL, opt_rods_lattice},
    {"pitch", API_G_RODS, T_DOUBLE, 1e-300, 1e300, R(ro.pitch), NULL, NULL},
    {"rods", API_G_RODS, T_FN, 0, 0, 0, NULL, opt_rods_count},
    {"rings", API_G_RODS, T_FN, 0, 0, 0, NULL, opt_rods_rings},
    {"rod-radius", API_G_RODS, T_FN, 0, 0, 0, NULL, opt_rods_radius},
    {"map", API_G_RODS, T_FN, 0, 0, 0, NULL, opt_rods_map},
    {"duct", API_G_RODS, T_ENUM, 0, 0, R(ro.duct), "box=0,hex=1,none=2", NULL},
    {"duct-size", API_G_RODS, T_FN, 0, 0, 0, NULL, opt_rods_duct_size},
    {"duct-gap", API_G_RODS, T_FN, 0, 0, 0, NULL, opt_rods_duct_gap},
    {"sectors", API_G_RODS, T_INT, 1, 10000, R(ro.sectors), NULL, NULL},
    {"bl-layers", API_G_RODS, T_INT, 0, 50, R(ro.bl_layers), NULL, NULL},
    {"bl-first", API_G_RODS, T_DOUBLE, 1e-300, 1e300, R(ro.bl_first), NULL, NULL},
    {"bl-growth", API_G_RODS, T_DOUBLE, 1, 5, R(ro.bl_growth), NULL, NULL},
    {"gap-layers", API_G_RODS, T_INT, 1, 100, R(ro.gap_layers), NULL, NULL},
    {"z", API_G_RODS, T_FN, 0, 0, 0, NULL, opt_rods_z},
    {"nz", API_G_RODS, T_FN, 0, 0, 0, NULL, opt_rods_nz},
    {"grading", API_G_RODS, T_FN, 0, 0, 0, NULL, opt_rods_grading},
    {"periodic", API_G_RODS, T_BOOL, 0, 0, R(ro.periodic), NULL, NULL},
    {"separate-ids", API_G_RODS, T_BOOL, 0, 0, R(ro.separate_ids), NULL, NULL},
    /* what meshers and writers share */
    {"order", API_G_ORDER, T_INT, 1, HX_MAX_ORDER, R(order), NULL, NULL},
    {"force", API_G_FORCE, T_BOOL, 0, 0, R(force), NULL, NULL},
    {"optimize", API_G_OPTIMIZE, T_BOOL, 0, 0, R(optimize), NULL, NULL},
    {"verbose", API_G_RUN, T_BOOL, 0, 0, R(verbose), NULL, NULL},
    {"re2-guard", API_G_RUN, T_BOOL, 0, 0, R(re2_guard), NULL, NULL},
    /* the optimizer (the TMOP flags of every command) */
    {"metric", G_T, T_FN, 0, 0, 0, NULL, opt_metric},
    {"target", G_T, T_FN, 0, 0, 0, NULL, opt_target},
    {"quad-order", G_T, T_INT, 1, 40, R(to.quad_order), NULL, NULL},
    {"quad-type", G_T, T_ENUM, 0, 0, R(to.quad_type), "gll=1,gauss=2", NULL},
    {"newton-iters", G_T, T_INT, 0, 100000, R(to.newton_iters), NULL, NULL},
    {"newton-rtol", G_T, T_DOUBLE, 0, 1, R(to.newton_rtol), NULL, NULL},
    {"linear-iters", G_T, T_INT, 1, 100000, R(to.linear_iters), NULL, NULL},
    {"linear-rtol", G_T, T_FN, 0, 0, 0, NULL, opt_linear_rtol},
    {"linear-solver", G_T, T_ENUM, 0, 0, R(to.linear_solver), "cg=1,minres=2", NULL},
    {"precond", G_T, T_ENUM, 0, 0, R(to.precond), "jacobi=1,two-level=2", NULL},
    {"precond-degree", G_T, T_FN, 0, 0, 0, NULL, opt_precond_degree},
    {"boundary", G_T, T_ENUM, 0, 0, R(to.boundary), "fixed=0,slide=1", NULL},
    {"hessian", G_T, T_ENUM, 0, 0, R(to.hess_strategy), "stored=1,onthefly=2", NULL},
    {"detj-check", G_T, T_ENUM, 0, 0, R(to.detj_nodes), "auto=-1,quad=0,nodes=1,fine=2,bound=3,auto-fine=-2", NULL},
    {"strict-decrease", G_T, T_BOOL, 0, 0, R(to.strict_decrease), NULL, NULL},
    {"keep-sj", G_T, T_DOUBLE, 0, 1, R(to.keep_sj), NULL, NULL},
    {"keep-aspect", G_T, T_DOUBLE, 0, 1e6, R(to.keep_aspect), NULL, NULL},
    {"repair", G_T, T_FN, 0, 0, 0, NULL, opt_repair},
    {"weight", G_T, T_ENUM, 0, 0, R(to.equal_weight), "volume=0,equal=1", NULL},
    {"backend", G_T, T_FN, 0, 0, 0, NULL, opt_backend},
    {"threads", G_T, T_INT, 1, 4096, R(to.num_threads), NULL, NULL},
    {"recover", G_T, T_BOOL, 0, 0, R(to.recover), NULL, NULL},
    {"relaxed-max", G_T, T_INT, 0, 1000000, R(to.relaxed_max), NULL, NULL},
    {"adapt-quad", G_T, T_FN, 0, 0, 0, NULL, opt_adapt},
    {"coarse-start", G_T, T_ENUM, 0, 0, R(to.coarse_order), "auto=-1,on=1,off=0", NULL},
    {"untangle", G_T, T_BOOL, 0, 0, R(to.untangle), NULL, NULL},
    {"untangle-iters", G_T, T_INT, 0, 1000000, R(to.untangle_iters), NULL, NULL},
    /* output forms (hexpack's common flags) */
    {"ascii", API_G_WRITE, T_BOOL, 0, 0, R(ascii), NULL, NULL},
    {"compress", API_G_WRITE, T_INT, 0, 9, R(eo.compress), NULL, NULL},
    {"co2", API_G_WRITE, T_BOOL, 0, 0, R(eo.co2), NULL, NULL},
    {"mfem-nodes", API_G_WRITE, T_ENUM, 0, 0, R(mfem_h1), "l2=0,h1=1", NULL},
    /* the quality report (hexpack quality) */
    {"quad-order", API_G_QUALITY, T_INT, 0, 2 * HX_MAX_Q - 3, R(qo.quad_order), NULL, NULL},
    {"quad-type", API_G_QUALITY, T_ENUM, 0, 0, R(qo.quad_type), "gll=1,gauss=2", NULL},
    {"quad-points", API_G_QUALITY, T_INT, 1, HX_MAX_Q, R(qo.quad_points), NULL, NULL},
    {"validity", API_G_QUALITY, T_BOOL, 0, 0, R(qo.validity), NULL, NULL},
};
#undef R
#define NUM_DEFS ((int)(sizeof table / sizeof table[0]))

static int apply_one(const opt_def *d, const char *v, api_run *r) {
  char *base = (char *)r;
  switch (d->type) {
  case T_INT: return parse_int(d->name, v, d->lo, d->hi, (int *)(base + d->off));
  case T_DOUBLE: return parse_double(d->name, v, d->lo, d->hi, (double *)(base + d->off));
  case T_BOOL: return parse_bool(d->name, v, (int *)(base + d->off));
  case T_ENUM: return parse_enum(d->name, v, d->choices, (int *)(base + d->off));
  default: return d->fn(d->name, v, r);
  }
}

/* the option name with '_' read as '-' */
static int find_def(const char *name, int group_mask, int from) {
  for (int k = from; k < NUM_DEFS; k++) {
    const char *a = table[k].name, *b = name;
    while (*a && (*a == *b || (*a == '-' && *b == '_'))) a++, b++;
    if (!*a && !*b && (table[k].group & group_mask)) return k;
  }
  return -1;
}

int api_opt_check(const char *name, const char *value, int *def) {
  HX_CHECK(name && value, HX_ERR_INPUT, "option: a NULL name or value");
  int k = find_def(name, ~0, 0);
  HX_CHECK(k >= 0, HX_ERR_INPUT, "unknown option '%s' (see hexpack_option_names; the command line's flags without '--')", name);
  HX_CHECK(strlen(value) < 65536, HX_ERR_INPUT, "option %s: the value is longer than 65535 characters", table[k].name);
  *def = k;
  /* a name of several rows (rings: pebble and rods; quad-order: optimizer and quality) has
     several ranges: the call that applies it checks it against its own */
  if (find_def(name, ~0, k + 1) >= 0) return HX_OK;
  api_run scratch;
  api_run_defaults(&scratch, API_OP_PEBBLE, 0);
  return apply_one(&table[k], value, &scratch);
}

const char *api_option_list(int op) {
  static char lists[7][2048];
  static const int ops[7] = {API_OP_PEBBLE, API_OP_BOX, API_OP_RODS, API_OP_OPTIMIZE, API_OP_READ, API_OP_QUALITY, API_OP_WRITE};
  for (int i = 0; i < 7; i++) {
    if (ops[i] != op) continue;
    if (!lists[i][0])
      for (int k = 0; k < NUM_DEFS; k++)
        if ((table[k].group & op) && find_def(table[k].name, op, 0) == k) {
          size_t l = strlen(lists[i]);
          snprintf(lists[i] + l, sizeof lists[i] - l, "%s%s", l ? ", " : "", table[k].name);
        }
    return lists[i];
  }
  return NULL;
}

int api_apply(const hexpack_opts *o, int op, const char *op_name, api_run *r) {
  if (!o) return HX_OK;
  /* fast first: the values it sets are overridden by the same options given with it (optimize
     true adds the optimizer back) */
  for (int i = 0; i < o->num; i++)
    if (!strcmp(table[o->v[i].def].name, "fast") && (op & API_G_PEBBLE)) {
      HX_CALL(parse_bool("fast", o->v[i].value, &r->fast));
      if (r->fast) hx_pebble_opts_path(&r->po, 0), r->to.keep_aspect = -1, r->optimize = 0;
    }
  /* a preset first: the options given with it override its values */
  for (int i = 0; i < o->num; i++)
    if (!strcmp(table[o->v[i].def].name, "preset") && (op & API_G_RODS)) HX_CALL(hx_rods_preset(&r->ro, o->v[i].value));
  for (int i = 0; i < o->num; i++) {
    const char *name = table[o->v[i].def].name;
    int k = find_def(name, op, 0);
    HX_CHECK(k >= 0, HX_ERR_INPUT, "option %s is not one of %s's; its options: %s", name, op_name, api_option_list(op));
    HX_CALL(apply_one(&table[k], o->v[i].value, r));
  }
  r->eo.binary = !r->ascii;
  r->eo.mfem_h1 = r->mfem_h1;
  return HX_OK;
}
