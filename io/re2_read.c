/* Nek5000 .re2 reader and Nek's geometry rule.

   design:
   1. header (#v001 single precision; #v002/#v003 fixed columns; #v004 tokens),
      endianness from the float at byte 80 (swapped when needed), element records,
      curved sides, BC sets; every count is checked against the bytes left and every
      error names the byte offset;
   2. geometry at order N: when <base>0.f00000 (the 'X' restart field file our writer
      makes) is beside the file, its GLL coordinates are used as they are; otherwise
      Nek's own rule (core/genxyz.f) regenerates them: the 27-node quadratic element
      from the corners and 'm' midpoints (face and body centres by Gordon-Hall),
      interpolated to GLL; then 's' faces (great-circle edges uniform in angle at the
      GLL fractions, interior face nodes at the intersection of great circles,
      deflection ramped linearly into the element: sphsrf); then 'C' arcs (uniform
      in angle, x-y only, ramped linearly in the two other directions: arcsrf);
   3. node ids by coordinate matching; boundary faces from BC set 1 (id = bc5);
      sphere faces also become sphere surfaces. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "io_impl.h"
#include "re2_impl.h"

typedef struct re2_rcurve {
  int64_t elem;
  int side;
  double c[5];
  char type;
} re2_rcurve;

typedef struct re2_file {
  int64_t nelt, nelv;
  int ndim, W, swap, nbc_hdr;
  double *xc; /* [nelt][3][8] preprocessor corners */
  re2_rcurve *curves;
  int64_t ncurve;
  int64_t nbc;
  double (*bc)[8]; /* set 1: elem, face, bc1..bc5, type word (as raw) */
  char (*bctype)[4];
  int link;      /* the header's field-file link (re2_impl.h): 0 none (another writer), 1 "fld none", 2 a checksum */
  uint64_t fsum; /* link 2: the field file's checksum */
} re2_file;

typedef struct rbuf {
  const hx_infile *in;
  size_t pos;
  int swap;
} rbuf;

static int need(rbuf *b, size_t n, const char *what) {
  HX_CHECK(b->pos <= b->in->size && b->in->size - b->pos >= n, HX_ERR_INPUT,
           "%s: truncated at byte %zu: %s needs %zu bytes, %zu left", b->in->path, b->pos, what, n,
           b->in->size - (b->pos < b->in->size ? b->pos : b->in->size));
  return HX_OK;
}

static double get_real(rbuf *b, int W) {
  unsigned char t[8];
  memcpy(t, b->in->data + b->pos, (size_t)W);
  b->pos += (size_t)W;
  if (b->swap) hx_io_swap(t, 1, (size_t)W);
  if (W == 8) {
    double v;
    memcpy(&v, t, 8);
    return v;
  }
  float v;
  memcpy(&v, t, 4);
  return v;
}

static int64_t get_int(rbuf *b, int W, int *ok) {
  if (W == 8) {
    double v = get_real(b, 8);
    *ok = isfinite(v) && v == floor(v) && fabs(v) < 9e15;
    return *ok ? (int64_t)v : 0;
  }
  unsigned char t[4];
  memcpy(t, b->in->data + b->pos, 4);
  b->pos += 4;
  if (b->swap) hx_io_swap(t, 1, 4);
  int32_t v;
  memcpy(&v, t, 4);
  *ok = 1;
  return v;
}

static void re2_file_free(re2_file *r) {
  hx_free(&r->xc);
  hx_free(&r->curves);
  hx_free(&r->bc);
  hx_free(&r->bctype);
}

static int parse_re2(const hx_infile *in, re2_file *r) {
  const char *path = in->path;
  memset(r, 0, sizeof *r);
  HX_CHECK(in->size >= 84, HX_ERR_INPUT, "%s: %zu bytes is too short for a .re2 file (80-byte header + 4-byte marker)", path,
           in->size);
  char hdr[81];
  memcpy(hdr, in->data, 80);
  hdr[80] = 0;
  HX_CHECK(!strncmp(hdr, "#v00", 4) && hdr[4] >= '1' && hdr[4] <= '4', HX_ERR_INPUT,
           "%s: byte 0: header starts with '%.5s', expected #v001..#v004 (not a Nek5000 .re2 file)", path, hdr);
  int ver = hdr[4] - '0';
  r->W = ver == 1 ? 4 : 8;
  long long nelt = -1, nelv = -1, nbc = 1;
  int ndim = 0;
  if (ver == 4) {
    char v5[8];
    int got = sscanf(hdr, "%5s %lld %d %lld %lld", v5, &nelt, &ndim, &nelv, &nbc);
    HX_CHECK(got >= 4, HX_ERR_INPUT, "%s: byte 5: #v004 header needs nelt ndim nelv [nBC], got '%.40s'", path, hdr + 5);
    if (got < 5) nbc = 1;
  } else {
    char f[16];
    memcpy(f, hdr + 5, 9), f[9] = 0;
    nelt = atoll(f);
    memcpy(f, hdr + 14, 3), f[3] = 0;
    ndim = atoi(f);
    memcpy(f, hdr + 17, 9), f[9] = 0;
    nelv = atoll(f);
    nbc = ver == 3 ? 1 : 0;
  }
  HX_CHECK(ndim == 3, HX_ERR_INPUT, "%s: byte 5: ndim = %d; only 3D meshes are read", path, ndim);
  const char *lk = strstr(hdr, " hdr fld ");
  if (lk) {
    unsigned long long sum = 0;
    char tail[24] = "";
    lk += 9;
    if (!strncmp(lk, "none", 4)) r->link = 1;
    else if (sscanf(lk, "%16llx%23s", &sum, tail) >= 1 && strspn(lk, "0123456789abcdef") == 16) r->link = 2, r->fsum = sum;
    else
      return HX_ERROR(HX_ERR_INPUT,
                      "%s: byte %d: the field-file link 'fld' is followed by '%.16s', expected 16 hex digits or 'none'", path,
                      (int)(lk - hdr), lk);
  }
  HX_CHECK(nelt >= 1 && nelv >= 0 && nelv <= nelt, HX_ERR_INPUT, "%s: byte 5: bad counts nelt %lld nelv %lld", path, nelt, nelv);
  float t;
  memcpy(&t, in->data + 80, 4);
  if (fabsf(t - 6.54321f) > 2e-4f) {
    hx_io_swap(&t, 1, 4);
    HX_CHECK(fabsf(t - 6.54321f) <= 2e-4f, HX_ERR_INPUT,
             "%s: byte 80: endianness marker is not 6.54321 in either byte order (corrupt or not a .re2 file)", path);
    r->swap = 1;
  }
  rbuf b = {in, 84, r->swap};
  int W = r->W;
  size_t rec = (size_t)(1 + 3 * 8) * (size_t)W;
  HX_CHECK((uint64_t)nelt <= (in->size - 84) / rec, HX_ERR_INPUT,
           "%s: byte 84: %lld elements of %zu bytes exceed the %zu bytes left (truncated, or the header is wrong)", path, nelt,
           rec, in->size - 84);
  r->nelt = nelt;
  r->nelv = nelv;
  r->ndim = ndim;
  HX_CALL(hx_malloc((size_t)nelt * 24 * sizeof(double), &r->xc));
  for (int64_t e = 0; e < nelt; e++) {
    size_t at = b.pos;
    int ok;
    (void)get_int(&b, W, &ok); /* group */
    for (int q = 0; q < 24; q++) {
      double v = get_real(&b, W);
      HX_CHECK(isfinite(v), HX_ERR_INPUT, "%s: byte %zu: element %lld has a non-finite coordinate", path,
               at + (size_t)(1 + q) * (size_t)W, (long long)e + 1);
      r->xc[e * 24 + q] = v;
    }
  }
  HX_CALL(need(&b, (size_t)W, "the curve count"));
  size_t at = b.pos;
  int ok;
  int64_t nc = get_int(&b, W, &ok);
  HX_CHECK(ok && nc >= 0, HX_ERR_INPUT, "%s: byte %zu: bad curve count", path, at);
  HX_CHECK((uint64_t)nc <= (in->size - b.pos) / (8 * (size_t)W), HX_ERR_INPUT,
           "%s: byte %zu: %lld curve records exceed the %zu bytes left", path, at, (long long)nc, in->size - b.pos);
  r->ncurve = nc;
  HX_CALL(hx_malloc(((size_t)nc + 1) * sizeof(re2_rcurve), &r->curves));
  for (int64_t q = 0; q < nc; q++) {
    re2_rcurve *c = &r->curves[q];
    at = b.pos;
    int ok1, ok2;
    c->elem = get_int(&b, W, &ok1);
    c->side = (int)get_int(&b, W, &ok2);
    for (int k = 0; k < 5; k++) c->c[k] = get_real(&b, W);
    c->type = in->data[b.pos];
    b.pos += (size_t)W;
    HX_CHECK(ok1 && ok2 && c->elem >= 1 && c->elem <= nelt, HX_ERR_INPUT,
             "%s: byte %zu: curve record %lld names element %lld of %lld", path, at, (long long)q + 1, (long long)c->elem, nelt);
    int maxside = (c->type == 's' || c->type == 'e') ? 6 : (c->type == 'C' ? 8 : 12);
    HX_CHECK(c->side >= 1 && c->side <= maxside, HX_ERR_INPUT, "%s: byte %zu: curve '%c' on side %d (1..%d)", path, at, c->type,
             c->side, maxside);
    HX_CHECK(c->type == 'm' || c->type == 'C' || c->type == 's' || c->type == ' ', HX_ERR_INPUT,
             "%s: byte %zu: curve type '%c' is not supported; known: m, C, s", path, at, c->type);
    for (int k = 0; k < 5; k++)
      HX_CHECK(isfinite(c->c[k]), HX_ERR_INPUT, "%s: byte %zu: curve record %lld has a non-finite parameter", path, at,
               (long long)q + 1);
  }
  /* BC sets: the first one is kept; the others are checked and skipped */
  int64_t sets = nbc != 0 ? (nbc < 0 ? -nbc : nbc) : -1;
  for (int64_t s = 0; sets < 0 ? b.pos < in->size : s < sets; s++) {
    HX_CALL(need(&b, (size_t)W, "a BC count"));
    at = b.pos;
    int64_t n = get_int(&b, W, &ok);
    HX_CHECK(ok && n >= 0 && (uint64_t)n <= (in->size - b.pos) / (8 * (size_t)W), HX_ERR_INPUT,
             "%s: byte %zu: %lld BC records exceed the %zu bytes left", path, at, (long long)n, in->size - b.pos);
    if (s == 0) {
      r->nbc = n;
      HX_CALL(hx_malloc(((size_t)n + 1) * sizeof *r->bc, &r->bc));
      HX_CALL(hx_malloc(((size_t)n + 1) * sizeof *r->bctype, &r->bctype));
    }
    for (int64_t q = 0; q < n; q++) {
      at = b.pos;
      int ok1, ok2;
      int64_t el = get_int(&b, W, &ok1), fc = get_int(&b, W, &ok2);
      double v[5];
      for (int k = 0; k < 5; k++) v[k] = get_real(&b, W);
      const char *ty = in->data + b.pos;
      b.pos += (size_t)W;
      HX_CHECK(ok1 && ok2 && el >= 1 && el <= nelt && fc >= 1 && fc <= 6, HX_ERR_INPUT,
               "%s: byte %zu: BC record %lld names element %lld face %lld (1..%lld, 1..6)", path, at, (long long)q + 1,
               (long long)el, (long long)fc, nelt);
      if (s == 0) {
        r->bc[q][0] = (double)el, r->bc[q][1] = (double)fc;
        for (int k = 0; k < 5; k++) r->bc[q][2 + k] = v[k];
        memcpy(r->bctype[q], ty, 3);
        r->bctype[q][3] = 0;
      }
    }
  }
  return HX_OK;
}

/* ---- Nek's geometry rule -------------------------------------------------------- */

static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
static void norm3(double *v) {
  double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (l > 0) v[0] /= l, v[1] /= l, v[2] /= l;
}

/* point at fraction s along the great circle from unit vectors u1 to u2 (edg3d) */
static void slerp(const double *x1, const double *x2, double s, double *out) {
  double u1[3] = {x1[0], x1[1], x1[2]}, u2[3] = {x2[0], x2[1], x2[2]}, vn[3], bb[3];
  norm3(u1);
  norm3(u2);
  cross3(x1, x2, vn);
  cross3(vn, x1, bb);
  norm3(bb);
  double ct = u1[0] * u2[0] + u1[1] * u2[1] + u1[2] * u2[2];
  if (ct > 1) ct = 1;
  if (ct < -1) ct = -1;
  double th = acos(ct) * s;
  for (int d = 0; d < 3; d++) out[d] = cos(th) * u1[d] + sin(th) * bb[d];
}

static double *X(double *xe, int npe, int c, int nd, int i, int j, int k) { return &xe[c * npe + hx_lex(nd, i, j, k)]; }

/* The element's GLL nodes by Nek's rule. xe: [3][nd^3] out. */
void hx_re2_nek_element(const double *xc, const re2_curve *const *cv, int ncv, int nd, const double *g01, double *xe) {
  int N = nd - 1, npe = nd * nd * nd;
  /* 27-node element: corners, 'm' midpoints (or chord midpoints), Gordon-Hall centres */
  double q[3][27];
  int set[27] = {0};
  for (int s = 0; s < 8; s++) {
    int ijk[3];
    re2_corner_ijk(s, ijk);
    int p = 2 * ijk[0] + 3 * 2 * ijk[1] + 9 * 2 * ijk[2];
    for (int d = 0; d < 3; d++) q[d][p] = xc[d * 8 + s];
    set[p] = 1;
  }
  for (int k = 0; k < ncv; k++)
    if (cv[k]->type == 'm') {
      int a[3], b[3];
      re2_corner_ijk(RE2_EDGE[cv[k]->side][0] - 1, a);
      re2_corner_ijk(RE2_EDGE[cv[k]->side][1] - 1, b);
      int p = (a[0] + b[0]) + 3 * (a[1] + b[1]) + 9 * (a[2] + b[2]);
      for (int d = 0; d < 3; d++) q[d][p] = cv[k]->c[d];
      set[p] = 1;
    }
  /* remaining edge midpoints: chord */
  for (int p = 0; p < 27; p++) {
    int i = p % 3, j = (p / 3) % 3, kk = p / 9;
    int nmid = (i == 1) + (j == 1) + (kk == 1);
    if (set[p] || nmid != 1) continue;
    int a = p - (i == 1) - 3 * (j == 1) - 9 * (kk == 1), b = p + (i == 1) + 3 * (j == 1) + 9 * (kk == 1);
    for (int d = 0; d < 3; d++) q[d][p] = 0.5 * (q[d][a] + q[d][b]);
    set[p] = 1;
  }
  /* face centres: transfinite of a 3x3 face = sum of edge mids / 2 - sum of corners / 4 */
  for (int p = 0; p < 27; p++) {
    int i = p % 3, j = (p / 3) % 3, kk = p / 9;
    if ((i == 1) + (j == 1) + (kk == 1) != 2) continue;
    int dir1, dir2; /* the two mid directions */
    int st[3] = {1, 3, 9}, mid[3] = {i == 1, j == 1, kk == 1}, m2[2], t = 0;
    for (int d = 0; d < 3; d++)
      if (mid[d]) m2[t++] = d;
    dir1 = st[m2[0]], dir2 = st[m2[1]];
    for (int d = 0; d < 3; d++)
      q[d][p] = 0.5 * (q[d][p - dir1] + q[d][p + dir1] + q[d][p - dir2] + q[d][p + dir2]) -
                0.25 * (q[d][p - dir1 - dir2] + q[d][p - dir1 + dir2] + q[d][p + dir1 - dir2] + q[d][p + dir1 + dir2]);
  }
  /* body centre: faces / 2 - edges / 4 + corners / 8 */
  for (int d = 0; d < 3; d++) {
    double fs = q[d][12] + q[d][14] + q[d][10] + q[d][16] + q[d][4] + q[d][22];
    double es = 0, cs = 0;
    for (int p = 0; p < 27; p++) {
      int nm = (p % 3 == 1) + ((p / 3) % 3 == 1) + (p / 9 == 1);
      if (nm == 1) es += q[d][p];
      if (nm == 0) cs += q[d][p];
    }
    q[d][13] = 0.5 * fs - 0.25 * es + 0.125 * cs;
  }
  /* quadratic interpolation to GLL (sum factorization) */
  double L[HX_MAX_ND * 3];
  for (int a = 0; a < nd; a++) {
    double t = g01[a];
    L[3 * a] = 2 * (t - 0.5) * (t - 1), L[3 * a + 1] = -4 * t * (t - 1), L[3 * a + 2] = 2 * t * (t - 0.5);
  }
  for (int d = 0; d < 3; d++) hx_tensor_interp(3, nd, L, q[d], xe + (size_t)d * npe);
  /* 's' faces in preprocessor face order (at order 1 they would only round the corners) */
  for (int pf = 1; pf <= 6 && N > 1; pf++)
    for (int k = 0; k < ncv; k++) {
      if (cv[k]->type != 's' || cv[k]->side != pf) continue;
      const double *ctr = cv[k]->c, R = cv[k]->c[3];
      int f = RE2_FACE_INV[pf], a = f / 2, side = f % 2;
      int b = (a + 1) % 3, c = (a + 2) % 3;
      if (b > c) {
        int t2 = b;
        b = c;
        c = t2;
      }
      double P[HX_MAX_ND][HX_MAX_ND][3];
      /* corners of the face relative to the centre */
      double cr[2][2][3];
      for (int v = 0; v < 2; v++)
        for (int u = 0; u < 2; u++) {
          int ijk[3];
          ijk[a] = side * N, ijk[b] = u * N, ijk[c] = v * N;
          for (int d = 0; d < 3; d++) cr[u][v][d] = *X(xe, npe, d, nd, ijk[0], ijk[1], ijk[2]) - ctr[d];
        }
      double avg[3] = {0, 0, 0};
      for (int d = 0; d < 3; d++) avg[d] = cr[0][0][d] + cr[1][0][d] + cr[0][1][d] + cr[1][1][d];
      for (int t = 0; t < nd; t++) {
        slerp(cr[0][0], cr[1][0], g01[t], P[t][0]);
        slerp(cr[0][1], cr[1][1], g01[t], P[t][N]);
        slerp(cr[0][0], cr[0][1], g01[t], P[0][t]);
        slerp(cr[1][0], cr[1][1], g01[t], P[N][t]);
      }
      for (int v = 1; v < N; v++)
        for (int u = 1; u < N; u++) {
          double vn1[3], vn2[3], p[3];
          cross3(P[0][v], P[N][v], vn1);
          cross3(P[u][0], P[u][N], vn2);
          cross3(vn1, vn2, p);
          if (p[0] * avg[0] + p[1] * avg[1] + p[2] * avg[2] < 0) p[0] = -p[0], p[1] = -p[1], p[2] = -p[2];
          norm3(p);
          memcpy(P[u][v], p, sizeof p);
        }
      for (int v = 0; v < nd; v++)
        for (int u = 0; u < nd; u++) {
          double dx[3];
          int ijk[3];
          ijk[a] = side * N, ijk[b] = u, ijk[c] = v;
          for (int d = 0; d < 3; d++) dx[d] = P[u][v][d] * R + ctr[d] - *X(xe, npe, d, nd, ijk[0], ijk[1], ijk[2]);
          for (int t = 0; t < nd; t++) {
            double zeta = side ? g01[t] : 1.0 - g01[t];
            if (t == (side ? 0 : N)) continue;
            ijk[a] = t;
            for (int d = 0; d < 3; d++) *X(xe, npe, d, nd, ijk[0], ijk[1], ijk[2]) += dx[d] * zeta;
          }
        }
    }
  /* 'C' arcs on edges 1..8 */
  for (int qe = 1; qe <= 8 && N > 1; qe++)
    for (int k = 0; k < ncv; k++) {
      if (cv[k]->type != 'C' || cv[k]->side != qe) continue;
      int s1 = RE2_EDGE[qe][0] - 1, s2 = RE2_EDGE[qe][1] - 1;
      double p1[2] = {xc[s1], xc[8 + s1]}, p2[2] = {xc[s2], xc[8 + s2]};
      double R = cv[k]->c[0];
      double gap = hypot(p1[0] - p2[0], p1[1] - p2[1]);
      if (!(fabs(2 * R) > gap * 1.00001)) continue; /* Nek aborts; checked on read */
      double xs = p2[1] - p1[1], ys = p1[0] - p2[0], xys = hypot(xs, ys);
      double dth = fabs(asin(0.5 * gap / R));
      double mx = 0.5 * (p1[0] + p2[0]), my = 0.5 * (p1[1] + p2[1]);
      double cx = mx - xs / xys * R * cos(dth), cy = my - ys / xys * R * cos(dth);
      double a1 = atan2(p1[1] - cy, p1[0] - cx), a2 = atan2(p2[1] - cy, p2[0] - cx);
      double da = a2 - a1;
      while (da > HX_PI) da -= 2 * HX_PI;
      while (da < -HX_PI) da += 2 * HX_PI;
      int ia[3], ib[3];
      re2_corner_ijk(s1, ia);
      re2_corner_ijk(s2, ib);
      int dir = 0;
      for (int d = 0; d < 3; d++)
        if (ia[d] != ib[d]) dir = d;
      int o1 = (dir + 1) % 3, o2 = (dir + 2) % 3;
      for (int t = 0; t < nd; t++) {
        double s = ia[dir] == 0 ? g01[t] : 1.0 - g01[t]; /* fraction from p1 */
        double ang = a1 + s * da;
        double del[2] = {cx + fabs(R) * cos(ang) - ((1 - s) * p1[0] + s * p2[0]),
                         cy + fabs(R) * sin(ang) - ((1 - s) * p1[1] + s * p2[1])};
        for (int v = 0; v < nd; v++)
          for (int u = 0; u < nd; u++) {
            double w1 = ia[o1] ? g01[u] : 1.0 - g01[u], w2 = ia[o2] ? g01[v] : 1.0 - g01[v];
            int ijk[3];
            ijk[dir] = t, ijk[o1] = u, ijk[o2] = v;
            for (int d = 0; d < 2; d++) *X(xe, npe, d, nd, ijk[0], ijk[1], ijk[2]) += del[d] * w1 * w2;
          }
      }
    }
}

/* ---- field file -------------------------------------------------------------- */

/* the field file's coordinates, and their checksum (re2_impl.h) and the file's size */
static int field_read(const char *path, int64_t nelt, int *order, double **x, uint64_t *sum, size_t *size) {
  hx_infile in;
  HX_CALL(hx_infile_read(&in, path));
  int rc = HX_OK;
  char hdr[133];
  if (in.size < 136) {
    rc = HX_ERROR(HX_ERR_INPUT, "%s: %zu bytes is too short for a Nek field file", path, in.size);
    goto out;
  }
  memcpy(hdr, in.data, 132);
  hdr[132] = 0;
  int wd, nx, ny, nz;
  long long ne, neg;
  char codes[64] = "";
  if (strncmp(hdr, "#std", 4) ||
      sscanf(hdr + 4, "%d %d %d %d %lld %lld %*s %*s %*s %*s %63s", &wd, &nx, &ny, &nz, &ne, &neg, codes) < 7) {
    rc = HX_ERROR(HX_ERR_INPUT, "%s: byte 0: not a Nek field file header ('#std wdsize nx ny nz nel nelg ...')", path);
    goto out;
  }
  if ((wd != 4 && wd != 8) || nx != ny || nx != nz || nx < 2 || nx > HX_MAX_ND || ne != nelt || codes[0] != 'X') {
    rc = HX_ERROR(HX_ERR_INPUT,
                  "%s: byte 0: field file has word size %d, %dx%dx%d nodes, %lld elements, fields '%s'; expected "
                  "coordinates ('X') of %lld elements of one order",
                  path, wd, nx, ny, nz, ne, codes, (long long)nelt);
    goto out;
  }
  float t;
  memcpy(&t, in.data + 132, 4);
  int swap = 0;
  if (fabsf(t - 6.54321f) > 2e-4f) {
    hx_io_swap(&t, 1, 4);
    swap = 1;
    if (fabsf(t - 6.54321f) > 2e-4f) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s: byte 132: endianness marker is not 6.54321", path);
      goto out;
    }
  }
  size_t npe = (size_t)nx * nx * nx, need_b = 136 + 4 * (size_t)ne + (size_t)ne * 3 * npe * (size_t)wd;
  if (in.size < need_b) {
    rc = HX_ERROR(HX_ERR_INPUT, "%s: truncated: %zu bytes, the header needs %zu", path, in.size, need_b);
    goto out;
  }
  rc = hx_malloc((size_t)ne * 3 * npe * sizeof(double), x);
  if (rc) goto out;
  rbuf b = {&in, 136 + 4 * (size_t)ne, swap};
  for (size_t i = 0; i < (size_t)ne * 3 * npe; i++) {
    (*x)[i] = get_real(&b, wd);
    if (!isfinite((*x)[i])) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s: byte %zu: non-finite coordinate", path, b.pos - (size_t)wd);
      hx_free(x);
      goto out;
    }
  }
  /* element order: the int32 ids must be 1..ne in order (we write them so) */
  for (size_t e = 0; e < (size_t)ne; e++) {
    int32_t id;
    memcpy(&id, in.data + 136 + 4 * e, 4);
    if (swap) hx_io_swap(&id, 1, 4);
    if (id != (int32_t)(e + 1)) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s: byte %zu: element %zu is numbered %d; only files in element order are read", path,
                    136 + 4 * e, e + 1, id);
      hx_free(x);
      goto out;
    }
  }
  *order = nx - 1;
  *size = in.size;
  *sum = re2_field_sum(*x, (size_t)ne * 3 * npe, 0);
out:
  hx_infile_free(&in);
  return rc;
}

int hx_nek_field_read(const char *path, int64_t nelt, int *order, double **x) {
  uint64_t sum;
  size_t size;
  return field_read(path, nelt, order, x, &sum, &size);
}

static int cmp_curve(const void *a, const void *b) {
  const re2_rcurve *x = a, *y = b;
  return x->elem < y->elem ? -1 : x->elem > y->elem;
}

int hx_import_re2_at(hx_comm comm, const char *path, int order, hx_mesh **out) {
  hx_infile in;
  HX_CALL(hx_infile_read(&in, path));
  re2_file r;
  int rc = parse_re2(&in, &r);
  hx_infile_free(&in);
  if (rc) {
    re2_file_free(&r);
    return rc;
  }
  hx_mesh *m = NULL;
  double *fx = NULL;
  int64_t *rep = NULL;
  double *all = NULL;
  char fld[4200];
  int have_field = 0;
  if (order <= 0) {
    FILE *fp = NULL;
    rc = hx_re2_field_path(path, fld, sizeof fld);
    if (rc) goto done;
    if (r.link == 2) { /* the .re2 names its field file: it must be there, whole, and the one written with it */
      uint64_t sum = 0;
      size_t size = 0;
      int fnd = 0;
      if (!(fp = fopen(fld, "rb"))) {
        rc = HX_ERROR(HX_ERR_INPUT, "%s: its field file %s is missing (%s): an incomplete set; write it again", path, fld,
                      strerror(errno));
        goto done;
      }
      fclose(fp);
      rc = field_read(fld, r.nelt, &order, &fx, &sum, &size);
      if (rc) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", hx_error_message());
        hx_error_clear();
        rc = HX_ERROR(HX_ERR_INPUT, "%s: its field file is broken: %s", path, msg);
        goto done;
      }
      fnd = order + 1;
      if (size != 136 + 4 * (size_t)r.nelt + (size_t)r.nelt * 3 * fnd * fnd * fnd * 8 || sum != r.fsum) {
        rc = HX_ERROR(HX_ERR_INPUT,
                      "%s: its field file %s is not the one written with it (%s; checksum %016llx, the .re2 expects "
                      "%016llx): from another run, or changed since; write the set again",
                      path, fld, sum != r.fsum ? "other coordinates" : "other size", (unsigned long long)sum,
                      (unsigned long long)r.fsum);
        goto done;
      }
      have_field = 1;
    } else if (r.link == 1) {
      if ((fp = fopen(fld, "rb"))) {
        fclose(fp);
        hx_warn("%s: ignoring %s: the .re2 was written without a field file", path, fld);
      }
    } else if ((fp = fopen(fld, "rb"))) {
      fclose(fp);
      /* use it only when it belongs to this .re2: same elements, same corners */
      if (hx_nek_field_read(fld, r.nelt, &order, &fx) == HX_OK) {
        int same = 1, fnd = order + 1, fnpe = fnd * fnd * fnd;
        for (int64_t e = 0; e < r.nelt && same; e++)
          for (int s8 = 0; s8 < 8 && same; s8++)
            for (int d = 0; d < 3; d++) {
              double a = r.xc[e * 24 + d * 8 + s8], b = fx[((size_t)e * 3 + d) * fnpe + hx_corner_lex(fnd, RE2_PRE[s8])];
              if (fabs(a - b) > 1e-12 * (fabs(a) + 1)) same = 0;
            }
        have_field = same;
        if (!same) {
          hx_warn("%s: ignoring %s: its corners differ from the .re2 (a stale file?)", path, fld);
          hx_free(&fx);
        }
      } else {
        hx_warn("ignoring %s (%s)", fld, hx_error_message());
        hx_error_clear();
      }
    }
    if (!have_field) {
      int curved = 0;
      /* 's' faces stay exact as sphere surfaces of an order-1 mesh; 'm' and 'C' need order 2 */
      for (int64_t q = 0; q < r.ncurve; q++) curved |= r.curves[q].type == 'm' || r.curves[q].type == 'C';
      order = curved ? 2 : 1;
    }
  }
  if (r.nelt > INT32_MAX) {
    rc = HX_ERROR(HX_ERR_INPUT, "%s: %lld elements exceed the 32-bit local index", path, (long long)r.nelt);
    goto done;
  }
  rc = hx_mesh_create(comm, order, (hx_lid)r.nelt, &m);
  if (rc) goto done;
  int nd = m->nd, npe = nd * nd * nd;
  double g01[HX_MAX_ND], w[HX_MAX_ND];
  hx_gll(nd, g01, w);
  qsort(r.curves, (size_t)r.ncurve, sizeof *r.curves, cmp_curve);
  int64_t qc = 0;
  for (int64_t e = 0; e < r.nelt; e++) {
    const re2_rcurve *cv[24];
    int ncv = 0;
    while (qc < r.ncurve && r.curves[qc].elem == e + 1) {
      if (ncv < 24) cv[ncv++] = &r.curves[qc];
      qc++;
    }
    for (int k = 0; k < ncv; k++)
      if (cv[k]->type == 'C') {
        int s1 = RE2_EDGE[cv[k]->side][0] - 1, s2 = RE2_EDGE[cv[k]->side][1] - 1;
        double gap = hypot(r.xc[e * 24 + s1] - r.xc[e * 24 + s2], r.xc[e * 24 + 8 + s1] - r.xc[e * 24 + 8 + s2]);
        if (!(fabs(2 * cv[k]->c[0]) > gap * 1.00001)) {
          rc = HX_ERROR(HX_ERR_INPUT, "%s: element %lld edge %d: arc radius %g is smaller than half the chord %g", path,
                        (long long)e + 1, cv[k]->side, cv[k]->c[0], gap / 2);
          goto done;
        }
      }
    double *xe = hx_mesh_elem_x(m, (hx_lid)e, 0);
    if (have_field) {
      memcpy(xe, fx + (size_t)e * 3 * npe, 3 * (size_t)npe * sizeof(double));
    } else {
      re2_curve kc[24];
      const re2_curve *kp[24];
      for (int k = 0; k < ncv; k++) {
        kc[k].side = cv[k]->side, kc[k].type = cv[k]->type;
        memcpy(kc[k].c, cv[k]->c, sizeof kc[k].c);
        kp[k] = &kc[k];
      }
      hx_re2_nek_element(r.xc + e * 24, kp, ncv, nd, g01, xe);
    }
    for (int k = 0; k < 3 * npe; k++)
      if (!isfinite(xe[k])) { /* finite corners and curve data can still overflow (huge radii, far midpoints) */
        rc = HX_ERROR(HX_ERR_INPUT, "%s: element %lld: its %d curved side(s) give non-finite coordinates", path, (long long)e + 1,
                      ncv);
        goto done;
      }
  }
  /* node ids by coordinates */
  {
    size_t n = (size_t)r.nelt * npe;
    rc = hx_malloc(n * 3 * sizeof(double), &all);
    if (rc == HX_OK) rc = hx_malloc(n * sizeof(int64_t), &rep);
    if (rc) goto done;
    for (size_t p = 0; p < n; p++) {
      size_t e = p / npe, a = p % npe;
      for (int d = 0; d < 3; d++) all[3 * p + d] = m->x[(e * 3 + d) * npe + a];
    }
    double lo[3], hi[3];
    hx_mesh_bbox(m, lo, hi);
    double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    rc = hx_io_merge_points((int64_t)n, all, 1e-9 * (diag > 0 ? diag : 1), rep);
    if (rc) goto done;
    for (size_t p = 0; p < n; p++) m->node_id[p] = rep[p];
    hx_io_set_vert_ids(m);
    rc = hx_io_unify_shared(m);
    if (rc) goto done;
  }
  /* boundary faces and sphere surfaces */
  for (int64_t q = 0; q < r.nbc; q++) {
    const char *ty = r.bctype[q];
    if (!strncmp(ty, "E  ", 3) || !strncmp(ty, "   ", 3)) continue;
    hx_lid e = (hx_lid)r.bc[q][0] - 1;
    int f = RE2_FACE_INV[(int)r.bc[q][1]];
    double b5 = r.bc[q][6];
    int bid = (b5 >= 1 && b5 < 1e6 && b5 == floor(b5)) ? (int)b5 : 1;
    int surf = -1;
    /* curves are sorted by element: binary search for the first of element e+1 */
    int64_t lo = 0, hi = r.ncurve;
    while (lo < hi) {
      int64_t mid = (lo + hi) / 2;
      if (r.curves[mid].elem < e + 1) lo = mid + 1;
      else hi = mid;
    }
    for (int64_t k = lo; k < r.ncurve && r.curves[k].elem == e + 1; k++)
      if (r.curves[k].type == 's' && r.curves[k].side == (int)r.bc[q][1]) {
        const double *c = r.curves[k].c;
        for (int t = 0; t < m->num_surfaces && surf < 0; t++) {
          const hx_surface *o = &m->surfaces[t];
          if (o->type == HX_SURF_SPHERE && o->p[0] == c[0] && o->p[1] == c[1] && o->p[2] == c[2] && o->r == c[3]) surf = t;
        }
        hx_surface s = {HX_SURF_SPHERE, {c[0], c[1], c[2]}, {0, 0, 0}, c[3]};
        if (surf < 0) {
          rc = hx_mesh_add_surface(m, &s, &surf);
          if (rc) goto done;
        }
      }
    rc = hx_mesh_add_face(m, e, f, bid, surf);
    if (rc) goto done;
  }
done:
  hx_free(&fx);
  hx_free(&rep);
  hx_free(&all);
  re2_file_free(&r);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}

int hx_import_re2(hx_comm comm, const char *path, hx_mesh **out) { return hx_import_re2_at(comm, path, 0, out); }
