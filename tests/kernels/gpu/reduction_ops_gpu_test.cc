// The reduction-shaped launchers (kernels/gpu/reduction_ops_gpu.h) against
// the CPU kernels on fresh random inputs: Sum/Mean/Prod/Max/Min over axis
// sets of many shapes (empty, size-1, long rows chunked over several
// passes, several reduced runs), L2Loss, ArgMax (ties, both output types),
// BiasAdd and BiasAddGrad in NHWC and NCHW, Softmax/LogSoftmax (warp and
// block rows), SoftmaxCrossEntropyWithLogits (with broadcast labels) and
// the sparse loss (int32 and int64 labels, an out-of-range label). Also:
// reductions reproduce themselves bit for bit. Outputs are poisoned before
// every launch. Skips without a GPU.
#include "kernels/gpu/reduction_ops_gpu.h"

#include <cmath>
#include <string>
#include <vector>

#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "kernels/gpu/gpu_shape_plans.h"
#include "tests/kernels/gpu/cwise_gpu_test_util.h"
#include "tests/kernels/gpu/gpu_launcher_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"

namespace dflow {
namespace testing_gpu {
namespace {

#if DFLOW_HAVE_CUDA

using testing_math::AsDoubles;
using testing_math::FromDoubles;
using testing_math::RandomValues;

const std::vector<DataType> kFloats = {DT_FLOAT, DT_DOUBLE, DT_HALF,
                                       DT_BFLOAT16};

std::vector<int64_t> Dims(const TensorShape& s) {
  return std::vector<int64_t>(s.dims().begin(), s.dims().end());
}

class ReductionGpuTest : public GpuLauncherTest {
 protected:
  cudaStream_t s() const { return static_cast<cudaStream_t>(stream()); }

  Tensor RunReduce(GpuReduction op, const Tensor& x, const ReducePlan& plan) {
    const TensorShape out_shape(plan.output_shape);
    auto dx = Upload(x);
    auto dout = Poisoned(x.dtype(), out_shape);
    const int64_t ws_bytes = ReduceWorkspaceBytes(plan, Gpu(x.dtype()));
    DeviceBuffer ws(ws_bytes + 4);
    absl::Status st = LaunchReduce(op, Gpu(x.dtype()), plan, dx->get(),
                                   dout->get(), ws.get(), ws_bytes, s());
    EXPECT_TRUE(st.ok()) << st;
    return Download(*dout, x.dtype(), out_shape);
  }
};

struct ReduceCase {
  TensorShape shape;
  std::vector<int64_t> axes;
};

const std::vector<ReduceCase> kReduceCases = {
    {{}, {}},
    {{1}, {0}},
    {{7}, {0}},
    {{0}, {0}},
    {{3, 0}, {1}},
    {{0, 3}, {1}},
    {{5, 7}, {1}},
    {{5, 7}, {0}},
    {{5, 7}, {0, 1}},
    {{5, 7}, {}},
    {{3, 1, 4}, {1}},
    {{100003}, {0}},
    {{4, 3000}, {1}},
    {{3, 20000}, {1}},  // chunked rows
    {{1000, 3}, {0}},   // chunked columns
    {{2, 5, 3, 4}, {0, 2}},
    {{4, 3, 5, 5}, {0, 2, 3}},
    {{2, 600, 3, 2}, {1, 3}},
    {{64, 1024}, {0}},
    {{300000}, {-1}},
};

std::vector<double> ReduceInputs(const char* op, DataType dtype, int64_t n,
                                 uint32_t seed) {
  std::vector<double> v;
  if (std::string(op) == "Prod") {
    v = RandomValues(n, seed, 0.97, 1.03);
  } else {
    v = RandomValues(n, seed, -10, 10);
  }
  if (dtype == DT_INT64) {
    for (double& d : v)
      d = std::round(d * (std::string(op) == "Prod" ? 0 : 100)) +
          (std::string(op) == "Prod" ? 1 : 0);
  }
  return v;
}

TEST_F(ReductionGpuTest, ReductionsMatchTheCpuKernels) {
  const std::vector<std::pair<GpuReduction, const char*>> ops_list = {
      {GpuReduction::kSum, "Sum"},
      {GpuReduction::kMean, "Mean"},
      {GpuReduction::kProd, "Prod"},
      {GpuReduction::kMax, "Max"},
      {GpuReduction::kMin, "Min"}};
  uint32_t seed = 1;
  std::vector<DataType> types = kFloats;
  types.push_back(DT_INT64);
  for (const auto& [op, name] : ops_list) {
    for (DataType dtype : types) {
      for (const ReduceCase& c : kReduceCases) {
        Scope root = Scope::NewRootScope();
        auto x_ph = ops::Placeholder(root, dtype);
        auto axes_ph = ops::Placeholder(root, DT_INT64);
        Output y;
        const std::string n(name);
        if (n == "Sum") y = ops::Sum(root, x_ph, axes_ph);
        if (n == "Mean") y = ops::Mean(root, x_ph, axes_ph);
        if (n == "Prod") y = ops::Prod(root, x_ph, axes_ph);
        if (n == "Max") y = ops::Max(root, x_ph, axes_ph);
        if (n == "Min") y = ops::Min(root, x_ph, axes_ph);
        ASSERT_TRUE(root.status().ok()) << root.status();
        const Tensor x = FromDoubles(
            dtype, ReduceInputs(name, dtype, c.shape.num_elements(), seed++),
            c.shape);
        const Tensor axes = Tensor::FromVector<int64_t>(c.axes);
        const Tensor want = CpuOutput(y.node(), {x, axes});
        absl::StatusOr<ReducePlan> plan = MakeReducePlan(Dims(c.shape), c.axes);
        ASSERT_TRUE(plan.ok()) << plan.status();
        Tolerance tol = ToleranceFor(dtype);
        // Sums of many terms: rounding grows with the count (relative to the
        // sum of magnitudes, which the inputs' range bounds).
        const double count = static_cast<double>(plan->reduce_count);
        if (n == "Sum") tol.atol += 10.0 * count * tol.rtol;
        if (n == "Mean") tol.atol += 10.0 * tol.rtol;
        if (n == "Prod") tol.rtol *= std::max(1.0, std::sqrt(count));
        ExpectAllClose(RunReduce(op, x, *plan), want, tol,
                       absl::StrCat(name, " ", DataTypeName(dtype), " ",
                                    c.shape.ToString(), " over ",
                                    ::testing::PrintToString(c.axes)));
      }
    }
  }
}

TEST_F(ReductionGpuTest, ReductionsAreReproducibleBitForBit) {
  const TensorShape shape({3, 400000});
  const Tensor x =
      FromDoubles(DT_FLOAT, RandomValues(shape.num_elements(), 9), shape);
  for (const auto& axes : std::vector<std::vector<int64_t>>{{1}, {0}, {0, 1}}) {
    const ReducePlan plan = *MakeReducePlan(Dims(shape), axes);
    const Tensor first = RunReduce(GpuReduction::kSum, x, plan);
    for (int i = 0; i < 3; ++i) {
      ExpectBitwiseEqual(RunReduce(GpuReduction::kSum, x, plan), first,
                         "Sum over " + ::testing::PrintToString(axes));
    }
  }
}

TEST_F(ReductionGpuTest, MaxPropagatesNan) {
  const Tensor x = Tensor::FromVector<float>({1, std::nanf(""), 3, 2});
  const Tensor y = RunReduce(GpuReduction::kMax, x, *MakeReducePlan({4}, {0}));
  EXPECT_TRUE(std::isnan(y.data<float>()[0]));
}

TEST_F(ReductionGpuTest, L2LossMatchesTheCpuKernel) {
  for (DataType dtype : kFloats) {
    Scope root = Scope::NewRootScope();
    Output y = ops::L2Loss(root, ops::Placeholder(root, dtype));
    for (int64_t n : {0, 1, 7, 1000, 100003}) {
      const Tensor x = FromDoubles(dtype, RandomValues(n, 3), TensorShape({n}));
      auto dx = Upload(x);
      auto dout = Poisoned(dtype, TensorShape({}));
      const int64_t ws_bytes = L2LossWorkspaceBytes(n, Gpu(dtype));
      DeviceBuffer ws(ws_bytes + 4);
      ASSERT_TRUE(LaunchL2Loss(Gpu(dtype), dx->get(), n, dout->get(), ws.get(),
                               ws_bytes, s())
                      .ok());
      Tolerance tol = ToleranceFor(dtype);
      tol.rtol *= 10;
      ExpectAllClose(Download(*dout, dtype, TensorShape({})),
                     CpuOutput(y.node(), {x}), tol,
                     absl::StrCat("L2Loss ", DataTypeName(dtype), " ", n));
    }
  }
}

TEST_F(ReductionGpuTest, ArgMaxMatchesTheCpuKernel) {
  struct Case {
    TensorShape shape;
    int axis;
  };
  const std::vector<Case> cases = {
      {{1}, 0},          {{7}, 0},       {{5, 7}, 1}, {{5, 7}, 0},
      {{3, 1000, 2}, 1}, {{4, 5000}, 1}, {{0, 3}, 1}, {{2, 3, 4}, -1}};
  std::vector<DataType> types = kFloats;
  types.push_back(DT_BOOL);
  uint32_t seed = 50;
  for (DataType dtype : types) {
    for (DataType out_type : {DT_INT32, DT_INT64}) {
      for (const Case& c : cases) {
        Scope root = Scope::NewRootScope();
        Output y = ops::ArgMax(root, ops::Placeholder(root, dtype),
                               ops::Placeholder(root, DT_INT32),
                               ops::ArgMaxAttrs().OutputType(out_type));
        std::vector<double> v =
            RandomValues(c.shape.num_elements(), seed++, -3, 3);
        for (double& d : v) d = dtype == DT_BOOL ? (d > 1.5) : std::round(d);
        Tensor x = FromDoubles(dtype == DT_BOOL ? DT_UINT8 : dtype, v, c.shape);
        if (dtype == DT_BOOL) {
          Tensor b(DT_BOOL, c.shape);
          std::memcpy(b.raw_data(), x.raw_data(), x.NumElements());
          x = b;
        }
        const Tensor want =
            CpuOutput(y.node(), {x, Tensor::Scalar<int32_t>(c.axis)});
        const int rank = c.shape.rank();
        const int a = c.axis < 0 ? c.axis + rank : c.axis;
        int64_t outer = 1, inner = 1;
        for (int i = 0; i < rank; ++i) {
          if (i < a) outer *= c.shape.dim(i);
          if (i > a) inner *= c.shape.dim(i);
        }
        auto dx = Upload(x);
        auto dout = Poisoned(out_type, want.shape());
        ASSERT_TRUE(LaunchArgMax(Gpu(dtype), Gpu(out_type), dx->get(), outer,
                                 c.shape.dim(a), inner, dout->get(), s())
                        .ok());
        ExpectAllClose(Download(*dout, out_type, want.shape()), want, {0, 0},
                       absl::StrCat("ArgMax ", DataTypeName(dtype), " ",
                                    c.shape.ToString(), " axis ", c.axis));
      }
    }
  }
}

TEST_F(ReductionGpuTest, BiasAddAndGradMatchTheCpuKernels) {
  struct Case {
    TensorShape shape;
    bool nchw;
  };
  const std::vector<Case> cases = {{{2, 3}, false},       {{4, 5, 6, 7}, false},
                                   {{4, 5, 6, 7}, true},  {{0, 3}, false},
                                   {{3, 2}, true},        {{64, 300}, false},
                                   {{2, 9, 50, 50}, true}};
  std::vector<DataType> types = kFloats;
  types.push_back(DT_INT64);
  uint32_t seed = 200;
  for (DataType dtype : types) {
    for (const Case& c : cases) {
      const std::string format = c.nchw ? "NCHW" : "NHWC";
      const int channel_dim = c.nchw ? 1 : c.shape.rank() - 1;
      const int64_t channels = c.shape.dim(channel_dim);
      Scope root = Scope::NewRootScope();
      Output add = ops::BiasAdd(root, ops::Placeholder(root, dtype),
                                ops::Placeholder(root, dtype),
                                ops::BiasAddAttrs().DataFormat(format));
      Output grad = ops::BiasAddGrad(root, ops::Placeholder(root, dtype),
                                     ops::BiasAddAttrs().DataFormat(format));
      ASSERT_TRUE(root.status().ok()) << root.status();
      std::vector<double> xv =
          RandomValues(c.shape.num_elements(), seed++, -5, 5);
      std::vector<double> bv = RandomValues(channels, seed++, -5, 5);
      if (dtype == DT_INT64) {
        for (double& d : xv) d = std::round(d * 100);
        for (double& d : bv) d = std::round(d * 100);
      }
      const Tensor x = FromDoubles(dtype, xv, c.shape);
      const Tensor b = FromDoubles(dtype, bv, TensorShape({channels}));
      const std::string label = absl::StrCat(DataTypeName(dtype), " ",
                                             c.shape.ToString(), " ", format);
      // NCHW of rank 2 is channels last.
      int64_t inner = 1;
      if (c.nchw && c.shape.rank() > 2) {
        for (int i = 2; i < c.shape.rank(); ++i) inner *= c.shape.dim(i);
      }
      auto dx = Upload(x);
      auto db = Upload(b);
      auto dout = Poisoned(dtype, c.shape);
      ASSERT_TRUE(LaunchBiasAdd(Gpu(dtype), dx->get(), db->get(), dout->get(),
                                x.NumElements(), channels, inner, s())
                      .ok());
      ExpectAllClose(Download(*dout, dtype, c.shape),
                     CpuOutput(add.node(), {x, b}), ToleranceFor(dtype),
                     "BiasAdd " + label);
      // BiasAddGrad: a sum over every dimension but the channels.
      std::vector<bool> mask(c.shape.rank(), true);
      mask[channel_dim] = false;
      const ReducePlan plan = MakeReducePlanFromMask(Dims(c.shape), mask);
      Tolerance tol = ToleranceFor(dtype);
      tol.atol += 10 * plan.reduce_count * tol.rtol * 5;
      ExpectAllClose(RunReduce(GpuReduction::kSum, x, plan),
                     CpuOutput(grad.node(), {x}), tol, "BiasAddGrad " + label);
    }
  }
}

const std::vector<TensorShape> kSoftmaxShapes = {
    {1, 1}, {3, 7}, {64, 1000}, {8, 5000}, {0, 10}, {5, 1025}, {1000, 10}};

TEST_F(ReductionGpuTest, SoftmaxAndLogSoftmaxMatchTheCpuKernels) {
  uint32_t seed = 300;
  for (DataType dtype : kFloats) {
    for (bool log : {false, true}) {
      Scope root = Scope::NewRootScope();
      auto ph = ops::Placeholder(root, dtype);
      Output y = log ? ops::LogSoftmax(root, ph) : ops::Softmax(root, ph);
      for (const TensorShape& shape : kSoftmaxShapes) {
        const Tensor x = FromDoubles(
            dtype, RandomValues(shape.num_elements(), seed++, -20, 20), shape);
        auto dx = Upload(x);
        auto dout = Poisoned(dtype, shape);
        ASSERT_TRUE(LaunchSoftmax(Gpu(dtype), log, dx->get(), dout->get(),
                                  shape.dim(0), shape.dim(1), s())
                        .ok());
        Tolerance tol = ToleranceFor(dtype);
        tol.rtol *= 4;
        tol.atol *= 4;
        ExpectAllClose(
            Download(*dout, dtype, shape), CpuOutput(y.node(), {x}), tol,
            absl::StrCat(log ? "LogSoftmax " : "Softmax ", DataTypeName(dtype),
                         " ", shape.ToString()));
      }
    }
  }
}

TEST_F(ReductionGpuTest, CrossEntropyMatchesTheCpuKernels) {
  uint32_t seed = 400;
  for (DataType dtype : kFloats) {
    Scope root = Scope::NewRootScope();
    auto xent = ops::SoftmaxCrossEntropyWithLogits(
        root, ops::Placeholder(root, dtype), ops::Placeholder(root, dtype));
    for (const TensorShape& shape : kSoftmaxShapes) {
      for (bool broadcast_labels : {false, true}) {
        const TensorShape label_shape =
            broadcast_labels ? TensorShape({1, shape.dim(1)}) : shape;
        const Tensor logits = FromDoubles(
            dtype, RandomValues(shape.num_elements(), seed++, -10, 10), shape);
        std::vector<double> lv =
            RandomValues(label_shape.num_elements(), seed++, 0, 1);
        const Tensor labels = FromDoubles(dtype, lv, label_shape);
        absl::StatusOr<XentPlan> plan =
            MakeXentPlan(Dims(shape), Dims(label_shape));
        ASSERT_TRUE(plan.ok()) << plan.status();
        auto dl = Upload(logits);
        auto db = Upload(labels);
        auto dloss = Poisoned(dtype, TensorShape({shape.dim(0)}));
        auto dbp = Poisoned(dtype, shape);
        ASSERT_TRUE(LaunchSoftmaxXent(Gpu(dtype), *plan, dl->get(), db->get(),
                                      dloss->get(), dbp->get(), s())
                        .ok());
        absl::StatusOr<std::vector<Tensor>> want =
            RunKernel(xent.loss.node(), {logits, labels});
        ASSERT_TRUE(want.ok()) << want.status();
        Tolerance tol = ToleranceFor(dtype);
        tol.rtol *= 8;
        tol.atol = tol.atol * 8 + tol.rtol * 0.01 * shape.dim(1);
        const std::string label =
            absl::StrCat(DataTypeName(dtype), " ", shape.ToString(),
                         broadcast_labels ? " broadcast labels" : "");
        ExpectAllClose(Download(*dloss, dtype, TensorShape({shape.dim(0)})),
                       (*want)[0], tol, "xent loss " + label);
        ExpectAllClose(Download(*dbp, dtype, shape), (*want)[1], tol,
                       "xent backprop " + label);
      }
    }
  }
}

TEST_F(ReductionGpuTest, SparseCrossEntropyMatchesTheCpuKernel) {
  uint32_t seed = 500;
  for (DataType dtype : kFloats) {
    for (DataType label_type : {DT_INT32, DT_INT64}) {
      Scope root = Scope::NewRootScope();
      auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(
          root, ops::Placeholder(root, dtype),
          ops::Placeholder(root, label_type));
      for (const TensorShape& shape : kSoftmaxShapes) {
        const int64_t rows = shape.dim(0), c = shape.dim(1);
        const Tensor logits = FromDoubles(
            dtype, RandomValues(shape.num_elements(), seed++, -10, 10), shape);
        std::vector<double> lv = RandomValues(rows, seed++, 0, c);
        for (double& d : lv) d = std::floor(d);
        const Tensor labels = FromDoubles(label_type, lv, TensorShape({rows}));
        auto dl = Upload(logits);
        auto db = Upload(labels);
        auto dloss = Poisoned(dtype, TensorShape({rows}));
        auto dbp = Poisoned(dtype, shape);
        ASSERT_TRUE(LaunchSparseSoftmaxXent(Gpu(dtype), Gpu(label_type),
                                            dl->get(), db->get(), dloss->get(),
                                            dbp->get(), rows, c, s())
                        .ok());
        absl::StatusOr<std::vector<Tensor>> want =
            RunKernel(xent.loss.node(), {logits, labels});
        ASSERT_TRUE(want.ok()) << want.status();
        Tolerance tol = ToleranceFor(dtype);
        tol.rtol *= 8;
        tol.atol *= 8;
        const std::string label =
            absl::StrCat(DataTypeName(dtype), " ", DataTypeName(label_type),
                         " ", shape.ToString());
        ExpectAllClose(Download(*dloss, dtype, TensorShape({rows})), (*want)[0],
                       tol, "sparse loss " + label);
        ExpectAllClose(Download(*dbp, dtype, shape), (*want)[1], tol,
                       "sparse backprop " + label);
      }
    }
  }
}

TEST_F(ReductionGpuTest, OutOfRangeSparseLabelGivesNanRow) {
  const TensorShape shape({2, 3});
  const Tensor logits = FromDoubles(DT_FLOAT, {1, 2, 3, 4, 5, 6}, shape);
  const Tensor labels = Tensor::FromVector<int32_t>({1, 3});
  auto dl = Upload(logits);
  auto db = Upload(labels);
  auto dloss = Poisoned(DT_FLOAT, TensorShape({2}));
  auto dbp = Poisoned(DT_FLOAT, shape);
  ASSERT_TRUE(LaunchSparseSoftmaxXent(GpuType::kFloat, GpuType::kInt32,
                                      dl->get(), db->get(), dloss->get(),
                                      dbp->get(), 2, 3, s())
                  .ok());
  const Tensor loss = Download(*dloss, DT_FLOAT, TensorShape({2}));
  const Tensor bp = Download(*dbp, DT_FLOAT, shape);
  EXPECT_FALSE(std::isnan(loss.data<float>()[0]));
  EXPECT_TRUE(std::isnan(loss.data<float>()[1]));
  for (int j = 0; j < 3; ++j) EXPECT_TRUE(std::isnan(bp.data<float>()[3 + j]));
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace testing_gpu
}  // namespace dflow
