// The collective executor and its CPU ring, driven directly (no session, no
// kernels): results of all-reduce, all-gather and broadcast for group sizes
// 1-8 and tensor sizes 0, 1, odd and large against references computed here;
// bitwise determinism whatever the arrival order and thread; and every way
// an instance can fail (timeout, disagreeing members, abort, destruction).
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

namespace dflow {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Cpu(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i);
}

// Counts callbacks down; Wait() returns when all came.
class Latch {
 public:
  explicit Latch(int n) : n_(n) {}
  void CountDown() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--n_ == 0) cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return n_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_;
};

ThreadPool* Pool() {
  static ThreadPool* pool = new ThreadPool(4);
  return pool;
}

// One member's side of an instance.
struct Member {
  std::string device;
  Tensor input;
  Tensor output;
  absl::Status status;
};

struct Instance {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  Reduction reduction = Reduction::kSum;
  int64_t group_key = 1;
  int64_t instance_key = 1;
  int64_t step_id = 1;
  absl::Duration timeout = absl::InfiniteDuration();
};

CollectiveRequest MakeRequest(const Instance& inst, CollectiveKind kind,
                              int64_t group_size, Member* m, Latch* latch) {
  CollectiveRequest r;
  r.kind = kind;
  r.reduction = inst.reduction;
  r.group_size = group_size;
  r.group_key = inst.group_key;
  r.instance_key = inst.instance_key;
  r.step_id = inst.step_id;
  r.timeout = inst.timeout;
  r.device = m->device;
  r.node = absl::StrCat("node_on_", m->device.substr(m->device.size() - 5));
  r.input = m->input;
  r.output = m->output;
  r.done = [m, latch](const absl::Status& s) {
    // A copy of its own: one shared with the executor's would be released on
    // a pool thread (see CollectiveExecutor::Deliver).
    m->status = absl::Status(s.code(), std::string(s.message()));
    latch->CountDown();
  };
  return r;
}

// Submits every member (in `order`, from `threads` threads round-robin) and
// waits for all callbacks. Members' outputs must be allocated.
void RunInstance(CollectiveExecutor* exec, const Instance& inst,
                 std::vector<Member>* members, const std::vector<int>& order,
                 int threads = 1, int sender = -1) {
  const int n = static_cast<int>(members->size());
  Latch latch(n);
  auto kind_of = [&](int i) {
    if (inst.kind != CollectiveKind::kBroadcastSend &&
        inst.kind != CollectiveKind::kBroadcastRecv) {
      return inst.kind;
    }
    return i == sender ? CollectiveKind::kBroadcastSend
                       : CollectiveKind::kBroadcastRecv;
  };
  if (threads <= 1) {
    for (int i : order) {
      exec->Submit(MakeRequest(inst, kind_of(i), n, &(*members)[i], &latch));
    }
  } else {
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t) {
      ts.emplace_back([&, t] {
        for (size_t k = t; k < order.size(); k += threads) {
          const int i = order[k];
          exec->Submit(
              MakeRequest(inst, kind_of(i), n, &(*members)[i], &latch));
        }
      });
    }
    for (std::thread& t : ts) t.join();
  }
  latch.Wait();
}

std::vector<int> Iota(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

template <typename T>
Tensor Random(int64_t n, std::mt19937* rng) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape({n}));
  T* p = t.data<T>();
  if constexpr (std::is_floating_point_v<T>) {
    // Wide magnitudes, so the order of additions shows in the bits.
    std::uniform_real_distribution<double> mant(-1, 1);
    std::uniform_int_distribution<int> exp(-20, 20);
    for (int64_t i = 0; i < n; ++i) {
      p[i] = static_cast<T>(std::ldexp(mant(*rng), exp(*rng)));
    }
  } else {
    std::uniform_int_distribution<int64_t> d(-1000, 1000);
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(d(*rng));
  }
  return t;
}

// The all-reduce's result computed the plain way: every element combined
// in rank order.
template <typename T>
std::vector<T> RingReference(Reduction r, const std::vector<Member>& m) {
  const int n = static_cast<int>(m.size());
  const int64_t len = m[0].input.NumElements();
  std::vector<T> out(len);
  for (int64_t i = 0; i < len; ++i) {
    T acc = m[0].input.data<T>()[i];
    for (int k = 1; k < n; ++k) {
      const T x = m[k].input.data<T>()[i];
      if (r == Reduction::kMax) {
        acc = (acc > x || acc != acc) ? acc : x;
      } else {
        acc = acc + x;
      }
    }
    if (r == Reduction::kMean) acc = acc / static_cast<T>(n);
    out[i] = acc;
  }
  return out;
}

template <typename T>
std::vector<Member> MakeMembers(int n, int64_t len, std::mt19937* rng,
                                int64_t out_len = -1) {
  std::vector<Member> members(n);
  for (int i = 0; i < n; ++i) {
    members[i].device = Cpu(i);
    members[i].input = Random<T>(len, rng);
    members[i].output = Tensor(DataTypeToEnum<T>::value,
                               TensorShape({out_len < 0 ? len : out_len}));
  }
  return members;
}

template <typename T>
bool BitwiseEqual(const Tensor& t, const std::vector<T>& v) {
  return t.NumElements() == static_cast<int64_t>(v.size()) &&
         (v.empty() ||
          std::memcmp(t.raw_data(), v.data(), v.size() * sizeof(T)) == 0);
}

TEST(RingChunkTest, ChunksCoverTheTensorInOrderAndDifferByAtMostOne) {
  for (int64_t n : {0, 1, 2, 7, 8, 9, 1000003}) {
    for (int parts = 1; parts <= 8; ++parts) {
      EXPECT_EQ(RingChunkBegin(n, parts, 0), 0);
      EXPECT_EQ(RingChunkBegin(n, parts, parts), n);
      for (int c = 0; c < parts; ++c) {
        const int64_t size =
            RingChunkBegin(n, parts, c + 1) - RingChunkBegin(n, parts, c);
        EXPECT_GE(size, n / parts);
        EXPECT_LE(size, n / parts + 1);
      }
    }
  }
}

TEST(ReductionTest, ParsesTheAttrValues) {
  EXPECT_EQ(*ParseReduction("sum"), Reduction::kSum);
  EXPECT_EQ(*ParseReduction("mean"), Reduction::kMean);
  EXPECT_EQ(*ParseReduction("max"), Reduction::kMax);
  absl::StatusOr<Reduction> bad = ParseReduction("Add");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("sum, mean and max"));
}

TEST(DeviceRankTest, IdsCompareAsNumbers) {
  EXPECT_TRUE(DeviceRankLess(Cpu(2), Cpu(10)));
  EXPECT_FALSE(DeviceRankLess(Cpu(10), Cpu(2)));
  EXPECT_TRUE(DeviceRankLess(Cpu(7),
                             "/job:localhost/replica:0/task:0/"
                             "device:GPU:0"));
  EXPECT_TRUE(DeviceRankLess("/job:localhost/replica:0/task:0/device:CPU:3",
                             "/job:localhost/replica:0/task:1/device:CPU:0"));
  EXPECT_FALSE(DeviceRankLess(Cpu(1), Cpu(1)));
  EXPECT_TRUE(DeviceRankLess(Cpu(1), "not a device name"));
}

template <typename T>
void CheckAllReduce(Reduction r, int n, int64_t len, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Member> members = MakeMembers<T>(n, len, &rng);
  auto exec = CollectiveExecutor::Create(Pool());
  Instance inst;
  inst.reduction = r;
  // Reverse arrival: ranks must not depend on it.
  std::vector<int> order = Iota(n);
  std::reverse(order.begin(), order.end());
  RunInstance(exec.get(), inst, &members, order);
  const std::vector<T> want = RingReference<T>(r, members);
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(members[i].status.ok()) << members[i].status;
    EXPECT_TRUE(BitwiseEqual(members[i].output, want))
        << ReductionName(r) << " n=" << n << " len=" << len << " rank " << i;
  }
  EXPECT_EQ(exec->num_pending_instances(), 0);
}

TEST(RingAllReduceTest, EveryGroupSizeTensorSizeAndReduction) {
  for (Reduction r : {Reduction::kSum, Reduction::kMean, Reduction::kMax}) {
    for (int n = 1; n <= 8; ++n) {
      for (int64_t len : {0, 1, 7, 1001}) {
        CheckAllReduce<float>(r, n, len, 17 * n + len);
        CheckAllReduce<int32_t>(r, n, len, 31 * n + len);
      }
    }
  }
}

TEST(RingAllReduceTest, DoubleAndInt64) {
  for (Reduction r : {Reduction::kSum, Reduction::kMean, Reduction::kMax}) {
    CheckAllReduce<double>(r, 3, 101, 5);
    CheckAllReduce<int64_t>(r, 5, 99, 6);
  }
}

// 1M elements: several tasks per chunk, spread over the pool.
TEST(RingAllReduceTest, LargeTensorsOnThePool) {
  for (int n : {2, 3, 4, 8}) {
    CheckAllReduce<float>(Reduction::kSum, n, 1 << 20, n);
    CheckAllReduce<float>(Reduction::kMean, n, (1 << 20) + 3, n + 100);
  }
  CheckAllReduce<int64_t>(Reduction::kMax, 4, 1 << 20, 9);
}

TEST(RingAllReduceTest, IntegerResultsAreExact) {
  std::mt19937 rng(3);
  std::vector<Member> members = MakeMembers<int32_t>(6, 1000, &rng);
  auto exec = CollectiveExecutor::Create(Pool());
  Instance inst;
  inst.reduction = Reduction::kSum;
  RunInstance(exec.get(), inst, &members, Iota(6));
  for (int64_t i = 0; i < 1000; ++i) {
    int32_t sum = 0;
    for (const Member& m : members) sum += m.input.data<int32_t>()[i];
    for (const Member& m : members) {
      ASSERT_EQ(m.output.data<int32_t>()[i], sum) << i;
    }
  }
}

TEST(RingAllReduceTest, MeanDividesTheSumOnce) {
  // 1 + 2 + 2 = 5, mean 5/3 for every element; int32 truncates to 1.
  auto exec = CollectiveExecutor::Create(Pool());
  for (DataType dtype : {DT_FLOAT, DT_INT32}) {
    std::vector<Member> members(3);
    for (int i = 0; i < 3; ++i) {
      members[i].device = Cpu(i);
      members[i].output = Tensor(dtype, TensorShape({4}));
      if (dtype == DT_FLOAT) {
        members[i].input =
            Tensor::FromVector<float>(std::vector<float>(4, i == 0 ? 1 : 2));
      } else {
        members[i].input = Tensor::FromVector<int32_t>(
            std::vector<int32_t>(4, i == 0 ? 1 : 2));
      }
    }
    Instance inst;
    inst.reduction = Reduction::kMean;
    inst.step_id = dtype;
    RunInstance(exec.get(), inst, &members, Iota(3));
    for (const Member& m : members) {
      ASSERT_TRUE(m.status.ok()) << m.status;
      if (dtype == DT_FLOAT) {
        for (float v : m.output.flat<float>()) EXPECT_EQ(v, 5.0f / 3.0f);
      } else {
        for (int32_t v : m.output.flat<int32_t>()) EXPECT_EQ(v, 1);
      }
    }
  }
}

TEST(RingAllReduceTest, MaxPropagatesNaNFromAnyRank) {
  auto exec = CollectiveExecutor::Create(Pool());
  for (int nan_rank = 0; nan_rank < 4; ++nan_rank) {
    std::vector<Member> members(4);
    for (int i = 0; i < 4; ++i) {
      members[i].device = Cpu(i);
      members[i].output = Tensor(DT_FLOAT, TensorShape({8}));
      std::vector<float> v(8, static_cast<float>(i));
      if (i == nan_rank) v[5] = std::numeric_limits<float>::quiet_NaN();
      members[i].input = Tensor::FromVector<float>(v);
    }
    Instance inst;
    inst.reduction = Reduction::kMax;
    inst.step_id = nan_rank;
    RunInstance(exec.get(), inst, &members, Iota(4));
    for (const Member& m : members) {
      ASSERT_TRUE(m.status.ok());
      auto f = m.output.flat<float>();
      for (int k = 0; k < 8; ++k) {
        if (k == 5) {
          EXPECT_TRUE(std::isnan(f[k])) << "NaN on rank " << nan_rank;
        } else {
          EXPECT_EQ(f[k], 3.0f);
        }
      }
    }
  }
}

// 20 runs, each with its own shuffled arrival order and submitting threads:
// every output of every run is bitwise the first run's.
TEST(RingAllReduceTest, BitwiseReproducibleWhateverTheArrivalOrder) {
  for (int n : {3, 5, 8}) {
    std::mt19937 rng(n);
    std::vector<Member> members = MakeMembers<float>(n, 100003, &rng);
    auto exec = CollectiveExecutor::Create(Pool());
    std::vector<float> first;
    std::vector<int> order = Iota(n);
    for (int run = 0; run < 20; ++run) {
      std::shuffle(order.begin(), order.end(), rng);
      for (Member& m : members) {
        m.output = Tensor(DT_FLOAT, TensorShape({100003}));
      }
      Instance inst;
      inst.step_id = run;
      RunInstance(exec.get(), inst, &members, order, /*threads=*/1 + run % 3);
      if (run == 0) {
        auto f = members[0].output.flat<float>();
        first.assign(f.begin(), f.end());
      }
      for (const Member& m : members) {
        ASSERT_TRUE(m.status.ok()) << m.status;
        ASSERT_TRUE(BitwiseEqual(m.output, first)) << "run " << run;
      }
    }
    EXPECT_TRUE(BitwiseEqual(members[0].output,
                             RingReference<float>(Reduction::kSum, members)));
    // The data is chosen so that order matters: summing in reverse rank
    // order differs somewhere, so the test above could have failed.
    bool differs = false;
    for (int64_t i = 0; i < 100003 && !differs; ++i) {
      float s = 0;
      for (int k = n - 1; k >= 0; --k) s += members[k].input.data<float>()[i];
      differs = s != first[i];
    }
    EXPECT_TRUE(differs);
  }
}

// Packing tensors into one buffer (tensor fusion) changes no bit: an
// element's result does not depend on its position or the chunking.
TEST(RingAllReduceTest, ResultsDoNotDependOnPositionInTheBuffer) {
  const int n = 5;
  std::mt19937 rng(12);
  std::vector<Member> a = MakeMembers<float>(n, 1001, &rng);
  std::vector<Member> b = MakeMembers<float>(n, 3, &rng);
  std::vector<Member> packed(n);
  for (int i = 0; i < n; ++i) {
    packed[i].device = Cpu(i);
    std::vector<float> v(a[i].input.flat<float>().begin(),
                         a[i].input.flat<float>().end());
    v.insert(v.end(), b[i].input.flat<float>().begin(),
             b[i].input.flat<float>().end());
    packed[i].input = Tensor::FromVector<float>(v);
    packed[i].output = Tensor(DT_FLOAT, TensorShape({1004}));
  }
  auto exec = CollectiveExecutor::Create(Pool());
  Instance inst;
  inst.instance_key = 1;
  RunInstance(exec.get(), inst, &a, Iota(n));
  inst.instance_key = 2;
  RunInstance(exec.get(), inst, &b, Iota(n));
  inst.instance_key = 3;
  RunInstance(exec.get(), inst, &packed, Iota(n));
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(packed[i].status.ok());
    EXPECT_EQ(std::memcmp(packed[i].output.raw_data(), a[i].output.raw_data(),
                          1001 * sizeof(float)),
              0);
    EXPECT_EQ(std::memcmp(packed[i].output.flat<float>().data() + 1001,
                          b[i].output.raw_data(), 3 * sizeof(float)),
              0);
  }
}

TEST(RingAllGatherTest, ConcatenatesInRankOrder) {
  for (int n = 1; n <= 8; ++n) {
    for (int64_t len : {0, 1, 7, 300001}) {
      std::mt19937 rng(n * 7 + len);
      std::vector<Member> members = MakeMembers<int32_t>(n, len, &rng, n * len);
      // Devices named out of order: rank follows the device, not the index.
      std::vector<int> order = Iota(n);
      std::shuffle(order.begin(), order.end(), rng);
      auto exec = CollectiveExecutor::Create(Pool());
      Instance inst;
      inst.kind = CollectiveKind::kAllGather;
      RunInstance(exec.get(), inst, &members, order);
      std::vector<int32_t> want;
      for (const Member& m : members) {
        auto f = m.input.flat<int32_t>();
        want.insert(want.end(), f.begin(), f.end());
      }
      for (const Member& m : members) {
        ASSERT_TRUE(m.status.ok()) << m.status;
        EXPECT_TRUE(BitwiseEqual(m.output, want))
            << "n=" << n << " len=" << len;
      }
    }
  }
}

TEST(RingBroadcastTest, EveryReceiverGetsTheSendersTensor) {
  for (int n = 1; n <= 8; ++n) {
    for (int64_t len : {0, 1, 7, 262147}) {
      const int sender = (n * 5 + 3) % n;
      std::mt19937 rng(n + len);
      std::vector<Member> members = MakeMembers<double>(n, len, &rng);
      members[sender].output = Tensor();  // a sender's result is its input
      for (int i = 0; i < n; ++i) {
        if (i != sender) members[i].input = Tensor();
      }
      auto exec = CollectiveExecutor::Create(Pool());
      Instance inst;
      inst.kind = CollectiveKind::kBroadcastRecv;
      std::vector<int> order = Iota(n);
      std::reverse(order.begin(), order.end());
      RunInstance(exec.get(), inst, &members, order, 1, sender);
      auto f = members[sender].input.flat<double>();
      const std::vector<double> want(f.begin(), f.end());
      for (int i = 0; i < n; ++i) {
        ASSERT_TRUE(members[i].status.ok()) << members[i].status;
        if (i != sender) {
          EXPECT_TRUE(BitwiseEqual(members[i].output, want));
        }
      }
    }
  }
}

TEST(CollectiveExecutorTest, StepsWithTheSameKeysDoNotMix) {
  auto exec = CollectiveExecutor::Create(Pool());
  std::vector<std::vector<Member>> steps(2, std::vector<Member>(2));
  Latch latch(4);
  for (int s = 0; s < 2; ++s) {
    for (int i = 0; i < 2; ++i) {
      steps[s][i].device = Cpu(i);
      steps[s][i].input = Tensor::FromVector<float>({float(10 * s + i)});
      steps[s][i].output = Tensor(DT_FLOAT, TensorShape({1}));
    }
  }
  // Interleaved: step 0 rank 0, step 1 rank 0, step 1 rank 1, step 0 rank 1.
  for (auto [s, i] :
       std::vector<std::pair<int, int>>{{0, 0}, {1, 0}, {1, 1}, {0, 1}}) {
    Instance inst;
    inst.step_id = 100 + s;
    exec->Submit(
        MakeRequest(inst, CollectiveKind::kAllReduce, 2, &steps[s][i], &latch));
  }
  latch.Wait();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(steps[0][i].output.flat<float>()[0], 1.0f);
    EXPECT_EQ(steps[1][i].output.flat<float>()[0], 21.0f);
  }
}

TEST(CollectiveExecutorTest, ManyInstancesFromManyThreads) {
  auto exec = CollectiveExecutor::Create(Pool());
  constexpr int kInstances = 300;
  constexpr int kMembers = 4;
  std::vector<std::vector<Member>> all(kInstances,
                                       std::vector<Member>(kMembers));
  Latch latch(kInstances * kMembers);
  for (int k = 0; k < kInstances; ++k) {
    for (int i = 0; i < kMembers; ++i) {
      all[k][i].device = Cpu(i);
      all[k][i].input = Tensor::FromVector<int64_t>({k, i});
      all[k][i].output = Tensor(DT_INT64, TensorShape({2}));
    }
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < kMembers; ++i) {
    threads.emplace_back([&, i] {
      for (int k = 0; k < kInstances; ++k) {
        Instance inst;
        inst.instance_key = k;
        exec->Submit(MakeRequest(inst, CollectiveKind::kAllReduce, kMembers,
                                 &all[k][i], &latch));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  latch.Wait();
  for (int k = 0; k < kInstances; ++k) {
    for (const Member& m : all[k]) {
      ASSERT_TRUE(m.status.ok()) << m.status;
      EXPECT_EQ(m.output.flat<int64_t>()[0], kMembers * k);
      EXPECT_EQ(m.output.flat<int64_t>()[1], 0 + 1 + 2 + 3);
    }
  }
  EXPECT_EQ(exec->num_pending_instances(), 0);
}

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
  const absl::Time now = absl::Now();
  timer->Schedule(now + absl::Milliseconds(40), [&] {
    std::lock_guard<std::mutex> lock(mu);
    ran.push_back(2);
    latch.CountDown();
  });
  const CollectiveTimer::Id cancelled =
      timer->Schedule(now + absl::Milliseconds(20), [&] {
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
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(ran, (std::vector<int>{1, 2}));
}

TEST(CollectiveRegistryTest, OneExecutorPerStore) {
  VariableStore a, b;
  auto ea = CollectiveExecutorForStore(&a, Pool());
  EXPECT_EQ(ea, CollectiveExecutorForStore(&a, Pool()));
  EXPECT_NE(ea, CollectiveExecutorForStore(&b, Pool()));
  EXPECT_EQ(CollectiveExecutorForStore(nullptr, Pool()), nullptr);
  ReleaseCollectiveExecutorForStore(&a);
  EXPECT_NE(ea, CollectiveExecutorForStore(&a, Pool()));
  ReleaseCollectiveExecutorForStore(&a);
  ReleaseCollectiveExecutorForStore(&b);
}

}  // namespace
}  // namespace dflow
