/* The CUDA backend: the TMOP partial-assembly kernels of hx_kernels.h on an
   NVIDIA GPU, FP64, sum-factorized (the maths in hx_kernels.h; the CPU backend
   kernels/cpu/pa_cpu.c is the reference these kernels are tested against).

   design:
   1. One thread block holds EPB elements (EPB * TPE threads, TPE = threads per
      element = min(nq^3, 256)); EPB > 1 where nq^3 is small, so that a block has
      enough work. Per element, the nodal values, the 1D-contraction stages and
      the 3x3 flux of every quadrature point live in shared memory; B, G (and for
      the diagonal B*B, B*G, G*G) and the 1D weights are loaded into shared
      memory once per block.
   2. Forward: three 1D contractions (x, then y, then z) give A = dx/dxi at each
      quadrature point; a thread per point calls the same per-point metric
      functions as the CPU (kernels/metrics/hx_metric_point.h, HX_HD) and writes the
      flux F (9 per point); three transposed contractions sum F back to the nodes.
   3. Kernels are templated on (nd, nq) for the pairs that matter (constant loop
      bounds and index divisions); any other pair runs the generic instantiation
      (0, 0) with run-time bounds.
   4. Hessian strategies: HX_HESS_STORED keeps 81 doubles per point in the layout
      [num_elem][81][nq^3] (structure of arrays: coalesced loads); HX_HESS_ONTHEFLY
      stores A(x_lin) at setup ([num_elem][9][nq^3]; metric 303 also hx_m303_abg's
      three scalars per point) and forms dP = H(T):dT from the contracted formulas
      in the action. The on-the-fly action runs with a thread per (qx, qy) column
      (the z direction in the thread: k_hess_apply_split where nq >= 5, with the
      points apart from the sums around them, else k_hess_apply_col) where nd <= nq
      for the compiled pairs, else with a thread per point (k_hess_apply); same doubles.
   6. L-vector ops for the device-resident solver (lsetup, E<->L with a CSR
      transpose in the CPU's summation order, axpby/dot/precond/constraints, fused
      pairs); dot products reduce in a fixed grid and order (deterministic).
   5. Energy and min det J reduce per element in the block, then one single-block
      kernel reduces over elements in a fixed order; one scalar crosses to the host.
   All offsets into per-point and per-node arrays are 64-bit. Every CUDA call and
   launch is checked (HX_CALL_CUDA). */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>

extern "C" {
#include "hx_basis.h"
#include "hx_error.h"
}
#include "hx_kernels.h"
#include "hx_detj_point.h"
#include "hx_lvec_point.h"
#include "hx_metric_point.h"

#define HX_CALL_CUDA(expr)                                                                                                       \
  do {                                                                                                                           \
    cudaError_t hx_ce_ = (expr);                                                                                                 \
    if (hx_ce_ != cudaSuccess)                                                                                                   \
      return hx_error_set(HX_ERR_BACKEND, __FILE__, __LINE__, "CUDA: %s failed: %s", #expr, cudaGetErrorString(hx_ce_));         \
  } while (0)
/* after a launch: configuration errors now, execution errors at the next sync */
#define HX_CHECK_LAUNCH(name) HX_CALL_CUDA(cudaGetLastError())

namespace {

/* ------------------------------------------------------------------ parameters */

/* Everything a kernel needs besides its vectors (passed by value). */
struct kparams {
  int nd, nq, tpe, epb;
  long long num_elem;
  int metric;
  double par;
  double scale;
  int w_const, wscalar, w_elem;
  double Winv_c[9];
  double detW_c;
  const double *Winv;       /* device [num_elem][nq^3][9] or NULL */
  const double *detW;       /* device [num_elem][nq^3] or NULL */
  const double *B, *G, *wq; /* device [nq][nd], [nq][nd], [nq] */
  double *abg;              /* metric 303 on the fly: hx_m303_abg's scalars per point [num_elem][3][nq^3], or NULL */
};

struct cuda_data {
  double *B, *G, *wq;  /* device copies of pa->B, pa->G, pa->wq */
  double *Winv, *detW; /* device per-point target (NULL if w_const) */
  double *elem_val;    /* [num_elem] per-element energy / min det J */
  double *scalar;      /* [1] reduction result */
  double *H;           /* stored Hessian [num_elem][81][nq^3] */
  double *Alin;        /* on-the-fly: A(x_lin) [alin_elems][9][nq^3] */
  double *Aabg;        /* on-the-fly with metric 303: hx_m303_abg of T(x_lin) [alin_elems][3][nq^3] */
  /* elements Alin holds: num_elem (written by hess_setup) or a chunk's (remade before every action
     and diagonal, a chunk of elements at a time: alin_choose) */
  long long alin_elems;
  const double *x_lin; /* borrowed linearization point (device E-vector) */
  int wscalar;
  int smem_optin; /* device's opt-in shared memory per block (bytes) */
  /* L-space (lsetup) */
  long long nl, ncurved;
  int *e2l;             /* [num_elem nd^3] */
  long long *loff;      /* [nl + 1] CSR transpose of e2l */
  int *lidx;            /* [num_elem nd^3] E-nodes per L-node, ascending */
  unsigned char *owned; /* [nl] or NULL */
  int *ncon;            /* [nl] */
  double *nrm;          /* [nl][9] */
  int *curved;          /* [ncurved] */
  long long nshared;
  int *shared;    /* [nshared] the nodes other ranks hold too */
  double *part;   /* [DOT_BLOCKS] dot partial sums */
  double *lim_x0; /* the limiting term: x0 (E-vector) and c_e per element (NULL if !pa->lim) */
  double *lim_coef;
};

/* ------------------------------------------------------------------ shared layout */

/* doubles of shared memory per element for the flux kernels */
__host__ __device__ inline size_t elem_smem(int nd, int nq) {
  return (size_t)3 * nd * nd * nd + (size_t)6 * nd * nd * nq + (size_t)9 * nd * nq * nq + (size_t)9 * nq * nq * nq;
}
/* the diagonal keeps 27 per point (W^{-1} H_c W^{-T}) instead of 9 */
__host__ __device__ inline size_t elem_smem_diag(int nd, int nq) {
  return (size_t)3 * nd * nd * nd + (size_t)6 * nd * nd * nq + (size_t)9 * nd * nq * nq + (size_t)27 * nq * nq * nq;
}
/* doubles of shared memory per block for the 1D tables: B G BB BG GG (nq nd each), wq */
__host__ __device__ inline size_t table_smem(int nd, int nq) { return (size_t)5 * nq * nd + nq; }

struct elem_sh {
  double *u;  /* [3][nd^3] nodal values */
  double *s1; /* [2][3][nd^2][nq] */
  double *s2; /* [3][3][nd][nq^2] */
  double *F;  /* [9 or 27][nq^3] per-point data (structure of arrays) */
};

__device__ inline elem_sh elem_layout(double *base, int nd, int nq) {
  elem_sh s;
  s.u = base;
  s.s1 = s.u + 3 * nd * nd * nd;
  s.s2 = s.s1 + 6 * nd * nd * nq;
  s.F = s.s2 + 9 * nd * nq * nq;
  return s;
}

/* ------------------------------------------------------------------ contractions */

/* u (shared, [3][nd^3]) -> A at every point: out[(3c+d) * nq3 + q] (shared).
   Threads tl = 0..tpe-1 of the element; the caller syncs before (u loaded). */
template <int ND, int NQ>
__device__ __forceinline__ void forward(int nd_, int nq_, int tpe, int tl, const double *__restrict__ Bs,
                                        const double *__restrict__ Gs, elem_sh s, double *out) {
  const int nd = ND ? ND : nd_, nq = NQ ? NQ : nq_;
  const int nd2 = nd * nd, nq2 = nq * nq, nq3 = nq2 * nq;
  double *bx = s.s1, *gx = s.s1 + 3 * nd2 * nq;                        /* [c][k][j][qx] */
  double *bb = s.s2, *bg = bb + 3 * nd * nq2, *gb = bg + 3 * nd * nq2; /* [c][k][qy][qx] */
  for (int idx = tl; idx < 3 * nd2 * nq; idx += tpe) {
    int qx = idx % nq, ckj = idx / nq;
    const double *ur = s.u + ckj * nd;
    double sb = 0, sg = 0;
    for (int i = 0; i < nd; i++) {
      sb += Bs[qx * nd + i] * ur[i];
      sg += Gs[qx * nd + i] * ur[i];
    }
    bx[idx] = sb;
    gx[idx] = sg;
  }
  __syncthreads();
  for (int idx = tl; idx < 3 * nd * nq2; idx += tpe) {
    int qx = idx % nq, qy = (idx / nq) % nq, ck = idx / nq2;
    double s_bb = 0, s_bg = 0, s_gb = 0;
    for (int j = 0; j < nd; j++) {
      double vb = bx[(ck * nd + j) * nq + qx], vg = gx[(ck * nd + j) * nq + qx];
      s_bb += Bs[qy * nd + j] * vb;
      s_bg += Gs[qy * nd + j] * vb;
      s_gb += Bs[qy * nd + j] * vg;
    }
    bb[idx] = s_bb;
    bg[idx] = s_bg;
    gb[idx] = s_gb;
  }
  __syncthreads();
  for (int idx = tl; idx < 3 * nq3; idx += tpe) {
    int q = idx % nq3, c = idx / nq3;
    int qz = q / nq2, qyx = q % nq2;
    double d0 = 0, d1 = 0, d2 = 0;
    for (int k = 0; k < nd; k++) {
      int o = (c * nd + k) * nq2 + qyx;
      d0 += Bs[qz * nd + k] * gb[o];
      d1 += Bs[qz * nd + k] * bg[o];
      d2 += Gs[qz * nd + k] * bb[o];
    }
    out[(3 * c + 0) * nq3 + q] = d0;
    out[(3 * c + 1) * nq3 + q] = d1;
    out[(3 * c + 2) * nq3 + q] = d2;
  }
  __syncthreads();
}

/* F (shared, [9][nq^3], F[(3c+d) nq3 + q]) -> y[c][b] = sum_q sum_d D_{b,d}(q) F_cd(q),
   written to global y (the element's slice). The caller syncs before (F complete). */
template <int ND, int NQ>
__device__ __forceinline__ void transposed(int nd_, int nq_, int tpe, int tl, const double *__restrict__ Bs,
                                           const double *__restrict__ Gs, elem_sh s, double *__restrict__ y) {
  const int nd = ND ? ND : nd_, nq = NQ ? NQ : nq_;
  const int nd2 = nd * nd, nq2 = nq * nq, nq3 = nq2 * nq;
  double *t0 = s.s2, *t1 = t0 + 3 * nd * nq2, *t2 = t1 + 3 * nd * nq2; /* [c][k][qy][qx] */
  double *sgx = s.s1, *sbx = s.s1 + 3 * nd2 * nq;                      /* [c][k][j][qx] */
  for (int idx = tl; idx < 3 * nd * nq2; idx += tpe) {
    int qyx = idx % nq2, k = (idx / nq2) % nd, c = idx / (nd * nq2);
    const double *F0 = s.F + (3 * c) * nq3, *F1 = F0 + nq3, *F2 = F1 + nq3;
    double a0 = 0, a1 = 0, a2 = 0;
    for (int qz = 0; qz < nq; qz++) {
      double b = Bs[qz * nd + k];
      int q = qz * nq2 + qyx;
      a0 += b * F0[q];
      a1 += b * F1[q];
      a2 += Gs[qz * nd + k] * F2[q];
    }
    t0[idx] = a0;
    t1[idx] = a1;
    t2[idx] = a2;
  }
  __syncthreads();
  for (int idx = tl; idx < 3 * nd2 * nq; idx += tpe) {
    int qx = idx % nq, j = (idx / nq) % nd, ck = idx / (nd * nq);
    double ag = 0, ab = 0;
    for (int qy = 0; qy < nq; qy++) {
      int o = (ck * nq + qy) * nq + qx;
      double b = Bs[qy * nd + j];
      ag += b * t0[o];
      ab += Gs[qy * nd + j] * t1[o] + b * t2[o];
    }
    sgx[idx] = ag;
    sbx[idx] = ab;
  }
  __syncthreads();
  for (int idx = tl; idx < 3 * nd2 * nd; idx += tpe) {
    int i = idx % nd, ckj = idx / nd;
    double a = 0;
    for (int qx = 0; qx < nq; qx++) a += Gs[qx * nd + i] * sgx[ckj * nq + qx] + Bs[qx * nd + i] * sbx[ckj * nq + qx];
    y[idx] = a;
  }
}

/* ------------------------------------------------------------------ point helpers */

/* the target at point q of element el (gq = el nq^3 + q): per point, per element or constant */
__device__ __forceinline__ const double *point_winv(const kparams &p, long long el, long long gq) {
  return p.w_const ? p.Winv_c : p.Winv + 9 * (p.w_elem ? el : gq);
}
__device__ __forceinline__ double point_weight(const kparams &p, const double *wq, int q, long long el, long long gq) {
  const int nq = p.nq;
  double w3 = wq[q % nq] * wq[(q / nq) % nq] * wq[q / (nq * nq)];
  return p.scale * (p.w_const ? w3 * p.detW_c : w3 * p.detW[p.w_elem ? el : gq]);
}
__device__ __forceinline__ void mul_winv(const kparams &p, const double *M, const double *Wi, double *R) {
  if (p.wscalar) {
    double s = Wi[0];
    for (int i = 0; i < 9; i++) R[i] = s * M[i];
  } else {
    hx_m3_mul(M, Wi, R);
  }
}
__device__ __forceinline__ void flux(const kparams &p, const double *M, const double *Wi, double s, double *F) {
  if (p.wscalar) {
    s *= Wi[0];
    for (int i = 0; i < 9; i++) F[i] = s * M[i];
    return;
  }
  for (int c = 0; c < 3; c++)
    for (int d = 0; d < 3; d++)
      F[3 * c + d] = s * (M[3 * c] * Wi[3 * d] + M[3 * c + 1] * Wi[3 * d + 1] + M[3 * c + 2] * Wi[3 * d + 2]);
}

/* ------------------------------------------------------------------ block prologue */

/* Loads the 1D tables into shared memory; returns the element's shared layout,
   sets tl (thread in element), el (global element, may be >= num_elem). */
struct block_ctx {
  double *Bs, *Gs, *BB, *BG, *GG, *wq;
  elem_sh s;
  int tl;
  long long el;
  bool active;
};

template <int ND, int NQ> __device__ __forceinline__ block_ctx prologue(const kparams &p, bool diag) {
  extern __shared__ double smem[];
  const int nd = ND ? ND : p.nd, nq = NQ ? NQ : p.nq;
  block_ctx b;
  b.Bs = smem;
  b.Gs = b.Bs + nq * nd;
  b.BB = b.Gs + nq * nd;
  b.BG = b.BB + nq * nd;
  b.GG = b.BG + nq * nd;
  b.wq = b.GG + nq * nd;
  for (int i = threadIdx.x; i < nq * nd; i += blockDim.x) {
    double bv = p.B[i], gv = p.G[i];
    b.Bs[i] = bv;
    b.Gs[i] = gv;
    b.BB[i] = bv * bv;
    b.BG[i] = bv * gv;
    b.GG[i] = gv * gv;
  }
  for (int i = threadIdx.x; i < nq; i += blockDim.x) b.wq[i] = p.wq[i];
  int sub = threadIdx.x / p.tpe;
  b.tl = threadIdx.x % p.tpe;
  b.el = (long long)blockIdx.x * p.epb + sub;
  b.active = b.el < p.num_elem;
  size_t per = diag ? elem_smem_diag(nd, nq) : elem_smem(nd, nq);
  b.s = elem_layout(smem + table_smem(nd, nq) + per * sub, nd, nq);
  return b;
}

template <int ND, int NQ>
__device__ __forceinline__ void load_u(const kparams &p, const block_ctx &b, const double *__restrict__ x) {
  const int nd = ND ? ND : p.nd;
  const int npe = 3 * nd * nd * nd;
  if (b.active) {
    const double *xe = x + (size_t)b.el * npe;
    for (int i = b.tl; i < npe; i += p.tpe) b.s.u[i] = xe[i];
  } else {
    for (int i = b.tl; i < npe; i += p.tpe) b.s.u[i] = 0.0;
  }
}

/* ------------------------------------------------------------------ kernels */

/* mode 0: energy (per-element sum of wt mu); mode 1: min det A */
template <int ND, int NQ>
__global__ void k_scalar(kparams p, const double *__restrict__ x, double *__restrict__ elem_val, int mode) {
  const int nq = NQ ? NQ : p.nq, nq3 = nq * nq * nq;
  block_ctx b = prologue<ND, NQ>(p, false);
  load_u<ND, NQ>(p, b, x);
  __syncthreads();
  forward<ND, NQ>(p.nd, p.nq, p.tpe, b.tl, b.Bs, b.Gs, b.s, b.s.F);
  double acc = mode == 0 ? 0.0 : HUGE_VAL;
  if (b.active)
    for (int q = b.tl; q < nq3; q += p.tpe) {
      double A[9], T[9];
      for (int i = 0; i < 9; i++) A[i] = b.s.F[i * nq3 + q];
      if (mode == 0) {
        long long gq = b.el * nq3 + q;
        mul_winv(p, A, point_winv(p, b.el, gq), T);
        acc += point_weight(p, b.wq, q, b.el, gq) * hx_metric_mu(p.metric, p.par, T);
      } else {
        double d = hx_m3_det(A);
        acc = (isnan(d) || isnan(acc)) ? NAN : fmin(acc, d);
      }
    }
  __syncthreads();
  /* per-element reduction in the element's u area (free now) */
  double *red = b.s.u;
  red[b.tl] = acc;
  __syncthreads();
  if (b.tl == 0 && b.active) {
    double r = red[0];
    for (int t = 1; t < p.tpe; t++) {
      double v = red[t];
      if (mode == 0) r += v;
      else r = (isnan(r) || isnan(v)) ? NAN : fmin(r, v);
    }
    elem_val[b.el] = r;
  }
}

/* gradient: F = wt P(T) W^{-T} */
template <int ND, int NQ> __global__ void k_grad(kparams p, const double *__restrict__ x, double *__restrict__ g) {
  const int nd = ND ? ND : p.nd, nq = NQ ? NQ : p.nq, nq3 = nq * nq * nq;
  block_ctx b = prologue<ND, NQ>(p, false);
  load_u<ND, NQ>(p, b, x);
  __syncthreads();
  forward<ND, NQ>(p.nd, p.nq, p.tpe, b.tl, b.Bs, b.Gs, b.s, b.s.F);
  for (int q = b.tl; q < nq3; q += p.tpe) {
    double A[9], T[9], P[9], F[9];
    for (int i = 0; i < 9; i++) A[i] = b.s.F[i * nq3 + q];
    long long gq = b.el * nq3 + q;
    if (b.active) {
      const double *Wi = point_winv(p, b.el, gq);
      mul_winv(p, A, Wi, T);
      hx_metric_P(p.metric, p.par, T, P);
      flux(p, P, Wi, point_weight(p, b.wq, q, b.el, gq), F);
    } else {
      for (int i = 0; i < 9; i++) F[i] = 0;
    }
    for (int i = 0; i < 9; i++) b.s.F[i * nq3 + q] = F[i];
  }
  __syncthreads();
  double dummy[1];
  transposed<ND, NQ>(p.nd, p.nq, p.tpe, b.tl, b.Bs, b.Gs, b.s, b.active ? g + (size_t)b.el * 3 * nd * nd * nd : dummy);
}

/* stored strategy setup: H(T) per point, [num_elem][81][nq^3] */
template <int ND, int NQ> __global__ void k_hess_store(kparams p, const double *__restrict__ x, double *__restrict__ H) {
  const int nq = NQ ? NQ : p.nq, nq3 = nq * nq * nq;
  block_ctx b = prologue<ND, NQ>(p, false);
  load_u<ND, NQ>(p, b, x);
  __syncthreads();
  forward<ND, NQ>(p.nd, p.nq, p.tpe, b.tl, b.Bs, b.Gs, b.s, b.s.F);
  if (!b.active) return;
  for (int q = b.tl; q < nq3; q += p.tpe) {
    double A[9], T[9], Hq[81];
    for (int i = 0; i < 9; i++) A[i] = b.s.F[i * nq3 + q];
    long long gq = b.el * nq3 + q;
    mul_winv(p, A, point_winv(p, b.el, gq), T);
    hx_metric_H(p.metric, p.par, T, Hq);
    double *Ho = H + (size_t)b.el * 81 * nq3 + q;
    for (int k = 0; k < 81; k++) Ho[(size_t)k * nq3] = Hq[k];
  }
}

/* on-the-fly setup: A(x_lin) per point, [num_elem][9][nq^3] (coalesced in the apply) */
template <int ND, int NQ> __global__ void k_jac_store(kparams p, const double *__restrict__ x, double *__restrict__ Aout) {
  const int nq = NQ ? NQ : p.nq, nq3 = nq * nq * nq;
  block_ctx b = prologue<ND, NQ>(p, false);
  load_u<ND, NQ>(p, b, x);
  __syncthreads();
  forward<ND, NQ>(p.nd, p.nq, p.tpe, b.tl, b.Bs, b.Gs, b.s, b.s.F);
  if (!b.active) return;
  double *Ao = Aout + (size_t)b.el * 9 * nq3;
  for (int i = 0; i < 9; i++)
    for (int q = b.tl; q < nq3; q += p.tpe) Ao[(size_t)i * nq3 + q] = b.s.F[i * nq3 + q];
  if (p.abg) /* metric 303: the scalars of H(T) that need a cube root and divisions, once per Newton step */
    for (int q = b.tl; q < nq3; q += p.tpe) {
      double A[9], T[9], abg[3];
      for (int i = 0; i < 9; i++) A[i] = b.s.F[i * nq3 + q];
      mul_winv(p, A, point_winv(p, b.el, b.el * nq3 + q), T);
      hx_m303_abg(T, abg);
      for (int i = 0; i < 3; i++) p.abg[((size_t)b.el * 3 + i) * nq3 + q] = abg[i];
    }
}

/* Hessian action: F = wt dP W^{-T}, dP = H:dT (stored H or recomputed from x_lin) */
/* MINB: blocks per SM the compiler must fit (register cap); the metric-303 kernel
   runs with MINB = 3 (80 registers, some spills, 3 blocks of 216 threads per SM)
   or 2 (116 registers, no spills, 2 blocks): see happly_minb */
/* The stored-H kernel keeps the compiler's own choice for 1024-thread blocks (64
   registers: with a 216-thread bound it took 226 and fell from 96 % to 71 % of the
   copy roofline). */
template <int ND, int NQ, bool STORED, int MET = 0, int MINB = 1>
__global__ void __launch_bounds__((STORED    ? 1024
                                   : NQ == 6 ? 216
                                             : 256),
                                  MINB) k_hess_apply(kparams p, const double *__restrict__ xl, const double *__restrict__ H,
                                                     const double *__restrict__ dx, double *__restrict__ y) {
  const int nd = ND ? ND : p.nd, nq = NQ ? NQ : p.nq, nq3 = nq * nq * nq;
  block_ctx b = prologue<ND, NQ>(p, false);
  /* points per thread: 1 when nq^3 <= 256 is known at compile time, else up to 4 */
  constexpr int RP = (NQ && NQ * NQ * NQ <= 256) ? 1 : 4;
  double Ax[STORED ? 1 : 9 * RP]; /* A(x_lin) of this thread's points, in registers */
  (void)xl;
  if (!STORED && b.active) {
    /* on-the-fly: H holds A(x_lin) [num_elem][9][nq^3], written by hess_setup
       (9 doubles per point instead of 81; dP is recomputed from T below) */
    const double *Ae = H + (size_t)b.el * 9 * nq3;
#pragma unroll
    for (int r = 0; r < RP; r++) {
      int q = b.tl + r * p.tpe;
      if (q < nq3)
        for (int i = 0; i < 9; i++) Ax[9 * r + i] = Ae[(size_t)i * nq3 + q];
    }
  }
  load_u<ND, NQ>(p, b, dx);
  __syncthreads();
  forward<ND, NQ>(p.nd, p.nq, p.tpe, b.tl, b.Bs, b.Gs, b.s, b.s.F);
#pragma unroll
  for (int r = 0; r < RP; r++) {
    int q = b.tl + r * p.tpe;
    if (q >= nq3) break;
    double dA[9], dT[9], dP[9], F[9];
    for (int i = 0; i < 9; i++) dA[i] = b.s.F[i * nq3 + q];
    long long gq = b.el * nq3 + q;
    if (b.active) {
      const double *Wi = point_winv(p, b.el, gq);
      mul_winv(p, dA, Wi, dT);
      if (STORED) {
        const double *Hq = H + (size_t)b.el * 81 * nq3 + q;
        for (int kl = 0; kl < 9; kl++) dP[kl] = 0;
        for (int ij = 0; ij < 9; ij++) {
          double t = dT[ij];
          for (int kl = 0; kl < 9; kl++) dP[kl] += t * Hq[(size_t)(9 * ij + kl) * nq3];
        }
      } else {
        double T[9];
        mul_winv(p, Ax + 9 * r, Wi, T);
        /* MET = 303: the metric is known at compile time (far fewer registers than the switch) */
        if (MET == 303) hx_m303_dP(T, p.par, dT, dP);
        else hx_metric_dP(p.metric, p.par, T, dT, dP);
      }
      flux(p, dP, Wi, point_weight(p, b.wq, q, b.el, gq), F);
    } else {
      for (int i = 0; i < 9; i++) F[i] = 0;
    }
    for (int i = 0; i < 9; i++) b.s.F[i * nq3 + q] = F[i];
  }
  __syncthreads();
  double dummy[1];
  transposed<ND, NQ>(p.nd, p.nq, p.tpe, b.tl, b.Bs, b.Gs, b.s, b.active ? y + (size_t)b.el * 3 * nd * nd * nd : dummy);
}

/* ------------------------------------------------------------------ the column Hessian action */

/* The on-the-fly Hessian action with one thread per (qx, qy) column of an element's quadrature
   points and the z direction in the thread: EPB elements per block of EPB nq^2 threads.
   Forward: the x contraction (shared, a barrier), the y contraction of the thread's own column
   into shared memory only it reads (9 nd values), then per qz the z contraction, the point's dP
   and flux, and the transposed z contraction accumulated in registers (9 nd); the transposed y
   and x contractions go through shared memory (two barriers). Against the kernel with one
   thread per point (k_hess_apply): the points' A and flux never touch shared memory, the
   z stages read only the thread's own column, and 3 barriers instead of 7. With metric 303 the
   point reads hx_m303_abg's scalars, written by the setup (k_jac_store) once per Newton step,
   instead of a cube root and three divisions per point per action. Every sum runs in the same
   order and form as k_hess_apply's (the same doubles: t450). Shared memory per element: max(u,
   the y stage, the transposed z stage) + the x stage. Needs nd <= nq. */
template <int ND, int NQ> struct col_size {
  static constexpr int U = 3 * ND * ND * ND, T = 9 * ND * NQ * NQ;
  static constexpr int RA = U > T ? U : T, RB = 6 * ND * ND * NQ, PER = RA + RB;
  static constexpr int TAB = 2 * NQ * ND + NQ;
};

/* b[r] = Bs[off + r stride], g[r] = Gs[off + r stride], r < N: a row (stride 1) or a column
   (stride nd) of the 1D tables into registers */
template <int N>
__device__ __forceinline__ void bg_load(const double *Bs, const double *Gs, int off, int stride, double *b, double *g) {
#pragma unroll
  for (int r = 0; r < N; r++) {
    b[r] = Bs[off + r * stride];
    g[r] = Gs[off + r * stride];
  }
}

/* the column kernels' stages shared by k_hess_apply_col and k_hess_apply_split (thread (qx, qy) of
   the element; the caller places the barriers) */

/* the x contraction: u [c][k][j][i] -> bx, gx [c][k][j][qx], thread (qx, j = qy) */
template <int ND, int NQ>
__device__ __forceinline__ void col_x(const double *Bs, const double *Gs, int qx, int qy, const double *u, double *bx,
                                      double *gx) {
  constexpr int CK = 3 * ND;
  if (qy >= ND) return;
  const int j = qy;
  double b[ND], g[ND];
  bg_load<ND>(Bs, Gs, qx * ND, 1, b, g);
#pragma unroll
  for (int ck = 0; ck < CK; ck++) {
    const double *ur = u + (ck * ND + j) * ND;
    double sb = 0, sg = 0;
#pragma unroll
    for (int i = 0; i < ND; i++) {
      sb += b[i] * ur[i];
      sg += g[i] * ur[i];
    }
    bx[(ck * ND + j) * NQ + qx] = sb;
    gx[(ck * ND + j) * NQ + qx] = sg;
  }
}

/* the y contraction of column (qx, qy) from bx, gx: bb, bg, gb [c][k], handed to put(ck, bb, bg, gb) */
template <int ND, int NQ, typename PUT>
__device__ __forceinline__ void col_y(const double *Bs, const double *Gs, int qx, int qy, const double *bx, const double *gx,
                                      PUT put) {
  constexpr int CK = 3 * ND;
  double b[ND], g[ND];
  bg_load<ND>(Bs, Gs, qy * ND, 1, b, g);
#pragma unroll
  for (int ck = 0; ck < CK; ck++) {
    double s_bb = 0, s_bg = 0, s_gb = 0;
#pragma unroll
    for (int j = 0; j < ND; j++) {
      double vb = bx[(ck * ND + j) * NQ + qx], vg = gx[(ck * ND + j) * NQ + qx];
      s_bb += b[j] * vb;
      s_bg += g[j] * vb;
      s_gb += b[j] * vg;
    }
    put(ck, s_bb, s_bg, s_gb);
  }
}

/* the point qz of column tl: dA (9) -> F (9) = wt dP W^{-T} with dP = H(T(x_lin)):dT */
template <int NQ, int MET>
__device__ __forceinline__ void col_point(const kparams &p, const double *__restrict__ Ae, const double *wq, long long el, int q,
                                          const double *dA, double *F) {
  constexpr int NQ3 = NQ * NQ * NQ;
  const long long gq = el * NQ3 + q;
  const double *Wi = point_winv(p, el, gq);
  double Ax[9], dT[9], T[9], dP[9];
#pragma unroll
  for (int i = 0; i < 9; i++) Ax[i] = Ae[(size_t)i * NQ3 + q];
  mul_winv(p, dA, Wi, dT);
  mul_winv(p, Ax, Wi, T);
  if (MET == 303) { /* hx_m303_abg's scalars from the setup (launch_col_epb: only where p.abg is set) */
    double abg[3];
#pragma unroll
    for (int i = 0; i < 3; i++) abg[i] = p.abg[((size_t)el * 3 + i) * NQ3 + q];
    hx_m303_dP_abg(T, abg, dT, dP);
  } else if (MET == 318) { /* the meshers' size metric: compiled in, as the switch holds registers */
    hx_m318_dP(T, p.par, dT, dP);
  } else {
    hx_metric_dP(p.metric, p.par, T, dT, dP);
  }
  flux(p, dP, Wi, point_weight(p, wq, q, el, gq), F);
}

/* the transposed y contraction: t0, t1, t2 [c][k][qy][qx] -> sgx, sbx [c][k][j][qx], thread (qx, j = qy) */
template <int ND, int NQ>
__device__ __forceinline__ void col_ty(const double *Bs, const double *Gs, int qx, int qy, const double *t0, const double *t1,
                                       const double *t2, double *sgx, double *sbx) {
  constexpr int CK = 3 * ND;
  if (qy >= ND) return;
  const int j = qy;
  double b[NQ], g[NQ];
  bg_load<NQ>(Bs, Gs, j, ND, b, g);
#pragma unroll
  for (int ck = 0; ck < CK; ck++) {
    double ag = 0, ab = 0;
#pragma unroll
    for (int r = 0; r < NQ; r++) {
      int o = (ck * NQ + r) * NQ + qx;
      ag += b[r] * t0[o];
      ab += g[r] * t1[o] + b[r] * t2[o];
    }
    sgx[(ck * ND + j) * NQ + qx] = ag;
    sbx[(ck * ND + j) * NQ + qx] = ab;
  }
}

/* the transposed x contraction to the element's output ye: thread (i = qx, j = qy) */
template <int ND, int NQ>
__device__ __forceinline__ void col_tx(const double *Bs, const double *Gs, int qx, int qy, const double *sgx, const double *sbx,
                                       double *ye) {
  constexpr int CK = 3 * ND;
  if (qx >= ND || qy >= ND) return;
  const int i = qx, j = qy;
  double b[NQ], g[NQ];
  bg_load<NQ>(Bs, Gs, i, ND, b, g);
#pragma unroll
  for (int ck = 0; ck < CK; ck++) {
    const int ckj = ck * ND + j;
    double a = 0;
#pragma unroll
    for (int r = 0; r < NQ; r++) a += g[r] * sgx[ckj * NQ + r] + b[r] * sbx[ckj * NQ + r];
    ye[ckj * ND + i] = a;
  }
}

/* the transposed z contraction's step at point qz of the column: a0, a1, a2 [c][k] += the point's
   flux F times B, B, G (qz, k) */
template <int ND>
__device__ __forceinline__ void col_tz_add(const double *Bs, const double *Gs, int qz, const double *F, double *a0, double *a1,
                                           double *a2) {
#pragma unroll
  for (int c = 0; c < 3; c++)
#pragma unroll
    for (int k = 0; k < ND; k++) {
      double b = Bs[qz * ND + k];
      a0[c * ND + k] += b * F[3 * c];
      a1[c * ND + k] += b * F[3 * c + 1];
      a2[c * ND + k] += Gs[qz * ND + k] * F[3 * c + 2];
    }
}

/* the column's transposed z sums to its own slots of t (t0, t1, t2 [c][k][qy][qx]), then the
   transposed y (to sx: sgx, sbx) and x contractions to ye (NULL: an inactive element); every
   thread of the block calls it (two barriers) */
template <int ND, int NQ>
__device__ __forceinline__ void col_finish(const double *Bs, const double *Gs, int qx, int qy, const double *a0, const double *a1,
                                           const double *a2, double *t, double *sx, double *ye) {
  constexpr int NQ2 = NQ * NQ, CK = 3 * ND;
  const int tl = qy * NQ + qx;
  double *t0 = t, *t1 = t0 + CK * NQ2, *t2 = t1 + CK * NQ2;
#pragma unroll
  for (int o = 0; o < CK; o++) {
    t0[o * NQ2 + tl] = a0[o];
    t1[o * NQ2 + tl] = a1[o];
    t2[o * NQ2 + tl] = a2[o];
  }
  __syncthreads();
  double *sgx = sx, *sbx = sx + 3 * ND * ND * NQ;
  col_ty<ND, NQ>(Bs, Gs, qx, qy, t0, t1, t2, sgx, sbx);
  __syncthreads();
  if (ye) col_tx<ND, NQ>(Bs, Gs, qx, qy, sgx, sbx, ye);
}

/* a column kernel's thread: the block's 1D tables, its element el (active: el < num_elem), its
   column tl = (qx, qy) and the element's area r of per doubles in shared memory */
struct col_ctx {
  double *Bs, *Gs, *wq, *r;
  int tl, qx, qy;
  long long el;
  bool active;
};

/* loads the block's 1D tables and the element's u (at r) for the column kernels; the caller syncs */
template <int ND, int NQ, int EPB>
__device__ __forceinline__ col_ctx col_begin(const kparams &p, const double *__restrict__ dx, int per) {
  constexpr int U = 3 * ND * ND * ND, NQ2 = NQ * NQ;
  extern __shared__ double smem[];
  col_ctx c;
  c.Bs = smem;
  c.Gs = c.Bs + NQ * ND;
  c.wq = c.Gs + NQ * ND;
  const int sub = threadIdx.x / NQ2;
  c.tl = threadIdx.x % NQ2;
  c.qx = c.tl % NQ;
  c.qy = c.tl / NQ;
  c.el = (long long)blockIdx.x * EPB + sub;
  c.active = c.el < p.num_elem;
  c.r = smem + col_size<ND, NQ>::TAB + (size_t)sub * per;
  for (int i = threadIdx.x; i < NQ * ND; i += blockDim.x) {
    c.Bs[i] = p.B[i];
    c.Gs[i] = p.G[i];
  }
  for (int i = threadIdx.x; i < NQ; i += blockDim.x) c.wq[i] = p.wq[i];
  if (c.active) {
    const double *xe = dx + (size_t)c.el * U;
    for (int i = c.tl; i < U; i += NQ2) c.r[i] = xe[i];
  } else {
    for (int i = c.tl; i < U; i += NQ2) c.r[i] = 0.0;
  }
  return c;
}

template <int ND, int NQ, int MET, int EPB, int MINB>
__global__ void __launch_bounds__(EPB *NQ *NQ, MINB)
    k_hess_apply_col(kparams p, const double *__restrict__ Alin, const double *__restrict__ dx, double *__restrict__ y) {
  typedef col_size<ND, NQ> S;
  constexpr int NQ2 = NQ * NQ, ND2 = ND * ND, CK = 3 * ND;
  const col_ctx cx = col_begin<ND, NQ, EPB>(p, dx, S::PER);
  double *Bs = cx.Bs, *Gs = cx.Gs, *wq = cx.wq, *ra = cx.r, *rb = ra + S::RA;
  const int tl = cx.tl, qx = cx.qx, qy = cx.qy;
  const long long el = cx.el;
  const bool active = cx.active;
  __syncthreads();
  double *bx = rb, *gx = rb + 3 * ND2 * NQ;
  col_x<ND, NQ>(Bs, Gs, qx, qy, ra, bx, gx);
  __syncthreads();
  /* y: the column's bb, bg, gb [c][k] into shared memory that only this thread reads
     (the u area: u is no longer read after the barrier above), [3][c][k][column] */
  double *rgb = ra, *rbg = ra + CK * NQ2, *rbb = ra + 2 * CK * NQ2;
  col_y<ND, NQ>(Bs, Gs, qx, qy, bx, gx, [&](int ck, double s_bb, double s_bg, double s_gb) {
    rbb[ck * NQ2 + tl] = s_bb;
    rbg[ck * NQ2 + tl] = s_bg;
    rgb[ck * NQ2 + tl] = s_gb;
  });
  /* z, the point, and the transposed z, per qz */
  double a0[CK], a1[CK], a2[CK];
#pragma unroll
  for (int o = 0; o < CK; o++) a0[o] = a1[o] = a2[o] = 0;
  const double *Ae = Alin + (size_t)(active ? el : 0) * 9 * NQ * NQ2;
#pragma unroll 1
  for (int qz = 0; qz < NQ; qz++) {
    const int q = qz * NQ2 + tl;
    double F[9];
    if (active) {
      double dA[9];
#pragma unroll
      for (int c = 0; c < 3; c++) {
        double d0 = 0, d1 = 0, d2 = 0;
#pragma unroll
        for (int k = 0; k < ND; k++) {
          const int o = (c * ND + k) * NQ2 + tl;
          d0 += Bs[qz * ND + k] * rgb[o];
          d1 += Bs[qz * ND + k] * rbg[o];
          d2 += Gs[qz * ND + k] * rbb[o];
        }
        dA[3 * c] = d0;
        dA[3 * c + 1] = d1;
        dA[3 * c + 2] = d2;
      }
      col_point<NQ, MET>(p, Ae, wq, el, q, dA, F);
    } else {
#pragma unroll
      for (int i = 0; i < 9; i++) F[i] = 0;
    }
    col_tz_add<ND>(Bs, Gs, qz, F, a0, a1, a2);
  }
  /* the transposed z stage to shared, over the column's y stage (the same slots: this thread's) */
  col_finish<ND, NQ>(Bs, Gs, qx, qy, a0, a1, a2, ra, rb, active ? y + (size_t)el * S::U : NULL);
}

/* The split column kernel: the column kernel's stages with the point apart from the sums around
   it, so that the 45 (at p = 4) z-direction values of the column are never live across the
   point: the y stage of the column in registers, then (after a barrier: the x stage is read no
   more) its z contraction to dA (9 values) at each of the column's nq points in shared memory
   that only this thread touches; the points, each dA replaced by its F in place; the transposed z contraction
   from those F in registers, written over them (the same slots). Far fewer live registers per
   thread than k_hess_apply_col for the same shared memory at p = 4 (an element's area holds u and
   the x stage, then the column's dA / F, then the transposed z and transposed y stages), and
   fewer shared-memory reads (the z contraction reads registers). Every sum in the same order and
   form as k_hess_apply (the same doubles: t450). */
template <int ND, int NQ> struct split_size {
  static constexpr int U = 3 * ND * ND * ND, X = 6 * ND * ND * NQ, T = 9 * ND * NQ * NQ, FA = 9 * NQ * NQ * NQ;
  static constexpr int M1 = U + X > FA ? U + X : FA, PER = M1 > T + X ? M1 : T + X;
  static constexpr int TAB = col_size<ND, NQ>::TAB; /* the block's tables (col_begin) */
};

template <int ND, int NQ, int MET, int EPB, int MINB>
__global__ void __launch_bounds__(EPB *NQ *NQ, MINB)
    k_hess_apply_split(kparams p, const double *__restrict__ Alin, const double *__restrict__ dx, double *__restrict__ y) {
  typedef split_size<ND, NQ> S;
  constexpr int NQ2 = NQ * NQ, ND2 = ND * ND, CK = 3 * ND;
  const col_ctx cx = col_begin<ND, NQ, EPB>(p, dx, S::PER);
  double *Bs = cx.Bs, *Gs = cx.Gs, *wq = cx.wq, *r = cx.r;
  const int tl = cx.tl, qx = cx.qx, qy = cx.qy;
  const long long el = cx.el;
  const bool active = cx.active;
  __syncthreads();
  double *bx = r + S::U, *gx = bx + 3 * ND2 * NQ;
  col_x<ND, NQ>(Bs, Gs, qx, qy, r, bx, gx);
  __syncthreads();
  double ybb[CK], ybg[CK], ygb[CK];
  col_y<ND, NQ>(Bs, Gs, qx, qy, bx, gx, [&](int ck, double s_bb, double s_bg, double s_gb) {
    ybb[ck] = s_bb;
    ybg[ck] = s_bg;
    ygb[ck] = s_gb;
  });
  __syncthreads(); /* bx, gx are read no more: the column's dA may cover them */
  double *fa = r;  /* the column's dA, then F: component i at point qz in slot (i NQ + qz) NQ2 + tl */
#pragma unroll
  for (int qz = 0; qz < NQ; qz++)
#pragma unroll
    for (int c = 0; c < 3; c++) {
      double d0 = 0, d1 = 0, d2 = 0;
#pragma unroll
      for (int k = 0; k < ND; k++) {
        d0 += Bs[qz * ND + k] * ygb[c * ND + k];
        d1 += Bs[qz * ND + k] * ybg[c * ND + k];
        d2 += Gs[qz * ND + k] * ybb[c * ND + k];
      }
      fa[((3 * c + 0) * NQ + qz) * NQ2 + tl] = d0;
      fa[((3 * c + 1) * NQ + qz) * NQ2 + tl] = d1;
      fa[((3 * c + 2) * NQ + qz) * NQ2 + tl] = d2;
    }
  const double *Ae = Alin + (size_t)(active ? el : 0) * 9 * NQ * NQ2;
#pragma unroll 1
  for (int qz = 0; qz < NQ; qz++) {
    double dA[9], F[9];
#pragma unroll
    for (int i = 0; i < 9; i++) dA[i] = fa[(i * NQ + qz) * NQ2 + tl];
    if (active) {
      col_point<NQ, MET>(p, Ae, wq, el, qz * NQ2 + tl, dA, F);
    } else {
#pragma unroll
      for (int i = 0; i < 9; i++) F[i] = 0;
    }
#pragma unroll
    for (int i = 0; i < 9; i++) fa[(i * NQ + qz) * NQ2 + tl] = F[i];
  }
  double a0[CK], a1[CK], a2[CK];
#pragma unroll
  for (int o = 0; o < CK; o++) a0[o] = a1[o] = a2[o] = 0;
#pragma unroll 1
  for (int qz = 0; qz < NQ; qz++) {
    double F[9];
#pragma unroll
    for (int i = 0; i < 9; i++) F[i] = fa[(i * NQ + qz) * NQ2 + tl];
    col_tz_add<ND>(Bs, Gs, qz, F, a0, a1, a2);
  }
  /* over the column's F (its own slots; every F is read above) */
  col_finish<ND, NQ>(Bs, Gs, qx, qy, a0, a1, a2, r, r + S::T, active ? y + (size_t)el * S::U : NULL);
}

/* Jacobi diagonal: Hh_c = wt W^{-1} H_{c.c.} W^{-T} per point (27), then for each
   (m, n) the three 1D contractions with BB/BG/GG, all three components at once. */
template <int ND, int NQ, bool STORED>
__global__ void k_diag(kparams p, const double *__restrict__ xl, const double *__restrict__ H, double *__restrict__ dg) {
  const int nd = ND ? ND : p.nd, nq = NQ ? NQ : p.nq, nq2 = nq * nq, nq3 = nq2 * nq, nd2 = nd * nd;
  block_ctx b = prologue<ND, NQ>(p, true);
  __syncthreads();    /* the 1D tables (weights) are read below */
  double *Hh = b.s.F; /* [27][nq3] */
  (void)xl;
  for (int q = b.tl; q < nq3; q += p.tpe) {
    double hkk[27];
    long long gq = b.el * nq3 + q;
    if (!b.active) {
      for (int i = 0; i < 27; i++) Hh[i * nq3 + q] = 0;
      continue;
    }
    const double *Wi = point_winv(p, b.el, gq);
    if (STORED) {
      const double *Hq = H + (size_t)b.el * 81 * nq3 + q;
      for (int k = 0; k < 3; k++)
        for (int j = 0; j < 3; j++)
          for (int l = 0; l < 3; l++) hkk[9 * k + 3 * j + l] = Hq[(size_t)(9 * (3 * k + j) + 3 * k + l) * nq3];
    } else {
      /* on-the-fly: H holds A(x_lin) [num_elem][9][nq^3] from hess_setup */
      double A[9], T[9];
      for (int i = 0; i < 9; i++) A[i] = H[((size_t)b.el * 9 + i) * nq3 + q];
      mul_winv(p, A, Wi, T);
      hx_metric_hkk(p.metric, p.par, T, hkk);
    }
    double wt = point_weight(p, b.wq, q, b.el, gq);
    for (int c = 0; c < 3; c++) {
      double M[9], R[9];
      hx_m3_mul(Wi, hkk + 9 * c, M);
      hx_m3_mul_abt(M, Wi, R);
      for (int i = 0; i < 9; i++) Hh[(9 * c + i) * nq3 + q] = wt * R[i];
    }
  }
  /* this thread's outputs idx = tl + r tpe < 3 nd^3, in registers (at most 8, see launch) */
  constexpr int RD = (ND && NQ && NQ * NQ * NQ <= 256) ? (3 * ND * ND * ND + NQ * NQ * NQ - 1) / (NQ * NQ * NQ) : 8;
  double acc[RD];
#pragma unroll
  for (int r = 0; r < RD; r++) acc[r] = 0;
  double *t1 = b.s.s2; /* [3][nq2][nd] */
  double *t2 = b.s.s1; /* [3][nq][nd2] */
  for (int m = 0; m < 3; m++)
    for (int n = 0; n < 3; n++) {
      const double *X0 = (m == 0 && n == 0) ? b.GG : (m == 0 || n == 0) ? b.BG : b.BB;
      const double *X1 = (m == 1 && n == 1) ? b.GG : (m == 1 || n == 1) ? b.BG : b.BB;
      const double *X2 = (m == 2 && n == 2) ? b.GG : (m == 2 || n == 2) ? b.BG : b.BB;
      __syncthreads();
      for (int idx = b.tl; idx < 3 * nq2 * nd; idx += p.tpe) {
        int i = idx % nd, qzy = (idx / nd) % nq2, c = idx / (nd * nq2);
        const double *Hc = Hh + (9 * c + 3 * m + n) * nq3 + qzy * nq;
        double s = 0;
        for (int qx = 0; qx < nq; qx++) s += X0[qx * nd + i] * Hc[qx];
        t1[idx] = s;
      }
      __syncthreads();
      for (int idx = b.tl; idx < 3 * nq * nd2; idx += p.tpe) {
        int i = idx % nd, j = (idx / nd) % nd, qz = (idx / nd2) % nq, c = idx / (nd2 * nq);
        double s = 0;
        for (int qy = 0; qy < nq; qy++) s += X1[qy * nd + j] * t1[((c * nq + qz) * nq + qy) * nd + i];
        t2[idx] = s;
      }
      __syncthreads();
#pragma unroll
      for (int r = 0; r < RD; r++) {
        int idx = b.tl + r * p.tpe;
        if (idx >= 3 * nd2 * nd) break;
        int ji = idx % nd2, k = (idx / nd2) % nd, c = idx / (nd2 * nd);
        double s = 0;
        for (int qz = 0; qz < nq; qz++) s += X2[qz * nd + k] * t2[(c * nq + qz) * nd2 + ji];
        acc[r] += s;
      }
    }
  if (b.active) {
    double *ye = dg + (size_t)b.el * 3 * nd2 * nd;
#pragma unroll
    for (int r = 0; r < RD; r++) {
      int idx = b.tl + r * p.tpe;
      if (idx < 3 * nd2 * nd) ye[idx] = acc[r];
    }
  }
}

/* The limiting term (hx_kernels.h), run after the metric's kernel of the same operator: one
   block per element, LIM_THREADS threads, run-time bounds (a few percent of the metric's work).
   Shared: X [nq][nd] (B, or B*B for the diagonal) | u [3][nd^3] | t1 [3][nd^2][nq] |
   t2 [3][nd][nq^2] | f [3][nq^3] | red [LIM_THREADS].
   mode 0: out[el] += sum_q wt c_e 0.5 |x - x0|^2 (the element's energy slot, written by k_scalar);
   1: out += sum_q wt c_e (x - x0)_q phi_b (gradient); 2: the same with u = the direction x
   (Hessian action); 3: out_{b,k} += sum_q wt c_e phi_b^2 (diagonal, every k). */
#define LIM_THREADS 128
__host__ __device__ inline size_t lim_smem(int nd, int nq) {
  return (size_t)nq * nd + (size_t)3 * nd * nd * nd + (size_t)3 * nd * nd * nq + (size_t)3 * nd * nq * nq +
         (size_t)3 * nq * nq * nq + LIM_THREADS;
}
__global__ void k_limit(kparams p, int mode, const double *__restrict__ x, const double *__restrict__ x0,
                        const double *__restrict__ coef, double *__restrict__ out) {
  extern __shared__ double smem[];
  const int nd = p.nd, nq = p.nq, nd2 = nd * nd, nd3 = nd2 * nd, nq2 = nq * nq, nq3 = nq2 * nq;
  const int tid = threadIdx.x, nt = blockDim.x;
  const long long el = blockIdx.x;
  double *X = smem, *u = X + nq * nd, *t1 = u + 3 * nd3, *t2 = t1 + 3 * nd2 * nq, *f = t2 + 3 * nd * nq2, *red = f + 3 * nq3;
  for (int i = tid; i < nq * nd; i += nt) X[i] = mode == 3 ? p.B[i] * p.B[i] : p.B[i];
  const double ce = coef[el];
  if (mode == 3) {
    for (int q = tid; q < nq3; q += nt) f[q] = point_weight(p, p.wq, q, el, el * nq3 + q) * ce;
  } else {
    const double *xe = x + (size_t)el * 3 * nd3, *x0e = x0 + (size_t)el * 3 * nd3;
    for (int i = tid; i < 3 * nd3; i += nt) u[i] = mode == 2 ? xe[i] : xe[i] - x0e[i];
    __syncthreads();
    /* values at the points: contract x, then y, then z, with B */
    for (int idx = tid; idx < 3 * nd2 * nq; idx += nt) {
      int qx = idx % nq, ckj = idx / nq;
      double a = 0;
      for (int i = 0; i < nd; i++) a += X[qx * nd + i] * u[ckj * nd + i];
      t1[idx] = a;
    }
    __syncthreads();
    for (int idx = tid; idx < 3 * nd * nq2; idx += nt) {
      int qx = idx % nq, qy = (idx / nq) % nq, ck = idx / nq2;
      double a = 0;
      for (int j = 0; j < nd; j++) a += X[qy * nd + j] * t1[(ck * nd + j) * nq + qx];
      t2[idx] = a;
    }
    __syncthreads();
    for (int idx = tid; idx < 3 * nq3; idx += nt) {
      int q = idx % nq3, c = idx / nq3, qz = q / nq2, qyx = q % nq2;
      double a = 0;
      for (int k = 0; k < nd; k++) a += X[qz * nd + k] * t2[(c * nd + k) * nq2 + qyx];
      f[idx] = a;
    }
    __syncthreads();
    double acc = 0;
    for (int q = tid; q < nq3; q += nt) {
      double w = point_weight(p, p.wq, q, el, el * nq3 + q) * ce;
      double u0 = f[q], u1 = f[nq3 + q], u2 = f[2 * nq3 + q];
      if (mode == 0) acc += 0.5 * w * (u0 * u0 + u1 * u1 + u2 * u2);
      else f[q] = w * u0, f[nq3 + q] = w * u1, f[2 * nq3 + q] = w * u2;
    }
    if (mode == 0) {
      red[tid] = acc;
      __syncthreads();
      if (tid == 0) {
        double r = red[0];
        for (int t = 1; t < nt; t++) r += red[t];
        out[el] += r;
      }
      return;
    }
  }
  __syncthreads();
  /* the transpose: contract qz, then qy, then qx (one component for the diagonal) */
  const int nc = mode == 3 ? 1 : 3;
  for (int idx = tid; idx < nc * nd * nq2; idx += nt) {
    int qyx = idx % nq2, k = (idx / nq2) % nd, c = idx / (nd * nq2);
    double a = 0;
    for (int qz = 0; qz < nq; qz++) a += X[qz * nd + k] * f[c * nq3 + qz * nq2 + qyx];
    t2[idx] = a;
  }
  __syncthreads();
  for (int idx = tid; idx < nc * nd2 * nq; idx += nt) {
    int qx = idx % nq, j = (idx / nq) % nd, ck = idx / (nd * nq);
    double a = 0;
    for (int qy = 0; qy < nq; qy++) a += X[qy * nd + j] * t2[(ck * nq + qy) * nq + qx];
    t1[idx] = a;
  }
  __syncthreads();
  double *ye = out + (size_t)el * 3 * nd3;
  for (int idx = tid; idx < nc * nd3; idx += nt) {
    int i = idx % nd, ckj = idx / nd;
    double a = 0;
    for (int qx = 0; qx < nq; qx++) a += X[qx * nd + i] * t1[ckj * nq + qx];
    if (mode == 3)
      for (int c = 0; c < 3; c++) ye[c * nd3 + idx] += a;
    else ye[idx] += a;
  }
}

/* min det A at the GLL nodes (the Newton line search's fold check, tmop.c): one
   block per element, one thread per node (strided), the element's coordinates read
   through L1; D[i][a] = l_a'(xi_i) at the GLL nodes is passed by value. The same
   sums in the same order as hx_cpu_min_detj_nodes, so the minimum is bitwise the
   CPU one; a NaN anywhere gives NaN (the line search then rejects the step). */
#define DETJ_NODES_THREADS 128
struct dnodes_mat {
  double D[HX_MAX_ND * HX_MAX_ND];
};
__global__ void k_detj_nodes(int nd, const double *__restrict__ x, dnodes_mat dm, double *__restrict__ elem_val) {
  __shared__ double red[DETJ_NODES_THREADS];
  const int n3 = nd * nd * nd;
  const double *xe = x + (size_t)blockIdx.x * 3 * n3;
  const double *D = dm.D;
  double mn = HUGE_VAL;
  for (int t = threadIdx.x; t < n3; t += blockDim.x) {
    const int i = t % nd, j = (t / nd) % nd, k = t / (nd * nd);
    double d = hx_detj_node(nd, D, xe, i, j, k);
    mn = (isnan(d) || isnan(mn)) ? NAN : fmin(mn, d);
  }
  red[threadIdx.x] = mn;
  __syncthreads();
  if (threadIdx.x == 0) {
    double r = red[0];
    for (int t = 1; t < (int)blockDim.x; t++) r = (isnan(r) || isnan(red[t])) ? NAN : fmin(r, red[t]);
    elem_val[blockIdx.x] = r;
  }
}

/* single-block reduction over elements: mode 0 sum, 1 min (NaN sticky) */
__global__ void k_reduce(const double *__restrict__ v, long long n, int mode, double *__restrict__ out) {
  __shared__ double red[1024];
  double a = mode == 0 ? 0.0 : HUGE_VAL;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    double x = v[i];
    if (mode == 0) a += x;
    else a = (isnan(a) || isnan(x)) ? NAN : fmin(a, x);
  }
  red[threadIdx.x] = a;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      double x = red[threadIdx.x + s], y0 = red[threadIdx.x];
      red[threadIdx.x] = mode == 0 ? y0 + x : ((isnan(y0) || isnan(x)) ? NAN : fmin(y0, x));
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = red[0];
}

/* ------------------------------------------------------------------ L-vector kernels */

#define DOT_BLOCKS 264
#define VEC_THREADS 256

__global__ void k_l2e(long long ne, int npe, const int *__restrict__ e2l, const double *__restrict__ L, double *__restrict__ E) {
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < ne; g += (long long)gridDim.x * blockDim.x) {
    long long e = g / npe, a = g % npe, l = e2l[g];
    for (int c = 0; c < 3; c++) E[(e * 3 + c) * npe + a] = L[3 * l + c];
  }
}

__global__ void k_e2l(long long nl, int npe, const long long *__restrict__ loff, const int *__restrict__ lidx,
                      const double *__restrict__ E, double *__restrict__ L) {
  for (long long l = blockIdx.x * (long long)blockDim.x + threadIdx.x; l < nl; l += (long long)gridDim.x * blockDim.x) {
    double s0 = 0, s1 = 0, s2 = 0;
    for (long long j = loff[l]; j < loff[l + 1]; j++) {
      long long g = lidx[j], e = g / npe, a = g % npe;
      const double *Ee = E + e * 3 * npe + a;
      s0 += Ee[0];
      s1 += Ee[npe];
      s2 += Ee[2 * npe];
    }
    L[3 * l] = s0;
    L[3 * l + 1] = s1;
    L[3 * l + 2] = s2;
  }
}

/* the same with Pi applied per node on the way (the Hessian input) */
__global__ void k_l2e_proj(long long ne, int npe, const int *__restrict__ e2l, const int *__restrict__ ncon,
                           const double *__restrict__ nrm, const double *__restrict__ L, double *__restrict__ E) {
  for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < ne; g += (long long)gridDim.x * blockDim.x) {
    long long e = g / npe, a = g % npe, l = e2l[g];
    double p[3] = {L[3 * l], L[3 * l + 1], L[3 * l + 2]};
    hx_lvec_project_node(ncon[l], nrm + 9 * l, p);
    for (int c = 0; c < 3; c++) E[(e * 3 + c) * npe + a] = p[c];
  }
}

/* gather, then y = Pi y + (v - Pi v) per node (the Hessian output) */
__global__ void k_e2l_constrain(long long nl, int npe, const long long *__restrict__ loff, const int *__restrict__ lidx,
                                const int *__restrict__ ncon, const double *__restrict__ nrm, const double *__restrict__ E,
                                const double *__restrict__ v, double *__restrict__ L) {
  for (long long l = blockIdx.x * (long long)blockDim.x + threadIdx.x; l < nl; l += (long long)gridDim.x * blockDim.x) {
    double s[3] = {0, 0, 0};
    for (long long j = loff[l]; j < loff[l + 1]; j++) {
      long long g = lidx[j], e = g / npe, a = g % npe;
      const double *Ee = E + e * 3 * npe + a;
      s[0] += Ee[0];
      s[1] += Ee[npe];
      s[2] += Ee[2 * npe];
    }
    hx_lvec_constrain_node(ncon[l], nrm + 9 * l, v + 3 * l, s);
    L[3 * l] = s[0];
    L[3 * l + 1] = s[1];
    L[3 * l + 2] = s[2];
  }
}

#define VLOOP(n)                                                                                                                 \
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (long long)(n); i += (long long)gridDim.x * blockDim.x)

__global__ void k_axpby(long long n, double a, const double *__restrict__ x, double b, double *__restrict__ y) {
  if (b == 0.0) {
    VLOOP(n) y[i] = a * x[i];
  } else if (b == 1.0) {
    VLOOP(n) y[i] += a * x[i];
  } else {
    VLOOP(n) y[i] = a * x[i] + b * y[i];
  }
}
__global__ void k_waxpy(long long n, double *__restrict__ w, const double *__restrict__ x, double a,
                        const double *__restrict__ y) {
  VLOOP(n) w[i] = x[i] + a * y[i];
}
__global__ void k_lc3(long long n, double *__restrict__ w, const double *__restrict__ x, double a, const double *__restrict__ y,
                      double b, const double *__restrict__ z, double s) {
  VLOOP(n) w[i] = (x[i] + a * y[i] + b * z[i]) * s;
}
__global__ void k_inv_abs(long long n, double *__restrict__ d) {
  VLOOP(n) {
    double v = fabs(d[i]);
    d[i] = v > 0 ? 1.0 / v : 1.0;
  }
}
/* block sum of s into part[blockIdx.x] (fixed tree: deterministic) */
__device__ __forceinline__ void block_part(double s, double *part) {
  __shared__ double red[VEC_THREADS];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if ((int)threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) part[blockIdx.x] = red[0];
}
/* fixed grid, fixed order: deterministic partial sums per block */
__global__ void k_dot(long long nl, const unsigned char *__restrict__ owned, const double *__restrict__ x,
                      const double *__restrict__ y, double *__restrict__ part) {
  double s = 0;
  VLOOP(nl) {
    if (owned && !owned[i]) continue;
    s += x[3 * i] * y[3 * i] + x[3 * i + 1] * y[3 * i + 1] + x[3 * i + 2] * y[3 * i + 2];
  }
  block_part(s, part);
}
/* y = a x + b y on the nl nodes, then partial sums of w.y over owned nodes */
__global__ void k_axpby_dot(long long nl, const unsigned char *__restrict__ owned, double a, const double *__restrict__ x,
                            double b, double *__restrict__ y, const double *__restrict__ w, double *__restrict__ part) {
  double s = 0;
  VLOOP(nl) {
    double t[3];
    for (int c = 0; c < 3; c++) {
      long long k = 3 * i + c;
      t[c] = b == 1.0 ? y[k] + a * x[k] : b == 0.0 ? a * x[k] : a * x[k] + b * y[k];
      y[k] = t[c];
    }
    if (owned && !owned[i]) continue;
    s += w[3 * i] * t[0] + w[3 * i + 1] * t[1] + w[3 * i + 2] * t[2];
  }
  block_part(s, part);
}
__global__ void k_precond_dot(long long nl, const unsigned char *__restrict__ owned, const int *__restrict__ ncon,
                              const double *__restrict__ nrm, const double *__restrict__ dinv, const double *__restrict__ r,
                              double *__restrict__ z, double *__restrict__ part) {
  double s = 0;
  VLOOP(nl) {
    double zz[3];
    hx_lvec_precond_node(ncon[i], nrm + 9 * i, dinv + 3 * i, r + 3 * i, zz);
    for (int c = 0; c < 3; c++) z[3 * i + c] = zz[c];
    if (owned && !owned[i]) continue;
    s += r[3 * i] * zz[0] + r[3 * i + 1] * zz[1] + r[3 * i + 2] * zz[2];
  }
  block_part(s, part);
}
__global__ void k_project(long long nl, const int *__restrict__ ncon, const double *__restrict__ nrm,
                          const double *__restrict__ v, double *__restrict__ out) {
  VLOOP(nl) {
    double p[3] = {v[3 * i], v[3 * i + 1], v[3 * i + 2]};
    hx_lvec_project_node(ncon[i], nrm + 9 * i, p);
    for (int c = 0; c < 3; c++) out[3 * i + c] = p[c];
  }
}
__global__ void k_precond(long long nl, const int *__restrict__ ncon, const double *__restrict__ nrm,
                          const double *__restrict__ dinv, const double *__restrict__ r, double *__restrict__ z) {
  VLOOP(nl) hx_lvec_precond_node(ncon[i], nrm + 9 * i, dinv + 3 * i, r + 3 * i, z + 3 * i);
}
__global__ void k_constrain(long long nl, const int *__restrict__ ncon, const double *__restrict__ nrm,
                            const double *__restrict__ v, double *__restrict__ y) {
  VLOOP(nl) hx_lvec_constrain_node(ncon[i], nrm + 9 * i, v + 3 * i, y + 3 * i);
}
/* mode 0 pick (buf <- L), 1 put (L <- buf), 2 normals (nrm <- buf, 9 per node) */
__global__ void k_pickput(long long m, const int *__restrict__ idx, int mode, double *L, double *buf, double *nrm) {
  VLOOP(m) {
    long long l = idx[i];
    if (mode == 0)
      for (int c = 0; c < 3; c++) buf[3 * i + c] = L[3 * l + c];
    else if (mode == 1)
      for (int c = 0; c < 3; c++) L[3 * l + c] = buf[3 * i + c];
    else
      for (int c = 0; c < 9; c++) nrm[9 * l + c] = buf[9 * i + c];
  }
}

/* ------------------------------------------------------------------ dispatch */

enum kind { K_ENERGY, K_MINDET, K_GRAD, K_HSTORE, K_JSTORE, K_HAPPLY_S, K_HAPPLY_F, K_DIAG_S, K_DIAG_F };

struct launch_args {
  const double *x, *xl, *H;
  double *y;
};

/* blocks per SM for the metric-303 on-the-fly action, the measured best per order: 3 (80
   registers, spills) was faster at p = 4 (6.7 vs 6.4 GDOF/s on the H100), 2 (116 registers) at
   p = 2 (1.26 vs 1.09) */
int happly_minb(int nd) { return nd >= 5 ? 3 : 2; }

/* raise a kernel's dynamic shared memory limit once per kernel (not per launch):
   a small table of (kernel, bytes already allowed) */
template <typename F> int set_smem(F *fn, size_t smem) {
  static const void *fns[256];
  static size_t done[256];
  static int nfn = 0;
  if (smem <= 48 * 1024) return HX_OK;
  int i = 0;
  while (i < nfn && fns[i] != (const void *)fn) i++;
  if (i < nfn && smem <= done[i]) return HX_OK;
  HX_CALL_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  if (i == nfn && nfn < 256) fns[nfn++] = (const void *)fn;
  if (i < nfn) done[i] = smem;
  return HX_OK;
}

/* The on-the-fly action's kernel (hx_cuda_hv_kernel): 0 the default (column), 1 one thread per
   point (k_hess_apply), 10 EPB + MINB the column kernel with EPB elements per block and at least
   MINB blocks per SM (the register cap), for the codes col_code knows. */
int g_hv_kernel = 0;

/* the column kernel's code for kernel choice v at nq points per direction (0: the default
   there); 0 where v is no column kernel. 10 EPB + MINB: k_hess_apply_col; 100 + 10 EPB + MINB:
   k_hess_apply_split (nq >= 5 only) */
int col_code(int v, int nq) {
  /* the measured best (one H200, MDOF/s at 72^3): at nq = 6 (p = 1..4) the split kernel 125,
     ahead of 124, of the split kernel with 4 elements per block and of the column kernel 23,
     itself ahead of 42, 81, 43, 21, 41, 26 and 82; at nq = 4 (p = 2, Gauss) 23 ahead of 82; at
     nq = 3 (p = 1, Gauss) 82 ahead of 23 */
  if (v == 0) return nq >= 5 ? 125 : nq == 4 ? 23 : 82;
  if (v == 23 || v == 42 || v == 81 || v == 82) return v;
  if (v == 124 || v == 125) return nq >= 5 ? v : 0;
  return 0;
}

/* a column kernel (k303, k318: its instantiations for metric 303 and 318, k318 NULL where there is
   none; k0: the generic one) with EPB elements of nq^2 threads per block and per doubles of shared
   memory each (tab for the block); *ran = 0 where it does not apply (its shared memory beyond the
   device's) */
typedef void col_kernel(kparams, const double *__restrict__, const double *__restrict__, double *__restrict__);
int launch_col_kernel(const kparams &p, const launch_args &a, int smem_optin, int *ran, int epb, int nq, int tab, int per,
                      col_kernel *k303, col_kernel *k318, col_kernel *k0) {
  size_t smem = (size_t)(tab + epb * per) * sizeof(double);
  *ran = 0;
  if (smem > (size_t)smem_optin) return HX_OK;
  dim3 grid((unsigned)((p.num_elem + epb - 1) / epb)), block((unsigned)(epb * nq * nq));
  col_kernel *k = p.metric == 303 && p.abg ? k303 : p.metric == 318 && k318 ? k318 : k0;
  HX_CALL(set_smem(k, smem));
  k<<<grid, block, smem>>>(p, a.H, a.x, a.y);
  HX_CHECK_LAUNCH(k);
  *ran = 1;
  return HX_OK;
}

template <int ND, int NQ, int EPB, int MINB>
int launch_col_epb(const kparams &p, const launch_args &a, int smem_optin, int *ran) {
  typedef col_size<ND, NQ> S;
  return launch_col_kernel(p, a, smem_optin, ran, EPB, NQ, S::TAB, S::PER, k_hess_apply_col<ND, NQ, 303, EPB, MINB>, NULL,
                           k_hess_apply_col<ND, NQ, 0, EPB, MINB>);
}

/* the split column kernel (k_hess_apply_split), compiled where nq >= 5 */
template <int ND, int NQ, int EPB, int MINB>
int launch_split_epb(const kparams &p, const launch_args &a, int smem_optin, int *ran) {
  *ran = 0;
  if constexpr (NQ >= 5) {
    typedef split_size<ND, NQ> S;
    return launch_col_kernel(p, a, smem_optin, ran, EPB, NQ, S::TAB, S::PER, k_hess_apply_split<ND, NQ, 303, EPB, MINB>,
                             k_hess_apply_split<ND, NQ, 318, EPB, MINB>, k_hess_apply_split<ND, NQ, 0, EPB, MINB>);
  }
  return HX_OK;
}

template <int ND, int NQ> int launch_col(const kparams &p, const launch_args &a, int smem_optin, int *ran) {
  *ran = 0;
  if (ND > NQ) return HX_OK;
  switch (col_code(g_hv_kernel, NQ)) {
  case 23: return launch_col_epb<ND, NQ, 2, 3>(p, a, smem_optin, ran);
  case 42: return launch_col_epb<ND, NQ, 4, 2>(p, a, smem_optin, ran);
  case 81: return launch_col_epb<ND, NQ, 8, 1>(p, a, smem_optin, ran);
  case 82: return launch_col_epb<ND, NQ, 8, 2>(p, a, smem_optin, ran);
  case 124: return launch_split_epb<ND, NQ, 2, 4>(p, a, smem_optin, ran);
  case 125: return launch_split_epb<ND, NQ, 2, 5>(p, a, smem_optin, ran);
  default: return HX_OK; /* the point kernel */
  }
}

template <int ND, int NQ> int launch_kind(kind k, const kparams &p, const launch_args &a, dim3 grid, dim3 block, size_t smem) {
  switch (k) {
  case K_ENERGY:
  case K_MINDET:
    HX_CALL(set_smem(k_scalar<ND, NQ>, smem));
    k_scalar<ND, NQ><<<grid, block, smem>>>(p, a.x, a.y, k == K_ENERGY ? 0 : 1);
    break;
  case K_GRAD:
    HX_CALL(set_smem(k_grad<ND, NQ>, smem));
    k_grad<ND, NQ><<<grid, block, smem>>>(p, a.x, a.y);
    break;
  case K_HSTORE:
    HX_CALL(set_smem(k_hess_store<ND, NQ>, smem));
    k_hess_store<ND, NQ><<<grid, block, smem>>>(p, a.x, a.y);
    break;
  case K_JSTORE:
    HX_CALL(set_smem(k_jac_store<ND, NQ>, smem));
    k_jac_store<ND, NQ><<<grid, block, smem>>>(p, a.x, a.y);
    break;
  case K_HAPPLY_S:
    HX_CALL(set_smem(k_hess_apply<ND, NQ, true>, smem));
    k_hess_apply<ND, NQ, true><<<grid, block, smem>>>(p, a.xl, a.H, a.x, a.y);
    break;
  case K_HAPPLY_F:
    if (p.metric == 303 && happly_minb(p.nd) == 2) {
      HX_CALL(set_smem(k_hess_apply<ND, NQ, false, 303, 2>, smem));
      k_hess_apply<ND, NQ, false, 303, 2><<<grid, block, smem>>>(p, a.xl, a.H, a.x, a.y);
      break;
    }
    if (p.metric == 303) {
      HX_CALL(set_smem(k_hess_apply<ND, NQ, false, 303, 3>, smem));
      k_hess_apply<ND, NQ, false, 303, 3><<<grid, block, smem>>>(p, a.xl, a.H, a.x, a.y);
      break;
    }
    HX_CALL(set_smem(k_hess_apply<ND, NQ, false>, smem));
    k_hess_apply<ND, NQ, false><<<grid, block, smem>>>(p, a.xl, a.H, a.x, a.y);
    break;
  case K_DIAG_S:
    HX_CALL(set_smem(k_diag<ND, NQ, true>, smem));
    k_diag<ND, NQ, true><<<grid, block, smem>>>(p, a.xl, a.H, a.y);
    break;
  case K_DIAG_F:
    HX_CALL(set_smem(k_diag<ND, NQ, false>, smem));
    k_diag<ND, NQ, false><<<grid, block, smem>>>(p, a.xl, a.H, a.y);
    break;
  }
  HX_CHECK_LAUNCH(k);
  return HX_OK;
}

/* The (nd, nq) pairs compiled with constant bounds: quadrature order 8 with GLL
   (nq = 6) for p = 1..5, and the bench pairs nq = p + 2 for p = 1..4; everything
   else runs the generic (0, 0) instantiation. Extend HX_CUDA_PAIRS to add more. */
#define HX_CUDA_PAIRS(X) X(2, 6) X(3, 6) X(4, 6) X(5, 6) X(6, 6) X(2, 3) X(3, 4) X(4, 5) X(2, 2)

int dispatch(kind k, const kparams &p, const launch_args &a, dim3 grid, dim3 block, size_t smem) {
#define HX_CUDA_CASE(ND_, NQ_)                                                                                                   \
  if (p.nd == ND_ && p.nq == NQ_) return launch_kind<ND_, NQ_>(k, p, a, grid, block, smem);
  HX_CUDA_PAIRS(HX_CUDA_CASE)
#undef HX_CUDA_CASE
  return launch_kind<0, 0>(k, p, a, grid, block, smem);
}

/* the column kernel where it applies (*ran = 1), for the pairs of HX_CUDA_PAIRS */
int dispatch_col(const kparams &p, const launch_args &a, int smem_optin, int *ran) {
  *ran = 0;
#define HX_CUDA_CASE(ND_, NQ_)                                                                                                   \
  if (p.nd == ND_ && p.nq == NQ_) return launch_col<ND_, NQ_>(p, a, smem_optin, ran);
  HX_CUDA_PAIRS(HX_CUDA_CASE)
#undef HX_CUDA_CASE
  return HX_OK;
}

cuda_data *cdata(const hx_pa *pa) { return (cuda_data *)pa->data; }

void fill_params(const hx_pa *pa, kparams *p) {
  cuda_data *cd = cdata(pa);
  memset(p, 0, sizeof *p);
  p->nd = pa->nd;
  p->nq = pa->nq;
  int nq3 = pa->nq * pa->nq * pa->nq;
  /* at most 256 threads per element: the generic instantiation needs up to 255
     registers per thread, and 256 x 255 still fits an SM's 64K registers */
  p->tpe = nq3 < 256 ? nq3 : 256;
  p->epb = 1;
  while ((p->epb * 2) * p->tpe <= 256) p->epb *= 2;
  p->num_elem = pa->num_elem;
  p->metric = pa->metric;
  p->par = pa->metric_param;
  p->scale = pa->scale;
  p->w_const = pa->w_const;
  p->w_elem = pa->w_elem;
  p->wscalar = cd->wscalar;
  memcpy(p->Winv_c, pa->Winv_c, sizeof p->Winv_c);
  p->detW_c = pa->detW_c;
  p->Winv = cd->Winv;
  p->detW = cd->detW;
  p->B = cd->B;
  p->G = cd->G;
  p->wq = cd->wq;
  p->abg = pa->metric == 303 && pa->hess_strategy != HX_HESS_STORED ? cd->Aabg : NULL;
}

/* kernel k on the elements [off, off + cnt) of pa: a's E-vectors start at element off (the
   caller's), the per-point target here; Alin and Aabg are indexed from the range's first element */
int run_kernel_range(const hx_pa *pa, kind k, const launch_args &a, long long off, long long cnt) {
  if (cnt == 0) return HX_OK;
  cuda_data *cd = cdata(pa);
  kparams p;
  fill_params(pa, &p);
  p.num_elem = cnt;
  if (!p.w_const) {
    size_t s = p.w_elem ? (size_t)off : (size_t)off * p.nq * p.nq * p.nq;
    p.Winv += 9 * s;
    p.detW += s;
  }
  if (k == K_HAPPLY_F) {
    int ran = 0;
    HX_CALL(dispatch_col(p, a, cd->smem_optin, &ran));
    if (ran) return HX_OK;
  }
  bool diag = k == K_DIAG_S || k == K_DIAG_F;
  size_t per = diag ? elem_smem_diag(p.nd, p.nq) : elem_smem(p.nd, p.nq);
  /* the per-element reductions use tpe doubles from u on (inside the element's area: tpe <= 9 nq^3) */
  size_t smem = (table_smem(p.nd, p.nq) + per * p.epb) * sizeof(double);
  while (p.epb > 1 && smem > (size_t)cd->smem_optin) {
    p.epb /= 2;
    smem = (table_smem(p.nd, p.nq) + per * p.epb) * sizeof(double);
  }
  HX_CHECK(smem <= (size_t)cd->smem_optin, HX_ERR_BACKEND,
           "CUDA backend: order %d with %d quadrature points per direction needs %zu bytes of shared memory per "
           "block; this device allows %d",
           pa->order, pa->nq, smem, cd->smem_optin);
  int nq3 = p.nq * p.nq * p.nq;
  HX_CHECK(p.tpe * 4 >= nq3 && p.tpe * 8 >= 3 * p.nd * p.nd * p.nd, HX_ERR_BACKEND,
           "CUDA backend: %d quadrature points per direction with order %d is beyond this backend's limits", p.nq, pa->order);
  long long nblocks = (cnt + p.epb - 1) / p.epb;
  dim3 grid((unsigned)nblocks), block((unsigned)(p.tpe * p.epb));
  return dispatch(k, p, a, grid, block, smem);
}

int run_kernel(const hx_pa *pa, kind k, const launch_args &a) { return run_kernel_range(pa, k, a, 0, pa->num_elem); }

int reduce_scalar(const hx_pa *pa, int mode, double *out) {
  cuda_data *cd = cdata(pa);
  if (pa->num_elem == 0) {
    *out = mode == 0 ? 0.0 : HUGE_VAL;
    return HX_OK;
  }
  k_reduce<<<1, 1024>>>(cd->elem_val, (long long)pa->num_elem, mode, cd->scalar);
  HX_CHECK_LAUNCH(k_reduce);
  HX_CALL_CUDA(cudaMemcpy(out, cd->scalar, sizeof(double), cudaMemcpyDeviceToHost));
  return HX_OK;
}

/* the limiting term of one operator (k_limit's mode), after the metric's kernel */
int run_limit(const hx_pa *pa, int mode, const double *x, double *out) {
  if (!pa->lim || pa->num_elem == 0) return HX_OK;
  cuda_data *cd = cdata(pa);
  kparams p;
  fill_params(pa, &p);
  size_t smem = lim_smem(p.nd, p.nq) * sizeof(double);
  HX_CHECK(smem <= (size_t)cd->smem_optin, HX_ERR_BACKEND,
           "CUDA backend: the limiting term at order %d with %d quadrature points per direction needs %zu bytes of shared "
           "memory per block; this device allows %d",
           pa->order, pa->nq, smem, cd->smem_optin);
  HX_CALL(set_smem(k_limit, smem));
  k_limit<<<(unsigned)pa->num_elem, LIM_THREADS, smem>>>(p, mode, x, cd->lim_x0, cd->lim_coef, out);
  HX_CHECK_LAUNCH(k_limit);
  return HX_OK;
}

/* ------------------------------------------------------------------ table entries */

int cu_energy(const hx_pa *pa, const double *x, double *e) {
  launch_args a = {x, NULL, NULL, cdata(pa)->elem_val};
  HX_CALL(run_kernel(pa, K_ENERGY, a));
  HX_CALL(run_limit(pa, 0, x, cdata(pa)->elem_val));
  return reduce_scalar(pa, 0, e);
}

int cu_min_detj(const hx_pa *pa, const double *x, double *m) {
  launch_args a = {x, NULL, NULL, cdata(pa)->elem_val};
  HX_CALL(run_kernel(pa, K_MINDET, a));
  return reduce_scalar(pa, 1, m);
}

int cu_vec_download(const hx_pa *pa, const double *v, double *host, size_t n);

int cu_min_detj_elem(const hx_pa *pa, const double *x, double *host) {
  double m;
  HX_CALL(cu_min_detj(pa, x, &m));
  if (pa->num_elem == 0) return HX_OK;
  return cu_vec_download(pa, cdata(pa)->elem_val, host, (size_t)pa->num_elem);
}

int cu_min_detj_nodes(const hx_pa *pa, const double *x, double *m) {
  if (pa->num_elem == 0) {
    *m = HUGE_VAL;
    return HX_OK;
  }
  const int nd = pa->nd;
  double xg[HX_MAX_ND], wg[HX_MAX_ND], I[HX_MAX_ND * HX_MAX_ND];
  dnodes_mat dm;
  HX_CALL(hx_gll(nd, xg, wg));
  hx_lagrange_matrices(nd, xg, nd, xg, I, dm.D);
  k_detj_nodes<<<(unsigned)pa->num_elem, DETJ_NODES_THREADS>>>(nd, x, dm, cdata(pa)->elem_val);
  HX_CHECK_LAUNCH(k_detj_nodes);
  return reduce_scalar(pa, 1, m);
}

int cu_grad(const hx_pa *pa, const double *x, double *g) {
  launch_args a = {x, NULL, NULL, g};
  HX_CALL(run_kernel(pa, K_GRAD, a));
  return run_limit(pa, 1, x, g);
}

/* elements per chunk of the on-the-fly Hessian's A(x_lin) (hx_cuda_hess_chunk): 0 the choice of
   alin_choose */
long long g_hess_chunk = 0;

template <typename T> void cfree(T *&p);

/* How many elements' A(x_lin) the on-the-fly Hessian holds, (re)allocated: all of them where they
   fit in the device's free memory with a sixteenth of the device to spare (the solve's later
   allocations: adaptive quadrature's parts, the coarse level), else the elements of about
   1 GiB, remade from x_lin a chunk at a time before each action and diagonal (the same doubles:
   each element's sums are its own). */
int alin_choose(hx_pa *pa, cuda_data *cd) {
  long long ne = pa->num_elem;
  size_t nq3 = (size_t)pa->nq * pa->nq * pa->nq, per = (9 + (pa->metric == 303 ? 3 : 0)) * nq3 * sizeof(double);
  long long want = ne;
  if (g_hess_chunk > 0) want = g_hess_chunk < ne ? g_hess_chunk : ne;
  else if (cd->alin_elems != ne) {
    size_t fr = 0, tot = 0;
    HX_CALL_CUDA(cudaMemGetInfo(&fr, &tot));
    size_t have = fr + (size_t)cd->alin_elems * per, spare = tot / 16;
    if ((size_t)ne * per + spare > have) {
      long long c = (long long)(((size_t)1 << 30) / per);
      want = c < 1 ? 1 : c < ne ? c : ne;
    }
  }
  if (want == cd->alin_elems && cd->Alin) return HX_OK;
  cfree(cd->Alin);
  cfree(cd->Aabg);
  cd->alin_elems = 0;
  HX_CALL_CUDA(cudaMalloc((void **)&cd->Alin, (size_t)want * 9 * nq3 * sizeof(double)));
  if (pa->metric == 303) HX_CALL_CUDA(cudaMalloc((void **)&cd->Aabg, (size_t)want * 3 * nq3 * sizeof(double)));
  cd->alin_elems = want;
  return HX_OK;
}

/* kernel k (the on-the-fly action or diagonal) over all elements a chunk at a time, each chunk's
   A(x_lin) remade first; a's E-vectors (x, xl, y) are whole-rank ones */
int run_chunked(const hx_pa *pa, kind k, const launch_args &a) {
  cuda_data *cd = cdata(pa);
  const size_t U = 3 * (size_t)pa->nd * pa->nd * pa->nd;
  for (long long off = 0; off < pa->num_elem; off += cd->alin_elems) {
    long long cnt = pa->num_elem - off < cd->alin_elems ? pa->num_elem - off : cd->alin_elems;
    launch_args j = {cd->x_lin + off * U, NULL, NULL, cd->Alin};
    HX_CALL(run_kernel_range(pa, K_JSTORE, j, off, cnt));
    launch_args r = {a.x ? a.x + off * U : NULL, cd->x_lin + off * U, cd->Alin, a.y + off * U};
    HX_CALL(run_kernel_range(pa, k, r, off, cnt));
  }
  return HX_OK;
}

int cu_hess_setup(hx_pa *pa, const double *x) {
  cuda_data *cd = cdata(pa);
  cd->x_lin = x;
  size_t nq3 = (size_t)pa->nq * pa->nq * pa->nq;
  if (pa->hess_strategy != HX_HESS_STORED) {
    if (pa->num_elem == 0) return HX_OK;
    HX_CALL(alin_choose(pa, cd));
    if (cd->alin_elems < pa->num_elem) return HX_OK; /* remade by every action and diagonal */
    launch_args a = {x, NULL, NULL, cd->Alin};
    return run_kernel(pa, K_JSTORE, a);
  }
  if (!cd->H && pa->num_elem > 0) HX_CALL_CUDA(cudaMalloc((void **)&cd->H, (size_t)pa->num_elem * 81 * nq3 * sizeof(double)));
  launch_args a = {x, NULL, NULL, cd->H};
  return run_kernel(pa, K_HSTORE, a);
}

int cu_hess_apply(const hx_pa *pa, const double *dx, double *y) {
  cuda_data *cd = cdata(pa);
  HX_CHECK(cd->x_lin, HX_ERR_INTERNAL, "hess_apply called before hess_setup");
  int stored = pa->hess_strategy == HX_HESS_STORED;
  launch_args a = {dx, cd->x_lin, stored ? cd->H : cd->Alin, y};
  if (!stored && cd->alin_elems < pa->num_elem) HX_CALL(run_chunked(pa, K_HAPPLY_F, a));
  else HX_CALL(run_kernel(pa, stored ? K_HAPPLY_S : K_HAPPLY_F, a));
  return run_limit(pa, 2, dx, y);
}

int cu_diag(const hx_pa *pa, double *d) {
  cuda_data *cd = cdata(pa);
  HX_CHECK(cd->x_lin, HX_ERR_INTERNAL, "diag called before hess_setup");
  int stored = pa->hess_strategy == HX_HESS_STORED;
  launch_args a = {NULL, cd->x_lin, stored ? cd->H : cd->Alin, d};
  if (!stored && cd->alin_elems < pa->num_elem) HX_CALL(run_chunked(pa, K_DIAG_F, a));
  else HX_CALL(run_kernel(pa, stored ? K_DIAG_S : K_DIAG_F, a));
  return run_limit(pa, 3, NULL, d);
}

template <typename T> void cfree(T *&p) {
  if (p) cudaFree((void *)p);
  p = NULL;
}

int cu_destroy(hx_pa *pa) {
  cuda_data *cd = cdata(pa);
  if (!cd) return HX_OK;
  cfree(cd->B);
  cfree(cd->G);
  cfree(cd->wq);
  cfree(cd->Winv);
  cfree(cd->detW);
  cfree(cd->elem_val);
  cfree(cd->scalar);
  cfree(cd->H);
  cfree(cd->Alin);
  cfree(cd->Aabg);
  cfree(cd->e2l);
  cfree(cd->loff);
  cfree(cd->lidx);
  cfree(cd->owned);
  cfree(cd->ncon);
  cfree(cd->nrm);
  cfree(cd->curved);
  cfree(cd->shared);
  cfree(cd->part);
  cfree(cd->lim_x0);
  cfree(cd->lim_coef);
  delete cd;
  pa->data = NULL;
  return HX_OK;
}

int cu_setup_inner(hx_pa *pa, cuda_data *cd) {
  HX_CHECK(hx_cuda_device_available(), HX_ERR_BACKEND, "backend 'cuda': no CUDA device is present on this machine");
  int dev;
  HX_CALL_CUDA(cudaGetDevice(&dev));
  HX_CALL_CUDA(cudaDeviceGetAttribute(&cd->smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  int nd = pa->nd, nq = pa->nq;
  size_t nq3 = (size_t)nq * nq * nq;
  HX_CALL_CUDA(cudaMalloc((void **)&cd->B, (size_t)nq * nd * sizeof(double)));
  HX_CALL_CUDA(cudaMalloc((void **)&cd->G, (size_t)nq * nd * sizeof(double)));
  HX_CALL_CUDA(cudaMalloc((void **)&cd->wq, (size_t)nq * sizeof(double)));
  HX_CALL_CUDA(cudaMemcpy(cd->B, pa->B, (size_t)nq * nd * sizeof(double), cudaMemcpyHostToDevice));
  HX_CALL_CUDA(cudaMemcpy(cd->G, pa->G, (size_t)nq * nd * sizeof(double), cudaMemcpyHostToDevice));
  HX_CALL_CUDA(cudaMemcpy(cd->wq, pa->wq, (size_t)nq * sizeof(double), cudaMemcpyHostToDevice));
  HX_CALL_CUDA(cudaMalloc((void **)&cd->elem_val, ((size_t)pa->num_elem + 1) * sizeof(double)));
  HX_CALL_CUDA(cudaMalloc((void **)&cd->scalar, sizeof(double)));
  cd->wscalar = 1;
  size_t npts = pa->w_const ? 1 : (size_t)pa->num_elem * (pa->w_elem ? 1 : nq3);
  for (size_t g = 0; g < npts && cd->wscalar; g++) {
    const double *W = pa->w_const ? pa->Winv_c : pa->Winv + 9 * g;
    if (W[1] != 0 || W[2] != 0 || W[3] != 0 || W[5] != 0 || W[6] != 0 || W[7] != 0 || W[4] != W[0] || W[8] != W[0])
      cd->wscalar = 0;
  }
  if (!pa->w_const && npts > 0) {
    HX_CALL_CUDA(cudaMalloc((void **)&cd->Winv, 9 * npts * sizeof(double)));
    HX_CALL_CUDA(cudaMalloc((void **)&cd->detW, npts * sizeof(double)));
    HX_CALL_CUDA(cudaMemcpy(cd->Winv, pa->Winv, 9 * npts * sizeof(double), cudaMemcpyHostToDevice));
    HX_CALL_CUDA(cudaMemcpy(cd->detW, pa->detW, npts * sizeof(double), cudaMemcpyHostToDevice));
  }
  if (pa->lim) {
    size_t n = hx_pa_evec_size(pa), ne = (size_t)pa->num_elem;
    HX_CALL_CUDA(cudaMalloc((void **)&cd->lim_x0, (n + 1) * sizeof(double)));
    HX_CALL_CUDA(cudaMalloc((void **)&cd->lim_coef, (ne + 1) * sizeof(double)));
    if (n) HX_CALL_CUDA(cudaMemcpy(cd->lim_x0, pa->lim_x0, n * sizeof(double), cudaMemcpyHostToDevice));
    if (ne) HX_CALL_CUDA(cudaMemcpy(cd->lim_coef, pa->lim_coef, ne * sizeof(double), cudaMemcpyHostToDevice));
  }
  return HX_OK;
}

int cu_setup(hx_pa *pa) {
  cuda_data *cd = new (std::nothrow) cuda_data();
  HX_CHECK(cd, HX_ERR_MEMORY, "out of memory (CUDA backend state)");
  pa->data = cd;
  int rc = cu_setup_inner(pa, cd);
  if (rc != HX_OK) cu_destroy(pa);
  return rc;
}

int cu_vec_alloc(const hx_pa *pa, size_t n, double **v) {
  (void)pa;
  *v = NULL;
  HX_CALL_CUDA(cudaMalloc((void **)v, (n + 1) * sizeof(double)));
  return HX_OK;
}
void cu_vec_free(const hx_pa *pa, double **v) {
  (void)pa;
  if (v && *v) cudaFree(*v);
  if (v) *v = NULL;
}
int cu_vec_upload(const hx_pa *pa, const double *host, double *v, size_t n) {
  (void)pa;
  HX_CALL_CUDA(cudaMemcpy(v, host, n * sizeof(double), cudaMemcpyHostToDevice));
  return HX_OK;
}
int cu_vec_download(const hx_pa *pa, const double *v, double *host, size_t n) {
  (void)pa;
  HX_CALL_CUDA(cudaMemcpy(host, v, n * sizeof(double), cudaMemcpyDeviceToHost));
  return HX_OK;
}

/* ------------------------------------------------------------------ L-vectors */

unsigned vgrid(long long n) {
  long long b = (n + VEC_THREADS - 1) / VEC_THREADS;
  if (b < 1) b = 1;
  if (b > 65535LL * 16) b = 65535LL * 16;
  return (unsigned)b;
}

template <typename T> int cupload(T *&d, const T *h, size_t n) {
  cfree(d);
  HX_CALL_CUDA(cudaMalloc((void **)&d, (n + 1) * sizeof(T)));
  if (n) HX_CALL_CUDA(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
  return HX_OK;
}

int cu_lsetup(hx_pa *pa, const hx_lspace *ls) {
  cuda_data *cd = cdata(pa);
  size_t npe = (size_t)pa->nd * pa->nd * pa->nd, ne = (size_t)pa->num_elem * npe, nl = (size_t)ls->nl;
  HX_CHECK(ne < 2147483647u, HX_ERR_BACKEND, "CUDA backend: %zu element nodes on one rank exceed 2^31", ne);
  /* CSR transpose on the host (once), ascending E index per L-node: the CPU's order */
  long long *loff = (long long *)calloc(nl + 2, sizeof(long long));
  int *lidx = (int *)malloc((ne + 1) * sizeof(int));
  HX_CHECK(loff && lidx, HX_ERR_MEMORY, "out of memory (CUDA lsetup)");
  for (size_t g = 0; g < ne; g++) loff[ls->e2l[g] + 2]++;
  for (size_t l = 0; l < nl; l++) loff[l + 2] += loff[l + 1];
  for (size_t g = 0; g < ne; g++) lidx[loff[ls->e2l[g] + 1]++] = (int)g;
  int rc = cupload(cd->loff, loff, nl + 1);
  if (!rc) rc = cupload(cd->lidx, lidx, ne);
  free(loff);
  free(lidx);
  HX_CALL(rc);
  static_assert(sizeof(hx_lid) == sizeof(int), "hx_lid is 32-bit");
  HX_CALL(cupload(cd->e2l, (const int *)ls->e2l, ne));
  cfree(cd->owned);
  if (ls->owned) HX_CALL(cupload(cd->owned, ls->owned, nl));
  cd->ncurved = 0;
  if (ls->ncon) { /* NULL: the numbering alone (a part of adaptive quadrature) */
    HX_CALL(cupload(cd->ncon, ls->ncon, nl));
    HX_CALL(cupload(cd->nrm, ls->nrm, 9 * nl));
    HX_CALL(cupload(cd->curved, (const int *)ls->curved, (size_t)ls->ncurved));
    cd->ncurved = ls->ncurved;
  }
  cd->nshared = 0;
  if (ls->nshared) {
    HX_CALL(cupload(cd->shared, (const int *)ls->shared, (size_t)ls->nshared));
    cd->nshared = ls->nshared;
  }
  if (!cd->part) HX_CALL_CUDA(cudaMalloc((void **)&cd->part, DOT_BLOCKS * sizeof(double)));
  cd->nl = (long long)nl;
  return HX_OK;
}

int cu_l2e(const hx_pa *pa, const double *L, double *E) {
  cuda_data *cd = cdata(pa);
  int npe = pa->nd * pa->nd * pa->nd;
  long long ne = (long long)pa->num_elem * npe;
  if (!ne) return HX_OK;
  k_l2e<<<vgrid(ne), VEC_THREADS>>>(ne, npe, cd->e2l, L, E);
  HX_CHECK_LAUNCH(k_l2e);
  return HX_OK;
}

int cu_e2l(const hx_pa *pa, const double *E, double *L) {
  cuda_data *cd = cdata(pa);
  if (!cd->nl) return HX_OK;
  k_e2l<<<vgrid(cd->nl), VEC_THREADS>>>(cd->nl, pa->nd * pa->nd * pa->nd, cd->loff, cd->lidx, E, L);
  HX_CHECK_LAUNCH(k_e2l);
  return HX_OK;
}

int cu_l2e_proj(const hx_pa *pa, const double *L, double *E) {
  cuda_data *cd = cdata(pa);
  int npe = pa->nd * pa->nd * pa->nd;
  long long ne = (long long)pa->num_elem * npe;
  if (!ne) return HX_OK;
  k_l2e_proj<<<vgrid(ne), VEC_THREADS>>>(ne, npe, cd->e2l, cd->ncon, cd->nrm, L, E);
  HX_CHECK_LAUNCH(k_l2e_proj);
  return HX_OK;
}

int cu_e2l_constrain(const hx_pa *pa, const double *E, const double *v, double *L) {
  cuda_data *cd = cdata(pa);
  if (!cd->nl) return HX_OK;
  k_e2l_constrain<<<vgrid(cd->nl), VEC_THREADS>>>(cd->nl, pa->nd * pa->nd * pa->nd, cd->loff, cd->lidx, cd->ncon, cd->nrm, E, v,
                                                  L);
  HX_CHECK_LAUNCH(k_e2l_constrain);
  return HX_OK;
}

/* etensor: a thread per (element, component, output node), the triple sum direct (the
   two-level preconditioner's transfers: one of nin, nout is 2, so at most 8 nout^3 or 8 nin^3
   multiply-adds per element component) */
struct et_mat {
  double M[HX_MAX_ND * HX_MAX_ND];
};
__global__ void k_etensor(long long nc, int nin, int nout, et_mat m, const double *__restrict__ in, double *__restrict__ out) {
  long long no3 = (long long)nout * nout * nout, ni3 = (long long)nin * nin * nin;
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < nc * no3; t += (long long)gridDim.x * blockDim.x) {
    long long ec = t / no3;
    int o = (int)(t - ec * no3), oi = o % nout, oj = (o / nout) % nout, ok = o / (nout * nout);
    const double *u = in + ec * ni3;
    double s = 0;
    for (int k = 0; k < nin; k++) {
      double sj = 0;
      for (int j = 0; j < nin; j++) {
        double si = 0;
        for (int i = 0; i < nin; i++) si += m.M[oi * nin + i] * u[(k * nin + j) * nin + i];
        sj += m.M[oj * nin + j] * si;
      }
      s += m.M[ok * nin + k] * sj;
    }
    out[t] = s;
  }
}

int cu_etensor(const hx_pa *pa, int nin, int nout, const double *M, const double *Ein, double *Eout) {
  HX_CHECK(nin >= 1 && nout >= 1 && nin <= HX_MAX_ND && nout <= HX_MAX_ND, HX_ERR_INTERNAL, "etensor: sizes %d, %d", nin, nout);
  long long nc = 3 * (long long)pa->num_elem;
  if (!nc) return HX_OK;
  et_mat m;
  memcpy(m.M, M, (size_t)nin * nout * sizeof(double));
  k_etensor<<<vgrid(nc * nout * nout * nout), VEC_THREADS>>>(nc, nin, nout, m, Ein, Eout);
  HX_CHECK_LAUNCH(k_etensor);
  return HX_OK;
}

__global__ void k_vmul(long long n, const double *__restrict__ d, const double *__restrict__ x, double *__restrict__ y) {
  VLOOP(n) y[i] = d[i] * x[i];
}

int cu_vmul(const hx_pa *pa, size_t n, const double *d, const double *x, double *y) {
  (void)pa;
  if (!n) return HX_OK;
  k_vmul<<<vgrid((long long)n), VEC_THREADS>>>((long long)n, d, x, y);
  HX_CHECK_LAUNCH(k_vmul);
  return HX_OK;
}

int cu_vzero(const hx_pa *pa, size_t n, double *y) {
  (void)pa;
  HX_CALL_CUDA(cudaMemsetAsync(y, 0, n * sizeof(double)));
  return HX_OK;
}

int cu_axpby(const hx_pa *pa, size_t n, double a, const double *x, double b, double *y) {
  (void)pa;
  if (!n) return HX_OK;
  k_axpby<<<vgrid((long long)n), VEC_THREADS>>>((long long)n, a, x, b, y);
  HX_CHECK_LAUNCH(k_axpby);
  return HX_OK;
}

int cu_waxpy(const hx_pa *pa, size_t n, double *w, const double *x, double a, const double *y) {
  (void)pa;
  if (!n) return HX_OK;
  k_waxpy<<<vgrid((long long)n), VEC_THREADS>>>((long long)n, w, x, a, y);
  HX_CHECK_LAUNCH(k_waxpy);
  return HX_OK;
}

int cu_lc3(const hx_pa *pa, size_t n, double *w, const double *x, double a, const double *y, double b, const double *z,
           double s) {
  (void)pa;
  if (!n) return HX_OK;
  k_lc3<<<vgrid((long long)n), VEC_THREADS>>>((long long)n, w, x, a, y, b, z, s);
  HX_CHECK_LAUNCH(k_lc3);
  return HX_OK;
}

int cu_inv_abs(const hx_pa *pa, size_t n, double *d) {
  (void)pa;
  if (!n) return HX_OK;
  k_inv_abs<<<vgrid((long long)n), VEC_THREADS>>>((long long)n, d);
  HX_CHECK_LAUNCH(k_inv_abs);
  return HX_OK;
}

int finish_dot(cuda_data *cd, double *out) {
  k_reduce<<<1, 1024>>>(cd->part, DOT_BLOCKS, 0, cd->scalar);
  HX_CHECK_LAUNCH(k_reduce);
  HX_CALL_CUDA(cudaMemcpy(out, cd->scalar, sizeof(double), cudaMemcpyDeviceToHost));
  return HX_OK;
}

int cu_dot(const hx_pa *pa, const double *x, const double *y, double *out) {
  cuda_data *cd = cdata(pa);
  k_dot<<<DOT_BLOCKS, VEC_THREADS>>>(cd->nl, cd->owned, x, y, cd->part);
  HX_CHECK_LAUNCH(k_dot);
  return finish_dot(cd, out);
}

int cu_axpby_dot(const hx_pa *pa, size_t n, double a, const double *x, double b, double *y, const double *w, double *out) {
  cuda_data *cd = cdata(pa);
  HX_CHECK(n == 3 * (size_t)cd->nl, HX_ERR_INTERNAL, "axpby_dot: %zu doubles, the L-space has %lld", n, 3 * cd->nl);
  k_axpby_dot<<<DOT_BLOCKS, VEC_THREADS>>>(cd->nl, cd->owned, a, x, b, y, w, cd->part);
  HX_CHECK_LAUNCH(k_axpby_dot);
  return finish_dot(cd, out);
}

int cu_precond_dot(const hx_pa *pa, const double *dinv, const double *r, double *z, double *out) {
  cuda_data *cd = cdata(pa);
  k_precond_dot<<<DOT_BLOCKS, VEC_THREADS>>>(cd->nl, cd->owned, cd->ncon, cd->nrm, dinv, r, z, cd->part);
  HX_CHECK_LAUNCH(k_precond_dot);
  return finish_dot(cd, out);
}

int cu_project(const hx_pa *pa, const double *v, double *out) {
  cuda_data *cd = cdata(pa);
  if (!cd->nl) return HX_OK;
  k_project<<<vgrid(cd->nl), VEC_THREADS>>>(cd->nl, cd->ncon, cd->nrm, v, out);
  HX_CHECK_LAUNCH(k_project);
  return HX_OK;
}

int cu_precond(const hx_pa *pa, const double *dinv, const double *r, double *z) {
  cuda_data *cd = cdata(pa);
  if (!cd->nl) return HX_OK;
  k_precond<<<vgrid(cd->nl), VEC_THREADS>>>(cd->nl, cd->ncon, cd->nrm, dinv, r, z);
  HX_CHECK_LAUNCH(k_precond);
  return HX_OK;
}

int cu_constrain(const hx_pa *pa, const double *v, double *y) {
  cuda_data *cd = cdata(pa);
  if (!cd->nl) return HX_OK;
  k_constrain<<<vgrid(cd->nl), VEC_THREADS>>>(cd->nl, cd->ncon, cd->nrm, v, y);
  HX_CHECK_LAUNCH(k_constrain);
  return HX_OK;
}

/* k_pickput on a node list: the curved nodes (curved 1) or the shared ones */
int pickput(const hx_pa *pa, int curved, int mode, double *L, double *buf) {
  cuda_data *cd = cdata(pa);
  long long m = curved ? cd->ncurved : cd->nshared;
  if (!m) return HX_OK;
  k_pickput<<<vgrid(m), VEC_THREADS>>>(m, curved ? cd->curved : cd->shared, mode, L, buf, cd->nrm);
  HX_CHECK_LAUNCH(k_pickput);
  return HX_OK;
}
int cu_pick(const hx_pa *pa, const double *L, double *buf) { return pickput(pa, 1, 0, (double *)L, buf); }
int cu_put(const hx_pa *pa, const double *buf, double *L) { return pickput(pa, 1, 1, L, (double *)buf); }
int cu_nrm_put(const hx_pa *pa, const double *buf) { return pickput(pa, 1, 2, NULL, (double *)buf); }
int cu_spick(const hx_pa *pa, const double *L, double *buf) { return pickput(pa, 0, 0, (double *)L, buf); }
int cu_sput(const hx_pa *pa, const double *buf, double *L) { return pickput(pa, 0, 1, L, (double *)buf); }

} // namespace

extern "C" {

int hx_cuda_device_available(void) {
  static int cached = -1;
  if (cached < 0) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      n = 0;
    }
    cached = n > 0;
  }
  return cached;
}

int hx_cuda_select_device(int host_rank) {
  if (!hx_cuda_device_available()) return -1;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 2) {
    (void)cudaGetLastError();
    return 0;
  }
  int d = (host_rank % n + n) % n;
  if (cudaSetDevice(d) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return d;
}

const hx_backend hx_backend_cuda = {
    "cuda",
    1,
    cu_setup,
    cu_energy,
    cu_grad,
    cu_hess_setup,
    cu_hess_apply,
    cu_diag,
    cu_min_detj,
    cu_destroy,
    cu_vec_alloc,
    cu_vec_free,
    cu_vec_upload,
    cu_vec_download,
    0 /* host_memory */,
    cu_lsetup,
    cu_l2e,
    cu_e2l,
    cu_vzero,
    cu_axpby,
    cu_waxpy,
    cu_lc3,
    cu_inv_abs,
    cu_dot,
    cu_project,
    cu_precond,
    cu_constrain,
    cu_pick,
    cu_put,
    cu_nrm_put,
    cu_axpby_dot,
    cu_precond_dot,
    cu_l2e_proj,
    cu_e2l_constrain,
    cu_min_detj_nodes,
    cu_min_detj_elem,
    cu_etensor,
    cu_vmul,
    cu_spick,
    cu_sput,
};
}

/* ------------------------------------------------------------------ bench helpers (hx_kernels.h) */

extern "C" int hx_cuda_hv_kernel(int v) {
  HX_CHECK(v == 1 || col_code(v, 6), HX_ERR_INPUT,
           "CUDA backend: unknown Hessian-action kernel %d (0, 1, or 10 x elements per block + blocks per SM: 23, 42, 81, "
           "82; 100 + the same for the split column kernel: 124, 125)",
           v);
  g_hv_kernel = v;
  return HX_OK;
}

extern "C" int hx_cuda_hess_chunk(long long elems) {
  HX_CHECK(elems >= 0, HX_ERR_INPUT, "CUDA backend: a chunk of %lld elements", elems);
  g_hess_chunk = elems;
  return HX_OK;
}

extern "C" int hx_cuda_sync(void) {
  HX_CALL_CUDA(cudaDeviceSynchronize());
  return HX_OK;
}

extern "C" int hx_cuda_copy_bandwidth(size_t nbytes, int reps, double *gbs) {
  void *a = NULL, *b = NULL;
  cudaEvent_t e0, e1;
  HX_CALL_CUDA(cudaMalloc(&a, nbytes));
  cudaError_t ce = cudaMalloc(&b, nbytes);
  if (ce != cudaSuccess) {
    cudaFree(a);
    HX_CALL_CUDA(ce);
  }
  HX_CALL_CUDA(cudaMemset(a, 0, nbytes));
  HX_CALL_CUDA(cudaEventCreate(&e0));
  HX_CALL_CUDA(cudaEventCreate(&e1));
  double best = 0;
  for (int r = 0; r <= reps; r++) {
    HX_CALL_CUDA(cudaEventRecord(e0));
    HX_CALL_CUDA(cudaMemcpy(b, a, nbytes, cudaMemcpyDeviceToDevice));
    HX_CALL_CUDA(cudaEventRecord(e1));
    HX_CALL_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    HX_CALL_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    double g = 2.0 * (double)nbytes / (ms * 1e-3) * 1e-9;
    if (r > 0 && g > best) best = g;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  *gbs = best;
  return HX_OK;
}

extern "C" int hx_cuda_device_info(char *buf, size_t len) {
  int dev;
  cudaDeviceProp pr;
  HX_CALL_CUDA(cudaGetDevice(&dev));
  HX_CALL_CUDA(cudaGetDeviceProperties(&pr, dev));
  snprintf(buf, len, "%s, %.1f GiB, CC %d.%d, %d SMs", pr.name, pr.totalGlobalMem / 1073741824.0, pr.major, pr.minor,
           pr.multiProcessorCount);
  return HX_OK;
}

extern "C" int hx_cuda_mem_info(size_t *free_b, size_t *total_b) {
  HX_CALL_CUDA(cudaMemGetInfo(free_b, total_b));
  return HX_OK;
}
