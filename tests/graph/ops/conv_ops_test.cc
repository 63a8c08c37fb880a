#include "graph/ops/conv_ops.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "graph/attr_value_util.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/nn_ops.h"
#include "graph/scope.h"
#include "graph/shape_inference.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const TensorShape kUnknownShape = TensorShape::Unknown();
constexpr int64_t kQ = TensorShape::kUnknownDim;

// Runs `op`'s shape function directly on the given input shapes (and, where
// given, input values and known shape values), with `attrs` on top of the
// op's defaults.
using Attrs = std::map<std::string, AttrValue>;
absl::StatusOr<std::vector<TensorShape>> Infer(
    const std::string& op, std::vector<TensorShape> inputs,
    const Attrs& attrs = {}, std::vector<const Tensor*> tensors = {},
    std::vector<TensorShape> shape_values = {}) {
  absl::StatusOr<const OpRegistration*> reg = OpRegistry::Global()->LookUp(op);
  if (!reg.ok()) return reg.status();
  NodeDef node;
  node.set_name("n");
  node.set_op(op);
  for (const auto& [name, value] : attrs) (*node.mutable_attr())[name] = value;
  AddDefaultAttrs((*reg)->op_def, &node);
  std::vector<DataType> types(inputs.size(), DT_FLOAT);
  InferenceContext c(node, (*reg)->op_def, std::move(types), std::move(inputs),
                     std::move(tensors), std::move(shape_values),
                     (*reg)->op_def.output_arg_size());
  absl::Status s = (*reg)->shape_fn(&c);
  if (!s.ok()) return s;
  return c.outputs();
}

// The single output shape of Infer, or the error text.
std::string Out(const absl::StatusOr<std::vector<TensorShape>>& r) {
  if (!r.ok()) return std::string(r.status().message());
  std::string out;
  for (const TensorShape& s : *r)
    out += (out.empty() ? "" : " ") + s.ToString();
  return out;
}

AttrValue Ints(std::vector<int64_t> v) {
  return MakeAttr(absl::Span<const int64_t>(v));
}
AttrValue Str(const char* s) { return MakeAttr(s); }

Attrs Conv(std::vector<int64_t> strides, const char* padding,
           const char* format = "NHWC") {
  return {{"strides", Ints(strides)},
          {"padding", Str(padding)},
          {"data_format", Str(format)}};
}

Attrs Pool(std::vector<int64_t> ksize, std::vector<int64_t> strides,
           const char* padding, const char* format = "NHWC") {
  return {{"ksize", Ints(ksize)},
          {"strides", Ints(strides)},
          {"padding", Str(padding)},
          {"data_format", Str(format)}};
}

Output FloatInput(const Scope& s, const TensorShape& shape) {
  return ops::Placeholder(s, DT_FLOAT, ops::PlaceholderAttrs().Shape(shape));
}

// Expects the scope's error to name node 'n', its op and every fragment.
void ExpectBuildError(const Scope& root, const std::string& op,
                      const std::vector<std::string>& fragments) {
  ASSERT_FALSE(root.ok());
  const std::string msg(root.status().message());
  EXPECT_THAT(msg, AllOf(HasSubstr("'n'"), HasSubstr(op))) << msg;
  for (const std::string& f : fragments) EXPECT_THAT(msg, HasSubstr(f));
}

// --- Conv2D. ---

TEST(ConvOpsTest, Conv2DOutputSizes) {
  // VALID: ceil((in - effective_filter + 1) / stride).
  EXPECT_EQ(Out(Infer("Conv2D", {{1, 28, 28, 3}, {5, 5, 3, 32}},
                      Conv({1, 1, 1, 1}, "VALID"))),
            "[1,24,24,32]");
  EXPECT_EQ(Out(Infer("Conv2D", {{2, 7, 8, 3}, {3, 3, 3, 4}},
                      Conv({1, 2, 3, 1}, "VALID"))),
            "[2,3,2,4]");
  // SAME: ceil(in / stride), whatever the filter.
  EXPECT_EQ(Out(Infer("Conv2D", {{1, 28, 28, 3}, {5, 5, 3, 32}},
                      Conv({1, 2, 2, 1}, "SAME"))),
            "[1,14,14,32]");
  EXPECT_EQ(Out(Infer("Conv2D", {{1, 7, 7, 3}, {kQ, kQ, 3, 8}},
                      Conv({1, 2, 2, 1}, "SAME"))),
            "[1,4,4,8]");
  // NCHW: strides in NCHW order, output [N, C, H, W].
  EXPECT_EQ(Out(Infer("Conv2D", {{1, 3, 28, 28}, {5, 5, 3, 32}},
                      Conv({1, 1, 2, 2}, "SAME", "NCHW"))),
            "[1,32,14,14]");
  EXPECT_EQ(Out(Infer("Conv2D", {{1, 3, 28, 20}, {5, 3, 3, 32}},
                      Conv({1, 1, 1, 1}, "VALID", "NCHW"))),
            "[1,32,24,18]");
}

TEST(ConvOpsTest, Conv2DDilationAndExplicitPadding) {
  Attrs dilated = Conv({1, 1, 1, 1}, "VALID");
  dilated["dilations"] = Ints({1, 2, 3, 1});
  // Effective filter sizes 5 (3 dilated by 2) and 7 (3 dilated by 3).
  EXPECT_EQ(Out(Infer("Conv2D", {{1, 9, 9, 3}, {3, 3, 3, 8}}, dilated)),
            "[1,5,3,8]");
  Attrs explicit_pad = Conv({1, 1, 1, 1}, "EXPLICIT");
  explicit_pad["explicit_paddings"] = Ints({0, 0, 1, 2, 0, 0, 0, 0});
  EXPECT_EQ(Out(Infer("Conv2D", {{1, 5, 5, 3}, {3, 3, 3, 8}}, explicit_pad)),
            "[1,6,3,8]");
  Attrs nchw_pad = Conv({1, 1, 1, 1}, "EXPLICIT", "NCHW");
  nchw_pad["explicit_paddings"] = Ints({0, 0, 0, 0, 1, 1, 2, 2});
  EXPECT_EQ(Out(Infer("Conv2D", {{1, 3, 5, 5}, {3, 3, 3, 8}}, nchw_pad)),
            "[1,8,5,7]");

  // Paddings on batch or channels, a wrong count, or paddings without
  // EXPLICIT are errors.
  explicit_pad["explicit_paddings"] = Ints({1, 0, 1, 2, 0, 0, 0, 0});
  EXPECT_THAT(Out(Infer("Conv2D", {{1, 5, 5, 3}, {3, 3, 3, 8}}, explicit_pad)),
              HasSubstr("explicit_paddings"));
  explicit_pad["explicit_paddings"] = Ints({1, 2});
  EXPECT_THAT(Out(Infer("Conv2D", {{1, 5, 5, 3}, {3, 3, 3, 8}}, explicit_pad)),
              HasSubstr("[1,2]"));
  Attrs same = Conv({1, 1, 1, 1}, "SAME");
  same["explicit_paddings"] = Ints({0, 0, 1, 1, 1, 1, 0, 0});
  EXPECT_THAT(Out(Infer("Conv2D", {{1, 5, 5, 3}, {3, 3, 3, 8}}, same)),
              HasSubstr("must be empty"));
}

TEST(ConvOpsTest, Conv2DPartialAndUnknownShapes) {
  EXPECT_EQ(Out(Infer("Conv2D", {{kQ, 28, kQ, 3}, {5, 5, 3, 32}},
                      Conv({1, 1, 1, 1}, "VALID"))),
            "[?,24,?,32]");
  EXPECT_EQ(Out(Infer("Conv2D", {{8, 28, 28, 3}, {kQ, 5, 3, kQ}},
                      Conv({1, 1, 1, 1}, "VALID"))),
            "[8,?,24,?]");
  EXPECT_EQ(Out(Infer("Conv2D", {kUnknownShape, kUnknownShape},
                      Conv({1, 1, 1, 1}, "SAME"))),
            "[?,?,?,?]");
  EXPECT_EQ(Out(Infer("Conv2D", {kUnknownShape, {5, 5, 3, 32}},
                      Conv({1, 1, 1, 1}, "SAME", "NCHW"))),
            "[?,32,?,?]");
  // Grouped convolution: input channels a multiple of the filter's.
  EXPECT_EQ(Out(Infer("Conv2D", {{1, 8, 8, 6}, {3, 3, 3, 4}},
                      Conv({1, 1, 1, 1}, "SAME"))),
            "[1,8,8,4]");
}

TEST(ConvOpsTest, Conv2DValidatesAttrsAndRanks) {
  const std::vector<TensorShape> shapes = {{1, 8, 8, 3}, {3, 3, 3, 4}};
  EXPECT_THAT(Out(Infer("Conv2D", shapes, Conv({1, 1, 1}, "SAME"))),
              AllOf(HasSubstr("strides"), HasSubstr("[1,1,1]")));
  EXPECT_THAT(Out(Infer("Conv2D", shapes, Conv({2, 1, 1, 1}, "SAME"))),
              AllOf(HasSubstr("strides"), HasSubstr("batch")));
  EXPECT_THAT(Out(Infer("Conv2D", shapes, Conv({1, 1, 1, 2}, "SAME"))),
              HasSubstr("channel"));
  // The channel entry of NCHW strides is index 1.
  EXPECT_THAT(Out(Infer("Conv2D", {{1, 3, 8, 8}, {3, 3, 3, 4}},
                        Conv({1, 2, 1, 1}, "SAME", "NCHW"))),
              HasSubstr("channel"));
  EXPECT_THAT(Out(Infer("Conv2D", shapes, Conv({1, 0, 1, 1}, "SAME"))),
              HasSubstr("[1,0,1,1]"));
  Attrs bad_dilation = Conv({1, 1, 1, 1}, "SAME");
  bad_dilation["dilations"] = Ints({1, 1, 1});
  EXPECT_THAT(Out(Infer("Conv2D", shapes, bad_dilation)),
              HasSubstr("dilations"));
  EXPECT_THAT(Out(Infer("Conv2D", {{8, 8, 3}, {3, 3, 3, 4}},
                        Conv({1, 1, 1, 1}, "SAME"))),
              AllOf(HasSubstr("input 'input'"), HasSubstr("rank 4"),
                    HasSubstr("[8,8,3]")));
  EXPECT_THAT(Out(Infer("Conv2D", {{1, 8, 8, 3}, {3, 3, 3}},
                        Conv({1, 1, 1, 1}, "SAME"))),
              AllOf(HasSubstr("input 'filter'"), HasSubstr("[3,3,3]")));
  // The filter does not fit in the input under VALID padding.
  EXPECT_THAT(Out(Infer("Conv2D", {{1, 2, 8, 3}, {3, 3, 3, 4}},
                        Conv({1, 1, 1, 1}, "VALID"))),
              AllOf(HasSubstr("[1,2,8,3]"), HasSubstr("[3,3,3,4]"),
                    HasSubstr("height")));
  // Grouped convolution whose out_channels the groups do not divide.
  EXPECT_THAT(Out(Infer("Conv2D", {{1, 8, 8, 6}, {3, 3, 3, 5}},
                        Conv({1, 1, 1, 1}, "SAME"))),
              HasSubstr("groups"));
}

TEST(ConvOpsTest, Conv2DChannelMismatchNamesBothShapes) {
  Scope root = Scope::NewRootScope();
  Output y = ops::Conv2D(root.WithOpName("n"), FloatInput(root, {1, 5, 5, 3}),
                         FloatInput(root, {3, 3, 4, 8}), {1, 1, 1, 1}, "SAME");
  EXPECT_FALSE(y.valid());
  ExpectBuildError(root, "Conv2D", {"[1,5,5,3]", "[3,3,4,8]", "channels"});
}

TEST(ConvOpsTest, Conv2DWrapper) {
  Scope root = Scope::NewRootScope();
  Output y = ops::Conv2D(root, FloatInput(root, {kQ, 3, 32, 32}),
                         FloatInput(root, {3, 3, 3, 16}), {1, 1, 2, 2}, "SAME",
                         ops::Conv2DAttrs()
                             .DataFormat("NCHW")
                             .Dilations({1, 1, 1, 1})
                             .UseCudnnOnGpu(false));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(y.shape(), TensorShape({kQ, 16, 16, 16}));
  EXPECT_EQ(y.dtype(), DT_FLOAT);
  bool cudnn = true;
  ASSERT_TRUE(y.node()->GetAttr("use_cudnn_on_gpu", &cudnn).ok());
  EXPECT_FALSE(cudnn);
  std::vector<int64_t> strides;
  ASSERT_TRUE(y.node()->GetAttr("strides", &strides).ok());
  EXPECT_THAT(strides, ElementsAre(1, 1, 2, 2));

  Output z = ops::Conv2D(
      root, FloatInput(root, {1, 5, 5, 3}), FloatInput(root, {3, 3, 3, 2}),
      {1, 1, 1, 1}, "EXPLICIT",
      ops::Conv2DAttrs().ExplicitPaddings({0, 0, 1, 1, 1, 1, 0, 0}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(z.shape(), TensorShape({1, 5, 5, 2}));
}

TEST(ConvOpsTest, Conv2DBackpropInputShapes) {
  const std::string op = "Conv2DBackpropInput";
  const Tensor sizes = Tensor::FromVector<int32_t>({1, 28, 28, 3});
  EXPECT_EQ(Out(Infer(op, {{4}, {5, 5, 3, 32}, {1, 24, 24, 32}},
                      Conv({1, 1, 1, 1}, "VALID"), {&sizes})),
            "[1,28,28,3]");
  // Only the spatial sizes: batch from out_backprop, channels from filter.
  const Tensor spatial = Tensor::FromVector<int32_t>({28, 28});
  EXPECT_EQ(Out(Infer(op, {{2}, {5, 5, 3, 32}, {7, 14, 14, 32}},
                      Conv({1, 2, 2, 1}, "SAME"), {&spatial})),
            "[7,28,28,3]");
  EXPECT_EQ(Out(Infer(op, {{2}, {5, 5, 3, 32}, {7, 32, 14, 14}},
                      Conv({1, 1, 2, 2}, "SAME", "NCHW"), {&spatial})),
            "[7,3,28,28]");
  // Unknown sizes: rank 4, batch from out_backprop.
  EXPECT_EQ(Out(Infer(op, {{4}, {5, 5, 3, 32}, {6, 24, 24, 32}},
                      Conv({1, 1, 1, 1}, "VALID"))),
            "[6,?,?,?]");
  EXPECT_EQ(Out(Infer(op, {kUnknownShape, kUnknownShape, kUnknownShape},
                      Conv({1, 1, 1, 1}, "VALID"))),
            "[?,?,?,?]");
  // Partly known sizes (e.g. from Shape of a partial tensor).
  EXPECT_EQ(Out(Infer(op, {{4}, {5, 5, 3, 32}, {6, 24, 24, 32}},
                      Conv({1, 1, 1, 1}, "VALID"), {nullptr},
                      {TensorShape({kQ, 28, 28, 3})})),
            "[6,28,28,3]");
  EXPECT_THAT(Out(Infer(op, {{3}, {5, 5, 3, 32}, {6, 24, 24, 32}},
                        Conv({1, 1, 1, 1}, "VALID"))),
              HasSubstr("input_sizes"));
}

TEST(ConvOpsTest, Conv2DBackpropInputChecksOutBackprop) {
  Scope root = Scope::NewRootScope();
  Output dx = ops::Conv2DBackpropInput(
      root.WithOpName("n"), {1, 28, 28, 3}, FloatInput(root, {5, 5, 3, 32}),
      FloatInput(root, {1, 25, 24, 32}), {1, 1, 1, 1}, "VALID");
  EXPECT_FALSE(dx.valid());
  ExpectBuildError(
      root, "Conv2DBackpropInput",
      {"[1,28,28,3]", "[5,5,3,32]", "[1,25,24,32]", "[1,24,24,32]"});

  Scope ok = Scope::NewRootScope();
  Output good = ops::Conv2DBackpropInput(
      ok, {1, 28, 28, 3}, FloatInput(ok, {5, 5, 3, 32}),
      FloatInput(ok, {1, 24, 24, 32}), {1, 1, 1, 1}, "VALID");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(good.shape(), TensorShape({1, 28, 28, 3}));
}

TEST(ConvOpsTest, Conv2DBackpropFilterShapes) {
  const std::string op = "Conv2DBackpropFilter";
  const Tensor sizes = Tensor::FromVector<int32_t>({5, 5, 3, 32});
  EXPECT_EQ(Out(Infer(op, {{1, 28, 28, 3}, {4}, {1, 24, 24, 32}},
                      Conv({1, 1, 1, 1}, "VALID"), {nullptr, &sizes})),
            "[5,5,3,32]");
  EXPECT_EQ(Out(Infer(op, {{1, 28, 28, 3}, {4}, {1, 24, 24, 32}},
                      Conv({1, 1, 1, 1}, "VALID"))),
            "[?,?,?,32]");
  EXPECT_EQ(Out(Infer(op, {kUnknownShape, kUnknownShape, kUnknownShape},
                      Conv({1, 1, 1, 1}, "VALID"))),
            "[?,?,?,?]");
  EXPECT_THAT(Out(Infer(op, {{1, 28, 28, 3}, {3}, {1, 24, 24, 32}},
                        Conv({1, 1, 1, 1}, "VALID"))),
              AllOf(HasSubstr("filter_sizes"), HasSubstr("[3]")));
  EXPECT_THAT(Out(Infer(op, {{1, 28, 28, 3}, {4}, {1, 24, 24, 16}},
                        Conv({1, 1, 1, 1}, "VALID"), {nullptr, &sizes})),
              AllOf(HasSubstr("[1,28,28,3]"), HasSubstr("[1,24,24,16]")));

  Scope root = Scope::NewRootScope();
  Output dw = ops::Conv2DBackpropFilter(
      root.WithOpName("n"), FloatInput(root, {1, 28, 28, 4}), {5, 5, 3, 32},
      FloatInput(root, {1, 24, 24, 32}), {1, 1, 1, 1}, "VALID");
  EXPECT_FALSE(dw.valid());
  ExpectBuildError(root, "Conv2DBackpropFilter", {"[1,28,28,4]", "[5,5,3,32]"});
}

// --- Pooling. ---

TEST(ConvOpsTest, MaxPoolShapes) {
  EXPECT_EQ(Out(Infer("MaxPool", {{1, 28, 28, 3}},
                      Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"))),
            "[1,14,14,3]");
  EXPECT_EQ(Out(Infer("MaxPool", {{1, 7, 7, 3}},
                      Pool({1, 3, 3, 1}, {1, 2, 2, 1}, "VALID"))),
            "[1,3,3,3]");
  EXPECT_EQ(Out(Infer("MaxPool", {{1, 7, 7, 3}},
                      Pool({1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"))),
            "[1,4,4,3]");
  EXPECT_EQ(Out(Infer("MaxPool", {{1, 3, 7, 9}},
                      Pool({1, 1, 3, 3}, {1, 1, 2, 3}, "VALID", "NCHW"))),
            "[1,3,3,3]");
  EXPECT_EQ(Out(Infer("MaxPool", {{kQ, 28, kQ, 3}},
                      Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"))),
            "[?,14,?,3]");
  EXPECT_EQ(Out(Infer("MaxPool", {kUnknownShape},
                      Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"))),
            "[?,?,?,?]");
  Attrs explicit_pad = Pool({1, 3, 3, 1}, {1, 1, 1, 1}, "EXPLICIT");
  explicit_pad["explicit_paddings"] = Ints({0, 0, 1, 1, 1, 1, 0, 0});
  EXPECT_EQ(Out(Infer("MaxPool", {{1, 5, 5, 3}}, explicit_pad)), "[1,5,5,3]");
  // Pooling across channels only.
  EXPECT_EQ(Out(Infer("MaxPool", {{1, 5, 5, 12}},
                      Pool({1, 1, 1, 3}, {1, 1, 1, 3}, "VALID"))),
            "[1,5,5,4]");
  // NCHW_VECT_C: [N, C/4, H, W, 4].
  EXPECT_EQ(
      Out(Infer("MaxPool", {{1, 2, 8, 8, 4}},
                Pool({1, 1, 2, 2}, {1, 1, 2, 2}, "VALID", "NCHW_VECT_C"))),
      "[1,2,4,4,4]");
}

TEST(ConvOpsTest, MaxPoolErrors) {
  const std::vector<TensorShape> in = {{1, 8, 8, 3}};
  EXPECT_THAT(
      Out(Infer("MaxPool", in, Pool({1, 2, 2, 1, 1}, {1, 2, 2, 1}, "VALID"))),
      AllOf(HasSubstr("ksize"), HasSubstr("[1,2,2,1,1]")));
  EXPECT_THAT(
      Out(Infer("MaxPool", in, Pool({2, 2, 2, 1}, {1, 2, 2, 1}, "VALID"))),
      AllOf(HasSubstr("ksize"), HasSubstr("batch")));
  EXPECT_THAT(
      Out(Infer("MaxPool", in, Pool({1, 2, 2, 1}, {2, 2, 2, 1}, "VALID"))),
      AllOf(HasSubstr("strides"), HasSubstr("batch")));
  EXPECT_THAT(
      Out(Infer("MaxPool", in, Pool({1, 2, 2, 2}, {1, 2, 2, 2}, "VALID"))),
      HasSubstr("across channels"));
  EXPECT_THAT(Out(Infer("MaxPool", {{1, 8, 8, 5}},
                        Pool({1, 1, 1, 2}, {1, 1, 1, 2}, "VALID"))),
              HasSubstr("dividing the channels"));
  EXPECT_THAT(Out(Infer("MaxPool", {{8, 8, 3}},
                        Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"))),
              AllOf(HasSubstr("rank 4"), HasSubstr("[8,8,3]")));
  EXPECT_THAT(
      Out(Infer("MaxPool", {{1, 2, 8, 8, 3}},
                Pool({1, 1, 2, 2}, {1, 1, 2, 2}, "VALID", "NCHW_VECT_C"))),
      HasSubstr("NCHW_VECT_C"));

  Scope root = Scope::NewRootScope();
  Output p = ops::MaxPool(root.WithOpName("n"), FloatInput(root, {1, 2, 2, 3}),
                          {1, 3, 3, 1}, {1, 1, 1, 1}, "VALID");
  EXPECT_FALSE(p.valid());
  ExpectBuildError(root, "MaxPool", {"[1,2,2,3]", "[1,3,3,1]"});
}

TEST(ConvOpsTest, MaxPoolWrapper) {
  Scope root = Scope::NewRootScope();
  Output p = ops::MaxPool(root, FloatInput(root, {kQ, 3, 32, 32}), {1, 1, 2, 2},
                          {1, 1, 2, 2}, "SAME",
                          ops::MaxPoolAttrs().DataFormat("NCHW"));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(p.shape(), TensorShape({kQ, 3, 16, 16}));
  std::vector<int64_t> ksize;
  ASSERT_TRUE(p.node()->GetAttr("ksize", &ksize).ok());
  EXPECT_THAT(ksize, ElementsAre(1, 1, 2, 2));
}

TEST(ConvOpsTest, AvgPoolShapes) {
  EXPECT_EQ(Out(Infer("AvgPool", {{4, 32, 32, 3}},
                      Pool({1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"))),
            "[4,16,16,3]");
  EXPECT_EQ(Out(Infer("AvgPool", {{4, 3, 32, 31}},
                      Pool({1, 1, 3, 3}, {1, 1, 2, 2}, "VALID", "NCHW"))),
            "[4,3,15,15]");
  EXPECT_EQ(Out(Infer("AvgPool", {kUnknownShape},
                      Pool({1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"))),
            "[?,?,?,?]");
  // AvgPool never pools across channels.
  EXPECT_THAT(Out(Infer("AvgPool", {{1, 5, 5, 12}},
                        Pool({1, 1, 1, 3}, {1, 1, 1, 3}, "VALID"))),
              HasSubstr("channel"));

  Scope root = Scope::NewRootScope();
  Output p = ops::AvgPool(root, FloatInput(root, {2, 9, 9, 4}), {1, 3, 3, 1},
                          {1, 3, 3, 1}, "VALID");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(p.shape(), TensorShape({2, 3, 3, 4}));
  // EXPLICIT is not an allowed padding for AvgPool.
  ops::AvgPool(root.WithOpName("n"), FloatInput(root, {2, 9, 9, 4}),
               {1, 3, 3, 1}, {1, 3, 3, 1}, "EXPLICIT");
  ExpectBuildError(root, "AvgPool", {"EXPLICIT"});
}

TEST(ConvOpsTest, MaxPoolGradShapes) {
  const Attrs pool = Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  EXPECT_EQ(Out(Infer("MaxPoolGrad", {{1, 8, 8, 3}, {1, 4, 4, 3}, {1, 4, 4, 3}},
                      pool)),
            "[1,8,8,3]");
  EXPECT_EQ(Out(Infer("MaxPoolGrad",
                      {kUnknownShape, kUnknownShape, kUnknownShape}, pool)),
            "[?,?,?,?]");
  EXPECT_EQ(Out(Infer("MaxPoolGrad",
                      {{kQ, 8, 8, 3}, kUnknownShape, {5, 4, 4, 3}}, pool)),
            "[?,8,8,3]");
  EXPECT_THAT(
      Out(Infer("MaxPoolGrad", {{1, 8, 8}, {1, 4, 4, 3}, {1, 4, 4, 3}}, pool)),
      AllOf(HasSubstr("orig_input"), HasSubstr("[1,8,8]")));

  Scope root = Scope::NewRootScope();
  ops::MaxPoolGrad(root.WithOpName("n"), FloatInput(root, {1, 8, 8, 3}),
                   FloatInput(root, {1, 4, 4, 3}),
                   FloatInput(root, {1, 5, 4, 3}), {1, 2, 2, 1}, {1, 2, 2, 1},
                   "VALID");
  ExpectBuildError(root, "MaxPoolGrad", {"[1,8,8,3]", "[1,5,4,3]", "grad"});
}

TEST(ConvOpsTest, AvgPoolGradShapes) {
  const Attrs pool = Pool({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  const Tensor shape = Tensor::FromVector<int32_t>({2, 8, 8, 3});
  EXPECT_EQ(Out(Infer("AvgPoolGrad", {{4}, {2, 4, 4, 3}}, pool, {&shape})),
            "[2,8,8,3]");
  EXPECT_EQ(Out(Infer("AvgPoolGrad", {{4}, {2, 4, 4, 3}}, pool)), "[2,?,?,3]");
  EXPECT_EQ(Out(Infer("AvgPoolGrad", {kUnknownShape, kUnknownShape}, pool)),
            "[?,?,?,?]");
  EXPECT_THAT(Out(Infer("AvgPoolGrad", {{5}, {2, 4, 4, 3}}, pool)),
              AllOf(HasSubstr("orig_input_shape"), HasSubstr("[5]")));
  EXPECT_THAT(Out(Infer("AvgPoolGrad", {{4}, {2, 5, 4, 3}}, pool, {&shape})),
              AllOf(HasSubstr("[2,5,4,3]"), HasSubstr("[2,8,8,3]")));

  Scope root = Scope::NewRootScope();
  Output dx =
      ops::AvgPoolGrad(root, {2, 8, 8, 3}, FloatInput(root, {2, 4, 4, 3}),
                       {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(dx.shape(), TensorShape({2, 8, 8, 3}));
}

// --- LRN. ---

TEST(ConvOpsTest, LRNShapes) {
  EXPECT_EQ(Out(Infer("LRN", {{2, 8, 8, 16}})), "[2,8,8,16]");
  EXPECT_EQ(Out(Infer("LRN", {kUnknownShape})), "[?,?,?,?]");
  EXPECT_THAT(Out(Infer("LRN", {{8, 16}})), HasSubstr("rank 4"));

  Scope root = Scope::NewRootScope();
  Output y = ops::LRN(root, FloatInput(root, {1, 4, 4, 8}),
                      ops::LRNAttrs().DepthRadius(2).Alpha(1e-4f).Beta(0.75f));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(y.shape(), TensorShape({1, 4, 4, 8}));
  int64_t radius = 0;
  float beta = 0, bias = 0;
  ASSERT_TRUE(y.node()->GetAttr("depth_radius", &radius).ok());
  ASSERT_TRUE(y.node()->GetAttr("beta", &beta).ok());
  ASSERT_TRUE(y.node()->GetAttr("bias", &bias).ok());
  EXPECT_EQ(radius, 2);
  EXPECT_FLOAT_EQ(beta, 0.75f);
  EXPECT_FLOAT_EQ(bias, 1.0f);
}

TEST(ConvOpsTest, LRNGradShapes) {
  EXPECT_EQ(
      Out(Infer("LRNGrad", {{kQ, 8, 8, 16}, {2, kQ, 8, 16}, kUnknownShape})),
      "[2,8,8,16]");
  EXPECT_EQ(
      Out(Infer("LRNGrad", {kUnknownShape, kUnknownShape, kUnknownShape})),
      "[?,?,?,?]");
  Scope root = Scope::NewRootScope();
  ops::LRNGrad(root.WithOpName("n"), FloatInput(root, {1, 4, 4, 8}),
               FloatInput(root, {1, 4, 4, 8}), FloatInput(root, {1, 4, 4, 9}));
  ExpectBuildError(root, "LRNGrad", {"[1,4,4,8]", "[1,4,4,9]"});
}

// A small CNN built with the wrappers: the shapes flow end to end.
TEST(ConvOpsTest, SmallConvNetShapes) {
  Scope root = Scope::NewRootScope();
  Output images = FloatInput(root, {kQ, 24, 24, 3});
  Output labels =
      ops::Placeholder(root, DT_INT64, ops::PlaceholderAttrs().Shape({kQ}));
  Output conv = ops::Conv2D(root, images, FloatInput(root, {5, 5, 3, 64}),
                            {1, 1, 1, 1}, "SAME");
  Output relu =
      ops::Relu(root, ops::BiasAdd(root, conv, FloatInput(root, {64})));
  Output pool = ops::MaxPool(root, relu, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
  Output norm = ops::LRN(root, pool, ops::LRNAttrs().DepthRadius(4));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(norm.shape(), TensorShape({kQ, 12, 12, 64}));
  Output logits = FloatInput(root, {kQ, 10});
  ops::CrossEntropyOutputs xent =
      ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(xent.loss.shape(), TensorShape({kQ}));
  EXPECT_EQ(xent.backprop.shape(), TensorShape({kQ, 10}));
}

// A NodeDef written by an older TensorFlow (no dilations, explicit_paddings
// or data_format attrs) validates, and its shapes are inferred from the
// schema's defaults.
TEST(ConvOpsTest, ImportsTensorFlowNodesWithoutOptionalAttrs) {
  GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        node {
          name: "x"
          op: "Placeholder"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
          attr {
            key: "shape"
            value {
              shape {
                dim { size: -1 }
                dim { size: 32 }
                dim { size: 32 }
                dim { size: 3 }
              }
            }
          }
        }
        node {
          name: "w"
          op: "Placeholder"
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
          attr {
            key: "shape"
            value {
              shape {
                dim { size: 5 }
                dim { size: 5 }
                dim { size: 3 }
                dim { size: 64 }
              }
            }
          }
        }
        node {
          name: "conv"
          op: "Conv2D"
          input: "x"
          input: "w"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
          attr {
            key: "strides"
            value { list { i: 1 i: 1 i: 1 i: 1 } }
          }
          attr {
            key: "padding"
            value { s: "SAME" }
          }
          attr {
            key: "use_cudnn_on_gpu"
            value { b: true }
          }
        }
        node {
          name: "pool"
          op: "MaxPool"
          input: "conv"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
          attr {
            key: "ksize"
            value { list { i: 1 i: 3 i: 3 i: 1 } }
          }
          attr {
            key: "strides"
            value { list { i: 1 i: 2 i: 2 i: 1 } }
          }
          attr {
            key: "padding"
            value { s: "VALID" }
          }
        }
      )pb",
      &def));
  Graph graph;
  absl::Status s = ImportGraphDef(def, ImportOptions(), &graph);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_NE(graph.FindNode("pool"), nullptr);
  EXPECT_EQ(graph.FindNode("conv")->output_shape(0),
            TensorShape({kQ, 32, 32, 64}));
  EXPECT_EQ(graph.FindNode("pool")->output_shape(0),
            TensorShape({kQ, 15, 15, 64}));
}

// --- DepthwiseConv2dNative. ---

TEST(ConvOpsTest, DepthwiseConv2dNativeShapes) {
  const std::string op = "DepthwiseConv2dNative";
  // in_channels * multiplier output channels, Conv2D's spatial sizes.
  EXPECT_EQ(Out(Infer(op, {{2, 8, 8, 3}, {3, 3, 3, 2}},
                      Conv({1, 1, 1, 1}, "SAME"))),
            "[2,8,8,6]");
  EXPECT_EQ(Out(Infer(op, {{2, 8, 8, 3}, {3, 3, 3, 2}},
                      Conv({1, 2, 2, 1}, "VALID"))),
            "[2,3,3,6]");
  Attrs dilated = Conv({1, 1, 1, 1}, "VALID");
  dilated["dilations"] = Ints({1, 2, 2, 1});
  EXPECT_EQ(Out(Infer(op, {{1, 7, 9, 4}, {3, 3, 4, 1}}, dilated)),
            "[1,3,5,4]");
  Attrs explicit_pads = Conv({1, 2, 2, 1}, "EXPLICIT");
  explicit_pads["explicit_paddings"] = Ints({0, 0, 1, 2, 0, 1, 0, 0});
  EXPECT_EQ(Out(Infer(op, {{2, 7, 8, 3}, {3, 3, 3, 2}}, explicit_pads)),
            "[2,4,4,6]");
  // Unknown channels or multiplier leave the output channels unknown.
  EXPECT_EQ(Out(Infer(op, {{2, 8, 8, kQ}, {3, 3, kQ, 2}},
                      Conv({1, 1, 1, 1}, "SAME"))),
            "[2,8,8,?]");
  EXPECT_EQ(Out(Infer(op, {kUnknownShape, kUnknownShape},
                      Conv({1, 1, 1, 1}, "SAME"))),
            "[?,?,?,?]");
  EXPECT_THAT(Out(Infer(op, {{2, 8, 8, 3}, {3, 3, 4, 2}},
                        Conv({1, 1, 1, 1}, "SAME"))),
              HasSubstr("has 3 channels but the depthwise filter [3,3,4,2] "
                        "expects 4"));
}

TEST(ConvOpsTest, DepthwiseConv2dNativeBackpropShapes) {
  const Tensor sizes = Tensor::FromVector<int32_t>({2, 8, 8, 3});
  EXPECT_EQ(Out(Infer("DepthwiseConv2dNativeBackpropInput",
                      {{4}, {3, 3, 3, 2}, {2, 4, 4, 6}},
                      Conv({1, 2, 2, 1}, "SAME"), {&sizes})),
            "[2,8,8,3]");
  EXPECT_EQ(Out(Infer("DepthwiseConv2dNativeBackpropInput",
                      {{4}, {3, 3, 3, 2}, {2, 4, 4, 6}},
                      Conv({1, 2, 2, 1}, "SAME"))),
            "[?,?,?,?]");
  EXPECT_THAT(Out(Infer("DepthwiseConv2dNativeBackpropInput",
                        {{4}, {3, 3, 3, 2}, {2, 8, 8, 6}},
                        Conv({1, 2, 2, 1}, "SAME"), {&sizes})),
              HasSubstr("out_backprop [2,8,8,6] must match the depthwise "
                        "convolution's output [2,4,4,6]"));
  const Tensor filter_sizes = Tensor::FromVector<int32_t>({3, 3, 3, 2});
  EXPECT_EQ(Out(Infer("DepthwiseConv2dNativeBackpropFilter",
                      {{2, 8, 8, 3}, {4}, {2, 8, 8, 6}},
                      Conv({1, 1, 1, 1}, "SAME"), {nullptr, &filter_sizes})),
            "[3,3,3,2]");
}
}  // namespace
}  // namespace dflow
