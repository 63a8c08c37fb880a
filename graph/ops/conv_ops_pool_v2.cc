// Schemas, shape functions and wrappers of the max-pooling ops TensorFlow
// writes for windows given as tensors and for second-order gradients
// (conv_ops.h), following TensorFlow 2.21's core/ops/nn_ops.cc: MaxPoolV2
// and MaxPoolGradV2 (ksize and strides int32 inputs; tf.nn.max_pool2d with
// tensor ksize), MaxPoolGradGrad / V2 (the gradient of MaxPoolGrad, which
// tf.gradients writes for the second derivative of max pooling). The CPU
// kernels are kernels/cpu/pooling_ops.cc and pooling_ops_grad.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "graph/ops/conv_ops.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/shape_inference.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace {

using shape_fn_util::FirstOutput;
using shape_fn_util::InvalidArgument;

constexpr int64_t kUnknown = TensorShape::kUnknownDim;

// MaxPoolV2's output: the input's batch and channels (NHWC), the pooled
// height and width when ksize and strides are constants.
absl::Status MaxPoolV2Shape(InferenceContext* c) {
  TensorShape in, v;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, "input 'input'", &in));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, "input 'ksize'", &v));
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, "input 'strides'", &v));
  std::string format, padding;
  DFLOW_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  DFLOW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  if (format != "NHWC") {
    c->set_output(0, TensorShape({kUnknown, kUnknown, kUnknown, kUnknown}));
    return absl::OkStatus();
  }
  TensorShape out({in.dim(0), kUnknown, kUnknown, in.dim(3)});
  std::vector<int64_t> ksize, strides;
  if (c->ConstantInputAsInts(1, &ksize) && c->ConstantInputAsInts(2, &strides)) {
    if (ksize.size() != 4 || strides.size() != 4) {
      return InvalidArgument("ksize and strides must have 4 entries (NHWC), ",
                             "got ", ksize.size(), " and ", strides.size());
    }
    for (int i = 0; i < 4; ++i) {
      if (ksize[i] < 1 || strides[i] < 1) {
        return InvalidArgument("ksize and strides must be positive");
      }
    }
    for (int i = 1; i <= 2; ++i) {
      const int64_t d = in.dim(i);
      if (d == kUnknown) continue;
      if (padding == "SAME") {
        out.set_dim(i, (d + strides[i] - 1) / strides[i]);
      } else if (d < ksize[i]) {
        return InvalidArgument("input ", in.ToString(), " is smaller than ",
                               "the window ", ksize[i], " in dimension ", i,
                               " with VALID padding");
      } else {
        out.set_dim(i, (d - ksize[i]) / strides[i] + 1);
      }
    }
    if (in.dim(3) != kUnknown && ksize[3] > 1) {
      out.set_dim(3, in.dim(3) / ksize[3]);
    }
  }
  c->set_output(0, out);
  return absl::OkStatus();
}

// The output has the shape of input `i` (rank 4).
absl::Status ShapeOfInput(InferenceContext* c, int i) {
  TensorShape s;
  DFLOW_RETURN_IF_ERROR(c->WithRank(c->input(i), 4, "a pooling input", &s));
  c->set_output(0, s);
  return absl::OkStatus();
}

constexpr char kMaxPoolTypes[] =
    "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
    "uint16, qint8} = DT_FLOAT";
constexpr char kGradTypes[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64}";

DFLOW_REGISTER_OP("MaxPoolV2")
    .Input("input: T")
    .Input("ksize: int32")
    .Input("strides: int32")
    .Output("output: T")
    .Attr(kMaxPoolTypes)
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn(MaxPoolV2Shape)
    .Doc("MaxPool with ksize and strides as int32 inputs.");

DFLOW_REGISTER_OP("MaxPoolGradV2")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Input("ksize: int32")
    .Input("strides: int32")
    .Output("output: T")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr(std::string(kGradTypes) + " = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) { return ShapeOfInput(c, 0); })
    .Doc("MaxPoolGrad with ksize and strides as int32 inputs.");

DFLOW_REGISTER_OP("MaxPoolGradGrad")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr(kGradTypes)
    .SetShapeFn([](InferenceContext* c) { return ShapeOfInput(c, 1); })
    .Doc("The gradient of MaxPoolGrad with respect to its grad: grad (shaped "
         "as orig_input) at each window's maximum, shaped as orig_output.");

DFLOW_REGISTER_OP("MaxPoolGradGradV2")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Input("ksize: int32")
    .Input("strides: int32")
    .Output("output: T")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr(kGradTypes)
    .SetShapeFn([](InferenceContext* c) { return ShapeOfInput(c, 1); })
    .Doc("MaxPoolGradGrad with ksize and strides as int32 inputs.");

}  // namespace

namespace ops {

Output MaxPoolV2(const Scope& scope, Input input, Input ksize, Input strides,
                 const std::string& padding) {
  return FirstOutput(OpBuilder(scope, "MaxPoolV2")
                         .Input(input)
                         .Input(ksize)
                         .Input(strides)
                         .Attr("padding", padding)
                         .Finalize());
}

Output MaxPoolGradV2(const Scope& scope, Input orig_input, Input orig_output,
                     Input grad, Input ksize, Input strides,
                     const std::string& padding) {
  return FirstOutput(OpBuilder(scope, "MaxPoolGradV2")
                         .Input(orig_input)
                         .Input(orig_output)
                         .Input(grad)
                         .Input(ksize)
                         .Input(strides)
                         .Attr("padding", padding)
                         .Finalize());
}

Output MaxPoolGradGrad(const Scope& scope, Input orig_input,
                       Input orig_output, Input grad,
                       std::vector<int64_t> ksize,
                       std::vector<int64_t> strides,
                       const std::string& padding) {
  return FirstOutput(OpBuilder(scope, "MaxPoolGradGrad")
                         .Input(orig_input)
                         .Input(orig_output)
                         .Input(grad)
                         .Attr("ksize", ksize)
                         .Attr("strides", strides)
                         .Attr("padding", padding)
                         .Finalize());
}

Output MaxPoolGradGradV2(const Scope& scope, Input orig_input,
                         Input orig_output, Input grad, Input ksize,
                         Input strides, const std::string& padding) {
  return FirstOutput(OpBuilder(scope, "MaxPoolGradGradV2")
                         .Input(orig_input)
                         .Input(orig_output)
                         .Input(grad)
                         .Input(ksize)
                         .Input(strides)
                         .Attr("padding", padding)
                         .Finalize());
}

}  // namespace ops
}  // namespace dflow
