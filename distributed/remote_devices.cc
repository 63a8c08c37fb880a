#include "distributed/remote_devices.h"

#include <chrono>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "distributed/grpc_logging.h"
#include "grpcpp/grpcpp.h"
#include "proto/worker_service.grpc.pb.h"

namespace dflow {
namespace {

// One outstanding GetStatus.
struct StatusCall {
  ClusterTask task;
  std::unique_ptr<WorkerService::Stub> stub;
  grpc::ClientContext context;
  GetStatusResponse response;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<GetStatusResponse>> rpc;
};

absl::Status TaskError(const StatusCall& call, const ClusterSpec& cluster,
                       absl::Duration timeout) {
  const std::string serve = absl::StrCat(
      "; is `dflow worker --cluster ", cluster.ToString(), " --job ",
      call.task.job, " --task ", call.task.task, "` running there?");
  if (call.status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return absl::DeadlineExceededError(absl::StrCat(
        "task ", call.task.Name(), " at ", call.task.address,
        " did not answer within ", absl::FormatDuration(timeout), serve));
  }
  return absl::UnavailableError(absl::StrCat(
      "task ", call.task.Name(), " at ", call.task.address,
      " cannot be reached (", call.status.error_message(), ")", serve));
}

}  // namespace

absl::StatusOr<std::vector<DeviceAttributesProto>> DiscoverClusterDevices(
    const ClusterSpec& cluster, absl::Duration timeout) {
  QuietGrpcLogsUnlessAsked();
  const std::vector<ClusterTask> tasks = cluster.Tasks();
  const auto deadline =
      std::chrono::system_clock::now() + absl::ToChronoMicroseconds(timeout);
  grpc::CompletionQueue queue;
  std::vector<std::unique_ptr<StatusCall>> calls;
  for (const ClusterTask& task : tasks) {
    auto call = std::make_unique<StatusCall>();
    call->task = task;
    call->stub = WorkerService::NewStub(
        grpc::CreateChannel(task.address, grpc::InsecureChannelCredentials()));
    call->context.set_deadline(deadline);
    // A task still starting up is waited for, until the deadline.
    call->context.set_wait_for_ready(true);
    call->rpc =
        call->stub->AsyncGetStatus(&call->context, GetStatusRequest(), &queue);
    call->rpc->Finish(&call->response, &call->status,
                      reinterpret_cast<void*>(calls.size()));
    calls.push_back(std::move(call));
  }
  for (size_t done = 0; done < calls.size(); ++done) {
    void* tag = nullptr;
    bool ok = false;
    if (!queue.Next(&tag, &ok)) break;
  }
  queue.Shutdown();
  std::vector<DeviceAttributesProto> devices;
  for (const auto& call : calls) {
    if (!call->status.ok()) return TaskError(*call, cluster, timeout);
    const std::string prefix = absl::StrCat(call->task.Name(), "/device:");
    for (const DeviceAttributesProto& d : call->response.device_attributes()) {
      if (!absl::StartsWith(d.name(), prefix)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "the server at ", call->task.address, " reports device ", d.name(),
            ", but the cluster says it serves ", call->task.Name(),
            "; start it with this cluster spec, job and task"));
      }
      devices.push_back(d);
    }
  }
  return devices;
}

absl::StatusOr<ClusterTask> TargetTask(const ClusterSpec& cluster,
                                       const std::string& target) {
  std::string address = target;
  if (absl::StartsWith(address, "grpc://")) address = address.substr(7);
  const std::vector<ClusterTask> tasks = cluster.Tasks();
  if (tasks.empty()) return absl::InvalidArgumentError("the cluster is empty");
  if (address.empty()) return tasks.front();
  for (const ClusterTask& t : tasks) {
    if (t.address == address) return t;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("the target ", target, " is not an address of the cluster ",
                   cluster.ToString()));
}

absl::StatusOr<std::vector<PlacementDevice>> ClusterPlacementDevices(
    const std::vector<DeviceAttributesProto>& found,
    const ClusterTask& target) {
  const std::string prefix = absl::StrCat(target.Name(), "/");
  std::vector<PlacementDevice> devices;
  for (const DeviceAttributesProto& d : found) {
    absl::StatusOr<PlacementDevice> device =
        PlacementDevice::FromName(d.name());
    if (!device.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the cluster reported a device named '", d.name(),
                       "': ", device.status().message()));
    }
    device->priority = 2 * DefaultDeviceTypePriority(device->type()) +
                       (absl::StartsWith(d.name(), prefix) ? 1 : 0);
    devices.push_back(*std::move(device));
  }
  if (devices.empty()) {
    return absl::InvalidArgumentError(
        "the cluster's tasks reported no devices");
  }
  return devices;
}

}  // namespace dflow
