/* The 2D layer of the rod-bundle mesh: duct polygon, power cells, planar graph,
   edge subdivision, and the quads of every cell (design in hx_rods.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "hx_power2d.h"
#include "rods_impl.h"

#define MAXPOLY 64

void rods_layer_free(rods_layer *L) {
  hx_free(&L->sites);
  hx_free(&L->vx);
  hx_free(&L->vduct);
  hx_free(&L->ev);
  hx_free(&L->ecell);
  hx_free(&L->ek);
  hx_free(&L->enode);
  hx_free(&L->cstart);
  hx_free(&L->cedge);
  hx_free(&L->x2);
  hx_free(&L->quads);
  memset(L, 0, sizeof *L);
}

static double site_radius(const hx_rods_opts *o, const rods_site *S) { return S->type >= 0 ? o->radius[S->type] : 0; }

/* Power weight w_i = P r_i: the radical axis of two sites at distance P lies at
   (P + r_i - r_j) / 2 from site i, the middle of their gap. An empty site weighs as
   a rod of type 1, so its cell is the lattice cell. */
static double site_weight(const hx_rods_opts *o, const rods_site *S) {
  return o->pitch * (S->type >= 0 ? o->radius[S->type] : o->radius[0]);
}

/* Signed distance of point p from duct side s (positive inside). */
static double duct_dist(const rods_layer *L, int s, const double p[2]) {
  const double *a = L->duct[s], *b = L->duct[(s + 1) % L->nduct];
  double tx = b[0] - a[0], ty = b[1] - a[1], len = hypot(tx, ty);
  return ((p[0] - a[0]) * (-ty) + (p[1] - a[1]) * tx) / len; /* left of a->b is inside */
}

static const char *duct_side_name(const hx_rods_opts *o, int s) {
  static const char *box[4] = {"bottom (y min)", "right (x max)", "top (y max)", "left (x min)"};
  static const char *hex[6] = {"lower right", "right", "upper right", "upper left", "left", "lower left"};
  (void)hex;
  if (o->lattice == HX_RODS_SQUARE) return box[s];
  return hex[s];
}

static int make_duct(const hx_rods_opts *o, rods_layer *L) {
  double r0 = o->radius[0];
  double gap = o->duct_gap >= 0 ? o->duct_gap : 0.5 * o->pitch - r0;
  if (o->duct == HX_RODS_DUCT_NONE) gap = 0.5 * o->pitch - r0;
  if (o->lattice == HX_RODS_SQUARE) {
    HX_CHECK(o->duct != HX_RODS_DUCT_HEX, HX_ERR_INPUT, "flag --duct: a hex duct needs a hex lattice (--lattice hex)");
    double hx = 0.5 * (o->nx - 1) * o->pitch + r0 + gap, hy = 0.5 * (o->ny - 1) * o->pitch + r0 + gap;
    if (o->duct_size > 0 && o->duct != HX_RODS_DUCT_NONE) {
      hx = 0.5 * o->duct_size;
      hy = 0.5 * (o->duct_size_y > 0 ? o->duct_size_y : o->duct_size);
    }
    HX_CHECK(hx > 0 && hy > 0, HX_ERR_INPUT, "flag --duct-gap: the duct would have no extent (gap %g)", gap);
    double v[4][2] = {{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}};
    L->nduct = 4;
    memcpy(L->duct, v, sizeof v);
    L->duct_size[0] = 2 * hx;
    L->duct_size[1] = 2 * hy;
  } else {
    HX_CHECK(o->duct != HX_RODS_DUCT_BOX, HX_ERR_INPUT, "flag --duct: a box duct needs a square lattice (--lattice square)");
    double apo = o->rings * o->pitch * sqrt(3.0) / 2 + r0 + gap;
    if (o->duct_size > 0 && o->duct != HX_RODS_DUCT_NONE) apo = 0.5 * o->duct_size;
    HX_CHECK(apo > 0, HX_ERR_INPUT, "flag --duct-gap: the duct would have no extent (gap %g)", gap);
    double R = apo / cos(HX_PI / 6);
    L->nduct = 6;
    for (int s = 0; s < 6; s++) {
      L->duct[s][0] = R * cos(s * HX_PI / 3);
      L->duct[s][1] = R * sin(s * HX_PI / 3);
    }
    L->duct_size[0] = 2 * apo;
    L->duct_size[1] = 0;
  }
  return HX_OK;
}

/* Rods must not overlap or touch each other or the duct. */
static int check_rods(const hx_rods_opts *o, const rods_layer *L) {
  char n1[64], n2[64];
  for (int i = 0; i < L->nsites; i++) {
    const rods_site *A = &L->sites[i];
    if (A->type < 0) continue;
    double ra = site_radius(o, A);
    for (int j = i + 1; j < L->nsites; j++) {
      const rods_site *B = &L->sites[j];
      if (B->type < 0) continue;
      double rb = site_radius(o, B), d = hypot(A->c[0] - B->c[0], A->c[1] - B->c[1]);
      if (d <= ra + rb) {
        rods_site_name(o, L, i, n1, sizeof n1);
        rods_site_name(o, L, j, n2, sizeof n2);
        return HX_ERROR(HX_ERR_INPUT,
                        "rods overlap: the rod at %s (radius %g) and the rod at %s (radius %g) are %g apart, "
                        "%g less than the sum of their radii (--pitch %g)",
                        n1, ra, n2, rb, d, ra + rb - d, o->pitch);
      }
    }
    for (int s = 0; s < L->nduct; s++) {
      double d = duct_dist(L, s, A->c);
      if (d <= ra) {
        rods_site_name(o, L, i, n1, sizeof n1);
        return HX_ERROR(HX_ERR_INPUT,
                        "rod crosses the duct: the rod at %s (radius %g) %s %g beyond the %s duct wall "
                        "(centre %g from it); enlarge --duct-size/--duct-gap",
                        n1, ra, d < ra ? "reaches" : "touches it, reaching", ra - d, duct_side_name(o, s), d);
      }
    }
  }
  return HX_OK;
}

/* Clip polygon (local coordinates, labels of outgoing edges) by a x <= b, new edges labelled lab. */
static int clip(int n, double (*p)[2], int *lab, double a0, double a1, double b, int newlab) {
  double q[MAXPOLY][2];
  int ql[MAXPOLY], m = 0;
  for (int k = 0; k < n; k++) {
    const double *c = p[k], *d = p[(k + 1) % n];
    double fc = a0 * c[0] + a1 * c[1] - b, fd = a0 * d[0] + a1 * d[1] - b;
    if (m + 2 > MAXPOLY) return -1;
    if (fc <= 0) {
      q[m][0] = c[0], q[m][1] = c[1], ql[m++] = lab[k];
      if (fd > 0) {
        double t = fc / (fc - fd);
        q[m][0] = c[0] + t * (d[0] - c[0]), q[m][1] = c[1] + t * (d[1] - c[1]), ql[m++] = newlab;
      }
    } else if (fd <= 0) {
      double t = fc / (fc - fd);
      q[m][0] = c[0] + t * (d[0] - c[0]), q[m][1] = c[1] + t * (d[1] - c[1]), ql[m++] = lab[k];
    }
  }
  memcpy(p, q, sizeof(double) * 2 * (size_t)m);
  memcpy(lab, ql, sizeof(int) * (size_t)m);
  return m;
}

typedef struct {
  double x, y;
  int idx;
} vkey;
static int cmp_vkey(const void *a, const void *b) {
  const vkey *u = a, *v = b;
  return u->x < v->x ? -1 : u->x > v->x ? 1 : 0;
}
typedef struct {
  int a, b, cell, pos;
} ekey;
static int cmp_ekey(const void *x, const void *y) {
  const ekey *u = x, *v = y;
  if (u->a != v->a) return u->a < v->a ? -1 : 1;
  if (u->b != v->b) return u->b < v->b ? -1 : 1;
  return u->cell < v->cell ? -1 : u->cell > v->cell;
}
static int uf_find(int *par, int i) {
  while (par[i] != i) i = par[i] = par[par[i]];
  return i;
}

/* Angle subtended at centre c by segment (p, q). */
static double subtended(const double c[2], const double p[2], const double q[2]) {
  double ax = p[0] - c[0], ay = p[1] - c[1], bx = q[0] - c[0], by = q[1] - c[1];
  return fabs(atan2(ax * by - ay * bx, ax * bx + ay * by));
}

/* Parameter t on segment a->b hit by the ray from c at angle theta. */
static double ray_param(const double c[2], const double a[2], const double b[2], double th) {
  double dx = cos(th), dy = sin(th);
  double ax = a[0] - c[0], ay = a[1] - c[1], ex = b[0] - a[0], ey = b[1] - a[1];
  double den = ex * dy - ey * dx;
  if (fabs(den) < 1e-300) return 0.5;
  return -(ax * dy - ay * dx) / den;
}

/* Cell polygons as global vertex lists: cv[cstart[c] .. cstart[c+1]) counter-clockwise,
   with the label (neighbour site or -1 - duct side) of the edge leaving each vertex. */
typedef struct {
  int *cstart, *cv, *clab;
} cellpoly;

static int power_cells(const hx_rods_opts *o, rods_layer *L, cellpoly *P) {
  int n = L->nsites, np = 0, *pairs = NULL, rc = HX_OK;
  double *xy = NULL, *w = NULL;
  HX_CALL(hx_malloc((size_t)n * 2 * sizeof *xy, &xy));
  rc = hx_malloc((size_t)n * sizeof *w, &w);
  for (int i = 0; rc == HX_OK && i < n; i++) {
    xy[2 * i] = L->sites[i].c[0];
    xy[2 * i + 1] = L->sites[i].c[1];
    w[i] = site_weight(o, &L->sites[i]);
  }
  if (rc == HX_OK) rc = hx_power2d_pairs(n, xy, w, &np, &pairs);
  /* adjacency (CSR) */
  int *astart = NULL, *adj = NULL;
  if (rc == HX_OK) rc = hx_malloc((size_t)(n + 1) * sizeof *astart, &astart);
  if (rc == HX_OK) rc = hx_malloc((size_t)(2 * np + 1) * sizeof *adj, &adj);
  if (rc == HX_OK) {
    for (int k = 0; k < np; k++) astart[pairs[2 * k] + 1]++, astart[pairs[2 * k + 1] + 1]++;
    for (int i = 0; i < n; i++) astart[i + 1] += astart[i];
    int *fill = NULL;
    rc = hx_malloc((size_t)(n + 1) * sizeof *fill, &fill);
    if (rc == HX_OK) {
      memcpy(fill, astart, (size_t)(n + 1) * sizeof *fill);
      for (int k = 0; k < np; k++) {
        adj[fill[pairs[2 * k]]++] = pairs[2 * k + 1];
        adj[fill[pairs[2 * k + 1]]++] = pairs[2 * k];
      }
    }
    hx_free(&fill);
  }
  /* clip the duct by each neighbour's bisector, in coordinates local to the site */
  double *lx = NULL;
  int *llab = NULL, *lcount = NULL;
  if (rc == HX_OK) rc = hx_malloc((size_t)n * MAXPOLY * 2 * sizeof *lx, &lx);
  if (rc == HX_OK) rc = hx_malloc((size_t)n * MAXPOLY * sizeof *llab, &llab);
  if (rc == HX_OK) rc = hx_malloc((size_t)n * sizeof *lcount, &lcount);
  for (int i = 0; rc == HX_OK && i < n; i++) {
    double(*p)[2] = (double(*)[2])(lx + (size_t)i * MAXPOLY * 2);
    int *lab = llab + (size_t)i * MAXPOLY, m = L->nduct;
    const double *ci = L->sites[i].c;
    for (int s = 0; s < m; s++) {
      p[s][0] = L->duct[s][0] - ci[0];
      p[s][1] = L->duct[s][1] - ci[1];
      lab[s] = -1 - s;
    }
    for (int a = astart[i]; a < astart[i + 1] && m > 0; a++) {
      int j = adj[a];
      double d0 = L->sites[j].c[0] - ci[0], d1 = L->sites[j].c[1] - ci[1];
      /* |x|^2 - w_i <= |x - d|^2 - w_j  <=>  2 d.x <= |d|^2 + w_i - w_j */
      m = clip(m, p, lab, 2 * d0, 2 * d1, d0 * d0 + d1 * d1 + w[i] - w[j], j);
      if (m < 0) rc = HX_ERROR(HX_ERR_INTERNAL, "power cell of site %d has more than %d vertices", i, MAXPOLY);
    }
    if (rc == HX_OK && m < 3) {
      char nm[64];
      rods_site_name(o, L, i, nm, sizeof nm);
      rc = HX_ERROR(HX_ERR_INPUT, "the power cell of %s is empty: the site lies outside the duct or is hidden by its neighbours",
                    nm);
    }
    lcount[i] = m;
  }
  /* global vertices: merge cell vertices closer than tol */
  double tol = 1e-9 * o->pitch;
  int nall = 0;
  for (int i = 0; rc == HX_OK && i < n; i++) nall += lcount[i];
  vkey *vk = NULL;
  int *gid = NULL;
  if (rc == HX_OK) rc = hx_malloc((size_t)(nall + 1) * sizeof *vk, &vk);
  if (rc == HX_OK) rc = hx_malloc((size_t)(nall + 1) * sizeof *gid, &gid);
  if (rc == HX_OK) {
    int k = 0;
    for (int i = 0; i < n; i++)
      for (int v = 0; v < lcount[i]; v++, k++) {
        vk[k].x = lx[((size_t)i * MAXPOLY + v) * 2] + L->sites[i].c[0];
        vk[k].y = lx[((size_t)i * MAXPOLY + v) * 2 + 1] + L->sites[i].c[1];
        vk[k].idx = k;
      }
    qsort(vk, (size_t)nall, sizeof *vk, cmp_vkey);
    for (int k2 = 0; k2 < nall; k2++) gid[k2] = -1;
    int nv = 0;
    rc = hx_malloc((size_t)(nall + 1) * 2 * sizeof *L->vx, &L->vx);
    for (int a = 0; rc == HX_OK && a < nall; a++) {
      if (gid[vk[a].idx] >= 0) continue;
      gid[vk[a].idx] = nv;
      L->vx[2 * nv] = vk[a].x;
      L->vx[2 * nv + 1] = vk[a].y;
      for (int b = a + 1; b < nall && vk[b].x - vk[a].x <= tol; b++)
        if (gid[vk[b].idx] < 0 && fabs(vk[b].y - vk[a].y) <= tol) gid[vk[b].idx] = nv;
      nv++;
    }
    L->nverts = nv;
  }
  /* cell polygons over global vertices, consecutive duplicates removed */
  if (rc == HX_OK) rc = hx_malloc((size_t)(n + 1) * sizeof *P->cstart, &P->cstart);
  if (rc == HX_OK) rc = hx_malloc((size_t)(nall + 1) * sizeof *P->cv, &P->cv);
  if (rc == HX_OK) rc = hx_malloc((size_t)(nall + 1) * sizeof *P->clab, &P->clab);
  if (rc == HX_OK) {
    int k = 0, out = 0;
    for (int i = 0; i < n; i++) {
      P->cstart[i] = out;
      int m = lcount[i], first = out;
      for (int v = 0; v < m; v++) {
        int g = gid[k + v], lab = llab[(size_t)i * MAXPOLY + v];
        if (out > first && P->cv[out - 1] == g) {
          P->clab[out - 1] = lab; /* zero-length edge: keep the label of the next one */
          continue;
        }
        P->cv[out] = g;
        P->clab[out] = lab;
        out++;
      }
      if (out - first > 1 && P->cv[out - 1] == P->cv[first]) {
        P->clab[first] = P->clab[first]; /* wrap-around duplicate */
        out--;
      }
      k += m;
    }
    P->cstart[n] = out;
  }
  hx_free(&vk);
  hx_free(&gid);
  hx_free(&lx);
  hx_free(&llab);
  hx_free(&lcount);
  hx_free(&astart);
  hx_free(&adj);
  hx_free(&pairs);
  hx_free(&xy);
  hx_free(&w);
  return rc;
}

/* Vertices on the duct get a mask of their sides and are put exactly on them. */
static int mark_duct(rods_layer *L) {
  HX_CALL(hx_malloc((size_t)(L->nverts + 1) * sizeof *L->vduct, &L->vduct));
  double scale = fmax(L->duct_size[0], L->duct_size[1]);
  for (int v = 0; v < L->nverts; v++) {
    double *p = &L->vx[2 * v];
    for (int s = 0; s < L->nduct; s++)
      if (fabs(duct_dist(L, s, p)) <= 1e-9 * scale) L->vduct[v] |= 1 << s;
    int s1 = -1, s2 = -1;
    for (int s = 0; s < L->nduct; s++)
      if (L->vduct[v] >> s & 1) {
        if (s1 < 0) s1 = s;
        else s2 = s;
      }
    if (s2 >= 0) {
      /* on two sides: the duct corner they share */
      int c = (s1 + 1) % L->nduct == s2 ? s2 : s1;
      p[0] = L->duct[c][0];
      p[1] = L->duct[c][1];
    } else if (s1 >= 0) {
      const double *a = L->duct[s1], *b = L->duct[(s1 + 1) % L->nduct];
      double tx = b[0] - a[0], ty = b[1] - a[1], t = ((p[0] - a[0]) * tx + (p[1] - a[1]) * ty) / (tx * tx + ty * ty);
      p[0] = a[0] + t * tx;
      p[1] = a[1] + t * ty;
    }
  }
  return HX_OK;
}

/* Edges of the graph from the cell polygons; interior edges must be seen by two cells. */
static int build_edges(const hx_rods_opts *o, rods_layer *L, const cellpoly *P) {
  int n = L->nsites, tot = P->cstart[n];
  ekey *ek = NULL;
  HX_CALL(hx_malloc((size_t)(tot + 1) * sizeof *ek, &ek));
  for (int c = 0; c < n; c++) {
    int b = P->cstart[c], m = P->cstart[c + 1] - b;
    for (int k = 0; k < m; k++) {
      int u = P->cv[b + k], v = P->cv[b + (k + 1) % m];
      ek[b + k].a = u < v ? u : v;
      ek[b + k].b = u < v ? v : u;
      ek[b + k].cell = c;
      ek[b + k].pos = b + k;
    }
  }
  qsort(ek, (size_t)tot, sizeof *ek, cmp_ekey);
  int rc = HX_OK, ne = 0;
  rc = hx_malloc((size_t)(tot + 1) * 2 * sizeof *L->ev, &L->ev);
  if (rc == HX_OK) rc = hx_malloc((size_t)(tot + 1) * 2 * sizeof *L->ecell, &L->ecell);
  if (rc == HX_OK) rc = hx_malloc((size_t)(n + 1) * sizeof *L->cstart, &L->cstart);
  if (rc == HX_OK) rc = hx_malloc((size_t)(tot + 1) * sizeof *L->cedge, &L->cedge);
  for (int k = 0; rc == HX_OK && k < tot;) {
    int k2 = k + 1;
    while (k2 < tot && ek[k2].a == ek[k].a && ek[k2].b == ek[k].b) k2++;
    int cnt = k2 - k, pos = ek[k].pos, lab = P->clab[pos];
    char n1[64], n2[64];
    if (cnt > 2 || (cnt == 1 && lab >= 0) || (cnt == 2 && (P->clab[ek[k].pos] < 0 || P->clab[ek[k + 1].pos] < 0))) {
      rods_site_name(o, L, ek[k].cell, n1, sizeof n1);
      rods_site_name(o, L, cnt > 1 ? ek[k + 1].cell : lab, n2, sizeof n2);
      rc = HX_ERROR(HX_ERR_INTERNAL,
                    "power diagram: the edge between the cells of %s and %s is not shared consistently (%d cells)", n1, n2, cnt);
      break;
    }
    L->ev[2 * ne] = ek[k].a;
    L->ev[2 * ne + 1] = ek[k].b;
    for (int q = 0; q < 2; q++) {
      if (q < cnt) {
        int c = ek[k + q].cell, ps = ek[k + q].pos;
        int forward = P->cv[ps] == ek[k].a;
        L->ecell[2 * ne + (forward ? 0 : 1)] = c; /* forward: the cell is on the left of a->b */
        L->cedge[ps] = forward ? ne + 1 : -(ne + 1);
      } else {
        int ps = ek[k].pos, forward = P->cv[ps] == ek[k].a;
        L->ecell[2 * ne + (forward ? 1 : 0)] = lab; /* -1 - duct side */
      }
    }
    ne++;
    k = k2;
  }
  L->nedges = ne;
  if (rc == HX_OK) memcpy(L->cstart, P->cstart, (size_t)(n + 1) * sizeof *L->cstart);
  hx_free(&ek);
  return rc;
}

/* Collapse edges that subtend less than o->collapse sectors from every cell that has them. */
static int collapse_edges(const hx_rods_opts *o, rods_layer *L, cellpoly *P) {
  int n = L->nsites, *par = NULL;
  HX_CALL(hx_malloc((size_t)(L->nverts + 1) * sizeof *par, &par));
  for (int v = 0; v < L->nverts; v++) par[v] = v;
  double lim = o->collapse * 2 * HX_PI / o->sectors;
  int merged = 0;
  for (int e = 0; e < L->nedges; e++) {
    int u = uf_find(par, L->ev[2 * e]), v = uf_find(par, L->ev[2 * e + 1]);
    if (u == v) continue;
    double amax = 0;
    for (int q = 0; q < 2; q++) {
      int c = L->ecell[2 * e + q];
      if (c >= 0) amax = fmax(amax, subtended(L->sites[c].c, &L->vx[2 * L->ev[2 * e]], &L->vx[2 * L->ev[2 * e + 1]]));
    }
    if (amax >= lim) continue;
    int du = L->vduct[u], dv = L->vduct[v];
    double *pu = &L->vx[2 * u], *pv = &L->vx[2 * v];
    if (du && dv && du != dv) {
      if ((du & dv) == 0) continue; /* on different sides: leave it */
      if (__builtin_popcount(du) > 1) {
        par[v] = u;
        merged++;
        continue;
      } /* u is a corner */
      if (__builtin_popcount(dv) > 1) {
        par[u] = v;
        merged++;
        continue;
      }
      continue;
    }
    if (du && !dv) {
      par[v] = u;
      merged++;
      continue;
    }
    if (dv && !du) {
      par[u] = v;
      merged++;
      continue;
    }
    pu[0] = 0.5 * (pu[0] + pv[0]);
    pu[1] = 0.5 * (pu[1] + pv[1]);
    par[v] = u;
    merged++;
  }
  if (merged) {
    /* renumber the polygons (in place: the output never runs ahead of the input) and rebuild the edges */
    int out = 0;
    for (int c = 0; c < n; c++) {
      int b = P->cstart[c], e = P->cstart[c + 1], first = out;
      P->cstart[c] = out;
      for (int k = b; k < e; k++) {
        int g = uf_find(par, P->cv[k]), lab = P->clab[k];
        if (out > first && P->cv[out - 1] == g) {
          P->clab[out - 1] = lab;
          continue;
        }
        P->cv[out] = g;
        P->clab[out] = lab;
        out++;
      }
      if (out - first > 1 && P->cv[out - 1] == P->cv[first]) out--;
    }
    P->cstart[n] = out;
    hx_free(&L->ev);
    hx_free(&L->ecell);
    hx_free(&L->cstart);
    hx_free(&L->cedge);
  }
  hx_free(&par);
  if (merged) HX_CALL(build_edges(o, L, P));
  return HX_OK;
}

/* Segments per edge and the 2D nodes on the edges (vertex nodes are 0..nverts-1). */
static int subdivide(const hx_rods_opts *o, rods_layer *L, double **edge_t) {
  HX_CALL(hx_malloc((size_t)(L->nedges + 1) * sizeof *L->ek, &L->ek));
  HX_CALL(hx_malloc((size_t)(L->nedges + 1) * sizeof *L->enode, &L->enode));
  int next = L->nverts, tot = 0;
  for (int e = 0; e < L->nedges; e++) {
    const double *a = &L->vx[2 * L->ev[2 * e]], *b = &L->vx[2 * L->ev[2 * e + 1]];
    double sum = 0;
    int cnt = 0;
    for (int q = 0; q < 2; q++) {
      int c = L->ecell[2 * e + q];
      if (c >= 0) sum += subtended(L->sites[c].c, a, b), cnt++;
    }
    int k = (int)lround(o->sectors * (sum / cnt) / (2 * HX_PI));
    L->ek[e] = k < 1 ? 1 : k;
    L->enode[e] = next;
    next += L->ek[e] - 1;
    tot += L->ek[e] + 1;
  }
  L->nnodes = next;
  /* parameters: uniform in angle seen from each cell's centre (averaged over the two cells), mixed with uniform length */
  double *t = NULL;
  HX_CALL(hx_malloc((size_t)(tot + 1) * sizeof *t, &t));
  int off = 0;
  for (int e = 0; e < L->nedges; e++) {
    const double *a = &L->vx[2 * L->ev[2 * e]], *b = &L->vx[2 * L->ev[2 * e + 1]];
    int k = L->ek[e], cnt = 0;
    double *te = t + off;
    for (int m = 0; m <= k; m++) te[m] = 0;
    for (int q = 0; q < 2; q++) {
      int c = L->ecell[2 * e + q];
      if (c < 0) continue;
      const double *cc = L->sites[c].c;
      double ta = atan2(a[1] - cc[1], a[0] - cc[0]), tb = atan2(b[1] - cc[1], b[0] - cc[0]);
      double d = tb - ta;
      while (d > HX_PI) d -= 2 * HX_PI;
      while (d < -HX_PI) d += 2 * HX_PI;
      for (int m = 1; m < k; m++) te[m] += ray_param(cc, a, b, ta + d * m / k);
      cnt++;
    }
    /* 30% uniform in angle, 70% uniform in length: pure angle keeps the rod's sectors
       equal but squeezes the elements at cell corners (Nek5000 scaled Jacobian 0.46 on
       the PWR 17x17), pure length gives 2:1 sectors; this mix keeps every element of
       the PWR and hex presets above 0.5 */
    for (int m = 1; m < k; m++) te[m] = 0.3 * te[m] / cnt + 0.7 * (double)m / k;
    te[0] = 0;
    te[k] = 1;
    off += k + 1;
  }
  *edge_t = t;
  return HX_OK;
}

/* Rod ring radii along one ray: boundary layers at absolute distances from the rod,
   then gap layers geometric in the distance from the centre. rho[0] = r, rho[R] = rb. */
static void ring_radii(const hx_rods_opts *o, double r, double rb, double *rho) {
  double h = o->bl_first, s = 0;
  rho[0] = r;
  for (int a = 1; a <= o->bl_layers; a++) {
    s += h;
    h *= o->bl_growth;
    rho[a] = r + s;
  }
  double r0 = r + s;
  for (int a = 1; a <= o->gap_layers; a++) rho[o->bl_layers + a] = r0 * pow(rb / r0, (double)a / o->gap_layers);
}

static double bl_total(const hx_rods_opts *o) {
  double h = o->bl_first, s = 0;
  for (int a = 0; a < o->bl_layers; a++) s += h, h *= o->bl_growth;
  return s;
}

int rods_layer_build(const hx_rods_opts *o, rods_layer *L) {
  memset(L, 0, sizeof *L);
  int rc = rods_sites(o, L);
  if (rc == HX_OK) rc = make_duct(o, L);
  if (rc == HX_OK) rc = check_rods(o, L);
  cellpoly P = {0};
  double *edge_t = NULL;
  if (rc == HX_OK) rc = power_cells(o, L, &P);
  if (rc == HX_OK) rc = mark_duct(L);
  if (rc == HX_OK) rc = build_edges(o, L, &P);
  if (rc == HX_OK && o->collapse > 0) rc = collapse_edges(o, L, &P);
  if (rc == HX_OK) rc = subdivide(o, L, &edge_t);
  if (rc != HX_OK) goto fail;
  {
    int n = L->nsites, R = o->bl_layers + o->gap_layers;
    /* count nodes and quads */
    int nq = 0, nn = L->nnodes, maxM = 0;
    for (int c = 0; c < n; c++) {
      int M = 0;
      for (int k = L->cstart[c]; k < L->cstart[c + 1]; k++) M += L->ek[abs(L->cedge[k]) - 1];
      maxM = M > maxM ? M : maxM;
      if (L->sites[c].type >= 0) {
        nq += M * R;
        nn += M * R;
      } else {
        char nm[64];
        rods_site_name(o, L, c, nm, sizeof nm);
        if (M % 4) {
          rc = HX_ERROR(HX_ERR_INPUT,
                        "empty %s: its cell boundary has %d segments, not a multiple of 4, so it cannot be filled "
                        "with a structured patch; choose another --sectors",
                        nm, M);
          goto fail;
        }
        nq += (M / 4) * (M / 4);
        nn += (M / 4 - 1) * (M / 4 - 1);
      }
    }
    rc = hx_malloc((size_t)nn * 2 * sizeof *L->x2, &L->x2);
    if (rc == HX_OK) rc = hx_malloc((size_t)nq * sizeof *L->quads, &L->quads);
    int *bn = NULL, *bseg = NULL;
    double *rho = NULL;
    if (rc == HX_OK) rc = hx_malloc((size_t)(maxM + 1) * sizeof *bn, &bn);
    if (rc == HX_OK) rc = hx_malloc((size_t)(maxM + 1) * sizeof *bseg, &bseg);
    if (rc == HX_OK) rc = hx_malloc((size_t)(R + 1) * sizeof *rho, &rho);
    if (rc != HX_OK) goto fail;
    memcpy(L->x2, L->vx, (size_t)L->nverts * 2 * sizeof *L->x2);
    {
      int off = 0;
      for (int e = 0; e < L->nedges; e++) {
        const double *a = &L->vx[2 * L->ev[2 * e]], *b = &L->vx[2 * L->ev[2 * e + 1]];
        for (int m = 1; m < L->ek[e]; m++) {
          double t = edge_t[off + m];
          double *p = &L->x2[2 * (L->enode[e] + m - 1)];
          p[0] = a[0] + t * (b[0] - a[0]);
          p[1] = a[1] + t * (b[1] - a[1]);
        }
        off += L->ek[e] + 1;
      }
    }
    double blt = bl_total(o);
    L->min_half_gap = HUGE_VAL;
    L->min_gap_pair[0] = L->min_gap_pair[1] = -1;
    int next = L->nnodes, q = 0;
    for (int c = 0; c < n; c++) {
      /* boundary nodes counter-clockwise; bseg[j]: label of segment j -> j+1 (cell or -1 - duct side) */
      int M = 0;
      for (int k = L->cstart[c]; k < L->cstart[c + 1]; k++) {
        int se = L->cedge[k], e = abs(se) - 1, fwd = se > 0, ke = L->ek[e];
        int other = L->ecell[2 * e + (fwd ? 1 : 0)];
        for (int m = 0; m < ke; m++) {
          int mm = fwd ? m : ke - m; /* position along a->b */
          bn[M] = mm == 0 ? L->ev[2 * e] : mm == ke ? L->ev[2 * e + 1] : L->enode[e] + mm - 1;
          bseg[M] = other;
          M++;
        }
      }
      const rods_site *S = &L->sites[c];
      char n1[64], n2[160];
      if (S->type >= 0) {
        double r = o->radius[S->type];
        /* half-gaps: distance from the centre to each segment minus r */
        double hmin = HUGE_VAL;
        int jmin = 0;
        double Lmin = HUGE_VAL;
        int jL = 0;
        for (int j = 0; j < M; j++) {
          const double *p = &L->x2[2 * bn[j]], *p2 = &L->x2[2 * bn[(j + 1) % M]];
          double ex = p2[0] - p[0], ey = p2[1] - p[1];
          double t = ((S->c[0] - p[0]) * ex + (S->c[1] - p[1]) * ey) / (ex * ex + ey * ey);
          t = t < 0 ? 0 : t > 1 ? 1 : t;
          double d = hypot(p[0] + t * ex - S->c[0], p[1] + t * ey - S->c[1]) - r;
          if (d < hmin) hmin = d, jmin = j;
          double Lj = hypot(p[0] - S->c[0], p[1] - S->c[1]) - r;
          if (Lj < Lmin) Lmin = Lj, jL = j;
        }
        rods_site_name(o, L, c, n1, sizeof n1);
        if (hmin <= 0) {
          rods_site_name(o, L, bseg[jmin] >= 0 ? bseg[jmin] : -1, n2, sizeof n2);
          rc = HX_ERROR(HX_ERR_INPUT, "the rod at %s does not fit in its cell: it reaches %g past the mid-gap towards %s", n1,
                        -hmin, n2);
          goto fail_loop;
        }
        if (hmin < L->min_half_gap) {
          L->min_half_gap = hmin;
          L->min_gap_pair[0] = c;
          L->min_gap_pair[1] = bseg[jmin] >= 0 ? bseg[jmin] : -1;
        }
        if (o->bl_layers > 0 && blt > 0.5 * Lmin) {
          int nb = bseg[jL] >= 0 ? bseg[jL] : (bseg[(jL + M - 1) % M] >= 0 ? bseg[(jL + M - 1) % M] : bseg[jL]);
          char n3[80];
          rods_site_name(o, L, nb >= 0 ? nb : -1, n3, sizeof n3);
          snprintf(n2, sizeof n2, "%s%s", nb >= 0 ? (L->sites[nb].type >= 0 ? "the rod at " : "the empty ") : "", n3);
          rc = HX_ERROR(HX_ERR_INPUT,
                        "boundary layers do not fit in the gap between the rod at %s and %s: %d layer(s) "
                        "(--bl-first %g, --bl-growth %g) are %g thick, but at most %g (half of the %g from the rod "
                        "to the mid-gap) is available; short by %g",
                        n1, n2, o->bl_layers, o->bl_first, o->bl_growth, blt, 0.5 * Lmin, Lmin, blt - 0.5 * Lmin);
          goto fail_loop;
        }
        /* the first layer must be thicker than the arc's sagitta, or curving folds it */
        if (o->bl_layers > 0) {
          double amax = 0;
          for (int j = 0; j < M; j++) amax = fmax(amax, subtended(S->c, &L->x2[2 * bn[j]], &L->x2[2 * bn[(j + 1) % M]]));
          double sag = r * (1 - cos(0.5 * amax));
          if (o->bl_first < 1.5 * sag) {
            rc = HX_ERROR(HX_ERR_INPUT,
                          "--bl-first %g is too thin for the rod at %s: a sector of %.1f degrees bulges %g "
                          "(sagitta) and curved elements would fold; use --bl-first >= %g or more --sectors",
                          o->bl_first, n1, amax * 180 / HX_PI, sag, 1.5 * sag);
            goto fail_loop;
          }
        }
        /* nodes: ring a (0..R-1) node j at next + a M + j; ring R is the boundary */
        for (int j = 0; j < M; j++) {
          const double *b = &L->x2[2 * bn[j]];
          double ux = b[0] - S->c[0], uy = b[1] - S->c[1], rb = hypot(ux, uy);
          ux /= rb, uy /= rb;
          ring_radii(o, r, rb, rho);
          for (int a = 0; a < R; a++) {
            double *p = &L->x2[2 * (next + a * M + j)];
            p[0] = S->c[0] + rho[a] * ux;
            p[1] = S->c[1] + rho[a] * uy;
          }
        }
        for (int a = 0; a < R; a++)
          for (int j = 0; j < M; j++) {
            int j1 = (j + 1) % M;
            rods_quad *Q = &L->quads[q++];
            Q->v[0] = next + a * M + j;
            Q->v[2] = next + a * M + j1;
            Q->v[1] = a + 1 < R ? next + (a + 1) * M + j : bn[j];
            Q->v[3] = a + 1 < R ? next + (a + 1) * M + j1 : bn[j1];
            Q->cell = c;
            Q->bsurf[0] = a == 0 ? S->rod : -1;
            Q->bsurf[1] = a + 1 == R && bseg[j] < 0 ? L->nrods + (-1 - bseg[j]) : -1;
            Q->bsurf[2] = Q->bsurf[3] = -1;
            Q->arc = a == 0;
          }
        next += R * M;
      } else {
        /* empty site: q x q Coons patch; start where the four patch corners turn most like 90 degrees */
        int qq = M / 4, best = 0;
        double bestc = HUGE_VAL, worst_angle = 0;
        for (int s0 = 0; s0 < M; s0++) {
          double cost = 0, wa = 0;
          for (int k = 0; k < 4; k++) {
            int j = (s0 + k * qq) % M;
            const double *pm = &L->x2[2 * bn[(j + M - 1) % M]], *p0 = &L->x2[2 * bn[j]], *pp = &L->x2[2 * bn[(j + 1) % M]];
            double ang = HX_PI - subtended(p0, pm, pp) * 0 -
                         fabs(atan2((p0[0] - pm[0]) * (pp[1] - p0[1]) - (p0[1] - pm[1]) * (pp[0] - p0[0]),
                                    (p0[0] - pm[0]) * (pp[0] - p0[0]) + (p0[1] - pm[1]) * (pp[1] - p0[1])));
            cost += fabs(ang - HX_PI / 2);
            wa = fmax(wa, ang);
          }
          if (cost < bestc) bestc = cost, best = s0, worst_angle = wa;
        }
        if (worst_angle > 160 * HX_PI / 180) {
          rods_site_name(o, L, c, n1, sizeof n1);
          rc = HX_ERROR(HX_ERR_INPUT,
                        "empty %s: its cell has no four corners for a structured patch (flattest corner %.0f degrees)", n1,
                        worst_angle * 180 / HX_PI);
          goto fail_loop;
        }
        /* grid node (i, j) -> 2D node id */
#define GB(m) bn[(best + (m)) % M]
        int *g = NULL;
        rc = hx_malloc((size_t)(qq + 1) * (qq + 1) * sizeof *g, &g);
        if (rc != HX_OK) goto fail_loop;
        for (int i = 0; i <= qq; i++) {
          g[i] = GB(i);                                  /* bottom j = 0 */
          g[qq + (qq + 1) * i] = GB(qq + i);             /* right i = q */
          g[(qq - i) + (qq + 1) * qq] = GB(2 * qq + i);  /* top j = q, i descending */
          g[(qq + 1) * (qq - i)] = GB((3 * qq + i) % M); /* left i = 0, j descending */
        }
        for (int j = 1; j < qq; j++)
          for (int i = 1; i < qq; i++) {
            double u = (double)i / qq, v = (double)j / qq, *p = &L->x2[2 * next];
            const double *B = &L->x2[2 * g[i]], *T = &L->x2[2 * g[i + (qq + 1) * qq]];
            const double *Lf = &L->x2[2 * g[(qq + 1) * j]], *Rt = &L->x2[2 * g[qq + (qq + 1) * j]];
            const double *c00 = &L->x2[2 * g[0]], *c10 = &L->x2[2 * g[qq]];
            const double *c01 = &L->x2[2 * g[(qq + 1) * qq]], *c11 = &L->x2[2 * g[qq + (qq + 1) * qq]];
            for (int d = 0; d < 2; d++)
              p[d] = (1 - u) * Lf[d] + u * Rt[d] + (1 - v) * B[d] + v * T[d] -
                     ((1 - u) * (1 - v) * c00[d] + u * (1 - v) * c10[d] + (1 - u) * v * c01[d] + u * v * c11[d]);
            g[i + (qq + 1) * j] = next++;
          }
        for (int j = 0; j < qq; j++)
          for (int i = 0; i < qq; i++) {
            rods_quad *Q = &L->quads[q++];
            Q->v[0] = g[i + (qq + 1) * j];
            Q->v[1] = g[i + 1 + (qq + 1) * j];
            Q->v[2] = g[i + (qq + 1) * (j + 1)];
            Q->v[3] = g[i + 1 + (qq + 1) * (j + 1)];
            Q->cell = c;
            Q->arc = 0;
            for (int f = 0; f < 4; f++) Q->bsurf[f] = -1;
            int seg;
            if (i == 0 && bseg[seg = (best + 3 * qq + (qq - j - 1)) % M] < 0) Q->bsurf[0] = L->nrods - 1 - bseg[seg];
            if (i == qq - 1 && bseg[seg = (best + qq + j) % M] < 0) Q->bsurf[1] = L->nrods - 1 - bseg[seg];
            if (j == 0 && bseg[seg = (best + i) % M] < 0) Q->bsurf[2] = L->nrods - 1 - bseg[seg];
            if (j == qq - 1 && bseg[seg = (best + 2 * qq + (qq - i - 1)) % M] < 0) Q->bsurf[3] = L->nrods - 1 - bseg[seg];
          }
#undef GB
        hx_free(&g);
      }
    }
    L->nquads = q;
    L->nnodes = next;
  fail_loop:
    hx_free(&bn);
    hx_free(&bseg);
    hx_free(&rho);
  }
fail:
  hx_free(&edge_t);
  hx_free(&P.cstart);
  hx_free(&P.cv);
  hx_free(&P.clab);
  if (rc != HX_OK) rods_layer_free(L);
  return rc;
}
