#include "distributed/worker_server.h"

#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "distributed/grpc_logging.h"
#include "grpcpp/grpcpp.h"
#include "proto/worker_service.grpc.pb.h"
#include "runtime/device.h"

namespace dflow {

class WorkerServer::Service final : public WorkerService::Service {
 public:
  explicit Service(const std::vector<DeviceAttributesProto>* devices)
      : devices_(devices) {}

  grpc::Status GetStatus(grpc::ServerContext*, const GetStatusRequest*,
                         GetStatusResponse* response) override {
    for (const DeviceAttributesProto& d : *devices_) {
      *response->add_device_attributes() = d;
    }
    return grpc::Status::OK;
  }

 private:
  const std::vector<DeviceAttributesProto>* devices_;
};

absl::StatusOr<std::unique_ptr<WorkerServer>> WorkerServer::Start(
    const WorkerServerOptions& options) {
  QuietGrpcLogsUnlessAsked();
  absl::StatusOr<ClusterTask> task =
      options.cluster.Task(options.job, options.task);
  if (!task.ok()) return absl::InvalidArgumentError(task.status().message());
  absl::StatusOr<std::pair<std::string, int>> host_port =
      ParseHostPort(task->address);
  if (!host_port.ok()) return host_port.status();
  absl::StatusOr<DeviceSet::Options> device_options =
      DeviceSet::Options::Parse(options.devices);
  if (!device_options.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("worker devices: ", device_options.status().message()));
  }
  absl::StatusOr<std::unique_ptr<DeviceSet>> local =
      DeviceSet::Create(*device_options);
  if (!local.ok()) return local.status();

  auto server = std::unique_ptr<WorkerServer>(new WorkerServer());
  server->task_name_ = task->Name();
  server->address_ = task->address;
  // A new number per start, so a master can tell a restarted task.
  const uint64_t incarnation =
      std::random_device()() * uint64_t{0x100000000} + std::random_device()();
  for (const auto& device : (*local)->devices()) {
    const DeviceSpec& spec = device->spec();
    DeviceAttributesProto attributes;
    attributes.set_name(absl::StrCat(
        server->task_name_, "/device:", *spec.type(), ":", *spec.id()));
    attributes.set_device_type(device->type());
    attributes.set_memory_limit(device->attributes().memory_limit);
    attributes.mutable_locality()->set_bus_id(
        device->attributes().locality.bus_id);
    attributes.mutable_locality()->set_numa_node(
        device->attributes().locality.numa_node);
    attributes.set_incarnation(incarnation);
    attributes.set_physical_device_desc(
        device->attributes().physical_device_desc);
    server->devices_.push_back(std::move(attributes));
  }

  server->service_ = std::make_unique<Service>(&server->devices_);
  const std::string listen =
      absl::StrCat(options.bind_host, ":", host_port->second);
  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default, which lets a second server bind a
  // port already in use and take half its connections: a clash must fail.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  int bound_port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(),
                           &bound_port);
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || bound_port == 0) {
    return absl::UnavailableError(
        absl::StrCat("task ", server->task_name_, " cannot listen on ", listen,
                     ": the port is in use, or ", options.bind_host,
                     " is not an address of this machine"));
  }
  return server;
}

WorkerServer::~WorkerServer() {
  if (server_ != nullptr) server_->Shutdown();
}

void WorkerServer::Wait() { server_->Wait(); }

void WorkerServer::Shutdown() { server_->Shutdown(); }

}  // namespace dflow
