// The GPU OpKernels of MatMul, Conv2D (and gradients), MaxPool, AvgPool
// (and gradients), LRN and LRNGrad (kernels/gpu/*_kernels_gpu.cc):
//   - everywhere (CUDA builds): each is registered under its GPU definition
//     for the dtypes it implements (int32 Conv2D is not: cuDNN has none),
//     and the registry validates;
//   - with a GPU: each node runs through the registry on a GpuDevice (device
//     inputs, host-memory shape inputs, outputs allocated by the kernel) and
//     matches the CPU kernel; errors come back as the CPU kernel's.
// The launchers' geometry and dtype coverage is tested in the *_gpu_test
// files; here one case per op checks the kernel classes' wiring.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/device.h"
#include "runtime/gpu/gpu_device.h"
#include "runtime/gpu/gpu_device_factory.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/thread_pool.h"
#include "runtime/variables.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using testing_math::AsDoubles;
using testing_math::ExpectAllNear;
using testing_math::FromDoubles;
using testing_math::RandomValues;

// The nodes of the ops under test, for dtype `t`.
struct Nodes {
  Scope root = Scope::NewRootScope();
  Node* matmul;
  Node* conv;
  Node* conv_input;
  Node* conv_filter;
  Node* max_pool;
  Node* avg_pool;
  Node* max_pool_grad;
  Node* avg_pool_grad;
  Node* lrn;
  Node* lrn_grad;
  DataType lrn_type;

  explicit Nodes(DataType t) {
    auto ph = [&](DataType d) { return ops::Placeholder(root, d); };
    const std::vector<int64_t> strides = {1, 2, 2, 1};
    const std::vector<int64_t> ksize = {1, 3, 3, 1};
    matmul =
        ops::MatMul(root, ph(t), ph(t), ops::MatMulAttrs().TransposeB(true))
            .node();
    conv = ops::Conv2D(root, ph(t), ph(t), strides, "SAME").node();
    conv_input = ops::Conv2DBackpropInput(root, ph(DT_INT32), ph(t), ph(t),
                                          strides, "SAME")
                     .node();
    conv_filter = ops::Conv2DBackpropFilter(root, ph(t), ph(DT_INT32), ph(t),
                                            strides, "SAME")
                      .node();
    max_pool = ops::MaxPool(root, ph(t), ksize, strides, "SAME").node();
    avg_pool = ops::AvgPool(root, ph(t), ksize, strides, "SAME").node();
    max_pool_grad =
        ops::MaxPoolGrad(root, ph(t), ph(t), ph(t), ksize, strides, "SAME")
            .node();
    avg_pool_grad =
        ops::AvgPoolGrad(root, ph(DT_INT32), ph(t), ksize, strides, "SAME")
            .node();
    const auto lrn_attrs =
        ops::LRNAttrs().DepthRadius(2).Bias(1).Alpha(0.1f).Beta(0.75f);
    // The LRN ops take no double: their nodes get half instead.
    lrn_type = t == DT_DOUBLE ? DT_HALF : t;
    lrn = ops::LRN(root, ph(lrn_type), lrn_attrs).node();
    lrn_grad =
        ops::LRNGrad(root, ph(lrn_type), ph(lrn_type), ph(lrn_type), lrn_attrs)
            .node();
  }

  std::vector<Node*> all() const {
    return {matmul,   conv,          conv_input,    conv_filter, max_pool,
            avg_pool, max_pool_grad, avg_pool_grad, lrn,         lrn_grad};
  }
};

TEST(NnKernelsGpuRegistrationTest, ImplementedDtypes) {
  if (!BuiltWithCuda()) GTEST_SKIP() << "a build without CUDA has none";
  const KernelRegistry& registry = *KernelRegistry::Global();
  EXPECT_TRUE(registry.Validate().ok()) << registry.Validate();
  for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    Nodes nodes(t);
    ASSERT_TRUE(nodes.root.status().ok()) << nodes.root.status();
    for (Node* node : nodes.all()) {
      const bool lrn = node == nodes.lrn || node == nodes.lrn_grad;
      const bool conv_grad =
          node == nodes.conv_input || node == nodes.conv_filter;
      // LRN on GPU is float only, and the convolution gradients have no
      // double (the definitions' dtypes).
      EXPECT_EQ(
          registry.IsKernelBuilt(*node, "GPU"),
          lrn ? nodes.lrn_type == DT_FLOAT : !(conv_grad && t == DT_DOUBLE))
          << node->op() << " " << DataTypeName(t);
    }
  }
  for (DataType t : {DT_COMPLEX64, DT_COMPLEX128}) {
    Scope root = Scope::NewRootScope();
    Output m =
        ops::MatMul(root, ops::Placeholder(root, t), ops::Placeholder(root, t));
    EXPECT_TRUE(registry.IsKernelBuilt(*m.node(), "GPU")) << DataTypeName(t);
  }
  // cuDNN does not convolve integers: int32 Conv2D stays defined, unbuilt.
  Scope root = Scope::NewRootScope();
  Output c =
      ops::Conv2D(root, ops::Placeholder(root, DT_INT32),
                  ops::Placeholder(root, DT_INT32), {1, 1, 1, 1}, "VALID");
  EXPECT_FALSE(registry.IsKernelBuilt(*c.node(), "GPU"));
}

#if DFLOW_HAVE_CUDA

class NnKernelsGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DFLOW_SKIP_WITHOUT_GPU();
    absl::StatusOr<GpuAllocatorPool::Lease> lease =
        GpuAllocatorPool::Global()->Acquire(0, 0, 1, {}, 0.3, false);
    ASSERT_TRUE(lease.ok()) << lease.status();
    lease_ = *std::move(lease);
    GpuDeviceOptions options;
    absl::StatusOr<std::unique_ptr<GpuDevice>> device =
        NewGpuDevice(options, lease_.allocators[0], ThreadPool::Shared());
    ASSERT_TRUE(device.ok()) << device.status();
    gpu_ = *std::move(device);
  }

  // Runs `node`'s GPU kernel on `inputs` (host tensors; those named in
  // `host_inputs` stay in host memory, the others are copied to the GPU)
  // and returns its outputs copied back to the host.
  absl::StatusOr<std::vector<Tensor>> RunOnGpu(
      const Node* node, const std::vector<Tensor>& inputs,
      const std::vector<int>& host_inputs = {}) {
    absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
        KernelRegistry::Global()->CreateKernel(*node, gpu_.get());
    if (!kernel.ok()) return kernel.status();
    std::vector<TensorValue> values(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      bool host = false;
      for (int h : host_inputs) host |= h == static_cast<int>(i);
      if (host) {
        values[i].tensor = inputs[i];
        continue;
      }
      Tensor device(gpu_->allocator(), inputs[i].dtype(), inputs[i].shape());
      DFLOW_CUDA_RETURN_IF_ERROR(
          cudaMemcpy(device.raw_data(), inputs[i].raw_data(),
                     inputs[i].TotalBytes(), cudaMemcpyHostToDevice),
          "cudaMemcpy to the GPU");
      values[i].tensor = device;
    }
    // The copies ran on the legacy default stream, which the device's
    // compute stream need not wait for.
    DFLOW_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize(),
                               "cudaDeviceSynchronize");
    VariableStore store;
    OpKernelContext::Params params;
    params.kernel = kernel->get();
    params.device = gpu_.get();
    params.variables = &store;
    params.inputs = values.data();
    OpKernelContext ctx(params);
    (*kernel)->Compute(&ctx);
    if (!ctx.status().ok()) return ctx.status();
    if (absl::Status s = gpu_->streams()->Synchronize(); !s.ok()) return s;
    std::vector<Tensor> out;
    for (TensorValue& v : *ctx.outputs()) {
      Tensor host(v.tensor.dtype(), v.tensor.shape());
      DFLOW_CUDA_RETURN_IF_ERROR(
          cudaMemcpy(host.raw_data(), v.tensor.raw_data(), host.TotalBytes(),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy from the GPU");
      out.push_back(host);
    }
    return out;
  }

  // The node on the GPU and on the CPU, compared to `tolerance`.
  void Compare(const Node* node, const std::vector<Tensor>& inputs,
               double tolerance, const std::vector<int>& host_inputs = {}) {
    SCOPED_TRACE(node->op());
    absl::StatusOr<std::vector<Tensor>> cpu = RunKernel(node, inputs);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<std::vector<Tensor>> gpu =
        RunOnGpu(node, inputs, host_inputs);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    ASSERT_EQ(gpu->size(), cpu->size());
    EXPECT_EQ((*gpu)[0].shape(), (*cpu)[0].shape());
    ExpectAllNear(AsDoubles((*gpu)[0]), AsDoubles((*cpu)[0]), tolerance,
                  tolerance, node->op());
  }

  GpuAllocatorPool::Lease lease_;
  std::unique_ptr<GpuDevice> gpu_;
};

Tensor Random(DataType t, const TensorShape& shape, uint32_t seed) {
  return FromDoubles(t, RandomValues(shape.num_elements(), seed), shape);
}

// Distinct values k / 64 in shuffled order: exact in every float type, and
// no ties for the max gradients to route differently.
Tensor Distinct(DataType t, const TensorShape& shape, uint32_t seed) {
  std::vector<double> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = (static_cast<double>(i) - static_cast<double>(v.size() / 2)) / 64;
  }
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  return FromDoubles(t, v, shape);
}

Tensor Sizes(const TensorShape& s) {
  std::vector<int32_t> v;
  for (int64_t d : s.dims()) v.push_back(static_cast<int32_t>(d));
  return Tensor::FromVector<int32_t>(v);
}

TEST_F(NnKernelsGpuTest, EveryKernelMatchesTheCpu) {
  for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_HALF}) {
    SCOPED_TRACE(DataTypeName(t));
    const double tol = t == DT_HALF ? 2e-2 : t == DT_FLOAT ? 1e-4 : 1e-10;
    Nodes n(t);
    const TensorShape x_shape({2, 7, 8, 3}), w_shape({3, 3, 3, 4});
    const TensorShape y_shape({2, 4, 4, 4}), p_shape({2, 4, 4, 3});
    const Tensor x = Distinct(t, x_shape, 1);
    Compare(
        n.matmul,
        {Random(t, TensorShape({5, 9}), 2), Random(t, TensorShape({6, 9}), 3)},
        tol);
    Compare(n.conv, {x, Random(t, w_shape, 4)}, tol);
    if (t != DT_DOUBLE) {  // no double gradient kernels on GPUs
      Compare(n.conv_input,
              {Sizes(x_shape), Random(t, w_shape, 5), Random(t, y_shape, 6)},
              tol, {0});
      Compare(n.conv_filter, {x, Sizes(w_shape), Random(t, y_shape, 7)}, tol,
              {1});
    }
    Compare(n.max_pool, {x}, 0);
    Compare(n.avg_pool, {x}, tol);
    absl::StatusOr<std::vector<Tensor>> pooled = RunKernel(n.max_pool, {x});
    ASSERT_TRUE(pooled.ok());
    Compare(n.max_pool_grad, {x, (*pooled)[0], Random(t, p_shape, 8)}, tol);
    Compare(n.avg_pool_grad, {Sizes(x_shape), Random(t, p_shape, 9)}, tol, {0});
    if (t == DT_FLOAT) {
      Compare(n.lrn, {x}, 1e-5);
      absl::StatusOr<std::vector<Tensor>> y = RunKernel(n.lrn, {x});
      ASSERT_TRUE(y.ok());
      Compare(n.lrn_grad, {Random(t, x_shape, 10), x, (*y)[0]}, 1e-4);
    }
  }
}

TEST_F(NnKernelsGpuTest, ErrorsAreTheCpuKernels) {
  Nodes n(DT_FLOAT);
  // MatMul's inner dimensions.
  absl::StatusOr<std::vector<Tensor>> r =
      RunOnGpu(n.matmul, {Random(DT_FLOAT, TensorShape({5, 9}), 1),
                          Random(DT_FLOAT, TensorShape({6, 8}), 2)});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("Matrix size-incompatible"));
  // Conv2D's channels.
  r = RunOnGpu(n.conv, {Random(DT_FLOAT, TensorShape({1, 5, 5, 2}), 3),
                        Random(DT_FLOAT, TensorShape({3, 3, 3, 4}), 4)});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("channels"));
  // LRN parameters cuDNN does not take fail when the kernel is built.
  Scope root = Scope::NewRootScope();
  Output lrn = ops::LRN(root, ops::Placeholder(root, DT_FLOAT),
                        ops::LRNAttrs().DepthRadius(9));
  r = RunOnGpu(lrn.node(), {Random(DT_FLOAT, TensorShape({1, 2, 2, 20}), 5)});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("place the op on CPU"));
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace dflow
