// GraphDef import from protobuf text format (fuzz/graph_def_import_fuzz.h).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_util.h"
#include "fuzz/graph_def_import_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dflow::fuzz::ImportGraphDefBytes(dflow::fuzz::AsBytes(data, size),
                                   dflow::GraphDefFormat::kText);
  return 0;
}
