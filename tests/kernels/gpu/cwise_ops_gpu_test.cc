// The element-wise launchers (kernels/gpu/cwise_ops_gpu.h) against the CPU
// kernels on fresh random inputs: every unary op, activation gradient and
// binary op with a CPU kernel, for half, bfloat16, float, double and int64
// where the op takes it, on empty, one-element, odd, large and unaligned
// inputs and on broadcast patterns; the ops without a CPU kernel (Abs,
// Relu6, Elu, Softplus, their gradients, LessEqual, GreaterEqual, NotEqual,
// Select) against their formulas in double. Outputs are poisoned before
// every launch. Skips without a GPU.
#include "kernels/gpu/cwise_ops_gpu.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "kernels/gpu/gpu_shape_plans.h"
#include "tests/kernels/gpu/cwise_gpu_test_util.h"
#include "tests/kernels/gpu/gpu_launcher_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"

namespace dflow {
namespace testing_gpu {
namespace {

#if DFLOW_HAVE_CUDA

using testing_math::AsDoubles;
using testing_math::FromDoubles;
using testing_math::RandomValues;

using UnaryBuilder = std::function<Output(const Scope&, Output)>;
using BinaryBuilder = std::function<Output(const Scope&, Output, Output)>;

const std::vector<DataType> kFloats = {DT_FLOAT, DT_DOUBLE, DT_HALF,
                                       DT_BFLOAT16};
const std::vector<int64_t> kSizes = {0, 1, 7, 1000, 100003};

std::string Label(const std::string& op, DataType dtype, const std::string& s) {
  return absl::StrCat(op, " ", DataTypeName(dtype), " ", s);
}

class CwiseGpuTest : public GpuLauncherTest {
 protected:
  cudaStream_t s() const { return static_cast<cudaStream_t>(stream()); }

  // The unary launcher on x (offset by `skew` elements to test unaligned
  // pointers).
  Tensor RunUnary(GpuUnaryOp op, const Tensor& x, int skew = 0) {
    const DataType dtype = x.dtype();
    const int64_t size = DataTypeSize(dtype);
    Tensor padded(dtype, TensorShape({x.NumElements() + skew}));
    std::memcpy(static_cast<char*>(padded.raw_data()) + skew * size,
                x.raw_data(), Bytes(x));
    auto dx = Upload(padded);
    auto dy = Poisoned(dtype, TensorShape({x.NumElements() + skew}));
    const char* in = static_cast<const char*>(dx->get()) + skew * size;
    char* out = static_cast<char*>(dy->get()) + skew * size;
    EXPECT_TRUE(
        LaunchUnary(op, Gpu(dtype), in, out, x.NumElements(), s()).ok());
    Tensor all = Download(*dy, dtype, TensorShape({x.NumElements() + skew}));
    Tensor got(dtype, x.shape());
    std::memcpy(got.raw_data(),
                static_cast<char*>(all.raw_data()) + skew * size, Bytes(x));
    return got;
  }

  Tensor RunGrad(GpuGradOp op, const Tensor& a, const Tensor& b) {
    auto da = Upload(a);
    auto db = Upload(b);
    auto dout = Poisoned(a.dtype(), a.shape());
    EXPECT_TRUE(LaunchGrad(op, Gpu(a.dtype()), da->get(), db->get(),
                           dout->get(), a.NumElements(), s())
                    .ok());
    return Download(*dout, a.dtype(), a.shape());
  }

  Tensor RunBinary(GpuBinaryOp op, const Tensor& x, const Tensor& y) {
    std::vector<int64_t> out_shape;
    absl::StatusOr<BroadcastPlan> plan = MakeBroadcastPlan(
        {std::vector<int64_t>(x.shape().dims().begin(), x.shape().dims().end()),
         std::vector<int64_t>(y.shape().dims().begin(),
                              y.shape().dims().end())},
        &out_shape);
    EXPECT_TRUE(plan.ok()) << plan.status();
    const DataType out_type = ReturnsBool(op) ? DT_BOOL : x.dtype();
    const TensorShape shape(out_shape);
    auto dx = Upload(x);
    auto dy = Upload(y);
    auto dz = Poisoned(out_type, shape);
    absl::Status st = LaunchBinary(op, Gpu(x.dtype()), *plan, dx->get(),
                                   dy->get(), dz->get(), s());
    EXPECT_TRUE(st.ok()) << st;
    return Download(*dz, out_type, shape);
  }
};

// Inputs in each op's domain.
std::vector<double> UnaryInputs(GpuUnaryOp op, int64_t n, uint32_t seed) {
  switch (op) {
    case GpuUnaryOp::kSqrt:
    case GpuUnaryOp::kRsqrt:
    case GpuUnaryOp::kLog:
      return RandomValues(n, seed, 0.01, 20);
    case GpuUnaryOp::kExp:
      return RandomValues(n, seed, -10, 10);
    default:
      return RandomValues(n, seed, -8, 8);
  }
}

struct UnaryCase {
  GpuUnaryOp op;
  UnaryBuilder build;
  bool int64;
};

TEST_F(CwiseGpuTest, UnaryOpsMatchTheCpuKernels) {
  const std::vector<UnaryCase> cases = {
      {GpuUnaryOp::kNeg,
       [](const Scope& s, Output x) { return ops::Neg(s, x); }, true},
      {GpuUnaryOp::kSquare,
       [](const Scope& s, Output x) { return ops::Square(s, x); }, true},
      {GpuUnaryOp::kSqrt,
       [](const Scope& s, Output x) { return ops::Sqrt(s, x); }, false},
      {GpuUnaryOp::kRsqrt,
       [](const Scope& s, Output x) { return ops::Rsqrt(s, x); }, false},
      {GpuUnaryOp::kExp,
       [](const Scope& s, Output x) { return ops::Exp(s, x); }, false},
      {GpuUnaryOp::kLog,
       [](const Scope& s, Output x) { return ops::Log(s, x); }, false},
      {GpuUnaryOp::kSigmoid,
       [](const Scope& s, Output x) { return ops::Sigmoid(s, x); }, false},
      {GpuUnaryOp::kTanh,
       [](const Scope& s, Output x) { return ops::Tanh(s, x); }, false},
      {GpuUnaryOp::kRelu,
       [](const Scope& s, Output x) { return ops::Relu(s, x); }, true},
  };
  uint32_t seed = 1;
  for (const UnaryCase& c : cases) {
    std::vector<DataType> types = kFloats;
    if (c.int64) types.push_back(DT_INT64);
    for (DataType dtype : types) {
      Scope root = Scope::NewRootScope();
      Output y = c.build(root, ops::Placeholder(root, dtype));
      ASSERT_TRUE(root.status().ok()) << root.status();
      for (int64_t n : kSizes) {
        std::vector<double> v = UnaryInputs(c.op, n, seed++);
        if (dtype == DT_INT64) {
          for (double& d : v) d = std::round(d * 1000);
        }
        const Tensor x = FromDoubles(dtype, v, TensorShape({n}));
        const Tensor want = CpuOutput(y.node(), {x});
        const std::string label =
            Label(GpuUnaryOpName(c.op), dtype, absl::StrCat("n=", n));
        ExpectAllClose(RunUnary(c.op, x), want, ToleranceFor(dtype), label);
        if (n > 1) {
          ExpectAllClose(RunUnary(c.op, x, /*skew=*/1), want,
                         ToleranceFor(dtype), label + " unaligned");
        }
      }
    }
  }
}

TEST_F(CwiseGpuTest, UnaryOpsWithoutCpuKernelsMatchTheirFormulas) {
  struct Case {
    GpuUnaryOp op;
    std::function<double(double)> f;
  };
  const std::vector<Case> cases = {
      {GpuUnaryOp::kAbs, [](double x) { return std::fabs(x); }},
      {GpuUnaryOp::kRelu6,
       [](double x) { return std::min(std::max(x, 0.0), 6.0); }},
      {GpuUnaryOp::kElu, [](double x) { return x < 0 ? std::expm1(x) : x; }},
      {GpuUnaryOp::kSoftplus,
       [](double x) { return x > 30 ? x : std::log1p(std::exp(x)); }},
  };
  for (const Case& c : cases) {
    for (DataType dtype : kFloats) {
      for (int64_t n : kSizes) {
        const Tensor x =
            FromDoubles(dtype, RandomValues(n, 77, -20, 20), TensorShape({n}));
        std::vector<double> want;
        for (double v : AsDoubles(x)) want.push_back(c.f(v));
        const Tensor w = FromDoubles(dtype, want, TensorShape({n}));
        Tolerance tol = ToleranceFor(dtype);
        tol.rtol *= 4;  // the reference is double, rounded once
        ExpectAllClose(RunUnary(c.op, x), w, tol,
                       Label(GpuUnaryOpName(c.op), dtype, absl::StrCat(n)));
      }
    }
  }
  // Integer Abs and Relu6 are exact.
  const Tensor xi = Tensor::FromVector<int64_t>({-7, 0, 3, 9, -1});
  ExpectAllClose(RunUnary(GpuUnaryOp::kAbs, xi),
                 Tensor::FromVector<int64_t>({7, 0, 3, 9, 1}), {0, 0},
                 "Abs int64");
  ExpectAllClose(RunUnary(GpuUnaryOp::kRelu6, xi),
                 Tensor::FromVector<int64_t>({0, 0, 3, 6, 0}), {0, 0},
                 "Relu6 int64");
}

TEST_F(CwiseGpuTest, NanStaysNanThroughRelu) {
  const float nan = std::nanf("");
  const Tensor x = Tensor::FromVector<float>({nan, -1.0f, 2.0f});
  const Tensor y = RunUnary(GpuUnaryOp::kRelu, x);
  EXPECT_TRUE(std::isnan(y.data<float>()[0]));
  EXPECT_EQ(y.data<float>()[1], 0.0f);
  EXPECT_EQ(y.data<float>()[2], 2.0f);
}

TEST_F(CwiseGpuTest, GradientsMatchTheCpuKernels) {
  struct Case {
    GpuGradOp op;
    BinaryBuilder build;
    bool y_in_unit;  // first input is an activation output in (0, 1)
  };
  const std::vector<Case> cases = {
      {GpuGradOp::kReluGrad,
       [](const Scope& s, Output a, Output b) {
         return ops::ReluGrad(s, a, b);
       },
       false},
      {GpuGradOp::kSigmoidGrad,
       [](const Scope& s, Output a, Output b) {
         return ops::SigmoidGrad(s, a, b);
       },
       true},
      {GpuGradOp::kTanhGrad,
       [](const Scope& s, Output a, Output b) {
         return ops::TanhGrad(s, a, b);
       },
       true},
  };
  uint32_t seed = 100;
  for (const Case& c : cases) {
    for (DataType dtype : kFloats) {
      Scope root = Scope::NewRootScope();
      Output z = c.build(root, ops::Placeholder(root, dtype),
                         ops::Placeholder(root, dtype));
      ASSERT_TRUE(root.status().ok()) << root.status();
      for (int64_t n : kSizes) {
        const Tensor a = FromDoubles(
            dtype,
            RandomValues(n, seed++, c.y_in_unit ? 0 : -3, c.y_in_unit ? 1 : 3),
            TensorShape({n}));
        const Tensor b = FromDoubles(dtype, RandomValues(n, seed++, -3, 3),
                                     TensorShape({n}));
        Tolerance tol = ToleranceFor(dtype);
        if (dtype == DT_HALF || dtype == DT_BFLOAT16) tol.rtol *= 3;
        if (c.op == GpuGradOp::kTanhGrad &&
            (dtype == DT_HALF || dtype == DT_BFLOAT16)) {
          // 1 - y * y cancels as y nears 1: the CPU kernel (Eigen's 2-byte
          // arithmetic, as TensorFlow's) rounds y * y to the type first,
          // the GPU computes in float and rounds once, so they part by up
          // to |dy| (at most 3 here) times half an ulp of 1.
          tol.atol += 3 * (dtype == DT_HALF ? 0x1p-11 : 0x1p-8);
        }
        ExpectAllClose(RunGrad(c.op, a, b), CpuOutput(z.node(), {a, b}), tol,
                       Label(GpuGradOpName(c.op), dtype, absl::StrCat(n)));
      }
    }
  }
}

TEST_F(CwiseGpuTest, GradientsWithoutCpuKernelsMatchTheirFormulas) {
  struct Case {
    GpuGradOp op;
    std::function<double(double, double)> f;
  };
  const std::vector<Case> cases = {
      {GpuGradOp::kRelu6Grad,
       [](double g, double f) { return f > 0 && f < 6 ? g : 0; }},
      {GpuGradOp::kEluGrad,
       [](double g, double y) { return y < 0 ? g * (y + 1) : g; }},
      {GpuGradOp::kSoftplusGrad,
       [](double g, double f) { return g / (1 + std::exp(-f)); }},
  };
  for (const Case& c : cases) {
    for (DataType dtype : kFloats) {
      const int64_t n = 5001;
      const Tensor a =
          FromDoubles(dtype, RandomValues(n, 5, -3, 3), TensorShape({n}));
      const Tensor b =
          FromDoubles(dtype, RandomValues(n, 6, -8, 8), TensorShape({n}));
      std::vector<double> want;
      const std::vector<double> av = AsDoubles(a), bv = AsDoubles(b);
      for (int64_t i = 0; i < n; ++i) want.push_back(c.f(av[i], bv[i]));
      Tolerance tol = ToleranceFor(dtype);
      tol.rtol *= 4;
      tol.atol *= 4;
      ExpectAllClose(RunGrad(c.op, a, b),
                     FromDoubles(dtype, want, TensorShape({n})), tol,
                     Label(GpuGradOpName(c.op), dtype, ""));
    }
  }
}

struct ShapePair {
  TensorShape x, y;
};
const std::vector<ShapePair> kShapePairs = {
    {{}, {}},
    {{7}, {7}},
    {{1000}, {}},
    {{}, {1000}},
    {{3, 1, 5}, {1, 4, 1}},
    {{64, 33}, {33}},
    {{2, 3, 4, 5}, {3, 1, 5}},
    {{0, 3}, {1, 3}},
    {{100003}, {100003}},
    {{5, 1}, {1, 6}},
    {{1, 3}, {3}},
};

std::vector<double> BinaryInputs(GpuBinaryOp op, DataType dtype, bool second,
                                 int64_t n, uint32_t seed) {
  const bool integer = dtype == DT_INT64;
  std::vector<double> v;
  if (op == GpuBinaryOp::kPow) {
    v = second ? RandomValues(n, seed, integer ? 0 : -2, integer ? 6 : 2)
               : RandomValues(n, seed, integer ? -3 : 0.5, integer ? 4 : 2);
  } else if (op == GpuBinaryOp::kEqual || op == GpuBinaryOp::kLess ||
             op == GpuBinaryOp::kGreater) {
    v = RandomValues(n, seed, -3, 3);
    for (double& d : v) d = std::round(d);  // many ties
  } else if (op == GpuBinaryOp::kRealDiv && second) {
    v = RandomValues(n, seed, 0.5, 4);
  } else {
    v = RandomValues(n, seed, -50, 50);
  }
  if (integer) {
    for (double& d : v) d = std::floor(d);
  }
  return v;
}

TEST_F(CwiseGpuTest, BinaryOpsMatchTheCpuKernels) {
  struct Case {
    GpuBinaryOp op;
    BinaryBuilder build;
    bool int64;
  };
  const std::vector<Case> cases = {
      {GpuBinaryOp::kAdd,
       [](const Scope& s, Output a, Output b) { return ops::Add(s, a, b); },
       true},
      {GpuBinaryOp::kSub,
       [](const Scope& s, Output a, Output b) { return ops::Sub(s, a, b); },
       true},
      {GpuBinaryOp::kMul,
       [](const Scope& s, Output a, Output b) { return ops::Mul(s, a, b); },
       true},
      {GpuBinaryOp::kRealDiv,
       [](const Scope& s, Output a, Output b) { return ops::RealDiv(s, a, b); },
       false},
      {GpuBinaryOp::kMaximum,
       [](const Scope& s, Output a, Output b) { return ops::Maximum(s, a, b); },
       true},
      {GpuBinaryOp::kMinimum,
       [](const Scope& s, Output a, Output b) { return ops::Minimum(s, a, b); },
       true},
      {GpuBinaryOp::kSquaredDifference,
       [](const Scope& s, Output a, Output b) {
         return ops::SquaredDifference(s, a, b);
       },
       true},
      {GpuBinaryOp::kPow,
       [](const Scope& s, Output a, Output b) { return ops::Pow(s, a, b); },
       true},
      {GpuBinaryOp::kLess,
       [](const Scope& s, Output a, Output b) { return ops::Less(s, a, b); },
       true},
      {GpuBinaryOp::kGreater,
       [](const Scope& s, Output a, Output b) { return ops::Greater(s, a, b); },
       true},
      {GpuBinaryOp::kEqual,
       [](const Scope& s, Output a, Output b) { return ops::Equal(s, a, b); },
       true},
  };
  uint32_t seed = 1000;
  for (const Case& c : cases) {
    std::vector<DataType> types = kFloats;
    if (c.int64) types.push_back(DT_INT64);
    for (DataType dtype : types) {
      Scope root = Scope::NewRootScope();
      Output z = c.build(root, ops::Placeholder(root, dtype),
                         ops::Placeholder(root, dtype));
      ASSERT_TRUE(root.status().ok()) << root.status();
      for (const ShapePair& p : kShapePairs) {
        const Tensor x = FromDoubles(
            dtype, BinaryInputs(c.op, dtype, false, p.x.num_elements(), seed++),
            p.x);
        const Tensor y = FromDoubles(
            dtype, BinaryInputs(c.op, dtype, true, p.y.num_elements(), seed++),
            p.y);
        const Tensor want = CpuOutput(z.node(), {x, y});
        Tolerance tol = ToleranceFor(dtype);
        if (c.op == GpuBinaryOp::kPow && dtype == DT_FLOAT) tol.rtol = 1e-5;
        ExpectAllClose(RunBinary(c.op, x, y), want,
                       ReturnsBool(c.op) ? Tolerance{0, 0} : tol,
                       Label(GpuBinaryOpName(c.op), dtype,
                             p.x.ToString() + " vs " + p.y.ToString()));
      }
    }
  }
}

TEST_F(CwiseGpuTest, ComparisonsWithoutCpuKernelsAndBoolEqual) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4});
  const Tensor y = Tensor::FromVector<float>({2, 2, 2, 2});
  auto bools = [](std::vector<bool> v) {
    Tensor t(DT_BOOL, TensorShape({static_cast<int64_t>(v.size())}));
    for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i];
    return t;
  };
  ExpectAllClose(RunBinary(GpuBinaryOp::kLessEqual, x, y),
                 bools({true, true, false, false}), {0, 0}, "LessEqual");
  ExpectAllClose(RunBinary(GpuBinaryOp::kGreaterEqual, x, y),
                 bools({false, true, true, true}), {0, 0}, "GreaterEqual");
  ExpectAllClose(RunBinary(GpuBinaryOp::kNotEqual, x, y),
                 bools({true, false, true, true}), {0, 0}, "NotEqual");
  // bool Equal, including a byte of 2 read as true (as on the CPU).
  Tensor a = bools({true, false, true, false});
  reinterpret_cast<uint8_t*>(a.data<bool>())[2] = 2;
  const Tensor b = bools({true, true, true, false});
  Scope root = Scope::NewRootScope();
  Output eq = ops::Equal(root, ops::Placeholder(root, DT_BOOL),
                         ops::Placeholder(root, DT_BOOL));
  ExpectAllClose(RunBinary(GpuBinaryOp::kEqual, a, b),
                 CpuOutput(eq.node(), {a, b}), {0, 0}, "Equal bool");
}

TEST_F(CwiseGpuTest, SelectBroadcastsThreeOperands) {
  const TensorShape cs({2, 1}), xs({1, 3}), ys({2, 3});
  Tensor cond(DT_BOOL, cs);
  cond.data<bool>()[0] = true;
  cond.data<bool>()[1] = false;
  const Tensor x = Tensor::FromVector<double>({1, 2, 3});
  Tensor x2(DT_DOUBLE, xs);
  std::memcpy(x2.raw_data(), x.raw_data(), 24);
  const Tensor y = FromDoubles(DT_DOUBLE, {10, 20, 30, 40, 50, 60}, ys);
  std::vector<int64_t> out_shape;
  absl::StatusOr<BroadcastPlan> plan =
      MakeBroadcastPlan({{2, 1}, {1, 3}, {2, 3}}, &out_shape);
  ASSERT_TRUE(plan.ok());
  auto dc = Upload(cond);
  auto dx = Upload(x2);
  auto dy = Upload(y);
  auto dout = Poisoned(DT_DOUBLE, ys);
  ASSERT_TRUE(LaunchSelect(GpuType::kDouble, *plan, dc->get(), dx->get(),
                           dy->get(), dout->get(), s())
                  .ok());
  ExpectAllClose(Download(*dout, DT_DOUBLE, ys),
                 FromDoubles(DT_DOUBLE, {1, 2, 3, 40, 50, 60}, ys), {0, 0},
                 "Select");
}

TEST_F(CwiseGpuTest, UnsupportedTypesAreUnimplemented) {
  absl::Status st =
      LaunchUnary(GpuUnaryOp::kLog, GpuType::kInt64, nullptr, nullptr, 4, s());
  EXPECT_EQ(st.code(), absl::StatusCode::kUnimplemented) << st;
  EXPECT_NE(st.message().find("Log"), std::string::npos);
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace testing_gpu
}  // namespace dflow
