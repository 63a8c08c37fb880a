// The part of the every-op graph (all_ops_graph.h) with quantization-aware
// training's ops: every op of graph/ops/quantization_ops.h once, the
// gradients fed the forward ops' outputs as incoming gradients.
#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {

void BuildQuantizationOps(const Scope& root) {
  const Scope s = root.NewSubScope("quantization");
  Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({4, 3}));
  Output lo = ops::Const(s, -1.0f);
  Output hi = ops::Const(s, 1.0f);
  Output lo3 = ops::Const(s, {-1.0f, -2.0f, -0.5f});
  Output hi3 = ops::Const(s, {1.0f, 2.0f, 0.5f});
  const ops::FakeQuantAttrs bits4 =
      ops::FakeQuantAttrs().NumBits(4).NarrowRange(true);

  Output args = ops::FakeQuantWithMinMaxArgs(s, x, -2, 2, bits4);
  ops::FakeQuantWithMinMaxArgsGradient(s, args, x, -2, 2, bits4);
  Output vars = ops::FakeQuantWithMinMaxVars(s, x, lo, hi);
  ops::FakeQuantWithMinMaxVarsGradient(s, vars, x, lo, hi);
  Output per_channel = ops::FakeQuantWithMinMaxVarsPerChannel(s, x, lo3, hi3);
  ops::FakeQuantWithMinMaxVarsPerChannelGradient(s, per_channel, x, lo3, hi3);

  Output v2 = ops::QuantizeAndDequantizeV2(
      s, x, lo, hi, ops::QuantizeAndDequantizeAttrs().RoundMode("HALF_UP"));
  ops::QuantizeAndDequantizeV3(
      s, v2, lo3, hi3, ops::Const(s, 6),
      ops::QuantizeAndDequantizeAttrs().RangeGiven(true).Axis(1));
  Output v4 = ops::QuantizeAndDequantizeV4(
      s, x, lo, hi,
      ops::QuantizeAndDequantizeAttrs().RangeGiven(true).NarrowRange(true));
  ops::QuantizeAndDequantizeV4Grad(s, v4, x, lo, hi);
}

}  // namespace dflow
