// tf.bitwise on the CPU (graph/ops/math_ops_bitwise.cc): BitwiseAnd,
// BitwiseOr, BitwiseXor, LeftShift and RightShift with broadcasting,
// Invert and PopulationCount, for the eight integer types.
//
// Shifts clamp the shift amount to [0, bits - 1] as TensorFlow's kernels
// do, so a negative or too large amount is defined (C++ leaves it
// undefined); a left shift is computed unsigned, so signed results wrap.
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/cwise_ops_common.h"

namespace dflow {
namespace cwise {
namespace {

template <typename T>
T ClampedShift(const T& y) {
  constexpr T kMaxShift = static_cast<T>(sizeof(T) * 8 - 1);
  if constexpr (std::is_signed_v<T>) {
    if (y < 0) return T(0);
  }
  return y > kMaxShift ? kMaxShift : y;
}

template <typename T>
struct LeftShiftOp {
  T operator()(const T& x, const T& y) const {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(x) << ClampedShift(y)));
  }
};

template <typename T>
struct RightShiftOp {
  T operator()(const T& x, const T& y) const {
    return static_cast<T>(x >> ClampedShift(y));
  }
};

template <typename T>
struct BitAndOp {
  T operator()(const T& x, const T& y) const { return x & y; }
};
template <typename T>
struct BitOrOp {
  T operator()(const T& x, const T& y) const { return x | y; }
};
template <typename T>
struct BitXorOp {
  T operator()(const T& x, const T& y) const { return x ^ y; }
};
template <typename T>
struct InvertOp {
  T operator()(const T& x) const { return static_cast<T>(~x); }
};

template <template <typename> class Op>
struct BitwiseFunctor : FunctorBase {
  template <typename X, typename Y>
  static auto Apply(const X& x, const Y& y) {
    using S = std::remove_const_t<typename X::Scalar>;
    return x.binaryExpr(y, Op<S>());
  }
};

struct InvertFunctor : FunctorBase {
  template <typename X>
  static auto Apply(const X& x) {
    using S = std::remove_const_t<typename X::Scalar>;
    return x.unaryExpr(InvertOp<S>());
  }
};

// PopulationCount: the set bits of each element, as uint8 (the bits of the
// two's-complement representation for signed types).
template <typename T>
class PopulationCountOp : public OpKernel {
 public:
  explicit PopulationCountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const T* in = x.data<T>();
    uint8_t* o = out->data<uint8_t>();
    ParallelForElements(ctx, x.NumElements(), 2,
                        [in, o](int64_t begin, int64_t end) {
                          for (int64_t i = begin; i < end; ++i) {
                            using U = std::make_unsigned_t<T>;
                            o[i] = static_cast<uint8_t>(__builtin_popcountll(
                                static_cast<U>(in[i])));
                          }
                        });
  }
};

#define DFLOW_REGISTER_BITWISE_BINARY(op, functor, T)                 \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      BinaryOp<BitwiseFunctor<functor>, T>)

#define DFLOW_REGISTER_BITWISE(T)                                           \
  DFLOW_REGISTER_BITWISE_BINARY("BitwiseAnd", BitAndOp, T);                 \
  DFLOW_REGISTER_BITWISE_BINARY("BitwiseOr", BitOrOp, T);                   \
  DFLOW_REGISTER_BITWISE_BINARY("BitwiseXor", BitXorOp, T);                 \
  DFLOW_REGISTER_BITWISE_BINARY("LeftShift", LeftShiftOp, T);               \
  DFLOW_REGISTER_BITWISE_BINARY("RightShift", RightShiftOp, T);             \
  DFLOW_REGISTER_KERNEL(                                                    \
      KernelDefBuilder("Invert").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      UnaryOp<InvertFunctor, T>);                                           \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("PopulationCount")                 \
                            .Device(kDeviceCpu)                             \
                            .TypeConstraint<T>("T"),                        \
                        PopulationCountOp<T>)

DFLOW_REGISTER_BITWISE(int8_t);
DFLOW_REGISTER_BITWISE(int16_t);
DFLOW_REGISTER_BITWISE(int32_t);
DFLOW_REGISTER_BITWISE(int64_t);
DFLOW_REGISTER_BITWISE(uint8_t);
DFLOW_REGISTER_BITWISE(uint16_t);
DFLOW_REGISTER_BITWISE(uint32_t);
DFLOW_REGISTER_BITWISE(uint64_t);

}  // namespace
}  // namespace cwise
}  // namespace dflow
