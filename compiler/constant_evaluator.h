// ConstantEvaluator: how the compiler computes a node whose inputs are all
// constants, without linking kernels.
//
// The compiler sits below the runtime and the kernels (DESIGN.md), so
// constant folding asks this interface; the runtime implements it with its
// CPU kernels (runtime/kernel_constant_evaluator.h), and tests fake it.
#ifndef DFLOW_COMPILER_CONSTANT_EVALUATOR_H_
#define DFLOW_COMPILER_CONSTANT_EVALUATOR_H_

#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "graph/tensor.h"

namespace dflow {

class ConstantEvaluator {
 public:
  virtual ~ConstantEvaluator() = default;

  // The outputs of `node` for these input values (one per data input, in
  // order), computed on the host. An error (no CPU kernel, the kernel
  // refused the inputs) means "do not fold this node", never a failed
  // compile: the node then fails, or not, at run time as it would have.
  virtual absl::StatusOr<std::vector<Tensor>> Evaluate(
      const Node& node, const std::vector<Tensor>& inputs) const = 0;
};

}  // namespace dflow

#endif  // DFLOW_COMPILER_CONSTANT_EVALUATOR_H_
