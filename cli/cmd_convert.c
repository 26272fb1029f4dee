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

static void convert_help(void) {
  printf("usage: hexpack convert IN OUT [-o OUT2]... [--order N] [--force] [--json]\n\n"
         "  IN, OUT            mesh files; formats from the extensions\n"
         "  -o FILE            another output (several allowed)\n"
         "  --order N          write the geometry at order N (curving onto the analytic\n"
         "                     surfaces when the input carries them)\n"
         "  --force            write even if det J <= 0 somewhere, and read a mesh the read checks\n"
         "                     find broken (faces of three elements, duplicates, holes, ...)\n"
         "  --untangle         untangle an inverted input first (the optimizer's untangling\n"
         "                     alone: hexpack optimize --help); --untangle-iters N its steps\n");
}

int hx_cmd_convert(hx_comm comm, int argc, char **argv) {
  hx_cli_common c = {0};
  const char *in = NULL;
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.untangle = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r = hx_cli_common_flag(argc, argv, &i, &c);
    if (r < 0) return -r;
    if (r > 0) continue;
    if (!strcmp(a, "--untangle")) {
      o.untangle = 2; /* untangle only */
      continue;
    }
    if (!strcmp(a, "--untangle-iters")) {
      const char *v;
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int("--untangle-iters", v, 0, 1000000, &o.untangle_iters));
      continue;
    }
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      convert_help();
      return HX_OK;
    }
    if (a[0] == '-' && a[1]) return hx_cli_unknown_flag("convert", a);
    if (!in) {
      in = a;
    } else {
      HX_CHECK(c.num_out < HX_CLI_MAX_OUT, HX_ERR_INPUT, "at most %d outputs", HX_CLI_MAX_OUT);
      c.out[c.num_out++] = a;
    }
  }
  HX_CHECK(in && c.num_out > 0, HX_ERR_INPUT, "convert needs an input and an output: hexpack convert IN OUT");
  HX_CHECK(!c.optimize, HX_ERR_INPUT, "flag --optimize: convert does not optimize; use hexpack optimize IN -o OUT");
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
    rc = hx_cli_optimize(m, &o, 1, c.json);
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
  if (rc == HX_OK && hx_comm_rank(comm) == 0) {
    if (c.json) {
      printf("{\"command\": \"convert\", \"input\": \"%s\", \"elements\": %lld, \"order\": %d, \"outputs\": [", in,
             (long long)m->num_elem_global, c.order ? c.order : m->order);
      for (int k = 0; k < c.num_out; k++) printf("%s\"%s\"", k ? ", " : "", c.out[k]);
      printf("]}\n");
    } else {
      printf("convert: %s: %lld elements, order %d\n", in, (long long)m->num_elem_global, in_order);
      for (int k = 0; k < c.num_out; k++) printf("wrote %s (order %d)\n", c.out[k], c.order ? c.order : m->order);
    }
  }
  hx_mesh_destroy(&m);
  return rc;
}
