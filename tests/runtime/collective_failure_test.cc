// The collective executor, driven directly: every way an instance can fail
// (timeout naming who arrived and who is missing, disagreeing members, abort,
// destruction) and the timer behind the timeouts. Results are checked in
// collective_test.cc.

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/collective_context.h"
#include "runtime/collective_executor.h"
#include "runtime/collective_registry.h"
#include "runtime/collective_ring.h"
#include "runtime/collective_roster.h"
#include "runtime/collective_timer.h"
#include "runtime/thread_pool.h"
#include "tests/runtime/collective_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_collective::Cpu;
using testing_collective::Instance;
using testing_collective::Latch;
using testing_collective::MakeRequest;
using testing_collective::Member;
using testing_collective::Pool;
using testing_collective::RunInstance;

// --- Failures. ---

TEST(CollectiveFailureTest, MissingMemberTimesOutNamingWhoCameAndWhoDidNot) {
  auto exec = CollectiveExecutor::Create(Pool());
  // The kernel on CPU:2 exists (declared) but does not run in this step.
  CollectiveRoster::Global()->Declare(41, 5, Cpu(2), "tower_2/allreduce");
  std::vector<Member> members(2);
  for (int i = 0; i < 2; ++i) {
    members[i].device = Cpu(i);
    members[i].input = Tensor::FromVector<float>({1, 2});
    members[i].output = Tensor(DT_FLOAT, TensorShape({2}));
  }
  Instance inst;
  inst.group_key = 41;
  inst.instance_key = 5;
  inst.step_id = 9;
  inst.timeout = absl::Milliseconds(50);
  Latch latch(2);
  for (Member& m : members) {
    exec->Submit(MakeRequest(inst, CollectiveKind::kAllReduce, 3, &m, &latch));
  }
  latch.Wait();
  CollectiveRoster::Global()->Withdraw(41, 5, Cpu(2), "tower_2/allreduce");
  for (const Member& m : members) {
    EXPECT_EQ(m.status.code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_THAT(m.status.message(),
                HasSubstr("collective all-reduce (group 41, instance 5, "
                          "step 9) timed out"));
    EXPECT_THAT(m.status.message(), HasSubstr("2 of 3 members arrived"));
    EXPECT_THAT(m.status.message(), HasSubstr(Cpu(0)));
    EXPECT_THAT(m.status.message(), HasSubstr(Cpu(1)));
    EXPECT_THAT(m.status.message(), HasSubstr("1 missing: " + Cpu(2) +
                                              " (node 'tower_2/allreduce')"));
  }
  EXPECT_EQ(exec->num_pending_instances(), 0);
}

TEST(CollectiveFailureTest, TimeoutWithoutADeclaredMemberCountsTheMissing) {
  auto exec = CollectiveExecutor::Create(Pool());
  Member m{Cpu(0), Tensor::FromVector<float>({1}),
           Tensor(DT_FLOAT, TensorShape({1})), absl::OkStatus()};
  Instance inst;
  inst.group_key = 42;
  inst.timeout = absl::Milliseconds(20);
  Latch latch(1);
  exec->Submit(MakeRequest(inst, CollectiveKind::kAllReduce, 4, &m, &latch));
  latch.Wait();
  EXPECT_EQ(m.status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(m.status.message(), HasSubstr("1 of 4 members arrived"));
  EXPECT_THAT(m.status.message(), HasSubstr("3 missing"));
}

TEST(CollectiveFailureTest, ShapeMismatchNamesBothDevicesAndShapes) {
  auto exec = CollectiveExecutor::Create(Pool());
  std::vector<Member> members(3);
  for (int i = 0; i < 3; ++i) {
    members[i].device = Cpu(i);
    const int64_t len = i == 1 ? 3 : 2;
    members[i].input = Tensor(DT_FLOAT, TensorShape({len}));
    members[i].output = Tensor(DT_FLOAT, TensorShape({len}));
  }
  Instance inst;
  // Member 0 arrives, member 1 disagrees: both fail at once; member 2,
  // arriving later, fails with the same error instead of waiting.
  RunInstance(exec.get(), inst, &members, {0, 1, 2});
  for (const Member& m : members) {
    EXPECT_EQ(m.status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(m.status.message(), HasSubstr("disagree on the shape"));
    EXPECT_THAT(m.status.message(), HasSubstr(Cpu(0) + " (node"));
    EXPECT_THAT(m.status.message(), HasSubstr(Cpu(1) + " (node"));
    EXPECT_THAT(m.status.message(), HasSubstr("[2]"));
    EXPECT_THAT(m.status.message(), HasSubstr("[3]"));
  }
  EXPECT_EQ(exec->num_pending_instances(), 0);
}

TEST(CollectiveFailureTest, DtypeGroupSizeReductionAndOpMismatches) {
  auto exec = CollectiveExecutor::Create(Pool());
  struct Case {
    const char* what;
    std::function<void(CollectiveRequest*)> change;
  };
  const Case cases[] = {
      {"dtype",
       [](CollectiveRequest* r) {
         r->input = Tensor(DT_INT32, TensorShape({2}));
         r->output = Tensor(DT_INT32, TensorShape({2}));
       }},
      {"group size", [](CollectiveRequest* r) { r->group_size = 3; }},
      {"reduction",
       [](CollectiveRequest* r) { r->reduction = Reduction::kMax; }},
      {"op",
       [](CollectiveRequest* r) {
         r->kind = CollectiveKind::kAllGather;
         r->output = Tensor(DT_FLOAT, TensorShape({4}));
       }},
  };
  int step = 0;
  for (const Case& c : cases) {
    std::vector<Member> members(2);
    Latch latch(2);
    Instance inst;
    inst.step_id = ++step;
    for (int i = 0; i < 2; ++i) {
      members[i].device = Cpu(i);
      members[i].input = Tensor(DT_FLOAT, TensorShape({2}));
      members[i].output = Tensor(DT_FLOAT, TensorShape({2}));
      CollectiveRequest r =
          MakeRequest(inst, CollectiveKind::kAllReduce, 2, &members[i], &latch);
      if (i == 1) c.change(&r);
      exec->Submit(std::move(r));
    }
    latch.Wait();
    for (const Member& m : members) {
      EXPECT_EQ(m.status.code(), absl::StatusCode::kInvalidArgument) << c.what;
      EXPECT_THAT(m.status.message(),
                  HasSubstr(absl::StrCat("disagree on the ", c.what)));
      EXPECT_THAT(m.status.message(), HasSubstr(Cpu(1)));
    }
  }
  EXPECT_EQ(exec->num_pending_instances(), 0);
}

TEST(CollectiveFailureTest, TwoMembersOnOneDevice) {
  auto exec = CollectiveExecutor::Create(Pool());
  std::vector<Member> members(2);
  for (Member& m : members) {
    m.device = Cpu(3);
    m.input = Tensor(DT_FLOAT, TensorShape({1}));
    m.output = Tensor(DT_FLOAT, TensorShape({1}));
  }
  RunInstance(exec.get(), Instance(), &members, {0, 1});
  for (const Member& m : members) {
    EXPECT_EQ(m.status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(m.status.message(), HasSubstr("two members on " + Cpu(3)));
  }
}

TEST(CollectiveFailureTest, BroadcastNeedsExactlyOneSender) {
  auto exec = CollectiveExecutor::Create(Pool());
  // Two senders.
  {
    std::vector<Member> members(3);
    Latch latch(3);
    Instance inst;
    inst.step_id = 1;
    for (int i = 0; i < 3; ++i) {
      members[i].device = Cpu(i);
      members[i].input = Tensor(DT_FLOAT, TensorShape({2}));
      members[i].output = Tensor(DT_FLOAT, TensorShape({2}));
      exec->Submit(MakeRequest(inst,
                               i < 2 ? CollectiveKind::kBroadcastSend
                                     : CollectiveKind::kBroadcastRecv,
                               3, &members[i], &latch));
    }
    latch.Wait();
    for (const Member& m : members) {
      EXPECT_EQ(m.status.code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(m.status.message(), HasSubstr("two senders"));
    }
  }
  // No sender.
  {
    std::vector<Member> members(2);
    for (int i = 0; i < 2; ++i) {
      members[i].device = Cpu(i);
      members[i].output = Tensor(DT_FLOAT, TensorShape({2}));
    }
    Instance inst;
    inst.kind = CollectiveKind::kBroadcastRecv;
    inst.step_id = 2;
    RunInstance(exec.get(), inst, &members, {0, 1});
    for (const Member& m : members) {
      EXPECT_EQ(m.status.code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(m.status.message(), HasSubstr("none sends"));
    }
  }
}

TEST(CollectiveFailureTest, UnsupportedDtypeFailsTheInstance) {
  auto exec = CollectiveExecutor::Create(Pool());
  std::vector<Member> members(2);
  for (int i = 0; i < 2; ++i) {
    members[i].device = Cpu(i);
    members[i].input = Tensor(DT_BOOL, TensorShape({2}));
    members[i].output = Tensor(DT_BOOL, TensorShape({2}));
  }
  RunInstance(exec.get(), Instance(), &members, {0, 1});
  for (const Member& m : members) {
    EXPECT_EQ(m.status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(m.status.message(), HasSubstr("bool"));
  }
}

TEST(CollectiveFailureTest, AbortStepReleasesWaitersAndLateArrivals) {
  auto exec = CollectiveExecutor::Create(Pool());
  std::vector<Member> members(3);
  for (int i = 0; i < 3; ++i) {
    members[i].device = Cpu(i);
    members[i].input = Tensor(DT_FLOAT, TensorShape({2}));
    members[i].output = Tensor(DT_FLOAT, TensorShape({2}));
  }
  Instance inst;
  inst.step_id = 77;  // no timeout: only the abort can release them
  Latch first_two(2);
  exec->Submit(MakeRequest(inst, CollectiveKind::kAllReduce, 3, &members[0],
                           &first_two));
  exec->Submit(MakeRequest(inst, CollectiveKind::kAllReduce, 3, &members[1],
                           &first_two));
  // Another step's instance is untouched by the abort.
  Instance other = inst;
  other.step_id = 78;
  Member bystander{Cpu(0), Tensor(DT_FLOAT, TensorShape({2})),
                   Tensor(DT_FLOAT, TensorShape({2})), absl::OkStatus()};
  Latch bystander_latch(1);
  exec->Submit(MakeRequest(other, CollectiveKind::kAllReduce, 2, &bystander,
                           &bystander_latch));
  EXPECT_EQ(exec->num_pending_instances(), 2);

  exec->AbortStep(77, absl::CancelledError("partition 'CPU:2' failed"));
  first_two.Wait();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(members[i].status.code(), absl::StatusCode::kCancelled);
    EXPECT_THAT(members[i].status.message(),
                HasSubstr("(group 1, instance 1, step 77) was aborted: "
                          "partition 'CPU:2' failed"));
  }
  // The third member arrives after the abort: it fails at once.
  Latch third(1);
  exec->Submit(
      MakeRequest(inst, CollectiveKind::kAllReduce, 3, &members[2], &third));
  third.Wait();
  EXPECT_EQ(members[2].status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(exec->num_pending_instances(), 1);  // the bystander's

  // Once the step ended, its ids may be used again.
  exec->EndStep(77);
  std::vector<Member> again(1);
  again[0] = {Cpu(0), Tensor::FromVector<float>({4}),
              Tensor(DT_FLOAT, TensorShape({1})), absl::OkStatus()};
  RunInstance(exec.get(), inst, &again, {0});
  EXPECT_TRUE(again[0].status.ok()) << again[0].status;

  exec->AbortAll(absl::CancelledError("closing"));
  bystander_latch.Wait();
  EXPECT_EQ(bystander.status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(exec->num_pending_instances(), 0);
}

// The step's handle: Abort fails its waiters (once, first status kept);
// destroying it lets the executor forget the step.
TEST(CollectiveFailureTest, StepContextAbortsAndEndsItsStep) {
  auto exec = CollectiveExecutor::Create(Pool());
  Instance inst;
  inst.step_id = 500;
  Member m{Cpu(0), Tensor(DT_FLOAT, TensorShape({2})),
           Tensor(DT_FLOAT, TensorShape({2})), absl::OkStatus()};
  {
    CollectiveContext step(exec, 500);
    EXPECT_EQ(step.executor(), exec.get());
    EXPECT_EQ(step.step_id(), 500);
    Latch latch(1);
    exec->Submit(MakeRequest(inst, CollectiveKind::kAllReduce, 2, &m, &latch));
    step.Abort(absl::InternalError("node 'x' (Foo) failed"));
    step.Abort(absl::CancelledError("second"));
    latch.Wait();
    EXPECT_EQ(m.status.code(), absl::StatusCode::kInternal);
    EXPECT_THAT(m.status.message(), HasSubstr("node 'x' (Foo) failed"));
  }
  // The context is gone: step 500's ids work again.
  std::vector<Member> again(1);
  again[0] = {Cpu(0), Tensor::FromVector<float>({4}),
              Tensor(DT_FLOAT, TensorShape({1})), absl::OkStatus()};
  inst.instance_key = 2;
  RunInstance(exec.get(), inst, &again, {0});
  EXPECT_TRUE(again[0].status.ok()) << again[0].status;
}

TEST(CollectiveFailureTest, DestroyingTheExecutorReleasesWaiters) {
  Member m{Cpu(0), Tensor(DT_FLOAT, TensorShape({2})),
           Tensor(DT_FLOAT, TensorShape({2})), absl::OkStatus()};
  Latch latch(1);
  {
    auto exec = CollectiveExecutor::Create(Pool());
    Instance inst;
    inst.timeout = absl::Seconds(600);
    exec->Submit(MakeRequest(inst, CollectiveKind::kAllReduce, 2, &m, &latch));
  }
  latch.Wait();
  EXPECT_EQ(m.status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(m.status.message(), HasSubstr("destroyed"));
}

TEST(CollectiveFailureTest, CompletedInstancesLeaveNoTimerBehind) {
  auto exec = CollectiveExecutor::Create(Pool());
  const int before = CollectiveTimer::Global()->pending();
  for (int k = 0; k < 50; ++k) {
    std::vector<Member> members(2);
    for (int i = 0; i < 2; ++i) {
      members[i] = {Cpu(i), Tensor::FromVector<float>({1}),
                    Tensor(DT_FLOAT, TensorShape({1})), absl::OkStatus()};
    }
    Instance inst;
    inst.instance_key = k;
    inst.timeout = absl::Seconds(600);
    RunInstance(exec.get(), inst, &members, {1, 0});
  }
  EXPECT_EQ(CollectiveTimer::Global()->pending(), before);
}

TEST(CollectiveTimerTest, RunsInDeadlineOrderAndCancels) {
  CollectiveTimer* timer = CollectiveTimer::Global();
  std::mutex mu;
  std::vector<int> ran;
  Latch latch(2);
  const int before = timer->pending();
  const absl::Time now = absl::Now();
  timer->Schedule(now + absl::Milliseconds(40), [&] {
    std::lock_guard<std::mutex> lock(mu);
    ran.push_back(2);
    latch.CountDown();
  });
  // Due long after the others, so that cancelling it cannot race with its
  // deadline on a slow host; pending() shows the cancel took it out.
  const CollectiveTimer::Id cancelled =
      timer->Schedule(now + absl::Seconds(60), [&] {
        std::lock_guard<std::mutex> lock(mu);
        ran.push_back(99);
      });
  timer->Schedule(now + absl::Milliseconds(10), [&] {
    std::lock_guard<std::mutex> lock(mu);
    ran.push_back(1);
    latch.CountDown();
  });
  timer->Cancel(cancelled);
  latch.Wait();
  EXPECT_EQ(timer->pending(), before);
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(ran, (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace dflow
