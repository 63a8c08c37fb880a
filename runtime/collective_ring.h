// The arithmetic of the CPU collectives: ring all-reduce, all-gather and
// broadcast over buffers in host memory, one per member (rank).
//
// A ring all-reduce of N members splits the tensor into N chunks. In the
// reduce-scatter phase chunk c starts at rank c and travels once around the
// ring, each rank combining what it received with its own chunk, so chunk c
// is complete at rank c-1: ((x_c op x_c+1) op ...) op x_c+N-1 (ranks mod N).
// The all-gather phase then copies every complete chunk to every other rank.
// With all buffers in one address space, a hop of the ring is a read of the
// neighbour's buffer, and a chunk's passage around the ring is a chain of
// dependent steps independent of every other chunk's; RingWork therefore
// computes each chunk (in blocks) straight into its final rank's output in
// exactly the ring's order and then copies it to the others. The results are
// bit for bit those of a ring exchanging messages, fixed by the ranks and the
// element count alone: never by timing, arrival order or how many threads
// run the blocks.
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
  RingWork(Kind kind, RingBuffers buffers) : kind_(kind), b_(std::move(buffers)) {}
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
