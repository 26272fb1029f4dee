/* t530: untangling (issue 34, item 3). The test set is made here, then every mesh of it goes
   through hx_tmop_optimize (untangling first, then 10 Newton steps of metric 303, unit target,
   sliding boundary) on the backend named by argv[1] (cpu by default; cuda skips cleanly
   without a device), and must end valid, proven: every element's Bernstein bound of det J
   positive (hx_detj_bound_elem, independent of the optimizer's checks), counted over ranks.
   (a) boxes of 6^3 elements at p = 1..4 with 1 %, 5 % and 20 % of the elements inverted:
       interior vertices (two lattice steps apart, in an order fixed by a hash of their ids)
       pushed 1.3 edge lengths along an axis, across the face of the next vertex, by a trilinear
       hat in lattice coordinates (so every order holds the same geometry), until the share of
       inverted elements reaches the fraction;
   (b) a Kershaw box (6^3, eps 0.3) at p = 2 and 4 with 5 % pushed the same way;
   (c) a spherical shell (cube faces 2 x 2, 2 radial layers, 1 <= r <= 1.3, the layer between
       them at r = 1.02: a boundary layer too thin for its curvature) curved to order 4 onto its
       spheres, past its folding point: the inner sphere bulges through the flat faces between
       the layers (the nodes on the spheres slide on them);
   (d) a mirrored box (x -> -x: every element inverted, the boundary in place) cannot be
       untangled: HX_ERR_INVALID_MESH saying how many are still inverted.
   Each line: the case, inverted elements before -> after the untangling, its Newton steps,
   the proven count. Runs under NP 1 and 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_box.h"
#include "hx_curve.h"
#include "hx_detj_bound.h"
#include "hx_io.h"
#include "hx_kernels.h"
#include "hx_test_meshes.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

static const char *backend = "cpu", *only = NULL; /* argv[2]: run the cases whose name starts so */

/* vertex lattice position (in elements) of node id of a box of n^3 elements at order p */
static void node_u(hx_gid id, int n, int p, const double *xg, double u[3]) {
  hx_gid L = (hx_gid)n * p + 1, I[3] = {id % L, (id / L) % L, id / (L * L)};
  for (int c = 0; c < 3; c++) {
    hx_gid e = I[c] / p, i = I[c] % p;
    u[c] = (double)e + xg[i];
  }
}

/* the box map of test_kershaw-like boxes on [0,1]^3: u in elements -> x */
static void box_map(int n, double eps, const double u[3], double X[3]) {
  double v[3] = {u[0] / n, u[1] / n, u[2] / n};
  if (eps < 1) hx_kershaw_map(eps, eps, 1, v, X);
  else memcpy(X, v, sizeof v);
}

/* push interior vertex v (in elements) by d with the trilinear hat of its 8 elements */
static void push_vertex(hx_mesh *m, int n, const int v[3], const double d[3]) {
  int p = m->order, nd = m->nd, npe = nd * nd * nd;
  double xg[HX_MAX_ND], wg[HX_MAX_ND];
  hx_gll(nd, xg, wg);
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int a = 0; a < npe; a++) {
      double u[3], phi = 1;
      node_u(m->node_id[(size_t)e * npe + a], n, p, xg, u);
      for (int c = 0; c < 3; c++) phi *= fmax(0.0, 1.0 - fabs(u[c] - v[c]));
      if (phi > 0)
        for (int c = 0; c < 3; c++) hx_mesh_elem_x(m, e, c)[a] += phi * d[c];
    }
}

/* push vertices until at least frac of the elements are inverted; *count: how many are */
static int invert_share(hx_mesh *m, int n, double eps, double frac, long long *count) {
  int nv = (n - 1) * (n - 1) * (n - 1), nchosen = 0;
  int(*cand)[3] = malloc(sizeof *cand * (size_t)nv), (*chosen)[3] = malloc(sizeof *chosen * (size_t)nv);
  double *key = malloc(sizeof *key * (size_t)nv);
  int k = 0;
  for (int z = 1; z < n; z++)
    for (int y = 1; y < n; y++)
      for (int x = 1; x < n; x++, k++) {
        cand[k][0] = x, cand[k][1] = y, cand[k][2] = z;
        key[k] = test_hash(x + 100 * y + 10000 * z, 7);
      }
  for (int i = 1; i < nv; i++) /* by key (insertion sort: a few hundred) */
    for (int j = i; j > 0 && key[j] < key[j - 1]; j--) {
      double t = key[j];
      key[j] = key[j - 1], key[j - 1] = t;
      int c[3] = {cand[j][0], cand[j][1], cand[j][2]};
      memcpy(cand[j], cand[j - 1], sizeof c), memcpy(cand[j - 1], c, sizeof c);
    }
  int rc = hx_tmop_count_inverted(m, count);
  for (k = 0; !rc && k < nv && *count < (long long)ceil(frac * (double)m->num_elem_global); k++) {
    int near = 0;
    for (int j = 0; j < nchosen; j++) {
      int dmax = 0;
      for (int c = 0; c < 3; c++) dmax = abs(cand[k][c] - chosen[j][c]) > dmax ? abs(cand[k][c] - chosen[j][c]) : dmax;
      near |= dmax < 2;
    }
    if (near) continue;
    memcpy(chosen[nchosen++], cand[k], sizeof cand[k]);
    int axis = (int)(3 * (key[k] + 0.5)) % 3, sgn = test_hash(k, 3) > 0 ? 1 : -1;
    double u0[3] = {cand[k][0], cand[k][1], cand[k][2]}, u1[3], X0[3], X1[3], d[3];
    memcpy(u1, u0, sizeof u0);
    u1[axis] += sgn;
    box_map(n, eps, u0, X0);
    box_map(n, eps, u1, X1);
    for (int c = 0; c < 3; c++) d[c] = 1.3 * (X1[c] - X0[c]);
    push_vertex(m, n, cand[k], d);
    rc = hx_tmop_count_inverted(m, count);
  }
  free(cand), free(chosen), free(key);
  return rc;
}

/* proven-valid elements (Bernstein bound > 0), global */
static long long proven(const hx_mesh *m, long long *invalid) {
  hx_detj_bound_opts bo;
  hx_detj_bound_opts_default(&bo);
  hx_detj_bound_ctx *bc = NULL;
  long long cnt[2] = {0, 0};
  if (hx_detj_bound_ctx_create(m->order, &bo, &bc)) return -1;
  size_t npe = (size_t)3 * m->nd * m->nd * m->nd;
  for (hx_lid e = 0; e < m->num_elem; e++) {
    hx_detj_bound_result r;
    hx_detj_bound_elem(bc, m->x + (size_t)e * npe, &r);
    cnt[0] += r.verdict == HX_VALID_PROVEN;
    cnt[1] += r.verdict == HX_INVALID;
  }
  hx_detj_bound_ctx_destroy(&bc);
  int64_t c64[2] = {cnt[0], cnt[1]};
  hx_comm_sum_int64(m->comm, c64, 2);
  *invalid = c64[1];
  return c64[0];
}

static int rank0(const hx_mesh *m) { return hx_comm_rank(m->comm) == 0; }

/* optimize with untangling; the line of the case; 0 where it ends proven valid */
static int run_case(const char *name, hx_mesh *m) {
  long long inv0 = 0, bad = 0;
  if (only && strncmp(name, only, strlen(only))) return 0;
  if (hx_tmop_count_inverted(m, &inv0)) return 1;
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = backend;
  o.newton_iters = 10;
  o.num_threads = 2;
  hx_tmop_result r;
  double t0 = hx_tmop_now_public();
  int rc = hx_tmop_optimize(m, &o, &r);
  double t = hx_tmop_now_public() - t0;
  if (rc) {
    if (rank0(m)) printf("%-26s optimize failed: %s\n", name, hx_error_message());
    hx_error_clear();
    return 1;
  }
  long long np = proven(m, &bad), inv1 = -1;
  hx_tmop_count_inverted(m, &inv1);
  int ok = r.untangled && r.inverted0 == inv0 && inv0 > 0 && r.inverted == 0 && inv1 == 0 && np == m->num_elem_global;
  if (rank0(m))
    printf("%-26s inverted %4lld -> %lld (%3d untangling steps, %s), then %2d Newton steps; proven %lld/%lld%s  %s\n", name, inv0,
           inv1, r.untangle_iters, r.untangle_stop, r.newton_iters, np, (long long)m->num_elem_global,
           bad ? " (some invalid)" : "", ok ? "ok" : "FAIL");
  fprintf(stderr, "%s: %.2f s (untangling %.2f s)\n", name, t, r.untangle_time);
  return !ok;
}

/* (c): the shell curved to order p onto its inner sphere only, without curving's own check */
static int folded_shell(hx_comm comm, int p, hx_mesh **out) {
  hx_mesh *m = NULL, *h = NULL;
  HX_CALL(tm_shell(2, 2, 1.0, 1.3, &m));
  /* the middle vertex layer (r = 1.15) moved in to r = 1.02: the inner sphere bulges through the
     flat faces between the layers once curved */
  for (size_t i = 0; i < (size_t)m->num_elem * 8; i++) {
    double *x = m->x + (i / 8) * 24 + i % 8, r = sqrt(x[0] * x[0] + x[8] * x[8] + x[16] * x[16]);
    if (fabs(r - 1.15) < 1e-9)
      for (int c = 0; c < 3; c++) x[8 * c] *= 1.02 / r;
  }
  hx_curve_ctx *cc = NULL;
  int rc = hx_curve_create(m, p, &cc);
  if (!rc) rc = hx_mesh_create(HX_COMM_SELF, p, m->num_elem, &h);
  if (!rc) rc = hx_curve_block(cc, 0, m->num_elem, h->x, h->node_id);
  if (!rc) memcpy(h->vert_id, m->vert_id, (size_t)m->num_elem * 8 * sizeof(hx_gid));
  for (hx_lid f = 0; f < m->num_faces && !rc; f++)
    rc = hx_mesh_add_face(h, m->faces[f].elem, m->faces[f].face, m->faces[f].bid, m->faces[f].surf);
  for (int b = 1; b < m->num_bnames && !rc; b++)
    if (m->bnames[b]) rc = hx_mesh_set_bname(h, b, m->bnames[b]);
  for (int i = 0; i < m->num_surfaces && !rc; i++) rc = hx_mesh_add_surface(h, &m->surfaces[i], NULL);
  hx_curve_destroy(&cc);
  hx_mesh_destroy(&m);
  if (!rc) {
    h->comm = comm; /* every rank holds it whole: split it as `hexpack optimize` does */
    h->num_elem_global = h->num_elem;
    rc = hx_mesh_split_replicated(&h);
  }
  if (rc) hx_mesh_destroy(&h);
  *out = h;
  return rc;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  hx_comm comm = MPI_COMM_WORLD;
#else
  hx_comm comm = HX_COMM_SELF;
#endif
  int fail = 0;
  if (argc > 1) backend = argv[1];
  if (argc > 2) only = argv[2];
  if (!strcmp(backend, "cuda") && (!hx_backend_cuda.available || !hx_cuda_device_available())) {
    printf("t530 cuda: skipped (no CUDA device)\n");
#if HX_HAVE_MPI
    MPI_Finalize();
#endif
    return 0;
  }
  char name[64];
  static const double fracs[3] = {0.01, 0.05, 0.20};
  for (int p = 1; p <= 4; p++)
    for (int f = 0; f < 3; f++) {
      hx_mesh *m = test_kershaw(comm, 6, 6, 6, p, 1.0);
      long long cnt = 0;
      if (!m || invert_share(m, 6, 1.0, fracs[f], &cnt)) return 1;
      snprintf(name, sizeof name, "box p=%d %2.0f%%", p, 100 * fracs[f]);
      fail |= run_case(name, m);
      hx_mesh_destroy(&m);
    }
  for (int p = 2; p <= 4; p += 2) {
    hx_mesh *m = test_kershaw(comm, 6, 6, 6, p, 0.3);
    long long cnt = 0;
    if (!m || invert_share(m, 6, 0.3, 0.05, &cnt)) return 1;
    snprintf(name, sizeof name, "kershaw p=%d 5%%", p);
    fail |= run_case(name, m);
    hx_mesh_destroy(&m);
  }
  {
    hx_mesh *m = NULL;
    if (folded_shell(comm, 4, &m)) {
      printf("shell: %s\n", hx_error_message());
      return 1;
    }
    fail |= run_case("shell p=4 folded", m);
    hx_mesh_destroy(&m);
  }
  {
    /* (d) the mirrored box: no continuous motion with the boundary in place unfolds it */
    hx_mesh *m = test_kershaw(comm, 6, 4, 4, 2, 1.0);
    size_t npe = (size_t)m->nd * m->nd * m->nd;
    for (hx_lid e = 0; e < m->num_elem; e++)
      for (size_t a = 0; a < npe; a++) hx_mesh_elem_x(m, e, 0)[a] *= -1;
    hx_tmop_opts o;
    hx_tmop_opts_default(&o);
    o.backend = backend;
    o.untangle_iters = 40;
    hx_tmop_result r;
    int rc = hx_tmop_optimize(m, &o, &r);
    int ok = rc == HX_ERR_INVALID_MESH && strstr(hx_error_message(), "untangling left 96 of 96 inverted element(s)") &&
             r.inverted0 == 96 && r.inverted == 96;
    if (rank0(m)) printf("mirrored box: rc %d, %s\n  %s\n", rc, ok ? "ok" : "FAIL", hx_error_message());
    hx_error_clear();
    fail |= !ok;
    hx_mesh_destroy(&m);
  }
  if (hx_comm_rank(comm) == 0) printf("t530: %s\n", fail ? "FAILED" : "passed");
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail;
}
