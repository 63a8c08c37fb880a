// Schemas, shape functions and wrappers of the 3-D pooling ops MaxPool3D,
// AvgPool3D and their gradients MaxPool3DGrad and AvgPool3DGrad
// (conv_ops.h), following TensorFlow 2.21's core/ops/nn_ops.cc. Volumes are
// 5-D, NDHWC or NCDHW; ksize and strides have one entry per dimension in
// that order. The CPU kernels are kernels/cpu/pooling_ops_3d.cc.
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

// The pooled shape of a volume `in` (unknown sizes stay unknown).
absl::Status Pooled3DShape(InferenceContext* c, const TensorShape& input,
                           TensorShape* out) {
  std::vector<int64_t> ksize, strides;
  std::string padding, format;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  bool ok = ksize.size() == 5 && strides.size() == 5;
  for (size_t i = 0; ok && i < 5; ++i) ok = ksize[i] >= 1 && strides[i] >= 1;
  if (!ok) {
    return InvalidArgument("ksize [", absl::StrJoin(ksize, ","),
                           "] and strides [", absl::StrJoin(strides, ","),
                           "] must have 5 positive entries (", format, ")");
  }
  const int ch = format == "NCDHW" ? 1 : 4;
  if (ksize[0] != 1 || strides[0] != 1 || ksize[ch] != 1 || strides[ch] != 1) {
    return InvalidArgument("ksize [", absl::StrJoin(ksize, ","),
                           "] and strides [", absl::StrJoin(strides, ","),
                           "]: pooling the batch or channels is not supported");
  }
  TensorShape in;
  DFLOW_RETURN_IF_ERROR(c->WithRank(input, 5, "the input volume", &in));
  *out = in;
  const int first = format == "NCDHW" ? 2 : 1;
  for (int i = first; i < first + 3; ++i) {
    const int64_t v = in.dim(i);
    if (v == kUnknown) continue;
    if (padding == "SAME") {
      out->set_dim(i, (v + strides[i] - 1) / strides[i]);
    } else if (v < ksize[i]) {
      return InvalidArgument("input ", in.ToString(), " is smaller than the ",
                             "window ", ksize[i], " in dimension ", i,
                             " with VALID padding");
    } else {
      out->set_dim(i, (v - ksize[i]) / strides[i] + 1);
    }
  }
  return absl::OkStatus();
}

absl::Status Pool3DShape(InferenceContext* c) {
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(Pooled3DShape(c, c->input(0), &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MaxPool3DGradShape(InferenceContext* c) {
  TensorShape pooled, merged;
  DFLOW_RETURN_IF_ERROR(Pooled3DShape(c, c->input(0), &pooled));
  DFLOW_RETURN_IF_ERROR(c->MergeShapes(
      pooled, c->input(1), "pooled orig_input and orig_output", &merged));
  DFLOW_RETURN_IF_ERROR(
      c->MergeShapes(merged, c->input(2), "orig_output and grad", &merged));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status AvgPool3DGradShape(InferenceContext* c) {
  TensorShape in;
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &in));
  DFLOW_RETURN_IF_ERROR(c->WithRank(in, 5, "input 'orig_input_shape'", &in));
  TensorShape pooled, merged;
  DFLOW_RETURN_IF_ERROR(Pooled3DShape(c, in, &pooled));
  DFLOW_RETURN_IF_ERROR(
      c->MergeShapes(pooled, c->input(1), "pooled input and grad", &merged));
  c->set_output(0, in);
  return absl::OkStatus();
}

constexpr char kPadding[] = "padding: {'SAME', 'VALID'}";
constexpr char kFormat[] = "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'";

}  // namespace

DFLOW_REGISTER_OP("MaxPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr(kPadding)
    .Attr(kFormat)
    .Attr("T: {half, bfloat16, float}")
    .SetShapeFn(Pool3DShape)
    .Doc("The maximum of each ksize window of a volume.");

DFLOW_REGISTER_OP("AvgPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr(kPadding)
    .Attr(kFormat)
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(Pool3DShape)
    .Doc("The mean of each ksize window of a volume (padding not counted).");

DFLOW_REGISTER_OP("MaxPool3DGrad")
    .Input("orig_input: TInput")
    .Input("orig_output: TInput")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr(kPadding)
    .Attr(kFormat)
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .Attr("TInput: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn(MaxPool3DGradShape)
    .Doc("MaxPool3D's gradient: grad at the window's maximum.");

DFLOW_REGISTER_OP("AvgPool3DGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr(kPadding)
    .Attr(kFormat)
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(AvgPool3DGradShape)
    .Doc("AvgPool3D's gradient: grad spread evenly over its window.");

namespace ops {
namespace {

Output BuildPool3D(const Scope& scope, const char* op,
                   std::initializer_list<Input> inputs,
                   const std::vector<int64_t>& ksize,
                   const std::vector<int64_t>& strides,
                   const std::string& padding, const Pool3DAttrs& attrs) {
  OpBuilder b(scope, op);
  for (const Input& in : inputs) b.Input(in);
  b.Attr("ksize", ksize)
      .Attr("strides", strides)
      .Attr("padding", padding)
      .Attr("data_format", attrs.data_format);
  return FirstOutput(b.Finalize());
}

}  // namespace

Output MaxPool3D(const Scope& scope, Input input, std::vector<int64_t> ksize,
                 std::vector<int64_t> strides, std::string padding,
                 const Pool3DAttrs& attrs) {
  return BuildPool3D(scope, "MaxPool3D", {input}, ksize, strides, padding,
                     attrs);
}

Output AvgPool3D(const Scope& scope, Input input, std::vector<int64_t> ksize,
                 std::vector<int64_t> strides, std::string padding,
                 const Pool3DAttrs& attrs) {
  return BuildPool3D(scope, "AvgPool3D", {input}, ksize, strides, padding,
                     attrs);
}

Output MaxPool3DGrad(const Scope& scope, Input orig_input, Input orig_output,
                     Input grad, std::vector<int64_t> ksize,
                     std::vector<int64_t> strides, std::string padding,
                     const Pool3DAttrs& attrs) {
  return BuildPool3D(scope, "MaxPool3DGrad", {orig_input, orig_output, grad},
                     ksize, strides, padding, attrs);
}

Output AvgPool3DGrad(const Scope& scope, Input orig_input_shape, Input grad,
                     std::vector<int64_t> ksize, std::vector<int64_t> strides,
                     std::string padding, const Pool3DAttrs& attrs) {
  return BuildPool3D(scope, "AvgPool3DGrad", {orig_input_shape, grad}, ksize,
                     strides, padding, attrs);
}

}  // namespace ops
}  // namespace dflow
