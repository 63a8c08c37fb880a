// Checkpoints of a cluster's variables (ClusterSession as a Saver's
// VariableHost): saved in the master's process in TensorFlow's format,
// restored into a new session after tasks restarted (their variables
// lost), after which training continues with exactly the values of an
// uninterrupted run; the same files restore into one process.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "distributed/cluster_session.h"
#include "distributed/cluster_spec.h"
#include "distributed/worker_server.h"
#include "gmock/gmock.h"
#include "graph/gradients/gradients.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/saver.h"
#include "runtime/session.h"
#include "tests/distributed/local_cluster.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// tanh(s * (x w + b)) against y: w and b (reference variables) and their
// updates on ps, the scale s (a resource variable) on worker 1, the loss
// on worker 0.
GraphDef TrainingGraph() {
  Scope root = Scope::NewRootScope();
  const Scope ps = root.WithDevice("/job:ps/task:0");
  const Scope w1 = root.WithDevice("/job:worker/task:1");
  const Scope w0 = root.WithDevice("/job:worker/task:0");
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT);
  auto w = ops::Variable(ps.WithOpName("w"), TensorShape({3, 2}), DT_FLOAT);
  auto b = ops::Variable(ps.WithOpName("b"), TensorShape({2}), DT_FLOAT);
  auto s = ops::VarHandleOp(w1.WithOpName("s"), DT_FLOAT, TensorShape());
  auto init_w = ops::Assign(
      ps.WithOpName("init_w"), w,
      ops::Const(ps, {0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f}, {3, 2}));
  auto init_b = ops::Assign(ps.WithOpName("init_b"), b,
                            ops::Const(ps, {0.01f, -0.02f}, {2}));
  auto init_s =
      ops::AssignVariableOp(w1.WithOpName("init_s"), s, ops::Const(w1, 0.9f));
  ops::NoOp(root.WithOpName("init").WithControlDependencies(
      {init_w.op(), init_b.op(), init_s}));
  auto s_value = ops::ReadVariableOp(w1.WithOpName("s_value"), s, DT_FLOAT);
  auto h =
      ops::Tanh(w1.WithOpName("h"),
                ops::Mul(w1, s_value, ops::Add(w1, ops::MatMul(w1, x, w), b)));
  auto loss =
      ops::Sum(w0.WithOpName("loss"), ops::Square(w0, ops::Sub(w0, h, y)),
               ops::Const(w0, {0, 1}));
  absl::StatusOr<std::vector<Output>> grads =
      AddSymbolicGradients(root, {loss}, {w, b, s_value});
  EXPECT_TRUE(grads.ok()) << grads.status();
  auto step_w =
      ops::ApplyGradientDescent(ps, w, ops::Const(ps, 0.1f), (*grads)[0]);
  auto step_b =
      ops::ApplyGradientDescent(ps, b, ops::Const(ps, 0.1f), (*grads)[1]);
  auto step_s = ops::ResourceApplyGradientDescent(w1, s, ops::Const(w1, 0.1f),
                                                  (*grads)[2]);
  ops::NoOp(root.WithOpName("train").WithControlDependencies(
      {step_w.op(), step_b.op(), step_s}));
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  return def;
}

// Step k's batch: 4 examples of 3 features, and targets.
std::pair<Tensor, Tensor> Batch(int k) {
  Tensor x(DT_FLOAT, TensorShape({4, 3}));
  Tensor y(DT_FLOAT, TensorShape({4, 2}));
  for (int i = 0; i < 12; ++i) {
    x.data<float>()[i] = static_cast<float>((i * 7 + k * 3) % 11) / 5 - 1;
  }
  for (int i = 0; i < 8; ++i) {
    y.data<float>()[i] = static_cast<float>((i * 5 + k) % 7) / 6 - 0.5f;
  }
  return {x, y};
}

template <typename S>
absl::StatusOr<float> TrainStep(S* session, int k) {
  auto [x, y] = Batch(k);
  std::vector<Tensor> out;
  absl::Status s =
      session->Run({{"x", x}, {"y", y}}, {"loss"}, {"train"}, &out);
  if (!s.ok()) return s;
  return out[0].data<float>()[0];
}

class ClusterCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    LocalCluster cluster = StartLocalCluster({{"worker", 2}, {"ps", 1}});
    cluster_ = cluster.spec;
    servers_ = std::move(cluster.servers);
    ASSERT_EQ(servers_.size(), 3u);
    dir_ = absl::StrCat(
        testing::TempDir(), "/cluster_checkpoint_",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  // Task `index` of spec.Tasks() dies (its graphs and variables with it)
  // and a new server takes its address.
  void Restart(size_t index) {
    const ClusterTask task = cluster_.Tasks()[index];
    servers_[index].reset();
    WorkerServerOptions options;
    options.cluster = cluster_;
    options.job = task.job;
    options.task = task.task;
    absl::StatusOr<std::unique_ptr<WorkerServer>> server =
        WorkerServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    servers_[index] = *std::move(server);
  }

  ClusterSpec cluster_;
  std::vector<std::unique_ptr<WorkerServer>> servers_;
  std::string dir_;
};

TEST_F(ClusterCheckpointTest, RestartedTasksResumeFromTheLastCheckpoint) {
  const GraphDef def = TrainingGraph();
  absl::StatusOr<Saver> saver = Saver::Create(def);
  ASSERT_TRUE(saver.ok()) << saver.status();
  ASSERT_EQ(saver->variables().size(), 3u);  // b, s, w

  // The uninterrupted run, in one process.
  GraphDef local_def = def;
  for (NodeDef& n : *local_def.mutable_node()) n.clear_device();
  absl::StatusOr<std::unique_ptr<Session>> local = Session::Create(local_def);
  ASSERT_TRUE(local.ok()) << local.status();
  ASSERT_TRUE((*local)->Run({}, {}, {"init"}, nullptr).ok());
  std::vector<float> want;
  for (int k = 1; k <= 6; ++k) {
    absl::StatusOr<float> loss = TrainStep(local->get(), k);
    ASSERT_TRUE(loss.ok()) << loss.status();
    want.push_back(*loss);
  }

  // On the cluster: 3 steps, a checkpoint, one step more.
  std::unique_ptr<ClusterSession> session =
      NewClusterSession(cluster_, def, 30000);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  for (int k = 1; k <= 3; ++k) {
    absl::StatusOr<float> loss = TrainStep(session.get(), k);
    ASSERT_TRUE(loss.ok()) << loss.status();
    EXPECT_EQ(*loss, want[k - 1]) << "step " << k;
  }
  absl::StatusOr<std::string> path =
      saver->Save(session.get(), dir_ + "/model", 3);
  ASSERT_TRUE(path.ok()) << path.status();
  ASSERT_TRUE(TrainStep(session.get(), 4).ok());

  // ps and worker 1 restart: w, b and s are gone, and so are the graphs
  // this session registered there.
  Restart(1);
  Restart(2);
  absl::StatusOr<float> lost = TrainStep(session.get(), 5);
  ASSERT_FALSE(lost.ok());
  EXPECT_THAT(lost.status().message(), HasSubstr("task"));

  // A new session restores the last checkpoint into the restarted tasks
  // and training goes on from step 4 as if nothing had happened.
  session = NewClusterSession(cluster_, def, 30000);
  ASSERT_NE(session, nullptr);
  absl::StatusOr<std::string> latest = Saver::LatestCheckpoint(dir_);
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ(*latest, *path);
  absl::Status restored = saver->Restore(session.get(), *latest);
  ASSERT_TRUE(restored.ok()) << restored;
  for (int k = 4; k <= 6; ++k) {
    absl::StatusOr<float> loss = TrainStep(session.get(), k);
    ASSERT_TRUE(loss.ok()) << loss.status();
    EXPECT_EQ(*loss, want[k - 1]) << "step " << k;
  }

  // The cluster's checkpoint is an ordinary one: one process restores it.
  absl::StatusOr<std::unique_ptr<Session>> fresh = Session::Create(local_def);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  ASSERT_TRUE(saver->Restore(fresh->get(), *path).ok());
  absl::StatusOr<float> loss = TrainStep(fresh->get(), 4);
  ASSERT_TRUE(loss.ok()) << loss.status();
  EXPECT_EQ(*loss, want[3]);
}

TEST_F(ClusterCheckpointTest, SavingUninitializedVariablesNamesOne) {
  const GraphDef def = TrainingGraph();
  absl::StatusOr<Saver> saver = Saver::Create(def);
  ASSERT_TRUE(saver.ok()) << saver.status();
  std::unique_ptr<ClusterSession> session =
      NewClusterSession(cluster_, def, 30000);
  ASSERT_NE(session, nullptr);
  absl::StatusOr<std::string> path =
      saver->Save(session.get(), dir_ + "/model", 1);
  ASSERT_FALSE(path.ok());
  EXPECT_EQ(path.status().code(), absl::StatusCode::kFailedPrecondition)
      << path.status();
  EXPECT_THAT(path.status().message(), HasSubstr("initializ"));
  EXPECT_THAT(path.status().message(), HasSubstr("checkpoint"));
}

TEST_F(ClusterCheckpointTest, ACheckpointOfAnotherGraphIsRefused) {
  const GraphDef def = TrainingGraph();
  std::unique_ptr<ClusterSession> session =
      NewClusterSession(cluster_, def, 30000);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"init"}, nullptr).ok());
  // A Saver of a graph with a variable this session's graph lacks.
  Scope other = Scope::NewRootScope();
  ops::Variable(other.WithOpName("elsewhere"), TensorShape({2}), DT_FLOAT);
  GraphDef other_def;
  ASSERT_TRUE(other.ToGraphDef(&other_def).ok());
  absl::StatusOr<Saver> saver = Saver::Create(other_def);
  ASSERT_TRUE(saver.ok()) << saver.status();
  absl::StatusOr<std::string> path =
      saver->Save(session.get(), dir_ + "/model", 1);
  ASSERT_FALSE(path.ok());
  EXPECT_THAT(path.status().message(), HasSubstr("elsewhere"));
  EXPECT_THAT(path.status().message(), HasSubstr("not in this session"));
}

}  // namespace
}  // namespace dflow
