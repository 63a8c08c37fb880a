// Optimizers: turn a loss into the op that updates the variables each step
// (TensorFlow's tf.train.Optimizer).
//
//   train::GradientDescentOptimizer opt(learning_rate);
//   auto grads = opt.ComputeGradients(tower, loss);      // per tower
//   ...average the towers' gradients...
//   auto train_op = opt.ApplyGradients(root, averaged, global_step);
//   // or, on one device: opt.Minimize(root, loss, global_step)
//
// ComputeGradients differentiates the loss with AddSymbolicGradients (pass
// GradientOptions().ColocateGradientsWithOps(true) to keep each tower's
// backward pass on the tower's device). ApplyGradients builds one update op
// per variable, colocated with the variable, under the optimizer's name
// scope ("GradientDescent/update_layer1/weights/ApplyGradientDescent");
// variables whose gradient is invalid (unconnected) are skipped. Reference
// variables get the Apply* ops, resource variables the ResourceApply* ops.
// Optimizers that keep per-variable state (momentum, Adam's moments) make
// zero-initialized "slot" variables named after the variable
// ("layer1/weights/Momentum"), colocated with it and in the global-variables
// collection: build the initializer op after the optimizer.
#ifndef DFLOW_GRAPH_TRAINING_OPTIMIZER_H_
#define DFLOW_GRAPH_TRAINING_OPTIMIZER_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/gradients/gradients.h"
#include "graph/scope.h"

namespace dflow {
namespace train {

struct GradAndVar {
  Output grad;  // invalid: no gradient (the variable is left alone)
  Output var;
};

class Optimizer {
 public:
  explicit Optimizer(std::string name) : name_(std::move(name)) {}
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  const std::string& name() const { return name_; }

  // d(loss)/d(var) for each variable of `var_list` (default: the trainable
  // variables of scope's graph). Unconnected variables get an invalid grad.
  absl::StatusOr<std::vector<GradAndVar>> ComputeGradients(
      const Scope& scope, const Output& loss,
      const std::vector<Output>& var_list = {},
      GradientOptions options = {}) const;

  // The op that applies every gradient and then, if `global_step` is
  // valid, adds 1 to it.
  absl::StatusOr<Operation> ApplyGradients(
      const Scope& scope, const std::vector<GradAndVar>& grads_and_vars,
      const Output& global_step = Output());

  // ComputeGradients then ApplyGradients.
  absl::StatusOr<Operation> Minimize(const Scope& scope, const Output& loss,
                                     const Output& global_step = Output(),
                                     const std::vector<Output>& var_list = {},
                                     const GradientOptions& options = {});

  // The slot variable of `var` called `slot` (e.g. "m"), invalid if none.
  Output GetSlot(const Output& var, absl::string_view slot) const;

 protected:
  // Called once per ApplyGradients, in the optimizer's name scope, before
  // any update, with every variable that will be updated (make slots here).
  virtual absl::Status Prepare(const Scope& /*scope*/,
                               const std::vector<Output>& /*vars*/) {
    return absl::OkStatus();
  }
  // The update op of one variable, built in `scope` (its own name scope,
  // colocated with the variable).
  virtual Operation ApplyDense(const Scope& scope, const Output& grad,
                               const Output& var) = 0;
  // Called after the updates, with them (Adam advances its beta powers);
  // returns the op ending the step's updates.
  virtual Operation Finish(const Scope& scope,
                           const std::vector<Operation>& updates);

  // A zero-initialized variable shaped like `var`, named
  // "<var name>/<op_name>", colocated with var, remembered as slot `slot`.
  Output CreateZerosSlot(const Scope& scope, const Output& var,
                         absl::string_view slot, absl::string_view op_name);
  // `value` as a tensor of `dtype` in `scope` (a Const, or a Cast of an
  // Output of another type).
  static Output AsType(const Scope& scope, const Input& value, DataType dtype);

 private:
  const std::string name_;
  std::map<std::pair<const Node*, std::string>, Output> slots_;
};

}  // namespace train
}  // namespace dflow

#endif  // DFLOW_GRAPH_TRAINING_OPTIMIZER_H_
