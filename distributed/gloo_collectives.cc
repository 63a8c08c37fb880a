#include "distributed/gloo_collectives.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/grpc_store.h"
#include "gloo/allgatherv.h"
#include "gloo/allreduce.h"
#include "gloo/broadcast.h"
#include "gloo/rendezvous/context.h"
#include "gloo/transport/tcp/device.h"
#include "grpcpp/grpcpp.h"
#include "runtime/collective_backend.h"
#include "runtime/collective_ring.h"
#include "runtime/cross_process_nccl.h"

namespace dflow {
namespace {

// Tells concurrent instances of one group apart on the wire: Gloo pairs up
// messages by tag. Step ids and instance keys are the same on every task.
uint32_t TagOf(const CollectiveRequest& r, uint64_t salt) {
  uint64_t h = static_cast<uint64_t>(r.step_id) * 0x9E3779B97F4A7C15ull;
  h ^= static_cast<uint64_t>(r.instance_key) * 0xC2B2AE3D27D4EB4Full;
  h ^= salt * 0x165667B19E3779F9ull;
  h ^= h >> 29;
  return static_cast<uint32_t>(h ^ (h >> 32));
}

template <typename T>
void AllReduce(const std::shared_ptr<gloo::Context>& context,
               std::vector<CollectiveRequest>* members, uint32_t tag,
               std::chrono::milliseconds timeout) {
  const CollectiveRequest& first = (*members)[0];
  const size_t n = static_cast<size_t>(first.input.NumElements());
  std::vector<T*> inputs;
  std::vector<T*> outputs;
  for (CollectiveRequest& m : *members) {
    inputs.push_back(const_cast<T*>(m.input.data<T>()));
    outputs.push_back(m.output.data<T>());
  }
  if (n > 0) {
    gloo::AllreduceOptions opts(context);
    opts.setInputs(inputs, n);
    opts.setOutputs(outputs, n);
    const Reduction reduction = first.reduction;
    opts.setReduceFunction(
        [reduction](void* out, const void* a, const void* b, size_t k) {
          CombineElements<T>(reduction, static_cast<T*>(out),
                             static_cast<const T*>(a), static_cast<const T*>(b),
                             static_cast<int64_t>(k));
        });
    opts.setTag(tag);
    opts.setTimeout(timeout);
    gloo::allreduce(opts);
  }
  if (first.reduction == Reduction::kMean && first.group_size > 1) {
    for (T* out : outputs) {
      DivideElements<T>(out, static_cast<int64_t>(n), first.group_size);
    }
  }
}

template <typename T>
void AllGather(const std::shared_ptr<gloo::Context>& context,
               std::vector<CollectiveRequest>* members,
               const std::vector<size_t>& members_per_task, uint32_t tag,
               std::chrono::milliseconds timeout) {
  const size_t n = static_cast<size_t>((*members)[0].input.NumElements());
  // This task's members are consecutive ranks: their inputs, packed.
  std::vector<T> packed(n * members->size());
  for (size_t i = 0; i < members->size(); ++i) {
    std::memcpy(packed.data() + i * n, (*members)[i].input.data<T>(),
                n * sizeof(T));
  }
  std::vector<size_t> counts;
  for (size_t k : members_per_task) counts.push_back(k * n);
  T* out = (*members)[0].output.data<T>();
  gloo::AllgathervOptions opts(context);
  opts.setInput(packed.data(), packed.size());
  opts.setOutput(out, counts);
  opts.setTag(tag);
  opts.setTimeout(timeout);
  gloo::allgatherv(opts);
  const size_t total = static_cast<size_t>((*members)[0].output.NumElements());
  for (size_t i = 1; i < members->size(); ++i) {
    std::memcpy((*members)[i].output.data<T>(), out, total * sizeof(T));
  }
}

template <typename T>
void Broadcast(const std::shared_ptr<gloo::Context>& context,
               std::vector<CollectiveRequest>* members, uint32_t tag,
               std::chrono::milliseconds timeout) {
  // Which task sends: the one whose members include the sender (the
  // master's node list does not say; a one-integer all-reduce does).
  int32_t root = -1;
  const CollectiveRequest* sender = nullptr;
  for (const CollectiveRequest& m : *members) {
    if (m.kind == CollectiveKind::kBroadcastSend) sender = &m;
  }
  if (sender != nullptr) root = context->rank;
  {
    gloo::AllreduceOptions opts(context);
    opts.setOutput(&root, 1);
    opts.setReduceFunction(
        [](void* out, const void* a, const void* b, size_t k) {
          CombineElements<int32_t>(Reduction::kMax, static_cast<int32_t*>(out),
                                   static_cast<const int32_t*>(a),
                                   static_cast<const int32_t*>(b),
                                   static_cast<int64_t>(k));
        });
    opts.setTag(tag ^ 0x5a5a5a5au);
    opts.setTimeout(timeout);
    gloo::allreduce(opts);
  }
  if (root < 0) {
    throw std::runtime_error(
        "no task of the group holds a CollectiveBroadcastSend; one member "
        "must send");
  }
  const Tensor& shape_of =
      sender != nullptr ? sender->input : (*members)[0].output;
  const size_t n = static_cast<size_t>(shape_of.NumElements());
  std::vector<T> scratch;
  T* out = nullptr;
  for (CollectiveRequest& m : *members) {
    if (m.kind == CollectiveKind::kBroadcastRecv && out == nullptr) {
      out = m.output.data<T>();
    }
  }
  if (out == nullptr) {  // only the sender here: Gloo still wants an output
    scratch.resize(n);
    out = scratch.data();
  }
  if (n > 0) {
    gloo::BroadcastOptions opts(context);
    if (sender != nullptr) {
      opts.setInput(const_cast<T*>(sender->input.data<T>()), n);
    }
    opts.setOutput(out, n);
    opts.setRoot(root);
    opts.setTag(tag);
    opts.setTimeout(timeout);
    gloo::broadcast(opts);
  }
  for (CollectiveRequest& m : *members) {
    if (m.kind == CollectiveKind::kBroadcastRecv && m.output.data<T>() != out) {
      std::memcpy(m.output.data<T>(), out, n * sizeof(T));
    }
  }
}

template <typename T>
void RunTyped(const std::shared_ptr<gloo::Context>& context,
              std::vector<CollectiveRequest>* members,
              const std::vector<size_t>& members_per_task,
              std::chrono::milliseconds timeout) {
  const CollectiveRequest& first = (*members)[0];
  const uint32_t tag = TagOf(first, 0);
  switch (first.kind) {
    case CollectiveKind::kAllReduce:
      AllReduce<T>(context, members, tag, timeout);
      return;
    case CollectiveKind::kAllGather:
      AllGather<T>(context, members, members_per_task, tag, timeout);
      return;
    case CollectiveKind::kBroadcastSend:
    case CollectiveKind::kBroadcastRecv:
      Broadcast<T>(context, members, tag, timeout);
      return;
  }
}

}  // namespace

std::string GlooCollectives::GroupKey(const CollectiveRequest& r,
                                      const Layout& layout) {
  return absl::StrCat(r.group_session, "/", r.group_key, "/",
                      absl::StrJoin(layout.tasks, ","));
}

GlooCollectives::GlooCollectives(std::string task_name, std::string host,
                                 WorkerChannels* channels)
    : task_name_(std::move(task_name)),
      host_(std::move(host)),
      channels_(channels),
      nccl_(task_name_, LinkedCrossProcessNccl(),
            [channels](const std::string& leader, const std::string& prefix,
                       std::chrono::milliseconds timeout)
                -> absl::StatusOr<std::unique_ptr<gloo::rendezvous::Store>> {
              absl::StatusOr<WorkerService::Stub*> stub =
                  channels->StubFor(leader);
              if (!stub.ok()) return stub.status();
              return std::unique_ptr<gloo::rendezvous::Store>(
                  std::make_unique<GrpcStore>(*stub, prefix, timeout));
            }) {}

GlooCollectives::~GlooCollectives() = default;

int GlooCollectives::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

absl::StatusOr<GlooCollectives::Layout> GlooCollectives::LayoutOf(
    const CollectiveRequest& r, const std::string& task_name) {
  std::vector<std::string> devices = r.group_devices;
  std::sort(devices.begin(), devices.end(), DeviceRankLess);
  Layout layout;
  for (const std::string& d : devices) {
    const std::string task = TaskOfDevice(d);
    if (task.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "group device '", d, "' names no task (/job:J/replica:R/task:T)"));
    }
    if (layout.tasks.empty() || layout.tasks.back() != task) {
      if (std::find(layout.tasks.begin(), layout.tasks.end(), task) !=
          layout.tasks.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("group devices of task ", task,
                         " are not consecutive in rank order"));
      }
      layout.tasks.push_back(task);
      layout.members_per_task.push_back(0);
    }
    ++layout.members_per_task.back();
  }
  for (size_t i = 0; i < layout.tasks.size(); ++i) {
    if (layout.tasks[i] == task_name) layout.rank = static_cast<int>(i);
  }
  if (layout.rank < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("task ", task_name, " holds none of the group's devices (",
                     absl::StrJoin(devices, ", "), ")"));
  }
  return layout;
}

void GlooCollectives::Run(std::vector<CollectiveRequest>* local_members,
                          std::function<void(const absl::Status&)> done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++running_;
  }
  // A thread of its own: Gloo blocks it until the other tasks take part.
  std::thread([self = shared_from_this(), local_members,
               done = std::move(done)]() mutable {
    absl::Status status = self->RunInstance(local_members);
    {
      std::lock_guard<std::mutex> lock(self->mu_);
      --self->running_;
    }
    done(status);
  }).detach();
}

absl::StatusOr<std::shared_ptr<gloo::Context>> GlooCollectives::ContextFor(
    const CollectiveRequest& r, const Layout& layout,
    std::chrono::milliseconds timeout) {
  const std::string key = GroupKey(r, layout);
  std::shared_ptr<Group> group;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::shared_ptr<Group>& slot = groups_[key];
    if (slot == nullptr) slot = std::make_shared<Group>();
    group = slot;
  }
  std::lock_guard<std::mutex> lock(group->mu);
  if (group->context != nullptr) return group->context;
  absl::StatusOr<WorkerService::Stub*> leader =
      channels_->StubFor(layout.tasks[0]);
  if (!leader.ok()) return leader.status();
  auto context = std::make_shared<gloo::rendezvous::Context>(
      layout.rank, static_cast<int>(layout.tasks.size()));
  context->setTimeout(timeout);
  GrpcStore store(*leader, absl::StrCat("gloo/", key, "/"), timeout);
  gloo::transport::tcp::attr attr;
  attr.hostname = host_;
  std::shared_ptr<gloo::transport::Device> device =
      gloo::transport::tcp::CreateDevice(attr);
  context->connectFullMesh(store, device);
  group->context = context;
  return group->context;
}

absl::Status GlooCollectives::RunInstance(
    std::vector<CollectiveRequest>* members) {
  const CollectiveRequest& first = (*members)[0];
  if (!IsHostCollectiveType(first.kernel_device_type)) {
    return nccl_.RunInstance(members);  // device memory: NCCL
  }
  absl::StatusOr<Layout> layout = LayoutOf(first, task_name_);
  if (!layout.ok()) return layout.status();
  const absl::Duration limit = first.timeout > absl::ZeroDuration() &&
                                       first.timeout != absl::InfiniteDuration()
                                   ? first.timeout
                                   : kDefaultTimeout;
  const auto timeout = std::chrono::milliseconds(
      std::max<int64_t>(1, absl::ToInt64Milliseconds(limit)));
  const std::string tasks = absl::StrJoin(layout->tasks, ", ");
  try {
    absl::StatusOr<std::shared_ptr<gloo::Context>> context =
        ContextFor(first, *layout, timeout);
    if (!context.ok()) return context.status();
    switch (first.kind == CollectiveKind::kBroadcastRecv
                ? first.output.dtype()
                : first.input.dtype()) {
      case DT_FLOAT:
        RunTyped<float>(*context, members, layout->members_per_task, timeout);
        break;
      case DT_DOUBLE:
        RunTyped<double>(*context, members, layout->members_per_task, timeout);
        break;
      case DT_INT32:
        RunTyped<int32_t>(*context, members, layout->members_per_task, timeout);
        break;
      case DT_INT64:
        RunTyped<int64_t>(*context, members, layout->members_per_task, timeout);
        break;
      default:
        return absl::InvalidArgumentError(
            "cross-process collectives take float, double, int32 and int64");
    }
  } catch (const std::exception& e) {
    // The context may be broken (a task died): the next run connects anew
    // once the group's tasks do too (a new session).
    {
      std::lock_guard<std::mutex> lock(mu_);
      groups_.erase(GroupKey(first, *layout));
    }
    return absl::UnavailableError(absl::StrCat(
        "Gloo between tasks ", tasks, " (this is task ", task_name_,
        ") failed: ", e.what(),
        ". A task of the group may have stopped or not reached this "
        "collective within ",
        absl::FormatDuration(limit)));
  }
  return absl::OkStatus();
}

}  // namespace dflow
