// GPU kernel definitions of the TF1 control-flow primitives, with
// TensorFlow's host-memory arguments (its control_flow_ops.cc GPU
// registrations): the values stay in device memory, Switch's predicate,
// LoopCond and Merge's value_index in host memory; int32, string and
// resource values stay on the host entirely. Shared by the definitions
// (kernel_defs_control_flow.cc, in every build) and the implementations
// (control_flow_kernels_gpu.cc), so the two cannot drift apart.
#ifndef DFLOW_KERNELS_GPU_KERNEL_DEFS_CONTROL_FLOW_H_
#define DFLOW_KERNELS_GPU_KERNEL_DEFS_CONTROL_FLOW_H_

#include <vector>

#include "kernels/gpu/kernel_defs_util.h"

namespace dflow {
namespace gpu_kernel_defs {

inline std::vector<KernelDefBuilder> ControlFlowGpuKernelDefs() {
  std::vector<KernelDefBuilder> defs;
  const Types on_host = {DT_INT32, DT_STRING, DT_RESOURCE};
  for (const char* op : {"Enter", "Exit", "NextIteration"}) {
    defs.push_back(Gpu(op).TypeConstraint("T", DeviceMovable()));
    KernelDefBuilder host = Gpu(op);
    host.TypeConstraint("T", on_host).HostMemory("data").HostMemory("output");
    defs.push_back(host);
  }
  defs.push_back(
      Gpu("Switch").TypeConstraint("T", DeviceMovable()).HostMemory("pred"));
  KernelDefBuilder host_switch = Gpu("Switch");
  host_switch.TypeConstraint("T", on_host)
      .HostMemory("data")
      .HostMemory("pred")
      .HostMemory("output_false")
      .HostMemory("output_true");
  defs.push_back(host_switch);
  defs.push_back(Gpu("Merge")
                     .TypeConstraint("T", DeviceMovable())
                     .HostMemory("value_index"));
  KernelDefBuilder host_merge = Gpu("Merge");
  host_merge.TypeConstraint("T", on_host)
      .HostMemory("inputs")
      .HostMemory("output")
      .HostMemory("value_index");
  defs.push_back(host_merge);
  KernelDefBuilder loop_cond = Gpu("LoopCond");
  loop_cond.HostMemory("input").HostMemory("output");
  defs.push_back(loop_cond);
  defs.push_back(Gpu("ControlTrigger"));
  return defs;
}

}  // namespace gpu_kernel_defs
}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_KERNEL_DEFS_CONTROL_FLOW_H_
