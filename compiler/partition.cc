#include "compiler/partition.h"

#include <algorithm>
#include <cstdint>
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
#include "graph/attr_value_util.h"
#include "graph/device_spec.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
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

absl::Status RecvShape(InferenceContext* c) {
  TensorShape shape;
  if (absl::Status s = c->GetAttr("shape", &shape); !s.ok()) return s;
  c->set_output(0, shape);
  return absl::OkStatus();
}

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
    .SetShapeFn(RecvShape)
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

std::string InputName(const std::string& node, int output) {
  return output == 0 ? node : absl::StrCat(node, ":", output);
}

class Partitioner {
 public:
  Partitioner(const Graph& graph, const PartitionOptions& options)
      : graph_(graph), options_(options) {
    if (options.kernels != nullptr) memory_.emplace(*options.kernels);
  }

  absl::StatusOr<std::vector<GraphPartition>> Run(PartitionStats* stats);

 private:
  // The _Recv on device `dst` of `src:output`, made (with its _Send) on
  // first use.
  std::string DataRecv(const Node* src, int output, int dst);
  // The _Recv on device `dst` that fires after `src` ran.
  std::string ControlRecv(const Node* src, int dst);
  // Adds a _Send/_Recv pair moving `input` (of base type `type`, named
  // `tensor_name`) from device `src` to `dst`; returns the _Recv's name.
  // `shape`: what the sender's side inferred (unknown rank: nothing).
  std::string AddTransfer(const std::string& input,
                          const std::string& tensor_name, DataType type,
                          const TensorShape& shape, const std::string& id,
                          int src, int dst);
  // The input string for data edge `e` inside device `device`: its source,
  // or the host<->device copy of it the edge needs.
  absl::StatusOr<std::string> LocalInput(const Edge& e, int device);
  // The input string for cross-device data edge `e` into device `dst`
  // whose _Recv is `recv`: the _Recv, or, when the edge's consumer reads
  // host memory while other consumers of that _Recv read device memory,
  // a _DeviceToHost of it (see MixedRecvs).
  absl::StatusOr<std::string> RecvInput(const Edge& e, int dst,
                                        const std::string& recv);
  // Finds the values a _Recv will bring to a device with memory of its
  // own for consumers some of which read host memory and some device
  // memory. Such a _Recv delivers device memory (the GPU _Recv hands over
  // host memory only when every consumer reads it there), so its host
  // readers need a copy.
  absl::Status MixedRecvs();
  // `base`, or base_1, base_2, ... : a name no node has.
  std::string UniqueName(const std::string& base);
  NodeDef* AddNode(int device) { return partitions_[device].graph.add_node(); }

  const Graph& graph_;
  const PartitionOptions& options_;
  std::vector<GraphPartition> partitions_;
  std::vector<std::string> tags_;
  absl::flat_hash_map<std::string, int> device_index_;
  std::vector<int> device_of_;  // by node id
  absl::flat_hash_set<std::string> names_;
  // (src id, output, dst device) -> _Recv name; output -1: control.
  absl::flat_hash_map<std::tuple<int, int, int>, std::string> recvs_;
  absl::flat_hash_map<int, std::string> dummies_;  // src id -> Const name
  // Set when options_.kernels is; device types by device index.
  std::optional<MemoryCopyAnalysis> memory_;
  std::vector<std::string> device_types_;
  // (src id, output, direction) -> the copy node (pointers into the
  // partitions' repeated fields stay valid as nodes are added).
  absl::flat_hash_map<std::tuple<int, int, MemoryCopy>, NodeDef*> copies_;
  // (src id, output, dst device) of the values whose _Recv on dst has both
  // host-memory and device-memory readers (MixedRecvs), and the
  // _DeviceToHost made for the host readers of each.
  absl::flat_hash_set<std::tuple<int, int, int>> mixed_recvs_;
  absl::flat_hash_map<std::tuple<int, int, int>, NodeDef*> recv_copies_;
  PartitionStats stats_;
};

std::string Partitioner::UniqueName(const std::string& base) {
  std::string name = base;
  for (int i = 1; names_.contains(name); ++i) name = absl::StrCat(base, "_", i);
  names_.insert(name);
  return name;
}

std::string Partitioner::AddTransfer(const std::string& input,
                                     const std::string& tensor_name,
                                     DataType type, const TensorShape& shape,
                                     const std::string& id, int src,
                                     int dst) {
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
  NodeDef* send = AddNode(src);
  send->set_name(UniqueName(absl::StrCat("_send_", id)));
  send->set_op(kSendOp);
  send->set_device(send_device);
  send->add_input(input);
  (*send->mutable_attr())["T"] = MakeAttr(type);
  set_common(send);

  NodeDef* recv = AddNode(dst);
  recv->set_name(UniqueName(absl::StrCat("_recv_", id)));
  recv->set_op(kRecvOp);
  recv->set_device(recv_device);
  (*recv->mutable_attr())["tensor_type"] = MakeAttr(type);
  set_common(recv);
  if (!shape.unknown_rank()) (*recv->mutable_attr())["shape"] = MakeAttr(shape);
  ++stats_.sends;
  ++stats_.recvs;
  return recv->name();
}

absl::StatusOr<std::string> Partitioner::LocalInput(const Edge& e, int device) {
  std::string source = InputName(e.src->name(), e.src_output);
  if (!memory_.has_value()) return source;
  absl::StatusOr<MemoryCopy> copy = memory_->CopyFor(e, device_types_[device]);
  if (!copy.ok()) return copy.status();
  if (*copy == MemoryCopy::kNone) return source;
  const bool to_device = *copy == MemoryCopy::kHostToDevice;
  auto [it, inserted] =
      copies_.try_emplace({e.src->id(), e.src_output, *copy}, nullptr);
  if (inserted) {
    NodeDef* def = AddNode(device);
    def->set_name(UniqueName(
        absl::StrCat(to_device ? "_host_to_device_" : "_device_to_host_",
                     e.src->name(), "_", e.src_output)));
    def->set_op(to_device ? kHostToDeviceOp : kDeviceToHostOp);
    def->set_device(partitions_[device].device);
    def->add_input(source);
    auto& attr = *def->mutable_attr();
    // A reference read as a value is copied as the value.
    attr["T"] = MakeAttr(BaseType(e.src->output_type(e.src_output)));
    attr["_src"] = MakeAttr(TensorName(e.src, e.src_output));
    attr["_dst"].mutable_list();  // filled below, one per reading input
    ++(to_device ? stats_.host_to_device : stats_.device_to_host);
    it->second = def;
  }
  it->second->mutable_attr()->at("_dst").mutable_list()->add_s(
      absl::StrCat(e.dst->name(), ":", e.dst_input));
  return it->second->name();
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
      absl::StatusOr<bool> host = memory_->ReadsHostMemory(*e, device_types_[dst]);
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

absl::StatusOr<std::string> Partitioner::RecvInput(const Edge& e, int dst,
                                                   const std::string& recv) {
  const std::tuple<int, int, int> key{e.src->id(), e.src_output, dst};
  if (!mixed_recvs_.contains(key)) return recv;
  absl::StatusOr<bool> host = memory_->ReadsHostMemory(e, device_types_[dst]);
  if (!host.ok()) return host.status();
  if (!*host) return recv;
  auto [it, inserted] = recv_copies_.try_emplace(key, nullptr);
  if (inserted) {
    NodeDef* def = AddNode(dst);
    def->set_name(UniqueName(absl::StrCat("_device_to_host_", e.src->name(),
                                          "_", e.src_output)));
    def->set_op(kDeviceToHostOp);
    def->set_device(partitions_[dst].device);
    def->add_input(recv);
    auto& attr = *def->mutable_attr();
    attr["T"] = MakeAttr(BaseType(e.src->output_type(e.src_output)));
    // The value copied (through the _Recv, its input).
    attr["_src"] = MakeAttr(TensorName(e.src, e.src_output));
    attr["_dst"].mutable_list();
    ++stats_.device_to_host;
    it->second = def;
  }
  it->second->mutable_attr()->at("_dst").mutable_list()->add_s(
      absl::StrCat(e.dst->name(), ":", e.dst_input));
  return it->second->name();
}

std::string Partitioner::DataRecv(const Node* src, int output, int dst) {
  auto [it, inserted] = recvs_.try_emplace({src->id(), output, dst});
  if (!inserted) return it->second;
  // A reference read as a value travels as the value (the _Send's input
  // reads the variable like any value consumer would).
  it->second =
      AddTransfer(InputName(src->name(), output), TensorName(src, output),
                  BaseType(src->output_type(output)),
                  output < static_cast<int>(src->output_shapes().size())
                      ? src->output_shape(output)
                      : TensorShape::Unknown(),
                  absl::StrCat(src->name(), "_", output, "_to_", tags_[dst]),
                  device_of_[src->id()], dst);
  return it->second;
}

std::string Partitioner::ControlRecv(const Node* src, int dst) {
  auto [it, inserted] = recvs_.try_emplace({src->id(), -1, dst});
  if (!inserted) return it->second;
  const int src_device = device_of_[src->id()];
  auto [dummy, new_dummy] = dummies_.try_emplace(src->id());
  if (new_dummy) {
    // A scalar that exists once `src` ran: what crosses is the fact that
    // it ran. (A Const's name must not start with '_', hence the scope.)
    NodeDef* def = AddNode(src_device);
    def->set_name(UniqueName(absl::StrCat("ctrl_dummy/", src->name())));
    def->set_op("Const");
    def->set_device(partitions_[src_device].device);
    def->add_input(absl::StrCat("^", src->name()));
    (*def->mutable_attr())["dtype"] = MakeAttr(DT_FLOAT);
    (*def->mutable_attr())["value"] = MakeAttr(Tensor::Scalar(0.0f));
    dummy->second = def->name();
  }
  it->second = AddTransfer(
      dummy->second, absl::StrCat(dummy->second, ":0"), DT_FLOAT,
      TensorShape(), absl::StrCat(src->name(), "_ctrl_to_", tags_[dst]), src_device, dst);
  ++stats_.control_transfers;
  return it->second;
}

absl::StatusOr<std::vector<GraphPartition>> Partitioner::Run(
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
  GraphDef empty;
  *empty.mutable_versions() = graph_.versions();
  if (graph_.library().function_size() || graph_.library().gradient_size() ||
      graph_.library().registered_gradients_size()) {
    *empty.mutable_library() = graph_.library();
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    device_index_[devices[i]] = static_cast<int>(i);
    partitions_.push_back({devices[i], empty});
    absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(devices[i]);
    device_types_.push_back(spec.ok() ? spec->type().value_or("") : "");
  }
  device_of_.assign(graph_.num_node_ids(), -1);
  for (const Node* n : nodes) {
    device_of_[n->id()] = device_index_[n->assigned_device()];
  }
  if (absl::Status s = MixedRecvs(); !s.ok()) return s;

  for (const Node* n : nodes) {
    const int dst = device_of_[n->id()];
    // Stays valid while transfers add nodes: a repeated message field
    // holds its elements by pointer.
    NodeDef* def = AddNode(dst);
    *def = n->def();
    def->clear_input();
    def->set_device(partitions_[dst].device);
    std::vector<const Edge*> data(n->num_inputs(), nullptr);
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControl()) data[e->dst_input] = e;
    }
    // Sources this node reads data from across devices: their control
    // edges to it need no transfer of their own.
    absl::flat_hash_set<int> data_from;
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Edge* e = data[i];
      if (e == nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat(NodeLabel(n->def()), ": input ", i,
                         " is not connected; partitioning needs a complete "
                         "graph"));
      }
      const int src = device_of_[e->src->id()];
      if (src == dst) {
        absl::StatusOr<std::string> input = LocalInput(*e, dst);
        if (!input.ok()) return input.status();
        def->add_input(*std::move(input));
        continue;
      }
      if (IsRefType(n->input_type(i))) {
        return absl::InvalidArgumentError(absl::StrCat(
            NodeLabel(n->def()), " on ", n->assigned_device(), " uses output ",
            e->src_output, " of ", NodeLabel(e->src->def()), " on ",
            e->src->assigned_device(), " as a reference (input ", i,
            "); a reference cannot cross devices: colocate the two nodes "
            "(the placer does this for reference edges)"));
      }
      data_from.insert(e->src->id());
      absl::StatusOr<std::string> input =
          RecvInput(*e, dst, DataRecv(e->src, e->src_output, dst));
      if (!input.ok()) return input.status();
      def->add_input(*std::move(input));
    }
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControl()) continue;
      const int src = device_of_[e->src->id()];
      if (src == dst) {
        def->add_input(absl::StrCat("^", e->src->name()));
      } else if (!data_from.contains(e->src->id())) {
        def->add_input(absl::StrCat("^", ControlRecv(e->src, dst)));
      }
    }
  }
  if (stats != nullptr) *stats = stats_;
  return std::move(partitions_);
}

}  // namespace

absl::StatusOr<std::vector<GraphPartition>> PartitionGraph(
    const Graph& graph, const PartitionOptions& options,
    PartitionStats* stats) {
  return Partitioner(graph, options).Run(stats);
}

}  // namespace dflow
