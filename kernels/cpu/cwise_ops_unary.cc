// Element-wise unary math (Neg, Square, Sqrt, Rsqrt, Exp, Log) and AddN,
// the sum of N same-shaped tensors. Integer Neg/Square/AddN wrap on
// overflow (two's complement).
#include <algorithm>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "kernels/cpu/cwise_ops_common.h"
#include "kernels/cpu/cwise_ops_unary_functors.h"

namespace dflow {
namespace cwise {
namespace {

// The sum of N >= 1 tensors of one shape, without broadcasting (as in
// TensorFlow). Groups of up to four inputs are added per pass over the
// output, so memory traffic is about (N + N/4) passes, not 3N.
template <typename T>
class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  // AddN of one input only forwards it.
  bool IsExpensive() const override { return num_inputs() > 1; }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    absl::InlinedVector<Tensor, 8> inputs;
    inputs.reserve(n);
    for (int i = 0; i < n; ++i) {
      inputs.push_back(ctx->input(i));
      OP_REQUIRES(ctx, inputs[i].shape() == inputs[0].shape(),
                  absl::InvalidArgumentError(absl::StrCat(
                      "AddN needs inputs of one shape (it does not broadcast): "
                      "input 0 has shape ",
                      inputs[0].shape().ToString(), " but input ", i,
                      " has shape ", inputs[i].shape().ToString())));
    }
    if (n == 1) {
      ctx->set_output(0, inputs[0]);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, inputs[0].shape(), &out));
    absl::InlinedVector<const E*, 8> in(n);
    for (int i = 0; i < n; ++i) in[i] = DataAs<E, T>(inputs[i]);
    E* o = DataAs<E, T>(out);
    const E* const* p = in.data();
    ParallelForShards(ctx, out->NumElements(), n,
                      [p, o, n](int64_t begin, int64_t end) {
                        OutMap<E, 1> om(o + begin, end - begin);
                        for (int i = 0; i < n;) {
                          const int k = std::min(n - i, 4);
                          SumInto(om, p + i, k, begin, /*accumulate=*/i > 0);
                          i += k;
                        }
                      });
  }

 private:
  using E = InType<AddFunctor, T>;

  // om (+)= p[0] + ... + p[k-1], each read from element `begin`.
  static void SumInto(OutMap<E, 1>& om, const E* const* p, int k, int64_t begin,
                      bool accumulate) {
    const int64_t len = om.size();
    InMap<E, 1> a(p[0] + begin, len);
    InMap<E, 1> b(p[std::min(1, k - 1)] + begin, len);
    InMap<E, 1> c(p[std::min(2, k - 1)] + begin, len);
    InMap<E, 1> d(p[std::min(3, k - 1)] + begin, len);
    if (accumulate) {
      switch (k) {
        case 1:
          om += a;
          break;
        case 2:
          om += a + b;
          break;
        case 3:
          om += a + b + c;
          break;
        default:
          om += a + b + c + d;
          break;
      }
    } else {
      switch (k) {
        case 1:
          om = a;
          break;
        case 2:
          om = a + b;
          break;
        case 3:
          om = a + b + c;
          break;
        default:
          om = a + b + c + d;
          break;
      }
    }
  }
};

#define DFLOW_REGISTER_UNARY(op, functor, T)                          \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      UnaryOp<functor, T>)

#define DFLOW_REGISTER_UNARY_FLOATS(op, functor) \
  DFLOW_REGISTER_UNARY(op, functor, float16);    \
  DFLOW_REGISTER_UNARY(op, functor, bfloat16);   \
  DFLOW_REGISTER_UNARY(op, functor, float);      \
  DFLOW_REGISTER_UNARY(op, functor, double)

#define DFLOW_REGISTER_UNARY_SIGNED(op, functor) \
  DFLOW_REGISTER_UNARY_FLOATS(op, functor);      \
  DFLOW_REGISTER_UNARY(op, functor, int8_t);     \
  DFLOW_REGISTER_UNARY(op, functor, int16_t);    \
  DFLOW_REGISTER_UNARY(op, functor, int32_t);    \
  DFLOW_REGISTER_UNARY(op, functor, int64_t)

DFLOW_REGISTER_UNARY_SIGNED("Neg", NegFunctor);
DFLOW_REGISTER_UNARY_SIGNED("Square", SquareFunctor);
DFLOW_REGISTER_UNARY_FLOATS("Sqrt", SqrtFunctor);
DFLOW_REGISTER_UNARY_FLOATS("Rsqrt", RsqrtFunctor);
DFLOW_REGISTER_UNARY_FLOATS("Exp", ExpFunctor);
DFLOW_REGISTER_UNARY_FLOATS("Log", LogFunctor);

#define DFLOW_REGISTER_ADDN(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                  \
      KernelDefBuilder("AddN").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      AddNOp<T>)

DFLOW_REGISTER_ADDN(float16);
DFLOW_REGISTER_ADDN(bfloat16);
DFLOW_REGISTER_ADDN(float);
DFLOW_REGISTER_ADDN(double);
DFLOW_REGISTER_ADDN(int32_t);
DFLOW_REGISTER_ADDN(int64_t);
DFLOW_REGISTER_ADDN(complex64);
DFLOW_REGISTER_ADDN(complex128);

}  // namespace
}  // namespace cwise
}  // namespace dflow
