#include "distributed/worker_channels.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpcpp/grpcpp.h"

namespace dflow {

WorkerChannels::WorkerChannels(ClusterSpec cluster)
    : cluster_(std::move(cluster)) {}

absl::StatusOr<WorkerChannels::Task*> WorkerChannels::TaskFor(
    const std::string& task_name) {
  auto it = tasks_.find(task_name);
  if (it != tasks_.end()) return &it->second;
  std::vector<std::string> names;
  for (const ClusterTask& task : cluster_.Tasks()) {
    if (task.Name() != task_name) {
      names.push_back(task.Name());
      continue;
    }
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(kMaxMessageBytes);
    args.SetMaxSendMessageSize(kMaxMessageBytes);
    Task made;
    made.channel = grpc::CreateCustomChannel(
        task.address, grpc::InsecureChannelCredentials(), args);
    made.stub = WorkerService::NewStub(made.channel);
    made.generic = std::make_unique<grpc::GenericStub>(made.channel);
    return &tasks_.emplace(task_name, std::move(made)).first->second;
  }
  return absl::NotFoundError(absl::StrCat("the cluster has no task ", task_name,
                                          "; it has ",
                                          absl::StrJoin(names, ", ")));
}

absl::StatusOr<WorkerService::Stub*> WorkerChannels::StubFor(
    const std::string& task_name) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<Task*> task = TaskFor(task_name);
  if (!task.ok()) return task.status();
  return (*task)->stub.get();
}

absl::StatusOr<grpc::GenericStub*> WorkerChannels::GenericStubFor(
    const std::string& task_name) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<Task*> task = TaskFor(task_name);
  if (!task.ok()) return task.status();
  return (*task)->generic.get();
}

}  // namespace dflow
