// Schemas, shape functions and builder wrappers of the solvers and
// products of banded matrices stored by their diagonals (linalg_ops.h):
// TridiagonalSolve, TridiagonalMatMul and BandedTriangularSolve, following
// TensorFlow 2.21's core/ops/linalg_ops.cc. Kernels:
// kernels/cpu/linalg_ops_tridiagonal.cc, linalg_ops_banded.cc.
#include <cstdint>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/linalg_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::InvalidArgument;

TensorShape BatchOf(const TensorShape& s) {
  return TensorShape(s.dims().subspan(0, s.rank() - 2));
}
int64_t Dim(const TensorShape& s, int from_end) {
  return s.dim(s.rank() - from_end);
}

// diagonals [..., 3, M] and rhs [..., M, K] (one batch shape) -> rhs's
// shape.
absl::Status TridiagonalSolveShape(InferenceContext* c) {
  TensorShape lhs, rhs;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), 2, "input 'diagonals'", &lhs));
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(1), 2, "input 'rhs'", &rhs));
  if (lhs.unknown_rank() || rhs.unknown_rank()) {
    c->set_output(0, rhs);
    return absl::OkStatus();
  }
  TensorShape batch;
  DFLOW_RETURN_IF_ERROR(c->MergeShapes(BatchOf(lhs), BatchOf(rhs),
                                       "the batch shapes of 'diagonals' and "
                                       "'rhs'",
                                       &batch));
  int64_t m = 0, three = 0;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(Dim(lhs, 1), Dim(rhs, 2),
                                    "the size of 'diagonals' and the rows "
                                    "of 'rhs'",
                                    &m));
  DFLOW_RETURN_IF_ERROR(c->MergeDim(Dim(lhs, 2), 3,
                                    "the diagonals' count (dimension -2 of "
                                    "'diagonals')",
                                    &three));
  batch.AddDim(m);
  batch.AddDim(Dim(rhs, 1));
  c->set_output(0, batch);
  return absl::OkStatus();
}

// superdiag, maindiag, subdiag [..., 1, M] and rhs [..., M, N] (one batch
// shape) -> rhs's shape.
absl::Status TridiagonalMatMulShape(InferenceContext* c) {
  static constexpr const char* kNames[] = {
      "input 'superdiag'", "input 'maindiag'", "input 'subdiag'"};
  TensorShape diag;
  TensorShape rhs;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(3), 2, "input 'rhs'", &rhs));
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, kNames[0], &diag));
  for (int i = 1; i < 3; ++i) {
    TensorShape d;
    DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(i), 2, kNames[i], &d));
    DFLOW_RETURN_IF_ERROR(c->MergeShapes(diag, d,
                                         "the shapes of the three "
                                         "diagonals",
                                         &diag));
  }
  if (diag.unknown_rank() || rhs.unknown_rank()) {
    c->set_output(0, rhs);
    return absl::OkStatus();
  }
  TensorShape batch;
  DFLOW_RETURN_IF_ERROR(c->MergeShapes(BatchOf(diag), BatchOf(rhs),
                                       "the batch shapes of the diagonals "
                                       "and 'rhs'",
                                       &batch));
  int64_t m = 0, one = 0;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(Dim(diag, 1), Dim(rhs, 2),
                                    "the diagonals' length and the rows of "
                                    "'rhs'",
                                    &m));
  DFLOW_RETURN_IF_ERROR(
      c->MergeDim(Dim(diag, 2), 1, "dimension -2 of the diagonals", &one));
  batch.AddDim(m);
  batch.AddDim(Dim(rhs, 1));
  c->set_output(0, batch);
  return absl::OkStatus();
}

// matrix [..., K, M] (K bands, 0 < K <= M) and rhs [..., M, N], batch
// shapes broadcast -> [..., M, N].
absl::Status BandedTriangularSolveShape(InferenceContext* c) {
  TensorShape lhs, rhs;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), 2, "input 'matrix'", &lhs));
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(1), 2, "input 'rhs'", &rhs));
  if (lhs.unknown_rank() || rhs.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t bands = Dim(lhs, 2);
  int64_t m = Dim(lhs, 1);
  if (bands == 0) {
    return InvalidArgument("Number of bands must be positive, but is 0");
  }
  if (bands > 0 && m >= 0 && bands > m) {
    return InvalidArgument("Number of bands ", bands,
                           " cannot exceed the size of the matrix ", m);
  }
  TensorShape batch;
  DFLOW_RETURN_IF_ERROR(c->BroadcastShapes(BatchOf(lhs), BatchOf(rhs), &batch));
  DFLOW_RETURN_IF_ERROR(c->MergeDim(m, Dim(rhs, 2),
                                    "the size of 'matrix' and the rows of "
                                    "'rhs'",
                                    &m));
  batch.AddDim(m);
  batch.AddDim(Dim(rhs, 1));
  c->set_output(0, batch);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("TridiagonalSolve")
    .Input("diagonals: T")
    .Input("rhs: T")
    .Output("output: T")
    .Attr("partial_pivoting: bool = true")
    .Attr("perturb_singular: bool = false")
    .Attr("T: {double, float, complex64, complex128}")
    .SetShapeFn(TridiagonalSolveShape)
    .Doc(
        "X with T X = rhs, T tridiagonal given by its super-, main and "
        "subdiagonal (the rows of 'diagonals').");

DFLOW_REGISTER_OP("TridiagonalMatMul")
    .Input("superdiag: T")
    .Input("maindiag: T")
    .Input("subdiag: T")
    .Input("rhs: T")
    .Output("output: T")
    .Attr("T: {double, float, complex64, complex128}")
    .SetShapeFn(TridiagonalMatMulShape)
    .Doc("T rhs, T tridiagonal given by its three diagonals.");

DFLOW_REGISTER_OP("BandedTriangularSolve")
    .Input("matrix: T")
    .Input("rhs: T")
    .Output("output: T")
    .Attr("lower: bool = true")
    .Attr("adjoint: bool = false")
    .Attr("T: {double, float, half, complex64, complex128}")
    .SetShapeFn(BandedTriangularSolveShape)
    .Doc(
        "X with T X = rhs, T the triangular matrix whose K diagonals are the "
        "rows of 'matrix'; batch shapes broadcast.");

namespace ops {

using shape_fn_util::FirstOutput;

Output TridiagonalSolve(const Scope& scope, Input diagonals, Input rhs,
                        const TridiagonalSolveAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "TridiagonalSolve")
                         .Input(diagonals)
                         .Input(rhs)
                         .Attr("partial_pivoting", attrs.partial_pivoting)
                         .Attr("perturb_singular", attrs.perturb_singular)
                         .Finalize());
}

Output TridiagonalMatMul(const Scope& scope, Input superdiag, Input maindiag,
                         Input subdiag, Input rhs) {
  return FirstOutput(OpBuilder(scope, "TridiagonalMatMul")
                         .Input(superdiag)
                         .Input(maindiag)
                         .Input(subdiag)
                         .Input(rhs)
                         .Finalize());
}

Output BandedTriangularSolve(const Scope& scope, Input matrix, Input rhs,
                             const MatrixTriangularSolveAttrs& attrs) {
  return FirstOutput(OpBuilder(scope, "BandedTriangularSolve")
                         .Input(matrix)
                         .Input(rhs)
                         .Attr("lower", attrs.lower)
                         .Attr("adjoint", attrs.adjoint)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
