// ops::Cond and ops::WhileLoop (graph/ops/control_flow_builders.h): values
// on the executor's dead tensors and frames, captures, nesting, the build
// errors, and gradients through both against finite differences.
#include "graph/ops/control_flow_builders.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// A session of the graph of `root`; null (and a test failure) if none.
std::unique_ptr<Session> NewSession(const Scope& root) {
  GraphDef def;
  absl::Status built = root.ToGraphDef(&def);
  EXPECT_TRUE(built.ok()) << built;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

// Steps that fail, rather than hang, if a loop never ends.
RunOptions Bounded() {
  RunOptions options;
  options.timeout_ms = 60000;
  return options;
}

// Runs the graph of `root` once: feeds, then the fetched tensors.
std::vector<Tensor> RunGraph(const Scope& root,
                             std::vector<std::pair<std::string, Tensor>> feeds,
                             const std::vector<std::string>& fetches) {
  std::unique_ptr<Session> session = NewSession(root);
  if (session == nullptr) return {};
  std::vector<Tensor> out;
  absl::Status s = session->Run(feeds, fetches, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

float Scalar(const Tensor& t) { return t.data<float>()[0]; }

TEST(CondTest, RunsOnlyTheTakenBranchWithCapturesAndConstants) {
  Scope root = Scope::NewRootScope();
  auto pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Const(root.WithOpName("w"), 3.0f);
  // then: x * w (both captured); else: the constant 7 (a branch op with no
  // input), and a second output x - 1 / x + 1.
  BranchResult y = ops::Cond(
      root, pred,
      [&](const Scope& s) -> BranchResult {
        return std::vector<Output>{ops::Mul(s, x, w), ops::Add(s, x, 1.0f)};
      },
      [&](const Scope& s) -> BranchResult {
        return std::vector<Output>{ops::Const(s, 7.0f), ops::Sub(s, x, 1.0f)};
      });
  ASSERT_TRUE(y.ok()) << y.status();
  ops::Identity(root.WithOpName("y0"), (*y)[0]);
  ops::Identity(root.WithOpName("y1"), (*y)[1]);
  std::vector<Tensor> t = RunGraph(
      root, {{"pred", Tensor::Scalar(true)}, {"x", Tensor::Scalar(2.0f)}},
      {"y0", "y1"});
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(Scalar(t[0]), 6.0f);
  EXPECT_EQ(Scalar(t[1]), 3.0f);
  t = RunGraph(root,
               {{"pred", Tensor::Scalar(false)}, {"x", Tensor::Scalar(2.0f)}},
               {"y0", "y1"});
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(Scalar(t[0]), 7.0f);
  EXPECT_EQ(Scalar(t[1]), 1.0f);
}

TEST(CondTest, BranchesMustAgree) {
  Scope root = Scope::NewRootScope();
  auto pred = ops::Placeholder(root, DT_BOOL);
  auto x = ops::Placeholder(root, DT_FLOAT);
  BranchResult two = ops::Cond(
      root, pred,
      [&](const Scope& s) -> BranchResult {
        return std::vector<Output>{x, x};
      },
      [&](const Scope& s) -> BranchResult { return std::vector<Output>{x}; });
  ASSERT_FALSE(two.ok());
  EXPECT_THAT(two.status().message(), HasSubstr("returns 2 outputs"));
  BranchResult types = ops::Cond(
      root, pred,
      [&](const Scope& s) -> BranchResult { return std::vector<Output>{x}; },
      [&](const Scope& s) -> BranchResult {
        return std::vector<Output>{ops::Const(s, 1)};
      });
  ASSERT_FALSE(types.ok());
  EXPECT_THAT(types.status().message(), HasSubstr("float in the then"));
  BranchResult not_bool = ops::Cond(
      root, x,
      [&](const Scope& s) -> BranchResult { return std::vector<Output>{}; },
      [&](const Scope& s) -> BranchResult { return std::vector<Output>{}; });
  ASSERT_FALSE(not_bool.ok());
  EXPECT_THAT(not_bool.status().message(), HasSubstr("must be a bool"));
}

// TensorFlow's graph2: while (i < 10) i += 1.
TEST(WhileLoopTest, CountsToTen) {
  Scope root = Scope::NewRootScope();
  auto i0 = ops::Const(root, 0);
  BranchResult out = ops::WhileLoop(
      root, {i0},
      [](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, v[0], 10);
      },
      [](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        return std::vector<Output>{ops::Add(s, v[0], 1)};
      });
  ASSERT_TRUE(out.ok()) << out.status();
  ops::Identity(root.WithOpName("i"), (*out)[0]);
  std::vector<Tensor> t = RunGraph(root, {}, {"i"});
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].data<int32_t>()[0], 10);
}

// A variable whose next value reads only a captured tensor (a loop
// constant) still stops with the loop: the builder gates that op by the
// iteration's pivot, as TensorFlow does (without it the op, and the next
// iteration it starts, would run forever).
TEST(WhileLoopTest, ABodyOpReadingOnlyCapturesStopsWithTheLoop) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  BranchResult out = ops::WhileLoop(
      root, {ops::Const(root, 0), ops::Const(root, 0.0f)},
      [](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, v[0], 3);
      },
      [&](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        return std::vector<Output>{ops::Add(s, v[0], 1), ops::Neg(s, x)};
      });
  ASSERT_TRUE(out.ok()) << out.status();
  ops::Identity(root.WithOpName("i"), (*out)[0]);
  ops::Identity(root.WithOpName("y"), (*out)[1]);
  std::unique_ptr<Session> session = NewSession(root);
  ASSERT_NE(session, nullptr);
  const RunOptions options = Bounded();
  std::vector<Tensor> t;
  absl::Status s = session->Run(options, {{"x", Tensor::Scalar<float>(2.0f)}},
                                {"i", "y"}, {}, &t, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].data<int32_t>()[0], 3);
  EXPECT_EQ(t[1].data<float>()[0], -2.0f);
}

// sum of x * k for k = 0..n-1 with x and n captured, a loop variable
// returned unchanged, and a conditional inside the body (odd k add twice).
TEST(WhileLoopTest, CapturesUnchangedVariablesAndANestedCond) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  auto tag = ops::Const(root, 5.0f);
  BranchResult out = ops::WhileLoop(
      root, {ops::Const(root, 0), ops::Const(root, 0.0f), tag},
      [&](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, v[0], n);
      },
      [&](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        Output k = ops::Cast(s, v[0], DT_FLOAT);
        Output term = ops::Mul(s, x, k);
        Output odd = ops::Equal(s, ops::FloorMod(s, v[0], 2), 1);
        BranchResult added = ops::Cond(
            s, odd,
            [&](const Scope& b) -> BranchResult {
              return std::vector<Output>{ops::Mul(b, term, 2.0f)};
            },
            [&](const Scope& b) -> BranchResult {
              return std::vector<Output>{term};
            });
        if (!added.ok()) return added.status();
        return std::vector<Output>{ops::Add(s, v[0], 1),
                                   ops::Add(s, v[1], (*added)[0]), v[2]};
      });
  ASSERT_TRUE(out.ok()) << out.status();
  ops::Identity(root.WithOpName("sum"), (*out)[1]);
  ops::Identity(root.WithOpName("tag"), (*out)[2]);
  std::vector<Tensor> t = RunGraph(
      root, {{"x", Tensor::Scalar(1.5f)}, {"n", Tensor::Scalar<int32_t>(5)}},
      {"sum", "tag"});
  ASSERT_EQ(t.size(), 2u);
  // k = 0..4: 0 + 2*1 + 2 + 2*3 + 4 = 14, times 1.5.
  EXPECT_EQ(Scalar(t[0]), 21.0f);
  EXPECT_EQ(Scalar(t[1]), 5.0f);
}

TEST(WhileLoopTest, BodyErrorsNameTheVariable) {
  Scope root = Scope::NewRootScope();
  auto v0 = ops::Const(root.WithOpName("v0"), {1.0f, 2.0f});
  auto less = [](const Scope& s, const std::vector<Output>& v) -> CondResult {
    return ops::Less(s, ops::Sum(s, v[0], 0), 10.0f);
  };
  BranchResult grows = ops::WhileLoop(
      root, {v0}, less,
      [](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        return std::vector<Output>{ops::ConcatV2(s, {v[0], v[0]}, 0)};
      });
  ASSERT_FALSE(grows.ok());
  EXPECT_THAT(grows.status().message(),
              HasSubstr("enters the loop with shape [2] but the body gives "
                        "it shape [4]"));
  EXPECT_THAT(grows.status().message(), HasSubstr("shape_invariants"));
  BranchResult cast = ops::WhileLoop(
      root, {v0}, less,
      [](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        return std::vector<Output>{ops::Cast(s, v[0], DT_INT32)};
      });
  ASSERT_FALSE(cast.ok());
  EXPECT_THAT(cast.status().message(), HasSubstr("returns int32 for it"));
  BranchResult count = ops::WhileLoop(
      root, {v0}, less,
      [](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        return std::vector<Output>{v[0], v[0]};
      });
  ASSERT_FALSE(count.ok());
  EXPECT_THAT(count.status().message(), HasSubstr("returns 2 values for 1"));
}

// A kernel that fails in a later iteration (100 / (i - 5) at i = 5) ends
// the step with its node, frame and iteration: small kernels such as this
// FloorDiv run under the frame step's lock after the first iterations, and
// their errors must still end the step (not hang it) and leave the session
// usable.
TEST(WhileLoopTest, KernelErrorInALaterIterationNamesNodeFrameAndIteration) {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  BranchResult out = ops::WhileLoop(
      root, {ops::Const(root, 0), ops::Const(root, 0)},
      [&](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, v[0], n);
      },
      [](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        auto q = ops::FloorDiv(s.WithOpName("q"), 100, ops::Sub(s, v[0], 5));
        return std::vector<Output>{ops::Add(s, v[0], 1), ops::Add(s, v[1], q)};
      });
  ASSERT_TRUE(out.ok()) << out.status();
  ops::Identity(root.WithOpName("sum"), (*out)[1]);
  std::unique_ptr<Session> session = NewSession(root);
  ASSERT_NE(session, nullptr);
  const RunOptions options = Bounded();
  std::vector<Tensor> t;
  // Five iterations: 100 // -5 + ... + 100 // -1 = -20-25-34-50-100.
  absl::Status s = session->Run(options, {{"n", Tensor::Scalar<int32_t>(5)}},
                                {"sum"}, {}, &t, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(t[0].data<int32_t>()[0], -229);
  s = session->Run(options, {{"n", Tensor::Scalar<int32_t>(9)}}, {"sum"}, {},
                   &t, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("q"));
  EXPECT_THAT(s.message(), HasSubstr("iteration 5"));
  EXPECT_THAT(s.message(), HasSubstr("Integer division by zero"));
  s = session->Run(options, {{"n", Tensor::Scalar<int32_t>(3)}}, {"sum"}, {},
                   &t, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(t[0].data<int32_t>()[0], -20 - 25 - 34);
}

// Step stats of a loop: one entry per iteration a node ran in, with the
// frame and the iteration (what the timeline shows).
TEST(WhileLoopTest, StepStatsNameFrameAndIteration) {
  Scope root = Scope::NewRootScope();
  BranchResult out = ops::WhileLoop(
      root, {ops::Const(root, 0)},
      [](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, v[0], 3);
      },
      [](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        return std::vector<Output>{ops::Add(s.WithOpName("step"), v[0], 1)};
      });
  ASSERT_TRUE(out.ok()) << out.status();
  ops::Identity(root.WithOpName("i"), (*out)[0]);
  std::unique_ptr<Session> session = NewSession(root);
  ASSERT_NE(session, nullptr);
  RunOptions options;
  options.collect_step_stats = true;
  RunMetadata metadata;
  std::vector<Tensor> t;
  ASSERT_TRUE(session->Run(options, {}, {"i"}, {}, &t, &metadata).ok());
  std::vector<int64_t> iterations;
  int outside = 0;  // nodes outside the loop (the passes may drop "i")
  for (const NodeExecStats& n : metadata.step_stats) {
    if (n.node == "while/body/step") {
      EXPECT_EQ(n.frame, "while");
      iterations.push_back(n.iteration);
    }
    if (!absl::StartsWith(n.node, "while/")) {
      EXPECT_EQ(n.frame, "") << n.node;
      ++outside;
    }
  }
  std::sort(iterations.begin(), iterations.end());
  EXPECT_THAT(iterations, ::testing::ElementsAre(0, 1, 2));
  EXPECT_GT(outside, 0);
}

// With a shape invariant the vector may grow: doubles until > 10 elements.
TEST(WhileLoopTest, ShapeInvariantsLetAVariableGrow) {
  Scope root = Scope::NewRootScope();
  ops::WhileLoopOptions options;
  options.shape_invariants = {TensorShape({-1})};
  BranchResult out = ops::WhileLoop(
      root, {ops::Const(root, {1.0f, 2.0f})},
      [](const Scope& s, const std::vector<Output>& v) -> CondResult {
        return ops::Less(s, ops::Size(s, v[0]), 10);
      },
      [](const Scope& s, const std::vector<Output>& v) -> BranchResult {
        return std::vector<Output>{ops::ConcatV2(s, {v[0], v[0]}, 0)};
      },
      options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({-1}));
  ops::Identity(root.WithOpName("v"), (*out)[0]);
  std::vector<Tensor> t = RunGraph(root, {}, {"v"});
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].shape(), TensorShape({16}));
}

// --- Gradients, against central differences of the forward graph. ---

// d(sum(y))/d(each x) for the graph `build` makes from placeholders of the
// given values: symbolic (run once) and numeric (the forward graph rerun
// with each element moved by +-eps).
void CheckGradients(
    const std::function<Output(const Scope&, const std::vector<Output>&)>&
        build,
    const std::vector<Tensor>& values, double tolerance) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> xs;
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string name = absl::StrCat("x", i);
    xs.push_back(ops::Placeholder(root.WithOpName(name), DT_FLOAT));
    feeds.push_back({name, values[i]});
  }
  Output y = build(root, xs);
  ASSERT_TRUE(root.ok()) << root.status();
  Output loss = ops::Sum(root.WithOpName("loss"), y,
                         ops::Range(root, 0, ops::Rank(root, y), 1));
  absl::StatusOr<std::vector<Output>> grads =
      AddSymbolicGradients(root, {loss}, xs);
  ASSERT_TRUE(grads.ok()) << grads.status();
  std::vector<std::string> fetches = {"loss"};
  for (size_t i = 0; i < grads->size(); ++i) {
    ops::Identity(root.WithOpName(absl::StrCat("g", i)), (*grads)[i]);
    fetches.push_back(absl::StrCat("g", i));
  }
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> symbolic;
  RunOptions run_options;
  run_options.timeout_ms = 5000;
  RunMetadata metadata;
  {
    absl::Status s =
        (*session)->Run(run_options, feeds, fetches, {}, &symbolic, &metadata);
    ASSERT_TRUE(s.ok()) << s;
  }

  constexpr float kEps = 1e-2f;
  for (size_t i = 0; i < values.size(); ++i) {
    for (int64_t k = 0; k < values[i].NumElements(); ++k) {
      double sides[2];
      for (int side = 0; side < 2; ++side) {
        std::vector<std::pair<std::string, Tensor>> moved = feeds;
        Tensor copy(DT_FLOAT, values[i].shape());
        std::copy(values[i].data<float>(),
                  values[i].data<float>() + values[i].NumElements(),
                  copy.data<float>());
        copy.data<float>()[k] += side == 0 ? kEps : -kEps;
        moved[i].second = copy;
        std::vector<Tensor> out;
        ASSERT_TRUE((*session)->Run(moved, {"loss"}, {}, &out).ok());
        sides[side] = out[0].data<float>()[0];
      }
      const double numeric = (sides[0] - sides[1]) / (2 * kEps);
      EXPECT_NEAR(symbolic[1 + i].data<float>()[k], numeric, tolerance)
          << "d loss / d x" << i << "[" << k << "]";
    }
  }
}

TEST(ControlFlowGradientTest, ThroughCondBothWays) {
  for (bool taken : {true, false}) {
    CheckGradients(
        [&](const Scope& root, const std::vector<Output>& x) {
          // taken ? x0 * x1 * x1 : exp(x0) (x1 unused there: zero gradient)
          BranchResult y = ops::Cond(
              root, ops::Const(root, taken),
              [&](const Scope& s) -> BranchResult {
                return std::vector<Output>{
                    ops::Mul(s, ops::Mul(s, x[0], x[1]), x[1])};
              },
              [&](const Scope& s) -> BranchResult {
                return std::vector<Output>{ops::Exp(s, x[0])};
              });
          return y.ok() ? (*y)[0] : Output();
        },
        {Tensor::FromVector<float>({0.5f, -1.0f}),
         Tensor::FromVector<float>({2.0f, 3.0f})},
        2e-3);
  }
}

// A small RNN: h = tanh(h * w + x_t) for t = 0..4 (x captured, read with
// Gather by the step counter), gradients for h0, w and x.
TEST(ControlFlowGradientTest, ThroughAWhileLoopAsAnRnn) {
  CheckGradients(
      [](const Scope& root, const std::vector<Output>& x) {
        const Output& h0 = x[0];
        const Output& w = x[1];
        const Output& inputs = x[2];  // [5, 3]
        BranchResult out = ops::WhileLoop(
            root, {ops::Const(root, 0), h0},
            [](const Scope& s, const std::vector<Output>& v) -> CondResult {
              return ops::Less(s, v[0], 5);
            },
            [&](const Scope& s, const std::vector<Output>& v) -> BranchResult {
              Output x_t = ops::GatherV2(s, inputs, v[0], 0);
              Output h = ops::Tanh(s, ops::Add(s, ops::Mul(s, v[1], w), x_t));
              return std::vector<Output>{ops::Add(s, v[0], 1), h};
            });
        return out.ok() ? (*out)[1] : Output();
      },
      {Tensor::FromVector<float>({0.1f, -0.2f, 0.3f}),
       Tensor::FromVector<float>({0.5f, 0.9f, -0.7f}),
       Tensor::FromVector<float>(
           {0.1f, 0.2f, -0.1f, 0.3f, -0.2f, 0.0f, 0.05f, 0.1f, 0.2f, -0.3f,
            0.2f, 0.1f, 0.0f, -0.1f, 0.25f},
           TensorShape({5, 3}))},
      2e-3);
}

// A conditional inside the loop body: odd steps tanh(h * w), even steps
// h * v; the recomputed body rebuilds the conditional in the gradient loop.
TEST(ControlFlowGradientTest, ThroughACondInsideALoop) {
  CheckGradients(
      [](const Scope& root, const std::vector<Output>& x) {
        BranchResult out = ops::WhileLoop(
            root, {ops::Const(root, 0), x[0]},
            [](const Scope& s, const std::vector<Output>& v) -> CondResult {
              return ops::Less(s, v[0], 4);
            },
            [&](const Scope& s, const std::vector<Output>& v) -> BranchResult {
              Output odd = ops::Equal(s, ops::FloorMod(s, v[0], 2), 1);
              BranchResult h = ops::Cond(
                  s, odd,
                  [&](const Scope& b) -> BranchResult {
                    return std::vector<Output>{
                        ops::Tanh(b, ops::Mul(b, v[1], x[1]))};
                  },
                  [&](const Scope& b) -> BranchResult {
                    return std::vector<Output>{ops::Mul(b, v[1], x[2])};
                  });
              if (!h.ok()) return h.status();
              return std::vector<Output>{ops::Add(s, v[0], 1), (*h)[0]};
            });
        return out.ok() ? (*out)[1] : Output();
      },
      {Tensor::FromVector<float>({0.4f, -0.3f}),
       Tensor::FromVector<float>({1.2f, 0.8f}),
       Tensor::FromVector<float>({0.9f, -1.1f})},
      2e-3);
}

// A loop inside a loop: 3 outer iterations of 2 inner ones, each h * w, so
// y = h0 * w^6.
TEST(ControlFlowGradientTest, ThroughNestedLoops) {
  CheckGradients(
      [](const Scope& root, const std::vector<Output>& x) {
        auto count_to = [](int n) {
          return
              [n](const Scope& s, const std::vector<Output>& v) -> CondResult {
                return ops::Less(s, v[0], n);
              };
        };
        BranchResult out = ops::WhileLoop(
            root, {ops::Const(root, 0), x[0]}, count_to(3),
            [&](const Scope& s, const std::vector<Output>& v) -> BranchResult {
              BranchResult inner = ops::WhileLoop(
                  s, {ops::Const(s, 0), v[1]}, count_to(2),
                  [&](const Scope& t,
                      const std::vector<Output>& u) -> BranchResult {
                    return std::vector<Output>{ops::Add(t, u[0], 1),
                                               ops::Mul(t, u[1], x[1])};
                  });
              if (!inner.ok()) return inner.status();
              return std::vector<Output>{ops::Add(s, v[0], 1), (*inner)[1]};
            });
        return out.ok() ? (*out)[1] : Output();
      },
      {Tensor::FromVector<float>({0.5f, -0.25f}),
       Tensor::FromVector<float>({0.9f, 1.1f})},
      2e-3);
}

}  // namespace
}  // namespace dflow
