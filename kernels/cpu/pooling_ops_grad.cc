// MaxPoolGrad and AvgPoolGrad on CPU (NHWC).
//
// MaxPoolGrad routes each output gradient to the maximum of its window in
// the original input, found again the way TensorFlow's kernel finds it: the
// window is scanned row by row, its first element is the first candidate
// and a later one replaces it only if strictly greater (so ties go to the
// first occurrence, and a NaN first element keeps the gradient). The
// original output is checked for shape only, as in TensorFlow.
//
// AvgPoolGrad spreads each output gradient evenly over the input elements
// its window covers; it is computed per input element (gathering from the
// windows that cover it), so threads never write to the same element.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_cpu_clones.h"
#include "kernels/cpu/kernel_util_window.h"
#include "kernels/cpu/pooling_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace pooling {
namespace {

// a + b, wrapping for integers as two's complement arithmetic does.
template <typename E>
E Add(E a, E b) {
  if constexpr (std::is_integral_v<E>) {
    using U = std::make_unsigned_t<E>;
    return static_cast<E>(
        static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// The offset (from `image`) of the maximum of window rows [h0, h1) and
// columns [w0, w1), for each of `width` channels: the window is scanned row
// by row, and a later element replaces the candidate only if strictly
// greater (ties go to the first; a NaN first element stays).
template <typename E>
void WindowArgMax(const E* image, int64_t in_cols, int64_t depth, int64_t width,
                  int64_t h0, int64_t h1, int64_t w0, int64_t w1,
                  int64_t* arg) {
  E best[64];
  const int64_t first = (h0 * in_cols + w0) * depth;
  for (int64_t c = 0; c < width; ++c) {
    best[c] = image[first + c];
    arg[c] = first;
  }
  for (int64_t h = h0; h < h1; ++h) {
    for (int64_t w = h == h0 ? w0 + 1 : w0; w < w1; ++w) {
      const int64_t at = (h * in_cols + w) * depth;
      const E* src = image + at;
      for (int64_t c = 0; c < width; ++c) {
        const bool greater = best[c] < src[c];
        best[c] = greater ? src[c] : best[c];
        arg[c] = greater ? at : arg[c];
      }
    }
  }
}

// One work unit of MaxPoolGrad for float (an image's block of `width` <= 64
// channels): each output pixel's window maximum per channel, as
// WindowArgMax finds it, then the gradient added there. The search keeps
// eight channels' maxima and their int32 offsets in vector registers
// through the window (GCC's vector extensions: one AVX2 register each in
// the x86-64-v3 copy of kernel_util_cpu_clones.h, two SSE registers in the
// other); an image of 2^31 elements or more takes the generic loop. Seed
// 003's pool1 gradient for one tower of bench/compare_tf.sh
// ([32, 24, 24, 64], 3x3 windows, stride 2; bench/cnn_ops_bench, 1
// thread, AMD Zen 4): four channels at a time in SSE took 1035 us, this
// 581 us.
typedef float Float8 __attribute__((vector_size(32)));
typedef int32_t Int8 __attribute__((vector_size(32)));

DFLOW_CPU_CLONES void MaxPoolGradUnit(const PoolGeometry& g, const float* image,
                                      const float* grad_row, int64_t width,
                                      float* dimage) {
  const int64_t depth = g.depth;
  int64_t arg[64];
  for (int64_t oh = 0; oh < g.out_rows; ++oh) {
    int64_t h0, h1;
    g.RowWindow(oh, &h0, &h1);
    for (int64_t ow = 0; ow < g.out_cols; ++ow, grad_row += depth) {
      int64_t w0, w1;
      g.ColWindow(ow, &w0, &w1);
      if (h0 >= h1 || w0 >= w1) continue;
      const int32_t first = static_cast<int32_t>((h0 * g.in_cols + w0) * depth);
      int64_t c = 0;
      for (; c + 8 <= width; c += 8) {
        Float8 best;
        std::memcpy(&best, image + first + c, sizeof(best));
        Int8 best_at = first - Int8{};
        for (int64_t h = h0; h < h1; ++h) {
          for (int64_t w = h == h0 ? w0 + 1 : w0; w < w1; ++w) {
            const int32_t at =
                static_cast<int32_t>((h * g.in_cols + w) * depth);
            Float8 x;
            std::memcpy(&x, image + at + c, sizeof(x));
            const Int8 greater = best < x;  // all ones where x is greater
            best = greater ? x : best;
            best_at = greater ? at - Int8{} : best_at;
          }
        }
        for (int lane = 0; lane < 8; ++lane) arg[c + lane] = best_at[lane];
      }
      if (c < width) {
        WindowArgMax<float>(image + c, g.in_cols, depth, width - c, h0, h1, w0,
                            w1, arg + c);
      }
      for (int64_t k = 0; k < width; ++k) dimage[arg[k] + k] += grad_row[k];
    }
  }
}

template <typename T>
class MaxPoolGradOp : public PoolOpBase {
 public:
  explicit MaxPoolGradOp(OpKernelConstruction* ctx)
      : PoolOpBase(ctx, PoolKind::kMaxGrad) {}

  void Compute(OpKernelContext* ctx) override {
    using E = typename EigenElement<T>::type;
    const Tensor& input = ctx->input(0);
    const Tensor& orig_output = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    PoolWindow win;
    OP_REQUIRES_OK(ctx, RunWindow(ctx, 3, &win));
    PoolGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), win, &g));
    OP_REQUIRES_OK(ctx, CheckPooledShape(g, win, "orig_output",
                                         orig_output.shape()));
    OP_REQUIRES_OK(ctx, CheckPooledShape(g, win, "grad", grad.shape()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    if (output->NumElements() == 0) return;
    const E* in = reinterpret_cast<const E*>(input.data<T>());
    const E* dy = reinterpret_cast<const E*>(grad.data<T>());
    E* dx = reinterpret_cast<E*>(output->data<T>());
    std::fill_n(dx, output->NumElements(), E(0));
    if (grad.NumElements() == 0) return;
    // Work units: (image, block of channels). Channels are independent and
    // an image's windows only reach into that image, so no two units write
    // to the same element.
    constexpr int64_t kChannelBlock = 64;
    const int64_t depth = g.depth;
    const int64_t blocks = (depth + kChannelBlock - 1) / kChannelBlock;
    const int64_t image_size = g.in_rows * g.in_cols * depth;
    const int64_t cost = g.out_rows * g.out_cols * g.window_rows *
                         g.window_cols * std::min(depth, kChannelBlock) * 2;
    ctx->thread_pool()->ParallelFor(
        g.batch * blocks, std::max<int64_t>(cost, 1),
        [&](int64_t begin, int64_t end) {
          int64_t arg[kChannelBlock];
          for (int64_t u = begin; u < end; ++u) {
            const int64_t n = u / blocks;
            const int64_t c0 = u % blocks * kChannelBlock;
            const int64_t width = std::min(kChannelBlock, depth - c0);
            const E* image = in + n * image_size + c0;
            E* dimage = dx + n * image_size + c0;
            const E* grad_row = dy + n * g.out_rows * g.out_cols * depth + c0;
            if constexpr (std::is_same_v<E, float>) {
              if (image_size < (int64_t{1} << 31)) {
                MaxPoolGradUnit(g, image, grad_row, width, dimage);
                continue;
              }
            }
            for (int64_t oh = 0; oh < g.out_rows; ++oh) {
              int64_t h0, h1;
              g.RowWindow(oh, &h0, &h1);
              for (int64_t ow = 0; ow < g.out_cols; ++ow, grad_row += depth) {
                int64_t w0, w1;
                g.ColWindow(ow, &w0, &w1);
                if (h0 >= h1 || w0 >= w1) continue;
                WindowArgMax(image, g.in_cols, depth, width, h0, h1, w0, w1,
                             arg);
                for (int64_t c = 0; c < width; ++c) {
                  E& target = dimage[arg[c] + c];
                  target = Add(target, grad_row[c]);
                }
              }
            }
          }
        });
  }
};

// MaxPoolGradGrad / V2: the gradient of MaxPoolGrad with respect to its
// grad input, shaped as the pool's output: each window's value of `grad`
// (shaped as the input) at the first element of the window (row by row)
// equal to the window's original output, 0 if none is (TensorFlow's rule,
// which a NaN maximum meets with 0).
template <typename T>
class MaxPoolGradGradOp : public PoolOpBase {
 public:
  explicit MaxPoolGradGradOp(OpKernelConstruction* ctx)
      : PoolOpBase(ctx, PoolKind::kMaxGrad) {}

  void Compute(OpKernelContext* ctx) override {
    using E = typename EigenElement<T>::type;
    const Tensor& input = ctx->input(0);
    const Tensor& orig_output = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    PoolWindow win;
    OP_REQUIRES_OK(ctx, RunWindow(ctx, 3, &win));
    PoolGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), win, &g));
    OP_REQUIRES_OK(ctx, CheckPooledShape(g, win, "orig_output",
                                         orig_output.shape()));
    OP_REQUIRES(ctx, grad.shape() == input.shape(),
                absl::InvalidArgumentError(absl::StrCat(
                    "grad ", grad.shape().ToString(),
                    " must have the shape of orig_input ",
                    input.shape().ToString())));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, orig_output.shape(), &output));
    if (output->NumElements() == 0) return;
    const E* in = reinterpret_cast<const E*>(input.data<T>());
    const E* pooled = reinterpret_cast<const E*>(orig_output.data<T>());
    const E* dy = reinterpret_cast<const E*>(grad.data<T>());
    E* out = reinterpret_cast<E*>(output->data<T>());
    const int64_t depth = g.depth;
    const int64_t image_size = g.in_rows * g.in_cols * depth;
    ctx->thread_pool()->ParallelFor(
        g.batch * g.out_rows,
        std::max<int64_t>(
            1, g.out_cols * g.window_rows * g.window_cols * depth * 2),
        [&](int64_t begin, int64_t end) {
          for (int64_t u = begin; u < end; ++u) {
            const int64_t n = u / g.out_rows, oh = u % g.out_rows;
            int64_t h0, h1;
            g.RowWindow(oh, &h0, &h1);
            const E* image = in + n * image_size;
            const E* dimage = dy + n * image_size;
            for (int64_t ow = 0; ow < g.out_cols; ++ow) {
              int64_t w0, w1;
              g.ColWindow(ow, &w0, &w1);
              const int64_t o = (u * g.out_cols + ow) * depth;
              for (int64_t c = 0; c < depth; ++c) {
                const E want = pooled[o + c];
                E value = E(0);
                bool found = false;
                for (int64_t h = h0; h < h1 && !found; ++h) {
                  for (int64_t w = w0; w < w1 && !found; ++w) {
                    const int64_t i = (h * g.in_cols + w) * depth + c;
                    if (image[i] == want) {
                      value = dimage[i];
                      found = true;
                    }
                  }
                }
                out[o + c] = value;
              }
            }
          }
        });
  }
};

template <typename T>
class AvgPoolGradOp : public PoolOpBase {
 public:
  explicit AvgPoolGradOp(OpKernelConstruction* ctx)
      : PoolOpBase(ctx, PoolKind::kAvg) {}

  void Compute(OpKernelContext* ctx) override {
    using E = typename EigenElement<T>::type;
    using Acc = std::conditional_t<std::is_same_v<E, double>, double, float>;
    const Tensor& sizes = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    OP_REQUIRES(
        ctx,
        sizes.dtype() == DT_INT32 && sizes.shape().rank() == 1 &&
            sizes.NumElements() == 4,
        absl::InvalidArgumentError(absl::StrCat(
            "orig_input_shape must be an int32 vector of 4 sizes, got ",
            DataTypeName(sizes.dtype()), " ", sizes.shape().ToString())));
    std::vector<int64_t> dims(sizes.data<int32_t>(), sizes.data<int32_t>() + 4);
    for (int i = 0; i < 4; ++i) {
      OP_REQUIRES(ctx, dims[i] >= 0,
                  absl::InvalidArgumentError(
                      absl::StrCat("orig_input_shape[", i, "] is ", dims[i],
                                   " but sizes must be >= 0")));
    }
    const TensorShape input_shape(dims);
    PoolGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input_shape, &g));
    OP_REQUIRES_OK(ctx, CheckPooledShape(g, "grad", grad.shape()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &output));
    if (output->NumElements() == 0) return;
    const E* dy = reinterpret_cast<const E*>(grad.data<T>());
    E* dx = reinterpret_cast<E*>(output->data<T>());
    const int64_t depth = g.depth;
    // Output windows covering input row `ih` (or col): the o with
    // o * stride - pad <= ih < o * stride - pad + window.
    auto covering = [](int64_t i, int64_t window, int64_t stride, int64_t pad,
                       int64_t out, int64_t* lo, int64_t* hi) {
      *lo =
          std::max<int64_t>(0, window::FloorDiv(i + pad - window, stride) + 1);
      *hi = std::min<int64_t>(out, window::FloorDiv(i + pad, stride) + 1);
    };
    const int64_t cost = g.in_cols * depth * 4 *
                         std::max<int64_t>(1, g.window_rows / g.stride_rows) *
                         std::max<int64_t>(1, g.window_cols / g.stride_cols);
    ctx->thread_pool()->ParallelFor(
        g.batch * g.in_rows, std::max<int64_t>(cost, 1),
        [&](int64_t begin, int64_t end) {
          std::vector<Acc> sum(depth);
          for (int64_t u = begin; u < end; ++u) {
            const int64_t n = u / g.in_rows, ih = u % g.in_rows;
            int64_t oh0, oh1;
            covering(ih, g.window_rows, g.stride_rows, g.pad_top, g.out_rows,
                     &oh0, &oh1);
            E* dst = dx + u * g.in_cols * depth;
            for (int64_t iw = 0; iw < g.in_cols; ++iw, dst += depth) {
              int64_t ow0, ow1;
              covering(iw, g.window_cols, g.stride_cols, g.pad_left, g.out_cols,
                       &ow0, &ow1);
              std::fill(sum.begin(), sum.end(), Acc(0));
              for (int64_t oh = oh0; oh < oh1; ++oh) {
                int64_t h0, h1;
                g.RowWindow(oh, &h0, &h1);
                for (int64_t ow = ow0; ow < ow1; ++ow) {
                  int64_t w0, w1;
                  g.ColWindow(ow, &w0, &w1);
                  const Acc scale =
                      Acc(1) / static_cast<Acc>((h1 - h0) * (w1 - w0));
                  const E* src =
                      dy + ((n * g.out_rows + oh) * g.out_cols + ow) * depth;
                  for (int64_t c = 0; c < depth; ++c) {
                    sum[c] += static_cast<Acc>(src[c]) * scale;
                  }
                }
              }
              for (int64_t c = 0; c < depth; ++c) {
                dst[c] = static_cast<E>(sum[c]);
              }
            }
          }
        });
  }
};

#define DFLOW_REGISTER_POOL_GRAD(OP, T)                                \
  DFLOW_REGISTER_KERNEL(                                               \
      KernelDefBuilder(#OP).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      OP##Op<T>)

DFLOW_REGISTER_POOL_GRAD(MaxPoolGrad, float);
DFLOW_REGISTER_POOL_GRAD(MaxPoolGrad, double);
DFLOW_REGISTER_POOL_GRAD(MaxPoolGrad, float16);
DFLOW_REGISTER_POOL_GRAD(MaxPoolGrad, bfloat16);
DFLOW_REGISTER_POOL_GRAD(MaxPoolGrad, int8_t);
DFLOW_REGISTER_POOL_GRAD(MaxPoolGrad, int16_t);
DFLOW_REGISTER_POOL_GRAD(MaxPoolGrad, int32_t);
DFLOW_REGISTER_POOL_GRAD(MaxPoolGrad, int64_t);
DFLOW_REGISTER_POOL_GRAD(MaxPoolGrad, uint8_t);
DFLOW_REGISTER_POOL_GRAD(MaxPoolGrad, uint16_t);
DFLOW_REGISTER_POOL_GRAD(MaxPoolGrad, uint32_t);
DFLOW_REGISTER_POOL_GRAD(MaxPoolGrad, uint64_t);
// The V2 forms (ksize and strides as inputs 3 and 4) share the kernels.
#define DFLOW_REGISTER_MAX_POOL_GRAD_MORE(T)                             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("MaxPoolGradV2")                \
                            .Device(kDeviceCpu)                          \
                            .TypeConstraint<T>("T"),                     \
                        MaxPoolGradOp<T>);                               \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("MaxPoolGradGrad")              \
                            .Device(kDeviceCpu)                          \
                            .TypeConstraint<T>("T"),                     \
                        MaxPoolGradGradOp<T>);                           \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("MaxPoolGradGradV2")            \
                            .Device(kDeviceCpu)                          \
                            .TypeConstraint<T>("T"),                     \
                        MaxPoolGradGradOp<T>)
DFLOW_REGISTER_MAX_POOL_GRAD_MORE(float);
DFLOW_REGISTER_MAX_POOL_GRAD_MORE(double);
DFLOW_REGISTER_MAX_POOL_GRAD_MORE(float16);
DFLOW_REGISTER_MAX_POOL_GRAD_MORE(bfloat16);
DFLOW_REGISTER_MAX_POOL_GRAD_MORE(int8_t);
DFLOW_REGISTER_MAX_POOL_GRAD_MORE(int16_t);
DFLOW_REGISTER_MAX_POOL_GRAD_MORE(int32_t);
DFLOW_REGISTER_MAX_POOL_GRAD_MORE(int64_t);
DFLOW_REGISTER_MAX_POOL_GRAD_MORE(uint8_t);
DFLOW_REGISTER_MAX_POOL_GRAD_MORE(uint16_t);
#undef DFLOW_REGISTER_MAX_POOL_GRAD_MORE
DFLOW_REGISTER_POOL_GRAD(AvgPoolGrad, float);
DFLOW_REGISTER_POOL_GRAD(AvgPoolGrad, double);
DFLOW_REGISTER_POOL_GRAD(AvgPoolGrad, float16);
DFLOW_REGISTER_POOL_GRAD(AvgPoolGrad, bfloat16);

#undef DFLOW_REGISTER_POOL_GRAD

}  // namespace
}  // namespace pooling
}  // namespace dflow
