/* Packing generator for tests and demos (hexpack pack): separate from the mesher.

   Sequential "drop" deposition: each new sphere takes the lowest resting height
   among a few random (x, y) trials inside the container, where it sits on the
   bottom or on spheres already placed (its lowest non-overlapping z). The beds are
   loose random packings with real contacts, reproducible from the seed (a 64-bit
   xorshift generator, no libc rand). Optional polydispersity: radii uniform in
   [r (1 - p), r (1 + p)]. The container is a cylinder about z or (square) the
   square prism [-a, a]^2 x [0, inf). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "hx_pebble.h"

static double urand(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

/* xy buckets of the spheres placed so far (cell size >= the largest diameter), so
   a drop only looks at the spheres of the 3 x 3 neighbouring columns */
typedef struct grid {
  int n; /* cells per direction */
  double lo, h;
  int32_t *head; /* [n*n] first sphere of each cell, -1 */
  int32_t *next; /* [spheres] next sphere in the same cell */
} grid;

typedef struct span {
  double lo, hi, top; /* overlap while lo < z < hi; resting on the sphere at top */
} span;

static int cmp_span(const void *a, const void *b) {
  double x = ((const span *)a)->lo, y = ((const span *)b)->lo;
  return x < y ? -1 : x > y;
}

/* lowest z >= zmin at which a sphere (x, y, r) does not overlap the spheres in g: the
   spheres of the 3 x 3 columns each forbid an open interval of z; sorted by their lower
   ends, one sweep lifts z over every interval that contains it (buf: room for every
   sphere). (Lifting z repeatedly over the spheres in list order, as before, needed one
   pass per layer climbed and stopped after 64: in tall beds it returned overlapping
   positions.) */
static double rest_height(const grid *g, const double *xyz, const double *rad, double x, double y, double r, double zmin,
                          span *buf) { /* 8 parameters: the packed spheres, the drop point and radius, its floor, scratch */
  int cx = (int)floor((x - g->lo) / g->h), cy = (int)floor((y - g->lo) / g->h), m = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      int ix = cx + dx, iy = cy + dy;
      if (ix < 0 || iy < 0 || ix >= g->n || iy >= g->n) continue;
      for (int32_t i = g->head[iy * g->n + ix]; i >= 0; i = g->next[i]) {
        double ex = x - xyz[3 * i], ey = y - xyz[3 * i + 1], D = r + rad[i];
        double h2 = D * D - ex * ex - ey * ey, h2s = D * D * (1 - 1e-12) - ex * ex - ey * ey;
        if (h2 <= 0 || h2s <= 0) continue;
        double hs = sqrt(h2s);
        buf[m].lo = xyz[3 * i + 2] - hs, buf[m].hi = xyz[3 * i + 2] + hs;
        buf[m].top = xyz[3 * i + 2] + sqrt(h2) + 1e-12 * D;
        m++;
      }
    }
  qsort(buf, (size_t)m, sizeof *buf, cmp_span);
  double z = zmin;
  for (int k = 0; k < m && buf[k].lo < z; k++)
    if (z < buf[k].hi && buf[k].top > z) z = buf[k].top;
  return z;
}

int hx_pebble_pack(hx_lid n, double radius, double poly, double cyl_radius, uint64_t seed, int trials, hx_pebble_bed **out) {
  return hx_pebble_pack2(n, radius, poly, cyl_radius, 0, seed, trials, out);
}

int hx_pebble_pack2(hx_lid n, double radius, double poly, double cyl_radius, int square, uint64_t seed, int trials,
                    hx_pebble_bed **out) { /* 8 parameters: the public packing call (hx_pebble.h) */
  *out = NULL;
  HX_CHECK(n >= 2, HX_ERR_INPUT, "pack: needs at least 2 spheres, got %d", (int)n);
  HX_CHECK(radius > 0 && cyl_radius > radius * (1 + poly), HX_ERR_INPUT,
           "pack: the container radius %g must exceed the largest sphere radius %g", cyl_radius, radius * (1 + poly));
  HX_CHECK(poly >= 0 && poly < 0.5, HX_ERR_INPUT, "pack: polydispersity must be in [0, 0.5), got %g", poly);
  double *xyz = NULL, *rad = NULL;
  grid g;
  g.h = 2 * radius * (1 + poly);
  g.lo = -cyl_radius;
  g.n = (int)ceil(2 * cyl_radius / g.h) + 1;
  g.head = NULL;
  g.next = NULL;
  HX_CALL(hx_malloc((size_t)n * 3 * sizeof *xyz, &xyz));
  int rc = hx_malloc((size_t)n * sizeof *rad, &rad);
  if (!rc) rc = hx_malloc((size_t)g.n * g.n * sizeof *g.head, &g.head);
  if (!rc) rc = hx_malloc((size_t)n * sizeof *g.next, &g.next);
  span *buf = NULL;
  if (!rc) rc = hx_malloc((size_t)n * sizeof *buf, &buf);
  if (!rc)
    for (int k = 0; k < g.n * g.n; k++) g.head[k] = -1;
  uint64_t s = seed * 2654435761u + 88172645463325252ull;
  for (hx_lid i = 0; i < n && !rc; i++) {
    double r = radius * (1 + poly * (2 * urand(&s) - 1));
    double best[3] = {0, 0, INFINITY};
    for (int t = 0; t < trials; t++) {
      double x, y;
      if (square) {
        x = (cyl_radius - r) * (2 * urand(&s) - 1);
        y = (cyl_radius - r) * (2 * urand(&s) - 1);
      } else {
        double rr = (cyl_radius - r) * sqrt(urand(&s)), ang = 2 * HX_PI * urand(&s);
        x = rr * cos(ang), y = rr * sin(ang);
      }
      double z = rest_height(&g, xyz, rad, x, y, r, r, buf);
      if (z < best[2]) best[0] = x, best[1] = y, best[2] = z;
    }
    memcpy(xyz + 3 * i, best, sizeof best);
    rad[i] = r;
    int c = (int)floor((best[1] - g.lo) / g.h) * g.n + (int)floor((best[0] - g.lo) / g.h);
    g.next[i] = g.head[c];
    g.head[c] = (int32_t)i;
  }
  hx_free(&g.head);
  hx_free(&g.next);
  hx_free(&buf);
  if (!rc) rc = hx_pebble_bed_create(n, xyz, rad, 0, out);
  hx_free(&xyz);
  hx_free(&rad);
  return rc;
}
