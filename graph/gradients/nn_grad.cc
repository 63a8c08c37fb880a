// Gradients of the neural-network ops (graph/ops/nn_ops.h: activations,
// softmax, losses, bias; graph/ops/ctc_ops.h's CTC loss) and the
// convolution ops (graph/ops/conv_ops.h: Conv2D, pooling, LRN), following
// TensorFlow's nn_grad.py. Most are one op: the forward op's own gradient
// op (ReluGrad, BiasAddGrad, Conv2DBackprop*, MaxPoolGrad, AvgPoolGrad,
// LRNGrad) with the forward op's attrs. The gradient ops that are
// themselves differentiable in TensorFlow get second-order gradients here
// too (ReluGrad, BiasAddGrad, the Conv2D backprops, AvgPoolGrad);
// MaxPoolGrad and LRNGrad have none (TensorFlow needs MaxPoolGradGrad,
// which dflow does not have).
#include <cstdint>
#include <string>
#include <vector>

#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"

namespace dflow {
namespace {

// Whether `g` is the ZerosLike AddSymbolicGradients built for output `k` of
// `op` because no gradient reached it (TensorFlow's `_is_zeros_tensor`):
// terms multiplied by it need not be built.
bool IsZerosFor(const Output& g, const Operation& op, int k) {
  if (!g.valid() || g.node()->op() != "ZerosLike") return false;
  const Edge* e = g.node()->input_edge(0);
  return e != nullptr && e->src == op.node() && e->src_output == k;
}

// The shape of `x` as an int32 vector: a constant when it is statically
// known (no op runs per step), else a Shape op.
Output ShapeOf(const Scope& scope, const Output& x) {
  const TensorShape s = x.shape();
  if (s.IsFullyDefined()) {
    std::vector<int32_t> dims(s.dims().begin(), s.dims().end());
    return ops::Const(scope, Tensor::FromVector<int32_t>(dims));
  }
  return ops::Shape(scope, x);
}

// Sums over the last dimension, keeping it (size 1) so the result
// broadcasts against its input.
Output SumLastKeep(const Scope& scope, const Output& x) {
  return ops::Sum(scope, x, -1, ops::ReductionAttrs().KeepDims(true));
}

// Reads attr `name` of `op` into `*out`; a failure names the attr (the
// caller's error gets the node prefixed by AddSymbolicGradients).
template <typename T>
absl::Status Attr(const Operation& op, const char* name, T* out) {
  return op.node()->GetAttr(name, out);
}

#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    if (absl::Status _s = (expr); !_s.ok()) return _s; \
  } while (false)

// --- Activations. ---

// ReluGrad(g, y): y > 0 exactly where the features are, and using the
// output lets the input be freed after the forward pass.
absl::Status ReluGradFn(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs) {
  *grad_inputs = {ops::ReluGrad(scope, grad_outputs[0], op.output(0))};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Relu", ReluGradFn);

// ReluGrad(gradients, features) is linear in `gradients` with the same
// mask; the features only choose the mask (piecewise constant: none).
absl::Status ReluGradGradFn(const Scope& scope, const Operation& op,
                            absl::Span<const Output> grad_outputs,
                            std::vector<Output>* grad_inputs) {
  *grad_inputs = {ops::ReluGrad(scope, grad_outputs[0], op.input(1)),
                  NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("ReluGrad", ReluGradGradFn);

// --- Bias. ---

absl::Status BiasAddGradFn(const Scope& scope, const Operation& op,
                           absl::Span<const Output> grad_outputs,
                           std::vector<Output>* grad_inputs) {
  std::string format;
  RETURN_IF_ERROR(Attr(op, "data_format", &format));
  const Output g = grad_outputs[0];
  *grad_inputs = {
      g, ops::BiasAddGrad(scope, g, ops::BiasAddAttrs().DataFormat(format))};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("BiasAdd", BiasAddGradFn);

// BiasAddGrad sums over every dimension but the channel one, so its
// gradient broadcasts `g` [channels] back along them. TensorFlow reshapes
// and tiles; BiasAdd onto zeros shaped like out_backprop is the same
// broadcast in two ops, for any rank and either data format, with no shape
// arithmetic.
absl::Status BiasAddGradGradFn(const Scope& scope, const Operation& op,
                               absl::Span<const Output> grad_outputs,
                               std::vector<Output>* grad_inputs) {
  std::string format;
  RETURN_IF_ERROR(Attr(op, "data_format", &format));
  *grad_inputs = {ops::BiasAdd(scope, ops::ZerosLike(scope, op.input(0)),
                               grad_outputs[0],
                               ops::BiasAddAttrs().DataFormat(format))};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("BiasAddGrad", BiasAddGradGradFn);

// --- Softmax and losses. ---

// y = softmax(x): dx = (g - sum(g * y, -1)) * y.
absl::Status SoftmaxGradFn(const Scope& scope, const Operation& op,
                           absl::Span<const Output> grad_outputs,
                           std::vector<Output>* grad_inputs) {
  const Output y = op.output(0), g = grad_outputs[0];
  const Output dot = SumLastKeep(scope, ops::Mul(scope, g, y));
  *grad_inputs = {ops::Mul(scope, ops::Sub(scope, g, dot), y)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Softmax", SoftmaxGradFn);

// y = log_softmax(x): dx = g - sum(g, -1) * exp(y).
absl::Status LogSoftmaxGradFn(const Scope& scope, const Operation& op,
                              absl::Span<const Output> grad_outputs,
                              std::vector<Output>* grad_inputs) {
  const Output g = grad_outputs[0];
  const Output softmax = ops::Exp(scope, op.output(0));
  *grad_inputs = {
      ops::Sub(scope, g, ops::Mul(scope, SumLastKeep(scope, g), softmax))};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("LogSoftmax", LogSoftmaxGradFn);

// The gradient of both cross-entropy ops with respect to their logits:
// g_loss times the backprop output, plus, when the backprop output
// (softmax - labels) got a gradient of its own, the gradient of softmax
// applied to it (the second-order term TensorFlow adds). `g_loss_column`
// is g_loss [batch] as a column [batch, 1].
Output CrossEntropyLogitsGrad(const Scope& scope, const Operation& op,
                              absl::Span<const Output> grad_outputs,
                              const Output& g_loss_column) {
  const Output g_backprop = grad_outputs[1];
  const Output from_loss = ops::Mul(scope, g_loss_column, op.output(1));
  if (!g_backprop.valid() || IsZerosFor(g_backprop, op, 1)) return from_loss;
  const Output softmax = ops::Softmax(scope, op.input(0));
  const Output dot = SumLastKeep(scope, ops::Mul(scope, g_backprop, softmax));
  const Output from_backprop =
      ops::Mul(scope, ops::Sub(scope, g_backprop, dot), softmax);
  if (IsZerosFor(grad_outputs[0], op, 0)) return from_backprop;
  return ops::Add(scope, from_loss, from_backprop);
}

// Whether features and labels of SoftmaxCrossEntropyWithLogits may have
// been broadcast against each other, so that their gradients (shaped like
// the broadcast [batch, classes]) must be summed back to their shapes. Two
// rank-2 shapes whose dimensions are each equal or unknown in both are
// taken to be the same shape: the common case of logits and one-hot labels
// with an unknown batch builds no reduction ops (TensorFlow's gradient never
// reduces; dflow's kernel, like TensorFlow 2's, broadcasts).
bool MayBroadcast(const TensorShape& a, const TensorShape& b) {
  if (a.unknown_rank() || b.unknown_rank() || a.rank() != 2 || b.rank() != 2) {
    return true;
  }
  return a.dims() != b.dims();
}

// loss = sum(-labels * log_softmax(features), -1); backprop = softmax -
// labels. Labels get TensorFlow's gradient, -log_softmax(features) * g_loss
// (the path through backprop, -g_backprop, is left out as TensorFlow does).
absl::Status SoftmaxCrossEntropyGradFn(const Scope& scope, const Operation& op,
                                       absl::Span<const Output> grad_outputs,
                                       std::vector<Output>* grad_inputs) {
  const Output features = op.input(0), labels = op.input(1);
  const Output g_loss_column = ops::ExpandDims(scope, grad_outputs[0], -1);
  const Output d_features =
      CrossEntropyLogitsGrad(scope, op, grad_outputs, g_loss_column);
  const Output d_labels = ops::Mul(
      scope, g_loss_column, ops::Neg(scope, ops::LogSoftmax(scope, features)));
  grad_inputs->resize(2);
  if (MayBroadcast(features.shape(), labels.shape())) {
    ReduceBroadcastGradients(scope, features, labels, d_features, d_labels,
                             &(*grad_inputs)[0], &(*grad_inputs)[1]);
  } else {
    *grad_inputs = {d_features, d_labels};
  }
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("SoftmaxCrossEntropyWithLogits",
                        SoftmaxCrossEntropyGradFn);

// Labels are class indices: no gradient.
absl::Status SparseSoftmaxCrossEntropyGradFn(
    const Scope& scope, const Operation& op,
    absl::Span<const Output> grad_outputs, std::vector<Output>* grad_inputs) {
  *grad_inputs = {
      CrossEntropyLogitsGrad(scope, op, grad_outputs,
                             ops::ExpandDims(scope, grad_outputs[0], -1)),
      NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("SparseSoftmaxCrossEntropyWithLogits",
                        SparseSoftmaxCrossEntropyGradFn);

// CTC loss (graph/ops/ctc_ops.h): the kernel's own gradient output scaled
// by each entry's incoming gradient, as TensorFlow's ctc_ops.py; that
// output is itself not differentiable (PreventGradient), and the labels
// and lengths get none.
absl::Status CTCLossGradFn(const Scope& scope, const Operation& op,
                           absl::Span<const Output> grad_outputs,
                           std::vector<Output>* grad_inputs) {
  const Output gradient = ops::PreventGradient(
      scope, op.output(1),
      "Currently there is no way to take the second derivative of ctc_loss "
      "due to the fused implementation's interaction with tf.gradients()");
  *grad_inputs = {
      ops::Mul(scope, ops::ExpandDims(scope, grad_outputs[0], -1), gradient),
      NoGradient(), NoGradient(), NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("CTCLoss", CTCLossGradFn);
DFLOW_REGISTER_GRADIENT("CTCLossV2", CTCLossGradFn);
DFLOW_REGISTER_NO_GRADIENT("CTCGreedyDecoder");
DFLOW_REGISTER_NO_GRADIENT("CTCBeamSearchDecoder");

// sum(t^2) / 2: dt = t * g (g is a scalar).
absl::Status L2LossGradFn(const Scope& scope, const Operation& op,
                          absl::Span<const Output> grad_outputs,
                          std::vector<Output>* grad_inputs) {
  *grad_inputs = {ops::Mul(scope, op.input(0), grad_outputs[0])};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("L2Loss", L2LossGradFn);

// --- Batch normalization. ---

// FusedBatchNormV3: FusedBatchNormGradV3 of the forward op's attrs, reading
// the reserve outputs in training (the batch statistics) and the given
// mean and variance in inference, as TensorFlow's nn_grad.py. The running
// estimates get no gradient. (TensorFlow transposes NCHW to NHWC for the
// inference gradient because its CPU kernel lacks NCHW; dflow's has it.)
absl::Status FusedBatchNormV3GradFn(const Scope& scope, const Operation& op,
                                    absl::Span<const Output> grad_outputs,
                                    std::vector<Output>* grad_inputs) {
  ops::FusedBatchNormAttrs attrs;
  RETURN_IF_ERROR(Attr(op, "epsilon", &attrs.epsilon));
  RETURN_IF_ERROR(Attr(op, "data_format", &attrs.data_format));
  RETURN_IF_ERROR(Attr(op, "is_training", &attrs.is_training));
  const Output mean = attrs.is_training ? op.output(3) : op.input(3);
  const Output variance = attrs.is_training ? op.output(4) : op.input(4);
  OutputList g = ops::FusedBatchNormGradV3(scope, grad_outputs[0], op.input(0),
                                           op.input(1), mean, variance,
                                           op.output(5), attrs);
  if (!scope.ok()) return scope.status();
  *grad_inputs = {g[0], g[1], g[2], NoGradient(), NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("FusedBatchNormV3", FusedBatchNormV3GradFn);

// A bool per example (TensorFlow's NotDifferentiable).

// --- Convolution. ---

absl::Status GetConvAttrs(const Operation& op, std::vector<int64_t>* strides,
                          std::string* padding, ops::Conv2DAttrs* a) {
  RETURN_IF_ERROR(Attr(op, "strides", strides));
  RETURN_IF_ERROR(Attr(op, "padding", padding));
  RETURN_IF_ERROR(Attr(op, "use_cudnn_on_gpu", &a->use_cudnn_on_gpu));
  RETURN_IF_ERROR(Attr(op, "explicit_paddings", &a->explicit_paddings));
  RETURN_IF_ERROR(Attr(op, "data_format", &a->data_format));
  return Attr(op, "dilations", &a->dilations);
}

// y = conv(x, w): dx and dw are the two backprop ops, with the input sizes
// a constant when the static shapes are fully known.
absl::Status Conv2DGradFn(const Scope& scope, const Operation& op,
                          absl::Span<const Output> grad_outputs,
                          std::vector<Output>* grad_inputs) {
  std::vector<int64_t> strides;
  std::string padding;
  ops::Conv2DAttrs a;
  RETURN_IF_ERROR(GetConvAttrs(op, &strides, &padding, &a));
  const Output x = op.input(0), w = op.input(1), g = grad_outputs[0];
  *grad_inputs = {ops::Conv2DBackpropInput(scope, ShapeOf(scope, x), w, g,
                                           strides, padding, a),
                  ops::Conv2DBackpropFilter(scope, x, ShapeOf(scope, w), g,
                                            strides, padding, a)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Conv2D", Conv2DGradFn);

// dx = Conv2DBackpropInput(sizes, w, dy) is bilinear in (w, dy): its
// gradient for w correlates the incoming g (shaped like x) with dy, which
// is Conv2DBackpropFilter(g, shape(w), dy); for dy it is the forward
// convolution of g with w.
absl::Status Conv2DBackpropInputGradFn(const Scope& scope, const Operation& op,
                                       absl::Span<const Output> grad_outputs,
                                       std::vector<Output>* grad_inputs) {
  std::vector<int64_t> strides;
  std::string padding;
  ops::Conv2DAttrs a;
  RETURN_IF_ERROR(GetConvAttrs(op, &strides, &padding, &a));
  const Output w = op.input(1), dy = op.input(2), g = grad_outputs[0];
  *grad_inputs = {NoGradient(),
                  ops::Conv2DBackpropFilter(scope, g, ShapeOf(scope, w), dy,
                                            strides, padding, a),
                  ops::Conv2D(scope, g, w, strides, padding, a)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Conv2DBackpropInput", Conv2DBackpropInputGradFn);

// dw = Conv2DBackpropFilter(x, sizes, dy) is bilinear in (x, dy): for x,
// Conv2DBackpropInput(shape(x), g, dy); for dy, the convolution of x with g.
absl::Status Conv2DBackpropFilterGradFn(const Scope& scope, const Operation& op,
                                        absl::Span<const Output> grad_outputs,
                                        std::vector<Output>* grad_inputs) {
  std::vector<int64_t> strides;
  std::string padding;
  ops::Conv2DAttrs a;
  RETURN_IF_ERROR(GetConvAttrs(op, &strides, &padding, &a));
  const Output x = op.input(0), dy = op.input(2), g = grad_outputs[0];
  *grad_inputs = {ops::Conv2DBackpropInput(scope, ShapeOf(scope, x), g, dy,
                                           strides, padding, a),
                  NoGradient(), ops::Conv2D(scope, x, g, strides, padding, a)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Conv2DBackpropFilter", Conv2DBackpropFilterGradFn);

// y = depthwise_conv(x, w): the two depthwise backprop ops, as TensorFlow's
// nn_grad.py writes them.
absl::Status DepthwiseConv2dNativeGradFn(const Scope& scope,
                                         const Operation& op,
                                         absl::Span<const Output> grad_outputs,
                                         std::vector<Output>* grad_inputs) {
  std::vector<int64_t> strides;
  std::string padding;
  ops::DepthwiseConv2dNativeAttrs a;
  RETURN_IF_ERROR(Attr(op, "strides", &strides));
  RETURN_IF_ERROR(Attr(op, "padding", &padding));
  RETURN_IF_ERROR(Attr(op, "explicit_paddings", &a.explicit_paddings));
  RETURN_IF_ERROR(Attr(op, "data_format", &a.data_format));
  RETURN_IF_ERROR(Attr(op, "dilations", &a.dilations));
  const Output x = op.input(0), w = op.input(1), g = grad_outputs[0];
  *grad_inputs = {ops::DepthwiseConv2dNativeBackpropInput(
                      scope, ShapeOf(scope, x), w, g, strides, padding, a),
                  ops::DepthwiseConv2dNativeBackpropFilter(
                      scope, x, ShapeOf(scope, w), g, strides, padding, a)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("DepthwiseConv2dNative", DepthwiseConv2dNativeGradFn);

// --- Pooling. ---

absl::Status GetPoolAttrs(const Operation& op, std::vector<int64_t>* ksize,
                          std::vector<int64_t>* strides, std::string* padding,
                          std::string* data_format) {
  RETURN_IF_ERROR(Attr(op, "ksize", ksize));
  RETURN_IF_ERROR(Attr(op, "strides", strides));
  RETURN_IF_ERROR(Attr(op, "padding", padding));
  return Attr(op, "data_format", data_format);
}

absl::Status MaxPoolGradFn(const Scope& scope, const Operation& op,
                           absl::Span<const Output> grad_outputs,
                           std::vector<Output>* grad_inputs) {
  std::vector<int64_t> ksize, strides;
  std::string padding;
  ops::MaxPoolGradAttrs a;
  RETURN_IF_ERROR(GetPoolAttrs(op, &ksize, &strides, &padding, &a.data_format));
  RETURN_IF_ERROR(Attr(op, "explicit_paddings", &a.explicit_paddings));
  *grad_inputs = {ops::MaxPoolGrad(scope, op.input(0), op.output(0),
                                   grad_outputs[0], ksize, strides, padding,
                                   a)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("MaxPool", MaxPoolGradFn);

absl::Status AvgPoolGradFn(const Scope& scope, const Operation& op,
                           absl::Span<const Output> grad_outputs,
                           std::vector<Output>* grad_inputs) {
  std::vector<int64_t> ksize, strides;
  std::string padding;
  ops::AvgPoolGradAttrs a;
  RETURN_IF_ERROR(GetPoolAttrs(op, &ksize, &strides, &padding, &a.data_format));
  const Output x = op.input(0);
  *grad_inputs = {ops::AvgPoolGrad(scope, ShapeOf(scope, x), grad_outputs[0],
                                   ksize, strides, padding, a)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("AvgPool", AvgPoolGradFn);

// AvgPoolGrad is linear in `grad` and its adjoint is AvgPool itself.
absl::Status AvgPoolGradGradFn(const Scope& scope, const Operation& op,
                               absl::Span<const Output> grad_outputs,
                               std::vector<Output>* grad_inputs) {
  std::vector<int64_t> ksize, strides;
  std::string padding;
  ops::AvgPoolAttrs a;
  RETURN_IF_ERROR(GetPoolAttrs(op, &ksize, &strides, &padding, &a.data_format));
  *grad_inputs = {NoGradient(), ops::AvgPool(scope, grad_outputs[0], ksize,
                                             strides, padding, a)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("AvgPoolGrad", AvgPoolGradGradFn);

// --- Local response normalization. ---

absl::Status LRNGradFn(const Scope& scope, const Operation& op,
                       absl::Span<const Output> grad_outputs,
                       std::vector<Output>* grad_inputs) {
  ops::LRNGradAttrs a;
  RETURN_IF_ERROR(Attr(op, "depth_radius", &a.depth_radius));
  RETURN_IF_ERROR(Attr(op, "bias", &a.bias));
  RETURN_IF_ERROR(Attr(op, "alpha", &a.alpha));
  RETURN_IF_ERROR(Attr(op, "beta", &a.beta));
  *grad_inputs = {
      ops::LRNGrad(scope, grad_outputs[0], op.input(0), op.output(0), a)};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("LRN", LRNGradFn);

#undef RETURN_IF_ERROR

}  // namespace
}  // namespace dflow
