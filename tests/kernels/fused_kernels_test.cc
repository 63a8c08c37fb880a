// The CPU fusions' kernels against the kernels they replace: _FusedMatMul
// and _FusedConv2D (compiler/fuse_bias_activation.h) against MatMul or
// Conv2D, BiasAdd and Relu, and
// _FusedElementwise (compiler/fuse_elementwise.h) against each element-wise
// kernel, bit for bit on random data; their attr checks; and sessions
// with the passes on and off giving the same bits.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/fuse_bias_activation.h"
#include "compiler/fuse_elementwise.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

template <typename T>
Tensor Random(const TensorShape& shape, uint32_t seed, double lo = -2,
              double hi = 2) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  T* p = t.data<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i)
    p[i] = static_cast<T>(dist(gen));
  return t;
}

// Same dtype, shape and bytes (NaNs with the same payload compare equal).
void ExpectSameBits(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  ASSERT_EQ(a.shape(), b.shape()) << what;
  const size_t bytes = a.NumElements() * DataTypeSize(a.dtype());
  EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), bytes), 0) << what;
}

Tensor RunOne(const Output& out, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(out.node(), inputs);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok() || r->empty()) return Tensor();
  return (*r)[0];
}

// --- _FusedMatMul. ---

template <typename T>
void CheckFusedMatMul(int64_t m, int64_t k, int64_t n, bool ta, bool tb,
                      bool relu) {
  const DataType type = DataTypeToEnum<T>::value;
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, type);
  auto b = ops::Placeholder(root, type);
  auto bias = ops::Placeholder(root, type);
  auto p =
      ops::MatMul(root, a, b, ops::MatMulAttrs().TransposeA(ta).TransposeB(tb));
  auto biased = ops::BiasAdd(root, p, bias);
  auto activated = ops::Relu(root, biased);
  Output fused = OpBuilder(root, kFusedMatMulOp)
                     .Input(a)
                     .Input(b)
                     .Input(bias)
                     .Attr("transpose_a", ta)
                     .Attr("transpose_b", tb)
                     .Attr("activation", relu ? "Relu" : "")
                     .Finalize();
  ASSERT_TRUE(root.ok()) << root.status();
  const Tensor ta_value =
      Random<T>(ta ? TensorShape({k, m}) : TensorShape({m, k}), 1);
  const Tensor tb_value =
      Random<T>(tb ? TensorShape({n, k}) : TensorShape({k, n}), 2);
  const Tensor bias_value = Random<T>({n}, 3);
  Tensor expected = RunOne(p, {ta_value, tb_value});
  expected = RunOne(biased, {expected, bias_value});
  if (relu) expected = RunOne(activated, {expected});
  const Tensor got = RunOne(fused, {ta_value, tb_value, bias_value});
  ExpectSameBits(
      got, expected,
      absl::StrCat(m, "x", k, "x", n, " ta=", ta, " tb=", tb, " relu=", relu));
}

TEST(FusedMatMulKernelTest, EqualsMatMulBiasAddReluBitForBit) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (bool relu : {false, true}) {
        CheckFusedMatMul<float>(7, 5, 3, ta, tb, relu);
        CheckFusedMatMul<double>(9, 4, 6, ta, tb, relu);
      }
    }
  }
  // The seed MLP's layers (large enough for Gemm to split over threads).
  CheckFusedMatMul<float>(100, 784, 500, false, false, true);
  CheckFusedMatMul<float>(100, 500, 10, false, false, false);
  CheckFusedMatMul<float>(300, 300, 300, true, false, true);
}

TEST(FusedMatMulKernelTest, BadActivationAndShapesAreErrors) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root, DT_FLOAT);
  auto b = ops::Placeholder(root, DT_FLOAT);
  auto bias = ops::Placeholder(root, DT_FLOAT);
  Output tanh = OpBuilder(root, kFusedMatMulOp)
                    .Input(a)
                    .Input(b)
                    .Input(bias)
                    .Attr("activation", "Tanh")
                    .Finalize();
  Output plain =
      OpBuilder(root, kFusedMatMulOp).Input(a).Input(b).Input(bias).Finalize();
  ASSERT_TRUE(root.ok()) << root.status();
  const Tensor x = Random<float>({2, 3}, 1), w = Random<float>({3, 4}, 2);
  absl::StatusOr<std::vector<Tensor>> r =
      RunKernel(tanh.node(), {x, w, Random<float>({4}, 3)});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("'' or 'Relu', got 'Tanh'"));
  r = RunKernel(plain.node(), {x, w, Random<float>({5}, 3)});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("4 columns, got [5]"));
  r = RunKernel(plain.node(),
                {x, Random<float>({4, 4}, 2), Random<float>({4}, 3)});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("size-incompatible"));
}

// --- _FusedConv2D. ---

// _FusedConv2D of a [batch, size, size, depth] image against Conv2D,
// BiasAdd and Relu. oneDNN adds the bias to each finished sum, so the
// result is the same bits.
void CheckFusedConv2D(int64_t batch, int64_t size, int64_t depth,
                      int64_t filter_size, int64_t out_depth, int64_t stride,
                      const char* padding, bool relu) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto w = ops::Placeholder(root, DT_FLOAT);
  auto bias = ops::Placeholder(root, DT_FLOAT);
  const std::vector<int64_t> strides = {1, stride, stride, 1};
  auto conv = ops::Conv2D(root, x, w, strides, padding);
  auto biased = ops::BiasAdd(root, conv, bias);
  auto activated = ops::Relu(root, biased);
  Output fused = OpBuilder(root, kFusedConv2DOp)
                     .Input(x)
                     .Input(w)
                     .Input(bias)
                     .Attr("strides", strides)
                     .Attr("padding", padding)
                     .Attr("activation", relu ? "Relu" : "")
                     .Finalize();
  ASSERT_TRUE(root.ok()) << root.status();
  const Tensor image = Random<float>({batch, size, size, depth}, 1);
  const Tensor filter =
      Random<float>({filter_size, filter_size, depth, out_depth}, 2);
  const Tensor bias_value = Random<float>({out_depth}, 3);
  Tensor expected = RunOne(conv, {image, filter});
  expected = RunOne(biased, {expected, bias_value});
  if (relu) expected = RunOne(activated, {expected});
  const Tensor got = RunOne(fused, {image, filter, bias_value});
  const std::string what =
      absl::StrCat(batch, "x", size, "x", size, "x", depth, " * ", filter_size,
                   "x", filter_size, "x", out_depth, " stride ", stride, " ",
                   padding, " relu=", relu);
  if (__builtin_cpu_supports("avx512f")) {
    ExpectSameBits(got, expected, what);
  } else {
    // oneDNN's AVX2 convolutions accumulate a fused bias in another order
    // than a separate BiasAdd (measured on a Zen 3 host, session 15): the
    // same values to float rounding, not the same bits (1.4e-5 seen on a
    // sum of 1,600 products; the bound allows for that cancellation).
    ASSERT_EQ(got.shape(), expected.shape()) << what;
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      const float e = expected.data<float>()[i];
      ASSERT_NEAR(got.data<float>()[i], e, 1e-4f * std::max(1.0f, std::abs(e)))
          << what << " element " << i;
    }
  }
  if (relu) {  // the Relu did something
    int zeros = 0;
    for (int64_t i = 0; i < got.NumElements(); ++i) {
      zeros += got.data<float>()[i] == 0.0f;
    }
    EXPECT_GT(zeros, 0) << what;
  }
}

// Bit for bit on AVX-512 hosts; within float rounding on AVX2 ones.
TEST(FusedConv2DKernelTest, EqualsConv2DBiasAddReluBitForBit) {
  for (bool relu : {false, true}) {
    // Seed 003's two layers (oneDNN's kernels).
    CheckFusedConv2D(8, 24, 3, 5, 64, 1, "SAME", relu);
    CheckFusedConv2D(8, 12, 64, 5, 64, 1, "SAME", relu);
    // A stride that skips the last input column: oneDNN has no such
    // convolution, so the kernel convolves as Conv2D and adds after.
    CheckFusedConv2D(2, 6, 4, 3, 8, 2, "VALID", relu);
  }
}

TEST(FusedConv2DKernelTest, BadActivationAndBiasAreErrors) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto w = ops::Placeholder(root, DT_FLOAT);
  auto bias = ops::Placeholder(root, DT_FLOAT);
  const std::vector<int64_t> strides = {1, 1, 1, 1};
  Output tanh = OpBuilder(root, kFusedConv2DOp)
                    .Input(x)
                    .Input(w)
                    .Input(bias)
                    .Attr("strides", strides)
                    .Attr("padding", "SAME")
                    .Attr("activation", "Tanh")
                    .Finalize();
  Output plain = OpBuilder(root, kFusedConv2DOp)
                     .Input(x)
                     .Input(w)
                     .Input(bias)
                     .Attr("strides", strides)
                     .Attr("padding", "SAME")
                     .Finalize();
  ASSERT_TRUE(root.ok()) << root.status();
  const Tensor image = Random<float>({1, 4, 4, 2}, 1);
  const Tensor filter = Random<float>({3, 3, 2, 5}, 2);
  absl::StatusOr<std::vector<Tensor>> r =
      RunKernel(tanh.node(), {image, filter, Random<float>({5}, 3)});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("'' or 'Relu', got 'Tanh'"));
  r = RunKernel(plain.node(), {image, filter, Random<float>({4}, 3)});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("5 output channels, got [4]"));
}

// --- _FusedElementwise. ---

Output Fused(const Scope& root, const std::vector<Output>& inputs,
             const std::vector<std::string>& program,
             const std::vector<int>& operands) {
  return OpBuilder(root, kFusedElementwiseOp)
      .InputList(inputs)
      .Attr("ops", program)
      .Attr("operands", operands)
      .Finalize();
}

// Values that reach the special cases: exp's clamp (< -88.72), log's
// denormals, zeros, negatives (NaN from Log/Sqrt), infinities.
template <typename T>
Tensor Awkward(int64_t n, uint32_t seed) {
  Tensor t = Random<T>({n}, seed, -3, 3);
  T* p = t.data<T>();
  const T special[] = {T(-100),
                       T(-800),
                       std::numeric_limits<T>::denorm_min(),
                       std::numeric_limits<T>::min() / T(8),
                       T(0),
                       -T(0),
                       std::numeric_limits<T>::infinity(),
                       -std::numeric_limits<T>::infinity(),
                       T(1e30),
                       T(-1)};
  for (int64_t i = 0; i < n; i += 97) p[i] = special[(i / 97) % 10];
  return t;
}

template <typename T>
void CheckEveryOp(int64_t n) {
  const DataType type = DataTypeToEnum<T>::value;
  const Tensor x = Awkward<T>(n, 11);
  const Tensor y = Awkward<T>(n, 12);
  for (const char* op : {"Neg", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Relu",
                         "Sigmoid", "Tanh"}) {
    ASSERT_EQ(FusableElementwiseArity(op), 1) << op;
    Scope root = Scope::NewRootScope();
    auto px = ops::Placeholder(root, type);
    Output unfused = OpBuilder(root, op).Input(px).Finalize();
    // Neg(op(x)) fused vs Neg run on op's result.
    Output neg = ops::Neg(root, px);
    Output fused = Fused(root, {px}, {op, "Neg"}, {0, 1});
    ASSERT_TRUE(root.ok()) << root.status();
    const Tensor expected = RunOne(neg, {RunOne(unfused, {x})});
    const Tensor got = RunOne(fused, {x});
    const std::string what =
        absl::StrCat(op, " ", DataTypeName(type), " n=", n);
    // Also where the unfused kernel splits the data over threads: its
    // shards start at packet boundaries (ParallelForElements), so both
    // take Eigen's packet and scalar paths on the same elements.
    ExpectSameBits(got, expected, what);
  }
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum",
                         "Minimum", "SquaredDifference"}) {
    ASSERT_EQ(FusableElementwiseArity(op), 2) << op;
    Scope root = Scope::NewRootScope();
    auto px = ops::Placeholder(root, type);
    auto py = ops::Placeholder(root, type);
    auto ps = ops::Placeholder(root, type);
    Output unfused = OpBuilder(root, op).Input(px).Input(py).Finalize();
    Output with_scalar = OpBuilder(root, op).Input(ps).Input(py).Finalize();
    Output neg = ops::Neg(root, px);
    // Neg(op(x, y)) and op(s, y) with s a one-element [1] tensor.
    Output fused = Fused(root, {px, py}, {op, "Neg"}, {0, 1, 2});
    Output fused_scalar = Fused(root, {ps, py}, {op, "Neg"}, {0, 1, 2});
    ASSERT_TRUE(root.ok()) << root.status();
    ExpectSameBits(RunOne(fused, {x, y}),
                   RunOne(neg, {RunOne(unfused, {x, y})}),
                   absl::StrCat(op, " ", DataTypeName(type), " n=", n));
    const Tensor s = Random<T>({1}, 5);
    ExpectSameBits(RunOne(fused_scalar, {s, y}),
                   RunOne(neg, {RunOne(with_scalar, {s, y})}),
                   absl::StrCat(op, " scalar ", DataTypeName(type)));
  }
}

TEST(FusedElementwiseKernelTest, EveryOpEqualsItsKernelBitForBit) {
  // Blocks with a remainder, few and many.
  CheckEveryOp<float>(1000);
  CheckEveryOp<float>(3 * 2048 + 37);
  CheckEveryOp<double>(5000);
}

TEST(FusedElementwiseKernelTest, ATreeWithScalarsAndReusedTemporaries) {
  // y = Sigmoid(x * 2) - Tanh(z) / Exp(s)  (x, z [300, 70]; s [], 2 [1]).
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto z = ops::Placeholder(root, DT_FLOAT);
  auto s = ops::Placeholder(root, DT_FLOAT);
  auto two = ops::Placeholder(root, DT_FLOAT);
  auto mul = ops::Mul(root, x, two);
  auto sig = ops::Sigmoid(root, mul);
  auto th = ops::Tanh(root, z);
  auto ex = ops::Exp(root, s);
  auto div = ops::RealDiv(root, th, ex);
  auto y = ops::Sub(root, sig, div);
  // inputs x=0 two=1 z=2 s=3; results Mul=4 Sigmoid=5 Tanh=6 Exp=7 Div=8.
  Output fused = Fused(root, {x, two, z, s},
                       {"Mul", "Sigmoid", "Tanh", "Exp", "RealDiv", "Sub"},
                       {0, 1, 4, 2, 3, 6, 7, 5, 8});
  ASSERT_TRUE(root.ok()) << root.status();
  const Tensor xv = Random<float>({300, 70}, 1),
               zv = Random<float>({300, 70}, 2);
  const Tensor sv = Random<float>({}, 3), twov = Random<float>({1}, 4);
  const Tensor sig_v = RunOne(sig, {RunOne(mul, {xv, twov})});
  const Tensor div_v = RunOne(div, {RunOne(th, {zv}), RunOne(ex, {sv})});
  const Tensor expected = RunOne(y, {sig_v, div_v});
  const Tensor got = RunOne(fused, {xv, twov, zv, sv});
  ExpectSameBits(got, expected, "tree");
  // All inputs one-element: the output has the highest rank's shape.
  const Tensor one = Random<float>({1, 1}, 5);
  const Tensor got1 = RunOne(fused, {Random<float>({1}, 6), twov, one, sv});
  EXPECT_EQ(got1.shape(), TensorShape({1, 1}));
}

// A tensor with no elements ([0], e.g. Shape of a scalar cast to float)
// against a scalar gives an empty result, as the unfused Mul does; found by
// differential_passes_test (seed 5951, fuse_elementwise alone).
TEST(FusedElementwiseKernelTest, AnEmptyTensorWithAScalar) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto c = ops::Placeholder(root, DT_FLOAT);
  Output fused = Fused(root, {x, c}, {"Neg", "Mul"}, {0, 2, 1});
  ASSERT_TRUE(root.ok()) << root.status();
  const Tensor empty(DT_FLOAT, TensorShape({0}));
  for (const auto& inputs :
       {std::vector<Tensor>{empty, Random<float>({}, 1)},
        std::vector<Tensor>{Random<float>({}, 1), empty}}) {
    absl::StatusOr<std::vector<Tensor>> r = RunKernel(fused.node(), inputs);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ((*r)[0].shape(), TensorShape({0}));
  }
}

TEST(FusedElementwiseKernelTest, MismatchedShapesAreErrors) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto z = ops::Placeholder(root, DT_FLOAT);
  Output fused = Fused(root, {x, z}, {"Add", "Neg"}, {0, 1, 2});
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<std::vector<Tensor>> r = RunKernel(
      fused.node(), {Random<float>({4, 3}, 1), Random<float>({3}, 2)});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("input 1 has shape [3]"));
}

TEST(FusedElementwiseKernelTest, BadProgramsAreClearErrors) {
  struct Case {
    std::vector<std::string> program;
    std::vector<int> operands;
    const char* error;
  };
  const Case cases[] = {
      {{}, {}, "no ops"},
      {{"Exp", "Erf"}, {0, 2}, "op 1 'Erf' is not an element-wise op"},
      {{"Exp", "Add"}, {0, 2}, "too few operands"},
      {{"Exp"}, {0, 0}, "too many operands"},
      {{"Exp", "Neg"}, {0, 3}, "operand 0 of op 1 is 3"},
      {{"Exp", "Neg"}, {-1, 2}, "operand 0 of op 0 is -1"},
      {{"Exp", "Neg"}, {0, 0}, "input 1 is unread"},
      {{"Exp", "Neg", "Add"}, {0, 1, 2, 1}, "the result of op 1 is unread"},
  };
  for (const Case& c : cases) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root, DT_FLOAT);
    auto z = ops::Placeholder(root, DT_FLOAT);
    Output fused = Fused(root, {x, z}, c.program, c.operands);
    ASSERT_TRUE(root.ok()) << root.status();
    absl::StatusOr<std::vector<Tensor>> r =
        RunKernel(fused.node(), {Random<float>({4}, 1), Random<float>({4}, 2)});
    ASSERT_FALSE(r.ok()) << c.error;
    EXPECT_THAT(r.status().message(), HasSubstr(c.error));
    EXPECT_THAT(r.status().message(), HasSubstr("fuse_elementwise"));
  }
}

// --- Sessions with the passes on and off. ---

// An MLP layer pair and an element-wise tail:
//   h = Relu(BiasAdd(x W1, b1)); logits = h W2 + b2 (Add);
//   y = Tanh(logits * 0.5) - Exp(Neg(Square(logits - 1)))
GraphDef MlpGraph() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                            ops::PlaceholderAttrs().Shape({64, 100}));
  auto w1 = ops::Const(root.WithOpName("w1"), Random<float>({100, 50}, 1));
  auto b1 = ops::Const(root.WithOpName("b1"), Random<float>({50}, 2));
  auto w2 = ops::Const(root.WithOpName("w2"), Random<float>({50, 10}, 3));
  auto b2 = ops::Const(root.WithOpName("b2"), Random<float>({10}, 4));
  auto h = ops::Relu(
      root.WithOpName("h"),
      ops::BiasAdd(root.WithOpName("h_bias"),
                   ops::MatMul(root.WithOpName("h_matmul"), x, w1), b1));
  auto logits = ops::Add(root.WithOpName("logits"),
                         ops::MatMul(root.WithOpName("l_matmul"), h, w2), b2);
  auto t = ops::Tanh(root.WithOpName("t"),
                     ops::Mul(root.WithOpName("half"), logits,
                              ops::Const(root.WithOpName("c_half"), 0.5f)));
  auto e = ops::Exp(
      root.WithOpName("e"),
      ops::Neg(
          root.WithOpName("neg"),
          ops::Square(root.WithOpName("sq"),
                      ops::Sub(root.WithOpName("shift"), logits,
                               ops::Const(root.WithOpName("c_one"), 1.0f)))));
  ops::Sub(root.WithOpName("y"), t, e);
  GraphDef def;
  root.graph()->ToGraphDef(&def);
  return def;
}

struct Ran {
  std::vector<Tensor> out;
  std::vector<std::string> ops;  // ops that ran
};

Ran RunSession(const SessionOptions& options,
               const std::vector<std::string>& fetches) {
  Ran ran;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(MlpGraph(), options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return ran;
  RunOptions run;
  run.collect_step_stats = true;
  RunMetadata metadata;
  absl::Status s = (*session)->Run(run, {{"x", Random<float>({64, 100}, 9)}},
                                   fetches, {}, &ran.out, &metadata);
  EXPECT_TRUE(s.ok()) << s;
  for (const NodeExecStats& n : metadata.step_stats) ran.ops.push_back(n.op);
  return ran;
}

TEST(FusedKernelsSessionTest, SameBitsWithTheFusionsOnAndOff) {
  SessionOptions on;
  SessionOptions off;
  off.optimize_graph = false;
  SessionOptions no_fusion;
  no_fusion.disabled_passes = {"fuse_bias_activation", "fuse_elementwise"};
  const Ran fused = RunSession(on, {"y", "h"});
  const Ran plain = RunSession(off, {"y", "h"});
  const Ran unfused = RunSession(no_fusion, {"y", "h"});
  ASSERT_EQ(fused.out.size(), 2u);
  ASSERT_EQ(plain.out.size(), 2u);
  ASSERT_EQ(unfused.out.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    ExpectSameBits(fused.out[i], plain.out[i], absl::StrCat("fetch ", i));
    ExpectSameBits(fused.out[i], unfused.out[i], absl::StrCat("fetch ", i));
  }
  auto count = [](const Ran& r, const std::string& op) {
    int n = 0;
    for (const std::string& o : r.ops) n += o == op;
    return n;
  };
  // Both layers fuse; the tail is one tree (logits feeds two branches,
  // so it ends the layer's fusion and roots nothing).
  EXPECT_EQ(count(fused, kFusedMatMulOp), 2);
  EXPECT_EQ(count(fused, kFusedElementwiseOp), 1);
  EXPECT_EQ(count(fused, "BiasAdd"), 0);
  EXPECT_EQ(count(unfused, kFusedMatMulOp), 0);
  EXPECT_EQ(count(unfused, kFusedElementwiseOp), 0);
  EXPECT_EQ(count(unfused, "BiasAdd"), 1);
}

TEST(FusedKernelsSessionTest, FetchedIntermediatesAreNotFusedAway) {
  // Fetching the product and the bias add keeps them (their _Retvals are
  // second readers); values equal the unoptimized run's.
  SessionOptions on;
  SessionOptions off;
  off.optimize_graph = false;
  const std::vector<std::string> fetches = {"h_matmul", "h_bias", "h", "shift",
                                            "y"};
  const Ran fused = RunSession(on, fetches);
  const Ran plain = RunSession(off, fetches);
  ASSERT_EQ(fused.out.size(), fetches.size());
  ASSERT_EQ(plain.out.size(), fetches.size());
  for (size_t i = 0; i < fetches.size(); ++i) {
    ExpectSameBits(fused.out[i], plain.out[i], fetches[i]);
  }
}

// AddN fuses as its kernel's Adds in its kernel's order: the towers'
// average of 2 and a sum of 7 (two groups: 4, then 3), with awkward values
// (infinities, NaNs, signed zeros), give the same bits fused and unfused.
TEST(FusedKernelsSessionTest, AddNFusedGivesTheKernelsBits) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> grads;
  for (int i = 0; i < 7; ++i) {
    grads.push_back(ops::Const(root.WithOpName(absl::StrCat("g", i)),
                               Awkward<float>(1000, 20 + i)));
  }
  auto mean = ops::RealDiv(root.WithOpName("mean"),
                           ops::AddN(root, {grads[0], grads[1]}),
                           ops::Const(root, 2.0f));
  auto seven = ops::Neg(root.WithOpName("seven"), ops::AddN(root, grads));
  ASSERT_TRUE(root.ok()) << root.status();
  GraphDef def;
  root.graph()->ToGraphDef(&def);
  auto run = [&](const SessionOptions& options, std::vector<Tensor>* out,
                 int* fused_nodes) {
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Create(def, options);
    ASSERT_TRUE(session.ok()) << session.status();
    RunOptions run_options;
    run_options.collect_step_stats = true;
    RunMetadata metadata;
    absl::Status s =
        (*session)->Run(run_options, {}, {"mean", "seven"}, {}, out, &metadata);
    ASSERT_TRUE(s.ok()) << s;
    *fused_nodes = 0;
    for (const NodeExecStats& n : metadata.step_stats) {
      *fused_nodes += n.op == kFusedElementwiseOp;
    }
  };
  SessionOptions on, off;
  // Constant folding would compute the sums before the fusion sees them.
  on.disabled_passes = {"constant_folding"};
  off.disabled_passes = {"constant_folding", "fuse_elementwise"};
  std::vector<Tensor> fused, unfused;
  int fused_on = 0, fused_off = 0;
  run(on, &fused, &fused_on);
  run(off, &unfused, &fused_off);
  EXPECT_EQ(fused_on, 2);
  EXPECT_EQ(fused_off, 0);
  ASSERT_EQ(fused.size(), 2u);
  ASSERT_EQ(unfused.size(), 2u);
  ExpectSameBits(fused[0], unfused[0], "mean");
  ExpectSameBits(fused[1], unfused[1], "seven");
}

}  // namespace
}  // namespace dflow
