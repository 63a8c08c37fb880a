// A deliberately slow kernel for stream-ordering tests: it spins on the GPU
// for a given time, then fills a buffer. Work ordered after it must see the
// fill; work that is not would see what was there before.
#ifndef DFLOW_TESTS_RUNTIME_GPU_SLOW_KERNEL_H_
#define DFLOW_TESTS_RUNTIME_GPU_SLOW_KERNEL_H_

#include <cstdint>

#include "absl/status/status.h"

namespace dflow {

// Enqueues on `stream` (a cudaStream_t): wait `spin_ns` nanoseconds of GPU
// time, then write `value` to dst[0..count). Defined only where CUDA is.
absl::Status LaunchSpinThenFill(float* dst, int64_t count, float value,
                                int64_t spin_ns, void* stream);

}  // namespace dflow

#endif  // DFLOW_TESTS_RUNTIME_GPU_SLOW_KERNEL_H_
