#include "tools/place.h"

#include <fstream>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "compiler/placement_log.h"
#include "distributed/cluster_spec.h"
#include "distributed/remote_devices.h"
#include "formats/graph_file.h"
#include "graph/graph.h"
#include "graph/graph_def_file.h"
#include "tools/cli_args.h"
#include "tools/placement_flags.h"

namespace dflow {
namespace {

constexpr char kUsage[] =
    "Usage: dflow place --graph FILE [--devices CPU:1,GPU:4] "
    "[--soft_placement] [--strict]\n"
    "                   [--json OUT] [--cluster SPEC [--target "
    "grpc://HOST:PORT]\n"
    "                   [--cluster_timeout_ms N]]\n\n"
    "Places the graph on a device set without running it and prints where\n"
    "each node goes, one line per node in TensorFlow's log_device_placement\n"
    "format (NAME: (OP): DEVICE), then a summary: nodes per device and every\n"
    "soft-placement fallback with its reason. --devices simulates a device\n"
    "set, so a graph written for 4 GPUs can be checked on a machine without\n"
    "them. The default is this machine's devices, CPU:1: dflow has no GPU\n"
    "backend yet, so no real GPU is ever found.\n"
    "Exit code 0 on success, 1 if the graph cannot be read or placed (the\n"
    "error names the node, its request and the devices that exist), 2 for "
    "a\nusage error.\n"
    "--cluster SPEC (job=host:port,...) places over the devices of a running\n"
    "cluster instead: every task's `dflow worker` is asked for its devices\n"
    "(/job:worker/replica:0/task:1/device:CPU:0, ...), each within\n"
    "--cluster_timeout_ms (default 10000); a task that does not answer is an\n"
    "error naming it. Nodes that ask for no device go to the devices of the\n"
    "--target task (the master's, as a TensorFlow session's target; default\n"
    "the cluster's first task) when their type can run them.\n\n";

absl::Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    return absl::UnavailableError(
        absl::StrCat("cannot open ", path, " for writing"));
  }
  file << text;
  file.close();
  if (!file) {
    return absl::DataLossError(absl::StrCat("writing ", path, " failed"));
  }
  return absl::OkStatus();
}

}  // namespace

int RunPlace(const std::vector<std::string>& args, std::ostream& out,
             std::ostream& err) {
  std::vector<FlagSpec> flags = {
      {"graph",
       "GraphDef (.pb/.pbtxt), MetaGraphDef (.meta) or SavedModel "
       "(saved_model.pb or its directory); kind and encoding are read from "
       "the content"}};
  for (FlagSpec& f : PlacementFlagSpecs()) flags.push_back(std::move(f));
  flags.push_back({"json",
                   "also write the placement record (every node's request, "
                   "device, kind and reason) as JSON to this file"});
  flags.push_back({"cluster",
                   "place over the devices of this running cluster "
                   "(job=host:port,...; see dflow worker) instead of "
                   "--devices"});
  flags.push_back({"target",
                   "with --cluster: the master's task, grpc://host:port (or "
                   "host:port); default the cluster's first task"});
  flags.push_back({"cluster_timeout_ms",
                   "how long each task of --cluster may take to answer", false,
                   "10000"});
  CliArgs cli("place", std::move(flags));
  if (std::optional<int> done = cli.ParseVerb(args, kUsage, out, err)) {
    return *done;
  }
  if (cli.Has("json") && cli.Get("json").empty()) {
    err << "dflow place: --json needs a file name (see dflow place --help)\n";
    return 2;
  }
  absl::StatusOr<PlacementFlags> placement = ParsePlacementFlags(cli, "place");
  if (!placement.ok()) {
    err << placement.status().message() << "\n";
    return 2;
  }

  if (cli.Has("cluster")) {
    if (cli.Has("devices")) {
      err << "dflow place: --cluster and --devices both name the devices; "
             "give one\n";
      return 2;
    }
    absl::StatusOr<ClusterSpec> cluster =
        ClusterSpec::Parse(cli.Get("cluster"));
    if (!cluster.ok()) {
      err << "dflow place: --cluster: " << cluster.status().message() << "\n";
      return 2;
    }
    int timeout_ms = 0;
    if (!absl::SimpleAtoi(cli.Get("cluster_timeout_ms"), &timeout_ms) ||
        timeout_ms < 1) {
      err << "dflow place: --cluster_timeout_ms must be a positive number of "
             "milliseconds, got '"
          << cli.Get("cluster_timeout_ms") << "'\n";
      return 2;
    }
    absl::StatusOr<ClusterTask> target =
        TargetTask(*cluster, cli.Get("target"));
    if (!target.ok()) {
      err << "dflow place: --target: " << target.status().message() << "\n";
      return 2;
    }
    absl::StatusOr<std::vector<DeviceAttributesProto>> found =
        DiscoverClusterDevices(*cluster, absl::Milliseconds(timeout_ms));
    if (!found.ok()) {
      err << "error: " << found.status().message() << "\n";
      return 1;
    }
    absl::StatusOr<std::vector<PlacementDevice>> devices =
        ClusterPlacementDevices(*found, *target);
    if (!devices.ok()) {
      err << "error: " << devices.status().message() << "\n";
      return 1;
    }
    placement->devices = *std::move(devices);
  }

  // A GraphDef, a .meta or a SavedModel: its graph.
  absl::StatusOr<GraphDef> def = ReadGraphDefOfAnyFile(cli.Get("graph"));
  if (!def.ok()) {
    err << "error: " << def.status().message() << "\n";
    return 1;
  }
  Graph graph;
  absl::StatusOr<PlacementRecord> record =
      ImportAndPlace(*def, *placement, &graph);
  if (!record.ok()) {
    err << "error: " << record.status().message() << "\n";
    return 1;
  }
  out << FormatPlacementLog(*record);
  if (cli.Has("json")) {
    absl::StatusOr<std::string> json = PlacementRecordToJson(*record);
    absl::Status s =
        json.ok() ? WriteTextFile(cli.Get("json"), *json) : json.status();
    if (!s.ok()) {
      err << "error: --json: " << s.message() << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace dflow
