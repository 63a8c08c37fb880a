// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on a GPU through
// cuDNN 9's legacy convolution API, with the CPU kernels' layouts and
// geometry (kernels/cpu/conv_ops_common.h): NHWC images, HWIO filters
// [rows, cols, in_channels / groups, out_channels], strides, dilations,
// groups, and TensorFlow's padding (SAME, VALID, EXPLICIT), given here as
// the output size and the padding before the first row and column.
//
// What cuDNN cannot take directly is rearranged on the stream first:
//   - filters: cuDNN reads KRSC ([out, rows, cols, in], its "NHWC" filter
//     format), not HWIO, so the filter is transposed into scratch (and a
//     filter gradient transposed back) with cudnnTransformTensor;
//   - asymmetric padding (SAME with an odd total, EXPLICIT): cuDNN pads both
//     sides alike, so the input is copied into a zeroed buffer carrying the
//     difference (and an input gradient computed there and cropped).
// PlanConvolution computes these layouts as host data; tests check them
// against the CPU kernels' window rules without a GPU.
//
// Algorithms: by default each new shape runs cudnnFind*AlgorithmEx once
// (times the candidates on the GPU, within a workspace of up to 1 GiB) and
// the fastest is cached per GPU, shape, dtype and math mode for the life of
// the process; SetGpuConvAutotune(false) takes cuDNN's heuristic choice
// instead (no timing runs). float convolutions use FMA kernels only, unless
// SetGpuTensorFloat32(true) (matmul_gpu.h) allows TF32 tensor cores; half
// and bfloat16 accumulate in float on tensor cores; double in double.
#ifndef DFLOW_KERNELS_GPU_CONV_OPS_GPU_H_
#define DFLOW_KERNELS_GPU_CONV_OPS_GPU_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/types.h"
#include "kernels/gpu/dnn_handles.h"

namespace dflow {

// One convolution (the forward one; the gradients name the same geometry).
struct GpuConvParams {
  DataType dtype = DT_FLOAT;
  int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  // The filter [filter_rows, filter_cols, filter_depth, out_depth];
  // groups = in_depth / filter_depth.
  int64_t filter_rows = 0, filter_cols = 0, filter_depth = 0, out_depth = 0;
  int64_t out_rows = 0, out_cols = 0;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dilation_rows = 1, dilation_cols = 1;
  // TensorFlow's leading padding (window::ComputeWindow's pad_before); the
  // trailing padding follows from the output size.
  int64_t pad_top = 0, pad_left = 0;
};

// How cuDNN runs a convolution.
struct ConvDnnPlan {
  int64_t groups = 1;
  // cuDNN's symmetric padding.
  int64_t pad_rows = 0, pad_cols = 0;
  // Zero rows and columns added around the input before cuDNN sees it.
  int64_t extra_top = 0, extra_bottom = 0, extra_left = 0, extra_right = 0;
  DnnTensorLayout input;         // as given: packed NHWC
  DnnTensorLayout padded_input;  // what cuDNN convolves: packed NHWC
  // Where the input sits inside padded_input: the input's dims with
  // padded_input's strides, starting `interior_offset` elements in.
  DnnTensorLayout padded_interior;
  int64_t interior_offset = 0;
  DnnTensorLayout filter_hwio;  // the filter as stored, dims (k, c, r, s)
  DnnTensorLayout filter_krsc;  // packed [k, r, s, c]: what cuDNN reads
  DnnTensorLayout output;       // packed NHWC

  bool padded() const {
    return extra_top != 0 || extra_bottom != 0 || extra_left != 0 ||
           extra_right != 0;
  }
};

// Checks `p` (positive strides and dilations, groups dividing both channel
// counts, an output size TensorFlow's rules can give, sizes within cuDNN's
// limits) and returns the plan; errors name the shapes.
absl::StatusOr<ConvDnnPlan> PlanConvolution(const GpuConvParams& p);

// Each enqueues on `stream` (a cudaStream_t of GPU `ordinal`) and returns
// without waiting for the GPU. Pointers are device memory of that GPU,
// packed, outputs not overlapping inputs. `scratch` gives temporary memory
// (null: a StreamOrderedScratch on `stream`). dtypes: float, double, half,
// bfloat16.
//   output [batch, out_rows, out_cols, out_depth] = conv(input, filter)
absl::Status LaunchConv2D(int ordinal, void* stream, const GpuConvParams& p,
                          const void* input, const void* filter, void* output,
                          GpuScratchAllocator* scratch = nullptr);
//   in_backprop [batch, in_rows, in_cols, in_depth] = d loss / d input
absl::Status LaunchConv2DBackpropInput(int ordinal, void* stream,
                                       const GpuConvParams& p,
                                       const void* filter,
                                       const void* out_backprop,
                                       void* in_backprop,
                                       GpuScratchAllocator* scratch = nullptr);
//   filter_backprop [filter_rows, filter_cols, filter_depth, out_depth]
absl::Status LaunchConv2DBackpropFilter(int ordinal, void* stream,
                                        const GpuConvParams& p,
                                        const void* input,
                                        const void* out_backprop,
                                        void* filter_backprop,
                                        GpuScratchAllocator* scratch = nullptr);

// Process-wide: time cuDNN's candidates for each new shape (default on), or
// take its heuristic choice.
void SetGpuConvAutotune(bool enabled);
bool GpuConvAutotuneEnabled();

// The algorithm cache: entries so far, and forgetting them (tests).
int64_t ConvAlgorithmCacheSize();
void ClearConvAlgorithmCache();

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_CONV_OPS_GPU_H_
