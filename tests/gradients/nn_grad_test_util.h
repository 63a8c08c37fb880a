// The shared inputs and checks of nn_grad_test and conv_grad_test:
// deterministic values, placeholders, the finite-difference check and the
// op types a gradient builds.
#ifndef DFLOW_TESTS_GRADIENTS_NN_GRAD_TEST_UTIL_H_
#define DFLOW_TESTS_GRADIENTS_NN_GRAD_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/ops/ops.h"
#include "gtest/gtest.h"
#include "tests/gradients/gradient_checker.h"

namespace dflow {
namespace nn_grad_test {

constexpr int64_t kAny = TensorShape::kUnknownDim;

// Deterministic values in [-1, -0.1] and [0.1, 1]: away from Relu's kink,
// varied enough that no two neighbours are equal.
inline std::vector<double> Values(int64_t n, int seed) {
  std::vector<double> v(n);
  uint32_t state = 2654435761u * static_cast<uint32_t>(seed + 1);
  for (int64_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    const double u = (state >> 8) / static_cast<double>(1 << 24);  // [0, 1)
    v[i] = (i % 2 ? -1 : 1) * (0.1 + 0.9 * u);
  }
  return v;
}

inline Tensor Make(DataType dtype, const std::vector<double>& v,
            const TensorShape& shape) {
  if (dtype == DT_DOUBLE) return Tensor::FromVector<double>(v, shape);
  return Tensor::FromVector<float>(std::vector<float>(v.begin(), v.end()),
                                   shape);
}

inline Tensor Random(const TensorShape& shape, int seed, DataType dtype = DT_DOUBLE) {
  return Make(dtype, Values(shape.num_elements(), seed), shape);
}

// Distinct values (a scrambled ramp 0.1 apart), so max pooling has no ties.
inline Tensor Distinct(const TensorShape& shape) {
  const int64_t n = shape.num_elements();
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = 0.1 * ((i * 7919) % n) - 0.05 * n;
  return Tensor::FromVector<double>(v, shape);
}

inline Output Feed(const Scope& root, const TensorShape& shape,
            DataType dtype = DT_DOUBLE) {
  return ops::Placeholder(root, dtype, ops::PlaceholderAttrs().Shape(shape));
}

// The check itself: max |symbolic - numeric| below `tolerance`.
inline void ExpectGradients(const Scope& root, const std::vector<Output>& xs,
                     const std::vector<Tensor>& values,
                     const std::vector<Output>& ys, double tolerance,
                     const std::string& what) {
  ASSERT_TRUE(root.ok()) << what << ": " << root.status();
  auto result = CheckGradients(root, xs, values, ys);
  ASSERT_TRUE(result.ok()) << what << ": " << result.status();
  EXPECT_LT(result->max_error, tolerance)
      << what << ": worst " << result->worst_entry;
  // A gradient that is zero everywhere would pass trivially.
  EXPECT_GT(result->max_numeric, 0) << what;
}

inline constexpr double kDoubleTol = 1e-6;

// The ops the gradient builds under gradients/: their op types, in graph
// order.
inline std::vector<std::string> GradientOpTypes(const Scope& root) {
  std::vector<std::string> types;
  for (Node* n : root.graph()->nodes()) {
    if (n->name().rfind("gradients/", 0) == 0) types.push_back(n->op());
  }
  return types;
}

inline int CountOps(const std::vector<std::string>& types, const std::string& op) {
  return static_cast<int>(std::count(types.begin(), types.end(), op));
}

}  // namespace nn_grad_test
}  // namespace dflow

#endif  // DFLOW_TESTS_GRADIENTS_NN_GRAD_TEST_UTIL_H_
