/* The public C API (include/hexpack.h): handles, errors, and each function as its command runs
   it (the meshers, the optimizer, the quality report and the writers, called as cli/ calls them). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "hx_config.h"
#include "hx_curve.h"
#include "hx_error.h"
#include "hx_memory.h"

_Static_assert((int)HEXPACK_ERR_INPUT == (int)HX_ERR_INPUT && (int)HEXPACK_ERR_IO == (int)HX_ERR_IO &&
                   (int)HEXPACK_ERR_INVALID_MESH == (int)HX_ERR_INVALID_MESH,
               "the public status codes are hx_status's");

/* Every entry point starts here: the last error forgotten, MPI started if the build has it and
   the caller has not (a mesh of the library lives on MPI_COMM_SELF). */
#if HX_HAVE_MPI
static void finalize_mpi(void) {
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
}
#endif

static int enter(void) {
  hx_error_clear();
#if HX_HAVE_MPI
  int up = 0, done = 0;
  MPI_Initialized(&up);
  if (!up) {
    MPI_Finalized(&done);
    HX_CHECK(!done, HX_ERR_MPI, "MPI was finalized before a hexpack call; hexpack needs it running");
    int provided;
    HX_CHECK(MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) == MPI_SUCCESS, HX_ERR_MPI,
             "MPI_Init_thread failed in the hexpack library");
    atexit(finalize_mpi);
  }
#endif
  return HX_OK;
}

const char *hexpack_version(void) { return HX_VERSION; }
const char *hexpack_last_error(void) { return hx_error_message(); }
const char *hexpack_status_name(int status) { return hx_status_name(status); }

/* ---- options ---- */

int hexpack_opts_create(hexpack_opts **out) {
  hx_error_clear();
  HX_CHECK(out, HX_ERR_INPUT, "hexpack_opts_create: out is NULL");
  *out = NULL;
  return hx_malloc(sizeof **out, out);
}

void hexpack_opts_destroy(hexpack_opts **o) {
  if (!o || !*o) return;
  for (int k = 0; k < (*o)->num; k++) hx_free(&(*o)->v[k].value);
  hx_free(o);
}

int hexpack_opts_set(hexpack_opts *o, const char *name, const char *value) {
  hx_error_clear();
  HX_CHECK(o, HX_ERR_INPUT, "hexpack_opts_set: the options are NULL");
  int def;
  HX_CALL(api_opt_check(name, value, &def));
  int k = 0;
  while (k < o->num && o->v[k].def != def) k++;
  HX_CHECK(k < API_MAX_OPTS, HX_ERR_INPUT, "hexpack_opts_set: more than %d options", API_MAX_OPTS);
  char *copy = NULL;
  HX_CALL(hx_malloc(strlen(value) + 1, &copy));
  memcpy(copy, value, strlen(value) + 1);
  if (k < o->num) hx_free(&o->v[k].value);
  o->v[k].def = def;
  o->v[k].value = copy;
  if (k == o->num) o->num++;
  return HX_OK;
}

int hexpack_opts_set_int(hexpack_opts *o, const char *name, long value) {
  char s[32];
  snprintf(s, sizeof s, "%ld", value);
  return hexpack_opts_set(o, name, s);
}

int hexpack_opts_set_double(hexpack_opts *o, const char *name, double value) {
  char s[40];
  snprintf(s, sizeof s, "%.17g", value);
  return hexpack_opts_set(o, name, s);
}

const char *hexpack_option_names(const char *what) {
  static const struct {
    const char *name;
    int op;
  } ops[] = {{"pebble", API_OP_PEBBLE},     {"box", API_OP_BOX},         {"rods", API_OP_RODS},  {"read", API_OP_READ},
             {"optimize", API_OP_OPTIMIZE}, {"quality", API_OP_QUALITY}, {"write", API_OP_WRITE}};
  for (size_t k = 0; what && k < sizeof ops / sizeof ops[0]; k++)
    if (!strcmp(what, ops[k].name)) return api_option_list(ops[k].op);
  return NULL;
}

/* ---- meshes ---- */

static int wrap(hx_mesh *m, int kind, hexpack_mesh **out) {
  int rc = hx_malloc(sizeof **out, out);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  (*out)->m = m;
  (*out)->kind = kind;
  return HX_OK;
}

void hexpack_mesh_destroy(hexpack_mesh **hm) {
  if (!hm || !*hm) return;
  hx_mesh_destroy(&(*hm)->m);
  hx_pebble_bed_destroy(&(*hm)->bed);
  hx_lmap_destroy(&(*hm)->lmap);
  hx_free(hm);
}

int hexpack_pebble(int64_t n, const double *centres, const double *radii, const hexpack_opts *o, hexpack_mesh **out) {
  HX_CALL(enter());
  HX_CHECK(out, HX_ERR_INPUT, "hexpack_pebble: out is NULL");
  *out = NULL;
  HX_CHECK(n >= 0 && n <= INT32_MAX, HX_ERR_INPUT, "pebble: the sphere count must be in 0..%d, got %lld", INT32_MAX,
           (long long)n);
  HX_CHECK(centres || n == 0, HX_ERR_INPUT, "pebble: no centres given");
  api_run r;
  api_run_defaults(&r, API_OP_PEBBLE, API_KIND_PEBBLE);
  HX_CALL(api_apply(o, API_OP_PEBBLE, "pebble", &r));
  hx_pebble_opts *po = &r.po;
  /* the command's checks of its flags, in its order */
  HX_CHECK(!(po->contact == HX_PEBBLE_GAP && r.bridge_flag), HX_ERR_INPUT,
           "option %s: a bridge model's parameter, but contact gap makes no bridge", r.bridge_flag);
  HX_CHECK(!(po->contact == HX_PEBBLE_BRIDGE && r.gap_flag), HX_ERR_INPUT, "option %s: a gap model's parameter; add contact gap",
           r.gap_flag);
  int order = r.order ? r.order : 7;
  /* the optimizer solving at order N holds the whole order-N mesh; below it the mesh may stream */
  HX_CHECK(!(r.optimize && r.stream && api_pebble_solve_order(&r, order) >= order), HX_ERR_INPUT,
           "options optimize and stream: the optimizer solves at the mesh's order %d here (order 3 or lower, or "
           "optimize-order %d) and needs the whole order-N mesh; give fast or optimize false",
           order, order);
  HX_CHECK(r.opt_order <= order, HX_ERR_INPUT, "option optimize-order: %d is above the mesh's order %d", r.opt_order, order);
  if (po->smooth < 0) po->smooth = (po->aspect > 0 || r.optimize) && po->split <= 1 ? 10 : 0;
  for (int64_t i = 0; radii && i < n; i++)
    HX_CHECK(radii[i] > 0 && isfinite(radii[i]), HX_ERR_INPUT, "pebble: sphere %lld: the radius must be positive, got %g",
             (long long)i, radii[i]);
  HX_CHECK(radii || r.radius > 0, HX_ERR_INPUT, "pebble: no radii given and no option radius");
  hx_pebble_bed *bed = NULL;
  HX_CALL(hx_pebble_bed_create((hx_lid)n, centres, radii, r.radius, &bed));
  int rc = hx_pebble_opts_finish(po, bed);
  if (!rc) rc = hx_pebble_bed_check(bed, po);
  hx_mesh *m = NULL;
  hx_pebble_stats st;
  if (!rc) {
    po->order = order;
    po->lazy = order > 1 && r.stream;
    /* with optimize below order N, the order-P copy comes from the same tessellation */
    int P = r.optimize ? api_pebble_solve_order(&r, order) : 0;
    if (P <= 1 || P >= order) P = 0;
    rc = hx_mesher_pebble_copy(HX_COMM_SELF, bed, po, P, &m, P ? &r.made : NULL, &st);
  }
  if (!rc) {
    hx_mesh_check_report rep;
    rc = m->lazy ? hx_mesh_check_lazy(m, 1e-12, &rep) : hx_mesh_check(m, 1e-12, &rep);
    if (rc && r.force) {
      hx_error_clear();
      rc = HX_OK;
    }
  }
  if (!rc) rc = wrap(m, API_KIND_PEBBLE, out), m = NULL;
  if (rc) {
    hx_mesh_destroy(&m);
    hx_mesh_destroy(&r.made);
    hx_pebble_bed_destroy(&bed);
    return rc;
  }
  hexpack_mesh *hm = *out;
  hm->bed = bed;
  hm->po = *po;
  hm->po.lazy = 0;
  hm->fast = r.fast;
  hm->opt_order = r.opt_order;
  hm->user_tk = r.user_tk;
  hm->transfer_keep = r.to.transfer_keep;
  if (r.optimize) rc = api_pebble_optimize(hm, &r);
  hx_mesh_destroy(&r.made);
  if (rc) hexpack_mesh_destroy(out);
  return rc;
}

int hexpack_box(const hexpack_opts *o, hexpack_mesh **out) {
  HX_CALL(enter());
  HX_CHECK(out, HX_ERR_INPUT, "hexpack_box: out is NULL");
  *out = NULL;
  api_run r;
  api_run_defaults(&r, API_OP_BOX, API_KIND_BOX);
  HX_CALL(api_apply(o, API_OP_BOX, "box", &r));
  hx_box_opts *bo = &r.bo;
  if (r.order) bo->order = r.order;
  for (int d = 0; d < 3; d++) {
    double ext = bo->hi[d] - bo->lo[d], big = fmax(fabs(bo->lo[d]), fabs(bo->hi[d]));
    HX_CHECK(ext > 0, HX_ERR_INPUT, "options lo/hi: the box extent in %c must be positive, got %g..%g", "xyz"[d], bo -> lo[d],
             bo -> hi[d]);
    HX_CHECK(ext >= 1e-30 && ext >= 1e-9 * big, HX_ERR_INPUT,
             "options lo/hi: the box extent in %c, %g, is too small for double-precision geometry (at least 1e-30 and 1e-9 "
             "of |coordinate| %g)",
             "xyz"[d], ext, big);
  }
  hx_mesh *m = NULL;
  HX_CALL(hx_mesher_box(HX_COMM_SELF, bo, &m));
  hx_mesh_check_report rep;
  int rc = hx_mesh_check(m, 1e-12, &rep);
  if (rc && !r.force) {
    hx_mesh_destroy(&m);
    return rc;
  }
  hx_error_clear();
  int checked = !rc;
  HX_CALL(wrap(m, API_KIND_BOX, out));
  (*out)->checked = checked;
  if (r.optimize) {
    rc = api_generic_optimize(*out, &r);
    if (rc) hexpack_mesh_destroy(out);
  }
  return rc;
}

int hexpack_rods(const hexpack_opts *o, hexpack_mesh **out) {
  HX_CALL(enter());
  HX_CHECK(out, HX_ERR_INPUT, "hexpack_rods: out is NULL");
  *out = NULL;
  api_run r;
  api_run_defaults(&r, API_OP_RODS, API_KIND_RODS);
  HX_CALL(api_apply(o, API_OP_RODS, "rods", &r));
  int order = r.order ? r.order : 1;
  r.ro.order = 1; /* the mesher builds corners; the order-N nodes come from the curving stage (rods and duct exact) */
  hx_mesh *m = NULL;
  hx_rods_info info;
  HX_CALL(hx_mesher_rods(HX_COMM_SELF, &r.ro, &m, &info));
  /* the command's checks: the invariants at order 1, then det J at order N (here on the whole
     raised mesh, where the command checks one layer: every layer is alike) */
  hx_mesh_check_report rep;
  int rc = m->num_elem_global <= 1000000 ? hx_mesh_check(m, 1e-12, &rep) : HX_OK;
  if (rc && r.force) hx_error_clear(), rc = HX_OK;
  if (!rc && order > 1) {
    hx_mesh *hi = NULL;
    rc = hx_mesh_raise_order(m, order, &hi);
    hx_mesh_destroy(&m);
    m = hi;
  }
  int checked = 0;
  if (!rc) {
    rc = hx_mesh_check(m, 1e-12, &rep);
    checked = !rc;
    if (rc && r.force) hx_error_clear(), rc = HX_OK;
  }
  if (!rc) rc = wrap(m, API_KIND_RODS, out), m = NULL;
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  (*out)->checked = checked;
  if (r.optimize) {
    rc = api_generic_optimize(*out, &r);
    if (rc) hexpack_mesh_destroy(out);
  }
  return rc;
}

int hexpack_read(const char *path, const hexpack_opts *o, hexpack_mesh **out) {
  HX_CALL(enter());
  HX_CHECK(out, HX_ERR_INPUT, "hexpack_read: out is NULL");
  *out = NULL;
  HX_CHECK(path, HX_ERR_INPUT, "hexpack_read: the path is NULL");
  api_run r;
  api_run_defaults(&r, API_OP_READ, 0);
  HX_CALL(api_apply(o, API_OP_READ, "read", &r));
  hx_mesh *m = NULL;
  hx_import_opts io = {r.force, 0};
  hx_read_check chk;
  HX_CALL(hx_import_ex(HX_COMM_SELF, path, &io, &m, &chk));
  return wrap(m, API_KIND_OTHER, out);
}

int hexpack_optimize(hexpack_mesh *hm, const hexpack_opts *o) {
  HX_CALL(enter());
  HX_CHECK(hm && hm->m, HX_ERR_INPUT, "hexpack_optimize: the mesh is NULL");
  int pebble = hm->kind == API_KIND_PEBBLE;
  api_run r;
  api_run_defaults(&r, API_OP_OPTIMIZE, hm->kind);
  if (pebble) { /* what the bed was meshed with stands unless given again */
    if (!hm->fast) r.to.keep_aspect = HX_PEBBLE_QUALITY_KEEP_ASPECT;
    r.opt_order = hm->opt_order;
    if (hm->user_tk) r.to.transfer_keep = hm->transfer_keep;
  }
  HX_CALL(api_apply(o, API_OP_OPTIMIZE, "optimize", &r));
  HX_CHECK(pebble || (!r.opt_order && !r.user_tk && !r.user_rf), HX_ERR_INPUT,
           "option %s: only for a mesh made by the pebble mesher",
           r.opt_order ? "optimize-order"
           : r.user_tk ? "transfer-keep"
                       : "repair-final");
  hx_lmap_destroy(&hm->lmap);
  return pebble ? api_pebble_optimize(hm, &r) : api_generic_optimize(hm, &r);
}

int hexpack_mesh_quality(const hexpack_mesh *hm, const hexpack_opts *o, hexpack_quality *q) {
  HX_CALL(enter());
  HX_CHECK(hm && hm->m && q, HX_ERR_INPUT, "hexpack_mesh_quality: the mesh or the result is NULL");
  api_run r;
  api_run_defaults(&r, API_OP_QUALITY, 0);
  HX_CALL(api_apply(o, API_OP_QUALITY, "quality", &r));
  hx_quality_report rep;
  HX_CALL(hx_quality_mesh(hm->m, &r.qo, NULL, &rep));
  memset(q, 0, sizeof *q);
  q->num_elem = rep.num_elem;
  q->order = rep.order;
  q->quad_points = rep.quad_points;
  q->num_inverted = rep.num_inverted;
  /* stat: detj_min, detj_max, detj_min_q, detj_max_q, scaled_jac, corner_sj, aspect, min_spacing */
  q->detj_min = rep.stat[0].min;
  q->detj_max = rep.stat[1].max;
  q->detj_min_quad = rep.stat[2].min;
  q->scaled_jacobian_min = rep.stat[4].min;
  q->scaled_jacobian_mean = rep.stat[4].mean;
  q->corner_sj_min = rep.stat[5].min;
  q->corner_sj_mean = rep.stat[5].mean;
  q->aspect_max = rep.stat[6].max;
  q->aspect_mean = rep.stat[6].mean;
  q->min_spacing = rep.stat[7].min;
  q->validity = rep.validity_checked ? rep.bound.verdict : 0;
  hx_quality_report_free(&rep);
  return HX_OK;
}

int hexpack_write_files(const hexpack_mesh *hm, const char *const *paths, int n, const hexpack_opts *o) {
  HX_CALL(enter());
  HX_CHECK(hm && hm->m, HX_ERR_INPUT, "hexpack_write: the mesh is NULL");
  HX_CHECK(n >= 0 && (paths || n == 0), HX_ERR_INPUT, "hexpack_write: no paths");
  for (int k = 0; k < n; k++) HX_CHECK(paths[k], HX_ERR_INPUT, "hexpack_write: path %d is NULL", k);
  api_run r;
  api_run_defaults(&r, API_OP_WRITE, 0);
  HX_CALL(api_apply(o, API_OP_WRITE, "write", &r));
  const hx_mesh *m = hm->m;
  hx_export_opts eo = r.eo;
  eo.force = r.force;
  int own = m->lazy ? m->lazy->order : m->order; /* a streamed mesh's order is its attached geometry's */
  eo.order = r.order ? r.order : own;
  eo.checked = hm->checked && eo.order == own;
  /* as the command line's outputs: every path's format, order and directory, then the estimated
     sizes against the free space, then one output set (all renamed once all are written) */
  HX_CALL(hx_export_check_paths(paths, n, eo.order));
  if (n) HX_CALL(hx_export_check_space(m, paths, n, &eo));
  hx_outset_begin();
  int rc = HX_OK;
  for (int k = 0; k < n && rc == HX_OK; k++) rc = hx_export(m, paths[k], &eo);
  return hx_outset_end(m->comm, rc);
}

int hexpack_write(const hexpack_mesh *hm, const char *path, const hexpack_opts *o) {
  return hexpack_write_files(hm, &path, 1, o);
}

/* ---- arrays ---- */

static int numbering(const hexpack_mesh *hm) {
  HX_CHECK(hm && hm->m, HX_ERR_INPUT, "hexpack mesh: the mesh is NULL");
  HX_CHECK(!hm->m->lazy, HX_ERR_INPUT,
           "hexpack mesh: a streamed mesh (option stream) holds no order-N nodes; mesh without stream for its arrays");
  hexpack_mesh *w = (hexpack_mesh *)hm; /* the numbering is a cache: the mesh itself stays as it is */
  if (!w->lmap) HX_CALL(hx_mesh_lnumbering(hm->m, &w->lmap));
  return HX_OK;
}

int hexpack_mesh_get_info(const hexpack_mesh *hm, hexpack_mesh_info *info) {
  hx_error_clear();
  HX_CHECK(info, HX_ERR_INPUT, "hexpack_mesh_get_info: info is NULL");
  HX_CALL(numbering(hm));
  const hx_mesh *m = hm->m;
  info->order = m->order;
  info->num_boundaries = m->num_bnames > 0 ? m->num_bnames - 1 : 0;
  info->num_elem = m->num_elem;
  info->num_nodes = hm->lmap->num_lnodes;
  info->num_faces = m->num_faces;
  return HX_OK;
}

int hexpack_mesh_nodes(const hexpack_mesh *hm, double *xyz) {
  hx_error_clear();
  HX_CALL(numbering(hm));
  HX_CHECK(xyz, HX_ERR_INPUT, "hexpack_mesh_nodes: xyz is NULL");
  const hx_mesh *m = hm->m;
  size_t npe = (size_t)hx_mesh_nodes_per_elem(m);
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int c = 0; c < 3; c++) {
      const double *x = hx_mesh_elem_x(m, e, c);
      for (size_t i = 0; i < npe; i++) xyz[(size_t)hm->lmap->e2l[(size_t)e * npe + i] * 3 + (size_t)c] = x[i];
    }
  return HX_OK;
}

int hexpack_mesh_elements(const hexpack_mesh *hm, int64_t *conn) {
  hx_error_clear();
  HX_CALL(numbering(hm));
  HX_CHECK(conn, HX_ERR_INPUT, "hexpack_mesh_elements: conn is NULL");
  size_t total = (size_t)hm->m->num_elem * (size_t)hx_mesh_nodes_per_elem(hm->m);
  for (size_t i = 0; i < total; i++) conn[i] = hm->lmap->e2l[i];
  return HX_OK;
}

int hexpack_mesh_faces(const hexpack_mesh *hm, int64_t *faces) {
  hx_error_clear();
  HX_CHECK(hm && hm->m && faces, HX_ERR_INPUT, "hexpack_mesh_faces: the mesh or faces is NULL");
  for (hx_lid k = 0; k < hm->m->num_faces; k++) {
    faces[3 * (size_t)k] = hm->m->faces[k].elem;
    faces[3 * (size_t)k + 1] = hm->m->faces[k].face;
    faces[3 * (size_t)k + 2] = hm->m->faces[k].bid;
  }
  return HX_OK;
}

const char *hexpack_mesh_boundary_name(const hexpack_mesh *hm, int bid) {
  if (!hm || !hm->m || bid < 1 || bid >= hm->m->num_bnames) return NULL;
  return hm->m->bnames[bid] ? hm->m->bnames[bid] : "";
}
