// MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad on a GPU through cuDNN,
// with the CPU kernels' semantics (kernels/cpu/pooling_ops*.cc): NHWC
// images, TensorFlow's SAME/VALID (and, for the max ops, EXPLICIT)
// padding given as the output size and the leading padding; MaxPool skips
// NaNs (CUDNN_NOT_PROPAGATE_NAN); AvgPool divides by the number of input
// elements a window covers (CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING).
//
// cuDNN pads both sides alike; TensorFlow's SAME padding may put one more
// row or column after the input than before it. cuDNN is given the leading
// padding and TensorFlow's output size: its windows are clipped to the
// input at both ends, so the last window, which reaches into the extra
// padding, covers exactly the elements it covers on the CPU (as
// TensorFlow's GPU kernels rely on).
//
// MaxPool across channels (a channel window equal to the channel stride,
// no spatial pooling) views the image as [batch * rows * cols, 1, 1,
// depth] and pools along the last dimension.
//
// PlanPooling is host arithmetic, tested without a GPU.
#ifndef DFLOW_KERNELS_GPU_POOLING_OPS_GPU_H_
#define DFLOW_KERNELS_GPU_POOLING_OPS_GPU_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/types.h"
#include "kernels/gpu/dnn_handles.h"

namespace dflow {

// One pooling, as kernels/cpu/pooling_ops_common.h's PoolGeometry.
struct GpuPoolParams {
  DataType dtype = DT_FLOAT;
  int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0;
  int64_t window_rows = 1, window_cols = 1, depth_window = 1;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t pad_top = 0, pad_left = 0;
  int64_t out_rows = 0, out_cols = 0, out_depth = 0;
};

// What cuDNN is given: the input and output as (n, c, h, w) layouts and a
// 2-D window over (h, w).
struct PoolDnnPlan {
  DnnTensorLayout input, output;
  int64_t window_h = 1, window_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  int64_t stride_h = 1, stride_w = 1;
};

// Checks `p` (positive windows and strides; padding smaller than the
// window; depth pooling only alone, with a window dividing the depth; an
// output whose every window starts inside the padded input; cuDNN's size
// limits) and returns the plan.
absl::StatusOr<PoolDnnPlan> PlanPooling(const GpuPoolParams& p);

// Each enqueues on `stream` (a cudaStream_t of GPU `ordinal`) and returns
// without waiting. Pointers are packed device memory of that GPU; dtypes
// float, double, half, bfloat16.
//   output [batch, out_rows, out_cols, out_depth]
absl::Status LaunchMaxPool(int ordinal, void* stream, const GpuPoolParams& p,
                           const void* input, void* output);
absl::Status LaunchAvgPool(int ordinal, void* stream, const GpuPoolParams& p,
                           const void* input, void* output);
// input_grad [batch, in_rows, in_cols, depth]: each output gradient goes to
// the maximum of its window, found by comparing the input with
// `orig_output` (MaxPool's output for `input`). No depth pooling.
absl::Status LaunchMaxPoolGrad(int ordinal, void* stream,
                               const GpuPoolParams& p, const void* input,
                               const void* orig_output, const void* grad,
                               void* input_grad);
// input_grad: each output gradient spread evenly over its window's inputs.
absl::Status LaunchAvgPoolGrad(int ordinal, void* stream,
                               const GpuPoolParams& p, const void* grad,
                               void* input_grad);

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_POOLING_OPS_GPU_H_
