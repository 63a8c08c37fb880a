// The cache behind BlasHandles and DnnHandles: one library handle set per
// (GPU, stream), created on first use, used by one host thread at a time,
// destroyed when its stream goes away (blas_handles.h says why per stream
// and why the lock). A library plugs in with a traits class:
//
//   struct Traits {
//     using Context = ...;                 // what callers work with
//     static constexpr const char* kWhat = "cuBLAS handle";
//     static absl::Status Create(int ordinal, void* stream, Context* c);
//     static absl::Status Destroy(Context* c);  // frees any part Create made
//     static void* Stream(const Context& c);
//   };
#ifndef DFLOW_KERNELS_GPU_STREAM_HANDLE_CACHE_H_
#define DFLOW_KERNELS_GPU_STREAM_HANDLE_CACHE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA
#include <cuda_runtime.h>

#include "runtime/gpu/cuda_status.h"
#endif

namespace dflow {
namespace gpu_handles {

// "<what> for GPU:<ordinal> stream 0x...": how errors name an entry.
inline std::string EntryName(const char* what, int ordinal, void* stream) {
  return absl::StrCat(
      what, " for GPU:", ordinal, " stream ",
      stream == nullptr
          ? std::string("(default)")
          : absl::StrCat("0x", absl::Hex(reinterpret_cast<uintptr_t>(stream))));
}

// `s` with "<what>: " before its message (same code).
inline absl::Status Prefixed(const absl::Status& s, const std::string& what) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
}

}  // namespace gpu_handles

#if DFLOW_HAVE_CUDA

template <typename Traits>
class StreamHandleCache {
 public:
  using Context = typename Traits::Context;

  StreamHandleCache() = default;
  StreamHandleCache(const StreamHandleCache&) = delete;
  StreamHandleCache& operator=(const StreamHandleCache&) = delete;

  // Destroys every handle once its stream is idle.
  ~StreamHandleCache() {
    absl::MutexLock lock(&mu_);
    for (auto& [key, entry] : entries_) {
      absl::MutexLock entry_lock(&entry->mu);
      if (entry->ready && cudaSetDevice(key.first) == cudaSuccess) {
        cudaStreamSynchronize(
            static_cast<cudaStream_t>(Traits::Stream(entry->context)));
        Traits::Destroy(&entry->context).IgnoreError();
      }
      entry->forgotten = true;
    }
    entries_.clear();
  }

  // Makes GPU `ordinal` current and runs `fn` with the handles of
  // (`ordinal`, `stream`), creating them on first use; one thread at a time
  // per (GPU, stream). `fn`'s status, or why there are no handles.
  absl::Status With(int ordinal, void* stream,
                    absl::FunctionRef<absl::Status(const Context&)> fn) {
    // The name is only built for errors: this runs on every launch.
    if (ordinal < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(Name(ordinal, stream), ": a GPU ordinal is >= 0"));
    }
    absl::Status s = CudaStatus(cudaSetDevice(ordinal), "cudaSetDevice");
    if (!s.ok()) return gpu_handles::Prefixed(s, Name(ordinal, stream));
    for (;;) {
      std::shared_ptr<Entry> entry;
      {
        absl::MutexLock lock(&mu_);
        std::shared_ptr<Entry>& slot = entries_[Key(ordinal, stream)];
        if (slot == nullptr) slot = std::make_shared<Entry>();
        entry = slot;
      }
      absl::MutexLock entry_lock(&entry->mu);
      if (entry->forgotten) continue;  // Forget took it out: look again
      if (!entry->ready) {
        s = Traits::Create(ordinal, stream, &entry->context);
        if (!s.ok()) return gpu_handles::Prefixed(s, Name(ordinal, stream));
        entry->ready = true;
      }
      return fn(entry->context);
    }
  }

  // Destroys the handles of (`ordinal`, `stream`), if any, after the stream
  // finished its work.
  absl::Status Forget(int ordinal, void* stream) {
    std::shared_ptr<Entry> entry;
    {
      absl::MutexLock lock(&mu_);
      auto it = entries_.find(Key(ordinal, stream));
      if (it == entries_.end()) return absl::OkStatus();
      entry = std::move(it->second);
      entries_.erase(it);
    }
    absl::MutexLock entry_lock(&entry->mu);
    entry->forgotten = true;
    if (!entry->ready) return absl::OkStatus();
    absl::Status s = CudaStatus(cudaSetDevice(ordinal), "cudaSetDevice");
    if (s.ok()) {
      s = CudaStatus(cudaStreamSynchronize(static_cast<cudaStream_t>(
                         Traits::Stream(entry->context))),
                     "cudaStreamSynchronize");
    }
    s.Update(Traits::Destroy(&entry->context));
    entry->ready = false;
    return gpu_handles::Prefixed(s, Name(ordinal, stream));
  }

  int64_t size() const {
    absl::MutexLock lock(&mu_);
    return static_cast<int64_t>(entries_.size());
  }

 private:
  struct Entry {
    absl::Mutex mu;
    bool ready = false;      // handles made
    bool forgotten = false;  // removed from the map
    Context context;
  };
  using Key = std::pair<int, void*>;

  static std::string Name(int ordinal, void* stream) {
    return gpu_handles::EntryName(Traits::kWhat, ordinal, stream);
  }

  mutable absl::Mutex mu_;
  absl::flat_hash_map<Key, std::shared_ptr<Entry>> entries_;
};

#endif  // DFLOW_HAVE_CUDA

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_STREAM_HANDLE_CACHE_H_
