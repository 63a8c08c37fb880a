// Tests for OpBuilder: attrs from inputs, explicit attrs and defaults,
// implicit constants and build-time shape inference.

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

// ---- OpBuilder: attrs, constants, shapes
// ------------------------------------------

TEST(OpBuilderTest, TypeAttrsComeFromInputs) {
  Scope root = Scope::NewRootScope();
  Output d = Const(root, Tensor(DT_DOUBLE, TensorShape({3})));
  Output sum = Add(root, d, d);
  ASSERT_TRUE(sum.valid()) << root.status();
  EXPECT_EQ(sum.dtype(), DT_DOUBLE);
  DataType t;
  ASSERT_TRUE(sum.node()->GetAttr("T", &t).ok());
  EXPECT_EQ(t, DT_DOUBLE);

  Output i = Const(root, Tensor::Scalar<int32_t>(1));
  Output addn = OpBuilder(root, "TestAddN").InputList({i, i, i}).Finalize();
  ASSERT_TRUE(addn.valid()) << root.status();
  int64_t n = 0;
  ASSERT_TRUE(addn.node()->GetAttr("N", &n).ok());
  EXPECT_EQ(n, 3);
  EXPECT_EQ(addn.dtype(), DT_INT32);

  Output idn = OpBuilder(root, "TestIdentityN").InputList({d, i}).Finalize();
  ASSERT_TRUE(idn.valid()) << root.status();
  std::vector<DataType> types;
  ASSERT_TRUE(idn.node()->GetAttr("T", &types).ok());
  EXPECT_THAT(types, ElementsAre(DT_DOUBLE, DT_INT32));
  EXPECT_EQ(idn.op().num_outputs(), 2);
  EXPECT_EQ(idn.op().output(1).dtype(), DT_INT32);
  EXPECT_EQ(idn.op().output(1).name(), absl::StrCat(idn.op().name(), ":1"));
}

TEST(OpBuilderTest, RefInputSetsBaseType) {
  Scope root = Scope::NewRootScope();
  Output v = OpBuilder(root, "TestVar").Attr("dtype", DT_FLOAT).Finalize();
  ASSERT_TRUE(v.valid()) << root.status();
  EXPECT_EQ(v.dtype(), DT_FLOAT_REF);
  Output assign = OpBuilder(root, "TestAssign").Input(v).Input(1.0f).Finalize();
  ASSERT_TRUE(assign.valid()) << root.status();
  DataType t;
  ASSERT_TRUE(assign.node()->GetAttr("T", &t).ok());
  EXPECT_EQ(t, DT_FLOAT);
  // Reading the variable as a value.
  Output read = Add(root, v, 1.0f);
  ASSERT_TRUE(read.valid()) << root.status();
  EXPECT_EQ(read.dtype(), DT_FLOAT);
}

TEST(OpBuilderTest, ExplicitAttrsAreWrittenAndDefaultsAreLeftOut) {
  Scope root = Scope::NewRootScope();
  Output a = FloatConst(root, {3, 2});
  Output mm = OpBuilder(root, "TestMatMul")
                  .Input(a)
                  .Input(a)
                  .Attr("transpose_a", true)
                  .Finalize();
  ASSERT_TRUE(mm.valid()) << root.status();
  EXPECT_EQ(mm.shape(), TensorShape({2, 2}));
  const NodeDef& def = mm.node()->def();
  EXPECT_TRUE(def.attr().at("transpose_a").b());
  // Attrs left at their defaults are not written (as TensorFlow's
  // strip_default_attrs); reading them gives the default.
  EXPECT_FALSE(def.attr().contains("transpose_b"));
  bool transpose_b = true;
  ASSERT_TRUE(mm.node()->GetAttr("transpose_b", &transpose_b).ok());
  EXPECT_FALSE(transpose_b);
  EXPECT_EQ(def.attr().at("T").type(), DT_FLOAT);
  EXPECT_EQ(def.attr_size(), 2);
  // An explicit value equal to the default is left out too.
  Output mm2 = OpBuilder(root, "TestMatMul")
                   .Input(a)
                   .Input(a)
                   .Attr("transpose_a", true)
                   .Attr("transpose_b", false)
                   .Finalize();
  ASSERT_TRUE(mm2.valid()) << root.status();
  EXPECT_FALSE(mm2.node()->def().attr().contains("transpose_b"));
  EXPECT_TRUE(mm2.node()->def().attr().contains("transpose_a"));
}

TEST(OpBuilderTest, ExplicitAttrConflictingWithInputsIsAnError) {
  Scope root = Scope::NewRootScope();
  Output a = FloatConst(root);
  Output y = OpBuilder(root, "TestAdd")
                 .Input(a)
                 .Input(a)
                 .Attr("T", DT_DOUBLE)
                 .Finalize();
  EXPECT_FALSE(y.valid());
  EXPECT_THAT(Msg(root.status()), HasSubstr("expects double"));
}

// A node that fails attr validation (graph/node_def_util.cc, CheckAllowed)
// leaves its error in the root's shared state and nothing else behind. Under
// `bazel test --config=asan` (tools/test_asan.sh) LeakSanitizer checks that
// the error and the graph are freed with the last scope, including a scope
// that outlives the root and one kept by ActiveScope on another thread.
TEST(OpBuilderTest, AttrOutsideItsAllowedTypesIsAnError) {
  std::unique_ptr<Scope> survivor;
  {
    Scope root = Scope::NewRootScope();
    Scope sub = root.NewSubScope("tower_0");
    Output b = Const(sub, Tensor::Scalar<bool>(true));
    ASSERT_TRUE(b.valid()) << root.status();
    Output y = Add(sub.WithOpName("y"), b, b);  // T: {float, double, int32}
    EXPECT_FALSE(y.valid());
    EXPECT_EQ(root.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Msg(root.status()),
                HasSubstr("node 'tower_0/y' (TestAdd): attr 'T' is bool, "
                          "expected one of"));
    EXPECT_EQ(root.graph()->FindNode("tower_0/y"), nullptr);
    EXPECT_EQ(root.graph()->num_nodes(), 1);
    // Later failures keep the first error; later builds are no-ops.
    const absl::Status first = root.status();
    EXPECT_FALSE(Add(sub, b, b).valid());
    root.UpdateStatus(absl::InternalError("later"));
    EXPECT_EQ(sub.status(), first);
    std::thread([&] {
      ActiveScope active(sub);
      EXPECT_FALSE(Add(*ActiveScope::Current(), b, b).valid());
    }).join();
    survivor = std::make_unique<Scope>(sub.NewSubScope("later"));
  }
  // The shared state lives as long as any scope derived from the root.
  EXPECT_EQ(survivor->status().code(), absl::StatusCode::kInvalidArgument);
  GraphDef def;
  EXPECT_EQ(survivor->ToGraphDef(&def).code(),
            absl::StatusCode::kInvalidArgument);
  survivor.reset();
}

TEST(OpBuilderTest, ImplicitConstantsBecomeConstNodes) {
  Scope root = Scope::NewRootScope();
  Scope sub = root.NewSubScope("layer").WithDevice("/cpu:0");
  Output x = FloatConst(sub, {3});
  Output y = Add(sub, x, 2.5f);
  ASSERT_TRUE(y.valid()) << root.status();
  const Node* c = y.node()->input_edge(1)->src;
  EXPECT_EQ(c->op(), "Const");
  EXPECT_EQ(c->name(), "layer/Const_1");
  EXPECT_EQ(c->requested_device(), "/device:CPU:0");  // in the op's scope
  Tensor value;
  ASSERT_TRUE(c->GetAttr("value", &value).ok());
  EXPECT_EQ(value.dtype(), DT_FLOAT);
  EXPECT_EQ(value.shape(), TensorShape());
  EXPECT_FLOAT_EQ(*value.data<float>(), 2.5f);
  DataType dtype;
  ASSERT_TRUE(c->GetAttr("dtype", &dtype).ok());
  EXPECT_EQ(dtype, DT_FLOAT);
  EXPECT_EQ(y.shape(), TensorShape({3}));
}

TEST(OpBuilderTest, ImplicitConstantKinds) {
  Scope root = Scope::NewRootScope();
  Output i = Add(root, 1, 2);
  ASSERT_TRUE(i.valid()) << root.status();
  EXPECT_EQ(i.dtype(), DT_INT32);
  Output d = Add(root, 1.0, 2.0);
  ASSERT_TRUE(d.valid()) << root.status();
  EXPECT_EQ(d.dtype(), DT_DOUBLE);
  Output v = Add(root, {1, 2, 3}, {4, 5, 6});
  ASSERT_TRUE(v.valid()) << root.status();
  EXPECT_EQ(v.dtype(), DT_INT32);
  EXPECT_EQ(v.shape(), TensorShape({3}));
  Output f = Add(root, {1.0f, 2.0f}, 1.0f);
  ASSERT_TRUE(f.valid()) << root.status();
  EXPECT_EQ(f.shape(), TensorShape({2}));
  // int64 is not allowed by TestAdd's T.
  Output l = Add(root, int64_t{1}, int64_t{2});
  EXPECT_FALSE(l.valid());
  EXPECT_THAT(Msg(root.status()), HasSubstr("attr 'T' is int64"));
}

TEST(OpBuilderTest, ConstantShapeInputIsSeenByShapeFunction) {
  Scope root = Scope::NewRootScope();
  Output x = FloatConst(root, {6});
  Output r = OpBuilder(root, "TestReshape").Input(x).Input({2, 3}).Finalize();
  ASSERT_TRUE(r.valid()) << root.status();
  EXPECT_EQ(r.shape(), TensorShape({2, 3}));
  Output r64 = OpBuilder(root, "TestReshape")
                   .Input(x)
                   .Input({int64_t{3}, int64_t{-1}})
                   .Finalize();
  ASSERT_TRUE(r64.valid()) << root.status();
  EXPECT_EQ(r64.shape(), TensorShape({3, -1}));
  // A float tensor as the shape is rejected by Tshape's allowed set.
  Output bad =
      OpBuilder(root, "TestReshape").Input(x).Input({2.0f, 3.0f}).Finalize();
  EXPECT_FALSE(bad.valid());
  EXPECT_THAT(Msg(root.status()), HasSubstr("attr 'Tshape' is float"));
}

TEST(OpBuilderTest, ShapesInferredAtBuildTime) {
  Scope root = Scope::NewRootScope();
  Output a = FloatConst(root, {2, 3});
  Output b = FloatConst(root, {3, 4});
  Output mm = MatMul(root, a, b);
  Output sum = Add(root, mm, FloatConst(root, {4}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(mm.shape(), TensorShape({2, 4}));
  EXPECT_EQ(sum.shape(), TensorShape({2, 4}));
}

}  // namespace
}  // namespace dflow
