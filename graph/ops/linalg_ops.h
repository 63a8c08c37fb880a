// Linear algebra on batches of matrices ([..., M, N]: every dimension
// before the last two is a batch), with TensorFlow's op names, arguments
// and attrs (TensorFlow 2.21's linalg_ops.cc): Cholesky, MatrixInverse,
// MatrixDeterminant, LogMatrixDeterminant, MatrixSolve,
// MatrixTriangularSolve; and Cross (3-vectors). CPU kernels:
// kernels/cpu/linalg_ops_*.cc (Eigen's decompositions).
#ifndef DFLOW_GRAPH_OPS_LINALG_OPS_H_
#define DFLOW_GRAPH_OPS_LINALG_OPS_H_

#include "graph/scope.h"

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

// a x b of the 3-vectors in the last dimension of a and b (one shape).
Output Cross(const Scope& scope, Input a, Input b);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_LINALG_OPS_H_
