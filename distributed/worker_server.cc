#include "distributed/worker_server.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "distributed/grpc_logging.h"
#include "distributed/grpc_status.h"
#include "distributed/step_stats_wire.h"
#include "distributed/tensor_wire.h"
#include "distributed/worker_state.h"
#include "grpcpp/grpcpp.h"
#include "proto/worker_service.grpc.pb.h"
#include "runtime/device.h"

namespace dflow {

// RecvTensor's call: answered once, by the value's arrival or by the
// caller's cancellation, whichever comes first. The rendezvous callback may
// run after the call is done, so what it needs lives in a shared part.
class RecvReactor final : public grpc::ServerUnaryReactor {
 public:
  struct Shared {
    std::mutex mu;
    RecvReactor* reactor = nullptr;  // mu; null once done
    grpc::ByteBuffer* response = nullptr;
    bool answered = false;  // mu
  };

  explicit RecvReactor(grpc::ByteBuffer* response)
      : shared_(std::make_shared<Shared>()) {
    shared_->reactor = this;
    shared_->response = response;
  }

  const std::shared_ptr<Shared>& shared() const { return shared_; }

  void Answer(const absl::Status& status, const Tensor& value, bool dead) {
    AnswerShared(shared_, status, value, dead);
  }

  static void AnswerShared(const std::shared_ptr<Shared>& shared,
                           const absl::Status& status, const Tensor& value,
                           bool dead) {
    std::lock_guard<std::mutex> lock(shared->mu);
    if (shared->answered || shared->reactor == nullptr) return;
    shared->answered = true;
    if (!status.ok()) {
      shared->reactor->Finish(ToGrpcStatus(status));
      return;
    }
    EncodeRecvTensorResponse(value, dead, shared->response);
    shared->reactor->Finish(grpc::Status::OK);
  }

  void OnCancel() override {
    std::lock_guard<std::mutex> lock(shared_->mu);
    if (shared_->answered) return;
    shared_->answered = true;
    Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the receiver gave up"));
  }

  void OnDone() override {
    {
      std::lock_guard<std::mutex> lock(shared_->mu);
      shared_->reactor = nullptr;
    }
    delete this;
  }

 private:
  std::shared_ptr<Shared> shared_;
};

// The gRPC face of WorkerState. Synchronous handlers but RecvTensor's:
// gRPC gives each call a thread of its pool, so a RunGraph waiting for its
// step holds one thread and no other call waits for it.
class WorkerServer::Service final
    : public WorkerService::WithRawCallbackMethod_RecvTensor<
          WorkerService::Service> {
 public:
  Service(const std::vector<DeviceAttributesProto>* devices, WorkerState* state)
      : devices_(devices), state_(state) {}

  grpc::Status GetStatus(grpc::ServerContext*, const GetStatusRequest*,
                         GetStatusResponse* response) override {
    for (const DeviceAttributesProto& d : *devices_) {
      *response->add_device_attributes() = d;
    }
    return grpc::Status::OK;
  }

  grpc::Status RegisterGraph(grpc::ServerContext*,
                             const RegisterGraphRequest* request,
                             RegisterGraphResponse* response) override {
    std::vector<GraphDef> partitions(request->partitions().begin(),
                                     request->partitions().end());
    absl::StatusOr<WorkerState::Registered> registered = state_->RegisterGraph(
        partitions, request->optimize(),
        std::vector<std::string>(request->protected_nodes().begin(),
                                 request->protected_nodes().end()));
    if (!registered.ok()) return ToGrpcStatus(registered.status());
    response->set_graph_handle(registered->handle);
    for (const std::string& line : registered->pass_summaries) {
      response->add_pass_summaries(line);
    }
    return grpc::Status::OK;
  }

  grpc::Status RunGraph(grpc::ServerContext* context,
                        const RunGraphRequest* request,
                        RunGraphResponse* response) override {
    state_->ForgetSteps(
        std::vector<int64_t>(request->finished_step_ids().begin(),
                             request->finished_step_ids().end()));
    std::vector<Tensor> feeds;
    for (const TensorProto& proto : request->feeds()) {
      absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
      if (!t.ok()) {
        return ToGrpcStatus(absl::InvalidArgumentError(
            absl::StrCat("feed ", feeds.size(),
                         " is not a valid tensor: ", t.status().message())));
      }
      feeds.push_back(*std::move(t));
    }
    if (request->num_fetches() < 0) {
      return ToGrpcStatus(
          absl::InvalidArgumentError("RunGraph: num_fetches < 0"));
    }
    const absl::Time deadline =
        request->timeout_ms() > 0
            ? absl::Now() + absl::Milliseconds(request->timeout_ms())
            : absl::InfiniteFuture();
    bool relayed = false;
    std::vector<NodeExecStats> stats;
    absl::Time started;
    absl::StatusOr<std::vector<Tensor>> fetches = state_->RunGraph(
        request->graph_handle(), request->step_id(), std::move(feeds),
        request->num_fetches(), deadline,
        [context] { return context->IsCancelled(); }, &relayed,
        request->collect_step_stats() ? &stats : nullptr, &started);
    if (!fetches.ok()) {
      const grpc::Status status = ToGrpcStatus(fetches.status());
      // Tells the master the error started on another task.
      return relayed ? grpc::Status(status.error_code(), status.error_message(),
                                    kRelayedError)
                     : status;
    }
    for (const Tensor& t : *fetches) t.ToProto(response->add_fetches());
    for (const NodeExecStats& node : stats) {
      NodeStatsToProto(node, response->add_step_stats());
    }
    response->set_step_start_unix_us(absl::ToUnixMicros(started));
    return grpc::Status::OK;
  }

  // A raw callback method: the response is written by EncodeRecvTensor
  // Response (distributed/tensor_wire.h) without copying the tensor, and
  // no thread waits while the value is not there yet.
  grpc::ServerUnaryReactor* RecvTensor(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request_bytes,
                                       grpc::ByteBuffer* response) override {
    auto* reactor = new RecvReactor(response);
    RecvTensorRequest request;
    grpc::ByteBuffer bytes(*request_bytes);  // shares the slices
    if (!grpc::SerializationTraits<RecvTensorRequest>::Deserialize(&bytes,
                                                                   &request)
             .ok()) {
      reactor->Answer(
          absl::InvalidArgumentError("RecvTensor: the request does not parse"),
          Tensor(), false);
      return reactor;
    }
    (void)context;
    // The value may come later (this task may not have reached its _Send
    // yet): the reactor answers when it does, or when the caller gives up.
    state_->RecvTensor(
        request.step_id(), request.rendezvous_key(),
        [shared = reactor->shared()](const absl::Status& status,
                                     const Tensor& value, bool dead) {
          RecvReactor::AnswerShared(shared, status, value, dead);
        });
    return reactor;
  }

  grpc::Status StoreSet(grpc::ServerContext*, const StoreSetRequest* request,
                        StoreSetResponse*) override {
    state_->collective_store()->Set(request->key(), request->value());
    return grpc::Status::OK;
  }

  grpc::Status StoreGet(grpc::ServerContext* context,
                        const StoreGetRequest* request,
                        StoreGetResponse* response) override {
    // At most 10 minutes: a caller must not hold a server thread forever.
    const absl::Time deadline =
        absl::Now() + absl::Milliseconds(std::clamp<int64_t>(
                          request->timeout_ms(), 0, 10 * 60 * 1000));
    absl::StatusOr<std::vector<std::string>> values =
        state_->collective_store()->Get(
            std::vector<std::string>(request->keys().begin(),
                                     request->keys().end()),
            deadline, [context] { return context->IsCancelled(); });
    if (!values.ok()) return ToGrpcStatus(values.status());
    for (std::string& v : *values) response->add_values(std::move(v));
    return grpc::Status::OK;
  }

  grpc::Status CleanupGraph(grpc::ServerContext*,
                            const CleanupGraphRequest* request,
                            CleanupGraphResponse*) override {
    return ToGrpcStatus(state_->CleanupGraph(request->graph_handle()));
  }

 private:
  const std::vector<DeviceAttributesProto>* devices_;
  WorkerState* state_;
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
  if (device_options->num_fake_gpus > 0) {
    return absl::InvalidArgumentError(
        "worker devices: a cluster's tasks have CPU devices only for now "
        "(the host-memory stand-in GPUs are a single-process test device)");
  }
  device_options->job = task->job;
  device_options->task = task->task;
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
    DeviceAttributesProto attributes;
    attributes.set_name(device->name());
    attributes.set_device_type(device->type());
    attributes.set_memory_limit(device->attributes().memory_limit);
    attributes.mutable_locality()->set_bus_id(
        device->attributes().locality.bus_id);
    attributes.mutable_locality()->set_numa_node(
        device->attributes().locality.numa_node);
    attributes.set_incarnation(incarnation);
    attributes.set_physical_device_desc(
        device->attributes().physical_device_desc);
    server->attributes_.push_back(std::move(attributes));
  }
  server->state_ = std::make_unique<WorkerState>(
      server->task_name_, options.cluster, *std::move(local));
  server->service_ =
      std::make_unique<Service>(&server->attributes_, server->state_.get());

  const std::string listen =
      absl::StrCat(options.bind_host, ":", host_port->second);
  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT by default, which lets a second server bind a
  // port already in use and take half its connections: a clash must fail.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxMessageBytes);
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
