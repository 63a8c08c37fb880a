// Kernel availability as metadata: the GPU kernel definitions linked into a
// CPU-only build, host-memory arguments, definitions without
// implementations, and fake GPUs running CPU kernels.
#include "runtime/kernel_registry.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/op_registry.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/call_frame.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "tests/runtime/ops_without_gpu_kernels.h"

namespace dflow {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

KernelRegistry* Registry() { return KernelRegistry::Global(); }

// A GPU whose kernels are its own (as in a CUDA build), to see what a
// CPU-only binary does with a node placed on a real GPU.
Device* RealGpu() {
  static Device* gpu =
      new Device(DeviceSpec::LocalDevice("GPU", 0), ProcessAllocator("GPU:0"),
                 ThreadPool::Shared());
  return gpu;
}

Device* FakeGpu() {
  static Device* gpu = NewFakeGpuDevice(0).release();
  return gpu;
}

Device* Cpu() {
  static Device* cpu = NewCpuDevice(0).release();
  return cpu;
}

TEST(KernelRegistryTest, EveryDefinitionIsConsistentWithItsOp) {
  absl::Status s = Registry()->Validate();
  EXPECT_TRUE(s.ok()) << s.message();
}

// Every op dflow declares that has a GPU kernel in TensorFlow (for some
// dtypes) has a GPU definition here; test ops are exempt, and so are the
// CPU fusions' ops, which their passes create only on CPU partitions
// (compiler/fuse_bias_activation.h, compiler/fuse_elementwise.h,
// compiler/fuse_matmul_update.h), and the ops TensorFlow registers on the
// CPU only (listed).
TEST(KernelRegistryTest, EveryDeclaredOpHasAGpuDefinition) {
  int checked = 0;
  for (const OpRegistration* reg : OpRegistry::Global()->AllOps()) {
    const std::string& op = reg->op_def.name();
    if (op.rfind("Test", 0) == 0) continue;
    if (op == "_FusedMatMul" || op == "_FusedConv2D" ||
        op == "_FusedElementwise" ||
        op == "_FusedMatMulApplyGradientDescent") {
      continue;
    }
    const auto& cpu_only = testing_kernels::CpuOnlyOps();
    const auto& no_gpu_yet = testing_kernels::OpsWithoutGpuKernelYet();
    if (no_gpu_yet.count(op) > 0) continue;
    if (cpu_only.count(op) > 0) {
      for (const KernelDef& def : Registry()->DefinitionsForOp(op)) {
        EXPECT_NE(def.device_type, kDeviceGpu) << op << " is CPU-only in TF";
      }
      continue;
    }
    bool gpu = false;
    for (const KernelDef& def : Registry()->DefinitionsForOp(op)) {
      gpu |= def.device_type == kDeviceGpu;
    }
    EXPECT_TRUE(gpu) << op << " has no GPU kernel definition";
    ++checked;
  }
  EXPECT_GT(checked, 80);
}

TEST(KernelRegistryTest, GpuDefinitionsFollowTensorFlowsDtypes) {
  Scope root = Scope::NewRootScope();
  Output f = ops::Const(root, {1.0f, 2.0f}, {1, 2});
  Output i = ops::Const(root, {1, 2}, {1, 2});
  Node* matmul =
      ops::MatMul(root, f, f, ops::MatMulAttrs().TransposeB(true)).node();
  Node* matmul_int =
      ops::MatMul(root, i, i, ops::MatMulAttrs().TransposeB(true)).node();
  Node* relu = ops::Relu(root, f).node();
  Node* softmax = ops::Softmax(root, f).node();
  ASSERT_TRUE(root.status().ok()) << root.status();

  EXPECT_THAT(Registry()->SupportedDeviceTypes(*matmul),
              UnorderedElementsAre("CPU", "GPU"));
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*relu), Contains("GPU"));
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*softmax), Contains("GPU"));
  // cuBLAS has no integer GEMM kernel in TensorFlow: CPU only.
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*matmul_int),
              ElementsAre("CPU"));
  // A definition, not an implementation: this binary has no CUDA code.
  EXPECT_FALSE(Registry()->IsKernelBuilt(*matmul, "GPU"));
  EXPECT_TRUE(Registry()->IsKernelBuilt(*matmul, "CPU"));
}

TEST(KernelRegistryTest, OpsWithoutGpuKernelsHaveNoGpuDefinition) {
  Scope root = Scope::NewRootScope();
  Output s = ops::Const(root, "a");
  Node* add_strings = ops::Add(root, s, s).node();
  Output h = ops::Cast(root, ops::Const(root, {1.0f}, {1, 1, 1, 1}), DT_HALF);
  Node* lrn = ops::LRN(root, h).node();  // cuDNN LRN is float-only
  Node* real_div_int =
      ops::RealDiv(root, ops::Const(root, {4}), ops::Const(root, {2})).node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*add_strings),
              ElementsAre("CPU"));
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*lrn), Not(Contains("GPU")));
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*real_div_int),
              Not(Contains("GPU")));
}

TEST(KernelRegistryTest, ShapeArgumentsAreInHostMemoryOnGpu) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, {1.0f, 2.0f, 3.0f, 4.0f});
  Output shape = ops::Const(root, {2, 2});
  Node* reshape = ops::Reshape(root, x, shape).node();
  Node* shape_of = ops::Shape(root, x).node();
  Node* fill = ops::Fill(root, shape, ops::Const(root, 1.0f)).node();
  Node* sum = ops::Sum(root, x, ops::Const(root, 0)).node();
  ASSERT_TRUE(root.status().ok()) << root.status();

  EXPECT_TRUE(Registry()->IsHostMemoryArg(*reshape, "GPU", "shape"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*reshape, "GPU", "tensor"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*reshape, "GPU", "output"));
  EXPECT_TRUE(Registry()->IsHostMemoryInput(*reshape, "GPU", 1));
  EXPECT_FALSE(Registry()->IsHostMemoryInput(*reshape, "GPU", 0));
  EXPECT_FALSE(Registry()->IsHostMemoryInput(*reshape, "GPU", 7));
  EXPECT_THAT(Registry()->HostMemoryArgs(*reshape, "GPU"),
              ElementsAre("shape"));
  // CPU kernels keep everything in the device's (host) memory: no
  // distinction to declare.
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*reshape, "CPU", "shape"));
  EXPECT_TRUE(Registry()->HostMemoryArgs(*reshape, "CPU").empty());

  EXPECT_TRUE(Registry()->IsHostMemoryArg(*shape_of, "GPU", "output"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*shape_of, "GPU", "input"));
  EXPECT_TRUE(Registry()->IsHostMemoryOutput(*shape_of, "GPU", 0));
  EXPECT_TRUE(Registry()->IsHostMemoryArg(*fill, "GPU", "dims"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*fill, "GPU", "value"));
  EXPECT_TRUE(Registry()->IsHostMemoryArg(*sum, "GPU", "reduction_indices"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*sum, "GPU", "input"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*sum, "GPU", "no_such_arg"));
}

TEST(KernelRegistryTest, Int32KernelsOnGpuAreHostKernels) {
  Scope root = Scope::NewRootScope();
  Output i = ops::Const(root, {1, 2});
  Output f = ops::Const(root, {1.0f, 2.0f});
  Node* add_int = ops::Add(root, i, i).node();
  Node* add_float = ops::Add(root, f, f).node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  // Const of int32 on a GPU lives in host memory; float does not.
  EXPECT_TRUE(Registry()->IsHostMemoryArg(*i.node(), "GPU", "output"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*f.node(), "GPU", "output"));
  EXPECT_THAT(Registry()->HostMemoryArgs(*add_int, "GPU"),
              UnorderedElementsAre("x", "y", "z"));
  EXPECT_TRUE(Registry()->HostMemoryArgs(*add_float, "GPU").empty());
  std::vector<MemoryType> in, out;
  ASSERT_TRUE(Registry()->MemoryTypesForNode(*add_int, "GPU", &in, &out).ok());
  EXPECT_THAT(in, ElementsAre(MemoryType::kHost, MemoryType::kHost));
  EXPECT_THAT(out, ElementsAre(MemoryType::kHost));
  ASSERT_TRUE(
      Registry()->MemoryTypesForNode(*add_float, "GPU", &in, &out).ok());
  EXPECT_THAT(in, ElementsAre(MemoryType::kDevice, MemoryType::kDevice));
}

TEST(KernelRegistryTest, ResourceHandlesAreAlwaysInHostMemory) {
  Scope root = Scope::NewRootScope();
  Output handle = ops::VarHandleOp(root, DT_FLOAT, TensorShape({2}));
  Node* read = ops::ReadVariableOp(root, handle, DT_FLOAT).node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  EXPECT_TRUE(Registry()->IsHostMemoryArg(*read, "GPU", "resource"));
  EXPECT_FALSE(Registry()->IsHostMemoryArg(*read, "GPU", "value"));
  // Even where nothing is declared (CPU), a resource is a host value.
  EXPECT_TRUE(Registry()->IsHostMemoryArg(*read, "CPU", "resource"));
  EXPECT_TRUE(Registry()->IsHostMemoryOutput(*handle.node(), "GPU", 0));
}

TEST(KernelRegistryTest, DefinedButNotBuiltIsAClearError) {
  Scope root = Scope::NewRootScope();
  Scope tower = root.NewSubScope("tower_0");
  Output f = ops::Const(tower, {1.0f, 2.0f}, {1, 2});
  Node* matmul = ops::MatMul(tower.WithOpName("MatMul"), f, f,
                             ops::MatMulAttrs().TransposeB(true))
                     .node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  absl::StatusOr<std::unique_ptr<OpKernel>> k =
      Registry()->CreateKernel(*matmul, RealGpu());
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(k.status().message(),
            "node 'tower_0/MatMul' (MatMul): a GPU kernel is defined but not "
            "built into this binary (CPU-only build); place it on a CPU or "
            "build with CUDA");
  // Never a silent run on the CPU: the CPU kernel exists and is not used.
  EXPECT_TRUE(Registry()->CreateKernel(*matmul, Cpu()).ok());
}

TEST(KernelRegistryTest, FakeGpuRunsCpuKernelsForNodesWithGpuDefinitions) {
  Scope root = Scope::NewRootScope();
  Output f = ops::Const(root, {1.0f, 2.0f}, {1, 2});
  Output i = ops::Const(root, {1, 2}, {1, 2});
  Node* matmul =
      ops::MatMul(root, f, f, ops::MatMulAttrs().TransposeB(true)).node();
  Node* matmul_int = ops::MatMul(root.WithOpName("int_mm"), i, i,
                                 ops::MatMulAttrs().TransposeB(true))
                         .node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  absl::StatusOr<std::unique_ptr<OpKernel>> k =
      Registry()->CreateKernel(*matmul, FakeGpu());
  EXPECT_TRUE(k.ok()) << k.status();
  // int32 MatMul has a CPU kernel but no GPU one: a fake GPU refuses it as
  // a real GPU would.
  k = Registry()->CreateKernel(*matmul_int, FakeGpu());
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(k.status().message(),
              HasSubstr("node 'int_mm' (MatMul): no GPU kernel for MatMul"));
}

// A GPU definition whose op has only a CPU implementation and no
// implementation of its own: a fake GPU explains what is missing.
DFLOW_REGISTER_OP("TestGpuDefinedCpuMissing")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_fns::UnchangedShape);
DFLOW_REGISTER_KERNEL_DEF(
    KernelDefBuilder("TestGpuDefinedCpuMissing").Device(kDeviceGpu));

TEST(KernelRegistryTest, FakeGpuNeedsACpuImplementation) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, {1.0f});
  Node* n = OpBuilder(root.WithOpName("n"), "TestGpuDefinedCpuMissing")
                .Input(x)
                .Finalize()
                .node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  EXPECT_THAT(Registry()->SupportedDeviceTypes(*n), ElementsAre("GPU"));
  absl::StatusOr<std::unique_ptr<OpKernel>> k =
      Registry()->CreateKernel(*n, FakeGpu());
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(), HasSubstr("no CPU kernel"));
  EXPECT_THAT(k.status().message(),
              HasSubstr("stand-in for a GPU that computes with the CPU "
                        "kernels"));
}

// Definitions and implementations registered separately merge.
DFLOW_REGISTER_OP("TestMergedKernel")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape);

class PassThrough : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};

TEST(KernelRegistryTest, ImplementationJoinsItsDefinition) {
  KernelRegistry registry;
  KernelDefBuilder def("TestMergedKernel");
  def.Device(kDeviceGpu)
      .TypeConstraint("T", {DT_FLOAT, DT_HALF})
      .HostMemory("x");
  registry.Register(def.def(), nullptr);
  Scope root = Scope::NewRootScope();
  Node* n = OpBuilder(root.WithOpName("m"), "TestMergedKernel")
                .Input(ops::Const(root, {1.0f}))
                .Finalize()
                .node();
  ASSERT_TRUE(root.status().ok()) << root.status();
  EXPECT_FALSE(registry.IsKernelBuilt(*n, "GPU"));
  // Same definition, types in another order: the implementation attaches.
  KernelDefBuilder impl("TestMergedKernel");
  impl.Device(kDeviceGpu)
      .TypeConstraint("T", {DT_HALF, DT_FLOAT})
      .HostMemory("x");
  registry.Register(impl.def(), [](OpKernelConstruction* ctx) {
    return std::make_unique<PassThrough>(ctx);
  });
  EXPECT_TRUE(registry.IsKernelBuilt(*n, "GPU"));
  EXPECT_TRUE(registry.CreateKernel(*n, RealGpu()).ok());
  EXPECT_TRUE(registry.Validate().ok()) << registry.Validate().message();

  // The same constraints with other host-memory args is a conflict.
  KernelDefBuilder other("TestMergedKernel");
  other.Device(kDeviceGpu).TypeConstraint("T", {DT_FLOAT, DT_HALF});
  registry.Register(other.def(), nullptr);
  absl::Status s = registry.Validate();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("different host-memory args"));
}

TEST(KernelRegistryTest, ValidateFindsBadDefinitions) {
  KernelRegistry registry;
  registry.Register(KernelDefBuilder("NoSuchOpAnywhere").Device("GPU").def(),
                    nullptr);
  registry.Register(
      KernelDefBuilder("Reshape").Device("GPU").HostMemory("shapes").def(),
      nullptr);
  registry.Register(KernelDefBuilder("MatMul")
                        .Device("GPU")
                        .TypeConstraint("transpose_a", {DT_FLOAT})
                        .def(),
                    nullptr);
  registry.Register(
      KernelDefBuilder("Relu").Device("GPU").TypeConstraint<float>("T").def(),
      nullptr);
  registry.Register(KernelDefBuilder("Relu")
                        .Device("GPU")
                        .TypeConstraint("T", {DT_DOUBLE, DT_FLOAT})
                        .def(),
                    nullptr);
  absl::Status s = registry.Validate();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("unknown op NoSuchOpAnywhere"));
  EXPECT_THAT(s.message(), HasSubstr("'shapes' is not an argument of Reshape"));
  EXPECT_THAT(s.message(), HasSubstr("'transpose_a' is not a type attr"));
  EXPECT_THAT(s.message(), HasSubstr("overlaps"));
}

// A small graph whose MatMul runs on a fake GPU: Const and the fetch on the
// CPU, the product on GPU:0 (one executor; host memory is shared).
TEST(KernelRegistryTest, GraphRunsWithMatMulOnAFakeGpu) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), {1.0f, 2.0f, 3.0f, 4.0f}, {2, 2});
  Output mm = ops::MatMul(root.WithOpName("mm"), a, a);
  OpBuilder(root.WithOpName("_retval_0"), kRetvalOp)
      .Input(mm)
      .Attr("T", DT_FLOAT)
      .Attr("index", int64_t{0})
      .Finalize();
  Graph g;
  ASSERT_TRUE(root.ToGraph(&g).ok()) << root.status();
  Device* gpu = FakeGpu();
  Device* cpu = Cpu();
  const int64_t gpu_allocs = gpu->allocator()->Stats().num_allocations;
  absl::StatusOr<std::unique_ptr<Executor>> exec = Executor::Create(
      g, [&](const Node& n) { return n.name() == "mm" ? gpu : cpu; });
  ASSERT_TRUE(exec.ok()) << exec.status();
  CallFrame frame({}, 1);
  VariableStore vars;
  Executor::Args args;
  args.call_frame = &frame;
  args.variables = &vars;
  ASSERT_TRUE((*exec)->Run(args).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(frame.TakeRetvals(&out).ok());
  ASSERT_EQ(out.size(), 1u);
  auto v = out[0].flat<float>();
  EXPECT_EQ(std::vector<float>(v.begin(), v.end()),
            std::vector<float>({7, 10, 15, 22}));
  // The product was allocated from the fake GPU's memory.
  EXPECT_GT(gpu->allocator()->Stats().num_allocations, gpu_allocs);
}

}  // namespace
}  // namespace dflow
