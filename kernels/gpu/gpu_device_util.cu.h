// Device-side helpers of the launchers' .cu.cc files (nvcc only): element
// types and the type they are computed in, vectorized loads, grid sizes,
// dispatch from GpuType to a C++ type, and launch error checking.
//
// half and bfloat16 are computed in float and rounded once per result (the
// CPU kernels round after every Eigen operation, so composite formulas may
// differ in the last half/bfloat16 bit). Integer arithmetic that may
// overflow goes through the unsigned type (wraps, as on the CPU).
#ifndef DFLOW_KERNELS_GPU_GPU_DEVICE_UTIL_CU_H_
#define DFLOW_KERNELS_GPU_GPU_DEVICE_UTIL_CU_H_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kernels/gpu/gpu_launch_util.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {
namespace gpu {

using half = __half;
using bfloat16 = __nv_bfloat16;

// --- Compute types. ---

template <typename T>
struct ComputeTypeOf {
  using type = T;
};
template <>
struct ComputeTypeOf<half> {
  using type = float;
};
template <>
struct ComputeTypeOf<bfloat16> {
  using type = float;
};
template <typename T>
using Compute = typename ComputeTypeOf<T>::type;

template <typename T>
inline constexpr bool kIsHalfType =
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
template <typename T>
inline constexpr bool kIsFloating =
    kIsHalfType<T> || std::is_floating_point_v<T>;

template <typename T>
__device__ __forceinline__ Compute<T> ToCompute(T x) {
  if constexpr (std::is_same_v<T, half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return __bfloat162float(x);
  } else {
    return x;
  }
}

template <typename T>
__device__ __forceinline__ T FromCompute(Compute<T> x) {
  if constexpr (std::is_same_v<T, half>) {
    return __float2half_rn(x);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return __float2bfloat16_rn(x);
  } else {
    return x;
  }
}

// Wrapping integer arithmetic (through the unsigned type).
template <typename T>
__device__ __forceinline__ T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(
        static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename T>
__device__ __forceinline__ T WrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(
        static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <typename T>
__device__ __forceinline__ T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    // Narrow unsigned types promote to int: widen to 64 bits first.
    return static_cast<T>(
        static_cast<U>(static_cast<uint64_t>(static_cast<U>(a)) *
                       static_cast<uint64_t>(static_cast<U>(b))));
  } else {
    return a * b;
  }
}

// --- Math on float and double (explicit, so no overload resolution picks
// a double function for a float or the reverse). ---

__device__ __forceinline__ float Exp(float x) { return expf(x); }
__device__ __forceinline__ double Exp(double x) { return exp(x); }
__device__ __forceinline__ float Expm1(float x) { return expm1f(x); }
__device__ __forceinline__ double Expm1(double x) { return expm1(x); }
__device__ __forceinline__ float Log(float x) { return logf(x); }
__device__ __forceinline__ double Log(double x) { return log(x); }
__device__ __forceinline__ float Log1p(float x) { return log1pf(x); }
__device__ __forceinline__ double Log1p(double x) { return log1p(x); }
__device__ __forceinline__ float Sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double Sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float Tanh(float x) { return tanhf(x); }
__device__ __forceinline__ double Tanh(double x) { return tanh(x); }
__device__ __forceinline__ float Pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double Pow(double x, double y) { return pow(x, y); }
__device__ __forceinline__ float Abs(float x) { return fabsf(x); }
__device__ __forceinline__ double Abs(double x) { return fabs(x); }

template <typename C>
__device__ __forceinline__ bool IsNan(C x) {
  if constexpr (std::is_floating_point_v<C>) {
    return x != x;
  } else {
    return false;
  }
}

// Largest finite / lowest values and infinities in the compute type.
template <typename C>
__device__ __forceinline__ C Infinity() {
  if constexpr (std::is_same_v<C, float>) {
    return __int_as_float(0x7f800000);
  } else {
    return __longlong_as_double(0x7ff0000000000000LL);
  }
}
template <typename C>
__device__ __forceinline__ C QuietNan() {
  if constexpr (std::is_same_v<C, float>) {
    return __int_as_float(0x7fc00000);
  } else {
    return __longlong_as_double(0x7ff8000000000000LL);
  }
}

// The lowest and highest finite values (numeric_limits is not usable in
// device code without --expt-relaxed-constexpr).
template <typename C>
__device__ __forceinline__ C Lowest() {
  if constexpr (std::is_same_v<C, float>) {
    return -FLT_MAX;
  } else if constexpr (std::is_same_v<C, double>) {
    return -DBL_MAX;
  } else if constexpr (std::is_same_v<C, int64_t>) {
    return INT64_MIN;
  } else {
    static_assert(std::is_same_v<C, int32_t>, "float, double, int32, int64");
    return INT32_MIN;
  }
}
template <typename C>
__device__ __forceinline__ C Highest() {
  if constexpr (std::is_same_v<C, float>) {
    return FLT_MAX;
  } else if constexpr (std::is_same_v<C, double>) {
    return DBL_MAX;
  } else if constexpr (std::is_same_v<C, int64_t>) {
    return INT64_MAX;
  } else {
    static_assert(std::is_same_v<C, int32_t>, "float, double, int32, int64");
    return INT32_MAX;
  }
}

__device__ __forceinline__ int64_t Min64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

// --- Vectorized access. ---

template <typename T, int V>
struct alignas(sizeof(T) * V) AlignedVector {
  T v[V];
};

// Elements per 16-byte access.
template <typename T>
inline constexpr int kVectorWidth = sizeof(T) >= 16 ? 1 : 16 / sizeof(T);

inline bool Aligned16(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

// --- Launch configuration. ---

inline constexpr int kThreadsPerBlock = 256;
// Grid-stride loops: at most this many blocks (8 per SM on a 132-SM H100
// and some), whatever the size.
inline constexpr int64_t kMaxBlocks = 4096;

inline unsigned BlocksFor(int64_t work_items, int threads = kThreadsPerBlock) {
  const int64_t blocks = (work_items + threads - 1) / threads;
  return static_cast<unsigned>(
      std::max<int64_t>(1, std::min(blocks, kMaxBlocks)));
}

__device__ __forceinline__ int64_t GlobalThreadIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t GridStride() {
  return static_cast<int64_t>(blockDim.x) * gridDim.x;
}

// The status of the launch just made: "<what>: cudaError... (...)".
inline absl::Status LaunchStatus(absl::string_view what) {
  return CudaStatus(cudaGetLastError(), absl::StrCat("launching ", what));
}

inline absl::Status UnsupportedType(absl::string_view op, GpuType t) {
  return absl::UnimplementedError(
      absl::StrCat("the GPU kernel of ", op, " has no ", GpuTypeName(t),
                   " implementation; place the op on CPU or cast its "
                   "inputs to a supported type"));
}

// Calls fn(T{}) with T the C++ type of `t`, for the types in the list of
// the caller's choice (kFloats: half, bfloat16, float, double; kInts adds
// int64; kInt8 adds int8; kBool adds bool as uint8).
enum DispatchSet : unsigned {
  kFloats = 1,
  kInt64 = 2,
  kInt8 = 4,
  kBoolAsByte = 8,
  kInt32 = 16,
};

template <unsigned kSet, typename Fn>
absl::Status Dispatch(GpuType t, absl::string_view op, Fn&& fn) {
  switch (t) {
    case GpuType::kHalf:
      if constexpr ((kSet & kFloats) != 0) return fn(half{});
      break;
    case GpuType::kBfloat16:
      if constexpr ((kSet & kFloats) != 0) return fn(bfloat16{});
      break;
    case GpuType::kFloat:
      if constexpr ((kSet & kFloats) != 0) return fn(float{});
      break;
    case GpuType::kDouble:
      if constexpr ((kSet & kFloats) != 0) return fn(double{});
      break;
    case GpuType::kInt64:
      if constexpr ((kSet & kInt64) != 0) return fn(int64_t{});
      break;
    case GpuType::kInt32:
      if constexpr ((kSet & kInt32) != 0) return fn(int32_t{});
      break;
    case GpuType::kInt8:
      if constexpr ((kSet & kInt8) != 0) return fn(int8_t{});
      break;
    case GpuType::kBool:
      if constexpr ((kSet & kBoolAsByte) != 0) return fn(uint8_t{});
      break;
    default:
      break;
  }
  return UnsupportedType(op, t);
}

}  // namespace gpu
}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_GPU_DEVICE_UTIL_CU_H_
