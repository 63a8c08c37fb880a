// How many CUDA GPUs the machine has, asked at run time.
//
// dflow binaries have no link-time CUDA dependency: this loads the CUDA
// driver (libcuda.so.1), or failing that the CUDA runtime (libcudart), with
// dlopen and asks it. A machine without the library, without a driver or
// without a GPU has zero GPUs; that is an answer, not an error.
#ifndef DFLOW_RUNTIME_CUDA_DEVICE_COUNT_H_
#define DFLOW_RUNTIME_CUDA_DEVICE_COUNT_H_

#include <string>

namespace dflow {

// The number of CUDA devices visible to this process (CUDA_VISIBLE_DEVICES
// applies); 0 when CUDA is unavailable. Asked once, then cached.
int CountCudaDevices();

// The GPUs a session sees when physical GPU 0 is split into `virtual_gpus`
// logical ones (SessionOptions::gpu_virtual_devices; 0 or 1: no split): the
// other physical GPUs follow whole. 0 without GPUs.
int CountGpusWithVirtualSplit(int virtual_gpus);

// Why the last answer was what it was, for logs: "libcuda.so.1: 2 devices",
// "no CUDA driver or runtime library found", "cuInit failed with error 100".
std::string CudaDiscoveryNote();

}  // namespace dflow

#endif  // DFLOW_RUNTIME_CUDA_DEVICE_COUNT_H_
