// Variable ops: reference variables (VariableV2 and the Assign family, whose
// ref output feeds value inputs of the base type) and resource variables
// (VarHandleOp, ReadVariableOp, the AssignVariableOp family), with
// TensorFlow's op names and attrs.
#ifndef DFLOW_GRAPH_OPS_STATE_OPS_H_
#define DFLOW_GRAPH_OPS_STATE_OPS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/scope.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"

namespace dflow {
namespace ops {

// --- Reference variables. ---

struct VariableAttrs {
  // Variables with the same non-empty (container, shared_name) are one
  // variable, also across sessions sharing a device.
  std::string container;
  std::string shared_name;
  VariableAttrs& Container(std::string v) {
    container = std::move(v);
    return *this;
  }
  VariableAttrs& SharedName(std::string v) {
    shared_name = std::move(v);
    return *this;
  }
};
// A VariableV2 node (named "Variable" by default) whose output is a
// reference of type `dtype`.
Output Variable(const Scope& scope, const TensorShape& shape, DataType dtype,
                const VariableAttrs& attrs = {});

struct AssignAttrs {
  // Require `value` to have the variable's shape; when false the variable
  // takes the value's shape.
  bool validate_shape = true;
  bool use_locking = true;
  AssignAttrs& ValidateShape(bool v) {
    validate_shape = v;
    return *this;
  }
  AssignAttrs& UseLocking(bool v) {
    use_locking = v;
    return *this;
  }
};
// Stores `value` in the variable `ref`; returns `ref` after the update.
Output Assign(const Scope& scope, Input ref, Input value,
              const AssignAttrs& attrs = {});

struct AssignAddAttrs {
  bool use_locking = false;
  AssignAddAttrs& UseLocking(bool v) {
    use_locking = v;
    return *this;
  }
};
using AssignSubAttrs = AssignAddAttrs;
// ref += value / ref -= value; returns `ref` after the update.
Output AssignAdd(const Scope& scope, Input ref, Input value,
                 const AssignAddAttrs& attrs = {});
Output AssignSub(const Scope& scope, Input ref, Input value,
                 const AssignSubAttrs& attrs = {});

// --- Resource variables. ---

struct VarHandleOpAttrs {
  std::string container;
  std::string shared_name;
  // TensorFlow 2.x: a name for debugging only.
  std::string debug_name;
  // Devices other than the op's own that may use the variable.
  std::vector<std::string> allowed_devices;
  VarHandleOpAttrs& Container(std::string v) {
    container = std::move(v);
    return *this;
  }
  VarHandleOpAttrs& SharedName(std::string v) {
    shared_name = std::move(v);
    return *this;
  }
  VarHandleOpAttrs& DebugName(std::string v) {
    debug_name = std::move(v);
    return *this;
  }
  VarHandleOpAttrs& AllowedDevices(std::vector<std::string> v) {
    allowed_devices = std::move(v);
    return *this;
  }
};
// A handle (scalar resource) to a variable of `dtype` and `shape`.
Output VarHandleOp(const Scope& scope, DataType dtype, const TensorShape& shape,
                   const VarHandleOpAttrs& attrs = {});

// The variable's current value.
Output ReadVariableOp(const Scope& scope, Input resource, DataType dtype);

struct AssignVariableOpAttrs {
  bool validate_shape = false;
  AssignVariableOpAttrs& ValidateShape(bool v) {
    validate_shape = v;
    return *this;
  }
};
Operation AssignVariableOp(const Scope& scope, Input resource, Input value,
                           const AssignVariableOpAttrs& attrs = {});
Operation AssignAddVariableOp(const Scope& scope, Input resource, Input value);
Operation AssignSubVariableOp(const Scope& scope, Input resource, Input value);

// --- Initialization checks. ---

// Whether the reference variable `ref` holds a value (bool scalar); reads no
// value, so it runs before the initializer too.
Output IsVariableInitialized(const Scope& scope, Input ref);
// The same for a resource variable.
Output VarIsInitializedOp(const Scope& scope, Input resource);
// The shape of a resource variable's value (int32 vector).
Output VariableShape(const Scope& scope, Input resource);

// --- Counting up to a limit. ---

// Adds 1 to the int32/int64 scalar variable `ref` and returns the value it
// had; once that value has reached `limit`, fails with OutOfRange instead
// (the variable stays). StringInputProducer's num_epochs is one.
Output CountUpTo(const Scope& scope, Input ref, int64_t limit);
// The same for a resource variable holding `dtype`.
Output ResourceCountUpTo(const Scope& scope, Input resource, int64_t limit,
                         DataType dtype);

// --- Gather and scatter on variables. ---

struct ResourceGatherAttrs {
  // Leading dimensions shared by the variable and `indices` (a gather per
  // batch element).
  int64_t batch_dims = 0;
  // TensorFlow's flag, kept for compatibility: indices are always checked
  // on the CPU (a bad one is InvalidArgument naming it and the range).
  bool validate_indices = true;
  ResourceGatherAttrs& BatchDims(int64_t v) {
    batch_dims = v;
    return *this;
  }
  ResourceGatherAttrs& ValidateIndices(bool v) {
    validate_indices = v;
    return *this;
  }
};
// Rows `indices` of a resource variable (of dtype `dtype`).
Output ResourceGather(const Scope& scope, Input resource, Input indices,
                      DataType dtype, const ResourceGatherAttrs& attrs = {});

// var[indices[i], ...] += / -= / = updates[i, ...]; the resource forms
// also take a scalar `updates`, applied to every row named.
Operation ResourceScatterAdd(const Scope& scope, Input resource, Input indices,
                             Input updates);
Operation ResourceScatterSub(const Scope& scope, Input resource, Input indices,
                             Input updates);
Operation ResourceScatterUpdate(const Scope& scope, Input resource,
                                Input indices, Input updates);

struct ScatterAttrs {
  // Unset: TensorFlow's default (false for ScatterAdd/Sub, true for
  // ScatterUpdate). dflow always updates under the variable's lock.
  std::optional<bool> use_locking;
  ScatterAttrs& UseLocking(bool v) {
    use_locking = v;
    return *this;
  }
};
// The reference forms; each returns `ref` after the update.
Output ScatterAdd(const Scope& scope, Input ref, Input indices, Input updates,
                  const ScatterAttrs& attrs = {});
Output ScatterSub(const Scope& scope, Input ref, Input indices, Input updates,
                  const ScatterAttrs& attrs = {});
Output ScatterUpdate(const Scope& scope, Input ref, Input indices,
                     Input updates, const ScatterAttrs& attrs = {});

// var[indices[i], ...] *= / /= / max= / min= updates[i, ...] (an integer
// division by zero is an InvalidArgument); the resource forms also take a
// scalar `updates`.
Operation ResourceScatterMul(const Scope& scope, Input resource, Input indices,
                             Input updates);
Operation ResourceScatterDiv(const Scope& scope, Input resource, Input indices,
                             Input updates);
Operation ResourceScatterMax(const Scope& scope, Input resource, Input indices,
                             Input updates);
Operation ResourceScatterMin(const Scope& scope, Input resource, Input indices,
                             Input updates);
Output ScatterMul(const Scope& scope, Input ref, Input indices, Input updates,
                  const ScatterAttrs& attrs = {});
Output ScatterDiv(const Scope& scope, Input ref, Input indices, Input updates,
                  const ScatterAttrs& attrs = {});
Output ScatterMax(const Scope& scope, Input ref, Input indices, Input updates,
                  const ScatterAttrs& attrs = {});
Output ScatterMin(const Scope& scope, Input ref, Input indices, Input updates,
                  const ScatterAttrs& attrs = {});

// var[indices[i, :]] = / += / -= updates[i, ...] for index tuples in the
// last dimension of `indices` (graph/ops/state_ops_scatter_nd.cc):
// updates.shape == indices.shape[:-1] + var.shape[indices.shape[-1]:].
struct ScatterNdAttrs {
  // Unset: TensorFlow's default (true for the resource forms and
  // ScatterNdUpdate, false for ScatterNdAdd/Sub).
  std::optional<bool> use_locking;
  // "" or "ERROR": a tuple outside the variable is an error; "IGNORE":
  // its update is dropped.
  std::string bad_indices_policy;
  ScatterNdAttrs& UseLocking(bool v) {
    use_locking = v;
    return *this;
  }
  ScatterNdAttrs& BadIndicesPolicy(std::string v) {
    bad_indices_policy = std::move(v);
    return *this;
  }
};
Output ScatterNdUpdate(const Scope& scope, Input ref, Input indices,
                       Input updates, const ScatterNdAttrs& attrs = {});
Output ScatterNdAdd(const Scope& scope, Input ref, Input indices,
                    Input updates, const ScatterNdAttrs& attrs = {});
Output ScatterNdSub(const Scope& scope, Input ref, Input indices,
                    Input updates, const ScatterNdAttrs& attrs = {});
Operation ResourceScatterNdUpdate(const Scope& scope, Input ref, Input indices,
                                  Input updates,
                                  const ScatterNdAttrs& attrs = {});
Operation ResourceScatterNdAdd(const Scope& scope, Input ref, Input indices,
                               Input updates, const ScatterNdAttrs& attrs = {});
Operation ResourceScatterNdSub(const Scope& scope, Input ref, Input indices,
                               Input updates, const ScatterNdAttrs& attrs = {});

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_STATE_OPS_H_
