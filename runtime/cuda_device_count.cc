#include "runtime/cuda_device_count.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace dflow {
namespace {

struct Discovery {
  int count = 0;
  std::string note;
};

// The driver API: present wherever a driver is installed, whatever toolkit
// (if any) is. Handles are never closed: unloading a CUDA library while the
// process runs is not supported by NVIDIA.
bool AskDriver(Discovery* d) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return false;
  using InitFn = int (*)(unsigned int);
  using CountFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
  if (init == nullptr || count == nullptr) {
    d->note = "libcuda.so.1 lacks cuInit/cuDeviceGetCount";
    return true;
  }
  if (int err = init(0); err != 0) {
    d->note = absl::StrCat("libcuda.so.1: cuInit failed with error ", err,
                           " (no usable GPU or driver)");
    return true;
  }
  int n = 0;
  if (int err = count(&n); err != 0 || n < 0) {
    d->note =
        absl::StrCat("libcuda.so.1: cuDeviceGetCount failed with error ", err);
    return true;
  }
  d->count = n;
  d->note = absl::StrCat("libcuda.so.1: ", n, " device(s)");
  return true;
}

bool AskRuntime(Discovery* d) {
  for (const char* name : {"libcudart.so", "libcudart.so.13", "libcudart.so.12",
                           "libcudart.so.11.0"}) {
    void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) continue;
    using CountFn = int (*)(int*);
    auto count = reinterpret_cast<CountFn>(dlsym(lib, "cudaGetDeviceCount"));
    if (count == nullptr) {
      d->note = absl::StrCat(name, " lacks cudaGetDeviceCount");
      return true;
    }
    int n = 0;
    if (int err = count(&n); err != 0 || n < 0) {
      d->note = absl::StrCat(name, ": cudaGetDeviceCount failed with error ",
                             err, " (no usable GPU or driver)");
      return true;
    }
    d->count = n;
    d->note = absl::StrCat(name, ": ", n, " device(s)");
    return true;
  }
  return false;
}

const Discovery& Discover() {
  static const Discovery* discovery = [] {
    auto* d = new Discovery;
    if (!AskDriver(d) && !AskRuntime(d)) {
      d->note = "no CUDA driver or runtime library found";
    }
    return d;
  }();
  return *discovery;
}

}  // namespace

int CountCudaDevices() { return Discover().count; }

std::string CudaDiscoveryNote() { return Discover().note; }

int CountGpusWithVirtualSplit(int virtual_gpus) {
  const int physical = CountCudaDevices();
  return physical > 0 && virtual_gpus > 1 ? physical - 1 + virtual_gpus
                                          : physical;
}

}  // namespace dflow
