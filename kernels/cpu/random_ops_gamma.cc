// RandomGamma (tf.random.gamma), StatelessRandomGammaV2 (a [2] seed) and
// StatelessRandomGammaV3 (key, counter, alg: tf.random.stateless_gamma) on
// the CPU, drawing TensorFlow's samples for a given seed.
//
// Output element (sample s of alpha a) is number o = a * samples_per_alpha
// + s of the draws and sits at [s, a] of the [samples..., alpha...]
// layout. Draw o starts at block 256 * o past the run's first block (the
// room TensorFlow reserves per draw), so draws are independent of how they
// are split over threads. Each draw, computed in double as TensorFlow does:
//   alpha == 1: exponential, -log1p(-u) for the second uniform of a block;
//   otherwise Marsaglia and Tsang's transformation-rejection ("A simple
//   method for generating gamma variables", 2000) with d = alpha - 1/3
//   (alpha + 2/3 below 1), c = 1 / (3 sqrt(d)): x normal, v = (1 + c x)^3
//   (x again while v <= 0), u uniform; accept d v when u < 1 - 0.0331 x^4
//   or log u < x^2 / 2 + d (1 - v + log v); below alpha 1 the result is
//   multiplied by b^(1/alpha) for one more uniform b.
// Normals come two per block (Box-Muller on four words) and uniforms two
// per block (52-bit doubles), each pair used second element first, from
// one generator that moves on a block per pair: TensorFlow's order. The
// result is rounded to the output type (half through float).
#include <cmath>
#include <cstdint>
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

// Blocks reserved per draw (TensorFlow's kReservedSamplesPerOutput).
constexpr uint64_t kBlocksPerDraw = 256;

// Pairs of doubles from whole blocks, handed out second one first.
template <class Distribution>
class PairBuffer {
 public:
  double Next(PhiloxRandom* gen) {
    if (remaining_ == 0) {
      dist_(gen, pair_);
      remaining_ = 2;
    }
    return pair_[--remaining_];
  }

 private:
  Distribution dist_;
  double pair_[2] = {0, 0};
  int remaining_ = 0;
};

// One Gamma(alpha, 1) draw from `gen` (at the draw's first block).
double GammaDraw(double alpha, PhiloxRandom gen) {
  PairBuffer<UniformDistribution<double>> uniform;
  if (alpha == 1.0) return -std::log1p(-uniform.Next(&gen));
  PairBuffer<NormalDistribution<double>> normal;
  const bool below_one = alpha < 1.0;
  const double d = alpha + (below_one ? 2.0 / 3 : -1.0 / 3);
  const double c = 1.0 / 3 / std::sqrt(d);
  while (true) {
    const double x = normal.Next(&gen);
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = uniform.Next(&gen);
    if ((u < 1 - 0.0331 * (x * x) * (x * x)) ||
        (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v)))) {
      double result = d * v;
      if (below_one) result *= std::pow(uniform.Next(&gen), 1 / alpha);
      return result;
    }
  }
}

// Fills `samples` ([samples_per_alpha, num_alphas] in row-major order) from
// `base`.
template <typename T>
void FillGamma(OpKernelContext* ctx, const Tensor& alpha_t,
               int64_t samples_per_alpha, const PhiloxRandom& base,
               Tensor* samples) {
  const T* alpha = alpha_t.data<T>();
  const int64_t num_alphas = alpha_t.NumElements();
  T* out = samples->data<T>();
  // About two normals, a uniform and a few logs per draw.
  constexpr int64_t kCostPerDraw = 500;
  ParallelForShards(
      ctx, num_alphas * samples_per_alpha, kCostPerDraw,
      [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o) {
          const int64_t a = o / samples_per_alpha;
          const int64_t s = o % samples_per_alpha;
          PhiloxRandom gen = base;
          gen.Skip(static_cast<uint64_t>(o) * kBlocksPerDraw);
          out[s * num_alphas + a] =
              FromDouble<T>(GammaDraw(ToDouble(alpha[a]), gen));
        }
      });
}

template <typename T>
class RandomGammaOp : public OpKernel {
 public:
  explicit RandomGammaOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), stream_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    const Tensor& alpha = ctx->input(1);
    const int64_t samples_per_alpha = shape.num_elements();
    for (int64_t d : alpha.shape().dims()) shape.AddDim(d);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    const PhiloxRandom base = stream_.Reserve(
        static_cast<uint64_t>(out->NumElements()) * kBlocksPerDraw);
    FillGamma<T>(ctx, alpha, samples_per_alpha, base, out);
  }

 private:
  PhiloxReservations stream_;
};

// The stateless versions: the shape input gives the whole output, which
// must end with alpha's shape. `kKeyCounter`: inputs key, counter, alg
// (V3) instead of a seed (V2).
template <typename T, bool kKeyCounter>
class StatelessRandomGammaOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    PhiloxRandom base;
    if constexpr (kKeyCounter) {
      OP_REQUIRES_OK(ctx, PhiloxFromKeyCounterAlg(ctx->input(1), ctx->input(2),
                                                  ctx->input(3), &base));
    } else {
      OP_REQUIRES_OK(ctx, PhiloxFromSeedTensor(ctx->input(1), &base));
    }
    const Tensor& alpha = ctx->input(kKeyCounter ? 4 : 2);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (shape.num_elements() == 0) return;
    OP_REQUIRES(ctx, ShapeEndsWith(shape, alpha.shape()),
                absl::InvalidArgumentError(absl::StrCat(
                    "shape ", shape.ToString(),
                    " must end with alpha's shape ",
                    alpha.shape().ToString())));
    FillGamma<T>(ctx, alpha, shape.num_elements() / alpha.NumElements(),
                 base, out);
  }
};

#define DFLOW_REGISTER_GAMMA(T)                                             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("RandomGamma")                     \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T")                         \
                            .TypeConstraint("S", {DT_INT32, DT_INT64})      \
                            .HostMemory("shape"),                           \
                        RandomGammaOp<T>);                                  \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomGammaV2")          \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("dtype")                     \
                            .TypeConstraint("T", {DT_INT32, DT_INT64})      \
                            .TypeConstraint("Tseed", {DT_INT32, DT_INT64}), \
                        StatelessRandomGammaOp<T, false>);                  \
  DFLOW_REGISTER_KERNEL(                                                    \
      KernelDefBuilder("StatelessRandomGammaV3")                            \
          .Device(kDeviceCpu)                                               \
          .TypeConstraint<T>("dtype")                                       \
          .TypeConstraint("shape_dtype", {DT_INT32, DT_INT64}),             \
      StatelessRandomGammaOp<T, true>)

DFLOW_REGISTER_GAMMA(float16);
DFLOW_REGISTER_GAMMA(float);
DFLOW_REGISTER_GAMMA(double);

#undef DFLOW_REGISTER_GAMMA

}  // namespace
}  // namespace dflow
