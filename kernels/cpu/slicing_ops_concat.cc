// CPU kernels that join tensors: ConcatV2 (along an existing axis) and Pack
// (along a new one). Both view every input as [rows, chunk] and copy row by
// row (slicing::ConcatRows); the checks and shapes are shared with the GPU
// kernels (kernel_util_concat.h). ConcatOffset computes, from shapes only,
// where each input of a ConcatV2 starts in its output (for its gradient).
#include <cstdint>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/kernel_util_concat.h"
#include "kernels/cpu/slicing_ops_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class ConcatV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    array_kernels::JoinPlan plan;
    OP_REQUIRES_OK(ctx, array_kernels::PrepareConcatV2(ctx, &plan));
    if (plan.out == nullptr) return;
    slicing::ConcatRows(plan.values, plan.chunks, plan.rows, plan.out,
                        ctx->thread_pool());
  }
};

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::Status s = ctx->GetAttr("axis", &axis_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) override {
    array_kernels::JoinPlan plan;
    OP_REQUIRES_OK(ctx, array_kernels::PreparePack(ctx, axis_, &plan));
    if (plan.out == nullptr) return;
    slicing::ConcatRows(plan.values, plan.chunks, plan.rows, plan.out,
                        ctx->thread_pool());
  }

 private:
  int64_t axis_ = 0;
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("ConcatOffset")
                          .Device(kDeviceCpu)
                          .TypeConstraint("shape_type", {DT_INT32, DT_INT64}),
                      array_kernels::ConcatOffsetKernel);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("ConcatV2")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes())
                          .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
                      ConcatV2Op);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("Pack")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", array_kernels::AllTensorTypes()),
                      PackOp);

}  // namespace
}  // namespace dflow
