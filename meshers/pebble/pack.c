/* Packing generator for tests and demos (hexpack pack): separate from the mesher.

   Sequential "drop" deposition: each new sphere takes the lowest resting height
   among a few random (x, y) trials inside the container, where it sits on the
   bottom or on spheres already placed (its lowest non-overlapping z). The beds are
   loose random packings with real contacts, reproducible from the seed (a 64-bit
   xorshift generator, no libc rand). Optional polydispersity: radii uniform in
   [r (1 - p), r (1 + p)]. */
#include <math.h>
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

/* lowest z >= zmin at which a sphere (x, y, r) does not overlap the first n spheres */
static double rest_height(const double *xyz, const double *rad, hx_lid n, double x, double y, double r, double zmin) {
  double z = zmin;
  for (int pass = 0; pass < 64; pass++) {
    int moved = 0;
    for (hx_lid i = 0; i < n; i++) {
      double dx = x - xyz[3 * i], dy = y - xyz[3 * i + 1], D = r + rad[i];
      double h2 = D * D - dx * dx - dy * dy;
      if (h2 <= 0) continue;
      double top = xyz[3 * i + 2] + sqrt(h2);
      double dz = z - xyz[3 * i + 2];
      if (dz * dz + dx * dx + dy * dy < D * D * (1 - 1e-12) && top > z) {
        z = top * (1 + 0) + 1e-12 * D;
        moved = 1;
      }
    }
    if (!moved) break;
  }
  return z;
}

int hx_pebble_pack(hx_lid n, double radius, double poly, double cyl_radius, uint64_t seed, int trials,
                   hx_pebble_bed **out) {
  *out = NULL;
  HX_CHECK(n >= 2, HX_ERR_INPUT, "pack: needs at least 2 spheres, got %d", (int)n);
  HX_CHECK(radius > 0 && cyl_radius > radius * (1 + poly), HX_ERR_INPUT,
           "pack: the container radius %g must exceed the largest sphere radius %g", cyl_radius, radius * (1 + poly));
  HX_CHECK(poly >= 0 && poly < 0.5, HX_ERR_INPUT, "pack: polydispersity must be in [0, 0.5), got %g", poly);
  double *xyz = NULL, *rad = NULL;
  HX_CALL(hx_malloc((size_t)n * 3 * sizeof *xyz, &xyz));
  int rc = hx_malloc((size_t)n * sizeof *rad, &rad);
  uint64_t s = seed * 2654435761u + 88172645463325252ull;
  for (hx_lid i = 0; i < n && !rc; i++) {
    double r = radius * (1 + poly * (2 * urand(&s) - 1));
    double best[3] = {0, 0, INFINITY};
    for (int t = 0; t < trials; t++) {
      double rr = (cyl_radius - r) * sqrt(urand(&s)), ang = 2 * HX_PI * urand(&s);
      double x = rr * cos(ang), y = rr * sin(ang);
      double z = rest_height(xyz, rad, i, x, y, r, r);
      if (z < best[2]) best[0] = x, best[1] = y, best[2] = z;
    }
    memcpy(xyz + 3 * i, best, sizeof best);
    rad[i] = r;
  }
  if (!rc) rc = hx_pebble_bed_create(n, xyz, rad, 0, out);
  hx_free(&xyz);
  hx_free(&rad);
  return rc;
}
