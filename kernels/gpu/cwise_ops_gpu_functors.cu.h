// The element-wise functors of cwise_ops_gpu.h (nvcc only). Each functor F
// has:
//   template <typename T> static constexpr bool kSupports;  storage types
//   template <typename C> __device__ static R Apply(C...);   on compute types
// where C is Compute<T> (float for half and bfloat16). Formulas and their
// order of operations follow the CPU kernels, so float and double results
// agree with them to rounding (these files are compiled with -fmad=false,
// so no multiply and add are fused where the CPU rounds twice).
#ifndef DFLOW_KERNELS_GPU_CWISE_OPS_GPU_FUNCTORS_CU_H_
#define DFLOW_KERNELS_GPU_CWISE_OPS_GPU_FUNCTORS_CU_H_

#include <cfloat>
#include <cstdint>
#include <type_traits>

#include "kernels/gpu/gpu_device_util.cu.h"

namespace dflow {
namespace gpu {

template <typename T>
inline constexpr bool kFloatsOnly = kIsFloating<T>;
template <typename T>
inline constexpr bool kFloatsAndInt64 =
    kIsFloating<T> || std::is_same_v<T, int64_t>;

// --- Unary. ---

struct NegF {
  template <typename T>
  static constexpr bool kSupports = kFloatsAndInt64<T>;
  template <typename C>
  __device__ static C Apply(C x) {
    if constexpr (std::is_integral_v<C>) {
      return WrapSub(C(0), x);
    } else {
      return -x;  // -0 for +0, as on the CPU (0 - x would give +0)
    }
  }
};

struct AbsF {
  template <typename T>
  static constexpr bool kSupports = kFloatsAndInt64<T>;
  template <typename C>
  __device__ static C Apply(C x) {
    if constexpr (std::is_integral_v<C>) {
      return x < 0 ? WrapSub(C(0), x) : x;
    } else {
      return Abs(x);
    }
  }
};

struct SquareF {
  template <typename T>
  static constexpr bool kSupports = kFloatsAndInt64<T>;
  template <typename C>
  __device__ static C Apply(C x) {
    return WrapMul(x, x);
  }
};

struct ExpF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
  template <typename C>
  __device__ static C Apply(C x) {
    return Exp(x);
  }
};

struct LogF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
  template <typename C>
  __device__ static C Apply(C x) {
    return Log(x);
  }
};

struct SqrtF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
  template <typename C>
  __device__ static C Apply(C x) {
    return Sqrt(x);
  }
};

// 1 / sqrt(x), both correctly rounded (rsqrtf is not).
struct RsqrtF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
  template <typename C>
  __device__ static C Apply(C x) {
    return C(1) / Sqrt(x);
  }
};

struct TanhF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
  template <typename C>
  __device__ static C Apply(C x) {
    return Tanh(x);
  }
};

struct SigmoidF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
  template <typename C>
  __device__ static C Apply(C x) {
    return C(1) / (C(1) + Exp(-x));
  }
};

// NaN fails both comparisons and stays.
struct ReluF {
  template <typename T>
  static constexpr bool kSupports =
      kFloatsAndInt64<T> || std::is_same_v<T, int8_t>;
  template <typename C>
  __device__ static C Apply(C x) {
    return x < C(0) ? C(0) : x;
  }
};

struct Relu6F {
  template <typename T>
  static constexpr bool kSupports =
      kFloatsAndInt64<T> || std::is_same_v<T, int8_t>;
  template <typename C>
  __device__ static C Apply(C x) {
    return x < C(0) ? C(0) : (x > C(6) ? C(6) : x);
  }
};

struct EluF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
  template <typename C>
  __device__ static C Apply(C x) {
    return x < C(0) ? Expm1(x) : x;
  }
};

// TensorFlow's: x itself above -threshold, exp(x) below threshold,
// log1p(exp(x)) between, with threshold = log(epsilon of T) + 2.
template <typename T>
struct SoftplusThreshold;
template <>
struct SoftplusThreshold<half> {
  static constexpr float kValue = -4.931471805599453f;  // log(2^-10) + 2
};
template <>
struct SoftplusThreshold<bfloat16> {
  static constexpr float kValue = -2.852030263919617f;  // log(2^-7) + 2
};
template <>
struct SoftplusThreshold<float> {
  static constexpr float kValue = -13.942385152878742f;  // log(2^-23) + 2
};
template <>
struct SoftplusThreshold<double> {
  static constexpr double kValue = -34.04365338911715;  // log(2^-52) + 2
};

template <typename T>
struct SoftplusOf {
  template <typename C>
  __device__ static C Apply(C x) {
    const C threshold = static_cast<C>(SoftplusThreshold<T>::kValue);
    if (x > -threshold) return x;
    const C e = Exp(x);
    if (x < threshold) return e;
    return Log1p(e);
  }
};

// The tag the launcher maps to SoftplusOf<T> (the threshold depends on the
// storage type, not the compute type).
struct SoftplusF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
};

// --- Gradients (two inputs in the op's order). ---

struct ReluGradF {
  template <typename T>
  static constexpr bool kSupports =
      kFloatsAndInt64<T> || std::is_same_v<T, int8_t>;
  template <typename C>
  __device__ static C Apply(C g, C f) {
    return f > C(0) ? g : C(0);
  }
};

struct Relu6GradF {
  template <typename T>
  static constexpr bool kSupports =
      kFloatsAndInt64<T> || std::is_same_v<T, int8_t>;
  template <typename C>
  __device__ static C Apply(C g, C f) {
    return (f > C(0) && f < C(6)) ? g : C(0);
  }
};

struct EluGradF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
  template <typename C>
  __device__ static C Apply(C g, C y) {
    return y < C(0) ? g * (y + C(1)) : g;
  }
};

struct SoftplusGradF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
  template <typename C>
  __device__ static C Apply(C g, C f) {
    return g / (C(1) + Exp(-f));
  }
};

// dy * y * (1 - y), multiplied left to right as Eigen does.
struct SigmoidGradF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
  template <typename C>
  __device__ static C Apply(C y, C dy) {
    return dy * y * (C(1) - y);
  }
};

struct TanhGradF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
  template <typename C>
  __device__ static C Apply(C y, C dy) {
    return dy * (C(1) - y * y);
  }
};

// --- Binary (broadcasting). ---

struct AddF {
  template <typename T>
  static constexpr bool kSupports = kFloatsAndInt64<T>;
  template <typename C>
  __device__ static C Apply(C a, C b) {
    return WrapAdd(a, b);
  }
};

struct SubF {
  template <typename T>
  static constexpr bool kSupports = kFloatsAndInt64<T>;
  template <typename C>
  __device__ static C Apply(C a, C b) {
    return WrapSub(a, b);
  }
};

struct MulF {
  template <typename T>
  static constexpr bool kSupports = kFloatsAndInt64<T>;
  template <typename C>
  __device__ static C Apply(C a, C b) {
    return WrapMul(a, b);
  }
};

struct RealDivF {
  template <typename T>
  static constexpr bool kSupports = kFloatsOnly<T>;
  template <typename C>
  __device__ static C Apply(C a, C b) {
    return a / b;
  }
};

struct MaximumF {
  template <typename T>
  static constexpr bool kSupports = kFloatsAndInt64<T>;
  template <typename C>
  __device__ static C Apply(C a, C b) {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return a < b ? b : a;
  }
};

struct MinimumF {
  template <typename T>
  static constexpr bool kSupports = kFloatsAndInt64<T>;
  template <typename C>
  __device__ static C Apply(C a, C b) {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return b < a ? b : a;
  }
};

struct SquaredDifferenceF {
  template <typename T>
  static constexpr bool kSupports = kFloatsAndInt64<T>;
  template <typename C>
  __device__ static C Apply(C a, C b) {
    const C d = WrapSub(a, b);
    return WrapMul(d, d);
  }
};

struct PowF {
  template <typename T>
  static constexpr bool kSupports = kFloatsAndInt64<T>;
  template <typename C>
  __device__ static C Apply(C base, C exponent) {
    if constexpr (std::is_integral_v<C>) {
      using U = std::make_unsigned_t<C>;
      if (exponent < 0) return C(0);
      U result = 1;
      U b = static_cast<U>(base);
      for (U e = static_cast<U>(exponent); e != 0; e >>= 1) {
        if (e & 1) result = static_cast<U>(result * b);
        b = static_cast<U>(b * b);
      }
      return static_cast<C>(result);
    } else {
      return Pow(base, exponent);
    }
  }
};

// Comparisons. bool operands arrive as bytes (uint8): any non-zero byte is
// true, as on the CPU.
template <typename T>
inline constexpr bool kComparable = kFloatsAndInt64<T>;
template <typename T>
inline constexpr bool kEquatable =
    kFloatsAndInt64<T> || std::is_same_v<T, uint8_t>;

template <typename C>
__device__ __forceinline__ C Normalized(C x) {
  if constexpr (std::is_same_v<C, uint8_t>) {
    return x != 0 ? 1 : 0;
  } else {
    return x;
  }
}

struct LessF {
  template <typename T>
  static constexpr bool kSupports = kComparable<T>;
  template <typename C>
  __device__ static bool Apply(C a, C b) {
    return a < b;
  }
};
struct LessEqualF {
  template <typename T>
  static constexpr bool kSupports = kComparable<T>;
  template <typename C>
  __device__ static bool Apply(C a, C b) {
    return a <= b;
  }
};
struct GreaterF {
  template <typename T>
  static constexpr bool kSupports = kComparable<T>;
  template <typename C>
  __device__ static bool Apply(C a, C b) {
    return a > b;
  }
};
struct GreaterEqualF {
  template <typename T>
  static constexpr bool kSupports = kComparable<T>;
  template <typename C>
  __device__ static bool Apply(C a, C b) {
    return a >= b;
  }
};
struct EqualF {
  template <typename T>
  static constexpr bool kSupports = kEquatable<T>;
  template <typename C>
  __device__ static bool Apply(C a, C b) {
    return Normalized(a) == Normalized(b);
  }
};
struct NotEqualF {
  template <typename T>
  static constexpr bool kSupports = kEquatable<T>;
  template <typename C>
  __device__ static bool Apply(C a, C b) {
    return Normalized(a) != Normalized(b);
  }
};

}  // namespace gpu
}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_CWISE_OPS_GPU_FUNCTORS_CU_H_
