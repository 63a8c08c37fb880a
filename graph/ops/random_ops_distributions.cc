// Schemas, shape functions and builder wrappers of the stateful random ops
// that draw from parameterized distributions (TensorFlow's RandomGamma,
// RandomPoissonV2, Multinomial and ParameterizedTruncatedNormal, as in
// core/ops/random_ops.cc): tf.random.gamma, tf.random.poisson,
// tf.random.categorical and the parameterized truncated normal. Seeded by
// the "seed"/"seed2" attrs like the other stateful random ops.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/random_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InputWithRank;

// The `shape` input (0) followed by the dims of the parameter input `param`:
// one draw per parameter element for every index of `shape`.
absl::Status ShapeThenParamShape(InferenceContext* c, int param) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 1, &unused));
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
  const TensorShape& p = c->input(param);
  if (out.unknown_rank() || p.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  for (int64_t d : p.dims()) out.AddDim(d);
  c->set_output(0, out);
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("RandomGamma")
    .Input("shape: S")
    .Input("alpha: T")
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("T: {half, float, double}")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return ShapeThenParamShape(c, 1); })
    .Doc("Gamma(alpha, 1) draws, shape + alpha's shape (tf.random.gamma).");

DFLOW_REGISTER_OP("RandomPoissonV2")
    .Input("shape: S")
    .Input("rate: R")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("S: {int32, int64}")
    .Attr("R: {half, float, double, int32, int64} = DT_DOUBLE")
    .Attr("dtype: {half, float, double, int32, int64} = DT_INT64")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return ShapeThenParamShape(c, 1); })
    .Doc("Poisson(rate) draws, shape + rate's shape (tf.random.poisson).");

// [batch, num_samples] from logits [batch, classes] and a scalar count.
absl::Status MultinomialShapeFn(InferenceContext* c) {
  TensorShape logits, num;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 2, &logits));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 0, &num));
  std::vector<int64_t> n;
  const int64_t samples = c->ConstantInputAsInts(1, &n) ? n[0] : -1;
  if (samples < -1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_samples must be >= 0, got ", samples));
  }
  c->set_output(0, TensorShape({logits.dim(0), samples}));
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("Multinomial")
    .Input("logits: T")
    .Input("num_samples: int32")
    .Output("output: output_dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
          "uint16, half, uint32, uint64}")
    .Attr("output_dtype: {int32, int64} = DT_INT64")
    .SetIsStateful()
    .SetShapeFn(MultinomialShapeFn)
    .Doc("Class indices drawn from each row's unnormalized log-probabilities "
         "(tf.random.categorical).");

DFLOW_REGISTER_OP("ParameterizedTruncatedNormal")
    .Input("shape: T")
    .Input("means: dtype")
    .Input("stdevs: dtype")
    .Input("minvals: dtype")
    .Input("maxvals: dtype")
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TensorShape unused;
      DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 1, &unused));
      for (int i = 1; i <= 4; ++i) {
        if (c->input(i).rank() > 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              "input '", c->op_def().input_arg(i).name(),
              "' must be a scalar or vector, got shape ",
              c->input(i).ToString()));
        }
      }
      TensorShape out;
      DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
      c->set_output(0, out);
      return absl::OkStatus();
    })
    .Doc("Normal values with per-row mean and stddev, redrawn outside "
         "[minval, maxval]; rows are the first dimension of the shape.");

Operation WithSeeds(OpBuilder& b, const ops::RandomAttrs& attrs) {
  return b.Attr("seed", attrs.seed).Attr("seed2", attrs.seed2).Finalize();
}

}  // namespace

namespace ops {

Output RandomGamma(const Scope& scope, Input shape, Input alpha,
                   const RandomAttrs& attrs) {
  OpBuilder b(scope, "RandomGamma");
  b.Input(shape).Input(alpha);
  return FirstOutput(WithSeeds(b, attrs));
}

Output RandomPoissonV2(const Scope& scope, Input shape, Input rate,
                       DataType dtype, const RandomAttrs& attrs) {
  OpBuilder b(scope, "RandomPoissonV2");
  b.Input(shape).Input(rate).Attr("dtype", dtype);
  return FirstOutput(WithSeeds(b, attrs));
}

Output Multinomial(const Scope& scope, Input logits, Input num_samples,
                   DataType output_dtype, const RandomAttrs& attrs) {
  OpBuilder b(scope, "Multinomial");
  b.Input(logits).Input(num_samples).Attr("output_dtype", output_dtype);
  return FirstOutput(WithSeeds(b, attrs));
}

Output ParameterizedTruncatedNormal(const Scope& scope, Input shape,
                                    Input means, Input stdevs, Input minvals,
                                    Input maxvals, const RandomAttrs& attrs) {
  OpBuilder b(scope, "ParameterizedTruncatedNormal");
  b.Input(shape).Input(means).Input(stdevs).Input(minvals).Input(maxvals);
  return FirstOutput(WithSeeds(b, attrs));
}

}  // namespace ops
}  // namespace dflow
