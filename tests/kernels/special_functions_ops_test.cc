// The special functions (Igamma, Igammac, IgammaGradA, RandomGammaGrad,
// Betainc, Zeta, Polygamma, the Bessel functions, Dawsn, Expint, the
// Fresnel integrals, Spence) and the counting and bit ops
// (CumulativeLogsumexp, PopulationCount, Bitcast, Bincount, DenseBincount,
// HistogramFixedWidth) on graphs TensorFlow 2.21 wrote
// (tools/tf_reference/make_special_functions_reference.py), with the
// gradients it writes through them, against its values. Then the bad
// inputs: each an InvalidArgument saying what is wrong.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

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

// Every fetch of `dir` against TensorFlow's value: integers exactly,
// floats within `rel32` / `rel64` of |want| (plus `abs` near 0), NaN and
// infinities exactly.
void CompareWithTensorFlow(const std::string& dir, size_t min_lines,
                           double rel32, double rel64, double abs) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(dir + "cases.txt");
  EXPECT_GT(lines.size(), min_lines);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(dir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    const bool single = want.dtype == "float32";
    const bool floating = single || want.dtype == "float64";
    const double rel = single ? rel32 : rel64;
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
        EXPECT_NEAR(g, w, rel * std::fabs(w) + abs) << "element " << i;
      }
    }
  }
}

TEST(SpecialFunctionsOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  // Eigen 3.4.0's special functions against the later Eigen TensorFlow
  // builds with, and std::exp/log against Eigen's vectorized ones: a few
  // float ulps (measured: within 3e-7, 2e-6 for the Bessel gradients), and
  // rounding-level differences in double (within 1e-15).
  CompareWithTensorFlow("tests/testdata/tf_special_functions/", 50, 5e-6, 1e-13,
                        1e-30);
}

TEST(SpecialFunctionsOpsTest, CountingAndBitOpsGiveTensorFlowsValues) {
  CompareWithTensorFlow("tests/testdata/tf_count_bits/", 40, 2e-6, 1e-14,
                        1e-30);
}

// --- Bad inputs. ---

Output Ph(const Scope& s, DataType dtype) { return ops::Placeholder(s, dtype); }

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(out.node(), in);
  return r.status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

TEST(SpecialFunctionsOpsTest, SpecialFunctionsRefuseBadShapes) {
  Scope root = Scope::NewRootScope();
  Output a = Ph(root, DT_FLOAT), b = Ph(root, DT_FLOAT), x = Ph(root, DT_FLOAT);
  ExpectInvalid(
      RunError(ops::Igamma(root, a, x), {Tensor(DT_FLOAT, TensorShape({3})),
                                         Tensor(DT_FLOAT, TensorShape({2}))}),
      "Incompatible shapes: [3] vs. [2]");
  ExpectInvalid(
      RunError(ops::Betainc(root, a, b, x),
               {Tensor(DT_FLOAT, TensorShape({3})), Tensor::Scalar<float>(1),
                Tensor(DT_FLOAT, TensorShape({2}))}),
      "Shapes of x [2] and of the other inputs [3] are "
      "inconsistent");
  // Integers are not among their types: the graph is refused when built.
  Scope bad = Scope::NewRootScope();
  ops::SpecialUnary(bad, "BesselJ0", ops::Const(bad, {1, 2}));
  EXPECT_THAT(bad.status().ToString(), HasSubstr("int32"));
}

TEST(SpecialFunctionsOpsTest, CountingOpsRefuseBadInputs) {
  Scope root = Scope::NewRootScope();
  Output arr = Ph(root, DT_INT32), size = Ph(root, DT_INT32),
         w = Ph(root, DT_FLOAT);
  const Tensor values = Tensor::FromVector<int32_t>({1, -2, 3});
  const Tensor none(DT_FLOAT, TensorShape({0}));
  Output bincount = ops::Bincount(root, arr, size, w);
  ExpectInvalid(RunError(bincount, {values, Tensor::Scalar<int32_t>(4), none}),
                "Input arr must be non-negative! Got -2 at index 1");
  ExpectInvalid(RunError(bincount, {Tensor::FromVector<int32_t>({1, 2}),
                                    Tensor::Scalar<int32_t>(-1), none}),
                "size (-1) must be non-negative");
  ExpectInvalid(RunError(bincount, {Tensor::FromVector<int32_t>({1, 2}),
                                    Tensor::Scalar<int32_t>(4),
                                    Tensor::FromVector<float>({1, 2, 3})}),
                "Input arr and weights should have the same shape");
  Output dense = ops::DenseBincount(root, arr, size, w);
  ExpectInvalid(RunError(dense, {Tensor(DT_INT32, TensorShape({2, 2, 2})),
                                 Tensor::Scalar<int32_t>(4), none}),
                "Shape must be at most rank 2 but is rank 3");
  Output v = Ph(root, DT_FLOAT), range = Ph(root, DT_FLOAT),
         nbins = Ph(root, DT_INT32);
  Output hist = ops::HistogramFixedWidth(root, v, range, nbins);
  const Tensor data = Tensor::FromVector<float>({0.5f, 1.5f});
  ExpectInvalid(RunError(hist, {data, Tensor::FromVector<float>({2, 1}),
                                Tensor::Scalar<int32_t>(3)}),
                "value_range should satisfy value_range[0] < value_range[1]");
  ExpectInvalid(RunError(hist, {data, Tensor::FromVector<float>({0, 1}),
                                Tensor::Scalar<int32_t>(0)}),
                "nbins should be a positive number, but got '0'");
  ExpectInvalid(RunError(hist, {Tensor::FromVector<float>({0.5f, NAN}),
                                Tensor::FromVector<float>({0, 1}),
                                Tensor::Scalar<int32_t>(3)}),
                "Histogram values must not contain NaN");
  Output scan_axis = Ph(root, DT_INT32);
  ExpectInvalid(RunError(ops::CumulativeLogsumexp(root, v, scan_axis),
                         {data, Tensor::Scalar<int32_t>(1)}),
                "Expected scan axis in the range [-1, 1), but got 1");
  // A wider type needs its last dimension to hold one element's bytes.
  Output bytes = Ph(root, DT_UINT8);
  ExpectInvalid(RunError(ops::Bitcast(root, bytes, DT_INT32),
                         {Tensor(DT_UINT8, TensorShape({2, 3}))}),
                "the last dimension must be 4");
}

}  // namespace
}  // namespace dflow
