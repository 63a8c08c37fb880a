// The collective executor and its CPU ring, driven directly (no session, no
// kernels): results of all-reduce, all-gather and broadcast for group sizes
// 1-8 and tensor sizes 0, 1, odd and large against references computed here;
// bitwise determinism whatever the arrival order and thread; one executor per
// variable store. The ways an instance can fail are in
// collective_failure_test.cc.

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
using testing_collective::BitwiseEqual;
using testing_collective::Cpu;
using testing_collective::Instance;
using testing_collective::Iota;
using testing_collective::Latch;
using testing_collective::MakeMembers;
using testing_collective::MakeRequest;
using testing_collective::Member;
using testing_collective::Pool;
using testing_collective::RingReference;
using testing_collective::RunInstance;

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
