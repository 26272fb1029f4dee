/* The pebble mesher, step 1: the sites (spheres and their ghosts mirrored across the container
   walls), the walls and the geometry helpers every step uses (snap, power owner, cylinder arcs). */
#include "pebble_impl.h"

int pb_grow(void *pp, hx_lid *cap, hx_lid need, size_t elsize) {
  if (need <= *cap) return HX_OK;
  hx_lid nc = *cap ? *cap : 64;
  while (nc < need) nc *= 2;
  HX_CALL(hx_realloc((size_t)nc * elsize, pp));
  *cap = nc;
  return HX_OK;
}

int pb_add_node(builder *bd, const double x[3], uint8_t mask, int32_t br, int32_t *id) {
  hx_lid old = bd->capn;
  HX_CALL(pb_grow(&bd->X, &bd->capn, bd->nn + 1, 3 * sizeof(double)));
  if (bd->capn != old) { /* the side arrays follow X's capacity */
    HX_CALL(hx_realloc((size_t)bd->capn * sizeof *bd->nbridge, &bd->nbridge));
    HX_CALL(hx_realloc((size_t)bd->capn * sizeof *bd->nmask, &bd->nmask));
  }
  memcpy(bd->X + 3 * bd->nn, x, 3 * sizeof(double));
  bd->nbridge[bd->nn] = br;
  bd->nmask[bd->nn] = mask;
  *id = bd->nn++;
  return HX_OK;
}

/* ---- walls ---------------------------------------------------------------- */

double pb_wall_dist(const wall *w, const double x[3]) {
  if (w->cyl) {
    double rho = hypot(x[0] - w->p[0], x[1] - w->p[1]);
    return w->R - rho;
  }
  double d[3] = {x[0] - w->p[0], x[1] - w->p[1], x[2] - w->p[2]};
  return -dot3(d, w->n);
}

static void wall_reflect(const wall *w, const double x[3], double y[3]) {
  if (w->cyl) {
    double dx = x[0] - w->p[0], dy = x[1] - w->p[1], rho = hypot(dx, dy);
    double ex = 1, ey = 0;
    if (rho > 0) ex = dx / rho, ey = dy / rho;
    double r2 = 2 * w->R - rho;
    y[0] = w->p[0] + r2 * ex;
    y[1] = w->p[1] + r2 * ey;
    y[2] = x[2];
    return;
  }
  double d[3] = {x[0] - w->p[0], x[1] - w->p[1], x[2] - w->p[2]};
  double s = 2 * dot3(d, w->n);
  for (int c = 0; c < 3; c++) y[c] = x[c] - s * w->n[c];
}

/* closest point of the wall (radial projection for the cylinder) */
void pb_wall_project(const wall *w, double x[3]) {
  if (w->cyl) {
    double dx = x[0] - w->p[0], dy = x[1] - w->p[1], rho = hypot(dx, dy);
    if (rho > 0) {
      x[0] = w->p[0] + w->R * dx / rho;
      x[1] = w->p[1] + w->R * dy / rho;
    }
    return;
  }
  double d[3] = {x[0] - w->p[0], x[1] - w->p[1], x[2] - w->p[2]};
  double s = dot3(d, w->n);
  for (int c = 0; c < 3; c++) x[c] -= s * w->n[c];
}

/* move x along the unit direction u onto the wall (the root nearest x) */
void pb_wall_project_along(const wall *w, double x[3], const double u[3]) {
  if (!w->cyl) {
    double d[3] = {x[0] - w->p[0], x[1] - w->p[1], x[2] - w->p[2]};
    double un = dot3(u, w->n);
    if (fabs(un) < 1e-12) {
      pb_wall_project(w, x);
      return;
    }
    double t = -dot3(d, w->n) / un;
    for (int c = 0; c < 3; c++) x[c] += t * u[c];
    return;
  }
  /* |(x + t u - p)_xy| = R */
  double dx = x[0] - w->p[0], dy = x[1] - w->p[1];
  double A = u[0] * u[0] + u[1] * u[1], Bq = 2 * (dx * u[0] + dy * u[1]), C = dx * dx + dy * dy - w->R * w->R;
  if (A < 1e-14) {
    pb_wall_project(w, x);
    return;
  }
  double disc = Bq * Bq - 4 * A * C;
  if (disc < 0) disc = 0;
  double s = sqrt(disc), t1 = (-Bq + s) / (2 * A), t2 = (-Bq - s) / (2 * A);
  double t = fabs(t1) < fabs(t2) ? t1 : t2;
  for (int c = 0; c < 3; c++) x[c] += t * u[c];
}

/* snap x onto every wall of mask (planes first, then the cylinder; they commute
   for the walls we build: the cylinder's axis is parallel to the planes' normals
   or the planes are the box sides) */
void pb_snap(const builder *bd, uint8_t mask, double x[3]) {
  for (int k = 0; k < bd->nw; k++)
    if ((mask >> k & 1) && !bd->w[k].cyl) pb_wall_project(&bd->w[k], x);
  for (int k = 0; k < bd->nw; k++)
    if ((mask >> k & 1) && bd->w[k].cyl) pb_wall_project(&bd->w[k], x);
}

/* the power of point x to real site s, and the real site of least power at x (its power in
 *pmin): the cell x lies in */
static double site_power(const builder *bd, hx_lid s, const double x[3]) {
  const double *c = bd->sx + 3 * s;
  return (x[0] - c[0]) * (x[0] - c[0]) + (x[1] - c[1]) * (x[1] - c[1]) + (x[2] - c[2]) * (x[2] - c[2]) - bd->sr[s] * bd->sr[s];
}

int32_t pb_power_owner(const builder *bd, const double x[3], double *pmin) {
  int32_t best = 0;
  *pmin = INFINITY;
  for (hx_lid s = 0; s < bd->nreal; s++) {
    double pw = site_power(bd, s, x);
    if (pw < *pmin) *pmin = pw, best = (int32_t)s;
  }
  return best;
}

/* the angle of x about the cylinder W's axis, and the point of the wall at angle th (x, y) */
double pb_cyl_angle(const wall *W, const double x[3]) { return atan2(x[1] - W->p[1], x[0] - W->p[0]); }

void pb_cyl_at(const wall *W, double th, double x[3]) { x[0] = W->p[0] + W->R * cos(th), x[1] = W->p[1] + W->R * sin(th); }

/* The arc of the cylinder W from x1 to x2 (both on it) along an edge of sphere a's cell, as
   the angle dth to turn from x1 (signed). Edges spanning more than 90 degrees occur only at
   the top of thin columns, where one cell covers a wide arc; the arc is then the one whose
   midpoint lies on a's cell (the other's midpoint is deep in another cell), and it can be
   the longer one, which a chord's midpoint projected onto the wall would miss. Returns 1
   where it is the longer one. */
int pb_cyl_arc(const builder *bd, const wall *W, int32_t a, const double x1[3], const double x2[3], double *dth) {
  double t1 = pb_cyl_angle(W, x1), d = remainder(pb_cyl_angle(W, x2) - t1, 2 * HX_PI);
  *dth = d;
  if (fabs(d) <= 0.5 * HX_PI) return 0;
  double excess[2];
  for (int side = 0; side < 2; side++) {
    double m[3] = {0, 0, 0.5 * (x1[2] + x2[2])}, pmin;
    pb_cyl_at(W, t1 + 0.5 * (side ? d - copysign(2 * HX_PI, d) : d), m);
    pb_power_owner(bd, m, &pmin);
    excess[side] = site_power(bd, a, m) - pmin;
  }
  if (excess[1] >= excess[0]) return 0;
  *dth = d - copysign(2 * HX_PI, d);
  return 1;
}

/* ---- sites ---------------------------------------------------------------- */

int pb_build_sites(builder *bd, const hx_pebble_bed *bed, const hx_pebble_opts *o) {
  double dmax = 0;
  for (hx_lid i = 0; i < bed->n; i++) dmax = fmax(dmax, 2 * bed->r[i]);
  double near = 3 * dmax;
  hx_lid cap = bed->n * 4 + 16;
  bd->nreal = bed->n;
  HX_CALL(hx_malloc((size_t)cap * 3 * sizeof *bd->sx, &bd->sx));
  HX_CALL(hx_malloc((size_t)cap * sizeof *bd->sr, &bd->sr));
  HX_CALL(hx_malloc((size_t)cap * sizeof *bd->sparent, &bd->sparent));
  HX_CALL(hx_malloc((size_t)cap * sizeof *bd->smask, &bd->smask));
  hx_lid ns = 0;
  for (hx_lid i = 0; i < bed->n; i++) {
    memcpy(bd->sx + 3 * ns, bed->xyz + 3 * i, 3 * sizeof(double));
    bd->sr[ns] = bed->r[i];
    bd->sparent[ns] = i;
    bd->smask[ns] = 0;
    ns++;
  }
  for (hx_lid i = 0; i < bed->n; i++) {
    uint8_t nearmask = 0;
    for (int k = 0; k < bd->nw; k++)
      if (pb_wall_dist(&bd->w[k], bed->xyz + 3 * i) < near) nearmask |= (uint8_t)(1u << k);
    /* every non-empty subset of the near walls */
    for (unsigned sub = nearmask; sub; sub = (sub - 1) & nearmask) {
      if (ns + 1 > cap) {
        cap *= 2;
        HX_CALL(hx_realloc((size_t)cap * 3 * sizeof *bd->sx, &bd->sx));
        HX_CALL(hx_realloc((size_t)cap * sizeof *bd->sr, &bd->sr));
        HX_CALL(hx_realloc((size_t)cap * sizeof *bd->sparent, &bd->sparent));
        HX_CALL(hx_realloc((size_t)cap * sizeof *bd->smask, &bd->smask));
      }
      double y[3];
      memcpy(y, bed->xyz + 3 * i, sizeof y);
      for (int k = 0; k < bd->nw; k++)
        if (sub >> k & 1) wall_reflect(&bd->w[k], y, y);
      memcpy(bd->sx + 3 * ns, y, sizeof y);
      bd->sr[ns] = bed->r[i];
      bd->sparent[ns] = i;
      bd->smask[ns] = (uint8_t)sub;
      ns++;
    }
  }
  (void)o;
  bd->ns = ns;
  return HX_OK;
}
