/* t016: the quality report of a distributed mesh equals the serial one: the Kershaw
   box 12x6x6 (eps 0.3, 0.2, s = 2) at order 3 on 1, 2 and 4 ranks gives the same
   min/mean/max of every measure and the same worst elements (global indices and
   centroids); the golden file is shared by all rank counts. */
#include <stdio.h>

#include "hx_basis.h"
#include "hx_box.h"
#include "hx_quality.h"
#include "hx_error.h"

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  hx_comm comm = MPI_COMM_WORLD;
#else
  (void)argc, (void)argv;
  hx_comm comm = HX_COMM_SELF;
#endif
  hx_box_opts bo;
  hx_box_opts_default(&bo);
  bo.n[0] = 12;
  bo.n[1] = bo.n[2] = 6;
  bo.order = 3;
  bo.kershaw = 1;
  bo.eps_y = 0.3;
  bo.eps_z = 0.2;
  bo.smooth = 2;
  hx_mesh *m;
  if (hx_mesher_box(comm, &bo, &m)) return 1;
  hx_quality_opts o;
  hx_quality_opts_default(&o);
  o.num_worst = 4;
  o.quad_type = HX_QUAD_GL;
  hx_quality_report r;
  if (hx_quality_mesh(m, &o, NULL, &r)) {
    printf("%s\n", hx_error_message());
    return 1;
  }
  if (hx_comm_rank(comm) == 0) {
    for (int s = 0; s < HX_QUALITY_NUM_STATS; s++)
      printf("%-24s %.10e %.10e %.10e\n", hx_quality_stat_names[s], r.stat[s].min, r.stat[s].mean, r.stat[s].max);
    printf("inverted %lld\n", (long long)r.num_inverted);
    for (int i = 0; i < r.num_worst; i++)
      printf("worst %lld sj %.10e centroid %.8f %.8f %.8f\n", (long long)r.worst[i].elem, r.worst[i].q.scaled_jac,
             r.worst[i].q.centroid[0], r.worst[i].q.centroid[1], r.worst[i].q.centroid[2]);
  }
  hx_quality_report_free(&r);
  hx_mesh_destroy(&m);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return 0;
}
