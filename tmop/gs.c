/* Gather-scatter of shared L-vector nodes between ranks (see hx_gs.h).

   design:
   1. Rendezvous: every rank sends each of its ids to rank (id mod P); the
      rendezvous rank sorts the (id, rank) pairs it received and tells each
      holder of an id the other ranks that hold it.
   2. Each rank groups the (id, other rank) records by neighbour rank and sorts
      them by id, so both sides of a pair list the shared nodes in the same order.
   3. An exchange sends the values of those nodes to each neighbour and adds the
      received ones, in ascending rank order (including its own) so the sum is
      the same bits on every rank. */
#include "hx_gs.h"

#include <stdlib.h>
#include <string.h>

#include "hx_config.h"
#include "hx_error.h"
#include "hx_memory.h"

struct hx_gs {
  hx_comm comm;
  int rank, size;
  hx_lid num_nodes;
  unsigned char *owned; /* [num_nodes] */
  int num_nbrs;
  int *nbr;              /* [num_nbrs] ascending ranks */
  hx_lid *off;           /* [num_nbrs + 1] into idx */
  hx_lid *idx;           /* local node of each shared entry, per neighbour sorted by id */
  unsigned char *shared; /* [num_nodes] 1 if held by another rank too */
  double *buf;           /* send+recv buffers, 2 * off[num_nbrs] * 3 doubles */
};

const unsigned char *hx_gs_owned(const hx_gs *gs) { return gs->owned; }
const unsigned char *hx_gs_shared(const hx_gs *gs) { return gs->shared; }

void hx_gs_stats(const hx_gs *gs, int *num_nbrs, hx_lid *num_shared) {
  *num_nbrs = gs->num_nbrs;
  *num_shared = gs->num_nbrs ? gs->off[gs->num_nbrs] : 0;
}

void hx_gs_destroy(hx_gs **gs) {
  if (!gs || !*gs) return;
  hx_free(&(*gs)->owned);
  hx_free(&(*gs)->nbr);
  hx_free(&(*gs)->off);
  hx_free(&(*gs)->idx);
  hx_free(&(*gs)->shared);
  hx_free(&(*gs)->buf);
  hx_free(gs);
}

#if HX_HAVE_MPI
typedef struct {
  int64_t id, rank;
} id_rank;
/* records (nbr, id) sorted by nbr then id */
static int cmp_nbr_id(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}
static hx_lid find_id(const hx_gid *ids, hx_lid n, hx_gid id) {
  hx_lid lo = 0, hi = n - 1;
  while (lo <= hi) {
    hx_lid mid = lo + (hi - lo) / 2;
    if (ids[mid] == id) return mid;
    if (ids[mid] < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* The (id, rank) pairs of P ascending runs, run r = rbuf[dsp[r] .. dsp[r + 1]) from rank r, into
   pairs in (id, rank) order: a merge through a binary heap of the runs' heads (O(n log P), where
   sorting the n pairs took most of the set-up of a large solve on several ranks). */
static int merge_pairs(int P, const int64_t *rbuf, const int *dsp, id_rank *pairs) {
  int *heap = NULL, *pos = NULL, nh = 0;
  HX_CALL(hx_malloc(2 * ((size_t)P + 1) * sizeof(int), &heap));
  pos = heap + P + 1; /* pos[r]: the next entry of run r */
#define HX_GS_LESS(a, b) (rbuf[pos[a]] < rbuf[pos[b]] || (rbuf[pos[a]] == rbuf[pos[b]] && (a) < (b)))
  for (int r = 0; r < P; r++) {
    pos[r] = dsp[r];
    if (dsp[r] == dsp[r + 1]) continue;
    int i = nh++; /* sift up */
    heap[i] = r;
    while (i > 0 && HX_GS_LESS(heap[i], heap[(i - 1) / 2])) {
      int t = heap[i];
      heap[i] = heap[(i - 1) / 2], heap[(i - 1) / 2] = t, i = (i - 1) / 2;
    }
  }
  for (int k = 0; nh > 0; k++) {
    int r = heap[0];
    pairs[k].id = rbuf[pos[r]];
    pairs[k].rank = r;
    if (++pos[r] == dsp[r + 1]) heap[0] = heap[--nh];
    for (int i = 0;;) { /* sift down */
      int a = 2 * i + 1, b = a + 1, m = i;
      if (a < nh && HX_GS_LESS(heap[a], heap[m])) m = a;
      if (b < nh && HX_GS_LESS(heap[b], heap[m])) m = b;
      if (m == i) break;
      int t = heap[i];
      heap[i] = heap[m], heap[m] = t, i = m;
    }
  }
#undef HX_GS_LESS
  hx_free(&heap);
  return HX_OK;
}

static int build_pattern(hx_gs *gs, const hx_gid *ids) {
  int P = gs->size;
  int *scnt = NULL, *rcnt = NULL, *sdsp = NULL, *rdsp = NULL;
  int64_t *sbuf = NULL, *rbuf = NULL, *rep = NULL, *back = NULL;
  id_rank *pairs = NULL;
  int rc = hx_malloc(4 * (size_t)(P + 1) * sizeof(int), &scnt);
  if (rc) return rc;
  rcnt = scnt + (P + 1);
  sdsp = rcnt + (P + 1);
  rdsp = sdsp + (P + 1);
  for (hx_lid i = 0; i < gs->num_nodes; i++) scnt[ids[i] % P]++;
  MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, gs->comm);
  for (int r = 0; r < P; r++) {
    sdsp[r + 1] = sdsp[r] + scnt[r];
    rdsp[r + 1] = rdsp[r] + rcnt[r];
  }
  int nrecv = rdsp[P];
  rc = hx_malloc(((size_t)gs->num_nodes + 1) * sizeof(int64_t), &sbuf);
  if (!rc) rc = hx_malloc(((size_t)nrecv + 1) * sizeof(int64_t), &rbuf);
  if (!rc) rc = hx_malloc(((size_t)nrecv + 1) * sizeof(id_rank), &pairs);
  if (rc) goto done;
  {
    int *fill = NULL;
    rc = hx_malloc((size_t)(P + 1) * sizeof(int), &fill);
    if (rc) goto done;
    for (hx_lid i = 0; i < gs->num_nodes; i++) {
      int r = (int)(ids[i] % P);
      sbuf[sdsp[r] + fill[r]++] = ids[i];
    }
    hx_free(&fill);
  }
  MPI_Alltoallv(sbuf, scnt, sdsp, MPI_INT64_T, rbuf, rcnt, rdsp, MPI_INT64_T, gs->comm);
  /* each rank's ids arrive ascending (its ids are, and they are dealt out in order): merged,
     not sorted */
  rc = merge_pairs(P, rbuf, rdsp, pairs);
  if (rc) goto done;
  /* replies: to each holder of a shared id, (other rank, id) for every other holder */
  memset(scnt, 0, (size_t)(P + 1) * sizeof(int));
  for (int a = 0; a < nrecv;) {
    int b = a;
    while (b < nrecv && pairs[b].id == pairs[a].id) b++;
    if (b - a > 1)
      for (int k = a; k < b; k++) scnt[pairs[k].rank] += 2 * (b - a - 1);
    a = b;
  }
  for (int r = 0; r < P; r++) sdsp[r + 1] = sdsp[r] + scnt[r];
  rc = hx_malloc(((size_t)sdsp[P] + 1) * sizeof(int64_t), &rep);
  if (rc) goto done;
  {
    int *fill = NULL;
    rc = hx_malloc((size_t)(P + 1) * sizeof(int), &fill);
    if (rc) goto done;
    for (int a = 0; a < nrecv;) {
      int b = a;
      while (b < nrecv && pairs[b].id == pairs[a].id) b++;
      if (b - a > 1)
        for (int k = a; k < b; k++)
          for (int l = a; l < b; l++) {
            if (l == k) continue;
            int r = (int)pairs[k].rank;
            rep[sdsp[r] + fill[r]++] = pairs[l].rank;
            rep[sdsp[r] + fill[r]++] = pairs[k].id;
          }
      a = b;
    }
    hx_free(&fill);
  }
  MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, gs->comm);
  for (int r = 0; r < P; r++) rdsp[r + 1] = rdsp[r] + rcnt[r];
  int nback = rdsp[P];
  rc = hx_malloc(((size_t)nback + 2) * sizeof(int64_t), &back);
  if (rc) goto done;
  MPI_Alltoallv(rep, scnt, sdsp, MPI_INT64_T, back, rcnt, rdsp, MPI_INT64_T, gs->comm);
  int nrec = nback / 2;
  qsort(back, (size_t)nrec, 2 * sizeof(int64_t), cmp_nbr_id);
  int nn = 0;
  for (int k = 0; k < nrec; k++)
    if (k == 0 || back[2 * k] != back[2 * k - 2]) nn++;
  gs->num_nbrs = nn;
  rc = hx_malloc(((size_t)nn + 1) * sizeof(int), &gs->nbr);
  if (!rc) rc = hx_malloc(((size_t)nn + 1) * sizeof(hx_lid), &gs->off);
  if (!rc) rc = hx_malloc(((size_t)nrec + 1) * sizeof(hx_lid), &gs->idx);
  if (!rc) rc = hx_malloc((2 * (size_t)nrec * 3 + 1) * sizeof(double), &gs->buf);
  if (rc) goto done;
  nn = 0;
  for (int k = 0; k < nrec; k++) {
    if (k == 0 || back[2 * k] != back[2 * k - 2]) {
      gs->nbr[nn] = (int)back[2 * k];
      gs->off[nn] = k;
      nn++;
    }
    hx_lid li = find_id(ids, gs->num_nodes, back[2 * k + 1]);
    if (li < 0) {
      rc = HX_ERROR(HX_ERR_INTERNAL, "gather-scatter: id %lld not found locally", (long long)back[2 * k + 1]);
      goto done;
    }
    gs->idx[k] = li;
    gs->shared[li] = 1;
    if (back[2 * k] < gs->rank) gs->owned[li] = 0;
  }
  gs->off[nn] = nrec;
done:
  hx_free(&scnt);
  hx_free(&sbuf);
  hx_free(&rbuf);
  hx_free(&pairs);
  hx_free(&rep);
  hx_free(&back);
  return rc;
}
#endif

int hx_gs_create(hx_comm comm, hx_lid num_nodes, const hx_gid *ids, hx_gs **out) {
  hx_gs *gs;
  HX_CALL(hx_malloc(sizeof *gs, &gs));
  gs->comm = comm;
  gs->rank = hx_comm_rank(comm);
  gs->size = hx_comm_size(comm);
  gs->num_nodes = num_nodes;
  int rc = hx_malloc((size_t)num_nodes + 1, &gs->owned);
  if (!rc) rc = hx_malloc((size_t)num_nodes + 1, &gs->shared);
  if (!rc) memset(gs->owned, 1, (size_t)num_nodes);
#if HX_HAVE_MPI
  for (hx_lid i = 1; !rc && gs->size > 1 && i < num_nodes; i++)
    if (ids[i] <= ids[i - 1]) rc = HX_ERROR(HX_ERR_INTERNAL, "gather-scatter: node ids not ascending at %lld", (long long)i);
  if (!rc && gs->size > 1) rc = build_pattern(gs, ids);
#else
  (void)ids;
#endif
  rc = hx_comm_agree(comm, rc);
  if (rc) {
    hx_gs_destroy(&gs);
    return rc;
  }
  *out = gs;
  return HX_OK;
}

#if HX_HAVE_MPI
/* Send the ncomp-double rows of v for every neighbour, receive theirs into rbuf. */
static int exchange(const hx_gs *gs, const double *v, int ncomp, double *sbuf, double *rbuf) {
  int nn = gs->num_nbrs;
  MPI_Request *req = NULL;
  HX_CALL(hx_malloc((2 * (size_t)nn + 1) * sizeof(MPI_Request), &req));
  for (int n = 0; n < nn; n++) {
    hx_lid a = gs->off[n], b = gs->off[n + 1];
    for (hx_lid k = a; k < b; k++)
      for (int c = 0; c < ncomp; c++) sbuf[(size_t)k * ncomp + c] = v[(size_t)gs->idx[k] * ncomp + c];
    MPI_Irecv(rbuf + (size_t)a * ncomp, (int)((b - a) * ncomp), MPI_DOUBLE, gs->nbr[n], 7401, gs->comm, &req[2 * n]);
    MPI_Isend(sbuf + (size_t)a * ncomp, (int)((b - a) * ncomp), MPI_DOUBLE, gs->nbr[n], 7401, gs->comm, &req[2 * n + 1]);
  }
  int mrc = MPI_Waitall(2 * nn, req, MPI_STATUSES_IGNORE);
  hx_free(&req);
  HX_CHECK(mrc == MPI_SUCCESS, HX_ERR_MPI, "gather-scatter exchange failed (MPI error %d)", mrc);
  return HX_OK;
}
#endif

int hx_gs_sum(const hx_gs *gs, double *v, int ncomp) {
#if HX_HAVE_MPI
  if (gs->size == 1 || ncomp > 3) return ncomp > 3 ? HX_ERROR(HX_ERR_INTERNAL, "hx_gs_sum: ncomp > 3") : HX_OK;
  hx_lid ns = gs->num_nbrs ? gs->off[gs->num_nbrs] : 0;
  double *sbuf = gs->buf, *rbuf = gs->buf + (size_t)ns * 3;
  double *own = NULL;
  HX_CALL(hx_malloc(((size_t)ns * ncomp + 1) * sizeof(double), &own));
  int rc = exchange(gs, v, ncomp, sbuf, rbuf);
  if (rc) {
    hx_free(&own);
    return rc;
  }
  /* own contributions of shared nodes, then rebuild their sums in ascending rank order */
  for (hx_lid k = 0; k < ns; k++)
    for (int c = 0; c < ncomp; c++) own[(size_t)k * ncomp + c] = v[(size_t)gs->idx[k] * ncomp + c];
  for (hx_lid k = 0; k < ns; k++)
    for (int c = 0; c < ncomp; c++) v[(size_t)gs->idx[k] * ncomp + c] = 0.0;
  int self_done = 0;
  for (int n = 0; n <= gs->num_nbrs; n++) {
    if (!self_done && (n == gs->num_nbrs || gs->nbr[n] > gs->rank)) {
      /* own value once per shared node: use the first record of each node */
      for (hx_lid k = 0; k < ns; k++) {
        hx_lid li = gs->idx[k];
        if (gs->shared[li] == 1) {
          for (int c = 0; c < ncomp; c++) v[(size_t)li * ncomp + c] += own[(size_t)k * ncomp + c];
          gs->shared[li] = 2; /* marks "own value added"; reset below */
        }
      }
      self_done = 1;
    }
    if (n == gs->num_nbrs) break;
    for (hx_lid k = gs->off[n]; k < gs->off[n + 1]; k++)
      for (int c = 0; c < ncomp; c++) v[(size_t)gs->idx[k] * ncomp + c] += rbuf[(size_t)k * ncomp + c];
  }
  for (hx_lid k = 0; k < ns; k++) gs->shared[gs->idx[k]] = 1;
  hx_free(&own);
#else
  (void)gs;
  (void)v;
  (void)ncomp;
#endif
  return HX_OK;
}

int hx_gs_or(const hx_gs *gs, uint64_t *v) {
#if HX_HAVE_MPI
  if (gs->size == 1) return HX_OK;
  hx_lid ns = gs->num_nbrs ? gs->off[gs->num_nbrs] : 0;
  double *sbuf = gs->buf, *rbuf = gs->buf + (size_t)ns * 3;
  /* the 64 bits travel as a double's bytes */
  double *dv = NULL;
  HX_CALL(hx_malloc(((size_t)gs->num_nodes + 1) * sizeof(double), &dv));
  memcpy(dv, v, (size_t)gs->num_nodes * sizeof(double));
  int rc = exchange(gs, dv, 1, sbuf, rbuf);
  for (hx_lid k = 0; k < ns && rc == HX_OK; k++) {
    uint64_t o;
    memcpy(&o, rbuf + k, sizeof o);
    v[gs->idx[k]] |= o;
  }
  hx_free(&dv);
  return rc;
#else
  (void)gs;
  (void)v;
  return HX_OK;
#endif
}

void hx_gs_set_insert(uint32_t *set, uint32_t code) {
  if (set[0] == HX_GS_SET_FULL) return;
  int k = 0;
  while (k < HX_GS_SET_WIDTH && set[k] < code) k++;
  if (k < HX_GS_SET_WIDTH && set[k] == code) return;
  if (code == HX_GS_SET_FULL || set[HX_GS_SET_WIDTH - 1] != HX_GS_SET_EMPTY) { /* no room */
    set[0] = HX_GS_SET_FULL;
    for (int i = 1; i < HX_GS_SET_WIDTH; i++) set[i] = HX_GS_SET_EMPTY;
    return;
  }
  for (int i = HX_GS_SET_WIDTH - 1; i > k; i--) set[i] = set[i - 1];
  set[k] = code;
}

int hx_gs_union(const hx_gs *gs, uint32_t *sets) {
#if HX_HAVE_MPI
  if (gs->size == 1) return HX_OK;
  enum { W = HX_GS_SET_WIDTH, ND = (W * sizeof(uint32_t) + sizeof(double) - 1) / sizeof(double) };
  _Static_assert(ND <= 3, "a node's set travels in at most 3 doubles");
  hx_lid ns = gs->num_nbrs ? gs->off[gs->num_nbrs] : 0;
  double *sbuf = gs->buf, *rbuf = gs->buf + (size_t)ns * 3;
  /* the codes travel as doubles' bytes */
  double *dv = NULL;
  HX_CALL(hx_malloc(((size_t)gs->num_nodes * ND + 1) * sizeof(double), &dv));
  for (hx_lid i = 0; i < gs->num_nodes; i++) memcpy(dv + (size_t)i * ND, sets + (size_t)i * W, W * sizeof(uint32_t));
  int rc = exchange(gs, dv, ND, sbuf, rbuf);
  for (hx_lid k = 0; k < ns && rc == HX_OK; k++) {
    uint32_t o[ND * sizeof(double) / sizeof(uint32_t)], *set = sets + (size_t)gs->idx[k] * W;
    memcpy(o, rbuf + (size_t)k * ND, W * sizeof(uint32_t));
    for (int c = 0; c < W && o[c] != HX_GS_SET_EMPTY; c++) hx_gs_set_insert(set, o[c]);
  }
  hx_free(&dv);
  return rc;
#else
  (void)gs;
  (void)sets;
  return HX_OK;
#endif
}

double hx_gs_dot(const hx_gs *gs, const double *a, const double *b, int ncomp) {
  double s = 0;
  for (hx_lid i = 0; i < gs->num_nodes; i++) {
    if (!gs->owned[i]) continue;
    for (int c = 0; c < ncomp; c++) s += a[(size_t)i * ncomp + c] * b[(size_t)i * ncomp + c];
  }
  hx_comm_sum_double(gs->comm, &s, 1);
  return s;
}
