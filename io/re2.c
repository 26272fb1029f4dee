/* Nek5000 / NekRS binary mesh (.re2, #v004, double precision) writer, with the
   optional .co2 connectivity and the order-N geometry as a Nek field file
   (docs/formats.md, Nek5000).

   design:
   1. element records: the 8 corners of every element in preprocessor order;
   2. curved sides, counted in a first pass and written in a second: 's' for
      boundary faces on a sphere surface, 'C' for the horizontal edges of boundary
      faces on a cylinder whose axis is z, 'm' for every other edge that is not
      straight (the edge's point over its chord's midpoint, so that Nek's quadratic
      through it runs evenly along the chord). Nek5000 builds its geometry from the
      corners and these curves by its own rule (hx_re2_nek_element) and, before it
      reads the 'X' restart, aborts if det J <= 0 at any GLL point. So every element's
      curves are checked by that rule at the check order (the mesh's order; 7 for an
      order-1 mesh) and the first set that passes is written: (a) 's', 'C' and 'm'
      (not when an 'm' would lose its slot to an 's': Nek keeps one curve per number
      and element); (b) 'C' and 'm' (sphere faces by their edges' midpoints); (c) 'm'
      only; (d) none (the straight element). An element no set passes refuses the
      file unless forced;
   3. one BC set (velocity): every boundary face with its type from its name
      (inlet 'v  ', outlet 'O  ', symmetry 'SYM', else wall 'W  ') and the boundary
      id, renumbered 1..n without gaps, in bc5;
   4. at order N >= 2 the exact GLL geometry goes to <base>0.f00000 (the 'X'
      restart field file) and the .par lines that load it are printed. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "io_gather.h"
#include "re2_impl.h"

typedef struct re2_ctx {
  const hx_mesh *m;
  hx_gsrc g; /* the elements and faces of every rank (io_gather.h) */
  int *bmap; /* boundary id -> 1..n */
  int nb;
  double gll[HX_MAX_ND];
  double gll_den[HX_MAX_ND]; /* the Lagrange basis' denominators prod_b (x_a - x_b) at gll */
  int force;
  int nchk, chk_nd[2]; /* the check: Nek's rule at chk_nd GLL points per direction */
  double chk_g[2][HX_MAX_ND], chk_G[2][HX_MAX_ND * HX_MAX_ND];
  int64_t nset[6];  /* elements written with curve set a, b, c, d; failing all; uncurved */
  hx_gid first_bad; /* an element no set passes (global, 0-based), or -1 */
  uint8_t *eset;    /* each written element's set, chosen in the counting pass */
  int order;        /* the order written (>= 2: with a field file) */
  char tmp[4200];   /* rank 0: the .re2's temporary name (its header is completed after the field file) */
} re2_ctx;

enum { RE2_SET_A, RE2_SET_B, RE2_SET_C, RE2_SET_D, RE2_SET_NONE, RE2_SET_PLAIN };

static void corner_xyz(const hx_mesh *v, hx_lid e, int s, double X[3]) {
  int c = RE2_PRE[s];
  for (int d = 0; d < 3; d++) X[d] = hx_mesh_elem_x(v, e, d)[hx_corner_lex(v->nd, c)];
}

/* the Lagrange basis at gll, phi[a] = prod_b (t - x_b) / den[a]: hx_lagrange_eval's products
   in its order (the same bits), the denominators computed once */
static void lagrange_phi(int nd, const double *x, const double *den, double t, double *phi) {
  for (int a = 0; a < nd; a++) {
    double num = 1.0;
    for (int b = 0; b < nd; b++)
      if (b != a) num *= t - x[b];
    phi[a] = num / den[a];
  }
}

/* the point of edge (a, b) (preprocessor corners, 1-based) of element e over the middle of
   its chord: bisection on the edge parameter, the edge's nd nodes interpolated in 1D */
static void edge_mid(const re2_ctx *c, const hx_mesh *v, hx_lid e, int a, int b, double M[3]) {
  int ia[3], ib[3], nd = v->nd;
  re2_corner_ijk(a - 1, ia);
  re2_corner_ijk(b - 1, ib);
  int dir = ia[0] != ib[0] ? 0 : ia[1] != ib[1] ? 1 : 2;
  double E[HX_MAX_ND][3], phi[HX_MAX_ND]; /* the edge's nodes from corner a to corner b */
  for (int t = 0; t < nd; t++) {
    int ijk[3] = {ia[0] * (nd - 1), ia[1] * (nd - 1), ia[2] * (nd - 1)};
    ijk[dir] = ia[dir] ? nd - 1 - t : t;
    for (int d = 0; d < 3; d++) E[t][d] = hx_mesh_elem_x(v, e, d)[hx_lex(nd, ijk[0], ijk[1], ijk[2])];
  }
  double L2 = 0;
  for (int d = 0; d < 3; d++) L2 += (E[nd - 1][d] - E[0][d]) * (E[nd - 1][d] - E[0][d]);
  double lo = 0, hi = 1;
  for (int it = 0; it < 52; it++) {
    double tm = 0.5 * (lo + hi), proj = 0;
    lagrange_phi(nd, c->gll, c->gll_den, tm, phi);
    for (int d = 0; d < 3; d++) {
      M[d] = 0;
      for (int t = 0; t < nd; t++) M[d] += phi[t] * E[t][d];
      proj += (M[d] - E[0][d]) * (E[nd - 1][d] - E[0][d]);
    }
    if (proj < 0.5 * L2) lo = tm;
    else hi = tm;
  }
}

/* the edge midpoints of one element, each found once (elem_curves_set asks for them per set) */
typedef struct edge_mids {
  double M[13][3];
  unsigned char have[13];
} edge_mids;

/* Curves of element e of block view v with the surface indices bsurf[6] of its faces
   (-1: none), with 's' (use_s) and 'C' (use_c) where they apply. Returns the count; *lost:
   edge curves that lost their slot to an 's'. */
static int elem_curves_set(const re2_ctx *c, const hx_mesh *v, hx_lid e, const int32_t *bsurf, int use_s, int use_c,
                           re2_curve *out, int *lost, edge_mids *em) {
  int n = 0, used[13] = {0};
  *lost = 0;
  int nd = v->nd;
  /* s on sphere faces, C on horizontal edges of faces on a z cylinder */
  int cedge[13] = {0};
  double cyl_r[13] = {0}, cyl_c[13][2];
  for (int f = 0; f < 6; f++) {
    int si = bsurf[f];
    if (si < 0 || si >= c->m->num_surfaces) continue;
    const hx_surface *s = &c->m->surfaces[si];
    int pf = RE2_FACE[f];
    if (s->type == HX_SURF_SPHERE && use_s) {
      re2_curve *r = &out[n++];
      r->side = pf;
      r->type = 's';
      r->c[0] = s->p[0], r->c[1] = s->p[1], r->c[2] = s->p[2], r->c[3] = s->r, r->c[4] = 0;
      used[pf] = 1;
    } else if (s->type == HX_SURF_CYLINDER && use_c && fabs(fabs(s->n[2]) - 1) < 1e-12) {
      for (int q = 1; q <= 8; q++) {
        int a = RE2_EDGE[q][0], b = RE2_EDGE[q][1], on = 0;
        for (int t = 0; t < 4; t++) on += (RE2_FACE_CORNERS[pf][t] == a) + (RE2_FACE_CORNERS[pf][t] == b);
        if (on != 2) continue;
        double P1[3], P2[3];
        corner_xyz(v, e, a - 1, P1);
        corner_xyz(v, e, b - 1, P2);
        if (fabs(P1[2] - P2[2]) > 1e-12 * (fabs(P1[2]) + 1)) continue;
        /* Nek's centre: mid - nhat * R cos(dtheta), nhat = (y2-y1, x1-x2)/|.| */
        double mx = 0.5 * (P1[0] + P2[0]), my = 0.5 * (P1[1] + P2[1]);
        double nx = P2[1] - P1[1], ny = P1[0] - P2[0];
        double side = (s->p[0] - mx) * nx + (s->p[1] - my) * ny;
        cedge[q] = 1;
        cyl_r[q] = side > 0 ? -s->r : s->r;
        cyl_c[q][0] = s->p[0], cyl_c[q][1] = s->p[1];
      }
    }
  }
  (void)cyl_c;
  for (int q = 1; q <= 12; q++) {
    if (cedge[q]) {
      if (used[q]) {
        (*lost)++;
        continue;
      }
      re2_curve *r = &out[n++];
      memset(r, 0, sizeof *r);
      r->side = q;
      r->type = 'C';
      r->c[0] = cyl_r[q];
      used[q] = 1;
    }
  }
  /* m: edges not covered by this element's s faces or C edges */
  for (int q = 1; q <= 12; q++) {
    if (cedge[q]) continue;
    int a = RE2_EDGE[q][0], b = RE2_EDGE[q][1], covered = 0;
    for (int f = 0; f < 6 && !covered; f++) {
      int si = bsurf[f];
      if (!use_s || si < 0 || si >= c->m->num_surfaces || c->m->surfaces[si].type != HX_SURF_SPHERE) continue;
      int pf = RE2_FACE[f], on = 0;
      for (int t = 0; t < 4; t++) on += (RE2_FACE_CORNERS[pf][t] == a) + (RE2_FACE_CORNERS[pf][t] == b);
      covered = on == 2;
    }
    if (covered || nd < 3) continue;
    double P1[3], P2[3], M[3];
    corner_xyz(v, e, a - 1, P1);
    corner_xyz(v, e, b - 1, P2);
    if (!em->have[q]) edge_mid(c, v, e, a, b, em->M[q]), em->have[q] = 1;
    memcpy(M, em->M[q], sizeof M);
    double len2 = 0, dev2 = 0;
    for (int d = 0; d < 3; d++) {
      len2 += (P2[d] - P1[d]) * (P2[d] - P1[d]);
      dev2 += (M[d] - 0.5 * (P1[d] + P2[d])) * (M[d] - 0.5 * (P1[d] + P2[d]));
    }
    if (dev2 <= 1e-8 * len2) continue; /* straight to 1e-4 of the edge length */
    if (used[q]) {
      (*lost)++;
      continue;
    }
    re2_curve *r = &out[n++];
    r->side = q;
    r->type = 'm';
    r->c[0] = M[0], r->c[1] = M[1], r->c[2] = M[2], r->c[3] = r->c[4] = 0;
    used[q] = 1;
  }
  return n;
}

/* det J > 0 at every GLL point of the element's nodes xe [3][nd^3] (G: the 1D derivative
   matrix); inlined with a constant nd below so that the loops unroll */
static inline __attribute__((always_inline)) int detj_pos(int nd, const double *xe, const double *G) {
  enum { M = HX_MAX_ND * HX_MAX_ND * HX_MAX_ND };
  int npe = nd * nd * nd;
  double D[3][3][M]; /* D[c][r]: d x_c / d r */
  for (int d = 0; d < 3; d++) {
    const double *x = xe + d * npe;
    for (int jk = 0; jk < nd * nd; jk++)
      for (int i = 0; i < nd; i++) {
        double s0 = 0;
        for (int a = 0; a < nd; a++) s0 += G[i * nd + a] * x[jk * nd + a];
        D[d][0][jk * nd + i] = s0;
      }
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          double s1 = 0;
          for (int a = 0; a < nd; a++) s1 += G[j * nd + a] * x[(k * nd + a) * nd + i];
          D[d][1][(k * nd + j) * nd + i] = s1;
        }
    for (int k = 0; k < nd; k++)
      for (int ij = 0; ij < nd * nd; ij++) {
        double s2 = 0;
        for (int a = 0; a < nd; a++) s2 += G[k * nd + a] * x[a * nd * nd + ij];
        D[d][2][k * nd * nd + ij] = s2;
      }
  }
  for (int p = 0; p < npe; p++) {
    double det = D[0][0][p] * (D[1][1][p] * D[2][2][p] - D[1][2][p] * D[2][1][p]) -
                 D[0][1][p] * (D[1][0][p] * D[2][2][p] - D[1][2][p] * D[2][0][p]) +
                 D[0][2][p] * (D[1][0][p] * D[2][1][p] - D[1][1][p] * D[2][0][p]);
    if (!(det > 0)) return 0;
  }
  return 1;
}

/* det J > 0 at every check point of element e by Nek's rule with curves cv[0..n) */
static int nek_valid(const re2_ctx *c, const hx_mesh *v, hx_lid e, const re2_curve *cv, int n) {
  double xc[24], xe[3 * HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  const re2_curve *cp[24] = {NULL};
  for (int s = 0; s < 8; s++) {
    double X[3];
    corner_xyz(v, e, s, X);
    for (int d = 0; d < 3; d++) xc[d * 8 + s] = X[d];
  }
  for (int k = 0; k < n; k++) cp[k] = &cv[k];
  for (int h = 0; h < c->nchk; h++) {
    int nd = c->chk_nd[h], ok;
    hx_re2_nek_element(xc, cp, n, nd, c->chk_g[h], xe);
    const double *G = c->chk_G[h];
    switch (nd) {
    case 3: ok = detj_pos(3, xe, G); break;
    case 4: ok = detj_pos(4, xe, G); break;
    case 5: ok = detj_pos(5, xe, G); break;
    case 6: ok = detj_pos(6, xe, G); break;
    case 7: ok = detj_pos(7, xe, G); break;
    case 8: ok = detj_pos(8, xe, G); break;
    case 9: ok = detj_pos(9, xe, G); break;
    default: ok = detj_pos(nd, xe, G); break;
    }
    if (!ok) return 0;
  }
  return 1;
}

/* The curve set written for element e (see the top: sets a..d, the first that Nek's rule
   passes; RE2_SET_NONE: none passes; RE2_SET_PLAIN: no curves, Nek's trilinear element of our
   corners, not checked) */
static int elem_choose(const re2_ctx *c, const hx_mesh *v, hx_lid e, const int32_t *bsurf) {
  re2_curve out[24];
  int has_s = 0, has_c = 0, lost = 0, n;
  for (int f = 0; f < 6; f++) {
    int si = bsurf[f];
    if (si < 0 || si >= c->m->num_surfaces) continue;
    const hx_surface *sf = &c->m->surfaces[si];
    has_s |= sf->type == HX_SURF_SPHERE;
    has_c |= sf->type == HX_SURF_CYLINDER && fabs(fabs(sf->n[2]) - 1) < 1e-12;
  }
  edge_mids em;
  memset(em.have, 0, sizeof em.have);
  n = elem_curves_set(c, v, e, bsurf, 1, 1, out, &lost, &em);
  if (n == 0) return RE2_SET_PLAIN;
  if (!lost && nek_valid(c, v, e, out, n)) return RE2_SET_A;
  if (has_s && (n = elem_curves_set(c, v, e, bsurf, 0, 1, out, &lost, &em)) && nek_valid(c, v, e, out, n)) return RE2_SET_B;
  if (has_c && (n = elem_curves_set(c, v, e, bsurf, 0, 0, out, &lost, &em)) && nek_valid(c, v, e, out, n)) return RE2_SET_C;
  if (nek_valid(c, v, e, out, 0)) return RE2_SET_D;
  return RE2_SET_NONE;
}

/* the curves of set `set` for element e; returns the count */
static int elem_curves(const re2_ctx *c, const hx_mesh *v, hx_lid e, const int32_t *bsurf, int set, re2_curve *out) {
  int lost;
  edge_mids em;
  memset(em.have, 0, sizeof em.have);
  switch (set) {
  case RE2_SET_B: return elem_curves_set(c, v, e, bsurf, 0, 1, out, &lost, &em);
  case RE2_SET_C: return elem_curves_set(c, v, e, bsurf, 0, 0, out, &lost, &em);
  case RE2_SET_D:
  case RE2_SET_PLAIN: return 0;
  default: return elem_curves_set(c, v, e, bsurf, 1, 1, out, &lost, &em);
  }
}

/* the sets of a block's elements into sets[0..count) (threads); returns their curve count */
static int64_t block_choose(const re2_ctx *c, const hx_gblock *b, uint8_t *sets) {
  int64_t n = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : n)
  for (hx_lid e = 0; e < b->count; e++) {
    re2_curve cv[24];
    const int32_t *bs = b->bsurf + (size_t)e * 6;
    sets[e] = (uint8_t)elem_choose(c, &b->view, e, bs);
    n += elem_curves(c, &b->view, e, bs, sets[e], cv);
  }
  return n;
}

static const char *bc_type(const hx_mesh *m, int bid) {
  const char *name = bid > 0 && bid < m->num_bnames ? m->bnames[bid] : NULL;
  if (!name) return "W  ";
  char low[64];
  size_t i = 0;
  for (; name[i] && i < sizeof low - 1; i++) low[i] = (char)tolower((unsigned char)name[i]);
  low[i] = 0;
  if (strstr(low, "inlet") || strstr(low, "inflow")) return "v  ";
  if (strstr(low, "outlet") || strstr(low, "outflow")) return "O  ";
  if (strstr(low, "sym")) return "SYM";
  return "W  ";
}

static int put_d(hx_outfile *f, double v) { return hx_outfile_write(f, &v, 8); }

/* the records (Nek5000's .re2 layout): an element's group and 8 corners (25 doubles), a curve or a
   boundary condition (8 doubles: element, side, 5 values, the type in the last 8 bytes) */
static void re2_header(hx_gid ne, int field, uint64_t sum, char hdr[81]) {
  char link[24] = "none";
  if (field) snprintf(link, sizeof link, "%016llx", (unsigned long long)sum);
  snprintf(hdr, 81, "%5s%16lld%3d%16lld%4d hdr fld %s", "#v004", (long long)ne, 3, (long long)ne, 1, link);
  size_t l = strlen(hdr);
  memset(hdr + l, ' ', 80 - l);
}
static void elem_record(const hx_mesh *v, hx_lid e, double rec[25]) {
  rec[0] = 0; /* group */
  for (int s = 0; s < 8; s++) {
    double X[3];
    corner_xyz(v, e, s, X);
    rec[1 + s] = X[0], rec[9 + s] = X[1], rec[17 + s] = X[2];
  }
}
static void side_record(hx_gid elem1, int side, const double c[5], const char *type, double r[8]) {
  double v[7] = {(double)elem1, (double)side, c[0], c[1], c[2], c[3], c[4]};
  char word[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
  memcpy(word, type, strlen(type) < 8 ? strlen(type) : 8);
  memcpy(r, v, sizeof v);
  memcpy(&r[7], word, 8);
}
static void curve_record(hx_gid elem1, const re2_curve *cv, double r[8]) {
  char t[2] = {cv->type, 0};
  side_record(elem1, cv->side, cv->c, t, r);
}
static void bc_record(const re2_ctx *c, const hx_gface *bf, double r[8]) {
  double z[5] = {0, 0, 0, 0, (double)c->bmap[bf->bid]};
  char t[4] = {0};
  memcpy(t, bc_type(c->m, bf->bid), 3);
  side_record(bf->elem + 1, RE2_FACE[bf->face], z, t, r);
}

/* an element no curve set passes Nek's rule: Nek would abort on the file */
static int curves_verdict(const re2_ctx *c, const char *path) {
  if (!c->nset[RE2_SET_NONE] || c->force) return HX_OK;
  return HX_ERROR(HX_ERR_INVALID_MESH,
                  "refusing to write '%s': Nek5000 would find det J <= 0 in %lld element(s) (e.g. element %lld) of the "
                  "geometry it builds from the corners and curved sides by its own rule (checked at order %d), and it "
                  "aborts on that before it reads the order-N geometry; use --force to write anyway",
                  path, (long long)c->nset[RE2_SET_NONE], (long long)c->first_bad + 1, c->chk_nd[c->nchk - 1] - 1);
}

/* where elements had to give up curves (sets c, d) or none passes (forced): say so */
static void curves_note(const re2_ctx *c, const char *path) {
  const int64_t *n = c->nset;
  if (!(n[RE2_SET_C] || n[RE2_SET_D] || n[RE2_SET_NONE]) && hx_verbosity() <= 0) return;
  fprintf(stderr,
          "%s: Nek5000's geometry from the corners and curved sides, checked by its own rule at order %s%d: %lld "
          "element(s) with 's'/'C'/'m' curves, %lld with sphere faces by edge midpoints, %lld with midpoints only, "
          "%lld left straight (their curves would fold them%s), %lld failing every set\n",
          path, c->nchk > 1 ? "3 and " : "", c->chk_nd[c->nchk - 1] - 1, (long long)n[RE2_SET_A], (long long)n[RE2_SET_B],
          (long long)n[RE2_SET_C], (long long)n[RE2_SET_D],
          c->nchk > 1 ? "; an order-1 mesh has no curved layers: write at order 2 or more" : "", (long long)n[RE2_SET_NONE]);
}

static int write_re2(re2_ctx *c, hx_outfile *f) {
  hx_gid ne = c->g.num_elem;
  char hdr[81];
  re2_header(ne, c->order >= 2, 0, hdr);
  HX_CALL(hx_outfile_write(f, hdr, 80));
  float test = 6.54321f;
  HX_CALL(hx_outfile_write(f, &test, 4));
  double rec[25];
  const hx_gblock *b;
  HX_CALL(hx_gsrc_pass(&c->g, HX_GS_X));
  for (;;) {
    HX_CALL(hx_gsrc_next(&c->g, &b));
    if (!b) break;
    for (hx_lid e = 0; e < b->count; e++) {
      elem_record(&b->view, e, rec);
      HX_CALL(hx_outfile_write(f, rec, sizeof rec));
    }
  }
  /* curves: each element's set and the count, then the curves */
  HX_CALL(hx_malloc((size_t)ne + 1, &c->eset));
  re2_curve cv[24];
  long long ncurve = 0;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      HX_CALL(curves_verdict(c, f->path));
      HX_CALL(put_d(f, (double)ncurve));
    }
    HX_CALL(hx_gsrc_pass(&c->g, HX_GS_X | HX_GS_SURF));
    for (;;) {
      HX_CALL(hx_gsrc_next(&c->g, &b));
      if (!b) break;
      uint8_t *sets = c->eset + b->e0;
      if (pass == 0) {
        ncurve += block_choose(c, b, sets);
        for (hx_lid e = 0; e < b->count; e++) {
          c->nset[sets[e]]++;
          if (sets[e] == RE2_SET_NONE && c->first_bad < 0) c->first_bad = b->e0 + e;
        }
        continue;
      }
      for (hx_lid e = 0; e < b->count; e++) {
        int n = elem_curves(c, &b->view, e, b->bsurf + (size_t)e * 6, sets[e], cv);
        for (int q = 0; q < n; q++) {
          double r[8];
          curve_record(b->e0 + e + 1, &cv[q], r);
          HX_CALL(hx_outfile_write(f, r, sizeof r));
        }
      }
    }
  }
  /* boundary conditions, one set, in (element, face) order */
  HX_CALL(put_d(f, (double)c->g.num_faces));
  const hx_gfaces *fb;
  HX_CALL(hx_gsrc_face_pass(&c->g, 0, 0));
  for (;;) {
    HX_CALL(hx_gsrc_next_faces(&c->g, &fb));
    if (!fb) break;
    for (hx_lid q = 0; q < fb->count; q++) {
      double r[8];
      bc_record(c, &fb->f[q], r);
      HX_CALL(hx_outfile_write(f, r, sizeof r));
    }
  }
  return HX_OK;
}

/* The same file written by every rank at its own offsets (several ranks, no .co2): element
   records at 84 + 200 e, the curve count, the curves (counted per rank first, offsets by a
   prefix sum), the face count and the faces, each rank's in the order rank 0 would write
   them, so the bytes equal the gathered writer's. Rank 0 opens and commits the file. */
static int write_re2_own(re2_ctx *c, const char *path) {
  const hx_mesh *m = c->m;
  hx_gsrc *g = &c->g;
  hx_comm comm = m->comm;
  int rc = HX_OK;
  const hx_gblock *b;
  re2_curve cv[24];
  /* 1. this rank's curves */
  int64_t cnt = 0, bad = INT64_MAX; /* curves; the first element no curve set passes */
  hx_gid pos = 0;
  size_t k = 0; /* this rank's elements in the order it writes them */
  rc = hx_malloc((size_t)m->num_elem + 1, &c->eset);
  for (;;) {
    if (rc || (rc = hx_gsrc_own_next(g, HX_GS_X | HX_GS_SURF, &pos, &b)) || !b) break;
    uint8_t *sets = c->eset + k;
    cnt += block_choose(c, b, sets);
    for (hx_lid e = 0; e < b->count; e++) {
      c->nset[sets[e]]++;
      if (sets[e] == RE2_SET_NONE && bad == INT64_MAX) bad = b->e0 + e;
    }
    k += (size_t)b->count;
  }
  rc = hx_comm_agree(comm, rc);
  int64_t coff = 0, foff = 0, tot[1] = {cnt};
  if (rc == HX_OK) rc = hx_comm_exscan_int64(comm, cnt, &coff);
  if (rc == HX_OK) rc = hx_comm_exscan_int64(comm, m->num_faces, &foff);
  if (rc == HX_OK) rc = hx_comm_sum_int64(comm, tot, 1);
  if (rc == HX_OK) rc = hx_comm_sum_int64(comm, c->nset, 6);
  if (rc == HX_OK) rc = hx_comm_min_int64(comm, &bad, 1);
  if (rc != HX_OK) return rc;
  c->first_bad = bad == INT64_MAX ? -1 : bad;
  if ((rc = curves_verdict(c, path))) return rc; /* the same on every rank */
  const int64_t head = 84, cstart = head + 200 * (int64_t)g->num_elem, fstart = cstart + 8 + 64 * tot[0],
                end = fstart + 8 + 64 * (int64_t)g->num_faces;
  /* 2. rank 0: the file, its header and the two counts */
  hx_outfile f;
  char tmp[4200] = "";
  if (g->rank == 0) {
    rc = hx_outfile_open(&f, path);
    if (rc == HX_OK) {
      char hdr[81];
      re2_header(g->num_elem, c->order >= 2, 0, hdr);
      float test = 6.54321f;
      double nc = (double)tot[0], nf = (double)g->num_faces;
      rc = hx_outfile_write(&f, hdr, 80);
      if (rc == HX_OK) rc = hx_outfile_write(&f, &test, 4);
      if (rc == HX_OK && fflush(f.fp) != 0) rc = HX_ERROR(HX_ERR_IO, "writing '%s' failed: %s", path, strerror(errno));
      if (rc == HX_OK) rc = hx_io_pwrite(fileno(f.fp), &nc, 8, cstart, path);
      if (rc == HX_OK) rc = hx_io_pwrite(fileno(f.fp), &nf, 8, fstart, path);
      if (rc != HX_OK) hx_outfile_abort(&f);
      else snprintf(tmp, sizeof tmp, "%s", f.tmp);
      f.round = HX_OUT_PRIMARY; /* renamed after its field file */
      snprintf(c->tmp, sizeof c->tmp, "%s", f.tmp);
    }
  }
  rc = hx_comm_agree(comm, rc);
  if (rc == HX_OK) rc = hx_comm_bcast(comm, tmp, sizeof tmp, 0);
  if (rc != HX_OK) return rc;
  int fd = g->rank == 0 ? fileno(f.fp) : open(tmp, O_WRONLY);
  if (fd < 0) rc = HX_ERROR(HX_ERR_IO, "cannot open '%s' (the .re2 being written by rank 0): %s", tmp, strerror(errno));
  /* 3. every rank: its element records and curves, block by block, then its faces */
  double *buf = NULL;
  size_t cap = (size_t)g->block * 24 * 8; /* doubles: a block's curves (24 at most an element) or records */
  if (rc == HX_OK) rc = hx_malloc(cap * sizeof *buf, &buf);
  pos = 0;
  k = 0;
  int64_t ck = coff;
  while (rc == HX_OK) {
    if ((rc = hx_gsrc_own_next(g, HX_GS_X | HX_GS_SURF, &pos, &b)) || !b) break;
    const uint8_t *sets = c->eset + k;
    k += (size_t)b->count;
    for (hx_lid e = 0; e < b->count; e++) elem_record(&b->view, e, buf + (size_t)25 * e);
    rc = hx_io_pwrite(fd, buf, (size_t)b->count * 200, head + 200 * (int64_t)b->e0, path);
    size_t nr = 0;
    for (hx_lid e = 0; rc == HX_OK && e < b->count; e++) {
      int n = elem_curves(c, &b->view, e, b->bsurf + (size_t)e * 6, sets[e], cv);
      for (int q = 0; q < n; q++, nr++) curve_record(b->e0 + e + 1, &cv[q], buf + 8 * nr);
    }
    if (rc == HX_OK && nr) rc = hx_io_pwrite(fd, buf, nr * 64, cstart + 8 + 64 * ck, path);
    ck += (int64_t)nr;
  }
  const hx_gfaces *fb;
  pos = 0;
  int64_t fk = foff;
  while (rc == HX_OK) {
    if ((rc = hx_gsrc_own_faces(g, &pos, &fb)) || !fb) break;
    for (hx_lid q = 0; q < fb->count; q++) bc_record(c, &fb->f[q], buf + 8 * (size_t)q);
    rc = hx_io_pwrite(fd, buf, (size_t)fb->count * 64, fstart + 8 + 64 * fk, path);
    fk += fb->count;
  }
  hx_free(&buf);
  if (g->rank != 0 && fd >= 0) close(fd);
  rc = hx_comm_agree(comm, rc);
  if (g->rank == 0) {
    struct stat st = {0};
    if (rc == HX_OK && (fstat(fd, &st) != 0 || st.st_size != end))
      rc = HX_ERROR(HX_ERR_IO, "'%s' has %lld bytes, expected %lld: do all ranks see the same file system?", path,
                    (long long)st.st_size, (long long)end);
    if (rc == HX_OK) rc = hx_outfile_commit(&f);
    else hx_outfile_abort(&f);
  }
  rc = hx_comm_agree(comm, rc);
  return rc;
}

/* .co2: #v001 header (a5,3i12) in 132 bytes, float32 6.54321, per element int32
   element number and the 8 vertex ids (1-based, symmetric = hexpack corner order). */
static int write_co2(re2_ctx *c, const char *path) {
  hx_gid ne = c->g.num_elem;
  hx_idmap vm;
  size_t n = (size_t)ne * 8;
  HX_CALL(hx_idmap_init_range(&vm, c->g.vert_lo, c->g.vert_hi, n / 4 + 16));
  hx_outfile f;
  int rc = hx_outfile_open(&f, path);
  if (rc) {
    hx_idmap_free(&vm);
    return rc;
  }
  char hdr[133];
  snprintf(hdr, sizeof hdr, "%5s%12lld%12lld%12d", "#v001", (long long)ne, (long long)ne, 8);
  size_t l = strlen(hdr);
  memset(hdr + l, ' ', 132 - l);
  rc = hx_outfile_write(&f, hdr, 132);
  float test = 6.54321f;
  if (rc == HX_OK) rc = hx_outfile_write(&f, &test, 4);
  int64_t next = 1;
  const hx_gblock *b = NULL;
  if (rc == HX_OK) rc = hx_gsrc_pass(&c->g, HX_GS_VERT);
  while (rc == HX_OK && (rc = hx_gsrc_next(&c->g, &b)) == HX_OK && b) {
    for (hx_lid e = 0; e < b->count && rc == HX_OK; e++) {
      int32_t rec[9];
      rec[0] = (int32_t)(b->e0 + e + 1);
      for (int cc = 0; cc < 8; cc++) {
        int64_t id = next;
        int ins = hx_idmap_insert(&vm, b->view.vert_id[(size_t)e * 8 + cc], &id);
        if (ins < 0) rc = -ins;
        if (ins == 1) next++;
        rec[1 + cc] = (int32_t)id;
      }
      if (rc == HX_OK) rc = hx_outfile_write(&f, rec, sizeof rec);
    }
  }
  hx_idmap_free(&vm);
  if (rc == HX_OK) return hx_outfile_commit(&f);
  hx_outfile_abort(&f);
  return rc;
}

/* Nek field file with the mesh coordinates ('X'), word size 8, written by
   every rank at once: its records have a fixed size, so each rank puts its own element
   numbers and coordinates at their offsets (pwrite) in the file rank 0 created (header
   only), evaluating its elements a block at a time (hx_elemsrc: its own nodes, its lazy
   order-N geometry, or curving). Rank 0 then checks the size (a rank that wrote to
   another file system would leave a short file) and renames. Collective. */
static int write_field(const hx_mesh *m, const char *path, int order, int force, uint64_t *sum) {
  int rank = hx_comm_rank(m->comm), nd = order + 1;
  hx_gid ne = m->num_elem_global;
  size_t npe = (size_t)nd * nd * nd;
  const off_t head = 136, data = head + (off_t)4 * ne;
  hx_outfile f;
  char tmp[4200] = "";
  int rc = HX_OK;
  uint64_t local = 0;
  if (rank == 0) {
    rc = hx_outfile_open(&f, path);
    if (rc == HX_OK) {
      char hdr[133];
      snprintf(hdr, sizeof hdr, "#std %1d %2d %2d %2d %10lld %10lld %20.13E %9d %6d %6d %s", 8, nd, nd, nd, (long long)ne,
               (long long)ne, 0.0, 0, 0, 1, "X");
      size_t l = strlen(hdr);
      memset(hdr + l, ' ', 132 - l);
      float test = 6.54321f;
      rc = hx_outfile_write(&f, hdr, 132);
      if (rc == HX_OK) rc = hx_outfile_write(&f, &test, 4);
      if (rc == HX_OK && fflush(f.fp) != 0) rc = HX_ERROR(HX_ERR_IO, "writing '%s' failed: %s", path, strerror(errno));
      if (rc != HX_OK) hx_outfile_abort(&f);
      else snprintf(tmp, sizeof tmp, "%s", f.tmp);
    }
  }
  rc = hx_comm_agree(m->comm, rc);
  if (rc == HX_OK) rc = hx_comm_bcast(m->comm, tmp, sizeof tmp, 0);
  if (rc != HX_OK) return rc;
  int fd = rank == 0 ? fileno(f.fp) : open(tmp, O_WRONLY);
  if (fd < 0) rc = HX_ERROR(HX_ERR_IO, "cannot open '%s' (the field file being written by rank 0): %s", tmp, strerror(errno));
  hx_elemsrc src;
  int opened = 0;
  if (rc == HX_OK) rc = hx_elemsrc_open(m, order, force, &src);
  opened = rc == HX_OK;
  int32_t *ids = NULL;
  if (rc == HX_OK) rc = hx_malloc((size_t)(src.block > 0 ? src.block : 1) * sizeof *ids, &ids);
  hx_progress prog;
  hx_progress_start(&prog, "writing the field file", m->num_elem);
  for (hx_lid e0 = 0; rc == HX_OK && e0 < m->num_elem; e0 += src.block) {
    hx_lid cnt = m->num_elem - e0 < src.block ? m->num_elem - e0 : src.block;
    const hx_mesh *v;
    hx_gid g0 = m->elem_offset + e0;
    rc = hx_elemsrc_get(&src, e0, cnt, &v);
    for (hx_lid e = 0; rc == HX_OK && e < cnt; e++) ids[e] = (int32_t)(g0 + e + 1);
    if (rc == HX_OK) rc = hx_io_pwrite(fd, ids, (size_t)cnt * 4, head + (off_t)4 * g0, path);
    /* per element: all x, then all y, then all z = the E-vector layout */
    if (rc == HX_OK) rc = hx_io_pwrite(fd, v->x, (size_t)cnt * 3 * npe * sizeof(double), data + (off_t)(24 * npe) * g0, path);
    if (rc == HX_OK) {
      uint64_t s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
      for (hx_lid e = 0; e < cnt; e++) s += re2_field_sum(v->x + (size_t)e * 3 * npe, 3 * npe, (uint64_t)(g0 + e) * 3 * npe);
      local += s;
    }
    hx_progress_update(&prog, e0 + cnt);
  }
  hx_progress_finish(&prog);
  hx_free(&ids);
  if (opened) hx_elemsrc_close(&src);
  if (rank != 0 && fd >= 0) close(fd);
  rc = hx_comm_agree(m->comm, rc);
  if (rank == 0) {
    struct stat st = {0};
    off_t want = data + (off_t)(24 * npe) * ne;
    if (rc == HX_OK && (fstat(fd, &st) != 0 || st.st_size != want))
      rc = HX_ERROR(HX_ERR_IO, "'%s' has %lld bytes, expected %lld: do all ranks see the same file system?", path,
                    (long long)st.st_size, (long long)want);
    if (rc == HX_OK) rc = hx_outfile_commit(&f);
    else hx_outfile_abort(&f);
  }
  rc = hx_comm_agree(m->comm, rc);
  /* the ranks' sums in two 32-bit halves, each sum exact in 64 bits */
  int64_t halves[2] = {(int64_t)(local & 0xffffffffu), (int64_t)(local >> 32)};
  if (rc == HX_OK) rc = hx_comm_sum_int64(m->comm, halves, 2);
  *sum = (uint64_t)halves[0] + ((uint64_t)halves[1] << 32);
  return rc;
}

/* the nodes at order `order` and the check: Nek at that order (the .par line the writer prints);
   an order-1 mesh at N = 3 and 7 */
static int check_setup(re2_ctx *c, int order) {
  double w[HX_MAX_ND];
  HX_CALL(hx_gll(order + 1, c->gll, w));
  for (int a = 0; a <= order; a++) {
    c->gll_den[a] = 1.0;
    for (int b = 0; b <= order; b++)
      if (b != a) c->gll_den[a] *= c->gll[a] - c->gll[b];
  }
  c->nchk = order >= 2 ? 1 : 2;
  c->chk_nd[0] = order >= 2 ? order + 1 : 4, c->chk_nd[1] = 8;
  for (int h = 0; h < c->nchk; h++) {
    HX_CALL(hx_gll(c->chk_nd[h], c->chk_g[h], w));
    hx_lagrange_matrices(c->chk_nd[h], c->chk_g[h], c->chk_nd[h], c->chk_g[h], NULL, c->chk_G[h]);
  }
  return HX_OK;
}

struct hx_re2_rule {
  re2_ctx c;
};

int hx_re2_rule_create(const hx_mesh *m, hx_re2_rule **out) {
  *out = NULL;
  hx_re2_rule *r = NULL;
  HX_CALL(hx_malloc(sizeof *r, &r));
  memset(r, 0, sizeof *r);
  r->c.m = m;
  r->c.order = m->lazy ? m->lazy->order : m->order; /* a lazy mesh's elements come at its geometry's order */
  int rc = check_setup(&r->c, r->c.order);
  if (rc) hx_free(&r);
  *out = r;
  return rc;
}

int hx_re2_rule_ok(const hx_re2_rule *r, const double *xe, const int32_t bsurf[6]) {
  hx_mesh v = *r->c.m; /* a one-element view of xe */
  v.x = (double *)xe;
  v.num_elem = 1;
  v.order = r->c.order, v.nd = r->c.order + 1;
  v.lazy = NULL;
  return elem_choose(&r->c, &v, 0, bsurf) != RE2_SET_NONE;
}

void hx_re2_rule_destroy(hx_re2_rule **r) { hx_free(r); }

int hx_re2_guard_open(const hx_mesh *m, hx_re2_guard *g, hx_re2_guard_fn *ok, void **ok_ctx) {
  memset(g, 0, sizeof *g);
  HX_CALL(hx_malloc(((size_t)m->num_elem * 6 + 1) * sizeof *g->bsurf, &g->bsurf));
  for (size_t i = 0; i < (size_t)m->num_elem * 6; i++) g->bsurf[i] = -1;
  for (hx_lid k = 0; k < m->num_faces; k++) g->bsurf[(size_t)m->faces[k].elem * 6 + m->faces[k].face] = m->faces[k].surf;
  int rc = hx_re2_rule_create(m, &g->rule);
  if (rc) {
    hx_free(&g->bsurf);
    return rc;
  }
  *ok = hx_re2_guard_ok, *ok_ctx = g;
  return HX_OK;
}

int hx_re2_guard_ok(void *ctx, hx_lid e, const double *xe) {
  const hx_re2_guard *g = ctx;
  return hx_re2_rule_ok(g->rule, xe, g->bsurf + (size_t)e * 6);
}

void hx_re2_guard_close(hx_re2_guard *g, hx_re2_guard_fn *ok, void **ok_ctx) {
  hx_re2_rule_destroy(&g->rule);
  hx_free(&g->bsurf);
  *ok = NULL, *ok_ctx = NULL;
}

int hx_re2_field_path(const char *re2_path, char *out, size_t cap) {
  size_t l = strlen(re2_path);
  if (l > 4 && !strcmp(re2_path + l - 4, ".re2")) l -= 4;
  HX_CHECK(l + 10 < cap, HX_ERR_INPUT, "path too long: %s", re2_path);
  snprintf(out, cap, "%.*s0.f00000", (int)l, re2_path);
  return HX_OK;
}

int hx_export_re2(const hx_mesh *m, const char *path, const hx_export_opts *o) {
  hx_export_opts def;
  if (!o) {
    hx_export_opts_default(&def);
    o = &def;
  }
  re2_ctx c;
  memset(&c, 0, sizeof c);
  c.m = m;
  int order = hx_io_out_order(m, o);
  c.order = order;
  HX_CALL(hx_gsrc_open(m, order, hx_io_skip_detj(o), &c.g));
  /* the .re2, its .co2 and its field file get their final names together, the .re2 last */
  hx_outset_begin();
  int round0 = hx_outset_round(HX_OUT_COMPANION);
  int root = c.g.root, rc = HX_OK, maxb = 0;
  char co2[4200];
  size_t l = strlen(path);
  if (l > 4 && !strcmp(path + l - 4, ".re2")) l -= 4;
  snprintf(co2, sizeof co2, "%.*s.co2", (int)l, path);
  rc = check_setup(&c, order);
  c.force = o->force;
  c.first_bad = -1;
  maxb = m->num_bnames > c.g.max_bid + 1 ? m->num_bnames : c.g.max_bid + 1;
  if (rc == HX_OK) rc = hx_malloc(((size_t)maxb + 1) * sizeof(int), &c.bmap);
  if (rc == HX_OK) {
    memset(c.bmap, 0, ((size_t)maxb + 1) * sizeof(int));
    /* contiguous ids 1..n in increasing order of our ids (NekRS wants no gaps; bid_count is global) */
    for (int b = 1; b <= c.g.max_bid; b++)
      if (c.g.bid_count[b]) c.bmap[b] = ++c.nb;
  }
  if (c.g.size > 1 && !o->co2) { /* every rank writes its part of the .re2 */
    rc = hx_comm_agree(m->comm, rc);
    if (rc == HX_OK) rc = write_re2_own(&c, path);
    hx_gsrc_own_close(&c.g);
    goto field;
  }
  if (!root) { /* serve rank 0's .re2 and .co2, then write the field file together */
    rc = hx_gsrc_serve(&c.g);
    goto field;
  }
  hx_outfile f;
  if (rc == HX_OK) rc = hx_outfile_open(&f, path);
  if (rc == HX_OK) {
    f.round = HX_OUT_PRIMARY; /* renamed after its field file */
    snprintf(c.tmp, sizeof c.tmp, "%s", f.tmp);
    rc = write_re2(&c, &f);
    if (rc == HX_OK) rc = hx_outfile_commit(&f);
    else hx_outfile_abort(&f);
  }
  if (rc == HX_OK && o->co2) rc = write_co2(&c, co2);
  rc = hx_gsrc_close(&c.g, rc);
field:; /* the order-N geometry, every rank writing its own elements */
  char fld[4200];
  if (rc == HX_OK && order >= 2) {
    uint64_t sum = 0;
    rc = hx_re2_field_path(path, fld, sizeof fld);
    if (rc == HX_OK) rc = write_field(m, fld, order, hx_io_skip_detj(o), &sum);
    if (rc == HX_OK && root) { /* the field file's checksum into the .re2's header */
      char hdr[81];
      re2_header(m->num_elem_global, 1, sum, hdr);
      int fd = open(c.tmp, O_WRONLY);
      if (fd < 0) rc = HX_ERROR(HX_ERR_IO, "cannot open '%s' again: %s", c.tmp, strerror(errno));
      else {
        rc = hx_io_pwrite(fd, hdr, 80, 0, path);
        if (close(fd) != 0 && rc == HX_OK) rc = HX_ERROR(HX_ERR_IO, "writing '%s' failed: %s", path, strerror(errno));
      }
    }
    rc = hx_comm_agree(m->comm, rc);
  }
  hx_outset_round(round0);
  rc = hx_outset_end(m->comm, rc);
  if (rc == HX_OK && root) {
    curves_note(&c, path);
    int mapped = 0;
    for (int b = 1; b < maxb; b++) mapped |= c.bmap[b] && c.bmap[b] != b;
    if (mapped || hx_verbosity() > 0) {
      fprintf(stderr, "%s: boundary ids renumbered for NekRS (ours -> .re2):", path);
      for (int b = 1; b < maxb; b++)
        if (c.bmap[b])
          fprintf(stderr, " %d->%d%s%s", b, c.bmap[b], b < m->num_bnames && m->bnames[b] ? "/" : "",
                  b < m->num_bnames && m->bnames[b] ? m->bnames[b] : "");
      fprintf(stderr, "\n");
    }
    if (order >= 2) {
      const char *slash = strrchr(fld, '/');
      fprintf(stderr,
              "%s: order-%d GLL geometry in %s; .par: [GENERAL] polynomialOrder = %d, "
              "startFrom = %s X (NekRS: startFrom = \"%s+X\")\n",
              path, order, fld, order, slash ? slash + 1 : fld, slash ? slash + 1 : fld);
    }
  }
  hx_free(&c.bmap);
  hx_free(&c.eset);
  return rc;
}
