/* t101: write -> our reader -> the same mesh, for orders 1..8 and several meshes
   (Kershaw box, spherical shell, box with 6 ids, one non-affine cubic element).
   Arguments: one or more EXT:TOL[:MODE] (TOL relative to the bounding box, 0 =
   bitwise; MODE ascii | zlib | dup = every element with its own copy of the nodes,
   which the reader must merge back by coordinates; raise = the order-1 mesh
   written at order N through the streaming curving, compared with the whole-mesh
   hx_mesh_raise_order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_config.h"
#include "hx_curve.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_iotest.h"

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#endif
  int fail = 0, runs = 0;
  static const char *kinds[] = {"kershaw", "sphere", "box", "cubic"};
  for (int a = 1; a < argc; a++) {
    char ext[16] = "", mode[16] = "";
    double tol = 0;
    char *spec = strdup(argv[a]);
    char *t1 = strtok(spec, ":"), *t2 = strtok(NULL, ":"), *t3 = strtok(NULL, ":");
    snprintf(ext, sizeof ext, "%s", t1);
    tol = t2 ? atof(t2) : 0;
    if (t3) snprintf(mode, sizeof mode, "%s", t3);
    free(spec);
    for (int order = 1; order <= 8; order++)
      for (int k = 0; k < 4; k++) {
        hx_mesh *m = NULL, *r = NULL;
        if (hx_iotest_make(kinds[k], order, &m)) {
          printf("make %s failed: %s\n", kinds[k], hx_error_message());
          return 1;
        }
        if (!strcmp(mode, "dup")) {
          size_t n = (size_t)m->num_elem * hx_mesh_nodes_per_elem(m);
          hx_mesh *d;
          hx_mesh_copy(m, &d);
          for (size_t p = 0; p < n; p++) d->node_id[p] = (hx_gid)p;
          for (hx_lid e = 0; e < d->num_elem; e++)
            for (int c = 0; c < 8; c++)
              d->vert_id[e * 8 + c] = d->node_id[(size_t)e * hx_mesh_nodes_per_elem(d) + hx_corner_lex(d->nd, c)];
          hx_mesh_destroy(&d);
          /* write the copy, compare the result with the original (shared ids) */
          hx_mesh_copy(m, &d);
          for (size_t p = 0; p < n; p++) d->node_id[p] = (hx_gid)p;
          char path[64];
          snprintf(path, sizeof path, "t101-dup-%s-%d%s", kinds[k], order, ext);
          hx_export_opts o;
          hx_export_opts_default(&o);
          if (hx_export(d, path, &o) || hx_import(HX_COMM_SELF, path, &r)) {
            printf("%s: %s\n", path, hx_error_message());
            return 1;
          }
          hx_mesh_destroy(&d);
        } else if (!strcmp(mode, "raise")) {
          hx_mesh *lo = NULL, *ref = NULL;
          if (hx_iotest_make(kinds[k], 1, &lo) || hx_mesh_raise_order(lo, order, &ref)) {
            printf("raise %s: %s\n", kinds[k], hx_error_message());
            return 1;
          }
          char path[64];
          snprintf(path, sizeof path, "t101-raise-%s-%d%s", kinds[k], order, ext);
          hx_export_opts o;
          hx_export_opts_default(&o);
          o.order = order;
          if (hx_export(lo, path, &o) || hx_import(HX_COMM_SELF, path, &r)) {
            printf("%s: %s\n", path, hx_error_message());
            return 1;
          }
          hx_mesh_destroy(&m);
          m = ref;
          hx_mesh_destroy(&lo);
        } else {
          char path[64];
          snprintf(path, sizeof path, "t101-%s-%d%s%s", kinds[k], order, mode, ext);
          hx_export_opts o;
          hx_export_opts_default(&o);
          if (!strcmp(mode, "ascii")) o.binary = 0;
          if (!strcmp(mode, "zlib")) o.compress = 1;
          if (hx_export(m, path, &o) || hx_import(HX_COMM_SELF, path, &r)) {
            printf("%s: %s\n", path, hx_error_message());
            return 1;
          }
        }
        printf("%s%s%s order %d %s: ", ext, mode[0] ? " " : "", mode, order, kinds[k]);
        if (hx_iotest_cmp(m, r, tol)) fail++;
        runs++;
        hx_mesh_destroy(&m);
        hx_mesh_destroy(&r);
      }
  }
  printf("%d round trips, %d failed\n", runs, fail);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return fail ? 1 : 0;
}
