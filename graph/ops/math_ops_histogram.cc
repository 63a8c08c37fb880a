// Schemas and builder wrappers of the counting ops (TensorFlow 2.21's
// math_ops.cc OpDefs): Bincount (tf.math.bincount; DenseBincount is in index_ops_counts.cc), and
// HistogramFixedWidth (tf.histogram_fixed_width). Kernels:
// kernels/cpu/reduction_ops_histogram.cc.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/math_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::InvalidArgument;

// The scalar input `i` named `what`, and its value when known (else -1).
absl::Status ScalarSize(InferenceContext* c, int i, const char* what,
                        int64_t* value) {
  TensorShape unused;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, what, &unused));
  std::vector<int64_t> v;
  *value = -1;
  if (c->ConstantInputAsInts(i, &v) && v.size() == 1) {
    if (v[0] < 0) {
      return InvalidArgument("size (", v[0], ") must be non-negative");
    }
    *value = v[0];
  }
  return absl::OkStatus();
}

// [size].
absl::Status BincountShape(InferenceContext* c) {
  int64_t size = -1;
  DFLOW_RETURN_IF_ERROR(ScalarSize(c, 1, "input 'size'", &size));
  c->set_output(0, TensorShape({size}));
  return absl::OkStatus();
}

// value_range [2], nbins a positive scalar -> [nbins].
absl::Status HistogramShape(InferenceContext* c) {
  TensorShape range, unused;
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(1), 1, "input 'value_range'", &range));
  int64_t two = 0;
  DFLOW_RETURN_IF_ERROR(
      c->MergeDim(range.dim(0), 2, "the length of 'value_range'", &two));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, "input 'nbins'", &unused));
  std::vector<int64_t> v;
  int64_t nbins = -1;
  if (c->ConstantInputAsInts(2, &v) && v.size() == 1) {
    if (v[0] <= 0) return InvalidArgument("Requires nbins > 0: ", v[0]);
    nbins = v[0];
  }
  c->set_output(0, TensorShape({nbins}));
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("Bincount")
    .Input("arr: int32")
    .Input("size: int32")
    .Input("weights: T")
    .Output("bins: T")
    .Attr("T: {int32, int64, float, double}")
    .SetShapeFn(BincountShape)
    .Doc("Counts (or sums the weights of) each value of arr below size.");

DFLOW_REGISTER_OP("HistogramFixedWidth")
    .Input("values: T")
    .Input("value_range: T")
    .Input("nbins: int32")
    .Output("out: dtype")
    .Attr("T: {int32, int64, float, double}")
    .Attr("dtype: {int32, int64} = DT_INT32")
    .SetShapeFn(HistogramShape)
    .Doc("Counts of values in nbins equal-width bins over value_range.");

namespace ops {

using shape_fn_util::FirstOutput;

Output Bincount(const Scope& scope, Input arr, Input size, Input weights) {
  return FirstOutput(OpBuilder(scope, "Bincount")
                         .Input(arr)
                         .Input(size)
                         .Input(weights)
                         .Finalize());
}

Output HistogramFixedWidth(const Scope& scope, Input values, Input value_range,
                           Input nbins, DataType dtype) {
  return FirstOutput(OpBuilder(scope, "HistogramFixedWidth")
                         .Input(values)
                         .Input(value_range)
                         .Input(nbins)
                         .Attr("dtype", dtype)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
