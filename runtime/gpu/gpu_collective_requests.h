// A group of CollectiveRequests from GPU kernels as RunGpuCollective's
// arguments (gpu_collective.h): the GPU collective backend (one process)
// and the NCCL engine across processes (cross_process_nccl_gpu.cc) both
// translate with these.
#ifndef DFLOW_RUNTIME_GPU_GPU_COLLECTIVE_REQUESTS_H_
#define DFLOW_RUNTIME_GPU_GPU_COLLECTIVE_REQUESTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/collective_executor.h"
#include "runtime/device.h"
#include "runtime/gpu/gpu_collective.h"
#include "runtime/gpu/gpu_device.h"

namespace dflow {

// The GpuDevice behind `device` (member `name`), or why it is not one.
absl::StatusOr<const GpuDevice*> AsGpuDevice(const Device* device,
                                             const std::string& name);

// The spec of `members` (rank order, agreeing): op, reduction, element
// type and count, a label; a broadcast's source is the index of the
// member that sends (-1 when none of them does).
absl::StatusOr<GpuCollectiveSpec> GpuCollectiveSpecOf(
    const std::vector<CollectiveRequest>& members);

// Each member's GPU, streams and buffers.
absl::StatusOr<std::vector<GpuCollectiveMember>> GpuCollectiveMembersOf(
    std::vector<CollectiveRequest>* members);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_GPU_GPU_COLLECTIVE_REQUESTS_H_
