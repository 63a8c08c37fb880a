// The vector of tensors behind a TensorArrayV3 handle, with TensorFlow's
// rules (core/kernels/tensor_array.h): each index is written once and read
// once (clear_after_read) or many times, in that order; a write past the
// end grows the array only when dynamic_size; every element has the
// array's dtype and a shape compatible with its element_shape (which the
// first write fixes when identical_element_shapes).
//
// A gradient array (TensorArrayGradV3) differs: writes to one index add up
// (the gradients of several reads of it), and it starts with every element
// its source had written present as zeros of that element's shape, so a
// read of an element no gradient reached gives zeros, not an error.
//
// Arrays live for one step (runtime/step_container.h). Kernels (any thread,
// e.g. a loop's parallel iterations) call these under the array's mutex.
#ifndef DFLOW_KERNELS_CPU_DATA_FLOW_OPS_TENSOR_ARRAY_H_
#define DFLOW_KERNELS_CPU_DATA_FLOW_OPS_TENSOR_ARRAY_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "runtime/op_kernel.h"
#include "runtime/step_container.h"
#include "runtime/variables.h"

namespace dflow {

class TensorArray : public ResourceBase {
 public:
  struct Options {
    std::string name;  // for errors: the TensorArrayV3 node (+ "@source")
    DataType dtype = DT_INVALID;
    TensorShape element_shape = TensorShape::Unknown();
    bool dynamic_size = false;
    bool clear_after_read = true;
    bool identical_element_shapes = false;
    // Gradient arrays: a second write to an index adds to the first.
    bool multiple_writes_aggregate = false;
  };

  TensorArray(Options options, int64_t size);

  std::string DebugString() const override;
  DataType dtype() const { return options_.dtype; }

  // Stores `value` at `index` (sharing its buffer: tensors are immutable).
  absl::Status Write(int64_t index, const Tensor& value, OpKernelContext* ctx);
  // The element at `index`; zeros for a gradient array's element no write
  // reached. Clears it when clear_after_read.
  absl::StatusOr<Tensor> Read(int64_t index, OpKernelContext* ctx);
  // Read of each index, stacked along a new 0th dimension. With no
  // indices, `element_shape` (or the array's) must be fully defined.
  absl::StatusOr<Tensor> Gather(const std::vector<int64_t>& indices,
                                const TensorShape& element_shape,
                                OpKernelContext* ctx);
  // Every element read (as Read does) and joined along dimension 0; the
  // elements may differ in that dimension only (TensorArrayConcatV3).
  // `lengths` gets each one's size there. With no elements,
  // `element_shape_except0` must be fully defined.
  absl::StatusOr<Tensor> Concat(const TensorShape& element_shape_except0,
                                std::vector<int64_t>* lengths,
                                OpKernelContext* ctx);
  // Writes value's rows [sum(lengths[:i]), sum(lengths[:i+1])) at index i
  // for every i (TensorArraySplitV3): as many lengths as the array's size
  // unless it is dynamic_size, and they must add up to value's 0th size.
  absl::Status Split(const Tensor& value, const std::vector<int64_t>& lengths,
                     OpKernelContext* ctx);
  absl::StatusOr<int64_t> Size();
  // Frees the elements; later uses fail.
  void Close();

  // The gradient array for `source`: made on first use in `step` (same
  // size and dtype, the source's written elements as zeros), the same one
  // afterwards. The source stops growing from then on (TensorFlow's rule:
  // the gradient's size must stay the source's).
  absl::StatusOr<Var*> Grad(const std::string& source, StepContainer* step);

 private:
  struct Element {
    Tensor value;  // uninitialized while only its shape is known (zeros)
    TensorShape shape;
    bool written = false;
    bool read = false;
    bool cleared = false;
  };

  absl::Status CheckOpen() const;  // mu_ held
  absl::Status WriteLocked(int64_t index, const Tensor& value,
                           OpKernelContext* ctx);  // mu_ held
  absl::StatusOr<Tensor> ReadLocked(int64_t index,
                                    OpKernelContext* ctx);  // mu_ held

  Options options_;
  std::mutex mu_;
  bool closed_ = false;            // mu_
  std::vector<Element> elements_;  // mu_
  // Gradient arrays by source; owned by the step.
  absl::flat_hash_map<std::string, Var*> grads_;  // mu_
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_DATA_FLOW_OPS_TENSOR_ARRAY_H_
