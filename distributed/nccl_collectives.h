// Collectives across a cluster's tasks between GPUs, on NCCL: the part of a
// `dflow worker`'s cross-process collectives (gloo_collectives.h hands it
// the groups whose members compute in GPU memory).
//
// A group's NCCL ranks are its member devices in rank order across the
// tasks (`_group_devices`, written by the master): one rank per GPU, every
// task making its own ranks. The task holding rank 0 makes the unique id
// (ncclGetUniqueId) and sets it in the key-value store of the group's first
// task, under a prefix naming the master's session and the group; the
// other tasks read it from there (waiting up to the deadline). The store is
// the one Gloo's groups meet in (grpc_store.h): the master names it when it
// writes the group's devices, so the id goes through the master's session
// but not through the client process itself (which may have no GPU and is
// not a rank).
//
// Each task then starts its ranks without waiting for the others (NCCL's
// non-blocking init) and polls them until they are ready or the deadline
// (the members' timeout, else kDefaultTimeout) passes: a task that never
// comes, or an init that fails, ends in ncclCommAbort and an error naming
// the group's tasks, never a hang. A ready communicator is kept per group
// and reused by later instances; one whose collective failed is aborted and
// forgotten (the next session makes a new one).
//
// A broadcast's sender may be on another task: the task holding it sets
// the sender's rank in the store per step and instance; the others read it.
//
// Reduction order: NCCL's (ring or tree, its choice), not the
// single-process ring's: float sums may differ from one process's in the
// last bits. All-gather and broadcast move values: exact.
//
// The NCCL calls go through CrossProcessNccl (runtime/cross_process_nccl.h)
// so that this logic is tested against a fake engine: NCCL across processes
// needs one GPU per rank, which no lent machine has.
#ifndef DFLOW_DISTRIBUTED_NCCL_COLLECTIVES_H_
#define DFLOW_DISTRIBUTED_NCCL_COLLECTIVES_H_

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gloo/rendezvous/store.h"
#include "runtime/collective_executor.h"
#include "runtime/cross_process_nccl.h"

namespace dflow {

class NcclCollectives {
 public:
  // How long a group's init, a store read and a collective wait when the
  // members give no timeout.
  static constexpr absl::Duration kDefaultTimeout = absl::Seconds(60);

  // The store of task `leader` (a group's first task), its keys under
  // `prefix`, each read waiting up to `timeout`. Its calls throw
  // std::runtime_error on failure, as Gloo's stores do.
  using StoreFor =
      std::function<absl::StatusOr<std::unique_ptr<gloo::rendezvous::Store>>(
          const std::string& leader, const std::string& prefix,
          std::chrono::milliseconds timeout)>;

  // `task_name`: this task; `engine`: NCCL (null: GPU members across
  // processes are refused, naming what to link).
  NcclCollectives(std::string task_name, CrossProcessNccl* engine,
                  StoreFor store_for);
  ~NcclCollectives();

  // Runs one instance of this task's `members` (rank order, agreeing, in
  // GPU memory) with the other tasks'; blocks the calling thread (an
  // instance's own) until the local outputs are written or it failed.
  absl::Status RunInstance(std::vector<CollectiveRequest>* members);

  // Groups with a ready communicator (for tests).
  int ready_groups() const;

 private:
  // The group across tasks: every device's rank, the tasks in rank order.
  struct Layout {
    std::vector<std::string> devices;  // rank order
    std::vector<std::string> tasks;    // rank order of their first device
    std::vector<int> local_ranks;      // of the members given, in order
  };
  struct Group {
    std::mutex mu;  // held by the instance running on the group
    std::unique_ptr<CrossProcessNccl::Ranks> ranks;  // mu; null until ready
  };

  absl::StatusOr<Layout> LayoutOf(
      const std::vector<CollectiveRequest>& members) const;
  // The group named `key`, made empty on first use.
  std::shared_ptr<Group> GroupFor(const std::string& key);
  // Makes `group`'s ranks (group->mu held): the unique id through `store`,
  // the non-blocking init polled until ready or `limit` passed (then
  // aborted).
  absl::Status MakeRanks(Group* group,
                         const std::vector<CollectiveRequest>& members,
                         const Layout& layout, gloo::rendezvous::Store* store,
                         absl::Duration limit);
  // The broadcast sender's rank (from the store when it is elsewhere).
  absl::StatusOr<int> SourceRank(const std::vector<CollectiveRequest>& members,
                                 const Layout& layout,
                                 gloo::rendezvous::Store* store);
  void Forget(const std::string& key);
  std::string Where(const Layout& layout) const;

  const std::string task_name_;
  CrossProcessNccl* const engine_;
  const StoreFor store_for_;

  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Group>> groups_;  // mu_
};

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_NCCL_COLLECTIVES_H_
