// Shape functions of the batched linear algebra and Cross (linalg_ops.h),
// and of the other ops added with them: matrix bands and bands of
// diagonals (array_ops.h), the binary math and tf.bitwise (math_ops.h).
// Known dimensions are checked and carried, unknown ones stay unknown, and
// a shape that cannot be right fails when the node is built.
#include "graph/ops/linalg_ops.h"

#include <cstdint>

#include "gmock/gmock.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/math_ops.h"
#include "graph/scope.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

Output FloatInput(const Scope& s, const TensorShape& shape) {
  return ops::Placeholder(s, DT_FLOAT, ops::PlaceholderAttrs().Shape(shape));
}

TEST(LinalgOpsTest, SquareMatricesKeepTheirShape) {
  Scope root = Scope::NewRootScope();
  Output m = FloatInput(root, {2, -1, 4});
  EXPECT_EQ(ops::Cholesky(root, m).shape(), TensorShape({2, 4, 4}));
  EXPECT_EQ(ops::MatrixInverse(root, m).shape(), TensorShape({2, 4, 4}));
  EXPECT_EQ(ops::MatrixDeterminant(root, m).shape(), TensorShape({2}));
  ops::LogMatrixDeterminantOutputs slog = ops::LogMatrixDeterminant(root, m);
  EXPECT_EQ(slog.sign.shape(), TensorShape({2}));
  EXPECT_EQ(slog.log_abs_determinant.shape(), TensorShape({2}));
  Output any = FloatInput(root, TensorShape::Unknown());
  EXPECT_EQ(ops::Cholesky(root, any).shape(), TensorShape::Unknown());
  EXPECT_EQ(ops::MatrixDeterminant(root, any).shape(), TensorShape::Unknown());
  ASSERT_TRUE(root.ok()) << root.status();
}

TEST(LinalgOpsTest, SolversBroadcastOrMatchBatches) {
  Scope root = Scope::NewRootScope();
  Output m = FloatInput(root, {2, 4, 4});
  Output rhs = FloatInput(root, {2, -1, 3});
  EXPECT_EQ(ops::MatrixSolve(root, m, rhs).shape(), TensorShape({2, 4, 3}));
  EXPECT_EQ(ops::MatrixTriangularSolve(root, m, rhs).shape(),
            TensorShape({2, 4, 3}));
  // Triangular solves broadcast batch dimensions (TensorFlow 2.x).
  EXPECT_EQ(ops::MatrixTriangularSolve(root, FloatInput(root, {4, 4}),
                                       FloatInput(root, {5, 2, 4, 1}))
                .shape(),
            TensorShape({5, 2, 4, 1}));
  ASSERT_TRUE(root.ok()) << root.status();
}

TEST(LinalgOpsTest, MisshapedMatricesFailWhenBuilt) {
  Scope root = Scope::NewRootScope();
  EXPECT_FALSE(
      ops::MatrixInverse(root.WithOpName("inv"), FloatInput(root, {2, 3}))
          .valid());
  EXPECT_THAT(root.status().message(), HasSubstr("'inv'"));
  Scope solve = Scope::NewRootScope();
  EXPECT_FALSE(ops::MatrixSolve(solve, FloatInput(solve, {2, 4, 4}),
                                FloatInput(solve, {2, 3, 1}))
                   .valid());
  Scope batches = Scope::NewRootScope();
  EXPECT_FALSE(ops::MatrixSolve(batches, FloatInput(batches, {2, 4, 4}),
                                FloatInput(batches, {3, 4, 1}))
                   .valid());
  Scope rank = Scope::NewRootScope();
  EXPECT_FALSE(ops::Cholesky(rank, FloatInput(rank, {4})).valid());
}

TEST(LinalgOpsTest, CrossWantsThreeVectorsOfOneShape) {
  Scope root = Scope::NewRootScope();
  EXPECT_EQ(
      ops::Cross(root, FloatInput(root, {5, -1}), FloatInput(root, {5, 3}))
          .shape(),
      TensorShape({5, 3}));
  ASSERT_TRUE(root.ok()) << root.status();
  Scope four = Scope::NewRootScope();
  EXPECT_FALSE(
      ops::Cross(four, FloatInput(four, {2, 4}), FloatInput(four, {2, 4}))
          .valid());
  Scope mismatch = Scope::NewRootScope();
  EXPECT_FALSE(ops::Cross(mismatch, FloatInput(mismatch, {2, 3}),
                          FloatInput(mismatch, {4, 3}))
                   .valid());
}

TEST(LinalgOpsTest, BandsAndDiagonalsOfBands) {
  Scope root = Scope::NewRootScope();
  Output m = FloatInput(root, {2, 4, 5});
  EXPECT_EQ(ops::MatrixBandPart(root, m, 1, -1).shape(),
            TensorShape({2, 4, 5}));
  EXPECT_EQ(ops::MatrixSetDiagV3(root, m, FloatInput(root, {2, 4}), 0).shape(),
            TensorShape({2, 4, 5}));
  // A band k = [lo, hi]: [..., hi - lo + 1, longest diagonal].
  EXPECT_EQ(ops::MatrixDiagPartV3(root, m, {-1, 1}, 0.0f).shape(),
            TensorShape({2, 3, 4}));
  EXPECT_EQ(ops::MatrixDiagPartV3(root, m, {2, 3}, 0.0f).shape(),
            TensorShape({2, 2, 3}));
  EXPECT_EQ(ops::MatrixDiagPartV3(root, m, 1, 0.0f).shape(),
            TensorShape({2, 4}));
  EXPECT_EQ(ops::MatrixDiagV3(root, FloatInput(root, {2, 3, 4}), {-1, 1}, -1,
                              -1, 0.0f)
                .shape(),
            TensorShape({2, 4, 4}));
  EXPECT_EQ(
      ops::MatrixDiagV3(root, FloatInput(root, {3, 4}), {0, 2}, 4, 6, 0.0f)
          .shape(),
      TensorShape({4, 6}));
  ASSERT_TRUE(root.ok()) << root.status();
  Scope bad = Scope::NewRootScope();
  EXPECT_FALSE(ops::MatrixBandPart(bad, FloatInput(bad, {4}), 1, 1).valid());
}

TEST(LinalgOpsTest, BinaryMathShapes) {
  Scope root = Scope::NewRootScope();
  Output a = FloatInput(root, {2, 3});
  Output row = FloatInput(root, {3});
  EXPECT_EQ(ops::Xlogy(root, a, row).shape(), TensorShape({2, 3}));
  EXPECT_EQ(ops::Atan2(root, row, a).shape(), TensorShape({2, 3}));
  EXPECT_EQ(ops::TruncateMod(root, a, 2.0f).shape(), TensorShape({2, 3}));
  Output eq = ops::ApproximateEqual(root, a, FloatInput(root, {-1, 3}));
  EXPECT_EQ(eq.shape(), TensorShape({2, 3}));
  EXPECT_EQ(eq.dtype(), DT_BOOL);
  Output bits =
      ops::Placeholder(root, DT_INT32, ops::PlaceholderAttrs().Shape({4, 1}));
  EXPECT_EQ(ops::LeftShift(root, bits, ops::Const(root, {1, 2, 3})).shape(),
            TensorShape({4, 3}));
  EXPECT_EQ(ops::Invert(root, bits).shape(), TensorShape({4, 1}));
  ASSERT_TRUE(root.ok()) << root.status();
  // ApproximateEqual does not broadcast, as in TensorFlow.
  Scope bad = Scope::NewRootScope();
  EXPECT_FALSE(
      ops::ApproximateEqual(bad, FloatInput(bad, {2, 3}), FloatInput(bad, {3}))
          .valid());
}

}  // namespace
}  // namespace dflow
