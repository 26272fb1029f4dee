/* hexpack pebble: curved all-hex mesh of the fluid between packed spheres. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hx_cli.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_memory.h"
#include "hx_particles.h"
#include "hx_pebble.h"
#include "hx_quality.h"
#include "hx_tmop.h"

static void pebble_help(void) {
  printf("usage: hexpack pebble CENTRES [options] -o OUT...\n\n"
         "CENTRES: one sphere a line, 'x y z' or 'x y z r'; '#' comments. Or a packing from a DEM code,\n"
         "  told from its content: a LAMMPS/LIGGGHTS dump (ITEM: ATOMS id type x y z radius ...), a CSV\n"
         "  table with a header (x,y,z,r / radius / diameter), a particle .vtu/.vtp/.vtk file.\n\n"
         "  --radius R            radius of spheres given without one (in the mesh's units)\n"
         "  --scale S             multiply every length read from CENTRES by S (0.001: a file in mm)\n"
         "  --timestep N|first|last  the snapshot of a LAMMPS/LIGGGHTS dump to mesh (default: last)\n"
         "  --container cyl:R[,CX,CY] | box:X0,X1,Y0,Y1 | box (just around the bed)\n"
         "                        container (default: a cylinder just around the bed about the z axis,\n"
         "                        or about the bed's x-y centre when that is more than a diameter away)\n"
         "  --bottom Z, --top Z   bottom/top planes (default: plane-gap beyond the spheres)\n"
         "  --plane-gap F         default planes/container at F x d beyond the spheres (0.1)\n"
         "  --inlet L[,N]         extrude the bottom by length L in N layers (default N = 4)\n"
         "  --outlet L[,N]        extrude the top likewise\n"
         "  --extrude-ratio G     growth of extruded layers away from the bed (1)\n"
         "  --layers N            radial layers between facets and spheres (3)\n"
         "  --ratio G             growth ratio of radial layers away from the sphere (1.5)\n"
         "  --first-layer F       first radial layer as a fraction of the column (overrides --ratio)\n"
         "  --grade-height H      columns shorter than H x d (near contacts) graded less, evenly at\n"
         "                        height 0: ratio linear in the height (0: off)\n"
         "  --grade-expand T      columns taller than T x d: layers grow at least as the column\n"
         "                        widens, ((R + h) / R)^(1/layers), full from 2 T (0: off)\n"
         "  --contact bridge|gap  what the mesh does where spheres touch or nearly touch (docs/pebble.md,\n"
         "                        \"Contact model\"; both change the fluid volume, reported in the summary):\n"
         "                        bridge (default): a solid cylinder about the line of centres joins every\n"
         "                        pair closer than --bridge-gap (the fluid in it is removed); gap: every\n"
         "                        pair and sphere-wall pair closer than --contact-gap is moved apart to\n"
         "                        that gap by reducing the radii (the mesh's spheres are smaller than\n"
         "                        given), no bridge, the gap meshed by rings of thin columns\n"
         "  --contact-gap F       gap model: the gap, a fraction of the pair's smaller diameter (0.01)\n"
         "  --contact-shrink local|uniform  gap model: reduce each sphere by what its own closest contact\n"
         "                        needs, the pair's deficit shared in proportion to the radii (local,\n"
         "                        default: most spheres keep their radius), or every sphere by one factor\n"
         "                        (uniform: one diameter for the bed, but a bed with DEM overlaps shrinks\n"
         "                        by its deepest overlap everywhere)\n"
         "  --bridge F            bridge model: bridge radius as a fraction of d (0.1); at DEM overlaps\n"
         "                        at least what makes the bridge as long as a touching contact's\n"
         "  --bridge-gap F        bridge model: bridge sphere pairs whose gap is below F x d (0.02;\n"
         "                        0.04 with --aspect)\n"
         "  --wall-gap F          bridge model: bridge sphere-wall gaps below F x d (default: --bridge-gap)\n"
         "  --collapse F          collapse Voronoi edges shorter than F x d (0.2)\n"
         "  --overlap-tol F       largest accepted overlap, fraction of d (0.1)\n"
         "  --rings K             extra quad rings around bridges and near contacts (1)\n"
         "  --ring-gap F          near contacts (gap < F x d) get the rings too (0.25)\n"
         "  --ring-sj S           rings per bridged / near-contact facet spaced and counted so that\n"
         "                        each ring's estimated det J ratio is >= S (0.1; 0: always --rings rings)\n"
         "  --aspect A            size the tessellation about contacts and near contacts (and near\n"
         "                        walls) for aspect ratio <= about A (e.g. 20): diagram edges there cut\n"
         "                        into more segments (every facet about an edge shares them), the rings\n"
         "                        of near contacts spaced for it, every facet's variants scored by it;\n"
         "                        gaps below 0.04 d bridged unless --bridge-gap; a wall triangle far\n"
         "                        from its sphere whose plain fan would exceed 1.25 A collapsed; best\n"
         "                        with --ratio 1 --score nek (about 2 x the elements on pb67; 0: off)\n"
         "  --goals               --ratio 1 --score nek --aspect 18 --grade-expand 0.75 --keep-aspect 20:\n"
         "                        with --optimize, Nek scaled Jacobian >= 0.3 and aspect <= 20 at order 7\n"
         "                        on pb67 in its cylinder and poured 300-sphere cylinders (not on every\n"
         "                        bed); any of these flags given as well, before or after, wins\n"
         "  --bridge-fit F        bridge model: bridge radius up to F x the facet's inner radius, at most 0.25 d\n"
         "                        (0.5; 0: --bridge; above 0.5 the ring next to the circle can fold at\n"
         "                        order N, e.g. pb67 from 0.6, and the check then refuses the mesh)\n"
         "  --accept-sj Q         keep a facet's first tessellation whose swept columns reach corner\n"
         "                        scaled Jacobian Q, else the best of all tried (0.3; 0: the first with none inverted, faster)\n"
         "  --score corner|nek    what the variant scoring maximizes: the columns' corner scaled\n"
         "                        Jacobian (corner, default) or also their Nek5000 min/max det J ratio\n"
         "                        (nek: fewer poor elements, about 30 %% more elements)\n"
         "  --split K             cut every facet quad into K x K (K^2 x the elements; 2 lifts the\n"
         "                        Nek scaled Jacobian of the worst elements most; default 1)\n"
         "  --smooth S            S sweeps of a max-min optimization of the nodes inside each facet (fan\n"
         "                        centres, ring nodes) on the quality of their swept columns: lifts the\n"
         "                        worst Nek scaled Jacobian at the same element count; no move takes a\n"
         "                        quad's columns from 0.3 or more to below it, nor (--aspect) above the\n"
         "                        aspect limit (default 10 with --optimize or --aspect, else 0: off;\n"
         "                        about 1 s a sweep per 1000 spheres on 2 cores; not with --split)\n"
         "  --radial volume|linear  GLL points of a radial layer spaced so that the cube of their distance\n"
         "                        from the sphere's centre is linear (volume: equal volume of the column's\n"
         "                        cone per step, a smaller det J range) or evenly (linear)\n"
         "  --ring-points volume|linear  GLL points along the radial edges of the rings about contacts\n"
         "                        spaced so that distance from the axis x gap x step is constant (volume:\n"
         "                        about half the det J range of even spacing) or evenly (linear)\n"
         "  --edge-points volume|linear  GLL points along the facets' boundary edges (the diagram's\n"
         "                        edges) spaced so that gap x step is constant (volume) or evenly\n"
         "                        (all three: volume from order 3, linear at order 2, by default)\n"
         "  --order N             geometry order of the outputs (default 7)\n"
         "  --quality             print the quality report of the order-N mesh (also --plot,\n"
         "                        --plot-slice, --slice, --worst: see hexpack quality --help)\n"
         "  --optimize            TMOP after meshing, boundary nodes sliding on their surfaces\n"
         "                        (optimizer flags below; here the defaults are --metric 318 --target 4\n"
         "                        --weight equal --keep-sj 0.1 --newton-iters 10 --detj-check fine,\n"
         "                        --quad-order 2P - 2, at least 8, and --keep-aspect A with --aspect A):\n"
         "                        det J evened out inside every element, none left below min(0.1, its\n"
         "                        value as meshed) nor, with --aspect A, above max(A, as meshed); the\n"
         "                        facets are smoothed first (--smooth 10 unless given), and with a .re2\n"
         "                        output no element is moved to one Nek5000's rule would fold; then\n"
         "                        --repair 0.3, 0.4,3 with --aspect (after the solve and again at order N\n"
         "                        after the transfer: the elements left below it solved again in patches\n"
         "                        of 2 rings of elements about them, 3 with --aspect; with --aspect few\n"
         "                        are left, and 0.4, above the goal of 0.3, leaves fewer below 0.3 than\n"
         "                        0.3 does)\n"
         "  --optimize-order P    solve on the bed meshed at order P by the order-N mesh's own map, then\n"
         "                        carry the moves to order N (interpolated; boundary nodes put back on\n"
         "                        their surfaces, the correction blended inwards; an element that would\n"
         "                        end below min(--keep-sj, its value as meshed) or folded is held back\n"
         "                        towards its meshed self). Default min(N, 3): at order 7 a solve at the\n"
         "                        order itself stops after a few steps (its quadrature at the GLL nodes\n"
         "                        lets steps fold elements between them) and gains far less\n"
         "  --transfer-keep S     then the carried moves also held back, where they can be, from an\n"
         "                        element that would drop below min(S, its value as meshed): through its\n"
         "                        corners that no element meshed below --keep-sj has (those elements end\n"
         "                        as without it) (0.3; 0: off)\n"
         "  --stream              never hold the whole order-N mesh: the sweep map is evaluated a block of\n"
         "                        elements at a time for the check, the quality report and every writer\n"
         "                        (the same files); chosen by itself when the order-N mesh would need\n"
         "                        more than a quarter of this machine's memory (--assume-memory B: take B\n"
         "                        bytes as the memory, for tests), unless --optimize\n"
         "  --debug WHAT[,WHAT...]  diagnostics of the mesher on stderr, WHAT one of:\n"
         "                        facets: every facet's tessellation as kept (sites, polygon), the order-1\n"
         "                        elements with a corner det J <= 0 and the order-N nodes with det J <= 0;\n"
         "                        facet=F: facet F's tessellation at every variant tried;\n"
         "                        classify[=2[,A]]: after the order-N sweep (not --stream) the Nek scaled\n"
         "                        Jacobian and aspect ratio by class of element (where its quad lies in\n"
         "                        the facet's tessellation, by radial layer); 2: also list the elements\n"
         "                        below 0.05 or above aspect A (100);\n"
         "                        elems=LIST: with classify, also list these elements (ids, commas:\n"
         "                        --debug classify=2,20,elems=17,40,mem);\n"
         "                        mem: the time, peak and current memory after each stage\n"
         "  -o FILE               write the mesh (format from the extension); several allowed\n"
         "  --json                print the summary as JSON\n\n"
         "Boundary ids, contiguous from 1 in this order where present: pebble, chamfer, wall,\n"
         "inlet, outlet.\n");
}

/* Would the whole order-N mesh of a bed of n spheres (at most ~600 elements a sphere,
   x and node ids at nd^3 nodes an element) need more than a quarter of the memory of
   this machine on each of np ranks? (--assume-memory replaces the memory, for tests.) */
static int order_n_too_big(hx_lid n, int order, int np, double assume_memory) {
  double nd = order + 1, bytes = 600.0 * (double)n / np * nd * nd * nd * (3 * sizeof(double) + sizeof(hx_gid));
  double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  if (assume_memory > 0) mem = assume_memory;
  return mem > 0 && bytes > 0.25 * mem;
}

/* the bed of a centres file or of a DEM packing (io/hx_particles.h), its lengths times scale */
static int read_bed(const char *path, double radius, double scale, int ts_given, int64_t timestep, hx_pebble_bed **bed) {
  int form;
  HX_CALL(hx_particles_detect(path, &form));
  if (form == HX_PARTICLES_TABLE) {
    HX_CHECK(!ts_given, HX_ERR_INPUT, "flag --timestep: only for LAMMPS / LIGGGHTS dump files; '%s' is a table of 'x y z [r]'",
             path);
    return hx_pebble_bed_read_scaled(path, radius, scale, bed);
  }
  hx_particles_opts po;
  hx_particles_opts_default(&po);
  po.radius = radius, po.scale = scale, po.timestep_given = ts_given, po.timestep = timestep;
  hx_particles *p = NULL;
  HX_CALL(hx_particles_read(path, &po, &p));
  int rc = hx_pebble_bed_create((hx_lid)p->n, p->xyz, p->r, 0, bed);
  if (!rc) {
    memcpy((*bed)->line, p->line, (size_t)p->n * sizeof *p->line);
    snprintf((*bed)->path, sizeof(*bed)->path, "%s", path);
  }
  hx_particles_destroy(&p);
  return rc;
}

static int parse_pair(const char *flag, const char *v, double *len, int *layers) {
  double p[2];
  int cnt;
  HX_CALL(hx_cli_double_list(flag, v, 2, &cnt, p));
  HX_CHECK(p[0] >= 0, HX_ERR_INPUT, "flag %s: the length must be >= 0, got '%s'", flag, v);
  *len = p[0];
  if (cnt == 2) {
    HX_CHECK(p[1] >= 1 && p[1] <= 64 && p[1] == floor(p[1]), HX_ERR_INPUT,
             "flag %s: the layer count must be an integer in 1..64, got '%s'", flag, v);
    *layers = (int)p[1];
  }
  return HX_OK;
}

/* the pebble optimizer's quadrature at order P: -qo 2P - 2 (the GLL nodes) from order 5, else 8 */
static int default_quad_order(int P) { return 2 * P - 2 > 8 ? 2 * P - 2 : 8; }

typedef struct transfer_stats {
  int order;
  long long held;
  int rounds;
  double seconds;        /* the order-P mesh, the solve, the transfer and the repair */
  hx_tmop_result repair; /* --repair at order N, after the transfer */
} transfer_stats;

/* --optimize-order P: TMOP on the same bed meshed at order P (the same elements: the
   tessellation does not depend on the order), then the moves carried to the order-N mesh m
   (hx_tmop_transfer: interpolated, boundary nodes put back on their surfaces, held back where
   an element would end below min(--keep-sj, its value as meshed) or folded). The order-P copy
   samples the order-N mesh's own map (map_order: its point spacings and its guard's choices),
   so that both share one parametrization; where that copy folds at the solve's quadrature
   points (fewer points can miss a thin layer's curve), the order-P mesher's own guard places
   them (the spacings still as at order N); where that folds too, tr->order stays 0 and the
   caller solves at order N. At order 7 the solve at the mesh's own order stops early: its quadrature
   at the GLL nodes lets steps fold elements between them, which the line search refuses. */
static int optimize_at_order(hx_comm comm, const hx_pebble_bed *bed, const hx_pebble_opts *o, hx_mesh *m, int P,
                             hx_tmop_opts *topt, int user_qo, int quiet, int json, transfer_stats *tr) {
  int N = o->order;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int attempt = 0; attempt < 2; attempt++) {
    hx_pebble_opts op = *o;
    op.order = P;
    op.lazy = 0;
    if (attempt == 0) {
      op.map_order = N;
    } else {
      int *f[3] = {&op.radial_volume, &op.ring_volume, &op.edge_volume};
      for (int k = 0; k < 3; k++)
        if (*f[k] < 0) *f[k] = N >= 3;
    }
    hx_pebble_stats st;
    hx_mesh *lo = NULL;
    double *x0 = NULL;
    HX_CALL(hx_mesher_pebble(comm, bed, &op, &lo, &st));
    size_t n = (size_t)lo->num_elem * 3 * (size_t)hx_mesh_nodes_per_elem(lo);
    int rc = hx_malloc((n + 1) * sizeof *x0, &x0);
    if (!rc) memcpy(x0, lo->x, n * sizeof *x0);
    hx_tmop_opts lo_opt = *topt; /* topt's elem_ok (the .re2 guard) is for the order-N mesh */
    lo_opt.elem_ok = NULL, lo_opt.elem_ok_ctx = NULL;
    if (!rc) rc = hx_cli_optimize(lo, &lo_opt, quiet, json);
    if (rc == HX_ERR_INVALID_MESH) { /* the copy folds at the quadrature points: next attempt */
      hx_error_clear();
      hx_free(&x0);
      hx_mesh_destroy(&lo);
      continue;
    }
    if (!rc) rc = hx_tmop_transfer(m, lo, x0, topt, &tr->held, &tr->rounds);
    if (!rc) tr->order = P;
    if (!rc && topt->repair_sj > 0) {
      /* the transfer's own elements below --repair (an order-N element meshed below it that
         the order-P solve raised, which the transfer raises less) solved again at order N */
      hx_tmop_opts ro = *topt;
      if (!user_qo) ro.quad_order = default_quad_order(N);
      rc = hx_tmop_repair(m, &ro, &tr->repair);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    tr->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    hx_free(&x0);
    hx_mesh_destroy(&lo);
    return rc;
  }
  return HX_OK;
}

/* the values of --debug's classify= and elems= (o->debug borrows them) */
typedef struct debug_text {
  char classify[64], elems[1024];
} debug_text;

/* whether s is a number list: digits (with a '.' where dot) separated by single commas */
static int number_list(const char *s, int dot) {
  if (!*s) return 0;
  for (const char *p = s; *p; p++)
    if (!((*p >= '0' && *p <= '9') || (dot && *p == '.') || (*p == ',' && p != s && p[1] && p[1] != ','))) return 0;
  return 1;
}

/* --debug WHAT[,WHAT...] into o->debug. The values of classify=2,A and elems=LIST hold commas
   too: a piece that is a plain number continues the classify= or elems= before it. */
static int debug_flag(const char *v, debug_text *t, hx_pebble_opts *o) {
  static const char *allowed = "facets, facet=F, classify[=1|2[,A]], elems=LIST, mem, tmop";
  char *cur = NULL; /* the value a plain number continues */
  size_t cap = 0;
  HX_CHECK(*v && v[strlen(v) - 1] != ',', HX_ERR_INPUT, "flag --debug: '%s' ends with a comma or is empty; allowed: %s", v,
           allowed);
  for (const char *p = v; *p;) {
    size_t n = strcspn(p, ",");
    char w[1024];
    HX_CHECK(n > 0 && n < sizeof w, HX_ERR_INPUT, "flag --debug: '%s' has an empty or over-long word; allowed: %s", v, allowed);
    memcpy(w, p, n), w[n] = 0;
    p += n + (p[n] == ',');
    if (cur && number_list(w, 1)) {
      HX_CHECK(strlen(cur) + n + 2 <= cap, HX_ERR_INPUT, "flag --debug: '%s' is too long", v);
      strcat(cur, ","), strcat(cur, w);
      continue;
    }
    cur = NULL;
    if (!strcmp(w, "facets")) o->debug.facets = 1;
    else if (!strcmp(w, "tmop")) continue; /* the optimizer's word: its own parser (cmd_optimize.c) took it */
    else if (!strcmp(w, "mem")) o->debug.mem = 1;
    else if (!strncmp(w, "facet=", 6) && number_list(w + 6, 0) && !strchr(w + 6, ',')) o->debug.facet = atol(w + 6);
    else if (!strcmp(w, "classify") || !strncmp(w, "classify=", 9)) {
      const char *val = w[8] ? w + 9 : "1";
      HX_CHECK(strlen(val) < sizeof t->classify, HX_ERR_INPUT, "flag --debug: classify value in '%s' is too long", v);
      memcpy(t->classify, val, strlen(val) + 1);
      o->debug.classify = t->classify;
      cur = t->classify, cap = sizeof t->classify;
    } else if (!strncmp(w, "elems=", 6) && number_list(w + 6, 0)) {
      memcpy(t->elems, w + 6, n - 5); /* n < sizeof w == sizeof t->elems */
      o->debug.elems = t->elems;
      cur = t->elems, cap = sizeof t->elems;
    } else return HX_ERROR(HX_ERR_INPUT, "flag --debug: unknown or bad word '%s' in '%s'; allowed: %s", w, v, allowed);
  }
  /* classify's value: 1 (the classes) or 2[,A] (and the worst elements, A the aspect limit) */
  const char *c = o->debug.classify;
  HX_CHECK(!c || ((c[0] == '1' || c[0] == '2') && (!c[1] || (c[1] == ',' && number_list(c + 2, 1) && !strchr(c + 2, ',')))),
           HX_ERR_INPUT, "flag --debug: bad classify value '%s' in '%s'; allowed: classify, classify=1, classify=2, classify=2,A",
           c, v);
  return HX_OK;
}

int hx_cmd_pebble(hx_comm comm, int argc, char **argv) {
  hx_pebble_opts o;
  hx_pebble_opts_default(&o);
  o.smooth = -1; /* below: 10 with --optimize or --aspect (unless --split), else 0 */
  hx_cli_common c = {0};
  const char *centres = NULL;
  hx_cli_plot plot = {0};
  int quality = 0, no_raise = 0, tquiet = 0, opt_order = 0, user_tk = 0;
  const char *bridge_flag = NULL, *gap_flag = NULL; /* a bridge-model flag given, a gap-model flag given */
  double assume_memory = 0; /* --assume-memory: the memory the --stream choice takes (0: this machine's) */
  hx_tmop_opts topt;
  hx_tmop_opts_default(&topt);
  /* the pebble mesh's own optimizer defaults, aimed at the Nek5000 scaled Jacobian (min / max
     det J in each element): the size metric with each element's own volume as target evens
     det J out inside elements, every element counts alike (the small ones at contacts too),
     and no element ends below min(0.1, its value as meshed) */
  hx_cli_tmop_sj_defaults(&topt);
  topt.keep_aspect = -1;    /* below: --aspect's limit, unless --keep-aspect */
  topt.transfer_keep = 0.3; /* pb67 at order 7, --score nek: below 0.3 597 -> 313, none below 0.1 */
  /* below: 0.4 with --aspect, else 0.3, unless --repair. With --aspect (few elements left below
     0.4): pb67 at order 7 (H100, cuda), --ratio 1 --score nek --aspect 18 --grade-expand 0.75
     --keep-aspect 20: below 0.3 20 with --repair 0.3, 0 with 0.4 (none below 0.3 either way in
     c300; in pb67's default container with --aspect 20: 3 -> 0). Without (pb67 at order 3 on
     the dev VM's cpu, 717 below 0.4 after the solve): below 0.3 230 / 149 / 184 with 0 / 0.3 /
     0.4, in 210 / 320 / 494 s. The patches: 3 rings of elements about each with --aspect, unless
     --repair's R (H200, cuda, order 7, A18G, widened bridges: pb67 in its
     cylinder below 0.3 2 -> 0 (min 0.220 -> 0.408), c300 1 -> 0, p300 2 -> 0, the wall time alike),
     else the solver's 2 */
  topt.repair_sj = -1;
  topt.repair_rings = -1;
  /* with the quadrature at the GLL nodes, no fold between them (pb67 at order 7: 40 steps leave
     elements below 0.1 to --keep-sj, 80 none) */
  topt.detj_nodes = 2;
  topt.quad_order = 0; /* below: the GLL nodes themselves from order 5 (the points of the scaled Jacobian) */
  hx_quality_opts qo;
  hx_quality_opts_default(&qo);
  qo.num_worst = 5;
  double radius = 0, scale = 1;
  int ts_given = 0;
  int64_t timestep = 0;
  debug_text dbg;
  /* --goals: its flags' values first, so that the same flags given anywhere override them (on
     pb67 in its cylinder and three poured beds of 300 spheres at order 7 with --optimize: none
     below Nek scaled Jacobian 0.3 nor above aspect 20; docs/benchmarks.md) */
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--goals")) {
      o.ratio = 1, o.score_nek = 1, o.aspect = 18, o.grade_expand = 0.75;
      topt.keep_aspect = 20;
    }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    int r = hx_cli_common_flag(argc, argv, &i, &c);
    if (r < 0) return -r;
    if (r > 0) continue;
    r = hx_cli_tmop_flag(argc, argv, &i, &topt, &tquiet);
    if (r < 0) return -r;
    if (r > 0) continue;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      pebble_help();
      hx_cli_tmop_help();
      return HX_OK;
    } else if (a[0] != '-' || !a[1]) {
      HX_CHECK(!centres, HX_ERR_INPUT, "pebble: one centres file expected, got '%s' and '%s'", centres, a);
      centres = a;
      continue;
    }
    if (!strcmp(a, "--radius")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double("--radius", v, 1e-300, 1e300, &radius));
    } else if (!strcmp(a, "--scale")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double("--scale", v, 1e-12, 1e12, &scale));
    } else if (!strcmp(a, "--timestep")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      char *e;
      long long t = strtoll(v, &e, 10);
      HX_CHECK(!strcmp(v, "last") || !strcmp(v, "first") || (e != v && !*e), HX_ERR_INPUT,
               "flag --timestep: expected a timestep number, first or last, got '%s'", v);
      ts_given = strcmp(v, "last") != 0;
      timestep = !strcmp(v, "first") ? HX_PARTICLES_FIRST : t;
    } else if (!strcmp(a, "--container")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      double p[4];
      int cnt;
      if (!strncmp(v, "cyl:", 4)) {
        HX_CALL(hx_cli_double_list("--container", v + 4, 3, &cnt, p));
        HX_CHECK(cnt == 1 || cnt == 3, HX_ERR_INPUT, "flag --container: expected cyl:R or cyl:R,CX,CY, got '%s'", v);
        HX_CHECK(p[0] > 0, HX_ERR_INPUT, "flag --container: the cylinder radius must be positive, got '%s'", v);
        o.container = HX_PEBBLE_CYLINDER;
        o.cyl_radius = p[0];
        if (cnt == 3) o.cx = p[1], o.cy = p[2];
      } else if (!strcmp(v, "box")) {
        o.container = HX_PEBBLE_BOX; /* just around the bed */
      } else if (!strncmp(v, "box:", 4)) {
        HX_CALL(hx_cli_double_list("--container", v + 4, 4, &cnt, p));
        HX_CHECK(cnt == 4 && p[1] > p[0] && p[3] > p[2], HX_ERR_INPUT,
                 "flag --container: expected box:X0,X1,Y0,Y1 with X0 < X1, Y0 < Y1, got '%s'", v);
        o.container = HX_PEBBLE_BOX;
        o.box_lo[0] = p[0], o.box_hi[0] = p[1], o.box_lo[1] = p[2], o.box_hi[1] = p[3];
      } else {
        return HX_ERROR(HX_ERR_INPUT, "flag --container: expected cyl:R[,CX,CY] or box:X0,X1,Y0,Y1, got '%s'", v);
      }
    } else if (!strcmp(a, "--bottom") || !strcmp(a, "--top")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, -1e300, 1e300, !strcmp(a, "--bottom") ? &o.zlo : &o.zhi));
    } else if (!strcmp(a, "--plane-gap")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 100, &o.plane_gap));
    } else if (!strcmp(a, "--inlet")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(parse_pair(a, v, &o.inlet_len, &o.inlet_layers));
    } else if (!strcmp(a, "--outlet")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(parse_pair(a, v, &o.outlet_len, &o.outlet_layers));
    } else if (!strcmp(a, "--extrude-ratio")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0.1, 10, &o.extrude_ratio));
    } else if (!strcmp(a, "--layers")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int(a, v, 1, 64, &o.layers));
    } else if (!strcmp(a, "--ratio")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0.1, 10, &o.ratio));
    } else if (!strcmp(a, "--grade-height")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 2, &o.grade_height));
    } else if (!strcmp(a, "--grade-expand")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 10, &o.grade_expand));
    } else if (!strcmp(a, "--first-layer")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 1e-6, 0.999, &o.first_layer));
    } else if (!strcmp(a, "--contact")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      if (!strcmp(v, "bridge")) o.contact = HX_PEBBLE_BRIDGE;
      else if (!strcmp(v, "gap")) o.contact = HX_PEBBLE_GAP;
      else return HX_ERROR(HX_ERR_INPUT, "flag --contact: expected 'bridge' or 'gap', got '%s'", v);
    } else if (!strcmp(a, "--contact-gap")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 1e-4, 0.2, &o.contact_gap));
      gap_flag = "--contact-gap";
    } else if (!strcmp(a, "--contact-shrink")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      if (!strcmp(v, "local")) o.contact_shrink = HX_PEBBLE_SHRINK_LOCAL;
      else if (!strcmp(v, "uniform")) o.contact_shrink = HX_PEBBLE_SHRINK_UNIFORM;
      else return HX_ERROR(HX_ERR_INPUT, "flag --contact-shrink: expected 'local' or 'uniform', got '%s'", v);
      gap_flag = "--contact-shrink";
    } else if (!strcmp(a, "--bridge")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0.01, 0.4, &o.bridge_frac));
      bridge_flag = "--bridge";
    } else if (!strcmp(a, "--bridge-gap")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 1, &o.bridge_gap));
      bridge_flag = "--bridge-gap";
    } else if (!strcmp(a, "--wall-gap")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 1, &o.wall_gap));
      bridge_flag = "--wall-gap";
    } else if (!strcmp(a, "--collapse")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 0.5, &o.collapse));
    } else if (!strcmp(a, "--overlap-tol")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 0.3, &o.overlap_tol));
    } else if (!strcmp(a, "--rings")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int(a, v, 0, 8, &o.rings));
    } else if (!strcmp(a, "--ring-gap")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 10, &o.ring_gap));
    } else if (!strcmp(a, "--ring-sj")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 0.9, &o.ring_sj));
    } else if (!strcmp(a, "--aspect")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 1000, &o.aspect));
    } else if (!strcmp(a, "--bridge-fit")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 0.8, &o.bridge_fit));
      bridge_flag = "--bridge-fit";
    } else if (!strcmp(a, "--score")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      if (!strcmp(v, "nek")) o.score_nek = 1;
      else if (!strcmp(v, "corner")) o.score_nek = 0;
      else return HX_ERROR(HX_ERR_INPUT, "flag --score: expected 'corner' or 'nek', got '%s'", v);
    } else if (!strcmp(a, "--split")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int(a, v, 1, 8, &o.split));
    } else if (!strcmp(a, "--radial") || !strcmp(a, "--ring-points") || !strcmp(a, "--edge-points")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      int *dst = !strcmp(a, "--radial") ? &o.radial_volume : !strcmp(a, "--ring-points") ? &o.ring_volume : &o.edge_volume;
      if (!strcmp(v, "volume")) *dst = 1;
      else if (!strcmp(v, "linear")) *dst = 0;
      else return HX_ERROR(HX_ERR_INPUT, "flag %s: expected 'linear' or 'volume', got '%s'", a, v);
    } else if (!strcmp(a, "--smooth")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int(a, v, 0, 1000, &o.smooth));
    } else if (!strcmp(a, "--accept-sj")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 1, &o.accept_sj));
    } else if (!strcmp(a, "--optimize-order")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int(a, v, 1, HX_MAX_ORDER, &opt_order));
    } else if (!strcmp(a, "--transfer-keep")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double(a, v, 0, 1, &topt.transfer_keep));
      user_tk = 1;
    } else if (!strcmp(a, "--goals")) {
      continue; /* applied above */
    } else if (!strcmp(a, "--quality")) {
      quality = 1;
    } else if (!strcmp(a, "--stream")) {
      no_raise = 1;
    } else if (!strcmp(a, "--assume-memory")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double("--assume-memory", v, 1, 1e30, &assume_memory));
    } else if (!strcmp(a, "--debug")) {
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(debug_flag(v, &dbg, &o));
    } else {
      r = hx_cli_quality_flag(argc, argv, &i, &qo, &plot);
      if (r < 0) return HX_ERR_INPUT;
      if (r > 0) {
        quality = 1;
        continue;
      }
      return hx_cli_unknown_flag("pebble", a);
    }
  }
  HX_CHECK(centres, HX_ERR_INPUT, "pebble: no centres file given (hexpack pebble CENTRES [options] -o OUT)");
  HX_CHECK(!(o.contact == HX_PEBBLE_GAP && bridge_flag), HX_ERR_INPUT,
           "flag %s: a bridge model's parameter, but --contact gap makes no bridge", bridge_flag);
  HX_CHECK(!(o.contact == HX_PEBBLE_BRIDGE && gap_flag), HX_ERR_INPUT, "flag %s: a gap model's parameter; add --contact gap",
           gap_flag);
  HX_CHECK(!(c.optimize && no_raise), HX_ERR_INPUT, "flag --optimize: needs the whole order-N mesh, not --stream");
  HX_CALL(hx_cli_plot_check(&plot));
  int order = c.order ? c.order : 7;
  HX_CHECK(!opt_order || c.optimize, HX_ERR_INPUT, "flag --optimize-order: only with --optimize");
  HX_CHECK(opt_order <= order, HX_ERR_INPUT, "flag --optimize-order: %d is above the mesh's order %d", opt_order, order);
  HX_CHECK(!user_tk || c.optimize, HX_ERR_INPUT, "flag --transfer-keep: only with --optimize");
  if (topt.repair_sj < 0) topt.repair_sj = o.aspect > 0 ? 0.4 : 0.3;
  if (topt.repair_rings < 0) topt.repair_rings = o.aspect > 0 ? 3 : 2;
  if (topt.keep_aspect < 0) topt.keep_aspect = o.aspect; /* with --aspect A: no move takes an element above max(A, as meshed) */
  /* the smoothing serves the optimizer (which lifts the quads it leaves below 0.3) and --aspect:
     pb67 at order 7 --optimize, below 0.1 / 0.3: 94 / 1,176 -> 28 / 715; --aspect 20: worst
     0.066 -> 0.195 (H200) */
  if (o.smooth < 0) o.smooth = (o.aspect > 0 || c.optimize) && o.split <= 1 ? 10 : 0;
  int solve_order = opt_order ? opt_order : order > 3 ? 3 : order, user_qo = topt.quad_order != 0;
  if (!topt.quad_order) topt.quad_order = default_quad_order(solve_order);
  /* check every output (format, its limits at this order, directory) before any work */
  HX_CALL(hx_cli_check_outputs(comm, &c, order));
  hx_pebble_bed *bed = NULL;
  HX_CALL(read_bed(centres, radius, scale, ts_given, timestep, &bed));
  int rc = hx_pebble_opts_finish(&o, bed);
  if (!rc) rc = hx_pebble_bed_check(bed, &o);
  hx_mesh *m = NULL;
  hx_pebble_stats st;
  if (!rc) {
    /* the mesher places the order-N nodes by its own sweep map: the whole mesh, or
       (--stream, or an order-N mesh larger than a quarter of the memory) an order-1
       mesh carrying the map, evaluated a block at a time by the check, the quality
       report and the writers (hx_mesh_lazy) */
    o.order = order;
    int64_t lazy = order > 1 && !c.optimize && (no_raise || order_n_too_big(bed->n, order, hx_comm_size(comm), assume_memory));
    rc = hx_comm_max_int64(comm, &lazy, 1); /* one choice for all ranks (their memories may differ) */
    o.lazy = (int)lazy;
    if (!rc) rc = hx_mesher_pebble(comm, bed, &o, &m, &st);
  }
  hx_gid num_bad = 0;
  double t_curve = 0, vol_mesh = 0;
  transfer_stats tr;
  memset(&tr, 0, sizeof tr);
  if (!rc) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    hx_mesh_check_report rep;
    rc = m->lazy ? hx_mesh_check_lazy(m, 1e-12, &rep) : hx_mesh_check(m, 1e-12, &rep);
    num_bad = rep.bad_elems;
    vol_mesh = rep.volume;
    if (rc && c.force) {
      hx_error_clear();
      rc = HX_OK;
    }
    /* TMOP with every boundary node sliding on its analytic surface (pebble spheres,
       chamfer cylinders, container wall, planes); the order-N mesh is the mesher's */
    hx_cli_re2_guard guard = {0};
    if (!rc && c.optimize) rc = hx_cli_re2_guard_open(m, &c, &guard, &topt);
    if (!rc && c.optimize) {
      if (solve_order < order) {
        rc = optimize_at_order(comm, bed, &o, m, solve_order, &topt, user_qo, tquiet || c.json, c.json, &tr);
        if (!rc && !tr.order) { /* no valid order-P copy: solve at order N */
          if (!user_qo) topt.quad_order = default_quad_order(order);
          if (hx_comm_rank(comm) == 0 && !c.json)
            printf("optimize: the order-%d copy folds at its quadrature points; solving at order %d\n", solve_order, order);
          solve_order = order;
        }
      }
      if (!rc && !tr.order) rc = hx_cli_optimize(m, &topt, tquiet || c.json, c.json);
      hx_cli_re2_guard_close(&guard, &topt);
      hx_mesh_check_report rep;
      if (!rc) rc = hx_mesh_check(m, 1e-12, &rep);
      if (!rc) num_bad = rep.bad_elems, vol_mesh = rep.volume;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    t_curve = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
  }
  if (!rc) {
    c.order = order;
    rc = hx_cli_write_outputs(m, &c);
  }
  if (!rc && hx_comm_rank(comm) == 0) {
    double per = (double)st.elems_bulk / bed->n;
    /* the volumes: the fluid of the bed as given (container less the spheres, analytic), what the
       contact model changes (bridges' solid, the gap model's shrinking), the fluid the mesh should
       hold, and the mesh's own (GLL quadrature of det J) */
    double v_ideal = st.vol_container - st.vol_solid, v_model = v_ideal - st.bridge_volume + st.vol_shrink;
    double v_rel = (vol_mesh - v_model) / v_model;
    const char *contact = o.contact == HX_PEBBLE_GAP ? "gap" : "bridge";
    const char *shrink = o.contact != HX_PEBBLE_GAP ? "none" : o.contact_shrink == HX_PEBBLE_SHRINK_UNIFORM ? "uniform" : "local";
    if (c.json) {
      printf("{\"command\": \"pebble\", \"contact\": \"%s\", \"contact_gap\": %g, \"contact_shrink\": \"%s\", "
             "\"shrunk_spheres\": %d, \"shrink_max\": %.6e, \"shrink_mean\": %.6e, \"volume_container\": %.10e, "
             "\"volume_spheres\": %.10e, \"volume_fluid_ideal\": %.10e, \"volume_bridges\": %.10e, \"volume_shrink\": %.10e, "
             "\"volume_fluid_model\": %.10e, \"volume_mesh\": %.10e, \"volume_mesh_rel\": %.3e, ",
             contact, o.contact == HX_PEBBLE_GAP ? o.contact_gap : 0.0, shrink, (int)st.num_shrunk, st.max_shrink, st.mean_shrink,
             st.vol_container, st.vol_solid, v_ideal, st.bridge_volume, st.vol_shrink, v_model, vol_mesh, v_rel);
      printf("\"spheres\": %d, \"elements\": %lld, \"bulk\": %d, \"inlet\": %d, "
             "\"outlet\": %d, \"per_pebble_bulk\": %.2f, \"bridges\": %d, \"wall_bridges\": %d, \"overlaps\": %d, "
             "\"facets\": %d, \"collapsed_edges\": %d, \"negligible_facets\": %d, \"dropped_facets\": %d, "
             "\"repaired_facets\": %d, \"repair_rounds\": %d, \"smoothed_moves\": %lld, \"ring_even_facets\": %d, "
             "\"edge_even_segments\": %d, "
             "\"aspect\": %g, \"cut_edges\": %d, \"cut_segments\": %d, \"wide_bridges\": %d, \"spread_rings\": %d, "
             "\"bridge_gap\": %g, \"wall_gap\": %g, "
             "\"order\": %d, \"streamed\": %s, \"bad_elements\": %lld, \"bridge_volume\": %.6e, \"time_diagram\": %.3f, "
             "\"time_mesh\": %.3f, \"time_curve\": %.3f, \"optimize_order\": %d, \"transfer_keep\": %g, \"keep_aspect\": %g, "
             "\"transfer_held\": %lld, \"transfer_rounds\": %d, "
             "\"repair_sj\": %g, \"repair_rings\": %d, \"repair_below_order_n\": %lld, \"repair_after_order_n\": %lld}\n",
             (int)bed->n, (long long)m->num_elem_global, (int)st.elems_bulk, (int)st.elems_inlet, (int)st.elems_outlet, per,
             (int)st.num_bridges, (int)st.num_wall_bridges, (int)st.num_overlaps, (int)st.num_facets, (int)st.num_collapsed,
             (int)st.num_negligible, (int)st.num_dropped_facets, (int)st.num_repaired_facets, st.num_repair_rounds,
             (long long)st.num_smoothed_moves, (int)st.num_ring_even, (int)st.num_edge_even, o.aspect, (int)st.num_cut_edges,
             (int)st.num_cut_segments, (int)st.num_wide_bridges, (int)st.num_spread_rings, o.bridge_gap, o.wall_gap, order,
             m->lazy ? "true" : "false", (long long)num_bad, st.bridge_volume, st.t_diagram, st.t_mesh, t_curve,
             c.optimize ? solve_order : 0, c.optimize ? topt.transfer_keep : 0.0, c.optimize ? topt.keep_aspect : 0.0, tr.held,
             tr.rounds, c.optimize ? topt.repair_sj : 0.0, c.optimize ? topt.repair_rings : 0, tr.repair.repair_bad,
             tr.repair.repair_after);
    } else {
      printf("pebble: %d spheres, %lld elements (bulk %d = %.1f per pebble, inlet %d, outlet %d)\n", (int)bed->n,
             (long long)m->num_elem_global, (int)st.elems_bulk, per, (int)st.elems_inlet, (int)st.elems_outlet);
      printf("  diagram: %d facets (%d on walls), %d short edges collapsed (%d of negligible facets), %d facets "
             "dropped; bridges: %d sphere-sphere (%d overlapping), %d sphere-wall\n",
             (int)st.num_facets, (int)st.num_wall_facets, (int)st.num_collapsed, (int)st.num_negligible,
             (int)st.num_dropped_facets, (int)st.num_bridges, (int)st.num_overlaps, (int)st.num_wall_bridges);
      if (o.contact == HX_PEBBLE_GAP)
        printf("  contact: gap %g x d: %d sphere(s) shrunk (%s), radius reduced by up to %.3g %% (mean over the bed "
               "%.3g %%); no bridge\n",
               o.contact_gap, (int)st.num_shrunk, shrink, 100 * st.max_shrink, 100 * st.mean_shrink);
      else
        printf("  contact: bridge, radius %g x d grown up to %g x the facet's inner radius (at most 0.25 d), pairs "
               "closer than %g x d, walls %g x d\n",
               o.bridge_frac, o.bridge_fit, o.bridge_gap, o.wall_gap);
      printf("  volume: fluid as given %.6g (container %.6g less spheres %.6g); bridges %.4g (%+.3g %%), shrinking "
             "%.4g (%+.3g %%): model %.6g; mesh %.6g (relative difference %.2e)\n",
             v_ideal, st.vol_container, st.vol_solid, -st.bridge_volume, -100 * st.bridge_volume / v_ideal, st.vol_shrink,
             100 * st.vol_shrink / v_ideal, v_model, vol_mesh, v_rel);
      if (st.num_repaired_facets)
        printf("  repair: %d facet(s) folded; their vertices' clean-up redone in %d more round(s)\n", (int)st.num_repaired_facets,
               st.num_repair_rounds);
      if (st.num_ring_even)
        printf("  ring points: %d facet(s) kept even spacing on their fan's spokes or on every edge (at order %d "
               "the volume spacing lowered their worst element)\n",
               (int)st.num_ring_even, order);
      if (st.num_edge_even)
        printf("  edge points: %d boundary edge(s) kept even spacing (at order %d the gap spacing lowered a "
               "facet's worst element)\n",
               (int)st.num_edge_even, order);
      if (o.aspect > 0)
        printf("  aspect: %d diagram edge(s) cut into more segments (+%d), rings sized for aspect ratio <= %g about "
               "contacts and near contacts; %d bridge(s) widened, %d near contact(s)' rings spread out to the facet\n",
               (int)st.num_cut_edges, (int)st.num_cut_segments, o.aspect, (int)st.num_wide_bridges, (int)st.num_spread_rings);
      if (o.smooth > 0)
        printf("  smoothed: %lld node move(s) kept in %d sweep(s) of the facets' inner nodes\n", (long long)st.num_smoothed_moves,
               o.smooth);
      printf("  boundaries:");
      for (int b = 1; b < m->num_bnames; b++) printf(" %d %s%s", b, m->bnames[b], b + 1 < m->num_bnames ? "," : "\n");
      printf("  order %d%s: %lld element(s) with det J <= 0; time %.3f s diagram + %.3f s mesh + %.3f s %s\n", order,
             m->lazy ? " (streamed: evaluated a block at a time)" : "", (long long)num_bad, st.t_diagram, st.t_mesh, t_curve,
             m->lazy ? "check" : "curving");
      if (tr.order)
        printf("  optimized at order %d, the moves carried to order %d: %lld element(s) held back in %d round(s); "
               "%.2f s\n",
               tr.order, order, tr.held, tr.rounds, tr.seconds);
      if (tr.order && topt.repair_sj > 0)
        printf("  --repair %g at order %d: %lld element(s) below it after the transfer, %lld in their patches, %lld "
               "after %d Newton step(s) in %d pass(es)\n",
               topt.repair_sj, order, tr.repair.repair_bad, tr.repair.repair_free, tr.repair.repair_after,
               tr.repair.repair_newton, tr.repair.repair_passes);
      for (int k = 0; k < c.num_out; k++) printf("wrote %s\n", c.out[k]);
    }
  }
  if (!rc && quality) rc = hx_cli_quality_report(m, &qo, &plot, c.json, NULL);
  hx_mesh_destroy(&m);
  hx_pebble_bed_destroy(&bed);
  return rc;
}
