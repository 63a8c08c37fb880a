#include "runtime/collective_ring.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace dflow {
namespace {

// A task writes about this many bytes per output: big enough that handing
// it to a thread costs little next to it, small enough that a few MB spread
// over every core.
constexpr int64_t kTaskBytes = 256 << 10;
// Within a task, the all-reduce combines and copies this many bytes at a
// time, so the partial result stays in L1 while the other ranks' inputs
// stream past it and while it is copied out.
constexpr int64_t kCacheBytes = 16 << 10;
// Below this many bytes written, the whole collective runs on the caller's
// thread: waking a worker costs more.
constexpr int64_t kParallelBytes = 1 << 20;

// All-reduce of elements [begin, end) of chunk `chunk`: combined in rank
// order into the output of the chunk's owner (rank `chunk`), then copied to
// the other ranks.
template <typename T>
void AllReduceBlock(Reduction r, const RingBuffers& b, int chunk, int64_t begin,
                    int64_t end) {
  const int n = b.size();
  T* out = static_cast<T*>(b.outputs[chunk]);
  auto in = [&](int rank) { return static_cast<const T*>(b.inputs[rank]); };
  constexpr int64_t kStep = std::max<int64_t>(1, kCacheBytes / sizeof(T));
  for (int64_t lo = begin; lo < end; lo += kStep) {
    const int64_t len = std::min(kStep, end - lo);
    T* dst = out + lo;
    if (n == 1) {
      std::memcpy(dst, in(0) + lo, len * sizeof(T));
    } else {
      CombineElements<T>(r, dst, in(0) + lo, in(1) + lo, len);
      for (int k = 2; k < n; ++k)
        CombineElements<T>(r, dst, dst, in(k) + lo, len);
    }
    if (r == Reduction::kMean && n > 1) DivideElements<T>(dst, len, n);
    for (int k = 0; k < n; ++k) {
      if (k == chunk) continue;
      std::memcpy(static_cast<T*>(b.outputs[k]) + lo, dst, len * sizeof(T));
    }
  }
}

size_t ElementSize(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
    case DT_INT32:
      return 4;
    case DT_DOUBLE:
    case DT_INT64:
      return 8;
    default:
      return 0;
  }
}

}  // namespace

absl::StatusOr<Reduction> ParseReduction(absl::string_view name) {
  if (name == "sum") return Reduction::kSum;
  if (name == "mean") return Reduction::kMean;
  if (name == "max") return Reduction::kMax;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown reduction '", name, "'; the reductions are sum, mean and max"));
}

const char* ReductionName(Reduction r) {
  switch (r) {
    case Reduction::kSum:
      return "sum";
    case Reduction::kMean:
      return "mean";
    case Reduction::kMax:
      return "max";
  }
  return "?";
}

bool IsRingDataType(DataType dtype) { return ElementSize(dtype) != 0; }

int64_t RingChunkBegin(int64_t n, int parts, int c) {
  const int64_t base = n / parts;
  const int64_t extra = n % parts;
  return c * base + std::min<int64_t>(c, extra);
}

void RingWork::AddTasks(int chunk, int64_t begin, int64_t end) {
  const int64_t step = std::max<int64_t>(
      1, kTaskBytes / static_cast<int64_t>(ElementSize(b_.dtype)));
  for (int64_t lo = begin; lo < end; lo += step) {
    tasks_.push_back(Task{chunk, lo, std::min(end, lo + step)});
  }
}

RingWork RingWork::AllReduce(Reduction reduction, RingBuffers buffers) {
  RingWork w(Kind::kAllReduce, std::move(buffers));
  w.reduction_ = reduction;
  const int n = w.b_.size();
  for (int c = 0; c < n; ++c) {
    w.AddTasks(c, RingChunkBegin(w.b_.num_elements, n, c),
               RingChunkBegin(w.b_.num_elements, n, c + 1));
  }
  w.bytes_written_ =
      w.b_.num_elements * n * static_cast<int64_t>(ElementSize(w.b_.dtype));
  return w;
}

RingWork RingWork::AllGather(RingBuffers buffers) {
  RingWork w(Kind::kAllGather, std::move(buffers));
  const int n = w.b_.size();
  for (int r = 0; r < n; ++r) w.AddTasks(r, 0, w.b_.num_elements);
  w.bytes_written_ =
      w.b_.num_elements * n * n * static_cast<int64_t>(ElementSize(w.b_.dtype));
  return w;
}

RingWork RingWork::Broadcast(int source, RingBuffers buffers) {
  RingWork w(Kind::kBroadcast, std::move(buffers));
  w.source_ = source;
  w.AddTasks(source, 0, w.b_.num_elements);
  w.bytes_written_ = w.b_.num_elements * (w.b_.size() - 1) *
                     static_cast<int64_t>(ElementSize(w.b_.dtype));
  return w;
}

void RingWork::RunTask(int i) const {
  const Task& t = tasks_[i];
  const size_t elem = ElementSize(b_.dtype);
  const int n = b_.size();
  switch (kind_) {
    case Kind::kAllReduce:
      switch (b_.dtype) {
        case DT_FLOAT:
          return AllReduceBlock<float>(reduction_, b_, t.chunk, t.begin, t.end);
        case DT_DOUBLE:
          return AllReduceBlock<double>(reduction_, b_, t.chunk, t.begin,
                                        t.end);
        case DT_INT32:
          return AllReduceBlock<int32_t>(reduction_, b_, t.chunk, t.begin,
                                         t.end);
        case DT_INT64:
          return AllReduceBlock<int64_t>(reduction_, b_, t.chunk, t.begin,
                                         t.end);
        default:
          return;
      }
    case Kind::kAllGather: {
      // Rank t.chunk's block goes to every output, at the rank's offset.
      const char* src =
          static_cast<const char*>(b_.inputs[t.chunk]) + t.begin * elem;
      const int64_t offset = t.chunk * b_.num_elements + t.begin;
      for (int k = 0; k < n; ++k) {
        std::memcpy(static_cast<char*>(b_.outputs[k]) + offset * elem, src,
                    (t.end - t.begin) * elem);
      }
      return;
    }
    case Kind::kBroadcast: {
      const char* src =
          static_cast<const char*>(b_.inputs[source_]) + t.begin * elem;
      for (int k = 0; k < n; ++k) {
        if (k == source_) continue;
        std::memcpy(static_cast<char*>(b_.outputs[k]) + t.begin * elem, src,
                    (t.end - t.begin) * elem);
      }
      return;
    }
  }
}

void RingWork::RunAll() const {
  for (int i = 0; i < num_tasks(); ++i) RunTask(i);
}

namespace {

// The tasks of one collective being taken by several threads.
struct SharedRun {
  std::shared_ptr<const RingWork> work;
  std::function<void()> done;
  std::atomic<int> next{0};
  std::atomic<int> runners{0};

  // Takes tasks until none is left; the last runner to stop calls done.
  static void Run(const std::shared_ptr<SharedRun>& self) {
    const int total = self->work->num_tasks();
    for (int i = self->next.fetch_add(1); i < total;
         i = self->next.fetch_add(1)) {
      self->work->RunTask(i);
    }
    if (self->runners.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::function<void()> done = std::move(self->done);
      done();
    }
  }
};

}  // namespace

void RunRingWork(std::shared_ptr<const RingWork> work, ThreadPool* pool,
                 std::function<void()> done) {
  const int threads = pool == nullptr ? 1 : pool->num_threads();
  int runners = 1;
  if (threads > 1 && work->bytes_written() >= kParallelBytes) {
    runners = std::min(threads, work->num_tasks());
  }
  if (runners <= 1) {
    work->RunAll();
    done();
    return;
  }
  auto run = std::make_shared<SharedRun>();
  run->work = std::move(work);
  run->done = std::move(done);
  run->runners.store(runners);
  for (int i = 1; i < runners; ++i) {
    pool->Schedule([run] { SharedRun::Run(run); });
  }
  SharedRun::Run(run);
}

}  // namespace dflow
