#include "tools/run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "graph/graph_def_file.h"
#include "graph/npy.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/session.h"
#include "tools/cli_args.h"
#include "tools/tensor_summary.h"
#include "tools/timeline.h"

namespace dflow {
namespace {

constexpr char kUsage[] =
    "Usage: dflow run --graph FILE [--feed NAME=FILE.npy ...] "
    "--fetch NAME[:i] ...\n"
    "                 [--target NAME ...] [--init NAME ...] [--out DIR] "
    "[--threads N] [--stats]\n"
    "                 [--devices CPU:N,GPU:M] [--soft_placement] "
    "[--log_device_placement]\n"
    "                 [--timeline FILE] [--memory] [--dump_passes DIR]\n"
    "                 [--no_optimize] [--disable_pass NAME ...]\n\n"
    "Runs the graph once and prints every fetched tensor: dtype,\n"
    "shape, the first values and, for floats, min/max/mean. Feeds are NumPy\n"
    ".npy files (np.save(path, a.astype(np.float32)) for a float "
    "placeholder).\n"
    "With --out DIR each fetch is also written as DIR/<fetch>.npy, '/' and "
    "':'\nin its name replaced by '_' (layer1/Relu:0 -> "
    "layer1_Relu_0.npy).\n"
    "With --timeline FILE the step's trace is written to FILE as Chrome "
    "trace\nJSON: open it in chrome://tracing or https://ui.perfetto.dev "
    "(one process\nper device, ops named by type, transfers as arrows).\n"
    "With --dump_passes DIR the graph after pruning and after every compiler\n"
    "pass is written to DIR/sig_<k>/ (one folder per compiled signature: the\n"
    "--init steps, then the run) as <n>_<pass>.pbtxt and .dot, and each\n"
    "pass's one-line summary (nodes removed, fused, folded; time) is printed\n"
    "and kept in passes.txt.\n"
    "With --memory each device's planned peak (memory planning's figure for\n"
    "the step's intermediate tensors) is printed beside the peak its\n"
    "allocator measured (which also counts constants and variables).\n"
    "Exit code 0 on success, 1 if the graph, a feed or the run fails, 2 for "
    "a\nusage error.\n\n";

struct Feed {
  std::string name;
  std::string path;
};

// "NAME=FILE" -> Feed. Node names cannot hold '=', file names can: split at
// the first one.
absl::StatusOr<Feed> ParseFeedFlag(const std::string& flag) {
  const size_t eq = flag.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == flag.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("dflow run: --feed '", flag,
                     "' is not NAME=FILE.npy (e.g. --feed input/x=batch.npy)"));
  }
  return Feed{flag.substr(0, eq), flag.substr(eq + 1)};
}

// For a feed of a placeholder, checks its dtype here, where the error can
// name the file and say how to convert it; the session checks the rest.
absl::Status CheckFeedDtype(const GraphDef& def, const Feed& feed,
                            const Tensor& value) {
  std::string node = feed.name;
  if (size_t colon = node.rfind(':'); colon != std::string::npos) {
    if (node.substr(colon + 1) != "0") return absl::OkStatus();
    node.resize(colon);
  }
  for (const NodeDef& n : def.node()) {
    if (n.name() != node || n.op() != "Placeholder") continue;
    auto it = n.attr().find("dtype");
    if (it == n.attr().end() || it->second.type() == value.dtype()) break;
    const std::string want = NumpyTypeName(it->second.type());
    return absl::InvalidArgumentError(
        absl::StrCat("feed '", feed.name, "' from '", feed.path, "' holds ",
                     NumpyTypeName(value.dtype()), " values but placeholder '",
                     node, "' is ", want, "; save the array as ", want,
                     " (np.save(path, a.astype(np.", want, ")))"));
  }
  return absl::OkStatus();
}

void PrintStepStats(const RunMetadata& metadata, double wall_ms,
                    std::ostream& out) {
  std::vector<const NodeExecStats*> nodes;
  int64_t first_start = 0, last_end = 0;
  for (const NodeExecStats& s : metadata.step_stats) {
    if (nodes.empty() || s.start_us < first_start) first_start = s.start_us;
    last_end = std::max(last_end, s.end_us);
    nodes.push_back(&s);
  }
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const auto* a, const auto* b) {
                     const int64_t ta = a->end_us - a->start_us,
                                   tb = b->end_us - b->start_us;
                     return ta != tb ? ta > tb : a->node < b->node;
                   });
  out << absl::StrFormat(
      "step stats: %d nodes ran, %.3f ms from first start to last end, "
      "%.3f ms in Session::Run\n",
      nodes.size(), (last_end - first_start) / 1000.0, wall_ms);
  const size_t shown = std::min<size_t>(nodes.size(), 10);
  out << "  top " << shown << " nodes by time:\n";
  out << absl::StrFormat("  %10s  %-16s %-32s %s\n", "time (us)", "op", "node",
                         "output");
  for (size_t i = 0; i < shown; ++i) {
    const NodeExecStats& s = *nodes[i];
    std::string shapes;
    for (const TensorShape& shape : s.output_shapes) {
      absl::StrAppend(&shapes, shapes.empty() ? "" : " ", shape.ToString());
    }
    if (shapes.empty()) shapes = "-";
    out << absl::StrFormat("  %10d  %-16s %-32s %s (%d bytes)\n",
                           s.end_us - s.start_us, s.op, s.node, shapes,
                           s.output_bytes);
  }
  out << "peak memory:\n";
  for (const auto& [device, bytes] : metadata.peak_bytes) {
    out << absl::StrFormat("  %-48s %12d bytes (%.1f KiB)\n", device, bytes,
                           bytes / 1024.0);
  }
}

void PrintMemory(const RunMetadata& metadata, std::ostream& out) {
  out << "memory (planned: intermediates as memory planning scheduled them; "
         "measured: the allocator's peak, with constants and variables):\n";
  for (const auto& [device, bytes] : metadata.peak_bytes) {
    std::string planned = "n/a (not planned: optimization off, or sizes "
                          "unknown until run time)";
    for (const auto& [planned_device, planned_bytes] :
         metadata.planned_peak_bytes) {
      if (planned_device == device) {
        planned = absl::StrFormat("%d bytes (%.1f KiB)", planned_bytes,
                                  planned_bytes / 1024.0);
      }
    }
    out << absl::StrFormat("  %s\n    planned peak  %s\n    measured peak "
                           "%d bytes (%.1f KiB)\n",
                           device, planned, bytes, bytes / 1024.0);
  }
}

// Prints every signature's passes.txt under `dir` (sig_0, sig_1, ...).
absl::Status PrintPassDumps(const std::string& dir, std::ostream& out) {
  for (int k = 0;; ++k) {
    const std::string sig = absl::StrCat(dir, "/sig_", k);
    std::ifstream in(sig + "/passes.txt");
    if (!in) {
      if (k == 0) {
        return absl::NotFoundError(
            absl::StrCat("no pass dump was written under ", dir));
      }
      return absl::OkStatus();
    }
    out << "passes (graphs in " << sig << "/):\n";
    std::string line;
    while (std::getline(in, line)) out << "  " << line << "\n";
  }
}

}  // namespace

std::string NpyFileNameForFetch(absl::string_view fetch) {
  return absl::StrCat(absl::StrReplaceAll(fetch, {{"/", "_"}, {":", "_"}}),
                      ".npy");
}

int RunRun(const std::vector<std::string>& args, std::ostream& out,
           std::ostream& err) {
  CliArgs cli(
      "run",
      {{"graph",
        "GraphDef file, binary (.pb) or text (.pbtxt); the format "
        "is read from the content"},
       {"feed",
        "NAME=FILE.npy: feed tensor NAME ('node' or 'node:i', usually a "
        "placeholder) with the array in FILE; repeatable"},
       {"fetch",
        "NAME[:i]: a tensor to compute, print and (with --out) save; "
        "repeatable"},
       {"target", "NAME: a node to run for its effects only; repeatable"},
       {"init",
        "NAME: a node run once, in a step of its own, before the fetches "
        "(e.g. the variables initializer); repeatable"},
       {"out", "directory for DIR/<fetch>.npy files; created if missing"},
       {"threads", "worker threads (0: one per core)", false, "0"},
       {"devices",
        "the session's devices, e.g. CPU:2,GPU:4 (CPUs are logical devices "
        "sharing the cores; GPUs are host-memory stand-ins until dflow has "
        "a GPU backend)",
        false, "CPU:1"},
       {"soft_placement",
        "a node asking for a missing device (e.g. /gpu:3 on a CPU-only "
        "machine) runs on the best device left instead of failing",
        true},
       {"log_device_placement",
        "print the device mapping, each node's device and a placement "
        "summary (to stderr)",
        true},
       {"stats", "per-node step stats (top 10 by time) and peak memory", true},
       {"timeline",
        "FILE: write the step's timeline as Chrome trace JSON (for "
        "chrome://tracing or ui.perfetto.dev)"},
       {"memory",
        "print each device's planned and measured peak memory of the step",
        true},
       {"dump_passes",
        "DIR: write the graph after every compiler pass (.pbtxt and .dot) "
        "and print what each pass did"},
       {"no_optimize", "run the graph exactly as built: no compiler passes",
        true},
       {"disable_pass",
        "NAME: skip one compiler pass (constant_folding, cse, ...; an "
        "unknown name lists them); repeatable"}});
  if (std::optional<int> done = cli.ParseVerb(args, kUsage, out, err)) {
    return *done;
  }
  const std::vector<std::string> fetches = cli.GetAll("fetch");
  const std::vector<std::string> targets = cli.GetAll("target");
  if (fetches.empty() && targets.empty()) {
    err << "dflow run: give at least one --fetch NAME (or --target NAME); "
           "see dflow run --help\n";
    return 2;
  }
  SessionOptions session_options;
  if (!absl::SimpleAtoi(cli.Get("threads"), &session_options.num_threads) ||
      session_options.num_threads < 0) {
    err << "dflow run: --threads must be a non-negative integer, not '"
        << cli.Get("threads") << "'\n";
    return 2;
  }
  absl::StatusOr<DeviceSet::Options> devices =
      DeviceSet::Options::Parse(cli.Get("devices"));
  if (!devices.ok()) {
    err << "dflow run: --devices: " << devices.status().message() << "\n";
    return 2;
  }
  session_options.device_count["CPU"] = devices->num_cpus;
  session_options.fake_gpus = devices->num_fake_gpus;
  session_options.allow_soft_placement = cli.GetBool("soft_placement");
  session_options.log_device_placement = cli.GetBool("log_device_placement");
  session_options.optimize_graph = !cli.GetBool("no_optimize");
  session_options.disabled_passes = cli.GetAll("disable_pass");
  session_options.dump_passes_dir = cli.Get("dump_passes");
  std::vector<Feed> feeds;
  for (const std::string& flag : cli.GetAll("feed")) {
    absl::StatusOr<Feed> feed = ParseFeedFlag(flag);
    if (!feed.ok()) {
      err << feed.status().message() << "\n";
      return 2;
    }
    feeds.push_back(*std::move(feed));
  }
  // Two fetches must not overwrite each other's file ("a/b" and "a_b").
  const bool write = cli.Has("out");
  const std::string out_dir = cli.Get("out");
  std::map<std::string, std::string> file_owner;  // file name -> fetch
  for (const std::string& fetch : fetches) {
    auto [it, inserted] = file_owner.emplace(NpyFileNameForFetch(fetch), fetch);
    if (write && !inserted && it->second != fetch) {
      err << "dflow run: fetches '" << it->second << "' and '" << fetch
          << "' would both be written to " << it->first
          << "; fetch only one of them\n";
      return 2;
    }
  }

  absl::StatusOr<GraphDef> def = ReadGraphDefFile(cli.Get("graph"));
  if (!def.ok()) {
    err << "error: " << def.status().message() << "\n";
    return 1;
  }
  FeedList feed_list;
  for (const Feed& feed : feeds) {
    absl::StatusOr<Tensor> value = ReadNpyFile(feed.path);
    if (!value.ok()) {
      err << "error: --feed " << feed.name << ": " << value.status().message()
          << "\n";
      return 1;
    }
    if (absl::Status s = CheckFeedDtype(*def, feed, *value); !s.ok()) {
      err << "error: " << s.message() << "\n";
      return 1;
    }
    feed_list.emplace_back(feed.name, *std::move(value));
  }
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(*def, session_options);
  if (!session.ok()) {
    err << "error: " << session.status().message() << "\n";
    return 1;
  }
  // Initializers run in a step of their own: in one step with the fetches
  // nothing would order the variables' reads after their Assigns.
  for (const std::string& init : cli.GetAll("init")) {
    if (absl::Status s = (*session)->Run({}, {}, {init}, nullptr); !s.ok()) {
      err << "error: --init " << init << ": " << s.message() << "\n";
      return 1;
    }
    out << "init " << init << ": ran\n";
  }
  const bool timeline = cli.Has("timeline");
  RunOptions run_options;
  run_options.collect_step_stats = cli.GetBool("stats") || timeline;
  run_options.trace = timeline;
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  const auto start = std::chrono::steady_clock::now();
  absl::Status run = (*session)->Run(run_options, feed_list, fetches, targets,
                                     &outputs, &metadata);
  const double wall_ms = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  if (!run.ok()) {
    err << "error: " << run.message() << "\n";
    return 1;
  }

  out << "graph: " << cli.Get("graph") << " (" << def->node_size()
      << " nodes)\n";
  for (size_t i = 0; i < feeds.size(); ++i) {
    out << "feed " << feeds[i].name << ": "
        << DescribeTensorType(feed_list[i].second) << " from " << feeds[i].path
        << "\n";
  }
  for (const std::string& target : targets)
    out << "target " << target << ": ran\n";
  if (write) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) {
      err << "error: cannot create --out directory '" << out_dir
          << "': " << ec.message() << "\n";
      return 1;
    }
  }
  int failed_writes = 0;
  for (size_t i = 0; i < fetches.size(); ++i) {
    const Tensor& t = outputs[i];
    out << "fetch " << fetches[i] << ": " << DescribeTensorType(t) << "\n";
    out << "  values: " << PreviewTensorValues(t) << "\n";
    if (std::string stats = FloatTensorStats(t); !stats.empty()) {
      out << "  " << stats << "\n";
    }
    if (!write) continue;
    const std::string path =
        (std::filesystem::path(out_dir) / NpyFileNameForFetch(fetches[i]))
            .string();
    if (absl::Status s = WriteNpyFile(path, t); !s.ok()) {
      err << "error: fetch " << fetches[i] << ": " << s.message() << "\n";
      ++failed_writes;
      continue;
    }
    out << "  wrote " << path << "\n";
  }
  if (cli.GetBool("stats")) PrintStepStats(metadata, wall_ms, out);
  if (cli.GetBool("memory")) PrintMemory(metadata, out);
  if (cli.Has("dump_passes")) {
    if (absl::Status s = PrintPassDumps(cli.Get("dump_passes"), out);
        !s.ok()) {
      err << "error: --dump_passes: " << s.message() << "\n";
      return 1;
    }
  }
  if (timeline) {
    const std::string path = cli.Get("timeline");
    if (absl::Status s = WriteChromeTrace(metadata, path); !s.ok()) {
      err << "error: --timeline: " << s.message() << "\n";
      return 1;
    }
    out << "timeline: wrote " << path << " (" << metadata.step_stats.size()
        << " nodes; open it in chrome://tracing or ui.perfetto.dev)\n";
  }
  return failed_writes > 0 ? 1 : 0;
}

}  // namespace dflow
