#include "kernels/gpu/lrn_ops_gpu.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/gpu/dnn_handles.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {

#if DFLOW_HAVE_CUDNN
static_assert(kCudnnLrnMinN == CUDNN_LRN_MIN_N, "cuDNN's LRN limits moved");
static_assert(kCudnnLrnMaxN == CUDNN_LRN_MAX_N, "cuDNN's LRN limits moved");
#endif

absl::StatusOr<CudnnLrnParams> ToCudnnLrn(const GpuLrnParams& p) {
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LRN on GPU (depth_radius ", p.depth_radius, ", bias ", p.bias,
        ", alpha ", p.alpha, ", beta ", p.beta, "): cuDNN requires ", why,
        "; place the op on CPU, which takes any parameters"));
  };
  if (p.depth_radius < 0 ||
      2 * p.depth_radius + 1 > static_cast<int64_t>(kCudnnLrnMaxN)) {
    return invalid(
        absl::StrCat("depth_radius in [0, ", (kCudnnLrnMaxN - 1) / 2, "]"));
  }
  if (!(p.bias >= kCudnnLrnMinK)) return invalid("bias >= 1e-5");
  if (!(p.beta >= kCudnnLrnMinBeta)) return invalid("beta >= 0.01");
  CudnnLrnParams c;
  c.n = static_cast<unsigned>(2 * p.depth_radius + 1);
  c.k = p.bias;
  c.alpha = static_cast<double>(p.alpha) * c.n;
  c.beta = p.beta;
  return c;
}

#if DFLOW_HAVE_CUDNN

namespace {

class LrnDescriptor {
 public:
  LrnDescriptor() = default;
  ~LrnDescriptor() {
    if (desc_ != nullptr) cudnnDestroyLRNDescriptor(desc_);
  }
  LrnDescriptor(const LrnDescriptor&) = delete;
  LrnDescriptor& operator=(const LrnDescriptor&) = delete;

  absl::Status Init(const CudnnLrnParams& c) {
    absl::Status s = CudnnStatus(cudnnCreateLRNDescriptor(&desc_),
                                 "cudnnCreateLRNDescriptor");
    if (!s.ok()) return s;
    return CudnnStatus(cudnnSetLRNDescriptor(desc_, c.n, c.alpha, c.beta, c.k),
                       "cudnnSetLRNDescriptor");
  }
  cudnnLRNDescriptor_t get() const { return desc_; }

 private:
  cudnnLRNDescriptor_t desc_ = nullptr;
};

struct LrnBuffers {
  const void* x = nullptr;
  const void* y_in = nullptr;  // the forward output (gradient only)
  void* y = nullptr;
  const void* dy = nullptr;
  void* dx = nullptr;
};

absl::Status Launch(bool backward, int ordinal, void* stream, DataType dtype,
                    const std::array<int64_t, 4>& shape, const GpuLrnParams& p,
                    const LrnBuffers& b) {
  const char* op = backward ? "LRNGrad" : "LRN";
  auto annotate = [&](const absl::Status& s) {
    if (s.ok()) return s;
    return absl::Status(
        s.code(),
        absl::StrCat(op, " on GPU:", ordinal, " of [", shape[0], ", ", shape[1],
                     ", ", shape[2], ", ", shape[3], "]: ", s.message()));
  };
  absl::StatusOr<CudnnLrnParams> c = ToCudnnLrn(p);
  if (!c.ok()) return annotate(c.status());
  absl::StatusOr<cudnnDataType_t> type = DnnDataType(dtype, op);
  if (!type.ok()) return annotate(type.status());
  for (int64_t d : shape) {
    if (d < 0) {
      return annotate(absl::InvalidArgumentError("sizes must be >= 0"));
    }
  }
  const DnnTensorLayout layout =
      NhwcLayout(shape[0], shape[1], shape[2], shape[3]);
  if (layout.num_elements() == 0) return absl::OkStatus();
  if (absl::Status s = CheckDnnLimits(layout, "the LRN tensor"); !s.ok()) {
    return annotate(s);
  }
  return annotate(DnnHandles::Global()->With(
      ordinal, stream, [&](const DnnContext& dnn) -> absl::Status {
        LrnDescriptor lrn;
        DnnTensorDescriptor desc;
        absl::Status s = lrn.Init(*c);
        if (s.ok()) s = desc.Init(*type, layout);
        if (!s.ok()) return s;
        const double one_d = 1, zero_d = 0;
        const float one_f = 1, zero_f = 0;
        const bool is_double = *type == CUDNN_DATA_DOUBLE;
        const void* one = is_double ? static_cast<const void*>(&one_d) : &one_f;
        const void* zero =
            is_double ? static_cast<const void*>(&zero_d) : &zero_f;
        if (!backward) {
          return CudnnStatus(
              cudnnLRNCrossChannelForward(
                  dnn.handle, lrn.get(), CUDNN_LRN_CROSS_CHANNEL_DIM1, one,
                  desc.get(), b.x, zero, desc.get(), b.y),
              "cudnnLRNCrossChannelForward");
        }
        return CudnnStatus(
            cudnnLRNCrossChannelBackward(
                dnn.handle, lrn.get(), CUDNN_LRN_CROSS_CHANNEL_DIM1, one,
                desc.get(), b.y_in, desc.get(), b.dy, desc.get(), b.x, zero,
                desc.get(), b.dx),
            "cudnnLRNCrossChannelBackward");
      }));
}

}  // namespace

absl::Status LaunchLrn(int ordinal, void* stream, DataType dtype,
                       const std::array<int64_t, 4>& shape,
                       const GpuLrnParams& p, const void* input, void* output) {
  LrnBuffers b;
  b.x = input;
  b.y = output;
  return Launch(false, ordinal, stream, dtype, shape, p, b);
}

absl::Status LaunchLrnGrad(int ordinal, void* stream, DataType dtype,
                           const std::array<int64_t, 4>& shape,
                           const GpuLrnParams& p, const void* grads,
                           const void* input, const void* output,
                           void* input_grad) {
  LrnBuffers b;
  b.x = input;
  b.y_in = output;
  b.dy = grads;
  b.dx = input_grad;
  return Launch(true, ordinal, stream, dtype, shape, p, b);
}

#else  // !DFLOW_HAVE_CUDNN

absl::Status LaunchLrn(int, void*, DataType, const std::array<int64_t, 4>&,
                       const GpuLrnParams& p, const void*, void*) {
  absl::StatusOr<CudnnLrnParams> c = ToCudnnLrn(p);
  if (!c.ok()) return c.status();
  return BuiltWithoutCudaError("LRN on GPU");
}

absl::Status LaunchLrnGrad(int, void*, DataType, const std::array<int64_t, 4>&,
                           const GpuLrnParams& p, const void*, const void*,
                           const void*, void*) {
  absl::StatusOr<CudnnLrnParams> c = ToCudnnLrn(p);
  if (!c.ok()) return c.status();
  return BuiltWithoutCudaError("LRNGrad on GPU");
}

#endif  // DFLOW_HAVE_CUDNN

}  // namespace dflow
