// Optimizer update ops, with TensorFlow's names, arguments and formulas:
// one training step of plain gradient descent, momentum and Adam, applied in
// place to a variable (and its slot variables: accumulators, moments).
//
// The Apply* ops take reference variables (VariableV2) and return `var` after
// the update; the ResourceApply* ops take resource handles (VarHandleOp) and
// return nothing, so a training step runs them as targets or control inputs.
// Every scalar (learning rate, momentum, betas, epsilon) is a tensor input of
// the variable's dtype, so a schedule can feed or compute it.
#ifndef DFLOW_GRAPH_OPS_TRAINING_OPS_H_
#define DFLOW_GRAPH_OPS_TRAINING_OPS_H_

#include "graph/scope.h"

namespace dflow {
namespace ops {

// --- Gradient descent: var -= alpha * delta. ---

struct ApplyGradientDescentAttrs {
  // TensorFlow's flag, kept for compatibility. dflow always updates under
  // the variable's lock: the update swaps the buffer when a reader holds the
  // old one, which needs the lock anyway, and an uncontended lock is free
  // next to a pass over the variable.
  bool use_locking = false;
  ApplyGradientDescentAttrs& UseLocking(bool v) {
    use_locking = v;
    return *this;
  }
};
using ResourceApplyGradientDescentAttrs = ApplyGradientDescentAttrs;

Output ApplyGradientDescent(const Scope& scope, Input var, Input alpha,
                            Input delta,
                            const ApplyGradientDescentAttrs& attrs = {});
Operation ResourceApplyGradientDescent(
    const Scope& scope, Input var, Input alpha, Input delta,
    const ResourceApplyGradientDescentAttrs& attrs = {});

// --- Momentum: accum = accum * momentum + grad; var -= lr * accum.
// Nesterov: var -= lr * grad + lr * momentum * accum (accum already
// updated). ---

struct ApplyMomentumAttrs {
  bool use_locking = false;  // see ApplyGradientDescentAttrs
  bool use_nesterov = false;
  ApplyMomentumAttrs& UseLocking(bool v) {
    use_locking = v;
    return *this;
  }
  ApplyMomentumAttrs& UseNesterov(bool v) {
    use_nesterov = v;
    return *this;
  }
};
using ResourceApplyMomentumAttrs = ApplyMomentumAttrs;

Output ApplyMomentum(const Scope& scope, Input var, Input accum, Input lr,
                     Input grad, Input momentum,
                     const ApplyMomentumAttrs& attrs = {});
Operation ResourceApplyMomentum(const Scope& scope, Input var, Input accum,
                                Input lr, Input grad, Input momentum,
                                const ResourceApplyMomentumAttrs& attrs = {});

// --- Adam:
//   lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//   m += (grad - m) * (1 - beta1)
//   v += (grad * grad - v) * (1 - beta2)
//   var -= lr_t * m / (sqrt(v) + epsilon)
// Nesterov: var -= lr_t * (m * beta1 + (1 - beta1) * grad) /
//                  (sqrt(v) + epsilon).
// beta1_power and beta2_power are beta1^t and beta2^t at step t, kept by
// the optimizer in variables of their own. ---

struct ApplyAdamAttrs {
  bool use_locking = false;  // see ApplyGradientDescentAttrs
  bool use_nesterov = false;
  ApplyAdamAttrs& UseLocking(bool v) {
    use_locking = v;
    return *this;
  }
  ApplyAdamAttrs& UseNesterov(bool v) {
    use_nesterov = v;
    return *this;
  }
};
using ResourceApplyAdamAttrs = ApplyAdamAttrs;

Output ApplyAdam(const Scope& scope, Input var, Input m, Input v,
                 Input beta1_power, Input beta2_power, Input lr, Input beta1,
                 Input beta2, Input epsilon, Input grad,
                 const ApplyAdamAttrs& attrs = {});
Operation ResourceApplyAdam(const Scope& scope, Input var, Input m, Input v,
                            Input beta1_power, Input beta2_power, Input lr,
                            Input beta1, Input beta2, Input epsilon, Input grad,
                            const ResourceApplyAdamAttrs& attrs = {});

// --- Adagrad: accum += grad^2 (when update_slots); var -= lr * grad /
// sqrt(accum). AdagradV2: var -= lr * grad / (sqrt(accum) + epsilon). ---

struct ApplyAdagradAttrs {
  bool use_locking = false;  // see ApplyGradientDescentAttrs
  // False: accum is left as it is (only var moves).
  bool update_slots = true;
  ApplyAdagradAttrs& UseLocking(bool v) {
    use_locking = v;
    return *this;
  }
  ApplyAdagradAttrs& UpdateSlots(bool v) {
    update_slots = v;
    return *this;
  }
};

Output ApplyAdagrad(const Scope& scope, Input var, Input accum, Input lr,
                    Input grad, const ApplyAdagradAttrs& attrs = {});
Operation ResourceApplyAdagrad(const Scope& scope, Input var, Input accum,
                               Input lr, Input grad,
                               const ApplyAdagradAttrs& attrs = {});
Output ApplyAdagradV2(const Scope& scope, Input var, Input accum, Input lr,
                      Input epsilon, Input grad,
                      const ApplyAdagradAttrs& attrs = {});
Operation ResourceApplyAdagradV2(const Scope& scope, Input var, Input accum,
                                 Input lr, Input epsilon, Input grad,
                                 const ApplyAdagradAttrs& attrs = {});

// --- RMSProp:
//   ms = ms + (grad^2 - ms) * (1 - rho)
//   mom = mom * momentum + lr * grad / sqrt(ms + epsilon); var -= mom.
// Centered: also mg = mg + (grad - mg) * (1 - rho), and the denominator is
// sqrt(ms - mg^2 + epsilon). ---

using ApplyRMSPropAttrs = ApplyGradientDescentAttrs;  // use_locking

Output ApplyRMSProp(const Scope& scope, Input var, Input ms, Input mom,
                    Input lr, Input rho, Input momentum, Input epsilon,
                    Input grad, const ApplyRMSPropAttrs& attrs = {});
Operation ResourceApplyRMSProp(const Scope& scope, Input var, Input ms,
                               Input mom, Input lr, Input rho, Input momentum,
                               Input epsilon, Input grad,
                               const ApplyRMSPropAttrs& attrs = {});
Output ApplyCenteredRMSProp(const Scope& scope, Input var, Input mg, Input ms,
                            Input mom, Input lr, Input rho, Input momentum,
                            Input epsilon, Input grad,
                            const ApplyRMSPropAttrs& attrs = {});
Operation ResourceApplyCenteredRMSProp(const Scope& scope, Input var, Input mg,
                                       Input ms, Input mom, Input lr, Input rho,
                                       Input momentum, Input epsilon,
                                       Input grad,
                                       const ApplyRMSPropAttrs& attrs = {});

// --- The sparse forms: the same steps on the rows indices[i] of the
// variable and its slots, grad[i] being row indices[i]'s gradient (an
// index may repeat: its rows are updated one after the other). The sparse
// RMSProp step is TensorFlow's: ms = ms * rho + grad^2 * (1 - rho),
// mom = mom * momentum + lr * grad / sqrt(ms + epsilon). ---

Output SparseApplyAdagrad(const Scope& scope, Input var, Input accum, Input lr,
                          Input grad, Input indices,
                          const ApplyAdagradAttrs& attrs = {});
Operation ResourceSparseApplyAdagrad(const Scope& scope, Input var,
                                     Input accum, Input lr, Input grad,
                                     Input indices,
                                     const ApplyAdagradAttrs& attrs = {});
Output SparseApplyMomentum(const Scope& scope, Input var, Input accum,
                           Input lr, Input grad, Input indices, Input momentum,
                           const ApplyMomentumAttrs& attrs = {});
Operation ResourceSparseApplyMomentum(const Scope& scope, Input var,
                                      Input accum, Input lr, Input grad,
                                      Input indices, Input momentum,
                                      const ApplyMomentumAttrs& attrs = {});
// AdaMax (Adam with an infinity-norm second moment): m += (grad - m) *
// (1 - beta1); v = max(beta2 * v, |grad|); var -= lr / (1 - beta1_power) *
// m / (v + epsilon).
Output ApplyAdaMax(const Scope& scope, Input var, Input m, Input v,
                   Input beta1_power, Input lr, Input beta1, Input beta2,
                   Input epsilon, Input grad, bool use_locking = false);
Operation ResourceApplyAdaMax(const Scope& scope, Input var, Input m, Input v,
                              Input beta1_power, Input lr, Input beta1,
                              Input beta2, Input epsilon, Input grad,
                              bool use_locking = false);
// Adam with AMSGrad (resource variables only): as Adam, with vhat =
// max(vhat, v) in the denominator.
Operation ResourceApplyAdamWithAmsgrad(const Scope& scope, Input var, Input m,
                                       Input v, Input vhat, Input beta1_power,
                                       Input beta2_power, Input lr,
                                       Input beta1, Input beta2,
                                       Input epsilon, Input grad,
                                       bool use_locking = false);
// Keras's SGD with momentum (resource variables only): accum = accum *
// momentum - lr * grad; var += accum, or with use_nesterov var += accum *
// momentum - lr * grad. The sparse form steps the rows named by indices.
Operation ResourceApplyKerasMomentum(const Scope& scope, Input var,
                                     Input accum, Input lr, Input grad,
                                     Input momentum,
                                     const ApplyMomentumAttrs& attrs = {});
Operation ResourceSparseApplyKerasMomentum(
    const Scope& scope, Input var, Input accum, Input lr, Input grad,
    Input indices, Input momentum, const ApplyMomentumAttrs& attrs = {});
Output SparseApplyCenteredRMSProp(const Scope& scope, Input var, Input mg,
                                  Input ms, Input mom, Input lr, Input rho,
                                  Input momentum, Input epsilon, Input grad,
                                  Input indices,
                                  const ApplyRMSPropAttrs& attrs = {});
Operation ResourceSparseApplyCenteredRMSProp(
    const Scope& scope, Input var, Input mg, Input ms, Input mom, Input lr,
    Input rho, Input momentum, Input epsilon, Input grad, Input indices,
    const ApplyRMSPropAttrs& attrs = {});
Output SparseApplyRMSProp(const Scope& scope, Input var, Input ms, Input mom,
                          Input lr, Input rho, Input momentum, Input epsilon,
                          Input grad, Input indices,
                          const ApplyRMSPropAttrs& attrs = {});
Operation ResourceSparseApplyRMSProp(const Scope& scope, Input var, Input ms,
                                     Input mom, Input lr, Input rho,
                                     Input momentum, Input epsilon, Input grad,
                                     Input indices,
                                     const ApplyRMSPropAttrs& attrs = {});

// --- Adadelta, Ftrl (FtrlV2: with l2_shrinkage), ProximalAdagrad,
// ProximalGradientDescent and AdagradDA (global_step an int64 scalar), with
// TensorFlow's formulas; each in its four forms: Apply*, ResourceApply*,
// SparseApply*, ResourceSparseApply*. ---

struct ApplyRegularizedAttrs {
  bool use_locking = false;  // see ApplyGradientDescentAttrs
  // Ftrl and FtrlV2 only: `linear` holds lr times TensorFlow's usual value.
  bool multiply_linear_by_lr = false;
  ApplyRegularizedAttrs& UseLocking(bool v) {
    use_locking = v;
    return *this;
  }
  ApplyRegularizedAttrs& MultiplyLinearByLr(bool v) {
    multiply_linear_by_lr = v;
    return *this;
  }
};

Output ApplyAdadelta(const Scope& scope, Input var, Input accum,
                     Input accum_update, Input lr, Input rho, Input epsilon,
                     Input grad, const ApplyRegularizedAttrs& attrs = {});
Operation ResourceApplyAdadelta(const Scope& scope, Input var, Input accum,
                                Input accum_update, Input lr, Input rho,
                                Input epsilon, Input grad,
                                const ApplyRegularizedAttrs& attrs = {});
Output SparseApplyAdadelta(const Scope& scope, Input var, Input accum,
                           Input accum_update, Input lr, Input rho,
                           Input epsilon, Input grad, Input indices,
                           const ApplyRegularizedAttrs& attrs = {});
Operation ResourceSparseApplyAdadelta(const Scope& scope, Input var,
                                      Input accum, Input accum_update, Input lr,
                                      Input rho, Input epsilon, Input grad,
                                      Input indices,
                                      const ApplyRegularizedAttrs& attrs = {});
Output ApplyProximalAdagrad(const Scope& scope, Input var, Input accum,
                            Input lr, Input l1, Input l2, Input grad,
                            const ApplyRegularizedAttrs& attrs = {});
Operation ResourceApplyProximalAdagrad(const Scope& scope, Input var,
                                       Input accum, Input lr, Input l1,
                                       Input l2, Input grad,
                                       const ApplyRegularizedAttrs& attrs = {});
Output SparseApplyProximalAdagrad(const Scope& scope, Input var, Input accum,
                                  Input lr, Input l1, Input l2, Input grad,
                                  Input indices,
                                  const ApplyRegularizedAttrs& attrs = {});
Operation ResourceSparseApplyProximalAdagrad(
    const Scope& scope, Input var, Input accum, Input lr, Input l1, Input l2,
    Input grad, Input indices, const ApplyRegularizedAttrs& attrs = {});
Output ApplyProximalGradientDescent(const Scope& scope, Input var, Input alpha,
                                    Input l1, Input l2, Input delta,
                                    const ApplyRegularizedAttrs& attrs = {});
Operation ResourceApplyProximalGradientDescent(
    const Scope& scope, Input var, Input alpha, Input l1, Input l2, Input delta,
    const ApplyRegularizedAttrs& attrs = {});
Output SparseApplyProximalGradientDescent(
    const Scope& scope, Input var, Input alpha, Input l1, Input l2, Input grad,
    Input indices, const ApplyRegularizedAttrs& attrs = {});
Operation ResourceSparseApplyProximalGradientDescent(
    const Scope& scope, Input var, Input alpha, Input l1, Input l2, Input grad,
    Input indices, const ApplyRegularizedAttrs& attrs = {});
Output ApplyFtrl(const Scope& scope, Input var, Input accum, Input linear,
                 Input grad, Input lr, Input l1, Input l2, Input lr_power,
                 const ApplyRegularizedAttrs& attrs = {});
Operation ResourceApplyFtrl(const Scope& scope, Input var, Input accum,
                            Input linear, Input grad, Input lr, Input l1,
                            Input l2, Input lr_power,
                            const ApplyRegularizedAttrs& attrs = {});
Output SparseApplyFtrl(const Scope& scope, Input var, Input accum, Input linear,
                       Input grad, Input indices, Input lr, Input l1, Input l2,
                       Input lr_power, const ApplyRegularizedAttrs& attrs = {});
Operation ResourceSparseApplyFtrl(const Scope& scope, Input var, Input accum,
                                  Input linear, Input grad, Input indices,
                                  Input lr, Input l1, Input l2, Input lr_power,
                                  const ApplyRegularizedAttrs& attrs = {});
Output ApplyFtrlV2(const Scope& scope, Input var, Input accum, Input linear,
                   Input grad, Input lr, Input l1, Input l2, Input l2_shrinkage,
                   Input lr_power, const ApplyRegularizedAttrs& attrs = {});
Operation ResourceApplyFtrlV2(const Scope& scope, Input var, Input accum,
                              Input linear, Input grad, Input lr, Input l1,
                              Input l2, Input l2_shrinkage, Input lr_power,
                              const ApplyRegularizedAttrs& attrs = {});
Output SparseApplyFtrlV2(const Scope& scope, Input var, Input accum,
                         Input linear, Input grad, Input indices, Input lr,
                         Input l1, Input l2, Input l2_shrinkage, Input lr_power,
                         const ApplyRegularizedAttrs& attrs = {});
Operation ResourceSparseApplyFtrlV2(const Scope& scope, Input var, Input accum,
                                    Input linear, Input grad, Input indices,
                                    Input lr, Input l1, Input l2,
                                    Input l2_shrinkage, Input lr_power,
                                    const ApplyRegularizedAttrs& attrs = {});
Output ApplyAdagradDA(const Scope& scope, Input var, Input gradient_accumulator,
                      Input gradient_squared_accumulator, Input grad, Input lr,
                      Input l1, Input l2, Input global_step,
                      const ApplyRegularizedAttrs& attrs = {});
Operation ResourceApplyAdagradDA(const Scope& scope, Input var,
                                 Input gradient_accumulator,
                                 Input gradient_squared_accumulator, Input grad,
                                 Input lr, Input l1, Input l2,
                                 Input global_step,
                                 const ApplyRegularizedAttrs& attrs = {});
Output SparseApplyAdagradDA(const Scope& scope, Input var,
                            Input gradient_accumulator,
                            Input gradient_squared_accumulator, Input grad,
                            Input indices, Input lr, Input l1, Input l2,
                            Input global_step,
                            const ApplyRegularizedAttrs& attrs = {});
Operation ResourceSparseApplyAdagradDA(const Scope& scope, Input var,
                                       Input gradient_accumulator,
                                       Input gradient_squared_accumulator,
                                       Input grad, Input indices, Input lr,
                                       Input l1, Input l2, Input global_step,
                                       const ApplyRegularizedAttrs& attrs = {});

}  // namespace ops
}  // namespace dflow

#endif  // DFLOW_GRAPH_OPS_TRAINING_OPS_H_
