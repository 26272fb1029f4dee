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

/* the memory of this machine (--assume-memory replaces it, for tests) */
static double machine_memory(double assume_memory) {
  return assume_memory > 0 ? assume_memory : (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

/* Would the whole order-N mesh of a bed of n spheres (at most ~600 elements a sphere,
   x and node ids at nd^3 nodes an element), shared by np ranks of which `host` run on this
   machine, need more than a quarter of its memory? */
static int order_n_too_big(hx_lid n, int order, int np, int host, double assume_memory) {
  double nd = order + 1, bytes = 600.0 * (double)n * host / np * nd * nd * nd * (3 * sizeof(double) + sizeof(hx_gid));
  double mem = machine_memory(assume_memory);
  return mem > 0 && bytes > 0.25 * mem;
}

/* The quality path's peak memory on one rank of np for the mesh the optimizer holds whole at
   `order` (the order-N mesh, or where the order-N mesh streams the order-3 copy) with the solve's,
   the transfer's and the repair's data. Measured peak RSS on one H200 host: held whole at N = 7
   pb67, c300 and c1000 3.5, 10.1 and 32.1 GB (75-82 bytes an order-N node; the peak in the
   transfer's set-up), at N = 3 pb67 and c300 0.9 and 2.2 GB (133-163 bytes a node); streamed at
   N = 7 c300 and c1000 2.7 and 8.1 GB (the order-3 solve's: 9.7-10.4 kB an element); taken as
   80 bytes a node and 6 kB an element, at 1,250 elements a sphere (pb67's 1,236.5, the most of
   the measured beds). */
static double quality_path_bytes(hx_lid n, int order, int np) {
  double nd = order + 1;
  return 1250.0 * (double)n / np * (80.0 * nd * nd * nd + 6000.0);
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
  hx_tmop_lower lower; /* the solve at order P (lower.order 0: none) */
  double seconds;      /* the order-P mesh, the solve, the transfer and the repair */
} transfer_stats;

/* the order-P copy of the bed and its solve (hx_tmop_lower_order's callbacks) */
typedef struct lower_ctx {
  hx_comm comm;
  const hx_pebble_bed *bed;
  const hx_pebble_opts *o;
  int P, quiet;
  hx_mesh *made; /* attempt 0's copy, made with the order-N mesh (hx_mesher_pebble_copy), or NULL */
} lower_ctx;

static int lower_copy(void *ctx, int attempt, hx_mesh **lo) {
  lower_ctx *l = ctx;
  if (attempt == 0 && l->made) {
    *lo = l->made, l->made = NULL;
    return HX_OK;
  }
  hx_pebble_opts op;
  hx_pebble_stats st;
  hx_pebble_opts_lower(l->o, l->P, attempt, &op);
  return hx_mesher_pebble(l->comm, l->bed, &op, lo, &st);
}

static int lower_solve(void *ctx, hx_mesh *lo, hx_tmop_opts *o) {
  const lower_ctx *l = ctx;
  return hx_cli_optimize(lo, o, l->quiet, "optimize");
}

/* --optimize-order P: TMOP on the same bed meshed at order P (the same elements: the
   tessellation does not depend on the order), then the moves carried to the order-N mesh m
   (hx_tmop_lower_order: interpolated, boundary nodes put back on their surfaces, held back where
   an element would end below min(--keep-sj, its value as meshed) or folded). The order-P copy
   samples the order-N mesh's own map (hx_pebble_opts_lower), so that both share one
   parametrization; where that copy folds at the solve's quadrature points (fewer points can miss
   a thin layer's curve), the order-P mesher's own guard places them; where that folds too,
   tr->lower.order stays 0 and the caller solves at order N. At order 7 the solve at the mesh's
   own order stops early: its quadrature at the GLL nodes lets steps fold elements between them,
   which the line search refuses. */
static int optimize_at_order(hx_comm comm, const hx_pebble_bed *bed, const hx_pebble_opts *o, hx_mesh *m, hx_mesh **made, int P,
                             hx_tmop_opts *topt, int user_qo, int quiet, transfer_stats *tr) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  lower_ctx l = {comm, bed, o, P, quiet, *made};
  *made = NULL;
  topt->log = !quiet && hx_comm_rank(comm) == 0 ? hx_cli_log() : NULL; /* the repair at order N: its Newton steps */
  int rc = hx_tmop_lower_order(m, topt, user_qo ? 0 : default_quad_order(o->order), lower_copy, lower_solve, &l, &tr->lower);
  hx_mesh_destroy(&l.made);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  tr->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  return rc;
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
    else if (!strcmp(w, "tmop")) continue; /* the optimizer's word (hx_cli_tmop_get reads it) */
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

/* --container cyl:R[,CX,CY] | box:X0,X1,Y0,Y1 | box into o */
static int container_parse(const char *flag, const char *v, hx_pebble_opts *o) {
  double p[4];
  int cnt;
  if (!strncmp(v, "cyl:", 4)) {
    HX_CALL(hx_cli_double_list(flag, v + 4, 3, &cnt, p));
    HX_CHECK(cnt == 1 || cnt == 3, HX_ERR_INPUT, "flag %s: expected cyl:R or cyl:R,CX,CY, got '%s'", flag, v);
    HX_CHECK(p[0] > 0, HX_ERR_INPUT, "flag %s: the cylinder radius must be positive, got '%s'", flag, v);
    o->container = HX_PEBBLE_CYLINDER;
    o->cyl_radius = p[0];
    if (cnt == 3) o->cx = p[1], o->cy = p[2];
  } else if (!strcmp(v, "box")) {
    o->container = HX_PEBBLE_BOX; /* just around the bed */
  } else if (!strncmp(v, "box:", 4)) {
    HX_CALL(hx_cli_double_list(flag, v + 4, 4, &cnt, p));
    HX_CHECK(cnt == 4 && p[1] > p[0] && p[3] > p[2], HX_ERR_INPUT,
             "flag %s: expected box:X0,X1,Y0,Y1 with X0 < X1, Y0 < Y1, got '%s'", flag, v);
    o->container = HX_PEBBLE_BOX;
    o->box_lo[0] = p[0], o->box_hi[0] = p[1], o->box_lo[1] = p[2], o->box_hi[1] = p[3];
  } else {
    return HX_ERROR(HX_ERR_INPUT, "flag %s: expected cyl:R[,CX,CY] or box:X0,X1,Y0,Y1, got '%s'", flag, v);
  }
  return HX_OK;
}

static int container_check(const char *flag, const char *v) {
  hx_pebble_opts o;
  hx_pebble_opts_default(&o);
  return container_parse(flag, v, &o);
}

static int pair_check(const char *flag, const char *v) {
  double len;
  int layers;
  return parse_pair(flag, v, &len, &layers);
}

static int debug_check(const char *flag, const char *v) {
  debug_text t;
  hx_pebble_opts o;
  hx_pebble_opts_default(&o);
  (void)flag;
  return debug_flag(v, &t, &o);
}

static int contact_check(const char *flag, const char *v) {
  if (!strcmp(v, "bridge") || !strcmp(v, "gap")) return HX_OK;
  return HX_ERROR(HX_ERR_INPUT, "flag %s: expected 'bridge' or 'gap', got '%s'", flag, v);
}

/* --timestep N | first | last into *given (0: the last snapshot) and *timestep */
static int timestep_parse(const char *flag, const char *v, int *given, int64_t *timestep) {
  char *e;
  long long t = strtoll(v, &e, 10);
  HX_CHECK(!strcmp(v, "last") || !strcmp(v, "first") || (e != v && !*e), HX_ERR_INPUT,
           "flag %s: expected a timestep number, first or last, got '%s'", flag, v);
  *given = strcmp(v, "last") != 0;
  *timestep = !strcmp(v, "first") ? HX_PARTICLES_FIRST : t;
  return HX_OK;
}

static int timestep_check(const char *flag, const char *v) {
  int given;
  int64_t t;
  return timestep_parse(flag, v, &given, &t);
}

static const hx_opt pebble_table[] = {
    HX_DBL("--radius", "R", NULL, 1e-300, 1e300, 0, "radius of the spheres given without one (in the mesh's units)"),
    HX_DBL("--scale", "S", "1", 1e-12, 1e12, 0, "multiply every length read from CENTRES by S (0.001: a file in mm)"),
    HX_STR("--timestep", "N|first|last", "last", 0, "the snapshot of a LAMMPS/LIGGGHTS dump to mesh", timestep_check),
    HX_STR("--container", "cyl:R[,CX,CY]|box:X0,X1,Y0,Y1|box", "auto", 0,
           "the container (auto: a cylinder just around the bed about z, or about the bed's x-y centre when that is more than "
           "a diameter away; box: a box just around the bed)",
           container_check),
    HX_DBL("--bottom", "Z", "auto", -1e300, 1e300, 0, "the bottom plane (auto: --plane-gap beyond the spheres)"),
    HX_DBL("--top", "Z", "auto", -1e300, 1e300, 0, "the top plane (auto: --plane-gap beyond the spheres)"),
    HX_DBL("--plane-gap", "F", "0.1", 0, 100, 0, "the automatic planes and container F x d beyond the spheres"),
    HX_STR("--inlet", "L[,N]", "0,4", 0, "extrude the bottom by length L in N layers", pair_check),
    HX_STR("--outlet", "L[,N]", "0,4", 0, "extrude the top by length L in N layers", pair_check),
    HX_INT("--layers", "N", "3", 1, 64, 0, "radial layers between the facets and the spheres"),
    HX_DBL("--ratio", "G", "1.5", 0.1, 10, 0, "growth ratio of the radial layers away from the sphere"),
    {"--contact", NULL, HX_OPT_CHOICE, NULL, "bridge", 0, 0, 1, 1, "bridge|gap", 0,
     "where spheres touch: a solid bridge joins close pairs, or the spheres are shrunk to a gap (docs/pebble.md)", contact_check},
    HX_DBL("--aspect", "A", "0", 0, 1000, 0,
           "size the tessellation about contacts and walls for aspect ratio <= about A, e.g. 20 (0: off)"),
    HX_FLAG("--fast", 0,
            "the quick path for very large beds, below the quality goals: --ratio 1.5 --score corner --aspect 0 "
            "--grade-expand 0 --keep-aspect auto and no optimizer (any of these given as well wins; docs/pebble.md)"),
    HX_FLAG("--quality", 0, "print the quality report of the order-N mesh (also --plot, --plot-slice, --slice, --worst)"),
    HX_FLAG("--optimize", 0,
            "TMOP after meshing, boundary nodes sliding on their surfaces (the optimizer flags below): on unless --fast"),
    HX_FLAG("--no-optimize", 0, "the mesh as the mesher makes it, without the optimizer"),
    HX_FLAG("--stream", 0,
            "never hold the whole order-N mesh: a block of elements at a time (by itself with the optimizer solving below "
            "order N, its order-3 copy whole, and where the whole mesh would not fit)"),
    HX_FLAG("--no-stream", HX_OPT_EXPERT,
            "hold the whole order-N mesh (the optimizer's transfer and repair at order N on it; the same nodes, more memory)"),
    HX_DBL("--extrude-ratio", "G", "1", 0.1, 10, HX_OPT_EXPERT, "growth of the extruded layers away from the bed"),
    HX_DBL("--first-layer", "F", NULL, 1e-6, 0.999, HX_OPT_EXPERT,
           "first radial layer as a fraction of the column (overrides --ratio)"),
    HX_DBL("--grade-height", "H", "0", 0, 2, HX_OPT_EXPERT,
           "columns shorter than H x d graded less, evenly at height 0 (0: off)"),
    HX_DBL("--grade-expand", "T", "0", 0, 10, HX_OPT_EXPERT,
           "columns taller than T x d: layers grow at least as the column widens, full from 2T (0: off)"),
    HX_DBL("--contact-gap", "F", "0.01", 1e-4, 0.2, HX_OPT_EXPERT,
           "gap model: the gap, a fraction of the pair's smaller diameter"),
    HX_CHOICE("--contact-layers", "swept|one", "swept", HX_OPT_EXPERT,
              "bridge model, --layers 3: the ring on a bridge's circle swept in --layers layers, or one layer joined to "
              "them by a ring of transition columns"),
    HX_CHOICE("--contact-shrink", "local|uniform", "local", HX_OPT_EXPERT,
              "gap model: shrink each sphere by what its own closest contact needs, or every sphere by one factor"),
    HX_DBL("--bridge", "F", "0.1", 0.01, 0.4, HX_OPT_EXPERT, "bridge model: bridge radius as a fraction of d"),
    HX_DBL("--bridge-gap", "F", "auto", 0, 1, HX_OPT_EXPERT,
           "bridge model: bridge pairs whose gap is below F x d (auto: 0.02, 0.04 with --aspect)"),
    HX_DBL("--wall-gap", "F", "auto", 0, 1, HX_OPT_EXPERT,
           "bridge model: bridge sphere-wall gaps below F x d (auto: --bridge-gap)"),
    HX_DBL("--bridge-fit", "F", "0.5", 0, 0.8, HX_OPT_EXPERT,
           "bridge model: bridge radius up to F x the facet's inner radius, at most 0.25 d (0: --bridge)"),
    HX_DBL("--collapse", "F", "0.2", 0, 0.5, HX_OPT_EXPERT, "collapse Voronoi edges shorter than F x d"),
    HX_DBL("--overlap-tol", "F", "0.1", 0, 0.3, HX_OPT_EXPERT, "largest accepted overlap, a fraction of d"),
    HX_INT("--rings", "K", "1", 0, 8, HX_OPT_EXPERT, "extra quad rings around bridges and near contacts"),
    HX_DBL("--ring-gap", "F", "0.25", 0, 10, HX_OPT_EXPERT, "near contacts (gap < F x d) get the rings too"),
    HX_DBL("--ring-sj", "S", "0.1", 0, 0.9, HX_OPT_EXPERT,
           "rings spaced and counted for an estimated det J ratio >= S per ring (0: always --rings rings)"),
    HX_DBL("--accept-sj", "Q", "0.3", 0, 1, HX_OPT_EXPERT,
           "keep a facet's first tessellation whose columns reach corner scaled Jacobian Q (0: the first not inverted)"),
    HX_CHOICE("--score", "corner|nek", "corner", HX_OPT_EXPERT,
              "the variant scoring maximizes the corner scaled Jacobian, or also the Nek5000 min/max det J ratio"),
    HX_INT("--split", "K", "1", 1, 8, HX_OPT_EXPERT, "cut every facet quad into K x K"),
    HX_INT("--smooth", "S", "auto", 0, 1000, HX_OPT_EXPERT,
           "sweeps of a max-min optimization of the facets' inner nodes (auto: 10 with --optimize or --aspect unless --split, "
           "else 0)"),
    HX_CHOICE("--radial", "auto|volume|linear", "auto", HX_OPT_EXPERT,
              "GLL points of a radial layer spaced for equal cone volumes or evenly (auto: volume from order 3)"),
    HX_CHOICE("--ring-points", "auto|volume|linear", "auto", HX_OPT_EXPERT,
              "GLL points along the rings' radial edges spaced by distance x gap or evenly (auto: volume from order 3)"),
    HX_CHOICE("--edge-points", "auto|volume|linear", "auto", HX_OPT_EXPERT,
              "GLL points along the diagram's edges spaced by the gap or evenly (auto: volume from order 3)"),
    HX_INT("--optimize-order", "P", "auto", 1, HX_MAX_ORDER, HX_OPT_EXPERT,
           "solve at order P on the bed meshed by the order-N map, then carry the moves to order N (auto: min(N, 3))"),
    HX_DBL("--repair-final", "S", "auto", 0, 1, HX_OPT_EXPERT,
           "the repair at order N after the transfer: below S (auto: 0.3, the quality goal, unless --repair; then its S)"),
    HX_DBL("--transfer-keep", "S", "0.3", 0, 1, HX_OPT_EXPERT,
           "hold the carried moves back from an element that would drop below min(S, its value as meshed) (0: off)"),
    HX_STR("--debug", "WHAT[,WHAT...]", NULL, HX_OPT_EXPERT,
           "diagnostics on stderr: facets, facet=F, classify[=1|2[,A]], elems=LIST, mem, tmop (docs/pebble.md)", debug_check),
    HX_DBL("--assume-memory", "B", NULL, 1, 1e30, HX_OPT_EXPERT,
           "the memory, in bytes, the automatic --stream choice takes (default: this machine's)"),
    {0},
};

/* The defaults of the two paths' flags (hx_pebble_opts_path): the quality path's (the optimizer
   on; on pb67 in its cylinder and three poured beds of 300 spheres at order 7, none below Nek
   scaled Jacobian 0.3 nor above aspect 20; docs/benchmarks.md), or --fast's, the mesher's own
   values with --keep-aspect auto (and no optimizer). A flag given as well wins either way. */
static void path_defaults(hx_optset *s, int quality) {
  hx_pebble_opts p;
  hx_pebble_opts_default(&p);
  hx_pebble_opts_path(&p, quality);
  hx_opts_default_double(s, "--ratio", p.ratio);
  hx_opts_default(s, "--score", p.score_nek ? "nek" : "corner");
  hx_opts_default_double(s, "--aspect", p.aspect);
  hx_opts_default_double(s, "--grade-expand", p.grade_expand);
  if (quality) hx_opts_default_double(s, "--keep-aspect", HX_PEBBLE_QUALITY_KEEP_ASPECT);
  else hx_opts_default(s, "--keep-aspect", "auto");
}

void hx_cmd_pebble_opts(hx_optset *s) {
  hx_opts_init(s, "pebble", "pebble CENTRES [options] -o OUT...",
               "A curved all-hex mesh of the fluid between packed spheres. CENTRES: one sphere a line, 'x y z' or\n"
               "'x y z r'; '#' comments; or a packing from a DEM code, told from its content: a LAMMPS/LIGGGHTS dump\n"
               "(ITEM: ATOMS id type x y z radius ...), a CSV table with a header (x,y,z,r / radius / diameter), a\n"
               "particle .vtu/.vtp/.vtk file. By default the mesh is made for the quality goals (every element's Nek5000\n"
               "scaled Jacobian >= 0.3, aspect ratio <= 20): the tessellation sized for them, then the optimizer with the\n"
               "defaults listed here; --fast is the quick path for very large beds. See docs/pebble.md for the contact\n"
               "models, the grading and the optimizer.");
  hx_opts_add(s, pebble_table);
  hx_opts_add(s, hx_cli_output_table);
  hx_opts_default(s, "--order", "7");
  hx_tmop_opts topt;
  hx_cli_tmop_add(s);
  hx_cli_tmop_sj_defaults(s, &topt);
  hx_opts_default(s, "--detj-check", "auto-fine");
  /* the bed's solves keep Jacobi: with the two-level preconditioner pb67 ended with elements
     below the quality goal and p300 took longer (benchmarks.md section 6) */
  hx_opts_default(s, "--precond", "jacobi");
  hx_opts_default(s, "--quad-order", "auto");
  hx_opts_help_line(s, "--quad-order", "quadrature exact for order Q (auto: 2P - 2 at the solve's order P, at least 8)");
  hx_opts_help_line(s, "--keep-aspect",
                    "the same for an element whose aspect ratio rose above max(A, its value as meshed) (auto, with --fast: "
                    "--aspect's A)");
  hx_opts_default(s, "--repair", "auto");
  hx_opts_help_line(s, "--repair",
                    "then solve again in patches of R rings about the elements below scaled Jacobian S, weight W, K steps "
                    "(auto: 0.3 in 2 rings, 0.4 in 3 with --aspect; again at order N after the transfer)");
  hx_opts_add(s, hx_cli_quality_table);
  hx_opts_default(s, "--worst", "5");
  /* the mesher's defaults as they are in code */
  hx_pebble_opts d;
  hx_pebble_opts_default(&d);
  hx_opts_default_double(s, "--plane-gap", d.plane_gap);
  hx_opts_default_int(s, "--layers", d.layers);
  hx_opts_default_double(s, "--extrude-ratio", d.extrude_ratio);
  hx_opts_default_double(s, "--contact-gap", d.contact_gap);
  hx_opts_default_double(s, "--bridge", d.bridge_frac);
  hx_opts_default_double(s, "--bridge-fit", d.bridge_fit);
  hx_opts_default_double(s, "--collapse", d.collapse);
  hx_opts_default_double(s, "--overlap-tol", d.overlap_tol);
  hx_opts_default_int(s, "--rings", d.rings);
  hx_opts_default_double(s, "--ring-gap", d.ring_gap);
  hx_opts_default_double(s, "--ring-sj", d.ring_sj);
  hx_opts_default_double(s, "--accept-sj", d.accept_sj);
  hx_opts_default_int(s, "--split", d.split);
  path_defaults(s, 1);
  s->epilog = "Boundary ids, contiguous from 1 in this order where present: pebble, chamfer, wall, inlet, outlet.";
}

/* pebble, and demo (demo: the bundled bed instead of a centres file, its quality report always) */
static int pebble_run(hx_comm comm, void (*opts)(hx_optset *), int demo, int argc, char **argv) {
  hx_optset s;
  opts(&s);
  hx_pebble_opts o;
  hx_pebble_opts_default(&o);
  o.smooth = -1; /* below: 10 with --optimize or --aspect (unless --split), else 0 */
  hx_cli_plot plot = {0};
  int quality = 0, no_raise = 0, whole = 0, tquiet = 0, opt_order = 0, user_tk = 0, user_rf = 0;
  const char *bridge_flag = NULL, *gap_flag = NULL; /* a bridge-model flag given, a gap-model flag given */
  double assume_memory = 0; /* --assume-memory: the memory the --stream choice takes (0: this machine's) */
  hx_tmop_opts topt;
  hx_tmop_opts_default(&topt);
  /* the pebble mesh's own optimizer defaults, aimed at the Nek5000 scaled Jacobian (min / max
     det J in each element): the size metric with each element's own volume as target evens
     det J out inside elements, every element counts alike (the small ones at contacts too),
     and no element ends below min(0.1, its value as meshed) */
  hx_cli_tmop_sj_defaults(&s, &topt);
  topt.keep_aspect = -1; /* below: --aspect's limit, unless --keep-aspect */
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
  topt.quad_order = 0; /* below: the GLL nodes themselves from order 5 (the points of the scaled Jacobian) */
  hx_quality_opts qo;
  hx_quality_opts_default(&qo);
  double radius = 0, scale = 1;
  int ts_given = 0;
  int64_t timestep = 0;
  debug_text dbg;
  /* --fast: its flags' values first, so that the same flags given anywhere override them */
  int fast = 0;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--fast")) fast = 1;
  if (fast) path_defaults(&s, 0);
  HX_CALL(hx_opts_parse(&s, argc, argv, 1));
  if (s.stop) return HX_OK;
  hx_cli_common c;
  HX_CALL(hx_cli_common_get(&s, &c));
  /* the optimizer: on unless --fast or --no-optimize; --optimize adds it to --fast */
  int opt_given = c.optimize, no_opt = hx_opts_given(&s, "--no-optimize") > 0;
  HX_CHECK(!(opt_given && no_opt), HX_ERR_INPUT, "flags --optimize and --no-optimize: give one of them");
  c.optimize = opt_given || (!fast && !no_opt);
  if (demo && c.num_out == 0) c.out[c.num_out++] = hx_opts_str(&s, "--output");
  HX_CALL(hx_cli_tmop_get(&s, &topt, &tquiet));
  HX_CALL(hx_cli_quality_get(&s, &qo, &plot));
  HX_CHECK(!demo || !s.num_args, HX_ERR_INPUT, "demo takes no file argument, got '%s' (outputs: -o FILE)", s.args[0]);
  HX_CHECK(s.num_args <= 1, HX_ERR_INPUT, "pebble: one centres file expected, got '%s' and '%s'", s.args[0], s.args[1]);
  const char *centres = s.num_args ? s.args[0] : NULL;
  if (!demo) { /* the demo's bed is bundled: no flag of a centres file */
    hx_opts_double(&s, "--radius", &radius);
    hx_opts_double(&s, "--scale", &scale);
    HX_CALL(timestep_parse("--timestep", hx_opts_str(&s, "--timestep"), &ts_given, &timestep));
  }
  if (strcmp(hx_opts_str(&s, "--container"), "auto")) HX_CALL(container_parse("--container", hx_opts_str(&s, "--container"), &o));
  hx_opts_double(&s, "--bottom", &o.zlo);
  hx_opts_double(&s, "--top", &o.zhi);
  hx_opts_double(&s, "--plane-gap", &o.plane_gap);
  HX_CALL(parse_pair("--inlet", hx_opts_str(&s, "--inlet"), &o.inlet_len, &o.inlet_layers));
  HX_CALL(parse_pair("--outlet", hx_opts_str(&s, "--outlet"), &o.outlet_len, &o.outlet_layers));
  hx_opts_int(&s, "--layers", &o.layers);
  hx_opts_double(&s, "--ratio", &o.ratio);
  o.contact = hx_opts_choice(&s, "--contact") == 1 ? HX_PEBBLE_GAP : HX_PEBBLE_BRIDGE;
  hx_opts_double(&s, "--aspect", &o.aspect);
  quality = hx_opts_given(&s, "--quality") || hx_opts_given(&s, "--plot") || hx_opts_given(&s, "--plot-slice") ||
            hx_opts_given(&s, "--slice") || hx_opts_given(&s, "--worst") || hx_opts_given(&s, "--quad-points");
  no_raise = hx_opts_given(&s, "--stream") > 0;
  whole = hx_opts_given(&s, "--no-stream") > 0;
  hx_opts_double(&s, "--extrude-ratio", &o.extrude_ratio);
  hx_opts_double(&s, "--first-layer", &o.first_layer);
  hx_opts_double(&s, "--grade-height", &o.grade_height);
  hx_opts_double(&s, "--grade-expand", &o.grade_expand);
  hx_opts_double(&s, "--contact-gap", &o.contact_gap);
  o.contact_layers = hx_opts_choice(&s, "--contact-layers") == 1;
  o.contact_shrink = hx_opts_choice(&s, "--contact-shrink") == 1 ? HX_PEBBLE_SHRINK_UNIFORM : HX_PEBBLE_SHRINK_LOCAL;
  static const char *const gap_flags[] = {"--contact-gap", "--contact-shrink"};
  static const char *const bridge_flags[] = {"--bridge", "--bridge-gap", "--wall-gap", "--bridge-fit"};
  for (int k = 0; k < 2; k++)
    if (hx_opts_given(&s, gap_flags[k])) gap_flag = gap_flags[k];
  for (int k = 0; k < 4; k++)
    if (hx_opts_given(&s, bridge_flags[k])) bridge_flag = bridge_flags[k];
  hx_opts_double(&s, "--bridge", &o.bridge_frac);
  hx_opts_double(&s, "--bridge-gap", &o.bridge_gap);
  hx_opts_double(&s, "--wall-gap", &o.wall_gap);
  hx_opts_double(&s, "--bridge-fit", &o.bridge_fit);
  hx_opts_double(&s, "--collapse", &o.collapse);
  hx_opts_double(&s, "--overlap-tol", &o.overlap_tol);
  hx_opts_int(&s, "--rings", &o.rings);
  hx_opts_double(&s, "--ring-gap", &o.ring_gap);
  hx_opts_double(&s, "--ring-sj", &o.ring_sj);
  hx_opts_double(&s, "--accept-sj", &o.accept_sj);
  o.score_nek = hx_opts_choice(&s, "--score") == 1;
  hx_opts_int(&s, "--split", &o.split);
  hx_opts_int(&s, "--smooth", &o.smooth);
  static const int spacing[3] = {-1, 1, 0}; /* auto, volume, linear */
  o.radial_volume = spacing[hx_opts_choice(&s, "--radial")];
  o.ring_volume = spacing[hx_opts_choice(&s, "--ring-points")];
  o.edge_volume = spacing[hx_opts_choice(&s, "--edge-points")];
  hx_opts_int(&s, "--optimize-order", &opt_order);
  user_tk = hx_opts_given(&s, "--transfer-keep") > 0;
  user_rf = hx_opts_given(&s, "--repair-final") > 0;
  hx_opts_double(&s, "--repair-final", &topt.repair_final_sj);
  hx_opts_double(&s, "--transfer-keep", &topt.transfer_keep);
  if (hx_opts_given(&s, "--debug")) HX_CALL(debug_flag(hx_opts_str(&s, "--debug"), &dbg, &o));
  hx_opts_double(&s, "--assume-memory", &assume_memory);
  HX_CHECK(centres || demo, HX_ERR_INPUT, "pebble: no centres file given (hexpack pebble CENTRES [options] -o OUT)");
  HX_CHECK(!(o.contact == HX_PEBBLE_GAP && bridge_flag), HX_ERR_INPUT,
           "flag %s: a bridge model's parameter, but --contact gap makes no bridge", bridge_flag);
  HX_CHECK(!(o.contact == HX_PEBBLE_BRIDGE && gap_flag), HX_ERR_INPUT, "flag %s: a gap model's parameter; add --contact gap",
           gap_flag);
  HX_CHECK(!(no_raise && whole), HX_ERR_INPUT, "flag --no-stream: holds the whole order-N mesh, which --stream never does");
  HX_CALL(hx_cli_plot_check(&plot));
  int order = c.order ? c.order : 7;
  const char *needs_opt = "only with the optimizer (off with --fast or --no-optimize; --optimize adds it to --fast)";
  HX_CHECK(!opt_order || c.optimize, HX_ERR_INPUT, "flag --optimize-order: %s", needs_opt);
  HX_CHECK(opt_order <= order, HX_ERR_INPUT, "flag --optimize-order: %d is above the mesh's order %d", opt_order, order);
  HX_CHECK(!user_tk || c.optimize, HX_ERR_INPUT, "flag --transfer-keep: %s", needs_opt);
  HX_CHECK(!user_rf || c.optimize, HX_ERR_INPUT, "flag --repair-final: %s", needs_opt);
  /* the repair at order N (after the transfer): the goal of 0.3 itself. --repair's 0.4 with --aspect is
     a margin for the transfer that follows the order-P repair; at order N no transfer follows, and
     below 0.4 its patches held 5 x as many elements (c30 at order 7: 264 against 53 elements to
     raise, 268 s against 88 s for the first pass on the 2-core VM) */
  if (!user_rf) topt.repair_final_sj = topt.repair_sj < 0 ? 0.3 : topt.repair_sj;
  if (topt.repair_sj < 0) topt.repair_sj = o.aspect > 0 ? 0.4 : 0.3;
  if (topt.repair_rings < 0) topt.repair_rings = o.aspect > 0 ? 3 : 2;
  if (topt.keep_aspect < 0) topt.keep_aspect = o.aspect; /* with --aspect A: no move takes an element above max(A, as meshed) */
  /* the smoothing serves the optimizer (which lifts the quads it leaves below 0.3) and --aspect:
     pb67 at order 7 --optimize, below 0.1 / 0.3: 94 / 1,176 -> 28 / 715; --aspect 20: worst
     0.066 -> 0.195 (H200) */
  if (o.smooth < 0) o.smooth = (o.aspect > 0 || c.optimize) && o.split <= 1 ? 10 : 0;
  int solve_order = opt_order ? opt_order : order > 3 ? 3 : order, user_qo = topt.quad_order != 0;
  /* the optimizer solves at order N where N <= 3 (or --optimize-order N): it then holds the whole
     order-N mesh; below N only the order-P copy is whole, and the order-N mesh may stream */
  HX_CHECK(!(c.optimize && no_raise && solve_order >= order), HX_ERR_INPUT,
           "flag --stream: the optimizer solves at the mesh's order %d here (order 3 or lower, or --optimize-order %d) and "
           "needs the whole order-N mesh; add --fast or --no-optimize",
           order, order);
  if (!topt.quad_order) topt.quad_order = default_quad_order(solve_order);
  /* check every output (format, its limits at this order, directory) before any work */
  HX_CALL(hx_cli_check_outputs(comm, &c, order));
  hx_pebble_bed *bed = NULL;
  if (demo) HX_CALL(hx_pebble_bed_create(hx_pb67_count, &hx_pb67_xyz[0][0], NULL, hx_pb67_radius, &bed));
  else HX_CALL(read_bed(centres, radius, scale, ts_given, timestep, &bed));
  int rc = hx_pebble_opts_finish(&o, bed);
  if (!rc) rc = hx_pebble_bed_check(bed, &o);
  hx_mesh *m = NULL, *made = NULL; /* made: the order-P copy for --optimize */
  hx_pebble_stats st;
  if (!rc) {
    /* the mesher places the order-N nodes by its own sweep map: the whole mesh, or an order-1
       mesh carrying the map, evaluated a block at a time by the optimizer's transfer and repair,
       the check, the quality report and the writers (hx_mesh_lazy): with the optimizer solving
       below order N (the same nodes as the whole mesh, a quarter of the memory and less time: c1000
       at N = 7 on one H200, 8.1 against 32.0 GB, 74.5 against 89.2 s), with --stream, and
       without the optimizer where the order-N mesh is above a quarter of the memory */
    o.order = order;
    int np = hx_comm_size(comm), host = 1; /* host: the ranks on this machine, sharing its memory */
    rc = hx_comm_host_size(comm, &host);
    double need = quality_path_bytes(bed->n, order, np) * host, mem = machine_memory(assume_memory);
    int64_t choice[2] = {order > 1 && order_n_too_big(bed->n, order, np, host, assume_memory),
                         c.optimize && !opt_given && mem > 0 && need > 0.75 * mem};
    if (!rc) rc = hx_comm_max_int64(comm, choice, 2); /* one choice for all ranks (their memories may differ) */
    /* the quality path holds the whole order-N mesh where it solves at order N (N <= 3, or
       --optimize-order N) and with --no-stream or (without --stream) --debug classify (a report of
       the whole mesh); where that would not fit, the user chooses */
    int carried = c.optimize && solve_order < order;
    o.lazy = order > 1 && !whole && (c.optimize ? carried && (no_raise || !o.debug.classify) : no_raise || choice[0]);
    if (!rc && choice[1] && !o.lazy)
      rc = HX_ERROR(HX_ERR_INPUT,
                    "pebble: the quality path holds the order-%d mesh of %lld spheres whole, about %.3g GB for the %d "
                    "rank(s) on this machine, more than 3/4 of its memory (%.3g GB): add --fast (streamed, below the "
                    "quality goals), run on more machines, or give --optimize to try anyway",
                    order, (long long)bed->n, need / 1e9, host, mem / 1e9);
    need = quality_path_bytes(bed->n, solve_order, np) * host;
    if (!rc && o.lazy && c.optimize && !opt_given && mem > 0 && need > 0.75 * mem)
      rc = HX_ERROR(HX_ERR_INPUT,
                    "pebble: the streamed quality path holds the order-%d copy of %lld spheres whole, about %.3g GB for "
                    "the %d rank(s) on this machine, more than 3/4 of its memory (%.3g GB): add --fast (below the quality "
                    "goals), run on more machines, or give --optimize to try anyway",
                    solve_order, (long long)bed->n, need / 1e9, host, mem / 1e9);
    /* with --optimize below order N, the order-P copy comes from the same tessellation */
    int P = c.optimize && solve_order > 1 && solve_order < order ? solve_order : 0;
    if (!rc) rc = hx_mesher_pebble_copy(comm, bed, &o, P, &m, P ? &made : NULL, &st);
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
    hx_re2_guard guard = {0};
    if (!rc && c.optimize) rc = hx_cli_re2_guard_open(m, &c, &guard, &topt);
    if (!rc && c.optimize) {
      if (solve_order < order) {
        rc = optimize_at_order(comm, bed, &o, m, &made, solve_order, &topt, user_qo, tquiet || c.json, &tr);
        if (!rc && !tr.lower.order) { /* no valid order-P copy: solve at order N */
          if (!user_qo) topt.quad_order = default_quad_order(order);
          if (hx_comm_rank(comm) == 0)
            fprintf(hx_cli_log(), "optimize: the order-%d copy folds at its quadrature points; solving at order %d\n",
                    solve_order, order);
          solve_order = order;
        }
      }
      if (!rc && !tr.lower.order && m->lazy)
        rc = HX_ERROR(HX_ERR_INVALID_MESH,
                      "optimize: the order-%d copy folds at its quadrature points, and the streamed order-%d mesh cannot be "
                      "solved at its own order: give --optimize-order, or --no-optimize",
                      solve_order, order);
      else if (!rc && !tr.lower.order) rc = hx_cli_optimize(m, &topt, tquiet || c.json, "optimize");
      hx_re2_guard_close(&guard, &topt.elem_ok, &topt.elem_ok_ctx);
      hx_mesh_check_report rep;
      if (!rc) rc = m->lazy ? hx_mesh_check_lazy(m, 1e-12, &rep) : hx_mesh_check(m, 1e-12, &rep);
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
    {
      hx_cli_json_add(
          "\"contact\": \"%s\", \"contact_gap\": %g, \"contact_shrink\": \"%s\", "
          "\"shrunk_spheres\": %d, \"shrink_max\": %.6e, \"shrink_mean\": %.6e, \"volume_container\": %.10e, "
          "\"volume_spheres\": %.10e, \"volume_fluid_ideal\": %.10e, \"volume_bridges\": %.10e, \"volume_shrink\": %.10e, "
          "\"volume_fluid_model\": %.10e, \"volume_mesh\": %.10e, \"volume_mesh_rel\": %.3e",
          contact, o.contact == HX_PEBBLE_GAP ? o.contact_gap : 0.0, shrink, (int)st.num_shrunk, st.max_shrink, st.mean_shrink,
          st.vol_container, st.vol_solid, v_ideal, st.bridge_volume, st.vol_shrink, v_model, vol_mesh, v_rel);
      hx_cli_json_add(
          "\"spheres\": %d, \"elements\": %lld, \"bulk\": %d, \"inlet\": %d, "
          "\"outlet\": %d, \"per_pebble_bulk\": %.2f, \"bridges\": %d, \"wall_bridges\": %d, \"overlaps\": %d, "
          "\"facets\": %d, \"collapsed_edges\": %d, \"negligible_facets\": %d, \"dropped_facets\": %d, "
          "\"repaired_facets\": %d, \"repair_rounds\": %d, \"smoothed_moves\": %lld, \"ring_even_facets\": %d, "
          "\"edge_even_segments\": %d, "
          "\"contact_layers\": \"%s\", \"transition_facets\": %d, \"transition_elements\": %lld, "
          "\"aspect\": %g, \"cut_edges\": %d, \"arc_cut_edges\": %d, \"cut_segments\": %d, \"wide_bridges\": %d, "
          "\"spread_rings\": %d, "
          "\"bridge_gap\": %g, \"wall_gap\": %g, "
          "\"order\": %d, \"streamed\": %s, \"bad_elements\": %lld, \"bridge_volume\": %.6e, \"time_diagram\": %.3f, "
          "\"time_mesh\": %.3f, \"time_curve\": %.3f, \"optimize_order\": %d, \"transfer_keep\": %g, \"keep_aspect\": %g, "
          "\"transfer_held\": %lld, \"transfer_rounds\": %d, "
          "\"repair_sj\": %g, \"repair_rings\": %d, \"repair_final_sj\": %g, \"repair_below_order_n\": %lld, "
          "\"repair_after_order_n\": %lld, "
          "\"time_optimize_copy\": %.3f, \"time_optimize_solve\": %.3f, \"time_transfer\": %.3f, \"time_repair_order_n\": %.3f",
          (int)bed->n, (long long)m->num_elem_global, (int)st.elems_bulk, (int)st.elems_inlet, (int)st.elems_outlet, per,
          (int)st.num_bridges, (int)st.num_wall_bridges, (int)st.num_overlaps, (int)st.num_facets, (int)st.num_collapsed,
          (int)st.num_negligible, (int)st.num_dropped_facets, (int)st.num_repaired_facets, st.num_repair_rounds,
          (long long)st.num_smoothed_moves, (int)st.num_ring_even, (int)st.num_edge_even, o.contact_layers ? "one" : "swept",
          (int)st.num_trans_facets, (long long)st.num_trans_elems, o.aspect, (int)st.num_cut_edges, (int)st.num_arc_cut_edges,
          (int)st.num_cut_segments, (int)st.num_wide_bridges, (int)st.num_spread_rings, o.bridge_gap, o.wall_gap, order,
          m->lazy ? "true" : "false", (long long)num_bad, st.bridge_volume, st.t_diagram, st.t_mesh, t_curve,
          c.optimize ? solve_order : 0, c.optimize ? topt.transfer_keep : 0.0, c.optimize ? topt.keep_aspect : 0.0, tr.lower.held,
          tr.lower.rounds, c.optimize ? topt.repair_sj : 0.0, c.optimize ? topt.repair_rings : 0,
          c.optimize ? topt.repair_final_sj : 0.0, tr.lower.repair.repair_bad, tr.lower.repair.repair_after, tr.lower.time_copy,
          tr.lower.time_solve, tr.lower.time_transfer, tr.lower.repair.time_repair);
      hx_cli_json_outputs(&c);
    }
    FILE *log = hx_cli_log();
    if (demo)
      fprintf(log,
              "demo: 67-pebble bed (INL Virtual Test Bed), %lld elements (%d bulk = %.1f per pebble, %d inlet, %d "
              "outlet), order %d%s\n",
              (long long)m->num_elem_global, (int)st.elems_bulk, per, (int)st.elems_inlet, (int)st.elems_outlet, order,
              c.optimize ? ", optimized" : "");
    else
      fprintf(log, "pebble: %d spheres, %lld elements (bulk %d = %.1f per pebble, inlet %d, outlet %d)\n", (int)bed->n,
              (long long)m->num_elem_global, (int)st.elems_bulk, per, (int)st.elems_inlet, (int)st.elems_outlet);
    fprintf(log,
            "  diagram: %d facets (%d on walls), %d short edges collapsed (%d of negligible facets), %d facets "
            "dropped; bridges: %d sphere-sphere (%d overlapping), %d sphere-wall\n",
            (int)st.num_facets, (int)st.num_wall_facets, (int)st.num_collapsed, (int)st.num_negligible,
            (int)st.num_dropped_facets, (int)st.num_bridges, (int)st.num_overlaps, (int)st.num_wall_bridges);
    if (o.contact == HX_PEBBLE_GAP)
      fprintf(log,
              "  contact: gap %g x d: %d sphere(s) shrunk (%s), radius reduced by up to %.3g %% (mean over the bed "
              "%.3g %%); no bridge\n",
              o.contact_gap, (int)st.num_shrunk, shrink, 100 * st.max_shrink, 100 * st.mean_shrink);
    else
      fprintf(log,
              "  contact: bridge, radius %g x d grown up to %g x the facet's inner radius (at most 0.25 d), pairs "
              "closer than %g x d, walls %g x d\n",
              o.bridge_frac, o.bridge_fit, o.bridge_gap, o.wall_gap);
    fprintf(log,
            "  volume: fluid as given %.6g (container %.6g less spheres %.6g); bridges %.4g (%+.3g %%), shrinking "
            "%.4g (%+.3g %%): model %.6g; mesh %.6g (relative difference %.2e)\n",
            v_ideal, st.vol_container, st.vol_solid, -st.bridge_volume, -100 * st.bridge_volume / v_ideal, st.vol_shrink,
            100 * st.vol_shrink / v_ideal, v_model, vol_mesh, v_rel);
    if (st.num_repaired_facets)
      fprintf(log, "  repair: %d facet(s) folded; their vertices' clean-up redone in %d more round(s)\n",
              (int)st.num_repaired_facets, st.num_repair_rounds);
    if (st.num_arc_cut_edges)
      fprintf(log,
              "  wall arcs: %d cylinder edge(s) of folded wall facets cut into segments of at most 20 degrees, and the "
              "bed tessellated again\n",
              (int)st.num_arc_cut_edges);
    if (st.num_ring_even)
      fprintf(log,
              "  ring points: %d facet(s) kept even spacing on their fan's spokes or on every edge (at order %d "
              "the volume spacing lowered their worst element)\n",
              (int)st.num_ring_even, order);
    if (st.num_edge_even)
      fprintf(log,
              "  edge points: %d boundary edge(s) kept even spacing (at order %d the gap spacing lowered a "
              "facet's worst element)\n",
              (int)st.num_edge_even, order);
    if (o.aspect > 0)
      fprintf(log,
              "  aspect: %d diagram edge(s) cut into more segments (+%d), rings sized for aspect ratio <= %g about "
              "contacts and near contacts; %d bridge(s) widened, %d near contact(s)' rings spread out to the facet\n",
              (int)st.num_cut_edges, (int)st.num_cut_segments, o.aspect, (int)st.num_wide_bridges, (int)st.num_spread_rings);
    if (o.contact_layers)
      fprintf(log,
              "  contact layers: %d contact facet(s) with one layer on the ring about the contact and a ring of "
              "transition columns (%lld elements)\n",
              (int)st.num_trans_facets, (long long)st.num_trans_elems);
    if (o.smooth > 0)
      fprintf(log, "  smoothed: %lld node move(s) kept in %d sweep(s) of the facets' inner nodes\n",
              (long long)st.num_smoothed_moves, o.smooth);
    fprintf(log, "  boundaries:");
    for (int b = 1; b < m->num_bnames; b++) fprintf(log, " %d %s%s", b, m->bnames[b], b + 1 < m->num_bnames ? "," : "\n");
    fprintf(log, "  order %d%s: %lld element(s) with det J <= 0; time %.3f s diagram + %.3f s mesh + %.3f s %s\n", order,
            m->lazy ? " (streamed: evaluated a block at a time)" : "", (long long)num_bad, st.t_diagram, st.t_mesh, t_curve,
            m->lazy ? "check" : "curving");
    if (tr.lower.order)
      fprintf(log,
              "  optimized at order %d, the moves carried to order %d: %lld element(s) held back in %d round(s); "
              "%.2f s (the order-%d copy %.2f s, its optimization %.2f s, the transfer %.2f s, the repair at order %d "
              "%.2f s)\n",
              tr.lower.order, order, tr.lower.held, tr.lower.rounds, tr.seconds, tr.lower.order, tr.lower.time_copy,
              tr.lower.time_solve, tr.lower.time_transfer, order, tr.lower.repair.time_repair);
    if (tr.lower.order && topt.repair_final_sj > 0)
      fprintf(log,
              "  --repair-final %g at order %d: %lld element(s) below it after the transfer, %lld in their patches, %lld "
              "after %d Newton step(s) in %d pass(es)\n",
              topt.repair_final_sj, order, tr.lower.repair.repair_bad, tr.lower.repair.repair_free, tr.lower.repair.repair_after,
              tr.lower.repair.repair_newton, tr.lower.repair.repair_passes);
    for (int k = 0; k < c.num_out; k++) fprintf(log, "wrote %s\n", c.out[k]);
  }
  if (!rc && (quality || demo)) rc = hx_cli_quality_report(m, &qo, &plot, c.json ? 2 : 0, NULL);
  hx_mesh_destroy(&m);
  hx_mesh_destroy(&made); /* not used where the run stopped before the solve */
  hx_pebble_bed_destroy(&bed);
  return rc;
}

int hx_cmd_pebble(hx_comm comm, int argc, char **argv) { return pebble_run(comm, hx_cmd_pebble_opts, 0, argc, argv); }

/* hexpack demo: the bundled example end to end (the README's first command): the 67-pebble DEM
   bed (meshers/pebble/pb67_data.c, CC BY 4.0, INL Virtual Test Bed) in its cylinder with inlet
   and outlet sections, meshed as hexpack pebble meshes a bed (every pebble flag applies) at
   order 3, written to demo.vtu, and its quality report. */
void hx_cmd_demo_opts(hx_optset *s) {
  hx_cmd_pebble_opts(s);
  hx_opts_remove(s, "--radius");
  hx_opts_remove(s, "--scale");
  hx_opts_remove(s, "--timestep");
  s->cmd = "demo";
  s->usage = "demo [-o FILE]... [--order N] [--fast] [--plot FILE.png|FILE.svg] [--plot-slice FILE] [options]";
  s->about = "Meshes the bundled 67-pebble bed (INL Virtual Test Bed DEM packing, CC BY 4.0; R = 1.5 in a cylinder\n"
             "of radius 6.6, inlet/outlet sections of length 3) as hexpack pebble does, for the quality goals unless\n"
             "--fast, writes it to demo.vtu (or the -o files) and prints its quality report; --plot, --plot-slice and\n"
             "--slice draw its pictures as in hexpack quality. Every flag of hexpack pebble but those of a\n"
             "centres file applies.";
  hx_opts_default(s, "--container", "cyl:6.6");
  hx_opts_default(s, "--inlet", "3");
  hx_opts_default(s, "--outlet", "3");
  hx_opts_default(s, "--order", "3");
  hx_opts_default(s, "--output", "demo.vtu");
}

int hx_cmd_demo(hx_comm comm, int argc, char **argv) { return pebble_run(comm, hx_cmd_demo_opts, 1, argc, argv); }
