// TruncateDiv/Mod, Xdivy, Xlogy, Xlog1py, Atan2, ApproximateEqual,
// tf.bitwise, MatrixBandPart, MatrixSetDiagV3 and bands of diagonals,
// Cross, CheckNumerics, BiasAddV1 and the batched linear algebra on a graph
// TensorFlow 2.21 wrote, against TensorFlow's values
// (tools/tf_reference/make_math_ops_more_reference.py): every sign for the
// truncating ops, zeros for the x * f(y) forms, clamped shift amounts and
// the narrow integer types, bands and alignments of diagonals, broadcast
// batches, and the gradients TensorFlow writes through them. Then the bad
// inputs: each is an InvalidArgument saying what is wrong, never a crash.
#include <cmath>
#include <cstdint>
#include <limits>
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

constexpr char kDir[] = "tests/testdata/tf_math_ops_more/";

using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

TEST(MathOpsMoreTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 100u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(kDir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    // Integers and bools exactly. Floats within 1e-5 relative (absolute
    // near 0): decompositions and sums may round in another order than
    // TensorFlow's, and std::log/atan2 may differ from Eigen's in the last
    // bit. %.9g round-trips a float, so rounding back gives TF's value.
    const bool single = want.dtype == "float32";
    const bool floating = single || want.dtype == "float64";
    const double tol = single ? 1e-5 : 1e-10;
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w =
          single ? static_cast<float>(want.values[i]) : want.values[i];
      const double g = Element(got, i);
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
}

// --- Bad inputs. ---

Output Ph(const Scope& s, DataType dtype) { return ops::Placeholder(s, dtype); }

template <typename T>
Tensor Vec(const std::vector<T>& v, TensorShape shape) {
  return Tensor::FromVector<T>(v, shape);
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(out.node(), in);
  return r.status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

TEST(MathOpsMoreTest, BinaryOpsRefuseBadInputs) {
  Scope root = Scope::NewRootScope();
  Output i = Ph(root, DT_INT32), j = Ph(root, DT_INT32);
  const Tensor num = Vec<int32_t>({7, 8, 9}, TensorShape({3}));
  const Tensor den = Vec<int32_t>({1, 0, 3}, TensorShape({3}));
  ExpectInvalid(RunError(ops::TruncateDiv(root, i, j), {num, den}),
                "Integer division by zero: y[1] is 0");
  ExpectInvalid(RunError(ops::TruncateMod(root, i, j), {num, den}),
                "Integer division by zero");
  ExpectInvalid(RunError(ops::TruncateDiv(root, i, j),
                         {num, Vec<int32_t>({1, 2}, TensorShape({2}))}),
                "Incompatible shapes: [3] vs. [2]");
  Output x = Ph(root, DT_FLOAT), y = Ph(root, DT_FLOAT);
  ExpectInvalid(RunError(ops::ApproximateEqual(root, x, y),
                         {Tensor(DT_FLOAT, TensorShape({2, 3})),
                          Tensor(DT_FLOAT, TensorShape({3}))}),
                "x and y must be of the same shape. x shape: [2,3]. y shape: "
                "[3]");
  ExpectInvalid(
      RunError(ops::Xlogy(root, x, y), {Tensor(DT_FLOAT, TensorShape({2, 3})),
                                        Tensor(DT_FLOAT, TensorShape({2}))}),
      "Incompatible shapes");
}

TEST(MathOpsMoreTest, ShiftsClampTheirAmountAndKeepTheSign) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_INT64), s = Ph(root, DT_INT64);
  const Tensor values = Vec<int64_t>({1, -8, 3, -1}, TensorShape({4}));
  const Tensor shifts = Vec<int64_t>({64, 2, -5, 100}, TensorShape({4}));
  absl::StatusOr<std::vector<Tensor>> left =
      RunKernel(ops::LeftShift(root, x, s).node(), {values, shifts});
  ASSERT_TRUE(left.ok()) << left.status();
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Values<int64_t>((*left)[0]),
            (std::vector<int64_t>{kMin, -32, 3, kMin}));
  absl::StatusOr<std::vector<Tensor>> right =
      RunKernel(ops::RightShift(root, x, s).node(), {values, shifts});
  ASSERT_TRUE(right.ok()) << right.status();
  EXPECT_EQ(Values<int64_t>((*right)[0]), (std::vector<int64_t>{0, -2, 3, -1}));
}

TEST(MathOpsMoreTest, MatrixBandAndDiagonalErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output m = Ph(root, DT_FLOAT), lo = Ph(root, DT_INT64),
         hi = Ph(root, DT_INT64);
  const Tensor m34(DT_FLOAT, TensorShape({3, 4}));
  Output band = ops::MatrixBandPart(root, m, lo, hi);
  ExpectInvalid(RunError(band, {m34, Tensor::Scalar<int64_t>(4),
                                Tensor::Scalar<int64_t>(0)}),
                "num_lower must be negative or less or equal to number of "
                "rows (3) got: 4");
  ExpectInvalid(RunError(band, {m34, Tensor::Scalar<int64_t>(0),
                                Vec<int64_t>({1, 2}, TensorShape({2}))}),
                "num_upper must be scalar");
  ExpectInvalid(
      RunError(band, {Tensor(DT_FLOAT, TensorShape({4})),
                      Tensor::Scalar<int64_t>(0), Tensor::Scalar<int64_t>(0)}),
      "input must be at least 2-dim");

  Output d = Ph(root, DT_FLOAT), k = Ph(root, DT_INT32);
  Output set_diag = ops::MatrixSetDiagV3(root, m, d, k);
  ExpectInvalid(RunError(set_diag, {m34, Tensor(DT_FLOAT, TensorShape({4})),
                                    Tensor::Scalar<int32_t>(0)}),
                "diagonal must have shape [3]");
  ExpectInvalid(RunError(set_diag, {m34, Tensor(DT_FLOAT, TensorShape({3})),
                                    Vec<int32_t>({1, -1}, TensorShape({2}))}),
                "lower_diag_index must not be greater than upper_diag_index");
  ExpectInvalid(RunError(set_diag, {m34, Tensor(DT_FLOAT, TensorShape({1})),
                                    Tensor::Scalar<int32_t>(4)}),
                "diag_index [4, 4] is outside the 3x4 matrices' diagonals");
  Output part = ops::MatrixDiagPartV3(root, m, k, 0.0f);
  ExpectInvalid(RunError(part, {m34, Vec<int32_t>({-3, 0}, TensorShape({2})),
                                Tensor::Scalar<float>(0)}),
                "outside the 3x4 matrices' diagonals");
  ExpectInvalid(RunError(part, {m34, Tensor::Scalar<int32_t>(0),
                                Tensor(DT_FLOAT, TensorShape({2}))}),
                "padding_value must be a scalar, got shape [2]");
  Output rows = Ph(root, DT_INT32), cols = Ph(root, DT_INT32),
         pad = Ph(root, DT_FLOAT);
  ExpectInvalid(
      RunError(ops::MatrixDiagV3(root, d, k, rows, cols, pad),
               {Tensor(DT_FLOAT, TensorShape({3})), Tensor::Scalar<int32_t>(0),
                Tensor(DT_INT32, TensorShape({0})), Tensor::Scalar<int32_t>(-1),
                Tensor::Scalar<float>(0)}),
      "num_rows must be a scalar, got shape [0]");
}

TEST(MathOpsMoreTest, CrossAndBiasAddV1ErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output a = Ph(root, DT_FLOAT), b = Ph(root, DT_FLOAT);
  ExpectInvalid(
      RunError(ops::Cross(root, a, b), {Tensor(DT_FLOAT, TensorShape({2, 4})),
                                        Tensor(DT_FLOAT, TensorShape({2, 4}))}),
      "Cross-products are only defined for 3-element vectors");
  ExpectInvalid(
      RunError(ops::Cross(root, a, b), {Tensor(DT_FLOAT, TensorShape({2, 3})),
                                        Tensor(DT_FLOAT, TensorShape({3, 3}))}),
      "Both inputs must be of same shape: [2,3] vs. [3,3]");
  ExpectInvalid(RunError(ops::BiasAddV1(root, a, b),
                         {Tensor(DT_FLOAT, TensorShape({2, 4})),
                          Tensor(DT_FLOAT, TensorShape({3}))}),
                "Must provide as many biases as the channel dimension");
}

TEST(MathOpsMoreTest, CheckNumericsNamesTheNodeAndWhatItFound) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::CheckNumerics(root.WithOpName("loss_check"), x, "loss is bad");
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (const auto& [values, what] :
       std::vector<std::pair<std::vector<float>, std::string>>{
           {{1, nan, 2}, "loss is bad : Tensor had NaN values"},
           {{inf, 1, 2}, "loss is bad : Tensor had Inf values"},
           {{-inf, nan, 2}, "loss is bad : Tensor had Inf and NaN values"}}) {
    std::vector<Tensor> out;
    const absl::Status s =
        session->Run({{"x", Vec<float>(values, TensorShape({3}))}},
                     {"loss_check"}, {}, &out);
    ExpectInvalid(s, what);
    EXPECT_THAT(std::string(s.message()), HasSubstr("loss_check"));
    EXPECT_THAT(std::string(s.message()), HasSubstr("CheckNumerics"));
  }
  // A long tensor, finite but for its last element.
  std::vector<float> many(10000, 1.5f);
  many.back() = inf;
  std::vector<Tensor> out;
  ExpectInvalid(session->Run({{"x", Vec<float>(many, TensorShape({10000}))}},
                             {"loss_check"}, {}, &out),
                "loss is bad : Tensor had Inf values");
  ASSERT_TRUE(session
                  ->Run({{"x", Vec<float>({1, 2, 3}, TensorShape({3}))}},
                        {"loss_check"}, {}, &out)
                  .ok());
  EXPECT_EQ(Values<float>(out[0]), (std::vector<float>{1, 2, 3}));
}

TEST(MathOpsMoreTest, LinearAlgebraRefusesSingularAndMisshapedInputs) {
  Scope root = Scope::NewRootScope();
  Output m = Ph(root, DT_FLOAT), r = Ph(root, DT_FLOAT);
  // Batch of two: the second matrix is singular / not positive definite.
  const Tensor two =
      Vec<float>({2, 0, 0, 2, 1, 2, 2, 4}, TensorShape({2, 2, 2}));
  const Tensor rhs(DT_FLOAT, TensorShape({2, 2, 1}));
  ExpectInvalid(RunError(ops::Cholesky(root, m), {two}),
                "Cholesky decomposition was not successful: matrix 1");
  ExpectInvalid(RunError(ops::MatrixInverse(root, m), {two}),
                "Input is not invertible: matrix 1");
  ExpectInvalid(RunError(ops::MatrixSolve(root, m, r), {two, rhs}),
                "Input matrix is not invertible: matrix 1");
  ExpectInvalid(RunError(ops::MatrixInverse(root, m),
                         {Tensor(DT_FLOAT, TensorShape({2, 3}))}),
                "input must be square matrices, got shape [2,3]");
  ExpectInvalid(RunError(ops::MatrixDeterminant(root, m),
                         {Tensor(DT_FLOAT, TensorShape({3}))}),
                "input must have rank >= 2");
  ExpectInvalid(RunError(ops::MatrixSolve(root, m, r),
                         {two, Tensor(DT_FLOAT, TensorShape({2, 3, 1}))}),
                "Input matrix and rhs are incompatible");
  ExpectInvalid(RunError(ops::MatrixTriangularSolve(root, m, r),
                         {two, Tensor(DT_FLOAT, TensorShape({3, 2, 1}))}),
                "Incompatible shapes: [2] vs. [3]");
  ExpectInvalid(RunError(ops::MatrixTriangularSolve(root, m, r),
                         {two, Tensor(DT_FLOAT, TensorShape({2, 3, 1}))}),
                "Input matrix and rhs are incompatible");
  // A singular matrix has determinant 0: sign 0, log|det| -inf.
  absl::StatusOr<std::vector<Tensor>> det =
      RunKernel(ops::MatrixDeterminant(root, m).node(), {two});
  ASSERT_TRUE(det.ok()) << det.status();
  EXPECT_EQ(Values<float>((*det)[0]), (std::vector<float>{4, 0}));
  ops::LogMatrixDeterminantOutputs slog = ops::LogMatrixDeterminant(root, m);
  absl::StatusOr<std::vector<Tensor>> logdet =
      RunKernel(slog.sign.node(), {two});
  ASSERT_TRUE(logdet.ok()) << logdet.status();
  EXPECT_EQ(Values<float>((*logdet)[0]), (std::vector<float>{1, 0}));
  EXPECT_FLOAT_EQ((*logdet)[1].data<float>()[0], std::log(4.0f));
  EXPECT_EQ((*logdet)[1].data<float>()[1],
            -std::numeric_limits<float>::infinity());
}

}  // namespace
}  // namespace dflow
