// Convolution ops: 2-D convolution, pooling and local response
// normalization, with their gradient ops.
//
// The schemas match TensorFlow's (names, arguments, attrs, defaults, allowed
// types) so TensorFlow GraphDefs validate against them. Image tensors are
// 4-D in `data_format` order (NHWC or NCHW); filters are always
// [height, width, in_channels, out_channels]. List attrs such as `strides`
// and `ksize` have one entry per dimension of the image tensor, also in
// `data_format` order, and the batch and channel entries must be 1.
//
//   Output y = ops::Conv2D(scope, x, w, {1, 2, 2, 1}, "SAME");
//   Output p = ops::MaxPool(scope, ops::Relu(scope, y), {1, 2, 2, 1},
//                           {1, 2, 2, 1}, "VALID");
#ifndef DFLOW_GRAPH_OPS_CONV_OPS_H_
#define DFLOW_GRAPH_OPS_CONV_OPS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/scope.h"
#include "graph/types.h"

namespace dflow {
namespace ops {

// --- 2-D convolution. ---

struct Conv2DAttrs {
  bool use_cudnn_on_gpu = true;
  // With padding "EXPLICIT": 8 values, (before, after) per dimension in
  // data_format order; the batch and channel pairs must be 0.
  std::vector<int64_t> explicit_paddings;
  std::string data_format = "NHWC";
  std::vector<int64_t> dilations = {1, 1, 1, 1};

  Conv2DAttrs& UseCudnnOnGpu(bool v) {
    use_cudnn_on_gpu = v;
    return *this;
  }
  Conv2DAttrs& ExplicitPaddings(std::vector<int64_t> v) {
    explicit_paddings = std::move(v);
    return *this;
  }
  Conv2DAttrs& DataFormat(std::string v) {
    data_format = std::move(v);
    return *this;
  }
  Conv2DAttrs& Dilations(std::vector<int64_t> v) {
    dilations = std::move(v);
    return *this;
  }
};
using Conv2DBackpropInputAttrs = Conv2DAttrs;
using Conv2DBackpropFilterAttrs = Conv2DAttrs;

// `padding` is "SAME", "VALID" or "EXPLICIT".
Output Conv2D(const Scope& scope, Input input, Input filter,
              std::vector<int64_t> strides, std::string padding,
              const Conv2DAttrs& attrs = {});
// The gradient of Conv2D with respect to its input, whose shape
// `input_sizes` gives (an int32 vector of 4, or of 2 spatial sizes).
Output Conv2DBackpropInput(const Scope& scope, Input input_sizes, Input filter,
                           Input out_backprop, std::vector<int64_t> strides,
                           std::string padding,
                           const Conv2DBackpropInputAttrs& attrs = {});
// The gradient of Conv2D with respect to its filter, whose shape
// `filter_sizes` gives (an int32 vector of 4).
Output Conv2DBackpropFilter(const Scope& scope, Input input, Input filter_sizes,
                            Input out_backprop, std::vector<int64_t> strides,
                            std::string padding,
                            const Conv2DBackpropFilterAttrs& attrs = {});

// --- Depthwise 2-D convolution. ---

struct DepthwiseConv2dNativeAttrs {
  std::vector<int64_t> explicit_paddings;
  std::string data_format = "NHWC";
  std::vector<int64_t> dilations = {1, 1, 1, 1};

  DepthwiseConv2dNativeAttrs& ExplicitPaddings(std::vector<int64_t> v) {
    explicit_paddings = std::move(v);
    return *this;
  }
  DepthwiseConv2dNativeAttrs& DataFormat(std::string v) {
    data_format = std::move(v);
    return *this;
  }
  DepthwiseConv2dNativeAttrs& Dilations(std::vector<int64_t> v) {
    dilations = std::move(v);
    return *this;
  }
};

// Each input channel c convolved with its own filters[:, :, c, m]: output
// channel c * multiplier + m; `filter` is [height, width, in_channels,
// multiplier].
Output DepthwiseConv2dNative(const Scope& scope, Input input, Input filter,
                             std::vector<int64_t> strides, std::string padding,
                             const DepthwiseConv2dNativeAttrs& attrs = {});
// Its gradient with respect to the input, whose shape `input_sizes` (int32
// vector of 4) gives.
Output DepthwiseConv2dNativeBackpropInput(
    const Scope& scope, Input input_sizes, Input filter, Input out_backprop,
    std::vector<int64_t> strides, std::string padding,
    const DepthwiseConv2dNativeAttrs& attrs = {});
// Its gradient with respect to the filter, whose shape `filter_sizes`
// (int32 vector of 4) gives.
Output DepthwiseConv2dNativeBackpropFilter(
    const Scope& scope, Input input, Input filter_sizes, Input out_backprop,
    std::vector<int64_t> strides, std::string padding,
    const DepthwiseConv2dNativeAttrs& attrs = {});

// --- Pooling. ---

struct MaxPoolAttrs {
  std::vector<int64_t> explicit_paddings;
  // "NHWC", "NCHW" or "NCHW_VECT_C" (MaxPool only).
  std::string data_format = "NHWC";

  MaxPoolAttrs& ExplicitPaddings(std::vector<int64_t> v) {
    explicit_paddings = std::move(v);
    return *this;
  }
  MaxPoolAttrs& DataFormat(std::string v) {
    data_format = std::move(v);
    return *this;
  }
};
using MaxPoolGradAttrs = MaxPoolAttrs;

struct AvgPoolAttrs {
  std::string data_format = "NHWC";
  AvgPoolAttrs& DataFormat(std::string v) {
    data_format = std::move(v);
    return *this;
  }
};
using AvgPoolGradAttrs = AvgPoolAttrs;

// `padding` is "SAME", "VALID" or "EXPLICIT" (MaxPool and MaxPoolGrad
// only).
Output MaxPool(const Scope& scope, Input input, std::vector<int64_t> ksize,
               std::vector<int64_t> strides, std::string padding,
               const MaxPoolAttrs& attrs = {});
Output AvgPool(const Scope& scope, Input value, std::vector<int64_t> ksize,
               std::vector<int64_t> strides, std::string padding,
               const AvgPoolAttrs& attrs = {});
Output MaxPoolGrad(const Scope& scope, Input orig_input, Input orig_output,
                   Input grad, std::vector<int64_t> ksize,
                   std::vector<int64_t> strides, std::string padding,
                   const MaxPoolGradAttrs& attrs = {});
// `orig_input_shape` is the int32 shape of AvgPool's input.
Output AvgPoolGrad(const Scope& scope, Input orig_input_shape, Input grad,
                   std::vector<int64_t> ksize, std::vector<int64_t> strides,
                   std::string padding, const AvgPoolGradAttrs& attrs = {});

// --- conv_ops_pool_argmax.cc: MaxPoolWithArgmax and its gradient. ---

struct MaxPoolWithArgmaxAttrs {
  DataType targmax = DT_INT64;
  // Whether argmax counts the batch too (flat index into the whole input).
  bool include_batch_in_index = false;

  MaxPoolWithArgmaxAttrs& Targmax(DataType v) {
    targmax = v;
    return *this;
  }
  MaxPoolWithArgmaxAttrs& IncludeBatchInIndex(bool v) {
    include_batch_in_index = v;
    return *this;
  }
};
struct MaxPoolWithArgmaxOutputs {
  Output output;  // MaxPool's result (NHWC).
  Output argmax;  // Flat input index of each maximum, (y * W + x) * C + c.
};
// `padding` is "SAME" or "VALID".
MaxPoolWithArgmaxOutputs MaxPoolWithArgmax(
    const Scope& scope, Input input, std::vector<int64_t> ksize,
    std::vector<int64_t> strides, std::string padding,
    const MaxPoolWithArgmaxAttrs& attrs = {});
// Zeros of input's shape with each grad element added at its argmax.
Output MaxPoolGradWithArgmax(const Scope& scope, Input input, Input grad,
                             Input argmax, std::vector<int64_t> ksize,
                             std::vector<int64_t> strides, std::string padding,
                             const MaxPoolWithArgmaxAttrs& attrs = {});

// --- conv_ops_3d.cc: 3-D convolution and its gradients. ---

struct Conv3DAttrs {
  std::string data_format = "NDHWC";  // or "NCDHW"
  std::vector<int64_t> dilations = {1, 1, 1, 1, 1};
  Conv3DAttrs& DataFormat(std::string v) {
    data_format = std::move(v);
    return *this;
  }
  Conv3DAttrs& Dilations(std::vector<int64_t> v) {
    dilations = std::move(v);
    return *this;
  }
};

// `filter` is [depth, height, width, in_channels, out_channels]; strides has
// 5 entries in data_format order; `padding` is "SAME" or "VALID".
Output Conv3D(const Scope& scope, Input input, Input filter,
              std::vector<int64_t> strides, std::string padding,
              const Conv3DAttrs& attrs = {});
// The gradient with respect to the input, whose shape `input_sizes` (int32
// or int64 vector of 5) gives.
Output Conv3DBackpropInputV2(const Scope& scope, Input input_sizes,
                             Input filter, Input out_backprop,
                             std::vector<int64_t> strides, std::string padding,
                             const Conv3DAttrs& attrs = {});
// The gradient with respect to the filter, whose shape `filter_sizes`
// (int32 vector of 5) gives.
Output Conv3DBackpropFilterV2(const Scope& scope, Input input,
                              Input filter_sizes, Input out_backprop,
                              std::vector<int64_t> strides,
                              std::string padding,
                              const Conv3DAttrs& attrs = {});

// --- conv_ops_pool3d.cc: 3-D pooling and its gradients. ---

struct Pool3DAttrs {
  std::string data_format = "NDHWC";  // or "NCDHW"
  Pool3DAttrs& DataFormat(std::string v) {
    data_format = std::move(v);
    return *this;
  }
};

// ksize and strides have 5 entries in data_format order (batch and channel
// 1); `padding` is "SAME" or "VALID".
Output MaxPool3D(const Scope& scope, Input input, std::vector<int64_t> ksize,
                 std::vector<int64_t> strides, std::string padding,
                 const Pool3DAttrs& attrs = {});
Output AvgPool3D(const Scope& scope, Input input, std::vector<int64_t> ksize,
                 std::vector<int64_t> strides, std::string padding,
                 const Pool3DAttrs& attrs = {});
Output MaxPool3DGrad(const Scope& scope, Input orig_input, Input orig_output,
                     Input grad, std::vector<int64_t> ksize,
                     std::vector<int64_t> strides, std::string padding,
                     const Pool3DAttrs& attrs = {});
// `orig_input_shape` is the int32 shape of AvgPool3D's input.
Output AvgPool3DGrad(const Scope& scope, Input orig_input_shape, Input grad,
                     std::vector<int64_t> ksize, std::vector<int64_t> strides,
                     std::string padding, const Pool3DAttrs& attrs = {});

// --- Local response normalization (over the last dimension). ---

struct LRNAttrs {
  int64_t depth_radius = 5;
  float bias = 1.0f;
  float alpha = 1.0f;
  float beta = 0.5f;

  LRNAttrs& DepthRadius(int64_t v) {
    depth_radius = v;
    return *this;
  }
  LRNAttrs& Bias(float v) {
    bias = v;
    return *this;
  }
  LRNAttrs& Alpha(float v) {
    alpha = v;
    return *this;
  }
  LRNAttrs& Beta(float v) {
    beta = v;
    return *this;
  }
};
using LRNGradAttrs = LRNAttrs;

Output LRN(const Scope& scope, Input input, const LRNAttrs& attrs = {});
Output LRNGrad(const Scope& scope, Input input_grads, Input input_image,
               Input output_image, const LRNGradAttrs& attrs = {});

// --- conv_ops_pool_v2.cc: windows as tensors, second-order gradients
// (NHWC on CPU). ---

// MaxPool / MaxPoolGrad with `ksize` and `strides` int32 [4] inputs;
// `padding` "SAME" or "VALID".
Output MaxPoolV2(const Scope& scope, Input input, Input ksize, Input strides,
                 const std::string& padding);
Output MaxPoolGradV2(const Scope& scope, Input orig_input, Input orig_output,
                     Input grad, Input ksize, Input strides,
                     const std::string& padding);
// The gradient of MaxPoolGrad with respect to its grad: `grad` (shaped as
// orig_input) at each window's maximum, shaped as orig_output.
Output MaxPoolGradGrad(const Scope& scope, Input orig_input,
                       Input orig_output, Input grad,
                       std::vector<int64_t> ksize,
                       std::vector<int64_t> strides,
                       const std::string& padding);
Output MaxPoolGradGradV2(const Scope& scope, Input orig_input,
                         Input orig_output, Input grad, Input ksize,
                         Input strides, const std::string& padding);

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_CONV_OPS_H_
