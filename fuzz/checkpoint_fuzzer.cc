// Checkpoint restore (TensorFlow's V2 tensor bundle): the input carries a
// `.index` (LevelDB table of BundleEntryProtos) and one data shard
// (fuzz_util.h's SplitTwo), written under a scratch prefix; every tensor the
// index lists is looked up and read (sizes, offsets, dtypes, CRCs, shards).
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/tensor_bundle.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dflow;
  absl::string_view index, shard;
  fuzz::SplitTwo(fuzz::AsBytes(data, size), &index, &shard);
  if (fuzz::ScratchDir().empty()) return 0;
  const std::string prefix = fuzz::ScratchDir() + "/ckpt";
  if (!fuzz::WriteFile(BundleIndexFilename(prefix), index) ||
      !fuzz::WriteFile(BundleDataFilename(prefix, 0, 1), shard)) {
    return 0;
  }
  absl::StatusOr<std::unique_ptr<BundleReader>> reader =
      BundleReader::Open(prefix);
  if (!reader.ok()) return 0;
  for (const BundleTensorInfo& info : (*reader)->ListTensors()) {
    (*reader)->Lookup(info.name).IgnoreError();
    (*reader)->Read(info.name).IgnoreError();
  }
  return 0;
}
