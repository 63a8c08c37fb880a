// dflow's op schemas against TensorFlow 2.21's OpDefs for the ops that
// TensorFlow-written graphs carry (tests/testdata/tf_op_defs.pbtxt, written
// by tools/tf_reference/check_op_defs.py). A node validates against its
// schema, so an attr TensorFlow writes that dflow does not declare, a
// different default, or a narrower type list makes a TF graph fail to load;
// this finds such differences without TensorFlow installed.
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/op_registry.h"
#include "graph/types.h"
#include "gtest/gtest.h"
#include "proto/op_def.pb.h"

namespace dflow {
namespace {

constexpr char kGolden[] = "tests/testdata/tf_op_defs.pbtxt";

OpList ReadTfOpDefs() {
  std::ifstream in(kGolden);
  std::stringstream text;
  text << in.rdbuf();
  OpList list;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text.str(), &list))
      << kGolden;
  return list;
}

std::string ArgString(const OpDef::ArgDef& a) {
  std::string type = !a.type_list_attr().empty() ? a.type_list_attr()
                     : !a.type_attr().empty()    ? a.type_attr()
                                                 : DataTypeName(a.type());
  if (!a.number_attr().empty()) type = absl::StrCat(a.number_attr(), " * ", type);
  if (a.is_ref()) type = absl::StrCat("Ref(", type, ")");
  return absl::StrCat(a.name(), ": ", type);
}

std::vector<std::string> Args(
    const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args) {
  std::vector<std::string> out;
  for (const OpDef::ArgDef& a : args) out.push_back(ArgString(a));
  return out;
}

// Allowed values as a sorted set (the order of a type list carries no
// meaning).
std::string Allowed(const OpDef::AttrDef& a) {
  std::set<std::string> values;
  for (int t : a.allowed_values().list().type()) {
    values.insert(DataTypeName(static_cast<DataType>(t)));
  }
  for (const std::string& s : a.allowed_values().list().s()) values.insert(s);
  return absl::StrJoin(values, ",");
}

// Every difference between TensorFlow's `tf` and dflow's `ours` that
// changes which nodes validate, one line each.
std::vector<std::string> Differences(const OpDef& tf, const OpDef& ours) {
  std::vector<std::string> diffs;
  if (Args(tf.input_arg()) != Args(ours.input_arg())) {
    diffs.push_back(absl::StrCat("inputs: TF (", absl::StrJoin(Args(tf.input_arg()), ", "),
                                 ") dflow (", absl::StrJoin(Args(ours.input_arg()), ", "), ")"));
  }
  if (Args(tf.output_arg()) != Args(ours.output_arg())) {
    diffs.push_back(absl::StrCat("outputs: TF (", absl::StrJoin(Args(tf.output_arg()), ", "),
                                 ") dflow (", absl::StrJoin(Args(ours.output_arg()), ", "), ")"));
  }
  for (const OpDef::AttrDef& t : tf.attr()) {
    const OpDef::AttrDef* o = nullptr;
    for (const OpDef::AttrDef& a : ours.attr()) {
      if (a.name() == t.name()) o = &a;
    }
    if (o == nullptr) {
      diffs.push_back(absl::StrCat("attr '", t.name(), "' (", t.type(),
                                   ") is missing"));
      continue;
    }
    if (o->type() != t.type()) {
      diffs.push_back(absl::StrCat("attr '", t.name(), "': type TF ", t.type(),
                                   " dflow ", o->type()));
    }
    if (t.has_default_value() != o->has_default_value() ||
        !google::protobuf::util::MessageDifferencer::Equals(
            t.default_value(), o->default_value())) {
      diffs.push_back(absl::StrCat("attr '", t.name(), "': default TF {",
                                   t.default_value().ShortDebugString(),
                                   "} dflow {",
                                   o->default_value().ShortDebugString(), "}"));
    }
    if (Allowed(*o) != Allowed(t)) {
      diffs.push_back(absl::StrCat("attr '", t.name(), "': allowed TF {",
                                   Allowed(t), "} dflow {", Allowed(*o), "}"));
    }
    if (o->has_minimum() != t.has_minimum() || o->minimum() != t.minimum()) {
      diffs.push_back(absl::StrCat("attr '", t.name(), "': minimum TF ",
                                   t.minimum(), " dflow ", o->minimum()));
    }
  }
  for (const OpDef::AttrDef& o : ours.attr()) {
    bool in_tf = false;
    for (const OpDef::AttrDef& t : tf.attr()) in_tf |= t.name() == o.name();
    // An extra attr with a default is harmless to loading; one without is
    // not (TF graphs never set it).
    if (!in_tf && !o.has_default_value()) {
      diffs.push_back(absl::StrCat("attr '", o.name(),
                                   "' is dflow's only and has no default"));
    }
  }
  // CountUpTo: TensorFlow leaves it unmarked (its ref input keeps Grappler
  // off it); dflow marks it stateful, so no pass merges or folds a counter.
  if (tf.is_stateful() != ours.is_stateful() && tf.name() != "CountUpTo") {
    diffs.push_back(absl::StrCat("is_stateful: TF ", tf.is_stateful(),
                                 " dflow ", ours.is_stateful()));
  }
  return diffs;
}

TEST(TfOpDefsTest, RegisteredSchemasMatchTensorFlow) {
  const OpList tf = ReadTfOpDefs();
  ASSERT_GT(tf.op_size(), 100);
  int compared = 0;
  std::vector<std::string> missing;
  for (const OpDef& tf_op : tf.op()) {
    absl::StatusOr<const OpRegistration*> ours =
        OpRegistry::Global()->LookUp(tf_op.name());
    if (!ours.ok()) {
      missing.push_back(tf_op.name());
      continue;
    }
    ++compared;
    for (const std::string& d : Differences(tf_op, (*ours)->op_def)) {
      ADD_FAILURE() << tf_op.name() << ": " << d;
    }
  }
  // Ops other families add later (queues, summaries, control flow ...)
  // are listed for the record, not failed.
  std::cout << "compared " << compared << " ops with TensorFlow's; not in "
            << "dflow yet: " << absl::StrJoin(missing, " ") << "\n";
  EXPECT_GT(compared, 80);
}

// The array/math/logic ops TF training graphs carry must all be there.
TEST(TfOpDefsTest, ArrayMathLogicOpsOfTheCorpusAreRegistered) {
  for (const char* op :
       {"Floor", "FloorDiv", "FloorMod", "GreaterEqual", "LessEqual",
        "NotEqual", "LogicalNot", "LogicalAnd", "LogicalOr", "DivNoNan",
        "Select", "SelectV2", "Where", "BroadcastTo", "ShapeN", "GatherV2",
        "Gather", "UnsortedSegmentSum", "DynamicStitch", "Unique", "TopKV2",
        "InTopKV2", "Assert", "PreventGradient", "StaticRegexFullMatch",
        "StatelessRandomGetKeyCounter", "StatelessRandomUniformV2"}) {
    EXPECT_TRUE(OpRegistry::Global()->LookUp(op).ok()) << op;
  }
}

}  // namespace
}  // namespace dflow
