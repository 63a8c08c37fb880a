// Allocator: where tensor memory comes from. Tensor asks an Allocator for
// aligned raw bytes and gives them back with the same size; the runtime layer
// wraps devices' memory (counting, per-device, GPU) behind this interface.
// DefaultCpuAllocator() is the process-wide host allocator used when no
// device is involved (builder constants, tests, proto conversion).

#ifndef DFLOW_GRAPH_ALLOCATOR_H_
#define DFLOW_GRAPH_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace dflow {

// Tensor buffers start on a 64-byte boundary: a cache line, and enough for
// any SIMD load (AVX-512 included) that Eigen kernels issue.
inline constexpr size_t kTensorAlignment = 64;

class Allocator {
 public:
  virtual ~Allocator() = default;

  // Returns `bytes` bytes aligned to `alignment` (a power of two), or nullptr
  // when the memory is not available. Never throws, never aborts: the sizes
  // can come from user files, and callers turn nullptr into an error.
  virtual void* AllocateRaw(size_t alignment, size_t bytes) = 0;
  // `ptr` came from AllocateRaw on this allocator with this `bytes`.
  virtual void DeallocateRaw(void* ptr, size_t bytes) = 0;
  // For error messages and memory statistics, e.g. "cpu".
  virtual std::string Name() const = 0;

  // The error for node `node_label` ("node 'x' (MatMul)") whose request of
  // `requested_bytes` this allocator just refused, when the allocator can
  // say more than "out of memory": its limit, what is in use, how
  // fragmented it is (BfcAllocator). OK (the default) means it has nothing
  // to add and the caller reports the failure itself. Never called on the
  // allocation path.
  virtual absl::Status OutOfMemoryError(absl::string_view node_label,
                                        int64_t requested_bytes) const {
    (void)node_label;
    (void)requested_bytes;
    return absl::OkStatus();
  }
};

// Thread-safe, lives for the whole process (never destroyed, so tensors in
// static storage may outlive main's other objects).
Allocator* DefaultCpuAllocator();

}  // namespace dflow

#endif  // DFLOW_GRAPH_ALLOCATOR_H_
