/* VTK XML UnstructuredGrid (.vtu) reader for Lagrange hexahedra (type 72; also
   linear 12 and triquadratic 29, which share the order).

   design:
   1. read the file; parse the XML part (up to <AppendedData>) for VTKFile,
      Piece and the DataArray tags we need (Points, connectivity, offsets, types,
      HigherOrderDegrees, region, boundary_ids) and the boundary names (FieldData arrays
      "boundary:NAME" holding the id, or the comments of older files);
   2. decode each array (ascii, inline base64 "binary", appended raw or base64,
      optionally vtkZLibDataCompressor blocks; UInt32 or UInt64 headers; either
      byte order) into int64 or double;
   3. build an hx_mesh at the file's order: VTK point index = node id; the
      equispaced nodes are re-interpolated to GLL; shared nodes made bit-identical;
      when no point is shared at all the points are merged by coordinates;
   4. boundary faces from boundary_ids when present, else every exterior face gets
      id 1 ("boundary"). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "io_impl.h"
#if HX_HAVE_ZLIB
#include <zlib.h>
#endif

typedef struct xtag {
  const char *start, *end; /* '<' .. '>' */
} xtag;

typedef struct varr {
  int found;
  char type[16], name[64], format[16];
  int ncomp;
  long long offset;
  const char *content, *content_end; /* inline data */
  size_t tag_pos;
} varr;

typedef struct vreader {
  hx_infile *in;
  int swap;
  int hsize; /* 4 or 8 */
  int zlib;
  double version;
  const char *app; /* first byte after '_' */
  int app_base64;
  long long np, nc;
} vreader;

static int get_attr(xtag t, const char *name, char *out, size_t cap) {
  size_t ln = strlen(name);
  for (const char *p = t.start; p + ln + 2 < t.end; p++) {
    if ((p == t.start || isspace((unsigned char)p[-1])) && !strncmp(p, name, ln) && p[ln] == '=' &&
        (p[ln + 1] == '"' || p[ln + 1] == '\'')) {
      char q = p[ln + 1];
      const char *v = p + ln + 2, *e = v;
      while (e < t.end && *e != q) e++;
      size_t n = (size_t)(e - v);
      if (n >= cap) n = cap - 1;
      memcpy(out, v, n);
      out[n] = 0;
      return 1;
    }
  }
  out[0] = 0;
  return 0;
}

static const char *find_in(const char *p, const char *end, const char *needle) {
  size_t ln = strlen(needle);
  for (; p + ln <= end; p++)
    if (*p == needle[0] && !memcmp(p, needle, ln)) return p;
  return NULL;
}

static int type_size(const char *t) {
  if (!strcmp(t, "Float64") || !strcmp(t, "Int64") || !strcmp(t, "UInt64")) return 8;
  if (!strcmp(t, "Float32") || !strcmp(t, "Int32") || !strcmp(t, "UInt32")) return 4;
  if (!strcmp(t, "Int16") || !strcmp(t, "UInt16")) return 2;
  if (!strcmp(t, "Int8") || !strcmp(t, "UInt8") || !strcmp(t, "Char")) return 1;
  return 0;
}

static double raw_to_double(const char *t, const unsigned char *p) {
  if (!strcmp(t, "Float64")) {
    double v;
    memcpy(&v, p, 8);
    return v;
  }
  if (!strcmp(t, "Float32")) {
    float v;
    memcpy(&v, p, 4);
    return v;
  }
  if (!strcmp(t, "Int64")) {
    int64_t v;
    memcpy(&v, p, 8);
    return (double)v;
  }
  if (!strcmp(t, "UInt64")) {
    uint64_t v;
    memcpy(&v, p, 8);
    return (double)v;
  }
  if (!strcmp(t, "Int32")) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  if (!strcmp(t, "UInt32")) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  if (!strcmp(t, "Int16")) {
    int16_t v;
    memcpy(&v, p, 2);
    return v;
  }
  if (!strcmp(t, "UInt16")) {
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
  }
  if (!strcmp(t, "Int8") || !strcmp(t, "Char")) return (double)(int8_t)p[0];
  return (double)p[0];
}

static int64_t raw_to_i64(const char *t, const unsigned char *p) {
  if (!strcmp(t, "Int64")) {
    int64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  if (!strcmp(t, "UInt64")) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v > INT64_MAX ? -1 : (int64_t)v;
  }
  double d = raw_to_double(t, p);
  return (d == floor(d) && fabs(d) < 9e18) ? (int64_t)d : -1;
}

static uint64_t read_hdr(const vreader *r, const unsigned char *p) {
  unsigned char b[8];
  memcpy(b, p, (size_t)r->hsize);
  if (r->swap) hx_io_swap(b, 1, (size_t)r->hsize);
  if (r->hsize == 8) {
    uint64_t v;
    memcpy(&v, b, 8);
    return v;
  }
  uint32_t v;
  memcpy(&v, b, 4);
  return v;
}

/* Decompress vtkZLibDataCompressor blocks: hdr = [nb, bs, last, csizes...]. */
static int inflate_blocks(const vreader *r, const varr *a, const unsigned char *hdr, const unsigned char *data, size_t avail,
                          uint64_t want, unsigned char *out) {
#if HX_HAVE_ZLIB
  uint64_t nb = read_hdr(r, hdr), bs = read_hdr(r, hdr + r->hsize), last = read_hdr(r, hdr + 2 * r->hsize);
  uint64_t pos = 0, off = 0;
  for (uint64_t b = 0; b < nb; b++) {
    uint64_t cs = read_hdr(r, hdr + (3 + b) * r->hsize);
    uint64_t us = (b + 1 == nb && last) ? last : bs;
    HX_CHECK(cs <= avail - off && pos + us <= want, HX_ERR_INPUT,
             "%s: array '%s': compressed block %llu runs past the end of the file", r->in->path, a->name, (unsigned long long)b);
    uLongf got = (uLongf)us;
    int zr = uncompress(out + pos, &got, data + off, (uLong)cs);
    HX_CHECK(zr == Z_OK && got == us, HX_ERR_INPUT, "%s: array '%s': zlib block %llu is corrupt (code %d)", r->in->path, a->name,
             (unsigned long long)b, zr);
    pos += us;
    off += cs;
  }
  HX_CHECK(pos == want, HX_ERR_INPUT, "%s: array '%s' holds %llu bytes, expected %llu", r->in->path, a->name,
           (unsigned long long)pos, (unsigned long long)want);
  return HX_OK;
#else
  (void)hdr;
  (void)data;
  (void)avail;
  (void)want;
  (void)out;
  return HX_ERROR(HX_ERR_INPUT, "%s: array '%s' is zlib-compressed but this build has no zlib", r->in->path, a->name);
#endif
}

/* Decode base64 from [q, qend) until cap bytes came out: returns chars used. */
static int b64_take(const vreader *r, const varr *a, const char *q, const char *qend, unsigned char *dst, size_t cap,
                    size_t *used) {
  size_t got = cap;
  long u = hx_base64_decode(q, (size_t)(qend - q), dst, &got);
  HX_CHECK(u >= 0, HX_ERR_INPUT, "%s: array '%s': invalid base64 data near byte %ld", r->in->path, a->name,
           (long)(q - r->in->data));
  HX_CHECK(got == cap, HX_ERR_INPUT, "%s: array '%s': base64 data at byte %ld ends after %zu of %zu bytes (truncated)",
           r->in->path, a->name, (long)(q - r->in->data), got, cap);
  *used = (size_t)u;
  return HX_OK;
}

/* An array stored as base64 (inline "binary" or appended base64) starting at q:
   [header][data]; VTK encodes the header on its own (padded) or together with
   the data (uncompressed inline); both are accepted. */
static int b64_array(const vreader *r, const varr *a, const char *q, const char *qend, uint64_t want, unsigned char **raw) {
  size_t hs = (size_t)r->hsize, used = 0;
  unsigned char h[24];
  while (q < qend && isspace((unsigned char)*q)) q++;
  if (!r->zlib) {
    HX_CALL(b64_take(r, a, q, qend, h, hs, &used));
    HX_CHECK(read_hdr(r, h) == want, HX_ERR_INPUT, "%s: array '%s' (byte %zu) announces %llu bytes, expected %llu", r->in->path,
             a->name, a->tag_pos, (unsigned long long)read_hdr(r, h), (unsigned long long)want);
    HX_CALL(hx_malloc(want + hs + 1, raw));
    int rc;
    if (q[used - 1] == '=') { /* header encoded on its own */
      rc = b64_take(r, a, q + used, qend, *raw, want, &used);
    } else {
      rc = b64_take(r, a, q, qend, *raw, want + hs, &used);
      if (rc == HX_OK) memmove(*raw, *raw + hs, want);
    }
    if (rc) hx_free(raw);
    return rc;
  }
  HX_CALL(b64_take(r, a, q, qend, h, 3 * hs, &used));
  uint64_t nb = read_hdr(r, h);
  HX_CHECK(nb <= (uint64_t)(qend - q) / hs, HX_ERR_INPUT, "%s: array '%s': %llu compressed blocks exceed the data", r->in->path,
           a->name, (unsigned long long)nb);
  size_t hb = (3 + nb) * hs;
  unsigned char *hdr = NULL, *data = NULL;
  HX_CALL(hx_malloc(hb, &hdr));
  int rc = b64_take(r, a, q, qend, hdr, hb, &used);
  uint64_t csum = 0;
  for (uint64_t b = 0; rc == HX_OK && b < nb; b++) {
    uint64_t cs = read_hdr(r, hdr + (3 + b) * hs);
    if (cs > (uint64_t)(qend - q))
      rc = HX_ERROR(HX_ERR_INPUT, "%s: array '%s': compressed block %llu is larger than the file", r->in->path, a->name,
                    (unsigned long long)b);
    csum += cs;
  }
  if (rc == HX_OK) rc = hx_malloc(csum + 1, &data);
  if (rc == HX_OK) rc = b64_take(r, a, q + used, qend, data, csum, &used);
  if (rc == HX_OK) rc = hx_malloc(want + 1, raw);
  if (rc == HX_OK) {
    rc = inflate_blocks(r, a, hdr, data, csum, want, *raw);
    if (rc) hx_free(raw);
  }
  hx_free(&hdr);
  hx_free(&data);
  return rc;
}

/* Bytes of an array: *raw (owned when *own) with want = count * size bytes. */
static int array_bytes(const vreader *r, const varr *a, uint64_t want, unsigned char **raw, int *own) {
  const char *base = r->in->data;
  const char *fend = base + r->in->size;
  *own = 0;
  if (!strcmp(a->format, "appended")) {
    HX_CHECK(r->app, HX_ERR_INPUT, "%s: array '%s' is appended but the file has no <AppendedData>", r->in->path, a->name);
    HX_CHECK(a->offset >= 0 && a->offset < fend - r->app, HX_ERR_INPUT,
             "%s: array '%s': offset %lld lies beyond the end of the file", r->in->path, a->name, a->offset);
    const char *p = r->app + a->offset;
    if (!r->app_base64) {
      size_t avail = (size_t)(fend - p);
      if (!r->zlib) {
        HX_CHECK(avail >= (size_t)r->hsize, HX_ERR_INPUT, "%s: array '%s' is truncated at byte %ld", r->in->path, a->name,
                 (long)(p - base));
        uint64_t n = read_hdr(r, (const unsigned char *)p);
        HX_CHECK(n == want, HX_ERR_INPUT, "%s: array '%s' at byte %ld holds %llu bytes, expected %llu", r->in->path, a->name,
                 (long)(p - base), (unsigned long long)n, (unsigned long long)want);
        HX_CHECK(avail - (size_t)r->hsize >= want, HX_ERR_INPUT,
                 "%s: array '%s' at byte %ld needs %llu bytes but the file ends after %zu (truncated)", r->in->path, a->name,
                 (long)(p - base), (unsigned long long)want, avail - (size_t)r->hsize);
        *raw = (unsigned char *)p + r->hsize;
        return HX_OK;
      }
      HX_CHECK(avail >= 3 * (size_t)r->hsize, HX_ERR_INPUT, "%s: array '%s' is truncated at byte %ld", r->in->path, a->name,
               (long)(p - base));
      uint64_t nb = read_hdr(r, (const unsigned char *)p);
      HX_CHECK(nb < avail / (size_t)r->hsize - 3, HX_ERR_INPUT,
               "%s: array '%s' at byte %ld: %llu compressed blocks exceed the file", r->in->path, a->name, (long)(p - base),
               (unsigned long long)nb);
      size_t hb = (3 + nb) * (size_t)r->hsize;
      HX_CALL(hx_malloc(want + 1, raw));
      *own = 1;
      int rc = inflate_blocks(r, a, (const unsigned char *)p, (const unsigned char *)p + hb, avail - hb, want, *raw);
      if (rc) hx_free(raw), *own = 0; /* the caller frees only on success */
      return rc;
    }
    *own = 1;
    return b64_array(r, a, p, fend, want, raw);
  }
  if (!strcmp(a->format, "binary")) {
    *own = 1;
    return b64_array(r, a, a->content, a->content_end, want, raw);
  }
  return HX_ERROR(HX_ERR_INPUT, "%s: array '%s': unknown format '%s'; known: ascii, binary, appended", r->in->path, a->name,
                  a->format);
}

/* Decode array a of count values into doubles (dv) or int64 (iv). */
static int decode(const vreader *r, const varr *a, size_t count, double *dv, int64_t *iv) {
  if (!strcmp(a->format, "ascii")) {
    const char *p = a->content;
    for (size_t i = 0; i < count; i++) {
      while (p < a->content_end && isspace((unsigned char)*p)) p++;
      HX_CHECK(p < a->content_end, HX_ERR_INPUT, "%s: array '%s' (byte %zu) has %zu values, expected %zu", r->in->path, a->name,
               a->tag_pos, i, count);
      char *e;
      if (dv) {
        dv[i] = strtod(p, &e);
      } else {
        long long v = strtoll(p, &e, 10);
        iv[i] = v;
      }
      HX_CHECK(e != p, HX_ERR_INPUT, "%s: array '%s': bad number at byte %ld", r->in->path, a->name, (long)(p - r->in->data));
      p = e;
    }
    return HX_OK;
  }
  int ts = type_size(a->type);
  HX_CHECK(ts > 0, HX_ERR_INPUT, "%s: array '%s' has unsupported type '%s'", r->in->path, a->name, a->type);
  unsigned char *raw = NULL;
  int own = 0;
  HX_CALL(array_bytes(r, a, (uint64_t)count * (uint64_t)ts, &raw, &own));
  unsigned char tmp[8];
  for (size_t i = 0; i < count; i++) {
    memcpy(tmp, raw + i * (size_t)ts, (size_t)ts);
    if (r->swap) hx_io_swap(tmp, 1, (size_t)ts);
    if (dv) dv[i] = raw_to_double(a->type, tmp);
    else iv[i] = raw_to_i64(a->type, tmp);
  }
  if (own) hx_free(&raw);
  return HX_OK;
}

static int parse_ll(const char *s, long long *v) {
  char *e;
  *v = strtoll(s, &e, 10);
  return e != s;
}

/* The <VTKFile> tag of r->in: its type must be `type` (NULL: any, the caller checks), and the
   byte order, header size and compressor go into r; *vf = the tag, *xml_end = the start of
   <AppendedData> (or the end of the file). */
static int xml_header(vreader *r, const char *type, const char **vf, const char **xml_end) {
  const char *path = r->in->path, *base = r->in->data, *end = r->in->data + r->in->size;
  char buf[128];
  *vf = find_in(base, end, "<VTKFile");
  HX_CHECK(*vf, HX_ERR_INPUT, "%s: not a VTK XML file (no <VTKFile> tag)", path);
  *xml_end = find_in(*vf, end, "<AppendedData");
  if (!*xml_end) *xml_end = end;
  xtag t = {*vf, memchr(*vf, '>', (size_t)(*xml_end - *vf))};
  HX_CHECK(t.end, HX_ERR_INPUT, "%s: unterminated <VTKFile> tag at byte %ld", path, (long)(*vf - base));
  get_attr(t, "type", buf, sizeof buf);
  HX_CHECK(!type || !strcmp(buf, type), HX_ERR_INPUT, "%s: VTK file type '%s' is not supported; expected %s", path, buf, type);
  r->version = get_attr(t, "version", buf, sizeof buf) ? atof(buf) : 0.1;
  get_attr(t, "byte_order", buf, sizeof buf);
  HX_CHECK(!buf[0] || !strcmp(buf, "LittleEndian") || !strcmp(buf, "BigEndian"), HX_ERR_INPUT,
           "%s: byte_order '%s' is neither LittleEndian nor BigEndian", path, buf);
  r->swap = buf[0] && (!strcmp(buf, "LittleEndian")) != hx_io_little_endian();
  if (get_attr(t, "header_type", buf, sizeof buf)) {
    if (!strcmp(buf, "UInt64")) r->hsize = 8;
    else HX_CHECK(!strcmp(buf, "UInt32"), HX_ERR_INPUT, "%s: header_type '%s' must be UInt32 or UInt64", path, buf);
  }
  if (get_attr(t, "compressor", buf, sizeof buf) && buf[0]) {
    HX_CHECK(!strcmp(buf, "vtkZLibDataCompressor"), HX_ERR_INPUT,
             "%s: compressor '%s' is not supported; known: vtkZLibDataCompressor", path, buf);
    r->zlib = 1;
  }
  return HX_OK;
}

/* Undo the XML escapes of an attribute value in place: &amp; &lt; &gt; &quot; &apos; &#N; &#xN;. */
static void xml_unescape(char *s) {
  static const char *ent[5] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
  static const char chr[5] = {'&', '<', '>', '"', '\''};
  char *o = s;
  while (*s) {
    int k = 0;
    while (k < 5 && strncmp(s, ent[k], strlen(ent[k]))) k++;
    if (k < 5) {
      *o++ = chr[k];
      s += strlen(ent[k]);
      continue;
    }
    if (s[0] == '&' && s[1] == '#') {
      char *e;
      long v = s[2] == 'x' ? strtol(s + 3, &e, 16) : strtol(s + 2, &e, 10);
      if (*e == ';' && v > 0 && v < 256) {
        *o++ = (char)v;
        s = e + 1;
        continue;
      }
    }
    *o++ = *s++;
  }
  *o = 0;
}

/* The boundary names of the FieldData in [from, to): each array named "boundary:NAME" holds the
   id of NAME as its one value (in any encoding the reader knows, so also after ParaView re-saved
   the file). *found: one or more were there. */
static int read_field_names(const vreader *r, const char *from, const char *to, hx_mesh *m, int *found) {
  const char *path = r->in->path, *base = r->in->data;
  *found = 0;
  const char *fd = find_in(from, to, "<FieldData");
  if (!fd) return HX_OK;
  const char *fe = find_in(fd, to, "</FieldData");
  HX_CHECK(fe, HX_ERR_INPUT, "%s: <FieldData> at byte %ld is not closed", path, (long)(fd - base));
  for (const char *p = fd + 1; p < fe; p++) {
    if (*p != '<' || strncmp(p, "<DataArray", 10)) continue;
    xtag d = {p, memchr(p, '>', (size_t)(fe - p))};
    HX_CHECK(d.end, HX_ERR_INPUT, "%s: unterminated <DataArray> in <FieldData> at byte %ld", path, (long)(p - base));
    char name[320], buf[64];
    varr a = {0};
    a.found = 1;
    a.tag_pos = (size_t)(p - base);
    get_attr(d, "Name", name, sizeof name);
    get_attr(d, "type", a.type, sizeof a.type);
    get_attr(d, "format", a.format, sizeof a.format);
    size_t name_len = strlen(name) < sizeof a.name - 1 ? strlen(name) : sizeof a.name - 1;
    memcpy(a.name, name, name_len); /* for messages: the first 63 bytes */
    a.ncomp = 1;
    a.offset = get_attr(d, "offset", buf, sizeof buf) ? atoll(buf) : -1;
    a.content = a.content_end = d.end + 1;
    if (d.end[-1] != '/') {
      a.content_end = find_in(a.content, fe, "</DataArray");
      HX_CHECK(a.content_end, HX_ERR_INPUT, "%s: the FieldData array \"%s\" at byte %zu is not closed", path, a.name, a.tag_pos);
    }
    p = d.end;
    if (strncmp(name, "boundary:", 9)) continue;
    int64_t id = 0;
    HX_CALL(decode(r, &a, 1, NULL, &id));
    HX_CHECK(id >= 1 && id <= 1000000, HX_ERR_INPUT, "%s: the FieldData array \"%s\" holds the id %lld; expected 1..1000000",
             path, a.name, (long long)id);
    xml_unescape(name + 9);
    HX_CALL(hx_mesh_set_bname(m, (int)id, name + 9));
    *found = 1;
  }
  return HX_OK;
}

/* The <AppendedData> block starting at xml_end (none when xml_end is the end of the file):
   its encoding and the first byte after its '_' marker go into r. */
static int xml_appended(vreader *r, const char *xml_end) {
  const char *path = r->in->path, *end = r->in->data + r->in->size;
  char buf[128];
  if (xml_end >= end) return HX_OK;
  xtag t = {xml_end, memchr(xml_end, '>', (size_t)(end - xml_end))};
  HX_CHECK(t.end, HX_ERR_INPUT, "%s: unterminated <AppendedData> tag", path);
  get_attr(t, "encoding", buf, sizeof buf);
  if (!strcmp(buf, "base64")) r->app_base64 = 1;
  else HX_CHECK(!strcmp(buf, "raw"), HX_ERR_INPUT, "%s: AppendedData encoding '%s' must be raw or base64", path, buf);
  const char *u = memchr(t.end, '_', (size_t)(end - t.end));
  HX_CHECK(u, HX_ERR_INPUT, "%s: <AppendedData> has no '_' marker", path);
  r->app = u + 1;
  return HX_OK;
}

int hx_import_vtu(hx_comm comm, const char *path, hx_mesh **out) {
  hx_infile in;
  HX_CALL(hx_infile_read(&in, path));
  vreader r = {0};
  r.in = &in;
  r.hsize = 4;
  const char *base = in.data;
  hx_mesh *m = NULL;
  int64_t *conn = NULL, *offs = NULL, *types = NULL, *deg = NULL, *region = NULL, *bnd = NULL, *rep = NULL;
  double *pts = NULL;
  int rc = HX_OK;
  char buf[128];
#define FAIL(...)                                                                                                                \
  do {                                                                                                                           \
    rc = HX_ERROR(HX_ERR_INPUT, __VA_ARGS__);                                                                                    \
    goto done;                                                                                                                   \
  } while (0)
#define TRY(x)                                                                                                                   \
  do {                                                                                                                           \
    if ((rc = (x))) goto done;                                                                                                   \
  } while (0)

  const char *vf, *xml_end;
  TRY(xml_header(&r, "UnstructuredGrid", &vf, &xml_end));
  xtag t;
  const char *pc = find_in(vf, xml_end, "<Piece");
  if (!pc) FAIL("%s: no <Piece> in the UnstructuredGrid", path);
  if (find_in(pc + 6, xml_end, "<Piece")) FAIL("%s: several <Piece>s are not supported (read the .pvtu pieces one by one)", path);
  t.start = pc;
  t.end = memchr(pc, '>', (size_t)(xml_end - pc));
  if (!t.end) FAIL("%s: unterminated <Piece> tag", path);
  if (!get_attr(t, "NumberOfPoints", buf, sizeof buf) || !parse_ll(buf, &r.np) || r.np < 0)
    FAIL("%s: <Piece> needs NumberOfPoints >= 0", path);
  if (!get_attr(t, "NumberOfCells", buf, sizeof buf) || !parse_ll(buf, &r.nc) || r.nc < 1)
    FAIL("%s: <Piece> needs NumberOfCells >= 1", path);
  if (r.np > (long long)in.size || r.nc > (long long)in.size)
    FAIL("%s: NumberOfPoints %lld / NumberOfCells %lld exceed what a file of %zu bytes can hold", path, r.np, r.nc, in.size);
  TRY(xml_appended(&r, xml_end));

  /* DataArrays by section */
  varr a_pts = {0}, a_conn = {0}, a_offs = {0}, a_types = {0}, a_deg = {0}, a_reg = {0}, a_bnd = {0};
  int section = 0; /* 1 Points, 2 Cells, 3 CellData, 4 other */
  for (const char *p = pc; p < xml_end; p++) {
    if (*p != '<') continue;
    if (!strncmp(p, "<Points", 7)) section = 1;
    else if (!strncmp(p, "<Cells", 6)) section = 2;
    else if (!strncmp(p, "<CellData", 9)) section = 3;
    else if (!strncmp(p, "<PointData", 10) || !strncmp(p, "<FieldData", 10)) section = 4;
    else if (!strncmp(p, "</Points", 8) || !strncmp(p, "</Cells", 7) || !strncmp(p, "</CellData", 10) ||
             !strncmp(p, "</PointData", 11) || !strncmp(p, "</FieldData", 11))
      section = 0;
    else if (!strncmp(p, "<DataArray", 10)) {
      xtag d = {p, memchr(p, '>', (size_t)(xml_end - p))};
      if (!d.end) FAIL("%s: unterminated <DataArray> at byte %ld", path, (long)(p - base));
      varr a = {0};
      a.found = 1;
      a.tag_pos = (size_t)(p - base);
      get_attr(d, "type", a.type, sizeof a.type);
      get_attr(d, "Name", a.name, sizeof a.name);
      get_attr(d, "format", a.format, sizeof a.format);
      a.ncomp = get_attr(d, "NumberOfComponents", buf, sizeof buf) ? atoi(buf) : 1;
      a.offset = get_attr(d, "offset", buf, sizeof buf) ? atoll(buf) : -1;
      if (d.end[-1] != '/') {
        a.content = d.end + 1;
        a.content_end = find_in(a.content, xml_end, "</DataArray");
        if (!a.content_end) FAIL("%s: <DataArray Name=\"%s\"> at byte %zu is not closed", path, a.name, a.tag_pos);
      } else {
        a.content = a.content_end = d.end;
      }
      if (section == 1 && !a_pts.found) a_pts = a;
      else if (section == 2 && !strcmp(a.name, "connectivity")) a_conn = a;
      else if (section == 2 && !strcmp(a.name, "offsets")) a_offs = a;
      else if (section == 2 && !strcmp(a.name, "types")) a_types = a;
      else if (section == 3 && !strcmp(a.name, "HigherOrderDegrees")) a_deg = a;
      else if (section == 3 && !strcmp(a.name, "region")) a_reg = a;
      else if (section == 3 && !strcmp(a.name, "boundary_ids")) a_bnd = a;
      p = d.end;
    }
  }
  if (!a_pts.found || a_pts.ncomp != 3) FAIL("%s: no <Points> array with 3 components", path);
  if (!a_conn.found || !a_offs.found || !a_types.found) FAIL("%s: <Cells> needs connectivity, offsets and types arrays", path);

  size_t nc = (size_t)r.nc, np = (size_t)r.np;
  TRY(hx_malloc(nc * sizeof(int64_t), &types));
  TRY(decode(&r, &a_types, nc, NULL, types));
  TRY(hx_malloc(nc * sizeof(int64_t), &offs));
  TRY(decode(&r, &a_offs, nc, NULL, offs));
  for (size_t e = 0; e < nc; e++)
    if (types[e] != 72 && types[e] != 12 && types[e] != 29)
      FAIL("%s: cell %zu has VTK type %lld; only hexahedra (12, 29, 72) are read", path, e, (long long)types[e]);
  int64_t npe = offs[0];
  int order = (int)lround(cbrt((double)npe)) - 1;
  if (order < 1 || order > HX_MAX_ORDER || (int64_t)(order + 1) * (order + 1) * (order + 1) != npe)
    FAIL("%s: cell 0 has %lld points, not (N+1)^3 for an order N in 1..%d", path, (long long)npe, HX_MAX_ORDER);
  for (size_t e = 0; e < nc; e++)
    if (offs[e] != (int64_t)(e + 1) * npe)
      FAIL("%s: cell %zu: offsets say %lld points; all cells must be hexahedra of one order (%lld points)", path, e,
           (long long)(offs[e] - (e ? offs[e - 1] : 0)), (long long)npe);
  if (a_deg.found) {
    TRY(hx_malloc(nc * 3 * sizeof(int64_t), &deg));
    TRY(decode(&r, &a_deg, 3 * nc, NULL, deg));
    for (size_t e = 0; e < 3 * nc; e++)
      if (deg[e] != order)
        FAIL("%s: cell %zu: HigherOrderDegrees %lld differ from the order %d of its point count", path, e / 3, (long long)deg[e],
             order);
  }
  int nd = order + 1;
  if (nc * (size_t)npe > in.size) FAIL("%s: %zu cells of %lld points exceed the file size", path, nc, (long long)npe);
  TRY(hx_malloc(nc * (size_t)npe * sizeof(int64_t), &conn));
  TRY(decode(&r, &a_conn, nc * (size_t)npe, NULL, conn));
  for (size_t i = 0; i < nc * (size_t)npe; i++)
    if (conn[i] < 0 || conn[i] >= (int64_t)np)
      FAIL("%s: connectivity entry %zu (cell %zu) = %lld is outside 0..%lld", path, i, i / (size_t)npe, (long long)conn[i],
           (long long)np - 1);
  TRY(hx_malloc((np ? np : 1) * 3 * sizeof(double), &pts));
  TRY(decode(&r, &a_pts, 3 * np, pts, NULL));
  for (size_t i = 0; i < 3 * np; i++)
    if (!isfinite(pts[i])) FAIL("%s: point %zu has a non-finite coordinate", path, i / 3);

  /* VTK < 2.1 files use the VTK 8 order: the vertical edges (1,1) and (0,1) swapped */
  int pos2lex[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
  hx_vtk_hex_order(order, pos2lex);
  if (r.version < 2.1 && order > 1 && types[0] == 72) {
    int m1 = order - 1, e10 = 8 + 10 * m1, e11 = 8 + 11 * m1;
    for (int q = 0; q < m1; q++) {
      int tmp = pos2lex[e10 + q];
      pos2lex[e10 + q] = pos2lex[e11 + q];
      pos2lex[e11 + q] = tmp;
    }
  }

  /* duplicated points (no point used twice): merge by coordinates */
  TRY(hx_malloc((np ? np : 1) * sizeof(int64_t), &rep));
  {
    unsigned char *used = NULL;
    TRY(hx_malloc(np ? np : 1, &used));
    int shared = 0;
    for (size_t i = 0; i < nc * (size_t)npe && !shared; i++) {
      if (used[conn[i]]) shared = 1;
      used[conn[i]] = 1;
    }
    hx_free(&used);
    for (size_t i = 0; i < np; i++) rep[i] = (int64_t)i;
    if (!shared && nc > 1) {
      double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
      for (size_t i = 0; i < np; i++)
        for (int d = 0; d < 3; d++) {
          if (pts[3 * i + d] < lo[d]) lo[d] = pts[3 * i + d];
          if (pts[3 * i + d] > hi[d]) hi[d] = pts[3 * i + d];
        }
      double diag =
          sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
      TRY(hx_io_merge_points((int64_t)np, pts, 1e-9 * (diag > 0 ? diag : 1), rep));
    }
  }

  if (nc > (size_t)INT32_MAX) FAIL("%s: %zu cells exceed the 32-bit local element index", path, nc);
  TRY(hx_mesh_create(comm, order, (hx_lid)nc, &m));
  {
    double B[HX_MAX_ND * HX_MAX_ND];
    TRY(hx_io_interp_matrix(nd, 0, B));
    double eq[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
    for (size_t e = 0; e < nc; e++) {
      const int64_t *ce = conn + e * (size_t)npe;
      for (int d = 0; d < 3; d++) {
        for (int p = 0; p < npe; p++) eq[pos2lex[p]] = pts[3 * ce[p] + d];
        hx_io_tensor3(nd, B, eq, hx_mesh_elem_x(m, (hx_lid)e, d));
      }
      for (int p = 0; p < npe; p++) m->node_id[e * (size_t)npe + pos2lex[p]] = rep[ce[p]];
    }
  }
  hx_io_set_vert_ids(m);
  TRY(hx_io_unify_shared(m));
  if (a_reg.found) {
    TRY(hx_malloc(nc * sizeof(int64_t), &region));
    TRY(decode(&r, &a_reg, nc, NULL, region));
    for (size_t e = 0; e < nc; e++) m->elem_attr[e] = region[e] >= 1 && region[e] < INT32_MAX ? (int32_t)region[e] : 1;
  }
  if (a_bnd.found && a_bnd.ncomp == 6) {
    TRY(hx_malloc(nc * 6 * sizeof(int64_t), &bnd));
    TRY(decode(&r, &a_bnd, 6 * nc, NULL, bnd));
    for (size_t e = 0; e < nc; e++)
      for (int f = 0; f < 6; f++) {
        int64_t b = bnd[e * 6 + f];
        if (b < 0 || b > 1000000) FAIL("%s: boundary_ids of cell %zu face %d = %lld is out of range", path, e, f, (long long)b);
        if (b > 0) TRY(hx_mesh_add_face(m, (hx_lid)e, f, (int)b, -1));
      }
    /* names from the FieldData, or from the comments <!-- hexpack boundary ID "NAME" --> of older files */
    int named = 0;
    TRY(read_field_names(&r, vf, pc, m, &named));
    for (const char *p = named ? NULL : find_in(base, xml_end, "<!-- hexpack boundary "); p;
         p = find_in(p + 1, xml_end, "<!-- hexpack boundary ")) {
      int id;
      char name[128];
      if (sscanf(p, "<!-- hexpack boundary %d \"%127[^\"]\"", &id, name) == 2 && id >= 1 && id < 1000000)
        TRY(hx_mesh_set_bname(m, id, name));
    }
  } else {
    TRY(hx_io_exterior_faces(m, 1, "boundary"));
  }
done:
#undef FAIL
#undef TRY
  hx_free(&conn);
  hx_free(&offs);
  hx_free(&types);
  hx_free(&deg);
  hx_free(&region);
  hx_free(&bnd);
  hx_free(&rep);
  hx_free(&pts);
  hx_infile_free(&in);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}

/* ---- .pvtu: the pieces read one by one and joined -----------------------------------
   design: the index names its pieces (<Piece Source>, relative to the index); each is
   read by the .vtu reader above on HX_COMM_SELF, the elements are concatenated in piece
   order (each piece's node ids shifted past the previous pieces'), and the nodes the
   pieces repeat on their partition boundaries are merged by coordinates (1e-9 of the
   bounding box, as duplicated points in one .vtu). Boundary faces and names come from
   the pieces' cell data and comments. Serial, like every reader. */

#define PVTU_MAX_PIECES 65536

int hx_import_pvtu(hx_comm comm, const char *path, hx_mesh **out) {
  *out = NULL;
  hx_infile in;
  HX_CALL(hx_infile_read(&in, path));
  int rc = HX_OK, np = 0, order = 0;
  char **src = NULL;
  hx_mesh **pm = NULL, *m = NULL;
  double *pts = NULL;
  int64_t *rep = NULL;
  if (!strstr(in.data, "<VTKFile") || !strstr(in.data, "PUnstructuredGrid")) {
    rc = HX_ERROR(HX_ERR_INPUT, "%s: not a VTK PUnstructuredGrid file (no <VTKFile type=\"PUnstructuredGrid\">)", path);
    goto done;
  }
  for (const char *p = strstr(in.data, "<Piece"); p; p = strstr(p + 1, "<Piece")) np++;
  if (np == 0 || np > PVTU_MAX_PIECES) {
    rc = HX_ERROR(HX_ERR_INPUT, "%s: %d <Piece> entries; expected 1..%d", path, np, PVTU_MAX_PIECES);
    goto done;
  }
  if ((rc = hx_malloc((size_t)np * sizeof *src, &src)) || (rc = hx_malloc((size_t)np * sizeof *pm, &pm))) goto done;
  const char *slash = strrchr(path, '/');
  int dirlen = slash ? (int)(slash - path + 1) : 0;
  int k = 0;
  for (const char *p = strstr(in.data, "<Piece"); p && !rc; p = strstr(p + 1, "<Piece"), k++) {
    const char *a = strstr(p, "Source=\""), *close = strchr(p, '>');
    if (!a || !close || a > close) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s: <Piece> %d at byte %ld has no Source=\"...\"", path, k, (long)(p - in.data));
      break;
    }
    a += 8;
    const char *b = strchr(a, '"');
    if (!b || b > close || b == a || b - a > 4000) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s: <Piece> %d at byte %ld: bad Source", path, k, (long)(p - in.data));
      break;
    }
    int dl = *a == '/' ? 0 : dirlen; /* an absolute piece name stands alone */
    if ((rc = hx_malloc((size_t)dl + (size_t)(b - a) + 1, &src[k]))) break;
    snprintf(src[k], (size_t)dl + (size_t)(b - a) + 1, "%.*s%.*s", dl, path, (int)(b - a), a);
  }
  hx_gid total = 0;
  for (k = 0; k < np && !rc; k++) {
    rc = hx_import_vtu(HX_COMM_SELF, src[k], &pm[k]);
    if (rc) { /* name the index too */
      char msg[600];
      snprintf(msg, sizeof msg, "%s", hx_error_message());
      hx_error_clear();
      rc = HX_ERROR(rc, "%s: piece %d of %d: %s", path, k + 1, np, msg);
      break;
    }
    if (k == 0) order = pm[0]->order;
    if (pm[k]->order != order) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s: piece '%s' has order %d, the first piece %d", path, src[k], pm[k]->order, order);
      break;
    }
    total += pm[k]->num_elem;
  }
  if (!rc && total > INT32_MAX)
    rc = HX_ERROR(HX_ERR_INPUT, "%s: %lld cells exceed the 32-bit local element index", path, (long long)total);
  if (!rc) rc = hx_mesh_create(comm, order, (hx_lid)total, &m);
  /* concatenate, node ids shifted piece by piece */
  size_t npe = (size_t)(order + 1) * (order + 1) * (order + 1);
  hx_gid idbase = 0;
  hx_lid e0 = 0;
  for (k = 0; k < np && !rc; k++) {
    const hx_mesh *q = pm[k];
    size_t n = (size_t)q->num_elem * npe;
    hx_gid hi = -1;
    memcpy(m->x + (size_t)e0 * 3 * npe, q->x, n * 3 * sizeof(double));
    for (size_t i = 0; i < n; i++) {
      m->node_id[(size_t)e0 * npe + i] = q->node_id[i] + idbase;
      if (q->node_id[i] > hi) hi = q->node_id[i];
    }
    memcpy(m->elem_attr + e0, q->elem_attr, (size_t)q->num_elem * sizeof(int32_t));
    for (hx_lid f = 0; f < q->num_faces && !rc; f++)
      rc = hx_mesh_add_face(m, e0 + q->faces[f].elem, q->faces[f].face, q->faces[f].bid, -1);
    for (int b = 1; b < q->num_bnames && !rc; b++)
      if (q->bnames[b] && (b >= m->num_bnames || !m->bnames[b])) rc = hx_mesh_set_bname(m, b, q->bnames[b]);
    idbase += hi + 1;
    e0 += q->num_elem;
  }
  /* the partition-boundary nodes, once per piece: merged by coordinates */
  if (!rc) rc = hx_malloc((size_t)(idbase > 0 ? idbase : 1) * 3 * sizeof(double), &pts);
  if (!rc) rc = hx_malloc((size_t)(idbase > 0 ? idbase : 1) * sizeof(int64_t), &rep);
  if (!rc) {
    size_t n = (size_t)total * npe;
    for (size_t i = 0; i < n; i++)
      for (int d = 0; d < 3; d++) pts[3 * m->node_id[i] + d] = hx_mesh_elem_x(m, (hx_lid)(i / npe), d)[i % npe];
    double lo[3], hi[3];
    hx_mesh_bbox(m, lo, hi);
    double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    rc = hx_io_merge_points((int64_t)idbase, pts, 1e-9 * (diag > 0 ? diag : 1), rep);
    if (!rc) {
      for (size_t i = 0; i < n; i++) m->node_id[i] = rep[m->node_id[i]];
      hx_io_set_vert_ids(m);
      rc = hx_io_unify_shared(m);
    }
  }
done:
  for (k = 0; pm && k < np; k++) hx_mesh_destroy(&pm[k]);
  for (k = 0; src && k < np; k++) hx_free(&src[k]);
  hx_free(&pm);
  hx_free(&src);
  hx_free(&pts);
  hx_free(&rep);
  hx_infile_free(&in);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}

/* ---- particles: the points of every <Piece> and one point-data array ----------------
   For packings written by DEM codes and ParaView (hx_particles.h): UnstructuredGrid or
   PolyData, the cells (vertices, if any) ignored. */

static int same_name(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
  return *a == *b;
}

static int line_at(const hx_infile *in, const char *p) {
  int line = 1;
  for (const char *q = in->data; q < p; q++) line += *q == '\n';
  return line;
}

int hx_io_vtu_points(hx_infile *in, const char *const *names, hx_io_points *out) {
  memset(out, 0, sizeof *out);
  out->which = -1;
  vreader r = {0};
  r.in = in;
  r.hsize = 4;
  const char *path = in->path, *vf, *xml_end;
  char buf[128];
  HX_CALL(xml_header(&r, NULL, &vf, &xml_end));
  xtag t = {vf, memchr(vf, '>', (size_t)(xml_end - vf))};
  get_attr(t, "type", buf, sizeof buf);
  HX_CHECK(!strcmp(buf, "UnstructuredGrid") || !strcmp(buf, "PolyData"), HX_ERR_INPUT,
           "%s:%d: VTK XML type '%s' holds no particles; expected UnstructuredGrid or PolyData (points with a radius or "
           "diameter point-data array)",
           path, line_at(in, vf), buf);
  HX_CALL(xml_appended(&r, xml_end));
  /* every piece's point count first: one allocation */
  long long total = 0;
  int num_pieces = 0;
  for (const char *pc = find_in(vf, xml_end, "<Piece"); pc; pc = find_in(pc + 6, xml_end, "<Piece")) {
    xtag p = {pc, memchr(pc, '>', (size_t)(xml_end - pc))};
    long long np;
    HX_CHECK(p.end, HX_ERR_INPUT, "%s:%d: unterminated <Piece> tag", path, line_at(in, pc));
    HX_CHECK(get_attr(p, "NumberOfPoints", buf, sizeof buf) && parse_ll(buf, &np) && np >= 0 && np <= (long long)in->size,
             HX_ERR_INPUT, "%s:%d: <Piece> needs NumberOfPoints >= 0 (at most what the file can hold), found '%s'", path,
             line_at(in, pc), buf);
    total += np;
    num_pieces++;
  }
  HX_CHECK(num_pieces > 0, HX_ERR_INPUT, "%s: no <Piece> in the %s", path, buf);
  HX_CHECK(total <= (long long)in->size, HX_ERR_INPUT, "%s: the pieces' %lld points exceed what a file of %zu bytes can hold",
           path, total, in->size);
  int rc = hx_malloc((size_t)(total ? total : 1) * 3 * sizeof(double), &out->xyz);
  if (rc) return rc;
  long long done = 0;
  int k = 0;
  for (const char *pc = find_in(vf, xml_end, "<Piece"); pc && !rc; pc = find_in(pc + 6, xml_end, "<Piece"), k++) {
    const char *pend = find_in(pc + 6, xml_end, "<Piece");
    if (!pend) pend = xml_end;
    xtag p = {pc, memchr(pc, '>', (size_t)(xml_end - pc))};
    get_attr(p, "NumberOfPoints", buf, sizeof buf);
    parse_ll(buf, &r.np);
    varr a_pts = {0}, a_val = {0};
    int section = 0, which = -1; /* 1 Points, 2 PointData, 3 other */
    for (const char *q = pc; q < pend && !rc; q++) {
      if (*q != '<') continue;
      if (!strncmp(q, "<Points", 7)) section = 1;
      else if (!strncmp(q, "<PointData", 10)) section = 2;
      else if (!strncmp(q, "<CellData", 9) || !strncmp(q, "<FieldData", 10) || !strncmp(q, "<Cells", 6) ||
               !strncmp(q, "<Verts", 6) || !strncmp(q, "<Lines", 6) || !strncmp(q, "<Strips", 7) || !strncmp(q, "<Polys", 6))
        section = 3;
      else if (!strncmp(q, "</Points", 8) || !strncmp(q, "</PointData", 11)) section = 0;
      else if (!strncmp(q, "<DataArray", 10)) {
        xtag d = {q, memchr(q, '>', (size_t)(xml_end - q))};
        if (!d.end) {
          rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: unterminated <DataArray>", path, line_at(in, q));
          break;
        }
        varr a = {0};
        a.found = 1;
        a.tag_pos = (size_t)(q - in->data);
        get_attr(d, "type", a.type, sizeof a.type);
        get_attr(d, "Name", a.name, sizeof a.name);
        get_attr(d, "format", a.format, sizeof a.format);
        a.ncomp = get_attr(d, "NumberOfComponents", buf, sizeof buf) ? atoi(buf) : 1;
        a.offset = get_attr(d, "offset", buf, sizeof buf) ? atoll(buf) : -1;
        if (d.end[-1] != '/') {
          a.content = d.end + 1;
          a.content_end = find_in(a.content, xml_end, "</DataArray");
          if (!a.content_end) {
            rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: <DataArray Name=\"%s\"> is not closed", path, line_at(in, q), a.name);
            break;
          }
        } else {
          a.content = a.content_end = d.end;
        }
        if (section == 1 && !a_pts.found) a_pts = a;
        if (section == 2) {
          if (k == 0 && strlen(out->found) + strlen(a.name) + 3 < sizeof out->found)
            snprintf(out->found + strlen(out->found), sizeof out->found - strlen(out->found), "%s%s", out->found[0] ? ", " : "",
                     a.name);
          for (int i = 0; names[i] && (which < 0 || i < which); i++)
            if (same_name(a.name, names[i])) which = i, a_val = a;
        }
        q = d.end;
      }
    }
    if (rc) break;
    if (!a_pts.found || a_pts.ncomp != 3) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: piece %d has no <Points> array of 3 components", path, line_at(in, pc), k + 1);
      break;
    }
    if (k == 0) {
      out->which = which;
      out->line_points = line_at(in, in->data + a_pts.tag_pos);
      if (which >= 0) {
        out->line_val = line_at(in, in->data + a_val.tag_pos);
        rc = hx_malloc((size_t)(total ? total : 1) * sizeof(double), &out->val);
      }
    } else if (which != out->which && out->which >= 0) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: piece %d has no point-data array '%s' (the first piece has)", path, line_at(in, pc),
                    k + 1, names[out->which]);
    }
    if (rc) break;
    if (out->val && a_val.ncomp != 1) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s:%d: point-data array '%s' has %d components; expected 1", path,
                    line_at(in, in->data + a_val.tag_pos), a_val.name, a_val.ncomp);
      break;
    }
    rc = decode(&r, &a_pts, 3 * (size_t)r.np, out->xyz + 3 * done, NULL);
    if (!rc && out->val) rc = decode(&r, &a_val, (size_t)r.np, out->val + done, NULL);
    done += r.np;
  }
  if (rc) {
    hx_free(&out->xyz);
    hx_free(&out->val);
    return rc;
  }
  out->n = total;
  return HX_OK;
}
