// Schemas, shape functions and builder wrappers of the fused batch
// normalization ops (TensorFlow's nn_ops.cc: FusedBatchNorm, V2, V3 and
// their gradients), with TensorFlow's OpDefs. Shape functions follow
// TensorFlow's FusedBatchNormShape / FusedBatchNormGradShape.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/nn_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// The rank and channel dimension `data_format` gives x.
absl::Status FormatRankAndChannel(InferenceContext* c, int* rank,
                                  int* channel) {
  std::string format;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  *rank = format.size() == 5 ? 5 : 4;
  *channel = format[1] == 'C' ? 1 : *rank - 1;
  return absl::OkStatus();
}

// Merges the channel count `*c_dim` with vector input `i`.
absl::Status MergeChannelVector(InferenceContext* c, int i, int64_t* c_dim) {
  TensorShape v;
  const std::string what =
      absl::StrCat("input '", c->op_def().input_arg(i).name(), "'");
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, what, &v));
  int64_t merged = 0;
  DFLOW_RETURN_IF_ERROR(
      c->MergeDim(*c_dim, v.dim(0),
                  absl::StrCat(what, " (one value per channel)"), &merged));
  *c_dim = merged;
  return absl::OkStatus();
}

// Forward: y has x's shape; the other outputs are per-channel vectors
// (V3's reserve_space_3 is left unknown, as in TensorFlow).
absl::Status FusedBatchNormShape(InferenceContext* c) {
  int rank = 4, channel = 3;
  DFLOW_RETURN_IF_ERROR(FormatRankAndChannel(c, &rank, &channel));
  TensorShape x;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, "input 'x'", &x));
  bool is_training = true;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  float avg_factor = 1;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("exponential_avg_factor", &avg_factor));
  int64_t depth = x.unknown_rank() ? TensorShape::kUnknownDim : x.dim(channel);
  DFLOW_RETURN_IF_ERROR(MergeChannelVector(c, 1, &depth));
  DFLOW_RETURN_IF_ERROR(MergeChannelVector(c, 2, &depth));
  // In training the running mean and variance are read only to average.
  if (!is_training || avg_factor != 1) {
    DFLOW_RETURN_IF_ERROR(MergeChannelVector(c, 3, &depth));
    DFLOW_RETURN_IF_ERROR(MergeChannelVector(c, 4, &depth));
  }
  if (!x.unknown_rank()) x.set_dim(channel, depth);
  c->set_output(0, x);
  for (int i = 1; i < 5; ++i) c->set_output(i, TensorShape({depth}));
  if (c->num_outputs() > 5) c->set_output(5, TensorShape::Unknown());
  return absl::OkStatus();
}

// Gradient: x_backprop has x's shape; scale and offset backprops are
// per-channel vectors; the reserve outputs are empty placeholders.
absl::Status FusedBatchNormGradShape(InferenceContext* c) {
  int rank = 4, channel = 3;
  DFLOW_RETURN_IF_ERROR(FormatRankAndChannel(c, &rank, &channel));
  TensorShape dy, x;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(0), rank, "input 'y_backprop'", &dy));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), rank, "input 'x'", &x));
  TensorShape merged;
  DFLOW_RETURN_IF_ERROR(
      c->MergeShapes(dy, x, "inputs 'y_backprop' and 'x'", &merged));
  int64_t depth =
      merged.unknown_rank() ? TensorShape::kUnknownDim : merged.dim(channel);
  for (int i = 2; i < 5; ++i)
    DFLOW_RETURN_IF_ERROR(MergeChannelVector(c, i, &depth));
  if (!merged.unknown_rank()) merged.set_dim(channel, depth);
  c->set_output(0, merged);
  c->set_output(1, TensorShape({depth}));
  c->set_output(2, TensorShape({depth}));
  c->set_output(3, TensorShape({0}));
  c->set_output(4, TensorShape({0}));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("FusedBatchNorm")
    .Input("x: T")
    .Input("scale: T")
    .Input("offset: T")
    .Input("mean: T")
    .Input("variance: T")
    .Output("y: T")
    .Output("batch_mean: T")
    .Output("batch_variance: T")
    .Output("reserve_space_1: T")
    .Output("reserve_space_2: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Doc("Batch normalization of a 4-D x over every dimension but channels.");

DFLOW_REGISTER_OP("FusedBatchNormV2")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Doc("FusedBatchNorm with statistics of type U.");

DFLOW_REGISTER_OP("FusedBatchNormV3")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Output("reserve_space_3: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {bfloat16, float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Doc("FusedBatchNormV2 with a third reserve output for its gradient.");

DFLOW_REGISTER_OP("FusedBatchNormGrad")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: T")
    .Input("reserve_space_1: T")
    .Input("reserve_space_2: T")
    .Output("x_backprop: T")
    .Output("scale_backprop: T")
    .Output("offset_backprop: T")
    .Output("reserve_space_3: T")
    .Output("reserve_space_4: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc("The gradient of FusedBatchNorm.");

DFLOW_REGISTER_OP("FusedBatchNormGradV2")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_3: U")
    .Output("reserve_space_4: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc("The gradient of FusedBatchNormV2.");

DFLOW_REGISTER_OP("FusedBatchNormGradV3")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Input("reserve_space_3: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_4: U")
    .Output("reserve_space_5: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc("The gradient of FusedBatchNormV3.");

}  // namespace

namespace ops {

namespace {

OutputList BuildForward(const Scope& scope, const char* op, int outputs,
                        Input x, Input scale, Input offset, Input mean,
                        Input variance, const FusedBatchNormAttrs& attrs) {
  return shape_fn_util::AllOutputs(
      OpBuilder(scope, op)
          .Input(x)
          .Input(scale)
          .Input(offset)
          .Input(mean)
          .Input(variance)
          .Attr("epsilon", attrs.epsilon)
          .Attr("exponential_avg_factor", attrs.exponential_avg_factor)
          .Attr("data_format", attrs.data_format)
          .Attr("is_training", attrs.is_training)
          .Finalize(),
      outputs);
}

OutputList BuildGrad(const Scope& scope, const char* op,
                     std::initializer_list<Input> inputs,
                     const FusedBatchNormAttrs& attrs) {
  OpBuilder b(scope, op);
  for (const Input& in : inputs) b.Input(in);
  return shape_fn_util::AllOutputs(b.Attr("epsilon", attrs.epsilon)
                                       .Attr("data_format", attrs.data_format)
                                       .Attr("is_training", attrs.is_training)
                                       .Finalize(),
                                   5);
}

}  // namespace

OutputList FusedBatchNorm(const Scope& scope, Input x, Input scale,
                          Input offset, Input mean, Input variance,
                          const FusedBatchNormAttrs& attrs) {
  return BuildForward(scope, "FusedBatchNorm", 5, x, scale, offset, mean,
                      variance, attrs);
}
OutputList FusedBatchNormV2(const Scope& scope, Input x, Input scale,
                            Input offset, Input mean, Input variance,
                            const FusedBatchNormAttrs& attrs) {
  return BuildForward(scope, "FusedBatchNormV2", 5, x, scale, offset, mean,
                      variance, attrs);
}
OutputList FusedBatchNormV3(const Scope& scope, Input x, Input scale,
                            Input offset, Input mean, Input variance,
                            const FusedBatchNormAttrs& attrs) {
  return BuildForward(scope, "FusedBatchNormV3", 6, x, scale, offset, mean,
                      variance, attrs);
}
OutputList FusedBatchNormGrad(const Scope& scope, Input y_backprop, Input x,
                              Input scale, Input reserve_space_1,
                              Input reserve_space_2,
                              const FusedBatchNormAttrs& attrs) {
  return BuildGrad(scope, "FusedBatchNormGrad",
                   {y_backprop, x, scale, reserve_space_1, reserve_space_2},
                   attrs);
}
OutputList FusedBatchNormGradV2(const Scope& scope, Input y_backprop, Input x,
                                Input scale, Input reserve_space_1,
                                Input reserve_space_2,
                                const FusedBatchNormAttrs& attrs) {
  return BuildGrad(scope, "FusedBatchNormGradV2",
                   {y_backprop, x, scale, reserve_space_1, reserve_space_2},
                   attrs);
}
OutputList FusedBatchNormGradV3(const Scope& scope, Input y_backprop, Input x,
                                Input scale, Input reserve_space_1,
                                Input reserve_space_2, Input reserve_space_3,
                                const FusedBatchNormAttrs& attrs) {
  return BuildGrad(
      scope, "FusedBatchNormGradV3",
      {y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3},
      attrs);
}

}  // namespace ops
}  // namespace dflow
