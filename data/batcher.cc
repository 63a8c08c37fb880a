#include "data/batcher.h"

#include <chrono>
#include <cstring>
#include <numeric>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {
namespace {

// SplitMix64's finalizer: spreads (seed, epoch) over the generator's seed
// space, so neighbouring seeds or epochs give unrelated permutations.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A uniform draw from [0, bound) by rejection: unbiased, and unlike
// std::uniform_int_distribution the same on every standard library (the
// mt19937_64 sequence itself is fixed by the standard).
uint64_t UniformBelow(std::mt19937_64& rng, uint64_t bound) {
  // 2^64 mod bound: the low values that would make some results likelier.
  const uint64_t threshold = (0 - bound) % bound;
  while (true) {
    const uint64_t r = rng();
    if (r >= threshold) return r % bound;
  }
}

absl::Status CheckDataset(const char* what, const Tensor& tensor) {
  if (!tensor.IsInitialized() || tensor.shape().rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Batcher: ", what, " tensor is ",
        tensor.IsInitialized() ? "a scalar" : "uninitialized",
        "; pass a tensor whose dimension 0 indexes the examples"));
  }
  if (tensor.dtype() == DT_STRING) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Batcher: ", what, " tensor holds strings; batch numeric tensors "
        "(decode the strings first)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Batcher>> Batcher::Create(
    Tensor images, Tensor labels, const BatcherOptions& options) {
  if (absl::Status s = CheckDataset("images", images); !s.ok()) return s;
  if (absl::Status s = CheckDataset("labels", labels); !s.ok()) return s;
  const int64_t n = images.shape().dim(0);
  if (labels.shape().dim(0) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Batcher: images hold ", n, " examples (shape ",
        images.shape().ToString(), ") but labels hold ",
        labels.shape().dim(0), " (shape ", labels.shape().ToString(),
        "); dimension 0 of both must count the same examples"));
  }
  if (options.batch_size < 1 || options.batch_size > n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Batcher: batch_size ", options.batch_size, " is not in 1..", n,
        " (the number of examples)",
        n == 0 ? "; the dataset is empty" : ""));
  }
  if (options.prefetch < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Batcher: prefetch ", options.prefetch,
        " is negative; pass the number of batches to prepare ahead (0: "
        "none, no background thread)"));
  }
  if (options.num_epochs < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Batcher: num_epochs ", options.num_epochs,
                     " is negative; pass 0 for no end"));
  }
  std::unique_ptr<Batcher> batcher(
      new Batcher(std::move(images), std::move(labels), options));
  if (options.prefetch > 0) {
    batcher->thread_ = std::thread([b = batcher.get()] { b->Produce(); });
  }
  return batcher;
}

Batcher::Batcher(Tensor images, Tensor labels, const BatcherOptions& options)
    : images_(std::move(images)),
      labels_(std::move(labels)),
      options_(options),
      num_examples_(images_.shape().dim(0)),
      batches_per_epoch_(num_examples_ / options.batch_size),
      order_(num_examples_) {
  std::iota(order_.begin(), order_.end(), int64_t{0});
}

Batcher::~Batcher() {
  Cancel();
  {
    // A Next() blocked in another thread has been woken by Cancel(); let it
    // leave before the members it uses go away.
    std::unique_lock<std::mutex> lock(mu_);
    ready_cv_.wait(lock, [this] { return consumers_waiting_ == 0; });
  }
  if (thread_.joinable()) thread_.join();
}

void Batcher::Cancel() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
  }
  ready_cv_.notify_all();
  space_cv_.notify_all();
}

BatcherStats Batcher::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  BatcherStats stats = stats_;
  stats.queued = 0;
  for (const absl::StatusOr<Batch>& entry : queue_) {
    if (entry.ok()) ++stats.queued;
  }
  return stats;
}

absl::StatusOr<Batch> Batcher::Next() {
  std::unique_lock<std::mutex> lock(mu_);
  if (cancelled_) return absl::CancelledError("Batcher: cancelled");
  if (options_.prefetch == 0) {
    // No prefetching: make the batch here, under the lock, so concurrent
    // callers still take batches in order.
    if (!queue_.empty()) return queue_.front().status();  // an earlier error
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<Batch> batch = MakeBatch();
    ++stats_.waits;
    stats_.wait_nanos += std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now() - start)
                             .count();
    if (!batch.ok()) {
      queue_.push_back(batch.status());  // repeat the error from now on
      return batch;
    }
    ++stats_.batches_returned;
    return batch;
  }
  if (queue_.empty()) {
    const auto start = std::chrono::steady_clock::now();
    ++consumers_waiting_;
    ready_cv_.wait(lock, [this] { return cancelled_ || !queue_.empty(); });
    --consumers_waiting_;
    ++stats_.waits;
    stats_.wait_nanos += std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now() - start)
                             .count();
    if (cancelled_) {
      // The destructor may be waiting for this call to leave. Notify while
      // still holding the lock: once it is released the Batcher may be gone.
      ready_cv_.notify_all();
      return absl::CancelledError("Batcher: cancelled while waiting");
    }
  }
  if (!queue_.front().ok()) return queue_.front().status();
  Batch batch = *std::move(queue_.front());
  queue_.pop_front();
  ++stats_.batches_returned;
  // Under the lock: once it is released, nothing here may touch the Batcher
  // (a destructor in another thread may be about to run).
  space_cv_.notify_one();
  return batch;
}

void Batcher::Produce() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      space_cv_.wait(lock, [this] {
        return cancelled_ ||
               queue_.size() < static_cast<size_t>(options_.prefetch);
      });
      if (cancelled_) return;
    }
    // The copying happens here, without the lock: Next() keeps taking
    // ready batches meanwhile.
    absl::StatusOr<Batch> batch = MakeBatch();
    const bool last = !batch.ok();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cancelled_) return;
      queue_.push_back(std::move(batch));
    }
    if (last) {
      // Every waiting consumer gets the error, not just one.
      ready_cv_.notify_all();
      return;
    }
    ready_cv_.notify_one();
  }
}

absl::StatusOr<Batch> Batcher::MakeBatch() {
  if (index_in_epoch_ == 0) {
    if (options_.num_epochs > 0 && epoch_ >= options_.num_epochs) {
      return absl::OutOfRangeError(absl::StrCat(
          "Batcher: end of data after ", options_.num_epochs, " epochs of ",
          batches_per_epoch_, " batches"));
    }
    if (options_.shuffle) ShuffleForEpoch(epoch_);
  }
  const int64_t first = index_in_epoch_ * options_.batch_size;
  Batch batch;
  absl::StatusOr<Tensor> images = GatherRows(images_, first);
  if (!images.ok()) return images.status();
  absl::StatusOr<Tensor> labels = GatherRows(labels_, first);
  if (!labels.ok()) return labels.status();
  batch.images = *std::move(images);
  batch.labels = *std::move(labels);
  batch.epoch = epoch_;
  batch.index_in_epoch = index_in_epoch_;
  if (++index_in_epoch_ == batches_per_epoch_) {
    index_in_epoch_ = 0;
    ++epoch_;
  }
  return batch;
}

void Batcher::ShuffleForEpoch(int64_t epoch) {
  // Every epoch starts from the identity, so its permutation depends on
  // (seed, epoch) alone, not on the epochs before it.
  std::iota(order_.begin(), order_.end(), int64_t{0});
  std::mt19937_64 rng(Mix(options_.seed ^ Mix(static_cast<uint64_t>(epoch))));
  // Fisher-Yates.
  for (int64_t i = num_examples_ - 1; i > 0; --i) {
    const int64_t j = static_cast<int64_t>(
        UniformBelow(rng, static_cast<uint64_t>(i) + 1));
    std::swap(order_[i], order_[j]);
  }
}

absl::StatusOr<Tensor> Batcher::GatherRows(const Tensor& source,
                                           int64_t first) const {
  TensorShape shape = source.shape();
  shape.set_dim(0, options_.batch_size);
  absl::StatusOr<Tensor> out =
      Tensor::Allocate(DefaultCpuAllocator(), source.dtype(), shape);
  if (!out.ok()) {
    return absl::Status(out.status().code(),
                        absl::StrCat("Batcher: cannot allocate a batch: ",
                                     out.status().message()));
  }
  const size_t row_bytes = source.TotalBytes() / num_examples_;
  if (row_bytes == 0) return out;  // rows with no elements
  const char* src = static_cast<const char*>(source.raw_data());
  char* dst = static_cast<char*>(out->raw_data());
  for (int64_t i = 0; i < options_.batch_size; ++i) {
    std::memcpy(dst + i * row_bytes, src + order_[first + i] * row_bytes,
                row_bytes);
  }
  return out;
}

}  // namespace dflow
