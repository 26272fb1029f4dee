/* t509: hx_tmop_transfer (moves found at a low order carried to the mesh's order) against
   independent computations. Run with NP 1 and 2 (counts are sums over ranks).
   (a) Exactness: a box of affine elements at order 2 (the "low-order" mesh) and the same box at
       order 4. The low-order nodes are moved by u(x) = c x(1-x) y(1-y) z(1-z) (1, 2, 3)/Z, which is
       of degree 2 in each coordinate and vanishes on the box's planes, so the order-2 nodes carry
       it exactly; the order-4 nodes must end at x + u(x) (1e-13 of the box), with no element held
       back (--keep-sj 0: only folds are held back, and there are none).
   (b) The guarantee: the same box with large moves of hashed directions at the interior nodes
       (amplitude 0.6 of an element: many elements fold). After the transfer every element's
       Nek5000 ratio (min / max det J at its GLL nodes, computed here from
       hx_mesh_jacobian_at_node) is >= min(K, its value before), K = 0.5; some elements were
       held back, and the mesh moved.
   (e) elem_ok (a caller's rule, e.g. the .re2 writer's): the moves of (a) again, with a rule
       that passes an element whose nodes moved at most D from before, D = half the largest move
       of (a): every element ends passing it (computed here from the nodes), some were held back,
       and the mesh moved by more than D / 4.
   (c) Curved boundaries: a 12-sphere bed (box container) meshed at order 4 and, with the order-4
       mesh's map (map_order), at order 2;
       TMOP (3 Newton steps, boundary nodes sliding on spheres, bridge cylinders, planes) on the
       order-2 mesh, the moves carried to the order-4 mesh. hx_mesh_check must pass (every
       boundary-face node on its surface to 1e-12 relative, equal ids at equal coordinates,
       det J > 0 at every GLL node); every element >= min(0.1, its value before); the mean ratio
       rises (the low-order solve's gain reaches the high order).
   (d) --transfer-keep: (c) again with transfer_keep = 0.3. hx_mesh_check passes; every element
       >= min(0.1, before) still; fewer elements than in (c) end below min(0.3, before); and every
       element below 0.1 before ends with the nodes it has in (c) (to 1e-14 of the box: its
       corners keep the first rounds' factors), so as many end below 0.1 as in (c).
   (f) hx_mesher_pebble_copy: the order-4 mesh and its order-2 copy made from one tessellation
       are, byte for byte (coordinates, node ids, boundary faces), the two meshes hx_mesher_pebble
       gives for o and for hx_pebble_opts_lower(o, 2, 0); on the box bed and on a cylinder bed
       with inlet and outlet (their extruded elements) and the --goals mesher flags with --contact-layers one; a copy not below
   the order is refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_pebble.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

static double *copy_x(const hx_mesh *m) {
  size_t n = (size_t)m->num_elem * 3 * (size_t)hx_mesh_nodes_per_elem(m);
  double *x = malloc((n + 1) * sizeof *x);
  memcpy(x, m->x, n * sizeof *x);
  return x;
}

static double *copy_ratios(const hx_mesh *m, const double *r) {
  double *c = malloc(((size_t)m->num_elem + 1) * sizeof *c);
  memcpy(c, r, (size_t)m->num_elem * sizeof *c);
  return c;
}

typedef struct move_rule {
  const double *x0; /* the order-4 mesh before */
  int npe;          /* 3 nd^3 */
  double D;
} move_rule;

static double elem_move(const move_rule *r, hx_lid e, const double *xe) {
  double mv = 0;
  for (int i = 0; i < r->npe; i++) mv = fmax(mv, fabs(xe[i] - r->x0[(size_t)e * r->npe + i]));
  return mv;
}

static int move_ok(void *ctx, hx_lid e, const double *xe) { return elem_move(ctx, e, xe) <= ((move_rule *)ctx)->D; }

static void opts(hx_tmop_opts *o, double keep) {
  hx_tmop_opts_default(o);
  o->backend = "cpu";
  o->keep_sj = keep;
}

/* (a) and (b) on the unit-aspect box 4 x 4 x 4 (elements of size 1/4) */
static int box_cases(hx_comm comm, int rank) {
  int fail = 0;
  double moved_a = 0;                 /* (a)'s largest move, for (e) */
  for (int big = 0; big < 3; big++) { /* (a), (b), (e) */
    hx_mesh *lo = test_kershaw(comm, 4, 4, 4, 2, 1.0), *m = test_kershaw(comm, 4, 4, 4, 4, 1.0);
    if (!lo || !m) return 1;
    double *x0 = copy_x(lo), *xm0 = copy_x(m);
    int np = hx_mesh_nodes_per_elem(lo), nm = hx_mesh_nodes_per_elem(m);
    for (hx_lid e = 0; e < lo->num_elem; e++)
      for (int a = 0; a < np; a++) {
        double *X = hx_mesh_elem_x(lo, e, 0), *Y = hx_mesh_elem_x(lo, e, 1), *Z = hx_mesh_elem_x(lo, e, 2);
        double x = X[a], y = Y[a], z = Z[a];
        double b = x * (1 - x) * y * (1 - y) * z * (1 - z);
        hx_gid id = lo->node_id[(size_t)e * np + a];
        int inner = b > 1e-12;
        if (big != 1) {
          X[a] += 0.3 * b, Y[a] += 0.6 * b, Z[a] += 0.9 * b;
        } else if (inner) {
          X[a] += 0.15 * test_hash(id, 0), Y[a] += 0.15 * test_hash(id, 1), Z[a] += 0.15 * test_hash(id, 2);
        }
      }
    hx_tmop_opts o;
    opts(&o, big == 1 ? 0.5 : 0.0);
    move_rule rule = {xm0, 3 * nm, 0.5 * moved_a};
    if (big == 2) o.elem_ok = move_ok, o.elem_ok_ctx = &rule;
    double *r0 = malloc((m->num_elem + 1) * sizeof *r0), *r1 = malloc((m->num_elem + 1) * sizeof *r1);
    test_nek_ratios(m, r0);
    long long held = 0;
    int rounds = 0;
    if (hx_tmop_transfer(m, lo, x0, &o, &held, &rounds)) {
      printf("FAIL (%s) transfer: %s\n", big == 2 ? "e" : big ? "b" : "a", hx_error_message());
      return 1;
    }
    test_nek_ratios(m, r1);
    double err = 0, moved = 0;
    long long below = 0;
    for (hx_lid e = 0; e < m->num_elem; e++) {
      for (int a = 0; a < nm; a++) {
        double x = xm0[((size_t)e * 3) * nm + a], y = xm0[((size_t)e * 3 + 1) * nm + a], z = xm0[((size_t)e * 3 + 2) * nm + a];
        double b = x * (1 - x) * y * (1 - y) * z * (1 - z), u[3] = {0.3 * b, 0.6 * b, 0.9 * b};
        for (int c = 0; c < 3; c++) {
          double now = hx_mesh_elem_x(m, e, c)[a], was = xm0[((size_t)e * 3 + c) * nm + a];
          err = fmax(err, fabs(now - (was + u[c])));
          moved = fmax(moved, fabs(now - was));
        }
      }
      below += !(r1[e] >= fmin(big == 1 ? 0.5 : 0.0, r0[e]) - 1e-12);
      if (big == 2) below += !move_ok(&rule, e, m->x + (size_t)e * 3 * nm);
    }
    int64_t cnt[2] = {held, below};
    hx_comm_sum_int64(comm, cnt + 1, 1);
    hx_comm_max_double(comm, &err, 1);
    hx_comm_max_double(comm, &moved, 1);
    if (big == 2) {
      int ok = cnt[1] == 0 && held > 0 && moved > 0.25 * rule.D && moved <= rule.D;
      if (rank == 0)
        printf("%s (e) a rule passing moves <= %.3e: %lld elements fail it, %lld held back in %d rounds, moved %.3e\n",
               ok ? "ok  " : "FAIL", rule.D, (long long)cnt[1], held, rounds, moved);
      fail |= !ok;
    } else if (!big) {
      moved_a = moved;
      int ok = err < 1e-13 && cnt[0] == 0 && moved > 1e-3;
      if (rank == 0)
        printf("%s (a) polynomial moves carried exactly: max error %.3e, moved %.3e, held back %lld (0)\n", ok ? "ok  " : "FAIL",
               err, moved, held);
      fail |= !ok;
    } else {
      int ok = cnt[1] == 0 && held > 0 && moved > 1e-3 && rounds > 0;
      if (rank == 0)
        printf("%s (b) no element below min(0.5, before): %lld below, %lld held back in %d rounds, moved %.3e\n",
               ok ? "ok  " : "FAIL", (long long)cnt[1], held, rounds, moved);
      fail |= !ok;
    }
    free(x0), free(xm0), free(r0), free(r1);
    hx_mesh_destroy(&lo);
    hx_mesh_destroy(&m);
  }
  return fail;
}

static hx_mesh *bed_mesh(hx_comm comm, const hx_pebble_bed *bed, int order) {
  hx_pebble_opts o;
  hx_pebble_opts_default(&o);
  o.container = HX_PEBBLE_BOX;
  o.order = order;
  o.map_order = 4; /* the order-2 copy follows the order-4 mesh's map */
  hx_mesh *m = NULL;
  hx_pebble_stats st;
  if (hx_pebble_opts_finish(&o, bed) || hx_pebble_bed_check(bed, &o) || hx_mesher_pebble(comm, bed, &o, &m, &st)) {
    printf("FAIL meshing: %s\n", hx_error_message());
    return NULL;
  }
  return m;
}

static int bed_case(hx_comm comm, int rank) {
  hx_pebble_bed *bed = NULL;
  if (hx_pebble_pack(12, 1.0, 0, 3.0, 1, 8, &bed)) return 1;
  hx_mesh *lo = bed_mesh(comm, bed, 2), *m = bed_mesh(comm, bed, 4);
  if (!lo || !m) return 1;
  double *x0 = copy_x(lo);
  hx_tmop_opts o;
  opts(&o, 0.1);
  o.metric = 318;
  o.target = 4;
  o.equal_weight = 1;
  o.newton_iters = 3;
  hx_tmop_result res;
  if (hx_tmop_optimize(lo, &o, &res)) {
    printf("FAIL optimize: %s\n", hx_error_message());
    return 1;
  }
  double *r0 = malloc((m->num_elem + 1) * sizeof *r0), *r1 = malloc((m->num_elem + 1) * sizeof *r1);
  test_nek_ratios(m, r0);
  long long held = 0;
  int rounds = 0, fail = 0;
  if (hx_tmop_transfer(m, lo, x0, &o, &held, &rounds)) {
    printf("FAIL (c) transfer: %s\n", hx_error_message());
    return 1;
  }
  test_nek_ratios(m, r1);
  hx_mesh_check_report rep;
  int crc = hx_mesh_check(m, 1e-12, &rep);
  double s[3] = {0, 0, (double)m->num_elem};
  int64_t below = 0, soft_c = 0;
  for (hx_lid e = 0; e < m->num_elem; e++) {
    s[0] += r0[e], s[1] += r1[e];
    below += !(r1[e] >= fmin(0.1, r0[e]) - 1e-12);
    soft_c += !(r1[e] >= fmin(0.3, r0[e]) - 1e-12);
  }
  hx_comm_sum_double(comm, s, 3);
  hx_comm_sum_int64(comm, &below, 1);
  hx_comm_sum_int64(comm, &soft_c, 1);
  int ok = crc == 0 && rep.off_surface == 0 && rep.bad_elems == 0 && rep.id_mismatch == 0;
  if (rank == 0)
    printf("%s (c) hx_mesh_check after the transfer: off-surface %lld (largest %.2e), id mismatches %lld, det J <= 0 %lld\n",
           ok ? "ok  " : "FAIL", (long long)rep.off_surface, rep.surf_max_rel, (long long)rep.id_mismatch,
           (long long)rep.bad_elems);
  fail |= !ok;
  ok = below == 0 && s[1] > s[0] * 1.01;
  if (rank == 0)
    printf("%s (c) %lld elements below min(0.1, before); mean ratio %.4f -> %.4f; %lld held back in %d rounds\n",
           ok ? "ok  " : "FAIL", (long long)below, s[0] / s[2], s[1] / s[2], held, rounds);
  fail |= !ok;
  /* (d) the same with --transfer-keep 0.3, on a fresh order-4 mesh */
  double *xc = copy_x(m), *rc1 = copy_ratios(m, r1);
  hx_mesh_destroy(&m);
  m = bed_mesh(comm, bed, 4);
  if (!m) return 1;
  o.transfer_keep = 0.3;
  if (hx_tmop_transfer(m, lo, x0, &o, &held, &rounds)) {
    printf("FAIL (d) transfer: %s\n", hx_error_message());
    return 1;
  }
  test_nek_ratios(m, r1);
  crc = hx_mesh_check(m, 1e-12, &rep);
  ok = crc == 0 && rep.off_surface == 0 && rep.bad_elems == 0 && rep.id_mismatch == 0;
  int64_t cnt[5] = {0, 0, 0, 0, 0}; /* below min(0.1, before); below min(0.3, before); below 0.1 in (d), in (c); poor */
  double dpoor = 0;
  size_t npe = (size_t)hx_mesh_nodes_per_elem(m);
  for (hx_lid e = 0; e < m->num_elem; e++) {
    cnt[0] += !(r1[e] >= fmin(0.1, r0[e]) - 1e-12);
    cnt[1] += !(r1[e] >= fmin(0.3, r0[e]) - 1e-12);
    cnt[2] += r1[e] < 0.1, cnt[3] += rc1[e] < 0.1;
    if (!(r0[e] < 0.1)) continue;
    cnt[4]++;
    for (size_t a = 0; a < 3 * npe; a++) dpoor = fmax(dpoor, fabs(m->x[(size_t)e * 3 * npe + a] - xc[(size_t)e * 3 * npe + a]));
  }
  hx_comm_sum_int64(comm, cnt, 5);
  hx_comm_max_double(comm, &dpoor, 1);
  if (rank == 0)
    printf("%s (d) --transfer-keep 0.3: hx_mesh_check (off-surface %lld, id mismatches %lld, det J <= 0 %lld)\n",
           ok ? "ok  " : "FAIL", (long long)rep.off_surface, (long long)rep.id_mismatch, (long long)rep.bad_elems);
  fail |= !ok;
  ok = cnt[0] == 0 && cnt[1] < soft_c && cnt[2] == cnt[3] && cnt[4] > 0 && dpoor <= 1e-14 * 3.0;
  if (rank == 0)
    printf("%s (d) below min(0.1, before): %lld; below min(0.3, before): %lld (without: %lld); the %lld elements below "
           "0.1 before end %.1e from (c)'s nodes; below 0.1: %lld (c: %lld); %lld held back in %d rounds\n",
           ok ? "ok  " : "FAIL", (long long)cnt[0], (long long)cnt[1], (long long)soft_c, (long long)cnt[4], dpoor,
           (long long)cnt[2], (long long)cnt[3], held, rounds);
  fail |= !ok;
  free(xc), free(rc1);
  free(x0), free(r0), free(r1);
  hx_mesh_destroy(&lo);
  hx_mesh_destroy(&m);
  hx_pebble_bed_destroy(&bed);
  return fail;
}

/* whether a and b are the same mesh byte for byte (coordinates, node ids, attributes, faces) */
static int same_mesh(const hx_mesh *a, const hx_mesh *b) {
  if (!a || !b || a->order != b->order || a->num_elem != b->num_elem || a->num_faces != b->num_faces) return 0;
  size_t npe = (size_t)hx_mesh_nodes_per_elem(a), ne = (size_t)a->num_elem;
  if (memcmp(a->x, b->x, ne * 3 * npe * sizeof *a->x) || memcmp(a->node_id, b->node_id, ne * npe * sizeof *a->node_id) ||
      memcmp(a->vert_id, b->vert_id, ne * 8 * sizeof *a->vert_id) ||
      memcmp(a->elem_attr, b->elem_attr, ne * sizeof *a->elem_attr))
    return 0;
  for (hx_lid f = 0; f < a->num_faces; f++)
    if (a->faces[f].elem != b->faces[f].elem || a->faces[f].face != b->faces[f].face || a->faces[f].bid != b->faces[f].bid ||
        a->faces[f].surf != b->faces[f].surf)
      return 0;
  return 1;
}

static int copy_case(hx_comm comm, int rank, int cyl) {
  hx_pebble_bed *bed = NULL;
  if (hx_pebble_pack(12, 1.0, 0, 3.0, 1, 8, &bed)) return 1;
  hx_pebble_opts o, ol;
  hx_pebble_opts_default(&o);
  if (cyl) { /* with the --goals mesher flags: transition rings, spaced ring points */
    o.container = HX_PEBBLE_CYLINDER, o.inlet_len = 2, o.outlet_len = 2;
    o.aspect = 18, o.score_nek = 1, o.grade_expand = 0.75, o.smooth = 10;
    o.contact_layers = 1; /* and --contact-layers one: its transition elements' radial spacing */
  } else o.container = HX_PEBBLE_BOX;
  o.order = 4;
  hx_mesh *m = NULL, *lo = NULL, *m2 = NULL, *lo2 = NULL, *bad = NULL, *bad_lo = NULL;
  hx_pebble_stats st;
  int fail = hx_pebble_opts_finish(&o, bed) || hx_pebble_bed_check(bed, &o) ||
             hx_mesher_pebble_copy(comm, bed, &o, 2, &m, &lo, &st) || hx_mesher_pebble(comm, bed, &o, &m2, &st);
  hx_pebble_opts_lower(&o, 2, 0, &ol);
  fail = fail || hx_mesher_pebble(comm, bed, &ol, &lo2, &st);
  if (fail) printf("FAIL (f) meshing: %s\n", hx_error_message());
  int64_t same = !fail && same_mesh(m, m2) && same_mesh(lo, lo2) && lo->order == 2, refused;
  hx_comm_min_int64(comm, &same, 1);
  refused = hx_mesher_pebble_copy(comm, bed, &o, 4, &bad, &bad_lo, &st) == HX_ERR_INPUT && !bad && !bad_lo;
  hx_error_clear();
  if (rank == 0)
    printf("%s (f) %s bed: the order-4 mesh and its order-2 copy from one tessellation equal hx_mesher_pebble's two (%lld "
           "elements); an order-4 copy of order 4 refused: %s\n",
           same && refused ? "ok  " : "FAIL", cyl ? "cylinder" : "box", m ? (long long)m->num_elem : -1LL,
           refused ? "yes" : "no");
  hx_mesh_destroy(&m), hx_mesh_destroy(&lo), hx_mesh_destroy(&m2), hx_mesh_destroy(&lo2);
  hx_pebble_bed_destroy(&bed);
  return !(same && refused);
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
  int rank = hx_comm_rank(comm);
  int fail = box_cases(comm, rank);
  fail |= bed_case(comm, rank);
  fail |= copy_case(comm, rank, 0);
  fail |= copy_case(comm, rank, 1);
  int64_t f = fail;
  hx_comm_max_int64(comm, &f, 1);
  fail = (int)f;
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
