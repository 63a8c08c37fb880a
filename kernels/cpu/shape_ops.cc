// CPU kernels that read shapes (Shape, Size, Rank, ShapeN), view elements
// with another shape (Reshape, ExpandDims, Squeeze: the output shares the
// input's buffer, nothing is copied), BroadcastGradientArgs and BroadcastTo.
// All but ShapeN and BroadcastTo are the classes the GPU registers too
// (kernels/cpu/kernel_util_shape.h).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/kernel_util_shape.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::AllTensorTypes;
using array_kernels::IndexVec;

using shape_kernels::BroadcastGradientArgsOp;
using shape_kernels::ExpandDimsOp;
using shape_kernels::OutputIndexVector;
using shape_kernels::RankOp;
using shape_kernels::ReshapeOp;
using shape_kernels::ShapeOp;
using shape_kernels::SizeOp;
using shape_kernels::SqueezeOp;

// --- ShapeN, BroadcastTo ---

class ShapeNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const TensorShape& s = ctx->input(i).shape();
      OutputIndexVector(ctx, i, s.dims(), TensorShape({s.rank()}),
                        "a dimension of size");
      if (!ctx->status().ok()) return;
    }
  }
  bool IsExpensive() const override { return false; }
};

// NumPy broadcasting of the input to the shape vector; the input itself
// when the shapes are equal.
class BroadcastToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    IndexVec dims;
    OP_REQUIRES_OK(ctx, array_kernels::ReadIndexVector(ctx->input(1),
                                                       "input 'shape'", &dims));
    TensorShape shape(std::vector<int64_t>{});
    for (int64_t d : dims) {
      OP_REQUIRES(ctx, d >= 0,
                  absl::InvalidArgumentError(
                      absl::StrCat("shape [", absl::StrJoin(dims, ","),
                                   "] has a negative dimension")));
      shape.AddDim(d);
    }
    const TensorShape& in = input.shape();
    bool ok = in.rank() <= shape.rank();
    const int offset = shape.rank() - in.rank();
    for (int i = 0; ok && i < in.rank(); ++i) {
      ok = in.dim(i) == 1 || in.dim(i) == shape.dim(offset + i);
    }
    OP_REQUIRES(ctx, ok,
                absl::InvalidArgumentError(absl::StrCat(
                    "Unable to broadcast tensor of shape ", in.ToString(),
                    " to tensor of shape ", shape.ToString())));
    if (in == shape) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    const int rank = shape.rank();
    std::vector<int64_t> strides(rank, 0);
    int64_t stride = 1;
    for (int i = in.rank() - 1; i >= 0; --i) {
      strides[offset + i] = in.dim(i) == 1 ? 0 : stride;
      stride *= in.dim(i);
    }
    array_kernels::VisitCopyType(input.dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      const T* src = array_kernels::CopyData<T>(input);
      T* dst = array_kernels::CopyData<T>(out);
      std::vector<int64_t> index(rank, 0);
      int64_t from = 0;
      for (int64_t i = 0; i < out->NumElements(); ++i) {
        dst[i] = src[from];
        for (int d = rank - 1; d >= 0; --d) {
          from += strides[d];
          if (++index[d] < shape.dim(d)) break;
          from -= strides[d] * shape.dim(d);
          index[d] = 0;
        }
      }
    });
  }
};

// --- Registrations ---

#define DFLOW_REGISTER_ALL_T(op, index_attr, kernel)                           \
  DFLOW_REGISTER_KERNEL(KernelDefBuilder(op)                                   \
                            .Device(kDeviceCpu)                                \
                            .TypeConstraint("T", AllTensorTypes())             \
                            .TypeConstraint(index_attr, {DT_INT32, DT_INT64}), \
                        kernel)
DFLOW_REGISTER_ALL_T("Reshape", "Tshape", ReshapeOp);
DFLOW_REGISTER_ALL_T("Shape", "out_type", ShapeOp);
DFLOW_REGISTER_ALL_T("Size", "out_type", SizeOp);
DFLOW_REGISTER_ALL_T("ExpandDims", "Tdim", ExpandDimsOp);
DFLOW_REGISTER_ALL_T("ShapeN", "out_type", ShapeNOp);
DFLOW_REGISTER_ALL_T("BroadcastTo", "Tidx", BroadcastToOp);
#undef DFLOW_REGISTER_ALL_T

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Rank")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllTensorTypes()),
                      RankOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Squeeze")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", AllTensorTypes()),
                      SqueezeOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("BroadcastGradientArgs")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", {DT_INT32, DT_INT64}),
                      BroadcastGradientArgsOp);

}  // namespace
}  // namespace dflow
