/* hexpack demo: the bundled example end to end (the README's first command):
   the 67-pebble DEM bed (meshers/pebble/pb67_data.c, CC BY 4.0, INL Virtual Test
   Bed) in its cylinder with inlet and outlet sections, meshed by the pebble mesher
   at order 3 (--order to change), written to demo.vtu, and its quality report. */
#include <stdio.h>
#include <string.h>

#include "hx_cli.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_pebble.h"
#include "hx_quality.h"

static void demo_help(void) {
  printf("usage: hexpack demo [-o FILE]... [--order N] [--plot FILE.png|FILE.svg] [--plot-slice FILE] [--slice AXIS=V]\n"
         "                    [--json]\n\n"
         "  Meshes the bundled 67-pebble bed (INL Virtual Test Bed DEM packing, CC BY 4.0;\n"
         "  R = 1.5 in a cylinder of radius 6.6, inlet/outlet sections of length 3) at order 3,\n"
         "  writes it to demo.vtu (or the -o files) and prints its quality report.\n"
         "  --plot, --plot-slice and --slice draw its pictures as in hexpack quality.\n");
}

int hx_cmd_demo(hx_comm comm, int argc, char **argv) {
  hx_cli_common c = {0};
  hx_quality_opts qo;
  hx_quality_opts_default(&qo);
  qo.num_worst = 5;
  hx_cli_plot plot = {0};
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
  HX_CHECK(!c.optimize, HX_ERR_INPUT,
           "flag --optimize: the demo only meshes; use hexpack pebble inputs/pb67.txt --radius 1.5 --container cyl:6.6 "
           "--inlet 3 --outlet 3 --optimize -o OUT");
  HX_CALL(hx_cli_plot_check(&plot));
  if (c.num_out == 0) c.out[c.num_out++] = "demo.vtu";
  hx_pebble_bed *bed = NULL;
  HX_CALL(hx_pebble_bed_create(hx_pb67_count, &hx_pb67_xyz[0][0], NULL, hx_pb67_radius, &bed));
  hx_pebble_opts o;
  hx_pebble_opts_default(&o);
  o.container = HX_PEBBLE_CYLINDER;
  o.cyl_radius = hx_pb67_cylinder;
  o.inlet_len = o.outlet_len = 2 * hx_pb67_radius;
  o.order = c.order ? c.order : 3;
  int rc = hx_cli_check_outputs(comm, &c, o.order); /* every output before the meshing */
  hx_mesh *m = NULL;
  hx_pebble_stats st;
  if (rc == HX_OK) rc = hx_pebble_opts_finish(&o, bed);
  if (rc == HX_OK) rc = hx_pebble_bed_check(bed, &o);
  if (rc == HX_OK) rc = hx_mesher_pebble(comm, bed, &o, &m, &st);
  if (rc == HX_OK) {
    c.order = o.order;
    rc = hx_cli_write_outputs(m, &c);
  }
  if (rc == HX_OK && hx_comm_rank(comm) == 0 && !c.json) {
    printf("demo: 67-pebble bed (INL Virtual Test Bed), %lld elements (%d bulk = %.1f per pebble, %d inlet, %d "
           "outlet), order %d\n",
           (long long)m->num_elem_global, (int)st.elems_bulk, (double)st.elems_bulk / bed->n, (int)st.elems_inlet,
           (int)st.elems_outlet, m->order);
    for (int k = 0; k < c.num_out; k++) printf("wrote %s\n", c.out[k]);
  }
  hx_pebble_bed_destroy(&bed);
  if (rc == HX_OK) rc = hx_cli_quality_report(m, &qo, &plot, c.json, NULL);
  hx_mesh_destroy(&m);
  return rc;
}
