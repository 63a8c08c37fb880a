// CPU kernels of the collective ops (graph/ops/collective_ops.h) and of
// tensor fusion's _FusedCollectiveAllReduce (compiler/tensor_fusion.h): each
// member allocates its output, submits its part to the session's
// CollectiveExecutor and returns; the executor calls it back when the group
// is complete (runtime/collective_executor.h). Asynchronous, so a member
// waiting for its peers holds no thread.
//
// The kernels find the executor through the step's CollectiveContext
// (OpKernelContext::collective_context), or, when a caller runs them without
// one, through the session's VariableStore (runtime/collective_registry.h).
//
// In steps that record stats, each member reports its phases: "wait" (from
// its submit until the last member of its group arrived), then the work:
// "reduce", "gather" or "broadcast". The fused all-reduce adds "pack" before
// (its inputs copied into one buffer) and "unpack" after (the result copied
// out into its outputs).
#include <vector>

#include "graph/types.h"
#include "kernels/cpu/collective_ops_base.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace {

using collective_kernels::CollectiveOpOf;
using collective_kernels::FusedAllReduceOp;

const std::vector<DataType>& Types() {
  static const auto* types =
      new std::vector<DataType>{DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64};
  return *types;
}

DFLOW_REGISTER_KERNEL(KernelDefBuilder("CollectiveAllReduce")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", Types()),
                      CollectiveOpOf<CollectiveKind::kAllReduce>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("CollectiveAllGather")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", Types()),
                      CollectiveOpOf<CollectiveKind::kAllGather>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("CollectiveBroadcastSend")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", Types()),
                      CollectiveOpOf<CollectiveKind::kBroadcastSend>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("CollectiveBroadcastRecv")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", Types()),
                      CollectiveOpOf<CollectiveKind::kBroadcastRecv>);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("_FusedCollectiveAllReduce")
                          .Device(kDeviceCpu)
                          .TypeConstraint("T", Types()),
                      FusedAllReduceOp);

}  // namespace
}  // namespace dflow
