// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter through cuDNN
// (kernels/gpu/conv_ops_gpu.h) against the CPU kernels on fresh random
// inputs: SAME/VALID/EXPLICIT padding (symmetric and not), strides,
// dilations, groups; float, double, half, bfloat16; autotuned and
// heuristic algorithms; the algorithm cache; scratch from the caller.
// Outputs are poisoned first. Skips without a GPU.
#include "kernels/gpu/conv_ops_gpu.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "kernels/gpu/matmul_gpu.h"
#include "tests/kernels/gpu/conv_test_cases.h"
#include "tests/kernels/gpu/gpu_launcher_test_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"

namespace dflow {
namespace {

#if DFLOW_HAVE_CUDA

using testing_conv::Case;
using testing_gpu::GpuLauncherTest;
using testing_math::AsDoubles;
using testing_math::FromDoubles;
using testing_math::RandomValues;

enum class Direction { kForward, kInput, kFilter };

// Bound per sqrt(summed terms) for each dtype: float without TF32 (which
// would miss it ~10x), FFT and Winograd algorithms included.
double Factor(DataType dtype) {
  switch (dtype) {
    case DT_DOUBLE:
      return 1e-13;
    case DT_HALF:
      return 2e-3;
    case DT_BFLOAT16:
      return 1.6e-2;
    default:
      return 2e-5;
  }
}

// Counts what a launcher asks for; memory from a StreamOrderedScratch.
class CountingScratch : public GpuScratchAllocator {
 public:
  explicit CountingScratch(void* stream) : inner_(0, stream) {}
  absl::StatusOr<void*> Allocate(size_t bytes) override {
    ++calls_;
    return inner_.Allocate(bytes);
  }
  int calls() const { return calls_; }

 private:
  StreamOrderedScratch inner_;
  int calls_ = 0;
};

class ConvGpuTest : public GpuLauncherTest {
 protected:
  // Runs one direction of `c` on GPU and CPU and compares.
  // `factor`: the bound per sqrt(summed terms); 0 for Factor(dtype).
  void Check(const Case& c, DataType dtype, Direction dir, uint32_t seed,
             GpuScratchAllocator* scratch = nullptr, double factor = 0) {
    const char* names[] = {"forward", "input gradient", "filter gradient"};
    const std::string what = absl::StrCat(c.name, " ", DataTypeName(dtype), " ",
                                          names[static_cast<int>(dir)]);
    SCOPED_TRACE(what);
    absl::StatusOr<GpuConvParams> params = testing_conv::ParamsFor(c, dtype);
    ASSERT_TRUE(params.ok()) << params.status();
    const GpuConvParams& p = *params;
    const TensorShape x_shape = c.input_shape();
    const TensorShape w_shape = c.filter_shape();
    const TensorShape y_shape({p.batch, p.out_rows, p.out_cols, p.out_depth});
    const Tensor x =
        FromDoubles(dtype, RandomValues(x_shape.num_elements(), seed), x_shape);
    const Tensor w = FromDoubles(
        dtype, RandomValues(w_shape.num_elements(), seed + 1), w_shape);
    const Tensor dy = FromDoubles(
        dtype, RandomValues(y_shape.num_elements(), seed + 2), y_shape);

    Scope root = Scope::NewRootScope();
    absl::StatusOr<std::vector<Tensor>> cpu;
    TensorShape out_shape;
    int64_t terms = 0;  // summands per output element
    switch (dir) {
      case Direction::kForward:
        cpu =
            RunKernel(testing_conv::ForwardNode(root, dtype, c).node(), {x, w});
        out_shape = y_shape;
        terms = c.kh * c.kw * c.kc;
        break;
      case Direction::kInput:
        cpu = RunKernel(testing_conv::InputGradNode(root, dtype, c).node(),
                        {testing_conv::ShapeTensor(x_shape), w, dy});
        out_shape = x_shape;
        terms = c.kh * c.kw * c.co / (c.c / c.kc);
        break;
      case Direction::kFilter:
        cpu = RunKernel(testing_conv::FilterGradNode(root, dtype, c).node(),
                        {x, testing_conv::ShapeTensor(w_shape), dy});
        out_shape = w_shape;
        terms = p.batch * p.out_rows * p.out_cols;
        break;
    }
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    ASSERT_EQ((*cpu)[0].shape(), out_shape);

    auto x_gpu = Upload(x);
    auto w_gpu = Upload(w);
    auto dy_gpu = Upload(dy);
    auto out_gpu = Poisoned(dtype, out_shape);
    absl::Status s;
    switch (dir) {
      case Direction::kForward:
        s = LaunchConv2D(0, stream(), p, x_gpu->get(), w_gpu->get(),
                         out_gpu->get(), scratch);
        break;
      case Direction::kInput:
        s = LaunchConv2DBackpropInput(0, stream(), p, w_gpu->get(),
                                      dy_gpu->get(), out_gpu->get(), scratch);
        break;
      case Direction::kFilter:
        s = LaunchConv2DBackpropFilter(0, stream(), p, x_gpu->get(),
                                       dy_gpu->get(), out_gpu->get(), scratch);
        break;
    }
    ASSERT_TRUE(s.ok()) << s;
    const Tensor got = Download(*out_gpu, dtype, out_shape);
    const double bound =
        (factor > 0 ? factor : Factor(dtype)) * std::sqrt(terms + 1.0);
    testing_math::ExpectAllNear(AsDoubles(got), AsDoubles((*cpu)[0]), bound,
                                bound, what);
  }

  void CheckAll(DataType dtype) {
    uint32_t seed = 100;
    // Double runs forward only: cuDNN 9 has no double gradient algorithm
    // for several of these cases in NHWC, and no double gradient kernel is
    // registered (kernels/gpu/kernel_defs_nn.cc).
    std::vector<Direction> directions = {Direction::kForward};
    if (dtype != DT_DOUBLE) {
      directions.push_back(Direction::kInput);
      directions.push_back(Direction::kFilter);
    }
    for (const Case& c : testing_conv::Cases()) {
      for (Direction d : directions) {
        Check(c, dtype, d, seed);
        seed += 3;
      }
    }
  }
};

TEST_F(ConvGpuTest, FloatMatchesCpu) { CheckAll(DT_FLOAT); }
TEST_F(ConvGpuTest, DoubleForwardMatchesCpu) { CheckAll(DT_DOUBLE); }
TEST_F(ConvGpuTest, HalfMatchesCpu) { CheckAll(DT_HALF); }
TEST_F(ConvGpuTest, Bfloat16MatchesCpu) { CheckAll(DT_BFLOAT16); }

TEST_F(ConvGpuTest, HeuristicAlgorithmsMatchCpu) {
  SetGpuConvAutotune(false);
  ClearConvAlgorithmCache();
  CheckAll(DT_FLOAT);
  SetGpuConvAutotune(true);
  ClearConvAlgorithmCache();
}

TEST_F(ConvGpuTest, TensorFloat32StaysWithinItsPrecision) {
  SetGpuTensorFloat32(true);
  const Case c = testing_conv::Cases().back();  // 64 channels: 1600 terms
  // TF32 rounds inputs to 10-bit mantissas (2^-11 relative).
  for (Direction d :
       {Direction::kForward, Direction::kInput, Direction::kFilter}) {
    Check(c, DT_FLOAT, d, 77, nullptr, 2e-3);
  }
  SetGpuTensorFloat32(false);
}

TEST_F(ConvGpuTest, AlgorithmsAreCachedPerShape) {
  ClearConvAlgorithmCache();
  const std::vector<Case> cases = testing_conv::Cases();
  Check(cases[1], DT_FLOAT, Direction::kForward, 1);
  const int64_t after_one = ConvAlgorithmCacheSize();
  EXPECT_EQ(after_one, 1);
  Check(cases[1], DT_FLOAT, Direction::kForward, 2);  // same shape
  EXPECT_EQ(ConvAlgorithmCacheSize(), 1);
  Check(cases[1], DT_FLOAT, Direction::kFilter, 3);    // another direction
  Check(cases[2], DT_FLOAT, Direction::kForward, 4);   // another shape
  Check(cases[1], DT_DOUBLE, Direction::kForward, 5);  // another dtype
  EXPECT_EQ(ConvAlgorithmCacheSize(), 4);
}

TEST_F(ConvGpuTest, UsesTheCallersScratch) {
  // Asymmetric padding: a transposed filter, a padded input, a workspace.
  const Case c = testing_conv::Cases()[2];
  CountingScratch scratch(stream());
  Check(c, DT_FLOAT, Direction::kForward, 9, &scratch);
  EXPECT_GE(scratch.calls(), 2);
  ASSERT_TRUE(Sync().ok());
}

TEST_F(ConvGpuTest, EmptyCases) {
  // A batch of 0: nothing to write; the filter gradient is zeros.
  Case c = testing_conv::Cases()[1];
  c.n = 0;
  Check(c, DT_FLOAT, Direction::kForward, 1);
  Check(c, DT_FLOAT, Direction::kInput, 2);
  Check(c, DT_FLOAT, Direction::kFilter, 3);
}

TEST_F(ConvGpuTest, UnsupportedDtypeAndBadGeometry) {
  absl::StatusOr<GpuConvParams> p =
      testing_conv::ParamsFor(testing_conv::Cases()[1], DT_INT32);
  ASSERT_TRUE(p.ok());
  absl::Status s =
      LaunchConv2D(0, stream(), *p, nullptr, nullptr, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  p->dtype = DT_FLOAT;
  p->out_rows += 1;
  s = LaunchConv2D(0, stream(), *p, nullptr, nullptr, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace dflow
