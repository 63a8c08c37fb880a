#include "distributed/remote_rendezvous.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "distributed/grpc_status.h"
#include "distributed/tensor_wire.h"
#include "grpcpp/grpcpp.h"

namespace dflow {

RemoteRendezvous::RemoteRendezvous(std::string local_task, int64_t step_id,
                                   WorkerChannels* channels)
    : Rendezvous([this](const absl::Status&) { CancelCalls(); }),
      local_task_(std::move(local_task)),
      step_id_(step_id),
      channels_(channels) {}

void RemoteRendezvous::RecvAsync(const std::string& key,
                                 DeadAwareCallback done) {
  // The key starts with the sending device's name (compiler/partition.h).
  const std::string sender = TaskOfDevice(key.substr(0, key.find(';')));
  if (sender.empty() || sender == local_task_) {
    Rendezvous::RecvAsync(key, std::move(done));
    return;
  }
  if (aborted()) {
    done(status(), Tensor(), false);
    return;
  }
  absl::StatusOr<grpc::GenericStub*> stub = channels_->GenericStubFor(sender);
  if (!stub.ok()) {
    done(stub.status(), Tensor(), false);
    return;
  }
  // Lives until the call's callback ran. The response is read by
  // DecodeRecvTensorResponse: the tensor's bytes go from gRPC's buffers
  // into the tensor, one copy (distributed/tensor_wire.h).
  struct Call {
    grpc::ClientContext context;
    grpc::ByteBuffer request;
    grpc::ByteBuffer response;
  };
  auto call = std::make_shared<Call>();
  RecvTensorRequest request;
  request.set_step_id(step_id_);
  request.set_rendezvous_key(key);
  bool own = false;
  (void)grpc::SerializationTraits<RecvTensorRequest>::Serialize(
      request, &call->request, &own);
  if (deadline_ != absl::InfiniteFuture()) {
    call->context.set_deadline(absl::ToChronoTime(deadline_));
  }
  {
    std::lock_guard<std::mutex> lock(calls_mu_);
    if (aborted()) {  // CancelCalls may have run already
      done(status(), Tensor(), false);
      return;
    }
    calls_.emplace(&call->context,
                   std::shared_ptr<grpc::ClientContext>(call, &call->context));
  }
  (*stub)->UnaryCall(
      &call->context, "/dflow.WorkerService/RecvTensor", grpc::StubOptions(),
      &call->request, &call->response,
      [this, call, sender, key, done = std::move(done)](grpc::Status s) {
        {
          std::lock_guard<std::mutex> lock(calls_mu_);
          calls_.erase(&call->context);
        }
        if (!s.ok()) {
          remote_failed_.store(true, std::memory_order_release);
          done(FromGrpcStatus(s, absl::StrCat("receiving '", key, "' from ",
                                              sender, ": ")),
               Tensor(), false);
          return;
        }
        Tensor value;
        bool dead = false;
        absl::Status decoded =
            DecodeRecvTensorResponse(&call->response, &value, &dead);
        if (!decoded.ok()) {
          done(absl::DataLossError(
                   absl::StrCat("the value of '", key, "' from ", sender,
                                " is not a valid tensor: ", decoded.message())),
               Tensor(), false);
          return;
        }
        done(absl::OkStatus(), value, dead);
      });
}

void RemoteRendezvous::CancelCalls() {
  std::vector<std::shared_ptr<grpc::ClientContext>> calls;
  {
    std::lock_guard<std::mutex> lock(calls_mu_);
    for (const auto& [context, alive] : calls_) calls.push_back(alive);
  }
  // Outside the lock: a cancelled call's callback may run on this thread.
  for (const std::shared_ptr<grpc::ClientContext>& context : calls) {
    context->TryCancel();
  }
}

}  // namespace dflow
