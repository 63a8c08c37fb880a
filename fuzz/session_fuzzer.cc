// Session compile and run of arbitrary graphs (either encoding) under a
// memory and time budget (fuzz_util.h: SessionOptions.memory_limit_bytes and
// step_timeout_ms): one CPU and one fake GPU with soft placement, so graphs
// are placed, partitioned (Send/Recv) and optimized as a real session's.
// Placeholders are fed small zero tensors of their dtype; every node is a
// target, and the last node's first output is fetched. Graphs with ops that
// touch files, or with more than kMaxSessionNodes nodes, are skipped.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "graph/graph_def_file.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "runtime/session.h"

namespace {

using namespace dflow;

// A small zero tensor for a Placeholder: its declared shape when that is
// known and small, else a vector of 2.
bool FeedFor(const NodeDef& node, Tensor* out) {
  auto dtype = node.attr().find("dtype");
  if (dtype == node.attr().end()) return false;
  TensorShape shape({2});
  auto declared = node.attr().find("shape");
  if (declared != node.attr().end()) {
    absl::StatusOr<TensorShape> s =
        TensorShape::FromProto(declared->second.shape());
    if (s.ok() && s->IsFullyDefined() && s->num_elements() <= 64) shape = *s;
  }
  absl::StatusOr<Tensor> t =
      Tensor::Allocate(DefaultCpuAllocator(), dtype->second.type(), shape);
  if (!t.ok()) return false;
  if (t->dtype() != DT_STRING && t->TotalBytes() > 0) {
    std::memset(t->raw_data(), 0, t->TotalBytes());
  }
  *out = *std::move(t);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::StatusOr<GraphDef> def = ParseGraphDef(fuzz::AsBytes(data, size));
  if (!def.ok() || def->node_size() == 0 ||
      def->node_size() > fuzz::kMaxSessionNodes) {
    return 0;
  }
  FeedList feeds;
  std::vector<std::string> targets;
  for (const NodeDef& node : def->node()) {
    if (fuzz::TouchesFiles(node.op())) return 0;
    if (node.op() == "Placeholder") {
      Tensor t;
      if (FeedFor(node, &t)) feeds.emplace_back(node.name(), t);
      continue;
    }
    targets.push_back(node.name());
  }
  SessionOptions options;
  options.fake_gpus = 1;
  options.allow_soft_placement = true;
  options.memory_limit_bytes = fuzz::kMemoryLimitBytes;
  options.step_timeout_ms = fuzz::kStepTimeoutMs;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(*def, options);
  if (!session.ok()) return 0;
  std::vector<Tensor> outputs;
  (*session)->Run(feeds, {}, targets, &outputs).IgnoreError();
  const NodeDef& last = def->node(def->node_size() - 1);
  if (last.op() != "Placeholder") {
    (*session)->Run(feeds, {last.name()}, {}, &outputs).IgnoreError();
  }
  return 0;
}
