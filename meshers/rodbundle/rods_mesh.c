/* The rod-bundle mesh: the 2D layer (rods_layer.c) extruded along z, at order 1 or
   directly at order N with the rod edges on their circles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "rods_impl.h"

/* z of every level (num_layers + 1 values). Zone z: nz layers whose thicknesses
   grow geometrically by grading^(1/(nz-1)) from the first to the last. */
static int z_levels(const hx_rods_opts *o, double **out, int *num_layers) {
  HX_CHECK(o->num_zones >= 1 && o->num_zones <= HX_RODS_MAX_ZONES, HX_ERR_INPUT, "flag --z: 1..%d axial zones, got %d",
           HX_RODS_MAX_ZONES, o->num_zones);
  int nl = 0;
  for (int z = 0; z < o->num_zones; z++) {
    HX_CHECK(o->z[z + 1] > o->z[z], HX_ERR_INPUT, "flag --z: zone boundaries must increase, got %g then %g", o->z[z],
             o->z[z + 1]);
    HX_CHECK(o->nz[z] >= 1 && o->nz[z] <= 1000000, HX_ERR_INPUT, "flag --nz: zone %d needs 1..1000000 layers, got %d", z + 1,
             o->nz[z]);
    HX_CHECK(o->grading[z] > 0 && isfinite(o->grading[z]), HX_ERR_INPUT, "flag --grading: zone %d needs a positive ratio, got %g",
             z + 1, o->grading[z]);
    nl += o->nz[z];
  }
  double *zl = NULL;
  HX_CALL(hx_malloc((size_t)(nl + 1) * sizeof *zl, &zl));
  int l = 0;
  for (int z = 0; z < o->num_zones; z++) {
    int n = o->nz[z];
    double q = n > 1 ? pow(o->grading[z], 1.0 / (n - 1)) : 1.0, sum = 0, h = 1;
    for (int k = 0; k < n; k++) sum += h, h *= q;
    double acc = 0;
    h = 1;
    for (int k = 0; k < n; k++) {
      zl[l++] = o->z[z] + (o->z[z + 1] - o->z[z]) * acc / sum;
      acc += h;
      h *= q;
    }
  }
  zl[l] = o->z[o->num_zones];
  *out = zl;
  *num_layers = nl;
  return HX_OK;
}

typedef struct {
  int a, b, q, side;
} e2key;
static int cmp_e2(const void *x, const void *y) {
  const e2key *u = x, *v = y;
  if (u->a != v->a) return u->a < v->a ? -1 : 1;
  return u->b < v->b ? -1 : u->b > v->b;
}

/* Corner pairs of the 4 sides of a quad, in the direction of the side's parameter:
   side 0 (xi1 = 0): 0 -> 2, side 1: 1 -> 3, side 2 (xi2 = 0): 0 -> 1, side 3: 2 -> 3. */
static const int side_corners[4][2] = {{0, 2}, {1, 3}, {0, 1}, {2, 3}};

/* Order-N 2D geometry and node ids of every quad: X2 [nquads][2][nd][nd] (i fastest),
   ID2 [nquads][nd][nd]; ids: vertices, then N-1 per edge (from its lower vertex id),
   then (N-1)^2 per quad. */
static int layer_order_n(const hx_rods_opts *o, const rods_layer *L, int N, double **X2, hx_gid **ID2, hx_gid *n2) {
  int nd = N + 1, nq = L->nquads;
  double xg[HX_MAX_ND], wg[HX_MAX_ND];
  HX_CALL(hx_gll(nd, xg, wg));
  e2key *k = NULL;
  int *eid = NULL;
  HX_CALL(hx_malloc((size_t)nq * 4 * sizeof *k, &k));
  int rc = hx_malloc((size_t)nq * 4 * sizeof *eid, &eid);
  for (int q = 0; q < nq; q++)
    for (int s = 0; s < 4; s++) {
      int u = L->quads[q].v[side_corners[s][0]], v = L->quads[q].v[side_corners[s][1]];
      e2key *e = &k[4 * q + s];
      e->a = u < v ? u : v, e->b = u < v ? v : u, e->q = q, e->side = s;
    }
  qsort(k, (size_t)nq * 4, sizeof *k, cmp_e2);
  int ne = 0;
  for (int i = 0; rc == HX_OK && i < 4 * nq; i++) {
    if (i > 0 && (k[i].a != k[i - 1].a || k[i].b != k[i - 1].b)) ne++;
    eid[4 * k[i].q + k[i].side] = ne;
  }
  ne++;
  hx_gid base_e = L->nnodes, base_q = base_e + (hx_gid)ne * (N - 1);
  *n2 = base_q + (hx_gid)nq * (N - 1) * (N - 1);
  double *X = NULL;
  hx_gid *ID = NULL;
  if (rc == HX_OK) rc = hx_malloc((size_t)nq * 2 * nd * nd * sizeof *X, &X);
  if (rc == HX_OK) rc = hx_malloc((size_t)nq * nd * nd * sizeof *ID, &ID);
  if (rc != HX_OK) {
    hx_free(&k), hx_free(&eid), hx_free(&X), hx_free(&ID);
    return rc;
  }
#pragma omp parallel for schedule(static)
  for (int q = 0; q < nq; q++) {
    const rods_quad *Q = &L->quads[q];
    const double *C[4];
    for (int c = 0; c < 4; c++) C[c] = &L->x2[2 * Q->v[c]];
    /* side curves at the GLL points: S[s][m][2] */
    double S[4][HX_MAX_ND][2];
    for (int s = 0; s < 4; s++) {
      const double *a = C[side_corners[s][0]], *b = C[side_corners[s][1]];
      if (s == 0 && Q->arc) {
        const double *cc = L->sites[Q->cell].c;
        double r = o->radius[L->sites[Q->cell].type];
        double ta = atan2(a[1] - cc[1], a[0] - cc[0]), tb = atan2(b[1] - cc[1], b[0] - cc[0]), d = tb - ta;
        while (d > HX_PI) d -= 2 * HX_PI;
        while (d < -HX_PI) d += 2 * HX_PI;
        for (int m = 0; m < nd; m++) {
          double th = ta + d * xg[m];
          S[s][m][0] = m == 0 ? a[0] : m == N ? b[0] : cc[0] + r * cos(th);
          S[s][m][1] = m == 0 ? a[1] : m == N ? b[1] : cc[1] + r * sin(th);
        }
      } else {
        /* straight: interpolate from the lower node id so both quads compute the same numbers */
        int fl = Q->v[side_corners[s][0]] > Q->v[side_corners[s][1]];
        const double *p = fl ? b : a, *pe = fl ? a : b;
        for (int m = 0; m < nd; m++) {
          double t = fl ? xg[N - m] : xg[m];
          S[s][m][0] = m == 0 ? a[0] : m == N ? b[0] : p[0] + t * (pe[0] - p[0]);
          S[s][m][1] = m == 0 ? a[1] : m == N ? b[1] : p[1] + t * (pe[1] - p[1]);
        }
      }
    }
    double *Xq = X + (size_t)q * 2 * nd * nd;
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        double u = xg[i], v = xg[j];
        for (int d = 0; d < 2; d++) {
          double val;
          if (i == 0) val = S[0][j][d];
          else if (i == N) val = S[1][j][d];
          else if (j == 0) val = S[2][i][d];
          else if (j == N) val = S[3][i][d];
          else
            val = (1 - u) * S[0][j][d] + u * S[1][j][d] + (1 - v) * S[2][i][d] + v * S[3][i][d] -
                  ((1 - u) * (1 - v) * C[0][d] + u * (1 - v) * C[1][d] + (1 - u) * v * C[2][d] + u * v * C[3][d]);
          Xq[d * nd * nd + i + nd * j] = val;
        }
      }
    /* ids */
    hx_gid *Iq = ID + (size_t)q * nd * nd;
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        int s = -1, m = 0;
        if (i == 0 || i == N) {
          if (j == 0 || j == N) {
            Iq[i + nd * j] = Q->v[(i ? 1 : 0) + (j ? 2 : 0)];
            continue;
          }
          s = i ? 1 : 0, m = j;
        } else if (j == 0 || j == N) {
          s = j ? 3 : 2, m = i;
        }
        if (s < 0) {
          Iq[i + nd * j] = base_q + (hx_gid)q * (N - 1) * (N - 1) + (i - 1) + (hx_gid)(N - 1) * (j - 1);
        } else {
          int fl = Q->v[side_corners[s][0]] > Q->v[side_corners[s][1]];
          int mm = fl ? N - m : m;
          Iq[i + nd * j] = base_e + (hx_gid)eid[4 * q + s] * (N - 1) + (mm - 1);
        }
      }
  }
  hx_free(&k);
  hx_free(&eid);
  *X2 = X;
  *ID2 = ID;
  return HX_OK;
}

int hx_rods_periodic_partner(const hx_rods_info *info, hx_gid e, int face, hx_gid *e_partner, int *face_partner) {
  if (!info->periodic || info->elems_per_layer <= 0) return 0;
  hx_gid n2 = info->elems_per_layer, top = n2 * (info->num_layers - 1);
  if (face == 4 && e >= 0 && e < n2) {
    *e_partner = e + top;
    *face_partner = 5;
    return 1;
  }
  if (face == 5 && e >= top && e < top + n2) {
    *e_partner = e - top;
    *face_partner = 4;
    return 1;
  }
  return 0;
}

int hx_mesher_rods(hx_comm comm, const hx_rods_opts *o, hx_mesh **out, hx_rods_info *info) {
  *out = NULL;
  HX_CHECK(o->order >= 1 && o->order <= HX_MAX_ORDER, HX_ERR_INPUT, "flag --order must be in 1..%d, got %d", HX_MAX_ORDER,
           o->order);
  int per_side = o->lattice == HX_RODS_HEX ? 6 : 4;
  HX_CHECK(o->sectors >= per_side && o->sectors % per_side == 0, HX_ERR_INPUT,
           "flag --sectors %d: a %s lattice needs a multiple of %d (each of a cell's %d sides gets sectors/%d "
           "elements), e.g. %d",
           o->sectors, o->lattice == HX_RODS_HEX ? "hex" : "square", per_side, per_side, per_side,
           o->sectors < per_side ? per_side : (o->sectors / per_side + 1) * per_side);
  HX_CHECK(o->bl_layers >= 0 && o->bl_layers <= 50, HX_ERR_INPUT, "flag --bl-layers must be in 0..50, got %d", o->bl_layers);
  HX_CHECK(o->gap_layers >= 1 && o->gap_layers <= 100, HX_ERR_INPUT, "flag --gap-layers must be in 1..100, got %d",
           o->gap_layers);
  HX_CHECK(o->bl_growth >= 1 && o->bl_growth <= 5, HX_ERR_INPUT, "flag --bl-growth must be in [1, 5], got %g", o->bl_growth);
  HX_CHECK(o->bl_first >= 0, HX_ERR_INPUT, "flag --bl-first must be >= 0, got %g", o->bl_first);
  double *zl = NULL;
  int nl = 0;
  HX_CALL(z_levels(o, &zl, &nl));

  hx_rods_opts oo = *o;
  rods_layer L;
  int rc;
  if (oo.bl_first == 0 && oo.bl_layers > 0) {
    /* automatic first thickness: a fifth of the narrowest rod-to-mid-gap distance, over the layers */
    oo.bl_layers = 0;
    oo.order = 0;
    rc = rods_layer_build(&oo, &L);
    if (rc != HX_OK) {
      hx_free(&zl);
      return rc;
    }
    double blt = 0.2 * L.min_half_gap, h = 1, s = 0;
    for (int a = 0; a < o->bl_layers; a++) s += h, h *= o->bl_growth;
    rods_layer_free(&L);
    oo.bl_layers = o->bl_layers;
    oo.order = o->order;
    oo.bl_first = blt / s;
  }
  rc = rods_layer_build(&oo, &L);
  if (rc != HX_OK) {
    hx_free(&zl);
    return rc;
  }
  int N = o->order, nd = N + 1, npe = nd * nd * nd;
  hx_gid n2q = L.nquads, ne_glob = n2q * nl;
  int rank = hx_comm_rank(comm), size = hx_comm_size(comm);
  hx_gid e_begin = ne_glob * rank / size, e_end = ne_glob * (rank + 1) / size;
  hx_mesh *m = NULL;
  double *X2 = NULL;
  hx_gid *ID2 = NULL, n2N = L.nnodes;
  if (e_end - e_begin >= INT32_MAX)
    rc = HX_ERROR(HX_ERR_INPUT, "too many elements on one rank (%lld); use more ranks", (long long)(e_end - e_begin));
  if (rc == HX_OK) rc = hx_mesh_create(comm, N, (hx_lid)(e_end - e_begin), &m);
  if (rc == HX_OK && N > 1) rc = layer_order_n(&oo, &L, N, &X2, &ID2, &n2N);
  double xg[HX_MAX_ND], wg[HX_MAX_ND];
  if (rc == HX_OK) rc = hx_gll(nd, xg, wg);
  if (rc == HX_OK) {
#pragma omp parallel for schedule(static)
    for (hx_lid le = 0; le < m->num_elem; le++) {
      hx_gid ge = e_begin + le;
      int q = (int)(ge % n2q), l = (int)(ge / n2q);
      const rods_quad *Q = &L.quads[q];
      double *x = hx_mesh_elem_x(m, le, 0), *y = hx_mesh_elem_x(m, le, 1), *z = hx_mesh_elem_x(m, le, 2);
      hx_gid *nid = m->node_id + (size_t)le * npe;
      for (int c = 0; c < 8; c++) m->vert_id[(size_t)le * 8 + c] = Q->v[c & 3] + (hx_gid)L.nnodes * (l + (c >> 2));
      for (int k = 0; k < nd; k++) {
        double zk = k == 0 ? zl[l] : k == N ? zl[l + 1] : zl[l] + xg[k] * (zl[l + 1] - zl[l]);
        for (int j = 0; j < nd; j++)
          for (int i = 0; i < nd; i++) {
            int a = hx_lex(nd, i, j, k);
            if (N == 1) {
              const double *p = &L.x2[2 * Q->v[i + 2 * j]];
              x[a] = p[0], y[a] = p[1];
              nid[a] = Q->v[i + 2 * j] + (hx_gid)L.nnodes * (l + k);
            } else {
              const double *Xq = X2 + (size_t)q * 2 * nd * nd;
              x[a] = Xq[i + nd * j];
              y[a] = Xq[nd * nd + i + nd * j];
              nid[a] = ID2[(size_t)q * nd * nd + i + nd * j] + n2N * ((hx_gid)l * N + k);
            }
            z[a] = zk;
          }
      }
    }
  }
  /* surfaces: rods, duct sides, end planes */
  for (int s = 0; rc == HX_OK && s < L.nsites; s++) {
    if (L.sites[s].type < 0) continue;
    hx_surface cyl = {0};
    cyl.type = HX_SURF_CYLINDER;
    cyl.p[0] = L.sites[s].c[0], cyl.p[1] = L.sites[s].c[1];
    cyl.n[2] = 1;
    cyl.r = o->radius[L.sites[s].type];
    rc = hx_mesh_add_surface(m, &cyl, NULL);
  }
  for (int s = 0; rc == HX_OK && s < L.nduct; s++) {
    hx_surface pl = {0};
    const double *a = L.duct[s], *b = L.duct[(s + 1) % L.nduct];
    double tx = b[0] - a[0], ty = b[1] - a[1], len = hypot(tx, ty);
    pl.type = HX_SURF_PLANE;
    pl.p[0] = a[0], pl.p[1] = a[1];
    pl.n[0] = ty / len, pl.n[1] = -tx / len; /* outward */
    rc = hx_mesh_add_surface(m, &pl, NULL);
  }
  int surf_z0 = L.nrods + L.nduct, surf_z1 = surf_z0 + 1;
  for (int s = 0; rc == HX_OK && s < 2; s++) {
    hx_surface pl = {0};
    pl.type = HX_SURF_PLANE;
    pl.p[2] = s ? zl[nl] : zl[0];
    pl.n[2] = s ? 1 : -1;
    rc = hx_mesh_add_surface(m, &pl, NULL);
  }
  /* names and faces */
  if (rc == HX_OK) rc = hx_mesh_set_bname(m, 1, "rod");
  if (rc == HX_OK) rc = hx_mesh_set_bname(m, 2, o->periodic ? "periodic_zmin" : "inlet");
  if (rc == HX_OK) rc = hx_mesh_set_bname(m, 3, o->periodic ? "periodic_zmax" : "outlet");
  if (rc == HX_OK) rc = hx_mesh_set_bname(m, 4, o->duct == HX_RODS_DUCT_NONE ? "boundary" : "duct");
  int type_bid[HX_RODS_MAX_TYPES];
  for (int t = 0; t < o->num_types; t++) {
    type_bid[t] = o->separate_ids && t > 0 ? 4 + t : 1;
    if (rc == HX_OK && o->separate_ids && t > 0) {
      char nm[32];
      snprintf(nm, sizeof nm, "rod_type%d", t + 1);
      rc = hx_mesh_set_bname(m, type_bid[t], nm);
    }
  }
  if (rc == HX_OK && o->separate_ids && o->num_types > 1) rc = hx_mesh_set_bname(m, 1, "rod_type1");
  int *rod_type = NULL;
  if (rc == HX_OK) rc = hx_malloc((size_t)(L.nrods + 1) * sizeof *rod_type, &rod_type);
  for (int s = 0; rc == HX_OK && s < L.nsites; s++)
    if (L.sites[s].rod >= 0) rod_type[L.sites[s].rod] = L.sites[s].type;
  for (hx_lid le = 0; rc == HX_OK && le < (m ? m->num_elem : 0); le++) {
    hx_gid ge = e_begin + le;
    int q = (int)(ge % n2q), l = (int)(ge / n2q);
    const rods_quad *Q = &L.quads[q];
    for (int f = 0; f < 4 && rc == HX_OK; f++) {
      int s = Q->bsurf[f];
      if (s < 0) continue;
      rc = hx_mesh_add_face(m, le, f, s < L.nrods ? type_bid[rod_type[s]] : 4, s);
    }
    if (rc == HX_OK && l == 0) rc = hx_mesh_add_face(m, le, 4, 2, surf_z0);
    if (rc == HX_OK && l == nl - 1) rc = hx_mesh_add_face(m, le, 5, 3, surf_z1);
  }
  if (rc == HX_OK && info) {
    memset(info, 0, sizeof *info);
    info->num_sites = L.nsites;
    info->num_rods = L.nrods;
    info->elems_per_layer = L.nquads;
    info->num_layers = nl;
    info->zmin = zl[0];
    info->zmax = zl[nl];
    info->periodic = o->periodic;
    info->min_half_gap = L.min_half_gap;
    info->min_half_gap_site[0] = L.min_gap_pair[0];
    info->min_half_gap_site[1] = L.min_gap_pair[1];
    info->duct_size[0] = L.duct_size[0];
    info->duct_size[1] = L.duct_size[1];
    info->bl_first = oo.bl_first;
  }
  hx_free(&rod_type);
  hx_free(&X2);
  hx_free(&ID2);
  hx_free(&zl);
  rods_layer_free(&L);
  if (rc != HX_OK) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}
