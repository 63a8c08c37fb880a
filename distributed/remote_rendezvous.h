// A worker's rendezvous for one step: transfers between this task's own
// devices meet here as in one process (runtime/rendezvous.h); a _Recv whose
// _Send is on another task's device pulls the value from that task with a
// RecvTensor call (the receiver pulls, as TensorFlow's workers do), the
// sender keeping it in its own step's rendezvous until asked. An abort
// cancels the calls still waiting, so the senders (which may never reach
// this step: a restarted task) do not hold them until the deadline.
#ifndef DFLOW_DISTRIBUTED_REMOTE_RENDEZVOUS_H_
#define DFLOW_DISTRIBUTED_REMOTE_RENDEZVOUS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "distributed/worker_channels.h"
#include "grpcpp/grpcpp.h"
#include "runtime/rendezvous.h"

namespace dflow {

class RemoteRendezvous : public Rendezvous {
 public:
  // `local_task` is this task's name ("/job:worker/replica:0/task:1");
  // `channels` outlives the rendezvous.
  RemoteRendezvous(std::string local_task, int64_t step_id,
                   WorkerChannels* channels);

  // The step's deadline, for the RecvTensor calls it makes.
  void set_deadline(absl::Time deadline) { deadline_ = deadline; }

  using Rendezvous::RecvAsync;
  void RecvAsync(const std::string& key, DeadAwareCallback done) override;

  // True once a value from another task failed to arrive: the step's error
  // then started elsewhere (the master reports the task where it did).
  bool remote_receive_failed() const {
    return remote_failed_.load(std::memory_order_acquire);
  }

  // What a RecvTensor call from another task receives: always this task's
  // own value, never forwarded again.
  void LocalRecvAsync(const std::string& key, DeadAwareCallback done) {
    Rendezvous::RecvAsync(key, std::move(done));
  }

 private:
  // The on_abort of the base class: TryCancel on every call in flight.
  void CancelCalls();

  const std::string local_task_;
  const int64_t step_id_;
  WorkerChannels* const channels_;
  absl::Time deadline_ = absl::InfiniteFuture();
  std::atomic<bool> remote_failed_{false};
  std::mutex calls_mu_;
  // The RecvTensor calls in flight, each keeping its call's state alive.
  absl::flat_hash_map<grpc::ClientContext*,
                      std::shared_ptr<grpc::ClientContext>>
      calls_;  // calls_mu_
};

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_REMOTE_RENDEZVOUS_H_
