/* The pebble mesher's diagnostics: the quality classes of the worst elements (--debug classify)
   and the time and memory after each stage (--debug mem). */
#include "pebble_impl.h"
#include <time.h>

/* whether element e is in the comma-separated list s (--debug elems=LIST: elements to describe) */
static int listed(const char *s, long long e) {
  while (s && *s) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s) return 0;
    if (v == e) return 1;
    s = *end == ',' ? end + 1 : end;
  }
  return 0;
}

/* Quality analysis (--debug classify, o->debug.classify set): Nek5000 scaled Jacobian and aspect
   ratio of the order-N mesh by class of element (where its quad lies in the facet
   tessellation, on a wall facet or not, extrusion), with counts below 0.1 / 0.3 and
   of aspect > 20, and per radial layer; printed to stderr. */
int pb_classify_report(const builder *bd, const elinfo *ei, const hx_mesh *m) {
  const hx_pebble_opts *o = bd->plan->o;
  int layers = o->layers;
  static const char *kname[QK_N] = {"fan", "fan in ring", "ring (no bridge)", "bridge ring (circle)", "bridge outer ring"};
  hx_elem_quality *q = NULL;
  hx_quality_opts qo;
  hx_quality_opts_default(&qo);
  qo.num_worst = 0;
  hx_quality_report r;
  HX_CALL(hx_malloc((size_t)m->num_elem * sizeof *q, &q));
  int rc = hx_quality_mesh(m, &qo, q, &r);
  if (rc) {
    hx_free(&q);
    return rc;
  }
  hx_quality_report_free(&r);
  enum { NC = 2 * QK_N + 4 + 64, XL = 2 * QK_N + 4 }; /* XL: the first layer's class */
  hx_lid cnt[NC] = {0}, lo1[NC] = {0}, lo3[NC] = {0}, asp[NC] = {0};
  double mn[NC], amax[NC];
  for (int c = 0; c < NC; c++) mn[c] = INFINITY, amax[c] = 0;
  /* classify=2[,A]: also list the elements below 0.05 or above aspect A (100) */
  const char *spec = o->debug.classify;
  int list = spec[0] == '2';
  double alist = list && spec[1] == ',' ? atof(spec + 2) : 100;
  const char *elems = o->debug.elems; /* and these */
  for (hx_lid e = 0; e < m->num_elem; e++) {
    const elinfo *E = &ei[e];
    int cls[2] = {2 * QK_N, -1};
    if (E->cell >= 0) {
      int32_t lo = pb_quad_facet(bd, E->quad);
      cls[0] = bd->Q[E->quad].kind + (bd->F[lo].wall >= 0 ? QK_N : 0);
      if (bd->Q[E->quad].lay != QL_SWEPT) /* --contact-layers one: one layer, transition layers, caps */
        cls[0] = 2 * QK_N + (bd->Q[E->quad].lay == QL_ONE ? 1 : E->layer < layers ? 2 : 3);
      if ((list && (q[e].scaled_jac < 0.05 || q[e].aspect > alist)) || listed(elems, (long long)e)) {
        const facet *F = &bd->F[lo];
        fprintf(stderr,
                "  e%lld SJ %.3f asp %.1f kind %d facet %d (a %d b %d ghost %d wall %d nv %d nq %d) gap/d %.4f rb/d %.3f quad %d "
                "layer %d\n",
                (long long)e, q[e].scaled_jac, q[e].aspect, bd->Q[E->quad].kind, (int)lo, F->a, F->b, bd->smask[F->b], F->wall,
                F->nv, F->nq, bd->smask[F->b] ? -1.0 : pb_pair_gap(bd, F->a, F->b) / (2 * bd->sr[F->a]),
                F->bridge >= 0 ? bd->B[F->bridge].rb / (2 * bd->sr[F->a]) : 0.0, E->quad - F->q0, E->layer);
      }
      if (bd->Q[E->quad].lay == QL_SWEPT) cls[1] = XL + E->layer; /* layer 0 on the sphere */
    }
    for (int t = 0; t < 2; t++) {
      int c = cls[t];
      if (c < 0) continue;
      cnt[c]++;
      if (q[e].scaled_jac < 0.1) lo1[c]++;
      if (q[e].scaled_jac < 0.3) lo3[c]++;
      if (q[e].aspect > 20) asp[c]++;
      mn[c] = fmin(mn[c], q[e].scaled_jac);
      amax[c] = fmax(amax[c], q[e].aspect);
    }
  }
  fprintf(stderr, "%-34s %8s %8s %8s %8s %10s %8s\n", "class", "elems", "SJ<0.1", "SJ<0.3", "asp>20", "min SJ", "max asp");
  static const char *lname[3] = {"one layer (circle ring)", "transition ring: layers", "transition ring: caps"};
  for (int c = 0; c < XL + layers; c++) {
    if (!cnt[c]) continue;
    char name[64];
    if (c < 2 * QK_N) snprintf(name, sizeof name, "%s%s", kname[c % QK_N], c >= QK_N ? " [wall facet]" : "");
    else if (c == 2 * QK_N) snprintf(name, sizeof name, "inlet/outlet extrusion");
    else if (c < XL) snprintf(name, sizeof name, "%s", lname[c - 2 * QK_N - 1]);
    else snprintf(name, sizeof name, "  swept layer %d (0: on the sphere)", c - XL);
    fprintf(stderr, "%-34s %8lld %8lld %8lld %8lld %10.3e %8.1f\n", name, (long long)cnt[c], (long long)lo1[c], (long long)lo3[c],
            (long long)asp[c], mn[c], amax[c]);
  }
  hx_free(&q);
  return HX_OK;
}

/* --debug mem (on): the time, peak and current RSS after each stage, on stderr */
void pb_stage_mem(int on, const char *stage) {
  if (!on) return;
  FILE *f = fopen("/proc/self/status", "r");
  char line[256], out[256] = "";
  static struct timespec t0;
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  if (!t0.tv_sec) t0 = t;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6) || !strncmp(line, "VmRSS:", 6)) {
      line[strcspn(line, "\n")] = 0;
      strncat(out, line, sizeof out - strlen(out) - 2);
      strcat(out, " ");
    }
  if (f) fclose(f);
  fprintf(stderr, "pebble mem %-14s %7.2f s  %s\n", stage,
          (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec), out);
}
