/* The format table: one row per format (style.md section 6). The CLI prints it
   for --help and an unknown extension lists the known ones. */
#include <string.h>
#include <strings.h>

#include "hx_error.h"
#include "hx_io.h"

static const hx_format formats[] = {
  /* name   ext      writer  reader  what */
  {NULL, NULL, NULL, NULL, NULL},
};

const hx_format *hx_formats(void) { return formats; }

void hx_export_opts_default(hx_export_opts *o) {
  memset(o, 0, sizeof *o);
  o->binary = 1;
  o->compress = 1;
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

int hx_export(const hx_mesh *m, const char *path, const hx_export_opts *o) {
  const hx_format *f = NULL;
  HX_CALL(hx_format_for_path(path, &f));
  HX_CHECK(f->write, HX_ERR_INPUT, "'%s': format '%s' has no writer", path, f->name);
  if (!o->force) {
    hx_mesh_check_report rep;
    int rc = hx_mesh_check(m, 1e-8, &rep);
    if (rc == HX_ERR_INVALID_MESH && rep.bad_elems)
      return HX_ERROR(HX_ERR_INVALID_MESH,
                      "refusing to write '%s': %lld element(s) have det J <= 0 (min %.3e); use --force to write anyway",
                      path, (long long)rep.bad_elems, rep.min_detj);
    HX_CALL(rc);
  }
  return f->write(m, path, o);
}

int hx_import(hx_comm comm, const char *path, hx_mesh **out) {
  const hx_format *f = NULL;
  HX_CALL(hx_format_for_path(path, &f));
  HX_CHECK(f->read, HX_ERR_INPUT, "'%s': format '%s' has no reader", path, f->name);
  return f->read(comm, path, out);
}
