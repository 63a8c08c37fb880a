// Fake quantization and quantize-dequantize ops: what quantization-aware
// training (tensorflow_model_optimization, tf.quantization.*) writes into
// graphs. Each rounds a float tensor to the grid of a num_bits integer type
// and back, so a model trains against the precision it will run with once
// quantized; the *Gradient/Grad ops are their straight-through gradients
// (pass-through inside the range, the rest to the range's min/max). TensorFlow
// 2.21's op names, arguments and attrs. CPU kernels:
// kernels/cpu/quantization_ops*.cc.
#ifndef DFLOW_GRAPH_OPS_QUANTIZATION_OPS_H_
#define DFLOW_GRAPH_OPS_QUANTIZATION_OPS_H_

#include <cstdint>
#include <string>
#include <utility>

#include "graph/scope.h"

namespace dflow {
namespace ops {

// The attrs every FakeQuant* op has: the integer grid is [0, 2^num_bits - 1]
// ([1, ...] with narrow_range), num_bits in [2, 16].
struct FakeQuantAttrs {
  int64_t num_bits = 8;
  bool narrow_range = false;
  FakeQuantAttrs& NumBits(int64_t v) {
    num_bits = v;
    return *this;
  }
  FakeQuantAttrs& NarrowRange(bool v) {
    narrow_range = v;
    return *this;
  }
};

// The range [min, max] as attrs (min < max; it is nudged so 0 is on the
// grid).
Output FakeQuantWithMinMaxArgs(const Scope& scope, Input inputs,
                               float min = -6, float max = 6,
                               const FakeQuantAttrs& attrs = {});
Output FakeQuantWithMinMaxArgsGradient(const Scope& scope, Input gradients,
                                       Input inputs, float min = -6,
                                       float max = 6,
                                       const FakeQuantAttrs& attrs = {});

// min, max: float scalars (Vars) or vectors of the last dimension's size
// (PerChannel), usually variables trained with the rest of the model.
Output FakeQuantWithMinMaxVars(const Scope& scope, Input inputs, Input min,
                               Input max, const FakeQuantAttrs& attrs = {});
Output FakeQuantWithMinMaxVarsPerChannel(const Scope& scope, Input inputs,
                                         Input min, Input max,
                                         const FakeQuantAttrs& attrs = {});

struct FakeQuantGradOutputs {
  Output backprops_wrt_input;  // gradients inside the nudged range, else 0
  Output backprop_wrt_min;     // sum (per channel) of gradients below it
  Output backprop_wrt_max;     // sum (per channel) of gradients above it
};
FakeQuantGradOutputs FakeQuantWithMinMaxVarsGradient(
    const Scope& scope, Input gradients, Input inputs, Input min, Input max,
    const FakeQuantAttrs& attrs = {});
FakeQuantGradOutputs FakeQuantWithMinMaxVarsPerChannelGradient(
    const Scope& scope, Input gradients, Input inputs, Input min, Input max,
    const FakeQuantAttrs& attrs = {});

// The attrs of QuantizeAndDequantizeV2/V3/V4. axis -1: one range for the
// whole tensor; otherwise one per index of that dimension. range_given
// false: the range is the input's min and max (per axis index) and the
// input_min/input_max inputs are ignored. round_mode "HALF_TO_EVEN" or
// "HALF_UP" (V3 always rounds half to even).
struct QuantizeAndDequantizeAttrs {
  bool signed_input = true;
  int64_t num_bits = 8;
  bool range_given = false;
  std::string round_mode = "HALF_TO_EVEN";
  bool narrow_range = false;
  int64_t axis = -1;
  QuantizeAndDequantizeAttrs& SignedInput(bool v) {
    signed_input = v;
    return *this;
  }
  QuantizeAndDequantizeAttrs& NumBits(int64_t v) {
    num_bits = v;
    return *this;
  }
  QuantizeAndDequantizeAttrs& RangeGiven(bool v) {
    range_given = v;
    return *this;
  }
  QuantizeAndDequantizeAttrs& RoundMode(std::string v) {
    round_mode = std::move(v);
    return *this;
  }
  QuantizeAndDequantizeAttrs& NarrowRange(bool v) {
    narrow_range = v;
    return *this;
  }
  QuantizeAndDequantizeAttrs& Axis(int64_t v) {
    axis = v;
    return *this;
  }
};

// input: float or double; input_min/input_max: its dtype, scalars (axis
// -1) or vectors of dim(axis) elements.
Output QuantizeAndDequantizeV2(const Scope& scope, Input input,
                               Input input_min, Input input_max,
                               const QuantizeAndDequantizeAttrs& attrs = {});
Output QuantizeAndDequantizeV4(const Scope& scope, Input input,
                               Input input_min, Input input_max,
                               const QuantizeAndDequantizeAttrs& attrs = {});
// num_bits: an int32 scalar input; attrs.num_bits and round_mode unused
// (V3's default range_given is true: pass the attrs with it set).
Output QuantizeAndDequantizeV3(const Scope& scope, Input input,
                               Input input_min, Input input_max,
                               Input num_bits,
                               const QuantizeAndDequantizeAttrs& attrs =
                                   QuantizeAndDequantizeAttrs().RangeGiven(
                                       true));

struct QuantizeAndDequantizeV4GradOutputs {
  Output input_backprop;      // gradients where input_min <= input <= max
  Output input_min_backprop;  // zeros of input_min's shape
  Output input_max_backprop;  // zeros of input_max's shape
};
QuantizeAndDequantizeV4GradOutputs QuantizeAndDequantizeV4Grad(
    const Scope& scope, Input gradients, Input input, Input input_min,
    Input input_max, int64_t axis = -1);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_QUANTIZATION_OPS_H_
