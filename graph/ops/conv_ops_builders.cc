// Builder wrappers of the 2-D convolution, pooling and local response
// normalization ops (graph/ops/conv_ops.h); their schemas and shape
// functions are conv_ops.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "graph/attr_value_util.h"
#include "graph/ops/conv_ops.h"
#include "graph/ops/shape_fn_util.h"

namespace dflow {
namespace {

using shape_fn_util::AttrList;
using shape_fn_util::Build;

// An invalid Operation (after a build error) gives invalid Outputs.
Output First(const Operation& op) { return op.output(0); }

AttrValue Ints(const std::vector<int64_t>& v) {
  return MakeAttr(absl::Span<const int64_t>(v));
}

AttrList ConvAttrList(const std::vector<int64_t>& strides,
                      const std::string& padding, const ops::Conv2DAttrs& a) {
  return {{"strides", Ints(strides)},
          {"use_cudnn_on_gpu", MakeAttr(a.use_cudnn_on_gpu)},
          {"padding", MakeAttr(padding)},
          {"explicit_paddings", Ints(a.explicit_paddings)},
          {"data_format", MakeAttr(a.data_format)},
          {"dilations", Ints(a.dilations)}};
}

AttrList DepthwiseAttrList(const std::vector<int64_t>& strides,
                           const std::string& padding,
                           const ops::DepthwiseConv2dNativeAttrs& a) {
  return {{"strides", Ints(strides)},
          {"padding", MakeAttr(padding)},
          {"explicit_paddings", Ints(a.explicit_paddings)},
          {"data_format", MakeAttr(a.data_format)},
          {"dilations", Ints(a.dilations)}};
}

AttrList PoolAttrList(const std::vector<int64_t>& ksize,
                      const std::vector<int64_t>& strides,
                      const std::string& padding,
                      const std::string& data_format,
                      const std::vector<int64_t>* explicit_paddings) {
  AttrList list = {{"ksize", Ints(ksize)},
                   {"strides", Ints(strides)},
                   {"padding", MakeAttr(padding)},
                   {"data_format", MakeAttr(data_format)}};
  if (explicit_paddings != nullptr) {
    list.emplace_back("explicit_paddings", Ints(*explicit_paddings));
  }
  return list;
}

AttrList LRNAttrList(const ops::LRNAttrs& a) {
  return {{"depth_radius", MakeAttr(a.depth_radius)},
          {"bias", MakeAttr(a.bias)},
          {"alpha", MakeAttr(a.alpha)},
          {"beta", MakeAttr(a.beta)}};
}

}  // namespace

namespace ops {

Output Conv2D(const Scope& scope, Input input, Input filter,
              std::vector<int64_t> strides, std::string padding,
              const Conv2DAttrs& attrs) {
  return First(Build(scope, "Conv2D", {input, filter},
                     ConvAttrList(strides, padding, attrs)));
}

Output Conv2DBackpropInput(const Scope& scope, Input input_sizes, Input filter,
                           Input out_backprop, std::vector<int64_t> strides,
                           std::string padding,
                           const Conv2DBackpropInputAttrs& attrs) {
  return First(Build(scope, "Conv2DBackpropInput",
                     {input_sizes, filter, out_backprop},
                     ConvAttrList(strides, padding, attrs)));
}

Output Conv2DBackpropFilter(const Scope& scope, Input input, Input filter_sizes,
                            Input out_backprop, std::vector<int64_t> strides,
                            std::string padding,
                            const Conv2DBackpropFilterAttrs& attrs) {
  return First(Build(scope, "Conv2DBackpropFilter",
                     {input, filter_sizes, out_backprop},
                     ConvAttrList(strides, padding, attrs)));
}

Output DepthwiseConv2dNative(const Scope& scope, Input input, Input filter,
                             std::vector<int64_t> strides, std::string padding,
                             const DepthwiseConv2dNativeAttrs& attrs) {
  return First(Build(scope, "DepthwiseConv2dNative", {input, filter},
                     DepthwiseAttrList(strides, padding, attrs)));
}

Output DepthwiseConv2dNativeBackpropInput(
    const Scope& scope, Input input_sizes, Input filter, Input out_backprop,
    std::vector<int64_t> strides, std::string padding,
    const DepthwiseConv2dNativeAttrs& attrs) {
  return First(Build(scope, "DepthwiseConv2dNativeBackpropInput",
                     {input_sizes, filter, out_backprop},
                     DepthwiseAttrList(strides, padding, attrs)));
}

Output DepthwiseConv2dNativeBackpropFilter(
    const Scope& scope, Input input, Input filter_sizes, Input out_backprop,
    std::vector<int64_t> strides, std::string padding,
    const DepthwiseConv2dNativeAttrs& attrs) {
  return First(Build(scope, "DepthwiseConv2dNativeBackpropFilter",
                     {input, filter_sizes, out_backprop},
                     DepthwiseAttrList(strides, padding, attrs)));
}

Output MaxPool(const Scope& scope, Input input, std::vector<int64_t> ksize,
               std::vector<int64_t> strides, std::string padding,
               const MaxPoolAttrs& attrs) {
  return First(Build(scope, "MaxPool", {input},
                     PoolAttrList(ksize, strides, padding, attrs.data_format,
                                  &attrs.explicit_paddings)));
}

Output AvgPool(const Scope& scope, Input value, std::vector<int64_t> ksize,
               std::vector<int64_t> strides, std::string padding,
               const AvgPoolAttrs& attrs) {
  return First(
      Build(scope, "AvgPool", {value},
            PoolAttrList(ksize, strides, padding, attrs.data_format, nullptr)));
}

Output MaxPoolGrad(const Scope& scope, Input orig_input, Input orig_output,
                   Input grad, std::vector<int64_t> ksize,
                   std::vector<int64_t> strides, std::string padding,
                   const MaxPoolGradAttrs& attrs) {
  return First(Build(scope, "MaxPoolGrad", {orig_input, orig_output, grad},
                     PoolAttrList(ksize, strides, padding, attrs.data_format,
                                  &attrs.explicit_paddings)));
}

Output AvgPoolGrad(const Scope& scope, Input orig_input_shape, Input grad,
                   std::vector<int64_t> ksize, std::vector<int64_t> strides,
                   std::string padding, const AvgPoolGradAttrs& attrs) {
  return First(
      Build(scope, "AvgPoolGrad", {orig_input_shape, grad},
            PoolAttrList(ksize, strides, padding, attrs.data_format, nullptr)));
}

Output LRN(const Scope& scope, Input input, const LRNAttrs& attrs) {
  return First(Build(scope, "LRN", {input}, LRNAttrList(attrs)));
}

Output LRNGrad(const Scope& scope, Input input_grads, Input input_image,
               Input output_image, const LRNGradAttrs& attrs) {
  return First(Build(scope, "LRNGrad", {input_grads, input_image, output_image},
                     LRNAttrList(attrs)));
}

}  // namespace ops
}  // namespace dflow
