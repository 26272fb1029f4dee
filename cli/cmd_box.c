/* hexpack box: structured (optionally Kershaw-deformed) box meshes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_box.h"
#include "hx_cli.h"
#include "hx_error.h"
#include "hx_tmop.h"

/* corners and extents the geometry and the optimizer's energies stay finite for */
#define HX_BOX_MAX_COORD 1e30
#define HX_BOX_MIN_EXTENT 1e-30

static const hx_opt box_table[] = {
    HX_INTS("--n", "NX[,NY,NZ]", "4", 1, 3, 1, 100000, 0, "elements per direction (one value: a cube)"),
    HX_DBLS("--kershaw", "EY,EZ[,S]", NULL, 2, 3, -1e300, 1e300, 0,
            "apply the Kershaw map: eps_y, eps_z in (0, 1], smoothness S = 1, 2, 3 (needs NX divisible by 6, NY, NZ even)"),
    HX_DBLS("--lo", "X,Y,Z", "0,0,0", 3, 3, -1e300, 1e300, 0, "the box's lower corner"),
    HX_DBLS("--hi", "X,Y,Z", "1,1,1", 3, 3, -1e300, 1e300, 0,
            "the box's upper corner (|x| <= 1e30, extents >= 1e-30 and >= 1e-9 of the coordinates)"),
    HX_FLAG("--separate-ids", 0, "boundary ids 1..6 per side (else 1 x-faces, 2 y-faces, 3 z-faces)"),
    HX_FLAG("--optimize", 0, "run TMOP on the mesh before writing (the optimizer flags)"),
    {0},
};

void hx_cmd_box_opts(hx_optset *s) {
  hx_opts_init(s, "box", "box [--n NX[,NY,NZ]] [--kershaw EY,EZ[,S]] [options] [-o FILE]...",
               "A structured box of hexes, optionally Kershaw-deformed (the CEED benchmark meshes).");
  hx_opts_add(s, box_table);
  hx_opts_add(s, hx_cli_output_table);
  hx_cli_tmop_add(s);
  hx_opts_default(s, "--coarse-start", "auto");
  hx_opts_default(s, "--adapt-quad", "auto");
}

int hx_cmd_box(hx_comm comm, int argc, char **argv) {
  hx_optset s;
  hx_cmd_box_opts(&s);
  HX_CALL(hx_opts_parse(&s, argc, argv, 1));
  if (s.stop) return HX_OK;
  HX_CHECK(s.num_args == 0, HX_ERR_INPUT, "box takes no file argument, got '%s' (outputs: -o FILE)", s.args[0]);
  hx_box_opts o;
  hx_box_opts_default(&o);
  hx_cli_common c;
  HX_CALL(hx_cli_common_get(&s, &c));
  hx_tmop_opts topt;
  hx_tmop_opts_default(&topt);
  int tquiet = 0;
  HX_CALL(hx_cli_tmop_get(&s, &topt, &tquiet));
  int cnt = hx_opts_ints(&s, "--n", o.n, 3);
  if (cnt == 1) o.n[1] = o.n[2] = o.n[0];
  HX_CHECK(cnt == 1 || cnt == 3, HX_ERR_INPUT, "flag --n expects NX or NX,NY,NZ, got '%s'", hx_opts_str(&s, "--n"));
  double p[3];
  cnt = hx_opts_doubles(&s, "--kershaw", p, 3);
  if (cnt) {
    const char *v = hx_opts_str(&s, "--kershaw");
    HX_CHECK(p[0] > 0 && p[0] <= 1 && p[1] > 0 && p[1] <= 1, HX_ERR_INPUT,
             "flag --kershaw: EPS_Y and EPS_Z must be in (0, 1], got '%s'", v);
    o.kershaw = 1;
    o.eps_y = p[0];
    o.eps_z = p[1];
    if (cnt == 3) {
      HX_CHECK(p[2] == 1 || p[2] == 2 || p[2] == 3, HX_ERR_INPUT, "flag --kershaw: smoothness S must be 1, 2 or 3, got '%s'", v);
      o.smooth = (int)p[2];
    }
  }
  /* det J and the optimizer's energies go as the element size to the power 3 to 6: beyond
     HX_BOX_MAX_COORD they overflow (or underflow) double precision */
  hx_opts_doubles(&s, "--lo", o.lo, 3);
  hx_opts_doubles(&s, "--hi", o.hi, 3);
  for (int d = 0; d < 6; d++) {
    double x = d < 3 ? o.lo[d] : o.hi[d - 3];
    HX_CHECK(fabs(x) <= HX_BOX_MAX_COORD, HX_ERR_INPUT,
             "flag %s: coordinate %g is too large for double-precision geometry (|x| <= %g)", d < 3 ? "--lo" : "--hi", x,
             HX_BOX_MAX_COORD);
  }
  o.separate_ids = hx_opts_given(&s, "--separate-ids") > 0;
  if (c.order) o.order = c.order;
  for (int d = 0; d < 3; d++) {
    double ext = o.hi[d] - o.lo[d], big = fmax(fabs(o.lo[d]), fabs(o.hi[d]));
    HX_CHECK(ext > 0, HX_ERR_INPUT, "flags --lo/--hi: the box extent in %c must be positive, got %g..%g", "xyz"[d], o.lo[d],
             o.hi[d]);
    HX_CHECK(ext >= HX_BOX_MIN_EXTENT && ext >= 1e-9 * big, HX_ERR_INPUT,
             "flags --lo/--hi: the box extent in %c, %g, is too small for double-precision geometry (at least %g and 1e-9 of "
             "|coordinate| %g)",
             "xyz"[d], ext, HX_BOX_MIN_EXTENT, big);
  }
  /* every output checked before the meshing */
  HX_CALL(hx_cli_check_outputs(comm, &c, o.order));
  hx_mesh *m = NULL;
  HX_CALL(hx_mesher_box(comm, &o, &m));
  hx_mesh_check_report rep;
  int rc = hx_mesh_check(m, 1e-12, &rep);
  if (rc != HX_OK && !c.force) {
    hx_mesh_destroy(&m);
    return rc;
  }
  if (c.optimize) {
    hx_error_clear();
    rc = hx_cli_optimize_for(m, &topt, &c, tquiet, "optimize");
    if (rc == HX_OK) rc = hx_mesh_check(m, 1e-12, &rep);
    if (rc != HX_OK) {
      hx_mesh_destroy(&m);
      return rc;
    }
  }
  hx_error_clear();
  c.order = o.order;
  /* the mesh has just passed hx_mesh_check (stricter than the writers' own check):
     let the writers skip theirs, a second pass over every node */
  if (rc == HX_OK) c.checked = 1;
  rc = hx_cli_write_outputs(m, &c);
  if (rc == HX_OK) {
    hx_cli_json_add("\"elements\": %lld, \"order\": %d, \"kershaw\": %s, \"min_detj_gll\": %.10e", (long long)m->num_elem_global,
                    m->order, o.kershaw ? "true" : "false", rep.min_detj);
    hx_cli_json_outputs(&c);
  }
  if (rc == HX_OK && hx_comm_rank(comm) == 0) {
    FILE *log = hx_cli_log();
    fprintf(log, "box: %lld elements (%d x %d x %d), order %d%s, min det J at GLL nodes %.4e\n", (long long)m->num_elem_global,
            o.n[0], o.n[1], o.n[2], m->order, o.kershaw ? ", Kershaw" : "", rep.min_detj);
    for (int k = 0; k < c.num_out; k++) fprintf(log, "wrote %s\n", c.out[k]);
  }
  hx_mesh_destroy(&m);
  return rc;
}
