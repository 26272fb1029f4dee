/* hexpack rods: curved all-hex meshes of rod bundles (meshers/rodbundle). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "hx_basis.h"
#include "hx_cli.h"
#include "hx_curve.h"
#include "hx_error.h"
#include "hx_rods.h"
#include "hx_tmop.h"

static int preset_check(const char *flag, const char *v) {
  hx_rods_opts o;
  hx_rods_opts_default(&o);
  (void)flag;
  return hx_rods_preset(&o, v);
}

static int lattice_check(const char *flag, const char *v) {
  if (!strcmp(v, "square") || !strcmp(v, "hex")) return HX_OK;
  return HX_ERROR(HX_ERR_INPUT, "flag %s: unknown lattice '%s'; known: square, hex", flag, v);
}

static int duct_check(const char *flag, const char *v) {
  if (!strcmp(v, "box") || !strcmp(v, "hex") || !strcmp(v, "none")) return HX_OK;
  return HX_ERROR(HX_ERR_INPUT, "flag %s: unknown duct '%s'; known: box, hex, none", flag, v);
}

static const hx_opt rods_table[] = {
    HX_STR("--preset", "NAME", NULL, 0, "a named bundle (explicit flags override it)", preset_check),
    {"--lattice", NULL, HX_OPT_CHOICE, NULL, "square", 0, 0, 1, 1, "square|hex", 0,
     "lattice of the rod sites (--rings alone: hex)", lattice_check},
    HX_DBL("--pitch", "P", "1", 1e-300, 1e300, 0, "centre-to-centre distance of neighbouring sites"),
    HX_INTS("--rods", "NX[,NY]", "3,3", 1, 2, 1, 1000, 0, "square lattice: sites per row and column"),
    HX_INT("--rings", "K", NULL, 0, 60, 0, "hex lattice: rings around the centre pin (1 + 3K(K+1) sites)"),
    HX_DBLS("--rod-radius", "R1[,R2..]", "0.4", 1, HX_RODS_MAX_TYPES, 1e-300, 1e300, 0, "radius of rod type 1, 2, ..."),
    HX_STR("--map", "STRING", NULL, 0,
           "one entry per site: 1..8 rod type, '-' empty; '/' and blanks ignored (square: rows from the top; hex: rings "
           "from the centre, counter-clockwise from +x)",
           NULL),
    {"--duct", NULL, HX_OPT_CHOICE, NULL, "box", 0, 0, 1, 1, "box|hex|none", 0,
     "box (square lattice), hex (hex lattice) or none (the lattice's boundary)", duct_check},
    HX_DBLS("--duct-size", "S[,SY]", NULL, 1, 2, 1e-300, 1e300, 0, "box side (and y side) or hex flat-to-flat"),
    HX_DBL("--duct-gap", "G", "auto", 0, 1e300, 0, "distance from the outer rods' surfaces to the duct (auto: pitch/2 - r1)"),
    HX_INT("--sectors", "S", "28", 1, 10000, 0, "elements around a rod (a multiple of 4 on a square lattice, 6 on a hex one)"),
    HX_INT("--bl-layers", "N", "1", 0, 50, 0, "boundary layers at each rod"),
    HX_DBL("--bl-first", "H", "auto", 1e-300, 1e300, 0,
           "first boundary-layer thickness (auto: a fifth of the narrowest half-gap)"),
    HX_DBL("--bl-growth", "G", "1.2", 1, 5, 0, "boundary-layer thickness ratio"),
    HX_INT("--gap-layers", "N", "2", 1, 100, 0, "layers from the boundary layers to the cell edge"),
    HX_DBLS("--z", "Z0,Z1[,Z2..]", "0,1", 2, HX_RODS_MAX_ZONES + 1, -1e300, 1e300, 0, "axial zone boundaries, increasing"),
    HX_INTS("--nz", "N1[,N2..]", "1", 1, HX_RODS_MAX_ZONES, 1, 1000000, 0, "element layers per zone"),
    HX_DBLS("--grading", "G1[,G2..]", "1", 1, HX_RODS_MAX_ZONES, 1e-300, 1e300, 0, "last/first layer thickness per zone"),
    HX_FLAG("--periodic", 0, "periodic axial ends (ids 2, 3 paired) instead of inlet/outlet"),
    HX_FLAG("--separate-ids", 0, "rod type k >= 2 gets boundary id 3 + k"),
    HX_INT("--check-order", "N", "auto", 1, HX_MAX_ORDER, 0,
           "also measure det J and Nek5000's scaled Jacobian at order N on one layer (auto: the --order)"),
    HX_FLAG("--full-check", HX_OPT_EXPERT, "run the full mesh invariant check also above 10^6 elements"),
    HX_FLAG("--optimize", 0,
            "TMOP at --order before writing: rod nodes slide on their cylinders, duct and end nodes in their planes"),
    {0},
};

void hx_cmd_rods_opts(hx_optset *s) {
  static char preset_help[300];
  hx_opts_init(s, "rods", "rods [--preset NAME | --lattice square|hex ...] [options] [-o FILE]...",
               "A curved all-hex mesh of a rod bundle: a 2D power diagram of the rod lattice inside the duct, an O-grid\n"
               "about each rod with boundary layers, extruded along z. The rods and the duct are exact at every order.");
  hx_opts_add(s, rods_table);
  hx_opts_add(s, hx_cli_output_table);
  hx_tmop_opts topt;
  hx_cli_tmop_add(s);
  hx_cli_tmop_sj_defaults(s, &topt);
  snprintf(preset_help, sizeof preset_help, "a named bundle: %s (explicit flags override it)", hx_rods_preset_names());
  hx_opts_help_line(s, "--preset", preset_help);
  /* the mesher's own defaults, shown as they are in code */
  hx_rods_opts d;
  hx_rods_opts_default(&d);
  hx_opts_default_double(s, "--pitch", d.pitch);
  double rods[2] = {d.nx, d.ny};
  hx_opts_default_list(s, "--rods", rods, 2);
  hx_opts_default_list(s, "--rod-radius", d.radius, d.num_types);
  hx_opts_default_int(s, "--sectors", d.sectors);
  hx_opts_default_int(s, "--bl-layers", d.bl_layers);
  hx_opts_default_double(s, "--bl-growth", d.bl_growth);
  hx_opts_default_int(s, "--gap-layers", d.gap_layers);
  hx_opts_default_list(s, "--z", d.z, d.num_zones + 1);
  s->epilog = "boundary ids: 1 rod, 2 inlet, 3 outlet, 4 duct";
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* det J at the GLL nodes of m's elements: the smallest, the smallest and mean Nek5000 scaled
   Jacobian (min / max det J in an element), the elements below 0.5; over m's communicator */
static int detj_stats(const hx_mesh *m, double *min_detj, double *min_ratio, double *mean_ratio, long *below_half) {
  int nd = m->nd;
  double D[HX_MAX_ND * HX_MAX_ND];
  HX_CALL(hx_mesh_gll_derivative(nd, D));
  double mn = HUGE_VAL, mr = HUGE_VAL, sr = 0;
  int64_t nb = 0;
  for (hx_lid e = 0; e < m->num_elem; e++) {
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          double J[3][3], d = hx_mesh_jacobian_at_node(m, D, e, i, j, k, J);
          lo = fmin(lo, d), hi = fmax(hi, d);
        }
    mn = fmin(mn, lo);
    mr = fmin(mr, lo / hi);
    sr += lo / hi;
    if (lo / hi < 0.5) nb++;
  }
  double mins[2] = {mn, mr};
  HX_CALL(hx_comm_min_double(m->comm, mins, 2));
  HX_CALL(hx_comm_sum_double(m->comm, &sr, 1));
  HX_CALL(hx_comm_sum_int64(m->comm, &nb, 1));
  *min_detj = mins[0], *min_ratio = mins[1], *mean_ratio = sr / (double)m->num_elem_global, *below_half = (long)nb;
  return HX_OK;
}

/* the thinnest and the thickest layer of the order-1 mesh m (each element is one layer thick:
   its corner 4 lies above its corner 0) */
static int layer_heights(const hx_mesh *m, double *hmin, double *hmax) {
  double lo = HUGE_VAL, hi = 0;
  for (hx_lid e = 0; e < m->num_elem; e++) {
    const double *z = hx_mesh_elem_x(m, e, 2);
    double h = z[hx_corner_lex(m->nd, 4)] - z[hx_corner_lex(m->nd, 0)];
    lo = fmin(lo, h), hi = fmax(hi, h);
  }
  HX_CALL(hx_comm_min_double(m->comm, &lo, 1));
  HX_CALL(hx_comm_max_double(m->comm, &hi, 1));
  *hmin = lo, *hmax = hi;
  return HX_OK;
}

/* det J statistics at order N on one layer of height 1, curved by the same curving stage the
   exporters use (core/curve.c). An extruded element's det J is its 2D one times its constant
   layer height, so every layer has the same sign pattern and ratios: one layer checks them all,
   and the mesh's min det J is the layer's times the thinnest layer's height (the thickest's
   where it is negative). */
static int layer_quality(hx_comm comm, const hx_rods_opts *o, int order, double *min_detj, double *min_ratio, double *mean_ratio,
                         long *below_half) {
  hx_rods_opts q = *o;
  q.order = 1;
  q.num_zones = 1;
  q.z[0] = 0;
  q.z[1] = 1;
  q.nz[0] = 1;
  q.grading[0] = 1;
  hx_mesh *m1 = NULL, *m = NULL;
  HX_CALL(hx_mesher_rods(HX_COMM_SELF, &q, &m1, NULL));
  int rc = hx_mesh_raise_order(m1, order, &m);
  hx_mesh_destroy(&m1);
  HX_CALL(rc);
  (void)comm;
  rc = detj_stats(m, min_detj, min_ratio, mean_ratio, below_half);
  hx_mesh_destroy(&m);
  return rc;
}

/* --rings (a hex lattice, its duct hex) and --duct in the order given */
static void apply_rings(const hx_optset *s, hx_rods_opts *o) {
  hx_opts_int(s, "--rings", &o->rings);
  if (!hx_opts_given(s, "--lattice")) o->lattice = HX_RODS_HEX;
  if (o->duct == HX_RODS_DUCT_BOX) o->duct = HX_RODS_DUCT_HEX;
}

static void apply_duct(const hx_optset *s, hx_rods_opts *o) {
  static const int duct[3] = {HX_RODS_DUCT_BOX, HX_RODS_DUCT_HEX, HX_RODS_DUCT_NONE};
  o->duct = duct[hx_opts_choice(s, "--duct")];
}

/* --duct-size and --duct-gap (which drops the size) in the order given */
static void apply_duct_size(const hx_optset *s, hx_rods_opts *o) {
  double d[2];
  int cnt = hx_opts_doubles(s, "--duct-size", d, 2);
  o->duct_size = d[0];
  o->duct_size_y = cnt > 1 ? d[1] : 0;
}

static void apply_duct_gap(const hx_optset *s, hx_rods_opts *o) {
  hx_opts_double(s, "--duct-gap", &o->duct_gap);
  o->duct_size = 0;
}

int hx_cmd_rods(hx_comm comm, int argc, char **argv) {
  hx_optset s;
  hx_cmd_rods_opts(&s);
  hx_rods_opts o;
  hx_rods_opts_default(&o);
  hx_tmop_opts topt;
  hx_tmop_opts_default(&topt);
  /* the pebble mesher's optimizer defaults, aimed at the Nek5000 scaled Jacobian: hex127 at
     order 3 (2 layers) goes 0.52 -> 0.94 (min), 0.71 -> 0.98 (mean) in 94 s on 2 cores, where
     the generic ones (metric 303, unit target, 100 steps) took it to 0.0000 / 0.87 in 886 s */
  hx_cli_tmop_sj_defaults(&s, &topt);
  HX_CALL(hx_opts_parse(&s, argc, argv, 1));
  if (s.stop) return HX_OK;
  HX_CHECK(s.num_args == 0, HX_ERR_INPUT, "rods takes no file argument, got '%s' (outputs: -o FILE)", s.args[0]);
  hx_cli_common c;
  HX_CALL(hx_cli_common_get(&s, &c));
  int tquiet = 0, check_order = 0;
  HX_CALL(hx_cli_tmop_get(&s, &topt, &tquiet));
  int full_check = hx_opts_given(&s, "--full-check") > 0;
  /* a preset first, then every flag given (the mesher's defaults stay where none is) */
  if (hx_opts_given(&s, "--preset")) HX_CALL(hx_rods_preset(&o, hx_opts_str(&s, "--preset")));
  if (hx_opts_given(&s, "--lattice")) o.lattice = hx_opts_choice(&s, "--lattice") == 1 ? HX_RODS_HEX : HX_RODS_SQUARE;
  if (hx_opts_given(&s, "--pitch")) hx_opts_double(&s, "--pitch", &o.pitch);
  int iv[HX_RODS_MAX_ZONES], cnt;
  double d[HX_RODS_MAX_ZONES + 1];
  if (hx_opts_given(&s, "--rods")) {
    cnt = hx_opts_ints(&s, "--rods", iv, 2);
    o.nx = iv[0];
    o.ny = cnt > 1 ? iv[1] : iv[0];
  }
  int wr = hx_opts_where(&s, "--rings"), wd = hx_opts_where(&s, "--duct");
  if (wd && wd < wr) apply_duct(&s, &o);
  if (wr) apply_rings(&s, &o);
  if (wd && wd > wr) apply_duct(&s, &o);
  if (hx_opts_given(&s, "--rod-radius")) {
    o.num_types = hx_opts_doubles(&s, "--rod-radius", d, HX_RODS_MAX_TYPES);
    memcpy(o.radius, d, (size_t)o.num_types * sizeof *d);
  }
  if (hx_opts_given(&s, "--map")) o.map = hx_opts_str(&s, "--map");
  int ws = hx_opts_where(&s, "--duct-size"), wg = hx_opts_where(&s, "--duct-gap");
  if (wg && wg < ws) apply_duct_gap(&s, &o);
  if (ws) apply_duct_size(&s, &o);
  if (wg && wg > ws) apply_duct_gap(&s, &o);
  if (hx_opts_given(&s, "--sectors")) hx_opts_int(&s, "--sectors", &o.sectors);
  if (hx_opts_given(&s, "--bl-layers")) hx_opts_int(&s, "--bl-layers", &o.bl_layers);
  if (hx_opts_given(&s, "--bl-first")) hx_opts_double(&s, "--bl-first", &o.bl_first);
  if (hx_opts_given(&s, "--bl-growth")) hx_opts_double(&s, "--bl-growth", &o.bl_growth);
  if (hx_opts_given(&s, "--gap-layers")) hx_opts_int(&s, "--gap-layers", &o.gap_layers);
  if (hx_opts_given(&s, "--z")) {
    cnt = hx_opts_doubles(&s, "--z", d, HX_RODS_MAX_ZONES + 1);
    for (int k = 0; k + 1 < cnt; k++)
      HX_CHECK(d[k + 1] > d[k], HX_ERR_INPUT, "flag --z: values must increase, got '%s'", hx_opts_str(&s, "--z"));
    int old = o.num_zones;
    o.num_zones = cnt - 1;
    memcpy(o.z, d, (size_t)cnt * sizeof *d);
    for (int k = old; k < o.num_zones; k++) o.nz[k] = o.nz[0], o.grading[k] = 1;
  }
  if (hx_opts_given(&s, "--nz")) {
    cnt = hx_opts_ints(&s, "--nz", iv, HX_RODS_MAX_ZONES);
    for (int k = 0; k < HX_RODS_MAX_ZONES; k++) o.nz[k] = iv[k < cnt ? k : cnt - 1];
    HX_CHECK(cnt == 1 || cnt == o.num_zones, HX_ERR_INPUT, "flag --nz: %d values for %d zones (one --nz per zone of --z)", cnt,
             o.num_zones);
  }
  if (hx_opts_given(&s, "--grading")) {
    cnt = hx_opts_doubles(&s, "--grading", d, HX_RODS_MAX_ZONES);
    for (int k = 0; k < HX_RODS_MAX_ZONES; k++) o.grading[k] = d[k < cnt ? k : cnt - 1];
  }
  o.periodic |= hx_opts_given(&s, "--periodic") > 0;
  o.separate_ids |= hx_opts_given(&s, "--separate-ids") > 0;
  hx_opts_int(&s, "--check-order", &check_order);
  int order = c.order ? c.order : 1;
  if (!check_order) check_order = order;
  o.order = 1;                                    /* the mesher builds corners; exporters curve to --order exactly (rods, duct) */
  HX_CALL(hx_cli_check_outputs(comm, &c, order)); /* every output before the meshing */

  double t0 = now();
  hx_mesh *m = NULL;
  hx_rods_info info;
  HX_CALL(hx_mesher_rods(comm, &o, &m, &info));
  double t1 = now();
  /* the full invariant check (ids, surfaces, det J at order 1) on meshes up to a
     million elements or on request; the order-N det J check below covers every
     layer exactly in any case */
  hx_mesh_check_report rep;
  memset(&rep, 0, sizeof rep);
  rep.min_detj = NAN;
  int rc = HX_OK;
  if (full_check || m->num_elem_global <= 1000000) rc = hx_mesh_check(m, 1e-12, &rep);
  if (rc != HX_OK && !c.force) {
    hx_mesh_destroy(&m);
    return rc;
  }
  hx_error_clear();
  double t2 = now();
  double qmin = 0, qratio = 0, qmean = 0;
  long qbad = 0;
  double hmin = 1, hmax = 1;
  rc = layer_quality(comm, &o, check_order, &qmin, &qratio, &qmean, &qbad);
  if (rc == HX_OK) rc = layer_heights(m, &hmin, &hmax);
  if (rc == HX_OK) qmin *= qmin > 0 ? hmin : hmax; /* the unit layer's det J at the mesh's layers */
  if (rc == HX_OK && qmin <= 0 && !c.force)
    rc = HX_ERROR(HX_ERR_INVALID_MESH, "det J <= 0 at order %d (min %.3e); refusing to write (use --force)", check_order, qmin);
  /* the summary's figures are the written mesh's, at the written order */
  if (rc == HX_OK && check_order != order && !c.optimize) {
    rc = layer_quality(comm, &o, order, &qmin, &qratio, &qmean, &qbad);
    if (rc == HX_OK) qmin *= qmin > 0 ? hmin : hmax;
  }
  double t3 = now();
  if (rc == HX_OK && c.optimize) {
    /* TMOP at the written order: raise (curving onto the rods and duct), optimize
       with rod nodes sliding on their cylinders and duct/end nodes in their planes,
       and check the result (det J > 0, boundary nodes on their surfaces) */
    hx_mesh *hi = NULL;
    rc = hx_mesh_raise_order(m, order, &hi);
    if (rc == HX_OK) {
      hx_mesh_destroy(&m);
      m = hi;
      rc = hx_cli_optimize_for(m, &topt, &c, tquiet, "optimize");
    }
    if (rc == HX_OK) rc = hx_mesh_check(m, 1e-12, &rep);
    if (rc == HX_OK) rc = detj_stats(m, &qmin, &qratio, &qmean, &qbad); /* the optimized mesh as written */
  }
  double t3b = now();
  c.order = order;
  /* every layer passed det J > 0 at the written order with the exporters' own curving:
     let the writers skip their second pass over every node (as the box command does) */
  if (rc == HX_OK) c.checked = 1;
  if (rc == HX_OK) rc = hx_cli_write_outputs(m, &c);
  double t4 = now();
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double peak_mb = ru.ru_maxrss / 1024.0;
  if (rc == HX_OK) {
    char d1[32] = "null"; /* the order-1 check is skipped above 10^6 elements */
    if (isfinite(rep.min_detj)) snprintf(d1, sizeof d1, "%.6e", rep.min_detj);
    hx_cli_json_add("\"elements\": %lld, \"elements_per_layer\": %d, \"layers\": %d, \"rods\": %d, "
                    "\"sites\": %d, \"order\": %d, \"min_half_gap\": %.6e, \"bl_first\": %.6e, \"min_detj_order1\": %s, "
                    "\"check_order\": %d, \"min_detj\": %.6e, \"scaled_jacobian_min\": %.6f, \"scaled_jacobian_mean\": %.6f, "
                    "\"elements_below_0.5\": %ld, \"time_mesh_s\": %.3f, \"time_check_s\": %.3f, \"time_quality_s\": %.3f, "
                    "\"time_write_s\": %.3f, \"peak_rss_mb\": %.1f",
                    (long long)m->num_elem_global, (int)info.elems_per_layer, info.num_layers, info.num_rods, info.num_sites,
                    order, info.min_half_gap, info.bl_first, d1, check_order, qmin, qratio, qmean, qbad, t1 - t0, t2 - t1,
                    t3 - t2, t4 - t3b, peak_mb);
    hx_cli_json_outputs(&c);
  }
  if (rc == HX_OK && hx_comm_rank(comm) == 0) {
    FILE *log = hx_cli_log();
    fprintf(log, "rods: %lld elements (%d per layer x %d layers), %d rods on %d sites, order %d\n", (long long)m->num_elem_global,
            (int)info.elems_per_layer, info.num_layers, info.num_rods, info.num_sites, order);
    fprintf(log, "  narrowest rod-to-mid-gap %.4g, first boundary layer %.4g\n", info.min_half_gap, info.bl_first);
    fprintf(log, "  at order %d: min det J %.4e, Nek5000 scaled Jacobian min %.3f mean %.3f (%ld below 0.5)\n", order, qmin,
            qratio, qmean, qbad);
    fprintf(log, "  time: mesh %.3f s, check %.3f s, quality %.3f s, write %.3f s; peak memory %.0f MB\n", t1 - t0, t2 - t1,
            t3 - t2, t4 - t3b, peak_mb);
    for (int k = 0; k < c.num_out; k++) fprintf(log, "wrote %s\n", c.out[k]);
  }
  hx_mesh_destroy(&m);
  return rc;
}
