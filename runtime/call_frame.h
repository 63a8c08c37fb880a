// How a step's feeds get in and its fetches get out.
//
// For each run signature the session rewrites the graph: every fed tensor
// becomes an `_Arg` node (attr `index` = position in the feed list) and
// every fetch feeds a `_Retval` node (attr `index` = position in the fetch
// list). Their kernels read and write a CallFrame that the session fills
// before the step and reads after it, so the executor itself knows nothing
// about feeds and fetches. (TensorFlow's function call frames work alike.)
#ifndef DFLOW_RUNTIME_CALL_FRAME_H_
#define DFLOW_RUNTIME_CALL_FRAME_H_

#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "compiler/prune.h"  // kArgOp, kRetvalOp: the ops pruning adds
#include "graph/tensor.h"
#include "runtime/variables.h"

namespace dflow {


class CallFrame {
 public:
  CallFrame(std::vector<Tensor> args, int num_retvals)
      : args_(std::move(args)), retvals_(num_retvals), set_(num_retvals) {}

  int num_args() const { return static_cast<int>(args_.size()); }
  const Tensor& arg(int i) const { return args_[i]; }
  // A resource argument: the Var its handle names (a function called with
  // a captured variable or table; kernels/cpu/dataset_ops_function.h).
  // _Arg then outputs the Var, as a handle op would.
  void set_arg_var(int i, Var* var) {
    if (arg_vars_.size() < args_.size()) arg_vars_.resize(args_.size());
    arg_vars_[i] = var;
  }
  Var* arg_var(int i) const {
    return i < static_cast<int>(arg_vars_.size()) ? arg_vars_[i] : nullptr;
  }

  // Called once per retval by _Retval kernels (possibly concurrently).
  absl::Status SetRetval(int i, Tensor value);
  // After the step: every retval, or an error naming the first missing one.
  absl::Status TakeRetvals(std::vector<Tensor>* out);

 private:
  std::vector<Tensor> args_;
  std::vector<Var*> arg_vars_;  // empty unless an argument is a resource
  std::mutex mu_;
  std::vector<Tensor> retvals_;  // mu_
  std::vector<bool> set_;        // mu_
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_CALL_FRAME_H_
