// MurmurHash64A: see string_ops_murmurhash.h.
#include "kernels/cpu/string_ops_murmurhash.h"

#include <cstring>

namespace dflow {

uint64_t MurmurHash64A(const char* data, size_t size, uint64_t seed) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  constexpr int kShift = 47;
  uint64_t h = seed ^ (size * kMul);
  const size_t whole = size - size % 8;
  for (size_t at = 0; at < whole; at += 8) {
    uint64_t k;
    std::memcpy(&k, data + at, 8);  // little-endian hosts only (x86-64)
    k *= kMul;
    k ^= k >> kShift;
    k *= kMul;
    h ^= k;
    h *= kMul;
  }
  const size_t tail = size - whole;
  if (tail > 0) {
    for (size_t i = 0; i < tail; ++i) {
      h ^= static_cast<uint64_t>(static_cast<unsigned char>(data[whole + i]))
           << (8 * i);
    }
    h *= kMul;
  }
  h ^= h >> kShift;
  h *= kMul;
  h ^= h >> kShift;
  return h;
}

}  // namespace dflow
