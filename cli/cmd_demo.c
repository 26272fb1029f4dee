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

void hx_cmd_demo_opts(hx_optset *s) {
  hx_opts_init(s, "demo",
               "demo [-o FILE]... [--order N] [--plot FILE.png|FILE.svg] [--plot-slice FILE] [--slice AXIS=V] [options]",
               "Meshes the bundled 67-pebble bed (INL Virtual Test Bed DEM packing, CC BY 4.0; R = 1.5 in a cylinder\n"
               "of radius 6.6, inlet/outlet sections of length 3), writes it to demo.vtu (or the -o files) and prints\n"
               "its quality report; --plot, --plot-slice and --slice draw its pictures as in hexpack quality.");
  hx_opts_add(s, hx_cli_output_table);
  hx_opts_default(s, "--order", "3");
  hx_opts_default(s, "--output", "demo.vtu");
  hx_opts_add(s, hx_cli_quality_table);
  hx_opts_default(s, "--worst", "5");
}

int hx_cmd_demo(hx_comm comm, int argc, char **argv) {
  hx_optset s;
  hx_cmd_demo_opts(&s);
  HX_CALL(hx_opts_parse(&s, argc, argv, 1));
  if (s.stop) return HX_OK;
  HX_CHECK(s.num_args == 0, HX_ERR_INPUT, "demo takes no file argument, got '%s' (outputs: -o FILE)", s.args[0]);
  hx_cli_common c;
  HX_CALL(hx_cli_common_get(&s, &c));
  hx_quality_opts qo;
  hx_quality_opts_default(&qo);
  hx_cli_plot plot = {0};
  HX_CALL(hx_cli_quality_get(&s, &qo, &plot));
  HX_CALL(hx_cli_plot_check(&plot));
  if (c.num_out == 0) c.out[c.num_out++] = hx_opts_str(&s, "--output");
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
  if (rc == HX_OK) {
    hx_cli_json_add("\"elements\": %lld, \"bulk\": %d, \"inlet\": %d, \"outlet\": %d, \"order\": %d",
                    (long long)m->num_elem_global, (int)st.elems_bulk, (int)st.elems_inlet, (int)st.elems_outlet, m->order);
    hx_cli_json_outputs(&c);
  }
  if (rc == HX_OK && hx_comm_rank(comm) == 0) {
    FILE *log = hx_cli_log();
    fprintf(log,
            "demo: 67-pebble bed (INL Virtual Test Bed), %lld elements (%d bulk = %.1f per pebble, %d inlet, %d "
            "outlet), order %d\n",
            (long long)m->num_elem_global, (int)st.elems_bulk, (double)st.elems_bulk / bed->n, (int)st.elems_inlet,
            (int)st.elems_outlet, m->order);
    for (int k = 0; k < c.num_out; k++) fprintf(log, "wrote %s\n", c.out[k]);
  }
  hx_pebble_bed_destroy(&bed);
  if (rc == HX_OK) rc = hx_cli_quality_report(m, &qo, &plot, c.json ? 2 : 0, NULL);
  hx_mesh_destroy(&m);
  return rc;
}
