/* The smallest det J of each element at the Q^3 points of a rule (the fold tests of the
   hold-back, the transfer and the line search's `fine` rule, tmop.c hx_tmop_fold_state) on
   the GPU: one thread block per element; per coordinate c and reference direction d the
   Jacobian entry dx_c/dxi_d at the points by sum factorization through shared memory (the
   derivative matrix G along d, the values B along the other two, as core/quality.c's
   detj_range), every thread keeping the 9 entries of its points (at most 2) in registers; then
   det J at its points and a block minimum. */
#include <cuda_runtime.h>
#include <math.h>

extern "C" {
#include "hx_error.h"
}
#include "hx_kernels.h"

namespace {

const int kMaxPts = 2; /* points a thread: Q^3 <= 2 x 1024 */

#define CK(call)                                                                                                                 \
  do {                                                                                                                           \
    cudaError_t err_ = (call);                                                                                                   \
    if (err_ != cudaSuccess && rc == HX_OK) rc = HX_ERROR(HX_ERR_BACKEND, "detj points: %s", cudaGetErrorString(err_));          \
  } while (0)

/* shared: x [nd^3] (one coordinate), B and G [Q][nd], t1 [Q][nd][nd], t2 [Q][Q][nd]; BG: B then G */
__global__ void points_kernel(int nd, int Q, const double *__restrict__ BG, const double *__restrict__ xE, double *fout) {
  extern __shared__ double sh[];
  int npe = nd * nd * nd, np = Q * Q * Q, e = blockIdx.x;
  double *xs = sh, *Bs = xs + npe, *Gs = Bs + Q * nd, *t1 = Gs + Q * nd, *t2 = t1 + Q * nd * nd;
  __shared__ double red[32];
  for (int t = threadIdx.x; t < 2 * Q * nd; t += blockDim.x) Bs[t] = BG[t];
  double J[kMaxPts][9];
  const double *x = xE + (size_t)e * 3 * npe;
  for (int c = 0; c < 3; c++) {
    __syncthreads(); /* the previous coordinate's stages are done with xs, t1, t2 */
    for (int t = threadIdx.x; t < npe; t += blockDim.x) xs[t] = x[(size_t)c * npe + t];
    for (int d = 0; d < 3; d++) {
      const double *A1 = d == 0 ? Gs : Bs, *A2 = d == 1 ? Gs : Bs, *A3 = d == 2 ? Gs : Bs;
      __syncthreads();
      /* t1[i + Q (b + nd c3)] = sum_a A1[i][a] x[a + nd (b + nd c3)] */
      for (int t = threadIdx.x; t < Q * nd * nd; t += blockDim.x) {
        int i = t % Q, r = t / Q; /* r = b + nd c3 */
        double s = 0;
        for (int a = 0; a < nd; a++) s += A1[i * nd + a] * xs[a + nd * r];
        t1[t] = s;
      }
      __syncthreads();
      /* t2[i + Q (j + Q c3)] = sum_b A2[j][b] t1[i + Q (b + nd c3)] */
      for (int t = threadIdx.x; t < Q * Q * nd; t += blockDim.x) {
        int i = t % Q, j = (t / Q) % Q, c3 = t / (Q * Q);
        double s = 0;
        for (int b = 0; b < nd; b++) s += A2[j * nd + b] * t1[i + Q * (b + nd * c3)];
        t2[t] = s;
      }
      __syncthreads();
      /* J at this thread's points p = i + Q (j + Q k): sum_c3 A3[k][c3] t2[i + Q (j + Q c3)] */
      for (int q = 0; q < kMaxPts; q++) {
        int p = threadIdx.x + q * blockDim.x;
        if (p >= np) break;
        int i = p % Q, j = (p / Q) % Q, k = p / (Q * Q);
        double s = 0;
        for (int c3 = 0; c3 < nd; c3++) s += A3[k * nd + c3] * t2[i + Q * (j + Q * c3)];
        J[q][3 * c + d] = s;
      }
    }
  }
  double lo = INFINITY; /* fmin skips a NaN, as detj_range */
  for (int q = 0; q < kMaxPts; q++) {
    int p = threadIdx.x + q * blockDim.x;
    if (p >= np) break;
    const double *a = J[q];
    double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
    lo = fmin(lo, det);
  }
  for (int off = 16; off > 0; off /= 2) lo = fmin(lo, __shfl_down_sync(0xffffffffu, lo, off));
  if ((threadIdx.x & 31) == 0) red[threadIdx.x / 32] = lo;
  __syncthreads();
  if (threadIdx.x < 32) {
    int nw = (blockDim.x + 31) / 32;
    lo = threadIdx.x < nw ? red[threadIdx.x] : INFINITY;
    for (int off = 16; off > 0; off /= 2) lo = fmin(lo, __shfl_down_sync(0xffffffffu, lo, off));
    if (threadIdx.x == 0) fout[e] = lo;
  }
}

struct points_ws {
  double *dx, *df, *dBG;
  size_t capx, capf;
} g_pw;

} // namespace

extern "C" int hx_detj_points_min_cuda(int nd, int Q, const double *B, const double *G, hx_lid num_elem, const double *xE,
                                       double *fout) {
  HX_CHECK(hx_cuda_device_available(), HX_ERR_BACKEND, "detj points: no CUDA device is present on this machine");
  HX_CHECK(nd >= 2 && nd <= HX_MAX_ND && Q >= 1 && Q * Q * Q <= kMaxPts * 1024 && num_elem >= 0, HX_ERR_BACKEND,
           "detj points: %d nodes and %d points a direction are not for this kernel", nd, Q);
  if (num_elem == 0) return HX_OK;
  int npe = nd * nd * nd, np = Q * Q * Q, rc = HX_OK;
  int threads = ((np + kMaxPts - 1) / kMaxPts + 31) / 32 * 32;
  size_t shm = ((size_t)npe + 2 * (size_t)Q * nd + (size_t)Q * nd * nd + (size_t)Q * Q * nd) * sizeof(double);
  const hx_lid chunk = 1 << 15;
  hx_lid nb = num_elem < chunk ? num_elem : chunk;
  size_t nx = (size_t)nb * 3 * npe;
  if (nx > g_pw.capx || (size_t)nb > g_pw.capf || !g_pw.dBG) {
    cudaFree(g_pw.dx), cudaFree(g_pw.df), cudaFree(g_pw.dBG);
    g_pw.dx = g_pw.df = g_pw.dBG = NULL, g_pw.capx = g_pw.capf = 0;
    CK(cudaMalloc(&g_pw.dx, nx * sizeof(double)));
    CK(cudaMalloc(&g_pw.df, (size_t)nb * sizeof(double)));
    CK(cudaMalloc(&g_pw.dBG, 2 * (size_t)HX_MAX_Q * HX_MAX_ND * sizeof(double)));
    if (rc) return rc;
    g_pw.capx = nx, g_pw.capf = (size_t)nb;
  }
  CK(cudaMemcpy(g_pw.dBG, B, (size_t)Q * nd * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(g_pw.dBG + (size_t)Q * nd, G, (size_t)Q * nd * sizeof(double), cudaMemcpyHostToDevice));
  if (shm > 48 * 1024) CK(cudaFuncSetAttribute(points_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shm));
  for (hx_lid e0 = 0; e0 < num_elem && rc == HX_OK; e0 += nb) {
    hx_lid m = num_elem - e0 < nb ? num_elem - e0 : nb;
    CK(cudaMemcpy(g_pw.dx, xE + (size_t)e0 * 3 * npe, (size_t)m * 3 * npe * sizeof(double), cudaMemcpyHostToDevice));
    if (rc) break;
    points_kernel<<<(unsigned)m, threads, shm>>>(nd, Q, g_pw.dBG, g_pw.dx, g_pw.df);
    CK(cudaGetLastError());
    CK(cudaMemcpy(fout + e0, g_pw.df, (size_t)m * sizeof(double), cudaMemcpyDeviceToHost));
  }
  return rc;
}
