// Complex numbers on the CPU: the ops that build and take apart complex
// tensors (Complex, Real, Imag, Angle, ComplexAbs, Conj), and the
// complex64/complex128 kernels of the element-wise ops TensorFlow 2.21
// registers for complex types on its CPU and that TF graphs reach
// (tf.signal's spectrograms and their gradients, complex arithmetic):
//   binary, broadcasting: Add, AddV2, Sub, Mul, RealDiv, Pow,
//     DivNoNan, MulNoNan, Xdivy, Xlogy, SquaredDifference, and the gradient
//     helpers SqrtGrad, RsqrtGrad, ReciprocalGrad, TanhGrad, SigmoidGrad;
//   unary: Neg, Square, Sqrt, Rsqrt, Exp, Log, Tanh, Sigmoid, Sin, Cos, Tan,
//     Sinh, Cosh, Asin, Acos, Atan, Asinh, Acosh, Atanh, Log1p, Expm1,
//     Reciprocal, Inv, Sign.
// (Equal and NotEqual: cwise_ops_compare.cc; AddN: cwise_ops_unary.cc.)
// Arithmetic uses Eigen's complex operations (as TensorFlow's kernels do);
// the transcendental functions are the C++ library's (std::sin, ...), as
// Eigen's scalar path for complex numbers calls them. Formulas that differ
// from the textbook ones follow TensorFlow's functors: ComplexAbs is
// std::abs (hypot: no overflow for large parts), Log is (ln |z|, arg z),
// Log1p is Kahan's form of it, Sign(z) = z / |z| (0 at 0), DivNoNan is 0
// where the numerator x conj(y) is (flushed to) 0, SquaredDifference =
// d * conj(d), the gradient helpers use conj(y) and give 0 wherever the
// incoming gradient is 0.
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/cpu/cwise_ops_common.h"
#include "kernels/cpu/cwise_ops_unary_functors.h"

namespace dflow {
namespace cwise {
namespace {

template <typename R>
using Cx = std::complex<R>;

// --- Complex from two reals, and the parts of a complex number. ---

template <typename R>
struct MakeComplex {
  Cx<R> operator()(const R& re, const R& im) const { return Cx<R>(re, im); }
};

struct ComplexFunctor : FunctorBase {
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    using R = std::remove_const_t<typename X::Scalar>;
    return x.binaryExpr(y, MakeComplex<R>());
  }
};

// out = Complex(real, imag), broadcasting; R is float or double.
template <typename R>
class ComplexOp : public OpKernel {
 public:
  explicit ComplexOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& re = ctx->input(0);
    const Tensor& im = ctx->input(1);
    OP_REQUIRES(ctx, output_type(0) == DataTypeToEnum<Cx<R>>::value,
                absl::InvalidArgumentError(absl::StrCat(
                    "Complex of ", DataTypeName(re.dtype()), " parts makes ",
                    DataTypeName(DataTypeToEnum<Cx<R>>::value), ", not ",
                    DataTypeName(output_type(0)), " (set Tout to match T)")));
    BinaryShapes shapes;
    OP_REQUIRES_OK(ctx, shapes.Init(re.shape(), im.shape()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shapes.output_shape(), &out));
    shapes.Compute<ComplexFunctor>(ctx, re.data<R>(), im.data<R>(),
                                   out->data<Cx<R>>(), out->NumElements());
  }
};

// y = F(x) element-wise from complex<R> to R (Real, Imag, Angle,
// ComplexAbs), or to complex<R> (Conj).
template <typename R, typename Out, typename F>
class ComplexMapOp : public OpKernel {
 public:
  explicit ComplexMapOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, output_type(0) == DataTypeToEnum<Out>::value,
                absl::InvalidArgumentError(absl::StrCat(
                    type_string(), " of ", DataTypeName(x.dtype()), " gives ",
                    DataTypeName(DataTypeToEnum<Out>::value), ", not ",
                    DataTypeName(output_type(0)),
                    " (complex64 pairs with float, complex128 with double)")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const Cx<R>* in = x.data<Cx<R>>();
    Out* o = out->data<Out>();
    ParallelForElements(ctx, x.NumElements(), F::kCost,
                        [in, o](int64_t begin, int64_t end) {
                          for (int64_t i = begin; i < end; ++i) {
                            o[i] = F::Map(in[i]);
                          }
                        });
  }
};

struct RealFn {
  static constexpr int64_t kCost = 1;
  template <typename R>
  static R Map(const Cx<R>& z) {
    return z.real();
  }
};
struct ImagFn {
  static constexpr int64_t kCost = 1;
  template <typename R>
  static R Map(const Cx<R>& z) {
    return z.imag();
  }
};
struct AngleFn {
  static constexpr int64_t kCost = 20;
  template <typename R>
  static R Map(const Cx<R>& z) {
    return std::arg(z);
  }
};
struct ComplexAbsFn {
  static constexpr int64_t kCost = 10;
  template <typename R>
  static R Map(const Cx<R>& z) {
    return std::abs(z);
  }
};
struct ConjFn {
  static constexpr int64_t kCost = 1;
  template <typename R>
  static Cx<R> Map(const Cx<R>& z) {
    return std::conj(z);
  }
};

// --- Scalar functions of complex numbers, as Eigen functors. ---

// Applies Fn::Map to each element (or pair): Eigen evaluates custom
// functors on its scalar path.
template <typename Fn>
struct ScalarUnary {
  template <typename C>
  C operator()(const C& z) const {
    return Fn::Map(z);
  }
};
template <typename Fn>
struct ScalarBinary {
  template <typename C>
  C operator()(const C& x, const C& y) const {
    return Fn::Map(x, y);
  }
};

template <typename Fn, int64_t kCostValue = 20>
struct UnaryFunctor : FunctorBase {
  static constexpr int64_t kCost = kCostValue;
  template <typename X>
  static auto Apply(const X& x) {
    return x.unaryExpr(ScalarUnary<Fn>());
  }
};
template <typename Fn, int64_t kCostValue = 20>
struct BinaryFunctor : FunctorBase {
  static constexpr int64_t kCost = kCostValue;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    return x.binaryExpr(y, ScalarBinary<Fn>());
  }
};

#define DFLOW_COMPLEX_FN(name, expr) \
  struct name {                      \
    template <typename C>            \
    static C Map(const C& z) {       \
      using R = typename C::value_type; \
      (void)sizeof(R);               \
      return expr;                   \
    }                                \
  }

DFLOW_COMPLEX_FN(SinFn, std::sin(z));
DFLOW_COMPLEX_FN(CosFn, std::cos(z));
DFLOW_COMPLEX_FN(TanFn, std::tan(z));
DFLOW_COMPLEX_FN(SinhFn, std::sinh(z));
DFLOW_COMPLEX_FN(CoshFn, std::cosh(z));
DFLOW_COMPLEX_FN(AsinFn, std::asin(z));
DFLOW_COMPLEX_FN(AcosFn, std::acos(z));
DFLOW_COMPLEX_FN(AtanFn, std::atan(z));
DFLOW_COMPLEX_FN(AsinhFn, std::asinh(z));
DFLOW_COMPLEX_FN(AcoshFn, std::acosh(z));
DFLOW_COMPLEX_FN(AtanhFn, std::atanh(z));
DFLOW_COMPLEX_FN(ReciprocalFn, C(R(1)) / z);

#undef DFLOW_COMPLEX_FN

// z / |z| as z * (1 / |z|), 0 for 0, as Eigen's sign of a complex number.
struct SignFn {
  template <typename C>
  static C Map(const C& z) {
    using R = typename C::value_type;
    const R magnitude = std::abs(z);
    if (magnitude == R(0)) return C(0);
    const R inv = R(1) / magnitude;
    return C(z.real() * inv, z.imag() * inv);
  }
};

// Eigen's complex log, as TensorFlow computes it: (ln |z|, arg z).
template <typename C>
C ComplexLog(const C& z) {
  return C(std::log(std::abs(z)), std::atan2(z.imag(), z.real()));
}
struct LogFn {
  template <typename C>
  static C Map(const C& z) {
    return ComplexLog(z);
  }
};

// Eigen's log1p of a complex number (TensorFlow's): Kahan's
// z * log(u) / (u - 1) with u = 1 + z, z itself where u rounds to 1. Its
// real part keeps log|u|'s absolute rounding error (about one ulp of 1),
// which the test values carry.
struct Log1pFn {
  template <typename C>
  static C Map(const C& z) {
    using R = typename C::value_type;
    const C u = C(R(1) + z.real(), z.imag());
    const C log_u = ComplexLog(u);
    if (u == C(R(1)) || u == log_u) return z;
    return z * (log_u / C(u.real() - R(1), u.imag()));
  }
};
// Re(e^z - 1) = expm1(x) - 2 e^x sin^2(y / 2), as Eigen computes it.
struct Expm1Fn {
  template <typename C>
  static C Map(const C& z) {
    using R = typename C::value_type;
    const R em1 = std::expm1(z.real());
    const R e = em1 + R(1);
    const R s = std::sin(z.imag() / R(2));
    return C(em1 - R(2) * e * s * s, e * std::sin(z.imag()));
  }
};

struct PowFn {
  template <typename C>
  static C Map(const C& x, const C& y) {
    return std::pow(x, y);
  }
};
// TensorFlow's complex DivNoNan: 0 where y is 0 and also where x *
// conj(y), the numerator of x / y, is 0 (so that a |y|^2 that underflows
// cannot make 0 / 0). TensorFlow's kernels run with denormals flushed to
// zero, so a numerator below the smallest normal number counts as 0 there:
// tf.sign(1e-20 + 1e-20i), which is DivNoNan(z, |z|), is 0. dflow flushes
// just this test, to give the same values.
struct DivNoNanFn {
  template <typename C>
  static C Map(const C& x, const C& y) {
    using R = typename C::value_type;
    if (y == C(0)) return C(0);
    const C numerator = x * std::conj(y);
    const R tiny = std::numeric_limits<R>::min();
    if (std::fabs(numerator.real()) < tiny &&
        std::fabs(numerator.imag()) < tiny) {
      return C(0);
    }
    return x / y;
  }
};
struct MulNoNanFn {
  template <typename C>
  static C Map(const C& x, const C& y) {
    return y == C(0) ? C(0) : x * y;
  }
};
struct XdivyFn {
  template <typename C>
  static C Map(const C& x, const C& y) {
    return x == C(0) ? C(0) : x / y;
  }
};
struct XlogyFn {
  template <typename C>
  static C Map(const C& x, const C& y) {
    return x == C(0) ? C(0) : x * ComplexLog(y);
  }
};
struct SquaredDifferenceFn {
  template <typename C>
  static C Map(const C& x, const C& y) {
    const C d = x - y;
    return d * std::conj(d);
  }
};
// The gradient helpers: (y, dy) -> dx, TensorFlow's formulas for complex y
// (with conj(y)); dx is 0 wherever dy is 0.
struct SqrtGradFn {
  template <typename C>
  static C Map(const C& y, const C& dy) {
    using R = typename C::value_type;
    return dy == C(0) ? C(0) : (C(R(0.5)) * dy) / std::conj(y);
  }
};
struct RsqrtGradFn {
  template <typename C>
  static C Map(const C& y, const C& dy) {
    using R = typename C::value_type;
    const C c = std::conj(y);
    return dy == C(0) ? C(0) : C(R(-0.5)) * (dy * c) * (c * c);
  }
};
struct ReciprocalGradFn {
  template <typename C>
  static C Map(const C& y, const C& dy) {
    const C c = std::conj(y);
    return dy == C(0) ? C(0) : -c * c * dy;
  }
};
struct TanhGradFn {
  template <typename C>
  static C Map(const C& y, const C& dy) {
    using R = typename C::value_type;
    return dy * (C(R(1)) - y * y);
  }
};
struct SigmoidGradFn {
  template <typename C>
  static C Map(const C& y, const C& dy) {
    using R = typename C::value_type;
    return dy * y * (C(R(1)) - y);
  }
};

// --- Registrations. ---

#define DFLOW_REGISTER_PARTS(R)                                              \
  DFLOW_REGISTER_KERNEL(                                                     \
      KernelDefBuilder("Complex").Device(kDeviceCpu).TypeConstraint<R>("T"), \
      ComplexOp<R>);                                                         \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Real").Device(kDeviceCpu)          \
                            .TypeConstraint<Cx<R>>("T"),                     \
                        ComplexMapOp<R, R, RealFn>);                         \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Imag").Device(kDeviceCpu)          \
                            .TypeConstraint<Cx<R>>("T"),                     \
                        ComplexMapOp<R, R, ImagFn>);                         \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Angle").Device(kDeviceCpu)         \
                            .TypeConstraint<Cx<R>>("T"),                     \
                        ComplexMapOp<R, R, AngleFn>);                        \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ComplexAbs").Device(kDeviceCpu)    \
                            .TypeConstraint<Cx<R>>("T"),                     \
                        ComplexMapOp<R, R, ComplexAbsFn>);                   \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Conj").Device(kDeviceCpu)          \
                            .TypeConstraint<Cx<R>>("T"),                     \
                        ComplexMapOp<R, Cx<R>, ConjFn>)

DFLOW_REGISTER_PARTS(float);
DFLOW_REGISTER_PARTS(double);

#define DFLOW_REGISTER_COMPLEX(op, kernel, ...)                            \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op).Device(kDeviceCpu)            \
                            .TypeConstraint<complex64>("T"),               \
                        kernel<__VA_ARGS__, complex64>);                   \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op).Device(kDeviceCpu)            \
                            .TypeConstraint<complex128>("T"),              \
                        kernel<__VA_ARGS__, complex128>)

// Eigen's complex arithmetic (vectorized), as TensorFlow's kernels.
DFLOW_REGISTER_COMPLEX("Add", BinaryOp, AddFunctor);
DFLOW_REGISTER_COMPLEX("AddV2", BinaryOp, AddFunctor);
DFLOW_REGISTER_COMPLEX("Sub", BinaryOp, SubFunctor);
DFLOW_REGISTER_COMPLEX("Mul", BinaryOp, MulFunctor);
DFLOW_REGISTER_COMPLEX("RealDiv", BinaryOp, DivFunctor);
DFLOW_REGISTER_COMPLEX("Neg", UnaryOp, NegFunctor);
DFLOW_REGISTER_COMPLEX("Square", UnaryOp, SquareFunctor);
DFLOW_REGISTER_COMPLEX("Sqrt", UnaryOp, SqrtFunctor);
DFLOW_REGISTER_COMPLEX("Rsqrt", UnaryOp, RsqrtFunctor);
DFLOW_REGISTER_COMPLEX("Exp", UnaryOp, ExpFunctor);
DFLOW_REGISTER_COMPLEX("Log", UnaryOp, UnaryFunctor<LogFn>);
DFLOW_REGISTER_COMPLEX("Tanh", UnaryOp, TanhFunctor);
DFLOW_REGISTER_COMPLEX("Sigmoid", UnaryOp, SigmoidFunctor);

// The C++ library's functions, element by element.
DFLOW_REGISTER_COMPLEX("Sin", UnaryOp, UnaryFunctor<SinFn>);
DFLOW_REGISTER_COMPLEX("Cos", UnaryOp, UnaryFunctor<CosFn>);
DFLOW_REGISTER_COMPLEX("Tan", UnaryOp, UnaryFunctor<TanFn>);
DFLOW_REGISTER_COMPLEX("Sinh", UnaryOp, UnaryFunctor<SinhFn>);
DFLOW_REGISTER_COMPLEX("Cosh", UnaryOp, UnaryFunctor<CoshFn>);
DFLOW_REGISTER_COMPLEX("Asin", UnaryOp, UnaryFunctor<AsinFn>);
DFLOW_REGISTER_COMPLEX("Acos", UnaryOp, UnaryFunctor<AcosFn>);
DFLOW_REGISTER_COMPLEX("Atan", UnaryOp, UnaryFunctor<AtanFn>);
DFLOW_REGISTER_COMPLEX("Asinh", UnaryOp, UnaryFunctor<AsinhFn>);
DFLOW_REGISTER_COMPLEX("Acosh", UnaryOp, UnaryFunctor<AcoshFn>);
DFLOW_REGISTER_COMPLEX("Atanh", UnaryOp, UnaryFunctor<AtanhFn>);
DFLOW_REGISTER_COMPLEX("Log1p", UnaryOp, UnaryFunctor<Log1pFn>);
DFLOW_REGISTER_COMPLEX("Expm1", UnaryOp, UnaryFunctor<Expm1Fn>);
DFLOW_REGISTER_COMPLEX("Reciprocal", UnaryOp, UnaryFunctor<ReciprocalFn, 4>);
DFLOW_REGISTER_COMPLEX("Inv", UnaryOp, UnaryFunctor<ReciprocalFn, 4>);
DFLOW_REGISTER_COMPLEX("Sign", UnaryOp, UnaryFunctor<SignFn, 10>);
DFLOW_REGISTER_COMPLEX("Pow", BinaryOp, BinaryFunctor<PowFn, 40>);
DFLOW_REGISTER_COMPLEX("DivNoNan", BinaryOp, BinaryFunctor<DivNoNanFn, 4>);
DFLOW_REGISTER_COMPLEX("MulNoNan", BinaryOp, BinaryFunctor<MulNoNanFn, 2>);
DFLOW_REGISTER_COMPLEX("Xdivy", BinaryOp, BinaryFunctor<XdivyFn, 4>);
DFLOW_REGISTER_COMPLEX("Xlogy", BinaryOp, BinaryFunctor<XlogyFn>);
DFLOW_REGISTER_COMPLEX("SquaredDifference", BinaryOp,
                       BinaryFunctor<SquaredDifferenceFn, 4>);
DFLOW_REGISTER_COMPLEX("SqrtGrad", BinaryOp, BinaryFunctor<SqrtGradFn, 4>);
DFLOW_REGISTER_COMPLEX("RsqrtGrad", BinaryOp, BinaryFunctor<RsqrtGradFn, 4>);
DFLOW_REGISTER_COMPLEX("ReciprocalGrad", BinaryOp,
                       BinaryFunctor<ReciprocalGradFn, 4>);
DFLOW_REGISTER_COMPLEX("TanhGrad", BinaryOp, BinaryFunctor<TanhGradFn, 4>);
DFLOW_REGISTER_COMPLEX("SigmoidGrad", BinaryOp,
                       BinaryFunctor<SigmoidGradFn, 4>);

#undef DFLOW_REGISTER_PARTS
#undef DFLOW_REGISTER_COMPLEX

}  // namespace
}  // namespace cwise
}  // namespace dflow
