#include "runtime/gpu/gpu_streams.h"

#include <atomic>
#include <cstring>
#include <deque>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_discovery.h"

namespace dflow {

// --- Stream-destroyed hooks (both builds) ------------------------------------

namespace {

struct HookList {
  // Held while hooks run, so that RemoveStreamDestroyedHook returns only
  // once its hook is not running (hooks must not register or remove).
  absl::Mutex mu;
  int next_id = 0;
  std::vector<std::pair<int, GpuStreams::StreamDestroyedHook>> hooks
      ABSL_GUARDED_BY(mu);
};

HookList& Hooks() {
  // Never destroyed: hooks may be registered from static initializers and
  // streams destroyed from static destructors of other files.
  static HookList* const list = new HookList();
  return *list;
}

}  // namespace

int GpuStreams::AddStreamDestroyedHook(StreamDestroyedHook hook) {
  HookList& list = Hooks();
  absl::MutexLock lock(&list.mu);
  const int id = list.next_id++;
  list.hooks.emplace_back(id, std::move(hook));
  return id;
}

void GpuStreams::RemoveStreamDestroyedHook(int id) {
  HookList& list = Hooks();
  absl::MutexLock lock(&list.mu);
  for (auto it = list.hooks.begin(); it != list.hooks.end(); ++it) {
    if (it->first == id) {
      list.hooks.erase(it);
      return;
    }
  }
}

void GpuStreams::NotifyStreamDestroyed(int ordinal, void* stream) {
  HookList& list = Hooks();
  absl::MutexLock lock(&list.mu);
  for (const auto& [id, hook] : list.hooks) {
    if (hook) hook(ordinal, stream);
  }
}

int GpuStreams::num_stream_destroyed_hooks() {
  HookList& list = Hooks();
  absl::MutexLock lock(&list.mu);
  return static_cast<int>(list.hooks.size());
}

#if DFLOW_HAVE_CUDA

namespace {

constexpr int kNumStreams = 4;

const char* KindName(GpuStreams::Kind kind) {
  switch (kind) {
    case GpuStreams::Kind::kCompute:
      return "compute";
    case GpuStreams::Kind::kHostToDevice:
      return "host-to-device";
    case GpuStreams::Kind::kDeviceToHost:
      return "device-to-host";
    case GpuStreams::Kind::kDeviceToDevice:
      return "device-to-device";
  }
  return "?";
}

// True when the CUDA runtime can DMA from/to `ptr` without staging: pinned
// or registered host memory, or managed memory.
bool IsDmaReady(const void* ptr) {
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost || attr.type == cudaMemoryTypeManaged;
}

// How often the completion thread looks at unfinished work when no host
// function woke it: the fallback for streams that failed (CUDA skips host
// functions once a context has an error).
constexpr absl::Duration kPollInterval = absl::Milliseconds(1);

}  // namespace

struct GpuStreams::Impl {
  // An operation whose end someone waits for.
  struct Pending {
    cudaEvent_t event = nullptr;  // null: `status` is already the outcome
    absl::Status status;
    std::string what;  // names the operation in error messages
    DoneCallback done;
  };

  int ordinal = 0;
  PinnedHostPool* staging = nullptr;
  cudaStream_t streams[kNumStreams] = {};
  std::atomic<int64_t> staged_copies{0};
  std::thread completion_thread;

  absl::Mutex mu;
  std::vector<cudaEvent_t> free_events ABSL_GUARDED_BY(mu);
  std::deque<Pending> pending ABSL_GUARDED_BY(mu);
  int64_t wakeups ABSL_GUARDED_BY(mu) = 0;       // host functions that ran
  int64_t seen_wakeups ABSL_GUARDED_BY(mu) = 0;  // as of the last look
  bool stopping ABSL_GUARDED_BY(mu) = false;

  cudaStream_t stream(Kind kind) const {
    return streams[static_cast<int>(kind)];
  }
  std::string Name(absl::string_view op, size_t bytes) const {
    return absl::StrCat(op, " of ", bytes, " bytes on GPU ", ordinal);
  }

  absl::Status SetDevice() const {
    return CudaStatus(cudaSetDevice(ordinal),
                      absl::StrCat("cudaSetDevice(", ordinal, ")"));
  }

  // An event of this GPU (creating one makes this GPU current).
  absl::StatusOr<cudaEvent_t> GetEvent() {
    {
      absl::MutexLock lock(&mu);
      if (!free_events.empty()) {
        cudaEvent_t e = free_events.back();
        free_events.pop_back();
        return e;
      }
    }
    if (absl::Status s = SetDevice(); !s.ok()) return s;
    cudaEvent_t e = nullptr;
    DFLOW_CUDA_RETURN_IF_ERROR(
        cudaEventCreateWithFlags(&e, cudaEventDisableTiming),
        absl::StrCat("cudaEventCreate on GPU ", ordinal));
    return e;
  }

  void PutEvent(cudaEvent_t e) {
    absl::MutexLock lock(&mu);
    free_events.push_back(e);
  }

  // `waiter` (any GPU's stream) waits for the work so far on `waitee`, a
  // stream of this GPU. A wait captures the event's state when it is
  // enqueued, so the event can be reused at once.
  absl::Status OrderBefore(cudaStream_t waitee, cudaStream_t waiter) {
    absl::StatusOr<cudaEvent_t> e = GetEvent();
    if (!e.ok()) return e.status();
    absl::Status s =
        CudaStatus(cudaEventRecord(*e, waitee),
                   absl::StrCat("cudaEventRecord on GPU ", ordinal));
    if (s.ok()) {
      s = CudaStatus(cudaStreamWaitEvent(waiter, *e, 0),
                     absl::StrCat("cudaStreamWaitEvent on GPU ", ordinal));
    }
    PutEvent(*e);
    return s;
  }

  // `done` hears `status` from the completion thread, never from the caller's.
  void Finish(absl::Status status, std::string what, DoneCallback done) {
    cudaGetLastError();  // a failed enqueue must not poison later calls
    absl::MutexLock lock(&mu);
    pending.push_back(
        {nullptr, std::move(status), std::move(what), std::move(done)});
    ++wakeups;
  }

  static void CUDART_CB Wake(void* self) {
    auto* impl = static_cast<Impl*>(self);
    absl::MutexLock lock(&impl->mu);
    ++impl->wakeups;
  }

  // Calls `done` once the work enqueued so far on `stream` (of this GPU) ends.
  void Track(cudaStream_t stream, std::string what, DoneCallback done) {
    absl::StatusOr<cudaEvent_t> e = GetEvent();
    if (!e.ok()) return Finish(e.status(), std::move(what), std::move(done));
    if (absl::Status s = CudaStatus(cudaEventRecord(*e, stream),
                                    absl::StrCat(what, ": cudaEventRecord"));
        !s.ok()) {
      PutEvent(*e);
      return Finish(std::move(s), std::move(what), std::move(done));
    }
    {
      absl::MutexLock lock(&mu);
      pending.push_back(
          {*e, absl::OkStatus(), std::move(what), std::move(done)});
    }
    // Only a prompt wake-up: if it cannot be enqueued, polling still sees
    // the event.
    if (cudaLaunchHostFunc(stream, &Impl::Wake, this) != cudaSuccess) {
      cudaGetLastError();
    }
  }

  bool HasWorkOrStopping() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return stopping || !pending.empty();
  }
  bool WokenOrStopping() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return stopping || wakeups != seen_wakeups;
  }

  void CompletionLoop() {
    cudaSetDevice(ordinal);
    std::deque<Pending> looking;
    while (true) {
      {
        absl::MutexLock lock(&mu);
        if (pending.empty()) {
          mu.Await(absl::Condition(this, &Impl::HasWorkOrStopping));
        } else {
          mu.AwaitWithTimeout(absl::Condition(this, &Impl::WokenOrStopping),
                              kPollInterval);
        }
        if (stopping && pending.empty()) return;
        seen_wakeups = wakeups;
        looking.swap(pending);
      }
      std::vector<Pending> ready;
      std::deque<Pending> waiting;
      for (Pending& p : looking) {
        if (p.event != nullptr) {
          cudaError_t q = cudaEventQuery(p.event);
          if (q == cudaErrorNotReady) {
            waiting.push_back(std::move(p));
            continue;
          }
          if (q != cudaSuccess) {
            cudaGetLastError();
            p.status = CudaStatus(q, p.what);
          }
        }
        ready.push_back(std::move(p));
      }
      looking.clear();
      {
        absl::MutexLock lock(&mu);
        // Keep arrival order: what was still running goes before newcomers.
        while (!waiting.empty()) {
          pending.push_front(std::move(waiting.back()));
          waiting.pop_back();
        }
      }
      for (Pending& p : ready) {
        if (p.event != nullptr) PutEvent(p.event);
        p.done(std::move(p.status));
      }
    }
  }
};

absl::StatusOr<std::unique_ptr<GpuStreams>> GpuStreams::Create(
    int ordinal, Options options) {
  if (absl::Status s = GpusAvailable(); !s.ok()) return s;
  if (ordinal < 0 || ordinal >= VisibleGpuCount()) {
    return absl::InvalidArgumentError(
        absl::StrCat("GpuStreams: there is no GPU ", ordinal,
                     "; this process sees GPUs 0..", VisibleGpuCount() - 1));
  }
  auto impl = std::make_unique<Impl>();
  impl->ordinal = ordinal;
  impl->staging =
      options.staging != nullptr ? options.staging : PinnedHostPool::Shared();
  if (absl::Status s = impl->SetDevice(); !s.ok()) return s;
  for (int i = 0; i < kNumStreams; ++i) {
    cudaError_t err =
        cudaStreamCreateWithFlags(&impl->streams[i], cudaStreamNonBlocking);
    if (err != cudaSuccess) {
      cudaGetLastError();
      for (int j = 0; j < i; ++j) cudaStreamDestroy(impl->streams[j]);
      return CudaStatus(
          err, absl::StrCat("creating the ", KindName(static_cast<Kind>(i)),
                            " stream of GPU ", ordinal));
    }
  }
  Impl* raw = impl.get();
  impl->completion_thread = std::thread([raw] { raw->CompletionLoop(); });
  return std::unique_ptr<GpuStreams>(new GpuStreams(std::move(impl)));
}

GpuStreams::GpuStreams(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

GpuStreams::~GpuStreams() {
  // Host functions hold `impl_`: let every stream drain before it goes.
  cudaSetDevice(impl_->ordinal);
  for (cudaStream_t s : impl_->streams) cudaStreamSynchronize(s);
  cudaGetLastError();
  {
    absl::MutexLock lock(&impl_->mu);
    impl_->stopping = true;
  }
  impl_->completion_thread.join();
  // Caches keyed by these streams forget them before the addresses can be
  // reused (the hooks may synchronize the streams again: they are idle).
  for (cudaStream_t s : impl_->streams) {
    NotifyStreamDestroyed(impl_->ordinal, static_cast<void*>(s));
  }
  cudaSetDevice(impl_->ordinal);  // a hook may have made another current
  for (cudaEvent_t e : impl_->free_events) cudaEventDestroy(e);
  for (cudaStream_t s : impl_->streams) cudaStreamDestroy(s);
  cudaGetLastError();
}

int GpuStreams::ordinal() const { return impl_->ordinal; }

void* GpuStreams::stream(Kind kind) const { return impl_->stream(kind); }

int64_t GpuStreams::staged_copies() const { return impl_->staged_copies; }

void GpuStreams::CopyHostToDevice(void* dst, const void* src, size_t bytes,
                                  DoneCallback done) {
  Impl& d = *impl_;
  std::string what = d.Name("host-to-device copy", bytes);
  if (bytes == 0) return d.Finish(absl::OkStatus(), what, std::move(done));
  if (dst == nullptr || src == nullptr) {
    return d.Finish(absl::InvalidArgumentError(what + ": null pointer"), what,
                    std::move(done));
  }
  if (absl::Status s = d.SetDevice(); !s.ok()) {
    return d.Finish(std::move(s), what, std::move(done));
  }
  // A pageable source is copied into pinned memory now, on the host; the
  // staging buffer lives until the DMA is done.
  std::shared_ptr<PinnedHostPool::Buffer> stage;
  const void* from = src;
  if (!IsDmaReady(src)) {
    absl::StatusOr<PinnedHostPool::Buffer> b = d.staging->Allocate(bytes);
    if (!b.ok()) return d.Finish(b.status(), what, std::move(done));
    stage = std::make_shared<PinnedHostPool::Buffer>(*std::move(b));
    std::memcpy(stage->data(), src, bytes);
    from = stage->data();
    d.staged_copies++;
  }
  cudaStream_t h2d = d.stream(Kind::kHostToDevice);
  cudaStream_t compute = d.stream(Kind::kCompute);
  absl::Status s = d.OrderBefore(compute, h2d);
  if (s.ok()) {
    s = CudaStatus(
        cudaMemcpyAsync(dst, from, bytes, cudaMemcpyHostToDevice, h2d),
        what + ": cudaMemcpyAsync");
  }
  if (s.ok()) s = d.OrderBefore(h2d, compute);
  if (!s.ok()) return d.Finish(std::move(s), what, std::move(done));
  d.Track(h2d, std::move(what),
          [stage = std::move(stage),
           done = std::move(done)](absl::Status status) mutable {
            stage.reset();
            done(std::move(status));
          });
}

void GpuStreams::CopyDeviceToHost(void* dst, const void* src, size_t bytes,
                                  DoneCallback done) {
  Impl& d = *impl_;
  std::string what = d.Name("device-to-host copy", bytes);
  if (bytes == 0) return d.Finish(absl::OkStatus(), what, std::move(done));
  if (dst == nullptr || src == nullptr) {
    return d.Finish(absl::InvalidArgumentError(what + ": null pointer"), what,
                    std::move(done));
  }
  if (absl::Status s = d.SetDevice(); !s.ok()) {
    return d.Finish(std::move(s), what, std::move(done));
  }
  std::shared_ptr<PinnedHostPool::Buffer> stage;
  void* to = dst;
  if (!IsDmaReady(dst)) {
    absl::StatusOr<PinnedHostPool::Buffer> b = d.staging->Allocate(bytes);
    if (!b.ok()) return d.Finish(b.status(), what, std::move(done));
    stage = std::make_shared<PinnedHostPool::Buffer>(*std::move(b));
    to = stage->data();
    d.staged_copies++;
  }
  cudaStream_t d2h = d.stream(Kind::kDeviceToHost);
  absl::Status s = d.OrderBefore(d.stream(Kind::kCompute), d2h);
  if (s.ok()) {
    s = CudaStatus(cudaMemcpyAsync(to, src, bytes, cudaMemcpyDeviceToHost, d2h),
                   what + ": cudaMemcpyAsync");
  }
  if (!s.ok()) return d.Finish(std::move(s), what, std::move(done));
  d.Track(d2h, std::move(what),
          [stage = std::move(stage), dst, bytes,
           done = std::move(done)](absl::Status status) mutable {
            if (stage != nullptr && status.ok()) {
              std::memcpy(dst, stage->data(), bytes);
            }
            stage.reset();
            done(std::move(status));
          });
}

void GpuStreams::CopyDeviceToDevice(void* dst, const void* src, size_t bytes,
                                    DoneCallback done) {
  CopyToPeer(this, dst, src, bytes, std::move(done));
}

void GpuStreams::CopyToPeer(GpuStreams* to, void* dst, const void* src,
                            size_t bytes, DoneCallback done) {
  Impl& d = *impl_;
  Impl& t = *to->impl_;
  std::string what = to == this
                         ? d.Name("device-to-device copy", bytes)
                         : absl::StrCat("copy of ", bytes, " bytes from GPU ",
                                        d.ordinal, " to GPU ", t.ordinal);
  if (bytes == 0) return d.Finish(absl::OkStatus(), what, std::move(done));
  if (dst == nullptr || src == nullptr) {
    return d.Finish(absl::InvalidArgumentError(what + ": null pointer"), what,
                    std::move(done));
  }
  cudaStream_t d2d = d.stream(Kind::kDeviceToDevice);
  // After the source's and the destination's compute work so far...
  absl::Status s = d.OrderBefore(d.stream(Kind::kCompute), d2d);
  if (s.ok() && to != this) s = t.OrderBefore(t.stream(Kind::kCompute), d2d);
  if (s.ok()) s = d.SetDevice();
  if (s.ok()) {
    s = CudaStatus(
        to == this || t.ordinal == d.ordinal
            ? cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, d2d)
            : cudaMemcpyPeerAsync(dst, t.ordinal, src, d.ordinal, bytes, d2d),
        what + ": cudaMemcpyAsync");
  }
  // ...and before the destination's later compute work.
  if (s.ok()) s = d.OrderBefore(d2d, t.stream(Kind::kCompute));
  if (!s.ok()) return d.Finish(std::move(s), what, std::move(done));
  d.Track(d2d, std::move(what), std::move(done));
}

absl::Status GpuStreams::WaitFor(Kind waiter, Kind waitee) {
  if (waiter == waitee) return absl::OkStatus();
  if (absl::Status s = impl_->SetDevice(); !s.ok()) return s;
  return impl_->OrderBefore(impl_->stream(waitee), impl_->stream(waiter));
}

void GpuStreams::ThenCall(Kind kind, DoneCallback done) {
  std::string what = absl::StrCat("work on the ", KindName(kind),
                                  " stream of GPU ", impl_->ordinal);
  if (absl::Status s = impl_->SetDevice(); !s.ok()) {
    return impl_->Finish(std::move(s), what, std::move(done));
  }
  impl_->Track(impl_->stream(kind), std::move(what), std::move(done));
}

absl::Status GpuStreams::Synchronize() {
  if (absl::Status s = impl_->SetDevice(); !s.ok()) return s;
  absl::Status first;
  for (int i = 0; i < kNumStreams; ++i) {
    absl::Status s = CudaStatus(
        cudaStreamSynchronize(impl_->streams[i]),
        absl::StrCat("synchronizing the ", KindName(static_cast<Kind>(i)),
                     " stream of GPU ", impl_->ordinal));
    if (!s.ok() && first.ok()) first = s;
  }
  if (!first.ok()) cudaGetLastError();
  return first;
}

#else  // !DFLOW_HAVE_CUDA

// No GpuStreams can exist without CUDA: Create refuses, and the members
// below are never reached (they only make CPU-only builds link).
struct GpuStreams::Impl {};

absl::StatusOr<std::unique_ptr<GpuStreams>> GpuStreams::Create(int, Options) {
  return BuiltWithoutCudaError("creating GPU streams");
}
GpuStreams::GpuStreams(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GpuStreams::~GpuStreams() = default;
int GpuStreams::ordinal() const { return -1; }
void* GpuStreams::stream(Kind) const { return nullptr; }
int64_t GpuStreams::staged_copies() const { return 0; }
void GpuStreams::CopyHostToDevice(void*, const void*, size_t,
                                  DoneCallback done) {
  done(BuiltWithoutCudaError("host-to-device copy"));
}
void GpuStreams::CopyDeviceToHost(void*, const void*, size_t,
                                  DoneCallback done) {
  done(BuiltWithoutCudaError("device-to-host copy"));
}
void GpuStreams::CopyDeviceToDevice(void*, const void*, size_t,
                                    DoneCallback done) {
  done(BuiltWithoutCudaError("device-to-device copy"));
}
void GpuStreams::CopyToPeer(GpuStreams*, void*, const void*, size_t,
                            DoneCallback done) {
  done(BuiltWithoutCudaError("GPU-to-GPU copy"));
}
absl::Status GpuStreams::WaitFor(Kind, Kind) {
  return BuiltWithoutCudaError("GpuStreams::WaitFor");
}
void GpuStreams::ThenCall(Kind, DoneCallback done) {
  done(BuiltWithoutCudaError("GpuStreams::ThenCall"));
}
absl::Status GpuStreams::Synchronize() {
  return BuiltWithoutCudaError("GpuStreams::Synchronize");
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace dflow
