#include "kernels/gpu/pooling_ops_gpu.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {

namespace {

std::string Describe(const GpuPoolParams& p) {
  return absl::StrCat(
      "pooling of input [", p.batch, ", ", p.in_rows, ", ", p.in_cols, ", ",
      p.depth, "] (NHWC) to [", p.batch, ", ", p.out_rows, ", ", p.out_cols,
      ", ", p.out_depth, "] with window [", p.window_rows, ", ", p.window_cols,
      ", ", p.depth_window, "], strides [", p.stride_rows, ", ", p.stride_cols,
      "], leading padding [", p.pad_top, ", ", p.pad_left, "]");
}

}  // namespace

absl::StatusOr<PoolDnnPlan> PlanPooling(const GpuPoolParams& p) {
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(Describe(p), ": ", why));
  };
  if (p.batch < 0 || p.in_rows < 0 || p.in_cols < 0 || p.depth < 0 ||
      p.out_rows < 0 || p.out_cols < 0 || p.out_depth < 0 ||
      p.window_rows < 1 || p.window_cols < 1 || p.depth_window < 1 ||
      p.stride_rows < 1 || p.stride_cols < 1 || p.pad_top < 0 ||
      p.pad_left < 0) {
    return invalid("sizes must be >= 0, windows and strides >= 1");
  }
  PoolDnnPlan plan;
  if (p.depth_window > 1) {
    if (p.window_rows != 1 || p.window_cols != 1 || p.stride_rows != 1 ||
        p.stride_cols != 1 || p.depth % p.depth_window != 0 ||
        p.out_depth * p.depth_window != p.depth || p.out_rows != p.in_rows ||
        p.out_cols != p.in_cols) {
      return invalid(
          "pooling across channels needs a channel window dividing the "
          "channels and no spatial pooling");
    }
    // Every pixel's channels as one row of `depth` elements.
    const int64_t pixels = p.batch * p.in_rows * p.in_cols;
    plan.input = {pixels, 1, 1, p.depth, p.depth, p.depth, p.depth, 1};
    plan.output = {pixels,      1,           1,           p.out_depth,
                   p.out_depth, p.out_depth, p.out_depth, 1};
    plan.window_w = plan.stride_w = p.depth_window;
  } else {
    if (p.out_depth != p.depth) {
      return invalid("the output must have the input's channels");
    }
    if (p.pad_top >= p.window_rows || p.pad_left >= p.window_cols) {
      return invalid("the padding must be smaller than the window");
    }
    // Each window must start inside the padded input (and so, the padding
    // being smaller than the window, cover some input).
    if ((p.out_rows > 0 &&
         (p.out_rows - 1) * p.stride_rows - p.pad_top >= p.in_rows) ||
        (p.out_cols > 0 &&
         (p.out_cols - 1) * p.stride_cols - p.pad_left >= p.in_cols)) {
      return invalid("the output has windows past the end of the input");
    }
    plan.input = NhwcLayout(p.batch, p.in_rows, p.in_cols, p.depth);
    plan.output = NhwcLayout(p.batch, p.out_rows, p.out_cols, p.depth);
    plan.window_h = p.window_rows;
    plan.window_w = p.window_cols;
    plan.pad_h = p.pad_top;
    plan.pad_w = p.pad_left;
    plan.stride_h = p.stride_rows;
    plan.stride_w = p.stride_cols;
  }
  for (const DnnTensorLayout* l : {&plan.input, &plan.output}) {
    if (absl::Status s = CheckDnnLimits(*l, "a pooling tensor"); !s.ok()) {
      return invalid(s.message());
    }
  }
  return plan;
}

#if DFLOW_HAVE_CUDNN

namespace {

enum class PoolOp { kMax, kAvg, kMaxGrad, kAvgGrad };

const char* OpName(PoolOp op) {
  switch (op) {
    case PoolOp::kMax:
      return "MaxPool";
    case PoolOp::kAvg:
      return "AvgPool";
    case PoolOp::kMaxGrad:
      return "MaxPoolGrad";
    case PoolOp::kAvgGrad:
      return "AvgPoolGrad";
  }
  return "?";
}

class PoolingDescriptor {
 public:
  PoolingDescriptor() = default;
  ~PoolingDescriptor() {
    if (desc_ != nullptr) cudnnDestroyPoolingDescriptor(desc_);
  }
  PoolingDescriptor(const PoolingDescriptor&) = delete;
  PoolingDescriptor& operator=(const PoolingDescriptor&) = delete;

  absl::Status Init(const PoolDnnPlan& plan, bool max) {
    absl::Status s = CudnnStatus(cudnnCreatePoolingDescriptor(&desc_),
                                 "cudnnCreatePoolingDescriptor");
    if (!s.ok()) return s;
    // The deterministic max pooling routes each gradient to one element;
    // the other max mode may split ties differently from run to run.
    return CudnnStatus(
        cudnnSetPooling2dDescriptor(
            desc_,
            max ? CUDNN_POOLING_MAX_DETERMINISTIC
                : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
            CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(plan.window_h),
            static_cast<int>(plan.window_w), static_cast<int>(plan.pad_h),
            static_cast<int>(plan.pad_w), static_cast<int>(plan.stride_h),
            static_cast<int>(plan.stride_w)),
        "cudnnSetPooling2dDescriptor");
  }
  cudnnPoolingDescriptor_t get() const { return desc_; }

 private:
  cudnnPoolingDescriptor_t desc_ = nullptr;
};

// x: the input; y: the output; dy, dx: their gradients (backward only).
struct PoolBuffers {
  const void* x = nullptr;
  void* y = nullptr;
  const void* y_in = nullptr;
  const void* dy = nullptr;
  void* dx = nullptr;
};

absl::Status Launch(PoolOp op, int ordinal, void* stream,
                    const GpuPoolParams& p, const PoolBuffers& b) {
  auto annotate = [&](const absl::Status& s) {
    if (s.ok()) return s;
    return absl::Status(s.code(),
                        absl::StrCat(OpName(op), " on GPU:", ordinal, " (",
                                     Describe(p), "): ", s.message()));
  };
  absl::StatusOr<PoolDnnPlan> plan = PlanPooling(p);
  if (!plan.ok()) return annotate(plan.status());
  const bool backward = op == PoolOp::kMaxGrad || op == PoolOp::kAvgGrad;
  if (backward && p.depth_window > 1) {
    return annotate(absl::UnimplementedError(
        "the gradient of pooling across channels is not supported (as in "
        "TensorFlow)"));
  }
  absl::StatusOr<cudnnDataType_t> type = DnnDataType(p.dtype, OpName(op));
  if (!type.ok()) return annotate(type.status());
  const int64_t in_elements = plan->input.num_elements();
  const int64_t out_elements = plan->output.num_elements();
  if (!backward && out_elements == 0) return absl::OkStatus();
  if (backward && in_elements == 0) return absl::OkStatus();
  if (backward && out_elements == 0) {
    // No window: every input gradient is zero.
    absl::Status s = CudaStatus(cudaSetDevice(ordinal), "cudaSetDevice");
    if (s.ok()) {
      s = CudaStatus(
          cudaMemsetAsync(b.dx, 0, in_elements * DataTypeSize(p.dtype),
                          static_cast<cudaStream_t>(stream)),
          "cudaMemsetAsync");
    }
    return annotate(s);
  }
  return annotate(DnnHandles::Global()->With(
      ordinal, stream, [&](const DnnContext& dnn) -> absl::Status {
        PoolingDescriptor pool;
        DnnTensorDescriptor x_desc, y_desc;
        absl::Status s =
            pool.Init(*plan, op == PoolOp::kMax || op == PoolOp::kMaxGrad);
        if (s.ok()) s = x_desc.Init(*type, plan->input);
        if (s.ok()) s = y_desc.Init(*type, plan->output);
        if (!s.ok()) return s;
        const double one_d = 1, zero_d = 0;
        const float one_f = 1, zero_f = 0;
        const bool is_double = *type == CUDNN_DATA_DOUBLE;
        const void* one = is_double ? static_cast<const void*>(&one_d) : &one_f;
        const void* zero =
            is_double ? static_cast<const void*>(&zero_d) : &zero_f;
        if (!backward) {
          return CudnnStatus(
              cudnnPoolingForward(dnn.handle, pool.get(), one, x_desc.get(),
                                  b.x, zero, y_desc.get(), b.y),
              "cudnnPoolingForward");
        }
        // Average pooling reads neither x nor y, but cuDNN wants both: any
        // buffers of the right sizes do (TensorFlow passes uninitialized
        // ones), here dy for y and dx for x.
        const void* y = op == PoolOp::kMaxGrad ? b.y_in : b.dy;
        const void* x = op == PoolOp::kMaxGrad ? b.x : b.dx;
        return CudnnStatus(
            cudnnPoolingBackward(dnn.handle, pool.get(), one, y_desc.get(), y,
                                 y_desc.get(), b.dy, x_desc.get(), x, zero,
                                 x_desc.get(), b.dx),
            "cudnnPoolingBackward");
      }));
}

}  // namespace

absl::Status LaunchMaxPool(int ordinal, void* stream, const GpuPoolParams& p,
                           const void* input, void* output) {
  PoolBuffers b;
  b.x = input;
  b.y = output;
  return Launch(PoolOp::kMax, ordinal, stream, p, b);
}

absl::Status LaunchAvgPool(int ordinal, void* stream, const GpuPoolParams& p,
                           const void* input, void* output) {
  if (p.depth_window > 1) {
    return absl::InvalidArgumentError(
        "AvgPool does not pool across channels (as in TensorFlow)");
  }
  PoolBuffers b;
  b.x = input;
  b.y = output;
  return Launch(PoolOp::kAvg, ordinal, stream, p, b);
}

absl::Status LaunchMaxPoolGrad(int ordinal, void* stream,
                               const GpuPoolParams& p, const void* input,
                               const void* orig_output, const void* grad,
                               void* input_grad) {
  PoolBuffers b;
  b.x = input;
  b.y_in = orig_output;
  b.dy = grad;
  b.dx = input_grad;
  return Launch(PoolOp::kMaxGrad, ordinal, stream, p, b);
}

absl::Status LaunchAvgPoolGrad(int ordinal, void* stream,
                               const GpuPoolParams& p, const void* grad,
                               void* input_grad) {
  PoolBuffers b;
  b.dy = grad;
  b.dx = input_grad;
  return Launch(PoolOp::kAvgGrad, ordinal, stream, p, b);
}

#else  // !DFLOW_HAVE_CUDNN

namespace {
absl::Status NoCudnn(const GpuPoolParams& p, const char* op) {
  absl::StatusOr<PoolDnnPlan> plan = PlanPooling(p);
  if (!plan.ok()) return plan.status();
  return BuiltWithoutCudaError(absl::StrCat(op, " on GPU"));
}
}  // namespace

absl::Status LaunchMaxPool(int, void*, const GpuPoolParams& p, const void*,
                           void*) {
  return NoCudnn(p, "MaxPool");
}
absl::Status LaunchAvgPool(int, void*, const GpuPoolParams& p, const void*,
                           void*) {
  return NoCudnn(p, "AvgPool");
}
absl::Status LaunchMaxPoolGrad(int, void*, const GpuPoolParams& p, const void*,
                               const void*, const void*, void*) {
  return NoCudnn(p, "MaxPoolGrad");
}
absl::Status LaunchAvgPoolGrad(int, void*, const GpuPoolParams& p, const void*,
                               void*) {
  return NoCudnn(p, "AvgPoolGrad");
}

#endif  // DFLOW_HAVE_CUDNN

}  // namespace dflow
