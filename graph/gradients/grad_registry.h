// The gradient registry: for each op, how to build the gradients of its
// inputs from the gradients of its outputs.
//
// A gradient function is registered next to its op family's other
// gradients (`graph/gradients/<family>_grad.cc`):
//
//   absl::Status MatMulGrad(const Scope& scope, const Operation& op,
//                           absl::Span<const Output> grad_outputs,
//                           std::vector<Output>* grad_inputs) { ... }
//   DFLOW_REGISTER_GRADIENT("MatMul", MatMulGrad);
//
// `grad_outputs[i]` is the gradient flowing into output i (zeros when none
// flows there but some other output has one; an invalid Output for outputs
// of a type that carries no gradient, such as int32). The function sets
// `grad_inputs` to one entry per data input of `op`: the gradient, or an
// invalid Output (NoGradient()) for inputs that get none (shape inputs,
// indices). It builds its ops in `scope`, which AddSymbolicGradients names
// "gradients/<op name>_grad" and, if asked, colocates with `op`. It may
// build gradients for every input: the ones no x depends on are pruned
// afterwards.
//
// Ops whose inputs never get a gradient (Shape, ArgMax, comparisons, ...)
// are registered with DFLOW_REGISTER_NO_GRADIENT: a path through them simply
// ends. An op that is in neither list is an error when a gradient has to
// pass through it.
#ifndef DFLOW_GRAPH_GRADIENTS_GRAD_REGISTRY_H_
#define DFLOW_GRAPH_GRADIENTS_GRAD_REGISTRY_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "graph/scope.h"

namespace dflow {

using GradFunc = std::function<absl::Status(
    const Scope& scope, const Operation& op,
    absl::Span<const Output> grad_outputs, std::vector<Output>* grad_inputs)>;

// "This input gets no gradient", for grad_inputs entries.
inline Output NoGradient() { return Output(); }

class GradRegistry {
 public:
  // The process-wide registry the macros fill.
  static GradRegistry* Global();

  enum class Kind { kUnknown, kGradient, kNoGradient };

  // Returns true so the macros can run it in a static initializer.
  bool Register(absl::string_view op, GradFunc fn);
  bool RegisterNoGradient(absl::string_view op);

  Kind Lookup(absl::string_view op, const GradFunc** fn) const;
  // Every op with a gradient function or marked as having none, sorted.
  std::vector<std::string> RegisteredOps() const;

 private:
  // Filled by static initializers only (before main), read afterwards.
  absl::flat_hash_map<std::string, GradFunc> gradients_;
  absl::flat_hash_map<std::string, bool> no_gradient_;
};

#define DFLOW_GRAD_CONCAT_INNER(a, b) a##b
#define DFLOW_GRAD_CONCAT(a, b) DFLOW_GRAD_CONCAT_INNER(a, b)
#define DFLOW_REGISTER_GRADIENT(op, fn)                       \
  static const bool DFLOW_GRAD_CONCAT(dflow_grad_, __LINE__) \
      [[maybe_unused]] = ::dflow::GradRegistry::Global()->Register(op, fn)
#define DFLOW_REGISTER_NO_GRADIENT(op)                        \
  static const bool DFLOW_GRAD_CONCAT(dflow_grad_, __LINE__) \
      [[maybe_unused]] =                                      \
          ::dflow::GradRegistry::Global()->RegisterNoGradient(op)

}  // namespace dflow

#endif  // DFLOW_GRAPH_GRADIENTS_GRAD_REGISTRY_H_
