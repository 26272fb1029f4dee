/* 2D power-diagram neighbour pairs from the lower convex hull of lifted points.
   The only Qhull user of the rod-bundle mesher (see hx_power2d.h). */
#include "hx_power2d.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_config.h"
#include "hx_error.h"
#include "hx_memory.h"

#if HX_HAVE_QHULL
#include "libqhull_r/qhull_ra.h"
#endif

int hx_power2d_all_pairs(int n, int *num_pairs, int **pairs) {
  HX_CHECK(n >= 1, HX_ERR_INPUT, "power diagram of %d sites: need at least one", n);
  long np = (long)n * (n - 1) / 2;
  HX_CHECK(np < 100000000L, HX_ERR_INPUT, "power diagram of %d sites: too many for the all-pairs fallback", n);
  int *p = NULL;
  HX_CALL(hx_malloc((size_t)(np > 0 ? np : 1) * 2 * sizeof *p, &p));
  long k = 0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      p[2 * k] = i;
      p[2 * k + 1] = j;
      k++;
    }
  *num_pairs = (int)np;
  *pairs = p;
  return HX_OK;
}

static int cmp_pair(const void *a, const void *b) {
  const int *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
  return 0;
}

/* Whether all sites lie on one line (Qhull cannot build a 3D hull of their lifts). */
static int collinear(int n, const double *xy) {
  double scale = 0;
  for (int i = 1; i < n; i++) scale = fmax(scale, hypot(xy[2 * i] - xy[0], xy[2 * i + 1] - xy[1]));
  int far = 0;
  double best = -1;
  for (int i = 1; i < n; i++) {
    double d = hypot(xy[2 * i] - xy[0], xy[2 * i + 1] - xy[1]);
    if (d > best) best = d, far = i;
  }
  if (best <= 0) return 1;
  double ux = (xy[2 * far] - xy[0]) / best, uy = (xy[2 * far + 1] - xy[1]) / best;
  for (int i = 1; i < n; i++) {
    double cr = (xy[2 * i] - xy[0]) * uy - (xy[2 * i + 1] - xy[1]) * ux;
    if (fabs(cr) > 1e-9 * scale) return 0;
  }
  return 1;
}

#if HX_HAVE_QHULL
/* design:
   1. lift site i to (x, y, x^2 + y^2 - w) after centring and scaling, so the
      paraboloid's values stay O(1) and Qhull's precision tests are meaningful;
   2. convex hull with triangulated output ('Qt': coplanar lifts of cocircular
      sites, as on a square lattice, become triangles);
   3. every facet that is not an upper facet (normal z < small) contributes its
      three edges: lower facets are the regular triangulation, near-vertical ones
      come from collinear sites on the hull boundary and only add redundant pairs;
   4. sort, unique. */
static int qhull_pairs(int n, const double *xy, const double *w, int *num_pairs, int **pairs) {
  double cx = 0, cy = 0, scale = 0;
  for (int i = 0; i < n; i++) cx += xy[2 * i], cy += xy[2 * i + 1];
  cx /= n, cy /= n;
  for (int i = 0; i < n; i++) scale = fmax(scale, hypot(xy[2 * i] - cx, xy[2 * i + 1] - cy));
  if (scale <= 0) scale = 1;
  coordT *pts = NULL;
  HX_CALL(hx_malloc((size_t)n * 3 * sizeof *pts, &pts));
  for (int i = 0; i < n; i++) {
    double x = (xy[2 * i] - cx) / scale, y = (xy[2 * i + 1] - cy) / scale;
    pts[3 * i] = x;
    pts[3 * i + 1] = y;
    pts[3 * i + 2] = x * x + y * y - w[i] / (scale * scale);
  }
  FILE *errfile = fopen("/dev/null", "w");
  if (!errfile) errfile = stderr;
  qhT qh_qh;
  qhT *qh = &qh_qh;
  qh_zero(qh, errfile);
  char flags[] = "qhull Qt Pp";
  int exitcode = qh_new_qhull(qh, 3, n, pts, False, flags, NULL, errfile);
  int rc = HX_OK;
  int *p = NULL;
  int cnt = 0;
  if (exitcode) {
    rc = HX_ERROR(HX_ERR_QHULL, "Qhull failed on the lifted rod centres (exit code %d)", exitcode);
  } else {
    int nf = 0;
    facetT *facet;
    vertexT *vertex, **vertexp;
    FORALLfacets nf++;
    rc = hx_malloc((size_t)(nf > 0 ? nf : 1) * 6 * sizeof *p, &p);
    if (rc == HX_OK) {
      FORALLfacets {
        if (facet->normal[2] > 1e-6) continue;
        int v[3], nv = 0;
        FOREACHvertex_(facet->vertices) {
          if (nv < 3) v[nv] = qh_pointid(qh, vertex->point);
          nv++;
        }
        if (nv != 3) continue;
        for (int a = 0; a < 3; a++) {
          int i = v[a], j = v[(a + 1) % 3];
          if (i == j || i < 0 || j < 0) continue;
          p[2 * cnt] = i < j ? i : j;
          p[2 * cnt + 1] = i < j ? j : i;
          cnt++;
        }
      }
    }
  }
  int curlong, totlong;
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &curlong, &totlong);
  if (errfile != stderr) fclose(errfile);
  hx_free(&pts);
  if (rc != HX_OK) {
    hx_free(&p);
    return rc;
  }
  qsort(p, (size_t)cnt, 2 * sizeof *p, cmp_pair);
  int u = 0;
  for (int k = 0; k < cnt; k++)
    if (u == 0 || p[2 * k] != p[2 * (u - 1)] || p[2 * k + 1] != p[2 * (u - 1) + 1]) {
      p[2 * u] = p[2 * k];
      p[2 * u + 1] = p[2 * k + 1];
      u++;
    }
  *num_pairs = u;
  *pairs = p;
  return HX_OK;
}
#endif

int hx_power2d_pairs(int n, const double *xy, const double *w, int *num_pairs, int **pairs) {
  HX_CHECK(n >= 1, HX_ERR_INPUT, "power diagram of %d sites: need at least one", n);
#if HX_HAVE_QHULL
  if (n >= 4 && !collinear(n, xy)) return qhull_pairs(n, xy, w, num_pairs, pairs);
#else
  (void)xy;
  (void)w;
  (void)collinear;
#endif
  return hx_power2d_all_pairs(n, num_pairs, pairs);
}
