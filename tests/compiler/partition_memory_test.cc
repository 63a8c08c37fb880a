// Tests for the host<->device copies the partition pass inserts inside one
// device (compiler/partition.h, compiler/partition_memory.h): which edges get
// one and in which direction, one copy per (tensor, direction), list
// arguments mapped to the right flat indices, nothing on CPUs, nothing
// without a KernelQuery, nothing for references, strings or cross-device
// edges, a _DeviceToHost for the host readers of a _Recv whose other
// readers want device memory, and the counts in PartitionStats.

#include "compiler/partition_memory.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/partition.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "graph/graph_def_import.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "tests/compiler/fake_kernel_query.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

std::string Cpu(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i);
}
std::string Gpu(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:GPU:", i);
}

// Every node on `devices[name]`, else on `fallback`.
void Place(const Scope& root, const std::string& fallback,
           const std::map<std::string, std::string>& devices = {}) {
  ASSERT_TRUE(root.ok()) << root.status();
  for (Node* n : root.graph()->nodes()) {
    auto it = devices.find(n->name());
    n->set_assigned_device(it == devices.end() ? fallback : it->second);
  }
}

std::vector<GraphPartition> Partition(const Graph& graph,
                                      const KernelQuery* kernels,
                                      PartitionStats* stats = nullptr) {
  PartitionOptions options;
  options.kernels = kernels;
  absl::StatusOr<std::vector<GraphPartition>> parts =
      PartitionGraph(graph, options, stats);
  EXPECT_TRUE(parts.ok()) << parts.status();
  return parts.ok() ? *std::move(parts) : std::vector<GraphPartition>{};
}

const GraphDef* GraphOf(const std::vector<GraphPartition>& parts,
                        const std::string& device) {
  for (const GraphPartition& p : parts) {
    if (p.device == device) return &p.graph;
  }
  return nullptr;
}

const NodeDef* FindNode(const GraphDef* def, const std::string& name) {
  if (def == nullptr) return nullptr;
  for (const NodeDef& n : def->node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

std::vector<std::string> Inputs(const NodeDef* n) {
  if (n == nullptr) return {"<no node>"};
  return {n->input().begin(), n->input().end()};
}

// The names of the nodes of `op` in every partition.
std::vector<std::string> NodesOf(const std::vector<GraphPartition>& parts,
                                 const std::string& op) {
  std::vector<std::string> out;
  for (const GraphPartition& p : parts) {
    for (const NodeDef& n : p.graph.node()) {
      if (n.op() == op) out.push_back(n.name());
    }
  }
  return out;
}

std::vector<std::string> Dsts(const NodeDef* n) {
  if (n == nullptr || !n->attr().contains("_dst")) return {"<none>"};
  const auto& list = n->attr().at("_dst").list().s();
  return {list.begin(), list.end()};
}

// Protobuf's map fields serialize in hash order unless asked otherwise.
std::string Deterministic(const GraphDef& def) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    def.SerializeToCodedStream(&coded);
  }
  return out;
}

void ExpectImports(const std::vector<GraphPartition>& parts) {
  for (const GraphPartition& p : parts) {
    Graph g;
    absl::Status s = ImportGraphDef(p.graph, ImportOptions(), &g);
    ASSERT_TRUE(s.ok()) << p.device << ": " << s;
    EXPECT_TRUE(g.TopologicalOrder().ok()) << p.device;
  }
}

// The GPU keeps Shape's output and Reshape's `shape` on the host, as
// kernels/gpu/kernel_defs_shape.cc does.
FakeKernelQuery ShapeKernels() {
  FakeKernelQuery kernels;
  kernels.HostMemory("Shape", "GPU", {"output"})
      .HostMemory("Reshape", "GPU", {"shape"});
  return kernels;
}

TEST(PartitionMemoryTest, HostOutputIntoDeviceInputIsCopiedToTheDevice) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f});
  Output shape = ops::Shape(root.WithOpName("shape"), x);
  ops::Cast(root.WithOpName("cast"), shape, DT_FLOAT);
  Place(root, Gpu(0));
  FakeKernelQuery kernels = ShapeKernels();
  PartitionStats stats;
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), &kernels, &stats);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(stats.host_to_device, 1);
  EXPECT_EQ(stats.device_to_host, 0);
  EXPECT_EQ(stats.sends, 0);
  const GraphDef* gpu = GraphOf(parts, Gpu(0));
  const NodeDef* copy = FindNode(gpu, "_host_to_device_shape_0");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->op(), kHostToDeviceOp);
  EXPECT_EQ(copy->device(), Gpu(0));
  EXPECT_EQ(copy->attr().at("T").type(), DT_INT32);
  EXPECT_EQ(copy->attr().at("_src").s(), "shape:0");
  EXPECT_THAT(Dsts(copy), ElementsAre("cast:0"));
  EXPECT_THAT(Inputs(copy), ElementsAre("shape"));
  EXPECT_THAT(Inputs(FindNode(gpu, "cast")),
              ElementsAre("_host_to_device_shape_0"));
  // Shape reads x's buffer only for its shape: the edge into it is as the
  // kernels declare, device memory on both ends.
  EXPECT_THAT(Inputs(FindNode(gpu, "shape")), ElementsAre("x"));
  EXPECT_THAT(NodesOf(parts, kDeviceToHostOp), IsEmpty());
  ExpectImports(parts);
}

TEST(PartitionMemoryTest, DeviceOutputIntoHostInputIsCopiedToTheHost) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f, 3.0f, 4.0f});
  Output dims = ops::Const(root.WithOpName("dims"), {2, 2});
  Output neg = ops::Neg(root.WithOpName("neg"), dims);
  ops::Reshape(root.WithOpName("reshape"), x, neg);
  Place(root, Gpu(0));
  FakeKernelQuery kernels = ShapeKernels();
  PartitionStats stats;
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), &kernels, &stats);
  EXPECT_EQ(stats.host_to_device, 0);
  EXPECT_EQ(stats.device_to_host, 1);
  const GraphDef* gpu = GraphOf(parts, Gpu(0));
  const NodeDef* copy = FindNode(gpu, "_device_to_host_neg_0");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->op(), kDeviceToHostOp);
  EXPECT_EQ(copy->attr().at("_src").s(), "neg:0");
  EXPECT_THAT(Dsts(copy), ElementsAre("reshape:1"));
  // Only the `shape` input is copied; `tensor` stays in device memory.
  EXPECT_THAT(Inputs(FindNode(gpu, "reshape")),
              ElementsAre("x", "_device_to_host_neg_0"));
  ExpectImports(parts);
}

TEST(PartitionMemoryTest, OneCopyPerTensorAndDirectionForAllConsumers) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f});
  Output shape = ops::Shape(root.WithOpName("shape"), x);
  ops::Cast(root.WithOpName("a"), shape, DT_FLOAT);
  ops::Cast(root.WithOpName("b"), shape, DT_DOUBLE);
  ops::Add(root.WithOpName("c"), shape, shape);
  // A host consumer of the same tensor reads it directly.
  ops::Reshape(root.WithOpName("r"), x, shape);
  Place(root, Gpu(0));
  FakeKernelQuery kernels = ShapeKernels();
  PartitionStats stats;
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), &kernels, &stats);
  EXPECT_EQ(stats.host_to_device, 1);
  EXPECT_EQ(stats.device_to_host, 0);
  EXPECT_THAT(NodesOf(parts, kHostToDeviceOp),
              ElementsAre("_host_to_device_shape_0"));
  const GraphDef* gpu = GraphOf(parts, Gpu(0));
  const std::string copy = "_host_to_device_shape_0";
  EXPECT_THAT(Inputs(FindNode(gpu, "a")), ElementsAre(copy));
  EXPECT_THAT(Inputs(FindNode(gpu, "b")), ElementsAre(copy));
  EXPECT_THAT(Inputs(FindNode(gpu, "c")), ElementsAre(copy, copy));
  EXPECT_THAT(Inputs(FindNode(gpu, "r")), ElementsAre("x", "shape"));
  EXPECT_THAT(Dsts(FindNode(gpu, copy)),
              UnorderedElementsAre("a:0", "b:0", "c:0", "c:1"));
  ExpectImports(parts);
}

TEST(PartitionMemoryTest, EveryDeviceGetsItsOwnCopies) {
  // The same program on two GPUs: each has its own copy, named apart.
  Scope root = Scope::NewRootScope();
  for (int i = 0; i < 2; ++i) {
    Scope tower = root.NewSubScope(absl::StrCat("tower_", i));
    Output x = ops::Const(tower.WithOpName("x"), {1.0f, 2.0f});
    ops::Cast(tower.WithOpName("cast"), ops::Shape(tower.WithOpName("s"), x),
              DT_FLOAT);
  }
  std::map<std::string, std::string> devices;
  for (const char* n : {"x", "s", "cast"}) {
    devices[absl::StrCat("tower_1/", n)] = Gpu(1);
  }
  Place(root, Gpu(0), devices);
  FakeKernelQuery kernels = ShapeKernels();
  PartitionStats stats;
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), &kernels, &stats);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(stats.host_to_device, 2);
  EXPECT_EQ(stats.sends, 0);
  EXPECT_NE(FindNode(GraphOf(parts, Gpu(0)), "_host_to_device_tower_0/s_0"),
            nullptr);
  EXPECT_NE(FindNode(GraphOf(parts, Gpu(1)), "_host_to_device_tower_1/s_0"),
            nullptr);
  ExpectImports(parts);
}

TEST(PartitionMemoryTest, NoCopiesOnCpuDevices) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f});
  Output shape = ops::Shape(root.WithOpName("shape"), x);
  ops::Cast(root.WithOpName("cast"), shape, DT_FLOAT);
  Place(root, Cpu(0));
  // Even a KernelQuery declaring host memory on "CPU" gets no copies: CPU
  // memory is host memory.
  FakeKernelQuery kernels = ShapeKernels();
  kernels.HostMemory("Shape", "CPU", {"output"});
  PartitionStats stats;
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), &kernels, &stats);
  EXPECT_EQ(stats.host_to_device + stats.device_to_host, 0);
  EXPECT_THAT(Inputs(FindNode(GraphOf(parts, Cpu(0)), "cast")),
              ElementsAre("shape"));
  EXPECT_FALSE(HasOwnMemory("CPU"));
  EXPECT_TRUE(HasOwnMemory("GPU"));
  EXPECT_FALSE(HasOwnMemory(""));
}

TEST(PartitionMemoryTest, NoCopiesWithoutKernelQuery) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f});
  Output shape = ops::Shape(root.WithOpName("shape"), x);
  ops::Cast(root.WithOpName("cast"), shape, DT_FLOAT);
  Place(root, Gpu(0));
  PartitionStats stats;
  stats.host_to_device = 5;  // overwritten
  std::vector<GraphPartition> parts = Partition(*root.graph(), nullptr, &stats);
  EXPECT_EQ(stats.host_to_device, 0);
  EXPECT_EQ(stats.device_to_host, 0);
  EXPECT_THAT(NodesOf(parts, kHostToDeviceOp), IsEmpty());
  EXPECT_THAT(Inputs(FindNode(GraphOf(parts, Gpu(0)), "cast")),
              ElementsAre("shape"));
}

TEST(PartitionMemoryTest, CrossDeviceEdgesGetTransfersOnly) {
  // shape (GPU:0, host memory) -> cast on GPU:1 and on CPU:0: the transfer
  // moves the value (the GPU transfer stages host values itself).
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f});
  Output shape = ops::Shape(root.WithOpName("shape"), x);
  ops::Cast(root.WithOpName("on_gpu1"), shape, DT_FLOAT);
  ops::Cast(root.WithOpName("on_cpu"), shape, DT_FLOAT);
  Place(root, Gpu(0), {{"on_gpu1", Gpu(1)}, {"on_cpu", Cpu(0)}});
  FakeKernelQuery kernels = ShapeKernels();
  PartitionStats stats;
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), &kernels, &stats);
  EXPECT_EQ(stats.sends, 2);
  EXPECT_EQ(stats.host_to_device + stats.device_to_host, 0);
  EXPECT_THAT(Inputs(FindNode(GraphOf(parts, Gpu(1)), "on_gpu1")),
              ElementsAre("_recv_shape_0_to_GPU_1"));
  ExpectImports(parts);
}

TEST(PartitionMemoryTest, MixedConsumersOfARecvGetADeviceToHostCopy) {
  // dims (CPU:0) -> Reshape's `shape` (host memory) and Cast (device
  // memory), both on GPU:0: the _Recv delivers device memory (not every
  // consumer reads host memory), so the host reader gets a _DeviceToHost
  // of it; the device reader reads the _Recv.
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f, 3.0f, 4.0f});
  Output dims = ops::Const(root.WithOpName("dims"), {2, 2});
  Output neg = ops::Neg(root.WithOpName("neg"), dims);
  ops::Reshape(root.WithOpName("reshape"), x, neg);
  ops::Reshape(root.WithOpName("reshape2"), x, neg);
  ops::Cast(root.WithOpName("cast"), neg, DT_FLOAT);
  Place(root, Gpu(0), {{"dims", Cpu(0)}, {"neg", Cpu(0)}});
  FakeKernelQuery kernels = ShapeKernels();
  PartitionStats stats;
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), &kernels, &stats);
  EXPECT_EQ(stats.sends, 1);
  EXPECT_EQ(stats.recvs, 1);
  EXPECT_EQ(stats.device_to_host, 1);
  EXPECT_EQ(stats.host_to_device, 0);
  const GraphDef* gpu = GraphOf(parts, Gpu(0));
  const std::string recv = "_recv_neg_0_to_GPU_0";
  const NodeDef* copy = FindNode(gpu, "_device_to_host_neg_0");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->op(), kDeviceToHostOp);
  EXPECT_EQ(copy->device(), Gpu(0));
  EXPECT_EQ(copy->attr().at("T").type(), DT_INT32);
  EXPECT_EQ(copy->attr().at("_src").s(), "neg:0");
  EXPECT_THAT(Inputs(copy), ElementsAre(recv));
  EXPECT_THAT(Dsts(copy), UnorderedElementsAre("reshape:1", "reshape2:1"));
  EXPECT_THAT(Inputs(FindNode(gpu, "reshape")),
              ElementsAre("x", "_device_to_host_neg_0"));
  EXPECT_THAT(Inputs(FindNode(gpu, "reshape2")),
              ElementsAre("x", "_device_to_host_neg_0"));
  EXPECT_THAT(Inputs(FindNode(gpu, "cast")), ElementsAre(recv));
  ExpectImports(parts);
}

TEST(PartitionMemoryTest, RecvWhoseConsumersAllReadHostMemoryIsNotCopied) {
  // Every consumer on GPU:0 reads host memory: the _Recv hands the value
  // over there itself, so no copy.
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f, 3.0f, 4.0f});
  Output dims = ops::Const(root.WithOpName("dims"), {2, 2});
  ops::Reshape(root.WithOpName("reshape"), x, dims);
  ops::Reshape(root.WithOpName("reshape2"), x, dims);
  Place(root, Gpu(0), {{"dims", Cpu(0)}});
  FakeKernelQuery kernels = ShapeKernels();
  PartitionStats stats;
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), &kernels, &stats);
  EXPECT_EQ(stats.recvs, 1);
  EXPECT_EQ(stats.host_to_device + stats.device_to_host, 0);
  EXPECT_THAT(Inputs(FindNode(GraphOf(parts, Gpu(0)), "reshape")),
              ElementsAre("x", "_recv_dims_0_to_GPU_0"));
  ExpectImports(parts);
}

TEST(PartitionMemoryTest, MixedConsumersOnACpuAreNotCopied) {
  // On a CPU all memory is host memory: no copy whatever the kernels say.
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f, 3.0f, 4.0f});
  Output dims = ops::Const(root.WithOpName("dims"), {2, 2});
  ops::Reshape(root.WithOpName("reshape"), x, dims);
  ops::Cast(root.WithOpName("cast"), dims, DT_FLOAT);
  Place(root, Cpu(0), {{"dims", Gpu(0)}});
  FakeKernelQuery kernels = ShapeKernels();
  kernels.HostMemory("Reshape", "CPU", {"shape"});
  PartitionStats stats;
  Partition(*root.graph(), &kernels, &stats);
  EXPECT_EQ(stats.recvs, 1);
  EXPECT_EQ(stats.host_to_device + stats.device_to_host, 0);
}

TEST(PartitionMemoryTest, ListArgumentsMapToTheirFlatIndices) {
  // ConcatV2(values: N tensors, axis): only `axis` (flat input N) is on the
  // host. IdentityN's outputs (a type list) are all on the host.
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), {1.0f});
  Output b = ops::Const(root.WithOpName("b"), {3.0f});
  Output c = ops::Const(root.WithOpName("c"), {4.0f});
  Output axis = ops::Neg(root.WithOpName("axis"), ops::Const(root, 0));
  ops::ConcatV2(root.WithOpName("concat"), {a, b, c}, axis);
  OutputList n = ops::IdentityN(root.WithOpName("n"), {a, b});
  ASSERT_EQ(n.size(), 2u);
  ops::AddN(root.WithOpName("sum"), {n[1], c, n[0]});
  Place(root, Gpu(0));
  FakeKernelQuery kernels;
  kernels.HostMemory("ConcatV2", "GPU", {"axis"})
      .HostMemory("IdentityN", "GPU", {"output"});
  PartitionStats stats;
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), &kernels, &stats);
  const GraphDef* gpu = GraphOf(parts, Gpu(0));
  EXPECT_THAT(Inputs(FindNode(gpu, "concat")),
              ElementsAre("a", "b", "c", "_device_to_host_axis_0"));
  EXPECT_THAT(Inputs(FindNode(gpu, "sum")),
              ElementsAre("_host_to_device_n_1", "c", "_host_to_device_n_0"));
  EXPECT_EQ(stats.device_to_host, 1);
  EXPECT_EQ(stats.host_to_device, 2);
  EXPECT_EQ(FindNode(gpu, "_host_to_device_n_1")->attr().at("_src").s(), "n:1");
  EXPECT_THAT(Dsts(FindNode(gpu, "_host_to_device_n_0")), ElementsAre("sum:2"));
  ExpectImports(parts);

  // The same through the analysis itself: the host-memory map.
  absl::StatusOr<HostMemoryMap> concat =
      HostMemoryOf(*root.graph()->FindNode("concat"), kernels, "GPU");
  ASSERT_TRUE(concat.ok()) << concat.status();
  EXPECT_THAT(concat->inputs, ElementsAre(false, false, false, true));
  EXPECT_THAT(concat->outputs, ElementsAre(false));
  absl::StatusOr<HostMemoryMap> identity_n =
      HostMemoryOf(*root.graph()->FindNode("n"), kernels, "GPU");
  ASSERT_TRUE(identity_n.ok()) << identity_n.status();
  EXPECT_THAT(identity_n->inputs, ElementsAre(false, false));
  EXPECT_THAT(identity_n->outputs, ElementsAre(true, true));
}

TEST(PartitionMemoryTest, ReferencesAndHostOnlyTypes) {
  Scope root = Scope::NewRootScope();
  // A reference consumed as a reference is used in place: no copy, even
  // when the two ends disagree.
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  ops::Assign(root.WithOpName("init"), v,
              ops::Const(root.WithOpName("init_value"), {1.0f, 2.0f}));
  // Read as a value, it is copied as the value (of the base type).
  ops::Identity(root.WithOpName("read"), v);
  // Strings live in host memory on every device.
  ops::Identity(root.WithOpName("text"),
                ops::Const(root.WithOpName("hello"), "hello"));
  Place(root, Gpu(0));
  FakeKernelQuery kernels;
  kernels.HostMemory("VariableV2", "GPU", {"ref"})
      .HostMemory("Identity", "GPU", {"input"});
  PartitionStats stats;
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), &kernels, &stats);
  const GraphDef* gpu = GraphOf(parts, Gpu(0));
  EXPECT_THAT(Inputs(FindNode(gpu, "init")), ElementsAre("v", "init_value"));
  EXPECT_THAT(Inputs(FindNode(gpu, "read")), ElementsAre("v"));
  EXPECT_THAT(Inputs(FindNode(gpu, "text")), ElementsAre("hello"));
  EXPECT_EQ(stats.host_to_device + stats.device_to_host, 0);

  // Identity's input on the host, the variable in device memory: the value
  // goes through a _DeviceToHost of type float (not float_ref).
  FakeKernelQuery device_variable;
  device_variable.HostMemory("Identity", "GPU", {"input"});
  parts = Partition(*root.graph(), &device_variable, &stats);
  gpu = GraphOf(parts, Gpu(0));
  EXPECT_EQ(stats.device_to_host, 1);
  EXPECT_THAT(Inputs(FindNode(gpu, "read")),
              ElementsAre("_device_to_host_v_0"));
  EXPECT_EQ(FindNode(gpu, "_device_to_host_v_0")->attr().at("T").type(),
            DT_FLOAT);
  EXPECT_THAT(Inputs(FindNode(gpu, "init")), ElementsAre("v", "init_value"));
  EXPECT_THAT(Inputs(FindNode(gpu, "text")), ElementsAre("hello"));
  ExpectImports(parts);
}

TEST(PartitionMemoryTest, ControlEdgesAreNotCopied) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f});
  Output shape = ops::Shape(root.WithOpName("shape"), x);
  ops::Neg(root.WithOpName("neg").WithControlDependencies(shape), x);
  Place(root, Gpu(0));
  FakeKernelQuery kernels = ShapeKernels();
  PartitionStats stats;
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), &kernels, &stats);
  EXPECT_THAT(Inputs(FindNode(GraphOf(parts, Gpu(0)), "neg")),
              ElementsAre("x", "^shape"));
  EXPECT_EQ(stats.host_to_device + stats.device_to_host, 0);
}

TEST(PartitionMemoryTest, OutputIsDeterministic) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), {1.0f, 2.0f});
  OutputList n = ops::IdentityN(root.WithOpName("n"), {x, x});
  for (int i = 0; i < 8; ++i) {
    ops::Neg(root.WithOpName(absl::StrCat("u", i)), n[i % 2]);
  }
  Place(root, Gpu(0));
  FakeKernelQuery kernels;
  kernels.HostMemory("IdentityN", "GPU", {"output"});
  std::vector<GraphPartition> first = Partition(*root.graph(), &kernels);
  std::vector<GraphPartition> second = Partition(*root.graph(), &kernels);
  EXPECT_THAT(
      NodesOf(first, kHostToDeviceOp),
      UnorderedElementsAre("_host_to_device_n_0", "_host_to_device_n_1"));
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(Deterministic(first[0].graph), Deterministic(second[0].graph));
  ExpectImports(first);
}

}  // namespace
}  // namespace dflow
