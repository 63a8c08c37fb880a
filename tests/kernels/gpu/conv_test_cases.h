// Convolution geometries shared by the GPU convolution tests: the host-side
// plan test (conv_plan_test, runs everywhere) and the cuDNN-vs-CPU test
// (conv_ops_gpu_test, needs a GPU). Each case's output size and leading
// padding come from the CPU kernels' own rules (kernels/cpu/
// kernel_util_window.h), so the GPU launcher is fed exactly the geometry
// the CPU kernel computes.
#ifndef DFLOW_TESTS_KERNELS_GPU_CONV_TEST_CASES_H_
#define DFLOW_TESTS_KERNELS_GPU_CONV_TEST_CASES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "kernels/cpu/kernel_util_window.h"
#include "kernels/gpu/conv_ops_gpu.h"

namespace dflow {
namespace testing_conv {

struct Case {
  std::string name;
  int64_t n, h, w, c;      // input, NHWC
  int64_t kh, kw, kc, co;  // filter HWIO; kc = c / groups
  int64_t sh = 1, sw = 1;  // strides
  int64_t dh = 1, dw = 1;  // dilations
  std::string padding = "SAME";
  // EXPLICIT only: top, bottom, left, right.
  std::vector<int64_t> pads = {};

  std::vector<int64_t> strides() const { return {1, sh, sw, 1}; }
  std::vector<int64_t> dilations() const { return {1, dh, dw, 1}; }
  std::vector<int64_t> explicit_paddings() const {
    if (pads.empty()) return {};
    return {0, 0, pads[0], pads[1], pads[2], pads[3], 0, 0};
  }
  TensorShape input_shape() const { return TensorShape({n, h, w, c}); }
  TensorShape filter_shape() const { return TensorShape({kh, kw, kc, co}); }
};

inline std::vector<Case> Cases() {
  return {
      {"1x1", 2, 5, 7, 3, 1, 1, 3, 4},
      {"3x3_same", 2, 8, 9, 3, 3, 3, 3, 5},
      {"3x3_same_stride2_even", 2, 8, 10, 4, 3, 3, 4, 6, 2, 2},
      {"2x2_same_asymmetric", 1, 7, 6, 2, 2, 2, 2, 3},
      {"4x3_same_stride3", 3, 10, 11, 2, 4, 3, 2, 3, 3, 3},
      {"5x5_valid_stride2", 2, 13, 12, 3, 5, 5, 3, 4, 2, 2, 1, 1, "VALID"},
      {"3x3_valid_unused_rows", 1, 10, 9, 2, 3, 3, 2, 2, 4, 3, 1, 1, "VALID"},
      {"dilated_same", 2, 11, 9, 3, 3, 3, 3, 4, 1, 1, 2, 3},
      {"dilated_valid_strided", 1, 15, 14, 2, 3, 2, 2, 3, 2, 1, 2, 2, "VALID"},
      {"grouped", 2, 6, 6, 8, 3, 3, 4, 6},
      {"depthwise_like", 2, 7, 7, 4, 3, 3, 1, 8, 2, 2},
      {"explicit_asymmetric",
       2,
       6,
       7,
       3,
       3,
       3,
       3,
       4,
       1,
       2,
       1,
       1,
       "EXPLICIT",
       {2, 0, 1, 3}},
      {"explicit_symmetric",
       1,
       5,
       5,
       2,
       3,
       3,
       2,
       3,
       1,
       1,
       1,
       1,
       "EXPLICIT",
       {1, 1, 2, 2}},
      {"filter_as_large_as_input", 2, 4, 5, 3, 4, 5, 3, 2, 1, 1, 1, 1, "VALID"},
      {"cifar_conv2", 4, 12, 12, 64, 5, 5, 64, 64},
  };
}

// The CPU kernels' padding attr for `c`.
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

// The launcher's parameters for `c`, sized by the CPU kernels' rules.
inline absl::StatusOr<GpuConvParams> ParamsFor(const Case& c, DataType dtype) {
  const window::Padding padding = PaddingOf(c);
  window::WindowDim rows, cols;
  absl::Status s =
      window::ComputeWindow(c.h, c.kh, c.dh, c.sh, padding, 0, &rows);
  if (s.ok())
    s = window::ComputeWindow(c.w, c.kw, c.dw, c.sw, padding, 1, &cols);
  if (!s.ok()) return s;
  GpuConvParams p;
  p.dtype = dtype;
  p.batch = c.n;
  p.in_rows = c.h;
  p.in_cols = c.w;
  p.in_depth = c.c;
  p.filter_rows = c.kh;
  p.filter_cols = c.kw;
  p.filter_depth = c.kc;
  p.out_depth = c.co;
  p.out_rows = rows.out;
  p.out_cols = cols.out;
  p.stride_rows = c.sh;
  p.stride_cols = c.sw;
  p.dilation_rows = c.dh;
  p.dilation_cols = c.dw;
  p.pad_top = rows.pad_before;
  p.pad_left = cols.pad_before;
  return p;
}

// The CPU ops for `c` (inputs are Placeholders, in the ops' input order).
inline ops::Conv2DAttrs AttrsOf(const Case& c) {
  return ops::Conv2DAttrs()
      .Dilations(c.dilations())
      .ExplicitPaddings(c.explicit_paddings());
}
inline Output ForwardNode(const Scope& root, DataType dtype, const Case& c) {
  return ops::Conv2D(root, ops::Placeholder(root, dtype),
                     ops::Placeholder(root, dtype), c.strides(), c.padding,
                     AttrsOf(c));
}
inline Output InputGradNode(const Scope& root, DataType dtype, const Case& c) {
  return ops::Conv2DBackpropInput(
      root, ops::Placeholder(root, DT_INT32), ops::Placeholder(root, dtype),
      ops::Placeholder(root, dtype), c.strides(), c.padding, AttrsOf(c));
}
inline Output FilterGradNode(const Scope& root, DataType dtype, const Case& c) {
  return ops::Conv2DBackpropFilter(
      root, ops::Placeholder(root, dtype), ops::Placeholder(root, DT_INT32),
      ops::Placeholder(root, dtype), c.strides(), c.padding, AttrsOf(c));
}

inline Tensor ShapeTensor(const TensorShape& s) {
  std::vector<int32_t> v;
  for (int64_t d : s.dims()) v.push_back(static_cast<int32_t>(d));
  return Tensor::FromVector<int32_t>(v);
}

}  // namespace testing_conv
}  // namespace dflow

#endif  // DFLOW_TESTS_KERNELS_GPU_CONV_TEST_CASES_H_
