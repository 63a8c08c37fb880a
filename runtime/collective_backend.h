// Who runs a complete collective group: the pluggable part of the
// CollectiveExecutor (collective_executor.h).
//
// The executor meets the members, checks that they agree and ranks them; a
// backend then does the arithmetic and the data movement. Which backend is
// decided by where the members' tensors live, i.e. by the kernel device type
// of the kernels that submitted them (CollectiveRequest::kernel_device_type):
//   - "" or "CPU": host memory; the executor's own CPU ring
//     (collective_ring.h) runs the group. Fake GPUs run the CPU kernels, so
//     they ring too.
//   - any other type ("GPU"): device memory; the backend registered for that
//     type runs it. The GPU one (NCCL, or a device-memory ring for virtual
//     GPUs sharing a physical GPU) lives in runtime/gpu/ and registers itself
//     from an alwayslink target, since //runtime cannot depend on
//     runtime/gpu. A member whose type has no backend in the binary fails at
//     submit, naming what to link.
// Backends are registered once per process (static initializers or test
// setup) and never removed.
#ifndef DFLOW_RUNTIME_COLLECTIVE_BACKEND_H_
#define DFLOW_RUNTIME_COLLECTIVE_BACKEND_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/collective_executor.h"
#include "runtime/device.h"
#include "runtime/thread_pool.h"

namespace dflow {

class CollectiveBackend {
 public:
  virtual ~CollectiveBackend() = default;

  // For messages: "GPU (NCCL or device ring)".
  virtual std::string Name() const = 0;

  // Runs one complete group. `members` are in rank order and agree on the
  // op, reduction, group size, dtype and shape; a broadcast has exactly one
  // sender. A backend must not block a thread waiting for a device: it
  // enqueues the work and calls `done` exactly once, on any thread, when
  // every output is written, or with what failed (the executor prefixes the
  // instance). `members` (their tensors) stay valid until then; `pool` (may
  // be null) is the executor's, for callbacks that should not run on a
  // device's completion thread.
  virtual void Run(std::vector<CollectiveRequest>* members, ThreadPool* pool,
                   std::function<void(const absl::Status&)> done) = 0;

  // How this backend would run a group on `devices` (rank order), for the
  // placement summary: e.g. "nccl over physical GPUs 0, 1" or
  // "device_ring: GPU:0, GPU:1 share physical GPU 0".
  virtual std::string DescribeGroup(
      const std::vector<const Device*>& devices) const = 0;
};

// Whether `kernel_device_type` means host memory: "" or "CPU".
bool IsHostCollectiveType(absl::string_view kernel_device_type);

// Makes `backend` run the groups of members with `kernel_device_type`.
// InvalidArgument for a host type, AlreadyExists when the type has one.
absl::Status RegisterCollectiveBackend(
    const std::string& kernel_device_type,
    std::unique_ptr<CollectiveBackend> backend);

// The backend registered for `kernel_device_type`, or null (always null
// for a host type: the executor's ring runs those).
CollectiveBackend* FindCollectiveBackend(absl::string_view kernel_device_type);

// One line saying how a group on `devices` (rank order) runs, for the
// placement summary: "ring over host memory" when every device runs the CPU
// kernels (fake GPUs included), the backend's DescribeGroup when all run
// one device type's kernels, or why it cannot run (mixed types, no backend
// linked).
std::string DescribeCollectiveGroup(const std::vector<const Device*>& devices);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_COLLECTIVE_BACKEND_H_
