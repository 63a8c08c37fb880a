// Runs one node's kernel directly, without an executor: the unit-test harness
// for kernels. Build the node with the C++ API (inputs may be Placeholders),
// then hand the input values in order:
//
//   Scope root = Scope::NewRootScope();
//   auto x = ops::Placeholder(root, DT_FLOAT);
//   auto y = ops::Relu(root, x);
//   auto out = RunKernel(y.node(), {Tensor::FromVector<float>({-1, 2})});
//
// Reference and resource inputs take a Var* through `vars` (same index as
// the input; null elsewhere). MakeSession runs the whole graph of a scope
// instead, through a Session with default options.
#ifndef DFLOW_TESTS_KERNELS_KERNEL_TEST_UTIL_H_
#define DFLOW_TESTS_KERNELS_KERNEL_TEST_UTIL_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "graph/scope.h"
#include "graph/tensor.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"
#include "runtime/session.h"
#include "runtime/variables.h"

namespace dflow {

// The CPU device tests run kernels on.
Device* TestCpuDevice();

// Outputs of one computation; ref/resource outputs come back in `out_vars`
// when it is non-null. The inputs move into the kernel's input slots: an
// input the caller moved in (and holds nowhere else) is held by the slot
// alone, as the executor hands a value on its last use.
absl::StatusOr<std::vector<Tensor>> RunKernel(
    const Node* node, std::vector<Tensor> inputs,
    const std::vector<Var*>& vars = {}, VariableStore* store = nullptr,
    std::vector<Var*>* out_vars = nullptr);

// A session over `root`'s graph (default options), or null after a test
// failure saying why.
std::unique_ptr<Session> MakeSession(const Scope& root);

}  // namespace dflow

#endif  // DFLOW_TESTS_KERNELS_KERNEL_TEST_UTIL_H_
