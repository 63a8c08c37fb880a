// Host-side plans of the strided copy (array_ops_gpu.h).
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/gpu/array_ops_gpu.h"

namespace dflow {

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

absl::StatusOr<GpuStridedCopy> MakeGpuStridedCopy(
    absl::Span<const int64_t> dims, absl::Span<const int64_t> src_strides,
    absl::Span<const int64_t> dst_strides, int64_t src_offset,
    int64_t dst_offset, absl::Span<const int64_t> src_mod, const char* what) {
  if (src_strides.size() != dims.size() || dst_strides.size() != dims.size() ||
      (!src_mod.empty() && src_mod.size() != dims.size())) {
    return absl::InternalError(
        absl::StrCat(what, ": a strided copy with mismatched ranks"));
  }
  GpuStridedCopy c;
  c.src_offset = src_offset;
  c.dst_offset = dst_offset;
  c.num_elements = 1;
  for (int64_t d : dims) c.num_elements *= d;
  // Kept dimensions, outermost first.
  std::vector<int64_t> kd, ks, kt, km;
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t mod = src_mod.empty() ? 0 : src_mod[d];
    if (dims[d] == 1) continue;
    if (!kd.empty() && mod == 0 && km.back() == 0 &&
        ks.back() == src_strides[d] * dims[d] &&
        kt.back() == dst_strides[d] * dims[d]) {
      // The outer neighbour steps over exactly this dimension in both.
      kd.back() *= dims[d];
      ks.back() = src_strides[d];
      kt.back() = dst_strides[d];
      continue;
    }
    kd.push_back(dims[d]);
    ks.push_back(src_strides[d]);
    kt.push_back(dst_strides[d]);
    km.push_back(mod);
  }
  if (kd.size() > static_cast<size_t>(kGpuCopyMaxRank)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " on a GPU moves at most ", kGpuCopyMaxRank,
        " dimensions that cannot be merged, not ", kd.size(),
        "; run it on the CPU"));
  }
  c.rank = static_cast<int>(kd.size());
  for (int d = 0; d < c.rank; ++d) {
    c.dims[d] = kd[d];
    c.src_strides[d] = ks[d];
    c.dst_strides[d] = kt[d];
    c.src_mod[d] = km[d];
  }
  return c;
}

void HostStridedCopy(int elem_size, const GpuStridedCopy& c, const void* src,
                     void* dst) {
  const auto* s = static_cast<const unsigned char*>(src);
  auto* t = static_cast<unsigned char*>(dst);
  for (int64_t i = 0; i < c.num_elements; ++i) {
    int64_t rest = i;
    int64_t so = c.src_offset;
    int64_t to = c.dst_offset;
    for (int d = c.rank - 1; d >= 0; --d) {
      const int64_t idx = rest % c.dims[d];
      rest /= c.dims[d];
      so += (c.src_mod[d] > 0 ? idx % c.src_mod[d] : idx) * c.src_strides[d];
      to += idx * c.dst_strides[d];
    }
    std::memcpy(t + to * elem_size, s + so * elem_size, elem_size);
  }
}

}  // namespace dflow
