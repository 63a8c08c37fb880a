// CPU kernel for Pad: the input surrounded by zeros, paddings[i] =
// [before, after] elements around dimension i. The input is written into
// the zeroed output as a box (slicing::StridedScatter); no padding at all
// forwards the input.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/slicing_ops_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::IndexVec;

class PadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& paddings_t = ctx->input(1);
    const TensorShape& in_shape = input.shape();
    const int rank = in_shape.rank();
    OP_REQUIRES(ctx,
                paddings_t.shape().rank() == 2 &&
                    paddings_t.shape().dim(0) == rank &&
                    paddings_t.shape().dim(1) == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "paddings must be a matrix of shape [", rank,
                    ", 2] (before and after for each dimension of the input ",
                    in_shape.ToString(), "), but has shape ",
                    paddings_t.shape().ToString())));
    IndexVec paddings;
    OP_REQUIRES_OK(ctx, ReadPaddings(paddings_t, &paddings));
    TensorShape out_shape;
    IndexVec begin(rank), strides(rank, 1), sizes(rank);
    bool none = true;
    for (int i = 0; i < rank; ++i) {
      const int64_t before = paddings[2 * i], after = paddings[2 * i + 1];
      OP_REQUIRES(
          ctx, before >= 0 && after >= 0,
          absl::InvalidArgumentError(absl::StrCat(
              "paddings [", absl::StrJoin(paddings, ","),
              "] must be non-negative (input ", in_shape.ToString(), ")")));
      int64_t size;
      OP_REQUIRES(ctx,
                  !__builtin_add_overflow(in_shape.dim(i), before, &size) &&
                      !__builtin_add_overflow(size, after, &size),
                  absl::InvalidArgumentError(
                      absl::StrCat("paddings [", absl::StrJoin(paddings, ","),
                                   "] overflow dimension ", i, " of the input ",
                                   in_shape.ToString())));
      out_shape.AddDim(size);
      begin[i] = before;
      sizes[i] = in_shape.dim(i);
      none = none && before == 0 && after == 0;
    }
    if (none) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    slicing::FillZeros(out, ctx->thread_pool());
    slicing::StridedScatter(input, begin, strides, sizes, out,
                            ctx->thread_pool());
  }

 private:
  // The [rank, 2] matrix, row-major (ReadIndexVector reads vectors only).
  static absl::Status ReadPaddings(const Tensor& t, IndexVec* out) {
    absl::StatusOr<Tensor> flat = t.Reshaped(TensorShape({t.NumElements()}));
    if (!flat.ok()) return flat.status();
    return array_kernels::ReadIndexVector(*flat, "paddings", out);
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Pad")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tpaddings", {DT_INT32, DT_INT64}),
                      PadOp);

}  // namespace
}  // namespace dflow
