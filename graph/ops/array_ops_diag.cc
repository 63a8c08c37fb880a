// Schemas, shape functions and wrappers of Diag and DiagPart (TensorFlow
// 2.21's array_ops.cc OpDefs): tf.linalg.tensor_diag and tensor_diag_part,
// the diagonal of a tensor of any rank (x[i..., i...]). Part of the
// array_ops family (graph/ops/array_ops.h); the CPU kernels are
// kernels/cpu/slicing_ops_diag.cc.
#include <cstdint>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

constexpr char kDiagTypes[] =
    "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}";

// Diag: the input's shape twice.
absl::Status DiagShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  if (in.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  TensorShape out = in;
  for (int64_t d : in.dims()) out.AddDim(d);
  c->set_output(0, out);
  return absl::OkStatus();
}

// DiagPart: the first half of an even-rank input whose halves agree.
absl::Status DiagPartShape(InferenceContext* c) {
  const TensorShape& in = c->input(0);
  if (in.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  if (in.rank() == 0 || in.rank() % 2 != 0) {
    return InvalidArgument("DiagPart needs an input of even rank >= 2, got ",
                           in.ToString());
  }
  const int half = in.rank() / 2;
  TensorShape out;
  for (int d = 0; d < half; ++d) {
    const int64_t a = in.dim(d), b = in.dim(d + half);
    if (a != TensorShape::kUnknownDim && b != TensorShape::kUnknownDim &&
        a != b) {
      return InvalidArgument("DiagPart: dimensions ", d, " and ", d + half,
                             " of the input ", in.ToString(),
                             " differ; they must be equal");
    }
    out.AddDim(a != TensorShape::kUnknownDim ? a : b);
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("Diag")
    .Input("diagonal: T")
    .Output("output: T")
    .Attr(kDiagTypes)
    .SetShapeFn(DiagShape)
    .Doc(
        "A tensor of the diagonal's shape twice, diagonal[i...] at "
        "[i..., i...] and zeros elsewhere.");

DFLOW_REGISTER_OP("DiagPart")
    .Input("input: T")
    .Output("diagonal: T")
    .Attr(kDiagTypes)
    .SetShapeFn(DiagPartShape)
    .Doc("input[i..., i...] for an input shaped [d..., d...].");

}  // namespace

namespace ops {

Output Diag(const Scope& scope, Input diagonal) {
  return FirstOutput(OpBuilder(scope, "Diag").Input(diagonal).Finalize());
}

Output DiagPart(const Scope& scope, Input input) {
  return FirstOutput(OpBuilder(scope, "DiagPart").Input(input).Finalize());
}

}  // namespace ops
}  // namespace dflow
