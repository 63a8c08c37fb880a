// Tests of the ops the array gradients build (graph/gradients/array_grad.cc):
// Pad, StridedSliceGrad, ConcatOffset and InvertPermutation. Schemas and
// shape functions, then the CPU kernels against hand-computed NumPy/
// TensorFlow results, a randomized check that StridedSliceGrad writes
// exactly where StridedSlice reads, and the errors.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/op_registry.h"
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
using testing_array::I32;
using testing_array::I64;
using testing_array::Iota;
using testing_array::RunNode;
using testing_array::Values;

std::vector<std::string> ArgNames(
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args) {
  std::vector<std::string> names;
  for (const auto& a : args) names.push_back(a.name());
  return names;
}

std::vector<std::string> AttrNames(const OpDef& op) {
  std::vector<std::string> names;
  for (const auto& a : op.attr()) names.push_back(a.name());
  return names;
}

const OpDef* Def(const std::string& name) {
  absl::StatusOr<const OpRegistration*> reg =
      OpRegistry::Global()->LookUp(name);
  EXPECT_TRUE(reg.ok()) << reg.status();
  return reg.ok() ? &(*reg)->op_def : nullptr;
}

// --- Schemas (TensorFlow's names, inputs, outputs and attrs). ---

TEST(ArrayGradOpsSchemaTest, MatchTensorFlow) {
  const OpDef* pad = Def("Pad");
  ASSERT_NE(pad, nullptr);
  EXPECT_THAT(ArgNames(pad->input_arg()), ElementsAre("input", "paddings"));
  EXPECT_THAT(ArgNames(pad->output_arg()), ElementsAre("output"));
  EXPECT_THAT(AttrNames(*pad), ElementsAre("T", "Tpaddings"));

  const OpDef* ssg = Def("StridedSliceGrad");
  ASSERT_NE(ssg, nullptr);
  EXPECT_THAT(ArgNames(ssg->input_arg()),
              ElementsAre("shape", "begin", "end", "strides", "dy"));
  EXPECT_THAT(ArgNames(ssg->output_arg()), ElementsAre("output"));
  EXPECT_THAT(
      AttrNames(*ssg),
      ElementsAre("T", "Index", "begin_mask", "end_mask", "ellipsis_mask",
                  "new_axis_mask", "shrink_axis_mask"));

  const OpDef* offset = Def("ConcatOffset");
  ASSERT_NE(offset, nullptr);
  EXPECT_THAT(ArgNames(offset->input_arg()),
              ElementsAre("concat_dim", "shape"));
  EXPECT_THAT(ArgNames(offset->output_arg()), ElementsAre("offset"));
  EXPECT_THAT(AttrNames(*offset), ElementsAre("N", "shape_type"));

  const OpDef* invert = Def("InvertPermutation");
  ASSERT_NE(invert, nullptr);
  EXPECT_THAT(ArgNames(invert->input_arg()), ElementsAre("x"));
  EXPECT_THAT(ArgNames(invert->output_arg()), ElementsAre("y"));
  EXPECT_THAT(AttrNames(*invert), ElementsAre("T"));
}

// --- Shape functions. ---

TEST(ArrayGradOpsShapeTest, Pad) {
  Scope root = Scope::NewRootScope();
  Output x =
      ops::Placeholder(root, DT_FLOAT, ops::PlaceholderAttrs().Shape({-1, 3}));
  EXPECT_EQ(ops::Pad(root, x, ops::Const(root, {1, 2, 0, 4}, {2, 2}))
                .shape()
                .ToString(),
            "[?,7]");
  Output paddings = ops::Placeholder(root, DT_INT32);
  EXPECT_EQ(ops::Pad(root, x, paddings).shape().ToString(), "[?,?]");
  Output any = ops::Placeholder(root, DT_FLOAT);
  Output p3 =
      ops::Placeholder(root, DT_INT64, ops::PlaceholderAttrs().Shape({3, 2}));
  EXPECT_EQ(ops::Pad(root, any, p3).shape().ToString(), "[?,?,?]");
  ASSERT_TRUE(root.ok()) << root.status();

  Scope bad = Scope::NewRootScope();
  Output y =
      ops::Placeholder(bad, DT_FLOAT, ops::PlaceholderAttrs().Shape({2, 3}));
  ops::Pad(bad, y, ops::Const(bad, {1, 1, 1, 1, 1, 1}, {3, 2}));
  EXPECT_THAT(bad.status().message(),
              HasSubstr("rows of 'paddings' and rank of 'input'"));
  Scope negative = Scope::NewRootScope();
  Output z =
      ops::Placeholder(negative, DT_FLOAT, ops::PlaceholderAttrs().Shape({2}));
  ops::Pad(negative, z, ops::Const(negative, {1, -1}, {1, 2}));
  EXPECT_THAT(negative.status().message(), HasSubstr("must be non-negative"));
}

TEST(ArrayGradOpsShapeTest, StridedSliceGradConcatOffsetInvertPermutation) {
  Scope root = Scope::NewRootScope();
  Output x =
      ops::Placeholder(root, DT_FLOAT, ops::PlaceholderAttrs().Shape({-1, 5}));
  Output dy = ops::Placeholder(root, DT_FLOAT);
  // The output takes what is known of the `shape` value: [?,5] from Shape.
  EXPECT_EQ(ops::StridedSliceGrad(root, ops::Shape(root, x), {0, 1}, {0, 3},
                                  {1, 1}, dy)
                .shape()
                .ToString(),
            "[?,5]");
  EXPECT_EQ(
      ops::StridedSliceGrad(root, {4, 6}, {0}, {2}, {1}, dy).shape().ToString(),
      "[4,6]");
  OutputList offsets = ops::ConcatOffset(
      root, 1, {ops::Shape(root, x), ops::Const(root, {2, 5})});
  ASSERT_EQ(offsets.size(), 2u);
  EXPECT_EQ(offsets[1].shape().ToString(), "[2]");
  EXPECT_EQ(offsets[1].dtype(), DT_INT32);
  EXPECT_EQ(ops::InvertPermutation(root, {2, 0, 1}).shape().ToString(), "[3]");
  ASSERT_TRUE(root.ok()) << root.status();

  Scope bad = Scope::NewRootScope();
  ops::ConcatOffset(bad, 0,
                    {ops::Const(bad, {1, 2}), ops::Const(bad, {1, 2, 3})});
  EXPECT_THAT(bad.status().message(),
              HasSubstr("the lengths of the shape vectors"));
}

// --- Pad ---

absl::StatusOr<Tensor> RunPad(const Tensor& in, const Tensor& paddings) {
  Scope root = Scope::NewRootScope();
  Output p = ops::Pad(root, ops::Placeholder(root, in.dtype()),
                      ops::Placeholder(root, paddings.dtype()));
  if (!root.ok()) return root.status();
  auto out = RunNode(p, {in, paddings});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

Tensor Matrix(const std::vector<int32_t>& v) {
  return Tensor::FromVector<int32_t>(
      v, TensorShape({static_cast<int64_t>(v.size() / 2), 2}));
}

TEST(PadKernelTest, HandComputed) {
  // np.pad([[0,1,2],[3,4,5]], [[1,0],[2,1]])
  auto out = RunPad(Iota<float>(TensorShape({2, 3})), Matrix({1, 0, 2, 1}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), TensorShape({3, 6}));
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 0, 0, 0, 0, 0,  //
                                               0, 0, 0, 1, 2, 0,  //
                                               0, 0, 3, 4, 5, 0));
  // int64 paddings, rank 3, double: only the middle dimension grows.
  auto mid = RunPad(
      Iota<double>(TensorShape({2, 1, 2})),
      Tensor::FromVector<int64_t>({0, 0, 1, 1, 0, 0}, TensorShape({3, 2})));
  ASSERT_TRUE(mid.ok()) << mid.status();
  EXPECT_EQ(mid->shape(), TensorShape({2, 3, 2}));
  EXPECT_THAT(Values<double>(*mid),
              ElementsAre(0, 0, 0, 1, 0, 0, 0, 0, 2, 3, 0, 0));
}

TEST(PadKernelTest, StringsBoolsScalarsEmptyAndNoPadding) {
  Tensor s = Tensor::FromVector<std::string>({"a", "b"});
  auto strings = RunPad(s, Matrix({1, 1}));
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_THAT(Values<std::string>(*strings), ElementsAre("", "a", "b", ""));
  auto bools = RunPad(Tensor::FromVector<bool>({true}), Matrix({0, 2}));
  ASSERT_TRUE(bools.ok()) << bools.status();
  EXPECT_THAT(Values<bool>(*bools), ElementsAre(true, false, false));
  auto scalar =
      RunPad(Tensor::Scalar<float>(3), Tensor(DT_INT32, TensorShape({0, 2})));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->shape(), TensorShape());
  EXPECT_EQ(scalar->data<float>()[0], 3);
  // An empty input padded: all zeros.
  auto empty =
      RunPad(Tensor(DT_FLOAT, TensorShape({0, 2})), Matrix({1, 1, 0, 0}));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>(*empty), ElementsAre(0, 0, 0, 0));
  // No padding forwards the input.
  Tensor x = Iota<float>(TensorShape({2, 2}));
  auto same = RunPad(x, Matrix({0, 0, 0, 0}));
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_TRUE(same->SharesBufferWith(x));
}

TEST(PadKernelTest, Errors) {
  Tensor x = Iota<float>(TensorShape({2, 3}));
  auto shape = RunPad(x, Matrix({1, 1}));
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(shape.status().message(),
              HasSubstr("paddings must be a matrix of shape [2, 2]"));
  auto negative = RunPad(x, Matrix({0, 0, -1, 0}));
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(),
              HasSubstr("paddings [0,0,-1,0] must be non-negative"));
}

// --- StridedSliceGrad ---

struct Masks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};

ops::StridedSliceAttrs AttrsOf(const Masks& m) {
  return ops::StridedSliceAttrs()
      .BeginMask(m.begin)
      .EndMask(m.end)
      .EllipsisMask(m.ellipsis)
      .NewAxisMask(m.new_axis)
      .ShrinkAxisMask(m.shrink);
}

absl::StatusOr<Tensor> RunGrad(const Tensor& shape, const Tensor& begin,
                               const Tensor& end, const Tensor& strides,
                               const Tensor& dy, const Masks& m = {}) {
  Scope root = Scope::NewRootScope();
  const DataType dt = begin.dtype();
  Output g = ops::StridedSliceGrad(
      root, ops::Placeholder(root, dt), ops::Placeholder(root, dt),
      ops::Placeholder(root, dt), ops::Placeholder(root, dt),
      ops::Placeholder(root, dy.dtype()), AttrsOf(m));
  if (!root.ok()) return root.status();
  auto out = RunNode(g, {shape, begin, end, strides, dy});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

absl::StatusOr<Tensor> RunSlice(const Tensor& in, const Tensor& begin,
                                const Tensor& end, const Tensor& strides,
                                const Masks& m) {
  Scope root = Scope::NewRootScope();
  const DataType dt = begin.dtype();
  Output s = ops::StridedSlice(
      root, ops::Placeholder(root, in.dtype()), ops::Placeholder(root, dt),
      ops::Placeholder(root, dt), ops::Placeholder(root, dt), AttrsOf(m));
  if (!root.ok()) return root.status();
  auto out = RunNode(s, {in, begin, end, strides});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(StridedSliceGradKernelTest, HandComputed) {
  // x of shape [3,4]; x[::2, 3:0:-2] reads x[0,3], x[0,1], x[2,3], x[2,1].
  auto out =
      RunGrad(I32({3, 4}), I32({0, 3}), I32({0, 0}), I32({2, -2}),
              Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})),
              Masks{1, 1});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), TensorShape({3, 4}));
  EXPECT_THAT(Values<float>(*out), ElementsAre(0, 2, 0, 1,  //
                                               0, 0, 0, 0,  //
                                               0, 4, 0, 3));
  // x[1, ..., newaxis] of a [2,3] x (int64 spec): dy [3,1] goes to row 1.
  Masks m;
  m.shrink = 1;
  m.ellipsis = 2;
  m.new_axis = 4;
  auto row =
      RunGrad(I64({2, 3}), I64({1, 0, 0}), I64({2, 0, 0}), I64({1, 1, 1}),
              Tensor::FromVector<double>({7, 8, 9}, TensorShape({3, 1})), m);
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(row->shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values<double>(*row), ElementsAre(0, 0, 0, 7, 8, 9));
}

TEST(StridedSliceGradKernelTest, WholeSliceForwardsDy) {
  Tensor dy = Iota<float>(TensorShape({2, 3}));
  auto out = RunGrad(I32({2, 3}), I32({0}), I32({2}), I32({1}), dy);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->SharesBufferWith(dy));
  // A string dy into an empty-strings tensor.
  auto s = RunGrad(I32({3}), I32({1}), I32({2}), I32({1}),
                   Tensor::FromVector<std::string>({"x"}));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT(Values<std::string>(*s), ElementsAre("", "x", ""));
}

// For random specs over random shapes: slicing an iota says which element
// each dy entry came from; the gradient must hold dy there and 0 elsewhere.
TEST(StridedSliceGradKernelTest, WritesExactlyWhereTheSliceReads) {
  std::mt19937 rng(7);
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = uniform(1, 3);
    std::vector<int32_t> dims;
    for (int i = 0; i < rank; ++i) dims.push_back(uniform(1, 5));
    const int n = uniform(1, rank);
    std::vector<int32_t> begin, end, strides;
    Masks m;
    for (int i = 0; i < n; ++i) {
      begin.push_back(uniform(-6, 6));
      end.push_back(uniform(-6, 6));
      int stride = 0;
      while (stride == 0) stride = uniform(-3, 3);
      strides.push_back(stride);
      if (uniform(0, 3) == 0) m.begin |= int64_t{1} << i;
      if (uniform(0, 3) == 0) m.end |= int64_t{1} << i;
    }
    if (uniform(0, 4) == 0) m.new_axis |= int64_t{1} << uniform(0, n - 1);
    TensorShape shape;
    for (int32_t d : dims) shape.AddDim(d);
    Tensor iota = Iota<int32_t>(shape);
    auto read = RunSlice(iota, I32(begin), I32(end), I32(strides), m);
    ASSERT_TRUE(read.ok()) << read.status();
    std::vector<double> dy_values(static_cast<size_t>(read->NumElements()));
    for (size_t k = 0; k < dy_values.size(); ++k) dy_values[k] = 1.0 + k;
    Tensor dy = Tensor::FromVector<double>(dy_values, read->shape());
    auto grad = RunGrad(I32(dims), I32(begin), I32(end), I32(strides), dy, m);
    ASSERT_TRUE(grad.ok()) << grad.status();
    std::vector<double> expected(static_cast<size_t>(shape.num_elements()), 0);
    std::vector<int32_t> source = Values<int32_t>(*read);
    for (size_t k = 0; k < source.size(); ++k) {
      expected[source[k]] = dy_values[k];
    }
    EXPECT_EQ(grad->shape(), shape);
    EXPECT_THAT(Values<double>(*grad), ElementsAreArray(expected))
        << "shape " << shape.ToString() << " trial " << trial;
    checked += source.empty() ? 0 : 1;
  }
  EXPECT_GT(checked, 100);  // most specs select something
}

TEST(StridedSliceGradKernelTest, Errors) {
  Tensor dy = Iota<float>(TensorShape({2}));
  auto mismatch = RunGrad(I32({4}), I32({0}), I32({3}), I32({1}), dy);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.status().message(),
              HasSubstr("dy has shape [2] but the slice of a tensor of shape "
                        "[4] has shape [3]"));
  auto negative = RunGrad(I32({-1}), I32({0}), I32({2}), I32({1}), dy);
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(),
              HasSubstr("has a negative dimension"));
  auto zero = RunGrad(I32({4}), I32({0}), I32({2}), I32({0}), dy);
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(zero.status().message(), HasSubstr("strides must be non-zero"));
}

// --- ConcatOffset ---

absl::StatusOr<std::vector<Tensor>> RunOffsets(
    const Tensor& axis, const std::vector<Tensor>& shapes) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> inputs;
  for (const Tensor& s : shapes) {
    inputs.push_back(ops::Placeholder(root, s.dtype()));
  }
  OutputList out =
      ops::ConcatOffset(root, ops::Placeholder(root, DT_INT32), inputs);
  if (!root.ok()) return root.status();
  std::vector<Tensor> values = {axis};
  values.insert(values.end(), shapes.begin(), shapes.end());
  return RunNode(out[0], values);
}

TEST(ConcatOffsetKernelTest, TensorFlowExample) {
  // TensorFlow's documentation: concat_offset(2, [[2,2,7],[2,3,7],[2,5,7]])
  // = [0,0,0], [0,2,0], [0,5,0]; -2 is the same axis counted from the end.
  for (int axis : {1, -2}) {
    auto out = RunOffsets(Tensor::Scalar<int32_t>(axis),
                          {I32({2, 2, 7}), I32({2, 3, 7}), I32({2, 5, 7})});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 3u);
    EXPECT_THAT(Values<int32_t>((*out)[0]), ElementsAre(0, 0, 0));
    EXPECT_THAT(Values<int32_t>((*out)[1]), ElementsAre(0, 2, 0));
    EXPECT_THAT(Values<int32_t>((*out)[2]), ElementsAre(0, 5, 0));
  }
  auto wide = RunOffsets(Tensor::Scalar<int32_t>(0),
                         {I64({3, 4}), I64({int64_t{1} << 33, 4})});
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_THAT(Values<int64_t>((*wide)[1]), ElementsAre(3, 0));
}

TEST(ConcatOffsetKernelTest, Errors) {
  auto mismatch =
      RunOffsets(Tensor::Scalar<int32_t>(0), {I32({2, 3}), I32({4, 5})});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.status().message(),
              HasSubstr("shape[1] = [4,5] and shape[0] = [2,3] must match in "
                        "every dimension but 0"));
  auto axis =
      RunOffsets(Tensor::Scalar<int32_t>(2), {I32({2, 3}), I32({2, 3})});
  ASSERT_FALSE(axis.ok());
  EXPECT_THAT(axis.status().message(), HasSubstr("concat_dim 2"));
}

// --- InvertPermutation ---

TEST(InvertPermutationKernelTest, HandComputedAndErrors) {
  Scope root = Scope::NewRootScope();
  Output y32 = ops::InvertPermutation(root, ops::Placeholder(root, DT_INT32));
  Output y64 = ops::InvertPermutation(root, ops::Placeholder(root, DT_INT64));
  ASSERT_TRUE(root.ok()) << root.status();
  // tf.math.invert_permutation([3, 4, 0, 2, 1]) = [2, 4, 3, 0, 1].
  auto out = RunNode(y32, {I32({3, 4, 0, 2, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<int32_t>((*out)[0]), ElementsAre(2, 4, 3, 0, 1));
  auto wide = RunNode(y64, {I64({1, 2, 0})});
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_THAT(Values<int64_t>((*wide)[0]), ElementsAre(2, 0, 1));
  auto empty = RunNode(y32, {I32({})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].NumElements(), 0);

  auto duplicate = RunNode(y32, {I32({0, 0, 1})});
  ASSERT_FALSE(duplicate.ok());
  EXPECT_THAT(duplicate.status().message(),
              HasSubstr("x [0,0,1] is not a permutation of 0..2: duplicate 0 "
                        "at position 1"));
  auto range = RunNode(y32, {I32({0, 3, 1})});
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(range.status().message(), HasSubstr("entry out of range 3"));
}

}  // namespace
}  // namespace dflow
