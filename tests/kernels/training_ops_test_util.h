// Shared helpers for the optimizer-update op tests (training_ops_test.cc
// and training_ops_schema_test.cc): what each op takes, building a node of
// it, running its kernel as the executor would, a harness that owns its
// variables, default scalars and starting values, the update evaluated in
// double precision, and every op/mode combination.
#ifndef DFLOW_TESTS_KERNELS_TRAINING_OPS_TEST_UTIL_H_
#define DFLOW_TESTS_KERNELS_TRAINING_OPS_TEST_UTIL_H_

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/graph.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "gtest/gtest.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/session.h"
#include "runtime/variables.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_kernel_test_util.h"

namespace dflow {
namespace testing_training {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_math::AsDoubles;
using testing_math::CpuDeviceWithThreads;
using testing_math::ExpectAllNear;
using testing_math::FromDoubles;
using testing_math::RandomValues;

// --- Building and running the ops. ---

// What each optimizer's ops take, in input order: the variables first, then
// scalars and the gradient interleaved as TensorFlow declares them.
struct OpLayout {
  std::vector<std::string> vars;
  std::vector<int> scalar_inputs;
  int grad_input;
};

inline OpLayout LayoutOf(const std::string& op) {
  if (op == "ApplyGradientDescent") return {{"var"}, {1}, 2};
  if (op == "ApplyMomentum") return {{"var", "accum"}, {2, 4}, 3};
  return {{"var", "m", "v"}, {3, 4, 5, 6, 7, 8}, 9};
}

// A node of `op` (its reference form, or with `resource` its ResourceApply*
// form) named "train", over variables named after the op's variable inputs,
// with scalars and gradient from placeholders of unknown shape (so the
// kernel's own checks are what a bad value meets).
inline Node* BuildApply(const Scope& root, const std::string& op, DataType dtype,
                 bool resource, bool nesterov, const TensorShape& shape) {
  const OpLayout layout = LayoutOf(op);
  std::vector<Output> vars;
  for (const std::string& name : layout.vars) {
    vars.push_back(resource
                       ? ops::VarHandleOp(root.WithOpName(name), dtype, shape)
                       : ops::Variable(root.WithOpName(name), shape, dtype));
  }
  std::vector<Output> s;
  for (int i = 0; i < static_cast<int>(layout.scalar_inputs.size()); ++i) {
    s.push_back(ops::Placeholder(root.WithOpName(absl::StrCat("s", i)), dtype));
  }
  Output grad = ops::Placeholder(root.WithOpName("grad"), dtype);
  const Scope t = root.WithOpName("train");
  if (op == "ApplyGradientDescent") {
    return resource ? ops::ResourceApplyGradientDescent(t, vars[0], s[0], grad)
                          .node()
                    : ops::ApplyGradientDescent(t, vars[0], s[0], grad).node();
  }
  if (op == "ApplyMomentum") {
    const auto attrs = ops::ApplyMomentumAttrs().UseNesterov(nesterov);
    return resource ? ops::ResourceApplyMomentum(t, vars[0], vars[1], s[0],
                                                 grad, s[1], attrs)
                          .node()
                    : ops::ApplyMomentum(t, vars[0], vars[1], s[0], grad, s[1],
                                         attrs)
                          .node();
  }
  const auto attrs = ops::ApplyAdamAttrs().UseNesterov(nesterov);
  return resource
             ? ops::ResourceApplyAdam(t, vars[0], vars[1], vars[2], s[0], s[1],
                                      s[2], s[3], s[4], s[5], grad, attrs)
                   .node()
             : ops::ApplyAdam(t, vars[0], vars[1], vars[2], s[0], s[1], s[2],
                              s[3], s[4], s[5], grad, attrs)
                   .node();
}

// Runs `node`'s kernel on `device` with `vars` as its variable inputs, as
// the executor would; errors come back prefixed with the node, as the
// executor reports them.
inline absl::Status RunOnDevice(Device* device, const Node* node,
                         const std::vector<Tensor>& inputs,
                         const std::vector<Var*>& vars,
                         std::vector<Var*>* out_vars = nullptr) {
  if (node == nullptr) return absl::InvalidArgumentError("null node");
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      KernelRegistry::Global()->CreateKernel(*node, device);
  if (!kernel.ok()) return kernel.status();
  std::vector<TensorValue> values(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    values[i].tensor = inputs[i];
    if (i < vars.size()) values[i].var = vars[i];
  }
  VariableStore store;
  OpKernelContext::Params params;
  params.kernel = kernel->get();
  params.device = device;
  params.variables = &store;
  params.inputs = values.data();
  OpKernelContext ctx(params);
  (*kernel)->Compute(&ctx);
  if (!ctx.status().ok()) {
    return absl::Status(
        ctx.status().code(),
        absl::StrCat(NodeLabel(node->def()), ": ", ctx.status().message()));
  }
  if (out_vars != nullptr) {
    for (const TensorValue& v : *ctx.outputs()) out_vars->push_back(v.var);
  }
  return absl::OkStatus();
}

// One optimizer op with its variables: sets their values, runs steps, reads
// them back.
class ApplyHarness {
 public:
  ApplyHarness(const std::string& op, DataType dtype, bool resource,
               bool nesterov, const TensorShape& shape = TensorShape({2, 3}))
      : op_(op),
        dtype_(dtype),
        resource_(resource),
        shape_(shape),
        layout_(LayoutOf(op)),
        root_(Scope::NewRootScope()) {
    node_ = BuildApply(root_, op, dtype, resource, nesterov, shape);
    for (const std::string& name : layout_.vars) {
      absl::StatusOr<Var*> v = store_.LookupOrCreate(name, dtype, shape);
      EXPECT_TRUE(v.ok()) << v.status();
      vars_.push_back(v.ok() ? *v : nullptr);
    }
  }

  const Scope& root() const { return root_; }
  Node* node() const { return node_; }
  Var* var(int k) const { return vars_[k]; }
  int num_vars() const { return static_cast<int>(vars_.size()); }

  void Set(int k, const std::vector<double>& values) {
    Set(k, FromDoubles(dtype_, values, shape_));
  }
  void Set(int k, Tensor value) {
    std::lock_guard<std::mutex> lock(vars_[k]->mu());
    *vars_[k]->value() = std::move(value);
  }
  std::vector<double> Get(int k) const { return AsDoubles(vars_[k]->Read()); }

  // One step with `scalars` (in input order) and `grad`, on `device` (the
  // shared test device when null).
  absl::Status Step(const std::vector<Tensor>& scalars, const Tensor& grad,
                    Device* device = nullptr,
                    std::vector<Var*>* out_vars = nullptr) const {
    const int n = num_vars() + static_cast<int>(scalars.size()) + 1;
    std::vector<Tensor> inputs(n);
    std::vector<Var*> vars(vars_.begin(), vars_.end());
    vars.resize(n, nullptr);
    for (size_t i = 0; i < scalars.size(); ++i) {
      inputs[layout_.scalar_inputs[i]] = scalars[i];
    }
    inputs[layout_.grad_input] = grad;
    return RunOnDevice(device != nullptr ? device : TestCpuDevice(), node_,
                       inputs, vars, out_vars);
  }
  absl::Status Step(const std::vector<double>& scalars,
                    const std::vector<double>& grad, Device* device = nullptr,
                    std::vector<Var*>* out_vars = nullptr) const {
    std::vector<Tensor> s;
    for (double x : scalars) s.push_back(FromDoubles(dtype_, {x}, {}));
    return Step(s, FromDoubles(dtype_, grad, shape_), device, out_vars);
  }

 private:
  std::string op_;
  DataType dtype_;
  bool resource_;
  TensorShape shape_;
  OpLayout layout_;
  Scope root_;
  Node* node_ = nullptr;
  VariableStore store_;
  std::vector<Var*> vars_;
};

// The standard scalars of each op for tests that are not about them.
inline std::vector<double> DefaultScalars(const std::string& op) {
  if (op == "ApplyGradientDescent") return {0.1};
  if (op == "ApplyMomentum") return {0.1, 0.9};
  return {0.9, 0.999, 0.01, 0.9, 0.999, 1e-7};  // step 1 of Adam
}

// Starting values for the variable and its slots (a second moment is never
// negative).
inline std::vector<std::vector<double>> Initial(const std::string& op, int64_t n,
                                         uint32_t seed) {
  std::vector<std::vector<double>> out;
  const int slots = static_cast<int>(LayoutOf(op).vars.size());
  for (int k = 0; k < slots; ++k) {
    const bool second_moment = op == "ApplyAdam" && k == 2;
    out.push_back(RandomValues(n, seed + k, second_moment ? 0.0 : -1.0, 1.0));
  }
  return out;
}

// The update evaluated in double precision, element by element (`state` is
// var then slots; `s` the scalars in input order).
inline void ReferenceStepInDouble(const std::string& op, bool nesterov,
                           const std::vector<double>& s,
                           const std::vector<double>& g,
                           std::vector<std::vector<double>>* state) {
  std::vector<double>& var = (*state)[0];
  for (size_t i = 0; i < var.size(); ++i) {
    if (op == "ApplyGradientDescent") {
      var[i] -= s[0] * g[i];
    } else if (op == "ApplyMomentum") {
      double& a = (*state)[1][i];
      a = a * s[1] + g[i];
      var[i] -= nesterov ? s[0] * g[i] + s[0] * s[1] * a : s[0] * a;
    } else {
      const double lr_t = s[2] * std::sqrt(1 - s[1]) / (1 - s[0]);
      double& m = (*state)[1][i];
      double& v = (*state)[2][i];
      m += (g[i] - m) * (1 - s[3]);
      v += (g[i] * g[i] - v) * (1 - s[4]);
      const double num = nesterov ? m * s[3] + (1 - s[3]) * g[i] : m;
      var[i] -= lr_t * num / (std::sqrt(v) + s[5]);
    }
  }
}

struct OpMode {
  std::string op;
  bool nesterov;
};
inline const std::vector<OpMode>& AllModes() {
  static const auto* const kModes = new std::vector<OpMode>{
      {"ApplyGradientDescent", false},
      {"ApplyMomentum", false},
      {"ApplyMomentum", true},
      {"ApplyAdam", false},
      {"ApplyAdam", true},
  };
  return *kModes;
}

inline std::string ModeName(const OpMode& m, DataType dtype, bool resource) {
  return absl::StrCat(resource ? "Resource" : "", m.op,
                      m.nesterov ? " (nesterov) " : " ", DataTypeName(dtype));
}

}  // namespace testing_training
}  // namespace dflow

#endif  // DFLOW_TESTS_KERNELS_TRAINING_OPS_TEST_UTIL_H_
