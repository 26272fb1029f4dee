/* t506: target 4 (ideal-elem: W = V0_e^(1/3) I, the element's own initial volume)
   against independent answers:
   (a) on a box of equal elements (order 2, energy at randomly moved nodes) it is
       target 2 (ideal-equal): same energy to 1e-12 for the metrics 321, 332, 338;
   (b) a box stretched by x -> x^2 on [1, 2] at order 1 has axis-aligned boxes of
       different widths: det J is constant in each element, so the size metric 315
       ((tau - 1)^2) has energy 0 with target 4 but not with target 2;
   (c) the same stretch at order 2 (x^2 is exact there): tau = 2 x / (a + b) in the
       element [a, b], so E_315 = sum_e V_e ((b - a) / (a + b))^2 / 3 exactly;
   (c') with --weight equal every element is weighted by the mean element volume Vbar in
       place of its own V_e: E_315 = sum_e Vbar ((b - a) / (a + b))^2 / 3 (and differs);
   (d) Newton with metric 338 and target 4 on the stretched order-2 box with fixed
       boundary lowers the energy and keeps det J > 0 (checked at the GLL nodes).
   Run with NP 1 and 2 (energies are sums over ranks). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_test_tmop.h"
#include "hx_tmop.h"

/* the energy at the mesh's nodes moved by perturb * hash (targets from the mesh) */
static int equal_weight; /* (c'): every element weighted by the mean element volume */

static double energy_at(hx_mesh *m, int metric, int target, double perturb, int *err) {
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = "cpu";
  o.metric = metric;
  o.target = target;
  o.equal_weight = equal_weight;
  hx_tmop *tm = NULL;
  double e = NAN;
  if (hx_tmop_create(m, &o, &tm)) {
    printf("create (metric %d, target %d) failed: %s\n", metric, target, hx_error_message());
    *err = 1;
    return e;
  }
  size_t n = hx_tmop_size(tm);
  double *x = malloc((n + 1) * sizeof *x);
  memcpy(x, hx_tmop_x0(tm), n * sizeof *x);
  for (size_t i = 0; i < n; i++) x[i] += perturb * test_hash((long long)i, 7); /* keyed by the rank's L index */
  if (hx_tmop_energy(tm, x, &e)) {
    printf("energy (metric %d, target %d) failed: %s\n", metric, target, hx_error_message());
    *err = 1;
  }
  free(x);
  hx_tmop_destroy(&tm);
  return e;
}

static double energy_of(hx_mesh *m, int metric, int target, int *err) { return energy_at(m, metric, target, 0, err); }

/* x -> x^2 on every node (box on [1, 2] in x) */
static void stretch(hx_mesh *m) {
  int npe = m->nd * m->nd * m->nd;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int a = 0; a < npe; a++) {
      double *x = hx_mesh_elem_x(m, e, 0) + a;
      *x = *x * *x;
    }
}

static hx_mesh *box(hx_comm comm, int p, double x0, double x1) {
  hx_box_opts o;
  hx_box_opts_default(&o);
  o.n[0] = 5, o.n[1] = 3, o.n[2] = 2;
  o.lo[0] = x0, o.hi[0] = x1;
  o.lo[1] = 0, o.hi[1] = 0.6;
  o.lo[2] = 0, o.hi[2] = 0.5;
  o.order = p;
  hx_mesh *m = NULL;
  if (hx_mesher_box(comm, &o, &m)) printf("box failed: %s\n", hx_error_message());
  return m;
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
  int fail = 0, err = 0, rank = hx_comm_rank(comm);
  /* (a) equal elements: target 4 = target 2 */
  {
    hx_mesh *m = box(comm, 2, 0, 1);
    if (!m) return 1;
    const int metrics[3] = {321, 332, 338};
    for (int i = 0; i < 3; i++) {
      double e2 = energy_at(m, metrics[i], 2, 0.02, &err), e4 = energy_at(m, metrics[i], 4, 0.02, &err);
      int ok = !err && e2 > 0 && fabs(e4 - e2) <= 1e-12 * e2;
      if (rank == 0)
        printf("(a) metric %d equal elements: E(ideal-elem) %.15e = E(ideal-equal) %.15e %s\n", metrics[i], e4, e2,
               ok ? "ok" : "BAD");
      fail |= !ok;
    }
    hx_mesh_destroy(&m);
  }
  /* (b) order 1 stretched: piecewise constant det J */
  {
    hx_mesh *m = box(comm, 1, 1, 2);
    if (!m) return 1;
    stretch(m);
    double e4 = energy_of(m, 315, 4, &err), e2 = energy_of(m, 315, 2, &err);
    int ok = !err && fabs(e4) <= 1e-14 && e2 > 1e-3;
    if (rank == 0)
      printf("(b) metric 315, stretched order 1: E(ideal-elem) %.3e (0 expected), E(ideal-equal) %.3e %s\n", e4, e2,
             ok ? "ok" : "BAD");
    fail |= !ok;
    hx_mesh_destroy(&m);
  }
  /* (c) order 2 stretched: analytic energy */
  {
    hx_mesh *m = box(comm, 2, 1, 2);
    if (!m) return 1;
    stretch(m);
    double exact = 0, terms = 0, vol = 0;
    int npe = m->nd * m->nd * m->nd;
    for (hx_lid e = 0; e < m->num_elem; e++) {
      double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
      for (int a = 0; a < npe; a++)
        for (int c = 0; c < 3; c++) {
          double v = hx_mesh_elem_x(m, e, c)[a];
          lo[c] = fmin(lo[c], v), hi[c] = fmax(hi[c], v);
        }
      double a = sqrt(lo[0]), b = sqrt(hi[0]); /* the element's x range before the stretch */
      double ve = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
      exact += ve * ((b - a) / (a + b)) * ((b - a) / (a + b)) / 3;
      terms += ((b - a) / (a + b)) * ((b - a) / (a + b)) / 3;
      vol += ve;
    }
    double sums[3] = {exact, terms, vol};
    hx_comm_sum_double(comm, sums, 3);
    exact = sums[0];
    double e4 = energy_of(m, 315, 4, &err);
    int ok = !err && exact > 0 && fabs(e4 - exact) <= 1e-12 * exact;
    if (rank == 0)
      printf("(c) metric 315, stretched order 2: E(ideal-elem) %.15e, analytic %.15e %s\n", e4, exact, ok ? "ok" : "BAD");
    fail |= !ok;
    /* (c') --weight equal: the mean element volume in place of V_e */
    double exact_eq = sums[2] / (double)m->num_elem_global * sums[1];
    equal_weight = 1;
    double e4q = energy_of(m, 315, 4, &err);
    equal_weight = 0;
    ok = !err && exact_eq > 0 && fabs(e4q - exact_eq) <= 1e-12 * exact_eq && fabs(e4 - exact_eq) > 1e-3 * exact_eq;
    if (rank == 0)
      printf("(c') metric 315, stretched order 2, equal weights: E %.15e, analytic %.15e %s\n", e4q, exact_eq, ok ? "ok" : "BAD");
    fail |= !ok;
    /* (d) Newton, metric 338 + target 4, boundary fixed */
    hx_tmop_opts o;
    hx_tmop_opts_default(&o);
    o.backend = "cpu";
    o.metric = 338;
    o.target = 4;
    o.boundary = HX_BND_FIXED;
    o.newton_iters = 20;
    hx_tmop_result r;
    if (hx_tmop_optimize(m, &o, &r)) {
      printf("optimize failed: %s\n", hx_error_message());
      return 1;
    }
    ok = r.energy < r.energy0 && r.min_detj > 0;
    if (rank == 0)
      printf("(d) Newton metric 338 ideal-elem: energy %.6e -> %.6e, min det J %.3e %s\n", r.energy0, r.energy, r.min_detj,
             ok ? "ok" : "BAD");
    fail |= !ok;
    hx_mesh_destroy(&m);
  }
  if (rank == 0) printf("%s\n", fail ? "t506 FAILED" : "t506 passed");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
