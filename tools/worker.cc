#include "tools/worker.h"

#include <signal.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/cluster_spec.h"
#include "distributed/worker_server.h"
#include "tools/cli_args.h"

namespace dflow {
namespace {

constexpr char kUsage[] =
    "Usage: dflow worker --cluster SPEC --job NAME --task N [--bind HOST]\n"
    "                    [--devices CPU:N] [--max_seconds S]\n\n"
    "Serves task N of job NAME of the cluster SPEC (job=host:port,...; e.g.\n"
    "worker=127.0.0.1:2222,127.0.0.1:2223,ps=127.0.0.1:2224) on the task's\n"
    "port, with the devices --devices lists, named\n"
    "/job:NAME/replica:0/task:N/device:CPU:0 and so on. Other processes\n"
    "find them with the same --cluster (`dflow place --cluster SPEC`).\n"
    "Runs until SIGINT or SIGTERM, or for --max_seconds.\n"
    "Exit code 0 after a clean stop, 1 when the server cannot start, 2 for\n"
    "a usage error.\n\n";

volatile std::sig_atomic_t stop_requested = 0;

void RequestStop(int) { stop_requested = 1; }

// The most --max_seconds allows (a year): a bounded lifetime for scripts
// and tests, not a scheduler.
constexpr int64_t kMaxSeconds = 365LL * 24 * 3600;

}  // namespace

int RunWorker(const std::vector<std::string>& args, std::ostream& out,
              std::ostream& err) {
  CliArgs cli(
      "worker",
      {{"cluster", "the cluster: job=host:port[,host:port...][,job=...]"},
       {"job", "the job of the task this process serves", false, "worker"},
       {"task", "the task's index in its job", false, "0"},
       {"bind",
        "the host to listen on (the port is the task's); 0.0.0.0 listens "
        "on every interface",
        false, "127.0.0.1"},
       {"devices", "the task's devices, as dflow run --devices", false,
        "CPU:1"},
       {"max_seconds", "stop after this many seconds (0: run until a signal)",
        false, "0"}});
  if (absl::Status s = cli.Parse(args); !s.ok()) {
    err << s.message() << "\n";
    return 2;
  }
  if (cli.help_requested()) {
    out << kUsage << cli.FlagHelp();
    return 0;
  }
  if (!cli.Has("cluster")) {
    err << "dflow worker: --cluster SPEC is required (see dflow worker "
           "--help)\n";
    return 2;
  }
  absl::StatusOr<ClusterSpec> cluster = ClusterSpec::Parse(cli.Get("cluster"));
  if (!cluster.ok()) {
    err << "dflow worker: --cluster: " << cluster.status().message() << "\n";
    return 2;
  }
  int task = 0;
  if (!absl::SimpleAtoi(cli.Get("task"), &task) || task < 0) {
    err << "dflow worker: --task must be a task index (0, 1, ...), got '"
        << cli.Get("task") << "'\n";
    return 2;
  }
  int64_t max_seconds = 0;
  if (!absl::SimpleAtoi(cli.Get("max_seconds"), &max_seconds) ||
      max_seconds < 0 || max_seconds > kMaxSeconds) {
    err << "dflow worker: --max_seconds must be 0.." << kMaxSeconds << ", got '"
        << cli.Get("max_seconds") << "'\n";
    return 2;
  }
  WorkerServerOptions options;
  options.cluster = *cluster;
  options.job = cli.Get("job");
  options.task = task;
  options.bind_host = cli.Get("bind");
  options.devices = cli.Get("devices");
  if (absl::StatusOr<ClusterTask> t = cluster->Task(options.job, task);
      !t.ok()) {
    err << "dflow worker: " << t.status().message() << "\n";
    return 2;
  }

  absl::StatusOr<std::unique_ptr<WorkerServer>> server =
      WorkerServer::Start(options);
  if (!server.ok()) {
    err << "error: " << server.status().message() << "\n";
    return 1;
  }
  std::vector<std::string> names;
  for (const DeviceAttributesProto& d : (*server)->devices()) {
    names.push_back(d.name().substr(d.name().rfind("/device:") + 8));
  }
  out << "dflow worker: " << (*server)->task_name() << " serving "
      << absl::StrJoin(names, ", ") << " on " << options.bind_host << ":"
      << (*server)->address().substr((*server)->address().rfind(':') + 1)
      << std::endl;

  // SIGINT and SIGTERM set a flag this thread polls (a handler, not
  // sigwait: libraries start threads before main, e.g. OpenBLAS's, and a
  // signal delivered to one of those with the default action would kill
  // the process without the clean stop).
  struct sigaction action {};
  action.sa_handler = &RequestStop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::seconds(max_seconds);
  while (stop_requested == 0 &&
         (max_seconds == 0 || std::chrono::steady_clock::now() < end)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  (*server)->Shutdown();
  out << "dflow worker: " << (*server)->task_name() << " stopped" << std::endl;
  return 0;
}

}  // namespace dflow
