// Tests for the C++ builder's Scope: unique names, name scopes, devices,
// colocation, control dependencies, error handling, ToGraphDef, and
// ActiveScope. OpBuilder's own rules are in op_builder_test.cc.

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/attr_value_util.h"
#include "graph/graph.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "gtest/gtest.h"
#include "proto/graph.pb.h"
#include "tests/graph/scope_test_util.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// ---- Names
// --------------------------------------------------------------------

TEST(ScopeNamesTest, DefaultNamesGetSuffixes) {
  Scope root = Scope::NewRootScope();
  Output a = FloatConst(root, {2, 2});
  Output m0 = MatMul(root, a, a);
  Output m1 = MatMul(root, a, a);
  Output m2 = MatMul(root, a, a);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(a.name(), "Const");
  EXPECT_EQ(m0.name(), "MatMul");
  EXPECT_EQ(m1.name(), "MatMul_1");
  EXPECT_EQ(m2.name(), "MatMul_2");
}

TEST(ScopeNamesTest, ExplicitNameIsSkippedByDefaultNames) {
  Scope root = Scope::NewRootScope();
  Operation explicit_op = NoOp(root.WithOpName("foo_1"));
  Operation f0 = OpBuilder(root, "TestNoOp", "foo").Finalize();
  Operation f1 = OpBuilder(root, "TestNoOp", "foo").Finalize();
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(explicit_op.name(), "foo_1");
  EXPECT_EQ(f0.name(), "foo");
  EXPECT_EQ(f1.name(), "foo_2");
}

TEST(ScopeNamesTest, SubScopesGetUniqueNames) {
  Scope root = Scope::NewRootScope();
  Scope t0 = root.NewSubScope("tower_0");
  Scope t0_again = root.NewSubScope("tower_0");
  EXPECT_EQ(t0.name_scope(), "tower_0");
  EXPECT_EQ(t0_again.name_scope(), "tower_0_1");
  EXPECT_EQ(root.name_scope(), "");  // the parent is unchanged
  Operation a = NoOp(t0);
  Operation b = NoOp(t0);
  Operation c = NoOp(t0_again);
  Operation d = NoOp(root);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(a.name(), "tower_0/NoOp");
  EXPECT_EQ(b.name(), "tower_0/NoOp_1");
  EXPECT_EQ(c.name(), "tower_0_1/NoOp");
  EXPECT_EQ(d.name(), "NoOp");
}

TEST(ScopeNamesTest, NestedSubScopes) {
  Scope root = Scope::NewRootScope();
  Scope outer = root.NewSubScope("model");
  Scope inner = outer.NewSubScope("layer1");
  Scope inner2 = outer.NewSubScope("layer1");
  EXPECT_EQ(inner.name_scope(), "model/layer1");
  EXPECT_EQ(inner2.name_scope(), "model/layer1_1");
  // Same child name under another parent does not collide.
  Scope other = root.NewSubScope("other").NewSubScope("layer1");
  EXPECT_EQ(other.name_scope(), "other/layer1");
  Output w = FloatConst(inner, {2, 2});
  Output y = MatMul(inner.WithOpName("dense"), w, w);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(w.name(), "model/layer1/Const");
  EXPECT_EQ(y.name(), "model/layer1/dense");
  // An empty name keeps the current scope.
  EXPECT_EQ(outer.NewSubScope("").name_scope(), "model");
}

TEST(ScopeNamesTest, SubScopeNameCollidesWithOpName) {
  Scope root = Scope::NewRootScope();
  Operation op = OpBuilder(root, "TestNoOp", "block").Finalize();
  Scope block = root.NewSubScope("block");
  EXPECT_EQ(op.name(), "block");
  EXPECT_EQ(block.name_scope(), "block_1");
}

TEST(ScopeNamesTest, InvalidSubScopeNameIsAnError) {
  Scope root = Scope::NewRootScope();
  Scope bad = root.NewSubScope("a/b");
  EXPECT_FALSE(root.ok());
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Msg(root.status()), HasSubstr("a/b"));
  EXPECT_FALSE(NoOp(bad).valid());
}

TEST(ScopeNamesTest, WithOpNameDuplicateIsAnError) {
  Scope root = Scope::NewRootScope();
  Operation first = NoOp(root.WithOpName("w"));
  ASSERT_TRUE(first.valid());
  Operation second = NoOp(root.WithOpName("w"));
  EXPECT_FALSE(second.valid());
  EXPECT_EQ(root.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(Msg(root.status()), HasSubstr("WithOpName(\"w\")"));
  EXPECT_THAT(Msg(root.status()), HasSubstr("already used"));
  GraphDef def;
  EXPECT_EQ(root.ToGraphDef(&def).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(root.graph()->num_nodes(), 1);
}

TEST(ScopeNamesTest, WithOpNameCannotTakeADefaultNameAlreadyGiven) {
  Scope root = Scope::NewRootScope();
  NoOp(root);
  NoOp(root);  // NoOp_1
  EXPECT_FALSE(NoOp(root.WithOpName("NoOp_1")).valid());
  EXPECT_EQ(root.status().code(), absl::StatusCode::kAlreadyExists);
}

TEST(ScopeNamesTest, InvalidOpNameIsAnError) {
  Scope root = Scope::NewRootScope();
  EXPECT_FALSE(NoOp(root.WithOpName("has space")).valid());
  EXPECT_THAT(Msg(root.status()), HasSubstr("invalid node name"));
}

TEST(ScopeNamesTest, OpNameAppliesToTheOpNotToItsImplicitConstants) {
  Scope root = Scope::NewRootScope();
  Output x = FloatConst(root);
  Output y = Add(root.WithOpName("scaled"), x, 2.0f);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(y.name(), "scaled");
  GraphDef def = Def(root);
  EXPECT_THAT(Inputs(def, "scaled"), ElementsAre("Const", "Const_1"));
}

TEST(ScopeNamesTest, GetUniqueNameForOp) {
  Scope root = Scope::NewRootScope();
  Scope sub = root.NewSubScope("s");
  EXPECT_EQ(sub.GetUniqueNameForOp("X"), "s/X");
  EXPECT_EQ(sub.GetUniqueNameForOp("X"), "s/X_1");
  EXPECT_EQ(root.GetUniqueNameForOp("X"), "X");
  EXPECT_EQ(root.WithOpName("Y").GetUniqueNameForOp("X"), "Y");
  EXPECT_EQ(root.WithOpName("Y").GetUniqueNameForOp("X"), "");
  EXPECT_FALSE(root.ok());
}

// ---- Devices
// ------------------------------------------------------------------

TEST(ScopeDeviceTest, MergeTable) {
  struct Case {
    std::vector<std::string> specs;  // nested WithDevice calls, outer first
    std::string want;
  };
  const std::vector<Case> cases = {
      {{"/job:worker/task:1", "/gpu:0"}, "/job:worker/task:1/device:GPU:0"},
      {{"/gpu:0", "/cpu:0"}, "/device:CPU:0"},
      {{"/device:GPU:1", "/job:ps"}, "/job:ps/device:GPU:1"},
      {{"/job:worker/task:1", ""}, "/job:worker/task:1"},
      {{"/device:gpu:0"}, "/device:GPU:0"},
      {{"/job:a/replica:0/task:0/device:CPU:0", "/job:b"},
       "/job:b/replica:0/task:0/device:CPU:0"},
      {{"/gpu:1", "CPU"}, "/device:CPU:*"},  // another type drops the id
      {{"/gpu:1", "/device:GPU"}, "/device:GPU:1"},  // same type keeps it
      {{"/task:3", "/task:4"}, "/task:4"},
      {{"/job:worker", "/task:2", "/gpu:3"}, "/job:worker/task:2/device:GPU:3"},
      {{"/device:GPU:*"}, "/device:GPU:*"},
      {{}, ""},
  };
  for (const Case& c : cases) {
    std::string trace;
    for (const std::string& s : c.specs) absl::StrAppend(&trace, "[", s, "] ");
    SCOPED_TRACE(trace);
    Scope root = Scope::NewRootScope();
    Scope s = root;
    for (const std::string& spec : c.specs) s = s.WithDevice(spec);
    EXPECT_EQ(s.device(), c.want);
    ASSERT_TRUE(NoOp(s).valid()) << root.status();
    GraphDef def = Def(root);
    ASSERT_EQ(def.node_size(), 1);
    EXPECT_EQ(def.node(0).device(), c.want);
  }
}

TEST(ScopeDeviceTest, WithExactDeviceReplaces) {
  Scope root = Scope::NewRootScope();
  Scope worker = root.WithDevice("/job:worker/task:1");
  Operation a = NoOp(worker.WithExactDevice("/gpu:0"));
  Operation b = NoOp(worker.WithExactDevice(""));
  Operation c =
      NoOp(worker.WithExactDevice("/device:gpu:2").WithDevice("/task:0"));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(a.node()->requested_device(), "/device:GPU:0");
  EXPECT_EQ(b.node()->requested_device(), "");
  EXPECT_EQ(c.node()->requested_device(), "/task:0/device:GPU:2");
}

TEST(ScopeDeviceTest, DeviceDoesNotLeakToParentOrSiblings) {
  Scope root = Scope::NewRootScope();
  Scope gpu = root.WithDevice("/gpu:0");
  Operation in_gpu = NoOp(gpu);
  Operation in_root = NoOp(root);
  Operation in_child = NoOp(gpu.NewSubScope("child"));
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(in_gpu.node()->requested_device(), "/device:GPU:0");
  EXPECT_EQ(in_root.node()->requested_device(), "");
  EXPECT_EQ(in_child.node()->requested_device(), "/device:GPU:0");
}

TEST(ScopeDeviceTest, MalformedSpecIsKeptAsTheScopesError) {
  Scope root = Scope::NewRootScope();
  Scope bad = root.WithDevice("/gpu:zero");
  EXPECT_FALSE(root.ok());
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Msg(root.status()), HasSubstr("WithDevice"));
  EXPECT_THAT(Msg(root.status()), HasSubstr("/gpu:zero"));
  EXPECT_FALSE(NoOp(bad).valid());
  EXPECT_FALSE(NoOp(root).valid());  // the error is shared by the whole root
  GraphDef def;
  EXPECT_EQ(root.ToGraphDef(&def), root.status());
  EXPECT_EQ(root.graph()->num_nodes(), 0);

  Scope root2 = Scope::NewRootScope();
  root2.WithExactDevice("/job:");
  EXPECT_THAT(Msg(root2.status()), HasSubstr("WithExactDevice"));
}

// ---- Colocation
// ---------------------------------------------------------------

TEST(ScopeColocationTest, ColocateWithSetsClassSortedAndInherits) {
  Scope root = Scope::NewRootScope();
  Operation x = NoOp(root.WithOpName("x"));
  Operation z = NoOp(root.WithOpName("z"));
  Operation a = NoOp(root.WithOpName("a"));
  Operation y = NoOp(root.WithOpName("y").ColocateWith(x));
  EXPECT_THAT(ClassOf(y), ElementsAre("loc:@x"));
  // Joining y means joining y's own groups too.
  Operation w = NoOp(root.WithOpName("w").ColocateWith(y));
  EXPECT_THAT(ClassOf(w), ElementsAre("loc:@x", "loc:@y"));
  // Several targets: sorted, no duplicates.
  Operation v = NoOp(
      root.WithOpName("v").ColocateWith(z).ColocateWith(a).ColocateWith(z));
  EXPECT_THAT(ClassOf(v), ElementsAre("loc:@a", "loc:@z"));
  // Ops built without colocation have no _class.
  EXPECT_FALSE(x.node()->def().attr().contains("_class"));
  // ClearColocation drops it.
  Operation u = NoOp(root.WithOpName("u").ColocateWith(x).ClearColocation());
  EXPECT_FALSE(u.node()->def().attr().contains("_class"));
  ASSERT_TRUE(root.ok()) << root.status();
  // And it is written to the GraphDef.
  GraphDef def = Def(root);
  const NodeDef* wd = FindNodeDef(def, "w");
  ASSERT_NE(wd, nullptr);
  EXPECT_EQ(wd->attr().at("_class").list().s_size(), 2);
  const Scope with_w = root.ColocateWith(w);
  EXPECT_EQ(with_w.colocation_groups(),
            (std::vector<std::string>{"loc:@w", "loc:@x", "loc:@y"}));
}

TEST(ScopeColocationTest, ColocateWithOutputUsesItsOp) {
  Scope root = Scope::NewRootScope();
  Output c = FloatConst(root.WithOpName("c"));
  Output d = FloatConst(root.WithOpName("d").ColocateWith(c));
  EXPECT_THAT(ClassOf(d.op()), ElementsAre("loc:@c"));
}

TEST(ScopeColocationTest, ColocateWithInvalidOpIsAnError) {
  Scope root = Scope::NewRootScope();
  root.ColocateWith(Operation());
  EXPECT_FALSE(root.ok());
  EXPECT_THAT(Msg(root.status()), HasSubstr("ColocateWith"));
}

// ---- Control dependencies
// -----------------------------------------------------

TEST(ScopeControlDepsTest, AddsCaretInputsAfterDataInputs) {
  Scope root = Scope::NewRootScope();
  Operation c1 = NoOp(root.WithOpName("c1"));
  Operation c2 = NoOp(root.WithOpName("c2"));
  Output x = FloatConst(root.WithOpName("x"));
  Scope deps = root.WithControlDependencies({c1, c2});
  EXPECT_EQ(deps.control_dependencies().size(), 2u);
  ASSERT_TRUE(Add(deps.WithOpName("y"), x, x).valid()) << root.status();
  ASSERT_TRUE(
      NoOp(deps.WithNoControlDependencies().WithOpName("free")).valid());
  ASSERT_TRUE(
      NoOp(root.WithControlDependencies(x).WithOpName("after_x")).valid());
  ASSERT_TRUE(root.ok()) << root.status();
  GraphDef def = Def(root);
  EXPECT_THAT(Inputs(def, "y"), ElementsAre("x", "x", "^c1", "^c2"));
  EXPECT_THAT(Inputs(def, "free"), IsEmpty());
  EXPECT_THAT(Inputs(def, "after_x"), ElementsAre("^x"));
  EXPECT_THAT(root.control_dependencies(), IsEmpty());
}

TEST(ScopeControlDepsTest, ExplicitControlInput) {
  Scope root = Scope::NewRootScope();
  Operation c = NoOp(root.WithOpName("c"));
  Operation d =
      OpBuilder(root.WithOpName("d"), "TestNoOp").ControlInput(c).Finalize();
  ASSERT_TRUE(d.valid()) << root.status();
  EXPECT_THAT(Inputs(Def(root), "d"), ElementsAre("^c"));
  Operation bad = OpBuilder(root.WithOpName("e"), "TestNoOp")
                      .ControlInput(Operation())
                      .Finalize();
  EXPECT_FALSE(bad.valid());
  EXPECT_THAT(Msg(root.status()),
              HasSubstr("control input is an invalid Operation"));
  EXPECT_EQ(root.graph()->FindNode("e"), nullptr);
}

TEST(ScopeControlDepsTest, InvalidOperationIsAnError) {
  Scope root = Scope::NewRootScope();
  // (A braced single element, WithControlDependencies({op}), is ambiguous
  // with the Output overload, hence the vector.)
  const std::vector<Operation> invalid = {Operation()};
  root.WithControlDependencies(invalid);
  EXPECT_FALSE(root.ok());
  EXPECT_THAT(Msg(root.status()), HasSubstr("WithControlDependencies"));
}

// Regression (was a core bug): graph/scope.cc, OpBuilder::Finalize checks that
// data inputs come from this scope's graph (Node::graph()) but not control
// dependencies: an Operation of another root passed to WithControlDependencies
// or ControlInput is wired with Graph::AddControlEdge across two graphs. The
// foreign node gains an out-edge into a graph it does not belong to, and
// removing or destroying either graph leaves dangling edges. It should be
// rejected like a data input from another root ("belongs to another graph").
TEST(ScopeControlDepsTest, ControlDependencyFromAnotherRootIsRejected) {
  Scope root1 = Scope::NewRootScope();
  Scope root2 = Scope::NewRootScope();
  Operation foreign = NoOp(root1.WithOpName("foreign"));
  ASSERT_TRUE(foreign.valid());
  const std::vector<Operation> deps = {foreign};
  Operation op = NoOp(root2.WithControlDependencies(deps).WithOpName("mine"));
  EXPECT_FALSE(op.valid());
  EXPECT_FALSE(root2.ok());
  EXPECT_THAT(Msg(root2.status()), HasSubstr("another graph"));
  EXPECT_TRUE(foreign.node()->out_edges().empty());

  Scope root3 = Scope::NewRootScope();
  Operation op3 = OpBuilder(root3, "TestNoOp").ControlInput(foreign).Finalize();
  EXPECT_FALSE(op3.valid());
  EXPECT_TRUE(foreign.node()->out_edges().empty());
}

// Regression (was a core bug): graph/scope.cc, Scope::ColocateWith accepts an
// Operation of another root and records "loc:@<its name>"; in this graph that
// name means a different node or none at all, so ops are silently colocated
// with the wrong node (or with a group nothing else joins). It should record an
// error like a data input from another root does (`op.node()->graph() !=
// graph()`).
TEST(ScopeColocationTest, ColocateWithOpFromAnotherRootIsRejected) {
  Scope root1 = Scope::NewRootScope();
  Scope root2 = Scope::NewRootScope();
  Operation theirs = NoOp(root1.WithOpName("x"));
  Operation mine = NoOp(root2.WithOpName("x"));
  ASSERT_TRUE(theirs.valid() && mine.valid());
  Scope colocated = root2.ColocateWith(theirs);
  EXPECT_FALSE(root2.ok());
  EXPECT_THAT(Msg(root2.status()), HasSubstr("another graph"));
  EXPECT_TRUE(root1.ok());
}

// ---- Errors
// ---------------------------------------------------------------------

TEST(ScopeErrorTest, FirstErrorIsKept) {
  Scope root = Scope::NewRootScope();
  Scope sub = root.NewSubScope("sub");
  Operation ok = NoOp(sub);
  ASSERT_TRUE(ok.valid());
  Operation bad = OpBuilder(sub, "TestNoSuchOp").Finalize();
  EXPECT_FALSE(bad.valid());
  const absl::Status first = root.status();
  EXPECT_EQ(first.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Msg(first), HasSubstr("TestNoSuchOp"));
  // The error is visible from every scope of the root.
  EXPECT_EQ(sub.status(), first);
  EXPECT_EQ(root.NewSubScope("later").status(), first);
  // Later failures do not overwrite it, and later builds are no-ops.
  root.WithDevice("/bad:device:spec");
  NoOp(root.WithOpName("sub"));
  Operation after = NoOp(root);
  EXPECT_FALSE(after.valid());
  EXPECT_EQ(root.status(), first);
  EXPECT_EQ(root.graph()->num_nodes(), 1);
  GraphDef def;
  EXPECT_EQ(root.ToGraphDef(&def), first);
  Graph g;
  EXPECT_EQ(root.ToGraph(&g), first);
  // UpdateStatus keeps the first error too.
  root.UpdateStatus(absl::InternalError("another"));
  EXPECT_EQ(root.status(), first);
}

TEST(ScopeErrorTest, RootsAreIndependent) {
  Scope a = Scope::NewRootScope();
  Scope b = Scope::NewRootScope();
  a.UpdateStatus(absl::InternalError("boom"));
  EXPECT_FALSE(a.ok());
  EXPECT_TRUE(b.ok());
  EXPECT_NE(a.graph(), b.graph());
}

TEST(ScopeErrorTest, InvalidOutputFromFailedOpDoesNotCrash) {
  Scope failing = Scope::NewRootScope();
  Output broken = OpBuilder(failing, "TestNoSuchOp").Finalize();
  EXPECT_FALSE(broken.valid());
  EXPECT_EQ(broken.dtype(), DT_INVALID);
  EXPECT_TRUE(broken.shape().unknown_rank());
  EXPECT_EQ(broken.name(), "<invalid output>");
  EXPECT_EQ(broken.op().name(), "");
  EXPECT_EQ(broken.op().num_outputs(), 0);
  // Used in the same (failed) root: a no-op.
  EXPECT_FALSE(Add(failing, broken, broken).valid());
  // Used in a healthy root: an error naming the argument.
  Scope root = Scope::NewRootScope();
  Output x = FloatConst(root);
  Output y = Add(root, x, broken);
  EXPECT_FALSE(y.valid());
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Msg(root.status()), HasSubstr("node 'Add' (TestAdd)"));
  EXPECT_THAT(Msg(root.status()), HasSubstr("input 'b' is an invalid Output"));
  EXPECT_EQ(root.graph()->FindNode("Add"), nullptr);
}

TEST(ScopeErrorTest, OutputIndexOutOfRangeIsAnError) {
  Scope root = Scope::NewRootScope();
  Output x = FloatConst(root);
  Output bad(x.node(), 3);
  EXPECT_EQ(bad.dtype(), DT_INVALID);
  EXPECT_FALSE(Add(root, x, bad).valid());
  EXPECT_THAT(Msg(root.status()), HasSubstr("input 'b'"));
}

// Regression (was a core bug): graph/scope.cc, Output::dtype() and
// Output::shape() check `index_ < num_outputs()` but not `index_ >= 0`, so a
// negative index (a Python habit: op.output(-1)) reads the node's vectors at -1
// (ASan: heap-buffer-overflow in Node::output_type via Output::dtype) instead
// of giving DT_INVALID / unknown. OpBuilder::Finalize's validity check
// (`num_outputs() <= index()`) has the same hole, so such an Output passed as
// the first input of a type-attr argument is read out of bounds when T is
// set from its dtype, before AddEdge finally rejects the index.
TEST(ScopeErrorTest, NegativeOutputIndexIsInvalidNotUndefined) {
  Scope root = Scope::NewRootScope();
  Output x = FloatConst(root);
  Output neg = x.op().output(-1);
  EXPECT_EQ(neg.dtype(), DT_INVALID);
  EXPECT_TRUE(neg.shape().unknown_rank());
  EXPECT_FALSE(Add(root, x, neg).valid());
  EXPECT_THAT(Msg(root.status()), HasSubstr("output -1"));
  Scope root2 = Scope::NewRootScope();
  Output x2 = FloatConst(root2);
  EXPECT_FALSE(Add(root2, x2.op().output(-1), x2).valid());
  EXPECT_THAT(Msg(root2.status()), HasSubstr("refers to output -1 of 'Const'"));
}

TEST(ScopeErrorTest, OutputFromAnotherRootIsRejected) {
  Scope root1 = Scope::NewRootScope();
  Scope root2 = Scope::NewRootScope();
  Output x1 = FloatConst(root1.WithOpName("x1"));
  Output x2 = FloatConst(root2.WithOpName("x2"));
  Output y = Add(root2, x2, x1);
  EXPECT_FALSE(y.valid());
  EXPECT_THAT(Msg(root2.status()), HasSubstr("input 'b' is 'x1'"));
  EXPECT_THAT(Msg(root2.status()), HasSubstr("another graph"));
  EXPECT_TRUE(root1.ok());
  EXPECT_TRUE(x1.node()->out_edges().empty());
  EXPECT_EQ(root2.graph()->num_nodes(), 1);
}

TEST(ScopeErrorTest, OutputFromAnotherRootWithSameIdIsRejected) {
  // Both roots have a node with id 0; the check must compare nodes, not ids.
  Scope root1 = Scope::NewRootScope();
  Scope root2 = Scope::NewRootScope();
  Output x1 = FloatConst(root1);
  Output x2 = FloatConst(root2);
  ASSERT_EQ(x1.node()->id(), x2.node()->id());
  EXPECT_FALSE(Add(root2, x1, x2).valid());
  EXPECT_THAT(Msg(root2.status()), HasSubstr("another graph"));
}

TEST(ScopeErrorTest, WrongNumberOfInputs) {
  Scope root = Scope::NewRootScope();
  Output x = FloatConst(root);
  Output y = OpBuilder(root, "TestAdd", "Add").Input(x).Finalize();
  EXPECT_FALSE(y.valid());
  EXPECT_THAT(Msg(root.status()),
              HasSubstr("node 'Add' (TestAdd) takes 2 input(s) (a, b)"));
  EXPECT_THAT(Msg(root.status()), HasSubstr("given 1"));
}

TEST(ScopeErrorTest, ListVersusSingleArgument) {
  Scope root = Scope::NewRootScope();
  Output x = FloatConst(root);
  Output y = OpBuilder(root, "TestAdd").InputList({x, x}).Input(x).Finalize();
  EXPECT_FALSE(y.valid());
  EXPECT_THAT(Msg(root.status()), HasSubstr("input 'a' is a single tensor"));

  Scope root2 = Scope::NewRootScope();
  Output z = FloatConst(root2);
  // A single Output for a list argument is a list of one.
  Output sum = OpBuilder(root2, "TestAddN").Input(z).Finalize();
  ASSERT_TRUE(sum.valid()) << root2.status();
  EXPECT_EQ(sum.node()->num_inputs(), 1);
}

TEST(ScopeErrorTest, DtypeMismatchBetweenInputs) {
  Scope root = Scope::NewRootScope();
  Output f = FloatConst(root.WithOpName("f"));
  Output y = Add(root, f, 2);  // int32 constant for a float input
  EXPECT_FALSE(y.valid());
  EXPECT_THAT(Msg(root.status()), HasSubstr("input 'b' expects float"));
  EXPECT_THAT(Msg(root.status()), HasSubstr("produces int32"));
  // The failed node was removed.
  EXPECT_EQ(root.graph()->FindNode("Add"), nullptr);
}

TEST(ScopeErrorTest, ShapeErrorRemovesTheNode) {
  Scope root = Scope::NewRootScope();
  Output a = FloatConst(root.WithOpName("a"), {2, 3});
  Output b = FloatConst(root.WithOpName("b"), {4, 5});
  Output mm = MatMul(root.WithOpName("mm"), a, b);
  EXPECT_FALSE(mm.valid());
  EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Msg(root.status()), HasSubstr("node 'mm' (TestMatMul)"));
  EXPECT_THAT(Msg(root.status()), HasSubstr("[2,3]"));
  EXPECT_THAT(Msg(root.status()), HasSubstr("[4,5]"));
  EXPECT_EQ(root.graph()->num_nodes(), 2);
  EXPECT_TRUE(a.node()->out_edges().empty());
}

TEST(ScopeGraphTest, ToGraphDefAndToGraph) {
  Scope root = Scope::NewRootScope();
  Output a = FloatConst(root.WithOpName("a"), {2, 2});
  Output mm = MatMul(root.WithOpName("mm").WithDevice("/gpu:0"), a, a);
  NoOp(root.WithOpName("done").WithControlDependencies(mm));
  GraphDef def = Def(root);
  ASSERT_EQ(def.node_size(), 3);
  EXPECT_EQ(def.versions().producer(), kGraphDefProducerVersion);
  EXPECT_THAT(Inputs(def, "mm"), ElementsAre("a", "a"));
  EXPECT_THAT(Inputs(def, "done"), ElementsAre("^mm"));
  EXPECT_EQ(FindNodeDef(def, "mm")->device(), "/device:GPU:0");
  Graph g;
  ASSERT_TRUE(root.ToGraph(&g).ok());
  EXPECT_EQ(g.num_nodes(), 3);
  EXPECT_EQ(g.FindNode("mm")->output_shape(0), TensorShape({2, 2}));
  GraphDef again;
  g.ToGraphDef(&again);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(again, def))
      << again.DebugString();
}

// ---- ActiveScope
// ----------------------------------------------------------------

// Gradient scopes re-enter a full path as given ("gradients/tower_0/
// MatMul_grad"), never suffixed, and later sub-scopes avoid those names.
TEST(ScopeNamesTest, NameScopePathsAreTakenAsGiven) {
  Scope root = Scope::NewRootScope();
  Output a = FloatConst(root, {2, 2});
  Scope grads = root.NewSubScope("gradients");
  Output m0 = MatMul(grads.WithNameScopePath("tower_0/MatMul_grad"), a, a);
  Output m1 = MatMul(grads.WithNameScopePath("tower_0/MatMul_grad"), a, a);
  // Inside a path a component may start with '_', as node names may.
  Output m2 = MatMul(grads.WithNameScopePath("x/_y"), a, a);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(m0.name(), "gradients/tower_0/MatMul_grad/MatMul");
  EXPECT_EQ(m1.name(), "gradients/tower_0/MatMul_grad/MatMul_1");
  EXPECT_EQ(m2.name(), "gradients/x/_y/MatMul");
  EXPECT_EQ(grads.NewSubScope("tower_0").name_scope(), "gradients/tower_0_1");
  // WithRootNameScope leaves every name scope.
  EXPECT_EQ(grads.WithNameScopePath("a").WithRootNameScope().name_scope(), "");
  grads.WithNameScopePath("bad//path");
  EXPECT_THAT(root.status().message(), HasSubstr("is not a scope name"));
}

TEST(ScopeTest, CollectionsAreSharedByEveryScopeOfARoot) {
  Scope root = Scope::NewRootScope();
  Output a = FloatConst(root, {2});
  Output b = FloatConst(root.NewSubScope("s"), {2});
  root.AddToCollection("k", a.op());
  root.NewSubScope("t").AddToCollection("k", b.op());
  std::vector<Operation> k = root.GetCollection("k");
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].node(), a.node());
  EXPECT_EQ(k[1].node(), b.node());
  EXPECT_THAT(root.GetCollection("none"), IsEmpty());
  EXPECT_THAT(Scope::NewRootScope().GetCollection("k"), IsEmpty());
}

TEST(ScopeTest, OperationInputIsTheFeedingOutput) {
  Scope root = Scope::NewRootScope();
  Output a = FloatConst(root, {2, 2});
  Output m = MatMul(root, a, a);
  ASSERT_EQ(m.op().num_inputs(), 2);
  EXPECT_EQ(m.op().input(1).node(), a.node());
  EXPECT_EQ(m.op().input(1).index(), 0);
  EXPECT_FALSE(Operation().input(0).valid());
}

TEST(ActiveScopeTest, NestsAndRestores) {
  EXPECT_EQ(ActiveScope::Current(), nullptr);
  Scope root = Scope::NewRootScope();
  Scope tower = root.NewSubScope("tower");
  {
    ActiveScope outer(root);
    ASSERT_NE(ActiveScope::Current(), nullptr);
    EXPECT_EQ(ActiveScope::Current()->name_scope(), "");
    {
      ActiveScope inner(tower.WithDevice("/gpu:1"));
      ASSERT_NE(ActiveScope::Current(), nullptr);
      EXPECT_EQ(ActiveScope::Current()->name_scope(), "tower");
      EXPECT_EQ(ActiveScope::Current()->device(), "/device:GPU:1");
      EXPECT_EQ(ActiveScope::Current()->graph(), root.graph());
    }
    ASSERT_NE(ActiveScope::Current(), nullptr);
    EXPECT_EQ(ActiveScope::Current()->name_scope(), "");
    EXPECT_EQ(ActiveScope::Current()->device(), "");
  }
  EXPECT_EQ(ActiveScope::Current(), nullptr);
}

TEST(ActiveScopeTest, KeepsItsOwnCopyOfTheScope) {
  Scope root = Scope::NewRootScope();
  std::unique_ptr<Scope> temp =
      std::make_unique<Scope>(root.NewSubScope("tmp"));
  ActiveScope active(*temp);
  temp.reset();  // the active scope must not depend on the caller's object
  ASSERT_NE(ActiveScope::Current(), nullptr);
  EXPECT_EQ(ActiveScope::Current()->name_scope(), "tmp");
  Operation op = NoOp(*ActiveScope::Current());
  EXPECT_EQ(op.name(), "tmp/NoOp");
}

TEST(ActiveScopeTest, IsPerThread) {
  Scope root = Scope::NewRootScope();
  ActiveScope active(root);
  const Scope* seen = &root;
  std::thread t([&] { seen = ActiveScope::Current(); });
  t.join();
  EXPECT_EQ(seen, nullptr);
  EXPECT_NE(ActiveScope::Current(), nullptr);
}

}  // namespace
}  // namespace dflow
