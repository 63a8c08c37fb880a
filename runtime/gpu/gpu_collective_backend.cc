// The GPU collective backend: registers itself for kernel device type "GPU"
// with the CollectiveExecutor (runtime/collective_backend.h) when this file
// is linked (the target is alwayslink), and turns a complete group of
// CollectiveRequests from GPU kernels into a RunGpuCollective call
// (gpu_collective.h): NCCL when the members are on distinct physical GPUs,
// the device-memory ring when virtual GPUs share one.
//
// A GPU kernel submitting a member sets kernel_device_type "GPU" and
// device_object to its GpuDevice (whose physical GPU and streams the
// collective uses); its tensors are in that device's memory.
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/collective_backend.h"
#include "runtime/collective_executor.h"
#include "runtime/gpu/gpu_collective.h"
#include "runtime/gpu/gpu_collective_requests.h"

namespace dflow {
namespace {

class GpuCollectiveBackend : public CollectiveBackend {
 public:
  std::string Name() const override { return "GPU (NCCL or device ring)"; }

  void Run(std::vector<CollectiveRequest>* members, ThreadPool* pool,
           std::function<void(const absl::Status&)> done) override {
    // Called on a GPU completion thread: hop to the pool so the members'
    // successors do not run there.
    auto finish = [pool, done = std::move(done)](absl::Status s) {
      if (pool == nullptr) return done(s);
      pool->Schedule([done, s = std::move(s)] { done(s); });
    };
    absl::StatusOr<GpuCollectiveSpec> spec = GpuCollectiveSpecOf(*members);
    if (!spec.ok()) return finish(spec.status());
    absl::StatusOr<std::vector<GpuCollectiveMember>> gpu_members =
        GpuCollectiveMembersOf(members);
    if (!gpu_members.ok()) return finish(gpu_members.status());
    RunGpuCollective(*spec, *std::move(gpu_members), std::move(finish));
  }

  std::string DescribeGroup(
      const std::vector<const Device*>& devices) const override {
    std::vector<GpuCollectiveMember> members;
    for (const Device* d : devices) {
      absl::StatusOr<const GpuDevice*> gpu =
          AsGpuDevice(d, d == nullptr ? "a member" : d->name());
      if (!gpu.ok()) {
        return absl::StrCat("cannot run: ", gpu.status().message());
      }
      GpuCollectiveMember m;
      m.device = d->name();
      m.physical_ordinal = (*gpu)->physical_ordinal();
      members.push_back(std::move(m));
    }
    return DescribeGpuCollectivePath(members);
  }
};

const bool kRegistered = [] {
  absl::Status s = RegisterCollectiveBackend(
      "GPU", std::make_unique<GpuCollectiveBackend>());
  // Only a second copy of this file in one binary fails; the first stays.
  (void)s;
  return true;
}();

}  // namespace
}  // namespace dflow
