/* hexpack pack: a random packing of spheres in a cylinder (tests, demos). */
#include <stdio.h>
#include <string.h>

#include "hx_cli.h"
#include "hx_error.h"
#include "hx_io.h"
#include "hx_pebble.h"

static int container_check(const char *flag, const char *v) {
  double r;
  HX_CHECK(!strncmp(v, "cyl:", 4) || !strncmp(v, "box:", 4), HX_ERR_INPUT, "flag %s: expected cyl:RC or box:A, got '%s'", flag,
           v);
  return hx_cli_double(flag, v + 4, 1e-300, 1e300, &r);
}

static const hx_opt pack_table[] = {
    HX_INT("--n", "N", NULL, 2, 10000000, 0, "number of spheres (required)"),
    {"--output", "-o", HX_OPT_STRING, "FILE", NULL, 0, 0, 1, 1, NULL, 0, "write the 'x y z r' lines to FILE (required)", NULL},
    HX_DBL("--radius", "R", "1", 1e-300, 1e300, 0, "sphere radius"),
    HX_DBL("--poly", "P", "0", 0, 0.49, 0, "radii uniform in R(1 +- P)"),
    HX_STR("--container", "cyl:RC|box:A", "auto", 0,
           "a cylinder of radius RC about z, or the square prism |x|, |y| <= A (auto: cyl:4R)", container_check),
    HX_INT("--seed", "S", "1", 0, 2000000000, 0, "random seed"),
    HX_INT("--trials", "T", "8", 1, 1000, 0, "random positions tried per sphere (the lowest is kept)"),
    {0},
};

void hx_cmd_pack_opts(hx_optset *s) {
  hx_opts_init(s, "pack", "pack --n N [--radius R] [--poly P] [--container cyl:RC|box:A] [options] -o FILE",
               "Drops N spheres one by one into a container about z (each takes the lowest of T random positions,\n"
               "resting on z = 0 or on earlier spheres) and writes 'x y z r' lines.");
  hx_opts_add(s, pack_table);
}

int hx_cmd_pack(hx_comm comm, int argc, char **argv) {
  hx_optset s;
  hx_cmd_pack_opts(&s);
  HX_CALL(hx_opts_parse(&s, argc, argv, 1));
  if (s.stop) return HX_OK;
  HX_CHECK(s.num_args == 0, HX_ERR_INPUT, "pack takes no file argument, got '%s' (output: -o FILE)", s.args[0]);
  int n = 0, trials = 8, seed = 1, square = 0;
  double radius = 1, poly = 0, rc_cyl = 0;
  hx_opts_int(&s, "--n", &n);
  hx_opts_int(&s, "--trials", &trials);
  hx_opts_int(&s, "--seed", &seed);
  hx_opts_double(&s, "--radius", &radius);
  hx_opts_double(&s, "--poly", &poly);
  const char *outp = hx_opts_str(&s, "--output"), *cont = hx_opts_str(&s, "--container");
  if (hx_opts_given(&s, "--container") && strcmp(cont, "auto")) {
    square = !strncmp(cont, "box:", 4);
    HX_CALL(hx_cli_double("--container", cont + 4, 1e-300, 1e300, &rc_cyl));
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
      fprintf(hx_cli_log(), "pack: %d spheres in %s %g, bed height %g; wrote %s\n", n,
              square ? "the square prism of half-width" : "the cylinder of radius", rc_cyl, ztop, outp);
    }
  }
  if (!rc) {
    double ztop = 0;
    for (hx_lid i = 0; i < bed->n; i++)
      if (bed->xyz[3 * i + 2] + bed->r[i] > ztop) ztop = bed->xyz[3 * i + 2] + bed->r[i];
    hx_cli_json_add("\"spheres\": %d, \"container\": \"%s\", \"container_size\": %.17g, \"height\": %.17g", n,
                    square ? "box" : "cyl", rc_cyl, ztop);
    hx_cli_json_string(hx_cli_json_key("output"), outp);
  }
  hx_pebble_bed_destroy(&bed);
  return rc;
}
