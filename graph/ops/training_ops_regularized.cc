// Builder wrappers of the regularized optimizers' update ops (Adadelta,
// ProximalAdagrad, ProximalGradientDescent, Ftrl, FtrlV2, AdagradDA in
// their Apply, ResourceApply, SparseApply and ResourceSparseApply forms);
// their schemas and shape functions are in training_ops.cc with the other
// optimizers'. Part of the training_ops family (graph/ops/training_ops.h).
#include <initializer_list>

#include "absl/strings/match.h"
#include "graph/ops/shape_fn_util.h"
#include "graph/ops/training_ops.h"

namespace dflow {
namespace ops {

using shape_fn_util::FirstOutput;

namespace {

// An optimizer node with `inputs` in order (multiply_linear_by_lr only
// where the op has it: the Ftrl ones).
Operation BuildRegularized(const Scope& scope, const char* op,
                           std::initializer_list<Input> inputs,
                           const ApplyRegularizedAttrs& attrs) {
  OpBuilder b(scope, op);
  for (const Input& in : inputs) b.Input(in);
  b.Attr("use_locking", attrs.use_locking);
  if (absl::StrContains(op, "Ftrl")) {
    b.Attr("multiply_linear_by_lr", attrs.multiply_linear_by_lr);
  }
  return b.Finalize();
}

}  // namespace

Output ApplyAdadelta(const Scope& scope, Input var, Input accum,
                     Input accum_update, Input lr, Input rho, Input epsilon,
                     Input grad, const ApplyRegularizedAttrs& attrs) {
  return FirstOutput(BuildRegularized(
      scope, "ApplyAdadelta",
      {var, accum, accum_update, lr, rho, epsilon, grad}, attrs));
}
Operation ResourceApplyAdadelta(const Scope& scope, Input var, Input accum,
                                Input accum_update, Input lr, Input rho,
                                Input epsilon, Input grad,
                                const ApplyRegularizedAttrs& attrs) {
  return BuildRegularized(scope, "ResourceApplyAdadelta",
                          {var, accum, accum_update, lr, rho, epsilon, grad},
                          attrs);
}
Output SparseApplyAdadelta(const Scope& scope, Input var, Input accum,
                           Input accum_update, Input lr, Input rho,
                           Input epsilon, Input grad, Input indices,
                           const ApplyRegularizedAttrs& attrs) {
  return FirstOutput(BuildRegularized(
      scope, "SparseApplyAdadelta",
      {var, accum, accum_update, lr, rho, epsilon, grad, indices}, attrs));
}
Operation ResourceSparseApplyAdadelta(const Scope& scope, Input var,
                                      Input accum, Input accum_update, Input lr,
                                      Input rho, Input epsilon, Input grad,
                                      Input indices,
                                      const ApplyRegularizedAttrs& attrs) {
  return BuildRegularized(
      scope, "ResourceSparseApplyAdadelta",
      {var, accum, accum_update, lr, rho, epsilon, grad, indices}, attrs);
}
Output ApplyProximalAdagrad(const Scope& scope, Input var, Input accum,
                            Input lr, Input l1, Input l2, Input grad,
                            const ApplyRegularizedAttrs& attrs) {
  return FirstOutput(BuildRegularized(scope, "ApplyProximalAdagrad",
                                      {var, accum, lr, l1, l2, grad}, attrs));
}
Operation ResourceApplyProximalAdagrad(const Scope& scope, Input var,
                                       Input accum, Input lr, Input l1,
                                       Input l2, Input grad,
                                       const ApplyRegularizedAttrs& attrs) {
  return BuildRegularized(scope, "ResourceApplyProximalAdagrad",
                          {var, accum, lr, l1, l2, grad}, attrs);
}
Output SparseApplyProximalAdagrad(const Scope& scope, Input var, Input accum,
                                  Input lr, Input l1, Input l2, Input grad,
                                  Input indices,
                                  const ApplyRegularizedAttrs& attrs) {
  return FirstOutput(BuildRegularized(scope, "SparseApplyProximalAdagrad",
                                      {var, accum, lr, l1, l2, grad, indices},
                                      attrs));
}
Operation ResourceSparseApplyProximalAdagrad(
    const Scope& scope, Input var, Input accum, Input lr, Input l1, Input l2,
    Input grad, Input indices, const ApplyRegularizedAttrs& attrs) {
  return BuildRegularized(scope, "ResourceSparseApplyProximalAdagrad",
                          {var, accum, lr, l1, l2, grad, indices}, attrs);
}
Output ApplyProximalGradientDescent(const Scope& scope, Input var, Input alpha,
                                    Input l1, Input l2, Input delta,
                                    const ApplyRegularizedAttrs& attrs) {
  return FirstOutput(BuildRegularized(scope, "ApplyProximalGradientDescent",
                                      {var, alpha, l1, l2, delta}, attrs));
}
Operation ResourceApplyProximalGradientDescent(
    const Scope& scope, Input var, Input alpha, Input l1, Input l2, Input delta,
    const ApplyRegularizedAttrs& attrs) {
  return BuildRegularized(scope, "ResourceApplyProximalGradientDescent",
                          {var, alpha, l1, l2, delta}, attrs);
}
Output SparseApplyProximalGradientDescent(const Scope& scope, Input var,
                                          Input alpha, Input l1, Input l2,
                                          Input grad, Input indices,
                                          const ApplyRegularizedAttrs& attrs) {
  return FirstOutput(
      BuildRegularized(scope, "SparseApplyProximalGradientDescent",
                       {var, alpha, l1, l2, grad, indices}, attrs));
}
Operation ResourceSparseApplyProximalGradientDescent(
    const Scope& scope, Input var, Input alpha, Input l1, Input l2, Input grad,
    Input indices, const ApplyRegularizedAttrs& attrs) {
  return BuildRegularized(scope, "ResourceSparseApplyProximalGradientDescent",
                          {var, alpha, l1, l2, grad, indices}, attrs);
}
Output ApplyFtrl(const Scope& scope, Input var, Input accum, Input linear,
                 Input grad, Input lr, Input l1, Input l2, Input lr_power,
                 const ApplyRegularizedAttrs& attrs) {
  return FirstOutput(BuildRegularized(
      scope, "ApplyFtrl", {var, accum, linear, grad, lr, l1, l2, lr_power},
      attrs));
}
Operation ResourceApplyFtrl(const Scope& scope, Input var, Input accum,
                            Input linear, Input grad, Input lr, Input l1,
                            Input l2, Input lr_power,
                            const ApplyRegularizedAttrs& attrs) {
  return BuildRegularized(scope, "ResourceApplyFtrl",
                          {var, accum, linear, grad, lr, l1, l2, lr_power},
                          attrs);
}
Output SparseApplyFtrl(const Scope& scope, Input var, Input accum, Input linear,
                       Input grad, Input indices, Input lr, Input l1, Input l2,
                       Input lr_power, const ApplyRegularizedAttrs& attrs) {
  return FirstOutput(BuildRegularized(
      scope, "SparseApplyFtrl",
      {var, accum, linear, grad, indices, lr, l1, l2, lr_power}, attrs));
}
Operation ResourceSparseApplyFtrl(const Scope& scope, Input var, Input accum,
                                  Input linear, Input grad, Input indices,
                                  Input lr, Input l1, Input l2, Input lr_power,
                                  const ApplyRegularizedAttrs& attrs) {
  return BuildRegularized(
      scope, "ResourceSparseApplyFtrl",
      {var, accum, linear, grad, indices, lr, l1, l2, lr_power}, attrs);
}
Output ApplyFtrlV2(const Scope& scope, Input var, Input accum, Input linear,
                   Input grad, Input lr, Input l1, Input l2, Input l2_shrinkage,
                   Input lr_power, const ApplyRegularizedAttrs& attrs) {
  return FirstOutput(BuildRegularized(
      scope, "ApplyFtrlV2",
      {var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power}, attrs));
}
Operation ResourceApplyFtrlV2(const Scope& scope, Input var, Input accum,
                              Input linear, Input grad, Input lr, Input l1,
                              Input l2, Input l2_shrinkage, Input lr_power,
                              const ApplyRegularizedAttrs& attrs) {
  return BuildRegularized(
      scope, "ResourceApplyFtrlV2",
      {var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power}, attrs);
}
Output SparseApplyFtrlV2(const Scope& scope, Input var, Input accum,
                         Input linear, Input grad, Input indices, Input lr,
                         Input l1, Input l2, Input l2_shrinkage, Input lr_power,
                         const ApplyRegularizedAttrs& attrs) {
  return FirstOutput(BuildRegularized(
      scope, "SparseApplyFtrlV2",
      {var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power},
      attrs));
}
Operation ResourceSparseApplyFtrlV2(const Scope& scope, Input var, Input accum,
                                    Input linear, Input grad, Input indices,
                                    Input lr, Input l1, Input l2,
                                    Input l2_shrinkage, Input lr_power,
                                    const ApplyRegularizedAttrs& attrs) {
  return BuildRegularized(
      scope, "ResourceSparseApplyFtrlV2",
      {var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power},
      attrs);
}
Output ApplyAdagradDA(const Scope& scope, Input var, Input gradient_accumulator,
                      Input gradient_squared_accumulator, Input grad, Input lr,
                      Input l1, Input l2, Input global_step,
                      const ApplyRegularizedAttrs& attrs) {
  return FirstOutput(
      BuildRegularized(scope, "ApplyAdagradDA",
                       {var, gradient_accumulator, gradient_squared_accumulator,
                        grad, lr, l1, l2, global_step},
                       attrs));
}
Operation ResourceApplyAdagradDA(const Scope& scope, Input var,
                                 Input gradient_accumulator,
                                 Input gradient_squared_accumulator, Input grad,
                                 Input lr, Input l1, Input l2,
                                 Input global_step,
                                 const ApplyRegularizedAttrs& attrs) {
  return BuildRegularized(
      scope, "ResourceApplyAdagradDA",
      {var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1,
       l2, global_step},
      attrs);
}
Output SparseApplyAdagradDA(const Scope& scope, Input var,
                            Input gradient_accumulator,
                            Input gradient_squared_accumulator, Input grad,
                            Input indices, Input lr, Input l1, Input l2,
                            Input global_step,
                            const ApplyRegularizedAttrs& attrs) {
  return FirstOutput(
      BuildRegularized(scope, "SparseApplyAdagradDA",
                       {var, gradient_accumulator, gradient_squared_accumulator,
                        grad, indices, lr, l1, l2, global_step},
                       attrs));
}
Operation ResourceSparseApplyAdagradDA(const Scope& scope, Input var,
                                       Input gradient_accumulator,
                                       Input gradient_squared_accumulator,
                                       Input grad, Input indices, Input lr,
                                       Input l1, Input l2, Input global_step,
                                       const ApplyRegularizedAttrs& attrs) {
  return BuildRegularized(
      scope, "ResourceSparseApplyAdagradDA",
      {var, gradient_accumulator, gradient_squared_accumulator, grad, indices,
       lr, l1, l2, global_step},
      attrs);
}

}  // namespace ops
}  // namespace dflow
