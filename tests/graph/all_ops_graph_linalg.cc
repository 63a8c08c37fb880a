// The part of the every-op graph (all_ops_graph.h) that uses the matrix
// decompositions, banded solvers, special functions and the counting and
// bit ops (graph/ops/linalg_ops.h, math_ops.h, array_ops.h).
#include "graph/ops/ops.h"
#include "tests/graph/all_ops_graph.h"

namespace dflow {

void BuildLinalgAndSpecialOps(const Scope& root) {
  const Scope s = root.NewSubScope("decompositions");
  Output a = ops::Const(s, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 7.0f}, {3, 2});
  Output sq = ops::Const(s, {4.0f, 1.0f, 1.0f, 3.0f}, {2, 2});
  ops::Qr(s, a, /*full_matrices=*/true);
  ops::Svd(s, a, ops::SvdAttrs().FullMatrices(true));
  ops::SelfAdjointEigV2(s, sq);
  ops::Lu(s, sq, DT_INT64);
  ops::MatrixSquareRoot(s, sq);
  ops::MatrixLogarithm(s, ops::Cast(s, sq, DT_COMPLEX64));
  ops::MatrixSolveLs(s, a, ops::Const(s, {1.0f, 2.0f, 3.0f}, {3, 1}),
                     ops::Const(s, 0.0), /*fast=*/false);
  Output diags = ops::Const(s, {0.5f, 0.0f, 2.0f, 3.0f, 0.0f, 0.25f}, {3, 2});
  Output rhs = ops::Const(s, {1.0f, 2.0f}, {2, 1});
  ops::TridiagonalSolve(s, diags, rhs,
                        ops::TridiagonalSolveAttrs().PartialPivoting(false));
  Output one_row = ops::Const(s, {1.0f, 2.0f}, {1, 2});
  ops::TridiagonalMatMul(s, one_row, one_row, one_row, rhs);
  ops::BandedTriangularSolve(s, one_row, rhs);

  const Scope sp = root.NewSubScope("special_functions");
  Output x = ops::Const(sp, {0.5f, 1.5f});
  ops::Igamma(sp, x, x);
  ops::Igammac(sp, x, x);
  ops::IgammaGradA(sp, x, x);
  ops::RandomGammaGrad(sp, x, x);
  ops::Betainc(sp, x, x, ops::Const(sp, 0.25f));
  ops::Zeta(sp, ops::Const(sp, 2.0f), x);
  ops::Polygamma(sp, ops::Const(sp, 1.0f), x);
  for (const char* op :
       {"BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BesselJ0",
        "BesselJ1", "BesselK0", "BesselK0e", "BesselK1", "BesselK1e",
        "BesselY0", "BesselY1", "Dawsn", "Expint", "FresnelCos", "FresnelSin",
        "Spence"}) {
    ops::SpecialUnary(sp, op, x);
  }

  const Scope c = root.NewSubScope("counting");
  Output values = ops::Const(c, {1, 3, 3, 0});
  ops::CumulativeLogsumexp(c, x, 0, ops::ScanAttrs().Exclusive(true));
  ops::PopulationCount(c, values);
  ops::Bitcast(c, values, DT_UINT8);
  ops::Bincount(c, values, ops::Const(c, 4),
                ops::Const(c, {0.5f, 1.0f, 2.0f, 1.0f}));
  ops::DenseBincount(c, values, ops::Const(c, 4),
                     ops::Const(c, Tensor(DT_FLOAT, TensorShape({0}))),
                     /*binary_output=*/true);
  ops::HistogramFixedWidth(c, x, ops::Const(c, {0.0f, 2.0f}), ops::Const(c, 4),
                           DT_INT64);
}

}  // namespace dflow
