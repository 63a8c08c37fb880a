// The lowering of functional While loops: the frame structure it builds
// (one Enter/Merge/Switch/Exit/NextIteration per loop variable, one
// LoopCond, frame_name and parallel_iterations from the call, input-less
// body nodes inside the frame), the call's readers moved to the Exits, a
// graph without loops left alone, the lowered loop computing what the
// While does, and loop variables the body returns unchanged entering once
// as constants (resource handles too: tests/runtime/tf_loops_test).
#include "compiler/lower_functional_while.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_import.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

// i, x = 0, x0; while i < 5: i, x = i + 1, x * 2; LOOP_OP is the loop's op.
constexpr char kLoopGraph[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value { shape { dim { size: 2 } } }
    }
  }
  node {
    name: "zero"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape {}
          int_val: 0
        }
      }
    }
  }
  node {
    name: "w"
    op: "LOOP_OP"
    input: "zero"
    input: "x"
    attr {
      key: "T"
      value { list { type: DT_INT32 type: DT_FLOAT } }
    }
    attr {
      key: "cond"
      value { func { name: "cond_f" } }
    }
    attr {
      key: "body"
      value { func { name: "body_f" } }
    }
    attr {
      key: "parallel_iterations"
      value { i: 7 }
    }
  }
  node {
    name: "out"
    op: "Identity"
    input: "w:1"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node { name: "after" op: "NoOp" input: "^w" }
  library {
    function {
      signature {
        name: "cond_f"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "go" type: DT_BOOL }
      }
      node_def {
        name: "five"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 5
            }
          }
        }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "i"
        input: "five:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "go" value: "less:z:0" }
    }
    function {
      signature {
        name: "body_f"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "x_next" type: DT_FLOAT }
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 1
            }
          }
        }
      }
      node_def {
        name: "add"
        op: "AddV2"
        input: "i"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "double"
        op: "AddV2"
        input: "x"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "i_next" value: "add:z:0" }
      ret { key: "x_next" value: "double:z:0" }
    }
  }
)pb";

// The loop graph with `loop_op` ("While" or "StatelessWhile") and the
// text-format nodes `extra` added.
GraphDef LoopGraph(const std::string& loop_op = "StatelessWhile",
                   const std::string& extra = "") {
  const std::string text = absl::StrCat(
      absl::StrReplaceAll(kLoopGraph, {{"LOOP_OP", loop_op}}), extra);
  GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

absl::StatusOr<PassResult> Lower(Graph* graph) {
  static const OptimizationOptions* options = new OptimizationOptions();
  PassContext ctx;
  ctx.options = options;
  return LowerFunctionalWhile(ctx, graph);
}

std::map<std::string, int> OpCounts(const Graph& graph) {
  std::map<std::string, int> counts;
  for (const Node* n : graph.nodes()) ++counts[n->op()];
  return counts;
}

bool HasControlEdge(const Graph& graph, const std::string& src,
                    const std::string& dst) {
  const Node* d = graph.FindNode(dst);
  if (d == nullptr) return false;
  for (const Edge* e : d->in_edges()) {
    if (e->IsControl() && e->src->name() == src) return true;
  }
  return false;
}

TEST(LowerFunctionalWhileTest, BuildsOneFrameWithItsPrimitives) {
  Graph graph;
  ASSERT_TRUE(ImportGraphDef(LoopGraph(), {}, &graph).ok());
  absl::StatusOr<PassResult> result = Lower(&graph);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->changes, 1);
  EXPECT_THAT(result->what, HasSubstr("1 While lowered"));

  std::map<std::string, int> counts = OpCounts(graph);
  EXPECT_EQ(counts["StatelessWhile"], 0);
  EXPECT_EQ(counts["Enter"], 2);
  EXPECT_EQ(counts["Merge"], 2);
  EXPECT_EQ(counts["Switch"], 2);
  EXPECT_EQ(counts["Exit"], 2);
  EXPECT_EQ(counts["NextIteration"], 2);
  EXPECT_EQ(counts["LoopCond"], 1);
  // The back edges do not count as a cycle, and nothing dangles.
  EXPECT_TRUE(graph.TopologicalOrder().ok());
  EXPECT_TRUE(graph.CheckAllInputsConnected().ok());

  for (const Node* n : graph.nodes()) {
    if (n->op() != "Enter") continue;
    std::string frame;
    bool is_constant = true;
    int64_t parallel = 0;
    ASSERT_TRUE(n->GetAttr("frame_name", &frame).ok());
    ASSERT_TRUE(n->GetAttr("is_constant", &is_constant).ok());
    ASSERT_TRUE(n->GetAttr("parallel_iterations", &parallel).ok());
    EXPECT_EQ(frame, "w") << n->name();
    EXPECT_FALSE(is_constant) << n->name();
    EXPECT_EQ(parallel, 7) << n->name();
  }
  // Each Merge reads its Enter and, on the back edge, its NextIteration.
  const Node* merge = graph.FindNode("w/merge_1");
  ASSERT_NE(merge, nullptr);
  ASSERT_NE(merge->input_edge(0), nullptr);
  ASSERT_NE(merge->input_edge(1), nullptr);
  EXPECT_EQ(merge->input_edge(0)->src->op(), "Enter");
  EXPECT_EQ(merge->input_edge(1)->src->op(), "NextIteration");
  // Input-less nodes of cond and body run inside the frame.
  EXPECT_TRUE(HasControlEdge(graph, "w/merge_0", "w/cond/five"));
  EXPECT_TRUE(HasControlEdge(graph, "w/identity_0", "w/body/one"));
  // The readers of the loop read its Exits; its control outputs wait for
  // the NoOp that keeps its name.
  const Node* out = graph.FindNode("out");
  ASSERT_NE(out, nullptr);
  ASSERT_NE(out->input_edge(0), nullptr);
  EXPECT_EQ(out->input_edge(0)->src->name(), "w/exit_1");
  const Node* w = graph.FindNode("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->op(), "NoOp");
  EXPECT_TRUE(HasControlEdge(graph, "w", "after"));
  EXPECT_TRUE(HasControlEdge(graph, "w/exit_0", "w"));
}

TEST(LowerFunctionalWhileTest, StatefulWhileTooAndControlInputsGateEnters) {
  Graph graph;
  GraphDef def = LoopGraph("While", R"pb(
    node { name: "first" op: "NoOp" }
  )pb");
  for (NodeDef& n : *def.mutable_node()) {
    if (n.name() == "w") n.add_input("^first");
  }
  ASSERT_TRUE(ImportGraphDef(def, {}, &graph).ok());
  absl::StatusOr<PassResult> result = Lower(&graph);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(OpCounts(graph)["While"], 0);
  EXPECT_TRUE(HasControlEdge(graph, "first", "w/enter_0"));
  EXPECT_TRUE(HasControlEdge(graph, "first", "w/enter_1"));
}

TEST(LowerFunctionalWhileTest, GraphWithoutWhileIsUnchanged) {
  GraphDef def = LoopGraph();
  // Drop the loop and its readers: x and zero are left.
  GraphDef plain;
  for (const NodeDef& n : def.node()) {
    if (n.name() == "x" || n.name() == "zero") *plain.add_node() = n;
  }
  NodeDef* y = plain.add_node();
  y->set_name("y");
  y->set_op("Identity");
  y->add_input("x");
  (*y->mutable_attr())["T"].set_type(DT_FLOAT);
  Graph graph;
  ASSERT_TRUE(ImportGraphDef(plain, {}, &graph).ok());
  GraphDef before, after;
  graph.ToGraphDef(&before);
  absl::StatusOr<PassResult> result = Lower(&graph);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->changes, 0);
  graph.ToGraphDef(&after);
  std::string before_text, after_text;
  google::protobuf::TextFormat::PrintToString(before, &before_text);
  google::protobuf::TextFormat::PrintToString(after, &after_text);
  EXPECT_EQ(before_text, after_text);
}

TEST(LowerFunctionalWhileTest, LoweredLoopComputesTheLoop) {
  for (const char* op : {"While", "StatelessWhile"}) {
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Create(LoopGraph(op));
    ASSERT_TRUE(session.ok()) << session.status();
    Tensor x(DT_FLOAT, TensorShape({2}));
    x.data<float>()[0] = 1.5f;
    x.data<float>()[1] = -2.0f;
    std::vector<Tensor> out;
    absl::Status s = (*session)->Run({{"x", x}}, {"out", "w:0"}, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_FLOAT_EQ(out[0].data<float>()[0], 1.5f * 32);
    EXPECT_FLOAT_EQ(out[0].data<float>()[1], -2.0f * 32);
    EXPECT_EQ(out[1].data<int32_t>()[0], 5) << op;
  }
}

// The loop graph with a third loop variable, first: a float scale the body
// returns through an Identity and multiplies x by (x * s each iteration).
GraphDef LoopGraphWithInvariant() {
  GraphDef def = LoopGraph("StatelessWhile", R"pb(
    node {
      name: "scale"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "scale_out"
      op: "Identity"
      input: "w:0"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb");
  for (NodeDef& n : *def.mutable_node()) {
    if (n.name() == "w") {
      // w(scale, zero, x): every output index moves up by one.
      n.clear_input();
      n.add_input("scale");
      n.add_input("zero");
      n.add_input("x");
      AttrValue& t = (*n.mutable_attr())["T"];
      t.mutable_list()->clear_type();
      for (DataType d : {DT_FLOAT, DT_INT32, DT_FLOAT}) {
        t.mutable_list()->add_type(d);
      }
    }
    if (n.name() == "out") n.set_input(0, "w:2");
  }
  for (FunctionDef& f : *def.mutable_library()->mutable_function()) {
    OpDef* sig = f.mutable_signature();
    OpDef::ArgDef s;
    s.set_name("s");
    s.set_type(DT_FLOAT);
    sig->mutable_input_arg()->Add(std::move(s));
    std::rotate(sig->mutable_input_arg()->rbegin(),
                sig->mutable_input_arg()->rbegin() + 1,
                sig->mutable_input_arg()->rend());
    if (sig->name() != "body_f") continue;
    OpDef::ArgDef s_next;
    s_next.set_name("s_next");
    s_next.set_type(DT_FLOAT);
    sig->mutable_output_arg()->Add(std::move(s_next));
    std::rotate(sig->mutable_output_arg()->rbegin(),
                sig->mutable_output_arg()->rbegin() + 1,
                sig->mutable_output_arg()->rend());
    NodeDef* keep = f.add_node_def();
    keep->set_name("keep");
    keep->set_op("Identity");
    keep->add_input("s");
    (*keep->mutable_attr())["T"].set_type(DT_FLOAT);
    for (NodeDef& n : *f.mutable_node_def()) {
      if (n.name() == "double") {
        n.set_op("Mul");
        n.set_input(1, "s");
      }
    }
    (*f.mutable_ret())["s_next"] = "keep:output:0";
  }
  return def;
}

TEST(LowerFunctionalWhileTest, InvariantLoopVariableEntersOnceAsConstant) {
  Graph graph;
  absl::Status imported = ImportGraphDef(LoopGraphWithInvariant(), {}, &graph);
  ASSERT_TRUE(imported.ok()) << imported;
  absl::StatusOr<PassResult> result = Lower(&graph);
  ASSERT_TRUE(result.ok()) << result.status();
  std::map<std::string, int> counts = OpCounts(graph);
  EXPECT_EQ(counts["Enter"], 3);
  EXPECT_EQ(counts["Merge"], 2);
  EXPECT_EQ(counts["Switch"], 2);
  EXPECT_EQ(counts["Exit"], 2);
  EXPECT_EQ(counts["NextIteration"], 2);
  const Node* enter = graph.FindNode("w/enter_0");
  ASSERT_NE(enter, nullptr);
  bool is_constant = false;
  ASSERT_TRUE(enter->GetAttr("is_constant", &is_constant).ok());
  EXPECT_TRUE(is_constant);
  EXPECT_EQ(graph.FindNode("w/merge_0"), nullptr);
  // Variable 0 no longer changes per iteration: variable 1 is the pivot.
  EXPECT_TRUE(HasControlEdge(graph, "w/merge_1", "w/cond/five"));
  EXPECT_TRUE(HasControlEdge(graph, "w/identity_1", "w/body/one"));
  // The loop's output 0 is its input, read once the loop ends.
  const Node* scale_out = graph.FindNode("scale_out");
  ASSERT_NE(scale_out, nullptr);
  ASSERT_NE(scale_out->input_edge(0), nullptr);
  EXPECT_EQ(scale_out->input_edge(0)->src->name(), "w/output_0");
  EXPECT_TRUE(HasControlEdge(graph, "w", "w/output_0"));
  EXPECT_TRUE(graph.TopologicalOrder().ok());
  EXPECT_TRUE(graph.CheckAllInputsConnected().ok());
}

TEST(LowerFunctionalWhileTest, LoopWithInvariantComputesTheLoop) {
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(LoopGraphWithInvariant());
  ASSERT_TRUE(session.ok()) << session.status();
  Tensor x(DT_FLOAT, TensorShape({2}));
  x.data<float>()[0] = 1.5f;
  x.data<float>()[1] = -2.0f;
  Tensor scale(DT_FLOAT, TensorShape({}));
  scale.data<float>()[0] = 3.0f;
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({{"x", x}, {"scale", scale}},
                                   {"out", "w:1", "scale_out"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[0].data<float>()[0], 1.5f * 243);
  EXPECT_FLOAT_EQ(out[0].data<float>()[1], -2.0f * 243);
  EXPECT_EQ(out[1].data<int32_t>()[0], 5);
  EXPECT_FLOAT_EQ(out[2].data<float>()[0], 3.0f);
}

TEST(LowerFunctionalWhileTest, LoopThatChangesNothingKeepsItsBackEdges) {
  // A body returning every argument unchanged: no variable may become a
  // constant, or the loop would have no per-iteration pivot.
  GraphDef def = LoopGraph();
  for (FunctionDef& f : *def.mutable_library()->mutable_function()) {
    if (f.signature().name() != "body_f") continue;
    (*f.mutable_ret())["i_next"] = "i";
    (*f.mutable_ret())["x_next"] = "x";
  }
  Graph graph;
  ASSERT_TRUE(ImportGraphDef(def, {}, &graph).ok());
  absl::StatusOr<PassResult> result = Lower(&graph);
  ASSERT_TRUE(result.ok()) << result.status();
  std::map<std::string, int> counts = OpCounts(graph);
  EXPECT_EQ(counts["Merge"], 2);
  EXPECT_EQ(counts["NextIteration"], 2);
  EXPECT_TRUE(HasControlEdge(graph, "w/merge_0", "w/cond/five"));
}

// A body that calls another function directly, its op the function's
// name (TensorFlow's while_v2 writes "<body>_Wrapper" functions so), and
// reads the callee's outputs by its output argument names.
TEST(LowerFunctionalWhileTest, BodyCallingAFunctionDirectlyComputesTheLoop) {
  GraphDef def = LoopGraph("While");
  FunctionDef* wrapper = def.mutable_library()->add_function();
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        signature {
          name: "body_f_Wrapper"
          input_arg { name: "arg0" type: DT_INT32 }
          input_arg { name: "arg1" type: DT_FLOAT }
          output_arg { name: "a" type: DT_INT32 }
          output_arg { name: "b" type: DT_FLOAT }
        }
        node_def {
          name: "body_f"
          op: "body_f"
          input: "arg0"
          input: "arg1"
          attr {
            key: "_disable_call_shape_inference"
            value { b: true }
          }
        }
        ret { key: "a" value: "body_f:i_next:0" }
        ret { key: "b" value: "body_f:x_next:0" }
      )pb",
      wrapper));
  for (NodeDef& node : *def.mutable_node()) {
    if (node.name() == "w") {
      (*node.mutable_attr())["body"].mutable_func()->set_name(
          "body_f_Wrapper");
    }
  }
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  ASSERT_TRUE(session.ok()) << session.status();
  Tensor x(DT_FLOAT, TensorShape({2}));
  x.data<float>()[0] = 1.5f;
  x.data<float>()[1] = -2.0f;
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run({{"x", x}}, {"out", "w:0"}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FLOAT_EQ(out[0].data<float>()[0], 1.5f * 32);
  EXPECT_EQ(out[1].data<int32_t>()[0], 5);

  // An output the callee does not have is an error naming it.
  (*wrapper->mutable_ret())["b"] = "body_f:no_such:0";
  session = Session::Create(def);
  absl::Status bad = session.ok() ? (*session)->Run({{"x", x}}, {"out"}, {},
                                                    &out)
                                  : session.status();
  EXPECT_THAT(std::string(bad.message()),
              HasSubstr("the call 'body_f' of function 'body_f' has no output "
                        "'no_such:0'"));
}

}  // namespace
}  // namespace dflow
