// NcclCollectives (distributed/nccl_collectives.h) against a fake NCCL
// engine: NCCL across processes needs one GPU per rank, which no machine
// here has, so the logic around it (the unique id handed out through the
// group's store, the non-blocking init polled against a deadline, aborting,
// reusing a ready communicator, a broadcast's sender on another task) runs
// with ranks that meet in this process and tensors in host memory. Each
// "task" is a thread with its own NcclCollectives; the tasks share one
// store, as they share the first task's over gRPC.
#include "distributed/nccl_collectives.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gloo/rendezvous/hash_store.h"
#include "gtest/gtest.h"
#include "runtime/cross_process_nccl.h"

namespace dflow {
namespace {

const char kTask0[] = "/job:worker/replica:0/task:0";
const char kTask1[] = "/job:worker/replica:0/task:1";

// Ranks meet by unique id; the k-th Run of every rank of a communicator
// forms its k-th collective, computed in host memory by the last to come.
class FakeNccl : public CrossProcessNccl {
 public:
  int fail_init_rank = -1;  // Poll of every rank fails once it starts
  bool hang_runs = false;   // Run never finishes until aborted

  struct FakeRanks : Ranks {
    std::string id;
    std::vector<int> ranks;
    int64_t calls = 0;
    bool aborted = false;
  };

  std::string Name() const override { return "fake NCCL"; }

  absl::StatusOr<std::string> NewUniqueId() override {
    std::lock_guard<std::mutex> lock(mu_);
    ++ids_made_;
    return std::string(128, static_cast<char>('a' + ids_made_));
  }

  absl::StatusOr<std::unique_ptr<Ranks>> StartRanks(
      const std::string& id, int group_size, const std::vector<int>& ranks,
      const std::vector<const CollectiveRequest*>& members) override {
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_EQ(ranks.size(), members.size());
    Comm& comm = comms_[id];
    comm.size = group_size;
    for (int r : ranks) comm.started.insert(r);
    ++starts_;
    auto made = std::make_unique<FakeRanks>();
    made->id = id;
    made->ranks = ranks;
    return std::unique_ptr<Ranks>(std::move(made));
  }

  absl::Status Poll(Ranks* ranks) override {
    auto* r = static_cast<FakeRanks*>(ranks);
    std::lock_guard<std::mutex> lock(mu_);
    if (r->aborted) return absl::FailedPreconditionError("aborted");
    const Comm& comm = comms_[r->id];
    if (fail_init_rank >= 0 && comm.started.count(fail_init_rank) > 0) {
      return absl::InternalError(
          absl::StrCat("fake: rank ", fail_init_rank, " failed its init"));
    }
    if (static_cast<int>(comm.started.size()) < comm.size) {
      return absl::UnavailableError("in progress");
    }
    return absl::OkStatus();
  }

  void Abort(Ranks* ranks) override {
    std::lock_guard<std::mutex> lock(mu_);
    static_cast<FakeRanks*>(ranks)->aborted = true;
    ++aborts_;
    changed_.notify_all();
  }

  void Run(Ranks* ranks, std::vector<CollectiveRequest>* members,
           const std::vector<int>& rank_of_member, int group_size, int source,
           absl::Time deadline,
           std::function<void(absl::Status)> done) override {
    EXPECT_GT(deadline, absl::Now());
    auto* r = static_cast<FakeRanks*>(ranks);
    std::unique_lock<std::mutex> lock(mu_);
    Comm& comm = comms_[r->id];
    Call& call = comm.calls[r->calls++];
    for (size_t i = 0; i < members->size(); ++i) {
      call.members[rank_of_member[i]] = &(*members)[i];
    }
    call.source = source;
    if (!hang_runs && static_cast<int>(call.members.size()) == group_size) {
      Compute(&call);
      call.finished = true;
      changed_.notify_all();
    }
    // As NCCL's calls are enqueued, this returns at once; `done` comes
    // from another thread when the collective finished or was aborted.
    waiters_.emplace_back([this, r, &call, done = std::move(done)] {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [&] { return call.finished || r->aborted; });
      const bool ok = call.finished;
      lock.unlock();
      done(ok ? absl::OkStatus() : absl::UnavailableError("fake: aborted"));
    });
  }

  ~FakeNccl() override {
    for (std::thread& t : waiters_) t.join();
  }

  int ids_made() {
    std::lock_guard<std::mutex> lock(mu_);
    return ids_made_;
  }
  int starts() {
    std::lock_guard<std::mutex> lock(mu_);
    return starts_;
  }
  int aborts() {
    std::lock_guard<std::mutex> lock(mu_);
    return aborts_;
  }

 private:
  struct Call {
    std::map<int, CollectiveRequest*> members;  // by rank
    int source = -1;
    bool finished = false;
  };
  struct Comm {
    int size = 0;
    std::set<int> started;
    std::map<int64_t, Call> calls;
  };

  // Float tensors, in rank order.
  static void Compute(Call* call) {
    const CollectiveRequest& first = *call->members.begin()->second;
    if (first.kind == CollectiveKind::kAllReduce) {
      const int64_t n = first.input.NumElements();
      std::vector<float> sum(n, 0.0f);
      for (const auto& [rank, m] : call->members) {
        for (int64_t i = 0; i < n; ++i) sum[i] += m->input.data<float>()[i];
      }
      for (const auto& [rank, m] : call->members) {
        for (int64_t i = 0; i < n; ++i) {
          m->output.data<float>()[i] =
              m->reduction == Reduction::kMean
                  ? sum[i] / static_cast<float>(call->members.size())
                  : sum[i];
        }
      }
    } else if (first.kind == CollectiveKind::kAllGather) {
      const int64_t n = first.input.NumElements();
      for (const auto& [to_rank, to] : call->members) {
        for (const auto& [rank, from] : call->members) {
          for (int64_t i = 0; i < n; ++i) {
            to->output.data<float>()[rank * n + i] =
                from->input.data<float>()[i];
          }
        }
      }
    } else {
      const CollectiveRequest* sender = call->members.at(call->source);
      for (const auto& [rank, m] : call->members) {
        if (rank == call->source) continue;
        for (int64_t i = 0; i < m->output.NumElements(); ++i) {
          m->output.data<float>()[i] = sender->input.data<float>()[i];
        }
      }
    }
  }

  std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, Comm> comms_;
  std::vector<std::thread> waiters_;  // mu_ (only Run adds)
  int ids_made_ = 0;
  int starts_ = 0;
  int aborts_ = 0;
};

// The shared store, as each task sees it through its prefix.
class PrefixedStore : public gloo::rendezvous::Store {
 public:
  PrefixedStore(gloo::rendezvous::HashStore* base, std::string prefix,
                std::chrono::milliseconds timeout)
      : base_(base), prefix_(std::move(prefix)), timeout_(timeout) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    base_->set(prefix_ + key, data);
  }
  std::vector<char> get(const std::string& key) override {
    base_->wait({prefix_ + key}, timeout_);  // throws after the timeout
    return base_->get(prefix_ + key);
  }
  void wait(const std::vector<std::string>& keys) override {
    wait(keys, timeout_);
  }
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override {
    std::vector<std::string> full;
    for (const std::string& k : keys) full.push_back(prefix_ + k);
    base_->wait(full, timeout);
  }

 private:
  gloo::rendezvous::HashStore* base_;
  std::string prefix_;
  std::chrono::milliseconds timeout_;
};

class NcclCollectivesTest : public ::testing::Test {
 protected:
  std::unique_ptr<NcclCollectives> Task(const char* name,
                                        CrossProcessNccl* engine) {
    return std::make_unique<NcclCollectives>(
        name, engine,
        [this](const std::string& leader, const std::string& prefix,
               std::chrono::milliseconds timeout)
            -> absl::StatusOr<std::unique_ptr<gloo::rendezvous::Store>> {
          EXPECT_EQ(leader, kTask0);  // the group's first task
          return std::unique_ptr<gloo::rendezvous::Store>(
              std::make_unique<PrefixedStore>(&store_, prefix, timeout));
        });
  }

  // Task `task`'s member (one GPU) of a group of both tasks.
  static std::vector<CollectiveRequest> Member(
      const char* task, CollectiveKind kind, std::vector<float> values,
      int64_t output_elements, int64_t instance = 1,
      absl::Duration timeout = absl::Seconds(20)) {
    CollectiveRequest r;
    r.kind = kind;
    r.group_size = 2;
    r.group_key = 7;
    r.instance_key = instance;
    r.step_id = 3;
    r.timeout = timeout;
    r.device = absl::StrCat(task, "/device:GPU:0");
    r.node = absl::StrCat("collective on ", task);
    r.kernel_device_type = "GPU";
    r.group_devices = {absl::StrCat(kTask1, "/device:GPU:0"),
                       absl::StrCat(kTask0, "/device:GPU:0")};
    r.group_session = "session-1";
    if (kind != CollectiveKind::kBroadcastRecv) {
      r.input =
          Tensor(DT_FLOAT, TensorShape({static_cast<int64_t>(values.size())}));
      for (size_t i = 0; i < values.size(); ++i)
        r.input.data<float>()[i] = values[i];
    }
    if (kind != CollectiveKind::kBroadcastSend) {
      r.output = Tensor(DT_FLOAT, TensorShape({output_elements}));
    }
    std::vector<CollectiveRequest> members;
    members.push_back(std::move(r));
    return members;
  }

  // Runs both tasks' instances at once; their statuses.
  static std::pair<absl::Status, absl::Status> RunBoth(
      NcclCollectives* t0, std::vector<CollectiveRequest>* m0,
      NcclCollectives* t1, std::vector<CollectiveRequest>* m1) {
    absl::Status s1;
    std::thread other([&] { s1 = t1->RunInstance(m1); });
    absl::Status s0 = t0->RunInstance(m0);
    other.join();
    return {s0, s1};
  }

  gloo::rendezvous::HashStore store_;
  FakeNccl nccl_;
};

TEST_F(NcclCollectivesTest, AllReduceAcrossTwoTasksReusesTheCommunicator) {
  auto t0 = Task(kTask0, &nccl_);
  auto t1 = Task(kTask1, &nccl_);
  for (int64_t instance = 1; instance <= 3; ++instance) {
    auto m0 = Member(kTask0, CollectiveKind::kAllReduce, {1, 2}, 2, instance);
    auto m1 = Member(kTask1, CollectiveKind::kAllReduce, {10, 20}, 2, instance);
    auto [s0, s1] = RunBoth(t0.get(), &m0, t1.get(), &m1);
    ASSERT_TRUE(s0.ok()) << s0;
    ASSERT_TRUE(s1.ok()) << s1;
    for (auto* m : {&m0, &m1}) {
      EXPECT_EQ((*m)[0].output.data<float>()[0], 11.0f);
      EXPECT_EQ((*m)[0].output.data<float>()[1], 22.0f);
    }
  }
  // One id (made by task 0, rank 0), one init per task, kept.
  EXPECT_EQ(nccl_.ids_made(), 1);
  EXPECT_EQ(nccl_.starts(), 2);
  EXPECT_EQ(nccl_.aborts(), 0);
  EXPECT_EQ(t0->ready_groups(), 1);
  EXPECT_EQ(t1->ready_groups(), 1);
}

TEST_F(NcclCollectivesTest, MeanAndAllGather) {
  auto t0 = Task(kTask0, &nccl_);
  auto t1 = Task(kTask1, &nccl_);
  auto m0 = Member(kTask0, CollectiveKind::kAllReduce, {1, 3}, 2);
  auto m1 = Member(kTask1, CollectiveKind::kAllReduce, {3, 5}, 2);
  m0[0].reduction = m1[0].reduction = Reduction::kMean;
  auto [s0, s1] = RunBoth(t0.get(), &m0, t1.get(), &m1);
  ASSERT_TRUE(s0.ok() && s1.ok()) << s0 << s1;
  EXPECT_EQ(m1[0].output.data<float>()[0], 2.0f);
  EXPECT_EQ(m1[0].output.data<float>()[1], 4.0f);

  auto g0 = Member(kTask0, CollectiveKind::kAllGather, {1, 2}, 4, 2);
  auto g1 = Member(kTask1, CollectiveKind::kAllGather, {3, 4}, 4, 2);
  std::tie(s0, s1) = RunBoth(t0.get(), &g0, t1.get(), &g1);
  ASSERT_TRUE(s0.ok() && s1.ok()) << s0 << s1;
  // Rank order is task 0's GPU, then task 1's, whatever order the master
  // listed them in.
  const std::vector<float> want = {1, 2, 3, 4};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(g0[0].output.data<float>()[i], want[i]);
    EXPECT_EQ(g1[0].output.data<float>()[i], want[i]);
  }
}

TEST_F(NcclCollectivesTest, BroadcastFromTheOtherTask) {
  auto t0 = Task(kTask0, &nccl_);
  auto t1 = Task(kTask1, &nccl_);
  auto receiver = Member(kTask0, CollectiveKind::kBroadcastRecv, {}, 3);
  auto sender = Member(kTask1, CollectiveKind::kBroadcastSend, {7, 8, 9}, 0);
  auto [s0, s1] = RunBoth(t0.get(), &receiver, t1.get(), &sender);
  ASSERT_TRUE(s0.ok() && s1.ok()) << s0 << s1;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(receiver[0].output.data<float>()[i], 7.0f + i);
  }
}

TEST_F(NcclCollectivesTest, ATaskThatNeverComesEndsTheInitAtTheDeadline) {
  auto t0 = Task(kTask0, &nccl_);
  auto m0 = Member(kTask0, CollectiveKind::kAllReduce, {1}, 1, 1,
                   absl::Milliseconds(300));
  const auto begin = std::chrono::steady_clock::now();
  absl::Status s = t0->RunInstance(&m0);
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(10));
  EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
  EXPECT_NE(s.message().find("did not finish"), std::string::npos) << s;
  EXPECT_NE(s.message().find(kTask1), std::string::npos) << s;
  EXPECT_EQ(nccl_.aborts(), 1);  // its rank aborted, not left hanging
  EXPECT_EQ(t0->ready_groups(), 0);
}

TEST_F(NcclCollectivesTest, WithoutRankZerosTaskTheIdNeverComes) {
  auto t1 = Task(kTask1, &nccl_);
  auto m1 = Member(kTask1, CollectiveKind::kAllReduce, {1}, 1, 1,
                   absl::Milliseconds(300));
  absl::Status s = t1->RunInstance(&m1);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_NE(s.message().find("unique id"), std::string::npos) << s;
  EXPECT_NE(s.message().find(absl::StrCat("rank 0 (", kTask0, ")")),
            std::string::npos)
      << s;
  EXPECT_EQ(nccl_.starts(), 0);
}

TEST_F(NcclCollectivesTest, AFailedInitIsAbortedOnEveryTask) {
  nccl_.fail_init_rank = 1;
  auto t0 = Task(kTask0, &nccl_);
  auto t1 = Task(kTask1, &nccl_);
  auto m0 = Member(kTask0, CollectiveKind::kAllReduce, {1}, 1);
  auto m1 = Member(kTask1, CollectiveKind::kAllReduce, {2}, 1);
  auto [s0, s1] = RunBoth(t0.get(), &m0, t1.get(), &m1);
  EXPECT_TRUE(absl::IsInternal(s1)) << s1;
  EXPECT_NE(s1.message().find("the NCCL init between tasks"), std::string::npos)
      << s1;
  EXPECT_NE(s1.message().find("rank 1 failed"), std::string::npos) << s1;
  EXPECT_FALSE(s0.ok());
  EXPECT_EQ(nccl_.aborts(), 2);
  EXPECT_EQ(t0->ready_groups() + t1->ready_groups(), 0);
}

TEST_F(NcclCollectivesTest, ACollectiveThatHangsIsAbortedAtTheDeadline) {
  nccl_.hang_runs = true;
  auto t0 = Task(kTask0, &nccl_);
  auto t1 = Task(kTask1, &nccl_);
  auto m0 = Member(kTask0, CollectiveKind::kAllReduce, {1}, 1, 1,
                   absl::Milliseconds(400));
  auto m1 = Member(kTask1, CollectiveKind::kAllReduce, {2}, 1, 1,
                   absl::Milliseconds(400));
  auto [s0, s1] = RunBoth(t0.get(), &m0, t1.get(), &m1);
  for (const absl::Status& s : {s0, s1}) {
    EXPECT_TRUE(absl::IsDeadlineExceeded(s)) << s;
    EXPECT_NE(s.message().find("the NCCL collective between tasks"),
              std::string::npos)
        << s;
  }
  EXPECT_EQ(nccl_.aborts(), 2);
  // Forgotten: the next session makes a new communicator.
  EXPECT_EQ(t0->ready_groups() + t1->ready_groups(), 0);
}

TEST_F(NcclCollectivesTest, WithoutAnEngineGpuMembersAreRefused) {
  auto t0 = Task(kTask0, nullptr);
  auto m0 = Member(kTask0, CollectiveKind::kAllReduce, {1}, 1);
  absl::Status s = t0->RunInstance(&m0);
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_NE(s.message().find("runtime/gpu:cross_process_nccl_gpu"),
            std::string::npos)
      << s;
}

TEST_F(NcclCollectivesTest, AMemberOfAnotherTaskIsRefused) {
  auto t0 = Task(kTask0, &nccl_);
  auto m1 = Member(kTask1, CollectiveKind::kAllReduce, {1}, 1);
  absl::Status s = t0->RunInstance(&m1);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("is not one of task"), std::string::npos) << s;
}

}  // namespace
}  // namespace dflow
