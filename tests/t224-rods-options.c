/* t224: options of the rod mesher. A 3x3 lattice with an empty centre site and two
   rod types (separate ids), two axial zones with grading, periodic ends, order 3:
   watertight, area = box - 8 rods (to 1e-5 at order 3), zone z levels
   and the grading ratio, every z-min face paired by hx_rods_periodic_partner with a
   z-max face whose corners are its own shifted by zmax - zmin. Under MPI (NP 2) the
   element count, volume and face counts summed over ranks equal the serial ones. */
#include <math.h>
#include <stdio.h>

#include "hx_error.h"
#include "hx_rods.h"
#include "rods_checks.h"

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  hx_comm comm = MPI_COMM_WORLD;
#else
  (void)argc, (void)argv;
  hx_comm comm = HX_COMM_SELF;
#endif
  int rank = hx_comm_rank(comm), fail = 0;
  hx_rods_opts o;
  hx_rods_opts_default(&o);
  o.pitch = 1.2;
  o.nx = o.ny = 3;
  o.num_types = 2;
  o.radius[0] = 0.4;
  o.radius[1] = 0.45;
  o.map = "121/1-1/121";
  o.separate_ids = 1;
  o.num_zones = 2;
  o.z[0] = 0, o.z[1] = 1, o.z[2] = 3;
  o.nz[0] = 1, o.nz[1] = 3;
  o.grading[0] = 1, o.grading[1] = 4;
  o.periodic = 1;
  o.order = 3;
  hx_mesh *m = NULL;
  hx_rods_info info;
  if (hx_mesher_rods(comm, &o, &m, &info)) {
    printf("mesher failed: %s\n", hx_error_message());
    return 1;
  }
  long faces[8] = {0};
  for (hx_lid k = 0; k < m->num_faces; k++) faces[m->faces[k].bid]++;
  rc_stats s = rc_element_stats(m);
  double vol = s.volume;
  hx_comm_sum_double(comm, &vol, 1);
  double fsum[8];
  for (int b = 0; b < 8; b++) fsum[b] = (double)faces[b];
  hx_comm_sum_double(comm, fsum, 8);
  double exact = (info.duct_size[0] * info.duct_size[1] - 6 * HX_PI * 0.16 - 2 * HX_PI * 0.45 * 0.45) * 3.0;
  /* z levels: zone 2 has 3 layers growing by 4^(1/2) = 2: thicknesses 2/7, 4/7, 8/7, so layer 3 starts at 1 + 6/7 */
  double zmin_l3 = HUGE_VAL;
  int npe = m->nd * m->nd * m->nd;
  for (hx_lid e = 0; e < m->num_elem; e++) {
    hx_gid ge = m->elem_offset + e;
    if (ge / info.elems_per_layer == 3) zmin_l3 = fmin(zmin_l3, hx_mesh_elem_x(m, e, 2)[0]);
  }
  (void)npe;
  hx_comm_min_double(comm, &zmin_l3, 1);
  /* periodic pairing (serial part: both faces on this rank) */
  long pairs = 0, bad_pairs = 0;
  for (hx_lid k = 0; k < m->num_faces; k++) {
    const hx_bface *F = &m->faces[k];
    if (F->bid != 2) continue;
    hx_gid ge = m->elem_offset + F->elem, gp;
    int fp;
    if (!hx_rods_periodic_partner(&info, ge, F->face, &gp, &fp) || fp != 5) {
      bad_pairs++;
      continue;
    }
    hx_lid lp = (hx_lid)(gp - m->elem_offset);
    if (lp < 0 || lp >= m->num_elem) continue;
    pairs++;
    int c4[4], c5[4];
    hx_face_corners(4, c4);
    hx_face_corners(5, c5);
    for (int q = 0; q < 4; q++) {
      int a = hx_corner_lex(m->nd, c4[q]), b = hx_corner_lex(m->nd, c5[q]);
      double dx = hx_mesh_elem_x(m, F->elem, 0)[a] - hx_mesh_elem_x(m, lp, 0)[b];
      double dy = hx_mesh_elem_x(m, F->elem, 1)[a] - hx_mesh_elem_x(m, lp, 1)[b];
      double dz = hx_mesh_elem_x(m, lp, 2)[b] - hx_mesh_elem_x(m, F->elem, 2)[a] - 3.0;
      if (fabs(dx) + fabs(dy) + fabs(dz) > 1e-12) bad_pairs++;
    }
  }
  long open = m->comm == HX_COMM_SELF || hx_comm_size(comm) == 1 ? rc_conformity(m) : 0;
  if (rank == 0) {
    printf("elements %lld per layer %d layers %d rods %d sites %d\n", (long long)m->num_elem_global, (int)info.elems_per_layer,
           info.num_layers, info.num_rods, info.num_sites);
    printf("names %s %s %s %s %s\n", m->bnames[1], m->bnames[2], m->bnames[3], m->bnames[4], m->bnames[5]);
    printf("faces per id: rod_type1 %.0f periodic %.0f %.0f duct %.0f rod_type2 %.0f\n", fsum[1], fsum[2], fsum[3], fsum[4],
           fsum[5]);
    printf("volume rel err < 1e-5 %d, layer 3 starts at z %.9f (1 + 2/7 + 4/7)\n", fabs(vol - exact) < 1e-5 * exact, zmin_l3);
    printf("min det J positive %d conformity violations %ld\n", s.min_detj > 0, open);
    fprintf(stderr, "volume rel err %.2e\n", fabs(vol - exact) / exact);
  }
  double bp = (double)bad_pairs, np = (double)pairs;
  hx_comm_sum_double(comm, &bp, 1);
  hx_comm_sum_double(comm, &np, 1);
  if (rank == 0 && hx_comm_size(comm) == 1) fprintf(stderr, "periodic pairs %.0f mismatched %.0f\n", np, bp);
  fail = fabs(vol - exact) >= 1e-5 * exact || fabs(zmin_l3 - (1 + 6.0 / 7)) > 1e-12 || s.min_detj <= 0 || open || bp > 0 ||
         (hx_comm_size(comm) == 1 && np != info.elems_per_layer);
  int gfail = fail;
  {
    double f = gfail;
    hx_comm_max_double(comm, &f, 1);
    gfail = f > 0;
  }
  hx_mesh_destroy(&m);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return gfail;
}
