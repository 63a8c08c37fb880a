// Variables as TensorFlow has them: IsVariableInitialized and
// VarIsInitializedOp, TensorFlow's error for a read before the initializer
// (reference and resource styles, through a Session), CountUpTo, ResourceGather
// and the Scatter family (both variable kinds), and bad indices.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "runtime/variables.h"
#include "tests/kernels/kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

TEST(VariableOpsTest, ReferenceVariableInitializationAndUninitializedRead) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  ops::IsVariableInitialized(root.WithOpName("ready"), v);
  ops::Identity(root.WithOpName("read"), v);
  ops::Assign(root.WithOpName("init"), v, Input({1.0f, 2.0f}));
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"ready"}, {}, &out).ok());
  EXPECT_FALSE(*out[0].data<bool>());
  absl::Status s = session->Run({}, {"read"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("'read'"), HasSubstr("Identity"),
                    HasSubstr("Attempting to use uninitialized value v")));
  ASSERT_TRUE(session->Run({}, {}, {"init"}, &out).ok());
  ASSERT_TRUE(session->Run({}, {"ready", "read"}, {}, &out).ok());
  EXPECT_TRUE(*out[0].data<bool>());
  EXPECT_THAT(Floats(out[1]), ElementsAre(1, 2));
}

TEST(VariableOpsTest, ResourceVariableInitializationAndUninitializedRead) {
  Scope root = Scope::NewRootScope();
  Output h = ops::VarHandleOp(root.WithOpName("h"), DT_FLOAT, {2});
  ops::VarIsInitializedOp(root.WithOpName("ready"), h);
  ops::ReadVariableOp(root.WithOpName("read"), h, DT_FLOAT);
  ops::ResourceGather(root.WithOpName("gather"), h, Input({1}), DT_FLOAT);
  ops::AssignVariableOp(root.WithOpName("init"), h, Input({1.0f, 2.0f}));
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"ready"}, {}, &out).ok());
  EXPECT_FALSE(*out[0].data<bool>());
  for (const char* reader : {"read", "gather"}) {
    absl::Status s = session->Run({}, {reader}, {}, &out);
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
    EXPECT_THAT(std::string(s.message()),
                AllOf(HasSubstr(absl::StrCat("'", reader, "'")),
                      HasSubstr("Attempting to use uninitialized value h")));
  }
  ASSERT_TRUE(session->Run({}, {}, {"init"}, &out).ok());
  ASSERT_TRUE(session->Run({}, {"ready", "gather"}, {}, &out).ok());
  EXPECT_TRUE(*out[0].data<bool>());
  EXPECT_THAT(Floats(out[1]), ElementsAre(2));
}

// CountUpTo and ResourceCountUpTo: the old value out, one more in the
// variable, OutOfRange at the limit (the variable then stays), and
// uninitialized or non-scalar variables refused by name.
TEST(VariableOpsTest, CountUpToBothKindsStopsAtTheLimit) {
  Scope root = Scope::NewRootScope();
  Output ref =
      ops::Variable(root.WithOpName("epochs"), TensorShape({}), DT_INT64);
  ops::Assign(root.WithOpName("init_ref"), ref, Input(int64_t{0}));
  ops::CountUpTo(root.WithOpName("count_ref"), ref, 3);
  Output h = ops::VarHandleOp(root.WithOpName("steps"), DT_INT32, {});
  ops::AssignVariableOp(root.WithOpName("init_res"), h, Input(int32_t{1}));
  ops::ResourceCountUpTo(root.WithOpName("count_res"), h, 3, DT_INT32);
  ops::ReadVariableOp(root.WithOpName("read_res"), h, DT_INT32);
  Output vec =
      ops::Variable(root.WithOpName("vec"), TensorShape({2}), DT_INT32);
  ops::Assign(root.WithOpName("init_vec"), vec, Input({1, 2}));
  ops::CountUpTo(root.WithOpName("count_vec"), vec, 3);
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"count_ref"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("Attempting to use uninitialized value epochs"));
  ASSERT_TRUE(
      session->Run({}, {}, {"init_ref", "init_res", "init_vec"}, &out).ok());
  for (int64_t expected : {0, 1, 2}) {
    ASSERT_TRUE(session->Run({}, {"count_ref"}, {}, &out).ok());
    EXPECT_EQ(*out[0].data<int64_t>(), expected);
  }
  s = session->Run({}, {"count_ref"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("Reached limit of 3"), HasSubstr("epochs")));
  for (int32_t expected : {1, 2}) {
    ASSERT_TRUE(session->Run({}, {"count_res"}, {}, &out).ok());
    EXPECT_EQ(*out[0].data<int32_t>(), expected);
  }
  EXPECT_EQ(session->Run({}, {"count_res"}, {}, &out).code(),
            absl::StatusCode::kOutOfRange);
  ASSERT_TRUE(session->Run({}, {"read_res"}, {}, &out).ok());
  EXPECT_EQ(*out[0].data<int32_t>(), 3);
  s = session->Run({}, {"count_vec"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("vec"), HasSubstr("must be a scalar")));
}

// A [3, 2] table 0..5 in a Var, for the kernels run directly.
std::unique_ptr<Var> Table(const std::string& name = "table") {
  auto var = std::make_unique<Var>(name, DT_FLOAT, TensorShape({3, 2}));
  *var->value() = Tensor::FromVector<float>({0, 1, 2, 3, 4, 5}, {3, 2});
  return var;
}

TEST(VariableOpsTest, ResourceGatherRowsAndBatchDims) {
  Scope root = Scope::NewRootScope();
  Output h = ops::VarHandleOp(root, DT_FLOAT, {3, 2});
  Output idx = ops::Placeholder(root, DT_INT64);
  Output g = ops::ResourceGather(root, h, idx, DT_FLOAT);
  auto var = Table();
  auto out = RunKernel(
      g.node(), {Tensor(), Tensor::FromVector<int64_t>({2, 0, 2}, {3, 1})},
      {var.get()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({3, 1, 2}));
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(4, 5, 0, 1, 4, 5));

  // batch_dims 1: row b of the result picks within row b of the table.
  Output g1 = ops::ResourceGather(root, h, idx, DT_FLOAT,
                                  ops::ResourceGatherAttrs().BatchDims(1));
  out = RunKernel(g1.node(),
                  {Tensor(), Tensor::FromVector<int64_t>({1, 0, 0}, {3, 1})},
                  {var.get()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({3, 1}));
  EXPECT_THAT(Floats((*out)[0]), ElementsAre(1, 2, 4));

  out = RunKernel(g.node(), {Tensor(), Tensor::FromVector<int64_t>({1, 3})},
                  {var.get()});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              AllOf(HasSubstr("ResourceGather"),
                    HasSubstr("indices[1] = 3 is not in [0, 3)")));
}

TEST(VariableOpsTest, ScatterFamilyBothKinds) {
  struct Expect {
    const char* op;
    std::vector<float> values;
  };
  // Updates rows 2 and 0 (row 2 twice) with [10, 20], [30, 40], [50, 60].
  const std::vector<Expect> expects = {
      {"ScatterAdd", {30, 41, 2, 3, 64, 85}},
      {"ScatterSub", {-30, -39, 2, 3, -56, -75}},
      {"ScatterUpdate", {30, 40, 2, 3, 50, 60}},
  };
  for (const Expect& e : expects) {
    for (bool resource : {false, true}) {
      SCOPED_TRACE(absl::StrCat(e.op, resource));
      Scope root = Scope::NewRootScope();
      Output var_in = resource
                          ? ops::VarHandleOp(root, DT_FLOAT, {3, 2})
                          : ops::Variable(root, TensorShape({3, 2}), DT_FLOAT);
      Operation op =
          OpBuilder(root, absl::StrCat(resource ? "Resource" : "", e.op))
              .Input(var_in)
              .Input(ops::Placeholder(root, DT_INT32))
              .Input(ops::Placeholder(root, DT_FLOAT))
              .Finalize();
      ASSERT_TRUE(root.ok()) << root.status();
      auto var = Table();
      Tensor reader = var->Read();  // copy on write keeps this one
      const Tensor updates =
          Tensor::FromVector<float>({10, 20, 30, 40, 50, 60}, {3, 2});
      auto out =
          RunKernel(op.node(),
                    {Tensor(), Tensor::FromVector<int32_t>({2, 0, 2}), updates},
                    {var.get()});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ(Floats(*var->value()), e.values);
      EXPECT_THAT(Floats(reader), ElementsAre(0, 1, 2, 3, 4, 5));

      // A bad index: named with the range, and nothing written.
      auto bad = RunKernel(
          op.node(),
          {Tensor(), Tensor::FromVector<int32_t>({1, -1, 0}), updates},
          {var.get()});
      ASSERT_FALSE(bad.ok());
      EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(std::string(bad.status().message()),
                  HasSubstr("indices[1] = -1 is not in [0, 3)"));
      EXPECT_EQ(Floats(*var->value()), e.values);

      // Updates of the wrong shape.
      auto wrong = RunKernel(
          op.node(), {Tensor(), Tensor::FromVector<int32_t>({1}), updates},
          {var.get()});
      ASSERT_FALSE(wrong.ok());
      EXPECT_THAT(std::string(wrong.status().message()),
                  HasSubstr("must have shape indices.shape + var.shape[1:]"));
    }
  }
}

TEST(VariableOpsTest, ResourceScatterBroadcastsAScalarUpdate) {
  Scope root = Scope::NewRootScope();
  Output h = ops::VarHandleOp(root, DT_FLOAT, {3, 2});
  Operation op =
      ops::ResourceScatterAdd(root, h, ops::Placeholder(root, DT_INT32),
                              ops::Placeholder(root, DT_FLOAT));
  auto var = Table();
  auto out = RunKernel(
      op.node(),
      {Tensor(), Tensor::FromVector<int32_t>({1}), Tensor::Scalar<float>(100)},
      {var.get()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats(*var->value()), ElementsAre(0, 1, 102, 103, 4, 5));
}

TEST(VariableOpsTest, ScatterShapeFunctionChecksUpdates) {
  Scope root = Scope::NewRootScope();
  Output v = ops::Variable(root, TensorShape({3, 2}), DT_FLOAT);
  ops::ScatterAdd(root, v, Input({0, 1}), Input({1.0f, 2.0f, 3.0f}));
  EXPECT_THAT(std::string(root.status().message()),
              HasSubstr("must have shape indices.shape + var.shape[1:]"));
}

}  // namespace
}  // namespace dflow

namespace dflow {
namespace {

// InTopKV2 (an nn op of the same graphs): TensorFlow 2.21's answers for
// ties, a non-finite row, a target out of range and k = 0.
TEST(InTopKTest, MatchesTensorFlow) {
  Scope root = Scope::NewRootScope();
  Output op = ops::InTopKV2(root, ops::Placeholder(root, DT_FLOAT),
                            ops::Placeholder(root, DT_INT32),
                            ops::Placeholder(root, DT_INT32));
  ASSERT_TRUE(root.ok()) << root.status();
  const Tensor predictions =
      Tensor::FromVector<float>({0.1f, 0.5f, 0.5f, 0.2f, 0.9f, 0.05f, 0.05f,
                                 0.0f, NAN, 1, 2, 3, 1, 2, 3, 4},
                                {4, 4});
  const Tensor targets = Tensor::FromVector<int32_t>({1, 2, 1, 7});
  const std::vector<std::pair<int32_t, std::vector<bool>>> want = {
      {1, {true, false, false, false}},
      {2, {true, true, false, false}},
      {0, {false, false, false, false}}};
  for (const auto& [k, expected] : want) {
    auto out = RunKernel(op.node(),
                         {predictions, targets, Tensor::Scalar<int32_t>(k)});
    ASSERT_TRUE(out.ok()) << out.status();
    std::vector<bool> got((*out)[0].data<bool>(), (*out)[0].data<bool>() + 4);
    EXPECT_EQ(got, expected) << "k = " << k;
  }
}

}  // namespace
}  // namespace dflow
