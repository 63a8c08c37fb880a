// The stack kernels (StackV2, StackPushV2, StackPopV2, StackCloseV2)
// through a Session: pops in reverse push order, a pop on an empty stack,
// a fresh stack each run (stacks live for one step), max_size, dtype
// checks and closing.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/kernels/kernel_test_util.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Operation NewStack(const Scope& s, int32_t max_size = -1,
                   DataType type = DT_FLOAT) {
  return OpBuilder(s.WithOpName("stack"), "StackV2")
      .Input(ops::Const(s, max_size))
      .Attr("elem_type", type)
      .Attr("stack_name", "acc")
      .Finalize();
}

// Pushes `value` after `after` (if any).
Operation Push(const Scope& s, const std::string& name, const Operation& stack,
               Input value, const Operation* after = nullptr) {
  OpBuilder b(s.WithOpName(name), "StackPushV2");
  b.Input(stack.output(0)).Input(value);
  if (after != nullptr) b.ControlInput(*after);
  return b.Finalize();
}

Operation Pop(const Scope& s, const std::string& name, const Operation& stack,
              const Operation* after = nullptr) {
  OpBuilder b(s.WithOpName(name), "StackPopV2");
  b.Input(stack.output(0)).Attr("elem_type", DT_FLOAT);
  if (after != nullptr) b.ControlInput(*after);
  return b.Finalize();
}

TEST(StackTest, PopsInReverseOrderOfPushes) {
  Scope root = Scope::NewRootScope();
  Operation stack = NewStack(root);
  Operation p1 = Push(root, "push1", stack, ops::Const(root, {1.0f, 10.0f}));
  Operation p2 = Push(root, "push2", stack, ops::Const(root, 2.0f), &p1);
  Operation p3 = Push(root, "push3", stack, ops::Const(root, 3.0f), &p2);
  Operation a = Pop(root, "pop1", stack, &p3);
  Operation b = Pop(root, "pop2", stack, &a);
  Pop(root, "pop3", stack, &b);
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(
      session->Run({}, {"push1", "pop1", "pop2", "pop3"}, {}, &out).ok());
  EXPECT_THAT(out[0].flat<float>(), ElementsAre(1, 10));  // push returns it
  EXPECT_THAT(out[1].flat<float>(), ElementsAre(3));
  EXPECT_THAT(out[2].flat<float>(), ElementsAre(2));
  EXPECT_EQ(out[3].shape(), TensorShape({2}));
  EXPECT_THAT(out[3].flat<float>(), ElementsAre(1, 10));
}

TEST(StackTest, PopOnAnEmptyStackIsAnErrorNamingTheNode) {
  Scope root = Scope::NewRootScope();
  Operation stack = NewStack(root);
  Operation p = Push(root, "push", stack, ops::Const(root, 1.0f));
  Operation a = Pop(root, "pop1", stack, &p);
  Pop(root, "pop2", stack, &a);
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"pop2"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("pop2"));
  EXPECT_THAT(s.message(), HasSubstr("stack 'acc_0' is empty"));
}

// Stacks are per step: what one run pushed is gone in the next.
TEST(StackTest, EachRunMakesAFreshStack) {
  Scope root = Scope::NewRootScope();
  Operation stack = NewStack(root);
  Push(root, "push", stack, ops::Const(root, 1.0f));
  Pop(root, "pop", stack);
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Run({}, {}, {"push"}, nullptr).ok());
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"pop"}, {}, &out);
  EXPECT_THAT(s.message(), HasSubstr("is empty")) << s;
}

TEST(StackTest, PushBeyondMaxSizeIsAnError) {
  Scope root = Scope::NewRootScope();
  Operation stack = NewStack(root, /*max_size=*/1);
  Operation p1 = Push(root, "push1", stack, ops::Const(root, 1.0f));
  Push(root, "push2", stack, ops::Const(root, 2.0f), &p1);
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  absl::Status s = session->Run({}, {}, {"push2"}, nullptr);
  EXPECT_THAT(s.message(), HasSubstr("push2")) << s;
  EXPECT_THAT(s.message(), HasSubstr("max_size = 1"));
}

TEST(StackTest, PushOfAnotherDtypeIsAnError) {
  Scope root = Scope::NewRootScope();
  Operation stack = NewStack(root);
  Push(root, "push", stack, ops::Const(root, 7));
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  absl::Status s = session->Run({}, {}, {"push"}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("int32"));
  EXPECT_THAT(s.message(), HasSubstr("float"));
}

TEST(StackTest, PopOfAnotherDtypeIsAnError) {
  Scope root = Scope::NewRootScope();
  Operation stack = NewStack(root, -1, DT_INT32);
  Operation p = Push(root, "push", stack, ops::Const(root, 7));
  Pop(root, "pop", stack, &p);  // elem_type float
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"pop"}, {}, &out);
  EXPECT_THAT(s.message(), HasSubstr("set elem_type")) << s;
}

TEST(StackTest, UseAfterCloseIsAnError) {
  Scope root = Scope::NewRootScope();
  Operation stack = NewStack(root);
  Operation p = Push(root, "push", stack, ops::Const(root, 1.0f));
  Operation close = OpBuilder(root.WithOpName("close"), "StackCloseV2")
                        .Input(stack.output(0))
                        .ControlInput(p)
                        .Finalize();
  Pop(root, "pop", stack, &close);
  auto session = MakeSession(root);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run({}, {"pop"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(s.message(), HasSubstr("was closed"));
}

}  // namespace
}  // namespace dflow
