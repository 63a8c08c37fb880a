// Philox4x32-10 and the random kernels' distributions as code both
// compilers build (__host__ __device__ under nvcc, plain C++ otherwise), so
// the GPU kernels draw exactly the CPU kernels' numbers
// (kernels/cpu/random_ops_philox.h, random_ops_distributions.h: the same
// counter layout, groups, words and formulas) and a host test proves it
// without a GPU (tests/kernels/gpu/random_ops_gpu_philox_test.cc).
//
// The one thing the two devices do not share is libm. The CPU's float
// Box-Muller calls glibc's logf, sinf and cosf, which are not correctly
// rounded (about 1% of results are one ulp off the nearest float). Here
// each is computed in double and rounded to float (correctly rounded on
// both devices for every input that occurs), then moved by the one ulp
// where the host's libm differs: a 2-bit code per possible input, in
// tables the host builds from its own libm (random_ops_gpu_tables.h). The
// inputs are few: u1 and the angle each come from the 23 low bits of one
// word, so a table has 2^23 codes (2 MiB). With the tables, float, half and
// bfloat16 normals equal the CPU's bit for bit; double normals use the
// device's double log/sin/cos and differ from glibc's in the last bits of
// a few values.
#ifndef DFLOW_KERNELS_GPU_RANDOM_OPS_GPU_PHILOX_H_
#define DFLOW_KERNELS_GPU_RANDOM_OPS_GPU_PHILOX_H_

#include <math.h>
#include <string.h>

#include <cstdint>

#include "kernels/gpu/gpu_launch_util.h"

namespace dflow {
namespace gpu_random {

struct Block {
  uint32_t w[4];
};

// The generator's state: counter and key, as PhiloxRandom's.
struct Philox {
  uint32_t counter[4];
  uint32_t key[2];

  // The stream of (seed, seed2) at block 0 (TensorFlow's mapping).
  DFLOW_HOST_DEVICE static Philox FromSeeds(uint64_t seed, uint64_t seed2) {
    Philox p;
    p.counter[0] = 0;
    p.counter[1] = 0;
    p.counter[2] = static_cast<uint32_t>(seed2);
    p.counter[3] = static_cast<uint32_t>(seed2 >> 32);
    p.key[0] = static_cast<uint32_t>(seed);
    p.key[1] = static_cast<uint32_t>(seed >> 32);
    return p;
  }

  // The ten-round bijection of the current counter.
  DFLOW_HOST_DEVICE Block Compute() const {
    uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
      }
      const uint64_t p0 = uint64_t{0xD2511F53u} * c0;
      const uint64_t p1 = uint64_t{0xCD9E8D57u} * c2;
      const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
      const uint32_t n1 = static_cast<uint32_t>(p1);
      const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
      const uint32_t n3 = static_cast<uint32_t>(p0);
      c0 = n0;
      c1 = n1;
      c2 = n2;
      c3 = n3;
    }
    return Block{{c0, c1, c2, c3}};
  }

  // The block at the counter; the counter moves on by one.
  DFLOW_HOST_DEVICE Block Next() {
    const Block b = Compute();
    Skip(1);
    return b;
  }

  // Moves the 128-bit counter on by `blocks` (modulo 2^128).
  DFLOW_HOST_DEVICE void Skip(uint64_t blocks) {
    const uint64_t low = (uint64_t{counter[1]} << 32) | counter[0];
    const uint64_t sum = low + blocks;
    counter[0] = static_cast<uint32_t>(sum);
    counter[1] = static_cast<uint32_t>(sum >> 32);
    if (sum < low) {
      if (++counter[2] == 0) ++counter[3];
    }
  }
};

// --- Words to numbers (random_ops_distributions.h). ---

DFLOW_HOST_DEVICE inline float BitsToFloat(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}
DFLOW_HOST_DEVICE inline uint32_t FloatToBits(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof(bits));
  return bits;
}

// [0, 1) from the low 23 bits of x.
DFLOW_HOST_DEVICE inline float UnitFloat(uint32_t x) {
  return BitsToFloat((uint32_t{127} << 23) | (x & 0x7fffffu)) - 1.0f;
}

// [0, 1) from 52 bits: the low 20 bits of hi above the 32 of lo.
DFLOW_HOST_DEVICE inline double UnitDouble(uint32_t hi, uint32_t lo) {
  const uint64_t bits =
      (uint64_t{1023} << 52) | (uint64_t{hi & 0xfffffu} << 32) | uint64_t{lo};
  double d;
  memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

// Uniform half and bfloat16 values, exact as floats (rounding to the
// 2-byte type is then exact too).
DFLOW_HOST_DEVICE inline float UnitHalfAsFloat(uint32_t x) {
  return static_cast<float>(x & 0x3ffu) / 1024.0f;
}
DFLOW_HOST_DEVICE inline float UnitBfloat16AsFloat(uint32_t x) {
  return static_cast<float>(x & 0x7fu) / 128.0f;
}

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr float kBoxMullerEpsilon = 1.0e-7f;

// The inputs of the float Box-Muller transform as functions of a 23-bit
// index k (the low bits of a word): u1(k) (clamped below at 1e-7) and the
// angle 2 pi u2(k).
DFLOW_HOST_DEVICE inline float BoxMullerU1(uint32_t k) {
  const float u = UnitFloat(k);
  return u < kBoxMullerEpsilon ? kBoxMullerEpsilon : u;
}
DFLOW_HOST_DEVICE inline float BoxMullerAngle(uint32_t k) {
  return static_cast<float>(2.0 * kPi * UnitFloat(k));
}

// Codes of the correction tables: the host libm's float result is the
// double-rounded one (kSame), the next float up or the next down.
enum : uint32_t { kSame = 0, kUp = 1, kDown = 2 };
inline constexpr uint32_t kTableEntries = uint32_t{1} << 23;
inline constexpr uint32_t kTableWords = kTableEntries / 16;

DFLOW_HOST_DEVICE inline float NextFloat(float f, bool up) {
  const uint32_t bits = FloatToBits(f);
  if ((bits & 0x7fffffffu) == 0) {
    return BitsToFloat(up ? 0x00000001u : 0x80000001u);
  }
  const bool positive = (bits >> 31) == 0;
  return BitsToFloat(positive == up ? bits + 1 : bits - 1);
}

DFLOW_HOST_DEVICE inline float Corrected(float f, const uint32_t* table,
                                         uint32_t k) {
  const uint32_t code = (table[k >> 4] >> ((k & 15u) * 2)) & 3u;
  return code == kSame ? f : NextFloat(f, code == kUp);
}

// The tables, 2 bits per index k < 2^23 (k's code at bits 2 (k % 16) of
// word k / 16), for log(u1(k)), sin(angle(k)) and cos(angle(k)).
struct BoxMullerTables {
  const uint32_t* log = nullptr;
  const uint32_t* sin = nullptr;
  const uint32_t* cos = nullptr;
};

// Two standard normals from two words, as the CPU's BoxMullerFloat.
DFLOW_HOST_DEVICE inline void BoxMullerFloat(uint32_t x0, uint32_t x1,
                                             const BoxMullerTables& t,
                                             float* z0, float* z1) {
  const uint32_t k0 = x0 & 0x7fffffu;
  const uint32_t k1 = x1 & 0x7fffffu;
  const float u1 = BoxMullerU1(k0);
  const float angle = BoxMullerAngle(k1);
  const float log_u1 =
      Corrected(static_cast<float>(::log(static_cast<double>(u1))), t.log, k0);
  const float s = Corrected(
      static_cast<float>(::sin(static_cast<double>(angle))), t.sin, k1);
  const float c = Corrected(
      static_cast<float>(::cos(static_cast<double>(angle))), t.cos, k1);
  const float radius = ::sqrtf(-2.0f * log_u1);
  *z0 = s * radius;
  *z1 = c * radius;
}

// Two standard normals from four words, as the CPU's BoxMullerDouble (the
// device's double log, sin and cos: see the file comment).
DFLOW_HOST_DEVICE inline void BoxMullerDouble(uint32_t x0, uint32_t x1,
                                              uint32_t x2, uint32_t x3,
                                              double* z0, double* z1) {
  double u1 = UnitDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double angle = 2.0 * kPi * UnitDouble(x2, x3);
  const double radius = ::sqrt(-2.0 * ::log(u1));
  *z0 = ::sin(angle) * radius;
  *z1 = ::cos(angle) * radius;
}

// One word at a time from a Philox stream (TruncatedNormal).
struct WordStream {
  Philox* gen;
  Block block;
  int used;

  DFLOW_HOST_DEVICE explicit WordStream(Philox* g) : gen(g), block(), used(4) {}
  DFLOW_HOST_DEVICE uint32_t operator()() {
    if (used == 4) {
      block = gen->Next();
      used = 0;
    }
    return block.w[used++];
  }
};

// --- Groups (random_ops_distributions.h). A group is 4 values (2 for
// double) drawn from the blocks starting at base + g * kBlocksPerGroup. ---

// kBlocksPerGroup of TruncatedNormal: 256 words per value.
inline constexpr uint64_t kTruncatedBlocksFloat = 4 * 256 / 4;
inline constexpr uint64_t kTruncatedBlocksDouble = 2 * 256 / 4;

// Uniform float group (half/bfloat16: as floats, see UnitHalfAsFloat).
DFLOW_HOST_DEVICE inline void UniformFloatGroup(Philox gen, float out[4]) {
  const Block b = gen.Next();
  for (int i = 0; i < 4; ++i) out[i] = UnitFloat(b.w[i]);
}
DFLOW_HOST_DEVICE inline void UniformDoubleGroup(Philox gen, double out[2]) {
  const Block b = gen.Next();
  out[0] = UnitDouble(b.w[0], b.w[1]);
  out[1] = UnitDouble(b.w[2], b.w[3]);
}

DFLOW_HOST_DEVICE inline void NormalFloatGroup(Philox gen,
                                               const BoxMullerTables& t,
                                               float out[4]) {
  const Block b = gen.Next();
  BoxMullerFloat(b.w[0], b.w[1], t, &out[0], &out[1]);
  BoxMullerFloat(b.w[2], b.w[3], t, &out[2], &out[3]);
}
DFLOW_HOST_DEVICE inline void NormalDoubleGroup(Philox gen, double out[2]) {
  const Block b = gen.Next();
  BoxMullerDouble(b.w[0], b.w[1], b.w[2], b.w[3], &out[0], &out[1]);
}

// Box-Muller pairs in order from a one-word stream, values with |z| >= 2
// dropped (for half/bfloat16 the test is on the float, as on the CPU).
DFLOW_HOST_DEVICE inline void TruncatedFloatGroup(Philox gen,
                                                  const BoxMullerTables& t,
                                                  float out[4]) {
  WordStream words(&gen);
  int filled = 0;
  while (true) {
    const uint32_t x0 = words();
    const uint32_t x1 = words();
    float z[2];
    BoxMullerFloat(x0, x1, t, &z[0], &z[1]);
    for (int i = 0; i < 2; ++i) {
      if (::fabsf(z[i]) < 2.0f) {
        out[filled++] = z[i];
        if (filled == 4) return;
      }
    }
  }
}
DFLOW_HOST_DEVICE inline void TruncatedDoubleGroup(Philox gen, double out[2]) {
  WordStream words(&gen);
  int filled = 0;
  while (true) {
    const uint32_t x0 = words();
    const uint32_t x1 = words();
    const uint32_t x2 = words();
    const uint32_t x3 = words();
    double z[2];
    BoxMullerDouble(x0, x1, x2, x3, &z[0], &z[1]);
    for (int i = 0; i < 2; ++i) {
      if (::fabs(z[i]) < 2.0) {
        out[filled++] = z[i];
        if (filled == 2) return;
      }
    }
  }
}

// The generator of group g: `base` moved on by g groups.
DFLOW_HOST_DEVICE inline Philox GroupGenerator(Philox base, uint64_t g,
                                               uint64_t blocks_per_group) {
  base.Skip(g * blocks_per_group);
  return base;
}

}  // namespace gpu_random
}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_RANDOM_OPS_GPU_PHILOX_H_
