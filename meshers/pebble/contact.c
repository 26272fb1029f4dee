/* The contact model and the bed's volumes (docs/pebble.md, "Contact model"): the pairs of
   spheres closer than a reach (a sorted uniform grid), the gap model's shrunk radii, the
   analytic volumes of the container, of the spheres and of the solid a bridge adds. */
#include "pebble_impl.h"

typedef struct cellkey {
  int64_t key;
  hx_lid i;
} cellkey;
static int cmp_cellkey(const void *a, const void *b) {
  const cellkey *x = a, *y = b;
  return x->key < y->key ? -1 : x->key > y->key ? 1 : (x->i - y->i);
}

/* grid cell index of coordinate v >= 0 (in cells) wrapped into [0, M): a bed wider
   than M cells (far-apart or tiny spheres) only makes distant cells share a key,
   which adds candidates, never loses one; the key (< M^3) cannot overflow */
static int64_t grid_cell(double v, int64_t M) {
  if (!(v >= 0) || !isfinite(v)) return 0;
  return (int64_t)fmod(floor(v), (double)M);
}

int pb_bed_pairs(const hx_pebble_bed *b, double reach, int (*fn)(void *ctx, hx_lid i, hx_lid j, double dist), void *ctx) {
  double rmax = 0, lo[3] = {INFINITY, INFINITY, INFINITY};
  for (hx_lid i = 0; i < b->n; i++) {
    rmax = fmax(rmax, b->r[i]);
    for (int c = 0; c < 3; c++) lo[c] = fmin(lo[c], b->xyz[3 * i + c]);
  }
  /* cells of 2 rmax + reach: every pair within reach of touching lies in neighbouring cells */
  double h = 2 * rmax + fmax(0, reach);
  cellkey *keys;
  HX_CALL(hx_malloc((size_t)(b->n + 1) * sizeof *keys, &keys));
  const int64_t M = 1 << 20;
  for (hx_lid i = 0; i < b->n; i++) {
    int64_t g[3];
    for (int c = 0; c < 3; c++) g[c] = grid_cell((b->xyz[3 * i + c] - lo[c]) / h, M);
    keys[i].key = (g[2] * M + g[1]) * M + g[0];
    keys[i].i = i;
  }
  qsort(keys, (size_t)b->n, sizeof *keys, cmp_cellkey);
  int rc = HX_OK;
  for (hx_lid a = 0; a < b->n && !rc; a++) {
    hx_lid i = keys[a].i;
    int64_t g[3];
    for (int c = 0; c < 3; c++) g[c] = grid_cell((b->xyz[3 * i + c] - lo[c]) / h, M);
    for (int dz = -1; dz <= 1 && !rc; dz++)
      for (int dy = -1; dy <= 1 && !rc; dy++)
        for (int dx = -1; dx <= 1 && !rc; dx++) {
          int64_t key = (((g[2] + dz + M) % M * M + (g[1] + dy + M) % M) * M) + (g[0] + dx + M) % M;
          hx_lid L = 0, R = b->n; /* the first entry with this key */
          while (L < R) {
            hx_lid mid = (L + R) / 2;
            if (keys[mid].key < key) L = mid + 1;
            else R = mid;
          }
          for (hx_lid q = L; q < b->n && keys[q].key == key && !rc; q++) {
            hx_lid j = keys[q].i;
            if (j <= i) continue;
            double dist = dist3(b->xyz + 3 * i, b->xyz + 3 * j);
            if (dist < b->r[i] + b->r[j] + reach) rc = fn(ctx, i, j, dist);
          }
        }
  }
  hx_free(&keys);
  return rc;
}

/* ---- volumes ------------------------------------------------------------------------------ */

/* the volume two spheres of radii r1, r2 at distance d share (their lens; 0 apart, the
   smaller sphere inside the larger) */
static double lens_volume(double r1, double r2, double d) {
  if (d >= r1 + r2) return 0;
  if (d <= fabs(r1 - r2)) {
    double r = fmin(r1, r2);
    return 4.0 / 3.0 * HX_PI * r * r * r;
  }
  double s = r1 + r2 - d;
  return HX_PI * s * s * (d * d + 2 * d * r2 - 3 * r2 * r2 + 2 * d * r1 + 6 * r1 * r2 - 3 * r1 * r1) / (12 * d);
}

/* the cap of a sphere of radius r beyond a plane at distance h from its centre (h < r) */
static double cap_volume(double r, double h) {
  if (h >= r) return 0;
  if (h <= -r) return 4.0 / 3.0 * HX_PI * r * r * r;
  double t = r - h;
  return HX_PI * t * t * (3 * r - t) / 3;
}

/* the distances of sphere i's centre to the container's walls: [0] the cylinder (or the
   nearest box side), [1] the bottom plane, [2] the top plane (negative: outside) */
static void wall_dists(const hx_pebble_bed *b, hx_lid i, const hx_pebble_opts *o, double w[3]) {
  const double *x = b->xyz + 3 * i;
  if (o->container == HX_PEBBLE_CYLINDER) w[0] = o->cyl_radius - hypot(x[0] - o->cx, x[1] - o->cy);
  else w[0] = fmin(fmin(x[0] - o->box_lo[0], o->box_hi[0] - x[0]), fmin(x[1] - o->box_lo[1], o->box_hi[1] - x[1]));
  w[1] = x[2] - o->zlo;
  w[2] = o->zhi - x[2];
}

typedef struct lens_sum {
  const hx_pebble_bed *b;
  double v;
} lens_sum;
static int add_lens(void *ctx, hx_lid i, hx_lid j, double dist) {
  lens_sum *s = ctx;
  s->v += lens_volume(s->b->r[i], s->b->r[j], dist);
  return HX_OK;
}

int hx_pebble_bed_volume(const hx_pebble_bed *b, const hx_pebble_opts *o, double *container, double *solid) {
  double len = o->zhi - o->zlo + o->inlet_len + o->outlet_len;
  if (o->container == HX_PEBBLE_CYLINDER) *container = HX_PI * o->cyl_radius * o->cyl_radius * len;
  else *container = (o->box_hi[0] - o->box_lo[0]) * (o->box_hi[1] - o->box_lo[1]) * len;
  /* the spheres inside the container: each whole, less its caps beyond the walls (a box's
     sides and the planes exactly; beyond the cylinder the cap of its tangent plane, exact to
     second order in the depth, which the input check keeps below 1e-9 d), less the lens of
     every overlapping pair (counted twice in the sum; three spheres sharing a point, which
     DEM overlaps of a few % of d do not give, would be counted once too often) */
  double v = 0;
  for (hx_lid i = 0; i < b->n; i++) {
    double r = b->r[i], w[3];
    v += 4.0 / 3.0 * HX_PI * r * r * r;
    wall_dists(b, i, o, w);
    for (int k = 0; k < 3; k++) v -= cap_volume(r, w[k]);
    if (o->container == HX_PEBBLE_BOX) { /* the other box sides (w[0] took the nearest) */
      const double *x = b->xyz + 3 * i;
      double s[4] = {x[0] - o->box_lo[0], o->box_hi[0] - x[0], x[1] - o->box_lo[1], o->box_hi[1] - x[1]};
      for (int k = 0; k < 4; k++) v -= cap_volume(r, s[k]);
      v += cap_volume(r, w[0]);
    }
  }
  lens_sum ls = {b, 0};
  HX_CALL(pb_bed_pairs(b, 0, add_lens, &ls));
  *solid = v - ls.v;
  return HX_OK;
}

/* the solid a bridge of radius rb adds about the axis from a sphere of radius ra towards
   what lies at distance L along the axis: another sphere of radius rs (rs > 0), or a plane
   normal to the axis (rs = 0). The fluid in the bridge is the part of the cylinder between
   the surfaces: V = int_0^rb 2 pi rho (L - sqrt(ra^2 - rho^2) - sqrt(rs^2 - rho^2))_+ drho,
   closed form; below the radius rho0 where the spheres meet (an overlap) the bracket is
   negative and that part adds nothing. */
static double bridge_solid_axis(double ra, double rs, double L, double rb) {
  double A = ra * ra, S = rs * rs, rho0 = 0;
  if (rs > 0 && L < ra + rs) { /* the circle where the spheres meet */
    double t = (L * L + A - S) / (2 * L);
    rho0 = sqrt(fmax(0, A - t * t));
  } else if (rs == 0 && L < ra) {
    rho0 = sqrt(A - L * L);
  }
  if (rho0 >= rb) return 0;
  double r02 = rho0 * rho0, rb2 = rb * rb;
  double v = HX_PI * L * (rb2 - r02) - 2 * HX_PI / 3 * (pow(A - r02, 1.5) - pow(fmax(0, A - rb2), 1.5));
  if (rs > 0) v -= 2 * HX_PI / 3 * (pow(S - r02, 1.5) - pow(fmax(0, S - rb2), 1.5));
  return v;
}

/* the same between a sphere of radius ra whose centre lies at distance c from the axis of the
   container cylinder (radius Rc) and that cylinder, the bridge's axis radial: at lateral
   offset (y, z) from it (y across, z along the container's axis) the wall lies at
   sqrt(Rc^2 - y^2) - c. Polar quadrature: Gauss-Legendre in rho (16 points), the trapezoid
   rule in the angle (64, periodic); the integrand is smooth (the gap grows away from the
   axis, since Rc > ra), so both converge spectrally: relative error below 1e-12 */
static double bridge_solid_cyl(double ra, double c, double Rc, double rb) {
  enum { NR = 16, NF = 64 };
  double xg[NR], wg[NR], v = 0;
  hx_gauss(NR, xg, wg);
  for (int i = 0; i < NR; i++) {
    double rho = rb * xg[i], s = 0;
    for (int k = 0; k < NF; k++) {
      double y = rho * cos(2 * HX_PI * k / NF);
      s += fmax(0, sqrt(Rc * Rc - y * y) - c - sqrt(fmax(0, ra * ra - rho * rho)));
    }
    v += wg[i] * rb * rho * s * (2 * HX_PI / NF);
  }
  return v;
}

double pb_bridge_solid(const builder *bd, const bridge *BR, const wall *W) {
  int32_t a = BR->a;
  const double *ca = bd->sx + 3 * a;
  double ra = bd->sr[a];
  if (BR->b >= 0) return bridge_solid_axis(ra, bd->sr[BR->b], dist3(ca, bd->sx + 3 * BR->b), BR->rb);
  if (!W) return 0;
  if (W->cyl) return bridge_solid_cyl(ra, hypot(ca[0] - W->p[0], ca[1] - W->p[1]), W->R, BR->rb);
  return bridge_solid_axis(ra, 0, fabs(pb_wall_dist(W, ca)), BR->rb);
}

/* ---- the gap model ------------------------------------------------------------------------ */

typedef struct shrink_ctx {
  const hx_pebble_bed *b;
  double g;     /* the gap as a fraction of the pair's smaller diameter */
  double *cut;  /* [n] local: the radius each sphere gives up */
  double fmin;  /* uniform: the smallest factor */
  hx_lid pairs; /* pairs closer than the gap */
} shrink_ctx;

/* pair (i, j) closer than g x d: its deficit shared in proportion to the radii (local), and
   the factor that would separate it (uniform) */
static int shrink_pair(void *ctx, hx_lid i, hx_lid j, double dist) {
  shrink_ctx *s = ctx;
  double ri = s->b->r[i], rj = s->b->r[j], want = dist - s->g * 2 * fmin(ri, rj);
  double deficit = ri + rj - want;
  if (deficit <= 0) return HX_OK;
  s->pairs++;
  s->cut[i] = fmax(s->cut[i], deficit * ri / (ri + rj));
  s->cut[j] = fmax(s->cut[j], deficit * rj / (ri + rj));
  s->fmin = fmin(s->fmin, want / (ri + rj));
  return HX_OK;
}

int hx_pebble_contact_shrink(const hx_pebble_bed *b, const hx_pebble_opts *o, hx_pebble_bed **out, hx_pebble_shrink *info) {
  *out = NULL;
  memset(info, 0, sizeof *info);
  HX_CHECK(o->contact_gap > 0 && o->contact_gap < 0.5, HX_ERR_INPUT,
           "flag --contact-gap: expected a fraction of d in (0, 0.5), got %g", o->contact_gap);
  shrink_ctx s = {b, o->contact_gap, NULL, 1, 0};
  HX_CALL(hx_malloc((size_t)(b->n + 1) * sizeof *s.cut, &s.cut));
  for (hx_lid i = 0; i < b->n; i++) s.cut[i] = 0;
  double rmax = 0;
  for (hx_lid i = 0; i < b->n; i++) rmax = fmax(rmax, b->r[i]);
  int rc = pb_bed_pairs(b, s.g * 2 * rmax, shrink_pair, &s);
  /* walls (the container and both planes): the sphere alone gives up the deficit */
  for (hx_lid i = 0; i < b->n && !rc; i++) {
    double w[3], r = b->r[i];
    wall_dists(b, i, o, w);
    for (int k = 0; k < 3; k++) {
      double want = w[k] - s.g * 2 * r;
      if (r <= want) continue;
      info->num_wall++;
      s.cut[i] = fmax(s.cut[i], r - want);
      s.fmin = fmin(s.fmin, want / r);
    }
  }
  if (!rc) rc = hx_pebble_bed_create(b->n, b->xyz, b->r, 0, out);
  if (!rc) {
    hx_pebble_bed *sb = *out;
    memcpy(sb->line, b->line, (size_t)b->n * sizeof *b->line);
    snprintf(sb->path, sizeof sb->path, "%s", b->path);
    info->num_pairs = s.pairs;
    for (hx_lid i = 0; i < b->n; i++) {
      double r = o->contact_shrink == HX_PEBBLE_SHRINK_UNIFORM ? b->r[i] * s.fmin : b->r[i] - s.cut[i];
      /* a sphere left below half its radius: the bed overlaps more than shrinking should absorb */
      if (!(r > 0.5 * b->r[i])) {
        const double *x = b->xyz + 3 * i;
        rc = HX_ERROR(HX_ERR_INPUT,
                      "%s: sphere %d (%g, %g, %g) radius %g would shrink to %g to leave the gap %g x d (--contact gap): "
                      "expected overlaps below --overlap-tol",
                      b->path[0] ? b->path : "bed", (int)i + 1, x[0], x[1], x[2], b->r[i], r, s.g);
        break;
      }
      sb->r[i] = r;
      if (r < b->r[i]) {
        info->num_shrunk++;
        info->max_shrink = fmax(info->max_shrink, 1 - r / b->r[i]);
        info->mean_shrink += 1 - r / b->r[i];
      }
    }
    if (b->n) info->mean_shrink /= (double)b->n;
  }
  hx_free(&s.cut);
  if (rc) hx_pebble_bed_destroy(out);
  return rc;
}
