/* A lower bound of det J on a whole curved hex, and the verdict proven / not proven /
   invalid (the contract is in hx_detj_bound.h).

   design:
   1. the context holds, for order p, the matrix Wg taking values at the p + 1 GLL nodes
      to Bernstein coefficients of degree p, and binomial tables;
   2. per element, the coordinates (less their mean) go to Bernstein coefficients (Wg
      along each direction), the 9 Jacobian entries follow exactly (a derivative of a
      Bernstein polynomial is p times the differences of its coefficients), and
      det J = sum_c J[c][0] (J[c1][1] J[c2][2] - J[c2][1] J[c1][2]) is formed by products
      in the Bernstein basis: with coefficients scaled by their binomials, a product is a
      plain 3D convolution (degrees add: (p-1) + p + p = 3p - 1 per direction);
   3. the smallest coefficient bounds det J below; the corner coefficients of every box
      are det J at its corners, so they bound its minimum above;
   4. where the bound is not positive and no value is <= 0, the box is split in half along
      the direction where its coefficients vary most (de Casteljau), depth first, the
      child with the smaller coefficient first, until every box is proven, a corner value
      <= 0 is confirmed by evaluating det J there from the nodes (invalid), or a limit
      (depth, subdivisions, tolerance) is reached (not proven);
   5. a box counts as proven only when its bound exceeds a rounding margin,
      32 (kappa + 3p) eps H, with kappa = |Wg|_inf^3 and H the sum over the six terms of
      det J of the products of the largest coefficients of their factors.
   Why products and not samples: sampling det J at 3p points per direction and converting
   the values with the Bernstein-Vandermonde inverse (Johnen et al.'s route) amplifies the
   rounding of the values by up to |V^-1|_inf^3 (3e9 at p = 4, 4e17 at p = 7 on Chebyshev-
   Lobatto points); measured against quad precision on a smooth element, those coefficients
   were off by 4e-8 of their size at p = 4, 7e-3 at p = 6 and 2.5 at p = 7, where the
   products are off by 4e-15, 3e-14 and 8e-14 (2e-13 at p = 8). Products of Bernstein
   polynomials are sums with positive weights; the one ill-conditioned step, GLL values to
   Bernstein at degree p, is small (kappa = 1.7e3 at p = 4, 7e5 at p = 7, 1.2e14 at p = 16,
   where the margin is near the scale and only well-shaped elements are proven). */
#include "hx_detj_bound.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "hx_mesh.h"

const char *hx_validity_name(int verdict) {
  switch (verdict) {
  case HX_VALID_PROVEN: return "proven";
  case HX_VALID_NOT_PROVEN: return "not proven";
  case HX_INVALID: return "invalid";
  default: return "unknown";
  }
}

void hx_detj_bound_opts_default(hx_detj_bound_opts *o) {
  memset(o, 0, sizeof *o);
  o->max_depth = 18;
  o->max_splits = 2000;
  o->tol = 1e-9;
}

/* a box of the subdivision: [lo, lo + w] per direction, its coefficients in block[slot] */
typedef struct box {
  double lo[3], w[3];
  double cmin; /* smallest coefficient */
  int depth;
} box;

struct hx_detj_bound_ctx {
  hx_detj_bound_opts o;
  int order, nd, n;
  double kappa;         /* |Wg|_inf^3: how much the GLL -> Bernstein step may amplify rounding */
  double xg[HX_MAX_ND]; /* GLL nodes of the geometry */
  double *Wg;           /* [nd][nd] values at the GLL nodes -> Bernstein coefficients of degree p */
  double *binom;        /* [n + 1][n + 1] binomial coefficients C(m, k) at m * (n + 1) + k */
  /* scratch */
  double *P, *tmp; /* [3][nd^3] Bernstein coefficients of the coordinates; [nd^3] */
  double *Jh;      /* [9][p nd^2] scaled coefficients of J[c][d] = dx_c / dxi_d */
  double *Ch;      /* [(2p + 1) (2p)^2] scaled coefficients of one cofactor */
  double *blocks;  /* [cap][n^3] coefficient blocks of the boxes on the stack */
  box *stack;      /* [cap] */
  int *slot;       /* [cap] stack position -> block */
  int cap;
};

/* out = M applied along direction d of in (dims n0 x n1 x n2, index i + n0 (j + n1 k));
   M is [m][n_d]; the output has n_d replaced by m. */
static void contract(int d, int m, const double *M, int n0, int n1, int n2, const double *in, double *out) {
  if (d == 0) {
    for (int k = 0; k < n2; k++)
      for (int j = 0; j < n1; j++) {
        const double *u = in + n0 * (j + n1 * k);
        double *v = out + m * (j + n1 * k);
        for (int q = 0; q < m; q++) {
          double s = 0;
          for (int a = 0; a < n0; a++) s += M[q * n0 + a] * u[a];
          v[q] = s;
        }
      }
  } else if (d == 1) {
    for (int k = 0; k < n2; k++)
      for (int q = 0; q < m; q++) {
        double *v = out + n0 * (q + m * k);
        for (int i = 0; i < n0; i++) v[i] = 0;
        for (int b = 0; b < n1; b++) {
          double c = M[q * n1 + b];
          const double *u = in + n0 * (b + n1 * k);
          for (int i = 0; i < n0; i++) v[i] += c * u[i];
        }
      }
  } else {
    int s01 = n0 * n1;
    for (int q = 0; q < m; q++) {
      double *v = out + s01 * q;
      for (int i = 0; i < s01; i++) v[i] = 0;
      for (int c = 0; c < n2; c++) {
        double w = M[q * n2 + c];
        const double *u = in + s01 * c;
        for (int i = 0; i < s01; i++) v[i] += w * u[i];
      }
    }
  }
}

/* inverse of the n x n matrix A (destroyed) into X by Gauss-Jordan with partial pivoting */
static int invert(int n, double *A, double *X) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) X[i * n + j] = i == j;
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(A[r * n + c]) > fabs(A[p * n + c])) p = r;
    HX_CHECK(A[p * n + c] != 0, HX_ERR_INTERNAL, "detj bound: singular Bernstein-Vandermonde matrix (n = %d)", n);
    for (int j = 0; j < n; j++) {
      double s = A[c * n + j];
      A[c * n + j] = A[p * n + j];
      A[p * n + j] = s;
      s = X[c * n + j];
      X[c * n + j] = X[p * n + j];
      X[p * n + j] = s;
    }
    double d = 1 / A[c * n + c];
    for (int j = 0; j < n; j++) {
      A[c * n + j] *= d;
      X[c * n + j] *= d;
    }
    for (int r = 0; r < n; r++) {
      if (r == c || A[r * n + c] == 0) continue;
      double f = A[r * n + c];
      for (int j = 0; j < n; j++) {
        A[r * n + j] -= f * A[c * n + j];
        X[r * n + j] -= f * X[c * n + j];
      }
    }
  }
  return HX_OK;
}

int hx_detj_bound_ctx_create(int order, const hx_detj_bound_opts *o, hx_detj_bound_ctx **out) {
  HX_CHECK(order >= 1 && order <= HX_MAX_ORDER, HX_ERR_INPUT, "detj bound: order %d outside 1..%d", order, HX_MAX_ORDER);
  HX_CHECK(o->max_depth >= 0 && o->max_depth <= 60, HX_ERR_INPUT, "detj bound: max depth %d outside 0..60", o->max_depth);
  HX_CHECK(o->max_splits >= 0, HX_ERR_INPUT, "detj bound: max subdivisions %d is negative", o->max_splits);
  HX_CHECK(o->tol >= 0, HX_ERR_INPUT, "detj bound: tolerance %g is negative", o->tol);
  hx_detj_bound_ctx *bc;
  HX_CALL(hx_malloc(sizeof *bc, &bc));
  int p = order, nd = p + 1, n = 3 * p, n3 = n * n * n, npe = nd * nd * nd;
  bc->o = *o;
  bc->order = p;
  bc->nd = nd;
  bc->n = n;
  bc->cap = o->max_depth + 2;
  /* one allocation for every array of doubles */
  size_t nt = 2 * (size_t)nd * nd + (size_t)(n + 1) * (n + 1) + 4 * (size_t)npe + 9 * (size_t)p * nd * nd +
              (size_t)(2 * p + 1) * 4 * p * p + (size_t)bc->cap * n3;
  double *d = NULL;
  int rc = hx_malloc(nt * sizeof *d, &d);
  if (rc == HX_OK) rc = hx_malloc((size_t)bc->cap * sizeof *bc->stack, &bc->stack);
  if (rc == HX_OK) rc = hx_malloc((size_t)bc->cap * sizeof *bc->slot, &bc->slot);
  bc->Wg = d;
  if (rc == HX_OK) rc = hx_gll(nd, bc->xg, bc->Wg); /* Wg as scratch for the weights */
  if (rc != HX_OK) {
    hx_detj_bound_ctx_destroy(&bc);
    return rc;
  }
  double *V = bc->Wg + nd * nd; /* [nd][nd], used here only */
  bc->binom = V + nd * nd;
  bc->P = bc->binom + (n + 1) * (n + 1);
  bc->tmp = bc->P + 3 * npe;
  bc->Jh = bc->tmp + npe;
  bc->Ch = bc->Jh + 9 * p * nd * nd;
  bc->blocks = bc->Ch + (2 * p + 1) * 4 * p * p;
  for (int s = 0; s < bc->cap; s++) bc->slot[s] = s;
  for (int m = 0; m <= n; m++) {
    double *row = bc->binom + m * (n + 1);
    row[0] = 1;
    for (int k = 1; k <= m; k++) row[k] = row[k - 1] * (m - k + 1) / k; /* exact: integers below 2^53 */
  }
  /* V[q][k] = C(p, k) t_q^k (1 - t_q)^(p-k) at the GLL nodes t_q; Wg = V^-1 */
  for (int q = 0; q < nd; q++)
    for (int k = 0; k < nd; k++) V[q * nd + k] = bc->binom[p * (n + 1) + k] * pow(bc->xg[q], k) * pow(1 - bc->xg[q], p - k);
  if ((rc = invert(nd, V, bc->Wg)) != HX_OK) {
    hx_detj_bound_ctx_destroy(&bc);
    return rc;
  }
  double wn = 0;
  for (int k = 0; k < nd; k++) {
    double s = 0;
    for (int q = 0; q < nd; q++) s += fabs(bc->Wg[k * nd + q]);
    wn = fmax(wn, s);
  }
  bc->kappa = wn * wn * wn;
  *out = bc;
  return HX_OK;
}

void hx_detj_bound_ctx_destroy(hx_detj_bound_ctx **bc) {
  if (!bc || !*bc) return;
  hx_free(&(*bc)->Wg);
  hx_free(&(*bc)->stack);
  hx_free(&(*bc)->slot);
  hx_free(bc);
}

int hx_detj_bound_ctx_size(const hx_detj_bound_ctx *bc) { return bc->n; }

void hx_detj_bound_ctx_basis(const hx_detj_bound_ctx *bc, const double **Wg, const double **xg, double *kappa) {
  *Wg = bc->Wg;
  *xg = bc->xg;
  *kappa = bc->kappa;
}

double hx_detj_bound_margin(const hx_detj_bound_ctx *bc, double H, double cmax) {
  return 32 * (bc->kappa + bc->n) * DBL_EPSILON * fmax(H, cmax);
}

/* out [N0][N1][N2] += a (dims a0 a1 a2) * b (dims b0 b1 b2) as a 3D convolution,
   N_d = a_d + b_d - 1: the product of two polynomials in the scaled Bernstein basis */
static void conv_add(const double *restrict a, const int da[3], const double *restrict b, const int db[3], double sign,
                     double *restrict out) {
  int N0 = da[0] + db[0] - 1, N1 = da[1] + db[1] - 1;
  for (int k = 0; k < da[2]; k++)
    for (int j = 0; j < da[1]; j++)
      for (int i = 0; i < da[0]; i++) {
        double av = sign * a[i + da[0] * (j + da[1] * k)];
        if (av == 0) continue;
        for (int kk = 0; kk < db[2]; kk++)
          for (int jj = 0; jj < db[1]; jj++) {
            const double *restrict bb = b + db[0] * (jj + db[1] * kk);
            double *restrict o = out + i + N0 * ((j + jj) + N1 * (k + kk));
            for (int ii = 0; ii < db[0]; ii++) o[ii] += av * bb[ii];
          }
      }
}

/* Bernstein coefficients of det J into coef [n^3]; returns the rounding scale H (the sum
   over the six terms of det J of the products of their factors' largest coefficients) */
static double bernstein_detj(hx_detj_bound_ctx *bc, const double *x, double *coef) {
  int p = bc->order, nd = bc->nd, n = bc->n, npe = nd * nd * nd, nJ = p * nd * nd, L = n + 1;
  const double *bn = bc->binom;
  double jmax[3][3];
  for (int c = 0; c < 3; c++) {
    /* coordinates less their mean (det J does not see a shift; the rounding does) */
    const double *xc = x + (size_t)c * npe;
    double mean = 0;
    for (int a = 0; a < npe; a++) mean += xc[a];
    mean /= npe;
    double *P = bc->P + (size_t)c * npe;
    for (int a = 0; a < npe; a++) P[a] = xc[a] - mean;
    contract(0, nd, bc->Wg, nd, nd, nd, P, bc->tmp);
    contract(1, nd, bc->Wg, nd, nd, nd, bc->tmp, P);
    contract(2, nd, bc->Wg, nd, nd, nd, P, bc->tmp);
    memcpy(P, bc->tmp, (size_t)npe * sizeof *P);
    /* d/dxi_d of sum P_i b^p_i = p sum (P_{i+1} - P_i) b^{p-1}_i, then scaled by the
       binomials of its degrees: p - 1 along d, p along the others */
    for (int dd = 0; dd < 3; dd++) {
      int dim[3] = {nd, nd, nd}, st = dd == 0 ? 1 : (dd == 1 ? nd : nd * nd);
      dim[dd] = p;
      double *Jh = bc->Jh + (size_t)(3 * c + dd) * nJ, mx = 0;
      for (int k = 0; k < dim[2]; k++)
        for (int j = 0; j < dim[1]; j++)
          for (int i = 0; i < dim[0]; i++) {
            int a = i + nd * (j + nd * k), idx[3] = {i, j, k};
            double v = p * (P[a + st] - P[a]);
            mx = fmax(mx, fabs(v));
            double s = 1;
            for (int e = 0; e < 3; e++) s *= bn[(dim[e] - 1) * L + idx[e]];
            Jh[i + dim[0] * (j + dim[1] * k)] = v * s;
          }
      jmax[c][dd] = mx;
    }
  }
  int n3 = n * n * n, nC = (2 * p + 1) * 4 * p * p;
  memset(coef, 0, (size_t)n3 * sizeof *coef);
  int d0[3] = {p, nd, nd}, d1[3] = {nd, p, nd}, d2[3] = {nd, nd, p}, dC[3] = {2 * p + 1, 2 * p, 2 * p};
  double H = 0;
  /* det J = sum_c J[c][0] (J[c1][1] J[c2][2] - J[c2][1] J[c1][2]), (c, c1, c2) cyclic */
  for (int c = 0; c < 3; c++) {
    int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
    memset(bc->Ch, 0, (size_t)nC * sizeof *bc->Ch);
    conv_add(bc->Jh + (size_t)(3 * c1 + 1) * nJ, d1, bc->Jh + (size_t)(3 * c2 + 2) * nJ, d2, 1.0, bc->Ch);
    conv_add(bc->Jh + (size_t)(3 * c2 + 1) * nJ, d1, bc->Jh + (size_t)(3 * c1 + 2) * nJ, d2, -1.0, bc->Ch);
    conv_add(bc->Jh + (size_t)(3 * c) * nJ, d0, bc->Ch, dC, 1.0, coef);
    H += jmax[c][0] * (jmax[c1][1] * jmax[c2][2] + jmax[c2][1] * jmax[c1][2]);
  }
  /* unscale: degree n - 1 in each direction */
  const double *bN = bn + (n - 1) * L;
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) coef[i + n * (j + n * k)] /= bN[i] * bN[j] * bN[k];
  return H;
}

int hx_detj_bound_bernstein(hx_detj_bound_ctx *bc, const double *x, double *coef) {
  bernstein_detj(bc, x, coef);
  return HX_OK;
}

double hx_detj_bound_eval(const hx_detj_bound_ctx *bc, const double *x, const double xi[3]) {
  int nd = bc->nd, npe = nd * nd * nd;
  double phi[3][HX_MAX_ND], dphi[3][HX_MAX_ND];
  for (int d = 0; d < 3; d++) hx_lagrange_eval(nd, bc->xg, xi[d], phi[d], dphi[d]);
  double J[3][3] = {{0}};
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        double w0 = dphi[0][i] * phi[1][j] * phi[2][k], w1 = phi[0][i] * dphi[1][j] * phi[2][k],
               w2 = phi[0][i] * phi[1][j] * dphi[2][k];
        int a = hx_lex(nd, i, j, k);
        for (int c = 0; c < 3; c++) {
          double v = x[(size_t)c * npe + a];
          J[c][0] += w0 * v;
          J[c][1] += w1 * v;
          J[c][2] += w2 * v;
        }
      }
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

static double block_min(int n3, const double *c) {
  double m = INFINITY;
  for (int p = 0; p < n3; p++) m = fmin(m, c[p]);
  return m;
}

/* the direction along which neighbouring coefficients differ most */
static int split_direction(int n, const double *c) {
  double v[3] = {0, 0, 0};
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        int p = i + n * (j + n * k);
        if (i + 1 < n) v[0] = fmax(v[0], fabs(c[p + 1] - c[p]));
        if (j + 1 < n) v[1] = fmax(v[1], fabs(c[p + n] - c[p]));
        if (k + 1 < n) v[2] = fmax(v[2], fabs(c[p + n * n] - c[p]));
      }
  return v[1] > v[0] ? (v[2] > v[1] ? 2 : 1) : (v[2] > v[0] ? 2 : 0);
}

/* de Casteljau at 1/2 along direction d: L (in place of c) on the lower half, R on the upper */
static void split_half(int n, int d, double *c, double *R) {
  int stride = d == 0 ? 1 : (d == 1 ? n : n * n);
  double a[3 * HX_MAX_ORDER];
  for (int u = 0; u < n; u++)
    for (int v = 0; v < n; v++) {
      /* the line's first coefficient: the two other indices are (u, v) */
      int base = d == 0 ? n * (u + n * v) : (d == 1 ? u + n * n * v : u + n * v);
      for (int k = 0; k < n; k++) a[k] = c[base + k * stride];
      R[base + (n - 1) * stride] = a[n - 1];
      for (int r = 1; r < n; r++) {
        for (int k = 0; k < n - r; k++) a[k] = 0.5 * (a[k] + a[k + 1]);
        c[base + r * stride] = a[0];
        R[base + (n - 1 - r) * stride] = a[n - 1 - r];
      }
    }
}

int hx_detj_bound_elem(hx_detj_bound_ctx *bc, const double *x, hx_detj_bound_result *r) {
  int n = bc->n, n3 = n * n * n;
  double *root = bc->blocks + (size_t)bc->slot[0] * n3;
  double H = bernstein_detj(bc, x, root);
  memset(r, 0, sizeof *r);
  /* the mean coefficient is the element's volume (every Bernstein function has the same
     integral); the mean of their sizes is the scale of the tolerance */
  double csum = 0, cmax = 0;
  for (int p = 0; p < n3; p++) {
    csum += fabs(root[p]);
    cmax = fmax(cmax, fabs(root[p]));
  }
  r->scale = csum / n3;
  r->lower = r->lower0 = block_min(n3, root);
  /* the corner coefficients are values of det J: the smallest bounds the minimum above */
  r->min_found = INFINITY;
  for (int q = 0; q < 8; q++) {
    double v = root[(q & 1 ? n - 1 : 0) + n * ((q & 2 ? n - 1 : 0) + n * (q & 4 ? n - 1 : 0))];
    if (v < r->min_found) {
      r->min_found = v;
      r->xi_min[0] = q & 1;
      r->xi_min[1] = (q >> 1) & 1;
      r->xi_min[2] = (q >> 2) & 1;
    }
  }
  double margin = hx_detj_bound_margin(bc, H, cmax);
  if (r->lower0 > margin) {
    r->verdict = HX_VALID_PROVEN;
    return HX_OK;
  }
  /* depth-first subdivision; stack[0..top] are the boxes still to decide */
  box *st = bc->stack;
  int top = 0, inconclusive = 0, invalid = 0, splits = 0;
  st[0] = (box){{0, 0, 0}, {1, 1, 1}, r->lower0, 0};
  double lower = INFINITY;
  const double tol = bc->o.tol * r->scale;
  while (top >= 0) {
    box *b = &st[top];
    double *c = bc->blocks + (size_t)bc->slot[top] * n3;
    /* corner coefficients are det J at the box's corners */
    double cmin = INFINITY;
    for (int q = 0; q < 8; q++) {
      int i = q & 1 ? n - 1 : 0, j = q & 2 ? n - 1 : 0, k = q & 4 ? n - 1 : 0;
      double v = c[i + n * (j + n * k)];
      double xi[3] = {b->lo[0] + (q & 1 ? b->w[0] : 0), b->lo[1] + (q & 2 ? b->w[1] : 0), b->lo[2] + (q & 4 ? b->w[2] : 0)};
      if (!(v > 0)) v = hx_detj_bound_eval(bc, x, xi); /* confirm from the nodes, not from rounded coefficients */
      cmin = fmin(cmin, v);
      if (v < r->min_found) {
        r->min_found = v;
        memcpy(r->xi_min, xi, sizeof xi);
      }
      if (!(v > 0)) invalid = 1;
    }
    if (invalid) break;
    if (b->cmin > margin) { /* proven on this box */
      lower = fmin(lower, b->cmin);
      top--;
      continue;
    }
    if (b->depth >= bc->o.max_depth || splits >= bc->o.max_splits || cmin - b->cmin <= tol) {
      lower = fmin(lower, b->cmin);
      inconclusive = 1;
      top--;
      continue;
    }
    /* split: the lower half stays in this slot, the upper half goes to the next */
    int d = split_direction(n, c);
    double *R = bc->blocks + (size_t)bc->slot[top + 1] * n3;
    split_half(n, d, c, R);
    splits++;
    box lb = *b, ub = *b;
    lb.w[d] = ub.w[d] = 0.5 * b->w[d];
    ub.lo[d] = b->lo[d] + lb.w[d];
    lb.depth = ub.depth = b->depth + 1;
    lb.cmin = block_min(n3, c);
    ub.cmin = block_min(n3, R);
    /* the child with the smaller coefficient is decided first (on top) */
    if (lb.cmin < ub.cmin) {
      int s = bc->slot[top];
      bc->slot[top] = bc->slot[top + 1];
      bc->slot[top + 1] = s;
      st[top] = ub;
      st[top + 1] = lb;
    } else {
      st[top] = lb;
      st[top + 1] = ub;
    }
    top++;
  }
  /* boxes left undecided (after an invalid point) still bound their part */
  for (int s = 0; s <= top; s++) lower = fmin(lower, st[s].cmin);
  r->lower = lower;
  r->num_splits = splits;
  r->verdict = invalid ? HX_INVALID : (inconclusive ? HX_VALID_NOT_PROVEN : HX_VALID_PROVEN);
  return HX_OK;
}
