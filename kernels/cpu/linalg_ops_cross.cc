// Cross on the CPU: the cross products of the 3-vectors in the last
// dimension of a and b (one shape). Integer products wrap, as TensorFlow's
// C++ does, without undefined behaviour (computed unsigned).
#include <cstdint>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
struct Arithmetic {
  using type = T;
};
template <>
struct Arithmetic<int32_t> {
  using type = uint32_t;
};
template <>
struct Arithmetic<int64_t> {
  using type = uint64_t;
};

template <typename T>
class CrossOp : public OpKernel {
 public:
  explicit CrossOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.shape() == b.shape(),
                absl::InvalidArgumentError(absl::StrCat(
                    "Both inputs must be of same shape: ", a.shape().ToString(),
                    " vs. ", b.shape().ToString())));
    const TensorShape& s = a.shape();
    OP_REQUIRES(ctx, s.rank() >= 1 && s.dim(s.rank() - 1) == 3,
                absl::InvalidArgumentError(absl::StrCat(
                    "Cross-products are only defined for 3-element vectors: "
                    "the last dimension of ",
                    s.ToString(), " must be 3")));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, s, &out));
    using A = typename Arithmetic<T>::type;
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    T* o = out->data<T>();
    ParallelForShards(ctx, a.NumElements() / 3, 12,
                      [&](int64_t v0, int64_t v1) {
                        for (int64_t v = v0; v < v1; ++v) {
                          const A x0 = A(x[3 * v]), x1 = A(x[3 * v + 1]),
                                  x2 = A(x[3 * v + 2]);
                          const A y0 = A(y[3 * v]), y1 = A(y[3 * v + 1]),
                                  y2 = A(y[3 * v + 2]);
                          o[3 * v] = static_cast<T>(x1 * y2 - x2 * y1);
                          o[3 * v + 1] = static_cast<T>(x2 * y0 - x0 * y2);
                          o[3 * v + 2] = static_cast<T>(x0 * y1 - x1 * y0);
                        }
                      });
  }
};

#define DFLOW_REGISTER_CROSS(T)                                            \
  DFLOW_REGISTER_KERNEL(                                                   \
      KernelDefBuilder("Cross").Device(kDeviceCpu).TypeConstraint<T>("T"), \
      CrossOp<T>)

DFLOW_REGISTER_CROSS(float);
DFLOW_REGISTER_CROSS(double);
DFLOW_REGISTER_CROSS(int32_t);
DFLOW_REGISTER_CROSS(int64_t);

#undef DFLOW_REGISTER_CROSS

}  // namespace
}  // namespace dflow
