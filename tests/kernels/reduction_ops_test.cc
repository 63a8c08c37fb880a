// Tests of the CPU reduction kernels: Sum, Mean, Prod, Max, Min, ArgMax and
// L2Loss (and through them the engine in kernels/cpu/kernel_util_reduce.h).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_math::AsDoubles;
using testing_math::ExpectAllNear;
using testing_math::FromDoubles;
using testing_math::RandomValues;
using testing_math::Rounded;
using testing_math::RunEverywhere;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

enum class Op { kSum, kMean, kProd, kMax, kMin };

Output Reduce(const Scope& s, Op op, Input x, Input axes, bool keep) {
  const auto attrs = ops::ReductionAttrs().KeepDims(keep);
  switch (op) {
    case Op::kSum:
      return ops::Sum(s, x, axes, attrs);
    case Op::kMean:
      return ops::Mean(s, x, axes, attrs);
    case Op::kProd:
      return ops::Prod(s, x, axes, attrs);
    case Op::kMax:
      return ops::Max(s, x, axes, attrs);
    case Op::kMin:
      return ops::Min(s, x, axes, attrs);
  }
  return Output();
}

const char* Name(Op op) {
  switch (op) {
    case Op::kSum:
      return "Sum";
    case Op::kMean:
      return "Mean";
    case Op::kProd:
      return "Prod";
    case Op::kMax:
      return "Max";
    case Op::kMin:
      return "Min";
  }
  return "?";
}

// The reference: reduce `x` of `dims` over `axes` (already non-negative)
// in double, output in row-major order of the kept dimensions.
std::vector<double> Reference(Op op, const std::vector<double>& x,
                              const std::vector<int64_t>& dims,
                              const std::vector<bool>& reduced) {
  const int rank = static_cast<int>(dims.size());
  int64_t out_n = 1;
  for (int i = 0; i < rank; ++i) {
    if (!reduced[i]) out_n *= dims[i];
  }
  double init = 0;
  if (op == Op::kProd) init = 1;
  if (op == Op::kMax) init = -kInf;
  if (op == Op::kMin) init = kInf;
  std::vector<double> acc(out_n, init);
  std::vector<int64_t> count(out_n, 0);
  std::vector<int64_t> idx(rank, 0);
  for (size_t flat = 0; flat < x.size(); ++flat) {
    int64_t o = 0;
    for (int i = 0; i < rank; ++i) {
      if (!reduced[i]) o = o * dims[i] + idx[i];
    }
    const double v = x[flat];
    switch (op) {
      case Op::kSum:
      case Op::kMean:
        acc[o] += v;
        break;
      case Op::kProd:
        acc[o] *= v;
        break;
      case Op::kMax:
        acc[o] =
            std::isnan(v) || std::isnan(acc[o]) ? kNaN : std::max(acc[o], v);
        break;
      case Op::kMin:
        acc[o] =
            std::isnan(v) || std::isnan(acc[o]) ? kNaN : std::min(acc[o], v);
        break;
    }
    ++count[o];
    for (int i = rank - 1; i >= 0; --i) {
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
    }
  }
  if (op == Op::kMean) {
    for (int64_t o = 0; o < out_n; ++o) acc[o] /= count[o];
  }
  return acc;
}

struct Case {
  std::vector<int64_t> dims;
  std::vector<int64_t> axes;
};

// Runs `op` on random data of each case for `dtype`, against Reference,
// with keep_dims both ways and the axes as int32 and as int64.
void CheckCases(Op op, DataType dtype, const std::vector<Case>& cases,
                double rtol, double lo = -2, double hi = 2) {
  for (const Case& c : cases) {
    const TensorShape shape{absl::Span<const int64_t>(c.dims)};
    const std::vector<double> x =
        Rounded(dtype, RandomValues(shape.num_elements(), 3, lo, hi));
    std::vector<bool> reduced(c.dims.size(), false);
    for (int64_t a : c.axes) {
      reduced[a < 0 ? a + static_cast<int64_t>(c.dims.size()) : a] = true;
    }
    const std::vector<double> want = Reference(op, x, c.dims, reduced);
    for (bool keep : {false, true}) {
      for (bool axes64 : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << Name(op) << " " << DataTypeName(dtype) << " "
                     << shape.ToString() << " axes " << c.axes.size()
                     << (c.axes.empty() ? "" : " first ")
                     << (c.axes.empty() ? 0 : c.axes[0]) << " keep " << keep
                     << " int64 axes " << axes64);
        Scope root = Scope::NewRootScope();
        auto in = ops::Placeholder(root, dtype);
        auto ax = ops::Placeholder(root, axes64 ? DT_INT64 : DT_INT32);
        Output y = Reduce(root, op, in, ax, keep);
        ASSERT_TRUE(root.ok()) << root.status();
        std::vector<double> axes_d(c.axes.begin(), c.axes.end());
        const Tensor axes_t =
            FromDoubles(axes64 ? DT_INT64 : DT_INT32, axes_d,
                        TensorShape({static_cast<int64_t>(c.axes.size())}));
        auto out =
            RunEverywhere(y.node(), {FromDoubles(dtype, x, shape), axes_t},
                          std::max(rtol, 1e-6));
        ASSERT_TRUE(out.ok()) << out.status();
        TensorShape want_shape;
        for (size_t i = 0; i < c.dims.size(); ++i) {
          if (!reduced[i]) {
            want_shape.AddDim(c.dims[i]);
          } else if (keep) {
            want_shape.AddDim(1);
          }
        }
        EXPECT_EQ((*out)[0].shape(), want_shape);
        EXPECT_EQ((*out)[0].dtype(), dtype);
        ExpectAllNear(AsDoubles((*out)[0]), want, rtol, rtol);
      }
    }
  }
}

const std::vector<Case>& ShapeCases() {
  static const auto* cases = new std::vector<Case>{
      {{5}, {0}},
      {{3, 4}, {1}},
      {{3, 4}, {0}},
      {{3, 4}, {0, 1}},
      {{3, 4}, {-1}},
      {{2, 3, 4}, {1}},
      {{2, 3, 4}, {0, 2}},
      {{2, 3, 4, 5}, {0, 2}},
      {{2, 3, 4, 5}, {3, 1}},
      {{2, 3, 4, 5}, {-4, -1}},
      {{2, 1, 3, 1, 4}, {1, 2, 3}},
      {{4, 3}, {}},
  };
  return *cases;
}

// Shapes that take each sharding path of the engine: many short rows, a
// few long rows, one long row, many columns, few columns with many rows.
const std::vector<Case>& LargeCases() {
  static const auto* cases = new std::vector<Case>{
      {{100003}, {0}},       {{3, 40000}, {1}},   {{2000, 37}, {1}},
      {{40000, 3}, {0}},     {{300, 1500}, {0}},  {{2, 5000, 40}, {1}},
      {{2, 300, 1100}, {1}}, {{64, 20, 30}, {1}}, {{30, 40, 50}, {0, 2}},
  };
  return *cases;
}

TEST(ReductionKernelTest, FloatingShapes) {
  for (Op op : {Op::kSum, Op::kMean, Op::kProd, Op::kMax, Op::kMin}) {
    CheckCases(op, DT_FLOAT, ShapeCases(), 1e-5);
    CheckCases(op, DT_DOUBLE, ShapeCases(), 1e-12);
  }
}

TEST(ReductionKernelTest, FloatingLarge) {
  for (Op op : {Op::kSum, Op::kMean, Op::kMax, Op::kMin}) {
    CheckCases(op, DT_FLOAT, LargeCases(), 1e-4);
    CheckCases(op, DT_DOUBLE, LargeCases(), 1e-10);
  }
  // Products of values near 1 stay finite.
  CheckCases(Op::kProd, DT_DOUBLE, LargeCases(), 1e-9, 0.999, 1.001);
}

TEST(ReductionKernelTest, HalfAndBfloat16AccumulateInFloat) {
  for (DataType dtype : {DT_HALF, DT_BFLOAT16}) {
    for (Op op : {Op::kSum, Op::kMean, Op::kMax, Op::kMin}) {
      CheckCases(op, dtype, ShapeCases(), 1e-2);
    }
    // Multi-pass reductions keep float partial results between passes.
    CheckCases(Op::kSum, dtype, {{{30, 40, 50}, {0, 2}}}, 1e-2);
    // 4096 ones: a half accumulator would stop at 2048.
    Scope root = Scope::NewRootScope();
    Output y = ops::Sum(root, ops::Placeholder(root, dtype), 0);
    auto out =
        RunKernel(y.node(), {FromDoubles(dtype, std::vector<double>(4096, 1.0),
                                         TensorShape({4096})),
                             Tensor::Scalar<int32_t>(0)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(4096));
  }
}

TEST(ReductionKernelTest, IntegersExact) {
  for (DataType dtype : {DT_INT8, DT_INT16, DT_INT32, DT_INT64, DT_UINT8,
                         DT_UINT16, DT_UINT32, DT_UINT64}) {
    // Values 0..3 keep sums and products in range of every type for
    // these small shapes (products only over few elements).
    for (Op op : {Op::kSum, Op::kMax, Op::kMin}) {
      CheckCases(op, dtype, ShapeCases(), 0, 0, 3.99);
    }
  }
  CheckCases(Op::kProd, DT_INT64, {{{3, 4}, {1}}, {{2, 3, 4}, {0, 2}}}, 0, 0,
             3.99);
  CheckCases(Op::kSum, DT_INT32, LargeCases(), 0, -50, 50);
}

TEST(ReductionKernelTest, IntegerMeanTruncatesTowardZero) {
  Scope root = Scope::NewRootScope();
  Output y = ops::Mean(root, ops::Placeholder(root, DT_INT32), 1);
  auto out = RunKernel(
      y.node(), {Tensor::FromVector<int32_t>({-3, -4, 3, 4, 1, 1}, {3, 2}),
                 Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(-3, 3, 1));
}

TEST(ReductionKernelTest, IntegerOverflowWraps) {
  const int32_t max32 = std::numeric_limits<int32_t>::max();
  {
    Scope root = Scope::NewRootScope();
    Output y = ops::Sum(root, ops::Placeholder(root, DT_INT32), 0);
    auto out = RunKernel(y.node(), {Tensor::FromVector<int32_t>({max32, 1}),
                                    Tensor::Scalar<int32_t>(0)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<int32_t>()[0],
              std::numeric_limits<int32_t>::min());
  }
  {
    Scope root = Scope::NewRootScope();
    Output y = ops::Sum(root, ops::Placeholder(root, DT_UINT8), 0);
    auto out = RunKernel(y.node(), {Tensor::FromVector<uint8_t>({200, 100}),
                                    Tensor::Scalar<int32_t>(0)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<uint8_t>()[0], 44);
  }
  {
    Scope root = Scope::NewRootScope();
    Output y = ops::Prod(root, ops::Placeholder(root, DT_INT8), 0);
    auto out = RunKernel(y.node(), {Tensor::FromVector<int8_t>({16, 16, -1}),
                                    Tensor::Scalar<int32_t>(0)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<int8_t>()[0], 0);  // 256 wraps to 0
  }
  {
    Scope root = Scope::NewRootScope();
    Output y = ops::Prod(root, ops::Placeholder(root, DT_INT64), 0);
    auto out =
        RunKernel(y.node(), {Tensor::FromVector<int64_t>({int64_t{1} << 62, 4}),
                             Tensor::Scalar<int32_t>(0)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<int64_t>()[0], 0);
  }
  {
    // Mean divides the wrapped sum: int8 100 + 100 = -56, / 2 = -28.
    Scope root = Scope::NewRootScope();
    Output y = ops::Mean(root, ops::Placeholder(root, DT_INT8), 0);
    auto out = RunKernel(y.node(), {Tensor::FromVector<int8_t>({100, 100}),
                                    Tensor::Scalar<int32_t>(0)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<int8_t>()[0], -28);
  }
  {
    // Large int16 sums wrap the same whether sharded or not.
    Scope root = Scope::NewRootScope();
    Output y = ops::Sum(root, ops::Placeholder(root, DT_INT16), 0);
    std::vector<int16_t> v(100000, 1000);
    auto out = RunEverywhere(
        y.node(), {Tensor::FromVector<int16_t>(v), Tensor::Scalar<int32_t>(0)},
        0);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<int16_t>()[0],
              static_cast<int16_t>(static_cast<uint16_t>(100000u * 1000u)));
  }
}

TEST(ReductionKernelTest, NaNPropagatesThroughMaxAndMin) {
  for (Op op : {Op::kMax, Op::kMin}) {
    Scope root = Scope::NewRootScope();
    Output y = Reduce(root, op, ops::Placeholder(root, DT_FLOAT), 1, false);
    std::vector<float> v(2 * 300, 1.0f);
    v[5] = std::numeric_limits<float>::quiet_NaN();
    v[300 + 299] = std::numeric_limits<float>::quiet_NaN();
    auto out = RunEverywhere(y.node(), {Tensor::FromVector<float>(v, {2, 300}),
                                        Tensor::Scalar<int32_t>(1)});
    ASSERT_TRUE(out.ok()) << out.status();
    const std::vector<double> got = AsDoubles((*out)[0]);
    EXPECT_TRUE(std::isnan(got[0]) && std::isnan(got[1])) << Name(op);
  }
}

TEST(ReductionKernelTest, ReducingNothingReturnsTheInput) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  Output none = ops::Sum(root, x, Tensor::FromVector<int32_t>({}));
  Output ones = ops::Mean(root, x, {1}, ops::ReductionAttrs().KeepDims(true));
  const Tensor in = Tensor::FromVector<float>({1, 2, 3, 4}, {4, 1});
  auto out = RunKernel(none.node(), {in, Tensor::FromVector<int32_t>({})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({4, 1}));
  EXPECT_TRUE((*out)[0].SharesBufferWith(in));
  out = RunKernel(ones.node(), {in, Tensor::FromVector<int32_t>({1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({4, 1}));
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(1, 2, 3, 4));
  // A scalar with no axes.
  out = RunKernel(none.node(),
                  {Tensor::Scalar<float>(7), Tensor::FromVector<int32_t>({})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape());
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(7));
}

TEST(ReductionKernelTest, ScalarAxis) {
  Scope root = Scope::NewRootScope();
  Output y = ops::Sum(root, ops::Placeholder(root, DT_FLOAT),
                      ops::Placeholder(root, DT_INT64));
  auto out =
      RunKernel(y.node(), {Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2}),
                           Tensor::Scalar<int64_t>(-2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({2}));
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(4, 6));
}

TEST(ReductionKernelTest, ZeroSizeReductions) {
  struct Want {
    Op op;
    DataType dtype;
    double value;
  };
  const std::vector<Want> wants = {
      {Op::kSum, DT_FLOAT, 0},
      {Op::kProd, DT_FLOAT, 1},
      {Op::kMax, DT_FLOAT, -kInf},
      {Op::kMin, DT_FLOAT, kInf},
      {Op::kMean, DT_FLOAT, kNaN},
      {Op::kMean, DT_HALF, kNaN},
      {Op::kMax, DT_HALF, -kInf},
      {Op::kSum, DT_INT32, 0},
      {Op::kProd, DT_INT32, 1},
      {Op::kMax, DT_INT32, std::numeric_limits<int32_t>::lowest()},
      {Op::kMin, DT_INT32, std::numeric_limits<int32_t>::max()},
      {Op::kMax, DT_UINT8, 0},
      {Op::kMin, DT_UINT8, 255},
      {Op::kMean, DT_INT64, 0},
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(testing::Message()
                 << Name(w.op) << " " << DataTypeName(w.dtype));
    Scope root = Scope::NewRootScope();
    Output y = Reduce(root, w.op, ops::Placeholder(root, w.dtype),
                      ops::Placeholder(root, DT_INT32), false);
    auto out = RunKernel(y.node(), {Tensor(w.dtype, TensorShape({0, 3})),
                                    Tensor::FromVector<int32_t>({0})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), TensorShape({3}));
    ExpectAllNear(AsDoubles((*out)[0]), {w.value, w.value, w.value}, 0);
    // Keeping the empty dimension: an empty result.
    out = RunKernel(y.node(), {Tensor(w.dtype, TensorShape({0, 3})),
                               Tensor::FromVector<int32_t>({1})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), TensorShape({0}));
    // Everything: a scalar.
    out = RunKernel(y.node(), {Tensor(w.dtype, TensorShape({3, 0, 2})),
                               Tensor::FromVector<int32_t>({0, 1, 2})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), TensorShape());
    ExpectAllNear(AsDoubles((*out)[0]), {w.value}, 0);
  }
}

TEST(ReductionKernelTest, Complex) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_COMPLEX64);
  Output sum = ops::Sum(root, x, 0);
  Output mean = ops::Mean(root, x, 0);
  Output prod = ops::Prod(root, x, 0);
  const Tensor in = Tensor::FromVector<complex64>({{1, 2}, {3, -1}});
  auto out = RunKernel(sum.node(), {in, Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<complex64>()[0], complex64(4, 1));
  out = RunKernel(mean.node(), {in, Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<complex64>()[0], complex64(2, 0.5));
  out = RunKernel(prod.node(), {in, Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<complex64>()[0], complex64(5, 5));
  Scope root2 = Scope::NewRootScope();
  Output s128 = ops::Sum(root2, ops::Placeholder(root2, DT_COMPLEX128), 1);
  out = RunKernel(s128.node(), {Tensor::FromVector<complex128>(
                                    {{1, 1}, {2, 2}, {0, 0}, {0, -1}}, {2, 2}),
                                Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<complex128>()[0], complex128(3, 3));
  EXPECT_EQ((*out)[0].data<complex128>()[1], complex128(0, -1));
}

TEST(ReductionKernelTest, AxisErrors) {
  Scope root = Scope::NewRootScope();
  Output y = ops::Sum(root, ops::Placeholder(root, DT_FLOAT),
                      ops::Placeholder(root, DT_INT32));
  const Tensor in(DT_FLOAT, TensorShape({2, 3}));
  auto out = RunKernel(y.node(), {in, Tensor::FromVector<int32_t>({2})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("Invalid reduction dimension (2 for input with 2 "
                        "dimension(s)"));
  EXPECT_THAT(out.status().message(), HasSubstr("[2,3]"));
  out = RunKernel(y.node(), {in, Tensor::FromVector<int32_t>({-3})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("Invalid reduction dimension (-3"));
  out = RunKernel(y.node(), {in, Tensor::FromVector<int32_t>({1, -1})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("Invalid reduction arguments: Axes contains duplicate "
                        "dimension: 1"));
  out = RunKernel(y.node(), {in, Tensor::FromVector<int32_t>({0, 1}, {1, 2})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("reduction_indices must be a scalar or a vector"));
  out = RunKernel(y.node(),
                  {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0)});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("for input with 0 dimension"));
}

// --- ArgMax. ---

Output ArgMaxNode(const Scope& root, DataType dtype, DataType out_type,
                  DataType dim_type = DT_INT32) {
  return ops::ArgMax(root, ops::Placeholder(root, dtype),
                     ops::Placeholder(root, dim_type),
                     ops::ArgMaxAttrs().OutputType(out_type));
}

TEST(ArgMaxKernelTest, AxesAndTiesGoFirst) {
  Scope root = Scope::NewRootScope();
  Output y = ArgMaxNode(root, DT_FLOAT, DT_INT64);
  const Tensor in = Tensor::FromVector<float>({1, 5, 5, 2, 9, 0}, {2, 3});
  auto out = RunKernel(y.node(), {in, Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DT_INT64);
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(1, 1));
  out = RunKernel(y.node(), {in, Tensor::Scalar<int32_t>(-2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(1, 1, 0));
  // Equal rows: the first index wins.
  out = RunKernel(y.node(), {Tensor::FromVector<float>({3, 3, 3, 3}, {2, 2}),
                             Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(0, 0));
}

TEST(ArgMaxKernelTest, AgainstReferenceAllTypes) {
  for (DataType dtype :
       {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT8, DT_INT16, DT_INT32,
        DT_INT64, DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64}) {
    for (DataType out_type : {DT_INT16, DT_UINT16, DT_INT32, DT_INT64}) {
      const std::vector<int64_t> dims = {3, 70, 300};
      const std::vector<double> x =
          Rounded(dtype, RandomValues(3 * 70 * 300, 11, 0, 100));
      for (int axis : {0, 1, 2}) {
        SCOPED_TRACE(testing::Message()
                     << DataTypeName(dtype) << " -> " << DataTypeName(out_type)
                     << " axis " << axis);
        Scope root = Scope::NewRootScope();
        Output y = ArgMaxNode(root, dtype, out_type, DT_INT64);
        auto out =
            RunEverywhere(y.node(),
                          {FromDoubles(dtype, x, TensorShape({3, 70, 300})),
                           Tensor::Scalar<int64_t>(axis)},
                          0);
        ASSERT_TRUE(out.ok()) << out.status();
        EXPECT_EQ((*out)[0].dtype(), out_type);
        int64_t before = 1, after = 1;
        for (int i = 0; i < axis; ++i) before *= dims[i];
        for (int i = axis + 1; i < 3; ++i) after *= dims[i];
        std::vector<double> want;
        for (int64_t p = 0; p < before; ++p) {
          for (int64_t q = 0; q < after; ++q) {
            int64_t best = 0;
            for (int64_t r = 1; r < dims[axis]; ++r) {
              if (x[(p * dims[axis] + r) * after + q] >
                  x[(p * dims[axis] + best) * after + q]) {
                best = r;
              }
            }
            want.push_back(static_cast<double>(best));
          }
        }
        ExpectAllNear(AsDoubles((*out)[0]), want, 0);
      }
    }
  }
}

TEST(ArgMaxKernelTest, NaNsAreSkippedAndBool) {
  Scope root = Scope::NewRootScope();
  Output y = ArgMaxNode(root, DT_FLOAT, DT_INT32);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto out = RunKernel(
      y.node(), {Tensor::FromVector<float>(
                     {nan, 1, 3, nan, nan, nan, -inf, -inf, -inf}, {3, 3}),
                 Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(2, 0, 0));
  Scope root2 = Scope::NewRootScope();
  Output b = ArgMaxNode(root2, DT_BOOL, DT_INT32);
  out = RunKernel(b.node(),
                  {Tensor::FromVector<bool>(
                       {false, true, true, false, false, false}, {2, 3}),
                   Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(1, 0));
}

TEST(ArgMaxKernelTest, ZeroSizeAndErrors) {
  Scope root = Scope::NewRootScope();
  Output y = ArgMaxNode(root, DT_FLOAT, DT_INT64);
  // Other dimensions empty: an empty result.
  auto out = RunKernel(y.node(), {Tensor(DT_FLOAT, TensorShape({0, 4})),
                                  Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({0}));
  out = RunKernel(y.node(), {Tensor(DT_FLOAT, TensorShape({0, 4})),
                             Tensor::Scalar<int32_t>(0)});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("Reduction axis 0 is empty in shape [0,4]"));
  out = RunKernel(y.node(), {Tensor(DT_FLOAT, TensorShape({2, 4})),
                             Tensor::Scalar<int32_t>(2)});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("Expected dimension in the range [-2, 2), but got 2"));
  out = RunKernel(y.node(), {Tensor(DT_FLOAT, TensorShape({2, 4})),
                             Tensor::FromVector<int32_t>({0})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("dim must be a scalar, but received tensor of shape: "
                        "[1]"));
  // An index int16 cannot hold.
  Scope root2 = Scope::NewRootScope();
  Output small = ArgMaxNode(root2, DT_UINT8, DT_INT16);
  out = RunKernel(small.node(), {Tensor(DT_UINT8, TensorShape({40000})),
                                 Tensor::Scalar<int32_t>(0)});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("cannot hold"));
}

// --- L2Loss. ---

TEST(L2LossKernelTest, AgainstReference) {
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    for (int64_t n : {0, 1, 7, 100001}) {
      SCOPED_TRACE(testing::Message() << DataTypeName(dtype) << " n " << n);
      Scope root = Scope::NewRootScope();
      Output y = ops::L2Loss(root, ops::Placeholder(root, dtype));
      const std::vector<double> x = Rounded(dtype, RandomValues(n, 5));
      double want = 0;
      for (double v : x) want += v * v;
      want /= 2;
      const double rtol = dtype == DT_DOUBLE  ? 1e-12
                          : dtype == DT_FLOAT ? 1e-5
                                              : 1e-2;
      auto out = RunEverywhere(y.node(),
                               {FromDoubles(dtype, x, TensorShape({n}))}, rtol);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ((*out)[0].shape(), TensorShape());
      ExpectAllNear(AsDoubles((*out)[0]), {want}, rtol);
    }
  }
  Scope root = Scope::NewRootScope();
  Output y = ops::L2Loss(root, ops::Placeholder(root, DT_FLOAT));
  auto out =
      RunKernel(y.node(), {Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(15));
}

// All and Any over bools: per axis, all axes, keep_dims, and the empty
// reduction's identity (true for All, false for Any).
TEST(ReductionKernelTest, AllAndAnyOfBools) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_BOOL);
  Output axis = ops::Placeholder(root, DT_INT32);
  Output all = ops::All(root, x, axis);
  Output any = ops::Any(root, x, axis, ops::ReductionAttrs().KeepDims(true));
  ASSERT_TRUE(root.ok()) << root.status();
  const Tensor m = Tensor::FromVector<bool>(
      {true, false, true, true, true, true}, TensorShape({2, 3}));
  auto bools = [](const Tensor& t) {
    return std::vector<bool>(t.data<bool>(), t.data<bool>() + t.NumElements());
  };
  auto rows = RunKernel(all.node(), {m, Tensor::FromVector<int32_t>({1})});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(bools((*rows)[0]), ElementsAre(false, true));
  auto cols = RunKernel(all.node(), {m, Tensor::FromVector<int32_t>({0})});
  ASSERT_TRUE(cols.ok()) << cols.status();
  EXPECT_THAT(bools((*cols)[0]), ElementsAre(true, false, true));
  auto every = RunKernel(any.node(), {m, Tensor::FromVector<int32_t>({0, 1})});
  ASSERT_TRUE(every.ok()) << every.status();
  EXPECT_EQ((*every)[0].shape(), TensorShape({1, 1}));
  EXPECT_THAT(bools((*every)[0]), ElementsAre(true));
  const Tensor none(DT_BOOL, TensorShape({0}));
  auto empty_all =
      RunKernel(all.node(), {none, Tensor::FromVector<int32_t>({0})});
  auto empty_any =
      RunKernel(any.node(), {none, Tensor::FromVector<int32_t>({0})});
  ASSERT_TRUE(empty_all.ok() && empty_any.ok());
  EXPECT_THAT(bools((*empty_all)[0]), ElementsAre(true));
  EXPECT_THAT(bools((*empty_any)[0]), ElementsAre(false));
  // A bad axis is TensorFlow's error.
  auto bad = RunKernel(all.node(), {m, Tensor::FromVector<int32_t>({2})});
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace dflow
