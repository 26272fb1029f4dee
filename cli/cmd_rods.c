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

static void rods_help(void) {
  printf("usage: hexpack rods [--preset NAME | --lattice square|hex ...] [options] [-o FILE]...\n\n"
         "geometry\n"
         "  --preset NAME        %s\n"
         "  --lattice L          square (default) or hex\n"
         "  --pitch P            centre-to-centre distance of neighbouring sites\n"
         "  --rods NX[,NY]       square lattice: sites per row and column\n"
         "  --rings K            hex lattice: rings around the centre pin (1 + 3K(K+1) sites)\n"
         "  --rod-radius R1[,R2..] radius of rod type 1, 2, ...\n"
         "  --map STRING         one entry per site: 1..8 rod type, '-' empty; '/' and blanks ignored\n"
         "                       (square: rows from the top, left to right; hex: rings from the centre,\n"
         "                       counter-clockwise from +x)\n"
         "  --duct D             box (square lattice), hex (hex lattice) or none (lattice boundary)\n"
         "  --duct-size S[,SY]   box side (and y side) or hex flat-to-flat\n"
         "  --duct-gap G         distance from the outer rods' surfaces to the duct (default pitch/2 - r1)\n"
         "mesh\n"
         "  --sectors S          elements around a rod (multiple of 4 square, 6 hex; default 28)\n"
         "  --bl-layers N        boundary layers at each rod (default 1)\n"
         "  --bl-first H         first boundary-layer thickness (default: a fifth of the narrowest half-gap)\n"
         "  --bl-growth G        boundary-layer thickness ratio (default 1.2)\n"
         "  --gap-layers N       layers from the boundary layers to the cell edge (default 2)\n"
         "  --z Z0,Z1[,Z2..]     axial zone boundaries (default 0,1)\n"
         "  --nz N1[,N2..]       element layers per zone (default 1)\n"
         "  --grading G1[,G2..]  last/first layer thickness per zone (default 1)\n"
         "  --periodic           periodic axial ends (ids 2, 3 paired) instead of inlet/outlet\n"
         "  --separate-ids       rod type k >= 2 gets boundary id 3 + k\n"
         "  --order N            order of the written mesh (rods and duct exact), default 1\n"
         "  --check-order N      also measure det J and Nek5000's scaled Jacobian at order N on one layer\n"
         "                       (the same for every layer), default: the --order\n"
         "  --full-check         run the full mesh invariant check also above 10^6 elements\n"
         "  --optimize           TMOP at --order before writing: rod nodes slide on their cylinders,\n"
         "                       duct and end nodes in their planes (optimizer flags below; here the\n"
         "                       defaults are --metric 318 --target 4 --weight equal --keep-sj 0.1\n"
         "                       --newton-iters 10: det J evened out inside every element, none left\n"
         "                       below min(0.1, its value as meshed))\n"
         "  -o FILE              write the mesh (format from the extension); several allowed\n"
         "  --json               print the summary as JSON\n"
         "boundary ids: 1 rod, 2 inlet, 3 outlet, 4 duct\n",
         hx_rods_preset_names());
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

int hx_cmd_rods(hx_comm comm, int argc, char **argv) {
  hx_rods_opts o;
  hx_rods_opts_default(&o);
  hx_cli_common c = {0};
  int check_order = 0, set_lattice = 0, full_check = 0;
  hx_tmop_opts topt;
  hx_tmop_opts_default(&topt);
  /* the pebble mesher's optimizer defaults, aimed at the Nek5000 scaled Jacobian: hex127 at
     order 3 (2 layers) goes 0.52 -> 0.94 (min), 0.71 -> 0.98 (mean) in 94 s on 2 cores, where
     the generic ones (metric 303, unit target, 100 steps) took it to 0.0000 / 0.87 in 886 s */
  hx_cli_tmop_sj_defaults(&topt);
  int tquiet = 0;
  /* a preset first, so that explicit flags override it wherever they appear */
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--preset")) HX_CALL(hx_rods_preset(&o, argv[i + 1]));
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    int r = hx_cli_common_flag(argc, argv, &i, &c);
    if (r < 0) return -r;
    if (r > 0) continue;
    r = hx_cli_tmop_flag(argc, argv, &i, &topt, &tquiet);
    if (r < 0) return -r;
    if (r > 0) continue;
    double d[HX_RODS_MAX_ZONES + 1];
    int iv[HX_RODS_MAX_ZONES], cnt;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      rods_help();
      hx_cli_tmop_help();
      return HX_OK;
    } else if (!strcmp(a, "--preset")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
    } else if (!strcmp(a, "--lattice")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      if (!strcmp(v, "square")) o.lattice = HX_RODS_SQUARE;
      else if (!strcmp(v, "hex")) o.lattice = HX_RODS_HEX;
      else return HX_ERROR(HX_ERR_INPUT, "flag --lattice: unknown lattice '%s'; known: square, hex", v);
      set_lattice = 1;
    } else if (!strcmp(a, "--pitch")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 1e-300, 1e300, &o.pitch));
    } else if (!strcmp(a, "--rods")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int_list(a, v, 2, 1, 1000, iv, &cnt));
      o.nx = iv[0];
      o.ny = cnt > 1 ? iv[1] : iv[0];
    } else if (!strcmp(a, "--rings")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int(a, v, 0, 60, &o.rings));
      if (!set_lattice) o.lattice = HX_RODS_HEX;
      if (o.duct == HX_RODS_DUCT_BOX) o.duct = HX_RODS_DUCT_HEX;
    } else if (!strcmp(a, "--rod-radius")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double_list(a, v, HX_RODS_MAX_TYPES, &cnt, d));
      for (int k = 0; k < cnt; k++)
        HX_CHECK(d[k] > 0, HX_ERR_INPUT, "flag --rod-radius: radius %d must be positive, got %g", k + 1, d[k]);
      o.num_types = cnt;
      memcpy(o.radius, d, (size_t)cnt * sizeof *d);
    } else if (!strcmp(a, "--map")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      o.map = v;
    } else if (!strcmp(a, "--duct")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      if (!strcmp(v, "box")) o.duct = HX_RODS_DUCT_BOX;
      else if (!strcmp(v, "hex")) o.duct = HX_RODS_DUCT_HEX;
      else if (!strcmp(v, "none")) o.duct = HX_RODS_DUCT_NONE;
      else return HX_ERROR(HX_ERR_INPUT, "flag --duct: unknown duct '%s'; known: box, hex, none", v);
    } else if (!strcmp(a, "--duct-size")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double_list(a, v, 2, &cnt, d));
      HX_CHECK(d[0] > 0 && (cnt < 2 || d[1] > 0), HX_ERR_INPUT, "flag --duct-size must be positive, got '%s'", v);
      o.duct_size = d[0];
      o.duct_size_y = cnt > 1 ? d[1] : 0;
    } else if (!strcmp(a, "--duct-gap")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 1e300, &o.duct_gap));
      o.duct_size = 0;
    } else if (!strcmp(a, "--sectors")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int(a, v, 1, 10000, &o.sectors));
    } else if (!strcmp(a, "--bl-layers")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int(a, v, 0, 50, &o.bl_layers));
    } else if (!strcmp(a, "--bl-first")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 1e-300, 1e300, &o.bl_first));
    } else if (!strcmp(a, "--bl-growth")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 1, 5, &o.bl_growth));
    } else if (!strcmp(a, "--gap-layers")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int(a, v, 1, 100, &o.gap_layers));
    } else if (!strcmp(a, "--z")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double_list(a, v, HX_RODS_MAX_ZONES + 1, &cnt, d));
      HX_CHECK(cnt >= 2, HX_ERR_INPUT, "flag --z expects Z0,Z1[,Z2...] (at least two values), got '%s'", v);
      for (int k = 0; k + 1 < cnt; k++) HX_CHECK(d[k + 1] > d[k], HX_ERR_INPUT, "flag --z: values must increase, got '%s'", v);
      int old = o.num_zones;
      o.num_zones = cnt - 1;
      memcpy(o.z, d, (size_t)cnt * sizeof *d);
      for (int k = old; k < o.num_zones; k++) o.nz[k] = o.nz[0], o.grading[k] = 1;
    } else if (!strcmp(a, "--nz")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int_list(a, v, HX_RODS_MAX_ZONES, 1, 1000000, iv, &cnt));
      for (int k = 0; k < HX_RODS_MAX_ZONES; k++) o.nz[k] = iv[k < cnt ? k : (cnt > 0 ? cnt - 1 : 0)];
      if (cnt > 1)
        HX_CHECK(cnt == o.num_zones, HX_ERR_INPUT, "flag --nz: %d values for %d zones (give --z first, one --nz per zone)", cnt,
                 o.num_zones);
    } else if (!strcmp(a, "--grading")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double_list(a, v, HX_RODS_MAX_ZONES, &cnt, d));
      for (int k = 0; k < HX_RODS_MAX_ZONES; k++) o.grading[k] = d[k < cnt ? k : (cnt > 0 ? cnt - 1 : 0)];
      for (int k = 0; k < cnt; k++) HX_CHECK(d[k] > 0, HX_ERR_INPUT, "flag --grading: ratios must be positive, got '%s'", v);
    } else if (!strcmp(a, "--periodic")) {
      o.periodic = 1;
    } else if (!strcmp(a, "--separate-ids")) {
      o.separate_ids = 1;
    } else if (!strcmp(a, "--full-check")) {
      full_check = 1;
    } else if (!strcmp(a, "--check-order")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int(a, v, 1, HX_MAX_ORDER, &check_order));
    } else {
      return hx_cli_unknown_flag("rods", a);
    }
  }
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
      rc = hx_cli_optimize_for(m, &topt, &c, tquiet);
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
  if (rc == HX_OK && hx_comm_rank(comm) == 0) {
    if (c.json)
      printf("{\"command\": \"rods\", \"elements\": %lld, \"elements_per_layer\": %d, \"layers\": %d, \"rods\": %d, "
             "\"sites\": %d, \"order\": %d, \"min_half_gap\": %.6e, \"bl_first\": %.6e, \"min_detj_order1\": %.6e, "
             "\"check_order\": %d, \"min_detj\": %.6e, \"scaled_jacobian_min\": %.6f, \"scaled_jacobian_mean\": %.6f, "
             "\"elements_below_0.5\": %ld, \"time_mesh_s\": %.3f, \"time_check_s\": %.3f, \"time_quality_s\": %.3f, "
             "\"time_write_s\": %.3f, \"peak_rss_mb\": %.1f}\n",
             (long long)m->num_elem_global, (int)info.elems_per_layer, info.num_layers, info.num_rods, info.num_sites, order,
             info.min_half_gap, info.bl_first, rep.min_detj, check_order, qmin, qratio, qmean, qbad, t1 - t0, t2 - t1, t3 - t2,
             t4 - t3b, peak_mb);
    else {
      printf("rods: %lld elements (%d per layer x %d layers), %d rods on %d sites, order %d\n", (long long)m->num_elem_global,
             (int)info.elems_per_layer, info.num_layers, info.num_rods, info.num_sites, order);
      printf("  narrowest rod-to-mid-gap %.4g, first boundary layer %.4g\n", info.min_half_gap, info.bl_first);
      printf("  at order %d: min det J %.4e, Nek5000 scaled Jacobian min %.3f mean %.3f (%ld below 0.5)\n", order, qmin, qratio,
             qmean, qbad);
      printf("  time: mesh %.3f s, check %.3f s, quality %.3f s, write %.3f s; peak memory %.0f MB\n", t1 - t0, t2 - t1, t3 - t2,
             t4 - t3b, peak_mb);
    }
    for (int k = 0; k < c.num_out; k++) printf("wrote %s\n", c.out[k]);
  }
  hx_mesh_destroy(&m);
  return rc;
}
