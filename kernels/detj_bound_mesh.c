/* The proven validity of a whole mesh with the GPU's first pass (hx_kernels.h): the
   p^6-costly Bernstein coefficients of every element on the device
   (hx_detj_bound_first_cuda), the subdivision of the few elements it leaves undecided on the
   host (hx_detj_bound_elem), the summary as hx_quality_mesh's. */
#include <math.h>

#include "hx_error.h"
#include "hx_kernels.h"
#include "hx_memory.h"

int hx_detj_bound_mesh_cuda(const hx_mesh *m, const hx_detj_bound_opts *o, hx_detj_bound_summary *s, hx_lid *num_host) {
  HX_CHECK(m->x != NULL, HX_ERR_INPUT, "detj bound (cuda): the mesh holds no E-vector (a lazy mesh)");
  hx_lid ne = m->num_elem, nh = 0;
  size_t npe = (size_t)m->nd * m->nd * m->nd;
  double *lo = NULL, *cm = NULL;
  int *vd = NULL, rc = hx_malloc((size_t)(ne > 0 ? ne : 1) * sizeof *lo, &lo);
  if (!rc) rc = hx_malloc((size_t)(ne > 0 ? ne : 1) * sizeof *cm, &cm);
  if (!rc) rc = hx_malloc((size_t)(ne > 0 ? ne : 1) * sizeof *vd, &vd);
  if (!rc) rc = hx_detj_bound_first_cuda(m->order, ne, m->x, lo, cm, vd);
  hx_detj_bound_ctx *bc = NULL;
  if (!rc) rc = hx_detj_bound_ctx_create(m->order, o, &bc);
  int64_t cnt[4] = {0, 0, 0, 0}; /* proven, not proven, invalid, subdivisions */
  double mins[2] = {INFINITY, INFINITY};
  for (hx_lid e = 0; !rc && e < ne; e++) {
    double lower = lo[e], found = cm[e];
    int v = vd[e];
    if (!v) { /* undecided: subdivide on the host */
      hx_detj_bound_result r;
      hx_detj_bound_elem(bc, m->x + (size_t)e * 3 * npe, &r);
      v = r.verdict;
      lower = r.lower;
      found = r.min_found;
      cnt[3] += r.num_splits;
      nh++;
    }
    cnt[v - 1]++;
    mins[0] = fmin(mins[0], lower);
    mins[1] = fmin(mins[1], found);
  }
  hx_detj_bound_ctx_destroy(&bc);
  hx_free(&lo);
  hx_free(&cm);
  hx_free(&vd);
  HX_CALL(hx_comm_agree(m->comm, rc));
  HX_CALL(hx_comm_sum_int64(m->comm, cnt, 4));
  HX_CALL(hx_comm_min_double(m->comm, mins, 2));
  s->num_proven = cnt[0];
  s->num_not_proven = cnt[1];
  s->num_invalid = cnt[2];
  s->num_splits = cnt[3];
  s->lower_min = mins[0];
  s->found_min = mins[1];
  s->verdict = s->num_invalid ? HX_INVALID : (s->num_not_proven ? HX_VALID_NOT_PROVEN : HX_VALID_PROVEN);
  if (num_host) *num_host = nh;
  return HX_OK;
}
