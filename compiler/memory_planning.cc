#include "compiler/memory_planning.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compiler/partition.h"
#include "compiler/prune.h"
#include "graph/node_def_util.h"
#include "graph/ops/control_flow_ops.h"
#include "graph/tensor.h"

namespace dflow {
namespace {

// Ops whose CPU kernel may write output 0 over input k (listed in order
// of preference) and how that is safe: each kernel reads input element i
// before it writes output element i, at the same offset, in one pass
// (Eigen element-wise expressions, plain index loops), and allocates its
// output through allocate_output.
//   UnaryOp / UnaryActivationOp (kernels/cpu/cwise_ops_common.h,
//   activations.cc): o[i] = f(x[i]).
//   BinaryOp (cwise_ops_common.h): o[i] = f(x[i'], y[i'']); an operand with
//   the output's element count is not broadcast, so i' == i. The other
//   operand is read many times, but it is another buffer (a tensor read
//   twice by one node is held twice and never forwarded).
//   SigmoidGrad, TanhGrad: o[i] from a[i], b[i]. ReluGrad: o[i] from g[i],
//   f[i], input 0 only (its loop keeps `f` restrict, activations.cc).
//   BiasAdd: o[i] = value[i] + bias[channel(i)]; the bias never matches.
//   _FusedElementwise (kernels/cpu/fused_elementwise.cc), any input: per
//   block, every op reads its operands' block and only the last op writes
//   the output block, so each input block is read before the output block
//   at the same offsets is written; intermediates live in temporaries.
// Left out: AddN (its kernel copies its inputs into a local vector, so
// every input is held twice), Cast and comparisons (other output dtype),
// string ops. A kernel writing its output in several passes would read
// what it had overwritten: audit a kernel before listing it.
const absl::flat_hash_map<std::string, std::vector<int>>& ForwardableOps() {
  static const auto* ops =
      new absl::flat_hash_map<std::string, std::vector<int>>{
          {"Neg", {0}},
          {"Square", {0}},
          {"Sqrt", {0}},
          {"Rsqrt", {0}},
          {"Exp", {0}},
          {"Log", {0}},
          {"Relu", {0}},
          {"Sigmoid", {0}},
          {"Tanh", {0}},
          {"ReluGrad", {0}},
          {"SigmoidGrad", {1, 0}},
          {"TanhGrad", {1, 0}},
          {"Add", {0, 1}},
          {"AddV2", {0, 1}},
          {"Sub", {0, 1}},
          {"Mul", {0, 1}},
          {"RealDiv", {0, 1}},
          {"Maximum", {0, 1}},
          {"Minimum", {0, 1}},
          {"Pow", {0, 1}},
          {"SquaredDifference", {0, 1}},
          {"BiasAdd", {0}},
      };
  return *ops;
}

// Ops whose output o is a view of input o's buffer (the kernels return the
// input tensor or Tensor::Reshaped of it): they cost nothing and keep the
// buffer alive for their own readers.
bool IsAliasOp(const std::string& op) {
  return op == "Identity" || op == "IdentityN" || op == "StopGradient" ||
         op == "PreventGradient" || op == "Snapshot" || op == "EnsureShape" ||
         op == "Reshape" || op == "Squeeze" || op == "ExpandDims" ||
         op == "ReadVariableOp";
}

// Outputs that are not the step's to plan: constants (held by their
// kernel), feeds (the caller's), variables.
bool IsPersistentOp(const std::string& op) {
  return op == "Const" || op == "HostConst" || op == "_Arg";
}

// Readers that keep a tensor beyond the step's schedule: fetches sit in
// the call frame until the run returns, sends in the rendezvous.
bool IsEscapingReader(const std::string& op) {
  return op == "_Retval" || op == "_Send";
}

bool PlainTensorType(DataType t) {
  return !IsRefType(t) && t != DT_RESOURCE && t != DT_VARIANT && t != DT_STRING;
}

// The input output 0 of `n` may take, or -1.
int ChooseForwardInput(const Node& n, const std::vector<int>& candidates) {
  if (n.num_outputs() != 1 || n.IsStateful()) return -1;
  const DataType out_type = n.output_type(0);
  if (!PlainTensorType(out_type)) return -1;
  const TensorShape& out_shape = n.output_shape(0);
  int fallback = -1;
  for (int k : candidates) {
    if (k >= n.num_inputs() || n.input_type(k) != out_type) continue;
    const Edge* e = n.input_edge(k);
    if (e == nullptr || !PlainTensorType(e->src->output_type(e->src_output))) {
      continue;
    }
    const TensorShape& in_shape = e->src->output_shape(e->src_output);
    if (out_shape.IsFullyDefined() && in_shape.IsFullyDefined()) {
      // Known shapes: only an operand with the output's element count can
      // be overwritten (a broadcast one would be read after).
      if (in_shape.num_elements() == out_shape.num_elements()) return k;
      continue;
    }
    // Unknown shapes: the runtime checks the element count; prefer the
    // first candidate.
    if (fallback < 0) fallback = k;
  }
  return fallback;
}

// The `_feed_shape` hint of an _Arg (or _Recv) whose static shape is
// partial, or null when that shape stands.
std::optional<TensorShape> FeedHint(const Node& n) {
  // A _Recv carries the hint for what crosses from another device (set by
  // partitioning from ShapesUnderFeedHints); its `shape` is the sender's
  // static shape, as an _Arg's is the declared one.
  if ((n.op() != kArgOp && n.op() != kRecvOp) ||
      n.FindAttr(kFeedShapeHintAttr) == nullptr) {
    return std::nullopt;
  }
  TensorShape declared = TensorShape::Unknown();
  TensorShape hint;
  const bool has_declared = n.GetAttr("shape", &declared).ok();
  if ((!has_declared || !declared.IsFullyDefined()) &&
      n.GetAttr(kFeedShapeHintAttr, &hint).ok() && hint.IsFullyDefined()) {
    return hint;
  }
  return std::nullopt;
}

bool HasFeedHint(const std::vector<Node*>& order) {
  for (const Node* n : order) {
    if (FeedHint(*n).has_value()) return true;
  }
  return false;
}

// While it lives, the graph has the static shapes its _Arg and _Recv
// hints give (errors leave a node's outputs unknown: the figure then says
// which); then the shapes other code sees are put back, since a hint is
// the fed shape of one call and the next call may feed another.
class ScopedHintedShapes {
 public:
  ScopedHintedShapes(const std::vector<Node*>& order, Graph* graph)
      : order_(order), saved_(graph->num_node_ids()) {
    for (Node* n : order_) {
      saved_[n->id()] = {n->output_shapes(), n->output_shape_values()};
    }
    for (Node* n : order_) {
      if (std::optional<TensorShape> hint = FeedHint(*n)) {
        n->set_output_shapes({*hint});
        continue;
      }
      if (!graph->InferShapesForNode(n).ok()) {
        n->set_output_shapes(
            std::vector<TensorShape>(n->num_outputs(), TensorShape::Unknown()));
      }
    }
  }
  ~ScopedHintedShapes() {
    for (Node* n : order_) {
      n->set_output_shapes(std::move(saved_[n->id()].first));
      n->set_output_shape_values(std::move(saved_[n->id()].second));
    }
  }
  ScopedHintedShapes(const ScopedHintedShapes&) = delete;
  ScopedHintedShapes& operator=(const ScopedHintedShapes&) = delete;

 private:
  const std::vector<Node*>& order_;
  std::vector<std::pair<std::vector<TensorShape>, std::vector<TensorShape>>>
      saved_;
};

struct Buffer {
  int64_t bytes = 0;
  int start = 0;
  int end = 0;
  int readers_left = 0;
  bool escapes = false;
};

int64_t AlignUp(int64_t bytes) {
  const int64_t a = static_cast<int64_t>(kTensorAlignment);
  return (bytes + a - 1) / a * a;
}

// The placed buffers, found by the time steps they are live in: a segment
// tree over [0, steps] whose nodes hold the buffers covering their whole
// range. Finding the buffers live in [start, end] costs O(log T) plus the
// buffers found, so offset assignment stays O(B log B) on a chain of a
// million nodes instead of comparing every pair of buffers.
class LiveIndex {
 public:
  explicit LiveIndex(int steps) : size_(1) {
    while (size_ < steps + 1) size_ *= 2;
    held_.resize(2 * size_);
    below_.assign(2 * size_, 0);
  }
  void Insert(int start, int end, int id) {
    Insert(1, 0, size_ - 1, start, end, id);
  }
  // Calls found(id) once for each inserted buffer live at some step of
  // [start, end]. `seen`, by buffer id, must hold no `stamp` before.
  template <typename F>
  void ForEachLive(int start, int end, std::vector<int>& seen, int stamp,
                   F&& found) const {
    Find(1, 0, size_ - 1, start, end, seen, stamp, found);
  }

 private:
  int Insert(int node, int lo, int hi, int start, int end, int id) {
    if (end < lo || hi < start) return 0;
    int added = 0;
    if (start <= lo && hi <= end) {
      held_[node].push_back(id);
      added = 1;
    } else {
      const int mid = (lo + hi) / 2;
      added = Insert(2 * node, lo, mid, start, end, id) +
              Insert(2 * node + 1, mid + 1, hi, start, end, id);
    }
    below_[node] += added;
    return added;
  }
  template <typename F>
  void Report(int node, std::vector<int>& seen, int stamp, F& found) const {
    for (int id : held_[node]) {
      if (seen[id] != stamp) {
        seen[id] = stamp;
        found(id);
      }
    }
  }
  // Every buffer in the subtree of `node` (its range is inside the query).
  template <typename F>
  void ReportAll(int node, std::vector<int>& seen, int stamp, F& found) const {
    if (below_[node] == 0) return;
    Report(node, seen, stamp, found);
    if (node < size_) {
      ReportAll(2 * node, seen, stamp, found);
      ReportAll(2 * node + 1, seen, stamp, found);
    }
  }
  template <typename F>
  void Find(int node, int lo, int hi, int start, int end,
            std::vector<int>& seen, int stamp, F& found) const {
    if (end < lo || hi < start || below_[node] == 0) return;
    if (start <= lo && hi <= end) {
      ReportAll(node, seen, stamp, found);
      return;
    }
    Report(node, seen, stamp, found);  // they cover all of [lo, hi]
    const int mid = (lo + hi) / 2;
    Find(2 * node, lo, mid, start, end, seen, stamp, found);
    Find(2 * node + 1, mid + 1, hi, start, end, seen, stamp, found);
  }

  int size_;
  std::vector<std::vector<int>> held_;
  std::vector<int> below_;  // buffers held in each node's subtree
};

// Greedy static assignment: largest first, each at the lowest offset that
// overlaps no placed buffer live at the same time. Returns the arena size.
// Escaping buffers (fetched or sent) are not in the arena: they outlive the
// partition's step or leave for another executor, so they must come from
// the allocator. (Counting them would also make a partition that sends the
// ends of 2,000 chains compare every buffer with 2,000 others.)
int64_t AssignOffsets(const std::vector<Buffer>& buffers, int steps) {
  std::vector<int> by_size;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i].escapes) by_size.push_back(static_cast<int>(i));
  }
  std::stable_sort(by_size.begin(), by_size.end(), [&](int a, int b) {
    return buffers[a].bytes > buffers[b].bytes;
  });
  std::vector<int64_t> offset(buffers.size(), -1);
  LiveIndex placed(steps);
  std::vector<int> seen(buffers.size(), -1);
  int64_t arena = 0;
  std::vector<std::pair<int64_t, int64_t>> busy;  // [begin, end) in use
  for (int i : by_size) {
    const Buffer& b = buffers[i];
    const int64_t size = AlignUp(b.bytes);
    busy.clear();
    placed.ForEachLive(b.start, b.end, seen, i, [&](int j) {
      busy.emplace_back(offset[j], offset[j] + AlignUp(buffers[j].bytes));
    });
    std::sort(busy.begin(), busy.end());
    int64_t at = 0;
    for (const auto& [begin, end] : busy) {
      if (begin - at >= size) break;
      at = std::max(at, end);
    }
    offset[i] = at;
    placed.Insert(b.start, b.end, i);
    arena = std::max(arena, at + size);
  }
  return arena;
}

// The order the executor's thread runs a partition in when nothing runs
// concurrently (runtime/executor.cc, RunQueue): the roots in id order, then
// always the node made ready last. A loop's back edges (from its
// NextIterations) do not count, so a loop's body is simulated as one
// iteration. Another cycle is Graph::TopologicalOrder's error.
absl::StatusOr<std::vector<Node*>> DepthFirstOrder(const Graph& graph) {
  std::vector<int> pending(graph.num_node_ids(), 0);
  std::vector<Node*> ready;
  const std::vector<Node*> nodes = graph.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    int count = 0;
    for (const Edge* e : (*it)->in_edges()) {
      count += IsNextIterationOp(e->src->op()) ? 0 : 1;
    }
    pending[(*it)->id()] = count;
    if (count == 0) ready.push_back(*it);
  }
  std::vector<Node*> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    Node* n = ready.back();
    ready.pop_back();
    order.push_back(n);
    if (IsNextIterationOp(n->op())) continue;  // its edges are back edges
    for (const Edge* e : n->out_edges()) {
      if (--pending[e->dst->id()] == 0) ready.push_back(e->dst);
    }
  }
  if (order.size() != nodes.size()) {
    absl::Status cycle = graph.TopologicalOrder().status();
    if (cycle.ok()) cycle = absl::InternalError("memory planning: no order");
    return cycle;
  }
  return order;
}

// The figures on shapes already inferred.
void Simulate(const std::vector<Node*>& order, const Graph& graph,
              MemoryPlan* plan) {
  // Buffer of each (node id, output); -1: not counted.
  std::vector<std::vector<int>> buffer_of(graph.num_node_ids());
  std::vector<Buffer> buffers;
  int64_t live = 0;
  plan->sizes_known = true;
  auto readers = [](const Node& n, int output) {
    int count = 0;
    for (const Edge* e : n.out_edges()) {
      if (!e->IsControl() && e->src_output == output) ++count;
    }
    return count;
  };
  auto input_buffer = [&](const Node& n, int k) {
    const Edge* e = n.input_edge(k);
    if (e == nullptr) return -1;
    const std::vector<int>& b = buffer_of[e->src->id()];
    return e->src_output < static_cast<int>(b.size()) ? b[e->src_output] : -1;
  };
  const int steps = static_cast<int>(order.size());
  for (int t = 0; t < steps; ++t) {
    const Node& n = *order[t];
    std::vector<int>& outs = buffer_of[n.id()];
    outs.assign(n.num_outputs(), -1);
    std::vector<int64_t> forward;
    if (const AttrValue* a = n.FindAttr(kForwardInputAttr); a != nullptr) {
      for (int64_t k : a->list().i()) forward.push_back(k);
    }
    for (int o = 0; o < n.num_outputs(); ++o) {
      const DataType type = n.output_type(o);
      if (IsRefType(type) || type == DT_RESOURCE || IsPersistentOp(n.op())) {
        continue;
      }
      const int r = readers(n, o);
      if (IsAliasOp(n.op())) {
        const int k = n.op() == "IdentityN" ? o : 0;
        const int b = k < n.num_inputs() ? input_buffer(n, k) : -1;
        outs[o] = b;
        if (b >= 0) buffers[b].readers_left += r;
        continue;
      }
      const TensorShape& shape = n.output_shape(o);
      const int64_t element = PlainTensorType(type) ? DataTypeSize(type) : 0;
      if (!shape.IsFullyDefined() || element <= 0) {
        if (plan->sizes_known) {
          plan->sizes_known = false;
          plan->unknown_reason = absl::StrCat(
              NodeLabel(n.def()), " output ", o, " has ",
              element <= 0 ? absl::StrCat("dtype ", DataTypeName(type))
                           : absl::StrCat("shape ", shape.ToString()),
              ", of unknown size");
        }
        continue;
      }
      const int64_t bytes = shape.num_elements() * element;
      if (o < static_cast<int>(forward.size()) && forward[o] >= 0 &&
          forward[o] < n.num_inputs()) {
        const int b = input_buffer(n, static_cast<int>(forward[o]));
        int reads_here = 0;
        for (int k = 0; k < n.num_inputs(); ++k) {
          if (b >= 0 && input_buffer(n, k) == b) ++reads_here;
        }
        if (b >= 0 && !buffers[b].escapes && buffers[b].bytes == bytes &&
            buffers[b].readers_left == 1 && reads_here == 1) {
          // This node is the buffer's last reader: the output takes it
          // (its reader count drops to 0 below and comes back with r).
          outs[o] = b;
          buffers[b].readers_left += r;
          ++plan->forwarded;
          continue;
        }
      }
      Buffer buf;
      buf.bytes = bytes;
      buf.start = t;
      buf.end = t;
      buf.readers_left = r;
      outs[o] = static_cast<int>(buffers.size());
      buffers.push_back(buf);
      live += bytes;
    }
    plan->peak_bytes = std::max(plan->peak_bytes, live);
    const bool escaping = IsEscapingReader(n.op());
    for (int k = 0; k < n.num_inputs(); ++k) {
      const int b = input_buffer(n, k);
      if (b < 0) continue;
      Buffer& buf = buffers[b];
      if (escaping && !buf.escapes) {
        buf.escapes = true;
        buf.end = steps;  // held until the run returns
      }
      --buf.readers_left;
    }
    // Free what this node read last and what no one reads.
    for (int k = 0; k < n.num_inputs(); ++k) {
      const int b = input_buffer(n, k);
      if (b < 0) continue;
      Buffer& buf = buffers[b];
      if (buf.readers_left == 0 && !buf.escapes && buf.end < t) {
        buf.end = t;
        live -= buf.bytes;
      }
    }
    for (int b : outs) {
      if (b < 0) continue;
      Buffer& buf = buffers[b];
      if (buf.readers_left == 0 && !buf.escapes && buf.start == t &&
          buf.end == t) {
        live -= buf.bytes;
        buf.end = t;
        buf.readers_left = -1;  // freed; not freed again
      }
    }
  }
  plan->tensors = static_cast<int>(buffers.size());
  for (const Buffer& b : buffers) plan->no_reuse_bytes += b.bytes;
  plan->arena_bytes = AssignOffsets(buffers, steps);
}

std::string Megabytes(int64_t bytes) {
  return absl::StrFormat("%.2f MB", static_cast<double>(bytes) / 1e6);
}

}  // namespace

absl::StatusOr<MemoryPlan> PlanMemory(Graph* graph, bool mark_forwarding) {
  absl::StatusOr<std::vector<Node*>> order = DepthFirstOrder(*graph);
  if (!order.ok()) return order.status();
  // With no hint to apply, the graph's own shapes are the figures' (kept
  // up to date incrementally).
  std::optional<ScopedHintedShapes> hinted;
  if (HasFeedHint(*order) || !graph->InferShapes().ok()) {
    hinted.emplace(*order, graph);
  }

  MemoryPlan plan;
  if (mark_forwarding) {
    const auto& ops = ForwardableOps();
    std::vector<int> all_inputs;
    for (Node* n : *order) {
      auto it = ops.find(n->op());
      int k = it == ops.end() ? -1 : ChooseForwardInput(*n, it->second);
      if (n->op() == "_FusedElementwise") {
        all_inputs.clear();
        for (int i = 0; i < n->num_inputs(); ++i) all_inputs.push_back(i);
        k = ChooseForwardInput(*n, all_inputs);
      }
      if (k < 0) {
        n->ClearAttr(kForwardInputAttr);
        continue;
      }
      AttrValue value;
      value.mutable_list()->add_i(k);
      n->SetAttr(kForwardInputAttr, std::move(value));
      ++plan.nodes_marked;
    }
  }
  Simulate(*order, *graph, &plan);
  return plan;
}

std::vector<std::vector<TensorShape>> ShapesUnderFeedHints(Graph* graph) {
  std::vector<std::vector<TensorShape>> hinted;
  absl::StatusOr<std::vector<Node*>> order = graph->TopologicalOrder();
  if (!order.ok() || !HasFeedHint(*order)) return hinted;
  hinted.resize(graph->num_node_ids());
  ScopedHintedShapes scoped(*order, graph);
  for (const Node* n : *order) hinted[n->id()] = n->output_shapes();
  return hinted;
}

absl::StatusOr<PassResult> RunMemoryPlanning(const PassContext& ctx,
                                             Graph* graph) {
  absl::StatusOr<MemoryPlan> plan =
      PlanMemory(graph, /*mark_forwarding=*/ctx.device_type == "CPU");
  if (!plan.ok()) return plan.status();
  PassResult result;
  result.changes = plan->nodes_marked;
  if (!plan->sizes_known) {
    result.what = absl::StrCat(
        plan->nodes_marked,
        " nodes may forward in place; no peak: ", plan->unknown_reason);
    return result;
  }
  result.what =
      absl::StrCat(plan->tensors, " tensors, ", plan->forwarded,
                   " forwarded in place, peak ", Megabytes(plan->peak_bytes),
                   " (arena ", Megabytes(plan->arena_bytes), ", no reuse ",
                   Megabytes(plan->no_reuse_bytes), ")");
  result.figures.emplace_back("planned_peak_bytes", plan->peak_bytes);
  result.figures.emplace_back("arena_bytes", plan->arena_bytes);
  return result;
}

}  // namespace dflow
