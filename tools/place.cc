#include "tools/place.h"

#include <fstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "compiler/placement_device.h"
#include "compiler/placement_log.h"
#include "compiler/placer.h"
#include "graph/graph.h"
#include "graph/graph_def_file.h"
#include "graph/graph_def_import.h"
#include "runtime/placement_bridge.h"
#include "tools/cli_args.h"

namespace dflow {
namespace {

constexpr char kUsage[] =
    "Usage: dflow place --graph FILE [--devices CPU:1,GPU:4] "
    "[--soft_placement] [--strict]\n"
    "                   [--json OUT]\n\n"
    "Places the graph on a device set without running it and prints where\n"
    "each node goes, one line per node in TensorFlow's log_device_placement\n"
    "format (NAME: (OP): DEVICE), then a summary: nodes per device and every\n"
    "soft-placement fallback with its reason. --devices simulates a device\n"
    "set, so a graph written for 4 GPUs can be checked on a machine without\n"
    "them. The default is this machine's devices, CPU:1: dflow has no GPU\n"
    "backend yet, so no real GPU is ever found.\n"
    "Exit code 0 on success, 1 if the graph cannot be read or placed (the\n"
    "error names the node, its request and the devices that exist), 2 for "
    "a\nusage error.\n\n";

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
  CliArgs cli(
      "place",
      {{"graph",
        "GraphDef file, binary (.pb) or text (.pbtxt); the format is read "
        "from the content"},
       {"devices",
        "the device set to place on, e.g. CPU:1,GPU:4 (simulated: the "
        "devices need not exist; default: this machine's devices, CPU:1, as "
        "dflow has no GPU backend yet)",
        false, "CPU:1"},
       {"soft_placement",
        "a node asking for a missing device (e.g. /gpu:3 with two GPUs) or "
        "a type with no kernel for its op goes to the best device left "
        "instead of failing (TensorFlow's allow_soft_placement)",
        true},
       {"strict",
        "fail on any soft-placement fallback or request overruled by "
        "colocation, even with --soft_placement",
        true},
       {"json",
        "also write the placement record (every node's request, device, "
        "kind and reason) as JSON to this file"}});
  if (absl::Status s = cli.Parse(args); !s.ok()) {
    err << s.message() << "\n";
    return 2;
  }
  if (cli.help_requested()) {
    out << kUsage << cli.FlagHelp();
    return 0;
  }
  if (!cli.Has("graph")) {
    err << "dflow place: --graph FILE is required (see dflow place --help)\n";
    return 2;
  }
  if (cli.Has("json") && cli.Get("json").empty()) {
    err << "dflow place: --json needs a file name (see dflow place --help)\n";
    return 2;
  }
  absl::StatusOr<std::vector<PlacementDevice>> devices =
      ParseSimulatedDevices(cli.Get("devices"));
  if (!devices.ok()) {
    err << "dflow place: --devices: " << devices.status().message() << "\n";
    return 2;
  }
  if (devices->empty()) {
    err << "dflow place: --devices '" << cli.Get("devices")
        << "' has no devices (e.g. --devices CPU:1,GPU:4)\n";
    return 2;
  }

  absl::StatusOr<GraphDef> def = ReadGraphDefFile(cli.Get("graph"));
  if (!def.ok()) {
    err << "error: " << def.status().message() << "\n";
    return 1;
  }
  Graph graph;
  if (absl::Status s = ImportGraphDef(*def, ImportOptions(), &graph); !s.ok()) {
    err << "error: " << s.message() << "\n";
    return 1;
  }
  PlacerOptions options;
  options.allow_soft_placement = cli.GetBool("soft_placement");
  options.strict = cli.GetBool("strict");
  RegistryKernelQuery kernels;
  absl::StatusOr<PlacementRecord> record =
      PlaceGraph(&graph, *devices, kernels, options);
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
