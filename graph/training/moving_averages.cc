#include "graph/training/moving_averages.h"

#include "absl/strings/str_cat.h"
#include "graph/ops/ops.h"
#include "graph/training/variables.h"

namespace dflow {
namespace train {

absl::StatusOr<Operation> ExponentialMovingAverage::Apply(
    const Scope& scope, const std::vector<Output>& vars) {
  if (!scope.ok()) return scope.status();
  if (vars.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, ".Apply: no variables to average"));
  }
  const Scope s = scope.NewSubScope(name_);
  Output decay = ops::Const(s, decay_);
  if (num_updates_.valid()) {
    Output n = ops::Cast(s, num_updates_, DT_FLOAT);
    decay = ops::Minimum(
        s.WithOpName("decay"), decay,
        ops::RealDiv(s, ops::Add(s, n, 1.0f), ops::Add(s, n, 10.0f)));
  }
  const Output one_minus_decay = ops::Sub(s, 1.0f, decay);
  std::vector<Operation> updates;
  for (const Output& var : vars) {
    const Operation init = InitializerOf(scope, var);
    if (!init.valid()) {
      return absl::InvalidArgumentError(absl::StrCat(
          name_, ".Apply: '", var.name(),
          "' was not made with train::NewVariable, so its initial value is "
          "unknown"));
    }
    const DataType dtype = ValueType(var);
    TensorShape shape;
    if (absl::Status st = var.node()->GetAttr("shape", &shape); !st.ok()) {
      return st;
    }
    Output& shadow = shadows_[var.node()];
    const Scope at_var = scope.WithRootNameScope()
                             .WithNoControlDependencies()
                             .WithExactDevice(var.node()->requested_device())
                             .ColocateWith(var.op());
    if (!shadow.valid()) {
      // Starts at the variable's initial value: read after its initializer.
      const Initializer from_var = [&](const Scope& at, const TensorShape&,
                                       DataType) {
        const Scope after_init = at.WithControlDependencies({init});
        return ops::Identity(after_init, ReadValue(after_init, var));
      };
      shadow = NewVariable(at_var,
                           absl::StrCat(var.node()->name(), "/", name_), shape,
                           dtype, from_var,
                           VariableOptions().Trainable(false).Resource(
                               var.dtype() == DT_RESOURCE));
    }
    const Scope update =
        s.WithNameScopePath(absl::StrCat("update_", var.node()->name()))
            .WithExactDevice(var.node()->requested_device())
            .ColocateWith(var.op());
    Output rate = dtype == DT_FLOAT ? one_minus_decay
                                    : ops::Cast(update, one_minus_decay, dtype);
    Output delta = ops::Mul(
        update,
        ops::Sub(update, ReadValue(update, shadow), ReadValue(update, var)),
        rate);
    if (shadow.dtype() == DT_RESOURCE) {
      updates.push_back(ops::AssignSubVariableOp(update, shadow, delta));
    } else {
      updates.push_back(ops::AssignSub(update, shadow, delta).op());
    }
  }
  if (!scope.ok()) return scope.status();
  return Group(s, updates, "update");
}

Output ExponentialMovingAverage::Average(const Output& var) const {
  auto it = shadows_.find(var.node());
  return it == shadows_.end() ? Output() : it->second;
}

std::string ExponentialMovingAverage::AverageName(const Output& var) const {
  return absl::StrCat(var.node()->name(), "/", name_);
}

}  // namespace train
}  // namespace dflow
