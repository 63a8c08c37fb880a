// What every GPU launcher header (kernels/gpu/*_gpu.h) shares: the stream
// type, the element-type tag the launchers dispatch on, and the
// host/device qualifier for code compiled by both compilers.
//
// The launchers take raw device pointers and a cudaStream_t, so they do not
// depend on how kernels are registered or how tensors are allocated; the
// OpKernel classes (kernels/gpu/*_kernels.cc) translate. The headers must
// compile with the host compiler in CPU-only builds too (the launchers then
// answer Unavailable from their stubs), so nothing here needs CUDA's
// headers, and the element types are a small enum of ours rather than
// dflow's protobuf DataType (which nvcc should not have to parse).
#ifndef DFLOW_KERNELS_GPU_GPU_LAUNCH_UTIL_H_
#define DFLOW_KERNELS_GPU_GPU_LAUNCH_UTIL_H_

#include <cstdint>

#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA
#include <cuda_runtime.h>
#else
// The CUDA runtime's own declaration (driver_types.h), so launcher
// signatures read the same in builds without CUDA.
struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;
#endif

#if defined(__CUDACC__)
#define DFLOW_HOST_DEVICE __host__ __device__
#define DFLOW_DEVICE __device__
#else
#define DFLOW_HOST_DEVICE
#define DFLOW_DEVICE
#endif

namespace dflow {

// Element types the GPU launchers know. half is IEEE binary16 and
// bfloat16 the upper half of a float, both stored as 16 raw bits (dflow's
// float16/bfloat16, CUDA's __half/__nv_bfloat16); bool is one byte.
enum class GpuType : int {
  kHalf,
  kBfloat16,
  kFloat,
  kDouble,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUint8,
  kBool,
};

inline const char* GpuTypeName(GpuType t) {
  switch (t) {
    case GpuType::kHalf:
      return "half";
    case GpuType::kBfloat16:
      return "bfloat16";
    case GpuType::kFloat:
      return "float";
    case GpuType::kDouble:
      return "double";
    case GpuType::kInt8:
      return "int8";
    case GpuType::kInt16:
      return "int16";
    case GpuType::kInt32:
      return "int32";
    case GpuType::kInt64:
      return "int64";
    case GpuType::kUint8:
      return "uint8";
    case GpuType::kBool:
      return "bool";
  }
  return "unknown";
}

inline int GpuTypeSize(GpuType t) {
  switch (t) {
    case GpuType::kHalf:
    case GpuType::kBfloat16:
    case GpuType::kInt16:
      return 2;
    case GpuType::kFloat:
    case GpuType::kInt32:
      return 4;
    case GpuType::kDouble:
    case GpuType::kInt64:
      return 8;
    case GpuType::kInt8:
    case GpuType::kUint8:
    case GpuType::kBool:
      return 1;
  }
  return 0;
}

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_GPU_LAUNCH_UTIL_H_
