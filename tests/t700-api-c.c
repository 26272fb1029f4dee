/* t700: the C API through include/hexpack.h and libhexpack.so only: options and their errors, a box
   checked against its exact geometry, a small pebble bed written and read back, a Kershaw box
   optimized, a rod bundle, and error paths that return codes with one-line messages. */
#include <hexpack.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures = 0;
#define EXPECT(cond, ...)                                                                                                        \
  do {                                                                                                                           \
    if (!(cond)) {                                                                                                               \
      failures++;                                                                                                                \
      printf("FAIL line %d: ", __LINE__);                                                                                        \
      printf(__VA_ARGS__);                                                                                                       \
      printf(" [last error: %s]\n", hexpack_last_error());                                                                       \
    }                                                                                                                            \
  } while (0)

/* a failing call: the status and a message holding want */
static void expect_error(int rc, int status, const char *want, int line) {
  if (rc != status || !strstr(hexpack_last_error(), want)) {
    failures++;
    printf("FAIL line %d: status %d (want %d), message '%s' (want '%s')\n", line, rc, status, hexpack_last_error(), want);
  }
}

/* a name that may be NULL, for comparisons */
static const char *str(const char *s) { return s ? s : "(null)"; }

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  EXPECT(strlen(hexpack_version()) > 0, "version");
  hexpack_opts *o = NULL;
  EXPECT(hexpack_opts_create(&o) == HEXPACK_OK, "opts_create");
  expect_error(hexpack_opts_set(o, "nope", "1"), HEXPACK_ERR_INPUT, "unknown option 'nope'", __LINE__);
  expect_error(hexpack_opts_set_int(o, "order", 99), HEXPACK_ERR_INPUT, "option order must be in 1..16, got 99", __LINE__);
  expect_error(hexpack_opts_set(o, "contact", "glue"), HEXPACK_ERR_INPUT, "expected one of bridge, gap, got 'glue'", __LINE__);
  EXPECT(strstr(str(hexpack_option_names("box")), "kershaw") != NULL, "box options list kershaw");
  EXPECT(hexpack_option_names("nothing") == NULL, "unknown function");
  char map[400]; /* a 17 x 17 rod map with its row marks: a long value */
  memset(map, '1', sizeof map - 1), map[sizeof map - 1] = 0;
  hexpack_opts *o2 = NULL;
  hexpack_opts_create(&o2);
  EXPECT(hexpack_opts_set(o2, "map", map) == 0 && hexpack_opts_set(o2, "map", "1") == 0, "a long value, replaced");
  hexpack_opts_destroy(&o2);
  EXPECT(o2 == NULL, "opts destroy sets NULL");

  /* the unit cube in 2^3 elements at order 2: 5^3 nodes, 24 boundary faces, det J = 0.5^3 */
  EXPECT(hexpack_opts_set(o, "n", "2") == 0 && hexpack_opts_set_int(o, "order", 2) == 0, "box options");
  hexpack_mesh *m = NULL;
  EXPECT(hexpack_box(o, &m) == HEXPACK_OK, "box");
  hexpack_mesh_info info;
  EXPECT(m && hexpack_mesh_get_info(m, &info) == 0, "info");
  EXPECT(info.order == 2 && info.num_elem == 8 && info.num_nodes == 125 && info.num_faces == 24 && info.num_boundaries == 3,
         "box info: order %d, %lld elements, %lld nodes, %lld faces, %d boundaries", info.order, (long long)info.num_elem,
         (long long)info.num_nodes, (long long)info.num_faces, info.num_boundaries);
  double *xyz = malloc(sizeof(double) * 3 * 125);
  int64_t *conn = malloc(sizeof(int64_t) * 8 * 27), faces[24 * 3];
  EXPECT(hexpack_mesh_nodes(m, xyz) == 0 && hexpack_mesh_elements(m, conn) == 0 && hexpack_mesh_faces(m, faces) == 0, "arrays");
  /* the nodes are the lattice {0, 1/4, ..., 1}^3 once each: coordinate sums 125 * 0.5 */
  double sum[3] = {0, 0, 0};
  int on_lattice = 1;
  for (int i = 0; i < 125; i++)
    for (int c = 0; c < 3; c++) {
      sum[c] += xyz[3 * i + c];
      on_lattice &= fabs(xyz[3 * i + c] * 4 - round(xyz[3 * i + c] * 4)) < 1e-12;
    }
  EXPECT(on_lattice && fabs(sum[0] - 62.5) < 1e-9 && fabs(sum[1] - 62.5) < 1e-9 && fabs(sum[2] - 62.5) < 1e-9, "box nodes");
  /* element nodes in lexicographic order: node (i, j, k) of every element is corner + (i, j, k) / 4 */
  int lex = 1;
  for (int e = 0; e < 8; e++)
    for (int k = 0; k < 3; k++)
      for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
          const double *p0 = xyz + 3 * conn[e * 27], *p = xyz + 3 * conn[e * 27 + i + 3 * (j + 3 * k)];
          lex &= fabs(p[0] - p0[0] - 0.25 * i) < 1e-12 && fabs(p[1] - p0[1] - 0.25 * j) < 1e-12 &&
                 fabs(p[2] - p0[2] - 0.25 * k) < 1e-12;
        }
  EXPECT(lex, "element node order");
  EXPECT(strlen(str(hexpack_mesh_boundary_name(m, 1))) > 0, "boundary name");
  EXPECT(hexpack_mesh_boundary_name(m, 0) == NULL && hexpack_mesh_boundary_name(m, 4) == NULL, "boundary ids out of range");
  hexpack_quality q;
  EXPECT(hexpack_mesh_quality(m, NULL, &q) == 0, "quality");
  EXPECT(q.num_elem == 8 && q.num_inverted == 0 && fabs(q.detj_min - 0.125) < 1e-12 && fabs(q.scaled_jacobian_min - 1) < 1e-12 &&
             fabs(q.aspect_max - 1) < 1e-12 && fabs(q.min_spacing - 0.25) < 1e-12,
         "box quality: %lld elements, det J %g, sj %g, aspect %g, spacing %g", (long long)q.num_elem, q.detj_min,
         q.scaled_jacobian_min, q.aspect_max, q.min_spacing);
  /* errors of writing: an unknown format, a missing directory, an option write does not take */
  expect_error(hexpack_write(m, "t700-box.xyz", NULL), HEXPACK_ERR_INPUT, "t700-box.xyz", __LINE__);
  expect_error(hexpack_write(m, "/nonexistent-dir/t700.vtu", NULL), HEXPACK_ERR_IO, "/nonexistent-dir", __LINE__);
  expect_error(hexpack_write(m, "t700-box.vtu", o), HEXPACK_ERR_INPUT, "option n is not one of write's", __LINE__);
  EXPECT(access("t700-box.vtu", F_OK) != 0, "no file after a failed write");
  hexpack_mesh_destroy(&m);
  EXPECT(m == NULL, "destroy sets NULL");
  hexpack_mesh_destroy(&m);
  hexpack_opts_destroy(&o);

  /* a Kershaw box optimized: still valid, and its energy-driven moves raise the worst element */
  hexpack_opts_create(&o);
  hexpack_opts_set(o, "n", "6,2,2");
  hexpack_opts_set(o, "kershaw", "0.3,0.3");
  hexpack_opts_set_int(o, "order", 2);
  EXPECT(hexpack_box(o, &m) == 0, "kershaw box");
  hexpack_quality q0, q1;
  hexpack_mesh_quality(m, NULL, &q0);
  hexpack_opts_destroy(&o);
  hexpack_opts_create(&o);
  hexpack_opts_set_int(o, "newton-iters", 20);
  EXPECT(hexpack_optimize(m, o) == 0, "optimize");
  hexpack_mesh_quality(m, NULL, &q1);
  EXPECT(q1.num_inverted == 0 && q1.corner_sj_min > q0.corner_sj_min, "optimized Kershaw: corner sj %g -> %g", q0.corner_sj_min,
         q1.corner_sj_min);
  expect_error(hexpack_opts_set(o, "optimize-order", "2") || hexpack_optimize(m, o), HEXPACK_ERR_INPUT,
               "only for a mesh made by the pebble mesher", __LINE__);
  hexpack_opts_destroy(&o);
  hexpack_opts_create(&o);
  expect_error(hexpack_opts_set(o, "repair-final", "2"), HEXPACK_ERR_INPUT, "repair-final", __LINE__);
  expect_error(hexpack_opts_set(o, "repair-final", "0.3") || hexpack_optimize(m, o), HEXPACK_ERR_INPUT,
               "only for a mesh made by the pebble mesher", __LINE__);
  hexpack_mesh_destroy(&m);
  hexpack_opts_destroy(&o);

  /* a rod bundle: 7 rods of a hexagonal lattice, 3 axial layers at order 2; rod nodes on their cylinders */
  hexpack_opts_create(&o);
  expect_error(hexpack_opts_set(o, "preset", "hex8"), HEXPACK_ERR_INPUT, "hex7", __LINE__);
  hexpack_opts_set(o, "preset", "hex7");
  hexpack_opts_set(o, "rings", "1"); /* a rods option of the same name as the pebble mesher's, with its own range */
  hexpack_opts_set(o, "nz", "3");
  hexpack_opts_set_int(o, "order", 2);
  EXPECT(hexpack_rods(o, &m) == 0, "rods");
  EXPECT(m && hexpack_mesh_get_info(m, &info) == 0 && info.order == 2 && info.num_elem % 3 == 0, "rods info");
  EXPECT(hexpack_mesh_quality(m, NULL, &q) == 0 && q.num_inverted == 0 && q.scaled_jacobian_min > 0.1, "rods quality");
  EXPECT(!strcmp(str(hexpack_mesh_boundary_name(m, 1)), "rod"), "rods boundary 1 '%s'", str(hexpack_mesh_boundary_name(m, 1)));
  hexpack_mesh_destroy(&m);
  /* a name of two meshers, checked by the call against the range of its own */
  EXPECT(hexpack_opts_set_int(o, "rings", 99) == 0, "rings 99 set");
  expect_error(hexpack_rods(o, &m), HEXPACK_ERR_INPUT, "option rings must be in 0..60, got 99", __LINE__);
  hexpack_opts_destroy(&o);

  /* four spheres of radius 1 poured into a cylinder of radius 2 (hexpack pack --n 4 --container cyl:2), in the box
     just around them, at order 2: written and read back */
  const double centres[4][3] = {{-0.11219187146403285, -0.74100654707253377, 1},
                                {-0.27340005032626591, 0.63998336954718926, 2.437664346524711},
                                {-0.23739861021605982, -0.21807164895813258, 4.2438884415735645},
                                {-0.27480660188876566, 0.89089076181181093, 5.9078605007335092}};
  const double radii[4] = {1, 1, 1, 1};
  hexpack_opts_create(&o);
  hexpack_opts_set_int(o, "order", 2);
  hexpack_opts_set(o, "container", "box");
  EXPECT(hexpack_pebble(4, &centres[0][0], radii, o, &m) == 0, "pebble");
  EXPECT(m && hexpack_mesh_get_info(m, &info) == 0 && info.num_elem > 100, "pebble elements %lld", (long long)info.num_elem);
  EXPECT(hexpack_mesh_quality(m, NULL, &q) == 0 && q.num_inverted == 0 && q.detj_min > 0, "pebble quality");
  EXPECT(!strcmp(str(hexpack_mesh_boundary_name(m, 1)), "pebble"), "pebble boundary 1 '%s'",
         str(hexpack_mesh_boundary_name(m, 1)));
  const char *paths[2] = {"t700-bed.vtu", "t700-bed.msh"};
  EXPECT(hexpack_write_files(m, paths, 2, NULL) == 0, "write");
  hexpack_mesh *back = NULL;
  hexpack_mesh_info bi;
  for (int k = 0; k < 2; k++) {
    EXPECT(hexpack_read(paths[k], NULL, &back) == 0, "read %s", paths[k]);
    EXPECT(back && hexpack_mesh_get_info(back, &bi) == 0 && bi.num_elem == info.num_elem && bi.order == 2 &&
               bi.num_nodes == info.num_nodes,
           "%s read back: %lld elements, %lld nodes (wrote %lld, %lld)", paths[k], (long long)bi.num_elem,
           (long long)bi.num_nodes, (long long)info.num_elem, (long long)info.num_nodes);
    hexpack_mesh_destroy(&back);
  }
  hexpack_mesh_destroy(&m);
  /* overlapping spheres beyond the tolerance, a missing file, a bad radius: codes and messages */
  const double close[2][3] = {{0, 0, 0}, {0.5, 0, 0}};
  expect_error(hexpack_pebble(2, &close[0][0], radii, o, &m), HEXPACK_ERR_INPUT, "overlap", __LINE__);
  EXPECT(m == NULL, "no mesh after an error");
  const double bad_r[2] = {1, -1};
  expect_error(hexpack_pebble(2, &centres[0][0], bad_r, o, &m), HEXPACK_ERR_INPUT, "the radius must be positive", __LINE__);
  expect_error(hexpack_read("t700-missing.msh", NULL, &back), HEXPACK_ERR_IO, "t700-missing.msh", __LINE__);
  hexpack_opts_destroy(&o);
  free(xyz);
  free(conn);
  printf("t700: %s\n", failures ? "FAILED" : "ok");
  return failures != 0;
}
