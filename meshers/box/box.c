#include "hx_box.h"

#include <math.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_error.h"

void hx_box_opts_default(hx_box_opts *o) {
  memset(o, 0, sizeof *o);
  o->n[0] = o->n[1] = o->n[2] = 4;
  o->order = 1;
  o->hi[0] = o->hi[1] = o->hi[2] = 1.0;
  o->eps_y = o->eps_z = 1.0;
  o->smooth = 1;
}

/* 1D Kershaw pieces (CEED-MS39): R_eps maps [0,1] -> [0,1] with slope
   2 - eps below 1/2 and eps above; L_eps(t) = 1 - R_eps(1 - t). */
static double kr(double eps, double t) { return t <= 0.5 ? (2.0 - eps) * t : 1.0 + eps * (t - 1.0); }
static double kl(double eps, double t) { return 1.0 - kr(eps, 1.0 - t); }

/* Blend S(a, b, u) with the transition sigma of smoothness s. */
static double blend(double a, double b, double u, int s) {
  if (u <= 0.0) return a;
  if (u >= 1.0) return b;
  double sig = u;
  if (s == 2) sig = u * u * (3.0 - 2.0 * u);
  else if (s == 3) sig = u * u * u * (10.0 + u * (-15.0 + 6.0 * u));
  return a + (b - a) * sig;
}

/* Y(x, y) of the Kershaw map for one transverse coordinate t and its eps. */
static double kershaw_1(double eps, int s, double x, double t) {
  int layer = (int)(6.0 * x);
  double lambda = 6.0 * x - layer;
  switch (layer) {
  case 0: return kl(eps, t);
  case 1:
  case 4: return blend(kl(eps, t), kr(eps, t), lambda, s);
  case 2: return blend(kr(eps, t), kl(eps, t), lambda / 2.0, s);
  case 3: return blend(kr(eps, t), kl(eps, t), (1.0 + lambda) / 2.0, s);
  default: return kr(eps, t);
  }
}

void hx_kershaw_map(double eps_y, double eps_z, int smooth, const double x[3], double X[3]) {
  X[0] = x[0];
  X[1] = kershaw_1(eps_y, smooth, x[0], x[1]);
  X[2] = kershaw_1(eps_z, smooth, x[0], x[2]);
}

static const char *side_names[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};

int hx_mesher_box(hx_comm comm, const hx_box_opts *o, hx_mesh **out) {
  for (int d = 0; d < 3; d++) {
    HX_CHECK(o->n[d] >= 1, HX_ERR_INPUT, "--n: element counts must be >= 1, got %d in direction %d", o->n[d], d);
    HX_CHECK(o->hi[d] > o->lo[d], HX_ERR_INPUT, "box extent must be positive in direction %d", d);
  }
  HX_CHECK(o->order >= 1 && o->order <= HX_MAX_ORDER, HX_ERR_INPUT, "--order must be in 1..%d, got %d", HX_MAX_ORDER, o->order);
  if (o->kershaw) {
    HX_CHECK(o->n[0] % 6 == 0, HX_ERR_INPUT,
             "--kershaw needs n_x divisible by 6 (the map's kinks at x = k/6 must fall on element faces), got n_x = %d", o->n[0]);
    HX_CHECK(o->n[1] % 2 == 0 && o->n[2] % 2 == 0, HX_ERR_INPUT,
             "--kershaw needs n_y and n_z even (kink at 1/2), got n_y = %d, n_z = %d", o->n[1], o->n[2]);
    HX_CHECK(o->eps_y > 0 && o->eps_y <= 1 && o->eps_z > 0 && o->eps_z <= 1, HX_ERR_INPUT,
             "--kershaw: EPS_Y and EPS_Z must be in (0, 1], got %g, %g", o->eps_y, o->eps_z);
    HX_CHECK(o->smooth >= 1 && o->smooth <= 3, HX_ERR_INPUT, "--kershaw: smoothness S must be 1, 2 or 3, got %d", o->smooth);
  }
  int N = o->order, nd = N + 1;
  hx_gid ne_glob = (hx_gid)o->n[0] * o->n[1] * o->n[2];
  int rank = hx_comm_rank(comm), size = hx_comm_size(comm);
  hx_gid e_begin = ne_glob * rank / size, e_end = ne_glob * (rank + 1) / size;
  HX_CHECK(e_end - e_begin < INT32_MAX, HX_ERR_INPUT, "too many elements on one rank (%lld); use more ranks",
           (long long)(e_end - e_begin));
  hx_mesh *m;
  HX_CALL(hx_mesh_create(comm, N, (hx_lid)(e_end - e_begin), &m));

  double xg[HX_MAX_ND], wg[HX_MAX_ND];
  int rc = hx_gll(nd, xg, wg);
  /* global node lattice: (n_d * N + 1) points per direction; vertex lattice (n_d + 1) */
  hx_gid L0 = (hx_gid)o->n[0] * N + 1, L1 = (hx_gid)o->n[1] * N + 1;
  hx_gid V0 = (hx_gid)o->n[0] + 1, V1 = (hx_gid)o->n[1] + 1;
  int npe = nd * nd * nd;
#pragma omp parallel for schedule(static)
  for (hx_lid le = 0; le < m->num_elem; le++) {
    hx_gid ge = e_begin + le;
    int ei = (int)(ge % o->n[0]), ej = (int)((ge / o->n[0]) % o->n[1]), ek = (int)(ge / ((hx_gid)o->n[0] * o->n[1]));
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          /* unit-cube position from the global lattice, so shared nodes get bitwise equal inputs */
          double u[3] = {(ei + xg[i]) / o->n[0], (ej + xg[j]) / o->n[1], (ek + xg[k]) / o->n[2]};
          double X[3];
          if (o->kershaw) hx_kershaw_map(o->eps_y, o->eps_z, o->smooth, u, X);
          else memcpy(X, u, sizeof X);
          int a = hx_lex(nd, i, j, k);
          for (int c = 0; c < 3; c++) hx_mesh_elem_x(m, le, c)[a] = o->lo[c] + (o->hi[c] - o->lo[c]) * X[c];
          hx_gid I = (hx_gid)ei * N + i, J = (hx_gid)ej * N + j, K = (hx_gid)ek * N + k;
          m->node_id[(size_t)le * npe + a] = I + L0 * (J + L1 * K);
        }
    for (int c = 0; c < 8; c++) {
      hx_gid I = ei + (c & 1), J = ej + ((c >> 1) & 1), K = ek + ((c >> 2) & 1);
      m->vert_id[(size_t)le * 8 + c] = I + V0 * (J + V1 * K);
    }
  }

  /* the six planes and their names */
  int surf[6];
  for (int s = 0; s < 6 && rc == HX_OK; s++) {
    hx_surface pl = {0};
    pl.type = HX_SURF_PLANE;
    int d = s / 2;
    pl.p[d] = (s % 2) ? o->hi[d] : o->lo[d];
    pl.n[d] = 1.0;
    rc = hx_mesh_add_surface(m, &pl, &surf[s]);
    int bid = o->separate_ids ? s + 1 : d + 1;
    if (rc == HX_OK) {
      static const char *axis_names[3] = {"x_faces", "y_faces", "z_faces"};
      rc = hx_mesh_set_bname(m, bid, o->separate_ids ? side_names[s] : axis_names[d]);
    }
  }
  for (hx_lid le = 0; le < m->num_elem && rc == HX_OK; le++) {
    hx_gid ge = e_begin + le;
    int idx[3] = {(int)(ge % o->n[0]), (int)((ge / o->n[0]) % o->n[1]), (int)(ge / ((hx_gid)o->n[0] * o->n[1]))};
    for (int s = 0; s < 6 && rc == HX_OK; s++) {
      int d = s / 2;
      if ((s % 2 == 0 && idx[d] == 0) || (s % 2 == 1 && idx[d] == o->n[d] - 1))
        rc = hx_mesh_add_face(m, le, s, o->separate_ids ? s + 1 : d + 1, surf[s]);
    }
  }
  if (rc != HX_OK) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}
