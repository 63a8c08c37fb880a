// CPU kernels for Pad and PadV2: the input surrounded by zeros (PadV2: by
// the scalar constant_values), paddings[i] = [before, after] elements around
// dimension i. The input is written into the filled output as a box
// (slicing::StridedScatter); no padding at all forwards the input.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

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

// Every element of `t` set to the scalar `value` (same dtype).
void FillWith(const Tensor& value, Tensor* t) {
  array_kernels::VisitCopyType(t->dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T v = array_kernels::CopyData<T>(value)[0];
    T* data = array_kernels::CopyData<T>(t);
    std::fill(data, data + t->NumElements(), v);
  });
}

// Pad (kWithConstant false) and PadV2 (true: input 2 is the fill value).
template <bool kWithConstant>
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
    if constexpr (kWithConstant) {
      OP_REQUIRES(ctx, ctx->input(2).shape().rank() == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "constant_values must be a scalar, but has shape ",
                      ctx->input(2).shape().ToString())));
    }
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
    if constexpr (kWithConstant) {
      FillWith(ctx->input(2), out);
    } else {
      slicing::FillZeros(out, ctx->thread_pool());
    }
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
                      PadOp<false>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("PadV2")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tpaddings", {DT_INT32, DT_INT64}),
                      PadOp<true>);

}  // namespace
}  // namespace dflow
