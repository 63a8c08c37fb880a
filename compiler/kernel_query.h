// KernelQuery: what the placer needs to know about kernels, without linking
// them.
//
// The compiler sits below the runtime and the kernels (see DESIGN.md), so it
// asks this interface; the runtime implements it over its KernelRegistry
// (kernel definitions are metadata, linked in every build), and tests fake it.
#ifndef DFLOW_COMPILER_KERNEL_QUERY_H_
#define DFLOW_COMPILER_KERNEL_QUERY_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "graph/graph.h"

namespace dflow {

class KernelQuery {
 public:
  virtual ~KernelQuery() = default;

  // Device types ("CPU", "GPU", ...) that have a kernel for `node`, taking
  // its type attrs into account. Any order; empty when there is none.
  virtual std::vector<std::string> SupportedDeviceTypes(
      const Node& node) const = 0;

  // Names of the input and output arguments of `node` (as in its OpDef:
  // "shape", "output") that its kernel on `device_type` keeps in host memory.
  // Empty when none are, or when there is no such kernel.
  virtual std::vector<std::string> HostMemoryArgs(
      const Node& node, absl::string_view device_type) const = 0;

  // For errors about a node SupportedDeviceTypes finds no kernel for: the
  // op's kernels and the dtypes they take, next to the node's, e.g.
  // "its kernels: ResourceConditionalAccumulator on CPU with dtype in
  // {float, double}; this node has dtype half". Empty when the op has no
  // kernel at all, or the query cannot say.
  virtual std::string DescribeKernels(const Node& node) const {
    (void)node;
    return "";
  }
};

}  // namespace dflow

#endif  // DFLOW_COMPILER_KERNEL_QUERY_H_
