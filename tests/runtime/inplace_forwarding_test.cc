// In-place forwarding with the real CPU kernels: memory planning
// (compiler/memory_planning.h) allows element-wise nodes to take an
// input's buffer, and OpKernelContext::allocate_output does so only when
// nobody else holds it. Every test checks the values; the positive case
// also checks that the step's peak went down by a whole buffer.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "compiler/optimization_stages.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

constexpr int kRows = 256;
constexpr int kCols = 256;
constexpr int64_t kBytes = int64_t{kRows} * kCols * sizeof(float);  // 256 KiB

// Every pass but memory planning and `also` off (the others would fold or
// fuse the small graphs below); `planning` false turns it off too.
// One thread: the executor then runs the nodes one after another on the
// caller's thread, so a producer has let go of its output before the
// consumer asks for that buffer. With a pool, the consumer may start on
// another thread first, see the buffer still shared and allocate a new one
// (correct, only not in place), and the peak checks below would depend on
// timing.
SessionOptions Options(bool planning, const std::string& also) {
  SessionOptions options;
  options.num_threads = 1;
  for (const auto& [name, stage] : PassNames()) {
    if ((name != "memory_planning" || !planning) && name != also) {
      options.disabled_passes.push_back(name);
    }
  }
  return options;
}

std::unique_ptr<Session> MakeSession(const Scope& root, bool planning,
                                     const std::string& also = "") {
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  absl::StatusOr<std::unique_ptr<Session>> s =
      Session::Create(def, Options(planning, also));
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

Tensor Ramp(float start) {
  Tensor t(DT_FLOAT, TensorShape({kRows, kCols}));
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    p[i] = start + 0.001f * static_cast<float>(i % 1000);
  }
  return t;
}

Output Input(const Scope& root) {
  return ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                          ops::PlaceholderAttrs().Shape({kRows, kCols}));
}

int64_t CpuPeak(const RunMetadata& metadata) {
  for (const auto& [device, bytes] : metadata.peak_bytes) {
    if (device.find("CPU:0") != std::string::npos) return bytes;
  }
  return -1;
}

struct Step {
  std::vector<Tensor> out;
  RunMetadata metadata;
};

Step RunStep(Session* session, const FeedList& feeds,
            const std::vector<std::string>& fetches) {
  Step step;
  absl::Status s =
      session->Run(RunOptions(), feeds, fetches, {}, &step.out, &step.metadata);
  EXPECT_TRUE(s.ok()) << s;
  return step;
}

// x -> Exp -> Neg -> Square: Exp allocates (x is the caller's feed), Neg
// and Square take Exp's buffer. Without planning, Exp's and Neg's outputs
// are live together.
TEST(InplaceForwardingTest, ChainReusesOneBufferAndComputesTheSame) {
  Scope root = Scope::NewRootScope();
  Output e = ops::Exp(root.WithOpName("e"), Input(root));
  Output n = ops::Neg(root.WithOpName("n"), e);
  ops::Square(root.WithOpName("sq"), n);
  ASSERT_TRUE(root.ok()) << root.status();
  const Tensor x = Ramp(-1.0f);
  int64_t peak[2] = {0, 0};
  std::vector<float> results[2];
  for (const bool planning : {false, true}) {
    auto session = MakeSession(root, planning);
    ASSERT_NE(session, nullptr);
    RunStep(session.get(), {{"x", x}}, {"sq"});  // warm up (kernels, pools)
    Step step = RunStep(session.get(), {{"x", x}}, {"sq"});
    ASSERT_EQ(step.out.size(), 1u);
    auto f = step.out[0].flat<float>();
    results[planning].assign(f.begin(), f.end());
    peak[planning] = CpuPeak(step.metadata);
    if (planning) {
      // The planned figure: one buffer (the fetch holds it to the end).
      ASSERT_EQ(step.metadata.planned_peak_bytes.size(), 1u);
      EXPECT_EQ(step.metadata.planned_peak_bytes[0].second, kBytes);
    } else {
      EXPECT_TRUE(step.metadata.planned_peak_bytes.empty());
    }
  }
  EXPECT_EQ(results[0], results[1]);
  const float e0 = std::exp(x.flat<float>()[7]);
  EXPECT_FLOAT_EQ(results[1][7], e0 * e0);
  EXPECT_LE(peak[1], peak[0] - kBytes)
      << "planned " << peak[1] << " bytes, unplanned " << peak[0];
  EXPECT_THAT(x.flat<float>()[7], ::testing::FloatEq(Ramp(-1.0f).flat<float>()[7]));
}

TEST(InplaceForwardingTest, NeverOverwritesAFeed) {
  Scope root = Scope::NewRootScope();
  ops::Neg(root.WithOpName("n"), Input(root));
  auto session = MakeSession(root, true);
  ASSERT_NE(session, nullptr);
  const Tensor x = Ramp(1.0f);
  Step step = RunStep(session.get(), {{"x", x}}, {"n"});
  ASSERT_EQ(step.out.size(), 1u);
  EXPECT_FALSE(step.out[0].SharesBufferWith(x));
  EXPECT_FLOAT_EQ(x.flat<float>()[5], 1.005f);
  EXPECT_FLOAT_EQ(step.out[0].flat<float>()[5], -1.005f);
}

TEST(InplaceForwardingTest, NeverOverwritesAFetchedInput) {
  Scope root = Scope::NewRootScope();
  Output e = ops::Exp(root.WithOpName("e"), Input(root));
  ops::Neg(root.WithOpName("n"), e);
  auto session = MakeSession(root, true);
  ASSERT_NE(session, nullptr);
  const Tensor x = Ramp(0.0f);
  for (int i = 0; i < 3; ++i) {  // whichever order e's readers run in
    Step step = RunStep(session.get(), {{"x", x}}, {"e", "n"});
    ASSERT_EQ(step.out.size(), 2u);
    EXPECT_FALSE(step.out[0].SharesBufferWith(step.out[1]));
    EXPECT_FLOAT_EQ(step.out[0].flat<float>()[9], std::exp(0.009f));
    EXPECT_FLOAT_EQ(step.out[1].flat<float>()[9], -std::exp(0.009f));
  }
}

TEST(InplaceForwardingTest, ASecondReaderSeesTheValueUnchanged) {
  Scope root = Scope::NewRootScope();
  Output e = ops::Exp(root.WithOpName("e"), Input(root));
  ops::Neg(root.WithOpName("n"), e);
  ops::Square(root.WithOpName("sq"), e);
  ops::Sqrt(root.WithOpName("sqrt"), e);
  auto session = MakeSession(root, true);
  ASSERT_NE(session, nullptr);
  const Tensor x = Ramp(0.5f);
  const float e9 = std::exp(0.509f);
  for (int i = 0; i < 20; ++i) {  // one of them may take e: the last
    Step step = RunStep(session.get(), {{"x", x}}, {"n", "sq", "sqrt"});
    ASSERT_EQ(step.out.size(), 3u);
    EXPECT_FLOAT_EQ(step.out[0].flat<float>()[9], -e9);
    EXPECT_FLOAT_EQ(step.out[1].flat<float>()[9], e9 * e9);
    EXPECT_FLOAT_EQ(step.out[2].flat<float>()[9], std::sqrt(e9));
  }
}

TEST(InplaceForwardingTest, NeverOverwritesAConst) {
  Scope root = Scope::NewRootScope();
  Output c = ops::Const(root.WithOpName("c"), Ramp(2.0f));
  ops::Neg(root.WithOpName("n"), c);
  auto session = MakeSession(root, true);
  ASSERT_NE(session, nullptr);
  for (int i = 0; i < 3; ++i) {
    Step step = RunStep(session.get(), {}, {"n"});
    ASSERT_EQ(step.out.size(), 1u);
    EXPECT_FLOAT_EQ(step.out[0].flat<float>()[3], -2.003f) << "run " << i;
  }
}

TEST(InplaceForwardingTest, NeverOverwritesAVariable) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({kRows, kCols}),
                           DT_FLOAT);
  ops::Assign(root.WithOpName("init"), v,
              ops::Const(root.WithOpName("c"), Ramp(3.0f)));
  ops::Neg(root.WithOpName("neg_ref"), v);
  ops::Neg(root.WithOpName("neg_read"), ops::Identity(root.WithOpName("read"), v));
  auto session = MakeSession(root, true);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  for (int i = 0; i < 3; ++i) {
    Step step = RunStep(session.get(), {}, {"neg_ref", "neg_read", "v"});
    ASSERT_EQ(step.out.size(), 3u);
    EXPECT_FLOAT_EQ(step.out[0].flat<float>()[4], -3.004f) << "run " << i;
    EXPECT_FLOAT_EQ(step.out[1].flat<float>()[4], -3.004f) << "run " << i;
    EXPECT_FLOAT_EQ(step.out[2].flat<float>()[4], 3.004f) << "run " << i;
  }
}

// Broadcasting: the operand with the output's shape is taken, the
// broadcast one is read whole while the output is written.
TEST(InplaceForwardingTest, BroadcastAddAndBiasAddReadTheSmallOperandIntact) {
  Scope root = Scope::NewRootScope();
  Output e = ops::Exp(root.WithOpName("e"), Input(root));
  Output b = ops::Placeholder(root.WithOpName("b"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({kCols}));
  Output sum = ops::Add(root.WithOpName("sum"), b, e);
  Output biased = ops::BiasAdd(root.WithOpName("biased"), sum, b);
  ops::Relu(root.WithOpName("relu"), biased);
  Tensor bias(DT_FLOAT, TensorShape({kCols}));
  for (int i = 0; i < kCols; ++i) bias.data<float>()[i] = -1.0f * i;
  const Tensor x = Ramp(0.0f);
  std::vector<float> results[2];
  for (const bool planning : {false, true}) {
    auto session = MakeSession(root, planning);
    ASSERT_NE(session, nullptr);
    Step step = RunStep(session.get(), {{"x", x}, {"b", bias}}, {"relu"});
    ASSERT_EQ(step.out.size(), 1u);
    auto f = step.out[0].flat<float>();
    results[planning].assign(f.begin(), f.end());
  }
  EXPECT_EQ(results[0], results[1]);
  // Row 0, column 1: max(exp(0.001) - 2, 0) = 0; column 0: exp(0).
  EXPECT_FLOAT_EQ(results[1][0], 1.0f);
  EXPECT_FLOAT_EQ(results[1][1], 0.0f);
}

// A fused element-wise tree (compiler/fuse_elementwise.h) takes the
// buffer of its input from a MatMul, which only it reads.
TEST(InplaceForwardingTest, FusedElementwiseTakesItsInputsBuffer) {
  Scope root = Scope::NewRootScope();
  Output m = ops::MatMul(root.WithOpName("m"), Input(root),
                         ops::Const(root.WithOpName("w"), Ramp(-0.1f)));
  Output t = ops::Tanh(root.WithOpName("t"),
                       ops::Neg(root.WithOpName("n"), m));
  ops::Mul(root.WithOpName("y"), t, t);
  ASSERT_TRUE(root.ok()) << root.status();
  const Tensor x = Ramp(0.0f);
  int64_t peak[2] = {0, 0};
  std::vector<float> results[2];
  for (const bool planning : {false, true}) {
    auto session = MakeSession(root, planning, "fuse_elementwise");
    ASSERT_NE(session, nullptr);
    RunStep(session.get(), {{"x", x}}, {"y"});
    Step step = RunStep(session.get(), {{"x", x}}, {"y"});
    ASSERT_EQ(step.out.size(), 1u);
    auto f = step.out[0].flat<float>();
    results[planning].assign(f.begin(), f.end());
    peak[planning] = CpuPeak(step.metadata);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_GT(results[1][0], 0.0f);
  EXPECT_LE(peak[1], peak[0] - kBytes)
      << "planned " << peak[1] << " bytes, unplanned " << peak[0];
}

}  // namespace
}  // namespace dflow
