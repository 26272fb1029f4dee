/* The TMOP partial-assembly interface: everything a compute backend provides
   (one interface, backends chosen by name). The CPU backend (kernels/cpu/) is the reference; every
   other backend is tested against it.

   Usage (tmop/ does this; the backend never sees MPI or boundary conditions):
     const hx_backend *be;
     HX_CALL(hx_backend_find("auto", &be));
     hx_pa_desc d; hx_pa_desc_default(&d); d.metric = 303; ... (target: Winv, detW)
     hx_pa *pa;
     HX_CALL(hx_pa_create(be, mesh, &d, &pa));     fills hx_pa, calls be->setup
     HX_CALL(be->energy(pa, x, &e));               x: E-vector in backend memory
     HX_CALL(be->grad(pa, x, g));
     HX_CALL(be->hess_setup(pa, x));               linearize at x
     HX_CALL(be->hess_apply(pa, dx, y));           y = H dx (any number of times)
     HX_CALL(be->diag(pa, d));                     Jacobi diagonal of H at x
     HX_CALL(be->min_detj(pa, x, &m));
     hx_pa_destroy(&pa);                           calls be->destroy

   Shapes. Every vector argument is an E-vector of the mesh: [num_elem][3][nd][nd][nd]
   (C order, last index fastest: i along xi1), nd = order + 1; shared nodes appear once
   per element (E -> L assembly is tmop's job). Vector arguments live in the backend's
   memory (host for "cpu", device for "cuda"): allocate them with vec_alloc and move
   data with vec_upload / vec_download. All results are local to the rank (sums over
   this rank's elements only); tmop does the MPI reductions.

   Maths, with A = dx/dxi at a quadrature point, T = A W^{-1}, and
   the weight wt = w_q det(W_q) scale:
     energy:     e = sum_E sum_q wt mu(T)
     grad:       g_{b,k} = sum_q wt [P(T) W^{-T} D_b]_k, D_b = grad_xi phi_b   (overwrites g)
     hess_apply: y_{b,k} = sum_q wt [dP W^{-T} D_b]_k, dP = H(T):dT, dT = (d dx/dxi) W^{-1}
     diag:       d_{b,k} = sum_q wt sum_{jl} H_kjkl (W^{-T} D_b)_j (W^{-T} D_b)_l
     min_detj:   min over this rank's quadrature points of det A (+HUGE_VAL if no element)
   With the limiting term on (pa->lim; MFEM's TMOP_QuadraticLimiter), with u = x - x0 and
   c_e = lim_const / delta_e^2 per element, values at the points by the tensor basis phi_b (B in
   every direction), the same weight wt:
     energy:     e += sum_E sum_q wt c_e 0.5 |u(xi_q)|^2
     grad:       g_{b,k} += sum_q wt c_e u_k(xi_q) phi_b(xi_q)
     hess_apply: y_{b,k} += sum_q wt c_e dx_k(xi_q) phi_b(xi_q)
     diag:       d_{b,k} += sum_q wt c_e phi_b(xi_q)^2
   Two Hessian strategies (pa->hess_strategy), same numbers to rounding:
     HX_HESS_STORED:   hess_setup stores the full 81-entry H(T_q) per quadrature point
                       (MFEM's layout: [num_elem][nq^3][81]); apply streams it.
     HX_HESS_ONTHEFLY: hess_setup keeps x (borrowed: the caller leaves it unchanged
                       until the next hess_setup or destroy); apply recomputes T from x
                       and dP from the contracted formulas. Nothing per qp is stored
                       (cpu); cuda keeps A(x) per qp (9 doubles) to skip one sweep. */
#pragma once
#include <stddef.h>

#include "hx_detj_bound.h"
#include "hx_mesh.h"
#include "hx_types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { HX_HESS_STORED = 1, HX_HESS_ONTHEFLY = 2 } hx_hess_strategy;

/** What tmop asks for when setting up partial assembly on one rank's mesh. */
typedef struct hx_pa_desc {
  int metric;          /* MFEM number, see hx_metrics.h */
  double metric_param; /* gamma of 332, lambda of 338 (hx_pa_desc_default: 0 -> registry default) */
  int quad_type;       /* HX_QUAD_GLL or HX_QUAD_GL (hx_basis.h) */
  int quad_order;      /* MFEM -qo: points per direction from hx_quad_points_for_order */
  int hess_strategy;   /* hx_hess_strategy */
  double scale;        /* nu * c: multiplies every energy term (1 unless normalized) */
  /* The target W. Either constant (Winv == NULL): W^{-1} = Winv_c,
     det W = detW_c at every point; or per point: Winv [num_elem][nq^3][9] and
     detW [num_elem][nq^3], host arrays, copied by hx_pa_create; or, with w_per_elem,
     constant over each element: Winv [num_elem][9], detW [num_elem]. */
  double Winv_c[9];
  double detW_c;
  const double *Winv;
  const double *detW;
  int w_per_elem;
  int num_threads; /* cpu: OpenMP threads (0 = runtime default) */
  /* The limiting term (above): off where lim_const is 0. x0: lim_x0 (a host E-vector, copied by
     hx_pa_create) or, NULL, the mesh's nodes at hx_pa_create; delta_e: lim_dist_elem[e] (host
     [num_elem], copied) or, NULL, lim_dist everywhere (0: 1, MFEM's default). */
  double lim_const;
  double lim_dist;
  const double *lim_dist_elem;
  const double *lim_x0;
} hx_pa_desc;

/** Defaults: metric 303, GLL, -qo 8, on-the-fly, scale 1, W = I. */
void hx_pa_desc_default(hx_pa_desc *d);

struct hx_backend;
struct hx_lspace;

/** Partially-assembled data for one mesh on one rank. The common part is filled
    by hx_pa_create; data is the backend's own (stored H, device copies, ...). */
typedef struct hx_pa {
  const struct hx_backend *backend; /* borrowed static table entry */
  int order, nd, nq;                /* nd = order + 1 nodes, nq quadrature points per direction */
  hx_lid num_elem;
  int metric;
  double metric_param;
  int quad_type;
  int hess_strategy;
  double scale;
  int num_threads;
  double qpts[HX_MAX_Q], wq[HX_MAX_Q]; /* 1D rule on [0,1], weights sum to 1 */
  double B[HX_MAX_Q * HX_MAX_ND];      /* [nq][nd]: B[q*nd + a] = l_a(t_q) (GLL Lagrange basis) */
  double G[HX_MAX_Q * HX_MAX_ND];      /* [nq][nd]: G[q*nd + a] = l_a'(t_q) */
  int w_const;                         /* 1: Winv_c/detW_c everywhere; 0: per-point arrays */
  int w_elem;                          /* with !w_const: one W per element, not per point */
  double Winv_c[9], detW_c;
  double *Winv;     /* [num_elem][nq^3][9] ([num_elem][9] if w_elem) host, owned (NULL if w_const) */
  double *detW;     /* [num_elem][nq^3] ([num_elem] if w_elem) host, owned (NULL if w_const) */
  int lim;          /* 1: the limiting term is on */
  double *lim_x0;   /* [num_elem][3][nd^3] its x0, host, owned (NULL if !lim) */
  double *lim_coef; /* [num_elem] c_e = lim_const / delta_e^2, host, owned (NULL if !lim) */
  void *data;       /* backend-private */
} hx_pa;

/** A compute backend: one static table per backend, found by name. */
typedef struct hx_backend {
  const char *name;                                                /* "cpu", "cuda" */
  int available;                                                   /* 0: listed but not compiled in */
  int (*setup)(hx_pa *pa);                                         /* after the common part is filled */
  int (*energy)(const hx_pa *pa, const double *x, double *e);      /* local energy */
  int (*grad)(const hx_pa *pa, const double *x, double *g);        /* g = dE/dx (overwrites) */
  int (*hess_setup)(hx_pa *pa, const double *x);                   /* linearize at x */
  int (*hess_apply)(const hx_pa *pa, const double *dx, double *y); /* y = H dx (overwrites) */
  int (*diag)(const hx_pa *pa, double *d);                         /* Jacobi diagonal of H at the setup x */
  int (*min_detj)(const hx_pa *pa, const double *x, double *m);    /* local min det A at the qps */
  int (*destroy)(hx_pa *pa);                                       /* frees pa->data */
  /* memory of the vector arguments (n doubles) */
  int (*vec_alloc)(const hx_pa *pa, size_t n, double **v);
  void (*vec_free)(const hx_pa *pa, double **v);
  int (*vec_upload)(const hx_pa *pa, const double *host, double *v, size_t n);
  int (*vec_download)(const hx_pa *pa, const double *v, double *host, size_t n);
  int host_memory; /* 1: vectors are plain host arrays */

  /* ---- L-vectors: the device-resident solver (tmop/newton.c). An L-vector is
     [nl][3] (the rank's unique nodes, component fastest) in backend memory; lsetup
     gives the backend the rank's numbering and constraints once. Elementwise ops
     take the length n (doubles); node ops work on the nl nodes of lsetup. All ops
     are deterministic (fixed summation order) and may be asynchronous: only the
     scalar results (dot) synchronize. */
  int (*lsetup)(hx_pa *pa, const struct hx_lspace *ls);
  int (*l2e)(const hx_pa *pa, const double *L, double *E);                                 /* E = scatter L (copy) */
  int (*e2l)(const hx_pa *pa, const double *E, double *L);                                 /* L = sum of E copies, E order */
  int (*vzero)(const hx_pa *pa, size_t n, double *y);                                      /* y = 0 */
  int (*axpby)(const hx_pa *pa, size_t n, double a, const double *x, double b, double *y); /* y = a x + b y */
  int (*waxpy)(const hx_pa *pa, size_t n, double *w, const double *x, double a, const double *y); /* w = x + a y */
  int (*lc3)(const hx_pa *pa, size_t n, double *w, const double *x, double a, const double *y, double b, const double *z,
             double s);                                                            /* w = (x + a y + b z) s */
  int (*inv_abs)(const hx_pa *pa, size_t n, double *d);                            /* d = |d| > 0 ? 1/|d| : 1 */
  int (*dot)(const hx_pa *pa, const double *x, const double *y, double *out);      /* sum over owned nodes */
  int (*project)(const hx_pa *pa, const double *v, double *out);                   /* out = Pi v (v == out allowed) */
  int (*precond)(const hx_pa *pa, const double *dinv, const double *r, double *z); /* z = Pi D Pi r + (I-Pi) r */
  int (*constrain)(const hx_pa *pa, const double *v, double *y);                   /* y = Pi y + (I - Pi) v */
  int (*pick)(const hx_pa *pa, const double *L, double *buf);                      /* buf[k][3] = L[curved[k]][3] (backend buf) */
  int (*put)(const hx_pa *pa, const double *buf, double *L);                       /* L[curved[k]][3] = buf[k][3] */
  int (*nrm_put)(const hx_pa *pa, const double *buf); /* normals of curved[k] = buf[k][9] (backend buf) */
  /* fused pairs (one pass over the vectors; same numbers as the two ops in sequence) */
  int (*axpby_dot)(const hx_pa *pa, size_t n, double a, const double *x, double b, double *y, const double *w,
                   double *out);                                                                    /* y = a x + b y; out = w.y */
  int (*precond_dot)(const hx_pa *pa, const double *dinv, const double *r, double *z, double *out); /* z = M r; out = r.z */
  int (*l2e_proj)(const hx_pa *pa, const double *L, double *E);                                     /* E = scatter Pi L */
  int (*e2l_constrain)(const hx_pa *pa, const double *E, const double *v, double *L); /* L = gather E, then constrain(v, L) */
  /* optional (NULL: tmop downloads x and uses hx_min_detj_nodes_host) */
  int (*min_detj_nodes)(const hx_pa *pa, const double *x, double *m); /* local min det A at the GLL nodes */
  /* per element: the min det A at its quadrature points into host[num_elem] (adaptive quadrature's
     indicator; NULL: tmop computes it on the host) */
  int (*min_detj_elem)(const hx_pa *pa, const double *x, double *host);
  /* the two-level preconditioner's transfers (tmop/pmg.c; NULL: it is not offered) */
  /* per element of pa and component: Eout = (M x M x M) Ein, M [nout][nin] (host array, row
     major), Ein [num_elem][3][nin^3], Eout [num_elem][3][nout^3] (lexicographic; nin, nout <=
     HX_MAX_ND) */
  int (*etensor)(const hx_pa *pa, int nin, int nout, const double *M, const double *Ein, double *Eout);
  int (*vmul)(const hx_pa *pa, size_t n, const double *d, const double *x, double *y); /* y = d x (elementwise) */
  /* the nodes other ranks hold too (lsetup's shared): the rows of the exchange between ranks, which
     a backend without host_memory must offer */
  int (*spick)(const hx_pa *pa, const double *L, double *buf); /* buf[k][3] = L[shared[k]][3] (backend buf) */
  int (*sput)(const hx_pa *pa, const double *buf, double *L);  /* L[shared[k]][3] = buf[k][3] */
} hx_backend;

/** What lsetup copies (host arrays, borrowed during the call). Pi = per-node
    projector removing the components along ncon[i] (0..3; 3 = fixed) orthonormal
    directions nrm[i][k][3]; curved[] lists the nodes whose normals change with the
    positions (sliding on spheres/cylinders: tmop updates them through nrm_put). ncon NULL
    (nrm, curved ignored): the numbering alone, for a pa whose element operators only are used
    (l2e, e2l, the kernels: adaptive quadrature's parts); its project, precond, constrain,
    pick/put and the fused ops that constrain are then not to be called. */
typedef struct hx_lspace {
  hx_lid nl;                  /* L-nodes */
  const hx_lid *e2l;          /* [num_elem * nd^3] E-node -> L-node */
  const unsigned char *owned; /* [nl] 1 if this rank counts the node in dot (NULL: all) */
  const int *ncon;            /* [nl] */
  const double *nrm;          /* [nl][9] */
  hx_lid ncurved;
  const hx_lid *curved; /* [ncurved] */
  hx_lid nshared;
  const hx_lid *shared; /* [nshared] the nodes other ranks hold too, ascending (spick, sput) */
} hx_lspace;

/** Find a backend by name; "auto" picks the best one compiled in (cuda if built
    and a device is present, else cpu).
    @param[in]  name  "cpu", "cuda" or "auto"
    @param[out] out   static table entry (borrowed, never freed)
    @return HX_OK; HX_ERR_INPUT listing the names that exist; HX_ERR_BACKEND
            "backend 'cuda' is not in this build; configure with -DHX_ENABLE_CUDA=ON" */
int hx_backend_find(const char *name, const hx_backend **out);
/** "cpu, cuda" for help and errors. */
const char *hx_backend_names(void);

/** Fill the common part of an hx_pa for mesh (borrowed only during the call: the
    backend keeps no pointer to it) and run be->setup.
    @return HX_ERR_INPUT for an unknown metric, a quadrature order out of range, ... */
int hx_pa_create(const hx_backend *be, const hx_mesh *mesh, const hx_pa_desc *desc, hx_pa **out);
/** Destroy (be->destroy, then the common part); accepts NULL, sets *pa = NULL. */
void hx_pa_destroy(hx_pa **pa);
/** Number of doubles of an E-vector of pa: num_elem * 3 * nd^3. */
static inline size_t hx_pa_evec_size(const hx_pa *pa) { return (size_t)pa->num_elem * 3 * (size_t)pa->nd * pa->nd * pa->nd; }

/* Host helpers: the reference (CPU) maths on host arrays, for what tmop does beside a backend
   (the targets' set-up, the node fold test of a backend without min_detj_nodes). */

/** Jacobians of one element at the tensor quadrature points by sum factorization:
    A[q][3c+d] = dx_c/dxi_d, q = qx + nq (qy + nq qz); xe is [3][nd^3] (lexicographic); B, G are
    [nq][nd] (hx_lagrange_matrices); work holds 3 nd^2 nq + 3 nd nq^2 doubles. */
void hx_elem_jacobian_host(int nd, int nq, const double *B, const double *G, const double *xe, double *A, double *work);
/** Minimum of det(dx/dxi) at the GLL nodes of num_elem elements of a host E-vector xE
    ([num_elem][3][nd^3], lexicographic); num_threads <= 0: OpenMP default, 1: serial.
    +HUGE_VAL with no element. The same number for any thread count. */
int hx_min_detj_nodes_host(int nd, hx_lid num_elem, const double *xE, int num_threads, double *m);

/* The backends (kernels/<name>/). A backend not compiled in still has a table
   entry with available = 0. */
extern const hx_backend hx_backend_cpu;
extern const hx_backend hx_backend_cuda;
/** Defined by the CUDA backend when compiled: 1 if a usable device is present. */
int hx_cuda_device_available(void);
/** The device of this process from now on, where a host has several: device host_rank modulo
    their count (one rank a device where there are as many), before any CUDA work. Returns the
    device chosen (0 with one device, -1 without one or without CUDA in the build). */
int hx_cuda_select_device(int host_rank);
/* Helpers of the CUDA backend for benchmarks (hexpack bench kernels). Only meaningful when
   hx_backend_cuda.available and hx_cuda_device_available(); without CUDA in the build each
   returns HX_ERR_BACKEND. */
/** Wait for all work on the device (benchmarks time asynchronous kernels). */
int hx_cuda_sync(void);
/** The on-the-fly Hessian action's kernel from now on: 0 the default (one thread per column of
    quadrature points, the z direction in registers), 1 one thread per point (the kernel before
    it, the baseline of bench kernels), 10 EPB + MINB the column kernel with EPB elements per block
    and at least MINB blocks per SM (23, 42, 81, 82; 0 takes 23 at nq > 4, 82
    below). Pairs (nd, nq) without a column kernel run the point kernel. Same doubles either way. */
int hx_cuda_hv_kernel(int v);
/** The on-the-fly Hessian's A(x_lin) from now on (at each hess_setup): 0 (the default) held for
    every element where it fits in the device's free memory with a sixteenth of the device to
    spare, else remade from x_lin before each action and diagonal, about 1 GiB of elements at a
    time; elems > 0 always in chunks of elems elements. The same doubles either way. */
int hx_cuda_hess_chunk(long long elems);
/** Measured device-to-device copy bandwidth (GB/s, bytes read + written) over
    buffers of nbytes each, best of reps cudaMemcpy calls. */
int hx_cuda_copy_bandwidth(size_t nbytes, int reps, double *gbs);
/** Device name and memory ("NVIDIA H100 80GB HBM3, 79.1 GiB, CC 9.0") into buf. */
int hx_cuda_device_info(char *buf, size_t len);
/** Free and total device memory in bytes. */
int hx_cuda_mem_info(size_t *free_b, size_t *total_b);

/* Proven validity on the GPU (the bound of hx_detj_bound.h, first pass). */
/** For num_elem elements of geometry order `order` in a host E-vector xE
    ([num_elem][3][nd^3], lexicographic): per element the first bound lower0 (smallest
    Bernstein coefficient of det J on the whole element, as hx_detj_bound_result.lower0), the
    smallest corner value corner_min (det J at the 8 corners: the corner coefficients) and the
    first verdict: HX_VALID_PROVEN where lower0 exceeds the CPU's proving margin, HX_INVALID
    where a corner value <= 0 is confirmed from the nodes, 0 where undecided (subdivide with
    hx_detj_bound_elem). Any output may be NULL. HX_ERR_BACKEND without CUDA in the build, without a
    device, or where the order needs more shared memory than the device has. */
int hx_detj_bound_first_cuda(int order, hx_lid num_elem, const double *xE, double *lower0, double *corner_min, int *verdict);
/** The same pass on an E-vector already on the device (dxE, the layout above: a backend E-vector
    of the cuda backend); the outputs are host arrays. The tables and outputs live in a device
    workspace kept for the process, so a line search may call it once per trial. */
int hx_detj_bound_first_cuda_dev(int order, hx_lid num_elem, const double *dxE, double *lower0, double *corner_min, int *verdict);
/** The smallest det J of each of num_elem elements of the host E-vector xE ([num_elem][3][nd^3],
    lexicographic) at the Q^3 points of a tensor rule, B and G [Q][nd] the GLL Lagrange basis's
    values and derivatives at its Q points (hx_quality_ctx_rule), into fout (host); NaN values
    skipped as core/quality.c's detj_range does. HX_ERR_BACKEND without CUDA in the build,
    without a device, or for Q^3 > 2048. */
int hx_detj_points_min_cuda(int nd, int Q, const double *B, const double *G, hx_lid num_elem, const double *xE, double *fout);
/** Which kernel the passes above run: 0 (the default) the one compiled for each order 1..4 (the
    convolutions in registers) and the generic one above that; 1 the generic one at every order
    (the baseline of t453's timing and the cross-check of the two). Returns the previous setting;
    process-wide, not thread-safe. */
int hx_detj_bound_cuda_generic(int on);
/** The time of the pass's kernel alone (nodes already on the device, outputs left there), the
    best of reps runs, in milliseconds (CUDA events): the figure t453 and the benchmarks report. */
int hx_detj_bound_cuda_time(int order, hx_lid num_elem, const double *xE, int reps, double *ms);
/** The verdicts of every element of m (its E-vector m->x) into s, as hx_quality_mesh's
    report.bound: the first pass on the GPU, then hx_detj_bound_elem on the host for the
    elements it leaves undecided (their local count into num_host if not NULL). Collective. */
int hx_detj_bound_mesh_cuda(const hx_mesh *m, const hx_detj_bound_opts *o, hx_detj_bound_summary *s, hx_lid *num_host);

#ifdef __cplusplus
}
#endif
