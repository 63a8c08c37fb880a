// Schemas, shape functions and wrappers of the 3-D convolution Conv3D and
// its gradients Conv3DBackpropInputV2 and Conv3DBackpropFilterV2
// (conv_ops.h), following TensorFlow 2.21's core/ops/nn_ops.cc. Volumes are
// 5-D in data_format order (NDHWC or NCDHW); filters are [depth, height,
// width, in_channels, out_channels]. The CPU kernels are
// kernels/cpu/conv_ops_3d.cc.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "graph/op_registry.h"
#include "graph/ops/conv_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

absl::Status Conv3DShape(InferenceContext* c) {
  std::vector<int64_t> strides, dilations;
  std::string padding, format;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("dilations", &dilations));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  bool ok = strides.size() == 5 && dilations.size() == 5;
  for (size_t i = 0; ok && i < 5; ++i)
    ok = strides[i] >= 1 && dilations[i] >= 1;
  if (!ok) {
    return InvalidArgument("strides [", absl::StrJoin(strides, ","),
                           "] and dilations [", absl::StrJoin(dilations, ","),
                           "] must have 5 positive entries (", format, ")");
  }
  TensorShape in, filter;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 5, "input 'input'", &in));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 5, "input 'filter'", &filter));
  const bool ncdhw = format == "NCDHW";
  const int ch = ncdhw ? 1 : 4, first = ncdhw ? 2 : 1;
  if (strides[0] != 1 || strides[ch] != 1 || dilations[0] != 1 ||
      dilations[ch] != 1) {
    return InvalidArgument("strides [", absl::StrJoin(strides, ","),
                           "] and dilations [", absl::StrJoin(dilations, ","),
                           "] must be 1 in the batch and channel dimensions");
  }
  if (in.rank() >= 0 && filter.rank() >= 0 && in.dim(ch) != kUnknown &&
      filter.dim(3) != kUnknown && in.dim(ch) % filter.dim(3) != 0) {
    return InvalidArgument("input ", in.ToString(), " has ", in.dim(ch),
                           " channels, which the filter ", filter.ToString(),
                           "'s in_channels must divide");
  }
  TensorShape out = TensorShape::UnknownWithRank(5);
  if (in.rank() >= 0) out.set_dim(0, in.dim(0));
  if (filter.rank() >= 0) out.set_dim(ch, filter.dim(4));
  for (int i = 0; i < 3; ++i) {
    const int d = first + i;
    const int64_t v = in.rank() >= 0 ? in.dim(d) : kUnknown;
    const int64_t k = filter.rank() >= 0 ? filter.dim(i) : kUnknown;
    if (v == kUnknown) continue;
    if (padding == "SAME") {
      out.set_dim(d, (v + strides[d] - 1) / strides[d]);
      continue;
    }
    if (k == kUnknown) continue;
    const int64_t span = (k - 1) * dilations[d] + 1;
    if (v < span) {
      return InvalidArgument("input ", in.ToString(), " is smaller than the ",
                             "dilated filter (", span, ") in dimension ", d,
                             " with VALID padding");
    }
    out.set_dim(d, (v - span) / strides[d] + 1);
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// A gradient's shape: the value of the shape vector input `i`.
absl::Status ShapeFromInput(InferenceContext* c, int i) {
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(i, &out));
  DFLOW_RETURN_IF_ERROR(c->WithRank(out, 5, "the shape input", &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

constexpr char kTypes[] = "T: {half, bfloat16, float, double}";
constexpr char kPadding[] = "padding: {'SAME', 'VALID'}";
constexpr char kFormat[] = "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'";
constexpr char kDilations[] = "dilations: list(int) = [1, 1, 1, 1, 1]";

}  // namespace

DFLOW_REGISTER_OP("Conv3D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr(kTypes)
    .Attr("strides: list(int) >= 5")
    .Attr(kPadding)
    .Attr(kFormat)
    .Attr(kDilations)
    .SetShapeFn(Conv3DShape)
    .Doc("3-D convolution of a volume with a [d, h, w, in, out] filter.");

DFLOW_REGISTER_OP("Conv3DBackpropInputV2")
    .Input("input_sizes: Tshape")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr(kTypes)
    .Attr("strides: list(int) >= 5")
    .Attr(kPadding)
    .Attr(kFormat)
    .Attr(kDilations)
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn([](InferenceContext* c) { return ShapeFromInput(c, 0); })
    .Doc("Conv3D's gradient with respect to its input (input_sizes).");

DFLOW_REGISTER_OP("Conv3DBackpropFilterV2")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr(kTypes)
    .Attr("strides: list(int) >= 5")
    .Attr(kPadding)
    .Attr(kFormat)
    .Attr(kDilations)
    .SetShapeFn([](InferenceContext* c) { return ShapeFromInput(c, 1); })
    .Doc("Conv3D's gradient with respect to its filter (filter_sizes).");

namespace ops {
namespace {

Output BuildConv3D(const Scope& scope, const char* op,
                   std::initializer_list<Input> inputs,
                   const std::vector<int64_t>& strides,
                   const std::string& padding, const Conv3DAttrs& attrs) {
  OpBuilder b(scope, op);
  for (const Input& in : inputs) b.Input(in);
  b.Attr("strides", strides)
      .Attr("padding", padding)
      .Attr("data_format", attrs.data_format)
      .Attr("dilations", attrs.dilations);
  return FirstOutput(b.Finalize());
}

}  // namespace

Output Conv3D(const Scope& scope, Input input, Input filter,
              std::vector<int64_t> strides, std::string padding,
              const Conv3DAttrs& attrs) {
  return BuildConv3D(scope, "Conv3D", {input, filter}, strides, padding, attrs);
}

Output Conv3DBackpropInputV2(const Scope& scope, Input input_sizes,
                             Input filter, Input out_backprop,
                             std::vector<int64_t> strides, std::string padding,
                             const Conv3DAttrs& attrs) {
  return BuildConv3D(scope, "Conv3DBackpropInputV2",
                     {input_sizes, filter, out_backprop}, strides, padding,
                     attrs);
}

Output Conv3DBackpropFilterV2(const Scope& scope, Input input,
                              Input filter_sizes, Input out_backprop,
                              std::vector<int64_t> strides, std::string padding,
                              const Conv3DAttrs& attrs) {
  return BuildConv3D(scope, "Conv3DBackpropFilterV2",
                     {input, filter_sizes, out_backprop}, strides, padding,
                     attrs);
}

}  // namespace ops
}  // namespace dflow
