// GPU kernel definitions: variables (reference and resource) and random
// numbers (TensorFlow's variable_ops.cc, dense_update_ops.cc,
// resource_variable_ops.cc, random_op.cc).
#include "kernels/gpu/kernel_defs_util.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

const bool kRegistered = [] {
  // Reference variables live in GPU memory for the GPU number types.
  const Types var_types = Concat({GpuAll(), {DT_INT64}});
  Define(Gpu("VariableV2").TypeConstraint("dtype", var_types));
  Define(Gpu("Assign").TypeConstraint("T", var_types));
  for (const char* op : {"AssignAdd", "AssignSub"}) {
    Define(Gpu(op).TypeConstraint("T",
                                  Concat({GpuFloat(), Complex(), {DT_INT64}})));
  }

  // Resource variables: the handle is a host value; the variable's buffer
  // is in device memory.
  const Types resource_types = Concat({DeviceMovable(), {DT_INT32}});
  Define(Gpu("VarHandleOp")
             .TypeConstraint("dtype", resource_types)
             .HostMemory("resource"));
  Define(Gpu("ReadVariableOp")
             .TypeConstraint("dtype", resource_types)
             .HostMemory("resource"));
  Define(Gpu("AssignVariableOp")
             .TypeConstraint("dtype", resource_types)
             .HostMemory("resource"));
  for (const char* op : {"AssignAddVariableOp", "AssignSubVariableOp"}) {
    Define(Gpu(op)
               .TypeConstraint("dtype",
                               Concat({GpuFloat(), Complex(), {DT_INT64}}))
               .HostMemory("resource"));
  }

  // Whether a variable is initialized: the answer is a host bool.
  Define(Gpu("IsVariableInitialized")
             .TypeConstraint("dtype", var_types)
             .HostMemory("is_initialized"));
  Define(Gpu("VarIsInitializedOp")
             .HostMemory("resource")
             .HostMemory("is_initialized"));

  // Rows of variables (TensorFlow's resource_variable_ops.cc and
  // scatter_op.cc): indices are device tensors, the handle a host value.
  // Definitions only: no CUDA implementation yet, so a session with real
  // GPUs places these on the CPU under soft placement (they are off the
  // hot path: embedding lookups and sparse updates of small tables).
  const Types index_types = {DT_INT32, DT_INT64};
  const Types scatter_types = Concat({GpuFloat(), Complex(), {DT_INT64}});
  Define(Gpu("ResourceGather")
             .TypeConstraint("dtype", Concat({GpuAll(), {DT_INT64}}))
             .TypeConstraint("Tindices", index_types)
             .HostMemory("resource"));
  for (const char* op :
       {"ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterUpdate"}) {
    Define(Gpu(op)
               .TypeConstraint("dtype", scatter_types)
               .TypeConstraint("Tindices", index_types)
               .HostMemory("resource"));
  }
  for (const char* op : {"ScatterAdd", "ScatterSub", "ScatterUpdate"}) {
    Define(Gpu(op)
               .TypeConstraint("T", scatter_types)
               .TypeConstraint("Tindices", index_types));
  }

  // Random numbers generated on the device; the output shape is read on
  // the host.
  for (const char* op :
       {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    Define(Gpu(op)
               .TypeConstraint("dtype", GpuFloat())
               .TypeConstraint("T", {DT_INT32, DT_INT64})
               .HostMemory("shape"));
  }
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
