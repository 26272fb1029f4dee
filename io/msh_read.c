/* Gmsh mesh reader through the Gmsh C API (gmshc.h): any MSH version Gmsh reads,
   including meshes Gmsh itself generated.

   design:
   1. gmshOpen the file (Gmsh's own parser reports malformed files);
   2. the hexahedra of every volume entity (complete Lagrange types only, one order)
      and all nodes; node tag = node id; equispaced nodes re-interpolated to GLL;
   3. boundary faces from the quadrangles of the surface entities, matched to hex
      faces by their sorted corner tags; boundary id = the surface's physical tag
      (or its entity tag when it has none), name = the physical name. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_config.h"
#include "hx_error.h"
#include "hx_memory.h"
#include "io_impl.h"

#if HX_HAVE_GMSH
#include <gmshc.h>

typedef struct {
  int64_t k[4];
  hx_lid elem;
  int face;
} fkey;

static int cmp_fkey(const void *a, const void *b) {
  const fkey *x = a, *y = b;
  for (int d = 0; d < 4; d++)
    if (x->k[d] != y->k[d]) return x->k[d] < y->k[d] ? -1 : 1;
  return 0;
}

static void sort4(int64_t *v) {
  for (int a = 1; a < 4; a++)
    for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
      int64_t t = v[b];
      v[b] = v[b - 1];
      v[b - 1] = t;
    }
}

/* frees what gmshModelMeshGetElements returned */
static void free_elements(int *types, size_t ntypes, size_t **et, size_t *et_n, size_t **nt, size_t *nt_n) {
  for (size_t t = 0; t < ntypes; t++) {
    gmshFree(et[t]);
    gmshFree(nt[t]);
  }
  gmshFree(types);
  gmshFree(et);
  gmshFree(et_n);
  gmshFree(nt);
  gmshFree(nt_n);
}

static int gmsh_err(const char *path, const char *what) {
  char *msg = NULL;
  int ierr = 0;
  gmshLoggerGetLastError(&msg, &ierr);
  int rc = HX_ERROR(HX_ERR_INPUT, "%s: %s: %s", path, what, msg && msg[0] ? msg : "Gmsh reported an error");
  if (msg) gmshFree(msg);
  return rc;
}

int hx_import_msh(hx_comm comm, const char *path, hx_mesh **out) {
  int ierr = 0;
  FILE *probe = fopen(path, "rb");
  HX_CHECK(probe, HX_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
  char head[12] = {0};
  size_t got = fread(head, 1, 11, probe);
  fclose(probe);
  HX_CHECK(got == 11 && !strncmp(head, "$MeshFormat", 11), HX_ERR_INPUT,
           "%s: byte 0: expected '$MeshFormat' (not a Gmsh .msh file)", path);
  static int initialized = 0; /* Gmsh keeps one global state; initialize it once */
  if (!initialized) {
    gmshInitialize(0, NULL, 0, &ierr);
    HX_CHECK(!ierr, HX_ERR_INPUT, "%s: cannot initialize Gmsh", path);
    initialized = 1;
  }
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  gmshOptionSetNumber("General.Verbosity", 1, &ierr);
  gmshLoggerStart(&ierr);
  gmshClear(&ierr);
  gmshOpen(path, &ierr);
  if (ierr) {
    int rc = gmsh_err(path, "Gmsh cannot read it");
    gmshClear(&ierr);
    return rc;
  }
  int rc = HX_OK;
  hx_mesh *m = NULL;
  size_t *ntags = NULL, ntags_n = 0, *etags_all = NULL;
  double *coord = NULL, *pc = NULL;
  size_t coord_n = 0, pc_n = 0;
  int *vols = NULL, *surfs = NULL;
  size_t nvols = 0, nsurfs = 0;
  size_t *hexnodes = NULL, nhex = 0, cap = 0;
  int order = 0;
  hx_idmap tagmap = {0};
  fkey *fk = NULL;
  gmshModelMeshGetNodes(&ntags, &ntags_n, &coord, &coord_n, &pc, &pc_n, -1, -1, 0, 0, &ierr);
  if (ierr) {
    rc = gmsh_err(path, "reading nodes");
    goto done;
  }
  for (size_t i = 0; i < coord_n; i++)
    if (!isfinite(coord[i])) {
      rc = HX_ERROR(HX_ERR_INPUT, "%s: node %zu has a non-finite coordinate", path, ntags[i / 3]);
      goto done;
    }
  gmshModelGetEntities(&vols, &nvols, 3, &ierr);
  for (size_t v = 0; v + 1 < nvols && rc == HX_OK; v += 2) {
    int *types = NULL;
    size_t ntypes = 0, **et = NULL, *et_n = NULL, et_nn = 0, **nt = NULL, *nt_n = NULL, nt_nn = 0;
    gmshModelMeshGetElements(&types, &ntypes, &et, &et_n, &et_nn, &nt, &nt_n, &nt_nn, 3, vols[v + 1], &ierr);
    for (size_t t = 0; t < ntypes && rc == HX_OK; t++) {
      char *name = NULL;
      int dim, ord, nn, npri;
      double *lc = NULL;
      size_t lc_n = 0;
      gmshModelMeshGetElementProperties(types[t], &name, &dim, &ord, &nn, &lc, &lc_n, &npri, &ierr);
      int is_hex = name && !strncmp(name, "Hexahedron", 10) && nn == (ord + 1) * (ord + 1) * (ord + 1);
      if (!is_hex)
        rc = HX_ERROR(HX_ERR_INPUT,
                      "%s: volume %d holds %zu element(s) of type %d (%s); only complete Lagrange "
                      "hexahedra (types 5, 12, 92..98) are read",
                      path, vols[v + 1], et_n[t], types[t], name ? name : "?");
      else if (order && ord != order)
        rc = HX_ERROR(HX_ERR_INPUT, "%s: hexahedra of orders %d and %d; one order per mesh", path, order, ord);
      if (rc == HX_OK) {
        order = ord;
        if (nhex + et_n[t] > cap) {
          cap = 2 * (nhex + et_n[t]);
          rc = hx_realloc(cap * (size_t)nn * sizeof(size_t), &hexnodes);
        }
        if (rc == HX_OK) memcpy(hexnodes + nhex * (size_t)nn, nt[t], nt_n[t] * sizeof(size_t));
        nhex += et_n[t];
      }
      if (name) gmshFree(name);
      if (lc) gmshFree(lc);
    }
    free_elements(types, ntypes, et, et_n, nt, nt_n);
  }
  if (rc) goto done;
  if (nhex == 0) {
    rc = HX_ERROR(HX_ERR_INPUT, "%s: no hexahedra in any volume (hexpack reads all-hex meshes)", path);
    goto done;
  }
  if (order > HX_MAX_ORDER || nhex > INT32_MAX) {
    rc = HX_ERROR(HX_ERR_INPUT, "%s: order %d or %zu elements out of range", path, order, nhex);
    goto done;
  }
  rc = hx_idmap_init_for(&tagmap, (const int64_t *)ntags, ntags_n, ntags_n);
  for (size_t i = 0; i < ntags_n && rc == HX_OK; i++) {
    int64_t val = (int64_t)i;
    if (hx_idmap_insert(&tagmap, (int64_t)ntags[i], &val) < 0) rc = HX_ERR_INPUT;
  }
  if (rc) goto done;
  rc = hx_mesh_create(comm, order, (hx_lid)nhex, &m);
  if (rc) goto done;
  {
    int nd = order + 1, npe = nd * nd * nd;
    int pos2lex[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
    double B[HX_MAX_ND * HX_MAX_ND], eq[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
    hx_gmsh_hex_order(order, pos2lex);
    rc = hx_io_interp_matrix(nd, 0, B);
    for (size_t e = 0; e < nhex && rc == HX_OK; e++) {
      const size_t *en = hexnodes + e * (size_t)npe;
      int64_t idx[HX_MAX_ND * HX_MAX_ND * HX_MAX_ND];
      for (int p = 0; p < npe; p++)
        if (!hx_idmap_find(&tagmap, (int64_t)en[p], &idx[p])) {
          rc = HX_ERROR(HX_ERR_INPUT, "%s: hexahedron %zu uses node %zu, which is not defined", path, e + 1, en[p]);
          break;
        }
      for (int d = 0; d < 3 && rc == HX_OK; d++) {
        for (int p = 0; p < npe; p++) eq[pos2lex[p]] = coord[3 * idx[p] + d];
        hx_io_tensor3(nd, B, eq, hx_mesh_elem_x(m, (hx_lid)e, d));
      }
      for (int p = 0; p < npe; p++) m->node_id[e * (size_t)npe + pos2lex[p]] = (hx_gid)en[p];
    }
    if (rc) goto done;
    hx_io_set_vert_ids(m);
    rc = hx_io_unify_shared(m);
    if (rc) goto done;
  }
  /* boundary quadrangles -> faces */
  rc = hx_malloc(nhex * 6 * sizeof(fkey), &fk);
  if (rc) goto done;
  for (size_t e = 0; e < nhex; e++)
    for (int f = 0; f < 6; f++) {
      int c[4];
      hx_face_corners(f, c);
      fkey *q = &fk[e * 6 + f];
      for (int d = 0; d < 4; d++) q->k[d] = m->vert_id[e * 8 + c[d]];
      sort4(q->k);
      q->elem = (hx_lid)e;
      q->face = f;
    }
  qsort(fk, nhex * 6, sizeof(fkey), cmp_fkey);
  gmshModelGetEntities(&surfs, &nsurfs, 2, &ierr);
  for (size_t s = 0; s + 1 < nsurfs && rc == HX_OK; s += 2) {
    int stag = surfs[s + 1], *phys = NULL;
    size_t nphys = 0;
    gmshModelGetPhysicalGroupsForEntity(2, stag, &phys, &nphys, &ierr);
    int bid = nphys ? phys[0] : stag;
    if (nphys) {
      char *pname = NULL;
      gmshModelGetPhysicalName(2, phys[0], &pname, &ierr);
      if (pname && pname[0] && bid >= 1) rc = hx_mesh_set_bname(m, bid, pname);
      if (pname) gmshFree(pname);
    }
    if (phys) gmshFree(phys);
    if (bid < 1) bid = stag > 0 ? stag : 1;
    int *types = NULL;
    size_t ntypes = 0, **et = NULL, *et_n = NULL, et_nn = 0, **nt = NULL, *nt_n = NULL, nt_nn = 0;
    gmshModelMeshGetElements(&types, &ntypes, &et, &et_n, &et_nn, &nt, &nt_n, &nt_nn, 2, stag, &ierr);
    for (size_t t = 0; t < ntypes && rc == HX_OK; t++) {
      char *name = NULL;
      int dim, ord, nn, npri;
      double *lc = NULL;
      size_t lc_n = 0;
      gmshModelMeshGetElementProperties(types[t], &name, &dim, &ord, &nn, &lc, &lc_n, &npri, &ierr);
      if (name && !strncmp(name, "Quadrilateral", 13)) {
        for (size_t q = 0; q < et_n[t] && rc == HX_OK; q++) {
          fkey key;
          for (int d = 0; d < 4; d++) key.k[d] = (int64_t)nt[t][q * (size_t)nn + d];
          sort4(key.k);
          fkey *hit = bsearch(&key, fk, nhex * 6, sizeof(fkey), cmp_fkey);
          if (!hit)
            rc = HX_ERROR(HX_ERR_INPUT, "%s: boundary quadrangle %zu of surface %d is not a face of any hexahedron", path,
                          et[t][q], stag);
          else rc = hx_mesh_add_face(m, hit->elem, hit->face, bid, -1);
        }
      }
      if (name) gmshFree(name);
      if (lc) gmshFree(lc);
    }
    free_elements(types, ntypes, et, et_n, nt, nt_n);
  }
done:
  if (ntags) gmshFree(ntags);
  if (coord) gmshFree(coord);
  if (pc) gmshFree(pc);
  if (vols) gmshFree(vols);
  if (surfs) gmshFree(surfs);
  hx_free(&hexnodes);
  hx_free(&fk);
  (void)etags_all;
  hx_idmap_free(&tagmap);
  gmshClear(&ierr);
  if (rc) {
    hx_mesh_destroy(&m);
    return rc;
  }
  *out = m;
  return HX_OK;
}
#else
int hx_import_msh(hx_comm comm, const char *path, hx_mesh **out) {
  (void)comm;
  (void)out;
  return HX_ERROR(HX_ERR_INPUT, "%s: reading .msh needs the Gmsh library; this build has none (install libgmsh-dev)", path);
}
#endif
