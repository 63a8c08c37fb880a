// CPU kernels that split a tensor into pieces along one axis: Split (equal
// pieces), SplitV (given sizes) and Unpack (pieces of size 1, axis removed).
//
// The argument checks and piece shapes are shared with the GPU kernels
// (kernel_util_split.h). When every dimension before the axis has size 1 (axis
// 0 included), each piece is one contiguous run of the input, and the outputs
// are views that share the input's buffer: towers split a batch without copying
// it. Otherwise each output is copied row by row (slicing::SplitRows).
#include <cstdint>
#include <string>

#include "absl/container/inlined_vector.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/kernel_util_split.h"
#include "kernels/cpu/slicing_ops_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

using array_kernels::DimProduct;
using array_kernels::IndexVec;

// Moves the pieces SplitPlan describes into the outputs.
void EmitPieces(OpKernelContext* ctx, const array_kernels::SplitPlan& plan) {
  const Tensor& input = plan.input;
  const TensorShape& shape = input.shape();
  const int64_t prefix = DimProduct(shape, 0, plan.axis);
  const int64_t suffix = DimProduct(shape, plan.axis + 1, shape.rank());
  const int n = static_cast<int>(plan.sizes.size());
  if (prefix == 1) {
    int64_t offset = 0;
    for (int j = 0; j < n; ++j) {
      absl::StatusOr<Tensor> view =
          slicing::SharedRange(input, offset, plan.piece_shapes[j]);
      OP_REQUIRES_OK(ctx, view.status());
      ctx->set_output(j, *std::move(view));
      offset += plan.sizes[j] * suffix;
    }
    return;
  }
  absl::InlinedVector<Tensor*, 8> outs(n, nullptr);
  IndexVec chunks(n);
  for (int j = 0; j < n; ++j) {
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(j, plan.piece_shapes[j], &outs[j]));
    chunks[j] = plan.sizes[j] * suffix;
  }
  if (input.NumElements() == 0) return;
  slicing::SplitRows(input, prefix, chunks, outs, ctx->thread_pool());
}

class SplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    array_kernels::SplitPlan plan;
    OP_REQUIRES_OK(ctx, array_kernels::PrepareSplit(ctx, &plan));
    if (!plan.done) EmitPieces(ctx, plan);
  }
};

class SplitVOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    array_kernels::SplitPlan plan;
    OP_REQUIRES_OK(ctx, array_kernels::PrepareSplitV(ctx, &plan));
    if (!plan.done) EmitPieces(ctx, plan);
  }
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::Status s = ctx->GetAttr("axis", &axis_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    array_kernels::SplitPlan plan;
    OP_REQUIRES_OK(ctx, array_kernels::PrepareUnpack(ctx, axis_, &plan));
    EmitPieces(ctx, plan);
  }

 private:
  int64_t axis_ = 0;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("Split")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      SplitOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("SplitV")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tlen",
                                          {DT_INT8, DT_INT32, DT_INT64}),
                      SplitVOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Unpack")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      UnpackOp);

}  // namespace
}  // namespace dflow
