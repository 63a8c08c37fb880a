// Philox4x32-10: the counter-based random number generator of Salmon,
// Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3"
// (SC'11). A keyed bijection maps a 128-bit counter to 128 random bits, so
// any block of the stream is computed directly from its index: work split
// over threads in any way reads the same numbers, and a step that reserves
// a counter range gets numbers disjoint from every other step's.
//
// One round on counter words (c0, c1, c2, c3) and key (k0, k1):
//   (hi0, lo0) = c0 * 0xD2511F53   (64-bit product: high and low words)
//   (hi1, lo1) = c2 * 0xCD9E8D57
//   counter    = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)
// and between rounds the key grows by the Weyl constants (0x9E3779B9,
// 0xBB67AE85). Ten rounds; checked against the Random123 known answers.
//
// Seeds map onto the state as in TensorFlow: `seed` is the key (low word
// first), `seed2` the upper 64 bits of the counter, and the lower 64 bits
// of the counter count blocks (carrying into the upper 64).
#ifndef DFLOW_KERNELS_CPU_RANDOM_OPS_PHILOX_H_
#define DFLOW_KERNELS_CPU_RANDOM_OPS_PHILOX_H_

#include <array>
#include <atomic>
#include <cstdint>

namespace dflow {

class PhiloxRandom {
 public:
  // 32-bit words per block.
  static constexpr int kResultElementCount = 4;
  using Block = std::array<uint32_t, 4>;
  using Key = std::array<uint32_t, 2>;

  static constexpr uint32_t kMultiplier0 = 0xD2511F53u;
  static constexpr uint32_t kMultiplier1 = 0xCD9E8D57u;
  static constexpr uint32_t kWeyl0 = 0x9E3779B9u;
  static constexpr uint32_t kWeyl1 = 0xBB67AE85u;
  static constexpr int kRounds = 10;

  // The ten-round bijection: the block at `counter` under `key`.
  static Block Compute(Block counter, Key key) {
    for (int round = 0; round < kRounds; ++round) {
      if (round > 0) {
        key[0] += kWeyl0;
        key[1] += kWeyl1;
      }
      const uint64_t p0 = uint64_t{kMultiplier0} * counter[0];
      const uint64_t p1 = uint64_t{kMultiplier1} * counter[2];
      counter = {static_cast<uint32_t>(p1 >> 32) ^ counter[1] ^ key[0],
                 static_cast<uint32_t>(p1),
                 static_cast<uint32_t>(p0 >> 32) ^ counter[3] ^ key[1],
                 static_cast<uint32_t>(p0)};
    }
    return counter;
  }

  // Zero key and counter.
  PhiloxRandom() = default;
  // The stream of (seed, seed2), at block 0.
  PhiloxRandom(uint64_t seed, uint64_t seed2)
      : counter_{0, 0, static_cast<uint32_t>(seed2),
                 static_cast<uint32_t>(seed2 >> 32)},
        key_{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)} {}
  PhiloxRandom(const Block& counter, const Key& key)
      : counter_(counter), key_(key) {}

  // The block at the current counter; the counter then moves on by one.
  Block operator()() {
    const Block result = Compute(counter_, key_);
    Skip(1);
    return result;
  }

  // Moves the 128-bit counter on by `blocks` (modulo 2^128).
  void Skip(uint64_t blocks) {
    const uint64_t low = (uint64_t{counter_[1]} << 32) | counter_[0];
    const uint64_t sum = low + blocks;
    counter_[0] = static_cast<uint32_t>(sum);
    counter_[1] = static_cast<uint32_t>(sum >> 32);
    if (sum < low) {  // carry into the upper 64 bits
      if (++counter_[2] == 0) ++counter_[3];
    }
  }

  const Block& counter() const { return counter_; }
  const Key& key() const { return key_; }

 private:
  Block counter_{};
  Key key_{};
};

// The generator a stateless op's [2] seed (s0, s1) stands for, as
// TensorFlow's GenerateKey scrambles it: the seed words as a counter, one
// Philox block of it under a fixed key; the block's first two words become
// the key and its last two the upper half of the counter (the lower half
// starts at 0). StatelessRandomGetKeyCounter outputs the same key and
// counter.
inline PhiloxRandom PhiloxFromSeedPair(uint64_t s0, uint64_t s1) {
  constexpr PhiloxRandom::Key kScrambleKey = {0x3ec8f720u, 0x02461e29u};
  const PhiloxRandom::Block mix = PhiloxRandom::Compute(
      {static_cast<uint32_t>(s0), static_cast<uint32_t>(s0 >> 32),
       static_cast<uint32_t>(s1), static_cast<uint32_t>(s1 >> 32)},
      kScrambleKey);
  return PhiloxRandom({0, 0, mix[2], mix[3]}, {mix[0], mix[1]});
}

// A fresh 64-bit seed from the operating system's entropy: the stateful
// random ops' seed when both seed attrs are 0 (random_ops.cc).
uint64_t NondeterministicSeed();

class OpKernelConstruction;

// The stream of a stateful random op's "seed" and "seed2" attrs (both 0: a
// nondeterministic seed, as in TensorFlow); a missing attr fails `ctx`.
PhiloxRandom StreamFromSeedAttrs(OpKernelConstruction* ctx);

// A stateful op's stream and the blocks its runs have taken so far
// (TensorFlow's GuardedPhiloxRandom): each run reserves a range of blocks
// with one atomic add and draws only from it, so runs continue the stream
// and concurrent runs get disjoint numbers. The ranges are TensorFlow's, so
// the second and later runs give TensorFlow's numbers too.
class PhiloxReservations {
 public:
  explicit PhiloxReservations(OpKernelConstruction* ctx)
      : base_(StreamFromSeedAttrs(ctx)) {}

  // The generator at the first of `blocks` fresh blocks (128 bits each).
  PhiloxRandom Reserve(uint64_t blocks) {
    PhiloxRandom gen = base_;
    gen.Skip(next_block_.fetch_add(blocks, std::memory_order_relaxed));
    return gen;
  }
  // TensorFlow's ReserveSamples32: room for `words` 32-bit words.
  PhiloxRandom ReserveWords(uint64_t words) { return Reserve((words + 3) / 4); }

 private:
  PhiloxRandom base_;  // block 0 of (seed, seed2)
  // The low 64 bits of the counter handed out so far (wrapping after 2^64
  // blocks restarts the stream rather than carrying into seed2).
  std::atomic<uint64_t> next_block_{0};
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_RANDOM_OPS_PHILOX_H_
