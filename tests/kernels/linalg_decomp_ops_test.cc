// Qr, Svd, SelfAdjointEigV2, Lu, MatrixSquareRoot, MatrixSolveLs,
// TridiagonalSolve, TridiagonalMatMul and BandedTriangularSolve on graphs
// TensorFlow 2.21 wrote (tools/tf_reference/make_linalg_decomp_reference.py):
// tall, wide and square batches in float32 and float64, every attr, the
// gradients tf.gradients writes through them, and
// tf.compat.v1.orthogonal_initializer, against TensorFlow's values. Then
// the bad inputs: each an InvalidArgument saying what is wrong.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

// Compares every fetch of `dir` with TensorFlow's value: integers exactly,
// float64 within 1e-12 and float32 within `tol32`, relative to
// max(1, |want|) (decompositions round in another order than TensorFlow's
// build: dflow's Eigen is 3.4.0 compiled with FMA, TensorFlow's a later one
// without; measured: float32 within 5e-7, float64 within 5e-15). Fetches named
// "_signfree" hold singular vectors or eigenvectors, each column defined up to
// its sign: a column whose dot product with TensorFlow's is negative is
// compared negated. Returns the number of such sign flips.
int CompareWithTensorFlow(const std::string& dir, size_t min_lines,
                          double tol32) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(dir + "cases.txt");
  EXPECT_GT(lines.size(), min_lines);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(dir, lines, &fetched, &outputs);
  if (outputs.size() != fetched.size()) {
    ADD_FAILURE() << "the graph did not run";
    return 0;
  }
  int flips = 0;
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    EXPECT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    if (got.NumElements() != static_cast<int64_t>(want.values.size()) ||
        got.dtype() != DtypeOf(want.dtype)) {
      continue;
    }
    const bool single = want.dtype == "float32";
    const bool floating = single || want.dtype == "float64";
    const double tol = single ? tol32 : 1e-12;
    // Column signs: +1 except for flipped sign-free columns.
    std::vector<double> sign(got.NumElements(), 1.0);
    if (absl::StrContains(want.name, "_signfree")) {
      const int64_t rows = want.shape[want.shape.size() - 2];
      const int64_t cols = want.shape.back();
      for (int64_t b = 0; b < got.NumElements() / (rows * cols); ++b) {
        for (int64_t j = 0; j < cols; ++j) {
          double dot = 0;
          for (int64_t i = 0; i < rows; ++i) {
            const int64_t at = (b * rows + i) * cols + j;
            dot += Element(got, at) * want.values[at];
          }
          if (dot >= 0) continue;
          ++flips;
          for (int64_t i = 0; i < rows; ++i) {
            sign[(b * rows + i) * cols + j] = -1;
          }
        }
      }
    }
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w =
          single ? static_cast<float>(want.values[i]) : want.values[i];
      const double g = sign[i] * Element(got, i);
      if (!floating) {
        EXPECT_EQ(g, w) << "element " << i;
      } else if (std::isnan(w) || std::isinf(w)) {
        EXPECT_TRUE(std::isnan(w) ? std::isnan(g) : g == w)
            << "element " << i << ": " << g << " vs " << w;
      } else {
        EXPECT_NEAR(g, w, tol * std::max(1.0, std::fabs(w))) << "element " << i;
      }
    }
  }
  return flips;
}

TEST(LinalgDecompOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const int flips =
      CompareWithTensorFlow("tests/testdata/tf_linalg_decomp/", 60, 1e-5);
  // The same Eigen solvers as TensorFlow's: the vectors' signs agree.
  EXPECT_EQ(flips, 0);
}

TEST(LinalgDecompOpsTest, GradientsGiveTensorFlowsValues) {
  // Gradients of eigen- and singular vectors divide by differences of
  // eigenvalues, which amplifies the decompositions' last-bit differences
  // (measured: within 5e-6).
  CompareWithTensorFlow("tests/testdata/tf_linalg_decomp_grad/", 14, 3e-5);
}

// MatrixLogarithm is complex-only (as in TensorFlow); graphs reach it
// through Complex, which dflow lacks, so it is checked on known logarithms:
// log [[e, 1], [0, e]] = [[1, 1/e], [0, 1]] and log diag(-1, 4) =
// diag(i pi, log 4) (the principal branch).
TEST(LinalgDecompOpsTest, MatrixLogarithmOfKnownMatrices) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_COMPLEX128);
  Tensor in(DT_COMPLEX128, TensorShape({2, 2, 2}));
  complex128* m = in.data<complex128>();
  const double e = std::exp(1.0);
  const complex128 values[] = {e, 1, 0, e, -1, 0, 0, 4};
  std::copy(values, values + 8, m);
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(ops::MatrixLogarithm(root, x).node(), {in});
  ASSERT_TRUE(out.ok()) << out.status();
  const complex128* l = (*out)[0].data<complex128>();
  const complex128 want[] = {1, 1 / e,        0, 1, complex128(0, M_PI), 0,
                             0, std::log(4.0)};
  for (int i = 0; i < 8; ++i) {
    EXPECT_NEAR(l[i].real(), want[i].real(), 1e-12) << i;
    EXPECT_NEAR(l[i].imag(), want[i].imag(), 1e-12) << i;
  }
}

// --- Bad inputs. ---

Output Ph(const Scope& s, DataType dtype) { return ops::Placeholder(s, dtype); }

Tensor Floats(const std::vector<float>& v, TensorShape shape) {
  return Tensor::FromVector<float>(v, shape);
}

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(out.node(), in);
  return r.status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

TEST(LinalgDecompOpsTest, DecompositionsRefuseBadShapes) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT);
  const Tensor vec(DT_FLOAT, TensorShape({4}));
  const Tensor tall(DT_FLOAT, TensorShape({2, 3, 2}));
  ExpectInvalid(RunError(ops::Qr(root, x).q, {vec}),
                "input must have rank >= 2 (a batch of matrices), got shape "
                "[4]");
  ExpectInvalid(RunError(ops::Svd(root, x).s, {vec}), "must have rank >= 2");
  ExpectInvalid(RunError(ops::SelfAdjointEigV2(root, x).e, {tall}),
                "input must be square matrices, got shape [2,3,2]");
  ExpectInvalid(RunError(ops::Lu(root, x).lu, {tall}),
                "must be square matrices");
  ExpectInvalid(RunError(ops::MatrixSquareRoot(root, x), {tall}),
                "must be square matrices");
  // Lu of a singular matrix: a zero pivot, named by its batch index.
  ExpectInvalid(RunError(ops::Lu(root, x).lu, {Floats({1, 0, 0, 1, 1, 2, 2, 4},
                                                      TensorShape({2, 2, 2}))}),
                "Input is not invertible: matrix 1 of the batch is singular");
  // An eigen decomposition that cannot converge.
  ExpectInvalid(RunError(ops::SelfAdjointEigV2(root, x).e,
                         {Floats({1, NAN, NAN, 1}, TensorShape({2, 2}))}),
                "Self-adjoint eigen decomposition was not successful");
}

TEST(LinalgDecompOpsTest, ShapeFunctionsRefuseKnownBadShapes) {
  Scope root = Scope::NewRootScope();
  Output vec = ops::Const(root, {1.0f, 2.0f});
  ops::Qr(root, vec);
  EXPECT_THAT(root.status().ToString(), HasSubstr("rank"));
  Scope root2 = Scope::NewRootScope();
  ops::SelfAdjointEigV2(root2, ops::Const(root2, {1.0f, 2.0f}, {1, 2}));
  EXPECT_THAT(root2.status().ToString(), HasSubstr("square"));
  // Integers are not among the decompositions' types.
  Scope root3 = Scope::NewRootScope();
  ops::Svd(root3, ops::Const(root3, {1, 2, 3, 4}, {2, 2}));
  EXPECT_FALSE(root3.status().ok());
  EXPECT_THAT(root3.status().ToString(), HasSubstr("int32"));
}

TEST(LinalgDecompOpsTest, SvdOfNonFiniteMatrixIsNan) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT);
  absl::StatusOr<std::vector<Tensor>> r =
      RunKernel(ops::Svd(root, x).s.node(),
                {Floats({1, 2, NAN, 4, 5, 6}, TensorShape({3, 2}))});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ((*r)[0].NumElements(), 2);
  EXPECT_TRUE(std::isnan((*r)[0].data<float>()[0]));
}

TEST(LinalgDecompOpsTest, MatrixSolveLsRefusesBadInputs) {
  Scope root = Scope::NewRootScope();
  Output a = Ph(root, DT_FLOAT), b = Ph(root, DT_FLOAT),
         l2 = Ph(root, DT_DOUBLE);
  Output ls = ops::MatrixSolveLs(root, a, b, l2);
  const Tensor a32 = Floats({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  ExpectInvalid(RunError(ls, {a32, Tensor(DT_FLOAT, TensorShape({2, 1})),
                              Tensor::Scalar<double>(0)}),
                "need one batch shape and rhs as many rows as matrix");
  ExpectInvalid(RunError(ls, {a32, Tensor(DT_FLOAT, TensorShape({3, 1})),
                              Tensor::Scalar<double>(-1)}),
                "l2_regularizer must be >= 0");
  ExpectInvalid(
      RunError(ls, {a32, Tensor(DT_FLOAT, TensorShape({3, 1})),
                    Tensor::FromVector<double>({0, 1}, TensorShape({2}))}),
      "l2_regularizer must be scalar");
  // Rank deficient without regularization: the Cholesky factor of A^T A
  // meets an exact 0 pivot (TensorFlow's raw op fails the same way; tf.linalg
  // .lstsq's fast path is a Python composite of Cholesky ops instead).
  ExpectInvalid(RunError(ls, {Floats({1, 1, 1, 1, 1, 1}, TensorShape({3, 2})),
                              Floats({1, 1, 1}, TensorShape({3, 1})),
                              Tensor::Scalar<double>(0)}),
                "Input matrix was rank deficient or ill-conditioned");
}

TEST(LinalgDecompOpsTest, BandedSolversRefuseBadInputs) {
  Scope root = Scope::NewRootScope();
  Output d = Ph(root, DT_FLOAT), r = Ph(root, DT_FLOAT);
  Output tri = ops::TridiagonalSolve(root, d, r);
  ExpectInvalid(RunError(tri, {Tensor(DT_FLOAT, TensorShape({2, 4})),
                               Tensor(DT_FLOAT, TensorShape({4, 1}))}),
                "Expected diagonals to be provided as a matrix with 3 rows");
  ExpectInvalid(RunError(tri, {Tensor(DT_FLOAT, TensorShape({3, 4})),
                               Tensor(DT_FLOAT, TensorShape({5, 1}))}),
                "as many equations (4) as right-hand-side rows");
  // perturb_singular needs partial_pivoting: the kernel is not built.
  Output perturb = ops::TridiagonalSolve(
      root, d, r,
      ops::TridiagonalSolveAttrs().PartialPivoting(false).PerturbSingular(
          true));
  ExpectInvalid(RunError(perturb, {Tensor(DT_FLOAT, TensorShape({3, 2})),
                                   Tensor(DT_FLOAT, TensorShape({2, 1}))}),
                "Setting perturb_singular requires also setting "
                "partial_pivoting");
  Output s = Ph(root, DT_FLOAT), m = Ph(root, DT_FLOAT), u = Ph(root, DT_FLOAT);
  ExpectInvalid(RunError(ops::TridiagonalMatMul(root, s, m, u, r),
                         {Tensor(DT_FLOAT, TensorShape({1, 3})),
                          Tensor(DT_FLOAT, TensorShape({1, 4})),
                          Tensor(DT_FLOAT, TensorShape({1, 4})),
                          Tensor(DT_FLOAT, TensorShape({4, 2}))}),
                "Invalid superdiag shape [1,3]");
  Output band = ops::BandedTriangularSolve(root, d, r);
  ExpectInvalid(
      RunError(band, {Floats({1, 0, 2, 1, 1, 1}, TensorShape({2, 3})),
                      Tensor(DT_FLOAT, TensorShape({3, 1}))}),
      "Input matrix is not invertible: matrix 0 of the batch has 0 at "
      "diagonal entry 1");
  ExpectInvalid(RunError(band, {Tensor(DT_FLOAT, TensorShape({4, 3})),
                                Tensor(DT_FLOAT, TensorShape({3, 1}))}),
                "Number of bands 4 cannot exceed the size of the matrix 3");
  ExpectInvalid(RunError(band, {Tensor(DT_FLOAT, TensorShape({0, 3})),
                                Tensor(DT_FLOAT, TensorShape({3, 1}))}),
                "must not be empty");
}

TEST(LinalgDecompOpsTest, SingularTridiagonalSystemsGiveNanAsTensorFlow) {
  Scope root = Scope::NewRootScope();
  Output d = Ph(root, DT_DOUBLE), r = Ph(root, DT_DOUBLE);
  // [[1, 1, 0], [1, 1, 0], [0, 1, 1]]: rows 0 and 1 equal, singular with
  // or without pivoting.
  const Tensor diags = Tensor::FromVector<double>({1, 0, 0, 1, 1, 1, 0, 1, 1},
                                                  TensorShape({3, 3}));
  const Tensor rhs = Tensor::FromVector<double>({1, 2, 3}, TensorShape({3, 1}));
  for (bool pivoting : {true, false}) {
    absl::StatusOr<std::vector<Tensor>> out = RunKernel(
        ops::TridiagonalSolve(
            root, d, r, ops::TridiagonalSolveAttrs().PartialPivoting(pivoting))
            .node(),
        {diags, rhs});
    ASSERT_TRUE(out.ok()) << out.status();
    for (int i = 0; i < 3; ++i) {
      EXPECT_TRUE(std::isnan((*out)[0].data<double>()[i])) << pivoting;
    }
  }
  // perturb_singular solves it anyway, with finite (large) values.
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(
      ops::TridiagonalSolve(root, d, r,
                            ops::TridiagonalSolveAttrs().PerturbSingular(true))
          .node(),
      {diags, rhs});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(std::isfinite((*out)[0].data<double>()[i]));
  }
}

}  // namespace
}  // namespace dflow
