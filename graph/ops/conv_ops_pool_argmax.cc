// Schemas, shape functions and wrappers of MaxPoolWithArgmax and its
// gradient MaxPoolGradWithArgmax (conv_ops.h), following TensorFlow 2.21's
// core/ops/nn_ops.cc. Images are NHWC (the ops have no data_format). The
// CPU kernels are kernels/cpu/pooling_ops_argmax.cc.
#include <cstdint>
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

using shape_fn_util::AllOutputs;
using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// The pooled NHWC shape of input 0 (unknown sizes stay unknown).
absl::Status PooledShape(InferenceContext* c, TensorShape* out) {
  std::vector<int64_t> ksize, strides;
  std::string padding;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  if (ksize.size() != 4 || strides.size() != 4) {
    return InvalidArgument("ksize [", absl::StrJoin(ksize, ","),
                           "] and strides [", absl::StrJoin(strides, ","),
                           "] must have 4 entries (NHWC)");
  }
  for (int i = 0; i < 4; ++i) {
    if (ksize[i] < 1 || strides[i] < 1) {
      return InvalidArgument("ksize [", absl::StrJoin(ksize, ","),
                             "] and strides [", absl::StrJoin(strides, ","),
                             "] must be positive");
    }
  }
  if (ksize[0] != 1 || strides[0] != 1 || ksize[3] != 1 || strides[3] != 1) {
    return InvalidArgument("ksize [", absl::StrJoin(ksize, ","),
                           "] and strides [", absl::StrJoin(strides, ","),
                           "]: pooling the batch or channels is not supported");
  }
  TensorShape in;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "input 'input'", &in));
  *out = in;
  for (int i = 1; i <= 2; ++i) {
    const int64_t v = in.dim(i);
    if (v == kUnknown) continue;
    if (padding == "SAME") {
      out->set_dim(i, (v + strides[i] - 1) / strides[i]);
    } else {
      if (v < ksize[i]) {
        return InvalidArgument("input ", in.ToString(), " is smaller than the ",
                               "window ", ksize[i], " in dimension ", i,
                               " with VALID padding");
      }
      out->set_dim(i, (v - ksize[i]) / strides[i] + 1);
    }
  }
  return absl::OkStatus();
}

absl::Status MaxPoolWithArgmaxShape(InferenceContext* c) {
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(PooledShape(c, &out));
  c->set_output(0, out);
  c->set_output(1, out);
  return absl::OkStatus();
}

// The gradient has the input's shape; grad and argmax must be pooled.
absl::Status MaxPoolGradWithArgmaxShape(InferenceContext* c) {
  TensorShape pooled, merged;
  DFLOW_RETURN_IF_ERROR(PooledShape(c, &pooled));
  DFLOW_RETURN_IF_ERROR(
      c->MergeShapes(pooled, c->input(1), "pooled input and grad", &merged));
  DFLOW_RETURN_IF_ERROR(
      c->MergeShapes(merged, c->input(2), "grad and argmax", &merged));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

constexpr char kPoolTypes[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64}";

}  // namespace

DFLOW_REGISTER_OP("MaxPoolWithArgmax")
    .Input("input: T")
    .Output("output: T")
    .Output("argmax: Targmax")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("Targmax: {int32, int64} = DT_INT64")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("include_batch_in_index: bool = false")
    .Attr(kPoolTypes)
    .SetShapeFn(MaxPoolWithArgmaxShape)
    .Doc(
        "MaxPool (NHWC) that also gives where each maximum is: "
        "(y * width + x) * channels + c, plus batch * height * width * "
        "channels with include_batch_in_index.");

DFLOW_REGISTER_OP("MaxPoolGradWithArgmax")
    .Input("input: T")
    .Input("grad: T")
    .Input("argmax: Targmax")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("include_batch_in_index: bool = false")
    .Attr("Targmax: {int32, int64}")
    .Attr(kPoolTypes)
    .SetShapeFn(MaxPoolGradWithArgmaxShape)
    .Doc(
        "MaxPoolWithArgmax's gradient: grad added at the input positions "
        "argmax names.");

namespace ops {

MaxPoolWithArgmaxOutputs MaxPoolWithArgmax(
    const Scope& scope, Input input, std::vector<int64_t> ksize,
    std::vector<int64_t> strides, std::string padding,
    const MaxPoolWithArgmaxAttrs& attrs) {
  OutputList out = AllOutputs(
      OpBuilder(scope, "MaxPoolWithArgmax")
          .Input(input)
          .Attr("ksize", ksize)
          .Attr("strides", strides)
          .Attr("padding", padding)
          .Attr("Targmax", attrs.targmax)
          .Attr("include_batch_in_index", attrs.include_batch_in_index)
          .Finalize(),
      2);
  return {out[0], out[1]};
}

Output MaxPoolGradWithArgmax(const Scope& scope, Input input, Input grad,
                             Input argmax, std::vector<int64_t> ksize,
                             std::vector<int64_t> strides, std::string padding,
                             const MaxPoolWithArgmaxAttrs& attrs) {
  return FirstOutput(
      OpBuilder(scope, "MaxPoolGradWithArgmax")
          .Input(input)
          .Input(grad)
          .Input(argmax)
          .Attr("ksize", ksize)
          .Attr("strides", strides)
          .Attr("padding", padding)
          .Attr("include_batch_in_index", attrs.include_batch_in_index)
          .Finalize());
}

}  // namespace ops
}  // namespace dflow
