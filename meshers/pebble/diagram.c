/* The pebble mesher, steps 2 and 3: the power diagram from Qhull's regular triangulation
   (facets as rings of tetrahedra about each edge with a real site), clipped by the container
   cylinder, its vertices snapped onto the walls and fitted to the power planes, short edges
   collapsed under guards (union-find), facets oriented. */
#include "pebble_impl.h"

/* ---- diagram -------------------------------------------------------------- */

typedef struct edgekey {
  int64_t key;
  int32_t tet;
} edgekey;

static int cmp_edgekey(const void *a, const void *b) {
  const edgekey *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->tet - y->tet;
}

static int find(int32_t *par, int32_t v) {
  while (par[v] != v) {
    par[v] = par[par[v]];
    v = par[v];
  }
  return v;
}

typedef struct pedge {
  double len;
  int32_t u, v;
} pedge;

static int cmp_pedge(const void *a, const void *b) {
  const pedge *x = a, *y = b;
  return x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
}

/* The clean-up's vertex clusters: a union-find over the diagram's vertices (the tetrahedra's
   power centres, then the container cylinder's crossings), each cluster's members linked from
   its root, and the vertex -> facet incidence that the plane fit and the guards walk. */
typedef struct clusters {
  hx_lid nv;                    /* diagram vertices */
  const double *C0;             /* [nv][3] their positions before the clean-up */
  double *Cc;                   /* owned: C0 when the cylinder clips the cells (clip_cylinder) */
  uint8_t *Mc;                  /* owned: [nv] the wall masks clip_cylinder gives, or NULL */
  int32_t *vf_start, *vf;       /* the facets of vertex t: vf[vf_start[t] .. vf_start[t + 1]) */
  double *V;                    /* [nv][3] the position of a cluster (at its root) */
  uint8_t *vmask;               /* [nv] the wall mask of a cluster (at its root) */
  uint8_t *gfl;                 /* [nv] guarded (pb_repair_guard), or-ed by the merges */
  int32_t *par;                 /* [nv] union-find parent */
  int32_t *next, *tail, *csize; /* [nv] the next member, a root's last member, a root's size */
  double eps0, tol;             /* coincident (1e-9 d) and short (--collapse x d) edge lengths */
} clusters;

static void clusters_free(clusters *cl) {
  hx_free(&cl->Cc), hx_free(&cl->Mc), hx_free(&cl->vf_start), hx_free(&cl->vf), hx_free(&cl->V), hx_free(&cl->vmask);
  hx_free(&cl->gfl), hx_free(&cl->par), hx_free(&cl->next), hx_free(&cl->tail), hx_free(&cl->csize);
}

/* distinct cyclic vertex list of facet f under the union-find (roots), into out;
   returns its length */
static int facet_roots(const builder *bd, int32_t *par, const facet *f, int32_t *out, int max) {
  int m = 0;
  for (int k = 0; k < f->nv; k++) {
    int32_t r = find(par, bd->fv[f->v0 + k]);
    if (m && out[m - 1] == r) continue;
    if (m == max) return max + 1;
    out[m++] = r;
  }
  while (m > 1 && out[m - 1] == out[0]) m--;
  return m;
}

double pb_pair_gap(const builder *bd, int32_t a, int32_t b) {
  return dist3(bd->sx + 3 * a, bd->sx + 3 * b) - bd->sr[a] - bd->sr[b];
}

/* the wall across which site b mirrors sphere a (b a's own mirror in exactly one wall), else -1 */
int pb_own_wall(const builder *bd, int32_t a, int32_t b) {
  if (bd->sparent[b] != a) return -1;
  int nb = 0, k = -1;
  for (int q = 0; q < bd->nw; q++)
    if (bd->smask[b] >> q & 1) nb++, k = q;
  return nb == 1 ? k : -1;
}

/* 1: wall w is an inlet / outlet plane that is extruded */
int pb_extruded(const hx_pebble_opts *o, const wall *w) {
  return (w->kind == 1 && o->inlet_len > 0) || (w->kind == 2 && o->outlet_len > 0);
}

/* A facet (a, b) needs a bridge: real pair or own mirror with a gap below the threshold */
int pb_facet_contact(const builder *bd, const facet *f, double *gap) {
  const hx_pebble_opts *o = bd->plan->o;
  int32_t a = f->a, b = f->b;
  double dmin = 2 * fmin(bd->sr[a], bd->sr[b]);
  if (bd->smask[b] == 0) {
    *gap = pb_pair_gap(bd, a, b);
    return *gap < o->bridge_gap * dmin;
  }
  int k = pb_own_wall(bd, a, b);
  if (k < 0) return 0;
  *gap = pb_wall_dist(&bd->w[k], bd->sx + 3 * a) - bd->sr[a];
  return *gap < o->wall_gap * dmin;
}

/* ---- plane fit of diagram vertices ------------------------------------------ */

/* the plane of a wall near x (the tangent plane for the cylinder): n . y = off */
static void wall_plane(const wall *w, const double x[3], double n[3], double *off) {
  if (w->cyl) {
    double rx = x[0] - w->p[0], ry = x[1] - w->p[1], rr = hypot(rx, ry);
    if (!(rr > 0)) rx = 1, ry = 0, rr = 1;
    n[0] = rx / rr, n[1] = ry / rr, n[2] = 0;
    *off = n[0] * (w->p[0] + w->R * n[0]) + n[1] * (w->p[1] + w->R * n[1]);
    return;
  }
  memcpy(n, w->n, 3 * sizeof(double));
  *off = dot3(w->n, w->p);
}

/* the plane a facet's polygon should lie in: the power plane of its two sites, or the
   wall for a facet with a ghost (the tessellation puts those on the wall) */
void pb_facet_plane(const builder *bd, const facet *F, const double x[3], double n[3], double *off) {
  if (F->wall >= 0) {
    wall_plane(&bd->w[F->wall], x, n, off);
    return;
  }
  const double *xa = bd->sx + 3 * F->a, *xb = bd->sx + 3 * F->b;
  double d[3], L2 = 0;
  for (int c = 0; c < 3; c++) d[c] = xb[c] - xa[c], L2 += d[c] * d[c];
  double L = sqrt(L2), t = (L2 + bd->sr[F->a] * bd->sr[F->a] - bd->sr[F->b] * bd->sr[F->b]) / (2 * L2);
  *off = 0;
  for (int c = 0; c < 3; c++) n[c] = d[c] / L, *off += n[c] * (xa[c] + t * d[c]);
}

/* Where a diagram vertex goes when it is snapped onto its walls or when a cluster of
   vertices is merged: the least-squares point of the planes of every facet incident to
   the cluster (each facet once), the walls of mask weighted 100, pulled towards x0 with
   weight 0.01. Moving along the wall normal (snap) or to the cluster's mean instead
   takes the vertex off the power planes of its facets; a small facet seen nearly edge
   on from a sphere centre then stops being star-shaped from it and its columns fold
   (issue 5). The caller snaps the result and checks how far it moved. A vertex on the
   cylinder keeps x0. */
static void plane_fit(const builder *bd, const clusters *cl, int32_t r1, int32_t r2, uint8_t mask, const double x0[3],
                      double out[3]) {
  const int32_t *vf_start = cl->vf_start, *vf = cl->vf, *next = cl->next;
  /* not on the container cylinder: its mirror sites' power planes are only tangent to
     it, the facets there are curved onto it, and fitting planes made facets there worse */
  memcpy(out, x0, 3 * sizeof(double));
  for (int k = 0; k < bd->nw; k++)
    if ((mask >> k & 1) && bd->w[k].cyl) return;
  double A[3][3] = {{0.01, 0, 0}, {0, 0.01, 0}, {0, 0, 0.01}}, rhs[3];
  for (int c = 0; c < 3; c++) rhs[c] = 0.01 * x0[c];
  int32_t seen[128];
  int nseen = 0;
  for (int side = 0; side < 2; side++)
    for (int32_t t = side ? r2 : r1; t >= 0; t = next ? next[t] : -1)
      for (int32_t k = vf_start[t]; k < vf_start[t + 1]; k++) {
        int32_t f = vf[k], dup = 0;
        for (int z = 0; z < nseen && !dup; z++) dup = seen[z] == f;
        if (dup) continue;
        if (nseen < 128) seen[nseen++] = f;
        double n[3], off;
        pb_facet_plane(bd, &bd->F[f], x0, n, &off);
        for (int i = 0; i < 3; i++) {
          rhs[i] += off * n[i];
          for (int j = 0; j < 3; j++) A[i][j] += n[i] * n[j];
        }
      }
  for (int k = 0; k < bd->nw; k++)
    if (mask >> k & 1) {
      double n[3], off;
      wall_plane(&bd->w[k], x0, n, &off);
      for (int i = 0; i < 3; i++) {
        rhs[i] += 100 * off * n[i];
        for (int j = 0; j < 3; j++) A[i][j] += 100 * n[i] * n[j];
      }
    }
  double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
               A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
  for (int c = 0; c < 3; c++) {
    double M[3][3];
    memcpy(M, A, sizeof M);
    for (int i = 0; i < 3; i++) M[i][c] = rhs[i];
    out[c] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
              M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) /
             det;
  }
  if (!(isfinite(out[0]) && isfinite(out[1]) && isfinite(out[2]))) memcpy(out, x0, 3 * sizeof(double));
}

/* room about the pierce point of facet F (line of centres through the power plane) if
   its polygon were the m points pts: the signed distance to the polygon's boundary,
   > 0 when the whole polygon is seen from there (pb_poly_inner_dist), in the power plane */
static double facet_room(const builder *bd, const facet *F, const double *const *pts, int m) {
  const double *xa = bd->sx + 3 * F->a, *xb = bd->sx + 3 * F->b;
  double d[3], u[3], p[3], L2 = 0;
  for (int c = 0; c < 3; c++) d[c] = xb[c] - xa[c], L2 += d[c] * d[c];
  double L = sqrt(L2), t = (L2 + bd->sr[F->a] * bd->sr[F->a] - bd->sr[F->b] * bd->sr[F->b]) / (2 * L2);
  for (int c = 0; c < 3; c++) u[c] = d[c] / L, p[c] = xa[c] + t * d[c];
  double e1[3], e2[3], tmp[3] = {1, 0, 0};
  if (fabs(u[0]) > 0.6) tmp[0] = 0, tmp[1] = 1;
  cross3(u, tmp, e1);
  double l1 = norm3(e1);
  for (int c = 0; c < 3; c++) e1[c] /= l1;
  cross3(u, e1, e2);
  double P2[2 * MAXPOLY], area = 0;
  for (int k = 0; k < m; k++) {
    double r[3];
    for (int c = 0; c < 3; c++) r[c] = pts[k][c] - p[c];
    P2[2 * k] = dot3(r, e1), P2[2 * k + 1] = dot3(r, e2);
  }
  for (int k = 0; k < m; k++) area += P2[2 * k] * P2[2 * ((k + 1) % m) + 1] - P2[2 * ((k + 1) % m)] * P2[2 * k + 1];
  if (area < 0)
    for (int i = 0, j = m - 1; i < j; i++, j--)
      for (int c = 0; c < 2; c++) {
        double x = P2[2 * i + c];
        P2[2 * i + c] = P2[2 * j + c], P2[2 * j + c] = x;
      }
  return pb_poly_inner_dist(P2, m, 0, 0);
}

/* ---- the container cylinder: clipping ---------------------------------------- */

static int cmp_chord(const void *pa, const void *pb) {
  const int32_t *x = pa, *y = pb;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* the input error for a sphere whose power cell does not fit the container (what: how) */
static int wall_gap_error(const builder *bd, int32_t sphere, const char *what) {
  char name[1200];
  return HX_ERROR(HX_ERR_INPUT,
                  "%s: its power cell %s: expected spheres near every part of the container wall (too sparse a bed)",
                  pb_sphere_name(bd, sphere, name, sizeof name), what);
}

/* record the wall chord (c1, c2) of facet F for each real sphere of F: (cell, c1, c2) */
static int push_chord(const builder *bd, const facet *F, int32_t c1, int32_t c2, int32_t **chord, hx_lid *nch, hx_lid *capch) {
  for (int side = 0; side < 2; side++) {
    int32_t cell = side ? F->b : F->a;
    if (bd->smask[cell]) continue;
    if (*nch + 1 > *capch) {
      *capch = 2 * *capch + 64;
      HX_CALL(hx_realloc((size_t)*capch * 3 * sizeof **chord, chord));
    }
    (*chord)[3 * *nch] = cell, (*chord)[3 * *nch + 1] = c1, (*chord)[3 * *nch + 2] = c2;
    (*nch)++;
  }
  return HX_OK;
}

/* The mirror sites of the container cylinder are radial reflections. Every point inside
   the cylinder is nearer (in power) to a real sphere than to any mirror, so the real
   cells cover the inside, but they reach beyond the wall: between spheres far apart
   along the wall the mirrors' tangent planes meet well outside it, and snapping those
   vertices back folds facets. So the cells are clipped by the cylinder instead:
   every facet with a cylinder mirror is dropped (it lies outside), every other facet is
   clipped (each diagram edge crossing the wall gets one vertex on it, shared by the
   facets of the edge), and the wall facet of a sphere is rebuilt as the loop of the
   chords its clipped facets leave on the wall, as the facet with its own mirror.
   Vertex ids: tetrahedra [0, T), crossings [T, T + nc); their initial positions and
   wall masks are returned in *pos and *msk. */
static int clip_cylinder(builder *bd, double dmean, hx_lid *nvert, double **pos, uint8_t **msk) {
  /* 240 lines, left whole: one pass whose crossing table, chord list and new facet list every
     facet shares, then the wall facets from the chords; not split in the reorganisation */
  hx_power3d *pd = bd->pd;
  hx_lid T = pd->num_tets;
  int cw = -1;
  for (int k = 0; k < bd->nw; k++)
    if (bd->w[k].cyl) cw = k;
  uint8_t cbit = (uint8_t)(1u << cw);
  const wall *W = &bd->w[cw];
  double eps = 1e-7 * dmean;
  uint8_t *tm;
  HX_CALL(hx_malloc((size_t)T * sizeof *tm, &tm));
  for (hx_lid t = 0; t < T; t++) {
    uint8_t m = 0;
    for (int k = 0; k < 4; k++) m |= bd->smask[pd->tet[4 * t + k]];
    tm[t] = m;
  }
  /* crossings keyed by the edge (open addressing) */
  hx_lid hcap = 64;
  while (hcap < 2 * bd->nfv) hcap *= 2;
  int64_t *hkey = NULL;
  int32_t *hval = NULL, *fv2 = NULL, *chord = NULL;
  double *cp = NULL;
  uint8_t *cm = NULL;
  hx_lid nc = 0, capc = 0, nfv2 = 0, capfv2 = bd->nfv + 16, nch = 0, capch = 0, nf2 = 0;
  int rc = hx_malloc((size_t)hcap * sizeof *hkey, &hkey);
  if (!rc) rc = hx_malloc((size_t)hcap * sizeof *hval, &hval);
  if (!rc) rc = hx_malloc((size_t)capfv2 * sizeof *fv2, &fv2);
  for (hx_lid i = 0; i < hcap && !rc; i++) hkey[i] = -1;
  for (hx_lid f = 0; f < bd->nf && !rc; f++) {
    facet F = bd->F[f];
    if (bd->smask[F.b] & cbit) continue; /* outside the wall */
    int32_t out[2 * MAXPOLY + 2], no = 0, cr[2 * MAXPOLY + 2], ncr = 0;
    /* vertices in (1), on the wall (0) or out (-1); events where the loop leaves the
       inside (the last point in or on) or enters it (the first point in or on) */
    int first_in = 0;
    for (int k = 0; k < F.nv && !rc; k++) {
      int32_t P = bd->fv[F.v0 + k], Q = bd->fv[F.v0 + (k + 1) % F.nv];
      double dP = pb_wall_dist(W, pd->centre + 3 * P), dQ = pb_wall_dist(W, pd->centre + 3 * Q);
      int sP = dP > eps ? 1 : dP >= -eps ? 0 : -1, sQ = dQ > eps ? 1 : dQ >= -eps ? 0 : -1;
      if (k == 0) first_in = sP >= 0;
      if (sP >= 0 && no < 2 * MAXPOLY) out[no++] = P;
      if (sP == 0 && sQ < 0) cr[ncr++] = P; /* leaves at P */
      if (sP < 0 && sQ == 0) cr[ncr++] = Q; /* enters at Q (output as the next P) */
      if (sP == 0 && sQ == 0) {
        /* both ends on the wall: along it (a generator; two spheres of the bottom layer at
           the same height give such edges) the edge is a chord of the wall facets itself */
        double mid[3];
        for (int c = 0; c < 3; c++) mid[c] = 0.5 * (pd->centre[3 * P + c] + pd->centre[3 * Q + c]);
        if (fabs(pb_wall_dist(W, mid)) <= eps && (rc = push_chord(bd, &F, P, Q, &chord, &nch, &capch))) break;
      }
      if (sP * sQ >= 0) continue;
      int64_t key = (int64_t)(P < Q ? P : Q) * T + (P < Q ? Q : P);
      hx_lid h = (hx_lid)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 20) & (hcap - 1);
      while (hkey[h] >= 0 && hkey[h] != key) h = (h + 1) & (hcap - 1);
      if (hkey[h] < 0) {
        /* the crossing: |x_xy - axis| = R on the segment from the inner end */
        int inP = sP > 0;
        const double *A = pd->centre + 3 * (inP ? P : Q), *B = pd->centre + 3 * (inP ? Q : P);
        double lo = 0, hi = 1, x[3];
        for (int it = 0; it < 60; it++) {
          double mid = 0.5 * (lo + hi);
          for (int c = 0; c < 3; c++) x[c] = A[c] + mid * (B[c] - A[c]);
          if (pb_wall_dist(W, x) >= 0) lo = mid;
          else hi = mid;
        }
        for (int c = 0; c < 3; c++) x[c] = A[c] + lo * (B[c] - A[c]);
        pb_wall_project(W, x);
        if (nc + 1 > capc) {
          capc = 2 * capc + 64;
          if ((rc = hx_realloc((size_t)capc * 3 * sizeof *cp, &cp)) || (rc = hx_realloc((size_t)capc * sizeof *cm, &cm))) break;
        }
        memcpy(cp + 3 * nc, x, sizeof x);
        cm[nc] = (uint8_t)(cbit | (tm[P] & tm[Q] & ~cbit));
        hkey[h] = key, hval[h] = (int32_t)(T + nc);
        nc++;
        if (2 * (nc + 1) > hcap) {
          rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: crossing table full");
          break;
        }
      }
      if (no < 2 * MAXPOLY) out[no++] = hval[h];
      cr[ncr++] = hval[h];
    }
    if (rc) break;
    if (no > MAXPOLY) {
      rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: a facet has more than %d vertices", MAXPOLY);
      break;
    }
    if (ncr % 2) {
      rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: a facet crosses the container wall an odd number of times");
      break;
    }
    /* chords: the outside runs, between the leaving and the entering crossing */
    if (ncr) {
      for (int z = 0; z < ncr; z += 2) {
        int32_t c1 = first_in ? cr[z] : cr[(z + ncr - 1) % ncr], c2 = first_in ? cr[z + 1] : cr[z];
        if (c1 != c2 && (rc = push_chord(bd, &F, c1, c2, &chord, &nch, &capch))) break;
      }
    }
    if (rc || no < 3) continue;
    if (nfv2 + no > capfv2) {
      capfv2 = 2 * (nfv2 + no);
      if ((rc = hx_realloc((size_t)capfv2 * sizeof *fv2, &fv2))) break;
    }
    F.v0 = (int32_t)nfv2;
    F.nv = no;
    memcpy(fv2 + nfv2, out, (size_t)no * sizeof *out);
    nfv2 += no;
    bd->F[nf2++] = F;
  }
  hx_free(&hkey), hx_free(&hval);
  /* wall facets: the chord loop of every cell that reaches the wall, kept as the facet
     with the cell's own cylinder mirror (mirror[a]) */
  int32_t *mirror = NULL;
  if (!rc) rc = hx_malloc((size_t)bd->nreal * sizeof *mirror, &mirror);
  if (!rc) {
    for (hx_lid s2 = 0; s2 < bd->nreal; s2++) mirror[s2] = -1;
    for (hx_lid s2 = bd->nreal; s2 < bd->ns; s2++)
      if (bd->smask[s2] == cbit) mirror[bd->sparent[s2]] = (int32_t)s2;
    if (nch) qsort(chord, (size_t)nch, 3 * sizeof *chord, cmp_chord); /* chord is NULL when there are none */
  }
  for (hx_lid i = 0; i < nch && !rc;) {
    hx_lid j = i;
    while (j < nch && chord[3 * j] == chord[3 * i]) j++;
    int32_t a = chord[3 * i], loop[MAXPOLY + 1];
    int n = (int)(j - i), nl = 0;
    /* coincident vertices (cospherical sites give several tetrahedra one power centre;
       the clean-up merges them later) are one point of the loop: chords between them
       are dropped and their ends renamed to one of them */
    for (int z = 0; z < n; z++) {
      int32_t c1 = chord[3 * (i + z) + 1], c2 = chord[3 * (i + z) + 2];
      const double *x1 = c1 < T ? pd->centre + 3 * c1 : cp + 3 * (c1 - T);
      const double *x2 = c2 < T ? pd->centre + 3 * c2 : cp + 3 * (c2 - T);
      if (c1 == c2 || dist3(x1, x2) > 1e-9 * dmean) continue;
      for (int y = 0; y < n; y++)
        for (int e = 1; e <= 2; e++)
          if (chord[3 * (i + y) + e] == c2) chord[3 * (i + y) + e] = c1;
    }
    {
      int m = 0;
      for (int z = 0; z < n; z++) {
        int32_t c1 = chord[3 * (i + z) + 1], c2 = chord[3 * (i + z) + 2], dup = c1 == c2;
        for (int y = 0; y < m && !dup; y++) {
          int32_t d1 = chord[3 * (i + y) + 1], d2 = chord[3 * (i + y) + 2];
          dup = (d1 == c1 && d2 == c2) || (d1 == c2 && d2 == c1);
        }
        if (dup) continue;
        chord[3 * (i + m) + 1] = c1, chord[3 * (i + m) + 2] = c2;
        m++;
      }
      n = m;
    }
    if (n > MAXPOLY) {
      rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: the wall facet of sphere %d has more than %d vertices", (int)bd->sparent[a] + 1,
                    MAXPOLY);
      break;
    }
    uint8_t used[MAXPOLY] = {0};
    int32_t cur = chord[3 * i + 2];
    loop[nl++] = chord[3 * i + 1];
    used[0] = 1;
    while (cur != loop[0] && nl <= n) {
      loop[nl++] = cur;
      int nx = -1;
      for (int z = 0; z < n; z++) {
        if (used[z]) continue;
        if (chord[3 * (i + z) + 1] == cur) nx = z, cur = chord[3 * (i + z) + 2];
        else if (chord[3 * (i + z) + 2] == cur) nx = z, cur = chord[3 * (i + z) + 1];
        if (nx >= 0) break;
      }
      if (nx < 0) break;
      used[nx] = 1;
    }
    if (cur != loop[0] || nl != n) {
      rc = wall_gap_error(bd, a,
                          "meets the container wall in more than one piece (a sphere far from the wall between "
                          "others near it)");
      break;
    }
    if (mirror[a] < 0) { /* farther than 3 diameters from the wall, yet its cell reaches it */
      rc = wall_gap_error(bd, a, "reaches the container wall from more than 3 diameters away");
      break;
    }
    if (nfv2 + nl > capfv2) {
      capfv2 = 2 * (nfv2 + nl);
      if ((rc = hx_realloc((size_t)capfv2 * sizeof *fv2, &fv2))) break;
    }
    if ((rc = pb_grow(&bd->F, &bd->capf, nf2 + 1, sizeof *bd->F))) break;
    facet *F = &bd->F[nf2++];
    F->a = a, F->b = mirror[a], F->v0 = (int32_t)nfv2, F->nv = nl, F->wall = cw, F->bridge = -1, F->centre = -1,
    F->q0 = F->nq = 0;
    memcpy(fv2 + nfv2, loop, (size_t)nl * sizeof *loop);
    nfv2 += nl;
    i = j;
  }
  hx_free(&chord), hx_free(&mirror);
  /* a plane with no facet left lies inside one cell, whose wall facet is then a band round
     the whole cylinder (the top of a thin column with one sphere above the rest), or no
     diagram vertex is inside the container near it (a bed of a few spheres) */
  for (int k = 0; k < bd->nw && !rc; k++) {
    if (bd->w[k].cyl) continue;
    hx_lid n = 0;
    for (hx_lid f = 0; f < nf2; f++) n += bd->F[f].wall == k;
    if (n) continue;
    double z = bd->w[k].p[2], centre[3] = {W->p[0], W->p[1], z}, pmin; /* the planes are normal to the axis, z */
    char name[1200];
    rc = HX_ERROR(HX_ERR_INPUT,
                  "%s: no facet meets the %s plane z = %g inside the container: the sphere's power cell covers it "
                  "whole, or too few spheres span the container: expected spheres near every part of the wall (too "
                  "sparse a bed)",
                  pb_sphere_name(bd, pb_power_owner(bd, centre, &pmin), name, sizeof name), bd->w[k].kind == 1 ? "bottom" : "top",
                  z);
  }
  if (rc) {
    hx_free(&fv2), hx_free(&cp), hx_free(&cm), hx_free(&tm);
    return rc;
  }
  hx_free(&bd->fv);
  bd->fv = fv2, bd->nfv = nfv2, bd->capfv = capfv2, bd->nf = nf2;
  /* initial positions and masks of every vertex */
  hx_lid NV = T + nc;
  double *P0 = NULL;
  uint8_t *M0 = NULL;
  rc = hx_malloc((size_t)(NV + 1) * 3 * sizeof *P0, &P0);
  if (!rc) rc = hx_malloc((size_t)(NV + 1) * sizeof *M0, &M0);
  if (rc) {
    hx_free(&P0), hx_free(&M0), hx_free(&cp), hx_free(&cm), hx_free(&tm);
    return rc;
  }
  memcpy(P0, pd->centre, (size_t)T * 3 * sizeof *P0);
  if (nc) memcpy(P0 + 3 * T, cp, (size_t)nc * 3 * sizeof *P0);
  for (hx_lid t = 0; t < T; t++) /* on the cylinder only where the centre is */
    M0[t] = fabs(pb_wall_dist(W, pd->centre + 3 * t)) <= eps ? tm[t] | cbit : tm[t] & (uint8_t)~cbit;
  for (hx_lid k = 0; k < nc; k++) M0[T + k] = cm[k];
  hx_free(&cp), hx_free(&cm), hx_free(&tm);
  *nvert = NV, *pos = P0, *msk = M0;
  return HX_OK;
}

/* a contact facet, or one between two real spheres closer than --ring-gap x d (a near contact):
   the collapses keep these */
static int contact_or_near(const builder *bd, const facet *F) {
  double gap;
  if (pb_facet_contact(bd, F, &gap)) return 1;
  return !bd->smask[F->b] && pb_pair_gap(bd, F->a, F->b) < bd->plan->o->ring_gap * 2 * fmin(bd->sr[F->a], bd->sr[F->b]);
}

/* may the diagram vertex clusters ru and rv merge? Not if a facet of ru that also has rv
   would be pinched (they are not neighbours on it) or would vanish (3 vertices left) while
   it is a contact or near-contact facet */
static int collapse_keeps_facets(const builder *bd, const clusters *cl, int32_t ru, int32_t rv) {
  int32_t *par = cl->par;
  const int32_t *next = cl->next, *vf_start = cl->vf_start, *vf = cl->vf;
  int ok = 1;
  for (int32_t t = ru; t >= 0 && ok; t = next[t])
    for (int32_t k = vf_start[t]; k < vf_start[t + 1] && ok; k++) {
      const facet *F = &bd->F[vf[k]];
      int32_t poly[MAXPOLY + 1];
      int m2 = facet_roots(bd, par, F, poly, MAXPOLY);
      int iu = -1, iv = -1;
      for (int z = 0; z < m2 && z <= MAXPOLY; z++) {
        if (poly[z] == ru) iu = z;
        if (poly[z] == rv) iv = z;
      }
      if (iu < 0 || iv < 0) continue;
      int adj = (iu + 1) % m2 == iv || (iv + 1) % m2 == iu;
      if (!adj) ok = 0; /* would pinch the facet */
      else if (m2 <= 3) {
        /* the facet would vanish: never a contact or near-contact facet */
        if (contact_or_near(bd, F)) ok = 0;
      }
    }
  return ok;
}

/* contact facets of either cluster: the merge of ru and rv at P must not take their
   pierce point (the bridge axis) out of view of the polygon, nor close to its boundary,
   when it was clear before (the vertices of a cluster drift with every merge); with
   plane_guard, nor a vertex far off a contact's plane (below) */
static int collapse_keeps_room(const builder *bd, const clusters *cl, int32_t ru, int32_t rv, const double P[3],
                               int plane_guard) {
  int32_t *par = cl->par;
  const int32_t *next = cl->next, *vf_start = cl->vf_start, *vf = cl->vf;
  const double *V = cl->V;
  const hx_pebble_opts *o = bd->plan->o;
  for (int side = 0; side < 2; side++)
    for (int32_t t = side ? rv : ru; t >= 0; t = next[t])
      for (int32_t k = vf_start[t]; k < vf_start[t + 1]; k++) {
        const facet *F = &bd->F[vf[k]];
        double gap;
        if (!pb_facet_contact(bd, F, &gap)) continue;
        int32_t poly[MAXPOLY + 1];
        int m2 = facet_roots(bd, par, F, poly, MAXPOLY);
        if (m2 < 3 || m2 > MAXPOLY) continue;
        const double *before[MAXPOLY], *after[MAXPOLY];
        int na = 0;
        for (int z = 0; z < m2; z++) {
          before[z] = V + 3 * poly[z];
          const double *x = poly[z] == ru || poly[z] == rv ? P : V + 3 * poly[z];
          if (!na || after[na - 1] != x) after[na++] = x;
        }
        while (na > 1 && after[na - 1] == after[0]) na--;
        if (na < 3) continue; /* the vanishing guard decides */
        double dmin = 2 * fmin(bd->sr[F->a], bd->sr[F->b]), room_min = 1.5 * o->bridge_frac * dmin;
        double r1 = facet_room(bd, F, after, na);
        if (r1 < room_min && r1 < facet_room(bd, F, before, m2)) return 0;
        /* nor take a vertex off the contact's power plane by more than 5 % of d: its rings
           follow the polygon, and near a contact the spheres are within rho^2 / 2R of
           the plane (a 10^5 cylinder bed had vertices 0.1 d off a touching pair's plane and
           a ring node inside a sphere) */
        if (plane_guard && !bd->smask[F->b]) {
          double n[3], off, worst = 0;
          pb_facet_plane(bd, F, P, n, &off);
          for (int z = 0; z < m2; z++) worst = fmax(worst, fabs(dot3(n, before[z]) - off));
          double dp = fabs(dot3(n, P) - off);
          if (dp > 0.05 * dmin && dp > worst) return 0;
        }
      }
  return 1;
}

/* the worst corner scaled Jacobian of the linear columns of the plain fan of the
   triangle pts (about its centroid, split at the edge midpoints, those snapped onto the
   walls of both ends; msk: the vertices' wall masks) swept radially to either sphere of
   F; one column from facet to sphere (the layers and the sphere's curvature between
   the corners, which the tessellation's own check sees, lower it further) */
static double tri_fan_q(const builder *bd, const facet *F, const double *const pts[3], const uint8_t msk[3]) {
  static const int q2l[4] = {0, 1, 3, 2}; /* quad corner -> hex corner */
  double T[3][3], Mid[3][3], O[3] = {0, 0, 0}, nrm[3], d[3], e1[3], e2[3];
  uint8_t M[3];
  for (int v = 0; v < 3; v++) {
    M[v] = msk[v];
    for (int c = 0; c < 3; c++) T[v][c] = pts[v][c], O[c] += pts[v][c] / 3;
  }
  for (int c = 0; c < 3; c++) e1[c] = T[1][c] - T[0][c], e2[c] = T[2][c] - T[0][c];
  cross3(e1, e2, nrm);
  for (int c = 0; c < 3; c++) d[c] = bd->sx[3 * F->b + c] - bd->sx[3 * F->a + c];
  if (dot3(nrm, d) < 0) { /* CCW about a -> b */
    for (int c = 0; c < 3; c++) {
      double x = T[1][c];
      T[1][c] = T[2][c], T[2][c] = x;
    }
    uint8_t t = M[1];
    M[1] = M[2], M[2] = t;
  }
  /* midpoints on the walls of both ends (as the tessellation puts a wall edge's) */
  for (int v = 0; v < 3; v++) {
    for (int c = 0; c < 3; c++) Mid[v][c] = 0.5 * (T[v][c] + T[(v + 1) % 3][c]);
    pb_snap(bd, M[v] & M[(v + 1) % 3], Mid[v]);
  }
  int32_t cn[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  double worst = 1;
  for (int side = 0; side < 2; side++) {
    int32_t s = side ? F->b : F->a;
    const double *c0 = bd->sx + 3 * s;
    for (int k = 0; k < 3; k++) {
      const double *q[4] = {O, Mid[(k + 2) % 3], T[k], Mid[k]};
      double P[24];
      for (int v = 0; v < 4; v++) {
        const double *x = q[side ? 3 - v : v];
        double r[3], l;
        for (int c = 0; c < 3; c++) r[c] = x[c] - c0[c];
        l = norm3(r);
        for (int c = 0; c < 3; c++) {
          P[3 * q2l[v] + c] = c0[c] + bd->sr[s] * r[c] / l;
          P[3 * (q2l[v] + 4) + c] = x[c];
        }
      }
      double sj = pb_min_corner_sj(P, cn);
      if (!(sj > -1)) sj = -1;
      worst = fmin(worst, sj);
    }
  }
  return worst;
}

/* is P outside every sphere of the facets of clusters ru and rv by 5 % of its radius?
   (the negligible-facet collapse moves vertices by up to --collapse d) */
static int collapse_clears_spheres(const builder *bd, const clusters *cl, int32_t ru, int32_t rv, const double P[3]) {
  const int32_t *next = cl->next, *vf_start = cl->vf_start, *vf = cl->vf;
  for (int side = 0; side < 2; side++)
    for (int32_t t = side ? rv : ru; t >= 0; t = next[t])
      for (int32_t k = vf_start[t]; k < vf_start[t + 1]; k++) {
        const facet *F = &bd->F[vf[k]];
        for (int w = 0; w < 2; w++) {
          int32_t c = w ? F->b : F->a;
          if (bd->smask[c]) continue;
          if (dist3(P, bd->sx + 3 * c) < 1.05 * bd->sr[c]) return 0;
        }
      }
  return 1;
}

/* union of the vertex clusters: rv into ru, the merged vertex at P with wall mask m */
static void cluster_union(clusters *cl, int32_t ru, int32_t rv, const double P[3], uint8_t m) {
  cl->par[rv] = ru;
  memcpy(cl->V + 3 * ru, P, 3 * sizeof(double));
  cl->vmask[ru] = m;
  cl->csize[ru] += cl->csize[rv];
  cl->next[cl->tail[ru]] = rv;
  cl->tail[ru] = cl->tail[rv];
}

/* the merge of a negligible or far wall triangle's edge (ru, rv) at P: under the pinch /
   vanish / contact-room guards of the main pass, 5 % clear of the spheres, and of no guarded
   vertex; 1 if merged */
static int guarded_merge(const builder *bd, clusters *cl, int32_t ru, int32_t rv, const double P[3], uint8_t m) {
  if ((cl->gfl[ru] | cl->gfl[rv]) || !collapse_keeps_facets(bd, cl, ru, rv) || !collapse_keeps_room(bd, cl, ru, rv, P, 0) ||
      !collapse_clears_spheres(bd, cl, ru, rv, P))
    return 0;
  cl->gfl[ru] |= cl->gfl[rv];
  cluster_union(cl, ru, rv, P, m);
  return 1;
}

static int orient_facets(builder *bd);

/* steps 1 and 2 of the diagram: the facets, one for each edge of the regular triangulation
   with a real site, as the ring of tetrahedra about it (their power centres the polygon) */
static int diagram_facets(builder *bd) {
  hx_power3d *pd = bd->pd;
  hx_lid T = pd->num_tets;
  /* 1. edges with a real site */
  edgekey *ek;
  hx_lid nek = 0;
  HX_CALL(hx_malloc((size_t)T * 6 * sizeof *ek, &ek));
  static const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (hx_lid t = 0; t < T; t++) {
    const int32_t *s = pd->tet + 4 * t;
    for (int p = 0; p < 6; p++) {
      int32_t a = s[pairs[p][0]], b = s[pairs[p][1]];
      if (a > b) {
        int32_t tmp = a;
        a = b, b = tmp;
      }
      if (bd->smask[a] && bd->smask[b]) continue; /* both ghosts */
      if (bd->smask[a]) continue;                 /* a < b and reals come first: not reached */
      ek[nek].key = (int64_t)a * bd->ns + b;
      ek[nek].tet = (int32_t)t;
      nek++;
    }
  }
  qsort(ek, (size_t)nek, sizeof *ek, cmp_edgekey);
  /* 2. facets: ring walks */
  int rc = HX_OK;
  for (hx_lid g = 0; g < nek && !rc;) {
    hx_lid h = g;
    while (h < nek && ek[h].key == ek[g].key) h++;
    int32_t a = (int32_t)(ek[g].key / bd->ns), b = (int32_t)(ek[g].key % bd->ns);
    hx_lid cnt = h - g;
    if ((rc = pb_grow(&bd->fv, &bd->capfv, bd->nfv + cnt, sizeof *bd->fv))) break;
    if ((rc = pb_grow(&bd->F, &bd->capf, bd->nf + 1, sizeof *bd->F))) break;
    int32_t t0 = ek[g].tet, t = t0;
    /* the two other sites of t0 */
    int32_t other[2], no = 0;
    for (int k = 0; k < 4; k++)
      if (pd->tet[4 * t + k] != a && pd->tet[4 * t + k] != b) other[no++] = pd->tet[4 * t + k];
    int32_t shared = other[1]; /* we leave t0 through the face (a, b, other[1]) */
    hx_lid steps = 0;
    facet *f = &bd->F[bd->nf];
    f->a = a;
    f->b = b;
    f->v0 = bd->nfv;
    f->wall = -1;
    f->bridge = -1;
    f->centre = -1;
    int32_t leave_opp = other[0];
    while (1) {
      bd->fv[bd->nfv++] = t;
      steps++;
      int lo = -1;
      for (int k = 0; k < 4; k++)
        if (pd->tet[4 * t + k] == leave_opp) lo = k;
      int32_t nt = lo >= 0 ? pd->nbr[4 * t + lo] : -1;
      if (nt < 0) {
        rc = wall_gap_error(bd, bd->sparent[a],
                            "is unbounded: no container wall within 3 diameters beyond the bed there (the container "
                            "is far from the bed)");
        break;
      }
      if (nt == t0) break;
      if (steps > cnt) {
        rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: inconsistent ring of tetrahedra around sites %d-%d", (int)a, (int)b);
        break;
      }
      /* in nt: sites a, b, shared, and a new one */
      int32_t nw = -1;
      for (int k = 0; k < 4; k++) {
        int32_t s = pd->tet[4 * nt + k];
        if (s != a && s != b && s != shared) nw = s;
      }
      leave_opp = shared;
      shared = nw;
      t = nt;
    }
    if (rc) break;
    if (steps != cnt) {
      rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: ring around sites %d-%d has %d of %d tetrahedra", (int)a, (int)b, (int)steps,
                    (int)cnt);
      break;
    }
    f->nv = (int32_t)steps;
    if (bd->smask[b]) {
      int k = 0;
      while (!(bd->smask[b] >> k & 1)) k++;
      f->wall = k;
    }
    bd->nf++;
    g = h;
  }
  hx_free(&ek);
  return rc;
}

/* the clean-up's clusters of the diagram's vertices (the cylinder's crossings added by
   clip_cylinder), one a vertex; on failure the caller frees cl */
static int clusters_init(builder *bd, clusters *cl) {
  /* vertices: the tetrahedra's power centres, plus the wall crossings of a cylinder */
  hx_lid NV = bd->pd->num_tets;
  cl->C0 = bd->pd->centre;
  for (int k = 0; k < bd->nw; k++)
    if (bd->w[k].cyl) {
      HX_CALL(clip_cylinder(bd, bd->plan->dmean, &NV, &cl->Cc, &cl->Mc));
      cl->C0 = cl->Cc;
    }
  cl->nv = NV;
  /* vertex -> facets incidence, for the plane fit and the collapse guards */
  HX_CALL(hx_malloc((size_t)(NV + 1) * sizeof *cl->vf_start, &cl->vf_start));
  HX_CALL(hx_malloc((size_t)bd->nfv * sizeof *cl->vf, &cl->vf));
  int32_t *vf_start = cl->vf_start, *vf = cl->vf;
  for (hx_lid f = 0; f < bd->nf; f++)
    for (int k = 0; k < bd->F[f].nv; k++) vf_start[bd->fv[bd->F[f].v0 + k] + 1]++;
  for (hx_lid t = 0; t < NV; t++) vf_start[t + 1] += vf_start[t];
  {
    int32_t *fill;
    HX_CALL(hx_malloc((size_t)NV * sizeof *fill, &fill));
    for (hx_lid f = 0; f < bd->nf; f++)
      for (int k = 0; k < bd->F[f].nv; k++) {
        int32_t t = bd->fv[bd->F[f].v0 + k];
        vf[vf_start[t] + fill[t]++] = (int32_t)f;
      }
    hx_free(&fill);
  }
  /* guarded vertices (pb_repair_guard; flags per cluster root, or-ed by the merges) take
     part in no collapse of an edge of non-zero length */
  HX_CALL(hx_malloc((size_t)NV * sizeof *cl->gfl, &cl->gfl));
  if (bd->vguard && bd->nvdiag == NV) memcpy(cl->gfl, bd->vguard, (size_t)NV);
  /* one cluster a vertex, at its position before the clean-up */
  HX_CALL(hx_malloc((size_t)NV * 3 * sizeof *cl->V, &cl->V));
  HX_CALL(hx_malloc((size_t)NV * sizeof *cl->vmask, &cl->vmask));
  HX_CALL(hx_malloc((size_t)NV * sizeof *cl->par, &cl->par));
  HX_CALL(hx_malloc((size_t)NV * sizeof *cl->next, &cl->next));
  HX_CALL(hx_malloc((size_t)NV * sizeof *cl->csize, &cl->csize));
  HX_CALL(hx_malloc((size_t)NV * sizeof *cl->tail, &cl->tail));
  for (hx_lid t = 0; t < NV; t++) {
    cl->par[t] = (int32_t)t;
    cl->next[t] = -1, cl->csize[t] = 1, cl->tail[t] = (int32_t)t;
  }
  cl->eps0 = 1e-9 * bd->plan->dmean, cl->tol = bd->plan->o->collapse * bd->plan->dmean;
  return HX_OK;
}

/* step 3 of the diagram: the vertices snapped onto the walls of their ghost sites (each
   vertex its own cluster still, cl->next all -1) */
static int snap_vertices(const builder *bd, clusters *cl) {
  const hx_pebble_opts *o = bd->plan->o;
  const hx_power3d *pd = bd->pd;
  double dmean = bd->plan->dmean, *V = cl->V;
  const double *C0 = cl->C0;
  uint8_t *vmask = cl->vmask;
  const uint8_t *Mc = cl->Mc;
  hx_lid NV = cl->nv;
  /* 3. vertex positions: power centres snapped onto the walls of their ghost sites,
     along the power planes of their facets (plane_fit) where that stays near */
  for (hx_lid t = 0; t < NV; t++) {
    uint8_t m = 0;
    if (Mc) m = Mc[t];
    else
      for (int k = 0; k < 4; k++) m |= bd->smask[pd->tet[4 * t + k]];
    vmask[t] = m;
    memcpy(V + 3 * t, C0 + 3 * t, 3 * sizeof(double));
    double y[3];
    memcpy(y, V + 3 * t, sizeof y);
    pb_snap(bd, m, y);
    if (m) {
      double z[3];
      plane_fit(bd, cl, (int32_t)t, -1, m, C0 + 3 * t, z);
      pb_snap(bd, m, z);
      double dz = dist3(z, C0 + 3 * t), dy = dist3(y, C0 + 3 * t);
      if (dz <= 3 * dy + 1e-12 * dmean && dz < 0.5 * o->max_snap * dmean) memcpy(y, z, sizeof y);
    }
    memcpy(V + 3 * t, y, sizeof y);
  }
  /* snapping distance check: only for vertices that are used */
  for (hx_lid f = 0; f < bd->nf; f++)
    for (int k = 0; k < bd->F[f].nv; k++) {
      int32_t t = bd->fv[bd->F[f].v0 + k];
      double dsn = dist3(V + 3 * t, C0 + 3 * t);
      if (dsn > o->max_snap * dmean) {
        char what[200];
        snprintf(what, sizeof what, "reaches %.3g beyond the container (a large empty region next to the wall)", dsn);
        return wall_gap_error(bd, bd->F[f].a, what);
      }
    }
  return HX_OK;
}

/* step 3 of the diagram, the collapses: coincident vertices merged, then the edges shorter
   than --collapse d collapsed by increasing length, under the guards (the count in *collapsed) */
static int collapse_short_edges(const builder *bd, clusters *cl, hx_lid *collapsed) {
  double *V = cl->V, eps0 = cl->eps0, tol = cl->tol;
  uint8_t *vmask = cl->vmask, *gfl = cl->gfl;
  int32_t *par = cl->par, *csize = cl->csize;
  /* 4. merge coincident vertices, then collapse short edges (increasing length) */
  pedge *pe;
  hx_lid npe = 0;
  HX_CALL(hx_malloc((size_t)bd->nfv * sizeof *pe, &pe));
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    for (int k = 0; k < F->nv; k++) {
      int32_t u = bd->fv[F->v0 + k], v = bd->fv[F->v0 + (k + 1) % F->nv];
      pe[npe].u = u, pe[npe].v = v, pe[npe].len = dist3(V + 3 * u, V + 3 * v);
      npe++;
    }
  }
  qsort(pe, (size_t)npe, sizeof *pe, cmp_pedge);
  for (hx_lid q = 0; q < npe; q++) {
    if (pe[q].len > tol) break;
    int32_t ru = find(par, pe[q].u), rv = find(par, pe[q].v);
    if (ru == rv) continue;
    double *Pu = V + 3 * ru, *Pv = V + 3 * rv;
    double len = dist3(Pu, Pv);
    uint8_t m = vmask[ru] | vmask[rv];
    double P[3];
    for (int c = 0; c < 3; c++) P[c] = (csize[ru] * Pu[c] + csize[rv] * Pv[c]) / (csize[ru] + csize[rv]);
    if (len > eps0) { /* on the facets' planes rather than at the mean, if near */
      double z[3];
      plane_fit(bd, cl, ru, rv, m, P, z);
      pb_snap(bd, m, z);
      if (dist3(z, P) < 0.5 * tol) memcpy(P, z, sizeof P);
    }
    pb_snap(bd, m, P);
    if (len > eps0) {
      if (len > tol) continue;
      if (dist3(P, Pu) > 0.6 * tol || dist3(P, Pv) > 0.6 * tol) continue;
      /* guards on the facets of ru that also contain rv */
      int ok = !(gfl[ru] | gfl[rv]) && collapse_keeps_facets(bd, cl, ru, rv);
      if (ok) ok = collapse_keeps_room(bd, cl, ru, rv, P, len > 0.5 * tol);
      if (!ok) continue;
      (*collapsed)++;
    }
    gfl[ru] |= gfl[rv];
    cluster_union(cl, ru, rv, P, m);
  }
  hx_free(&pe);
  return HX_OK;
}

/* --aspect A: a sphere's triangle on a wall far from it (where the container's cylinder
   meets the bottom or top plane, 3 R or more from the sphere's centre) sweeps even as its
   plain fan, its fewest quads, to columns as long as near the sphere on quads shrunk by
   R / distance there: aspect about the thickest layer over the fan's shortest edge (a
   spoke from the centroid to a midpoint, or half an edge) on the sphere. Above 1.25 A its
   shortest edge (< --collapse d) is collapsed, each vertex moving by up to --collapse d,
   under the negligible facets' guards (guarded_merge; pb67: a triangle 4.8 from its sphere's centre, estimated 31.9,
   had elements of 39.8; c300 one of 27.6). Not from A: a collapse changes the diagram about
   it, and two beds (a thin column estimated 21.6, and a 100-sphere bed whose triangle the
   inradius estimated 22.9, the fan 18.5) were left with an element folded at order 3.
   A triangle between two real spheres far from both (no contact, no near contact) is the same
   needle of columns, estimated to its worse side; its threshold is FAR_INNER_EST A, as its fan
   comes out up to 1.8 x the estimate (the fan's centre is its variant's, not the centroid):
   c1000 had elements of 21.3 and 26.1 as meshed where it estimated 11.7 and 21.7; with 0.5 its
   14 collapses leave none above 20 (largest 26.1 -> 19.6) with the same worst scaled Jacobian
   and none folded, and c300, p300, b300 and pb67 collapse 2-5 each, their worst scaled
   Jacobian the same */
#define FAR_INNER_EST 0.5

static void collapse_far_triangles(const builder *bd, clusters *cl, hx_lid *collapsed, hx_pebble_stats *st) {
  const hx_pebble_opts *o = bd->plan->o;
  const double *V = cl->V, tol = cl->tol;
  const uint8_t *vmask = cl->vmask;
  int32_t *par = cl->par;
  const int32_t *csize = cl->csize;
  for (hx_lid f = 0; f < bd->nf && o->aspect > 0; f++) {
    const facet *F = &bd->F[f];
    /* a wall triangle of its sphere, or a triangle between two real spheres with no contact
       near (inner): its columns to either sphere */
    int inner = F->wall < 0 && !bd->smask[F->b];
    if (inner ? contact_or_near(bd, F) : F->wall < 0 || !bd->smask[F->b]) continue;
    int32_t poly[MAXPOLY + 1];
    if (facet_roots(bd, par, F, poly, MAXPOLY) != 3) continue;
    const double *pts[3] = {V + 3 * poly[0], V + 3 * poly[1], V + 3 * poly[2]};
    double len[3], cen[3] = {0, 0, 0};
    int emin = 0;
    for (int e = 0; e < 3; e++) {
      len[e] = dist3(pts[e], pts[(e + 1) % 3]);
      if (len[e] < len[emin]) emin = e;
      for (int c = 0; c < 3; c++) cen[c] += pts[e][c] / 3;
    }
    if (len[emin] > tol) continue;
    double emn = INFINITY; /* the fan's shortest edge: a spoke (centroid to midpoint) or half an edge */
    for (int e = 0; e < 3; e++) {
      double mid[3];
      for (int c = 0; c < 3; c++) mid[c] = 0.5 * (pts[e][c] + pts[(e + 1) % 3][c]);
      emn = fmin(emn, fmin(dist3(mid, cen), 0.5 * len[e]));
    }
    double est = 0;
    for (int side = 0; side < 1 + inner; side++) {
      int32_t sp = side ? F->b : F->a;
      double R = bd->sr[sp], D = dist3(cen, bd->sx + 3 * sp), thick;
      pb_layer_range(bd->plan, D - R, R, &thick);
      est = fmax(est, thick * D / (emn * R));
    }
    if (est <= (inner ? FAR_INNER_EST : 1.25) * o->aspect) continue;
    int32_t ru = poly[emin], rv = poly[(emin + 1) % 3];
    double P[3];
    uint8_t m = vmask[ru] | vmask[rv];
    for (int c = 0; c < 3; c++) P[c] = (csize[ru] * V[3 * ru + c] + csize[rv] * V[3 * rv + c]) / (csize[ru] + csize[rv]);
    pb_snap(bd, m, P);
    if (dist3(P, V + 3 * ru) > tol || dist3(P, V + 3 * rv) > tol) continue;
    if (!guarded_merge(bd, cl, ru, rv, P, m)) continue;
    (*collapsed)++;
    st->num_negligible++;
  }
}

/* negligible facets: a triangle between two spheres that the line of their centres
   misses is seen edge on from both; when its plain fan already sweeps to a poor column
   (tri_fan_q below 0.2, or 0.3 next to the container cylinder: a wall triangle of a
   10^5 cylinder bed scored 0.275 and folded, while 0.3 everywhere made a 10^5 box bed
   fold elsewhere through the collapses it added), no tessellation of it sweeps without
   folding (four such facets gave the 42 inverted elements of a 10^5 box bed): its
   shortest edge (< --collapse d) is collapsed whatever the vertices move, under the
   same guards */
static void collapse_negligible(const builder *bd, clusters *cl, hx_lid *collapsed, hx_pebble_stats *st) {
  const double *V = cl->V, tol = cl->tol;
  const uint8_t *vmask = cl->vmask;
  int32_t *par = cl->par;
  const int32_t *csize = cl->csize;
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    if (F->wall >= 0 || bd->smask[F->b]) continue;
    if (contact_or_near(bd, F)) continue;
    int32_t poly[MAXPOLY + 1];
    if (facet_roots(bd, par, F, poly, MAXPOLY) != 3) continue;
    const double *pts[3] = {V + 3 * poly[0], V + 3 * poly[1], V + 3 * poly[2]};
    double lmin = INFINITY;
    int emin = 0;
    for (int e = 0; e < 3; e++) {
      double l = dist3(pts[e], pts[(e + 1) % 3]);
      if (l < lmin) lmin = l, emin = e;
    }
    /* a needle (vertices nearly on a line: twice its area under 5 % of its longest edge
       squared) may be thin with no edge shorter than tol: its shortest edge is collapsed
       up to 2.5 tol (a 10^5 cylinder bed had one, edges 0.24 / 0.35 / 0.59 d, 0.03 d off
       its plane, and its fan folded) */
    double lmax = fmax(dist3(pts[0], pts[1]), fmax(dist3(pts[1], pts[2]), dist3(pts[2], pts[0]))), ar[3], e1[3], e2[3];
    for (int c = 0; c < 3; c++) e1[c] = pts[1][c] - pts[0][c], e2[c] = pts[2][c] - pts[0][c];
    cross3(e1, e2, ar);
    int needle = norm3(ar) < 0.05 * lmax * lmax;
    if ((lmin > tol && !(needle && lmin <= 2.5 * tol)) || facet_room(bd, F, pts, 3) >= 0) continue;
    const uint8_t msk[3] = {vmask[poly[0]], vmask[poly[1]], vmask[poly[2]]};
    int on_cyl = 0;
    for (int k = 0; k < bd->nw; k++)
      if (bd->w[k].cyl && ((msk[0] | msk[1] | msk[2]) >> k & 1)) on_cyl = 1;
    if (tri_fan_q(bd, F, pts, msk) >= (on_cyl ? 0.3 : 0.2)) continue;
    int32_t ru = poly[emin], rv = poly[(emin + 1) % 3];
    double P[3];
    uint8_t m = vmask[ru] | vmask[rv];
    for (int c = 0; c < 3; c++) P[c] = (csize[ru] * V[3 * ru + c] + csize[rv] * V[3 * rv + c]) / (csize[ru] + csize[rv]);
    {
      double z[3];
      plane_fit(bd, cl, ru, rv, m, P, z);
      pb_snap(bd, m, z);
      if (dist3(z, P) < 0.5 * tol) memcpy(P, z, sizeof P);
    }
    pb_snap(bd, m, P);
    if (!guarded_merge(bd, cl, ru, rv, P, m)) continue;
    (*collapsed)++;
    st->num_negligible++;
  }
}

/* step 3 of the diagram, the end: a node for each surviving cluster, the facets rebuilt on
   them (pinched ones and those left with < 3 vertices dropped); the node of every diagram
   vertex kept in bd->vnode for a repair round */
static int compact_facets(builder *bd, const clusters *cl, hx_pebble_stats *st) {
  hx_lid NV = cl->nv;
  const double *V = cl->V;
  const uint8_t *vmask = cl->vmask;
  int32_t *par = cl->par;
  /* 5. compact: nodes for the surviving roots, facets rebuilt */
  int32_t *node_of;
  HX_CALL(hx_malloc((size_t)NV * sizeof *node_of, &node_of));
  for (hx_lid t = 0; t < NV; t++) node_of[t] = -1;
  hx_lid nf2 = 0, dropped = 0;
  int32_t *fv2;
  hx_lid nfv2 = 0;
  HX_CALL(hx_malloc((size_t)bd->nfv * sizeof *fv2, &fv2));
  for (hx_lid f = 0; f < bd->nf; f++) {
    facet F = bd->F[f];
    int32_t poly[MAXPOLY + 1];
    int m = facet_roots(bd, par, &F, poly, MAXPOLY);
    if (m > MAXPOLY) {
      hx_free(&fv2), hx_free(&node_of);
      return HX_ERROR(HX_ERR_INTERNAL, "pebble: a facet has more than %d vertices", MAXPOLY);
    }
    /* pinched polygons: a root twice */
    int pinched = 0;
    for (int i = 0; i < m; i++)
      for (int j = i + 1; j < m; j++)
        if (poly[i] == poly[j]) pinched = 1;
    if (m < 3 || pinched) {
      if (pinched) hx_warn("pebble: dropped a pinched facet between sites %d and %d", (int)F.a, (int)F.b);
      dropped++;
      continue;
    }
    F.v0 = (int32_t)nfv2;
    F.nv = m;
    for (int i = 0; i < m; i++) {
      int32_t r = poly[i];
      if (node_of[r] < 0) {
        int32_t id;
        int rc2 = pb_add_node(bd, V + 3 * r, vmask[r], -1, &id);
        if (rc2) {
          hx_free(&fv2), hx_free(&node_of);
          return rc2;
        }
        node_of[r] = id;
      }
      fv2[nfv2++] = node_of[r];
    }
    bd->F[nf2++] = F;
  }
  st->num_dropped_facets = dropped;
  hx_free(&bd->vnode);
  if (!hx_malloc((size_t)NV * sizeof *bd->vnode, &bd->vnode)) {
    for (hx_lid t = 0; t < NV; t++) bd->vnode[t] = node_of[find(par, (int32_t)t)];
    bd->nvdiag = NV;
  }
  hx_free(&bd->fv);
  bd->fv = fv2;
  bd->nfv = nfv2;
  bd->capfv = nfv2;
  bd->nf = nf2;
  hx_free(&node_of);
  return HX_OK;
}

/* The power diagram of the sites and its clean-up (steps 2 and 3): the facets, the clusters
   of their vertices snapped, merged and collapsed, the facets rebuilt and oriented. */
int pb_build_diagram(builder *bd, const hx_pebble_bed *bed, hx_pebble_stats *st) {
  HX_CALL(diagram_facets(bd));
  st->num_tets = bd->pd->num_tets;
  clusters cl;
  memset(&cl, 0, sizeof cl);
  hx_lid collapsed = 0;
  int rc = clusters_init(bd, &cl);
  if (!rc) rc = snap_vertices(bd, &cl);
  if (!rc) rc = collapse_short_edges(bd, &cl, &collapsed);
  if (!rc) {
    collapse_far_triangles(bd, &cl, &collapsed, st);
    collapse_negligible(bd, &cl, &collapsed, st);
    st->num_collapsed = collapsed;
    hx_free(&cl.vf_start), hx_free(&cl.vf), hx_free(&cl.next), hx_free(&cl.csize), hx_free(&cl.tail);
    rc = compact_facets(bd, &cl, st);
  }
  clusters_free(&cl);
  if (rc) return rc;
  /* 6. orient every polygon CCW about a -> b */
  HX_CALL(orient_facets(bd));
  for (hx_lid f = 0; f < bd->nf; f++) {
    facet *F = &bd->F[f];
    if (F->wall >= 0) st->num_wall_facets++;
  }
  st->num_facets = (hx_lid)bd->nf;
  (void)bed;
  return HX_OK;
}

/* Orient every facet polygon CCW about a -> b by its Newell normal. An edge of a cylinder
   facet is an arc of the wall: its midpoint on the wall counts too (a plane facet at the top
   of a thin column can be a near-straight chain of vertices closed by one long rim arc, whose
   area is all in the arc). On the cylinder the normal is compared with the outward direction
   at the vertex mean instead (a -> b can be near tangent to a facet far round the wall from
   a). */
static int orient_facets(builder *bd) {
  int cw = -1;
  for (int k = 0; k < bd->nw; k++)
    if (bd->w[k].cyl) cw = k;
  emap em = {0};
  if (cw >= 0) {
    HX_CALL(pb_emap_init(&em, bd->nfv));
    for (hx_lid f = 0; f < bd->nf; f++) {
      const facet *F = &bd->F[f];
      if (F->wall == cw)
        for (int k = 0; k < F->nv; k++) em.mask[pb_emap_slot(&em, bd->fv[F->v0 + k], bd->fv[F->v0 + (k + 1) % F->nv])] = 1;
    }
  }
  for (hx_lid f = 0; f < bd->nf; f++) {
    facet *F = &bd->F[f];
    double nrm[3] = {0, 0, 0}, d[3];
    for (int k = 0; k < F->nv; k++) {
      int32_t u = bd->fv[F->v0 + k], v = bd->fv[F->v0 + (k + 1) % F->nv];
      const double *p = bd->X + 3 * u, *q = bd->X + 3 * v;
      double m[3];
      int arc = cw >= 0 && F->wall >= 0 && em.mask[pb_emap_slot(&em, u, v)];
      if (arc) {
        const wall *W = &bd->w[cw];
        double dth;
        if (pb_cyl_arc(bd, W, F->a, p, q, &dth)) {
          pb_cyl_at(W, pb_cyl_angle(W, p) + 0.5 * dth, m);
          m[2] = 0.5 * (p[2] + q[2]);
        } else {
          for (int c = 0; c < 3; c++) m[c] = 0.5 * (p[c] + q[c]);
          pb_wall_project(W, m);
        }
      }
      for (int h = 0; h <= arc; h++) { /* p -> q, or p -> m -> q */
        const double *s0 = arc && h ? m : p, *s1 = arc && !h ? m : q;
        nrm[0] += (s0[1] - s1[1]) * (s0[2] + s1[2]);
        nrm[1] += (s0[2] - s1[2]) * (s0[0] + s1[0]);
        nrm[2] += (s0[0] - s1[0]) * (s0[1] + s1[1]);
      }
    }
    for (int c = 0; c < 3; c++) d[c] = bd->sx[3 * F->b + c] - bd->sx[3 * F->a + c];
    if (F->wall == cw && cw >= 0) {
      const wall *W = &bd->w[cw];
      d[0] = d[1] = d[2] = 0;
      for (int k = 0; k < F->nv; k++)
        for (int c = 0; c < 2; c++) d[c] += bd->X[3 * bd->fv[F->v0 + k] + c] - W->p[c];
    }
    if (dot3(nrm, d) < 0)
      for (int i = 0, j = F->nv - 1; i < j; i++, j--) {
        int32_t tmp = bd->fv[F->v0 + i];
        bd->fv[F->v0 + i] = bd->fv[F->v0 + j];
        bd->fv[F->v0 + j] = tmp;
      }
  }
  if (cw >= 0) pb_emap_free(&em);
  return HX_OK;
}
