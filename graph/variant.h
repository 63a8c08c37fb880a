// The element of a DT_VARIANT tensor: a value of a C++ type the graph does
// not look into (a TensorList, kernels/cpu/list_ops_tensor_list.h), shared
// by the tensors that hold it. Values are immutable once made while more
// than one tensor can see them: an op that "changes" one
// (TensorListPushBack) makes a new value, so a tensor a consumer still
// holds never changes under it; only a value its op's input alone holds
// (OpKernelContext::input_held_only_here, use_count() 1) may change in
// place.
#ifndef DFLOW_GRAPH_VARIANT_H_
#define DFLOW_GRAPH_VARIANT_H_

#include <memory>
#include <string>
#include <utility>

namespace dflow {

class VariantValue {
 public:
  virtual ~VariantValue() = default;
  // "TensorList": what errors and DebugString call the value.
  virtual std::string TypeName() const = 0;
  virtual std::string DebugString() const = 0;
};

class Variant {
 public:
  Variant() = default;  // empty: what a new DT_VARIANT tensor holds
  explicit Variant(std::shared_ptr<const VariantValue> value)
      : value_(std::move(value)) {}

  bool empty() const { return value_ == nullptr; }
  // The value as a T, or nullptr when it is empty or another type.
  template <typename T>
  const T* get() const {
    return dynamic_cast<const T*>(value_.get());
  }
  const std::shared_ptr<const VariantValue>& value() const { return value_; }
  std::string TypeName() const {
    return value_ == nullptr ? "empty" : value_->TypeName();
  }
  std::string DebugString() const {
    return value_ == nullptr ? "<empty variant>" : value_->DebugString();
  }

 private:
  std::shared_ptr<const VariantValue> value_;
};

}  // namespace dflow

#endif  // DFLOW_GRAPH_VARIANT_H_
