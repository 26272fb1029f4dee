/* hexpack pack: a random packing of spheres in a cylinder (tests, demos). */
#include <stdio.h>
#include <string.h>

#include "hx_cli.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_pebble.h"

static void pack_help(void) {
  printf("usage: hexpack pack --n N [--radius R] [--poly P] [--container cyl:RC|box:A] [--seed S] [--trials T] -o FILE\n\n"
         "  Drops N spheres one by one into a cylinder about z (each takes the lowest of T random\n"
         "  positions, resting on z = 0 or on earlier spheres) and writes 'x y z r' lines.\n"
         "  --radius R (1), --poly P: radii uniform in R(1 +- P) (0), --container cyl:RC (4 R)\n"
         "  or box:A (the square prism |x|, |y| <= A),\n"
         "  --seed S (1), --trials T (8).\n");
}

int hx_cmd_pack(hx_comm comm, int argc, char **argv) {
  int n = 0, trials = 8, seed = 1, square = 0;
  double radius = 1, poly = 0, rc_cyl = 0;
  const char *outp = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      pack_help();
      return HX_OK;
    }
    HX_CALL(hx_cli_value(argc, argv, &i, &v));
    if (!strcmp(a, "--n")) HX_CALL(hx_cli_int(a, v, 2, 10000000, &n));
    else if (!strcmp(a, "--radius")) HX_CALL(hx_cli_double(a, v, 1e-300, 1e300, &radius));
    else if (!strcmp(a, "--poly")) HX_CALL(hx_cli_double(a, v, 0, 0.49, &poly));
    else if (!strcmp(a, "--seed")) HX_CALL(hx_cli_int(a, v, 0, 2000000000, &seed));
    else if (!strcmp(a, "--trials")) HX_CALL(hx_cli_int(a, v, 1, 1000, &trials));
    else if (!strcmp(a, "-o")) outp = v;
    else if (!strcmp(a, "--container")) {
      HX_CHECK(!strncmp(v, "cyl:", 4) || !strncmp(v, "box:", 4), HX_ERR_INPUT,
               "flag --container: expected cyl:RC or box:A, got '%s'", v);
      square = !strncmp(v, "box:", 4);
      HX_CALL(hx_cli_double(a, v + 4, 1e-300, 1e300, &rc_cyl));
    } else return hx_cli_unknown_flag("pack", a);
  }
  HX_CHECK(n >= 2, HX_ERR_INPUT, "pack: flag --n N (>= 2) is required");
  HX_CHECK(outp, HX_ERR_INPUT, "pack: flag -o FILE is required");
  if (rc_cyl <= 0) rc_cyl = 4 * radius;
  hx_pebble_bed *bed = NULL;
  HX_CALL(hx_pebble_pack2(n, radius, poly, rc_cyl, square, (uint64_t)seed, trials, &bed));
  int rc = HX_OK;
  if (hx_comm_rank(comm) == 0) {
    hx_outfile f;
    rc = hx_outfile_open(&f, outp);
    if (!rc) {
      fprintf(f.fp, "# hexpack pack --n %d --radius %.17g --poly %.17g --container %s:%.17g --seed %d --trials %d\n", n, radius,
              poly, square ? "box" : "cyl", rc_cyl, seed, trials);
      fprintf(f.fp, "# x y z r (container: %s %.17g about z, bottom z = 0)\n",
              square ? "square prism of half-width" : "cylinder of radius", rc_cyl);
      for (hx_lid i = 0; i < bed->n; i++)
        fprintf(f.fp, "%.17g %.17g %.17g %.17g\n", bed->xyz[3 * i], bed->xyz[3 * i + 1], bed->xyz[3 * i + 2], bed->r[i]);
      if (ferror(f.fp)) {
        hx_outfile_abort(&f);
        rc = HX_ERROR(HX_ERR_IO, "error writing '%s'", outp);
      } else {
        rc = hx_outfile_commit(&f);
      }
    }
    if (!rc) {
      double ztop = 0;
      for (hx_lid i = 0; i < bed->n; i++)
        if (bed->xyz[3 * i + 2] + bed->r[i] > ztop) ztop = bed->xyz[3 * i + 2] + bed->r[i];
      printf("pack: %d spheres in %s %g, bed height %g; wrote %s\n", n,
             square ? "the square prism of half-width" : "the cylinder of radius", rc_cyl, ztop, outp);
    }
  }
  hx_pebble_bed_destroy(&bed);
  return rc;
}
