// The ops kernel_registry_test exempts from "every op TensorFlow runs on a
// GPU has a GPU definition here" (ops_without_gpu_kernels.cc says why for
// each group).
#ifndef DFLOW_TESTS_RUNTIME_OPS_WITHOUT_GPU_KERNELS_H_
#define DFLOW_TESTS_RUNTIME_OPS_WITHOUT_GPU_KERNELS_H_

#include <string>

#include "absl/container/flat_hash_set.h"

namespace dflow {
namespace testing_kernels {

// Ops TensorFlow 2.21 registers on the CPU only: no GPU definition allowed.
const absl::flat_hash_set<std::string>& CpuOnlyOps();
// Ops TensorFlow has GPU kernels for and dflow does not have yet.
const absl::flat_hash_set<std::string>& OpsWithoutGpuKernelYet();

}  // namespace testing_kernels
}  // namespace dflow

#endif  // DFLOW_TESTS_RUNTIME_OPS_WITHOUT_GPU_KERNELS_H_
