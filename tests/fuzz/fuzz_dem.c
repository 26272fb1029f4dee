/* libFuzzer harness: the readers of packings from DEM codes (see hx_fuzz.h; built with HX_ENABLE_FUZZ, run by tests/fuzz/run.sh).
 */
#include <stdlib.h>

#include "hx_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (hx_fuzz_one(HX_FUZZ_DEM, data, size, NULL)) abort();
  return 0;
}
