#include "distributed/nccl_collectives.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "distributed/cluster_spec.h"
#include "runtime/collective_backend.h"

namespace dflow {
namespace {

std::chrono::milliseconds Millis(absl::Duration d) {
  return std::chrono::milliseconds(
      std::max<int64_t>(1, absl::ToInt64Milliseconds(d)));
}

}  // namespace

NcclCollectives::NcclCollectives(std::string task_name,
                                 CrossProcessNccl* engine, StoreFor store_for)
    : task_name_(std::move(task_name)),
      engine_(engine),
      store_for_(std::move(store_for)) {}

NcclCollectives::~NcclCollectives() = default;

int NcclCollectives::ready_groups() const {
  std::lock_guard<std::mutex> lock(mu_);
  int ready = 0;
  for (const auto& [key, group] : groups_) {
    std::lock_guard<std::mutex> group_lock(group->mu);
    ready += group->ranks != nullptr;
  }
  return ready;
}

std::string NcclCollectives::Where(const Layout& layout) const {
  return absl::StrCat("between tasks ", absl::StrJoin(layout.tasks, ", "),
                      " (this is task ", task_name_, ")");
}

absl::StatusOr<NcclCollectives::Layout> NcclCollectives::LayoutOf(
    const std::vector<CollectiveRequest>& members) const {
  Layout layout;
  layout.devices = members[0].group_devices;
  std::sort(layout.devices.begin(), layout.devices.end(), DeviceRankLess);
  for (const std::string& d : layout.devices) {
    const std::string task = TaskOfDevice(d);
    if (task.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "group device '", d, "' names no task (/job:J/replica:R/task:T)"));
    }
    if (std::find(layout.tasks.begin(), layout.tasks.end(), task) ==
        layout.tasks.end()) {
      layout.tasks.push_back(task);
    }
  }
  for (const CollectiveRequest& m : members) {
    auto at = std::find(layout.devices.begin(), layout.devices.end(), m.device);
    if (at == layout.devices.end() || TaskOfDevice(m.device) != task_name_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "member ", m.node, " on ", m.device, " is not one of task ",
          task_name_, "'s devices of the group (",
          absl::StrJoin(layout.devices, ", "), ")"));
    }
    layout.local_ranks.push_back(static_cast<int>(at - layout.devices.begin()));
  }
  return layout;
}

void NcclCollectives::Forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  groups_.erase(key);
}

std::shared_ptr<NcclCollectives::Group> NcclCollectives::GroupFor(
    const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<Group>& slot = groups_[key];
  if (slot == nullptr) slot = std::make_shared<Group>();
  return slot;
}

absl::Status NcclCollectives::MakeRanks(
    Group* group, const std::vector<CollectiveRequest>& members,
    const Layout& layout, gloo::rendezvous::Store* store,
    absl::Duration limit) {
  const absl::Time deadline = absl::Now() + limit;
  // Rank 0's task makes the id; the others wait for it in the store.
  std::string id;
  const bool makes_id =
      std::find(layout.local_ranks.begin(), layout.local_ranks.end(), 0) !=
      layout.local_ranks.end();
  try {
    if (makes_id) {
      absl::StatusOr<std::string> made = engine_->NewUniqueId();
      if (!made.ok()) return made.status();
      id = *std::move(made);
      store->set("id", std::vector<char>(id.begin(), id.end()));
    } else {
      std::vector<char> got = store->get("id");
      id.assign(got.begin(), got.end());
    }
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        "handing out the NCCL unique id ", Where(layout), ": ", e.what(),
        ". The task holding rank 0 (", layout.tasks[0],
        ") may have stopped or not reached this collective within ",
        absl::FormatDuration(limit)));
  }
  std::vector<const CollectiveRequest*> local;
  for (const CollectiveRequest& m : members) local.push_back(&m);
  absl::StatusOr<std::unique_ptr<CrossProcessNccl::Ranks>> ranks =
      engine_->StartRanks(id, static_cast<int>(layout.devices.size()),
                          layout.local_ranks, local);
  if (!ranks.ok()) {
    return absl::Status(ranks.status().code(),
                        absl::StrCat("starting the NCCL ranks ", Where(layout),
                                     ": ", ranks.status().message()));
  }
  // Poll the non-blocking init; back off from 1 to 20 ms.
  absl::Duration pause = absl::Milliseconds(1);
  while (true) {
    absl::Status s = engine_->Poll(ranks->get());
    if (s.ok()) break;
    if (!absl::IsUnavailable(s)) {
      engine_->Abort(ranks->get());
      return absl::Status(s.code(),
                          absl::StrCat("the NCCL init ", Where(layout),
                                       " failed: ", s.message()));
    }
    if (absl::Now() >= deadline) {
      engine_->Abort(ranks->get());
      return absl::DeadlineExceededError(absl::StrCat(
          "the NCCL init ", Where(layout), " did not finish within ",
          absl::FormatDuration(limit),
          ": a task of the group may have stopped or not reached this "
          "collective; its ranks here were aborted"));
    }
    absl::SleepFor(pause);
    pause = std::min(pause * 2, absl::Milliseconds(20));
  }
  group->ranks = *std::move(ranks);
  return absl::OkStatus();
}

absl::StatusOr<int> NcclCollectives::SourceRank(
    const std::vector<CollectiveRequest>& members, const Layout& layout,
    gloo::rendezvous::Store* store) {
  const std::string key =
      absl::StrCat("source/", members[0].step_id, "/", members[0].instance_key);
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i].kind == CollectiveKind::kBroadcastSend) {
      const std::string rank = absl::StrCat(layout.local_ranks[i]);
      try {
        store->set(key, std::vector<char>(rank.begin(), rank.end()));
      } catch (const std::exception& e) {
        return absl::UnavailableError(
            absl::StrCat("publishing the broadcast's sender rank ",
                         Where(layout), ": ", e.what()));
      }
      return layout.local_ranks[i];
    }
  }
  std::vector<char> got;
  try {
    got = store->get(key);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat(
        "the broadcast's sender rank ", Where(layout), ": ", e.what(),
        ". The task holding the sender may have stopped or not reached this "
        "collective"));
  }
  int rank = -1;
  if (!absl::SimpleAtoi(std::string(got.begin(), got.end()), &rank) ||
      rank < 0 || rank >= static_cast<int>(layout.devices.size())) {
    return absl::InternalError(
        absl::StrCat("the broadcast's sender rank in the store is not one of "
                     "the group's ",
                     Where(layout)));
  }
  return rank;
}

absl::Status NcclCollectives::RunInstance(
    std::vector<CollectiveRequest>* members) {
  const CollectiveRequest& first = (*members)[0];
  if (engine_ == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "members on ", first.kernel_device_type,
        " kernels (device memory) across processes need NCCL, and this "
        "binary links no NCCL engine (runtime/gpu:cross_process_nccl_gpu, "
        "built with CUDA and NCCL); place the group's members on CPU "
        "devices to use Gloo"));
  }
  absl::StatusOr<Layout> layout = LayoutOf(*members);
  if (!layout.ok()) return layout.status();
  const absl::Duration limit = first.timeout > absl::ZeroDuration() &&
                                       first.timeout != absl::InfiniteDuration()
                                   ? first.timeout
                                   : kDefaultTimeout;
  const std::string key =
      absl::StrCat(first.group_session, "/", first.group_key, "/",
                   absl::StrJoin(layout->tasks, ","));
  absl::StatusOr<std::unique_ptr<gloo::rendezvous::Store>> store = store_for_(
      layout->tasks[0], absl::StrCat("nccl/", key, "/"), Millis(limit));
  if (!store.ok()) return store.status();
  // One instance of a group at a time on this task (group->mu). NCCL
  // matches collectives by the order they are issued in, so the instances
  // of one group must reach every task in the same order (one fused
  // all-reduce per step does).
  std::shared_ptr<Group> group = GroupFor(key);
  std::unique_lock<std::mutex> hold(group->mu);
  if (group->ranks == nullptr) {
    if (absl::Status s =
            MakeRanks(group.get(), *members, *layout, store->get(), limit);
        !s.ok()) {
      hold.unlock();
      Forget(key);
      return s;
    }
  }
  int source = -1;
  if (first.kind == CollectiveKind::kBroadcastSend ||
      first.kind == CollectiveKind::kBroadcastRecv) {
    absl::StatusOr<int> rank = SourceRank(*members, *layout, store->get());
    if (!rank.ok()) return rank.status();
    source = *rank;
  }
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  absl::Status result;
  engine_->Run(group->ranks.get(), members, layout->local_ranks,
               static_cast<int>(layout->devices.size()), source,
               absl::Now() + limit, [&](absl::Status s) {
                 std::lock_guard<std::mutex> lock(mu);
                 result = std::move(s);
                 finished = true;
                 cv.notify_all();
               });
  bool late = false;
  {
    std::unique_lock<std::mutex> lock(mu);
    late = !cv.wait_for(lock, Millis(limit), [&] { return finished; });
  }
  if (late) {
    // Aborting ends the ranks' work; `done` follows.
    engine_->Abort(group->ranks.get());
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return finished; });
    result = absl::DeadlineExceededError(absl::StrCat(
        "the NCCL collective ", Where(*layout), " did not finish within ",
        absl::FormatDuration(limit),
        ": a task of the group may have stopped; its ranks here were "
        "aborted"));
  } else if (!result.ok()) {
    engine_->Abort(group->ranks.get());
    result = absl::Status(result.code(), absl::StrCat("NCCL ", Where(*layout),
                                                      ": ", result.message()));
  }
  hold.unlock();
  if (!result.ok()) Forget(key);
  return result;
}

}  // namespace dflow
