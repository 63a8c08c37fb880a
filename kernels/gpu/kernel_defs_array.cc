// GPU kernel definitions: values from attrs, identities, fills, feeds and
// fetches (TensorFlow's constant_op.cc, identity_op.cc, fill/zeros/ones,
// range, one_hot_op.cc, function_ops.cc).
#include "kernels/gpu/kernel_defs_util.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

const bool kRegistered = [] {
  // Const: an int32 constant on a GPU lives in host memory.
  DefineWithInt32HostKernel("Const", "dtype", DeviceMovable(), {"output"});
  // Placeholder has no kernel work (feeds replace it): any dtype.
  Define(Gpu("Placeholder"));
  DefineWithInt32HostKernel("PlaceholderWithDefault", "dtype", DeviceMovable(),
                            {"input", "output"});
  for (const char* op : {"Identity", "StopGradient"}) {
    DefineWithInt32HostKernel(op, "T", DeviceMovable(), {"input", "output"});
    Define(Gpu(op)
               .TypeConstraint("T", {DT_STRING, DT_RESOURCE})
               .HostMemory("input")
               .HostMemory("output"));
  }
  Define(Gpu("IdentityN"));
  Define(Gpu("NoOp"));

  // Fill: `dims` is a shape, read on the host.
  Define(Gpu("Fill")
             .TypeConstraint("T", DeviceMovable())
             .TypeConstraint("index_type", {DT_INT32, DT_INT64})
             .HostMemory("dims"));
  Define(Gpu("Fill")
             .TypeConstraint("T", {DT_INT32})
             .TypeConstraint("index_type", {DT_INT32, DT_INT64})
             .HostMemory("dims")
             .HostMemory("value")
             .HostMemory("output"));
  // ZerosLike/OnesLike: TensorFlow's int32 kernel writes `y` on the host.
  for (const char* op : {"ZerosLike", "OnesLike"}) {
    DefineWithInt32HostKernel(
        op, "T", Concat({GpuFloat(), Complex(), {DT_BOOL, DT_INT64}}), {"y"});
  }
  // Range: the bounds are scalars read on the host; int32 entirely.
  Define(Gpu("Range")
             .TypeConstraint("Tidx", {DT_FLOAT, DT_DOUBLE, DT_INT64})
             .HostMemory("start")
             .HostMemory("limit")
             .HostMemory("delta"));
  Define(Gpu("Range")
             .TypeConstraint("Tidx", {DT_INT32})
             .HostMemory("start")
             .HostMemory("limit")
             .HostMemory("delta")
             .HostMemory("output"));
  Define(Gpu("OneHot")
             .TypeConstraint("T", Concat({GpuAll(), {DT_INT32, DT_INT64}}))
             .TypeConstraint("TI", {DT_UINT8, DT_INT32, DT_INT64})
             .HostMemory("depth"));

  // Feeds and fetches of a partition (session-internal).
  DefineWithInt32HostKernel("_Arg", "T", DeviceMovable(), {"output"});
  Define(Gpu("_Arg")
             .TypeConstraint("T", {DT_STRING, DT_RESOURCE})
             .HostMemory("output"));
  DefineWithInt32HostKernel("_Retval", "T", DeviceMovable(), {"input"});
  Define(Gpu("_Retval")
             .TypeConstraint("T", {DT_STRING, DT_RESOURCE})
             .HostMemory("input"));
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
