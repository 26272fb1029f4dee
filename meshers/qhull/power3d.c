/* 3D power diagram through Qhull (reentrant): see hx_power3d.h. This is one of the
   two files of hexpack that include libqhull_r (docs/architecture.md, "The parts"). */
#define _GNU_SOURCE 1
#include "hx_power3d.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_config.h"
#include "hx_error.h"
#include "hx_memory.h"

void hx_power3d_destroy(hx_power3d **pd) {
  if (!pd || !*pd) return;
  hx_free(&(*pd)->tet);
  hx_free(&(*pd)->nbr);
  hx_free(&(*pd)->centre);
  hx_free(pd);
}

#if HX_HAVE_QHULL
#include "libqhull_r/qhull_ra.h"

/* Copy the lower hull of a finished Qhull run into pd (no allocation failure may
   escape without freeing: the caller frees pd on error). */
static int collect(qhT *qh, const double origin[3], double scale, hx_power3d *pd) {
  facetT *facet, *neighbor, **neighborp;
  vertexT *vertex, **vertexp;
  hx_lid count = 0;
  FORALLfacets {
    facet->visitid = 0;
    if (facet->normal[3] < -1e-12 && !facet->upperdelaunay) facet->visitid = (unsigned)(++count);
  }
  HX_CHECK(count > 0, HX_ERR_QHULL, "qhull: the regular triangulation has no lower facet (degenerate sites)");
  pd->num_tets = count;
  HX_CALL(hx_malloc((size_t)count * 4 * sizeof *pd->tet, &pd->tet));
  HX_CALL(hx_malloc((size_t)count * 4 * sizeof *pd->nbr, &pd->nbr));
  HX_CALL(hx_malloc((size_t)count * 3 * sizeof *pd->centre, &pd->centre));
  FORALLfacets {
    if (!facet->visitid) continue;
    hx_lid t = (hx_lid)facet->visitid - 1;
    HX_CHECK(facet->simplicial && qh_setsize(qh, facet->vertices) == 4, HX_ERR_QHULL,
             "qhull: a lower facet is not a tetrahedron (triangulation 'Qt' failed)");
    int k = 0;
    vertexT *verts[4];
    FOREACHvertex_(facet->vertices) {
      verts[k] = vertex;
      pd->tet[4 * t + k] = qh_pointid(qh, vertex->point);
      pd->nbr[4 * t + k] = -1;
      k++;
    }
    FOREACHneighbor_(facet) {
      /* the vertex of facet missing from neighbor is the one it is opposite to */
      int opp = -1;
      for (int a = 0; a < 4; a++) {
        int found = 0;
        vertexT *v2, **v2p;
        FOREACHsetelement_(vertexT, neighbor->vertices, v2) if (v2 == verts[a]) found = 1;
        (void)v2p;
        if (!found) {
          HX_CHECK(opp < 0, HX_ERR_QHULL, "qhull: neighbouring tetrahedra share fewer than 3 vertices");
          opp = a;
        }
      }
      HX_CHECK(opp >= 0, HX_ERR_QHULL, "qhull: a tetrahedron is its own neighbour");
      pd->nbr[4 * t + opp] = neighbor->visitid ? (int32_t)neighbor->visitid - 1 : -1;
    }
    /* lifted plane n.(x, w) + off = 0 with w = |x|^2 - r^2: on the plane,
       w = 2 c.x + const with c = -n_xyz / (2 n_w), the power centre */
    for (int c = 0; c < 3; c++) pd->centre[3 * t + c] = origin[c] + scale * (-facet->normal[c] / (2.0 * facet->normal[3]));
  }
  return HX_OK;
}
#endif

int hx_power3d_compute(const double *xyz, const double *r, hx_lid n, hx_power3d **out) {
  *out = NULL;
#if !HX_HAVE_QHULL
  (void)xyz;
  (void)r;
  (void)n;
  return HX_ERROR(HX_ERR_BACKEND, "this hexpack was built without Qhull (libqhull-dev): power diagrams are unavailable");
#else
  HX_CHECK(n >= 5, HX_ERR_INPUT, "power diagram: needs at least 5 sites, got %d", (int)n);
  /* normalize: translate to the bounding-box centre, scale to unit size, so the
     lifted coordinate stays O(1) */
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (hx_lid i = 0; i < n; i++)
    for (int c = 0; c < 3; c++) {
      double v = xyz[3 * i + c];
      if (v < lo[c]) lo[c] = v;
      if (v > hi[c]) hi[c] = v;
    }
  double origin[3], scale = 0;
  for (int c = 0; c < 3; c++) {
    origin[c] = 0.5 * (lo[c] + hi[c]);
    if (hi[c] - lo[c] > scale) scale = hi[c] - lo[c];
  }
  HX_CHECK(scale > 0 && isfinite(scale), HX_ERR_INPUT, "power diagram: the sites span no volume");
  scale *= 0.5;
  hx_power3d *pd = NULL;
  double *pts = NULL;
  HX_CALL(hx_malloc(sizeof *pd, &pd));
  pd->num_sites = n;
  int rc = hx_malloc((size_t)n * 4 * sizeof *pts, &pts);
  if (rc) {
    hx_power3d_destroy(&pd);
    return rc;
  }
  for (hx_lid i = 0; i < n; i++) {
    double w = 0, ri = r ? r[i] / scale : 0;
    for (int c = 0; c < 3; c++) {
      double v = (xyz[3 * i + c] - origin[c]) / scale;
      pts[4 * i + c] = v;
      w += v * v;
    }
    pts[4 * i + 3] = w - ri * ri;
  }
  char *errbuf = NULL;
  size_t errlen = 0;
  FILE *errfile = open_memstream(&errbuf, &errlen);
  qhT qh_storage, *qh = &qh_storage;
  qh_zero(qh, errfile);
  char options[] = "qhull Qt";
  int exitcode = qh_new_qhull(qh, 4, (int)n, pts, False, options, NULL, errfile ? errfile : stderr);
  if (exitcode == 0) {
    rc = collect(qh, origin, scale, pd);
  } else {
    if (errfile) fflush(errfile);
    char first[200] = "";
    if (errbuf) {
      size_t k = 0;
      while (k + 1 < sizeof first && errbuf[k] && errbuf[k] != '\n') {
        first[k] = errbuf[k];
        k++;
      }
      first[k] = 0;
    }
    rc = HX_ERROR(HX_ERR_QHULL, "qhull failed (exit code %d) on %d sites: %s", exitcode, (int)n, first);
  }
  int curlong, totlong;
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &curlong, &totlong);
  if (errfile) fclose(errfile);
  free(errbuf);
  hx_free(&pts);
  if (rc == HX_OK && (curlong || totlong))
    hx_warn("qhull did not free all of its memory (%d bytes in %d blocks)", totlong, curlong);
  if (rc) {
    hx_power3d_destroy(&pd);
    return rc;
  }
  *out = pd;
  return HX_OK;
#endif
}
