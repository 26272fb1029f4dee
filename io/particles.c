/* Packings from DEM codes (hx_particles.h): LAMMPS / LIGGGHTS dump files, CSV tables with a
   header line, VTK XML and legacy VTK particle files; the form is told from the content.

   design:
   1. detection: compressed files are refused; '<' with a <VTKFile> tag is VTK XML, '# vtk
      DataFile' legacy VTK, 'ITEM:' a LAMMPS dump; otherwise the first line that is neither
      blank nor a '#' comment decides: a number first is a table of 'x y z [r]' (the pebble
      mesher's own reader), a word first is the header of a CSV table;
   2. the text forms are read line by line (lines of any length; a NUL byte is refused), and
      every value is checked (a number, finite) where it is read, so that a message names the
      line; the VTK forms are read whole, the XML's base64 and zlib data through vtu_read.c;
   3. LAMMPS: every snapshot up to the chosen one (the last by default) is read and the chosen
      one kept; scaled coordinates go through that snapshot's box (orthogonal, restricted
      triclinic with tilt factors, or general triclinic 'abc origin'); the rows, which LAMMPS
      writes in any order, are put in atom-id order;
   4. every length read is multiplied by the scale; a diameter is halved. */
#include "hx_particles.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "io_impl.h"

void hx_particles_opts_default(hx_particles_opts *o) {
  memset(o, 0, sizeof *o);
  o->scale = 1.0;
}

const char *hx_particles_form_name(int form) {
  static const char *names[] = {"table", "lammps", "csv", "vtk-xml", "vtk"};
  return form >= 0 && form <= HX_PARTICLES_VTK ? names[form] : "unknown";
}

void hx_particles_destroy(hx_particles **p) {
  if (!p || !*p) return;
  hx_free(&(*p)->xyz);
  hx_free(&(*p)->r);
  hx_free(&(*p)->line);
  hx_free(p);
}

/* ---- detection ------------------------------------------------------------------- */

static int is_number_token(const char *s) {
  char *e;
  errno = 0;
  strtod(s, &e);
  return e != s && (*e == 0 || isspace((unsigned char)*e) || *e == ',' || *e == ';');
}

static int open_packing(const char *path, FILE **fp) {
  struct stat st;
  HX_CHECK(stat(path, &st) == 0, HX_ERR_IO, "cannot open centres file '%s': %s", path, strerror(errno));
  HX_CHECK(!S_ISDIR(st.st_mode), HX_ERR_INPUT, "%s: is a directory, expected a packing file", path);
  *fp = fopen(path, "rb");
  HX_CHECK(*fp, HX_ERR_IO, "cannot open centres file '%s': %s", path, strerror(errno));
  return HX_OK;
}

int hx_particles_detect(const char *path, int *form) {
  *form = HX_PARTICLES_TABLE;
  FILE *fp;
  HX_CALL(open_packing(path, &fp));
  char head[8192];
  size_t n = fread(head, 1, sizeof head - 1, fp);
  fclose(fp);
  head[n] = 0;
  const unsigned char *u = (const unsigned char *)head;
  HX_CHECK(!(n >= 2 && u[0] == 0x1f && u[1] == 0x8b), HX_ERR_INPUT,
           "%s: gzip-compressed; expected a packing file (gunzip it first)", path);
  HX_CHECK(!(n >= 4 && u[0] == 0x28 && u[1] == 0xb5 && u[2] == 0x2f && u[3] == 0xfd), HX_ERR_INPUT,
           "%s: zstd-compressed; expected a packing file (unzstd it first)", path);
  const char *s = head;
  if (n >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf) s += 3; /* UTF-8 byte order mark */
  while (*s && isspace((unsigned char)*s)) s++;
  if (*s == '<') {
    HX_CHECK(strstr(s, "<VTKFile"), HX_ERR_INPUT,
             "%s: unknown layout: an XML file without a <VTKFile> tag in its first %zu bytes; expected a VTK XML file (.vtu, "
             ".vtp) of particles",
             path, n);
    *form = HX_PARTICLES_VTKXML;
    return HX_OK;
  }
  if (!strncmp(s, "# vtk DataFile", 14)) {
    *form = HX_PARTICLES_VTK;
    return HX_OK;
  }
  if (!strncmp(s, "ITEM:", 5)) {
    *form = HX_PARTICLES_LAMMPS;
    return HX_OK;
  }
  /* the first line that is not a comment: a number first, or a word (a header) */
  while (*s) {
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
    if (*s == '#') {
      while (*s && *s != '\n') s++;
      continue;
    }
    break;
  }
  if (!*s) return HX_OK; /* nothing but comments: the table reader says what is missing */
  const char *t = s;
  if (*t == '"' || *t == '\'') return (*form = HX_PARTICLES_CSV), HX_OK;
  *form = is_number_token(t) ? HX_PARTICLES_TABLE : HX_PARTICLES_CSV;
  return HX_OK;
}

/* ---- lines ----------------------------------------------------------------------- */

typedef struct lines {
  FILE *fp;
  const char *path;
  char *buf;
  size_t cap;
  int line;   /* the line number of buf */
  int pushed; /* 1: the next call returns buf again */
} lines;

/* next line into *s (trailing CR/LF removed): 1, 0 at the end of the file, or an error code */
static int next_line(lines *L, char **s, int *rc) {
  *rc = HX_OK;
  if (L->pushed) {
    L->pushed = 0;
    *s = L->buf;
    return 1;
  }
  errno = 0;
  ssize_t len = getline(&L->buf, &L->cap, L->fp);
  if (len < 0) {
    if (ferror(L->fp)) *rc = HX_ERROR(HX_ERR_IO, "error reading '%s' after line %d: %s", L->path, L->line, strerror(errno));
    return 0;
  }
  L->line++;
  if ((size_t)len != strlen(L->buf)) {
    *rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: a NUL byte in the line (not a text file?)", L->path, L->line);
    return 0;
  }
  while (len > 0 && (L->buf[len - 1] == '\n' || L->buf[len - 1] == '\r')) L->buf[--len] = 0;
  *s = L->buf;
  return 1;
}

static int blank(const char *s) {
  while (isspace((unsigned char)*s)) s++;
  return *s == 0;
}

/* split s in place at whitespace: up to max tokens stored, the count returned */
static int split_ws(char *s, char **tok, int max) {
  int n = 0;
  while (1) {
    while (isspace((unsigned char)*s)) s++;
    if (!*s) return n;
    if (n < max) tok[n] = s;
    n++;
    while (*s && !isspace((unsigned char)*s)) s++;
    if (*s) *s++ = 0;
  }
}

/* a token as a number: 1 (a number, maybe NaN or infinite), 0 (not a number) */
static int token_number(const char *t, double *v) {
  char *e;
  *v = strtod(t, &e);
  return e != t && *e == 0;
}

/* a value of column `name` on line `line`: a finite number */
static int column_value(const char *path, int line, const char *name, const char *t, double *v) {
  HX_CHECK(token_number(t, v), HX_ERR_INPUT, "%s:%d: column '%s': expected a number, found '%.40s'", path, line, name, t);
  HX_CHECK(isfinite(*v), HX_ERR_INPUT, "%s:%d: column '%s' is not a finite number (NaN or infinity)", path, line, name);
  return HX_OK;
}

/* ---- the result being built -------------------------------------------------------- */

typedef struct build {
  hx_particles *p;
  int64_t cap;
  int64_t *id; /* [cap] LAMMPS atom ids (NULL: none) */
} build;

static int build_push(build *b, const double x[3], double r, int line, int64_t id) {
  hx_particles *p = b->p;
  if (p->n == b->cap) {
    int64_t cap = b->cap ? 2 * b->cap : 1024;
    HX_CALL(hx_realloc((size_t)cap * 3 * sizeof *p->xyz, &p->xyz));
    HX_CALL(hx_realloc((size_t)cap * sizeof *p->r, &p->r));
    HX_CALL(hx_realloc((size_t)cap * sizeof *p->line, &p->line));
    if (b->id) HX_CALL(hx_realloc((size_t)cap * sizeof *b->id, &b->id));
    b->cap = cap;
  }
  memcpy(p->xyz + 3 * p->n, x, 3 * sizeof(double));
  p->r[p->n] = r;
  p->line[p->n] = line;
  if (b->id) b->id[p->n] = id;
  p->n++;
  return HX_OK;
}

/* scale, the radius rule, and the limits every form shares; `what` names the radius source */
static int finish_lengths(const char *path, hx_particles *p, const hx_particles_opts *o, int have_r) {
  HX_CHECK(p->n <= INT32_MAX, HX_ERR_INPUT, "%s: %lld particles exceed the 32-bit sphere index", path, (long long)p->n);
  for (int64_t i = 0; i < p->n; i++) {
    for (int d = 0; d < 3; d++) {
      p->xyz[3 * i + d] *= o->scale;
      HX_CHECK(isfinite(p->xyz[3 * i + d]), HX_ERR_INPUT, "%s:%d: particle %lld: coordinate %d times the scale %g is not finite",
               path, p->line[i], (long long)i + 1, d + 1, o->scale);
    }
    if (have_r) {
      p->r[i] *= o->scale;
      HX_CHECK(isfinite(p->r[i]) && p->r[i] > 0, HX_ERR_INPUT,
               "%s:%d: particle %lld: the radius times the scale %g is %g; expected a positive finite radius", path, p->line[i],
               (long long)i + 1, o->scale, p->r[i]);
    } else {
      p->r[i] = o->radius;
    }
  }
  return HX_OK;
}

/* ---- LAMMPS / LIGGGHTS dump files --------------------------------------------------- */

typedef struct lmp_box {
  int kind;            /* 0 none, 1 orthogonal, 2 restricted triclinic, 3 general triclinic */
  double lo[3], hi[3]; /* the box (triclinic: from the bounding box and the tilts) */
  double xy, xz, yz;
  double a[3], b[3], c[3], origin[3]; /* general triclinic */
} lmp_box;

/* the three lines after ITEM: BOX BOUNDS (their flags in `flags`) */
static int lmp_read_box(lines *L, const char *flags, lmp_box *box) {
  int item_line = L->line;
  char fl[256];
  snprintf(fl, sizeof fl, "%s", flags);
  char *tok[16];
  int nt = split_ws(fl, tok, 16), kind = 1;
  if (nt >= 1 && !strcmp(tok[0], "abc")) kind = 3;
  else
    for (int k = 0; k < nt && k < 16; k++)
      if (!strcmp(tok[k], "xy")) kind = 2;
  int want = kind == 1 ? 2 : kind == 2 ? 3 : 4;
  const char *form = kind == 1 ? "'lo hi'" : kind == 2 ? "'lo_bound hi_bound tilt'" : "'ax ay az origin'";
  double v[3][4];
  for (int d = 0; d < 3; d++) {
    char *s;
    int rc;
    if (!next_line(L, &s, &rc)) {
      HX_CALL(rc);
      return HX_ERROR(HX_ERR_INPUT, "%s:%d: the file ends inside ITEM: BOX BOUNDS (line %d): expected 3 lines of %s", L->path,
                      L->line, item_line, form);
    }
    char *t[8];
    int n = split_ws(s, t, 8);
    HX_CHECK(n == want, HX_ERR_INPUT, "%s:%d: expected %s (ITEM: BOX BOUNDS, line %d), found %d value(s)", L->path, L->line, form,
             item_line, n);
    for (int k = 0; k < want; k++) {
      HX_CHECK(token_number(t[k], &v[d][k]) && isfinite(v[d][k]), HX_ERR_INPUT,
               "%s:%d: expected %s (ITEM: BOX BOUNDS, line %d), found '%.40s'", L->path, L->line, form, item_line, t[k]);
    }
  }
  memset(box, 0, sizeof *box);
  box->kind = kind;
  if (kind == 3) {
    for (int d = 0; d < 3; d++) {
      box->a[d] = v[0][d], box->b[d] = v[1][d], box->c[d] = v[2][d];
      box->origin[d] = v[d][3];
    }
    return HX_OK;
  }
  for (int d = 0; d < 3; d++) box->lo[d] = v[d][0], box->hi[d] = v[d][1];
  if (kind == 2) {
    /* the dump gives the bounding box of the tilted cell (LAMMPS "Howto triclinic"):
       xlo_bound = xlo + min(0, xy, xz, xy + xz), xhi_bound = xhi + max(0, xy, xz, xy + xz),
       ylo_bound = ylo + min(0, yz), yhi_bound = yhi + max(0, yz) */
    double xy = v[0][2], xz = v[1][2], yz = v[2][2];
    box->xy = xy, box->xz = xz, box->yz = yz;
    box->lo[0] -= fmin(fmin(0.0, xy), fmin(xz, xy + xz));
    box->hi[0] -= fmax(fmax(0.0, xy), fmax(xz, xy + xz));
    box->lo[1] -= fmin(0.0, yz);
    box->hi[1] -= fmax(0.0, yz);
  }
  return HX_OK;
}

/* scaled (fractional) coordinates s to x through the box */
static void lmp_unscale(const lmp_box *b, const double s[3], double x[3]) {
  if (b->kind == 3) {
    for (int d = 0; d < 3; d++) x[d] = b->origin[d] + s[0] * b->a[d] + s[1] * b->b[d] + s[2] * b->c[d];
    return;
  }
  double l[3];
  for (int d = 0; d < 3; d++) l[d] = b->hi[d] - b->lo[d];
  x[0] = b->lo[0] + s[0] * l[0] + s[1] * b->xy + s[2] * b->xz;
  x[1] = b->lo[1] + s[1] * l[1] + s[2] * b->yz;
  x[2] = b->lo[2] + s[2] * l[2];
}

static int parse_int64(const char *s, int64_t *v) {
  char *e;
  errno = 0;
  long long x = strtoll(s, &e, 10);
  while (isspace((unsigned char)*e)) e++;
  if (e == s || *e || errno) return 0;
  *v = x;
  return 1;
}

typedef struct id_index {
  int64_t id, k;
} id_index;

static int cmp_id(const void *a, const void *b) {
  const id_index *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id ? 1 : (x->k > y->k) - (x->k < y->k);
}

/* put the particles in atom-id order; refuse an id given twice */
static int lmp_sort(const char *path, build *b) {
  hx_particles *p = b->p;
  id_index *ix = NULL;
  double *xyz = NULL, *r = NULL;
  int *line = NULL;
  int rc = hx_malloc((size_t)(p->n ? p->n : 1) * sizeof *ix, &ix);
  if (!rc) rc = hx_malloc((size_t)(p->n ? p->n : 1) * 3 * sizeof *xyz, &xyz);
  if (!rc) rc = hx_malloc((size_t)(p->n ? p->n : 1) * sizeof *r, &r);
  if (!rc) rc = hx_malloc((size_t)(p->n ? p->n : 1) * sizeof *line, &line);
  if (!rc) {
    for (int64_t i = 0; i < p->n; i++) ix[i].id = b->id[i], ix[i].k = i;
    qsort(ix, (size_t)p->n, sizeof *ix, cmp_id);
    for (int64_t i = 1; i < p->n && !rc; i++)
      if (ix[i].id == ix[i - 1].id)
        rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: atom id %lld is also on line %d of the snapshot: expected distinct ids", path,
                      p->line[ix[i].k], (long long)ix[i].id, p->line[ix[i - 1].k]);
  }
  if (!rc) {
    for (int64_t i = 0; i < p->n; i++) {
      memcpy(xyz + 3 * i, p->xyz + 3 * ix[i].k, 3 * sizeof *xyz);
      r[i] = p->r[ix[i].k];
      line[i] = p->line[ix[i].k];
    }
    hx_free(&p->xyz), hx_free(&p->r), hx_free(&p->line);
    p->xyz = xyz, p->r = r, p->line = line;
    xyz = NULL, r = NULL, line = NULL;
  }
  hx_free(&ix), hx_free(&xyz), hx_free(&r), hx_free(&line);
  return rc;
}

typedef struct lmp_cols {
  int x[3], scaled, id, radius, diameter, ncols;
  const char *xname[3]; /* the coordinate columns' names */
  char set[16];         /* "x y z", ... */
} lmp_cols;

/* the columns of ITEM: ATOMS (cols: its names) */
static int lmp_columns(const char *path, int line, char **cols, int ncols, const hx_particles_opts *o, lmp_cols *c) {
  static const char *sets[4][3] = {{"x", "y", "z"}, {"xu", "yu", "zu"}, {"xs", "ys", "zs"}, {"xsu", "ysu", "zsu"}};
  memset(c, 0, sizeof *c);
  c->ncols = ncols;
  c->id = c->radius = c->diameter = -1;
  int found = -1;
  for (int s = 0; s < 4 && found < 0; s++) {
    int k[3] = {-1, -1, -1};
    for (int i = 0; i < ncols; i++)
      for (int d = 0; d < 3; d++)
        if (!strcmp(cols[i], sets[s][d])) k[d] = i;
    if (k[0] >= 0 && k[1] >= 0 && k[2] >= 0) {
      found = s;
      memcpy(c->x, k, sizeof k);
    }
  }
  char list[256] = "";
  for (int i = 0; i < ncols && strlen(list) < 200; i++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "", cols[i]);
  HX_CHECK(found >= 0, HX_ERR_INPUT,
           "%s:%d: ITEM: ATOMS names no coordinates: expected columns x y z (or xu yu zu, xs ys zs, xsu ysu zsu), found '%s'",
           path, line, list);
  c->scaled = found >= 2;
  snprintf(c->set, sizeof c->set, "%s %s %s", sets[found][0], sets[found][1], sets[found][2]);
  for (int d = 0; d < 3; d++) c->xname[d] = sets[found][d];
  for (int i = 0; i < ncols; i++) {
    if (!strcmp(cols[i], "id") && c->id < 0) c->id = i;
    if (!strcmp(cols[i], "radius") && c->radius < 0) c->radius = i;
    if (!strcmp(cols[i], "diameter") && c->diameter < 0) c->diameter = i;
  }
  HX_CHECK(c->radius >= 0 || c->diameter >= 0 || o->radius > 0, HX_ERR_INPUT,
           "%s:%d: ITEM: ATOMS has no radius or diameter column and no --radius was given (columns: '%s')", path, line, list);
  return HX_OK;
}

/* the atom rows of one snapshot (natoms of them after the ITEM: ATOMS line); keep: store them */
static int lmp_rows(lines *L, int64_t natoms, int64_t step, int atoms_line, const lmp_cols *c, const lmp_box *box, int keep,
                    char **tok, build *b) {
  const char *path = L->path;
  for (int64_t a = 0; a < natoms; a++) {
    char *s;
    int rc;
    if (!next_line(L, &s, &rc) || !strncmp(s, "ITEM:", 5)) {
      HX_CALL(rc);
      return HX_ERROR(HX_ERR_INPUT,
                      "%s:%d: timestep %lld ends after %lld of its %lld atoms (ITEM: ATOMS on line %d): expected an atom line",
                      path, L->line, (long long)step, (long long)a, (long long)natoms, atoms_line);
    }
    if (!keep) continue;
    int n = split_ws(s, tok, c->ncols + 1);
    HX_CHECK(n == c->ncols, HX_ERR_INPUT, "%s:%d: an atom line with %d value(s); ITEM: ATOMS (line %d) names %d columns", path,
             L->line, n, atoms_line, c->ncols);
    double v[3], x[3], r = 0;
    for (int d = 0; d < 3; d++) HX_CALL(column_value(path, L->line, c->xname[d], tok[c->x[d]], &v[d]));
    if (c->scaled) lmp_unscale(box, v, x);
    else memcpy(x, v, sizeof x);
    if (c->radius >= 0) {
      HX_CALL(column_value(path, L->line, "radius", tok[c->radius], &r));
      HX_CHECK(r > 0, HX_ERR_INPUT, "%s:%d: the radius must be positive, found %g", path, L->line, r);
    } else if (c->diameter >= 0) {
      HX_CALL(column_value(path, L->line, "diameter", tok[c->diameter], &r));
      HX_CHECK(r > 0, HX_ERR_INPUT, "%s:%d: the diameter must be positive, found %g", path, L->line, r);
      r *= 0.5;
    }
    int64_t id = 0;
    if (c->id >= 0)
      HX_CHECK(parse_int64(tok[c->id], &id), HX_ERR_INPUT, "%s:%d: column 'id': expected an integer atom id, found '%.40s'", path,
               L->line, tok[c->id]);
    HX_CALL(build_push(b, x, r, L->line, id));
  }
  return HX_OK;
}

static int read_lammps(const char *path, FILE *fp, const hx_particles_opts *o, hx_particles *p, int *have_r) {
  lines L = {fp, path, NULL, 0, 0, 0};
  build b = {p, 0, NULL};
  lmp_box box = {0};
  int64_t natoms = -1, step = 0, kept_step = 0;
  int have_step = 0, kept = 0, rc = HX_OK;
  int64_t steps_seen[6];
  int64_t num_steps = 0;
  char *header = NULL, **cols = NULL, **tok = NULL;
  char *s;
  while (!rc && next_line(&L, &s, &rc)) {
    if (blank(s)) continue;
    if (strncmp(s, "ITEM:", 5)) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: expected an 'ITEM:' line of a LAMMPS dump, found '%.40s'", path, L.line, s);
      break;
    }
    const char *item = s + 5;
    while (isspace((unsigned char)*item)) item++;
    for (size_t len = strlen(s); len > 0 && isspace((unsigned char)s[len - 1]);) s[--len] = 0;
    if (!strcmp(item, "TIMESTEP")) {
      int at = L.line;
      if (!next_line(&L, &s, &rc) || !parse_int64(s, &step)) {
        if (!rc)
          rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: expected the timestep number after ITEM: TIMESTEP (line %d), found '%.40s'", path,
                        L.line, at, L.line > at ? s : "the end of the file");
        break;
      }
      have_step = 1;
      natoms = -1;
      box.kind = 0;
      if (num_steps < 5) steps_seen[num_steps] = step;
      else steps_seen[5] = step;
      num_steps++;
    } else if (!strcmp(item, "NUMBER OF ATOMS")) {
      int at = L.line;
      if (!next_line(&L, &s, &rc) || !parse_int64(s, &natoms) || natoms < 0 || natoms > INT32_MAX) {
        if (!rc)
          rc = HX_ERROR(HX_ERR_INPUT,
                        "%s:%d: expected the atom count (0..%d) after ITEM: NUMBER OF ATOMS (line %d), found '%.40s'", path,
                        L.line, INT32_MAX, at, L.line > at ? s : "the end of the file");
        break;
      }
    } else if (!strncmp(item, "BOX BOUNDS", 10)) {
      rc = lmp_read_box(&L, item + 10, &box);
    } else if (!strncmp(item, "ATOMS", 5) && (!item[5] || isspace((unsigned char)item[5]))) {
      int at = L.line;
      if (!have_step || natoms < 0) {
        rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: ITEM: ATOMS before %s: expected the snapshot header of a LAMMPS dump", path, at,
                      have_step ? "ITEM: NUMBER OF ATOMS" : "ITEM: TIMESTEP");
        break;
      }
      int keep = !o->timestep_given || (o->timestep == HX_PARTICLES_FIRST ? num_steps == 1 : step == o->timestep);
      lmp_cols c = {0};
      if (keep) {
        hx_free(&header), hx_free(&cols), hx_free(&tok);
        size_t len = strlen(item + 5);
        rc = hx_malloc(len + 1, &header);
        if (rc) break;
        memcpy(header, item + 5, len + 1);
        int ncols = split_ws(header, NULL, 0);
        memcpy(header, item + 5, len + 1);
        if ((rc = hx_malloc((size_t)(ncols + 1) * sizeof *cols, &cols)) ||
            (rc = hx_malloc((size_t)(ncols + 2) * sizeof *tok, &tok)))
          break;
        split_ws(header, cols, ncols);
        if ((rc = lmp_columns(path, at, cols, ncols, o, &c))) break;
        if (c.scaled && !box.kind) {
          rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: scaled coordinates (%s) need the snapshot's ITEM: BOX BOUNDS before ITEM: ATOMS",
                        path, at, c.set);
          break;
        }
        p->n = 0;
        hx_free(&b.id);
        if (c.id >= 0 && (rc = hx_malloc((size_t)(b.cap ? b.cap : 1) * sizeof *b.id, &b.id))) break;
        *have_r = c.radius >= 0 || c.diameter >= 0;
      }
      rc = lmp_rows(&L, natoms, step, at, &c, &box, keep, tok, &b);
      if (rc) break;
      if (keep) {
        kept = 1;
        kept_step = step;
        if (o->timestep_given) break; /* the chosen snapshot: the rest of the file is not read */
      }
      have_step = 0;
    } else if (!strcmp(item, "UNITS") || !strcmp(item, "TIME")) {
      int at = L.line;
      if (!next_line(&L, &s, &rc) && !rc)
        rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: the file ends after ITEM: UNITS or TIME (line %d): expected its value", path, L.line,
                      at);
    } else {
      /* an item this reader does not know: its lines up to the next item are skipped */
      while (next_line(&L, &s, &rc))
        if (!strncmp(s, "ITEM:", 5)) {
          L.pushed = 1;
          break;
        }
    }
  }
  if (!rc && !kept) {
    if (num_steps == 0) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s: no snapshot (ITEM: TIMESTEP ... ITEM: ATOMS) in the LAMMPS dump", path);
    } else {
      char list[160] = "";
      for (int64_t k = 0; k < num_steps && k < 5; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%lld", k ? ", " : "", (long long)steps_seen[k]);
      if (num_steps > 5)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%lld", num_steps > 6 ? ", ..., " : ", ",
                 (long long)steps_seen[5]);
      rc = HX_ERROR(HX_ERR_INPUT, "%s: no snapshot with TIMESTEP %lld (flag --timestep); the file holds %lld: %s", path,
                    (long long)o->timestep, (long long)num_steps, list);
    }
  }
  if (!rc) {
    p->timestep = kept_step;
    p->num_timesteps = num_steps;
    if (b.id) rc = lmp_sort(path, &b);
  }
  hx_free(&b.id);
  hx_free(&header), hx_free(&cols), hx_free(&tok);
  free(L.buf);
  return rc;
}

/* ---- CSV tables with a header line -------------------------------------------------- */

/* split s in place at sep (0: whitespace), fields trimmed and unquoted; the count returned */
static int split_fields(char *s, char sep, char **f, int max) {
  if (!sep) return split_ws(s, f, max);
  int n = 0;
  while (1) {
    while (*s == ' ' || *s == '\t') s++;
    char *start = s, *end;
    if (*s == '"' || *s == '\'') {
      char q = *s++;
      start = s;
      while (*s && *s != q) s++;
      end = s;
      if (*s) s++;
      while (*s && *s != sep) s++;
    } else {
      while (*s && *s != sep) s++;
      end = s;
      while (end > start && (end[-1] == ' ' || end[-1] == '\t')) end--;
    }
    int more = *s == sep;
    *end = 0;
    if (n < max) f[n] = start;
    n++;
    if (!more) return n;
    s++;
  }
}

/* a header name in lower case without a unit suffix ("X [m]" -> "x", "Points:0" -> "points:0") */
static void column_key(const char *name, char *key, size_t cap) {
  size_t n = 0;
  for (; *name && n + 1 < cap; name++) key[n++] = (char)tolower((unsigned char)*name);
  key[n] = 0;
  char *u = strpbrk(key, "[(");
  if (u && u > key) *u = 0;
  n = strlen(key);
  while (n > 0 && isspace((unsigned char)key[n - 1])) key[--n] = 0;
}

/* the axis (0..2) a column names, or 3 radius, 4 diameter, -1 none */
static int column_role(const char *key) {
  static const char *axis[3][10] = {
      {"x", "px", "posx", "pos_x", "position_x", "points:0", "points_0", "coordinates:0", "position:0", "pos:0"},
      {"y", "py", "posy", "pos_y", "position_y", "points:1", "points_1", "coordinates:1", "position:1", "pos:1"},
      {"z", "pz", "posz", "pos_z", "position_z", "points:2", "points_2", "coordinates:2", "position:2", "pos:2"}};
  static const char *radius[] = {"r", "radius", "rad", "radii"}, *diameter[] = {"d", "diameter", "diam", "dia"};
  for (int d = 0; d < 3; d++)
    for (int k = 0; k < 10; k++)
      if (!strcmp(key, axis[d][k])) return d;
  for (int k = 0; k < 4; k++) {
    if (!strcmp(key, radius[k])) return 3;
    if (!strcmp(key, diameter[k])) return 4;
  }
  return -1;
}

static int read_csv(const char *path, FILE *fp, const hx_particles_opts *o, hx_particles *p, int *have_r) {
  lines L = {fp, path, NULL, 0, 0, 0};
  build b = {p, 0, NULL};
  char **f = NULL, *s, sep = 0;
  int rc = HX_OK, ncols = 0, head_line = 0, col[5] = {-1, -1, -1, -1, -1};
  char names[5][64];
  while (next_line(&L, &s, &rc))
    if (!blank(s) && s[strspn(s, " \t")] != '#') break;
  if (rc) goto done;
  head_line = L.line;
  sep = strchr(s, ';') ? ';' : strchr(s, ',') ? ',' : strchr(s, '\t') ? '\t' : 0;
  {
    char *copy = NULL;
    size_t len = strlen(s);
    if ((rc = hx_malloc(len + 1, &copy))) goto done;
    memcpy(copy, s, len + 1);
    ncols = split_fields(copy, sep, NULL, 0);
    memcpy(copy, s, len + 1);
    if ((rc = hx_malloc((size_t)(ncols + 2) * sizeof *f, &f))) {
      hx_free(&copy);
      goto done;
    }
    split_fields(copy, sep, f, ncols);
    char list[256] = "";
    for (int i = 0; i < ncols; i++) {
      char key[64];
      column_key(f[i], key, sizeof key);
      int role = column_role(key);
      if (role >= 0 && col[role] < 0) col[role] = i, snprintf(names[role], sizeof names[role], "%s", f[i]);
      if (strlen(list) < 200) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", f[i]);
    }
    hx_free(&copy);
    if (col[0] < 0 && col[1] < 0 && col[2] < 0) {
      rc = HX_ERROR(HX_ERR_INPUT,
                    "%s:%d: unknown layout: expected lines of 'x y z [r]', a CSV header naming x, y, z columns, a LAMMPS dump "
                    "or a VTK file; found '%.60s'",
                    path, head_line, list);
      goto done;
    }
    for (int d = 0; d < 3; d++)
      if (col[d] < 0) {
        rc = HX_ERROR(HX_ERR_INPUT,
                      "%s:%d: the header names no '%c' column: expected x, y, z and r, radius or diameter; found '%s'", path,
                      head_line, "xyz"[d], list);
        goto done;
      }
    *have_r = col[3] >= 0 || col[4] >= 0;
    if (!*have_r && !(o->radius > 0)) {
      rc = HX_ERROR(HX_ERR_INPUT,
                    "%s:%d: the header names no radius or diameter column (r, radius, d, diameter) and no --radius was given; "
                    "found '%s'",
                    path, head_line, list);
      goto done;
    }
  }
  while (next_line(&L, &s, &rc)) {
    if (blank(s) || s[strspn(s, " \t")] == '#') continue;
    int n = split_fields(s, sep, f, ncols + 1);
    while (n > ncols && n <= ncols + 1 && !f[n - 1][0]) n--; /* a separator at the end of the line */
    if (n != ncols) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: a row with %d field(s); the header (line %d) names %d columns", path, L.line, n,
                    head_line, ncols);
      break;
    }
    double x[3], r = 0;
    for (int k = 0; k < 5 && !rc; k++) {
      if (col[k] < 0 || (k == 4 && col[3] >= 0)) continue;
      char *t = f[col[k]];
      if (sep == ';')
        for (char *q = t; *q; q++)
          if (*q == ',') *q = '.'; /* a decimal comma, as ';'-separated files write it */
      double v;
      if (!*t) {
        rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: column '%s': expected a number, found an empty field", path, L.line, names[k]);
        break;
      }
      rc = column_value(path, L.line, names[k], t, &v);
      if (rc) break;
      if (k < 3) x[k] = v;
      else if (!(v > 0))
        rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: the %s must be positive, found %g", path, L.line, k == 3 ? "radius" : "diameter", v);
      else r = k == 3 ? v : 0.5 * v;
    }
    if (rc) break;
    if ((rc = build_push(&b, x, r, L.line, 0))) break;
  }
done:
  hx_free(&f);
  free(L.buf);
  return rc;
}

/* ---- VTK: XML and legacy ----------------------------------------------------------------- */

static const char *const radius_names[] = {"radius", "radii", "rad", "r", "diameter", "diam", "dia", "d", NULL};
enum { FIRST_DIAMETER = 4 };

/* the radii from a point-data array (pts->val, pts->which) or the default */
static int vtk_radii(const char *path, hx_io_points *pts, const hx_particles_opts *o, hx_particles *p, int *have_r) {
  p->n = pts->n;
  p->xyz = pts->xyz, pts->xyz = NULL;
  HX_CALL(hx_malloc((size_t)(p->n ? p->n : 1) * sizeof *p->r, &p->r));
  HX_CALL(hx_malloc((size_t)(p->n ? p->n : 1) * sizeof *p->line, &p->line));
  for (int64_t i = 0; i < p->n; i++)
    for (int d = 0; d < 3; d++)
      HX_CHECK(isfinite(p->xyz[3 * i + d]), HX_ERR_INPUT, "%s:%d: point %lld of the points is not finite (NaN or infinity)", path,
               pts->line_points, (long long)i + 1);
  *have_r = pts->which >= 0;
  if (!*have_r) {
    HX_CHECK(o->radius > 0, HX_ERR_INPUT,
             "%s: no point-data array named radius, radii, diameter (or r, d) and no --radius was given; arrays found: '%s'",
             path, pts->found[0] ? pts->found : "none");
    return HX_OK;
  }
  const char *name = radius_names[pts->which];
  int diam = pts->which >= FIRST_DIAMETER;
  for (int64_t i = 0; i < p->n; i++) {
    double v = pts->val[i];
    HX_CHECK(isfinite(v) && v > 0, HX_ERR_INPUT, "%s:%d: point-data array '%s': value %lld is %g; expected a positive %s", path,
             pts->line_val, name, (long long)i + 1, v, diam ? "diameter" : "radius");
    p->r[i] = diam ? 0.5 * v : v;
  }
  return HX_OK;
}

static int read_vtkxml(const char *path, const hx_particles_opts *o, hx_particles *p, int *have_r) {
  hx_infile in;
  HX_CALL(hx_infile_read(&in, path));
  hx_io_points pts;
  int rc = hx_io_vtu_points(&in, radius_names, &pts);
  if (!rc) rc = vtk_radii(path, &pts, o, p, have_r);
  hx_free(&pts.xyz);
  hx_free(&pts.val);
  hx_infile_free(&in);
  return rc;
}

/* legacy VTK: the shared cursor (vtk_legacy.c), counting lines while the data is ASCII */
typedef hx_vtk_cursor vleg;

/* n values of type t: into dv (NULL: skipped); line3 (optional): the line of every third value */
static int vleg_values(vleg *c, const char *t, size_t n, double *dv, int *line3, const char *what) {
  char at[1100];
  int fl, sg, sz = hx_vtk_type(t, &fl, &sg);
  HX_CHECK(sz > 0, HX_ERR_INPUT, "%s: %s: data type '%s' is not read; expected float, double or an integer type",
           hx_vtk_at(c, at, sizeof at), what, t);
  if (!c->binary) {
    char b[128];
    for (size_t k = 0; k < n; k++) {
      HX_CHECK(hx_vtk_word(c, b, sizeof b), HX_ERR_INPUT, "%s: %s ends after %zu of its %zu values", hx_vtk_at(c, at, sizeof at),
               what, k, n);
      if (line3 && k % 3 == 0) line3[k / 3] = c->line;
      if (!dv) continue;
      HX_CHECK(token_number(b, &dv[k]), HX_ERR_INPUT, "%s: %s: expected a number, found '%.40s'", hx_vtk_at(c, at, sizeof at),
               what, b);
      HX_CHECK(isfinite(dv[k]), HX_ERR_INPUT, "%s: %s: value %zu is not a finite number (NaN or infinity)",
               hx_vtk_at(c, at, sizeof at), what, k + 1);
    }
    return HX_OK;
  }
  /* binary: big-endian values after the newline that ends the header line */
  while (c->p < c->end && *c->p != '\n') c->p++;
  HX_CHECK(c->p < c->end, HX_ERR_INPUT, "%s: the file ends before the binary %s", hx_vtk_at(c, at, sizeof at), what);
  c->p++;
  c->line = 0;
  HX_CHECK((size_t)(c->end - c->p) / (size_t)sz >= n, HX_ERR_INPUT, "%s: %s need %zu bytes, %zu are left",
           hx_vtk_at(c, at, sizeof at), what, n * (size_t)sz, (size_t)(c->end - c->p));
  const unsigned char *q = (const unsigned char *)c->p;
  for (size_t k = 0; dv && k < n; k++, q += sz) {
    int64_t iv;
    double d = hx_vtk_be_value(q, sz, fl, sg, &iv);
    HX_CHECK(isfinite(d), HX_ERR_INPUT, "%s: byte %ld: %s: value %zu is not a finite number (NaN or infinity)", c->path,
             (long)((const char *)q - c->base), what, k + 1);
    dv[k] = d;
  }
  c->p += n * (size_t)sz;
  return HX_OK;
}

static int vleg_count(vleg *c, const char *what, long long *v) {
  char b[64], at[1100];
  hx_vtk_at(c, at, sizeof at);
  char *e;
  HX_CHECK(hx_vtk_word(c, b, sizeof b), HX_ERR_INPUT, "%s: the file ends where %s was expected", at, what);
  *v = strtoll(b, &e, 10);
  HX_CHECK(*e == 0 && *v >= 0 && *v <= (long long)(c->end - c->base), HX_ERR_INPUT,
           "%s: %s must be a count the file can hold, found '%.40s'", at, what, b);
  return HX_OK;
}

/* the point-data array candidate: pick it when its name ranks before the one kept */
static int vleg_pick(const char *name, hx_io_points *pts) {
  if (strlen(pts->found) + strlen(name) + 3 < sizeof pts->found)
    snprintf(pts->found + strlen(pts->found), sizeof pts->found - strlen(pts->found), "%s%s", pts->found[0] ? ", " : "", name);
  for (int i = 0; radius_names[i] && (pts->which < 0 || i < pts->which); i++) {
    const char *a = name, *b = radius_names[i];
    while (*a && *b && tolower((unsigned char)*a) == *b) a++, b++;
    if (!*a && !*b) return i;
  }
  return -1;
}

static int read_vtk_legacy(const char *path, const hx_particles_opts *o, hx_particles *p, int *have_r) {
  hx_infile in;
  HX_CALL(hx_infile_read(&in, path));
  vleg c = {path, in.data, in.data, in.data + in.size, 1, 0};
  hx_io_points pts;
  memset(&pts, 0, sizeof pts);
  pts.which = -1;
  int *lines3 = NULL, rc = HX_OK, v51 = 0, section = 0; /* section: 1 point data, 2 cell data */
  long long np = -1, ncell_data = 0;
  char b[256], t[64], name[256], at[1100];
#define FAIL(...)                                                                                                                \
  do {                                                                                                                           \
    rc = HX_ERROR(HX_ERR_INPUT, __VA_ARGS__);                                                                                    \
    goto done;                                                                                                                   \
  } while (0)
#define TRY(x)                                                                                                                   \
  do {                                                                                                                           \
    if ((rc = (x))) goto done;                                                                                                   \
  } while (0)
  {
    int maj = 0, min = 0;
    if (sscanf(in.data, "# vtk DataFile Version %d.%d", &maj, &min) != 2)
      FAIL("%s:1: expected '# vtk DataFile Version X.Y' (a legacy VTK file)", path);
    v51 = maj > 5 || (maj == 5 && min >= 1);
    for (int l = 0; l < 2; l++) {
      const char *nl = memchr(c.p, '\n', (size_t)(c.end - c.p));
      if (!nl) FAIL("%s:%d: the file ends in the header", path, c.line);
      c.p = nl + 1;
      c.line++;
    }
    hx_vtk_word(&c, b, sizeof b);
    if (!strcmp(b, "BINARY")) c.binary = 1;
    else if (strcmp(b, "ASCII")) FAIL("%s:%d: expected ASCII or BINARY, found '%.40s'", path, c.line, b);
    hx_vtk_word(&c, b, sizeof b);
    hx_vtk_word(&c, t, sizeof t);
    if (strcmp(b, "DATASET") || (strcmp(t, "POLYDATA") && strcmp(t, "UNSTRUCTURED_GRID")))
      FAIL("%s:%d: unknown layout: expected 'DATASET POLYDATA' or 'DATASET UNSTRUCTURED_GRID' (particles as points), found "
           "'%.40s %.40s'",
           path, c.line, b, t);
  }
  while (hx_vtk_word(&c, b, sizeof b)) {
    hx_vtk_at(&c, at, sizeof at);
    if (!strcmp(b, "METADATA")) {
      hx_vtk_skip_metadata(&c);
    } else if (!strcmp(b, "POINTS")) {
      if (pts.xyz) FAIL("%s: a second POINTS section", at);
      TRY(vleg_count(&c, "the point count", &np));
      if (!hx_vtk_word(&c, t, sizeof t)) FAIL("%s: POINTS without a data type", at);
      {
        /* refuse before allocating: a value takes at least its size (binary) or 2 bytes (ASCII) */
        int fl, sg, sz = hx_vtk_type(t, &fl, &sg);
        long long per = c.binary ? (sz > 0 ? sz : 1) : 2;
        if (np > (long long)(c.end - c.p) / (3 * per)) FAIL("%s: %lld points cannot fit in the rest of the file", at, np);
      }
      TRY(hx_malloc(((size_t)np * 3 + 1) * sizeof *pts.xyz, &pts.xyz));
      TRY(hx_malloc(((size_t)np + 1) * sizeof *lines3, &lines3));
      pts.line_points = c.line;
      TRY(vleg_values(&c, t, (size_t)np * 3, pts.xyz, lines3, "POINTS"));
    } else if (!strcmp(b, "VERTICES") || !strcmp(b, "LINES") || !strcmp(b, "POLYGONS") || !strcmp(b, "TRIANGLE_STRIPS") ||
               !strcmp(b, "CELLS")) {
      long long n1, n2;
      TRY(vleg_count(&c, "the cell count", &n1));
      TRY(vleg_count(&c, "the cell list size", &n2));
      if (v51) {
        char kw[64];
        if (!hx_vtk_word(&c, kw, sizeof kw) || strcmp(kw, "OFFSETS") || !hx_vtk_word(&c, t, sizeof t))
          FAIL("%s: %s: expected 'OFFSETS <type>' (file version 5.1)", at, b);
        TRY(vleg_values(&c, t, (size_t)n1, NULL, NULL, "OFFSETS"));
        if (!hx_vtk_word(&c, kw, sizeof kw) || strcmp(kw, "CONNECTIVITY") || !hx_vtk_word(&c, t, sizeof t))
          FAIL("%s: %s: expected 'CONNECTIVITY <type>' (file version 5.1)", at, b);
        TRY(vleg_values(&c, t, (size_t)n2, NULL, NULL, "CONNECTIVITY"));
      } else {
        TRY(vleg_values(&c, "int", (size_t)n2, NULL, NULL, b));
      }
    } else if (!strcmp(b, "CELL_TYPES")) {
      long long n;
      TRY(vleg_count(&c, "the CELL_TYPES count", &n));
      TRY(vleg_values(&c, "int", (size_t)n, NULL, NULL, "CELL_TYPES"));
    } else if (!strcmp(b, "POINT_DATA")) {
      long long n;
      TRY(vleg_count(&c, "the POINT_DATA count", &n));
      if (n != np) FAIL("%s: POINT_DATA %lld, but POINTS has %lld points", at, n, np);
      section = 1;
    } else if (!strcmp(b, "CELL_DATA")) {
      TRY(vleg_count(&c, "the CELL_DATA count", &ncell_data));
      section = 2;
    } else if (!strcmp(b, "SCALARS") || !strcmp(b, "VECTORS") || !strcmp(b, "NORMALS") || !strcmp(b, "TENSORS") ||
               !strcmp(b, "TENSORS6") || !strcmp(b, "TEXTURE_COORDINATES") || !strcmp(b, "COLOR_SCALARS")) {
      if (!section) FAIL("%s: %s before POINT_DATA or CELL_DATA", at, b);
      long long ncomp = 1, count = section == 1 ? np : ncell_data;
      if (!hx_vtk_word(&c, name, sizeof name)) FAIL("%s: %s without a name", at, b);
      if (!strcmp(b, "COLOR_SCALARS")) {
        TRY(vleg_count(&c, "the number of colour components", &ncomp));
        snprintf(t, sizeof t, "%s", c.binary ? "unsigned_char" : "float");
      } else if (!strcmp(b, "TEXTURE_COORDINATES")) {
        TRY(vleg_count(&c, "the texture dimension", &ncomp));
        if (!hx_vtk_word(&c, t, sizeof t)) FAIL("%s: %s %s without a data type", at, b, name);
      } else {
        if (!hx_vtk_word(&c, t, sizeof t)) FAIL("%s: %s %s without a data type", at, b, name);
        ncomp = !strcmp(b, "SCALARS") ? 1 : !strcmp(b, "TENSORS") ? 9 : !strcmp(b, "TENSORS6") ? 6 : 3;
      }
      if (!strcmp(b, "SCALARS")) {
        /* SCALARS name type [ncomp] then LOOKUP_TABLE name */
        char look[64];
        if (!hx_vtk_word(&c, look, sizeof look)) FAIL("%s: SCALARS %s without LOOKUP_TABLE", at, name);
        if (strcmp(look, "LOOKUP_TABLE")) {
          ncomp = strtoll(look, NULL, 10);
          if (ncomp < 1 || ncomp > 4) FAIL("%s: SCALARS %s: expected 1 to 4 components, found '%.40s'", at, name, look);
          hx_vtk_word(&c, look, sizeof look);
        }
        if (strcmp(look, "LOOKUP_TABLE") || !hx_vtk_word(&c, look, sizeof look))
          FAIL("%s: SCALARS %s: expected 'LOOKUP_TABLE <name>'", at, name);
      }
      int pick = section == 1 && !strcmp(b, "SCALARS") && ncomp == 1 ? vleg_pick(name, &pts) : -1;
      if (count < 0) FAIL("%s: %s %s before POINTS", at, b, name);
      if (pick >= 0) {
        hx_free(&pts.val);
        TRY(hx_malloc(((size_t)count + 1) * sizeof *pts.val, &pts.val));
        pts.which = pick;
        pts.line_val = c.line;
        TRY(vleg_values(&c, t, (size_t)count, pts.val, NULL, name));
      } else {
        TRY(vleg_values(&c, t, (size_t)(count * ncomp), NULL, NULL, name));
      }
    } else if (!strcmp(b, "LOOKUP_TABLE")) {
      long long size;
      if (!hx_vtk_word(&c, name, sizeof name)) FAIL("%s: LOOKUP_TABLE without a name", at);
      TRY(vleg_count(&c, "the LOOKUP_TABLE size", &size));
      TRY(vleg_values(&c, c.binary ? "unsigned_char" : "float", (size_t)size * 4, NULL, NULL, "LOOKUP_TABLE"));
    } else if (!strcmp(b, "FIELD")) {
      long long k;
      if (!hx_vtk_word(&c, name, sizeof name)) FAIL("%s: FIELD without a name", at);
      TRY(vleg_count(&c, "the FIELD array count", &k));
      for (long long a = 0; a < k; a++) {
        long long ncomp, ntup;
        hx_vtk_at(&c, at, sizeof at);
        if (!hx_vtk_word(&c, name, sizeof name)) FAIL("%s: the FIELD ends after %lld of its %lld arrays", at, a, k);
        if (!strcmp(name, "NULL_ARRAY")) continue;
        TRY(vleg_count(&c, "the array's component count", &ncomp));
        TRY(vleg_count(&c, "the array's tuple count", &ntup));
        if (!hx_vtk_word(&c, t, sizeof t)) FAIL("%s: FIELD array %s without a data type", at, name);
        int pick = section == 1 && ncomp == 1 && ntup == np ? vleg_pick(name, &pts) : -1;
        if (pick >= 0) {
          hx_free(&pts.val);
          TRY(hx_malloc(((size_t)ntup + 1) * sizeof *pts.val, &pts.val));
          pts.which = pick;
          pts.line_val = c.line;
          TRY(vleg_values(&c, t, (size_t)ntup, pts.val, NULL, name));
        } else {
          TRY(vleg_values(&c, t, (size_t)(ntup * ncomp), NULL, NULL, name));
        }
      }
    } else {
      FAIL("%s: unexpected keyword '%.40s' in a legacy VTK file: expected POINTS, VERTICES, POINT_DATA, SCALARS, FIELD ...", at,
           b);
    }
  }
  if (!pts.xyz) FAIL("%s: no POINTS section: expected the particle centres as points", path);
  pts.n = np;
  TRY(vtk_radii(path, &pts, o, p, have_r));
  for (int64_t i = 0; i < p->n; i++) p->line[i] = lines3[i];
done:
#undef FAIL
#undef TRY
  hx_free(&lines3);
  hx_free(&pts.xyz);
  hx_free(&pts.val);
  hx_infile_free(&in);
  return rc;
}

/* ---- the entry point ----------------------------------------------------------------- */

int hx_particles_read(const char *path, const hx_particles_opts *o, hx_particles **out) {
  *out = NULL;
  HX_CHECK(o->scale > 0 && isfinite(o->scale), HX_ERR_INPUT, "%s: the scale must be a positive number, got %g", path, o->scale);
  int form;
  HX_CALL(hx_particles_detect(path, &form));
  HX_CHECK(!o->timestep_given || form == HX_PARTICLES_LAMMPS, HX_ERR_INPUT,
           "flag --timestep: only for LAMMPS / LIGGGHTS dump files; '%s' is a %s file", path, hx_particles_form_name(form));
  HX_CHECK(form != HX_PARTICLES_TABLE, HX_ERR_INTERNAL, "%s: a table of 'x y z [r]' lines is read by hx_pebble_bed_read", path);
  hx_particles *p;
  HX_CALL(hx_malloc(sizeof *p, &p));
  p->form = form;
  int rc = HX_OK, have_r = 0;
  if (form == HX_PARTICLES_LAMMPS || form == HX_PARTICLES_CSV) {
    FILE *fp;
    rc = open_packing(path, &fp);
    if (!rc) {
      rc = form == HX_PARTICLES_LAMMPS ? read_lammps(path, fp, o, p, &have_r) : read_csv(path, fp, o, p, &have_r);
      fclose(fp);
    }
  } else if (form == HX_PARTICLES_VTKXML) {
    rc = read_vtkxml(path, o, p, &have_r);
  } else {
    rc = read_vtk_legacy(path, o, p, &have_r);
  }
  if (!rc) rc = finish_lengths(path, p, o, have_r);
  if (rc) {
    hx_particles_destroy(&p);
    return rc;
  }
  *out = p;
  return HX_OK;
}
