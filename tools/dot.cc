#include "tools/dot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "formats/graph_file.h"
#include "graph/device_spec.h"
#include "graph/graph.h"
#include "graph/graph_def_file.h"
#include "tools/cli_args.h"
#include "tools/placement_flags.h"

extern char** environ;

namespace dflow {
namespace {

constexpr char kUsage[] =
    "Usage: dflow dot --graph FILE [--placed [--devices CPU:1,GPU:4] "
    "[--soft_placement]\n"
    "                 [--strict]] --out FILE.svg|FILE.dot\n\n"
    "Draws the graph with Graphviz: one box per node (its name within its\n"
    "scope, and its op), one cluster per name scope, data edges solid and\n"
    "control edges dashed. Nodes are filled by the device they request\n"
    "(white: none). With --placed the graph is first placed as `dflow place`\n"
    "does (same flags) and nodes are filled by the device they get;\n"
    "soft-placement fallbacks have a bold red border, and in the SVG each\n"
    "node's tooltip gives its request, device and the reason. A legend lists\n"
    "the colors. --out FILE.dot writes the DOT text; --out FILE.svg runs\n"
    "Graphviz's `dot -Tsvg` on it ($DFLOW_DOT names another binary): install\n"
    "graphviz (tools/setup.sh does) or write .dot. Output is deterministic.\n"
    "Exit code 0 on success, 1 if the graph cannot be read or placed or\n"
    "Graphviz fails, 2 for a usage error.\n\n";
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

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A new empty temporary file; its path in *path.
absl::Status MakeTemp(const std::string& stem, std::string* path) {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat(dir != nullptr && *dir ? dir : "/tmp", "/", stem, "XXXXXX");
  const int fd = mkstemp(pattern.data());
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot create a temporary file ", pattern, ": ",
                     std::strerror(errno)));
  }
  close(fd);
  *path = pattern;
  return absl::OkStatus();
}

constexpr char kInstallHint[] =
    "install graphviz (tools/setup.sh does; or apt-get install graphviz), or "
    "write the DOT text with --out FILE.dot";

// Runs `dot -Tsvg -o out_path` with `dot_text` on stdin.
absl::Status RenderSvg(const std::string& dot_text,
                       const std::string& out_path) {
  const char* env = std::getenv("DFLOW_DOT");
  const std::string binary = env != nullptr && *env ? env : "dot";
  std::string in_path, log_path;
  if (absl::Status s = MakeTemp("dflow_dot_in_", &in_path); !s.ok()) return s;
  if (absl::Status s = MakeTemp("dflow_dot_log_", &log_path); !s.ok()) {
    unlink(in_path.c_str());
    return s;
  }
  auto cleanup = [&] {
    unlink(in_path.c_str());
    unlink(log_path.c_str());
  };
  if (absl::Status s = WriteTextFile(in_path, dot_text); !s.ok()) {
    cleanup();
    return s;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, log_path.c_str(),
                                   O_WRONLY | O_TRUNC, 0);
  posix_spawn_file_actions_adddup2(&actions, 2, 1);
  std::vector<std::string> argv_strings = {binary, "-Tsvg", "-o", out_path};
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, binary.c_str(), &actions, nullptr,
                              argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    cleanup();
    if (rc == ENOENT) {
      return absl::NotFoundError(
          absl::StrCat("Graphviz's '", binary, "' was not found, so ", out_path,
                       " cannot be drawn: ", kInstallHint));
    }
    return absl::UnavailableError(absl::StrCat(
        "cannot run '", binary, "': ", std::strerror(rc), "; ", kInstallHint));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      cleanup();
      return absl::InternalError(
          absl::StrCat("waiting for '", binary, "': ", std::strerror(errno)));
    }
  }
  std::string log = ReadSmallFile(log_path);
  cleanup();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    return absl::NotFoundError(absl::StrCat(
        "Graphviz's '", binary, "' could not be run: ", kInstallHint));
  }
  while (!log.empty() && log.back() == '\n') log.pop_back();
  return absl::InternalError(absl::StrCat(
      "'", binary, " -Tsvg' failed (",
      WIFEXITED(status) ? absl::StrCat("exit code ", WEXITSTATUS(status))
                        : absl::StrCat("signal ", WTERMSIG(status)),
      ")", log.empty() ? "" : ": ", log));
}

}  // namespace

int RunDot(const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err) {
  std::vector<FlagSpec> flags = {
      {"graph",
       "GraphDef (.pb/.pbtxt), MetaGraphDef (.meta) or SavedModel "
       "(saved_model.pb or its directory); kind and encoding are read from "
       "the content"},
      {"placed",
       "place the graph first (as dflow place does, with the flags below) "
       "and fill nodes by assigned device instead of requested device",
       true}};
  for (FlagSpec& f : PlacementFlagSpecs()) {
    f.help += " (with --placed)";
    flags.push_back(std::move(f));
  }
  flags.push_back({"out",
                   "the picture: FILE.svg (drawn by Graphviz's dot) or "
                   "FILE.dot (the DOT text)"});
  CliArgs cli("dot", std::move(flags));
  if (std::optional<int> done = cli.ParseVerb(args, kUsage, out, err)) {
    return *done;
  }
  const std::string out_path = cli.Get("out");
  if (out_path.empty()) {
    err << "dflow dot: --out FILE.svg or --out FILE.dot is required (see "
           "dflow dot --help)\n";
    return 2;
  }
  const bool svg = absl::EndsWithIgnoreCase(out_path, ".svg");
  if (!svg && !absl::EndsWithIgnoreCase(out_path, ".dot")) {
    err << "dflow dot: --out '" << out_path
        << "' must end in .svg (a picture) or .dot (the DOT text)\n";
    return 2;
  }
  const bool placed = cli.GetBool("placed");
  if (!placed) {
    for (const char* flag : {"devices", "soft_placement", "strict"}) {
      if (cli.Has(flag)) {
        err << "dflow dot: --" << flag
            << " places the graph: add --placed (see dflow dot --help)\n";
        return 2;
      }
    }
  }
  PlacementFlags placement_flags;
  if (placed) {
    absl::StatusOr<PlacementFlags> parsed = ParsePlacementFlags(cli, "dot");
    if (!parsed.ok()) {
      err << parsed.status().message() << "\n";
      return 2;
    }
    placement_flags = *std::move(parsed);
  }

  // A GraphDef, a .meta or a SavedModel: its graph.
  absl::StatusOr<GraphDef> def = ReadGraphDefOfAnyFile(cli.Get("graph"));
  if (!def.ok()) {
    err << "error: " << def.status().message() << "\n";
    return 1;
  }
  std::optional<PlacementRecord> record;
  if (placed) {
    Graph graph;
    absl::StatusOr<PlacementRecord> placed_record =
        ImportAndPlace(*def, placement_flags, &graph);
    if (!placed_record.ok()) {
      err << "error: " << placed_record.status().message() << "\n";
      return 1;
    }
    record = *std::move(placed_record);
  }
  const std::string dot = GraphToDot(*def, record ? &*record : nullptr);
  absl::Status s =
      svg ? RenderSvg(dot, out_path) : WriteTextFile(out_path, dot);
  if (!s.ok()) {
    err << "error: " << s.message() << "\n";
    return 1;
  }
  out << "wrote " << out_path << ": " << def->node_size()
      << (def->node_size() == 1 ? " node" : " nodes");
  if (record) {
    out << " on " << record->device_counts_size() << " devices, "
        << record->num_soft_fallbacks() << " soft-placement fallback"
        << (record->num_soft_fallbacks() == 1 ? "" : "s");
  }
  out << "\n";
  return 0;
}

}  // namespace dflow
