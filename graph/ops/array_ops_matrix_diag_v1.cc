// Schemas and builder wrappers of the V1 matrix-diagonal ops older graphs
// carry (TensorFlow 2.21's array_ops.cc OpDefs): MatrixDiag, MatrixDiagPart
// and MatrixSetDiag, the main diagonal only. Their kernels are the V3 ones
// (kernels/cpu/slicing_ops_matrix_diag.cc, slicing_ops_matrix_set_diag.cc)
// with k = 0.
#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

// [..., n] -> [..., n, n].
absl::Status MatrixDiagV1Shape(InferenceContext* c) {
  TensorShape in;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, "input 'diagonal'",
                                           &in));
  if (in.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  TensorShape out = in;
  out.AddDim(in.dim(in.rank() - 1));
  c->set_output(0, out);
  return absl::OkStatus();
}

// [..., m, n] -> [..., min(m, n)].
absl::Status MatrixDiagPartV1Shape(InferenceContext* c) {
  TensorShape in;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, "input 'input'",
                                           &in));
  if (in.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  TensorShape out;
  for (int d = 0; d + 2 < in.rank(); ++d) out.AddDim(in.dim(d));
  const int64_t m = in.dim(in.rank() - 2), n = in.dim(in.rank() - 1);
  out.AddDim(m < 0 || n < 0 ? TensorShape::kUnknownDim : std::min(m, n));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MatrixSetDiagV1Shape(InferenceContext* c) {
  TensorShape in, diag;
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, "input 'input'",
                                           &in));
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 1,
                                           "input 'diagonal'", &diag));
  c->set_output(0, in);
  return absl::OkStatus();
}

DFLOW_REGISTER_OP("MatrixDiag")
    .Input("diagonal: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(MatrixDiagV1Shape)
    .Doc("Square matrices with `diagonal` on their main diagonal, 0 "
         "elsewhere.");

DFLOW_REGISTER_OP("MatrixDiagPart")
    .Input("input: T")
    .Output("diagonal: T")
    .Attr("T: type")
    .SetShapeFn(MatrixDiagPartV1Shape)
    .Doc("The main diagonal of each innermost matrix.");

DFLOW_REGISTER_OP("MatrixSetDiag")
    .Input("input: T")
    .Input("diagonal: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(MatrixSetDiagV1Shape)
    .Doc("input with its main diagonal replaced by `diagonal`.");

}  // namespace

namespace ops {

Output MatrixDiag(const Scope& scope, Input diagonal) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "MatrixDiag").Input(diagonal).Finalize());
}

Output MatrixDiagPart(const Scope& scope, Input input) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "MatrixDiagPart").Input(input).Finalize());
}

Output MatrixSetDiag(const Scope& scope, Input input, Input diagonal) {
  return shape_fn_util::FirstOutput(
      OpBuilder(scope, "MatrixSetDiag").Input(input).Input(diagonal).Finalize());
}

}  // namespace ops
}  // namespace dflow
