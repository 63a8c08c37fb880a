// Tests for colocation groups: _class attrs, reference and resource edges,
// group order and stale references.

#include "compiler/colocation_graph.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/attr_value_util.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::vector<std::string>> MemberNames(
    const std::vector<ColocationGroup>& groups) {
  std::vector<std::vector<std::string>> names;
  for (const ColocationGroup& g : groups) {
    names.emplace_back();
    for (const Node* n : g.members) names.back().push_back(n->name());
  }
  return names;
}

TEST(ColocationGraphTest, UnrelatedNodesAreSingletons) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  ops::Neg(root.WithOpName("b"), a);
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<std::vector<ColocationGroup>> groups =
      BuildColocationGroups(*root.graph());
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_THAT(MemberNames(*groups),
              ElementsAre(ElementsAre("a"), ElementsAre("b")));
  EXPECT_THAT((*groups)[0].links, IsEmpty());
}

TEST(ColocationGraphTest, ClassAttrJoinsGroupsTransitively) {
  Scope root = Scope::NewRootScope();
  Output fwd = ops::Const(root.WithOpName("fwd"), 1.0f);
  ops::Const(root.WithOpName("other"), 2.0f);
  Output grad = ops::Neg(root.ColocateWith(fwd).WithOpName("grad"), fwd);
  // Colocating with `grad` joins `fwd`'s group too.
  ops::Neg(root.ColocateWith(grad).WithOpName("grad2"), grad);
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<std::vector<ColocationGroup>> groups =
      BuildColocationGroups(*root.graph());
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_THAT(
      MemberNames(*groups),
      ElementsAre(ElementsAre("fwd", "grad", "grad2"), ElementsAre("other")));
  EXPECT_THAT((*groups)[0].links, ElementsAre("'grad' has _class loc:@fwd",
                                              "'grad2' has _class loc:@fwd",
                                              "'grad2' has _class loc:@grad"));
}

TEST(ColocationGraphTest, ReferenceEdgesJoinVariableAndUpdates) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  Output one = ops::Const(root.WithOpName("one"), {1.0f, 1.0f});
  ops::Assign(root.WithOpName("assign"), v, one);
  // Reading a variable through a value input does not colocate.
  ops::Neg(root.WithOpName("reader"), v);
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<std::vector<ColocationGroup>> groups =
      BuildColocationGroups(*root.graph());
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_THAT(MemberNames(*groups),
              ElementsAre(ElementsAre("v", "assign"), ElementsAre("one"),
                          ElementsAre("reader")));
  EXPECT_THAT((*groups)[0].links,
              ElementsAre("'assign' takes a reference to 'v'"));
}

TEST(ColocationGraphTest, ResourceEdgesJoinHandleAndUsers) {
  Scope root = Scope::NewRootScope();
  Output h = ops::VarHandleOp(root.WithOpName("h"), DT_FLOAT, TensorShape({2}));
  Output read = ops::ReadVariableOp(root.WithOpName("read"), h, DT_FLOAT);
  ops::AssignVariableOp(root.WithOpName("write"), h, read);
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<std::vector<ColocationGroup>> groups =
      BuildColocationGroups(*root.graph());
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_THAT(MemberNames(*groups),
              ElementsAre(ElementsAre("h", "read", "write")));
  EXPECT_THAT((*groups)[0].links, ElementsAre("'read' uses resource 'h'",
                                              "'write' uses resource 'h'"));
}

TEST(ColocationGraphTest, GroupsAreOrderedBySmallestNodeId) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  Output b = ops::Const(root.WithOpName("b"), 2.0f);
  // `c` joins `b`'s group, `d` joins `a`'s: groups stay in id order.
  ops::Neg(root.ColocateWith(b).WithOpName("c"), a);
  ops::Neg(root.ColocateWith(a).WithOpName("d"), b);
  ASSERT_TRUE(root.ok()) << root.status();
  absl::StatusOr<std::vector<ColocationGroup>> groups =
      BuildColocationGroups(*root.graph());
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_THAT(MemberNames(*groups),
              ElementsAre(ElementsAre("a", "d"), ElementsAre("b", "c")));
}

TEST(ColocationGraphTest, StaleClassReferenceNamesBothNodes) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  a.node()->SetAttr("_class",
                    MakeAttr(std::vector<std::string>{"loc:@gone/MatMul"}));
  absl::StatusOr<std::vector<ColocationGroup>> groups =
      BuildColocationGroups(*root.graph());
  ASSERT_FALSE(groups.ok());
  EXPECT_EQ(groups.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      groups.status().message(),
      HasSubstr("node 'a' (Const) is colocated with node 'gone/MatMul'"));
  EXPECT_THAT(groups.status().message(),
              HasSubstr("the graph has no node 'gone/MatMul'"));
}

TEST(ColocationGraphTest, PrunedSubgraphsDropReferencesToPrunedNodes) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  a.node()->SetAttr("_class",
                    MakeAttr(std::vector<std::string>{"loc:@gone/MatMul"}));
  absl::StatusOr<std::vector<ColocationGroup>> groups =
      BuildColocationGroups(*root.graph(), /*skip_missing_targets=*/true);
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_THAT(MemberNames(*groups), ElementsAre(ElementsAre("a")));
}

TEST(ColocationGraphTest, IgnoresNonLocationClassEntries) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  a.node()->SetAttr("_class", MakeAttr(std::vector<std::string>{"other"}));
  absl::StatusOr<std::vector<ColocationGroup>> groups =
      BuildColocationGroups(*root.graph());
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(groups->size(), 1u);
}

}  // namespace
}  // namespace dflow
