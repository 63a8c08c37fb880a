// SipHash-2-4: see string_ops_siphash.h.
#include "kernels/cpu/string_ops_siphash.h"

namespace dflow {
namespace {

inline uint64_t RotateLeft(uint64_t x, int bits) {
  return (x << bits) | (x >> (64 - bits));
}

struct SipState {
  uint64_t v0, v1, v2, v3;

  void Round() {
    v0 += v1;
    v1 = RotateLeft(v1, 13);
    v1 ^= v0;
    v0 = RotateLeft(v0, 32);
    v2 += v3;
    v3 = RotateLeft(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = RotateLeft(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = RotateLeft(v1, 17);
    v1 ^= v2;
    v2 = RotateLeft(v2, 32);
  }

  void Absorb(uint64_t m) {
    v3 ^= m;
    Round();
    Round();
    v0 ^= m;
  }
};

// Bytes [0, n) of `p` as a little-endian word (n <= 8).
inline uint64_t LoadLittleEndian(const char* p, size_t n) {
  uint64_t word = 0;
  for (size_t i = 0; i < n; ++i) {
    word |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  return word;
}

}  // namespace

uint64_t SipHash24(uint64_t k0, uint64_t k1, const char* data, size_t size) {
  // The initial state is the key xor "somepseudorandomlygeneratedbytes".
  SipState s{k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
             k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL};
  const size_t whole = size - size % 8;
  for (size_t at = 0; at < whole; at += 8) {
    s.Absorb(LoadLittleEndian(data + at, 8));
  }
  // The last word: the remaining bytes, and the length's low byte on top.
  s.Absorb(LoadLittleEndian(data + whole, size - whole) |
           (static_cast<uint64_t>(size & 0xff) << 56));
  s.v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) s.Round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

}  // namespace dflow
