#include "runtime/gpu/gpu_math_mode.h"

#include <atomic>

namespace dflow {

namespace {
// Read on every matmul launch: a relaxed atomic, no lock.
std::atomic<bool> tensor_float_32_allowed{false};
}  // namespace

void SetGpuTensorFloat32Allowed(bool allowed) {
  tensor_float_32_allowed.store(allowed, std::memory_order_relaxed);
}

bool GpuTensorFloat32Allowed() {
  return tensor_float_32_allowed.load(std::memory_order_relaxed);
}

}  // namespace dflow
