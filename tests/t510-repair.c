/* t510: opts.repair_sj (`--repair`), the second solve on patches about the elements left
   below a scaled Jacobian S, checked against an independent evaluation.
   A box of 8^3 cubes (order 3) with a bulge within 0.2 of its centre, scaled up to 1 + AMP
   about it (det J uneven inside a few elements in one place, as a pebble mesh's pockets), metric 318 +
   target 4, equal weights, boundary fixed, one Newton step (so that elements stay below
   S = 0.5 and the case has teeth), solved twice: A without the repair, B with it (2 layers,
   weight 10, 10 steps). The Nek5000 scaled Jacobians
   (min / max det J at the GLL nodes) are computed here from hx_mesh_jacobian_at_node:
   - the result's counts are this test's: repair_bad = A's elements below S, repair_after = B's;
   - B has fewer below S than A, and none below min(S, its value in A) (1e-12);
   - on one rank, the patches are found here from the node ids (elements sharing a node with
     one below S, then with those): every element outside them is bitwise A's, and some inside
     moved; an element outside shares its nodes with the patches, so those stayed too;
   - passes: with one Newton step per repair solve, one pass leaves all below S (they move
     together about the bulge's centre), and up to three passes (each about what the last left,
     while that count falls or its poorest rises) leave fewer, none below min(S, A's);
   - B has det J > 0 at every GLL node (hx_mesh_check).
   Run with NP 1 and 2 (counts are sums over ranks). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_test_tmop.h"
#include "hx_tmop.h"

static hx_mesh *optimized(const hx_mesh *m0, double repair, hx_tmop_result *r) {
  hx_tmop_opts o;
  test_sj_opts(&o, 1);
  o.repair_sj = repair;
  return test_optimized_copy(m0, &o, r);
}

static int cmp_gid(const void *a, const void *b) {
  hx_gid x = *(const hx_gid *)a, y = *(const hx_gid *)b;
  return (x > y) - (x < y);
}

/* in[e] |= e shares a node id with an element marked in mark (one rank) */
static void grow(const hx_mesh *m, const unsigned char *mark, unsigned char *in) {
  size_t n3 = (size_t)hx_mesh_nodes_per_elem(m), n = 0;
  hx_gid *ids = malloc(((size_t)m->num_elem * n3 + 1) * sizeof *ids);
  for (hx_lid e = 0; e < m->num_elem; e++)
    if (mark[e])
      for (size_t i = 0; i < n3; i++) ids[n++] = m->node_id[(size_t)e * n3 + i];
  qsort(ids, n, sizeof *ids, cmp_gid);
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (size_t i = 0; i < n3 && !in[e]; i++)
      in[e] = bsearch(&m->node_id[(size_t)e * n3 + i], ids, n, sizeof *ids, cmp_gid) != NULL;
  free(ids);
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
  int fail = 0, rank = hx_comm_rank(comm), np = hx_comm_size(comm);
  hx_mesh *m0 = test_kershaw(comm, 8, 8, 8, 3, 1.0);
  if (!m0) return 1;
  const double S = 0.5, AMP = 0.5;
  { /* a bulge: x -> c0 + (1 + AMP (1 - r^2 / 0.2^2)^2) (x - c0) within 0.2 of c0 */
    const double c0[3] = {0.5, 0.5, 0.5};
    size_t n3 = (size_t)hx_mesh_nodes_per_elem(m0);
    for (hx_lid e = 0; e < m0->num_elem; e++)
      for (size_t a = 0; a < n3; a++) {
        double d[3], q = 0;
        for (int c = 0; c < 3; c++) d[c] = hx_mesh_elem_x(m0, e, c)[a] - c0[c], q += d[c] * d[c] / (0.2 * 0.2);
        if (q >= 1) continue;
        for (int c = 0; c < 3; c++) hx_mesh_elem_x(m0, e, c)[a] = c0[c] + (1 + AMP * (1 - q) * (1 - q)) * d[c];
      }
  }
  hx_lid ne = m0->num_elem;
  size_t npe = 3 * (size_t)hx_mesh_nodes_per_elem(m0);
  hx_tmop_result ra, rb;
  hx_mesh *A = optimized(m0, 0.0, &ra), *B = optimized(m0, S, &rb);
  if (!A || !B) return 1;
  double *sa = malloc((ne + 1) * sizeof *sa), *sb = malloc((ne + 1) * sizeof *sb);
  test_nek_ratios(A, sa);
  test_nek_ratios(B, sb);
  int64_t cnt[3] = {0, 0, 0}; /* below S in A, in B; below min(S, A's) in B */
  double slack = HUGE_VAL;
  for (hx_lid e = 0; e < ne; e++) {
    cnt[0] += sa[e] < S, cnt[1] += sb[e] < S;
    double fl = fmin(S, sa[e]);
    cnt[2] += sb[e] < fl * (1 - 1e-12);
    slack = fmin(slack, sb[e] - fl);
  }
  hx_comm_sum_int64(comm, cnt, 3);
  hx_comm_min_double(comm, &slack, 1);
  int ok = cnt[0] > 0 && cnt[1] < cnt[0] && cnt[2] == 0 && rb.repair_bad == cnt[0] && rb.repair_after == cnt[1] &&
           rb.repair_newton > 0;
  if (rank == 0)
    printf("perturbed box order 3, one Newton step: below %g %lld without the repair, %lld with it (result: %lld -> %lld, "
           "%lld in the patches, %d steps); below min(%g, before): %lld (min margin %.3e) %s\n",
           S, (long long)cnt[0], (long long)cnt[1], rb.repair_bad, rb.repair_after, rb.repair_free, rb.repair_newton, S,
           (long long)cnt[2], slack, ok ? "ok" : "BAD");
  fail |= !ok;
  if (np == 1) {
    unsigned char *bad = calloc(ne + 1, 1), *l1 = calloc(ne + 1, 1), *l2 = calloc(ne + 1, 1);
    for (hx_lid e = 0; e < ne; e++) bad[e] = sa[e] < S;
    grow(A, bad, l1);
    grow(A, l1, l2);
    long long inside = 0, outside_moved = 0, inside_moved = 0;
    for (hx_lid e = 0; e < ne; e++) {
      int moved = memcmp(A->x + (size_t)e * npe, B->x + (size_t)e * npe, npe * sizeof *A->x) != 0;
      inside += l2[e];
      if (l2[e]) inside_moved += moved;
      else outside_moved += moved;
    }
    int ok2 = inside == rb.repair_free && inside < ne && outside_moved == 0 && inside_moved > 0;
    printf("patches: %lld of %lld elements (2 layers), %lld of them moved, %lld outside moved %s\n", inside, (long long)ne,
           inside_moved, outside_moved, ok2 ? "ok" : "BAD");
    fail |= !ok2;
    free(bad), free(l1), free(l2);
  }
  { /* C: passes. The same case with one Newton step per repair solve: C1 one pass, C3 up to
       three, each on the patches of what the last left, while that falls. Checked: C1 leaves
       some below S, C3 fewer in more than one pass, C3 none below min(S, A's) */
    hx_tmop_opts o;
    hx_tmop_result r1, r3;
    test_sj_opts(&o, 1);
    o.repair_sj = S, o.repair_iters = 1, o.repair_passes = 1;
    hx_mesh *C1 = test_optimized_copy(m0, &o, &r1);
    o.repair_passes = 3;
    hx_mesh *C3 = test_optimized_copy(m0, &o, &r3);
    if (!C1 || !C3) return 1;
    double *s3 = malloc((ne + 1) * sizeof *s3);
    test_nek_ratios(C1, sb);
    test_nek_ratios(C3, s3);
    int64_t c[3] = {0, 0, 0}; /* below S in C1, in C3; below min(S, A's) in C3 */
    for (hx_lid e = 0; e < ne; e++) c[0] += sb[e] < S, c[1] += s3[e] < S, c[2] += s3[e] < fmin(S, sa[e]) * (1 - 1e-12);
    hx_comm_sum_int64(comm, c, 3);
    int okc = c[0] > 0 && c[1] < c[0] && c[2] == 0 && r1.repair_passes == 1 && r1.repair_after == c[0] && r3.repair_passes > 1 &&
              r3.repair_after == c[1] && r3.repair_bad == cnt[0];
    if (rank == 0)
      printf("one Newton step per repair solve: below %g after 1 pass %lld, after %d passes %lld (result: %lld -> %lld); "
             "below min(%g, before): %lld %s\n",
             S, (long long)c[0], r3.repair_passes, (long long)c[1], r3.repair_bad, r3.repair_after, S, (long long)c[2],
             okc ? "ok" : "BAD");
    fail |= !okc;
    free(s3);
    hx_mesh_destroy(&C1), hx_mesh_destroy(&C3);
  }
  hx_mesh_check_report rep;
  int ok3 = hx_mesh_check(B, 1e-12, &rep) == HX_OK && rep.bad_elems == 0;
  if (rank == 0) printf("repaired mesh: min det J at the GLL nodes %.4e %s\n", rep.min_detj, ok3 ? "ok" : "BAD");
  fail |= !ok3;
  free(sa), free(sb);
  hx_mesh_destroy(&A), hx_mesh_destroy(&B), hx_mesh_destroy(&m0);
  if (rank == 0) printf("%s\n", fail ? "t510 FAILED" : "t510 passed");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
