// The TF1 control-flow kernels (Switch, Merge, Enter, Exit, NextIteration,
// LoopCond, ControlTrigger) never touch the bytes they pass on: they forward
// tensors and read one host-memory predicate. The same kernels therefore
// serve every device type; the GPU registers them too
// (kernels/gpu/control_flow_kernels_gpu.cc), so a loop cut across a CPU and
// a GPU gets its control loop on the GPU (compiler/partition.h).
#ifndef DFLOW_KERNELS_CPU_CONTROL_FLOW_OPS_H_
#define DFLOW_KERNELS_CPU_CONTROL_FLOW_OPS_H_

#include "absl/strings/string_view.h"
#include "runtime/kernel_registry.h"

namespace dflow {

// The kernel of control-flow op `op` (one of those above, not the Ref
// variants); null for any other op.
KernelFactory ControlFlowKernelFactory(absl::string_view op);

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_CONTROL_FLOW_OPS_H_
