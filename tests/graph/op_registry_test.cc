// Tests for OpDefBuilder (the op-spec parser) and OpRegistry: every spec form
// becomes the expected OpDef field, malformed specs become errors that name
// the op and the spec (never a crash), and look-ups of unknown ops say what
// was asked for and what was probably meant.

#include "graph/op_registry.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "graph/types.h"
#include "proto/attr_value.pb.h"
#include "proto/op_def.pb.h"

namespace dflow {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAreArray;

// Registered in the global registry by this test binary only.
DFLOW_REGISTER_OP("TestRegistryConst")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type");

DFLOW_REGISTER_OP("TestRegistryAdd")
    .Input("a: T")
    .Input("b: T")
    .Output("sum: T")
    .Attr("T: {float, double, int32}")
    .SetIsCommutative();

// Builds `b`, failing the test (with the error) if it does not build.
OpDef BuildOk(const OpDefBuilder& b) {
  absl::StatusOr<OpRegistration> reg = b.Build();
  EXPECT_TRUE(reg.ok()) << reg.status();
  return reg.ok() ? reg->op_def : OpDef();
}

// Builds `b`, expecting a failure; returns the error.
absl::Status BuildError(const OpDefBuilder& b) {
  absl::StatusOr<OpRegistration> reg = b.Build();
  EXPECT_FALSE(reg.ok()) << "unexpectedly built: "
                         << (reg.ok() ? reg->op_def.ShortDebugString() : "");
  return reg.ok() ? absl::OkStatus() : reg.status();
}

const OpDef::AttrDef* FindAttrDef(const OpDef& op, const std::string& name) {
  for (const auto& a : op.attr()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

std::vector<DataType> AllowedTypes(const OpDef::AttrDef& a) {
  std::vector<DataType> out;
  for (int t : a.allowed_values().list().type()) {
    out.push_back(static_cast<DataType>(t));
  }
  return out;
}

// ---- Argument specs ---------------------------------------------------------

TEST(OpDefBuilderTest, TypeAttrArgument) {
  OpDef op = BuildOk(OpDefBuilder("TestAddSpec")
                         .Input("a: T")
                         .Input("b: T")
                         .Output("sum: T")
                         .Attr("T: {float, double, int32}"));
  EXPECT_EQ(op.name(), "TestAddSpec");
  ASSERT_EQ(op.input_arg_size(), 2);
  ASSERT_EQ(op.output_arg_size(), 1);
  EXPECT_EQ(op.input_arg(0).name(), "a");
  EXPECT_EQ(op.input_arg(0).type_attr(), "T");
  EXPECT_EQ(op.input_arg(0).type(), DT_INVALID);
  EXPECT_TRUE(op.input_arg(0).number_attr().empty());
  EXPECT_TRUE(op.input_arg(0).type_list_attr().empty());
  EXPECT_FALSE(op.input_arg(0).is_ref());
  EXPECT_EQ(op.input_arg(1).name(), "b");
  EXPECT_EQ(op.output_arg(0).name(), "sum");
  EXPECT_EQ(op.output_arg(0).type_attr(), "T");
  const OpDef::AttrDef* t = FindAttrDef(op, "T");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->type(), "type");
  EXPECT_THAT(AllowedTypes(*t),
              UnorderedElementsAreArray({DT_FLOAT, DT_DOUBLE, DT_INT32}));
  EXPECT_FALSE(t->has_default_value());
  EXPECT_FALSE(t->has_minimum());
}

TEST(OpDefBuilderTest, AttrsMayBeDeclaredAfterTheArgsThatUseThem) {
  // The builder calls come in any order; args are resolved against all attrs.
  OpDef op = BuildOk(OpDefBuilder("TestLateAttr")
                         .Input("x: T")
                         .Output("y: T")
                         .Attr("T: type"));
  EXPECT_EQ(op.input_arg(0).type_attr(), "T");
  EXPECT_EQ(op.output_arg(0).type_attr(), "T");
}

TEST(OpDefBuilderTest, FixedTypeArguments) {
  OpDef op = BuildOk(OpDefBuilder("TestFixed")
                         .Input("f: float")
                         .Input("i: int64")
                         .Input("s: string")
                         .Input("e: DT_BOOL")
                         .Output("h: half"));
  EXPECT_EQ(op.input_arg(0).type(), DT_FLOAT);
  EXPECT_EQ(op.input_arg(1).type(), DT_INT64);
  EXPECT_EQ(op.input_arg(2).type(), DT_STRING);
  EXPECT_EQ(op.input_arg(3).type(), DT_BOOL);
  EXPECT_EQ(op.output_arg(0).type(), DT_HALF);
  for (const auto& arg : op.input_arg()) {
    EXPECT_TRUE(arg.type_attr().empty()) << arg.name();
  }
}

TEST(OpDefBuilderTest, NumberAttrArgument) {
  OpDef op = BuildOk(OpDefBuilder("TestAddNSpec")
                         .Input("inputs: N * T")
                         .Output("sum: T")
                         .Attr("N: int")
                         .Attr("T: numbertype"));
  EXPECT_EQ(op.input_arg(0).name(), "inputs");
  EXPECT_EQ(op.input_arg(0).number_attr(), "N");
  EXPECT_EQ(op.input_arg(0).type_attr(), "T");
  EXPECT_EQ(op.output_arg(0).type_attr(), "T");
  EXPECT_TRUE(op.output_arg(0).number_attr().empty());
}

TEST(OpDefBuilderTest, NumberAttrWithFixedType) {
  OpDef op = BuildOk(OpDefBuilder("TestNFloats")
                         .Input("values: N*float")
                         .Attr("N: int"));
  EXPECT_EQ(op.input_arg(0).number_attr(), "N");
  EXPECT_EQ(op.input_arg(0).type(), DT_FLOAT);
  EXPECT_TRUE(op.input_arg(0).type_attr().empty());
}

TEST(OpDefBuilderTest, TypeListAttrArgument) {
  OpDef op = BuildOk(OpDefBuilder("TestIdentityNSpec")
                         .Input("input: T")
                         .Output("output: T")
                         .Attr("T: list(type)"));
  EXPECT_EQ(op.input_arg(0).type_list_attr(), "T");
  EXPECT_TRUE(op.input_arg(0).type_attr().empty());
  EXPECT_EQ(op.output_arg(0).type_list_attr(), "T");
  EXPECT_EQ(FindAttrDef(op, "T")->type(), "list(type)");
}

TEST(OpDefBuilderTest, ConstrainedTypeList) {
  OpDef op = BuildOk(OpDefBuilder("TestTypeListSet")
                         .Input("input: T")
                         .Attr("T: list({float, int32})"));
  const OpDef::AttrDef* t = FindAttrDef(op, "T");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->type(), "list(type)");
  EXPECT_THAT(AllowedTypes(*t),
              UnorderedElementsAreArray({DT_FLOAT, DT_INT32}));
  EXPECT_EQ(op.input_arg(0).type_list_attr(), "T");
}

TEST(OpDefBuilderTest, RefArguments) {
  OpDef op = BuildOk(OpDefBuilder("TestVarSpec")
                         .Output("ref: Ref(dtype)")
                         .Attr("dtype: type")
                         .Attr("shape: shape")
                         .SetIsStateful());
  ASSERT_EQ(op.output_arg_size(), 1);
  EXPECT_TRUE(op.output_arg(0).is_ref());
  EXPECT_EQ(op.output_arg(0).type_attr(), "dtype");
  EXPECT_TRUE(op.is_stateful());

  OpDef fixed = BuildOk(OpDefBuilder("TestRefFixed").Input("r: Ref(float)"));
  EXPECT_TRUE(fixed.input_arg(0).is_ref());
  EXPECT_EQ(fixed.input_arg(0).type(), DT_FLOAT);  // base type, is_ref marks it
}

TEST(OpDefBuilderTest, OpFlagsAndSummary) {
  OpDef plain = BuildOk(OpDefBuilder("TestPlain").Output("y: float"));
  EXPECT_FALSE(plain.is_stateful());
  EXPECT_FALSE(plain.is_commutative());
  EXPECT_FALSE(plain.is_aggregate());
  EXPECT_FALSE(plain.allows_uninitialized_input());

  OpDef flagged = BuildOk(OpDefBuilder("TestFlags")
                              .Output("y: float")
                              .SetIsStateful()
                              .SetIsCommutative()
                              .SetIsAggregate()
                              .SetAllowsUninitializedInput()
                              .Doc("Adds things."));
  EXPECT_TRUE(flagged.is_stateful());
  EXPECT_TRUE(flagged.is_commutative());
  EXPECT_TRUE(flagged.is_aggregate());
  EXPECT_TRUE(flagged.allows_uninitialized_input());
  EXPECT_EQ(flagged.summary(), "Adds things.");
}

TEST(OpDefBuilderTest, MissingShapeFnDefaultsToUnknown) {
  absl::StatusOr<OpRegistration> reg =
      OpDefBuilder("TestNoShapeFn").Output("y: float").Build();
  ASSERT_TRUE(reg.ok()) << reg.status();
  ASSERT_TRUE(static_cast<bool>(reg->shape_fn));
  NodeDef node;
  node.set_name("n");
  node.set_op("TestNoShapeFn");
  InferenceContext ctx(node, reg->op_def, {}, {}, {}, {}, 1);
  ctx.set_output(0, TensorShape({3}));
  ASSERT_TRUE(reg->shape_fn(&ctx).ok());
  EXPECT_TRUE(ctx.output(0).unknown_rank());
}

// ---- Attr specs: types and constraints -------------------------------------

TEST(OpDefBuilderTest, EveryPlainAttrType) {
  OpDef op = BuildOk(OpDefBuilder("TestAttrTypes")
                         .Attr("s: string")
                         .Attr("i: int")
                         .Attr("f: float")
                         .Attr("b: bool")
                         .Attr("t: type")
                         .Attr("sh: shape")
                         .Attr("te: tensor")
                         .Attr("fn: func")
                         .Attr("ls: list(string)")
                         .Attr("li: list(int)")
                         .Attr("lf: list(float)")
                         .Attr("lb: list(bool)")
                         .Attr("lt: list(type)")
                         .Attr("lsh: list(shape)")
                         .Attr("lte: list(tensor)")
                         .Attr("lfn: list(func)"));
  const std::vector<std::pair<std::string, std::string>> want = {
      {"s", "string"},        {"i", "int"},
      {"f", "float"},         {"b", "bool"},
      {"t", "type"},          {"sh", "shape"},
      {"te", "tensor"},       {"fn", "func"},
      {"ls", "list(string)"}, {"li", "list(int)"},
      {"lf", "list(float)"},  {"lb", "list(bool)"},
      {"lt", "list(type)"},   {"lsh", "list(shape)"},
      {"lte", "list(tensor)"}, {"lfn", "list(func)"}};
  ASSERT_EQ(op.attr_size(), static_cast<int>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(op.attr(i).name(), want[i].first);
    EXPECT_EQ(op.attr(i).type(), want[i].second) << want[i].first;
    EXPECT_FALSE(op.attr(i).has_default_value()) << want[i].first;
    EXPECT_FALSE(op.attr(i).has_allowed_values()) << want[i].first;
  }
}

TEST(OpDefBuilderTest, AllowedStrings) {
  OpDef op = BuildOk(OpDefBuilder("TestPadSpec")
                         .Attr("padding: {'SAME', 'VALID'}")
                         .Attr("data_format: {\"NHWC\", \"NCHW\"}"));
  const OpDef::AttrDef* p = FindAttrDef(op, "padding");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->type(), "string");
  ASSERT_EQ(p->allowed_values().list().s_size(), 2);
  EXPECT_EQ(p->allowed_values().list().s(0), "SAME");
  EXPECT_EQ(p->allowed_values().list().s(1), "VALID");
  EXPECT_EQ(p->allowed_values().list().type_size(), 0);
  const OpDef::AttrDef* d = FindAttrDef(op, "data_format");
  ASSERT_EQ(d->allowed_values().list().s_size(), 2);
  EXPECT_EQ(d->allowed_values().list().s(0), "NHWC");
  EXPECT_EQ(d->allowed_values().list().s(1), "NCHW");
}

TEST(OpDefBuilderTest, RealNumberTypeSet) {
  OpDef op = BuildOk(OpDefBuilder("TestReal").Attr("T: realnumbertype"));
  const OpDef::AttrDef* t = FindAttrDef(op, "T");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->type(), "type");
  // TensorFlow's realnumbertype.
  EXPECT_THAT(AllowedTypes(*t),
              UnorderedElementsAreArray(
                  {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8,
                   DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32,
                   DT_UINT64}));
}

TEST(OpDefBuilderTest, NumberTypeSet) {
  OpDef op = BuildOk(OpDefBuilder("TestNumber").Attr("T: numbertype"));
  std::vector<DataType> allowed = AllowedTypes(*FindAttrDef(op, "T"));
  // numbertype = realnumbertype + complex and quantized types.
  EXPECT_THAT(allowed,
              UnorderedElementsAreArray(
                  {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8,
                   DT_INT64, DT_BFLOAT16, DT_UINT16, DT_HALF, DT_UINT32,
                   DT_UINT64, DT_COMPLEX64, DT_COMPLEX128, DT_QINT8,
                   DT_QUINT8, DT_QINT32, DT_QINT16, DT_QUINT16}));
  EXPECT_EQ(std::count(allowed.begin(), allowed.end(), DT_BOOL), 0);
  EXPECT_EQ(std::count(allowed.begin(), allowed.end(), DT_STRING), 0);
}

TEST(OpDefBuilderTest, TypeSetInsideBracesExpands) {
  OpDef op =
      BuildOk(OpDefBuilder("TestRealOrBool").Attr("T: {realnumbertype, bool}"));
  std::vector<DataType> allowed = AllowedTypes(*FindAttrDef(op, "T"));
  EXPECT_EQ(allowed.size(), 13u);
  EXPECT_EQ(std::count(allowed.begin(), allowed.end(), DT_BOOL), 1);
  EXPECT_EQ(std::count(allowed.begin(), allowed.end(), DT_FLOAT), 1);
}

// Regression: the '=' of ">=" was once taken for the start of a default, so
// every spec with a minimum failed with "unknown attr type 'int >'".
TEST(OpDefBuilderTest, IntMinimum) {
  OpDef op = BuildOk(OpDefBuilder("TestAddNMin")
                         .Input("inputs: N * T")
                         .Output("sum: T")
                         .Attr("N: int >= 1")
                         .Attr("T: {float, double, int32}"));
  const OpDef::AttrDef* n = FindAttrDef(op, "N");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->type(), "int");
  EXPECT_TRUE(n->has_minimum());
  EXPECT_EQ(n->minimum(), 1);
  EXPECT_FALSE(n->has_default_value());
}

TEST(OpDefBuilderTest, ListMinimumAndMinimumWithDefault) {
  OpDef op = BuildOk(OpDefBuilder("TestPoolMin")
                         .Attr("ksize: list(int) >= 4")
                         .Attr("T: list(type) >= 1")
                         .Attr("k: int >= 2 = 3")
                         .Attr("neg: int >= -1 = 0"));
  const OpDef::AttrDef* ksize = FindAttrDef(op, "ksize");
  ASSERT_NE(ksize, nullptr);
  EXPECT_EQ(ksize->type(), "list(int)");
  EXPECT_TRUE(ksize->has_minimum());
  EXPECT_EQ(ksize->minimum(), 4);
  const OpDef::AttrDef* t = FindAttrDef(op, "T");
  EXPECT_EQ(t->type(), "list(type)");
  EXPECT_EQ(t->minimum(), 1);
  const OpDef::AttrDef* k = FindAttrDef(op, "k");
  EXPECT_EQ(k->minimum(), 2);
  EXPECT_EQ(k->default_value().i(), 3);
  const OpDef::AttrDef* neg = FindAttrDef(op, "neg");
  EXPECT_EQ(neg->minimum(), -1);
  EXPECT_EQ(neg->default_value().i(), 0);
}

TEST(OpDefBuilderTest, GreaterEqualInsideAStringDefaultIsNotAMinimum) {
  OpDef op = BuildOk(OpDefBuilder("TestGeString")
                         .Attr("s: string = '>= 3'")
                         .Attr("t: string='x>=y'"));
  const OpDef::AttrDef* s = FindAttrDef(op, "s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->type(), "string");
  EXPECT_FALSE(s->has_minimum());
  EXPECT_EQ(s->default_value().s(), ">= 3");
  EXPECT_EQ(FindAttrDef(op, "t")->default_value().s(), "x>=y");
  EXPECT_FALSE(FindAttrDef(op, "t")->has_minimum());
}

// ---- Attr specs: defaults ---------------------------------------------------

TEST(OpDefBuilderTest, ScalarDefaults) {
  OpDef op = BuildOk(OpDefBuilder("TestDefaults")
                         .Attr("s: string = 'hello'")
                         .Attr("s2: string = \"dq\"")
                         .Attr("empty: string = ''")
                         .Attr("eq: string = 'a=b'")
                         .Attr("i: int = -3")
                         .Attr("f: float = 0.25")
                         .Attr("fe: float = 1e-3")
                         .Attr("b: bool = true")
                         .Attr("b2: bool = false")
                         .Attr("t: type = DT_INT32")
                         .Attr("t2: type = float")
                         .Attr("padding: {'SAME', 'VALID'} = 'VALID'")
                         .Attr("T: {float, double} = DT_DOUBLE"));
  auto def = [&](const char* name) -> const AttrValue& {
    const OpDef::AttrDef* a = FindAttrDef(op, name);
    EXPECT_NE(a, nullptr) << name;
    EXPECT_TRUE(a != nullptr && a->has_default_value()) << name;
    static const AttrValue* const kEmpty = new AttrValue;
    return a ? a->default_value() : *kEmpty;
  };
  EXPECT_EQ(def("s").s(), "hello");
  EXPECT_EQ(def("s2").s(), "dq");
  EXPECT_EQ(def("empty").value_case(), AttrValue::kS);
  EXPECT_EQ(def("empty").s(), "");
  EXPECT_EQ(def("eq").s(), "a=b");
  EXPECT_EQ(FindAttrDef(op, "eq")->type(), "string");
  EXPECT_EQ(def("i").i(), -3);
  EXPECT_FLOAT_EQ(def("f").f(), 0.25f);
  EXPECT_FLOAT_EQ(def("fe").f(), 1e-3f);
  EXPECT_EQ(def("b").value_case(), AttrValue::kB);
  EXPECT_TRUE(def("b").b());
  EXPECT_EQ(def("b2").value_case(), AttrValue::kB);
  EXPECT_FALSE(def("b2").b());
  EXPECT_EQ(def("t").type(), DT_INT32);
  EXPECT_EQ(def("t2").type(), DT_FLOAT);
  EXPECT_EQ(def("padding").s(), "VALID");
  EXPECT_EQ(FindAttrDef(op, "padding")->type(), "string");
  EXPECT_EQ(FindAttrDef(op, "padding")->allowed_values().list().s_size(), 2);
  EXPECT_EQ(def("T").type(), DT_DOUBLE);
  EXPECT_EQ(FindAttrDef(op, "T")->type(), "type");
}

TEST(OpDefBuilderTest, ListDefaults) {
  OpDef op = BuildOk(OpDefBuilder("TestListDefaults")
                         .Attr("empty_ints: list(int) = []")
                         .Attr("strides: list(int) = [1, 1, 1, 1]")
                         .Attr("names: list(string) = ['a', 'b']")
                         .Attr("scales: list(float) = [0.5, 2]")
                         .Attr("flags: list(bool) = [true, false]")
                         .Attr("types: list(type) = [DT_FLOAT, int64]")
                         .Attr("empty_types: list(type) = []")
                         .Attr("empty_shapes: list(shape) = []"));
  const AttrValue& empty = FindAttrDef(op, "empty_ints")->default_value();
  // An empty list default is still a list (not an unset value).
  EXPECT_EQ(empty.value_case(), AttrValue::kList);
  EXPECT_EQ(empty.list().i_size(), 0);
  EXPECT_TRUE(FindAttrDef(op, "empty_ints")->has_default_value());

  const AttrValue& strides = FindAttrDef(op, "strides")->default_value();
  ASSERT_EQ(strides.list().i_size(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(strides.list().i(i), 1);

  const AttrValue& names = FindAttrDef(op, "names")->default_value();
  ASSERT_EQ(names.list().s_size(), 2);
  EXPECT_EQ(names.list().s(0), "a");
  EXPECT_EQ(names.list().s(1), "b");

  const AttrValue& scales = FindAttrDef(op, "scales")->default_value();
  ASSERT_EQ(scales.list().f_size(), 2);
  EXPECT_FLOAT_EQ(scales.list().f(0), 0.5f);
  EXPECT_FLOAT_EQ(scales.list().f(1), 2.0f);

  const AttrValue& flags = FindAttrDef(op, "flags")->default_value();
  ASSERT_EQ(flags.list().b_size(), 2);
  EXPECT_TRUE(flags.list().b(0));
  EXPECT_FALSE(flags.list().b(1));

  const AttrValue& types = FindAttrDef(op, "types")->default_value();
  ASSERT_EQ(types.list().type_size(), 2);
  EXPECT_EQ(types.list().type(0), DT_FLOAT);
  EXPECT_EQ(types.list().type(1), DT_INT64);

  EXPECT_EQ(FindAttrDef(op, "empty_types")->default_value().value_case(),
            AttrValue::kList);
  EXPECT_EQ(FindAttrDef(op, "empty_shapes")->default_value().value_case(),
            AttrValue::kList);
}

TEST(OpDefBuilderTest, ShapeDefaults) {
  OpDef op = BuildOk(OpDefBuilder("TestShapeDefaults")
                         .Attr("unknown: shape = { unknown_rank: true }")
                         .Attr("proto: shape = { dim { size: 2 } dim { size: -1 } }")
                         .Attr("short: shape = [3, ?]")
                         .Attr("scalar: shape = []"));
  const AttrValue& unknown = FindAttrDef(op, "unknown")->default_value();
  ASSERT_EQ(unknown.value_case(), AttrValue::kShape);
  EXPECT_TRUE(unknown.shape().unknown_rank());
  EXPECT_EQ(unknown.shape().dim_size(), 0);

  const AttrValue& proto = FindAttrDef(op, "proto")->default_value();
  ASSERT_EQ(proto.shape().dim_size(), 2);
  EXPECT_EQ(proto.shape().dim(0).size(), 2);
  EXPECT_EQ(proto.shape().dim(1).size(), -1);
  EXPECT_FALSE(proto.shape().unknown_rank());

  const AttrValue& short_form = FindAttrDef(op, "short")->default_value();
  ASSERT_EQ(short_form.shape().dim_size(), 2);
  EXPECT_EQ(short_form.shape().dim(0).size(), 3);
  EXPECT_EQ(short_form.shape().dim(1).size(), -1);

  const AttrValue& scalar = FindAttrDef(op, "scalar")->default_value();
  EXPECT_EQ(scalar.value_case(), AttrValue::kShape);
  EXPECT_EQ(scalar.shape().dim_size(), 0);
  EXPECT_FALSE(scalar.shape().unknown_rank());
}

TEST(OpDefBuilderTest, TensorDefault) {
  OpDef op = BuildOk(OpDefBuilder("TestTensorDefault")
                         .Attr("value: tensor = { dtype: DT_INT32 "
                               "tensor_shape { dim { size: 2 } } "
                               "int_val: 7 int_val: 8 }"));
  const AttrValue& v = FindAttrDef(op, "value")->default_value();
  ASSERT_EQ(v.value_case(), AttrValue::kTensor);
  EXPECT_EQ(v.tensor().dtype(), DT_INT32);
  ASSERT_EQ(v.tensor().tensor_shape().dim_size(), 1);
  EXPECT_EQ(v.tensor().tensor_shape().dim(0).size(), 2);
  ASSERT_EQ(v.tensor().int_val_size(), 2);
  EXPECT_EQ(v.tensor().int_val(1), 8);
}

// ---- Malformed specs --------------------------------------------------------

// Asserts `s` is InvalidArgument naming `op` and containing each of `parts`.
void ExpectSpecError(const absl::Status& s, const std::string& op,
                     const std::vector<std::string>& parts) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(op)) << s;
  for (const std::string& p : parts) {
    EXPECT_THAT(std::string(s.message()), HasSubstr(p)) << s;
  }
}

TEST(OpDefBuilderTest, UnknownAttrTypeIsAnError) {
  absl::Status s = BuildError(OpDefBuilder("TestBadType").Attr("x: integer"));
  ExpectSpecError(s, "TestBadType", {"x: integer", "integer"});
  s = BuildError(OpDefBuilder("TestBadList").Attr("x: list(integer)"));
  ExpectSpecError(s, "TestBadList", {"x: list(integer)"});
  s = BuildError(OpDefBuilder("TestBadSet").Attr("T: {float, notatype}"));
  ExpectSpecError(s, "TestBadSet", {"notatype"});
  s = BuildError(OpDefBuilder("TestMixedSet").Attr("T: {float, 'SAME'}"));
  ExpectSpecError(s, "TestMixedSet", {"T: {float, 'SAME'}"});
  s = BuildError(OpDefBuilder("TestEmptySet").Attr("T: {}"));
  ExpectSpecError(s, "TestEmptySet", {"T: {}"});
}

TEST(OpDefBuilderTest, ArgumentReferencingUndeclaredAttrIsAnError) {
  absl::Status s = BuildError(
      OpDefBuilder("TestUndeclared").Input("x: T").Output("y: float"));
  ExpectSpecError(s, "TestUndeclared", {"x: T", "'T'"});
  s = BuildError(OpDefBuilder("TestUndeclaredN")
                     .Input("x: N * T")
                     .Attr("T: type"));
  ExpectSpecError(s, "TestUndeclaredN", {"x: N * T", "'N'"});
  s = BuildError(
      OpDefBuilder("TestUndeclaredOut").Input("x: float").Output("y: U"));
  ExpectSpecError(s, "TestUndeclaredOut", {"y: U"});
}

TEST(OpDefBuilderTest, ArgumentUsingAttrOfWrongKindIsAnError) {
  // A number attr must be an int.
  absl::Status s = BuildError(OpDefBuilder("TestFloatN")
                                  .Input("x: N * T")
                                  .Attr("N: float")
                                  .Attr("T: type"));
  ExpectSpecError(s, "TestFloatN", {"x: N * T", "'N'"});
  // A dtype attr must be type or list(type).
  s = BuildError(OpDefBuilder("TestIntAsType").Input("x: K").Attr("K: int"));
  ExpectSpecError(s, "TestIntAsType", {"x: K", "'K'", "int"});
  // N * list(type) is not a thing.
  s = BuildError(OpDefBuilder("TestNList")
                     .Input("x: N * T")
                     .Attr("N: int")
                     .Attr("T: list(type)"));
  ExpectSpecError(s, "TestNList", {"x: N * T"});
  s = BuildError(OpDefBuilder("TestBadRef").Input("x: Ref(T").Attr("T: type"));
  ExpectSpecError(s, "TestBadRef", {"x: Ref(T"});
}

TEST(OpDefBuilderTest, BadDefaultIsAnError) {
  struct Case {
    const char* spec;
  };
  const Case cases[] = {
      {"i: int = abc"},
      {"i: int = 1.5"},
      {"f: float = fast"},
      {"b: bool = yes"},
      {"b: bool = 1"},
      {"s: string = unquoted"},
      {"t: type = DT_NOT_A_TYPE"},
      {"l: list(int) = 1"},
      {"l: list(int) = [1, x]"},
      {"sh: shape = [2, abc]"},
      {"sh: shape = { not_a_field: 1 }"},
      {"te: tensor = { dtype: 12345678901234 }"},
      {"fn: func = 'f'"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    absl::Status s = BuildError(OpDefBuilder("TestBadDefault").Attr(c.spec));
    ExpectSpecError(s, "TestBadDefault", {c.spec, "default"});
  }
}

// Regression (was a core bug): graph/op_registry.cc, ParseAttrSpec: a default value is not
// checked against the attr's own allowed values (or minimum), so
// "padding: {'SAME', 'VALID'} = 'FOO'" builds. Every node that relies on the
// default then fails validation with a message about an attr the user never
// set. TensorFlow rejects such an OpDef at registration.
TEST(OpDefBuilderTest, DefaultOutsideAllowedValuesIsAnError) {
  absl::Status s = BuildError(
      OpDefBuilder("TestBadAllowedDefault").Attr("padding: {'SAME', 'VALID'} = 'FOO'"));
  ExpectSpecError(s, "TestBadAllowedDefault", {"padding", "FOO"});
  s = BuildError(OpDefBuilder("TestBadTypeDefault")
                     .Attr("T: {float, double} = DT_INT32"));
  ExpectSpecError(s, "TestBadTypeDefault", {"T", "int32"});
}

// Regression (was a core bug): graph/op_registry.cc, ParseAttrSpec: an '=' with nothing after
// it ("x: int =") leaves default_text empty, which is then read as "no
// default", so the spec builds as a required attr and the typo goes unseen.
// It should be a "bad default" error like any other unparsable default.
TEST(OpDefBuilderTest, EmptyDefaultIsAnError) {
  absl::Status s = BuildError(OpDefBuilder("TestEmptyDefault").Attr("x: int ="));
  ExpectSpecError(s, "TestEmptyDefault", {"x: int ="});
  s = BuildError(OpDefBuilder("TestEmptyDefault2").Attr("s: string =  "));
  ExpectSpecError(s, "TestEmptyDefault2", {"s: string ="});
}

TEST(OpDefBuilderTest, BadMinimumIsAnError) {
  absl::Status s = BuildError(OpDefBuilder("TestBadMin").Attr("N: int >= many"));
  ExpectSpecError(s, "TestBadMin", {"N: int >= many", "minimum"});
}

TEST(OpDefBuilderTest, DuplicateAttrIsAnError) {
  absl::Status s = BuildError(
      OpDefBuilder("TestDupAttr").Attr("T: type").Attr("T: {float}"));
  ExpectSpecError(s, "TestDupAttr", {"T: {float}", "duplicate"});
}

TEST(OpDefBuilderTest, NonIdentifierNamesAreErrors) {
  absl::Status s = BuildError(OpDefBuilder("Test-Op").Output("y: float"));
  ExpectSpecError(s, "Test-Op", {});
  s = BuildError(OpDefBuilder("").Output("y: float"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  s = BuildError(OpDefBuilder("3Op").Output("y: float"));
  ExpectSpecError(s, "3Op", {});
  s = BuildError(OpDefBuilder("TestBadAttrName").Attr("1x: int"));
  ExpectSpecError(s, "TestBadAttrName", {"1x: int"});
  s = BuildError(OpDefBuilder("TestBadAttrName2").Attr("a b: int"));
  ExpectSpecError(s, "TestBadAttrName2", {"a b: int"});
  s = BuildError(OpDefBuilder("TestBadArgName").Input("x-y: float"));
  ExpectSpecError(s, "TestBadArgName", {"x-y: float"});
  s = BuildError(OpDefBuilder("TestEmptyArgName").Output(": float"));
  ExpectSpecError(s, "TestEmptyArgName", {": float"});
}

TEST(OpDefBuilderTest, GarbageSpecsNeverCrash) {
  const char* const specs[] = {"",       ":",      "x",         "x:",
                               "x: ",    "=",      "x: = 1",
                               "x: {",   "x: }",   "x: list(",  "x: list()",
                               "x: [",   "x: '",   "x: {'a",    ">= 1",
                               "x: >= 1", "x: int >=", "x: int >= x",
                               "x: Ref(", "x: Ref()", "x: *", "x: N *"};
  for (const char* spec : specs) {
    SCOPED_TRACE(spec);
    EXPECT_FALSE(OpDefBuilder("TestGarbageAttr").Attr(spec).Build().ok());
    EXPECT_FALSE(OpDefBuilder("TestGarbageIn").Input(spec).Build().ok());
    EXPECT_FALSE(OpDefBuilder("TestGarbageOut").Output(spec).Build().ok());
  }
}

// ---- OpRegistry -------------------------------------------------------------

TEST(OpRegistryTest, RegisterAndLookUpOnPrivateRegistry) {
  OpRegistry registry;
  ASSERT_TRUE(registry
                  .Register(OpDefBuilder("TestPrivateB").Output("y: float"))
                  .ok());
  ASSERT_TRUE(registry
                  .Register(OpDefBuilder("TestPrivateA").Output("y: float"))
                  .ok());
  absl::StatusOr<const OpRegistration*> reg = registry.LookUp("TestPrivateA");
  ASSERT_TRUE(reg.ok()) << reg.status();
  EXPECT_EQ((*reg)->op_def.name(), "TestPrivateA");
  EXPECT_TRUE(registry.InitErrors().empty());
  std::vector<const OpRegistration*> all = registry.AllOps();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]->op_def.name(), "TestPrivateA");  // sorted by name
  EXPECT_EQ(all[1]->op_def.name(), "TestPrivateB");
  // The global registry is untouched.
  EXPECT_FALSE(OpRegistry::Global()->LookUp("TestPrivateA").ok());
}

TEST(OpRegistryTest, DuplicateRegistrationIsRecorded) {
  OpRegistry registry;
  ASSERT_TRUE(
      registry.Register(OpDefBuilder("TestTwice").Output("y: float")).ok());
  absl::Status s =
      registry.Register(OpDefBuilder("TestTwice").Output("y: int32"));
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("TestTwice"));
  std::vector<absl::Status> errors = registry.InitErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], s);
  // The first registration stays in force.
  absl::StatusOr<const OpRegistration*> reg = registry.LookUp("TestTwice");
  ASSERT_TRUE(reg.ok());
  EXPECT_EQ((*reg)->op_def.output_arg(0).type(), DT_FLOAT);
  EXPECT_EQ(registry.AllOps().size(), 1u);
}

TEST(OpRegistryTest, BuildErrorIsRecordedAndOpIsAbsent) {
  OpRegistry registry;
  absl::Status s = registry.Register(
      OpDefBuilder("TestBroken").Input("x: T").Output("y: float"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  std::vector<absl::Status> errors = registry.InitErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(std::string(errors[0].message()), HasSubstr("TestBroken"));
  EXPECT_THAT(std::string(errors[0].message()), HasSubstr("x: T"));
  EXPECT_EQ(registry.LookUp("TestBroken").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(OpRegistryTest, LookUpUnknownNamesItAndSuggestsCaseInsensitiveMatch) {
  OpRegistry registry;
  ASSERT_TRUE(
      registry.Register(OpDefBuilder("TestMatMul").Output("y: float")).ok());
  absl::StatusOr<const OpRegistration*> reg = registry.LookUp("testmatmul");
  ASSERT_FALSE(reg.ok());
  EXPECT_EQ(reg.status().code(), absl::StatusCode::kNotFound);
  const std::string msg(reg.status().message());
  EXPECT_THAT(msg, HasSubstr("'testmatmul'"));
  EXPECT_THAT(msg, HasSubstr("Did you mean 'TestMatMul'?"));

  reg = registry.LookUp("NoSuchOpAnywhere");
  ASSERT_FALSE(reg.ok());
  EXPECT_THAT(std::string(reg.status().message()),
              HasSubstr("'NoSuchOpAnywhere'"));
  EXPECT_THAT(std::string(reg.status().message()),
              ::testing::Not(HasSubstr("Did you mean")));
  // The hint says how ops are added.
  EXPECT_THAT(std::string(reg.status().message()),
              HasSubstr("DFLOW_REGISTER_OP"));
}

// A graph with tf.py_function cannot run anywhere but in the process that
// wrote it: the error says so, and what to do.
TEST(OpRegistryTest, LookUpOfAPythonCallbackSaysWhyItCannotRun) {
  OpRegistry registry;
  for (const char* op : {"PyFunc", "PyFuncStateless", "EagerPyFunc"}) {
    absl::StatusOr<const OpRegistration*> reg = registry.LookUp(op);
    ASSERT_FALSE(reg.ok());
    EXPECT_THAT(std::string(reg.status().message()),
                AllOf(HasSubstr(op), HasSubstr("tf.py_function"),
                      HasSubstr("rewrite that part with TensorFlow ops")));
  }
}

TEST(OpRegistryTest, LookUpIsCaseSensitive) {
  OpRegistry registry;
  ASSERT_TRUE(registry.Register(OpDefBuilder("TestCase").Output("y: float")).ok());
  EXPECT_TRUE(registry.LookUp("TestCase").ok());
  EXPECT_FALSE(registry.LookUp("TESTCASE").ok());
  EXPECT_FALSE(registry.LookUp("TestCase ").ok());
  EXPECT_FALSE(registry.LookUp("").ok());
}

TEST(OpRegistryTest, GlobalRegistryHasMacroRegisteredOps) {
  absl::StatusOr<const OpRegistration*> c =
      OpRegistry::Global()->LookUp("TestRegistryConst");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)->op_def.output_arg(0).type_attr(), "dtype");
  absl::StatusOr<const OpRegistration*> add =
      OpRegistry::Global()->LookUp("TestRegistryAdd");
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_TRUE((*add)->op_def.is_commutative());
  // This binary's registrations are all well-formed.
  for (const absl::Status& s : OpRegistry::Global()->InitErrors()) {
    ADD_FAILURE() << "registration error: " << s;
  }
}

TEST(OpRegistryTest, LookUpOfUnknownOpInGlobalRegistrySuggests) {
  absl::StatusOr<const OpRegistration*> reg =
      OpRegistry::Global()->LookUp("testregistryadd");
  ASSERT_FALSE(reg.ok());
  EXPECT_THAT(std::string(reg.status().message()),
              HasSubstr("Did you mean 'TestRegistryAdd'?"));
}

}  // namespace
}  // namespace dflow
