#include "kernels/gpu/blas_handles.h"

#include <cstdint>
#include <memory>

#include "kernels/gpu/stream_handle_cache.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_streams.h"

namespace dflow {

namespace {

constexpr char kBlasWhat[] = "cuBLAS handle";

}  // namespace

#if DFLOW_HAVE_CUBLAS

namespace {

// How StreamHandleCache makes and frees a (GPU, stream)'s cuBLAS handles.
struct BlasTraits {
  using Context = BlasContext;
  static constexpr const char* kWhat = kBlasWhat;

  static void* Stream(const BlasContext& c) { return c.stream; }

  static absl::Status Create(int ordinal, void* stream, BlasContext* c) {
    c->ordinal = ordinal;
    c->stream = static_cast<cudaStream_t>(stream);
    absl::Status s = CublasStatus(cublasCreate(&c->handle), "cublasCreate");
    if (s.ok()) {
      s = CublasStatus(cublasSetStream(c->handle, c->stream),
                       "cublasSetStream");
    }
    if (s.ok()) {
      s = CudaStatus(cudaMalloc(&c->workspace, BlasHandles::kWorkspaceBytes),
                     "cudaMalloc of the 32 MiB cuBLAS workspace");
    }
    if (s.ok()) {
      c->workspace_bytes = BlasHandles::kWorkspaceBytes;
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

}  // namespace

struct BlasHandles::Impl {
  StreamHandleCache<BlasTraits> cache;
};

BlasHandles::BlasHandles() : impl_(std::make_unique<Impl>()) {}
BlasHandles::~BlasHandles() = default;

BlasHandles* BlasHandles::Global() {
  // Never destroyed: CUDA may already be torn down when static destructors
  // run, and the driver frees everything at process exit anyway.
  static BlasHandles* const global = new BlasHandles();
  return global;
}

absl::Status BlasHandles::With(
    int ordinal, void* stream,
    absl::FunctionRef<absl::Status(const BlasContext&)> fn) {
  return impl_->cache.With(ordinal, stream, fn);
}

absl::Status BlasHandles::Forget(int ordinal, void* stream) {
  return impl_->cache.Forget(ordinal, stream);
}

int64_t BlasHandles::size() const { return impl_->cache.size(); }

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
  return BuiltWithoutCudaError(
      gpu_handles::EntryName(kBlasWhat, ordinal, stream));
}

absl::Status BlasHandles::Forget(int /*ordinal*/, void* /*stream*/) {
  return absl::OkStatus();
}

int64_t BlasHandles::size() const { return 0; }

#endif  // DFLOW_HAVE_CUBLAS

// A GpuStreams about to destroy its streams: forget their cuBLAS/cuBLASLt
// handles and workspace, so a later stream at the same address gets fresh ones
// (Forget waits for the stream, which is idle by then). Registered wherever
// this cache is linked.
namespace {
[[maybe_unused]] const int kForgetOnStreamDestroyed =
    GpuStreams::AddStreamDestroyedHook([](int ordinal, void* stream) {
      // Nothing to report to: the stream is going away either way, and a
      // failed destroy only leaks the handle.
      BlasHandles::Global()->Forget(ordinal, stream).IgnoreError();
    });
}  // namespace

}  // namespace dflow
