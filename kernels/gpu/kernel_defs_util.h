// Helpers for the GPU kernel definitions (kernel_defs_*.cc).
//
// The definitions mirror TensorFlow's GPU kernel registrations for the ops
// dflow declares: the same dtypes (TensorFlow's TF_CALL_GPU_* type lists)
// and the same host-memory arguments. TensorFlow's int32 kernels on GPU are
// mostly host kernels (every argument in host memory); they are declared
// the same way here, so the placer keeps int32 shape arithmetic on the CPU.
#ifndef DFLOW_KERNELS_GPU_KERNEL_DEFS_UTIL_H_
#define DFLOW_KERNELS_GPU_KERNEL_DEFS_UTIL_H_

#include <initializer_list>
#include <string>
#include <vector>

#include "graph/types.h"
#include "runtime/kernel_registry.h"

namespace dflow {
namespace gpu_kernel_defs {

using Types = std::vector<DataType>;

// TF_CALL_GPU_NUMBER_TYPES.
inline Types GpuFloat() { return {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}; }
inline Types Complex() { return {DT_COMPLEX64, DT_COMPLEX128}; }
// Integer types computed on the device (int32 is not: see above).
inline Types DeviceInts() {
  return {DT_INT8,   DT_INT16,  DT_INT64, DT_UINT8,
          DT_UINT16, DT_UINT32, DT_UINT64};
}

inline Types Concat(std::initializer_list<Types> lists) {
  Types out;
  for (const Types& l : lists) out.insert(out.end(), l.begin(), l.end());
  return out;
}

// TF_CALL_GPU_ALL_TYPES: float types, complex, bool.
inline Types GpuAll() { return Concat({GpuFloat(), Complex(), {DT_BOOL}}); }
// Every dtype a data-movement kernel moves on the device (all but int32,
// string and resource, which stay on the host).
inline Types DeviceMovable() { return Concat({GpuAll(), DeviceInts()}); }

// What the GPU Cast converts between (kernels/gpu/cast_ops_gpu.h): bool
// and the real numeric types; a complex Cast runs on the CPU.
inline Types GpuCastable() {
  return Concat({GpuFloat(), DeviceInts(), {DT_INT32, DT_BOOL}});
}

// A GPU definition of `op`.
inline KernelDefBuilder Gpu(std::string op) {
  KernelDefBuilder b(std::move(op));
  b.Device(kDeviceGpu);
  return b;
}

inline void Define(const KernelDefBuilder& b) {
  KernelRegistry::Global()->Register(b.def(), nullptr);
}

// `op` on the device for `types`, plus TensorFlow's int32 host kernel with
// every argument in `int32_host_args` in host memory.
inline void DefineWithInt32HostKernel(
    const std::string& op, const std::string& attr, const Types& types,
    const std::vector<std::string>& int32_host_args) {
  Define(Gpu(op).TypeConstraint(attr, types));
  KernelDefBuilder host = Gpu(op);
  host.TypeConstraint(attr, {DT_INT32});
  for (const std::string& arg : int32_host_args) host.HostMemory(arg);
  Define(host);
}

}  // namespace gpu_kernel_defs
}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_KERNEL_DEFS_UTIL_H_
