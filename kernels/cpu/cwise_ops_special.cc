// CPU kernels of the element-wise ops in graph/ops/math_ops_special.cc and
// graph/ops/nn_ops_activations.cc: |x|, sign, trigonometric and hyperbolic
// functions, log1p/expm1, reciprocal, rounding, erf/erfc/lgamma/digamma,
// IsFinite/IsNan/IsInf, Softplus/Softsign/Relu6/Elu/Selu/LeakyRelu and the
// gradients TensorFlow writes for them and for Rsqrt, Sqrt and Reciprocal.
//
// Each is one scalar function applied over the tensor (split over the pool
// when large), computed in float for half and bfloat16, as TensorFlow does,
// and in the type itself otherwise. Formulas and edge cases follow
// TensorFlow 2.21's kernels (checked against its values by
// tests/kernels/special_math_ops_test): Round and Rint round halves to
// even, Sign(NaN) is NaN, Softplus switches to x or exp(x) at TensorFlow's
// thresholds, integer Abs wraps at the most negative value.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "unsupported/Eigen/SpecialFunctions"

namespace dflow {
namespace {

// What a T is computed as.
template <typename T>
using Calc = std::conditional_t<
    std::is_same_v<T, double>, double,
    std::conditional_t<std::is_integral_v<T>, T, float>>;

template <typename T>
constexpr bool kHalfWidth =
    std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

// A stored element as what it is computed as, and back.
template <typename T>
Calc<T> Load(T v) {
  if constexpr (kHalfWidth<T>) {
    return v.ToFloat();
  } else {
    return static_cast<Calc<T>>(v);
  }
}
template <typename T, typename C>
T Store(C v) {
  if constexpr (kHalfWidth<T>) {
    return T::FromFloat(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// y = F(x). `alpha` is LeakyRelu's attr (0 elsewhere).
template <typename T, typename F>
class MapOp : public OpKernel {
 public:
  explicit MapOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->node().FindAttr("alpha") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("alpha", &alpha_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    using Out = typename F::template Out<T>;
    const T* in = x.data<T>();
    Out* o = out->data<Out>();
    const Calc<T> alpha = static_cast<Calc<T>>(alpha_);
    ParallelForElements(ctx, x.NumElements(), F::kCost,
                        [in, o, alpha](int64_t begin, int64_t end) {
                          for (int64_t i = begin; i < end; ++i) {
                            o[i] = Store<Out>(F::Apply(Load(in[i]), alpha));
                          }
                        });
  }

 private:
  float alpha_ = 0.0f;
};

// z = F(a, b) for two inputs of one shape (TensorFlow's gradient ops do not
// broadcast).
template <typename T, typename F>
class ZipOp : public OpKernel {
 public:
  explicit ZipOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->node().FindAttr("alpha") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("alpha", &alpha_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.shape() == b.shape(),
                absl::InvalidArgumentError(absl::StrCat(
                    type_string(), " needs inputs of one shape, got ",
                    a.shape().ToString(), " and ", b.shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, a.shape(), &out));
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* o = out->data<T>();
    const Calc<T> alpha = static_cast<Calc<T>>(alpha_);
    ParallelForElements(ctx, a.NumElements(), F::kCost,
                        [pa, pb, o, alpha](int64_t begin, int64_t end) {
                          for (int64_t i = begin; i < end; ++i) {
                            o[i] = Store<T>(
                                F::Apply(Load(pa[i]), Load(pb[i]), alpha));
                          }
                        });
  }

 private:
  float alpha_ = 0.0f;
};

// A scalar function: Apply(x, alpha) -> the value, Out<T> the stored type.
struct Same {
  template <typename T>
  using Out = T;
  static constexpr int64_t kCost = 4;
};
struct Predicate {
  template <typename T>
  using Out = bool;
  static constexpr int64_t kCost = 1;
};

#define DFLOW_SCALAR_FN(name, base, expr)           \
  struct name : base {                              \
    template <typename C>                           \
    static auto Apply(C x, [[maybe_unused]] C alpha) { \
      return expr;                                  \
    }                                               \
  }

template <typename C>
C AbsOf(C x) {
  if constexpr (std::is_integral_v<C>) {
    using U = std::make_unsigned_t<C>;
    // Two's complement: the most negative value stays itself, as in
    // TensorFlow.
    return x < 0 ? static_cast<C>(U(0) - static_cast<U>(x)) : x;
  } else {
    return std::fabs(x);
  }
}

template <typename C>
C SignOf(C x) {
  if constexpr (!std::is_integral_v<C>) {
    if (std::isnan(x)) return x;
  }
  return static_cast<C>((x > C(0)) - (x < C(0)));
}

// TensorFlow's softplus: x above -threshold, exp(x) below threshold, else
// log1p(exp(x)), threshold = log(epsilon) + 2.
template <typename C>
C SoftplusOf(C x) {
  const C threshold = std::log(std::numeric_limits<C>::epsilon()) + C(2);
  if (x > -threshold) return x;
  if (x < threshold) return std::exp(x);
  return std::log1p(std::exp(x));
}

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

DFLOW_SCALAR_FN(AbsFn, Same, AbsOf(x));
DFLOW_SCALAR_FN(SignFn, Same, SignOf(x));
DFLOW_SCALAR_FN(SinFn, Same, std::sin(x));
DFLOW_SCALAR_FN(CosFn, Same, std::cos(x));
DFLOW_SCALAR_FN(TanFn, Same, std::tan(x));
DFLOW_SCALAR_FN(AsinFn, Same, std::asin(x));
DFLOW_SCALAR_FN(AcosFn, Same, std::acos(x));
DFLOW_SCALAR_FN(AtanFn, Same, std::atan(x));
DFLOW_SCALAR_FN(SinhFn, Same, std::sinh(x));
DFLOW_SCALAR_FN(CoshFn, Same, std::cosh(x));
DFLOW_SCALAR_FN(AsinhFn, Same, std::asinh(x));
DFLOW_SCALAR_FN(AcoshFn, Same, std::acosh(x));
DFLOW_SCALAR_FN(AtanhFn, Same, std::atanh(x));
DFLOW_SCALAR_FN(Log1pFn, Same, std::log1p(x));
DFLOW_SCALAR_FN(Expm1Fn, Same, std::expm1(x));
DFLOW_SCALAR_FN(ReciprocalFn, Same, C(1) / x);
DFLOW_SCALAR_FN(RintFn, Same, std::nearbyint(x));
DFLOW_SCALAR_FN(CeilFn, Same, std::ceil(x));
DFLOW_SCALAR_FN(ErfFn, Same, std::erf(x));
DFLOW_SCALAR_FN(ErfcFn, Same, std::erfc(x));
DFLOW_SCALAR_FN(LgammaFn, Same, std::lgamma(x));
// Eigen's digamma, as TensorFlow's kernel computes it (poles give NaN).
DFLOW_SCALAR_FN(DigammaFn, Same, Eigen::numext::digamma(x));
// Eigen's ndtri, and erfinv(x) = ndtri((x + 1) / 2) / sqrt(2), as
// TensorFlow's kernels compute them.
DFLOW_SCALAR_FN(NdtriFn, Same, Eigen::numext::ndtri(x));
DFLOW_SCALAR_FN(ErfinvFn, Same,
                Eigen::numext::ndtri((x + C(1)) / C(2)) * C(M_SQRT1_2));
DFLOW_SCALAR_FN(IsFiniteFn, Predicate, std::isfinite(x));
DFLOW_SCALAR_FN(IsNanFn, Predicate, std::isnan(x));
DFLOW_SCALAR_FN(IsInfFn, Predicate, std::isinf(x));
DFLOW_SCALAR_FN(SoftplusFn, Same, SoftplusOf(x));
DFLOW_SCALAR_FN(SoftsignFn, Same, x / (AbsOf(x) + C(1)));
DFLOW_SCALAR_FN(Relu6Fn, Same, x < C(0) ? C(0) : (x > C(6) ? C(6) : x));
DFLOW_SCALAR_FN(EluFn, Same, x < C(0) ? std::expm1(x) : x);
DFLOW_SCALAR_FN(SeluFn, Same,
                x < C(0) ? C(kSeluScale * kSeluAlpha) * std::expm1(x)
                         : C(kSeluScale) * x);
DFLOW_SCALAR_FN(LeakyReluFn, Same, x > C(0) ? x : x * alpha);

#undef DFLOW_SCALAR_FN

// Round: halves to even on floats (nearbyint in the default rounding
// mode), the value itself on integers.
struct RoundFn : Same {
  template <typename C>
  static C Apply(C x, C) {
    if constexpr (std::is_integral_v<C>) {
      return x;
    } else {
      return std::nearbyint(x);
    }
  }
};

#define DFLOW_SCALAR_FN2(name, expr)                       \
  struct name : Same {                                     \
    template <typename C>                                  \
    static C Apply(C a, C b, [[maybe_unused]] C alpha) {   \
      return expr;                                         \
    }                                                      \
  }

// (y, dy) gradients, TensorFlow's formulas.
DFLOW_SCALAR_FN2(RsqrtGradFn, C(-0.5) * b * (a * a * a));
DFLOW_SCALAR_FN2(SqrtGradFn, C(0.5) * b / a);
DFLOW_SCALAR_FN2(ReciprocalGradFn, -b * (a * a));
// (gradients, features or outputs).
DFLOW_SCALAR_FN2(SoftplusGradFn, a / (C(1) + std::exp(-b)));
DFLOW_SCALAR_FN2(SoftsignGradFn, a / ((C(1) + AbsOf(b)) * (C(1) + AbsOf(b))));
DFLOW_SCALAR_FN2(Relu6GradFn, b > C(0) && b < C(6) ? a : C(0));
DFLOW_SCALAR_FN2(EluGradFn, b < C(0) ? a * (b + C(1)) : a);
DFLOW_SCALAR_FN2(SeluGradFn, b < C(0) ? a * (b + C(kSeluScale * kSeluAlpha))
                                      : a * C(kSeluScale));
DFLOW_SCALAR_FN2(LeakyReluGradFn, b > C(0) ? a : a * alpha);

#undef DFLOW_SCALAR_FN2

#define DFLOW_REGISTER_MAP(op, fn, T)                                 \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      MapOp<T, fn>)
#define DFLOW_REGISTER_ZIP(op, fn, T)                                 \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      ZipOp<T, fn>)
#define DFLOW_REGISTER_FLOATS(kind, op, fn) \
  kind(op, fn, float16);                    \
  kind(op, fn, bfloat16);                   \
  kind(op, fn, float);                      \
  kind(op, fn, double)
#define DFLOW_REGISTER_SIGNED(kind, op, fn) \
  DFLOW_REGISTER_FLOATS(kind, op, fn);      \
  kind(op, fn, int8_t);                     \
  kind(op, fn, int16_t);                    \
  kind(op, fn, int32_t);                    \
  kind(op, fn, int64_t)

DFLOW_REGISTER_SIGNED(DFLOW_REGISTER_MAP, "Abs", AbsFn);
DFLOW_REGISTER_SIGNED(DFLOW_REGISTER_MAP, "Sign", SignFn);
DFLOW_REGISTER_SIGNED(DFLOW_REGISTER_MAP, "Round", RoundFn);
DFLOW_REGISTER_SIGNED(DFLOW_REGISTER_MAP, "Relu6", Relu6Fn);
DFLOW_REGISTER_SIGNED(DFLOW_REGISTER_ZIP, "Relu6Grad", Relu6GradFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Sin", SinFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Cos", CosFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Tan", TanFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Asin", AsinFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Acos", AcosFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Atan", AtanFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Sinh", SinhFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Cosh", CoshFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Asinh", AsinhFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Acosh", AcoshFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Atanh", AtanhFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Log1p", Log1pFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Expm1", Expm1Fn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Reciprocal", ReciprocalFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Inv", ReciprocalFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Rint", RintFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Ceil", CeilFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Erf", ErfFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Erfc", ErfcFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Lgamma", LgammaFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Digamma", DigammaFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Ndtri", NdtriFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Erfinv", ErfinvFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "IsFinite", IsFiniteFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "IsNan", IsNanFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "IsInf", IsInfFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Softplus", SoftplusFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Softsign", SoftsignFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Elu", EluFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "Selu", SeluFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_MAP, "LeakyRelu", LeakyReluFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_ZIP, "RsqrtGrad", RsqrtGradFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_ZIP, "SqrtGrad", SqrtGradFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_ZIP, "ReciprocalGrad", ReciprocalGradFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_ZIP, "SoftplusGrad", SoftplusGradFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_ZIP, "SoftsignGrad", SoftsignGradFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_ZIP, "EluGrad", EluGradFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_ZIP, "SeluGrad", SeluGradFn);
DFLOW_REGISTER_FLOATS(DFLOW_REGISTER_ZIP, "LeakyReluGrad", LeakyReluGradFn);

}  // namespace
}  // namespace dflow
