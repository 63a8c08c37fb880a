#include "graph/training/towers.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/ops/ops.h"

namespace dflow {
namespace train {

// Makes TowerContexts (their constructor is private so that only
// MakeParallel hands them out, sharing one variable table).
class TowerBuilder {
 public:
  static TowerContext Make(
      Scope scope, int index, int num_towers, std::string device,
      std::shared_ptr<TowerContext::SharedVariables> variables) {
    return TowerContext(std::move(scope), index, num_towers, std::move(device),
                        std::move(variables));
  }
  static std::shared_ptr<TowerContext::SharedVariables> NewVariables(
      const Scope& scope) {
    return std::make_shared<TowerContext::SharedVariables>(
        TowerContext::SharedVariables{scope, {}, {}});
  }
  static const std::vector<Output>& Variables(
      const TowerContext::SharedVariables& variables) {
    return variables.in_order;
  }
};

namespace {

// "'x' (input 0)" for error messages.
std::string Describe(const Output& o, int index, absl::string_view what) {
  if (!o.valid()) return absl::StrCat(what, " ", index, " (invalid)");
  return absl::StrCat(what, " ", index, " '", o.name(), "'");
}

// The parts of `input` for `n` towers, built in `scope`.
absl::StatusOr<std::vector<Output>> SplitInput(const Scope& scope,
                                               const Output& input, int index,
                                               int n) {
  if (!input.valid()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MakeParallel: ", Describe(input, index, "input"),
        " is not an output of a node; build it in the same graph first"));
  }
  const TensorShape shape = input.shape();
  if (shape.rank() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MakeParallel: ", Describe(input, index, "input"),
        " is a scalar; inputs are split along dimension 0, one part per "
        "tower, so each needs a batch dimension"));
  }
  const int64_t rows = shape.rank() > 0 ? shape.dim(0) : -1;
  if (rows >= 0 && rows < n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MakeParallel: ", Describe(input, index, "input"), " has ", rows,
        " rows (shape ", shape.ToString(), "), fewer than the ", n,
        " towers; feed at least one row per tower"));
  }
  std::vector<Output> parts;
  if (n == 1) {
    parts.push_back(input);
  } else if (rows < 0 || rows % n == 0) {
    parts = ops::Split(scope, 0, input, n);
  } else {
    // Uneven: the first rows % n towers get one row more.
    std::vector<int64_t> sizes(n, rows / n);
    for (int64_t i = 0; i < rows % n; ++i) ++sizes[i];
    parts = ops::SplitV(
        scope, input,
        ops::Const(scope, Tensor::FromVector<int64_t>(sizes, TensorShape({n}))),
        0, n);
  }
  if (!scope.ok()) return scope.status();
  if (static_cast<int>(parts.size()) != n) {
    return absl::InternalError(absl::StrCat(
        "MakeParallel: splitting ", Describe(input, index, "input"), " gave ",
        parts.size(), " parts for ", n, " towers"));
  }
  return parts;
}

// Whether two variables are the same output.
bool SameVariable(const Output& a, const Output& b) {
  return a.node() == b.node() && a.index() == b.index();
}

std::string VarName(const Output& var) {
  return var.valid() ? var.node()->name() : std::string("(invalid)");
}

}  // namespace

Output TowerContext::GetVariable(absl::string_view name,
                                 const TensorShape& shape, DataType dtype,
                                 const Initializer& initializer,
                                 const VariableOptions& options) {
  SharedVariables& vars = *variables_;
  auto it = vars.by_name.find(std::string(name));
  if (it != vars.by_name.end()) {
    const Output& var = it->second;
    TensorShape var_shape;
    const absl::Status s = var.node()->GetAttr("shape", &var_shape);
    if (!s.ok() || var_shape != shape || ValueType(var) != dtype) {
      scope_.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
          "tower ", index_, " asked for variable '", var.node()->name(),
          "' as ", DataTypeName(dtype), shape.ToString(),
          " but it was made as ", DataTypeName(ValueType(var)),
          var_shape.ToString(),
          "; towers share variables by name, so every tower must ask for the "
          "same shape and dtype")));
      return Output();
    }
    return var;
  }
  // A path "layer1/weights": the name scope "layer1", the variable "weights".
  Scope at = vars.scope;
  absl::string_view leaf = name;
  if (const size_t slash = name.rfind('/'); slash != absl::string_view::npos) {
    at = at.WithNameScopePath(name.substr(0, slash));
    leaf = name.substr(slash + 1);
  }
  Output var = NewVariable(at, leaf, shape, dtype, initializer, options);
  if (!var.valid()) return var;
  vars.by_name.emplace(std::string(name), var);
  vars.in_order.push_back(var);
  return var;
}

absl::StatusOr<ParallelModel> MakeParallel(
    const Scope& scope, const std::vector<std::string>& devices,
    const std::vector<Output>& inputs, const TowerFn& fn,
    const ParallelOptions& options) {
  if (!scope.ok()) return scope.status();
  const int n = static_cast<int>(devices.size());
  if (n == 0) {
    return absl::InvalidArgumentError(
        "MakeParallel: no devices; pass one device per tower, e.g. "
        "{\"/cpu:0\", \"/cpu:1\"}");
  }
  if (!fn) return absl::InvalidArgumentError("MakeParallel: no model function");

  // parts[k][i]: part i of input k.
  const Scope split_scope = scope.WithDevice(options.split_device);
  std::vector<std::vector<Output>> parts;
  for (size_t k = 0; k < inputs.size(); ++k) {
    absl::StatusOr<std::vector<Output>> p =
        SplitInput(split_scope, inputs[k], static_cast<int>(k), n);
    if (!p.ok()) return p.status();
    parts.push_back(*std::move(p));
  }

  // Variables ignore the tower's name scope and device (tf.get_variable
  // ignores tf.name_scope), and the control dependencies of any scope.
  auto variables =
      TowerBuilder::NewVariables(scope.WithDevice(options.variables_device)
                                     .ClearColocation()
                                     .WithNoControlDependencies());
  ParallelModel model;
  for (int i = 0; i < n; ++i) {
    Scope tower_scope =
        scope.NewSubScope(absl::StrCat("tower_", i)).WithDevice(devices[i]);
    if (!scope.ok()) return scope.status();
    TowerContext tower =
        TowerBuilder::Make(tower_scope, i, n, devices[i], variables);
    std::vector<Output> tower_inputs;
    for (const std::vector<Output>& p : parts) tower_inputs.push_back(p[i]);
    std::vector<Output> outputs = fn(tower, tower_inputs);
    if (!scope.ok()) return scope.status();
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (!outputs[k].valid()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "MakeParallel: the model function returned an invalid output ", k,
            " for tower ", i, " on ", devices[i]));
      }
    }
    if (i > 0 && outputs.size() != model.tower_outputs[0].size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "MakeParallel: tower ", i, " on ", devices[i], " returned ",
          outputs.size(), " outputs but tower 0 returned ",
          model.tower_outputs[0].size(),
          "; the model function must return the same outputs every time"));
    }
    model.tower_outputs.push_back(std::move(outputs));
    model.tower_scopes.push_back(tower_scope);
  }

  const Scope concat_scope = scope.WithDevice(options.concat_device);
  const size_t num_outputs = model.tower_outputs[0].size();
  for (size_t k = 0; k < num_outputs; ++k) {
    std::vector<Output> per_tower;
    for (int i = 0; i < n; ++i) per_tower.push_back(model.tower_outputs[i][k]);
    if (per_tower[0].shape().rank() == 0) {
      model.outputs.push_back(ops::Stack(concat_scope, per_tower));
    } else {
      model.outputs.push_back(ops::ConcatV2(concat_scope, per_tower, 0));
    }
  }
  model.variables = TowerBuilder::Variables(*variables);
  if (!scope.ok()) return scope.status();
  return model;
}

absl::StatusOr<std::vector<GradAndVar>> AverageGradients(
    const Scope& scope,
    const std::vector<std::vector<GradAndVar>>& tower_grads) {
  if (!scope.ok()) return scope.status();
  if (tower_grads.empty()) {
    return absl::InvalidArgumentError(
        "AverageGradients: no towers; pass each tower's ComputeGradients");
  }
  const std::vector<GradAndVar>& first = tower_grads[0];
  for (size_t t = 1; t < tower_grads.size(); ++t) {
    const std::vector<GradAndVar>& grads = tower_grads[t];
    if (grads.size() != first.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("AverageGradients: tower ", t, " has ", grads.size(),
                       " variables but tower 0 has ", first.size(),
                       "; every tower must differentiate the same variables"));
    }
    for (size_t v = 0; v < first.size(); ++v) {
      if (!SameVariable(grads[v].var, first[v].var)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "AverageGradients: variable ", v, " is '", VarName(first[v].var),
            "' in tower 0 but '", VarName(grads[v].var), "' in tower ", t,
            "; every tower must list the same variables in the same order"));
      }
    }
  }

  const Scope base = scope.NewSubScope("average_gradients");
  std::vector<GradAndVar> averaged;
  for (size_t v = 0; v < first.size(); ++v) {
    const Output& var = first[v].var;
    if (!var.valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat("AverageGradients: variable ", v, " is invalid"));
    }
    std::vector<size_t> with, without;
    for (size_t t = 0; t < tower_grads.size(); ++t) {
      (tower_grads[t][v].grad.valid() ? with : without).push_back(t);
    }
    if (with.empty()) {
      averaged.push_back({Output(), var});
      continue;
    }
    if (!without.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "AverageGradients: variable '", var.node()->name(),
          "' has a gradient in towers ", absl::StrJoin(with, ", "),
          " but none in towers ", absl::StrJoin(without, ", "),
          "; every tower's loss must depend on the same variables"));
    }
    const Scope s = base.WithNameScopePath(var.node()->name());
    std::vector<Output> expanded;
    for (const std::vector<GradAndVar>& grads : tower_grads) {
      expanded.push_back(ops::ExpandDims(s, grads[v].grad, 0));
    }
    Output grad = ops::Mean(s, ops::ConcatV2(s, expanded, 0), 0);
    averaged.push_back({grad, var});
  }
  if (!scope.ok()) return scope.status();
  return averaged;
}

absl::StatusOr<Operation> ParameterServerMinimize(
    const Scope& scope, Optimizer& optimizer, const ParallelModel& model,
    int loss_index, const Output& global_step,
    const std::vector<Output>& var_list) {
  if (!scope.ok()) return scope.status();
  if (model.tower_outputs.empty()) {
    return absl::InvalidArgumentError(
        "ParameterServerMinimize: the model has no towers");
  }
  std::vector<std::vector<GradAndVar>> tower_grads;
  for (size_t i = 0; i < model.tower_outputs.size(); ++i) {
    const std::vector<Output>& outputs = model.tower_outputs[i];
    if (loss_index < 0 || loss_index >= static_cast<int>(outputs.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("ParameterServerMinimize: loss_index ", loss_index,
                       " but the towers have ", outputs.size(), " outputs"));
    }
    absl::StatusOr<std::vector<GradAndVar>> grads = optimizer.ComputeGradients(
        model.tower_scopes[i], outputs[loss_index], var_list,
        GradientOptions().ColocateGradientsWithOps(true));
    if (!grads.ok()) {
      return absl::Status(
          grads.status().code(),
          absl::StrCat("tower ", i, ": ", grads.status().message()));
    }
    tower_grads.push_back(*std::move(grads));
  }
  absl::StatusOr<std::vector<GradAndVar>> averaged =
      AverageGradients(scope, tower_grads);
  if (!averaged.ok()) return averaged.status();
  return optimizer.ApplyGradients(scope, *averaged, global_step);
}

}  // namespace train
}  // namespace dflow
