// The functions tf.data calls (map, filter, flat_map, interleave, reduce,
// a one-shot iterator's dataset factory): a FunctionDef of the graph's
// library, named by a func attr of the dataset node, called once per
// element with the element's components and the captured inputs.
//
// The first call compiles the body as a graph of its own (an _Arg per
// argument, the body as compiler/function_inlining.h copies it, a _Retval
// per output), through the compiler's passes (so If/While in a map
// function are lowered, calls inlined), into one Executor. Each call is a
// step of that executor with the arguments in its CallFrame: resource
// arguments (a captured variable or table) travel as the Var their handle
// names.
//
// Calls run on the calling thread: the executor computes on a device that
// shares the caller's allocator but has a thread pool of one, which runs
// work inline. A call is made from inside a kernel (IteratorGetNext,
// MakeIterator, the one-shot iterator's first run), whose pool thread
// waits for it; had the body's nodes gone to the shared pool, every pool
// thread could end up waiting for work queued behind it.
#ifndef DFLOW_KERNELS_CPU_DATASET_OPS_FUNCTION_H_
#define DFLOW_KERNELS_CPU_DATASET_OPS_FUNCTION_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/tensor.h"
#include "kernels/cpu/dataset_ops.h"
#include "proto/function.pb.h"
#include "runtime/executor.h"
#include "runtime/op_kernel.h"

namespace dflow {

class DatasetFunction {
 public:
  // The function the node's func attr `attr` names, with the library of
  // the node's graph (a FunctionDef missing from it is NotFound). Errors
  // name the node.
  static absl::StatusOr<std::shared_ptr<DatasetFunction>> FromAttr(
      OpKernelConstruction* ctx, absl::string_view attr);
  ~DatasetFunction();

  const std::string& name() const { return func_.name(); }
  // The dtypes of the arguments and results (the signature's).
  const std::vector<DataType>& arg_types() const { return arg_types_; }
  const std::vector<DataType>& result_types() const { return result_types_; }

  // Calls the function: `args` are its arguments in order (a resource
  // argument as its Var), `*results` its results. Errors keep the body's
  // code and name the body node that failed.
  absl::Status Call(const DatasetContext& ctx,
                    const std::vector<TensorValue>& args,
                    std::vector<Tensor>* results) const;

  // The element's components followed by the captured inputs.
  static std::vector<TensorValue> Arguments(
      const Element& element, const std::vector<TensorValue>& captured);

 private:
  DatasetFunction() = default;
  // Builds, optimizes and plans the body on `device` (once).
  absl::Status Compile(Device* device) const;

  NameAttrList func_;
  std::string node_;  // the calling node, for errors
  FunctionDefLibrary library_;
  std::vector<DataType> arg_types_;
  std::vector<DataType> result_types_;

  mutable std::mutex mu_;
  mutable bool compiled_ = false;       // mu_
  mutable absl::Status compile_error_;  // mu_
  // The device the body runs on (declared before the executor, which
  // holds kernels built for it, so it is destroyed after).
  mutable std::unique_ptr<Device> device_;
  mutable std::shared_ptr<Executor> executor_;
};

// Calls `f` on `args` and the captured inputs; an error names the dataset
// and the function.
absl::Status CallDatasetFunction(const Dataset& dataset,
                                 const DatasetFunction& f,
                                 const DatasetContext& ctx, const Element& args,
                                 const std::vector<TensorValue>& captured,
                                 std::vector<Tensor>* results);

// The function of a kernel's func attr `attr`; null, with the error set on
// `ctx`, when it is not one (or `ctx` has failed already).
std::shared_ptr<const DatasetFunction> DatasetFunctionAttr(
    OpKernelConstruction* ctx, const char* attr);

// The captured inputs [begin, end) of a dataset kernel: tensors, or the
// Var of a resource handle.
std::vector<TensorValue> CapturedInputs(OpKernelContext* ctx, int begin,
                                        int end);

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_DATASET_OPS_FUNCTION_H_
