// GPU kernel implementations attached to their definitions
// (KernelRegistry::RegisterImplementation, DFLOW_REGISTER_GPU_KERNEL): which
// implementation a node gets on a device running GPU kernels, what a fake
// GPU gets, what the placer is told, and the mismatches Validate reports.
// On a private registry; runs everywhere.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/device.h"
#include "runtime/kernel_registry.h"
#include "runtime/placement_bridge.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// Says which implementation was built.
class Tagged : public OpKernel {
 public:
  Tagged(OpKernelConstruction* ctx, std::string tag)
      : OpKernel(ctx), tag_(std::move(tag)) {}
  void Compute(OpKernelContext*) override {}
  const std::string& tag() const { return tag_; }

 private:
  std::string tag_;
};

KernelFactory Tag(std::string tag) {
  return [tag](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
    return std::make_unique<Tagged>(ctx, tag);
  };
}

KernelDef Def(const std::string& op, const std::string& device,
              std::vector<DataType> types, std::vector<std::string> host = {}) {
  KernelDefBuilder b(op);
  b.Device(device).TypeConstraint("T", std::move(types));
  for (std::string& h : host) b.HostMemory(std::move(h));
  return b.def();
}

std::unique_ptr<Device> GpuRunningGpuKernels() {
  DeviceAttributes attrs;
  attrs.kernel_device_type = "GPU";
  return std::make_unique<Device>(DeviceSpec::LocalDevice("GPU", 0),
                                  std::move(attrs), ProcessAllocator("GPU:0"),
                                  ThreadPool::Shared());
}

struct Nodes {
  Scope root = Scope::NewRootScope();
  Node* add_float = nullptr;
  Node* add_double = nullptr;
  Node* add_half = nullptr;
  Nodes() {
    Output f = ops::Const(root, {1.0f, 2.0f});
    Output d = ops::Cast(root, f, DT_DOUBLE);
    Output h = ops::Cast(root, f, DT_HALF);
    add_float = ops::AddV2(root.WithOpName("add_f"), f, f).node();
    add_double = ops::AddV2(root.WithOpName("add_d"), d, d).node();
    add_half = ops::AddV2(root.WithOpName("add_h"), h, h).node();
  }
};

std::string TagOf(const absl::StatusOr<std::unique_ptr<OpKernel>>& k) {
  if (!k.ok()) return std::string(k.status().message());
  return static_cast<const Tagged&>(**k).tag();
}

class GpuKernelRegistrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(nodes_.root.status().ok()) << nodes_.root.status();
    // The CPU kernels, and the GPU definition for float/double/half.
    registry_.Register(Def("AddV2", "CPU", {DT_FLOAT, DT_DOUBLE, DT_HALF}),
                       Tag("cpu"));
    registry_.Register(Def("AddV2", "GPU", {DT_FLOAT, DT_DOUBLE, DT_HALF}),
                       nullptr);
  }

  KernelRegistry registry_;
  Nodes nodes_;
  std::unique_ptr<Device> gpu_ = GpuRunningGpuKernels();
  std::unique_ptr<Device> fake_gpu_ = NewFakeGpuDevice(0);
};

TEST_F(GpuKernelRegistrationTest, ImplementationsAttachPerDtype) {
  registry_.RegisterImplementation(Def("AddV2", "GPU", {DT_FLOAT}),
                                   Tag("gpu float"));
  registry_.RegisterImplementation(Def("AddV2", "GPU", {DT_DOUBLE}),
                                   Tag("gpu double"));
  EXPECT_TRUE(registry_.Validate().ok()) << registry_.Validate();
  EXPECT_EQ(TagOf(registry_.CreateKernel(*nodes_.add_float, gpu_.get())),
            "gpu float");
  EXPECT_EQ(TagOf(registry_.CreateKernel(*nodes_.add_double, gpu_.get())),
            "gpu double");
  EXPECT_TRUE(registry_.IsKernelBuilt(*nodes_.add_float, "GPU"));
  EXPECT_FALSE(registry_.IsKernelBuilt(*nodes_.add_half, "GPU"));
  // A fake GPU computes with the CPU kernel, whatever the GPU has.
  EXPECT_EQ(TagOf(registry_.CreateKernel(*nodes_.add_float, fake_gpu_.get())),
            "cpu");
  EXPECT_EQ(TagOf(registry_.CreateKernel(*nodes_.add_half, fake_gpu_.get())),
            "cpu");
}

TEST_F(GpuKernelRegistrationTest, DefinitionMayComeAfterTheImplementation) {
  KernelRegistry registry;
  registry.RegisterImplementation(Def("AddV2", "GPU", {DT_FLOAT}), Tag("gpu"));
  registry.Register(Def("AddV2", "GPU", {DT_FLOAT, DT_DOUBLE}), nullptr);
  EXPECT_TRUE(registry.Validate().ok()) << registry.Validate();
  EXPECT_EQ(TagOf(registry.CreateKernel(*nodes_.add_float, gpu_.get())), "gpu");
}

TEST_F(GpuKernelRegistrationTest, MissingImplementationNamesOpAndDtype) {
  registry_.RegisterImplementation(Def("AddV2", "GPU", {DT_FLOAT}),
                                   Tag("gpu float"));
  absl::StatusOr<std::unique_ptr<OpKernel>> k =
      registry_.CreateKernel(*nodes_.add_half, gpu_.get());
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(k.status().message(),
              HasSubstr("node 'add_h' (AddV2) on "
                        "/job:localhost/replica:0/task:0/device:GPU:0: no GPU "
                        "implementation of op AddV2 for dtype T=half yet"));
  EXPECT_THAT(k.status().message(),
              HasSubstr("AddV2 on GPU with T in {float}"));
  EXPECT_THAT(k.status().message(),
              HasSubstr("place it on the CPU or enable soft placement"));
  EXPECT_EQ(
      registry_.CheckImplemented(*nodes_.add_half, "GPU", "/gpu:0").code(),
      absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(
      registry_.CheckImplemented(*nodes_.add_float, "GPU", "/gpu:0").ok());
}

TEST_F(GpuKernelRegistrationTest, PlacementSeesOnlyImplementedKernels) {
  registry_.RegisterImplementation(Def("AddV2", "GPU", {DT_FLOAT}),
                                   Tag("gpu float"));
  // Definitions only (fake GPUs, CPU-only planning): GPU for every dtype.
  RegistryKernelQuery definitions(&registry_);
  EXPECT_THAT(definitions.SupportedDeviceTypes(*nodes_.add_half),
              ElementsAre("CPU", "GPU"));
  // Real GPUs: only where an implementation exists.
  RegistryKernelQuery implemented(&registry_, {"GPU"});
  EXPECT_THAT(implemented.SupportedDeviceTypes(*nodes_.add_float),
              ElementsAre("CPU", "GPU"));
  EXPECT_THAT(implemented.SupportedDeviceTypes(*nodes_.add_half),
              ElementsAre("CPU"));
}

TEST_F(GpuKernelRegistrationTest, TypesRunningTheirOwnKernels) {
  DeviceSet fake;
  fake.Add(NewCpuDevice(0));
  fake.Add(NewFakeGpuDevice(0));
  EXPECT_TRUE(TypesRunningTheirOwnKernels(fake).empty());
  DeviceSet real;
  real.Add(NewCpuDevice(0));
  real.Add(GpuRunningGpuKernels());
  EXPECT_THAT(TypesRunningTheirOwnKernels(real), ElementsAre("GPU"));
}

TEST_F(GpuKernelRegistrationTest, RequestedButUnimplementedIsReported) {
  registry_.RegisterImplementation(Def("AddV2", "GPU", {DT_FLOAT}),
                                   Tag("gpu float"));
  Scope root = Scope::NewRootScope();
  Output h = ops::Cast(root, ops::Const(root, {1.0f}), DT_HALF);
  ops::AddV2(root.WithOpName("on_gpu").WithDevice("/gpu:0"), h, h);
  ops::AddV2(root.WithOpName("anywhere"), h, h);
  ASSERT_TRUE(root.status().ok()) << root.status();
  absl::Status s =
      CheckRequestedKernelsImplemented(*root.graph(), registry_, {"GPU"});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("node 'on_gpu' (AddV2)"));
  EXPECT_THAT(s.message(), HasSubstr("for dtype T=half yet"));
  // Fake GPUs (no type runs its own kernels): nothing to report.
  EXPECT_TRUE(
      CheckRequestedKernelsImplemented(*root.graph(), registry_, {}).ok());
}

TEST_F(GpuKernelRegistrationTest, ValidateReportsImplementationsWithoutADef) {
  KernelRegistry registry;
  registry.Register(Def("AddV2", "GPU", {DT_FLOAT, DT_DOUBLE}), nullptr);
  registry.Register(Def("AddV2", "CPU", {DT_FLOAT}), Tag("cpu"));
  // A dtype the definition lacks.
  registry.RegisterImplementation(Def("AddV2", "GPU", {DT_INT64}), Tag("a"));
  // Host-memory args the definition does not declare.
  registry.RegisterImplementation(Def("AddV2", "GPU", {DT_FLOAT}, {"z"}),
                                  Tag("b"));
  // An op with no GPU definition at all.
  registry.RegisterImplementation(Def("Sub", "GPU", {DT_FLOAT}), Tag("c"));
  // Two implementations of one dtype.
  registry.RegisterImplementation(Def("AddV2", "GPU", {DT_DOUBLE}), Tag("d"));
  registry.RegisterImplementation(Def("AddV2", "GPU", {DT_DOUBLE}), Tag("e"));
  absl::Status s = registry.Validate();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(),
              HasSubstr("the GPU implementation AddV2 on GPU with T in "
                        "{int64} matches no GPU kernel definition "
                        "(definitions: AddV2 on GPU with T in {float, "
                        "double})"));
  EXPECT_THAT(s.message(),
              HasSubstr("AddV2 on GPU with T in {float} (host memory: z) "
                        "matches no GPU kernel definition"));
  EXPECT_THAT(s.message(),
              HasSubstr("Sub on GPU with T in {float} matches no GPU kernel "
                        "definition (there is none for Sub)"));
  EXPECT_THAT(s.message(),
              HasSubstr("are two implementations for the same dtypes"));
  // An implementation that matches nothing is never used.
  EXPECT_FALSE(registry.IsKernelBuilt(*nodes_.add_float, "GPU"));
}

TEST_F(GpuKernelRegistrationTest, HostMemoryOutputsAreToldToTheKernel) {
  KernelRegistry registry;
  registry.Register(Def("AddV2", "GPU", {DT_FLOAT}, {"z"}), nullptr);
  bool host_output = false;
  registry.RegisterImplementation(
      Def("AddV2", "GPU", {DT_FLOAT}, {"z"}),
      [&host_output](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
        auto k = std::make_unique<Tagged>(ctx, "gpu");
        host_output = k->output_in_host_memory(0);
        return k;
      });
  ASSERT_TRUE(registry.CreateKernel(*nodes_.add_float, gpu_.get()).ok());
  EXPECT_TRUE(host_output);
}

}  // namespace
}  // namespace dflow
