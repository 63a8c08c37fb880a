// The GPU random kernels' generator (kernels/gpu/random_ops_gpu_philox.h),
// run on the host, against the CPU kernels: the same Philox blocks and
// counter arithmetic, the correction tables reproducing this host's libm for
// every possible input, Box-Muller pairs equal to the CPU's, and whole
// RandomUniform / RandomStandardNormal / TruncatedNormal outputs of the CPU
// kernels reproduced bit for bit (float, half, bfloat16, double). Runs
// everywhere: the device runs the same code (with the device's double libm,
// checked on a GPU by random_ops_gpu_test).
#include "kernels/gpu/random_ops_gpu_philox.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "kernels/cpu/random_ops_distributions.h"
#include "kernels/cpu/random_ops_philox.h"
#include "kernels/gpu/random_ops_gpu_tables.h"
#include "tests/kernels/kernel_test_util.h"

namespace dflow {
namespace {

using gpu_random::Philox;

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
uint64_t Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

const HostBoxMullerTables& Tables() {
  absl::StatusOr<const HostBoxMullerTables*> t = HostBoxMullerCorrections();
  EXPECT_TRUE(t.ok()) << t.status();
  return **t;
}

TEST(GpuPhiloxTest, BlocksAndSkipsMatchTheCpuGenerator) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 2000; ++trial) {
    const uint64_t seed = rng(), seed2 = rng();
    PhiloxRandom cpu(seed, seed2);
    Philox gpu = Philox::FromSeeds(seed, seed2);
    // Near the 2^32 and 2^64 carries too.
    uint64_t skip = trial % 3 == 0
                        ? rng()
                        : (trial % 3 == 1 ? rng() % 1000 : ~uint64_t{0} - 2);
    if (trial % 7 == 0) {
      cpu.Skip(0xfffffffeull);
      gpu.Skip(0xfffffffeull);
    }
    cpu.Skip(skip);
    gpu.Skip(skip);
    for (int i = 0; i < 4; ++i) {
      const PhiloxRandom::Block want = cpu();
      const gpu_random::Block got = gpu.Next();
      for (int w = 0; w < 4; ++w) ASSERT_EQ(got.w[w], want[w]) << trial;
    }
    for (int w = 0; w < 4; ++w) ASSERT_EQ(gpu.counter[w], cpu.counter()[w]);
  }
}

TEST(GpuPhiloxTest, WordConversionsMatch) {
  std::mt19937 rng(2);
  for (int i = 0; i < 100000; ++i) {
    const uint32_t a = rng(), b = rng();
    ASSERT_EQ(Bits(gpu_random::UnitFloat(a)),
              Bits(random_internal::Uint32ToUnitFloat(a)));
    ASSERT_EQ(Bits(gpu_random::UnitDouble(a, b)),
              Bits(random_internal::Uint64ToUnitDouble(a, b)));
    ASSERT_EQ(float16::FromFloat(gpu_random::UnitHalfAsFloat(a)).bits,
              random_internal::UnitFromWord<float16>(a).bits);
    ASSERT_EQ(bfloat16::FromFloat(gpu_random::UnitBfloat16AsFloat(a)).bits,
              random_internal::UnitFromWord<bfloat16>(a).bits);
  }
}

// Every input the float Box-Muller transform can see: the corrected
// double-precision result equals this host's logf, sinf and cosf.
TEST(GpuPhiloxTest, CorrectionTablesReproduceLibmForEveryInput) {
  const HostBoxMullerTables& t = Tables();
  const gpu_random::BoxMullerTables v = t.view();
  // glibc's float functions are not correctly rounded: the tables matter.
  EXPECT_GT(t.corrected[0] + t.corrected[1] + t.corrected[2], 0);
  for (uint32_t k = 0; k < gpu_random::kTableEntries; ++k) {
    const float u1 = gpu_random::BoxMullerU1(k);
    const float angle = gpu_random::BoxMullerAngle(k);
    float s, c;
    HostLibmSinCos(k, &s, &c);
    ASSERT_EQ(
        Bits(gpu_random::Corrected(
            static_cast<float>(std::log(static_cast<double>(u1))), v.log, k)),
        Bits(HostLibmLog(k)))
        << k;
    ASSERT_EQ(Bits(gpu_random::Corrected(
                  static_cast<float>(std::sin(static_cast<double>(angle))),
                  v.sin, k)),
              Bits(s))
        << k;
    ASSERT_EQ(Bits(gpu_random::Corrected(
                  static_cast<float>(std::cos(static_cast<double>(angle))),
                  v.cos, k)),
              Bits(c))
        << k;
  }
}

TEST(GpuPhiloxTest, BoxMullerPairsMatchTheCpu) {
  const gpu_random::BoxMullerTables v = Tables().view();
  std::mt19937 rng(3);
  for (int i = 0; i < 1 << 21; ++i) {
    // Include the clamp (u1 = 0) and small u1.
    const uint32_t x0 = i < 1000 ? static_cast<uint32_t>(i) : rng();
    const uint32_t x1 = rng();
    float want0, want1, got0, got1;
    random_internal::BoxMullerFloat(x0, x1, &want0, &want1);
    gpu_random::BoxMullerFloat(x0, x1, v, &got0, &got1);
    ASSERT_EQ(Bits(got0), Bits(want0)) << x0 << " " << x1;
    ASSERT_EQ(Bits(got1), Bits(want1)) << x0 << " " << x1;
  }
}

// The GPU kernel's per-group computation, on the host, for n values.
template <typename T>
std::vector<T> HostGroups(const char* op, uint64_t seed, uint64_t seed2,
                          int64_t n) {
  const gpu_random::BoxMullerTables tables = Tables().view();
  const Philox base = Philox::FromSeeds(seed, seed2);
  constexpr bool kDouble = std::is_same_v<T, double>;
  constexpr int kGroup = kDouble ? 2 : 4;
  const bool truncated = std::string(op) == "TruncatedNormal";
  const bool uniform = std::string(op) == "RandomUniform";
  const uint64_t blocks = !truncated ? 1
                          : kDouble  ? gpu_random::kTruncatedBlocksDouble
                                     : gpu_random::kTruncatedBlocksFloat;
  std::vector<T> out(n);
  for (int64_t g = 0; g * kGroup < n; ++g) {
    const Philox gen = gpu_random::GroupGenerator(base, g, blocks);
    T values[kGroup];
    if constexpr (kDouble) {
      if (uniform) {
        gpu_random::UniformDoubleGroup(gen, values);
      } else if (truncated) {
        gpu_random::TruncatedDoubleGroup(gen, values);
      } else {
        gpu_random::NormalDoubleGroup(gen, values);
      }
    } else {
      float v[4];
      if (uniform) {
        Philox g2 = gen;
        const gpu_random::Block b = g2.Next();
        for (int i = 0; i < 4; ++i) {
          if constexpr (std::is_same_v<T, float16>) {
            v[i] = gpu_random::UnitHalfAsFloat(b.w[i]);
          } else if constexpr (std::is_same_v<T, bfloat16>) {
            v[i] = gpu_random::UnitBfloat16AsFloat(b.w[i]);
          } else {
            v[i] = gpu_random::UnitFloat(b.w[i]);
          }
        }
      } else if (truncated) {
        gpu_random::TruncatedFloatGroup(gen, tables, v);
      } else {
        gpu_random::NormalFloatGroup(gen, tables, v);
      }
      for (int i = 0; i < 4; ++i) {
        if constexpr (std::is_same_v<T, float>) {
          values[i] = v[i];
        } else {
          values[i] = T::FromFloat(v[i]);
        }
      }
    }
    for (int i = 0; i < kGroup && g * kGroup + i < n; ++i) {
      out[g * kGroup + i] = values[i];
    }
  }
  return out;
}

template <typename T>
void ExpectCpuKernelReproduced(const char* op, int64_t n) {
  const uint64_t seed = 87654321, seed2 = 1234;
  Scope root = Scope::NewRootScope();
  ops::RandomAttrs attrs;
  attrs.seed = seed;
  attrs.seed2 = seed2;
  const DataType dtype = DataTypeToEnum<T>::value;
  auto shape = ops::Placeholder(root, DT_INT64);
  Output out;
  if (std::string(op) == "RandomUniform") {
    out = ops::RandomUniform(root, shape, dtype, attrs);
  } else if (std::string(op) == "TruncatedNormal") {
    out = ops::TruncatedNormal(root, shape, dtype, attrs);
  } else {
    out = ops::RandomStandardNormal(root, shape, dtype, attrs);
  }
  ASSERT_TRUE(root.status().ok()) << root.status();
  absl::StatusOr<std::vector<Tensor>> cpu =
      RunKernel(out.node(), {Tensor::FromVector<int64_t>({n})});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  const std::vector<T> host = HostGroups<T>(op, seed, seed2, n);
  const T* want = (*cpu)[0].template data<T>();
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(std::memcmp(&host[i], &want[i], sizeof(T)), 0)
        << op << " " << DataTypeName(dtype) << " element " << i;
  }
}

TEST(GpuPhiloxTest, CpuKernelOutputsReproducedBitForBit) {
  for (const char* op :
       {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    for (int64_t n : {1, 3, 7, 4099, 100001}) {
      ExpectCpuKernelReproduced<float>(op, n);
      ExpectCpuKernelReproduced<double>(op, n);
      ExpectCpuKernelReproduced<float16>(op, n);
      ExpectCpuKernelReproduced<bfloat16>(op, n);
    }
  }
}

}  // namespace
}  // namespace dflow
