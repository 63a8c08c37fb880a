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
#include "runtime/gpu/gpu_device.h"

namespace dflow {
namespace {

absl::StatusOr<RingElementType> ElementType(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return RingElementType::kFloat;
    case DT_DOUBLE:
      return RingElementType::kDouble;
    case DT_INT32:
      return RingElementType::kInt32;
    case DT_INT64:
      return RingElementType::kInt64;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("the GPU collectives take float, double, int32 and "
                       "int64 tensors, not ",
                       DataTypeName(dtype)));
  }
}

// The GpuDevice behind `device`, or why it is not one.
absl::StatusOr<const GpuDevice*> AsGpuDevice(const Device* device,
                                             const std::string& name) {
  const auto* gpu = dynamic_cast<const GpuDevice*>(device);
  if (gpu == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        name,
        device == nullptr ? " submitted no device object"
                          : " is not a CUDA GPU device",
        ": a member with kernel device type GPU computes in a GpuDevice's "
        "memory (a fake GPU runs CPU kernels and submits as CPU)"));
  }
  return gpu;
}

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
    absl::StatusOr<GpuCollectiveSpec> spec = SpecOf(*members);
    if (!spec.ok()) return finish(spec.status());
    std::vector<GpuCollectiveMember> gpu_members;
    for (CollectiveRequest& r : *members) {
      absl::StatusOr<const GpuDevice*> gpu =
          AsGpuDevice(r.device_object, r.device);
      if (!gpu.ok()) return finish(gpu.status());
      GpuCollectiveMember m;
      m.device = r.device;
      m.physical_ordinal = (*gpu)->physical_ordinal();
      m.streams = (*gpu)->streams();
      if (r.kind != CollectiveKind::kBroadcastRecv)
        m.input = r.input.raw_data();
      if (r.kind != CollectiveKind::kBroadcastSend) {
        m.output = r.output.raw_data();
      }
      gpu_members.push_back(std::move(m));
    }
    RunGpuCollective(*spec, std::move(gpu_members), std::move(finish));
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

 private:
  static absl::StatusOr<GpuCollectiveSpec> SpecOf(
      const std::vector<CollectiveRequest>& members) {
    const CollectiveRequest& first = members[0];
    GpuCollectiveSpec spec;
    const Tensor& payload = first.kind == CollectiveKind::kBroadcastRecv
                                ? first.output
                                : first.input;
    absl::StatusOr<RingElementType> type = ElementType(payload.dtype());
    if (!type.ok()) return type.status();
    spec.type = *type;
    spec.count = payload.NumElements();
    spec.label = absl::StrCat(CollectiveKindName(first.kind), " of ",
                              members.size(), " GPU members");
    switch (first.kind) {
      case CollectiveKind::kAllReduce:
        spec.op = GpuCollectiveOp::kAllReduce;
        spec.combine = first.reduction == Reduction::kMax ? RingCombine::kMax
                                                          : RingCombine::kSum;
        spec.mean = first.reduction == Reduction::kMean;
        break;
      case CollectiveKind::kAllGather:
        spec.op = GpuCollectiveOp::kAllGather;
        break;
      case CollectiveKind::kBroadcastSend:
      case CollectiveKind::kBroadcastRecv:
        spec.op = GpuCollectiveOp::kBroadcast;
        for (size_t i = 0; i < members.size(); ++i) {
          if (members[i].kind == CollectiveKind::kBroadcastSend) {
            spec.source = static_cast<int>(i);
          }
        }
        break;
    }
    return spec;
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
