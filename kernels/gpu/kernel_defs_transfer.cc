// GPU kernel definitions: the transfers partitioning adds (_Send, _Recv;
// TensorFlow's sendrecv_ops.cc). Like TensorFlow's, they move a tensor of
// any type. Which side of a GPU transfer sits in host memory (int32 and
// other host values, the copy between host and device) is the GPU backend's
// to declare with its implementations.
#include "compiler/partition.h"
#include "kernels/gpu/kernel_defs_util.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

const bool kRegistered = [] {
  Define(Gpu(kSendOp));
  Define(Gpu(kRecvOp));
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
