#include "graph/ops/random_ops.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/shape_ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const char* const kRandomOps[] = {"RandomStandardNormal", "TruncatedNormal",
                                  "RandomUniform"};

using RandomFn = Output (*)(const Scope&, Input, DataType,
                            const ops::RandomAttrs&);
const RandomFn kWrappers[] = {ops::RandomStandardNormal, ops::TruncatedNormal,
                              ops::RandomUniform};

const OpDef& GetOpDef(const std::string& name) {
  absl::StatusOr<const OpRegistration*> reg =
      OpRegistry::Global()->LookUp(name);
  EXPECT_TRUE(reg.ok()) << reg.status();
  static const OpDef* const kEmpty = new OpDef;
  return reg.ok() ? (*reg)->op_def : *kEmpty;
}

// The attr `name` of `op`; a failure and an empty AttrDef if there is none.
const OpDef::AttrDef* FindAttrDef(const OpDef& op, const std::string& name) {
  for (const auto& a : op.attr()) {
    if (a.name() == name) return &a;
  }
  ADD_FAILURE() << op.name() << " has no attr " << name;
  static const OpDef::AttrDef* const kEmpty = new OpDef::AttrDef;
  return kEmpty;
}

TEST(RandomOpsTest, RegistersWithoutErrors) {
  for (const absl::Status& s : OpRegistry::Global()->InitErrors()) {
    ADD_FAILURE() << s;
  }
}

TEST(RandomOpsTest, Schemas) {
  for (const char* name : kRandomOps) {
    SCOPED_TRACE(name);
    const OpDef& op = GetOpDef(name);
    EXPECT_TRUE(op.is_stateful());
    ASSERT_EQ(op.input_arg_size(), 1);
    EXPECT_EQ(op.input_arg(0).name(), "shape");
    EXPECT_EQ(op.input_arg(0).type_attr(), "T");
    ASSERT_EQ(op.output_arg_size(), 1);
    EXPECT_EQ(op.output_arg(0).name(), "output");
    EXPECT_EQ(op.output_arg(0).type_attr(), "dtype");
    std::vector<std::string> attrs;
    for (const auto& a : op.attr()) attrs.push_back(a.name());
    EXPECT_THAT(attrs, ElementsAre("seed", "seed2", "dtype", "T"));
    EXPECT_EQ(FindAttrDef(op, "seed")->default_value().i(), 0);
    EXPECT_EQ(FindAttrDef(op, "seed2")->default_value().i(), 0);
    EXPECT_THAT(FindAttrDef(op, "dtype")->allowed_values().list().type(),
                ElementsAre(DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE));
    EXPECT_THAT(FindAttrDef(op, "T")->allowed_values().list().type(),
                ElementsAre(DT_INT32, DT_INT64));
  }
}

TEST(RandomOpsTest, ShapeFromConstant) {
  Scope root = Scope::NewRootScope();
  for (RandomFn fn : kWrappers) {
    Output r = fn(root, {784, 100}, DT_FLOAT, {});
    ASSERT_TRUE(r.valid()) << root.status();
    EXPECT_EQ(r.shape(), TensorShape({784, 100}));
    EXPECT_EQ(r.dtype(), DT_FLOAT);
  }
  Output r64 = ops::RandomUniform(root, Tensor::FromVector<int64_t>({2, 3, 4}),
                                  DT_DOUBLE);
  EXPECT_EQ(r64.shape(), TensorShape({2, 3, 4}));
  EXPECT_EQ(r64.dtype(), DT_DOUBLE);
  DataType t = DT_INVALID;
  ASSERT_TRUE(r64.node()->GetAttr("T", &t).ok());
  EXPECT_EQ(t, DT_INT64);
  // An empty shape vector is a scalar.
  EXPECT_EQ(ops::RandomUniform(root, Tensor::FromVector<int32_t>({}), DT_FLOAT)
                .shape(),
            TensorShape({}));
  EXPECT_TRUE(root.ok()) << root.status();
}

TEST(RandomOpsTest, ShapeFromRuntimeTensor) {
  Scope root = Scope::NewRootScope();
  Output len3 =
      ops::Placeholder(root, DT_INT32, ops::PlaceholderAttrs().Shape({3}));
  EXPECT_EQ(ops::TruncatedNormal(root, len3, DT_FLOAT).shape(),
            TensorShape::UnknownWithRank(3));
  Output any = ops::Placeholder(root, DT_INT64);
  EXPECT_EQ(ops::RandomStandardNormal(root, any, DT_HALF).shape(),
            TensorShape::Unknown());
  // What Shape knows of a partially known tensor carries over.
  Output x =
      ops::Placeholder(root, DT_FLOAT, ops::PlaceholderAttrs().Shape({-1, 10}));
  EXPECT_EQ(ops::RandomUniform(root, ops::Shape(root, x), DT_FLOAT).shape(),
            TensorShape({-1, 10}));
  EXPECT_TRUE(root.ok()) << root.status();
}

TEST(RandomOpsTest, SeedsAndDefaultName) {
  Scope root = Scope::NewRootScope();
  Output r = ops::RandomStandardNormal(root, {2}, DT_FLOAT,
                                       ops::RandomAttrs().Seed(7).Seed2(9));
  ASSERT_TRUE(root.ok()) << root.status();
  int64_t seed = 0, seed2 = 0;
  ASSERT_TRUE(r.node()->GetAttr("seed", &seed).ok());
  ASSERT_TRUE(r.node()->GetAttr("seed2", &seed2).ok());
  EXPECT_EQ(seed, 7);
  EXPECT_EQ(seed2, 9);
  EXPECT_EQ(r.node()->name(), "RandomStandardNormal");
  EXPECT_TRUE(r.node()->IsStateful());
}

TEST(RandomOpsTest, ShapeMustBeAVector) {
  Scope root = Scope::NewRootScope();
  Output m =
      ops::Placeholder(root, DT_INT32, ops::PlaceholderAttrs().Shape({2, 2}));
  EXPECT_FALSE(ops::RandomUniform(root.WithOpName("r"), m, DT_FLOAT).valid());
  EXPECT_THAT(
      root.status().message(),
      AllOf(HasSubstr("'r'"), HasSubstr("RandomUniform"), HasSubstr("[2,2]")));
}

TEST(RandomOpsTest, NegativeDimensionIsAnError) {
  Scope root = Scope::NewRootScope();
  EXPECT_FALSE(
      ops::TruncatedNormal(root.WithOpName("t"), {3, -5}, DT_FLOAT).valid());
  EXPECT_THAT(
      root.status().message(),
      AllOf(HasSubstr("'t'"), HasSubstr("TruncatedNormal"), HasSubstr("-5")));
}

TEST(RandomOpsTest, IntegerDTypeIsRejected) {
  Scope root = Scope::NewRootScope();
  EXPECT_FALSE(ops::RandomUniform(root.WithOpName("u"), {2}, DT_INT32).valid());
  EXPECT_THAT(
      root.status().message(),
      AllOf(HasSubstr("'u'"), HasSubstr("RandomUniform"), HasSubstr("dtype")));
}

// --- The sampling ops: shapes the build knows. ---

TEST(RandomSamplingShapesTest, DistributionsAppendTheParameterShape) {
  Scope root = Scope::NewRootScope();
  Output alpha = ops::Const(root, {0.5f, 1.0f, 2.0f});
  EXPECT_EQ(ops::RandomGamma(root, {4, 2}, alpha).shape(),
            TensorShape({4, 2, 3}));
  EXPECT_EQ(ops::RandomPoissonV2(root, {5}, alpha, DT_INT32).shape(),
            TensorShape({5, 3}));
  EXPECT_EQ(ops::RandomPoissonV2(root, {5}, alpha, DT_INT32).dtype(),
            DT_INT32);
  Output logits = ops::Placeholder(root, DT_FLOAT,
                                   ops::PlaceholderAttrs().Shape({7, 4}));
  EXPECT_EQ(ops::Multinomial(root, logits, 9).shape(), TensorShape({7, 9}));
  EXPECT_EQ(ops::Multinomial(root, logits, 9, DT_INT32).dtype(), DT_INT32);
  Output seed = ops::Const(root, {int64_t{1}, int64_t{2}});
  EXPECT_EQ(ops::StatelessMultinomial(root, logits,
                                      ops::Placeholder(root, DT_INT32), seed)
                .shape(),
            TensorShape({7, -1}));
  EXPECT_EQ(ops::StatelessRandomBinomial(root, {6, 3}, seed, 5.0f, 0.5f)
                .shape(),
            TensorShape({6, 3}));
  EXPECT_TRUE(root.ok()) << root.status();
}

TEST(RandomSamplingShapesTest, CandidateSamplers) {
  Scope root = Scope::NewRootScope();
  Output classes = ops::Placeholder(root, DT_INT64,
                                    ops::PlaceholderAttrs().Shape({-1, 2}));
  ops::CandidateSample s =
      ops::LogUniformCandidateSampler(root, classes, 2, 5, true, 100);
  EXPECT_EQ(s.sampled_candidates.shape(), TensorShape({5}));
  EXPECT_EQ(s.true_expected_count.shape(), TensorShape({-1, 2}));
  EXPECT_EQ(s.sampled_expected_count.shape(), TensorShape({5}));
  EXPECT_TRUE(s.sampled_candidates.node()->IsStateful());
  ops::AccidentalHits hits =
      ops::ComputeAccidentalHits(root, classes, s.sampled_candidates, 2);
  EXPECT_EQ(hits.ids.shape(), TensorShape({-1}));
  EXPECT_EQ(hits.weights.dtype(), DT_FLOAT);
  EXPECT_TRUE(root.ok()) << root.status();
  // num_true must match true_classes' columns.
  ops::UniformCandidateSampler(root.WithOpName("cols"), classes, 3, 5, false,
                               10);
  EXPECT_THAT(root.status().message(),
              AllOf(HasSubstr("'cols'"), HasSubstr("num_true (3)")));
}

TEST(RandomSamplingShapesTest, SeedsAndIndexShuffle) {
  Scope root = Scope::NewRootScope();
  Output scalar = ops::RandomIndexShuffle(
      root, int64_t{3}, ops::Const(root, {1, 2, 3}), int64_t{9});
  EXPECT_EQ(scalar.shape(), TensorShape({}));
  Output vec = ops::RandomIndexShuffle(
      root, ops::Const(root, {int64_t{1}, int64_t{2}}),
      ops::Const(root, {1, 2, 3}), int64_t{9});
  EXPECT_EQ(vec.shape(), TensorShape({2}));
  ops::KeyCounterAlg kca = ops::StatelessRandomGetKeyCounterAlg(
      root, ops::Const(root, {int64_t{1}, int64_t{2}}));
  EXPECT_EQ(kca.alg.shape(), TensorShape({}));
  EXPECT_EQ(ops::StatelessRandomUniformFullIntV2(root, {3, 2}, kca.key,
                                                 kca.counter, kca.alg)
                .dtype(),
            DT_UINT64);
  EXPECT_TRUE(root.ok()) << root.status();
  ops::StatelessRandomPoisson(root.WithOpName("bad_seed"), {3},
                              ops::Const(root, {int64_t{1}, int64_t{2},
                                                int64_t{3}}),
                              1.0f, DT_FLOAT);
  EXPECT_THAT(root.status().message(),
              AllOf(HasSubstr("'bad_seed'"), HasSubstr("seed")));
}

}  // namespace
}  // namespace dflow
