// A training graph run on a cluster of in-process workers (each a gRPC
// server on a free loopback port, exactly as `dflow worker` serves): the
// values equal one process's, variables live on the ps task across steps
// and sessions, errors and dead tasks end the step with a clear error, and
// each task runs its devices' passes on its partitions.
#include "distributed/cluster_session.h"

#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/cluster_spec.h"
#include "distributed/worker_server.h"
#include "gmock/gmock.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/worker_service.grpc.pb.h"
#include "runtime/session.h"
#include "tests/distributed/local_cluster.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// worker (2 tasks) and ps (1), each served in this process.
class ClusterSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LocalCluster cluster = StartLocalCluster({{"worker", 2}, {"ps", 1}});
    cluster_ = cluster.spec;
    servers_ = std::move(cluster.servers);
    ASSERT_EQ(servers_.size(), 3u);
  }

  std::unique_ptr<ClusterSession> NewSession(const GraphDef& def) {
    return NewClusterSession(cluster_, def, 30000);
  }

  ClusterSpec cluster_;
  std::vector<std::unique_ptr<WorkerServer>> servers_;
};

// y = tanh(x w + b) on worker 1, the loss on worker 0, w and b and their
// updates on ps: the parameter-server layout of seed 001's towers.
GraphDef TrainingGraph() {
  Scope root = Scope::NewRootScope();
  const Scope ps = root.WithDevice("/job:ps/task:0");
  const Scope w1 = root.WithDevice("/job:worker/task:1");
  const Scope w0 = root.WithDevice("/job:worker/task:0");
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT);
  auto w = ops::Variable(ps.WithOpName("w"), TensorShape({3, 2}), DT_FLOAT);
  auto b = ops::Variable(ps.WithOpName("b"), TensorShape({2}), DT_FLOAT);
  auto init_w = ops::Assign(
      ps.WithOpName("init_w"), w,
      ops::Const(ps, {0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f}, {3, 2}));
  auto init_b = ops::Assign(ps.WithOpName("init_b"), b,
                            ops::Const(ps, {0.01f, -0.02f}, {2}));
  ops::NoOp(root.WithOpName("init").WithControlDependencies(
      {init_w.op(), init_b.op()}));
  auto h =
      ops::Tanh(w1.WithOpName("h"), ops::Add(w1, ops::MatMul(w1, x, w), b));
  auto loss =
      ops::Sum(w0.WithOpName("loss"), ops::Square(w0, ops::Sub(w0, h, y)),
               ops::Const(w0, {0, 1}));
  absl::StatusOr<std::vector<Output>> grads =
      AddSymbolicGradients(root, {loss}, {w, b});
  EXPECT_TRUE(grads.ok()) << grads.status();
  auto step_w =
      ops::ApplyGradientDescent(ps, w, ops::Const(ps, 0.1f), (*grads)[0]);
  auto step_b =
      ops::ApplyGradientDescent(ps, b, ops::Const(ps, 0.1f), (*grads)[1]);
  ops::NoOp(root.WithOpName("train").WithControlDependencies(
      {step_w.op(), step_b.op()}));
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  return def;
}

Tensor Matrix(std::initializer_list<float> values, int64_t rows, int64_t cols) {
  Tensor t(DT_FLOAT, TensorShape({rows, cols}));
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}

TEST_F(ClusterSessionTest, TrainsAsOneProcessDoesBitForBit) {
  const GraphDef def = TrainingGraph();
  const Tensor x = Matrix({1, 2, 3, -1, 0.5f, 2, 0, 1, -2, 3, 1, 0}, 4, 3);
  const Tensor y = Matrix({0.5f, -0.5f, 1, 0, -1, 0.25f, 0, 1}, 4, 2);
  // One process: the same graph without its devices.
  GraphDef local_def = def;
  for (NodeDef& n : *local_def.mutable_node()) n.clear_device();
  absl::StatusOr<std::unique_ptr<Session>> local = Session::Create(local_def);
  ASSERT_TRUE(local.ok()) << local.status();
  ASSERT_TRUE((*local)->Run({}, {}, {"init"}, nullptr).ok());

  std::unique_ptr<ClusterSession> session = NewSession(def);
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->device_names().size(), 3u);
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> got, want;
    absl::Status s =
        session->Run({{"x", x}, {"y", y}}, {"loss", "h"}, {"train"}, &got);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_TRUE((*local)
                    ->Run({{"x", x}, {"y", y}}, {"loss", "h"}, {"train"}, &want)
                    .ok());
    ASSERT_EQ(got.size(), 2u);
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(got[i].shape(), want[i].shape());
      EXPECT_EQ(std::memcmp(got[i].raw_data(), want[i].raw_data(),
                            got[i].NumElements() * sizeof(float)),
                0)
          << "step " << step << " fetch " << i;
    }
  }
  // The variables stayed on ps: a second session of the same cluster reads
  // the trained values (no init).
  std::unique_ptr<ClusterSession> again = NewSession(def);
  ASSERT_NE(again, nullptr);
  std::vector<Tensor> w_remote, w_local;
  ASSERT_TRUE(again->Run({}, {"w"}, {}, &w_remote).ok());
  ASSERT_TRUE((*local)->Run({}, {"w"}, {}, &w_local).ok());
  EXPECT_EQ(std::memcmp(w_remote[0].raw_data(), w_local[0].raw_data(),
                        6 * sizeof(float)),
            0);
}

TEST_F(ClusterSessionTest, AFailingNodeEndsTheStepOnEveryTaskNamingIt) {
  // Worker 1 reshapes a fed tensor to a size it does not have; worker 0
  // waits for the result.
  Scope root = Scope::NewRootScope();
  const Scope w1 = root.WithDevice("/job:worker/task:1");
  const Scope w0 = root.WithDevice("/job:worker/task:0");
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto bad = ops::Reshape(w1.WithOpName("bad_reshape"), x, ops::Const(w1, {5}));
  ops::Neg(w0.WithOpName("out"), bad);
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  std::unique_ptr<ClusterSession> session = NewSession(def);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s =
      session->Run({{"x", Matrix({1, 2, 3, 4}, 2, 2)}}, {"out"}, {}, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("task /job:worker/replica:0/task:1"));
  EXPECT_THAT(s.message(), HasSubstr("bad_reshape"));
  // The session still works for a valid feed.
  s = session->Run({{"x", Matrix({1, 2, 3, 4, 5}, 1, 5)}}, {"out"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].data<float>()[4], -5.0f);
}

TEST_F(ClusterSessionTest, ATaskThatIsGoneFailsTheStepNamingIt) {
  const GraphDef def = TrainingGraph();
  std::unique_ptr<ClusterSession> session = NewSession(def);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  servers_[1]->Shutdown();  // worker 1
  servers_[1].reset();
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{"x", Matrix({1, 2, 3}, 1, 3)}, {"y", Matrix({0, 0}, 1, 2)}}, {"loss"},
      {"train"}, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("/job:worker/replica:0/task:1"));
}

TEST_F(ClusterSessionTest, BadOptionsAndFeeds) {
  const GraphDef def = TrainingGraph();
  ClusterSessionOptions options;
  options.cluster = cluster_;
  options.target = "grpc://127.0.0.1:1";
  EXPECT_THAT(ClusterSession::Create(def, options).status().message(),
              HasSubstr("is not an address of the cluster"));
  std::unique_ptr<ClusterSession> session = NewSession(def);
  ASSERT_NE(session, nullptr);
  Tensor ints(DT_INT32, TensorShape({1, 3}));
  absl::Status s = session->Run({{"x", ints}, {"y", Matrix({0, 0}, 1, 2)}},
                                {"loss"}, {}, nullptr);
  EXPECT_THAT(s.message(), HasSubstr("feed 'x' is a int32 tensor"));
}

TEST_F(ClusterSessionTest, UnknownGraphHandlesAndBadPartitionsAreRejected) {
  auto stub = WorkerService::NewStub(grpc::CreateChannel(
      cluster_.Tasks()[0].address, grpc::InsecureChannelCredentials()));
  {
    grpc::ClientContext context;
    RunGraphRequest request;
    request.set_graph_handle("graph_999");
    RunGraphResponse response;
    grpc::Status s = stub->RunGraph(&context, request, &response);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_THAT(s.error_message(), HasSubstr("has no graph 'graph_999'"));
  }
  {
    grpc::ClientContext context;
    CleanupGraphRequest request;
    request.set_graph_handle("nope");
    CleanupGraphResponse response;
    EXPECT_EQ(stub->CleanupGraph(&context, request, &response).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }
  {
    // A partition for a device this task does not have.
    grpc::ClientContext context;
    RegisterGraphRequest request;
    NodeDef* node = request.add_partitions()->add_node();
    node->set_name("n");
    node->set_op("NoOp");
    node->set_device("/job:ps/replica:0/task:0/device:CPU:0");
    RegisterGraphResponse response;
    grpc::Status s = stub->RegisterGraph(&context, request, &response);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(s.error_message(),
                HasSubstr("was sent to task /job:worker/replica:0/task:0, "
                          "which does not have it"));
  }
}

// relu(x w + b) on worker 1 (w and b constants there), fetched on worker 0:
// worker 1 fuses its MatMul, BiasAdd and Relu as one process would, and
// says so; with optimize_graph off no task runs a pass.
TEST_F(ClusterSessionTest, TasksRunTheirDevicesPassesOnTheirPartitions) {
  Scope root = Scope::NewRootScope();
  const Scope w1 = root.WithDevice("/job:worker/task:1");
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Const(w1, {0.5f, -1.0f, 2.0f, 0.25f, -0.5f, 1.5f}, {3, 2});
  auto b = ops::Const(w1, {0.1f, -3.0f}, {2});
  ops::Relu(w1.WithOpName("h"),
            ops::BiasAdd(w1, ops::MatMul(w1.WithOpName("mm"), x, w), b));
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  const Tensor x_value = Matrix({1, 2, 3, -1, 0.5f, 2}, 2, 3);
  GraphDef local_def = def;
  for (NodeDef& n : *local_def.mutable_node()) n.clear_device();
  absl::StatusOr<std::unique_ptr<Session>> local = Session::Create(local_def);
  ASSERT_TRUE(local.ok()) << local.status();
  std::vector<Tensor> want;
  ASSERT_TRUE((*local)->Run({{"x", x_value}}, {"h"}, {}, &want).ok());

  for (bool optimize : {true, false}) {
    ClusterSessionOptions options;
    options.cluster = cluster_;
    options.optimize_graph = optimize;
    absl::StatusOr<std::unique_ptr<ClusterSession>> session =
        ClusterSession::Create(def, options);
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<Tensor> got;
    absl::Status s = (*session)->Run({{"x", x_value}}, {"h"}, {}, &got);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(got[0].shape(), want[0].shape());
    EXPECT_EQ(
        std::memcmp(got[0].raw_data(), want[0].raw_data(), 4 * sizeof(float)),
        0);
    const std::vector<std::string> passes = (*session)->LastPassSummaries();
    if (!optimize) {
      EXPECT_TRUE(passes.empty()) << passes.front();
      continue;
    }
    bool fused = false, planned = false;
    for (const std::string& line : passes) {
      if (!absl::StartsWith(line, "/job:worker/replica:0/task:1: ")) continue;
      fused |= absl::StrContains(line, "fuse_bias_activation") &&
               absl::StrContains(line, "1 MatMul+BiasAdd+Relu fused");
      planned |= absl::StrContains(line, "memory_planning");
    }
    EXPECT_TRUE(fused) << absl::StrJoin(passes, "\n");
    EXPECT_TRUE(planned) << absl::StrJoin(passes, "\n");
  }
}

// A step's stats come from every task, on the master's clock: the nodes of
// worker 0, worker 1 and ps, their transfers with the keys that pair them.
TEST_F(ClusterSessionTest, StepStatsOfEveryTaskOnTheMastersClock) {
  std::unique_ptr<ClusterSession> session = NewSession(TrainingGraph());
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  const Tensor x = Matrix({1, 2, 3, -1, 0.5f, 2, 0, 1, -2, 3, 1, 0}, 4, 3);
  const Tensor y = Matrix({0.5f, -0.5f, 1, 0, -1, 0.25f, 0, 1}, 4, 2);
  RunOptions options;
  options.trace = true;
  RunMetadata metadata;
  const absl::Time start = absl::Now();
  std::vector<Tensor> out;
  absl::Status s = session->Run(options, {{"x", x}, {"y", y}}, {"loss"},
                                {"train"}, &out, &metadata);
  const int64_t wall_us = absl::ToInt64Microseconds(absl::Now() - start);
  ASSERT_TRUE(s.ok()) << s;
  std::map<std::string, int> nodes_per_task;
  bool h_on_worker_1 = false, paired_recv = false;
  for (const NodeExecStats& node : metadata.step_stats) {
    ++nodes_per_task[node.device.substr(0, node.device.find("/device:"))];
    EXPECT_LE(node.start_us, node.end_us) << node.node;
    EXPECT_GE(node.start_us, -1000) << node.node;  // one host's clock
    EXPECT_LE(node.end_us, wall_us + 1000) << node.node;
    if (node.node == "h") {
      h_on_worker_1 =
          node.device == "/job:worker/replica:0/task:1/device:CPU:0";
    }
    if (node.op == "_Recv") {
      for (const auto& [key, value] : node.details) {
        paired_recv |= key == "send_device" &&
                       absl::StrContains(value, "/job:ps/replica:0/task:0");
      }
    }
  }
  EXPECT_GT(nodes_per_task["/job:worker/replica:0/task:0"], 0);
  EXPECT_GT(nodes_per_task["/job:worker/replica:0/task:1"], 0);
  EXPECT_GT(nodes_per_task["/job:ps/replica:0/task:0"], 0);
  EXPECT_TRUE(h_on_worker_1);
  EXPECT_TRUE(paired_recv);
  // Without stats asked for, none come.
  RunMetadata none;
  ASSERT_TRUE(
      session
          ->Run(RunOptions(), {{"x", x}, {"y", y}}, {"loss"}, {}, &out, &none)
          .ok());
  EXPECT_TRUE(none.step_stats.empty());
}

// A dequeue from an empty queue on worker 1 would wait for ever: the
// caller's cancellation flag ends the step on every task.
TEST_F(ClusterSessionTest, CancellationFlagEndsAStepThatWouldNotEnd) {
  Scope root = Scope::NewRootScope();
  const Scope w1 = root.WithDevice("/job:worker/task:1");
  Output q = OpBuilder(w1.WithOpName("q"), "FIFOQueueV2")
                 .Attr("component_types", std::vector<DataType>{DT_INT32})
                 .Attr("capacity", int64_t{-1})
                 .Finalize()
                 .output(0);
  OpBuilder(w1.WithOpName("dequeue"), "QueueDequeueV2")
      .Input(q)
      .Attr("component_types", std::vector<DataType>{DT_INT32})
      .Finalize();
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  std::unique_ptr<ClusterSession> session = NewSession(def);
  ASSERT_NE(session, nullptr);
  CancellationFlag flag;
  RunOptions options;
  options.cancellation = &flag;
  std::thread canceller([&flag] {
    absl::SleepFor(absl::Milliseconds(300));
    flag.Cancel();
  });
  const absl::Time start = absl::Now();
  std::vector<Tensor> out;
  absl::Status s =
      session->Run(options, {}, {"dequeue"}, {}, &out, /*metadata=*/nullptr);
  canceller.join();
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
  EXPECT_THAT(s.message(), HasSubstr("RunOptions::cancellation"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

}  // namespace
}  // namespace dflow
