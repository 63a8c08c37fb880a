// Collectives whose members sit on several tasks of a cluster (in-process
// workers on free loopback ports, each with its own collective executor,
// meeting over Gloo's TCP transport as `dflow worker` processes do).
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "distributed/cluster_session.h"
#include "distributed/cluster_spec.h"
#include "distributed/collective_groups.h"
#include "distributed/worker_server.h"
#include "gmock/gmock.h"
#include "graph/graph_def_import.h"
#include "graph/ops/collective_ops.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "tests/distributed/local_cluster.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// Two worker tasks, each with `devices` ("CPU:1", "CPU:2").
class ClusterCollectivesTest : public ::testing::Test {
 protected:
  void StartCluster(const std::string& devices) {
    LocalCluster cluster = StartLocalCluster({{"worker", 2}}, devices);
    cluster_ = cluster.spec;
    servers_ = std::move(cluster.servers);
    ASSERT_EQ(servers_.size(), 2u);
  }

  std::unique_ptr<ClusterSession> NewSession(const GraphDef& def) {
    return NewClusterSession(cluster_, def, 60000);
  }

  ClusterSpec cluster_;
  std::vector<std::unique_ptr<WorkerServer>> servers_;
};

std::string Device(int task, int cpu) {
  return absl::StrCat("/job:worker/replica:0/task:", task, "/device:CPU:", cpu);
}

// Values with many significant bits, so a changed order of additions shows.
std::vector<float> Values(int n, float seed) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = std::sin(seed * 37.1f + i * 0.731f) * 3.3f;
  return v;
}

Tensor Vector(const std::vector<float>& v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  std::copy(v.begin(), v.end(), t.data<float>());
  return t;
}

// Two members, one per task: Gloo adds a + b on one task and b + a on the
// other, which IEEE makes equal, so sum, mean and max are exactly the
// single-process ring's.
TEST_F(ClusterCollectivesTest, TwoTasksGiveTheSingleProcessValuesBitForBit) {
  StartCluster("CPU:1");
  constexpr int kN = 3000;  // several Gloo segments per rank
  const std::vector<float> a = Values(kN, 1);
  const std::vector<float> b = Values(kN, 2);
  Scope root = Scope::NewRootScope();
  std::vector<std::string> fetches;
  for (int task = 0; task < 2; ++task) {
    const Scope s = root.WithDevice(Device(task, 0));
    auto x = ops::Const(s, Vector(task == 0 ? a : b));
    int instance = 1;
    for (const char* reduction : {"sum", "mean", "max"}) {
      const std::string name = absl::StrCat(reduction, "_", task);
      ops::CollectiveAllReduce(s.WithOpName(name), x, 2, 7, instance++,
                               reduction);
      fetches.push_back(name);
    }
  }
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  std::unique_ptr<ClusterSession> session = NewSession(def);
  ASSERT_NE(session, nullptr);
  for (int step = 0; step < 3; ++step) {  // the group's context is reused
    std::vector<Tensor> out;
    absl::Status s = session->Run({}, fetches, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(out.size(), 6u);
    for (int task = 0; task < 2; ++task) {
      const float* sum = out[task * 3].data<float>();
      const float* mean = out[task * 3 + 1].data<float>();
      const float* max = out[task * 3 + 2].data<float>();
      for (int i = 0; i < kN; ++i) {
        ASSERT_EQ(sum[i], a[i] + b[i]) << "task " << task << " element " << i;
        ASSERT_EQ(mean[i], (a[i] + b[i]) / 2.0f) << i;
        ASSERT_EQ(max[i], std::max(a[i], b[i])) << i;
      }
    }
  }
}

// Four members, two per task: integers sum exactly; all-gather puts the
// members' inputs in rank order; a broadcast from task 1's second device
// reaches all three others; eight all-reduces of one step run at once
// (told apart by their tags).
TEST_F(ClusterCollectivesTest, FourMembersOnTwoTasks) {
  StartCluster("CPU:2");
  Scope root = Scope::NewRootScope();
  std::vector<std::string> sums, gathers, broadcasts, many;
  for (int task = 0; task < 2; ++task) {
    for (int cpu = 0; cpu < 2; ++cpu) {
      const int rank = task * 2 + cpu;
      const Scope s = root.WithDevice(Device(task, cpu));
      const std::string tag = absl::StrCat(task, "_", cpu);
      auto ints = ops::Const(s, {rank + 1, 10 * (rank + 1), -rank}, {3});
      ops::CollectiveAllReduce(s.WithOpName("sum_" + tag), ints, 4, 1, 1);
      sums.push_back("sum_" + tag);
      auto row = ops::Const(s, {static_cast<float>(rank), rank + 0.5f}, {1, 2});
      ops::CollectiveAllGather(s.WithOpName("gather_" + tag), row, 4, 2, 1);
      gathers.push_back("gather_" + tag);
      if (rank == 3) {
        Tensor value(DT_DOUBLE, TensorShape({3}));
        value.data<double>()[0] = 4.0;
        value.data<double>()[1] = -8.0;
        value.data<double>()[2] = 16.0;
        ops::CollectiveBroadcastSend(s.WithOpName("bcast_" + tag),
                                     ops::Const(s, value), 4, 3, 1);
      } else {
        ops::CollectiveBroadcastRecv(s.WithOpName("bcast_" + tag), DT_DOUBLE,
                                     TensorShape({3}), 4, 3, 1);
      }
      broadcasts.push_back("bcast_" + tag);
      for (int k = 0; k < 8; ++k) {
        const std::string name = absl::StrCat("many", k, "_", tag);
        Tensor value(DT_INT64, TensorShape({1}));
        value.data<int64_t>()[0] = k * 100 + rank;
        ops::CollectiveAllReduce(s.WithOpName(name), ops::Const(s, value), 4, 4,
                                 10 + k);
        many.push_back(name);
      }
    }
  }
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  std::unique_ptr<ClusterSession> session = NewSession(def);
  ASSERT_NE(session, nullptr);
  std::vector<std::string> fetches;
  for (auto* list : {&sums, &gathers, &broadcasts, &many}) {
    fetches.insert(fetches.end(), list->begin(), list->end());
  }
  for (int step = 0; step < 2; ++step) {
    std::vector<Tensor> out;
    absl::Status s = session->Run({}, fetches, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    for (int m = 0; m < 4; ++m) {
      const int32_t* sum = out[m].data<int32_t>();
      EXPECT_EQ(sum[0], 1 + 2 + 3 + 4);
      EXPECT_EQ(sum[1], 10 + 20 + 30 + 40);
      EXPECT_EQ(sum[2], 0 - 1 - 2 - 3);
      const Tensor& gather = out[4 + m];
      ASSERT_EQ(gather.shape(), TensorShape({4, 2}));
      for (int r = 0; r < 4; ++r) {
        EXPECT_EQ(gather.data<float>()[2 * r], static_cast<float>(r));
        EXPECT_EQ(gather.data<float>()[2 * r + 1], r + 0.5f);
      }
      const double* bcast = out[8 + m].data<double>();
      EXPECT_EQ(bcast[0], 4.0);
      EXPECT_EQ(bcast[1], -8.0);
      EXPECT_EQ(bcast[2], 16.0);
      for (int k = 0; k < 8; ++k) {
        EXPECT_EQ(out[12 + m * 8 + k].data<int64_t>()[0], 4 * k * 100 + 6)
            << "instance " << 10 + k << " member " << m;
      }
    }
  }
}

// A group across tasks with a member missing from the graph is refused when
// the master compiles it, naming the group, its nodes and devices.
TEST_F(ClusterCollectivesTest, AGroupAcrossTasksNeedsAllItsMembers) {
  StartCluster("CPU:1");
  Scope root = Scope::NewRootScope();
  for (int task = 0; task < 2; ++task) {
    const Scope s = root.WithDevice(Device(task, 0));
    ops::CollectiveAllReduce(s.WithOpName(absl::StrCat("r", task)),
                             ops::Const(s, {1.0f}, {1}), 3, 5, 1);
  }
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  std::unique_ptr<ClusterSession> session = NewSession(def);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"r0", "r1"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("collective group 5"));
  EXPECT_THAT(s.message(), HasSubstr("group_size 3"));
  EXPECT_THAT(s.message(), HasSubstr(Device(1, 0)));
}

// A group on one task keeps meeting in that task's process (no attrs).
TEST(CollectiveGroupsTest, LeavesGroupsOnOneTaskAlone) {
  Scope root = Scope::NewRootScope();
  for (int cpu = 0; cpu < 2; ++cpu) {
    const Scope s = root.WithDevice(Device(0, cpu));
    ops::CollectiveAllReduce(s.WithOpName(absl::StrCat("r", cpu)),
                             ops::Const(s, {1.0f}, {1}), 2, 5, 1);
  }
  Graph g;
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  ASSERT_TRUE(ImportGraphDef(def, ImportOptions(), &g).ok());
  for (Node* n : g.nodes()) n->set_assigned_device(n->requested_device());
  ASSERT_TRUE(AnnotateCollectiveGroups(&g, "session").ok());
  for (Node* n : g.nodes()) {
    EXPECT_EQ(n->FindAttr("_group_devices"), nullptr) << n->name();
  }
}

}  // namespace
}  // namespace dflow
