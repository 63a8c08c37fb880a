// MaxPool and AvgPool on CPU (NHWC), and the attr and shape checks their
// gradient kernels (pooling_ops_grad.cc) share.
//
// Semantics follow TensorFlow's CPU kernels: AvgPool with SAME padding
// divides each window's sum by the number of input elements it covers (the
// padding does not count); MaxPool ignores NaNs. One difference: a window of
// only -inf or only NaN gives -inf, where TensorFlow gives the lowest finite
// value.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_window.h"
#include "kernels/cpu/pooling_ops_common.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace pooling {

PoolOpBase::PoolOpBase(OpKernelConstruction* ctx, PoolKind kind)
    : OpKernel(ctx), kind_(kind) {
  const bool is_max = kind != PoolKind::kAvg;
  window_from_inputs_ = absl::EndsWith(type_string(), "V2");
  absl::Status s = window::RequireNhwc(*ctx);
  if (s.ok() && !window_from_inputs_) {
    s = window::GetWindowAttr(*ctx, "ksize", is_max, &window_.ksize);
    if (s.ok()) {
      s = window::GetWindowAttr(*ctx, "strides", is_max, &window_.strides);
    }
  }
  // The V2 ops and MaxPoolGradGrad have no explicit padding.
  const bool has_explicit = is_max && !window_from_inputs_ &&
                            type_string() != "MaxPoolGradGrad";
  if (s.ok()) s = window::GetPadding(*ctx, has_explicit, &padding_);
  if (s.ok() && !window_from_inputs_) s = CheckWindow(window_);
  if (!s.ok()) ctx->SetStatus(s);
}

absl::Status PoolOpBase::CheckWindow(const PoolWindow& w) const {
  const auto& ksize = w.ksize;
  const auto& strides = w.strides;
  const int64_t depth_window = ksize[window::kDepthDim];
  if (depth_window != 1 || strides[window::kDepthDim] != 1) {
    if (kind_ == PoolKind::kMaxGrad) {
      return absl::UnimplementedError(absl::StrCat(
          type_string(), " does not support pooling across channels (ksize ",
          window::ListString(ksize), ", strides ", window::ListString(strides),
          "), as TensorFlow's"));
    }
    if (depth_window != strides[window::kDepthDim] ||
        ksize[window::kRowDim] != 1 || ksize[window::kColDim] != 1 ||
        strides[window::kRowDim] != 1 || strides[window::kColDim] != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ksize ", window::ListString(ksize), " and strides ",
          window::ListString(strides), ": pooling across channels needs a ",
          "channel window equal to the channel stride, and no spatial ",
          "pooling"));
    }
  }
  if (padding_.type == window::PaddingType::kExplicit) {
    // A window entirely in the padding would have no maximum.
    for (int k = 0; k < 2; ++k) {
      const int64_t size = ksize[window::kRowDim + k];
      if (padding_.explicit_before[k] >= size ||
          padding_.explicit_after[k] >= size) {
        return absl::InvalidArgumentError(absl::StrCat(
            "explicit padding ", padding_.explicit_before[k], "+",
            padding_.explicit_after[k], " of the ", k == 0 ? "height" : "width",
            " must be smaller than the window size ", size));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status PoolOpBase::RunWindow(OpKernelContext* ctx, int first,
                                   PoolWindow* w) const {
  if (!window_from_inputs_) {
    *w = window_;
    return absl::OkStatus();
  }
  const bool allow_depth = kind_ != PoolKind::kAvg;
  const char* names[] = {"ksize", "strides"};
  std::array<int64_t, 4>* values[] = {&w->ksize, &w->strides};
  for (int i = 0; i < 2; ++i) {
    const Tensor& t = ctx->input(first + i);
    bool ok = t.shape().rank() == 1 && t.NumElements() == 4;
    std::vector<int64_t> v;
    for (int64_t j = 0; j < t.NumElements(); ++j) {
      v.push_back(t.data<int32_t>()[j]);
      ok = ok && v.back() >= 1;
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          names[i], " [", absl::StrJoin(v, ","), "] (shape ",
          t.shape().ToString(), ") must have 4 entries >= 1, one per ",
          "dimension in NHWC order"));
    }
    if (v[window::kBatchDim] != 1 ||
        (!allow_depth && v[window::kDepthDim] != 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          names[i], " [", absl::StrJoin(v, ","),
          "]: its batch entry must be 1 (NHWC order)"));
    }
    for (int j = 0; j < 4; ++j) (*values[i])[j] = v[j];
  }
  return CheckWindow(*w);
}

absl::Status PoolOpBase::ComputeGeometry(const TensorShape& input,
                                         const PoolWindow& w,
                                         PoolGeometry* g) const {
  const std::array<int64_t, 4>& ksize = w.ksize;
  const std::array<int64_t, 4>& strides = w.strides;
  if (input.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 4-D [batch, height, width, channels] ",
                     "(NHWC), got shape ", input.ToString()));
  }
  g->batch = input.dim(0);
  g->in_rows = input.dim(1);
  g->in_cols = input.dim(2);
  g->depth = input.dim(3);
  g->window_rows = ksize[window::kRowDim];
  g->window_cols = ksize[window::kColDim];
  g->depth_window = ksize[window::kDepthDim];
  g->stride_rows = strides[window::kRowDim];
  g->stride_cols = strides[window::kColDim];
  auto what = [&] {
    return absl::StrCat("input ", input.ToString(), " (NHWC) with ksize ",
                        window::ListString(ksize), " and strides ",
                        window::ListString(strides), ": ");
  };
  if (g->depth % g->depth_window != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what(), "the channel window ", g->depth_window,
                     " must divide the channels ", g->depth));
  }
  g->out_depth = g->depth / g->depth_window;
  window::WindowDim rows, cols;
  absl::Status s = window::ComputeWindow(g->in_rows, g->window_rows, 1,
                                         g->stride_rows, padding_, 0, &rows);
  if (s.ok()) {
    s = window::ComputeWindow(g->in_cols, g->window_cols, 1, g->stride_cols,
                              padding_, 1, &cols);
  }
  if (!s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what(), s.message()));
  }
  g->out_rows = rows.out;
  g->out_cols = cols.out;
  g->pad_top = rows.pad_before;
  g->pad_left = cols.pad_before;
  return absl::OkStatus();
}

absl::Status PoolOpBase::CheckPooledShape(const PoolGeometry& g,
                                          const PoolWindow& w,
                                          const char* name,
                                          const TensorShape& shape) const {
  const std::array<int64_t, 4>& ksize = w.ksize;
  const std::array<int64_t, 4>& strides = w.strides;
  if (shape == g.output_shape()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      name, " ", shape.ToString(), " must match the pool output ",
      g.output_shape().ToString(), " of the original input ",
      g.input_shape().ToString(), " (ksize ", window::ListString(ksize),
      ", strides ", window::ListString(strides), ", padding ", padding_.name,
      ", NHWC)"));
}

namespace {

// Below this many cycles a ParallelFor block is not worth a thread.
int64_t WindowCost(const PoolGeometry& g) {
  return std::max<int64_t>(
      1, g.out_cols * g.window_rows * g.window_cols * g.depth * 2);
}

template <typename E>
E MaxIdentity() {
  if constexpr (Eigen::NumTraits<E>::IsInteger) {
    return std::numeric_limits<E>::lowest();
  } else {
    return -Eigen::NumTraits<E>::infinity();
  }
}

template <typename T>
class MaxPoolOp : public PoolOpBase {
 public:
  explicit MaxPoolOp(OpKernelConstruction* ctx)
      : PoolOpBase(ctx, PoolKind::kMax) {}

  void Compute(OpKernelContext* ctx) override {
    using E = typename EigenElement<T>::type;
    const Tensor& input = ctx->input(0);
    PoolWindow w;
    OP_REQUIRES_OK(ctx, RunWindow(ctx, 1, &w));
    PoolGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), w, &g));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.output_shape(), &output));
    if (output->NumElements() == 0) return;
    const E* in = reinterpret_cast<const E*>(input.data<T>());
    E* out = reinterpret_cast<E*>(output->data<T>());
    const E lowest = MaxIdentity<E>();
    if (g.depth_window > 1) {
      // Across channels: every pixel's depth splits into runs of
      // depth_window channels, one output each.
      const int64_t pixels = g.batch * g.in_rows * g.in_cols;
      ctx->thread_pool()->ParallelFor(
          pixels, g.depth * 2, [&](int64_t begin, int64_t end) {
            for (int64_t p = begin; p < end; ++p) {
              const E* src = in + p * g.depth;
              E* dst = out + p * g.out_depth;
              for (int64_t j = 0; j < g.out_depth; ++j) {
                E best = lowest;
                for (int64_t c = 0; c < g.depth_window; ++c) {
                  const E v = src[j * g.depth_window + c];
                  if (v > best) best = v;
                }
                dst[j] = best;
              }
            }
          });
      return;
    }
    const int64_t depth = g.depth;
    ctx->thread_pool()->ParallelFor(
        g.batch * g.out_rows, WindowCost(g), [&](int64_t begin, int64_t end) {
          for (int64_t u = begin; u < end; ++u) {
            const int64_t n = u / g.out_rows, oh = u % g.out_rows;
            int64_t h0, h1;
            g.RowWindow(oh, &h0, &h1);
            const E* image = in + n * g.in_rows * g.in_cols * depth;
            E* dst = out + u * g.out_cols * depth;
            for (int64_t ow = 0; ow < g.out_cols; ++ow, dst += depth) {
              int64_t w0, w1;
              g.ColWindow(ow, &w0, &w1);
              std::fill_n(dst, depth, lowest);
              for (int64_t h = h0; h < h1; ++h) {
                for (int64_t w = w0; w < w1; ++w) {
                  const E* src = image + (h * g.in_cols + w) * depth;
                  for (int64_t c = 0; c < depth; ++c) {
                    // A NaN src compares false and is skipped.
                    dst[c] = src[c] > dst[c] ? src[c] : dst[c];
                  }
                }
              }
            }
          }
        });
  }
};

template <typename T>
class AvgPoolOp : public PoolOpBase {
 public:
  explicit AvgPoolOp(OpKernelConstruction* ctx)
      : PoolOpBase(ctx, PoolKind::kAvg) {}

  void Compute(OpKernelContext* ctx) override {
    using E = typename EigenElement<T>::type;
    // Half types sum in float.
    using Acc = std::conditional_t<std::is_same_v<E, double>, double, float>;
    const Tensor& input = ctx->input(0);
    PoolGeometry g;
    OP_REQUIRES_OK(ctx, ComputeGeometry(input.shape(), &g));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.output_shape(), &output));
    if (output->NumElements() == 0) return;
    const E* in = reinterpret_cast<const E*>(input.data<T>());
    E* out = reinterpret_cast<E*>(output->data<T>());
    const int64_t depth = g.depth;
    ctx->thread_pool()->ParallelFor(
        g.batch * g.out_rows, WindowCost(g), [&](int64_t begin, int64_t end) {
          std::vector<Acc> sum(depth);
          for (int64_t u = begin; u < end; ++u) {
            const int64_t n = u / g.out_rows, oh = u % g.out_rows;
            int64_t h0, h1;
            g.RowWindow(oh, &h0, &h1);
            const E* image = in + n * g.in_rows * g.in_cols * depth;
            E* dst = out + u * g.out_cols * depth;
            for (int64_t ow = 0; ow < g.out_cols; ++ow, dst += depth) {
              int64_t w0, w1;
              g.ColWindow(ow, &w0, &w1);
              std::fill(sum.begin(), sum.end(), Acc(0));
              for (int64_t h = h0; h < h1; ++h) {
                for (int64_t w = w0; w < w1; ++w) {
                  const E* src = image + (h * g.in_cols + w) * depth;
                  for (int64_t c = 0; c < depth; ++c) {
                    sum[c] += static_cast<Acc>(src[c]);
                  }
                }
              }
              const Acc scale =
                  Acc(1) / static_cast<Acc>((h1 - h0) * (w1 - w0));
              for (int64_t c = 0; c < depth; ++c) {
                dst[c] = static_cast<E>(sum[c] * scale);
              }
            }
          }
        });
  }
};

#define DFLOW_REGISTER_POOL(OP, T)                                     \
  DFLOW_REGISTER_KERNEL(                                               \
      KernelDefBuilder(#OP).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      OP##Op<T>)

DFLOW_REGISTER_POOL(MaxPool, float);
DFLOW_REGISTER_POOL(MaxPool, double);
DFLOW_REGISTER_POOL(MaxPool, float16);
DFLOW_REGISTER_POOL(MaxPool, bfloat16);
DFLOW_REGISTER_POOL(MaxPool, int8_t);
DFLOW_REGISTER_POOL(MaxPool, int16_t);
DFLOW_REGISTER_POOL(MaxPool, int32_t);
DFLOW_REGISTER_POOL(MaxPool, int64_t);
DFLOW_REGISTER_POOL(MaxPool, uint8_t);
DFLOW_REGISTER_POOL(MaxPool, uint16_t);
DFLOW_REGISTER_POOL(AvgPool, float);
DFLOW_REGISTER_POOL(AvgPool, double);
DFLOW_REGISTER_POOL(AvgPool, float16);
DFLOW_REGISTER_POOL(AvgPool, bfloat16);

#undef DFLOW_REGISTER_POOL

// MaxPoolV2: MaxPool with ksize and strides as inputs 1 and 2.
#define DFLOW_REGISTER_MAX_POOL_V2(T)                                        \
  DFLOW_REGISTER_KERNEL(                                                     \
      KernelDefBuilder("MaxPoolV2").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      MaxPoolOp<T>)
DFLOW_REGISTER_MAX_POOL_V2(float);
DFLOW_REGISTER_MAX_POOL_V2(double);
DFLOW_REGISTER_MAX_POOL_V2(float16);
DFLOW_REGISTER_MAX_POOL_V2(bfloat16);
DFLOW_REGISTER_MAX_POOL_V2(int8_t);
DFLOW_REGISTER_MAX_POOL_V2(int16_t);
DFLOW_REGISTER_MAX_POOL_V2(int32_t);
DFLOW_REGISTER_MAX_POOL_V2(int64_t);
DFLOW_REGISTER_MAX_POOL_V2(uint8_t);
DFLOW_REGISTER_MAX_POOL_V2(uint16_t);
#undef DFLOW_REGISTER_MAX_POOL_V2

}  // namespace
}  // namespace pooling
}  // namespace dflow
