// Who runs a collective group whose members live in several processes (the
// tasks of a cluster, distributed/).
//
// In a cluster the master writes every member's device into the
// collective nodes (`_group_devices`, rank order) and names its session
// (`_group_session`). A task's CollectiveExecutor then waits only for the
// members on its own devices; once they are all there it hands them, in
// rank order, to the engine set on it (CollectiveExecutor::
// SetCrossProcess), which exchanges data with the other tasks' engines and
// writes every local member's output. The engine of `dflow worker` is Gloo
// over TCP (distributed/gloo_collectives.h). The single-process runtime
// never sets one: a group with members elsewhere fails at once there,
// naming them.
#ifndef DFLOW_RUNTIME_CROSS_PROCESS_COLLECTIVES_H_
#define DFLOW_RUNTIME_CROSS_PROCESS_COLLECTIVES_H_

#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "runtime/collective_executor.h"

namespace dflow {

class CrossProcessCollectives {
 public:
  virtual ~CrossProcessCollectives() = default;

  // Runs one instance: `local_members` are this process's members, in rank
  // order, agreeing on everything the executor checks (op, reduction,
  // dtype, shape, group_devices). Must not block the caller: calls `done`
  // exactly once, on any thread, when every local output is written, or
  // with what failed. `local_members` stay valid until then.
  virtual void Run(std::vector<CollectiveRequest>* local_members,
                   std::function<void(const absl::Status&)> done) = 0;
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_CROSS_PROCESS_COLLECTIVES_H_
