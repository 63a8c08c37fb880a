// Sessions over devices that run their own GPU kernels, without a GPU: a
// test device factory makes "GPU:0", a host-memory device whose
// kernel_device_type is "GPU" (as a real GPU's is) with a BfcAllocator over
// host memory. A few GPU implementations are registered for it here
// (delegating to the CPU kernels), MatMul deliberately not. Checks:
//   - the factory is asked for GPUs, and fake GPUs still take their place;
//   - a node whose GPU kernel is defined but not implemented fails at
//     compile time naming the op and dtype, or goes to the CPU under soft
//     placement (and by default);
//   - running out of device memory names the node, the request and the
//     allocator's state (BfcAllocator::OutOfMemoryError).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/device.h"
#include "runtime/gpu/bfc_allocator.h"
#include "runtime/kernel_registry.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kDeviceMemory = 1 << 20;  // 1 MiB

// A GPU-typed device on host memory that runs the "GPU" kernels.
std::unique_ptr<Device> NewHostGpu(int id) {
  // The allocators live for the process, as real GPU allocators do.
  static auto* bfc = new BfcAllocator(std::make_unique<HostSubAllocator>(), [] {
    BfcAllocatorOptions o;
    o.memory_limit = kDeviceMemory;
    o.name = "GPU:0";
    return o;
  }());
  static auto* tracking = new TrackingAllocator(bfc, "GPU:0");
  DeviceAttributes attrs;
  attrs.kernel_device_type = "GPU";
  attrs.memory_limit = kDeviceMemory;
  attrs.physical_device_desc =
      "device: 0, name: host-memory test GPU running GPU kernels";
  return std::make_unique<Device>(DeviceSpec::LocalDevice("GPU", id),
                                  std::move(attrs), tracking,
                                  ThreadPool::Shared());
}

// GPU implementations for the test device: the CPU kernel of the node
// (every value here is in host memory).
void RegisterViaCpu(const std::string& op, std::vector<DataType> types = {}) {
  KernelDefBuilder b(op);
  b.Device(kDeviceGpu);
  if (!types.empty()) b.TypeConstraint("T", std::move(types));
  KernelRegistry::Global()->RegisterImplementation(
      b.def(), [](OpKernelConstruction* ctx) -> std::unique_ptr<OpKernel> {
        static Device* cpu = NewCpuDevice(0).release();
        absl::StatusOr<std::unique_ptr<OpKernel>> k =
            KernelRegistry::Global()->CreateKernel(ctx->node(), cpu);
        if (!k.ok()) {
          ctx->SetStatus(k.status());
          return nullptr;
        }
        return *std::move(k);
      });
}

const bool kRegistered = [] {
  RegisterViaCpu("AddV2", {DT_FLOAT});
  RegisterViaCpu("Identity", {DT_FLOAT});
  RegisterViaCpu("_Send");
  RegisterViaCpu("_Recv");
  RegisterViaCpu("_HostToDevice");
  RegisterViaCpu("_DeviceToHost");
  return true;
}();

class GpuSessionHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = SetDeviceFactory(
        kDeviceGpu,
        [this](const DeviceFactoryOptions& o)
            -> absl::StatusOr<std::vector<std::unique_ptr<Device>>> {
          ++factory_calls_;
          last_options_ = o;
          std::vector<std::unique_ptr<Device>> out;
          out.push_back(NewHostGpu(o.first_id));
          return out;
        });
  }
  void TearDown() override { SetDeviceFactory(kDeviceGpu, previous_); }

  DeviceFactory previous_;
  int factory_calls_ = 0;
  DeviceFactoryOptions last_options_;
};

// x (fed, [rows, 256] float) -> y = x + x and z = MatMul(x, x^T) with the
// given devices ("" for none).
GraphDef AddAndMatMul(const std::string& add_device,
                      const std::string& matmul_device, int rows = 2) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({rows, 256}));
  ops::AddV2(root.WithOpName("y").WithDevice(add_device), x, x);
  ops::MatMul(root.WithOpName("z").WithDevice(matmul_device), x, x,
              ops::MatMulAttrs().TransposeB(true));
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  return def;
}

Tensor Ones(int rows) {
  return Tensor::FromVector<float>(std::vector<float>(rows * 256, 1.0f),
                                   TensorShape({rows, 256}));
}

std::string DeviceOf(const RunMetadata& metadata, const std::string& node) {
  for (const NodeExecStats& s : metadata.step_stats) {
    if (s.node == node) return s.device;
  }
  return "(not run)";
}

TEST_F(GpuSessionHostTest, SessionsAskTheFactoryForGpus) {
  SessionOptions options;
  options.gpu_virtual_device_memory_limits = {1 << 20, 2 << 20};
  options.gpu_memory_fraction = 0.5;
  options.gpu_allow_growth = true;
  absl::StatusOr<std::unique_ptr<DeviceSet>> set =
      CreateSessionDevices(options);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(factory_calls_, 1);
  ASSERT_EQ((*set)->devices().size(), 2u);
  EXPECT_EQ((*set)->devices()[1]->name(),
            "/job:localhost/replica:0/task:0/device:GPU:0");
  EXPECT_EQ((*set)->devices()[1]->kernel_device_type(), "GPU");
  EXPECT_EQ(last_options_.max_physical_devices, -1);
  EXPECT_EQ(last_options_.virtual_devices, 2);
  EXPECT_EQ(last_options_.virtual_device_memory_limits,
            (std::vector<int64_t>{1 << 20, 2 << 20}));
  EXPECT_DOUBLE_EQ(last_options_.memory_fraction, 0.5);
  EXPECT_TRUE(last_options_.allow_growth);

  options.device_count = {{"gpu", 3}};
  ASSERT_TRUE(CreateSessionDevices(options).ok());
  EXPECT_EQ(last_options_.max_physical_devices, 3);
}

TEST_F(GpuSessionHostTest, NoGpusWhenCountIsZeroOrFakeGpusAreAsked) {
  SessionOptions options;
  options.device_count = {{"GPU", 0}};
  absl::StatusOr<std::unique_ptr<DeviceSet>> set =
      CreateSessionDevices(options);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ((*set)->devices().size(), 1u);
  options.device_count = {};
  options.fake_gpus = 2;
  set = CreateSessionDevices(options);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(factory_calls_, 0);
  ASSERT_EQ((*set)->DevicesOfType("GPU").size(), 2u);
  EXPECT_EQ((*set)->DevicesOfType("GPU")[0]->kernel_device_type(), "CPU");
}

TEST_F(GpuSessionHostTest, FactoryErrorsFailSessionCreation) {
  SetDeviceFactory(
      kDeviceGpu,
      [](const DeviceFactoryOptions&)
          -> absl::StatusOr<std::vector<std::unique_ptr<Device>>> {
        return absl::ResourceExhaustedError("virtual devices: too big");
      });
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(AddAndMatMul("", ""), SessionOptions());
  ASSERT_FALSE(session.ok());
  EXPECT_THAT(session.status().message(), HasSubstr("too big"));
}

TEST_F(GpuSessionHostTest, ImplementedKernelsRunOnTheGpuOthersOnTheCpu) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(AddAndMatMul("", ""), SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status();
  RunOptions run_options;
  run_options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE(
      (*session)
          ->Run(run_options, {{"x", Ones(2)}}, {"y", "z"}, {}, &out, &metadata)
          .ok());
  EXPECT_THAT(DeviceOf(metadata, "y"), HasSubstr("GPU:0"));
  // MatMul has a GPU definition but no implementation here: the CPU.
  EXPECT_THAT(DeviceOf(metadata, "z"), HasSubstr("CPU:0"));
  EXPECT_FLOAT_EQ(out[0].flat<float>()[0], 2.0f);
  EXPECT_FLOAT_EQ(out[1].flat<float>()[0], 256.0f);
}

TEST_F(GpuSessionHostTest, UnimplementedGpuKernelIsAClearCompileError) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(AddAndMatMul("", "/gpu:0"), SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({{"x", Ones(2)}}, {"z"}, {}, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(s.message(), HasSubstr("node 'z' (MatMul)"));
  EXPECT_THAT(s.message(),
              HasSubstr("no GPU implementation of op MatMul for dtype "
                        "T=float yet"));
  EXPECT_THAT(s.message(),
              HasSubstr("place it on the CPU or enable soft placement"));
  // An implemented node asking for the GPU is fine in the same session.
  EXPECT_TRUE((*session)->Run({{"x", Ones(2)}}, {"y"}, {}, &out).ok());
}

TEST_F(GpuSessionHostTest, SoftPlacementPutsUnimplementedKernelsOnTheCpu) {
  SessionOptions options;
  options.allow_soft_placement = true;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(AddAndMatMul("/gpu:0", "/gpu:0"), options);
  ASSERT_TRUE(session.ok()) << session.status();
  RunOptions run_options;
  run_options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(run_options, {{"x", Ones(2)}}, {"y", "z"},
                                   {}, &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(DeviceOf(metadata, "y"), HasSubstr("GPU:0"));
  EXPECT_THAT(DeviceOf(metadata, "z"), HasSubstr("CPU:0"));
}

TEST_F(GpuSessionHostTest, FakeGpusKeepPlacingAgainstTheDefinitions) {
  SessionOptions options;
  options.fake_gpus = 1;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(AddAndMatMul("", "/gpu:0"), options);
  ASSERT_TRUE(session.ok()) << session.status();
  RunOptions run_options;
  run_options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(run_options, {{"x", Ones(2)}}, {"z"}, {},
                                   &out, &metadata);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(DeviceOf(metadata, "z"), HasSubstr("GPU:0"));
}

TEST_F(GpuSessionHostTest, OutOfDeviceMemoryNamesNodeRequestAndAllocator) {
  // y = x + x of [2048, 256] floats: a 2 MiB output on a device of 1 MiB.
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(AddAndMatMul("/gpu:0", "", 2048), SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({{"x", Ones(2048)}}, {"y"}, {}, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(s.message(), HasSubstr("out of memory on GPU:0"));
  EXPECT_THAT(s.message(), HasSubstr("for node 'y' (AddV2)"));
  EXPECT_THAT(s.message(), HasSubstr("allocating 2.00 MiB"));
  EXPECT_THAT(s.message(), HasSubstr("of 1.0 MiB in use"));
  EXPECT_THAT(s.message(), HasSubstr("largest free chunk"));
  EXPECT_THAT(s.message(),
              HasSubstr("the request alone is larger than the memory limit"));
  EXPECT_THAT(s.message(), HasSubstr("output 0 of shape [2048,256]"));
  // A smaller step on the same device still runs: nothing leaked.
  absl::StatusOr<std::unique_ptr<Session>> small =
      Session::Create(AddAndMatMul("/gpu:0", "", 16), SessionOptions());
  ASSERT_TRUE(small.ok());
  EXPECT_TRUE((*small)->Run({{"x", Ones(16)}}, {"y"}, {}, &out).ok());
}

class Probe : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};

// The hook itself, on a plain CPU-type device whose allocator is a
// BfcAllocator: allocate_output and allocate_temp explain out of memory.
TEST(OutOfMemoryErrorTest, KernelAllocationsOnABfcDeviceNameNodeAndState) {
  auto bfc =
      std::make_unique<BfcAllocator>(std::make_unique<HostSubAllocator>(), [] {
        BfcAllocatorOptions o;
        o.memory_limit = 1 << 20;
        o.name = "CPU:7";
        return o;
      }());
  TrackingAllocator tracking(bfc.get(), "CPU:7");
  Device device(DeviceSpec::LocalDevice("CPU", 7), &tracking,
                ThreadPool::Shared());
  Scope root = Scope::NewRootScope();
  Node* node = ops::Const(root.WithOpName("weights"), {1.0f}).node();
  ASSERT_TRUE(root.status().ok());
  OpKernelConstruction construction(*node, &device);
  Probe kernel(&construction);
  OpKernelContext::Params params;
  params.kernel = &kernel;
  params.device = &device;
  OpKernelContext ctx(params);

  Tensor* out = nullptr;
  absl::Status s = ctx.allocate_output(0, TensorShape({512, 1024}), &out);
  ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(s.message(),
              HasSubstr("allocating output 0 of shape [512,1024]: out of "
                        "memory on CPU:7 allocating 2.00 MiB for node "
                        "'weights' (Const): 0 B of 1.0 MiB in use"));
  EXPECT_EQ(ctx.status(), s);

  // Within the limit it works; then a temporary that no longer fits.
  ASSERT_TRUE(ctx.allocate_output(0, TensorShape({128, 1024}), &out).ok());
  OpKernelContext ctx2(params);
  Tensor temp;
  s = ctx2.allocate_temp(DT_FLOAT, TensorShape({200, 1024}), &temp);
  ASSERT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(s.message(), HasSubstr("allocating a temporary float tensor"));
  EXPECT_THAT(s.message(), HasSubstr("512.0 KiB of 1.0 MiB in use"));
  EXPECT_THAT(s.message(), HasSubstr("lower the batch size"));
  // Other allocation errors keep their own message.
  s = ctx2.allocate_temp(DT_FLOAT, TensorShape({-1, 4}), &temp);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), Not(HasSubstr("out of memory")));
}

// Without an explanation (the default allocator), the generic message.
TEST(OutOfMemoryErrorTest, AllocatorsWithoutStateKeepTheGenericMessage) {
  EXPECT_TRUE(DefaultCpuAllocator()->OutOfMemoryError("node 'x' (Y)", 8).ok());
}

TEST_F(GpuSessionHostTest, GpuOptionsAreChecked) {
  SessionOptions options;
  options.gpu_memory_fraction = 1.5;
  absl::StatusOr<std::unique_ptr<DeviceSet>> set =
      CreateSessionDevices(options);
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(), HasSubstr("gpu_memory_fraction"));
  options = SessionOptions();
  options.gpu_virtual_devices = -1;
  EXPECT_FALSE(CreateSessionDevices(options).ok());
  options = SessionOptions();
  options.gpu_virtual_device_memory_limits = {1 << 20, 0};
  set = CreateSessionDevices(options);
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(),
              HasSubstr("gpu_virtual_device_memory_limits[1] = 0"));
  options = SessionOptions();
  options.gpu_virtual_devices = 3;
  options.gpu_virtual_device_memory_limits = {1 << 20, 1 << 20};
  set = CreateSessionDevices(options);
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(), HasSubstr("one limit per virtual GPU"));
  // Checked with fake GPUs too (they replace the real ones, not the check).
  options.fake_gpus = 1;
  EXPECT_FALSE(CreateSessionDevices(options).ok());
  EXPECT_EQ(factory_calls_, 0);
  // Equal shares: the count alone.
  options = SessionOptions();
  options.gpu_virtual_devices = 4;
  ASSERT_TRUE(CreateSessionDevices(options).ok());
  EXPECT_EQ(last_options_.virtual_devices, 4);
  EXPECT_TRUE(last_options_.virtual_device_memory_limits.empty());
}

TEST_F(GpuSessionHostTest, WithoutAFactoryThereAreNoGpusAndNoError) {
  SetDeviceFactory(kDeviceGpu, nullptr);
  EXPECT_FALSE(HasDeviceFactory(kDeviceGpu));
  absl::StatusOr<std::unique_ptr<DeviceSet>> set =
      CreateSessionDevices(SessionOptions());
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ((*set)->devices().size(), 1u);
  absl::StatusOr<std::vector<std::unique_ptr<Device>>> none =
      CreateFactoryDevices("TPU", DeviceFactoryOptions());
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace dflow
