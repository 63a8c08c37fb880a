// Data-parallel towers: the seeds' multi-device API (seed 002's
// make_parallel, seeds 000/001/003's average_gradients and their
// parameter-server training step), and the all-reduce alternative.
//
//   train::ParallelModel model = *train::MakeParallel(
//       root, {"/cpu:0", "/cpu:1"}, {x, labels},
//       [](train::TowerContext& tower, const std::vector<Output>& in) {
//         const Scope& s = tower.scope();  // "tower_<i>" on its device
//         Output w = tower.GetVariable("layer/weights", {784, 10}, DT_FLOAT,
//                                      train::ZerosInitializer());
//         Output logits = ops::MatMul(s, in[0], w);
//         Output loss = ops::Mean(
//             s, ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, in[1])
//                    .loss, 0);
//         return std::vector<Output>{loss, logits};
//       });
//   // model.outputs: the tower losses stacked ([2]) and the logits
//   // concatenated ([batch, 10]); model.tower_outputs[i]: tower i's own.
//   train::GradientDescentOptimizer opt(0.1f);
//   Operation train_op = *train::ParameterServerMinimize(
//       root.WithDevice("/cpu:0"), opt, model, /*loss_index=*/0, global_step);
//
// MakeParallel splits every input along dimension 0 into one part per
// device, builds the model function once per device under name scope
// "tower_<i>" and that device, and joins each output of the towers along
// dimension 0. Variables are shared: TowerContext::GetVariable makes a
// variable the first time a name is asked for (on the variables device,
// default /cpu:0, named below MakeParallel's scope, not the tower's, as
// tf.get_variable ignores name scopes) and returns the same Output to every
// later call, which is tf.get_variable with reuse=(i > 0).
//
// Two gradient strategies:
//  (a) parameter server (ParameterServerMinimize, shared variables): each
//      tower differentiates its own loss with colocate_gradients_with_ops
//      (the backward pass stays on the tower), AverageGradients averages the
//      towers' gradients per variable exactly as the seeds write it
//      (ExpandDims(g, 0) per tower, ConcatV2 along 0, Mean over 0) on the
//      scope's device, and one ApplyGradients updates the shared variables
//      on their device;
//  (b) all-reduce (AllReduceMinimize on a model built with
//      ParallelOptions().MirroredVariables(true)): every tower keeps a
//      replica of each variable on its own device, its gradients are
//      averaged across the towers by CollectiveAllReduce ("mean"), and every
//      tower applies the same update to its replica, so the replicas stay
//      bitwise equal (the ring's reduction order is fixed, and every member
//      receives the same reduced bits).
//
// Equivalence with one device. With N towers of B/N rows each, the averaged
// gradient is mean_i(grad of tower i's mean loss) = grad of the mean loss
// over all B rows, so N-tower training follows the same trajectory as one
// device with batch B -- up to float rounding: the per-tower means divide
// partial sums by B/N and the average divides their sum by N, where one
// device divides the whole sum by B, and each tower's weight-gradient MatMul
// sums its own B/N rows. With N = 1 the seeds' average (a Mean over one
// row) and an all-reduce of one member are exact and the weights are
// bitwise equal; for N = 2, 4 the weights after five SGD steps differ from
// one device's by one or two float ulps of the largest weight (3e-8 and
// 6e-8 on weights near 0.5: 6e-8 and 1.2e-7 relative; the all-reduce of 4
// sums in ring order, which rounds differently again), which
// tests/training/towers_test.cc checks against 1e-6 relative. Bitwise
// equality for N > 1 would need the one-device reductions to sum in tower
// order, which float addition's rounding does not allow in general.
#ifndef DFLOW_GRAPH_TRAINING_TOWERS_H_
#define DFLOW_GRAPH_TRAINING_TOWERS_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/scope.h"
#include "graph/tensor_shape.h"
#include "graph/training/optimizer.h"
#include "graph/training/variables.h"

namespace dflow {
namespace train {

// What the model function gets for one tower: where to build its ops and
// the shared variables.
class TowerContext {
 public:
  // Name scope "tower_<index>" below MakeParallel's scope, on the tower's
  // device.
  const Scope& scope() const { return scope_; }
  int index() const { return index_; }
  int num_towers() const { return num_towers_; }
  const std::string& device() const { return device_; }

  // The variable `name` ("layer1/weights": a path below MakeParallel's
  // scope), made by the first call (train::NewVariable on the variables
  // device) and returned as is by every later one, whatever the tower.
  // With mirrored variables each tower gets its own replica instead, on its
  // own device: the first one asked for is the variable itself, the others
  // are "<name>/replica_<tower>", initialized from the same initial value
  // (one draw of a random initializer) and not trainable (the trainable
  // collection lists each variable once). Asking for an existing name with
  // another shape or dtype is an error recorded in the scope (an invalid
  // Output is returned).
  Output GetVariable(absl::string_view name, const TensorShape& shape,
                     DataType dtype, const Initializer& initializer,
                     const VariableOptions& options = {});

 private:
  friend class TowerBuilder;
  struct SharedVariables {
    Scope scope;  // where variables are made: name scope + variables device
    Scope base;   // MakeParallel's scope (mirrored replicas: + tower device)
    bool mirrored = false;
    int num_towers = 0;
    // The variables in the order first asked for; per_tower[k][i] is the
    // one tower i uses for variable k (invalid until it asks).
    std::map<std::string, int> by_name;
    std::vector<Output> in_order;
    std::vector<std::vector<Output>> per_tower;
  };
  TowerContext(Scope scope, int index, int num_towers, std::string device,
               std::shared_ptr<SharedVariables> variables)
      : scope_(std::move(scope)),
        index_(index),
        num_towers_(num_towers),
        device_(std::move(device)),
        variables_(std::move(variables)) {}

  Scope scope_;
  int index_;
  int num_towers_;
  std::string device_;
  std::shared_ptr<SharedVariables> variables_;
};

// Builds one tower's outputs from its parts of the inputs.
using TowerFn = std::function<std::vector<Output>(
    TowerContext& tower, const std::vector<Output>& inputs)>;

struct ParallelOptions {
  // Where TowerContext::GetVariable puts the variables (merged into the
  // scope's device request; "" keeps the scope's).
  std::string variables_device = "/cpu:0";
  // One replica of each variable per tower, on the tower's device, for
  // AllReduceMinimize (variables_device is then unused).
  bool mirrored_variables = false;
  // Where the inputs are split and the outputs joined.
  std::string split_device = "/cpu:0";
  std::string concat_device = "/cpu:0";

  ParallelOptions& VariablesDevice(std::string v) {
    variables_device = std::move(v);
    return *this;
  }
  ParallelOptions& SplitDevice(std::string v) {
    split_device = std::move(v);
    return *this;
  }
  ParallelOptions& ConcatDevice(std::string v) {
    concat_device = std::move(v);
    return *this;
  }
  ParallelOptions& MirroredVariables(bool v) {
    mirrored_variables = v;
    return *this;
  }
};

struct ParallelModel {
  // Output k of every tower joined along dimension 0 (ConcatV2); a scalar
  // output (a tower's loss) is stacked into a vector, one value per tower.
  std::vector<Output> outputs;
  // tower_outputs[i][k]: output k of tower i.
  std::vector<std::vector<Output>> tower_outputs;
  // Where each tower was built (name scope "tower_<i>", its device).
  std::vector<Scope> tower_scopes;
  // The variables GetVariable made, in the order first asked for (with
  // mirrored variables: the first replica of each, usually tower 0's).
  std::vector<Output> variables;
  // tower_variables[i][k]: the variable tower i used for variables[k] (the
  // shared one, or its replica; invalid if tower i never asked for it).
  std::vector<std::vector<Output>> tower_variables;
  bool mirrored = false;
};

// Replicates `fn` on `devices` ("/cpu:1", "/gpu:0", ...), one tower each,
// feeding tower i part i of every input. An input whose dimension 0 is
// known is split with Split when the towers divide it and with SplitV
// otherwise (the first towers get one row more); one whose dimension 0 is
// unknown until run time is split with Split, which then fails if the towers
// don't divide it. A scalar input, or one with fewer rows than towers, is
// an error naming it. Errors also when devices is empty, a tower returns an
// invalid output, or towers return different numbers of outputs.
absl::StatusOr<ParallelModel> MakeParallel(
    const Scope& scope, const std::vector<std::string>& devices,
    const std::vector<Output>& inputs, const TowerFn& fn,
    const ParallelOptions& options = {});

// The seeds' average_gradients: for each variable the mean of its towers'
// gradients (ExpandDims(g, 0) per tower, ConcatV2 along 0, Mean over 0),
// paired with the first tower's variable, built on `scope`'s device in name
// scope "average_gradients/<variable name>". Every tower must list the same
// variables in the same order. A variable no tower has a gradient for is
// kept with an invalid gradient (ApplyGradients leaves it alone); one that
// has a gradient in some towers but not in others is an error naming it.
absl::StatusOr<std::vector<GradAndVar>> AverageGradients(
    const Scope& scope,
    const std::vector<std::vector<GradAndVar>>& tower_grads);

// The parameter-server training step of seeds 000, 001 and 003 in one call:
// tower i's loss (model.tower_outputs[i][loss_index]) differentiated in
// its tower scope with colocate_gradients_with_ops, the gradients averaged
// with AverageGradients on `scope`'s device, and one
// optimizer.ApplyGradients in `scope` (each update colocated with its
// variable; global_step, if valid, incremented once). var_list empty: the
// graph's trainable variables. Returns the apply op. An error for a model
// with mirrored variables.
absl::StatusOr<Operation> ParameterServerMinimize(
    const Scope& scope, Optimizer& optimizer, const ParallelModel& model,
    int loss_index, const Output& global_step = Output(),
    const std::vector<Output>& var_list = {});

// The all-reduce training step, for a model built with mirrored variables:
// tower i differentiates its loss with respect to its own replicas (in its
// tower scope, colocate_gradients_with_ops); each gradient is averaged
// across the towers by a CollectiveAllReduce ("mean") on each tower's
// device, named "tower_<i>/allreduce/<variable>/..."; then each tower
// applies the averaged gradients to its replicas with `optimizer` (tower
// 0's update also increments global_step, if valid). The collectives' group
// and instance keys are new to the graph. var_list: variables of
// model.variables (empty: the trainable ones). Returns a NoOp "<name>"
// in `scope` that runs after every tower's update. The same gradient
// errors as AverageGradients (a gradient in some towers only).
absl::StatusOr<Operation> AllReduceMinimize(
    const Scope& scope, Optimizer& optimizer, const ParallelModel& model,
    int loss_index, const Output& global_step = Output(),
    const std::vector<Output>& var_list = {},
    absl::string_view name = "allreduce_update");

}  // namespace train
}  // namespace dflow

#endif  // DFLOW_GRAPH_TRAINING_TOWERS_H_
