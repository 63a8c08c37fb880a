#include "kernels/gpu/dnn_handles.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/gpu/stream_handle_cache.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_streams.h"

namespace dflow {

namespace {

constexpr char kDnnWhat[] = "cuDNN handle";

}  // namespace

DnnTensorLayout NhwcLayout(int64_t n, int64_t h, int64_t w, int64_t c) {
  DnnTensorLayout l;
  l.n = n;
  l.c = c;
  l.h = h;
  l.w = w;
  l.stride_c = 1;
  l.stride_w = c;
  l.stride_h = w * c;
  l.stride_n = h * w * c;
  return l;
}

absl::Status CheckDnnLimits(const DnnTensorLayout& l, const char* what) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  // The highest element offset + 1: the span cuDNN addresses.
  const __int128 span = static_cast<__int128>(l.n - 1) * l.stride_n +
                        static_cast<__int128>(l.c - 1) * l.stride_c +
                        static_cast<__int128>(l.h - 1) * l.stride_h +
                        static_cast<__int128>(l.w - 1) * l.stride_w + 1;
  const bool fits = l.n <= kMax && l.c <= kMax && l.h <= kMax && l.w <= kMax &&
                    l.stride_n <= kMax && l.stride_c <= kMax &&
                    l.stride_h <= kMax && l.stride_w <= kMax && span <= kMax;
  if (fits) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      what, " [n=", l.n, ", c=", l.c, ", h=", l.h, ", w=", l.w,
      "] is too large for cuDNN (at most 2^31 - 1 elements per tensor): "
      "split the batch, or place the op on CPU"));
}

// --- StreamOrderedScratch
// -----------------------------------------------------

StreamOrderedScratch::StreamOrderedScratch(int ordinal, void* stream)
    : ordinal_(ordinal), stream_(stream) {}

#if DFLOW_HAVE_CUDA

StreamOrderedScratch::~StreamOrderedScratch() {
  if (blocks_.empty()) return;
  int previous = 0;
  const bool switch_device =
      cudaGetDevice(&previous) == cudaSuccess && previous != ordinal_;
  if (switch_device) cudaSetDevice(ordinal_);
  for (void* p : blocks_) {
    // An error here means the context is broken; nothing better to do
    // than to leave the block to the driver's teardown.
    if (cudaFreeAsync(p, static_cast<cudaStream_t>(stream_)) != cudaSuccess) {
      cudaGetLastError();
    }
  }
  if (switch_device) cudaSetDevice(previous);
}

absl::StatusOr<void*> StreamOrderedScratch::Allocate(size_t bytes) {
  void* p = nullptr;
  if (bytes == 0) return p;
  DFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_), "cudaSetDevice");
  absl::Status s =
      CudaStatus(cudaMallocAsync(&p, bytes, static_cast<cudaStream_t>(stream_)),
                 absl::StrCat("cudaMallocAsync of ", bytes,
                              " bytes of scratch on GPU:", ordinal_));
  if (!s.ok()) {
    cudaGetLastError();  // not sticky; keep the next call clean
    return s;
  }
  blocks_.push_back(p);
  return p;
}

#else  // !DFLOW_HAVE_CUDA

StreamOrderedScratch::~StreamOrderedScratch() = default;

absl::StatusOr<void*> StreamOrderedScratch::Allocate(size_t /*bytes*/) {
  return BuiltWithoutCudaError("StreamOrderedScratch::Allocate");
}

#endif  // DFLOW_HAVE_CUDA

// --- DnnHandles
// -----------------------------------------------------------------

#if DFLOW_HAVE_CUDNN

namespace {

// How StreamHandleCache makes and frees a (GPU, stream)'s cuDNN handle.
struct DnnTraits {
  using Context = DnnContext;
  static constexpr const char* kWhat = kDnnWhat;

  static void* Stream(const DnnContext& c) { return c.stream; }

  static absl::Status Create(int ordinal, void* stream, DnnContext* c) {
    c->ordinal = ordinal;
    c->stream = static_cast<cudaStream_t>(stream);
    absl::Status s = CudnnStatus(cudnnCreate(&c->handle), "cudnnCreate");
    if (s.ok()) {
      s = CudnnStatus(cudnnSetStream(c->handle, c->stream), "cudnnSetStream");
    }
    if (!s.ok()) Destroy(c).IgnoreError();  // keep the first error
    return s;
  }

  static absl::Status Destroy(DnnContext* c) {
    if (c->handle == nullptr) return absl::OkStatus();
    absl::Status s = CudnnStatus(cudnnDestroy(c->handle), "cudnnDestroy");
    c->handle = nullptr;
    return s;
  }
};

}  // namespace

struct DnnHandles::Impl {
  StreamHandleCache<DnnTraits> cache;
};

DnnHandles::DnnHandles() : impl_(std::make_unique<Impl>()) {}
DnnHandles::~DnnHandles() = default;

DnnHandles* DnnHandles::Global() {
  // Never destroyed (see BlasHandles::Global).
  static DnnHandles* const global = new DnnHandles();
  return global;
}

absl::Status DnnHandles::With(
    int ordinal, void* stream,
    absl::FunctionRef<absl::Status(const DnnContext&)> fn) {
  return impl_->cache.With(ordinal, stream, fn);
}

absl::Status DnnHandles::Forget(int ordinal, void* stream) {
  return impl_->cache.Forget(ordinal, stream);
}

int64_t DnnHandles::size() const { return impl_->cache.size(); }

// --- Descriptors
// ----------------------------------------------------------------

absl::StatusOr<cudnnDataType_t> DnnDataType(DataType dtype, const char* what) {
  switch (dtype) {
    case DT_FLOAT:
      return CUDNN_DATA_FLOAT;
    case DT_DOUBLE:
      return CUDNN_DATA_DOUBLE;
    case DT_HALF:
      return CUDNN_DATA_HALF;
    case DT_BFLOAT16:
      return CUDNN_DATA_BFLOAT16;
    default:
      return absl::UnimplementedError(absl::StrCat(
          what, " on GPU takes float, double, half or bfloat16, not ",
          DataTypeName(dtype), ": place it on CPU"));
  }
}

DnnTensorDescriptor::~DnnTensorDescriptor() {
  if (desc_ != nullptr) cudnnDestroyTensorDescriptor(desc_);
}

absl::Status DnnTensorDescriptor::Init(cudnnDataType_t type,
                                       const DnnTensorLayout& l) {
  if (desc_ == nullptr) {
    absl::Status s = CudnnStatus(cudnnCreateTensorDescriptor(&desc_),
                                 "cudnnCreateTensorDescriptor");
    if (!s.ok()) return s;
  }
  return CudnnStatus(
      cudnnSetTensor4dDescriptorEx(
          desc_, type, static_cast<int>(l.n), static_cast<int>(l.c),
          static_cast<int>(l.h), static_cast<int>(l.w),
          static_cast<int>(l.stride_n), static_cast<int>(l.stride_c),
          static_cast<int>(l.stride_h), static_cast<int>(l.stride_w)),
      absl::StrCat("cudnnSetTensor4dDescriptorEx [n=", l.n, ", c=", l.c,
                   ", h=", l.h, ", w=", l.w, "]"));
}

absl::Status DnnTransform(const DnnContext& dnn, cudnnDataType_t type,
                          const DnnTensorLayout& x_layout, const void* x,
                          const DnnTensorLayout& y_layout, void* y) {
  DnnTensorDescriptor x_desc, y_desc;
  absl::Status s = x_desc.Init(type, x_layout);
  if (s.ok()) s = y_desc.Init(type, y_layout);
  if (!s.ok()) return s;
  // Scaling factors are double for double tensors, float otherwise.
  const double one_d = 1, zero_d = 0;
  const float one_f = 1, zero_f = 0;
  const bool is_double = type == CUDNN_DATA_DOUBLE;
  return CudnnStatus(
      cudnnTransformTensor(
          dnn.handle, is_double ? static_cast<const void*>(&one_d) : &one_f,
          x_desc.get(), x,
          is_double ? static_cast<const void*>(&zero_d) : &zero_f, y_desc.get(),
          y),
      "cudnnTransformTensor");
}

#else  // !DFLOW_HAVE_CUDNN

struct DnnHandles::Impl {};

DnnHandles::DnnHandles() : impl_(std::make_unique<Impl>()) {}
DnnHandles::~DnnHandles() = default;

DnnHandles* DnnHandles::Global() {
  static DnnHandles* const global = new DnnHandles();
  return global;
}

absl::Status DnnHandles::With(
    int ordinal, void* stream,
    absl::FunctionRef<absl::Status(const DnnContext&)> /*fn*/) {
  return BuiltWithoutCudaError(
      gpu_handles::EntryName(kDnnWhat, ordinal, stream));
}

absl::Status DnnHandles::Forget(int /*ordinal*/, void* /*stream*/) {
  return absl::OkStatus();
}

int64_t DnnHandles::size() const { return 0; }

#endif  // DFLOW_HAVE_CUDNN

// A GpuStreams about to destroy its streams: forget their cuDNN handle, so a
// later stream at the same address gets fresh ones (Forget waits for the
// stream, which is idle by then). Registered wherever this cache is linked.
namespace {
[[maybe_unused]] const int kForgetOnStreamDestroyed =
    GpuStreams::AddStreamDestroyedHook([](int ordinal, void* stream) {
      // Nothing to report to: the stream is going away either way, and a
      // failed destroy only leaks the handle.
      DnnHandles::Global()->Forget(ordinal, stream).IgnoreError();
    });
}  // namespace

}  // namespace dflow
