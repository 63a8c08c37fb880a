// BiasAdd (and BiasAddV1, its first version: always NHWC) and BiasAddGrad
// on the CPU, for data_format NHWC (channels last; any rank >= 2) and NCHW
// (channels in dimension 1, then any number of spatial dimensions).
//
// BiasAdd of integers wraps on overflow (two's complement) without
// undefined behaviour; BiasAddGrad is a sum over every dimension but the
// channels (kernel_util_reduce.h; half and bfloat16 accumulate in float).
#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/kernel_util_reduce.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

absl::Status ReadDataFormat(OpKernelConstruction* ctx, bool* nchw) {
  // BiasAddV1 has no data_format attr: channels last.
  if (ctx->node().op() == "BiasAddV1") {
    *nchw = false;
    return absl::OkStatus();
  }
  std::string format;
  absl::Status s = ctx->GetAttr("data_format", &format);
  if (!s.ok()) return s;
  if (format != "NHWC" && format != "NCHW") {
    return absl::InvalidArgumentError(
        absl::StrCat("data_format must be NHWC or NCHW, got '", format, "'"));
  }
  *nchw = format == "NCHW";
  return absl::OkStatus();
}

absl::Status CheckAtLeast2D(const Tensor& t) {
  if (t.shape().rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input tensor must be at least 2D: ", t.shape().ToString()));
  }
  return absl::OkStatus();
}

// a + b, wrapping for integers.
template <typename T>
T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(
        static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <typename T>
inline constexpr bool kEigenAdd = !std::is_integral_v<T>;

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadDataFormat(ctx, &nchw_));
  }

  void Compute(OpKernelContext* ctx) override {
    using E = EigenElement<T>;
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckAtLeast2D(value));
    OP_REQUIRES(ctx, bias.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "Biases must be 1D: ", bias.shape().ToString())));
    const TensorShape& shape = value.shape();
    const int channel_dim = nchw_ ? 1 : shape.rank() - 1;
    const int64_t channels = shape.dim(channel_dim);
    OP_REQUIRES(ctx, bias.shape().dim(0) == channels,
                absl::InvalidArgumentError(absl::StrCat(
                    "Must provide as many biases as the channel dimension "
                    "of the input tensor: ",
                    bias.shape().ToString(), " vs. ", shape.ToString(),
                    " (data_format ", nchw_ ? "NCHW" : "NHWC",
                    ", channel "
                    "dimension ",
                    channel_dim, ")")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = value.NumElements();
    if (n == 0) return;
    const E* x = EigenData<T>(value);
    const E* b = EigenData<T>(bias);
    E* y = EigenData<T>(*out);
    // NCHW of rank 2 is [batch, channels]: channels last.
    if (!nchw_ || shape.rank() == 2) {
      // [rows, channels] + [channels].
      const int64_t rows = n / channels;
      ParallelForShards(ctx, rows, channels, [&](int64_t r0, int64_t r1) {
        if constexpr (kEigenAdd<T>) {
          const Eigen::DSizes<Eigen::DenseIndex, 2> dims(r1 - r0, channels);
          ConstEigenTensorMap<T, 2> in(x + r0 * channels, dims);
          EigenTensorMap<T, 2> o(y + r0 * channels, dims);
          ConstEigenTensorMap<T, 2> bb(b, 1, channels);
          const Eigen::array<Eigen::DenseIndex, 2> repeat{r1 - r0, 1};
          o = in + bb.broadcast(repeat);
        } else {
          for (int64_t r = r0; r < r1; ++r) {
            const E* in = x + r * channels;
            E* o = y + r * channels;
            for (int64_t c = 0; c < channels; ++c) o[c] = WrapAdd(in[c], b[c]);
          }
        }
      });
      return;
    }
    // [batch, channels, inner]: each run of `inner` gets one bias.
    const int64_t inner = n / (shape.dim(0) * channels);
    const int64_t runs = n / inner;
    ParallelForShards(ctx, runs, inner, [&](int64_t u0, int64_t u1) {
      for (int64_t u = u0; u < u1; ++u) {
        const E bias_value = b[u % channels];
        const E* in = x + u * inner;
        E* o = y + u * inner;
        if constexpr (kEigenAdd<T>) {
          ConstEigenTensorMap<T, 1> in_map(in, inner);
          EigenTensorMap<T, 1> o_map(o, inner);
          o_map = in_map + in_map.constant(bias_value);
        } else {
          for (int64_t i = 0; i < inner; ++i) o[i] = WrapAdd(in[i], bias_value);
        }
      }
    });
  }

 private:
  bool nchw_ = false;
};

template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  explicit BiasAddGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadDataFormat(ctx, &nchw_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckAtLeast2D(grad));
    const int rank = grad.shape().rank();
    const int channel_dim = nchw_ ? 1 : rank - 1;
    absl::InlinedVector<bool, 8> reduce(rank, true);
    reduce[channel_dim] = false;
    OP_REQUIRES_OK(
        ctx, ReduceToOutput(ctx, Reduction::kSum, grad, reduce,
                            TensorShape({grad.shape().dim(channel_dim)}), 0));
  }

 private:
  bool nchw_ = false;
};

#define DFLOW_REGISTER_BIAS(T)                                                 \
  DFLOW_REGISTER_KERNEL(                                                       \
      KernelDefBuilder("BiasAdd").Device(kDeviceCpu).TypeConstraint<T>("T"),   \
      BiasAddOp<T>);                                                           \
  DFLOW_REGISTER_KERNEL(                                                       \
      KernelDefBuilder("BiasAddV1").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      BiasAddOp<T>);                                                           \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("BiasAddGrad")                        \
                            .Device(kDeviceCpu)                                \
                            .TypeConstraint<T>("T"),                           \
                        BiasAddGradOp<T>)

DFLOW_REGISTER_BIAS(float);
DFLOW_REGISTER_BIAS(double);
DFLOW_REGISTER_BIAS(float16);
DFLOW_REGISTER_BIAS(bfloat16);
DFLOW_REGISTER_BIAS(int8_t);
DFLOW_REGISTER_BIAS(int16_t);
DFLOW_REGISTER_BIAS(int32_t);
DFLOW_REGISTER_BIAS(int64_t);
DFLOW_REGISTER_BIAS(uint8_t);
DFLOW_REGISTER_BIAS(uint16_t);
DFLOW_REGISTER_BIAS(uint32_t);
DFLOW_REGISTER_BIAS(uint64_t);
DFLOW_REGISTER_BIAS(complex64);
DFLOW_REGISTER_BIAS(complex128);

#undef DFLOW_REGISTER_BIAS

}  // namespace
}  // namespace dflow
