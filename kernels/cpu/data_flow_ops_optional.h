// The value behind a DT_VARIANT Optional (TensorFlow's Optional, the ops of
// graph/ops/data_flow_ops_optional.cc): a list of tensors, or nothing.
#ifndef DFLOW_KERNELS_CPU_DATA_FLOW_OPS_OPTIONAL_H_
#define DFLOW_KERNELS_CPU_DATA_FLOW_OPS_OPTIONAL_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/variant.h"

namespace dflow {

struct OptionalValue : public VariantValue {
  bool has_value = false;
  std::vector<Tensor> components;

  std::string TypeName() const override { return "Optional"; }
  std::string DebugString() const override {
    return has_value ? absl::StrCat("Optional<", components.size(),
                                    " components>")
                     : "Optional<none>";
  }
};

}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_DATA_FLOW_OPS_OPTIONAL_H_
