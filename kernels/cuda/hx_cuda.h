/* Helpers of the CUDA backend for benchmarks and tests (C linkage). Only
   meaningful when hx_backend_cuda.available and hx_cuda_device_available(). */
#pragma once
#ifdef __cplusplus
extern "C" {
#endif
/** Wait for all work on the device (benchmarks time asynchronous kernels). */
int hx_cuda_sync(void);
/** Measured device-to-device copy bandwidth (GB/s, bytes read + written) over
    buffers of nbytes each, best of reps cudaMemcpy calls. */
int hx_cuda_copy_bandwidth(size_t nbytes, int reps, double *gbs);
/** Device name and memory ("NVIDIA H100 80GB HBM3, 79.1 GiB, CC 9.0") into buf. */
int hx_cuda_device_info(char *buf, size_t len);
/** Free and total device memory in bytes. */
int hx_cuda_mem_info(size_t *free_b, size_t *total_b);
#ifdef __cplusplus
}
#endif
