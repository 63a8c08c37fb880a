// RandomStandardNormal, TruncatedNormal, RandomUniform and RandomUniformInt
// on the CPU:
// stateful kernels over a Philox4x32-10 stream (random_ops_philox.h) with
// TensorFlow's seed semantics.
//
// Seeds. The stream is keyed by the attrs (seed, seed2); when both are 0
// the kernel draws both from the operating system's entropy when it is
// built, so every kernel instance differs. Otherwise the numbers are a pure
// function of (seed, seed2) and the number of elements computed before.
//
// State. Each Compute reserves output_size * 256 counter blocks (what
// TensorFlow reserves) with one atomic add, and fills its output from the
// start of that range, so successive steps continue the stream and
// concurrent steps get disjoint numbers. Within a step the layout of
// random_ops_distributions.h makes the values independent of threading.
#include <cstdint>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/random_ops_distributions.h"
#include "kernels/cpu/random_ops_philox.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {

// A fresh 64-bit seed from the operating system's entropy.
uint64_t NondeterministicSeed() {
  static std::mutex mu;
  static std::mt19937_64* engine = [] {
    std::random_device device;
    std::seed_seq seq{device(), device(), device(), device()};
    return new std::mt19937_64(seq);
  }();
  std::lock_guard<std::mutex> lock(mu);
  return (*engine)();
}

PhiloxRandom StreamFromSeedAttrs(OpKernelConstruction* ctx) {
  int64_t seed = 0;
  int64_t seed2 = 0;
  ctx->SetStatus(ctx->GetAttr("seed", &seed));
  ctx->SetStatus(ctx->GetAttr("seed2", &seed2));
  if (seed == 0 && seed2 == 0) {
    seed = static_cast<int64_t>(NondeterministicSeed());
    seed2 = static_cast<int64_t>(NondeterministicSeed());
  }
  return PhiloxRandom(static_cast<uint64_t>(seed),
                      static_cast<uint64_t>(seed2));
}

namespace {

// Counter blocks reserved per output element and step. Generous on
// purpose (a uniform float needs 1/4): it is TensorFlow's figure, which
// keeps the steps after the first on TensorFlow's numbers as well.
constexpr uint64_t kBlocksReservedPerElement = 256;

// The value of a shape tensor as "[2,-3]" (for error messages).
std::string ShapeValues(const Tensor& shape_t) {
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < shape_t.NumElements(); ++i) {
    dims.push_back(shape_t.dtype() == DT_INT32 ? shape_t.data<int32_t>()[i]
                                               : shape_t.data<int64_t>()[i]);
  }
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// The output shape from the `shape` input: a vector of int32 or int64
// sizes, each >= 0, with at most int64-many elements in all.
absl::Status ShapeFromInput(const OpKernel& kernel, const Tensor& shape_t,
                            TensorShape* shape) {
  if (shape_t.dtype() != DT_INT32 && shape_t.dtype() != DT_INT64) {
    return absl::InvalidArgumentError(absl::StrCat(
        kernel.type_string(), " needs an int32 or int64 shape, got ",
        DataTypeName(shape_t.dtype())));
  }
  if (shape_t.shape().rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(kernel.type_string(),
                     " needs the shape as a vector, got a tensor of shape ",
                     shape_t.shape().ToString()));
  }
  const int64_t rank = shape_t.NumElements();
  *shape = TensorShape();
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = shape_t.dtype() == DT_INT32 ? shape_t.data<int32_t>()[i]
                                                  : shape_t.data<int64_t>()[i];
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          kernel.type_string(), " shape[", i, "] = ", d,
          " is negative; sizes must be >= 0 (shape: ", ShapeValues(shape_t),
          ")"));
    }
    shape->AddDim(d);
  }
  if (shape->num_elements() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(kernel.type_string(), " shape ", shape->ToString(),
                     " has more elements than an int64 counts"));
  }
  return absl::OkStatus();
}

template <class Distribution>
class PhiloxRandomOp : public OpKernel {
 public:
  using T = typename Distribution::Element;

  explicit PhiloxRandomOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), stream_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(*this, ctx->input(0), &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t size = out->NumElements();
    // An allocated tensor has far fewer than 2^56 elements, so the product
    // does not wrap.
    const uint64_t reserved =
        static_cast<uint64_t>(size) * kBlocksReservedPerElement;
    const PhiloxRandom base = stream_.Reserve(reserved);
    if (size == 0) return;
    T* data = out->data<T>();
    const Distribution dist;
    ParallelForShards(ctx, NumRandomGroups<Distribution>(size),
                      Distribution::kCostPerGroup,
                      [&](int64_t begin, int64_t end) {
                        FillRandomGroups(dist, base, data, size, begin, end);
                      });
  }

 private:
  PhiloxReservations stream_;
};

// RandomUniformInt: PhiloxRandomOp's stream and reservation (TensorFlow
// reserves 256 blocks per element here too), with the bounds read per step.
template <typename T>
class RandomUniformIntOp : public OpKernel {
 public:
  explicit RandomUniformIntOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), stream_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    OP_REQUIRES_OK(ctx, ShapeFromInput(*this, ctx->input(0), &shape));
    const Tensor& lo_t = ctx->input(1);
    const Tensor& hi_t = ctx->input(2);
    OP_REQUIRES(
        ctx, lo_t.shape().rank() == 0 && hi_t.shape().rank() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "minval and maxval must be scalars, got shapes ",
            lo_t.shape().ToString(), " and ", hi_t.shape().ToString())));
    const T lo = lo_t.data<T>()[0];
    const T hi = hi_t.data<T>()[0];
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t size = out->NumElements();
    // An empty output needs no range (TensorFlow's rule, too).
    if (size == 0) return;
    OP_REQUIRES(ctx, lo < hi,
                absl::InvalidArgumentError(absl::StrCat(
                    "minval (", lo, ") must be less than maxval (", hi,
                    "): the values are drawn from [minval, maxval)")));
    using Dist = UniformIntDistribution<T>;
    using Unsigned = typename Dist::Unsigned;
    const Dist dist(lo, static_cast<Unsigned>(hi) - static_cast<Unsigned>(lo));
    const PhiloxRandom base = stream_.Reserve(static_cast<uint64_t>(size) *
                                              kBlocksReservedPerElement);
    T* data = out->data<T>();
    ParallelForShards(ctx, NumRandomGroups<Dist>(size), Dist::kCostPerGroup,
                      [&](int64_t begin, int64_t end) {
                        FillRandomGroups(dist, base, data, size, begin, end);
                      });
  }

 private:
  PhiloxReservations stream_;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("RandomUniformInt")
                          .Device(kDeviceCpu)
                          .TypeConstraint<int32_t>("Tout")
                          .TypeConstraint("T", {DT_INT32, DT_INT64})
                          .HostMemory("shape"),
                      RandomUniformIntOp<int32_t>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("RandomUniformInt")
                          .Device(kDeviceCpu)
                          .TypeConstraint<int64_t>("Tout")
                          .TypeConstraint("T", {DT_INT32, DT_INT64})
                          .HostMemory("shape"),
                      RandomUniformIntOp<int64_t>);

#define DFLOW_REGISTER_RANDOM(op, Dist, T)                             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op)                           \
                            .Device(kDeviceCpu)                        \
                            .TypeConstraint<T>("dtype")                \
                            .TypeConstraint("T", {DT_INT32, DT_INT64}) \
                            .HostMemory("shape"),                      \
                        PhiloxRandomOp<Dist<T>>)

#define DFLOW_REGISTER_RANDOM_ALL(T)                                    \
  DFLOW_REGISTER_RANDOM("RandomUniform", UniformDistribution, T);       \
  DFLOW_REGISTER_RANDOM("RandomStandardNormal", NormalDistribution, T); \
  DFLOW_REGISTER_RANDOM("TruncatedNormal", TruncatedNormalDistribution, T)

DFLOW_REGISTER_RANDOM_ALL(float16);
DFLOW_REGISTER_RANDOM_ALL(bfloat16);
DFLOW_REGISTER_RANDOM_ALL(float);
DFLOW_REGISTER_RANDOM_ALL(double);

#undef DFLOW_REGISTER_RANDOM_ALL
#undef DFLOW_REGISTER_RANDOM

}  // namespace
}  // namespace dflow
