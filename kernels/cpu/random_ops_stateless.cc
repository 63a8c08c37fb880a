// TensorFlow's stateless random ops, version 2, on the CPU:
// StatelessRandomGetKeyCounter scrambles a [2] seed into a Philox key and
// counter exactly as TensorFlow's GenerateKey does (the seed words become a
// counter, one Philox block under a fixed key gives the new key and the
// counter's upper half), and StatelessRandomUniformV2, -NormalV2 and
// StatelessTruncatedNormalV2 fill their output from the generator at
// (counter, key) with the same group layout as the stateful kernels
// (random_ops_distributions.h), which is TensorFlow's: equal inputs give
// TensorFlow's numbers bit for bit. Only the Philox algorithm (alg 1, and
// auto-select, 3, which is Philox on CPUs and GPUs) is implemented;
// ThreeFry (2) fails with Unimplemented.
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
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

constexpr int kAlgPhilox = 1;
constexpr int kAlgThreefry = 2;
constexpr int kAlgAutoSelect = 3;
// The key TensorFlow scrambles seeds under.
constexpr uint32_t kScrambleKey0 = 0x3ec8f720u;
constexpr uint32_t kScrambleKey1 = 0x02461e29u;

class GetKeyCounterOp : public OpKernel {
 public:
  explicit GetKeyCounterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& seed = ctx->input(0);
    OP_REQUIRES(ctx, seed.shape().rank() == 1 && seed.shape().dim(0) == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "seed must have shape [2], not ", seed.shape().ToString())));
    // int32 seeds widen with their sign, as in TensorFlow.
    uint64_t s0, s1;
    if (seed.dtype() == DT_INT32) {
      s0 = static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[0]));
      s1 = static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[1]));
    } else {
      s0 = static_cast<uint64_t>(seed.data<int64_t>()[0]);
      s1 = static_cast<uint64_t>(seed.data<int64_t>()[1]);
    }
    const PhiloxRandom::Block counter = {
        static_cast<uint32_t>(s0), static_cast<uint32_t>(s0 >> 32),
        static_cast<uint32_t>(s1), static_cast<uint32_t>(s1 >> 32)};
    const PhiloxRandom::Block mix =
        PhiloxRandom::Compute(counter, {kScrambleKey0, kScrambleKey1});
    Tensor* key = nullptr;
    Tensor* ctr = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({1}), &key));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({2}), &ctr));
    key->data<uint64_t>()[0] = mix[0] | (uint64_t{mix[1]} << 32);
    ctr->data<uint64_t>()[0] = 0;
    ctr->data<uint64_t>()[1] = mix[2] | (uint64_t{mix[3]} << 32);
  }

  bool IsExpensive() const override { return false; }
};

absl::Status ReadShape(const Tensor& t, TensorShape* shape) {
  if (t.shape().rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape must be a vector, got shape ", t.shape().ToString()));
  }
  *shape = TensorShape(std::vector<int64_t>{});
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const int64_t d = t.dtype() == DT_INT32 ? t.data<int32_t>()[i]
                                            : t.data<int64_t>()[i];
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape has a negative dimension ", d, " at index ", i));
    }
    shape->AddDim(d);
  }
  return absl::OkStatus();
}

// The generator at the (key, counter, alg) inputs 1..3, or an error.
absl::Status GeneratorFromInputs(OpKernelContext* ctx, PhiloxRandom* gen) {
  const Tensor& key_t = ctx->input(1);
  const Tensor& counter_t = ctx->input(2);
  const Tensor& alg_t = ctx->input(3);
  if (alg_t.shape().rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "alg must be a scalar, got shape ", alg_t.shape().ToString()));
  }
  const int alg = alg_t.data<int32_t>()[0];
  if (alg == kAlgThreefry) {
    return absl::UnimplementedError(
        "the ThreeFry algorithm (alg 2) is not implemented; use Philox (1) "
        "or auto-select (3)");
  }
  if (alg != kAlgPhilox && alg != kAlgAutoSelect) {
    return absl::InvalidArgumentError(
        absl::StrCat("Unsupported algorithm id: ", alg));
  }
  if (key_t.shape().rank() != 1 || key_t.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key must have shape [1], not ", key_t.shape().ToString()));
  }
  if (counter_t.shape().rank() != 1 || counter_t.NumElements() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "counter must be a vector of at least 2 elements (Philox), got shape ",
        counter_t.shape().ToString()));
  }
  const uint64_t k = key_t.data<uint64_t>()[0];
  const uint64_t c0 = counter_t.data<uint64_t>()[0];
  const uint64_t c1 = counter_t.data<uint64_t>()[1];
  *gen = PhiloxRandom(
      {static_cast<uint32_t>(c0), static_cast<uint32_t>(c0 >> 32),
       static_cast<uint32_t>(c1), static_cast<uint32_t>(c1 >> 32)},
      {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)});
  return absl::OkStatus();
}

template <class Distribution>
class StatelessRandomV2Op : public OpKernel {
 public:
  using T = typename Distribution::Element;
  explicit StatelessRandomV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ReadShape(ctx->input(0), &shape));
    PhiloxRandom base;
    OP_REQUIRES_OK(ctx, GeneratorFromInputs(ctx, &base));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t size = out->NumElements();
    if (size == 0) return;
    T* data = out->data<T>();
    const Distribution dist;
    ParallelForShards(
        ctx, NumRandomGroups<Distribution>(size),
        Distribution::kCostPerGroup, [&](int64_t begin, int64_t end) {
          FillRandomGroups(dist, base, data, size, begin, end);
        });
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("StatelessRandomGetKeyCounter")
                          .Device(kDeviceCpu)
                          .TypeConstraint("Tseed", {DT_INT32, DT_INT64}),
                      GetKeyCounterOp);

#define DFLOW_REGISTER_STATELESS(op, dist, T)                       \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op)                        \
                            .Device(kDeviceCpu)                     \
                            .TypeConstraint<T>("dtype")             \
                            .TypeConstraint("Tshape",               \
                                            {DT_INT32, DT_INT64}),  \
                        StatelessRandomV2Op<dist<T>>)
#define DFLOW_REGISTER_STATELESS_ALL(T)                                     \
  DFLOW_REGISTER_STATELESS("StatelessRandomUniformV2", UniformDistribution, \
                           T);                                              \
  DFLOW_REGISTER_STATELESS("StatelessRandomNormalV2", NormalDistribution,   \
                           T);                                              \
  DFLOW_REGISTER_STATELESS("StatelessTruncatedNormalV2",                    \
                           TruncatedNormalDistribution, T)

DFLOW_REGISTER_STATELESS_ALL(float16);
DFLOW_REGISTER_STATELESS_ALL(bfloat16);
DFLOW_REGISTER_STATELESS_ALL(float);
DFLOW_REGISTER_STATELESS_ALL(double);

}  // namespace
}  // namespace dflow
