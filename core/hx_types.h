/* Index types, host/device markers and limits shared by every folder. */
#pragma once
#include <stdint.h>
#include <stddef.h>

/** Local index on one rank (elements, nodes of this rank): 32-bit. */
typedef int32_t hx_lid;
/** Global id (nodes, vertices, elements across ranks; written to files): 64-bit. */
typedef int64_t hx_gid;

/* HX_HD marks point functions usable from C and from CUDA kernels. */
#if defined(__CUDACC__)
#define HX_HD __host__ __device__
#else
#define HX_HD
#endif

/** Highest geometry order hexpack supports (nd = order + 1 nodes per direction). */
#define HX_MAX_ORDER 16
#define HX_MAX_ND (HX_MAX_ORDER + 1)
/** Most quadrature points per direction. */
#define HX_MAX_Q 24

/** pi to double precision (C11 without extensions has no M_PI). */
#define HX_PI 3.14159265358979323846
