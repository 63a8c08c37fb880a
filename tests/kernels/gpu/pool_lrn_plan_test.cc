// The host-side parts of the cuDNN pooling and LRN launchers, without a GPU:
//   - PlanPooling: for the CPU kernels' geometries, the windows, padding and
//     layouts given to cuDNN, run here through a reference of cuDNN's
//     pooling (windows clipped to the input at both ends; averages over the
//     covered inputs), equal the CPU MaxPool and AvgPool kernels; pooling
//     across channels as a 1 x depth_window window over [pixels, 1, 1,
//     depth]; the errors;
//   - ToCudnnLrn: TensorFlow's (depth_radius, bias, alpha, beta) to cuDNN's
//     (n, k, alpha, beta), run here through cuDNN's formula, equals the CPU
//     LRN kernel; the limits cuDNN sets.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "kernels/gpu/lrn_ops_gpu.h"
#include "kernels/gpu/pooling_ops_gpu.h"
#include "runtime/gpu/gpu_discovery.h"
#include "tests/kernels/gpu/pool_test_cases.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using testing_math::AsDoubles;
using testing_math::ExpectAllNear;
using testing_math::FromDoubles;
using testing_math::RandomValues;
using testing_pool::Case;

// cuDNN's 2-D pooling over (h, w) of each (n, c): the window of output
// (oh, ow) starts at (oh * stride - pad) and is clipped to the input.
std::vector<double> CudnnPool(const PoolDnnPlan& plan,
                              const std::vector<double>& x, bool max) {
  const DnnTensorLayout& in = plan.input;
  const DnnTensorLayout& out = plan.output;
  std::vector<double> y(static_cast<size_t>(out.num_elements()), 0.0);
  for (int64_t n = 0; n < out.n; ++n)
    for (int64_t c = 0; c < out.c; ++c)
      for (int64_t oh = 0; oh < out.h; ++oh)
        for (int64_t ow = 0; ow < out.w; ++ow) {
          const int64_t h0 = oh * plan.stride_h - plan.pad_h;
          const int64_t w0 = ow * plan.stride_w - plan.pad_w;
          double best = -std::numeric_limits<double>::infinity(), sum = 0;
          int64_t count = 0;
          for (int64_t h = std::max<int64_t>(h0, 0);
               h < std::min(h0 + plan.window_h, in.h); ++h) {
            for (int64_t w = std::max<int64_t>(w0, 0);
                 w < std::min(w0 + plan.window_w, in.w); ++w) {
              const double v = x[in.Offset(n, c, h, w)];
              best = std::max(best, v);
              sum += v;
              ++count;
            }
          }
          y[out.Offset(n, c, oh, ow)] = max ? best : sum / count;
        }
  return y;
}

class PoolPlanTest : public ::testing::TestWithParam<Case> {};

TEST_P(PoolPlanTest, CudnnPoolingOfThePlanIsTheCpuKernel) {
  const Case& c = GetParam();
  absl::StatusOr<GpuPoolParams> p = testing_pool::ParamsFor(c, DT_DOUBLE);
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<PoolDnnPlan> plan = PlanPooling(*p);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->input.num_elements(), c.input_shape().num_elements());
  EXPECT_EQ(plan->output.num_elements(),
            testing_pool::OutputShape(*p).num_elements());
  const std::vector<double> x = RandomValues(c.input_shape().num_elements(), 7);
  const Tensor xt = FromDoubles(DT_DOUBLE, x, c.input_shape());
  Scope root = Scope::NewRootScope();
  auto max =
      RunKernel(testing_pool::MaxPoolNode(root, DT_DOUBLE, c).node(), {xt});
  ASSERT_TRUE(max.ok()) << max.status();
  ExpectAllNear(CudnnPool(*plan, x, true), AsDoubles((*max)[0]), 0, 0,
                "MaxPool");
  if (c.max_only()) return;
  auto avg =
      RunKernel(testing_pool::AvgPoolNode(root, DT_DOUBLE, c).node(), {xt});
  ASSERT_TRUE(avg.ok()) << avg.status();
  ExpectAllNear(CudnnPool(*plan, x, false), AsDoubles((*avg)[0]), 1e-14, 1e-14,
                "AvgPool");
}

INSTANTIATE_TEST_SUITE_P(Cases, PoolPlanTest,
                         ::testing::ValuesIn(testing_pool::Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

TEST(PoolPlanErrorsTest, Geometry) {
  absl::StatusOr<GpuPoolParams> p =
      testing_pool::ParamsFor(testing_pool::Cases()[1], DT_FLOAT);
  ASSERT_TRUE(p.ok());
  GpuPoolParams bad = *p;
  bad.pad_top = bad.window_rows;
  EXPECT_THAT(std::string(PlanPooling(bad).status().message()),
              HasSubstr("smaller than the window"));
  bad = *p;
  bad.out_rows += 5;
  EXPECT_THAT(std::string(PlanPooling(bad).status().message()),
              HasSubstr("past the end of the input"));
  bad = *p;
  bad.depth_window = 2;  // with spatial pooling
  EXPECT_THAT(std::string(PlanPooling(bad).status().message()),
              HasSubstr("across channels"));
  bad = *p;
  bad.stride_cols = 0;
  EXPECT_EQ(PlanPooling(bad).status().code(),
            absl::StatusCode::kInvalidArgument);
  bad = *p;
  bad.batch = int64_t{1} << 30;
  EXPECT_THAT(std::string(PlanPooling(bad).status().message()),
              HasSubstr("too large for cuDNN"));
}

TEST(PoolPlanErrorsTest, UnsupportedPoolingsFailBeforeTheGpu) {
  absl::StatusOr<GpuPoolParams> p =
      testing_pool::ParamsFor(testing_pool::Cases().back(), DT_FLOAT);
  ASSERT_TRUE(p.ok());
  ASSERT_GT(p->depth_window, 1);
  EXPECT_EQ(LaunchAvgPool(0, nullptr, *p, nullptr, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  p->dtype = DT_INT32;
  EXPECT_THAT(
      std::string(LaunchMaxPool(0, nullptr, *p, nullptr, nullptr).message()),
      BuiltWithCuda() ? HasSubstr("float, double, half or bfloat16")
                      : HasSubstr("without CUDA"));
}

// --- LRN
// ----------------------------------------------------------------------

TEST(LrnConversionTest, TensorFlowToCudnnParameters) {
  GpuLrnParams tf;
  tf.depth_radius = 4;
  tf.bias = 2;
  tf.alpha = 0.001f / 9;
  tf.beta = 0.75f;
  absl::StatusOr<CudnnLrnParams> c = ToCudnnLrn(tf);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->n, 9u);
  EXPECT_DOUBLE_EQ(c->k, 2);
  EXPECT_DOUBLE_EQ(c->alpha, static_cast<double>(tf.alpha) * 9);
  EXPECT_DOUBLE_EQ(c->beta, 0.75);
  tf.depth_radius = 0;
  EXPECT_EQ(ToCudnnLrn(tf)->n, 1u);
  tf.depth_radius = 7;
  EXPECT_EQ(ToCudnnLrn(tf)->n, 15u);
}

TEST(LrnConversionTest, ParametersCudnnRefuses) {
  GpuLrnParams tf;
  tf.depth_radius = 8;
  absl::Status s = ToCudnnLrn(tf).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("depth_radius in [0, 7]"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("place the op on CPU"));
  tf.depth_radius = -1;
  EXPECT_FALSE(ToCudnnLrn(tf).ok());
  tf.depth_radius = 2;
  tf.bias = 0;
  EXPECT_THAT(std::string(ToCudnnLrn(tf).status().message()),
              HasSubstr("bias >= 1e-5"));
  tf.bias = 1;
  tf.beta = 0.001f;
  EXPECT_THAT(std::string(ToCudnnLrn(tf).status().message()),
              HasSubstr("beta >= 0.01"));
  tf.beta = std::nanf("");
  EXPECT_FALSE(ToCudnnLrn(tf).ok());
}

// cuDNN's formula, y[d] = x[d] / (k + alpha / n * sum(x[j]^2, centred
// window of n))^beta, with the converted parameters equals the CPU kernel.
TEST(LrnConversionTest, CudnnFormulaWithConvertedParametersIsTheCpuKernel) {
  uint32_t seed = 1;
  for (int64_t radius : {0, 1, 3, 7}) {
    for (int64_t depth : {1, 4, 15, 20}) {
      GpuLrnParams tf;
      tf.depth_radius = radius;
      tf.bias = 1.5f;
      tf.alpha = 0.3f;
      tf.beta = 0.75f;
      absl::StatusOr<CudnnLrnParams> c = ToCudnnLrn(tf);
      ASSERT_TRUE(c.ok());
      const TensorShape shape({2, 3, 1, depth});
      const std::vector<double> x =
          RandomValues(shape.num_elements(), seed++, -2, 2);
      std::vector<double> y(x.size());
      const int64_t half = (static_cast<int64_t>(c->n) - 1) / 2;
      for (int64_t pixel = 0; pixel < shape.num_elements() / depth; ++pixel) {
        for (int64_t d = 0; d < depth; ++d) {
          double sum = 0;
          for (int64_t j = std::max<int64_t>(0, d - half);
               j <= std::min(depth - 1, d + half); ++j) {
            const double v = x[pixel * depth + j];
            sum += v * v;
          }
          y[pixel * depth + d] =
              x[pixel * depth + d] /
              std::pow(c->k + c->alpha / c->n * sum, c->beta);
        }
      }
      Scope root = Scope::NewRootScope();
      Output node = ops::LRN(root, ops::Placeholder(root, DT_FLOAT),
                             ops::LRNAttrs()
                                 .DepthRadius(tf.depth_radius)
                                 .Bias(tf.bias)
                                 .Alpha(tf.alpha)
                                 .Beta(tf.beta));
      auto cpu = RunKernel(node.node(), {FromDoubles(DT_FLOAT, x, shape)});
      ASSERT_TRUE(cpu.ok()) << cpu.status();
      // The CPU kernel computes in float from float-rounded inputs.
      ExpectAllNear(y, AsDoubles((*cpu)[0]), 2e-6, 1e-6,
                    absl::StrCat("radius ", radius, " depth ", depth));
    }
  }
}

}  // namespace
}  // namespace dflow
