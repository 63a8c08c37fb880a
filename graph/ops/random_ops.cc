// Schemas, shape functions and builder wrappers of the random ops, as in
// TensorFlow's `core/ops/random_ops.cc`.
#include "graph/ops/random_ops.h"

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// The output shape is the value of input 0, an int vector.
absl::Status RandomShape(InferenceContext* c) {
  TensorShape unused;
  if (absl::Status s = c->WithRank(c->input(0), 1, "input 'shape'", &unused);
      !s.ok()) {
    return s;
  }
  TensorShape out;
  if (absl::Status s = c->ShapeFromShapeTensor(0, &out); !s.ok()) return s;
  c->set_output(0, out);
  return absl::OkStatus();
}

#define DFLOW_RANDOM_OP(name, doc)                    \
  DFLOW_REGISTER_OP(name)                             \
      .Input("shape: T")                              \
      .SetIsStateful()                                \
      .Output("output: dtype")                        \
      .Attr("seed: int = 0")                          \
      .Attr("seed2: int = 0")                         \
      .Attr("dtype: {half, bfloat16, float, double}") \
      .Attr("T: {int32, int64}")                      \
      .SetShapeFn(RandomShape)                        \
      .Doc(doc)

DFLOW_RANDOM_OP(
    "RandomStandardNormal",
    "Outputs values from a normal distribution (mean 0, stddev 1).");
DFLOW_RANDOM_OP("TruncatedNormal",
                "Outputs values from a normal distribution truncated to two "
                "standard deviations.");
DFLOW_RANDOM_OP("RandomUniform",
                "Outputs values from a uniform distribution on [0, 1).");

#undef DFLOW_RANDOM_OP

// minval and maxval must be scalars; the output shape is the `shape` input.
absl::Status RandomUniformIntShape(InferenceContext* c) {
  TensorShape unused;
  if (absl::Status s = c->WithRank(c->input(1), 0, "input 'minval'", &unused);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = c->WithRank(c->input(2), 0, "input 'maxval'", &unused);
      !s.ok()) {
    return s;
  }
  return RandomShape(c);
}

DFLOW_REGISTER_OP("RandomUniformInt")
    .Input("shape: T")
    .Input("minval: Tout")
    .Input("maxval: Tout")
    .SetIsStateful()
    .Output("output: Tout")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("Tout: {int32, int64}")
    .Attr("T: {int32, int64}")
    .SetShapeFn(RandomUniformIntShape)
    .Doc("Outputs integers drawn uniformly from [minval, maxval).");

Output BuildRandom(const Scope& scope, const char* op, const Input& shape,
                   DataType dtype, const ops::RandomAttrs& attrs) {
  Operation result = OpBuilder(scope, op)
                         .Input(shape)
                         .Attr("dtype", dtype)
                         .Attr("seed", attrs.seed)
                         .Attr("seed2", attrs.seed2)
                         .Finalize();
  return result.valid() ? result.output(0) : Output();
}

}  // namespace

namespace ops {

Output RandomStandardNormal(const Scope& scope, Input shape, DataType dtype,
                            const RandomAttrs& attrs) {
  return BuildRandom(scope, "RandomStandardNormal", shape, dtype, attrs);
}

Output TruncatedNormal(const Scope& scope, Input shape, DataType dtype,
                       const RandomAttrs& attrs) {
  return BuildRandom(scope, "TruncatedNormal", shape, dtype, attrs);
}

Output RandomUniform(const Scope& scope, Input shape, DataType dtype,
                     const RandomAttrs& attrs) {
  return BuildRandom(scope, "RandomUniform", shape, dtype, attrs);
}

Output RandomUniformInt(const Scope& scope, Input shape, Input minval,
                        Input maxval, const RandomAttrs& attrs) {
  Operation result = OpBuilder(scope, "RandomUniformInt")
                         .Input(shape)
                         .Input(minval)
                         .Input(maxval)
                         .Attr("seed", attrs.seed)
                         .Attr("seed2", attrs.seed2)
                         .Finalize();
  return result.valid() ? result.output(0) : Output();
}

}  // namespace ops
}  // namespace dflow
