// Distributions over Philox blocks, and the fill loop the random kernels
// share. Layout (the same as TensorFlow's CPU kernels, so equal seeds give
// TensorFlow's numbers): the output is cut into groups of kGroupSize
// elements, and group g reads only the counter blocks
// [g * kBlocksPerGroup, (g + 1) * kBlocksPerGroup) past the step's base.
// An element's value therefore depends on (seed, seed2, step offset, its
// index) and never on how the groups are split over threads.
//
//   distribution             group (half/bf16/float | double)  blocks/group
//   UniformDistribution      4 (block i/4, word i%4) | 2 (words 2j, 2j+1)  1
//   UniformIntDistribution   4 (int32, a word each) | 2 (int64, two words)  1
//   NormalDistribution       4 (two Box-Muller pairs) | 2 (one pair)      1
//   TruncatedNormal...       4 | 2, redrawing beyond 2 stddev   256 | 128
//
// Uniform: a float's 23 mantissa bits are the word's low 23 bits, giving
// [1, 2) minus 1 = [0, 1) in steps of 2^-23 (double: 52 bits from two
// words, the first word's low 20 bits on top; half: 10 bits; bfloat16:
// 7 bits). Normal: Box-Muller, z0 = r sin(2 pi u2), z1 = r cos(2 pi u2) with
// r = sqrt(-2 ln u1) and u1 clamped below at 1e-7 (so |z| < 5.7); half
// and bfloat16 are computed in float and rounded. Truncated normal: values
// come from a single-word stream starting at the group's first block;
// Box-Muller pairs are taken in order and values with |z| >= 2 dropped
// (for half/bfloat16 the test is on the float, so the rounded value may be
// exactly +-2). The reserved blocks (256 words per element) run out with
// probability below 1e-300; a group that does read past them continues
// into the next group's blocks, still the same values on every split.
#ifndef DFLOW_KERNELS_CPU_RANDOM_OPS_DISTRIBUTIONS_H_
#define DFLOW_KERNELS_CPU_RANDOM_OPS_DISTRIBUTIONS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "graph/types.h"
#include "kernels/cpu/random_ops_philox.h"

namespace dflow {
namespace random_internal {

inline constexpr double kPi = 3.14159265358979323846;

// [0, 1) from the low 23 bits of x.
inline float Uint32ToUnitFloat(uint32_t x) {
  const uint32_t bits = (uint32_t{127} << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

// [0, 1) from 52 bits: the low 20 bits of `hi` above the 32 of `lo`.
inline double Uint64ToUnitDouble(uint32_t hi, uint32_t lo) {
  const uint64_t bits =
      (uint64_t{1023} << 52) | (uint64_t{hi & 0xfffffu} << 32) | uint64_t{lo};
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

// Two standard normal values from two words.
inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* z0, float* z1) {
  constexpr float kEpsilon = 1.0e-7f;
  float u1 = Uint32ToUnitFloat(x0);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const float angle = static_cast<float>(2.0 * kPi * Uint32ToUnitFloat(x1));
  const float radius = std::sqrt(-2.0f * std::log(u1));
  *z0 = std::sin(angle) * radius;
  *z1 = std::cos(angle) * radius;
}

// Two standard normal values from four words.
inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3,
                            double* z0, double* z1) {
  constexpr double kEpsilon = 1.0e-7;
  double u1 = Uint64ToUnitDouble(x0, x1);
  if (u1 < kEpsilon) u1 = kEpsilon;
  const double angle = 2.0 * kPi * Uint64ToUnitDouble(x2, x3);
  const double radius = std::sqrt(-2.0 * std::log(u1));
  *z0 = std::sin(angle) * radius;
  *z1 = std::cos(angle) * radius;
}

// A float rounded to the storage type T (half, bfloat16 or float).
template <typename T>
T FromFloat(float f) {
  if constexpr (std::is_same_v<T, float>) {
    return f;
  } else {
    return T::FromFloat(f);
  }
}

// A value of T (float16, bfloat16 or a standard arithmetic type) as a
// double, and a double rounded to T (the 2-byte types through float): what
// the samplers compute in and store.
template <typename T>
double ToDouble(T v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return v.ToFloat();
  } else {
    return static_cast<double>(v);
  }
}
template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T::FromFloat(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// Uniform [0, 1) in T from one word (half and bfloat16 use its low bits;
// the results are exact in T).
template <typename T>
T UnitFromWord(uint32_t x) {
  if constexpr (std::is_same_v<T, float16>) {
    return float16::FromFloat(static_cast<float>(x & 0x3ffu) / 1024.0f);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return bfloat16::FromFloat(static_cast<float>(x & 0x7fu) / 128.0f);
  } else {
    static_assert(std::is_same_v<T, float>, "half, bfloat16 or float");
    return Uint32ToUnitFloat(x);
  }
}

// One word at a time from a Philox stream.
class SingleWordStream {
 public:
  explicit SingleWordStream(PhiloxRandom* gen) : gen_(gen) {}
  uint32_t operator()() {
    if (used_ == PhiloxRandom::kResultElementCount) {
      block_ = (*gen_)();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  PhiloxRandom* gen_;
  PhiloxRandom::Block block_{};
  int used_ = PhiloxRandom::kResultElementCount;
};

}  // namespace random_internal

// A distribution D provides:
//   using Element;                      the tensor's storage type
//   static constexpr int kGroupSize;    elements per call
//   static constexpr uint64_t kBlocksPerGroup;  counter blocks reserved
//   static constexpr int64_t kCostPerGroup;     cycles, for sharding
//   void operator()(PhiloxRandom* gen, Element* out) const;
// where operator() writes kGroupSize elements.

template <typename T>
struct UniformDistribution {
  using Element = T;
  static constexpr bool kIsDouble = std::is_same_v<T, double>;
  static constexpr int kGroupSize = kIsDouble ? 2 : 4;
  static constexpr uint64_t kBlocksPerGroup = 1;
  static constexpr int64_t kCostPerGroup = 60;

  void operator()(PhiloxRandom* gen, T* out) const {
    const PhiloxRandom::Block b = (*gen)();
    if constexpr (kIsDouble) {
      out[0] = random_internal::Uint64ToUnitDouble(b[0], b[1]);
      out[1] = random_internal::Uint64ToUnitDouble(b[2], b[3]);
    } else {
      for (int i = 0; i < 4; ++i)
        out[i] = random_internal::UnitFromWord<T>(b[i]);
    }
  }
};

template <typename T>
struct NormalDistribution {
  using Element = T;
  static constexpr bool kIsDouble = std::is_same_v<T, double>;
  static constexpr int kGroupSize = kIsDouble ? 2 : 4;
  static constexpr uint64_t kBlocksPerGroup = 1;
  static constexpr int64_t kCostPerGroup = 250;

  void operator()(PhiloxRandom* gen, T* out) const {
    const PhiloxRandom::Block b = (*gen)();
    if constexpr (kIsDouble) {
      random_internal::BoxMullerDouble(b[0], b[1], b[2], b[3], &out[0],
                                       &out[1]);
    } else {
      float z[4];
      random_internal::BoxMullerFloat(b[0], b[1], &z[0], &z[1]);
      random_internal::BoxMullerFloat(b[2], b[3], &z[2], &z[3]);
      for (int i = 0; i < 4; ++i) {
        out[i] = random_internal::FromFloat<T>(z[i]);
      }
    }
  }
};

template <typename T>
struct TruncatedNormalDistribution {
  using Element = T;
  static constexpr bool kIsDouble = std::is_same_v<T, double>;
  static constexpr int kGroupSize = kIsDouble ? 2 : 4;
  // 256 words reserved per output element, as TensorFlow does.
  static constexpr uint64_t kBlocksPerGroup =
      kGroupSize * 256 / PhiloxRandom::kResultElementCount;
  static constexpr int64_t kCostPerGroup = 320;

  void operator()(PhiloxRandom* gen, T* out) const {
    random_internal::SingleWordStream words(gen);
    int filled = 0;
    while (true) {
      if constexpr (kIsDouble) {
        const uint32_t x0 = words(), x1 = words(), x2 = words(), x3 = words();
        double z[2];
        random_internal::BoxMullerDouble(x0, x1, x2, x3, &z[0], &z[1]);
        for (double v : z) {
          if (std::fabs(v) < 2.0) {
            out[filled++] = v;
            if (filled == kGroupSize) return;
          }
        }
      } else {
        const uint32_t x0 = words(), x1 = words();
        float z[2];
        random_internal::BoxMullerFloat(x0, x1, &z[0], &z[1]);
        for (float v : z) {
          if (std::fabs(v) < 2.0f) {
            out[filled++] = random_internal::FromFloat<T>(v);
            if (filled == kGroupSize) return;
          }
        }
      }
    }
  }
};

// Integers on [lo, lo + range) as TensorFlow draws them: int32 takes one
// word per element (4 per block), int64 two (the first the low half, 2 per
// block), and the value is lo + bits % range. The modulo leaves a bias of
// at most range / 2^32 (2^64), which TensorFlow accepts too.
template <typename T>
struct UniformIntDistribution {
  using Element = T;
  using Unsigned = std::make_unsigned_t<T>;
  static constexpr bool kIs64 = sizeof(T) == 8;
  static constexpr int kGroupSize = kIs64 ? 2 : 4;
  static constexpr uint64_t kBlocksPerGroup = 1;
  static constexpr int64_t kCostPerGroup = 60;

  UniformIntDistribution() = default;
  UniformIntDistribution(T lo, Unsigned range) : lo(lo), range(range) {}

  void operator()(PhiloxRandom* gen, T* out) const {
    const PhiloxRandom::Block b = (*gen)();
    if constexpr (kIs64) {
      for (int i = 0; i < 2; ++i) {
        const uint64_t bits = uint64_t{b[2 * i]} | uint64_t{b[2 * i + 1]} << 32;
        out[i] = static_cast<T>(static_cast<Unsigned>(lo) + bits % range);
      }
    } else {
      for (int i = 0; i < 4; ++i) {
        out[i] = static_cast<T>(static_cast<Unsigned>(lo) + b[i] % range);
      }
    }
  }

  T lo = 0;
  Unsigned range = 1;
};

// Integers over all of T's values (int32, uint32: a word each, 4 per
// block; int64, uint64: two words, the first the low half, 2 per block):
// TensorFlow's UniformFullIntDistribution.
template <typename T>
struct UniformFullIntDistribution {
  using Element = T;
  static constexpr bool kIs64 = sizeof(T) == 8;
  static constexpr int kGroupSize = kIs64 ? 2 : 4;
  static constexpr uint64_t kBlocksPerGroup = 1;
  static constexpr int64_t kCostPerGroup = 40;

  void operator()(PhiloxRandom* gen, T* out) const {
    const PhiloxRandom::Block b = (*gen)();
    if constexpr (kIs64) {
      for (int i = 0; i < 2; ++i) {
        out[i] = static_cast<T>(uint64_t{b[2 * i]} |
                                uint64_t{b[2 * i + 1]} << 32);
      }
    } else {
      for (int i = 0; i < 4; ++i) out[i] = static_cast<T>(b[i]);
    }
  }
};

// Groups needed for `size` elements.
template <class D>
int64_t NumRandomGroups(int64_t size) {
  return (size + D::kGroupSize - 1) / D::kGroupSize;
}

// Writes groups [begin_group, end_group) of a `size`-element output drawn
// from `base` (the step's first block); the last group may be partial. Any
// split of [0, NumRandomGroups(size)) into calls gives the same data.
template <class D>
void FillRandomGroups(const D& dist, const PhiloxRandom& base,
                      typename D::Element* data, int64_t size,
                      int64_t begin_group, int64_t end_group) {
  using Element = typename D::Element;
  for (int64_t g = begin_group; g < end_group; ++g) {
    PhiloxRandom gen = base;
    gen.Skip(static_cast<uint64_t>(g) * D::kBlocksPerGroup);
    const int64_t offset = g * D::kGroupSize;
    if (size - offset >= D::kGroupSize) {
      dist(&gen, data + offset);
    } else {
      Element tail[D::kGroupSize];
      dist(&gen, tail);
      std::copy(tail, tail + (size - offset), data + offset);
    }
  }
}

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_RANDOM_OPS_DISTRIBUTIONS_H_
