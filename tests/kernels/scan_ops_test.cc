// Cumsum and Cumprod: their schemas and shape function (TensorFlow's), and
// the CPU kernels (kernels/cpu/reduction_ops.cc) against a direct
// reference over dtypes, axes, exclusive/reverse, blocking and sharding.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/op_registry.h"
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

Output Scan(const Scope& s, bool prod, Input x, Input axis, bool exclusive,
            bool reverse) {
  const auto attrs = ops::ScanAttrs().Exclusive(exclusive).Reverse(reverse);
  return prod ? ops::Cumprod(s, x, axis, attrs)
              : ops::Cumsum(s, x, axis, attrs);
}

// The scan of `x` (shape dims) along `axis`, element by element.
std::vector<double> Reference(const std::vector<double>& x,
                              const std::vector<int64_t>& dims, int axis,
                              bool prod, bool exclusive, bool reverse) {
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < static_cast<int>(dims.size()); ++i) {
    if (i < axis) outer *= dims[i];
    if (i > axis) inner *= dims[i];
  }
  const int64_t n = dims[axis];
  std::vector<double> out(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      double acc = prod ? 1 : 0;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t i = reverse ? n - 1 - k : k;
        const int64_t at = (o * n + i) * inner + j;
        if (exclusive) out[at] = acc;
        acc = prod ? acc * x[at] : acc + x[at];
        if (!exclusive) out[at] = acc;
      }
    }
  }
  return out;
}

TEST(ScanOpsTest, SchemasMatchTensorFlow) {
  for (const char* op : {"Cumsum", "Cumprod"}) {
    absl::StatusOr<const OpRegistration*> reg =
        OpRegistry::Global()->LookUp(op);
    ASSERT_TRUE(reg.ok()) << reg.status();
    const OpDef& def = (*reg)->op_def;
    ASSERT_EQ(def.input_arg_size(), 2);
    EXPECT_EQ(def.input_arg(0).name(), "x");
    EXPECT_EQ(def.input_arg(1).name(), "axis");
    ASSERT_EQ(def.output_arg_size(), 1);
    EXPECT_EQ(def.output_arg(0).name(), "out");
    std::vector<std::string> attrs;
    for (const auto& a : def.attr()) attrs.push_back(a.name());
    EXPECT_THAT(attrs, ElementsAre("exclusive", "reverse", "T", "Tidx")) << op;
  }
}

TEST(ScanOpsTest, ShapeIsTheInputsAndTheAxisIsChecked) {
  Scope root = Scope::NewRootScope();
  Output x =
      ops::Placeholder(root, DT_FLOAT, ops::PlaceholderAttrs().Shape({-1, 3}));
  EXPECT_EQ(ops::Cumsum(root, x, 1).shape().ToString(), "[?,3]");
  EXPECT_EQ(ops::Cumprod(root, x, -2).shape().ToString(), "[?,3]");
  EXPECT_TRUE(root.ok()) << root.status();

  Scope bad_axis = Scope::NewRootScope();
  Output y = ops::Placeholder(bad_axis, DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({2, 3}));
  ops::Cumsum(bad_axis, y, 2);
  EXPECT_THAT(bad_axis.status().message(), HasSubstr("axis 2 is out of range"));

  Scope vector_axis = Scope::NewRootScope();
  Output z = ops::Placeholder(vector_axis, DT_FLOAT);
  ops::Cumprod(vector_axis, z, {0});
  EXPECT_THAT(vector_axis.status().message(),
              HasSubstr("axis must be a scalar"));
}

TEST(ScanOpsTest, SmallExamples) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  const Tensor v = Tensor::FromVector<float>({1, 2, 3, 4});
  const Tensor axis = Tensor::Scalar<int32_t>(0);
  struct Case {
    bool prod, exclusive, reverse;
    std::vector<double> want;
  };
  for (const Case& c : std::vector<Case>{
           {false, false, false, {1, 3, 6, 10}},
           {false, true, false, {0, 1, 3, 6}},
           {false, false, true, {10, 9, 7, 4}},
           {false, true, true, {9, 7, 4, 0}},
           {true, false, false, {1, 2, 6, 24}},
           {true, true, false, {1, 1, 2, 6}},
           {true, false, true, {24, 24, 12, 4}},
           {true, true, true, {24, 12, 4, 1}},
       }) {
    Output y = Scan(root, c.prod, x, 0, c.exclusive, c.reverse);
    auto out = RunKernel(y.node(), {v, axis});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(AsDoubles((*out)[0]), c.want)
        << (c.prod ? "Cumprod" : "Cumsum") << " exclusive=" << c.exclusive
        << " reverse=" << c.reverse;
  }
}

// Every axis of a rank-3 tensor (positive and negative, int32 and int64),
// every flag combination, several dtypes; the inner size 300 spans two
// column blocks.
TEST(ScanOpsTest, MatchesTheReference) {
  const std::vector<int64_t> dims = {3, 5, 300};
  const TensorShape shape(dims);
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_INT32, DT_INT64}) {
    const bool is_int = dtype == DT_INT32 || dtype == DT_INT64;
    std::vector<double> x = RandomValues(shape.num_elements(), 7,
                                         is_int ? -3 : 0.8, is_int ? 4 : 1.25);
    if (is_int) {
      for (double& v : x) v = std::floor(v);
    }
    x = Rounded(dtype, x);
    for (bool prod : {false, true}) {
      for (int axis = -3; axis < 3; ++axis) {
        for (bool exclusive : {false, true}) {
          for (bool reverse : {false, true}) {
            Scope root = Scope::NewRootScope();
            Output y =
                Scan(root, prod, ops::Placeholder(root, dtype),
                     ops::Placeholder(root, DT_INT64), exclusive, reverse);
            auto out = RunEverywhere(
                y.node(),
                {FromDoubles(dtype, x, shape), Tensor::Scalar<int64_t>(axis)},
                is_int ? 0 : 1e-6);
            ASSERT_TRUE(out.ok()) << out.status();
            EXPECT_EQ((*out)[0].shape(), shape);
            const double rtol = dtype == DT_HALF    ? 4e-3
                                : dtype == DT_FLOAT ? 1e-5
                                                    : 1e-12;
            ExpectAllNear(
                AsDoubles((*out)[0]),
                Reference(x, dims, axis < 0 ? axis + 3 : axis, prod, exclusive,
                          reverse),
                is_int ? 0 : rtol, 0,
                absl::StrCat(DataTypeName(dtype), prod ? " Cumprod" : " Cumsum",
                             " axis=", axis, " exclusive=", exclusive,
                             " reverse=", reverse));
          }
        }
      }
    }
  }
}

// Enough work to be sharded over the pool, along the last axis (rows
// contiguous) and the first (columns in blocks).
TEST(ScanOpsTest, ShardedWorkMatchesTheReference) {
  const std::vector<int64_t> dims = {64, 40, 50};
  const TensorShape shape(dims);
  const std::vector<double> x = RandomValues(shape.num_elements(), 3, -1, 1);
  for (int axis : {0, 2}) {
    Scope root = Scope::NewRootScope();
    Output y = ops::Cumsum(root, ops::Placeholder(root, DT_DOUBLE), axis);
    auto out = RunEverywhere(
        y.node(),
        {FromDoubles(DT_DOUBLE, x, shape), Tensor::Scalar<int32_t>(axis)}, 0);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectAllNear(AsDoubles((*out)[0]),
                  Reference(x, dims, axis, false, false, false), 1e-12, 1e-12);
  }
}

TEST(ScanOpsTest, IntegersWrap) {
  Scope root = Scope::NewRootScope();
  Output p = ops::Cumprod(root, ops::Placeholder(root, DT_INT32), 0);
  auto out =
      RunKernel(p.node(), {Tensor::FromVector<int32_t>({65536, 65536, 3}),
                           Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(65536, 0, 0));

  Output s = ops::Cumsum(root, ops::Placeholder(root, DT_INT8), 0);
  out = RunKernel(s.node(), {Tensor::FromVector<int8_t>({100, 100, -100}),
                             Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(100, -56, 100));

  Output q = ops::Cumprod(root, ops::Placeholder(root, DT_UINT16), 0);
  out = RunKernel(q.node(), {Tensor::FromVector<uint16_t>({65535, 65535}),
                             Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(65535, 1));  // (2^16-1)^2
}

TEST(ScanOpsTest, EmptyInputs) {
  Scope root = Scope::NewRootScope();
  Output y = ops::Cumprod(root, ops::Placeholder(root, DT_FLOAT), 1);
  auto out = RunKernel(y.node(), {Tensor(DT_FLOAT, TensorShape({2, 0})),
                                  Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({2, 0}));
}

TEST(ScanOpsTest, BadAxesAreErrors) {
  Scope root = Scope::NewRootScope();
  Output y = ops::Cumsum(root, ops::Placeholder(root, DT_FLOAT),
                         ops::Placeholder(root, DT_INT32));
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2});
  auto out = RunKernel(y.node(), {x, Tensor::Scalar<int32_t>(2)});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("Expected scan axis in the range [-2, 2), but got 2"));
  out = RunKernel(y.node(), {x, Tensor::FromVector<int32_t>({0})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("axis must be a scalar"));
}

}  // namespace
}  // namespace dflow
