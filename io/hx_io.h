/* Export and import: one file per format, registered in io/formats.c.

   Usage:
     hx_export_opts eo; hx_export_opts_default(&eo); eo.order = 7;
     HX_CALL(hx_export(mesh, "bed.vtu", &eo));      format chosen by extension
     HX_CALL(hx_import(comm, "in.msh", &mesh));

   Every writer streams, writes to a temporary name beside the target and renames
   it on success (hx_outfile_*), and refuses a mesh with det J <= 0 unless
   opts->force. */
#pragma once
#include <stdio.h>

#include "hx_mesh.h"

typedef struct hx_export_opts {
  int order;    /* order of the written geometry; 0 = the mesh's own order */
  int force;    /* write even if det J <= 0 somewhere */
  int checked;  /* the caller has checked det J > 0 at every GLL node at the written order: the
                   writers skip their own pass over the nodes, but still refuse what no such
                   check covers (the .re2 writer: Nek5000's rule from corners and curves) */
  int binary;   /* formats with an ASCII and a binary form: 1 = binary (default) */
  int compress; /* .vtu: zlib-compress appended data (0 off, 1 on = level 1, 2..9 = zlib level) */
  int co2;      /* .re2: also write the .co2 connectivity */
  int mfem_h1;  /* .mesh: nodes in H1_3D_P<N> (MFEM's continuous space, global numbering) instead of
                   L2_T1_3D_P<N> (element by element) */
  int verbose;
  int64_t point_window; /* points gathered per pass by the writers that put points in order (text
                           .msh and .vtu, zlib .vtu); 0: 2^24 (384 MB); small values test the passes */
  double free_bytes;    /* > 0: taken as the free space of every output's filesystem instead of what
                           the filesystem says (tests of the space check); 0: ask the filesystem */
} hx_export_opts;

void hx_export_opts_default(hx_export_opts *o);

/** A registered format. write/read may be NULL when the format has no writer/reader. */
/** hx_io_read_check's checks that hold only for some formats: HX_READ_HOLES, the reader gives every
    boundary face a record (a face of one element without one is a hole); HX_READ_FACE_NODES, node
    ids come from the file's connectivity (two elements sharing a face's corners must share all its
    nodes; where ids come from merging coordinates, as for .re2 by Nek's rule or MFEM's L2 nodes,
    neighbours may legitimately differ between the corners). */
enum { HX_READ_HOLES = 1, HX_READ_FACE_NODES = 2 };
typedef struct hx_format {
  const char *name; /* "vtu", "msh", ... */
  const char *ext;  /* ".vtu" */
  int (*write)(const hx_mesh *m, const char *path, const hx_export_opts *o);
  int (*read)(hx_comm comm, const char *path, hx_mesh **out);
  const char *what; /* one line for --help */
  /* the writer's own limits that need no mesh (orders, availability in this build); NULL: none */
  int (*check)(const char *path, int order);
  int read_checks; /* the format's own checks of hx_io_read_check (HX_READ_*) */
} hx_format;

/** The table of formats (NULL-terminated by name == NULL). */
const hx_format *hx_formats(void);
/** Find the format of a path by its extension; HX_ERR_INPUT lists the known ones. */
int hx_format_for_path(const char *path, const hx_format **out);
/** Everything about an output that can be checked before a mesh exists, as one line naming
    the path: a known format with a writer, the writer's limits at this order (order <= 0: not
    known yet, not checked), the directory exists and a file can be created in it (a probe
    temporary is created and removed), the path is not a directory. Local (no communication). */
int hx_export_check_path(const char *path, int order);
/** hx_export_check_path for each of n paths, and no path given twice (nor two outputs that
    would write the same file, a .re2's field file say). */
int hx_export_check_paths(const char *const *paths, int n, int order);
/** Gmsh's and Exodus II's limits (hx_format.check), also applied by their writers. */
int hx_msh_check(const char *path, int order);
int hx_exodus_check(const char *path, int order);
/** Write m to path in the format of its extension. Checks det J > 0 first unless
    o->force. Collective on m->comm. */
int hx_export(const hx_mesh *m, const char *path, const hx_export_opts *o);
/** What the checks of a read mesh found (hx_io_read_check). Broken: non-finite coordinates, an
    element using a node at two corners, a face of three or more elements, two elements with the
    same corners, two elements sharing a face's corners but not its other nodes (HX_READ_FACE_NODES), a boundary record
    on an interior face or twice on one face, or (HX_READ_HOLES) a face
    of one element without a record. Inverted: det J <= 0 at a corner (not a refusal: the
    optimizer untangles such meshes). */
typedef struct hx_read_check {
  int broken;
  char what[240]; /* the first problem found, naming the element (numbered from 0) */
  int64_t nonfinite, repeated, multi_faces, dup_elems, mismatched, bad_records, open_faces;
  int64_t inverted;      /* elements with det J <= 0 at a corner */
  hx_lid first_inverted; /* the first of them (from 0), or -1 */
  int64_t exterior;      /* faces of one element */
  double seconds;        /* time the checks took */
} hx_read_check;
/** The checks (linear time: faces hashed by their sorted corner ids). The mesh must be whole on
    this rank (as the readers give it). */
int hx_io_read_check(const hx_mesh *m, int checks, hx_read_check *r);

typedef struct hx_import_opts {
  int force;    /* keep a mesh the checks find broken (chk->broken tells) */
  int no_check; /* skip the checks (chk is zeroed) */
} hx_import_opts;
/** Read a mesh of any registered format with a reader, then check it (hx_io_read_check): a broken
    mesh is refused (HX_ERR_INVALID_MESH, one line naming the file and the element) unless o->force.
    o and chk may be NULL (checks on, not forced). The readers are serial: on several ranks every
    rank reads the whole file (see hx_mesh_split_replicated) and reaches the same verdict. */
int hx_import_ex(hx_comm comm, const char *path, const hx_import_opts *o, hx_mesh **out, hx_read_check *chk);
/** hx_import_ex with the checks on and no --force. */
int hx_import(hx_comm comm, const char *path, hx_mesh **out);
/** A mesh every rank holds whole (as hx_import gives under mpirun): keep a
    contiguous range of elements per rank (node ids stay global, faces follow
    their elements), so that each element is counted and written once. A mesh
    already distributed is left as it is. Collective on (*m)->comm. */
int hx_mesh_split_replicated(hx_mesh **m);

/* The formats (one file each in io/; also reachable through hx_export/hx_import). */
int hx_export_vtu(const hx_mesh *m, const char *path, const hx_export_opts *o);
int hx_import_vtu(hx_comm comm, const char *path, hx_mesh **out);
/** VTK parallel unstructured grid: every rank writes its elements as the .vtu piece
    "<base>_<rank>.vtu" beside path (<base>.pvtu), rank 0 the index. Collective. */
int hx_export_pvtu(const hx_mesh *m, const char *path, const hx_export_opts *o);
/** Read a .pvtu: its pieces (any .vtu our reader reads) joined in order, the nodes repeated
    on partition boundaries merged by coordinates. Serial (see hx_import). */
int hx_import_pvtu(hx_comm comm, const char *path, hx_mesh **out);
/** Legacy VTK .vtk unstructured grid reader (ASCII and BINARY, versions 2.0..5.1): hexahedra
    of one order, cell types 12, 25 (serendipity, raised exactly to order 2), 29 and 72. */
int hx_import_vtk(hx_comm comm, const char *path, hx_mesh **out);
/** MFEM mesh: writer v1.0 with L2_T1_3D_P<N> or H1_3D_P<N> nodes (o->mfem_h1); reader v1.0,
    v1.2, v1.3 (boundary attribute set names), order-1 vertices or nodes in H1 (GLL, closed
    uniform, Bernstein) and L2 (basis types 0..5) collections, converted to GLL nodes. */
int hx_export_mfem(const hx_mesh *m, const char *path, const hx_export_opts *o);
int hx_import_mfem(hx_comm comm, const char *path, hx_mesh **out);
/** Gmsh MSH 4.1, ASCII (o->binary = 0) or binary, orders 1..9; the reader is our own (MSH 4.1 only). */
int hx_export_msh(const hx_mesh *m, const char *path, const hx_export_opts *o);
int hx_import_msh(hx_comm comm, const char *path, hx_mesh **out);
/** Nek5000 .re2 (+ .co2 with o->co2, + <base>0.f00000 with the GLL geometry at order >= 2). */
int hx_export_re2(const hx_mesh *m, const char *path, const hx_export_opts *o);
/** Read a .re2: with <base>0.f00000 beside it its geometry is used, else Nek's rule
    regenerates the GLL nodes at order 1 (no curves) or 2. */
int hx_import_re2(hx_comm comm, const char *path, hx_mesh **out);
/** Read a .re2 at order N by Nek's geometry rule (order <= 0: as hx_import_re2). */
int hx_import_re2_at(hx_comm comm, const char *path, int order, hx_mesh **out);
/** Nek5000's geometry rule as the .re2 writer applies it, for callers that must keep a mesh
    writable (the optimizer's hold-backs): hx_re2_rule_ok is 1 where the writer would find a
    curve set for the element with nodes xe [3][nd^3] (m's order, or a lazy m's geometry's) and boundary faces' surface
    indices bsurf[6] (-1: none) whose Nek geometry has det J > 0 at the check's GLL points; 0
    where it would refuse the element. m (borrowed) gives the order and the surfaces. Thread-safe. */
typedef struct hx_re2_rule hx_re2_rule;
int hx_re2_rule_create(const hx_mesh *m, hx_re2_rule **out);
int hx_re2_rule_ok(const hx_re2_rule *r, const double *xe, const int32_t bsurf[6]);
void hx_re2_rule_destroy(hx_re2_rule **r);
/** The rule for the elements of mesh m by index, as the optimizer's hold-back: open builds each
    element's boundary surfaces from m's faces and the rule at m's order (m borrowed, unchanged
    until close) and points *ok and *ok_ctx (hx_tmop_opts' elem_ok and elem_ok_ctx) at
    hx_re2_guard_ok and g; close frees g and sets them to NULL. */
typedef struct hx_re2_guard {
  hx_re2_rule *rule;
  int32_t *bsurf; /* [num_elem][6] surface index of each face, -1 */
} hx_re2_guard;
typedef int (*hx_re2_guard_fn)(void *ctx, hx_lid e, const double *xe);
int hx_re2_guard_open(const hx_mesh *m, hx_re2_guard *g, hx_re2_guard_fn *ok, void **ok_ctx);
int hx_re2_guard_ok(void *ctx, hx_lid e, const double *xe);
void hx_re2_guard_close(hx_re2_guard *g, hx_re2_guard_fn *ok, void **ok_ctx);
/** The field-file name our .re2 writer uses: "a/b.re2" -> "a/b0.f00000". */
int hx_re2_field_path(const char *re2_path, char *out, size_t cap);
/** Read the coordinates of a Nek field file ('X', nelt elements) as an E-vector. */
int hx_nek_field_read(const char *path, int64_t nelt, int *order, double **x);

/** Estimated size of what hx_export(m, path, o) writes (from element, face and order
    counts only; rather low than high). extra_* is a second file (.re2's field file). */
typedef struct hx_export_estimate_t {
  double bytes, extra_bytes;
  char extra_path[4200];
} hx_export_estimate_t;
int hx_export_estimate(const hx_mesh *m, const char *path, const hx_export_opts *o, hx_export_estimate_t *out);
/** Refuse (HX_ERR_IO, one line: files, estimate, free space) when the estimated bytes of
    the n outputs exceed the free space of their filesystem (statvfs; the environment
    hx_export_opts.free_bytes replaces it, for tests). Collective on m->comm. */
int hx_export_check_space(const hx_mesh *m, const char *const *paths, int n, const hx_export_opts *o);
/** Free bytes for an unprivileged writer in path's directory and the filesystem id. */
int hx_free_bytes(const char *path, double *free_bytes, unsigned long *fsid);

/** Exodus II HEX8 (order 1) / HEX27 (order 2), one block, named sidesets (needs libexodusii). */
int hx_export_exodus(const hx_mesh *m, const char *path, const hx_export_opts *o);
/** Exodus II reader (needs libexodusii): element blocks of HEX8, HEX20 (raised exactly to order
    2) and HEX27; side sets as boundary ids with their names; block ids as element attributes. */
int hx_import_exodus(hx_comm comm, const char *path, hx_mesh **out);

/* ---- output sets: all outputs of a run or none ------------------------------------------------

   Every output file is written under "<path>.tmp.<pid>" beside its final name. Between
   hx_outset_begin and hx_outset_end the finished files keep their temporary names; hx_outset_end
   with HX_OK renames them all in three rounds with a barrier between (files that stand alone;
   companions: a .re2's field file and .co2, the .pvtu pieces; then the files that name them: the
   .re2 and the .pvtu index), with any other status it removes them all, so a failed run creates
   or replaces no final name. Sets nest (the outermost end renames). Outside a set a finished file
   is renamed at once. */
enum { HX_OUT_ALONE, HX_OUT_COMPANION, HX_OUT_PRIMARY };

/** Open an output set (nests). */
void hx_outset_begin(void);
/** Close the set: agree on rc over comm; HX_OK: rename every finished file of this rank (each
    rank renames the files it created), else remove every temporary. Returns the agreed status.
    Collective on comm (at the outermost level). */
int hx_outset_end(hx_comm comm, int rc);
/** Remove every temporary file still registered (error paths, before exit). */
void hx_outset_cleanup(void);
/** Install the handler of SIGINT, SIGTERM and SIGHUP: it removes every registered temporary
    (unlink only: async-signal-safe) and re-raises the signal with its default action. A signal
    the program was started with ignored stays ignored. */
int hx_outset_signals(void);
/** The rename round of the files opened from now on (HX_OUT_ALONE at the start); returns the
    previous one, for the caller to restore. */
int hx_outset_round(int round);
/** Register the temporary name "<path>.tmp.<pid>" of an output (for writers that open files
    themselves: the Exodus library); *slot identifies it. */
int hx_outtmp_open(const char *path, int *slot);
/** The temporary name of a registered output. */
const char *hx_outtmp_name(int slot);
/** The temporary file is complete: renamed now outside a set, at hx_outset_end inside one, in
    the given round. */
int hx_outtmp_done(int slot, int round);
/** Remove the temporary file and forget it (slot < 0: nothing). */
void hx_outtmp_drop(int slot);

/** An output file written under a temporary name and renamed on commit (or at the end of the
    output set it belongs to). */
typedef struct hx_outfile {
  FILE *fp;
  char path[4096];
  char tmp[4200];
  int slot;  /* its registration (hx_outtmp_open) */
  int round; /* its rename round (hx_outset_round when opened; a writer may change it before commit) */
} hx_outfile;
/** Open "<path>.tmp.<pid>" for writing; HX_ERR_IO names path if it cannot. */
int hx_outfile_open(hx_outfile *f, const char *path);
/** Flush and close; rename to the final path now, or at the end of the enclosing output set. */
int hx_outfile_commit(hx_outfile *f);
/** Close and remove the temporary file (safe to call after a failed open). */
void hx_outfile_abort(hx_outfile *f);
/** fwrite that records HX_ERR_IO (disk full, ...) naming the file. */
int hx_outfile_write(hx_outfile *f, const void *data, size_t bytes);
