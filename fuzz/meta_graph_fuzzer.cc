// MetaGraph loading: a `.meta` (text or binary) is parsed and its
// collections decoded (variables, queue runners, saver, node lists), then
// its graph is imported as `dflow run --graph model.meta` would.
#include <cstddef>
#include <cstdint>

#include "formats/meta_graph.h"
#include "fuzz/fuzz_util.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dflow;
  absl::StatusOr<MetaGraphDef> meta =
      ParseMetaGraphDef(fuzz::AsBytes(data, size), "fuzz.meta");
  if (!meta.ok()) return 0;
  absl::StatusOr<MetaGraphInfo> info =
      DecodeMetaGraph(*std::move(meta), "fuzz.meta");
  if (!info.ok()) return 0;
  info->MainOp();
  Graph graph;
  ImportGraphDef(info->graph_def(), ImportOptions(), &graph).IgnoreError();
  return 0;
}
