#include "compiler/partition.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "compiler/partition_memory.h"
#include "compiler/prune.h"
#include "graph/attr_value_util.h"
#include "graph/device_spec.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/ops/control_flow_frames.h"
#include "graph/ops/control_flow_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor.h"
#include "graph/types.h"

namespace dflow {

// Internal: only this pass creates them, so they are declared here rather
// than with the public ops in graph/ops/. The attrs are TensorFlow's (so a
// partition reads like one of TensorFlow's) plus `key_prefix`.
DFLOW_REGISTER_OP("_Send")
    .Input("tensor: T")
    .Attr("T: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("send_device_incarnation: int")
    .Attr("recv_device: string")
    .Attr("client_terminated: bool = false")
    .Attr("key_prefix: string = ''")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext*) { return absl::OkStatus(); })
    .Doc(
        "Sends `tensor` from send_device to recv_device under the "
        "rendezvous key RendezvousKey(send_device, recv_device, "
        "tensor_name, key_prefix) plus the step (made by partitioning).");

DFLOW_REGISTER_OP("_Recv")
    .Output("tensor: tensor_type")
    .Attr("tensor_type: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("send_device_incarnation: int")
    .Attr("recv_device: string")
    .Attr("client_terminated: bool = false")
    .Attr("key_prefix: string = ''")
    // The static shape of what arrives, as the sending side inferred it
    // (unknown when it did not): lets the receiving partition's passes,
    // memory planning among them, size what the other device computes.
    .Attr("shape: shape = { unknown_rank: true }")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ShapeFromAttr)
    .Doc(
        "Receives the tensor its _Send sent under the same key (made by "
        "partitioning).");

// The copies between host and device memory on one device. Shape is the
// input's: a copy moves the value, nothing else.
DFLOW_REGISTER_OP("_HostToDevice")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc(
        "Copies `input` from host memory to the memory of the device it runs "
        "on (made by partitioning, see compiler/partition.h).");

DFLOW_REGISTER_OP("_DeviceToHost")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc(
        "Copies `input` from the memory of the device it runs on to host "
        "memory (made by partitioning, see compiler/partition.h).");

std::string RendezvousKey(absl::string_view send_device,
                          absl::string_view recv_device,
                          absl::string_view tensor_name,
                          absl::string_view key_prefix) {
  return absl::StrCat(key_prefix, send_device, ";", recv_device, ";",
                      tensor_name);
}

absl::Status CheckTransfersMatch(const Graph& graph) {
  struct Ends {
    std::vector<const Node*> sends, recvs;
  };
  std::map<std::string, Ends> by_key;  // ordered: the first error is stable
  for (const Node* n : graph.nodes()) {
    const bool send = n->op() == "_Send", recv = n->op() == "_Recv";
    if (!send && !recv) continue;
    std::string send_device, recv_device, tensor_name, key_prefix;
    for (auto [attr, value] : {std::pair{"send_device", &send_device},
                               std::pair{"recv_device", &recv_device},
                               std::pair{"tensor_name", &tensor_name}}) {
      if (absl::Status s = n->GetAttr(attr, value); !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(NodeLabel(n->def()), ": ", s.message()));
      }
    }
    // Optional, as in the kernels: older graphs have none.
    if (!n->GetAttr("key_prefix", &key_prefix).ok()) key_prefix.clear();
    Ends& ends = by_key[RendezvousKey(send_device, recv_device, tensor_name,
                                      key_prefix)];
    (send ? ends.sends : ends.recvs).push_back(n);
  }
  for (const auto& [key, ends] : by_key) {
    const Node* first =
        ends.recvs.empty() ? ends.sends.front() : ends.recvs.front();
    const std::string where = absl::StrCat(NodeLabel(first->def()), " on ",
                                           first->assigned_device().empty()
                                               ? first->requested_device()
                                               : first->assigned_device(),
                                           " (rendezvous key '", key, "')");
    if (ends.recvs.size() > 1 || ends.sends.size() > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": ", ends.sends.size(), " _Send and ", ends.recvs.size(),
          " _Recv nodes share this key, but a key carries one tensor from "
          "one _Send to one _Recv; give each transfer its own tensor_name"));
    }
    if (!ends.recvs.empty() && ends.sends.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where,
          " waits for a tensor that no _Send in this run sends; add "
          "the _Send with the same send_device, recv_device and "
          "tensor_name (and fetch or target it so it is not pruned), "
          "or remove the _Recv (partitioning makes the transfers a "
          "run needs)"));
    }
  }
  return absl::OkStatus();
}

namespace {

// Orders devices as a person reads them (CPU:2 before CPU:10), then by name
// for names that do not parse.
using DeviceOrderKey =
    std::tuple<bool, std::string, int, int, std::string, int, std::string>;

DeviceOrderKey OrderKey(const std::string& device) {
  absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(device);
  if (!spec.ok()) return {true, "", -1, -1, "", -1, device};
  return {false,
          spec->job().value_or(""),
          spec->replica().value_or(-1),
          spec->task().value_or(-1),
          spec->type().value_or(""),
          spec->id().value_or(-1),
          device};
}

// Letters and digits kept, everything else '_', no leading '_'.
std::string Sanitize(absl::string_view s) {
  std::string out;
  for (char c : s) {
    out.push_back(absl::ascii_isalnum(static_cast<unsigned char>(c)) ? c : '_');
  }
  out.erase(0, std::min(out.find_first_not_of('_'), out.size()));
  return out.empty() ? "device" : out;
}

// Short tags for device names in node names: "CPU_1" while those are
// unambiguous, the whole name sanitized otherwise (several jobs or tasks).
std::vector<std::string> DeviceTags(const std::vector<std::string>& devices) {
  std::vector<std::string> tags;
  absl::flat_hash_set<std::string> seen;
  bool clash = false;
  for (const std::string& d : devices) {
    absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(d);
    std::string tag = spec.ok() ? Sanitize(spec->ShortName()) : Sanitize(d);
    if (!seen.insert(tag).second) clash = true;
    tags.push_back(std::move(tag));
  }
  if (clash) {
    for (size_t i = 0; i < devices.size(); ++i) tags[i] = Sanitize(devices[i]);
  }
  return tags;
}

std::string TensorName(const Node* node, int output) {
  return absl::StrCat(node->name(), ":", output);
}

// An output of a node in a partition's graph.
struct Endpoint {
  Node* node = nullptr;
  int output = 0;
};

class Partitioner {
 public:
  Partitioner(const Graph& graph, const PartitionOptions& options)
      : graph_(graph), options_(options) {
    if (options.kernels != nullptr) memory_.emplace(*options.kernels);
    for (const Node* n : graph.nodes()) {
      if (IsSwitchOp(n->op())) {
        has_switch_ = true;
        break;
      }
    }
  }

  absl::StatusOr<std::vector<DevicePartition>> Run(PartitionStats* stats);

 private:
  // The _Recv on device `dst` of `src:output`, made (with its _Send) on
  // first use.
  absl::StatusOr<Node*> DataRecv(const Node* src, int output, int dst);
  // The _Recv on device `dst` that fires after `src` ran.
  absl::StatusOr<Node*> ControlRecv(const Node* src, int dst);
  // Adds a _Send/_Recv pair moving `input` (of base type `type`, named
  // `tensor_name`) from device `src` to `dst`; returns the _Recv.
  // `shape`: what the sender's side inferred (unknown rank: nothing).
  absl::StatusOr<Node*> AddTransfer(Endpoint input,
                                    const std::string& tensor_name,
                                    DataType type, const TensorShape& shape,
                                    const std::string& id, int src, int dst);
  // What data edge `e` inside device `device` reads: its source's copy,
  // or the host<->device copy of it the edge needs.
  absl::StatusOr<Endpoint> LocalInput(const Edge& e, int device);
  // What cross-device data edge `e` into device `dst` whose _Recv is
  // `recv` reads: the _Recv, or, when the edge's consumer reads host memory
  // while other consumers of that _Recv read device memory, a
  // _DeviceToHost of it (see MixedRecvs).
  absl::StatusOr<Endpoint> RecvInput(const Edge& e, int dst, Node* recv);
  // Finds the values a _Recv will bring to a device with memory of its
  // own for consumers some of which read host memory and some device
  // memory. Such a _Recv delivers device memory (the GPU _Recv hands over
  // host memory only when every consumer reads it there), so its host
  // readers need a copy.
  absl::Status MixedRecvs();
  // A host<->device copy of `input` on `device`, for the inputs listed
  // later in its `_dst` attr.
  absl::StatusOr<Node*> AddMemoryCopy(const Edge& e, Endpoint input,
                                      bool to_device, int device);
  // The Merge of the control loop of `frame` on `device` (made, with the
  // control loops of the frame's ancestors, on first use): it fires once
  // per iteration of the frame, so a _Recv it gates runs in that frame,
  // once per iteration. See "Loops across devices" in partition.h.
  absl::StatusOr<Node*> ControlLoopMerge(int frame, int device);
  // Makes the transfer `recv` (into device `dst`, of a value `src` makes)
  // run once per iteration of src's frame, when that is a loop's.
  absl::Status GateByFrame(const Node* src, Node* recv, int dst);
  // `base`, or base_1, base_2, ... : a name no node has.
  std::string UniqueName(const std::string& base);
  // Adds `def` to the partition of `device`, on that device.
  absl::StatusOr<Node*> AddNode(NodeDef def, int device);
  Graph& graph_of(int device) { return *partitions_[device].graph; }

  const Graph& graph_;
  const PartitionOptions& options_;
  bool has_switch_ = false;  // transfers may carry dead tensors
  // Set when the graph has loops.
  std::optional<ControlFlowFrames> frames_;
  // (frame, device) -> the Merge of that device's control loop of the frame.
  absl::flat_hash_map<std::pair<int, int>, Node*> control_loops_;
  std::vector<DevicePartition> partitions_;
  std::vector<std::string> tags_;
  absl::flat_hash_map<std::string, int> device_index_;
  std::vector<int> device_of_;  // by node id
  std::vector<Node*> copy_of_;  // by node id: the node in its partition
  absl::flat_hash_set<std::string> names_;
  // (src id, output, dst device) -> _Recv; output -1: control.
  absl::flat_hash_map<std::tuple<int, int, int>, Node*> recvs_;
  absl::flat_hash_map<int, Node*> dummies_;  // src id -> Const
  // Set when options_.kernels is; device types by device index.
  std::optional<MemoryCopyAnalysis> memory_;
  std::vector<std::string> device_types_;
  // (src id, output, direction) -> the copy node.
  absl::flat_hash_map<std::tuple<int, int, MemoryCopy>, Node*> copies_;
  // (src id, output, dst device) of the values whose _Recv on dst has both
  // host-memory and device-memory readers (MixedRecvs), and the
  // _DeviceToHost made for the host readers of each.
  absl::flat_hash_set<std::tuple<int, int, int>> mixed_recvs_;
  absl::flat_hash_map<std::tuple<int, int, int>, Node*> recv_copies_;
  // The inputs that read each copy node ("dst:k"), its `_dst` attr, set
  // once every edge is wired.
  absl::flat_hash_map<Node*, std::vector<std::string>> copy_readers_;
  PartitionStats stats_;
};

std::string Partitioner::UniqueName(const std::string& base) {
  std::string name = base;
  for (int i = 1; names_.contains(name); ++i) name = absl::StrCat(base, "_", i);
  names_.insert(name);
  return name;
}

absl::StatusOr<Node*> Partitioner::AddNode(NodeDef def, int device) {
  def.set_device(partitions_[device].device);
  absl::StatusOr<Node*> node = graph_of(device).AddNode(std::move(def));
  if (!node.ok()) return node.status();
  (*node)->set_assigned_device(partitions_[device].device);
  return node;
}

// Wires data edge src:k -> dst:input in a partition's graph; every caller
// connects an input once, so a failure is a bug here, reported as one.
absl::Status Connect(Endpoint src, Node* dst, int input) {
  absl::StatusOr<const Edge*> edge =
      dst->graph()->AddEdge(src.node, src.output, dst, input);
  if (!edge.ok()) {
    return absl::InternalError(
        absl::StrCat("partitioning: ", edge.status().message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Node*> Partitioner::AddTransfer(
    Endpoint input, const std::string& tensor_name, DataType type,
    const TensorShape& shape, const std::string& id, int src, int dst) {
  const std::string& send_device = partitions_[src].device;
  const std::string& recv_device = partitions_[dst].device;
  auto set_common = [&](NodeDef* def) {
    auto& attr = *def->mutable_attr();
    attr["tensor_name"] = MakeAttr(tensor_name);
    attr["send_device"] = MakeAttr(send_device);
    attr["send_device_incarnation"] = MakeAttr(int64_t{0});
    attr["recv_device"] = MakeAttr(recv_device);
    attr["client_terminated"] = MakeAttr(false);
    attr["key_prefix"] = MakeAttr(options_.key_prefix);
  };
  NodeDef send;
  send.set_name(UniqueName(absl::StrCat("_send_", id)));
  send.set_op(kSendOp);
  (*send.mutable_attr())["T"] = MakeAttr(type);
  set_common(&send);
  absl::StatusOr<Node*> send_node = AddNode(std::move(send), src);
  if (!send_node.ok()) return send_node.status();
  if (absl::Status s = Connect(input, *send_node, 0); !s.ok()) return s;

  NodeDef recv;
  recv.set_name(UniqueName(absl::StrCat("_recv_", id)));
  recv.set_op(kRecvOp);
  (*recv.mutable_attr())["tensor_type"] = MakeAttr(type);
  set_common(&recv);
  if (!shape.unknown_rank()) (*recv.mutable_attr())["shape"] = MakeAttr(shape);
  if (has_switch_) (*recv.mutable_attr())[kRecvMayBeDeadAttr] = MakeAttr(true);
  absl::StatusOr<Node*> recv_node = AddNode(std::move(recv), dst);
  if (!recv_node.ok()) return recv_node.status();
  (*recv_node)->set_output_shapes({shape});
  ++stats_.sends;
  ++stats_.recvs;
  return recv_node;
}

absl::StatusOr<Node*> Partitioner::AddMemoryCopy(const Edge& e, Endpoint input,
                                                 bool to_device, int device) {
  NodeDef def;
  def.set_name(UniqueName(
      absl::StrCat(to_device ? "_host_to_device_" : "_device_to_host_",
                   e.src->name(), "_", e.src_output)));
  def.set_op(to_device ? kHostToDeviceOp : kDeviceToHostOp);
  auto& attr = *def.mutable_attr();
  // A reference read as a value is copied as the value.
  attr["T"] = MakeAttr(BaseType(e.src->output_type(e.src_output)));
  // The value copied (through the _Recv, when that is the input).
  attr["_src"] = MakeAttr(TensorName(e.src, e.src_output));
  absl::StatusOr<Node*> copy = AddNode(std::move(def), device);
  if (!copy.ok()) return copy.status();
  if (absl::Status s = Connect(input, *copy, 0); !s.ok()) return s;
  if (e.src_output < static_cast<int>(e.src->output_shapes().size())) {
    (*copy)->set_output_shapes({e.src->output_shape(e.src_output)});
  }
  copy_readers_[*copy];  // a `_dst` attr even when it stays empty
  ++(to_device ? stats_.host_to_device : stats_.device_to_host);
  return copy;
}

absl::StatusOr<Endpoint> Partitioner::LocalInput(const Edge& e, int device) {
  const Endpoint source{copy_of_[e.src->id()], e.src_output};
  if (!memory_.has_value()) return source;
  absl::StatusOr<MemoryCopy> copy = memory_->CopyFor(e, device_types_[device]);
  if (!copy.ok()) return copy.status();
  if (*copy == MemoryCopy::kNone) return source;
  auto [it, inserted] =
      copies_.try_emplace({e.src->id(), e.src_output, *copy}, nullptr);
  if (inserted) {
    absl::StatusOr<Node*> added =
        AddMemoryCopy(e, source, *copy == MemoryCopy::kHostToDevice, device);
    if (!added.ok()) return added.status();
    it->second = *added;
  }
  copy_readers_[it->second].push_back(
      absl::StrCat(e.dst->name(), ":", e.dst_input));
  return Endpoint{it->second, 0};
}

absl::Status Partitioner::MixedRecvs() {
  if (!memory_.has_value()) return absl::OkStatus();
  // (src id, output, dst device) -> {reads host memory, reads device
  // memory} over the value's consumers on dst.
  absl::flat_hash_map<std::tuple<int, int, int>, std::pair<bool, bool>> reads;
  for (const Node* n : graph_.nodes()) {
    const int dst = device_of_[n->id()];
    if (!HasOwnMemory(device_types_[dst])) continue;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControl() || device_of_[e->src->id()] == dst) continue;
      absl::StatusOr<bool> host =
          memory_->ReadsHostMemory(*e, device_types_[dst]);
      if (!host.ok()) return host.status();
      std::pair<bool, bool>& r = reads[{e->src->id(), e->src_output, dst}];
      (*host ? r.first : r.second) = true;
    }
  }
  for (const auto& [key, r] : reads) {
    if (r.first && r.second) mixed_recvs_.insert(key);
  }
  return absl::OkStatus();
}

absl::StatusOr<Endpoint> Partitioner::RecvInput(const Edge& e, int dst,
                                                Node* recv) {
  const std::tuple<int, int, int> key{e.src->id(), e.src_output, dst};
  if (!mixed_recvs_.contains(key)) return Endpoint{recv, 0};
  absl::StatusOr<bool> host = memory_->ReadsHostMemory(e, device_types_[dst]);
  if (!host.ok()) return host.status();
  if (!*host) return Endpoint{recv, 0};
  auto [it, inserted] = recv_copies_.try_emplace(key, nullptr);
  if (inserted) {
    absl::StatusOr<Node*> added =
        AddMemoryCopy(e, Endpoint{recv, 0}, /*to_device=*/false, dst);
    if (!added.ok()) return added.status();
    it->second = *added;
  }
  copy_readers_[it->second].push_back(
      absl::StrCat(e.dst->name(), ":", e.dst_input));
  return Endpoint{it->second, 0};
}

absl::StatusOr<Node*> Partitioner::DataRecv(const Node* src, int output,
                                            int dst) {
  auto [it, inserted] = recvs_.try_emplace({src->id(), output, dst}, nullptr);
  if (!inserted) return it->second;
  // A reference read as a value travels as the value (the _Send's input
  // reads the variable like any value consumer would).
  TensorShape hint = TensorShape::Unknown();
  if (options_.hinted_shapes != nullptr &&
      src->id() < static_cast<int>(options_.hinted_shapes->size()) &&
      output < static_cast<int>((*options_.hinted_shapes)[src->id()].size())) {
    hint = (*options_.hinted_shapes)[src->id()][output];
  }
  absl::StatusOr<Node*> recv =
      AddTransfer(Endpoint{copy_of_[src->id()], output},
                  TensorName(src, output), BaseType(src->output_type(output)),
                  output < static_cast<int>(src->output_shapes().size())
                      ? src->output_shape(output)
                      : TensorShape::Unknown(),
                  absl::StrCat(src->name(), "_", output, "_to_", tags_[dst]),
                  device_of_[src->id()], dst);
  if (!recv.ok()) return recv.status();
  if (hint.IsFullyDefined() && !(*recv)->output_shape(0).IsFullyDefined()) {
    (*recv)->SetAttr(kFeedShapeHintAttr, MakeAttr(hint));
  }
  it->second = *recv;
  // (Gating may add transfers: `it` is not valid after it.)
  if (absl::Status s = GateByFrame(src, *recv, dst); !s.ok()) return s;
  return *recv;
}

absl::StatusOr<Node*> Partitioner::ControlRecv(const Node* src, int dst) {
  auto [it, inserted] = recvs_.try_emplace({src->id(), -1, dst}, nullptr);
  if (!inserted) return it->second;
  const int src_device = device_of_[src->id()];
  auto [dummy, new_dummy] = dummies_.try_emplace(src->id(), nullptr);
  if (new_dummy) {
    // A scalar that exists once `src` ran: what crosses is the fact that
    // it ran. (A Const's name must not start with '_', hence the scope.)
    NodeDef def;
    def.set_name(UniqueName(absl::StrCat("ctrl_dummy/", src->name())));
    def.set_op("Const");
    (*def.mutable_attr())["dtype"] = MakeAttr(DT_FLOAT);
    (*def.mutable_attr())["value"] = MakeAttr(Tensor::Scalar(0.0f));
    absl::StatusOr<Node*> added = AddNode(std::move(def), src_device);
    if (!added.ok()) return added.status();
    (*added)->set_output_shapes({TensorShape()});
    graph_of(src_device).AddControlEdge(copy_of_[src->id()], *added);
    dummy->second = *added;
  }
  absl::StatusOr<Node*> recv = AddTransfer(
      Endpoint{dummy->second, 0}, absl::StrCat(dummy->second->name(), ":0"),
      DT_FLOAT, TensorShape(),
      absl::StrCat(src->name(), "_ctrl_to_", tags_[dst]), src_device, dst);
  if (!recv.ok()) return recv.status();
  it->second = *recv;
  ++stats_.control_transfers;
  // (Gating may add transfers: `it` is not valid after it.)
  if (absl::Status s = GateByFrame(src, *recv, dst); !s.ok()) return s;
  return *recv;
}

absl::Status Partitioner::GateByFrame(const Node* src, Node* recv, int dst) {
  if (!frames_.has_value()) return absl::OkStatus();
  const int frame = frames_->OutputFrame(*src);
  if (frame == 0) return absl::OkStatus();
  absl::StatusOr<Node*> merge = ControlLoopMerge(frame, dst);
  if (!merge.ok()) return merge.status();
  graph_of(dst).AddControlEdge(*merge, recv);
  return absl::OkStatus();
}

absl::StatusOr<Node*> Partitioner::ControlLoopMerge(int frame, int device) {
  auto found = control_loops_.find({frame, device});
  if (found != control_loops_.end()) return found->second;
  const ControlFlowFrames::Frame& info = frames_->frame(frame);
  const Node* loop_cond = info.loop_cond;
  if (loop_cond == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the loop '", frames_->Path(frame), "' runs on ",
        partitions_[device].device,
        " and another device, but it has no LoopCond; a loop cut across "
        "devices needs its LoopCond, which tells every device whether "
        "another iteration runs (place the whole loop on one device)"));
  }
  // The loop carries an empty float tensor: only its iterations matter.
  const std::string base =
      absl::StrCat("control_loop/", info.name, "/", tags_[device], "/");
  const TensorShape empty({0});
  auto add = [&](const std::string& what, const std::string& op,
                 std::initializer_list<std::pair<const char*, AttrValue>> attrs)
      -> absl::StatusOr<Node*> {
    NodeDef def;
    def.set_name(UniqueName(base + what));
    def.set_op(op);
    for (const auto& [name, value] : attrs) (*def.mutable_attr())[name] = value;
    absl::StatusOr<Node*> node = AddNode(std::move(def), device);
    if (node.ok()) (*node)->set_output_shapes({empty});
    return node;
  };
  // What starts the loop: the parent frame's control loop once per parent
  // iteration, or a constant in the root frame.
  Endpoint start;
  if (info.parent == 0) {
    absl::StatusOr<Node*> c =
        add("start", "Const",
            {{"dtype", MakeAttr(DT_FLOAT)},
             {"value", MakeAttr(Tensor::FromVector<float>({}))}});
    if (!c.ok()) return c.status();
    start = Endpoint{*c, 0};
  } else {
    absl::StatusOr<Node*> outer = ControlLoopMerge(info.parent, device);
    if (!outer.ok()) return outer.status();
    start = Endpoint{*outer, 0};
  }
  absl::StatusOr<Node*> enter =
      add("enter", "Enter",
          {{"T", MakeAttr(DT_FLOAT)},
           {"frame_name", MakeAttr(info.name)},
           {"is_constant", MakeAttr(false)},
           {"parallel_iterations",
            MakeAttr(static_cast<int64_t>(info.parallel_iterations))}});
  if (!enter.ok()) return enter.status();
  absl::StatusOr<Node*> merge =
      add("merge", "Merge",
          {{"T", MakeAttr(DT_FLOAT)}, {"N", MakeAttr(int64_t{2})}});
  if (!merge.ok()) return merge.status();
  (*merge)->set_output_shapes({empty, TensorShape()});
  absl::StatusOr<Node*> switch_node =
      add("switch", "Switch", {{"T", MakeAttr(DT_FLOAT)}});
  if (!switch_node.ok()) return switch_node.status();
  (*switch_node)->set_output_shapes({empty, empty});
  absl::StatusOr<Node*> next =
      add("next_iteration", "NextIteration", {{"T", MakeAttr(DT_FLOAT)}});
  if (!next.ok()) return next.status();
  // The control loop starts when the real one does: a control edge from
  // what a loop variable's Enter reads makes the control Enter dead when
  // that is (the last iteration of an enclosing loop, a branch not taken),
  // and a dead Enter starts no iteration, as in the real loop.
  if (const Node* variable = info.variable_enter) {
    const Edge* in = variable->input_edge(0);
    if (in == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(NodeLabel(variable->def()),
                       ": input 0 is not connected; partitioning needs a "
                       "complete graph"));
    }
    if (device_of_[in->src->id()] == device) {
      graph_of(device).AddControlEdge(copy_of_[in->src->id()], *enter);
    } else {
      absl::StatusOr<Node*> recv = ControlRecv(in->src, device);
      if (!recv.ok()) return recv.status();
      graph_of(device).AddControlEdge(*recv, *enter);
    }
  }
  for (auto [from, to, input] :
       {std::tuple{start, *enter, 0},
        std::tuple{Endpoint{*enter, 0}, *merge, 0},
        std::tuple{Endpoint{*next, 0}, *merge, 1},
        std::tuple{Endpoint{*merge, 0}, *switch_node, 0},
        std::tuple{Endpoint{*switch_node, 1}, *next, 0}}) {
    if (absl::Status s = Connect(from, to, input); !s.ok()) return s;
  }
  // Registered before the predicate's _Recv is made: that _Recv runs in
  // this frame, gated by this Merge.
  control_loops_[{frame, device}] = *merge;
  ++stats_.control_loops;
  Endpoint pred;
  if (device_of_[loop_cond->id()] == device) {
    pred = Endpoint{copy_of_[loop_cond->id()], 0};
  } else {
    absl::StatusOr<Node*> recv = DataRecv(loop_cond, 0, device);
    if (!recv.ok()) return recv.status();
    pred = Endpoint{*recv, 0};
  }
  if (absl::Status s = Connect(pred, *switch_node, 1); !s.ok()) return s;
  return *merge;
}

absl::StatusOr<std::vector<DevicePartition>> Partitioner::Run(
    PartitionStats* stats) {
  const std::vector<Node*> nodes = graph_.nodes();
  std::vector<std::string> devices;
  for (const Node* n : nodes) {
    if (n->assigned_device().empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          NodeLabel(n->def()),
          " has no assigned device; place the graph (PlaceGraph) before "
          "partitioning it"));
    }
    if (device_index_.emplace(n->assigned_device(), 0).second) {
      devices.push_back(n->assigned_device());
    }
    names_.insert(n->name());
  }
  std::sort(devices.begin(), devices.end(),
            [](const std::string& a, const std::string& b) {
              return OrderKey(a) < OrderKey(b);
            });
  tags_ = DeviceTags(devices);
  const bool has_library = graph_.library().function_size() ||
                           graph_.library().gradient_size() ||
                           graph_.library().registered_gradients_size();
  for (size_t i = 0; i < devices.size(); ++i) {
    device_index_[devices[i]] = static_cast<int>(i);
    DevicePartition& partition = partitions_.emplace_back();
    partition.device = devices[i];
    partition.graph = std::make_unique<Graph>(graph_.registry());
    *partition.graph->mutable_versions() = graph_.versions();
    if (has_library) *partition.graph->mutable_library() = graph_.library();
    absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(devices[i]);
    device_types_.push_back(spec.ok() ? spec->type().value_or("") : "");
  }
  device_of_.assign(graph_.num_node_ids(), -1);
  for (const Node* n : nodes) {
    device_of_[n->id()] = device_index_[n->assigned_device()];
  }
  if (absl::Status s = MixedRecvs(); !s.ok()) return s;
  if (GraphHasLoops(graph_) && devices.size() > 1) {
    absl::StatusOr<ControlFlowFrames> frames = ControlFlowFrames::Build(graph_);
    if (!frames.ok()) return frames.status();
    frames_.emplace(*std::move(frames));
  }

  // Every node first (an input may come later in id order), then the edges
  // with the transfers and copies they need.
  copy_of_.assign(graph_.num_node_ids(), nullptr);
  for (const Node* n : nodes) {
    const int dst = device_of_[n->id()];
    absl::StatusOr<Node*> copy = graph_of(dst).AddNodeCopy(*n);
    if (!copy.ok()) return copy.status();
    (*copy)->set_requested_device(partitions_[dst].device);
    copy_of_[n->id()] = *copy;
  }
  for (const Node* n : nodes) {
    const int dst = device_of_[n->id()];
    Node* copy = copy_of_[n->id()];
    // Sources this node reads data from across devices: their control
    // edges to it need no transfer of their own.
    absl::flat_hash_set<int> data_from;
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Edge* e = n->input_edge(i);
      if (e == nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat(NodeLabel(n->def()), ": input ", i,
                         " is not connected; partitioning needs a complete "
                         "graph"));
      }
      const int src = device_of_[e->src->id()];
      absl::StatusOr<Endpoint> input;
      if (src == dst) {
        input = LocalInput(*e, dst);
      } else {
        if (IsRefType(n->input_type(i))) {
          return absl::InvalidArgumentError(absl::StrCat(
              NodeLabel(n->def()), " on ", n->assigned_device(),
              " uses output ", e->src_output, " of ", NodeLabel(e->src->def()),
              " on ", e->src->assigned_device(), " as a reference (input ", i,
              "); a reference cannot cross devices: colocate the two nodes "
              "(the placer does this for reference edges)"));
        }
        data_from.insert(e->src->id());
        absl::StatusOr<Node*> recv = DataRecv(e->src, e->src_output, dst);
        if (!recv.ok()) return recv.status();
        input = RecvInput(*e, dst, *recv);
      }
      if (!input.ok()) return input.status();
      if (absl::Status s = Connect(*input, copy, i); !s.ok()) return s;
    }
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControl()) continue;
      const int src = device_of_[e->src->id()];
      if (src == dst) {
        graph_of(dst).AddControlEdge(copy_of_[e->src->id()], copy);
      } else if (!data_from.contains(e->src->id())) {
        absl::StatusOr<Node*> recv = ControlRecv(e->src, dst);
        if (!recv.ok()) return recv.status();
        graph_of(dst).AddControlEdge(*recv, copy);
      }
    }
  }
  for (auto& [copy, readers] : copy_readers_) {
    copy->SetAttr("_dst", MakeAttr(readers));
  }
  if (stats != nullptr) *stats = stats_;
  return std::move(partitions_);
}

}  // namespace

absl::StatusOr<std::vector<DevicePartition>> PartitionIntoGraphs(
    const Graph& graph, const PartitionOptions& options,
    PartitionStats* stats) {
  return Partitioner(graph, options).Run(stats);
}

absl::StatusOr<std::vector<GraphPartition>> PartitionGraph(
    const Graph& graph, const PartitionOptions& options,
    PartitionStats* stats) {
  absl::StatusOr<std::vector<DevicePartition>> partitions =
      PartitionIntoGraphs(graph, options, stats);
  if (!partitions.ok()) return partitions.status();
  std::vector<GraphPartition> defs;
  for (const DevicePartition& partition : *partitions) {
    GraphPartition& def = defs.emplace_back();
    def.device = partition.device;
    partition.graph->ToGraphDef(&def.graph);
  }
  return defs;
}

}  // namespace dflow
