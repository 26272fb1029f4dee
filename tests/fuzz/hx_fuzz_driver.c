/* Corpus driver (no libFuzzer needed): feeds every file named on the command line,
   or every file of the directories named, to the same entry point the fuzz
   harnesses call, and fails when a reader fails without a clean one-line error.
   A crash, an ASan report or a hang fails the test by itself.

   Usage: hx_fuzz_driver <reader> <file-or-dir>...   (reader: re2 vtu mfem pebble nekfld vtk msh dem) */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hx_config.h"
#include "hx_error.h"
#include "hx_fuzz.h"
#if HX_HAVE_MPI
#include <mpi.h>
#endif

static int nfiles, nok, nerr, nbad;

static int run_file(int reader, const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  fseek(fp, 0, SEEK_END);
  long n = ftell(fp);
  rewind(fp);
  unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
  if (!buf || fread(buf, 1, (size_t)n, fp) != (size_t)n) {
    fprintf(stderr, "cannot read %s\n", path);
    fclose(fp);
    free(buf);
    return 1;
  }
  fclose(fp);
  int status = 0;
  int bad = hx_fuzz_one(reader, buf, (size_t)n, &status);
  free(buf);
  nfiles++;
  if (bad) {
    nbad++;
    printf("BAD  %s\n", path);
  } else if (status) {
    nerr++;
    if (getenv("HX_FUZZ_VERBOSE")) printf("err  %s: %s\n", path, hx_error_message());
  } else {
    nok++;
    if (getenv("HX_FUZZ_VERBOSE")) printf("ok   %s\n", path);
  }
  return bad;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run(int argc, char **argv) {
  if (argc < 3 || hx_fuzz_reader_of(argv[1]) < 0) {
    fprintf(stderr, "usage: %s re2|vtu|mfem|pebble|nekfld|vtk|msh|dem <file-or-dir>...\n", argv[0]);
    return 2;
  }
  int reader = hx_fuzz_reader_of(argv[1]), fails = 0;
  for (int a = 2; a < argc; a++) {
    struct stat st;
    if (stat(argv[a], &st)) {
      fprintf(stderr, "cannot stat %s\n", argv[a]);
      return 2;
    }
    if (!S_ISDIR(st.st_mode)) {
      fails += run_file(reader, argv[a]);
      continue;
    }
    DIR *d = opendir(argv[a]);
    struct dirent *de;
    char **names = NULL;
    size_t nn = 0, cap = 0;
    while (d && (de = readdir(d))) {
      if (de->d_name[0] == '.') continue;
      if (nn == cap) names = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
      size_t len = strlen(argv[a]) + strlen(de->d_name) + 2;
      names[nn] = malloc(len);
      snprintf(names[nn++], len, "%s/%s", argv[a], de->d_name);
    }
    if (d) closedir(d);
    qsort(names, nn, sizeof *names, cmp);
    for (size_t i = 0; i < nn; i++) {
      fails += run_file(reader, names[i]);
      free(names[i]);
    }
    free(names);
  }
  printf("%s: %d files: %d read, %d refused with a clean error, %d bad\n", argv[1], nfiles, nok, nerr, nbad);
  return fails || nfiles == 0 ? 1 : 0;
}

int main(int argc, char **argv) {
#if HX_HAVE_MPI
  MPI_Init(&argc, &argv);
#endif
  int rc = run(argc, argv);
#if HX_HAVE_MPI
  MPI_Finalize();
#endif
  return rc;
}
