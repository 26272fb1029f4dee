/* Nek5000 numbering tables shared by the .re2 writer and reader (formats.md 1.3-1.5). */
#pragma once

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
