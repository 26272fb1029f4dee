#include "hx_comm.h"

#include <stdio.h>

#include "hx_error.h"

#if HX_HAVE_MPI
#define MPI_OK(call)                                                                                                             \
  do {                                                                                                                           \
    int mrc_ = (call);                                                                                                           \
    if (mrc_ != MPI_SUCCESS) return HX_ERROR(HX_ERR_MPI, "MPI call failed: %s", #call);                                          \
  } while (0)

int hx_comm_rank(hx_comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
int hx_comm_size(hx_comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

/* every rank gets the worst status; the others get the message of the lowest rank that
   failed with it (so that rank 0, which prints, says what went wrong) */
int hx_comm_agree(hx_comm comm, int rc) {
  int out = rc;
  if (MPI_Allreduce(&rc, &out, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) return HX_ERR_MPI;
  if (out == HX_OK) return HX_OK;
  int me = hx_comm_rank(comm), src = rc == out ? me : hx_comm_size(comm);
  if (MPI_Allreduce(MPI_IN_PLACE, &src, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return HX_ERR_MPI;
  char msg[1024] = {0};
  if (me == src) snprintf(msg, sizeof msg, "%s", hx_error_message());
  if (MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, src, comm) != MPI_SUCCESS) return HX_ERR_MPI;
  if (me != src) {
    if (msg[0]) HX_ERROR(out, "%s (rank %d)", msg, src);
    else HX_ERROR(out, "another rank failed (%s)", hx_status_name(out));
  }
  return out;
}
int hx_comm_sum_double(hx_comm comm, double *v, int n) {
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, comm));
  return HX_OK;
}
int hx_comm_min_double(hx_comm comm, double *v, int n) {
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MIN, comm));
  return HX_OK;
}
int hx_comm_max_double(hx_comm comm, double *v, int n) {
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, comm));
  return HX_OK;
}
int hx_comm_sum_int64(hx_comm comm, int64_t *v, int n) {
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, comm));
  return HX_OK;
}
int hx_comm_max_int64(hx_comm comm, int64_t *v, int n) {
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MAX, comm));
  return HX_OK;
}
int hx_comm_exscan_int64(hx_comm comm, int64_t v, int64_t *out) {
  int64_t r = 0;
  MPI_OK(MPI_Exscan(&v, &r, 1, MPI_INT64_T, MPI_SUM, comm));
  if (hx_comm_rank(comm) == 0) r = 0;
  *out = r;
  return HX_OK;
}
int hx_comm_min_int64(hx_comm comm, int64_t *v, int n) {
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MIN, comm));
  return HX_OK;
}
int hx_comm_allgather_int64(hx_comm comm, int64_t v, int64_t *out) {
  MPI_OK(MPI_Allgather(&v, 1, MPI_INT64_T, out, 1, MPI_INT64_T, comm));
  return HX_OK;
}
/* the ranks of comm on this rank's host: its size (what 0) or this rank's place in it (what 1) */
static int host_comm_query(hx_comm comm, int what, int *n) {
  MPI_Comm host;
  MPI_OK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, hx_comm_rank(comm), MPI_INFO_NULL, &host));
  int rc = what ? MPI_Comm_rank(host, n) : MPI_Comm_size(host, n);
  MPI_Comm_free(&host);
  MPI_OK(rc);
  return HX_OK;
}
int hx_comm_host_size(hx_comm comm, int *n) { return host_comm_query(comm, 0, n); }
int hx_comm_host_rank(hx_comm comm, int *r) { return host_comm_query(comm, 1, r); }
#define HX_COMM_PIECE ((size_t)1 << 30)
int hx_comm_bcast(hx_comm comm, void *buf, size_t bytes, int root) {
  for (size_t off = 0; off < bytes; off += HX_COMM_PIECE) {
    size_t n = bytes - off < HX_COMM_PIECE ? bytes - off : HX_COMM_PIECE;
    MPI_OK(MPI_Bcast((char *)buf + off, (int)n, MPI_BYTE, root, comm));
  }
  return HX_OK;
}
int hx_comm_send(hx_comm comm, const void *buf, size_t bytes, int dest, int tag) {
  size_t off = 0;
  do {
    size_t n = bytes - off < HX_COMM_PIECE ? bytes - off : HX_COMM_PIECE;
    MPI_OK(MPI_Send((const char *)buf + off, (int)n, MPI_BYTE, dest, tag, comm));
    off += n;
  } while (off < bytes);
  return HX_OK;
}
int hx_comm_recv(hx_comm comm, void *buf, size_t bytes, int src, int tag) {
  size_t off = 0;
  do {
    size_t n = bytes - off < HX_COMM_PIECE ? bytes - off : HX_COMM_PIECE;
    MPI_Status st;
    int got = 0;
    MPI_OK(MPI_Recv((char *)buf + off, (int)n, MPI_BYTE, src, tag, comm, &st));
    MPI_Get_count(&st, MPI_BYTE, &got);
    if ((size_t)got != n) return HX_ERROR(HX_ERR_MPI, "rank %d sent %d bytes where %zu were expected (tag %d)", src, got, n, tag);
    off += n;
  } while (off < bytes);
  return HX_OK;
}
#else
int hx_comm_rank(hx_comm comm) {
  (void)comm;
  return 0;
}
int hx_comm_size(hx_comm comm) {
  (void)comm;
  return 1;
}
int hx_comm_agree(hx_comm comm, int rc) {
  (void)comm;
  return rc;
}
int hx_comm_sum_double(hx_comm comm, double *v, int n) {
  (void)comm;
  (void)v;
  (void)n;
  return HX_OK;
}
int hx_comm_min_double(hx_comm comm, double *v, int n) {
  (void)comm;
  (void)v;
  (void)n;
  return HX_OK;
}
int hx_comm_max_double(hx_comm comm, double *v, int n) {
  (void)comm;
  (void)v;
  (void)n;
  return HX_OK;
}
int hx_comm_sum_int64(hx_comm comm, int64_t *v, int n) {
  (void)comm;
  (void)v;
  (void)n;
  return HX_OK;
}
int hx_comm_max_int64(hx_comm comm, int64_t *v, int n) {
  (void)comm;
  (void)v;
  (void)n;
  return HX_OK;
}
int hx_comm_exscan_int64(hx_comm comm, int64_t v, int64_t *out) {
  (void)comm;
  (void)v;
  *out = 0;
  return HX_OK;
}
int hx_comm_min_int64(hx_comm comm, int64_t *v, int n) {
  (void)comm;
  (void)v;
  (void)n;
  return HX_OK;
}
int hx_comm_allgather_int64(hx_comm comm, int64_t v, int64_t *out) {
  (void)comm;
  out[0] = v;
  return HX_OK;
}
int hx_comm_host_size(hx_comm comm, int *n) {
  (void)comm;
  *n = 1;
  return HX_OK;
}
int hx_comm_host_rank(hx_comm comm, int *r) {
  (void)comm;
  *r = 0;
  return HX_OK;
}
int hx_comm_bcast(hx_comm comm, void *buf, size_t bytes, int root) {
  (void)comm;
  (void)buf;
  (void)bytes;
  (void)root;
  return HX_OK;
}
int hx_comm_send(hx_comm comm, const void *buf, size_t bytes, int dest, int tag) {
  (void)comm;
  (void)buf;
  (void)bytes;
  (void)dest;
  (void)tag;
  return HX_ERROR(HX_ERR_INTERNAL, "point-to-point send in a build without MPI");
}
int hx_comm_recv(hx_comm comm, void *buf, size_t bytes, int src, int tag) {
  (void)comm;
  (void)buf;
  (void)bytes;
  (void)src;
  (void)tag;
  return HX_ERROR(HX_ERR_INTERNAL, "point-to-point receive in a build without MPI");
}
#endif
