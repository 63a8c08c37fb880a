// The OpKernel classes over the element-wise, reduction/softmax, optimizer
// and random launchers (kernels/gpu:math_kernels_gpu): every implementation
// matches a definition, the implemented op/dtype pairs are built in CUDA
// builds and the ones left to the definitions are not (these run
// everywhere); and a graph of them computed on /gpu:0 in a session agrees
// with the same graph on /cpu:0 (needs a GPU; skips without one).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/kernel_registry.h"
#include "runtime/session.h"
#include "tests/kernels/gpu/cwise_gpu_test_util.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace testing_gpu {
namespace {

TEST(MathKernelsGpuTest, ImplementationsMatchTheirDefinitions) {
  absl::Status s = KernelRegistry::Global()->Validate();
  EXPECT_TRUE(s.ok()) << s;
}

bool Built(const Output& o) {
  return KernelRegistry::Global()->IsKernelBuilt(*o.node(), kDeviceGpu);
}

TEST(MathKernelsGpuTest, ImplementedDtypesAreBuilt) {
  if (!BuiltWithCuda()) GTEST_SKIP() << "a build without CUDA";
  Scope root = Scope::NewRootScope();
  for (DataType t : {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}) {
    SCOPED_TRACE(DataTypeName(t));
    auto x = ops::Placeholder(root, t);
    auto axes = ops::Placeholder(root, DT_INT32);
    EXPECT_TRUE(Built(ops::Exp(root, x)));
    EXPECT_TRUE(Built(ops::Relu(root, x)));
    EXPECT_TRUE(Built(ops::TanhGrad(root, x, x)));
    EXPECT_TRUE(Built(ops::Add(root, x, x)));
    EXPECT_TRUE(Built(ops::RealDiv(root, x, x)));
    EXPECT_TRUE(Built(ops::Equal(root, x, x)));
    EXPECT_TRUE(Built(ops::Sum(root, x, axes)));
    EXPECT_TRUE(Built(ops::Max(root, x, axes)));
    EXPECT_TRUE(Built(ops::ArgMax(root, x, axes)));
    EXPECT_TRUE(Built(ops::BiasAdd(root, x, x)));
    EXPECT_TRUE(Built(ops::L2Loss(root, x)));
    EXPECT_TRUE(Built(ops::Softmax(root, x)));
    EXPECT_TRUE(Built(ops::SparseSoftmaxCrossEntropyWithLogits(
                          root, x, ops::Placeholder(root, DT_INT64))
                          .loss));
    EXPECT_TRUE(Built(ops::RandomUniform(root, axes, t)));
    EXPECT_TRUE(Built(ops::TruncatedNormal(root, axes, t)));
  }
  auto i64 = ops::Placeholder(root, DT_INT64);
  EXPECT_TRUE(Built(ops::Mul(root, i64, i64)));
  EXPECT_TRUE(Built(ops::Sum(root, i64, ops::Placeholder(root, DT_INT64))));
  EXPECT_TRUE(Built(ops::Relu(root, ops::Placeholder(root, DT_INT8))));
  auto b = ops::Placeholder(root, DT_BOOL);
  EXPECT_TRUE(Built(ops::Equal(root, b, b)));
  // Left to the definitions: complex types and TensorFlow's int32 host
  // kernels.
  auto c = ops::Placeholder(root, DT_COMPLEX64);
  EXPECT_FALSE(Built(ops::Add(root, c, c)));
  auto i32 = ops::Placeholder(root, DT_INT32);
  EXPECT_FALSE(Built(ops::Add(root, i32, i32)));
  EXPECT_FALSE(Built(ops::Sum(root, i32, i32)));
  ASSERT_TRUE(root.status().ok()) << root.status();
}

// A forward and backward pass of a small classifier's pieces, built on
// `device`: fetched by name.
GraphDef Classifier(const std::string& device) {
  Scope root = Scope::NewRootScope();
  Scope d = root.WithDevice(device);
  ops::RandomAttrs seeds;
  seeds.seed = 7;
  seeds.seed2 = 11;
  Output shape = ops::Const(root.WithOpName("shape"), {64, 10});
  Output x =
      ops::RandomStandardNormal(d.WithOpName("x"), shape, DT_FLOAT, seeds);
  Output u = ops::RandomUniform(d.WithOpName("u"), shape, DT_FLOAT, seeds);
  Output bias = ops::Const(
      d.WithOpName("bias"),
      {0.1f, -0.2f, 0.3f, 0.0f, 0.5f, -0.6f, 0.7f, 0.8f, -0.9f, 1.0f});
  Output h =
      ops::Relu(d.WithOpName("h"),
                ops::BiasAdd(d.WithOpName("biased"),
                             ops::Mul(d.WithOpName("scaled"), x, u), bias));
  Output labels = ops::ArgMax(d.WithOpName("labels"), u,
                              ops::Const(root.WithOpName("axis"), 1));
  auto xent =
      ops::SparseSoftmaxCrossEntropyWithLogits(d.WithOpName("xent"), h, labels);
  ops::Mean(d.WithOpName("loss"), xent.loss, ops::Const(root, {0}));
  ops::BiasAddGrad(d.WithOpName("dbias"), xent.backprop);
  ops::Softmax(d.WithOpName("probs"), h);
  ops::Sum(d.WithOpName("colsum"), ops::Square(d, h), ops::Const(root, {0}));
  ops::TruncatedNormal(d.WithOpName("t"), shape, DT_FLOAT, seeds);
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  return def;
}

TEST(MathKernelsGpuTest, AGraphOnTheGpuAgreesWithTheCpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  const std::vector<std::string> fetches = {
      "x", "u", "h", "labels", "loss", "dbias", "probs", "colsum", "t"};
  std::vector<std::vector<Tensor>> results;
  for (const std::string device : {"/cpu:0", "/gpu:0"}) {
    SessionOptions options;
    options.device_count = {{"GPU", 1}};
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Create(Classifier(device), options);
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<Tensor> out;
    absl::Status s = (*session)->Run({}, fetches, {}, &out);
    ASSERT_TRUE(s.ok()) << device << ": " << s;
    results.push_back(out);
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    const bool exact = fetches[i] == "x" || fetches[i] == "u" ||
                       fetches[i] == "t" || fetches[i] == "labels";
    if (exact) {
      ExpectBitwiseEqual(results[1][i], results[0][i], fetches[i]);
    } else {
      ExpectAllClose(results[1][i], results[0][i], {1e-5, 1e-6}, fetches[i]);
    }
  }
}

}  // namespace
}  // namespace testing_gpu
}  // namespace dflow
