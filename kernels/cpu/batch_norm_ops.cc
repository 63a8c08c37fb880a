// Fused batch normalization on the CPU: FusedBatchNorm, V2, V3 and their
// gradients, for float, half and bfloat16 x (V2 and V3; V1 is float only)
// and float statistics, in every data format (the channel
// dimension is located, not transposed to: x is read as [outer, C, inner],
// inner = 1 for channels-last formats).
//
// The formulas are TensorFlow's CPU functors' (fused_batch_norm_op.cc):
// training normalizes with the batch mean and biased variance, and outputs
// as running estimates (1 - f) * given + f * batch statistic, the variance
// Bessel-corrected (n / (n - 1), n = elements per channel); inference uses
// the given mean and variance. reserve_space_1/2 carry the batch mean and
// biased variance (the given ones in inference) to the gradient. Sums run
// in double, so results agree with TensorFlow's float sums within 1e-5.
// Half and bfloat16 x are computed in float and rounded once on output, as
// TensorFlow's CPU kernel does (mixed-precision Keras models).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// x's elements as float, and back (half and bfloat16 round to nearest even).
float ToFloat(float v) { return v; }
float ToFloat(float16 v) { return v.ToFloat(); }
float ToFloat(bfloat16 v) { return v.ToFloat(); }
template <typename T>
T FromFloat(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return T::FromFloat(v);
  }
}

// x viewed as [outer, depth, inner].
struct ChannelLayout {
  int64_t outer = 0, depth = 0, inner = 0;
  int64_t count() const { return outer * inner; }  // elements per channel
  int64_t index(int64_t o, int64_t c, int64_t i) const {
    return (o * depth + c) * inner + i;
  }
};

absl::Status GetLayout(const std::string& format, const TensorShape& x,
                       ChannelLayout* out) {
  const int rank = format.size() == 5 ? 5 : 4;
  if (x.rank() != rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input 'x' must be ", rank, "-D for data_format ", format,
        " but has shape ", x.ToString()));
  }
  const int channel = format[1] == 'C' ? 1 : rank - 1;
  out->outer = 1;
  out->inner = 1;
  for (int i = 0; i < channel; ++i) out->outer *= x.dim(i);
  out->depth = x.dim(channel);
  for (int i = channel + 1; i < rank; ++i) out->inner *= x.dim(i);
  return absl::OkStatus();
}

absl::Status CheckChannelVector(const Tensor& t, const char* name,
                                int64_t depth) {
  if (t.shape().rank() != 1 || t.shape().dim(0) != depth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input '", name, "' must be a vector of the ", depth,
        " channels of x but has shape ", t.shape().ToString()));
  }
  return absl::OkStatus();
}

template <typename T>
class FusedBatchNormOp : public OpKernel {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("epsilon", &epsilon_));
    ctx->SetStatus(ctx->GetAttr("data_format", &format_));
    ctx->SetStatus(ctx->GetAttr("is_training", &is_training_));
    ctx->SetStatus(
        ctx->GetAttr("exponential_avg_factor", &exponential_avg_factor_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& scale = ctx->input(1);
    const Tensor& offset = ctx->input(2);
    const Tensor& est_mean = ctx->input(3);
    const Tensor& est_var = ctx->input(4);
    ChannelLayout l;
    OP_REQUIRES_OK(ctx, GetLayout(format_, x.shape(), &l));
    OP_REQUIRES_OK(ctx, CheckChannelVector(scale, "scale", l.depth));
    OP_REQUIRES_OK(ctx, CheckChannelVector(offset, "offset", l.depth));
    const bool use_estimates = !is_training_ || exponential_avg_factor_ != 1;
    if (use_estimates) {
      OP_REQUIRES_OK(ctx, CheckChannelVector(est_mean, "mean", l.depth));
      OP_REQUIRES_OK(ctx, CheckChannelVector(est_var, "variance", l.depth));
    }
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    Tensor* stats[4];
    for (int i = 0; i < 4; ++i) {
      OP_REQUIRES_OK(
          ctx, ctx->allocate_output(i + 1, TensorShape({l.depth}), &stats[i]));
    }
    if (num_outputs() > 5) {
      // Empty on the CPU, as TensorFlow's (cuDNN's workspace on GPUs).
      Tensor* reserve3 = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(5, TensorShape({0}), &reserve3));
    }
    const T* xs = x.data<T>();
    T* ys = y->data<T>();
    float* batch_mean = stats[0]->data<float>();
    float* batch_var = stats[1]->data<float>();
    float* saved_mean = stats[2]->data<float>();
    float* saved_var = stats[3]->data<float>();
    const int64_t n = l.count();
    const float f = exponential_avg_factor_;
    for (int64_t c = 0; c < l.depth; ++c) {
      float mean, var;
      if (is_training_) {
        if (n == 0) {
          mean = var = std::numeric_limits<float>::quiet_NaN();
        } else {
          double sum = 0;
          for (int64_t o = 0; o < l.outer; ++o) {
            for (int64_t i = 0; i < l.inner; ++i) {
              sum += ToFloat(xs[l.index(o, c, i)]);
            }
          }
          const double m = sum / n;
          double sq = 0;
          for (int64_t o = 0; o < l.outer; ++o) {
            for (int64_t i = 0; i < l.inner; ++i) {
              const double d = ToFloat(xs[l.index(o, c, i)]) - m;
              sq += d * d;
            }
          }
          mean = static_cast<float>(m);
          var = static_cast<float>(sq / n);
        }
        const float adjust =
            static_cast<float>(n) / static_cast<float>(n > 1 ? n - 1 : 1);
        if (f == 1) {
          batch_mean[c] = mean;
          batch_var[c] = var * adjust;
        } else {
          batch_mean[c] = (1 - f) * est_mean.data<float>()[c] + f * mean;
          batch_var[c] = (1 - f) * est_var.data<float>()[c] + f * var * adjust;
        }
      } else {
        mean = est_mean.data<float>()[c];
        var = est_var.data<float>()[c];
        batch_mean[c] = mean;
        batch_var[c] = var;
      }
      saved_mean[c] = mean;
      saved_var[c] = var;
      const float factor =
          scale.data<float>()[c] / std::sqrt(var + epsilon_);
      const float shift = offset.data<float>()[c];
      for (int64_t o = 0; o < l.outer; ++o) {
        for (int64_t i = 0; i < l.inner; ++i) {
          const int64_t k = l.index(o, c, i);
          ys[k] = FromFloat<T>((ToFloat(xs[k]) - mean) * factor + shift);
        }
      }
    }
  }

 private:
  float epsilon_ = 0.0001f;
  float exponential_avg_factor_ = 1.0f;
  std::string format_ = "NHWC";
  bool is_training_ = true;
};

template <typename T>
class FusedBatchNormGradOp : public OpKernel {
 public:
  explicit FusedBatchNormGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("epsilon", &epsilon_));
    ctx->SetStatus(ctx->GetAttr("data_format", &format_));
    ctx->SetStatus(ctx->GetAttr("is_training", &is_training_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    const Tensor& scale = ctx->input(2);
    const Tensor& mean_t = ctx->input(3);
    const Tensor& var_t = ctx->input(4);
    ChannelLayout l;
    OP_REQUIRES_OK(ctx, GetLayout(format_, x.shape(), &l));
    OP_REQUIRES(ctx, dy.shape() == x.shape(),
                absl::InvalidArgumentError(absl::StrCat(
                    "input 'y_backprop' ", dy.shape().ToString(),
                    " must have the shape of 'x' ", x.shape().ToString())));
    OP_REQUIRES_OK(ctx, CheckChannelVector(scale, "scale", l.depth));
    OP_REQUIRES_OK(ctx,
                   CheckChannelVector(mean_t, "reserve_space_1", l.depth));
    OP_REQUIRES_OK(ctx, CheckChannelVector(var_t, "reserve_space_2", l.depth));
    Tensor* dx = nullptr;
    Tensor *dscale = nullptr, *doffset = nullptr, *r1 = nullptr, *r2 = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &dx));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(1, TensorShape({l.depth}), &dscale));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(2, TensorShape({l.depth}), &doffset));
    // Empty placeholders, the shape TensorFlow's shape function gives them
    // (its CPU kernel returns one-element scalars instead).
    OP_REQUIRES_OK(ctx, ctx->allocate_output(3, TensorShape({0}), &r1));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(4, TensorShape({0}), &r2));
    const T* xs = x.data<T>();
    const T* g = dy.data<T>();
    T* out = dx->data<T>();
    const int64_t n = l.count();
    for (int64_t c = 0; c < l.depth; ++c) {
      const double mean = mean_t.data<float>()[c];
      const double rsqrt_var =
          1.0 / std::sqrt(static_cast<double>(var_t.data<float>()[c]) +
                          static_cast<double>(epsilon_));
      double sum_dy = 0, sum_dy_xc = 0;
      for (int64_t o = 0; o < l.outer; ++o) {
        for (int64_t i = 0; i < l.inner; ++i) {
          const int64_t k = l.index(o, c, i);
          const float gk = ToFloat(g[k]);
          sum_dy += gk;
          sum_dy_xc += gk * (ToFloat(xs[k]) - mean);
        }
      }
      dscale->data<float>()[c] = static_cast<float>(sum_dy_xc * rsqrt_var);
      doffset->data<float>()[c] = static_cast<float>(sum_dy);
      const double coef = scale.data<float>()[c] * rsqrt_var;
      const double mean_dy = n > 0 ? sum_dy / n : 0;
      const double mean_dy_xc =
          n > 0 ? sum_dy_xc / n * rsqrt_var * rsqrt_var : 0;
      for (int64_t o = 0; o < l.outer; ++o) {
        for (int64_t i = 0; i < l.inner; ++i) {
          const int64_t k = l.index(o, c, i);
          const float gk = ToFloat(g[k]);
          const float xk = ToFloat(xs[k]);
          out[k] = FromFloat<T>(static_cast<float>(
              is_training_ ? coef * (gk - mean_dy - (xk - mean) * mean_dy_xc)
                           : coef * gk));
        }
      }
    }
  }

 private:
  float epsilon_ = 0.0001f;
  std::string format_ = "NHWC";
  bool is_training_ = true;
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("FusedBatchNorm").Device(kDeviceCpu).TypeConstraint<float>("T"),
    FusedBatchNormOp<float>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("FusedBatchNormGrad").Device(kDeviceCpu).TypeConstraint<float>("T"),
    FusedBatchNormGradOp<float>);
#define DFLOW_REGISTER_BATCH_NORM(op, kernel, T)                      \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op)                          \
                            .Device(kDeviceCpu)                       \
                            .TypeConstraint<T>("T")                   \
                            .TypeConstraint<float>("U"),              \
                        kernel<T>)
#define DFLOW_REGISTER_BATCH_NORMS(T)                                 \
  DFLOW_REGISTER_BATCH_NORM("FusedBatchNormV2", FusedBatchNormOp, T); \
  DFLOW_REGISTER_BATCH_NORM("FusedBatchNormV3", FusedBatchNormOp, T); \
  DFLOW_REGISTER_BATCH_NORM("FusedBatchNormGradV2", FusedBatchNormGradOp, T); \
  DFLOW_REGISTER_BATCH_NORM("FusedBatchNormGradV3", FusedBatchNormGradOp, T)
DFLOW_REGISTER_BATCH_NORMS(float);
DFLOW_REGISTER_BATCH_NORMS(float16);
DFLOW_REGISTER_BATCH_NORMS(bfloat16);
#undef DFLOW_REGISTER_BATCH_NORMS
#undef DFLOW_REGISTER_BATCH_NORM

}  // namespace
}  // namespace dflow
