// CropAndResize, CropAndResizeGradImage and ExtractImagePatches on a graph
// TensorFlow 2.21 wrote, against TensorFlow's values
// (tools/tf_reference/make_image_crop_patches_reference.py): bilinear and
// nearest crops of boxes inside, across and outside the image, flipped
// and one-pixel crops, the image gradient tf.gradients writes, and patches
// with strides, rates and SAME/VALID padding of float, double and int32
// images. Then the bad inputs: each is an InvalidArgument saying what is
// wrong, never a crash.
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

constexpr char kDir[] = "tests/testdata/tf_image_crop_patches/";

using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

TEST(ImageCropPatchesTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 18u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(kDir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  ASSERT_GE(fetched.size(), 17u);
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    // Interpolations in float as TensorFlow's, gradients summed in another
    // order in places: 1e-5 relative or absolute; moved patches exactly.
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

TEST(ImageCropPatchesTest, CropErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  Output boxes = ops::Placeholder(root, DT_FLOAT);
  Output ind = ops::Placeholder(root, DT_INT32);
  Output size = ops::Placeholder(root, DT_INT32);
  Output crop = ops::CropAndResize(root, x, boxes, ind, size);
  const Tensor img(DT_FLOAT, TensorShape({2, 4, 4, 1}));
  const Tensor box =
      Tensor::FromVector<float>({0, 0, 1, 1}, TensorShape({1, 4}));
  const Tensor s22 = Tensor::FromVector<int32_t>({2, 2}, TensorShape({2}));
  ExpectInvalid(
      RunError(crop, {img, box,
                      Tensor::FromVector<int32_t>({2}, TensorShape({1})), s22}),
      "box_ind[0] = 2 is not in [0, 2)");
  ExpectInvalid(
      RunError(crop, {img, Tensor(DT_FLOAT, TensorShape({1, 3})),
                      Tensor::FromVector<int32_t>({0}, TensorShape({1})), s22}),
      "boxes must be [num_boxes, 4]");
  ExpectInvalid(
      RunError(crop,
               {img, box, Tensor::FromVector<int32_t>({0, 1}, TensorShape({2})),
                s22}),
      "box_ind must be a vector of the 1 boxes' images");
  ExpectInvalid(
      RunError(crop,
               {img, box, Tensor::FromVector<int32_t>({0}, TensorShape({1})),
                Tensor::FromVector<int32_t>({0, 2}, TensorShape({2}))}),
      "crop_size [0,2] must be positive");
  Output g = ops::Placeholder(root, DT_FLOAT);
  Output grad =
      ops::CropAndResizeGradImage(root, g, boxes, ind, size, DT_FLOAT);
  ExpectInvalid(
      RunError(grad,
               {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 3})), box,
                Tensor::FromVector<int32_t>({0}, TensorShape({1})),
                Tensor::FromVector<int32_t>({2, 4, 4, 1}, TensorShape({4}))}),
      "and the image's 1 channels");
  ExpectInvalid(
      RunError(grad, {Tensor(DT_FLOAT, TensorShape({1, 2, 2, 1})), box,
                      Tensor::FromVector<int32_t>({0}, TensorShape({1})), s22}),
      "image_size must be a vector of 4 sizes");
}

TEST(ImageCropPatchesTest, PatchErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT);
  ExpectInvalid(
      RunError(ops::ExtractImagePatches(root, x, {1, 3, 3, 1}, {1, 1, 1, 1},
                                        {1, 2, 2, 1}, "VALID"),
               {Tensor(DT_FLOAT, TensorShape({1, 4, 8, 1}))}),
      "smaller than the dilated patch (5) in dimension 1");
  ExpectInvalid(
      RunError(ops::ExtractImagePatches(root, x, {1, 2, 2, 1}, {1, 1, 1, 1},
                                        {1, 1, 1, 1}, "SAME"),
               {Tensor(DT_FLOAT, TensorShape({4, 8, 1}))}),
      "images must be 4-D");
}

}  // namespace
}  // namespace dflow
