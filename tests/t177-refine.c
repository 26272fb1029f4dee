/* t177: hx_mesh_refine (optimize --refine K): every element split into 8 exactly on its curved
   geometry. On the 6-element spherical shell (order 3, curved faces), the 6x2x2 Kershaw box
   (order 2) and the one-element cubic map (order 3), refined once and twice:
   - every child's map equals its parent's at 20 reference points per child (the parent evaluated
     at the child's half-box parameters): the geometry is unchanged;
   - the volume (exact Gauss rule) and every boundary id's area are unchanged, with 4 times the
     faces;
   - the node ids are consistent (hx_mesh_check: equal ids => equal coordinates, det J > 0,
     face nodes on their surfaces: the planes are kept, the sphere faces' surface is dropped, the
     children's nodes lie on the polynomial, not on the sphere) and their count is the structured
     count where the mesh is a box: (2 n N + 1) per direction. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_curve.h"
#include "hx_error.h"
#include "hx_iotest.h"

static int fails;
#define CHECK(ok, ...)                                                                                                           \
  do {                                                                                                                           \
    int ok_ = (ok);                                                                                                              \
    printf(ok_ ? "ok   " : "FAIL ");                                                                                             \
    printf(__VA_ARGS__);                                                                                                         \
    printf("\n");                                                                                                                \
    fails += !ok_;                                                                                                               \
  } while (0)

static void run(const char *kind, int order, long long nodes1, long long nodes2) {
  hx_mesh *m = NULL, *r1 = NULL, *r2 = NULL;
  if (hx_iotest_make(kind, order, &m) || hx_mesh_refine(m, &r1) || hx_mesh_refine(r1, &r2)) {
    CHECK(0, "%s: make and refine: %s", kind, hx_error_message());
    return;
  }
  const hx_mesh *lv[3] = {m, r1, r2};
  double v0 = hx_iotest_volume(m, NULL);
  for (int l = 1; l <= 2; l++) {
    const hx_mesh *p = lv[l - 1], *c = lv[l];
    int curved = 0;
    for (hx_lid f = 0; f < c->num_faces; f++)
      curved += c->faces[f].surf >= 0 && c->surfaces[c->faces[f].surf].type != HX_SURF_PLANE;
    CHECK(curved == 0, "%s refined %d: no face keeps a curved surface (%d do)", kind, l, curved);
    CHECK(c->num_elem == 8 * p->num_elem && c->num_faces == 4 * p->num_faces && c->order == order,
          "%s refined %d: %d elements, %d faces (8x, 4x)", kind, l, (int)c->num_elem, (int)c->num_faces);
    /* children against parents at fixed pseudo-random points */
    int nd = order + 1;
    double g[HX_MAX_ND], w[HX_MAX_ND], err = 0, scale = 0;
    hx_gll(nd, g, w);
    unsigned s = 12345;
    for (hx_lid e = 0; e < c->num_elem; e++) {
      hx_lid pe = e / 8;
      int ch = (int)(e % 8), a[3] = {ch & 1, (ch >> 1) & 1, (ch >> 2) & 1};
      for (int q = 0; q < 20; q++) {
        double t[3], tp[3];
        for (int d = 0; d < 3; d++) {
          s = s * 1103515245u + 12345u;
          t[d] = (s >> 8) / 16777216.0;
          tp[d] = 0.5 * (a[d] + t[d]);
        }
        for (int d = 0; d < 3; d++) {
          double xc = hx_iotest_eval(nd, g, hx_mesh_elem_x(c, e, d), t), xp = hx_iotest_eval(nd, g, hx_mesh_elem_x(p, pe, d), tp);
          if (fabs(xc - xp) > err) err = fabs(xc - xp);
          if (fabs(xp) > scale) scale = fabs(xp);
        }
      }
    }
    CHECK(err < 1e-13 * scale, "%s refined %d: children = parents at 20 points each (max difference %.1e of %.2f)", kind, l, err,
          scale);
    double v = hx_iotest_volume(c, NULL);
    CHECK(fabs(v - v0) < 1e-12 * v0, "%s refined %d: volume %.15g = %.15g", kind, l, v, v0);
    for (int b = 1; b < 8; b++) {
      int n0 = 0, n1 = 0;
      double a0 = hx_iotest_bid_area(m, b, &n0), a1 = hx_iotest_bid_area(c, b, &n1);
      if (n0)
        CHECK(n1 == n0 << (2 * l) && fabs(a1 - a0) < 1e-9 * a0, "%s refined %d: id %d: %d faces, area %.12f = %.12f", kind, l, b,
              n1, a1, a0);
    }
    hx_mesh_check_report rep;
    int ok = hx_mesh_check(c, 1e-9, &rep) == HX_OK;
    hx_lmap *map = NULL;
    hx_mesh_lnumbering(c, &map);
    long long want = l == 1 ? nodes1 : nodes2;
    CHECK(ok && rep.id_mismatch == 0 && rep.min_detj > 0 && (want == 0 || map->num_lnodes == want),
          "%s refined %d: mesh check %s, %lld nodes%s", kind, l, ok ? "passes" : hx_error_message(), (long long)map->num_lnodes,
          want ? " (structured count)" : "");
    hx_lmap_destroy(&map);
  }
  hx_mesh_destroy(&m);
  hx_mesh_destroy(&r1);
  hx_mesh_destroy(&r2);
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#endif
  (void)argc;
  (void)argv;
  /* Kershaw 6x2x2 at order 2: (2 * 6 * 2 + 1) (2 * 2 * 2 + 1)^2 nodes once refined, ... */
  run("kershaw", 2, 25LL * 9 * 9, 49LL * 17 * 17);
  run("sphere", 3, 0, 0);
  run("cubic", 3, 7LL * 7 * 7, 13LL * 13 * 13);
  printf("%s\n", fails ? "FAILED" : "PASSED");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fails != 0;
}
