#include "runtime/gpu/gpu_collective_requests.h"

#include <utility>

#include "absl/strings/str_cat.h"

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

}  // namespace

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

absl::StatusOr<GpuCollectiveSpec> GpuCollectiveSpecOf(
    const std::vector<CollectiveRequest>& members) {
  const CollectiveRequest& first = members[0];
  GpuCollectiveSpec spec;
  const Tensor& payload =
      first.kind == CollectiveKind::kBroadcastRecv ? first.output : first.input;
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

absl::StatusOr<std::vector<GpuCollectiveMember>> GpuCollectiveMembersOf(
    std::vector<CollectiveRequest>* members) {
  std::vector<GpuCollectiveMember> gpu_members;
  for (CollectiveRequest& r : *members) {
    absl::StatusOr<const GpuDevice*> gpu =
        AsGpuDevice(r.device_object, r.device);
    if (!gpu.ok()) return gpu.status();
    GpuCollectiveMember m;
    m.device = r.device;
    m.physical_ordinal = (*gpu)->physical_ordinal();
    m.streams = (*gpu)->streams();
    if (r.kind != CollectiveKind::kBroadcastRecv) m.input = r.input.raw_data();
    if (r.kind != CollectiveKind::kBroadcastSend) {
      m.output = r.output.raw_data();
    }
    gpu_members.push_back(std::move(m));
  }
  return gpu_members;
}

}  // namespace dflow
