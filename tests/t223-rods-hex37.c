/* t223: a hexagonal 37-pin bundle in a hex duct at N = 7, 2 layers: watertight
   conformity, rod nodes on their cylinders to 1e-12, duct faces on the six duct
   planes (hx_mesh_check), det J > 0 at every GLL node, scaled Jacobian >= 0.5, and
   the fluid volume equal to (sqrt(3)/2 F^2 - 37 pi r^2) x height. */
#include <math.h>
#include <stdio.h>

#include "hx_curve.h"
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
  int fail = hx_rods_preset(&o, "hex37");
  o.order = 7;
  o.nz[0] = 2;
  o.z[1] = 1.5;
  o.grading[0] = 2.0;
  hx_mesh *m = NULL;
  hx_rods_info info;
  if (fail || hx_mesher_rods(HX_COMM_SELF, &o, &m, &info)) {
    printf("mesher failed: %s\n", hx_error_message());
    return 1;
  }
  long faces[8] = {0};
  int planes = 0;
  for (hx_lid k = 0; k < m->num_faces; k++) faces[m->faces[k].bid]++;
  for (int s = 0; s < m->num_surfaces; s++) planes += m->surfaces[s].type == HX_SURF_PLANE;
  hx_mesh_check_report r;
  int rc = hx_mesh_check(m, 1e-12, &r);
  long open = rc_conformity(m);
  double cyl = rc_cylinder_error(m, 1, 1);
  rc_stats s = rc_element_stats(m);
  double F = info.duct_size[0], r0 = 0.292;
  double exact = (sqrt(3.0) / 2 * F * F - 37 * HX_PI * r0 * r0) * 1.5;
  printf("rods %d layers %d elements %d\n", info.num_rods, info.num_layers, (int)m->num_elem);
  printf("surfaces: planes %d (6 duct + 2 ends), duct faces %ld, inlet %ld outlet %ld\n", planes, faces[4], faces[2], faces[3]);
  printf("check %d conformity violations %ld on cylinders %d\n", rc, open, cyl < 1e-12);
  printf("min det J positive %d scaled Jacobian >= 0.5 %d\n", s.min_detj > 0, s.min_ratio >= 0.5);
  printf("volume %.9f exact %.9f rel err < 1e-9 %d\n", s.volume, exact, fabs(s.volume - exact) < 1e-9 * exact);
  fprintf(stderr, "scaled Jacobian min %.4f mean %.4f max aspect %.2f flat-to-flat %.6f\n", s.min_ratio, s.mean_ratio,
          s.max_aspect, F);
  fail = rc || open || cyl >= 1e-12 || s.min_detj <= 0 || s.min_ratio < 0.5 || fabs(s.volume - exact) >= 1e-9 * exact ||
         planes != 8 || info.num_rods != 37;
  hx_mesh_destroy(&m);

  /* the same bundle built at order 1 and raised to 7 by the curving stage
     (core/curve.c): valid, rods on their cylinders, same volume to 1e-6 */
  o.order = 1;
  hx_mesh *m1 = NULL, *m7 = NULL;
  if (hx_mesher_rods(HX_COMM_SELF, &o, &m1, &info) || hx_mesh_raise_order(m1, 7, &m7)) {
    printf("raise failed: %s\n", hx_error_message());
    return 1;
  }
  rc_stats s7 = rc_element_stats(m7);
  double cyl7 = rc_cylinder_error(m7, 1, 1);
  long open7 = rc_conformity(m7);
  printf("curve.c order 7: min det J positive %d on cylinders %d conformity violations %ld volume rel err < 1e-6 %d\n",
         s7.min_detj > 0, cyl7 < 1e-12, open7, fabs(s7.volume - exact) < 1e-6 * exact);
  fprintf(stderr, "curve.c: scaled Jacobian min %.4f, volume rel err %.2e\n", s7.min_ratio, fabs(s7.volume - exact) / exact);
  fail |= s7.min_detj <= 0 || cyl7 >= 1e-12 || open7 || fabs(s7.volume - exact) >= 1e-6 * exact;
  hx_mesh_destroy(&m1);
  hx_mesh_destroy(&m7);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
