// The TensorList kernels through a Session: push/pop order, Reserve +
// SetItem + GetItem + Stack with unset elements read as zeros,
// FromTensor's rows, Length and ElementShape, AddN and ZerosLike of lists,
// a list unchanged by the ops that took it (changed in place only when the
// op's input alone held it), and each bad input's error.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "kernels/cpu/data_flow_ops_tensor_list.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The scope for an op's constant inputs: `s` without the op's name.
Scope ArgScope(const Scope& s) { return s.WithOpName(""); }

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

Output Empty(const Scope& s, Input shape, DataType dtype = DT_FLOAT,
             int32_t max = -1) {
  return OpBuilder(s, "EmptyTensorList")
      .Input(shape)
      .Input(ops::Const(ArgScope(s), max))
      .Attr("element_dtype", dtype)
      .Finalize()
      .output(0);
}

Output Push(const Scope& s, Input list, Input value) {
  return OpBuilder(s, "TensorListPushBack")
      .Input(list)
      .Input(value)
      .Finalize()
      .output(0);
}

Operation Pop(const Scope& s, Input list, Input shape) {
  return OpBuilder(s, "TensorListPopBack")
      .Input(list)
      .Input(shape)
      .Attr("element_dtype", DT_FLOAT)
      .Finalize();
}

Output Reserve(const Scope& s, Input shape, int32_t n) {
  return OpBuilder(s, "TensorListReserve")
      .Input(shape)
      .Input(ops::Const(ArgScope(s), n))
      .Attr("element_dtype", DT_FLOAT)
      .Finalize()
      .output(0);
}

Output SetItem(const Scope& s, Input list, int32_t index, Input item) {
  return OpBuilder(s, "TensorListSetItem")
      .Input(list)
      .Input(ops::Const(ArgScope(s), index))
      .Input(item)
      .Finalize()
      .output(0);
}

Output GetItem(const Scope& s, Input list, int32_t index, Input shape) {
  return OpBuilder(s, "TensorListGetItem")
      .Input(list)
      .Input(ops::Const(ArgScope(s), index))
      .Input(shape)
      .Attr("element_dtype", DT_FLOAT)
      .Finalize()
      .output(0);
}

Output Stack(const Scope& s, Input list, Input shape) {
  return OpBuilder(s, "TensorListStack")
      .Input(list)
      .Input(shape)
      .Attr("element_dtype", DT_FLOAT)
      .Finalize()
      .output(0);
}

TEST(TensorListOpsTest, PushAndPopInReverseOrderLeavingTheInputList) {
  Scope root = Scope::NewRootScope();
  Output shape = ops::Const(root, {2});
  Output one = Push(root, Empty(root, shape), ops::Const(root, {1.f, 2.f}));
  Output two = Push(root, one, ops::Const(root, {3.f, 4.f}));
  Operation pop = Pop(root.WithOpName("pop"), two, shape);
  Operation pop_again = Pop(root.WithOpName("pop_again"), pop.output(0), shape);
  OpBuilder(root.WithOpName("length_two"), "TensorListLength")
      .Input(two)
      .Finalize();
  OpBuilder(root.WithOpName("length_after"), "TensorListLength")
      .Input(pop_again.output(0))
      .Finalize();
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session
                  ->Run({},
                        {"pop:1", "pop_again:1", "length_two", "length_after"},
                        {}, &out)
                  .ok());
  EXPECT_THAT(Floats(out[0]), ElementsAre(3, 4));
  EXPECT_THAT(Floats(out[1]), ElementsAre(1, 2));
  EXPECT_EQ(*out[2].data<int32_t>(), 2);  // popping made new lists
  EXPECT_EQ(*out[3].data<int32_t>(), 0);
}

TEST(TensorListOpsTest, ReserveSetGetAndStackReadUnsetElementsAsZeros) {
  Scope root = Scope::NewRootScope();
  Output shape = ops::Const(root, {2});
  Output list =
      SetItem(root, Reserve(root, shape, 3), 1, ops::Const(root, {5.f, 6.f}));
  ops::Identity(root.WithOpName("item"), GetItem(root, list, 1, shape));
  ops::Identity(root.WithOpName("unset"), GetItem(root, list, 2, shape));
  ops::Identity(root.WithOpName("stacked"), Stack(root, list, shape));
  OpBuilder(root.WithOpName("element_shape"), "TensorListElementShape")
      .Input(list)
      .Attr("shape_type", DT_INT32)
      .Finalize();
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(
      session->Run({}, {"item", "unset", "stacked", "element_shape"}, {}, &out)
          .ok());
  EXPECT_THAT(Floats(out[0]), ElementsAre(5, 6));
  EXPECT_THAT(Floats(out[1]), ElementsAre(0, 0));
  EXPECT_EQ(out[2].shape(), TensorShape({3, 2}));
  EXPECT_THAT(Floats(out[2]), ElementsAre(0, 0, 5, 6, 0, 0));
  EXPECT_THAT(
      std::vector<int32_t>(out[3].data<int32_t>(), out[3].data<int32_t>() + 1),
      ElementsAre(2));
}

TEST(TensorListOpsTest, FromTensorAddNAndZerosLike) {
  Scope root = Scope::NewRootScope();
  Output shape = ops::Const(root, {2});
  Output rows =
      OpBuilder(root, "TensorListFromTensor")
          .Input(ops::Const(root, {1.f, 2.f, 3.f, 4.f}, TensorShape({2, 2})))
          .Input(shape)
          .Finalize()
          .output(0);
  Output sum = ops::AddN(root, {rows, rows});
  ops::Identity(root.WithOpName("doubled"), Stack(root, sum, shape));
  ops::Identity(root.WithOpName("zeros"),
                Stack(root, ops::ZerosLike(root, rows), shape));
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"doubled", "zeros"}, {}, &out).ok());
  EXPECT_THAT(Floats(out[0]), ElementsAre(2, 4, 6, 8));
  EXPECT_THAT(Floats(out[1]), ElementsAre(0, 0, 0, 0));
}

// The list a variant scalar holds.
const TensorList* ListOf(const Tensor& t) {
  return t.data<Variant>()->get<TensorList>();
}

TEST(TensorListOpsTest, ListHeldOnlyByTheInputChangesInPlaceOthersAreCopied) {
  Scope root = Scope::NewRootScope();
  Output list_in = ops::Placeholder(root, DT_VARIANT);
  Output item = ops::Placeholder(root, DT_FLOAT);
  Output push = Push(root, list_in, item);
  Output shape = ops::Const(root, {2});
  Operation pop = Pop(root, list_in, ops::Placeholder(root, DT_INT32));
  Output one = Empty(root, shape);
  absl::StatusOr<std::vector<Tensor>> made = RunKernel(
      one.node(),
      {Tensor::FromVector<int32_t>({2}), Tensor::Scalar<int32_t>(-1)});
  ASSERT_TRUE(made.ok()) << made.status();
  Tensor list = (*made)[0];
  made->clear();
  const TensorList* original = ListOf(list);

  // Another tensor holds the list: the push makes a new one.
  absl::StatusOr<std::vector<Tensor>> copied =
      RunKernel(push.node(), {list, Tensor::FromVector<float>({1, 2})});
  ASSERT_TRUE(copied.ok()) << copied.status();
  EXPECT_NE(ListOf((*copied)[0]), original);
  EXPECT_EQ(original->tensors.size(), 0u);
  EXPECT_EQ(ListOf((*copied)[0])->tensors.size(), 1u);

  // Moved in, held by the input slot alone: pushed and popped in place.
  std::vector<Tensor> inputs;
  inputs.push_back(std::move(list));
  inputs.push_back(Tensor::FromVector<float>({3, 4}));
  absl::StatusOr<std::vector<Tensor>> pushed =
      RunKernel(push.node(), std::move(inputs));
  ASSERT_TRUE(pushed.ok()) << pushed.status();
  EXPECT_EQ(ListOf((*pushed)[0]), original);
  EXPECT_EQ(original->tensors.size(), 1u);
  inputs.clear();
  inputs.push_back(std::move((*pushed)[0]));
  inputs.push_back(Tensor::FromVector<int32_t>({2}));
  absl::StatusOr<std::vector<Tensor>> popped =
      RunKernel(pop.node(), std::move(inputs));
  ASSERT_TRUE(popped.ok()) << popped.status();
  EXPECT_EQ(ListOf((*popped)[0]), original);
  EXPECT_EQ(original->tensors.size(), 0u);
  EXPECT_THAT(Floats((*popped)[1]), ElementsAre(3, 4));
}

TEST(TensorListOpsTest, BadInputsAreErrorsThatSayWhat) {
  Scope root = Scope::NewRootScope();
  Output two = ops::Const(root, {2});
  Output unknown = ops::Const(root, -1);
  Output empty = Empty(root, two);
  Pop(root.WithOpName("pop_empty"), empty, two);
  GetItem(root.WithOpName("out_of_range"), Reserve(root, two, 1), 4, two);
  Push(root.WithOpName("wrong_shape"), empty,
       ops::Const(root, {1.f, 2.f, 3.f}));
  Push(root.WithOpName("wrong_dtype"), empty, ops::Const(root, {1, 2}));
  Push(root.WithOpName("over_max"),
       Push(root, Empty(root, two, DT_FLOAT, 1), ops::Const(root, {1.f, 2.f})),
       ops::Const(root, {3.f, 4.f}));
  Stack(root.WithOpName("unknown_zeros"), Reserve(root, unknown, 2), unknown);
  std::unique_ptr<Session> session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"pop_empty", "empty list"},
      {"out_of_range", "index 4 is outside the list of 1 tensors"},
      {"wrong_shape", "does not match the list's element shape [2]"},
      {"wrong_dtype",
       "holds float tensors but the op's element_dtype is int32"},
      {"over_max", "max_num_elements (1)"},
      {"unknown_zeros", "needs the element shape, but it is <unknown>"}};
  for (const auto& [node, message] : cases) {
    std::vector<Tensor> out;
    absl::Status s = session->Run({}, {}, {node}, &out);
    EXPECT_FALSE(s.ok()) << node;
    EXPECT_THAT(std::string(s.message()), HasSubstr(message)) << node;
    EXPECT_THAT(std::string(s.message()), HasSubstr(node)) << node;
  }
}

}  // namespace
}  // namespace dflow
