#include "graph/allocator.h"

#include <cstdint>
#include <cstdlib>

namespace dflow {
namespace {

// Small blocks (most of them scalars and shape vectors, allocated and freed
// once per op) come from malloc, over-allocated and aligned by hand, with
// the pointer malloc returned stored just before the aligned block: malloc
// serves them from its per-thread cache in a few dozen instructions, while
// posix_memalign takes its slow path and splits a chunk every time (it was
// a fifth of a scalar op's cost in the executor benchmark). Large blocks
// use posix_memalign, whose overhead there is negligible. Deallocation
// tells the two apart by the size, which callers pass back unchanged.
class CpuAllocator final : public Allocator {
 public:
  void* AllocateRaw(size_t alignment, size_t bytes) override {
    // posix_memalign needs a power of two that is a multiple of
    // sizeof(void*); a zero-byte request still gets a unique pointer so
    // callers need not special-case it.
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    if ((alignment & (alignment - 1)) != 0) return nullptr;
    if (bytes <= kSmallBytes) {
      void* raw = std::malloc(bytes + alignment + sizeof(void*));
      if (raw == nullptr) return nullptr;
      const uintptr_t aligned =
          (reinterpret_cast<uintptr_t>(raw) + sizeof(void*) + alignment - 1) &
          ~(static_cast<uintptr_t>(alignment) - 1);
      reinterpret_cast<void**>(aligned)[-1] = raw;
      return reinterpret_cast<void*>(aligned);
    }
    void* ptr = nullptr;
    if (posix_memalign(&ptr, alignment, bytes) != 0) return nullptr;
    return ptr;
  }

  void DeallocateRaw(void* ptr, size_t bytes) override {
    if (ptr == nullptr) return;
    if (bytes <= kSmallBytes) {
      std::free(static_cast<void**>(ptr)[-1]);
    } else {
      std::free(ptr);
    }
  }

  std::string Name() const override { return "cpu"; }

 private:
  static constexpr size_t kSmallBytes = 256;
};

}  // namespace

Allocator* DefaultCpuAllocator() {
  // Leaked on purpose: see the header.
  static Allocator* const allocator = new CpuAllocator();
  return allocator;
}

}  // namespace dflow
