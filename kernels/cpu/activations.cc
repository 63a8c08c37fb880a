// Activation functions and their gradients: Relu, ReluGrad, Sigmoid, Tanh,
// SigmoidGrad, TanhGrad. All element-wise on equal shapes; each shard of
// the output is one Eigen expression on the default device (see
// kernel_util.h for why not Eigen's thread pool device).
#include <cstdint>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cwise_ops_unary_functors.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

using cwise::ReluFunctor;
using cwise::SigmoidFunctor;
using cwise::TanhFunctor;

template <typename T>
using E = EigenElement<T>;
template <typename T>
using InMap = ConstEigenTensorMap<T, 1>;
template <typename T>
using OutMap = EigenTensorMap<T, 1>;

// Gradients: Apply(a, b) for the op's inputs in order.

// ReluGrad(gradients, features): gradients where features > 0, else 0 (a
// select, so a NaN gradient at an inactive unit gives 0). Eigen's Tensor
// select and a plain loop at -O2 are not vectorized: 30-45 us for a
// [100,500] batch, against 5 us for an add.
// GCC's -O2 does not vectorize loops that need a remainder; this one is
// worth it (O3 turns the ternary, both loads unconditional, into
// compare-and-blend). `out` may be `g` (memory planning forwards the
// gradients' buffer, compiler/memory_planning.h), so neither is restrict.
template <typename U>
__attribute__((optimize("O3"))) void ReluGradRange(const U* g,
                                                   const U* __restrict f,
                                                   U* out, int64_t begin,
                                                   int64_t end) {
  const U zero = static_cast<U>(0.0f);
  for (int64_t i = begin; i < end; ++i) {
    const U gi = g[i];
    out[i] = f[i] > zero ? gi : zero;
  }
}

template <typename T>
class ReluGradOp : public OpKernel {
 public:
  explicit ReluGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& f = ctx->input(1);
    OP_REQUIRES(ctx, g.shape() == f.shape(),
                absl::InvalidArgumentError(absl::StrCat(
                    "ReluGrad needs inputs of one shape, got ",
                    g.shape().ToString(), " and ", f.shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, g.shape(), &out));
    using U = E<T>;  // Eigen's half types compare and convert
    const U* pg = EigenData<T>(g);
    const U* __restrict pf = EigenData<T>(f);
    U* po = EigenData<T>(*out);
    ParallelForShards(ctx, g.NumElements(), 1,
                      [pg, pf, po](int64_t begin, int64_t end) {
                        ReluGradRange(pg, pf, po, begin, end);
                      });
  }
};

// SigmoidGrad(y, dy) = dy * y * (1 - y).
struct SigmoidGradFunctor {
  static constexpr int64_t kCost = 3;
  template <typename Y, typename D>
  static auto Apply(const Y& y, const D& dy) {
    using S = std::remove_const_t<typename Y::Scalar>;
    return dy * y * (y.constant(S(1)) - y);
  }
};

// TanhGrad(y, dy) = dy * (1 - y * y).
struct TanhGradFunctor {
  static constexpr int64_t kCost = 3;
  template <typename Y, typename D>
  static auto Apply(const Y& y, const D& dy) {
    using S = std::remove_const_t<typename Y::Scalar>;
    return dy * (y.constant(S(1)) - y * y);
  }
};

template <typename F, typename T>
class UnaryActivationOp : public OpKernel {
 public:
  explicit UnaryActivationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const E<T>* in = EigenData<T>(x);
    E<T>* o = EigenData<T>(*out);
    ParallelForElements(ctx, x.NumElements(), F::kCost,
                        [in, o](int64_t begin, int64_t end) {
                          InMap<T> xm(in + begin, end - begin);
                          OutMap<T> om(o + begin, end - begin);
                          om = F::Apply(xm);
                        });
  }
};

template <typename F, typename T>
class BinaryActivationOp : public OpKernel {
 public:
  explicit BinaryActivationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.shape() == b.shape(),
                absl::InvalidArgumentError(absl::StrCat(
                    type_string(), " needs inputs of one shape, got ",
                    a.shape().ToString(), " and ", b.shape().ToString())));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, a.shape(), &out));
    const E<T>* pa = EigenData<T>(a);
    const E<T>* pb = EigenData<T>(b);
    E<T>* o = EigenData<T>(*out);
    ParallelForElements(ctx, a.NumElements(), F::kCost,
                        [pa, pb, o](int64_t begin, int64_t end) {
                          InMap<T> am(pa + begin, end - begin);
                          InMap<T> bm(pb + begin, end - begin);
                          OutMap<T> om(o + begin, end - begin);
                          om = F::Apply(am, bm);
                        });
  }
};

// ReluGradOp takes no functor; this alias lets it share the macros below.
template <typename Unused, typename T>
using ReluGradKernel = ReluGradOp<T>;

#define DFLOW_REGISTER_ACTIVATION(op, kernel, functor, T)             \
  DFLOW_REGISTER_KERNEL(                                              \
      KernelDefBuilder(op).Device(kDeviceCpu).TypeConstraint<T>("T"), \
      kernel<functor, T>)

#define DFLOW_REGISTER_ACTIVATION_FLOATS(op, kernel, functor) \
  DFLOW_REGISTER_ACTIVATION(op, kernel, functor, float16);    \
  DFLOW_REGISTER_ACTIVATION(op, kernel, functor, bfloat16);   \
  DFLOW_REGISTER_ACTIVATION(op, kernel, functor, float);      \
  DFLOW_REGISTER_ACTIVATION(op, kernel, functor, double)

#define DFLOW_REGISTER_ACTIVATION_REAL(op, kernel, functor) \
  DFLOW_REGISTER_ACTIVATION_FLOATS(op, kernel, functor);    \
  DFLOW_REGISTER_ACTIVATION(op, kernel, functor, int8_t);   \
  DFLOW_REGISTER_ACTIVATION(op, kernel, functor, int16_t);  \
  DFLOW_REGISTER_ACTIVATION(op, kernel, functor, int32_t);  \
  DFLOW_REGISTER_ACTIVATION(op, kernel, functor, int64_t);  \
  DFLOW_REGISTER_ACTIVATION(op, kernel, functor, uint8_t);  \
  DFLOW_REGISTER_ACTIVATION(op, kernel, functor, uint16_t); \
  DFLOW_REGISTER_ACTIVATION(op, kernel, functor, uint32_t); \
  DFLOW_REGISTER_ACTIVATION(op, kernel, functor, uint64_t)

DFLOW_REGISTER_ACTIVATION_REAL("Relu", UnaryActivationOp, ReluFunctor);
DFLOW_REGISTER_ACTIVATION_REAL("ReluGrad", ReluGradKernel, void);
DFLOW_REGISTER_ACTIVATION_FLOATS("Sigmoid", UnaryActivationOp, SigmoidFunctor);
DFLOW_REGISTER_ACTIVATION_FLOATS("Tanh", UnaryActivationOp, TanhFunctor);
DFLOW_REGISTER_ACTIVATION_FLOATS("SigmoidGrad", BinaryActivationOp,
                                 SigmoidGradFunctor);
DFLOW_REGISTER_ACTIVATION_FLOATS("TanhGrad", BinaryActivationOp,
                                 TanhGradFunctor);

}  // namespace
}  // namespace dflow
