/* t176: Exodus II files written here through libexodusii are read back by hx_import_exodus.

   The mesh: the unit cube in 2x2x2 elements, two element blocks (ids 10: the lower layer in the
   standard frame, 20: the upper layer turned a quarter about z, so Exodus sides and hexpack faces
   differ there), six named side sets (ids 1..6 on x = 0, x = 1, y = 0, y = 1, z = 0, z = 1). The
   nodes are placed by Exodus's node table (SEACAS element conventions: corners, bottom edges,
   vertical edges, top edges, then node 21 the centre, 22/23 the faces z-/z+, 24/25 x-/x+, 26/27
   y-/y+) at the images of a polynomial map: F1 (trilinear) for HEX8, F2 (degree 2 per variable,
   in the serendipity space) for HEX20 and HEX27, and a file with one block of each of HEX27 and
   HEX8 under F1. Checks: per element and total volume against the analytic integral of det F',
   per side set 4 faces with the area of the mapped cube side and the name, the block ids as
   attributes; a TET4 block is refused in one line naming the block and its type. */
#include <exodusII.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_io.h"
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

/* Exodus HEX27 node (1-based index - 1) -> position on the 3x3x3 grid (SEACAS documentation) */
static const int NODE[27][3] = {{0, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0}, {0, 0, 2}, {2, 0, 2}, {2, 2, 2},
                                {0, 2, 2}, {1, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 1},
                                {2, 2, 1}, {0, 2, 1}, {1, 0, 2}, {2, 1, 2}, {1, 2, 2}, {0, 1, 2}, {1, 1, 1},
                                {1, 1, 0}, {1, 1, 2}, {0, 1, 1}, {2, 1, 1}, {1, 0, 1}, {1, 2, 1}};
/* Exodus side s (1-based) = nodes (1-based): 1: 1 2 6 5, 2: 2 3 7 6, 3: 3 4 8 7, 4: 1 5 8 4, 5: 1 4 3 2, 6: 5 6 7 8 */
static const int SIDE[6][4] = {{1, 2, 6, 5}, {2, 3, 7, 6}, {3, 4, 8, 7}, {1, 5, 8, 4}, {1, 4, 3, 2}, {5, 6, 7, 8}};

static void F1(const double p[3], double y[3], double J[3][3]) {
  double x = p[0], v = p[1], z = p[2];
  y[0] = x * (1 + 0.5 * v), y[1] = v, y[2] = z * (1 + 0.25 * x * v);
  double j[3][3] = {{1 + 0.5 * v, 0.5 * x, 0}, {0, 1, 0}, {0.25 * v * z, 0.25 * x * z, 1 + 0.25 * x * v}};
  memcpy(J, j, sizeof j);
}

static void F2(const double p[3], double y[3], double J[3][3]) {
  double x = p[0], v = p[1], z = p[2];
  y[0] = x * (1 + 0.5 * v) + 0.1 * z * z, y[1] = v + 0.1 * x * x, y[2] = z * (1 + 0.25 * x * v);
  double j[3][3] = {{1 + 0.5 * v, 0.5 * x, 0.2 * z}, {0.2 * x, 1, 0}, {0.25 * v * z, 0.25 * x * z, 1 + 0.25 * x * v}};
  memcpy(J, j, sizeof j);
}

typedef void (*mapfn)(const double p[3], double y[3], double J[3][3]);

static double det3(double J[3][3]) {
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

/* element e = bi + 2 bj + 4 bk: grid point (a,b,c) in 0..2 of its own frame -> global lattice
   point in 0..4 (step 1/4); the upper layer (bk = 1) is turned a quarter about z */
static void lattice(int e, const int g[3], int L[3]) {
  int bi = e & 1, bj = (e >> 1) & 1, bk = e >> 2;
  int a = g[0], b = g[1], c = g[2];
  if (bk) {
    int t = a; /* local x along global y, local y along -global x */
    a = 2 - b, b = t;
  }
  L[0] = 2 * bi + a, L[1] = 2 * bj + b, L[2] = 2 * bk + c;
}

/* the analytic volume of element e's image: 8-point Gauss per direction (exact for det F') */
static double elem_volume(int e, mapfn F) {
  double q[8], w[8], v = 0;
  hx_gauss(8, q, w);
  for (int k = 0; k < 8; k++)
    for (int j = 0; j < 8; j++)
      for (int i = 0; i < 8; i++) {
        double p[3] = {0.5 * ((e & 1) + q[i]), 0.5 * (((e >> 1) & 1) + q[j]), 0.5 * ((e >> 2) + q[k])}, y[3], J[3][3];
        F(p, y, J);
        v += 0.125 * w[i] * w[j] * w[k] * det3(J);
      }
  return v;
}

/* the analytic area of the mapped cube side: coordinate d = s */
static double side_area(int d, int s, mapfn F) {
  double q[24], w[24], a = 0;
  hx_gauss(24, q, w);
  int u = (d + 1) % 3, v = (d + 2) % 3;
  for (int j = 0; j < 24; j++)
    for (int i = 0; i < 24; i++) {
      double p[3], y[3], J[3][3];
      p[d] = s, p[u] = q[i], p[v] = q[j];
      F(p, y, J);
      double n[3] = {J[1][u] * J[2][v] - J[2][u] * J[1][v], J[2][u] * J[0][v] - J[0][u] * J[2][v],
                     J[0][u] * J[1][v] - J[1][u] * J[0][v]};
      a += w[i] * w[j] * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    }
  return a;
}

/* write the file: blocks 10 (elements 0..3) and 20 (4..7) with npe[0], npe[1] nodes each (8, 20
   or 27; the element type name given), side sets on the cube's sides; nodes on the 5^3 lattice */
static int write_exo(const char *path, const char *type[2], const int npe[2], mapfn F) {
  int cpu = 8, io = 8;
  int ex = ex_create(path, EX_CLOBBER, &cpu, &io);
  if (ex < 0) return 1;
  ex_put_init(ex, "t176", 3, 125, 8, 2, 0, 6);
  double x[125], y[125], z[125];
  for (int k = 0; k < 5; k++)
    for (int j = 0; j < 5; j++)
      for (int i = 0; i < 5; i++) {
        double p[3] = {i / 4.0, j / 4.0, k / 4.0}, Y[3], J[3][3];
        F(p, Y, J);
        int n = i + 5 * (j + 5 * k);
        x[n] = Y[0], y[n] = Y[1], z[n] = Y[2];
      }
  ex_put_coord(ex, x, y, z);
  int conn[4 * 27];
  int eid[2] = {10, 20};
  for (int b = 0; b < 2; b++) {
    ex_put_block(ex, EX_ELEM_BLOCK, eid[b], type[b], 4, npe[b], 0, 0, 0);
    for (int q = 0; q < 4; q++)
      for (int p = 0; p < npe[b]; p++) {
        int L[3];
        lattice(4 * b + q, NODE[p], L);
        conn[q * npe[b] + p] = 1 + L[0] + 5 * (L[1] + 5 * L[2]);
      }
    ex_put_conn(ex, EX_ELEM_BLOCK, eid[b], conn, NULL, NULL);
  }
  /* side sets: the element's side whose 4 corner nodes lie on the cube side */
  const char *names[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
  for (int d = 0; d < 3; d++)
    for (int s = 0; s < 2; s++) {
      int el[4], sl[4], n = 0;
      for (int e = 0; e < 8; e++)
        for (int side = 0; side < 6; side++) {
          int on = 1;
          for (int c = 0; c < 4; c++) {
            int L[3];
            lattice(e, NODE[SIDE[side][c] - 1], L);
            on &= L[d] == 4 * s;
          }
          if (on) el[n] = e + 1, sl[n] = side + 1, n++;
        }
      int id = 1 + 2 * d + s;
      ex_put_set_param(ex, EX_SIDE_SET, id, n, 0);
      ex_put_set(ex, EX_SIDE_SET, id, el, sl);
    }
  ex_put_names(ex, EX_SIDE_SET, (char **)names);
  return ex_close(ex) < 0;
}

static void check_file(const char *what, const char *path, mapfn F, int order) {
  hx_mesh *m = NULL;
  if (hx_import(HX_COMM_SELF, path, &m)) {
    CHECK(0, "%s: read: %s", what, hx_error_message());
    return;
  }
  double ev[8], err = 0;
  double vol = m->num_elem == 8 ? hx_iotest_volume(m, ev) : 0, ref = 0;
  for (int e = 0; e < 8 && m->num_elem == 8; e++) {
    double r = elem_volume(e, F);
    ref += r;
    if (fabs(ev[e] - r) > err) err = fabs(ev[e] - r);
  }
  CHECK(m->num_elem == 8 && m->order == order, "%s: 8 elements of order %d (got %d, %d)", what, order, (int)m->num_elem,
        m->order);
  CHECK(err < 1e-12 && fabs(vol - ref) < 1e-12, "%s: element volumes = analytic (max error %.1e), total %.15g = %.15g", what, err,
        vol, ref);
  const char *names[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
  for (int b = 1; b <= 6; b++) {
    int count = 0;
    double a = hx_iotest_bid_area(m, b, &count), r = side_area((b - 1) / 2, (b - 1) % 2, F);
    const char *nm = b < m->num_bnames && m->bnames[b] ? m->bnames[b] : "";
    CHECK(count == 4 && fabs(a - r) < 1e-9 && !strcmp(nm, names[b - 1]), "%s: side set %d '%s': %d faces, area %.12f = %.12f",
          what, b, nm, count, a, r);
  }
  int attr_ok = m->num_elem == 8;
  for (int e = 0; e < 8 && attr_ok; e++) attr_ok = m->elem_attr[e] == (e < 4 ? 10 : 20);
  CHECK(attr_ok, "%s: block ids 10, 20 as element attributes", what);
  hx_mesh_check_report rep;
  CHECK(hx_mesh_check(m, 1e-9, &rep) == HX_OK && rep.min_detj > 0, "%s: mesh check (shared nodes equal, det J > 0): %s", what,
        hx_error_message());
  hx_mesh_destroy(&m);
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#endif
  (void)argc;
  (void)argv;
  const char *hex8[2] = {"HEX8", "HEX8"}, *hex20[2] = {"HEX20", "HEX20"}, *hex27[2] = {"HEX27", "HEX27"},
             *mixed[2] = {"HEX27", "HEX8"}, *tet[2] = {"HEX8", "TETRA4"};
  int n8[2] = {8, 8}, n20[2] = {20, 20}, n27[2] = {27, 27}, nmix[2] = {27, 8}, ntet[2] = {8, 4};
  CHECK(!write_exo("t176-hex8.exo", hex8, n8, F1), "libexodusii writes t176-hex8.exo");
  CHECK(!write_exo("t176-hex20.exo", hex20, n20, F2), "libexodusii writes t176-hex20.exo");
  CHECK(!write_exo("t176-hex27.exo", hex27, n27, F2), "libexodusii writes t176-hex27.exo");
  CHECK(!write_exo("t176-mixed.exo", mixed, nmix, F1), "libexodusii writes t176-mixed.exo");
  CHECK(!write_exo("t176-tet.exo", tet, ntet, F1), "libexodusii writes t176-tet.exo");
  check_file("HEX8", "t176-hex8.exo", F1, 1);
  check_file("HEX20", "t176-hex20.exo", F2, 2);
  check_file("HEX27", "t176-hex27.exo", F2, 2);
  check_file("HEX27 + HEX8 blocks", "t176-mixed.exo", F1, 2);
  hx_mesh *m = NULL;
  int rc = hx_import(HX_COMM_SELF, "t176-tet.exo", &m);
  const char *msg = hx_error_message();
  CHECK(rc != HX_OK && strstr(msg, "t176-tet.exo: element block 20 is TETRA4 with 4 nodes; only hexahedra are read") &&
            !strchr(msg, '\n'),
        "a TETRA4 block is refused: %s", msg);
  hx_mesh_destroy(&m);
  printf("%s\n", fails ? "FAILED" : "PASSED");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fails != 0;
}
