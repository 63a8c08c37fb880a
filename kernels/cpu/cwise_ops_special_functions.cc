// The special functions of graph/ops/math_ops_special_functions.cc on the
// CPU, float and double:
//   binary, broadcasting: Igamma, Igammac, IgammaGradA, RandomGammaGrad,
//     Zeta, Polygamma, by Eigen's SpecialFunctions (as TensorFlow);
//   Betainc(a, b, x): Eigen's betainc; a, b and x of one shape or scalars;
//   unary: the Bessel functions (Eigen's), Dawsn, Expint, FresnelCos,
//     FresnelSin and Spence (Cephes, cwise_ops_special_functions_cephes.h).
// Outside a function's domain the result is NaN, as in TensorFlow.
#include <cstdint>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cwise_ops_common.h"
#include "kernels/cpu/cwise_ops_special_functions_cephes.h"
#include "unsupported/Eigen/SpecialFunctions"

namespace dflow {
namespace cwise {
namespace {

// --- Scalar functions. ---

#define DFLOW_SCALAR_BINARY(name, expr)                         \
  template <typename S>                                         \
  struct name {                                                 \
    S operator()(const S& a, const S& b) const { return expr; } \
  }

DFLOW_SCALAR_BINARY(IgammaScalar, Eigen::numext::igamma(a, b));
DFLOW_SCALAR_BINARY(IgammacScalar, Eigen::numext::igammac(a, b));
DFLOW_SCALAR_BINARY(IgammaGradAScalar, Eigen::numext::igamma_der_a(a, b));
DFLOW_SCALAR_BINARY(RandomGammaGradScalar,
                    Eigen::numext::gamma_sample_der_alpha(a, b));
DFLOW_SCALAR_BINARY(ZetaScalar, Eigen::numext::zeta(a, b));
DFLOW_SCALAR_BINARY(PolygammaScalar, Eigen::numext::polygamma(a, b));

#undef DFLOW_SCALAR_BINARY

#define DFLOW_SCALAR_UNARY(name, expr)              \
  template <typename S>                             \
  struct name {                                     \
    S operator()(const S& x) const { return expr; } \
  }

DFLOW_SCALAR_UNARY(BesselI0Scalar, Eigen::numext::bessel_i0(x));
DFLOW_SCALAR_UNARY(BesselI0eScalar, Eigen::numext::bessel_i0e(x));
DFLOW_SCALAR_UNARY(BesselI1Scalar, Eigen::numext::bessel_i1(x));
DFLOW_SCALAR_UNARY(BesselI1eScalar, Eigen::numext::bessel_i1e(x));
DFLOW_SCALAR_UNARY(BesselJ0Scalar, Eigen::numext::bessel_j0(x));
DFLOW_SCALAR_UNARY(BesselJ1Scalar, Eigen::numext::bessel_j1(x));
DFLOW_SCALAR_UNARY(BesselK0Scalar, Eigen::numext::bessel_k0(x));
DFLOW_SCALAR_UNARY(BesselK0eScalar, Eigen::numext::bessel_k0e(x));
DFLOW_SCALAR_UNARY(BesselK1Scalar, Eigen::numext::bessel_k1(x));
DFLOW_SCALAR_UNARY(BesselK1eScalar, Eigen::numext::bessel_k1e(x));
DFLOW_SCALAR_UNARY(BesselY0Scalar, Eigen::numext::bessel_y0(x));
DFLOW_SCALAR_UNARY(BesselY1Scalar, Eigen::numext::bessel_y1(x));
DFLOW_SCALAR_UNARY(DawsnScalar, cephes::Dawson(x));
DFLOW_SCALAR_UNARY(ExpintScalar, cephes::ExpIntegral(x));
DFLOW_SCALAR_UNARY(FresnelCosScalar, cephes::Fresnel(x, false));
DFLOW_SCALAR_UNARY(FresnelSinScalar, cephes::Fresnel(x, true));
DFLOW_SCALAR_UNARY(SpenceScalar, cephes::Spence(x));

#undef DFLOW_SCALAR_UNARY

// --- Functors for BinaryOp / UnaryOp (cwise_ops_common.h). ---

// The incomplete gamma functions iterate up to a few hundred times.
template <template <typename> class Op>
struct BinaryFunctor : FunctorBase {
  static constexpr int64_t kCost = 200;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    using S = std::remove_const_t<typename X::Scalar>;
    return x.binaryExpr(y, Op<S>());
  }
};

template <template <typename> class Op>
struct UnaryFunctor : FunctorBase {
  static constexpr int64_t kCost = 60;
  template <typename X>
  static auto Apply(const X& x) {
    using S = std::remove_const_t<typename X::Scalar>;
    return x.unaryExpr(Op<S>());
  }
};

// --- Betainc. ---

template <typename T>
class BetaincOp : public OpKernel {
 public:
  explicit BetaincOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    static constexpr const char* kNames[] = {"a", "b", "x"};
    const Tensor* in[3] = {&ctx->input(0), &ctx->input(1), &ctx->input(2)};
    // Every non-scalar input has the output's shape; scalars repeat.
    const Tensor* shaped = nullptr;
    for (int i = 0; i < 3; ++i) {
      if (in[i]->shape().rank() == 0) continue;
      if (shaped == nullptr) {
        shaped = in[i];
        continue;
      }
      OP_REQUIRES(ctx, in[i]->shape() == shaped->shape(),
                  absl::InvalidArgumentError(absl::StrCat(
                      "Shapes of ", kNames[i], " ", in[i]->shape().ToString(),
                      " and of the other inputs ", shaped->shape().ToString(),
                      " are inconsistent: each must be that shape or a "
                      "scalar")));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, shaped == nullptr ? TensorShape() : shaped->shape(), &out));
    const T* p[3];
    int64_t step[3];
    for (int i = 0; i < 3; ++i) {
      p[i] = in[i]->data<T>();
      step[i] = in[i]->shape().rank() == 0 ? 0 : 1;
    }
    T* o = out->data<T>();
    ParallelForElements(
        ctx, out->NumElements(), 400, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            o[i] = Eigen::numext::betainc(p[0][i * step[0]], p[1][i * step[1]],
                                          p[2][i * step[2]]);
          }
        });
  }
};

// --- Registration. ---

#define DFLOW_REGISTER_SPECIAL(T)                                              \
  DFLOW_REGISTER_KERNEL(                                                       \
      KernelDefBuilder("Igamma").Device(kDeviceCpu).TypeConstraint<T>("T"),    \
      BinaryOp<BinaryFunctor<IgammaScalar>, T>);                               \
  DFLOW_REGISTER_KERNEL(                                                       \
      KernelDefBuilder("Igammac").Device(kDeviceCpu).TypeConstraint<T>("T"),   \
      BinaryOp<BinaryFunctor<IgammacScalar>, T>);                              \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("IgammaGradA")                        \
                            .Device(kDeviceCpu)                                \
                            .TypeConstraint<T>("T"),                           \
                        BinaryOp<BinaryFunctor<IgammaGradAScalar>, T>);        \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("RandomGammaGrad")                    \
                            .Device(kDeviceCpu)                                \
                            .TypeConstraint<T>("T"),                           \
                        BinaryOp<BinaryFunctor<RandomGammaGradScalar>, T>);    \
  DFLOW_REGISTER_KERNEL(                                                       \
      KernelDefBuilder("Zeta").Device(kDeviceCpu).TypeConstraint<T>("T"),      \
      BinaryOp<BinaryFunctor<ZetaScalar>, T>);                                 \
  DFLOW_REGISTER_KERNEL(                                                       \
      KernelDefBuilder("Polygamma").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      BinaryOp<BinaryFunctor<PolygammaScalar>, T>);                            \
  DFLOW_REGISTER_KERNEL(                                                       \
      KernelDefBuilder("Betainc").Device(kDeviceCpu).TypeConstraint<T>("T"),   \
      BetaincOp<T>)

#define DFLOW_REGISTER_UNARY_SPECIAL(name, T)                            \
  DFLOW_REGISTER_KERNEL(                                                 \
      KernelDefBuilder(#name).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      UnaryOp<UnaryFunctor<name##Scalar>, T>)

#define DFLOW_REGISTER_ALL_UNARY(T)            \
  DFLOW_REGISTER_UNARY_SPECIAL(BesselI0, T);   \
  DFLOW_REGISTER_UNARY_SPECIAL(BesselI0e, T);  \
  DFLOW_REGISTER_UNARY_SPECIAL(BesselI1, T);   \
  DFLOW_REGISTER_UNARY_SPECIAL(BesselI1e, T);  \
  DFLOW_REGISTER_UNARY_SPECIAL(BesselJ0, T);   \
  DFLOW_REGISTER_UNARY_SPECIAL(BesselJ1, T);   \
  DFLOW_REGISTER_UNARY_SPECIAL(BesselK0, T);   \
  DFLOW_REGISTER_UNARY_SPECIAL(BesselK0e, T);  \
  DFLOW_REGISTER_UNARY_SPECIAL(BesselK1, T);   \
  DFLOW_REGISTER_UNARY_SPECIAL(BesselK1e, T);  \
  DFLOW_REGISTER_UNARY_SPECIAL(BesselY0, T);   \
  DFLOW_REGISTER_UNARY_SPECIAL(BesselY1, T);   \
  DFLOW_REGISTER_UNARY_SPECIAL(Dawsn, T);      \
  DFLOW_REGISTER_UNARY_SPECIAL(Expint, T);     \
  DFLOW_REGISTER_UNARY_SPECIAL(FresnelCos, T); \
  DFLOW_REGISTER_UNARY_SPECIAL(FresnelSin, T); \
  DFLOW_REGISTER_UNARY_SPECIAL(Spence, T)

DFLOW_REGISTER_SPECIAL(float);
DFLOW_REGISTER_SPECIAL(double);
DFLOW_REGISTER_ALL_UNARY(float);
DFLOW_REGISTER_ALL_UNARY(double);

#undef DFLOW_REGISTER_ALL_UNARY
#undef DFLOW_REGISTER_UNARY_SPECIAL
#undef DFLOW_REGISTER_SPECIAL

}  // namespace
}  // namespace cwise
}  // namespace dflow
