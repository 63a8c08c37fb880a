// The element-wise ops of graph/ops/math_ops_special.cc and
// graph/ops/nn_ops_activations.cc on a graph TensorFlow 2.21 wrote, against
// TensorFlow's values (tools/tf_reference/make_special_math_reference.py):
// every op over its domain, halves for the rounding ops, NaN and infinities
// for the predicates and Sign, Softplus past both of its thresholds, the
// most negative int32 for Abs, and float64, float16 and int32 kernels.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

constexpr char kDir[] = "tests/testdata/tf_special_math/";

using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

TEST(SpecialMathOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 40u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(kDir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype)) << want.dtype;
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    // float32 within a few ulps of TensorFlow's (libm and Eigen differ in
    // the last bit for some functions), float16 results (cast to float32 in
    // the graph) within one half-precision ulp (TensorFlow rounds some
    // intermediate steps to half, dflow only the result), the rest to 1e-12.
    const bool half = absl::EndsWith(want.name, "_f16");
    const double rel = half ? 1e-3 : want.dtype == "float32" ? 2e-6 : 1e-12;
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w = want.values[i], g = Element(got, i);
      if (std::isnan(w)) {
        EXPECT_TRUE(std::isnan(g)) << "element " << i;
      } else if (std::isinf(w)) {
        EXPECT_EQ(g, w) << "element " << i;
      } else {
        EXPECT_NEAR(g, w, rel * std::fabs(w) + 1e-30) << "element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace dflow
