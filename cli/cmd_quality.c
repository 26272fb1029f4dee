/* hexpack quality MESH: the quality report of a mesh file (hx_quality.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_cli.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_memory.h"
#include "hx_plot.h"
#include "hx_quality.h"
#include "hx_slice.h"

static void quality_help(void) {
  printf("usage: hexpack quality MESH [--json] [--force] [--plot FILE.png|FILE.svg] [--plot-slice FILE]\n"
         "                         [--slice AXIS=VALUE] [--worst N] [--quad-order Q] [--quad-type gll|gauss]\n"
         "                         [--quad-points Q] [--validity | --no-validity]\n\n"
         "  MESH               any format with a reader (by extension)\n\n"
         "The first line is the verdict: valid, inverted (det J <= 0 somewhere) or broken (the read\n"
         "checks: non-finite coordinates, faces of three elements, duplicate elements, neighbours that\n"
         "disagree on a face's nodes, boundary records on interior faces, holes).\n\n"
         "  --json             print the report as JSON (its first field: \"verdict\")\n"
         "  --force            report on a mesh the read checks find broken (else refused)\n"
         "  --plot FILE        a slice through the mesh (see --slice) above histograms of the scaled\n"
         "                     Jacobians, det J min and aspect ratio (.png or .svg)\n"
         "  --plot-slice FILE  the slice alone, 800 pixels wide (.png or .svg)\n"
         "  --slice AXIS=V     the plane of the slice: x=V, y=V or z=V; the curved elements it cuts are\n"
         "                     drawn coloured by scaled Jacobian; default z at the middle of the mesh\n"
         "  --worst N          list the N worst elements (by scaled Jacobian), default 10\n"
         "  --quad-order Q     quadrature exact for order Q (MFEM's -qo), default 8\n"
         "  --quad-type T      gll (default, MFEM -qt 1) or gauss (MFEM -qt 0)\n"
         "  --quad-points Q    points per direction (overrides --quad-order)\n"
         "  --validity         prove det J > 0 on whole elements (Bernstein bound): the line\n"
         "                     'valid: proven | not proven | invalid' and its JSON fields; on by default up\n"
         "                     to order 4 (its cost grows as p^6: at order 7 about ten times the rest)\n"
         "  --no-validity      leave the proof out at every order\n");
}

/* Parse the quality flags shared by quality, demo and pebble; 1 consumed, 0 not ours. */
int hx_cli_quality_flag(int argc, char **argv, int *i, hx_quality_opts *o, hx_cli_plot *plot) {
  const char *a = argv[*i], *v = NULL;
  if (!strcmp(a, "--plot")) {
    return hx_cli_value(argc, argv, i, &plot->path) ? -1 : 1;
  }
  if (!strcmp(a, "--plot-slice")) {
    return hx_cli_value(argc, argv, i, &plot->slice_path) ? -1 : 1;
  }
  if (!strcmp(a, "--slice")) {
    return hx_cli_value(argc, argv, i, &plot->slice) ? -1 : 1;
  }
  if (!strcmp(a, "--worst")) {
    if (hx_cli_value(argc, argv, i, &v) || hx_cli_int("--worst", v, 0, 100000000, &o->num_worst)) return -1;
    return 1;
  }
  if (!strcmp(a, "--quad-order")) {
    if (hx_cli_value(argc, argv, i, &v) || hx_cli_int("--quad-order", v, 0, 2 * HX_MAX_Q - 3, &o->quad_order)) return -1;
    return 1;
  }
  if (!strcmp(a, "--quad-points")) {
    if (hx_cli_value(argc, argv, i, &v) || hx_cli_int("--quad-points", v, 1, HX_MAX_Q, &o->quad_points)) return -1;
    return 1;
  }
  if (!strcmp(a, "--quad-type")) {
    if (hx_cli_value(argc, argv, i, &v)) return -1;
    if (!strcmp(v, "gll")) o->quad_type = HX_QUAD_GLL;
    else if (!strcmp(v, "gauss")) o->quad_type = HX_QUAD_GL;
    else {
      HX_ERROR(HX_ERR_INPUT, "flag --quad-type expects gll or gauss, got '%s'", v);
      return -1;
    }
    return 1;
  }
  return 0;
}

static int picture_check(const char *flag, const char *path) {
  if (!path) return HX_OK;
  size_t n = strlen(path);
  HX_CHECK(n >= 4 && (!strcmp(path + n - 4, ".png") || !strcmp(path + n - 4, ".svg")), HX_ERR_INPUT,
           "flag %s expects a file ending in .png or .svg, got '%s'", flag, path);
  return HX_OK;
}

int hx_cli_plot_check(const hx_cli_plot *plot) {
  HX_CALL(picture_check("--plot", plot->path));
  HX_CALL(picture_check("--plot-slice", plot->slice_path));
  HX_CHECK(!plot->slice || plot->path || plot->slice_path, HX_ERR_INPUT,
           "flag --slice draws into a picture: add --plot FILE or --plot-slice FILE");
  int axis, mid;
  double at;
  if (plot->slice) HX_CALL(hx_slice_parse("--slice", plot->slice, &axis, &at, &mid));
  return HX_OK;
}

/* The slice of the pictures: the plane --slice names (default z at the middle of the mesh), its
   elements coloured by scaled Jacobian. */
static int quality_slice(const hx_mesh *m, const hx_cli_plot *plot, const hx_elem_quality *q, hx_slice *s) {
  int axis = 2, mid = 1;
  double at = 0, lo[3], hi[3];
  if (plot->slice) HX_CALL(hx_slice_parse("--slice", plot->slice, &axis, &at, &mid));
  if (mid) {
    HX_CALL(hx_mesh_bbox_global(m, lo, hi));
    at = 0.5 * (lo[axis] + hi[axis]);
  }
  double *sj = NULL;
  HX_CALL(hx_malloc((size_t)(m->num_elem > 0 ? m->num_elem : 1) * sizeof *sj, &sj));
  for (hx_lid e = 0; e < m->num_elem; e++) sj[e] = q[e].scaled_jac;
  int rc = hx_slice_mesh(m, axis, at, sj, 0, s);
  hx_free(&sj);
  return rc;
}

/* the verdict line: broken (the read checks, with --force), inverted (det J <= 0 at a corner, a GLL
   node or quadrature point, or between them by the bound), or valid */
static const char *verdict(const hx_quality_report *r, const hx_read_check *chk, char *line, size_t cap) {
  if (chk->broken) {
    snprintf(line, cap, "broken: %s", chk->what);
    return "broken";
  }
  int bound_invalid = r->validity_checked && r->bound.verdict == HX_INVALID;
  if (r->num_inverted > 0 || chk->inverted > 0 || bound_invalid) {
    long long n = (long long)(r->num_inverted > chk->inverted ? r->num_inverted : chk->inverted);
    if (n > 0)
      snprintf(line, cap, "inverted: %lld element(s) with det J <= 0%s", n,
               chk->first_inverted >= 0 ? " at a corner or node" : " at a node or quadrature point");
    else snprintf(line, cap, "inverted: det J <= 0 between the nodes in %lld element(s)", (long long)r->bound.num_invalid);
    if (chk->first_inverted >= 0) {
      size_t l = strlen(line);
      snprintf(line + l, cap - l, " (e.g. element %lld at a corner)", (long long)chk->first_inverted);
    }
    return "inverted";
  }
  if (r->validity_checked && r->bound.verdict == HX_VALID_PROVEN)
    snprintf(line, cap, "valid (det J > 0 proven on every element)");
  else snprintf(line, cap, "valid (det J > 0 at every node and quadrature point checked)");
  return "valid";
}

int hx_cli_quality_report(const hx_mesh *m, const hx_quality_opts *o, const hx_cli_plot *plot, int json,
                          const hx_read_check *chk) {
  hx_elem_quality *q = NULL;
  HX_CALL(hx_malloc((size_t)(m->num_elem > 0 ? m->num_elem : 1) * sizeof *q, &q));
  hx_quality_report r;
  int rc = hx_quality_mesh(m, o, q, &r);
  int have_r = rc == HX_OK; /* r holds arrays to free, whatever fails after */
  /* det J that overflows (inf) or is NaN: a mesh beyond double precision, not a quality */
  for (int k = 0; rc == HX_OK && r.num_elem > 0 && k < 4; k++) {
    const hx_quality_stat *st = &r.stat[k];
    if (!isfinite(st->min) || !isfinite(st->max) || !isfinite(st->mean)) {
      rc = HX_ERROR(HX_ERR_INVALID_MESH,
                    "quality: %s is not finite (min %g, max %g): the mesh's coordinates or element sizes are beyond what "
                    "double precision holds",
                    hx_quality_stat_names[k], st->min, st->max);
    }
  }
  if (rc == HX_OK && (plot->path || plot->slice_path)) {
    hx_quality_hist h[4];
    hx_slice s = {0};
    double sj_lo = r.stat[4].min < 0 ? r.stat[4].min : 0, csj_lo = r.stat[5].min < 0 ? r.stat[5].min : 0;
    rc = hx_quality_histogram(m->comm, q, m->num_elem, 4, 40, sj_lo, 1.0, &h[0]);
    if (rc == HX_OK) rc = hx_quality_histogram(m->comm, q, m->num_elem, 5, 40, csj_lo, 1.0, &h[1]);
    if (rc == HX_OK) rc = hx_quality_histogram_auto(m->comm, q, m->num_elem, 0, 40, &h[2]);
    if (rc == HX_OK) rc = hx_quality_histogram_auto(m->comm, q, m->num_elem, 6, 40, &h[3]);
    if (rc == HX_OK) rc = quality_slice(m, plot, q, &s);
    char title[160];
    snprintf(title, sizeof title, "hexpack quality: %lld elements, order %d", (long long)r.num_elem, r.order);
    const char *sj_name = "scaled Jacobian (min/max det J)";
    if (rc == HX_OK && hx_comm_rank(m->comm) == 0 && plot->path) rc = hx_plot_quality(plot->path, title, h, 4, &s, sj_name);
    if (rc == HX_OK && hx_comm_rank(m->comm) == 0 && plot->slice_path)
      rc = hx_plot_slice(plot->slice_path, NULL, &s, sj_name, 800);
    hx_slice_free(&s);
    rc = hx_comm_agree(m->comm, rc);
  }
  char vline[400] = "";
  if (rc == HX_OK && chk) r.verdict = verdict(&r, chk, vline, sizeof vline);
  if (rc == HX_OK && hx_comm_rank(m->comm) == 0) {
    if (!json && chk) printf("%s\n", vline);
    if (json) hx_quality_json(&r, stdout);
    else hx_quality_print(&r, stdout);
    if (plot->path && !json) printf("wrote %s\n", plot->path);
    if (plot->slice_path && !json) printf("wrote %s\n", plot->slice_path);
  }
  if (have_r) hx_quality_report_free(&r);
  hx_free(&q);
  return rc;
}

int hx_cmd_quality(hx_comm comm, int argc, char **argv) {
  hx_quality_opts o;
  hx_quality_opts_default(&o);
  o.validity = -1; /* by the mesh's order */
  const char *path = NULL;
  hx_cli_plot plot = {0};
  int json = 0, force = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      quality_help();
      return HX_OK;
    }
    if (!strcmp(a, "--json")) {
      json = 1;
      continue;
    }
    if (!strcmp(a, "--force")) {
      force = 1;
      continue;
    }
    if (!strcmp(a, "--no-validity") || !strcmp(a, "--validity")) {
      o.validity = a[2] == 'v';
      continue;
    }
    if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
      hx_set_verbosity(hx_verbosity() + 1);
      continue;
    }
    int r = hx_cli_quality_flag(argc, argv, &i, &o, &plot);
    if (r < 0) return HX_ERR_INPUT;
    if (r > 0) continue;
    if (a[0] == '-' && a[1]) return hx_cli_unknown_flag("quality", a);
    HX_CHECK(!path, HX_ERR_INPUT, "quality takes one mesh file, got '%s' and '%s'", path, a);
    path = a;
  }
  HX_CHECK(path, HX_ERR_INPUT, "quality needs a mesh file: hexpack quality MESH");
  HX_CALL(hx_cli_plot_check(&plot));
  hx_mesh *m = NULL;
  hx_import_opts io = {force, 0};
  hx_read_check chk;
  HX_CALL(hx_import_ex(comm, path, &io, &m, &chk));
  if (o.validity < 0) o.validity = m->order <= 4;
  /* under mpirun every rank read the whole file: each keeps its share, counted once */
  int rc = hx_mesh_split_replicated(&m);
  if (rc == HX_OK) rc = hx_cli_quality_report(m, &o, &plot, json, &chk);
  hx_mesh_destroy(&m);
  return rc;
}
