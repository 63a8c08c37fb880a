// The GPU implementations of the TF1 control-flow primitives: the CPU
// kernels themselves (kernels/cpu/control_flow_ops.h says why they serve
// every device), under the GPU definitions of kernel_defs_control_flow.h.
#include "kernels/cpu/control_flow_ops.h"
#include "kernels/gpu/kernel_defs_control_flow.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

const bool kRegistered = [] {
  for (const KernelDefBuilder& def : ControlFlowGpuKernelDefs()) {
    KernelRegistry::Global()->RegisterImplementation(
        def.def(), ControlFlowKernelFactory(def.def().op));
  }
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
