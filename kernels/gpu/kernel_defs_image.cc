// GPU kernel definitions of the image ops and the ops tf.image's
// augmentations need beyond the others (TensorFlow's reverse_op.cc,
// adjust_contrast_op.cc, resize_bilinear_op.cc, random_op.cc).
#include "kernels/gpu/kernel_defs_util.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

const bool kRegistered = [] {
  // ReverseV2: the axes are read on the host; int32 tensors stay there.
  Define(Gpu("ReverseV2")
             .TypeConstraint("T", DeviceMovable())
             .TypeConstraint("Tidx", {DT_INT32, DT_INT64})
             .HostMemory("axis"));
  Define(Gpu("ReverseV2")
             .TypeConstraint("T", {DT_INT32})
             .TypeConstraint("Tidx", {DT_INT32, DT_INT64})
             .HostMemory("tensor")
             .HostMemory("axis")
             .HostMemory("output"));
  Define(Gpu("AdjustContrastv2").TypeConstraint("T", {DT_HALF, DT_FLOAT}));
  Define(
      Gpu("ResizeBilinear").TypeConstraint("T", GpuFloat()).HostMemory("size"));
  Define(Gpu("ResizeBilinearGrad").TypeConstraint("T", GpuFloat()));
  // The bounds and shape are read on the host.
  Define(Gpu("RandomUniformInt")
             .TypeConstraint("Tout", {DT_INT32, DT_INT64})
             .TypeConstraint("T", {DT_INT32, DT_INT64})
             .HostMemory("shape")
             .HostMemory("minval")
             .HostMemory("maxval"));
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
