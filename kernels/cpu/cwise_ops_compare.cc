// Element-wise comparisons with broadcasting: Less, Greater, LessEqual,
// GreaterEqual, Equal and NotEqual (bool results). Equal and NotEqual also
// compare bool, string and complex tensors, and with incompatible_shape_error=false
// answer a scalar `false` (Equal) or `true` (NotEqual) for shapes that do
// not broadcast (TensorFlow's rule).
#include <string>
#include <type_traits>

#include "kernels/cpu/cwise_ops_common.h"

namespace dflow {
namespace {

template <typename T, bool kNotEqual = false>
class EqualOp : public OpKernel {
 public:
  explicit EqualOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("incompatible_shape_error",
                                     &incompatible_shape_error_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    cwise::BinaryShapes shapes;
    const absl::Status s = shapes.Init(x.shape(), y.shape());
    Tensor* out = nullptr;
    if (!s.ok() && !incompatible_shape_error_) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
      *out->data<bool>() = kNotEqual;
      return;
    }
    OP_REQUIRES_OK(ctx, s);
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shapes.output_shape(), &out));
    if (out->NumElements() == 0) return;
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
      // Strings and bools need no speed: the general loop over a BCast.
      absl::StatusOr<BCast> b = BroadcastShapes(x.shape(), y.shape());
      OP_REQUIRES_OK(ctx, b.status());
      if constexpr (std::is_same_v<T, std::string>) {
        cwise::BroadcastLoop(
            ctx, *b, x.data<std::string>(), y.data<std::string>(),
            out->data<bool>(),
            /*cost=*/10,
            [](const std::string& a, const std::string& c) {
              return (a == c) != kNotEqual;
            });
      } else {
        // Bytes, so that a bool tensor read from a file holding 2 for true
        // compares as true instead of being undefined behaviour.
        cwise::BroadcastLoop(
            ctx, *b, reinterpret_cast<const uint8_t*>(x.data<bool>()),
            reinterpret_cast<const uint8_t*>(y.data<bool>()), out->data<bool>(),
            /*cost=*/1,
            [](uint8_t a, uint8_t c) {
              return ((a != 0) == (c != 0)) != kNotEqual;
            });
      }
    } else {
      using F = std::conditional_t<kNotEqual, cwise::NotEqualFunctor,
                                   cwise::EqualFunctor>;
      using In = cwise::InType<F, T>;
      shapes.Compute<F>(ctx, cwise::DataAs<In, T>(x), cwise::DataAs<In, T>(y),
                        out->data<bool>(), out->NumElements());
    }
  }

 private:
  bool incompatible_shape_error_ = true;
};

#define DFLOW_REGISTER_COMPARE(op, functor, T)                        \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      cwise::BinaryOp<cwise::functor, T>)

#define DFLOW_REGISTER_EQUAL(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("Equal").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      EqualOp<T>)

#define DFLOW_REGISTER_NOT_EQUAL(T)                                   \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder("NotEqual").Device(kDeviceCpu).TypeConstraint<T>( \
          "T"),                                                       \
      EqualOp<T, true>)

#define DFLOW_REGISTER_COMPARE_ALL(op, functor)  \
  DFLOW_REGISTER_COMPARE(op, functor, float16);  \
  DFLOW_REGISTER_COMPARE(op, functor, bfloat16); \
  DFLOW_REGISTER_COMPARE(op, functor, float);    \
  DFLOW_REGISTER_COMPARE(op, functor, double);   \
  DFLOW_REGISTER_COMPARE(op, functor, int8_t);   \
  DFLOW_REGISTER_COMPARE(op, functor, int16_t);  \
  DFLOW_REGISTER_COMPARE(op, functor, int32_t);  \
  DFLOW_REGISTER_COMPARE(op, functor, int64_t);  \
  DFLOW_REGISTER_COMPARE(op, functor, uint8_t)

DFLOW_REGISTER_COMPARE_ALL("Less", LessFunctor);
DFLOW_REGISTER_COMPARE_ALL("Greater", GreaterFunctor);
DFLOW_REGISTER_COMPARE_ALL("LessEqual", LessEqualFunctor);
DFLOW_REGISTER_COMPARE_ALL("GreaterEqual", GreaterEqualFunctor);
DFLOW_REGISTER_EQUAL(float16);
DFLOW_REGISTER_EQUAL(bfloat16);
DFLOW_REGISTER_EQUAL(float);
DFLOW_REGISTER_EQUAL(double);
DFLOW_REGISTER_EQUAL(int8_t);
DFLOW_REGISTER_EQUAL(int16_t);
DFLOW_REGISTER_EQUAL(int32_t);
DFLOW_REGISTER_EQUAL(int64_t);
DFLOW_REGISTER_EQUAL(uint8_t);
DFLOW_REGISTER_EQUAL(bool);
DFLOW_REGISTER_EQUAL(std::string);
DFLOW_REGISTER_EQUAL(complex64);
DFLOW_REGISTER_EQUAL(complex128);
DFLOW_REGISTER_NOT_EQUAL(float16);
DFLOW_REGISTER_NOT_EQUAL(bfloat16);
DFLOW_REGISTER_NOT_EQUAL(float);
DFLOW_REGISTER_NOT_EQUAL(double);
DFLOW_REGISTER_NOT_EQUAL(int8_t);
DFLOW_REGISTER_NOT_EQUAL(int16_t);
DFLOW_REGISTER_NOT_EQUAL(int32_t);
DFLOW_REGISTER_NOT_EQUAL(int64_t);
DFLOW_REGISTER_NOT_EQUAL(uint8_t);
DFLOW_REGISTER_NOT_EQUAL(bool);
DFLOW_REGISTER_NOT_EQUAL(std::string);
DFLOW_REGISTER_NOT_EQUAL(complex64);
DFLOW_REGISTER_NOT_EQUAL(complex128);

}  // namespace
}  // namespace dflow
