/* The backend table (one row per backend), lookup by name, the common part of the
   partial-assembly setup shared by all backends, and the host helpers of hx_kernels.h
   (the CPU backend's code behind the public interface). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_kernels.h"
#include "hx_kernels_cpu.h"
#include "hx_memory.h"
#include "hx_metrics.h"

#if !(HX_HAVE_CUDA && defined(HX_CUDA_BACKEND))
/* Listed so that help and errors name it; not compiled in. (kernels/CMakeLists.txt
   defines HX_CUDA_BACKEND when CUDA is enabled and kernels/cuda/ has .cu sources;
   those then define hx_backend_cuda, hx_cuda_device_available and the hx_cuda_* bench helpers
   with C linkage.) */
const hx_backend hx_backend_cuda = {.name = "cuda", .available = 0};
int hx_cuda_device_available(void) { return 0; }
int hx_cuda_select_device(int host_rank) {
  (void)host_rank;
  return -1;
}
static int no_cuda(void) {
  return HX_ERROR(HX_ERR_BACKEND, "backend 'cuda' is not in this build; configure with -DHX_ENABLE_CUDA=ON");
}
int hx_cuda_sync(void) { return no_cuda(); }
int hx_cuda_hv_kernel(int v) {
  (void)v;
  return no_cuda();
}
int hx_cuda_hess_chunk(long long elems) {
  (void)elems;
  return no_cuda();
}
int hx_cuda_copy_bandwidth(size_t nbytes, int reps, double *gbs) {
  (void)nbytes, (void)reps, *gbs = 0;
  return no_cuda();
}
int hx_cuda_device_info(char *buf, size_t len) {
  if (len) buf[0] = 0;
  return no_cuda();
}
int hx_cuda_mem_info(size_t *free_b, size_t *total_b) {
  *free_b = *total_b = 0;
  return no_cuda();
}
int hx_detj_bound_first_cuda(int order, hx_lid num_elem, const double *xE, double *lower0, double *corner_min, int *verdict) {
  (void)order, (void)num_elem, (void)xE, (void)lower0, (void)corner_min, (void)verdict;
  return no_cuda();
}
int hx_detj_bound_first_cuda_dev(int order, hx_lid num_elem, const double *dxE, double *lower0, double *corner_min,
                                 int *verdict) {
  (void)order, (void)num_elem, (void)dxE, (void)lower0, (void)corner_min, (void)verdict;
  return no_cuda();
}
int hx_detj_points_min_cuda(int nd, int Q, const double *B, const double *G, hx_lid num_elem, const double *xE, double *fout) {
  (void)nd, (void)Q, (void)B, (void)G, (void)num_elem, (void)xE, (void)fout;
  return no_cuda();
}
int hx_detj_bound_cuda_generic(int on) {
  (void)on;
  return 0;
}
int hx_detj_bound_cuda_time(int order, hx_lid num_elem, const double *xE, int reps, double *ms) {
  (void)order, (void)num_elem, (void)xE, (void)reps;
  *ms = 0;
  return no_cuda();
}
#endif

static const hx_backend *const backends[] = {
    /* name: in the order "auto" prefers them */
    &hx_backend_cuda,
    &hx_backend_cpu,
};
static const int num_backends = (int)(sizeof backends / sizeof backends[0]);

const char *hx_backend_names(void) {
  static char names[128];
  if (!names[0]) {
    for (int b = num_backends - 1; b >= 0; b--) {
      if (names[0]) strncat(names, ", ", sizeof names - strlen(names) - 1);
      strncat(names, backends[b]->name, sizeof names - strlen(names) - 1);
    }
  }
  return names;
}

int hx_backend_find(const char *name, const hx_backend **out) {
  if (!strcmp(name, "auto")) {
    *out = (hx_backend_cuda.available && hx_cuda_device_available()) ? &hx_backend_cuda : &hx_backend_cpu;
    return HX_OK;
  }
  for (int b = 0; b < num_backends; b++) {
    if (strcmp(name, backends[b]->name)) continue;
    if (!backends[b]->available)
      return HX_ERROR(HX_ERR_BACKEND, "backend '%s' is not in this build; configure with -DHX_ENABLE_%s=ON", name,
                      !strcmp(name, "cuda") ? "CUDA" : "<NAME>");
    *out = backends[b];
    return HX_OK;
  }
  return HX_ERROR(HX_ERR_INPUT, "unknown backend '%s'; known: auto, %s", name, hx_backend_names());
}

void hx_pa_desc_default(hx_pa_desc *d) {
  memset(d, 0, sizeof *d);
  d->metric = 303;
  d->quad_type = HX_QUAD_GLL;
  d->quad_order = 8;
  d->hess_strategy = HX_HESS_ONTHEFLY;
  d->scale = 1.0;
  d->Winv_c[0] = d->Winv_c[4] = d->Winv_c[8] = 1.0;
  d->detW_c = 1.0;
}

/* The limiting term's host data: x0 (the desc's or the mesh's nodes) and c_e = lim_const / delta_e^2 */
static int lim_setup(hx_pa *pa, const hx_mesh *mesh, const hx_pa_desc *d) {
  HX_CHECK(d->lim_const > 0 && isfinite(d->lim_const), HX_ERR_INPUT, "the limiting coefficient must be > 0 and finite, got %g",
           d->lim_const);
  double dist = d->lim_dist != 0.0 ? d->lim_dist : 1.0;
  size_t ne = (size_t)pa->num_elem, n = hx_pa_evec_size(pa);
  const double *x0 = d->lim_x0 ? d->lim_x0 : mesh->x;
  HX_CHECK(x0 || ne == 0, HX_ERR_INPUT, "the limiting term needs the mesh's nodes (a lazy mesh has none)");
  HX_CALL(hx_malloc((n + 1) * sizeof(double), &pa->lim_x0));
  HX_CALL(hx_malloc((ne + 1) * sizeof(double), &pa->lim_coef));
  if (n) memcpy(pa->lim_x0, x0, n * sizeof(double));
  for (size_t e = 0; e < ne; e++) {
    double de = d->lim_dist_elem ? d->lim_dist_elem[e] : dist;
    HX_CHECK(de > 0 && isfinite(de), HX_ERR_INPUT, "the limiting distance must be > 0 and finite, got %g (element %zu)", de, e);
    pa->lim_coef[e] = d->lim_const / (de * de);
  }
  pa->lim = 1;
  return HX_OK;
}

int hx_pa_create(const hx_backend *be, const hx_mesh *mesh, const hx_pa_desc *d, hx_pa **out) {
  const hx_metric_info *mi;
  HX_CALL(hx_metric_find(d->metric, &mi));
  HX_CHECK(d->quad_type == HX_QUAD_GLL || d->quad_type == HX_QUAD_GL, HX_ERR_INPUT,
           "quadrature type must be 1 (GLL) or 2 (Gauss-Legendre), got %d", d->quad_type);
  int nq = hx_quad_points_for_order(d->quad_type, d->quad_order);
  HX_CHECK(d->quad_order >= 1 && nq >= (d->quad_type == HX_QUAD_GLL ? 2 : 1) && nq <= HX_MAX_Q, HX_ERR_INPUT,
           "--quad-order %d gives %d points per direction; allowed 1..%d points", d->quad_order, nq, HX_MAX_Q);
  HX_CHECK(d->hess_strategy == HX_HESS_STORED || d->hess_strategy == HX_HESS_ONTHEFLY, HX_ERR_INPUT,
           "unknown Hessian strategy %d", d->hess_strategy);
  HX_CHECK(be && be->available && be->setup, HX_ERR_BACKEND, "backend '%s' is not usable", be ? be->name : "(null)");
  hx_pa *pa;
  HX_CALL(hx_malloc(sizeof *pa, &pa));
  pa->backend = be;
  pa->order = mesh->order;
  pa->nd = mesh->nd;
  pa->nq = nq;
  pa->num_elem = mesh->num_elem;
  pa->metric = d->metric;
  pa->metric_param = d->metric_param != 0.0 ? d->metric_param : mi->param;
  pa->quad_type = d->quad_type;
  pa->hess_strategy = d->hess_strategy;
  pa->scale = d->scale;
  pa->num_threads = d->num_threads;
  int rc = hx_quad_rule(d->quad_type, nq, pa->qpts, pa->wq);
  double xg[HX_MAX_ND], wg[HX_MAX_ND];
  if (rc == HX_OK) rc = hx_gll(pa->nd, xg, wg);
  if (rc == HX_OK) hx_lagrange_matrices(pa->nd, xg, nq, pa->qpts, pa->B, pa->G);
  pa->w_const = d->Winv == NULL;
  pa->w_elem = !pa->w_const && d->w_per_elem;
  memcpy(pa->Winv_c, d->Winv_c, sizeof pa->Winv_c);
  pa->detW_c = d->detW_c;
  if (rc == HX_OK && !pa->w_const) {
    size_t nqe = (size_t)pa->num_elem * (pa->w_elem ? 1 : (size_t)nq * nq * nq);
    rc = hx_malloc((9 * nqe + 1) * sizeof(double), &pa->Winv);
    if (rc == HX_OK) rc = hx_malloc((nqe + 1) * sizeof(double), &pa->detW);
    if (rc == HX_OK) {
      memcpy(pa->Winv, d->Winv, 9 * nqe * sizeof(double));
      memcpy(pa->detW, d->detW, nqe * sizeof(double));
    }
  }
  if (rc == HX_OK && d->lim_const != 0.0) rc = lim_setup(pa, mesh, d);
  if (rc == HX_OK) rc = be->setup(pa);
  if (rc != HX_OK) {
    hx_free(&pa->Winv);
    hx_free(&pa->detW);
    hx_free(&pa->lim_x0);
    hx_free(&pa->lim_coef);
    hx_free(&pa);
    return rc;
  }
  *out = pa;
  return HX_OK;
}

void hx_pa_destroy(hx_pa **pa) {
  if (!pa || !*pa) return;
  if ((*pa)->backend && (*pa)->backend->destroy) (*pa)->backend->destroy(*pa);
  hx_free(&(*pa)->Winv);
  hx_free(&(*pa)->detW);
  hx_free(&(*pa)->lim_x0);
  hx_free(&(*pa)->lim_coef);
  hx_free(pa);
}

void hx_elem_jacobian_host(int nd, int nq, const double *B, const double *G, const double *xe, double *A, double *work) {
  hx_cpu_elem_jacobian(nd, nq, B, G, xe, A, work);
}

int hx_min_detj_nodes_host(int nd, hx_lid num_elem, const double *xE, int num_threads, double *m) {
  return hx_cpu_min_detj_nodes(nd, num_elem, xE, num_threads, m);
}
