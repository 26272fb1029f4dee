/* t201: the Kershaw box 24^3, eps 0.3, s = 1 has min det J = 0.09 (1/24)^3 =
   6.5104e-06 at the GLL nodes for every order p = 1..4 (the Kershaw map), its
   volume is 1, shared nodes agree, and bad parameters are refused. */
#include <math.h>
#include <stdio.h>

#include "hx_basis.h"
#include "hx_box.h"
#include "hx_error.h"

static double mesh_volume(const hx_mesh *m) {
  double x[HX_MAX_ND], w[HX_MAX_ND], D[HX_MAX_ND * HX_MAX_ND];
  int nd = m->nd;
  hx_gll(nd, x, w);
  hx_mesh_gll_derivative(nd, D);
  double v = 0;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          double J[3][3];
          v += w[i] * w[j] * w[k] * hx_mesh_jacobian_at_node(m, D, e, i, j, k, J);
        }
  hx_comm_sum_double(m->comm, &v, 1);
  return v;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  hx_comm comm = MPI_COMM_WORLD;
#else
  (void)argc;
  (void)argv;
  hx_comm comm = HX_COMM_SELF;
#endif
  int fail = 0, rank = hx_comm_rank(comm);
  for (int p = 1; p <= 4; p++) {
    hx_box_opts o;
    hx_box_opts_default(&o);
    o.n[0] = o.n[1] = o.n[2] = 24;
    o.order = p;
    o.kershaw = 1;
    o.eps_y = o.eps_z = 0.3;
    hx_mesh *m;
    if (hx_mesher_box(comm, &o, &m)) {
      printf("box failed: %s\n", hx_error_message());
      return 1;
    }
    hx_mesh_check_report r;
    int rc = hx_mesh_check(m, 1e-12, &r);
    double vol = mesh_volume(m);
    if (rank == 0) printf("p %d min_detj %.4e volume %.9f check %d\n", p, r.min_detj, vol, rc);
    if (rc || fabs(r.min_detj - 0.09 / 13824.0) > 1e-12 || fabs(vol - 1.0) > 1e-10) fail = 1;
    hx_mesh_destroy(&m);
  }
  /* smoothness 2 and 3 stay valid */
  for (int s = 2; s <= 3; s++) {
    hx_box_opts o;
    hx_box_opts_default(&o);
    o.n[0] = 12;
    o.n[1] = o.n[2] = 4;
    o.order = 3;
    o.kershaw = 1;
    o.eps_y = o.eps_z = 0.3;
    o.smooth = s;
    hx_mesh *m;
    if (hx_mesher_box(comm, &o, &m)) return 1;
    hx_mesh_check_report r;
    int rc = hx_mesh_check(m, 1e-12, &r);
    if (rank == 0) printf("smooth %d check %d positive %d\n", s, rc, r.min_detj > 0);
    if (rc) fail = 1;
    hx_mesh_destroy(&m);
  }
  /* refused parameters */
  int bad[3][4] = {{25, 24, 24, 0}, {24, 23, 24, 0}, {24, 24, 24, 1}};
  for (int t = 0; t < 3; t++) {
    hx_box_opts o;
    hx_box_opts_default(&o);
    o.n[0] = bad[t][0];
    o.n[1] = bad[t][1];
    o.n[2] = bad[t][2];
    o.kershaw = 1;
    o.eps_y = bad[t][3] ? 1.5 : 0.3;
    o.eps_z = 0.3;
    hx_mesh *m = NULL;
    hx_error_clear();
    int rc = hx_mesher_box(comm, &o, &m);
    if (rank == 0) printf("bad %d refused %d\n", t, rc == HX_ERR_INPUT);
    if (rc != HX_ERR_INPUT || m) fail = 1;
  }
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
