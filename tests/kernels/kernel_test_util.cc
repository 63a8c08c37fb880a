#include "tests/kernels/kernel_test_util.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"
#include "gtest/gtest.h"
#include "runtime/kernel_registry.h"

namespace dflow {

Device* TestCpuDevice() {
  static DeviceSet* devices = DeviceSet::LocalCpu().release();
  return devices->cpu();
}

absl::StatusOr<std::vector<Tensor>> RunKernel(const Node* node,
                                              std::vector<Tensor> inputs,
                                              const std::vector<Var*>& vars,
                                              VariableStore* store,
                                              std::vector<Var*>* out_vars) {
  if (node == nullptr) {
    return absl::InvalidArgumentError(
        "RunKernel: null node (did building fail?)");
  }
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      KernelRegistry::Global()->CreateKernel(*node, TestCpuDevice());
  if (!kernel.ok()) return kernel.status();
  if (static_cast<int>(inputs.size()) != (*kernel)->num_inputs()) {
    return absl::InvalidArgumentError(
        absl::StrCat("RunKernel: ", NodeLabel(node->def()), " takes ",
                     (*kernel)->num_inputs(), " inputs, got ", inputs.size()));
  }
  std::vector<TensorValue> values(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    values[i].tensor = std::move(inputs[i]);
    if (i < vars.size()) values[i].var = vars[i];
  }
  VariableStore default_store;
  OpKernelContext::Params params;
  params.kernel = kernel->get();
  params.device = TestCpuDevice();
  params.variables = store != nullptr ? store : &default_store;
  params.inputs = values.data();
  OpKernelContext ctx(params);
  (*kernel)->Compute(&ctx);
  if (!ctx.status().ok()) {
    return absl::Status(
        ctx.status().code(),
        absl::StrCat(NodeLabel(node->def()), ": ", ctx.status().message()));
  }
  std::vector<Tensor> out;
  for (TensorValue& v : *ctx.outputs()) {
    out.push_back(v.tensor);
    if (out_vars != nullptr) out_vars->push_back(v.var);
  }
  return out;
}

std::unique_ptr<Session> MakeSession(const Scope& root) {
  GraphDef def;
  absl::Status s = root.ToGraphDef(&def);
  EXPECT_TRUE(s.ok()) << s;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(def);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

}  // namespace dflow
