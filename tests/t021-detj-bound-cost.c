/* t021: the cost of the Bernstein bound per element (hx_detj_bound_elem) against the
   quality pass (hx_quality_elem: det J at the GLL nodes and at 6^3 GLL points, the corner
   measures) on one thread, on the Kershaw box 6^3 (eps 0.3) at p = 1..4, 7; prints
   microseconds per element (timings only: no golden file) and checks that every element
   is proven valid. */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "hx_box.h"
#include "hx_detj_bound.h"
#include "hx_quality.h"
#include "hx_test_meshes.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  int fail = 0;
  const int orders[] = {1, 2, 3, 4, 7};
  for (int io = 0; io < 5; io++) {
    int p = orders[io];
    hx_box_opts bo;
    hx_box_opts_default(&bo);
    bo.n[0] = bo.n[1] = bo.n[2] = 6;
    bo.order = p;
    bo.kershaw = 1;
    bo.eps_y = bo.eps_z = 0.3;
    hx_mesh *m;
    if (hx_mesher_box(HX_COMM_SELF, &bo, &m)) return 1;
    hx_quality_opts qo;
    hx_quality_opts_default(&qo);
    hx_quality_ctx *qc;
    hx_detj_bound_opts o;
    hx_detj_bound_opts_default(&o);
    hx_detj_bound_ctx *bc;
    if (hx_quality_ctx_create(p + 1, &qo, &qc) || hx_detj_bound_ctx_create(p, &o, &bc)) return 1;
    size_t stride = (size_t)3 * m->nd * m->nd * m->nd;
    int reps = p <= 4 ? 20 : 2, proven = 0;
    double t0 = now(), sink = 0;
    for (int r = 0; r < reps; r++)
      for (hx_lid e = 0; e < m->num_elem; e++) {
        hx_elem_quality q;
        hx_quality_elem(qc, m->x + e * stride, &q);
        sink += q.detj_min;
      }
    double t1 = now();
    for (int r = 0; r < reps; r++)
      for (hx_lid e = 0; e < m->num_elem; e++) {
        hx_detj_bound_result b;
        hx_detj_bound_elem(bc, m->x + e * stride, &b);
        sink += b.lower;
        if (r == 0) proven += b.verdict == HX_VALID_PROVEN;
      }
    double t2 = now(), ne = (double)reps * m->num_elem;
    printf("p %d: quality %.1f us/element, bound %.1f us/element (%.2fx), %d/%d proven%s\n", p, 1e6 * (t1 - t0) / ne,
           1e6 * (t2 - t1) / ne, (t2 - t1) / (t1 - t0), proven, (int)m->num_elem, sink == 0 ? " " : "");
    if (proven != m->num_elem) fail = 1;
    hx_detj_bound_ctx_destroy(&bc);
    hx_quality_ctx_destroy(&qc);
    hx_mesh_destroy(&m);
  }
  return tm_finalize(fail);
}
