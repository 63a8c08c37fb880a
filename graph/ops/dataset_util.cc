#include "graph/ops/dataset_util.h"

#include <vector>

#include "graph/attr_value_util.h"
#include "graph/tensor_shape.h"

namespace dflow {
namespace dataset_shape_fns {

absl::Status DatasetHandle(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, TensorShape({}));
  return absl::OkStatus();
}

absl::Status ElementShapes(InferenceContext* c) {
  std::vector<TensorShape> shapes;
  if (c->GetAttr("output_shapes", &shapes).ok() &&
      static_cast<int>(shapes.size()) == c->num_outputs()) {
    for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, shapes[i]);
    return absl::OkStatus();
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, TensorShape::Unknown());
  }
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

}  // namespace dataset_shape_fns

namespace dataset_builders {

void SetSpec(OpBuilder* b, const ops::ElementSpec& spec) {
  b->Attr("output_types", absl::MakeConstSpan(spec.types));
  b->Attr("output_shapes", absl::MakeConstSpan(spec.shapes));
}

AttrValue Func(absl::string_view name) {
  AttrValue value;
  value.mutable_func()->set_name(std::string(name));
  return value;
}

Output FirstOutput(const Operation& op) {
  return op.valid() ? op.output(0) : Output();
}

OutputList AllOutputs(const Operation& op) {
  OutputList outputs;
  for (int i = 0; i < op.num_outputs(); ++i) outputs.push_back(op.output(i));
  return outputs;
}

ops::ResourceAndDeleter TwoOutputs(const Operation& op) {
  if (!op.valid()) return {};
  return {op.output(0), op.output(1)};
}

}  // namespace dataset_builders
}  // namespace dflow
