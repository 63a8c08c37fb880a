// NCCL across processes: what the cluster's collectives
// (distributed/nccl_collectives.h) need from NCCL, behind an interface, so
// that their logic (handing out the unique id, the non-blocking init with a
// deadline, aborting on failure) runs against a fake engine in tests: a
// lent GPU machine has one GPU, so NCCL across processes cannot run on one.
//
// The engine a `dflow worker` uses is registered by
// runtime/gpu/cross_process_nccl_gpu.cc (alwayslink) when it is linked;
// LinkedCrossProcessNccl() is null otherwise, and GPU members across
// processes are refused with an error saying so.
#ifndef DFLOW_RUNTIME_CROSS_PROCESS_NCCL_H_
#define DFLOW_RUNTIME_CROSS_PROCESS_NCCL_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "runtime/collective_executor.h"

namespace dflow {

class CrossProcessNccl {
 public:
  // This process's ranks of one communicator, being made or made.
  class Ranks {
   public:
    virtual ~Ranks() = default;
  };

  virtual ~CrossProcessNccl() = default;

  // For messages: "NCCL 2.28.9".
  virtual std::string Name() const = 0;

  // A new unique id (ncclGetUniqueId's bytes): the process holding rank 0
  // makes it, the others receive it.
  virtual absl::StatusOr<std::string> NewUniqueId() = 0;

  // Starts this process's ranks of the communicator of `group_size` ranks
  // named by `unique_id`: members[i] (its device) is rank ranks[i]. Returns
  // at once (NCCL's non-blocking init): the other processes need not have
  // started theirs.
  virtual absl::StatusOr<std::unique_ptr<Ranks>> StartRanks(
      const std::string& unique_id, int group_size,
      const std::vector<int>& ranks,
      const std::vector<const CollectiveRequest*>& members) = 0;

  // OK once every rank of `ranks` is ready; Unavailable while the init is
  // still in progress; another error when it failed.
  virtual absl::Status Poll(Ranks* ranks) = 0;

  // Ends `ranks` at once, whatever their state (ncclCommAbort): after a
  // failed or late init, or a failed collective.
  virtual void Abort(Ranks* ranks) = 0;

  // Runs one collective on ready `ranks`: members[i] is rank ranks[i] of
  // `group_size`; `source` is the broadcast sender's rank (-1 otherwise).
  // Returns once the work is enqueued, without waiting for the other
  // processes to do theirs (giving up at `deadline` if enqueueing itself
  // waits on them), and calls `done` once, when every local output is
  // written or with what failed (after Abort, too).
  virtual void Run(Ranks* ranks, std::vector<CollectiveRequest>* members,
                   const std::vector<int>& rank_of_member, int group_size,
                   int source, absl::Time deadline,
                   std::function<void(absl::Status)> done) = 0;
};

// The engine linked into this binary, or null.
CrossProcessNccl* LinkedCrossProcessNccl();

// Makes `engine` the linked one (once per process; a second call is
// refused with AlreadyExists).
absl::Status RegisterCrossProcessNccl(std::unique_ptr<CrossProcessNccl> engine);

}  // namespace dflow

#endif  // DFLOW_RUNTIME_CROSS_PROCESS_NCCL_H_
