// The host<->device copies of partitioning (compiler/partition.h) against
// the real kernel definitions: a graph on a (fake) GPU where the GPU kernels
// really disagree on memory types (Shape's int32 output in host memory read
// by Cast in device memory; Cast's int32 output in device memory read as
// Reshape's `shape` on the host; ArgMax's output in device memory fetched by
// the int32 _Retval, which is a host kernel), partitioned with the
// registry's KernelQuery and run through one executor per partition, as a
// session runs them. Results equal a run on the CPU, where there are no
// copies; the copies show up in the step stats.
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/partition.h"
#include "gmock/gmock.h"
#include "graph/attr_value_util.h"
#include "graph/graph_def_import.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/call_frame.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/kernel_registry.h"
#include "runtime/placement_bridge.h"
#include "runtime/rendezvous.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::UnorderedElementsAre;

// On a GPU, by the kernel definitions (kernels/gpu/kernel_defs_*.cc):
//   x = Const [[1, -2, 3], [4, 5, -6]]   float, device memory
//   shape = Shape(x)                      int32 output in host memory
//   shape_f = Cast(shape, float)          reads device memory: _HostToDevice
//   scale = Sum(shape_f, axis)            axis: an int32 Const, on the host
//   y = Mul(x, scale)
//   dims = Cast(shape_f, int32)           output in device memory
//   reshaped = Reshape(y, dims)           `shape` on the host: _DeviceToHost
//   argmax = ArgMax(y, dim)               int32 output in device memory
// fetched through _Retval: reshaped (float, device memory), argmax (the int32
// _Retval is a host kernel: _DeviceToHost) and shape (host to host).
std::unique_ptr<Graph> BuildGraph() {
  Scope root = Scope::NewRootScope();
  Output x =
      ops::Const(root.WithOpName("x"), {1.0f, -2.0f, 3.0f, 4.0f, 5.0f, -6.0f},
                 TensorShape({2, 3}));
  Output shape = ops::Shape(root.WithOpName("shape"), x);
  Output shape_f = ops::Cast(root.WithOpName("shape_f"), shape, DT_FLOAT);
  Output scale = ops::Sum(root.WithOpName("scale"), shape_f,
                          ops::Const(root.WithOpName("axis"), 0));
  Output y = ops::Mul(root.WithOpName("y"), x, scale);
  Output dims = ops::Cast(root.WithOpName("dims"), shape_f, DT_INT32);
  ops::Reshape(root.WithOpName("reshaped"), y, dims);
  ops::ArgMax(root.WithOpName("argmax"), y,
              ops::Const(root.WithOpName("dim"), 1),
              ops::ArgMaxAttrs().OutputType(DT_INT32));
  EXPECT_TRUE(root.ok()) << root.status();
  GraphDef def;
  root.graph()->ToGraphDef(&def);
  int index = 0;
  for (auto [name, type] :
       {std::pair{"reshaped", DT_FLOAT}, std::pair{"argmax", DT_INT32},
        std::pair{"shape", DT_INT32}}) {
    NodeDef* ret = def.add_node();
    ret->set_name(absl::StrCat("_retval_", name));
    ret->set_op(kRetvalOp);
    ret->add_input(name);
    (*ret->mutable_attr())["T"] = MakeAttr(type);
    (*ret->mutable_attr())["index"] = MakeAttr(int64_t{index++});
  }
  auto graph = std::make_unique<Graph>();
  absl::Status s = ImportGraphDef(def, ImportOptions(), graph.get());
  EXPECT_TRUE(s.ok()) << s;
  return graph;
}

struct RunResult {
  std::vector<Tensor> fetched;
  std::vector<NodeExecStats> stats;
  PartitionStats partition;
};

// Places every node on `devices[name]` (else `fallback`), partitions with
// the registry's memory types and runs every partition once, together,
// meeting in one rendezvous.
absl::StatusOr<RunResult> PartitionAndRun(
    Device* fallback, const std::map<std::string, Device*>& devices = {}) {
  std::unique_ptr<Graph> graph = BuildGraph();
  std::map<std::string, Device*> by_name;
  for (Node* n : graph->nodes()) {
    auto it = devices.find(n->name());
    Device* d = it == devices.end() ? fallback : it->second;
    n->set_assigned_device(d->name());
    by_name[d->name()] = d;
  }
  RegistryKernelQuery kernels;
  PartitionOptions options;
  options.kernels = &kernels;
  RunResult run;
  absl::StatusOr<std::vector<GraphPartition>> parts =
      PartitionGraph(*graph, options, &run.partition);
  if (!parts.ok()) return parts.status();
  std::vector<std::unique_ptr<Executor>> executors;
  for (const GraphPartition& part : *parts) {
    Graph g;
    if (absl::Status s = ImportGraphDef(part.graph, ImportOptions(), &g);
        !s.ok()) {
      return s;
    }
    absl::StatusOr<std::unique_ptr<Executor>> e =
        Executor::Create(g, by_name.at(part.device));
    if (!e.ok()) return e.status();
    executors.push_back(*std::move(e));
  }
  Rendezvous rendezvous;
  CallFrame frame({}, 3);
  std::mutex mu;
  std::condition_variable cv;
  int running = static_cast<int>(executors.size());
  absl::Status first;
  std::vector<std::vector<NodeExecStats>> stats(executors.size());
  for (size_t i = 0; i < executors.size(); ++i) {
    Executor::Args args;
    args.call_frame = &frame;
    args.rendezvous = &rendezvous;
    args.stats = &stats[i];
    executors[i]->RunAsync(args, [&](absl::Status s) {
      std::lock_guard<std::mutex> lock(mu);
      if (first.ok()) first = s;
      --running;
      cv.notify_all();
    });
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return running == 0; });
  }
  if (!first.ok()) return first;
  if (absl::Status s = frame.TakeRetvals(&run.fetched); !s.ok()) return s;
  for (auto& s : stats) run.stats.insert(run.stats.end(), s.begin(), s.end());
  return run;
}

void ExpectSameTensors(const std::vector<Tensor>& a,
                       const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].dtype(), b[i].dtype()) << i;
    EXPECT_EQ(a[i].shape(), b[i].shape()) << i;
    EXPECT_EQ(a[i].DebugString(100), b[i].DebugString(100)) << i;
  }
}

// The copies that ran, as "<op> <tensor copied>".
std::vector<std::string> Copies(const std::vector<NodeExecStats>& stats) {
  std::vector<std::string> out;
  for (const NodeExecStats& s : stats) {
    if (s.op != kHostToDeviceOp && s.op != kDeviceToHostOp) continue;
    std::string tensor = "<no tensor_name>";
    for (const auto& [k, v] : s.details) {
      if (k == "tensor_name") tensor = v;
    }
    out.push_back(absl::StrCat(s.op, " ", tensor));
  }
  return out;
}

TEST(PartitionMemoryCopyTest, KernelDefinitionsValidate) {
  // The copies' GPU definitions name their ops' arguments.
  EXPECT_TRUE(KernelRegistry::Global()->Validate().ok())
      << KernelRegistry::Global()->Validate();
  std::vector<KernelDef> h2d =
      KernelRegistry::Global()->DefinitionsForOp(kHostToDeviceOp);
  std::vector<KernelDef> d2h =
      KernelRegistry::Global()->DefinitionsForOp(kDeviceToHostOp);
  for (const auto* defs : {&h2d, &d2h}) {
    std::vector<std::string> types;
    for (const KernelDef& d : *defs) types.push_back(d.device_type);
    EXPECT_THAT(types, UnorderedElementsAre("CPU", "GPU"));
  }
}

TEST(PartitionMemoryCopyTest, FakeGpuRunEqualsCpuRunWithTheCopies) {
  std::unique_ptr<Device> cpu = NewCpuDevice(0);
  std::unique_ptr<Device> gpu = NewFakeGpuDevice(0);
  absl::StatusOr<RunResult> on_cpu = PartitionAndRun(cpu.get());
  ASSERT_TRUE(on_cpu.ok()) << on_cpu.status();
  EXPECT_EQ(on_cpu->partition.host_to_device, 0);
  EXPECT_EQ(on_cpu->partition.device_to_host, 0);
  EXPECT_TRUE(Copies(on_cpu->stats).empty());

  absl::StatusOr<RunResult> on_gpu = PartitionAndRun(gpu.get());
  ASSERT_TRUE(on_gpu.ok()) << on_gpu.status();
  ExpectSameTensors(on_gpu->fetched, on_cpu->fetched);
  EXPECT_EQ(on_gpu->partition.host_to_device, 1);
  EXPECT_EQ(on_gpu->partition.device_to_host, 2);
  EXPECT_THAT(
      Copies(on_gpu->stats),
      UnorderedElementsAre("_HostToDevice shape:0", "_DeviceToHost dims:0",
                           "_DeviceToHost argmax:0"));
  // The values themselves: x * 5 reshaped to [2, 3], the row argmax.
  ASSERT_EQ(on_gpu->fetched.size(), 3u);
  EXPECT_THAT(on_gpu->fetched[0].flat<float>(),
              testing::ElementsAre(5, -10, 15, 20, 25, -30));
  EXPECT_THAT(on_gpu->fetched[1].flat<int32_t>(), testing::ElementsAre(2, 1));
  EXPECT_THAT(on_gpu->fetched[2].flat<int32_t>(), testing::ElementsAre(2, 3));
}

TEST(PartitionMemoryCopyTest, CopiesAndTransfersTogether) {
  // x and the ArgMax on the CPU, the rest on the fake GPU: transfers cross,
  // copies stay inside the GPU's partition.
  std::unique_ptr<Device> cpu = NewCpuDevice(0);
  std::unique_ptr<Device> gpu = NewFakeGpuDevice(0);
  absl::StatusOr<RunResult> on_cpu = PartitionAndRun(cpu.get());
  ASSERT_TRUE(on_cpu.ok()) << on_cpu.status();
  absl::StatusOr<RunResult> split =
      PartitionAndRun(gpu.get(), {{"x", cpu.get()},
                                  {"argmax", cpu.get()},
                                  {"dim", cpu.get()},
                                  {"_retval_argmax", cpu.get()}});
  ASSERT_TRUE(split.ok()) << split.status();
  ExpectSameTensors(split->fetched, on_cpu->fetched);
  EXPECT_GT(split->partition.sends, 0);
  EXPECT_EQ(split->partition.host_to_device, 1);
  EXPECT_EQ(split->partition.device_to_host, 1);
  EXPECT_THAT(
      Copies(split->stats),
      UnorderedElementsAre("_HostToDevice shape:0", "_DeviceToHost dims:0"));
}

}  // namespace
}  // namespace dflow
