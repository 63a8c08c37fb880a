// MatMul through cuBLAS (kernels/gpu/matmul_gpu.h) against the CPU kernel
// on fresh random inputs: every dtype, every transposition, odd and empty
// sizes, TF32 off (float precision) and on (TF32 precision). Outputs are
// poisoned first. Skips without a GPU.
#include "kernels/gpu/matmul_gpu.h"

#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/kernels/gpu/gpu_launcher_test_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"

namespace dflow {
namespace {

#if DFLOW_HAVE_CUDA

using testing_gpu::GpuLauncherTest;
using testing_math::AsDoubles;
using testing_math::FromDoubles;
using testing_math::RandomValues;

bool IsComplex(DataType t) { return t == DT_COMPLEX64 || t == DT_COMPLEX128; }

// A random tensor; complex ones get random real and imaginary parts.
Tensor RandomTensor(DataType dtype, const TensorShape& shape, uint32_t seed) {
  const int64_t n = shape.num_elements();
  if (!IsComplex(dtype))
    return FromDoubles(dtype, RandomValues(n, seed), shape);
  Tensor t(dtype, shape);
  const std::vector<double> v = RandomValues(2 * n, seed);
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DT_COMPLEX64) {
      t.data<complex64>()[i] = complex64(v[2 * i], v[2 * i + 1]);
    } else {
      t.data<complex128>()[i] = complex128(v[2 * i], v[2 * i + 1]);
    }
  }
  return t;
}

// Real numbers as themselves, complex ones as (re, im) pairs.
std::vector<double> Values(const Tensor& t) {
  if (!IsComplex(t.dtype())) return AsDoubles(t);
  std::vector<double> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const complex128 z = t.dtype() == DT_COMPLEX64
                             ? complex128(t.data<complex64>()[i])
                             : t.data<complex128>()[i];
    out.push_back(z.real());
    out.push_back(z.imag());
  }
  return out;
}

// The smallest relative step of `dtype` (complex: of its parts).
double Epsilon(DataType dtype) {
  switch (dtype) {
    case DT_DOUBLE:
    case DT_COMPLEX128:
      return 2.2e-16;
    case DT_HALF:
      return 9.8e-4;
    case DT_BFLOAT16:
      return 7.8e-3;
    default:
      return 1.2e-7;
  }
}

class MatMulGpuTest : public GpuLauncherTest {
 protected:
  // Runs one product on the GPU and on the CPU, and compares them to
  // `tolerance` * sqrt(k) (inputs are in [-1, 1]: each output is a sum of
  // k products of magnitude below 1, whose rounding errors grow like
  // sqrt(k)), relative and absolute. Returns the GPU's result.
  Tensor Check(DataType dtype, int64_t m, int64_t n, int64_t k, bool ta,
               bool tb, double tolerance, uint32_t seed) {
    const std::string what =
        absl::StrCat(DataTypeName(dtype), " [", m, ", ", k, "] x [", k, ", ", n,
                     "] ta=", ta, " tb=", tb);
    SCOPED_TRACE(what);
    const TensorShape a_shape = ta ? TensorShape({k, m}) : TensorShape({m, k});
    const TensorShape b_shape = tb ? TensorShape({n, k}) : TensorShape({k, n});
    const Tensor a = RandomTensor(dtype, a_shape, seed);
    const Tensor b = RandomTensor(dtype, b_shape, seed + 1);
    Scope root = Scope::NewRootScope();
    Output product = ops::MatMul(
        root, ops::Placeholder(root, dtype), ops::Placeholder(root, dtype),
        ops::MatMulAttrs().TransposeA(ta).TransposeB(tb));
    absl::StatusOr<std::vector<Tensor>> cpu = RunKernel(product.node(), {a, b});
    EXPECT_TRUE(cpu.ok()) << cpu.status();
    if (!cpu.ok()) return Tensor();

    auto a_gpu = Upload(a);
    auto b_gpu = Upload(b);
    auto c_gpu = Poisoned(dtype, TensorShape({m, n}));
    GpuMatMulParams p;
    p.dtype = dtype;
    p.m = m;
    p.n = n;
    p.k = k;
    p.transpose_a = ta;
    p.transpose_b = tb;
    absl::Status s =
        LaunchMatMul(0, stream(), p, a_gpu->get(), b_gpu->get(), c_gpu->get());
    EXPECT_TRUE(s.ok()) << s;
    const Tensor c = Download(*c_gpu, dtype, TensorShape({m, n}));
    const double bound = tolerance * std::sqrt(static_cast<double>(k) + 1);
    testing_math::ExpectAllNear(Values(c), Values((*cpu)[0]), bound, bound,
                                what);
    return c;
  }
};

TEST_F(MatMulGpuTest, EveryDtypeAndTransposition) {
  uint32_t seed = 1;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16,
                         DT_COMPLEX64, DT_COMPLEX128}) {
    // half and bfloat16: the CPU rounds float sums once, as cuBLAS does;
    // both differ only by the order of the sums.
    const double tolerance = 8 * Epsilon(dtype);
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        Check(dtype, 1, 1, 1, ta, tb, tolerance, seed++);
        Check(dtype, 17, 33, 9, ta, tb, tolerance, seed++);
        Check(dtype, 130, 65, 257, ta, tb, tolerance, seed++);
      }
    }
  }
}

TEST_F(MatMulGpuTest, LargeFloatAtFloatPrecisionByDefault) {
  ASSERT_FALSE(GpuTensorFloat32Enabled());
  // TF32 would miss this bound by ~30x (10-bit mantissas).
  Check(DT_FLOAT, 512, 384, 1024, false, false, 8 * Epsilon(DT_FLOAT), 7);
  Check(DT_FLOAT, 256, 512, 777, true, true, 8 * Epsilon(DT_FLOAT), 8);
}

TEST_F(MatMulGpuTest, TensorFloat32WhenEnabled) {
  SetGpuTensorFloat32(true);
  // TF32 rounds inputs to 10 mantissa bits (2^-11 relative).
  const Tensor tf32 =
      Check(DT_FLOAT, 256, 256, 1024, false, false, 8 * 4.9e-4, 11);
  SetGpuTensorFloat32(false);
  const Tensor full =
      Check(DT_FLOAT, 256, 256, 1024, false, false, 8 * Epsilon(DT_FLOAT), 11);
  // Same inputs (same seed): TF32 must have changed some results.
  int differ = 0;
  for (int64_t i = 0; i < full.NumElements(); ++i) {
    differ += tf32.data<float>()[i] != full.data<float>()[i];
  }
  EXPECT_GT(differ, full.NumElements() / 2);
}

TEST_F(MatMulGpuTest, EmptyProducts) {
  // k = 0: zeros over the poison.
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_COMPLEX64}) {
    Check(dtype, 5, 7, 0, false, false, 0, 3);
    Check(dtype, 5, 7, 0, true, true, 0, 3);
  }
  // m = 0 or n = 0: nothing to write (null pointers are fine).
  GpuMatMulParams p;
  p.m = 0;
  p.n = 4;
  p.k = 3;
  EXPECT_TRUE(LaunchMatMul(0, stream(), p, nullptr, nullptr, nullptr).ok());
  p.m = 4;
  p.n = 0;
  EXPECT_TRUE(LaunchMatMul(0, stream(), p, nullptr, nullptr, nullptr).ok());
}

TEST_F(MatMulGpuTest, UnsupportedDtypeFailsBeforeTheGpu) {
  GpuMatMulParams p;
  p.dtype = DT_INT32;
  p.m = p.n = p.k = 2;
  absl::Status s = LaunchMatMul(0, stream(), p, nullptr, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
}

TEST_F(MatMulGpuTest, BadOrdinalIsAnError) {
  GpuMatMulParams p;
  p.m = p.n = p.k = 2;
  absl::Status s = LaunchMatMul(999, stream(), p, nullptr, nullptr, nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("GPU:999"), std::string::npos) << s;
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace dflow
