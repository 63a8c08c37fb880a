// SpaceToDepth, DepthToSpace, MaxPoolWithArgmax, MaxPoolGradWithArgmax,
// MaxPool3D, AvgPool3D, MaxPool3DGrad and AvgPool3DGrad on a graph
// TensorFlow 2.21 wrote, against TensorFlow's values
// (tools/tf_reference/make_space_depth_pooling_reference.py): block sizes
// 2 and 3, float, double, int32 and int64, the gradients tf.gradients
// writes through them, SAME/VALID argmax pooling with and without the batch
// in the index, int32 and int64 argmax, and equal maxima (the first wins);
// 3-D max and mean pooling, SAME and VALID, with their gradients.
// Then NCHW against NHWC, and the bad inputs: each is an error saying what
// is wrong, never a crash.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
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

constexpr char kDir[] = "tests/testdata/tf_space_depth_pooling/";

using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

TEST(SpaceDepthPoolingTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 30u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(kDir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  ASSERT_GE(fetched.size(), 24u);
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    // Moves, maxima and integers are exact; means and gradients (sums over
    // overlapping windows) round in another order: 1e-5 relative or
    // absolute.
    const bool single = want.dtype == "float32";
    const bool exact = absl::StrContains(want.name, "S2D") ||
                       absl::StrContains(want.name, "D2S") ||
                       (absl::StrContains(want.name, "Max") &&
                        !absl::EndsWith(want.name, "_grad")) ||
                       !absl::StartsWith(want.dtype, "float");
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w =
          single ? static_cast<float>(want.values[i]) : want.values[i];
      const double tol = exact ? 0.0 : 1e-5 * std::max(1.0, std::abs(w));
      EXPECT_NEAR(Element(got, i), w, tol) << "element " << i;
    }
  }
}

// --- NCHW, which TensorFlow's CPU kernels refuse: the NHWC result moved. ---

TEST(SpaceDepthPoolingTest, NchwMatchesNhwcTransposed) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  std::vector<float> v(2 * 3 * 4 * 6);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) - 7.5f;
  const Tensor nchw = Tensor::FromVector<float>(v, TensorShape({2, 3, 4, 6}));
  Output to_nhwc = ops::Transpose(root, x, {0, 2, 3, 1});
  Output nhwc_s2d = ops::SpaceToDepth(root, to_nhwc, 2);
  ops::Transpose(root.WithOpName("want"), nhwc_s2d, {0, 3, 1, 2});
  Output got = ops::SpaceToDepth(root.WithOpName("got"), x, 2, "NCHW");
  ops::DepthToSpace(root.WithOpName("back"), got, 2, "NCHW");
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  const absl::Status s =
      session->Run({{"x", nchw}}, {"want", "got", "back"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 3u);
  ASSERT_EQ(out[1].shape(), TensorShape({2, 12, 2, 3}));
  ASSERT_EQ(out[0].shape(), out[1].shape());
  for (int64_t i = 0; i < out[0].NumElements(); ++i) {
    EXPECT_EQ(out[1].data<float>()[i], out[0].data<float>()[i]) << i;
  }
  ASSERT_EQ(out[2].shape(), nchw.shape());
  for (int64_t i = 0; i < nchw.NumElements(); ++i) {
    EXPECT_EQ(out[2].data<float>()[i], v[i]) << i;
  }
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

TEST(SpaceDepthPoolingTest, SpaceDepthShapeErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT);
  ExpectInvalid(RunError(ops::SpaceToDepth(root, x, 2),
                         {Tensor(DT_FLOAT, TensorShape({1, 4, 5, 3}))}),
                "must be divisible by block_size 2");
  ExpectInvalid(RunError(ops::SpaceToDepth(root, x, 2),
                         {Tensor(DT_FLOAT, TensorShape({4, 4, 3}))}),
                "input must be 4-D");
  ExpectInvalid(RunError(ops::DepthToSpace(root, x, 2),
                         {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 6}))}),
                "must be divisible by block_size * block_size = 4");
}

TEST(SpaceDepthPoolingTest, ArgmaxPoolingErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = Ph(root, DT_FLOAT), g = Ph(root, DT_FLOAT), a = Ph(root, DT_INT64);
  ExpectInvalid(RunError(ops::MaxPoolWithArgmax(root, x, {1, 3, 3, 1},
                                                {1, 1, 1, 1}, "VALID")
                             .output,
                         {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1}))}),
                "input [1,2,2,1]");
  ExpectInvalid(RunError(ops::MaxPoolWithArgmax(root, x, {1, 2, 2, 1},
                                                {1, 2, 2, 1}, "SAME")
                             .output,
                         {Tensor(DT_FLOAT, TensorShape({2, 2, 1}))}),
                "input must be 4-D");
  Output grad = ops::MaxPoolGradWithArgmax(root, x, g, a, {1, 2, 2, 1},
                                           {1, 2, 2, 1}, "VALID");
  const Tensor in(DT_FLOAT, TensorShape({1, 4, 4, 1}));
  const Tensor g22 =
      Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({1, 2, 2, 1}));
  ExpectInvalid(RunError(grad, {in, g22,
                                Tensor::FromVector<int64_t>(
                                    {0, 3, 16, 9}, TensorShape({1, 2, 2, 1}))}),
                "argmax[2] = 16 is outside [0, 16)");
  ExpectInvalid(RunError(grad, {in, Tensor(DT_FLOAT, TensorShape({1, 3, 2, 1})),
                                Tensor(DT_INT64, TensorShape({1, 2, 2, 1}))}),
                "grad must have the pooled shape [1,2,2,1]");
  ExpectInvalid(
      RunError(grad, {in, g22, Tensor(DT_INT64, TensorShape({1, 2, 1, 1}))}),
      "argmax must have the pooled shape");
}

}  // namespace
}  // namespace dflow
