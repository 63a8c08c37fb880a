// Workers serving in this process on free loopback ports, discovered over
// gRPC as another process would, and `dflow place --cluster` over them.
#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "distributed/cluster_spec.h"
#include "distributed/remote_devices.h"
#include "distributed/worker_server.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/distributed/free_port.h"
#include "tests/tools/tool_test_util.h"
#include "tools/place.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using tool_testing::RunVerb;

// worker=two tasks, ps=one task, on free ports.
ClusterSpec ThreeTaskCluster() {
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::Parse(
      absl::StrCat("worker=127.0.0.1:", FreePort(), ",127.0.0.1:", FreePort(),
                   ",ps=127.0.0.1:", FreePort()));
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

std::unique_ptr<WorkerServer> Serve(const ClusterSpec& cluster,
                                    const std::string& job, int task,
                                    const std::string& devices = "CPU:1") {
  WorkerServerOptions options;
  options.cluster = cluster;
  options.job = job;
  options.task = task;
  options.devices = devices;
  absl::StatusOr<std::unique_ptr<WorkerServer>> server =
      WorkerServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

TEST(ClusterDiscoveryTest, EveryTasksDevicesUnderItsName) {
  const ClusterSpec cluster = ThreeTaskCluster();
  auto w0 = Serve(cluster, "worker", 0);
  auto w1 = Serve(cluster, "worker", 1, "CPU:2");
  auto ps = Serve(cluster, "ps", 0);
  ASSERT_TRUE(w0 && w1 && ps);
  absl::StatusOr<std::vector<DeviceAttributesProto>> devices =
      DiscoverClusterDevices(cluster, absl::Seconds(10));
  ASSERT_TRUE(devices.ok()) << devices.status();
  std::vector<std::string> names;
  for (const DeviceAttributesProto& d : *devices) {
    names.push_back(d.name());
    EXPECT_EQ(d.device_type(), "CPU");
    EXPECT_GT(d.memory_limit(), 0);
  }
  EXPECT_THAT(
      names, ::testing::ElementsAre("/job:worker/replica:0/task:0/device:CPU:0",
                                    "/job:worker/replica:0/task:1/device:CPU:0",
                                    "/job:worker/replica:0/task:1/device:CPU:1",
                                    "/job:ps/replica:0/task:0/device:CPU:0"));
  // One incarnation per server start.
  EXPECT_EQ((*devices)[1].incarnation(), (*devices)[2].incarnation());
  EXPECT_NE((*devices)[0].incarnation(), (*devices)[1].incarnation());
}

TEST(ClusterDiscoveryTest, AMissingTaskFailsWithinTheTimeoutNamingIt) {
  const ClusterSpec cluster = ThreeTaskCluster();
  auto w0 = Serve(cluster, "worker", 0);
  auto ps = Serve(cluster, "ps", 0);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<DeviceAttributesProto>> devices =
      DiscoverClusterDevices(cluster, absl::Milliseconds(300));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(devices.status().message(),
              HasSubstr("task /job:worker/replica:0/task:1 at " +
                        cluster.Tasks()[1].address));
  EXPECT_THAT(devices.status().message(),
              HasSubstr("--job worker --task 1` running there?"));
  // Not a hang: the deadline (generously bounded for loaded machines).
  EXPECT_LT(took, std::chrono::seconds(20));
}

TEST(ClusterDiscoveryTest, APortInUseIsAnErrorNamingTheTask) {
  const ClusterSpec cluster = ThreeTaskCluster();
  auto first = Serve(cluster, "worker", 0);
  ASSERT_TRUE(first);
  WorkerServerOptions options;
  options.cluster = cluster;
  options.job = "worker";
  options.task = 0;
  absl::StatusOr<std::unique_ptr<WorkerServer>> second =
      WorkerServer::Start(options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(),
              HasSubstr("task /job:worker/replica:0/task:0 cannot listen on " +
                        cluster.Tasks()[0].address));
}

TEST(ClusterDiscoveryTest, BadServerOptionsAreErrors) {
  const ClusterSpec cluster = ThreeTaskCluster();
  WorkerServerOptions options;
  options.cluster = cluster;
  options.job = "ps";
  options.task = 1;
  EXPECT_THAT(WorkerServer::Start(options).status().message(),
              HasSubstr("no /job:ps/task:1"));
  options.task = 0;
  options.devices = "TPU:1";
  EXPECT_THAT(WorkerServer::Start(options).status().message(),
              HasSubstr("worker devices"));
}

TEST(ClusterDiscoveryTest, ATaskServingAnotherNameIsRefused) {
  const ClusterSpec cluster = ThreeTaskCluster();
  // The server at worker task 1's address believes it is ps task 0.
  absl::StatusOr<ClusterSpec> other =
      ClusterSpec::Parse(absl::StrCat("ps=", cluster.Tasks()[1].address));
  ASSERT_TRUE(other.ok());
  auto impostor = Serve(*other, "ps", 0);
  auto w0 = Serve(cluster, "worker", 0);
  auto ps = Serve(cluster, "ps", 0);
  absl::StatusOr<std::vector<DeviceAttributesProto>> devices =
      DiscoverClusterDevices(cluster, absl::Seconds(10));
  EXPECT_EQ(devices.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(devices.status().message(),
              HasSubstr("reports device /job:ps/replica:0/task:0/device:CPU:0, "
                        "but the cluster says it serves "
                        "/job:worker/replica:0/task:1"));
}

// A graph asking for tasks by name, and a node asking for nothing.
std::string WriteTaskGraph() {
  const std::string path = tool_testing::TempPath("tasks.pbtxt");
  std::ofstream(path) << R"pb(
    node {
      name: "a"
      op: "Const"
      device: "/job:ps/task:0"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape {}
            float_val: 1
          }
        }
      }
    }
    node {
      name: "b"
      op: "Neg"
      input: "a"
      device: "/job:worker/task:1/device:CPU:1"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "c"
      op: "Neg"
      input: "b"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    })pb";
  return path;
}

// A node asking for a task the cluster lacks.
std::string WriteMissingTaskGraph() {
  const std::string path = tool_testing::TempPath("missing_task.pbtxt");
  std::ofstream(path) << R"pb(
    node { name: "d" op: "NoOp" device: "/job:worker/task:7" }
  )pb";
  return path;
}

TEST(ClusterDiscoveryTest, PlaceOverARunningCluster) {
  const ClusterSpec cluster = ThreeTaskCluster();
  auto w0 = Serve(cluster, "worker", 0);
  auto w1 = Serve(cluster, "worker", 1, "CPU:2");
  auto ps = Serve(cluster, "ps", 0);
  const std::string graph = WriteTaskGraph();
  tool_testing::Result r = RunVerb(
      &RunPlace,
      {"--graph", graph, "--cluster", cluster.ToString(), "--soft_placement"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("a: (Const): /job:ps/replica:0/task:0/device:CPU:0"));
  EXPECT_THAT(r.out,
              HasSubstr("b: (Neg): /job:worker/replica:0/task:1/device:CPU:1"));
  // No request: the target task, by default the cluster's first.
  EXPECT_THAT(r.out,
              HasSubstr("c: (Neg): /job:worker/replica:0/task:0/device:CPU:0"));
  // Another target takes the unplaced node.
  r = RunVerb(&RunPlace,
              {"--graph", graph, "--cluster", cluster.ToString(), "--target",
               "grpc://" + cluster.Tasks()[2].address, "--soft_placement"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("c: (Neg): /job:ps/replica:0/task:0/device:CPU:0"));
  // A task the cluster lacks is an error naming the node and the devices.
  r = RunVerb(&RunPlace, {"--graph", WriteMissingTaskGraph(), "--cluster",
                          cluster.ToString(), "--soft_placement"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("node 'd' (NoOp) asked for /job:worker/task:7"));
  EXPECT_THAT(r.err, HasSubstr("/job:worker/replica:0/task:1/device:CPU:1"));
}

TEST(ClusterDiscoveryTest, PlaceFlagErrors) {
  const std::string graph = WriteTaskGraph();
  tool_testing::Result r =
      RunVerb(&RunPlace, {"--graph", graph, "--cluster", "worker=127.0.0.1"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_THAT(r.err, HasSubstr("--cluster: cluster entry"));
  r = RunVerb(&RunPlace, {"--graph", graph, "--cluster", "worker=127.0.0.1:1",
                          "--devices", "CPU:2"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_THAT(r.err, HasSubstr("give one"));
  r = RunVerb(&RunPlace, {"--graph", graph, "--cluster", "worker=127.0.0.1:1",
                          "--target", "127.0.0.1:2"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_THAT(r.err, HasSubstr("is not an address of the cluster"));
  const int port = FreePort();
  r = RunVerb(&RunPlace, {"--graph", graph, "--cluster",
                          absl::StrCat("worker=127.0.0.1:", port),
                          "--cluster_timeout_ms", "200"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.err, HasSubstr("did not answer within 200ms"));
}

}  // namespace
}  // namespace dflow
