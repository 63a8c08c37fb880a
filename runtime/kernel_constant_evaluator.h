// The runtime's ConstantEvaluator: computes a node with its CPU kernel.
//
// Constant folding (compiler/constant_folding.h) hands it one node at a
// time with constant inputs; the answer is exactly what the step would have
// computed on the CPU, because it is the same kernel. Stateful ops,
// reference inputs and async kernels are refused (the folder never asks
// for them), as is anything without a CPU kernel.
#ifndef DFLOW_RUNTIME_KERNEL_CONSTANT_EVALUATOR_H_
#define DFLOW_RUNTIME_KERNEL_CONSTANT_EVALUATOR_H_

#include <vector>

#include "compiler/constant_evaluator.h"
#include "runtime/device.h"
#include "runtime/kernel_registry.h"

namespace dflow {

class KernelConstantEvaluator : public ConstantEvaluator {
 public:
  // `cpu`: the host device whose kernels compute (a session's CPU:0).
  explicit KernelConstantEvaluator(
      Device* cpu, const KernelRegistry* registry = KernelRegistry::Global())
      : cpu_(cpu), registry_(registry) {}

  absl::StatusOr<std::vector<Tensor>> Evaluate(
      const Node& node, const std::vector<Tensor>& inputs) const override;

 private:
  Device* cpu_;
  const KernelRegistry* registry_;
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_KERNEL_CONSTANT_EVALUATOR_H_
