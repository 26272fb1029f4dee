/* Rod-bundle input: defaults, presets, lattice sites from the rod map. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "rods_impl.h"

void hx_rods_opts_default(hx_rods_opts *o) {
  memset(o, 0, sizeof *o);
  o->lattice = HX_RODS_SQUARE;
  o->pitch = 1.0;
  o->nx = o->ny = 3;
  o->num_types = 1;
  o->radius[0] = 0.4;
  o->duct = HX_RODS_DUCT_BOX;
  o->duct_gap = -1;
  o->sectors = 28;
  o->bl_layers = 1;
  o->bl_growth = 1.2;
  o->gap_layers = 2;
  o->num_zones = 1;
  o->z[0] = 0;
  o->z[1] = 1;
  o->nz[0] = 1;
  o->grading[0] = 1;
  o->order = 1;
  o->collapse = 0.25;
}

/* The Westinghouse-type 17x17 assembly of the NekRS ExaSMR runs:
   '1' fuel rod, '2' guide tube, '3' instrument tube (same outer diameter as a guide tube). */
static const char pwr17x17_map[] = "11111111111111111/"
                                   "11111111111111111/"
                                   "11111211211211111/"
                                   "11121111111112111/"
                                   "11111111111111111/"
                                   "11211211211211211/"
                                   "11111111111111111/"
                                   "11111111111111111/"
                                   "11211211311211211/"
                                   "11111111111111111/"
                                   "11111111111111111/"
                                   "11211211211211211/"
                                   "11111111111111111/"
                                   "11121111111112111/"
                                   "11111211211211111/"
                                   "11111111111111111/"
                                   "11111111111111111";

static const struct {
  const char *name;
  int rings;
} hex_presets[] = {
    {"hex7", 1}, {"hex19", 2}, {"hex37", 3}, {"hex61", 4}, {"hex127", 6}, {"hex217", 8},
};

const char *hx_rods_preset_names(void) { return "pwr17x17, hex7, hex19, hex37, hex61, hex127, hex217"; }

int hx_rods_preset(hx_rods_opts *o, const char *name) {
  if (!strcmp(name, "pwr17x17")) {
    o->lattice = HX_RODS_SQUARE;
    o->pitch = 1.2598;
    o->nx = o->ny = 17;
    o->num_types = 3;
    o->radius[0] = 0.950 / 2;  /* fuel clad outer diameter 0.950 cm */
    o->radius[1] = 1.2243 / 2; /* guide tube outer diameter 1.2243 cm */
    o->radius[2] = 1.2243 / 2; /* instrument tube */
    o->map = pwr17x17_map;
    o->duct = HX_RODS_DUCT_BOX;
    o->duct_size = 17 * 1.2598; /* 21.417 cm */
    o->duct_size_y = 0;
    o->sectors = 28;
    o->bl_layers = 1;
    o->gap_layers = 2;
    return HX_OK;
  }
  for (size_t k = 0; k < sizeof hex_presets / sizeof hex_presets[0]; k++)
    if (!strcmp(name, hex_presets[k].name)) {
      /* FFTF-like driver pins without wire wraps: pitch 0.7264 cm, pin diameter 0.584 cm;
         the duct leaves one pin-to-pin gap outside the outer ring. */
      o->lattice = HX_RODS_HEX;
      o->pitch = 0.7264;
      o->rings = hex_presets[k].rings;
      o->num_types = 1;
      o->radius[0] = 0.584 / 2;
      o->map = NULL;
      o->duct = HX_RODS_DUCT_HEX;
      o->duct_size = 0;
      o->duct_gap = 0.7264 - 0.584;
      o->sectors = 24;
      o->bl_layers = 1;
      o->gap_layers = 2;
      return HX_OK;
    }
  return HX_ERROR(HX_ERR_INPUT, "flag --preset: unknown preset '%s'; known: %s", name, hx_rods_preset_names());
}

int rods_site_name(const hx_rods_opts *o, const rods_layer *L, int s, char *buf, int len) {
  if (s < 0) return snprintf(buf, (size_t)len, "the duct");
  const rods_site *S = &L->sites[s];
  if (o->lattice == HX_RODS_SQUARE) return snprintf(buf, (size_t)len, "site (row %d, col %d)", S->a, S->b);
  return snprintf(buf, (size_t)len, "site (ring %d, #%d)", S->a, S->b);
}

/* Sites of the lattice with their rod types from the map. */
int rods_sites(const hx_rods_opts *o, rods_layer *L) {
  HX_CHECK(o->pitch > 0 && isfinite(o->pitch), HX_ERR_INPUT, "flag --pitch must be positive, got %g", o->pitch);
  HX_CHECK(o->num_types >= 1 && o->num_types <= HX_RODS_MAX_TYPES, HX_ERR_INPUT, "flag --rod-radius: 1..%d rod types, got %d",
           HX_RODS_MAX_TYPES, o->num_types);
  for (int t = 0; t < o->num_types; t++)
    HX_CHECK(o->radius[t] > 0 && isfinite(o->radius[t]), HX_ERR_INPUT,
             "flag --rod-radius: radius of rod type %d must be positive, got %g", t + 1, o->radius[t]);
  int n;
  if (o->lattice == HX_RODS_SQUARE) {
    HX_CHECK(o->nx >= 1 && o->ny >= 1 && o->nx <= 1000 && o->ny <= 1000, HX_ERR_INPUT,
             "flag --rods: a square lattice needs 1..1000 sites per row and column, got %d x %d", o->nx, o->ny);
    n = o->nx * o->ny;
  } else if (o->lattice == HX_RODS_HEX) {
    HX_CHECK(o->rings >= 0 && o->rings <= 60, HX_ERR_INPUT, "flag --rings must be in 0..60, got %d", o->rings);
    n = 1 + 3 * o->rings * (o->rings + 1);
  } else {
    return HX_ERROR(HX_ERR_INPUT, "flag --lattice: unknown lattice %d; known: square, hex", o->lattice);
  }
  HX_CALL(hx_malloc((size_t)n * sizeof *L->sites, &L->sites));
  L->nsites = n;
  if (o->lattice == HX_RODS_SQUARE) {
    for (int r = 0; r < o->ny; r++)
      for (int c = 0; c < o->nx; c++) {
        rods_site *S = &L->sites[r * o->nx + c];
        S->a = r;
        S->b = c;
        S->c[0] = (c - 0.5 * (o->nx - 1)) * o->pitch;
        S->c[1] = (0.5 * (o->ny - 1) - r) * o->pitch;
      }
  } else {
    /* ring k: corners at k P (cos 60 s, sin 60 s), k sites per side, counter-clockwise from +x */
    int s = 0;
    L->sites[s].a = L->sites[s].b = 0;
    s++;
    for (int k = 1; k <= o->rings; k++)
      for (int side = 0; side < 6; side++) {
        double a0 = side * HX_PI / 3, a1 = (side + 1) * HX_PI / 3;
        for (int m = 0; m < k; m++) {
          rods_site *S = &L->sites[s];
          double t = (double)m / k;
          S->c[0] = k * o->pitch * ((1 - t) * cos(a0) + t * cos(a1));
          S->c[1] = k * o->pitch * ((1 - t) * sin(a0) + t * sin(a1));
          S->a = k;
          S->b = side * k + m;
          s++;
        }
      }
  }
  /* rod map */
  int s = 0;
  if (o->map) {
    for (const char *p = o->map; *p; p++) {
      char ch = *p;
      if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '/' || ch == ',') continue;
      HX_CHECK(s < n, HX_ERR_INPUT, "flag --map: more entries than the %d sites of the lattice", n);
      if (ch == '-' || ch == '.') {
        L->sites[s++].type = -1;
        continue;
      }
      HX_CHECK(ch >= '1' && ch <= '0' + o->num_types, HX_ERR_INPUT,
               "flag --map: entry %d is '%c'; expected '-' (empty) or a rod type 1..%d (one --rod-radius each)", s + 1, ch,
               o->num_types);
      L->sites[s++].type = ch - '1';
    }
    HX_CHECK(s == n, HX_ERR_INPUT, "flag --map: %d entries for a lattice of %d sites", s, n);
  }
  L->nrods = 0;
  L->rmax = 0;
  for (int k = 0; k < n; k++) {
    if (!o->map) L->sites[k].type = 0;
    L->sites[k].rod = L->sites[k].type >= 0 ? L->nrods++ : -1;
    if (L->sites[k].type >= 0) L->rmax = fmax(L->rmax, o->radius[L->sites[k].type]);
  }
  HX_CHECK(L->nrods >= 1, HX_ERR_INPUT, "flag --map: every site is empty; need at least one rod");
  return HX_OK;
}
