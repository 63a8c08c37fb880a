// Schemas, shape functions and wrappers of the fake-quantization and
// quantize-dequantize ops (quantization_ops.h), following TensorFlow 2.21's
// core/ops/array_ops.cc.
#include <cstdint>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/quantization_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::AllOutputs;
using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

absl::Status CheckNumBits(InferenceContext* c) {
  int64_t num_bits = 0;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("num_bits", &num_bits));
  if (num_bits < 2 || num_bits > 16) {
    return InvalidArgument("num_bits must be in [2, 16], got ", num_bits);
  }
  return absl::OkStatus();
}

absl::Status FakeQuantArgsShape(InferenceContext* c) {
  DFLOW_RETURN_IF_ERROR(CheckNumBits(c));
  float min = 0, max = 0;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("min", &min));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("max", &max));
  if (!(min < max)) {
    return InvalidArgument("attr min (", min, ") must be smaller than max (",
                           max, ")");
  }
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status FakeQuantArgsGradientShape(InferenceContext* c) {
  DFLOW_RETURN_IF_ERROR(FakeQuantArgsShape(c));
  TensorShape merged;
  DFLOW_RETURN_IF_ERROR(c->MergeShapes(c->input(0), c->input(1),
                                       "gradients and inputs", &merged));
  c->set_output(0, merged);
  return absl::OkStatus();
}

// Vars: min and max are scalars. PerChannel: vectors whose length is the
// input's last dimension. `first` is the index of `inputs`.
absl::Status FakeQuantVarsShapes(InferenceContext* c, int first,
                                 bool per_channel, TensorShape* input,
                                 TensorShape* range) {
  DFLOW_RETURN_IF_ERROR(CheckNumBits(c));
  *input = c->input(first);
  if (first == 1) {
    DFLOW_RETURN_IF_ERROR(c->MergeShapes(c->input(0), c->input(1),
                                         "gradients and inputs", input));
  }
  if (!per_channel) {
    TensorShape unused;
    DFLOW_RETURN_IF_ERROR(
        c->WithRank(c->input(first + 1), 0, "input 'min'", &unused));
    DFLOW_RETURN_IF_ERROR(
        c->WithRank(c->input(first + 2), 0, "input 'max'", &unused));
    *range = TensorShape({});
    return absl::OkStatus();
  }
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(*input, 1, "input 'inputs'", input));
  TensorShape min, max;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(first + 1), 1, "input 'min'", &min));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(first + 2), 1, "input 'max'", &max));
  int64_t depth = TensorShape::kUnknownDim;
  if (input->rank() > 0) depth = input->dim(input->rank() - 1);
  DFLOW_RETURN_IF_ERROR(c->MergeDim(
      depth, min.dim(0), "min's length and the last dimension of inputs",
      &depth));
  DFLOW_RETURN_IF_ERROR(c->MergeDim(
      depth, max.dim(0), "max's length and the last dimension of inputs",
      &depth));
  *range = TensorShape({depth});
  return absl::OkStatus();
}

absl::Status FakeQuantVarsShape(InferenceContext* c) {
  TensorShape input, range;
  DFLOW_RETURN_IF_ERROR(FakeQuantVarsShapes(c, 0, false, &input, &range));
  c->set_output(0, input);
  return absl::OkStatus();
}

absl::Status FakeQuantPerChannelShape(InferenceContext* c) {
  TensorShape input, range;
  DFLOW_RETURN_IF_ERROR(FakeQuantVarsShapes(c, 0, true, &input, &range));
  c->set_output(0, input);
  return absl::OkStatus();
}

absl::Status FakeQuantGradientShapes(InferenceContext* c, bool per_channel) {
  TensorShape input, range;
  DFLOW_RETURN_IF_ERROR(
      FakeQuantVarsShapes(c, 1, per_channel, &input, &range));
  c->set_output(0, input);
  c->set_output(1, range);
  c->set_output(2, range);
  return absl::OkStatus();
}

// The ranges of QuantizeAndDequantizeV2/V3/V4(Grad) (inputs `first` + 1 and
// + 2 are input_min, input_max): scalars for axis -1, else vectors of
// dim(axis) elements.
absl::Status QuantizeAndDequantizeShapes(InferenceContext* c, int first,
                                         TensorShape* input,
                                         TensorShape* range) {
  int64_t axis = 0;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (axis < -1) {
    return InvalidArgument("axis must be -1 or a dimension of input, got ",
                           axis);
  }
  *input = c->input(first);
  if (first == 1) {
    DFLOW_RETURN_IF_ERROR(c->MergeShapes(c->input(0), c->input(1),
                                         "gradients and input", input));
  }
  if (axis == -1) {
    TensorShape unused;
    DFLOW_RETURN_IF_ERROR(
        c->WithRank(c->input(first + 1), 0, "input 'input_min'", &unused));
    DFLOW_RETURN_IF_ERROR(
        c->WithRank(c->input(first + 2), 0, "input 'input_max'", &unused));
    *range = TensorShape({});
    return absl::OkStatus();
  }
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(
      *input, static_cast<int>(axis) + 1, "input 'input' (axis)", input));
  TensorShape min, max;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(first + 1), 1, "input 'input_min'", &min));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(first + 2), 1, "input 'input_max'", &max));
  int64_t depth = input->dim(static_cast<int>(axis));
  DFLOW_RETURN_IF_ERROR(c->MergeDim(
      depth, min.dim(0), "input_min's length and input's dim(axis)", &depth));
  DFLOW_RETURN_IF_ERROR(c->MergeDim(
      depth, max.dim(0), "input_max's length and input's dim(axis)", &depth));
  *range = TensorShape({depth});
  return absl::OkStatus();
}

absl::Status QuantizeAndDequantizeShape(InferenceContext* c) {
  int64_t num_bits = 8;
  if (c->num_inputs() == 3) {
    DFLOW_RETURN_IF_ERROR(c->GetAttr("num_bits", &num_bits));
  } else {
    TensorShape unused;
    DFLOW_RETURN_IF_ERROR(
        c->WithRank(c->input(3), 0, "input 'num_bits'", &unused));
  }
  bool signed_input = true;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("signed_input", &signed_input));
  if (num_bits < 1 || num_bits > (signed_input ? 61 : 62)) {
    return InvalidArgument("num_bits must be in [1, ",
                           signed_input ? 61 : 62, "] (signed_input ",
                           signed_input ? "true" : "false", "), got ",
                           num_bits);
  }
  TensorShape input, range;
  DFLOW_RETURN_IF_ERROR(QuantizeAndDequantizeShapes(c, 0, &input, &range));
  c->set_output(0, input);
  return absl::OkStatus();
}

absl::Status QuantizeAndDequantizeV4GradShape(InferenceContext* c) {
  TensorShape input, range;
  DFLOW_RETURN_IF_ERROR(QuantizeAndDequantizeShapes(c, 1, &input, &range));
  c->set_output(0, input);
  c->set_output(1, range);
  c->set_output(2, range);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("FakeQuantWithMinMaxArgs")
    .Input("inputs: float")
    .Output("outputs: float")
    .Attr("min: float = -6")
    .Attr("max: float = 6")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn(FakeQuantArgsShape)
    .Doc("Rounds inputs to the num_bits grid of [min, max] (attrs), nudged "
         "so 0 is on it.");

DFLOW_REGISTER_OP("FakeQuantWithMinMaxArgsGradient")
    .Input("gradients: float")
    .Input("inputs: float")
    .Output("backprops: float")
    .Attr("min: float = -6")
    .Attr("max: float = 6")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn(FakeQuantArgsGradientShape)
    .Doc("FakeQuantWithMinMaxArgs' gradient: gradients where inputs lie in "
         "the nudged range, else 0.");

DFLOW_REGISTER_OP("FakeQuantWithMinMaxVars")
    .Input("inputs: float")
    .Input("min: float")
    .Input("max: float")
    .Output("outputs: float")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn(FakeQuantVarsShape)
    .Doc("Rounds inputs to the num_bits grid of [min, max] (scalar inputs), "
         "nudged so 0 is on it.");

DFLOW_REGISTER_OP("FakeQuantWithMinMaxVarsGradient")
    .Input("gradients: float")
    .Input("inputs: float")
    .Input("min: float")
    .Input("max: float")
    .Output("backprops_wrt_input: float")
    .Output("backprop_wrt_min: float")
    .Output("backprop_wrt_max: float")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return FakeQuantGradientShapes(c, false);
    })
    .Doc("FakeQuantWithMinMaxVars' gradients with respect to inputs, min "
         "and max.");

DFLOW_REGISTER_OP("FakeQuantWithMinMaxVarsPerChannel")
    .Input("inputs: float")
    .Input("min: float")
    .Input("max: float")
    .Output("outputs: float")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn(FakeQuantPerChannelShape)
    .Doc("FakeQuantWithMinMaxVars with one range per index of the last "
         "dimension.");

DFLOW_REGISTER_OP("FakeQuantWithMinMaxVarsPerChannelGradient")
    .Input("gradients: float")
    .Input("inputs: float")
    .Input("min: float")
    .Input("max: float")
    .Output("backprops_wrt_input: float")
    .Output("backprop_wrt_min: float")
    .Output("backprop_wrt_max: float")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return FakeQuantGradientShapes(c, true);
    })
    .Doc("FakeQuantWithMinMaxVarsPerChannel's gradients with respect to "
         "inputs, min and max.");

DFLOW_REGISTER_OP("QuantizeAndDequantizeV2")
    .Input("input: T")
    .Input("input_min: T")
    .Input("input_max: T")
    .Output("output: T")
    .Attr("signed_input: bool = true")
    .Attr("num_bits: int = 8")
    .Attr("range_given: bool = false")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'")
    .Attr("narrow_range: bool = false")
    .Attr("axis: int = -1")
    .SetShapeFn(QuantizeAndDequantizeShape)
    .Doc("Rounds input to a num_bits integer grid scaled to its range, 0 "
         "kept exact.");

DFLOW_REGISTER_OP("QuantizeAndDequantizeV3")
    .Input("input: T")
    .Input("input_min: T")
    .Input("input_max: T")
    .Input("num_bits: int32")
    .Output("output: T")
    .Attr("signed_input: bool = true")
    .Attr("range_given: bool = true")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("narrow_range: bool = false")
    .Attr("axis: int = -1")
    .SetShapeFn(QuantizeAndDequantizeShape)
    .Doc("QuantizeAndDequantizeV2 with num_bits an input, rounding half to "
         "even.");

DFLOW_REGISTER_OP("QuantizeAndDequantizeV4")
    .Input("input: T")
    .Input("input_min: T")
    .Input("input_max: T")
    .Output("output: T")
    .Attr("signed_input: bool = true")
    .Attr("num_bits: int = 8")
    .Attr("range_given: bool = false")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'")
    .Attr("narrow_range: bool = false")
    .Attr("axis: int = -1")
    .SetShapeFn(QuantizeAndDequantizeShape)
    .Doc("QuantizeAndDequantizeV2 with a gradient "
         "(QuantizeAndDequantizeV4Grad).");

DFLOW_REGISTER_OP("QuantizeAndDequantizeV4Grad")
    .Input("gradients: T")
    .Input("input: T")
    .Input("input_min: T")
    .Input("input_max: T")
    .Output("input_backprop: T")
    .Output("input_min_backprop: T")
    .Output("input_max_backprop: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("axis: int = -1")
    .SetShapeFn(QuantizeAndDequantizeV4GradShape)
    .Doc("QuantizeAndDequantizeV4's gradient: gradients where input lies in "
         "[input_min, input_max], zeros for the range.");

namespace ops {
namespace {

Operation FakeQuantOp(const Scope& scope, const char* op,
                      std::initializer_list<Input> inputs,
                      const FakeQuantAttrs& attrs, bool args, float min,
                      float max) {
  OpBuilder b(scope, op);
  for (const Input& in : inputs) b.Input(in);
  if (args) b.Attr("min", min).Attr("max", max);
  return b.Attr("num_bits", attrs.num_bits)
      .Attr("narrow_range", attrs.narrow_range)
      .Finalize();
}

OpBuilder& QuantizeAndDequantizeAttrsOf(OpBuilder& b,
                                        const QuantizeAndDequantizeAttrs& a,
                                        bool v3) {
  b.Attr("signed_input", a.signed_input)
      .Attr("range_given", a.range_given)
      .Attr("narrow_range", a.narrow_range)
      .Attr("axis", a.axis);
  if (!v3) b.Attr("num_bits", a.num_bits).Attr("round_mode", a.round_mode);
  return b;
}

}  // namespace

Output FakeQuantWithMinMaxArgs(const Scope& scope, Input inputs, float min,
                               float max, const FakeQuantAttrs& attrs) {
  return FirstOutput(FakeQuantOp(scope, "FakeQuantWithMinMaxArgs", {inputs},
                                 attrs, true, min, max));
}

Output FakeQuantWithMinMaxArgsGradient(const Scope& scope, Input gradients,
                                       Input inputs, float min, float max,
                                       const FakeQuantAttrs& attrs) {
  return FirstOutput(FakeQuantOp(scope, "FakeQuantWithMinMaxArgsGradient",
                                 {gradients, inputs}, attrs, true, min, max));
}

Output FakeQuantWithMinMaxVars(const Scope& scope, Input inputs, Input min,
                               Input max, const FakeQuantAttrs& attrs) {
  return FirstOutput(FakeQuantOp(scope, "FakeQuantWithMinMaxVars",
                                 {inputs, min, max}, attrs, false, 0, 0));
}

Output FakeQuantWithMinMaxVarsPerChannel(const Scope& scope, Input inputs,
                                         Input min, Input max,
                                         const FakeQuantAttrs& attrs) {
  return FirstOutput(FakeQuantOp(scope, "FakeQuantWithMinMaxVarsPerChannel",
                                 {inputs, min, max}, attrs, false, 0, 0));
}

FakeQuantGradOutputs FakeQuantWithMinMaxVarsGradient(
    const Scope& scope, Input gradients, Input inputs, Input min, Input max,
    const FakeQuantAttrs& attrs) {
  OutputList out = AllOutputs(
      FakeQuantOp(scope, "FakeQuantWithMinMaxVarsGradient",
                  {gradients, inputs, min, max}, attrs, false, 0, 0),
      3);
  return {out[0], out[1], out[2]};
}

FakeQuantGradOutputs FakeQuantWithMinMaxVarsPerChannelGradient(
    const Scope& scope, Input gradients, Input inputs, Input min, Input max,
    const FakeQuantAttrs& attrs) {
  OutputList out = AllOutputs(
      FakeQuantOp(scope, "FakeQuantWithMinMaxVarsPerChannelGradient",
                  {gradients, inputs, min, max}, attrs, false, 0, 0),
      3);
  return {out[0], out[1], out[2]};
}

Output QuantizeAndDequantizeV2(const Scope& scope, Input input,
                               Input input_min, Input input_max,
                               const QuantizeAndDequantizeAttrs& attrs) {
  OpBuilder b(scope, "QuantizeAndDequantizeV2");
  b.Input(input).Input(input_min).Input(input_max);
  return FirstOutput(QuantizeAndDequantizeAttrsOf(b, attrs, false).Finalize());
}

Output QuantizeAndDequantizeV4(const Scope& scope, Input input,
                               Input input_min, Input input_max,
                               const QuantizeAndDequantizeAttrs& attrs) {
  OpBuilder b(scope, "QuantizeAndDequantizeV4");
  b.Input(input).Input(input_min).Input(input_max);
  return FirstOutput(QuantizeAndDequantizeAttrsOf(b, attrs, false).Finalize());
}

Output QuantizeAndDequantizeV3(const Scope& scope, Input input,
                               Input input_min, Input input_max,
                               Input num_bits,
                               const QuantizeAndDequantizeAttrs& attrs) {
  OpBuilder b(scope, "QuantizeAndDequantizeV3");
  b.Input(input).Input(input_min).Input(input_max).Input(num_bits);
  return FirstOutput(QuantizeAndDequantizeAttrsOf(b, attrs, true).Finalize());
}

QuantizeAndDequantizeV4GradOutputs QuantizeAndDequantizeV4Grad(
    const Scope& scope, Input gradients, Input input, Input input_min,
    Input input_max, int64_t axis) {
  OutputList out = AllOutputs(OpBuilder(scope, "QuantizeAndDequantizeV4Grad")
                                  .Input(gradients)
                                  .Input(input)
                                  .Input(input_min)
                                  .Input(input_max)
                                  .Attr("axis", axis)
                                  .Finalize(),
                              3);
  return {out[0], out[1], out[2]};
}

}  // namespace ops
}  // namespace dflow
