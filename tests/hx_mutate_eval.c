/* hx_mutate_eval [--no-check] ORIG FILE...: what `hexpack quality` makes of each file, one process per file
   (fork, so a crash or a hang is seen, not suffered), for the mutation test t153.

   Per file one line:  FILE STATUS VERDICT CONN GEOM CONFORMING
     STATUS      ok | refused | crash:<signal> | hang (no answer in 10 s)
     VERDICT     valid | inverted | broken | -  (quality's first word; refused: -)
     CONN, GEOM  1 where the element-node lists (node ids by element) / the coordinates differ
                 from ORIG's, else 0
     CONFORMING  the independent oracle: 1 when the mesh is a valid conforming mesh of ORIG's box:
                 det J > 0 at every GLL node; each element face either matched by exactly one
                 other element face with the same corner ids and the same node coordinates
                 (pairwise comparison, no hashing), or with all its nodes on one side of ORIG's
                 bounding box; the volume (GLL quadrature of det J) equal to the box's to 1e-9
   ORIG must be read as ok and valid (its line comes first). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hx_basis.h"
#include "hx_config.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_memory.h"
#include "hx_quality.h"

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ull;
  return h;
}

/* node ids of element e's face f in the face's own lexicographic order, and their coordinates */
static int face_nodes(const hx_mesh *m, hx_lid e, int f, hx_gid *ids, double (*xyz)[3]) {
  int nd = m->nd, n = 0, npe = nd * nd * nd;
  for (int k = 0; k < nd; k++)
    for (int j = 0; j < nd; j++)
      for (int i = 0; i < nd; i++)
        if (hx_node_on_face(nd, f, i, j, k)) {
          int p = hx_lex(nd, i, j, k);
          ids[n] = m->node_id[(size_t)e * npe + p];
          for (int c = 0; c < 3; c++) xyz[n][c] = hx_mesh_elem_x(m, e, c)[p];
          n++;
        }
  return n;
}

static int conforming(const hx_mesh *m, const double lo[3], const double hi[3]) {
  int nd = m->nd, nq = nd * nd;
  double D[HX_MAX_ND * HX_MAX_ND], xg[HX_MAX_ND], wg[HX_MAX_ND], vol = 0;
  if (hx_mesh_gll_derivative(nd, D) || hx_gll(nd, xg, wg)) return 0;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int k = 0; k < nd; k++)
      for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
          double J[3][3], d = hx_mesh_jacobian_at_node(m, D, e, i, j, k, J);
          if (!(d > 0)) return 0;
          vol += d * wg[i] * wg[j] * wg[k];
        }
  double box = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  if (!(fabs(vol - box) <= 1e-9 * box)) return 0;
  hx_gid a[HX_MAX_ND * HX_MAX_ND], b[HX_MAX_ND * HX_MAX_ND];
  double xa[HX_MAX_ND * HX_MAX_ND][3], xb[HX_MAX_ND * HX_MAX_ND][3];
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int f = 0; f < 6; f++) {
      face_nodes(m, e, f, a, xa);
      int matches = 0;
      for (hx_lid e2 = 0; e2 < m->num_elem; e2++)
        for (int f2 = 0; f2 < 6; f2++) {
          if (e2 == e && f2 == f) continue;
          face_nodes(m, e2, f2, b, xb);
          /* the same node set with the same coordinates, in any order */
          int same = 1;
          for (int p = 0; p < nq && same; p++) {
            int hit = 0;
            for (int q = 0; q < nq && !hit; q++) hit = a[p] == b[q] && !memcmp(xa[p], xb[q], sizeof xa[p]);
            same = hit;
          }
          matches += same;
        }
      if (matches == 1) continue;
      if (matches > 1) return 0;
      int side = 0; /* all nodes on one side of the box */
      for (int c = 0; c < 3 && !side; c++)
        for (int s = 0; s < 2 && !side; s++) {
          double v = s ? hi[c] : lo[c];
          int all = 1;
          for (int p = 0; p < nq && all; p++) all = fabs(xa[p][c] - v) <= 1e-12 * (hi[c] - lo[c]);
          side = all;
        }
      if (!side) return 0;
    }
  return 1;
}

typedef struct {
  int ok, verdict; /* verdict 0 valid, 1 inverted, 2 broken */
  uint64_t conn, geom;
  int conforming;
} result;

static hx_import_opts import_opts; /* --no-check: the readers alone, without the read checks */

static void evaluate(const char *path, const double *lo, const double *hi, result *r) {
  memset(r, 0, sizeof *r);
  hx_mesh *m = NULL;
  hx_read_check chk;
  if (hx_import_ex(HX_COMM_SELF, path, &import_opts, &m, &chk)) return;
  hx_quality_opts o;
  hx_quality_opts_default(&o);
  o.validity = m->order <= 4;
  o.num_worst = 0;
  hx_quality_report q;
  if (hx_quality_mesh(m, &o, NULL, &q)) {
    hx_mesh_destroy(&m);
    return;
  }
  r->ok = 1;
  r->verdict = chk.broken ? 2 : (chk.inverted || q.num_inverted || (q.validity_checked && q.bound.verdict == HX_INVALID)) ? 1 : 0;
  size_t npe = (size_t)hx_mesh_nodes_per_elem(m);
  r->conn = hash_bytes(1469598103934665603ull, &m->num_elem, sizeof m->num_elem);
  r->conn = hash_bytes(r->conn, &m->order, sizeof m->order);
  r->conn = hash_bytes(r->conn, m->node_id, (size_t)m->num_elem * npe * sizeof(hx_gid));
  r->geom = hash_bytes(1469598103934665603ull, m->x, (size_t)m->num_elem * npe * 3 * sizeof(double));
  r->conforming = lo ? conforming(m, lo, hi) : 1;
  hx_quality_report_free(&q);
  hx_mesh_destroy(&m);
}

/* evaluate in a forked child (no thread pool of the parent's survives a fork: the parent runs
   nothing multithreaded); 0 = answered, else the signal (SIGALRM: a hang), or -1 */
static int in_child(const char *path, const double *lo, const double *hi, result *r, double box[6]) {
  int fd[2];
  if (pipe(fd)) return -1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    alarm(10);
    struct {
      result r;
      double box[6];
    } out;
    memset(&out, 0, sizeof out);
    if (!lo) { /* the original: its bounding box first */
      hx_mesh *m = NULL;
      if (hx_import(HX_COMM_SELF, path, &m)) _exit(4);
      hx_mesh_bbox(m, out.box, out.box + 3);
      hx_mesh_destroy(&m);
      lo = out.box, hi = out.box + 3;
    }
    evaluate(path, lo, hi, &out.r);
    if (write(fd[1], &out, sizeof out) != (ssize_t)sizeof out) _exit(3);
    _exit(0);
  }
  close(fd[1]);
  struct {
    result r;
    double box[6];
  } in;
  ssize_t got = read(fd[0], &in, sizeof in);
  close(fd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  if (WIFSIGNALED(st)) return WTERMSIG(st);
  if (got != (ssize_t)sizeof in || WEXITSTATUS(st)) return -1;
  *r = in.r;
  if (box) memcpy(box, in.box, sizeof in.box);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--no-check")) {
    import_opts.no_check = 1;
    argv++, argc--;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: %s ORIG FILE...\n", argv[0]);
    return 2;
  }
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#endif
  static const char *vname[3] = {"valid", "inverted", "broken"};
  result ref, r;
  double box[6];
  if (in_child(argv[1], NULL, NULL, &ref, box) || !ref.ok || ref.verdict || !ref.conforming) {
    fprintf(stderr, "%s: the original is not read as a valid conforming mesh\n", argv[1]);
    return 1;
  }
  for (int a = 1; a < argc; a++) {
    int sig = in_child(argv[a], box, box + 3, &r, NULL);
    if (sig == SIGALRM) printf("%s hang - 0 0 0\n", argv[a]);
    else if (sig) printf("%s crash:%d - 0 0 0\n", argv[a], sig);
    else if (!r.ok) printf("%s refused - 0 0 0\n", argv[a]);
    else printf("%s ok %s %d %d %d\n", argv[a], vname[r.verdict], r.conn != ref.conn, r.geom != ref.geom, r.conforming);
  }
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return 0;
}
