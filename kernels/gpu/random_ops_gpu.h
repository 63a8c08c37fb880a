// RandomUniform, RandomStandardNormal and TruncatedNormal on the GPU: the
// CPU kernels' Philox4x32-10 streams, group layout and formulas
// (random_ops_gpu_philox.h), so equal seeds and step offsets give equal
// numbers on either device: bit for bit for half, bfloat16 and float (and
// for double uniforms); double normals within a few ulp (the devices' libm
// differ).
//
// The kernel class keeps the stream state (seeds, blocks reserved so far)
// exactly as the CPU kernel does and passes the step's first block here.
// The first normal or truncated-normal launch on a device builds the
// host's correction tables (random_ops_gpu_tables.h) once per process and
// copies them to that device once (6 MiB, kept until the process exits);
// that first launch synchronizes `stream`.
//
// Types: half, bfloat16, float, double. CPU-only builds answer Unavailable
// (random_ops_gpu_host.cc).
#ifndef DFLOW_KERNELS_GPU_RANDOM_OPS_GPU_H_
#define DFLOW_KERNELS_GPU_RANDOM_OPS_GPU_H_

#include <cstdint>

#include "absl/status/status.h"
#include "kernels/gpu/gpu_launch_util.h"
#include "kernels/gpu/random_ops_gpu_philox.h"

namespace dflow {

enum class GpuRandomDistribution : int { kUniform, kNormal, kTruncatedNormal };
const char* GpuRandomDistributionName(GpuRandomDistribution d);

// Writes n values of `type` drawn from `base` (the step's first counter
// block under the stream's key) into `out`.
absl::Status LaunchRandom(GpuRandomDistribution dist, GpuType type,
                          const gpu_random::Philox& base, void* out, int64_t n,
                          cudaStream_t stream);

// For tests: out[k] = the device's corrected log(u1(k)), sin and cos of
// angle(k) (3 x 2^23 floats: log first), to compare with the host libm.
absl::Status LaunchBoxMullerTableCheck(float* out, cudaStream_t stream);

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_RANDOM_OPS_GPU_H_
