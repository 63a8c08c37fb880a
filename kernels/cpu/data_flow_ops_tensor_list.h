// The value behind a DT_VARIANT TensorList (TensorFlow's TensorList, the
// list ops of graph/ops/data_flow_ops_tensor_list.cc): a vector of tensors
// of one dtype and a (partial) element shape. Ops never change a list
// another tensor can still see; they make a new one (the tensors themselves
// are shared, so that costs a vector of handles, not the data), except
// when their input is the list's only holder: then they change it in place
// (ListToChange in the .cc file).
#ifndef DFLOW_KERNELS_CPU_DATA_FLOW_OPS_TENSOR_LIST_H_
#define DFLOW_KERNELS_CPU_DATA_FLOW_OPS_TENSOR_LIST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/tensor_shape.h"
#include "graph/types.h"
#include "graph/variant.h"

namespace dflow {

struct TensorList : public VariantValue {
  DataType element_dtype = DT_INVALID;
  // May be partial or of unknown rank.
  TensorShape element_shape = TensorShape::Unknown();
  // -1: no limit (EmptyTensorList's max_num_elements).
  int64_t max_num_elements = -1;
  // An element never set (TensorListReserve) is an uninitialized Tensor.
  std::vector<Tensor> tensors;

  std::string TypeName() const override { return "TensorList"; }
  std::string DebugString() const override {
    return absl::StrCat("TensorList<", DataTypeName(element_dtype), " ",
                        element_shape.ToString(), " x", tensors.size(), ">");
  }
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_DATA_FLOW_OPS_TENSOR_LIST_H_
