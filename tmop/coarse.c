/* The coarse start (opts.coarse_order): the order-1 copy of the mesh (its elements' corners) is
   solved first and its moves carried to the mesh's order (hx_tmop_transfer); the solve at the
   mesh's order then starts there. A driver above the solver, as repair.c and transfer.c.

   design:
   1. The problem stays the mesh's own: tm (targets, boundary tracks, keep-sj's initial nodes) is
      set up from the mesh as given; only the solve's starting point (tm->xstart) changes.
   2. The order-1 copy has the mesh's elements, corners, boundary faces and surfaces; its solve
      uses the mesh's options less those that concern the order-N mesh alone (keep-sj, aspect,
      repair, the writer's rule, fixed E-nodes) and less a coarse start of its own.
   3. The carrying holds an element back (hx_tmop_transfer: its corners' moves halved, to none)
      where it would fold between its nodes or fall below opts' keep-sj or aspect limits, so the
      start passes every check the solve's initial mesh passes.
   4. Where the order-1 copy is not valid for the metric (det J <= 0 at a quadrature point of a
      chord element of a strongly curved mesh), the coarse start is skipped (res->coarse_order 0)
      and the solve starts from the mesh as given. */
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "hx_tmop_impl.h"

int hx_tmop_linear_copy(const hx_mesh *m, hx_mesh **out) {
  hx_mesh *lo;
  HX_CALL(hx_mesh_create(m->comm, 1, m->num_elem, &lo));
  int nd = m->nd;
  size_t n3 = (size_t)nd * nd * nd;
  for (hx_lid e = 0; e < m->num_elem; e++) {
    for (int c = 0; c < 8; c++) {
      int a = hx_corner_lex(nd, c);
      for (int d = 0; d < 3; d++) lo->x[((size_t)e * 3 + d) * 8 + c] = m->x[((size_t)e * 3 + d) * n3 + a];
      lo->node_id[(size_t)e * 8 + c] = m->vert_id[(size_t)e * 8 + c];
      lo->vert_id[(size_t)e * 8 + c] = m->vert_id[(size_t)e * 8 + c];
    }
    lo->elem_attr[e] = m->elem_attr[e];
  }
  int rc = HX_OK;
  for (hx_lid f = 0; f < m->num_faces && !rc; f++)
    rc = hx_mesh_add_face(lo, m->faces[f].elem, m->faces[f].face, m->faces[f].bid, m->faces[f].surf);
  for (int b = 1; b < m->num_bnames && !rc; b++)
    if (m->bnames[b]) rc = hx_mesh_set_bname(lo, b, m->bnames[b]);
  for (int i = 0; i < m->num_surfaces && !rc; i++) rc = hx_mesh_add_surface(lo, &m->surfaces[i], NULL);
  if (rc) {
    hx_mesh_destroy(&lo);
    return rc;
  }
  *out = lo;
  return HX_OK;
}

int hx_tmop_coarse_start(hx_tmop *tm, hx_tmop_result *res) {
  hx_mesh *m = tm->mesh;
  const hx_tmop_opts *o = &tm->o;
  double t0 = hx_tmop_now();
  int rank = hx_comm_rank(m->comm);
  FILE *log = rank == 0 ? o->log : NULL;
  hx_mesh *lo = NULL;
  double *lo_x0 = NULL, *xsave = NULL;
  size_t nlo = (size_t)m->num_elem * 3 * 8;
  int rc = hx_tmop_linear_copy(m, &lo);
  if (!rc) rc = hx_malloc((nlo + 1) * sizeof *lo_x0, &lo_x0);
  if (!rc) rc = hx_malloc((tm->nE + 1) * sizeof *xsave, &xsave);
  if (!rc) rc = hx_malloc((tm->nL + 1) * sizeof *tm->xstart, &tm->xstart);
  if (rc) goto done;
  memcpy(lo_x0, lo->x, nlo * sizeof *lo_x0);
  hx_tmop_opts lo_o = *o;
  lo_o.coarse_order = 0;
  lo_o.untangle = 0; /* an inverted chord copy skips the start (design 4) */
  lo_o.keep_sj = lo_o.keep_aspect = lo_o.transfer_keep = lo_o.repair_sj = 0;
  lo_o.elem_ok = NULL, lo_o.elem_ok_ctx = NULL, lo_o.fixed_node = NULL;
  if (log) fprintf(log, "coarse start: the order-1 copy first\n");
  hx_tmop_result lr;
  rc = hx_tmop_optimize(lo, &lo_o, &lr);
  if (rc == HX_ERR_INVALID_MESH) { /* the chord elements fold: start from the mesh as given */
    if (log) fprintf(log, "coarse start skipped: the order-1 copy has det J <= 0 at a quadrature point\n");
    hx_error_clear();
    hx_free(&tm->xstart);
    rc = HX_OK;
    goto done;
  }
  if (rc) goto done;
  res->coarse_order = 1;
  res->coarse_newton = lr.newton_iters;
  res->coarse_linear = lr.linear_iters;
  res->coarse_energy = lr.energy;
  memcpy(xsave, m->x, tm->nE * sizeof *xsave);
  int rounds = 0;
  rc = hx_tmop_transfer(m, lo, lo_x0, o, &res->coarse_held, &rounds);
  if (!rc) {
    hx_lmap_gather(tm->lmap, m, 3, m->x, tm->xstart);
    for (hx_lid i = 0; i < tm->nl; i++)
      for (int c = 0; c < 3; c++) tm->xstart[3 * (size_t)i + c] /= tm->lmap->mult[i];
  }
  memcpy(m->x, xsave, tm->nE * sizeof *xsave); /* the mesh as given until the solve ends */
  if (log && !rc)
    fprintf(log, "coarse start: order 1 in %d Newton steps (energy %.6e, %s), carried to order %d, %lld elements held back\n",
            lr.newton_iters, lr.energy, lr.stop_reason, m->order, res->coarse_held);
done:
  if (rc) hx_free(&tm->xstart);
  hx_mesh_destroy(&lo);
  hx_free(&lo_x0);
  hx_free(&xsave);
  res->coarse_time = hx_tmop_now() - t0;
  return rc;
}
