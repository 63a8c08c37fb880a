// Cast on the device (cast_ops_gpu.h): one grid-stride kernel per
// (source, destination) pair, conversions written as the CPU kernel's.
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/gpu/cast_ops_gpu.h"
#include "kernels/gpu/gpu_device_util.cu.h"

namespace dflow {
namespace gpu {
namespace {

template <typename T>
inline constexpr bool kFloatLike =
    std::is_floating_point_v<T> || std::is_same_v<T, half> ||
    std::is_same_v<T, bfloat16>;

template <typename T>
__device__ __forceinline__ float AsFloat(T x) {
  if constexpr (std::is_same_v<T, half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return __bfloat162float(x);
  } else {
    return static_cast<float>(x);
  }
}

template <typename T>
__device__ __forceinline__ double AsDouble(T x) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return static_cast<double>(AsFloat(x));
  } else {
    return static_cast<double>(x);
  }
}

// Compile-time constants (constexpr variables are usable in device code;
// std::numeric_limits' functions are host functions).
template <typename T>
inline constexpr int kMantissaBits = std::is_same_v<T, double>  ? 52
                                     : std::is_same_v<T, float> ? 23
                                     : std::is_same_v<T, half>  ? 10
                                                                : 7;
template <typename T>
inline constexpr T kIntMin = std::numeric_limits<T>::min();
template <typename T>
inline constexpr T kIntMax = std::numeric_limits<T>::max();
template <typename T>
inline constexpr int kIntDigits = std::numeric_limits<T>::digits;

template <typename T>
__device__ __forceinline__ bool IsNan(T x) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return isnan(AsFloat(x));
  } else {
    return isnan(x);
  }
}

// Truncate: clears the mantissa bits of x that Dst cannot hold.
template <typename Dst, typename Src>
__device__ __forceinline__ Src ClearLowMantissa(Src x) {
  constexpr int kDrop = kMantissaBits<Src> - kMantissaBits<Dst>;
  if constexpr (kDrop <= 0) {
    return x;
  } else {
    if (IsNan(x)) return x;
    using Bits = std::conditional_t<
        sizeof(Src) == 8, uint64_t,
        std::conditional_t<sizeof(Src) == 4, uint32_t, uint16_t>>;
    Bits bits;
    memcpy(&bits, &x, sizeof(bits));
    bits &= static_cast<Bits>(~((Bits{1} << kDrop) - 1));
    Src out;
    memcpy(&out, &bits, sizeof(bits));
    return out;
  }
}

// Saturating, NaN -> 0, toward zero.
template <typename Dst>
__device__ __forceinline__ Dst FloatToInt(double d) {
  if (isnan(d)) return Dst(0);
  constexpr double kLo = static_cast<double>(kIntMin<Dst>);
  // 2^digits: one past the maximum, exact in double.
  constexpr double kHi =
      2.0 * static_cast<double>(Dst{1} << (kIntDigits<Dst> - 1));
  if (d >= kHi) return kIntMax<Dst>;
  if (d <= kLo - 1.0) return kIntMin<Dst>;
  return static_cast<Dst>(d);
}

// A float value to the floating type Dst, rounding to nearest even; half
// and bfloat16 through float.
template <typename Dst>
__device__ __forceinline__ Dst FromFloatLike(double d, float f, bool wide) {
  if constexpr (std::is_same_v<Dst, half>) {
    return __float2half_rn(wide ? static_cast<float>(d) : f);
  } else if constexpr (std::is_same_v<Dst, bfloat16>) {
    return __float2bfloat16_rn(wide ? static_cast<float>(d) : f);
  } else if constexpr (std::is_same_v<Dst, float>) {
    return wide ? static_cast<float>(d) : f;
  } else {
    return wide ? d : static_cast<double>(f);
  }
}

template <typename Dst, typename Src>
__device__ __forceinline__ Dst Convert(Src x, bool truncate) {
  if constexpr (std::is_same_v<Src, bool>) {
    return Convert<Dst, uint8_t>(static_cast<uint8_t>(x ? 1 : 0), truncate);
  } else if constexpr (std::is_same_v<Dst, bool>) {
    if constexpr (kFloatLike<Src>) {
      return AsFloat(x) != 0.0f || IsNan(x);
    } else {
      return x != 0;
    }
  } else if constexpr (kFloatLike<Src> && std::is_integral_v<Dst>) {
    return FloatToInt<Dst>(AsDouble(x));
  } else if constexpr (kFloatLike<Src> && kFloatLike<Dst>) {
    if (truncate) x = ClearLowMantissa<Dst>(x);
    if constexpr (std::is_same_v<Src, double>) {
      return FromFloatLike<Dst>(x, 0.0f, /*wide=*/true);
    } else {
      return FromFloatLike<Dst>(0.0, AsFloat(x), /*wide=*/false);
    }
  } else if constexpr (kFloatLike<Dst>) {
    // From an integer: half and bfloat16 through float.
    if constexpr (std::is_same_v<Dst, half> || std::is_same_v<Dst, bfloat16>) {
      return FromFloatLike<Dst>(0.0, static_cast<float>(x), /*wide=*/false);
    } else {
      return static_cast<Dst>(x);
    }
  } else {
    return static_cast<Dst>(x);  // integer to integer: wraps
  }
}

template <typename Src, typename Dst>
__global__ void CastKernel(const Src* x, Dst* y, int64_t n, bool truncate) {
  for (int64_t i = GlobalThreadIndex(); i < n; i += GridStride()) {
    y[i] = Convert<Dst, Src>(x[i], truncate);
  }
}

template <typename F>
bool VisitCastType(GpuCastType t, F&& f) {
  switch (t) {
    case GpuCastType::kHalf: f(static_cast<half*>(nullptr)); return true;
    case GpuCastType::kBfloat16: f(static_cast<bfloat16*>(nullptr)); return true;
    case GpuCastType::kFloat: f(static_cast<float*>(nullptr)); return true;
    case GpuCastType::kDouble: f(static_cast<double*>(nullptr)); return true;
    case GpuCastType::kInt8: f(static_cast<int8_t*>(nullptr)); return true;
    case GpuCastType::kInt16: f(static_cast<int16_t*>(nullptr)); return true;
    case GpuCastType::kInt32: f(static_cast<int32_t*>(nullptr)); return true;
    case GpuCastType::kInt64: f(static_cast<int64_t*>(nullptr)); return true;
    case GpuCastType::kUint8: f(static_cast<uint8_t*>(nullptr)); return true;
    case GpuCastType::kUint16: f(static_cast<uint16_t*>(nullptr)); return true;
    case GpuCastType::kUint32: f(static_cast<uint32_t*>(nullptr)); return true;
    case GpuCastType::kUint64: f(static_cast<uint64_t*>(nullptr)); return true;
    case GpuCastType::kBool: f(static_cast<bool*>(nullptr)); return true;
  }
  return false;
}

}  // namespace
}  // namespace gpu

absl::Status LaunchGpuCast(GpuCastType src, GpuCastType dst, bool truncate,
                           const void* x, void* y, int64_t n, void* stream) {
  if (n <= 0) return absl::OkStatus();
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  bool launched = false;
  gpu::VisitCastType(src, [&](auto* src_tag) {
    gpu::VisitCastType(dst, [&](auto* dst_tag) {
      using Src = std::remove_pointer_t<decltype(src_tag)>;
      using Dst = std::remove_pointer_t<decltype(dst_tag)>;
      gpu::CastKernel<Src, Dst>
          <<<gpu::BlocksFor(n), gpu::kThreadsPerBlock, 0, s>>>(
              static_cast<const Src*>(x), static_cast<Dst*>(y), n, truncate);
      launched = true;
    });
  });
  if (!launched) {
    return absl::InternalError(absl::StrCat("Cast on a GPU: unknown type pair ",
                                            static_cast<int>(src), " -> ",
                                            static_cast<int>(dst)));
  }
  return gpu::LaunchStatus(absl::StrCat("Cast (", n, " elements)"));
}

}  // namespace dflow
