// RandomPoissonV2 (tf.random.poisson) and StatelessRandomPoisson
// (tf.random.stateless_poisson) on the CPU, drawing TensorFlow's samples
// for a given seed.
//
// Layout as in random_ops_gamma.cc: draw o = r * samples_per_rate + s (sample
// s of rate r) starts 256 blocks per draw past the run's first block and
// lands at [s, r]. Each draw, in double as TensorFlow computes it, from
// uniform doubles taken two per block, the second one first:
//   rate < 10: Knuth's method, the number of uniforms whose running
//     product stays above exp(-rate) (draws beyond the output type's
//     largest value keep going);
//   rate >= 10: Hormann's transformed rejection ("The transformed rejection
//     method for generating Poisson random variables", 1993): u, v uniform,
//     u -= 0.5, us = 0.5 - |u|, k = floor((2a / us + b) u + rate + 0.43)
//     with b = 0.931 + 2.53 sqrt(rate), a = -0.059 + 0.02483 b; k above
//     the output type's largest value is drawn again; accept k when us >=
//     0.07 and v <= 0.9277 - 3.6224 / (b - 2); reject k < 0, or us < 0.013
//     with v > us; otherwise accept when log(v inv_alpha / (a / us^2 + b))
//     <= -rate + k log(rate) - lgamma(k + 1), inv_alpha = 1.1239 + 1.1328 /
//     (b - 3.4).
// The result is converted to the output type (C++ conversion; half through
// float).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/random_ops_distributions.h"
#include "kernels/cpu/random_ops_philox.h"
#include "kernels/cpu/random_ops_stateless_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using random_internal::FromDouble;
using random_internal::ToDouble;

constexpr uint64_t kBlocksPerDraw = 256;

// The largest value of the output type, as TensorFlow's
// NumTraits<U>::highest().
template <typename U>
double Highest() {
  if constexpr (std::is_same_v<U, float16>) {
    return 65504.0;
  } else {
    return static_cast<double>(std::numeric_limits<U>::max());
  }
}

// Uniform doubles two per block, the second of each pair first.
class Uniforms {
 public:
  explicit Uniforms(PhiloxRandom gen) : gen_(gen) {}
  double Next() {
    if (remaining_ == 0) {
      UniformDistribution<double>()(&gen_, pair_);
      remaining_ = 2;
    }
    return pair_[--remaining_];
  }

 private:
  PhiloxRandom gen_;
  double pair_[2] = {0, 0};
  int remaining_ = 0;
};

// One Poisson(rate) draw from the generator at its first block.
double PoissonDraw(double rate, double highest, PhiloxRandom gen) {
  Uniforms uniform(gen);
  if (rate < 10) {
    const double exp_neg_rate = std::exp(-rate);
    double prod = 1;
    double x = 0;
    while (true) {
      prod *= uniform.Next();
      if (prod <= exp_neg_rate && x <= highest) return x;
      x += 1;
    }
  }
  const double log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  while (true) {
    double u = uniform.Next();
    u -= 0.5;
    const double v = uniform.Next();
    const double u_shifted = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / u_shifted + b) * u + rate + 0.43);
    if (k > highest) continue;  // would overflow the output type
    if (u_shifted >= 0.07 && v <= 0.9277 - 3.6224 / (b - 2)) return k;
    if (k < 0 || (u_shifted < 0.013 && v > u_shifted)) continue;
    const double s = std::log(v * inv_alpha / (a / (u_shifted * u_shifted) + b));
    const double t = -rate + k * log_rate - std::lgamma(k + 1);
    if (s <= t) return k;
  }
}

template <typename R, typename U>
void FillPoisson(OpKernelContext* ctx, const Tensor& rate_t,
                 int64_t samples_per_rate, const PhiloxRandom& base,
                 Tensor* samples) {
  const R* rate = rate_t.data<R>();
  const int64_t num_rates = rate_t.NumElements();
  U* out = samples->data<U>();
  const double highest = Highest<U>();
  constexpr int64_t kCostPerDraw = 400;
  ParallelForShards(ctx, num_rates * samples_per_rate, kCostPerDraw,
                    [&](int64_t begin, int64_t end) {
                      for (int64_t o = begin; o < end; ++o) {
                        const int64_t r = o / samples_per_rate;
                        const int64_t s = o % samples_per_rate;
                        PhiloxRandom gen = base;
                        gen.Skip(static_cast<uint64_t>(o) * kBlocksPerDraw);
                        out[s * num_rates + r] = FromDouble<U>(
                            PoissonDraw(ToDouble(rate[r]), highest, gen));
                      }
                    });
}

template <typename R, typename U>
class RandomPoissonOp : public OpKernel {
 public:
  explicit RandomPoissonOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), stream_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    const Tensor& rate = ctx->input(1);
    const int64_t samples_per_rate = shape.num_elements();
    for (int64_t d : rate.shape().dims()) shape.AddDim(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    // TensorFlow reserves nothing when the shape input has no elements.
    if (samples_per_rate == 0) return;
    const PhiloxRandom base = stream_.Reserve(
        static_cast<uint64_t>(samples_per_rate * rate.NumElements()) *
        kBlocksPerDraw);
    if (out->NumElements() == 0) return;
    FillPoisson<R, U>(ctx, rate, samples_per_rate, base, out);
  }

 private:
  PhiloxReservations stream_;
};

template <typename R, typename U>
class StatelessRandomPoissonOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    PhiloxRandom base;
    OP_REQUIRES_OK(ctx, PhiloxFromSeedTensor(ctx->input(1), &base));
    const Tensor& rate = ctx->input(2);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    OP_REQUIRES(ctx, ShapeEndsWith(shape, rate.shape()),
                absl::InvalidArgumentError(absl::StrCat(
                    "shape ", shape.ToString(), " must end with lam's shape ",
                    rate.shape().ToString())));
    FillPoisson<R, U>(ctx, rate, shape.num_elements() / rate.NumElements(),
                      base, out);
  }
};

#define DFLOW_REGISTER_POISSON(R, U)                                        \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("RandomPoissonV2")                 \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<R>("R")                         \
                            .TypeConstraint<U>("dtype")                     \
                            .TypeConstraint("S", {DT_INT32, DT_INT64}),     \
                        RandomPoissonOp<R, U>);                             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomPoisson")          \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<R>("Rtype")                     \
                            .TypeConstraint<U>("dtype")                     \
                            .TypeConstraint("T", {DT_INT32, DT_INT64})      \
                            .TypeConstraint("Tseed", {DT_INT32, DT_INT64}), \
                        StatelessRandomPoissonOp<R, U>)
#define DFLOW_REGISTER_POISSON_ALL(R)  \
  DFLOW_REGISTER_POISSON(R, float16);  \
  DFLOW_REGISTER_POISSON(R, float);    \
  DFLOW_REGISTER_POISSON(R, double);   \
  DFLOW_REGISTER_POISSON(R, int32_t);  \
  DFLOW_REGISTER_POISSON(R, int64_t)

DFLOW_REGISTER_POISSON_ALL(float16);
DFLOW_REGISTER_POISSON_ALL(float);
DFLOW_REGISTER_POISSON_ALL(double);
DFLOW_REGISTER_POISSON_ALL(int32_t);
DFLOW_REGISTER_POISSON_ALL(int64_t);

#undef DFLOW_REGISTER_POISSON_ALL
#undef DFLOW_REGISTER_POISSON

}  // namespace
}  // namespace dflow
