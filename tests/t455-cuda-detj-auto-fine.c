/* t455: --detj-check auto-fine (hx_tmop_opts.detj_nodes -2, the pebble mesher's default): on the
   cpu backend the line search's rule is fine (Gauss points N + 4; no Bernstein bound pass), the
   same iterates to the bit as detj_nodes 2; on the cuda backend it is the bound up to order 4 (its
   passes counted, the same Newton history as detj_nodes 3 to the bit) and fine above (order 5: no
   bound pass). A perturbed Kershaw box 6 x 4 x 4. The cuda part skips with one line without a
   device; the cpu part always runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hx_config.h"
#include "hx_kernels.h"
#include "hx_test_meshes.h"
#include "hx_test_tmop.h"
#include "hx_tmop.h"

/* the Newton log's lines into buf (at most cap bytes), the result into res */
static int solve(const char *backend, int p, int rule, char *buf, size_t cap, hx_tmop_result *res) {
  hx_mesh *m = test_kershaw(HX_COMM_SELF, 6, 4, 4, p, 0.3);
  if (!m) return 1;
  test_perturb(m, 0.02 / 4 / p);
  hx_tmop_opts o;
  hx_tmop_opts_default(&o);
  o.backend = backend;
  o.detj_nodes = rule;
  o.adapt_quad = 0;
  o.newton_iters = 8;
  FILE *f = tmpfile();
  o.log = f;
  int rc = hx_tmop_optimize(m, &o, res);
  size_t n = 0;
  if (!rc) {
    rewind(f);
    char line[256];
    while (fgets(line, sizeof line, f))
      if (!strncmp(line, "newton", 6) && n + strlen(line) + 1 < cap) {
        memcpy(buf + n, line, strlen(line));
        n += strlen(line);
      }
  }
  buf[n] = 0;
  fclose(f);
  hx_mesh_destroy(&m);
  return rc;
}

static int check(const char *what, int ok) {
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  return !ok;
}

static int body(void) {
  int fail = 0;
  enum { CAP = 1 << 16 };
  char *a = malloc(CAP), *b = malloc(CAP);
  hx_tmop_result ra, rb;
  if (!a || !b) return 1;
  /* cpu: auto-fine is fine */
  if (solve("cpu", 3, -2, a, CAP, &ra) || solve("cpu", 3, 2, b, CAP, &rb)) return 1;
  fail |= check("cpu, order 3: auto-fine takes fine's Newton steps to the bit", strlen(a) > 0 && !strcmp(a, b));
  fail |= check("cpu, order 3: no bound pass under auto-fine", ra.n_bound == 0 && ra.newton_iters >= 1);
  if (!hx_backend_cuda.available || !hx_cuda_device_available()) {
    printf("t455: cuda part skipped: %s\n", hx_backend_cuda.available ? "no CUDA device" : "CUDA backend not in this build");
  } else {
    if (solve("cuda", 3, -2, a, CAP, &ra) || solve("cuda", 3, 3, b, CAP, &rb)) return 1;
    fail |= check("cuda, order 3: auto-fine takes the bound's Newton steps to the bit", strlen(a) > 0 && !strcmp(a, b));
    fail |= check("cuda, order 3: the bound's passes ran under auto-fine", ra.n_bound > 0 && ra.n_bound == rb.n_bound);
    if (solve("cuda", 5, -2, a, CAP, &ra) || solve("cuda", 5, 2, b, CAP, &rb)) return 1;
    fail |= check("cuda, order 5: auto-fine is fine (the same steps, no bound pass)",
                  strlen(a) > 0 && !strcmp(a, b) && ra.n_bound == 0);
  }
  free(a), free(b);
  printf("t455: %s\n", fail ? "FAILED" : "passed");
  return fail;
}

int main(int argc, char **argv) {
  tm_init(&argc, &argv);
  return tm_finalize(body());
}
