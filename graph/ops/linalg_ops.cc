// Schemas, shape functions and builder wrappers of the batched matrix
// decompositions and solvers (linalg_ops.h), following TensorFlow 2.21's
// core/ops/linalg_ops.cc. Unknown dimensions stay unknown; known ones are
// checked (square matrices, matching rows).
#include "graph/ops/linalg_ops.h"

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::InvalidArgument;

constexpr char kSolverTypes[] =
    "T: {double, float, half, complex64, complex128}";
constexpr char kDeterminantTypes[] =
    "T: {half, float, double, complex64, complex128}";

// `s` as a batch of square matrices; `out` gets it with the two matrix
// dimensions merged.
absl::Status SquareMatrices(const InferenceContext& c, const TensorShape& s,
                            const char* what, TensorShape* out) {
  DFLOW_RETURN_IF_ERROR(c.WithRankAtLeast(s, 2, what, out));
  if (out->unknown_rank()) return absl::OkStatus();
  const int r = out->rank();
  int64_t n = 0;
  DFLOW_RETURN_IF_ERROR(c.MergeDim(out->dim(r - 2), out->dim(r - 1),
                                   "the two dimensions of square matrices",
                                   &n));
  out->set_dim(r - 2, n);
  out->set_dim(r - 1, n);
  return absl::OkStatus();
}

// The batch dimensions (all but the last two) of a known-rank shape.
TensorShape BatchOf(const TensorShape& s) {
  return TensorShape(s.dims().subspan(0, s.rank() - 2));
}

absl::Status SquareUnchangedShape(InferenceContext* c) {
  TensorShape m;
  DFLOW_RETURN_IF_ERROR(SquareMatrices(*c, c->input(0), "input 'input'", &m));
  c->set_output(0, m);
  return absl::OkStatus();
}

// [..., M, M] -> [...] for every output.
absl::Status DeterminantShape(InferenceContext* c) {
  TensorShape m;
  DFLOW_RETURN_IF_ERROR(SquareMatrices(*c, c->input(0), "input 'input'", &m));
  const TensorShape out =
      m.unknown_rank() ? TensorShape::Unknown() : BatchOf(m);
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return absl::OkStatus();
}

// matrix [..., M, M] and rhs [..., M, K] -> [..., M, K]; the batch shapes
// are equal (MatrixSolve) or broadcast (MatrixTriangularSolve).
absl::Status SolveShape(InferenceContext* c, bool broadcast_batches) {
  TensorShape m, rhs;
  DFLOW_RETURN_IF_ERROR(SquareMatrices(*c, c->input(0), "input 'matrix'", &m));
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(1), 2, "input 'rhs'", &rhs));
  if (m.unknown_rank() || rhs.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  int64_t rows = 0;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(m.dim(m.rank() - 1),
                                    rhs.dim(rhs.rank() - 2),
                                    "the rows of 'matrix' and 'rhs'", &rows));
  TensorShape out;
  if (broadcast_batches) {
    DFLOW_RETURN_IF_ERROR(c->BroadcastShapes(BatchOf(m), BatchOf(rhs), &out));
  } else {
    DFLOW_RETURN_IF_ERROR(c->MergeShapes(BatchOf(m), BatchOf(rhs),
                                         "the batch shapes of 'matrix' and "
                                         "'rhs'",
                                         &out));
  }
  out.AddDim(rows);
  out.AddDim(rhs.dim(rhs.rank() - 1));
  c->set_output(0, out);
  return absl::OkStatus();
}

absl::Status MatrixSolveShape(InferenceContext* c) {
  return SolveShape(c, /*broadcast_batches=*/false);
}
absl::Status TriangularSolveShape(InferenceContext* c) {
  return SolveShape(c, /*broadcast_batches=*/true);
}

}  // namespace

DFLOW_REGISTER_OP("Cholesky")
    .Input("input: T")
    .Output("output: T")
    .Attr(kSolverTypes)
    .SetShapeFn(SquareUnchangedShape)
    .Doc("The Cholesky factor L (lower triangular) of each matrix.");

DFLOW_REGISTER_OP("MatrixInverse")
    .Input("input: T")
    .Output("output: T")
    .Attr("adjoint: bool = false")
    .Attr(kSolverTypes)
    .SetShapeFn(SquareUnchangedShape)
    .Doc("The inverse of each matrix (of its adjoint with adjoint=true).");

DFLOW_REGISTER_OP("MatrixDeterminant")
    .Input("input: T")
    .Output("output: T")
    .Attr(kDeterminantTypes)
    .SetShapeFn(DeterminantShape)
    .Doc("The determinant of each matrix.");

DFLOW_REGISTER_OP("LogMatrixDeterminant")
    .Input("input: T")
    .Output("sign: T")
    .Output("log_abs_determinant: T")
    .Attr(kDeterminantTypes)
    .SetShapeFn(DeterminantShape)
    .Doc("The sign and log of the absolute determinant of each matrix.");

DFLOW_REGISTER_OP("MatrixSolve")
    .Input("matrix: T")
    .Input("rhs: T")
    .Output("output: T")
    .Attr("adjoint: bool = false")
    .Attr(kSolverTypes)
    .SetShapeFn(MatrixSolveShape)
    .Doc("X with matrix X = rhs (or adjoint(matrix) X = rhs), per batch.");

DFLOW_REGISTER_OP("MatrixTriangularSolve")
    .Input("matrix: T")
    .Input("rhs: T")
    .Output("output: T")
    .Attr("lower: bool = true")
    .Attr("adjoint: bool = false")
    .Attr("T: {bfloat16, double, float, half, complex64, complex128}")
    .SetShapeFn(TriangularSolveShape)
    .Doc(
        "X with T X = rhs, T the lower (or upper) triangle of matrix or its "
        "adjoint; batch shapes broadcast.");

namespace ops {

using shape_fn_util::AllOutputs;
using shape_fn_util::FirstOutput;

Output Cholesky(const Scope& scope, Input input) {
  return FirstOutput(OpBuilder(scope, "Cholesky").Input(input).Finalize());
}

Output MatrixInverse(const Scope& scope, Input input,
                     const MatrixInverseAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "MatrixInverse")
                         .Input(input)
                         .Attr("adjoint", attrs.adjoint)
                         .Finalize());
}

Output MatrixDeterminant(const Scope& scope, Input input) {
  return FirstOutput(
      OpBuilder(scope, "MatrixDeterminant").Input(input).Finalize());
}

LogMatrixDeterminantOutputs LogMatrixDeterminant(const Scope& scope,
                                                 Input input) {
  OutputList out = AllOutputs(
      OpBuilder(scope, "LogMatrixDeterminant").Input(input).Finalize(), 2);
  return {out[0], out[1]};
}

Output MatrixSolve(const Scope& scope, Input matrix, Input rhs,
                   const MatrixInverseAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "MatrixSolve")
                         .Input(matrix)
                         .Input(rhs)
                         .Attr("adjoint", attrs.adjoint)
                         .Finalize());
}

Output MatrixTriangularSolve(const Scope& scope, Input matrix, Input rhs,
                             const MatrixTriangularSolveAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "MatrixTriangularSolve")
                         .Input(matrix)
                         .Input(rhs)
                         .Attr("lower", attrs.lower)
                         .Attr("adjoint", attrs.adjoint)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
