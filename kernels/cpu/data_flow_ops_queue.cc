#include "kernels/cpu/data_flow_ops_queue.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/random_ops_philox.h"

namespace dflow {

namespace {

const char* KindName(Queue::Kind kind) {
  switch (kind) {
    case Queue::Kind::kFifo:
      return "FIFOQueue";
    case Queue::Kind::kRandomShuffle:
      return "RandomShuffleQueue";
    case Queue::Kind::kPaddingFifo:
      return "PaddingFIFOQueue";
  }
  return "Queue";
}

uint64_t Seed(int64_t seed, int64_t seed2) {
  if (seed == 0 && seed2 == 0) return NondeterministicSeed();
  return static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ull ^
         static_cast<uint64_t>(seed2);
}

// Copies `element` into `out` (shape [n] + padded) at batch index `index`,
// at the same multi-index (out's trailing dims are >= element's).
template <typename T>
void CopyInto(const Tensor& element, int64_t index, Tensor* out) {
  const T* src = array_kernels::CopyData<T>(element);
  T* dst = array_kernels::CopyData<T>(out);
  const TensorShape& shape = element.shape();
  const int rank = shape.rank();
  int64_t slot = 1;
  for (int d = 1; d <= rank; ++d) slot *= out->shape().dim(d);
  dst += index * slot;
  const int64_t count = element.NumElements();
  bool same = true;
  for (int d = 0; d < rank; ++d)
    same = same && shape.dim(d) == out->shape().dim(d + 1);
  if (same) {
    std::copy_n(src, count, dst);
    return;
  }
  // Row-major multi-index walk: offset in `out` of each source element.
  std::vector<int64_t> at(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d)
      offset = offset * out->shape().dim(d + 1) + at[d];
    dst[offset] = src[i];
    for (int d = rank - 1; d >= 0; --d) {
      if (++at[d] < shape.dim(d)) break;
      at[d] = 0;
    }
  }
}

}  // namespace

Queue::Queue(Options options)
    : options_(std::move(options)),
      random_(Seed(options_.seed, options_.seed2)) {}

Queue::~Queue() {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const absl::Status gone = absl::CancelledError(
        absl::StrCat(DebugString(), " was destroyed (its session closed)"));
    for (PendingEnqueue& e : enqueues_) {
      callbacks.push_back([done = std::move(e.done), gone] { done(gone); });
    }
    for (PendingDequeue& d : dequeues_) {
      callbacks.push_back([done = std::move(d.done), gone] { done(gone, {}); });
    }
    enqueues_.clear();
    dequeues_.clear();
  }
  Run(callbacks);
}

std::string Queue::DebugString() const {
  return absl::StrCat(KindName(options_.kind), " '", options_.name, "'");
}

absl::Status Queue::CheckElement(const Tuple& element) const {
  const size_t n = options_.component_types.size();
  if (element.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        DebugString(), " has ", n, " components, got ", element.size()));
  }
  for (size_t i = 0; i < n; ++i) {
    if (element[i].dtype() != options_.component_types[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat(DebugString(), ": component ", i, " must be ",
                       DataTypeName(options_.component_types[i]), ", got ",
                       DataTypeName(element[i].dtype())));
    }
    if (!options_.shapes.empty() &&
        !options_.shapes[i].IsCompatibleWith(element[i].shape())) {
      return absl::InvalidArgumentError(
          absl::StrCat(DebugString(), ": component ", i, " must have shape ",
                       options_.shapes[i].ToString(), ", got ",
                       element[i].shape().ToString()));
    }
  }
  return absl::OkStatus();
}

void Queue::Enqueue(std::vector<Tuple> elements, EnqueueDone done) {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) {
      callbacks.push_back([done = std::move(done), name = DebugString()] {
        done(absl::CancelledError(absl::StrCat(name, " is closed.")));
      });
    } else {
      PendingEnqueue e;
      e.elements.assign(std::make_move_iterator(elements.begin()),
                        std::make_move_iterator(elements.end()));
      e.done = std::move(done);
      enqueues_.push_back(std::move(e));
      Progress(&callbacks);
    }
  }
  Run(callbacks);
}

void Queue::Dequeue(int64_t n, bool many, bool up_to, DequeueDone done) {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    PendingDequeue d;
    d.n = n;
    d.many = many;
    d.up_to = up_to;
    d.done = std::move(done);
    dequeues_.push_back(std::move(d));
    Progress(&callbacks);
  }
  Run(callbacks);
}

void Queue::Close(bool cancel_pending_enqueues) {
  Callbacks callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    if (cancel_pending_enqueues) {
      for (PendingEnqueue& e : enqueues_) {
        callbacks.push_back([done = std::move(e.done), name = DebugString()] {
          done(absl::CancelledError(absl::StrCat(
              "Enqueue into ", name, " was cancelled: the queue was closed")));
        });
      }
      enqueues_.clear();
    }
    Progress(&callbacks);
  }
  Run(callbacks);
}

int64_t Queue::Size() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(buffer_.size());
}

bool Queue::IsClosed() {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

bool Queue::CanTake() const {
  if (buffer_.empty()) return false;
  if (options_.kind != Kind::kRandomShuffle || closed_) return true;
  return static_cast<int64_t>(buffer_.size()) > options_.min_after_dequeue;
}

Queue::Tuple Queue::TakeOne() {
  size_t at = 0;
  if (options_.kind == Kind::kRandomShuffle && buffer_.size() > 1) {
    at = std::uniform_int_distribution<size_t>(0, buffer_.size() - 1)(random_);
    std::swap(buffer_[at], buffer_.front());
  }
  Tuple t = std::move(buffer_.front());
  buffer_.pop_front();
  return t;
}

void Queue::Progress(Callbacks* callbacks) {
  bool changed = true;
  while (changed) {
    changed = false;
    while (!enqueues_.empty()) {
      PendingEnqueue& e = enqueues_.front();
      while (!e.elements.empty() &&
             (options_.capacity < 0 ||
              static_cast<int64_t>(buffer_.size()) < options_.capacity)) {
        buffer_.push_back(std::move(e.elements.front()));
        e.elements.pop_front();
        changed = true;
      }
      if (!e.elements.empty()) break;
      callbacks->push_back(
          [done = std::move(e.done)] { done(absl::OkStatus()); });
      enqueues_.pop_front();
      changed = true;
    }
    while (!dequeues_.empty()) {
      PendingDequeue& d = dequeues_.front();
      while (static_cast<int64_t>(d.taken.size()) < d.n && CanTake()) {
        d.taken.push_back(TakeOne());
        changed = true;
      }
      const bool complete = static_cast<int64_t>(d.taken.size()) == d.n;
      const bool starved = closed_ && buffer_.empty() && enqueues_.empty();
      if (!complete && !starved) break;
      if (complete || (d.up_to && !d.taken.empty())) {
        std::vector<Tensor> out;
        const absl::Status s = Finish(d, &out);
        callbacks->push_back(
            [done = std::move(d.done), s, out = std::move(out)]() mutable {
              done(s, std::move(out));
            });
      } else {
        // Closed with too few: give back what was taken, in order.
        const int64_t had = static_cast<int64_t>(d.taken.size());
        for (auto it = d.taken.rbegin(); it != d.taken.rend(); ++it) {
          buffer_.push_front(std::move(*it));
        }
        callbacks->push_back([done = std::move(d.done), n = d.n, had,
                              name = DebugString()] {
          done(absl::OutOfRangeError(absl::StrCat(
                   name, " is closed and has insufficient elements (requested ",
                   n, ", current size ", had, ")")),
               {});
        });
      }
      dequeues_.pop_front();
      changed = true;
    }
  }
}

absl::Status Queue::Finish(PendingDequeue& d, std::vector<Tensor>* out) const {
  if (!d.many) {
    *out = std::move(d.taken.front());
    return absl::OkStatus();
  }
  const size_t components = options_.component_types.size();
  const int64_t n = static_cast<int64_t>(d.taken.size());
  out->resize(components);
  for (size_t i = 0; i < components; ++i) {
    // The batch's element shape: the queue's when no element is taken
    // (DequeueMany of 0), else the first element's, or for a padding queue
    // the largest size in each dimension.
    TensorShape element;
    if (n == 0) {
      if (options_.shapes.empty() || !options_.shapes[i].IsFullyDefined()) {
        return absl::InvalidArgumentError(
            absl::StrCat("DequeueMany of 0 elements from ", DebugString(),
                         " needs the queue's shapes fully defined"));
      }
      element = options_.shapes[i];
    } else {
      element = d.taken[0][i].shape();
      for (int64_t j = 1; j < n; ++j) {
        const TensorShape& s = d.taken[j][i].shape();
        if (s == element) continue;
        if (options_.kind != Kind::kPaddingFifo || s.rank() != element.rank()) {
          return absl::InvalidArgumentError(
              absl::StrCat(DebugString(), ": DequeueMany needs component ", i,
                           " of every element to have one shape, got ",
                           element.ToString(), " and ", s.ToString(),
                           " (a PaddingFIFOQueue pads them to the largest)"));
        }
        for (int k = 0; k < s.rank(); ++k) {
          element.set_dim(k, std::max(element.dim(k), s.dim(k)));
        }
      }
    }
    TensorShape batch({n});
    for (int k = 0; k < element.rank(); ++k) batch.AddDim(element.dim(k));
    absl::StatusOr<Tensor> stacked = Tensor::Allocate(
        DefaultCpuAllocator(), options_.component_types[i], batch);
    if (!stacked.ok()) return stacked.status();
    const bool padded = options_.kind == Kind::kPaddingFifo;
    array_kernels::VisitCopyType(stacked->dtype(), [&](auto* tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      if (padded) {
        T* all = array_kernels::CopyData<T>(&*stacked);
        std::fill_n(all, stacked->NumElements(), T{});
      }
      for (int64_t j = 0; j < n; ++j) CopyInto<T>(d.taken[j][i], j, &*stacked);
    });
    (*out)[i] = *std::move(stacked);
  }
  return absl::OkStatus();
}

void Queue::Run(Callbacks& callbacks) {
  for (auto& callback : callbacks) callback();
}

}  // namespace dflow
