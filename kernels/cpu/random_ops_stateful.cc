// The stateful random ops of tf.random.Generator's older graphs (TF 2.0 to
// 2.5 wrote them; later ones read the state with RngReadAndSkip and call
// the stateless V2 ops): StatefulUniform, StatefulUniformInt,
// StatefulUniformFullInt, StatefulStandardNormalV2, StatefulTruncatedNormal
// draw from the generator state (input 0: [counter low, counter high, key])
// as it was, with the distributions and group layout of the stateless V2
// kernels, and move its counter on by 256 blocks per output element, as
// TensorFlow does, so the values and the next state are TensorFlow's.
// RngSkip only moves the counter (by 256 * delta blocks).
// NonDeterministicInts draws from the OS's entropy, as TensorFlow's.
// Only Philox (algorithm 1, and auto-select 3) is implemented; ThreeFry
// (2) is Unimplemented.
#include <cstdint>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/random_ops_distributions.h"
#include "kernels/cpu/random_ops_philox.h"
#include "kernels/cpu/random_ops_stateless_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// The algorithm input (a scalar int64), checked.
absl::Status CheckAlgorithmInput(const Tensor& alg) {
  if (alg.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "algorithm must be a scalar, got shape ", alg.shape().ToString()));
  }
  return CheckPhiloxAlgorithm(alg.data<int64_t>()[0]);
}

// Output 0 of `shape` filled with `dist` from the generator state at input
// 0, which moves on past the draws.
template <class Distribution>
void FillStateful(OpKernelContext* ctx, const TensorShape& shape,
                  const Distribution& dist) {
  using T = typename Distribution::Element;
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  const int64_t size = out->NumElements();
  PhiloxRandom base;
  OP_REQUIRES_OK(ctx, ReadAndSkipGeneratorState(
                          ctx, ctx->input_var(0),
                          static_cast<uint64_t>(size) * 256, &base, nullptr));
  if (size == 0) return;
  T* data = out->data<T>();
  ParallelForShards(ctx, NumRandomGroups<Distribution>(size),
                    Distribution::kCostPerGroup,
                    [&](int64_t begin, int64_t end) {
                      FillRandomGroups(dist, base, data, size, begin, end);
                    });
}

// StatefulUniform, StatefulStandardNormalV2, StatefulTruncatedNormal,
// StatefulUniformFullInt: (resource, algorithm, shape).
template <class Distribution>
class StatefulRandomOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckAlgorithmInput(ctx->input(1)));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, RandomShapeFromTensor(ctx->input(2), &shape));
    FillStateful(ctx, shape, Distribution());
  }
};

// StatefulUniformInt: integers on [minval, maxval) (inputs 3 and 4).
template <typename T>
class StatefulUniformIntOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckAlgorithmInput(ctx->input(1)));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, RandomShapeFromTensor(ctx->input(2), &shape));
    const Tensor& lo_t = ctx->input(3);
    const Tensor& hi_t = ctx->input(4);
    OP_REQUIRES(
        ctx, lo_t.shape().rank() == 0 && hi_t.shape().rank() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "minval and maxval must be scalars, got shapes ",
            lo_t.shape().ToString(), " and ", hi_t.shape().ToString())));
    const T lo = lo_t.data<T>()[0];
    const T hi = hi_t.data<T>()[0];
    if (shape.num_elements() > 0) {
      OP_REQUIRES(ctx, lo < hi,
                  absl::InvalidArgumentError(absl::StrCat(
                      "minval (", lo, ") must be less than maxval (", hi,
                      "): the values are drawn from [minval, maxval)")));
    }
    using Dist = UniformIntDistribution<T>;
    using Unsigned = typename Dist::Unsigned;
    FillStateful(ctx, shape,
                 Dist(lo, static_cast<Unsigned>(hi) -
                              static_cast<Unsigned>(lo)));
  }
};

class RngSkipOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckAlgorithmInput(ctx->input(1)));
    const Tensor& delta = ctx->input(2);
    OP_REQUIRES(ctx, delta.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "delta must be a scalar, got shape ",
                    delta.shape().ToString())));
    PhiloxRandom before;
    // An int64 delta times 256, wrapping as TensorFlow's uint64 product.
    OP_REQUIRES_OK(
        ctx, ReadAndSkipGeneratorState(
                 ctx, ctx->input_var(0),
                 static_cast<uint64_t>(delta.data<int64_t>()[0]) * 256,
                 &before, nullptr));
  }
};

template <typename T>
class NonDeterministicIntsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    std::random_device entropy;
    T* data = out->data<T>();
    for (int64_t i = 0; i < out->NumElements(); ++i) {
      const uint64_t bits =
          (static_cast<uint64_t>(entropy()) << 32) | entropy();
      data[i] = static_cast<T>(bits);
    }
  }
};

#define DFLOW_REGISTER_STATEFUL(op, dist, T)                               \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op)                               \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("dtype")                    \
                            .TypeConstraint("shape_dtype",                 \
                                            {DT_INT32, DT_INT64}),         \
                        StatefulRandomOp<dist<T>>)
#define DFLOW_REGISTER_STATEFUL_FLOAT(T)                                      \
  DFLOW_REGISTER_STATEFUL("StatefulUniform", UniformDistribution, T);         \
  DFLOW_REGISTER_STATEFUL("StatefulStandardNormalV2", NormalDistribution, T); \
  DFLOW_REGISTER_STATEFUL("StatefulTruncatedNormal",                          \
                          TruncatedNormalDistribution, T)
DFLOW_REGISTER_STATEFUL_FLOAT(float16);
DFLOW_REGISTER_STATEFUL_FLOAT(bfloat16);
DFLOW_REGISTER_STATEFUL_FLOAT(float);
DFLOW_REGISTER_STATEFUL_FLOAT(double);

#define DFLOW_REGISTER_STATEFUL_INT(T)                                      \
  DFLOW_REGISTER_STATEFUL("StatefulUniformFullInt",                         \
                          UniformFullIntDistribution, T);                   \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("NonDeterministicInts")            \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("dtype")                     \
                            .TypeConstraint("shape_dtype",                  \
                                            {DT_INT32, DT_INT64}),          \
                        NonDeterministicIntsOp<T>)
DFLOW_REGISTER_STATEFUL_INT(int32_t);
DFLOW_REGISTER_STATEFUL_INT(int64_t);
DFLOW_REGISTER_STATEFUL_INT(uint32_t);
DFLOW_REGISTER_STATEFUL_INT(uint64_t);

#define DFLOW_REGISTER_STATEFUL_UNIFORM_INT(T)                             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("StatefulUniformInt")             \
                            .Device(kDeviceCpu)                            \
                            .TypeConstraint<T>("dtype")                    \
                            .TypeConstraint("shape_dtype",                 \
                                            {DT_INT32, DT_INT64}),         \
                        StatefulUniformIntOp<T>)
DFLOW_REGISTER_STATEFUL_UNIFORM_INT(int32_t);
DFLOW_REGISTER_STATEFUL_UNIFORM_INT(int64_t);

DFLOW_REGISTER_KERNEL(KernelDefBuilder("RngSkip").Device(kDeviceCpu),
                      RngSkipOp);

#undef DFLOW_REGISTER_STATEFUL_UNIFORM_INT
#undef DFLOW_REGISTER_STATEFUL_INT
#undef DFLOW_REGISTER_STATEFUL_FLOAT
#undef DFLOW_REGISTER_STATEFUL

}  // namespace
}  // namespace dflow
