/* t221: the PWR 17x17 preset, one layer at N = 7: at most 27,700 elements per layer,
   264 fuel rods and 25 tubes, watertight conformity, rod-surface nodes on their
   cylinders to 1e-12 relative, det J > 0 at every GLL node, Nek5000 scaled Jacobian
   (min/max det J per element) >= 0.5 for every element, and the fluid cross-section
   equal to box area minus rod areas. */
#include <math.h>
#include <stdio.h>

#include "hx_error.h"
#include "hx_rods.h"
#include "rods_checks.h"

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#else
  (void)argc, (void)argv;
#endif
  hx_rods_opts o;
  hx_rods_opts_default(&o);
  int fail = hx_rods_preset(&o, "pwr17x17");
  o.order = 7;
  o.separate_ids = 1;
  o.z[1] = 2.0;
  hx_mesh *m = NULL;
  hx_rods_info info;
  if (fail || hx_mesher_rods(HX_COMM_SELF, &o, &m, &info)) {
    printf("mesher failed: %s\n", hx_error_message());
    return 1;
  }
  /* rods per type from the faces: each rod has the same number of sectors on face 0 */
  long faces[8] = {0};
  for (hx_lid k = 0; k < m->num_faces; k++) faces[m->faces[k].bid]++;
  int rods_by_type[3] = {0};
  for (int s = 0; s < m->num_surfaces; s++)
    if (m->surfaces[s].type == HX_SURF_CYLINDER) rods_by_type[fabs(m->surfaces[s].r - 0.475) < 1e-12 ? 0 : 1]++;
  printf("elements per layer %d (limit 27700) ok %d\n", (int)info.elems_per_layer, info.elems_per_layer <= 27700);
  printf("rods %d fuel %d tubes %d\n", info.num_rods, rods_by_type[0], rods_by_type[1]);
  printf("names %s %s %s %s %s %s\n", m->bnames[1], m->bnames[2], m->bnames[3], m->bnames[4], m->bnames[5], m->bnames[6]);
  printf("faces: inlet %ld outlet %ld duct_ok %d tube faces>0 %d\n", faces[2], faces[3], faces[4] > 0,
         faces[5] > 0 && faces[6] > 0);
  hx_mesh_check_report r;
  int rc = hx_mesh_check(m, 1e-12, &r);
  long open = rc_conformity(m);
  double cyl = rc_cylinder_error(m, 1, 6);
  rc_stats s = rc_element_stats(m);
  double box = info.duct_size[0] * info.duct_size[1];
  double rods = 264 * HX_PI * 0.475 * 0.475 + 25 * HX_PI * 0.61215 * 0.61215;
  double area = s.volume / 2.0, exact = box - rods;
  printf("check %d conformity violations %ld\n", rc, open);
  printf("rod nodes on cylinders (1e-12) %d\n", cyl < 1e-12);
  printf("min det J positive %d\n", s.min_detj > 0);
  printf("scaled Jacobian min >= 0.5 %d below 0.5: %ld\n", s.min_ratio >= 0.5, s.below_half);
  printf("area %.9f exact %.9f rel err < 1e-9 %d\n", area, exact, fabs(area - exact) < 1e-9 * exact);
  fprintf(stderr, "scaled Jacobian min %.4f mean %.4f, max aspect %.2f, area rel err %.2e\n", s.min_ratio, s.mean_ratio,
          s.max_aspect, fabs(area - exact) / exact);
  fail = info.elems_per_layer > 27700 || rods_by_type[0] != 264 || rods_by_type[1] != 25 || rc || open || cyl >= 1e-12 ||
         s.min_detj <= 0 || s.min_ratio < 0.5 || fabs(area - exact) >= 1e-9 * exact;
  hx_mesh_destroy(&m);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
