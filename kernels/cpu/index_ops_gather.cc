// GatherV2 (any axis, batch_dims) and legacy Gather (axis 0): slices of
// params at indices. An index outside [0, dim) fails the step with
// TensorFlow's message ("indices[3] = 17 is not in [0, 10)").
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/index_ops_common.h"
#include "kernels/cpu/kernel_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using index_ops::CopyElements;
using index_ops::IntAt;
using index_ops::Position;
using index_ops::Product;

template <typename T>
class GatherOp : public OpKernel {
 public:
  GatherOp(OpKernelConstruction* ctx, bool has_axis)
      : OpKernel(ctx), has_axis_(has_axis) {
    if (has_axis_) OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const TensorShape& ps = params.shape();
    const TensorShape& is = indices.shape();
    int64_t axis = 0;
    if (has_axis_) {
      OP_REQUIRES_OK(ctx, index_ops::IntScalar(ctx->input(2), "axis", &axis));
    }
    int64_t batch_dims = batch_dims_;
    if (batch_dims < 0) batch_dims += is.rank();
    OP_REQUIRES(ctx, batch_dims >= 0 && batch_dims <= is.rank(),
                absl::InvalidArgumentError(absl::StrCat(
                    "batch_dims (", batch_dims_, ") must be in [-", is.rank(),
                    ", ", is.rank(), "] for indices of shape ",
                    is.ToString())));
    OP_REQUIRES(ctx, ps.rank() >= 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "params must be at least 1 dimensional, got shape ",
                    ps.ToString())));
    OP_REQUIRES(ctx, axis >= -ps.rank() && axis < ps.rank(),
                absl::InvalidArgumentError(absl::StrCat(
                    "Expected axis in the range [", -ps.rank(), ", ",
                    ps.rank(), "), but got ", axis)));
    if (axis < 0) axis += ps.rank();
    OP_REQUIRES(ctx, batch_dims <= axis,
                absl::InvalidArgumentError(absl::StrCat(
                    "batch_dims (", batch_dims,
                    ") must be less than or equal to axis (", axis, ")")));
    for (int i = 0; i < batch_dims; ++i) {
      OP_REQUIRES(ctx, ps.dim(i) == is.dim(i),
                  absl::InvalidArgumentError(absl::StrCat(
                      "params.shape[", i, "]: ", ps.dim(i),
                      " should be equal to indices.shape[", i,
                      "]: ", is.dim(i))));
    }
    const int a = static_cast<int>(axis);
    const int b = static_cast<int>(batch_dims);
    TensorShape out_shape(std::vector<int64_t>{});
    for (int i = 0; i < a; ++i) out_shape.AddDim(ps.dim(i));
    for (int i = b; i < is.rank(); ++i) out_shape.AddDim(is.dim(i));
    for (int i = a + 1; i < ps.rank(); ++i) out_shape.AddDim(ps.dim(i));

    const int64_t batches = Product(ps, 0, b);
    const int64_t outer = Product(ps, b, a);
    const int64_t limit = ps.dim(a);
    const int64_t inner = Product(ps, a + 1, ps.rank());
    const int64_t n = Product(is, b, is.rank());

    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      const int64_t idx = IntAt(indices, i);
      OP_REQUIRES(ctx, idx >= 0 && idx < limit,
                  absl::InvalidArgumentError(absl::StrCat(
                      "indices", Position(is, i), " = ", idx, " is not in [0, ",
                      limit, ")")));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const T* p = params.data<T>();
    T* o = out->data<T>();
    // One task per (batch, outer, index) slice of `inner` elements.
    const int64_t slices = batches * outer * n;
    ParallelForShards(ctx, slices, inner, [&](int64_t begin, int64_t end) {
      for (int64_t s = begin; s < end; ++s) {
        const int64_t j = s % n;
        const int64_t bo = s / n;  // batch * outer + outer index
        const int64_t bi = bo / outer;
        const int64_t idx = IntAt(indices, bi * n + j);
        CopyElements(p + (bo * limit + idx) * inner, inner, o + s * inner);
      }
    });
  }

 private:
  const bool has_axis_;
  int64_t batch_dims_ = 0;
};

template <typename T>
class GatherV2Op : public GatherOp<T> {
 public:
  explicit GatherV2Op(OpKernelConstruction* ctx) : GatherOp<T>(ctx, true) {}
};
template <typename T>
class GatherV1Op : public GatherOp<T> {
 public:
  explicit GatherV1Op(OpKernelConstruction* ctx) : GatherOp<T>(ctx, false) {}
};

#define DFLOW_REGISTER_GATHER(T)                                    \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("GatherV2")                \
                            .Device(kDeviceCpu)                     \
                            .TypeConstraint<T>("Tparams"),          \
                        GatherV2Op<T>);                             \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder("Gather")                  \
                            .Device(kDeviceCpu)                     \
                            .TypeConstraint<T>("Tparams"),          \
                        GatherV1Op<T>)

DFLOW_REGISTER_GATHER(float16);
DFLOW_REGISTER_GATHER(bfloat16);
DFLOW_REGISTER_GATHER(float);
DFLOW_REGISTER_GATHER(double);
DFLOW_REGISTER_GATHER(int8_t);
DFLOW_REGISTER_GATHER(uint8_t);
DFLOW_REGISTER_GATHER(int16_t);
DFLOW_REGISTER_GATHER(int32_t);
DFLOW_REGISTER_GATHER(int64_t);
DFLOW_REGISTER_GATHER(bool);
DFLOW_REGISTER_GATHER(std::string);
DFLOW_REGISTER_GATHER(complex64);
DFLOW_REGISTER_GATHER(complex128);

}  // namespace
}  // namespace dflow
