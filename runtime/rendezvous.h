// The meeting point of a step's transfers: where a _Send leaves a tensor
// under a key and the matching _Recv, in another partition, picks it up.
//
// One Rendezvous serves one step of a partitioned run signature (the
// session makes a fresh one per step, so keys need no step id). Keys are
// compiler/partition.h's RendezvousKey(send_device, recv_device,
// tensor_name): each names one transfer, sent once and received once.
//
// Recv is asynchronous: RecvAsync registers a callback that runs when the
// value arrives (or at once, on the calling thread, when it is already
// there), so a partition waiting for a value holds no thread. The value is
// handed over as the same Tensor, sharing its buffer: every device of this
// process sits in host memory, so a CPU-to-CPU transfer costs no copy. (The
// GPU issue adds device copies behind Send/Recv for devices with memories
// of their own.)
//
// A transfer may carry a dead tensor (runtime/executor.h): the _Send of a
// dead input sends no value but the is_dead flag, and its _Recv's outputs
// are dead in the receiving partition.
//
// StartAbort ends the step's transfers: every pending and later Recv fails
// with the abort status, later Sends are dropped, and the values waiting
// to be received are freed. The executor calls it on a partition's first
// error and the session on cancellation or timeout, so no partition waits
// for a value that will never come. The first abort status is kept: it is
// the step's root cause (what the session returns).
#ifndef DFLOW_RUNTIME_RENDEZVOUS_H_
#define DFLOW_RUNTIME_RENDEZVOUS_H_

#include <atomic>
#include <functional>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"

namespace dflow {

// The key of a transfer made inside a loop (compiler/partition.h): `key`
// (RendezvousKey's) plus the frame instance and iteration the node runs in
// (OpKernelContext::frame, iteration), built in `*scratch`, so each
// iteration's value meets its own receiver. In the root frame (empty
// `frame`) it is `key` itself, uncopied: most transfers pay nothing.
const std::string& FrameRendezvousKey(const std::string& key,
                                      absl::string_view frame,
                                      int64_t iteration, std::string* scratch);

class Rendezvous {
 public:
  // Called once with the value, or with the abort status (the tensor then
  // empty).
  using DoneCallback =
      std::function<void(const absl::Status& status, const Tensor& value)>;
  // The same with the sender's deadness (the tensor then empty).
  using DeadAwareCallback = std::function<void(
      const absl::Status& status, const Tensor& value, bool is_dead)>;

  // Called once, with the first abort status, when the rendezvous is
  // aborted (after its pending receivers ran): lets the session stop
  // waiting for a step as soon as any partition fails.
  using AbortCallback = std::function<void(const absl::Status& status)>;

  explicit Rendezvous(AbortCallback on_abort = nullptr)
      : on_abort_(std::move(on_abort)) {}
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;
  // Pending receivers are called with a Cancelled error (on_abort is not:
  // its owner is going away).
  virtual ~Rendezvous();

  // Leaves `value` under `key` and wakes its receiver if one waits (on
  // this thread, before Send returns). A key sent twice is
  // FailedPrecondition naming the key; after an abort, the abort status.
  absl::Status Send(const std::string& key, const Tensor& value,
                    bool is_dead = false);

  // Calls `done` with the value sent under `key`: at once if it is here,
  // else from the Send. A key received twice fails the second receiver
  // (FailedPrecondition naming the key); after an abort, `done` gets the
  // abort status at once. Virtual for receivers in other processes
  // (distributed/remote_rendezvous.h fetches a key whose sender is another
  // task's device from that task).
  virtual void RecvAsync(const std::string& key, DeadAwareCallback done);
  // For receivers that never see dead values: a dead one arrives as an
  // empty tensor.
  void RecvAsync(const std::string& key, DoneCallback done);

  // Fails every pending and later Recv (and later Send) with `status`,
  // which must be an error. Idempotent: the first status wins.
  void StartAbort(const absl::Status& status);

  // True once StartAbort ran: cheap, for executors checking between nodes.
  bool aborted() const { return aborted_.load(std::memory_order_acquire); }
  // The first abort status, OK if none. (Statuses handed out are fresh
  // copies of it: code and message, no payloads.)
  absl::Status status() const;

 private:
  enum class State : uint8_t {
    kSent,      // value waiting for its receiver
    kWaiting,   // receiver waiting for its value
    kReceived,  // both sides met (kept to detect a second Send or Recv)
  };
  struct Item {
    State state;
    Tensor value;            // kSent
    bool is_dead = false;    // kSent
    DeadAwareCallback done;  // kWaiting
  };

  AbortCallback on_abort_;  // run by the StartAbort that aborts
  // std::mutex, not absl::Mutex: see runtime/variables.h.
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, Item> items_;  // mu_
  absl::Status status_;                           // mu_
  std::atomic<bool> aborted_{false};
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_RENDEZVOUS_H_
