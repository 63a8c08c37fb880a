// The GPU backend of the CollectiveExecutor (runtime/gpu/
// gpu_collective_backend.cc, linked alwayslink): registered for kernel
// device type "GPU"; members whose device is not a GpuDevice fail with the
// instance named; the placement summary's line. Those run everywhere. On a
// GPU: virtual GPUs on GPU 0 all-reduce through the executor on the device
// ring (bitwise the CPU ring's mean), and GPU 0 alone through NCCL.
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/collective_backend.h"
#include "runtime/collective_executor.h"
#include "runtime/collective_ring.h"
#include "runtime/cross_process_nccl.h"
#include "runtime/device.h"
#include "runtime/gpu/gpu_device.h"
#include "runtime/gpu/nccl_communicator.h"
#include "runtime/thread_pool.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Gpu(int id) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:GPU:", id);
}

// A device of type GPU running GPU kernels that is not a GpuDevice.
std::unique_ptr<Device> NotAGpuDevice(int id) {
  DeviceAttributes attrs;
  attrs.kernel_device_type = "GPU";
  return std::make_unique<Device>(*DeviceSpec::Parse(Gpu(id)), attrs,
                                  ProcessAllocator(absl::StrCat("GPU:", id)),
                                  ThreadPool::Shared());
}

ThreadPool* Pool() {
  static ThreadPool* pool = new ThreadPool(2);
  return pool;
}

struct Outcome {
  std::mutex mu;
  std::vector<absl::Status> statuses;
  absl::Notification all;
  int expected = 0;
  void Add(const absl::Status& s) {
    std::lock_guard<std::mutex> lock(mu);
    statuses.emplace_back(s.code(), std::string(s.message()));
    if (static_cast<int>(statuses.size()) == expected) all.Notify();
  }
};

// Submits an all-reduce member per device, waits for all.
std::vector<absl::Status> AllReduce(CollectiveExecutor* exec,
                                    const std::vector<const Device*>& devices,
                                    const std::vector<Tensor>& inputs,
                                    const std::vector<Tensor>& outputs,
                                    Reduction reduction,
                                    std::vector<CollectiveTiming>* timings) {
  // Shared with the callbacks: the last one may still be unlocking `mu`
  // (or inside Notify) when the wait below returns, so a stack Outcome
  // could be destroyed under it (an abort at exit, 1 run in 40).
  auto outcome = std::make_shared<Outcome>();
  outcome->expected = static_cast<int>(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    CollectiveRequest r;
    r.reduction = reduction;
    r.group_size = static_cast<int64_t>(devices.size());
    r.group_key = 3;
    r.instance_key = 9;
    r.step_id = 1;
    r.device = devices[i] != nullptr ? devices[i]->name() : Gpu(i);
    r.node = absl::StrCat("allreduce_", i);
    r.kernel_device_type = "GPU";
    r.device_object = devices[i];
    r.input = inputs[i];
    r.output = outputs[i];
    if (timings != nullptr) r.timing = &(*timings)[i];
    r.done = [outcome](const absl::Status& s) { outcome->Add(s); };
    exec->Submit(std::move(r));
  }
  outcome->all.WaitForNotification();
  std::lock_guard<std::mutex> lock(outcome->mu);
  return outcome->statuses;
}

TEST(GpuCollectiveBackendTest, IsRegisteredForGpuKernels) {
  CollectiveBackend* backend = FindCollectiveBackend("GPU");
  ASSERT_NE(backend, nullptr);
  EXPECT_THAT(backend->Name(), HasSubstr("NCCL"));
}

TEST(GpuCollectiveBackendTest, MembersMustBeGpuDevices) {
  auto exec = CollectiveExecutor::Create(Pool());
  std::unique_ptr<Device> a = NotAGpuDevice(0);
  std::vector<Tensor> in = {Tensor(DT_FLOAT, TensorShape({3})),
                            Tensor(DT_FLOAT, TensorShape({3}))};
  std::vector<Tensor> out = {Tensor(DT_FLOAT, TensorShape({3})),
                             Tensor(DT_FLOAT, TensorShape({3}))};
  // GPU:1 has no device object at all.
  std::vector<absl::Status> got = AllReduce(exec.get(), {a.get(), nullptr}, in,
                                            out, Reduction::kSum, nullptr);
  ASSERT_EQ(got.size(), 2u);
  for (const absl::Status& s : got) {
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
    EXPECT_THAT(std::string(s.message()),
                StartsWith("collective all-reduce (group 3, instance 9, step "
                           "1) on the GPU (NCCL or device ring) backend: "));
    // The first member in rank order is the one named.
    EXPECT_THAT(s.message(), HasSubstr(Gpu(0) + " is not a CUDA GPU device"));
    EXPECT_THAT(s.message(), HasSubstr("a fake GPU runs CPU kernels"));
  }
  std::unique_ptr<Device> b = NotAGpuDevice(1);
  EXPECT_THAT(
      DescribeCollectiveGroup({a.get(), b.get()}),
      StartsWith("cannot run: " + Gpu(0) + " is not a CUDA GPU device"));
}

// The NCCL engine across processes (cross_process_nccl_gpu.cc) is linked
// where NCCL is, and refuses members that are not CUDA GPUs before it
// touches NCCL.
TEST(CrossProcessNcclTest, EngineIsLinkedAndRefusesNonGpuMembers) {
  if (!BuiltWithNccl()) GTEST_SKIP() << "built without NCCL";
  CrossProcessNccl* engine = LinkedCrossProcessNccl();
  ASSERT_NE(engine, nullptr);
  EXPECT_THAT(engine->Name(), StartsWith("NCCL "));
  std::unique_ptr<Device> a = NotAGpuDevice(0);
  CollectiveRequest member;
  member.device = Gpu(0);
  member.device_object = a.get();
  auto ranks = engine->StartRanks(std::string(128, 'x'), 2, {0}, {&member});
  EXPECT_EQ(ranks.status().code(), absl::StatusCode::kFailedPrecondition)
      << ranks.status();
  auto short_id = engine->StartRanks("id", 2, {0}, {&member});
  EXPECT_EQ(short_id.status().code(), absl::StatusCode::kInvalidArgument)
      << short_id.status();
}

#if DFLOW_HAVE_CUDA

// Device memory of GPU `ordinal` through cudaMalloc, for tensors.
class CudaMallocAllocator : public Allocator {
 public:
  explicit CudaMallocAllocator(int ordinal) : ordinal_(ordinal) {}
  void* AllocateRaw(size_t, size_t bytes) override {
    void* p = nullptr;
    if (cudaSetDevice(ordinal_) != cudaSuccess ||
        cudaMalloc(&p, bytes == 0 ? 1 : bytes) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return p;
  }
  void DeallocateRaw(void* ptr, size_t) override { cudaFree(ptr); }
  std::string Name() const override { return "cuda_malloc"; }

 private:
  int ordinal_;
};

struct VirtualGpus {
  CudaMallocAllocator base{0};
  std::vector<std::unique_ptr<TrackingAllocator>> allocators;
  std::vector<std::unique_ptr<GpuDevice>> devices;

  explicit VirtualGpus(int n) {
    for (int i = 0; i < n; ++i) {
      allocators.push_back(
          std::make_unique<TrackingAllocator>(&base, absl::StrCat("GPU:", i)));
      GpuDeviceOptions o;
      o.id = i;
      o.physical_ordinal = 0;
      o.memory_limit = int64_t{1} << 30;
      o.virtual_index = i;
      o.virtual_count = n;
      auto d = NewGpuDevice(o, allocators.back().get(), ThreadPool::Shared());
      EXPECT_TRUE(d.ok()) << d.status();
      devices.push_back(*std::move(d));
    }
  }
  std::vector<const Device*> list() const {
    std::vector<const Device*> out;
    for (const auto& d : devices) out.push_back(d.get());
    return out;
  }
};

Tensor ToDevice(GpuDevice* d, const std::vector<float>& v) {
  Tensor t(d->allocator(), DT_FLOAT,
           TensorShape({static_cast<int64_t>(v.size())}));
  EXPECT_EQ(cudaMemcpy(t.raw_data(), v.data(), v.size() * sizeof(float),
                       cudaMemcpyHostToDevice),
            cudaSuccess);
  return t;
}

std::vector<float> ToHost(const Tensor& t) {
  std::vector<float> v(t.NumElements());
  EXPECT_EQ(cudaMemcpy(v.data(), t.raw_data(), v.size() * sizeof(float),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
  return v;
}

void CheckMeanThroughTheExecutor(VirtualGpus& gpus) {
  const int n = static_cast<int>(gpus.devices.size());
  constexpr int64_t kCount = 1001;
  std::vector<std::vector<float>> host(n, std::vector<float>(kCount));
  for (int r = 0; r < n; ++r) {
    for (int64_t i = 0; i < kCount; ++i) {
      host[r][i] =
          std::ldexp(1.0f + 0.37f * r + 1e-3f * i, (i * 7 + r) % 41 - 20);
    }
  }
  std::vector<Tensor> in, out;
  for (int r = 0; r < n; ++r) {
    in.push_back(ToDevice(gpus.devices[r].get(), host[r]));
    out.push_back(
        ToDevice(gpus.devices[r].get(), std::vector<float>(kCount, -7.0f)));
  }
  auto exec = CollectiveExecutor::Create(Pool());
  std::vector<CollectiveTiming> timings(n);
  std::vector<absl::Status> got =
      AllReduce(exec.get(), gpus.list(), in, out, Reduction::kMean, &timings);
  for (const absl::Status& s : got) ASSERT_TRUE(s.ok()) << s;
  // The CPU ring on the same inputs.
  std::vector<std::vector<float>> cpu_out(n, std::vector<float>(kCount));
  RingBuffers b;
  b.dtype = DT_FLOAT;
  b.num_elements = kCount;
  for (int r = 0; r < n; ++r) {
    b.inputs.push_back(host[r].data());
    b.outputs.push_back(cpu_out[r].data());
  }
  RingWork::AllReduce(Reduction::kMean, std::move(b)).RunAll();
  for (int r = 0; r < n; ++r) {
    std::vector<float> v = ToHost(out[r]);
    EXPECT_EQ(std::memcmp(v.data(), cpu_out[0].data(), kCount * sizeof(float)),
              0)
        << "rank " << r;
    EXPECT_LE(timings[r].group_complete, timings[r].work_end);
  }
}

TEST(GpuCollectiveBackendTest, VirtualGpusAllReduceOnTheDeviceRing) {
  DFLOW_SKIP_WITHOUT_GPU();
  VirtualGpus gpus(2);
  EXPECT_EQ(DescribeCollectiveGroup(gpus.list()),
            "device_ring: GPU:0, GPU:1 share physical GPU 0 (NCCL takes one "
            "rank per physical GPU)");
  CheckMeanThroughTheExecutor(gpus);
}

TEST(GpuCollectiveBackendTest, OneGpuAllReducesThroughNccl) {
  DFLOW_SKIP_WITHOUT_GPU();
  if (!BuiltWithNccl()) GTEST_SKIP() << "built without NCCL";
  VirtualGpus gpus(1);
  EXPECT_EQ(DescribeCollectiveGroup(gpus.list()),
            "nccl over physical GPU 0 (GPU:0)");
  CheckMeanThroughTheExecutor(gpus);
}

// The engine's whole path on one GPU: a unique id, the non-blocking init
// of a one-rank communicator polled until ready, a mean through it. (Ranks
// in other processes need a GPU each; none was lent to run them.)
TEST(CrossProcessNcclTest, OneRankRunsTheWholePathOnAGpu) {
  DFLOW_SKIP_WITHOUT_GPU();
  if (!BuiltWithNccl()) GTEST_SKIP() << "built without NCCL";
  CrossProcessNccl* engine = LinkedCrossProcessNccl();
  ASSERT_NE(engine, nullptr);
  VirtualGpus gpus(1);
  absl::StatusOr<std::string> id = engine->NewUniqueId();
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(id->size(), 128u);
  std::vector<CollectiveRequest> members(1);
  CollectiveRequest& m = members[0];
  m.kind = CollectiveKind::kAllReduce;
  m.reduction = Reduction::kMean;
  m.device = gpus.devices[0]->name();
  m.device_object = gpus.devices[0].get();
  m.kernel_device_type = "GPU";
  m.input = ToDevice(gpus.devices[0].get(), {1.5f, -2.0f, 4.0f});
  m.output = ToDevice(gpus.devices[0].get(), {0.0f, 0.0f, 0.0f});
  auto ranks = engine->StartRanks(*id, 1, {0}, {&m});
  ASSERT_TRUE(ranks.ok()) << ranks.status();
  absl::Status ready;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  do {
    ready = engine->Poll(ranks->get());
  } while (absl::IsUnavailable(ready) && absl::Now() < deadline);
  ASSERT_TRUE(ready.ok()) << ready;
  absl::Notification finished;
  absl::Status ran;
  engine->Run(ranks->get(), &members, {0}, 1, -1,
              absl::Now() + absl::Seconds(60), [&](absl::Status s) {
                ran = std::move(s);
                finished.Notify();
              });
  finished.WaitForNotification();
  ASSERT_TRUE(ran.ok()) << ran;
  EXPECT_EQ(ToHost(m.output), std::vector<float>({1.5f, -2.0f, 4.0f}));
  engine->Abort(ranks->get());
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace dflow
