// Graphs TensorFlow 2.21 writes when a graph calls a tf.function
// (PartitionedCall; StatefulPartitionedCall when the body has side effects)
// or switches with tf.switch_case (StatelessCase, Case), from
// tools/tf_reference/make_call_reference.py: a call, a call of a call, a
// call holding a while loop, a call inside a conditional's branch. dflow
// inlines the calls (compiler/inline_function_calls.h) and must give
// TensorFlow's values for every case; and the bad inputs: a call of a
// function the library lacks, a function calling itself.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "tests/runtime/tf_reference_cases.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

constexpr char kDir[] = "tests/testdata/tf_calls/";

class TfCallsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TfCallsTest, GivesTensorFlowsValues) {
  for (bool optimize : {true, false}) {
    SCOPED_TRACE(optimize ? "optimized" : "as built");
    SessionOptions options;
    options.optimize_graph = optimize;
    absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(
        testing_tf::LoadGraph(kDir + GetParam() + ".pb"), options);
    ASSERT_TRUE(session.ok()) << session.status();
    EXPECT_GE(
        testing_tf::RunCases(
            session->get(), testing_tf::ReadFile(kDir + GetParam() + ".cases")),
        4);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, TfCallsTest,
                         ::testing::Values("call", "nested", "loop", "stateful",
                                           "call_in_cond"));

// The call's function renamed to one the library lacks, or made to call
// itself: errors that name the call and the function.
TEST(TfCallsTest, MissingAndRecursiveFunctionsAreErrors) {
  GraphDef missing = testing_tf::LoadGraph(std::string(kDir) + "call.pb");
  for (NodeDef& n : *missing.mutable_node()) {
    if (n.op() == "PartitionedCall") {
      (*n.mutable_attr())["f"].mutable_func()->set_name("no_such_function");
    }
  }
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(missing);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(
      {{"x", testing_tf::Vector({1, 2, 3})}, {"n", Tensor::Scalar<int32_t>(1)}},
      {"out"}, {}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("no_such_function"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("PartitionedCall"));

  // nested: twice calls affine; make affine call twice.
  GraphDef recursive = testing_tf::LoadGraph(std::string(kDir) + "nested.pb");
  std::string outer;
  for (const NodeDef& n : recursive.node()) {
    if (n.op() == "PartitionedCall") outer = n.attr().at("f").func().name();
  }
  ASSERT_FALSE(outer.empty());
  for (FunctionDef& f : *recursive.mutable_library()->mutable_function()) {
    if (f.signature().name() == outer) continue;
    for (NodeDef& n : *f.mutable_node_def()) {
      if (n.op() == "Mul") {
        n.set_op("PartitionedCall");
        n.clear_attr();
        AttrValue types;
        types.mutable_list()->add_type(DT_FLOAT);
        (*n.mutable_attr())["Tin"] = types;
        (*n.mutable_attr())["Tout"] = types;
        (*n.mutable_attr())["f"].mutable_func()->set_name(outer);
        n.mutable_input()->RemoveLast();
      }
    }
  }
  session = Session::Create(recursive);
  ASSERT_TRUE(session.ok()) << session.status();
  s = (*session)->Run(
      {{"x", testing_tf::Vector({1, 2, 3})}, {"n", Tensor::Scalar<int32_t>(1)}},
      {"out"}, {}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("calls itself"));
}

}  // namespace
}  // namespace dflow
