#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hx_error.h"
#include "hx_io.h"

int hx_outfile_open(hx_outfile *f, const char *path) {
  memset(f, 0, sizeof *f);
  HX_CHECK(strlen(path) < sizeof f->path, HX_ERR_INPUT, "output path too long: %.60s...", path);
  snprintf(f->path, sizeof f->path, "%s", path);
  snprintf(f->tmp, sizeof f->tmp, "%s.tmp.%ld", path, (long)getpid());
  f->fp = fopen(f->tmp, "wb");
  HX_CHECK(f->fp, HX_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  /* large buffered writes: the writers emit blocks of elements */
  setvbuf(f->fp, NULL, _IOFBF, 1 << 20);
  return HX_OK;
}

int hx_outfile_write(hx_outfile *f, const void *data, size_t bytes) {
  if (bytes && fwrite(data, 1, bytes, f->fp) != bytes)
    return HX_ERROR(HX_ERR_IO, "writing '%s' failed: %s", f->path, strerror(errno));
  return HX_OK;
}

int hx_outfile_commit(hx_outfile *f) {
  int bad = ferror(f->fp);
  if (fclose(f->fp) != 0) bad = 1;
  f->fp = NULL;
  if (bad) {
    remove(f->tmp);
    return HX_ERROR(HX_ERR_IO, "writing '%s' failed: %s", f->path, strerror(errno));
  }
  if (rename(f->tmp, f->path) != 0) {
    int err = errno;
    remove(f->tmp);
    return HX_ERROR(HX_ERR_IO, "cannot rename the temporary file to '%s': %s", f->path, strerror(err));
  }
  return HX_OK;
}

void hx_outfile_abort(hx_outfile *f) {
  if (f->fp) fclose(f->fp);
  f->fp = NULL;
  if (f->tmp[0]) remove(f->tmp);
}
