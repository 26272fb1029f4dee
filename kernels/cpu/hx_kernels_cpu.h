/* Helpers of the CPU backend that tmop also uses (targets, checks). */
#pragma once

/** Jacobians of one element at the tensor quadrature points by sum factorization:
    A[q][3c+d] = dx_c/dxi_d, q = qx + nq (qy + nq qz); xe is [3][nd^3] (lexicographic);
    B, G are [nq][nd]; work holds 3 nd^2 nq + 3 nd nq^2 doubles. */
void hx_cpu_elem_jacobian(int nd, int nq, const double *B, const double *G, const double *xe, double *A,
                          double *work);
