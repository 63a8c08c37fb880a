// The collective executor: where the members of a collective meet.
//
// One per session, shared by all its devices. The kernel of each member
// submits a CollectiveRequest (its keys, its device, its input, its
// preallocated output, a callback) and returns at once; the request that
// completes an instance's group runs the collective (collective_ring.h) and
// every member's callback is called with the outcome. Nothing ever blocks a
// thread waiting for peers. A member that asks (CollectiveRequest::timing)
// learns when its group was complete and when the work ended, for the
// phases of step stats.
//
// An instance is identified by (step_id, group_key, instance_key); its group
// is the group_size members that arrive with those keys in that step, ranked
// by device (runtime order: job, replica, task, type, then id as a number,
// so CPU:2 comes before CPU:10). Members computing in host memory run on the
// CPU ring; members in device memory (a GPU kernel's) on the backend
// registered for their kernel device type (collective_backend.h). Every
// failure reaches every waiting member and names the instance:
// - members disagreeing on the op, reduction, group size, dtype or shape (or
//   on the tensors a fused all-reduce packed, or on the kernel device
//   type: host and device memory do not mix), a second member from one
//   device, a second broadcast sender:
//   InvalidArgument at once, naming both devices (and nodes) and both values;
//   the instance stays failed, so its later members fail at once too;
// - a member missing after the earliest deadline of those that arrived:
//   DeadlineExceeded, listing the devices that arrived and the missing ones
//   when known (collective_roster.h), else how many are missing;
// - AbortStep (the step failed or was cancelled elsewhere): the step's
//   waiting members, and any that arrive later, fail with its status.
#ifndef DFLOW_RUNTIME_COLLECTIVE_EXECUTOR_H_
#define DFLOW_RUNTIME_COLLECTIVE_EXECUTOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "graph/tensor.h"
#include "runtime/collective_ring.h"
#include "runtime/collective_timer.h"
#include "runtime/thread_pool.h"

namespace dflow {

class CrossProcessCollectives;
class Device;

enum class CollectiveKind {
  kAllReduce,
  kAllGather,
  // One member of a broadcast sends, the others receive.
  kBroadcastSend,
  kBroadcastRecv,
};
// "all-reduce", "all-gather", "broadcast" (both broadcast kinds).
const char* CollectiveKindName(CollectiveKind kind);

// When a member's collective ran, for its phases in step stats: the member
// waited for its peers from its submit until `group_complete`, then the work
// ran until `work_end`. absl::Now() readings.
struct CollectiveTiming {
  absl::Time group_complete;
  absl::Time work_end;
};

// What one member submits.
struct CollectiveRequest {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  Reduction reduction = Reduction::kSum;  // all-reduce only
  int64_t group_size = 1;
  int64_t group_key = 0;
  int64_t instance_key = 0;
  int64_t step_id = 0;
  // How long this member waits for the rest; InfiniteDuration (or <= 0):
  // forever.
  absl::Duration timeout = absl::InfiniteDuration();
  // The member's device, canonical name: its rank comes from it.
  std::string device;
  // The member's node, for messages.
  std::string node;
  // Where the member's tensors live, as the device type of the kernel that
  // submitted it: "" or "CPU" is host memory (the CPU ring runs the group;
  // fake GPUs run CPU kernels); another type ("GPU") is device memory, run
  // by the CollectiveBackend registered for it (collective_backend.h).
  // Members of one group must agree.
  std::string kernel_device_type;
  // The member's device, for a backend that needs more than its name (the
  // GPU backend finds the physical GPU and streams). Not owned; a kernel's
  // device outlives its requests. The CPU ring ignores it.
  const Device* device_object = nullptr;
  // The member's tensor (not for a broadcast receiver).
  Tensor input;
  // Where the result goes, allocated by the member with the result's dtype
  // and shape (not for a broadcast sender, whose result is its input).
  Tensor output;
  // A fused all-reduce's parts: the shapes of the tensors packed, in order,
  // into `input` (empty for any other collective). Members must agree on
  // them, not only on the packed size: the same bytes split differently
  // would reduce one member's tensor with another's.
  std::vector<TensorShape> parts;
  // In a cluster: every member's device, in rank order, across the tasks
  // (the master writes them into the node's `_group_devices` attr); members
  // must agree. Empty: all members are in this process. When some are
  // not, this process's members meet here and the CrossProcessCollectives
  // set on the executor runs the group (cross_process_collectives.h).
  std::vector<std::string> group_devices;
  // The master session the group belongs to (`_group_session`): groups of
  // one key in two sessions are two groups.
  std::string group_session;
  // Optional: when set, written before `done` is called with OK. Must stay
  // valid until then (the member's callback owns it).
  CollectiveTiming* timing = nullptr;
  // Called exactly once, on any thread, when the output is ready or the
  // instance failed. Must not block.
  std::function<void(const absl::Status&)> done;
};

// Orders devices by canonical name the way ranks are given: fields of the
// parsed name, ids as numbers ("CPU:2" < "CPU:10"); unparsable names last,
// by string.
bool DeviceRankLess(const std::string& a, const std::string& b);

class CollectiveExecutor
    : public std::enable_shared_from_this<CollectiveExecutor> {
 public:
  // Callbacks of finished members and the collectives' blocks run on
  // `pool` (null: all inline).
  static std::shared_ptr<CollectiveExecutor> Create(ThreadPool* pool);
  // Members still waiting fail with Cancelled.
  ~CollectiveExecutor();
  CollectiveExecutor(const CollectiveExecutor&) = delete;
  CollectiveExecutor& operator=(const CollectiveExecutor&) = delete;

  void Submit(CollectiveRequest request);

  // Fails the step's waiting members with `status` (its code, the message
  // prefixed with the instance), and every member of the step that arrives
  // until EndStep(step_id). For a step that failed or was cancelled
  // elsewhere: its peers will never arrive.
  void AbortStep(int64_t step_id, const absl::Status& status);
  // Forgets an aborted step once none of its kernels can still run.
  void EndStep(int64_t step_id);
  // Fails every waiting member of every step with `status`.
  void AbortAll(const absl::Status& status);

  // Instances with members waiting (or failed, awaiting their last ones).
  int num_pending_instances() const;

  // The engine that runs groups with members in other processes (a
  // cluster's worker sets it once, before its first step).
  void SetCrossProcess(std::shared_ptr<CrossProcessCollectives> engine);

 private:
  struct InstanceKey {
    int64_t step_id;
    int64_t group_key;
    int64_t instance_key;
    template <typename H>
    friend H AbslHashValue(H h, const InstanceKey& k) {
      return H::combine(std::move(h), k.step_id, k.group_key, k.instance_key);
    }
    friend bool operator==(const InstanceKey& a, const InstanceKey& b) {
      return a.step_id == b.step_id && a.group_key == b.group_key &&
             a.instance_key == b.instance_key;
    }
  };
  struct Instance {
    uint64_t id = 0;  // tells a timer which incarnation of the key it is for
    std::vector<CollectiveRequest> members;  // waiting ones, arrival order
    int64_t group_size = 0;                  // the first member's
    int arrived = 0;
    // Set once the instance failed; members arriving later get it.
    absl::Status failed;
    // The members to wait for here: group_size, or in a cluster the
    // members on this process's task.
    int64_t local_size = 0;
    absl::Time start;
    absl::Time deadline = absl::InfiniteFuture();
    CollectiveTimer::Id timer = 0;  // 0: none scheduled
  };
  using Callbacks = std::vector<std::function<void(const absl::Status&)>>;

  explicit CollectiveExecutor(ThreadPool* pool) : pool_(pool) {}

  // Checks `r` against the instance's first member; the error names both.
  static absl::Status CheckAgainst(const CollectiveRequest& first,
                                   const Instance& instance,
                                   const CollectiveRequest& r);
  // Runs a complete group (members in arrival order).
  void Run(std::vector<CollectiveRequest> members);
  // Runs a group some of whose members are in other processes through
  // cross_process_ (`members`: this process's, in rank order).
  void RunCrossProcess(std::vector<CollectiveRequest> members, bool timed,
                       absl::Time group_complete);
  // Called by the timer for instance `id` of `key`.
  void Expire(const InstanceKey& key, uint64_t id);
  // Moves the waiting members' callbacks out of `instance`.
  static Callbacks TakeCallbacks(Instance* instance);
  // Calls each callback with `status`: all but the last on the pool, the
  // last inline unless `all_on_pool` (the timer's thread must not run a
  // step's successors).
  static void Deliver(ThreadPool* pool, Callbacks callbacks,
                      const absl::Status& status, bool all_on_pool);
  // (Re)arms the instance's timer for its deadline. With mu_ held.
  void ArmTimer(const InstanceKey& key, Instance* instance);

  ThreadPool* const pool_;
  // std::mutex, not absl::Mutex: see runtime/variables.h.
  mutable std::mutex mu_;
  absl::flat_hash_map<InstanceKey, Instance> instances_;      // mu_
  absl::flat_hash_map<int64_t, absl::Status> aborted_steps_;  // mu_
  uint64_t next_instance_id_ = 1;                             // mu_
  std::shared_ptr<CrossProcessCollectives> cross_process_;    // mu_
};

}  // namespace dflow

#endif  // DFLOW_RUNTIME_COLLECTIVE_EXECUTOR_H_
