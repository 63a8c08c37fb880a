#include "graph/training/variables.h"

#include "absl/strings/str_cat.h"
#include "graph/ops/ops.h"

namespace dflow {
namespace train {
namespace {

// A scalar Const of `dtype` holding `value` (floating or integer types).
Output ScalarOf(const Scope& scope, double value, DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return ops::Const(scope, Tensor::Scalar<float>(static_cast<float>(value)));
    case DT_DOUBLE:
      return ops::Const(scope, Tensor::Scalar<double>(value));
    case DT_INT32:
      return ops::Const(scope,
                        Tensor::Scalar<int32_t>(static_cast<int32_t>(value)));
    case DT_INT64:
      return ops::Const(scope,
                        Tensor::Scalar<int64_t>(static_cast<int64_t>(value)));
    default:
      return ops::Cast(scope, ops::Const(scope, Tensor::Scalar<double>(value)),
                       dtype);
  }
}

Output DimsOf(const Scope& scope, const TensorShape& shape) {
  std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
  return ops::Const(scope, Tensor::FromVector<int64_t>(
                               dims, TensorShape({static_cast<int64_t>(
                                         dims.size())})));
}

std::vector<Output> OutputsOf(const std::vector<Operation>& ops) {
  std::vector<Output> outputs;
  for (const Operation& op : ops) outputs.push_back(op.output(0));
  return outputs;
}

}  // namespace

Initializer ZerosInitializer() { return ConstantInitializer(0); }

Initializer ConstantInitializer(double value) {
  return [value](const Scope& scope, const TensorShape& shape,
                 DataType dtype) {
    return ops::Fill(scope, DimsOf(scope, shape), ScalarOf(scope, value, dtype));
  };
}

Initializer TruncatedNormalInitializer(double stddev, int64_t seed) {
  return [stddev, seed](const Scope& scope, const TensorShape& shape,
                        DataType dtype) {
    Output normal =
        ops::TruncatedNormal(scope, DimsOf(scope, shape), dtype,
                             ops::RandomAttrs().Seed(seed).Seed2(seed ? 1 : 0));
    return ops::Mul(scope, normal, ScalarOf(scope, stddev, dtype));
  };
}

Initializer RandomUniformInitializer(double minval, double maxval,
                                     int64_t seed) {
  return [minval, maxval, seed](const Scope& scope, const TensorShape& shape,
                                DataType dtype) {
    Output unit =
        ops::RandomUniform(scope, DimsOf(scope, shape), dtype,
                           ops::RandomAttrs().Seed(seed).Seed2(seed ? 1 : 0));
    return ops::Add(scope,
                    ops::Mul(scope, unit, ScalarOf(scope, maxval - minval, dtype)),
                    ScalarOf(scope, minval, dtype));
  };
}

Initializer ValueInitializer(Output value) {
  return [value](const Scope&, const TensorShape&, DataType) { return value; };
}

Output NewVariable(const Scope& scope, absl::string_view name,
                   const TensorShape& shape, DataType dtype,
                   const Initializer& initializer,
                   const VariableOptions& options) {
  // Variables and their initializers never wait for the control
  // dependencies of the scope they are declared in.
  const Scope base = scope.WithNoControlDependencies();
  Output var;
  if (options.resource) {
    var = ops::VarHandleOp(base.WithOpName(name), dtype, shape);
  } else {
    var = ops::Variable(base.WithOpName(name), shape, dtype);
  }
  if (!var.valid()) return var;
  const Scope at_var =
      base.WithNameScopePath(name).ColocateWith(var.op());
  Output value = initializer(at_var.WithNameScopePath("Initializer"), shape,
                             dtype);
  Operation init;
  if (options.resource) {
    init = ops::AssignVariableOp(at_var.WithOpName("AssignVariableOp"), var,
                                 value);
  } else {
    init = ops::Assign(at_var.WithOpName("Assign"), var, value).op();
  }
  scope.AddToCollection(kGlobalVariables, var.op());
  scope.AddToCollection(kVariableInitializers, init);
  if (options.trainable) scope.AddToCollection(kTrainableVariables, var.op());
  return var;
}

Output ReadValue(const Scope& scope, const Output& variable) {
  if (!variable.valid() || variable.dtype() != DT_RESOURCE) return variable;
  return ops::ReadVariableOp(scope.ColocateWith(variable), variable,
                             ValueType(variable));
}

DataType ValueType(const Output& variable) {
  if (!variable.valid()) return DT_INVALID;
  if (variable.dtype() != DT_RESOURCE) return BaseType(variable.dtype());
  DataType dtype = DT_INVALID;
  variable.node()->GetAttr("dtype", &dtype).IgnoreError();
  return dtype;
}

Operation InitializerOf(const Scope& scope, const Output& variable) {
  const std::vector<Operation> vars = scope.GetCollection(kGlobalVariables);
  const std::vector<Operation> inits =
      scope.GetCollection(kVariableInitializers);
  for (size_t i = 0; i < vars.size() && i < inits.size(); ++i) {
    if (vars[i].node() == variable.node()) return inits[i];
  }
  return Operation();
}

std::vector<Output> GlobalVariables(const Scope& scope) {
  return OutputsOf(scope.GetCollection(kGlobalVariables));
}

std::vector<Output> TrainableVariables(const Scope& scope) {
  return OutputsOf(scope.GetCollection(kTrainableVariables));
}

Operation GlobalVariablesInitializer(const Scope& scope,
                                     absl::string_view name) {
  return Group(scope, scope.GetCollection(kVariableInitializers), name);
}

Output GetOrCreateGlobalStep(const Scope& scope) {
  const std::vector<Operation> existing = scope.GetCollection(kGlobalStep);
  if (!existing.empty()) return existing.front().output(0);
  Output step = NewVariable(scope, "global_step", TensorShape({}), DT_INT64,
                            ZerosInitializer(),
                            VariableOptions().Trainable(false));
  if (step.valid()) scope.AddToCollection(kGlobalStep, step.op());
  return step;
}

Operation Group(const Scope& scope, const std::vector<Operation>& ops,
                absl::string_view name) {
  // Named like TensorFlow's groups: "name", then "name_1", ...
  return OpBuilder(scope.WithControlDependencies(absl::MakeConstSpan(ops)),
                   "NoOp", name)
      .Finalize();
}

}  // namespace train
}  // namespace dflow
