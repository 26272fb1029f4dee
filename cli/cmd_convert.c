/* hexpack convert IN OUT: read a mesh in any format with a reader and write it in
   the formats of the outputs' extensions (optionally at another order). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hx_cli.h"
#include "hx_curve.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_kernels.h"
#include "hx_tmop.h"

static const hx_opt convert_table[] = {
    HX_FLAG("--untangle", 0, "untangle an inverted input first (the optimizer's untangling alone)"),
    HX_INT("--untangle-iters", "N", "200", 0, 1000000, HX_OPT_EXPERT, "the untangling's Newton steps at most"),
    {0},
};

void hx_cmd_convert_opts(hx_optset *s) {
  hx_opts_init(s, "convert", "convert IN OUT [-o OUT2]... [--order N] [options]",
               "Reads a mesh in any format with a reader and writes it in the formats of the outputs' extensions,\n"
               "at its own order or at --order N (curving onto the analytic surfaces the input carries).");
  hx_opts_add(s, convert_table);
  hx_opts_add(s, hx_cli_output_table);
  hx_opts_default(s, "--order", "input");
  hx_opts_help_line(s, "--order", "write the geometry at order N (curving onto the analytic surfaces the input carries)");
  hx_opts_help_line(s, "--force", "write even where det J <= 0, and read a mesh the read checks find broken");
}

int hx_cmd_convert(hx_comm comm, int argc, char **argv) {
  hx_optset s;
  hx_cmd_convert_opts(&s);
  HX_CALL(hx_opts_parse(&s, argc, argv, 1));
  if (s.stop) return HX_OK;
  hx_cli_common c;
  HX_CALL(hx_cli_common_get(&s, &c));
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.untangle = hx_opts_given(&s, "--untangle") ? 2 : 0; /* 2: untangle only */
  hx_opts_int(&s, "--untangle-iters", &o.untangle_iters);
  const char *in = s.num_args ? s.args[0] : NULL;
  /* the second file and on are outputs, before the -o ones */
  HX_CHECK(c.num_out + (s.num_args > 1 ? s.num_args - 1 : 0) <= HX_CLI_MAX_OUT, HX_ERR_INPUT, "at most %d outputs",
           HX_CLI_MAX_OUT);
  if (s.num_args > 1) {
    memmove(c.out + s.num_args - 1, c.out, (size_t)c.num_out * sizeof *c.out);
    for (int k = 1; k < s.num_args; k++) c.out[k - 1] = s.args[k];
    c.num_out += s.num_args - 1;
  }
  HX_CHECK(in && c.num_out > 0, HX_ERR_INPUT, "convert needs an input and an output: hexpack convert IN OUT");
  /* every output's format must have a writer before anything is read or written */
  for (int k = 0; k < c.num_out; k++)
    HX_CHECK(strcmp(c.out[k], in) != 0, HX_ERR_INPUT, "output '%s' is the input file", c.out[k]);
  HX_CALL(hx_cli_check_outputs(comm, &c, c.order));
  hx_mesh *m = NULL;
  hx_import_opts io = {c.force, 0}; /* --force also reads a mesh the read checks find broken */
  HX_CALL(hx_import_ex(comm, in, &io, &m, NULL));
  int rc = HX_OK, in_order = m->order;
  /* the order written known now: every output's limits at it, before the work */
  if (!c.order) rc = hx_cli_check_outputs(comm, &c, m->order);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  if (c.order && c.order != m->order) {
    /* raise (or lower) the order in memory: interpolation, then projection of the
       boundary nodes onto the analytic surfaces the input carries. Under mpirun
       every rank read the whole file: each raises it on its own (curving needs
       the whole mesh), then the ranks split it. */
    hx_mesh *h = NULL;
    hx_comm wc = m->comm;
    hx_gid off = m->elem_offset, ng = m->num_elem_global;
    m->comm = HX_COMM_SELF, m->elem_offset = 0, m->num_elem_global = m->num_elem;
    rc = hx_mesh_raise_order(m, c.order, &h);
    m->comm = wc, m->elem_offset = off, m->num_elem_global = ng;
    if (h) h->comm = wc; /* replicated: each rank holds the whole mesh until the split */
    hx_mesh_destroy(&m);
    if (rc != HX_OK) return rc;
    m = h;
  }
  rc = hx_mesh_split_replicated(&m);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  if (o.untangle) {
    rc = hx_cli_optimize(m, &o, 1, "untangle");
    if (rc == HX_ERR_INVALID_MESH) {
      char msg[512];
      snprintf(msg, sizeof msg, "%s", hx_error_message());
      hx_error_clear();
      rc = HX_ERROR(rc, "%s: %s", in, msg);
      if (c.force) hx_cli_write_outputs(m, &c); /* the best iterate, as asked; the status still fails */
      hx_mesh_destroy(&m);
      return rc;
    }
  } else if (!c.force) {
    /* an inverted input: say how many elements and which flag untangles them, before any
       writer refuses its first bad element */
    double mn = HUGE_VAL;
    rc = hx_min_detj_nodes_host(m->nd, m->num_elem, m->x, 0, &mn);
    if (!rc) rc = hx_comm_min_double(m->comm, &mn, 1);
    long long ninv = 0;
    if (!rc && !(mn > 0)) rc = hx_tmop_count_inverted(m, &ninv);
    /* the first element (global index) with det J <= 0 at a GLL node, to name one */
    int64_t first = INT64_MAX;
    if (!rc && ninv > 0) {
      double D[HX_MAX_ND * HX_MAX_ND];
      rc = hx_mesh_gll_derivative(m->nd, D);
      size_t n3 = (size_t)m->nd * m->nd * m->nd;
      for (hx_lid e = 0; !rc && e < m->num_elem; e++) {
        double lo, hi;
        hx_elem_detj_range(m->nd, D, m->x + (size_t)e * 3 * n3, &lo, &hi);
        if (!(lo > 0)) {
          first = m->elem_offset + e;
          break;
        }
      }
      if (!rc) rc = hx_comm_min_int64(m->comm, &first, 1);
    }
    char which[64] = "";
    if (first != INT64_MAX) snprintf(which, sizeof which, ", e.g. element %lld", (long long)first);
    if (!rc && ninv > 0)
      rc = HX_ERROR(HX_ERR_INVALID_MESH,
                    "%s: %lld of %lld element(s) are inverted (det J <= 0 at a GLL node, quadrature or Gauss point%s); "
                    "--untangle untangles them (or hexpack optimize %s -o OUT untangles and optimizes), --force writes "
                    "them as they are",
                    in, ninv, (long long)m->num_elem_global, which, in);
  }
  if (!rc) rc = hx_cli_write_outputs(m, &c);
  if (rc == HX_OK) {
    hx_cli_json_string(hx_cli_json_key("input"), in);
    hx_cli_json_add("\"elements\": %lld, \"order\": %d", (long long)m->num_elem_global, c.order ? c.order : m->order);
    hx_cli_json_outputs(&c);
  }
  if (rc == HX_OK && hx_comm_rank(comm) == 0) {
    FILE *log = hx_cli_log();
    fprintf(log, "convert: %s: %lld elements, order %d\n", in, (long long)m->num_elem_global, in_order);
    for (int k = 0; k < c.num_out; k++) fprintf(log, "wrote %s (order %d)\n", c.out[k], c.order ? c.order : m->order);
  }
  hx_mesh_destroy(&m);
  return rc;
}
