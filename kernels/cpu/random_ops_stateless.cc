// TensorFlow's stateless random ops of fixed-size draws, on the CPU.
// Version 2 (key, counter and algorithm inputs): StatelessRandomUniformV2,
// -NormalV2, StatelessTruncatedNormalV2, StatelessRandomUniformIntV2 and
// -FullIntV2 fill their output from the generator at (counter, key) with
// the same group layout as the stateful kernels (random_ops_distributions.h),
// which is TensorFlow's: equal inputs give TensorFlow's numbers bit for bit.
// StatelessRandomGetKeyCounter(Alg) scrambles a [2] seed into that key and
// counter as TensorFlow's GenerateKey does (PhiloxFromSeedPair).
// Version 1 (a [2] seed input, TensorFlow 1.x's stateless ops) fills from
// the scrambled seed's generator in the same way. Only the Philox algorithm
// (alg 1, and auto-select, 3, which is Philox on CPUs and GPUs) is
// implemented; ThreeFry (2) fails with Unimplemented.
#include <cstdint>
#include <string>

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

constexpr int32_t kAlgPhilox = 1;

// Key [1] and counter [2] of a [2] seed: outputs 0 and 1; with `with_alg`,
// output 2 is the algorithm (Philox).
class GetKeyCounterOp : public OpKernel {
 public:
  explicit GetKeyCounterOp(OpKernelConstruction* ctx, bool with_alg = false)
      : OpKernel(ctx), with_alg_(with_alg) {}

  void Compute(OpKernelContext* ctx) override {
    PhiloxRandom gen;
    OP_REQUIRES_OK(ctx, PhiloxFromSeedTensor(ctx->input(0), &gen));
    const PhiloxRandom::Block& c = gen.counter();
    const PhiloxRandom::Key& k = gen.key();
    Tensor* key = nullptr;
    Tensor* ctr = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({1}), &key));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({2}), &ctr));
    key->data<uint64_t>()[0] = k[0] | (uint64_t{k[1]} << 32);
    ctr->data<uint64_t>()[0] = c[0] | (uint64_t{c[1]} << 32);
    ctr->data<uint64_t>()[1] = c[2] | (uint64_t{c[3]} << 32);
    if (with_alg_) {
      Tensor* alg = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape(), &alg));
      alg->data<int32_t>()[0] = kAlgPhilox;
    }
  }

  bool IsExpensive() const override { return false; }

 private:
  bool with_alg_;
};

class GetKeyCounterAlgOp : public GetKeyCounterOp {
 public:
  explicit GetKeyCounterAlgOp(OpKernelConstruction* ctx)
      : GetKeyCounterOp(ctx, /*with_alg=*/true) {}
};

class GetAlgOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* alg = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &alg));
    alg->data<int32_t>()[0] = kAlgPhilox;
  }
  bool IsExpensive() const override { return false; }
};

// Fills output 0 (shape from input 0) with `dist` from `base`.
template <class Distribution>
void FillStateless(OpKernelContext* ctx, const TensorShape& shape,
                   const PhiloxRandom& base, const Distribution& dist) {
  using T = typename Distribution::Element;
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  const int64_t size = out->NumElements();
  if (size == 0) return;
  T* data = out->data<T>();
  ParallelForShards(ctx, NumRandomGroups<Distribution>(size),
                    Distribution::kCostPerGroup,
                    [&](int64_t begin, int64_t end) {
                      FillRandomGroups(dist, base, data, size, begin, end);
                    });
}

// The generator of a stateless op: from the [2] seed at input 1 (version
// 1) or the key, counter and alg at inputs 1..3 (version 2).
enum class SeedInputs { kSeed, kKeyCounterAlg };

absl::Status StatelessGenerator(OpKernelContext* ctx, SeedInputs inputs,
                                PhiloxRandom* gen) {
  if (inputs == SeedInputs::kSeed) {
    return PhiloxFromSeedTensor(ctx->input(1), gen);
  }
  return PhiloxFromKeyCounterAlg(ctx->input(1), ctx->input(2), ctx->input(3),
                                 gen);
}

template <class Distribution, SeedInputs kInputs>
class StatelessRandomOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    PhiloxRandom base;
    OP_REQUIRES_OK(ctx, StatelessGenerator(ctx, kInputs, &base));
    FillStateless(ctx, shape, base, Distribution());
  }
};

// Integers on [minval, maxval): the bounds are inputs 2, 3 (version 1) or
// 4, 5 (version 2). An empty output needs no valid range (TensorFlow's
// rule, too).
template <typename T, SeedInputs kInputs>
class StatelessUniformIntOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, RandomShapeFromTensor(ctx->input(0), &shape));
    PhiloxRandom base;
    OP_REQUIRES_OK(ctx, StatelessGenerator(ctx, kInputs, &base));
    const int first = kInputs == SeedInputs::kSeed ? 2 : 4;
    const Tensor& lo_t = ctx->input(first);
    const Tensor& hi_t = ctx->input(first + 1);
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
    FillStateless(ctx, shape, base,
                  Dist(lo, static_cast<Unsigned>(hi) -
                               static_cast<Unsigned>(lo)));
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomGetKeyCounter")
                          .Device(kDeviceCpu)
                          .TypeConstraint("Tseed", {DT_INT32, DT_INT64}),
                      GetKeyCounterOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomGetKeyCounterAlg")
                          .Device(kDeviceCpu)
                          .TypeConstraint("Tseed", {DT_INT32, DT_INT64}),
                      GetKeyCounterAlgOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomGetAlg")
                          .Device(kDeviceCpu),
                      GetAlgOp);

#define DFLOW_REGISTER_STATELESS_V2(op, dist, T)                    \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op)                        \
                            .Device(kDeviceCpu)                     \
                            .TypeConstraint<T>("dtype")             \
                            .TypeConstraint("Tshape",               \
                                            {DT_INT32, DT_INT64}),  \
                        StatelessRandomOp<dist<T>, SeedInputs::kKeyCounterAlg>)
#define DFLOW_REGISTER_STATELESS_V1(op, dist, T)                         \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op)                             \
                            .Device(kDeviceCpu)                          \
                            .TypeConstraint<T>("dtype")                  \
                            .TypeConstraint("T", {DT_INT32, DT_INT64}),  \
                        StatelessRandomOp<dist<T>, SeedInputs::kSeed>)
#define DFLOW_REGISTER_STATELESS_ALL(T)                                       \
  DFLOW_REGISTER_STATELESS_V2("StatelessRandomUniformV2", UniformDistribution, \
                              T);                                             \
  DFLOW_REGISTER_STATELESS_V2("StatelessRandomNormalV2", NormalDistribution,  \
                              T);                                             \
  DFLOW_REGISTER_STATELESS_V2("StatelessTruncatedNormalV2",                   \
                              TruncatedNormalDistribution, T);                \
  DFLOW_REGISTER_STATELESS_V1("StatelessRandomUniform", UniformDistribution,  \
                              T);                                             \
  DFLOW_REGISTER_STATELESS_V1("StatelessRandomNormal", NormalDistribution, T); \
  DFLOW_REGISTER_STATELESS_V1("StatelessTruncatedNormal",                     \
                              TruncatedNormalDistribution, T)

DFLOW_REGISTER_STATELESS_ALL(float16);
DFLOW_REGISTER_STATELESS_ALL(bfloat16);
DFLOW_REGISTER_STATELESS_ALL(float);
DFLOW_REGISTER_STATELESS_ALL(double);

#define DFLOW_REGISTER_STATELESS_FULL_INT(T)                                 \
  DFLOW_REGISTER_STATELESS_V2("StatelessRandomUniformFullIntV2",             \
                              UniformFullIntDistribution, T);                \
  DFLOW_REGISTER_STATELESS_V1("StatelessRandomUniformFullInt",               \
                              UniformFullIntDistribution, T)

DFLOW_REGISTER_STATELESS_FULL_INT(int32_t);
DFLOW_REGISTER_STATELESS_FULL_INT(int64_t);
DFLOW_REGISTER_STATELESS_FULL_INT(uint32_t);
DFLOW_REGISTER_STATELESS_FULL_INT(uint64_t);

// Bounded integers: int32 and int64 (TensorFlow has no unsigned kernels
// although its V2 schema allows them).
#define DFLOW_REGISTER_STATELESS_INT(T)                                      \
  DFLOW_REGISTER_KERNEL(                                                     \
      KernelDefBuilder("StatelessRandomUniformIntV2")                        \
          .Device(kDeviceCpu)                                                \
          .TypeConstraint<T>("dtype")                                        \
          .TypeConstraint("Tshape", {DT_INT32, DT_INT64}),                   \
      StatelessUniformIntOp<T, SeedInputs::kKeyCounterAlg>);                 \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomUniformInt")        \
                            .Device(kDeviceCpu)                              \
                            .TypeConstraint<T>("dtype")                      \
                            .TypeConstraint("T", {DT_INT32, DT_INT64}),      \
                        StatelessUniformIntOp<T, SeedInputs::kSeed>)

DFLOW_REGISTER_STATELESS_INT(int32_t);
DFLOW_REGISTER_STATELESS_INT(int64_t);

#undef DFLOW_REGISTER_STATELESS_INT
#undef DFLOW_REGISTER_STATELESS_FULL_INT
#undef DFLOW_REGISTER_STATELESS_ALL
#undef DFLOW_REGISTER_STATELESS_V1
#undef DFLOW_REGISTER_STATELESS_V2

}  // namespace
}  // namespace dflow
