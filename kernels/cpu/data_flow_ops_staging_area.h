// The buffer behind TensorFlow's StagingArea ops (Stage, Unstage,
// StagePeek, StageSize, StageClear): elements (tuples of tensors) in
// first-in first-out order, bounded by a number of elements (`capacity`)
// and of bytes (`memory_limit`), 0 meaning no bound, as TensorFlow's.
//
// As the queues (data_flow_ops_queue.h), nothing blocks a thread: a put
// that does not fit, a get from an empty area and a peek past its end
// become pending requests that later puts, gets and clears complete
// through their callbacks, in arrival order. A step that gives up on one
// (a timeout) leaves it pending until the area is destroyed with its
// session, which fails it (Cancelled).
#ifndef DFLOW_KERNELS_CPU_DATA_FLOW_OPS_STAGING_AREA_H_
#define DFLOW_KERNELS_CPU_DATA_FLOW_OPS_STAGING_AREA_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/tensor.h"
#include "runtime/variables.h"

namespace dflow {

class StagingArea : public ResourceBase {
 public:
  using Tuple = std::vector<Tensor>;
  using PutDone = std::function<void(const absl::Status&)>;
  using GetDone = std::function<void(const absl::Status&, Tuple)>;

  // `name`: the area's shared_name (or its first op's node), for errors.
  StagingArea(std::string name, int64_t capacity, int64_t memory_limit);
  // Fails every request still pending (Cancelled).
  ~StagingArea() override;

  std::string DebugString() const override;

  // Appends `element` once it fits; InvalidArgument at once when its bytes
  // alone exceed memory_limit (it never would).
  void Put(Tuple element, PutDone done);
  // Removes and hands over the oldest element, once there is one.
  void Get(GetDone done);
  // Hands over the element at `index` (>= 0; 0 is the oldest), left in
  // place, once there are index + 1.
  void Peek(int64_t index, GetDone done);
  int64_t Size();
  // Removes every element (pending puts may then fit).
  void Clear();

 private:
  struct Staged {
    Tuple element;
    int64_t bytes = 0;  // TupleBytes(element), counted once
  };
  struct PendingPut {
    Tuple element;
    int64_t bytes = 0;
    PutDone done;
  };
  struct PendingGet {
    int64_t index = 0;  // for peeks
    bool remove = true;
    GetDone done;
  };
  using Callbacks = std::vector<std::function<void()>>;

  bool Fits(int64_t bytes) const;  // mu_ held
  // Serves pending requests as far as the buffer allows; collects the
  // callbacks of those completed (run after the lock is released).
  void Progress(Callbacks* callbacks);  // mu_ held
  static void Run(Callbacks& callbacks);

  const std::string name_;
  const int64_t capacity_;
  const int64_t memory_limit_;
  std::mutex mu_;
  std::deque<Staged> buffer_;      // mu_
  int64_t bytes_ = 0;              // mu_: of the tuples in buffer_
  std::list<PendingPut> puts_;     // mu_
  std::list<PendingGet> gets_;     // mu_: gets and peeks
};

// The bytes of a tuple's tensors (what memory_limit counts).
int64_t TupleBytes(const StagingArea::Tuple& tuple);

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_DATA_FLOW_OPS_STAGING_AREA_H_
