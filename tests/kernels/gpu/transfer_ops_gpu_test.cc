// Sessions on real GPUs moving values: CPU -> GPU -> CPU, between virtual
// GPUs of one physical GPU and between physical GPUs, constants on the GPU,
// host-memory outputs, and every GPU kernel linked here against its
// definition. A test op, _TestOnDeviceIdentity (float, GPU only), checks
// that its input really is in its own device's memory and forwards it; the
// chains use it on their GPU links (a test kernel for Identity itself would
// overlap the real one).
//
// The session tests skip without a GPU; the registration check runs
// everywhere.
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/op_registry.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/shape_inference.h"
#include "gtest/gtest.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/session.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

constexpr char kOnDeviceIdentity[] = "_TestOnDeviceIdentity";

DFLOW_REGISTER_OP("_TestOnDeviceIdentity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape);

// Its GPU definition; the implementation below attaches to it.
const bool kOnDeviceIdentityDefined = [] {
  KernelRegistry::Global()->Register(KernelDefBuilder(kOnDeviceIdentity)
                                         .Device(kDeviceGpu)
                                         .TypeConstraint<float>("T")
                                         .def(),
                                     nullptr);
  return true;
}();

#if DFLOW_HAVE_CUDA
// Identity on the GPU that insists on device memory of its own GPU.
class CheckedIdentityGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const Tensor& in = ctx->input(0);
    if (in.TotalBytes() > 0) {
      cudaPointerAttributes attrs;
      DFLOW_GPU_OP_REQUIRES_CUDA(
          ctx, cudaPointerGetAttributes(&attrs, in.raw_data()),
          "cudaPointerGetAttributes");
      OP_REQUIRES(
          ctx,
          attrs.type == cudaMemoryTypeDevice &&
              attrs.device == gpu->physical_ordinal(),
          absl::InternalError(absl::StrCat(
              "input is not in the memory of GPU ", gpu->physical_ordinal(),
              " (type ", attrs.type, ", device ", attrs.device, ")")));
    }
    ctx->set_output(0, in);
  }
  bool IsExpensive() const override { return false; }
};
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder(kOnDeviceIdentity)
                              .Device(kDeviceGpu)
                              .TypeConstraint<float>("T"),
                          CheckedIdentityGpuOp);
#endif  // DFLOW_HAVE_CUDA

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = 0.5f * i - 7.0f;
  return v;
}

// x (fed on the CPU) -> Identity on each of `devices` in turn -> fetched.
GraphDef Chain(const std::vector<std::string>& devices, int n) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({n}));
  for (size_t i = 0; i < devices.size(); ++i) {
    x = ops::Identity(
        root.WithOpName(absl::StrCat("id_", i)).WithDevice(devices[i]), x);
  }
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  for (NodeDef& node : *def.mutable_node()) {
    if (node.op() == "Identity" &&
        absl::StrContains(absl::AsciiStrToLower(node.device()), "gpu")) {
      node.set_op(kOnDeviceIdentity);
    }
  }
  return def;
}

void ExpectChainRoundTrips(const SessionOptions& options,
                           const std::vector<std::string>& devices, int n) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(Chain(devices, n), options);
  ASSERT_TRUE(session.ok()) << session.status();
  const std::vector<float> values = Iota(n);
  std::vector<Tensor> out;
  RunOptions run_options;
  run_options.collect_step_stats = true;
  RunMetadata metadata;
  for (int step = 0; step < 3; ++step) {
    absl::Status s = (*session)->Run(
        run_options,
        {{"x", Tensor::FromVector<float>(values, TensorShape({n}))}},
        {absl::StrCat("id_", devices.size() - 1)}, {}, &out, &metadata);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(out.size(), 1u);
    EXPECT_THAT(out[0].flat<float>(), ElementsAreArray(values));
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    bool found = false;
    for (const NodeExecStats& st : metadata.step_stats) {
      if (st.node == absl::StrCat("id_", i)) {
        found = true;
        // Devices are named /device:GPU:0; the test asks for /gpu:0.
        EXPECT_THAT(absl::AsciiStrToLower(st.device),
                    HasSubstr(devices[i].substr(1)));
      }
    }
    EXPECT_TRUE(found) << "id_" << i;
  }
}

TEST(TransferOpsGpuTest, CpuToGpuAndBack) {
  DFLOW_SKIP_WITHOUT_GPU();
  SessionOptions options;
  options.device_count = {{"GPU", 1}};
  for (int n : {1, 3, 1000, 1 << 20}) {
    SCOPED_TRACE(n);
    ExpectChainRoundTrips(options, {"/gpu:0"}, n);
  }
}

TEST(TransferOpsGpuTest, BetweenVirtualGpus) {
  DFLOW_SKIP_WITHOUT_GPU();
  SessionOptions options;
  options.device_count = {{"GPU", 1}};
  options.gpu_virtual_device_memory_limits = {64 << 20, 64 << 20};
  ExpectChainRoundTrips(options, {"/gpu:0", "/gpu:1", "/gpu:0"}, 4096);
}

TEST(TransferOpsGpuTest, BetweenPhysicalGpus) {
  DFLOW_SKIP_WITHOUT_GPU();
  if (VisibleGpuCount() < 2) GTEST_SKIP() << "needs two GPUs";
  ExpectChainRoundTrips(SessionOptions(), {"/gpu:0", "/gpu:1", "/cpu:0"}, 4096);
}

TEST(TransferOpsGpuTest, ConstantsLiveOnTheGpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  Scope root = Scope::NewRootScope();
  Scope gpu = root.WithDevice("/gpu:0");
  Output c = ops::Const(gpu.WithOpName("c"), {1.5f, -2.0f, 3.25f});
  ops::Identity(gpu.WithOpName("id"), c);
  // int32 constants on a GPU stay in host memory.
  ops::Const(gpu.WithOpName("shape"), {2, 3});
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  SessionOptions options;
  options.device_count = {{"GPU", 1}};
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({}, {"id", "c", "shape"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(out[0].flat<float>(), ElementsAreArray({1.5f, -2.0f, 3.25f}));
  EXPECT_THAT(out[1].flat<float>(), ElementsAreArray({1.5f, -2.0f, 3.25f}));
  EXPECT_THAT(out[2].flat<int32_t>(), ElementsAreArray({2, 3}));
}

TEST(TransferOpsGpuTest, ControlEdgesFromTheGpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  Scope root = Scope::NewRootScope();
  Output c = ops::Const(root.WithOpName("c").WithDevice("/gpu:0"), {1.0f});
  Output after = ops::Const(
      root.WithOpName("after").WithDevice("/cpu:0").WithControlDependencies(
          {c}),
      {7.0f});
  (void)after;
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  SessionOptions options;
  options.device_count = {{"GPU", 1}};
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(def, options);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({}, {"after"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[0].flat<float>()[0], 7.0f);
}

// Every GPU implementation linked into this binary matches a definition.
TEST(TransferOpsGpuTest, RegisteredGpuKernelsMatchTheirDefinitions) {
  absl::Status s = KernelRegistry::Global()->Validate();
  EXPECT_TRUE(s.ok()) << s;
}

TEST(TransferOpsGpuTest, TransfersAreImplementedInCudaBuilds) {
  if (!BuiltWithCuda()) GTEST_SKIP() << "a build without CUDA";
  Scope root = Scope::NewRootScope();
  Node* c = ops::Const(root, {1.0f}).node();
  ASSERT_TRUE(root.status().ok());
  EXPECT_TRUE(KernelRegistry::Global()->IsKernelBuilt(*c, kDeviceGpu));
  for (const char* op : {"_Send", "_Recv", "_HostToDevice", "_DeviceToHost"}) {
    std::vector<KernelDef> defs =
        KernelRegistry::Global()->DefinitionsForOp(op);
    EXPECT_FALSE(defs.empty()) << op;
  }
}

}  // namespace
}  // namespace dflow
