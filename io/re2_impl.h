/* Nek5000 numbering tables shared by the .re2 writer and reader (faces, edges and curve sides as Nek5000 numbers them). */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* hexpack corner c (i + 2j + 4k) -> preprocessor slot (0-based); its own inverse */
static const int RE2_PRE[8] = {0, 1, 3, 2, 4, 5, 7, 6};
/* hexpack face f -> preprocessor face (1-based), and back */
static const int RE2_FACE[6] = {4, 2, 1, 3, 5, 6};
static const int RE2_FACE_INV[7] = {-1, 2, 1, 3, 0, 4, 5};
/* preprocessor edge q (1..12) -> its two preprocessor corners (1-based) */
static const int RE2_EDGE[13][2] = {{0, 0}, {1, 2}, {2, 3}, {3, 4}, {4, 1}, {5, 6}, {6, 7},
                                    {7, 8}, {8, 5}, {1, 5}, {2, 6}, {3, 7}, {4, 8}};
/* preprocessor face p (1..6) -> its preprocessor corners (1-based) */
static const int RE2_FACE_CORNERS[7][4] = {{0, 0, 0, 0}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 4, 8, 7},
                                           {1, 4, 8, 5}, {1, 2, 3, 4}, {5, 6, 7, 8}};
/* tensor position (0 or 1 per direction) of preprocessor corner s (0-based) */
static inline void re2_corner_ijk(int s, int ijk[3]) {
  int c = RE2_PRE[s];
  ijk[0] = c & 1, ijk[1] = (c >> 1) & 1, ijk[2] = (c >> 2) & 1;
}

/* a curved side as the .re2 stores it: edge (m, C) or face (s) number, 1-based preprocessor */
typedef struct re2_curve {
  int side;
  double c[5];
  char type;
} re2_curve;

/* Nek5000's geometry of one element from its 8 corners (xc[d * 8 + s], preprocessor slot s)
   and curved sides (core/genxyz.f; re2_read.c): the element's nd^3 GLL nodes, xe[3][nd^3]
   lexicographic; g01: the nd GLL points on [0, 1] */
void hx_re2_nek_element(const double *xc, const re2_curve *const *cv, int ncv, int nd, const double *g01, double *xe);

/* The link between a .re2 and its field file: the .re2 header's free text after " hdr" holds
   " fld " and 16 hex digits, the checksum of the field file's coordinates, or " fld none" when
   the .re2 was written without one. The checksum is the sum (mod 2^64) over the coordinates
   x_i (i = 0, 1, ... in file order: per element all x, then y, then z) of
   splitmix64(bits(x_i) + (i + 1) * 0x9E3779B97F4A7C15), so every rank can add up its own
   elements and the ranks' sums add. */
static inline uint64_t re2_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static inline uint64_t re2_field_sum(const double *x, size_t n, uint64_t i0) {
  uint64_t s = 0;
  for (size_t k = 0; k < n; k++) {
    uint64_t b;
    memcpy(&b, &x[k], 8);
    s += re2_mix64(b + (i0 + k + 1) * 0x9E3779B97F4A7C15ull);
  }
  return s;
}
