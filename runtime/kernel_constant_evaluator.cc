#include "runtime/kernel_constant_evaluator.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"
#include "graph/types.h"
#include "runtime/op_kernel.h"

namespace dflow {

absl::StatusOr<std::vector<Tensor>> KernelConstantEvaluator::Evaluate(
    const Node& node, const std::vector<Tensor>& inputs) const {
  if (node.IsStateful()) {
    return absl::FailedPreconditionError(
        absl::StrCat(NodeLabel(node.def()), " is stateful: not folded"));
  }
  if (static_cast<int>(inputs.size()) != node.num_inputs()) {
    return absl::InvalidArgumentError(
        absl::StrCat(NodeLabel(node.def()), " has ", node.num_inputs(),
                     " inputs; ", inputs.size(), " values given"));
  }
  for (DataType t : node.input_types()) {
    if (IsRefType(t) || t == DT_RESOURCE) {
      return absl::FailedPreconditionError(absl::StrCat(
          NodeLabel(node.def()), " reads a variable: not folded"));
    }
  }
  // Kernels trust their inputs' dtypes (they index buffers by them); an
  // uninitialized tensor is DT_INVALID.
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != node.input_type(static_cast<int>(i))) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodeLabel(node.def()), ": input ", i, " is ",
          DataTypeName(inputs[i].dtype()), ", the node takes ",
          DataTypeName(node.input_type(static_cast<int>(i)))));
    }
  }
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      registry_->CreateKernel(node, cpu_);
  if (!kernel.ok()) return kernel.status();
  if ((*kernel)->AsAsync() != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(NodeLabel(node.def()), " is asynchronous: not folded"));
  }
  std::vector<TensorValue> values(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) values[i].tensor = inputs[i];
  OpKernelContext::Params params;
  params.kernel = kernel->get();
  params.device = cpu_;
  params.inputs = values.data();
  OpKernelContext ctx(params);
  (*kernel)->Compute(&ctx);
  if (!ctx.status().ok()) return ctx.status();
  std::vector<Tensor> outputs;
  outputs.reserve(ctx.outputs()->size());
  for (TensorValue& v : *ctx.outputs()) {
    if (v.var != nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          NodeLabel(node.def()), " returns a variable: not folded"));
    }
    outputs.push_back(std::move(v.tensor));
  }
  if (static_cast<int>(outputs.size()) != node.num_outputs()) {
    return absl::InternalError(absl::StrCat(
        NodeLabel(node.def()), " produced ", outputs.size(), " of its ",
        node.num_outputs(), " outputs"));
  }
  return outputs;
}

}  // namespace dflow
