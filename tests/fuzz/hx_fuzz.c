/* Shared by the fuzz harnesses and the corpus driver (see hx_fuzz.h). */
#include "hx_fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hx_error.h"
#include "hx_io.h"
#include "hx_memory.h"
#include "hx_mesh.h"
#include "hx_particles.h"
#include "hx_pebble.h"

static const char *const names[HX_FUZZ_NREADERS] = {"re2", "vtu", "mfem", "pebble", "nekfld", "vtk", "msh", "dem"};
static const char *const exts[HX_FUZZ_NREADERS] = {".re2", ".vtu", ".mesh", ".txt", "0.f00000", ".vtk", ".msh", ".dat"};

int hx_fuzz_reader_of(const char *name) {
  for (int i = 0; i < HX_FUZZ_NREADERS; i++)
    if (!strcmp(name, names[i])) return i;
  return -1;
}

const char *hx_fuzz_reader_name(int reader) { return reader >= 0 && reader < HX_FUZZ_NREADERS ? names[reader] : "?"; }

static char dir[512];

static void cleanup(void) {
  if (dir[0]) rmdir(dir);
}

static const char *tmpdir(void) {
  if (!dir[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/hxfuzz.XXXXXX", t && t[0] ? t : "/tmp");
    if (!mkdtemp(dir)) {
      perror("hx_fuzz: mkdtemp");
      abort();
    }
    atexit(cleanup);
  }
  return dir;
}

static void put(const char *path, const uint8_t *data, size_t size) {
  FILE *fp = fopen(path, "wb");
  if (!fp || (size && fwrite(data, 1, size, fp) != size) || fclose(fp)) {
    perror(path);
    abort();
  }
}

static const uint8_t *find(const uint8_t *d, size_t n, const char *s) {
  size_t k = strlen(s);
  for (size_t i = 0; i + k <= n; i++)
    if (d[i] == (uint8_t)s[0] && !memcmp(d + i, s, k)) return d + i;
  return NULL;
}

int hx_fuzz_one(int reader, const uint8_t *data, size_t size, int *status) {
  char path[600], fld[640];
  snprintf(path, sizeof path, "%s/in%s", tmpdir(), exts[reader]);
  snprintf(fld, sizeof fld, "%s/in0.f00000", tmpdir());
  int rc = HX_OK, have_fld = 0;
  hx_error_clear();
  switch (reader) {
  case HX_FUZZ_RE2: {
    const uint8_t *sep = find(data, size, HX_FUZZ_FIELD_SEP);
    size_t n = sep ? (size_t)(sep - data) : size;
    put(path, data, n);
    if (sep) {
      size_t skip = n + strlen(HX_FUZZ_FIELD_SEP);
      put(fld, data + skip, size - skip);
      have_fld = 1;
    }
    hx_mesh *m = NULL;
    rc = hx_import_re2(HX_COMM_SELF, path, &m);
    hx_mesh_destroy(&m);
    break;
  }
  case HX_FUZZ_VTU:
  case HX_FUZZ_MFEM:
  case HX_FUZZ_VTK:
  case HX_FUZZ_MSH: {
    put(path, data, size);
    hx_mesh *m = NULL;
    rc = reader == HX_FUZZ_VTU    ? hx_import_vtu(HX_COMM_SELF, path, &m)
         : reader == HX_FUZZ_MFEM ? hx_import_mfem(HX_COMM_SELF, path, &m)
         : reader == HX_FUZZ_VTK  ? hx_import_vtk(HX_COMM_SELF, path, &m)
                                  : hx_import_msh(HX_COMM_SELF, path, &m);
    hx_mesh_destroy(&m);
    break;
  }
  case HX_FUZZ_PEBBLE: {
    put(path, data, size);
    hx_pebble_bed *b = NULL;
    rc = hx_pebble_bed_read(path, 0.5, &b);
    if (!rc) {
      /* the checks that run right after reading (overlaps, sizes) */
      hx_pebble_opts o;
      hx_pebble_opts_default(&o);
      rc = hx_pebble_opts_finish(&o, b);
      if (!rc) rc = hx_pebble_bed_check(b, &o);
    }
    hx_pebble_bed_destroy(&b);
    break;
  }
  case HX_FUZZ_DEM: {
    /* packings from DEM codes, the form told from the bytes; a table goes to the pebble reader */
    put(path, data, size);
    int form;
    rc = hx_particles_detect(path, &form);
    if (!rc && form == HX_PARTICLES_TABLE) {
      hx_pebble_bed *b = NULL;
      rc = hx_pebble_bed_read(path, 0.5, &b);
      hx_pebble_bed_destroy(&b);
    } else if (!rc) {
      hx_particles_opts o;
      hx_particles_opts_default(&o);
      o.radius = size % 2 ? 0.5 : 0; /* with and without a default radius */
      hx_particles *p = NULL;
      rc = hx_particles_read(path, &o, &p);
      hx_particles_destroy(&p);
    }
    break;
  }
  case HX_FUZZ_NEKFLD: {
    /* first byte: element count 1..8 the caller expects */
    int64_t nelt = size ? 1 + data[0] % 8 : 1;
    put(fld, size ? data + 1 : data, size ? size - 1 : 0);
    have_fld = 1;
    int order = 0;
    double *x = NULL;
    rc = hx_nek_field_read(fld, nelt, &order, &x);
    hx_free(&x);
    break;
  }
  default: abort();
  }
  if (reader != HX_FUZZ_NEKFLD) unlink(path);
  if (have_fld) unlink(fld);
  if (status) *status = rc;
  if (rc == HX_OK) return 0;
  const char *msg = hx_error_message();
  if (!msg[0] || strchr(msg, '\n')) {
    fprintf(stderr, "hx_fuzz %s: return code %d (%s) with %s message: '%s'\n", names[reader], rc, hx_status_name(rc),
            msg[0] ? "a multi-line" : "no", msg);
    return 1;
  }
  return 0;
}
