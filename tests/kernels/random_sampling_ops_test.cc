// The random sampling ops (graph/ops/random_ops.h: Multinomial, RandomGamma,
// RandomPoissonV2, ParameterizedTruncatedNormal, the shuffles, the stateless
// ops of both versions, tf.random.Generator's RngReadAndSkip and
// StatefulRandomBinomial, and the candidate samplers) against TensorFlow:
//   - a graph TensorFlow 2.21 wrote, run twice: every fetch of both runs is
//     TensorFlow's (the stateful ops continue their streams between runs,
//     the learned unigram samplers their counts);
//   - a word2vec model trained with nce_loss and sampled_softmax_loss:
//     losses and variables after three steps are TensorFlow's;
// (tools/tf_reference/make_random_sampling_reference.py), then statistics
// of large fixed-seed samples, and bad inputs: InvalidArgument naming the
// node, the op and the problem.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "graph/graph_def_file.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/tf_stepped_cases.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kSamplingDir[] = "tests/testdata/tf_random_sampling/";
constexpr char kWord2vecDir[] = "tests/testdata/tf_random_word2vec/";

// A cases.txt line with its values as written, so that 64-bit integers
// compare exactly.
struct RefLine {
  std::string kind, name, dtype;
  std::vector<int64_t> shape;
  std::vector<std::string> values;
};

std::vector<RefLine> ReadRefLines(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<RefLine> lines;
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty() || text[0] == '#') continue;
    std::vector<std::string> halves = absl::StrSplit(text, " | ");
    if (halves.size() == 1 && absl::EndsWith(halves[0], " |")) {
      halves = {halves[0].substr(0, halves[0].size() - 2), ""};
    }
    std::vector<std::string> head = absl::StrSplit(halves[0], ' ');
    EXPECT_EQ(halves.size(), 2u) << text;
    EXPECT_EQ(head.size(), 4u) << text;
    if (halves.size() != 2 || head.size() != 4) continue;
    RefLine line{head[0], head[1], head[2], {}, {}};
    absl::string_view dims = head[3];
    absl::ConsumePrefix(&dims, "[");
    absl::ConsumeSuffix(&dims, "]");
    for (absl::string_view d : absl::StrSplit(dims, ',', absl::SkipEmpty())) {
      int64_t v = 0;
      EXPECT_TRUE(absl::SimpleAtoi(d, &v)) << text;
      line.shape.push_back(v);
    }
    for (absl::string_view v :
         absl::StrSplit(halves[1], ' ', absl::SkipEmpty())) {
      line.values.emplace_back(v);
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

double ParseDouble(const std::string& v) {
  if (v == "nan") return std::nan("");
  if (v == "inf") return INFINITY;
  if (v == "-inf") return -INFINITY;
  double d = 0;
  EXPECT_TRUE(absl::SimpleAtod(v, &d)) << v;
  return d;
}

int64_t ParseInt(const std::string& v) {
  int64_t i = 0;
  EXPECT_TRUE(absl::SimpleAtoi(v, &i)) << v;
  return i;
}

Tensor FeedOf(const RefLine& line) {
  const DataType dtype = line.dtype == "float32"   ? DT_FLOAT
                         : line.dtype == "float64" ? DT_DOUBLE
                         : line.dtype == "int32"   ? DT_INT32
                                                   : DT_INT64;
  EXPECT_TRUE(line.dtype == "float32" || line.dtype == "float64" ||
              line.dtype == "int32" || line.dtype == "int64")
      << line.dtype;
  Tensor t(dtype, TensorShape(line.shape));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const std::string& v = line.values[i];
    switch (dtype) {
      case DT_FLOAT:
        t.data<float>()[i] = static_cast<float>(ParseDouble(v));
        break;
      case DT_DOUBLE:
        t.data<double>()[i] = ParseDouble(v);
        break;
      case DT_INT32:
        t.data<int32_t>()[i] = static_cast<int32_t>(ParseInt(v));
        break;
      default:
        t.data<int64_t>()[i] = ParseInt(v);
    }
  }
  return t;
}

// Integers exactly; floats within `rel` (relative, absolute below 1): the
// samplers run TensorFlow's arithmetic, so the values agree to the last
// bit or nearly (libm's exp and log on the same inputs).
void ExpectMatches(const RefLine& want, const Tensor& got, double rel) {
  SCOPED_TRACE(want.kind + " " + want.name);
  ASSERT_EQ(got.shape(), TensorShape(want.shape));
  ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.values.size()));
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    const std::string& v = want.values[i];
    if (want.dtype == "int64") {
      ASSERT_EQ(got.dtype(), DT_INT64);
      EXPECT_EQ(got.data<int64_t>()[i], ParseInt(v)) << "element " << i;
    } else if (want.dtype == "int32") {
      ASSERT_EQ(got.dtype(), DT_INT32);
      EXPECT_EQ(got.data<int32_t>()[i], ParseInt(v)) << "element " << i;
    } else {
      const double w = ParseDouble(v);
      double g;
      if (want.dtype == "float32") {
        ASSERT_EQ(got.dtype(), DT_FLOAT);
        g = got.data<float>()[i];
      } else {
        ASSERT_EQ(got.dtype(), DT_DOUBLE);
        g = got.data<double>()[i];
      }
      if (std::isnan(w)) {
        EXPECT_TRUE(std::isnan(g)) << "element " << i;
      } else if (std::isinf(w)) {
        EXPECT_EQ(g, w) << "element " << i;
      } else {
        EXPECT_NEAR(g, w, rel * std::max(1.0, std::fabs(w)))
            << "element " << i;
      }
    }
  }
}

TEST(RandomSamplingTest, TwoRunsGiveTensorFlowsSamples) {
  const std::vector<RefLine> lines =
      ReadRefLines(std::string(kSamplingDir) + "cases.txt");
  absl::StatusOr<GraphDef> def =
      ReadGraphDefFile(std::string(kSamplingDir) + "graph.pb");
  ASSERT_TRUE(def.ok()) << def.status();
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(*def);
  ASSERT_TRUE(session.ok()) << session.status();
  FeedList feeds;
  std::vector<std::string> fetches;
  std::map<std::string, std::vector<const RefLine*>> want;  // per kind
  for (const RefLine& line : lines) {
    if (line.kind == "feed") {
      feeds.emplace_back(line.name, FeedOf(line));
    } else {
      if (line.kind == "fetch") fetches.push_back(line.name);
      want[line.kind].push_back(&line);
    }
  }
  ASSERT_GT(fetches.size(), 100u);
  // `init` sets the tf.random.Generator's state.
  std::vector<Tensor> none;
  const absl::Status init = (*session)->Run({}, {}, {"init"}, &none);
  ASSERT_TRUE(init.ok()) << init;
  for (const char* kind : {"fetch", "fetch2"}) {
    SCOPED_TRACE(kind);
    ASSERT_EQ(want[kind].size(), fetches.size());
    std::vector<Tensor> outputs;
    const absl::Status run = (*session)->Run(feeds, fetches, {}, &outputs);
    ASSERT_TRUE(run.ok()) << run;
    ASSERT_EQ(outputs.size(), fetches.size());
    for (size_t f = 0; f < fetches.size(); ++f) {
      ASSERT_EQ(want[kind][f]->name, fetches[f]);
      ExpectMatches(*want[kind][f], outputs[f],
                    want[kind][f]->dtype == "float64" ? 1e-13 : 2e-7);
    }
  }
}

TEST(RandomSamplingTest, Word2vecTrainsAsTensorFlowDoes) {
  const std::vector<testing_tf_values::Line> lines =
      testing_tf_values::ReadLines(std::string(kWord2vecDir) + "cases.txt");
  ASSERT_EQ(lines.size(), 10u);
  std::vector<const testing_tf_values::Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunSteps(kWord2vecDir, lines, "train", /*steps=*/3,
                              &fetched, &outputs);
  testing_tf_values::ExpectValues(fetched, outputs);
}

// --- Statistics of large samples (fixed seeds: deterministic). ---

Tensor Run1(const Scope& root, const Output& out) {
  std::unique_ptr<Session> s = MakeSession(root);
  if (s == nullptr) return Tensor();
  std::vector<Tensor> outputs;
  const absl::Status st = s->Run({}, {out.name()}, {}, &outputs);
  EXPECT_TRUE(st.ok()) << st;
  return st.ok() ? outputs[0] : Tensor();
}

TEST(RandomSamplingTest, SampleMeansAndVariances) {
  Scope root = Scope::NewRootScope();
  const ops::RandomAttrs seeds = ops::RandomAttrs().Seed(17).Seed2(5);
  constexpr int kN = 20000;
  Output gamma = ops::RandomGamma(root, {kN}, ops::Const(root, Tensor::FromVector<double>({0.4, 3.0})),
                                  seeds);
  Output poisson = ops::RandomPoissonV2(root, {kN},
                                        ops::Const(root, Tensor::FromVector<double>({2.5, 30.0})),
                                        DT_DOUBLE, seeds);
  Output binomial = ops::StatelessRandomBinomial(
      root, {kN, 2}, ops::Const(root, {int64_t{3}, int64_t{4}}),
      ops::Const(root, Tensor::FromVector<double>({8.0, 60.0})),
      ops::Const(root, Tensor::FromVector<double>({0.3, 0.7})), DT_DOUBLE);
  Output categorical =
      ops::Multinomial(root, ops::Const(root, {0.0f, std::log(3.0f)}, {1, 2}),
                       kN, DT_INT64, seeds);
  ASSERT_TRUE(root.ok()) << root.status();
  // Per column: mean and variance against the distribution's, within about
  // 5 standard errors.
  auto check = [](const Tensor& t, int col, double mean, double var) {
    SCOPED_TRACE(col);
    const int64_t n = t.NumElements() / 2;
    double sum = 0, sum2 = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double v = t.data<double>()[i * 2 + col];
      sum += v;
      sum2 += v * v;
    }
    const double m = sum / n;
    EXPECT_NEAR(m, mean, 5 * std::sqrt(var / n));
    EXPECT_NEAR(sum2 / n - m * m, var, 0.05 * var);
  };
  const Tensor g = Run1(root, gamma);
  ASSERT_EQ(g.shape(), TensorShape({kN, 2}));
  check(g, 0, 0.4, 0.4);
  check(g, 1, 3.0, 3.0);
  const Tensor p = Run1(root, poisson);
  check(p, 0, 2.5, 2.5);
  check(p, 1, 30.0, 30.0);
  const Tensor b = Run1(root, binomial);
  check(b, 0, 8 * 0.3, 8 * 0.3 * 0.7);
  check(b, 1, 60 * 0.7, 60 * 0.7 * 0.3);
  const Tensor c = Run1(root, categorical);
  int64_t ones = 0;
  for (int64_t i = 0; i < kN; ++i) ones += c.data<int64_t>()[i];
  EXPECT_NEAR(static_cast<double>(ones) / kN, 0.75, 0.02);
}

TEST(RandomSamplingTest, StatelessOpsRepeatAndStatefulOnesMoveOn) {
  Scope root = Scope::NewRootScope();
  Output seed = ops::Const(root, {int64_t{5}, int64_t{6}});
  Output logits = ops::Const(root, {0.0f, 1.0f, 2.0f, 3.0f}, {1, 4});
  Output stateless = ops::StatelessMultinomial(root, logits, 50, seed);
  Output stateful = ops::Multinomial(root, logits, 50, DT_INT64,
                                     ops::RandomAttrs().Seed(5).Seed2(6));
  std::unique_ptr<Session> s = MakeSession(root);
  ASSERT_NE(s, nullptr);
  std::vector<Tensor> a, b;
  ASSERT_TRUE(s->Run({}, {stateless.name(), stateful.name()}, {}, &a).ok());
  ASSERT_TRUE(s->Run({}, {stateless.name(), stateful.name()}, {}, &b).ok());
  auto values = [](const Tensor& t) {
    return std::vector<int64_t>(t.data<int64_t>(),
                                t.data<int64_t>() + t.NumElements());
  };
  EXPECT_EQ(values(a[0]), values(b[0]));
  EXPECT_NE(values(a[1]), values(b[1]));
}

// --- Bad inputs. ---

Output Ph(const Scope& root, const char* name, DataType dtype) {
  return ops::Placeholder(root.WithOpName(name), dtype);
}

// The error of running `out` with `feeds`; OK when it ran.
absl::Status RunError(const Scope& root, const Output& out,
                      FeedList feeds) {
  std::unique_ptr<Session> s = MakeSession(root);
  if (s == nullptr) return absl::InternalError("no session");
  std::vector<Tensor> outputs;
  return s->Run(feeds, {out.name()}, {}, &outputs);
}

template <typename T>
Tensor Vec(std::vector<T> v) {
  return Tensor::FromVector<T>(v);
}

TEST(RandomSamplingTest, MultinomialBadInputs) {
  Scope root = Scope::NewRootScope();
  Output logits = Ph(root, "logits", DT_FLOAT);
  Output num = Ph(root, "num", DT_INT32);
  Output m = ops::Multinomial(root.WithOpName("draw"), logits, num);
  const Tensor row = Tensor::FromVector<float>({1, 2}, TensorShape({1, 2}));
  absl::Status s =
      RunError(root, m, {{"logits", Vec<float>({1, 2})},
                         {"num", Tensor::Scalar<int32_t>(3)}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("draw"), HasSubstr("Multinomial"),
                    HasSubstr("logits must be a matrix [batch, classes], got "
                              "shape [2]")));
  s = RunError(root, m, {{"logits", row}, {"num", Tensor::Scalar<int32_t>(-1)}});
  EXPECT_THAT(s.message(), HasSubstr("num_samples must be >= 0, got -1"));
  s = RunError(root, m, {{"logits", Tensor(DT_FLOAT, TensorShape({2, 0}))},
                         {"num", Tensor::Scalar<int32_t>(1)}});
  EXPECT_THAT(s.message(), HasSubstr("logits must have at least one class"));
  Output sm = ops::StatelessMultinomial(root.WithOpName("sdraw"), logits, num,
                                        Ph(root, "seed", DT_INT64));
  s = RunError(root, sm, {{"logits", row},
                          {"num", Tensor::Scalar<int32_t>(1)},
                          {"seed", Vec<int64_t>({1, 2, 3})}});
  EXPECT_THAT(s.message(), AllOf(HasSubstr("sdraw"),
                                 HasSubstr("seed must have shape [2], not "
                                           "[3]")));
}

TEST(RandomSamplingTest, DistributionBadInputs) {
  Scope root = Scope::NewRootScope();
  Output shape = Ph(root, "shape", DT_INT32);
  Output alpha = Ph(root, "alpha", DT_FLOAT);
  Output gamma = ops::RandomGamma(root.WithOpName("gamma"), shape, alpha);
  absl::Status s = RunError(root, gamma, {{"shape", Vec<int32_t>({2, -1})},
                                          {"alpha", Vec<float>({1})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("gamma"), HasSubstr("RandomGamma"),
                                 HasSubstr("negative dimension -1")));
  Output poisson = ops::StatelessRandomPoisson(
      root.WithOpName("poisson"), shape, Ph(root, "seed", DT_INT64), alpha,
      DT_INT64);
  s = RunError(root, poisson, {{"shape", Vec<int32_t>({3, 2})},
                               {"seed", Vec<int64_t>({1, 2})},
                               {"alpha", Vec<float>({1, 2, 3})}});
  EXPECT_THAT(s.message(),
              HasSubstr("shape [3,2] must end with lam's shape [3]"));
  Output counts = Ph(root, "counts", DT_DOUBLE);
  Output binomial = ops::StatelessRandomBinomial(
      root.WithOpName("binomial"), shape, Ph(root, "seed2", DT_INT64), counts,
      Ph(root, "probs", DT_DOUBLE));
  s = RunError(root, binomial, {{"shape", Vec<int32_t>({4})},
                                {"seed2", Vec<int64_t>({1, 2})},
                                {"counts", Vec<double>({5, 6})},
                                {"probs", Vec<double>({0.5, 0.5, 0.5})}});
  EXPECT_THAT(s.message(), HasSubstr("do not broadcast"));
  Output ptn = ops::ParameterizedTruncatedNormal(
      root.WithOpName("ptn"), shape, Ph(root, "m", DT_FLOAT), 1.0f, 2.0f,
      1.0f);
  s = RunError(root, ptn, {{"shape", Vec<int32_t>({2, 2})},
                           {"m", Vec<float>({0})}});
  EXPECT_THAT(s.message(), AllOf(HasSubstr("ParameterizedTruncatedNormal"),
                                 HasSubstr("Invalid parameters")));
}

TEST(RandomSamplingTest, CandidateSamplerBadInputs) {
  Scope root = Scope::NewRootScope();
  Output classes = Ph(root, "classes", DT_INT64);
  const Tensor good = Tensor::FromVector<int64_t>({1, 2}, TensorShape({2, 1}));
  ops::CandidateSample too_many = ops::LogUniformCandidateSampler(
      root.WithOpName("too_many"), classes, 1, 8, /*unique=*/true, 5);
  absl::Status s =
      RunError(root, too_many.sampled_candidates, {{"classes", good}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              AllOf(HasSubstr("too_many"),
                    HasSubstr("LogUniformCandidateSampler"),
                    HasSubstr("num_sampled (8) is larger than the 5 classes")));
  ops::CandidateSample learned = ops::LearnedUnigramCandidateSampler(
      root.WithOpName("learned"), classes, 1, 2, false, 5);
  s = RunError(root, learned.sampled_candidates,
               {{"classes", Tensor::FromVector<int64_t>({1, 9},
                                                        TensorShape({2, 1}))}});
  EXPECT_THAT(s.message(), HasSubstr("true class 9 is outside the sampler's "
                                     "range [0, 5)"));
  s = RunError(root, learned.sampled_candidates,
               {{"classes", Vec<int64_t>({1, 2})}});
  EXPECT_THAT(s.message(), HasSubstr("true_classes must be a [batch_size, "
                                     "num_true = 1] matrix, got shape [2]"));
  ops::CandidateSample fixed = ops::FixedUnigramCandidateSampler(
      root.WithOpName("fixed"), classes, 1, 2, false, 5, {1, 2, 3});
  s = RunError(root, fixed.sampled_candidates, {{"classes", good}});
  EXPECT_THAT(s.message(),
              HasSubstr("range_max is 5 but the unigrams give 3 weights"));
  ops::CandidateSample zeros = ops::FixedUnigramCandidateSampler(
      root.WithOpName("zeros"), classes, 1, 3, true, 4, {0, 1, 1, 0});
  s = RunError(root, zeros.sampled_candidates, {{"classes", good}});
  EXPECT_THAT(s.message(), HasSubstr("num_sampled (3) is larger than the 2 "
                                     "classes the sampler can draw"));
  Output hits = ops::ComputeAccidentalHits(root.WithOpName("hits"), classes,
                                           Ph(root, "cand", DT_INT64), 1)
                    .indices;
  s = RunError(root, hits,
               {{"classes", good},
                {"cand", Tensor::FromVector<int64_t>({1, 2},
                                                     TensorShape({1, 2}))}});
  EXPECT_THAT(s.message(), HasSubstr("sampled_candidates must be a vector"));
}

TEST(RandomSamplingTest, VocabFileIsRefused) {
  Scope root = Scope::NewRootScope();
  Output classes = ops::Const(root, {int64_t{1}}, {1, 1});
  Operation op = OpBuilder(root.WithOpName("vocab"),
                           "FixedUnigramCandidateSampler")
                     .Input(classes)
                     .Attr("num_true", 1)
                     .Attr("num_sampled", 2)
                     .Attr("unique", false)
                     .Attr("range_max", 4)
                     .Attr("vocab_file", "/tmp/vocab.csv")
                     .Finalize();
  ASSERT_TRUE(root.ok()) << root.status();
  const absl::Status s = RunError(root, op.output(0), {});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), AllOf(HasSubstr("vocab"),
                                 HasSubstr("pass the counts as `unigrams`")));
}

TEST(RandomSamplingTest, ShuffleAndIndexShuffleBadInputs) {
  Scope root = Scope::NewRootScope();
  Output seed = Ph(root, "seed", DT_INT64);
  Output index = ops::RandomIndexShuffle(root.WithOpName("perm"),
                                         Ph(root, "index", DT_INT64), seed,
                                         Ph(root, "max", DT_INT64));
  absl::Status s = RunError(root, index,
                            {{"index", Tensor::Scalar<int64_t>(1)},
                             {"seed", Vec<int64_t>({1, 2})},
                             {"max", Tensor::Scalar<int64_t>(9)}});
  EXPECT_THAT(s.message(), AllOf(HasSubstr("RandomIndexShuffle"),
                                 HasSubstr("seed must be a vector of size "
                                           "[3]")));
  Output key = Ph(root, "key", DT_UINT64);
  Output counter = Ph(root, "counter", DT_UINT64);
  Output shuffled = ops::StatelessShuffle(
      root.WithOpName("shuffled"), ops::Const(root, {1, 2, 3}), key, counter,
      Ph(root, "alg", DT_INT32));
  s = RunError(root, shuffled, {{"key", Vec<uint64_t>({1})},
                                {"counter", Vec<uint64_t>({0, 0})},
                                {"alg", Tensor::Scalar<int32_t>(9)}});
  EXPECT_THAT(s.message(), HasSubstr("Unsupported algorithm id: 9"));
}

TEST(RandomSamplingTest, GeneratorStateBadInputs) {
  Scope root = Scope::NewRootScope();
  Output state = ops::VarHandleOp(root.WithOpName("state"), DT_INT64,
                                  TensorShape({2}));
  Operation init = ops::AssignVariableOp(
      root.WithOpName("init"), state,
      ops::Const(root, {int64_t{1}, int64_t{2}}));
  Output alg = Ph(root, "alg", DT_INT32);
  Output skip = ops::RngReadAndSkip(
      root.WithOpName("skip"), state, alg,
      ops::Const(root, Tensor::Scalar<uint64_t>(3)));
  std::unique_ptr<Session> s = MakeSession(root);
  ASSERT_NE(s, nullptr);
  std::vector<Tensor> out;
  absl::Status st =
      s->Run({{"alg", Tensor::Scalar<int32_t>(1)}}, {skip.name()}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("uninitialized"));
  ASSERT_TRUE(s->Run({}, {}, {init.node()->name()}, &out).ok());
  st = s->Run({{"alg", Tensor::Scalar<int32_t>(1)}}, {skip.name()}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(),
              AllOf(HasSubstr("skip"), HasSubstr("RngReadAndSkip"),
                    HasSubstr("must be an int64 vector of at least 3")));
  st = s->Run({{"alg", Tensor::Scalar<int32_t>(2)}}, {skip.name()}, {}, &out);
  EXPECT_EQ(st.code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace dflow
