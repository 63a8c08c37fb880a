#include "kernels/gpu/blas_handles.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_streams.h"

namespace dflow {

namespace {

// `s` with "<what>: " before its message (same code).
absl::Status Prefixed(const absl::Status& s, const std::string& what) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
}

std::string EntryName(int ordinal, void* stream) {
  return absl::StrCat(
      "cuBLAS handle for GPU:", ordinal, " stream ",
      stream == nullptr
          ? std::string("(default)")
          : absl::StrCat("0x", absl::Hex(reinterpret_cast<uintptr_t>(stream))));
}

}  // namespace

#if DFLOW_HAVE_CUBLAS

struct BlasHandles::Impl {
  struct Entry {
    absl::Mutex mu;
    bool ready = false;      // handles made
    bool forgotten = false;  // removed from the map: look again
    BlasContext context;
  };
  using Key = std::pair<int, void*>;

  mutable absl::Mutex mu;
  absl::flat_hash_map<Key, std::shared_ptr<Entry>> entries;

  static absl::Status Create(int ordinal, void* stream, BlasContext* c) {
    c->ordinal = ordinal;
    c->stream = static_cast<cudaStream_t>(stream);
    absl::Status s = CublasStatus(cublasCreate(&c->handle), "cublasCreate");
    if (s.ok()) {
      s = CublasStatus(cublasSetStream(c->handle, c->stream),
                       "cublasSetStream");
    }
    if (s.ok()) {
      s = CudaStatus(cudaMalloc(&c->workspace, kWorkspaceBytes),
                     "cudaMalloc of the 32 MiB cuBLAS workspace");
    }
    if (s.ok()) {
      c->workspace_bytes = kWorkspaceBytes;
      s = CublasStatus(
          cublasSetWorkspace(c->handle, c->workspace, c->workspace_bytes),
          "cublasSetWorkspace");
    }
    if (s.ok()) {
      // TF32 is chosen per call through the compute type (matmul_gpu.h),
      // so the handle itself stays at full float precision.
      s = CublasStatus(cublasSetMathMode(c->handle, CUBLAS_DEFAULT_MATH),
                       "cublasSetMathMode");
    }
    if (s.ok()) {
      s = CublasStatus(cublasLtCreate(&c->lt_handle), "cublasLtCreate");
    }
    if (!s.ok()) Destroy(c).IgnoreError();  // keep the first error
    return s;
  }

  // Frees what Create made (any part of it).
  static absl::Status Destroy(BlasContext* c) {
    absl::Status s;
    if (c->lt_handle != nullptr) {
      s.Update(CublasStatus(cublasLtDestroy(c->lt_handle), "cublasLtDestroy"));
      c->lt_handle = nullptr;
    }
    if (c->handle != nullptr) {
      s.Update(CublasStatus(cublasDestroy(c->handle), "cublasDestroy"));
      c->handle = nullptr;
    }
    if (c->workspace != nullptr) {
      s.Update(CudaStatus(cudaFree(c->workspace), "cudaFree"));
      c->workspace = nullptr;
      c->workspace_bytes = 0;
    }
    return s;
  }
};

BlasHandles::BlasHandles() : impl_(std::make_unique<Impl>()) {}

BlasHandles::~BlasHandles() {
  absl::MutexLock lock(&impl_->mu);
  for (auto& [key, entry] : impl_->entries) {
    absl::MutexLock entry_lock(&entry->mu);
    if (!entry->ready) continue;
    if (cudaSetDevice(key.first) == cudaSuccess) {
      cudaStreamSynchronize(entry->context.stream);
      Impl::Destroy(&entry->context).IgnoreError();
    }
    entry->forgotten = true;
  }
  impl_->entries.clear();
}

BlasHandles* BlasHandles::Global() {
  // Never destroyed: CUDA may already be torn down when static destructors
  // run, and the driver frees everything at process exit anyway.
  static BlasHandles* const global = new BlasHandles();
  return global;
}

absl::Status BlasHandles::With(
    int ordinal, void* stream,
    absl::FunctionRef<absl::Status(const BlasContext&)> fn) {
  // The name is only built for errors: this runs on every launch.
  if (ordinal < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(EntryName(ordinal, stream), ": a GPU ordinal is >= 0"));
  }
  absl::Status s = CudaStatus(cudaSetDevice(ordinal), "cudaSetDevice");
  if (!s.ok()) return Prefixed(s, EntryName(ordinal, stream));
  for (;;) {
    std::shared_ptr<Impl::Entry> entry;
    {
      absl::MutexLock lock(&impl_->mu);
      std::shared_ptr<Impl::Entry>& slot =
          impl_->entries[Impl::Key(ordinal, stream)];
      if (slot == nullptr) slot = std::make_shared<Impl::Entry>();
      entry = slot;
    }
    absl::MutexLock entry_lock(&entry->mu);
    if (entry->forgotten) continue;
    if (!entry->ready) {
      s = Impl::Create(ordinal, stream, &entry->context);
      if (!s.ok()) return Prefixed(s, EntryName(ordinal, stream));
      entry->ready = true;
    }
    return fn(entry->context);
  }
}

absl::Status BlasHandles::Forget(int ordinal, void* stream) {
  std::shared_ptr<Impl::Entry> entry;
  {
    absl::MutexLock lock(&impl_->mu);
    auto it = impl_->entries.find(Impl::Key(ordinal, stream));
    if (it == impl_->entries.end()) return absl::OkStatus();
    entry = std::move(it->second);
    impl_->entries.erase(it);
  }
  absl::MutexLock entry_lock(&entry->mu);
  entry->forgotten = true;
  if (!entry->ready) return absl::OkStatus();
  absl::Status s = CudaStatus(cudaSetDevice(ordinal), "cudaSetDevice");
  if (s.ok()) {
    s = CudaStatus(cudaStreamSynchronize(entry->context.stream),
                   "cudaStreamSynchronize");
  }
  s.Update(Impl::Destroy(&entry->context));
  entry->ready = false;
  return Prefixed(s, EntryName(ordinal, stream));
}

int64_t BlasHandles::size() const {
  absl::MutexLock lock(&impl_->mu);
  return static_cast<int64_t>(impl_->entries.size());
}

#else  // !DFLOW_HAVE_CUBLAS

struct BlasHandles::Impl {};

BlasHandles::BlasHandles() : impl_(std::make_unique<Impl>()) {}
BlasHandles::~BlasHandles() = default;

BlasHandles* BlasHandles::Global() {
  static BlasHandles* const global = new BlasHandles();
  return global;
}

absl::Status BlasHandles::With(
    int ordinal, void* stream,
    absl::FunctionRef<absl::Status(const BlasContext&)> /*fn*/) {
  return BuiltWithoutCudaError(EntryName(ordinal, stream));
}

absl::Status BlasHandles::Forget(int /*ordinal*/, void* /*stream*/) {
  return absl::OkStatus();
}

int64_t BlasHandles::size() const { return 0; }

#endif  // DFLOW_HAVE_CUBLAS

// A GpuStreams about to destroy its streams: forget their cuBLAS/cuBLASLt handles and workspace, so a
// later stream at the same address gets fresh ones (Forget waits for the
// stream, which is idle by then). Registered wherever this cache is linked.
namespace {
[[maybe_unused]] const int kForgetOnStreamDestroyed =
    GpuStreams::AddStreamDestroyedHook([](int ordinal, void* stream) {
      // Nothing to report to: the stream is going away either way, and a
      // failed destroy only leaks the handle.
      BlasHandles::Global()->Forget(ordinal, stream).IgnoreError();
    });
}  // namespace

}  // namespace dflow
