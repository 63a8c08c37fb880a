// Schemas, shape functions and builder wrappers of the activation, softmax,
// loss and bias ops (convolution, pooling and LRN are in conv_ops.cc).
// Shape functions follow TensorFlow's (common_shape_fns.cc) and add the
// consistency checks TensorFlow's kernels only make at run time (gradient
// shapes against their forward op) when every size involved is known.
#include "graph/ops/nn_ops.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

template <typename... Args>
absl::Status InvalidArg(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

using shape_fn_util::Build;
using shape_fn_util::InputWithRank;
using shape_fn_util::SameShapeInputs;

// --- Bias, activations, softmax, losses. ---

absl::Status BiasAddShapeIn(InferenceContext* c, const std::string& format) {
  TensorShape value, bias;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(
      c->input(0), format == "NCHW" ? 3 : 2, "input 'value'", &value));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 1, &bias));
  if (value.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  const int ch = format == "NCHW" ? 1 : value.rank() - 1;
  if (value.dim(ch) >= 0 && bias.dim(0) >= 0 && value.dim(ch) != bias.dim(0)) {
    return InvalidArg("bias ", bias.ToString(), " must have the size of ",
                      "dimension ", ch, " (the channel dimension in ", format,
                      ") of value ", value.ToString());
  }
  if (value.dim(ch) < 0) value.set_dim(ch, bias.dim(0));
  c->set_output(0, std::move(value));
  return absl::OkStatus();
}

absl::Status BiasAddShape(InferenceContext* c) {
  std::string format;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  return BiasAddShapeIn(c, format);
}

// BiasAddV1 has no data_format: channels last.
absl::Status BiasAddV1Shape(InferenceContext* c) {
  return BiasAddShapeIn(c, "NHWC");
}

absl::Status BiasAddGradShape(InferenceContext* c) {
  std::string format;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  TensorShape grad;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(
      c->input(0), format == "NCHW" ? 3 : 2, "input 'out_backprop'", &grad));
  const int64_t ch = grad.unknown_rank() ? kUnknown
                     : format == "NCHW"  ? grad.dim(1)
                                         : grad.dim(grad.rank() - 1);
  c->set_output(0, TensorShape({ch}));
  return absl::OkStatus();
}

absl::Status SoftmaxShape(InferenceContext* c) {
  TensorShape logits;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), 1, "input 'logits'", &logits));
  c->set_output(0, std::move(logits));
  return absl::OkStatus();
}

absl::Status SoftmaxCrossEntropyShape(InferenceContext* c) {
  const TensorShape& features = c->input(0);
  const TensorShape& labels = c->input(1);
  const std::string what = absl::StrCat("features ", features.ToString(),
                                        " and labels ", labels.ToString());
  absl::StatusOr<TensorShape> both = features.Merge(labels);
  if (!both.ok() || both->rank() > 2 ||
      (both->rank() >= 0 && both->rank() < 2)) {
    both = TensorShape();
    absl::Status s = c->BroadcastShapes(features, labels, &*both);
    if (!s.ok()) return InvalidArg(what, " do not broadcast: ", s.message());
  }
  if (!both->unknown_rank() && both->rank() != 2) {
    return InvalidArg(what, " must broadcast to a matrix [batch, classes] ",
                      "but give ", both->ToString());
  }
  DFLOW_RETURN_IF_ERROR(c->WithRank(*both, 2, what, &*both));
  c->set_output(0, TensorShape({both->dim(0)}));
  c->set_output(1, *std::move(both));
  return absl::OkStatus();
}

absl::Status SparseSoftmaxCrossEntropyShape(InferenceContext* c) {
  TensorShape features, labels;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 2, &features));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 1, &labels));
  const int64_t f = features.dim(0), l = labels.dim(0);
  if (f >= 0 && l >= 0 && f != l) {
    return InvalidArg("features ", features.ToString(), " and labels ",
                      labels.ToString(), " must have the same batch size ",
                      "(dimension 0)");
  }
  features.set_dim(0, f >= 0 ? f : l);
  c->set_output(0, TensorShape({features.dim(0)}));
  c->set_output(1, std::move(features));
  return absl::OkStatus();
}

// --- Registrations. ---

constexpr char kDataFormat[] = "data_format: {'NHWC', 'NCHW'} = 'NHWC'";
constexpr char kFloatTypes[] = "T: {half, bfloat16, float, double}";

DFLOW_REGISTER_OP("BiasAdd")
    .Attr("T: numbertype")
    .Input("value: T")
    .Input("bias: T")
    .Attr(kDataFormat)
    .Output("output: T")
    .SetShapeFn(BiasAddShape);

// TensorFlow's first BiasAdd, still written by tf.compat.v1.nn.bias_add_v1.
DFLOW_REGISTER_OP("BiasAddV1")
    .Input("value: T")
    .Input("bias: T")
    .Output("output: T")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, complex64, int64, "
        "qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, "
        "complex128, half, uint32, uint64}")
    .SetShapeFn(BiasAddV1Shape);

DFLOW_REGISTER_OP("BiasAddGrad")
    .Attr("T: numbertype")
    .Input("out_backprop: T")
    .Attr(kDataFormat)
    .Output("output: T")
    .SetShapeFn(BiasAddGradShape);

DFLOW_REGISTER_OP("Relu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {realnumbertype, qint8}")
    .SetShapeFn(shape_fns::UnchangedShape);

DFLOW_REGISTER_OP("ReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: realnumbertype")
    .SetShapeFn([](InferenceContext* c) { return SameShapeInputs(c, -1); });

DFLOW_REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr(kFloatTypes)
    .SetShapeFn(SoftmaxShape);

DFLOW_REGISTER_OP("LogSoftmax")
    .Input("logits: T")
    .Output("logsoftmax: T")
    .Attr(kFloatTypes)
    .SetShapeFn(SoftmaxShape);

DFLOW_REGISTER_OP("SoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: T")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr(kFloatTypes)
    .SetShapeFn(SoftmaxCrossEntropyShape);

DFLOW_REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: Tlabels")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr(kFloatTypes)
    .Attr("Tlabels: {int32, int64} = DT_INT64")
    .SetShapeFn(SparseSoftmaxCrossEntropyShape);

DFLOW_REGISTER_OP("L2Loss")
    .Input("t: T")
    .Output("output: T")
    .Attr(kFloatTypes)
    .SetShapeFn(shape_fns::ScalarShape);

// --- Wrappers. ---

// An invalid Operation (after a build error) gives invalid Outputs.
Output First(const Operation& op) { return op.output(0); }
ops::CrossEntropyOutputs Both(const Operation& op) {
  return {op.output(0), op.output(1)};
}

}  // namespace

namespace ops {

Output Relu(const Scope& scope, Input features) {
  return First(Build(scope, "Relu", {features}));
}

Output ReluGrad(const Scope& scope, Input gradients, Input features) {
  return First(Build(scope, "ReluGrad", {gradients, features}));
}

Output Softmax(const Scope& scope, Input logits) {
  return First(Build(scope, "Softmax", {logits}));
}

Output LogSoftmax(const Scope& scope, Input logits) {
  return First(Build(scope, "LogSoftmax", {logits}));
}

CrossEntropyOutputs SparseSoftmaxCrossEntropyWithLogits(const Scope& scope,
                                                        Input features,
                                                        Input labels) {
  return Both(
      Build(scope, "SparseSoftmaxCrossEntropyWithLogits", {features, labels}));
}

CrossEntropyOutputs SoftmaxCrossEntropyWithLogits(const Scope& scope,
                                                  Input features,
                                                  Input labels) {
  return Both(
      Build(scope, "SoftmaxCrossEntropyWithLogits", {features, labels}));
}

Output L2Loss(const Scope& scope, Input t) {
  return First(Build(scope, "L2Loss", {t}));
}

Output BiasAdd(const Scope& scope, Input value, Input bias,
               const BiasAddAttrs& attrs) {
  return First(Build(scope, "BiasAdd", {value, bias},
                     {{"data_format", MakeAttr(attrs.data_format)}}));
}

Output BiasAddV1(const Scope& scope, Input value, Input bias) {
  return First(Build(scope, "BiasAddV1", {value, bias}));
}

Output BiasAddGrad(const Scope& scope, Input out_backprop,
                   const BiasAddAttrs& attrs) {
  return First(Build(scope, "BiasAddGrad", {out_backprop},
                     {{"data_format", MakeAttr(attrs.data_format)}}));
}

}  // namespace ops
}  // namespace dflow
