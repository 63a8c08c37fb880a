// Every optimization pass must preserve what a graph computes. This test
// builds random graphs (tests/compiler/random_graph.h), runs each through
// sessions with the passes off, all on, and each pass alone (the others
// named in disabled_passes), and compares every fetch with the passes-off
// run: same dtype and shape, integers exactly, floats within a tolerance.
// Passes come from PassNames(), so a pass added to the pipeline is tested
// without touching this file.
//
// Each session runs twice: the second run reuses the cached plan, so a pass
// (or the in-place buffer forwarding memory planning sets up) that leaves
// state behind, or writes into a buffer it does not own, shows up as a
// second run that differs from the first. Then three runs of the same plan
// at once (not for graphs with variables or collectives). Fed tensors are
// also checked unchanged after every run. Graphs with a variable run its
// initializer first, and each run k is compared with the reference's run k.
//
// Reproducing one seed:
//   bazel test //tests/compiler:differential_passes_test
//     --test_env=DFLOW_DIFF_SEED=1234 --test_output=all
// A failure prints the seed, the pass configuration, the differing
// elements, and the graph reduced to the failing fetch as pbtxt.
// DFLOW_DIFF_SEEDS=N runs N seeds instead of the default;
// DFLOW_DIFF_VERBOSE=1 prints what every pass changed, and
// DFLOW_DIFF_SEED=k DFLOW_DIFF_DUMP=1 prints seed k's graph.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/optimization_stages.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/compiler/random_graph.h"

namespace dflow {
namespace {

// Seeds [0, kCoverageSeeds) run in CoverageSeedsExercisePasses, which also
// counts what every pass changed; the rest in blocks of kSeedsPerBlock, one
// test per block so that Bazel's shards split them.
constexpr int kCoverageSeeds = 60;
constexpr int kSeedsPerBlock = 15;
constexpr int kBlocks = 16;  // 60 + 240 = 300 seeds per run by default

// Float tolerance. Passes may reorder float arithmetic (fused element-wise
// loops, a bias added inside a MatMul's accumulation, AddN regrouped), which
// moves a result by a few ulps of the largest value it was computed from,
// not of the result: x - y of two values near S leaves an error near
// eps * S however small x - y is. So the absolute part scales with the
// generator's bound on the fetch's inputs (RandomGraph::fetch_scales; 1 for
// values near 1): 1e-6 * scale is about 8 ulps of float (eps 1.2e-7) of the
// largest intermediate. The relative part, 1e-5 (about 80 ulps of the
// result), covers error carried through a few roundings (exp, division).
// A pass that computes something else is off by far more: a dropped term,
// a wrong operand or a clobbered buffer changes values by O(1).
constexpr double kRelTolerance = 1e-5;
constexpr double kAbsTolerance = 1e-6;

// Passes whose target patterns this generator never builds: coverage does
// not require them to change anything (it still reports what they did).
// Empty: every pass in the pipeline today has its pattern in the generator.
const std::map<std::string, std::string>& OutOfScope() {
  static const auto* passes = new std::map<std::string, std::string>{
      // The random graphs have no functional conditionals yet;
      // tests/runtime/tf_cond_test runs TensorFlow's If graphs with and
      // without the pass.
      {"lower_functional_if", "no If in random graphs"},
      // Nor functional loops; tests/runtime/tf_loops_test runs TensorFlow's
      // StatelessWhile graphs, and tests/compiler/
      // lower_functional_while_test the lowered structure.
      {"lower_functional_while", "no While in random graphs"},
      // Nor calls or Case; tests/runtime/tf_calls_test runs TensorFlow's
      // call and switch_case graphs with and without optimization.
      {"inline_function_calls", "no function calls in random graphs"},
      {"lower_functional_case", "no Case in random graphs"},
  };
  return *passes;
}

int EnvInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  int parsed = 0;
  if (value == nullptr || !absl::SimpleAtoi(value, &parsed)) return fallback;
  return parsed;
}

struct PassConfig {
  std::string name;  // "off", "all", "only:cse"
  bool optimize = true;
  std::vector<std::string> disabled;
};

std::vector<PassConfig> Configs() {
  std::vector<PassConfig> configs;
  configs.push_back({"off", false, {}});
  configs.push_back({"all", true, {}});
  const auto passes = PassNames();
  if (passes.size() < 2) return configs;  // "only:x" would equal "all"
  for (const auto& [pass, stage] : passes) {
    PassConfig only{absl::StrCat("only:", pass), true, {}};
    for (const auto& [other, other_stage] : passes) {
      if (other != pass) only.disabled.push_back(other);
    }
    configs.push_back(std::move(only));
  }
  return configs;
}

Tensor DeepCopy(const Tensor& t) {
  Tensor copy(t.dtype(), t.shape());
  if (t.TotalBytes() > 0) {
    std::memcpy(copy.raw_data(), t.raw_data(), t.TotalBytes());
  }
  return copy;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         a.TotalBytes() == b.TotalBytes() &&
         (a.TotalBytes() == 0 ||
          std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0);
}

// Empty when `got` matches `want`; else what differs (the first few
// elements).
std::string Compare(const Tensor& want, const Tensor& got, double scale) {
  if (want.dtype() != got.dtype()) {
    return absl::StrCat("dtype ", DataTypeName(got.dtype()), ", want ",
                        DataTypeName(want.dtype()));
  }
  if (want.shape() != got.shape()) {
    return absl::StrCat("shape ", got.shape().ToString(), ", want ",
                        want.shape().ToString());
  }
  std::vector<std::string> diffs;
  int bad = 0;
  if (want.dtype() == DT_FLOAT) {
    auto w = want.flat<float>();
    auto g = got.flat<float>();
    for (size_t i = 0; i < w.size(); ++i) {
      const double a = w[i];
      const double b = g[i];
      if (std::isnan(a) && std::isnan(b)) continue;
      const double tol = kAbsTolerance * std::max(1.0, scale) +
                         kRelTolerance * std::max(std::fabs(a), std::fabs(b));
      if (a == b || std::fabs(a - b) <= tol) continue;
      if (++bad <= 4) {
        diffs.push_back(absl::StrCat("[", i, "] ", b, " want ", a,
                                     " (tolerance ", tol, ")"));
      }
    }
  } else if (want.dtype() == DT_INT32) {
    auto w = want.flat<int32_t>();
    auto g = got.flat<int32_t>();
    for (size_t i = 0; i < w.size(); ++i) {
      if (w[i] == g[i]) continue;
      if (++bad <= 4) diffs.push_back(absl::StrCat("[", i, "] ", g[i], " want ", w[i]));
    }
  } else if (!SameBytes(want, got)) {
    return "bytes differ";
  }
  if (bad == 0) return "";
  return absl::StrCat(bad, " of ", want.NumElements(), " elements differ: ",
                      absl::StrJoin(diffs, "; "));
}

// What one configuration computed: both runs' fetches, or why it failed.
struct Outcome {
  absl::Status status;
  std::vector<Tensor> first;
  std::vector<Tensor> second;
  // Runs of the same plan from several threads at once.
  std::vector<std::vector<Tensor>> concurrent;
  // Runs with RandomGraph::later_feeds, in order.
  std::vector<std::vector<Tensor>> later;
  std::string feed_damage;  // a fed tensor changed by a run
  std::string log;          // stderr when captured
};

Outcome RunConfig(const RandomGraph& graph, const PassConfig& config,
                  bool capture) {
  Outcome outcome;
  SessionOptions options;
  options.device_count = {{"CPU", graph.cpu_devices}};
  options.optimize_graph = config.optimize;
  options.disabled_passes = config.disabled;
  options.log_device_placement = capture;
  // Copies of the feeds: a run must not write into the caller's tensors.
  std::vector<Tensor> fed;
  for (const auto& [name, tensor] : graph.feeds) fed.push_back(DeepCopy(tensor));
  if (capture) ::testing::internal::CaptureStderr();
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(graph.graph, options);
  if (session.ok() && !graph.init_targets.empty()) {
    std::vector<Tensor> none;
    absl::Status s = (*session)->Run({}, {}, graph.init_targets, &none);
    if (!s.ok()) session = s;
  }
  if (!session.ok()) {
    outcome.status = session.status();
  } else {
    for (std::vector<Tensor>* out : {&outcome.first, &outcome.second}) {
      outcome.status =
          (*session)->Run(graph.feeds, graph.fetches, graph.targets, out);
      if (!outcome.status.ok()) break;
      for (size_t i = 0; i < fed.size(); ++i) {
        if (!SameBytes(fed[i], graph.feeds[i].second) &&
            outcome.feed_damage.empty()) {
          outcome.feed_damage = absl::StrCat(
              "the run wrote into the fed tensor ", graph.feeds[i].first);
        }
      }
    }
    for (const auto& feeds : graph.later_feeds) {
      if (!outcome.status.ok()) break;
      outcome.later.emplace_back();
      outcome.status = (*session)->Run(feeds, graph.fetches, graph.targets,
                                       &outcome.later.back());
    }
    // The cached plan is shared by concurrent runs: buffers a pass planned
    // (or forwarded in place) must be per step.
    if (outcome.status.ok() && !graph.stateful && !graph.has_collectives) {
      constexpr int kThreads = 3;
      outcome.concurrent.resize(kThreads);
      std::vector<absl::Status> status(kThreads);
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          status[t] = (*session)->Run(graph.feeds, graph.fetches,
                                      graph.targets, &outcome.concurrent[t]);
        });
      }
      for (std::thread& thread : threads) thread.join();
      for (const absl::Status& s : status) {
        if (outcome.status.ok() && !s.ok()) outcome.status = s;
      }
      for (size_t i = 0; i < fed.size(); ++i) {
        if (!SameBytes(fed[i], graph.feeds[i].second) &&
            outcome.feed_damage.empty()) {
          outcome.feed_damage = absl::StrCat(
              "a concurrent run wrote into the fed tensor ",
              graph.feeds[i].first);
        }
      }
    }
  }
  if (capture) outcome.log = ::testing::internal::GetCapturedStderr();
  return outcome;
}

// Passes that reported changes in a captured log ("Optimizations:" block:
// one line per pass run with changes > 0).
std::vector<std::string> ChangedPasses(const std::string& log) {
  std::vector<std::string> passes;
  bool in_block = false;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (line == "Optimizations:") {
      in_block = true;
      continue;
    }
    if (!in_block) continue;
    if (!absl::StartsWith(line, "    ")) {
      in_block = false;
      continue;
    }
    line.remove_prefix(4);
    const size_t end = line.find_first_of(" :");
    passes.emplace_back(line.substr(0, end));
  }
  return passes;
}

// `graph` with only `fetch` (and the nodes it needs): the repro printed on
// a failure.
RandomGraph ReduceTo(const RandomGraph& graph, size_t fetch) {
  RandomGraph reduced = graph;
  reduced.fetches = {graph.fetches[fetch]};
  reduced.fetch_scales = {graph.fetch_scales[fetch]};
  for (size_t i = 0; i < graph.fetches.size(); ++i) {
    if (i != fetch && std::count(graph.group_fetches.begin(),
                                 graph.group_fetches.end(),
                                 graph.fetches[i]) > 0) {
      reduced.fetches.push_back(graph.fetches[i]);
      reduced.fetch_scales.push_back(graph.fetch_scales[i]);
    }
  }
  reduced.targets.clear();
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& node : graph.graph.node()) by_name[node.name()] = &node;
  std::set<std::string> keep;
  std::vector<std::string> stack = graph.init_targets;
  for (const std::string& name : reduced.fetches) {
    stack.push_back(name.substr(0, name.find(':')));
  }
  while (!stack.empty()) {
    const std::string name = stack.back();
    stack.pop_back();
    if (!keep.insert(name).second || !by_name.count(name)) continue;
    for (const std::string& input : by_name[name]->input()) {
      std::string node = input[0] == '^' ? input.substr(1) : input;
      node = node.substr(0, node.find(':'));
      stack.push_back(node);
    }
  }
  reduced.graph.clear_node();
  for (const NodeDef& node : graph.graph.node()) {
    if (keep.count(node.name())) *reduced.graph.add_node() = node;
  }
  reduced.feeds.clear();
  for (const auto& feed : graph.feeds) {
    if (keep.count(feed.first)) reduced.feeds.push_back(feed);
  }
  return reduced;
}

// Runs one seed through every configuration; adds failures to the test.
// With `changed`, counts per pass the seeds where it changed the graph.
void CheckSeed(uint64_t seed, std::map<std::string, int>* changed,
               bool batch = false) {
  absl::StatusOr<RandomGraph> graph =
      batch ? GenerateBatchGraph(seed) : GenerateRandomGraph(seed);
  ASSERT_TRUE(graph.ok()) << graph.status();
  if (EnvInt("DFLOW_DIFF_DUMP", 0) != 0) std::cout << graph->DebugString();
  const std::vector<PassConfig> configs = Configs();
  const Outcome reference = RunConfig(*graph, configs[0], false);
  ASSERT_TRUE(reference.status.ok())
      << "seed " << seed << ": the unoptimized graph fails (a generator bug): "
      << reference.status << "\n"
      << graph->DebugString();
  ASSERT_EQ(reference.first.size(), graph->fetches.size());
  bool printed_graph = false;
  auto report = [&](const PassConfig& config, const std::string& what,
                    int fetch) {
    std::string repro;
    if (fetch >= 0) {
      const RandomGraph reduced = ReduceTo(*graph, fetch);
      repro = absl::StrCat("reduced to the failing fetch:\n",
                           reduced.DebugString());
    } else if (!printed_graph) {
      repro = graph->DebugString();
    }
    if (!printed_graph && fetch >= 0) {
      repro += absl::StrCat("\nfull graph:\n", graph->DebugString());
    }
    printed_graph = true;
    ADD_FAILURE() << "seed " << seed << ", passes " << config.name
                  << (config.disabled.empty()
                          ? ""
                          : absl::StrCat(" (disabled: ",
                                         absl::StrJoin(config.disabled, ","),
                                         ")"))
                  << ": " << what << "\nrepro: DFLOW_DIFF_SEED=" << seed
                  << "\n"
                  << repro;
  };
  for (const PassConfig& config : configs) {
    const bool verbose = EnvInt("DFLOW_DIFF_VERBOSE", 0) != 0;
    const bool capture =
        (changed != nullptr || verbose) && config.name != "off";
    const Outcome got = config.name == "off" ? reference
                                             : RunConfig(*graph, config, capture);
    if (!got.status.ok()) {
      report(config, absl::StrCat("the run failed: ", got.status.ToString()),
             -1);
      continue;
    }
    if (!got.feed_damage.empty()) report(config, got.feed_damage, -1);
    if (verbose) {
      std::cout << "seed " << seed << " " << config.name << ":\n";
      bool in_block = false;
      for (absl::string_view line : absl::StrSplit(got.log, '\n')) {
        if (line == "Optimizations:") in_block = true;
        else if (!absl::StartsWith(line, "    ")) in_block = false;
        else if (in_block) std::cout << line << "\n";
      }
    }
    if (changed != nullptr && absl::StartsWith(config.name, "only:")) {
      std::set<std::string> seen;
      for (const std::string& pass : ChangedPasses(got.log)) seen.insert(pass);
      for (const std::string& pass : seen) ++(*changed)[pass];
    }
    std::vector<std::pair<std::string, const std::vector<Tensor>*>> runs = {
        {"first run", &got.first}, {"second run", &got.second}};
    for (size_t t = 0; t < got.concurrent.size(); ++t) {
      runs.emplace_back(absl::StrCat("concurrent run ", t), &got.concurrent[t]);
    }
    for (size_t t = 0; t < got.later.size(); ++t) {
      runs.emplace_back(absl::StrCat("run with later_feeds[", t, "]"),
                        &got.later[t]);
    }
    for (const auto& [which, run] : runs) {
      // A stateful graph's second run starts from the state the first left.
      const std::vector<Tensor>* want = &reference.first;
      if (graph->stateful && run == &got.second) want = &reference.second;
      for (size_t t = 0; t < got.later.size(); ++t) {
        if (run == &got.later[t] && t < reference.later.size()) {
          want = &reference.later[t];
        }
      }
      if (run->size() != graph->fetches.size()) {
        report(config, absl::StrCat(which, ": ", run->size(), " outputs"), -1);
        continue;
      }
      for (size_t i = 0; i < run->size(); ++i) {
        const std::string diff =
            Compare((*want)[i], (*run)[i], graph->fetch_scales[i]);
        if (!diff.empty()) {
          report(config,
                 absl::StrCat(which, ", fetch ", graph->fetches[i], ": ", diff),
                 static_cast<int>(i));
        }
      }
    }
  }
}

bool SingleSeedRequested(uint64_t* seed) {
  const int value = EnvInt("DFLOW_DIFF_SEED", -1);
  if (value < 0) return false;
  *seed = static_cast<uint64_t>(value);
  return true;
}

// The first seeds, with what each pass changed counted: every pass the
// generator targets must change some graph, else this test proves nothing
// about it.
TEST(DifferentialPassesTest, CoverageSeedsExercisePasses) {
  uint64_t single = 0;
  if (SingleSeedRequested(&single)) {
    CheckSeed(single, nullptr);
    return;
  }
  const int seeds = std::min(kCoverageSeeds, EnvInt("DFLOW_DIFF_SEEDS", kCoverageSeeds));
  std::map<std::string, int> changed;
  for (int seed = 0; seed < seeds; ++seed) CheckSeed(seed, &changed);
  std::vector<std::string> lines;
  for (const auto& [pass, stage] : PassNames()) {
    lines.push_back(absl::StrCat(pass, ": changed ", changed[pass], " of ",
                                 seeds, " graphs"));
    if (OutOfScope().count(pass)) {
      lines.back() += absl::StrCat(" (not targeted: ", OutOfScope().at(pass), ")");
      continue;
    }
    if (PassNames().size() < 2) continue;  // no "only:" runs to count
    EXPECT_GT(changed[pass], 0)
        << "pass " << pass << " changed none of " << seeds
        << " random graphs: the generator does not build what it rewrites "
           "(extend tests/compiler/random_graph.cc), or the pass never fires";
  }
  std::cout << "Passes run alone on seeds [0, " << seeds << "):\n  "
            << absl::StrJoin(lines, "\n  ") << "\n";
}

// The comparison itself: it must see a wrong element, a wrong shape and a
// wrong dtype, and let float rounding through.
TEST(DifferentialPassesTest, CompareSeesDifferences) {
  const Tensor f = Tensor::FromVector<float>({1.0f, -2.0f, 1e-3f});
  EXPECT_EQ(Compare(f, DeepCopy(f), 1), "");
  EXPECT_EQ(Compare(f, Tensor::FromVector<float>({1.0f + 4e-7f, -2.0f, 1e-3f}),
                    1),
            "");
  EXPECT_NE(Compare(f, Tensor::FromVector<float>({1.0f, -2.0f, 2e-3f}), 1), "");
  // A cancellation error near eps * scale passes only with the scale.
  const Tensor g = Tensor::FromVector<float>({1.0f, -2.0f, 1e-3f + 2e-5f});
  EXPECT_NE(Compare(f, g, 1), "");
  EXPECT_EQ(Compare(f, g, 100), "");
  const Tensor i = Tensor::FromVector<int32_t>({1, 2, 3});
  EXPECT_EQ(Compare(i, DeepCopy(i), 1), "");
  EXPECT_NE(Compare(i, Tensor::FromVector<int32_t>({1, 2, 4}), 1e6), "");
  EXPECT_NE(Compare(i, Tensor::FromVector<int32_t>({1, 2, 3, 4}), 1), "");
  EXPECT_NE(Compare(i, Tensor::FromVector<float>({1, 2, 3}), 1), "");
}

// The generator is deterministic (a seed reproduces its graph) and builds
// graphs that are not trivial.
TEST(DifferentialPassesTest, GeneratorIsDeterministic) {
  absl::StatusOr<RandomGraph> a = GenerateRandomGraph(7);
  absl::StatusOr<RandomGraph> b = GenerateRandomGraph(7);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->DebugString(), b->DebugString());
  ASSERT_EQ(a->feeds.size(), b->feeds.size());
  for (size_t k = 0; k < a->feeds.size(); ++k) {
    EXPECT_TRUE(SameBytes(a->feeds[k].second, b->feeds[k].second));
  }
  std::set<std::string> ops;
  int nodes = 0;
  for (int seed = 0; seed < 50; ++seed) {
    absl::StatusOr<RandomGraph> g = GenerateRandomGraph(seed);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_GE(g->fetches.size(), 1u);
    for (const NodeDef& node : g->graph.node()) ops.insert(node.op());
    nodes += g->graph.node_size();
  }
  for (const char* op :
       {"AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Neg", "Square",
        "Relu", "Tanh", "Sigmoid", "Exp", "MatMul", "BiasAdd", "Transpose",
        "Reshape", "Identity", "Cast", "AddN", "Shape", "Size", "Rank", "Fill",
        "ZerosLike", "OnesLike", "Sum", "Mean", "ConcatV2", "Softmax",
        "Placeholder", "Const"}) {
    EXPECT_TRUE(ops.count(op)) << op << " never generated";
  }
  EXPECT_GT(nodes / 50, 30) << "graphs too small";
}

// Graphs with an unknown batch dimension, fed batches of several sizes
// through one cached plan (memory planning sizes buffers from the first
// feed's shape only as a hint).
TEST(DifferentialPassesTest, BatchSizeChangesBetweenRuns) {
  uint64_t single = 0;
  if (SingleSeedRequested(&single)) {
    CheckSeed(single, nullptr, /*batch=*/true);
    return;
  }
  const int seeds = EnvInt("DFLOW_DIFF_BATCH_SEEDS", 100);
  for (int seed = 0; seed < seeds; ++seed) CheckSeed(seed, nullptr, true);
}

class DifferentialPassesBlockTest : public ::testing::TestWithParam<int> {};

TEST_P(DifferentialPassesBlockTest, PassesPreserveResults) {
  uint64_t single = 0;
  if (SingleSeedRequested(&single)) return;  // run by the coverage test
  const int total = EnvInt("DFLOW_DIFF_SEEDS", kCoverageSeeds +
                                                   kBlocks * kSeedsPerBlock);
  const int per_block = std::max(
      1, (total - kCoverageSeeds + kBlocks - 1) / kBlocks);
  const int begin = kCoverageSeeds + GetParam() * per_block;
  const int end = std::min(total, begin + per_block);
  for (int seed = begin; seed < end; ++seed) CheckSeed(seed, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Seeds, DifferentialPassesBlockTest,
                         ::testing::Range(0, kBlocks));

}  // namespace
}  // namespace dflow
