// A training graph run on a cluster of in-process workers (each a gRPC
// server on a free loopback port, exactly as `dflow worker` serves): the
// values equal one process's, variables live on the ps task across steps
// and sessions, and errors and dead tasks end the step with a clear error.
#include "distributed/cluster_session.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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

}  // namespace
}  // namespace dflow
