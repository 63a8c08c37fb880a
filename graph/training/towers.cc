#include "graph/training/towers.h"

#include <algorithm>
#include <cstdint>
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
      const Scope& scope, const Scope& base, bool mirrored, int num_towers) {
    return std::make_shared<TowerContext::SharedVariables>(
        TowerContext::SharedVariables{
            scope, base, mirrored, num_towers, {}, {}, {}});
  }
  // The variables into `model`: model->variables and, transposed to
  // [tower][variable], model->tower_variables.
  static void Finish(const TowerContext::SharedVariables& variables,
                     ParallelModel* model) {
    model->variables = variables.in_order;
    model->tower_variables.assign(variables.num_towers, {});
    for (int i = 0; i < variables.num_towers; ++i) {
      for (const std::vector<Output>& per_tower : variables.per_tower) {
        model->tower_variables[i].push_back(per_tower[i]);
      }
    }
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

// Whether variable v has a gradient in the towers: every tower (true), none
// (false), or some only (an error naming them). `who` starts the message.
absl::StatusOr<bool> HasGradientInEveryTower(
    const std::vector<std::vector<GradAndVar>>& tower_grads, size_t v,
    absl::string_view who) {
  std::vector<size_t> with, without;
  for (size_t t = 0; t < tower_grads.size(); ++t) {
    (tower_grads[t][v].grad.valid() ? with : without).push_back(t);
  }
  if (with.empty()) return false;
  if (without.empty()) return true;
  return absl::InvalidArgumentError(
      absl::StrCat(who, ": variable '", VarName(tower_grads[0][v].var),
                   "' has a gradient in towers ", absl::StrJoin(with, ", "),
                   " but none in towers ", absl::StrJoin(without, ", "),
                   "; every tower's loss must depend on the same variables"));
}

// One more than the largest value of the int attr `attr` among the graph's
// nodes (1 if none has it): keys no collective of the graph uses yet.
int64_t NextKey(const Graph& graph, absl::string_view attr) {
  int64_t next = 1;
  for (const Node* node : graph.nodes()) {
    int64_t key = 0;
    if (node->FindAttr(attr) != nullptr && node->GetAttr(attr, &key).ok()) {
      next = std::max(next, key + 1);
    }
  }
  return next;
}

// The losses of `model`'s towers, or an error if loss_index is out of range.
absl::StatusOr<std::vector<Output>> TowerLosses(const ParallelModel& model,
                                                int loss_index,
                                                absl::string_view who) {
  if (model.tower_outputs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(who, ": the model has no towers"));
  }
  std::vector<Output> losses;
  for (const std::vector<Output>& outputs : model.tower_outputs) {
    if (loss_index < 0 || loss_index >= static_cast<int>(outputs.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat(who, ": loss_index ", loss_index,
                       " but the towers have ", outputs.size(), " outputs"));
    }
    losses.push_back(outputs[loss_index]);
  }
  return losses;
}

// Tower i's gradients of `loss` for `vars`, built in its tower scope with
// colocate_gradients_with_ops; errors say which tower.
absl::StatusOr<std::vector<GradAndVar>> TowerGradients(
    const Optimizer& optimizer, const ParallelModel& model, size_t i,
    const Output& loss, const std::vector<Output>& vars) {
  absl::StatusOr<std::vector<GradAndVar>> grads = optimizer.ComputeGradients(
      model.tower_scopes[i], loss, vars,
      GradientOptions().ColocateGradientsWithOps(true));
  if (!grads.ok()) {
    return absl::Status(
        grads.status().code(),
        absl::StrCat("tower ", i, ": ", grads.status().message()));
  }
  return grads;
}

}  // namespace

Output TowerContext::GetVariable(absl::string_view name,
                                 const TensorShape& shape, DataType dtype,
                                 const Initializer& initializer,
                                 const VariableOptions& options) {
  SharedVariables& vars = *variables_;
  // A path "layer1/weights": the name scope "layer1", the variable "weights".
  absl::string_view prefix, leaf = name;
  if (const size_t slash = name.rfind('/'); slash != absl::string_view::npos) {
    prefix = name.substr(0, slash);
    leaf = name.substr(slash + 1);
  }
  auto in_scope = [&](const Scope& s) {
    return prefix.empty() ? s : s.WithNameScopePath(prefix);
  };
  auto it = vars.by_name.find(std::string(name));
  if (it == vars.by_name.end()) {
    const Scope at =
        in_scope(vars.mirrored ? vars.base.WithDevice(device_) : vars.scope);
    Output var = NewVariable(at, leaf, shape, dtype, initializer, options);
    if (!var.valid()) return var;
    vars.by_name.emplace(std::string(name),
                         static_cast<int>(vars.in_order.size()));
    vars.in_order.push_back(var);
    vars.per_tower.emplace_back(vars.num_towers);
    vars.per_tower.back()[index_] = var;
    return var;
  }
  const int k = it->second;
  const Output& first = vars.in_order[k];
  TensorShape first_shape;
  const absl::Status s = first.node()->GetAttr("shape", &first_shape);
  if (!s.ok() || first_shape != shape || ValueType(first) != dtype) {
    scope_.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "tower ", index_, " asked for variable '", first.node()->name(),
        "' as ", DataTypeName(dtype), shape.ToString(), " but it was made as ",
        DataTypeName(ValueType(first)), first_shape.ToString(),
        "; towers share variables by name, so every tower must ask for the "
        "same shape and dtype")));
    return Output();
  }
  Output& mine = vars.per_tower[k][index_];
  if (mine.valid()) return mine;
  if (!vars.mirrored) return mine = first;
  // This tower's replica: the first one's initial value (one draw of a random
  // initializer for all), assigned on this tower's device.
  const Operation first_init = InitializerOf(vars.base, first);
  const Output initial_value =
      first_init.valid() ? first_init.input(1) : Output();
  if (!initial_value.valid()) {
    scope_.UpdateStatus(absl::InternalError(absl::StrCat(
        "tower ", index_, ": no initial value found for variable '",
        first.node()->name(), "' to initialize its replica from")));
    return Output();
  }
  VariableOptions replica_options = options;
  replica_options.trainable = false;
  return mine =
             NewVariable(in_scope(vars.base.WithDevice(device_)),
                         absl::StrCat(leaf, "/replica_", index_), shape, dtype,
                         ValueInitializer(initial_value), replica_options);
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
  const Scope base = scope.ClearColocation().WithNoControlDependencies();
  auto variables =
      TowerBuilder::NewVariables(base.WithDevice(options.variables_device),
                                 base, options.mirrored_variables, n);
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
  TowerBuilder::Finish(*variables, &model);
  model.mirrored = options.mirrored_variables;
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
    absl::StatusOr<bool> every =
        HasGradientInEveryTower(tower_grads, v, "AverageGradients");
    if (!every.ok()) return every.status();
    if (!*every) {
      averaged.push_back({Output(), var});
      continue;
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
  constexpr char kWho[] = "ParameterServerMinimize";
  if (!scope.ok()) return scope.status();
  if (model.mirrored) {
    return absl::InvalidArgumentError(absl::StrCat(
        kWho,
        ": the model's variables are mirrored (one replica per tower); use "
        "AllReduceMinimize, or build the model without MirroredVariables"));
  }
  absl::StatusOr<std::vector<Output>> losses =
      TowerLosses(model, loss_index, kWho);
  if (!losses.ok()) return losses.status();
  std::vector<std::vector<GradAndVar>> tower_grads;
  for (size_t i = 0; i < losses->size(); ++i) {
    absl::StatusOr<std::vector<GradAndVar>> grads =
        TowerGradients(optimizer, model, i, (*losses)[i], var_list);
    if (!grads.ok()) return grads.status();
    tower_grads.push_back(*std::move(grads));
  }
  absl::StatusOr<std::vector<GradAndVar>> averaged =
      AverageGradients(scope, tower_grads);
  if (!averaged.ok()) return averaged.status();
  return optimizer.ApplyGradients(scope, *averaged, global_step);
}

absl::StatusOr<Operation> AllReduceMinimize(
    const Scope& scope, Optimizer& optimizer, const ParallelModel& model,
    int loss_index, const Output& global_step,
    const std::vector<Output>& var_list, absl::string_view name) {
  constexpr char kWho[] = "AllReduceMinimize";
  if (!scope.ok()) return scope.status();
  if (!model.mirrored) {
    return absl::InvalidArgumentError(absl::StrCat(
        kWho,
        ": the model's variables are shared, not mirrored; build it with "
        "ParallelOptions().MirroredVariables(true), or use "
        "ParameterServerMinimize"));
  }
  absl::StatusOr<std::vector<Output>> losses =
      TowerLosses(model, loss_index, kWho);
  if (!losses.ok()) return losses.status();
  const int n = static_cast<int>(losses->size());

  // Which of the model's variables to train (indices into model.variables).
  std::vector<int> chosen;
  if (var_list.empty()) {
    const std::vector<Output> trainable = TrainableVariables(scope);
    for (size_t k = 0; k < model.variables.size(); ++k) {
      for (const Output& t : trainable) {
        if (SameVariable(t, model.variables[k])) {
          chosen.push_back(static_cast<int>(k));
          break;
        }
      }
    }
  } else {
    for (const Output& v : var_list) {
      int found = -1;
      for (size_t k = 0; k < model.variables.size(); ++k) {
        if (SameVariable(v, model.variables[k])) found = static_cast<int>(k);
      }
      if (found < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(kWho, ": '", VarName(v),
                         "' is not one of the model's variables (pass those in "
                         "ParallelModel::variables)"));
      }
      chosen.push_back(found);
    }
  }
  if (chosen.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kWho,
                     ": the model made no trainable variables; make them with "
                     "TowerContext::GetVariable or pass var_list"));
  }

  // Each tower's gradients with respect to its own replicas.
  std::vector<std::vector<GradAndVar>> tower_grads;
  for (int i = 0; i < n; ++i) {
    std::vector<Output> replicas;
    for (int k : chosen) {
      const Output& replica = model.tower_variables[i][k];
      if (!replica.valid()) {
        return absl::InvalidArgumentError(
            absl::StrCat(kWho, ": tower ", i, " never asked for variable '",
                         VarName(model.variables[k]),
                         "'; every tower must use the same variables"));
      }
      replicas.push_back(replica);
    }
    absl::StatusOr<std::vector<GradAndVar>> grads =
        TowerGradients(optimizer, model, i, (*losses)[i], replicas);
    if (!grads.ok()) return grads.status();
    tower_grads.push_back(*std::move(grads));
  }

  // One all-reduce instance per variable, its members on the towers.
  const int64_t group_key = NextKey(*scope.graph(), "group_key");
  int64_t instance_key = NextKey(*scope.graph(), "instance_key");
  for (size_t v = 0; v < chosen.size(); ++v) {
    absl::StatusOr<bool> every = HasGradientInEveryTower(tower_grads, v, kWho);
    if (!every.ok()) return every.status();
    if (!*every) continue;  // no tower has one: ApplyGradients skips it
    const std::string path =
        absl::StrCat("allreduce/", model.variables[chosen[v]].node()->name());
    for (int i = 0; i < n; ++i) {
      Output& grad = tower_grads[i][v].grad;
      grad = ops::CollectiveAllReduce(
          model.tower_scopes[i].WithNameScopePath(path), grad, n, group_key,
          instance_key, "mean");
    }
    ++instance_key;
  }
  if (!scope.ok()) return scope.status();

  // The same update on every tower's replicas.
  std::vector<Operation> updates;
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<Operation> update = optimizer.ApplyGradients(
        model.tower_scopes[i], tower_grads[i], i == 0 ? global_step : Output());
    if (!update.ok()) return update.status();
    updates.push_back(*update);
  }
  Operation done = Group(scope, updates, name);
  if (!scope.ok()) return scope.status();
  return done;
}

}  // namespace train
}  // namespace dflow
