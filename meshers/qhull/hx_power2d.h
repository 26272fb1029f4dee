/* 2D power diagram (weighted Voronoi) neighbours through Qhull's reentrant API.

   The rod-bundle mesher needs, for every site, the sites whose power cells share
   an edge with its own: clipping the duct polygon by the power bisectors of those
   neighbours gives the site's cell. Those neighbour pairs are the edges of the
   regular (weighted Delaunay) triangulation, which is the lower convex hull of the
   lifted points (x, y, x^2 + y^2 - w).

   Usage:
     int num_pairs, *pairs;
     HX_CALL(hx_power2d_pairs(n, xy, w, &num_pairs, &pairs));   pairs[2p], pairs[2p+1]
     ... hx_free(pairs) ...

   This folder (meshers/qhull/) is the only place that includes libqhull_r headers;
   Qhull's setjmp/longjmp recovery stays inside qh_new_qhull, and the wrapper always
   calls qh_freeqhull + qh_memfreeshort. Without Qhull in the build (HX_HAVE_QHULL 0)
   or for inputs Qhull cannot triangulate (fewer than 4 sites, all sites on a line)
   every pair is returned, which gives the same cells at O(n^2) cost. */
#pragma once

/** Candidate neighbour pairs of the 2D power diagram of n sites.
    @param[in]  n          number of sites (>= 1)
    @param[in]  xy         [n][2] site coordinates
    @param[in]  w          [n] weights (power distance |x - c|^2 - w)
    @param[out] num_pairs  number of pairs
    @param[out] pairs      [num_pairs][2] site indices i < j, sorted, unique;
                           allocated with hx_malloc, the caller frees with hx_free
    @return HX_OK, HX_ERR_QHULL (message carries Qhull's exit code), HX_ERR_MEMORY */
int hx_power2d_pairs(int n, const double *xy, const double *w, int *num_pairs, int **pairs);

/** The same pairs computed without Qhull (all n(n-1)/2 pairs); for tests and tiny inputs. */
int hx_power2d_all_pairs(int n, int *num_pairs, int **pairs);
