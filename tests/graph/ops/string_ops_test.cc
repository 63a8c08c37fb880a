// Shape functions of the feature pipelines' string ops and the hash-table
// ops (graph/ops/string_ops_transform.cc, string_ops_convert.cc,
// data_flow_ops_lookup.cc): what is known before a run, unknown dimensions
// where TensorFlow leaves them unknown, and errors for shapes no run could
// take.
#include "graph/ops/string_ops.h"

#include <string>

#include "gmock/gmock.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/data_flow_ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

Output Strings(const Scope& s, const TensorShape& shape) {
  return ops::Placeholder(s, DT_STRING, ops::PlaceholderAttrs().Shape(shape));
}

std::string S(const Output& o) {
  EXPECT_TRUE(o.valid());
  return o.valid() ? o.shape().ToString() : "<invalid>";
}

std::string Err(const Scope& root) {
  EXPECT_FALSE(root.ok());
  return std::string(root.status().message());
}

TEST(StringOpsShapeTest, ReduceJoinDropsOrKeepsTheReducedDimensions) {
  Scope root = Scope::NewRootScope();
  Output x = Strings(root, TensorShape({2, 3, 4}));
  EXPECT_EQ(S(ops::ReduceJoin(root, x, ops::Const(root, {0, -1}))), "[3]");
  EXPECT_EQ(S(ops::ReduceJoin(root, x, ops::Const(root, {0, -1}), true)),
            "[1,3,1]");
  EXPECT_EQ(S(ops::ReduceJoin(root, x, ops::Const(root, 1))), "[2,4]");
  // Axes known only at run time: the rank, when the dimensions are kept.
  Output axes = ops::Placeholder(root, DT_INT32);
  EXPECT_EQ(S(ops::ReduceJoin(root, x, axes)), "<unknown>");
  EXPECT_EQ(S(ops::ReduceJoin(root, x, axes, true)), "[?,?,?]");
  ASSERT_TRUE(root.ok()) << root.status();
  ops::ReduceJoin(root, x, ops::Const(root, 3));
  EXPECT_THAT(Err(root), HasSubstr("Invalid reduction dimension 3"));
}

TEST(StringOpsShapeTest, SubstrBroadcastsPosAgainstTheStrings) {
  Scope root = Scope::NewRootScope();
  Output x = Strings(root, TensorShape({2, 3}));
  Output pos = ops::Const(root, {0, 1, 2});
  EXPECT_EQ(S(ops::Substr(root, x, pos, ops::Const(root, {1, 1, 1}))), "[2,3]");
  EXPECT_EQ(S(ops::Substr(root, x, ops::Const(root, 0), ops::Const(root, 2))),
            "[2,3]");
  ASSERT_TRUE(root.ok()) << root.status();
  ops::Substr(root, x, pos, ops::Const(root, {1, 1}));
  EXPECT_FALSE(root.ok());
}

TEST(StringOpsShapeTest, SplitsAreSparseWithUnknownCounts) {
  Scope root = Scope::NewRootScope();
  Output x = Strings(root, TensorShape({5}));
  ops::StringSplitOutputs v2 =
      ops::StringSplitV2(root, x, ops::Const(root, ","));
  EXPECT_EQ(S(v2.indices), "[?,2]");
  EXPECT_EQ(S(v2.values), "[?]");
  EXPECT_EQ(S(v2.shape), "[2]");
  EXPECT_EQ(S(ops::StringSplit(root, x, ops::Const(root, " ")).indices),
            "[?,2]");
  ASSERT_TRUE(root.ok()) << root.status();
  ops::StringSplitV2(root, Strings(root, TensorShape({2, 2})),
                     ops::Const(root, ","));
  EXPECT_FALSE(root.ok());
}

TEST(StringOpsShapeTest, ElementwiseOpsKeepTheShape) {
  Scope root = Scope::NewRootScope();
  Output x = Strings(root, TensorShape({4, -1}));
  EXPECT_EQ(S(ops::StringToNumber(root, x, DT_INT64)), "[4,?]");
  EXPECT_EQ(ops::StringToNumber(root, x, DT_INT64).dtype(), DT_INT64);
  EXPECT_EQ(S(ops::StringToHashBucketFast(root, x, 10)), "[4,?]");
  EXPECT_EQ(S(ops::StaticRegexReplace(root, x, "a", "b")), "[4,?]");
  EXPECT_EQ(S(ops::EncodeBase64(root, x)), "[4,?]");
  EXPECT_EQ(S(ops::AsString(root, ops::Const(root, {1.0f, 2.0f}))), "[2]");
  EXPECT_EQ(S(ops::Fingerprint(root, x, ops::Const(root, "farmhash64"))),
            "[4,8]");
  ASSERT_TRUE(root.ok()) << root.status();
  ops::Fingerprint(root, ops::Const(root, "a"), ops::Const(root, "farmhash64"));
  EXPECT_FALSE(root.ok());
}

TEST(StringOpsShapeTest, TableLookupsHaveTheKeysShape) {
  Scope root = Scope::NewRootScope();
  Output table = ops::HashTableV2(root, DT_STRING, DT_INT64);
  EXPECT_EQ(S(table), "[]");
  EXPECT_EQ(table.dtype(), DT_RESOURCE);
  Output keys = Strings(root, TensorShape({2, 3}));
  EXPECT_EQ(S(ops::LookupTableFindV2(root, table, keys,
                                     ops::Const(root, int64_t{-1}))),
            "[2,3]");
  EXPECT_EQ(S(ops::LookupTableSizeV2(root, table)), "[]");
  ASSERT_TRUE(root.ok()) << root.status();
  ops::InitializeTableV2(
      root, table, keys,
      ops::Const(root, {int64_t{1}, int64_t{2}}, TensorShape({2})));
  EXPECT_THAT(Err(root), HasSubstr("keys and values"));
}

}  // namespace
}  // namespace dflow
