// The GPU kernels of RandomUniform, RandomStandardNormal and
// TruncatedNormal (half, bfloat16, float, double; the shape in host
// memory), over random_ops_gpu.h, with the CPU kernel's seed semantics and
// stream state (kernels/cpu/random_ops.cc): keyed by (seed, seed2), both
// drawn from the OS when both are 0; each step reserves output_size * 256
// counter blocks and fills from the start of its range. So a GPU kernel and
// a CPU kernel with equal seeds draw the same numbers step after step.
//
// Only built with CUDA; other builds register nothing here.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/gpu/math_kernels_gpu_util.h"
#include "kernels/gpu/random_ops_gpu.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using gpu_kernels::HostInts;
using gpu_kernels::LauncherType;
using gpu_kernels::LaunchStream;

constexpr uint64_t kBlocksReservedPerElement = 256;

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

template <GpuRandomDistribution kDist>
class RandomGpuOp : public OpKernel {
 public:
  explicit RandomGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t seed = 0;
    int64_t seed2 = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("seed", &seed));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("seed2", &seed2));
    if (seed == 0 && seed2 == 0) {
      seed = static_cast<int64_t>(NondeterministicSeed());
      seed2 = static_cast<int64_t>(NondeterministicSeed());
    }
    stream_ = gpu_random::Philox::FromSeeds(static_cast<uint64_t>(seed),
                                            static_cast<uint64_t>(seed2));
  }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Tensor& shape_t = ctx->input(0);
    OP_REQUIRES(ctx, shape_t.dtype() == DT_INT32 || shape_t.dtype() == DT_INT64,
                absl::InvalidArgumentError(absl::StrCat(
                    type_string(), " needs an int32 or int64 shape, got ",
                    DataTypeName(shape_t.dtype()))));
    OP_REQUIRES(ctx, shape_t.shape().rank() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    type_string(),
                    " needs the shape as a vector, got a tensor of shape ",
                    shape_t.shape().ToString())));
    TensorShape shape;
    for (int64_t d : HostInts(shape_t)) {
      OP_REQUIRES(ctx, d >= 0,
                  absl::InvalidArgumentError(
                      absl::StrCat(type_string(), " shape has a negative size ",
                                   d, "; sizes must be >= 0")));
      shape.AddDim(d);
    }
    OP_REQUIRES(ctx, shape.num_elements() >= 0,
                absl::InvalidArgumentError(
                    absl::StrCat(type_string(), " shape ", shape.ToString(),
                                 " has more elements than an int64 counts")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, out->dtype()));
    const int64_t size = out->NumElements();
    gpu_random::Philox base = stream_;
    base.Skip(next_block_.fetch_add(
        static_cast<uint64_t>(size) * kBlocksReservedPerElement,
        std::memory_order_relaxed));
    if (size == 0) return;
    OP_REQUIRES_OK(
        ctx, LaunchRandom(kDist, type, base, out->raw_data(), size, stream));
  }

 private:
  gpu_random::Philox stream_;
  std::atomic<uint64_t> next_block_{0};
};

#define DFLOW_GPU_RANDOM(op, dist, T)                                      \
  DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder(op)                           \
                                .Device(kDeviceGpu)                        \
                                .TypeConstraint<T>("dtype")                \
                                .TypeConstraint("T", {DT_INT32, DT_INT64}) \
                                .HostMemory("shape"),                      \
                            RandomGpuOp<GpuRandomDistribution::dist>)

#define DFLOW_GPU_RANDOM_ALL(T)                         \
  DFLOW_GPU_RANDOM("RandomUniform", kUniform, T);       \
  DFLOW_GPU_RANDOM("RandomStandardNormal", kNormal, T); \
  DFLOW_GPU_RANDOM("TruncatedNormal", kTruncatedNormal, T)

DFLOW_GPU_RANDOM_ALL(float16);
DFLOW_GPU_RANDOM_ALL(bfloat16);
DFLOW_GPU_RANDOM_ALL(float);
DFLOW_GPU_RANDOM_ALL(double);

#undef DFLOW_GPU_RANDOM_ALL
#undef DFLOW_GPU_RANDOM

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
