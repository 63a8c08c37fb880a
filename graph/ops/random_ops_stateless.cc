// Schemas, shape functions and wrappers of TensorFlow's stateless random
// ops (version 2: key and counter as inputs), as in TensorFlow 2.21's
// stateless_random_ops_v2.cc: uniform, normal and truncated normal floats,
// bounded and full-range integers, gamma, and the ops that turn a [2] seed
// into a key, counter and algorithm. Their values depend only on the
// inputs, and the kernels reproduce TensorFlow's numbers for the Philox
// algorithm. (StatelessShuffle is in random_ops_shuffle.cc; the [2]-seed
// ops of version 1 in random_ops_stateless_seeded.cc.)
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/ops/random_ops.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

absl::Status GetKeyCounterShape(InferenceContext* c) {
  TensorShape seed;
  if (absl::Status s = c->WithRank(c->input(0), 1, "input 'seed'", &seed);
      !s.ok()) {
    return s;
  }
  int64_t two;
  if (absl::Status s =
          c->MergeDim(seed.dim(0), 2, "input 'seed' (shape [2])", &two);
      !s.ok()) {
    return s;
  }
  c->set_output(0, TensorShape({1}));  // RNG_KEY_SIZE
  c->set_output(1, TensorShape({2}));  // RNG_MAX_COUNTER_SIZE
  return absl::OkStatus();
}

absl::Status StatelessV2Shape(InferenceContext* c) {
  TensorShape unused;
  for (int i : {0, 1, 2}) {
    if (absl::Status s = c->WithRank(c->input(i), 1,
                                     i == 0   ? "input 'shape'"
                                     : i == 1 ? "input 'key'"
                                              : "input 'counter'",
                                     &unused);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = c->WithRank(c->input(3), 0, "input 'alg'", &unused);
      !s.ok()) {
    return s;
  }
  TensorShape out;
  if (absl::Status s = c->ShapeFromShapeTensor(0, &out); !s.ok()) return s;
  c->set_output(0, out);
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("StatelessRandomGetKeyCounter")
    .Input("seed: Tseed")
    .Output("key: uint64")
    .Output("counter: uint64")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(GetKeyCounterShape)
    .Doc("Scrambles a [2] seed into a Philox key and counter.");

#define DFLOW_STATELESS_V2_OP(name, doc)                         \
  DFLOW_REGISTER_OP(name)                                        \
      .Input("shape: Tshape")                                    \
      .Input("key: uint64")                                      \
      .Input("counter: uint64")                                  \
      .Input("alg: int32")                                       \
      .Output("output: dtype")                                   \
      .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT") \
      .Attr("Tshape: {int32, int64} = DT_INT32")                 \
      .SetShapeFn(StatelessV2Shape)                              \
      .Doc(doc)

DFLOW_STATELESS_V2_OP("StatelessRandomUniformV2",
                      "Uniform values on [0, 1) from a key and counter.");
DFLOW_STATELESS_V2_OP("StatelessRandomNormalV2",
                      "Standard normal values from a key and counter.");
DFLOW_STATELESS_V2_OP("StatelessTruncatedNormalV2",
                      "Normal values within two standard deviations, from "
                      "a key and counter.");

#undef DFLOW_STATELESS_V2_OP

// The V2 shape checks plus scalar inputs `first`.. (bounds, parameters).
absl::Status StatelessV2ShapeWithScalars(InferenceContext* c, int first,
                                         int count) {
  TensorShape unused;
  for (int i = first; i < first + count; ++i) {
    DFLOW_RETURN_IF_ERROR(c->WithRank(
        c->input(i), 0,
        absl::StrCat("input '", c->op_def().input_arg(i).name(), "'"),
        &unused));
  }
  return StatelessV2Shape(c);
}

DFLOW_REGISTER_OP("StatelessRandomUniformIntV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64}")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn([](InferenceContext* c) {
      return StatelessV2ShapeWithScalars(c, 4, 2);
    })
    .Doc("Integers uniform on [minval, maxval) from a key and counter "
         "(tf.random.stateless_uniform with an integer dtype).");

DFLOW_REGISTER_OP("StatelessRandomUniformFullIntV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(StatelessV2Shape)
    .Doc("Integers uniform over all of dtype's values, from a key and "
         "counter (stateless_uniform without bounds, stateless_split).");

DFLOW_REGISTER_OP("StatelessRandomGammaV3")
    .Input("shape: shape_dtype")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Input("alpha: dtype")
    .Output("output: dtype")
    .Attr("dtype: {half, float, double}")
    .Attr("shape_dtype: {int32, int64} = DT_INT32")
    .SetShapeFn(StatelessV2Shape)
    .Doc("Gamma(alpha) draws from a key and counter; the shape ends with "
         "alpha's (tf.random.stateless_gamma).");

DFLOW_REGISTER_OP("StatelessRandomGetKeyCounterAlg")
    .Input("seed: Tseed")
    .Output("key: uint64")
    .Output("counter: uint64")
    .Output("alg: int32")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn([](InferenceContext* c) {
      DFLOW_RETURN_IF_ERROR(GetKeyCounterShape(c));
      c->set_output(2, TensorShape());
      return absl::OkStatus();
    })
    .Doc("StatelessRandomGetKeyCounter and the algorithm (Philox, 1).");

DFLOW_REGISTER_OP("StatelessRandomGetAlg")
    .Output("alg: int32")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("The algorithm the auto-select id (3) picks here: Philox (1).");

}  // namespace

namespace ops {

KeyCounter StatelessRandomGetKeyCounter(const Scope& scope, Input seed) {
  Operation op =
      OpBuilder(scope, "StatelessRandomGetKeyCounter").Input(seed).Finalize();
  if (!op.valid()) return {};
  return {op.output(0), op.output(1)};
}

namespace {
Output StatelessV2(const Scope& scope, const char* op, Input shape, Input key,
                   Input counter, Input alg, DataType dtype) {
  Operation result = OpBuilder(scope, op)
                         .Input(shape)
                         .Input(key)
                         .Input(counter)
                         .Input(alg)
                         .Attr("dtype", dtype)
                         .Finalize();
  return result.valid() ? result.output(0) : Output();
}
}  // namespace

Output StatelessRandomUniformV2(const Scope& scope, Input shape, Input key,
                                Input counter, Input alg, DataType dtype) {
  return StatelessV2(scope, "StatelessRandomUniformV2", shape, key, counter,
                     alg, dtype);
}
Output StatelessRandomNormalV2(const Scope& scope, Input shape, Input key,
                               Input counter, Input alg, DataType dtype) {
  return StatelessV2(scope, "StatelessRandomNormalV2", shape, key, counter, alg,
                     dtype);
}
Output StatelessRandomUniformIntV2(const Scope& scope, Input shape,
                                   Input key, Input counter, Input alg,
                                   Input minval, Input maxval) {
  Operation result = OpBuilder(scope, "StatelessRandomUniformIntV2")
                         .Input(shape)
                         .Input(key)
                         .Input(counter)
                         .Input(alg)
                         .Input(minval)
                         .Input(maxval)
                         .Finalize();
  return result.valid() ? result.output(0) : Output();
}

Output StatelessRandomUniformFullIntV2(const Scope& scope, Input shape,
                                       Input key, Input counter, Input alg,
                                       DataType dtype) {
  Operation result = OpBuilder(scope, "StatelessRandomUniformFullIntV2")
                         .Input(shape)
                         .Input(key)
                         .Input(counter)
                         .Input(alg)
                         .Attr("dtype", dtype)
                         .Finalize();
  return result.valid() ? result.output(0) : Output();
}

Output StatelessRandomGammaV3(const Scope& scope, Input shape, Input key,
                              Input counter, Input alg, Input alpha) {
  Operation result = OpBuilder(scope, "StatelessRandomGammaV3")
                         .Input(shape)
                         .Input(key)
                         .Input(counter)
                         .Input(alg)
                         .Input(alpha)
                         .Finalize();
  return result.valid() ? result.output(0) : Output();
}

KeyCounterAlg StatelessRandomGetKeyCounterAlg(const Scope& scope,
                                              Input seed) {
  Operation op = OpBuilder(scope, "StatelessRandomGetKeyCounterAlg")
                     .Input(seed)
                     .Finalize();
  if (!op.valid()) return {};
  return {op.output(0), op.output(1), op.output(2)};
}

Output StatelessRandomGetAlg(const Scope& scope) {
  Operation op = OpBuilder(scope, "StatelessRandomGetAlg").Finalize();
  return op.valid() ? op.output(0) : Output();
}

Output StatelessTruncatedNormalV2(const Scope& scope, Input shape, Input key,
                                  Input counter, Input alg, DataType dtype) {
  return StatelessV2(scope, "StatelessTruncatedNormalV2", shape, key, counter,
                     alg, dtype);
}

}  // namespace ops
}  // namespace dflow
