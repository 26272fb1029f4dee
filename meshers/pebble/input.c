/* Pebble-bed input: the centres file, default options, and the input checks
   (duplicates, overlaps, spheres outside the container). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "hx_pebble.h"
#include "pebble_impl.h"

void hx_pebble_opts_default(hx_pebble_opts *o) {
  memset(o, 0, sizeof *o);
  o->container = HX_PEBBLE_CYLINDER;
  o->zlo = o->zhi = NAN;
  o->plane_gap = 0.1;
  o->inlet_layers = o->outlet_layers = 4;
  o->extrude_ratio = 1.0;
  o->layers = 3;
  o->ratio = 1.5;
  o->contact = HX_PEBBLE_BRIDGE;
  o->contact_gap = 0.01;
  o->contact_shrink = HX_PEBBLE_SHRINK_LOCAL;
  o->bridge_frac = 0.1;
  o->bridge_gap = -1; /* 0.02, or 0.04 with --aspect (hx_pebble_opts_finish) */
  o->wall_gap = -1;
  o->collapse = 0.2;
  o->overlap_tol = 0.1;
  o->rings = 1;
  o->ring_gap = 0.25;
  o->ring_sj = 0.1;
  o->bridge_fit = 0.5;
  o->accept_sj = 0.3;
  o->split = 1;
  o->score_nek = 0;
  o->radial_volume = -1; /* volume spacing from order 3 */
  o->ring_volume = -1;
  o->edge_volume = -1;
  o->order = 1;
  o->max_snap = 1.0;
  o->debug.facet = -1;
}

void hx_pebble_opts_path(hx_pebble_opts *o, int quality) {
  hx_pebble_opts d;
  hx_pebble_opts_default(&d);
  o->ratio = quality ? 1.0 : d.ratio;
  o->score_nek = quality ? 1 : d.score_nek;
  o->aspect = quality ? 18.0 : d.aspect;
  o->grade_expand = quality ? 0.75 : d.grade_expand;
}

void hx_pebble_bed_destroy(hx_pebble_bed **bed) {
  if (!bed || !*bed) return;
  hx_free(&(*bed)->xyz);
  hx_free(&(*bed)->r);
  hx_free(&(*bed)->line);
  hx_free(bed);
}

static int bed_alloc(hx_lid n, hx_pebble_bed **out) {
  hx_pebble_bed *b;
  HX_CALL(hx_malloc(sizeof *b, &b));
  b->n = n;
  int rc = hx_malloc((size_t)(n ? n : 1) * 3 * sizeof *b->xyz, &b->xyz);
  if (!rc) rc = hx_malloc((size_t)(n ? n : 1) * sizeof *b->r, &b->r);
  if (!rc) rc = hx_malloc((size_t)(n ? n : 1) * sizeof *b->line, &b->line);
  if (rc) hx_pebble_bed_destroy(&b);
  *out = b;
  return rc;
}

int hx_pebble_bed_create(hx_lid n, const double *xyz, const double *r, double radius, hx_pebble_bed **out) {
  *out = NULL;
  HX_CHECK(n >= 0, HX_ERR_INPUT, "pebble bed: negative sphere count");
  HX_CHECK(r || radius > 0, HX_ERR_INPUT, "pebble bed: no radii and no default radius");
  HX_CALL(bed_alloc(n, out));
  memcpy((*out)->xyz, xyz, (size_t)n * 3 * sizeof *xyz);
  for (hx_lid i = 0; i < n; i++) (*out)->r[i] = r ? r[i] : radius;
  return HX_OK;
}

/* one line of fp into buf (NUL-terminated, newline kept): 1, 0 at the end of the file,
   -1 for a line that does not fit, -2 for a line holding a NUL byte (fgets + strlen
   would silently cut it there) */
static int read_line(FILE *fp, char *buf, size_t cap) {
  size_t n = 0;
  int c, nul = 0;
  while ((c = getc(fp)) != EOF) {
    if (c == 0) nul = 1;
    if (n + 1 < cap) buf[n] = (char)c;
    n++;
    if (c == '\n') break;
  }
  if (n == 0) return 0;
  buf[n + 1 < cap ? n : cap - 1] = 0;
  if (n + 1 > cap) return -1;
  return nul ? -2 : 1;
}

int hx_pebble_bed_read(const char *path, double default_radius, hx_pebble_bed **out) {
  return hx_pebble_bed_read_scaled(path, default_radius, 1.0, out);
}

int hx_pebble_bed_read_scaled(const char *path, double default_radius, double scale, hx_pebble_bed **out) {
  *out = NULL;
  HX_CHECK(scale > 0 && isfinite(scale), HX_ERR_INPUT, "%s: the scale must be a positive number, got %g", path, scale);
  FILE *fp = fopen(path, "r");
  HX_CHECK(fp, HX_ERR_IO, "cannot open centres file '%s': %s", path, strerror(errno));
  hx_pebble_bed *b = NULL;
  hx_lid cap = 1024, n = 0;
  int rc = bed_alloc(cap, &b);
  char line[4096];
  int line_no = 0;
  int got;
  while (!rc && (got = read_line(fp, line, sizeof line)) != 0) {
    line_no++;
    if (got == -1) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: line longer than %d characters", path, line_no, (int)sizeof line - 2);
      break;
    }
    if (got == -2) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: a NUL byte in the line (not a text file?)", path, line_no);
      break;
    }
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    double v[5];
    int cnt = 0;
    char *s = line, *end;
    while (1) {
      while (isspace((unsigned char)*s) || *s == ',') s++;
      if (!*s) break;
      if (cnt == 5) break;
      errno = 0;
      double d = strtod(s, &end);
      if (end == s) {
        char tok[32];
        int k = 0;
        while (s[k] && !isspace((unsigned char)s[k]) && k < 31) tok[k] = s[k], k++;
        tok[k] = 0;
        rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: expected a number, found '%s' (a line is 'x y z' or 'x y z r')", path, line_no, tok);
        break;
      }
      if (!isfinite(d)) {
        rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: value %d is not a finite number (NaN or infinity)", path, line_no, cnt + 1);
        break;
      }
      v[cnt++] = d;
      s = end;
    }
    if (rc) break;
    if (cnt == 0) continue;
    if (cnt != 3 && cnt != 4) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: a sphere line needs 'x y z' or 'x y z r', found %s%d value(s)", path, line_no,
                    cnt == 5 ? "at least " : "", cnt);
      break;
    }
    if (cnt == 3 && !(default_radius > 0)) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: the line has no radius and no --radius was given", path, line_no);
      break;
    }
    if (cnt == 4 && !(v[3] > 0)) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: the radius must be positive, found %g", path, line_no, v[3]);
      break;
    }
    for (int k = 0; k < cnt; k++) {
      v[k] *= scale;
      if (!isfinite(v[k])) {
        rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: value %d times the scale %g is not a finite number", path, line_no, k + 1, scale);
        break;
      }
    }
    if (rc) break;
    if (n == cap) {
      cap *= 2;
      rc = hx_realloc((size_t)cap * 3 * sizeof *b->xyz, &b->xyz);
      if (!rc) rc = hx_realloc((size_t)cap * sizeof *b->r, &b->r);
      if (!rc) rc = hx_realloc((size_t)cap * sizeof *b->line, &b->line);
      if (rc) break;
    }
    memcpy(b->xyz + 3 * n, v, 3 * sizeof(double));
    b->r[n] = cnt == 4 ? v[3] : default_radius;
    b->line[n] = line_no;
    n++;
  }
  if (!rc && ferror(fp)) rc = HX_ERROR(HX_ERR_IO, "error reading '%s'", path);
  fclose(fp);
  if (rc) {
    hx_pebble_bed_destroy(&b);
    return rc;
  }
  b->n = n;
  snprintf(b->path, sizeof b->path, "%s", path);
  *out = b;
  return HX_OK;
}

/* "file:line" or "sphere k" naming sphere i in messages */
static const char *where(const hx_pebble_bed *b, hx_lid i, char *buf, size_t len) {
  if (b->path[0] && b->line[i] > 0) snprintf(buf, len, "%s:%d", b->path, b->line[i]);
  else snprintf(buf, len, "sphere %d", (int)i + 1);
  return buf;
}

static double mean_diameter(const hx_pebble_bed *b) {
  double s = 0;
  for (hx_lid i = 0; i < b->n; i++) s += 2 * b->r[i];
  return b->n ? s / b->n : 1;
}

int hx_pebble_opts_finish(hx_pebble_opts *o, const hx_pebble_bed *b) {
  HX_CHECK(b->n >= 2, HX_ERR_INPUT, "%s: a bed needs at least two spheres, found %d", b->path[0] ? b->path : "bed", (int)b->n);
  double d = mean_diameter(b);
  double zmin = INFINITY, zmax = -INFINITY;
  for (hx_lid i = 0; i < b->n; i++) {
    zmin = fmin(zmin, b->xyz[3 * i + 2] - b->r[i]);
    zmax = fmax(zmax, b->xyz[3 * i + 2] + b->r[i]);
  }
  if (isnan(o->zlo)) o->zlo = zmin - o->plane_gap * d;
  if (isnan(o->zhi)) o->zhi = zmax + o->plane_gap * d;
  HX_CHECK(o->zhi > o->zlo, HX_ERR_INPUT, "flags --bottom/--top: the top plane (%g) must lie above the bottom (%g)", o->zhi,
           o->zlo);
  /* with --aspect, near contacts thinner than 0.04 d are bridged: their columns at the pierce
     point (half the gap) would need the tessellation about them cut 4 x finer than a bridge's */
  if (o->bridge_gap < 0) o->bridge_gap = o->aspect > 0 ? 0.04 : 0.02;
  if (o->wall_gap < 0) o->wall_gap = o->bridge_gap;
  if (o->container == HX_PEBBLE_CYLINDER && !(o->cyl_radius > 0)) {
    /* no container given: a cylinder about z through the origin, as beds of `hexpack pack`
       and most DEM packings are placed; a bed whose x-y extent is centred more than one
       diameter away from the z axis gets the axis through that centre instead (else the
       cylinder reaches far beyond it on one side: an unbounded power cell) */
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (hx_lid i = 0; i < b->n; i++)
      for (int c = 0; c < 2; c++) {
        lo[c] = fmin(lo[c], b->xyz[3 * i + c] - b->r[i]);
        hi[c] = fmax(hi[c], b->xyz[3 * i + c] + b->r[i]);
      }
    double mx = 0.5 * (lo[0] + hi[0]), my = 0.5 * (lo[1] + hi[1]);
    if (hypot(mx - o->cx, my - o->cy) > d) o->cx = mx, o->cy = my;
    double rmax = 0;
    for (hx_lid i = 0; i < b->n; i++) {
      double dx = b->xyz[3 * i] - o->cx, dy = b->xyz[3 * i + 1] - o->cy;
      rmax = fmax(rmax, sqrt(dx * dx + dy * dy) + b->r[i]);
    }
    o->cyl_radius = rmax + o->plane_gap * d;
  }
  if (o->container == HX_PEBBLE_BOX && !(o->box_hi[0] > o->box_lo[0])) {
    for (int c = 0; c < 2; c++) {
      o->box_lo[c] = INFINITY;
      o->box_hi[c] = -INFINITY;
      for (hx_lid i = 0; i < b->n; i++) {
        o->box_lo[c] = fmin(o->box_lo[c], b->xyz[3 * i + c] - b->r[i] - o->plane_gap * d);
        o->box_hi[c] = fmax(o->box_hi[c], b->xyz[3 * i + c] + b->r[i] + o->plane_gap * d);
      }
    }
  }
  return HX_OK;
}

/* "I (x, y, z)" naming sphere i in messages (numbered from 1 in file order), with its line in the
   file where it has one */
static const char *sphere_at(const hx_pebble_bed *b, hx_lid i, char *buf, size_t len) {
  const double *x = b->xyz + 3 * i;
  if (b->line[i] > 0) snprintf(buf, len, "%d (%g, %g, %g; line %d)", (int)i + 1, x[0], x[1], x[2], b->line[i]);
  else snprintf(buf, len, "%d (%g, %g, %g)", (int)i + 1, x[0], x[1], x[2]);
  return buf;
}

typedef struct pair_check {
  const hx_pebble_bed *b;
  const hx_pebble_opts *o;
  const char *src;
} pair_check;

/* a duplicate, or an overlap deeper than --overlap-tol: more than a bridge (at most 0.25 d, and
   needing room in its facet) or the gap model's shrinking is meant to absorb */
static int check_pair(void *ctx, hx_lid i, hx_lid j, double dist) {
  const pair_check *pc = ctx;
  const hx_pebble_bed *b = pc->b;
  char w1[160], w2[160];
  double dij = b->r[i] + b->r[j]; /* the pair's contact distance (mean diameter) */
  if (dist <= 1e-9 * dij)
    return HX_ERROR(HX_ERR_INPUT, "%s: spheres %s and %s have the same centre: expected distinct spheres (a duplicate line?)",
                    pc->src, sphere_at(b, i, w1, sizeof w1), sphere_at(b, j, w2, sizeof w2));
  if (dist < dij * (1 - pc->o->overlap_tol))
    return HX_ERROR(HX_ERR_INPUT,
                    "%s: spheres %s and %s overlap by %.3g%% of the diameter: expected at most %.3g%% (--overlap-tol; "
                    "deeper overlaps are more than a bridge or the gap model's shrinking absorbs)",
                    pc->src, sphere_at(b, i, w1, sizeof w1), sphere_at(b, j, w2, sizeof w2), 100 * (1 - dist / dij),
                    100 * pc->o->overlap_tol);
  return HX_OK;
}

/* a neighbour within reach (surface to surface) of each sphere */
static int mark_near(void *ctx, hx_lid i, hx_lid j, double dist) {
  (void)dist;
  uint8_t *near = ctx;
  near[i] = near[j] = 1;
  return HX_OK;
}

/* A sphere far from every other lies outside the bed: the container drawn around the bed (no
   --container) would be stretched to it, and its power cell would reach walls no other sphere is
   near. Refused, naming it and its nearest sphere. */
#define PB_ISOLATED_GAP 2.0 /* mean diameters, surface to surface */
static int check_isolated(const hx_pebble_bed *b, const char *src) {
  double d = mean_diameter(b);
  uint8_t *near = NULL;
  HX_CALL(hx_malloc((size_t)b->n, &near));
  memset(near, 0, (size_t)b->n);
  int rc = pb_bed_pairs(b, PB_ISOLATED_GAP * d, mark_near, near);
  hx_lid far = -1;
  for (hx_lid i = 0; i < b->n && rc == HX_OK && far < 0; i++)
    if (!near[i]) far = i;
  hx_free(&near);
  if (rc || far < 0) return rc;
  hx_lid best = -1;
  double gap = INFINITY;
  const double *x = b->xyz + 3 * far;
  for (hx_lid j = 0; j < b->n; j++) {
    if (j == far) continue;
    const double *y = b->xyz + 3 * j;
    double g =
        sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) + (x[2] - y[2]) * (x[2] - y[2])) - b->r[far] - b->r[j];
    if (g < gap) gap = g, best = j;
  }
  char w1[160], w2[160];
  return HX_ERROR(HX_ERR_INPUT,
                  "%s: sphere %s lies outside the bed: the nearest other sphere, %s, is %.3g mean diameters away (surface to "
                  "surface), expected at most %g (the spheres of a bed touch or nearly touch); remove it or correct its centre",
                  src, sphere_at(b, far, w1, sizeof w1), sphere_at(b, best, w2, sizeof w2), gap / d, PB_ISOLATED_GAP);
}

int hx_pebble_bed_check(const hx_pebble_bed *b, const hx_pebble_opts *o) {
  char w1[1100];
  const char *src = b->path[0] ? b->path : "bed";
  HX_CHECK(b->n >= 2, HX_ERR_INPUT, "%s: a bed needs at least two spheres, found %d", src, (int)b->n);
  double d = mean_diameter(b);
  for (hx_lid i = 0; i < b->n; i++) {
    for (int c = 0; c < 3; c++)
      HX_CHECK(isfinite(b->xyz[3 * i + c]), HX_ERR_INPUT, "%s: centre is not finite", where(b, i, w1, sizeof w1));
    HX_CHECK(b->r[i] > 0 && isfinite(b->r[i]), HX_ERR_INPUT, "%s: radius must be positive", where(b, i, w1, sizeof w1));
  }
  /* container: touching (within 1e-9 d) is allowed */
  double tol = 1e-9 * d;
  for (hx_lid i = 0; i < b->n; i++) {
    const double *x = b->xyz + 3 * i;
    double r = b->r[i];
    if (o->container == HX_PEBBLE_CYLINDER) {
      double rho = hypot(x[0] - o->cx, x[1] - o->cy);
      HX_CHECK(rho + r <= o->cyl_radius + tol, HX_ERR_INPUT,
               "%s: sphere %s radius %g crosses the container cylinder: it reaches radius %.6g, expected at most %g (the "
               "cylinder's radius)",
               src, sphere_at(b, i, w1, sizeof w1), r, rho + r, o->cyl_radius);
    } else {
      for (int c = 0; c < 2; c++)
        HX_CHECK(x[c] - r >= o->box_lo[c] - tol && x[c] + r <= o->box_hi[c] + tol, HX_ERR_INPUT,
                 "%s: sphere %s radius %g crosses the container box: it spans %c in [%g, %g], expected within [%g, %g]", src,
                 sphere_at(b, i, w1, sizeof w1), r, "xy"[c], x[c] - r, x[c] + r, o->box_lo[c], o->box_hi[c]);
    }
    HX_CHECK(x[2] - r >= o->zlo - tol && x[2] + r <= o->zhi + tol, HX_ERR_INPUT,
             "%s: sphere %s radius %g crosses the bottom/top plane: it spans z in [%g, %g], expected within [%g, %g] "
             "(--bottom, --top)",
             src, sphere_at(b, i, w1, sizeof w1), r, x[2] - r, x[2] + r, o->zlo, o->zhi);
  }
  pair_check pc = {b, o, src};
  HX_CALL(pb_bed_pairs(b, 0, check_pair, &pc));
  return check_isolated(b, src);
}
