#include "runtime/rendezvous.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace dflow {

const std::string& FrameRendezvousKey(const std::string& key,
                                      absl::string_view frame,
                                      int64_t iteration, std::string* scratch) {
  if (frame.empty()) return key;
  *scratch = absl::StrCat(key, ";", frame, ";", iteration);
  return *scratch;
}

namespace {

// A copy of `s` that shares nothing with it. The abort status is handed to
// threads of partitions that may still run after the caller returned; a
// plain copy would share its reference-counted message with them, and the
// system Abseil's uninstrumented release of it then reads as a data race
// to ThreadSanitizer (see runtime/variables.h on why the runtime uses
// std::mutex).
absl::Status Unshared(const absl::Status& s) {
  return absl::Status(s.code(), s.message());
}

}  // namespace

Rendezvous::~Rendezvous() {
  on_abort_ = nullptr;
  StartAbort(absl::CancelledError(
      "the step's rendezvous was destroyed before the value was sent"));
}

absl::Status Rendezvous::Send(const std::string& key, const Tensor& value,
                              bool is_dead) {
  DeadAwareCallback done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!status_.ok()) return Unshared(status_);
    auto [it, inserted] = items_.try_emplace(key);
    Item& item = it->second;
    if (inserted) {
      item.state = State::kSent;
      item.value = value;  // shares the buffer
      item.is_dead = is_dead;
      return absl::OkStatus();
    }
    if (item.state != State::kWaiting) {
      return absl::FailedPreconditionError(absl::StrCat(
          "rendezvous key '", key,
          "' was sent twice in one step; each transfer has a key of its own "
          "(a partitioning bug)"));
    }
    done = std::move(item.done);
    item.done = nullptr;
    item.state = State::kReceived;
  }
  // Outside the lock: the receiver goes on computing on this thread.
  done(absl::OkStatus(), value, is_dead);
  return absl::OkStatus();
}

void Rendezvous::RecvAsync(const std::string& key, DoneCallback done) {
  RecvAsync(key, [done = std::move(done)](const absl::Status& status,
                                          const Tensor& value,
                                          bool) { done(status, value); });
}

void Rendezvous::RecvAsync(const std::string& key, DeadAwareCallback done) {
  Tensor value;
  bool is_dead = false;
  absl::Status status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!status_.ok()) {
      status = Unshared(status_);
    } else {
      auto [it, inserted] = items_.try_emplace(key);
      Item& item = it->second;
      if (inserted) {
        item.state = State::kWaiting;
        item.done = std::move(done);
        return;
      }
      if (item.state == State::kSent) {
        value = std::move(item.value);
        is_dead = item.is_dead;
        item.value = Tensor();
        item.state = State::kReceived;
      } else {
        status = absl::FailedPreconditionError(absl::StrCat(
            "rendezvous key '", key,
            "' was received twice in one step; each transfer has one "
            "receiver (a partitioning bug)"));
      }
    }
  }
  done(status, value, is_dead);
}

void Rendezvous::StartAbort(const absl::Status& status) {
  std::vector<DeadAwareCallback> waiters;
  absl::Status first;
  bool aborts = false;  // this call is the one that aborts
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (status_.ok()) {
      aborts = true;
      status_ = status.ok() ? absl::InternalError(
                                  "the step's rendezvous was aborted with "
                                  "an OK status")
                            : Unshared(status);
      aborted_.store(true, std::memory_order_release);
    }
    // Values nobody will receive are freed now, not with the step.
    for (auto& [key, item] : items_) {
      if (item.state == State::kWaiting) {
        waiters.push_back(std::move(item.done));
        item.done = nullptr;
      }
      item.value = Tensor();
      item.state = State::kReceived;
    }
    if (waiters.empty() && !aborts) return;
    first = Unshared(status_);
  }
  // Each receiver gets a status of its own (see Unshared).
  for (DeadAwareCallback& done : waiters) {
    done(Unshared(first), Tensor(), false);
  }
  if (aborts && on_abort_) on_abort_(first);
}

absl::Status Rendezvous::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Unshared(status_);
}

}  // namespace dflow
