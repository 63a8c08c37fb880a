// In-process clusters for tests: each task a WorkerServer on a free
// loopback port, exactly as `dflow worker` serves it, and a master session
// over them.
#ifndef DFLOW_TESTS_DISTRIBUTED_LOCAL_CLUSTER_H_
#define DFLOW_TESTS_DISTRIBUTED_LOCAL_CLUSTER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "distributed/cluster_session.h"
#include "distributed/cluster_spec.h"
#include "distributed/worker_server.h"
#include "gtest/gtest.h"
#include "tests/distributed/free_port.h"

namespace dflow {

struct LocalCluster {
  ClusterSpec spec;
  // In spec.Tasks() order; a test may shut one down to lose that task.
  std::vector<std::unique_ptr<WorkerServer>> servers;
};

// `jobs`: (job, tasks) in order, e.g. {{"worker", 2}, {"ps", 1}}; every
// task serves `devices`. A task that cannot start is a test failure.
inline LocalCluster StartLocalCluster(
    const std::vector<std::pair<std::string, int>>& jobs,
    const std::string& devices = "CPU:1") {
  std::string text;
  for (const auto& [job, tasks] : jobs) {
    absl::StrAppend(&text, text.empty() ? "" : ",", job, "=");
    for (int t = 0; t < tasks; ++t) {
      absl::StrAppend(&text, t == 0 ? "" : ",", "127.0.0.1:", FreePort());
    }
  }
  LocalCluster cluster;
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::Parse(text);
  EXPECT_TRUE(spec.ok()) << spec.status();
  if (!spec.ok()) return cluster;
  cluster.spec = *spec;
  for (const ClusterTask& t : cluster.spec.Tasks()) {
    WorkerServerOptions options;
    options.cluster = cluster.spec;
    options.job = t.job;
    options.task = t.task;
    options.devices = devices;
    absl::StatusOr<std::unique_ptr<WorkerServer>> server =
        WorkerServer::Start(options);
    EXPECT_TRUE(server.ok()) << server.status();
    if (server.ok()) cluster.servers.push_back(*std::move(server));
  }
  return cluster;
}

// A master session over `spec` whose steps time out after
// `step_timeout_ms`; null (and a test failure) if it cannot be made.
inline std::unique_ptr<ClusterSession> NewClusterSession(
    const ClusterSpec& spec, const GraphDef& def, int64_t step_timeout_ms) {
  ClusterSessionOptions options;
  options.cluster = spec;
  options.step_timeout_ms = step_timeout_ms;
  absl::StatusOr<std::unique_ptr<ClusterSession>> session =
      ClusterSession::Create(def, options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

}  // namespace dflow

#endif  // DFLOW_TESTS_DISTRIBUTED_LOCAL_CLUSTER_H_
