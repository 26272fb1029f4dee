/* The pebble-bed mesher (docs/pebble.md): the driver. The options are
   digested once into a pb_plan (pb_plan_build: the derived values computed once) that every
   step reads through its builder. The steps, and the file of this folder that holds each
   (their shared types and functions: pebble_impl.h):

   1. sites (sites.c): the spheres plus ghost sites mirrored across every container wall
      they are near (and across pairs of walls near corners), so that the power diagram
      of all sites, restricted to the real cells, fills the container;
   2. power diagram through Qhull (meshers/qhull/power3d.c; diagram.c): vertices = power
      centres of the regular tetrahedra, facets = rings of tetrahedra around each edge that
      has a real site;
   3. clean-up (diagram.c): vertices incident to a ghost are snapped onto its wall(s);
      coincident vertices are merged, then short diagram edges collapsed (union-find,
      guarded so that no facet pinches and no contact facet disappears); facets left with
      < 3 vertices are dropped;
   4. tessellation (tessellate.c): every facet is tessellated once: its boundary loop
      (vertices + edge midpoints, midpoints keyed by the edge, so neighbouring facets agree),
      then either a fan from a centre (n-gon -> n quads), or around a bridge (contact or near
      contact) a ring of 2n quads whose inner loop is the bridge circle, with optional extra
      rings of geometrically graded radius; the variants are scored by their swept columns
      (on the OpenMP threads and the MPI ranks), the nodes inside each facet optionally
      smoothed, and a facet no variant sweeps without folding repaired by a clean-up round
      with its vertices guarded (smooth.c);
   5. sweep (sweep.c): every facet quad is swept to each real sphere owning the facet:
      radial projection for ordinary nodes, along the bridge axis for bridge-circle nodes,
      split into graded layers; at order N the same sweep map places every point, its
      edges spaced by volume where that is better (ordern.c: the whole order-N mesh, or the
      map attached lazily);
   6. plane facets are extruded into inlet/outlet sections (here);
   7. boundary faces get ids (pebble, chamfer, wall, inlet, outlet) and surfaces (here); the
      order-N node ids shared by every rank come from numbering.c, the diagnostics of
      --debug from report.c. */
#include "pebble_impl.h"
#include <time.h>

void pb_builder_free(builder *bd) {
  hx_free(&bd->sx), hx_free(&bd->sr), hx_free(&bd->sparent), hx_free(&bd->smask);
  hx_free(&bd->X), hx_free(&bd->nbridge), hx_free(&bd->nmask);
  hx_free(&bd->F), hx_free(&bd->fv), hx_free(&bd->Q), hx_free(&bd->B);
  hx_free(&bd->nfoot), hx_free(&bd->FR);
  hx_free(&bd->qseg), hx_free(&bd->segsph), hx_free(&bd->segon);
  hx_free(&bd->fbad), hx_free(&bd->fscore), hx_free(&bd->vguard), hx_free(&bd->vnode), hx_free(&bd->prechoice),
      hx_free(&bd->choice);
  hx_free(&bd->tpart);
}

/* The plan of a run: o's values (borrowed) and what follows from them and the bed, computed once
   (o->layers in 1..64 and bed->n >= 2 checked before). */
void pb_plan_build(pb_plan *pl, const hx_pebble_opts *o, const hx_pebble_bed *bed) {
  memset(pl, 0, sizeof *pl);
  pl->o = o;
  pl->bed = bed;
  double dmean = 0;
  for (hx_lid i = 0; i < bed->n; i++) dmean += 2 * bed->r[i];
  pl->dmean = dmean / bed->n;
  pb_grading(o->layers, o->ratio, o->first_layer, pl->sl);
  pl->NE[0] = o->inlet_len > 0 ? o->inlet_layers : 0;
  pl->NE[1] = o->outlet_len > 0 ? o->outlet_layers : 0;
  for (int k = 0; k < 2; k++)
    if (pl->NE[k]) pb_grading(pl->NE[k], o->extrude_ratio, 0, pl->se[k]);
}

/* "FILE: sphere I (x, y, z)" naming the real sphere of a site in the input errors of the steps */
const char *pb_sphere_name(const builder *bd, int32_t site, char *buf, size_t len) {
  const hx_pebble_bed *bed = bd->plan->bed;
  int32_t i = bd->sparent[site];
  const double *x = bed->xyz + 3 * (size_t)i;
  snprintf(buf, len, "%s: sphere %d (%g, %g, %g)", bed->path[0] ? bed->path : "bed", (int)i + 1, x[0], x[1], x[2]);
  return buf;
}

/* a boundary face of the order-1 mesh being swept: element, local face, kind (1 pebble, 2 chamfer,
   3 wall, 4 inlet, 5 outlet), surface */
typedef struct pface {
  int32_t e, f, kind, surf;
} pface;

/* the order-1 mesh as the sweep fills it (hx_mesher_pebble: sweep_cell, extrude_cell) */
typedef struct sweep_out {
  const hx_pebble_opts *o;
  const hx_pebble_bed *bed;
  hx_mesh *m;
  hx_lid ne; /* elements so far */
  pface *pf; /* owned: the boundary faces so far */
  hx_lid npf, cappf;
  double *Xl; /* the column nodes of the cell being swept (ids xbase..) */
  int64_t xbase;
  hx_lid nfacetnodes;       /* node ids below: facet nodes (bd->X) */
  int32_t *stamp, *colbase; /* [nfacetnodes] the cell that gave a facet node its column, its first id */
  elinfo *einfo;            /* [elements] for the sweep map, or NULL */
  const pnum *P;
  hx_lid c_lo; /* this rank's first cell */
  int L;
  const int *NE;
  int debug;
} sweep_out;

/* the sweep's locals from w (the macros below use them), and back */
#define SWEEP_OUT_BIND                                                                                                           \
  const hx_pebble_opts *o = w->o;                                                                                                \
  hx_mesh *m = w->m;                                                                                                             \
  hx_lid ne = w->ne, npf = w->npf, cappf = w->cappf, nfacetnodes = w->nfacetnodes, c_lo = w->c_lo;                               \
  pface *pf = w->pf;                                                                                                             \
  double *Xl = w->Xl;                                                                                                            \
  int64_t xbase = w->xbase;                                                                                                      \
  int32_t *stamp = w->stamp, *colbase = w->colbase;                                                                              \
  elinfo *einfo = w->einfo;                                                                                                      \
  const pnum P = *w->P;                                                                                                          \
  int L = w->L, debug = w->debug, rc = HX_OK;                                                                                    \
  const int *NE = w->NE;                                                                                                         \
  (void)o, (void)c_lo, (void)debug, (void)L, (void)nfacetnodes;
#define SWEEP_OUT_STORE w->ne = ne, w->npf = npf, w->cappf = cappf, w->pf = pf, w->xbase = xbase;

#define NODE_X(id) ((id) < (int32_t)nfacetnodes ? bd->X + 3 * (size_t)(id) : Xl + 3 * (size_t)((id)-xbase))
#define ADD_ELEM(cn, attr)                                                                                                       \
  do {                                                                                                                           \
    for (int c_ = 0; c_ < 8; c_++) {                                                                                             \
      const double *xv_ = NODE_X((cn)[c_]);                                                                                      \
      m->vert_id[8 * ne + c_] = m->node_id[8 * ne + c_] = (cn)[c_];                                                              \
      for (int d_ = 0; d_ < 3; d_++) hx_mesh_elem_x(m, ne, d_)[c_] = xv_[d_];                                                    \
    }                                                                                                                            \
    m->elem_attr[ne] = (attr);                                                                                                   \
    ne++;                                                                                                                        \
  } while (0)
#define ADD_FACE(E_, F_, K_, S_)                                                                                                 \
  do {                                                                                                                           \
    if ((rc = pb_grow(&pf, &cappf, npf + 1, sizeof *pf))) break;                                                                 \
    pf[npf].e = (int32_t)(E_), pf[npf].f = (F_), pf[npf].kind = (K_), pf[npf].surf = (S_);                                       \
    npf++;                                                                                                                       \
  } while (0)
/* the container's walls: its cylinder (or the box's four sides), then the bottom (inlet) and
   top (outlet) planes */
static void build_walls(builder *bd, const hx_pebble_opts *o) {
  /* walls */
  if (o->container == HX_PEBBLE_CYLINDER) {
    wall *w = &bd->w[bd->nw++];
    w->cyl = 1;
    w->p[0] = o->cx, w->p[1] = o->cy, w->p[2] = 0;
    w->n[2] = 1;
    w->R = o->cyl_radius;
  } else {
    for (int c = 0; c < 2; c++)
      for (int side = 0; side < 2; side++) {
        wall *w = &bd->w[bd->nw++];
        w->p[c] = side ? o->box_hi[c] : o->box_lo[c];
        w->n[c] = side ? 1 : -1;
      }
  }
  {
    wall *w = &bd->w[bd->nw++];
    w->p[2] = o->zlo, w->n[2] = -1, w->kind = 1;
    w = &bd->w[bd->nw++];
    w->p[2] = o->zhi, w->n[2] = 1, w->kind = 2;
  }
}

/* the variant scoring shared out before the tessellation is built (pb_tessellate then builds
   the choices, bd->forced): over the ranks, or over the threads of one rank */
static int share_scoring(hx_comm comm, builder *bd, hx_pebble_stats *st) {
  const hx_pebble_opts *o = bd->plan->o;
  int rc = HX_OK;
  if (!rc && hx_comm_size(comm) > 1) {
    /* the variant scoring (most of the tessellation time) is shared: each rank scores
       a contiguous range of facets, the kept variants are combined (max over ranks of
       -1 elsewhere), and every rank then builds the whole tessellation in facet order
       with those variants, i.e. the same nodes and quads as one rank scoring them all */
    int np = hx_comm_size(comm), me = hx_comm_rank(comm);
    hx_lid nn0 = bd->nn, nb0 = bd->nb, nf = bd->nf;
    int64_t *ch = NULL;
    hx_pebble_stats scratch = *st;
    rc = hx_malloc((size_t)(nf + 1) * sizeof *ch, &ch);
    hx_lid lo = nf * me / np, hi = nf * (me + 1) / np;
    if (!rc && lo < hi) rc = pb_score_facets(bd, lo, hi, &scratch);
    if (!rc) /* the kept variant, + 1000 where the facet is left with inverted columns */
      for (hx_lid f = 0; f < nf; f++) ch[f] = f >= lo && f < hi ? bd->choice[f] + 1000 * bd->fbad[f] : -1;
    int rca = hx_comm_agree(comm, rc);
    if (rca && !rc) rc = HX_ERROR(rca, "pebble: tessellation failed on another rank");
    if (!rc) rc = hx_comm_max_int64(comm, ch, (int)nf);
    /* the scores stay with the rank that computed them (-inf elsewhere): arc_worst combines the
       few it needs */
    for (hx_lid f = 0; !rc && f < nf; f++)
      if (f < lo || f >= hi) bd->fscore[f] = -INFINITY;
    if (!rc) {
      for (hx_lid f = 0; f < nf; f++) bd->choice[f] = (int8_t)(ch[f] % 1000), bd->fbad[f] = ch[f] >= 1000;
      bd->nn = nn0, bd->nb = nb0, bd->nq = 0;
      bd->forced = 1;
    }
    hx_free(&ch);
    pb_stage_mem(o->debug.mem, "variant scoring");
  } else if (!rc && pb_nthreads() > 1 && bd->nf > 0) { /* one rank, several threads */
    rc = pb_score_facets(bd, 0, bd->nf, st);
    bd->forced = 1;
    pb_stage_mem(o->debug.mem, "variant scoring");
  }
  return rc;
}

/* A diagram round's wall-arc trial (pb_mark_arc_splits): the facets it cuts for, their worst
   score before the cuts, and the cuts before them, to go back to. */
typedef struct arc_trial {
  hx_lid n, *f;
  double q0;
  int64_t *skey;
  int8_t *sseg;
  hx_lid nskey;
} arc_trial;

static void arc_trial_free(arc_trial *a) { hx_free(&a->f), hx_free(&a->skey), hx_free(&a->sseg); }

/* the worst score of the trial's facets, over the ranks (a rank holds the scores it computed) */
static int arc_worst(hx_comm comm, const builder *bd, const arc_trial *a, double *q) {
  double *v;
  HX_CALL(hx_malloc(((size_t)a->n + 1) * sizeof *v, &v));
  for (hx_lid k = 0; k < a->n; k++) v[k] = bd->fscore[a->f[k]];
  int rc = hx_comm_size(comm) > 1 ? hx_comm_max_double(comm, v, (int)a->n) : HX_OK;
  *q = INFINITY;
  for (hx_lid k = 0; k < a->n; k++) *q = fmin(*q, v[k]);
  hx_free(&v);
  return rc;
}

/* the trial's start: its facets (the same on every rank: fbad is shared), their worst score,
   the cuts so far, and the arc cuts; *ncut the edges cut (0: no trial) */
static int arc_trial_begin(hx_comm comm, builder *bd, arc_trial *a, hx_lid *ncut) {
  *ncut = 0;
  for (hx_lid f = 0; f < bd->nf; f++) a->n += pb_arc_facet(bd, f);
  if (!a->n) return HX_OK;
  HX_CALL(hx_malloc((size_t)a->n * sizeof *a->f, &a->f));
  a->n = 0;
  for (hx_lid f = 0; f < bd->nf; f++)
    if (pb_arc_facet(bd, f)) a->f[a->n++] = f;
  HX_CALL(arc_worst(comm, bd, a, &a->q0));
  a->nskey = bd->nskey;
  if (a->nskey) {
    HX_CALL(hx_malloc((size_t)a->nskey * sizeof *a->skey, &a->skey));
    HX_CALL(hx_malloc((size_t)a->nskey * sizeof *a->sseg, &a->sseg));
    memcpy(a->skey, bd->skey, (size_t)a->nskey * sizeof *a->skey);
    memcpy(a->sseg, bd->sseg, (size_t)a->nskey * sizeof *a->sseg);
  }
  return pb_mark_arc_splits(bd, ncut);
}

/* the trial's end, after the build with its cuts: they stay if their facets' worst score rose,
   else the cuts before come back and *rebuild asks for the build without them */
static int arc_trial_end(hx_comm comm, builder *bd, arc_trial *a, int *rebuild) {
  double q1;
  HX_CALL(arc_worst(comm, bd, a, &q1));
  *rebuild = !(q1 > a->q0);
  if (*rebuild) {
    hx_free(&bd->skey), hx_free(&bd->sseg);
    bd->skey = a->skey, bd->sseg = a->sseg, bd->nskey = a->nskey;
    a->skey = NULL, a->sseg = NULL;
  }
  return HX_OK;
}

/* steps 2 to 4: the diagram and its tessellation, in rounds: where a facet has no tessellation
   that sweeps without inverted columns, the clean-up is run again with its vertices guarded
   (pb_repair_guard; at most MAX_REPAIR rounds more); st on entry: the sites' counts */
static int diagram_rounds(hx_comm comm, builder *bd, const hx_pebble_bed *bed, hx_pebble_stats *st, double *t_diag) {
  const hx_pebble_opts *o = bd->plan->o;
  hx_pebble_stats st0 = *st;
  fsave sv = {0};
  int rc = HX_OK;
  for (int round = 0; !rc; round++) {
    struct timespec ta, tb;
    clock_gettime(CLOCK_MONOTONIC, &ta);
    *st = st0;
    st->num_repair_rounds = round;
    rc = pb_build_diagram(bd, bed, st);
    pb_stage_mem(o->debug.mem, "diagram");
    clock_gettime(CLOCK_MONOTONIC, &tb);
    *t_diag += (double)(tb.tv_sec - ta.tv_sec) + 1e-9 * (double)(tb.tv_nsec - ta.tv_nsec);
    if (!rc) rc = hx_malloc((size_t)(bd->nf + 1) * sizeof *bd->fbad, &bd->fbad);
    if (!rc) rc = hx_malloc((size_t)(bd->nf + 1) * sizeof *bd->fscore, &bd->fscore);
    if (!rc) rc = hx_malloc((size_t)(bd->nf + 1) * sizeof *bd->choice, &bd->choice);
    if (!rc && round > 0) rc = pb_fsave_lookup(&sv, bd);
    hx_free(&bd->skey), hx_free(&bd->sseg);
    bd->nskey = 0;
    hx_lid nn_diag = bd->nn;
    hx_pebble_stats st_diag = *st;
    /* up to two more passes with edges cut: --aspect's (pb_mark_splits), then the cylinder edges
       of wall facets left folded (pb_mark_arc_splits) */
    int aspect_done = !(o->aspect > 0), arc = 0; /* arc: 0 not tried, 1 built with its cuts, 2 decided */
    hx_lid cut_edges = 0, arc_edges = 0;
    arc_trial at = {0};
    for (;;) {
      if (!rc) rc = share_scoring(comm, bd, st);
      if (!rc) rc = pb_tessellate(bd, st);
      bd->forced = 0;
      hx_lid ncut = 0;
      int rebuild = 0;
      if (!rc && !aspect_done) { /* --aspect: cut the edges about contacts that need more segments */
        aspect_done = 1;
        rc = pb_mark_splits(bd, &ncut);
        cut_edges = ncut, rebuild = ncut > 0;
      }
      if (!rc && arc == 1) {
        arc = 2;
        rc = arc_trial_end(comm, bd, &at, &rebuild);
        if (rebuild) arc_edges = 0;
      }
      if (!rc && !rebuild && !arc) {
        arc = 1;
        rc = arc_trial_begin(comm, bd, &at, &ncut);
        arc_edges = ncut, rebuild = ncut > 0;
        if (!ncut) arc = 2;
      }
      if (!rc && rebuild) { /* the same scoring and build, now with the cuts */
        bd->nn = nn_diag, bd->nq = 0, bd->nb = 0;
        *st = st_diag;
        st->num_cut_edges = cut_edges, st->num_arc_cut_edges = arc_edges;
        for (hx_lid k = 0; k < bd->nskey; k++) st->num_cut_segments += bd->sseg[k] - 2;
        for (hx_lid f = 0; f < bd->nf; f++) bd->F[f].q0 = bd->F[f].nq = 0, bd->F[f].bridge = -1, bd->F[f].centre = -1;
        hx_free(&bd->prechoice);
        continue;
      }
      break;
    }
    arc_trial_free(&at);
    hx_free(&bd->prechoice);
    if (rc) break;
    hx_lid nbad = 0;
    for (hx_lid f = 0; f < bd->nf; f++) nbad += bd->fbad[f];
    if (round == 0) st0.num_repaired_facets = nbad;
    if (!nbad || round == MAX_REPAIR || !bd->vnode) break;
    rc = pb_repair_guard(bd);
    if (!rc) rc = pb_fsave_store(&sv, bd);
    /* the next round starts from the diagram again */
    bd->nn = 0, bd->nf = 0, bd->nfv = 0, bd->nq = 0, bd->nb = 0;
    hx_free(&bd->fbad), hx_free(&bd->fscore), hx_free(&bd->choice);
  }
  hx_free(&sv.key), hx_free(&sv.hash), hx_free(&sv.choice);
  return rc;
}

/* the analytic surfaces, in the order hx_pebble.h gives: spheres, walls, the extrusions' end
   planes (end_surf), bridges; their indices kept in the walls and bridges */
static int make_surfaces(builder *bd, const hx_pebble_bed *bed, hx_surface **out, int *nout, int end_surf[2]) {
  const hx_pebble_opts *o = bd->plan->o;
  const int *NE = bd->plan->NE;
  /* surfaces: spheres, walls, extrusion end planes, bridges */
  int nsurf = 0;
  hx_surface *surf = NULL;
  HX_CALL(hx_malloc(((size_t)bed->n + (size_t)bd->nw + 2 + (size_t)bd->nb) * sizeof *surf, &surf));
  {
    for (hx_lid i = 0; i < bed->n; i++) {
      hx_surface *S = &surf[nsurf++];
      S->type = HX_SURF_SPHERE;
      memcpy(S->p, bed->xyz + 3 * i, 3 * sizeof(double));
      S->r = bed->r[i];
    }
    for (int k = 0; k < bd->nw; k++) {
      hx_surface *S = &surf[nsurf];
      bd->w[k].surf = nsurf++;
      S->type = bd->w[k].cyl ? HX_SURF_CYLINDER : HX_SURF_PLANE;
      memcpy(S->p, bd->w[k].p, sizeof S->p);
      memcpy(S->n, bd->w[k].n, sizeof S->n);
      S->r = bd->w[k].R;
    }
    for (int k = 0; k < 2; k++)
      if (NE[k]) {
        hx_surface *S = &surf[nsurf];
        end_surf[k] = nsurf++;
        S->type = HX_SURF_PLANE;
        S->n[2] = k ? 1 : -1;
        S->p[2] = k ? o->zhi + o->outlet_len : o->zlo - o->inlet_len;
      }
    for (hx_lid k = 0; k < bd->nb; k++) {
      hx_surface *S = &surf[nsurf];
      bd->B[k].surf = nsurf++;
      S->type = HX_SURF_CYLINDER;
      memcpy(S->p, bd->B[k].p, sizeof S->p);
      memcpy(S->n, bd->B[k].u, sizeof S->n);
      S->r = bd->B[k].rb;
    }
  }
  *out = surf, *nout = nsurf;
  return HX_OK;
}

/* step 5 for one sphere cell a: its column nodes (the facet nodes' feet and layers, in Xl), its
   elements and boundary faces into w */
static int sweep_cell(const builder *bd, sweep_out *w, hx_lid a) {
  SWEEP_OUT_BIND
  const hx_pebble_bed *bed = w->bed;
  const double(*se)[65] = bd->plan->se;
  (void)se;
  const double *ca = bed->xyz + 3 * a;
  double ra = bed->r[a];
  int32_t nextcol = (int32_t)P.vbase[a];
  xbase = P.vbase[a];
  for (int32_t z = P.cf_start[a]; z < P.cf_start[a + 1] && !rc; z++) {
    const facet *F = &bd->F[P.cf[z] / 2];
    for (int32_t qi = F->q0; qi < F->q0 + F->nq && !rc; qi++)
      for (int v = 0; v < 4 && !rc; v++) {
        int32_t x = bd->Q[qi].x[v];
        if (stamp[x] == (int32_t)a) continue;
        stamp[x] = (int32_t)a;
        colbase[x] = nextcol;
        nextcol += L;
        double X[3], y[3], r[3];
        memcpy(X, bd->X + 3 * x, sizeof X);
        for (int c = 0; c < 3; c++) r[c] = X[c] - ca[c];
        int32_t br = bd->nbridge[x];
        double rl = norm3(r);
        if (br < 0 && !(bd->nfoot && bd->nfoot[x] >= 0) && !(rl > ra * (1 + 1e-9))) { /* radial foot */
          rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: a facet node at (%g, %g, %g) lies inside sphere %d (distance %g, radius %g)",
                        X[0], X[1], X[2], (int)a, rl, ra);
          break;
        }
        pb_node_foot(bd, ca, ra, (int32_t)a, x, y);
        double sx[65];
        pb_column_grading(bd->plan, dist3(X, y), ra, sx);
        for (int k = 0; k < L; k++) {
          double *q = Xl + 3 * (size_t)(colbase[x] + k - xbase);
          for (int c = 0; c < 3; c++) q[c] = y[c] + sx[k] * (X[c] - y[c]);
          if (k == 0 && br < 0) /* exactly on the sphere */
            for (int c = 0; c < 3; c++) q[c] = y[c];
          if (k > 0 && bd->tpart && bd->tpart[x] >= 0) /* a transition ring's inner node: pulled */
            pb_trans_node(bd, ca, ra, (int32_t)a, x, q, k);
        }
      }
    if (rc) break;
    int rev = P.cf[z] & 1;
    for (int32_t qi = F->q0; qi < F->q0 + F->nq && !rc; qi++) {
      const quad *Qd = &bd->Q[qi];
      int32_t qx[4];
      uint8_t cham = 0;
      for (int v = 0; v < 4; v++) qx[v] = rev ? Qd->x[3 - v] : Qd->x[v];
      for (int e = 0; e < 4; e++)
        if (Qd->chamfer >> e & 1) cham |= (uint8_t)(1u << (rev ? (6 - e) % 4 : e));
      /* the elements of the quad's columns: L layers; one (QL_ONE); L layers and the cap (QL_TRANS) */
      int nel = Qd->lay == QL_ONE ? 1 : Qd->lay == QL_TRANS ? L + 1 : L;
      for (int k = 0; k < nel && !rc; k++) {
        int32_t cn[8];
        if (k == L) { /* the cap (pb_cap_corner) */
          for (int c = 0; c < 8; c++) {
            int32_t x;
            int lv;
            pb_cap_corner(Qd, rev, c, &x, &lv);
            cn[c] = lv == L ? x : colbase[x] + lv;
          }
        } else
          for (int v = 0; v < 4; v++) {
            int32_t x = qx[v];
            cn[quad_to_lex[v]] = colbase[x] + k;
            cn[4 + quad_to_lex[v]] = k + 1 == L || Qd->lay == QL_ONE ? x : colbase[x] + k + 1;
          }
        ADD_ELEM(cn, 1);
        hx_lid e = ne - 1;
        if (einfo) einfo[e].quad = qi, einfo[e].cell = (int32_t)a, einfo[e].layer = k, einfo[e].rev = rev;
        if (debug) {
          double P8[24];
          const int32_t c8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
          for (int c = 0; c < 8; c++) memcpy(P8 + 3 * c, NODE_X(cn[c]), 3 * sizeof(double));
          double dm = pb_min_corner_det(P8, c8);
          if (dm <= 0)
            fprintf(stderr,
                    "bad elem %lld: cell %d facet %d (b=%d ghost=%d wall=%d bridge=%d nv=%d nq=%d) quad %d layer %d at (%.3f "
                    "%.3f %.3f) det %.3e\n",
                    (long long)(P.ebase[c_lo] + e), (int)a, P.cf[z] / 2, (int)F->b, bd->smask[F->b], F->wall, F->bridge, F->nv,
                    F->nq, qi - F->q0, k, P8[0], P8[1], P8[2], dm);
        }
        if (k == L) continue; /* the cap has no boundary face */
        if (k == 0) ADD_FACE(e, 4, 1, (int32_t)a);
        for (int ed = 0; ed < 4 && !rc; ed++)
          if (cham >> ed & 1) ADD_FACE(e, edge_face[ed], 2, bd->B[F->bridge].surf);
        if (!rc && (k == L - 1 || Qd->lay == QL_ONE) && F->wall >= 0) {
          const wall *W = &bd->w[F->wall];
          int extruded = (W->kind == 1 && NE[0]) || (W->kind == 2 && NE[1]);
          if (!extruded) ADD_FACE(e, 5, 3 + W->kind, W->surf);
        }
      }
    }
  }
  SWEEP_OUT_STORE
  return rc;
}

/* step 6: the extrusion of the plane facets of pseudo-cell n + k (k 0: inlet, 1: outlet) into w */
static int extrude_cell(const builder *bd, sweep_out *w, int k, const int end_surf[2]) {
  SWEEP_OUT_BIND
  const hx_pebble_bed *bed = w->bed;
  const double(*se)[65] = bd->plan->se;
  hx_lid c = bed->n + k;
  double len = k ? o->outlet_len : o->inlet_len, dir = k ? 1 : -1;
  int32_t nextcol = (int32_t)P.vbase[c];
  xbase = P.vbase[c];
  for (int32_t z = P.cf_start[c]; z < P.cf_start[c + 1] && !rc; z++) {
    const facet *F = &bd->F[P.cf[z] / 2];
    for (int32_t qi = F->q0; qi < F->q0 + F->nq && !rc; qi++) {
      const quad *Qd = &bd->Q[qi];
      for (int v = 0; v < 4; v++) {
        int32_t x = Qd->x[v];
        if (stamp[x] == (int32_t)c) continue;
        stamp[x] = (int32_t)c;
        colbase[x] = nextcol;
        nextcol += NE[k];
        for (int l = 1; l <= NE[k]; l++) {
          double *q = Xl + 3 * (size_t)(colbase[x] + l - 1 - xbase);
          memcpy(q, bd->X + 3 * x, 3 * sizeof(double));
          q[2] = (k ? o->zhi : o->zlo) + dir * len * se[k][l];
        }
      }
      int32_t qx[4];
      uint8_t em[4];
      for (int v = 0; v < 4; v++) qx[v] = Qd->x[3 - v];
      for (int e = 0; e < 4; e++) em[e] = Qd->emask[(6 - e) % 4];
      for (int l = 0; l < NE[k] && !rc; l++) {
        int32_t cn[8];
        for (int v = 0; v < 4; v++) {
          int32_t x = qx[v];
          cn[quad_to_lex[v]] = colbase[x] + l;                      /* deeper: level l+1 */
          cn[4 + quad_to_lex[v]] = l == 0 ? x : colbase[x] + l - 1; /* level l */
        }
        ADD_ELEM(cn, 2 + k);
        hx_lid e = ne - 1;
        if (einfo) einfo[e].quad = qi, einfo[e].cell = -1 - k, einfo[e].layer = l, einfo[e].rev = 1;
        if (l == NE[k] - 1) ADD_FACE(e, 4, 4 + k, end_surf[k]);
        for (int ed = 0; ed < 4 && !rc; ed++) {
          uint8_t side = em[ed] & (uint8_t) ~((1u << (bd->nw - 1)) | (1u << (bd->nw - 2)));
          if (!side) continue;
          int wk = 0;
          while (!(side >> wk & 1)) wk++;
          ADD_FACE(e, edge_face[ed], 3, bd->w[wk].surf);
        }
      }
    }
  }
  SWEEP_OUT_STORE
  return rc;
}

#undef ADD_ELEM
#undef ADD_FACE
#undef NODE_X
#undef SWEEP_OUT_BIND
#undef SWEEP_OUT_STORE

/* step 7: the boundary faces with their ids, contiguous from 1 in the order pebble, chamfer,
   wall, inlet, outlet (the kinds present on any rank; collective), and the surfaces */
static int add_boundary(hx_comm comm, hx_mesh *m, const pface *pf, hx_lid npf, const hx_surface *surf, int nsurf) {
  int rc = HX_OK;
  {
    /* boundary ids contiguous from 1 in the order pebble, chamfer, wall, inlet, outlet
       (the kinds present on any rank) */
    static const char *names[5] = {"pebble", "chamfer", "wall", "inlet", "outlet"};
    int64_t present[6] = {0};
    int bid[6] = {0}, next = 1;
    for (hx_lid i = 0; i < npf; i++) present[pf[i].kind] = 1;
    rc = hx_comm_max_int64(comm, present, 6);
    for (int k = 1; k <= 5 && !rc; k++)
      if (present[k]) {
        bid[k] = next;
        rc = hx_mesh_set_bname(m, next++, names[k - 1]);
      }
    for (hx_lid i = 0; i < npf && !rc; i++) rc = hx_mesh_add_face(m, pf[i].e, pf[i].f, bid[pf[i].kind], pf[i].surf);
    for (int k = 0; k < nsurf && !rc; k++) rc = hx_mesh_add_surface(m, &surf[k], NULL);
  }
  return rc;
}

/* the solid volume the bridges add, exact per bridge (pb_bridge_solid) */
static double bridge_volume(const builder *bd) {
  double vol = 0;
  for (hx_lid f = 0; f < bd->nf; f++) {
    const facet *F = &bd->F[f];
    if (F->bridge < 0) continue;
    const bridge *BR = &bd->B[F->bridge];
    vol += pb_bridge_solid(bd, BR, BR->b < 0 && F->wall >= 0 ? &bd->w[F->wall] : NULL);
  }
  return vol;
}

/* the numbering shared by every rank (P) and this rank's range of cells [*lo, *hi) */
static int distribute(hx_comm comm, const builder *bd, const hx_pebble_bed *bed, pnum *P, hx_lid *lo, hx_lid *hi,
                      hx_pebble_stats *st) { /* 7 parameters: the numbering, the range and the counts it gives */
  int L = bd->plan->o->layers;
  const int *NE = bd->plan->NE;
  /* ---- distribution over the ranks --------------------------------------------
     Pseudo-cells c: the spheres 0..n-1, then the inlet (n) and outlet (n+1)
     extrusions; each is a list of (facet, reversed) in facet order, swept into Lc
     layers (L for a sphere, NE[k] for an extrusion). Nodes, elements and the order-N
     edges/faces are numbered cell by cell from prefix sums of per-cell counts that
     every rank computes from the replicated tessellation, so a rank sweeps only its
     own contiguous range of cells and still gets the ids and element order of a
     1-rank run (pnum). */
  memset(P, 0, sizeof *P);
  P->n = bed->n;
  P->ncell = bed->n + 2;
  P->L[0] = L, P->L[1] = NE[0], P->L[2] = NE[1];
  P->nfn = bd->nn;
  P->nq = bd->nq;
  int rc = pb_pnum_build(P, bd);
  int nrank = hx_comm_size(comm), myrank = hx_comm_rank(comm);
  hx_lid c_lo = 0, c_hi = 0;
  if (!rc) {
    /* cell c goes to the rank whose share of the global element range holds its first element */
    int64_t etot = P->ebase[P->ncell];
    while (c_lo < P->ncell && (etot ? P->ebase[c_lo] * nrank / etot : 0) < myrank) c_lo++;
    c_hi = c_lo;
    while (c_hi < P->ncell && (etot ? P->ebase[c_hi] * nrank / etot : 0) < myrank + 1) c_hi++;
    if (myrank == nrank - 1) c_hi = P->ncell;
    st->elems_bulk = (hx_lid)P->ebase[bed->n];
    st->elems_inlet = (hx_lid)(P->ebase[bed->n + 1] - P->ebase[bed->n]);
    st->elems_outlet = (hx_lid)(P->ebase[bed->n + 2] - P->ebase[bed->n + 1]);
  }
  *lo = c_lo, *hi = c_hi;
  return rc;
}

/* hx_mesher_pebble_copy on the bed as it is meshed (the gap model's shrunk copy), st's volumes set */
static int mesh_bed(hx_comm comm, const hx_pebble_bed *bed, const hx_pebble_opts *o, int lower_order, hx_mesh **out,
                    hx_mesh **lower, hx_pebble_stats *stats) { /* 7 parameters: hx_mesher_pebble_copy's */
  *out = NULL;
  hx_pebble_stats st = *stats;
  struct timespec t0, t1, t2;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  HX_CHECK(o->layers >= 1 && o->layers <= 64, HX_ERR_INPUT, "pebble: --layers must be in 1..64");
  HX_CHECK(bed->n >= 2, HX_ERR_INPUT, "pebble: a bed needs at least two spheres");
  HX_CHECK(!(o->smooth > 0 && o->split > 1), HX_ERR_INPUT,
           "pebble: --smooth and --split %d do not go together (the smoothing scores the parent quads; "
           "their split children fold)",
           o->split);
  HX_CHECK(!o->contact_layers || (o->layers == 3 && o->split <= 1), HX_ERR_INPUT,
           "pebble: --contact-layers one needs --layers 3 and no --split (got --layers %d, --split %d)", o->layers, o->split);
  pb_plan plan;
  pb_plan_build(&plan, o, bed);
  builder B;
  memset(&B, 0, sizeof B);
  builder *bd = &B;
  bd->plan = &plan;
  build_walls(bd, o);
  pb_stage_mem(o->debug.mem, "start");
  int rc = pb_build_sites(bd, bed, o);
  st.num_spheres = bed->n;
  st.num_ghosts = bd->ns - bd->nreal;
  /* diagram and tessellation; where a facet has no tessellation that sweeps without
     inverted columns, the clean-up is run again with its vertices guarded (pb_repair_guard) */
  double t_diag = 0;
  if (!rc) rc = hx_power3d_compute(bd->sx, bd->sr, bd->ns, &bd->pd); /* kept for a repair round */
  {
    struct timespec tq;
    clock_gettime(CLOCK_MONOTONIC, &tq);
    t_diag = (double)(tq.tv_sec - t0.tv_sec) + 1e-9 * (double)(tq.tv_nsec - t0.tv_nsec); /* sites and Qhull */
  }
  if (!rc) rc = diagram_rounds(comm, bd, bed, &st, &t_diag);
  hx_free(&bd->fbad), hx_free(&bd->fscore), hx_free(&bd->choice), hx_free(&bd->prechoice);
  hx_free(&bd->skey), hx_free(&bd->sseg);
  hx_power3d_destroy(&bd->pd);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (!rc) rc = pb_smooth_facets(bd, o->smooth, &st);
  if (!rc) rc = pb_split_quads(bd, o->split);
  int mo = pb_map_order(o, o->order);
  if (!rc && (pb_spacing_on(o->ring_volume, mo) || pb_spacing_on(o->edge_volume, mo))) rc = pb_ring_edges(bd);
  if (!rc) rc = pb_trans_mark(bd);
  for (hx_lid f = 0; f < bd->nf && !rc && bd->tpart; f++) { /* the contacts meshed with the transition */
    const facet *F = &bd->F[f];
    hx_lid nt = 0, sides = bd->smask[F->b] ? 1 : 2;
    for (int32_t q = F->q0; q < F->q0 + F->nq; q++)
      nt += bd->Q[q].lay == QL_ONE ? 1 : bd->Q[q].lay == QL_TRANS ? o->layers + 1 : 0;
    st.num_trans_facets += nt > 0;
    st.num_trans_elems += nt * sides;
  }
  pb_stage_mem(o->debug.mem, "tessellation");
  hx_mesh *m = NULL;
  int32_t *stamp = NULL, *colbase = NULL;
  elinfo *einfo = NULL;
  hx_lid ne = 0, cape = 0;
  int L = o->layers;
  int debug = o->debug.facets;
  const double *s = plan.sl;
  const int *NE = plan.NE;
  const double(*se)[65] = plan.se;
  if (!rc && (pb_spacing_on(o->ring_volume, mo) || pb_spacing_on(o->edge_volume, mo)) && o->order > 1) {
    sweep_ctx sc = {bd, bed, o, s, {se[0], se[1]}, NE, NULL, 0};
    rc = pb_ring_points_guard(&sc, mo, comm, &st.num_ring_even, &st.num_edge_even);
  }
  hx_surface *surf = NULL;
  int nsurf = 0, end_surf[2] = {-1, -1};
  if (!rc) rc = make_surfaces(bd, bed, &surf, &nsurf, end_surf);
  pnum P;
  memset(&P, 0, sizeof P);
  hx_lid c_lo = 0, c_hi = 0;
  if (!rc) rc = distribute(comm, bd, bed, &P, &c_lo, &c_hi, &st);
  int myrank = hx_comm_rank(comm);
  /* the elements go straight into the mesh; the column nodes of one cell at a time
     live in Xl (ids xbase..) */
  int64_t xmax = 1;
  double *Xl = NULL;
  hx_lid nfacetnodes = bd->nn;
  for (hx_lid c = c_lo; c < c_hi && !rc; c++)
    if (P.vbase[c + 1] - P.vbase[c] > xmax) xmax = P.vbase[c + 1] - P.vbase[c];
  if (!rc) rc = hx_malloc((size_t)xmax * 3 * sizeof *Xl, &Xl);
  if (!rc) rc = hx_malloc((size_t)nfacetnodes * sizeof *stamp, &stamp);
  if (!rc) rc = hx_malloc((size_t)nfacetnodes * sizeof *colbase, &colbase);
  if (!rc)
    for (hx_lid i = 0; i < nfacetnodes; i++) stamp[i] = -1;
  if (!rc) {
    cape = (hx_lid)(P.ebase[c_hi] - P.ebase[c_lo]);
    if (o->order > 1) rc = hx_malloc((size_t)(cape + 1) * sizeof *einfo, &einfo); /* for the sweep map */
  }
  {
    int rca = hx_comm_agree(comm, rc);
    if (rca && !rc) rc = HX_ERROR(rca, "pebble: meshing failed on another rank");
  }
  if (!rc) rc = hx_mesh_create(comm, 1, cape, &m);
  sweep_out w = {bd->plan->o, bed, m, 0, NULL, 0, 0, Xl, 0, nfacetnodes, stamp, colbase, einfo, &P, c_lo, L, NE, debug};
  /* sweep of this rank's sphere cells */
  hx_progress prog;
  hx_lid a_hi = c_hi < bed->n ? c_hi : bed->n;
  hx_progress_start(&prog, "sweep", a_hi > c_lo ? a_hi - c_lo : 0);
  for (hx_lid a = c_lo; a < a_hi && !rc; a++) {
    rc = sweep_cell(bd, &w, a);
    hx_progress_update(&prog, a + 1 - c_lo);
  }
  hx_progress_finish(&prog);
  /* extrusion of the plane facets (pseudo-cells n, n+1) */
  for (int k = 0; k < 2 && !rc; k++) {
    hx_lid c = bed->n + k;
    if (c < c_lo || c >= c_hi || !NE[k]) continue;
    rc = extrude_cell(bd, &w, k, end_surf);
  }
  ne = w.ne;
  pface *pf = w.pf;
  hx_lid npf = w.npf;
  if (!rc && ne != cape)
    rc = HX_ERROR(HX_ERR_INTERNAL, "pebble: rank %d swept %lld elements, the counts said %lld", myrank, (long long)ne,
                  (long long)cape);
  hx_free(&stamp), hx_free(&colbase);
  pb_stage_mem(o->debug.mem, "sweep");
  clock_gettime(CLOCK_MONOTONIC, &t2);
  hx_free(&Xl);
  /* boundary faces, names, surfaces (collective: every rank gets here, with rc agreed) */
  {
    int rca = hx_comm_agree(comm, rc);
    if (rca && !rc) rc = HX_ERROR(rca, "pebble: meshing failed on another rank");
  }
  if (!rc) rc = add_boundary(comm, m, pf, npf, surf, nsurf);
  hx_free(&pf);
  pb_stage_mem(o->debug.mem, "order-1 mesh");
  hx_mesh *hi = NULL; /* the whole order-N mesh (not lazy) */
  if (!rc && o->order > 1 && !o->lazy) {
    sweep_ctx sc = {bd, bed, o, s, {se[0], se[1]}, NE, einfo, 0};
    rc = pb_sweep_curve(&sc, m, o->order, &hi);
    if (!rc) rc = pb_pnum_ids(&P, bd, einfo, hi);
    if (!rc && o->debug.classify) rc = pb_classify_report(bd, einfo, hi);
  }
  /* the order-P copy, whole (also where the order-N mesh is lazy): the same tessellation, the
     order-N map sampled at order P */
  if (!rc && lower_order > 0) {
    hx_pebble_opts ol;
    hx_pebble_opts_lower(o, lower_order, 0, &ol);
    sweep_ctx sl = {bd, bed, &ol, s, {se[0], se[1]}, NE, einfo, 0};
    rc = pb_sweep_curve(&sl, m, lower_order, lower);
    if (!rc) rc = pb_pnum_ids(&P, bd, einfo, *lower);
  }
  if (hi && !rc) {
    hx_mesh_destroy(&m);
    m = hi;
  } else hx_mesh_destroy(&hi);
  {
    int rca = hx_comm_agree(comm, rc);
    if (rca && !rc) rc = HX_ERROR(rca, "pebble: meshing failed on another rank");
  }
  st.t_diagram = t_diag;
  st.t_mesh = (double)(t2.tv_sec - t0.tv_sec) + 1e-9 * (double)(t2.tv_nsec - t0.tv_nsec) - t_diag;
  st.bridge_volume = bridge_volume(bd);
  hx_free(&stamp), hx_free(&colbase), hx_free(&Xl);
  /* lazy order N: the order-1 mesh keeps the tessellation, numbering and element
     records (moved into its hx_mesh_lazy) to evaluate the sweep map block by block */
  if (!rc && o->order > 1 && o->lazy) {
    sweep_ctx sc = {bd, bed, o, s, {se[0], se[1]}, NE, einfo, 0};
    rc = pb_plazy_attach(m, &sc, &P, o->order);
    if (!rc) einfo = NULL;
    rc = hx_comm_agree(comm, rc);
  }
  pb_pnum_free(&P);
  hx_free(&einfo), hx_free(&surf);
  pb_builder_free(bd);
  if (rc) {
    hx_mesh_destroy(&m);
    if (lower) hx_mesh_destroy(lower);
    return rc;
  }
  *stats = st;
  *out = m;
  return HX_OK;
}

void hx_pebble_opts_lower(const hx_pebble_opts *o, int P, int attempt, hx_pebble_opts *out) {
  int N = o->order;
  *out = *o;
  out->order = P;
  out->lazy = 0;
  if (attempt == 0) {
    out->map_order = N;
  } else {
    int *f[3] = {&out->radial_volume, &out->ring_volume, &out->edge_volume};
    for (int k = 0; k < 3; k++)
      if (*f[k] < 0) *f[k] = N >= 3;
  }
}

int hx_mesher_pebble(hx_comm comm, const hx_pebble_bed *bed, const hx_pebble_opts *o, hx_mesh **out, hx_pebble_stats *stats) {
  return hx_mesher_pebble_copy(comm, bed, o, 0, out, NULL, stats);
}

int hx_mesher_pebble_copy(hx_comm comm, const hx_pebble_bed *bed_in, const hx_pebble_opts *o_in, int lower_order, hx_mesh **out,
                          hx_mesh **lower, hx_pebble_stats *stats) {
  *out = NULL;
  if (lower) *lower = NULL;
  HX_CHECK(!lower_order || (lower && lower_order > 1 && lower_order < o_in->order), HX_ERR_INPUT,
           "pebble: an order-%d copy needs a mesh of a higher order (got order %d)", lower_order, o_in->order);
  hx_pebble_stats st;
  memset(&st, 0, sizeof st);
  HX_CHECK(bed_in->n >= 2, HX_ERR_INPUT, "pebble: a bed needs at least two spheres");
  /* the contact model: the gap model meshes a copy of the bed whose spheres are shrunk apart to
     the gap (the surfaces written carry the reduced radii), with no bridge */
  hx_pebble_opts ogap = *o_in;
  const hx_pebble_opts *o = o_in;
  const hx_pebble_bed *bed = bed_in;
  hx_pebble_bed *shrunk = NULL;
  HX_CALL(hx_pebble_bed_volume(bed_in, o_in, &st.vol_container, &st.vol_solid));
  if (o_in->contact == HX_PEBBLE_GAP) {
    hx_pebble_shrink sh;
    HX_CALL(hx_pebble_contact_shrink(bed_in, o_in, &shrunk, &sh));
    double cont, solid;
    int rc0 = hx_pebble_bed_volume(shrunk, o_in, &cont, &solid);
    if (rc0) {
      hx_pebble_bed_destroy(&shrunk);
      return rc0;
    }
    st.vol_shrink = st.vol_solid - solid;
    st.num_shrunk = sh.num_shrunk, st.max_shrink = sh.max_shrink, st.mean_shrink = sh.mean_shrink;
    ogap.bridge_gap = ogap.wall_gap = 0; /* every gap is at least contact_gap: no bridge */
    o = &ogap;
    bed = shrunk;
  }
  int rc = mesh_bed(comm, bed, o, lower_order, out, lower, &st);
  hx_pebble_bed_destroy(&shrunk);
  if (!rc && stats) *stats = st;
  return rc;
}
