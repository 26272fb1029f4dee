/* hexpack quality MESH: the quality report of a mesh file (hx_quality.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_cli.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_memory.h"
#include "hx_plot.h"
#include "hx_quality.h"
#include "hx_slice.h"

static int picture_check(const char *flag, const char *path);

static int slice_check(const char *flag, const char *v) {
  int axis, mid;
  double at;
  return hx_slice_parse(flag, v, &axis, &at, &mid);
}

const hx_opt hx_cli_quality_table[] = {
    HX_STR("--plot", "FILE", NULL, 0,
           "draw a slice through the mesh (--slice) above histograms of the scaled Jacobians, det J and aspect ratio "
           "(.png or .svg)",
           picture_check),
    HX_STR("--plot-slice", "FILE", NULL, 0, "draw the slice alone, 800 pixels wide (.png or .svg)", picture_check),
    HX_STR("--slice", "AXIS=V", "auto", 0,
           "the plane of the slice: x=V, y=V or z=V, its curved elements coloured by scaled Jacobian (auto: z at the middle)",
           slice_check),
    HX_INT("--worst", "N", "10", 0, 100000000, 0, "list the N worst elements (by scaled Jacobian)"),
    HX_INT("--quad-order", "Q", "8", 0, 2 * HX_MAX_Q - 3, HX_OPT_EXPERT, "quadrature exact for order Q (MFEM's -qo)"),
    HX_CHOICE("--quad-type", "gll|gauss", "gll", HX_OPT_EXPERT, "quadrature points: Gauss-Lobatto (MFEM -qt 1) or Gauss (-qt 0)"),
    HX_INT("--quad-points", "Q", NULL, 1, HX_MAX_Q, HX_OPT_EXPERT,
           "quadrature points per direction (default: from --quad-order)"),
    {0},
};

/* whether the row of name in s is the one of table (not another table's row of the same name) */
static int row_from(const hx_optset *s, const char *name, const hx_opt *table) {
  const hx_opt *r = NULL, *t = NULL;
  for (int k = 0; k < s->num; k++)
    if (!strcmp(s->opt[k].name, name)) r = &s->opt[k];
  for (const hx_opt *q = table; q->name; q++)
    if (!strcmp(q->name, name)) t = q;
  return r && t && r->type == t->type && r->lo == t->lo && r->hi == t->hi && r->choices == t->choices;
}

int hx_cli_quality_get(const hx_optset *s, hx_quality_opts *o, hx_cli_plot *plot) {
  plot->path = hx_opts_str(s, "--plot");
  plot->slice_path = hx_opts_str(s, "--plot-slice");
  const char *slice = hx_opts_str(s, "--slice");
  plot->slice = slice && strcmp(slice, "auto") ? slice : NULL;
  hx_opts_int(s, "--worst", &o->num_worst);
  if (row_from(s, "--quad-order", hx_cli_quality_table)) hx_opts_int(s, "--quad-order", &o->quad_order);
  if (row_from(s, "--quad-points", hx_cli_quality_table)) hx_opts_int(s, "--quad-points", &o->quad_points);
  if (row_from(s, "--quad-type", hx_cli_quality_table))
    o->quad_type = hx_opts_choice(s, "--quad-type") == 1 ? HX_QUAD_GL : HX_QUAD_GLL;
  return HX_OK;
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
  if (rc == HX_OK && json) {
    /* the report's members: in the document itself (quality) or under "quality" (demo, pebble) */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem) {
      hx_quality_json(&r, mem);
      fclose(mem);
      char *lo = strchr(buf, '{'), *hi = strrchr(buf, '}');
      if (json == 2) hx_cli_json_open("quality");
      if (lo && hi && hi > lo + 1) hx_cli_json_add("%.*s", (int)(hi - lo - 1), lo + 1);
      if (json == 2) hx_cli_json_close();
      free(buf);
    }
    if (plot->path) hx_cli_json_string(hx_cli_json_key("plot"), plot->path);
    if (plot->slice_path) hx_cli_json_string(hx_cli_json_key("plot_slice"), plot->slice_path);
  }
  if (rc == HX_OK && hx_comm_rank(m->comm) == 0 && !json) {
    if (chk) printf("%s\n", vline);
    hx_quality_print(&r, stdout);
    if (plot->path) printf("wrote %s\n", plot->path);
    if (plot->slice_path) printf("wrote %s\n", plot->slice_path);
  }
  if (have_r) hx_quality_report_free(&r);
  hx_free(&q);
  return rc;
}

static const hx_opt quality_table[] = {
    HX_FLAG("--force", 0, "report on a mesh the read checks find broken (else refused)"),
    HX_FLAG("--validity", 0, "prove det J > 0 on whole elements by the Bernstein bound (default: up to order 4)"),
    HX_FLAG("--no-validity", 0, "leave the proof out at every order"),
    {0},
};

void hx_cmd_quality_opts(hx_optset *s) {
  hx_opts_init(s, "quality", "quality MESH [options]",
               "The quality report of a mesh file (any format with a reader). The first line is the verdict: valid,\n"
               "inverted (det J <= 0 somewhere) or broken (the read checks: non-finite coordinates, faces of three\n"
               "elements, duplicate elements, neighbours that disagree on a face's nodes, boundary records on interior\n"
               "faces, holes); then det J, the scaled Jacobians and the aspect ratio, and the worst elements.");
  hx_opts_add(s, quality_table);
  hx_opts_add(s, hx_cli_quality_table);
}

int hx_cmd_quality(hx_comm comm, int argc, char **argv) {
  hx_optset s;
  hx_cmd_quality_opts(&s);
  HX_CALL(hx_opts_parse(&s, argc, argv, 1));
  if (s.stop) return HX_OK;
  hx_quality_opts o;
  hx_quality_opts_default(&o);
  hx_cli_plot plot = {0};
  HX_CALL(hx_cli_quality_get(&s, &o, &plot));
  int json = hx_opts_given(&s, "--json") > 0, force = hx_opts_given(&s, "--force") > 0;
  /* --validity and --no-validity: the later one wins; neither: by the mesh's order */
  int wv = hx_opts_where(&s, "--validity"), wn = hx_opts_where(&s, "--no-validity");
  o.validity = wv || wn ? wv > wn : -1;
  HX_CHECK(s.num_args <= 1, HX_ERR_INPUT, "quality takes one mesh file, got '%s' and '%s'", s.args[0], s.args[1]);
  const char *path = s.num_args ? s.args[0] : NULL;
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
