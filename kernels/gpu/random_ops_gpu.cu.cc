// The random kernels of random_ops_gpu.h: one thread per group of 4 values
// (2 for double), each group's generator computed from the step's base
// block (no state shared between threads), grid-stride over groups.
#include "kernels/gpu/random_ops_gpu.h"

#include <map>
#include <mutex>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/gpu/gpu_device_util.cu.h"
#include "kernels/gpu/random_ops_gpu_tables.h"

namespace dflow {
namespace gpu {
namespace {

using gpu_random::BoxMullerTables;
using gpu_random::Philox;

template <typename T>
__device__ __forceinline__ T FromFloat(float f) {
  if constexpr (std::is_same_v<T, float>) {
    return f;
  } else {
    return FromCompute<T>(f);  // round to nearest even
  }
}

template <typename T>
__device__ __forceinline__ float UniformWord(uint32_t w) {
  if constexpr (std::is_same_v<T, half>) {
    return gpu_random::UnitHalfAsFloat(w);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return gpu_random::UnitBfloat16AsFloat(w);
  } else {
    return gpu_random::UnitFloat(w);
  }
}

template <GpuRandomDistribution kDist, typename T>
__global__ void RandomKernel(Philox base, BoxMullerTables tables, T* out,
                             int64_t n) {
  constexpr bool kDouble = std::is_same_v<T, double>;
  constexpr int kGroup = kDouble ? 2 : 4;
  constexpr uint64_t kBlocks = kDist != GpuRandomDistribution::kTruncatedNormal
                                   ? 1
                               : kDouble ? gpu_random::kTruncatedBlocksDouble
                                         : gpu_random::kTruncatedBlocksFloat;
  const int64_t groups = (n + kGroup - 1) / kGroup;
  for (int64_t g = GlobalThreadIndex(); g < groups; g += GridStride()) {
    const Philox gen =
        gpu_random::GroupGenerator(base, static_cast<uint64_t>(g), kBlocks);
    T values[kGroup];
    if constexpr (kDouble) {
      double v[2];
      if constexpr (kDist == GpuRandomDistribution::kUniform) {
        gpu_random::UniformDoubleGroup(gen, v);
      } else if constexpr (kDist == GpuRandomDistribution::kNormal) {
        gpu_random::NormalDoubleGroup(gen, v);
      } else {
        gpu_random::TruncatedDoubleGroup(gen, v);
      }
      values[0] = v[0];
      values[1] = v[1];
    } else {
      float v[4];
      if constexpr (kDist == GpuRandomDistribution::kUniform) {
        Philox g2 = gen;
        const gpu_random::Block b = g2.Next();
#pragma unroll
        for (int i = 0; i < 4; ++i) v[i] = UniformWord<T>(b.w[i]);
      } else if constexpr (kDist == GpuRandomDistribution::kNormal) {
        gpu_random::NormalFloatGroup(gen, tables, v);
      } else {
        gpu_random::TruncatedFloatGroup(gen, tables, v);
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) values[i] = FromFloat<T>(v[i]);
    }
    const int64_t offset = g * kGroup;
    const int64_t count = n - offset < kGroup ? n - offset : kGroup;
    for (int i = 0; i < count; ++i) out[offset + i] = values[i];
  }
}

// Per device: the correction tables in its memory.
absl::StatusOr<BoxMullerTables> DeviceTables(cudaStream_t stream) {
  static std::mutex mu;
  static auto* per_device = new std::map<int, BoxMullerTables>();
  int device = 0;
  DFLOW_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device), "cudaGetDevice");
  std::lock_guard<std::mutex> lock(mu);
  auto it = per_device->find(device);
  if (it != per_device->end()) return it->second;
  absl::StatusOr<const HostBoxMullerTables*> host = HostBoxMullerCorrections();
  if (!host.ok()) return host.status();
  constexpr size_t kBytes = gpu_random::kTableWords * sizeof(uint32_t);
  uint32_t* d = nullptr;
  DFLOW_CUDA_RETURN_IF_ERROR(
      cudaMalloc(&d, 3 * kBytes),
      absl::StrCat("cudaMalloc of the random kernels' tables (6 MiB) on GPU ",
                   device));
  const std::vector<uint32_t>* parts[3] = {&(*host)->log, &(*host)->sin,
                                           &(*host)->cos};
  for (int i = 0; i < 3; ++i) {
    absl::Status s = CudaStatus(
        cudaMemcpyAsync(d + i * gpu_random::kTableWords, parts[i]->data(),
                        kBytes, cudaMemcpyHostToDevice, stream),
        "copying the random kernels' tables to the GPU");
    if (!s.ok()) {
      cudaFree(d);
      return s;
    }
  }
  // Other streams use the tables later: the copy must be complete.
  absl::Status s =
      CudaStatus(cudaStreamSynchronize(stream),
                 "waiting for the random kernels' tables to reach the GPU");
  if (!s.ok()) {
    cudaFree(d);
    return s;
  }
  BoxMullerTables t;
  t.log = d;
  t.sin = d + gpu_random::kTableWords;
  t.cos = d + 2 * gpu_random::kTableWords;
  (*per_device)[device] = t;
  return t;
}

template <GpuRandomDistribution kDist>
absl::Status Run(GpuType type, const Philox& base, void* out, int64_t n,
                 cudaStream_t stream) {
  const char* name = GpuRandomDistributionName(kDist);
  if (n <= 0) return absl::OkStatus();
  BoxMullerTables tables;
  if (kDist != GpuRandomDistribution::kUniform) {
    absl::StatusOr<BoxMullerTables> t = DeviceTables(stream);
    if (!t.ok()) return t.status();
    tables = *t;
  }
  return Dispatch<kFloats>(type, name, [&](auto tag) {
    using T = decltype(tag);
    const int64_t groups = (n + (std::is_same_v<T, double> ? 1 : 3)) /
                           (std::is_same_v<T, double> ? 2 : 4);
    RandomKernel<kDist, T><<<BlocksFor(groups), kThreadsPerBlock, 0, stream>>>(
        base, tables, static_cast<T*>(out), n);
    return LaunchStatus(
        absl::StrCat(name, " (", GpuTypeName(type), ", ", n, " values)"));
  });
}

__global__ void TableCheckKernel(BoxMullerTables t, float* out) {
  const int64_t n = gpu_random::kTableEntries;
  for (int64_t i = GlobalThreadIndex(); i < n; i += GridStride()) {
    const uint32_t k = static_cast<uint32_t>(i);
    const float u1 = gpu_random::BoxMullerU1(k);
    const float angle = gpu_random::BoxMullerAngle(k);
    out[i] = gpu_random::Corrected(
        static_cast<float>(::log(static_cast<double>(u1))), t.log, k);
    out[n + i] = gpu_random::Corrected(
        static_cast<float>(::sin(static_cast<double>(angle))), t.sin, k);
    out[2 * n + i] = gpu_random::Corrected(
        static_cast<float>(::cos(static_cast<double>(angle))), t.cos, k);
  }
}

}  // namespace
}  // namespace gpu

absl::Status LaunchRandom(GpuRandomDistribution dist, GpuType type,
                          const gpu_random::Philox& base, void* out, int64_t n,
                          cudaStream_t stream) {
  switch (dist) {
    case GpuRandomDistribution::kUniform:
      return gpu::Run<GpuRandomDistribution::kUniform>(type, base, out, n,
                                                       stream);
    case GpuRandomDistribution::kNormal:
      return gpu::Run<GpuRandomDistribution::kNormal>(type, base, out, n,
                                                      stream);
    case GpuRandomDistribution::kTruncatedNormal:
      return gpu::Run<GpuRandomDistribution::kTruncatedNormal>(type, base, out,
                                                               n, stream);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "LaunchRandom: unknown distribution ", static_cast<int>(dist)));
}

absl::Status LaunchBoxMullerTableCheck(float* out, cudaStream_t stream) {
  absl::StatusOr<gpu_random::BoxMullerTables> t = gpu::DeviceTables(stream);
  if (!t.ok()) return t.status();
  gpu::TableCheckKernel<<<gpu::BlocksFor(gpu_random::kTableEntries),
                          gpu::kThreadsPerBlock, 0, stream>>>(*t, out);
  return gpu::LaunchStatus("the random tables' check");
}

}  // namespace dflow
