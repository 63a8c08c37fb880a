// The functors of the element-wise unary ops (Neg, Square, Sqrt, Rsqrt,
// Exp, Log) and activations (Relu, Sigmoid, Tanh): one Eigen expression
// each, shared by their kernels (cwise_ops_unary.cc, activations.cc) and
// the fused element-wise kernel (fused_elementwise.cc), so fused and
// unfused ops compute the same bits.
//
// kCost, relative to an Add's 1, measured on 4,096 floats for x86-64-v3
// (AVX2; ns per element: Add 0.11, Sqrt 0.13, Rsqrt 0.12, Sigmoid 0.27,
// Tanh 0.33, Exp 0.56, Log 0.76, Exp and Log here with their range
// handling on top). The earlier 8-20 were scalar guesses: they split a
// 4,096-element Sigmoid (1.2 us) over threads, whose hand-off costs more.
#ifndef DFLOW_KERNELS_CPU_CWISE_OPS_UNARY_FUNCTORS_H_
#define DFLOW_KERNELS_CPU_CWISE_OPS_UNARY_FUNCTORS_H_

#include <cstdint>
#include <type_traits>

#include "kernels/cpu/cwise_ops_common.h"

namespace dflow {
namespace cwise {

struct NegFunctor : FunctorBase {
  static constexpr bool kWrapsIntegers = true;
  template <typename X>
  static auto Apply(const X& x) {
    return -x;
  }
};

struct SquareFunctor : FunctorBase {
  static constexpr bool kWrapsIntegers = true;
  template <typename X>
  static auto Apply(const X& x) {
    return x.square();
  }
};

struct SqrtFunctor : FunctorBase {
  static constexpr int64_t kCost = 2;
  template <typename X>
  static auto Apply(const X& x) {
    return x.sqrt();
  }
};

struct RsqrtFunctor : FunctorBase {
  static constexpr int64_t kCost = 2;
  template <typename X>
  static auto Apply(const X& x) {
    return x.rsqrt();
  }
};

// Eigen 3.4.0's vectorized float/double exp clamps its argument below at
// -88.72 (-709.78) and so answers 2.9e-39 (5.6e-309) for every smaller x,
// exp(-inf) included, and its log clamps denormal inputs to the smallest
// normal number. Both are repaired by scaling with a power of two, which
// costs two selects and a multiply per element, not a second exp or log.
template <typename S>
struct ExpLogConstants;
template <>
struct ExpLogConstants<float> {
  static constexpr float kExpLow = -88.72f;
  static constexpr float kExpShift = 44.3614195558365f;       // 64 ln 2
  static constexpr float kExpScale = 5.421010862427522e-20f;  // 2^-64
  static constexpr float kMinNormal = 1.17549435e-38f;
  static constexpr float kLogScale = 16777216.0f;          // 2^24
  static constexpr float kLogShift = 16.635532333438686f;  // 24 ln 2
};
template <>
struct ExpLogConstants<double> {
  static constexpr double kExpLow = -709.78;
  static constexpr double kExpShift = 44.3614195558365;
  static constexpr double kExpScale = 5.421010862427522e-20;
  static constexpr double kMinNormal = 2.2250738585072014e-308;
  static constexpr double kLogScale = 18014398509481984.0;  // 2^54
  static constexpr double kLogShift = 37.42994775023705;    // 54 ln 2
};

template <typename S>
constexpr bool kFloatOrDouble =
    std::is_same_v<S, float> || std::is_same_v<S, double>;

struct ExpFunctor : FunctorBase {
  static constexpr int64_t kCost = 8;
  template <typename X>
  static auto Apply(const X& x) {
    using S = std::remove_const_t<typename X::Scalar>;
    if constexpr (kFloatOrDouble<S>) {
      using C = ExpLogConstants<S>;
      // exp(x) = exp(x + 64 ln 2) * 2^-64 for x below Eigen's clamp.
      const auto low = x < x.constant(C::kExpLow);
      return low.select(x + x.constant(C::kExpShift), x).exp() *
             low.select(x.constant(C::kExpScale), x.constant(S(1)));
    } else {
      return x.exp();
    }
  }
};

struct LogFunctor : FunctorBase {
  static constexpr int64_t kCost = 8;
  template <typename X>
  static auto Apply(const X& x) {
    using S = std::remove_const_t<typename X::Scalar>;
    if constexpr (kFloatOrDouble<S>) {
      using C = ExpLogConstants<S>;
      // log(x) = log(x * 2^k) - k ln 2 for denormal x (and for x <= 0,
      // whose -inf or NaN the scaling keeps).
      const auto tiny = x < x.constant(C::kMinNormal);
      return (x * tiny.select(x.constant(C::kLogScale), x.constant(S(1))))
                 .log() -
             tiny.select(x.constant(C::kLogShift), x.constant(S(0)));
    } else {
      return x.log();
    }
  }
};

// relu(x) = max(x, 0); NaN stays NaN.
struct ReluFunctor : FunctorBase {
  template <typename X>
  static auto Apply(const X& x) {
    using S = std::remove_const_t<typename X::Scalar>;
    return x.template cwiseMax<Eigen::PropagateNaN>(S(0));
  }
};

struct SigmoidFunctor : FunctorBase {
  static constexpr int64_t kCost = 3;
  template <typename X>
  static auto Apply(const X& x) {
    return x.sigmoid();
  }
};

struct TanhFunctor : FunctorBase {
  static constexpr int64_t kCost = 3;
  template <typename X>
  static auto Apply(const X& x) {
    return x.tanh();
  }
};

}  // namespace cwise
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_CWISE_OPS_UNARY_FUNCTORS_H_
