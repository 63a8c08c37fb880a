#include "runtime/collective_executor.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/device_spec.h"
#include "runtime/collective_backend.h"
#include "runtime/collective_roster.h"
#include "runtime/cross_process_collectives.h"

namespace dflow {
namespace {

bool IsBroadcast(CollectiveKind kind) {
  return kind == CollectiveKind::kBroadcastSend ||
         kind == CollectiveKind::kBroadcastRecv;
}

// The tensor a member contributes or (a broadcast receiver) expects.
const Tensor& Payload(const CollectiveRequest& r) {
  return r.kind == CollectiveKind::kBroadcastRecv ? r.output : r.input;
}

std::string MemberLabel(const CollectiveRequest& r) {
  if (r.node.empty()) return r.device;
  return absl::StrCat(r.device, " (node '", r.node, "')");
}

std::string InstanceLabel(const CollectiveRequest& r) {
  return absl::StrCat("collective ", CollectiveKindName(r.kind), " (group ",
                      r.group_key, ", instance ", r.instance_key, ", step ",
                      r.step_id, ")");
}

// "3 tensors [2,3] [7] []", or "1 unfused tensor" for a plain member.
std::string PartsText(const CollectiveRequest& r) {
  if (r.parts.empty()) {
    return absl::StrCat("1 unfused tensor ", Payload(r).shape().ToString());
  }
  std::vector<std::string> shapes;
  for (const TensorShape& s : r.parts) shapes.push_back(s.ToString());
  return absl::StrCat(r.parts.size(),
                      r.parts.size() == 1 ? " tensor " : " tensors ",
                      absl::StrJoin(shapes, " "));
}

absl::Status Prefixed(const absl::Status& s, const std::string& prefix) {
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

// "CPU (host memory)", "GPU (device memory)".
std::string MemoryText(const CollectiveRequest& r) {
  if (IsHostCollectiveType(r.kernel_device_type)) return "CPU (host memory)";
  return absl::StrCat(r.kernel_device_type, " (device memory)");
}

// A member's rank key: the parsed fields of its device name.
struct RankKey {
  bool parsed = false;
  std::tuple<std::string, int, int, std::string, int> fields;
};

RankKey RankKeyOf(const std::string& device) {
  RankKey k;
  absl::StatusOr<DeviceSpec> spec = DeviceSpec::Parse(device);
  if (!spec.ok()) return k;
  k.parsed = true;
  k.fields =
      std::make_tuple(spec->job().value_or(""), spec->replica().value_or(-1),
                      spec->task().value_or(-1), spec->type().value_or(""),
                      spec->id().value_or(-1));
  return k;
}

// Whether two device names are on one task (job, replica, task).
bool SameTask(const RankKey& a, const RankKey& b) {
  return a.parsed && b.parsed &&
         std::get<0>(a.fields) == std::get<0>(b.fields) &&
         std::get<1>(a.fields) == std::get<1>(b.fields) &&
         std::get<2>(a.fields) == std::get<2>(b.fields);
}

// The members of r's group on r's task: its group size, or in a cluster
// (group_devices given) those of the group's devices on r's task.
int64_t LocalGroupSize(const CollectiveRequest& r) {
  if (r.group_devices.empty()) return r.group_size;
  const RankKey mine = RankKeyOf(r.device);
  int64_t n = 0;
  for (const std::string& d : r.group_devices)
    n += SameTask(RankKeyOf(d), mine);
  return n;
}

// What a member must hold by itself, whatever the others submit.
absl::Status ValidateRequest(const CollectiveRequest& r) {
  // Built only for an error: this runs for every member of every step.
  auto label = [&r] { return InstanceLabel(r); };
  if (r.group_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(label(), ": group_size is ", r.group_size,
                     "; a group has at least one member"));
  }
  if (!IsHostCollectiveType(r.kernel_device_type) &&
      FindCollectiveBackend(r.kernel_device_type) == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        label(), ": ", MemberLabel(r), " runs a ", r.kernel_device_type,
        " kernel, but no collective backend for ", r.kernel_device_type,
        " is linked into this binary; link its backend (for GPUs "
        "//runtime/gpu:gpu_collective_backend) or place the collective on "
        "CPU"));
  }
  if (!r.group_devices.empty()) {
    if (static_cast<int64_t>(r.group_devices.size()) != r.group_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          label(), ": ", MemberLabel(r), " names ", r.group_devices.size(),
          " group devices (", absl::StrJoin(r.group_devices, ", "),
          ") for a group of ", r.group_size,
          "; the master writes one per member"));
    }
    if (std::find(r.group_devices.begin(), r.group_devices.end(), r.device) ==
        r.group_devices.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          label(), ": ", MemberLabel(r), " is not among its group's devices (",
          absl::StrJoin(r.group_devices, ", "), ")"));
    }
  }
  const Tensor& payload = Payload(r);
  if (payload.dtype() == DT_INVALID) {
    return absl::InternalError(absl::StrCat(
        label(), ": ", MemberLabel(r), " submitted no ",
        r.kind == CollectiveKind::kBroadcastRecv ? "output" : "input",
        " tensor"));
  }
  if (!IsRingDataType(payload.dtype())) {
    return absl::InvalidArgumentError(absl::StrCat(
        label(), ": ", MemberLabel(r), " submitted a ",
        DataTypeName(payload.dtype()),
        " tensor; the collectives (CPU ring and GPU) take float, double, "
        "int32 and int64"));
  }
  if (r.kind == CollectiveKind::kAllGather && payload.shape().rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        label(), ": ", MemberLabel(r),
        " submitted a scalar; all-gather concatenates along dimension 0, "
        "so inputs need rank >= 1"));
  }
  if (r.kind == CollectiveKind::kBroadcastSend) return absl::OkStatus();
  int64_t expected = payload.NumElements();
  if (r.kind == CollectiveKind::kAllGather) expected *= r.group_size;
  if (r.output.dtype() != payload.dtype() ||
      r.output.NumElements() != expected) {
    return absl::InternalError(absl::StrCat(
        label(), ": ", MemberLabel(r), " allocated a ",
        DataTypeName(r.output.dtype()), " output of shape ",
        r.output.shape().ToString(), " for a ", DataTypeName(payload.dtype()),
        " result of ", expected, " elements"));
  }
  return absl::OkStatus();
}

}  // namespace

const char* CollectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all-reduce";
    case CollectiveKind::kAllGather:
      return "all-gather";
    case CollectiveKind::kBroadcastSend:
    case CollectiveKind::kBroadcastRecv:
      return "broadcast";
  }
  return "?";
}

namespace {

bool RankKeyLess(const RankKey& ka, const std::string& a, const RankKey& kb,
                 const std::string& b) {
  if (ka.parsed != kb.parsed) return ka.parsed;  // parsable names first
  if (ka.parsed && ka.fields != kb.fields) return ka.fields < kb.fields;
  return a < b;
}

// Sorts `members` into rank order, parsing each device name once.
void SortByRank(std::vector<CollectiveRequest>* members) {
  std::vector<std::pair<RankKey, CollectiveRequest>> keyed;
  keyed.reserve(members->size());
  for (CollectiveRequest& m : *members) {
    RankKey k = RankKeyOf(m.device);
    keyed.emplace_back(std::move(k), std::move(m));
  }
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    return RankKeyLess(a.first, a.second.device, b.first, b.second.device);
  });
  members->clear();
  for (auto& [key, m] : keyed) members->push_back(std::move(m));
}

}  // namespace

bool DeviceRankLess(const std::string& a, const std::string& b) {
  return RankKeyLess(RankKeyOf(a), a, RankKeyOf(b), b);
}

std::shared_ptr<CollectiveExecutor> CollectiveExecutor::Create(
    ThreadPool* pool) {
  return std::shared_ptr<CollectiveExecutor>(new CollectiveExecutor(pool));
}

CollectiveExecutor::~CollectiveExecutor() {
  AbortAll(absl::CancelledError(
      "the session's collective executor was destroyed while members "
      "waited; close a session only after its runs return"));
}

absl::Status CollectiveExecutor::CheckAgainst(const CollectiveRequest& first,
                                              const Instance& instance,
                                              const CollectiveRequest& r) {
  auto label = [&first] { return InstanceLabel(first); };
  auto disagree = [&](absl::string_view what, const std::string& a,
                      const std::string& b, absl::string_view hint) {
    return absl::InvalidArgumentError(absl::StrCat(
        label(), ": members disagree on the ", what, ": ", MemberLabel(first),
        " has ", a, " but ", MemberLabel(r), " has ", b, "; ", hint));
  };
  if (IsBroadcast(first.kind) != IsBroadcast(r.kind) ||
      (!IsBroadcast(r.kind) && first.kind != r.kind)) {
    return disagree("op", CollectiveKindName(first.kind),
                    CollectiveKindName(r.kind),
                    "one instance key names one collective");
  }
  if (IsHostCollectiveType(first.kernel_device_type) !=
          IsHostCollectiveType(r.kernel_device_type) ||
      (!IsHostCollectiveType(r.kernel_device_type) &&
       first.kernel_device_type != r.kernel_device_type)) {
    return disagree("kernel device type", MemoryText(first), MemoryText(r),
                    "one group computes in one kind of memory: place every "
                    "member on GPUs or every member on CPUs");
  }
  if (first.group_size != r.group_size) {
    return disagree("group size", absl::StrCat(first.group_size),
                    absl::StrCat(r.group_size),
                    "every member of a group declares the same group_size");
  }
  if (r.kind == CollectiveKind::kAllReduce && first.reduction != r.reduction) {
    return disagree("reduction", ReductionName(first.reduction),
                    ReductionName(r.reduction),
                    "every member of an all-reduce reduces the same way");
  }
  for (const CollectiveRequest& m : instance.members) {
    if (m.device == r.device) {
      return absl::InvalidArgumentError(absl::StrCat(
          label(), ": two members on ", r.device, " (nodes '", m.node,
          "' and '", r.node,
          "'); each member of a group runs on its own device: give "
          "the second another device or another instance_key"));
    }
    if (m.kind == CollectiveKind::kBroadcastSend &&
        r.kind == CollectiveKind::kBroadcastSend) {
      return absl::InvalidArgumentError(absl::StrCat(
          label(), ": two senders, ", MemberLabel(m), " and ", MemberLabel(r),
          "; a broadcast has exactly one CollectiveBroadcastSend"));
    }
  }
  if (first.group_devices != r.group_devices) {
    return disagree("group devices", absl::StrJoin(first.group_devices, ","),
                    absl::StrJoin(r.group_devices, ","),
                    "the master writes one device list per group");
  }
  if (first.parts != r.parts) {
    return disagree("packed tensors", PartsText(first), PartsText(r),
                    "every member of a fused all-reduce packs the same "
                    "number of tensors, of the same shapes, in one order");
  }
  const Tensor& a = Payload(first);
  const Tensor& b = Payload(r);
  if (a.dtype() != b.dtype()) {
    return disagree("dtype", DataTypeName(a.dtype()), DataTypeName(b.dtype()),
                    "every member submits a tensor of one dtype");
  }
  if (a.shape() != b.shape()) {
    return disagree("shape", a.shape().ToString(), b.shape().ToString(),
                    "every member submits a tensor of one shape");
  }
  return absl::OkStatus();
}

CollectiveExecutor::Callbacks CollectiveExecutor::TakeCallbacks(
    Instance* instance) {
  Callbacks out;
  for (CollectiveRequest& m : instance->members) {
    out.push_back(std::move(m.done));
  }
  instance->members.clear();
  return out;
}

void CollectiveExecutor::Deliver(ThreadPool* pool, Callbacks callbacks,
                                 const absl::Status& status, bool all_on_pool) {
  for (size_t i = 0; i < callbacks.size(); ++i) {
    const bool last = i + 1 == callbacks.size();
    // Each member gets a status of its own. Copies of one absl::Status share
    // a reference-counted message whose count lives in the system Abseil,
    // which ThreadSanitizer cannot see into: members released on several
    // threads would look like a race on the message (and freeing it is the
    // one thing the count orders).
    absl::Status own(status.code(), std::string(status.message()));
    if (pool != nullptr && (!last || all_on_pool)) {
      pool->Schedule(
          [cb = std::move(callbacks[i]), own = std::move(own)] { cb(own); });
    } else {
      callbacks[i](own);
    }
  }
}

void CollectiveExecutor::ArmTimer(const InstanceKey& key, Instance* instance) {
  CollectiveTimer* timer = CollectiveTimer::Global();
  if (instance->timer != 0) timer->Cancel(instance->timer);
  instance->timer = timer->Schedule(
      instance->deadline, [weak = weak_from_this(), key, id = instance->id] {
        if (std::shared_ptr<CollectiveExecutor> self = weak.lock()) {
          self->Expire(key, id);
        }
      });
}

void CollectiveExecutor::Submit(CollectiveRequest r) {
  const InstanceKey key{r.step_id, r.group_key, r.instance_key};
  const absl::Status own = ValidateRequest(r);
  Callbacks to_fail;
  absl::Status failure;
  std::vector<CollectiveRequest> complete;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto aborted = aborted_steps_.find(r.step_id);
    if (aborted != aborted_steps_.end()) {
      failure = Prefixed(aborted->second,
                         absl::StrCat(InstanceLabel(r), " was aborted: "));
      to_fail.push_back(std::move(r.done));
    } else {
      auto [it, inserted] = instances_.try_emplace(key);
      Instance& inst = it->second;
      if (inserted) {
        inst.id = next_instance_id_++;
        inst.start = absl::Now();
        inst.group_size = r.group_size;
        inst.local_size = own.ok() ? LocalGroupSize(r) : r.group_size;
      }
      const int64_t group_size = inst.local_size;
      ++inst.arrived;
      if (!inst.failed.ok()) {
        failure = inst.failed;
        to_fail.push_back(std::move(r.done));
      } else {
        absl::Status s = own;
        if (s.ok() && !inst.members.empty()) {
          s = CheckAgainst(inst.members[0], inst, r);
        }
        if (!s.ok()) {
          inst.failed = s;
          failure = s;
          to_fail = TakeCallbacks(&inst);
          to_fail.push_back(std::move(r.done));
        } else {
          const absl::Duration timeout = r.timeout;
          inst.members.push_back(std::move(r));
          if (timeout > absl::ZeroDuration() &&
              timeout != absl::InfiniteDuration() &&
              absl::Now() + timeout < inst.deadline) {
            inst.deadline = absl::Now() + timeout;
            ArmTimer(key, &inst);
          }
          if (static_cast<int64_t>(inst.members.size()) == group_size) {
            complete = std::move(inst.members);
          }
        }
      }
      // Done with the key once all its members came (whatever the outcome);
      // a failed instance is kept until then so that late members fail too.
      if (!complete.empty() || inst.arrived >= group_size) {
        if (inst.timer != 0) CollectiveTimer::Global()->Cancel(inst.timer);
        instances_.erase(it);
      }
    }
  }
  if (!to_fail.empty()) Deliver(pool_, std::move(to_fail), failure, false);
  if (!complete.empty()) Run(std::move(complete));
}

void CollectiveExecutor::Run(std::vector<CollectiveRequest> members) {
  // Read the clock only for members that asked (steps recording stats).
  const bool timed = std::any_of(
      members.begin(), members.end(),
      [](const CollectiveRequest& m) { return m.timing != nullptr; });
  const absl::Time group_complete = timed ? absl::Now() : absl::Time();
  SortByRank(&members);
  if (static_cast<int64_t>(members.size()) < members[0].group_size) {
    RunCrossProcess(std::move(members), timed, group_complete);
    return;
  }
  const int n = static_cast<int>(members.size());
  int source = -1;
  for (int i = 0; i < n; ++i) {
    if (members[i].kind == CollectiveKind::kBroadcastSend) source = i;
  }
  if (IsBroadcast(members[0].kind) && source < 0) {
    std::vector<std::string> who;
    for (const CollectiveRequest& m : members) who.push_back(MemberLabel(m));
    Callbacks callbacks;
    for (CollectiveRequest& m : members) callbacks.push_back(std::move(m.done));
    Deliver(pool_, std::move(callbacks),
            absl::InvalidArgumentError(absl::StrCat(
                InstanceLabel(members[0]), ": all ", n, " members receive and ",
                "none sends (", absl::StrJoin(who, ", "),
                "); one member must be a CollectiveBroadcastSend")),
            false);
    return;
  }
  // The members (their tensors) live until the work is done.
  auto held =
      std::make_shared<std::vector<CollectiveRequest>>(std::move(members));
  // No `this`: the executor may be gone when the work finishes.
  ThreadPool* pool = pool_;
  auto finish = [pool, held, timed,
                 group_complete](const absl::Status& status) {
    const absl::Time work_end = timed ? absl::Now() : absl::Time();
    Callbacks callbacks;
    for (CollectiveRequest& m : *held) {
      if (status.ok() && m.timing != nullptr) {
        *m.timing = {group_complete, work_end};
      }
      callbacks.push_back(std::move(m.done));
    }
    Deliver(pool, std::move(callbacks), status, false);
  };
  const CollectiveRequest& first = (*held)[0];
  if (CollectiveBackend* backend =
          FindCollectiveBackend(first.kernel_device_type)) {
    // Device memory: the registered backend (collective_backend.h).
    backend->Run(held.get(), pool,
                 [finish = std::move(finish), label = InstanceLabel(first),
                  name = backend->Name()](const absl::Status& s) {
                   finish(s.ok()
                              ? s
                              : Prefixed(s, absl::StrCat(label, " on the ",
                                                         name, " backend: ")));
                 });
    return;
  }
  RingBuffers buffers;
  buffers.dtype = Payload(first).dtype();
  buffers.num_elements = Payload(first).NumElements();
  for (CollectiveRequest& m : *held) {
    buffers.inputs.push_back(m.kind == CollectiveKind::kBroadcastRecv
                                 ? nullptr
                                 : m.input.raw_data());
    buffers.outputs.push_back(m.kind == CollectiveKind::kBroadcastSend
                                  ? nullptr
                                  : m.output.raw_data());
  }
  std::shared_ptr<const RingWork> work;
  switch (first.kind) {
    case CollectiveKind::kAllReduce:
      work = std::make_shared<RingWork>(
          RingWork::AllReduce(first.reduction, std::move(buffers)));
      break;
    case CollectiveKind::kAllGather:
      work =
          std::make_shared<RingWork>(RingWork::AllGather(std::move(buffers)));
      break;
    case CollectiveKind::kBroadcastSend:
    case CollectiveKind::kBroadcastRecv:
      work = std::make_shared<RingWork>(
          RingWork::Broadcast(source, std::move(buffers)));
      break;
  }
  RunRingWork(std::move(work), pool,
              [finish = std::move(finish)] { finish(absl::OkStatus()); });
}

void CollectiveExecutor::RunCrossProcess(std::vector<CollectiveRequest> members,
                                         bool timed,
                                         absl::Time group_complete) {
  std::shared_ptr<CrossProcessCollectives> engine;
  {
    std::lock_guard<std::mutex> lock(mu_);
    engine = cross_process_;
  }
  const std::string label = InstanceLabel(members[0]);
  if (engine == nullptr) {
    std::vector<std::string> elsewhere;
    const RankKey mine = RankKeyOf(members[0].device);
    for (const std::string& d : members[0].group_devices) {
      if (!SameTask(RankKeyOf(d), mine)) elsewhere.push_back(d);
    }
    Callbacks callbacks;
    for (CollectiveRequest& m : members) callbacks.push_back(std::move(m.done));
    Deliver(pool_, std::move(callbacks),
            absl::FailedPreconditionError(absl::StrCat(
                label, ": members run in other processes (",
                absl::StrJoin(elsewhere, ", "),
                ") but this process has no cross-process collectives; "
                "groups across a cluster's tasks run in `dflow worker` "
                "processes")),
            false);
    return;
  }
  auto held =
      std::make_shared<std::vector<CollectiveRequest>>(std::move(members));
  ThreadPool* pool = pool_;
  engine->Run(held.get(), [pool, held, timed, group_complete,
                           label](const absl::Status& status) {
    const absl::Time work_end = timed ? absl::Now() : absl::Time();
    Callbacks callbacks;
    for (CollectiveRequest& m : *held) {
      if (status.ok() && m.timing != nullptr) {
        *m.timing = {group_complete, work_end};
      }
      callbacks.push_back(std::move(m.done));
    }
    Deliver(pool, std::move(callbacks),
            status.ok() ? status
                        : Prefixed(status, absl::StrCat(label,
                                                        " across "
                                                        "processes: ")),
            /*all_on_pool=*/true);
  });
}

void CollectiveExecutor::SetCrossProcess(
    std::shared_ptr<CrossProcessCollectives> engine) {
  std::lock_guard<std::mutex> lock(mu_);
  cross_process_ = std::move(engine);
}

void CollectiveExecutor::Expire(const InstanceKey& key, uint64_t id) {
  Instance inst;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = instances_.find(key);
    if (it == instances_.end() || it->second.id != id) return;
    inst = std::move(it->second);
    instances_.erase(it);
  }
  // A failed instance told its members already; it only waited for the
  // rest of them.
  if (!inst.failed.ok() || inst.members.empty()) return;
  const CollectiveRequest& first = inst.members[0];
  std::vector<const CollectiveRequest*> arrived;
  for (const CollectiveRequest& m : inst.members) arrived.push_back(&m);
  std::sort(arrived.begin(), arrived.end(),
            [](const CollectiveRequest* a, const CollectiveRequest* b) {
              return DeviceRankLess(a->device, b->device);
            });
  std::vector<std::string> here;
  for (const CollectiveRequest* m : arrived) here.push_back(MemberLabel(*m));
  std::vector<std::string> missing;
  for (const CollectiveRoster::Member& d :
       CollectiveRoster::Global()->Declared(key.group_key, key.instance_key)) {
    const bool came = std::any_of(
        arrived.begin(), arrived.end(),
        [&](const CollectiveRequest* m) { return m->device == d.device; });
    if (!came)
      missing.push_back(absl::StrCat(d.device, " (node '", d.node, "')"));
  }
  const int64_t num_missing =
      first.group_size - static_cast<int64_t>(inst.members.size());
  std::string missing_text =
      missing.empty()
          ? absl::StrCat(num_missing,
                         " missing, on devices no collective kernel with "
                         "these keys was built for")
          : absl::StrCat(num_missing,
                         " missing: ", absl::StrJoin(missing, ", "));
  const absl::Status status = absl::DeadlineExceededError(absl::StrCat(
      InstanceLabel(first), " timed out after ",
      absl::FormatDuration(inst.deadline - inst.start), ": ",
      inst.members.size(), " of ", first.group_size, " members arrived (",
      absl::StrJoin(here, ", "), "), ", missing_text,
      ". Every member must run in the same step: check that each member's "
      "node is part of the run (fetched, a target, or needed by one) and "
      "that its device did not fail, or raise timeout_seconds"));
  Deliver(pool_, TakeCallbacks(&inst), status, /*all_on_pool=*/true);
}

void CollectiveExecutor::AbortStep(int64_t step_id,
                                   const absl::Status& status) {
  std::vector<std::pair<Callbacks, absl::Status>> to_fail;
  {
    std::lock_guard<std::mutex> lock(mu_);
    aborted_steps_.emplace(step_id, status);
    for (auto it = instances_.begin(); it != instances_.end();) {
      auto next = std::next(it);
      if (it->first.step_id == step_id) {
        Instance& inst = it->second;
        if (inst.timer != 0) CollectiveTimer::Global()->Cancel(inst.timer);
        if (inst.failed.ok() && !inst.members.empty()) {
          absl::Status s = Prefixed(
              status,
              absl::StrCat(InstanceLabel(inst.members[0]), " was aborted: "));
          to_fail.emplace_back(TakeCallbacks(&inst), std::move(s));
        }
        instances_.erase(it);
      }
      it = next;
    }
  }
  for (auto& [callbacks, s] : to_fail) {
    Deliver(pool_, std::move(callbacks), s, /*all_on_pool=*/true);
  }
}

void CollectiveExecutor::EndStep(int64_t step_id) {
  std::lock_guard<std::mutex> lock(mu_);
  aborted_steps_.erase(step_id);
  // Failed instances still waiting for late members that will not come.
  for (auto it = instances_.begin(); it != instances_.end();) {
    auto next = std::next(it);
    if (it->first.step_id == step_id && !it->second.failed.ok()) {
      if (it->second.timer != 0) {
        CollectiveTimer::Global()->Cancel(it->second.timer);
      }
      instances_.erase(it);
    }
    it = next;
  }
}

void CollectiveExecutor::AbortAll(const absl::Status& status) {
  std::vector<std::pair<Callbacks, absl::Status>> to_fail;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [key, inst] : instances_) {
      if (inst.timer != 0) CollectiveTimer::Global()->Cancel(inst.timer);
      if (inst.failed.ok() && !inst.members.empty()) {
        absl::Status s = Prefixed(
            status,
            absl::StrCat(InstanceLabel(inst.members[0]), " was aborted: "));
        to_fail.emplace_back(TakeCallbacks(&inst), std::move(s));
      }
    }
    instances_.clear();
  }
  for (auto& [callbacks, s] : to_fail) {
    Deliver(pool_, std::move(callbacks), s, /*all_on_pool=*/true);
  }
}

int CollectiveExecutor::num_pending_instances() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(instances_.size());
}

}  // namespace dflow
