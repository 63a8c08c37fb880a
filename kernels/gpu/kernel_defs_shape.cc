// GPU kernel definitions: shapes, reshapes, transposes, concat/split, tile,
// pack/unpack, slices and pads, and the shape arithmetic of their gradients
// (StridedSliceGrad, ConcatOffset, InvertPermutation). TensorFlow's
// shape_ops.cc, reshape_op.cc, transpose_op.cc, bcast_ops.cc, concat_op.cc,
// split_op.cc, split_v_op.cc, tile_ops.cc, pack_op.cc, unpack_op.cc,
// slice_op.cc, strided_slice_op.cc and pad_op.cc register them.
//
// Shape-like arguments (Reshape's `shape`, Transpose's `perm`, slice
// bounds, axes) are read by the host and declared in host memory; int32
// tensors are moved by TensorFlow's host kernels.
#include "kernels/gpu/kernel_defs_util.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

// `op` moving dtype attr `attr` on the device with `host_args` on the host,
// and TensorFlow's int32 host kernel with every argument on the host.
void DataMovement(
    const std::string& op, const std::vector<std::string>& host,
    const std::vector<std::string>& all_args,
    const std::vector<std::pair<std::string, Types>>& extra = {}) {
  KernelDefBuilder device = Gpu(op);
  device.TypeConstraint("T", DeviceMovable());
  KernelDefBuilder int32 = Gpu(op);
  int32.TypeConstraint("T", {DT_INT32});
  for (const auto& [attr, types] : extra) {
    device.TypeConstraint(attr, types);
    int32.TypeConstraint(attr, types);
  }
  for (const std::string& arg : host) device.HostMemory(arg);
  for (const std::string& arg : all_args) int32.HostMemory(arg);
  Define(device);
  Define(int32);
}

const bool kRegistered = [] {
  const Types idx = {DT_INT32, DT_INT64};
  DataMovement("Reshape", {"shape"}, {"tensor", "shape", "output"},
               {{"Tshape", idx}});
  DataMovement("ExpandDims", {"dim"}, {"input", "dim", "output"},
               {{"Tdim", idx}});
  DataMovement("Squeeze", {}, {"input", "output"});

  // Shape, Size, Rank: the result is a host value; the input is only
  // looked at (an int32 input stays on the host too).
  for (const char* op : {"Shape", "Size"}) {
    DataMovement(op, {"output"}, {"input", "output"}, {{"out_type", idx}});
  }
  DataMovement("Rank", {"output"}, {"input", "output"});

  // Transpose moves int32 on the device too (one kernel for every type).
  Define(Gpu("Transpose")
             .TypeConstraint("T", Concat({DeviceMovable(), {DT_INT32}}))
             .TypeConstraint("Tperm", idx)
             .HostMemory("perm"));

  Define(Gpu("BroadcastGradientArgs")
             .TypeConstraint("T", idx)
             .HostMemory("s0")
             .HostMemory("s1")
             .HostMemory("r0")
             .HostMemory("r1"));

  DataMovement("ConcatV2", {"axis"}, {"values", "axis", "output"},
               {{"Tidx", idx}});
  Define(Gpu("Split")
             .TypeConstraint("T", DeviceMovable())
             .HostMemory("split_dim"));
  Define(Gpu("SplitV")
             .TypeConstraint("T", DeviceMovable())
             .TypeConstraint("Tlen", {DT_INT8, DT_INT32, DT_INT64})
             .HostMemory("size_splits")
             .HostMemory("split_dim"));
  Define(Gpu("Tile")
             .TypeConstraint("T", Concat({DeviceMovable(), {DT_INT32}}))
             .TypeConstraint("Tmultiples", idx)
             .HostMemory("multiples"));
  DataMovement("Pack", {}, {"values", "output"});
  DataMovement("Unpack", {}, {"value", "output"});
  DataMovement("Slice", {"begin", "size"}, {"input", "begin", "size", "output"},
               {{"Index", idx}});
  DataMovement("StridedSlice", {"begin", "end", "strides"},
               {"input", "begin", "end", "strides", "output"},
               {{"Index", idx}});
  DataMovement("StridedSliceGrad", {"shape", "begin", "end", "strides"},
               {"shape", "begin", "end", "strides", "dy", "output"},
               {{"Index", idx}});
  // Pad: the device kernel covers the GPU types and int8/uint8; int32 is
  // TensorFlow's host kernel.
  Define(Gpu("Pad")
             .TypeConstraint("T", Concat({GpuAll(), {DT_INT8, DT_UINT8}}))
             .TypeConstraint("Tpaddings", idx)
             .HostMemory("paddings"));
  Define(Gpu("Pad")
             .TypeConstraint("T", {DT_INT32})
             .TypeConstraint("Tpaddings", idx)
             .HostMemory("input")
             .HostMemory("paddings")
             .HostMemory("output"));

  // Gradient helpers computing on shapes and permutations: host values.
  Define(Gpu("ConcatOffset")
             .TypeConstraint("shape_type", idx)
             .HostMemory("concat_dim")
             .HostMemory("shape")
             .HostMemory("offset"));
  Define(Gpu("InvertPermutation")
             .TypeConstraint("T", idx)
             .HostMemory("x")
             .HostMemory("y"));
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
