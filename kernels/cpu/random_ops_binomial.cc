// StatelessRandomBinomial (tf.random.stateless_binomial) and
// StatefulRandomBinomial (tf.random.Generator.binomial) on the CPU, drawing
// TensorFlow's samples for a given seed or generator state.
//
// counts and probs broadcast to a batch shape the output shape ends with;
// the output is [samples..., batch...] and draw o = b * samples_per_batch +
// s (sample s of batch member b) lands at [s, b]. With n = count and p =
// prob (q = 1 - p above 0.5, the result then n minus the draw):
//   n <= 0 or p <= 0: 0;  p >= 1: n;  p NaN: NaN (an integer output gets
//   what x86 converts NaN to, as TensorFlow's);
//   n p >= 10: Hormann's BTRS ("The generation of binomial random
//     variates", 1993), from the draw's blocks at 256 * o;
//   otherwise inversion: sums of geometric variables ceil(log u /
//     log1p(-p)) until they exceed n, from the blocks at 42 * o.
// The branches compare in the parameters' type (n p rounded to half for
// half parameters) and compute in double; uniforms are doubles two per
// block, the second first, as TensorFlow takes them.
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

double BinomialInversion(double count, double prob, PhiloxRandom gen) {
  Uniforms uniform(gen);
  double geom_sum = 0;
  int num_geom = 0;
  while (true) {
    const double geom = std::ceil(std::log(uniform.Next()) / std::log1p(-prob));
    geom_sum += geom;
    if (geom_sum > count) break;
    ++num_geom;
  }
  return num_geom;
}

// The tail of Stirling's approximation of log(k!), tabulated below 10.
double StirlingApproxTail(double k) {
  static constexpr double kTailValues[] = {
      0.0810614667953272,  0.0413406959554092,  0.0276779256849983,
      0.02079067210376509, 0.0166446911898211,  0.0138761288230707,
      0.0118967099458917,  0.0104112652619720,  0.00925546218271273,
      0.00833056343336287};
  if (k <= 9) return kTailValues[static_cast<int>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

double Btrs(double count, double prob, PhiloxRandom gen) {
  Uniforms uniform(gen);
  const double stddev = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  while (true) {
    double u = uniform.Next();
    double v = uniform.Next();
    u = u - 0.5;
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0 || k > count) continue;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double upperbound =
        ((m + 0.5) * std::log((m + 1) / (r * (count - m + 1))) +
         (count + 1) * std::log((count - m + 1) / (count - k + 1)) +
         (k + 0.5) * std::log(r * (count - k + 1) / (k + 1)) +
         StirlingApproxTail(m) + StirlingApproxTail(count - m) -
         StirlingApproxTail(k) - StirlingApproxTail(count - k));
    if (v <= upperbound) return k;
  }
}

// Parameter arithmetic in the parameters' type: half rounds each result.
template <typename T>
double Round(double v) {
  if constexpr (std::is_same_v<T, float16>) {
    return float16::FromFloat(static_cast<float>(v)).ToFloat();
  } else if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

// One draw for (count, prob) from the generator at the run's first block.
template <typename T>
double BinomialDraw(double count, double prob, uint64_t o,
                    const PhiloxRandom& base) {
  if (count <= 0.0 || prob <= 0.0) return 0;
  if (prob >= 1.0) return count;
  if (std::isnan(prob)) return NAN;
  // TensorFlow's inversion never ends for a NaN count; dflow returns NaN.
  if (std::isnan(count)) return NAN;
  const bool flip = prob > 0.5;
  const double p = flip ? Round<T>(1 - prob) : prob;
  PhiloxRandom gen = base;
  double k;
  if (Round<T>(count * p) >= 10) {
    gen.Skip(256 * o);
    k = Btrs(count, p, gen);
  } else {
    // Inversion needs about n p + 10 sqrt(n p) words: 42 blocks cover it.
    gen.Skip(42 * o);
    k = BinomialInversion(count, p, gen);
  }
  return flip ? count - k : k;
}

// The output shape (input `shape`, which must end with the broadcast shape
// of counts and probs) and the broadcast; an error on bad input.
absl::Status BinomialShapes(const Tensor& shape_t, const Tensor& counts,
                            const Tensor& probs, TensorShape* shape,
                            absl::StatusOr<ParamBroadcast>* bcast) {
  *bcast = ParamBroadcast::Make({counts.shape(), probs.shape()});
  if (!bcast->ok()) return bcast->status();
  if (absl::Status s = RandomShapeFromTensor(shape_t, shape); !s.ok()) {
    return s;
  }
  if (!ShapeEndsWith(*shape, (*bcast)->shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape ", shape->ToString(),
        " must end with the broadcast shape of counts and probs ",
        (*bcast)->shape().ToString()));
  }
  return absl::OkStatus();
}

// Fills `out` ([samples..., batch...]) from `base`.
template <typename T, typename U>
void FillBinomial(OpKernelContext* ctx, const ParamBroadcast& bcast,
                  const Tensor& counts, const Tensor& probs,
                  const PhiloxRandom& base, Tensor* out) {
  const int64_t size = out->NumElements();
  if (size == 0) return;
  const int64_t num_batches = bcast.shape().num_elements();
  const int64_t samples_per_batch = size / num_batches;
  const T* count_data = counts.data<T>();
  const T* prob_data = probs.data<T>();
  U* data = out->data<U>();
  constexpr int64_t kCostPerDraw = 600;
  ParallelForShards(
      ctx, size, kCostPerDraw, [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o) {
          const int64_t b = o / samples_per_batch;
          const int64_t s = o % samples_per_batch;
          const double count = ToDouble(count_data[bcast.Index(0, b)]);
          const double prob = ToDouble(prob_data[bcast.Index(1, b)]);
          data[s * num_batches + b] = FromDouble<U>(
              BinomialDraw<T>(count, prob, static_cast<uint64_t>(o), base));
        }
      });
}

template <typename T, typename U>
class StatelessRandomBinomialOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    PhiloxRandom base;
    OP_REQUIRES_OK(ctx, PhiloxFromSeedTensor(ctx->input(1), &base));
    TensorShape shape;
    absl::StatusOr<ParamBroadcast> bcast = absl::UnknownError("unset");
    OP_REQUIRES_OK(ctx, BinomialShapes(ctx->input(0), ctx->input(2),
                                       ctx->input(3), &shape, &bcast));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    FillBinomial<T, U>(ctx, *bcast, ctx->input(2), ctx->input(3), base, out);
  }
};

// tf.random.Generator.binomial: draws from the generator state (input 0),
// which moves on by TensorFlow's reservation, num_batches * 2 * 100 *
// (samples_per_batch + 3) / 4 elements of 256 blocks each.
template <typename T, typename U>
class StatefulRandomBinomialOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    absl::StatusOr<ParamBroadcast> bcast = absl::UnknownError("unset");
    OP_REQUIRES_OK(ctx, BinomialShapes(ctx->input(2), ctx->input(3),
                                       ctx->input(4), &shape, &bcast));
    const Tensor& alg = ctx->input(1);
    OP_REQUIRES(ctx, alg.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "algorithm must be a scalar, got shape ",
                    alg.shape().ToString())));
    OP_REQUIRES_OK(ctx, CheckPhiloxAlgorithm(alg.data<int64_t>()[0]));
    const int64_t num_batches = bcast->shape().num_elements();
    const int64_t samples_per_batch =
        num_batches == 0 ? 0 : shape.num_elements() / num_batches;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const uint64_t elements = static_cast<uint64_t>(
        num_batches * 2 * 100 * (samples_per_batch + 3) / 4);
    PhiloxRandom base;
    OP_REQUIRES_OK(ctx, ReadAndSkipGeneratorState(ctx, ctx->input_var(0),
                                                  elements * 256, &base,
                                                  nullptr));
    FillBinomial<T, U>(ctx, *bcast, ctx->input(3), ctx->input(4), base, out);
  }
};

#define DFLOW_REGISTER_BINOMIAL(T, U)                                       \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomBinomial")         \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T")                         \
                            .TypeConstraint<U>("dtype")                     \
                            .TypeConstraint("S", {DT_INT32, DT_INT64})      \
                            .TypeConstraint("Tseed", {DT_INT32, DT_INT64}), \
                        StatelessRandomBinomialOp<T, U>);                   \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("StatefulRandomBinomial")          \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T")                         \
                            .TypeConstraint<U>("dtype")                     \
                            .TypeConstraint("S", {DT_INT32, DT_INT64}),     \
                        StatefulRandomBinomialOp<T, U>)
#define DFLOW_REGISTER_BINOMIAL_ALL(U) \
  DFLOW_REGISTER_BINOMIAL(float16, U); \
  DFLOW_REGISTER_BINOMIAL(float, U);   \
  DFLOW_REGISTER_BINOMIAL(double, U)

DFLOW_REGISTER_BINOMIAL_ALL(float16);
DFLOW_REGISTER_BINOMIAL_ALL(float);
DFLOW_REGISTER_BINOMIAL_ALL(double);
DFLOW_REGISTER_BINOMIAL_ALL(int32_t);
DFLOW_REGISTER_BINOMIAL_ALL(int64_t);

#undef DFLOW_REGISTER_BINOMIAL_ALL
#undef DFLOW_REGISTER_BINOMIAL

}  // namespace
}  // namespace dflow
