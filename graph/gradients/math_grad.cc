// Gradients of the math ops (graph/ops/math_ops.h): element-wise
// arithmetic (reduced back to each input's shape when it broadcast),
// MatMul, reductions, Cast, AddN.
#include "graph/gradients/grad_helpers.h"
#include "graph/gradients/grad_registry.h"
#include "graph/ops/ops.h"

namespace dflow {
namespace {

Output In(const Operation& op, int i) {
  const Edge* e = op.node()->input_edge(i);
  return Output(e->src, e->src_output);
}

absl::Status AddGrad(const Scope& scope, const Operation& op,
                     absl::Span<const Output> grad_outputs,
                     std::vector<Output>* grad_inputs) {
  grad_inputs->resize(2);
  ReduceBroadcastGradients(scope, In(op, 0), In(op, 1), grad_outputs[0],
                           grad_outputs[0], &(*grad_inputs)[0],
                           &(*grad_inputs)[1]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Add", AddGrad);
DFLOW_REGISTER_GRADIENT("AddV2", AddGrad);

absl::Status SubGrad(const Scope& scope, const Operation& op,
                     absl::Span<const Output> grad_outputs,
                     std::vector<Output>* grad_inputs) {
  grad_inputs->resize(2);
  ReduceBroadcastGradients(scope, In(op, 0), In(op, 1), grad_outputs[0],
                           ops::Neg(scope, grad_outputs[0]),
                           &(*grad_inputs)[0], &(*grad_inputs)[1]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Sub", SubGrad);

absl::Status MulGrad(const Scope& scope, const Operation& op,
                     absl::Span<const Output> grad_outputs,
                     std::vector<Output>* grad_inputs) {
  const Output x = In(op, 0), y = In(op, 1), g = grad_outputs[0];
  grad_inputs->resize(2);
  ReduceBroadcastGradients(scope, x, y, ops::Mul(scope, g, y),
                           ops::Mul(scope, x, g), &(*grad_inputs)[0],
                           &(*grad_inputs)[1]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("Mul", MulGrad);

// The gradient of each summand is the gradient of the sum.
absl::Status AddNGrad(const Scope& /*scope*/, const Operation& op,
                      absl::Span<const Output> grad_outputs,
                      std::vector<Output>* grad_inputs) {
  grad_inputs->assign(op.node()->num_inputs(), grad_outputs[0]);
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("AddN", AddNGrad);

// C = op(A) op(B): each gradient is one MatMul of the other operand and
// dC, with the transposes chosen so no Transpose op is needed.
absl::Status MatMulGrad(const Scope& scope, const Operation& op,
                        absl::Span<const Output> grad_outputs,
                        std::vector<Output>* grad_inputs) {
  bool ta = false, tb = false;
  if (absl::Status s = op.node()->GetAttr("transpose_a", &ta); !s.ok()) {
    return s;
  }
  if (absl::Status s = op.node()->GetAttr("transpose_b", &tb); !s.ok()) {
    return s;
  }
  const Output a = In(op, 0), b = In(op, 1), g = grad_outputs[0];
  auto matmul = [&](const Output& x, const Output& y, bool tx, bool ty) {
    return ops::MatMul(scope, x, y,
                       ops::MatMulAttrs().TransposeA(tx).TransposeB(ty));
  };
  Output da, db;
  if (!ta && !tb) {
    da = matmul(g, b, false, true);
    db = matmul(a, g, true, false);
  } else if (!ta && tb) {
    da = matmul(g, b, false, false);
    db = matmul(g, a, true, false);
  } else if (ta && !tb) {
    da = matmul(b, g, false, true);
    db = matmul(a, g, false, false);
  } else {
    da = matmul(b, g, true, true);
    db = matmul(g, a, true, true);
  }
  *grad_inputs = {da, db};
  return absl::OkStatus();
}
DFLOW_REGISTER_GRADIENT("MatMul", MatMulGrad);

}  // namespace
}  // namespace dflow
