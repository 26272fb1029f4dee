/* t012: a p-raise reproduces the geometry. The Kershaw box (6x4x4, eps 0.3, s = 1)
   is trilinear in every element, so raising its order-1 mesh to N = 2..5 must give
   the nodes that the box mesher places directly at order N (to 1e-14), with the
   same connectivity: two E-nodes share a curved id exactly when they share a
   lattice id. Raising an order-3 mesh (s = 3, not trilinear) to order 3 again
   reproduces it, and raising it to 6 keeps every order-3 node's position
   (interpolation of a polynomial of degree 3 is exact). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hx_box.h"
#include "hx_curve.h"
#include "hx_memory.h"
#include "hx_test_meshes.h"

static hx_mesh *box(int order, int smooth) {
  hx_box_opts o;
  hx_box_opts_default(&o);
  o.n[0] = 6;
  o.n[1] = 4;
  o.n[2] = 4;
  o.order = order;
  o.kershaw = 1;
  o.eps_y = o.eps_z = 0.3;
  o.smooth = smooth;
  hx_mesh *m = NULL;
  if (hx_mesher_box(HX_COMM_SELF, &o, &m)) printf("box: %s\n", hx_error_message());
  return m;
}

/* max |a - b| over nodes, and whether the id partitions agree */
static double compare(const hx_mesh *a, const hx_mesh *b, int *same_conn) {
  size_t n = (size_t)a->num_elem * hx_mesh_nodes_per_elem(a);
  double d = 0;
  for (size_t i = 0; i < 3 * n; i++) d = fmax(d, fabs(a->x[i] - b->x[i]));
  hx_lmap *ma, *mb;
  hx_mesh_lnumbering(a, &ma);
  hx_mesh_lnumbering(b, &mb);
  /* same partition <=> the map L_a -> L_b is well defined and a bijection */
  int ok = ma->num_lnodes == mb->num_lnodes;
  hx_lid *f = NULL;
  hx_malloc((size_t)ma->num_lnodes * sizeof(hx_lid), &f);
  for (hx_lid l = 0; l < ma->num_lnodes; l++) f[l] = -1;
  for (size_t i = 0; i < n && ok; i++) {
    hx_lid la = ma->e2l[i], lb = mb->e2l[i];
    if (f[la] < 0) f[la] = lb;
    else if (f[la] != lb) ok = 0;
  }
  *same_conn = ok;
  hx_free(&f);
  hx_lmap_destroy(&ma);
  hx_lmap_destroy(&mb);
  return d;
}

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  int fail = 0;
  hx_mesh *lo = box(1, 1);
  if (!lo) return 1;
  for (int N = 2; N <= 5; N++) {
    hx_mesh *ref = box(N, 1), *h;
    if (!ref || hx_mesh_raise_order(lo, N, &h)) {
      printf("raise: %s\n", hx_error_message());
      return 1;
    }
    int conn;
    double d = compare(h, ref, &conn);
    int chk = hx_mesh_check(h, 1e-13, NULL);
    printf("raise 1 -> %d: max node difference %s, same connectivity %d, check %d\n", N, d < 1e-14 ? "< 1e-14" : ">= 1e-14", conn,
           chk);
    if (d >= 1e-14 || !conn || chk) fail = 1;
    hx_mesh_destroy(&ref);
    hx_mesh_destroy(&h);
  }
  hx_mesh_destroy(&lo);
  hx_mesh *m3 = box(3, 3), *same, *up;
  if (!m3 || hx_mesh_raise_order(m3, 3, &same) || hx_mesh_raise_order(m3, 6, &up)) {
    printf("raise: %s\n", hx_error_message());
    return 1;
  }
  int conn;
  double d = compare(same, m3, &conn);
  printf("raise 3 -> 3 (s = 3): max node difference %s, same connectivity %d\n", d < 1e-14 ? "< 1e-14" : ">= 1e-14", conn);
  if (d >= 1e-14 || !conn) fail = 1;
  /* every order-3 GLL node is not an order-6 GLL node, so compare by evaluating the
     order-6 element at the order-3 nodes */
  double x3[HX_MAX_ND], x6[HX_MAX_ND], w[HX_MAX_ND], B[HX_MAX_ND * HX_MAX_ND];
  hx_gll(4, x3, w);
  hx_gll(7, x6, w);
  hx_lagrange_matrices(7, x6, 4, x3, B, NULL);
  double dmax = 0;
  for (hx_lid e = 0; e < m3->num_elem; e++)
    for (int c = 0; c < 3; c++) {
      const double *a = hx_mesh_elem_x(up, e, c), *b = hx_mesh_elem_x(m3, e, c);
      for (int k = 0; k < 4; k++)
        for (int j = 0; j < 4; j++)
          for (int i = 0; i < 4; i++) {
            double s = 0;
            for (int kk = 0; kk < 7; kk++)
              for (int jj = 0; jj < 7; jj++)
                for (int ii = 0; ii < 7; ii++) s += B[i * 7 + ii] * B[j * 7 + jj] * B[k * 7 + kk] * a[hx_lex(7, ii, jj, kk)];
            dmax = fmax(dmax, fabs(s - b[hx_lex(4, i, j, k)]));
          }
    }
  printf("raise 3 -> 6 (s = 3): order-6 map at the order-3 nodes differs by %s\n", dmax < 1e-13 ? "< 1e-13" : ">= 1e-13");
  if (dmax >= 1e-13) fail = 1;
  hx_mesh_destroy(&m3);
  hx_mesh_destroy(&same);
  hx_mesh_destroy(&up);
  return tm_finalize(fail);
}
