/* The two-level preconditioner of the Newton steps' linear solves (opts.precond =
   HX_PREC_TWOLEVEL): Jacobi plus a correction on the order-1 copy of the mesh,

     M^-1 r = (Pi D^-1 Pi + I - Pi) r + Pi P Pi_c C Pi_c P^T Pi r,

   P the interpolation of the order-1 copy's nodes (the elements' corners) to the mesh's
   (trilinear in each element), C a fixed Chebyshev polynomial of the order-1 copy's own Hessian
   (at the corners of the Newton step's linearization point, the same metric, targets and
   boundary, its own constraints Pi_c). A part of the solver (newton.c calls it), beside it.

   design:
   1. P and its transpose are exact transposes of each other: P v = D_m^-1 A_f T S_c v (S_c the
      order-1 copy's L -> E scatter, T the element-wise tensor interpolation from 2 to nd nodes
      per direction, A_f the E -> L sum with the ranks' shared nodes, D_m the nodes' global
      multiplicity), P^T r = A_c T^T S_f D_m^-1 r. Every copy of a node gets the same
      interpolated value (the field is continuous), so P v is that value.
   2. C = p(M_c A_c) M_c, M_c the order-1 copy's Jacobi, p the Chebyshev polynomial of odd
      degree k on [b / HX_PMG_RATIO, b] (b 1.1 times the power iteration's estimate of the
      largest eigenvalue of M_c A_c): its residual polynomial 1 - lambda p(lambda) is below 1 in
      magnitude on the interval, positive below it and negative above it, so lambda p(lambda) > 0
      for every lambda != 0 of any sign. C is then symmetric positive definite whatever the
      spectrum of the order-1 Hessian (also where it is indefinite, on the way out of a fold),
      and so is M: MINRES's condition on its preconditioner holds.
   3. The order-1 copy is integrated with 2 Gauss points per direction (exact for its trilinear
      products where the element is affine): 8 points an element, the correction costs a small
      part of a Hessian action at the mesh's order.
   4. Where the order-1 copy at the step's corners has det J <= 0 at one of its points (a
      strongly curved element whose chord element folds), the step's preconditioner is Jacobi
      alone (pm->on 0; the solve's log says so). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "hx_tmop_impl.h"

/* the Chebyshev interval's lower end: the largest eigenvalue over this */
#define HX_PMG_RATIO 30.0
/* power iterations for the largest eigenvalue of M_c A_c, and the safety factor on it */
#define HX_PMG_POWER 10
#define HX_PMG_SAFETY 1.1

struct hx_tmop_pmg {
  hx_mesh *lo;                            /* the order-1 copy (owned) */
  unsigned char *cfixed;                  /* [num_elem][8] its fixed E-nodes (the mesh's fixed corners), or NULL */
  hx_tmop *c;                             /* its problem (owned) */
  int on;                                 /* this Newton step's correction is on */
  double lmax;                            /* this step's upper end */
  double Tf[HX_MAX_ND * 2];               /* [nd][2]: the order-1 basis at the GLL nodes (P) */
  double Tt[2 * HX_MAX_ND];               /* [2][nd]: its transpose (P^T) */
  double Ti[2 * HX_MAX_ND];               /* [2][nd]: the corners' values (injection of positions) */
  double *dmf;                            /* [nL] fine: 1 / global multiplicity */
  double *dmc;                            /* [nLc] coarse: the same */
  double *fL;                             /* [nL] fine scratch */
  double *dinvc, *xc, *b, *y, *r, *d, *t; /* [nLc] coarse */
  double *pw;                             /* [nLc] the power iteration's start (host-made, uploaded) */
};

#define CBE (pm->c->be)
#define CPA (pm->c->pa)

/* 1 / global multiplicity of tm's L-nodes: E-vector of ones summed to L, the ranks' shares added */
static int inv_mult(hx_tmop *tm, double *out) {
  double *h = NULL;
  int rc = hx_malloc((tm->nE > tm->nL ? tm->nE : tm->nL) * sizeof *h + 8, &h);
  if (rc) return rc;
  for (size_t i = 0; i < tm->nE; i++) h[i] = 1.0;
  rc = tm->be->vec_upload(tm->pa, h, tm->dV, tm->nE);
  if (!rc) rc = tm->be->e2l(tm->pa, tm->dV, out);
  if (!rc) rc = hx_tmop_dassemble(tm, out);
  if (!rc) rc = tm->be->vec_download(tm->pa, out, h, tm->nL);
  if (!rc)
    for (size_t i = 0; i < tm->nL; i++) h[i] = h[i] > 0 ? 1.0 / h[i] : 0.0;
  if (!rc) rc = tm->be->vec_upload(tm->pa, h, out, tm->nL);
  hx_free(&h);
  return rc;
}

void hx_tmop_pmg_destroy(hx_tmop *tm) {
  struct hx_tmop_pmg *pm = tm->pmg;
  if (!pm) return;
  if (pm->c) {
    double **cv[] = {&pm->dmc, &pm->dinvc, &pm->xc, &pm->b, &pm->y, &pm->r, &pm->d, &pm->t, &pm->pw};
    for (size_t k = 0; k < sizeof cv / sizeof *cv; k++) CBE->vec_free(CPA, cv[k]);
  }
  if (tm->pa) {
    tm->be->vec_free(tm->pa, &pm->dmf);
    tm->be->vec_free(tm->pa, &pm->fL);
  }
  hx_tmop_destroy(&pm->c);
  hx_mesh_destroy(&pm->lo);
  hx_free(&pm->cfixed);
  hx_free(&tm->pmg);
}

int hx_tmop_pmg_create(hx_tmop *tm) {
  hx_mesh *m = tm->mesh;
  const hx_tmop_opts *o = &tm->o;
  HX_CHECK(tm->be->etensor && tm->be->vmul, HX_ERR_BACKEND, "the two-level preconditioner is not in backend '%s'", tm->be->name);
  HX_CHECK(o->precond_degree >= 1 && o->precond_degree % 2 == 1, HX_ERR_INPUT,
           "the two-level preconditioner's Chebyshev degree must be odd and >= 1, got %d", o->precond_degree);
  struct hx_tmop_pmg *pm;
  HX_CALL(hx_malloc(sizeof *pm, &pm));
  tm->pmg = pm;
  double xg[HX_MAX_ND], wg[HX_MAX_ND], x2[2] = {0, 1};
  int rc = hx_gll(m->nd, xg, wg);
  if (!rc) {
    hx_lagrange_matrices(2, x2, m->nd, xg, pm->Tf, NULL);
    for (int i = 0; i < m->nd; i++)
      for (int a = 0; a < 2; a++) pm->Tt[a * m->nd + i] = pm->Tf[i * 2 + a];
    memset(pm->Ti, 0, sizeof pm->Ti);
    pm->Ti[0] = 1.0, pm->Ti[2 * m->nd - 1] = 1.0;
  }
  if (!rc) rc = hx_tmop_linear_copy(m, &pm->lo);
  hx_tmop_opts co = *o;
  co.precond = HX_PREC_JACOBI;
  co.quad_type = HX_QUAD_GL, co.quad_order = 3; /* design 3 */
  co.coarse_order = 0, co.adapt_quad = 0, co.untangle = 0;
  co.keep_sj = co.keep_aspect = co.transfer_keep = co.repair_sj = 0;
  co.elem_ok = NULL, co.elem_ok_ctx = NULL, co.fixed_node = NULL;
  if (!rc && o->fixed_node) { /* the corners the mesh fixes are fixed in the copy */
    size_t n3 = (size_t)m->nd * m->nd * m->nd;
    rc = hx_malloc((size_t)m->num_elem * 8 + 1, &pm->cfixed);
    for (hx_lid e = 0; !rc && e < m->num_elem; e++)
      for (int c = 0; c < 8; c++) pm->cfixed[(size_t)e * 8 + c] = o->fixed_node[(size_t)e * n3 + hx_corner_lex(m->nd, c)];
    co.fixed_node = pm->cfixed;
  }
  co.normalize = 0, co.log = NULL, co.debug = 0, co.sync_timers = 0;
  if (!rc) rc = hx_tmop_create(pm->lo, &co, &pm->c);
  if (rc) {
    hx_tmop_destroy(&pm->c);
    hx_mesh_destroy(&pm->lo);
    hx_free(&pm->cfixed);
    hx_free(&tm->pmg);
    return rc;
  }
  CPA->scale = tm->pa->scale; /* the mesh's energy normalization */
  size_t nc = pm->c->nL;
  double **cv[] = {&pm->dmc, &pm->dinvc, &pm->xc, &pm->b, &pm->y, &pm->r, &pm->d, &pm->t, &pm->pw};
  for (size_t k = 0; k < sizeof cv / sizeof *cv && !rc; k++) rc = CBE->vec_alloc(CPA, nc, cv[k]);
  if (!rc) rc = tm->be->vec_alloc(tm->pa, tm->nL, &pm->dmf);
  if (!rc) rc = tm->be->vec_alloc(tm->pa, tm->nL, &pm->fL);
  if (!rc) rc = inv_mult(tm, pm->dmf);
  if (!rc) rc = inv_mult(pm->c, pm->dmc);
  if (!rc) { /* the power iteration's start: pseudo-random in [0.5, 1.5) by global node id, so the
               same on every run and every partition */
    double *h = pm->c->hL;
    for (hx_lid i = 0; i < pm->c->nl; i++)
      for (int k = 0; k < 3; k++) {
        unsigned long long z = (unsigned long long)pm->c->lmap->l2g[i] * 0x9E3779B97F4A7C15ULL + (unsigned long long)(k + 1);
        z ^= z >> 31, z *= 0x94D049BB133111EBULL, z ^= z >> 29;
        h[3 * (size_t)i + k] = 0.5 + (double)(z >> 11) / 9007199254740992.0;
      }
    rc = CBE->vec_upload(CPA, h, pm->pw, nc);
  }
  if (rc) hx_tmop_pmg_destroy(tm);
  return rc;
}

/* coarse L-vector out = P^T-side transfer of the fine L-vector in (no projections) */
static int restrict_f2c(hx_tmop *tm, const double *in, double *out) {
  struct hx_tmop_pmg *pm = tm->pmg;
  HX_CALL(tm->be->vmul(tm->pa, tm->nL, pm->dmf, in, pm->fL));
  HX_CALL(tm->be->l2e(tm->pa, pm->fL, tm->dV));
  HX_CALL(tm->be->etensor(tm->pa, tm->pa->nd, 2, pm->Tt, tm->dV, pm->c->dV));
  HX_CALL(CBE->e2l(CPA, pm->c->dV, out));
  return hx_tmop_dassemble(pm->c, out);
}

/* fine L-vector out = P in (no projections) */
static int prolong_c2f(hx_tmop *tm, const double *in, double *out) {
  struct hx_tmop_pmg *pm = tm->pmg;
  HX_CALL(CBE->l2e(CPA, in, pm->c->dV));
  HX_CALL(tm->be->etensor(tm->pa, 2, tm->pa->nd, pm->Tf, pm->c->dV, tm->dV));
  HX_CALL(tm->be->e2l(tm->pa, tm->dV, out));
  HX_CALL(hx_tmop_dassemble(tm, out));
  return tm->be->vmul(tm->pa, tm->nL, pm->dmf, out, out);
}

int hx_tmop_pmg_setup(hx_tmop *tm, const double *x) {
  struct hx_tmop_pmg *pm = tm->pmg;
  if (!pm) return HX_OK;
  double t0 = hx_tmop_now();
  hx_tmop *c = pm->c;
  size_t nc = c->nL;
  pm->on = 0;
  /* the corners of x: the fine E-vector's corner values, averaged over their copies */
  HX_CALL(tm->be->l2e(tm->pa, x, tm->dV));
  HX_CALL(tm->be->etensor(tm->pa, tm->pa->nd, 2, pm->Ti, tm->dV, c->dV));
  HX_CALL(CBE->e2l(CPA, c->dV, pm->xc));
  HX_CALL(hx_tmop_dassemble(c, pm->xc));
  HX_CALL(CBE->vmul(CPA, nc, pm->dmc, pm->xc, pm->xc));
  double mind;
  HX_CALL(hx_tmop_dmin_detj(c, pm->xc, &mind));
  if (!(mind > 0)) goto out; /* design 4 */
  HX_CALL(hx_tmop_dupdate_normals(c, pm->xc));
  HX_CALL(hx_tmop_dhess_setup(c, pm->xc));
  HX_CALL(hx_tmop_ddiag(c, pm->dinvc));
  HX_CALL(CBE->inv_abs(CPA, nc, pm->dinvc));
  /* power iteration on M_c A_c from pw: |M_c A_c v| / |v| */
  double nv, lam = 0;
  HX_CALL(CBE->axpby(CPA, nc, 1.0, pm->pw, 0.0, pm->d));
  HX_CALL(hx_tmop_dproject(c, pm->d));
  HX_CALL(hx_tmop_ddot(c, pm->d, pm->d, &nv));
  for (int k = 0; k < HX_PMG_POWER && nv > 0; k++) {
    HX_CALL(hx_tmop_dhess_apply(c, pm->d, pm->t, 0));
    HX_CALL(CBE->precond(CPA, pm->dinvc, pm->t, pm->r));
    HX_CALL(hx_tmop_dproject(c, pm->r));
    double nr;
    HX_CALL(hx_tmop_ddot(c, pm->r, pm->r, &nr));
    lam = sqrt(nr / nv);
    if (!(nr > 0) || !isfinite(nr)) break;
    HX_CALL(CBE->axpby(CPA, nc, 1.0 / sqrt(nr), pm->r, 0.0, pm->d));
    nv = 1.0;
  }
  if (!(lam > 0) || !isfinite(lam)) goto out;
  pm->lmax = HX_PMG_SAFETY * lam;
  pm->on = 1;
out:
  tm->t_pmg_setup += hx_tmop_now() - t0;
  return HX_OK;
}

/* y = C b on the order-1 copy: Chebyshev (Saad, Iterative Methods, Algorithm 12.1) on
   [lmax / ratio, lmax], x0 = 0, with M_c as the preconditioner */
static int chebyshev(hx_tmop *tm) {
  struct hx_tmop_pmg *pm = tm->pmg;
  hx_tmop *c = pm->c;
  size_t nc = c->nL;
  double bb = pm->lmax, aa = bb / HX_PMG_RATIO;
  double theta = 0.5 * (bb + aa), delta = 0.5 * (bb - aa), sigma = theta / delta, rho = 1.0 / sigma;
  HX_CALL(CBE->axpby(CPA, nc, 1.0, pm->b, 0.0, pm->r));
  HX_CALL(CBE->precond(CPA, pm->dinvc, pm->r, pm->t));
  HX_CALL(CBE->axpby(CPA, nc, 1.0 / theta, pm->t, 0.0, pm->d));
  HX_CALL(CBE->axpby(CPA, nc, 1.0, pm->d, 0.0, pm->y));
  for (int i = 1; i < tm->o.precond_degree; i++) {
    HX_CALL(hx_tmop_dhess_apply(c, pm->d, pm->t, 0));
    HX_CALL(CBE->axpby(CPA, nc, -1.0, pm->t, 1.0, pm->r));
    double rho1 = 1.0 / (2.0 * sigma - rho);
    HX_CALL(CBE->precond(CPA, pm->dinvc, pm->r, pm->t));
    HX_CALL(CBE->axpby(CPA, nc, 2.0 * rho1 / delta, pm->t, rho1 * rho, pm->d));
    HX_CALL(CBE->axpby(CPA, nc, 1.0, pm->d, 1.0, pm->y));
    rho = rho1;
  }
  return HX_OK;
}

int hx_tmop_pmg_add(hx_tmop *tm, const double *r, double *z) {
  struct hx_tmop_pmg *pm = tm->pmg;
  if (!pm || !pm->on) return HX_OK;
  double t0 = hx_tmop_now();
  HX_CALL(tm->be->project(tm->pa, r, pm->fL));
  HX_CALL(restrict_f2c(tm, pm->fL, pm->b));
  HX_CALL(hx_tmop_dproject(pm->c, pm->b));
  HX_CALL(chebyshev(tm));
  HX_CALL(hx_tmop_dproject(pm->c, pm->y));
  HX_CALL(prolong_c2f(tm, pm->y, pm->fL));
  HX_CALL(tm->be->project(tm->pa, pm->fL, pm->fL));
  HX_CALL(tm->be->axpby(tm->pa, tm->nL, 1.0, pm->fL, 1.0, z));
  tm->t_pmg_apply += hx_tmop_now() - t0;
  tm->n_pmg_apply++;
  return HX_OK;
}

int hx_tmop_pmg_active(const hx_tmop *tm) { return tm->pmg && tm->pmg->on; }

int hx_tmop_pmg_transfer(hx_tmop *tm, int op, const double *in, double *out) {
  struct hx_tmop_pmg *pm = tm->pmg;
  HX_CHECK(pm, HX_ERR_INTERNAL, "pmg_transfer: no two-level preconditioner");
  if (op == 0) return prolong_c2f(tm, in, out);
  if (op == 1) return restrict_f2c(tm, in, out);
  HX_CALL(CBE->axpby(CPA, pm->c->nL, 1.0, pm->xc, 0.0, out));
  return HX_OK;
}

hx_tmop *hx_tmop_pmg_coarse(hx_tmop *tm) { return tm->pmg ? tm->pmg->c : NULL; }
