#include "tools/place.h"

#include <fstream>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "compiler/placement_log.h"
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
  std::vector<FlagSpec> flags = {
      {"graph",
       "GraphDef (.pb/.pbtxt), MetaGraphDef (.meta) or SavedModel "
       "(saved_model.pb or its directory); kind and encoding are read from "
       "the content"}};
  for (FlagSpec& f : PlacementFlagSpecs()) flags.push_back(std::move(f));
  flags.push_back({"json",
                   "also write the placement record (every node's request, "
                   "device, kind and reason) as JSON to this file"});
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
