/* The format table: one row per format (adding a format: a file and a row). The CLI prints it
   for --help and an unknown extension lists the known ones. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hx_error.h"
#include "hx_io.h"
#include "io_impl.h"

static const hx_format formats[] = {
    /* name   ext      writer  reader  what  check  read_checks */
    {"exodus", ".exo", hx_export_exodus, hx_import_exodus,
     "Exodus II: writes HEX8 (order 1) / HEX27 (order 2); reads HEX8/HEX20/HEX27 blocks; named sidesets", hx_exodus_check, 0},
    {"exodus", ".e", hx_export_exodus, hx_import_exodus, "Exodus II (as .exo)", hx_exodus_check, 0},
    {"mfem", ".mesh", hx_export_mfem, hx_import_mfem,
     "MFEM mesh (writes v1.0 with L2_T1 or H1 nodes; reads v1.0/1.2/1.3, vertices, H1 and L2 nodes)", NULL, 0},
    {"msh", ".msh", hx_export_msh, hx_import_msh, "Gmsh MSH 4.1 (binary; ASCII with --ascii), Lagrange hexahedra of order 1..9",
     hx_msh_check, HX_READ_FACE_NODES},
    {"pvtu", ".pvtu", hx_export_pvtu, hx_import_pvtu, "VTK parallel unstructured grid: one .vtu piece per rank + the index", NULL,
     HX_READ_HOLES | HX_READ_FACE_NODES},
    {"re2", ".re2", hx_export_re2, hx_import_re2, "Nek5000/NekRS binary mesh (+ .co2, + order-N field file)", NULL,
     HX_READ_HOLES},
    {"vtk", ".vtk", NULL, hx_import_vtk, "legacy VTK unstructured grid (read): hexahedra 12, 25, 29, 72, ASCII or binary", NULL,
     HX_READ_FACE_NODES},
    {"vtu", ".vtu", hx_export_vtu, hx_import_vtu, "VTK XML unstructured grid, Lagrange hexahedra (type 72)", NULL,
     HX_READ_HOLES | HX_READ_FACE_NODES},
    {NULL, NULL, NULL, NULL, NULL, NULL, 0},
};

const hx_format *hx_formats(void) { return formats; }

void hx_export_opts_default(hx_export_opts *o) {
  memset(o, 0, sizeof *o);
  o->binary = 1;
  o->compress = 0; /* raw appended data is several times faster to write */
}

int hx_format_for_path(const char *path, const hx_format **out) {
  const char *dot = strrchr(path, '.');
  char known[256] = "";
  for (const hx_format *f = formats; f->name; f++) {
    if (dot && !strcasecmp(dot, f->ext)) {
      *out = f;
      return HX_OK;
    }
    if (known[0]) strcat(known, ", ");
    strcat(known, f->ext);
  }
  return HX_ERROR(HX_ERR_INPUT, "'%s': unknown mesh format '%s'; known: %s", path, dot ? dot : "(no extension)",
                  known[0] ? known : "(none)");
}

/* the files an output writes: the path, a .re2's field file and .co2, a .pvtu's first piece */
static int output_files(const char *path, char out[3][4200]) {
  snprintf(out[0], sizeof out[0], "%s", path);
  size_t l = strlen(path);
  if (l > 5 && !strcasecmp(path + l - 5, ".pvtu")) {
    snprintf(out[1], sizeof out[1], "%.*s_0.vtu", (int)(l - 5), path);
    return 2;
  }
  if (l <= 4 || strcasecmp(path + l - 4, ".re2") || hx_re2_field_path(path, out[1], sizeof out[1]) != HX_OK) return 1;
  snprintf(out[2], sizeof out[2], "%.*s.co2", (int)(l - 4), path);
  return 3;
}

int hx_export_check_path(const char *path, int order) {
  const hx_format *f = NULL;
  HX_CALL(hx_format_for_path(path, &f));
  HX_CHECK(f->write, HX_ERR_INPUT, "'%s': format '%s' has no writer", path, f->name);
  if (order > 0) {
    HX_CHECK(order <= HX_MAX_ORDER, HX_ERR_INPUT, "'%s': order %d is above the largest, %d", path, order, HX_MAX_ORDER);
    if (f->check) HX_CALL(f->check(path, order));
  }
  char files[3][4200];
  int nf = output_files(path, files);
  for (int k = 0; k < nf; k++) {
    struct stat st;
    HX_CHECK(stat(files[k], &st) != 0 || !S_ISDIR(st.st_mode), HX_ERR_INPUT, "output '%s': '%s' is a directory", path, files[k]);
  }
  /* the directory exists and takes a new file: create the probe under the temporary name the
     writer will use, and remove it */
  int slot;
  HX_CALL(hx_outtmp_open(path, &slot));
  int fd = open(hx_outtmp_name(slot), O_WRONLY | O_CREAT | O_TRUNC, 0666), err = errno;
  if (fd >= 0) close(fd);
  hx_outtmp_drop(slot);
  if (fd < 0) {
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
    return HX_ERROR(HX_ERR_IO, "cannot write '%s': %s%s%s", path, err == ENOENT ? "no such directory '" : strerror(err),
                    err == ENOENT ? dir : "", err == ENOENT ? "'" : "");
  }
  return HX_OK;
}

int hx_export_check_paths(const char *const *paths, int n, int order) {
  for (int k = 0; k < n; k++) HX_CALL(hx_export_check_path(paths[k], order));
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++) {
      char fa[3][4200], fb[3][4200];
      int na = output_files(paths[a], fa), nb = output_files(paths[b], fb);
      HX_CHECK(strcmp(fa[0], fb[0]) != 0, HX_ERR_INPUT, "output '%s' is given twice", paths[a]);
      for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
          HX_CHECK(strcmp(fa[i], fb[j]) != 0, HX_ERR_INPUT, "outputs '%s' and '%s' would both write '%s'", paths[a], paths[b],
                   fa[i]);
    }
  return HX_OK;
}

int hx_export(const hx_mesh *m, const char *path, const hx_export_opts *o) {
  const hx_format *f = NULL;
  HX_CALL(hx_format_for_path(path, &f));
  HX_CHECK(f->write, HX_ERR_INPUT, "'%s': format '%s' has no writer", path, f->name);
  /* refuse before writing anything when the estimated size exceeds the free space */
  HX_CALL(hx_io_check_space(m, &path, 1, o, 0));
  if (!hx_io_skip_detj(o)) {
    /* det J > 0 at every GLL node (the full hx_mesh_check sorts all node ids:
       too slow to repeat before every file) */
    double D[HX_MAX_ND * HX_MAX_ND], min_detj = INFINITY;
    int64_t bad = 0;
    hx_lid first_bad = -1;
    HX_CALL(hx_mesh_gll_derivative(m->nd, D));
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : bad) reduction(min : min_detj)
    for (hx_lid e = 0; e < m->num_elem; e++) {
      double emin = INFINITY;
      for (int k = 0; k < m->nd; k++)
        for (int j = 0; j < m->nd; j++)
          for (int i = 0; i < m->nd; i++) {
            double J[3][3], d = hx_mesh_jacobian_at_node(m, D, e, i, j, k, J);
            if (d < emin) emin = d;
          }
      if (emin < min_detj) min_detj = emin;
      if (!(emin > 0)) {
        bad++;
#pragma omp critical
        if (first_bad < 0 || e < first_bad) first_bad = e;
      }
    }
    /* collective: every rank refuses together, naming the first bad element globally */
    int64_t gfirst = first_bad >= 0 ? m->elem_offset + first_bad : INT64_MAX;
    HX_CALL(hx_comm_sum_int64(m->comm, &bad, 1));
    HX_CALL(hx_comm_min_double(m->comm, &min_detj, 1));
    HX_CALL(hx_comm_min_int64(m->comm, &gfirst, 1));
    if (bad)
      return HX_ERROR(HX_ERR_INVALID_MESH,
                      "refusing to write '%s': %lld element(s) have det J <= 0 (min %.3e, e.g. element %lld); use "
                      "--force to write anyway",
                      path, (long long)bad, min_detj, (long long)gfirst);
  }
  return f->write(m, path, o);
}

static double wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int hx_import_ex(hx_comm comm, const char *path, const hx_import_opts *o, hx_mesh **out, hx_read_check *chk) {
  const hx_format *f = NULL;
  hx_read_check own;
  if (!chk) chk = &own;
  memset(chk, 0, sizeof *chk);
  chk->first_inverted = -1;
  HX_CALL(hx_io_check_input(path));
  HX_CALL(hx_format_for_path(path, &f));
  HX_CHECK(f->read, HX_ERR_INPUT, "'%s': format '%s' has no reader", path, f->name);
  hx_mesh *m = NULL;
  HX_CALL(f->read(comm, path, &m));
  if (o && o->no_check) {
    *out = m;
    return HX_OK;
  }
  double t0 = wtime();
  int rc = hx_io_read_check(m, f->read_checks, chk);
  chk->seconds = wtime() - t0;
  if (rc == HX_OK) hx_info("read check of %s: %.3f s (%lld elements)", path, chk->seconds, (long long)m->num_elem);
  if (rc == HX_OK && chk->broken && !(o && o->force))
    rc = HX_ERROR(HX_ERR_INPUT, "%s: broken mesh: %s (--force reads it anyway)", path, chk->what);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}

int hx_import(hx_comm comm, const char *path, hx_mesh **out) { return hx_import_ex(comm, path, NULL, out, NULL); }
