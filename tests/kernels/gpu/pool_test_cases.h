// Pooling geometries shared by the GPU pooling tests: the host-side plan
// test (runs everywhere) and the cuDNN-vs-CPU test (needs a GPU). Output
// sizes and leading padding come from the CPU kernels' own rules
// (kernels/cpu/kernel_util_window.h). Every case has at most 256 input
// elements, so inputs can be distinct values exact in every float type
// (ties would let the max gradients route differently).
#ifndef DFLOW_TESTS_KERNELS_GPU_POOL_TEST_CASES_H_
#define DFLOW_TESTS_KERNELS_GPU_POOL_TEST_CASES_H_

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util_window.h"
#include "kernels/gpu/pooling_ops_gpu.h"

namespace dflow {
namespace testing_pool {

struct Case {
  std::string name;
  int64_t n, h, w, c;
  int64_t kh, kw, sh, sw;
  std::string padding = "SAME";
  std::vector<int64_t> pads =
      {};          // EXPLICIT (max only): top, bottom, left, right
  int64_t kd = 1;  // channel window = channel stride (max only)

  std::vector<int64_t> ksize() const { return {1, kh, kw, kd}; }
  std::vector<int64_t> strides() const { return {1, sh, sw, kd}; }
  std::vector<int64_t> explicit_paddings() const {
    if (pads.empty()) return {};
    return {0, 0, pads[0], pads[1], pads[2], pads[3], 0, 0};
  }
  bool max_only() const { return padding == "EXPLICIT" || kd > 1; }
  TensorShape input_shape() const { return TensorShape({n, h, w, c}); }
};

inline std::vector<Case> Cases() {
  return {
      {"2x2_valid_stride2", 2, 6, 8, 2, 2, 2, 2, 2, "VALID"},
      {"3x3_same_stride2_even", 2, 8, 6, 2, 3, 3, 2, 2},
      {"3x3_same_stride1", 1, 7, 5, 3, 3, 3, 1, 1},
      {"2x2_same_stride2_odd", 2, 7, 5, 3, 2, 2, 2, 2},
      {"3x2_stride1x2", 2, 5, 8, 2, 3, 2, 1, 2, "VALID"},
      {"window_larger_than_input", 2, 3, 4, 2, 5, 6, 2, 3},
      {"4x4_same_stride3", 1, 10, 9, 2, 4, 4, 3, 3},
      {"explicit_asymmetric", 2, 6, 7, 2, 3, 3, 2, 1, "EXPLICIT", {1, 0, 0, 2}},
      {"across_channels", 2, 3, 4, 6, 1, 1, 1, 1, "VALID", {}, 3},
  };
}

inline window::Padding PaddingOf(const Case& c) {
  window::Padding p;
  p.name = c.padding;
  if (c.padding == "SAME") {
    p.type = window::PaddingType::kSame;
  } else if (c.padding == "VALID") {
    p.type = window::PaddingType::kValid;
  } else {
    p.type = window::PaddingType::kExplicit;
    p.explicit_before[0] = c.pads[0];
    p.explicit_after[0] = c.pads[1];
    p.explicit_before[1] = c.pads[2];
    p.explicit_after[1] = c.pads[3];
  }
  return p;
}

// The launcher's parameters, sized by the CPU kernels' rules.
inline absl::StatusOr<GpuPoolParams> ParamsFor(const Case& c, DataType dtype) {
  const window::Padding padding = PaddingOf(c);
  window::WindowDim rows, cols;
  absl::Status s = window::ComputeWindow(c.h, c.kh, 1, c.sh, padding, 0, &rows);
  if (s.ok()) s = window::ComputeWindow(c.w, c.kw, 1, c.sw, padding, 1, &cols);
  if (!s.ok()) return s;
  GpuPoolParams p;
  p.dtype = dtype;
  p.batch = c.n;
  p.in_rows = c.h;
  p.in_cols = c.w;
  p.depth = c.c;
  p.window_rows = c.kh;
  p.window_cols = c.kw;
  p.depth_window = c.kd;
  p.stride_rows = c.sh;
  p.stride_cols = c.sw;
  p.pad_top = rows.pad_before;
  p.pad_left = cols.pad_before;
  p.out_rows = rows.out;
  p.out_cols = cols.out;
  p.out_depth = c.c / c.kd;
  return p;
}

inline TensorShape OutputShape(const GpuPoolParams& p) {
  return TensorShape({p.batch, p.out_rows, p.out_cols, p.out_depth});
}

// n distinct values k / 8 (k a shuffled run of integers around 0): exact
// in float, double, half and (n <= 256) bfloat16.
inline std::vector<double> DistinctValues(int64_t n, uint32_t seed) {
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), -static_cast<double>(n / 2));
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  for (double& x : v) x /= 8;
  return v;
}

inline Output MaxPoolNode(const Scope& root, DataType dtype, const Case& c) {
  return ops::MaxPool(
      root, ops::Placeholder(root, dtype), c.ksize(), c.strides(), c.padding,
      ops::MaxPoolAttrs().ExplicitPaddings(c.explicit_paddings()));
}
inline Output AvgPoolNode(const Scope& root, DataType dtype, const Case& c) {
  return ops::AvgPool(root, ops::Placeholder(root, dtype), c.ksize(),
                      c.strides(), c.padding);
}
inline Output MaxPoolGradNode(const Scope& root, DataType dtype,
                              const Case& c) {
  return ops::MaxPoolGrad(
      root, ops::Placeholder(root, dtype), ops::Placeholder(root, dtype),
      ops::Placeholder(root, dtype), c.ksize(), c.strides(), c.padding,
      ops::MaxPoolGradAttrs().ExplicitPaddings(c.explicit_paddings()));
}
inline Output AvgPoolGradNode(const Scope& root, DataType dtype,
                              const Case& c) {
  return ops::AvgPoolGrad(root, ops::Placeholder(root, DT_INT32),
                          ops::Placeholder(root, dtype), c.ksize(), c.strides(),
                          c.padding);
}

}  // namespace testing_pool
}  // namespace dflow

#endif  // DFLOW_TESTS_KERNELS_GPU_POOL_TEST_CASES_H_
