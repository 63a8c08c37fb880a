// GPU kernel definitions: the transfers partitioning adds (_Send, _Recv;
// TensorFlow's sendrecv_ops.cc) and its copies between host and device
// memory on one GPU (_HostToDevice, _DeviceToHost; compiler/partition.h).
// Like TensorFlow's, they move a tensor of any type.
//
// _Send and _Recv declare device memory on both ends: a value a GPU kernel
// keeps in host memory that crosses devices is staged by the GPU transfer
// implementation itself. The copies declare the side that is in host
// memory, which is what makes them copies. The CUDA implementations (a
// cudaMemcpyAsync on the device's stream) come with the GPU backend; until
// then a GPU build has the definitions only, and fake GPUs run the CPU
// kernels (kernels/cpu/transfer_ops.cc), which forward the buffer.
#include "compiler/partition.h"
#include "kernels/gpu/kernel_defs_util.h"

namespace dflow {
namespace gpu_kernel_defs {
namespace {

const bool kRegistered = [] {
  Define(Gpu(kSendOp));
  Define(Gpu(kRecvOp));
  Define(Gpu(kHostToDeviceOp).HostMemory("input"));
  Define(Gpu(kDeviceToHostOp).HostMemory("output"));
  return true;
}();

}  // namespace
}  // namespace gpu_kernel_defs
}  // namespace dflow
