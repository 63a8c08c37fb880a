// GPU kernel definitions: gathers, segment sums, stitches, Where, TopKV2,
// InTopKV2, BroadcastTo, ShapeN, PreventGradient, Assert and the stateless
// random ops (TensorFlow 2.21's gather_op.cc, segment_reduction_ops_impl,
// dynamic_stitch_op.cc, where_op.cc, topk_op.cc, in_topk_op.cc,
// broadcast_to_op.cc, shape_ops.cc, logging_ops.cc,
// stateless_random_ops_v2.cc). Unique and StaticRegexFullMatch have CPU
// kernels only, so the placer keeps them on the host.
#include "kernels/gpu/kernel_defs_util.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

const bool kRegistered = [] {
  const Types idx = {DT_INT32, DT_INT64};
  const Types moved = Concat({GpuAll(), {DT_INT64}});

  // The axis is read on the host.
  Define(Gpu("GatherV2")
             .TypeConstraint("Tparams", moved)
             .TypeConstraint("Tindices", idx)
             .TypeConstraint("Taxis", idx)
             .HostMemory("axis"));
  Define(Gpu("Gather")
             .TypeConstraint("Tparams", moved)
             .TypeConstraint("Tindices", idx));

  // num_segments sizes the output: a host value.
  Define(Gpu("UnsortedSegmentSum")
             .TypeConstraint("T", Concat({GpuFloat(), {DT_INT32}}))
             .TypeConstraint("Tindices", idx)
             .TypeConstraint("Tnumsegments", idx)
             .HostMemory("num_segments"));

  // DynamicStitch reads its indices on the host; int32 data stays there.
  Define(Gpu("DynamicStitch")
             .TypeConstraint("T", Concat({GpuAll(), {DT_INT64}}))
             .HostMemory("indices"));
  Define(Gpu("DynamicStitch")
             .TypeConstraint("T", {DT_INT32})
             .HostMemory("indices")
             .HostMemory("data")
             .HostMemory("merged"));

  Define(Gpu("Where").TypeConstraint(
      "T", Concat({GpuFloat(), {DT_BOOL, DT_INT8, DT_UINT8, DT_INT32,
                                DT_INT64}})));

  Define(Gpu("TopKV2")
             .TypeConstraint("T", Concat({GpuFloat(), {DT_INT32, DT_INT64}}))
             .HostMemory("k"));
  Define(Gpu("InTopKV2").TypeConstraint("T", idx).HostMemory("k"));

  // BroadcastTo reads the target shape on the host; int32 entirely there.
  Define(Gpu("BroadcastTo")
             .TypeConstraint("T", DeviceMovable())
             .TypeConstraint("Tidx", idx)
             .HostMemory("shape"));
  Define(Gpu("BroadcastTo")
             .TypeConstraint("T", {DT_INT32})
             .TypeConstraint("Tidx", idx)
             .HostMemory("input")
             .HostMemory("shape")
             .HostMemory("output"));

  // ShapeN: host values, like Shape's; int32 inputs stay on the host.
  Define(Gpu("ShapeN")
             .TypeConstraint("T", DeviceMovable())
             .TypeConstraint("out_type", idx)
             .HostMemory("output"));
  Define(Gpu("ShapeN")
             .TypeConstraint("T", {DT_INT32})
             .TypeConstraint("out_type", idx)
             .HostMemory("input")
             .HostMemory("output"));

  DefineWithInt32HostKernel("PreventGradient", "T", DeviceMovable(),
                            {"input", "output"});

  // Assert summarizes its data on the host.
  Define(Gpu("Assert").HostMemory("condition").HostMemory("data"));

  // Stateless random numbers: seed, key, counter and algorithm are host
  // values; the numbers are generated on the device.
  Define(Gpu("StatelessRandomGetKeyCounter")
             .TypeConstraint("Tseed", idx)
             .HostMemory("seed")
             .HostMemory("key")
             .HostMemory("counter"));
  for (const char* op : {"StatelessRandomUniformV2", "StatelessRandomNormalV2",
                         "StatelessTruncatedNormalV2"}) {
    Define(Gpu(op)
               .TypeConstraint("dtype", GpuFloat())
               .TypeConstraint("Tshape", idx)
               .HostMemory("shape")
               .HostMemory("key")
               .HostMemory("counter")
               .HostMemory("alg"));
  }
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
