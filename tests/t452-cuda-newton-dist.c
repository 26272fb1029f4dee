/* t452: the device-resident Newton solve where the host still takes part: on
   MPI_COMM_WORLD (run with NP 1 2 4: the assembled backend vectors cross to the
   host for the shared-node exchange), and with nodes sliding on cylinders (their
   normals refreshed and their positions projected back through pick/put of the
   curved nodes only). Each case is solved with --backend cpu and cuda on the
   same ranks: the same Newton history (iteration count, linear iterations and
   steps per line; energy, |r| and min det J to 1e-9 relative to the first line),
   the same final nodes (1e-9), and curved nodes on their cylinders (1e-10).
   Skips with one line without a CUDA device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hx_config.h"
#include "hx_kernels.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

typedef struct line {
  int it, lin;
  double e, r, step, md;
} line;

/* quarter annulus r in [1,2], z in [0,1], order p: surfaces 0, 1 cylinders, 3 the plane x = 0 */
static hx_mesh *annulus(hx_comm comm, int p) {
  hx_mesh *m = test_kershaw(comm, 4, 4, 2, p, 1.0);
  if (!m) return NULL;
  int npe = m->nd * m->nd * m->nd;
  for (hx_lid e = 0; e < m->num_elem; e++)
    for (int a = 0; a < npe; a++) {
      double u[3];
      for (int c = 0; c < 3; c++) u[c] = hx_mesh_elem_x(m, e, c)[a];
      u[2] *= 2.0;
      hx_gid id = m->node_id[(size_t)e * npe + a];
      for (int c = 0; c < 3; c++)
        if (u[c] > 1e-12 && u[c] < 1 - 1e-12) u[c] += 0.04 * test_hash(id, c);
      double r = 1.0 + u[0], th = 0.5 * HX_PI * u[1];
      hx_mesh_elem_x(m, e, 0)[a] = r * cos(th);
      hx_mesh_elem_x(m, e, 1)[a] = r * sin(th);
      hx_mesh_elem_x(m, e, 2)[a] = u[2];
    }
  for (int s = 0; s < 2; s++) {
    hx_surface *S = &m->surfaces[s];
    S->type = HX_SURF_CYLINDER;
    S->p[0] = S->p[1] = S->p[2] = 0;
    S->n[0] = S->n[1] = 0;
    S->n[2] = 1;
    S->r = 1.0 + s;
  }
  hx_surface *P = &m->surfaces[3];
  P->p[0] = P->p[1] = P->p[2] = 0;
  P->n[0] = 1;
  P->n[1] = P->n[2] = 0;
  m->surfaces[5].p[2] = 1.0;
  return m;
}

static int solve(hx_comm comm, const char *backend, int kind, line *L, int *nl, double **xout, size_t *nx, hx_tmop_result *res,
                 double *off) {
  hx_mesh *m = kind == 0 ? test_kershaw(comm, 6, 4, 4, 2, 0.3) : annulus(comm, 2);
  if (!m) return 1;
  if (kind == 0) test_perturb(m, 0.02 / 8);
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = backend;
  o.detj_nodes = 3; /* the line search's default rule (auto) up to order 4, on both */
  o.newton_iters = kind == 0 ? 12 : 30;
  FILE *f = hx_comm_rank(comm) == 0 ? tmpfile() : NULL;
  o.log = f;
  int rc = hx_tmop_optimize(m, &o, res);
  *nl = 0;
  *off = 0;
  if (!rc) {
    if (f) {
      rewind(f);
      char buf[256];
      while (fgets(buf, sizeof buf, f) && *nl < 64) {
        line *l = &L[*nl];
        if (sscanf(buf, "newton %d energy %le |r| %le lin %d step %lf min detJ %le", &l->it, &l->e, &l->r, &l->lin, &l->step,
                   &l->md) == 6)
          (*nl)++;
      }
    }
    *nx = (size_t)m->num_elem * 3 * m->nd * m->nd * m->nd;
    *xout = malloc(*nx * sizeof(double) + 1);
    memcpy(*xout, m->x, *nx * sizeof(double));
    for (hx_lid fc = 0; kind == 1 && fc < m->num_faces; fc++) {
      const hx_bface *bf = &m->faces[fc];
      if (bf->surf > 1) continue;
      int nd = m->nd;
      for (int k = 0; k < nd; k++)
        for (int j = 0; j < nd; j++)
          for (int i = 0; i < nd; i++) {
            if (!hx_node_on_face(nd, bf->face, i, j, k)) continue;
            int a = hx_lex(nd, i, j, k);
            double x = hx_mesh_elem_x(m, bf->elem, 0)[a], y = hx_mesh_elem_x(m, bf->elem, 1)[a];
            *off = fmax(*off, fabs(sqrt(x * x + y * y) - (1.0 + bf->surf)));
          }
    }
    hx_comm_max_double(comm, off, 1);
  }
  if (f) fclose(f);
  hx_mesh_destroy(&m);
  return rc;
}

static int body(hx_comm comm);
int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
  hx_comm comm = MPI_COMM_WORLD;
#else
  (void)argc;
  (void)argv;
  hx_comm comm = HX_COMM_SELF;
#endif
  int rc = body(comm);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return rc;
}

static int body(hx_comm comm) {
  int rank = hx_comm_rank(comm), size = hx_comm_size(comm);
  if (!hx_backend_cuda.available || !hx_cuda_device_available()) {
    if (rank == 0) printf("t452: skipped: %s\n", hx_backend_cuda.available ? "no CUDA device" : "CUDA backend not in this build");
    return 0;
  }
  int fail = 0;
  for (int kind = 0; kind < 2; kind++) {
    line a[64], b[64];
    int na = 0, nb = 0;
    double *xa = NULL, *xb = NULL, offa, offb;
    size_t n = 0;
    hx_tmop_result ra, rb;
    if (solve(comm, "cpu", kind, a, &na, &xa, &n, &ra, &offa) || solve(comm, "cuda", kind, b, &nb, &xb, &n, &rb, &offb)) {
      printf("error: %s\n", hx_error_message());
      return 1;
    }
    double worst = 0;
    int same = 1;
    if (rank == 0) {
      same = na == nb && na > 1;
      for (int i = 0; same && i < na; i++) {
        same = a[i].it == b[i].it && a[i].lin == b[i].lin && a[i].step == b[i].step;
        double w =
            fmax(fabs(b[i].e - a[i].e) / a[0].e, fmax(fabs(b[i].r - a[i].r) / a[0].r, fabs(b[i].md - a[i].md) / fabs(a[i].md)));
        if (w > 1e-9 || !same)
          fprintf(stderr, "  line %d: lin %d/%d step %g/%g E %.12e/%.12e |r| %.6e/%.6e detJ %.10e/%.10e\n", i, a[i].lin, b[i].lin,
                  a[i].step, b[i].step, a[i].e, b[i].e, a[i].r, b[i].r, a[i].md, b[i].md);
        worst = fmax(worst, w);
      }
    }
    double dx = 0, sx = 0;
    for (size_t i = 0; i < n; i++) {
      dx += (xa[i] - xb[i]) * (xa[i] - xb[i]);
      sx += xa[i] * xa[i];
    }
    hx_comm_sum_double(comm, &dx, 1);
    hx_comm_sum_double(comm, &sx, 1);
    dx = sqrt(dx / sx);
    int ok = same && worst < 1e-9 && dx < 1e-9 && ra.newton_iters == rb.newton_iters && ra.linear_iters == rb.linear_iters &&
             ra.newton_iters > 1 && (kind == 0 || (offa < 1e-10 && offb < 1e-10));
    double okd = ok;
    hx_comm_min_double(comm, &okd, 1);
    ok = okd > 0.5;
    if (rank == 0) {
      fprintf(stderr, "%s np %d: newton %d/%d linear %d/%d worst %.2e dx %.2e off %.1e/%.1e E %.10e\n",
              kind ? "annulus" : "kershaw", size, ra.newton_iters, rb.newton_iters, ra.linear_iters, rb.linear_iters, worst, dx,
              offa, offb, rb.energy);
      printf("newton %s: history cpu-vs-cuda %s\n", kind ? "annulus sliding on cylinders" : "kershaw p 2 sliding planes",
             ok ? "ok" : "BAD");
    }
    if (!ok) fail = 1;
    free(xa);
    free(xb);
  }
  return fail;
}
