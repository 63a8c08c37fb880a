// SavedModel loading: the input is a saved_model.pb (text or binary) in a
// scratch directory without variables; LoadSavedModel finds the "serve"
// meta graph, builds a session (under the fuzz memory limit and step
// timeout) and runs its main op; then the default signature is prepared.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "formats/saved_model.h"
#include "fuzz/fuzz_util.h"
#include "runtime/saved_model_loader.h"
#include "runtime/session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dflow;
  if (fuzz::ScratchDir().empty()) return 0;
  const std::string dir = fuzz::ScratchDir() + "/saved_model";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!fuzz::WriteFile(dir + "/" + kSavedModelFilenamePb,
                       fuzz::AsBytes(data, size))) {
    return 0;
  }
  absl::StatusOr<SavedModel> model = ReadSavedModel(dir);
  if (!model.ok()) return 0;
  // The graph's nodes run: the same rules as the session target.
  for (const MetaGraphDef& meta : model->meta_graphs()) {
    for (const NodeDef& node : meta.graph_def().node()) {
      if (fuzz::TouchesFiles(node.op())) return 0;
    }
    if (meta.graph_def().node_size() > fuzz::kMaxSessionNodes) return 0;
  }
  SessionOptions options;
  options.memory_limit_bytes = fuzz::kMemoryLimitBytes;
  options.step_timeout_ms = fuzz::kStepTimeoutMs;
  absl::StatusOr<SavedModelBundle> bundle =
      LoadSavedModel(dir, {kSavedModelServeTag}, options);
  if (!bundle.ok()) return 0;
  PrepareSignatureCall(bundle->meta_graph.meta_graph, kDefaultServingSignature,
                       {}, {})
      .IgnoreError();
  return 0;
}
