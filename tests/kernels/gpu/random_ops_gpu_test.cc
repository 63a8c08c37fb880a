// The random launchers (kernels/gpu/random_ops_gpu.h) against the CPU
// kernels: RandomUniform, RandomStandardNormal and TruncatedNormal with
// equal seeds give the CPU's numbers bit for bit for half, bfloat16 and
// float (and double uniforms), double normals within a few ulp; a later
// step (the base moved on) matches the CPU stream too; and the device's
// corrected log/sin/cos equal this host's libm for every one of the 2^23
// inputs. Outputs are poisoned before every launch. Skips without a GPU.
#include "kernels/gpu/random_ops_gpu.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "kernels/cpu/random_ops_philox.h"
#include "kernels/gpu/random_ops_gpu_tables.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "tests/kernels/gpu/cwise_gpu_test_util.h"
#include "tests/kernels/gpu/gpu_launcher_test_util.h"

namespace dflow {
namespace testing_gpu {
namespace {

#if DFLOW_HAVE_CUDA

class RandomGpuTest : public GpuLauncherTest {
 protected:
  cudaStream_t s() const { return static_cast<cudaStream_t>(stream()); }
};

Output Build(const Scope& root, GpuRandomDistribution d, DataType dtype,
             uint64_t seed, uint64_t seed2) {
  ops::RandomAttrs attrs;
  attrs.seed = static_cast<int64_t>(seed);
  attrs.seed2 = static_cast<int64_t>(seed2);
  auto shape = ops::Placeholder(root, DT_INT64);
  switch (d) {
    case GpuRandomDistribution::kUniform:
      return ops::RandomUniform(root, shape, dtype, attrs);
    case GpuRandomDistribution::kNormal:
      return ops::RandomStandardNormal(root, shape, dtype, attrs);
    default:
      return ops::TruncatedNormal(root, shape, dtype, attrs);
  }
}

TEST_F(RandomGpuTest, SequencesEqualTheCpuKernels) {
  const uint64_t seed = 87654321, seed2 = 1234;
  for (GpuRandomDistribution d :
       {GpuRandomDistribution::kUniform, GpuRandomDistribution::kNormal,
        GpuRandomDistribution::kTruncatedNormal}) {
    for (DataType dtype : {DT_FLOAT, DT_HALF, DT_BFLOAT16, DT_DOUBLE}) {
      for (int64_t n : {0, 1, 3, 7, 4099, 1000003}) {
        Scope root = Scope::NewRootScope();
        Output op = Build(root, d, dtype, seed, seed2);
        ASSERT_TRUE(root.status().ok()) << root.status();
        const Tensor want =
            CpuOutput(op.node(), {Tensor::FromVector<int64_t>({n})});
        const TensorShape shape({n});
        auto out = Poisoned(dtype, shape);
        absl::Status st = LaunchRandom(
            d, Gpu(dtype), gpu_random::Philox::FromSeeds(seed, seed2),
            out->get(), n, s());
        ASSERT_TRUE(st.ok()) << st;
        const Tensor got = Download(*out, dtype, shape);
        const std::string label = absl::StrCat(
            GpuRandomDistributionName(d), " ", DataTypeName(dtype), " n=", n);
        if (dtype == DT_DOUBLE && d != GpuRandomDistribution::kUniform) {
          ExpectAllClose(got, want, {1e-14, 1e-15}, label);
        } else {
          ExpectBitwiseEqual(got, want, label);
        }
      }
    }
  }
}

TEST_F(RandomGpuTest, LaterStepsContinueTheStream) {
  // The CPU kernel's second step starts n * 256 blocks on; the kernel class
  // passes that base, and the values follow it.
  const uint64_t seed = 5, seed2 = 6;
  const int64_t n = 1001;
  Scope root = Scope::NewRootScope();
  Output op =
      Build(root, GpuRandomDistribution::kNormal, DT_FLOAT, seed, seed2);
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      KernelRegistry::Global()->CreateKernel(*op.node(), TestCpuDevice());
  ASSERT_TRUE(kernel.ok());
  // Two CPU steps through one kernel instance.
  Tensor second;
  for (int step = 0; step < 2; ++step) {
    std::vector<TensorValue> values(1);
    values[0].tensor = Tensor::FromVector<int64_t>({n});
    OpKernelContext::Params params;
    params.kernel = kernel->get();
    params.device = TestCpuDevice();
    params.inputs = values.data();
    OpKernelContext ctx(params);
    (*kernel)->Compute(&ctx);
    ASSERT_TRUE(ctx.status().ok()) << ctx.status();
    second = (*ctx.outputs())[0].tensor;
  }
  gpu_random::Philox base = gpu_random::Philox::FromSeeds(seed, seed2);
  base.Skip(static_cast<uint64_t>(n) * 256);
  auto out = Poisoned(DT_FLOAT, TensorShape({n}));
  ASSERT_TRUE(LaunchRandom(GpuRandomDistribution::kNormal, GpuType::kFloat,
                           base, out->get(), n, s())
                  .ok());
  ExpectBitwiseEqual(Download(*out, DT_FLOAT, TensorShape({n})), second,
                     "second step");
}

TEST_F(RandomGpuTest, DeviceCorrectedMathEqualsHostLibmForEveryInput) {
  constexpr int64_t kN = gpu_random::kTableEntries;
  DeviceBuffer out(3 * kN * sizeof(float));
  ASSERT_TRUE(
      LaunchBoxMullerTableCheck(static_cast<float*>(out.get()), s()).ok());
  ASSERT_TRUE(Sync().ok());
  std::vector<float> got(3 * kN);
  ASSERT_EQ(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(float),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
  int64_t mismatches = 0;
  for (uint32_t k = 0; k < kN; ++k) {
    float sn, cs;
    HostLibmSinCos(k, &sn, &cs);
    const float want[3] = {HostLibmLog(k), sn, cs};
    for (int f = 0; f < 3; ++f) {
      if (std::memcmp(&got[f * kN + k], &want[f], 4) != 0 && ++mismatches < 5) {
        ADD_FAILURE() << "function " << f << " index " << k << ": device "
                      << got[f * kN + k] << ", host " << want[f];
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace testing_gpu
}  // namespace dflow
