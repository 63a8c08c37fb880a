// Batcher: cuts an in-memory dataset (images and labels whose dimension 0
// indexes the examples) into fixed-size training batches, shuffled and
// prepared ahead of time by a background thread so a training loop's Next()
// normally returns at once instead of copying rows between steps.
//
// Order. Each epoch visits a permutation of the examples: with `shuffle`, a
// fresh one per epoch, drawn from `seed` and the epoch number only, so the
// same seed gives the same batches on every run and every platform (the
// shuffle is written out rather than std::shuffle, whose algorithm the
// standard leaves to the library). Without `shuffle`, every epoch is
// 0, 1, ..., N-1.
//
// The remainder is dropped: an epoch is floor(N / batch_size) full batches,
// and the N % batch_size examples left at the end of that epoch's
// permutation are skipped (they differ from epoch to epoch when shuffling).
// Every batch thus has the same shape, which a compiled graph with a fixed
// batch dimension needs.
//
// Prefetching. A background thread keeps up to `prefetch` batches ready in
// a bounded queue, each copied into fresh Tensors (a batch's tensors are the
// caller's to keep; they share nothing with the dataset or other batches).
// stats() tells whether the consumer ever had to wait. The Batcher reads the
// dataset tensors from that thread: do not write them while it lives.
//
// Thread safety: Next(), Cancel() and stats() may be called from any
// threads. The destructor cancels, wakes any Next() blocked in another
// thread (it returns Cancelled), waits for such calls to leave, and joins
// the thread; it never waits for a consumer to take batches. (No call may
// start once destruction has begun, as for any object.)
#ifndef DFLOW_DATA_BATCHER_H_
#define DFLOW_DATA_BATCHER_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/tensor.h"

namespace dflow {

struct BatcherOptions {
  int batch_size = 0;  // 1..N
  uint64_t seed = 0;
  // Batches prepared ahead by the background thread. 0: no thread; Next()
  // prepares each batch itself (every call then counts as a wait).
  int prefetch = 2;
  bool shuffle = true;
  // Epochs to produce; after them Next() returns OutOfRange. 0: no end.
  int64_t num_epochs = 0;
};

// One batch: `images` and `labels` are rows of the dataset tensors, with
// dimension 0 equal to the batch size and the other dimensions as in the
// dataset.
struct Batch {
  Tensor images;
  Tensor labels;
  int64_t epoch = 0;           // from 0
  int64_t index_in_epoch = 0;  // 0 .. batches_per_epoch() - 1
};

struct BatcherStats {
  int64_t batches_returned = 0;  // Next() calls that returned a batch
  // Next() calls that found no batch ready and waited for one to be made
  // (the first call usually does: the thread has only just started).
  int64_t waits = 0;
  int64_t wait_nanos = 0;  // total time those calls waited
  int64_t queued = 0;      // batches ready now
};

class Batcher {
 public:
  // Errors: uninitialized or rank-0 tensors, string tensors, images and
  // labels with different dimension 0, batch_size outside 1..N, negative
  // prefetch or num_epochs.
  static absl::StatusOr<std::unique_ptr<Batcher>> Create(
      Tensor images, Tensor labels, const BatcherOptions& options);

  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;
  ~Batcher();

  // The next batch in order; blocks only if none is ready yet. OutOfRange
  // after num_epochs epochs, Cancelled after Cancel(), and the error if a
  // batch could not be made (out of memory); errors repeat on later calls.
  absl::StatusOr<Batch> Next();

  // Stops producing batches and makes every pending and later Next() return
  // Cancelled. Idempotent.
  void Cancel();

  int64_t batches_per_epoch() const { return batches_per_epoch_; }
  int64_t num_examples() const { return num_examples_; }
  BatcherStats stats() const;

 private:
  Batcher(Tensor images, Tensor labels, const BatcherOptions& options);

  // The background thread: fills the queue until cancelled or finished.
  void Produce();
  // Makes the batch after the previous one. Touches only the producer
  // state below, so it runs without mu_ (called by the thread, or by Next()
  // under mu_ when there is no thread).
  absl::StatusOr<Batch> MakeBatch();
  void ShuffleForEpoch(int64_t epoch);
  // Copies the rows `order_[first .. first + batch_size)` of `source`.
  absl::StatusOr<Tensor> GatherRows(const Tensor& source, int64_t first) const;

  // Immutable after construction.
  const Tensor images_;
  const Tensor labels_;
  const BatcherOptions options_;
  const int64_t num_examples_;
  const int64_t batches_per_epoch_;

  // Producer state.
  std::vector<int64_t> order_;  // this epoch's permutation
  int64_t epoch_ = 0;
  int64_t index_in_epoch_ = 0;

  // std::mutex rather than absl::Mutex: the system Abseil is not built for
  // ThreadSanitizer, which would then not see these locks.
  mutable std::mutex mu_;
  // Consumers wait here for a batch; the destructor waits here for them to
  // leave.
  std::condition_variable ready_cv_;
  std::condition_variable space_cv_;  // the producer waits here for room
  // Ready batches; an error is the last entry and stays (the producer has
  // stopped).
  std::deque<absl::StatusOr<Batch>> queue_;
  bool cancelled_ = false;
  int consumers_waiting_ = 0;
  BatcherStats stats_;

  std::thread thread_;  // last: started once everything above exists
};

}  // namespace dflow

#endif  // DFLOW_DATA_BATCHER_H_
