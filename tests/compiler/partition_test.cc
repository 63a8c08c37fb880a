// Tests for the partition pass: transfers per (tensor, destination device),
// control edges, references, chains, names, determinism, errors, and random
// placed DAGs whose every cross-device edge must have exactly one route.

#include "compiler/partition.h"

#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "graph/graph_def_import.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Cpu(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i);
}

// Assigns every node of the scope's graph a device: `devices[name]`, else
// CPU:0.
void Place(const Scope& root,
           const std::map<std::string, std::string>& devices) {
  ASSERT_TRUE(root.ok()) << root.status();
  for (Node* n : root.graph()->nodes()) {
    auto it = devices.find(n->name());
    n->set_assigned_device(it == devices.end() ? Cpu(0) : it->second);
  }
}

std::vector<GraphPartition> Partition(const Graph& graph,
                                      PartitionStats* stats = nullptr,
                                      const PartitionOptions& options = {}) {
  absl::StatusOr<std::vector<GraphPartition>> parts =
      PartitionGraph(graph, options, stats);
  EXPECT_TRUE(parts.ok()) << parts.status();
  return parts.ok() ? *std::move(parts) : std::vector<GraphPartition>{};
}

const GraphPartition* PartitionOf(const std::vector<GraphPartition>& parts,
                                  const std::string& device) {
  for (const GraphPartition& p : parts) {
    if (p.device == device) return &p;
  }
  return nullptr;
}

const NodeDef* FindNode(const GraphDef& def, const std::string& name) {
  for (const NodeDef& n : def.node()) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

std::vector<const NodeDef*> NodesWithOp(const GraphDef& def,
                                        const std::string& op) {
  std::vector<const NodeDef*> out;
  for (const NodeDef& n : def.node()) {
    if (n.op() == op) out.push_back(&n);
  }
  return out;
}

int CountOp(const std::vector<GraphPartition>& parts, const std::string& op) {
  int count = 0;
  for (const GraphPartition& p : parts) {
    count += static_cast<int>(NodesWithOp(p.graph, op).size());
  }
  return count;
}

std::string StringAttr(const NodeDef& n, const std::string& name) {
  auto it = n.attr().find(name);
  return it == n.attr().end() ? "<missing>" : it->second.s();
}

std::vector<std::string> Inputs(const NodeDef* n) {
  if (n == nullptr) return {"<no node>"};
  return {n->input().begin(), n->input().end()};
}

std::string Deterministic(const GraphDef& def) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    def.SerializeToCodedStream(&coded);
  }
  return out;
}

// Every partition imports on its own (inputs resolve inside it, attrs fit
// the schemas, shapes infer) and is acyclic.
void ExpectImportsAndAcyclic(const std::vector<GraphPartition>& parts) {
  for (const GraphPartition& p : parts) {
    Graph g;
    absl::Status s = ImportGraphDef(p.graph, ImportOptions(), &g);
    ASSERT_TRUE(s.ok()) << p.device << ": " << s;
    EXPECT_TRUE(g.TopologicalOrder().ok()) << p.device;
    for (const NodeDef& n : p.graph.node()) {
      EXPECT_EQ(n.device(), p.device) << n.name();
    }
  }
}

// The partitions joined again, each _Send feeding the _Recv with its key,
// have no cycle: the partitions of a step cannot wait on each other forever.
bool GloballyAcyclic(const std::vector<GraphPartition>& parts) {
  std::map<std::string, std::vector<std::string>> succ;  // node -> users
  std::map<std::string, int> indegree;
  std::map<std::string, std::string> send_of_key;
  auto key_of = [](const NodeDef& n) {
    return RendezvousKey(StringAttr(n, "send_device"),
                         StringAttr(n, "recv_device"),
                         StringAttr(n, "tensor_name"));
  };
  for (const GraphPartition& p : parts) {
    for (const NodeDef& n : p.graph.node()) {
      indegree.emplace(n.name(), 0);
      if (n.op() == kSendOp) send_of_key[key_of(n)] = n.name();
    }
  }
  auto add_edge = [&](const std::string& from, const std::string& to) {
    succ[from].push_back(to);
    ++indegree[to];
  };
  for (const GraphPartition& p : parts) {
    for (const NodeDef& n : p.graph.node()) {
      for (std::string in : n.input()) {
        if (in[0] == '^') in = in.substr(1);
        add_edge(in.substr(0, in.find(':')), n.name());
      }
      if (n.op() == kRecvOp) {
        auto it = send_of_key.find(key_of(n));
        if (it == send_of_key.end()) return false;
        add_edge(it->second, n.name());
      }
    }
  }
  std::vector<std::string> ready;
  for (const auto& [name, d] : indegree) {
    if (d == 0) ready.push_back(name);
  }
  size_t done = 0;
  while (!ready.empty()) {
    std::string n = ready.back();
    ready.pop_back();
    ++done;
    for (const std::string& s : succ[n]) {
      if (--indegree[s] == 0) ready.push_back(s);
    }
  }
  return done == indegree.size();
}

// ---- Basics ---------------------------------------------------------------

TEST(PartitionTest, SingleDeviceIsTheGraphWithDevicesSet) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), 1.0f);
  Output y = ops::Add(root.WithOpName("y"), x, x);
  ops::Identity(root.WithOpName("z").WithControlDependencies(x), y);
  Place(root, {});
  PartitionStats stats;
  std::vector<GraphPartition> parts = Partition(*root.graph(), &stats);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].device, Cpu(0));
  EXPECT_EQ(stats.sends, 0);
  EXPECT_EQ(stats.recvs, 0);
  EXPECT_EQ(stats.control_transfers, 0);
  GraphDef expected;
  root.graph()->ToGraphDef(&expected);
  for (NodeDef& n : *expected.mutable_node()) n.set_device(Cpu(0));
  EXPECT_EQ(Deterministic(parts[0].graph), Deterministic(expected));
  ExpectImportsAndAcyclic(parts);
}

TEST(PartitionTest, FanOutToOneDeviceSharesOneTransfer) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), 2.0f);
  ops::Neg(root.WithOpName("a"), x);
  ops::Square(root.WithOpName("b"), x);
  ops::Add(root.WithOpName("c"), x, x);
  Place(root, {{"a", Cpu(1)}, {"b", Cpu(1)}, {"c", Cpu(1)}});
  PartitionStats stats;
  std::vector<GraphPartition> parts = Partition(*root.graph(), &stats);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(stats.sends, 1);
  EXPECT_EQ(stats.recvs, 1);
  EXPECT_EQ(stats.control_transfers, 0);

  const GraphDef& cpu0 = PartitionOf(parts, Cpu(0))->graph;
  const GraphDef& cpu1 = PartitionOf(parts, Cpu(1))->graph;
  std::vector<const NodeDef*> sends = NodesWithOp(cpu0, kSendOp);
  std::vector<const NodeDef*> recvs = NodesWithOp(cpu1, kRecvOp);
  ASSERT_EQ(sends.size(), 1u);
  ASSERT_EQ(recvs.size(), 1u);
  const NodeDef& send = *sends[0];
  const NodeDef& recv = *recvs[0];
  EXPECT_EQ(send.name(), "_send_x_0_to_CPU_1");
  EXPECT_EQ(recv.name(), "_recv_x_0_to_CPU_1");
  EXPECT_THAT(Inputs(&send), ElementsAre("x"));
  EXPECT_EQ(StringAttr(send, "tensor_name"), "x:0");
  EXPECT_EQ(StringAttr(send, "send_device"), Cpu(0));
  EXPECT_EQ(StringAttr(send, "recv_device"), Cpu(1));
  EXPECT_EQ(send.attr().at("T").type(), DT_FLOAT);
  EXPECT_EQ(send.attr().at("send_device_incarnation").i(), 0);
  EXPECT_FALSE(send.attr().at("client_terminated").b());
  for (const char* attr :
       {"tensor_name", "send_device", "recv_device", "key_prefix"}) {
    EXPECT_EQ(StringAttr(recv, attr), StringAttr(send, attr)) << attr;
  }
  EXPECT_EQ(recv.attr().at("tensor_type").type(), DT_FLOAT);
  EXPECT_EQ(recv.attr().at("send_device_incarnation").i(), 0);
  EXPECT_FALSE(recv.attr().at("client_terminated").b());
  EXPECT_TRUE(recv.input().empty());
  EXPECT_THAT(Inputs(FindNode(cpu1, "a")), ElementsAre(recv.name()));
  EXPECT_THAT(Inputs(FindNode(cpu1, "b")), ElementsAre(recv.name()));
  EXPECT_THAT(Inputs(FindNode(cpu1, "c")),
              ElementsAre(recv.name(), recv.name()));
  EXPECT_EQ(FindNode(cpu1, "x"), nullptr);
  EXPECT_EQ(FindNode(cpu0, "a"), nullptr);
  ExpectImportsAndAcyclic(parts);
  EXPECT_TRUE(GloballyAcyclic(parts));
}

// A _Recv of a batch-dependent tensor ([?,3]) takes the shape the compile
// call's feeds give it as `_feed_shape`; one whose static shape is
// complete needs none.
TEST(PartitionTest, HintedShapesReachTheRecvsOfPartialShapes) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT,
                              ops::PlaceholderAttrs().Shape({-1, 3}));
  Output c = ops::Const(root.WithOpName("c"), 2.0f);
  ops::Mul(root.WithOpName("m"), x, c);
  Place(root, {{"m", Cpu(1)}});
  std::vector<std::vector<TensorShape>> hinted(root.graph()->num_node_ids());
  hinted[root.graph()->FindNode("x")->id()] = {TensorShape({8, 3})};
  hinted[root.graph()->FindNode("c")->id()] = {TensorShape()};
  PartitionOptions options;
  options.hinted_shapes = &hinted;
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), nullptr, options);
  ASSERT_EQ(parts.size(), 2u);
  const GraphDef& cpu1 = PartitionOf(parts, Cpu(1))->graph;
  const NodeDef* recv_x = FindNode(cpu1, "_recv_x_0_to_CPU_1");
  const NodeDef* recv_c = FindNode(cpu1, "_recv_c_0_to_CPU_1");
  ASSERT_TRUE(recv_x != nullptr && recv_c != nullptr);
  ASSERT_TRUE(recv_x->attr().contains("_feed_shape"));
  absl::StatusOr<TensorShape> hint =
      TensorShape::FromProto(recv_x->attr().at("_feed_shape").shape());
  ASSERT_TRUE(hint.ok()) << hint.status();
  EXPECT_EQ(*hint, TensorShape({8, 3}));
  EXPECT_FALSE(recv_c->attr().contains("_feed_shape"));
  // Without hints, nothing is added.
  parts = Partition(*root.graph());
  EXPECT_FALSE(FindNode(PartitionOf(parts, Cpu(1))->graph, "_recv_x_0_to_CPU_1")
                   ->attr()
                   .contains("_feed_shape"));
}

TEST(PartitionTest, FanOutToTwoDevicesSendsTwice) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), 2.0f);
  ops::Neg(root.WithOpName("a"), x);
  ops::Neg(root.WithOpName("a2"), x);
  ops::Square(root.WithOpName("b"), x);
  ops::Exp(root.WithOpName("local"), x);
  Place(root, {{"a", Cpu(1)}, {"a2", Cpu(1)}, {"b", Cpu(2)}});
  PartitionStats stats;
  std::vector<GraphPartition> parts = Partition(*root.graph(), &stats);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(stats.sends, 2);
  EXPECT_EQ(stats.recvs, 2);
  const GraphDef& cpu0 = PartitionOf(parts, Cpu(0))->graph;
  std::vector<const NodeDef*> sends = NodesWithOp(cpu0, kSendOp);
  ASSERT_EQ(sends.size(), 2u);
  EXPECT_EQ(StringAttr(*sends[0], "recv_device"), Cpu(1));
  EXPECT_EQ(StringAttr(*sends[1], "recv_device"), Cpu(2));
  EXPECT_THAT(Inputs(FindNode(cpu0, "local")), ElementsAre("x"));
  EXPECT_THAT(Inputs(FindNode(PartitionOf(parts, Cpu(2))->graph, "b")),
              ElementsAre("_recv_x_0_to_CPU_2"));
  ExpectImportsAndAcyclic(parts);
  EXPECT_TRUE(GloballyAcyclic(parts));
}

TEST(PartitionTest, EachOutputOfANodeIsItsOwnTensor) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  Output b = ops::Const(root.WithOpName("b"), 2.0f);
  OutputList both = ops::IdentityN(root.WithOpName("n"), {a, b});
  ASSERT_EQ(both.size(), 2u);
  ops::Add(root.WithOpName("sum"), both[1], both[0]);
  Place(root, {{"sum", Cpu(1)}});
  PartitionStats stats;
  std::vector<GraphPartition> parts = Partition(*root.graph(), &stats);
  EXPECT_EQ(stats.sends, 2);
  const GraphDef& cpu0 = PartitionOf(parts, Cpu(0))->graph;
  const GraphDef& cpu1 = PartitionOf(parts, Cpu(1))->graph;
  EXPECT_THAT(Inputs(FindNode(cpu1, "sum")),
              ElementsAre("_recv_n_1_to_CPU_1", "_recv_n_0_to_CPU_1"));
  EXPECT_THAT(Inputs(FindNode(cpu0, "_send_n_1_to_CPU_1")), ElementsAre("n:1"));
  EXPECT_EQ(StringAttr(*FindNode(cpu1, "_recv_n_1_to_CPU_1"), "tensor_name"),
            "n:1");
  ExpectImportsAndAcyclic(parts);
}

TEST(PartitionTest, KeyPrefixReachesEveryTransferAndTheKey) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root.WithOpName("x"), 2.0f);
  ops::Neg(root.WithOpName("a"), x);
  Place(root, {{"a", Cpu(1)}});
  PartitionOptions options;
  options.key_prefix = "session7;";
  std::vector<GraphPartition> parts =
      Partition(*root.graph(), nullptr, options);
  const NodeDef& recv =
      *FindNode(PartitionOf(parts, Cpu(1))->graph, "_recv_x_0_to_CPU_1");
  const NodeDef& send =
      *FindNode(PartitionOf(parts, Cpu(0))->graph, "_send_x_0_to_CPU_1");
  EXPECT_EQ(StringAttr(recv, "key_prefix"), "session7;");
  EXPECT_EQ(StringAttr(send, "key_prefix"), "session7;");
  EXPECT_EQ(RendezvousKey(Cpu(0), Cpu(1), "x:0", "session7;"),
            absl::StrCat("session7;", Cpu(0), ";", Cpu(1), ";x:0"));
  EXPECT_EQ(RendezvousKey("A", "B", "t:3"), "A;B;t:3");
}

// ---- Control edges ----------------------------------------------------------

TEST(PartitionTest, ControlEdgeAcrossDevicesGoesThroughADummy) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  Output c = ops::Const(root.WithOpName("c"), 3.0f);
  ops::Neg(root.WithOpName("b").WithControlDependencies(a), c);
  ops::Exp(root.WithOpName("b2").WithControlDependencies(a), c);
  Place(root, {{"b", Cpu(1)}, {"b2", Cpu(1)}, {"c", Cpu(1)}});
  PartitionStats stats;
  std::vector<GraphPartition> parts = Partition(*root.graph(), &stats);
  EXPECT_EQ(stats.sends, 1);
  EXPECT_EQ(stats.recvs, 1);
  EXPECT_EQ(stats.control_transfers, 1);
  const GraphDef& cpu0 = PartitionOf(parts, Cpu(0))->graph;
  const GraphDef& cpu1 = PartitionOf(parts, Cpu(1))->graph;
  const NodeDef* dummy = FindNode(cpu0, "ctrl_dummy/a");
  ASSERT_NE(dummy, nullptr);
  EXPECT_EQ(dummy->op(), "Const");
  EXPECT_THAT(Inputs(dummy), ElementsAre("^a"));
  EXPECT_THAT(Inputs(FindNode(cpu0, "_send_a_ctrl_to_CPU_1")),
              ElementsAre("ctrl_dummy/a"));
  EXPECT_THAT(Inputs(FindNode(cpu1, "b")),
              ElementsAre("c", "^_recv_a_ctrl_to_CPU_1"));
  EXPECT_THAT(Inputs(FindNode(cpu1, "b2")),
              ElementsAre("c", "^_recv_a_ctrl_to_CPU_1"));
  ExpectImportsAndAcyclic(parts);
  EXPECT_TRUE(GloballyAcyclic(parts));
}

TEST(PartitionTest, OneDummyPerSourceOneTransferPerDestinationDevice) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  ops::Const(root.WithOpName("b").WithControlDependencies(a), 2.0f);
  ops::Const(root.WithOpName("c").WithControlDependencies(a), 2.0f);
  ops::Const(root.WithOpName("d").WithControlDependencies(a), 2.0f);
  Place(root, {{"b", Cpu(1)}, {"c", Cpu(2)}, {"d", Cpu(0)}});
  PartitionStats stats;
  std::vector<GraphPartition> parts = Partition(*root.graph(), &stats);
  EXPECT_EQ(stats.sends, 2);
  EXPECT_EQ(stats.control_transfers, 2);
  EXPECT_EQ(CountOp(parts, "Const"), 5);  // a, b, c, d and one dummy
  EXPECT_THAT(Inputs(FindNode(PartitionOf(parts, Cpu(0))->graph, "d")),
              ElementsAre("^a"));
  ExpectImportsAndAcyclic(parts);
}

TEST(PartitionTest, ControlEdgeImpliedByADataTransferIsDropped) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  ops::Neg(root.WithOpName("b").WithControlDependencies(a), a);
  Place(root, {{"b", Cpu(1)}});
  PartitionStats stats;
  std::vector<GraphPartition> parts = Partition(*root.graph(), &stats);
  EXPECT_EQ(stats.sends, 1);
  EXPECT_EQ(stats.control_transfers, 0);
  EXPECT_THAT(Inputs(FindNode(PartitionOf(parts, Cpu(1))->graph, "b")),
              ElementsAre("_recv_a_0_to_CPU_1"));
}

// ---- References -------------------------------------------------------------

TEST(PartitionTest, ReferenceReadAsValueIsSentAsTheValue) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  Output c = ops::Const(root.WithOpName("c"), 1.0f);
  ops::Assign(root.WithOpName("init"), v,
              ops::Const(root, Tensor::FromVector(std::vector<float>{1, 2})));
  ops::Add(root.WithOpName("use"), v, c);
  Place(root, {{"use", Cpu(1)}, {"c", Cpu(1)}});
  ASSERT_EQ(root.graph()->FindNode("v")->output_type(0), DT_FLOAT_REF);
  PartitionStats stats;
  std::vector<GraphPartition> parts = Partition(*root.graph(), &stats);
  EXPECT_EQ(stats.sends, 1);
  const NodeDef& send =
      *FindNode(PartitionOf(parts, Cpu(0))->graph, "_send_v_0_to_CPU_1");
  const NodeDef& recv =
      *FindNode(PartitionOf(parts, Cpu(1))->graph, "_recv_v_0_to_CPU_1");
  EXPECT_EQ(send.attr().at("T").type(), DT_FLOAT);
  EXPECT_EQ(recv.attr().at("tensor_type").type(), DT_FLOAT);
  ExpectImportsAndAcyclic(parts);
}

TEST(PartitionTest, ReferenceUsedAsReferenceAcrossDevicesIsAnError) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({}), DT_FLOAT);
  ops::Assign(root.WithOpName("assign"), v,
              ops::Const(root.WithOpName("one"), 1.0f));
  Place(root, {{"assign", Cpu(1)}});
  absl::StatusOr<std::vector<GraphPartition>> parts =
      PartitionGraph(*root.graph(), {});
  ASSERT_FALSE(parts.ok());
  EXPECT_EQ(parts.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(parts.status().message(), HasSubstr("'assign'"));
  EXPECT_THAT(parts.status().message(), HasSubstr("'v'"));
  EXPECT_THAT(parts.status().message(), HasSubstr("colocate"));
}

// ---- Chains, names, order -------------------------------------------------

TEST(PartitionTest, ChainAcrossThreeDevices) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  Output b = ops::Neg(root.WithOpName("b"), a);
  Output c = ops::Neg(root.WithOpName("c"), b);
  Output d = ops::Neg(root.WithOpName("d"), c);
  ops::Add(root.WithOpName("e"), d, a);
  Place(root, {{"b", Cpu(1)}, {"c", Cpu(2)}});
  PartitionStats stats;
  std::vector<GraphPartition> parts = Partition(*root.graph(), &stats);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(stats.sends, 3);  // a -> 1, b -> 2, c -> 0
  EXPECT_EQ(stats.recvs, 3);
  EXPECT_THAT(Inputs(FindNode(PartitionOf(parts, Cpu(0))->graph, "d")),
              ElementsAre("_recv_c_0_to_CPU_0"));
  EXPECT_THAT(Inputs(FindNode(PartitionOf(parts, Cpu(0))->graph, "e")),
              ElementsAre("d", "a"));
  ExpectImportsAndAcyclic(parts);
  EXPECT_TRUE(GloballyAcyclic(parts));
}

TEST(PartitionTest, PartitionsAreInDeviceOrder) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  ops::Neg(root.WithOpName("b"), a);
  ops::Neg(root.WithOpName("c"), a);
  Place(root, {{"a", Cpu(10)}, {"b", Cpu(2)}, {"c", Cpu(0)}});
  std::vector<GraphPartition> parts = Partition(*root.graph());
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].device, Cpu(0));
  EXPECT_EQ(parts[1].device, Cpu(2));
  EXPECT_EQ(parts[2].device, Cpu(10));
}

TEST(PartitionTest, AddedNamesAvoidExistingNodes) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  ops::Const(root.WithOpName("ctrl_dummy/a"), 5.0f);
  ops::Const(root.WithOpName("b").WithControlDependencies(a), 2.0f);
  Place(root, {{"b", Cpu(1)}});
  std::vector<GraphPartition> parts = Partition(*root.graph());
  const GraphDef& cpu0 = PartitionOf(parts, Cpu(0))->graph;
  EXPECT_THAT(Inputs(FindNode(cpu0, "ctrl_dummy/a")), ElementsAre());
  EXPECT_THAT(Inputs(FindNode(cpu0, "ctrl_dummy/a_1")), ElementsAre("^a"));
  EXPECT_EQ(StringAttr(*FindNode(cpu0, "_send_a_ctrl_to_CPU_1"), "tensor_name"),
            "ctrl_dummy/a_1:0");
  ExpectImportsAndAcyclic(parts);
}

TEST(PartitionTest, DevicesOfSeveralTasksGetFullNamesInNodeNames) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  ops::Neg(root.WithOpName("b"), a);
  Place(root, {{"b", "/job:worker/replica:0/task:1/device:CPU:0"}});
  std::vector<GraphPartition> parts = Partition(*root.graph());
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_NE(FindNode(parts[0].graph,
                     "_send_a_0_to_job_worker_replica_0_task_1_device_CPU_0"),
            nullptr);
  ExpectImportsAndAcyclic(parts);
}

// The towers-shaped graph built twice gives the same partitions, byte for
// byte, and partitioning one graph twice does too. Bytes are compared under
// protobuf's deterministic serialization: the default one may order map
// entries (attrs) differently from one message to the next.
void BuildTowers(const Scope& root) {
  Output w = ops::Variable(root.WithOpName("w"), TensorShape({2, 2}), DT_FLOAT);
  std::vector<Output> grads;
  for (int i = 0; i < 3; ++i) {
    Scope t = root.NewSubScope(absl::StrCat("tower_", i));
    Output x = ops::Const(t.WithOpName("x"),
                          Tensor::FromVector(std::vector<float>{1, 2, 3, 4},
                                             TensorShape({2, 2})));
    Output y = ops::MatMul(t.WithOpName("mm"), x, w);
    grads.push_back(
        ops::Square(t.WithOpName("sq").WithControlDependencies(w), y));
  }
  ops::AddN(root.WithOpName("sum"), grads);
}

void PlaceTowers(const Scope& root) {
  std::map<std::string, std::string> devices;
  for (Node* n : root.graph()->nodes()) {
    for (int i = 0; i < 3; ++i) {
      if (n->name().rfind(absl::StrCat("tower_", i, "/"), 0) == 0) {
        devices[n->name()] = Cpu(i);
      }
    }
  }
  Place(root, devices);
}

TEST(PartitionTest, DeterministicOutput) {
  std::vector<std::string> first, second, third;
  for (std::vector<std::string>* out : {&first, &second}) {
    Scope root = Scope::NewRootScope();
    BuildTowers(root);
    PlaceTowers(root);
    for (const GraphPartition& p : Partition(*root.graph())) {
      out->push_back(p.device);
      out->push_back(Deterministic(p.graph));
    }
    if (out == &second) {
      for (const GraphPartition& p : Partition(*root.graph())) {
        third.push_back(p.device);
        third.push_back(Deterministic(p.graph));
      }
    }
  }
  EXPECT_EQ(first.size(), 6u);
  EXPECT_EQ(first, second);
  EXPECT_EQ(second, third);
}

TEST(PartitionTest, TowersCountsAndImports) {
  Scope root = Scope::NewRootScope();
  BuildTowers(root);
  PlaceTowers(root);
  PartitionStats stats;
  std::vector<GraphPartition> parts = Partition(*root.graph(), &stats);
  // Data: w (CPU:0) -> towers 1 and 2, their sq -> sum (CPU:0). Control:
  // w -> sq of towers 1 and 2 (sq reads mm, not w, so the control edge is
  // not implied by a data transfer).
  EXPECT_EQ(stats.sends, 6);
  EXPECT_EQ(stats.recvs, 6);
  EXPECT_EQ(stats.control_transfers, 2);
  ExpectImportsAndAcyclic(parts);
  EXPECT_TRUE(GloballyAcyclic(parts));
}

// ---- Errors
// -------------------------------------------------------------------

TEST(PartitionTest, UnplacedNodeIsAnErrorNamingIt) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  ops::Neg(root.WithOpName("b"), a);
  Place(root, {});
  root.graph()->FindNode("b")->set_assigned_device("");
  absl::StatusOr<std::vector<GraphPartition>> parts =
      PartitionGraph(*root.graph(), {});
  ASSERT_FALSE(parts.ok());
  EXPECT_EQ(parts.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(parts.status().message(), HasSubstr("'b'"));
  EXPECT_THAT(parts.status().message(), HasSubstr("Neg"));
  EXPECT_THAT(parts.status().message(), HasSubstr("no assigned device"));
}

TEST(PartitionTest, UnconnectedInputIsAnErrorNamingTheNode) {
  Graph graph;
  NodeDef def;
  def.set_name("lonely");
  def.set_op("Neg");
  (*def.mutable_attr())["T"].set_type(DT_FLOAT);
  absl::StatusOr<Node*> n = graph.AddNode(def);
  ASSERT_TRUE(n.ok()) << n.status();
  (*n)->set_assigned_device(Cpu(0));
  absl::StatusOr<std::vector<GraphPartition>> parts = PartitionGraph(graph, {});
  ASSERT_FALSE(parts.ok());
  EXPECT_THAT(parts.status().message(), HasSubstr("'lonely'"));
  EXPECT_THAT(parts.status().message(), HasSubstr("input 0"));
}

TEST(PartitionTest, EmptyGraphHasNoPartitions) {
  Graph graph;
  PartitionStats stats;
  stats.sends = 7;
  std::vector<GraphPartition> parts = Partition(graph, &stats);
  EXPECT_TRUE(parts.empty());
  EXPECT_EQ(stats.sends, 0);
}

// ---- Random placed DAGs ---------------------------------------------------

// A random DAG of `size` float nodes (Const, Neg, Add, AddN, two-output
// IdentityN) with random control edges, each node on one of 3 devices.
void BuildRandom(const Scope& root, int size, std::mt19937* rng) {
  std::vector<Output> outs;
  std::vector<Operation> ops_so_far;
  auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(*rng);
  };
  for (int i = 0; i < size; ++i) {
    Scope s = root.WithOpName(absl::StrCat("n", i));
    std::vector<Operation> control;
    if (!ops_so_far.empty() && pick(4) == 0) {
      control.push_back(ops_so_far[pick(ops_so_far.size())]);
    }
    if (!control.empty()) s = s.WithControlDependencies(control);
    const size_t kind = outs.size() < 2 ? 0 : pick(5);
    Output a = kind == 0 ? Output() : outs[pick(outs.size())];
    Output b = kind == 0 ? Output() : outs[pick(outs.size())];
    switch (kind) {
      case 0:
        outs.push_back(ops::Const(s, static_cast<float>(i)));
        break;
      case 1:
        outs.push_back(ops::Neg(s, a));
        break;
      case 2:
        outs.push_back(ops::Add(s, a, b));
        break;
      case 3:
        outs.push_back(ops::AddN(s, {a, b, outs[pick(outs.size())]}));
        break;
      default: {
        OutputList two = ops::IdentityN(s, {a, b});
        outs.insert(outs.end(), two.begin(), two.end());
        break;
      }
    }
    ops_so_far.push_back(outs.back().op());
  }
}

TEST(PartitionTest, RandomDagsHaveExactlyOneRoutePerCrossDeviceEdge) {
  for (int seed = 0; seed < 100; ++seed) {
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    std::mt19937 rng(seed);
    Scope root = Scope::NewRootScope();
    BuildRandom(root, 50, &rng);
    ASSERT_TRUE(root.ok()) << root.status();
    const Graph& graph = *root.graph();
    for (Node* n : graph.nodes()) {
      n->set_assigned_device(
          Cpu(std::uniform_int_distribution<int>(0, 2)(rng)));
    }
    PartitionStats stats;
    std::vector<GraphPartition> parts = Partition(graph, &stats);
    ASSERT_FALSE(parts.empty());

    std::set<std::tuple<std::string, int, std::string>> data_routes;
    std::set<std::pair<std::string, std::string>> control_routes;
    for (const Node* n : graph.nodes()) {
      const GraphDef& part = PartitionOf(parts, n->assigned_device())->graph;
      const NodeDef* def = FindNode(part, n->name());
      ASSERT_NE(def, nullptr) << n->name();
      std::set<std::string> data_srcs;
      for (const Edge* e : n->in_edges()) {
        if (!e->IsControl()) data_srcs.insert(e->src->name());
      }
      for (const Edge* e : n->in_edges()) {
        const std::string& from = e->src->assigned_device();
        if (e->IsControl()) {
          if (from == n->assigned_device() || data_srcs.count(e->src->name())) {
            continue;
          }
          control_routes.insert({e->src->name(), n->assigned_device()});
          continue;
        }
        const std::string in = def->input(e->dst_input);
        const std::string tensor =
            absl::StrCat(e->src->name(), ":", e->src_output);
        if (from == n->assigned_device()) {
          EXPECT_EQ(in, e->src_output == 0 ? e->src->name() : tensor);
          continue;
        }
        data_routes.insert(
            {e->src->name(), e->src_output, n->assigned_device()});
        // The input is a _Recv of this tensor from the source's device...
        const NodeDef* recv = FindNode(part, in);
        ASSERT_NE(recv, nullptr) << in;
        EXPECT_EQ(recv->op(), kRecvOp);
        EXPECT_EQ(StringAttr(*recv, "tensor_name"), tensor);
        EXPECT_EQ(StringAttr(*recv, "send_device"), from);
        EXPECT_EQ(StringAttr(*recv, "recv_device"), n->assigned_device());
        // ... and exactly one _Send on that device sends it here.
        int sends = 0;
        for (const NodeDef* send :
             NodesWithOp(PartitionOf(parts, from)->graph, kSendOp)) {
          if (StringAttr(*send, "tensor_name") == tensor &&
              StringAttr(*send, "recv_device") == n->assigned_device()) {
            ++sends;
            EXPECT_THAT(
                Inputs(send),
                ElementsAre(e->src_output == 0 ? e->src->name() : tensor));
          }
        }
        EXPECT_EQ(sends, 1) << tensor << " to " << n->assigned_device();
      }
    }
    const int routes =
        static_cast<int>(data_routes.size() + control_routes.size());
    EXPECT_EQ(stats.sends, routes);
    EXPECT_EQ(stats.recvs, routes);
    EXPECT_EQ(stats.control_transfers, static_cast<int>(control_routes.size()));
    EXPECT_EQ(CountOp(parts, kSendOp), routes);
    EXPECT_EQ(CountOp(parts, kRecvOp), routes);
    // Every original node appears once, plus one dummy per control source.
    int nodes = 0;
    for (const GraphPartition& p : parts) nodes += p.graph.node_size();
    std::set<std::string> control_sources;
    for (const auto& [src, dst] : control_routes) control_sources.insert(src);
    EXPECT_EQ(nodes, graph.num_nodes() + 2 * routes +
                         static_cast<int>(control_sources.size()));
    ExpectImportsAndAcyclic(parts);
    EXPECT_TRUE(GloballyAcyclic(parts));
  }
}

}  // namespace
}  // namespace dflow
