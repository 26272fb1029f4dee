/* The communicator a mesh lives on, with and without MPI.

   With HX_HAVE_MPI the type is MPI_Comm; without, a dummy int and every
   collective acts on one rank. MPI_COMM_WORLD appears only in cli/. */
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "hx_config.h"

#if HX_HAVE_MPI
#include <mpi.h>
typedef MPI_Comm hx_comm;
#define HX_COMM_SELF MPI_COMM_SELF
#else
typedef int hx_comm;
#define HX_COMM_SELF 0
#endif

int hx_comm_rank(hx_comm comm);
int hx_comm_size(hx_comm comm);
/** Agree on an error code across ranks: every rank leaves with the largest
    (any failure wins). Collective on comm. Returns the agreed code. */
int hx_comm_agree(hx_comm comm, int rc);
/** In-place global reductions of n doubles / int64. Collective on comm. */
int hx_comm_sum_double(hx_comm comm, double *v, int n);
int hx_comm_min_double(hx_comm comm, double *v, int n);
int hx_comm_max_double(hx_comm comm, double *v, int n);
int hx_comm_sum_int64(hx_comm comm, int64_t *v, int n);
int hx_comm_max_int64(hx_comm comm, int64_t *v, int n);
/** Exclusive prefix sum of one int64 over ranks (rank 0 gets 0). */
int hx_comm_exscan_int64(hx_comm comm, int64_t v, int64_t *out);
/** In-place global minimum of n int64. Collective on comm. */
int hx_comm_min_int64(hx_comm comm, int64_t *v, int n);
/** out[r] = v of rank r (out has hx_comm_size entries). Collective on comm. */
int hx_comm_allgather_int64(hx_comm comm, int64_t v, int64_t *out);
/** The number of ranks of comm on this rank's host (sharing its memory); 1 without MPI.
    Collective on comm. */
int hx_comm_host_size(hx_comm comm, int *n);
/** This rank's place among the ranks of comm on its host (0 .. hx_comm_host_size - 1, in the
    order of their ranks); 0 without MPI. Collective on comm. */
int hx_comm_host_rank(hx_comm comm, int *r);
/** Broadcast bytes from root. Collective on comm. */
int hx_comm_bcast(hx_comm comm, void *buf, size_t bytes, int root);
/** Point to point: bytes to/from one rank with a tag (any size: sent in pieces of
    at most 1 GiB). recv expects exactly the bytes sent. With one rank (or without
    MPI) there is nobody to talk to: HX_ERR_INTERNAL. */
int hx_comm_send(hx_comm comm, const void *buf, size_t bytes, int dest, int tag);
int hx_comm_recv(hx_comm comm, void *buf, size_t bytes, int src, int tag);
