/* The first pass of the proven validity bound (core/detj_bound.c) on the GPU: one thread
   block per element forms the Bernstein coefficients of det J on the whole element (the
   p^6-costly products), their minimum (the first bound, lower0), det J at the 8 corners and
   the first verdict; the host subdivides only the elements left undecided
   (hx_detj_bound_elem). The steps are those of bernstein_detj in detj_bound.c, written as
   gathers (one output coefficient per thread) instead of scatters:
   1. coordinates less their mean -> Bernstein coefficients (Wg along each direction);
   2. the 9 Jacobian entries (differences of coefficients), scaled by their binomials;
   3. per c: the cofactor product J[c1][1] J[c2][2] - J[c2][1] J[c1][2] as a 3D convolution,
      then J[c][0] times it added to the coefficients; unscaled at the end;
   4. the minimum, the largest |coefficient| and H give lower0 and the proving margin; a
      corner coefficient <= 0 is confirmed by evaluating det J there from the nodes.
   Orders 1..4 run a kernel compiled for the order (bound_kernel_t, below: the convolutions'
   outputs in registers), the others the generic one (bound_kernel). */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

extern "C" {
#include "hx_basis.h"
#include "hx_detj_bound.h"
#include "hx_error.h"
}
#include "hx_kernels.h"

namespace {

const int kThreads = 128;

/* tab: Wg [nd][nd], binom [(n + 1)^2], phi0, dphi0, phi1, dphi1 [nd] (Lagrange at t = 0, 1) */
struct bound_tab {
  int p, nd, n;
  double margin_factor; /* 32 (kappa + n) eps */
};

__device__ __forceinline__ void contract3(int d, int nd, const double *W, const double *in, double *out) {
  int npe = nd * nd * nd, st = d == 0 ? 1 : (d == 1 ? nd : nd * nd);
  for (int t = threadIdx.x; t < 3 * npe; t += blockDim.x) {
    int c = t / npe, a = t % npe, idx[3] = {a % nd, (a / nd) % nd, a / (nd * nd)};
    int q = idx[d], base = c * npe + a - q * st;
    double s = 0;
    for (int b = 0; b < nd; b++) s += W[q * nd + b] * in[base + b * st];
    out[t] = s;
  }
}

/* out [N] (dims N0 N1 N2) = sum_a A[a] B[out - a] (+ sign A2[a] B2[out - a] when A2) */
__device__ void conv_gather(const int da[3], const int db[3], const double *A, const double *B, const double *A2,
                            const double *B2, double *out, int accumulate) {
  int N0 = da[0] + db[0] - 1, N1 = da[1] + db[1] - 1, N2 = da[2] + db[2] - 1, N = N0 * N1 * N2;
  for (int t = threadIdx.x; t < N; t += blockDim.x) {
    int I = t % N0, J = (t / N0) % N1, K = t / (N0 * N1);
    double s = 0;
    for (int k = max(0, K - db[2] + 1); k <= min(da[2] - 1, K); k++)
      for (int j = max(0, J - db[1] + 1); j <= min(da[1] - 1, J); j++)
        for (int i = max(0, I - db[0] + 1); i <= min(da[0] - 1, I); i++) {
          int a = i + da[0] * (j + da[1] * k), b = (I - i) + db[0] * ((J - j) + db[1] * (K - k));
          s += A[a] * B[b];
          if (A2) s -= A2[a] * B2[b];
        }
    out[t] = accumulate ? out[t] + s : s;
  }
}

/* det J at a corner of the element evaluated from its nodes, as hx_detj_bound_eval */
__device__ double corner_eval(int nd, const double *x, const double *ph[3], const double *dph[3]) {
  int npe = nd * nd * nd;
  double J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        double w0 = dph[0][i] * ph[1][j] * ph[2][k], w1 = ph[0][i] * dph[1][j] * ph[2][k], w2 = ph[0][i] * ph[1][j] * dph[2][k];
        int a = i + nd * (j + nd * k);
        for (int c = 0; c < 3; c++) {
          double v = x[c * npe + a];
          J[c][0] += w0 * v;
          J[c][1] += w1 * v;
          J[c][2] += w2 * v;
        }
      }
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

/* step 2: the 9 Jacobian entries from the coefficients sT (3 x nd^3), scaled by their binomials
   (bn rows of length L), into sJ (9 x p nd^2) */
__device__ __forceinline__ void jac_entries(int p, int nd, int L, const double *bn, const double *sT, double *sJ) {
  int npe = nd * nd * nd, nJ = p * nd * nd;
  for (int t = threadIdx.x; t < 9 * nJ; t += blockDim.x) {
    int cd = t / nJ, r = t % nJ, c = cd / 3, dd = cd % 3;
    int dim[3] = {nd, nd, nd};
    dim[dd] = p;
    int idx[3] = {r % dim[0], (r / dim[0]) % dim[1], r / (dim[0] * dim[1])};
    int st = dd == 0 ? 1 : (dd == 1 ? nd : nd * nd), a = idx[0] + nd * (idx[1] + nd * idx[2]);
    const double *P = sT + c * npe;
    double v = p * (P[a + st] - P[a]), s = 1;
    for (int q = 0; q < 3; q++) s *= bn[(dim[q] - 1) * L + idx[q]];
    sJ[t] = v * s;
  }
}

/* step 4, on one thread: from the smallest coefficient lo, the largest size cmax, the Jacobian
   entries' largest sizes jm [9] and the 8 corner coefficients, element e's outputs */
__device__ void verdict_out(const bound_tab &T, int nd, double lo, double cmax, const double *jm, const double corner[8],
                            const double *x, const double *ends, int e, double *lower0, double *corner_min, int *verdict) {
  double H = 0;
  for (int c = 0; c < 3; c++) {
    int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
    H += jm[3 * c] * (jm[3 * c1 + 1] * jm[3 * c2 + 2] + jm[3 * c2 + 1] * jm[3 * c1 + 2]);
  }
  double margin = T.margin_factor * fmax(H, cmax), cmin = INFINITY;
  int invalid = 0;
  for (int q = 0; q < 8; q++) {
    double v = corner[q];
    cmin = fmin(cmin, v);
    if (!(v > 0) && !(lo > margin)) { /* confirm from the nodes, as the CPU does */
      const double *ph[3], *dph[3];
      for (int d = 0; d < 3; d++) {
        int one = (q >> d) & 1;
        ph[d] = ends + (2 * one) * nd;
        dph[d] = ends + (2 * one + 1) * nd;
      }
      if (!(corner_eval(nd, x, ph, dph) > 0)) invalid = 1;
    }
  }
  if (lower0) lower0[e] = lo;
  if (corner_min) corner_min[e] = cmin;
  if (verdict) verdict[e] = lo > margin ? HX_VALID_PROVEN : (invalid ? HX_INVALID : 0);
}

__global__ void bound_kernel(bound_tab T, const double *__restrict__ tab, const double *__restrict__ xE, int num_elem,
                             double *lower0, double *corner_min, int *verdict) {
  extern __shared__ double sm[];
  int e = blockIdx.x;
  if (e >= num_elem) return;
  int p = T.p, nd = T.nd, n = T.n, npe = nd * nd * nd, nJ = p * nd * nd, nC = (2 * p + 1) * 4 * p * p, n3 = n * n * n, L = n + 1;
  const double *Wg = tab, *bn = tab + nd * nd, *ends = bn + L * L;
  double *sP = sm, *sT = sP + 3 * npe, *sJ = sT + 3 * npe, *sC = sJ + 9 * nJ, *sK = sC + nC, *sR = sK + n3,
         *sR2 = sR + blockDim.x, *sM = sR2 + blockDim.x; /* sM: means [3], jmax [9] */
  const double *x = xE + (size_t)e * 3 * npe;
  /* 1. coordinates less their mean -> Bernstein */
  if (threadIdx.x < 3) {
    double m = 0;
    for (int a = 0; a < npe; a++) m += x[threadIdx.x * npe + a];
    sM[threadIdx.x] = m / npe;
  }
  __syncthreads();
  for (int t = threadIdx.x; t < 3 * npe; t += blockDim.x) sP[t] = x[t] - sM[t / npe];
  __syncthreads();
  contract3(0, nd, Wg, sP, sT);
  __syncthreads();
  contract3(1, nd, Wg, sT, sP);
  __syncthreads();
  contract3(2, nd, Wg, sP, sT); /* the coefficients are in sT */
  __syncthreads();
  /* 2. Jacobian entries, scaled by their binomials */
  jac_entries(p, nd, L, bn, sT, sJ);
  if (threadIdx.x < 9) {
    int cd = threadIdx.x, c = cd / 3, dd = cd % 3, st = dd == 0 ? 1 : (dd == 1 ? nd : nd * nd);
    int dim[3] = {nd, nd, nd};
    dim[dd] = p;
    const double *P = sT + c * npe;
    double mx = 0;
    for (int k = 0; k < dim[2]; k++)
      for (int j = 0; j < dim[1]; j++)
        for (int i = 0; i < dim[0]; i++) {
          int a = i + nd * (j + nd * k);
          mx = fmax(mx, fabs(p * (P[a + st] - P[a])));
        }
    sM[3 + cd] = mx;
  }
  __syncthreads();
  /* 3. det J = sum_c J[c][0] (J[c1][1] J[c2][2] - J[c2][1] J[c1][2]) */
  const int d0[3] = {p, nd, nd}, d1[3] = {nd, p, nd}, d2[3] = {nd, nd, p}, dC[3] = {2 * p + 1, 2 * p, 2 * p};
  for (int c = 0; c < 3; c++) {
    int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
    conv_gather(d1, d2, sJ + (3 * c1 + 1) * nJ, sJ + (3 * c2 + 2) * nJ, sJ + (3 * c2 + 1) * nJ, sJ + (3 * c1 + 2) * nJ, sC, 0);
    __syncthreads();
    conv_gather(d0, dC, sJ + (3 * c) * nJ, sC, NULL, NULL, sK, c > 0);
    __syncthreads();
  }
  /* unscale, minimum and largest size */
  const double *bN = bn + (n - 1) * L;
  double mn = INFINITY, mx = 0;
  for (int t = threadIdx.x; t < n3; t += blockDim.x) {
    int i = t % n, j = (t / n) % n, k = t / (n * n);
    double v = sK[t] / (bN[i] * bN[j] * bN[k]);
    sK[t] = v;
    mn = fmin(mn, v);
    mx = fmax(mx, fabs(v));
  }
  sR[threadIdx.x] = mn;
  sR2[threadIdx.x] = mx;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      sR[threadIdx.x] = fmin(sR[threadIdx.x], sR[threadIdx.x + s]);
      sR2[threadIdx.x] = fmax(sR2[threadIdx.x], sR2[threadIdx.x + s]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    double corner[8];
    for (int q = 0; q < 8; q++) corner[q] = sK[(q & 1 ? n - 1 : 0) + n * ((q & 2 ? n - 1 : 0) + n * (q & 4 ? n - 1 : 0))];
    verdict_out(T, nd, sR[0], sR2[0], sM + 3, corner, x, ends, e, lower0, corner_min, verdict);
  }
}

/* ---- the fast path for p = 1..4 ------------------------------------------------------------
   The same steps with the sizes known to the compiler, and the two convolutions of step 3 as
   lines of outputs held in registers: a thread owns the coefficients along the first direction
   at one (J, K) and walks the rows (j, k) of the left factor, reading one row of each factor per
   step. The left factor's row is the same for every thread of the block (a broadcast), and each
   shared-memory read feeds 2 to 5 multiply-adds instead of a half, with the index arithmetic
   done once per row instead of once per product. The three cofactor products are independent
   (three buffers, one pass); the final coefficients stay in registers: only their minimum,
   their largest size and the 8 corners leave the threads. */
template <int P> struct tiled {
  static constexpr int ND = P + 1, N = 3 * P, NPE = ND * ND * ND, NJ = P * ND * ND;
  static constexpr int CA0 = 2 * P + 1, CA1 = 2 * P, NCA = CA0 * CA1 * CA1; /* a cofactor product: (2p+1, 2p, 2p) */
  static constexpr int NT = (N * N + 31) / 32 * 32;                         /* one thread per (J, K) of det J */
  static constexpr int NW = NT / 32;
};

__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ double warp_min(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmin(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ double warp_max(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <int P>
__global__ void __launch_bounds__(tiled<P>::NT)
    bound_kernel_t(bound_tab T, const double *__restrict__ tab, const double *__restrict__ xE, int num_elem, double *lower0,
                   double *corner_min, int *verdict) {
  using S = tiled<P>;
  constexpr int ND = S::ND, N = S::N, NPE = S::NPE, NJ = S::NJ, CA0 = S::CA0, CA1 = S::CA1, NCA = S::NCA, NT = S::NT, NW = S::NW;
  __shared__ double sP[3 * NPE], sT[3 * NPE], sJ[9 * NJ], sC[3 * NCA], sCorner[8], sRed[2 * NW], sM[12];
  int e = blockIdx.x, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (e >= num_elem) return;
  const double *Wg = tab, *bn = tab + ND * ND, *ends = bn + (N + 1) * (N + 1);
  const double *x = xE + (size_t)e * 3 * NPE;
  /* 1. coordinates less their mean -> Bernstein */
  for (int t = tid; t < 3 * NPE; t += NT) sP[t] = x[t];
  __syncthreads();
  for (int c = warp; c < 3; c += NW) {
    double m = 0;
    for (int a = lane; a < NPE; a += 32) m += sP[c * NPE + a];
    m = warp_sum(m);
    if (lane == 0) sM[c] = m / NPE;
  }
  __syncthreads();
  for (int t = tid; t < 3 * NPE; t += NT) sP[t] -= sM[t / NPE];
  __syncthreads();
  contract3(0, ND, Wg, sP, sT);
  __syncthreads();
  contract3(1, ND, Wg, sT, sP);
  __syncthreads();
  contract3(2, ND, Wg, sP, sT); /* the coefficients are in sT */
  __syncthreads();
  /* 2. Jacobian entries scaled by their binomials, and the largest |entry| of each */
  jac_entries(P, ND, N + 1, bn, sT, sJ);
  for (int cd = warp; cd < 9; cd += NW) {
    int c = cd / 3, dd = cd % 3, st = dd == 0 ? 1 : (dd == 1 ? ND : ND * ND);
    int dim[3] = {ND, ND, ND};
    dim[dd] = P;
    const double *Pc = sT + c * NPE;
    double mx = 0;
    for (int r = lane; r < NJ; r += 32) {
      int a = r % dim[0] + ND * ((r / dim[0]) % dim[1] + ND * (r / (dim[0] * dim[1])));
      mx = fmax(mx, fabs(P * (Pc[a + st] - Pc[a])));
    }
    mx = warp_max(mx);
    if (lane == 0) sM[3 + cd] = mx;
  }
  __syncthreads();
  /* 3a. the cofactor products C_c = J[c1][1] * J[c2][2] - J[c2][1] * J[c1][2], c1 = c + 1, c2 = c + 2:
     factors (ND, P, ND) and (ND, ND, P), product (2P+1, 2P, 2P) */
  for (int t = tid; t < 3 * CA1 * CA1; t += NT) {
    int c = t / (CA1 * CA1), J = t % CA1, K = (t / CA1) % CA1, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
    const double *A1 = sJ + (3 * c1 + 1) * NJ, *B1 = sJ + (3 * c2 + 2) * NJ, *A2 = sJ + (3 * c2 + 1) * NJ,
                 *B2 = sJ + (3 * c1 + 2) * NJ;
    double acc[CA0];
#pragma unroll
    for (int i = 0; i < CA0; i++) acc[i] = 0;
    for (int k = 0; k < ND; k++) {
      int Kb = K - k;
      if (Kb < 0 || Kb >= P) continue;
      for (int j = 0; j < P; j++) {
        int Jb = J - j;
        if (Jb < 0 || Jb >= ND) continue;
        const double *a1 = A1 + ND * (j + P * k), *a2 = A2 + ND * (j + P * k);
        const double *b1 = B1 + ND * (Jb + ND * Kb), *b2 = B2 + ND * (Jb + ND * Kb);
        double ra1[ND], ra2[ND], rb1[ND], rb2[ND];
#pragma unroll
        for (int i = 0; i < ND; i++) ra1[i] = a1[i], ra2[i] = a2[i], rb1[i] = b1[i], rb2[i] = b2[i];
#pragma unroll
        for (int i = 0; i < ND; i++)
#pragma unroll
          for (int ib = 0; ib < ND; ib++) acc[i + ib] += ra1[i] * rb1[ib] - ra2[i] * rb2[ib];
      }
    }
    double *out = sC + c * NCA + CA0 * (J + CA1 * K);
#pragma unroll
    for (int i = 0; i < CA0; i++) out[i] = acc[i];
  }
  __syncthreads();
  /* 3b. det J = sum_c J[c][0] * C_c: factors (P, ND, ND) and (2P+1, 2P, 2P), product N^3; then
     unscaled, its minimum, largest size and corners */
  double mn = INFINITY, mx = 0;
  if (tid < N * N) {
    int J = tid % N, K = tid / N;
    double acc[N];
#pragma unroll
    for (int i = 0; i < N; i++) acc[i] = 0;
    for (int c = 0; c < 3; c++) {
      const double *A = sJ + 3 * c * NJ, *B = sC + c * NCA;
      for (int k = 0; k < ND; k++) {
        int Kb = K - k;
        if (Kb < 0 || Kb >= CA1) continue;
        for (int j = 0; j < ND; j++) {
          int Jb = J - j;
          if (Jb < 0 || Jb >= CA1) continue;
          const double *a = A + P * (j + ND * k), *b = B + CA0 * (Jb + CA1 * Kb);
          double ra[P], rb[CA0];
#pragma unroll
          for (int i = 0; i < P; i++) ra[i] = a[i];
#pragma unroll
          for (int i = 0; i < CA0; i++) rb[i] = b[i];
#pragma unroll
          for (int i = 0; i < P; i++)
#pragma unroll
            for (int ib = 0; ib < CA0; ib++) acc[i + ib] += ra[i] * rb[ib];
        }
      }
    }
    const double *bN = bn + (N - 1) * (N + 1);
    double sjk = bN[J] * bN[K];
#pragma unroll
    for (int i = 0; i < N; i++) {
      double v = acc[i] / (bN[i] * sjk);
      acc[i] = v;
      mn = fmin(mn, v);
      mx = fmax(mx, fabs(v));
    }
    if ((J == 0 || J == N - 1) && (K == 0 || K == N - 1)) {
      int q = (J ? 2 : 0) + (K ? 4 : 0);
      sCorner[q] = acc[0];
      sCorner[q + 1] = acc[N - 1];
    }
  }
  mn = warp_min(mn);
  mx = warp_max(mx);
  if (lane == 0) sRed[warp] = mn, sRed[NW + warp] = mx;
  __syncthreads();
  if (tid == 0) {
    double lo = sRed[0], cmax = sRed[NW];
    for (int w = 1; w < NW; w++) lo = fmin(lo, sRed[w]), cmax = fmax(cmax, sRed[NW + w]);
    verdict_out(T, ND, lo, cmax, sM + 3, sCorner, x, ends, e, lower0, corner_min, verdict);
  }
}

/* The pass's device workspace, kept for the process: the order's tables and the kernel's
   attribute (set once per order), the per-element outputs and, for host input, the staging
   copy of the nodes (grown, never shrunk). A line search calls the pass once per trial, so
   allocations and table uploads per call would cost more than the pass at low order. */
struct bound_ws {
  int order;
  bound_tab T;
  size_t shm;
  double *dtab;
  double *dl, *dc, *dx;
  int *dv;
  size_t cap, capx; /* elements in dl/dc/dv, doubles in dx */
};
bound_ws g_ws = {0, {0, 0, 0, 0}, 0, NULL, NULL, NULL, NULL, NULL, 0, 0};
int g_generic = 0; /* hx_detj_bound_cuda_generic */

#define CK(expr)                                                                                                                 \
  do {                                                                                                                           \
    cudaError_t ce = (expr);                                                                                                     \
    if (ce != cudaSuccess && rc == HX_OK)                                                                                        \
      rc = hx_error_set(HX_ERR_BACKEND, __FILE__, __LINE__, "CUDA: %s failed: %s", #expr, cudaGetErrorString(ce));               \
  } while (0)

/* the tables and the kernel's shared memory for order p into g_ws */
int ws_order(int order) {
  if (g_ws.order == order) return HX_OK;
  hx_detj_bound_opts o;
  hx_detj_bound_opts_default(&o);
  hx_detj_bound_ctx *bc;
  HX_CALL(hx_detj_bound_ctx_create(order, &o, &bc));
  const double *Wg, *xg;
  double kappa;
  hx_detj_bound_ctx_basis(bc, &Wg, &xg, &kappa);
  int p = order, nd = p + 1, n = 3 * p, L = n + 1, npe = nd * nd * nd;
  size_t ntab = (size_t)nd * nd + (size_t)L * L + 4 * (size_t)nd;
  double *htab = (double *)malloc(ntab * sizeof(double));
  if (!htab) {
    hx_detj_bound_ctx_destroy(&bc);
    return HX_ERROR(HX_ERR_MEMORY, "detj bound: out of host memory");
  }
  for (int i = 0; i < nd * nd; i++) htab[i] = Wg[i];
  double *bn = htab + nd * nd;
  for (int m = 0; m <= n; m++) {
    double *row = bn + m * L;
    for (int k = 0; k <= n; k++) row[k] = 0;
    row[0] = 1;
    for (int k = 1; k <= m; k++) row[k] = row[k - 1] * (m - k + 1) / k;
  }
  double *ends = bn + L * L;
  hx_lagrange_eval(nd, xg, 0.0, ends, ends + nd);
  hx_lagrange_eval(nd, xg, 1.0, ends + 2 * nd, ends + 3 * nd);
  bound_tab T = {p, nd, n, 32 * (kappa + n) * DBL_EPSILON};
  hx_detj_bound_ctx_destroy(&bc);

  size_t nC = (size_t)(2 * p + 1) * 4 * p * p;
  size_t shm = (6 * (size_t)npe + 9 * (size_t)p * nd * nd + nC + (size_t)n * n * n + 2 * kThreads + 12) * sizeof(double);
  int dev = 0, optin = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (shm > (size_t)optin) {
    free(htab);
    return HX_ERROR(HX_ERR_BACKEND, "detj bound: order %d needs %zu bytes of shared memory per block, the device has %d", p, shm,
                    optin);
  }
  int rc = HX_OK;
  if (g_ws.dtab) cudaFree(g_ws.dtab);
  g_ws.dtab = NULL;
  g_ws.order = 0;
  CK(cudaFuncSetAttribute(bound_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
  CK(cudaMalloc(&g_ws.dtab, ntab * sizeof(double)));
  CK(cudaMemcpy(g_ws.dtab, htab, ntab * sizeof(double), cudaMemcpyHostToDevice));
  free(htab);
  if (rc) return rc;
  g_ws.order = order, g_ws.T = T, g_ws.shm = shm;
  return HX_OK;
}

/* room for m elements' outputs (and nx doubles of staged nodes) in g_ws */
int ws_room(size_t m, size_t nx) {
  int rc = HX_OK;
  if (m > g_ws.cap) {
    cudaFree(g_ws.dl), cudaFree(g_ws.dc), cudaFree(g_ws.dv);
    g_ws.dl = g_ws.dc = NULL, g_ws.dv = NULL, g_ws.cap = 0;
    CK(cudaMalloc(&g_ws.dl, m * sizeof(double)));
    CK(cudaMalloc(&g_ws.dc, m * sizeof(double)));
    CK(cudaMalloc(&g_ws.dv, m * sizeof(int)));
    if (!rc) g_ws.cap = m;
  }
  if (nx > g_ws.capx) {
    cudaFree(g_ws.dx);
    g_ws.dx = NULL, g_ws.capx = 0;
    CK(cudaMalloc(&g_ws.dx, nx * sizeof(double)));
    if (!rc) g_ws.capx = nx;
  }
  return rc;
}

/* the kernel over m elements whose nodes are at dx (device), outputs in g_ws */
void launch(const double *dx, hx_lid m) {
  const bound_tab &T = g_ws.T;
  switch (g_generic ? 0 : T.p) {
  case 1: bound_kernel_t<1><<<m, tiled<1>::NT>>>(T, g_ws.dtab, dx, m, g_ws.dl, g_ws.dc, g_ws.dv); break;
  case 2: bound_kernel_t<2><<<m, tiled<2>::NT>>>(T, g_ws.dtab, dx, m, g_ws.dl, g_ws.dc, g_ws.dv); break;
  case 3: bound_kernel_t<3><<<m, tiled<3>::NT>>>(T, g_ws.dtab, dx, m, g_ws.dl, g_ws.dc, g_ws.dv); break;
  case 4: bound_kernel_t<4><<<m, tiled<4>::NT>>>(T, g_ws.dtab, dx, m, g_ws.dl, g_ws.dc, g_ws.dv); break;
  default: bound_kernel<<<m, kThreads, g_ws.shm>>>(T, g_ws.dtab, dx, m, g_ws.dl, g_ws.dc, g_ws.dv);
  }
}

/* the pass over m elements whose nodes are at dx (device), outputs to the host arrays */
int run_pass(const double *dx, hx_lid m, double *lower0, double *corner_min, int *verdict) {
  int rc = HX_OK;
  launch(dx, m);
  CK(cudaGetLastError());
  if (lower0) CK(cudaMemcpy(lower0, g_ws.dl, (size_t)m * sizeof(double), cudaMemcpyDeviceToHost));
  if (corner_min) CK(cudaMemcpy(corner_min, g_ws.dc, (size_t)m * sizeof(double), cudaMemcpyDeviceToHost));
  if (verdict) CK(cudaMemcpy(verdict, g_ws.dv, (size_t)m * sizeof(int), cudaMemcpyDeviceToHost));
  return rc;
}

} // namespace

extern "C" int hx_detj_bound_first_cuda(int order, hx_lid num_elem, const double *xE, double *lower0, double *corner_min,
                                        int *verdict) {
  HX_CHECK(hx_cuda_device_available(), HX_ERR_BACKEND, "detj bound: no CUDA device is present on this machine");
  HX_CHECK(num_elem >= 0, HX_ERR_INPUT, "detj bound: %d elements", (int)num_elem);
  if (num_elem == 0) return HX_OK;
  HX_CALL(ws_order(order));
  int nd = order + 1, npe = nd * nd * nd, rc = HX_OK;
  const hx_lid chunk = 1 << 16;
  hx_lid nb = num_elem < chunk ? num_elem : chunk;
  HX_CALL(ws_room((size_t)nb, (size_t)nb * 3 * npe));
  for (hx_lid e0 = 0; e0 < num_elem && rc == HX_OK; e0 += nb) {
    hx_lid m = num_elem - e0 < nb ? num_elem - e0 : nb;
    CK(cudaMemcpy(g_ws.dx, xE + (size_t)e0 * 3 * npe, (size_t)m * 3 * npe * sizeof(double), cudaMemcpyHostToDevice));
    if (rc) break;
    rc = run_pass(g_ws.dx, m, lower0 ? lower0 + e0 : NULL, corner_min ? corner_min + e0 : NULL, verdict ? verdict + e0 : NULL);
  }
  return rc;
}

extern "C" int hx_detj_bound_first_cuda_dev(int order, hx_lid num_elem, const double *dxE, double *lower0, double *corner_min,
                                            int *verdict) {
  HX_CHECK(hx_cuda_device_available(), HX_ERR_BACKEND, "detj bound: no CUDA device is present on this machine");
  HX_CHECK(num_elem >= 0, HX_ERR_INPUT, "detj bound: %d elements", (int)num_elem);
  if (num_elem == 0) return HX_OK;
  HX_CALL(ws_order(order));
  HX_CALL(ws_room((size_t)num_elem, 0));
  return run_pass(dxE, num_elem, lower0, corner_min, verdict);
}
extern "C" int hx_detj_bound_cuda_time(int order, hx_lid num_elem, const double *xE, int reps, double *ms) {
  HX_CHECK(hx_cuda_device_available(), HX_ERR_BACKEND, "detj bound: no CUDA device is present on this machine");
  HX_CHECK(num_elem > 0 && num_elem <= INT32_MAX && reps > 0, HX_ERR_INPUT, "detj bound: %lld elements, %d runs",
           (long long)num_elem, reps);
  HX_CALL(ws_order(order));
  int nd = order + 1, npe = nd * nd * nd, rc = HX_OK;
  HX_CALL(ws_room((size_t)num_elem, (size_t)num_elem * 3 * npe));
  CK(cudaMemcpy(g_ws.dx, xE, (size_t)num_elem * 3 * npe * sizeof(double), cudaMemcpyHostToDevice));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  float best = INFINITY;
  for (int r = 0; r < reps && rc == HX_OK; r++) {
    CK(cudaEventRecord(a));
    launch(g_ws.dx, num_elem);
    CK(cudaGetLastError());
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    best = fminf(best, t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  *ms = best;
  return rc;
}

extern "C" int hx_detj_bound_cuda_generic(int on) {
  int was = g_generic;
  g_generic = on ? 1 : 0;
  return was;
}
#undef CK
