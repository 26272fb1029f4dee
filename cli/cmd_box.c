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

static void box_help(void) {
  printf("usage: hexpack box --n NX[,NY,NZ] [--order N] [--kershaw EPS_Y,EPS_Z[,S]] [-o FILE]...\n\n"
         "  --n NX[,NY,NZ]     elements per direction (one value: a cube), default 4\n"
         "  --order N          geometry order 1..%d, default 1\n"
         "  --kershaw EY,EZ[,S] apply the Kershaw map (eps in (0,1], smoothness S = 1,2,3);\n"
         "                     needs NX divisible by 6 and NY, NZ even\n"
         "  --lo X,Y,Z / --hi X,Y,Z  box corners, default [0,1]^3 (|x| <= 1e30, extents >= 1e-30\n"
         "                     and >= 1e-9 of the coordinates)\n"
         "  --separate-ids     boundary ids 1..6 per side (default: 1 x-faces, 2 y-faces, 3 z-faces)\n"
         "  -o FILE            write the mesh (format from the extension); several allowed\n"
         "  --optimize         run TMOP on the mesh before writing (flags below)\n"
         "  --json             print the summary as JSON\n\n",
         HX_MAX_ORDER);
}

int hx_cmd_box(hx_comm comm, int argc, char **argv) {
  hx_box_opts o;
  hx_box_opts_default(&o);
  hx_cli_common c = {0};
  hx_tmop_opts topt;
  hx_tmop_opts_default(&topt);
  topt.coarse_order = -1; /* the command's default: the coarse start from order 3 */
  int tquiet = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    int r = hx_cli_common_flag(argc, argv, &i, &c);
    if (r < 0) return -r;
    if (r > 0) continue;
    r = hx_cli_tmop_flag(argc, argv, &i, &topt, &tquiet);
    if (r < 0) return -r;
    if (r > 0) continue;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      box_help();
      hx_cli_tmop_help();
      return HX_OK;
    } else if (!strcmp(a, "--n")) {
      int cnt;
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_int_list("--n", v, 3, 1, 100000, o.n, &cnt));
      HX_CHECK(cnt == 1 || cnt == 3, HX_ERR_INPUT, "flag --n expects NX or NX,NY,NZ, got '%s'", v);
      if (cnt == 1) o.n[1] = o.n[2] = o.n[0];
    } else if (!strcmp(a, "--kershaw")) {
      double p[3];
      int cnt;
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double_list("--kershaw", v, 3, &cnt, p));
      HX_CHECK(cnt >= 2, HX_ERR_INPUT, "flag --kershaw expects EPS_Y,EPS_Z[,S], got '%s'", v);
      HX_CHECK(p[0] > 0 && p[0] <= 1 && p[1] > 0 && p[1] <= 1, HX_ERR_INPUT,
               "flag --kershaw: EPS_Y and EPS_Z must be in (0, 1], got '%s'", v);
      o.kershaw = 1;
      o.eps_y = p[0];
      o.eps_z = p[1];
      if (cnt == 3) {
        HX_CHECK(p[2] == 1 || p[2] == 2 || p[2] == 3, HX_ERR_INPUT, "flag --kershaw: smoothness S must be 1, 2 or 3, got '%s'",
                 v);
        o.smooth = (int)p[2];
      }
    } else if (!strcmp(a, "--lo") || !strcmp(a, "--hi")) {
      double p[3];
      int cnt;
      HX_CALL(hx_cli_value(argc, argv, &i, &v));
      HX_CALL(hx_cli_double_list(a, v, 3, &cnt, p));
      HX_CHECK(cnt == 3, HX_ERR_INPUT, "flag %s expects X,Y,Z, got '%s'", a, v);
      /* det J and the optimizer's energies go as the element size to the power 3 to 6: beyond
         this they overflow (or underflow) double precision */
      for (int d = 0; d < 3; d++)
        HX_CHECK(fabs(p[d]) <= HX_BOX_MAX_COORD, HX_ERR_INPUT,
                 "flag %s: coordinate %g is too large for double-precision geometry (|x| <= %g)", a, p[d], HX_BOX_MAX_COORD);
      memcpy(!strcmp(a, "--lo") ? o.lo : o.hi, p, sizeof p);
    } else if (!strcmp(a, "--separate-ids")) {
      o.separate_ids = 1;
    } else {
      return hx_cli_unknown_flag("box", a);
    }
  }
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
    rc = hx_cli_optimize_for(m, &topt, &c, tquiet);
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
  if (rc == HX_OK && hx_comm_rank(comm) == 0) {
    if (c.json)
      printf("{\"command\": \"box\", \"elements\": %lld, \"order\": %d, \"kershaw\": %s, \"min_detj_gll\": %.10e}\n",
             (long long)m->num_elem_global, m->order, o.kershaw ? "true" : "false", rep.min_detj);
    else
      printf("box: %lld elements (%d x %d x %d), order %d%s, min det J at GLL nodes %.4e\n", (long long)m->num_elem_global,
             o.n[0], o.n[1], o.n[2], m->order, o.kershaw ? ", Kershaw" : "", rep.min_detj);
    for (int k = 0; k < c.num_out; k++) printf("wrote %s\n", c.out[k]);
  }
  hx_mesh_destroy(&m);
  return rc;
}
