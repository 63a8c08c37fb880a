// Dead tensors in the executor (runtime/executor.h): TF1 conditionals built
// from Switch and Merge, nested, with dead control edges, fetching a dead
// tensor, a RefSwitch of a variable, and a conditional whose branches sit
// on another device (deadness crosses the rendezvous).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// One NodeDef in text form: `attrs` is extra attr text.
std::string N(const std::string& name, const std::string& op,
              const std::vector<std::string>& inputs,
              const std::string& attrs = "attr { key: 'T' value { type: "
                                         "DT_FLOAT } }",
              const std::string& device = "") {
  std::string text = absl::StrCat("node { name: '", name, "' op: '", op, "' ");
  for (const std::string& in : inputs) absl::StrAppend(&text, "input: '", in, "' ");
  if (!device.empty()) absl::StrAppend(&text, "device: '", device, "' ");
  return absl::StrCat(text, attrs, " }\n");
}

std::string Placeholder(const std::string& name, const std::string& dtype) {
  return N(name, "Placeholder", {},
           absl::StrCat("attr { key: 'dtype' value { type: ", dtype, " } }"));
}

std::string FloatConst(const std::string& name, float v,
                       const std::vector<std::string>& control = {},
                       const std::string& device = "") {
  return N(name, "Const", control,
           absl::StrCat("attr { key: 'dtype' value { type: DT_FLOAT } } "
                        "attr { key: 'value' value { tensor { dtype: DT_FLOAT "
                        "tensor_shape {} float_val: ",
                        v, " } } }"),
           device);
}

std::string MergeNode(const std::string& name,
                      const std::vector<std::string>& inputs,
                      const std::string& device = "") {
  return N(name, "Merge", inputs,
           absl::StrCat("attr { key: 'T' value { type: DT_FLOAT } } "
                        "attr { key: 'N' value { i: ",
                        inputs.size(), " } }"),
           device);
}

GraphDef Parse(const std::string& text) {
  GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def))
      << text;
  return def;
}

std::unique_ptr<Session> MakeSession(const std::string& text,
                                     SessionOptions options = {}) {
  absl::StatusOr<std::unique_ptr<Session>> s =
      Session::Create(Parse(text), options);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

// x, p -> Switch; false: Neg, true: Square; Merge.
std::string SimpleCond(const std::string& branch_device = "") {
  return Placeholder("x", "DT_FLOAT") + Placeholder("p", "DT_BOOL") +
         N("s", "Switch", {"x", "p"}) +
         N("e", "Neg", {"s"}, "attr { key: 'T' value { type: DT_FLOAT } }",
           branch_device) +
         N("t", "Square", {"s:1"},
           "attr { key: 'T' value { type: DT_FLOAT } }", branch_device) +
         MergeNode("m", {"e", "t"});
}

struct Result {
  float value;
  int index;
};

Result RunCond(Session* session, float x, bool p,
               const std::string& merge = "m") {
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{"x", Tensor::Scalar<float>(x)}, {"p", Tensor::Scalar<bool>(p)}},
      {merge + ":0", merge + ":1"}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok()) return {0, -1};
  return {out[0].data<float>()[0], out[1].data<int32_t>()[0]};
}

TEST(ControlFlowTest, SwitchTakesOneBranchAndMergeForwardsIt) {
  std::unique_ptr<Session> session = MakeSession(SimpleCond());
  ASSERT_NE(session, nullptr);
  Result t = RunCond(session.get(), 3, true);
  EXPECT_EQ(t.value, 9);
  EXPECT_EQ(t.index, 1);
  Result f = RunCond(session.get(), 3, false);
  EXPECT_EQ(f.value, -3);
  EXPECT_EQ(f.index, 0);
  // The same plan again, alternating: per-step dead flags are reset.
  EXPECT_EQ(RunCond(session.get(), 2, true).value, 4);
  EXPECT_EQ(RunCond(session.get(), 2, false).value, -2);
}

TEST(ControlFlowTest, MergeForwardsItsFirstLiveInput) {
  std::unique_ptr<Session> session = MakeSession(
      FloatConst("a", 1) + FloatConst("b", 2) + MergeNode("m", {"a", "b"}));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"m:0", "m:1"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], 1);
  EXPECT_EQ(out[1].data<int32_t>()[0], 0);
}

TEST(ControlFlowTest, FetchingADeadTensorNamesIt) {
  std::unique_ptr<Session> session = MakeSession(SimpleCond());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  absl::Status s = session->Run(
      {{"x", Tensor::Scalar<float>(3)}, {"p", Tensor::Scalar<bool>(false)}},
      {"t"}, {}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(s.message(), HasSubstr("'t' is dead"));
  // The live branch can be fetched.
  ASSERT_TRUE(session
                  ->Run({{"x", Tensor::Scalar<float>(3)},
                         {"p", Tensor::Scalar<bool>(false)}},
                        {"e"}, {}, &out)
                  .ok());
  EXPECT_EQ(out[0].data<float>()[0], -3);
}

TEST(ControlFlowTest, DeadControlEdgesMakeNodesDead) {
  // c waits for t (true branch) by a control edge: dead when p is false.
  std::unique_ptr<Session> session =
      MakeSession(SimpleCond() + FloatConst("c", 5, {"^t"}) +
                  MergeNode("m2", {"e", "c"}));
  ASSERT_NE(session, nullptr);
  Result f = RunCond(session.get(), 3, false, "m2");
  EXPECT_EQ(f.value, -3);
  EXPECT_EQ(f.index, 0);
  Result t = RunCond(session.get(), 3, true, "m2");
  EXPECT_EQ(t.value, 5);
  EXPECT_EQ(t.index, 1);
}

TEST(ControlFlowTest, NestedConditionals) {
  // if p: (if q: x*x else -x) else x
  const std::string text =
      Placeholder("x", "DT_FLOAT") + Placeholder("p", "DT_BOOL") +
      Placeholder("q", "DT_BOOL") + N("s1", "Switch", {"x", "p"}) +
      N("s2", "Switch", {"s1:1", "q"}) + N("ie", "Neg", {"s2"}) +
      N("it", "Square", {"s2:1"}) + MergeNode("inner", {"ie", "it"}) +
      N("oe", "Identity", {"s1"}) + MergeNode("m", {"oe", "inner"});
  std::unique_ptr<Session> session = MakeSession(text);
  ASSERT_NE(session, nullptr);
  for (bool p : {false, true}) {
    for (bool q : {false, true}) {
      std::vector<Tensor> out;
      ASSERT_TRUE(session
                      ->Run({{"x", Tensor::Scalar<float>(3)},
                             {"p", Tensor::Scalar<bool>(p)},
                             {"q", Tensor::Scalar<bool>(q)}},
                            {"m"}, {}, &out)
                      .ok());
      const float want = !p ? 3 : (q ? 9 : -3);
      EXPECT_EQ(out[0].data<float>()[0], want) << p << q;
    }
  }
}

TEST(ControlFlowTest, DeadnessCrossesDevices) {
  SessionOptions options;
  options.device_count = {{"CPU", 2}};
  std::unique_ptr<Session> session =
      MakeSession(SimpleCond("/device:CPU:1"), options);
  ASSERT_NE(session, nullptr);
  RunMetadata metadata;
  std::vector<Tensor> out;
  RunOptions run_options;
  run_options.collect_step_stats = true;
  for (bool p : {true, false, true}) {
    Result r = RunCond(session.get(), 3, p);
    EXPECT_EQ(r.value, p ? 9 : -3);
    EXPECT_EQ(r.index, p ? 1 : 0);
  }
  // The branches did run on CPU:1 (the step crossed devices).
  ASSERT_TRUE(session
                  ->Run(run_options,
                        {{"x", Tensor::Scalar<float>(3)},
                         {"p", Tensor::Scalar<bool>(true)}},
                        {"m"}, {}, &out, &metadata)
                  .ok());
  bool recv = false;
  for (const NodeExecStats& s : metadata.step_stats) recv |= s.op == "_Recv";
  EXPECT_TRUE(recv);
  // A dead tensor received from the other device is still a dead fetch.
  absl::Status s = session->Run(
      {{"x", Tensor::Scalar<float>(3)}, {"p", Tensor::Scalar<bool>(false)}},
      {"t"}, {}, &out);
  EXPECT_THAT(s.message(), HasSubstr("is dead"));
}

TEST(ControlFlowTest, RefSwitchForwardsTheVariable) {
  const std::string shape = "attr { key: 'shape' value { shape {} } }";
  const std::string dtype = "attr { key: 'dtype' value { type: DT_FLOAT } }";
  const std::string t = "attr { key: 'T' value { type: DT_FLOAT } }";
  const std::string text =
      Placeholder("p", "DT_BOOL") + N("v", "VariableV2", {}, dtype + shape) +
      FloatConst("zero", 0) + FloatConst("seven", 7) +
      N("init", "Assign", {"v", "zero"}, t) +
      N("rs", "RefSwitch", {"v", "p"}, t) +
      N("set", "Assign", {"rs:1", "seven"}, t) +
      N("read", "Identity", {"v"}, t);
  std::unique_ptr<Session> session = MakeSession(text);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {}, {"init"}, &out).ok());
  // p false: the Assign behind the true output is dead, v keeps 0.
  ASSERT_TRUE(
      session->Run({{"p", Tensor::Scalar<bool>(false)}}, {}, {"set"}, &out)
          .ok());
  ASSERT_TRUE(session->Run({}, {"read"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], 0);
  ASSERT_TRUE(
      session->Run({{"p", Tensor::Scalar<bool>(true)}}, {}, {"set"}, &out)
          .ok());
  ASSERT_TRUE(session->Run({}, {"read"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], 7);
}

TEST(ControlFlowTest, SwitchRejectsANonScalarPred) {
  std::unique_ptr<Session> session = MakeSession(SimpleCond());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  Tensor pred(DT_BOOL, TensorShape({2}));
  absl::Status s = session->Run(
      {{"x", Tensor::Scalar<float>(3)}, {"p", pred}}, {"m"}, {}, &out);
  EXPECT_THAT(s.message(), HasSubstr("node 's' (Switch)"));
}

}  // namespace
}  // namespace dflow
