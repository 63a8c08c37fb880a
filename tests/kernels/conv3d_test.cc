// Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 on a graph
// TensorFlow 2.21 wrote, against TensorFlow's values
// (tools/tf_reference/make_conv3d_reference.py): SAME and VALID, strides,
// dilations, a pointwise filter, float32 and float64,
// tf.nn.conv3d_transpose (int32 and int64 input sizes) and the gradients
// tf.gradients writes through Conv3D. Then a large convolution against a
// plain loop, and the bad inputs: each is an error saying what is wrong,
// never a crash.
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

constexpr char kDir[] = "tests/testdata/tf_conv3d/";

using testing_tf_values::DtypeOf;
using testing_tf_values::Element;
using testing_tf_values::Line;

TEST(Conv3DTest, TensorFlowsGraphGivesTensorFlowsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_GT(lines.size(), 25u);
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunGraph(kDir, lines, &fetched, &outputs);
  ASSERT_EQ(outputs.size(), fetched.size());
  ASSERT_GE(fetched.size(), 23u);
  for (size_t f = 0; f < fetched.size(); ++f) {
    const Line& want = *fetched[f];
    const Tensor& got = outputs[f];
    SCOPED_TRACE(want.name);
    ASSERT_EQ(got.dtype(), DtypeOf(want.dtype));
    EXPECT_EQ(got.shape(), TensorShape(want.shape));
    ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
    // Sums of up to a few hundred products in another order than
    // TensorFlow's (oneDNN): 1e-5 relative or absolute for float32 (inputs
    // in [-2, 2]; sums stay below ~50, so 1e-4 absolute there), 1e-12 for
    // float64.
    const bool single = want.dtype == "float32";
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const double w =
          single ? static_cast<float>(want.values[i]) : want.values[i];
      const double tol = (single ? 2e-5 : 1e-12) * std::max(1.0, std::abs(w));
      EXPECT_NEAR(Element(got, i), w, tol) << "element " << i;
    }
  }
}

// A plain 6-loop convolution for a shape larger than the im2col step.
TEST(Conv3DTest, LargeConvolutionMatchesPlainLoop) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT),
         w = ops::Placeholder(root, DT_FLOAT);
  const int64_t n = 1, d = 9, h = 20, wd = 20, c = 8, k = 3, oc = 5;
  std::vector<float> xv(n * d * h * wd * c), wv(k * k * k * c * oc);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = ((i * 7919) % 13) / 6.5f - 1;
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = ((i * 104729) % 11) / 5.5f - 1;
  Output y = ops::Conv3D(root, x, w, {1, 2, 1, 1, 1}, "SAME",
                         ops::Conv3DAttrs().Dilations({1, 1, 2, 1, 1}));
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(
      y.node(), {Tensor::FromVector<float>(xv, TensorShape({n, d, h, wd, c})),
                 Tensor::FromVector<float>(wv, TensorShape({k, k, k, c, oc}))});
  ASSERT_TRUE(r.ok()) << r.status();
  const Tensor& out = (*r)[0];
  const int64_t od = 5, oh = h, ow = wd;
  ASSERT_EQ(out.shape(), TensorShape({n, od, oh, ow, oc}));
  // SAME: depth pads 1 before (total 2), height (span 5) 2, width 1.
  const int64_t pad[3] = {1, 2, 1}, dil[3] = {1, 2, 1}, stride[3] = {2, 1, 1};
  for (int64_t a = 0; a < od; ++a) {
    for (int64_t b = 0; b < oh; b += 3) {
      for (int64_t e = 0; e < ow; e += 5) {
        for (int64_t o = 0; o < oc; ++o) {
          double sum = 0;
          for (int64_t i = 0; i < k; ++i) {
            for (int64_t j = 0; j < k; ++j) {
              for (int64_t l = 0; l < k; ++l) {
                const int64_t p0 = a * stride[0] - pad[0] + i * dil[0];
                const int64_t p1 = b * stride[1] - pad[1] + j * dil[1];
                const int64_t p2 = e * stride[2] - pad[2] + l * dil[2];
                if (p0 < 0 || p0 >= d || p1 < 0 || p1 >= h || p2 < 0 ||
                    p2 >= wd) {
                  continue;
                }
                for (int64_t q = 0; q < c; ++q) {
                  sum += xv[((p0 * h + p1) * wd + p2) * c + q] *
                         wv[(((i * k + j) * k + l) * c + q) * oc + o];
                }
              }
            }
          }
          const float got =
              out.data<float>()[(((a * oh) + b) * ow + e) * oc + o];
          EXPECT_NEAR(got, sum, 1e-4 * std::max(1.0, std::abs(sum)))
              << a << " " << b << " " << e << " " << o;
        }
      }
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

TEST(Conv3DTest, ShapeErrorsSayWhat) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root, DT_FLOAT),
         w = ops::Placeholder(root, DT_FLOAT),
         s = ops::Placeholder(root, DT_INT32);
  const std::vector<int64_t> ones = {1, 1, 1, 1, 1};
  const Tensor x5(DT_FLOAT, TensorShape({1, 4, 4, 4, 3}));
  const Tensor w5(DT_FLOAT, TensorShape({2, 2, 2, 3, 2}));
  ExpectInvalid(RunError(ops::Conv3D(root, x, w, ones, "VALID"),
                         {Tensor(DT_FLOAT, TensorShape({4, 4, 4, 3})), w5}),
                "input must be 5-D");
  ExpectInvalid(RunError(ops::Conv3D(root, x, w, ones, "VALID"),
                         {x5, Tensor(DT_FLOAT, TensorShape({2, 2, 2, 4, 2}))}),
                "has 3 channels but filter [2,2,2,4,2] expects 4");
  ExpectInvalid(RunError(ops::Conv3D(root, x, w, ones, "VALID"),
                         {x5, Tensor(DT_FLOAT, TensorShape({5, 2, 2, 3, 2}))}),
                "smaller than the dilated filter");
  Output dx = ops::Conv3DBackpropInputV2(root, s, w, x, ones, "VALID");
  ExpectInvalid(
      RunError(dx,
               {Tensor::FromVector<int32_t>({1, 4, 4, 4, 3}, TensorShape({5})),
                w5, Tensor(DT_FLOAT, TensorShape({1, 3, 3, 2, 2}))}),
      "out_backprop has shape [1,3,3,2,2] but the convolution of input "
      "[1,4,4,4,3] with filter [2,2,2,3,2] gives [1,3,3,3,2]");
  ExpectInvalid(
      RunError(dx, {Tensor::FromVector<int32_t>({1, 4, 4}, TensorShape({3})),
                    w5, Tensor(DT_FLOAT, TensorShape({1, 3, 3, 3, 2}))}),
      "input_sizes must be a vector of 5 sizes");
  Output dw = ops::Conv3DBackpropFilterV2(root, x, s, w, ones, "VALID");
  ExpectInvalid(RunError(dw, {x5,
                              Tensor::FromVector<int32_t>({2, 2, -2, 3, 2},
                                                          TensorShape({5})),
                              Tensor(DT_FLOAT, TensorShape({1, 3, 3, 3, 2}))}),
                "filter_sizes has a negative size -2 at 2");
}

}  // namespace
}  // namespace dflow
