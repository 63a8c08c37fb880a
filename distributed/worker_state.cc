#include "distributed/worker_state.h"

#include <condition_variable>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "compiler/optimization_stages.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "runtime/call_frame.h"
#include "runtime/collective_context.h"
#include "runtime/kernel_constant_evaluator.h"
#include "runtime/placement_bridge.h"
#include "runtime/thread_pool.h"

namespace dflow {

struct WorkerState::Graph {
  std::vector<std::unique_ptr<Executor>> partitions;
};

WorkerState::WorkerState(std::string task_name, ClusterSpec cluster,
                         std::unique_ptr<DeviceSet> devices)
    : task_name_(std::move(task_name)),
      channels_(std::move(cluster)),
      devices_(std::move(devices)),
      collectives_(CollectiveExecutor::Create(ThreadPool::Shared())) {
  // Gloo listens on the task's host as the cluster spec names it (where the
  // other tasks reach this one).
  std::string host = "127.0.0.1";
  for (const ClusterTask& t : channels_.cluster().Tasks()) {
    if (t.Name() != task_name_) continue;
    host = t.address.substr(0, t.address.rfind(':'));
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);  // [::1]:port
    }
  }
  gloo_ = std::make_shared<GlooCollectives>(task_name_, host, &channels_);
  collectives_->SetCrossProcess(gloo_);
}

WorkerState::~WorkerState() = default;

absl::StatusOr<WorkerState::Registered> WorkerState::RegisterGraph(
    const std::vector<GraphDef>& partitions, bool optimize,
    const std::vector<std::string>& protected_nodes) {
  Registered registered;
  const KernelConstantEvaluator evaluator(devices_->cpu());
  const RegistryKernelQuery kernels;
  OptimizationOptions optimization;
  optimization.enabled = optimize;
  optimization.evaluator = &evaluator;
  optimization.kernels = &kernels;
  const absl::flat_hash_set<std::string> kept(protected_nodes.begin(),
                                              protected_nodes.end());
  auto graph = std::make_shared<Graph>();
  for (const GraphDef& def : partitions) {
    if (def.node_size() == 0) continue;
    const std::string& device_name = def.node(0).device();
    Device* device = devices_->Find(device_name);
    if (device == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a partition for device '", device_name, "' was sent to task ",
          task_name_, ", which does not have it"));
    }
    for (const NodeDef& node : def.node()) {
      if (node.device() != device_name) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", node.name(), "' (", node.op(), ") of the partition for ",
            device_name, " asks for '", node.device(),
            "': a partition's nodes must all be on its device"));
      }
    }
    dflow::Graph part;
    if (absl::Status s = ImportGraphDef(def, ImportOptions(), &part); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the partition for ", device_name, ": ", s.message()));
    }
    if (optimize) {
      std::vector<PassSummary> passes;
      if (absl::Status s =
              RunDeviceSpecificPasses(optimization, device->name(),
                                      device->type(), kept, &part, &passes);
          !s.ok()) {
        return absl::Status(
            s.code(), absl::StrCat("task ", task_name_, ", partition for ",
                                   device_name, ": ", s.message()));
      }
      for (const PassSummary& pass : passes) {
        registered.pass_summaries.push_back(PassSummaryLine(pass));
      }
    }
    absl::StatusOr<std::unique_ptr<Executor>> executor =
        Executor::Create(part, device, [this](const Node& node, Device* d) {
          return kernels_.KernelFor(node, d);
        });
    if (!executor.ok()) return executor.status();
    graph->partitions.push_back(*std::move(executor));
  }
  std::lock_guard<std::mutex> lock(mu_);
  registered.handle = absl::StrCat("graph_", next_handle_++);
  graphs_[registered.handle] = std::move(graph);
  return registered;
}

std::shared_ptr<RemoteRendezvous> WorkerState::StepRendezvous(int64_t step_id) {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<RemoteRendezvous>& step = steps_[step_id];
  if (step == nullptr) {
    step = std::make_shared<RemoteRendezvous>(task_name_, step_id, &channels_);
  }
  return step;
}

absl::StatusOr<std::vector<Tensor>> WorkerState::RunGraph(
    const std::string& handle, int64_t step_id, std::vector<Tensor> feeds,
    int num_fetches, absl::Time deadline,
    const std::function<bool()>& cancelled, bool* relayed,
    std::vector<NodeExecStats>* stats, absl::Time* started) {
  *relayed = false;
  std::shared_ptr<Graph> graph;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = graphs_.find(handle);
    if (it == graphs_.end()) {
      return absl::NotFoundError(absl::StrCat(
          "task ", task_name_, " has no graph '", handle,
          "' (never registered, or cleaned up; a restarted task forgets "
          "its graphs)"));
    }
    graph = it->second;
  }
  std::shared_ptr<RemoteRendezvous> rendezvous = StepRendezvous(step_id);
  rendezvous->set_deadline(deadline);
  // What the partitions share, alive until their last kernel returned.
  struct Step {
    std::mutex mu;
    std::condition_variable cv;
    int running = 0;
    CallFrame frame;
    // Per partition (they record at once); read once all have finished.
    std::vector<std::vector<NodeExecStats>> stats;
    Step(std::vector<Tensor> feeds, int num_fetches)
        : frame(std::move(feeds), num_fetches) {}
  };
  auto step = std::make_shared<Step>(std::move(feeds), num_fetches);
  step->running = static_cast<int>(graph->partitions.size());
  if (stats != nullptr) step->stats.resize(graph->partitions.size());
  auto collectives = std::make_shared<CollectiveContext>(collectives_, step_id);
  Executor::Args args;
  args.step_id = step_id;
  args.variables = variables_.get();
  args.call_frame = &step->frame;
  args.rendezvous = rendezvous.get();
  args.collective_context = collectives.get();
  args.deadline = deadline;
  args.keep_alive = std::make_shared<
      std::tuple<std::shared_ptr<Step>, std::shared_ptr<RemoteRendezvous>,
                 std::shared_ptr<Graph>, std::shared_ptr<VariableStore>,
                 std::shared_ptr<CollectiveContext>>>(step, rendezvous, graph,
                                                      variables_, collectives);
  args.start_time = absl::Now();
  if (started != nullptr) *started = args.start_time;
  for (size_t i = 0; i < graph->partitions.size(); ++i) {
    Executor::Args partition_args = args;
    if (stats != nullptr) partition_args.stats = &step->stats[i];
    graph->partitions[i]->RunAsync(
        partition_args,
        [step, rendezvous, collectives](absl::Status s) {
          if (!s.ok()) {
            rendezvous->StartAbort(s);
            collectives->Abort(s);
          }
          std::lock_guard<std::mutex> lock(step->mu);
          if (--step->running == 0) step->cv.notify_all();
        },
        Executor::StartOn::kPool);
  }
  {
    std::unique_lock<std::mutex> lock(step->mu);
    while (step->running > 0 && !rendezvous->aborted()) {
      step->cv.wait_for(lock, std::chrono::milliseconds(10));
      if (step->running == 0) break;
      if (cancelled()) {
        lock.unlock();
        rendezvous->StartAbort(absl::CancelledError(
            absl::StrCat("the master cancelled the step on task ", task_name_,
                         " (another task failed, or the caller gave up)")));
        lock.lock();
        break;
      }
      if (absl::Now() >= deadline) {
        lock.unlock();
        rendezvous->StartAbort(absl::DeadlineExceededError(
            absl::StrCat("the step did not finish on task ", task_name_,
                         " within its timeout")));
        lock.lock();
        break;
      }
    }
  }
  if (rendezvous->aborted()) {
    // Members waiting here for peers that will not come fail now.
    collectives->Abort(rendezvous->status());
    *relayed = rendezvous->remote_receive_failed();
    return rendezvous->status();
  }
  std::vector<Tensor> fetches;
  if (absl::Status s = step->frame.TakeRetvals(&fetches); !s.ok()) return s;
  if (stats != nullptr) {
    for (std::vector<NodeExecStats>& part : step->stats) {
      for (NodeExecStats& node : part) stats->push_back(std::move(node));
    }
  }
  return fetches;
}

void WorkerState::RecvTensor(int64_t step_id, const std::string& key,
                             Rendezvous::DeadAwareCallback done) {
  StepRendezvous(step_id)->LocalRecvAsync(key, std::move(done));
}

void WorkerState::ForgetSteps(const std::vector<int64_t>& step_ids) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t id : step_ids) steps_.erase(id);
}

absl::Status WorkerState::CleanupGraph(const std::string& handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (graphs_.erase(handle) == 0) {
    return absl::NotFoundError(
        absl::StrCat("task ", task_name_, " has no graph '", handle, "'"));
  }
  return absl::OkStatus();
}

}  // namespace dflow
