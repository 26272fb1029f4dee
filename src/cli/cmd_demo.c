/* hexpack demo: the bundled example end to end (the README's first command).
   Today: the Kershaw box 24^3 (eps 0.3, 0.3) at order 4, written to demo.vtu, and
   its quality report. The pebble bed will replace it once that mesher lands. */
#include <stdio.h>
#include <string.h>

#include "hx_box.h"
#include "hx_cli.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_quality.h"

static void demo_help(void) {
  printf("usage: hexpack demo [-o FILE]... [--order N] [--plot FILE.png|FILE.svg] [--json]\n\n"
         "  Meshes the Kershaw box 24^3 (eps 0.3, 0.3; tmop.md section 2) at order 4, writes\n"
         "  it to demo.vtu (or the -o files) and prints its quality report.\n");
}

int hx_cmd_demo(hx_comm comm, int argc, char **argv) {
  hx_cli_common c = {0};
  hx_quality_opts qo;
  hx_quality_opts_default(&qo);
  qo.num_worst = 5;
  const char *plot = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r = hx_cli_common_flag(argc, argv, &i, &c);
    if (r < 0) return -r;
    if (r > 0) continue;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      demo_help();
      return HX_OK;
    }
    r = hx_cli_quality_flag(argc, argv, &i, &qo, &plot);
    if (r < 0) return HX_ERR_INPUT;
    if (r > 0) continue;
    return hx_cli_unknown_flag("demo", a);
  }
  HX_CHECK(!c.optimize, HX_ERR_INPUT, "flag --optimize: the optimizer is not built yet");
  HX_CALL(hx_cli_plot_check(plot));
  if (c.num_out == 0) c.out[c.num_out++] = "demo.vtu";
  hx_box_opts o;
  hx_box_opts_default(&o);
  o.n[0] = o.n[1] = o.n[2] = 24;
  o.order = c.order ? c.order : 4;
  o.kershaw = 1;
  o.eps_y = o.eps_z = 0.3;
  hx_mesh *m = NULL;
  HX_CALL(hx_mesher_box(comm, &o, &m));
  c.order = o.order;
  int rc = hx_cli_write_outputs(m, &c);
  if (rc == HX_OK && hx_comm_rank(comm) == 0 && !c.json) {
    printf("demo: Kershaw box 24^3 (eps 0.3, 0.3), %lld elements, order %d\n", (long long)m->num_elem_global, m->order);
    for (int k = 0; k < c.num_out; k++) printf("wrote %s\n", c.out[k]);
  }
  if (rc == HX_OK) rc = hx_cli_quality_report(m, &qo, plot, c.json);
  hx_mesh_destroy(&m);
  return rc;
}
