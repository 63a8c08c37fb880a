#include "kernels/gpu/conv_ops_gpu.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/gpu/conv_algorithms_gpu.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {

namespace {

// One spatial dimension: cuDNN's symmetric padding and the extra zeros.
absl::Status PlanDim(const GpuConvParams& p, int64_t in, int64_t window,
                     int64_t dilation, int64_t stride, int64_t pad_before,
                     int64_t out, const char* name, int64_t* pad,
                     int64_t* extra_before, int64_t* extra_after) {
  const int64_t effective = (window - 1) * dilation + 1;
  // Padding after the last input element that the last window reaches.
  const int64_t pad_after =
      std::max<int64_t>(0, (out - 1) * stride + effective - in - pad_before);
  *pad = std::min(pad_before, pad_after);
  *extra_before = pad_before - *pad;
  *extra_after = pad_after - *pad;
  // cuDNN's output size for the padded input must be TensorFlow's.
  const int64_t span = in + pad_before + pad_after - effective;
  if (span < 0 || span / stride + 1 != out) {
    return absl::InvalidArgumentError(absl::StrCat(
        DescribeConvolution(p), ": the output ", name, " ", out,
        " does not follow from the input, window and leading padding"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ConvDnnPlan> PlanConvolution(const GpuConvParams& p) {
  // in_depth 0 would make 0 groups (cuDNN's group count divides).
  if (p.batch < 0 || p.in_rows < 0 || p.in_cols < 0 || p.in_depth < 1 ||
      p.filter_rows < 1 || p.filter_cols < 1 || p.filter_depth < 1 ||
      p.out_depth < 0 || p.out_rows < 0 || p.out_cols < 0 ||
      p.stride_rows < 1 || p.stride_cols < 1 || p.dilation_rows < 1 ||
      p.dilation_cols < 1 || p.pad_top < 0 || p.pad_left < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(DescribeConvolution(p),
                     ": sizes must be >= 0, input channels, filter sizes, "
                     "strides and dilations >= 1"));
  }
  ConvDnnPlan plan;
  if (p.in_depth % p.filter_depth != 0 ||
      (p.in_depth / p.filter_depth > 1 &&
       p.out_depth % (p.in_depth / p.filter_depth) != 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(DescribeConvolution(p),
                     ": the filter's input channels must divide the "
                     "input's, and the groups the output channels"));
  }
  plan.groups = p.in_depth / p.filter_depth;
  if (absl::Status s =
          PlanDim(p, p.in_rows, p.filter_rows, p.dilation_rows, p.stride_rows,
                  p.pad_top, p.out_rows, "height", &plan.pad_rows,
                  &plan.extra_top, &plan.extra_bottom);
      !s.ok() && p.out_rows > 0) {
    return s;
  }
  if (absl::Status s =
          PlanDim(p, p.in_cols, p.filter_cols, p.dilation_cols, p.stride_cols,
                  p.pad_left, p.out_cols, "width", &plan.pad_cols,
                  &plan.extra_left, &plan.extra_right);
      !s.ok() && p.out_cols > 0) {
    return s;
  }
  plan.input = NhwcLayout(p.batch, p.in_rows, p.in_cols, p.in_depth);
  plan.padded_input =
      NhwcLayout(p.batch, p.in_rows + plan.extra_top + plan.extra_bottom,
                 p.in_cols + plan.extra_left + plan.extra_right, p.in_depth);
  plan.padded_interior = plan.padded_input;
  plan.padded_interior.h = p.in_rows;
  plan.padded_interior.w = p.in_cols;
  plan.interior_offset = plan.extra_top * plan.padded_input.stride_h +
                         plan.extra_left * plan.padded_input.stride_w;
  // HWIO: element (k, c, r, s) at ((r * S + s) * C + c) * K + k.
  DnnTensorLayout& hwio = plan.filter_hwio;
  hwio.n = p.out_depth;
  hwio.c = p.filter_depth;
  hwio.h = p.filter_rows;
  hwio.w = p.filter_cols;
  hwio.stride_n = 1;
  hwio.stride_c = p.out_depth;
  hwio.stride_w = p.filter_depth * p.out_depth;
  hwio.stride_h = p.filter_cols * hwio.stride_w;
  plan.filter_krsc =
      NhwcLayout(p.out_depth, p.filter_rows, p.filter_cols, p.filter_depth);
  plan.output = NhwcLayout(p.batch, p.out_rows, p.out_cols, p.out_depth);
  for (const auto& [layout, what] :
       {std::pair(&plan.padded_input, "the (padded) input"),
        std::pair(&plan.filter_hwio, "the filter"),
        std::pair(&plan.output, "the output")}) {
    if (absl::Status s = CheckDnnLimits(*layout, what); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(DescribeConvolution(p), ": ", s.message()));
    }
  }
  return plan;
}

#if DFLOW_HAVE_CUDNN

namespace {

// What every launch does: plan, empty cases, descriptors, algorithm.
struct ConvLaunch {
  ConvLaunch(int gpu, void* gpu_stream, const GpuConvParams& p,
             GpuScratchAllocator* given_scratch)
      : ordinal(gpu), stream(gpu_stream), params(p), scratch(given_scratch) {
    if (scratch == nullptr) {
      own_scratch.emplace(ordinal, stream);
      scratch = &*own_scratch;
    }
  }

  absl::Status Prepare() {
    absl::StatusOr<ConvDnnPlan> planned = PlanConvolution(params);
    if (!planned.ok()) return planned.status();
    plan = *std::move(planned);
    absl::StatusOr<cudnnDataType_t> dnn_type =
        DnnDataType(params.dtype, "Conv2D");
    if (!dnn_type.ok()) return dnn_type.status();
    type = *dnn_type;
    return absl::OkStatus();
  }

  absl::Status Zero(void* dst, int64_t elements) {
    DFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal), "cudaSetDevice");
    return CudaStatus(cudaMemsetAsync(dst, 0, Bytes(elements),
                                      static_cast<cudaStream_t>(stream)),
                      "cudaMemsetAsync");
  }

  size_t Bytes(int64_t elements) const {
    return static_cast<size_t>(elements) * DataTypeSize(params.dtype);
  }

  absl::StatusOr<void*> Scratch(int64_t elements) {
    return scratch->Allocate(Bytes(elements));
  }

  // A zeroed padded copy of `input`, or `input` itself when unpadded.
  absl::StatusOr<const void*> PaddedInput(const DnnContext& dnn,
                                          const void* input) {
    if (!plan.padded()) return input;
    absl::StatusOr<void*> padded = Scratch(plan.padded_input.num_elements());
    if (!padded.ok()) return padded.status();
    absl::Status s = Zero(*padded, plan.padded_input.num_elements());
    if (s.ok()) {
      s = DnnTransform(
          dnn, type, plan.input, input, plan.padded_interior,
          static_cast<char*>(*padded) + Bytes(plan.interior_offset));
    }
    if (!s.ok()) return s;
    return static_cast<const void*>(*padded);
  }

  // Descriptors and the algorithm for `kind`; then the workspace.
  absl::Status Setup(const DnnContext& dnn, ConvKind kind,
                     const ConvBuffers& b) {
    absl::Status s = descriptors.Init(params, plan, type);
    if (!s.ok()) return s;
    absl::StatusOr<ConvAlgorithm> chosen = ChooseConvAlgorithm(
        dnn, kind, params, plan, type, descriptors, b, scratch);
    if (!chosen.ok()) return chosen.status();
    algo = chosen->algo;
    workspace_bytes = chosen->workspace_bytes;
    if (workspace_bytes > 0) {
      absl::StatusOr<void*> ws = scratch->Allocate(workspace_bytes);
      if (!ws.ok()) return ws.status();
      workspace = *ws;
    }
    return absl::OkStatus();
  }

  // Scaling factors: double for double tensors, float otherwise.
  const void* one() const {
    return type == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&one_d)
                                     : &one_f;
  }
  const void* zero() const {
    return type == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&zero_d)
                                     : &zero_f;
  }

  absl::Status Annotate(const absl::Status& s, ConvKind kind) const {
    if (s.ok()) return s;
    return absl::Status(
        s.code(),
        absl::StrCat(ConvKindName(kind), " on GPU:", ordinal, " (",
                     DescribeConvolution(params), "): ", s.message()));
  }

  int ordinal;
  void* stream;
  GpuConvParams params;
  GpuScratchAllocator* scratch;
  std::optional<StreamOrderedScratch> own_scratch;
  ConvDnnPlan plan;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  ConvDescriptors descriptors;
  int algo = 0;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  const float one_f = 1, zero_f = 0;
  const double one_d = 1, zero_d = 0;
};

}  // namespace

absl::Status LaunchConv2D(int ordinal, void* stream, const GpuConvParams& p,
                          const void* input, const void* filter, void* output,
                          GpuScratchAllocator* scratch) {
  ConvLaunch l(ordinal, stream, p, scratch);
  const ConvKind kind = ConvKind::kForward;
  absl::Status s = l.Prepare();
  if (!s.ok() || l.plan.output.num_elements() == 0) return l.Annotate(s, kind);
  if (p.in_rows == 0 || p.in_cols == 0 || p.in_depth == 0) {
    return l.Annotate(l.Zero(output, l.plan.output.num_elements()), kind);
  }
  return l.Annotate(
      DnnHandles::Global()->With(
          ordinal, stream,
          [&](const DnnContext& dnn) -> absl::Status {
            absl::StatusOr<void*> w =
                l.Scratch(l.plan.filter_krsc.num_elements());
            if (!w.ok()) return w.status();
            absl::Status s = DnnTransform(dnn, l.type, l.plan.filter_hwio,
                                          filter, l.plan.filter_krsc, *w);
            absl::StatusOr<const void*> x = l.PaddedInput(dnn, input);
            if (!s.ok() || !x.ok()) return s.ok() ? x.status() : s;
            ConvBuffers b;
            b.x = *x;
            b.w = *w;
            b.y = output;
            if (s = l.Setup(dnn, kind, b); !s.ok()) return s;
            return CudnnStatus(
                cudnnConvolutionForward(
                    dnn.handle, l.one(), l.descriptors.x(), *x,
                    l.descriptors.filter(), *w, l.descriptors.conv(),
                    static_cast<cudnnConvolutionFwdAlgo_t>(l.algo), l.workspace,
                    l.workspace_bytes, l.zero(), l.descriptors.y(), output),
                "cudnnConvolutionForward");
          }),
      kind);
}

absl::Status LaunchConv2DBackpropInput(
    int ordinal, void* stream, const GpuConvParams& p, const void* filter,
    const void* out_backprop, void* in_backprop, GpuScratchAllocator* scratch) {
  ConvLaunch l(ordinal, stream, p, scratch);
  const ConvKind kind = ConvKind::kBackwardData;
  absl::Status s = l.Prepare();
  if (!s.ok() || l.plan.input.num_elements() == 0) return l.Annotate(s, kind);
  if (l.plan.output.num_elements() == 0) {
    // No output position reads the input: its gradient is zero.
    return l.Annotate(l.Zero(in_backprop, l.plan.input.num_elements()), kind);
  }
  return l.Annotate(
      DnnHandles::Global()->With(
          ordinal, stream,
          [&](const DnnContext& dnn) -> absl::Status {
            absl::StatusOr<void*> w =
                l.Scratch(l.plan.filter_krsc.num_elements());
            if (!w.ok()) return w.status();
            absl::Status s = DnnTransform(dnn, l.type, l.plan.filter_hwio,
                                          filter, l.plan.filter_krsc, *w);
            if (!s.ok()) return s;
            void* dx = in_backprop;
            if (l.plan.padded()) {
              absl::StatusOr<void*> padded =
                  l.Scratch(l.plan.padded_input.num_elements());
              if (!padded.ok()) return padded.status();
              dx = *padded;
            }
            ConvBuffers b;
            b.w = *w;
            b.dy = out_backprop;
            b.dx = dx;
            if (s = l.Setup(dnn, kind, b); !s.ok()) return s;
            s = CudnnStatus(
                cudnnConvolutionBackwardData(
                    dnn.handle, l.one(), l.descriptors.filter(), *w,
                    l.descriptors.y(), out_backprop, l.descriptors.conv(),
                    static_cast<cudnnConvolutionBwdDataAlgo_t>(l.algo),
                    l.workspace, l.workspace_bytes, l.zero(), l.descriptors.x(),
                    dx),
                "cudnnConvolutionBackwardData");
            if (!s.ok() || dx == in_backprop) return s;
            // The padding's gradient is dropped.
            return DnnTransform(
                dnn, l.type, l.plan.padded_interior,
                static_cast<const char*>(dx) + l.Bytes(l.plan.interior_offset),
                l.plan.input, in_backprop);
          }),
      kind);
}

absl::Status LaunchConv2DBackpropFilter(int ordinal, void* stream,
                                        const GpuConvParams& p,
                                        const void* input,
                                        const void* out_backprop,
                                        void* filter_backprop,
                                        GpuScratchAllocator* scratch) {
  ConvLaunch l(ordinal, stream, p, scratch);
  const ConvKind kind = ConvKind::kBackwardFilter;
  absl::Status s = l.Prepare();
  if (!s.ok() || l.plan.filter_hwio.num_elements() == 0) {
    return l.Annotate(s, kind);
  }
  if (l.plan.output.num_elements() == 0 || l.plan.input.num_elements() == 0) {
    // An empty sum over the batch and positions.
    return l.Annotate(
        l.Zero(filter_backprop, l.plan.filter_hwio.num_elements()), kind);
  }
  return l.Annotate(
      DnnHandles::Global()->With(
          ordinal, stream,
          [&](const DnnContext& dnn) -> absl::Status {
            absl::StatusOr<void*> dw =
                l.Scratch(l.plan.filter_krsc.num_elements());
            if (!dw.ok()) return dw.status();
            absl::StatusOr<const void*> x = l.PaddedInput(dnn, input);
            if (!x.ok()) return x.status();
            ConvBuffers b;
            b.x = *x;
            b.dy = out_backprop;
            b.dw = *dw;
            absl::Status s = l.Setup(dnn, kind, b);
            if (!s.ok()) return s;
            s = CudnnStatus(
                cudnnConvolutionBackwardFilter(
                    dnn.handle, l.one(), l.descriptors.x(), *x,
                    l.descriptors.y(), out_backprop, l.descriptors.conv(),
                    static_cast<cudnnConvolutionBwdFilterAlgo_t>(l.algo),
                    l.workspace, l.workspace_bytes, l.zero(),
                    l.descriptors.filter(), *dw),
                "cudnnConvolutionBackwardFilter");
            if (!s.ok()) return s;
            return DnnTransform(dnn, l.type, l.plan.filter_krsc, *dw,
                                l.plan.filter_hwio, filter_backprop);
          }),
      kind);
}

#else  // !DFLOW_HAVE_CUDNN

namespace {
absl::Status NoCudnn(const GpuConvParams& p, const char* op) {
  absl::StatusOr<ConvDnnPlan> plan = PlanConvolution(p);
  if (!plan.ok()) return plan.status();
  return BuiltWithoutCudaError(absl::StrCat(op, " on GPU"));
}
}  // namespace

absl::Status LaunchConv2D(int, void*, const GpuConvParams& p, const void*,
                          const void*, void*, GpuScratchAllocator*) {
  return NoCudnn(p, "Conv2D");
}
absl::Status LaunchConv2DBackpropInput(int, void*, const GpuConvParams& p,
                                       const void*, const void*, void*,
                                       GpuScratchAllocator*) {
  return NoCudnn(p, "Conv2DBackpropInput");
}
absl::Status LaunchConv2DBackpropFilter(int, void*, const GpuConvParams& p,
                                        const void*, const void*, void*,
                                        GpuScratchAllocator*) {
  return NoCudnn(p, "Conv2DBackpropFilter");
}

#endif  // DFLOW_HAVE_CUDNN

}  // namespace dflow
