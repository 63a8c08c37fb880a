#include "graph/ops/slicing_ops.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/ops/array_ops.h"
#include "graph/ops/shape_ops.h"
#include "graph/scope.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "gtest/gtest.h"
#include "proto/graph.pb.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// --- Helpers. ---

const OpDef& GetOpDef(const std::string& name) {
  absl::StatusOr<const OpRegistration*> reg =
      OpRegistry::Global()->LookUp(name);
  EXPECT_TRUE(reg.ok()) << reg.status();
  static const OpDef* const kEmpty = new OpDef;
  return reg.ok() ? (*reg)->op_def : *kEmpty;
}

// The attr `name` of `op` (an empty AttrDef, after a test failure, when there
// is none, so that a missing op fails its test instead of crashing it).
const OpDef::AttrDef* FindAttrDef(const OpDef& op, const std::string& name) {
  for (const auto& a : op.attr()) {
    if (a.name() == name) return &a;
  }
  ADD_FAILURE() << op.name() << " has no attr " << name;
  static const OpDef::AttrDef* const kEmpty = new OpDef::AttrDef;
  return kEmpty;
}

// Input/output arg `i` of `op`, or an empty ArgDef after a test failure.
const OpDef::ArgDef& InArg(const OpDef& op, int i) {
  static const OpDef::ArgDef* const kEmpty = new OpDef::ArgDef;
  if (i >= op.input_arg_size()) ADD_FAILURE() << "no input " << i;
  return i < op.input_arg_size() ? op.input_arg(i) : *kEmpty;
}
const OpDef::ArgDef& OutArg(const OpDef& op, int i) {
  static const OpDef::ArgDef* const kEmpty = new OpDef::ArgDef;
  if (i >= op.output_arg_size()) ADD_FAILURE() << "no output " << i;
  return i < op.output_arg_size() ? op.output_arg(i) : *kEmpty;
}

std::vector<std::string> Names(
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args) {
  std::vector<std::string> names;
  for (const auto& a : args) names.push_back(a.name());
  return names;
}

std::vector<std::string> AttrNames(const OpDef& op) {
  std::vector<std::string> names;
  for (const auto& a : op.attr()) names.push_back(a.name());
  return names;
}

// The default of a type attr (DT_INVALID when it has none).
DataType DefaultType(const OpDef& op, const std::string& attr) {
  const OpDef::AttrDef* a = FindAttrDef(op, attr);
  return a->has_default_value() ? a->default_value().type() : DT_INVALID;
}

bool AllowsType(const OpDef& op, const std::string& attr, DataType t) {
  const OpDef::AttrDef* a = FindAttrDef(op, attr);
  for (int v : a->allowed_values().list().type()) {
    if (v == t) return true;
  }
  return false;
}

Output In(const Scope& s, const TensorShape& shape, DataType t = DT_FLOAT) {
  return ops::Placeholder(s, t, ops::PlaceholderAttrs().Shape(shape));
}

// A tensor of unknown rank.
Output Unknown(const Scope& s, DataType t = DT_FLOAT) {
  return ops::Placeholder(s, t);
}

std::string S(const Output& o) {
  EXPECT_TRUE(o.valid());
  return o.shape().ToString();
}

// What is known of an output's value as a shape.
std::string V(const Output& o) {
  if (!o.valid()) return "<invalid>";
  return o.node()->output_shape_values()[o.index()].ToString();
}

std::string Err(const Scope& root) {
  EXPECT_FALSE(root.ok());
  return std::string(root.status().message());
}

// --- ConcatV2, Split, SplitV, Tile, Pack, Unpack. ---

TEST(ConcatV2Test, Schema) {
  const OpDef& op = GetOpDef("ConcatV2");
  EXPECT_THAT(Names(op.input_arg()), ElementsAre("values", "axis"));
  EXPECT_EQ(InArg(op, 0).number_attr(), "N");
  EXPECT_EQ(FindAttrDef(op, "N")->minimum(), 2);
  EXPECT_EQ(DefaultType(op, "Tidx"), DT_INT32);
}

TEST(ConcatV2Test, Shapes) {
  Scope root = Scope::NewRootScope();
  Output a = In(root, {2, 3});
  Output b = In(root, {2, 5});
  Output c = ops::ConcatV2(root, {a, b}, 1);
  EXPECT_EQ(S(c), "[2,8]");
  ASSERT_TRUE(c.valid()) << root.status();
  EXPECT_EQ(c.node()->def().attr().at("N").i(), 2);
  EXPECT_EQ(S(ops::ConcatV2(root, {a, b, a}, -1)), "[2,11]");
  EXPECT_EQ(S(ops::Concat(root, {In(root, {-1, 3}), In(root, {4, 3})}, 0)),
            "[?,3]");
  EXPECT_EQ(S(ops::ConcatV2(root, {In(root, {-1, 3}), In(root, {4, -1})}, 1)),
            "[4,?]");
  EXPECT_EQ(S(ops::ConcatV2(root, {a, Unknown(root)}, 0)), "[?,3]");
  EXPECT_EQ(S(ops::ConcatV2(root, {a, b}, In(root, {}, DT_INT32))), "[?,?]");
  EXPECT_EQ(S(ops::ConcatV2(root, {Unknown(root), Unknown(root)}, 0)),
            "<unknown>");
  // One value: an Identity, as tf.concat does.
  Output one = ops::ConcatV2(root, {a}, 0);
  ASSERT_TRUE(one.valid()) << root.status();
  EXPECT_EQ(one.node()->op(), "Identity");
  EXPECT_EQ(S(one), "[2,3]");
  ASSERT_TRUE(root.ok()) << root.status();
}

TEST(ConcatV2Test, ConcatenatesShapeValues) {
  Scope root = Scope::NewRootScope();
  Output y = In(root, {3, 4});
  Output shape =
      ops::ConcatV2(root, {ops::Const(root, {-1}), ops::Shape(root, y)}, 0);
  EXPECT_EQ(V(shape), "[?,3,4]");
  EXPECT_EQ(S(ops::Reshape(root, In(root, {2, 12}), shape)), "[2,3,4]");
  ASSERT_TRUE(root.ok()) << root.status();
}

TEST(ConcatV2Test, MismatchNamesNodeAndShapes) {
  Scope root = Scope::NewRootScope();
  ops::ConcatV2(root.WithOpName("c"), {In(root, {2, 3}), In(root, {4, 5})}, 1);
  std::string msg = Err(root);
  EXPECT_THAT(msg, HasSubstr("'c'"));
  EXPECT_THAT(msg, HasSubstr("ConcatV2"));
  EXPECT_THAT(msg, HasSubstr("[2,3]"));
  EXPECT_THAT(msg, HasSubstr("[4,5]"));

  Scope rank = Scope::NewRootScope();
  ops::ConcatV2(rank, {In(rank, {2, 3}), In(rank, {2})}, 0);
  EXPECT_THAT(Err(rank), HasSubstr("same rank"));
  Scope scalars = Scope::NewRootScope();
  ops::ConcatV2(scalars, {In(scalars, {}), In(scalars, {})}, 0);
  EXPECT_THAT(Err(scalars), HasSubstr("scalars"));
  Scope axis = Scope::NewRootScope();
  ops::ConcatV2(axis, {In(axis, {2}), In(axis, {2})}, 1);
  EXPECT_THAT(Err(axis), HasSubstr("out of range"));
}

TEST(SplitTest, SchemaShapesAndErrors) {
  const OpDef& op = GetOpDef("Split");
  EXPECT_THAT(Names(op.input_arg()), ElementsAre("split_dim", "value"));
  EXPECT_EQ(InArg(op, 0).type(), DT_INT32);
  EXPECT_EQ(OutArg(op, 0).number_attr(), "num_split");
  EXPECT_EQ(FindAttrDef(op, "num_split")->minimum(), 1);

  Scope root = Scope::NewRootScope();
  OutputList parts = ops::Split(root, 1, In(root, {4, 6}), 3);
  ASSERT_EQ(parts.size(), 3u);
  for (const Output& p : parts) EXPECT_EQ(S(p), "[4,2]");
  EXPECT_EQ(parts[2].index(), 2);
  OutputList batch = ops::Split(root, 0, In(root, {-1, 784}), 2);
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(S(batch[1]), "[?,784]");
  OutputList dyn =
      ops::Split(root, In(root, {}, DT_INT32), In(root, {4, 6}), 2);
  EXPECT_EQ(S(dyn[0]), "[?,?]");
  EXPECT_EQ(S(ops::Split(root, 0, Unknown(root), 2)[0]), "<unknown>");
  ASSERT_TRUE(root.ok()) << root.status();

  Scope bad = Scope::NewRootScope();
  OutputList failed = ops::Split(bad.WithOpName("s"), 1, In(bad, {4, 6}), 4);
  EXPECT_EQ(failed.size(), 4u);  // Invalid Outputs, safe to index.
  EXPECT_FALSE(failed[0].valid());
  std::string msg = Err(bad);
  EXPECT_THAT(msg, HasSubstr("'s'"));
  EXPECT_THAT(msg, HasSubstr("Split"));
  EXPECT_THAT(msg, HasSubstr("[4,6]"));
  EXPECT_THAT(msg, HasSubstr("num_split 4"));
}

TEST(SplitVTest, SchemaShapesAndErrors) {
  const OpDef& op = GetOpDef("SplitV");
  EXPECT_THAT(Names(op.input_arg()),
              ElementsAre("value", "size_splits", "split_dim"));
  EXPECT_EQ(DefaultType(op, "Tlen"), DT_INT64);
  EXPECT_TRUE(AllowsType(op, "Tlen", DT_INT8));

  Scope root = Scope::NewRootScope();
  OutputList parts = ops::SplitV(root, In(root, {4, 10}), {2, -1, 3}, 1, 3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(S(parts[0]), "[4,2]");
  EXPECT_EQ(S(parts[1]), "[4,5]");
  EXPECT_EQ(S(parts[2]), "[4,3]");
  OutputList partial = ops::SplitV(root, In(root, {-1, 10}), {1, -1}, 0, 2);
  EXPECT_EQ(S(partial[0]), "[1,10]");
  EXPECT_EQ(S(partial[1]), "[?,10]");
  OutputList dyn =
      ops::SplitV(root, In(root, {4, 10}), In(root, {2}, DT_INT32), 1, 2);
  EXPECT_EQ(S(dyn[0]), "[4,?]");
  ASSERT_TRUE(root.ok()) << root.status();

  Scope bad = Scope::NewRootScope();
  ops::SplitV(bad.WithOpName("v"), In(bad, {4, 10}), {2, 3}, 1, 2);
  std::string msg = Err(bad);
  EXPECT_THAT(msg, HasSubstr("'v'"));
  EXPECT_THAT(msg, HasSubstr("SplitV"));
  EXPECT_THAT(msg, HasSubstr("[4,10]"));
  EXPECT_THAT(msg, HasSubstr("[2,3]"));
  Scope two = Scope::NewRootScope();
  ops::SplitV(two, In(two, {4, 10}), {-1, -1}, 1, 2);
  EXPECT_THAT(Err(two), HasSubstr("only one -1"));
  Scope count = Scope::NewRootScope();
  ops::SplitV(count, In(count, {4, 10}), {5, 5}, 1, 3);
  EXPECT_THAT(Err(count), HasSubstr("num_split = 3"));
}

TEST(TileTest, ShapesAndErrors) {
  const OpDef& op = GetOpDef("Tile");
  EXPECT_THAT(Names(op.input_arg()), ElementsAre("input", "multiples"));
  EXPECT_EQ(DefaultType(op, "Tmultiples"), DT_INT32);

  Scope root = Scope::NewRootScope();
  EXPECT_EQ(S(ops::Tile(root, In(root, {2, 3}), {2, 1})), "[4,3]");
  EXPECT_EQ(S(ops::Tile(root, In(root, {-1, 3}), {2, 2})), "[?,6]");
  EXPECT_EQ(S(ops::Tile(root, In(root, {-1, 3}), {0, 2})), "[0,6]");
  EXPECT_EQ(S(ops::Tile(root, In(root, {2, 3}), In(root, {2}, DT_INT32))),
            "[?,?]");
  EXPECT_EQ(S(ops::Tile(root, Unknown(root), {2, 2, 2})), "[?,?,?]");
  ASSERT_TRUE(root.ok()) << root.status();

  Scope bad = Scope::NewRootScope();
  ops::Tile(bad.WithOpName("t"), In(bad, {2, 3}), {2, 2, 2});
  std::string msg = Err(bad);
  EXPECT_THAT(msg, HasSubstr("'t'"));
  EXPECT_THAT(msg, HasSubstr("Tile"));
  EXPECT_THAT(msg, HasSubstr("[2,3]"));
  EXPECT_THAT(msg, HasSubstr("[3]"));
  Scope neg = Scope::NewRootScope();
  ops::Tile(neg, In(neg, {2, 3}), {2, -2});
  EXPECT_THAT(Err(neg), HasSubstr("[2,-2]"));
}

TEST(PackTest, ShapesAndErrors) {
  const OpDef& op = GetOpDef("Pack");
  EXPECT_THAT(Names(op.input_arg()), ElementsAre("values"));
  EXPECT_EQ(FindAttrDef(op, "N")->minimum(), 1);
  EXPECT_EQ(FindAttrDef(op, "axis")->default_value().i(), 0);

  Scope root = Scope::NewRootScope();
  Output a = In(root, {2, 3});
  Output p = ops::Pack(root, {a, a, a});
  EXPECT_EQ(S(p), "[3,2,3]");
  ASSERT_TRUE(p.valid()) << root.status();
  EXPECT_EQ(p.node()->def().attr().at("N").i(), 3);
  EXPECT_EQ(S(ops::Pack(root, {a, a, a}, ops::PackAttrs().Axis(1))), "[2,3,3]");
  EXPECT_EQ(S(ops::Stack(root, {a, a, a}, ops::PackAttrs().Axis(-1))),
            "[2,3,3]");
  EXPECT_EQ(S(ops::Pack(root, {In(root, {-1, 3}), In(root, {2, -1})})),
            "[2,2,3]");
  EXPECT_EQ(S(ops::Pack(root, {Unknown(root), a})), "[2,2,3]");
  EXPECT_EQ(S(ops::Pack(root, {Unknown(root), Unknown(root)})), "<unknown>");
  ASSERT_TRUE(root.ok()) << root.status();

  Scope bad = Scope::NewRootScope();
  ops::Pack(bad.WithOpName("p"), {In(bad, {2, 3}), In(bad, {4})});
  std::string msg = Err(bad);
  EXPECT_THAT(msg, HasSubstr("'p'"));
  EXPECT_THAT(msg, HasSubstr("Pack"));
  EXPECT_THAT(msg, HasSubstr("[2,3]"));
  EXPECT_THAT(msg, HasSubstr("[4]"));
  Scope axis = Scope::NewRootScope();
  ops::Pack(axis, {In(axis, {2}), In(axis, {2})}, ops::PackAttrs().Axis(2));
  EXPECT_THAT(Err(axis), HasSubstr("out of range"));
}

TEST(PackTest, BuildsShapeValueFromDims) {
  // tf.reshape(y, tf.stack([tf.shape(y)[0], -1])).
  Scope root = Scope::NewRootScope();
  Output y = In(root, {2, 3, 4});
  Output batch = ops::StridedSlice(root, ops::Shape(root, y), {0}, {1}, {1},
                                   ops::StridedSliceAttrs().ShrinkAxisMask(1));
  EXPECT_EQ(S(batch), "[]");
  EXPECT_EQ(V(batch), "[2]");
  Output shape = ops::Pack(root, {batch, ops::Const(root, -1)});
  EXPECT_EQ(V(shape), "[2,?]");
  EXPECT_EQ(S(ops::Reshape(root, y, shape)), "[2,12]");
  // An unknown batch stays unknown.
  Output x = In(root, {-1, 5});
  Output xb = ops::StridedSlice(root, ops::Shape(root, x), {0}, {1}, {1},
                                ops::StridedSliceAttrs().ShrinkAxisMask(1));
  EXPECT_EQ(V(ops::Pack(root, {xb, ops::Const(root, 5)})), "[?,5]");
  ASSERT_TRUE(root.ok()) << root.status();
}

TEST(UnpackTest, ShapesAndErrors) {
  const OpDef& op = GetOpDef("Unpack");
  EXPECT_EQ(OutArg(op, 0).number_attr(), "num");
  EXPECT_EQ(FindAttrDef(op, "num")->minimum(), 0);

  Scope root = Scope::NewRootScope();
  OutputList rows = ops::Unpack(root, In(root, {3, 4}), 3);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(S(rows[2]), "[4]");
  OutputList cols =
      ops::Unstack(root, In(root, {-1, 4}), 4, ops::UnpackAttrs().Axis(-1));
  ASSERT_EQ(cols.size(), 4u);
  EXPECT_EQ(S(cols[0]), "[?]");
  EXPECT_EQ(S(ops::Unpack(root, Unknown(root), 2)[1]), "<unknown>");
  ASSERT_TRUE(root.ok()) << root.status();

  Scope bad = Scope::NewRootScope();
  ops::Unpack(bad.WithOpName("u"), In(bad, {3, 4}), 2);
  std::string msg = Err(bad);
  EXPECT_THAT(msg, HasSubstr("'u'"));
  EXPECT_THAT(msg, HasSubstr("Unpack"));
  EXPECT_THAT(msg, HasSubstr("[3,4]"));
  EXPECT_THAT(msg, HasSubstr("num is 2"));
}

// --- Slice and StridedSlice. ---

TEST(SliceTest, ShapesAndErrors) {
  const OpDef& op = GetOpDef("Slice");
  EXPECT_THAT(Names(op.input_arg()), ElementsAre("input", "begin", "size"));
  EXPECT_FALSE(FindAttrDef(op, "Index")->has_default_value());

  Scope root = Scope::NewRootScope();
  Output x = In(root, {4, 5});
  EXPECT_EQ(S(ops::Slice(root, x, {1, 2}, {2, -1})), "[2,3]");
  EXPECT_EQ(S(ops::Slice(root, x, {0, 0}, {4, 5})), "[4,5]");
  EXPECT_EQ(S(ops::Slice(root, In(root, {-1, 5}), {1, 2}, {2, -1})), "[2,3]");
  EXPECT_EQ(S(ops::Slice(root, x, In(root, {2}, DT_INT32), {2, -1})), "[2,?]");
  EXPECT_EQ(S(ops::Slice(root, x, {1, 1}, In(root, {2}, DT_INT32))), "[?,?]");
  EXPECT_EQ(S(ops::Slice(root, Unknown(root), {1, 1}, {2, 3})), "[2,3]");
  ASSERT_TRUE(root.ok()) << root.status();

  Scope bad = Scope::NewRootScope();
  ops::Slice(bad.WithOpName("s"), In(bad, {4, 5}), {3, 0}, {2, 5});
  std::string msg = Err(bad);
  EXPECT_THAT(msg, HasSubstr("'s'"));
  EXPECT_THAT(msg, HasSubstr("Slice"));
  EXPECT_THAT(msg, HasSubstr("[4,5]"));
  EXPECT_THAT(msg, HasSubstr("begin [3,0]"));
  EXPECT_THAT(msg, HasSubstr("size [2,5]"));
  Scope len = Scope::NewRootScope();
  ops::Slice(len, In(len, {4, 5}), {0}, {1});
  EXPECT_THAT(Err(len), HasSubstr("[4,5]"));
}

TEST(StridedSliceTest, Schema) {
  const OpDef& op = GetOpDef("StridedSlice");
  EXPECT_THAT(Names(op.input_arg()),
              ElementsAre("input", "begin", "end", "strides"));
  EXPECT_THAT(AttrNames(op), ElementsAre("T", "Index", "begin_mask", "end_mask",
                                         "ellipsis_mask", "new_axis_mask",
                                         "shrink_axis_mask"));
  EXPECT_TRUE(AllowsType(op, "Index", DT_INT32));
  EXPECT_TRUE(AllowsType(op, "Index", DT_INT64));
  EXPECT_EQ(FindAttrDef(op, "shrink_axis_mask")->default_value().i(), 0);
}

TEST(StridedSliceTest, Shapes) {
  using A = ops::StridedSliceAttrs;
  Scope root = Scope::NewRootScope();
  Output x = In(root, {4, 5, 6});
  auto ss = [&](Input b, Input e, Input s, const A& a = {}) {
    return S(ops::StridedSlice(root, x, b, e, s, a));
  };
  EXPECT_EQ(ss({1}, {3}, {1}), "[2,5,6]");  // x[1:3]
  EXPECT_EQ(
      ss({0, 1}, {0, 2}, {1, 1}, A().BeginMask(1).EndMask(1).ShrinkAxisMask(2)),
      "[4,6]");  // x[:, 1]
  EXPECT_EQ(ss({0, 0}, {0, 1}, {1, 1}, A().EllipsisMask(1).ShrinkAxisMask(2)),
            "[4,5]");  // x[..., 0]
  EXPECT_EQ(
      ss({0, 0}, {0, 0}, {1, 2}, A().NewAxisMask(1).BeginMask(2).EndMask(2)),
      "[1,2,5,6]");  // x[None, ::2]
  EXPECT_EQ(ss({0, 0, 0}, {0, 0, 0}, {1, 1, 1},
               A().EllipsisMask(1).NewAxisMask(2).ShrinkAxisMask(4)),
            "[4,5,1]");  // x[..., None, 0]
  EXPECT_EQ(ss({0}, {0}, {-1}, A().BeginMask(1).EndMask(1)), "[4,5,6]");
  EXPECT_EQ(ss({-2}, {0}, {1}, A().EndMask(1)), "[2,5,6]");       // x[-2:]
  EXPECT_EQ(ss({-1}, {0}, {1}, A().ShrinkAxisMask(1)), "[5,6]");  // x[-1]
  EXPECT_EQ(ss({3}, {0}, {-1}), "[3,5,6]");                       // x[3:0:-1]
  EXPECT_EQ(ss({1}, {100}, {2}), "[2,5,6]");                      // clamped
  EXPECT_EQ(ss({3}, {1}, {1}), "[0,5,6]");                        // empty
  EXPECT_EQ(ss(In(root, {1}, DT_INT32), {3}, {1}), "[?,5,6]");
  EXPECT_EQ(ss(In(root, {1}, DT_INT32), {3}, {1}, A().ShrinkAxisMask(1)),
            "[5,6]");
  EXPECT_EQ(ss({0}, {1}, In(root, {1}, DT_INT32)), "<unknown>");
  Output p = In(root, {-1, 5});
  EXPECT_EQ(S(ops::StridedSlice(root, p, {1}, {3}, {1})), "[?,5]");
  EXPECT_EQ(S(ops::StridedSlice(root, p, {0, 1}, {0, 3}, {1, 1},
                                A().BeginMask(1).EndMask(1))),
            "[?,2]");
  EXPECT_EQ(S(ops::StridedSlice(root, Unknown(root), {0}, {1}, {1})),
            "<unknown>");
  ASSERT_TRUE(root.ok()) << root.status();
}

TEST(StridedSliceTest, SliceOfShapeIsShapeValue) {
  Scope root = Scope::NewRootScope();
  Output y = In(root, {-1, 5, 6});
  Output tail = ops::StridedSlice(root, ops::Shape(root, y), {1}, {0}, {1},
                                  ops::StridedSliceAttrs().EndMask(1));
  EXPECT_EQ(S(tail), "[2]");
  EXPECT_EQ(V(tail), "[5,6]");
  EXPECT_EQ(S(ops::Reshape(root, In(root, {30}), tail)), "[5,6]");
  Output rev =
      ops::StridedSlice(root, ops::Shape(root, y), {0}, {0}, {-1},
                        ops::StridedSliceAttrs().BeginMask(1).EndMask(1));
  EXPECT_EQ(V(rev), "[6,5,?]");
  ASSERT_TRUE(root.ok()) << root.status();
}

TEST(StridedSliceTest, Errors) {
  Scope root = Scope::NewRootScope();
  ops::StridedSlice(root.WithOpName("ss"), In(root, {4, 5}), {4}, {5}, {1},
                    ops::StridedSliceAttrs().ShrinkAxisMask(1));
  std::string msg = Err(root);
  EXPECT_THAT(msg, HasSubstr("'ss'"));
  EXPECT_THAT(msg, HasSubstr("StridedSlice"));
  EXPECT_THAT(msg, HasSubstr("[4,5]"));
  EXPECT_THAT(msg, HasSubstr("out of bounds"));

  Scope zero = Scope::NewRootScope();
  ops::StridedSlice(zero, In(zero, {4}), {0}, {4}, {0});
  EXPECT_THAT(Err(zero), HasSubstr("non-zero"));
  Scope many = Scope::NewRootScope();
  ops::StridedSlice(many, In(many, {4}), {0, 0}, {1, 1}, {1, 1});
  EXPECT_THAT(Err(many), HasSubstr("more entries"));
  Scope ellipses = Scope::NewRootScope();
  ops::StridedSlice(ellipses, In(ellipses, {4, 4}), {0, 0}, {1, 1}, {1, 1},
                    ops::StridedSliceAttrs().EllipsisMask(3));
  EXPECT_THAT(Err(ellipses), HasSubstr("one ellipsis"));
  Scope lengths = Scope::NewRootScope();
  ops::StridedSlice(lengths, In(lengths, {4, 4}), {0, 0}, {1}, {1, 1});
  EXPECT_THAT(Err(lengths), HasSubstr("lengths"));
}

// --- SpaceToBatchND, BatchToSpaceND, PadV2, MirrorPad, MirrorPadGrad. ---

TEST(SpaceToBatchNDTest, ShapesAndErrors) {
  Scope root = Scope::NewRootScope();
  Output pads = ops::Const(root, {1, 1, 0, 3}, TensorShape({2, 2}));
  EXPECT_EQ(S(ops::SpaceToBatchND(root, In(root, {2, 4, 6, 3}), {2, 3}, pads)),
            "[12,3,3,3]");
  EXPECT_EQ(S(ops::BatchToSpaceND(root, In(root, {12, 3, 3, 3}), {2, 3}, pads)),
            "[2,4,6,3]");
  // Unknown paddings: the batch is still known; unknown block_shape: only
  // the rank.
  EXPECT_EQ(S(ops::SpaceToBatchND(root, In(root, {2, 4, 6, 3}), {2, 3},
                                  In(root, {2, 2}, DT_INT32))),
            "[12,?,?,3]");
  EXPECT_EQ(S(ops::SpaceToBatchND(root, In(root, {2, 4, 6, 3}),
                                  In(root, {2}, DT_INT32),
                                  In(root, {2, 2}, DT_INT32))),
            "[?,?,?,3]");
  EXPECT_EQ(S(ops::BatchToSpaceND(root, Unknown(root), {2, 3}, pads)),
            "<unknown>");
  ASSERT_TRUE(root.ok()) << root.status();

  Scope bad = Scope::NewRootScope();
  ops::SpaceToBatchND(bad.WithOpName("s"), In(bad, {2, 5, 6, 3}), {2, 3},
                      ops::Const(bad, {0, 0, 0, 0}, TensorShape({2, 2})));
  EXPECT_THAT(Err(bad), AllOf(HasSubstr("'s'"), HasSubstr("SpaceToBatchND"),
                              HasSubstr("divisible by block_shape[0] = 2")));
  Scope batch = Scope::NewRootScope();
  ops::BatchToSpaceND(batch, In(batch, {6, 2, 2, 1}), {2, 2},
                      ops::Const(batch, {0, 0, 0, 0}, TensorShape({2, 2})));
  EXPECT_THAT(Err(batch), HasSubstr("the batch 6"));
}

TEST(PadsTest, ShapesAndErrors) {
  Scope root = Scope::NewRootScope();
  Output pads = ops::Const(root, {1, 0, 2, 3}, TensorShape({2, 2}));
  EXPECT_EQ(S(ops::PadV2(root, In(root, {2, 3}), pads, 1.5f)), "[3,8]");
  EXPECT_EQ(S(ops::MirrorPad(root, In(root, {2, 4}), pads, "SYMMETRIC")),
            "[3,9]");
  EXPECT_EQ(S(ops::MirrorPadGrad(root, In(root, {3, 9}), pads, "SYMMETRIC")),
            "[2,4]");
  EXPECT_EQ(S(ops::MirrorPadGrad(root, In(root, {-1, 9}), pads, "REFLECT")),
            "[?,4]");
  EXPECT_EQ(S(ops::MirrorPadGrad(root, In(root, {3, 9}),
                                 In(root, {2, 2}, DT_INT32), "REFLECT")),
            "[?,?]");
  ASSERT_TRUE(root.ok()) << root.status();

  Scope bad = Scope::NewRootScope();
  ops::PadV2(bad, In(bad, {2, 3}),
             ops::Const(bad, {1, 0, 2, 3}, TensorShape({2, 2})),
             In(bad, {2}));
  EXPECT_THAT(Err(bad), HasSubstr("constant_values"));
  Scope small = Scope::NewRootScope();
  ops::MirrorPadGrad(small, In(small, {3, 4}),
                     ops::Const(small, {1, 0, 2, 3}, TensorShape({2, 2})),
                     "REFLECT");
  EXPECT_THAT(Err(small), HasSubstr("fit in the padded input [3,4]"));
}

}  // namespace
}  // namespace dflow
