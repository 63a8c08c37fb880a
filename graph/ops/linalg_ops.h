// Linear algebra on batches of matrices ([..., M, N]: every dimension
// before the last two is a batch), with TensorFlow's op names, arguments
// and attrs (TensorFlow 2.21's linalg_ops.cc): Cholesky, MatrixInverse,
// MatrixDeterminant, LogMatrixDeterminant, MatrixSolve,
// MatrixTriangularSolve; the decompositions Qr, Svd, SelfAdjointEigV2, Lu,
// MatrixSquareRoot, MatrixLogarithm and least squares MatrixSolveLs
// (linalg_ops_decomp.cc); the banded solvers and products
// TridiagonalSolve, TridiagonalMatMul and BandedTriangularSolve
// (linalg_ops_banded.cc); and Cross (3-vectors). CPU kernels:
// kernels/cpu/linalg_ops_*.cc (Eigen's decompositions).
#ifndef DFLOW_GRAPH_OPS_LINALG_OPS_H_
#define DFLOW_GRAPH_OPS_LINALG_OPS_H_

#include "graph/scope.h"
#include "graph/types.h"

namespace dflow {
namespace ops {

// The lower-triangular L with L L^H = input, for symmetric positive
// definite input (only its lower triangle is read).
Output Cholesky(const Scope& scope, Input input);

struct MatrixInverseAttrs {
  // Invert the adjoint (conjugate transpose) of each matrix instead.
  bool adjoint = false;
  MatrixInverseAttrs& Adjoint(bool v) {
    adjoint = v;
    return *this;
  }
};
Output MatrixInverse(const Scope& scope, Input input,
                     const MatrixInverseAttrs& attrs = {});

// det of each matrix: [..., M, M] -> [...].
Output MatrixDeterminant(const Scope& scope, Input input);

// sign and log|det| of each matrix (det = sign * exp(log_abs_determinant),
// without overflow).
struct LogMatrixDeterminantOutputs {
  Output sign;
  Output log_abs_determinant;
};
LogMatrixDeterminantOutputs LogMatrixDeterminant(const Scope& scope,
                                                 Input input);

// X with matrix X = rhs (adjoint: matrix^H X = rhs); matrix [..., M, M],
// rhs [..., M, K], one batch shape.
Output MatrixSolve(const Scope& scope, Input matrix, Input rhs,
                   const MatrixInverseAttrs& attrs = {});

struct MatrixTriangularSolveAttrs {
  // Use matrix's lower triangle (else its upper one).
  bool lower = true;
  // Solve with the adjoint of that triangle.
  bool adjoint = false;
  MatrixTriangularSolveAttrs& Lower(bool v) {
    lower = v;
    return *this;
  }
  MatrixTriangularSolveAttrs& Adjoint(bool v) {
    adjoint = v;
    return *this;
  }
};
// As MatrixSolve for a triangular matrix; batch shapes broadcast.
Output MatrixTriangularSolve(const Scope& scope, Input matrix, Input rhs,
                             const MatrixTriangularSolveAttrs& attrs = {});

// --- Decompositions (linalg_ops_decomp.cc). ---

// Q R = input ([..., M, N]): Q [..., M, P] with orthonormal columns and R
// [..., P, N] upper triangular, P = min(M, N); with full_matrices, Q is
// [..., M, M] and R [..., M, N].
struct QrOutputs {
  Output q;
  Output r;
};
QrOutputs Qr(const Scope& scope, Input input, bool full_matrices = false);

struct SvdAttrs {
  bool compute_uv = true;
  bool full_matrices = false;
  SvdAttrs& ComputeUv(bool v) {
    compute_uv = v;
    return *this;
  }
  SvdAttrs& FullMatrices(bool v) {
    full_matrices = v;
    return *this;
  }
};
// input = u diag(s) v^H, s [..., P] descending; u and v are [0] without
// compute_uv.
struct SvdOutputs {
  Output s;
  Output u;
  Output v;
};
SvdOutputs Svd(const Scope& scope, Input input, const SvdAttrs& attrs = {});

// Eigenvalues e [..., N] (ascending) and eigenvectors v [..., N, N] (the
// columns; [0] without compute_v) of self-adjoint matrices.
struct SelfAdjointEigOutputs {
  Output e;
  Output v;
};
SelfAdjointEigOutputs SelfAdjointEigV2(const Scope& scope, Input input,
                                       bool compute_v = true);

// LU with partial pivoting: lu packs unit-lower L (below the diagonal) and
// U; input[p[i], :] = (L U)[i, :]. output_idx_type: DT_INT32 or DT_INT64.
struct LuOutputs {
  Output lu;
  Output p;
};
LuOutputs Lu(const Scope& scope, Input input,
             DataType output_idx_type = DT_INT32);

// The principal square root (real input: when it has a real one).
Output MatrixSquareRoot(const Scope& scope, Input input);
// The principal logarithm of complex matrices.
Output MatrixLogarithm(const Scope& scope, Input input);

// X minimizing ||matrix X - rhs||^2 + l2_regularizer ||X||^2 (a double
// scalar); fast: by the normal equations and Cholesky, else by a complete
// orthogonal decomposition (minimum norm for rank-deficient matrices).
Output MatrixSolveLs(const Scope& scope, Input matrix, Input rhs,
                     Input l2_regularizer, bool fast = true);

// --- Banded matrices (linalg_ops_banded.cc). ---

struct TridiagonalSolveAttrs {
  bool partial_pivoting = true;
  // Perturb tiny pivots instead of failing (needs partial_pivoting).
  bool perturb_singular = false;
  TridiagonalSolveAttrs& PartialPivoting(bool v) {
    partial_pivoting = v;
    return *this;
  }
  TridiagonalSolveAttrs& PerturbSingular(bool v) {
    perturb_singular = v;
    return *this;
  }
};
// X with T X = rhs: diagonals [..., 3, M] holds T's superdiagonal (last
// element unused), diagonal and subdiagonal (first unused); rhs
// [..., M, K].
Output TridiagonalSolve(const Scope& scope, Input diagonals, Input rhs,
                        const TridiagonalSolveAttrs& attrs = {});
// T rhs, the diagonals each [..., 1, M], rhs [..., M, N].
Output TridiagonalMatMul(const Scope& scope, Input superdiag, Input maindiag,
                         Input subdiag, Input rhs);
// As MatrixTriangularSolve, the triangle given by its K diagonals
// ([..., K, M], LAPACK's band storage); batch shapes broadcast.
Output BandedTriangularSolve(const Scope& scope, Input matrix, Input rhs,
                             const MatrixTriangularSolveAttrs& attrs = {});

// a x b of the 3-vectors in the last dimension of a and b (one shape).
Output Cross(const Scope& scope, Input a, Input b);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_LINALG_OPS_H_
