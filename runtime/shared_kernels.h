// The kernels of the graphs one owner runs: every stateful node's kernel
// (a variable, a queue, a reader) is made once per node name and shared by
// every compiled graph of that owner, so two run signatures of a session,
// or two graphs a worker task registered, see one variable; other kernels
// (and the internal _Arg, _Retval, _Send, _Recv) belong to their graph.
#ifndef DFLOW_RUNTIME_SHARED_KERNELS_H_
#define DFLOW_RUNTIME_SHARED_KERNELS_H_

#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"

namespace dflow {

class SharedKernels {
 public:
  // The kernel for `node` on `device` (Executor::KernelProvider's
  // signature); thread-safe.
  absl::StatusOr<std::shared_ptr<OpKernel>> KernelFor(const Node& node,
                                                      Device* device);

 private:
  std::mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<OpKernel>> stateful_;
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_SHARED_KERNELS_H_
