/* hx_iobench: write and read speed of each mesh format, in MB/s of file written/read.
     hx_iobench N ORDER DIR      (box of N^3 elements at ORDER; files in DIR)
   Prints one CSV line per format: format,elements,order,bytes,write_s,write_MBps,read_s,read_MBps.
   Run bench/io.sh for the table with the disk's own dd speed measured in the same run. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "hx_box.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_io.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#endif
  if (argc < 4) {
    fprintf(stderr, "usage: hx_iobench N ORDER DIR\n");
    return 2;
  }
  hx_box_opts o;
  hx_box_opts_default(&o);
  o.n[0] = o.n[1] = o.n[2] = atoi(argv[1]);
  o.order = atoi(argv[2]);
  hx_mesh *m;
  if (hx_mesher_box(HX_COMM_SELF, &o, &m)) {
    fprintf(stderr, "%s\n", hx_error_message());
    return 1;
  }
  static const char *ext[] = {".vtu", ".re2", ".msh"};
  printf("format,elements,order,bytes,write_s,write_MBps,read_s,read_MBps\n");
  for (int f = 0; f < 3; f++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/iobench%s", argv[3], ext[f]);
    hx_export_opts eo;
    hx_export_opts_default(&eo);
    eo.force = 1; /* the writers' own work only, not the det J check */
    double t0 = now();
    if (hx_export(m, path, &eo)) {
      fprintf(stderr, "%s\n", hx_error_message());
      return 1;
    }
    double tw = now() - t0;
    struct stat st;
    stat(path, &st);
    double bytes = (double)st.st_size;
    /* include the field file of .re2 at order >= 2 */
    char fld[4200];
    if (f == 1 && o.order >= 2 && hx_re2_field_path(path, fld, sizeof fld) == HX_OK && stat(fld, &st) == 0)
      bytes += (double)st.st_size;
    hx_mesh *r;
    t0 = now();
    if (hx_import(HX_COMM_SELF, path, &r)) {
      fprintf(stderr, "%s\n", hx_error_message());
      return 1;
    }
    double tr = now() - t0;
    hx_mesh_destroy(&r);
    printf("%s,%lld,%d,%.0f,%.3f,%.1f,%.3f,%.1f\n", ext[f] + 1, (long long)m->num_elem, o.order, bytes, tw,
           bytes / tw / 1e6, tr, bytes / tr / 1e6);
    fflush(stdout);
    remove(path);
    if (f == 1) remove(fld);
  }
  hx_mesh_destroy(&m);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return 0;
}
