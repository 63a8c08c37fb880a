// The queues behind FIFOQueueV2, RandomShuffleQueueV2 and
// PaddingFIFOQueueV2: elements (tuples of tensors) in a bounded buffer,
// with TensorFlow's semantics.
//
// Nothing blocks a thread. An enqueue that finds the queue full, and a
// dequeue that finds too few elements, become pending requests that later
// enqueues, dequeues or Close complete through their callbacks (the kernels
// are AsyncOpKernels). Why: input pipelines run enqueue ops from
// queue-runner threads while training steps dequeue, all on dflow's small
// shared pool; a dequeue that held a pool thread while it waited could hold
// every thread and starve the enqueue that would wake it.
//
// Requests complete in arrival order. A DequeueMany takes elements as they
// arrive (n in all); when the queue is closed with too few, it fails with
// OutOfRange and gives back what it took (DequeueUpTo returns what it has,
// if anything). A RandomShuffleQueue keeps min_after_dequeue elements until
// it is closed, and takes each element at a uniformly random position
// (seeded by seed/seed2 when either is set, so a run repeats).
#ifndef DFLOW_KERNELS_CPU_DATA_FLOW_OPS_QUEUE_H_
#define DFLOW_KERNELS_CPU_DATA_FLOW_OPS_QUEUE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "runtime/variables.h"

namespace dflow {

class Queue : public ResourceBase {
 public:
  enum class Kind { kFifo, kRandomShuffle, kPaddingFifo };
  struct Options {
    Kind kind = Kind::kFifo;
    std::string name;  // the queue op's node, for errors
    std::vector<DataType> component_types;
    // Empty, or one (possibly partial) shape per component.
    std::vector<TensorShape> shapes;
    int64_t capacity = -1;  // -1: unbounded
    int64_t min_after_dequeue = 0;
    int64_t seed = 0, seed2 = 0;
  };
  using Tuple = std::vector<Tensor>;
  using EnqueueDone = std::function<void(const absl::Status&)>;
  // The components of the dequeued elements: one element's tensors for
  // Dequeue, stacked along a new 0th dimension for DequeueMany.
  using DequeueDone =
      std::function<void(const absl::Status&, std::vector<Tensor>)>;

  explicit Queue(Options options);
  // Fails every request still pending (Cancelled).
  ~Queue() override;

  std::string DebugString() const override;
  const Options& options() const { return options_; }

  // Checks an element's dtypes and shapes against the queue's.
  absl::Status CheckElement(const Tuple& element) const;

  void Enqueue(std::vector<Tuple> elements, EnqueueDone done);
  // n elements (n >= 0); `many`: stacked (DequeueMany/UpTo) rather than one
  // element's tensors (Dequeue); `up_to`: once closed, fewer than n (but at
  // least one) also complete.
  void Dequeue(int64_t n, bool many, bool up_to, DequeueDone done);
  void Close(bool cancel_pending_enqueues);
  int64_t Size();
  bool IsClosed();

 private:
  struct PendingEnqueue {
    std::deque<Tuple> elements;
    EnqueueDone done;
  };
  struct PendingDequeue {
    int64_t n = 0;
    bool many = false, up_to = false;
    std::vector<Tuple> taken;
    DequeueDone done;
  };
  using Callbacks = std::vector<std::function<void()>>;

  // Moves pending enqueues into the buffer and the buffer into pending
  // dequeues as far as the rules allow; collects the callbacks of what
  // completed (run after the lock is released). mu_ held.
  void Progress(Callbacks* callbacks);
  bool CanTake() const;  // mu_ held
  Tuple TakeOne();       // mu_ held
  // The output of a completed dequeue (stacks or pads `taken`).
  absl::Status Finish(PendingDequeue& d, std::vector<Tensor>* out) const;
  static void Run(Callbacks& callbacks);

  const Options options_;
  std::mutex mu_;
  bool closed_ = false;                 // mu_
  std::deque<Tuple> buffer_;            // mu_
  std::list<PendingEnqueue> enqueues_;  // mu_
  std::list<PendingDequeue> dequeues_;  // mu_
  std::mt19937_64 random_;              // mu_
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_DATA_FLOW_OPS_QUEUE_H_
