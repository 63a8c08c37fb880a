// Collectives across a cluster's tasks on Gloo over TCP: the
// CrossProcessCollectives of a `dflow worker` (runtime/
// cross_process_collectives.h).
//
// A group is the tasks that hold its members' devices (`_group_devices`,
// written by the master), ranked by their first device. Each task is one
// Gloo rank, however many of the group's members it holds: Gloo reduces a
// task's members locally, then across tasks. The first run of a group
// connects a Gloo context (a full TCP mesh between the tasks, on the hosts
// of the cluster spec and ports the kernel picks): the tasks meet in the
// key-value store of the group's first task (WorkerService StoreSet/
// StoreGet, distributed/collective_store.h), under a prefix made of the
// master's session and the group key, so a new session connects anew.
// Later runs reuse the context.
//
// Gloo's calls block their thread until the peers take part, so each
// instance runs on a thread of its own (never the shared pool: instances
// waiting for each other in different orders on different tasks must not
// starve it), tagged by step and instance so that concurrent instances of
// one group do not mix. Every call has a deadline: the member's timeout,
// else kDefaultTimeout; a task that died or never came fails the instance
// with the tasks named.
//
// Reduction order: all-reduce is Gloo's ring (each task's members summed
// in rank order, then the tasks' partial sums around the ring). With two
// members in all (two tasks of one device each) that is bit for bit the
// single-process result (a + b == b + a); with more, the partial sums are
// grouped differently from the single-process ring, and float results may
// differ in the last bits (same bits from run to run, though). All-gather
// and broadcast move values without arithmetic: exact.
//
// Members in device memory (GPU kernels) go to NCCL instead
// (nccl_collectives.h), on the same instance thread.
#ifndef DFLOW_DISTRIBUTED_GLOO_COLLECTIVES_H_
#define DFLOW_DISTRIBUTED_GLOO_COLLECTIVES_H_

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "distributed/nccl_collectives.h"
#include "distributed/worker_channels.h"
#include "runtime/cross_process_collectives.h"

namespace gloo {
class Context;
}  // namespace gloo

namespace dflow {

class GlooCollectives : public CrossProcessCollectives,
                        public std::enable_shared_from_this<GlooCollectives> {
 public:
  // How long a connect or a collective waits for the group's other tasks
  // when the member gives no timeout.
  static constexpr absl::Duration kDefaultTimeout = absl::Seconds(60);

  // `task_name`: this task ("/job:worker/replica:0/task:1"); `host`: the
  // host Gloo listens on (the task's host in the cluster spec);
  // `channels`: stubs to the tasks (must outlive this).
  GlooCollectives(std::string task_name, std::string host,
                  WorkerChannels* channels);
  ~GlooCollectives() override;

  void Run(std::vector<CollectiveRequest>* local_members,
           std::function<void(const absl::Status&)> done) override;

  // Threads running instances now (for tests: none once every done ran).
  int running() const;

 private:
  // One group's connected context, made on first use.
  struct Group {
    std::mutex mu;                           // held while connecting
    std::shared_ptr<gloo::Context> context;  // mu; null until connected
  };
  // The group's tasks in rank order, this task's rank among them, and how
  // many members each holds.
  struct Layout {
    std::vector<std::string> tasks;
    std::vector<size_t> members_per_task;
    int rank = -1;
  };
  static absl::StatusOr<Layout> LayoutOf(const CollectiveRequest& r,
                                         const std::string& task_name);

  // Names a group's context: the master's session, the group key, the
  // tasks.
  static std::string GroupKey(const CollectiveRequest& r, const Layout& layout);
  // Runs one instance (on its own thread).
  absl::Status RunInstance(std::vector<CollectiveRequest>* members);
  // The group's context, connecting it first if need be.
  absl::StatusOr<std::shared_ptr<gloo::Context>> ContextFor(
      const CollectiveRequest& r, const Layout& layout,
      std::chrono::milliseconds timeout);

  const std::string task_name_;
  const std::string host_;
  WorkerChannels* const channels_;
  NcclCollectives nccl_;  // the groups in device memory

  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Group>> groups_;  // mu_
  int running_ = 0;                                       // mu_
};

}  // namespace dflow

#endif  // DFLOW_DISTRIBUTED_GLOO_COLLECTIVES_H_
