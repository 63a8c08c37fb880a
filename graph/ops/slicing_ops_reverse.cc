// ReverseV2 (TensorFlow's schema): the input with the order of its
// elements reversed along each of the `axis` dimensions. Part of the
// slicing_ops family (graph/ops/slicing_ops.h); tf.image's flips
// (random_flip_left_right, flip_up_down) lower to it. ReverseSequence
// reverses only the first seq_lengths[b] steps of each batch entry b
// (tf.reverse_sequence: the backward half of bidirectional_dynamic_rnn).
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/ops/slicing_ops.h"
#include "graph/shape_inference.h"

namespace dflow {
namespace {

using shape_fn_util::CanonicalAxis;
using shape_fn_util::FirstOutput;
using shape_fn_util::Ints;
using shape_fn_util::InvalidArgument;
using shape_fn_util::RankKnown;

// The output has the input's shape; a build-time axis must name distinct
// dimensions of it.
absl::Status ReverseV2Shape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  TensorShape axis_shape;
  if (absl::Status s = c->WithRank(c->input(1), 1, "input 'axis'", &axis_shape);
      !s.ok()) {
    return s;
  }
  std::vector<int64_t> axis;
  if (RankKnown(in) && c->ConstantInputAsInts(1, &axis)) {
    std::vector<bool> seen(in.rank(), false);
    for (int64_t a : axis) {
      int64_t d = 0;
      if (absl::Status s = CanonicalAxis(a, in.rank(), "axis", in, &d);
          !s.ok()) {
        return s;
      }
      if (seen[d]) {
        return InvalidArgument("axis ", Ints(axis), " names dimension ", d,
                               " twice; each may be reversed once");
      }
      seen[d] = true;
    }
  }
  c->set_output(0, in);
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("ReverseV2")
    .Input("tensor: T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr(
        "T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, "
        "bool, bfloat16, half, float, double, complex64, complex128, "
        "string}")
    .SetShapeFn(ReverseV2Shape)
    .Doc("Reverses the order of the elements along each dimension in axis.");

// ReverseSequence: the input's shape; distinct seq_dim and batch_dim within
// its rank, and one length per batch entry.
absl::Status ReverseSequenceShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  int64_t seq_dim = 0;
  int64_t batch_dim = 0;
  if (absl::Status s = c->GetAttr("seq_dim", &seq_dim); !s.ok()) return s;
  if (absl::Status s = c->GetAttr("batch_dim", &batch_dim); !s.ok()) return s;
  TensorShape lengths;
  if (absl::Status s =
          c->WithRank(c->input(1), 1, "input 'seq_lengths'", &lengths);
      !s.ok()) {
    return s;
  }
  if (seq_dim == batch_dim) {
    return InvalidArgument("seq_dim and batch_dim are both ", seq_dim,
                           "; they must name different dimensions");
  }
  if (RankKnown(in)) {
    for (int64_t d : {seq_dim, batch_dim}) {
      if (d < 0 || d >= in.rank()) {
        return InvalidArgument("seq_dim ", seq_dim, " and batch_dim ",
                               batch_dim, " must be in [0, ", in.rank(),
                               ") for an input of shape ", in.ToString());
      }
    }
    const int64_t batch = in.dim(static_cast<int>(batch_dim));
    if (RankKnown(lengths) && lengths.dim(0) != TensorShape::kUnknownDim &&
        batch != TensorShape::kUnknownDim && lengths.dim(0) != batch) {
      return InvalidArgument("seq_lengths has ", lengths.dim(0),
                             " entries but dimension ", batch_dim,
                             " (batch_dim) of the input ", in.ToString(),
                             " is ", batch, "; give one length per entry");
    }
  }
  c->set_output(0, in);
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("ReverseSequence")
    .Input("input: T")
    .Input("seq_lengths: Tlen")
    .Output("output: T")
    .Attr("seq_dim: int")
    .Attr("batch_dim: int = 0")
    .Attr("T: type")
    .Attr("Tlen: {int32, int64} = DT_INT64")
    .SetShapeFn(ReverseSequenceShape)
    .Doc(
        "Reverses, for each entry b along batch_dim, the first "
        "seq_lengths[b] slices along seq_dim; the rest stay in place.");

}  // namespace

namespace ops {

Output ReverseSequence(const Scope& scope, Input input, Input seq_lengths,
                       int64_t seq_dim, int64_t batch_dim) {
  return FirstOutput(OpBuilder(scope, "ReverseSequence")
                         .Input(input)
                         .Input(seq_lengths)
                         .Attr("seq_dim", seq_dim)
                         .Attr("batch_dim", batch_dim)
                         .Finalize());
}


Output ReverseV2(const Scope& scope, Input tensor, Input axis) {
  return FirstOutput(
      OpBuilder(scope, "ReverseV2").Input(tensor).Input(axis).Finalize());
}

}  // namespace ops
}  // namespace dflow
