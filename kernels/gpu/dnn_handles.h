// cuDNN plumbing shared by the cuDNN launchers (conv_ops_gpu, pooling_ops_gpu,
// lrn_ops_gpu):
//   - DnnHandles: one cudnnHandle_t per (GPU, stream), created on first use,
//     used by one thread at a time (see blas_handles.h for why per stream
//     and why the lock);
//   - GpuScratchAllocator: where a launcher gets device memory for one call
//     (cuDNN workspaces, padded or transposed copies), and
//     StreamOrderedScratch, the default one (CUDA's stream-ordered
//     allocator);
//   - DnnTensorLayout: a 4-D tensor as cuDNN's legacy API sees it, dims in
//     (n, c, h, w) order with any strides, as plain host data, so the
//     layout arithmetic of the launchers is tested without a GPU;
//   - RAII descriptors and the dtype mapping (CUDA builds only).
// Without a GPU DnnHandles::With answers Unavailable; in a build without
// cuDNN, BuiltWithoutCudaError.
#ifndef DFLOW_KERNELS_GPU_DNN_HANDLES_H_
#define DFLOW_KERNELS_GPU_DNN_HANDLES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/types.h"
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDNN
#include <cuda_runtime.h>
#include <cudnn.h>
#endif

namespace dflow {

// --- Scratch memory ---------------------------------------------------------

// Device memory for one launch. What Allocate returns must stay valid until
// the work the launcher enqueued on its stream has run: memory reused in
// that stream's order (an allocator whose blocks are only reused by work on
// the same stream) may be given back as soon as the launcher returns.
class GpuScratchAllocator {
 public:
  virtual ~GpuScratchAllocator() = default;
  // `bytes` > 0 of device memory of the launch's GPU, 256-byte aligned;
  // ResourceExhausted when there is not enough.
  virtual absl::StatusOr<void*> Allocate(size_t bytes) = 0;
};

// Blocks from cudaMallocAsync on one stream, returned with cudaFreeAsync on
// that stream when this object is destroyed: after all work enqueued on the
// stream meanwhile. The default for launchers given no allocator.
class StreamOrderedScratch : public GpuScratchAllocator {
 public:
  // `stream` is a cudaStream_t of GPU `ordinal`.
  StreamOrderedScratch(int ordinal, void* stream);
  ~StreamOrderedScratch() override;
  StreamOrderedScratch(const StreamOrderedScratch&) = delete;
  StreamOrderedScratch& operator=(const StreamOrderedScratch&) = delete;

  absl::StatusOr<void*> Allocate(size_t bytes) override;

 private:
  int ordinal_;
  void* stream_;
  std::vector<void*> blocks_;
};

// --- Layouts
// ------------------------------------------------------------------

// A 4-D tensor in cuDNN's (n, c, h, w) dimension order; strides in
// elements, any order (a packed NHWC tensor has stride_c == 1).
struct DnnTensorLayout {
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t stride_n = 0, stride_c = 0, stride_h = 0, stride_w = 0;

  int64_t num_elements() const { return n * c * h * w; }
  // Offset in elements of element (in, ic, ih, iw).
  int64_t Offset(int64_t in, int64_t ic, int64_t ih, int64_t iw) const {
    return in * stride_n + ic * stride_c + ih * stride_h + iw * stride_w;
  }
};

// A packed NHWC tensor [n, h, w, c].
DnnTensorLayout NhwcLayout(int64_t n, int64_t h, int64_t w, int64_t c);

// cuDNN's legacy API takes int dims and strides and at most 2^31 - 1
// elements per tensor (padding between dims included). InvalidArgument
// naming `what` and what to do otherwise.
absl::Status CheckDnnLimits(const DnnTensorLayout& layout, const char* what);

// --- Handles
// ------------------------------------------------------------------

#if DFLOW_HAVE_CUDNN
struct DnnContext {
  int ordinal = 0;
  cudaStream_t stream = nullptr;
  cudnnHandle_t handle = nullptr;  // bound to `stream`
};
#else
// Nothing to work with (With answers Unavailable before calling back).
struct DnnContext {};
#endif

class DnnHandles {
 public:
  // The process-wide cache.
  static DnnHandles* Global();

  DnnHandles();
  ~DnnHandles();
  DnnHandles(const DnnHandles&) = delete;
  DnnHandles& operator=(const DnnHandles&) = delete;

  // Makes GPU `ordinal` current and runs `fn` with the cuDNN handle of
  // (`ordinal`, `stream`), creating it on first use; one thread at a time
  // per (GPU, stream). Returns `fn`'s status or why there is no handle.
  absl::Status With(int ordinal, void* stream,
                    absl::FunctionRef<absl::Status(const DnnContext&)> fn);

  // Destroys the handle of (`ordinal`, `stream`), if any, once the stream
  // is idle (for a stream about to be destroyed).
  absl::Status Forget(int ordinal, void* stream);

  int64_t size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

#if DFLOW_HAVE_CUDNN

// cuDNN's type for a dflow dtype: float, double, half, bfloat16;
// Unimplemented naming `what` for others.
absl::StatusOr<cudnnDataType_t> DnnDataType(DataType dtype, const char* what);

// Owners of legacy cuDNN descriptors; Init* fill them (status errors name
// the call).
class DnnTensorDescriptor {
 public:
  DnnTensorDescriptor() = default;
  ~DnnTensorDescriptor();
  DnnTensorDescriptor(const DnnTensorDescriptor&) = delete;
  DnnTensorDescriptor& operator=(const DnnTensorDescriptor&) = delete;
  absl::Status Init(cudnnDataType_t type, const DnnTensorLayout& layout);
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

// y = x, element by element between two layouts of the same dims (a copy
// that pads, crops or permutes), on the handle's stream.
absl::Status DnnTransform(const DnnContext& dnn, cudnnDataType_t type,
                          const DnnTensorLayout& x_layout, const void* x,
                          const DnnTensorLayout& y_layout, void* y);

#endif  // DFLOW_HAVE_CUDNN

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_DNN_HANDLES_H_
