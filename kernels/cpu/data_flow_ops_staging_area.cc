#include "kernels/cpu/data_flow_ops_staging_area.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace dflow {

int64_t TupleBytes(const StagingArea::Tuple& tuple) {
  int64_t bytes = 0;
  for (const Tensor& t : tuple) bytes += static_cast<int64_t>(t.TotalBytes());
  return bytes;
}

StagingArea::StagingArea(std::string name, int64_t capacity,
                         int64_t memory_limit)
    : name_(std::move(name)), capacity_(capacity), memory_limit_(memory_limit) {}

StagingArea::~StagingArea() {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const absl::Status gone = absl::CancelledError(
        absl::StrCat(DebugString(), " was destroyed (its session closed)"));
    for (PendingPut& p : puts_) {
      callbacks.push_back([done = std::move(p.done), gone] { done(gone); });
    }
    for (PendingGet& g : gets_) {
      callbacks.push_back(
          [done = std::move(g.done), gone] { done(gone, Tuple()); });
    }
    puts_.clear();
    gets_.clear();
  }
  Run(callbacks);
}

std::string StagingArea::DebugString() const {
  return absl::StrCat("StagingArea '", name_, "'");
}

bool StagingArea::Fits(int64_t bytes) const {
  if (capacity_ > 0 && static_cast<int64_t>(buffer_.size()) >= capacity_) {
    return false;
  }
  return memory_limit_ <= 0 || bytes_ + bytes <= memory_limit_;
}

void StagingArea::Progress(Callbacks* callbacks) {
  bool moved = true;
  while (moved) {
    moved = false;
    // Gets and peeks in arrival order: a get takes the oldest element, a
    // peek waits for its index without holding back the requests after it.
    for (auto it = gets_.begin(); it != gets_.end();) {
      if (it->remove && !buffer_.empty()) {
        Tuple element = std::move(buffer_.front().element);
        bytes_ -= buffer_.front().bytes;
        buffer_.pop_front();
        callbacks->push_back(
            [done = std::move(it->done), element = std::move(element)] {
              done(absl::OkStatus(), element);
            });
        it = gets_.erase(it);
        moved = true;
      } else if (!it->remove &&
                 it->index < static_cast<int64_t>(buffer_.size())) {
        callbacks->push_back(
            [done = std::move(it->done), element = buffer_[it->index].element] {
              done(absl::OkStatus(), element);
            });
        it = gets_.erase(it);
      } else {
        ++it;
      }
    }
    // Puts in arrival order, each once it fits.
    while (!puts_.empty() && Fits(puts_.front().bytes)) {
      PendingPut& put = puts_.front();
      bytes_ += put.bytes;
      buffer_.push_back(Staged{std::move(put.element), put.bytes});
      callbacks->push_back(
          [done = std::move(put.done)] { done(absl::OkStatus()); });
      puts_.pop_front();
      moved = true;
    }
  }
}

void StagingArea::Run(Callbacks& callbacks) {
  for (auto& callback : callbacks) callback();
}

void StagingArea::Put(Tuple element, PutDone done) {
  const int64_t bytes = TupleBytes(element);
  if (memory_limit_ > 0 && bytes > memory_limit_) {
    done(absl::InvalidArgumentError(absl::StrCat(
        "an element of ", bytes, " bytes can never fit ", DebugString(),
        "'s memory_limit of ", memory_limit_,
        " bytes; raise memory_limit (0: no limit) or stage smaller tensors")));
    return;
  }
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    puts_.push_back(PendingPut{std::move(element), bytes, std::move(done)});
    Progress(&callbacks);
  }
  Run(callbacks);
}

void StagingArea::Get(GetDone done) {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    gets_.push_back(PendingGet{0, true, std::move(done)});
    Progress(&callbacks);
  }
  Run(callbacks);
}

void StagingArea::Peek(int64_t index, GetDone done) {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    gets_.push_back(PendingGet{index, false, std::move(done)});
    Progress(&callbacks);
  }
  Run(callbacks);
}

int64_t StagingArea::Size() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(buffer_.size());
}

void StagingArea::Clear() {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    buffer_.clear();
    bytes_ = 0;
    Progress(&callbacks);
  }
  Run(callbacks);
}

}  // namespace dflow
