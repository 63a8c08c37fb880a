// QuantizeAndDequantizeV2/V3/V4 and QuantizeAndDequantizeV4Grad on the CPU,
// for float and double (TensorFlow 2.21 has no CPU kernel for half or
// bfloat16 either). The range (given, or the input's own min and max, per
// index of `axis` or for the whole tensor) sets one scale that maps it onto
// the integers [min_quantized, max_quantized] with 0 fixed; the side of the
// range that needs the smaller scale decides it and the other side is
// recomputed from it. Values are scaled, rounded (half to even or half up),
// and scaled back, each step in T in TensorFlow's order
// (quantize_and_dequantize_op.h), so results carry its bits.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// A range after TensorFlow's ComputeQuantizationRange: x maps to
// round(x * scale) * inverse_scale, clamped to [min, max] when the range
// was given.
template <typename T>
struct Range {
  T min, max, scale, inverse_scale;
};

template <typename T>
Range<T> QuantizationRange(bool signed_input, int num_bits, bool narrow_range,
                           T min_range, T max_range) {
  const int64_t half = int64_t{1} << (num_bits - 1);
  const int64_t min_quantized =
      signed_input ? (narrow_range ? -half + 1 : -half) : 0;
  const int64_t max_quantized =
      signed_input ? half - 1 : (int64_t{1} << num_bits) - 1;
  const T qmin = static_cast<T>(min_quantized);
  const T qmax = static_cast<T>(max_quantized);
  const T from_min = qmin * min_range > 0 ? qmin / min_range
                                          : std::numeric_limits<T>::max();
  const T from_max = qmax * max_range > 0 ? qmax / max_range
                                          : std::numeric_limits<T>::max();
  Range<T> r{min_range, max_range, 0, 0};
  if (from_min < from_max) {
    r.scale = from_min;
    r.inverse_scale = min_range / qmin;
    r.max = qmax * r.inverse_scale;
  } else {
    r.scale = from_max;
    r.inverse_scale = max_range / qmax;
    r.min = qmin * r.inverse_scale;
  }
  return r;
}

template <typename T>
inline T Round(T v, bool half_to_even) {
  // Eigen's rint for half to even (the current rounding mode is always
  // to-nearest-even here); half up is floor(v + 0.5) in T, as TensorFlow's.
  return half_to_even ? std::nearbyint(v) : std::floor(v + T(0.5));
}

struct Options {
  bool signed_input = true;
  int num_bits = 8;
  bool range_given = false;
  bool half_to_even = true;
  bool narrow_range = false;
  int64_t axis = -1;
};

absl::Status CheckNumBits(int64_t num_bits, bool signed_input) {
  const int64_t limit = signed_input ? 61 : 62;
  if (num_bits >= 1 && num_bits <= limit) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "num_bits must be in [1, ", limit, "] with signed_input ",
      signed_input ? "true" : "false", ", got ", num_bits));
}

absl::Status CheckAxis(int64_t axis, const Tensor& input) {
  if (axis == -1 || (axis >= 0 && axis < input.shape().rank())) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "axis ", axis, " is out of range for input of shape ",
      input.shape().ToString(), ": it must be -1 (one range) or in [0, ",
      input.shape().rank(), ")"));
}

// [outer, depth, inner] around `axis` (depth 1, inner 1 for axis -1).
void Layout(const Tensor& input, int64_t axis, int64_t* outer, int64_t* depth,
            int64_t* inner) {
  *outer = 1;
  *depth = 1;
  *inner = 1;
  const TensorShape& s = input.shape();
  if (axis == -1) {
    *outer = input.NumElements();
    return;
  }
  for (int d = 0; d < s.rank(); ++d) {
    if (d < axis) *outer *= s.dim(d);
    if (d == axis) *depth = s.dim(d);
    if (d > axis) *inner *= s.dim(d);
  }
}

// The given range's tensors: scalars for axis -1, else `depth` elements.
template <typename T>
absl::Status CheckGivenRange(const Tensor& min, const Tensor& max,
                             int64_t axis, int64_t depth, bool check_order) {
  for (const auto* t : {&min, &max}) {
    const char* name = t == &min ? "input_min" : "input_max";
    if (axis == -1 && t->shape().rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " must be a scalar when axis is -1, got shape ",
          t->shape().ToString()));
    }
    if (axis != -1 && (t->shape().rank() != 1 || t->NumElements() != depth)) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " must be a vector of ", depth, " elements (dim ", axis,
          " of the input), got shape ", t->shape().ToString()));
    }
  }
  if (!check_order) return absl::OkStatus();
  for (int64_t c = 0; c < depth; ++c) {
    const T lo = min.data<T>()[c], hi = max.data<T>()[c];
    if (lo > hi) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid range: input_min ", static_cast<double>(lo),
          " > input_max ", static_cast<double>(hi),
          axis == -1 ? "" : absl::StrCat(" at index ", c, " of axis ", axis)));
    }
  }
  return absl::OkStatus();
}

template <typename T>
void QuantizeAndDequantize(OpKernelContext* ctx, const Options& o,
                           int num_bits) {
  const Tensor& input = ctx->input(0);
  OP_REQUIRES_OK(ctx, CheckAxis(o.axis, input));
  int64_t outer, depth, inner;
  Layout(input, o.axis, &outer, &depth, &inner);
  std::vector<T> lo(depth), hi(depth);
  const T* x = input.data<T>();
  if (o.range_given) {
    OP_REQUIRES_OK(ctx, CheckGivenRange<T>(ctx->input(1), ctx->input(2),
                                           o.axis, depth, true));
    for (int64_t c = 0; c < depth; ++c) {
      lo[c] = ctx->input(1).data<T>()[c];
      hi[c] = ctx->input(2).data<T>()[c];
    }
  } else {
    // The input's own range per index of the axis (Eigen's reducers start
    // from highest() and lowest()).
    for (int64_t c = 0; c < depth; ++c) {
      lo[c] = std::numeric_limits<T>::max();
      hi[c] = std::numeric_limits<T>::lowest();
    }
    for (int64_t o2 = 0; o2 < outer; ++o2) {
      for (int64_t c = 0; c < depth; ++c) {
        const T* row = x + (o2 * depth + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          if (row[i] < lo[c]) lo[c] = row[i];
          if (row[i] > hi[c]) hi[c] = row[i];
        }
      }
    }
  }
  std::vector<Range<T>> ranges(depth);
  for (int64_t c = 0; c < depth; ++c) {
    ranges[c] = QuantizationRange<T>(o.signed_input, num_bits, o.narrow_range,
                                     lo[c], hi[c]);
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
  T* y = out->data<T>();
  const Range<T>* r = ranges.data();
  const bool clamp = o.range_given, even = o.half_to_even;
  ParallelForElements(
      ctx, input.NumElements(), 8, [=](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const Range<T>& q = r[(i / inner) % depth];
          T v = x[i];
          if (clamp) {
            // cwiseMin then cwiseMax: NaN stays NaN.
            v = q.max < v ? q.max : v;
            v = v < q.min ? q.min : v;
          }
          y[i] = Round<T>(v * q.scale, even) * q.inverse_scale;
        }
      });
}

// V2 and V4 (one kernel, as TensorFlow's): num_bits and round_mode attrs.
template <typename T>
class QuantizeAndDequantizeV2Op : public OpKernel {
 public:
  explicit QuantizeAndDequantizeV2Op(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    int64_t num_bits = 0;
    std::string round_mode;
    for (const auto& [name, value] :
         {std::pair<const char*, bool*>{"signed_input", &o_.signed_input},
          {"range_given", &o_.range_given},
          {"narrow_range", &o_.narrow_range}}) {
      if (ctx->status().ok()) ctx->SetStatus(ctx->GetAttr(name, value));
    }
    if (ctx->status().ok()) ctx->SetStatus(ctx->GetAttr("num_bits", &num_bits));
    if (ctx->status().ok()) ctx->SetStatus(ctx->GetAttr("axis", &o_.axis));
    if (ctx->status().ok()) {
      ctx->SetStatus(ctx->GetAttr("round_mode", &round_mode));
    }
    if (!ctx->status().ok()) return;
    ctx->SetStatus(CheckNumBits(num_bits, o_.signed_input));
    o_.num_bits = static_cast<int>(num_bits);
    if (round_mode != "HALF_TO_EVEN" && round_mode != "HALF_UP") {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("round_mode must be 'HALF_TO_EVEN' or 'HALF_UP', got '",
                       round_mode, "'")));
    }
    o_.half_to_even = round_mode == "HALF_TO_EVEN";
  }

  void Compute(OpKernelContext* ctx) override {
    QuantizeAndDequantize<T>(ctx, o_, o_.num_bits);
  }

 private:
  Options o_;
};

// V3: num_bits is an int32 scalar input; always half to even.
template <typename T>
class QuantizeAndDequantizeV3Op : public OpKernel {
 public:
  explicit QuantizeAndDequantizeV3Op(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    for (const auto& [name, value] :
         {std::pair<const char*, bool*>{"signed_input", &o_.signed_input},
          {"range_given", &o_.range_given},
          {"narrow_range", &o_.narrow_range}}) {
      if (ctx->status().ok()) ctx->SetStatus(ctx->GetAttr(name, value));
    }
    if (ctx->status().ok()) ctx->SetStatus(ctx->GetAttr("axis", &o_.axis));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& bits = ctx->input(3);
    OP_REQUIRES(ctx, bits.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "num_bits must be an int32 scalar, got shape ",
                    bits.shape().ToString())));
    const int64_t num_bits = bits.data<int32_t>()[0];
    OP_REQUIRES_OK(ctx, CheckNumBits(num_bits, o_.signed_input));
    QuantizeAndDequantize<T>(ctx, o_, static_cast<int>(num_bits));
  }

 private:
  Options o_;
};

// The straight-through gradient: gradients where input_min <= input <=
// input_max (per index of axis), zeros for the range's own gradients.
template <typename T>
class QuantizeAndDequantizeV4GradOp : public OpKernel {
 public:
  explicit QuantizeAndDequantizeV4GradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& input = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckAxis(axis_, input));
    OP_REQUIRES(ctx, grad.shape() == input.shape(),
                absl::InvalidArgumentError(absl::StrCat(
                    "gradients ", grad.shape().ToString(), " and input ",
                    input.shape().ToString(),
                    " must have the same shape")));
    int64_t outer, depth, inner;
    Layout(input, axis_, &outer, &depth, &inner);
    const Tensor& min = ctx->input(2);
    const Tensor& max = ctx->input(3);
    OP_REQUIRES_OK(ctx, CheckGivenRange<T>(min, max, axis_, depth, false));
    Tensor *dx = nullptr, *dmin = nullptr, *dmax = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &dx));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, min.shape(), &dmin));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, max.shape(), &dmax));
    for (int64_t c = 0; c < depth; ++c) {
      dmin->data<T>()[c] = T(0);
      dmax->data<T>()[c] = T(0);
    }
    const T* g = grad.data<T>();
    const T* x = input.data<T>();
    const T* lo = min.data<T>();
    const T* hi = max.data<T>();
    T* y = dx->data<T>();
    ParallelForElements(
        ctx, input.NumElements(), 4, [=](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const int64_t c = (i / inner) % depth;
            // g * 0 as TensorFlow: -0 and NaN kept.
            y[i] = g[i] * (x[i] >= lo[c] && x[i] <= hi[c] ? T(1) : T(0));
          }
        });
  }

 private:
  int64_t axis_ = -1;
};

#define DFLOW_REGISTER_QDQ(T)                                                \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("QuantizeAndDequantizeV2")          \
                            .Device(kDeviceCpu)                              \
                            .TypeConstraint<T>("T"),                         \
                        QuantizeAndDequantizeV2Op<T>);                       \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("QuantizeAndDequantizeV4")          \
                            .Device(kDeviceCpu)                              \
                            .TypeConstraint<T>("T"),                         \
                        QuantizeAndDequantizeV2Op<T>);                       \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("QuantizeAndDequantizeV3")          \
                            .Device(kDeviceCpu)                              \
                            .TypeConstraint<T>("T"),                         \
                        QuantizeAndDequantizeV3Op<T>);                       \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("QuantizeAndDequantizeV4Grad")      \
                            .Device(kDeviceCpu)                              \
                            .TypeConstraint<T>("T"),                         \
                        QuantizeAndDequantizeV4GradOp<T>)

DFLOW_REGISTER_QDQ(float);
DFLOW_REGISTER_QDQ(double);

#undef DFLOW_REGISTER_QDQ

}  // namespace
}  // namespace dflow
