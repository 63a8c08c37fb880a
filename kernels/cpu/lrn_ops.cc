// Local response normalization (LRN) and its gradient (LRNGrad) on CPU.
//
// Over the last dimension of a 4-D tensor, TensorFlow's definition:
//   norm[d] = bias + alpha * sum(in[k]^2 for |k - d| <= depth_radius)
//   out[d]  = in[d] * norm[d]^-beta
// (alpha is not divided by the window size). LRNGrad takes the forward
// op's input and output and returns, for incoming gradients g,
//   dx[k] = g[k] * norm[k]^-beta
//           - 2 * alpha * beta * in[k] * sum(g[j] * out[j] / norm[j]
//                                            for |j - k| <= depth_radius)
// which is TensorFlow's formula regrouped so every element costs O(1) per
// window element instead of a scatter.
//
// Each pixel's channel vector is independent: pixels are split over the
// thread pool, and each pixel's row of channels goes through plain loops
// (squares, window sums as shifted adds, the power) that the compiler
// vectorizes, built for AVX2 and for plain x86-64
// (kernel_util_cpu_clones.h). Windows wider than kDirectWindow channels
// are summed as running sums in double instead (no cancellation trouble at
// float precision). Half types compute in float. Seed 003's LRN input
// for one tower of bench/compare_tf.sh, [32, 12, 12, 64] with depth_radius
// 4 and beta 0.75 (bench/cnn_ops_bench, 1 thread, AMD Zen 4): Eigen blocks
// built for SSE2 took 714 us (LRNGrad 1278 us), these loops 387 us (639).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_cpu_clones.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace {

template <typename T>
struct EigenElement {
  using type = T;
};
template <>
struct EigenElement<float16> {
  using type = Eigen::half;
};
template <>
struct EigenElement<bfloat16> {
  using type = Eigen::bfloat16;
};

// Windows of at most this many channels are summed as shifted adds.
constexpr int64_t kDirectWindow = 32;
// Pixels per block of a half-type tensor converted to float at a time.
constexpr int64_t kBlockPixels = 64;

struct LrnParams {
  int64_t radius = 5;
  float bias = 1, alpha = 1, beta = 0.5f;
};

// `n` elements of `src` as floats: `src` itself, or converted into
// `buffer`.
template <typename E>
const float* AsFloat(const E* src, int64_t n, float* buffer) {
  if constexpr (std::is_same_v<E, float>) {
    (void)n;
    (void)buffer;
    return src;
  } else {
    for (int64_t i = 0; i < n; ++i) buffer[i] = static_cast<float>(src[i]);
    return buffer;
  }
}

// out[d] = sum(v[k] for |k - d| <= radius) over one pixel's channels.
// For a direct window, `padded` (depth + 2 * radius floats) holds v with
// `radius` zeros on each side, so each shifted add runs over all `depth`
// channels with no ragged ends (which stayed scalar).
DFLOW_ALWAYS_INLINE void WindowSums(const float* padded, int64_t depth,
                                    int64_t radius, float* out) {
  if (2 * radius + 1 <= kDirectWindow) {
    for (int64_t d = 0; d < depth; ++d) out[d] = padded[d];
    for (int64_t k = 1; k <= 2 * radius; ++k) {
      const float* shifted = padded + k;
      for (int64_t d = 0; d < depth; ++d) out[d] += shifted[d];
    }
    return;
  }
  const float* v = padded;  // wide windows: not padded
  double s = 0;
  for (int64_t k = 0; k < std::min(depth, radius); ++k) s += v[k];
  for (int64_t d = 0; d < depth; ++d) {
    if (d + radius < depth) s += v[d + radius];
    if (d - radius - 1 >= 0) s -= v[d - radius - 1];
    out[d] = static_cast<float>(s);
  }
}

// Where a row's values go for WindowSums: past the `radius` leading zeros
// of a direct window's padding.
DFLOW_ALWAYS_INLINE float* PaddedRow(float* padded, int64_t radius) {
  return 2 * radius + 1 <= kDirectWindow ? padded + radius : padded;
}

// Scratch for one padded row: depth + 2 * radius floats for a direct
// window, the padding zeroed (nothing writes it later).
std::vector<float> PaddedScratch(int64_t depth, int64_t radius) {
  return std::vector<float>(
      depth + (2 * radius + 1 <= kDirectWindow ? 2 * radius : 0), 0.0f);
}

// norm[d] = bias + alpha * window sums of x^2; `padded` is scratch from
// PaddedScratch.
DFLOW_ALWAYS_INLINE void Norms(const float* x, int64_t depth,
                               const LrnParams& p, float* padded, float* norm) {
  float* squares = PaddedRow(padded, p.radius);
  for (int64_t d = 0; d < depth; ++d) squares[d] = x[d] * x[d];
  WindowSums(padded, depth, p.radius, norm);
  for (int64_t d = 0; d < depth; ++d) norm[d] = p.bias + p.alpha * norm[d];
}

// out = norm^-beta, with the exponents LRN is used with done without a
// general power.
DFLOW_ALWAYS_INLINE void PowNegBeta(const float* norm, int64_t depth,
                                    float beta, float* out) {
  if (beta == 0.5f) {
    for (int64_t d = 0; d < depth; ++d) out[d] = 1.0f / std::sqrt(norm[d]);
  } else if (beta == 0.75f) {
    for (int64_t d = 0; d < depth; ++d) {
      const float r = 1.0f / std::sqrt(norm[d]);
      out[d] = r * std::sqrt(r);
    }
  } else if (beta == 1.0f) {
    for (int64_t d = 0; d < depth; ++d) out[d] = 1.0f / norm[d];
  } else {
    for (int64_t d = 0; d < depth; ++d) {
      out[d] = std::exp(-beta * std::log(norm[d]));
    }
  }
}

// LRN of `rows` pixels of `depth` channels; `padded` is from
// PaddedScratch, `norm` holds depth floats.
DFLOW_CPU_CLONES void LrnRows(const float* x, int64_t rows, int64_t depth,
                              const LrnParams& p, float* padded, float* norm,
                              float* y) {
  for (int64_t r = 0; r < rows; ++r, x += depth, y += depth) {
    Norms(x, depth, p, padded, norm);
    PowNegBeta(norm, depth, p.beta, norm);
    for (int64_t d = 0; d < depth; ++d) y[d] = x[d] * norm[d];
  }
}

// LRNGrad of `rows` pixels (gradients g, the forward op's input x and
// output y); `padded` is from PaddedScratch, `scratch` holds 3 * depth.
DFLOW_CPU_CLONES void LrnGradRows(const float* g, const float* x,
                                  const float* y, int64_t rows, int64_t depth,
                                  const LrnParams& p, float* padded,
                                  float* scratch, float* dx) {
  const float factor = -2.0f * p.alpha * p.beta;
  float* work = scratch;
  float* norm = scratch + depth;
  float* sums = scratch + 2 * depth;
  float* ratio = PaddedRow(padded, p.radius);
  for (int64_t r = 0; r < rows;
       ++r, g += depth, x += depth, y += depth, dx += depth) {
    Norms(x, depth, p, padded, norm);
    for (int64_t d = 0; d < depth; ++d) ratio[d] = g[d] * y[d] / norm[d];
    WindowSums(padded, depth, p.radius, sums);
    PowNegBeta(norm, depth, p.beta, work);
    for (int64_t d = 0; d < depth; ++d) {
      dx[d] = g[d] * work[d] + factor * x[d] * sums[d];
    }
  }
}

class LrnOpBase : public OpKernel {
 public:
  explicit LrnOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t radius = 0;
    absl::Status s = ctx->GetAttr("depth_radius", &radius);
    if (s.ok()) s = ctx->GetAttr("bias", &params_.bias);
    if (s.ok()) s = ctx->GetAttr("alpha", &params_.alpha);
    if (s.ok()) s = ctx->GetAttr("beta", &params_.beta);
    if (s.ok() &&
        (radius < 0 || radius > std::numeric_limits<int32_t>::max())) {
      s = absl::InvalidArgumentError(absl::StrCat("depth_radius is ", radius,
                                                  " but must be in [0, 2^31)"));
    }
    params_.radius = radius;
    ctx->SetStatus(s);
  }

 protected:
  static absl::Status CheckImage(const Tensor& t, const char* name) {
    if (t.shape().rank() == 4) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be 4-D [batch, height, width, channels], got shape ",
        t.shape().ToString()));
  }

  LrnParams params_;
};

template <typename T>
class LrnOp : public LrnOpBase {
 public:
  using LrnOpBase::LrnOpBase;

  void Compute(OpKernelContext* ctx) override {
    using E = typename EigenElement<T>::type;
    const Tensor& input = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckImage(input, "input"));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    if (output->NumElements() == 0) return;
    const int64_t depth = input.shape().dim(3);
    const int64_t pixels = input.NumElements() / depth;
    const E* in = reinterpret_cast<const E*>(input.data<T>());
    E* out = reinterpret_cast<E*>(output->data<T>());
    const LrnParams p = params_;
    const int64_t window = std::min<int64_t>(2 * p.radius + 1, depth);
    ctx->thread_pool()->ParallelFor(
        pixels, depth * (std::min(window, kDirectWindow) + 10),
        [&](int64_t begin, int64_t end) {
          const int64_t size = std::min(kBlockPixels, end - begin) * depth;
          const bool convert = !std::is_same_v<E, float>;
          std::vector<float> padded = PaddedScratch(depth, p.radius);
          std::vector<float> buffer(depth + (convert ? 2 * size : 0));
          float* norm = buffer.data();
          for (int64_t p0 = begin; p0 < end; p0 += kBlockPixels) {
            const int64_t rows = std::min(kBlockPixels, end - p0);
            const int64_t n = rows * depth;
            const float* x = AsFloat(in + p0 * depth, n, norm + depth);
            if constexpr (std::is_same_v<E, float>) {
              LrnRows(x, rows, depth, p, padded.data(), norm, out + p0 * depth);
            } else {
              float* y = norm + depth + size;
              LrnRows(x, rows, depth, p, padded.data(), norm, y);
              for (int64_t i = 0; i < n; ++i) {
                out[p0 * depth + i] = static_cast<E>(y[i]);
              }
            }
          }
        });
  }
};

template <typename T>
class LrnGradOp : public LrnOpBase {
 public:
  using LrnOpBase::LrnOpBase;

  void Compute(OpKernelContext* ctx) override {
    using E = typename EigenElement<T>::type;
    const Tensor& grads = ctx->input(0);
    const Tensor& input = ctx->input(1);
    const Tensor& output_image = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckImage(grads, "input_grads"));
    OP_REQUIRES(
        ctx,
        grads.shape() == input.shape() && grads.shape() == output_image.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "input_grads ", grads.shape().ToString(), ", input_image ",
            input.shape().ToString(), " and output_image ",
            output_image.shape().ToString(), " must have the same 4-D shape")));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    if (output->NumElements() == 0) return;
    const int64_t depth = input.shape().dim(3);
    const int64_t pixels = input.NumElements() / depth;
    const E* dy = reinterpret_cast<const E*>(grads.data<T>());
    const E* in = reinterpret_cast<const E*>(input.data<T>());
    const E* out = reinterpret_cast<const E*>(output_image.data<T>());
    E* dx = reinterpret_cast<E*>(output->data<T>());
    const LrnParams p = params_;
    const int64_t window = std::min<int64_t>(2 * p.radius + 1, depth);
    ctx->thread_pool()->ParallelFor(
        pixels, depth * (2 * std::min(window, kDirectWindow) + 20),
        [&](int64_t begin, int64_t end) {
          const int64_t size = std::min(kBlockPixels, end - begin) * depth;
          const bool convert = !std::is_same_v<E, float>;
          std::vector<float> padded = PaddedScratch(depth, p.radius);
          std::vector<float> buffer(3 * depth + (convert ? 4 * size : 0));
          float* scratch = buffer.data();
          float* converted = scratch + 3 * depth;
          for (int64_t p0 = begin; p0 < end; p0 += kBlockPixels) {
            const int64_t rows = std::min(kBlockPixels, end - p0);
            const int64_t n = rows * depth, at = p0 * depth;
            const float* x = AsFloat(in + at, n, converted);
            const float* g = AsFloat(dy + at, n, converted + size);
            const float* y = AsFloat(out + at, n, converted + 2 * size);
            if constexpr (std::is_same_v<E, float>) {
              LrnGradRows(g, x, y, rows, depth, p, padded.data(), scratch,
                          dx + at);
            } else {
              float* result = converted + 3 * size;
              LrnGradRows(g, x, y, rows, depth, p, padded.data(), scratch,
                          result);
              for (int64_t i = 0; i < n; ++i) {
                dx[at + i] = static_cast<E>(result[i]);
              }
            }
          }
        });
  }
};

#define DFLOW_REGISTER_LRN(OP, KERNEL, T)                             \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(OP).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      KERNEL<T>)

DFLOW_REGISTER_LRN("LRN", LrnOp, float);
DFLOW_REGISTER_LRN("LRN", LrnOp, float16);
DFLOW_REGISTER_LRN("LRN", LrnOp, bfloat16);
DFLOW_REGISTER_LRN("LRNGrad", LrnGradOp, float);
DFLOW_REGISTER_LRN("LRNGrad", LrnGradOp, float16);
DFLOW_REGISTER_LRN("LRNGrad", LrnGradOp, bfloat16);

#undef DFLOW_REGISTER_LRN

}  // namespace
}  // namespace dflow
