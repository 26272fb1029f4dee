/* t010: curving a cubed-sphere shell (6 hexes, 1 <= r <= 2) to order N = 1..8:
   every boundary node lies on its sphere to 1e-13 relative, equal ids have equal
   coordinates, det J > 0, the ids are dense, and the mesh volume converges to
   4/3 pi (2^3 - 1) exponentially. The nodes are symmetric about each arc's midpoint,
   so an odd order gains little over the even order below it and the error falls in
   pairs: asserted, every step must not increase the error and every two steps must
   divide it by at least 20 (measured: about 30, i.e. roughly 5.5x per order). Also curving one block at a time gives
   bitwise the same nodes and ids as the whole-mesh call, also when the blocks are
   curved concurrently by several OpenMP threads. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_curve.h"
#include "hx_memory.h"
#include "hx_test_meshes.h"

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  hx_mesh *lo;
  if (tm_shell(1, 1, 1.0, 2.0, &lo)) {
    printf("mesh: %s\n", hx_error_message());
    return 1;
  }
  double exact = 4.0 / 3.0 * HX_PI * 7.0, err_hist[10] = {0};
  int fail = 0;
  printf("N   volume              rel_error   ratio  ratio2  check\n");
  for (int N = 1; N <= 8; N++) {
    hx_mesh *h;
    if (hx_mesh_raise_order(lo, N, &h)) {
      printf("N %d raise: %s\n", N, hx_error_message());
      return 1;
    }
    hx_mesh_check_report r;
    int rc = hx_mesh_check(h, 1e-13, &r);
    double vol = tm_volume(h), err = fabs(vol - exact) / exact;
    err_hist[N] = err;
    double ratio = N > 1 ? err_hist[N - 1] / err : 0, ratio2 = N > 2 ? err_hist[N - 2] / err : 0;
    printf("%d  %.15f  %.3e  %6.2f  %6.1f  %d\n", N, vol, err, ratio, ratio2, rc);
    if (rc || r.surf_max_rel > 1e-13 || r.bad_elems) {
      printf("N %d: check failed (surface %.2e)\n", N, r.surf_max_rel);
      fail = 1;
    }
    if (N > 1 && ratio < 1) {
      printf("N %d: error grew\n", N);
      fail = 1;
    }
    if (N > 2 && err_hist[N - 2] > 1e-12 && ratio2 < 20) {
      printf("N %d: two-step error ratio %.2f < 20\n", N, ratio2);
      fail = 1;
    }
    /* ids: dense 0..num_nodes-1 here (vertex ids are 0..7 and 0..7 + 8 ... see below) */
    hx_curve_ctx *cc;
    if (hx_curve_create(lo, N, &cc)) return 1;
    hx_lmap *map;
    if (hx_mesh_lnumbering(h, &map)) return 1;
    if (map->num_lnodes != hx_curve_num_nodes(cc)) {
      printf("N %d: %d nodes, context says %lld\n", N, map->num_lnodes, (long long)hx_curve_num_nodes(cc));
      fail = 1;
    }
    if (map->l2g[map->num_lnodes - 1] >= hx_curve_id_bound(cc)) {
      printf("N %d: id beyond bound\n", N);
      fail = 1;
    }
    /* block-wise curving equals the whole-mesh result bit for bit */
    size_t npe = (size_t)hx_mesh_nodes_per_elem(h);
    double *xb;
    hx_gid *ib;
    if (hx_malloc(2 * 3 * npe * sizeof(double), &xb) || hx_malloc(2 * npe * sizeof(hx_gid), &ib)) return 1;
    for (hx_lid e0 = 0; e0 < lo->num_elem; e0 += 2) {
      hx_curve_block(cc, e0, 2, xb, ib);
      if (memcmp(xb, h->x + e0 * 3 * npe, 2 * 3 * npe * sizeof(double)) ||
          memcmp(ib, h->node_id + e0 * npe, 2 * npe * sizeof(hx_gid))) {
        printf("N %d: block %d differs\n", N, e0);
        fail = 1;
      }
    }
    hx_free(&xb);
    hx_free(&ib);
    /* disjoint blocks curved concurrently from several threads give the same */
    double *xall;
    hx_gid *iall;
    if (hx_malloc(lo->num_elem * 3 * npe * sizeof(double), &xall) || hx_malloc(lo->num_elem * npe * sizeof(hx_gid), &iall))
      return 1;
#pragma omp parallel for schedule(static, 1)
    for (hx_lid e = 0; e < lo->num_elem; e++) hx_curve_block(cc, e, 1, xall + e * 3 * npe, iall + e * npe);
    if (memcmp(xall, h->x, lo->num_elem * 3 * npe * sizeof(double)) ||
        memcmp(iall, h->node_id, lo->num_elem * npe * sizeof(hx_gid))) {
      printf("N %d: concurrent blocks differ\n", N);
      fail = 1;
    }
    hx_free(&xall);
    hx_free(&iall);
    hx_lmap_destroy(&map);
    hx_curve_destroy(&cc);
    hx_mesh_destroy(&h);
  }
  hx_mesh_destroy(&lo);
  return tm_finalize(fail);
}
