// FusedBatchNormV3 and FusedBatchNormGradV3 on the CPU against TensorFlow's
// values (tools/tf_reference/make_batch_norm_reference.py): NHWC and NCHW,
// training (with and without an exponential average) and inference, within
// 1e-5; the older versions agree with V3; errors name the input.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

struct BatchNormCase {
  std::string name, format;
  bool is_training;
  float avg_factor, epsilon;
  std::vector<int64_t> shape;
  std::vector<float> x, scale, offset, mean, variance, dy;
  // y, batch_mean, batch_variance, reserve_space_1, reserve_space_2,
  // x_backprop, scale_backprop, offset_backprop.
  std::vector<float> y, batch_mean, batch_var, r1, r2, dx, dscale, doffset;
  std::vector<int64_t> r3_shape, r4_shape, r5_shape;
};

const std::vector<BatchNormCase>& Cases() {
  static const auto* cases = new std::vector<BatchNormCase>{
#include "tests/kernels/batch_norm_reference.inc"
  };
  return *cases;
}

Tensor Vec(const std::vector<float>& v) { return Tensor::FromVector<float>(v); }

void ExpectNear(const Tensor& t, const std::vector<float>& want,
                const std::string& what) {
  ASSERT_EQ(t.NumElements(), static_cast<int64_t>(want.size())) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(t.data<float>()[i], want[i], 1e-5 * (1 + std::fabs(want[i])))
        << what << "[" << i << "]";
  }
}

TEST(BatchNormOpsTest, MatchesTensorFlow) {
  ASSERT_EQ(Cases().size(), 5u);
  for (const BatchNormCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    Scope root = Scope::NewRootScope();
    ops::FusedBatchNormAttrs attrs;
    attrs.Epsilon(c.epsilon)
        .ExponentialAvgFactor(c.avg_factor)
        .DataFormat(c.format)
        .IsTraining(c.is_training);
    auto p = [&root] { return ops::Placeholder(root, DT_FLOAT); };
    OutputList fwd = ops::FusedBatchNormV3(root, p(), p(), p(), p(), p(), attrs);
    OutputList bwd =
        ops::FusedBatchNormGradV3(root, p(), p(), p(), p(), p(), p(), attrs);
    ASSERT_TRUE(root.ok()) << root.status();
    const Tensor x = Tensor::FromVector<float>(c.x, TensorShape(c.shape));
    auto out = RunKernel(fwd[0].node(), {x, Vec(c.scale), Vec(c.offset),
                                         Vec(c.mean), Vec(c.variance)});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectNear((*out)[0], c.y, "y");
    ExpectNear((*out)[1], c.batch_mean, "batch_mean");
    ExpectNear((*out)[2], c.batch_var, "batch_variance");
    ExpectNear((*out)[3], c.r1, "reserve_space_1");
    ExpectNear((*out)[4], c.r2, "reserve_space_2");
    EXPECT_EQ((*out)[5].shape(), TensorShape(c.r3_shape));

    const Tensor dy = Tensor::FromVector<float>(c.dy, TensorShape(c.shape));
    auto grads = RunKernel(bwd[0].node(), {dy, x, Vec(c.scale), (*out)[3],
                                           (*out)[4], (*out)[5]});
    ASSERT_TRUE(grads.ok()) << grads.status();
    ExpectNear((*grads)[0], c.dx, "x_backprop");
    ExpectNear((*grads)[1], c.dscale, "scale_backprop");
    ExpectNear((*grads)[2], c.doffset, "offset_backprop");

    // The older versions compute the same.
    OutputList v1 = ops::FusedBatchNorm(root, p(), p(), p(), p(), p(), attrs);
    OutputList v2 = ops::FusedBatchNormV2(root, p(), p(), p(), p(), p(), attrs);
    for (const OutputList& older : {v1, v2}) {
      auto o = RunKernel(older[0].node(), {x, Vec(c.scale), Vec(c.offset),
                                           Vec(c.mean), Vec(c.variance)});
      ASSERT_TRUE(o.ok()) << o.status();
      ExpectNear((*o)[0], c.y, "older y");
      ExpectNear((*o)[2], c.batch_var, "older batch_variance");
    }
  }
}

TEST(BatchNormOpsTest, ShapeFunctionAndErrors) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 5, 3, 3}));
  Output v = ops::Placeholder(root, DT_FLOAT);
  OutputList out = ops::FusedBatchNormV3(
      root, x, v, v, v, v, ops::FusedBatchNormAttrs().DataFormat("NCHW"));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(out[0].shape(), TensorShape({2, 5, 3, 3}));
  EXPECT_EQ(out[1].shape(), TensorShape({5}));
  EXPECT_TRUE(out[5].shape().unknown_rank());

  // A scale of the wrong size: the kernel names the input.
  auto bad = RunKernel(
      out[0].node(),
      {Tensor(DT_FLOAT, TensorShape({2, 5, 3, 3})), Vec({1, 1}),
       Vec({0, 0, 0, 0, 0}), Vec({0, 0, 0, 0, 0}), Vec({1, 1, 1, 1, 1})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("input 'scale' must be a vector of the 5 channels"));

  // And the shape function, when shapes are known.
  Scope bad_root = Scope::NewRootScope();
  Output x2 = ops::Placeholder(bad_root, DT_FLOAT,
                               ops::PlaceholderAttrs().Shape({2, 3}));
  Output v2 = ops::Placeholder(bad_root, DT_FLOAT);
  ops::FusedBatchNormV3(bad_root, x2, v2, v2, v2, v2);
  EXPECT_FALSE(bad_root.ok());
}

}  // namespace
}  // namespace dflow
