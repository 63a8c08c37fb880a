// ParameterizedTruncatedNormal and StatelessParameterizedTruncatedNormal
// (tf.random.stateless_parameterized_truncated_normal) on the CPU, drawing
// TensorFlow's samples for a given seed.
//
// Each batch member b has a mean, stddev, minval and maxval; its samples are
// normal(mean, stddev) values in [minval, maxval], drawn by one of three
// rejection samplers chosen from the standardized bounds [lo, hi] (swapped,
// with the stddev negated, when minval is -inf or maxval < mean):
//   lo < -1.3 <= 0 <= hi or lo <= 0 < 1.3 < hi: normals kept when in range;
//   hi - lo below 2 exp(1/2 + lo (lo - sqrt(lo^2 + 4)) / 4) /
//     (lo + sqrt(lo^2 + 4)): uniforms z on [lo, hi], kept when a second
//     uniform is <= exp((max(lo, 0)^2 - z^2) / 2);
//   otherwise: exponentials past lo with rate (lo + sqrt(lo^2 + 4)) / 2,
//     kept with probability exp(-(rate - z)^2 / 2) when below hi.
// Draws come in groups (4 per block for half and float, 2 for double, as
// random_ops_distributions.h makes them) and every value of a group is
// tried before the next block; TensorFlow computes in the output type
// (half rounding each operation, as Eigen::half does here) and so does
// dflow. All batches read one generator in turn: TensorFlow's order when
// the op runs as one shard, as it did with 1 to 8 intra-op threads and up
// to 2 million samples (a shard starting at another batch would start
// elsewhere in the stream).
//
// Layout: the stateful op fills batch b's samples at [b, ...] (rows of the
// shape); with scalar parameters TensorFlow regroups the output into
// batches of 100 and dflow does too. The stateless op's output is
// [samples..., batch...] with parameters broadcast over the batch shape.
// Blocks reserved per run (stateful): TensorFlow's num_batches * 2 * 1000 *
// (samples_per_batch + 3) / 4, evaluated in int32 as TensorFlow does.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

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

constexpr int kMaxIterations = 1000;

// A group of uniforms or normals in the compute type C (Eigen::half, float
// or double) from one block.
template <typename T>
struct Groups {
  using C = EigenElement<T>;
  static constexpr int kSize = UniformDistribution<T>::kGroupSize;
  using Group = std::array<C, kSize>;

  static C ToC(T v) {
    if constexpr (std::is_same_v<T, float16>) {
      return C(v.ToFloat());
    } else {
      return v;
    }
  }
  static Group Uniform(PhiloxRandom* gen) {
    T raw[kSize];
    UniformDistribution<T>()(gen, raw);
    Group g;
    for (int i = 0; i < kSize; ++i) g[i] = ToC(raw[i]);
    return g;
  }
  static Group Normal(PhiloxRandom* gen) {
    T raw[kSize];
    NormalDistribution<T>()(gen, raw);
    Group g;
    for (int i = 0; i < kSize; ++i) g[i] = ToC(raw[i]);
    return g;
  }
};

// The parameters of one batch member, in the compute type.
template <typename C>
struct Params {
  C mean, stddev, minval, maxval;
};

// Draws `count` samples of one batch member into out[0], out[stride], ...
// from `gen`, which moves on past the blocks used.
template <typename T>
absl::Status SampleBatch(Params<EigenElement<T>> p, int64_t count,
                         int64_t stride, PhiloxRandom* gen,
                         EigenElement<T>* out) {
  using C = EigenElement<T>;
  using G = Groups<T>;
  using Eigen::numext::exp;
  using Eigen::numext::isfinite;
  using Eigen::numext::isinf;
  using Eigen::numext::log;
  using Eigen::numext::sqrt;
  // TensorFlow checks the parameters of every batch member, even one
  // without samples.
  if (!(p.stddev > C(0) && p.minval < p.maxval &&
        (isfinite(p.minval) || isfinite(p.maxval)))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid parameters: need stddev > 0, minval < maxval and a finite "
        "bound; got mean ",
        static_cast<double>(p.mean), ", stddev ",
        static_cast<double>(p.stddev), ", minval ",
        static_cast<double>(p.minval), ", maxval ",
        static_cast<double>(p.maxval)));
  }
  if (count == 0) return absl::OkStatus();
  const C kStdDevsInsideBoundsToUseRandnSampler = C(1.3);
  if ((isinf(p.minval) && p.minval < C(0)) || p.maxval < p.mean) {
    std::swap(p.minval, p.maxval);
    p.stddev = -p.stddev;
  }
  const C norm_min = (p.minval - p.mean) / p.stddev;
  const C norm_max = (p.maxval - p.mean) / p.stddev;
  const C sqrt_factor = sqrt((norm_min * norm_min) + C(4));
  const C cutoff =
      C(2) * exp(C(0.5) + (norm_min * (norm_min - sqrt_factor)) / C(4)) /
      (norm_min + sqrt_factor);
  const C diff = norm_max - norm_min;
  int64_t sample = 0;
  int num_iterations = 0;
  auto accept = [&](C z) {
    out[sample * stride] = z * p.stddev + p.mean;
    ++sample;
    num_iterations = 0;
  };
  if (((norm_min < -kStdDevsInsideBoundsToUseRandnSampler) &&
       (norm_max >= C(0.))) ||
      ((norm_max > kStdDevsInsideBoundsToUseRandnSampler) &&
       (norm_min <= C(0.)))) {
    while (sample < count) {
      const typename G::Group z = G::Normal(gen);
      for (int i = 0; i < G::kSize && sample < count; ++i) {
        if (z[i] >= norm_min && z[i] <= norm_max) {
          accept(z[i]);
        } else if (++num_iterations > kMaxIterations) {
          return absl::InternalError(
              "TruncatedNormal randn rejection sampler failed to accept a "
              "sample.");
        }
      }
    }
  } else if (diff < cutoff) {
    const C plus_factor = (norm_min < C(0)) ? C(0) : norm_min * norm_min;
    while (sample < count) {
      const typename G::Group r = G::Uniform(gen);
      typename G::Group z, g;
      for (int i = 0; i < G::kSize; ++i) {
        z[i] = r[i] * diff + norm_min;
        g[i] = (plus_factor - z[i] * z[i]) / C(2.0);
      }
      const typename G::Group u = G::Uniform(gen);
      for (int i = 0; i < G::kSize && sample < count; ++i) {
        const bool ok = u[i] <= exp(g[i]);
        if (ok) {
          accept(z[i]);
        } else if (num_iterations + 1 >= kMaxIterations) {
          return absl::InternalError(
              "TruncatedNormal uniform rejection sampler failed to accept a "
              "sample.");
        } else {
          ++num_iterations;
        }
      }
    }
  } else {
    const C alpha = (norm_min + sqrt((norm_min * norm_min) + C(4))) / C(2);
    while (sample < count) {
      const typename G::Group r = G::Uniform(gen);
      // Pairs of the group: an exponential and its acceptance uniform.
      for (int i = 0; i < G::kSize && sample < count; i += 2) {
        const C z = -log(r[i]) / alpha + norm_min;
        const C x = norm_min < alpha ? alpha - z : norm_min - alpha;
        const C g = exp(-x * x / C(2.0));
        const C u = r[i + 1];
        const bool ok = u <= g && z < norm_max;
        if (ok) {
          accept(z);
        } else if (num_iterations + 1 >= kMaxIterations) {
          return absl::InternalError(
              "TruncatedNormal exponential distribution rejection sampler "
              "failed to accept a sample.");
        } else {
          ++num_iterations;
        }
      }
    }
  }
  return absl::OkStatus();
}

template <typename T>
EigenElement<T> ParamAt(const Tensor& t, int64_t i) {
  return EigenData<T>(t)[i];
}

template <typename T>
class ParameterizedTruncatedNormalOp : public OpKernel {
 public:
  explicit ParameterizedTruncatedNormalOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), stream_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    OP_REQUIRES(ctx, shape_t.NumElements() > 0,
                absl::InvalidArgumentError(
                    "shape must not be empty: the first dimension holds the "
                    "batch members"));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, RandomShapeFromTensor(shape_t, &shape));
    int64_t num_batches = shape.dim(0);
    int64_t samples_per_batch = 1;
    for (int i = 1; i < shape.rank(); ++i) samples_per_batch *= shape.dim(i);
    const int64_t num_elements = num_batches * samples_per_batch;
    OP_REQUIRES(ctx, num_elements <= INT32_MAX,
                absl::InvalidArgumentError(absl::StrCat(
                    "shape ", shape.ToString(),
                    " has more elements than int32 counts (TensorFlow's "
                    "limit for this op)")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const Tensor* params[4] = {&ctx->input(1), &ctx->input(2), &ctx->input(3),
                               &ctx->input(4)};
    static const char* const kNames[4] = {"means", "stdevs", "minvals",
                                          "maxvals"};
    for (int i = 0; i < 4; ++i) {
      OP_REQUIRES(ctx, params[i]->shape().rank() <= 1,
                  absl::InvalidArgumentError(absl::StrCat(
                      kNames[i], " must be a scalar or vector, got shape ",
                      params[i]->shape().ToString())));
    }
    auto length_one = [](const Tensor* t) {
      return t->shape().rank() == 0 || t->shape().dim(0) == 1;
    };
    if (length_one(params[0]) && length_one(params[1]) &&
        params[2]->shape().rank() == 0 && params[3]->shape().rank() == 0) {
      // One set of parameters: TensorFlow regroups into batches of 100.
      samples_per_batch = 100;
      num_batches = (num_elements + 99) / 100;
    } else {
      for (int i = 0; i < 4; ++i) {
        OP_REQUIRES(ctx,
                    length_one(params[i]) ||
                        params[i]->shape().dim(0) == num_batches,
                    absl::InvalidArgumentError(absl::StrCat(
                        kNames[i], " should have length 1 or shape[0] (",
                        num_batches, "), got shape ",
                        params[i]->shape().ToString())));
      }
    }
    // TensorFlow's reservation, computed in int32 arithmetic (which wraps
    // for outputs of more than about a million elements).
    int32_t blocks = static_cast<int32_t>(static_cast<uint32_t>(num_batches) *
                                          2u * kMaxIterations *
                                          static_cast<uint32_t>(
                                              samples_per_batch + 3));
    blocks /= 4;
    PhiloxRandom gen = stream_.Reserve(
        static_cast<uint64_t>(static_cast<int64_t>(blocks)));
    EigenElement<T>* data = EigenData<T>(*out);
    for (int64_t b = 0; b < num_batches; ++b) {
      Params<EigenElement<T>> p;
      EigenElement<T>* fields[4] = {&p.mean, &p.stddev, &p.minval, &p.maxval};
      for (int i = 0; i < 4; ++i) {
        *fields[i] = ParamAt<T>(*params[i], length_one(params[i]) ? 0 : b);
      }
      const int64_t first = b * samples_per_batch;
      const int64_t count =
          std::min(first + samples_per_batch, num_elements) - first;
      OP_REQUIRES_OK(ctx, SampleBatch<T>(p, std::max<int64_t>(count, 0), 1,
                                         &gen, data + first));
    }
  }

 private:
  PhiloxReservations stream_;
};

template <typename T>
class StatelessParameterizedTruncatedNormalOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    PhiloxRandom gen;
    OP_REQUIRES_OK(ctx, PhiloxFromSeedTensor(ctx->input(1), &gen));
    const Tensor* params[4] = {&ctx->input(2), &ctx->input(3), &ctx->input(4),
                               &ctx->input(5)};
    absl::StatusOr<ParamBroadcast> bcast =
        ParamBroadcast::Make({params[0]->shape(), params[1]->shape(),
                              params[2]->shape(), params[3]->shape()});
    OP_REQUIRES_OK(ctx, bcast.status());
    TensorShape shape;
    OP_REQUIRES_OK(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    OP_REQUIRES(ctx, ShapeEndsWith(shape, bcast->shape()),
                absl::InvalidArgumentError(absl::StrCat(
                    "shape ", shape.ToString(),
                    " must end with the broadcast shape of the parameters ",
                    bcast->shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t num_batches = bcast->shape().num_elements();
    if (shape.num_elements() == 0) return;
    const int64_t samples_per_batch = shape.num_elements() / num_batches;
    EigenElement<T>* data = EigenData<T>(*out);
    for (int64_t b = 0; b < num_batches; ++b) {
      Params<EigenElement<T>> p;
      EigenElement<T>* fields[4] = {&p.mean, &p.stddev, &p.minval, &p.maxval};
      for (int i = 0; i < 4; ++i) {
        *fields[i] = ParamAt<T>(*params[i], bcast->Index(i, b));
      }
      OP_REQUIRES_OK(ctx, SampleBatch<T>(p, samples_per_batch, num_batches,
                                         &gen, data + b));
    }
  }
};

#define DFLOW_REGISTER_PTN(T)                                                \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ParameterizedTruncatedNormal")     \
                            .Device(kDeviceCpu)                              \
                            .TypeConstraint<T>("dtype")                      \
                            .TypeConstraint("T", {DT_INT32, DT_INT64}),      \
                        ParameterizedTruncatedNormalOp<T>);                  \
  DFLOW_REGISTER_KERNEL(                                                     \
      KernelDefBuilder("StatelessParameterizedTruncatedNormal")              \
          .Device(kDeviceCpu)                                                \
          .TypeConstraint<T>("dtype")                                        \
          .TypeConstraint("S", {DT_INT32, DT_INT64})                         \
          .TypeConstraint("Tseed", {DT_INT32, DT_INT64}),                    \
      StatelessParameterizedTruncatedNormalOp<T>)

DFLOW_REGISTER_PTN(float16);
DFLOW_REGISTER_PTN(float);
DFLOW_REGISTER_PTN(double);

#undef DFLOW_REGISTER_PTN

}  // namespace
}  // namespace dflow
