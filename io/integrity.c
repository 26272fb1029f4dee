/* The checks every read mesh goes through (hx_import): cheap, linear in the mesh size.

   design:
   1. per element: every coordinate finite; eight distinct corner node ids; the sign of
      det J at the eight corners (GLL corner nodes, hx_mesh_jacobian_at_node);
   2. faces: one open-addressing hash table of the 6 ne element faces keyed by their sorted
      corner ids (the key is recomputed from vert_id, the table holds face indices
      e * 6 + f). A face of three or more elements, two elements with the same corners, or
      (HX_READ_FACE_NODES: ids from the file's connectivity) two elements sharing a face's
      corners but not its other nodes (compared as a multiset through two order-free 64-bit
      sums of mixed ids) make the mesh broken;
   3. boundary records: each must name a face of one element (not an interior face) and
      no face twice; where the format records every boundary face (HX_READ_HOLES), a face
      of one element without a record is a hole in the mesh (broken).
   The mesh is whole on every rank (the readers are serial, hx_import), so each rank's
   check is the check of the whole mesh and every rank reaches the same verdict. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx_error.h"
#include "hx_memory.h"
#include "io_impl.h"

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

static void sort4(int64_t *v) {
  for (int a = 1; a < 4; a++)
    for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
      int64_t t = v[b];
      v[b] = v[b - 1];
      v[b - 1] = t;
    }
}

static void face_key(const hx_mesh *m, int64_t fi, int64_t k[4]) {
  int c[4];
  hx_face_corners((int)(fi % 6), c);
  for (int d = 0; d < 4; d++) k[d] = m->vert_id[(fi / 6) * 8 + c[d]];
  sort4(k);
}

/* two order-free sums of the node ids of face fi (all nd^2 nodes) */
static void face_sums(const hx_mesh *m, int64_t fi, uint64_t s[2]) {
  int nd = m->nd, f = (int)(fi % 6);
  const hx_gid *id = m->node_id + (size_t)(fi / 6) * (size_t)hx_mesh_nodes_per_elem(m);
  s[0] = s[1] = 0;
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++)
        if (hx_node_on_face(nd, f, i, j, k)) {
          uint64_t v = (uint64_t)id[hx_lex(nd, i, j, k)];
          s[0] += mix(v);
          s[1] += mix(v ^ 0x9e3779b97f4a7c15ull) * 3 + 1;
        }
}

static int same_corners(const hx_mesh *m, hx_lid a, hx_lid b) {
  int64_t x[8], y[8];
  for (int c = 0; c < 8; c++) x[c] = m->vert_id[(size_t)a * 8 + c], y[c] = m->vert_id[(size_t)b * 8 + c];
  for (int s = 1; s < 8; s++)
    for (int t = s; t > 0 && x[t - 1] > x[t]; t--) {
      int64_t u = x[t];
      x[t] = x[t - 1];
      x[t - 1] = u;
    }
  for (int s = 1; s < 8; s++)
    for (int t = s; t > 0 && y[t - 1] > y[t]; t--) {
      int64_t u = y[t];
      y[t] = y[t - 1];
      y[t - 1] = u;
    }
  return !memcmp(x, y, sizeof x);
}

/* the first problem of a kind is kept in r->what (elements numbered from 0, as in quality's lists) */
static void note(hx_read_check *r, int64_t *counter, const char *fmt, long long a, long long b) {
  if (!r->broken) snprintf(r->what, sizeof r->what, fmt, a, b);
  (*counter)++;
  r->broken = 1;
}

int hx_io_read_check(const hx_mesh *m, int checks, hx_read_check *r) {
  memset(r, 0, sizeof *r);
  r->first_inverted = -1;
  hx_lid ne = m->num_elem;
  size_t npe = (size_t)hx_mesh_nodes_per_elem(m), nf = (size_t)ne * 6;
  int N = m->order;
  double D[HX_MAX_ND * HX_MAX_ND];
  HX_CALL(hx_mesh_gll_derivative(m->nd, D));
  /* 1. elements */
  for (hx_lid e = 0; e < ne; e++) {
    const double *x = m->x + (size_t)e * 3 * npe;
    int finite = 1;
    for (size_t p = 0; p < 3 * npe && finite; p++) finite = isfinite(x[p]);
    if (!finite) {
      note(r, &r->nonfinite, "element %lld has a non-finite coordinate%.0lld", (long long)e, 0);
      continue;
    }
    const hx_gid *v = m->vert_id + (size_t)e * 8;
    int rep = 0;
    for (int a = 0; a < 8 && !rep; a++)
      for (int b = a + 1; b < 8 && !rep; b++)
        if (v[a] == v[b]) {
          note(r, &r->repeated, "element %lld uses node %lld at two corners", (long long)e, (long long)v[a]);
          rep = 1;
        }
    if (rep) continue;
    for (int c = 0; c < 8; c++) {
      double J[3][3], d = hx_mesh_jacobian_at_node(m, D, e, (c & 1) ? N : 0, (c & 2) ? N : 0, (c & 4) ? N : 0, J);
      if (!(d > 0)) {
        if (r->first_inverted < 0) r->first_inverted = e;
        r->inverted++;
        break;
      }
    }
  }
  if (r->broken) return HX_OK; /* faces of such elements say nothing more */
  /* 2. faces */
  size_t cap = 1024;
  while (cap < 2 * nf) cap *= 2;
  int64_t *slot = NULL; /* face index of the first element on it, -1 empty */
  int32_t *count = NULL;
  unsigned char *rec = NULL; /* [nf] boundary records per element face */
  int rc = hx_malloc(cap * sizeof *slot, &slot);
  if (!rc) rc = hx_malloc(cap * sizeof *count, &count);
  if (!rc) rc = hx_malloc(nf ? nf : 1, &rec);
  if (rc) goto done;
  memset(slot, 0xff, cap * sizeof *slot);
  memset(count, 0, cap * sizeof *count);
  for (int64_t fi = 0; fi < (int64_t)nf; fi++) {
    int64_t k[4], q[4];
    face_key(m, fi, k);
    size_t h = (size_t)(mix((uint64_t)k[0] ^ mix((uint64_t)k[1] ^ mix((uint64_t)k[2] ^ mix((uint64_t)k[3]))))) & (cap - 1);
    for (;; h = (h + 1) & (cap - 1)) {
      if (slot[h] < 0) {
        slot[h] = fi;
        count[h] = 1;
        break;
      }
      face_key(m, slot[h], q);
      if (memcmp(k, q, sizeof k)) continue;
      int64_t other = slot[h];
      if (++count[h] == 3) {
        note(r, &r->multi_faces, "a face of element %lld is shared by three or more elements (also element %lld)",
             (long long)(fi / 6), (long long)(other / 6));
      } else if (count[h] == 2) {
        hx_lid a = (hx_lid)(other / 6), b = (hx_lid)(fi / 6);
        uint64_t sa[2], sb[2];
        face_sums(m, other, sa);
        face_sums(m, fi, sb);
        if (a == b) note(r, &r->multi_faces, "element %lld has two faces with the same corners%.0lld", (long long)a, 0);
        else if (same_corners(m, a, b))
          note(r, &r->dup_elems, "elements %lld and %lld have the same corners", (long long)a, (long long)b);
        else if ((checks & HX_READ_FACE_NODES) && (sa[0] != sb[0] || sa[1] != sb[1]))
          note(r, &r->mismatched, "elements %lld and %lld share a face's corners but not its other nodes", (long long)a,
               (long long)b);
      }
      break;
    }
  }
  /* 3. boundary records */
  for (hx_lid t = 0; t < m->num_faces; t++) {
    const hx_bface *b = &m->faces[t];
    if (b->elem < 0 || b->elem >= ne || b->face < 0 || b->face > 5) {
      note(r, &r->bad_records, "boundary record %lld names element %lld, which does not exist", (long long)t + 1,
           (long long)b->elem);
      continue;
    }
    size_t fi = (size_t)b->elem * 6 + (size_t)b->face;
    if (rec[fi]++)
      note(r, &r->bad_records, "face %lld of element %lld has two boundary records", (long long)b->face, (long long)b->elem);
  }
  for (size_t h = 0; h < cap; h++) {
    if (slot[h] < 0) continue;
    if (count[h] == 1) {
      r->exterior++;
      if ((checks & HX_READ_HOLES) && !rec[slot[h]])
        note(r, &r->open_faces, "face %lld of element %lld has no neighbour and no boundary condition (a hole in the mesh)",
             (long long)(slot[h] % 6), (long long)(slot[h] / 6));
    }
  }
  /* no record on an interior face */
  for (hx_lid t = 0; t < m->num_faces && !r->bad_records; t++) {
    const hx_bface *b = &m->faces[t];
    int64_t fi = (int64_t)b->elem * 6 + b->face, k[4], q[4];
    face_key(m, fi, k);
    size_t h = (size_t)(mix((uint64_t)k[0] ^ mix((uint64_t)k[1] ^ mix((uint64_t)k[2] ^ mix((uint64_t)k[3]))))) & (cap - 1);
    for (; slot[h] >= 0; h = (h + 1) & (cap - 1)) {
      face_key(m, slot[h], q);
      if (!memcmp(k, q, sizeof k)) break;
    }
    if (slot[h] >= 0 && count[h] >= 2)
      note(r, &r->bad_records, "face %lld of element %lld has a boundary record but a neighbour too", (long long)b->face,
           (long long)b->elem);
  }
done:
  hx_free(&slot);
  hx_free(&count);
  hx_free(&rec);
  return rc;
}
