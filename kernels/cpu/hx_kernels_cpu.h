/* Private helpers of the CPU backend (kernels/ only; others reach them through the host helpers
   of hx_kernels.h). */
#pragma once
#include "hx_types.h"

/** Jacobians of one element at the tensor quadrature points by sum factorization:
    A[q][3c+d] = dx_c/dxi_d, q = qx + nq (qy + nq qz); xe is [3][nd^3] (lexicographic);
    B, G are [nq][nd]; work holds 3 nd^2 nq + 3 nd nq^2 doubles. */
void hx_cpu_elem_jacobian(int nd, int nq, const double *B, const double *G, const double *xe, double *A, double *work);

/** Minimum of det(dx/dxi) at the GLL nodes of num_elem elements of an E-vector xE
    ([num_elem][3][nd^3], lexicographic); num_threads <= 0: OpenMP default, 1: serial.
    +HUGE_VAL with no element. The same number for any thread count. */
int hx_cpu_min_detj_nodes(int nd, hx_lid num_elem, const double *xE, int num_threads, double *m);
