// Reference variables (VariableV2) are updated in place, as TensorFlow's:
// the snapshot a reader took (`v/read`) sees every later update, so a
// reader ordered after a training update reads the new weights (seed 003's
// ExponentialMovingAverage) while resource variables still copy on write.
// First a graph TensorFlow 2.21 wrote
// (tools/tf_reference/make_ref_variable_reference.py) gives TensorFlow's
// values; then what dflow adds so in-place updates never reach a value kept
// beyond the step: a fetch, the Const a variable was initialized from,
// another variable assigned the read.
#include <memory>
#include <string>
#include <vector>

#include "compiler/lower_functional_if.h"
#include "graph/graph.h"
#include "graph/graph_def_file.h"
#include "graph/graph_def_import.h"
#include "graph/ops/ops.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/tf_stepped_cases.h"

namespace dflow {
namespace {

using testing_tf_values::Line;

constexpr char kDir[] = "tests/testdata/tf_ref_variables/";
constexpr int kSteps = 3;  // the runs of `train` the reference made

TEST(RefVariableTest, TensorFlowsGraphGivesItsValues) {
  const std::vector<Line> lines =
      testing_tf_values::ReadLines(std::string(kDir) + "cases.txt");
  ASSERT_EQ(lines.size(), 21u);  // 3 feeds, 18 fetches
  std::vector<const Line*> fetched;
  std::vector<Tensor> outputs;
  testing_tf_values::RunSteps(kDir, lines, "train", kSteps, &fetched, &outputs);
  testing_tf_values::ExpectValues(fetched, outputs);
}

std::vector<float> Floats(const Tensor& t) {
  auto f = t.flat<float>();
  return std::vector<float>(f.begin(), f.end());
}

// v (a reference variable of 3 floats) initialized from the Const `c`,
// `add` adds ones to it; r (a resource variable) takes v's read.
class RefVariableGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Output v = ops::Variable(root_.WithOpName("v"), TensorShape({3}),
                             DT_FLOAT);
    Output c = ops::Const(root_.WithOpName("c"), {1.0f, 2.0f, 3.0f});
    ops::Assign(root_.WithOpName("init"), v, c);
    Output read = ops::Identity(root_.WithOpName("v/read"), v);
    Output add = ops::AssignAdd(root_.WithOpName("add"), v,
                                ops::Const(root_, {1.0f, 1.0f, 1.0f}));
    // A read taken before the update (ordered by `read`'s control edge),
    // used after it.
    Output before = ops::Identity(
        root_.WithOpName("before").WithControlDependencies(add.op()), read);
    (void)before;
    Output r = ops::VarHandleOp(root_.WithOpName("r"), DT_FLOAT,
                                TensorShape({3}));
    ops::AssignVariableOp(root_.WithOpName("take"), r, read);
    ops::ReadVariableOp(root_.WithOpName("r_value"), r, DT_FLOAT);
    GraphDef def;
    ASSERT_TRUE(root_.ToGraphDef(&def).ok());
    absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
    ASSERT_TRUE(session.ok()) << session.status();
    session_ = *std::move(session);
    Target("init");
  }

  void Target(const std::string& name) {
    absl::Status s = session_->Run({}, {}, {name}, nullptr);
    ASSERT_TRUE(s.ok()) << name << ": " << s;
  }
  Tensor Fetch(const std::string& name) {
    std::vector<Tensor> out;
    absl::Status s = session_->Run({}, {name}, {}, &out);
    EXPECT_TRUE(s.ok()) << name << ": " << s;
    return out.empty() ? Tensor() : out[0];
  }

  Scope root_ = Scope::NewRootScope();
  std::unique_ptr<Session> session_;
};

TEST_F(RefVariableGraphTest, AReadOrderedAfterAnUpdateSeesIt) {
  std::vector<Tensor> out;
  // `before` runs after `add` in the same step: TensorFlow's value is the
  // updated one, although v/read ran first.
  ASSERT_TRUE(session_->Run({}, {"before"}, {}, &out).ok());
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{2.0f, 3.0f, 4.0f}));
}

TEST_F(RefVariableGraphTest, AFetchedValueStaysAsItWas) {
  const Tensor v = Fetch("v");
  const Tensor read = Fetch("v/read");
  Target("add");
  Target("add");
  EXPECT_EQ(Floats(v), (std::vector<float>{1.0f, 2.0f, 3.0f}));
  EXPECT_EQ(Floats(read), (std::vector<float>{1.0f, 2.0f, 3.0f}));
  EXPECT_EQ(Floats(Fetch("v")), (std::vector<float>{3.0f, 4.0f, 5.0f}));
}

TEST_F(RefVariableGraphTest, TheConstItWasAssignedIsUntouched) {
  Target("add");
  Target("add");
  EXPECT_EQ(Floats(Fetch("c")), (std::vector<float>{1.0f, 2.0f, 3.0f}));
  Target("init");  // copies into v's own buffer, under any reader
  EXPECT_EQ(Floats(Fetch("v")), (std::vector<float>{1.0f, 2.0f, 3.0f}));
}

TEST_F(RefVariableGraphTest, AnotherVariableAssignedItsReadKeepsTheValue) {
  Target("take");
  Target("add");
  EXPECT_EQ(Floats(Fetch("r_value")), (std::vector<float>{1.0f, 2.0f, 3.0f}));
  EXPECT_EQ(Floats(Fetch("v")), (std::vector<float>{2.0f, 3.0f, 4.0f}));
}

TEST(RefVariableAssignTest, SameElementsOtherShapeAndItsOwnValue) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2, 2}),
                           DT_FLOAT);
  ops::Assign(root.WithOpName("init"), v,
              ops::Const(root, {1.0f, 2.0f, 3.0f, 4.0f}, TensorShape({2, 2})));
  // validate_shape=false: four elements as a vector, into v's buffer.
  ops::Assign(root.WithOpName("flat"), v,
              ops::Const(root, {5.0f, 6.0f, 7.0f, 8.0f}),
              ops::AssignAttrs().ValidateShape(false));
  // v = v: a copy onto itself (the vector shape it now has).
  ops::Assign(root.WithOpName("self"), v, ops::Identity(root, v),
              ops::AssignAttrs().ValidateShape(false));
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  for (const char* target : {"init", "flat", "self"}) {
    absl::Status s = (*session)->Run({}, {}, {target}, nullptr);
    ASSERT_TRUE(s.ok()) << target << ": " << s;
  }
  ASSERT_TRUE((*session)->Run({}, {"v"}, {}, &out).ok());
  EXPECT_EQ(out[0].shape(), TensorShape({4}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{5.0f, 6.0f, 7.0f, 8.0f}));
}

// TF1's initialized_value() is If(IsVariableInitialized(v), v, initial):
// the variable reaches the If, which reads it only when it is initialized.
// Lowered, its Switch is colocated with the variable, so on a machine where
// the variable and the branch land on different devices the uninitialized
// variable is not sent (and read) before the Switch chose the branch.
TEST(RefVariableTest, InitializedValueSwitchStaysWithTheVariable) {
  absl::StatusOr<GraphDef> def =
      ReadGraphDefFile(std::string(kDir) + "graph.pb");
  ASSERT_TRUE(def.ok()) << def.status();
  Graph graph;
  ASSERT_TRUE(ImportGraphDef(*def, ImportOptions(), &graph).ok());
  OptimizationOptions optimization;
  PassContext context;
  context.options = &optimization;
  ASSERT_TRUE(LowerFunctionalIf(context, &graph).ok());
  int switches = 0;
  for (const Node* n : graph.nodes()) {
    if (n->op() != "Switch") continue;
    const Node* data = nullptr;
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControl() && e->dst_input == 0) data = e->src;
    }
    ASSERT_NE(data, nullptr) << n->name();
    if (data->op() != "VariableV2") continue;
    ++switches;
    const AttrValue* colocation = n->FindAttr("_class");
    ASSERT_NE(colocation, nullptr) << n->name();
    ASSERT_EQ(colocation->list().s_size(), 1) << n->name();
    EXPECT_EQ(colocation->list().s(0), "loc:@" + data->name()) << n->name();
  }
  EXPECT_GE(switches, 2);  // ema/w2's initialized_value, and cond_2
}

}  // namespace
}  // namespace dflow
