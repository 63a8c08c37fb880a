// `.npy` reading (dflow run's --feed files): header, dtype, shape, byte
// order, data size.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_util.h"
#include "graph/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dflow;
  absl::StatusOr<Tensor> t = ParseNpy(fuzz::AsBytes(data, size), "fuzz.npy");
  if (t.ok()) {
    // What is read can be written back.
    SerializeNpy(*t).IgnoreError();
  }
  return 0;
}
