// Tests of the CPU kernels Const, Placeholder, PlaceholderWithDefault, Range
// and OneHot.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/kernels/array_kernel_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing_array::Compute;
using testing_array::I32;
using testing_array::MakeKernel;
using testing_array::RunNode;
using testing_array::Values;

// --- Const ---

TEST(ConstKernelTest, OutputsTheSameBufferEveryStep) {
  Scope root = Scope::NewRootScope();
  Output c = ops::Const(root, {1.f, 2.f, 3.f, 4.f}, TensorShape({2, 2}));
  ASSERT_TRUE(root.ok()) << root.status();
  std::unique_ptr<OpKernel> kernel = MakeKernel(c.node());
  ASSERT_NE(kernel, nullptr);
  EXPECT_FALSE(kernel->IsExpensive());
  auto first = Compute(kernel.get(), {});
  auto second = Compute(kernel.get(), {});
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ((*first)[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>((*first)[0]), ElementsAre(1, 2, 3, 4));
  EXPECT_TRUE((*first)[0].SharesBufferWith((*second)[0]));
}

TEST(ConstKernelTest, ValueLivesInTheDevicesMemory) {
  Scope root = Scope::NewRootScope();
  Output c = ops::Const(root, Tensor(DT_FLOAT, TensorShape({1000, 250})));
  ASSERT_TRUE(root.ok()) << root.status();
  TrackingAllocator* allocator = TestCpuDevice()->allocator();
  const int64_t before = allocator->Stats().live_bytes;
  std::unique_ptr<OpKernel> kernel = MakeKernel(c.node());
  ASSERT_NE(kernel, nullptr);
  // The 1 MB value counts on the device for as long as the kernel lives.
  EXPECT_GE(allocator->Stats().live_bytes - before, 1000 * 250 * 4);
  kernel.reset();
  EXPECT_LT(allocator->Stats().live_bytes - before, 1000 * 250 * 4);
}

TEST(ConstKernelTest, StringsAndZeroSize) {
  Scope root = Scope::NewRootScope();
  Output s = ops::Const(root, "hello");
  Output empty = ops::Const(root, Tensor(DT_INT64, TensorShape({0, 3})));
  ASSERT_TRUE(root.ok()) << root.status();
  auto out = RunNode(s, {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<std::string>()[0], "hello");
  out = RunNode(empty, {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({0, 3}));
  EXPECT_EQ((*out)[0].dtype(), DT_INT64);
}

// --- Placeholder ---

TEST(PlaceholderKernelTest, ComputingAnUnfedPlaceholderNamesIt) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({-1, 784}));
  ASSERT_TRUE(root.ok()) << root.status();
  std::unique_ptr<OpKernel> kernel = MakeKernel(x.node());
  ASSERT_NE(kernel, nullptr);
  EXPECT_FALSE(kernel->IsExpensive());
  auto out = Compute(kernel.get(), {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "placeholder 'x' of dtype float and shape [?,784] must be fed: "
            "pass it in Session::Run feeds");
}

TEST(PlaceholderKernelTest, UnknownShapeInMessage) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("labels"), DT_INT32);
  auto out = RunNode(x, {});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("placeholder 'labels' of dtype int32 and shape "
                        "<unknown> must be fed"));
}

TEST(PlaceholderWithDefaultKernelTest, ForwardsItsInputWithoutCopy) {
  Scope root = Scope::NewRootScope();
  Output d = ops::Placeholder(root, DT_FLOAT);
  Output p = ops::PlaceholderWithDefault(root, d, TensorShape({-1}));
  ASSERT_TRUE(root.ok()) << root.status();
  Tensor in = Tensor::FromVector<float>({1, 2, 3});
  auto out = RunNode(p, {in});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].SharesBufferWith(in));
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(1, 2, 3));
}

// --- Range ---

// Range over placeholders of dtype `T`, so the kernel (not the shape
// function) sees the values.
template <typename T>
absl::StatusOr<std::vector<T>> RunRange(T start, T limit, T delta) {
  Scope root = Scope::NewRootScope();
  const DataType dt = DataTypeToEnum<T>::value;
  Output r = ops::Range(root, ops::Placeholder(root, dt),
                        ops::Placeholder(root, dt), ops::Placeholder(root, dt));
  if (!root.ok()) return root.status();
  auto out = RunNode(r, {Tensor::Scalar<T>(start), Tensor::Scalar<T>(limit),
                         Tensor::Scalar<T>(delta)});
  if (!out.ok()) return out.status();
  EXPECT_EQ((*out)[0].dtype(), dt);
  EXPECT_EQ((*out)[0].shape().rank(), 1);
  return Values<T>((*out)[0]);
}

TEST(RangeKernelTest, Integers) {
  EXPECT_THAT(*RunRange<int32_t>(0, 10, 3), ElementsAre(0, 3, 6, 9));
  EXPECT_THAT(*RunRange<int32_t>(10, 0, -3), ElementsAre(10, 7, 4, 1));
  EXPECT_THAT(*RunRange<int64_t>(-3, 3, 2), ElementsAre(-3, -1, 1));
  EXPECT_THAT(*RunRange<int32_t>(5, 5, 1), ElementsAre());
}

TEST(RangeKernelTest, SpansThatOverflowTheType) {
  // limit - start does not fit in int32, but every value does.
  EXPECT_THAT(*RunRange<int32_t>(-2000000000, 2000000000, 1000000000),
              ElementsAre(-2000000000, -1000000000, 0, 1000000000));
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_THAT(*RunRange<int64_t>(min, max, max), ElementsAre(min, -1, max - 1));
  EXPECT_THAT(*RunRange<int64_t>(max, max - 5, -2),
              ElementsAre(max, max - 2, max - 4));
}

TEST(RangeKernelTest, FloatingPoint) {
  EXPECT_THAT(*RunRange<float>(0, 1, 0.25f), ElementsAre(0, 0.25, 0.5, 0.75));
  EXPECT_THAT(*RunRange<double>(1, 0, -0.4), ElementsAre(1, 1 - 0.4, 1 - 0.8));
  // Partial last step still counts: ceil(1 / 0.3) = 4.
  EXPECT_EQ(RunRange<double>(0, 1, 0.3)->size(), 4u);
}

TEST(RangeKernelTest, Errors) {
  auto zero = RunRange<int32_t>(0, 10, 0);
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(zero.status().message(), HasSubstr("delta != 0"));
  auto wrong_way = RunRange<float>(10, 0, 1);
  ASSERT_FALSE(wrong_way.ok());
  EXPECT_THAT(wrong_way.status().message(),
              HasSubstr("start <= limit when delta > 0 (start = 10"));
  auto wrong_way2 = RunRange<int64_t>(0, 10, -1);
  ASSERT_FALSE(wrong_way2.ok());
  EXPECT_THAT(wrong_way2.status().message(),
              HasSubstr("start >= limit when delta < 0"));
  auto inf = RunRange<double>(0, std::numeric_limits<double>::infinity(), 1);
  ASSERT_FALSE(inf.ok());
  EXPECT_THAT(inf.status().message(), HasSubstr("too many elements"));
  auto nan = RunRange<float>(0, std::numeric_limits<float>::quiet_NaN(), 1);
  EXPECT_FALSE(nan.ok());
}

TEST(RangeKernelTest, NonScalarStartIsAnError) {
  Scope root = Scope::NewRootScope();
  Output r = ops::Range(root, ops::Placeholder(root, DT_INT32),
                        ops::Placeholder(root, DT_INT32),
                        ops::Placeholder(root, DT_INT32));
  auto out = RunNode(
      r, {I32({0, 1}), Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(1)});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("start must be a scalar, not shape [2]"));
}

// --- OneHot ---

absl::StatusOr<Tensor> RunOneHot(const Tensor& indices, int32_t depth,
                                 const Tensor& on, const Tensor& off,
                                 int64_t axis = -1) {
  Scope root = Scope::NewRootScope();
  Output o = ops::OneHot(
      root, ops::Placeholder(root, indices.dtype()),
      ops::Placeholder(root, DT_INT32), ops::Placeholder(root, on.dtype()),
      ops::Placeholder(root, off.dtype()), ops::OneHotAttrs().Axis(axis));
  if (!root.ok()) return root.status();
  auto out = RunNode(o, {indices, Tensor::Scalar<int32_t>(depth), on, off});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// out[p, d, s] = indices[p, s] == d ? on : off, computed directly.
std::vector<double> OneHotReference(const std::vector<int64_t>& idx,
                                    const TensorShape& shape, int64_t depth,
                                    int axis, double on, double off) {
  int64_t prefix = 1, suffix = 1;
  for (int i = 0; i < shape.rank(); ++i) {
    (i < axis ? prefix : suffix) *= shape.dim(i);
  }
  std::vector<double> out;
  for (int64_t p = 0; p < prefix; ++p) {
    for (int64_t d = 0; d < depth; ++d) {
      for (int64_t s = 0; s < suffix; ++s) {
        out.push_back(idx[p * suffix + s] == d ? on : off);
      }
    }
  }
  return out;
}

TEST(OneHotKernelTest, LastAxisWithOutOfRangeIndices) {
  auto out = RunOneHot(I32({0, 2, -1, 3}), 3, Tensor::Scalar<float>(5),
                       Tensor::Scalar<float>(-1));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), TensorShape({4, 3}));
  EXPECT_THAT(Values<float>(*out),
              ElementsAre(5, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1));
}

TEST(OneHotKernelTest, EveryAxisOfA2DIndexTensor) {
  const std::vector<int64_t> idx = {0, 3, 1, 2, 2, -7};
  const TensorShape shape({2, 3});
  for (int64_t axis : {-1, 0, 1, 2}) {
    auto out =
        RunOneHot(Tensor::FromVector<int64_t>(idx, shape), 4,
                  Tensor::Scalar<double>(1), Tensor::Scalar<double>(0), axis);
    ASSERT_TRUE(out.ok()) << out.status();
    const int a = axis == -1 ? 2 : static_cast<int>(axis);
    TensorShape want = shape;
    want.InsertDim(a, 4);
    EXPECT_EQ(out->shape(), want) << "axis " << axis;
    EXPECT_THAT(Values<double>(*out),
                ElementsAreArray(OneHotReference(idx, shape, 4, a, 1, 0)))
        << "axis " << axis;
  }
}

TEST(OneHotKernelTest, Uint8IndicesAndIntValues) {
  Tensor idx = Tensor::FromVector<uint8_t>({255, 1, 0});
  auto out = RunOneHot(idx, 2, Tensor::Scalar<int32_t>(7),
                       Tensor::Scalar<int32_t>(0), 0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(0, 0, 7, 0, 7, 0));
}

TEST(OneHotKernelTest, StringAndBoolValues) {
  auto s = RunOneHot(I32({1}), 2, Tensor::Scalar<std::string>("on"),
                     Tensor::Scalar<std::string>("off"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT(Values<std::string>(*s), ElementsAre("off", "on"));
  auto b = RunOneHot(I32({0, 1}), 2, Tensor::Scalar<bool>(true),
                     Tensor::Scalar<bool>(false));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(Values<bool>(*b), ElementsAre(true, false, false, true));
}

TEST(OneHotKernelTest, ZeroSize) {
  auto no_depth = RunOneHot(I32({0, 1}), 0, Tensor::Scalar<float>(1),
                            Tensor::Scalar<float>(0));
  ASSERT_TRUE(no_depth.ok()) << no_depth.status();
  EXPECT_EQ(no_depth->shape(), TensorShape({2, 0}));
  auto no_indices =
      RunOneHot(I32({}), 3, Tensor::Scalar<float>(1), Tensor::Scalar<float>(0));
  ASSERT_TRUE(no_indices.ok()) << no_indices.status();
  EXPECT_EQ(no_indices->shape(), TensorShape({0, 3}));
}

TEST(OneHotKernelTest, Errors) {
  auto neg = RunOneHot(I32({0}), -1, Tensor::Scalar<float>(1),
                       Tensor::Scalar<float>(0));
  ASSERT_FALSE(neg.ok());
  EXPECT_THAT(neg.status().message(), HasSubstr("depth must be >= 0, got -1"));
  auto axis = RunOneHot(I32({0}), 2, Tensor::Scalar<float>(1),
                        Tensor::Scalar<float>(0), 2);
  ASSERT_FALSE(axis.ok());
  EXPECT_THAT(axis.status().message(),
              HasSubstr("axis 2 is out of range for indices of shape [1]"));
  auto on = RunOneHot(I32({0}), 2, Tensor::FromVector<float>({1, 2}),
                      Tensor::Scalar<float>(0));
  ASSERT_FALSE(on.ok());
  EXPECT_THAT(on.status().message(),
              HasSubstr("on_value must be a scalar, but has shape [2]"));
}

}  // namespace
}  // namespace dflow
