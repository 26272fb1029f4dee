/* One entry point per reader we own, shared by the libFuzzer harnesses
   (tests/fuzz/fuzz_<reader>.c, clang build with HX_ENABLE_FUZZ) and the corpus
   driver (tests/fuzz/hx_fuzz_driver.c, every build: test t151-fuzz-corpus).

   The readers take paths, so the bytes go to a file in a private temporary
   directory first (the messages then name that file and a byte offset/line).
   Returns 0 when the reader either succeeded or failed cleanly (an HX code and a
   non-empty one-line message); 1 when it failed without a message or with a
   message of several lines (the harnesses abort() on that, so the fuzzer reports
   it as a finding). */
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef enum {
  HX_FUZZ_RE2,
  HX_FUZZ_VTU,
  HX_FUZZ_MFEM,
  HX_FUZZ_PEBBLE,
  HX_FUZZ_NEKFLD,
  HX_FUZZ_VTK,
  HX_FUZZ_MSH,
  HX_FUZZ_DEM,
  HX_FUZZ_NREADERS
} hx_fuzz_reader;

/** "re2", "vtu", "mfem", "pebble", "nekfld", "vtk", "msh", "dem" -> reader; -1 when unknown. */
int hx_fuzz_reader_of(const char *name);
const char *hx_fuzz_reader_name(int reader);
/** Feed data[0..size) to reader. The .re2 input may hold a field file after the
    separator HX_FUZZ_FIELD_SEP (written beside it as <base>0.f00000). *status, when
    not NULL, gets the reader's return code. */
int hx_fuzz_one(int reader, const uint8_t *data, size_t size, int *status);

#define HX_FUZZ_FIELD_SEP "\n#HXFLD#\n"
