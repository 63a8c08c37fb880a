// A Philox generator read one 32-bit word at a time, with the integer and
// floating-point draws TensorFlow's SimplePhilox makes from those words
// (multinomial sampling, the candidate samplers, the shuffles). The words
// of each 128-bit block are taken in order, a new block fetched when four
// are used; a draw consumes the same words TensorFlow's does, so a sampler
// built on it gives TensorFlow's values for a given generator:
//   Rand32       one word
//   Rand64       two words, the first the low half
//   RandFloat    one word: its low 23 bits as a float in [0, 1)
//   RandDouble   two words: 52 bits as a double in [0, 1) (the first
//                word's low 20 bits on top)
//   Uniform(n)   32-bit words until one is >= (2^32 - 1) % n + 1, then
//                that word % n (exactly uniform; a power of two masks the
//                first word; n = 0 uses a word and returns 0)
//   Uniform64(n) the same with 64-bit draws
#ifndef DFLOW_KERNELS_CPU_RANDOM_OPS_WORDS_H_
#define DFLOW_KERNELS_CPU_RANDOM_OPS_WORDS_H_

#include <cstdint>

#include "kernels/cpu/random_ops_distributions.h"
#include "kernels/cpu/random_ops_philox.h"

namespace dflow {

class PhiloxWords {
 public:
  // Reads from `gen` (not owned), which moves on a block at a time.
  explicit PhiloxWords(PhiloxRandom* gen) : gen_(gen) {}

  uint32_t Rand32() {
    if (used_ == PhiloxRandom::kResultElementCount) {
      block_ = (*gen_)();
      used_ = 0;
    }
    return block_[used_++];
  }
  uint64_t Rand64() {
    const uint64_t lo = Rand32();
    const uint64_t hi = Rand32();
    return lo | hi << 32;
  }
  float RandFloat() { return random_internal::Uint32ToUnitFloat(Rand32()); }
  double RandDouble() {
    const uint32_t hi = Rand32();
    const uint32_t lo = Rand32();
    return random_internal::Uint64ToUnitDouble(hi, lo);
  }
  uint32_t Uniform(uint32_t n) {
    return ExactUniform<uint32_t>(n, [this] { return Rand32(); });
  }
  uint64_t Uniform64(uint64_t n) {
    return ExactUniform<uint64_t>(n, [this] { return Rand64(); });
  }

  // Rejection sampling: draws below (max % n) + 1 would favour small
  // results, so they are drawn again.
  template <typename U, typename Draw>
  static U ExactUniform(U n, Draw draw) {
    if (n == 0) return draw() * n;
    if ((n & (n - 1)) == 0) return draw() & (n - 1);
    const U reject_below = static_cast<U>(~U{0} % n) + 1;
    U bits;
    do {
      bits = draw();
    } while (bits < reject_below);
    return bits % n;
  }

 private:
  PhiloxRandom* gen_;
  PhiloxRandom::Block block_{};
  int used_ = PhiloxRandom::kResultElementCount;
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_RANDOM_OPS_WORDS_H_
