// Element-wise arithmetic with broadcasting: Add, AddV2, Sub, Mul, RealDiv.
// Integer overflow wraps (two's complement). RealDiv has float kernels
// only, as in TensorFlow (integer division is Div/FloorDiv there).
#include <string>

#include "kernels/cpu/cwise_ops_common.h"

namespace dflow {
namespace {

// Add of strings concatenates, with broadcasting.
class StringAddOp : public OpKernel {
 public:
  explicit StringAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    absl::StatusOr<BCast> b = BroadcastShapes(x.shape(), y.shape());
    OP_REQUIRES_OK(ctx, b.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, b->output_shape, &out));
    cwise::BroadcastLoop(
        ctx, *b, x.data<std::string>(), y.data<std::string>(),
        out->data<std::string>(), /*cost=*/100,
        [](const std::string& a, const std::string& c) { return a + c; });
  }
};

#define DFLOW_REGISTER_BINARY(op, functor, T)                         \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      cwise::BinaryOp<cwise::functor, T>)

#define DFLOW_REGISTER_BINARY_FLOATS(op, functor) \
  DFLOW_REGISTER_BINARY(op, functor, float16);    \
  DFLOW_REGISTER_BINARY(op, functor, bfloat16);   \
  DFLOW_REGISTER_BINARY(op, functor, float);      \
  DFLOW_REGISTER_BINARY(op, functor, double)

#define DFLOW_REGISTER_BINARY_REAL(op, functor) \
  DFLOW_REGISTER_BINARY_FLOATS(op, functor);    \
  DFLOW_REGISTER_BINARY(op, functor, int32_t);  \
  DFLOW_REGISTER_BINARY(op, functor, int64_t)

// The narrower and unsigned integers TensorFlow's CPU kernels also take
// (tf.image.convert_image_dtype scales uint8 and uint16 images with Mul).
#define DFLOW_REGISTER_BINARY_SMALL_INTS(op, functor) \
  DFLOW_REGISTER_BINARY(op, functor, int8_t);         \
  DFLOW_REGISTER_BINARY(op, functor, int16_t);        \
  DFLOW_REGISTER_BINARY(op, functor, uint8_t);        \
  DFLOW_REGISTER_BINARY(op, functor, uint16_t);       \
  DFLOW_REGISTER_BINARY(op, functor, uint32_t);       \
  DFLOW_REGISTER_BINARY(op, functor, uint64_t)

DFLOW_REGISTER_BINARY_REAL("Add", AddFunctor);
DFLOW_REGISTER_BINARY_REAL("AddV2", AddFunctor);
DFLOW_REGISTER_BINARY_REAL("Sub", SubFunctor);
DFLOW_REGISTER_BINARY_REAL("Mul", MulFunctor);
DFLOW_REGISTER_BINARY_SMALL_INTS("AddV2", AddFunctor);
DFLOW_REGISTER_BINARY_SMALL_INTS("Sub", SubFunctor);
DFLOW_REGISTER_BINARY_SMALL_INTS("Mul", MulFunctor);
DFLOW_REGISTER_BINARY_FLOATS("RealDiv", DivFunctor);

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("Add").Device(kDeviceCpu).TypeConstraint<std::string>("T"),
    StringAddOp);

}  // namespace
}  // namespace dflow
