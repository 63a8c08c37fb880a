// The cuDNN side of conv_ops_gpu.cc's launchers: the descriptors of one
// convolution and the choice of its algorithm.
//
// An algorithm is chosen once per (GPU, direction, dtype, TF32 setting,
// geometry) and cached for the life of the process: timed on the GPU by
// cudnnFind*AlgorithmEx (the default; SetGpuConvAutotune(false): cuDNN's
// heuristic ranking instead) within a workspace of up to 1 GiB taken from
// the launch's scratch. With TF32 off, float convolutions run with
// CUDNN_FMA_MATH and candidates on tensor cores are refused, so results
// keep float precision.
#ifndef DFLOW_KERNELS_GPU_CONV_ALGORITHMS_GPU_H_
#define DFLOW_KERNELS_GPU_CONV_ALGORITHMS_GPU_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/gpu/conv_ops_gpu.h"
#include "kernels/gpu/dnn_handles.h"

namespace dflow {

// "convolution of input [...] (NHWC) with filter [...] to [...], strides
// ..., dilations ..., leading padding ...", for messages.
std::string DescribeConvolution(const GpuConvParams& p);

#if DFLOW_HAVE_CUDNN

enum class ConvKind { kForward = 0, kBackwardData = 1, kBackwardFilter = 2 };

// The op computing `kind`: "Conv2D", "Conv2DBackpropInput", ...
const char* ConvKindName(ConvKind kind);

// The tensor, filter and convolution descriptors of one convolution: x is
// the (padded) input, y the output, the filter KRSC (plan's layouts).
class ConvDescriptors {
 public:
  ConvDescriptors() = default;
  ~ConvDescriptors();
  ConvDescriptors(const ConvDescriptors&) = delete;
  ConvDescriptors& operator=(const ConvDescriptors&) = delete;

  // Also checks that cuDNN's output size is the plan's.
  absl::Status Init(const GpuConvParams& p, const ConvDnnPlan& plan,
                    cudnnDataType_t type);
  absl::Status SetMath(cudnnMathType_t math);

  cudnnTensorDescriptor_t x() const { return x_.get(); }
  cudnnTensorDescriptor_t y() const { return y_.get(); }
  cudnnFilterDescriptor_t filter() const { return filter_; }
  cudnnConvolutionDescriptor_t conv() const { return conv_; }

 private:
  DnnTensorDescriptor x_, y_;
  cudnnFilterDescriptor_t filter_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
};

// The device buffers of one call (what cudnnFind*Ex runs on): x and dx, w
// and dw, y and dy.
struct ConvBuffers {
  const void* x = nullptr;
  void* dx = nullptr;
  const void* w = nullptr;
  void* dw = nullptr;
  const void* dy = nullptr;
  void* y = nullptr;
};

struct ConvAlgorithm {
  int algo = 0;  // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t
  size_t workspace_bytes = 0;
};

// The algorithm for this convolution (cached, or chosen now), with `d`'s
// math type set to the one it runs with. `scratch` gives the workspace for
// timing candidates. Unimplemented when cuDNN has none.
absl::StatusOr<ConvAlgorithm> ChooseConvAlgorithm(
    const DnnContext& dnn, ConvKind kind, const GpuConvParams& p,
    const ConvDnnPlan& plan, cudnnDataType_t type, ConvDescriptors& d,
    const ConvBuffers& b, GpuScratchAllocator* scratch);

#endif  // DFLOW_HAVE_CUDNN

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_CONV_ALGORITHMS_GPU_H_
