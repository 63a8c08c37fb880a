// Variables: tensors that live across steps, and the other stateful
// resources ops reach through a handle (queues, readers).
//
// A Var holds a variable's current value behind a mutex. Legacy variables
// (VariableV2, whose output is a reference) and resource variables
// (VarHandleOp, whose output is a handle) both name a Var in the session's
// VariableStore; Assign*/Read* kernels reach it through their input. The
// store belongs to the Session, so variables keep their values from one Run
// to the next and die with the session.
#ifndef DFLOW_RUNTIME_VARIABLES_H_
#define DFLOW_RUNTIME_VARIABLES_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "proto/node_def.pb.h"

namespace dflow {

// The VariableStore key of the variable a VariableV2/VarHandleOp node names:
// its shared_name, or else its node name, inside its container
// ("container/name"). The kernels and the Saver must agree on it, so it lives
// here once.
std::string VariableKey(absl::string_view node_name,
                        absl::string_view container,
                        absl::string_view shared_name);
// The same, reading the container and shared_name attrs of `node` (absent
// attrs count as empty).
std::string VariableKey(const NodeDef& node);

// The error for using a variable never assigned, worded as TensorFlow's
// (FailedPrecondition "Attempting to use uninitialized value <name>") so
// scripts matching on it keep working, plus what to do. `input`, when
// given, says which input of the op was the variable ("input 'accum'").
absl::Status UninitializedValueError(absl::string_view name,
                                     absl::string_view input = "");

// A stateful object other than a variable's value that ops reach through a
// resource handle (a queue, a reader). It lives in a Var of dtype
// DT_RESOURCE in the session's VariableStore, named container/shared_name
// like a variable, and dies with the session.
class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  // What it is, for errors ("FIFOQueue 'input_producer'").
  virtual std::string DebugString() const = 0;
};

class Var {
 public:
  Var(std::string name, DataType dtype, TensorShape declared_shape)
      : name_(std::move(name)),
        dtype_(dtype),
        declared_shape_(std::move(declared_shape)) {}

  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }
  // The shape the graph declared (may be partial).
  const TensorShape& declared_shape() const { return declared_shape_; }

  // Guards value() and initialized(). (std::mutex rather than absl::Mutex
  // throughout the runtime: the system Abseil is not built for
  // ThreadSanitizer, which would then not see its locks.)
  std::mutex& mu() { return mu_; }
  Tensor* value() { return &value_; }  // with mu() held
  bool initialized() const {           // with mu() held
    return value_.IsInitialized() && value_.dtype() == dtype_;
  }
  // A snapshot of the value that shares its buffer (cheap). A reference
  // variable's updates change it in place (kernel_util_state.h).
  Tensor Read() {
    std::lock_guard<std::mutex> lock(mu_);
    return value_;
  }
  // A snapshot no later update changes: Read(), or for a reference
  // variable's own buffer a copy made under the mutex (for the Saver).
  // Uninitialized if the copy cannot be allocated.
  Tensor ReadToKeep() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!value_.IsReferenceVariableValue()) return value_;
    return value_.DeepCopy();
  }

  // The resource this handle names, made by `create` on first use (the op
  // that makes the handle calls this each run; only the first creates).
  absl::StatusOr<ResourceBase*> GetOrCreateResource(
      const std::function<absl::StatusOr<std::unique_ptr<ResourceBase>>()>&
          create) {
    std::lock_guard<std::mutex> lock(mu_);
    if (resource_ == nullptr) {
      absl::StatusOr<std::unique_ptr<ResourceBase>> made = create();
      if (!made.ok()) return made.status();
      resource_ = *std::move(made);
    }
    return resource_.get();
  }
  // Null until GetOrCreateResource made it (and for variables).
  ResourceBase* resource() {
    std::lock_guard<std::mutex> lock(mu_);
    return resource_.get();
  }

 private:
  const std::string name_;
  const DataType dtype_;
  const TensorShape declared_shape_;
  std::mutex mu_;
  Tensor value_;
  std::unique_ptr<ResourceBase> resource_;  // mu_
};

class VariableStore {
 public:
  // The variable called `name`, created on first use. Asking again with
  // another dtype is an error naming both.
  absl::StatusOr<Var*> LookupOrCreate(absl::string_view name, DataType dtype,
                                      const TensorShape& shape);
  // Null if there is no such variable.
  Var* Lookup(absl::string_view name) const;
  // Every variable, sorted by name (for checkpoints and tests).
  std::vector<Var*> All() const;

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<Var>> vars_;  // mu_
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_VARIABLES_H_
