// Schemas, shape functions and wrappers of TensorFlow's stateless random ops
// that take a [2] seed (core/ops/stateless_random_ops.cc): the
// distributions tf.random.stateless_categorical, stateless_poisson,
// stateless_binomial and stateless_parameterized_truncated_normal write in
// 2.21, stateless gamma's version 2, and version 1 of the uniform, normal,
// truncated normal and integer ops (which TensorFlow 1.x graphs carry; 2.x
// writes the key/counter ops of random_ops_stateless.cc instead). The
// kernels scramble the seed into a Philox key and counter as
// StatelessRandomGetKeyCounter does.
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

// Input `i` is the seed: a vector of 2.
absl::Status CheckSeed(InferenceContext* c, int i) {
  TensorShape seed;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, i, 1, &seed));
  int64_t two;
  return c->MergeDim(seed.dim(0), 2, "input 'seed' (shape [2])", &two);
}

// Output 0 has the shape the value of input 0 gives; input 1 is the seed.
absl::Status SeededShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 1, &unused));
  DFLOW_RETURN_IF_ERROR(CheckSeed(c, 1));
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("StatelessMultinomial")
    .Input("logits: T")
    .Input("num_samples: int32")
    .Input("seed: Tseed")
    .Output("output: output_dtype")
    .Attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
          "uint16, half, uint32, uint64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .Attr("output_dtype: {int32, int64} = DT_INT64")
    .SetShapeFn([](InferenceContext* c) {
      TensorShape logits, num;
      DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 0, 2, &logits));
      DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 0, &num));
      DFLOW_RETURN_IF_ERROR(CheckSeed(c, 2));
      std::vector<int64_t> n;
      const int64_t samples = c->ConstantInputAsInts(1, &n) ? n[0] : -1;
      if (samples < -1) {
        return absl::InvalidArgumentError(
            absl::StrCat("num_samples must be >= 0, got ", samples));
      }
      c->set_output(0, TensorShape({logits.dim(0), samples}));
      return absl::OkStatus();
    })
    .Doc("Multinomial from a [2] seed (tf.random.stateless_categorical).");

DFLOW_REGISTER_OP("StatelessRandomGammaV2")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("alpha: dtype")
    .Output("output: dtype")
    .Attr("dtype: {half, float, double}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(SeededShape)
    .Doc("Gamma(alpha) draws from a [2] seed; shape ends with alpha's.");

DFLOW_REGISTER_OP("StatelessRandomPoisson")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("lam: Rtype")
    .Output("output: dtype")
    .Attr("Rtype: {half, float, double, int32, int64}")
    .Attr("dtype: {half, float, double, int32, int64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(SeededShape)
    .Doc("Poisson(lam) draws from a [2] seed; shape ends with lam's.");

DFLOW_REGISTER_OP("StatelessRandomBinomial")
    .Input("shape: S")
    .Input("seed: Tseed")
    .Input("counts: T")
    .Input("probs: T")
    .Output("output: dtype")
    .Attr("S: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .Attr("T: {half, float, double, int32, int64} = DT_DOUBLE")
    .Attr("dtype: {half, float, double, int32, int64} = DT_INT64")
    .SetShapeFn(SeededShape)
    .Doc("Binomial(counts, probs) draws from a [2] seed; shape ends with the "
         "broadcast of counts and probs.");

DFLOW_REGISTER_OP("StatelessParameterizedTruncatedNormal")
    .Input("shape: S")
    .Input("seed: Tseed")
    .Input("means: dtype")
    .Input("stddevs: dtype")
    .Input("minvals: dtype")
    .Input("maxvals: dtype")
    .Output("output: dtype")
    .Attr("S: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .Attr("dtype: {half, float, double}")
    .SetShapeFn(SeededShape)
    .Doc("Truncated normal draws with broadcast parameters from a [2] seed.");

#define DFLOW_STATELESS_V1_OP(name, doc)                         \
  DFLOW_REGISTER_OP(name)                                        \
      .Input("shape: T")                                         \
      .Input("seed: Tseed")                                      \
      .Output("output: dtype")                                   \
      .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT") \
      .Attr("T: {int32, int64} = DT_INT32")                      \
      .Attr("Tseed: {int32, int64} = DT_INT64")                  \
      .SetShapeFn(SeededShape)                                   \
      .Doc(doc)

DFLOW_STATELESS_V1_OP("StatelessRandomUniform",
                      "Uniform values on [0, 1) from a [2] seed.");
DFLOW_STATELESS_V1_OP("StatelessRandomNormal",
                      "Standard normal values from a [2] seed.");
DFLOW_STATELESS_V1_OP("StatelessTruncatedNormal",
                      "Normal values within two standard deviations, from a "
                      "[2] seed.");

#undef DFLOW_STATELESS_V1_OP

DFLOW_REGISTER_OP("StatelessRandomUniformInt")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn([](InferenceContext* c) {
      TensorShape unused;
      DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 0, &unused));
      DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 3, 0, &unused));
      return SeededShape(c);
    })
    .Doc("Integers uniform on [minval, maxval) from a [2] seed.");

DFLOW_REGISTER_OP("StatelessRandomUniformFullInt")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
    .Attr("T: {int32, int64} = DT_INT32")
    .Attr("Tseed: {int32, int64, uint32, uint64} = DT_INT64")
    .SetShapeFn(SeededShape)
    .Doc("Integers uniform over all of dtype's values, from a [2] seed.");

}  // namespace

namespace ops {

Output StatelessMultinomial(const Scope& scope, Input logits,
                            Input num_samples, Input seed,
                            DataType output_dtype) {
  return FirstOutput(OpBuilder(scope, "StatelessMultinomial")
                         .Input(logits)
                         .Input(num_samples)
                         .Input(seed)
                         .Attr("output_dtype", output_dtype)
                         .Finalize());
}

Output StatelessRandomGammaV2(const Scope& scope, Input shape, Input seed,
                              Input alpha) {
  return FirstOutput(OpBuilder(scope, "StatelessRandomGammaV2")
                         .Input(shape)
                         .Input(seed)
                         .Input(alpha)
                         .Finalize());
}

Output StatelessRandomPoisson(const Scope& scope, Input shape, Input seed,
                              Input lam, DataType dtype) {
  return FirstOutput(OpBuilder(scope, "StatelessRandomPoisson")
                         .Input(shape)
                         .Input(seed)
                         .Input(lam)
                         .Attr("dtype", dtype)
                         .Finalize());
}

Output StatelessRandomBinomial(const Scope& scope, Input shape, Input seed,
                               Input counts, Input probs, DataType dtype) {
  return FirstOutput(OpBuilder(scope, "StatelessRandomBinomial")
                         .Input(shape)
                         .Input(seed)
                         .Input(counts)
                         .Input(probs)
                         .Attr("dtype", dtype)
                         .Finalize());
}

Output StatelessParameterizedTruncatedNormal(const Scope& scope, Input shape,
                                             Input seed, Input means,
                                             Input stddevs, Input minvals,
                                             Input maxvals) {
  return FirstOutput(OpBuilder(scope, "StatelessParameterizedTruncatedNormal")
                         .Input(shape)
                         .Input(seed)
                         .Input(means)
                         .Input(stddevs)
                         .Input(minvals)
                         .Input(maxvals)
                         .Finalize());
}

namespace {
Output StatelessV1(const Scope& scope, const char* op, Input shape,
                   Input seed, DataType dtype) {
  return FirstOutput(OpBuilder(scope, op)
                         .Input(shape)
                         .Input(seed)
                         .Attr("dtype", dtype)
                         .Finalize());
}
}  // namespace

Output StatelessRandomUniform(const Scope& scope, Input shape, Input seed,
                              DataType dtype) {
  return StatelessV1(scope, "StatelessRandomUniform", shape, seed, dtype);
}
Output StatelessRandomNormal(const Scope& scope, Input shape, Input seed,
                             DataType dtype) {
  return StatelessV1(scope, "StatelessRandomNormal", shape, seed, dtype);
}
Output StatelessTruncatedNormal(const Scope& scope, Input shape, Input seed,
                                DataType dtype) {
  return StatelessV1(scope, "StatelessTruncatedNormal", shape, seed, dtype);
}
Output StatelessRandomUniformFullInt(const Scope& scope, Input shape,
                                     Input seed, DataType dtype) {
  return StatelessV1(scope, "StatelessRandomUniformFullInt", shape, seed,
                     dtype);
}

Output StatelessRandomUniformInt(const Scope& scope, Input shape, Input seed,
                                 Input minval, Input maxval) {
  return FirstOutput(OpBuilder(scope, "StatelessRandomUniformInt")
                         .Input(shape)
                         .Input(seed)
                         .Input(minval)
                         .Input(maxval)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
