// dflow on graphs TensorFlow 2.21 wrote (tests/testdata/tf_corpus, made by
// tools/tf_reference/make_corpus.py): every graph loads, every op the
// corpus uses is dflow's or belongs to a named later issue, placement is
// TensorFlow's node for node, and every graph whose training step dflow
// can run initializes and trains 3 steps with TensorFlow's losses (within
// 1e-5 relative), on one CPU and on one CPU with 4 (stand-in) GPUs under
// soft placement. A graph that cannot run yet must fail only on an op of
// the named later issues, never otherwise.
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "compiler/lower_functional_if.h"
#include "compiler/placement_device.h"
#include "compiler/placer.h"
#include "gmock/gmock.h"
#include "graph/graph.h"
#include "graph/graph_def_file.h"
#include "graph/graph_def_import.h"
#include "graph/op_registry.h"
#include "gtest/gtest.h"
#include "runtime/placement_bridge.h"
#include "runtime/session.h"
#include "tests/tf_corpus/corpus_reference.h"
#include "tests/tf_corpus/corpus_training.h"

namespace dflow {
namespace {

// Ops of the corpus that other issues bring, with the issue. Everything
// else the corpus uses must be dflow's; an op listed here that dflow has
// must leave the list (the test says so). Empty now: every op of the
// corpus is dflow's; the list stays for the corpora of later issues.
const std::map<std::string, std::string>& OpsOfLaterIssues() {
  static const auto* ops = new std::map<std::string, std::string>{};
  return *ops;
}

const std::vector<CorpusReference>& Corpus() {
  static const auto* corpus = [] {
    absl::StatusOr<std::vector<CorpusReference>> c = ReadCorpus();
    EXPECT_TRUE(c.ok()) << c.status();
    return new std::vector<CorpusReference>(
        c.ok() ? *std::move(c) : std::vector<CorpusReference>{});
  }();
  return *corpus;
}

GraphDef ReadGraph(const CorpusReference& ref) {
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(ref.dir + "/graph.pb");
  EXPECT_TRUE(def.ok()) << def.status();
  return def.ok() ? *std::move(def) : GraphDef();
}

// The ops a run failed on because they are stand-ins (compiler/prune.h's
// "... (Op xN, Op xM); feed ..."), empty if it failed otherwise.
std::set<std::string> UnsupportedOpsReached(const absl::Status& s) {
  std::set<std::string> ops;
  if (s.code() != absl::StatusCode::kUnimplemented) return ops;
  const std::string marker = "reaches nodes dflow cannot run (";
  const std::string message(s.message());
  size_t at = message.find(marker);
  if (at == std::string::npos) return ops;
  at += marker.size();
  const size_t end = message.find(')', at);
  for (absl::string_view item :
       absl::StrSplit(message.substr(at, end - at), ", ")) {
    ops.insert(std::string(item.substr(0, item.rfind(" x"))));
  }
  return ops;
}

// OK, or the reason a failure is not excused by OpsOfLaterIssues().
::testing::AssertionResult OnlyLaterIssuesBlock(const absl::Status& s) {
  if (s.ok()) return ::testing::AssertionSuccess();
  std::set<std::string> ops = UnsupportedOpsReached(s);
  if (ops.empty()) return ::testing::AssertionFailure() << s;
  for (const std::string& op : ops) {
    if (!OpsOfLaterIssues().count(op)) {
      return ::testing::AssertionFailure()
             << "blocked by " << op << ", which no later issue brings: " << s;
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(TfCorpusTest, CorpusIsThere) {
  ASSERT_GE(Corpus().size(), 20u);
  std::set<std::string> styles;
  for (const CorpusReference& ref : Corpus()) styles.insert(ref.style);
  EXPECT_EQ(styles, (std::set<std::string>{"ref", "res"}));
}

TEST(TfCorpusTest, EveryGraphAndMetaGraphLoads) {
  for (const CorpusReference& ref : Corpus()) {
    SCOPED_TRACE(ref.name);
    Graph graph;
    std::vector<absl::Status> errors =
        ValidateGraphDef(ReadGraph(ref), ImportOptions(), &graph);
    EXPECT_TRUE(errors.empty()) << errors[0];
    EXPECT_GT(graph.num_nodes(), 50);
  }
}

TEST(TfCorpusTest, EveryOpIsDflowsOrALaterIssues) {
  std::map<std::string, std::set<std::string>> missing;  // op -> graphs
  std::set<std::string> later_but_present;
  for (const CorpusReference& ref : Corpus()) {
    Graph graph;
    ValidateGraphDef(ReadGraph(ref), ImportOptions(), &graph);
    for (const Node* n : graph.nodes()) {
      const bool later = OpsOfLaterIssues().count(n->op()) > 0;
      if (n->IsUnsupported() && !later) {
        missing[n->op()].insert(
            absl::StrCat(ref.name, ": ", n->unsupported().message()));
      }
      if (!n->IsUnsupported() && later) later_but_present.insert(n->op());
    }
  }
  std::vector<std::string> lines;
  for (const auto& [op, where] : missing) {
    lines.push_back(absl::StrCat(op, " (", where.size(), " graphs), e.g. ",
                                 *where.begin()));
  }
  EXPECT_TRUE(missing.empty())
      << missing.size() << " op(s) of the corpus dflow cannot run:\n  "
      << absl::StrJoin(lines, "\n  ");
  EXPECT_TRUE(later_but_present.empty())
      << "dflow has these now; take them off OpsOfLaterIssues(): "
      << absl::StrJoin(later_but_present, ", ");
}

TEST(TfCorpusTest, PlacementIsTensorFlowsNodeForNode) {
  RegistryKernelQuery kernels;
  int compared = 0;
  for (const CorpusReference& ref : Corpus()) {
    for (const auto& [device_set, expected] : ref.placement) {
      SCOPED_TRACE(absl::StrCat(ref.name, " on ", device_set));
      const GraphDef def = ReadGraph(ref);
      std::set<std::string> in_graph_def;
      for (const NodeDef& n : def.node()) in_graph_def.insert(n.name());
      Graph graph;
      ASSERT_TRUE(ImportGraphDef(def, ImportOptions(), &graph).ok());
      // As a session does before placing (each If keeps its name).
      OptimizationOptions optimization;
      PassContext context;
      context.options = &optimization;
      ASSERT_TRUE(LowerFunctionalIf(context, &graph).ok());
      absl::StatusOr<std::vector<PlacementDevice>> devices =
          ParseSimulatedDevices(device_set);
      ASSERT_TRUE(devices.ok()) << devices.status();
      PlacerOptions options;
      options.allow_soft_placement = true;
      absl::StatusOr<PlacementRecord> placed =
          PlaceGraph(&graph, *devices, kernels, options);
      ASSERT_TRUE(placed.ok()) << placed.status();
      std::vector<std::string> differences;
      for (const auto& [node_name, tf_device] : expected) {
        // TensorFlow also logs the nodes its own If lowering made
        // (cond/pivot_t/_84, Func/cond/...): only the GraphDef's are
        // compared (dflow's lowering makes its own).
        if (!in_graph_def.count(node_name)) continue;
        const Node* n = graph.FindNode(node_name);
        if (n == nullptr) {
          differences.push_back(node_name + ": not in dflow's graph");
          continue;
        }
        ++compared;
        if (n->assigned_device() != tf_device) {
          differences.push_back(absl::StrCat(node_name, " (", n->op(),
                                             "): dflow ", n->assigned_device(),
                                             ", TensorFlow ", tf_device));
        }
      }
      EXPECT_TRUE(differences.empty())
          << differences.size() << " of " << expected.size()
          << " nodes placed differently, e.g.:\n  "
          << absl::StrJoin(
                 differences.begin(),
                 differences.begin() + std::min<size_t>(differences.size(), 10),
                 "\n  ");
    }
  }
  EXPECT_GT(compared, 5000);
}

// A stateful node (a variable, its optimizer slots, a queue) lives on one
// device whichever step runs it: the initializer's step sees a slot
// variable with only its Assign, the training step sees it beside a sparse
// update with no GPU kernel, and both must put it where the whole graph
// does (TensorFlow places the whole graph once). On one CPU and 2 stand-in
// GPUs with soft placement, every stateful node of every graph runs on the
// same device in the init step and in the last training step.
TEST(TfCorpusTest, StatefulNodesRunOnOneDeviceInEveryStep) {
  int compared = 0;
  for (const CorpusReference& ref : Corpus()) {
    if (ref.steps == 0) continue;
    SCOPED_TRACE(ref.name);
    SessionOptions options;
    options.fake_gpus = 2;
    options.allow_soft_placement = true;
    CorpusStepStats stats;
    absl::StatusOr<std::vector<double>> losses =
        TrainCorpusGraph(ref, options, &stats);
    ASSERT_TRUE(losses.ok()) << losses.status();
    Graph graph;
    ASSERT_TRUE(ImportGraphDef(ReadGraph(ref), ImportOptions(), &graph).ok());
    std::map<std::string, std::string> init_device;
    for (const NodeExecStats& s : stats.init.step_stats) {
      init_device[s.node] = s.device;
    }
    for (const NodeExecStats& s : stats.last_step.step_stats) {
      const Node* n = graph.FindNode(s.node);
      if (n == nullptr || !n->IsStateful()) continue;
      auto it = init_device.find(s.node);
      if (it == init_device.end()) continue;
      ++compared;
      EXPECT_EQ(s.device, it->second)
          << s.node << " (" << n->op() << ") ran on " << it->second
          << " in the init step and on " << s.device << " in training";
    }
  }
  EXPECT_GT(compared, 100);
}

struct DeviceConfig {
  std::string label;
  int fake_gpus = 0;
};

class TfCorpusTrainingTest : public ::testing::TestWithParam<DeviceConfig> {};

TEST_P(TfCorpusTrainingTest, InitializesAndTrainsWithTensorFlowsLosses) {
  int trained = 0;
  std::vector<std::string> blocked;
  for (const CorpusReference& ref : Corpus()) {
    SCOPED_TRACE(ref.name);
    SessionOptions options;
    options.fake_gpus = GetParam().fake_gpus;
    options.allow_soft_placement = true;
    absl::StatusOr<std::vector<double>> losses = TrainCorpusGraph(ref, options);
    ASSERT_TRUE(OnlyLaterIssuesBlock(losses.status()));
    if (!losses.ok()) {
      blocked.push_back(ref.name);
      continue;
    }
    ASSERT_EQ(losses->size(), static_cast<size_t>(ref.steps));
    for (int i = 0; i < ref.steps; ++i) {
      EXPECT_NEAR((*losses)[i], ref.losses[i], 1e-5 * std::abs(ref.losses[i]))
          << "step " << i + 1;
    }
    if (ref.steps > 0) ++trained;
  }
  std::cout << GetParam().label << ": " << trained << " of " << Corpus().size()
            << " graphs trained with TensorFlow's losses; blocked by later "
               "issues: "
            << (blocked.empty() ? "none" : absl::StrJoin(blocked, ", "))
            << "\n";
  EXPECT_GT(trained, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Devices, TfCorpusTrainingTest,
    ::testing::Values(DeviceConfig{"CPU:1", 0}, DeviceConfig{"CPU:1,GPU:4", 4}),
    [](const ::testing::TestParamInfo<DeviceConfig>& info) {
      return info.param.fake_gpus == 0 ? std::string("Cpu")
                                       : std::string("CpuAnd4Gpus");
    });

}  // namespace
}  // namespace dflow
