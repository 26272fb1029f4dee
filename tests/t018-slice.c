/* t018: planar slices through curved hexahedra (hx_slice_mesh) against cuts known exactly:
   - the unit box 4^3 at order 2 cut by z = 0.3 (and x = 0.6): exactly 16 elements, one loop
     each, the loop of element (i, j) spanning [i/4, (i+1)/4] x [j/4, (j+1)/4] (to 1e-12) with
     the area 1/16;
   - the Kershaw box 6^3 at order 3 (curved inside, the unit cube outside) cut by y = 0.45:
     the loops' areas add up to 1 (to 1e-9: the faces the elements share are sampled alike);
   - the annulus 0.5 < r < 1, 0 < z < 1 (16 x 2 x 3 elements, curved to order 4) cut by
     z = 0.4: area 3 pi / 16 ... pi (1 - 0.25) to 1e-3, every point at 0.5 <= r <= 1 (to 1e-3);
     cut by x = 0.1: two strips of total area 2 (sqrt(0.99) - sqrt(0.24)) to 1e-3;
   - a plane beside the mesh cuts nothing; a bad --slice spec is refused naming the flag.
   Run on 1 and 2 ranks: the box's elements are split over the ranks and gathered on rank 0. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_box.h"
#include "hx_curve.h"
#include "hx_slice.h"
#include "hx_test_meshes.h"

static double loop_area(const hx_slice *s, int64_t l) {
  double a = 0;
  for (int64_t p = s->loop_pt[l], q = s->loop_pt[l + 1] - 1; p < s->loop_pt[l + 1]; q = p++)
    a += s->pt[2 * q] * s->pt[2 * p + 1] - s->pt[2 * p] * s->pt[2 * q + 1];
  return 0.5 * a;
}

/* The sum of the elements' areas (each element's loops by the even-odd rule: |sum of signed areas|). */
static double total_area(const hx_slice *s) {
  double t = 0;
  for (int64_t k = 0; k < s->num_cut; k++) {
    double a = 0;
    for (int64_t l = s->elem_loop[k]; l < s->elem_loop[k + 1]; l++) a += loop_area(s, l);
    t += fabs(a);
  }
  return t;
}

/* The box 4^3 cut by the plane axis = at: 16 squares of side 1/4. */
static int box_squares(hx_comm comm, int axis, double at) {
  hx_box_opts bo;
  hx_box_opts_default(&bo);
  bo.n[0] = bo.n[1] = bo.n[2] = 4;
  bo.order = 2;
  hx_mesh *m;
  hx_slice s;
  if (hx_mesher_box(comm, &bo, &m) || hx_slice_mesh(m, axis, at, NULL, 0, &s)) {
    printf("box: %s\n", hx_error_message());
    return 1;
  }
  int fail = 0;
  if (hx_comm_rank(comm) == 0) {
    double worst = 0;
    int one_loop = 1;
    for (int64_t k = 0; k < s.num_cut; k++) {
      if (s.elem_loop[k + 1] - s.elem_loop[k] != 1) one_loop = 0;
      int64_t l = s.elem_loop[k];
      double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
      for (int64_t p = s.loop_pt[l]; p < s.loop_pt[l + 1]; p++)
        for (int d = 0; d < 2; d++) lo[d] = fmin(lo[d], s.pt[2 * p + d]), hi[d] = fmax(hi[d], s.pt[2 * p + d]);
      for (int d = 0; d < 2; d++) {
        double c = floor(4 * 0.5 * (lo[d] + hi[d])) / 4; /* the element's lower side */
        worst = fmax(worst, fmax(fabs(lo[d] - c), fabs(hi[d] - c - 0.25)));
      }
      worst = fmax(worst, fabs(fabs(loop_area(&s, l)) - 1.0 / 16));
    }
    printf("box 4^3 %c = %g: %lld elements cut (16), one loop each %d, worst side/area error %.1e\n", "xyz"[axis], at,
           (long long)s.num_cut, one_loop, worst);
    fail = s.num_cut != 16 || !one_loop || !(worst < 1e-12);
  }
  hx_slice_free(&s);
  hx_mesh_destroy(&m);
  return fail;
}

static int kershaw(hx_comm comm) {
  hx_box_opts bo;
  hx_box_opts_default(&bo);
  bo.n[0] = bo.n[1] = bo.n[2] = 6;
  bo.order = 3;
  bo.kershaw = 1;
  bo.eps_y = bo.eps_z = 0.3;
  hx_mesh *m;
  hx_slice s;
  if (hx_mesher_box(comm, &bo, &m) || hx_slice_mesh(m, 1, 0.45, NULL, 0, &s)) {
    printf("kershaw: %s\n", hx_error_message());
    return 1;
  }
  int fail = 0;
  if (hx_comm_rank(comm) == 0) {
    double a = total_area(&s);
    printf("kershaw 6^3 y = 0.45: %lld elements cut, area %.12f (1)\n", (long long)s.num_cut, a);
    fail = s.num_cut < 36 || fabs(a - 1) > 1e-9;
  }
  hx_slice_free(&s);
  hx_mesh_destroy(&m);
  return fail;
}

static int annulus(void) {
  hx_mesh *lo, *m;
  hx_slice s;
  int fail = 0;
  if (tm_annulus(16, 2, 3, 0.5, 1.0, 1.0, 0, &lo) || hx_mesh_raise_order(lo, 4, &m)) {
    printf("annulus: %s\n", hx_error_message());
    return 1;
  }
  if (hx_slice_mesh(m, 2, 0.4, NULL, 0, &s)) return 1;
  double exact = HX_PI * (1 - 0.25), a = total_area(&s), rmin = INFINITY, rmax = 0;
  for (int64_t p = 0; p < s.num_pt; p++) {
    double r = hypot(s.pt[2 * p], s.pt[2 * p + 1]);
    rmin = fmin(rmin, r), rmax = fmax(rmax, r);
  }
  printf("annulus z = 0.4: %lld elements cut (32), area rel. error %.1e, r in [%.4f, %.4f]\n", (long long)s.num_cut,
         fabs(a - exact) / exact, rmin, rmax);
  fail |= s.num_cut != 32 || fabs(a - exact) > 1e-3 * exact || rmin < 0.5 - 1e-3 || rmax > 1 + 1e-3;
  hx_slice_free(&s);
  if (hx_slice_mesh(m, 0, 0.1, NULL, 0, &s)) return 1;
  exact = 2 * (sqrt(0.99) - sqrt(0.24));
  a = total_area(&s);
  printf("annulus x = 0.1: area rel. error %.1e\n", fabs(a - exact) / exact);
  fail |= fabs(a - exact) > 1e-3 * exact;
  hx_slice_free(&s);
  if (hx_slice_mesh(m, 2, 1.5, NULL, 0, &s)) return 1;
  printf("annulus z = 1.5: %lld elements cut (0)\n", (long long)s.num_cut);
  fail |= s.num_cut != 0;
  hx_slice_free(&s);
  hx_mesh_destroy(&m);
  hx_mesh_destroy(&lo);
  return fail;
}

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
#if HX_HAVE_MPI
  hx_comm comm = MPI_COMM_WORLD;
#else
  hx_comm comm = HX_COMM_SELF;
#endif
  int fail = box_squares(comm, 2, 0.3);
  fail |= box_squares(comm, 0, 0.6);
  fail |= kershaw(comm);
  if (hx_comm_rank(comm) == 0) {
    fail |= annulus();
    int axis, mid;
    double at;
    const char *bad[3] = {"w=1", "z=abc", "z=1e999"};
    for (int k = 0; k < 3; k++) {
      hx_error_clear();
      int rc = hx_slice_parse("--slice", bad[k], &axis, &at, &mid);
      int named = rc != 0 && strstr(hx_error_message(), "--slice") && strstr(hx_error_message(), bad[k]);
      printf("--slice %s refused, naming flag and value: %d\n", bad[k], named);
      fail |= !named;
    }
    int ok = hx_slice_parse("--slice", "y=-2.5", &axis, &at, &mid) == 0 && axis == 1 && at == -2.5 && !mid &&
             hx_slice_parse("--slice", "x", &axis, &at, &mid) == 0 && axis == 0 && mid;
    printf("--slice y=-2.5 and x parsed: %d\n", ok);
    fail |= !ok;
  }
  return tm_finalize(fail);
}
