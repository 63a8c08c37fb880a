// The optimizer launcher (kernels/gpu/training_ops_gpu.h) against the CPU
// kernels: every optimizer and Nesterov mode, float and double, several
// sizes, three steps each; the GPU's variables must equal the CPU's bit for
// bit (same formulas, no fused multiply-adds, correctly rounded sqrt and
// division). Also in place with var and accum one buffer. Skips without a
// GPU.
#include "kernels/gpu/training_ops_gpu.h"

#include <string>
#include <vector>

#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/kernels/gpu/cwise_gpu_test_util.h"
#include "tests/kernels/gpu/gpu_launcher_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"
#include "tests/kernels/training_ops_test_util.h"

namespace dflow {
namespace testing_gpu {
namespace {

#if DFLOW_HAVE_CUDA

using testing_math::FromDoubles;
using testing_math::RandomValues;
using testing_training::AllModes;
using testing_training::ApplyHarness;
using testing_training::DefaultScalars;
using testing_training::Initial;
using testing_training::ModeName;
using testing_training::OpMode;

GpuOptimizer OptimizerOf(const std::string& op) {
  if (op == "ApplyGradientDescent") return GpuOptimizer::kGradientDescent;
  if (op == "ApplyMomentum") return GpuOptimizer::kMomentum;
  return GpuOptimizer::kAdam;
}

class TrainingGpuTest : public GpuLauncherTest {
 protected:
  cudaStream_t s() const { return static_cast<cudaStream_t>(stream()); }
};

TEST_F(TrainingGpuTest, UpdatesEqualTheCpuKernels) {
  uint32_t seed = 1;
  for (const OpMode& mode : AllModes()) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      for (int64_t n : {1, 7, 1000, 100003}) {
        const TensorShape shape({n});
        const std::string label =
            absl::StrCat(ModeName(mode, dtype, false), " n=", n);
        ApplyHarness cpu(mode.op, dtype, /*resource=*/false, mode.nesterov,
                         shape);
        const auto init = Initial(mode.op, n, seed++);
        std::vector<std::unique_ptr<DeviceBuffer>> vars;
        for (int k = 0; k < cpu.num_vars(); ++k) {
          cpu.Set(k, init[k]);
          vars.push_back(Upload(FromDoubles(dtype, init[k], shape)));
        }
        std::vector<double> scalars = DefaultScalars(mode.op);
        for (int step = 0; step < 3; ++step) {
          const std::vector<double> grad = RandomValues(n, seed++, -1, 1);
          ASSERT_TRUE(cpu.Step(scalars, grad).ok()) << label;
          std::vector<std::unique_ptr<DeviceBuffer>> sc;
          GpuApplyOperands o;
          for (size_t i = 0; i < scalars.size(); ++i) {
            sc.push_back(Upload(FromDoubles(dtype, {scalars[i]}, {})));
            o.scalars[i] = sc.back()->get();
          }
          auto dgrad = Upload(FromDoubles(dtype, grad, shape));
          for (int k = 0; k < cpu.num_vars(); ++k) {
            o.in[k] = vars[k]->get();
            o.out[k] = vars[k]->get();
          }
          o.grad = dgrad->get();
          o.n = n;
          o.use_nesterov = mode.nesterov;
          ASSERT_TRUE(
              LaunchApply(OptimizerOf(mode.op), Gpu(dtype), o, s()).ok());
          ASSERT_TRUE(Sync().ok());
          if (mode.op == "ApplyAdam") {  // the next step's powers
            scalars[0] *= scalars[3];
            scalars[1] *= scalars[4];
          }
        }
        for (int k = 0; k < cpu.num_vars(); ++k) {
          const std::string what = absl::StrCat(label, " variable ", k);
          if (mode.op == "ApplyAdam" && dtype == DT_FLOAT && k == 0) {
            // The CPU kernel's float sqrt(v) is Eigen's vectorized one, an
            // rsqrt estimate refined by a Newton step (up to 2 ulp, and
            // which ulp depends on the host's SIMD width), as TensorFlow's
            // CPU kernel; the GPU's sqrtf is correctly rounded, as
            // TensorFlow's GPU kernel. m and v stay bit-exact.
            ExpectAllClose(Download(*vars[k], dtype, shape), cpu.var(k)->Read(),
                           ToleranceFor(dtype), what);
          } else {
            ExpectBitwiseEqual(Download(*vars[k], dtype, shape),
                               cpu.var(k)->Read(), what);
          }
        }
      }
    }
  }
}

TEST_F(TrainingGpuTest, CopyOnWriteBuffersLeaveTheInputAlone) {
  const int64_t n = 1000;
  const TensorShape shape({n});
  const Tensor var = FromDoubles(DT_FLOAT, RandomValues(n, 1), shape);
  const Tensor grad = FromDoubles(DT_FLOAT, RandomValues(n, 2), shape);
  auto din = Upload(var);
  auto dout = Poisoned(DT_FLOAT, shape);
  auto dgrad = Upload(grad);
  auto alpha = Upload(FromDoubles(DT_FLOAT, {0.5}, {}));
  GpuApplyOperands o;
  o.in[0] = din->get();
  o.out[0] = dout->get();
  o.scalars[0] = alpha->get();
  o.grad = dgrad->get();
  o.n = n;
  ASSERT_TRUE(
      LaunchApply(GpuOptimizer::kGradientDescent, GpuType::kFloat, o, s())
          .ok());
  ExpectBitwiseEqual(Download(*din, DT_FLOAT, shape), var, "input untouched");
  const Tensor got = Download(*dout, DT_FLOAT, shape);
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(got.data<float>()[i],
              var.data<float>()[i] - grad.data<float>()[i] * 0.5f);
  }
}

TEST_F(TrainingGpuTest, OtherTypesAreUnimplemented) {
  GpuApplyOperands o;
  o.n = 4;
  EXPECT_EQ(LaunchApply(GpuOptimizer::kAdam, GpuType::kHalf, o, s()).code(),
            absl::StatusCode::kUnimplemented);
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace testing_gpu
}  // namespace dflow
