// Numeric gradient checking: compares the Jacobian that
// AddSymbolicGradients' ops compute with central finite differences.
//
//   Scope root = Scope::NewRootScope();
//   Output x = ops::Placeholder(root, DT_DOUBLE);
//   Output y = ops::Tanh(root, x);
//   auto error = ComputeGradientError(root, {x}, {x_value}, {y});
//   EXPECT_LT(*error, 1e-8);
//
// The xs must be Placeholders (their values are fed). Both Jacobians are
// built in float64 whatever the ops' dtype: the symbolic one row by row
// (feeding a one-hot grad_y for each element of each y), the numeric one
// column by column ((y(x + d) - y(x - d)) / 2d for each element of each x).
// float and double tensors are supported.
#ifndef DFLOW_TESTS_GRADIENTS_GRADIENT_CHECKER_H_
#define DFLOW_TESTS_GRADIENTS_GRADIENT_CHECKER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/scope.h"
#include "graph/tensor.h"

namespace dflow {

struct GradientCheckOptions {
  // Finite-difference step; 0 picks 1e-3 for float and 1e-6 for double.
  double delta = 0;
  // Passed to AddSymbolicGradients.
  bool colocate_gradients_with_ops = false;
};

struct GradientCheckResult {
  // max |symbolic - numeric| over every Jacobian entry.
  double max_error = 0;
  // Where it is, e.g. "d y[0][3] / d x[1][5]: symbolic 0.25 numeric 0.2501".
  std::string worst_entry;
  // The largest |numeric| entry (to judge max_error against).
  double max_numeric = 0;
};

absl::StatusOr<GradientCheckResult> CheckGradients(
    const Scope& scope, const std::vector<Output>& xs,
    const std::vector<Tensor>& x_values, const std::vector<Output>& ys,
    const GradientCheckOptions& options = {});

// CheckGradients(...).max_error.
absl::StatusOr<double> ComputeGradientError(
    const Scope& scope, const std::vector<Output>& xs,
    const std::vector<Tensor>& x_values, const std::vector<Output>& ys,
    const GradientCheckOptions& options = {});

}  // namespace dflow

#endif  // DFLOW_TESTS_GRADIENTS_GRADIENT_CHECKER_H_
