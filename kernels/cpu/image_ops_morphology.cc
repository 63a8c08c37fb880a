// Dilation2D and its gradients on CPU, as TensorFlow 2.21's
// core/kernels/dilation_ops.cc (tf.nn.dilation2d; tf.nn.erosion2d is
// Dilation2D of the negated image and mirrored filter):
//   out[b, y, x, c] = max over (i, j) of
//                     in[b, y*s0 - pad_top + i*r0, x*s1 - pad_left + j*r1, c]
//                     + filter[i, j, c]
// over the taps inside the image (padding takes no part; the lowest value
// of the type when no tap is inside). The gradients send each incoming
// value to the one tap that won, the first largest in (i, j) order; with
// no tap inside, to the clamped window start (input) or tap (0, 0)
// (filter), as TensorFlow.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

struct Geometry {
  int64_t batch, in_rows, in_cols, depth, f_rows, f_cols;
  int64_t stride_rows, stride_cols, rate_rows, rate_cols;
  int64_t out_rows, out_cols, pad_top, pad_left;
};

// TensorFlow's windowed output size of one dimension.
absl::Status WindowedSize(int64_t in, int64_t eff, int64_t stride, bool same,
                          int64_t* out, int64_t* pad) {
  if (same) {
    *out = (in + stride - 1) / stride;
    *pad = std::max<int64_t>(0, (*out - 1) * stride + eff - in) / 2;
  } else {
    *out = (in - eff + stride) / stride;
    *pad = 0;
  }
  if (*out < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the dilated filter (", eff, ") is larger than the input (", in,
        ") with VALID padding"));
  }
  return absl::OkStatus();
}

class DilationBase : public OpKernel {
 public:
  explicit DilationBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string padding;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("rates", &rates_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    same_ = padding == "SAME";
    OP_REQUIRES(ctx, strides_.size() == 4 && rates_.size() == 4,
                absl::InvalidArgumentError(absl::StrCat(
                    "strides [", absl::StrJoin(strides_, ","), "] and rates [",
                    absl::StrJoin(rates_, ","), "] must have 4 entries")));
    OP_REQUIRES(
        ctx,
        strides_[0] == 1 && strides_[3] == 1 && rates_[0] == 1 &&
            rates_[3] == 1,
        absl::InvalidArgumentError(
            "strides and rates must be 1 in the batch and depth dimensions"));
    // (TensorFlow reads them as int32.)
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    OP_REQUIRES(ctx,
                strides_[1] > 0 && strides_[2] > 0 && rates_[1] > 0 &&
                    rates_[2] > 0 && strides_[1] <= kMax &&
                    strides_[2] <= kMax && rates_[1] <= kMax &&
                    rates_[2] <= kMax,
                absl::InvalidArgumentError(
                    "strides and rates must be positive int32 values"));
  }

 protected:
  absl::Status Sizes(const Tensor& input, const Tensor& filter,
                     Geometry* g) const {
    const TensorShape& is = input.shape();
    const TensorShape& fs = filter.shape();
    if (is.rank() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input must be 4-D [batch, rows, cols, depth], but has shape ",
          is.ToString()));
    }
    if (fs.rank() != 3 || fs.dim(2) != is.dim(3)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "filter must be 3-D [rows, cols, depth] with the input's depth ",
          is.dim(3), ", but has shape ", fs.ToString()));
    }
    *g = Geometry{is.dim(0),    is.dim(1),    is.dim(2),  is.dim(3),
                  fs.dim(0),    fs.dim(1),    strides_[1], strides_[2],
                  rates_[1],    rates_[2],    0,          0,
                  0,            0};
    int64_t eff_rows = 0, eff_cols = 0;
    if (__builtin_mul_overflow(g->f_rows - 1, g->rate_rows - 1, &eff_rows) ||
        __builtin_add_overflow(eff_rows, g->f_rows, &eff_rows) ||
        __builtin_mul_overflow(g->f_cols - 1, g->rate_cols - 1, &eff_cols) ||
        __builtin_add_overflow(eff_cols, g->f_cols, &eff_cols) ||
        eff_rows > (int64_t{1} << 40) || eff_cols > (int64_t{1} << 40)) {
      return absl::InvalidArgumentError("the dilated filter is too large");
    }
    absl::Status s = WindowedSize(g->in_rows, eff_rows, g->stride_rows, same_,
                                  &g->out_rows, &g->pad_top);
    if (!s.ok()) return s;
    return WindowedSize(g->in_cols, eff_cols, g->stride_cols, same_,
                        &g->out_cols, &g->pad_left);
  }

  absl::Status CheckBackprop(const Tensor& out_backprop,
                             const Geometry& g) const {
    const TensorShape& bs = out_backprop.shape();
    if (bs.rank() != 4 || bs.dim(0) != g.batch || bs.dim(1) != g.out_rows ||
        bs.dim(2) != g.out_cols || bs.dim(3) != g.depth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "out_backprop ", bs.ToString(), " must have the output's shape [",
          g.batch, ",", g.out_rows, ",", g.out_cols, ",", g.depth, "]"));
    }
    return absl::OkStatus();
  }

  // Calls visit(out_index, value, in_index, filter_index) for every output
  // element with its winning tap (indices into the flat arrays).
  template <typename T, typename Visit>
  static void ForEachMax(const T* in, const T* filter, const Geometry& g,
                         Visit&& visit) {
    int64_t o = 0;
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t y = 0; y < g.out_rows; ++y) {
        const int64_t y0 = y * g.stride_rows - g.pad_top;
        for (int64_t x = 0; x < g.out_cols; ++x) {
          const int64_t x0 = x * g.stride_cols - g.pad_left;
          for (int64_t d = 0; d < g.depth; ++d, ++o) {
            T best = Eigen::NumTraits<T>::lowest();
            int64_t best_y = std::max<int64_t>(y0, 0);
            int64_t best_x = std::max<int64_t>(x0, 0);
            int64_t best_i = 0, best_j = 0;
            for (int64_t i = 0; i < g.f_rows; ++i) {
              const int64_t yi = y0 + i * g.rate_rows;
              if (yi < 0 || yi >= g.in_rows) continue;
              for (int64_t j = 0; j < g.f_cols; ++j) {
                const int64_t xj = x0 + j * g.rate_cols;
                if (xj < 0 || xj >= g.in_cols) continue;
                const T v = static_cast<T>(
                    in[((b * g.in_rows + yi) * g.in_cols + xj) * g.depth + d] +
                    filter[(i * g.f_cols + j) * g.depth + d]);
                if (v > best) {
                  best = v;
                  best_y = yi;
                  best_x = xj;
                  best_i = i;
                  best_j = j;
                }
              }
            }
            visit(o, best,
                  ((b * g.in_rows + best_y) * g.in_cols + best_x) * g.depth + d,
                  (best_i * g.f_cols + best_j) * g.depth + d);
          }
        }
      }
    }
  }

  std::vector<int64_t> strides_, rates_;
  bool same_ = false;
};

template <typename T>
class Dilation2DOp : public DilationBase {
 public:
  using DilationBase::DilationBase;

  void Compute(OpKernelContext* ctx) override {
    Geometry g;
    OP_REQUIRES_OK(ctx, Sizes(ctx->input(0), ctx->input(1), &g));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({g.batch, g.out_rows, g.out_cols, g.depth}),
                            &out));
    T* o = EigenData<T>(*out);
    ForEachMax(EigenData<T>(ctx->input(0)), EigenData<T>(ctx->input(1)), g,
               [o](int64_t i, T v, int64_t, int64_t) { o[i] = v; });
  }
};

// kFilter: the gradient with respect to the filter, else the input.
template <typename T, bool kFilter>
class Dilation2DBackpropOp : public DilationBase {
 public:
  using DilationBase::DilationBase;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    Geometry g;
    OP_REQUIRES_OK(ctx, Sizes(input, filter, &g));
    OP_REQUIRES_OK(ctx, CheckBackprop(grad, g));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, kFilter ? filter.shape() : input.shape(), &out));
    T* o = EigenData<T>(*out);
    std::fill(o, o + out->NumElements(), static_cast<T>(0));
    const T* gr = EigenData<T>(grad);
    ForEachMax(EigenData<T>(input), EigenData<T>(filter), g,
               [o, gr](int64_t i, T, int64_t in_index, int64_t f_index) {
                 T& dst = o[kFilter ? f_index : in_index];
                 dst = static_cast<T>(dst + gr[i]);
               });
  }
};

#define DFLOW_REGISTER_DILATION(T, E)                                        \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Dilation2D")                       \
                            .Device(kDeviceCpu)                              \
                            .TypeConstraint<T>("T"),                         \
                        Dilation2DOp<E>);                                    \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Dilation2DBackpropInput")          \
                            .Device(kDeviceCpu)                              \
                            .TypeConstraint<T>("T"),                         \
                        Dilation2DBackpropOp<E, false>);                     \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Dilation2DBackpropFilter")         \
                            .Device(kDeviceCpu)                              \
                            .TypeConstraint<T>("T"),                         \
                        Dilation2DBackpropOp<E, true>)
DFLOW_REGISTER_DILATION(float, float);
DFLOW_REGISTER_DILATION(double, double);
DFLOW_REGISTER_DILATION(float16, Eigen::half);
DFLOW_REGISTER_DILATION(bfloat16, Eigen::bfloat16);
DFLOW_REGISTER_DILATION(int8_t, int8_t);
DFLOW_REGISTER_DILATION(uint8_t, uint8_t);
DFLOW_REGISTER_DILATION(int16_t, int16_t);
DFLOW_REGISTER_DILATION(uint16_t, uint16_t);
DFLOW_REGISTER_DILATION(int32_t, int32_t);
DFLOW_REGISTER_DILATION(uint32_t, uint32_t);
DFLOW_REGISTER_DILATION(int64_t, int64_t);
DFLOW_REGISTER_DILATION(uint64_t, uint64_t);
#undef DFLOW_REGISTER_DILATION

}  // namespace
}  // namespace dflow
