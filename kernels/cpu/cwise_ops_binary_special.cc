// Element-wise binary math beyond the core set, with broadcasting
// (graph/ops/math_ops_binary_special.cc): TruncateDiv and TruncateMod (C's
// / and %: rounding toward zero), Xdivy, Xlogy and Xlog1py (0 where x is 0,
// whatever y is), Atan2, NextAfter; and ApproximateEqual, which like TensorFlow's
// wants x and y of one shape.
//
// Integer division by zero fails the step ("Integer division by zero",
// TensorFlow's words) instead of trapping; the most negative integer
// divided by -1 wraps, as two's-complement hardware would.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/cwise_ops_common.h"

namespace dflow {
namespace cwise {
namespace {

// Half and bfloat16 compute in float, as Eigen would promote them anyway.
template <typename T>
using Wide = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
struct TruncateDivOp {
  T operator()(const T& x, const T& y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == 0) return T(0);  // Checked before evaluation.
      if constexpr (std::is_signed_v<T>) {
        if (y == -1) {
          return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(x));
        }
      }
      return static_cast<T>(x / y);
    } else {
      return static_cast<T>(
          std::trunc(static_cast<Wide<T>>(x) / static_cast<Wide<T>>(y)));
    }
  }
};

template <typename T>
struct TruncateModOp {
  T operator()(const T& x, const T& y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == 0) return T(0);  // Checked before evaluation.
      if constexpr (std::is_signed_v<T>) {
        if (y == -1) return T(0);  // min % -1 would trap.
      }
      return static_cast<T>(x % y);
    } else {
      return static_cast<T>(
          std::fmod(static_cast<Wide<T>>(x), static_cast<Wide<T>>(y)));
    }
  }
};

// The three "x times f(y), but 0 where x is 0" ops: where x is 0 the
// result is 0 even for y = 0, inf or NaN (what makes them safe in losses
// and gradients).
template <typename T>
struct XdivyOp {
  T operator()(const T& x, const T& y) const {
    const Wide<T> xw = static_cast<Wide<T>>(x);
    return xw == 0 ? T(0) : static_cast<T>(xw / static_cast<Wide<T>>(y));
  }
};

template <typename T>
struct XlogyOp {
  T operator()(const T& x, const T& y) const {
    const Wide<T> xw = static_cast<Wide<T>>(x);
    return xw == 0 ? T(0)
                   : static_cast<T>(xw * std::log(static_cast<Wide<T>>(y)));
  }
};

template <typename T>
struct Xlog1pyOp {
  T operator()(const T& x, const T& y) const {
    const Wide<T> xw = static_cast<Wide<T>>(x);
    return xw == 0 ? T(0)
                   : static_cast<T>(xw * std::log1p(static_cast<Wide<T>>(y)));
  }
};

template <typename T>
struct Atan2Op {
  T operator()(const T& y, const T& x) const {
    return static_cast<T>(
        std::atan2(static_cast<Wide<T>>(y), static_cast<Wide<T>>(x)));
  }
};

// The next representable value after x toward y (C's nextafter, as
// TensorFlow's tf.math.nextafter).
template <typename T>
struct NextAfterOp {
  T operator()(const T& x, const T& y) const { return std::nextafter(x, y); }
};

template <typename T>
absl::Status CheckIntegerDivisor(const Tensor& y) {
  if constexpr (std::is_integral_v<T>) {
    const T* d = y.data<T>();
    for (int64_t i = 0; i < y.NumElements(); ++i) {
      if (d[i] == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Integer division by zero: y[", i, "] is 0"));
      }
    }
  }
  return absl::OkStatus();
}

// A functor applying the scalar operation Op<element type>.
template <template <typename> class Op, int64_t kCostPerElement,
          bool kChecksDivisor>
struct ScalarFunctor : FunctorBase {
  static constexpr int64_t kCost = kCostPerElement;
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    using S = std::remove_const_t<typename X::Scalar>;
    return x.binaryExpr(y, Op<S>());
  }
  template <typename T>
  static absl::Status Check(const Tensor&, const Tensor& y) {
    if constexpr (kChecksDivisor) return CheckIntegerDivisor<T>(y);
    return absl::OkStatus();
  }
};

using TruncateDivFunctor = ScalarFunctor<TruncateDivOp, 8, true>;
using TruncateModFunctor = ScalarFunctor<TruncateModOp, 8, true>;
using XdivyFunctor = ScalarFunctor<XdivyOp, 4, false>;
using XlogyFunctor = ScalarFunctor<XlogyOp, 20, false>;
using Xlog1pyFunctor = ScalarFunctor<Xlog1pyOp, 20, false>;
using Atan2Functor = ScalarFunctor<Atan2Op, 40, false>;
using NextAfterFunctor = ScalarFunctor<NextAfterOp, 10, false>;

// |x - y| < tolerance, for x and y of one shape (float and double, as
// TensorFlow's CPU kernels).
template <typename T>
class ApproximateEqualOp : public OpKernel {
 public:
  explicit ApproximateEqualOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float tolerance = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("tolerance", &tolerance));
    tolerance_ = static_cast<E>(tolerance);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES(
        ctx, x.shape() == y.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "x and y must be of the same shape. x shape: ",
            x.shape().ToString(), ". y shape: ", y.shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const E* xd = EigenData<T>(x);
    const E* yd = EigenData<T>(y);
    bool* o = out->data<bool>();
    const E tolerance = tolerance_;
    ParallelForElements(ctx, x.NumElements(), 2,
                        [=](int64_t begin, int64_t end) {
                          const int64_t n = end - begin;
                          InMap<E, 1> xm(xd + begin, n), ym(yd + begin, n);
                          OutMap<bool, 1> om(o + begin, n);
                          om = (xm - ym).abs() < xm.constant(tolerance);
                        });
  }

 private:
  using E = EigenElement<T>;
  E tolerance_{};
};

#define DFLOW_REGISTER_BINARY(op, functor, T)                         \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      BinaryOp<functor, T>)

#define DFLOW_REGISTER_TRUNCATE(T)                             \
  DFLOW_REGISTER_BINARY("TruncateDiv", TruncateDivFunctor, T); \
  DFLOW_REGISTER_BINARY("TruncateMod", TruncateModFunctor, T); \
  DFLOW_REGISTER_BINARY("Mod", TruncateModFunctor, T)

DFLOW_REGISTER_TRUNCATE(float);
DFLOW_REGISTER_TRUNCATE(double);
DFLOW_REGISTER_TRUNCATE(int32_t);
DFLOW_REGISTER_TRUNCATE(int64_t);
DFLOW_REGISTER_BINARY("TruncateDiv", TruncateDivFunctor, uint8_t);
DFLOW_REGISTER_BINARY("TruncateDiv", TruncateDivFunctor, int16_t);

#define DFLOW_REGISTER_FLOATING(T)                     \
  DFLOW_REGISTER_BINARY("Xdivy", XdivyFunctor, T);     \
  DFLOW_REGISTER_BINARY("Xlogy", XlogyFunctor, T);     \
  DFLOW_REGISTER_BINARY("Xlog1py", Xlog1pyFunctor, T); \
  DFLOW_REGISTER_BINARY("Atan2", Atan2Functor, T)

DFLOW_REGISTER_FLOATING(float16);
DFLOW_REGISTER_FLOATING(bfloat16);
DFLOW_REGISTER_FLOATING(float);
DFLOW_REGISTER_FLOATING(double);

DFLOW_REGISTER_BINARY("NextAfter", NextAfterFunctor, float);
DFLOW_REGISTER_BINARY("NextAfter", NextAfterFunctor, double);

#define DFLOW_REGISTER_APPROXIMATE_EQUAL(T)                  \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("ApproximateEqual") \
                            .Device(kDeviceCpu)              \
                            .TypeConstraint<T>("T"),         \
                        ApproximateEqualOp<T>)

DFLOW_REGISTER_APPROXIMATE_EQUAL(float);
DFLOW_REGISTER_APPROXIMATE_EQUAL(double);

}  // namespace
}  // namespace cwise
}  // namespace dflow
