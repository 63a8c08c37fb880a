// UniqueWithCounts, Erfinv, Ndtri, EuclideanNorm, Diag, DiagPart,
// LowerBound/UpperBound, Bucketize, half and bfloat16 FusedBatchNormV3,
// Print and uint8/uint16/int8 arithmetic
// (tf.image.convert_image_dtype) on a graph TensorFlow 2.21 wrote, against
// TensorFlow's values (tools/tf_reference/make_misc_ops_reference.py); then
// their bad inputs, each an InvalidArgument saying what is wrong.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_value_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr char kDir[] = "tests/testdata/tf_misc_ops/";

using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

TEST(MiscOpsTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 30u);
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
    // Norms sum in another order than TensorFlow's; the rest is exact.
    const double rel = want.dtype == "float32"   ? 1e-6
                       : want.dtype == "float64" ? 1e-14
                                                 : 0;
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w = want.values[i];
      EXPECT_NEAR(Element(got, i), w, rel * std::max(1.0, std::fabs(w)))
          << "element " << i;
    }
  }
}

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  return RunKernel(out.node(), in).status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

TEST(MiscOpsTest, BadInputsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  Output y = ops::Placeholder(root, DT_FLOAT);
  ExpectInvalid(
      RunError(ops::DiagPart(root, x), {Tensor(DT_FLOAT, TensorShape({2, 3}))}),
      "DiagPart needs an input shaped [d..., d...]");
  ExpectInvalid(RunError(ops::Diag(root, x), {Tensor::Scalar<float>(1)}),
                "Diag needs a diagonal of rank >= 1");
  ExpectInvalid(RunError(ops::LowerBound(root, x, y),
                         {Tensor(DT_FLOAT, TensorShape({2, 3})),
                          Tensor(DT_FLOAT, TensorShape({3, 3}))}),
                "must have one rank >= 1 and equal leading dimensions");
  ExpectInvalid(RunError(ops::Bucketize(root, x, {1.0f, 0.5f}),
                         {Tensor::FromVector<float>({1.0f})}),
                "boundaries must be sorted ascending");
  ExpectInvalid(RunError(ops::UniqueWithCounts(root, x).y,
                         {Tensor(DT_FLOAT, TensorShape({2, 2}))}),
                "unique expects a 1D vector");
  ExpectInvalid(
      RunError(ops::EuclideanNorm(root, x, ops::Placeholder(root, DT_INT32)),
               {Tensor(DT_FLOAT, TensorShape({2, 2})),
                Tensor::FromVector<int32_t>({2})}),
      "Invalid reduction dimension (2 for input with 2 dimension(s))");
}

}  // namespace
}  // namespace dflow
