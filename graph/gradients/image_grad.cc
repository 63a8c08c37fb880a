// Gradients of the image ops (graph/ops/image_ops.h), as TensorFlow's
// image_grad.py defines them: ResizeBilinear's is ResizeBilinearGrad with
// the same corner attrs, ResizeNearestNeighbor's ResizeNearestNeighborGrad.
// AdjustContrastv2 has no gradient in TensorFlow (differentiating through it
// is an error there), so it has none here.
#include <vector>

#include "absl/status/status.h"
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/ops.h"

namespace dflow {
namespace {

absl::Status ResizeBilinearGradFn(const Scope& scope, const Operation& op,
                                  absl::Span<const Output> grad_outputs,
                                  std::vector<Output>* grad_inputs) {
  // Integer images have no gradient (ResizeBilinearGrad makes floats).
  const DataType t = op.input(0).dtype();
  if (t != DT_FLOAT && t != DT_DOUBLE && t != DT_HALF && t != DT_BFLOAT16) {
    *grad_inputs = {NoGradient(), NoGradient()};
    return absl::OkStatus();
  }
  ops::ResizeAttrs attrs;
  if (absl::Status s =
          op.node()->GetAttr("align_corners", &attrs.align_corners);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          op.node()->GetAttr("half_pixel_centers", &attrs.half_pixel_centers);
      !s.ok()) {
    return s;
  }
  *grad_inputs = {
      ops::ResizeBilinearGrad(scope, grad_outputs[0], op.input(0), attrs),
      NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("ResizeBilinear", ResizeBilinearGradFn);

// Each output pixel is a copy of one input pixel: ResizeNearestNeighborGrad
// adds the gradient back to it, at the input's height and width.
absl::Status ResizeNearestNeighborGradFn(const Scope& scope,
                                         const Operation& op,
                                         absl::Span<const Output> grad_outputs,
                                         std::vector<Output>* grad_inputs) {
  ops::ResizeAttrs attrs;
  if (absl::Status s =
          op.node()->GetAttr("align_corners", &attrs.align_corners);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          op.node()->GetAttr("half_pixel_centers", &attrs.half_pixel_centers);
      !s.ok()) {
    return s;
  }
  const Output image_size =
      ops::Slice(scope, ops::Shape(scope, op.input(0)), {1}, {2});
  *grad_inputs = {ops::ResizeNearestNeighborGrad(scope, grad_outputs[0],
                                                 image_size, attrs),
                  NoGradient()};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("ResizeNearestNeighbor", ResizeNearestNeighborGradFn);

DFLOW_REGISTER_NO_GRADIENT("ResizeBilinearGrad");
DFLOW_REGISTER_NO_GRADIENT("RandomUniformInt");

}  // namespace
}  // namespace dflow
