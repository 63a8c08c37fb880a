// MaxPool, AvgPool, MaxPoolGrad, AvgPoolGrad (kernels/gpu/
// pooling_ops_gpu.h) and LRN, LRNGrad (kernels/gpu/lrn_ops_gpu.h) through
// cuDNN against the CPU kernels on fresh inputs: SAME padding with one more
// row after than before, VALID, EXPLICIT, windows larger than the input,
// pooling across channels; float, double, half, bfloat16 for pooling, and
// float for LRN over radii 0..7. Outputs are poisoned first. Skips without
// a GPU.
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "kernels/gpu/lrn_ops_gpu.h"
#include "kernels/gpu/pooling_ops_gpu.h"
#include "tests/kernels/gpu/gpu_launcher_test_util.h"
#include "tests/kernels/gpu/pool_test_cases.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"

namespace dflow {
namespace {

#if DFLOW_HAVE_CUDA

using testing_gpu::GpuLauncherTest;
using testing_math::AsDoubles;
using testing_math::ExpectAllNear;
using testing_math::FromDoubles;
using testing_math::RandomValues;
using testing_pool::Case;

// Rounding of one average (or one sum of a few averages) in `dtype`.
double Tolerance(DataType dtype) {
  switch (dtype) {
    case DT_DOUBLE:
      return 1e-14;
    case DT_HALF:
      return 2e-3;
    case DT_BFLOAT16:
      return 1.6e-2;
    default:
      return 1e-6;
  }
}

class PoolingGpuTest : public GpuLauncherTest {
 protected:
  void CheckCase(const Case& c, DataType dtype, uint32_t seed) {
    const std::string what = absl::StrCat(c.name, " ", DataTypeName(dtype));
    SCOPED_TRACE(what);
    absl::StatusOr<GpuPoolParams> params = testing_pool::ParamsFor(c, dtype);
    ASSERT_TRUE(params.ok()) << params.status();
    const GpuPoolParams& p = *params;
    const TensorShape x_shape = c.input_shape();
    const TensorShape y_shape = testing_pool::OutputShape(p);
    const Tensor x = FromDoubles(
        dtype, testing_pool::DistinctValues(x_shape.num_elements(), seed),
        x_shape);
    const Tensor dy = FromDoubles(
        dtype, RandomValues(y_shape.num_elements(), seed + 1), y_shape);
    Scope root = Scope::NewRootScope();
    auto x_gpu = Upload(x);
    auto dy_gpu = Upload(dy);

    // MaxPool.
    absl::StatusOr<std::vector<Tensor>> cpu_max =
        RunKernel(testing_pool::MaxPoolNode(root, dtype, c).node(), {x});
    ASSERT_TRUE(cpu_max.ok()) << cpu_max.status();
    const Tensor& y_max = (*cpu_max)[0];
    ASSERT_EQ(y_max.shape(), y_shape);
    auto y_gpu = Poisoned(dtype, y_shape);
    absl::Status s = LaunchMaxPool(0, stream(), p, x_gpu->get(), y_gpu->get());
    ASSERT_TRUE(s.ok()) << s;
    ExpectAllNear(AsDoubles(Download(*y_gpu, dtype, y_shape)), AsDoubles(y_max),
                  0, 0, "MaxPool " + what);

    if (c.kd == 1) {
      // MaxPoolGrad, with the CPU's output as orig_output.
      absl::StatusOr<std::vector<Tensor>> cpu = RunKernel(
          testing_pool::MaxPoolGradNode(root, dtype, c).node(), {x, y_max, dy});
      ASSERT_TRUE(cpu.ok()) << cpu.status();
      auto y_in = Upload(y_max);
      auto dx_gpu = Poisoned(dtype, x_shape);
      s = LaunchMaxPoolGrad(0, stream(), p, x_gpu->get(), y_in->get(),
                            dy_gpu->get(), dx_gpu->get());
      ASSERT_TRUE(s.ok()) << s;
      // Sums of a few gradients routed to one element.
      ExpectAllNear(AsDoubles(Download(*dx_gpu, dtype, x_shape)),
                    AsDoubles((*cpu)[0]), Tolerance(dtype), Tolerance(dtype),
                    "MaxPoolGrad " + what);
    }
    if (c.max_only()) return;

    // AvgPool.
    absl::StatusOr<std::vector<Tensor>> cpu_avg =
        RunKernel(testing_pool::AvgPoolNode(root, dtype, c).node(), {x});
    ASSERT_TRUE(cpu_avg.ok()) << cpu_avg.status();
    y_gpu = Poisoned(dtype, y_shape);
    s = LaunchAvgPool(0, stream(), p, x_gpu->get(), y_gpu->get());
    ASSERT_TRUE(s.ok()) << s;
    ExpectAllNear(AsDoubles(Download(*y_gpu, dtype, y_shape)),
                  AsDoubles((*cpu_avg)[0]), Tolerance(dtype), Tolerance(dtype),
                  "AvgPool " + what);

    // AvgPoolGrad.
    std::vector<int32_t> dims;
    for (int64_t d : x_shape.dims()) dims.push_back(static_cast<int32_t>(d));
    absl::StatusOr<std::vector<Tensor>> cpu_grad =
        RunKernel(testing_pool::AvgPoolGradNode(root, dtype, c).node(),
                  {Tensor::FromVector<int32_t>(dims), dy});
    ASSERT_TRUE(cpu_grad.ok()) << cpu_grad.status();
    auto dx_gpu = Poisoned(dtype, x_shape);
    s = LaunchAvgPoolGrad(0, stream(), p, dy_gpu->get(), dx_gpu->get());
    ASSERT_TRUE(s.ok()) << s;
    ExpectAllNear(AsDoubles(Download(*dx_gpu, dtype, x_shape)),
                  AsDoubles((*cpu_grad)[0]), 4 * Tolerance(dtype),
                  4 * Tolerance(dtype), "AvgPoolGrad " + what);
  }
};

TEST_F(PoolingGpuTest, EveryCaseAndDtypeMatchesCpu) {
  uint32_t seed = 1;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    for (const Case& c : testing_pool::Cases()) CheckCase(c, dtype, seed++);
  }
}

TEST_F(PoolingGpuTest, MaxPoolSkipsNaNs) {
  Case c = testing_pool::Cases()[0];  // 2x2 windows, stride 2
  absl::StatusOr<GpuPoolParams> p = testing_pool::ParamsFor(c, DT_FLOAT);
  ASSERT_TRUE(p.ok());
  std::vector<double> v =
      testing_pool::DistinctValues(c.input_shape().num_elements(), 5);
  v[0] = std::nan("");  // one NaN in the first window
  const Tensor x = FromDoubles(DT_FLOAT, v, c.input_shape());
  Scope root = Scope::NewRootScope();
  absl::StatusOr<std::vector<Tensor>> cpu =
      RunKernel(testing_pool::MaxPoolNode(root, DT_FLOAT, c).node(), {x});
  ASSERT_TRUE(cpu.ok());
  auto x_gpu = Upload(x);
  const TensorShape y_shape = testing_pool::OutputShape(*p);
  auto y_gpu = Poisoned(DT_FLOAT, y_shape);
  ASSERT_TRUE(LaunchMaxPool(0, stream(), *p, x_gpu->get(), y_gpu->get()).ok());
  ExpectAllNear(AsDoubles(Download(*y_gpu, DT_FLOAT, y_shape)),
                AsDoubles((*cpu)[0]), 0, 0, "MaxPool with a NaN");
}

TEST_F(PoolingGpuTest, GradientsOfEmptyOutputsAreZero) {
  GpuPoolParams p;
  p.batch = 1;
  p.in_rows = p.in_cols = 4;
  p.depth = p.out_depth = 2;
  p.window_rows = p.window_cols = 2;
  p.out_rows = 0;  // as if a dimension were empty
  p.out_cols = 2;
  const TensorShape x_shape({1, 4, 4, 2});
  auto dx = Poisoned(DT_FLOAT, x_shape);
  ASSERT_TRUE(LaunchAvgPoolGrad(0, stream(), p, nullptr, dx->get()).ok());
  for (double v : AsDoubles(Download(*dx, DT_FLOAT, x_shape))) EXPECT_EQ(v, 0);
}

class LrnGpuTest : public GpuLauncherTest {};

TEST_F(LrnGpuTest, MatchesCpuOverTheRadiiCudnnTakes) {
  struct LrnCase {
    int64_t radius;
    float bias, alpha, beta;
    int64_t depth;
  };
  const std::vector<LrnCase> cases = {
      {0, 1, 1, 0.5f, 5},       {1, 2, 0.5f, 0.75f, 1},
      {2, 1, 1e-4f, 0.75f, 16}, {4, 1, 0.001f / 9, 0.75f, 64},
      {5, 1, 1, 0.5f, 33},      {7, 0.5f, 0.2f, 1, 20},
      {3, 1e-4f, 2, 0.02f, 9},
  };
  uint32_t seed = 1;
  for (const LrnCase& lc : cases) {
    const std::string what =
        absl::StrCat("radius ", lc.radius, " bias ", lc.bias, " alpha ",
                     lc.alpha, " beta ", lc.beta, " depth ", lc.depth);
    SCOPED_TRACE(what);
    const TensorShape shape({2, 3, 4, lc.depth});
    const std::array<int64_t, 4> dims = {2, 3, 4, lc.depth};
    const Tensor x = FromDoubles(
        DT_FLOAT, RandomValues(shape.num_elements(), seed++, -2, 2), shape);
    const Tensor dy = FromDoubles(
        DT_FLOAT, RandomValues(shape.num_elements(), seed++), shape);
    Scope root = Scope::NewRootScope();
    const auto attrs = ops::LRNAttrs()
                           .DepthRadius(lc.radius)
                           .Bias(lc.bias)
                           .Alpha(lc.alpha)
                           .Beta(lc.beta);
    Output y_node = ops::LRN(root, ops::Placeholder(root, DT_FLOAT), attrs);
    Output dx_node = ops::LRNGrad(root, ops::Placeholder(root, DT_FLOAT),
                                  ops::Placeholder(root, DT_FLOAT),
                                  ops::Placeholder(root, DT_FLOAT), attrs);
    absl::StatusOr<std::vector<Tensor>> y = RunKernel(y_node.node(), {x});
    ASSERT_TRUE(y.ok()) << y.status();
    absl::StatusOr<std::vector<Tensor>> dx =
        RunKernel(dx_node.node(), {dy, x, (*y)[0]});
    ASSERT_TRUE(dx.ok()) << dx.status();

    GpuLrnParams p;
    p.depth_radius = lc.radius;
    p.bias = lc.bias;
    p.alpha = lc.alpha;
    p.beta = lc.beta;
    auto x_gpu = Upload(x);
    auto y_in = Upload((*y)[0]);
    auto dy_gpu = Upload(dy);
    auto y_gpu = Poisoned(DT_FLOAT, shape);
    auto dx_gpu = Poisoned(DT_FLOAT, shape);
    absl::Status s =
        LaunchLrn(0, stream(), DT_FLOAT, dims, p, x_gpu->get(), y_gpu->get());
    ASSERT_TRUE(s.ok()) << s;
    s = LaunchLrnGrad(0, stream(), DT_FLOAT, dims, p, dy_gpu->get(),
                      x_gpu->get(), y_in->get(), dx_gpu->get());
    ASSERT_TRUE(s.ok()) << s;
    ExpectAllNear(AsDoubles(Download(*y_gpu, DT_FLOAT, shape)),
                  AsDoubles((*y)[0]), 1e-5, 1e-6, "LRN " + what);
    ExpectAllNear(AsDoubles(Download(*dx_gpu, DT_FLOAT, shape)),
                  AsDoubles((*dx)[0]), 1e-4, 1e-5, "LRNGrad " + what);
  }
}

TEST_F(LrnGpuTest, ParametersCudnnRefusesAreInvalidArgument) {
  GpuLrnParams p;
  p.depth_radius = 8;
  absl::Status s =
      LaunchLrn(0, stream(), DT_FLOAT, {1, 1, 1, 20}, p, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(std::string(s.message()).find("place the op on CPU"),
            std::string::npos)
      << s;
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace dflow
