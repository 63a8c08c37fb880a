// Gradients of the index ops (graph/ops/index_ops.h), following
// TensorFlow's array_grad.py, math_grad.py, data_flow_grad.py and
// nn_grad.py. dflow's gradients are dense tensors, so where TensorFlow
// hands back IndexedSlices (Gather, GatherV2) the gradient of params is
// the UnsortedSegmentSum of the incoming gradient's slices into params'
// first dimension (or the gathered axis, transposed there and back).
// Unique, Where and InTopKV2 compute indices and carry no gradient.
#include <cstdint>
#include <numeric>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/ops.h"

namespace dflow {
namespace {

// Element `i` (a constant) of the int32 vector `v`, as a scalar.
Output ElementOf(const Scope& scope, const Output& v, int64_t i) {
  return ops::GatherV2(scope, v, static_cast<int>(i), 0);
}

// indices as an int32 or int64 vector (int16 indices are widened).
Output FlatIndices(const Scope& scope, const Output& indices) {
  Output idx = indices;
  if (BaseType(indices.dtype()) == DT_INT16) {
    idx = ops::Cast(scope, indices, DT_INT32);
  }
  return ops::Reshape(scope, idx, ops::Const(scope, {-1}));
}

// Dense gradient of params for a gather along `axis` (batch_dims 0).
absl::Status GatherGradImpl(const Scope& scope, const Operation& op,
                            const Output& grad, int64_t axis,
                            std::vector<Output>* grad_inputs) {
  const Output params = op.input(0);
  const Output indices = op.input(1);
  const int rank = params.shape().rank();
  if (axis < 0) {
    if (rank < 0) {
      return absl::UnimplementedError(absl::StrCat(
          "the gradient of node '", op.name(), "' (", op.node()->op(),
          ") needs the rank of params for a negative axis"));
    }
    axis += rank;
  }
  const Output shape = ops::Shape(scope, params);
  const Output segments = ElementOf(scope, shape, axis);
  const Output flat_indices = FlatIndices(scope, indices);
  // values: grad with the indices' dimensions collapsed into one.
  Output outer = ops::Slice(scope, shape, ops::Const(scope, {0}),
                            ops::Const(scope, {static_cast<int>(axis)}));
  Output inner = ops::Slice(scope, shape,
                            ops::Const(scope, {static_cast<int>(axis) + 1}),
                            ops::Const(scope, {-1}));
  const Output values_shape =
      ops::Concat(scope, {outer, ops::Const(scope, {-1}), inner}, 0);
  Output values = ops::Reshape(scope, grad, values_shape);
  if (axis == 0) {
    (*grad_inputs)[0] =
        ops::UnsortedSegmentSum(scope, values, flat_indices, segments);
    return absl::OkStatus();
  }
  if (rank < 0) {
    return absl::UnimplementedError(absl::StrCat(
        "the gradient of node '", op.name(), "' (", op.node()->op(),
        ") along axis ", axis, " needs the rank of params"));
  }
  // Move the gathered axis first, sum, and move it back.
  std::vector<int> perm = {static_cast<int>(axis)};
  for (int i = 0; i < rank; ++i) {
    if (i != axis) perm.push_back(i);
  }
  std::vector<int> inverse(rank);
  for (int i = 0; i < rank; ++i) inverse[perm[i]] = i;
  auto vec = [&](const std::vector<int>& v) {
    return ops::Const(scope, Tensor::FromVector<int32_t>(
                                 std::vector<int32_t>(v.begin(), v.end())));
  };
  values = ops::Transpose(scope, values, vec(perm));
  const Output summed =
      ops::UnsortedSegmentSum(scope, values, flat_indices, segments);
  (*grad_inputs)[0] = ops::Transpose(scope, summed, vec(inverse));
  return absl::OkStatus();
}

absl::Status GatherV2Grad(const Scope& scope, const Operation& op,
                          absl::Span<const Output> grad_outputs,
                          std::vector<Output>* grad_inputs) {
  grad_inputs->assign(3, NoGradient());
  int64_t batch_dims = 0;
  if (absl::Status s = op.node()->GetAttr("batch_dims", &batch_dims);
      !s.ok()) {
    return s;
  }
  std::vector<int64_t> axis;
  if (!ConstantInts(op.input(2), &axis) || axis.size() != 1) {
    return absl::UnimplementedError(absl::StrCat(
        "the gradient of node '", op.name(),
        "' (GatherV2) needs a constant axis"));
  }
  if (batch_dims != 0) {
    return absl::UnimplementedError(absl::StrCat(
        "the gradient of node '", op.name(),
        "' (GatherV2) with batch_dims != 0 is not implemented"));
  }
  return GatherGradImpl(scope, op, grad_outputs[0], axis[0], grad_inputs);
}
DFLOW_REGISTER_GRADIENT("GatherV2", GatherV2Grad);

absl::Status GatherGrad(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs) {
  grad_inputs->assign(2, NoGradient());
  return GatherGradImpl(scope, op, grad_outputs[0], 0, grad_inputs);
}
DFLOW_REGISTER_GRADIENT("Gather", GatherGrad);

// data's gradient is the incoming gradient gathered at the segment ids;
// zero for ids < 0 (dropped by the forward op).
absl::Status UnsortedSegmentSumGrad(const Scope& scope, const Operation& op,
                                    absl::Span<const Output> grad_outputs,
                                    std::vector<Output>* grad_inputs) {
  grad_inputs->assign(3, NoGradient());
  const Output grad = grad_outputs[0];
  const Output ids = op.input(1);
  Output clipped = ops::Maximum(scope, ids, 0);
  if (BaseType(ids.dtype()) == DT_INT16) {
    clipped = ops::Cast(scope, clipped, DT_INT32);
  }
  const Output gathered = ops::GatherV2(scope, grad, clipped, 0);
  // The mask, shaped ids.shape + [1] * (rank(grad) - 1) to broadcast.
  const Output ones = ops::Fill(
      scope,
      ops::Reshape(scope, ops::Sub(scope, ops::Rank(scope, grad), 1),
                   ops::Const(scope, {1})),
      1);
  const Output mask_shape =
      ops::Concat(scope, {ops::Shape(scope, ids), ones}, 0);
  const Output mask = ops::Reshape(
      scope,
      ops::Cast(scope, ops::GreaterEqual(scope, ids, 0),
                BaseType(grad.dtype())),
      mask_shape);
  (*grad_inputs)[0] = ops::Mul(scope, gathered, mask);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("UnsortedSegmentSum", UnsortedSegmentSumGrad);

// Each data input gets the gradient gathered at its indices (an index
// written twice gives both writers the gradient, as in TensorFlow).
absl::Status DynamicStitchGrad(const Scope& scope, const Operation& op,
                               absl::Span<const Output> grad_outputs,
                               std::vector<Output>* grad_inputs) {
  const int n = op.num_inputs() / 2;
  grad_inputs->assign(2 * n, NoGradient());
  for (int i = 0; i < n; ++i) {
    (*grad_inputs)[n + i] =
        ops::GatherV2(scope, grad_outputs[0], op.input(i), 0);
  }
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("DynamicStitch", DynamicStitchGrad);

// The values' gradient goes back to the positions they came from.
absl::Status TopKV2Grad(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs) {
  grad_inputs->assign(2, NoGradient());
  const Output input = op.input(0);
  Output indices = op.output(1);
  if (BaseType(indices.dtype()) != DT_INT32) {
    indices = ops::Cast(scope, indices, DT_INT32);
  }
  const Output in_shape = ops::Shape(scope, input);
  const Output last = ops::Sub(scope, ops::Size(scope, in_shape), 1);
  const Output n = ops::GatherV2(scope, in_shape, last, 0);
  const Output ind_shape = ops::Shape(scope, indices);
  const Output k =
      ops::GatherV2(scope, ind_shape, ops::Sub(scope, ops::Size(scope, ind_shape), 1), 0);
  const Output ind_2d = ops::Reshape(
      scope, indices, ops::Pack(scope, {ops::Const(scope, -1), k}));
  const Output rows = ops::GatherV2(scope, ops::Shape(scope, ind_2d), 0, 0);
  const Output offsets = ops::ExpandDims(
      scope, ops::Range(scope, 0, ops::Mul(scope, rows, n), n), -1);
  const Output flat = ops::Reshape(scope, ops::AddV2(scope, ind_2d, offsets),
                                   ops::Const(scope, {-1}));
  const Output summed = ops::UnsortedSegmentSum(
      scope, ops::Reshape(scope, grad_outputs[0], ops::Const(scope, {-1})),
      flat, ops::Size(scope, input));
  (*grad_inputs)[0] = ops::Reshape(scope, summed, in_shape);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("TopKV2", TopKV2Grad);

DFLOW_REGISTER_NO_GRADIENT("Unique");
DFLOW_REGISTER_NO_GRADIENT("Where");
DFLOW_REGISTER_NO_GRADIENT("InTopKV2");

}  // namespace
}  // namespace dflow
