#include "tools/run_cluster.h"

#include <chrono>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "distributed/cluster_session.h"
#include "distributed/cluster_spec.h"
#include "formats/graph_file.h"
#include "formats/subgraph.h"
#include "tools/step_stats_report.h"
#include "tools/tensor_summary.h"

namespace dflow {

const std::vector<std::string>& FlagsNotForClusters() {
  static const std::vector<std::string>* flags = new std::vector<std::string>{
      "saved_model",  "restore", "save",        "summary_dir",
      "summary",      "memory",  "dump_passes", "devices",
      "memory_limit", "out",     "disable_pass"};
  return *flags;
}

int RunOnCluster(const CliArgs& cli,
                 const std::vector<std::pair<std::string, Tensor>>& feeds,
                 int steps, std::ostream& out, std::ostream& err) {
  absl::StatusOr<ClusterSpec> cluster = ClusterSpec::Parse(cli.Get("cluster"));
  if (!cluster.ok()) {
    err << "error: --cluster: " << cluster.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<GraphFile> file = ReadGraphFile(cli.Get("graph"));
  if (!file.ok()) {
    err << "error: " << file.status().message() << "\n";
    return 1;
  }
  const std::vector<std::string> fetches = cli.GetAll("fetch");
  const std::vector<std::string> targets = cli.GetAll("target");
  const std::vector<std::string> inits = cli.GetAll("init");
  GraphDef def = std::move(file->graph_def);
  if (file->meta_graph) {
    // As run does: only what the run needs of a TensorFlow graph.
    std::vector<std::string> roots = fetches;
    roots.insert(roots.end(), targets.begin(), targets.end());
    roots.insert(roots.end(), inits.begin(), inits.end());
    for (const auto& [name, unused] : feeds) roots.push_back(name);
    absl::StatusOr<GraphDef> sub = SubgraphNeededFor(def, roots, file->path);
    if (!sub.ok()) {
      err << "error: " << sub.status().message() << "\n";
      return 1;
    }
    def = *std::move(sub);
  }
  ClusterSessionOptions options;
  options.cluster = *cluster;
  options.target = cli.Get("master");
  options.allow_soft_placement = cli.GetBool("soft_placement");
  options.log_device_placement = cli.GetBool("log_device_placement");
  options.optimize_graph = !cli.GetBool("no_optimize");
  int64_t timeout_ms = 0;
  if (absl::SimpleAtoi(cli.Get("timeout_ms"), &timeout_ms) && timeout_ms > 0) {
    options.step_timeout_ms = timeout_ms;
  }
  absl::StatusOr<std::unique_ptr<ClusterSession>> session =
      ClusterSession::Create(def, options);
  if (!session.ok()) {
    err << "error: " << session.status().message() << "\n";
    return 1;
  }
  out << "graph: " << cli.Get("graph") << " (" << def.node_size()
      << " nodes) on the cluster " << cluster->ToString() << " ("
      << (*session)->device_names().size() << " devices)\n";
  for (const std::string& init : inits) {
    if (absl::Status s = (*session)->Run({}, {}, {init}, nullptr); !s.ok()) {
      err << "error: --init " << init << ": " << s.message() << "\n";
      return 1;
    }
    out << "init " << init << ": ran\n";
  }
  // --stats and --timeline: the last step's stats, every task's nodes.
  const bool timeline = cli.Has("timeline");
  RunOptions last_step_options;
  last_step_options.collect_step_stats = cli.GetBool("stats") || timeline;
  last_step_options.trace = timeline;
  RunMetadata metadata;
  std::vector<double> step_ms;
  for (int step = 1; step <= steps; ++step) {
    std::vector<Tensor> outputs;
    const auto start = std::chrono::steady_clock::now();
    absl::Status s =
        (*session)->Run(step == steps ? last_step_options : RunOptions(), feeds,
                        fetches, targets, &outputs, &metadata);
    step_ms.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    if (!s.ok()) {
      err << "error: " << (steps > 1 ? absl::StrCat("step ", step, ": ") : "")
          << s.message() << "\n";
      return 1;
    }
    const char* indent = steps > 1 ? "  " : "";
    if (steps > 1)
      out << absl::StrFormat("step %d: %.3f ms\n", step, step_ms.back());
    for (size_t i = 0; i < fetches.size(); ++i) {
      PrintFetch(fetches[i], outputs[i], indent, out);
    }
  }
  for (const std::string& target : targets) {
    out << "target " << target << ": ran" << (steps > 1 ? " each step" : "")
        << "\n";
  }
  if (steps > 1) out << StepTimesLine(step_ms);
  if (cli.GetBool("stats") && !step_ms.empty()) {
    PrintStepStats(metadata, step_ms.back(), out);
  }
  if (timeline && !WriteTimelineFile(metadata, cli.Get("timeline"), out, err)) {
    return 1;
  }
  return 0;
}

}  // namespace dflow
