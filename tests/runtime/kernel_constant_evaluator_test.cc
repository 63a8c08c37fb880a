// The runtime's ConstantEvaluator: real CPU kernels compute nodes of a
// graph from constant inputs; what must not be computed at compile time is
// refused.
#include "runtime/kernel_constant_evaluator.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/device.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class KernelConstantEvaluatorTest : public ::testing::Test {
 protected:
  KernelConstantEvaluatorTest()
      : cpu_(NewCpuDevice(0)), evaluator_(cpu_.get()) {}

  absl::StatusOr<std::vector<Tensor>> Eval(const Output& out,
                                           const std::vector<Tensor>& in) {
    return evaluator_.Evaluate(*out.node(), in);
  }

  Scope root_ = Scope::NewRootScope();
  std::unique_ptr<Device> cpu_;
  KernelConstantEvaluator evaluator_;
};

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.flat<T>().begin(), t.flat<T>().end());
}

TEST_F(KernelConstantEvaluatorTest, AddV2AndMulBroadcast) {
  Output a = ops::Const(root_, {1.0f, 2.0f, 3.0f});
  Output b = ops::Const(root_, 10.0f);
  Output sum = ops::AddV2(root_.WithOpName("sum"), a, b);
  Output product = ops::Mul(root_.WithOpName("product"), a, a);
  ASSERT_TRUE(root_.ok()) << root_.status();

  absl::StatusOr<std::vector<Tensor>> s =
      Eval(sum, {Tensor::FromVector<float>({1, 2, 3}), Tensor::Scalar(10.0f)});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ((*s)[0].shape(), TensorShape({3}));
  EXPECT_THAT(Values<float>((*s)[0]), ElementsAre(11, 12, 13));

  absl::StatusOr<std::vector<Tensor>> p =
      Eval(product, {Tensor::FromVector<float>({1, 2, 3}),
                     Tensor::FromVector<float>({4, 5, 6})});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(Values<float>((*p)[0]), ElementsAre(4, 10, 18));
}

TEST_F(KernelConstantEvaluatorTest, ReshapeFillAndCast) {
  Output r = ops::Reshape(root_.WithOpName("r"),
                          ops::Const(root_, {1.0f, 2.0f, 3.0f, 4.0f}),
                          ops::Const(root_, {2, 2}));
  Output f = ops::Fill(root_.WithOpName("f"), ops::Const(root_, {2, 3}),
                       ops::Const(root_, 7));
  Output c = ops::Cast(root_.WithOpName("c"), ops::Const(root_, {1.7f, -2.2f}),
                       DT_INT32);
  ASSERT_TRUE(root_.ok()) << root_.status();

  absl::StatusOr<std::vector<Tensor>> reshaped =
      Eval(r, {Tensor::FromVector<float>({1, 2, 3, 4}),
               Tensor::FromVector<int32_t>({2, 2})});
  ASSERT_TRUE(reshaped.ok()) << reshaped.status();
  EXPECT_EQ((*reshaped)[0].shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<float>((*reshaped)[0]), ElementsAre(1, 2, 3, 4));

  absl::StatusOr<std::vector<Tensor>> filled =
      Eval(f, {Tensor::FromVector<int32_t>({2, 3}), Tensor::Scalar<int32_t>(7)});
  ASSERT_TRUE(filled.ok()) << filled.status();
  EXPECT_EQ((*filled)[0].shape(), TensorShape({2, 3}));
  EXPECT_EQ((*filled)[0].dtype(), DT_INT32);
  EXPECT_THAT(Values<int32_t>((*filled)[0]), ElementsAre(7, 7, 7, 7, 7, 7));

  absl::StatusOr<std::vector<Tensor>> cast =
      Eval(c, {Tensor::FromVector<float>({1.7f, -2.2f})});
  ASSERT_TRUE(cast.ok()) << cast.status();
  EXPECT_EQ((*cast)[0].dtype(), DT_INT32);
  EXPECT_THAT(Values<int32_t>((*cast)[0]), ElementsAre(1, -2));
}

TEST_F(KernelConstantEvaluatorTest, MultiOutputSplit) {
  OutputList parts =
      ops::Split(root_.WithOpName("split"), ops::Const(root_, 0),
                 ops::Const(root_, {1.0f, 2.0f, 3.0f, 4.0f}), 2);
  ASSERT_TRUE(root_.ok()) << root_.status();
  absl::StatusOr<std::vector<Tensor>> out =
      Eval(parts[0], {Tensor::Scalar<int32_t>(0),
                      Tensor::FromVector<float>({1, 2, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(1, 2));
  EXPECT_THAT(Values<float>((*out)[1]), ElementsAre(3, 4));
}

TEST_F(KernelConstantEvaluatorTest, AKernelErrorIsReturnedNotRaised) {
  Output r = ops::Reshape(root_.WithOpName("bad_reshape"),
                          ops::Const(root_, {1.0f, 2.0f, 3.0f}),
                          ops::Placeholder(root_, DT_INT32));
  ASSERT_TRUE(root_.ok()) << root_.status();
  absl::StatusOr<std::vector<Tensor>> out =
      Eval(r, {Tensor::FromVector<float>({1, 2, 3}),
               Tensor::FromVector<int32_t>({2, 2})});
  EXPECT_FALSE(out.ok());
  // The wrong number of inputs is refused before any kernel runs.
  EXPECT_FALSE(Eval(r, {Tensor::FromVector<float>({1, 2, 3})}).ok());
  // So are inputs of another dtype than the node takes, and no value.
  EXPECT_FALSE(Eval(r, {Tensor::FromVector<int32_t>({1, 2, 3}),
                        Tensor::FromVector<int32_t>({3})})
                   .ok());
  EXPECT_FALSE(Eval(r, {Tensor(), Tensor::FromVector<int32_t>({3})}).ok());
}

TEST_F(KernelConstantEvaluatorTest, StatefulAndVariableOpsAreRefused) {
  Output random = ops::RandomUniform(root_.WithOpName("random"),
                                     ops::Const(root_, {2}), DT_FLOAT);
  Output v = ops::Variable(root_.WithOpName("v"), TensorShape({2}), DT_FLOAT);
  ASSERT_TRUE(root_.ok()) << root_.status();
  absl::StatusOr<std::vector<Tensor>> r =
      Eval(random, {Tensor::FromVector<int32_t>({2})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("stateful"));
  EXPECT_FALSE(Eval(v, {}).ok());
}

}  // namespace
}  // namespace dflow
