/* The build's identity for hexpack --version: the version and features from hx_config.h, the
   commit and settings from the source that cmake/hx_buildinfo.cmake generates at every build. */
#include "hx_build.h"

#include "hx_config.h"

#include <string.h>

extern const char hx_build_commit_text[], hx_build_type_text[], hx_build_compiler_text[], hx_build_cuda_arch_text[];
extern const int hx_build_dirty_flag;

static const hx_build_feature features[] = {
    /* name     compiled in       what it gives */
    {"cuda", HX_HAVE_CUDA, "GPU backend of the optimizer and the det J bound"},
    {"mpi", HX_HAVE_MPI, "distributed meshing, optimization and parallel writers"},
    {"openmp", HX_HAVE_OPENMP, "threads in the kernels, the quality report and the mesher"},
    {"qhull", HX_HAVE_QHULL, "power diagrams of the pebble-bed mesher"},
    {"gmsh", HX_HAVE_GMSH, "the Gmsh library linked; .msh is read and written without it"},
    {"exodus", HX_HAVE_EXODUS, "Exodus II .exo reader and writer"},
    {"zlib", HX_HAVE_ZLIB, "compressed .vtu data, written with --compress and read"},
    {"cairo", HX_HAVE_CAIRO, "PNG and SVG plots of --plot"},
    {"vtk", 1, "own .vtu/.pvtu/.vtk reader and writer, no VTK library needed"},
};

const char *hx_build_version(void) { return HX_VERSION; }
const char *hx_build_commit(void) { return hx_build_commit_text; }
int hx_build_dirty(void) { return hx_build_dirty_flag; }
const char *hx_build_type(void) { return hx_build_type_text[0] ? hx_build_type_text : "unknown"; }
const char *hx_build_compiler(void) { return hx_build_compiler_text; }

int hx_build_features(const hx_build_feature **out) {
  *out = features;
  return (int)(sizeof features / sizeof features[0]);
}

void hx_build_print(FILE *out, int json_schema) {
  const hx_build_feature *f;
  int n = hx_build_features(&f);
  if (json_schema) {
    fprintf(out,
            "{\"schema_version\": %d, \"name\": \"hexpack\", \"version\": \"%s\", \"commit\": \"%s\", \"dirty\": %s, "
            "\"build_type\": \"%s\", \"compiler\": \"%s\", \"cuda_architectures\": \"%s\", \"features\": {",
            json_schema, hx_build_version(), hx_build_commit(), hx_build_dirty() ? "true" : "false", hx_build_type(),
            hx_build_compiler(), hx_build_cuda_arch_text);
    for (int k = 0; k < n; k++) fprintf(out, "%s\"%s\": %s", k ? ", " : "", f[k].name, f[k].on ? "true" : "false");
    fprintf(out, "}}\n");
    return;
  }
  fprintf(out, "hexpack %s\n", hx_build_version());
  fprintf(out, "commit: %s%s\n", hx_build_commit(), hx_build_dirty() ? " (with local changes)" : "");
  fprintf(out, "build: %s, %s\n", hx_build_type(), hx_build_compiler());
  for (int k = 0; k < n; k++) {
    fprintf(out, "%s: %s, %s", f[k].name, f[k].on ? "yes" : "no", f[k].what);
    if (f[k].on && !strcmp(f[k].name, "cuda") && hx_build_cuda_arch_text[0])
      fprintf(out, " (architectures %s)", hx_build_cuda_arch_text);
    fprintf(out, "\n");
  }
}
