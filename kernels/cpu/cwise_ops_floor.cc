// Floor division with broadcasting, Python's semantics: FloorDiv (x // y),
// FloorMod (x % y, with the sign of y), and Floor; plus DivNoNan and
// MulNoNan (0 where y is 0). Integer division by zero fails the step
// ("Integer division by zero", TensorFlow's message) instead of trapping.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/cpu/cwise_ops_common.h"

namespace dflow {
namespace cwise {
namespace {

template <typename T>
struct FloorDivOp {
  T operator()(const T& x, const T& y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == 0) return T(0);  // Checked before evaluation.
      if constexpr (std::is_signed_v<T>) {
        // min / -1 overflows: wrap, as two's-complement hardware would.
        if (y == -1) {
          return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(x));
        }
        const T q = x / y;
        return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
      } else {
        return x / y;
      }
    } else {
      using W = std::conditional_t<std::is_same_v<T, double>, double, float>;
      return static_cast<T>(
          std::floor(static_cast<W>(x) / static_cast<W>(y)));
    }
  }
};

template <typename T>
struct FloorModOp {
  T operator()(const T& x, const T& y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == 0) return T(0);  // Checked before evaluation.
      if constexpr (std::is_signed_v<T>) {
        if (y == -1) return T(0);  // min % -1 would trap.
        const T r = x % y;
        return (r != 0 && ((y < 0) != (r < 0))) ? r + y : r;
      } else {
        return x % y;
      }
    } else {
      using W = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const W yw = static_cast<W>(y);
      const W r = std::fmod(static_cast<W>(x), yw);
      return static_cast<T>((r != 0 && ((yw < 0) != (r < 0))) ? r + yw : r);
    }
  }
};

template <typename T>
struct DivNoNanOp {
  T operator()(const T& x, const T& y) const {
    return y == T(0) ? T(0) : static_cast<T>(x / y);
  }
};

template <typename T>
absl::Status CheckIntegerDivisor(const Tensor& y) {
  if constexpr (std::is_integral_v<T>) {
    const T* d = y.data<T>();
    for (int64_t i = 0; i < y.NumElements(); ++i) {
      if (d[i] == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Integer division by zero: y[", i, "] is 0"));
      }
    }
  }
  return absl::OkStatus();
}

struct FloorDivFunctor : FunctorBase {
  static constexpr int64_t kCost = 8;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    using S = std::remove_const_t<typename X::Scalar>;
    return x.binaryExpr(y, FloorDivOp<S>());
  }
  template <typename T>
  static absl::Status Check(const Tensor&, const Tensor& y) {
    return CheckIntegerDivisor<T>(y);
  }
};

struct FloorModFunctor : FunctorBase {
  static constexpr int64_t kCost = 8;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    using S = std::remove_const_t<typename X::Scalar>;
    return x.binaryExpr(y, FloorModOp<S>());
  }
  template <typename T>
  static absl::Status Check(const Tensor&, const Tensor& y) {
    return CheckIntegerDivisor<T>(y);
  }
};

struct DivNoNanFunctor : FunctorBase {
  static constexpr int64_t kCost = 4;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    using S = std::remove_const_t<typename X::Scalar>;
    return x.binaryExpr(y, DivNoNanOp<S>());
  }
};

// 0 where y is 0, even where x is inf or nan (so not x * y).
template <typename T>
struct MulNoNanOp {
  T operator()(const T& x, const T& y) const {
    return y == T(0) ? T(0) : static_cast<T>(x * y);
  }
};

struct MulNoNanFunctor : FunctorBase {
  static constexpr int64_t kCost = 2;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    using S = std::remove_const_t<typename X::Scalar>;
    return x.binaryExpr(y, MulNoNanOp<S>());
  }
};

struct FloorFunctor : FunctorBase {
  template <typename X>
  static auto Apply(const X& x) {
    return x.floor();
  }
};

#define DFLOW_REGISTER_BINARY(op, functor, T)                         \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      BinaryOp<functor, T>)

#define DFLOW_REGISTER_FLOOR_OPS(T)                     \
  DFLOW_REGISTER_BINARY("FloorDiv", FloorDivFunctor, T); \
  DFLOW_REGISTER_BINARY("FloorMod", FloorModFunctor, T)

DFLOW_REGISTER_FLOOR_OPS(float);
DFLOW_REGISTER_FLOOR_OPS(double);
DFLOW_REGISTER_FLOOR_OPS(int32_t);
DFLOW_REGISTER_FLOOR_OPS(int64_t);
DFLOW_REGISTER_FLOOR_OPS(uint8_t);
// tf.image.convert_image_dtype divides uint16 images (and int8, int16 as
// TensorFlow's CPU kernels do).
DFLOW_REGISTER_FLOOR_OPS(uint16_t);
DFLOW_REGISTER_FLOOR_OPS(int8_t);
DFLOW_REGISTER_FLOOR_OPS(int16_t);
DFLOW_REGISTER_BINARY("DivNoNan", DivNoNanFunctor, float);
DFLOW_REGISTER_BINARY("DivNoNan", DivNoNanFunctor, double);
DFLOW_REGISTER_BINARY("MulNoNan", MulNoNanFunctor, float);
DFLOW_REGISTER_BINARY("MulNoNan", MulNoNanFunctor, double);

#define DFLOW_REGISTER_FLOOR(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("Floor").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      UnaryOp<FloorFunctor, T>)
DFLOW_REGISTER_FLOOR(float16);
DFLOW_REGISTER_FLOOR(bfloat16);
DFLOW_REGISTER_FLOOR(float);
DFLOW_REGISTER_FLOOR(double);

}  // namespace
}  // namespace cwise
}  // namespace dflow
