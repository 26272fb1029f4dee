/* The pebble mesher, step 7: the order-N node numbering shared by every rank (pnum_*): the ids
   of the nodes of every element, from the facet nodes, edges and faces they lie on. */
#include <stdlib.h>

#include "pebble_impl.h"

static int pnum_layers(const pnum *P, hx_lid c) { return c < P->n ? P->L[0] : P->L[1 + (c - P->n)]; }

void pb_pnum_free(pnum *P) {
  hx_free(&P->cf_start), hx_free(&P->cf), hx_free(&P->qedge), hx_free(&P->nQ);
  hx_free(&P->vbase), hx_free(&P->ebase), hx_free(&P->hbase), hx_free(&P->fbase);
}

int pb_pnum_build(pnum *P, const builder *bd) {
  hx_lid n = P->n, nc = P->ncell;
  HX_CALL(hx_malloc((size_t)(nc + 1) * sizeof *P->cf_start, &P->cf_start));
  HX_CALL(hx_malloc((size_t)(3 * bd->nf + 1) * sizeof *P->cf, &P->cf));
  /* cell -> facets: a sphere's facets, and the plane facets of an extruded wall */
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    P->cf_start[bd->sparent[F->a] + 1]++;
    if (!bd->smask[F->b]) P->cf_start[bd->sparent[F->b] + 1]++;
    if (F->wall >= 0 && bd->w[F->wall].kind && P->L[bd->w[F->wall].kind]) P->cf_start[n + bd->w[F->wall].kind]++;
  }
  for (hx_lid i = 0; i < nc; i++) P->cf_start[i + 1] += P->cf_start[i];
  int32_t *fill = NULL, *stamp = NULL, *tstamp = NULL;
  HX_CALL(hx_malloc((size_t)(nc + 1) * sizeof *fill, &fill));
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    int32_t a = F->a;
    P->cf[P->cf_start[a] + fill[a]++] = (int32_t)(2 * f);
    if (!bd->smask[F->b]) P->cf[P->cf_start[F->b] + fill[F->b]++] = (int32_t)(2 * f + 1); /* reversed */
    if (F->wall >= 0 && bd->w[F->wall].kind && P->L[bd->w[F->wall].kind]) {
      hx_lid c = n + bd->w[F->wall].kind - 1;
      P->cf[P->cf_start[c] + fill[c]++] = (int32_t)(2 * f + 1); /* extruded away from the bed */
    }
  }
  hx_free(&fill);
  /* tessellation edges */
  int rc = hx_malloc((size_t)(4 * P->nq + 1) * sizeof *P->qedge, &P->qedge);
  emap em = {0};
  if (!rc) rc = pb_emap_init(&em, 4 * P->nq + 16);
  P->nte = 0;
  for (hx_lid q = 0; q < P->nq && !rc; q++)
    for (int e = 0; e < 4; e++) {
      hx_lid sl = pb_emap_slot(&em, bd->Q[q].x[e], bd->Q[q].x[(e + 1) % 4]);
      if (em.mid[sl] < 0) em.mid[sl] = (int32_t)P->nte++;
      P->qedge[4 * q + e] = em.mid[sl];
    }
  pb_emap_free(&em);
  if (!rc) rc = hx_malloc((size_t)(nc + 1) * sizeof *P->vbase, &P->vbase);
  if (!rc) rc = hx_malloc((size_t)(nc + 1) * sizeof *P->ebase, &P->ebase);
  if (!rc) rc = hx_malloc((size_t)(nc + 1) * sizeof *P->hbase, &P->hbase);
  if (!rc) rc = hx_malloc((size_t)(nc + 1) * sizeof *P->fbase, &P->fbase);
  if (!rc) rc = hx_malloc((size_t)(nc + 1) * sizeof *P->nQ, &P->nQ);
  if (!rc) rc = hx_malloc((size_t)(P->nfn + 1) * sizeof *stamp, &stamp);
  if (!rc) rc = hx_malloc((size_t)(P->nte + 1) * sizeof *tstamp, &tstamp);
  if (rc) {
    hx_free(&stamp), hx_free(&tstamp);
    return rc;
  }
  for (hx_lid i = 0; i < P->nfn; i++) stamp[i] = -1;
  for (hx_lid i = 0; i < P->nte; i++) tstamp[i] = -1;
  /* per-cell counts, then the prefix sums */
  P->vbase[0] = P->nfn, P->ebase[0] = 0;
  P->hbase[0] = 0, P->fbase[0] = P->nq;
  P->xs = bd->plan->o->contact_layers ? 1 : 0;
  int64_t nvert = 0;
  for (hx_lid c = 0; c < nc; c++) {
    int64_t nN = 0, nQ = 0, nT = 0, nE = 0, Lc = pnum_layers(P, c);
    for (int32_t z = P->cf_start[c]; z < P->cf_start[c + 1]; z++) {
      const facet *F = &bd->F[P->cf[z] / 2];
      for (int32_t q = F->q0; q < F->q0 + F->nq; q++) {
        nQ++;
        int lay = c < n ? bd->Q[q].lay : QL_SWEPT;
        nE += lay == QL_ONE ? 1 : lay == QL_TRANS ? Lc + 1 : Lc;
        for (int v = 0; v < 4; v++) {
          int32_t x = bd->Q[q].x[v], t = P->qedge[4 * q + v];
          if (stamp[x] != (int32_t)c) stamp[x] = (int32_t)c, nN++;
          if (tstamp[t] != (int32_t)c) tstamp[t] = (int32_t)c, nT++;
        }
      }
    }
    P->nQ[c] = (int32_t)nQ;
    P->vbase[c + 1] = P->vbase[c] + Lc * nN;
    P->ebase[c + 1] = P->ebase[c] + nE;
    P->hbase[c + 1] = P->hbase[c] + Lc * nT;
    P->fbase[c + 1] = P->fbase[c] + Lc * nQ + (Lc + P->xs) * nT;
    nvert += Lc * nN;
  }
  /* the layer edges come after the tessellation, vertical and span edges */
  P->spanbase = P->nte + nvert;
  for (hx_lid c = 0; c <= nc; c++) P->hbase[c] += P->nte + nvert * (1 + P->xs);
  hx_free(&stamp), hx_free(&tstamp);
  HX_CHECK(P->vbase[nc] < INT32_MAX, HX_ERR_INPUT, "pebble: %lld order-1 nodes exceed the 32-bit node index",
           (long long)P->vbase[nc]);
  return HX_OK;
}

/* the edges (in the order of the generic loop: direction, then lower corner) and faces of the
   cap element E of a transition quad in cell c (pb_cap_corner): an edge between the two inner
   nodes is the inner chord's copy at its level; one up a node's column its vertical edge, or
   from the sphere to the facet its span edge; a face at one node the cap face of its radial
   edge, else the inner chord's side face of its layer or its span face */
static void pnum_cap_ids(const pnum *P, const builder *bd, const elinfo *E, hx_lid c, int Lc, const int32_t *tloc,
                         const hx_gid *vid, int64_t *eid, int64_t *fid, int (*ec)[2]) {
  /* 10 parameters: the numbering, the element and its cell, the cell's scratch and the outputs */
  const quad *Qd = &bd->Q[E->quad];
  int32_t nodec[8];
  int lev[8], sw = Lc + P->xs;
  for (int k = 0; k < 8; k++) pb_cap_corner(Qd, E->rev, k, &nodec[k], &lev[k]);
  int32_t tin = P->qedge[4 * E->quad + 2]; /* the inner chord, x[2] -> x[3] */
  int64_t side0 = P->fbase[c] + (int64_t)Lc * P->nQ[c];
  int ne_ = 0;
  for (int dir = 0; dir < 3; dir++)
    for (int c0 = 0; c0 < 8; c0++) {
      if (c0 >> dir & 1) continue;
      int c1 = c0 | 1 << dir, lo = lev[c0] < lev[c1] ? c0 : c1;
      ec[ne_][0] = c0, ec[ne_][1] = c1;
      if (nodec[c0] != nodec[c1]) {
        int d = Lc - lev[c0];
        eid[ne_++] = d == 0 ? tin : P->hbase[c] + (int64_t)Lc * tloc[tin] + d - 1;
      } else {
        int span = abs(lev[c0] - lev[c1]) > 1;
        eid[ne_++] = (span ? P->spanbase : P->nte) + (vid[lo] - P->nfn);
      }
    }
  for (int fd = 0; fd < 3; fd++)
    for (int sd = 0; sd < 2; sd++) {
      int cs[4], n4 = 0;
      for (int k = 0; k < 8; k++)
        if ((k >> fd & 1) == sd) cs[n4++] = k;
      int lmin = 3, lmax = 0;
      for (int k = 0; k < 4; k++) lmin = lev[cs[k]] < lmin ? lev[cs[k]] : lmin, lmax = lev[cs[k]] > lmax ? lev[cs[k]] : lmax;
      if (fd == 0) { /* at one node: the radial edge's cap face */
        int32_t tr = P->qedge[4 * E->quad + (nodec[cs[0]] == Qd->x[3] ? 3 : 1)];
        fid[2 * fd + sd] = side0 + (int64_t)sw * tloc[tr] + Lc;
      } else {
        fid[2 * fd + sd] = side0 + (int64_t)sw * tloc[tin] + (lmax - lmin > 1 ? Lc : Lc - lmax);
      }
    }
}

/* Bound of the order-N node ids of pb_pnum_ids_range: corners, edge, face and interior
   nodes in turn (num_elem_global elements). */
int64_t pb_pnum_id_bound(const pnum *P, int N, hx_gid num_elem_global) {
  int64_t N1 = N - 1, V = P->vbase[P->ncell], nE = P->hbase[P->ncell], nF = P->fbase[P->ncell];
  return V + nE * N1 + nF * N1 * N1 + (int64_t)num_elem_global * N1 * N1 * N1;
}

/* Order-N node ids of the local elements of m (its vert_id and elem_offset, the global index of
   local element 0) in the block blk, from the shared numbering alone: the same ids for any
   number of ranks and any blocks. */
void pb_pnum_ids_range(const pnum *P, const builder *bd, const elinfo *ei, const hx_mesh *m, int N, const pnum_block *blk) {
  const hx_gid *vert_id = m->vert_id;
  hx_gid elem_offset = m->elem_offset, *nid_out = blk->nid;
  hx_lid e0 = blk->e0, cnt = blk->cnt;
  int32_t *tloc = blk->tloc, *qloc = blk->qloc;
  int nd = N + 1, N1 = N - 1;
  size_t npe = (size_t)nd * nd * nd;
  int64_t V = P->vbase[P->ncell], nE = P->hbase[P->ncell], nF = P->fbase[P->ncell];
  int64_t ebase = V, fbase = V + nE * N1, ibase = fbase + nF * N1 * N1;
  static const int lex_to_quad[4] = {0, 1, 3, 2};
  static const int face_edge[4] = {3, 1, 0, 2}; /* element side face -> quad edge (inverse of edge_face) */
  hx_lid cur = -1;
  for (hx_lid e = e0; e < e0 + cnt; e++) {
    const elinfo *E = &ei[e];
    hx_lid c = E->cell >= 0 ? E->cell : P->n + (-1 - E->cell);
    int Lc = pnum_layers(P, c);
    if (c != cur) { /* local numbering of the cell's tessellation edges and quads, in sweep order */
      cur = c;
      int32_t nt = 0, nqc = 0;
      for (int32_t z = P->cf_start[c]; z < P->cf_start[c + 1]; z++) {
        const facet *F = &bd->F[P->cf[z] / 2];
        for (int32_t q = F->q0; q < F->q0 + F->nq; q++) {
          qloc[q] = nqc++;
          for (int v = 0; v < 4; v++) tloc[P->qedge[4 * q + v]] = -1;
        }
      }
      for (int32_t z = P->cf_start[c]; z < P->cf_start[c + 1]; z++) {
        const facet *F = &bd->F[P->cf[z] / 2];
        for (int32_t q = F->q0; q < F->q0 + F->nq; q++)
          for (int v = 0; v < 4; v++)
            if (tloc[P->qedge[4 * q + v]] < 0) tloc[P->qedge[4 * q + v]] = nt++;
      }
    }
    /* distance (in layers) of the bottom (xi3 = 0) and top faces from the facet */
    const quad *Qe = &bd->Q[E->quad];
    int lay = E->cell >= 0 ? Qe->lay : QL_SWEPT, sw = Lc + P->xs; /* sw: side faces per edge */
    int one = lay == QL_ONE, cap = lay == QL_TRANS && E->layer == Lc;
    int db = E->cell >= 0 ? Lc - E->layer : E->layer + 1, dt = db - 1;
    if (one) db = Lc, dt = 0;
    const hx_gid *vid = vert_id + (size_t)e * 8;
    /* tessellation edge of the quad edge between lex corners c0, c1 of one level */
    int64_t eid[12], fid[6];
    int ec[12][2];
    int ne_ = 0;
    if (cap) {
      pnum_cap_ids(P, bd, E, c, Lc, tloc, vid, eid, fid, ec);
      ne_ = 12;
    }
    for (int dir = 0; dir < 3 && !cap; dir++)
      for (int c0 = 0; c0 < 8; c0++) {
        if (c0 >> dir & 1) continue;
        int c1 = c0 | 1 << dir;
        ec[ne_][0] = c0, ec[ne_][1] = c1;
        int64_t id;
        if (dir == 2) {
          /* from the far (bottom) node towards the facet; a one-layer column's span edge */
          id = (one ? P->spanbase : P->nte) + (vid[c0] - P->nfn);
        } else {
          int v0 = lex_to_quad[c0 & 3], v1 = lex_to_quad[c1 & 3];
          int eq = v1 == (v0 + 1) % 4 ? v0 : v1;
          int eo = E->rev ? (6 - eq) % 4 : eq;
          int32_t te = P->qedge[4 * E->quad + eo];
          int d = c0 < 4 ? db : dt;
          id = d == 0 ? te : P->hbase[c] + (int64_t)Lc * tloc[te] + d - 1;
        }
        eid[ne_++] = id;
      }
    for (int f = 0; f < 6 && !cap; f++) {
      if (f >= 4) {
        int d = f == 4 ? db : dt;
        fid[f] = d == 0 ? E->quad : P->fbase[c] + (int64_t)Lc * qloc[E->quad] + d - 1;
      } else {
        int eq = face_edge[f];
        int eo = E->rev ? (6 - eq) % 4 : eq;
        int32_t te = P->qedge[4 * E->quad + eo];
        fid[f] = P->fbase[c] + (int64_t)Lc * P->nQ[c] + (int64_t)sw * tloc[te] + (one ? Lc : dt);
      }
    }
    hx_gid *nid = nid_out + (size_t)(e - e0) * npe;
    int64_t g = elem_offset + e;
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          int ijk[3] = {i, j, k}, nb = 0, bmask = 0;
          for (int d = 0; d < 3; d++)
            if (ijk[d] == 0 || ijk[d] == N) nb++, bmask |= 1 << d;
          hx_gid id;
          if (nb == 3) {
            id = vid[(i ? 1 : 0) + (j ? 2 : 0) + (k ? 4 : 0)];
          } else if (nb == 2) {
            int dir = 0;
            while (bmask >> dir & 1) dir++;
            int c0 = 0;
            for (int d = 0; d < 3; d++)
              if (d != dir && ijk[d] == N) c0 |= 1 << d;
            int c1 = c0 | 1 << dir, slot = 0;
            while (ec[slot][0] != c0 || ec[slot][1] != c1) slot++;
            int t = vid[c0] < vid[c1] ? ijk[dir] : N - ijk[dir];
            id = ebase + eid[slot] * N1 + (t - 1);
          } else if (nb == 1) {
            int fd = 0;
            while (!(bmask >> fd & 1)) fd++;
            int f = 2 * fd + (ijk[fd] == N), u = fd == 0 ? 1 : 0, w = fd == 2 ? 1 : 2;
            int side = ijk[fd] == N ? 1 << fd : 0;
            hx_gid cv[2][2];
            for (int pu = 0; pu < 2; pu++)
              for (int qw = 0; qw < 2; qw++) cv[pu][qw] = vid[side | pu << u | qw << w];
            int pu0 = 0, qw0 = 0;
            for (int pu = 0; pu < 2; pu++)
              for (int qw = 0; qw < 2; qw++)
                if (cv[pu][qw] < cv[pu0][qw0]) pu0 = pu, qw0 = qw;
            int p = pu0 ? N - ijk[u] : ijk[u], q = qw0 ? N - ijk[w] : ijk[w];
            if (cv[1 - pu0][qw0] > cv[pu0][1 - qw0]) {
              int t = p;
              p = q, q = t;
            }
            id = fbase + fid[f] * N1 * N1 + (p - 1) + (int64_t)N1 * (q - 1);
          } else {
            id = ibase + g * N1 * N1 * N1 + (i - 1) + (int64_t)N1 * ((j - 1) + (int64_t)N1 * (k - 1));
          }
          nid[hx_lex(nd, i, j, k)] = id;
        }
  }
}

/* Order-N node ids of every local element of m (vert_id and elem_offset set). */
int pb_pnum_ids(const pnum *P, const builder *bd, const elinfo *ei, hx_mesh *m) {
  int32_t *tloc = NULL, *qloc = NULL;
  int rc = hx_malloc((size_t)(P->nte + 1) * sizeof *tloc, &tloc);
  if (!rc) rc = hx_malloc((size_t)(P->nq + 1) * sizeof *qloc, &qloc);
  if (!rc) pb_pnum_ids_range(P, bd, ei, m, m->order, &(pnum_block){0, m->num_elem, tloc, qloc, m->node_id});
  hx_free(&tloc), hx_free(&qloc);
  return rc;
}
