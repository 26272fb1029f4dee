/* Output size estimate and free-space check, done before any writer starts.

   design:
   1. hx_export_estimate: bytes of each file a writer would make, from cheap counts
      only (global elements E, boundary faces F, written order N); the number of
      distinct points is taken as P = E N^3 + F N^2 / 2 (exact to first order for a
      box: (nN+1)^3 = n^3 N^3 + 3 n^2 N^2 + ...), the text formats take the
      mean length of a %.17g number from a sample of the coordinates; the estimate is meant to be within -30 %/+10 % of
      the real size (t171 checks that), i.e. rather low than high, so that a refusal
      is never a false alarm of the estimate (curve records of .re2 and zlib's gain on
      compressed .vtu are not known before writing: counted as 0 and x0.1);
   2. hx_export_check_space: statvfs() of the target directory (f_bavail x f_frsize,
      what an unprivileged writer may use); hx_export_opts.free_bytes (--assume-free-bytes) replaces it
      (for tests: a real full filesystem needs root to make); one line names the
      file(s), the estimate and the free space.
   Collective on m->comm (the face count is summed); rank 0 checks, all agree. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "hx_error.h"
#include "hx_io.h"
#include "io_impl.h"

static double digits(double v) { return v < 10 ? 1 : floor(log10(v)) + 1; }

/* mean length of a coordinate written with %.17g: sampled on up to 4096 of this rank's
   values (a box has short numbers like 0.25, a curved mesh 17-19 characters) */
static double mean_text_len(const hx_mesh *m) {
  size_t n = (size_t)m->num_elem * (size_t)m->nd * m->nd * m->nd * 3;
  if (!m->x || n == 0) return 18;
  size_t step = n / 4096 + 1, cnt = 0;
  double sum = 0;
  char buf[64];
  for (size_t i = 0; i < n; i += step, cnt++) sum += snprintf(buf, sizeof buf, "%.17g", m->x[i]);
  return sum / (double)cnt;
}

int hx_export_estimate(const hx_mesh *m, const char *path, const hx_export_opts *o, hx_export_estimate_t *out) {
  memset(out, 0, sizeof *out);
  const hx_format *f = NULL;
  HX_CALL(hx_format_for_path(path, &f));
  int64_t nf = m->num_faces;
  HX_CALL(hx_comm_sum_int64(m->comm, &nf, 1));
  double E = (double)(m->num_elem_global > 0 ? m->num_elem_global : m->num_elem), F = (double)nf;
  int N = hx_io_out_order(m, o), nd = N + 1;
  double npe = (double)nd * nd * nd, nq = (double)nd * nd;
  double P = E * N * N * N + 0.5 * F * N * N;
  double dP = digits(P), A = (o->binary && strcmp(f->name, "mfem")) ? 18 : mean_text_len(m);
  double b = 0, b2 = 0;
  if (!strcmp(f->name, "re2")) {
    b = 84 + 200 * E + 16 + 64 * F;              /* header, elements, (curves: 0), BCs */
    if (N >= 2) b2 = 136 + 4 * E + 24 * E * npe; /* the X field file */
  } else if (!strcmp(f->name, "msh")) {
    if (o->binary) b = 32 * P + 8 * E * (1 + npe) + 8 * F * (1 + nq);
    else b = P * (dP + 1) + P * (3 * A + 3) + (E * (1 + npe) + F * (1 + nq)) * (dP + 1);
  } else if (!strcmp(f->name, "vtu") || !strcmp(f->name, "pvtu")) { /* pvtu: its pieces, all together */
    if (!o->binary) {
      b = 3 * P * (A + 1) + E * npe * (dP + 1) + E * 2 * (A + 1) + E * (npe > 9 ? 4 : 3) + 14 * E;
    } else {
      /* per element: cell data 12 + 8 + 8 + 4 + 24 + 4 + 1, offsets 8, types 1 */
      b = 24 * P + 8 * E * npe + 70 * E;
      if (o->compress) b *= 0.1; /* zlib: 3-8x on our meshes (a box: 8x) */
    }
  } else if (!strcmp(f->name, "mfem")) {
    b = E * (4 + 8 * (dP + 1)) + F * (4 + 4 * (dP + 1)) + E * npe * (3 * A + 3);
  } else if (!strcmp(f->name, "exodus")) {
    double ne = N == 1 ? 8 : 27;
    b = 24 * P + 4 * E * ne + 16 * F; /* int32 connectivity */
  }
  out->bytes = b;
  out->extra_bytes = b2;
  if (b2 > 0) HX_CALL(hx_re2_field_path(path, out->extra_path, sizeof out->extra_path));
  return HX_OK;
}

/* the directory of path ("." when it has no slash) */
static void dir_of(const char *path, char *dir, size_t cap) {
  const char *s = strrchr(path, '/');
  if (!s) snprintf(dir, cap, ".");
  else if (s == path) snprintf(dir, cap, "/");
  else snprintf(dir, cap, "%.*s", (int)(s - path), path);
}

int hx_free_bytes(const char *path, double *free_bytes, unsigned long *fsid) {
  char dir[4096];
  dir_of(path, dir, sizeof dir);
  struct statvfs sv;
  if (statvfs(dir, &sv) != 0) {
    /* the writer's own open() names a missing directory more clearly: no check here */
    *free_bytes = INFINITY;
    *fsid = 0;
  } else {
    *free_bytes = (double)sv.f_bavail * (double)sv.f_frsize;
    *fsid = sv.f_fsid;
  }
  return HX_OK;
}

static void human(double b, char *s, size_t cap) {
  if (b >= 1e9) snprintf(s, cap, "%.1f GB", b / 1e9);
  else if (b >= 1e6) snprintf(s, cap, "%.1f MB", b / 1e6);
  else if (b >= 1e3) snprintf(s, cap, "%.1f kB", b / 1e3);
  else snprintf(s, cap, "%.0f bytes", b);
}

int hx_io_check_space(const hx_mesh *m, const char *const *paths, int n, const hx_export_opts *o, int verbose) {
  int rc = HX_OK;
  hx_export_estimate_t est[16];
  HX_CHECK(n <= 16, HX_ERR_INTERNAL, "at most 16 outputs");
  for (int k = 0; k < n; k++) HX_CALL(hx_export_estimate(m, paths[k], o, &est[k]));
  if (hx_comm_rank(m->comm) == 0) {
    double fb[16];
    unsigned long id[16];
    for (int k = 0; k < n; k++) {
      hx_free_bytes(paths[k], &fb[k], &id[k]);
      if (o->free_bytes > 0) fb[k] = o->free_bytes;
    }
    for (int k = 0; k < n && rc == HX_OK; k++) {
      /* every output on the same filesystem as this one counts against its free space */
      double total = 0;
      char names[1024] = "";
      for (int j = 0; j < n; j++) {
        if (j != k && (id[j] != id[k] || !id[k])) continue;
        total += est[j].bytes + est[j].extra_bytes;
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s'%s'%s%s%s", l ? " + " : "", paths[j], est[j].extra_bytes > 0 ? " + '" : "",
                 est[j].extra_bytes > 0 ? est[j].extra_path : "", est[j].extra_bytes > 0 ? "'" : "");
      }
      if (verbose && hx_verbosity() > 0)
        fprintf(stderr, "%s: estimated %.0f bytes (%s: %.0f bytes together), %.0f bytes free\n", paths[k],
                est[k].bytes + est[k].extra_bytes, names, total, fb[k]);
      if (total > fb[k]) {
        char t[32], fr[32], dir[4096];
        human(total, t, sizeof t);
        human(fb[k], fr, sizeof fr);
        dir_of(paths[k], dir, sizeof dir);
        rc = HX_ERROR(HX_ERR_IO, "refusing to write %s: about %s estimated, only %s free in '%s'", names, t, fr, dir);
      }
    }
  }
  return hx_comm_agree(m->comm, rc);
}

int hx_export_check_space(const hx_mesh *m, const char *const *paths, int n, const hx_export_opts *o) {
  return hx_io_check_space(m, paths, n, o, 1);
}
