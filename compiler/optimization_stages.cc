#include "compiler/optimization_stages.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "compiler/arithmetic_simplification.h"
#include "compiler/common_subexpression_elimination.h"
#include "compiler/constant_folding.h"
#include "compiler/fuse_bias_activation.h"
#include "compiler/fuse_elementwise.h"
#include "compiler/fuse_matmul_update.h"
#include "compiler/inline_function_calls.h"
#include "compiler/lower_functional_case.h"
#include "compiler/lower_functional_if.h"
#include "compiler/lower_functional_while.h"
#include "compiler/memory_planning.h"
#include "compiler/remove_unread_values.h"
#include "compiler/tensor_fusion.h"
#include "google/protobuf/text_format.h"
#include "graph/graph_dot.h"
#include "graph/ops/control_flow_frames.h"
#include "graph/ops/control_flow_ops.h"

namespace dflow {
namespace {

absl::StatusOr<PassResult> RunTensorFusion(const PassContext& ctx,
                                           Graph* graph) {
  absl::StatusOr<TensorFusionResult> fused =
      FuseAllReduces(graph, ctx.options->tensor_fusion);
  if (!fused.ok()) return fused.status();
  PassResult result;
  result.changes = fused->buckets;
  result.what = absl::StrCat(fused->instances, " all-reduce instances into ",
                             fused->buckets);
  return result;
}

absl::StatusOr<PassResult> RunFuseMatMulUpdate(const PassContext& ctx,
                                               Graph* graph) {
  PassResult result;
  // The fused update has a CPU kernel only (kernels/cpu/
  // training_ops_fused.cc); another device type keeps the MatMul and the
  // update apart. On a GPU the gain would be one pass over W, which its
  // memory bandwidth makes cheap, against a cuBLAS GEMM whose alpha (minus
  // a learning rate in device memory) needs device pointer mode.
  if (ctx.device_type != "CPU") {
    result.what = "no fused kernel on " + ctx.device_type;
    return result;
  }
  absl::StatusOr<int> fused = FuseMatMulIntoGradientDescent(graph);
  if (!fused.ok()) return fused.status();
  result.changes = *fused;
  result.what = absl::StrCat(*fused, " MatMul+ApplyGradientDescent fused");
  return result;
}

struct PassEntry {
  const char* name;
  PassStage stage;
  GraphPassFn run;
  // Runs even when optimization is off or the pass is disabled: the graph
  // cannot run without it (it then leaves a summary only when it changed
  // something).
  bool required = false;
};

// The pipeline, in order. Device-independent: rewrites that shrink the
// graph come first, so that tensor fusion sees the final all-reduces.
// Device-specific: fusions, then memory planning on the final partition.
constexpr PassEntry kPasses[] = {
    // Device-independent. Calls first (a body may hold an If or a While),
    // then the lowerings: every later pass, the placer and the partitioner
    // see Switch/Merge, never a call or a functional If.
    {"inline_function_calls", PassStage::kDeviceIndependent,
     InlineFunctionCalls, /*required=*/true},
    // Case before If: Ifs in a Case's branches are lowered by the If pass
    // (which also lowers the Cases its branches bring).
    {"lower_functional_case", PassStage::kDeviceIndependent,
     LowerFunctionalCase, /*required=*/true},
    {"lower_functional_if", PassStage::kDeviceIndependent, LowerFunctionalIf,
     /*required=*/true},
    // After the If lowering (a branch may hold a loop); lowers the If nodes
    // that loop bodies hold as well.
    {"lower_functional_while", PassStage::kDeviceIndependent,
     LowerFunctionalWhile, /*required=*/true},
    // Before the rewrites: no pass spends time on values nobody reads.
    {"remove_unread_values", PassStage::kDeviceIndependent, RemoveUnreadValues},
    {"arithmetic_simplification", PassStage::kDeviceIndependent,
     SimplifyArithmetic},
    {"constant_folding", PassStage::kDeviceIndependent, FoldConstants},
    {"cse", PassStage::kDeviceIndependent, EliminateCommonSubexpressions},
    {"tensor_fusion", PassStage::kDeviceIndependent, RunTensorFusion},
    // Device-specific. CSE again on the placed partition: nodes that asked
    // for different devices (a tower per GPU) but run on one are merged
    // when they compute the same thing (seed 001's towers share a batch).
    {"cse_on_device", PassStage::kDeviceSpecific,
     EliminateCommonSubexpressions},
    {"fuse_matmul_update", PassStage::kDeviceSpecific, RunFuseMatMulUpdate},
    {"fuse_bias_activation", PassStage::kDeviceSpecific, FuseBiasActivation},
    {"fuse_elementwise", PassStage::kDeviceSpecific, FuseElementwise},
    {"memory_planning", PassStage::kDeviceSpecific, RunMemoryPlanning},
};

// Prefixes a pass's error with the pass, so a failure names where it began.
absl::Status InPass(absl::string_view pass, absl::string_view device,
                    const absl::Status& s) {
  if (s.ok()) return s;
  return absl::Status(
      s.code(),
      absl::StrCat("optimization pass ", pass,
                   device.empty() ? "" : absl::StrCat(" on ", device),
                   " failed: ", s.message(),
                   " (SessionOptions::optimize_graph = false runs the graph "
                   "as built; disabled_passes turns this one pass off)"));
}

absl::Status RunStage(PassStage stage, const PassContext& ctx, Graph* graph,
                      std::vector<PassSummary>* summaries, PassDumper* dumper) {
  // Graphs with loops and conditionals run every pass: each keeps nodes in
  // their frame and branch by construction (a rewrite only joins nodes
  // linked by data edges, which share a frame; a Const it adds waits for
  // the node it replaces; control-flow nodes are never merged, folded or
  // fused; tensor fusion leaves graphs with control flow alone), and the
  // differential random-graph test grows loops and conditionals to check
  // it. The graph's own loops are checked before any pass rewrites them,
  // so that an error names the node as the user wrote it (a pass may
  // remove a node whose inputs come from two frames, and move its edges).
  if (stage == PassStage::kDeviceIndependent && GraphHasLoops(*graph)) {
    absl::StatusOr<ControlFlowFrames> frames = ControlFlowFrames::Build(*graph);
    if (!frames.ok()) return frames.status();
  }
  for (const PassEntry& pass : kPasses) {
    if (pass.stage != stage) continue;
    const bool enabled = ctx.options->IsEnabled(pass.name);
    if (!enabled && !pass.required) continue;
    PassSummary summary;
    summary.pass = pass.name;
    summary.device = ctx.device;
    summary.nodes_before = graph->num_nodes();
    const absl::Time start = absl::Now();
    absl::StatusOr<PassResult> result = pass.run(ctx, graph);
    summary.time = absl::Now() - start;
    if (!result.ok()) return InPass(pass.name, ctx.device, result.status());
    summary.nodes_after = graph->num_nodes();
    summary.changes = result->changes;
    summary.what = std::move(result->what);
    summary.figures = std::move(result->figures);
    if (!enabled && summary.changes == 0) continue;  // a required no-op
    if (dumper != nullptr && dumper->active()) {
      if (absl::Status s = dumper->Dump(summary, *graph); !s.ok()) return s;
    }
    if (summaries != nullptr) summaries->push_back(std::move(summary));
  }
  return absl::OkStatus();
}

// "CPU_0" for "/job:localhost/replica:0/task:0/device:CPU:0".
std::string ShortDeviceName(absl::string_view device) {
  const size_t at = device.rfind("device:");
  absl::string_view tail =
      at == absl::string_view::npos ? device : device.substr(at + 7);
  return absl::StrReplaceAll(tail, {{":", "_"}, {"/", "_"}});
}

absl::Status WriteFile(const std::string& path, const std::string& text,
                       bool append) {
  std::ofstream file(
      path, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
  file << text;
  file.close();
  if (!file) {
    return absl::UnavailableError(
        absl::StrCat("cannot write the pass dump ", path,
                     " (check the dump directory is writable and has space)"));
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<std::pair<std::string, PassStage>> PassNames() {
  std::vector<std::pair<std::string, PassStage>> names;
  for (const PassEntry& pass : kPasses)
    names.emplace_back(pass.name, pass.stage);
  return names;
}

absl::StatusOr<PassDumper> PassDumper::Create(const std::string& dir) {
  PassDumper dumper;
  if (dir.empty()) return dumper;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot create the pass dump directory '", dir,
                     "': ", error.message()));
  }
  dumper.dir_ = dir;
  if (absl::Status s = WriteFile(dir + "/passes.txt", "", false); !s.ok()) {
    return s;
  }
  return dumper;
}

absl::Status PassDumper::Dump(const PassSummary& summary, const Graph& graph) {
  if (!active()) return absl::OkStatus();
  std::string stem = absl::StrFormat("%03d_%s", next_++, summary.pass);
  if (!summary.device.empty()) {
    absl::StrAppend(&stem, "_", ShortDeviceName(summary.device));
  }
  GraphDef def;
  graph.ToGraphDef(&def);
  std::string text;
  google::protobuf::TextFormat::PrintToString(def, &text);
  if (absl::Status s =
          WriteFile(absl::StrCat(dir_, "/", stem, ".pbtxt"), text, false);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = WriteFile(absl::StrCat(dir_, "/", stem, ".dot"),
                                 GraphToDot(def), false);
      !s.ok()) {
    return s;
  }
  return WriteFile(
      dir_ + "/passes.txt",
      absl::StrCat(stem.substr(0, 3), "  ", PassSummaryLine(summary), "\n"),
      true);
}

absl::Status RunDeviceIndependentPasses(
    const OptimizationOptions& options,
    const absl::flat_hash_set<std::string>& protected_nodes, Graph* graph,
    std::vector<PassSummary>* summaries, PassDumper* dumper) {
  PassContext ctx;
  ctx.options = &options;
  ctx.protected_nodes = protected_nodes;
  return RunStage(PassStage::kDeviceIndependent, ctx, graph, summaries, dumper);
}

absl::Status RunDeviceSpecificPasses(
    const OptimizationOptions& options, absl::string_view device,
    absl::string_view device_type,
    const absl::flat_hash_set<std::string>& protected_nodes, Graph* graph,
    std::vector<PassSummary>* summaries, PassDumper* dumper) {
  PassContext ctx;
  ctx.options = &options;
  ctx.device = std::string(device);
  ctx.device_type = std::string(device_type);
  ctx.protected_nodes = protected_nodes;
  return RunStage(PassStage::kDeviceSpecific, ctx, graph, summaries, dumper);
}

std::string PassSummaryLine(const PassSummary& summary) {
  std::string nodes;
  if (summary.nodes_before != summary.nodes_after) {
    nodes = absl::StrCat(", ", summary.nodes_before, " -> ",
                         summary.nodes_after, " nodes");
  }
  return absl::StrFormat(
      "%s%s: %s (%.2f ms%s)", summary.pass,
      summary.device.empty()
          ? ""
          : absl::StrCat(" on ",
                         absl::StrReplaceAll(ShortDeviceName(summary.device),
                                             {{"_", ":"}})),
      summary.what, absl::ToDoubleMilliseconds(summary.time), nodes);
}

}  // namespace dflow
