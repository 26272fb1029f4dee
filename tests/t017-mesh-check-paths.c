/* t017: hx_mesh_lnumbering and hx_mesh_check give the same answers on the direct
   table path (dense ids, as meshers and curving produce) and on the sorting path
   (sparse ids: every id multiplied by 1000003 and shifted by 10^12): same number
   of L-nodes, same multiplicities, and both find a moved node copy (equal ids with
   different coordinates), counting the same copies. Compared through the golden file. */
#include <math.h>
#include <stdio.h>

#include "hx_box.h"
#include "hx_test_meshes.h"

static void run(const char *what, hx_mesh *m) {
  hx_lmap *map;
  hx_mesh_lnumbering(m, &map);
  long long mult_sum = 0, max_mult = 0;
  for (hx_lid l = 0; l < map->num_lnodes; l++) {
    mult_sum += map->mult[l];
    if (map->mult[l] > max_mult) max_mult = map->mult[l];
  }
  int sorted = 1;
  for (hx_lid l = 1; l < map->num_lnodes; l++) sorted &= map->l2g[l] > map->l2g[l - 1];
  hx_mesh_check_report r;
  int rc = hx_mesh_check(m, 1e-12, &r);
  printf("%-7s lnodes %d mult_sum %lld max_mult %lld sorted %d check %d mismatch %lld bad %lld\n", what, map->num_lnodes,
         mult_sum, max_mult, sorted, rc, (long long)r.id_mismatch, (long long)r.bad_elems);
  hx_lmap_destroy(&map);
}

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  hx_box_opts o;
  hx_box_opts_default(&o);
  o.n[0] = 6;
  o.n[1] = 5;
  o.n[2] = 4;
  o.order = 3;
  hx_mesh *m;
  if (hx_mesher_box(HX_COMM_SELF, &o, &m)) return 1;
  size_t n = (size_t)m->num_elem * hx_mesh_nodes_per_elem(m);
  run("dense", m);
  for (size_t i = 0; i < n; i++) m->node_id[i] = m->node_id[i] * 1000003 + 1000000000000LL;
  run("sparse", m);
  for (size_t i = 0; i < n; i++) m->node_id[i] = (m->node_id[i] - 1000000000000LL) / 1000003;
  /* move one copy of a shared node (corner 7 of element 0 is shared with 7 others) */
  hx_mesh_elem_x(m, 0, 0)[hx_corner_lex(m->nd, 7)] += 1e-3;
  run("dense", m);
  for (size_t i = 0; i < n; i++) m->node_id[i] = m->node_id[i] * 1000003 + 1000000000000LL;
  run("sparse", m);
  hx_mesh_destroy(&m);
  return tm_finalize(0);
}
