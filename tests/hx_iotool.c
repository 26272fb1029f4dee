/* hx_iotool: helper of the format tests (t1xx).
     hx_iotool gen KIND ORDER OUT [SAMPLES]   make a mesh and write it (format from the
         extension); KIND = cubic (one deliberately non-affine element whose map is a
         cubic polynomial), kershaw (6x2x2 Kershaw box), box (3x2x2 box), sphere (a
         shell of 6 elements on a sphere); SAMPLES gets, per element, our own map
         evaluated at reference points: "e t1 t2 t3 x y z" (equispaced grid, centre,
         and fixed pseudo-random points)
     hx_iotool cmp A B [TOL]   read A and B; same element count and order, coordinates
         within TOL (relative to the bounding box; 0 = bitwise), the same node-id
         partition (equal ids in A <=> equal ids in B), the same boundary faces.
     hx_iotool info FILE       read FILE and print elements, order, nodes, faces, min det J.
     hx_iotool vol FILE...     read each FILE; print "file FILE", then "error: MESSAGE" or
         "elements E order N nodes U faces F volume V" (det J integrated by a Gauss rule exact
         for the element's polynomial map) and one line per boundary id "bid ID faces COUNT
         area A name NAME"; FILE.vol gets "e volume attribute" per element. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_iotest.h"

static int run(int argc, char **argv);

/* vol FILE...: per file "file PATH", then "error: MESSAGE" or its volumes (exact Gauss rule for
   det J, of degree <= 3N per direction) and the area of every boundary id's faces; PATH.vol gets
   "e volume attribute" per element. One process for many files (MPI's start costs a second). */
static int cmd_vol(int argc, char **argv) {
  for (int k = 2; k < argc; k++) {
    hx_mesh *a;
    printf("file %s\n", argv[k]);
    if (hx_import(HX_COMM_SELF, argv[k], &a)) {
      printf("error: %s\n", hx_error_message());
      hx_error_clear();
      continue;
    }
    double *ev = malloc(((size_t)a->num_elem + 1) * sizeof *ev);
    double vol = hx_iotest_volume(a, ev);
    char out[4200];
    snprintf(out, sizeof out, "%s.vol", argv[k]);
    FILE *fp = fopen(out, "w");
    for (hx_lid e = 0; fp && e < a->num_elem; e++) fprintf(fp, "%d %.17g %d\n", (int)e, ev[e], (int)a->elem_attr[e]);
    if (fp) fclose(fp);
    free(ev);
    hx_lmap *map;
    hx_mesh_lnumbering(a, &map);
    printf("elements %d order %d nodes %d faces %d volume %.15g\n", (int)a->num_elem, a->order, (int)map->num_lnodes,
           (int)a->num_faces, vol);
    hx_lmap_destroy(&map);
    int maxb = 0;
    for (hx_lid f = 0; f < a->num_faces; f++) maxb = a->faces[f].bid > maxb ? a->faces[f].bid : maxb;
    for (int b = 1; b <= maxb; b++) {
      int count = 0;
      double area = hx_iotest_bid_area(a, b, &count);
      if (count)
        printf("bid %d faces %d area %.15g name %s\n", b, count, area, b < a->num_bnames && a->bnames[b] ? a->bnames[b] : "-");
    }
    hx_mesh_destroy(&a);
  }
  return 0;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#endif
  int rc = run(argc, argv);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return rc;
}

static int run(int argc, char **argv) {
  if (argc >= 5 && !strcmp(argv[1], "gen")) {
    hx_mesh *m;
    if (hx_iotest_make(argv[2], atoi(argv[3]), &m)) {
      fprintf(stderr, "%s\n", hx_error_message());
      return 1;
    }
    hx_export_opts o;
    hx_export_opts_default(&o);
    if (getenv("HX_ASCII")) o.binary = 0;
    if (getenv("HX_COMPRESS")) o.compress = atoi(getenv("HX_COMPRESS"));
    if (getenv("HX_CO2")) o.co2 = 1;
    if (getenv("HX_MFEM_H1")) o.mfem_h1 = 1;
    if (hx_export(m, argv[4], &o)) {
      fprintf(stderr, "%s\n", hx_error_message());
      return 1;
    }
    if (argc >= 6) {
      FILE *fp = fopen(argv[5], "w");
      hx_iotest_samples(m, fp);
      fclose(fp);
    }
    hx_mesh_destroy(&m);
    return 0;
  }
  if (argc >= 4 && !strcmp(argv[1], "cmp")) {
    hx_mesh *a, *b;
    if (hx_import(HX_COMM_SELF, argv[2], &a) || hx_import(HX_COMM_SELF, argv[3], &b)) {
      printf("FAIL: %s\n", hx_error_message());
      return 1;
    }
    int r = hx_iotest_cmp(a, b, argc >= 5 ? atof(argv[4]) : 1e-12);
    hx_mesh_destroy(&a);
    hx_mesh_destroy(&b);
    return r;
  }
  if (argc >= 5 && !strcmp(argv[1], "dump")) {
    /* dump FILE ORDER OUT: GLL coordinates "e i j k x y z" (.re2 read at ORDER by Nek's rule) */
    hx_mesh *a;
    int order = atoi(argv[3]);
    const char *ext = strrchr(argv[2], '.');
    int rc =
        (ext && !strcmp(ext, ".re2")) ? hx_import_re2_at(HX_COMM_SELF, argv[2], order, &a) : hx_import(HX_COMM_SELF, argv[2], &a);
    if (rc) {
      printf("error: %s\n", hx_error_message());
      return 1;
    }
    FILE *fp = fopen(argv[4], "w");
    int nd = a->nd;
    for (int e = 0; e < a->num_elem; e++)
      for (int k = 0; k < nd; k++)
        for (int j = 0; j < nd; j++)
          for (int i = 0; i < nd; i++) {
            int q = i + nd * (j + nd * k);
            fprintf(fp, "%d %d %d %d %.17g %.17g %.17g\n", e, i, j, k, hx_mesh_elem_x(a, e, 0)[q], hx_mesh_elem_x(a, e, 1)[q],
                    hx_mesh_elem_x(a, e, 2)[q]);
          }
    fclose(fp);
    printf("elements %d order %d faces %d surfaces %d\n", a->num_elem, a->order, a->num_faces, a->num_surfaces);
    hx_mesh_destroy(&a);
    return 0;
  }
  if (argc >= 4 && !strcmp(argv[1], "detj")) {
    /* detj FILE OUT: det J at every GLL node, "e i j k detj" (reference cube [0,1]^3) */
    hx_mesh *a;
    if (hx_import(HX_COMM_SELF, argv[2], &a)) {
      printf("error: %s\n", hx_error_message());
      return 1;
    }
    double D[HX_MAX_ND * HX_MAX_ND];
    hx_mesh_gll_derivative(a->nd, D);
    FILE *fp = fopen(argv[3], "w");
    int nd = a->nd;
    for (int e = 0; e < a->num_elem; e++)
      for (int k = 0; k < nd; k++)
        for (int j = 0; j < nd; j++)
          for (int i = 0; i < nd; i++) {
            double J[3][3];
            fprintf(fp, "%d %d %d %d %.17g\n", e, i, j, k, hx_mesh_jacobian_at_node(a, D, e, i, j, k, J));
          }
    fclose(fp);
    printf("elements %d order %d\n", a->num_elem, a->order);
    hx_mesh_destroy(&a);
    return 0;
  }
  if (argc >= 3 && !strcmp(argv[1], "vol")) return cmd_vol(argc, argv);
  if (argc >= 3 && !strcmp(argv[1], "info")) {
    hx_mesh *a;
    if (hx_import(HX_COMM_SELF, argv[2], &a)) {
      printf("error: %s\n", hx_error_message());
      return 1;
    }
    hx_mesh_check_report r;
    hx_mesh_check(a, 1e-6, &r);
    hx_lmap *map;
    hx_mesh_lnumbering(a, &map);
    printf("elements %d order %d nodes %d faces %d min_detj %.10e\n", a->num_elem, a->order, map->num_lnodes, a->num_faces,
           r.min_detj);
    hx_lmap_destroy(&map);
    hx_mesh_destroy(&a);
    return 0;
  }
  fprintf(stderr, "usage: hx_iotool gen KIND ORDER OUT [SAMPLES] | cmp A B [TOL] | info FILE\n");
  return 2;
}
