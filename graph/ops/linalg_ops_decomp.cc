// Schemas, shape functions and builder wrappers of the batched matrix
// decompositions and least squares (linalg_ops.h): Qr, Svd,
// SelfAdjointEigV2, Lu, MatrixSquareRoot, MatrixLogarithm and
// MatrixSolveLs, following TensorFlow 2.21's core/ops/linalg_ops.cc.
// Unknown dimensions stay unknown; known ones are checked. Kernels:
// kernels/cpu/linalg_ops_{qr,svd,eig,lu_factor,matrix_functions,
// solve_ls}.cc.
#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/linalg_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

constexpr char kDecompTypes[] =
    "T: {double, float, half, complex64, complex128}";

// The batch dimensions (all but the last two) of a known-rank shape, with
// `dims` appended.
TensorShape BatchWith(const TensorShape& s,
                      std::initializer_list<int64_t> dims) {
  TensorShape out(s.dims().subspan(0, s.rank() - 2));
  for (int64_t d : dims) out.AddDim(d);
  return out;
}

int64_t MinDim(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a < 0 || b < 0 ? -1 : std::min(a, b);
}

// `input 'input'` of rank >= 2; `*square` gets its side when it must be
// square (MergeDim of its last two dimensions).
absl::Status Matrices(InferenceContext* c, bool square, TensorShape* s,
                      int64_t* rows, int64_t* cols) {
  DFLOW_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, "input 'input'", s));
  if (s->unknown_rank()) return absl::OkStatus();
  *rows = s->dim(s->rank() - 2);
  *cols = s->dim(s->rank() - 1);
  if (square) {
    DFLOW_RETURN_IF_ERROR(c->MergeDim(*rows, *cols,
                                      "the two dimensions of square "
                                      "matrices",
                                      rows));
    *cols = *rows;
  }
  return absl::OkStatus();
}

// [..., M, N] -> q [..., M, M] and r [..., M, N] (full_matrices), else
// q [..., M, P] and r [..., P, N], P = min(M, N).
absl::Status QrShape(InferenceContext* c) {
  TensorShape s;
  int64_t m = -1, n = -1;
  DFLOW_RETURN_IF_ERROR(Matrices(c, false, &s, &m, &n));
  bool full = false;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("full_matrices", &full));
  if (s.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    c->set_output(1, TensorShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t p = full ? m : MinDim(m, n);
  c->set_output(0, BatchWith(s, {m, p}));
  c->set_output(1, BatchWith(s, {p, n}));
  return absl::OkStatus();
}

// s [..., P]; u [..., M, M] and v [..., N, N] (full_matrices) or
// [..., M, P] and [..., N, P]; [0] and [0] without compute_uv.
absl::Status SvdShape(InferenceContext* c) {
  TensorShape s;
  int64_t m = -1, n = -1;
  DFLOW_RETURN_IF_ERROR(Matrices(c, false, &s, &m, &n));
  bool compute_uv = true, full = false;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("compute_uv", &compute_uv));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("full_matrices", &full));
  if (s.unknown_rank()) {
    for (int i = 0; i < 3; ++i) c->set_output(i, TensorShape::Unknown());
  } else {
    const int64_t p = MinDim(m, n);
    c->set_output(0, BatchWith(s, {p}));
    c->set_output(1, BatchWith(s, {m, full ? m : p}));
    c->set_output(2, BatchWith(s, {n, full ? n : p}));
  }
  if (!compute_uv) {
    c->set_output(1, TensorShape({0}));
    c->set_output(2, TensorShape({0}));
  }
  return absl::OkStatus();
}

// [..., N, N] -> e [..., N] and v [..., N, N] ([0] without compute_v).
absl::Status EigShape(InferenceContext* c) {
  TensorShape s;
  int64_t n = -1, cols = -1;
  DFLOW_RETURN_IF_ERROR(Matrices(c, true, &s, &n, &cols));
  bool compute_v = true;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("compute_v", &compute_v));
  if (s.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    c->set_output(1, TensorShape::Unknown());
  } else {
    c->set_output(0, BatchWith(s, {n}));
    c->set_output(1, BatchWith(s, {n, n}));
  }
  if (!compute_v) c->set_output(1, TensorShape({0}));
  return absl::OkStatus();
}

// [..., N, N] -> lu [..., N, N] and p [..., N].
absl::Status LuShape(InferenceContext* c) {
  TensorShape s;
  int64_t n = -1, cols = -1;
  DFLOW_RETURN_IF_ERROR(Matrices(c, true, &s, &n, &cols));
  if (s.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    c->set_output(1, TensorShape::Unknown());
    return absl::OkStatus();
  }
  c->set_output(0, BatchWith(s, {n, n}));
  c->set_output(1, BatchWith(s, {n}));
  return absl::OkStatus();
}

absl::Status SquareUnchangedShape(InferenceContext* c) {
  TensorShape s;
  int64_t n = -1, cols = -1;
  DFLOW_RETURN_IF_ERROR(Matrices(c, true, &s, &n, &cols));
  c->set_output(0, s.unknown_rank() ? s : BatchWith(s, {n, n}));
  return absl::OkStatus();
}

// matrix [..., M, N], rhs [..., M, K] (one batch shape), l2_regularizer a
// scalar -> [..., N, K].
absl::Status SolveLsShape(InferenceContext* c) {
  TensorShape m, rhs, l2;
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), 2, "input 'matrix'", &m));
  DFLOW_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(1), 2, "input 'rhs'", &rhs));
  DFLOW_RETURN_IF_ERROR(
      c->WithRank(c->input(2), 0, "input 'l2_regularizer'", &l2));
  if (m.unknown_rank() || rhs.unknown_rank()) {
    c->set_output(0, TensorShape::Unknown());
    return absl::OkStatus();
  }
  TensorShape batch;
  DFLOW_RETURN_IF_ERROR(c->MergeShapes(BatchWith(m, {}), BatchWith(rhs, {}),
                                       "the batch shapes of 'matrix' and "
                                       "'rhs'",
                                       &batch));
  int64_t rows = 0;
  DFLOW_RETURN_IF_ERROR(c->MergeDim(m.dim(m.rank() - 2),
                                    rhs.dim(rhs.rank() - 2),
                                    "the rows of 'matrix' and 'rhs'", &rows));
  batch.AddDim(m.dim(m.rank() - 1));
  batch.AddDim(rhs.dim(rhs.rank() - 1));
  c->set_output(0, batch);
  return absl::OkStatus();
}

}  // namespace

DFLOW_REGISTER_OP("Qr")
    .Input("input: T")
    .Output("q: T")
    .Output("r: T")
    .Attr("full_matrices: bool = false")
    .Attr(kDecompTypes)
    .SetShapeFn(QrShape)
    .Doc("Q (orthonormal columns) and R (upper triangular) with QR = input.");

DFLOW_REGISTER_OP("Svd")
    .Input("input: T")
    .Output("s: T")
    .Output("u: T")
    .Output("v: T")
    .Attr("compute_uv: bool = true")
    .Attr("full_matrices: bool = false")
    .Attr(kDecompTypes)
    .SetShapeFn(SvdShape)
    .Doc(
        "Singular values s (descending) and vectors u, v with "
        "input = u diag(s) v^H.");

DFLOW_REGISTER_OP("SelfAdjointEigV2")
    .Input("input: T")
    .Output("e: T")
    .Output("v: T")
    .Attr("compute_v: bool = true")
    .Attr(kDecompTypes)
    .SetShapeFn(EigShape)
    .Doc(
        "Eigenvalues e (ascending) and eigenvectors v of each self-adjoint "
        "matrix (its lower triangle is read).");

DFLOW_REGISTER_OP("Lu")
    .Input("input: T")
    .Output("lu: T")
    .Output("p: output_idx_type")
    .Attr(kDecompTypes)
    .Attr("output_idx_type: {int32, int64} = int32")
    .SetShapeFn(LuShape)
    .Doc(
        "L (unit lower, below the diagonal) and U packed in lu, and the row "
        "permutation p, with input[p] = L U.");

DFLOW_REGISTER_OP("MatrixSquareRoot")
    .Input("input: T")
    .Output("output: T")
    .Attr(kDecompTypes)
    .SetShapeFn(SquareUnchangedShape)
    .Doc("The principal square root of each matrix.");

DFLOW_REGISTER_OP("MatrixLogarithm")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {complex64, complex128}")
    .SetShapeFn(SquareUnchangedShape)
    .Doc("The principal logarithm of each (complex) matrix.");

DFLOW_REGISTER_OP("MatrixSolveLs")
    .Input("matrix: T")
    .Input("rhs: T")
    .Input("l2_regularizer: double")
    .Output("output: T")
    .Attr(kDecompTypes)
    .Attr("fast: bool = true")
    .SetShapeFn(SolveLsShape)
    .Doc(
        "The least-squares solutions X of matrix X = rhs, regularized by "
        "l2_regularizer ||X||^2.");

namespace ops {

using shape_fn_util::AllOutputs;
using shape_fn_util::FirstOutput;

QrOutputs Qr(const Scope& scope, Input input, bool full_matrices) {
  OutputList out = AllOutputs(OpBuilder(scope, "Qr")
                                  .Input(input)
                                  .Attr("full_matrices", full_matrices)
                                  .Finalize(),
                              2);
  return {out[0], out[1]};
}

SvdOutputs Svd(const Scope& scope, Input input, const SvdAttrs& attrs) {
  OutputList out = AllOutputs(OpBuilder(scope, "Svd")
                                  .Input(input)
                                  .Attr("compute_uv", attrs.compute_uv)
                                  .Attr("full_matrices", attrs.full_matrices)
                                  .Finalize(),
                              3);
  return {out[0], out[1], out[2]};
}

SelfAdjointEigOutputs SelfAdjointEigV2(const Scope& scope, Input input,
                                       bool compute_v) {
  OutputList out = AllOutputs(OpBuilder(scope, "SelfAdjointEigV2")
                                  .Input(input)
                                  .Attr("compute_v", compute_v)
                                  .Finalize(),
                              2);
  return {out[0], out[1]};
}

LuOutputs Lu(const Scope& scope, Input input, DataType output_idx_type) {
  OutputList out = AllOutputs(OpBuilder(scope, "Lu")
                                  .Input(input)
                                  .Attr("output_idx_type", output_idx_type)
                                  .Finalize(),
                              2);
  return {out[0], out[1]};
}

Output MatrixSquareRoot(const Scope& scope, Input input) {
  return FirstOutput(
      OpBuilder(scope, "MatrixSquareRoot").Input(input).Finalize());
}

Output MatrixLogarithm(const Scope& scope, Input input) {
  return FirstOutput(
      OpBuilder(scope, "MatrixLogarithm").Input(input).Finalize());
}

Output MatrixSolveLs(const Scope& scope, Input matrix, Input rhs,
                     Input l2_regularizer, bool fast) {
  return FirstOutput(OpBuilder(scope, "MatrixSolveLs")
                         .Input(matrix)
                         .Input(rhs)
                         .Input(l2_regularizer)
                         .Attr("fast", fast)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
