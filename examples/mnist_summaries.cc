#include "examples/mnist_summaries.h"

#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"

namespace dflow {
namespace mnist {
namespace {

constexpr char kDevice[] = "/cpu:0";

NodeDef* AddNode(GraphDef* graph, const std::string& name,
                 const std::string& op) {
  NodeDef* node = graph->add_node();
  node->set_name(name);
  node->set_op(op);
  node->set_device(kDevice);
  return node;
}

std::string StringConst(GraphDef* graph, const std::string& name,
                        const std::string& value) {
  NodeDef* node = AddNode(graph, name, "Const");
  (*node->mutable_attr())["dtype"].set_type(DT_STRING);
  TensorProto* t = (*node->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(DT_STRING);
  t->add_string_val(value);
  return name;
}

// A histogram of `values` (a float tensor) tagged `tag`.
std::string Histogram(GraphDef* graph, const std::string& tag,
                      const std::string& values, int index) {
  const std::string name = absl::StrCat("summaries/histogram_", index);
  const std::string tag_node = StringConst(graph, name + "/tag", tag);
  NodeDef* node = AddNode(graph, name, "HistogramSummary");
  node->add_input(tag_node);
  node->add_input(values);
  (*node->mutable_attr())["T"].set_type(DT_FLOAT);
  return name;
}

}  // namespace

absl::StatusOr<std::string> AddSeedSummaries(const std::string& loss,
                                             GraphDef* graph) {
  // variable -> the gradient its update applies (the first update's).
  std::map<std::string, std::string> variables;
  std::map<std::string, std::string> gradients;
  for (const NodeDef& node : graph->node()) {
    if (node.op() == "VariableV2") {
      auto dtype = node.attr().find("dtype");
      if (dtype != node.attr().end() && dtype->second.type() == DT_FLOAT) {
        variables.emplace(node.name(), node.name());
      }
    }
    if (node.op() == "ApplyGradientDescent" && node.input_size() >= 3) {
      gradients.emplace(node.input(0), node.input(2));
    }
  }
  if (variables.empty()) {
    return absl::InvalidArgumentError(
        "the graph has no float variables to summarize");
  }
  std::vector<std::string> summaries;
  const std::string loss_tag = StringConst(graph, "summaries/loss/tag", "loss");
  NodeDef* scalar = AddNode(graph, "summaries/loss", "ScalarSummary");
  scalar->add_input(loss_tag);
  scalar->add_input(loss);
  (*scalar->mutable_attr())["T"].set_type(DT_FLOAT);
  summaries.push_back(scalar->name());
  int index = 0;
  for (const auto& [name, tensor] : variables) {
    summaries.push_back(Histogram(graph, name, tensor, index++));
    auto grad = gradients.find(name);
    if (grad != gradients.end()) {
      summaries.push_back(
          Histogram(graph, name + "/gradients", grad->second, index++));
    }
  }
  NodeDef* merged = AddNode(graph, "summaries/merged", "MergeSummary");
  for (const std::string& s : summaries) merged->add_input(s);
  (*merged->mutable_attr())["N"].set_i(static_cast<int64_t>(summaries.size()));
  return merged->name();
}

}  // namespace mnist
}  // namespace dflow
