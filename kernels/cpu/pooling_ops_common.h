// Shared parts of the CPU pooling kernels (MaxPool, AvgPool and their
// gradients): the attrs they read and the geometry of one pooling.
//
// Images are NHWC. MaxPool may instead pool across channels (a depth window
// equal to its depth stride, dividing the depth, with no spatial pooling), as
// TensorFlow's does; its gradient may not (as TensorFlow's).
#ifndef DFLOW_KERNELS_CPU_POOLING_OPS_COMMON_H_
#define DFLOW_KERNELS_CPU_POOLING_OPS_COMMON_H_

#include <array>
#include <cstdint>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_window.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace pooling {

struct PoolGeometry {
  int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0;
  int64_t window_rows = 1, window_cols = 1, depth_window = 1;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t pad_top = 0, pad_left = 0;
  int64_t out_rows = 0, out_cols = 0, out_depth = 0;

  TensorShape input_shape() const {
    return TensorShape({batch, in_rows, in_cols, depth});
  }
  TensorShape output_shape() const {
    return TensorShape({batch, out_rows, out_cols, out_depth});
  }
  // The input rows [*begin, *end) under output row `oh` (clipped to the
  // image; never empty given the padding rules).
  void RowWindow(int64_t oh, int64_t* begin, int64_t* end) const {
    const int64_t start = oh * stride_rows - pad_top;
    *begin = start < 0 ? 0 : start;
    *end = start + window_rows < in_rows ? start + window_rows : in_rows;
  }
  void ColWindow(int64_t ow, int64_t* begin, int64_t* end) const {
    const int64_t start = ow * stride_cols - pad_left;
    *begin = start < 0 ? 0 : start;
    *end = start + window_cols < in_cols ? start + window_cols : in_cols;
  }
};

enum class PoolKind { kMax, kMaxGrad, kAvg };

// A pooling window in NHWC order.
struct PoolWindow {
  std::array<int64_t, 4> ksize{}, strides{};
};

// The attrs of a pooling op, read when the kernel is built: ksize, strides,
// padding (explicit_paddings for the max ops) and data_format (NHWC). The
// V2 ops (MaxPoolV2, MaxPoolGradV2, MaxPoolGradGradV2) take ksize and
// strides as int32 inputs instead, read per run by RunWindow.
class PoolOpBase : public OpKernel {
 public:
  PoolOpBase(OpKernelConstruction* ctx, PoolKind kind);

 protected:
  // The window of this run: the attrs, or for a V2 op its inputs `first`
  // (ksize) and `first + 1` (strides), checked as the attrs are.
  absl::Status RunWindow(OpKernelContext* ctx, int first, PoolWindow* w) const;
  // The geometry of pooling an input of shape `input` (checked 4-D).
  absl::Status ComputeGeometry(const TensorShape& input, PoolGeometry* g) const {
    return ComputeGeometry(input, window_, g);
  }
  absl::Status ComputeGeometry(const TensorShape& input, const PoolWindow& w,
                               PoolGeometry* g) const;
  // Fails unless `shape` (input `name`) is the pooled output of `g`.
  absl::Status CheckPooledShape(const PoolGeometry& g, const char* name,
                                const TensorShape& shape) const {
    return CheckPooledShape(g, window_, name, shape);
  }
  absl::Status CheckPooledShape(const PoolGeometry& g, const PoolWindow& w,
                                const char* name,
                                const TensorShape& shape) const;

  PoolWindow window_;  // From the attrs; unset for the V2 ops.
  window::Padding padding_;

 private:
  // The checks of a window beyond each entry's range: channel pooling only
  // in its one form (and not in gradients); explicit padding smaller than
  // the window.
  absl::Status CheckWindow(const PoolWindow& w) const;

  PoolKind kind_;
  bool window_from_inputs_ = false;
};

// The Eigen element type kernels compute on: dflow's 2-byte float storage
// types are bit-compatible with Eigen's.
template <typename T>
struct EigenElement {
  using type = T;
};
template <>
struct EigenElement<float16> {
  using type = Eigen::half;
};
template <>
struct EigenElement<bfloat16> {
  using type = Eigen::bfloat16;
};

}  // namespace pooling
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_POOLING_OPS_COMMON_H_
