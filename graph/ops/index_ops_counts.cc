// Schemas, shape functions and wrappers of DenseBincount (tf.math.bincount
// and the ragged row-length computation tf.strings.split writes) and
// EditDistance (tf.edit_distance: the Levenshtein distance of two
// SparseTensors' sequences, what CTC decoders are scored with), following
// TensorFlow 2.21's core/ops/math_ops.cc and array_ops.cc. The CPU kernels
// are kernels/cpu/index_ops_counts.cc.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/op_registry.h"
#include "graph/ops/index_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// [size] for a scalar or vector input, [rows, size] for a matrix.
absl::Status DenseBincountShape(InferenceContext* c) {
  const TensorShape& input = c->input(0);
  std::vector<int64_t> size;
  const int64_t n =
      c->ConstantInputAsInts(1, &size) && size.size() == 1 ? size[0] : kUnknown;
  if (n < kUnknown) {
    return absl::InvalidArgumentError(
        absl::StrCat("size (", n, ") must be non-negative"));
  }
  if (input.rank() < 0) {
    c->set_output(0, TensorShape::Unknown());
  } else if (input.rank() <= 1) {
    c->set_output(0, TensorShape({n}));
  } else if (input.rank() == 2) {
    c->set_output(0, TensorShape({input.dim(0), n}));
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "Shape must be at most rank 2 but is rank ", input.rank()));
  }
  return absl::OkStatus();
}

// max(hypothesis_shape, truth_shape) without its last entry, as far as the
// shapes are constants.
absl::Status EditDistanceShape(InferenceContext* c) {
  std::vector<int64_t> h, t;
  if (!c->ConstantInputAsInts(2, &h) || !c->ConstantInputAsInts(5, &t)) {
    const TensorShape& hs = c->input(2);
    c->set_output(0, hs.rank() == 1 && hs.dim(0) >= 1
                         ? TensorShape::UnknownWithRank(
                               static_cast<int>(hs.dim(0)) - 1)
                         : TensorShape::Unknown());
    return absl::OkStatus();
  }
  if (h.size() != t.size() || h.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "hypothesis_shape and truth_shape must have the same (non-zero) "
        "length, got ",
        h.size(), " and ", t.size()));
  }
  TensorShape out;
  for (size_t i = 0; i + 1 < h.size(); ++i) out.AddDim(std::max(h[i], t[i]));
  c->set_output(0, out);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("DenseBincount")
    .Input("input: Tidx")
    .Input("size: Tidx")
    .Input("weights: T")
    .Output("output: T")
    .Attr("Tidx: {int32, int64}")
    .Attr("T: {int32, int64, float, double}")
    .Attr("binary_output: bool = false")
    .SetShapeFn(DenseBincountShape)
    .Doc(
        "How often (or with what total weight) each value in [0, size) "
        "occurs in input (per row for a matrix).");

DFLOW_REGISTER_OP("EditDistance")
    .Input("hypothesis_indices: int64")
    .Input("hypothesis_values: T")
    .Input("hypothesis_shape: int64")
    .Input("truth_indices: int64")
    .Input("truth_values: T")
    .Input("truth_shape: int64")
    .Output("output: float")
    .Attr("normalize: bool = true")
    .Attr("T: type")
    .SetShapeFn(EditDistanceShape)
    .Doc(
        "The Levenshtein distance between the hypothesis and truth "
        "sequences (the last dimension) of two SparseTensors.");

namespace ops {

Output DenseBincount(const Scope& scope, Input input, Input size,
                     Input weights, bool binary_output) {
  return FirstOutput(OpBuilder(scope, "DenseBincount")
                         .Input(input)
                         .Input(size)
                         .Input(weights)
                         .Attr("binary_output", binary_output)
                         .Finalize());
}

Output EditDistance(const Scope& scope, Input hypothesis_indices,
                    Input hypothesis_values, Input hypothesis_shape,
                    Input truth_indices, Input truth_values,
                    Input truth_shape, bool normalize) {
  return FirstOutput(OpBuilder(scope, "EditDistance")
                         .Input(hypothesis_indices)
                         .Input(hypothesis_values)
                         .Input(hypothesis_shape)
                         .Input(truth_indices)
                         .Input(truth_values)
                         .Input(truth_shape)
                         .Attr("normalize", normalize)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
