// tf.image graphs written by TensorFlow 2.21 (tools/tf_reference/
// make_image_reference.py): ReverseV2 and its gradient, AdjustContrastv2,
// ResizeBilinear in its three sampling modes and its gradient
// (ResizeBilinearGrad), per_image_standardization, and the random
// augmentations of the CIFAR-10 seed (random_crop's RandomUniformInt,
// random_flip_left_right through Switch/Merge and through StatelessIf,
// random_brightness, random_contrast, and their chain in distorted_inputs).
// Each graph runs three times in one session, as TensorFlow ran it: the
// seeded random ops must continue TensorFlow's Philox streams, so every
// run's values must be TensorFlow's.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/npy.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/runtime/tf_reference_cases.h"

namespace dflow {
namespace {

constexpr char kDir[] = "tests/testdata/tf_images/";
constexpr int kRuns = 3;

Tensor ReadNpy(const std::string& path) {
  absl::StatusOr<Tensor> t = ReadNpyFile(path);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

double ValueAt(const Tensor& t, int64_t i) {
  return t.dtype() == DT_DOUBLE ? t.data<double>()[i] : t.data<float>()[i];
}

// Runs model `name` kRuns times and compares run k with TensorFlow's run k
// within `tolerance` relative to max(1, |value|); returns the largest
// difference seen.
double CheckModel(const std::string& name, double tolerance) {
  SCOPED_TRACE(name);
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(testing_tf::LoadGraph(kDir + name + ".pb"));
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return INFINITY;
  const Tensor x = ReadNpy(kDir + name + ".x.npy");
  const Tensor want = ReadNpy(kDir + name + ".out.npy");
  EXPECT_EQ(want.shape().dim(0), kRuns);
  const int64_t per_run = want.NumElements() / kRuns;
  double worst = 0;
  for (int run = 0; run < kRuns; ++run) {
    std::vector<Tensor> out;
    absl::Status s = (*session)->Run({{"x", x}}, {"out"}, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return INFINITY;
    EXPECT_EQ(out[0].dtype(), want.dtype());
    EXPECT_EQ(out[0].NumElements(), per_run);
    if (out[0].NumElements() != per_run || out[0].dtype() != want.dtype()) {
      return INFINITY;
    }
    for (int64_t i = 0; i < per_run; ++i) {
      const double w = ValueAt(want, run * per_run + i);
      const double got = ValueAt(out[0], i);
      const double diff = std::fabs(got - w) / std::max(1.0, std::fabs(w));
      worst = std::max(worst, diff);
      EXPECT_LE(diff, tolerance) << "run " << run << " element " << i
                                 << ": dflow " << got << ", TensorFlow " << w;
      if (diff > tolerance) return worst;
    }
  }
  return worst;
}

class TfImagesExactTest : public ::testing::TestWithParam<std::string> {};

// Data movement and integer draws: the same numbers exactly.
TEST_P(TfImagesExactTest, GivesTensorFlowsValuesExactly) {
  EXPECT_EQ(CheckModel(GetParam(), 0), 0);
}

INSTANTIATE_TEST_SUITE_P(Models, TfImagesExactTest,
                         ::testing::Values("reverse", "reverse_grad", "flip",
                                           "flip_v2", "crop", "uniform_int32",
                                           "uniform_int64"));

class TfImagesTest : public ::testing::TestWithParam<std::string> {};

// Float arithmetic: TensorFlow's formulas in its order; 1e-5 leaves room
// for a compiler's fused multiply-adds on either side.
TEST_P(TfImagesTest, GivesTensorFlowsValuesWithin1e5) {
  const double worst = CheckModel(GetParam(), 1e-5);
  std::cout << GetParam() << ": largest relative difference " << worst << "\n";
}

INSTANTIATE_TEST_SUITE_P(
    Models, TfImagesTest,
    ::testing::Values("adjust_contrast", "standardize", "brightness",
                      "contrast", "distort", "resize_legacy_up",
                      "resize_legacy_down", "resize_align_corners_up",
                      "resize_align_corners_down", "resize_half_pixel_up",
                      "resize_half_pixel_down", "resize_grad_legacy",
                      "resize_grad_align_corners", "resize_grad_half_pixel"));

}  // namespace
}  // namespace dflow
