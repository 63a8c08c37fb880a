// cuBLAS and cuBLASLt handles, one pair per (GPU, stream), created on first
// use and kept for the life of the process, each with a workspace of device
// memory of its own.
//
// Why per stream: a cuBLAS handle carries its stream and workspace as state,
// so two streams sharing one handle would race on cublasSetStream; one handle
// per stream needs no re-binding. Why a lock per handle: cuBLAS handles must
// not be used by two host threads at once (two kernels of one GPU may be
// launched from two executor threads onto the same compute stream). The lock
// is held only while the caller enqueues work (microseconds), never while
// the GPU runs it: work enqueued on one stream runs in order, so the next
// caller may reuse the workspace at once.
//
//   DFLOW_RETURN_IF_ERROR(BlasHandles::Global()->With(
//       ordinal, stream, [&](const BlasContext& blas) {
//         return CublasStatus(cublasSgemm(blas.handle, ...), "cublasSgemm");
//       }));
//
// Without a GPU (or a driver) With answers Unavailable, naming cuBLAS, the
// GPU and what CUDA said; in a build without cuBLAS, BuiltWithoutCudaError.
#ifndef DFLOW_KERNELS_GPU_BLAS_HANDLES_H_
#define DFLOW_KERNELS_GPU_BLAS_HANDLES_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUBLAS
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

namespace dflow {

#if DFLOW_HAVE_CUBLAS
// What a caller of BlasHandles::With works with. The handle is bound to
// `stream`, its math mode is CUBLAS_DEFAULT_MATH (no TF32 unless a call asks
// for it through its compute type) and its pointer mode host; callers must
// leave it so.
struct BlasContext {
  int ordinal = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t handle = nullptr;
  // cuBLASLt for callers that pick algorithms or epilogues themselves; it
  // takes the stream and workspace per call (cublasLtMatmul): pass these.
  cublasLtHandle_t lt_handle = nullptr;
  void* workspace = nullptr;  // also given to `handle` (cublasSetWorkspace)
  size_t workspace_bytes = 0;
};
#else
// Nothing to work with (With answers Unavailable before calling back).
struct BlasContext {};
#endif

class BlasHandles {
 public:
  // The workspace of each handle: NVIDIA's advice for Hopper is 32 MiB
  // (cuBLAS otherwise allocates a smaller one of its own per handle).
  static constexpr size_t kWorkspaceBytes = size_t{32} << 20;

  // The process-wide cache.
  static BlasHandles* Global();

  BlasHandles();
  ~BlasHandles();  // destroys every handle and frees the workspaces
  BlasHandles(const BlasHandles&) = delete;
  BlasHandles& operator=(const BlasHandles&) = delete;

  // Makes GPU `ordinal` current on this thread and runs `fn` with the
  // handles of (`ordinal`, `stream`) (a cudaStream_t; null is the legacy
  // default stream), creating them on first use. One thread at a time per
  // (GPU, stream); `fn` should only enqueue work. Returns `fn`'s status or
  // why the handles could not be made.
  absl::Status With(int ordinal, void* stream,
                    absl::FunctionRef<absl::Status(const BlasContext&)> fn);

  // Destroys the handles of (`ordinal`, `stream`), if any, after the stream
  // finished its work: for a stream about to be destroyed (its address may
  // be reused by a later stream, which would then find handles whose
  // workspace a dead stream's work may still use, so forget it first).
  absl::Status Forget(int ordinal, void* stream);

  // How many (GPU, stream) entries exist.
  int64_t size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_BLAS_HANDLES_H_
