// Schemas, shape functions and wrappers of LowerBound and UpperBound
// (TensorFlow 2.21's array_ops.cc OpDefs): tf.searchsorted, row by row;
// and Bucketize (math_ops.cc), each element searched in one sorted list of
// boundaries (feature columns' bucketized_column, Keras's Discretization).
// Part of the index_ops family (graph/ops/index_ops.h); the CPU kernels
// are kernels/cpu/index_ops_search_sorted.cc.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/index_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

// The values' shape; both inputs of rank >= 1 with the same leading rows.
absl::Status SearchSortedShape(InferenceContext* c) {
  const TensorShape& sorted = c->input(0);
  const TensorShape& values = c->input(1);
  if (!sorted.unknown_rank() && !values.unknown_rank()) {
    if (sorted.rank() < 1 || sorted.rank() != values.rank()) {
      return InvalidArgument(
          "sorted_inputs and values must have one rank >= 1, got ",
          sorted.ToString(), " and ", values.ToString());
    }
    for (int d = 0; d + 1 < sorted.rank(); ++d) {
      const int64_t a = sorted.dim(d), b = values.dim(d);
      if (a != TensorShape::kUnknownDim && b != TensorShape::kUnknownDim &&
          a != b) {
        return InvalidArgument("sorted_inputs ", sorted.ToString(),
                               " and values ", values.ToString(),
                               " differ in dimension ", d,
                               "; all but the last must be equal");
      }
    }
  }
  c->set_output(0, values);
  return absl::OkStatus();
}

#define DFLOW_SEARCH_SORTED_OP(name, doc)          \
  DFLOW_REGISTER_OP(name)                          \
      .Input("sorted_inputs: T")                   \
      .Input("values: T")                          \
      .Output("output: out_type")                  \
      .Attr("T: type")                             \
      .Attr("out_type: {int32, int64} = DT_INT32") \
      .SetShapeFn(SearchSortedShape)               \
      .Doc(doc)

DFLOW_SEARCH_SORTED_OP("LowerBound",
                       "For each value, the first index in its row of "
                       "sorted_inputs whose element is not less than it.");
DFLOW_SEARCH_SORTED_OP("UpperBound",
                       "For each value, the first index in its row of "
                       "sorted_inputs whose element is greater than it.");

#undef DFLOW_SEARCH_SORTED_OP

DFLOW_REGISTER_OP("Bucketize")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: {int32, int64, float, double}")
    .Attr("boundaries: list(float)")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->input(0));
      return absl::OkStatus();
    })
    .Doc("For each element, how many of the sorted boundaries are <= it: "
         "the index of its bucket.");

Output SearchSorted(const Scope& scope, const std::string& op, Input sorted,
                    Input values, DataType out_type) {
  return FirstOutput(OpBuilder(scope, op)
                         .Input(sorted)
                         .Input(values)
                         .Attr("out_type", out_type)
                         .Finalize());
}

}  // namespace

namespace ops {

Output LowerBound(const Scope& scope, Input sorted_inputs, Input values,
                  DataType out_type) {
  return SearchSorted(scope, "LowerBound", sorted_inputs, values, out_type);
}

Output UpperBound(const Scope& scope, Input sorted_inputs, Input values,
                  DataType out_type) {
  return SearchSorted(scope, "UpperBound", sorted_inputs, values, out_type);
}

Output Bucketize(const Scope& scope, Input input,
                 const std::vector<float>& boundaries) {
  return FirstOutput(OpBuilder(scope, "Bucketize")
                         .Input(input)
                         .Attr("boundaries", absl::Span<const float>(boundaries))
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
