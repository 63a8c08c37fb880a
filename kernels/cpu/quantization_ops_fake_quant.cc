// The FakeQuantWithMinMax* kernels on the CPU (float only, as TensorFlow's):
// inputs are clamped to a range [min, max] nudged so that 0 lies on the
// grid of 2^num_bits - 1 steps (narrow_range: one fewer), then rounded to
// that grid. Every step is computed in float in TensorFlow 2.21's order
// (fake_quant_ops_functor.h), so results carry its bits: the grid's zero
// point held in a uint16, the Args and PerChannel ops multiplying by the
// inverse scale where the Vars op divides by the scale, rounding half up as
// floor(x + 0.5) on the grid index counted from zero. The gradients pass the incoming gradient where
// the input lies in the nudged range and send the rest to min (below) or
// max (above), per channel for PerChannel.
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// The clamping range and grid step TensorFlow's Nudge computes.
struct Nudged {
  float min = 0, max = 0, scale = 0;
  // (quant_max - quant_min) / (max - min), computed from the range rather
  // than as 1 / scale, as TensorFlow does.
  float inverse_scale = 0;
  // The grid index of 0: floor(-min * inverse_scale + 0.5).
  float quant_zero = 0;
  // min == max == 0: TensorFlow 2.21 gives 0 for every input (NaN too) and
  // passes every gradient through; a range that was never calibrated.
  bool zero_range = false;
};

Nudged Nudge(float min, float max, int quant_min, int quant_max) {
  Nudged n;
  n.zero_range = min == 0.0f && max == 0.0f;
  const float qmin = static_cast<float>(quant_min);
  const float qmax = static_cast<float>(quant_max);
  n.scale = (max - min) / (qmax - qmin);
  n.inverse_scale = (qmax - qmin) / (max - min);
  const float zero_point_from_min = qmin - min / n.scale;
  // A 16-bit zero point, as TensorFlow keeps it (num_bits <= 16).
  uint16_t zero_point;
  if (zero_point_from_min < qmin) {
    zero_point = static_cast<uint16_t>(quant_min);
  } else if (zero_point_from_min > qmax) {
    zero_point = static_cast<uint16_t>(quant_max);
  } else {
    zero_point = static_cast<uint16_t>(std::round(zero_point_from_min));
  }
  n.min = (qmin - zero_point) * n.scale;
  n.max = (qmax - zero_point) * n.scale;
  n.quant_zero = std::floor(-n.min * n.inverse_scale + 0.5f);
  return n;
}

// x clamped to [n.min, n.max] and put on the grid, in TensorFlow's order:
// the grid index counted from zero (so that 0 maps to exactly 0), times the
// scale. The Args and PerChannel ops multiply by the inverse scale where
// the Vars op divides by the scale. NaN stays NaN (the comparisons fail),
// as with Eigen's cwiseMin/cwiseMax.
inline float Quantize(float x, const Nudged& n, bool multiply_by_inverse) {
  if (n.zero_range) return 0.0f;
  float c = n.max < x ? n.max : x;
  c = c < n.min ? n.min : c;
  const float shifted = c - n.min;
  // Separate roundings (TensorFlow's CPU build does not fuse a * b + c).
  const float steps =
      multiply_by_inverse ? shifted * n.inverse_scale : shifted / n.scale;
  const float index = std::floor(steps - n.quant_zero + 0.5f);
  return index * n.scale;
}

inline bool InRange(float x, const Nudged& n) {
  return n.zero_range || (x >= n.min && x <= n.max);
}

// num_bits and narrow_range, checked once when the kernel is built.
class FakeQuantKernel : public OpKernel {
 public:
  explicit FakeQuantKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t num_bits = 0;
    bool narrow_range = false;
    ctx->SetStatus(ctx->GetAttr("num_bits", &num_bits));
    if (ctx->status().ok()) {
      ctx->SetStatus(ctx->GetAttr("narrow_range", &narrow_range));
    }
    if (!ctx->status().ok()) return;
    if (num_bits < 2 || num_bits > 16) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "num_bits must be between 2 and 16 inclusive, got ", num_bits)));
      return;
    }
    quant_min_ = narrow_range ? 1 : 0;
    quant_max_ = (1 << num_bits) - 1;
  }

 protected:
  int quant_min_ = 0;
  int quant_max_ = 255;
};

// FakeQuantWithMinMaxArgs and its gradient: the range in attrs.
class FakeQuantArgsKernel : public FakeQuantKernel {
 public:
  explicit FakeQuantArgsKernel(OpKernelConstruction* ctx)
      : FakeQuantKernel(ctx) {
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ctx->GetAttr("min", &min_));
    if (ctx->status().ok()) ctx->SetStatus(ctx->GetAttr("max", &max_));
    if (ctx->status().ok() && !(min_ < max_)) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "attr min must be smaller than max, got min ", min_, " >= max ",
          max_)));
    }
    nudged_ = Nudge(min_, max_, quant_min_, quant_max_);
  }

 protected:
  float min_ = -6, max_ = 6;
  Nudged nudged_;
};

class FakeQuantWithMinMaxArgsOp : public FakeQuantArgsKernel {
 public:
  using FakeQuantArgsKernel::FakeQuantArgsKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const float* x = in.data<float>();
    float* y = out->data<float>();
    const Nudged n = nudged_;
    ParallelForElements(ctx, in.NumElements(), 8,
                        [=](int64_t begin, int64_t end) {
                          for (int64_t i = begin; i < end; ++i) {
                            y[i] = Quantize(x[i], n, true);
                          }
                        });
  }
};

absl::Status SameShape(const Tensor& gradients, const Tensor& inputs) {
  if (gradients.shape() == inputs.shape()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "gradients ", gradients.shape().ToString(), " and inputs ",
      inputs.shape().ToString(), " must have the same shape"));
}

class FakeQuantWithMinMaxArgsGradientOp : public FakeQuantArgsKernel {
 public:
  using FakeQuantArgsKernel::FakeQuantArgsKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& in = ctx->input(1);
    OP_REQUIRES_OK(ctx, SameShape(grad, in));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const float* g = grad.data<float>();
    const float* x = in.data<float>();
    float* y = out->data<float>();
    const Nudged n = nudged_;
    ParallelForElements(ctx, in.NumElements(), 4,
                        [=](int64_t begin, int64_t end) {
                          for (int64_t i = begin; i < end; ++i) {
                            // g * 0 as TensorFlow: -0 and NaN kept.
                            y[i] = g[i] * (InRange(x[i], n) ? 1.0f : 0.0f);
                          }
                        });
  }
};

// The ranges of the Vars ops: scalars, or (per channel) vectors of the last
// dimension's length; min <= max for each.
absl::Status ReadRanges(const Tensor& inputs, const Tensor& min,
                        const Tensor& max, bool per_channel, int64_t* depth) {
  if (!per_channel) {
    if (min.shape().rank() != 0 || max.shape().rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "min and max must be scalars, got shapes ", min.shape().ToString(),
          " and ", max.shape().ToString()));
    }
    *depth = 1;
  } else {
    if (inputs.shape().rank() < 1) {
      return absl::InvalidArgumentError(
          "inputs must have rank at least 1 (its last dimension is the "
          "channel), got a scalar");
    }
    *depth = inputs.shape().dim(inputs.shape().rank() - 1);
    for (const auto* t : {&min, &max}) {
      if (t->shape().rank() != 1 || t->NumElements() != *depth) {
        return absl::InvalidArgumentError(absl::StrCat(
            t == &min ? "min" : "max", " must be a vector of ", *depth,
            " elements (the last dimension of inputs ",
            inputs.shape().ToString(), "), got shape ",
            t->shape().ToString()));
      }
    }
  }
  const float* lo = min.data<float>();
  const float* hi = max.data<float>();
  for (int64_t c = 0; c < *depth; ++c) {
    // TensorFlow computes with an inverted range without complaint; its
    // values are meaningless, so dflow refuses it.
    if (lo[c] > hi[c]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "min must not be greater than max, got min ", lo[c], " > max ",
          hi[c], per_channel ? absl::StrCat(" in channel ", c) : ""));
    }
  }
  return absl::OkStatus();
}

template <bool kPerChannel>
class FakeQuantWithMinMaxVarsOp : public FakeQuantKernel {
 public:
  using FakeQuantKernel::FakeQuantKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    int64_t depth = 1;
    OP_REQUIRES_OK(
        ctx, ReadRanges(in, ctx->input(1), ctx->input(2), kPerChannel, &depth));
    std::vector<Nudged> nudged(depth);
    for (int64_t c = 0; c < depth; ++c) {
      nudged[c] = Nudge(ctx->input(1).data<float>()[c],
                        ctx->input(2).data<float>()[c], quant_min_,
                        quant_max_);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const float* x = in.data<float>();
    float* y = out->data<float>();
    const Nudged* n = nudged.data();
    ParallelForElements(ctx, in.NumElements(), 8,
                        [=](int64_t begin, int64_t end) {
                          for (int64_t i = begin; i < end; ++i) {
                            y[i] = Quantize(x[i], n[i % depth], kPerChannel);
                          }
                        });
  }
};

// Sums per channel run in double, in element order, and are rounded once:
// TensorFlow's float sums (Eigen's tree order) agree to a few ulps.
template <bool kPerChannel>
class FakeQuantWithMinMaxVarsGradientOp : public FakeQuantKernel {
 public:
  using FakeQuantKernel::FakeQuantKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& in = ctx->input(1);
    OP_REQUIRES_OK(ctx, SameShape(grad, in));
    int64_t depth = 1;
    OP_REQUIRES_OK(
        ctx, ReadRanges(in, ctx->input(2), ctx->input(3), kPerChannel, &depth));
    std::vector<Nudged> nudged(depth);
    for (int64_t c = 0; c < depth; ++c) {
      nudged[c] = Nudge(ctx->input(2).data<float>()[c],
                        ctx->input(3).data<float>()[c], quant_min_,
                        quant_max_);
    }
    Tensor *dx = nullptr, *dmin = nullptr, *dmax = nullptr;
    const TensorShape range =
        kPerChannel ? TensorShape({depth}) : TensorShape({});
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &dx));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, range, &dmin));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, range, &dmax));
    const float* g = grad.data<float>();
    const float* x = in.data<float>();
    float* y = dx->data<float>();
    std::vector<double> below(depth, 0.0), above(depth, 0.0);
    const int64_t n = in.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = i % depth;
      const Nudged& r = nudged[c];
      y[i] = g[i] * (InRange(x[i], r) ? 1.0f : 0.0f);
      if (r.zero_range) continue;
      // g * 0 and not a skip, as TensorFlow: a NaN gradient anywhere makes
      // the sums NaN.
      below[c] += g[i] * (x[i] < r.min ? 1.0f : 0.0f);
      above[c] += g[i] * (x[i] > r.max ? 1.0f : 0.0f);
    }
    for (int64_t c = 0; c < depth; ++c) {
      dmin->data<float>()[c] = static_cast<float>(below[c]);
      dmax->data<float>()[c] = static_cast<float>(above[c]);
    }
  }
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("FakeQuantWithMinMaxArgs").Device(kDeviceCpu),
    FakeQuantWithMinMaxArgsOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("FakeQuantWithMinMaxArgsGradient").Device(kDeviceCpu),
    FakeQuantWithMinMaxArgsGradientOp);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("FakeQuantWithMinMaxVars").Device(kDeviceCpu),
    FakeQuantWithMinMaxVarsOp<false>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("FakeQuantWithMinMaxVarsPerChannel").Device(kDeviceCpu),
    FakeQuantWithMinMaxVarsOp<true>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("FakeQuantWithMinMaxVarsGradient").Device(kDeviceCpu),
    FakeQuantWithMinMaxVarsGradientOp<false>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder(
                          "FakeQuantWithMinMaxVarsPerChannelGradient")
                          .Device(kDeviceCpu),
                      FakeQuantWithMinMaxVarsGradientOp<true>);

}  // namespace
}  // namespace dflow
