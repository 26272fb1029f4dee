/* The reference CPU backend: partial assembly of the TMOP operators by sum
   factorization, OpenMP over elements (the maths in hx_kernels.h); the backend every other is tested against.

   design:
   1. Per element, the 3x3 Jacobian A at every quadrature point comes from three
      1D contractions of the nodal values with B (values) and G (derivatives):
      dx_c/dxi_1 = (G x B x B) x_c, dx_c/dxi_2 = (B x G x B) x_c, dx_c/dxi_3 = (B x B x G) x_c.
   2. A point function (the metric, hx_metric_point.h) turns A into a 3x3 flux F per
      point (F = wt P(T) W^{-T} for the gradient, wt dP W^{-T} for the Hessian action).
   3. The transposed contraction sums F back to the nodes: y_{c,b} = sum_q sum_d D_{b,d} F_{cd}.
   Element results go to per-element slots and are reduced serially afterwards,
   so the numbers do not depend on the thread count. Scratch space is allocated
   once per thread in setup; the kernels allocate nothing. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "hx_config.h"
#include "hx_error.h"
#include "hx_kernels.h"
#include "hx_memory.h"
#include "hx_kernels_cpu.h"
#include "hx_lvec_point.h"
#include "hx_metric_point.h"
#if HX_HAVE_OPENMP
#include <omp.h>
#endif

typedef struct cpu_data {
  int num_threads;      /* threads every kernel uses */
  size_t scratch_len;   /* doubles of scratch per thread */
  double *scratch;      /* [num_threads][scratch_len] */
  double *elem_val;     /* [num_elem] per-element energy / min det J */
  double *H;            /* HX_HESS_STORED: [num_elem][nq^3][81] */
  double *t13;          /* HX_HESS_ONTHEFLY, mu_303, W^{-1} = s I: [num_elem][nq^3] tau^(1/3) at x_lin */
  const double *x_lin;  /* HX_HESS_ONTHEFLY: borrowed linearization point (E-vector) */
  double *BB, *BG, *GG; /* [nq][nd] products of the 1D matrices for the diagonal */
  double *w3;           /* [nq^3] tensor quadrature weights w_qx w_qy w_qz */
  int wscalar;          /* every W^{-1} is s I (all ideal-shape targets): scalar fast path */
  size_t lim_off;       /* the limiting term's scratch: from this offset of a thread's scratch */
  /* L-space (lsetup): the rank's numbering and constraints */
  hx_lid nl, ncurved;
  hx_lid *e2l;          /* [num_elem nd^3] */
  size_t *loff, *lidx;  /* CSR transpose: E-nodes of L-node l = lidx[loff[l] .. loff[l+1]), ascending */
  unsigned char *owned; /* [nl] or NULL (all owned) */
  int *ncon;            /* [nl] */
  double *nrm;          /* [nl][9] */
  hx_lid *curved;       /* [ncurved] */
} cpu_data;

static int thread_id(void) {
#if HX_HAVE_OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

/* ---------------------------------------------------------------- contractions */

/* The hot loops (the contractions, the on-the-fly point loop) are compiled twice on x86-64 with GCC: for
   x86-64-v3 (AVX2) and the baseline, the one the CPU runs chosen at load time. Without
   floating-point contraction (ISO C) both give the same doubles: only the vector width differs. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && __GNUC__ >= 12 && !defined(HX_NO_CLONES)
#define HX_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define HX_CLONES
#endif

/* A[q][3c+d] = dx_c / dxi_d at quadrature point q = qx + nq (qy + nq qz), for
   element nodal values xe [3][nd^3]. work: 3 nd^2 nq + 3 nd nq^2 doubles. */
/* Same with the output layout A[q * qs + m * ms], m = 3c + d: (9, 1) is the
   point-major layout above, (1, nq^3) the entry-major one the vectorized path uses. */
static void elem_jacobian_strided(int nd, int nq, const double *B, const double *G, const double *xe, double *A, int qs, int ms,
                                  double *work);
static void elem_jacobian_t_strided(int nd, int nq, const double *B, const double *G, const double *F, double *ye, int qs, int ms,
                                    double *work);
void hx_cpu_elem_jacobian(int nd, int nq, const double *B, const double *G, const double *xe, double *A, double *work) {
  elem_jacobian_strided(nd, nq, B, G, xe, A, 9, 1, work);
}

#define HX_INLINE static inline __attribute__((always_inline))
HX_INLINE void jac_body(int nd, int nq, const double *restrict B, const double *restrict G, const double *restrict xe,
                        double *restrict A, int qs, int ms, double *restrict work) {
  int nd2 = nd * nd, nq2 = nq * nq;
  double *bx = work, *gx = bx + nd2 * nq;                               /* [k][j][qx] */
  double *bb = gx + nd2 * nq, *bg = bb + nd * nq2, *gb = bg + nd * nq2; /* [k][qy][qx] */
  for (int c = 0; c < 3; c++) {
    const double *u = xe + (size_t)c * nd2 * nd;
    for (int kj = 0; kj < nd2; kj++) {
      const double *ur = u + kj * nd;
      for (int qx = 0; qx < nq; qx++) {
        const double *Br = B + qx * nd, *Gr = G + qx * nd;
        double sb = 0, sg = 0;
        for (int i = 0; i < nd; i++) {
          sb += Br[i] * ur[i];
          sg += Gr[i] * ur[i];
        }
        bx[kj * nq + qx] = sb;
        gx[kj * nq + qx] = sg;
      }
    }
    for (int k = 0; k < nd; k++)
      for (int qy = 0; qy < nq; qy++) {
        const double *Br = B + qy * nd, *Gr = G + qy * nd;
        for (int qx = 0; qx < nq; qx++) {
          double s_bb = 0, s_bg = 0, s_gb = 0;
          for (int j = 0; j < nd; j++) {
            double vb = bx[(k * nd + j) * nq + qx], vg = gx[(k * nd + j) * nq + qx];
            s_bb += Br[j] * vb; /* B_y B_x */
            s_bg += Gr[j] * vb; /* G_y B_x: d/dxi2 */
            s_gb += Br[j] * vg; /* B_y G_x: d/dxi1 */
          }
          int o = (k * nq + qy) * nq + qx;
          bb[o] = s_bb;
          bg[o] = s_bg;
          gb[o] = s_gb;
        }
      }
    for (int qz = 0; qz < nq; qz++) {
      const double *Br = B + qz * nd, *Gr = G + qz * nd;
      for (int qyx = 0; qyx < nq2; qyx++) {
        double d0 = 0, d1 = 0, d2 = 0;
        for (int k = 0; k < nd; k++) {
          d0 += Br[k] * gb[k * nq2 + qyx];
          d1 += Br[k] * bg[k * nq2 + qyx];
          d2 += Gr[k] * bb[k * nq2 + qyx];
        }
        double *Aq = A + (size_t)(qz * nq2 + qyx) * qs + (size_t)(3 * c) * ms;
        Aq[0] = d0;
        Aq[ms] = d1;
        Aq[2 * ms] = d2;
      }
    }
  }
}

/* Transpose of elem_jacobian: ye[c][b] = sum_q sum_d D_{b,d}(q) F[q][3c+d].
   work: 3 nd nq^2 + 3 nd^2 nq doubles. */
static void elem_jacobian_t(int nd, int nq, const double *B, const double *G, const double *F, double *ye, double *work) {
  elem_jacobian_t_strided(nd, nq, B, G, F, ye, 9, 1, work);
}
HX_INLINE void jact_body(int nd, int nq, const double *restrict B, const double *restrict G, const double *restrict F,
                         double *restrict ye, int qs, int ms, double *restrict work) {
  int nd2 = nd * nd, nq2 = nq * nq;
  double *t0 = work, *t1 = t0 + nd * nq2, *t2 = t1 + nd * nq2; /* [k][qy][qx] */
  double *s_b = t2 + nd * nq2, *s_g = s_b + nd2 * nq;          /* [k][j][qx] */
  for (int c = 0; c < 3; c++) {
    /* contract qz: t0 = sum_qz B F_0, t1 = sum_qz B F_1, t2 = sum_qz G F_2 */
    for (int k = 0; k < nd; k++)
      for (int qyx = 0; qyx < nq2; qyx++) {
        double a0 = 0, a1 = 0, a2 = 0;
        for (int qz = 0; qz < nq; qz++) {
          const double *Fq = F + (size_t)(qz * nq2 + qyx) * qs + (size_t)(3 * c) * ms;
          double b = B[qz * nd + k];
          a0 += b * Fq[0];
          a1 += b * Fq[ms];
          a2 += G[qz * nd + k] * Fq[2 * ms];
        }
        t0[k * nq2 + qyx] = a0;
        t1[k * nq2 + qyx] = a1;
        t2[k * nq2 + qyx] = a2;
      }
    /* contract qy: s_g (will meet G_x) = sum_qy B t0; s_b (meets B_x) = sum_qy G t1 + B t2 */
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int qx = 0; qx < nq; qx++) {
          double ag = 0, ab = 0;
          for (int qy = 0; qy < nq; qy++) {
            int o = (k * nq + qy) * nq + qx;
            double b = B[qy * nd + j];
            ag += b * t0[o];
            ab += G[qy * nd + j] * t1[o] + b * t2[o];
          }
          s_g[(k * nd + j) * nq + qx] = ag;
          s_b[(k * nd + j) * nq + qx] = ab;
        }
    /* contract qx */
    double *y = ye + (size_t)c * nd2 * nd;
    for (int kj = 0; kj < nd2; kj++)
      for (int i = 0; i < nd; i++) {
        double a = 0;
        for (int qx = 0; qx < nq; qx++) a += G[qx * nd + i] * s_g[kj * nq + qx] + B[qx * nd + i] * s_b[kj * nq + qx];
        y[kj * nd + i] = a;
      }
  }
}

/* Order specialization: the bodies above are instantiated with
   compile-time nd, nq (and layout) for the common cases, so the short 1D loops
   unroll and the point loops vectorize; other sizes take the generic body. */
/* clang-format off */
#define HX_JAC_CASES(X) \
  X(2, 2) X(2, 3) X(2, 4) X(2, 6) X(3, 3) X(3, 4) X(3, 5) X(3, 6) X(4, 4) X(4, 5) X(4, 6) X(5, 5) X(5, 6) \
  X(5, 7) X(6, 6) X(6, 7) X(6, 8)
/* clang-format on */
HX_CLONES static void elem_jacobian_strided(int nd, int nq, const double *B, const double *G, const double *xe, double *A, int qs,
                                            int ms, double *work) {
#define X(ND, NQ)                                                                                                                \
  if (nd == ND && nq == NQ) {                                                                                                    \
    if (qs == 1) jac_body(ND, NQ, B, G, xe, A, 1, NQ *NQ *NQ, work);                                                             \
    else jac_body(ND, NQ, B, G, xe, A, 9, 1, work);                                                                              \
    return;                                                                                                                      \
  }
  HX_JAC_CASES(X)
#undef X
  jac_body(nd, nq, B, G, xe, A, qs, ms, work);
}
HX_CLONES static void elem_jacobian_t_strided(int nd, int nq, const double *B, const double *G, const double *F, double *ye,
                                              int qs, int ms, double *work) {
#define X(ND, NQ)                                                                                                                \
  if (nd == ND && nq == NQ) {                                                                                                    \
    if (qs == 1) jact_body(ND, NQ, B, G, F, ye, 1, NQ *NQ *NQ, work);                                                            \
    else jact_body(ND, NQ, B, G, F, ye, 9, 1, work);                                                                             \
    return;                                                                                                                      \
  }
  HX_JAC_CASES(X)
#undef X
  jact_body(nd, nq, B, G, F, ye, qs, ms, work);
}

/* ---------------------------------------------------------------- point helpers */

/* scratch layout per thread: A (9 nq^3) | F or dA (9 nq^3) | contraction work | extra */
static size_t work_len(int nd, int nq) { return (size_t)3 * nd * nd * nq + (size_t)3 * nd * nq * nq + 16; }

/* the target at point q of element el (gq = el nq^3 + q): per point, per element or constant */
static inline const double *point_winv(const hx_pa *pa, hx_lid el, size_t gq) {
  return pa->w_const ? pa->Winv_c : pa->Winv + 9 * (pa->w_elem ? (size_t)el : gq);
}
static inline double point_weight(const hx_pa *pa, int q, hx_lid el, size_t gq) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  return pa->scale * (pa->w_const ? cd->w3[q] * pa->detW_c : cd->w3[q] * pa->detW[pa->w_elem ? (size_t)el : gq]);
}

/* R = M W^{-1} (T = A W^{-1}, dT = dA W^{-1}) */
static inline void mul_winv(const cpu_data *cd, const double *M, const double *Wi, double *R) {
  if (cd->wscalar) {
    double s = Wi[0];
    for (int i = 0; i < 9; i++) R[i] = s * M[i];
  } else {
    hx_m3_mul(M, Wi, R);
  }
}

/* F = s * M W^{-T}: F_cd = s sum_j M_cj Winv_dj */
static inline void flux(const cpu_data *cd, const double *M, const double *Wi, double s, double *F) {
  if (cd->wscalar) {
    s *= Wi[0];
    for (int i = 0; i < 9; i++) F[i] = s * M[i];
    return;
  }
  for (int c = 0; c < 3; c++)
    for (int d = 0; d < 3; d++)
      F[3 * c + d] = s * (M[3 * c] * Wi[3 * d] + M[3 * c + 1] * Wi[3 * d + 1] + M[3 * c + 2] * Wi[3 * d + 2]);
}

/* scratch layout per thread: A (9 nq^3) | F or dA (9 nq^3) | F2 (9 nq^3) | contraction work */

#define CPU_PAR_BEGIN(pa, cd)                                                                                                    \
  int nt_ = (cd)->num_threads;                                                                                                   \
  (void)nt_;                                                                                                                     \
  _Pragma("omp parallel num_threads(nt_)") {                                                                                     \
    double *scr_ = (cd)->scratch + (size_t)thread_id() * (cd)->scratch_len;
#define CPU_PAR_END }

/* ---------------------------------------------------------------- the limiting term */

/* Values at the points of one nodal field u [nd^3]: uq[q] = sum_b phi_b(xi_q) u_b, X = B in
   every direction (three 1D contractions). work: nd^2 nq + nd nq^2 doubles. */
static void lim_values(int nd, int nq, const double *X, const double *u, double *uq, double *work) {
  int nd2 = nd * nd, nq2 = nq * nq;
  double *t1 = work, *t2 = t1 + (size_t)nd2 * nq; /* [k][j][qx], [k][qy][qx] */
  for (int kj = 0; kj < nd2; kj++)
    for (int qx = 0; qx < nq; qx++) {
      double a = 0;
      for (int i = 0; i < nd; i++) a += X[qx * nd + i] * u[kj * nd + i];
      t1[kj * nq + qx] = a;
    }
  for (int k = 0; k < nd; k++)
    for (int qy = 0; qy < nq; qy++)
      for (int qx = 0; qx < nq; qx++) {
        double a = 0;
        for (int j = 0; j < nd; j++) a += X[qy * nd + j] * t1[(k * nd + j) * nq + qx];
        t2[(k * nq + qy) * nq + qx] = a;
      }
  for (int qz = 0; qz < nq; qz++)
    for (int qyx = 0; qyx < nq2; qyx++) {
      double a = 0;
      for (int k = 0; k < nd; k++) a += X[qz * nd + k] * t2[k * nq2 + qyx];
      uq[qz * nq2 + qyx] = a;
    }
}

/* The transpose: y_b += sum_q X_b(xi_q) f[q] (X = B: phi_b; X = B*B: phi_b^2). work as above. */
static void lim_values_t(int nd, int nq, const double *X, const double *f, double *y, double *work) {
  int nd2 = nd * nd, nq2 = nq * nq;
  double *t2 = work, *t1 = t2 + (size_t)nd * nq2; /* [k][qy][qx], [k][j][qx] */
  for (int k = 0; k < nd; k++)
    for (int qyx = 0; qyx < nq2; qyx++) {
      double a = 0;
      for (int qz = 0; qz < nq; qz++) a += X[qz * nd + k] * f[qz * nq2 + qyx];
      t2[k * nq2 + qyx] = a;
    }
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int qx = 0; qx < nq; qx++) {
        double a = 0;
        for (int qy = 0; qy < nq; qy++) a += X[qy * nd + j] * t2[(k * nq + qy) * nq + qx];
        t1[(k * nd + j) * nq + qx] = a;
      }
  for (int kj = 0; kj < nd2; kj++)
    for (int i = 0; i < nd; i++) {
      double a = 0;
      for (int qx = 0; qx < nq; qx++) a += X[qx * nd + i] * t1[kj * nq + qx];
      y[kj * nd + i] += a;
    }
}

/* scratch of the limiting term per thread: u [3][nd^3] | uq [3][nq^3] | work */
static size_t lim_len(int nd, int nq) {
  return (size_t)3 * nd * nd * nd + (size_t)3 * nq * nq * nq + (size_t)nd * nd * nq + (size_t)nd * nq * nq + 8;
}

enum { LIM_ENERGY, LIM_GRAD, LIM_HESS };

/* The limiting term of element el (hx_kernels.h): LIM_ENERGY returns sum_q wt c_e 0.5 |u_q|^2 with
   u = x - x0; LIM_GRAD adds sum_q wt c_e u_q phi_b to ye (u = x - x0), LIM_HESS the same with
   u = the direction xe. scr: lim_len doubles. */
static double lim_elem(const hx_pa *pa, hx_lid el, const double *xe, double *ye, int mode, double *scr) {
  int nd = pa->nd, nq = pa->nq, nd3 = nd * nd * nd, nq3 = nq * nq * nq;
  double *u = scr, *uq = u + 3 * (size_t)nd3, *work = uq + 3 * (size_t)nq3;
  const double *x0e = pa->lim_x0 + (size_t)el * 3 * nd3;
  for (int i = 0; i < 3 * nd3; i++) u[i] = mode == LIM_HESS ? xe[i] : xe[i] - x0e[i];
  for (int c = 0; c < 3; c++) lim_values(nd, nq, pa->B, u + (size_t)c * nd3, uq + (size_t)c * nq3, work);
  double ce = pa->lim_coef[el], s = 0;
  for (int q = 0; q < nq3; q++) {
    double w = point_weight(pa, q, el, (size_t)el * nq3 + q) * ce;
    double u0 = uq[q], u1 = uq[nq3 + q], u2 = uq[2 * nq3 + q];
    if (mode == LIM_ENERGY) s += 0.5 * w * (u0 * u0 + u1 * u1 + u2 * u2);
    else uq[q] = w * u0, uq[nq3 + q] = w * u1, uq[2 * nq3 + q] = w * u2;
  }
  if (mode != LIM_ENERGY)
    for (int c = 0; c < 3; c++) lim_values_t(nd, nq, pa->B, uq + (size_t)c * nq3, ye + (size_t)c * nd3, work);
  return s;
}

/* diag_{b,k} += sum_q wt c_e phi_b(xi_q)^2, the same for every k (BB = B*B entrywise) */
static void lim_diag_elem(const hx_pa *pa, const double *BB, hx_lid el, double *ye, double *scr) {
  int nd = pa->nd, nq = pa->nq, nd3 = nd * nd * nd, nq3 = nq * nq * nq;
  double *d = scr, *f = d + 3 * (size_t)nd3, *work = f + 3 * (size_t)nq3;
  double ce = pa->lim_coef[el];
  for (int q = 0; q < nq3; q++) f[q] = point_weight(pa, q, el, (size_t)el * nq3 + q) * ce;
  memset(d, 0, (size_t)nd3 * sizeof(double));
  lim_values_t(nd, nq, BB, f, d, work);
  for (int c = 0; c < 3; c++)
    for (int b = 0; b < nd3; b++) ye[(size_t)c * nd3 + b] += d[b];
}

/* ---------------------------------------------------------------- kernels */

static int cpu_energy(const hx_pa *pa, const double *x, double *e) {
  cpu_data *cd = (cpu_data *)pa->data;
  int nd = pa->nd, nq = pa->nq, nq3 = nq * nq * nq;
  size_t npe = (size_t)3 * nd * nd * nd;
  CPU_PAR_BEGIN(pa, cd)
  double *A = scr_, *work = A + 9 * (size_t)nq3;
#pragma omp for schedule(static)
  for (hx_lid el = 0; el < pa->num_elem; el++) {
    hx_cpu_elem_jacobian(nd, nq, pa->B, pa->G, x + el * npe, A, work);
    double s = 0;
    for (int q = 0; q < nq3; q++) {
      size_t gq = (size_t)el * nq3 + q;
      double T[9];
      mul_winv(cd, A + 9 * q, point_winv(pa, el, gq), T);
      s += point_weight(pa, q, el, gq) * hx_metric_mu(pa->metric, pa->metric_param, T);
    }
    if (pa->lim) s += lim_elem(pa, el, x + el * npe, NULL, LIM_ENERGY, scr_ + cd->lim_off);
    cd->elem_val[el] = s;
  }
  CPU_PAR_END
  double s = 0;
  for (hx_lid el = 0; el < pa->num_elem; el++) s += cd->elem_val[el];
  *e = s;
  return HX_OK;
}

static int cpu_grad(const hx_pa *pa, const double *x, double *g) {
  cpu_data *cd = (cpu_data *)pa->data;
  int nd = pa->nd, nq = pa->nq, nq3 = nq * nq * nq;
  size_t npe = (size_t)3 * nd * nd * nd;
  CPU_PAR_BEGIN(pa, cd)
  double *A = scr_, *F = A + 9 * (size_t)nq3, *work = F + 9 * (size_t)nq3;
#pragma omp for schedule(static)
  for (hx_lid el = 0; el < pa->num_elem; el++) {
    hx_cpu_elem_jacobian(nd, nq, pa->B, pa->G, x + el * npe, A, work);
    for (int q = 0; q < nq3; q++) {
      size_t gq = (size_t)el * nq3 + q;
      const double *Wi = point_winv(pa, el, gq);
      double T[9], P[9];
      mul_winv(cd, A + 9 * q, Wi, T);
      hx_metric_P(pa->metric, pa->metric_param, T, P);
      flux(cd, P, Wi, point_weight(pa, q, el, gq), F + 9 * q);
    }
    elem_jacobian_t(nd, nq, pa->B, pa->G, F, g + el * npe, work);
    if (pa->lim) lim_elem(pa, el, x + el * npe, g + el * npe, LIM_GRAD, scr_ + cd->lim_off);
  }
  CPU_PAR_END
  return HX_OK;
}

/* The on-the-fly Hessian action with W^{-1} = s I, entry-major (SoA) so that the point loop
   vectorizes, for the metrics with a point function below: T = s A, dT = s dA. Each point
   function is always inlined, so that its 3x3 arrays become scalars and not per-lane arrays of
   the simd loop. */
static int soa_path(const hx_pa *pa) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  return pa->hess_strategy != HX_HESS_STORED && cd->wscalar && (pa->metric == 303 || pa->metric == 318);
}

/* mu_303: dP = (1/3){a[(2/3)(C:dT) C + C dT^T C] + b dT + g[(T:dT) C + (C:dT) T]},
   a = (2/3) I1 tau^(-8/3), b = 2 tau^(-2/3), g = -(4/3) tau^(-5/3); F = f 3 dP with f = wt s / 3;
   u = tau^(1/3) at the linearization point (t13, from hess_setup) */
HX_INLINE void point_303_soa(int nq3, int q, double sq, double u, double f, const double *restrict A, const double *restrict dA,
                             double *restrict F) {
  double T[9], D[9], C[9];
  for (int m = 0; m < 9; m++) {
    T[m] = sq * A[m * nq3 + q];
    D[m] = sq * dA[m * nq3 + q];
  }
  hx_m3_cof(T, C);
  double tau = T[0] * C[0] + T[1] * C[1] + T[2] * C[2];
  double I1 = 0, cd_ = 0, td = 0;
  for (int m = 0; m < 9; m++) {
    I1 += T[m] * T[m];
    cd_ += C[m] * D[m];
    td += T[m] * D[m];
  }
  double u2 = u * u, itau = 1.0 / tau;
  double b = 2.0 / u2;                           /* 2 tau^(-2/3) */
  double g = -(2.0 / 3.0) * b * itau;            /* -(4/3) tau^(-5/3) */
  double a = (1.0 / 3.0) * b * I1 * itau * itau; /* (2/3) I1 tau^(-8/3) */
  /* M = C dT^T, then K = C dT^T C */
  double M[9], K[9];
  hx_m3_mul_abt(C, D, M);
  hx_m3_mul(M, C, K);
  for (int m = 0; m < 9; m++)
    F[m * nq3 + q] = f * (a * ((2.0 / 3.0) * cd_ * C[m] + K[m]) + b * D[m] + g * (td * C[m] + cd_ * T[m]));
}

/* mu_318 (the pebble optimizer's) through its own dP, the generic path's operations: F = f dP,
   f = wt s (the same doubles) */
HX_INLINE void point_318_soa(int nq3, int q, double sq, double f, const double *restrict A, const double *restrict dA,
                             double *restrict F) {
  double T[9], D[9], dP[9];
  for (int m = 0; m < 9; m++) {
    T[m] = sq * A[m * nq3 + q];
    D[m] = sq * dA[m * nq3 + q];
  }
  hx_m318_dP(T, 0.0, D, dP);
  for (int m = 0; m < 9; m++) F[m * nq3 + q] = f * dP[m];
}

/* The SoA flux F of element el; t13 [nq3] for mu_303 (else unused), sv, wv [nq3] scratch for the
   per-point s and wt s */
HX_CLONES static void onthefly_soa(const hx_pa *pa, hx_lid el, int nq3, const double *restrict A, const double *restrict dA,
                                   double *restrict F, const double *restrict t13, double *restrict sv, double *restrict wv) {
  for (int q = 0; q < nq3; q++) {
    size_t gq = (size_t)el * nq3 + q;
    sv[q] = point_winv(pa, el, gq)[0];
    wv[q] = point_weight(pa, q, el, gq) * sv[q];
  }
  if (pa->metric == 303) {
#pragma omp simd
    for (int q = 0; q < nq3; q++) point_303_soa(nq3, q, sv[q], t13[q], wv[q] / 3.0, A, dA, F);
  } else {
#pragma omp simd
    for (int q = 0; q < nq3; q++) point_318_soa(nq3, q, sv[q], wv[q], A, dA, F);
  }
}

/* tau^(1/3) at every point of element el for point_303_soa (A: the SoA Jacobian at the
   linearization point) */
static void t13_303_soa(const hx_pa *pa, hx_lid el, int nq3, const double *restrict A, double *restrict t13) {
  for (int q = 0; q < nq3; q++) {
    double sq = point_winv(pa, el, (size_t)el * nq3 + q)[0];
    double T0 = sq * A[q], T1 = sq * A[nq3 + q], T2 = sq * A[2 * nq3 + q];
    double T3 = sq * A[3 * nq3 + q], T4 = sq * A[4 * nq3 + q], T5 = sq * A[5 * nq3 + q];
    double T6 = sq * A[6 * nq3 + q], T7 = sq * A[7 * nq3 + q], T8 = sq * A[8 * nq3 + q];
    t13[q] = hx_cbrt(T0 * (T4 * T8 - T5 * T7) - T1 * (T3 * T8 - T5 * T6) + T2 * (T3 * T7 - T4 * T6));
  }
}

static int cpu_hess_setup(hx_pa *pa, const double *x) {
  cpu_data *cd = (cpu_data *)pa->data;
  cd->x_lin = x;
  int nd = pa->nd, nq = pa->nq, nq3 = nq * nq * nq;
  size_t npe = (size_t)3 * nd * nd * nd;
  if (pa->hess_strategy != HX_HESS_STORED) {
    if (!soa_path(pa) || pa->metric != 303) return HX_OK;
    /* the on-the-fly mu_303 action's tau^(1/3) at every point, once per linearization */
    if (!cd->t13) HX_CALL(hx_malloc((size_t)pa->num_elem * nq3 * sizeof(double) + 8, &cd->t13));
    CPU_PAR_BEGIN(pa, cd)
    double *A = scr_, *work = A + 9 * (size_t)nq3;
#pragma omp for schedule(static)
    for (hx_lid el = 0; el < pa->num_elem; el++) {
      elem_jacobian_strided(nd, nq, pa->B, pa->G, x + el * npe, A, 1, nq3, work);
      t13_303_soa(pa, el, nq3, A, cd->t13 + (size_t)el * nq3);
    }
    CPU_PAR_END
    return HX_OK;
  }
  if (!cd->H) HX_CALL(hx_malloc((size_t)pa->num_elem * nq3 * 81 * sizeof(double) + 8, &cd->H));
  CPU_PAR_BEGIN(pa, cd)
  double *A = scr_, *work = A + 9 * (size_t)nq3;
#pragma omp for schedule(static)
  for (hx_lid el = 0; el < pa->num_elem; el++) {
    hx_cpu_elem_jacobian(nd, nq, pa->B, pa->G, x + el * npe, A, work);
    for (int q = 0; q < nq3; q++) {
      size_t gq = (size_t)el * nq3 + q;
      double T[9];
      mul_winv(cd, A + 9 * q, point_winv(pa, el, gq), T);
      hx_metric_H(pa->metric, pa->metric_param, T, cd->H + 81 * gq);
    }
  }
  CPU_PAR_END
  return HX_OK;
}

static int cpu_hess_apply(const hx_pa *pa, const double *dx, double *y) {
  cpu_data *cd = (cpu_data *)pa->data;
  HX_CHECK(cd->x_lin, HX_ERR_INTERNAL, "hess_apply called before hess_setup");
  int nd = pa->nd, nq = pa->nq, nq3 = nq * nq * nq;
  size_t npe = (size_t)3 * nd * nd * nd;
  int stored = pa->hess_strategy == HX_HESS_STORED;
  const double *H = cd->H, *xl = cd->x_lin;
  int metric = pa->metric;
  double par = pa->metric_param;
  int soa = soa_path(pa);
  CPU_PAR_BEGIN(pa, cd)
  double *dA = scr_, *A = dA + 9 * (size_t)nq3, *work = A + 9 * (size_t)nq3;
  double *F = dA;                                       /* the flux overwrites dA point by point */
  double *sv = work + work_len(nd, nq), *wv = sv + nq3; /* per-point s and weight (onthefly_soa) */
  double *Fs = wv + nq3;                                /* SoA flux, after them (cpu_setup) */
#pragma omp for schedule(static)
  for (hx_lid el = 0; el < pa->num_elem; el++) {
    if (soa) {
      elem_jacobian_strided(nd, nq, pa->B, pa->G, dx + el * npe, dA, 1, nq3, work);
      elem_jacobian_strided(nd, nq, pa->B, pa->G, xl + el * npe, A, 1, nq3, work);
      onthefly_soa(pa, el, nq3, A, dA, Fs, cd->t13 ? cd->t13 + (size_t)el * nq3 : NULL, sv, wv);
      elem_jacobian_t_strided(nd, nq, pa->B, pa->G, Fs, y + el * npe, 1, nq3, work);
      if (pa->lim) lim_elem(pa, el, dx + el * npe, y + el * npe, LIM_HESS, scr_ + cd->lim_off);
      continue;
    }
    hx_cpu_elem_jacobian(nd, nq, pa->B, pa->G, dx + el * npe, dA, work);
    if (!stored) hx_cpu_elem_jacobian(nd, nq, pa->B, pa->G, xl + el * npe, A, work);
    for (int q = 0; q < nq3; q++) {
      size_t gq = (size_t)el * nq3 + q;
      const double *Wi = point_winv(pa, el, gq);
      double dT[9], dP[9];
      mul_winv(cd, dA + 9 * q, Wi, dT);
      if (stored) {
        /* dP_kl = sum_ij H_ijkl dT_ij (H symmetric) */
        const double *Hq = H + 81 * gq;
        for (int kl = 0; kl < 9; kl++) dP[kl] = 0;
        for (int ij = 0; ij < 9; ij++) {
          double t = dT[ij];
          const double *Hr = Hq + 9 * ij;
          for (int kl = 0; kl < 9; kl++) dP[kl] += t * Hr[kl];
        }
      } else {
        double T[9];
        mul_winv(cd, A + 9 * q, Wi, T);
        hx_metric_dP(metric, par, T, dT, dP);
      }
      flux(cd, dP, Wi, point_weight(pa, q, el, gq), F + 9 * q);
    }
    elem_jacobian_t(nd, nq, pa->B, pa->G, F, y + el * npe, work);
    if (pa->lim) lim_elem(pa, el, dx + el * npe, y + el * npe, LIM_HESS, scr_ + cd->lim_off);
  }
  CPU_PAR_END
  return HX_OK;
}

/* One (m, n, c) term of the diagonal: y[k][j][i] += sum_q X0(qx, i) X1(qy, j) X2(qz, k) h[q]
   (t1 [nq^2 nd], t2 [nq nd^2] scratch) */
HX_CLONES static void diag_contract(int nd, int nq, const double *const *X, const double *restrict h, double *restrict t1,
                                    double *restrict t2, double *restrict y) {
  int nq2 = nq * nq, nd2 = nd * nd;
  /* contract qx -> i: t1[qz][qy][i] */
  for (int qzy = 0; qzy < nq2; qzy++)
    for (int i = 0; i < nd; i++) {
      double s = 0;
      for (int qx = 0; qx < nq; qx++) s += X[0][qx * nd + i] * h[qzy * nq + qx];
      t1[qzy * nd + i] = s;
    }
  /* contract qy -> j: t2[qz][j][i] */
  for (int qz = 0; qz < nq; qz++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        double s = 0;
        for (int qy = 0; qy < nq; qy++) s += X[1][qy * nd + j] * t1[(qz * nq + qy) * nd + i];
        t2[(qz * nd + j) * nd + i] = s;
      }
  /* contract qz -> k */
  for (int k = 0; k < nd; k++)
    for (int ji = 0; ji < nd2; ji++) {
      double s = 0;
      for (int qz = 0; qz < nq; qz++) s += X[2][qz * nd + k] * t2[qz * nd2 + ji];
      y[k * nd2 + ji] += s;
    }
}

/* diag_{c,b} = sum_q wt sum_{m,n} Hh^c_mn D_{b,m} D_{b,n}, Hh^c = W^{-1} H_{c.c.} W^{-T}.
   D_{b,m} D_{b,n} is a product over the three directions of B*B, B*G or G*G, so
   each (m, n) term is three 1D contractions with those squared matrices. */
static int cpu_diag(const hx_pa *pa, double *dg) {
  cpu_data *cd = (cpu_data *)pa->data;
  HX_CHECK(cd->x_lin, HX_ERR_INTERNAL, "diag called before hess_setup");
  int nd = pa->nd, nq = pa->nq, nq2 = nq * nq, nq3 = nq2 * nq, nd2 = nd * nd;
  size_t npe = (size_t)3 * nd * nd * nd;
  int stored = pa->hess_strategy == HX_HESS_STORED;
  CPU_PAR_BEGIN(pa, cd)
  double *A = scr_, *Hh = A + 9 * (size_t)nq3; /* Hh: [3][3][3][nq3] = 27 nq3 (entry-major) */
  double *t1 = Hh + 27 * (size_t)nq3, *t2 = t1 + (size_t)nq2 * nd;
#pragma omp for schedule(static)
  for (hx_lid el = 0; el < pa->num_elem; el++) {
    if (!stored) hx_cpu_elem_jacobian(nd, nq, pa->B, pa->G, cd->x_lin + el * npe, A, t1);
    for (int q = 0; q < nq3; q++) {
      size_t gq = (size_t)el * nq3 + q;
      const double *Wi = point_winv(pa, el, gq);
      double hkk[27];
      if (stored) {
        const double *Hq = cd->H + 81 * gq;
        for (int k = 0; k < 3; k++)
          for (int j = 0; j < 3; j++)
            for (int l = 0; l < 3; l++) hkk[9 * k + 3 * j + l] = Hq[9 * (3 * k + j) + 3 * k + l];
      } else {
        double T[9];
        mul_winv(cd, A + 9 * q, Wi, T);
        hx_metric_hkk(pa->metric, pa->metric_param, T, hkk);
      }
      double wt = point_weight(pa, q, el, gq);
      if (cd->wscalar) { /* the products below with W^{-1} = s I: the same doubles */
        double s = Wi[0];
        for (int i = 0; i < 27; i++) Hh[(size_t)i * nq3 + q] = wt * (s * hkk[i] * s);
        continue;
      }
      for (int c = 0; c < 3; c++) {
        double M[9], R[9];
        hx_m3_mul(Wi, hkk + 9 * c, M); /* W^{-1} H_c */
        hx_m3_mul_abt(M, Wi, R);       /* W^{-1} H_c W^{-T} */
        for (int i = 0; i < 9; i++) Hh[(size_t)(9 * c + i) * nq3 + q] = wt * R[i];
      }
    }
    double *ye = dg + el * npe;
    memset(ye, 0, npe * sizeof(double));
    for (int m = 0; m < 3; m++)
      for (int n = 0; n < 3; n++) {
        /* direction d uses GG if d == m == n, BG if exactly one of m, n is d, else BB */
        const double *X[3];
        for (int d = 0; d < 3; d++) X[d] = (m == d && n == d) ? cd->GG : (m == d || n == d) ? cd->BG : cd->BB;
        for (int c = 0; c < 3; c++)
          diag_contract(nd, nq, X, Hh + (size_t)(9 * c + 3 * m + n) * nq3, t1, t2, ye + (size_t)c * nd2 * nd);
      }
    if (pa->lim) lim_diag_elem(pa, cd->BB, el, ye, scr_ + cd->lim_off);
  }
  CPU_PAR_END
  return HX_OK;
}

static int cpu_min_detj(const hx_pa *pa, const double *x, double *m) {
  cpu_data *cd = (cpu_data *)pa->data;
  int nd = pa->nd, nq = pa->nq, nq3 = nq * nq * nq;
  size_t npe = (size_t)3 * nd * nd * nd;
  CPU_PAR_BEGIN(pa, cd)
  double *A = scr_, *work = A + 9 * (size_t)nq3;
#pragma omp for schedule(static)
  for (hx_lid el = 0; el < pa->num_elem; el++) {
    hx_cpu_elem_jacobian(nd, nq, pa->B, pa->G, x + el * npe, A, work);
    double mn = HUGE_VAL;
    for (int q = 0; q < nq3; q++) {
      double d = hx_m3_det(A + 9 * q);
      if (!(d >= mn)) mn = d; /* NaN propagates as the minimum */
    }
    cd->elem_val[el] = mn;
  }
  CPU_PAR_END
  double mn = HUGE_VAL;
  for (hx_lid el = 0; el < pa->num_elem; el++)
    if (!(cd->elem_val[el] >= mn)) mn = cd->elem_val[el];
  *m = mn;
  return HX_OK;
}

static int cpu_min_detj_elem(const hx_pa *pa, const double *x, double *host) {
  double m;
  HX_CALL(cpu_min_detj(pa, x, &m));
  if (pa->num_elem > 0) memcpy(host, ((const cpu_data *)pa->data)->elem_val, (size_t)pa->num_elem * sizeof(double));
  return HX_OK;
}

static int cpu_min_detj_nodes(const hx_pa *pa, const double *x, double *m) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  return hx_cpu_min_detj_nodes(pa->nd, pa->num_elem, x, cd->num_threads, m);
}

/* ---------------------------------------------------------------- setup, memory */

static int cpu_destroy(hx_pa *pa) {
  cpu_data *cd = (cpu_data *)pa->data;
  if (!cd) return HX_OK;
  hx_free(&cd->scratch);
  hx_free(&cd->elem_val);
  hx_free(&cd->H);
  hx_free(&cd->t13);
  hx_free(&cd->BB);
  hx_free(&cd->BG);
  hx_free(&cd->GG);
  hx_free(&cd->w3);
  hx_free(&cd->e2l);
  hx_free(&cd->loff);
  hx_free(&cd->lidx);
  hx_free(&cd->owned);
  hx_free(&cd->ncon);
  hx_free(&cd->nrm);
  hx_free(&cd->curved);
  hx_free(&pa->data);
  return HX_OK;
}

static int cpu_setup(hx_pa *pa) {
  cpu_data *cd;
  HX_CALL(hx_malloc(sizeof *cd, &cd));
  pa->data = cd;
  int nt = pa->num_threads;
#if HX_HAVE_OPENMP
  if (nt <= 0) nt = omp_get_max_threads();
#else
  nt = 1;
#endif
  cd->num_threads = nt;
  int nd = pa->nd, nq = pa->nq;
  size_t nq3 = (size_t)nq * nq * nq;
  size_t need_kernels = 18 * nq3 + work_len(nd, nq) + 11 * nq3;
  size_t need_diag = 36 * nq3 + work_len(nd, nq) + (size_t)nq * nq * nd + (size_t)nq * nd * nd;
  cd->scratch_len = need_kernels > need_diag ? need_kernels : need_diag;
  cd->lim_off = cd->scratch_len;
  if (pa->lim) cd->scratch_len += lim_len(nd, nq);
  int rc = hx_malloc((size_t)nt * cd->scratch_len * sizeof(double), &cd->scratch);
  if (rc == HX_OK) rc = hx_malloc(((size_t)pa->num_elem + 1) * sizeof(double), &cd->elem_val);
  if (rc == HX_OK) rc = hx_malloc((size_t)nq * nd * sizeof(double), &cd->BB);
  if (rc == HX_OK) rc = hx_malloc((size_t)nq * nd * sizeof(double), &cd->BG);
  if (rc == HX_OK) rc = hx_malloc((size_t)nq * nd * sizeof(double), &cd->GG);
  if (rc == HX_OK) rc = hx_malloc((nq3 + 1) * sizeof(double), &cd->w3);
  if (rc != HX_OK) {
    cpu_destroy(pa);
    return rc;
  }
  /* W^{-1} = s I everywhere? (exact test: the off-diagonal entries are zero) */
  cd->wscalar = 1;
  size_t npts = pa->w_const ? 1 : (size_t)pa->num_elem * (pa->w_elem ? 1 : nq3);
  for (size_t g = 0; g < npts && cd->wscalar; g++) {
    const double *W = pa->w_const ? pa->Winv_c : pa->Winv + 9 * g;
    if (W[1] != 0 || W[2] != 0 || W[3] != 0 || W[5] != 0 || W[6] != 0 || W[7] != 0 || W[4] != W[0] || W[8] != W[0])
      cd->wscalar = 0;
  }
  for (size_t q = 0; q < nq3; q++) cd->w3[q] = pa->wq[q % nq] * pa->wq[(q / nq) % nq] * pa->wq[q / ((size_t)nq * nq)];
  for (int i = 0; i < nq * nd; i++) {
    cd->BB[i] = pa->B[i] * pa->B[i];
    cd->BG[i] = pa->B[i] * pa->G[i];
    cd->GG[i] = pa->G[i] * pa->G[i];
  }
  return HX_OK;
}

static int cpu_vec_alloc(const hx_pa *pa, size_t n, double **v) {
  (void)pa;
  return hx_malloc((n + 1) * sizeof(double), v);
}
static void cpu_vec_free(const hx_pa *pa, double **v) {
  (void)pa;
  hx_free(v);
}
static int cpu_vec_copy(const hx_pa *pa, const double *src, double *dst, size_t n) {
  (void)pa;
  if (src != dst) memcpy(dst, src, n * sizeof(double));
  return HX_OK;
}

/* ---------------------------------------------------------------- L-vectors */

static int cpu_lsetup(hx_pa *pa, const hx_lspace *ls) {
  cpu_data *cd = (cpu_data *)pa->data;
  size_t npe = (size_t)pa->nd * pa->nd * pa->nd, ne = (size_t)pa->num_elem * npe, nl = (size_t)ls->nl;
  hx_free(&cd->e2l);
  hx_free(&cd->loff);
  hx_free(&cd->lidx);
  hx_free(&cd->owned);
  hx_free(&cd->ncon);
  hx_free(&cd->nrm);
  hx_free(&cd->curved);
  cd->nl = ls->nl;
  cd->ncurved = ls->ncurved;
  HX_CALL(hx_malloc((ne + 1) * sizeof(hx_lid), &cd->e2l));
  HX_CALL(hx_malloc((nl + 2) * sizeof(size_t), &cd->loff));
  HX_CALL(hx_malloc((ne + 1) * sizeof(size_t), &cd->lidx));
  if (ls->owned) {
    HX_CALL(hx_malloc(nl + 1, &cd->owned));
    memcpy(cd->owned, ls->owned, nl);
  }
  memcpy(cd->e2l, ls->e2l, ne * sizeof(hx_lid));
  if (ls->ncon) { /* NULL: the numbering alone (a part of adaptive quadrature) */
    HX_CALL(hx_malloc((nl + 1) * sizeof(int), &cd->ncon));
    HX_CALL(hx_malloc((9 * nl + 1) * sizeof(double), &cd->nrm));
    HX_CALL(hx_malloc(((size_t)ls->ncurved + 1) * sizeof(hx_lid), &cd->curved));
    memcpy(cd->ncon, ls->ncon, nl * sizeof(int));
    memcpy(cd->nrm, ls->nrm, 9 * nl * sizeof(double));
    if (ls->ncurved) memcpy(cd->curved, ls->curved, (size_t)ls->ncurved * sizeof(hx_lid));
  } else {
    cd->ncurved = 0;
  }
  memset(cd->loff, 0, (nl + 2) * sizeof(size_t));
  for (size_t g = 0; g < ne; g++) {
    HX_CHECK(ls->e2l[g] >= 0 && (size_t)ls->e2l[g] < nl, HX_ERR_INTERNAL, "lsetup: E-node %zu maps to L-node %d of %zu", g,
             (int)ls->e2l[g], nl);
    cd->loff[ls->e2l[g] + 2]++;
  }
  for (size_t l = 0; l < nl; l++) cd->loff[l + 2] += cd->loff[l + 1];
  for (size_t g = 0; g < ne; g++) cd->lidx[cd->loff[ls->e2l[g] + 1]++] = g;
  return HX_OK;
}

static int cpu_l2e(const hx_pa *pa, const double *L, double *E) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  long long npe = (long long)pa->nd * pa->nd * pa->nd, ne = (long long)pa->num_elem;
#pragma omp parallel for schedule(static) num_threads(cd->num_threads)
  for (long long e = 0; e < ne; e++)
    for (int c = 0; c < 3; c++)
      for (long long a = 0; a < npe; a++) E[(e * 3 + c) * npe + a] = L[3 * (size_t)cd->e2l[e * npe + a] + c];
  return HX_OK;
}

/* same summation order as hx_lmap_gather (ascending E index from 0): bitwise equal */
static int cpu_e2l(const hx_pa *pa, const double *E, double *L) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  size_t npe = (size_t)pa->nd * pa->nd * pa->nd;
  long long nl = cd->nl;
#pragma omp parallel for schedule(static) num_threads(cd->num_threads)
  for (long long l = 0; l < nl; l++) {
    double s[3] = {0, 0, 0};
    for (size_t j = cd->loff[l]; j < cd->loff[l + 1]; j++) {
      size_t g = cd->lidx[j], e = g / npe, a = g % npe;
      for (int c = 0; c < 3; c++) s[c] += E[(e * 3 + c) * npe + a];
    }
    for (int c = 0; c < 3; c++) L[3 * l + c] = s[c];
  }
  return HX_OK;
}

#define CPU_VLOOP(n)                                                                                                             \
  _Pragma("omp parallel for schedule(static) num_threads(((const cpu_data *)pa->data)->num_threads)") for (long long i = 0;      \
                                                                                                           i < (long long)(n);   \
                                                                                                           i++)

static int cpu_vzero(const hx_pa *pa, size_t n, double *y) {
  (void)pa;
  memset(y, 0, n * sizeof(double));
  return HX_OK;
}

static int cpu_axpby(const hx_pa *pa, size_t n, double a, const double *x, double b, double *y) {
  if (b == 0.0) {
    CPU_VLOOP(n) y[i] = a * x[i];
  } else if (b == 1.0) {
    CPU_VLOOP(n) y[i] += a * x[i];
  } else if (a == 1.0) {
    CPU_VLOOP(n) y[i] = x[i] + b * y[i];
  } else {
    CPU_VLOOP(n) y[i] = a * x[i] + b * y[i];
  }
  return HX_OK;
}

static int cpu_waxpy(const hx_pa *pa, size_t n, double *w, const double *x, double a, const double *y) {
  CPU_VLOOP(n) w[i] = x[i] + a * y[i];
  return HX_OK;
}

static int cpu_lc3(const hx_pa *pa, size_t n, double *w, const double *x, double a, const double *y, double b, const double *z,
                   double s) {
  CPU_VLOOP(n) w[i] = (x[i] + a * y[i] + b * z[i]) * s;
  return HX_OK;
}

static int cpu_inv_abs(const hx_pa *pa, size_t n, double *d) {
  CPU_VLOOP(n) {
    double v = fabs(d[i]);
    d[i] = v > 0 ? 1.0 / v : 1.0;
  }
  return HX_OK;
}

/* serial, in node order: the same sum as hx_gs_dot (bitwise) */
static int cpu_dot(const hx_pa *pa, const double *x, const double *y, double *out) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  double s = 0;
  for (hx_lid i = 0; i < cd->nl; i++) {
    if (cd->owned && !cd->owned[i]) continue;
    for (int c = 0; c < 3; c++) s += x[3 * (size_t)i + c] * y[3 * (size_t)i + c];
  }
  *out = s;
  return HX_OK;
}

static int cpu_project(const hx_pa *pa, const double *v, double *out) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  if (v != out) memcpy(out, v, 3 * (size_t)cd->nl * sizeof(double));
  CPU_VLOOP(cd->nl) hx_lvec_project_node(cd->ncon[i], cd->nrm + 9 * i, out + 3 * i);
  return HX_OK;
}

static int cpu_precond(const hx_pa *pa, const double *dinv, const double *r, double *z) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  CPU_VLOOP(cd->nl) hx_lvec_precond_node(cd->ncon[i], cd->nrm + 9 * i, dinv + 3 * i, r + 3 * i, z + 3 * i);
  return HX_OK;
}

static int cpu_constrain(const hx_pa *pa, const double *v, double *y) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  CPU_VLOOP(cd->nl) hx_lvec_constrain_node(cd->ncon[i], cd->nrm + 9 * i, v + 3 * i, y + 3 * i);
  return HX_OK;
}

static int cpu_pick(const hx_pa *pa, const double *L, double *buf) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  for (hx_lid k = 0; k < cd->ncurved; k++)
    for (int c = 0; c < 3; c++) buf[3 * (size_t)k + c] = L[3 * (size_t)cd->curved[k] + c];
  return HX_OK;
}

static int cpu_put(const hx_pa *pa, const double *buf, double *L) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  for (hx_lid k = 0; k < cd->ncurved; k++)
    for (int c = 0; c < 3; c++) L[3 * (size_t)cd->curved[k] + c] = buf[3 * (size_t)k + c];
  return HX_OK;
}

static int cpu_nrm_put(const hx_pa *pa, const double *buf) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  for (hx_lid k = 0; k < cd->ncurved; k++) memcpy(cd->nrm + 9 * (size_t)cd->curved[k], buf + 9 * (size_t)k, 9 * sizeof(double));
  return HX_OK;
}

static int cpu_axpby_dot(const hx_pa *pa, size_t n, double a, const double *x, double b, double *y, const double *w,
                         double *out) {
  HX_CALL(cpu_axpby(pa, n, a, x, b, y));
  return cpu_dot(pa, w, y, out);
}

static int cpu_precond_dot(const hx_pa *pa, const double *dinv, const double *r, double *z, double *out) {
  HX_CALL(cpu_precond(pa, dinv, r, z));
  return cpu_dot(pa, r, z, out);
}

/* one 1D factor of etensor: out[k][j][i'] = sum_i M[i'][i] in[k][j][i] over the fastest index, the
   result's fastest index the next one's (a rotation: three calls apply M x M x M) */
static void etensor_dir(int nin, int nout, int nrest, const double *M, const double *in, double *out) {
  for (int r = 0; r < nrest; r++)
    for (int o = 0; o < nout; o++) {
      double s = 0;
      for (int i = 0; i < nin; i++) s += M[o * nin + i] * in[r * nin + i];
      out[o * nrest + r] = s;
    }
}

static int cpu_etensor(const hx_pa *pa, int nin, int nout, const double *M, const double *Ein, double *Eout) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  HX_CHECK(nin >= 1 && nout >= 1 && nin <= HX_MAX_ND && nout <= HX_MAX_ND, HX_ERR_INTERNAL, "etensor: sizes %d, %d", nin, nout);
  long long nc = 3 * (long long)pa->num_elem;
  size_t ni3 = (size_t)nin * nin * nin, no3 = (size_t)nout * nout * nout;
  int ni = nin, no = nout;
#pragma omp parallel for schedule(static) num_threads(cd->num_threads)
  for (long long ec = 0; ec < nc; ec++) {
    double t1[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND], t2[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
    /* [k][j][i] -> [i'][k][j] -> [j'][i'][k] -> [k'][j'][i'] */
    etensor_dir(ni, no, ni * ni, M, Ein + ec * ni3, t1);
    etensor_dir(ni, no, no * ni, M, t1, t2);
    etensor_dir(ni, no, no * no, M, t2, Eout + ec * no3);
  }
  return HX_OK;
}

static int cpu_vmul(const hx_pa *pa, size_t n, const double *d, const double *x, double *y) {
  CPU_VLOOP(n) y[i] = d[i] * x[i];
  return HX_OK;
}

static int cpu_l2e_proj(const hx_pa *pa, const double *L, double *E) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  long long npe = (long long)pa->nd * pa->nd * pa->nd, ne = (long long)pa->num_elem;
#pragma omp parallel for schedule(static) num_threads(cd->num_threads)
  for (long long e = 0; e < ne; e++)
    for (long long a = 0; a < npe; a++) {
      size_t l = (size_t)cd->e2l[e * npe + a];
      double p[3] = {L[3 * l], L[3 * l + 1], L[3 * l + 2]};
      hx_lvec_project_node(cd->ncon[l], cd->nrm + 9 * l, p);
      for (int c = 0; c < 3; c++) E[(e * 3 + c) * npe + a] = p[c];
    }
  return HX_OK;
}

static int cpu_e2l_constrain(const hx_pa *pa, const double *E, const double *v, double *L) {
  const cpu_data *cd = (const cpu_data *)pa->data;
  size_t npe = (size_t)pa->nd * pa->nd * pa->nd;
  long long nl = cd->nl;
#pragma omp parallel for schedule(static) num_threads(cd->num_threads)
  for (long long l = 0; l < nl; l++) {
    double s[3] = {0, 0, 0};
    for (size_t j = cd->loff[l]; j < cd->loff[l + 1]; j++) {
      size_t g = cd->lidx[j], e = g / npe, a = g % npe;
      for (int c = 0; c < 3; c++) s[c] += E[(e * 3 + c) * npe + a];
    }
    hx_lvec_constrain_node(cd->ncon[l], cd->nrm + 9 * l, v + 3 * l, s);
    for (int c = 0; c < 3; c++) L[3 * l + c] = s[c];
  }
  return HX_OK;
}

const hx_backend hx_backend_cpu = {
    .name = "cpu",
    .available = 1,
    .setup = cpu_setup,
    .energy = cpu_energy,
    .grad = cpu_grad,
    .hess_setup = cpu_hess_setup,
    .hess_apply = cpu_hess_apply,
    .diag = cpu_diag,
    .min_detj = cpu_min_detj,
    .destroy = cpu_destroy,
    .vec_alloc = cpu_vec_alloc,
    .vec_free = cpu_vec_free,
    .vec_upload = cpu_vec_copy,
    .vec_download = cpu_vec_copy,
    .host_memory = 1,
    .lsetup = cpu_lsetup,
    .l2e = cpu_l2e,
    .e2l = cpu_e2l,
    .vzero = cpu_vzero,
    .axpby = cpu_axpby,
    .waxpy = cpu_waxpy,
    .lc3 = cpu_lc3,
    .inv_abs = cpu_inv_abs,
    .dot = cpu_dot,
    .project = cpu_project,
    .precond = cpu_precond,
    .constrain = cpu_constrain,
    .pick = cpu_pick,
    .put = cpu_put,
    .nrm_put = cpu_nrm_put,
    .axpby_dot = cpu_axpby_dot,
    .precond_dot = cpu_precond_dot,
    .l2e_proj = cpu_l2e_proj,
    .e2l_constrain = cpu_e2l_constrain,
    .min_detj_nodes = cpu_min_detj_nodes,
    .min_detj_elem = cpu_min_detj_elem,
    .etensor = cpu_etensor,
    .vmul = cpu_vmul,
};
