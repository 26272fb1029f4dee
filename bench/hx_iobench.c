/* hx_iobench: write and read speed of each mesh format, in MB/s of file written/read.
     hx_iobench N ORDER DIR [FORMATS]   (box of N^3 elements at ORDER; files in DIR;
                                         FORMATS: comma list of the names below, default all)
   Formats: vtu (appended raw), vtu-zlib, re2 (+ the X field file at order >= 2),
   msh (binary), msh-ascii, mfem, exo (order 1 and 2 only).
   Per format: hx_export (det J check off: the writer's own work), then fsync() of the
   file(s) (the page cache reaches the disk: write+fsync is comparable with dd
   conv=fdatasync), then posix_fadvise(DONTNEED) drops the file's pages from the cache
   so that hx_import reads from the disk, then hx_import.
   Prints one CSV line per format:
     format,elements,order,bytes,est_bytes,write_s,fsync_s,write_MBps,write_fsync_MBps,read_s,read_MBps
   (write_MBps: into the page cache; write_fsync_MBps: on the disk; read_MBps: cold cache).
   Run bench/io.sh for the table with the disk's own dd speed measured in the same run. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hx_box.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_io.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* fsync path (if it exists) and drop its pages from the page cache; returns its size */
static double sync_drop(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  fsync(fd);
  struct stat st;
  fstat(fd, &st);
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
  return (double)st.st_size;
}

typedef struct fmt {
  const char *name, *ext;
  int binary, compress, has_reader;
} fmt;

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#endif
  if (argc < 4) {
    fprintf(stderr, "usage: hx_iobench N ORDER DIR [vtu,vtu-zlib,re2,msh,msh-ascii,mfem,exo]\n");
    return 2;
  }
  const char *only = argc > 4 ? argv[4] : NULL;
  hx_box_opts o;
  hx_box_opts_default(&o);
  o.n[0] = o.n[1] = o.n[2] = atoi(argv[1]);
  o.order = atoi(argv[2]);
  hx_mesh *m;
  if (hx_mesher_box(HX_COMM_SELF, &o, &m)) {
    fprintf(stderr, "%s\n", hx_error_message());
    return 1;
  }
  static const fmt fmts[] = {
      {"vtu", ".vtu", 1, 0, 1},       {"vtu-zlib", ".vtu", 1, 1, 1}, {"re2", ".re2", 1, 0, 1}, {"msh", ".msh", 1, 0, 1},
      {"msh-ascii", ".msh", 0, 0, 1}, {"mfem", ".mesh", 0, 0, 1},    {"exo", ".exo", 1, 0, 0},
  };
  printf("format,elements,order,bytes,est_bytes,write_s,fsync_s,write_MBps,write_fsync_MBps,read_s,read_MBps\n");
  fflush(stdout);
  for (size_t f = 0; f < sizeof fmts / sizeof *fmts; f++) {
    const fmt *F = &fmts[f];
    if (only) {
      char list[256];
      snprintf(list, sizeof list, ",%s,", only);
      char key[64];
      snprintf(key, sizeof key, ",%s,", F->name);
      if (!strstr(list, key)) continue;
    }
    if (!strcmp(F->name, "exo") && (!HX_HAVE_EXODUS || o.order > 2)) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/iobench%s", argv[3], F->ext);
    hx_export_opts eo;
    hx_export_opts_default(&eo);
    eo.force = 1; /* the writers' own work only, not the det J check */
    eo.binary = F->binary;
    eo.compress = F->compress;
    hx_export_estimate_t est;
    if (hx_export_estimate(m, path, &eo, &est)) {
      fprintf(stderr, "%s\n", hx_error_message());
      return 1;
    }
    double t0 = now();
    if (hx_export(m, path, &eo)) {
      fprintf(stderr, "%s\n", hx_error_message());
      return 1;
    }
    double tw = now() - t0;
    /* .re2 at order >= 2 also writes the X field file: counted in bytes and times */
    char fld[4200] = "";
    if (!strcmp(F->name, "re2") && o.order >= 2) hx_re2_field_path(path, fld, sizeof fld);
    t0 = now();
    double bytes = sync_drop(path);
    if (fld[0]) bytes += sync_drop(fld);
    double ts = now() - t0;
    double tr = 0;
    if (F->has_reader) {
      hx_mesh *r;
      t0 = now();
      if (hx_import(HX_COMM_SELF, path, &r)) {
        fprintf(stderr, "%s\n", hx_error_message());
        return 1;
      }
      tr = now() - t0;
      hx_mesh_destroy(&r);
    }
    printf("%s,%lld,%d,%.0f,%.0f,%.3f,%.3f,%.1f,%.1f,%.3f,%.1f\n", F->name, (long long)m->num_elem, o.order, bytes,
           est.bytes + est.extra_bytes, tw, ts, bytes / tw / 1e6, bytes / (tw + ts) / 1e6, tr,
           F->has_reader ? bytes / tr / 1e6 : 0.0);
    fflush(stdout);
    remove(path);
    if (fld[0]) remove(fld);
  }
  hx_mesh_destroy(&m);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return 0;
}
