// Tests of the CPU MatMul kernel and the BLAS helper behind it
// (kernels/cpu/kernel_util_blas.h).
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "kernels/cpu/kernel_util_blas.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_math::AsDoubles;
using testing_math::ExpectAllNear;
using testing_math::FromDoubles;
using testing_math::RandomValues;
using testing_math::Rounded;
using testing_math::RunEverywhere;

// op(A) * op(B) in double; a is [m,k] or [k,m], b is [k,n] or [n,k].
std::vector<double> Reference(const std::vector<double>& a,
                              const std::vector<double>& b, int64_t m,
                              int64_t n, int64_t k, bool ta, bool tb) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l) {
        const double x = ta ? a[l * m + i] : a[i * k + l];
        const double y = tb ? b[j * k + l] : b[l * n + j];
        s += x * y;
      }
      c[i * n + j] = s;
    }
  }
  return c;
}

// Builds MatMul over two placeholders of `dtype`.
Output MatMulNode(const Scope& root, DataType dtype, bool ta, bool tb) {
  auto a = ops::Placeholder(root, dtype);
  auto b = ops::Placeholder(root, dtype);
  return ops::MatMul(root, a, b,
                     ops::MatMulAttrs().TransposeA(ta).TransposeB(tb));
}

// Checks m x k x n products with every transposition against Reference.
void CheckAgainstReference(DataType dtype, int64_t m, int64_t n, int64_t k,
                           double rtol, double atol) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(testing::Message()
                   << DataTypeName(dtype) << " " << m << "x" << k << "x" << n
                   << " ta=" << ta << " tb=" << tb);
      Scope root = Scope::NewRootScope();
      Output y = MatMulNode(root, dtype, ta, tb);
      ASSERT_TRUE(root.ok()) << root.status();
      const std::vector<double> av =
          Rounded(dtype, RandomValues(m * k, 1 + m + ta, -4, 4));
      const std::vector<double> bv =
          Rounded(dtype, RandomValues(k * n, 7 + n + tb, -4, 4));
      const Tensor a = FromDoubles(
          dtype, av, ta ? TensorShape({k, m}) : TensorShape({m, k}));
      const Tensor b = FromDoubles(
          dtype, bv, tb ? TensorShape({n, k}) : TensorShape({k, n}));
      auto out = RunEverywhere(y.node(), {a, b}, rtol);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ((*out)[0].shape(), TensorShape({m, n}));
      ExpectAllNear(AsDoubles((*out)[0]), Reference(av, bv, m, n, k, ta, tb),
                    rtol, atol);
    }
  }
}

TEST(MatMulKernelTest, HandValues) {
  Scope root = Scope::NewRootScope();
  Output y = MatMulNode(root, DT_FLOAT, false, false);
  auto out = RunKernel(
      y.node(), {Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
                 Tensor::FromVector<float>({7, 8, 9, 10, 11, 12}, {3, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(58, 64, 139, 154));
}

TEST(MatMulKernelTest, FloatSmallAllTranspositions) {
  CheckAgainstReference(DT_FLOAT, 5, 7, 3, 1e-5, 1e-5);
  CheckAgainstReference(DT_FLOAT, 1, 1, 1, 1e-6, 0);
}

// Large enough to be split over the pool: by rows (m >= n) and by columns.
TEST(MatMulKernelTest, FloatSplitByRowsAndColumns) {
  CheckAgainstReference(DT_FLOAT, 301, 130, 67, 1e-4, 1e-4);
  CheckAgainstReference(DT_FLOAT, 40, 611, 90, 1e-4, 1e-4);
}

TEST(MatMulKernelTest, Double) {
  CheckAgainstReference(DT_DOUBLE, 9, 4, 6, 1e-12, 1e-12);
  CheckAgainstReference(DT_DOUBLE, 257, 70, 80, 1e-12, 1e-11);
}

// Small integers times small integers: exact in half and bfloat16 inputs
// and in float accumulation; the outputs round once.
TEST(MatMulKernelTest, HalfAndBfloat16AccumulateInFloat) {
  for (DataType dtype : {DT_HALF, DT_BFLOAT16}) {
    CheckAgainstReference(dtype, 6, 5, 4, 1e-2, 1e-2);
    CheckAgainstReference(dtype, 100, 120, 90, 1e-2, 5e-2);
  }
  // 4096 products of 1: a half accumulator would stop at 2048.
  Scope root = Scope::NewRootScope();
  Output y = MatMulNode(root, DT_HALF, false, false);
  const Tensor a = FromDoubles(DT_HALF, std::vector<double>(4096, 1.0),
                               TensorShape({1, 4096}));
  const Tensor b = FromDoubles(DT_HALF, std::vector<double>(4096, 1.0),
                               TensorShape({4096, 1}));
  auto out = RunKernel(y.node(), {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(4096));
}

TEST(MatMulKernelTest, Integers) {
  // TensorFlow 2.21's MatMul has no int8/int16 (nor does dflow's schema).
  for (DataType dtype : {DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, DT_UINT32,
                         DT_UINT64}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << DataTypeName(dtype) << " ta=" << ta << " tb=" << tb);
        Scope root = Scope::NewRootScope();
        Output y = MatMulNode(root, dtype, ta, tb);
        const int64_t m = 13, n = 11, k = 5;
        std::vector<double> av(m * k), bv(k * n);
        for (size_t i = 0; i < av.size(); ++i) av[i] = (i * 7) % 5;
        for (size_t i = 0; i < bv.size(); ++i) bv[i] = (i * 3) % 4;
        const Tensor a = FromDoubles(
            dtype, av, ta ? TensorShape({k, m}) : TensorShape({m, k}));
        const Tensor b = FromDoubles(
            dtype, bv, tb ? TensorShape({n, k}) : TensorShape({k, n}));
        auto out = RunEverywhere(y.node(), {a, b}, 0);
        ASSERT_TRUE(out.ok()) << out.status();
        ExpectAllNear(AsDoubles((*out)[0]), Reference(av, bv, m, n, k, ta, tb),
                      0);
      }
    }
  }
}

TEST(MatMulKernelTest, IntegerOverflowWraps) {
  {
    Scope root = Scope::NewRootScope();
    Output y = MatMulNode(root, DT_INT32, false, false);
    const int32_t big = std::numeric_limits<int32_t>::max();
    auto out =
        RunKernel(y.node(), {Tensor::FromVector<int32_t>({big, big}, {1, 2}),
                             Tensor::FromVector<int32_t>({2, 1}, {2, 1})});
    ASSERT_TRUE(out.ok()) << out.status();
    // 3 * (2^31 - 1) mod 2^32, as int32: 2^31 - 3.
    EXPECT_EQ((*out)[0].data<int32_t>()[0],
              static_cast<int32_t>(3u * static_cast<uint32_t>(big)));
  }
  {
    Scope root = Scope::NewRootScope();
    Output y = MatMulNode(root, DT_UINT8, false, true);
    auto out =
        RunKernel(y.node(), {Tensor::FromVector<uint8_t>({100, 100}, {1, 2}),
                             Tensor::FromVector<uint8_t>({2, 2}, {1, 2})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<uint8_t>()[0], static_cast<uint8_t>(400 - 256));
  }
  {
    Scope root = Scope::NewRootScope();
    Output y = MatMulNode(root, DT_UINT16, false, false);
    auto out =
        RunKernel(y.node(), {Tensor::FromVector<uint16_t>({65535}, {1, 1}),
                             Tensor::FromVector<uint16_t>({65535}, {1, 1})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<uint16_t>()[0], 1);  // (2^16-1)^2 mod 2^16
  }
  {
    Scope root = Scope::NewRootScope();
    Output y = MatMulNode(root, DT_INT64, true, false);
    const int64_t big = std::numeric_limits<int64_t>::max();
    auto out = RunKernel(y.node(), {Tensor::FromVector<int64_t>({big}, {1, 1}),
                                    Tensor::FromVector<int64_t>({2}, {1, 1})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<int64_t>()[0], -2);
  }
}

TEST(MatMulKernelTest, Complex) {
  for (bool tb : {false, true}) {
    Scope root = Scope::NewRootScope();
    Output y = MatMulNode(root, DT_COMPLEX64, false, tb);
    // [1+i, 2] . [[i], [3-i]] = (1+i)i + 2(3-i) = -1+i + 6-2i = 5-i.
    auto out = RunKernel(
        y.node(), {Tensor::FromVector<complex64>({{1, 1}, {2, 0}}, {1, 2}),
                   Tensor::FromVector<complex64>(
                       {{0, 1}, {3, -1}},
                       tb ? TensorShape({1, 2}) : TensorShape({2, 1}))});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<complex64>()[0], complex64(5, -1));
  }
  Scope root = Scope::NewRootScope();
  Output y = MatMulNode(root, DT_COMPLEX128, true, false);
  auto out = RunKernel(
      y.node(), {Tensor::FromVector<complex128>({{0, 2}}, {1, 1}),
                 Tensor::FromVector<complex128>({{0, 3}, {1, 0}}, {1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<complex128>()[0], complex128(-6, 0));
  EXPECT_EQ((*out)[0].data<complex128>()[1], complex128(0, 2));
}

TEST(MatMulKernelTest, ZeroSize) {
  for (DataType dtype : {DT_FLOAT, DT_INT32, DT_HALF, DT_COMPLEX64}) {
    SCOPED_TRACE(DataTypeName(dtype));
    Scope root = Scope::NewRootScope();
    Output y = MatMulNode(root, dtype, false, false);
    auto out = RunKernel(y.node(), {Tensor(dtype, TensorShape({0, 3})),
                                    Tensor(dtype, TensorShape({3, 4}))});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), TensorShape({0, 4}));
    out = RunKernel(y.node(), {Tensor(dtype, TensorShape({2, 3})),
                               Tensor(dtype, TensorShape({3, 0}))});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), TensorShape({2, 0}));
    // An empty inner dimension: every output is an empty sum, 0.
    out = RunKernel(y.node(), {Tensor(dtype, TensorShape({2, 0})),
                               Tensor(dtype, TensorShape({0, 3}))});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), TensorShape({2, 3}));
    if (dtype != DT_COMPLEX64) {
      EXPECT_THAT(AsDoubles((*out)[0]), ElementsAre(0, 0, 0, 0, 0, 0));
    }
  }
}

TEST(MatMulKernelTest, Errors) {
  Scope root = Scope::NewRootScope();
  Output y = MatMulNode(root, DT_FLOAT, false, false);
  auto out = RunKernel(y.node(), {Tensor::FromVector<float>({1, 2, 3}),
                                  Tensor(DT_FLOAT, TensorShape({3, 2}))});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("In[0] is not a matrix. Instead it has shape [3]"));
  out = RunKernel(y.node(), {Tensor(DT_FLOAT, TensorShape({2, 3})),
                             Tensor(DT_FLOAT, TensorShape({2, 3, 1}))});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("In[1] is not a matrix. Instead it has shape [2,3,1]"));
  out = RunKernel(y.node(), {Tensor(DT_FLOAT, TensorShape({2, 3})),
                             Tensor(DT_FLOAT, TensorShape({4, 5}))});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("Matrix size-incompatible: In[0]: [2,3], In[1]: "
                        "[4,5]"));

  Scope root2 = Scope::NewRootScope();
  Output yt = MatMulNode(root2, DT_INT32, true, false);
  out = RunKernel(yt.node(), {Tensor(DT_INT32, TensorShape({2, 3})),
                              Tensor(DT_INT32, TensorShape({3, 2}))});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("transpose_a=true, transpose_b=false: inner "
                        "dimensions 2 vs. 3"));
}

// --- The BLAS helper. ---

TEST(GemmTest, SplitChoice) {
  // Small products run as one call.
  EXPECT_EQ(ChooseGemmSplit(2, 100, 10, 500).blocks, 1);
  EXPECT_EQ(ChooseGemmSplit(1, 1024, 1024, 1024).blocks, 1);
  // Large ones split the longer side of C.
  GemmSplit s = ChooseGemmSplit(2, 1024, 1024, 1024);
  EXPECT_EQ(s.blocks, 2);
  EXPECT_TRUE(s.split_rows);
  s = ChooseGemmSplit(2, 784, 500, 100);
  EXPECT_EQ(s.blocks, 2);
  EXPECT_TRUE(s.split_rows);
  s = ChooseGemmSplit(2, 100, 784, 500);
  EXPECT_EQ(s.blocks, 2);
  EXPECT_FALSE(s.split_rows);
  // Never more blocks than threads, nor blocks too thin for BLAS.
  EXPECT_EQ(ChooseGemmSplit(64, 64, 4096, 4096).blocks, 64);
  EXPECT_FALSE(ChooseGemmSplit(64, 64, 4096, 4096).split_rows);
  EXPECT_EQ(ChooseGemmSplit(8, 40, 40, 100000).blocks, 1);
}

TEST(GemmTest, BetaAccumulatesAndLeadingDimensions) {
  ThreadPool pool(2);
  // A is 2x2 inside rows of 3, B 2x2 inside rows of 4, C rows of 5.
  const std::vector<float> a = {1, 2, -1, 3, 4, -1};
  const std::vector<float> b = {1, 0, -1, -1, 0, 1, -1, -1};
  std::vector<float> c = {10, 20, -1, -1, -1, 30, 40, -1, -1, -1};
  ASSERT_TRUE(Gemm<float>(&pool, false, false, 2, 2, 2, a.data(), 3, b.data(),
                          4, 1.0f, c.data(), 5)
                  .ok());
  EXPECT_THAT(c, ElementsAre(11, 22, -1, -1, -1, 33, 44, -1, -1, -1));
  // beta 0 ignores (even NaN) contents of C.
  std::vector<double> a2 = {1, 2}, b2 = {3, 4};
  std::vector<double> c2 = {std::numeric_limits<double>::quiet_NaN()};
  ASSERT_TRUE(Gemm<double>(nullptr, false, true, 1, 1, 2, a2.data(), 2,
                           b2.data(), 2, 0.0, c2.data(), 1)
                  .ok());
  EXPECT_EQ(c2[0], 11);
  // k == 0 scales C by beta.
  std::vector<float> c3 = {5, 6};
  ASSERT_TRUE(Gemm<float>(&pool, false, false, 1, 2, 0, a.data(), 0, b.data(),
                          2, 2.0f, c3.data(), 2)
                  .ok());
  EXPECT_THAT(c3, ElementsAre(10, 12));
}

// The fused SGD update: W += alpha * A^T B with alpha = -learning rate,
// split over the pool (large enough) and on one thread.
TEST(GemmTest, ScaledGemmIsAnUpdateInPlace) {
  ThreadPool pool(2);
  const int64_t m = 200, n = 150, k = 40;
  const std::vector<double> a = RandomValues(k * m, 3, -1, 1);
  const std::vector<double> b = RandomValues(k * n, 4, -1, 1);
  const std::vector<double> w = RandomValues(m * n, 5, -1, 1);
  const std::vector<double> product = Reference(a, b, m, n, k, true, false);
  for (ThreadPool* p : {&pool, static_cast<ThreadPool*>(nullptr)}) {
    std::vector<double> c = w;
    ASSERT_TRUE(ScaledGemm<double>(p, true, false, m, n, k, -0.5, a.data(), m,
                                   b.data(), n, 1.0, c.data(), n)
                    .ok());
    std::vector<double> expected(m * n);
    for (int64_t i = 0; i < m * n; ++i) expected[i] = w[i] - 0.5 * product[i];
    ExpectAllNear(c, expected, 1e-12, 1e-12);
  }
}

TEST(GemmTest, RejectsWhatBlasCannotIndex) {
  float x = 0;
  absl::Status s = Gemm<float>(nullptr, false, false, 1, 1, kMaxBlasDim + 1, &x,
                               kMaxBlasDim + 1, &x, 1, 0.0f, &x, 1);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("outside what BLAS can index"));
  // A leading dimension shorter than the row.
  s = Gemm<float>(nullptr, false, false, 2, 2, 3, &x, 2, &x, 2, 0.0f, &x, 2);
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace dflow
