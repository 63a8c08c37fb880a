// The ops of tf.random.Generator (core/ops/stateful_random_ops.cc): its
// state lives in an int64 resource variable ([counter low, counter high,
// key] for Philox). RngReadAndSkip returns the state and moves the counter
// on, which the generator's normal, uniform and friends then feed (through
// Bitcast) to the key/counter stateless ops; StatefulRandomBinomial draws
// from the state directly. Keras' random preprocessing layers write them.
#include <string>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/random_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InputWithRank;

DFLOW_REGISTER_OP("RngReadAndSkip")
    .Input("resource: resource")
    .Input("alg: int32")
    .Input("delta: uint64")
    .Output("value: int64")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TensorShape unused;
      DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 0, &unused));
      DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 0, &unused));
      c->set_output(0, TensorShape({3}));  // counter (2 words) and key
      return absl::OkStatus();
    })
    .Doc("The generator state before moving its counter on by 256 * delta "
         "blocks.");

DFLOW_REGISTER_OP("StatefulRandomBinomial")
    .Input("resource: resource")
    .Input("algorithm: int64")
    .Input("shape: S")
    .Input("counts: T")
    .Input("probs: T")
    .Output("output: dtype")
    .Attr("S: {int32, int64}")
    .Attr("T: {half, float, double, int32, int64} = DT_DOUBLE")
    .Attr("dtype: {half, float, double, int32, int64} = DT_INT64")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TensorShape unused;
      DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 0, &unused));
      DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 1, &unused));
      TensorShape out;
      DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(2, &out));
      c->set_output(0, out);
      return absl::OkStatus();
    })
    .Doc("Binomial(counts, probs) draws from a generator's state "
         "(tf.random.Generator.binomial).");

// The older ops of tf.random.Generator (TensorFlow 2.0 to 2.5 wrote them):
// draws straight from the state, which moves on past them.
absl::Status StatefulShape(InferenceContext* c) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 0, &unused));
  DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 2, 1, &unused));
  TensorShape out;
  DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(2, &out));
  c->set_output(0, out);
  return absl::OkStatus();
}

#define DFLOW_STATEFUL_RANDOM_OP(name, dtype_attr, doc) \
  DFLOW_REGISTER_OP(name)                              \
      .Input("resource: resource")                     \
      .Input("algorithm: int64")                       \
      .Input("shape: shape_dtype")                     \
      .Output("output: dtype")                         \
      .Attr(dtype_attr)                                \
      .Attr("shape_dtype: type = DT_INT64")            \
      .SetIsStateful()                                 \
      .SetShapeFn(StatefulShape)                       \
      .Doc(doc)

DFLOW_STATEFUL_RANDOM_OP("StatefulUniform", "dtype: type = DT_FLOAT",
                         "Uniform draws on [0, 1) from a generator's state.");
DFLOW_STATEFUL_RANDOM_OP("StatefulStandardNormalV2", "dtype: type = DT_FLOAT",
                         "Standard normal draws from a generator's state.");
DFLOW_STATEFUL_RANDOM_OP("StatefulTruncatedNormal", "dtype: type = DT_FLOAT",
                         "Normal draws within 2 deviations from a "
                         "generator's state.");
DFLOW_STATEFUL_RANDOM_OP("StatefulUniformFullInt", "dtype: type = DT_UINT64",
                         "Integers of the whole range of dtype from a "
                         "generator's state.");

#undef DFLOW_STATEFUL_RANDOM_OP

DFLOW_REGISTER_OP("StatefulUniformInt")
    .Input("resource: resource")
    .Input("algorithm: int64")
    .Input("shape: shape_dtype")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: type = DT_INT64")
    .Attr("shape_dtype: type = DT_INT64")
    .SetIsStateful()
    .SetShapeFn(StatefulShape)
    .Doc("Integers on [minval, maxval) from a generator's state.");

DFLOW_REGISTER_OP("RngSkip")
    .Input("resource: resource")
    .Input("algorithm: int64")
    .Input("delta: int64")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TensorShape unused;
      DFLOW_RETURN_IF_ERROR(InputWithRank(*c, 1, 0, &unused));
      return InputWithRank(*c, 2, 0, &unused);
    })
    .Doc("Moves a generator's counter on by 256 * delta blocks.");

DFLOW_REGISTER_OP("NonDeterministicInts")
    .Input("shape: shape_dtype")
    .Output("output: dtype")
    .Attr("dtype: type = DT_INT64")
    .Attr("shape_dtype: type = DT_INT64")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TensorShape out;
      DFLOW_RETURN_IF_ERROR(c->ShapeFromShapeTensor(0, &out));
      c->set_output(0, out);
      return absl::OkStatus();
    })
    .Doc("Integers from the operating system's entropy (not reproducible).");

}  // namespace

namespace ops {

Output StatefulRandom(const Scope& scope, const std::string& op,
                      Input resource, Input algorithm, Input shape,
                      DataType dtype) {
  return FirstOutput(OpBuilder(scope, op)
                         .Input(resource)
                         .Input(algorithm)
                         .Input(shape)
                         .Attr("dtype", dtype)
                         .Finalize());
}

Output StatefulUniformInt(const Scope& scope, Input resource, Input algorithm,
                          Input shape, Input minval, Input maxval) {
  return FirstOutput(OpBuilder(scope, "StatefulUniformInt")
                         .Input(resource)
                         .Input(algorithm)
                         .Input(shape)
                         .Input(minval)
                         .Input(maxval)
                         .Finalize());
}

Operation RngSkip(const Scope& scope, Input resource, Input algorithm,
                  Input delta) {
  return OpBuilder(scope, "RngSkip")
      .Input(resource)
      .Input(algorithm)
      .Input(delta)
      .Finalize();
}

Output NonDeterministicInts(const Scope& scope, Input shape, DataType dtype) {
  return FirstOutput(OpBuilder(scope, "NonDeterministicInts")
                         .Input(shape)
                         .Attr("dtype", dtype)
                         .Finalize());
}

Output RngReadAndSkip(const Scope& scope, Input resource, Input alg,
                      Input delta) {
  return FirstOutput(OpBuilder(scope, "RngReadAndSkip")
                         .Input(resource)
                         .Input(alg)
                         .Input(delta)
                         .Finalize());
}

Output StatefulRandomBinomial(const Scope& scope, Input resource,
                              Input algorithm, Input shape, Input counts,
                              Input probs, DataType dtype) {
  return FirstOutput(OpBuilder(scope, "StatefulRandomBinomial")
                         .Input(resource)
                         .Input(algorithm)
                         .Input(shape)
                         .Input(counts)
                         .Input(probs)
                         .Attr("dtype", dtype)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
