// The arithmetic of the CPU collectives: all-reduce, all-gather and
// broadcast over buffers in host memory, one per member (rank).
//
// An all-reduce runs the ring algorithm's two phases over N chunks of the
// tensor: reduce-scatter (rank c reduces chunk c), then all-gather (every
// reduced chunk is copied to every other rank). On a network a ring moves
// each chunk hop by hop, so chunk c is combined in the rotated order
// x_c, x_c+1, ..., x_c-1. All buffers here share one address space, so the
// owner of a chunk reads it from every rank directly and combines in rank
// order, the same for every element:
//
//   out[i] = (((x_0[i] op x_1[i]) op x_2[i]) ... op x_N-1[i])   (/ N for mean)
//
// That order is fixed by the ranks alone: never by timing, arrival order,
// how the tensor is chunked or how many threads run the blocks. Results are
// bitwise reproducible run to run, and an element's result does not depend
// on where it sits in the tensor, so packing several tensors into one
// buffer (tensor fusion) does not change a bit.
#ifndef DFLOW_RUNTIME_COLLECTIVE_RING_H_
#define DFLOW_RUNTIME_COLLECTIVE_RING_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/types.h"
#include "runtime/thread_pool.h"

namespace dflow {

// The element-wise reductions of CollectiveAllReduce's `reduction` attr.
// kMean is the sum divided by the group size once, at the end (integers
// truncate towards zero). kMax propagates NaN, so its result does not depend
// on where in the order a NaN sits.
enum class Reduction { kSum, kMean, kMax };

// "sum", "mean", "max" -> Reduction; InvalidArgument listing the names.
absl::StatusOr<Reduction> ParseReduction(absl::string_view name);
const char* ReductionName(Reduction r);

// dst = a op b, element-wise (kMean adds: its division is DivideElements,
// once, at the end); `a` may be `dst`. The arithmetic of every host-memory
// collective: the ring here and the cross-process one
// (distributed/gloo_collectives.h).
template <typename T>
void CombineElements(Reduction r, T* dst, const T* a, const T* b, int64_t n) {
  if (r == Reduction::kMax) {
    // NaN wins whichever side it is on (x != x only for NaN).
    for (int64_t i = 0; i < n; ++i) {
      const T x = a[i];
      const T y = b[i];
      dst[i] = (x > y || x != x) ? x : y;
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = a[i] + b[i];
}

// dst /= divisor, element-wise (kMean's last step).
template <typename T>
void DivideElements(T* dst, int64_t n, int64_t divisor) {
  const T d = static_cast<T>(divisor);
  for (int64_t i = 0; i < n; ++i) dst[i] = dst[i] / d;
}

// Whether the CPU ring computes on `dtype` (float, double, int32, int64).
bool IsRingDataType(DataType dtype);

// The first element of chunk `c` (0 <= c <= parts) when `n` elements are
// split into `parts` chunks: the first n % parts chunks hold one element
// more. RingChunkBegin(n, parts, parts) == n.
int64_t RingChunkBegin(int64_t n, int parts, int c);

// The members' buffers, indexed by rank. All hold `num_elements` elements
// of `dtype` per input; an all-gather's outputs hold size() times as many.
// Inputs may share memory with each other, never with an output.
struct RingBuffers {
  DataType dtype = DT_INVALID;
  int64_t num_elements = 0;
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  int size() const { return static_cast<int>(outputs.size()); }
};

// One collective's work as independent tasks, each writing a disjoint part
// of the outputs: run them in any order, on any threads.
class RingWork {
 public:
  // Every output becomes the reduction of all inputs.
  static RingWork AllReduce(Reduction reduction, RingBuffers buffers);
  // Every output becomes the inputs concatenated in rank order.
  static RingWork AllGather(RingBuffers buffers);
  // Every output but the source's becomes the source's input (the source's
  // output and the other inputs are not touched and may be null).
  static RingWork Broadcast(int source, RingBuffers buffers);

  int num_tasks() const { return static_cast<int>(tasks_.size()); }
  void RunTask(int i) const;
  // Bytes the whole collective writes (to decide whether threads pay off).
  int64_t bytes_written() const { return bytes_written_; }
  // Runs every task on the calling thread.
  void RunAll() const;

 private:
  enum class Kind { kAllReduce, kAllGather, kBroadcast };
  // A block of elements [begin, end) of chunk `chunk` (all-reduce), of the
  // input of rank `chunk` (all-gather) or of the source (broadcast).
  struct Task {
    int chunk;
    int64_t begin;
    int64_t end;
  };
  RingWork(Kind kind, RingBuffers buffers)
      : kind_(kind), b_(std::move(buffers)) {}
  // Splits [begin, end) of `chunk` into tasks of about kTaskBytes.
  void AddTasks(int chunk, int64_t begin, int64_t end);

  Kind kind_;
  Reduction reduction_ = Reduction::kSum;
  int source_ = 0;
  RingBuffers b_;
  std::vector<Task> tasks_;
  int64_t bytes_written_ = 0;
};

// Runs every task of `work`, then `done`, without ever blocking a thread:
// small collectives run inline on the caller; larger ones also on up to
// pool->num_threads() - 1 workers, each taking the next task until none is
// left, and `done` runs on whichever thread finished last. `pool` may be
// null (all inline).
void RunRingWork(std::shared_ptr<const RingWork> work, ThreadPool* pool,
                 std::function<void()> done);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_COLLECTIVE_RING_H_
