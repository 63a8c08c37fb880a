// The strided copy and fills of array_ops_gpu.h: grid-stride loops, one
// element per step, moved as an unsigned word of the element's width.
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "kernels/gpu/array_ops_gpu.h"
#include "kernels/gpu/gpu_device_util.cu.h"

namespace dflow {
namespace gpu {
namespace {

struct alignas(16) Word16 {
  uint64_t lo, hi;
};

template <typename W>
__global__ void StridedCopyKernel(GpuStridedCopy c, const W* src, W* dst) {
  for (int64_t i = GlobalThreadIndex(); i < c.num_elements; i += GridStride()) {
    int64_t rest = i;
    int64_t s = c.src_offset;
    int64_t t = c.dst_offset;
    for (int d = c.rank - 1; d >= 0; --d) {
      const int64_t idx = rest % c.dims[d];
      rest /= c.dims[d];
      const int64_t sidx = c.src_mod[d] > 0 ? idx % c.src_mod[d] : idx;
      s += sidx * c.src_strides[d];
      t += idx * c.dst_strides[d];
    }
    dst[t] = src[s];
  }
}

template <typename W>
__global__ void FillFromDeviceKernel(const W* value, W* dst, int64_t n) {
  const W v = *value;
  for (int64_t i = GlobalThreadIndex(); i < n; i += GridStride()) dst[i] = v;
}

template <typename W>
__global__ void FillValueKernel(W v, W* dst, int64_t n) {
  for (int64_t i = GlobalThreadIndex(); i < n; i += GridStride()) dst[i] = v;
}

absl::Status BadWidth(const char* what, int elem_size) {
  return absl::InternalError(
      absl::StrCat(what, ": no GPU kernel moves ", elem_size, "-byte elements"));
}

template <typename W>
void CopyAs(const GpuStridedCopy& c, const void* src, void* dst,
            cudaStream_t stream) {
  StridedCopyKernel<W><<<BlocksFor(c.num_elements), kThreadsPerBlock, 0,
                         stream>>>(c, static_cast<const W*>(src),
                                   static_cast<W*>(dst));
}

template <typename W>
void FillDevAs(const void* value, void* dst, int64_t n, cudaStream_t stream) {
  FillFromDeviceKernel<W><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      static_cast<const W*>(value), static_cast<W*>(dst), n);
}

template <typename W>
void FillValAs(const void* value, void* dst, int64_t n, cudaStream_t stream) {
  W v;
  std::memcpy(&v, value, sizeof(W));
  FillValueKernel<W><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      v, static_cast<W*>(dst), n);
}

}  // namespace
}  // namespace gpu

absl::Status LaunchGpuStridedCopy(int elem_size, const GpuStridedCopy& copy,
                                  const void* src, void* dst, void* stream) {
  if (copy.num_elements <= 0) return absl::OkStatus();
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (elem_size) {
    case 1: gpu::CopyAs<uint8_t>(copy, src, dst, s); break;
    case 2: gpu::CopyAs<uint16_t>(copy, src, dst, s); break;
    case 4: gpu::CopyAs<uint32_t>(copy, src, dst, s); break;
    case 8: gpu::CopyAs<uint64_t>(copy, src, dst, s); break;
    case 16: gpu::CopyAs<gpu::Word16>(copy, src, dst, s); break;
    default: return gpu::BadWidth("strided copy", elem_size);
  }
  return gpu::LaunchStatus(absl::StrCat("a strided copy (", copy.num_elements,
                                        " elements of ", elem_size,
                                        " bytes)"));
}

absl::Status LaunchGpuFillFromDevice(int elem_size, const void* value,
                                     void* dst, int64_t n, void* stream) {
  if (n <= 0) return absl::OkStatus();
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (elem_size) {
    case 1: gpu::FillDevAs<uint8_t>(value, dst, n, s); break;
    case 2: gpu::FillDevAs<uint16_t>(value, dst, n, s); break;
    case 4: gpu::FillDevAs<uint32_t>(value, dst, n, s); break;
    case 8: gpu::FillDevAs<uint64_t>(value, dst, n, s); break;
    case 16: gpu::FillDevAs<gpu::Word16>(value, dst, n, s); break;
    default: return gpu::BadWidth("fill", elem_size);
  }
  return gpu::LaunchStatus(absl::StrCat("a fill (", n, " elements)"));
}

absl::Status LaunchGpuFillValue(int elem_size, const void* value, void* dst,
                                int64_t n, void* stream) {
  if (n <= 0) return absl::OkStatus();
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (elem_size) {
    case 1: gpu::FillValAs<uint8_t>(value, dst, n, s); break;
    case 2: gpu::FillValAs<uint16_t>(value, dst, n, s); break;
    case 4: gpu::FillValAs<uint32_t>(value, dst, n, s); break;
    case 8: gpu::FillValAs<uint64_t>(value, dst, n, s); break;
    case 16: gpu::FillValAs<gpu::Word16>(value, dst, n, s); break;
    default: return gpu::BadWidth("fill", elem_size);
  }
  return gpu::LaunchStatus(absl::StrCat("a fill (", n, " elements)"));
}

}  // namespace dflow
