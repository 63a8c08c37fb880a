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

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "formats/event_file_writer.h"
#include "formats/graph_file.h"
#include "formats/saved_model.h"
#include "formats/subgraph.h"
#include "graph/graph_def_file.h"
#include "graph/npy.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "runtime/cuda_device_count.h"
#include "runtime/queue_runner.h"
#include "runtime/saved_model_loader.h"
#include "runtime/saver.h"
#include "runtime/session.h"
#include "runtime/thread_pool.h"
#include "tools/cli_args.h"
#include "tools/run_cluster.h"
#include "tools/step_stats_report.h"
#include "tools/tensor_summary.h"

namespace dflow {
namespace {

// --devices GPU:M: M real GPUs where the machine has them (the first M; GPU
// 0 split into virtual GPUs so that there are M where it has fewer), M
// host-memory stand-ins where it has none (placement and partitioning
// across GPUs can be tried on any machine).
// Without GPU in the list, every GPU the machine has; GPU:0 is none.
void ChooseGpus(bool named, int requested, int physical,
                SessionOptions* options) {
  if (!named) return;
  if (requested == 0) {
    options->device_count["GPU"] = 0;
  } else if (physical == 0) {
    options->fake_gpus = requested;
  } else if (requested <= physical) {
    options->device_count["GPU"] = requested;
  } else {
    options->gpu_virtual_devices = requested - physical + 1;
  }
}

constexpr char kUsage[] =
    "Usage: dflow run --graph FILE [--feed NAME=FILE.npy ...] "
    "--fetch NAME[:i] ...\n"
    "       dflow run --saved_model DIR [--tag serve] [--signature "
    "serving_default]\n"
    "                 --feed KEY=FILE.npy ... [--fetch KEY ...]\n"
    "       both:     [--steps N] [--timeout_ms N] [--memory_limit BYTES] "
    "[--restore PREFIX] [--save PREFIX]\n"
    "                 [--target NAME ...] [--init NAME ...] [--out DIR] "
    "[--threads N] [--stats]\n"
    "                 [--devices CPU:N,GPU:M] [--soft_placement] "
    "[--log_device_placement]\n"
    "                 [--timeline FILE] [--memory] [--dump_passes DIR]\n"
    "                 [--no_optimize] [--disable_pass NAME ...] "
    "[--no_queue_runners]\n"
    "                 [--summary_dir DIR] [--summary NAME ...]\n\n"
    "--graph takes a GraphDef (.pb/.pbtxt), a MetaGraphDef (.meta, e.g.\n"
    "model.ckpt-100.meta) or a SavedModel file; the kind is read from the\n"
    "content. Of a .meta or SavedModel only the nodes the fetches, targets,\n"
    "--init and --restore need are loaded (TensorFlow's saver and summary\n"
    "ops need no dflow kernel then).\n"
    "--saved_model DIR loads a TF1 SavedModel as TensorFlow's loader does\n"
    "(restores DIR/variables/variables, runs the main op) and calls one\n"
    "signature: feeds and fetches are its input and output keys; without\n"
    "--fetch every output is fetched.\n"
    "--steps N runs the fetches and targets N times in one session, printing\n"
    "each step's fetches and time, then the median time of the warm steps\n"
    "(all but the first). --restore PREFIX loads variables before the first\n"
    "step: with the graph's own restore op when the graph is a .meta with a\n"
    "saver, else with dflow's Saver. --save PREFIX writes every variable\n"
    "with dflow's Saver after the last step. Both are TensorFlow V2\n"
    "checkpoints (PREFIX.index, PREFIX.data-*).\n"
    "A .meta's queue runners (its input pipeline) start after --init and\n"
    "--restore and stop after the last step; a step that finds the input\n"
    "queues exhausted (OutOfRange) ends the run normally, as does a step\n"
    "whose tf.data iterator is at the end of its sequence.\n"
    "--summary_dir DIR writes an event file TensorBoard reads: the graph\n"
    "and, each step, the summary tensors (--summary, or a .meta's\n"
    "summaries collection) at that step.\n\n"
    "Runs the graph and prints every fetched tensor: dtype,\n"
    "shape, the first values and, for floats, min/max/mean. Feeds are NumPy\n"
    ".npy files (np.save(path, a.astype(np.float32)) for a float "
    "placeholder;\nbytes or str arrays for a string one, str as UTF-8).\n"
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

void PrintMemory(const RunMetadata& metadata, std::ostream& out) {
  out << "memory (planned: intermediates as memory planning scheduled them; "
         "measured: the allocator's peak, with constants and variables):\n";
  for (const auto& [device, bytes] : metadata.peak_bytes) {
    std::string planned =
        "n/a (not planned: optimization off, or sizes "
        "unknown until run time)";
    for (const auto& [planned_device, planned_bytes] :
         metadata.planned_peak_bytes) {
      if (planned_device == device) {
        planned = absl::StrFormat("%d bytes (%.1f KiB)", planned_bytes,
                                  planned_bytes / 1024.0);
      }
    }
    out << absl::StrFormat(
        "  %s\n    planned peak  %s\n    measured peak "
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
        "GraphDef (.pb/.pbtxt), MetaGraphDef (.meta) or SavedModel file; "
        "kind and encoding are read from the content"},
       {"saved_model",
        "DIR: a TensorFlow SavedModel directory (saved_model.pb + "
        "variables/); feeds and fetches are signature keys"},
       {"tag",
        "with --saved_model: the meta graph's tags, comma-separated or "
        "repeated",
        false, "serve"},
       {"signature", "with --saved_model: the signature to call", false,
        "serving_default"},
       {"feed",
        "NAME=FILE.npy: feed tensor NAME ('node' or 'node:i', usually a "
        "placeholder; a signature input key with --saved_model) with the "
        "array in FILE; repeatable"},
       {"fetch",
        "NAME[:i]: a tensor to compute, print and (with --out) save (a "
        "signature output key with --saved_model); repeatable"},
       {"target", "NAME: a node to run for its effects only; repeatable"},
       {"init",
        "NAME: a node run once, in a step of its own, before the fetches "
        "(e.g. the variables initializer); repeatable"},
       {"steps",
        "run the fetches and targets this many times in one session; "
        "prints each step and the warm median step time",
        false, "1"},
       {"timeout_ms",
        "end a step that runs longer than this with DeadlineExceeded (a "
        "loop that never ends); 0: no limit",
        false, "0"},
       {"memory_limit",
        "the bytes each device (CPU, fake GPU) may hold at once, e.g. 2GB, "
        "512MiB or 1000000; a step that asks for more fails with "
        "ResourceExhausted naming the node; 0: the machine's memory",
        false, "0"},
       {"restore",
        "PREFIX: restore variables before the first step (the .meta's "
        "restore op if it has a saver, else dflow's Saver)"},
       {"save",
        "PREFIX: save every variable (dflow's Saver) after the last "
        "step"},
       {"out", "directory for DIR/<fetch>.npy files; created if missing"},
       {"threads", "worker threads (0: one per core)", false, "0"},
       {"devices",
        "the session's devices, e.g. CPU:2,GPU:4 (CPUs are logical devices "
        "sharing the cores; GPU:M is M of this machine's GPUs, GPU 0 split "
        "into virtual GPUs where it has fewer, or M host-memory stand-ins "
        "where it has none; GPU:0 none; without GPU every GPU it has)",
        false, "CPU:1"},
       {"soft_placement",
        "a node asking for a missing device (e.g. /gpu:3 on a CPU-only "
        "machine) runs on the best device left instead of failing",
        true},
       {"log_device_placement",
        "print the device mapping, each node's device and a placement "
        "summary (to stderr)",
        true},
       {"summary_dir",
        "DIR: write an event file for TensorBoard there: the graph, and "
        "each step's summaries",
        false},
       {"summary",
        "NAME: a summary tensor (e.g. a MergeSummary) to write each step "
        "(repeatable; default: the .meta's 'summaries' collection)",
        false},
       {"no_queue_runners",
        "do not start the queue runners of a .meta (started by default "
        "after --init and --restore, stopped after the last step)",
        true},
       {"stats",
        "per-node step stats (top 10 by time) and peak memory of the last "
        "step",
        true},
       {"timeline",
        "FILE: write the last step's timeline as Chrome trace JSON (for "
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
        "unknown name lists them); repeatable"},
       {"cluster",
        "SPEC: run on this running cluster (job=host:port,...; see dflow "
        "worker): the graph names its tasks' devices"},
       {"master",
        "with --cluster: the task holding the feeds and fetches, "
        "grpc://host:port (default: the cluster's first task)"}});
  if (std::optional<int> done = cli.ParseVerb(args, kUsage, out, err)) {
    return *done;
  }
  const bool saved_model = cli.Has("saved_model");
  if (saved_model && cli.Has("graph")) {
    err << "dflow run: give --graph FILE or --saved_model DIR, not both\n";
    return 2;
  }
  if (saved_model && (cli.Has("target") || cli.Has("init"))) {
    err << "dflow run: --target and --init name graph nodes; with "
           "--saved_model feed and fetch signature keys (or load the "
           "SavedModel's graph with --graph DIR/saved_model.pb)\n";
    return 2;
  }
  if (!saved_model && (cli.Has("tag") || cli.Has("signature"))) {
    err << "dflow run: --tag and --signature go with --saved_model DIR\n";
    return 2;
  }
  if (saved_model && cli.Has("restore")) {
    err << "dflow run: a SavedModel restores its own variables; --restore "
           "goes with --graph\n";
    return 2;
  }
  std::vector<std::string> fetches = cli.GetAll("fetch");
  const std::vector<std::string> targets = cli.GetAll("target");
  if (!saved_model && fetches.empty() && targets.empty()) {
    err << "dflow run: give at least one --fetch NAME (or --target NAME); "
           "see dflow run --help\n";
    return 2;
  }
  int steps = 1;
  if (!absl::SimpleAtoi(cli.Get("steps"), &steps) || steps < 1) {
    err << "dflow run: --steps must be a positive integer, not '"
        << cli.Get("steps") << "'\n";
    return 2;
  }
  int64_t timeout_ms = 0;
  if (!absl::SimpleAtoi(cli.Get("timeout_ms"), &timeout_ms) || timeout_ms < 0) {
    err << "dflow run: --timeout_ms must be a non-negative integer, not '"
        << cli.Get("timeout_ms") << "'\n";
    return 2;
  }
  SessionOptions session_options;
  absl::StatusOr<int64_t> memory_limit = ParseByteSize(cli.Get("memory_limit"));
  if (!memory_limit.ok()) {
    err << "dflow run: --memory_limit: " << memory_limit.status().message()
        << "\n";
    return 2;
  }
  session_options.memory_limit_bytes = *memory_limit;
  if (!absl::SimpleAtoi(cli.Get("threads"), &session_options.num_threads) ||
      session_options.num_threads < 0 ||
      session_options.num_threads > ThreadPool::kMaxThreads) {
    err << "dflow run: --threads must be an integer from 0 (one per core) to "
        << ThreadPool::kMaxThreads << ", not '" << cli.Get("threads") << "'\n";
    return 2;
  }
  absl::StatusOr<DeviceSet::Options> devices =
      DeviceSet::Options::Parse(cli.Get("devices"));
  if (!devices.ok()) {
    err << "dflow run: --devices: " << devices.status().message() << "\n";
    return 2;
  }
  session_options.device_count["CPU"] = devices->num_cpus;
  ChooseGpus(
      absl::StrContains(absl::AsciiStrToUpper(cli.Get("devices")), "GPU"),
      devices->num_fake_gpus, CountCudaDevices(), &session_options);
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

  std::vector<Tensor> feed_values;
  for (const Feed& feed : feeds) {
    absl::StatusOr<Tensor> value = ReadNpyFile(feed.path);
    if (!value.ok()) {
      err << "error: --feed " << feed.name << ": " << value.status().message()
          << "\n";
      return 1;
    }
    feed_values.push_back(*std::move(value));
  }

  if (cli.Has("cluster")) {
    for (const std::string& flag : FlagsNotForClusters()) {
      if (cli.Has(flag)) {
        err << "dflow run: --" << flag << " does not work with --cluster yet\n";
        return 2;
      }
    }
    std::vector<std::pair<std::string, Tensor>> cluster_feeds;
    for (size_t i = 0; i < feeds.size(); ++i) {
      cluster_feeds.emplace_back(feeds[i].name, feed_values[i]);
    }
    return RunOnCluster(cli, cluster_feeds, steps, out, err);
  }
  if (cli.Has("master")) {
    err << "dflow run: --master goes with --cluster\n";
    return 2;
  }

  // What the steps run: a session, its graph, feeds by tensor name and
  // fetches by tensor name (`fetches` keeps the names the user gave).
  std::unique_ptr<Session> session;
  GraphDef def;
  std::string header;
  FeedList feed_list;
  std::vector<std::string> fetch_tensors;
  std::optional<SaverDef> graph_saver;
  // A .meta's input pipeline (start_queue_runners): started before the
  // steps, stopped after them.
  std::vector<QueueRunnerDef> queue_runner_defs;
  // Summary tensors written to --summary_dir each step: --summary, else the
  // .meta's "summaries" collection.
  std::vector<std::string> summary_tensors = cli.GetAll("summary");
  if (saved_model) {
    const std::string dir = cli.Get("saved_model");
    std::vector<std::string> tags;
    for (const std::string& flag : cli.GetAll("tag")) {
      for (absl::string_view t : absl::StrSplit(flag, ',', absl::SkipEmpty()))
        tags.emplace_back(t);
    }
    if (tags.empty()) tags = {cli.Get("tag")};
    absl::StatusOr<SavedModelBundle> bundle =
        LoadSavedModel(dir, tags, session_options);
    if (!bundle.ok()) {
      err << "error: " << bundle.status().message() << "\n";
      return 1;
    }
    const std::string signature = cli.Get("signature");
    std::map<std::string, Tensor> inputs;
    for (size_t i = 0; i < feeds.size(); ++i) {
      inputs[feeds[i].name] = feed_values[i];
    }
    absl::StatusOr<SignatureCall> call = PrepareSignatureCall(
        bundle->meta_graph.meta_graph, signature, inputs, fetches);
    if (!call.ok()) {
      err << "error: SavedModel '" << dir << "': " << call.status().message()
          << "\n";
      return 1;
    }
    feed_list = call->feeds;
    fetches = call->output_keys;
    fetch_tensors = call->fetches;
    def = bundle->graph_def;
    header = absl::StrCat("saved model: ", dir, " ", TagSetString(tags),
                          ", signature ", signature, " (", def.node_size(),
                          " nodes loaded)");
    session = std::move(bundle->session);
  } else {
    absl::StatusOr<GraphFile> file = ReadGraphFile(cli.Get("graph"));
    if (!file.ok()) {
      err << "error: " << file.status().message() << "\n";
      return 1;
    }
    def = std::move(file->graph_def);
    if (file->meta_graph) {
      // A TensorFlow graph carries nodes this run does not need (saver,
      // summaries, initializers) whose ops dflow may lack: keep what the
      // run needs.
      if (file->meta_graph->saver_def)
        graph_saver = file->meta_graph->saver_def;
      std::vector<std::string> roots = fetches;
      roots.insert(roots.end(), targets.begin(), targets.end());
      for (const std::string& init : cli.GetAll("init")) roots.push_back(init);
      for (const Feed& feed : feeds) roots.push_back(feed.name);
      if (cli.Has("restore") && graph_saver) {
        roots.push_back(graph_saver->restore_op_name());
        roots.push_back(graph_saver->filename_tensor_name());
      }
      if (cli.Has("summary_dir") && summary_tensors.empty()) {
        auto it = file->meta_graph->node_lists.find("summaries");
        if (it != file->meta_graph->node_lists.end()) {
          summary_tensors = it->second;
        }
      }
      roots.insert(roots.end(), summary_tensors.begin(), summary_tensors.end());
      if (!cli.GetBool("no_queue_runners")) {
        queue_runner_defs = file->meta_graph->queue_runners;
      }
      for (const QueueRunnerDef& runner : queue_runner_defs) {
        for (const std::string& op : runner.enqueue_op_name()) {
          roots.push_back(op);
        }
        for (const std::string& op :
             {runner.close_op_name(), runner.cancel_op_name()}) {
          if (!op.empty()) roots.push_back(op);
        }
      }
      absl::StatusOr<GraphDef> sub = SubgraphNeededFor(def, roots, file->path);
      if (!sub.ok()) {
        err << "error: " << sub.status().message() << "\n";
        return 1;
      }
      def = *std::move(sub);
    }
    for (size_t i = 0; i < feeds.size(); ++i) {
      if (absl::Status s = CheckFeedDtype(def, feeds[i], feed_values[i]);
          !s.ok()) {
        err << "error: " << s.message() << "\n";
        return 1;
      }
      feed_list.emplace_back(feeds[i].name, feed_values[i]);
    }
    fetch_tensors = fetches;
    header = absl::StrCat(
        "graph: ", cli.Get("graph"), " (", def.node_size(), " nodes",
        file->kind == GraphFileKind::kGraphDef
            ? ""
            : absl::StrCat(" of a ", GraphFileKindName(file->kind)),
        ")");
    absl::StatusOr<std::unique_ptr<Session>> created =
        Session::Create(def, session_options);
    if (!created.ok()) {
      err << "error: " << created.status().message() << "\n";
      return 1;
    }
    session = *std::move(created);
  }
  out << header << "\n";
  for (size_t i = 0; i < feeds.size(); ++i) {
    out << "feed " << feeds[i].name << ": "
        << DescribeTensorType(feed_values[i]) << " from " << feeds[i].path
        << "\n";
  }
  // Initializers run in a step of their own: in one step with the fetches
  // nothing would order the variables' reads after their Assigns.
  for (const std::string& init : cli.GetAll("init")) {
    if (absl::Status s = session->Run({}, {}, {init}, nullptr); !s.ok()) {
      err << "error: --init " << init << ": " << s.message() << "\n";
      return 1;
    }
    out << "init " << init << ": ran\n";
  }
  if (cli.Has("restore")) {
    const std::string prefix = cli.Get("restore");
    if (graph_saver) {
      const FeedList restore_feeds = {
          {graph_saver->filename_tensor_name(), Tensor::Scalar(prefix)}};
      if (absl::Status s = session->Run(
              restore_feeds, {}, {graph_saver->restore_op_name()}, nullptr);
          !s.ok()) {
        err << "error: --restore " << prefix << ": the graph's restore op '"
            << graph_saver->restore_op_name() << "' failed: " << s.message()
            << "\n";
        return 1;
      }
      out << "restore " << prefix << ": ran the graph's restore op "
          << graph_saver->restore_op_name() << "\n";
    } else {
      absl::StatusOr<Saver> saver = Saver::Create(def);
      absl::Status s =
          saver.ok() ? saver->Restore(session.get(), prefix) : saver.status();
      if (!s.ok()) {
        err << "error: --restore " << prefix << ": " << s.message() << "\n";
        return 1;
      }
      out << "restore " << prefix << ": " << saver->variables().size()
          << " variable(s) (dflow Saver)\n";
    }
  }
  std::unique_ptr<EventFileWriter> summary_writer;
  if (cli.Has("summary_dir")) {
    if (summary_tensors.empty()) {
      err << "error: --summary_dir needs summary tensors: --summary NAME, "
             "or a .meta with a 'summaries' collection\n";
      return 1;
    }
    absl::StatusOr<std::unique_ptr<EventFileWriter>> opened =
        EventFileWriter::Open(cli.Get("summary_dir"));
    if (!opened.ok()) {
      err << "error: --summary_dir: " << opened.status().message() << "\n";
      return 1;
    }
    summary_writer = *std::move(opened);
    if (absl::Status s = summary_writer->AddGraph(def); !s.ok()) {
      err << "error: --summary_dir: " << s.message() << "\n";
      return 1;
    }
    out << "summaries: " << absl::StrJoin(summary_tensors, ", ") << " -> "
        << summary_writer->path() << "\n";
  }
  // Declared after the session: runners stop (their cancel ops run on it)
  // and join before it is destroyed, on every return.
  Coordinator coordinator;
  std::vector<std::unique_ptr<QueueRunner>> runners;
  if (!queue_runner_defs.empty()) {
    if (absl::Status s = StartQueueRunners(session.get(), queue_runner_defs,
                                           &coordinator, &runners);
        !s.ok()) {
      err << "error: starting the .meta's queue runners: " << s.message()
          << "\n";
      return 1;
    }
    std::vector<std::string> queues;
    for (const QueueRunnerDef& d : queue_runner_defs) {
      queues.push_back(d.queue_name());
    }
    out << "queue runners: " << runners.size() << " started ("
        << absl::StrJoin(queues, ", ") << ")\n";
  }
  // A graph reading tf.data iterators ends its input as queues do: with
  // OutOfRange ("End of sequence") from IteratorGetNext.
  bool reads_iterators = false;
  for (const NodeDef& node : def.node()) {
    if (node.op() == "IteratorGetNext" || node.op() == "IteratorGetNextSync") {
      reads_iterators = true;
    }
  }
  const bool timeline = cli.Has("timeline");
  RunOptions run_options;
  run_options.collect_step_stats = cli.GetBool("stats") || timeline;
  run_options.trace = timeline;
  run_options.timeout_ms = timeout_ms;
  RunMetadata metadata;
  std::vector<Tensor> outputs;
  std::vector<double> step_ms;
  for (int step = 1; step <= steps; ++step) {
    metadata = RunMetadata();
    // The last good step's fetches stay in `outputs` when the input runs out.
    std::vector<Tensor> step_outputs;
    std::vector<std::string> step_fetches = fetch_tensors;
    if (summary_writer != nullptr) {
      step_fetches.insert(step_fetches.end(), summary_tensors.begin(),
                          summary_tensors.end());
    }
    const auto start = std::chrono::steady_clock::now();
    absl::Status run = session->Run(run_options, feed_list, step_fetches,
                                    targets, &step_outputs, &metadata);
    step_ms.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    if (!run.ok() && !runners.empty()) {
      // A failed input pipeline closes its queues, so the step sees only
      // an empty queue: say what failed first.
      if (absl::Status pipeline = coordinator.Join(); !pipeline.ok()) {
        err << "error: step " << step
            << ": the input pipeline failed: " << pipeline.message()
            << " (the step then saw: " << run.message() << ")\n";
        return 1;
      }
    }
    if (!run.ok() && (!runners.empty() || reads_iterators) &&
        run.code() == absl::StatusCode::kOutOfRange && step > 1) {
      // The input pipeline's epochs are done (its queues are empty, or a
      // tf.data iterator is at the end of its sequence): a normal end of
      // training.
      out << "step " << step << ": the input "
          << (runners.empty() ? "is" : "queues are") << " exhausted ("
          << run.message() << "); stopping after " << step - 1 << " steps\n";
      step_ms.pop_back();
      steps = step - 1;
      break;
    }
    if (!run.ok()) {
      err << "error: " << (steps > 1 ? absl::StrCat("step ", step, ": ") : "")
          << run.message() << "\n";
      return 1;
    }
    if (summary_writer != nullptr) {
      // The summaries follow the fetches; each is a serialized Summary.
      for (size_t i = fetch_tensors.size(); i < step_outputs.size(); ++i) {
        const Tensor& t = step_outputs[i];
        absl::Status s =
            t.dtype() == DT_STRING && t.NumElements() == 1
                ? summary_writer->AddSummary(t.flat<std::string>()[0], step)
                : absl::InvalidArgumentError(
                      absl::StrCat(summary_tensors[i - fetch_tensors.size()],
                                   " is not a summary (a scalar string)"));
        if (!s.ok()) {
          err << "error: --summary_dir: " << s.message() << "\n";
          return 1;
        }
      }
      step_outputs.resize(fetch_tensors.size());
    }
    outputs = std::move(step_outputs);
    if (steps > 1) {
      out << absl::StrFormat("step %d: %.3f ms\n", step, step_ms.back());
      for (size_t i = 0; i < fetches.size(); ++i) {
        PrintFetch(fetches[i], outputs[i], "  ", out);
      }
    }
  }
  if (!runners.empty()) {
    if (absl::Status s = coordinator.Join(); !s.ok()) {
      err << "error: the input pipeline failed: " << s.message() << "\n";
      return 1;
    }
  }
  if (summary_writer != nullptr) {
    if (absl::Status s = summary_writer->Close(); !s.ok()) {
      err << "error: --summary_dir: " << s.message() << "\n";
      return 1;
    }
  }
  const double wall_ms = step_ms.back();
  for (const std::string& target : targets)
    out << "target " << target << ": ran" << (steps > 1 ? " each step" : "")
        << "\n";
  if (steps > 1) out << StepTimesLine(step_ms);
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
    if (steps == 1) PrintFetch(fetches[i], outputs[i], "", out);
    if (!write) continue;
    const std::string path =
        (std::filesystem::path(out_dir) / NpyFileNameForFetch(fetches[i]))
            .string();
    if (absl::Status s = WriteNpyFile(path, outputs[i]); !s.ok()) {
      err << "error: fetch " << fetches[i] << ": " << s.message() << "\n";
      ++failed_writes;
      continue;
    }
    out << "  wrote " << path << "\n";
  }
  if (cli.Has("save")) {
    absl::StatusOr<Saver> saver = Saver::Create(def);
    absl::StatusOr<std::string> path =
        saver.ok() ? saver->Save(session.get(), cli.Get("save"))
                   : absl::StatusOr<std::string>(saver.status());
    if (!path.ok()) {
      err << "error: --save " << cli.Get("save") << ": "
          << path.status().message() << "\n";
      return 1;
    }
    out << "save: wrote " << *path << " (" << saver->variables().size()
        << " variable(s))\n";
  }
  if (cli.GetBool("stats")) PrintStepStats(metadata, wall_ms, out);
  if (cli.GetBool("memory")) PrintMemory(metadata, out);
  if (cli.Has("dump_passes")) {
    if (absl::Status s = PrintPassDumps(cli.Get("dump_passes"), out); !s.ok()) {
      err << "error: --dump_passes: " << s.message() << "\n";
      return 1;
    }
  }
  if (timeline && !WriteTimelineFile(metadata, cli.Get("timeline"), out, err)) {
    return 1;
  }
  return failed_writes > 0 ? 1 : 0;
}

}  // namespace dflow
