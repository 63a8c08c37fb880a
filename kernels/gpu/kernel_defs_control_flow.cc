// GPU kernel definitions: the TF1 control-flow primitives
// (kernel_defs_control_flow.h lists them).
#include "kernels/gpu/kernel_defs_control_flow.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

const bool kRegistered = [] {
  for (const KernelDefBuilder& def : ControlFlowGpuKernelDefs()) Define(def);
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
