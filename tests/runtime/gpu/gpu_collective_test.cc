// RunGpuCollective on real GPUs: all-reduce (sum, mean, max; float, double,
// int32, int64), all-gather and broadcast for sizes 0, 1, odd and large,
// against the CPU ring (collective_ring.h) on the same inputs:
//   - the device ring (2, 3 and 10 virtual GPUs on GPU 0; one member forced
//     onto it): bitwise equal, NaN included;
//   - NCCL (GPU 0 alone; every GPU when there are two or more): equal for
//     integers and copies, within rounding for float sums.
// And the ordering: the collective sees a slow kernel's write enqueued
// before it on a member's compute stream, and a copy enqueued after it on a
// member's streams sees its result. Skips without a GPU.
#include "runtime/gpu/gpu_collective.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/collective_ring.h"
#include "runtime/gpu/gpu_streams.h"
#include "tests/runtime/gpu/gpu_test_util.h"
#include "tests/runtime/gpu/slow_kernel.h"

namespace dflow {
namespace {

#if DFLOW_HAVE_CUDA

constexpr int64_t kLarge = (int64_t{1} << 20) + 3;
const int64_t kSizes[] = {0, 1, 7, kLarge};

template <typename T>
struct Types;
template <>
struct Types<float> {
  static constexpr RingElementType kRing = RingElementType::kFloat;
  static constexpr DataType kDtype = DT_FLOAT;
};
template <>
struct Types<double> {
  static constexpr RingElementType kRing = RingElementType::kDouble;
  static constexpr DataType kDtype = DT_DOUBLE;
};
template <>
struct Types<int32_t> {
  static constexpr RingElementType kRing = RingElementType::kInt32;
  static constexpr DataType kDtype = DT_INT32;
};
template <>
struct Types<int64_t> {
  static constexpr RingElementType kRing = RingElementType::kInt64;
  static constexpr DataType kDtype = DT_INT64;
};

template <typename T>
std::vector<T> RandomValues(int64_t n, std::mt19937* rng) {
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    // Wide magnitudes, so the order of additions shows in the bits.
    std::uniform_real_distribution<double> mant(-1, 1);
    std::uniform_int_distribution<int> exp(-20, 20);
    for (T& x : v) x = static_cast<T>(std::ldexp(mant(*rng), exp(*rng)));
  } else {
    std::uniform_int_distribution<int64_t> d(-1000000, 1000000);
    for (T& x : v) x = static_cast<T>(d(*rng));
  }
  return v;
}

// A group's members: each with streams of its own on its physical GPU.
struct Group {
  std::vector<int> ordinals;
  std::vector<std::unique_ptr<GpuStreams>> streams;
  int size() const { return static_cast<int>(ordinals.size()); }
};

Group MakeGroup(const std::vector<int>& ordinals) {
  Group g;
  g.ordinals = ordinals;
  for (int o : ordinals) {
    auto s = GpuStreams::Create(o);
    EXPECT_TRUE(s.ok()) << s.status();
    g.streams.push_back(*std::move(s));
  }
  return g;
}

std::unique_ptr<DeviceBuffer> On(int gpu, size_t bytes) {
  EXPECT_EQ(cudaSetDevice(gpu), cudaSuccess);
  return std::make_unique<DeviceBuffer>(bytes);
}

// Runs one collective on `g` with host `inputs` (one per rank; empty for a
// broadcast receiver) and returns the members' outputs (a broadcast
// sender's: empty) read back from the GPUs.
template <typename T>
std::vector<std::vector<T>> RunOnGpus(Group& g, GpuCollectiveSpec spec,
                                      const std::vector<std::vector<T>>& inputs,
                                      int64_t out_count) {
  const int n = g.size();
  spec.type = Types<T>::kRing;
  std::vector<std::unique_ptr<DeviceBuffer>> in(n), out(n);
  std::vector<GpuCollectiveMember> members(n);
  for (int r = 0; r < n; ++r) {
    GpuCollectiveMember& m = members[r];
    m.device = absl::StrCat("/job:localhost/replica:0/task:0/device:GPU:", r);
    m.physical_ordinal = g.ordinals[r];
    m.streams = g.streams[r].get();
    const bool sender =
        spec.op == GpuCollectiveOp::kBroadcast && r == spec.source;
    const bool receiver = spec.op == GpuCollectiveOp::kBroadcast && !sender;
    if (!receiver) {
      in[r] = On(g.ordinals[r], inputs[r].size() * sizeof(T) + 1);
      EXPECT_EQ(
          cudaMemcpy(in[r]->get(), inputs[r].data(),
                     inputs[r].size() * sizeof(T), cudaMemcpyHostToDevice),
          cudaSuccess);
      m.input = in[r]->get();
    }
    if (!sender) {
      out[r] = On(g.ordinals[r], out_count * sizeof(T) + 1);
      // Poisoned, so an element nobody wrote shows.
      EXPECT_EQ(cudaMemset(out[r]->get(), 0xA5, out_count * sizeof(T)),
                cudaSuccess);
      m.output = out[r]->get();
    }
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  absl::Status s = AwaitCallback([&](GpuStreams::DoneCallback done) {
    RunGpuCollective(spec, members, std::move(done));
  });
  EXPECT_TRUE(s.ok()) << s;
  std::vector<std::vector<T>> results(n);
  for (int r = 0; r < n; ++r) {
    if (out[r] == nullptr) continue;
    results[r].resize(out_count);
    EXPECT_EQ(cudaMemcpy(results[r].data(), out[r]->get(),
                         out_count * sizeof(T), cudaMemcpyDeviceToHost),
              cudaSuccess);
  }
  return results;
}

// The CPU ring's all-reduce of `inputs`.
template <typename T>
std::vector<T> CpuAllReduce(Reduction reduction,
                            const std::vector<std::vector<T>>& inputs) {
  const int64_t count = static_cast<int64_t>(inputs[0].size());
  std::vector<std::vector<T>> outs(inputs.size(), std::vector<T>(count));
  RingBuffers b;
  b.dtype = Types<T>::kDtype;
  b.num_elements = count;
  for (size_t r = 0; r < inputs.size(); ++r) {
    b.inputs.push_back(inputs[r].data());
    b.outputs.push_back(outs[r].data());
  }
  RingWork::AllReduce(reduction, std::move(b)).RunAll();
  return outs[0];
}

template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() ||
          std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <typename T>
void CheckAllReduce(Group& g, std::optional<GpuCollectivePath> path,
                    bool bitwise) {
  std::mt19937 rng(17);
  const int n = g.size();
  for (Reduction reduction :
       {Reduction::kSum, Reduction::kMean, Reduction::kMax}) {
    for (int64_t count : kSizes) {
      SCOPED_TRACE(absl::StrCat(ReductionName(reduction), ", ", count,
                                " elements, ", n, " members"));
      std::vector<std::vector<T>> inputs(n);
      for (auto& v : inputs) v = RandomValues<T>(count, &rng);
      GpuCollectiveSpec spec;
      spec.op = GpuCollectiveOp::kAllReduce;
      spec.combine =
          reduction == Reduction::kMax ? RingCombine::kMax : RingCombine::kSum;
      spec.mean = reduction == Reduction::kMean;
      spec.count = count;
      spec.path = path;
      const std::vector<T> want = CpuAllReduce(reduction, inputs);
      const std::vector<std::vector<T>> got =
          RunOnGpus<T>(g, spec, inputs, count);
      for (int r = 0; r < n; ++r) {
        if (bitwise || !std::is_floating_point_v<T> ||
            reduction == Reduction::kMax) {
          EXPECT_TRUE(SameBits(got[r], want)) << "rank " << r;
          continue;
        }
        for (int64_t i = 0; i < count; ++i) {
          double scale = 0;
          for (const auto& v : inputs)
            scale += std::fabs(static_cast<double>(v[i]));
          const double tol = 4.0 * n * std::numeric_limits<T>::epsilon() *
                             std::max(scale, 1e-30);
          ASSERT_NEAR(got[r][i], want[i], tol) << "rank " << r << " i " << i;
        }
      }
    }
  }
}

template <typename T>
void CheckGatherAndBroadcast(Group& g, std::optional<GpuCollectivePath> path) {
  std::mt19937 rng(23);
  const int n = g.size();
  for (int64_t count : kSizes) {
    SCOPED_TRACE(absl::StrCat(count, " elements, ", n, " members"));
    std::vector<std::vector<T>> inputs(n);
    for (auto& v : inputs) v = RandomValues<T>(count, &rng);
    GpuCollectiveSpec spec;
    spec.op = GpuCollectiveOp::kAllGather;
    spec.count = count;
    spec.path = path;
    std::vector<T> gathered;
    for (const auto& v : inputs)
      gathered.insert(gathered.end(), v.begin(), v.end());
    auto got = RunOnGpus<T>(g, spec, inputs, count * n);
    for (int r = 0; r < n; ++r) {
      EXPECT_TRUE(SameBits(got[r], gathered)) << "all-gather, rank " << r;
    }
    spec.op = GpuCollectiveOp::kBroadcast;
    for (int source = 0; source < n; ++source) {
      spec.source = source;
      got = RunOnGpus<T>(g, spec, inputs, count);
      for (int r = 0; r < n; ++r) {
        if (r == source) continue;
        EXPECT_TRUE(SameBits(got[r], inputs[source]))
            << "broadcast from " << source << ", rank " << r;
      }
    }
  }
}

template <typename T>
void CheckEverything(Group& g, std::optional<GpuCollectivePath> path,
                     bool bitwise) {
  CheckAllReduce<T>(g, path, bitwise);
  CheckGatherAndBroadcast<T>(g, path);
}

TEST(GpuCollectiveTest, VirtualGpusOnGpu0RunTheDeviceRingBitwiseAsTheCpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  for (int n : {2, 3}) {
    Group g = MakeGroup(std::vector<int>(n, 0));
    ASSERT_EQ(ChooseGpuCollectivePath(
                  {GpuCollectiveMember{"a", 0}, GpuCollectiveMember{"b", 0}}),
              GpuCollectivePath::kDeviceRing);
    CheckEverything<float>(g, std::nullopt, /*bitwise=*/true);
    CheckEverything<double>(g, std::nullopt, true);
    CheckEverything<int32_t>(g, std::nullopt, true);
    CheckEverything<int64_t>(g, std::nullopt, true);
  }
}

TEST(GpuCollectiveTest, TenVirtualGpusChainTheReductionInRankOrder) {
  DFLOW_SKIP_WITHOUT_GPU();
  // More members than one kernel launch takes (8 inputs, 8 outputs).
  Group g = MakeGroup(std::vector<int>(10, 0));
  CheckAllReduce<float>(g, std::nullopt, /*bitwise=*/true);
  CheckAllReduce<int32_t>(g, std::nullopt, true);
}

TEST(GpuCollectiveTest, OneMemberForcedOntoTheDeviceRing) {
  DFLOW_SKIP_WITHOUT_GPU();
  Group g = MakeGroup({0});
  CheckEverything<float>(g, GpuCollectivePath::kDeviceRing, true);
}

TEST(GpuCollectiveTest, DeviceRingMaxPropagatesNanAsTheCpuDoes) {
  DFLOW_SKIP_WITHOUT_GPU();
  Group g = MakeGroup({0, 0, 0});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::vector<float>> inputs = {
      {nan, 1, 2, -0.0f}, {3, nan, 1, 0.0f}, {1, 2, nan, -1}};
  GpuCollectiveSpec spec;
  spec.combine = RingCombine::kMax;
  spec.count = 4;
  const std::vector<float> want = CpuAllReduce(Reduction::kMax, inputs);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(want[i]));
  auto got = RunOnGpus<float>(g, spec, inputs, 4);
  for (const auto& v : got) EXPECT_TRUE(SameBits(v, want));
}

TEST(GpuCollectiveTest, NcclOnGpu0Alone) {
  DFLOW_SKIP_WITHOUT_GPU();
  if (!BuiltWithNccl()) GTEST_SKIP() << "built without NCCL";
  Group g = MakeGroup({0});
  ASSERT_EQ(ChooseGpuCollectivePath({GpuCollectiveMember{"a", 0}}),
            GpuCollectivePath::kNccl);
  // One rank: a sum is a copy, so even floats match bitwise.
  CheckEverything<float>(g, GpuCollectivePath::kNccl, true);
  CheckEverything<int64_t>(g, GpuCollectivePath::kNccl, true);
  const int cached = NcclCommunicatorCache::Global()->size();
  CheckAllReduce<double>(g, GpuCollectivePath::kNccl, true);
  EXPECT_EQ(NcclCommunicatorCache::Global()->size(), cached)
      << "the communicator for GPU 0 is made once";
}

TEST(GpuCollectiveTest, NcclOverEveryGpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  if (!BuiltWithNccl()) GTEST_SKIP() << "built without NCCL";
  if (VisibleGpuCount() < 2) GTEST_SKIP() << "needs two GPUs";
  std::vector<int> all;
  for (int i = 0; i < VisibleGpuCount(); ++i) all.push_back(i);
  Group g = MakeGroup(all);
  CheckEverything<float>(g, std::nullopt, /*bitwise=*/false);
  CheckEverything<int32_t>(g, std::nullopt, false);
  // Virtual GPUs across physical ones: the ring with peer copies.
  Group mixed = MakeGroup({0, 1, 0});
  CheckEverything<double>(mixed, std::nullopt, true);
}

TEST(GpuCollectiveTest, OrderedAfterTheProducerAndBeforeTheConsumer) {
  DFLOW_SKIP_WITHOUT_GPU();
  for (std::optional<GpuCollectivePath> path :
       {std::optional<GpuCollectivePath>(GpuCollectivePath::kDeviceRing),
        std::optional<GpuCollectivePath>(GpuCollectivePath::kNccl)}) {
    if (*path == GpuCollectivePath::kNccl && !BuiltWithNccl()) continue;
    const std::vector<int> ordinals = *path == GpuCollectivePath::kNccl
                                          ? std::vector<int>{0}
                                          : std::vector<int>{0, 0};
    Group g = MakeGroup(ordinals);
    const int n = g.size();
    constexpr int64_t kCount = 4096;
    std::vector<std::unique_ptr<DeviceBuffer>> in, out;
    std::vector<GpuCollectiveMember> members(n);
    for (int r = 0; r < n; ++r) {
      in.push_back(On(0, kCount * sizeof(float)));
      out.push_back(On(0, kCount * sizeof(float)));
      ASSERT_EQ(cudaMemset(in[r]->get(), 0, kCount * sizeof(float)),
                cudaSuccess);
      ASSERT_EQ(cudaMemset(out[r]->get(), 0, kCount * sizeof(float)),
                cudaSuccess);
      members[r] = {absl::StrCat("GPU:", r), 0, g.streams[r].get(),
                    in[r]->get(), out[r]->get()};
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    // The producers: each member's input written by a kernel that first
    // spins for 100 ms on its compute stream.
    for (int r = 0; r < n; ++r) {
      ASSERT_TRUE(LaunchSpinThenFill(in[r]->floats(), kCount, 1.5f + r,
                                     100'000'000,
                                     g.streams[r]->compute_stream())
                      .ok());
    }
    GpuCollectiveSpec spec;
    spec.count = kCount;
    spec.path = path;
    absl::Notification collective_done;
    absl::Status collective_status;
    RunGpuCollective(spec, members, [&](absl::Status s) {
      collective_status = std::move(s);
      collective_done.Notify();
    });
    // The consumer, enqueued before the collective finished: a copy on the
    // last member's streams.
    std::vector<float> seen(kCount, -1);
    absl::Status copied = AwaitCallback([&](GpuStreams::DoneCallback done) {
      g.streams[n - 1]->CopyDeviceToHost(seen.data(), out[n - 1]->get(),
                                         kCount * sizeof(float),
                                         std::move(done));
    });
    collective_done.WaitForNotification();
    ASSERT_TRUE(collective_status.ok()) << collective_status;
    ASSERT_TRUE(copied.ok()) << copied;
    float want = 0;
    for (int r = 0; r < n; ++r) want += 1.5f + r;
    for (int64_t i = 0; i < kCount; ++i) {
      ASSERT_EQ(seen[i], want) << GpuCollectivePathName(*path) << " i " << i;
    }
  }
}

// The division after an NCCL sum (a mean over two or more GPUs): the CPU
// ring's division, bit for bit, negative integers truncated towards zero.
template <typename T>
void CheckDivide() {
  std::mt19937 rng(5);
  for (int64_t count : kSizes) {
    for (int divisor : {1, 3, 8}) {
      std::vector<T> v = RandomValues<T>(count, &rng);
      std::vector<T> want = v;
      if (divisor > 1) {
        for (T& x : want) x = x / static_cast<T>(divisor);
      }
      auto buffer = On(0, count * sizeof(T) + 1);
      ASSERT_EQ(cudaMemcpy(buffer->get(), v.data(), count * sizeof(T),
                           cudaMemcpyHostToDevice),
                cudaSuccess);
      ASSERT_TRUE(LaunchRingDivide(Types<T>::kRing, buffer->get(), count,
                                   divisor, nullptr)
                      .ok());
      std::vector<T> got(count);
      ASSERT_EQ(cudaMemcpy(got.data(), buffer->get(), count * sizeof(T),
                           cudaMemcpyDeviceToHost),
                cudaSuccess);
      EXPECT_TRUE(SameBits(got, want)) << count << " / " << divisor;
    }
  }
}

TEST(GpuCollectiveTest, MeanDivisionMatchesTheCpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  CheckDivide<float>();
  CheckDivide<double>();
  CheckDivide<int32_t>();
  CheckDivide<int64_t>();
}

TEST(GpuCollectiveTest, ConcurrentCollectivesShareTheStreamsSafely) {
  DFLOW_SKIP_WITHOUT_GPU();
  // Threads completing groups at once: on one group of virtual GPUs (the
  // ring), and through one NCCL communicator, interleaved. Each result must
  // be its own inputs' (the launch lock keeps enqueues whole).
  Group ring = MakeGroup({0, 0});
  Group nccl = MakeGroup({0});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      Group& g = (t % 2 == 0 || !BuiltWithNccl()) ? ring : nccl;
      for (int iter = 0; iter < 10; ++iter) {
        const int64_t count = 1 + (rng() % 100000);
        std::vector<std::vector<float>> inputs(g.size());
        for (auto& v : inputs) v = RandomValues<float>(count, &rng);
        GpuCollectiveSpec spec;
        spec.count = count;
        const std::vector<float> want = CpuAllReduce(Reduction::kSum, inputs);
        auto got = RunOnGpus<float>(g, spec, inputs, count);
        for (const auto& v : got) {
          EXPECT_TRUE(SameBits(v, want)) << "thread " << t << " iter " << iter;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
}

#endif  // DFLOW_HAVE_CUDA

TEST(GpuCollectiveTest, SkipsOrRunsWithoutCrashing) {
  // Keeps this binary meaningful in builds without CUDA.
  DFLOW_SKIP_WITHOUT_GPU();
}

}  // namespace
}  // namespace dflow
