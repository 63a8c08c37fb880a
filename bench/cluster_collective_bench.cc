// All-reduce across the tasks of a cluster (Gloo over loopback TCP, as
// `dflow worker` processes meet) against the same all-reduce in one process
// (the CollectiveExecutor's ring over logical CPU devices), and so a
// distributed step against the same step in one process (issue 23).
//
// For n = 2 and 4 members and float tensors of 4 KB to 64 MB, one graph:
// member i holds a variable of that size (filled once by the init step) and
// all-reduces it (CollectiveAllReduce, sum); a step runs the n all-reduces.
//   cluster:     member i on /job:worker/task:i/device:CPU:0 of n
//                WorkerServers in this process, each its own Gloo rank with
//                its own TCP connections, driven by a ClusterSession (the
//                master's RunGraph to every task is part of each step);
//   one process: member i on CPU:i of a Session with n CPU devices.
// The init step's result is checked (every element the sum 1 + ... + n).
// Prints, per n and size, medians over the steps:
//   metric allreduce_bus_gbps_<bytes>_n<n> gloo=<GB/s> ring=<GB/s> unit=GB/s
//   metric allreduce_step_ms_<bytes>_n<n> cluster=<ms> one_process=<ms>
// The bus bandwidth is NCCL's: bytes * 2(n-1)/n / step time, what each member
// sends and receives in a ring. Every task, its gRPC and Gloo threads and
// the master share this machine's cores (two here), so the cluster's figures
// are loopback figures, not a network's.
//
//   bazel run //bench:cluster_collective_bench -- [--steps 10] [--max_mb 64]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bench/loopback_port.h"
#include "distributed/cluster_session.h"
#include "distributed/cluster_spec.h"
#include "distributed/worker_server.h"
#include "graph/ops/collective_ops.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "runtime/session.h"

namespace {

using dflow::Output;
using dflow::Scope;
using dflow::Tensor;
using dflow::bench::FreePort;
namespace ops = dflow::ops;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The benchmark's graph for n members of `count` floats, member i on
// device(i): "init" fills the variables, targets "sum_<i>" all-reduce them,
// "check" is the element sum of member 0's result (run it with every
// "sum_<i>": all members take part in each all-reduce).
template <typename DeviceOf>
absl::StatusOr<dflow::GraphDef> AllReduceGraph(int n, int64_t count,
                                               DeviceOf device) {
  Scope root = Scope::NewRootScope();
  std::vector<dflow::Operation> inits;
  Output first;
  for (int i = 0; i < n; ++i) {
    const Scope s = root.WithDevice(device(i));
    // Named by size: the tasks keep variables across sessions.
    auto v = ops::Variable(s.WithOpName(absl::StrCat("v_", count, "_", i)),
                           dflow::TensorShape({count}), dflow::DT_FLOAT);
    auto filled = ops::Fill(s, ops::Const(s, {count}, {1}),
                            ops::Const(s, static_cast<float>(i + 1)));
    inits.push_back(ops::Assign(s, v, filled).op());
    Output sum = ops::CollectiveAllReduce(s.WithOpName(absl::StrCat("sum_", i)),
                                          v, n, /*group_key=*/1,
                                          /*instance_key=*/1, "sum");
    if (i == 0) first = sum;
  }
  ops::NoOp(root.WithOpName("init").WithControlDependencies(inits));
  ops::Sum(root.WithDevice(device(0)).WithOpName("check"), first,
           ops::Const(root.WithDevice(device(0)), {0}, {1}));
  dflow::GraphDef def;
  if (absl::Status s = root.ToGraphDef(&def); !s.ok()) return s;
  return def;
}

// Median milliseconds of `steps` all-reduce steps of `session` (a
// ClusterSession or a Session; after one warm step), having checked the
// init step's all-reduced value. Errors start with `what`.
template <typename SessionType>
absl::StatusOr<double> TimeSteps(SessionType* session, int n, int64_t count,
                                 int steps, const std::string& what) {
  auto run = [&](const std::vector<std::string>& fetches,
                 const std::vector<std::string>& targets,
                 std::vector<Tensor>* out) {
    absl::Status s = session->Run({}, fetches, targets, out);
    if (s.ok()) return s;
    return absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
  };
  std::vector<std::string> targets;
  for (int i = 0; i < n; ++i) targets.push_back(absl::StrCat("sum_", i));
  if (absl::Status s = run({}, {"init"}, nullptr); !s.ok()) return s;
  // Every member takes part in a step that all-reduces (the check too).
  std::vector<Tensor> out;
  if (absl::Status s = run({"check"}, targets, &out); !s.ok()) return s;
  const double want = static_cast<double>(count) * n * (n + 1) / 2;
  const double got = out[0].data<float>()[0];
  if (std::abs(got - want) > 1e-3 * want) {
    return absl::InternalError(absl::StrCat(what, ": the all-reduce summed to ",
                                            got, " instead of ", want));
  }
  std::vector<double> ms;
  for (int step = 0; step <= steps; ++step) {
    const auto start = std::chrono::steady_clock::now();
    if (absl::Status s = run({}, targets, nullptr); !s.ok()) return s;
    const double took = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count();
    if (step > 0) ms.push_back(took);  // step 0: a new signature
  }
  return Median(ms);
}

absl::Status RunBench(int steps, int max_mb) {
  for (int n : {2, 4}) {
    // n tasks of one CPU each, all in this process.
    std::string spec = "worker=";
    for (int i = 0; i < n; ++i) {
      absl::StatusOr<int> port = FreePort();
      if (!port.ok()) return port.status();
      absl::StrAppend(&spec, i == 0 ? "" : ",", "127.0.0.1:", *port);
    }
    absl::StatusOr<dflow::ClusterSpec> cluster =
        dflow::ClusterSpec::Parse(spec);
    if (!cluster.ok()) return cluster.status();
    std::vector<std::unique_ptr<dflow::WorkerServer>> servers;
    for (int i = 0; i < n; ++i) {
      dflow::WorkerServerOptions options;
      options.cluster = *cluster;
      options.job = "worker";
      options.task = i;
      absl::StatusOr<std::unique_ptr<dflow::WorkerServer>> server =
          dflow::WorkerServer::Start(options);
      if (!server.ok()) return server.status();
      servers.push_back(*std::move(server));
    }
    for (int64_t bytes = 4 << 10; bytes <= (int64_t{max_mb} << 20);
         bytes *= 4) {
      const int64_t count = bytes / 4;
      // Fewer steps where each takes long.
      const int size_steps =
          bytes >= (16 << 20) ? std::max(3, steps / 3) : steps;
      absl::StatusOr<dflow::GraphDef> remote_graph =
          AllReduceGraph(n, count, [](int i) {
            return absl::StrCat("/job:worker/replica:0/task:", i,
                                "/device:CPU:0");
          });
      if (!remote_graph.ok()) return remote_graph.status();
      dflow::ClusterSessionOptions cluster_options;
      cluster_options.cluster = *cluster;
      cluster_options.step_timeout_ms = 120000;
      absl::StatusOr<std::unique_ptr<dflow::ClusterSession>> remote =
          dflow::ClusterSession::Create(*remote_graph, cluster_options);
      if (!remote.ok()) return remote.status();
      absl::StatusOr<double> cluster_ms =
          TimeSteps(remote->get(), n, count, size_steps,
                    absl::StrCat("cluster, ", n, " tasks, ", bytes, " bytes"));
      if (!cluster_ms.ok()) return cluster_ms.status();
      remote->reset();

      absl::StatusOr<dflow::GraphDef> local_graph = AllReduceGraph(
          n, count, [](int i) { return absl::StrCat("/device:CPU:", i); });
      if (!local_graph.ok()) return local_graph.status();
      dflow::SessionOptions local_options;
      local_options.device_count = {{"CPU", n}};
      absl::StatusOr<std::unique_ptr<dflow::Session>> local =
          dflow::Session::Create(*local_graph, local_options);
      if (!local.ok()) return local.status();
      absl::StatusOr<double> local_ms = TimeSteps(
          local->get(), n, count, size_steps,
          absl::StrCat("one process, ", n, " devices, ", bytes, " bytes"));
      if (!local_ms.ok()) return local_ms.status();
      const double bus_bytes = static_cast<double>(bytes) * 2 * (n - 1) / n;
      std::printf(
          "metric allreduce_bus_gbps_%lld_n%d gloo=%.3f ring=%.3f "
          "unit=GB/s\n",
          static_cast<long long>(bytes), n, bus_bytes / *cluster_ms / 1e6,
          bus_bytes / *local_ms / 1e6);
      std::printf(
          "metric allreduce_step_ms_%lld_n%d cluster=%.3f one_process=%.3f "
          "unit=ms (cluster / one process: %.2f)\n",
          static_cast<long long>(bytes), n, *cluster_ms, *local_ms,
          *cluster_ms / *local_ms);
      std::fflush(stdout);
    }
  }
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 10;
  int max_mb = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    int* target = flag == "--steps"    ? &steps
                  : flag == "--max_mb" ? &max_mb
                                       : nullptr;
    if (target == nullptr || !absl::SimpleAtoi(argv[i + 1], target) ||
        *target < 1) {
      std::fprintf(
          stderr, "usage: cluster_collective_bench [--steps N] [--max_mb M]\n");
      return 2;
    }
  }
  if (absl::Status s = RunBench(steps, max_mb); !s.ok()) {
    std::fprintf(stderr, "cluster_collective_bench: %s\n",
                 s.ToString().c_str());
    return 1;
  }
  return 0;
}
