/* Quality measures of high-order hexes (the contract and the definitions are in
   hx_quality.h).

   design:
   1. a context holds, for nd GLL nodes per direction, the GLL derivative matrix D
      and the quadrature matrices B, G (values and derivatives of the GLL Lagrange
      basis at the Q quadrature points);
   2. per element, the Jacobian's 9 entries are computed by sum factorization
      (three 1D contractions per entry), at the GLL nodes with (I, D) and at the
      quadrature points with (B, G); det J follows pointwise;
   3. corner measures use the 8 corner nodes only (Verdict's hex definitions);
   4. the mesh summary reduces min/sum/max over ranks and merges the worst lists;
   5. with opts.validity, each element is also bounded (hx_detj_bound_elem, one context
      per thread) and the verdicts are counted. */
#include "hx_quality.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "hx_mesh.h"
#include "hx_progress.h"

#ifdef _OPENMP
#include <omp.h>
#endif

const char *const hx_quality_stat_names[HX_QUALITY_NUM_STATS] = {"detj_min",     "detj_max",        "detj_min_q",
                                                                 "detj_max_q",   "scaled_jacobian", "corner_scaled_jacobian",
                                                                 "aspect_ratio", "min_gll_spacing"};

void hx_quality_opts_default(hx_quality_opts *o) {
  memset(o, 0, sizeof *o);
  o->quad_type = HX_QUAD_GLL;
  o->quad_order = 8;
  o->num_worst = 10;
}

struct hx_quality_ctx {
  int nd, Q;
  double D[HX_MAX_ND * HX_MAX_ND];                         /* [nd][nd] GLL collocation derivative */
  double B[HX_MAX_Q * HX_MAX_ND], G[HX_MAX_Q * HX_MAX_ND]; /* [Q][nd] */
};

int hx_quality_ctx_create(int nd, const hx_quality_opts *o, hx_quality_ctx **out) {
  HX_CHECK(nd >= 2 && nd <= HX_MAX_ND, HX_ERR_INPUT, "quality: order %d outside 1..%d", nd - 1, HX_MAX_ORDER);
  HX_CHECK(o->quad_type == HX_QUAD_GLL || o->quad_type == HX_QUAD_GL, HX_ERR_INPUT,
           "quality: quadrature type must be GLL or Gauss");
  int Q = o->quad_points > 0 ? o->quad_points : hx_quad_points_for_order(o->quad_type, o->quad_order);
  int Qmin = o->quad_type == HX_QUAD_GLL ? 2 : 1;
  HX_CHECK(Q >= Qmin && Q <= HX_MAX_Q, HX_ERR_INPUT,
           "quality: %d quadrature points per direction is outside %d..%d (quadrature order %d)", Q, Qmin, HX_MAX_Q,
           o->quad_order);
  hx_quality_ctx *qc;
  HX_CALL(hx_malloc(sizeof *qc, &qc));
  qc->nd = nd;
  qc->Q = Q;
  double xg[HX_MAX_ND], wg[HX_MAX_ND], xq[HX_MAX_Q], wq[HX_MAX_Q];
  int rc = hx_gll(nd, xg, wg);
  if (rc == HX_OK) rc = hx_quad_rule(o->quad_type, Q, xq, wq);
  if (rc != HX_OK) {
    hx_free(&qc);
    return rc;
  }
  hx_lagrange_matrices(nd, xg, nd, xg, NULL, qc->D);
  hx_lagrange_matrices(nd, xg, Q, xq, qc->B, qc->G);
  *out = qc;
  return HX_OK;
}

void hx_quality_ctx_destroy(hx_quality_ctx **qc) { hx_free(qc); }
int hx_quality_ctx_points(const hx_quality_ctx *qc) { return qc->Q; }
void hx_quality_ctx_rule(const hx_quality_ctx *qc, const double **B, const double **G) {
  *B = qc->B;
  *G = qc->G;
}

/* out[k][j][i] = sum_abc A3[k][c] A2[j][b] A1[i][a] in[c][b][a]; A* are [m][n]. */
static void tensor3(int n, int m, const double *A1, const double *A2, const double *A3, const double *in, double *out) {
  double t1[HX_MAX_Q * HX_MAX_ND * HX_MAX_ND], t2[HX_MAX_Q * HX_MAX_Q * HX_MAX_ND];
  for (int c = 0; c < n; c++)
    for (int b = 0; b < n; b++)
      for (int i = 0; i < m; i++) {
        double s = 0;
        for (int a = 0; a < n; a++) s += A1[i * n + a] * in[a + n * (b + n * c)];
        t1[i + m * (b + n * c)] = s;
      }
  for (int c = 0; c < n; c++)
    for (int j = 0; j < m; j++)
      for (int i = 0; i < m; i++) {
        double s = 0;
        for (int b = 0; b < n; b++) s += A2[j * n + b] * t1[i + m * (b + n * c)];
        t2[i + m * (j + m * c)] = s;
      }
  for (int k = 0; k < m; k++)
    for (int j = 0; j < m; j++)
      for (int i = 0; i < m; i++) {
        double s = 0;
        for (int c = 0; c < n; c++) s += A3[k * n + c] * t2[i + m * (j + m * c)];
        out[i + m * (j + m * k)] = s;
      }
}

/* min and max of det J at the m^3 points of the rule (V, Dv) = (values, derivatives);
   V = NULL: the element's own GLL nodes (m = n), Dv the collocation derivative. */
static int detj_range(int n, int m, const double *V, const double *Dv, const double *x, double *mn, double *mx) {
  if (!V) { /* collocation at the element's own GLL nodes */
    hx_elem_detj_range(n, Dv, x, mn, mx);
    return HX_OK;
  }
  /* 9 fields of m^3 values: on the stack up to m = 12, else (up to 1 MB at m = 24)
     on the heap */
  double stackJ[9 * 12 * 12 * 12], *J = stackJ;
  int np = m * m * m;
  if (9 * np > (int)(sizeof stackJ / sizeof stackJ[0])) HX_CALL(hx_malloc((size_t)9 * np * sizeof(double), &J));
  int npe = n * n * n;
  for (int c = 0; c < 3; c++) {
    const double *xc = x + c * npe;
    tensor3(n, m, Dv, V, V, xc, J + (3 * c + 0) * np);
    tensor3(n, m, V, Dv, V, xc, J + (3 * c + 1) * np);
    tensor3(n, m, V, V, Dv, xc, J + (3 * c + 2) * np);
  }
  double lo = INFINITY, hi = -INFINITY;
  for (int p = 0; p < np; p++) {
#define JJ(r, s) J[(3 * (r) + (s)) * np + p]
    double det = JJ(0, 0) * (JJ(1, 1) * JJ(2, 2) - JJ(1, 2) * JJ(2, 1)) - JJ(0, 1) * (JJ(1, 0) * JJ(2, 2) - JJ(1, 2) * JJ(2, 0)) +
                 JJ(0, 2) * (JJ(1, 0) * JJ(2, 1) - JJ(1, 1) * JJ(2, 0));
#undef JJ
    lo = fmin(lo, det);
    hi = fmax(hi, det);
  }
  if (J != stackJ) hx_free(&J);
  *mn = lo;
  *mx = hi;
  return HX_OK;
}

int hx_quality_elem(const hx_quality_ctx *qc, const double *x, hx_elem_quality *q) {
  return hx_quality_elem_parts(qc, x, HX_QUALITY_NODES | HX_QUALITY_POINTS, q);
}

int hx_quality_elem_parts(const hx_quality_ctx *qc, const double *x, int parts, hx_elem_quality *q) {
  int nd = qc->nd, N = nd - 1, npe = nd * nd * nd;
  if (parts & HX_QUALITY_POINTS) HX_CALL(detj_range(nd, qc->Q, qc->B, qc->G, x, &q->detj_min_q, &q->detj_max_q));
  else q->detj_min_q = q->detj_max_q = NAN;
  if (!(parts & HX_QUALITY_NODES)) return HX_OK;
  HX_CALL(detj_range(nd, nd, NULL, qc->D, x, &q->detj_min, &q->detj_max));
  /* Nek5000's scaled Jacobian: min/max ratio over the GLL nodes; an element whose
     det J changes sign gets the (negative) ratio as is */
  q->scaled_jac = q->detj_max > 0 ? q->detj_min / q->detj_max : (q->detj_max < 0 ? -1.0 : 0.0);
  double P[8][3];
  for (int c = 0; c < 8; c++)
    for (int k = 0; k < 3; k++) P[c][k] = x[k * npe + hx_corner_lex(nd, c)];
  /* Knupp/Verdict: det of the unit edge vectors at each corner. Edge d from corner c
     points to c ^ (1 << d), reversed when bit d of c is set, so the unit cube gives 1
     at every corner. */
  double sj = INFINITY, emin = INFINITY, emax = 0;
  for (int c = 0; c < 8; c++) {
    double a[3][3];
    for (int d = 0; d < 3; d++) {
      int o = c ^ (1 << d);
      double sgn = (c >> d) & 1 ? -1.0 : 1.0, len = 0;
      for (int k = 0; k < 3; k++) {
        a[d][k] = sgn * (P[o][k] - P[c][k]);
        len += a[d][k] * a[d][k];
      }
      len = sqrt(len);
      if (!(sgn < 0)) { /* each edge counted once for the aspect ratio */
        emin = fmin(emin, len);
        emax = fmax(emax, len);
      }
      for (int k = 0; k < 3; k++) a[d][k] = len > 0 ? a[d][k] / len : 0.0;
    }
    double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                 a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    sj = fmin(sj, det);
  }
  q->corner_sj = sj;
  q->aspect = emin > 0 ? emax / emin : INFINITY;
  /* shortest neighbour distance along the GLL grid lines */
  double hmin = INFINITY;
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++) {
        int a = hx_lex(nd, i, j, k);
        int nb[3] = {i < N ? hx_lex(nd, i + 1, j, k) : -1, j < N ? hx_lex(nd, i, j + 1, k) : -1,
                     k < N ? hx_lex(nd, i, j, k + 1) : -1};
        for (int d = 0; d < 3; d++) {
          if (nb[d] < 0) continue;
          double s = 0;
          for (int c = 0; c < 3; c++) {
            double dd = x[c * npe + nb[d]] - x[c * npe + a];
            s += dd * dd;
          }
          hmin = fmin(hmin, s);
        }
      }
  q->min_spacing = sqrt(hmin);
  for (int k = 0; k < 3; k++) {
    double s = 0;
    for (int c = 0; c < 8; c++) s += P[c][k];
    q->centroid[k] = s / 8;
  }
  return HX_OK;
}

double hx_quality_value(const hx_elem_quality *q, int s) {
  switch (s) {
  case 0: return q->detj_min;
  case 1: return q->detj_max;
  case 2: return q->detj_min_q;
  case 3: return q->detj_max_q;
  case 4: return q->scaled_jac;
  case 5: return q->corner_sj;
  case 6: return q->aspect;
  default: return q->min_spacing;
  }
}

/* worst first: ascending Nek scaled Jacobian, then corner SJ, then element index */
static int cmp_worst(const void *pa, const void *pb) {
  const hx_quality_worst *a = pa, *b = pb;
  if (a->q.scaled_jac != b->q.scaled_jac) return a->q.scaled_jac < b->q.scaled_jac ? -1 : 1;
  if (a->q.corner_sj != b->q.corner_sj) return a->q.corner_sj < b->q.corner_sj ? -1 : 1;
  return a->elem < b->elem ? -1 : (a->elem > b->elem);
}

/* The K worst of a stream of elements: pushed unsorted into list (room for cap > K); when
   it is full it is sorted and cut to K (O(n log K) in all, where inserting in order cost
   O(n K): minutes for a listing of every element of a 10^6-element mesh). worst_finish
   sorts and cuts at the end. */
static void worst_push(hx_quality_worst *list, int *n, int K, int cap, const hx_quality_worst *w) {
  if (K <= 0) return;
  if (*n == cap) {
    qsort(list, (size_t)*n, sizeof *list, cmp_worst);
    *n = K;
  }
  list[(*n)++] = *w;
}
static void worst_finish(hx_quality_worst *list, int *n, int K) {
  qsort(list, (size_t)*n, sizeof *list, cmp_worst);
  if (*n > K) *n = K;
}

int hx_quality_mesh(const hx_mesh *m, const hx_quality_opts *o, hx_elem_quality *per_elem, hx_quality_report *r) {
  memset(r, 0, sizeof *r);
  /* a mesh with lazy order-N geometry (hx_mesh_lazy) is measured at that order,
     a block at a time */
  const hx_mesh_lazy *lz = m->lazy;
  int nd = lz ? lz->order + 1 : m->nd;
  hx_quality_ctx *qc;
  HX_CALL(hx_quality_ctx_create(nd, o, &qc));
  /* the worst list holds at most every element (a larger --worst would only allocate) */
  int K = o->num_worst > 0 ? (m->num_elem_global < (hx_gid)o->num_worst ? (int)m->num_elem_global : o->num_worst) : 0;
  r->order = lz ? lz->order : m->order;
  r->quad_type = o->quad_type;
  r->quad_points = qc->Q;
  r->num_elem = m->num_elem_global;
  double mn[HX_QUALITY_NUM_STATS], mx[HX_QUALITY_NUM_STATS], sum[HX_QUALITY_NUM_STATS];
  for (int s = 0; s < HX_QUALITY_NUM_STATS; s++) {
    mn[s] = INFINITY;
    mx[s] = -INFINITY;
    sum[s] = 0;
  }
  hx_gid inverted = 0;
  hx_quality_worst *local = NULL;
  int nlocal = 0, cap = K + (K < 4096 ? K : 4096) + 1; /* worst_push's room */
  int rc = hx_malloc((size_t)cap * sizeof *local, &local);
  int nthreads = 1;
#ifdef _OPENMP
  nthreads = omp_get_max_threads();
#endif
  hx_quality_worst *tl = NULL; /* per-thread worst lists [nthreads][cap] */
  int *tn = NULL;
  if (rc == HX_OK) rc = hx_malloc((size_t)nthreads * cap * sizeof *tl, &tl);
  if (rc == HX_OK) rc = hx_malloc((size_t)nthreads * sizeof *tn, &tn);
  hx_detj_bound_ctx **bc = NULL; /* [nthreads] with opts.validity */
  if (rc == HX_OK && o->validity) {
    hx_detj_bound_opts bo;
    hx_detj_bound_opts_default(&bo);
    rc = hx_malloc((size_t)nthreads * sizeof *bc, &bc);
    for (int t = 0; t < nthreads && rc == HX_OK; t++) rc = hx_detj_bound_ctx_create(nd - 1, &bo, &bc[t]);
  }
  if (rc != HX_OK) {
    if (bc)
      for (int t = 0; t < nthreads; t++) hx_detj_bound_ctx_destroy(&bc[t]);
    hx_free(&bc);
    hx_free(&local);
    hx_free(&tl);
    hx_free(&tn);
    hx_quality_ctx_destroy(&qc);
    return rc;
  }
  int64_t vcount[4] = {0, 0, 0, 0};      /* proven, not proven, invalid, subdivisions */
  double vmin[2] = {INFINITY, INFINITY}; /* smallest bound, smallest det J found */
  size_t stride = (size_t)3 * nd * nd * nd;
  int failed = 0;
  /* blocks of elements so that the progress bar can move between them */
  hx_progress prog;
  hx_progress_start(&prog, "quality", m->num_elem);
  const hx_lid block = lz ? 2048 : 16384;
  double *xb = NULL;
  if (lz && (rc = hx_malloc((size_t)block * stride * sizeof *xb, &xb)) != HX_OK) failed = 2;
  for (hx_lid e0 = 0; e0 < m->num_elem && !failed; e0 += block) {
    hx_lid e1 = e0 + block < m->num_elem ? e0 + block : m->num_elem;
    const double *xs = m->x + (size_t)e0 * stride;
    if (lz) {
      if ((rc = lz->block(lz->ctx, m, e0, e1 - e0, xb, NULL)) != HX_OK) {
        failed = 2;
        break;
      }
      xs = xb;
    }
#pragma omp parallel
    {
      int t = 0;
#ifdef _OPENMP
      t = omp_get_thread_num();
#endif
      double tmn[HX_QUALITY_NUM_STATS], tmx[HX_QUALITY_NUM_STATS], tsum[HX_QUALITY_NUM_STATS];
      for (int s = 0; s < HX_QUALITY_NUM_STATS; s++) {
        tmn[s] = INFINITY;
        tmx[s] = -INFINITY;
        tsum[s] = 0;
      }
      hx_gid tinv = 0;
      int64_t tv[4] = {0, 0, 0, 0};
      double tvm[2] = {INFINITY, INFINITY};
#pragma omp for schedule(dynamic, 256)
      for (hx_lid e = e0; e < e1; e++) {
        hx_quality_worst w;
        if (hx_quality_elem(qc, xs + (size_t)(e - e0) * stride, &w.q) != HX_OK) {
#pragma omp atomic write
          failed = 1;
          continue;
        }
        w.elem = m->elem_offset + e;
        if (per_elem) per_elem[e] = w.q;
        for (int s = 0; s < HX_QUALITY_NUM_STATS; s++) {
          double v = hx_quality_value(&w.q, s);
          tmn[s] = fmin(tmn[s], v);
          tmx[s] = fmax(tmx[s], v);
          tsum[s] += v;
        }
        if (!(w.q.detj_min > 0) || !(w.q.detj_min_q > 0)) tinv++;
        if (bc) {
          hx_detj_bound_result b;
          hx_detj_bound_elem(bc[t], xs + (size_t)(e - e0) * stride, &b);
          tv[b.verdict - 1]++;
          tv[3] += b.num_splits;
          tvm[0] = fmin(tvm[0], b.lower);
          tvm[1] = fmin(tvm[1], b.min_found);
        }
        worst_push(tl + (size_t)t * cap, &tn[t], K, cap, &w);
      }
#pragma omp critical(hx_quality_reduce)
      {
        for (int s = 0; s < HX_QUALITY_NUM_STATS; s++) {
          mn[s] = fmin(mn[s], tmn[s]);
          mx[s] = fmax(mx[s], tmx[s]);
          sum[s] += tsum[s];
        }
        inverted += tinv;
        for (int k = 0; k < 4; k++) vcount[k] += tv[k];
        vmin[0] = fmin(vmin[0], tvm[0]);
        vmin[1] = fmin(vmin[1], tvm[1]);
      }
    }
    hx_progress_update(&prog, e1);
  }
  hx_progress_finish(&prog);
  for (int t = 0; t < nthreads; t++)
    for (int i = 0; i < tn[t]; i++) worst_push(local, &nlocal, K, cap, &tl[(size_t)t * cap + i]);
  worst_finish(local, &nlocal, K);
  hx_free(&tl);
  hx_free(&tn);
  if (bc)
    for (int t = 0; t < nthreads; t++) hx_detj_bound_ctx_destroy(&bc[t]);
  hx_free(&bc);
  hx_quality_ctx_destroy(&qc);
  hx_free(&xb);

  rc = failed == 2 ? rc : failed ? HX_ERR_MEMORY : HX_OK;
  rc = hx_comm_agree(m->comm, rc);
  if (rc == HX_OK) rc = hx_comm_min_double(m->comm, mn, HX_QUALITY_NUM_STATS);
  if (rc == HX_OK) rc = hx_comm_max_double(m->comm, mx, HX_QUALITY_NUM_STATS);
  if (rc == HX_OK) rc = hx_comm_sum_double(m->comm, sum, HX_QUALITY_NUM_STATS);
  if (rc == HX_OK) rc = hx_comm_sum_int64(m->comm, &inverted, 1);
  if (rc == HX_OK && o->validity) rc = hx_comm_sum_int64(m->comm, vcount, 4);
  if (rc == HX_OK && o->validity) rc = hx_comm_min_double(m->comm, vmin, 2);
  /* gather every rank's worst list and keep the K worst overall */
  int size = hx_comm_size(m->comm);
  hx_quality_worst *all = NULL;
  if (rc == HX_OK) rc = hx_malloc((size_t)size * (K + 1) * sizeof *all, &all);
  if (rc == HX_OK) rc = hx_malloc((size_t)cap * sizeof *r->worst, &r->worst);
  if (rc == HX_OK) {
    for (int i = nlocal; i < K; i++) local[i].elem = -1;
#if HX_HAVE_MPI
    if (MPI_Allgather(local, (int)(K * sizeof *local), MPI_BYTE, all, (int)(K * sizeof *local), MPI_BYTE, m->comm) != MPI_SUCCESS)
      rc = HX_ERROR(HX_ERR_MPI, "quality: gathering the worst elements failed");
#else
    memcpy(all, local, (size_t)K * sizeof *local);
#endif
  }
  if (rc == HX_OK)
    for (int p = 0; p < size * K; p++)
      if (all[p].elem >= 0) worst_push(r->worst, &r->num_worst, K, cap, &all[p]);
  if (rc == HX_OK) worst_finish(r->worst, &r->num_worst, K);
  hx_free(&all);
  hx_free(&local);
  if (rc != HX_OK) {
    hx_quality_report_free(r);
    return rc;
  }
  for (int s = 0; s < HX_QUALITY_NUM_STATS; s++) {
    r->stat[s].min = mn[s];
    r->stat[s].max = mx[s];
    r->stat[s].mean = r->num_elem > 0 ? sum[s] / (double)r->num_elem : 0;
  }
  r->num_inverted = inverted;
  if (o->validity) {
    hx_detj_bound_summary *b = &r->bound;
    r->validity_checked = 1;
    b->num_proven = vcount[0];
    b->num_not_proven = vcount[1];
    b->num_invalid = vcount[2];
    b->num_splits = vcount[3];
    b->lower_min = vmin[0];
    b->found_min = vmin[1];
    b->verdict = b->num_invalid ? HX_INVALID : (b->num_not_proven ? HX_VALID_NOT_PROVEN : HX_VALID_PROVEN);
  }
  return HX_OK;
}

void hx_quality_report_free(hx_quality_report *r) {
  hx_free(&r->worst);
  r->num_worst = 0;
}

void hx_quality_print_validity(const hx_quality_report *r, FILE *out) {
  const hx_detj_bound_summary *b = &r->bound;
  if (b->verdict == HX_INVALID)
    fprintf(out, "  invalid (%lld elements with det J <= 0 at a point, smallest %.4e; %lld inconclusive; min bound %.4e)\n",
            (long long)b->num_invalid, b->found_min, (long long)b->num_not_proven, b->lower_min);
  else if (b->verdict == HX_VALID_NOT_PROVEN)
    fprintf(out, "  valid: not proven (%lld elements inconclusive, min bound %.4e, smallest det J found %.4e)\n",
            (long long)b->num_not_proven, b->lower_min, b->found_min);
  else fprintf(out, "  valid: proven (min bound %.4e)\n", b->lower_min);
}

void hx_quality_print(const hx_quality_report *r, FILE *out) {
  fprintf(out, "quality of %lld elements, order %d, quadrature %d %s points per direction\n", (long long)r->num_elem, r->order,
          r->quad_points, r->quad_type == HX_QUAD_GLL ? "GLL" : "Gauss");
  fprintf(out, "  %-24s %13s %13s %13s\n", "measure", "min", "mean", "max");
  static const char *labels[HX_QUALITY_NUM_STATS] = {"det J min (GLL)",        "det J max (GLL)",       "det J min (quadrature)",
                                                     "det J max (quadrature)", "scaled Jacobian (Nek)", "corner scaled Jacobian",
                                                     "aspect ratio",           "min GLL spacing"};
  for (int s = 0; s < HX_QUALITY_NUM_STATS; s++)
    fprintf(out, "  %-24s %13.4e %13.4e %13.4e\n", labels[s], r->stat[s].min, r->stat[s].mean, r->stat[s].max);
  fprintf(out, "  elements with det J <= 0: %lld\n", (long long)r->num_inverted);
  if (r->validity_checked) hx_quality_print_validity(r, out);
  if (r->num_worst > 0) {
    fprintf(out, "worst %d elements (by scaled Jacobian):\n", r->num_worst);
    fprintf(out, "  %10s %12s %12s %12s %10s  %s\n", "element", "scaled_jac", "corner_sj", "detj_min", "aspect", "centroid");
    for (int i = 0; i < r->num_worst; i++) {
      const hx_quality_worst *w = &r->worst[i];
      fprintf(out, "  %10lld %12.4e %12.4e %12.4e %10.3f  (%.6g, %.6g, %.6g)\n", (long long)w->elem, w->q.scaled_jac,
              w->q.corner_sj, w->q.detj_min, w->q.aspect, w->q.centroid[0], w->q.centroid[1], w->q.centroid[2]);
    }
  }
}

/* JSON has no inf/nan: print them as null */
static void jnum(FILE *out, double v) {
  if (isfinite(v)) fprintf(out, "%.17g", v);
  else fprintf(out, "null");
}

void hx_quality_json(const hx_quality_report *r, FILE *out) {
  fprintf(out, "{");
  if (r->verdict) fprintf(out, "\"verdict\": \"%s\", ", r->verdict);
  fprintf(out, "\"num_elem\": %lld, \"order\": %d, \"quad_type\": \"%s\", \"quad_points\": %d, \"num_inverted\": %lld,\n",
          (long long)r->num_elem, r->order, r->quad_type == HX_QUAD_GLL ? "gll" : "gauss", r->quad_points,
          (long long)r->num_inverted);
  if (r->validity_checked) {
    const hx_detj_bound_summary *b = &r->bound;
    fprintf(out, " \"validity\": \"%s\", \"bound_min\": ", hx_validity_name(b->verdict));
    jnum(out, b->lower_min);
    fprintf(out, ", \"detj_min_found\": ");
    jnum(out, b->found_min);
    fprintf(out, ", \"num_proven\": %lld, \"num_not_proven\": %lld, \"num_invalid\": %lld, \"bound_subdivisions\": %lld,\n",
            (long long)b->num_proven, (long long)b->num_not_proven, (long long)b->num_invalid, (long long)b->num_splits);
  }
  fprintf(out, " \"summary\": {");
  for (int s = 0; s < HX_QUALITY_NUM_STATS; s++) {
    fprintf(out, "%s\n  \"%s\": {\"min\": ", s ? "," : "", hx_quality_stat_names[s]);
    jnum(out, r->stat[s].min);
    fprintf(out, ", \"mean\": ");
    jnum(out, r->stat[s].mean);
    fprintf(out, ", \"max\": ");
    jnum(out, r->stat[s].max);
    fprintf(out, "}");
  }
  fprintf(out, "},\n \"worst\": [");
  for (int i = 0; i < r->num_worst; i++) {
    const hx_quality_worst *w = &r->worst[i];
    fprintf(out, "%s\n  {\"element\": %lld", i ? "," : "", (long long)w->elem);
    for (int s = 0; s < HX_QUALITY_NUM_STATS; s++) {
      fprintf(out, ", \"%s\": ", hx_quality_stat_names[s]);
      jnum(out, hx_quality_value(&w->q, s));
    }
    fprintf(out, ", \"centroid\": [");
    for (int k = 0; k < 3; k++) {
      if (k) fprintf(out, ", ");
      jnum(out, w->q.centroid[k]);
    }
    fprintf(out, "]}");
  }
  fprintf(out, "]}\n");
}

int hx_quality_histogram(hx_comm comm, const hx_elem_quality *q, hx_lid n, int measure, int num_bins, double lo, double hi,
                         hx_quality_hist *h) {
  HX_CHECK(num_bins >= 1 && num_bins <= HX_QUALITY_MAX_BINS, HX_ERR_INPUT, "histogram: %d bins outside 1..%d", num_bins,
           HX_QUALITY_MAX_BINS);
  HX_CHECK(measure >= 0 && measure < HX_QUALITY_NUM_STATS, HX_ERR_INPUT, "histogram: unknown measure %d", measure);
  memset(h, 0, sizeof *h);
  h->measure = measure;
  h->num_bins = num_bins;
  if (!(lo < hi)) {
    double r[2] = {INFINITY, -INFINITY};
    for (hx_lid e = 0; e < n; e++) {
      double v = hx_quality_value(&q[e], measure);
      if (isfinite(v)) r[0] = fmin(r[0], v), r[1] = fmax(r[1], v);
    }
    HX_CALL(hx_comm_min_double(comm, &r[0], 1));
    HX_CALL(hx_comm_max_double(comm, &r[1], 1));
    lo = isfinite(r[0]) ? r[0] : 0;
    hi = isfinite(r[1]) ? r[1] : 1;
    if (!(hi > lo)) { /* all equal: a unit-wide window around the value */
      double c = lo, w = fmax(fabs(c) * 1e-3, 1e-12);
      lo = c - w;
      hi = c + w;
    }
  }
  h->lo = lo;
  h->hi = hi;
  double scale = num_bins / (hi - lo);
  for (hx_lid e = 0; e < n; e++) {
    double v = hx_quality_value(&q[e], measure);
    int b = isfinite(v) ? (int)floor((v - lo) * scale) : num_bins - 1;
    b = b < 0 ? 0 : (b >= num_bins ? num_bins - 1 : b);
    h->counts[b] += 1;
  }
  HX_CALL(hx_comm_sum_double(comm, h->counts, num_bins));
  return HX_OK;
}

int hx_quality_histogram_auto(hx_comm comm, const hx_elem_quality *q, hx_lid n, int measure, int num_bins, hx_quality_hist *h) {
  HX_CHECK(num_bins >= 1 && num_bins <= HX_QUALITY_MAX_BINS, HX_ERR_INPUT, "histogram: %d bins outside 1..%d", num_bins,
           HX_QUALITY_MAX_BINS);
  HX_CHECK(measure >= 0 && measure < HX_QUALITY_NUM_STATS, HX_ERR_INPUT, "histogram: unknown measure %d", measure);
  /* the smallest value, the smallest positive one, and the largest */
  double r[3] = {INFINITY, INFINITY, -INFINITY};
  for (hx_lid e = 0; e < n; e++) {
    double v = hx_quality_value(&q[e], measure);
    if (!isfinite(v)) continue;
    r[0] = fmin(r[0], v);
    if (v > 0) r[1] = fmin(r[1], v);
    r[2] = fmax(r[2], v);
  }
  HX_CALL(hx_comm_min_double(comm, r, 2));
  HX_CALL(hx_comm_max_double(comm, &r[2], 1));
  if (!(isfinite(r[1]) && r[2] > 100 * r[1])) return hx_quality_histogram(comm, q, n, measure, num_bins, 0, 0, h);
  memset(h, 0, sizeof *h);
  h->measure = measure;
  h->num_bins = num_bins;
  h->log10 = 1;
  h->lo = r[1];
  h->hi = r[2];
  double l0 = log10(r[1]), scale = num_bins / (log10(r[2]) - l0);
  for (hx_lid e = 0; e < n; e++) {
    double v = hx_quality_value(&q[e], measure);
    if (!(v > 0)) {
      h->below += 1;
      continue;
    }
    int b = isfinite(v) ? (int)floor((log10(v) - l0) * scale) : num_bins - 1;
    b = b < 0 ? 0 : (b >= num_bins ? num_bins - 1 : b);
    h->counts[b] += 1;
  }
  HX_CALL(hx_comm_sum_double(comm, h->counts, num_bins));
  HX_CALL(hx_comm_sum_double(comm, &h->below, 1));
  return HX_OK;
}
