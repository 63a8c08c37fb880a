// ResizeBicubic, ResizeBicubicGrad, ResizeArea, RGBToHSV, HSVToRGB,
// AdjustHue and AdjustSaturation on a graph TensorFlow 2.21 wrote, against
// TensorFlow's values
// (tools/tf_reference/make_image_resize_color_reference.py): bicubic up and
// down with legacy, align_corners and half-pixel sampling and the gradients
// tf.gradients writes through it, area resizing of float, uint8 and int32
// images, color conversions of float and double images (grays and pure
// primaries included) and hue and saturation adjustments. Then the bad
// inputs: each is an InvalidArgument saying what is wrong, never a crash.
#include <algorithm>
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

constexpr char kDir[] = "tests/testdata/tf_image_resize_color/";

using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

TEST(ImageResizeColorTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 35u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(kDir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  ASSERT_GE(fetched.size(), 34u);
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    // Weighted sums in float, summed in another order than TensorFlow's in
    // places: 1e-5 relative or absolute.
    const bool single = want.dtype == "float32";
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w =
          single ? static_cast<float>(want.values[i]) : want.values[i];
      const double tol = 1e-5 * std::max(1.0, std::abs(w));
      EXPECT_NEAR(Element(got, i), w, tol) << "element " << i;
    }
  }
}

// --- Bad inputs. ---

absl::Status RunError(const Output& out, const std::vector<Tensor>& in) {
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(out.node(), in);
  return r.status();
}

void ExpectInvalid(const absl::Status& s, const std::string& text) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(text));
}

TEST(ImageResizeColorTest, ResizeErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  Output size = ops::Placeholder(root, DT_INT32);
  const Tensor img(DT_FLOAT, TensorShape({1, 4, 4, 2}));
  for (const Output& op :
       {ops::ResizeBicubic(root, x, size), ops::ResizeArea(root, x, size)}) {
    ExpectInvalid(RunError(op, {img, Tensor::FromVector<int32_t>(
                                         {3, 0}, TensorShape({2}))}),
                  "size [3,0] must be positive");
    ExpectInvalid(RunError(op, {img, Tensor::FromVector<int32_t>(
                                         {3, 3, 3}, TensorShape({3}))}),
                  "size must be a vector of 2 values");
    ExpectInvalid(
        RunError(op, {Tensor(DT_FLOAT, TensorShape({4, 4, 2})),
                      Tensor::FromVector<int32_t>({2, 2}, TensorShape({2}))}),
        "images must be 4-D");
  }
  Output grad =
      ops::ResizeBicubicGrad(root, x, ops::Placeholder(root, DT_FLOAT));
  ExpectInvalid(
      RunError(grad, {Tensor(DT_FLOAT, TensorShape({1, 8, 8, 3})), img}),
      "must have the same batch and channels");
}

TEST(ImageResizeColorTest, ColorErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  Output d = ops::Placeholder(root, DT_FLOAT);
  ExpectInvalid(
      RunError(ops::RGBToHSV(root, x), {Tensor(DT_FLOAT, TensorShape({2, 4}))}),
      "3 channels in the last dimension");
  ExpectInvalid(
      RunError(ops::HSVToRGB(root, x), {Tensor(DT_FLOAT, TensorShape({0}))}),
      "3 channels");
  ExpectInvalid(RunError(ops::AdjustHue(root, x, d),
                         {Tensor(DT_FLOAT, TensorShape({2, 3})),
                          Tensor::FromVector<float>({0.1f}, TensorShape({}))}),
                "rank >= 3");
  ExpectInvalid(RunError(ops::AdjustSaturation(root, x, d),
                         {Tensor(DT_FLOAT, TensorShape({2, 2, 3})),
                          Tensor::FromVector<float>({1, 2}, TensorShape({2}))}),
                "scale must be a scalar");
}

}  // namespace
}  // namespace dflow
