// The CollectiveExecutor's pluggable backends (runtime/collective_backend.h),
// with a fake backend registered for a test device type whose "device
// memory" is host memory: which groups reach a backend (by the members'
// kernel device type; CPU and fake GPUs stay on the ring), in rank order,
// with the results, timings and failures delivered to every member; mixed
// groups and missing backends failing at once; registration rules; the
// placement summary's description. Runs everywhere (no GPU).
#include "runtime/collective_backend.h"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/collective_executor.h"
#include "runtime/device.h"
#include "runtime/thread_pool.h"

namespace dflow {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kFake[] = "FAKEMEM";
constexpr char kFailing[] = "FAILMEM";

std::string Dev(const std::string& type, int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:", type, ":", i);
}

// Records what it was given; all-reduce sums float inputs in rank order and
// calls `done` from a thread of its own (a device's completion thread).
class FakeBackend : public CollectiveBackend {
 public:
  explicit FakeBackend(absl::Status fail = absl::OkStatus())
      : fail_(std::move(fail)) {}

  std::string Name() const override { return "fake"; }

  void Run(std::vector<CollectiveRequest>* members, ThreadPool* pool,
           std::function<void(const absl::Status&)> done) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++calls_;
      last_devices_.clear();
      for (const CollectiveRequest& m : *members) {
        last_devices_.push_back(m.device);
      }
      last_pool_ = pool;
    }
    std::thread([members, done = std::move(done), fail = fail_] {
      if (fail.ok() && (*members)[0].kind == CollectiveKind::kAllReduce) {
        const int64_t n = (*members)[0].input.NumElements();
        for (int64_t i = 0; i < n; ++i) {
          float acc = 0;
          for (const CollectiveRequest& m : *members) {
            acc += m.input.data<float>()[i];
          }
          for (CollectiveRequest& m : *members) m.output.data<float>()[i] = acc;
        }
      }
      done(fail);
    }).detach();
  }

  std::string DescribeGroup(
      const std::vector<const Device*>& devices) const override {
    return absl::StrCat("fake over ", devices.size(), " devices");
  }

  int calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  std::vector<std::string> last_devices() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_devices_;
  }
  ThreadPool* last_pool() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_pool_;
  }

 private:
  const absl::Status fail_;
  mutable std::mutex mu_;
  int calls_ = 0;
  std::vector<std::string> last_devices_;
  ThreadPool* last_pool_ = nullptr;
};

// Registered once per process; the registry owns them.
FakeBackend* Fake() {
  static FakeBackend* fake = [] {
    auto b = std::make_unique<FakeBackend>();
    FakeBackend* raw = b.get();
    EXPECT_TRUE(RegisterCollectiveBackend(kFake, std::move(b)).ok());
    return raw;
  }();
  return fake;
}

FakeBackend* Failing() {
  static FakeBackend* failing = [] {
    auto b = std::make_unique<FakeBackend>(
        absl::DataLossError("the device lost the data"));
    FakeBackend* raw = b.get();
    EXPECT_TRUE(RegisterCollectiveBackend(kFailing, std::move(b)).ok());
    return raw;
  }();
  return failing;
}

ThreadPool* Pool() {
  static ThreadPool* pool = new ThreadPool(2);
  return pool;
}

struct Member {
  std::string device;
  std::string kernel_type;
  CollectiveKind kind = CollectiveKind::kAllReduce;
  Tensor input;
  Tensor output;
  absl::Status status;
  CollectiveTiming timing;
  bool called = false;
};

Tensor Floats(std::vector<float> v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  if (!v.empty()) std::memcpy(t.raw_data(), v.data(), v.size() * sizeof(float));
  return t;
}

// Submits `members` in `order` and waits for every callback.
void RunGroup(CollectiveExecutor* exec, std::vector<Member>* members,
              const std::vector<int>& order, int64_t instance_key = 1) {
  std::mutex mu;
  std::condition_variable cv;
  int left = static_cast<int>(members->size());
  for (int i : order) {
    Member* m = &(*members)[i];
    CollectiveRequest r;
    r.kind = m->kind;
    r.group_size = static_cast<int64_t>(members->size());
    r.group_key = 7;
    r.instance_key = instance_key;
    r.step_id = 1;
    r.device = m->device;
    r.node = absl::StrCat("node", i);
    r.kernel_device_type = m->kernel_type;
    r.input = m->input;
    r.output = m->output;
    r.timing = &m->timing;
    r.done = [m, &mu, &cv, &left](const absl::Status& s) {
      std::lock_guard<std::mutex> lock(mu);
      m->status = absl::Status(s.code(), std::string(s.message()));
      m->called = true;
      if (--left == 0) cv.notify_all();
    };
    exec->Submit(std::move(r));
  }
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return left == 0; });
}

std::vector<Member> AllReduceMembers(const std::string& type,
                                     const std::string& kernel_type, int n) {
  std::vector<Member> members(n);
  for (int i = 0; i < n; ++i) {
    members[i].device = Dev(type, i);
    members[i].kernel_type = kernel_type;
    members[i].input = Floats({1.0f * (i + 1), 10.0f * (i + 1)});
    members[i].output = Floats({-1, -1});
  }
  return members;
}

TEST(CollectiveBackendTest, DeviceMemberGroupsRunOnTheirBackendInRankOrder) {
  FakeBackend* fake = Fake();
  const int before = fake->calls();
  auto exec = CollectiveExecutor::Create(Pool());
  std::vector<Member> members = AllReduceMembers("GPU", kFake, 3);
  // Ranks by device id as a number; arrival order does not matter.
  members[2].device = Dev("GPU", 10);
  RunGroup(exec.get(), &members, {2, 0, 1});
  EXPECT_EQ(fake->calls(), before + 1);
  EXPECT_THAT(fake->last_devices(),
              ElementsAre(Dev("GPU", 0), Dev("GPU", 1), Dev("GPU", 10)));
  EXPECT_EQ(fake->last_pool(), Pool());
  for (const Member& m : members) {
    ASSERT_TRUE(m.status.ok()) << m.status;
    EXPECT_EQ(m.output.data<float>()[0], 6.0f);
    EXPECT_EQ(m.output.data<float>()[1], 60.0f);
    EXPECT_LE(m.timing.group_complete, m.timing.work_end);
    EXPECT_NE(m.timing.work_end, absl::Time());
  }
  EXPECT_EQ(exec->num_pending_instances(), 0);
}

TEST(CollectiveBackendTest, HostMemberGroupsStayOnTheRing) {
  FakeBackend* fake = Fake();
  const int before = fake->calls();
  auto exec = CollectiveExecutor::Create(Pool());
  // "" and "CPU" are both host memory; fake GPUs run CPU kernels.
  for (const std::string& kernel_type : {std::string(), std::string("CPU")}) {
    std::vector<Member> members = AllReduceMembers("GPU", kernel_type, 2);
    members[1].kernel_type = "CPU";
    RunGroup(exec.get(), &members, {1, 0});
    for (const Member& m : members) {
      ASSERT_TRUE(m.status.ok()) << m.status;
      EXPECT_EQ(m.output.data<float>()[0], 3.0f);
    }
  }
  EXPECT_EQ(fake->calls(), before);
}

TEST(CollectiveBackendTest, HostAndDeviceMembersDoNotMix) {
  Fake();
  auto exec = CollectiveExecutor::Create(Pool());
  std::vector<Member> members = AllReduceMembers("GPU", kFake, 2);
  members[0].kernel_type = "CPU";
  RunGroup(exec.get(), &members, {0, 1});
  for (const Member& m : members) {
    EXPECT_EQ(m.status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(m.status.message(),
                HasSubstr("members disagree on the kernel device type"));
    EXPECT_THAT(m.status.message(), HasSubstr("CPU (host memory)"));
    EXPECT_THAT(m.status.message(),
                HasSubstr(absl::StrCat(kFake, " (device memory)")));
    EXPECT_THAT(m.status.message(), HasSubstr("place every member on GPUs"));
  }
}

TEST(CollectiveBackendTest, TwoDeviceTypesDoNotMix) {
  Fake();
  Failing();
  auto exec = CollectiveExecutor::Create(Pool());
  std::vector<Member> members = AllReduceMembers("GPU", kFake, 2);
  members[1].kernel_type = kFailing;
  RunGroup(exec.get(), &members, {0, 1});
  for (const Member& m : members) {
    EXPECT_EQ(m.status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(m.status.message(), HasSubstr("kernel device type"));
  }
}

TEST(CollectiveBackendTest, MissingBackendFailsAtSubmit) {
  auto exec = CollectiveExecutor::Create(Pool());
  // One member of two: it fails at once instead of waiting for its peer.
  std::vector<Member> members = AllReduceMembers("GPU", "NOBACKEND", 2);
  std::vector<Member> one(members.begin(), members.begin() + 1);
  CollectiveRequest r;
  r.group_size = 2;
  r.device = one[0].device;
  r.node = "lonely";
  r.kernel_device_type = "NOBACKEND";
  r.input = one[0].input;
  r.output = one[0].output;
  absl::Status got;
  bool called = false;
  r.done = [&](const absl::Status& s) {
    got = absl::Status(s.code(), std::string(s.message()));
    called = true;
  };
  exec->Submit(std::move(r));
  ASSERT_TRUE(called);
  EXPECT_EQ(got.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(got.message(), HasSubstr("node 'lonely'"));
  EXPECT_THAT(got.message(),
              HasSubstr("no collective backend for NOBACKEND is linked"));
  EXPECT_THAT(got.message(), HasSubstr("//runtime/gpu:gpu_collective_backend"));
}

TEST(CollectiveBackendTest, BackendFailureReachesEveryMemberWithTheInstance) {
  FakeBackend* failing = Failing();
  const int before = failing->calls();
  auto exec = CollectiveExecutor::Create(Pool());
  std::vector<Member> members = AllReduceMembers("GPU", kFailing, 3);
  RunGroup(exec.get(), &members, {1, 2, 0}, /*instance_key=*/42);
  EXPECT_EQ(failing->calls(), before + 1);
  for (const Member& m : members) {
    EXPECT_TRUE(m.called);
    EXPECT_EQ(m.status.code(), absl::StatusCode::kDataLoss);
    EXPECT_THAT(m.status.message(),
                HasSubstr("collective all-reduce (group 7, instance 42, step "
                          "1) on the fake backend: the device lost the data"));
  }
}

TEST(CollectiveBackendTest, BroadcastWithoutSenderFailsBeforeTheBackend) {
  FakeBackend* fake = Fake();
  const int before = fake->calls();
  auto exec = CollectiveExecutor::Create(Pool());
  std::vector<Member> members(2);
  for (int i = 0; i < 2; ++i) {
    members[i].device = Dev("GPU", i);
    members[i].kernel_type = kFake;
    members[i].kind = CollectiveKind::kBroadcastRecv;
    members[i].output = Floats({0});
  }
  RunGroup(exec.get(), &members, {0, 1});
  for (const Member& m : members) {
    EXPECT_EQ(m.status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(m.status.message(), HasSubstr("none sends"));
  }
  EXPECT_EQ(fake->calls(), before);
}

TEST(CollectiveBackendTest, RegistrationRules) {
  Fake();
  EXPECT_EQ(
      RegisterCollectiveBackend("CPU", std::make_unique<FakeBackend>()).code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      RegisterCollectiveBackend("", std::make_unique<FakeBackend>()).code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RegisterCollectiveBackend("NULLMEM", nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  absl::Status again =
      RegisterCollectiveBackend(kFake, std::make_unique<FakeBackend>());
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.message(), HasSubstr("(fake)"));
  EXPECT_EQ(FindCollectiveBackend("CPU"), nullptr);
  EXPECT_EQ(FindCollectiveBackend(""), nullptr);
  EXPECT_EQ(FindCollectiveBackend("NOBACKEND"), nullptr);
  EXPECT_EQ(FindCollectiveBackend(kFake), Fake());
  EXPECT_TRUE(IsHostCollectiveType(""));
  EXPECT_TRUE(IsHostCollectiveType("CPU"));
  EXPECT_FALSE(IsHostCollectiveType("GPU"));
}

std::unique_ptr<Device> DeviceRunning(const std::string& kernel_type, int id) {
  DeviceAttributes attrs;
  attrs.kernel_device_type = kernel_type;
  return std::make_unique<Device>(*DeviceSpec::Parse(Dev("GPU", id)), attrs,
                                  ProcessAllocator(absl::StrCat("GPU:", id)),
                                  ThreadPool::Shared());
}

TEST(CollectiveBackendTest, DescribesHowAGroupRuns) {
  Fake();
  std::unique_ptr<Device> cpu0 = NewCpuDevice(0);
  std::unique_ptr<Device> fake_gpu = NewFakeGpuDevice(0);
  std::unique_ptr<Device> a = DeviceRunning(kFake, 1);
  std::unique_ptr<Device> b = DeviceRunning(kFake, 2);
  std::unique_ptr<Device> orphan = DeviceRunning("NOBACKEND", 3);
  EXPECT_EQ(DescribeCollectiveGroup({cpu0.get(), fake_gpu.get()}),
            "ring over host memory");
  EXPECT_EQ(DescribeCollectiveGroup({a.get(), b.get()}), "fake over 2 devices");
  EXPECT_THAT(DescribeCollectiveGroup({cpu0.get(), a.get()}),
              HasSubstr(absl::StrCat("cannot run: its members run CPU and ",
                                     kFake, " kernels")));
  EXPECT_THAT(DescribeCollectiveGroup({orphan.get()}),
              HasSubstr("no collective backend for NOBACKEND"));
  EXPECT_EQ(DescribeCollectiveGroup({}), "no members");
}

}  // namespace
}  // namespace dflow
