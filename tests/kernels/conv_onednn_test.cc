// The oneDNN convolution path (kernels/cpu/conv_ops_onednn.h) called
// directly: which geometries it takes, each pass against a double
// reference with the batch split over 1, 2 and 3 threads, and the same
// bits on every run.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/cpu/conv_ops_common.h"
#include "kernels/cpu/conv_ops_onednn.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace conv {
namespace {

ConvGeometry Geometry(int64_t batch, int64_t rows, int64_t cols, int64_t depth,
                      int64_t fr, int64_t fc, int64_t out_depth, int64_t stride,
                      int64_t dilation, int64_t pad_top, int64_t pad_left,
                      int64_t out_rows, int64_t out_cols) {
  ConvGeometry g;
  g.batch = batch;
  g.in_rows = rows;
  g.in_cols = cols;
  g.in_depth = depth;
  g.filter_rows = fr;
  g.filter_cols = fc;
  g.filter_depth = depth;
  g.out_depth = out_depth;
  g.stride_rows = g.stride_cols = stride;
  g.dilation_rows = g.dilation_cols = dilation;
  g.pad_top = pad_top;
  g.pad_left = pad_left;
  g.out_rows = out_rows;
  g.out_cols = out_cols;
  return g;
}

std::vector<float> Values(int64_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 7;
  for (float& f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(x >> 8) / static_cast<float>(1 << 24) - 0.5f;
  }
  return v;
}

// Calls `visit(n, oh, ow, kh, kw, input index or -1, filter index)` for
// every multiply-add of the convolution, output index n*..+oh*..+ow*..
template <typename F>
void ForEachTap(const ConvGeometry& g, F visit) {
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oh = 0; oh < g.out_rows; ++oh)
      for (int64_t ow = 0; ow < g.out_cols; ++ow)
        for (int64_t kh = 0; kh < g.filter_rows; ++kh)
          for (int64_t kw = 0; kw < g.filter_cols; ++kw) {
            const int64_t ih =
                oh * g.stride_rows - g.pad_top + kh * g.dilation_rows;
            const int64_t iw =
                ow * g.stride_cols - g.pad_left + kw * g.dilation_cols;
            if (ih < 0 || ih >= g.in_rows || iw < 0 || iw >= g.in_cols) {
              continue;
            }
            for (int64_t c = 0; c < g.in_depth; ++c)
              for (int64_t o = 0; o < g.out_depth; ++o) {
                const int64_t in =
                    ((n * g.in_rows + ih) * g.in_cols + iw) * g.in_depth + c;
                const int64_t f =
                    ((kh * g.filter_cols + kw) * g.in_depth + c) * g.out_depth +
                    o;
                const int64_t out =
                    ((n * g.out_rows + oh) * g.out_cols + ow) * g.out_depth + o;
                visit(in, f, out);
              }
          }
}

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i])))
        << what << " at " << i;
  }
}

struct Case {
  const char* name;
  ConvGeometry g;
};

std::vector<Case> Cases() {
  return {
      // Seed 003's second layer, batch 3 (parts of 2 and 1 on 2 threads).
      {"cifar_conv2_same",
       Geometry(3, 12, 12, 64, 5, 5, 64, 1, 1, 2, 2, 12, 12)},
      {"rgb_input", Geometry(4, 9, 9, 3, 5, 5, 8, 1, 1, 2, 2, 9, 9)},
      {"stride2_valid", Geometry(2, 9, 9, 4, 3, 3, 5, 2, 1, 0, 0, 4, 4)},
      {"dilated_explicit", Geometry(2, 8, 7, 6, 3, 2, 4, 1, 2, 1, 0, 6, 5)},
      {"pointwise", Geometry(5, 4, 4, 8, 1, 1, 3, 1, 1, 0, 0, 4, 4)},
  };
}

TEST(ConvOneDnnTest, TakesSingleGroupConvolutionsOnly) {
  if (std::getenv("DFLOW_CONV") != nullptr) GTEST_SKIP() << "DFLOW_CONV set";
  for (const Case& c : Cases()) EXPECT_TRUE(OneDnnConvolves(c.g)) << c.name;
  ConvGeometry grouped = Cases()[0].g;
  grouped.groups = 2;
  grouped.filter_depth = 32;
  EXPECT_FALSE(OneDnnConvolves(grouped));
  // Stride 2 over 10 rows with a 3-row window, VALID: row 9 is never read,
  // which oneDNN's padding cannot say.
  EXPECT_FALSE(
      OneDnnConvolves(Geometry(1, 10, 10, 2, 3, 3, 2, 2, 1, 0, 0, 4, 4)));
}

TEST(ConvOneDnnTest, EveryPassMatchesTheReferenceOnAnyThreadCount) {
  if (std::getenv("DFLOW_CONV") != nullptr) GTEST_SKIP() << "DFLOW_CONV set";
  for (const Case& c : Cases()) {
    const ConvGeometry& g = c.g;
    const std::vector<float> input =
        Values(g.batch * g.in_rows * g.in_cols * g.in_depth, 1);
    const std::vector<float> filter =
        Values(g.filter_rows * g.filter_cols * g.in_depth * g.out_depth, 2);
    const std::vector<float> dy =
        Values(g.batch * g.out_rows * g.out_cols * g.out_depth, 3);
    std::vector<double> y_ref(dy.size(), 0.0), dx_ref(input.size(), 0.0),
        dw_ref(filter.size(), 0.0);
    ForEachTap(g, [&](int64_t in, int64_t f, int64_t out) {
      y_ref[out] += double{input[in]} * filter[f];
      dx_ref[in] += double{dy[out]} * filter[f];
      dw_ref[f] += double{dy[out]} * input[in];
    });
    for (int threads : {1, 2, 3}) {
      ThreadPool pool(threads);
      const std::string what = absl::StrCat(c.name, " on ", threads);
      std::vector<float> y(y_ref.size()), dx(dx_ref.size()), dw(dw_ref.size());
      ASSERT_TRUE(OneDnnConvolve(&pool, ConvPass::kForward, g, input.data(),
                                 filter.data(), y.data())
                      .ok());
      ExpectNear(y, y_ref, what + " forward");
      ASSERT_TRUE(OneDnnConvolve(&pool, ConvPass::kBackpropInput, g,
                                 filter.data(), dy.data(), dx.data())
                      .ok());
      ExpectNear(dx, dx_ref, what + " input gradient");
      ASSERT_TRUE(OneDnnConvolve(&pool, ConvPass::kBackpropFilter, g,
                                 input.data(), dy.data(), dw.data())
                      .ok());
      ExpectNear(dw, dw_ref, what + " filter gradient");
      // The same bits again.
      std::vector<float> again(dw.size());
      ASSERT_TRUE(OneDnnConvolve(&pool, ConvPass::kBackpropFilter, g,
                                 input.data(), dy.data(), again.data())
                      .ok());
      EXPECT_EQ(std::memcmp(again.data(), dw.data(), dw.size() * sizeof(float)),
                0)
          << what;
    }
  }
}

}  // namespace
}  // namespace conv
}  // namespace dflow
