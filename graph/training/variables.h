// Training variables: a variable node, its initializer, and the collections
// that let optimizers, the initializer op and moving averages find them
// (TensorFlow's tf.get_variable, global_variables_initializer, global_step).
//
//   Output w = train::NewVariable(root, "layer1/weights", {784, 500}, DT_FLOAT,
//                                 train::TruncatedNormalInitializer(0.1));
//   Output step = train::GetOrCreateGlobalStep(root);
//   ...
//   Operation init = train::GlobalVariablesInitializer(root);  // after the
//                                     // optimizers made their slot variables
//
// A variable is a VariableV2 node (a reference: use it directly as an op
// input) or, with VariableOptions::resource, a VarHandleOp (read it with
// train::ReadValue). Its initializer is "<name>/Assign" (or
// "<name>/AssignVariableOp") colocated with it, with the initial value
// built under "<name>/Initializer".
#ifndef DFLOW_GRAPH_TRAINING_VARIABLES_H_
#define DFLOW_GRAPH_TRAINING_VARIABLES_H_

#include <functional>
#include <vector>

#include "absl/strings/string_view.h"
#include "graph/scope.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {
namespace train {

// Collection keys (Scope::GetCollection).
inline constexpr char kGlobalVariables[] = "variables";
inline constexpr char kTrainableVariables[] = "trainable_variables";
inline constexpr char kVariableInitializers[] = "variable_initializers";
inline constexpr char kGlobalStep[] = "global_step";
// Terms the model adds to its loss (e.g. L2 regularization of each layer).
inline constexpr char kLosses[] = "losses";

// Builds a variable's initial value in `scope` (its "<name>/Initializer").
using Initializer = std::function<Output(const Scope& scope,
                                         const TensorShape& shape,
                                         DataType dtype)>;
Initializer ZerosInitializer();
Initializer ConstantInitializer(double value);
// Normal(0, stddev) with values beyond two standard deviations redrawn.
// seed 0: a fresh random sequence per graph build; otherwise repeatable.
Initializer TruncatedNormalInitializer(double stddev, int64_t seed = 0);
// Uniform on [minval, maxval).
Initializer RandomUniformInitializer(double minval, double maxval,
                                     int64_t seed = 0);
// A given value (the shape must match).
Initializer ValueInitializer(Output value);

struct VariableOptions {
  // Goes into kTrainableVariables, which optimizers differentiate by default.
  bool trainable = true;
  // A resource variable (VarHandleOp) instead of a reference (VariableV2).
  bool resource = false;
  VariableOptions& Trainable(bool v) {
    trainable = v;
    return *this;
  }
  VariableOptions& Resource(bool v) {
    resource = v;
    return *this;
  }
};

// A variable named `name` inside `scope`'s name scope; returns its ref
// output (or handle). Records it in the collections above.
Output NewVariable(const Scope& scope, absl::string_view name,
                   const TensorShape& shape, DataType dtype,
                   const Initializer& initializer,
                   const VariableOptions& options = {});

// The variable's value as a tensor (the ref itself, or a ReadVariableOp of
// a handle, built colocated with the variable).
Output ReadValue(const Scope& scope, const Output& variable);
// The variable's dtype without the reference (DT_FLOAT for a float ref or a
// float resource).
DataType ValueType(const Output& variable);
// The op that initializes `variable` (invalid if it wasn't made here).
Operation InitializerOf(const Scope& scope, const Output& variable);

std::vector<Output> GlobalVariables(const Scope& scope);
std::vector<Output> TrainableVariables(const Scope& scope);

// A NoOp "init" (then "init_1", ...) running every initializer made so far.
Operation GlobalVariablesInitializer(const Scope& scope,
                                     absl::string_view name = "init");

// The int64 scalar "global_step" (not trainable, starts at 0), made on
// first use at the root name scope and returned afterwards.
Output GetOrCreateGlobalStep(const Scope& scope);

// A NoOp that runs after every op in `ops` (tf.group), named `name` in
// `scope` ("name_1", ... when taken).
Operation Group(const Scope& scope, const std::vector<Operation>& ops,
                absl::string_view name = "group_deps");

}  // namespace train
}  // namespace dflow

#endif  // DFLOW_GRAPH_TRAINING_VARIABLES_H_
