// The host-side logic of the GPU collectives, with fake member descriptions
// (no streams, no buffers, no GPU): which path a group takes (NCCL when
// every member has a physical GPU of its own, the device-memory ring when
// virtual GPUs share one or NCCL is missing), how the placement summary
// describes it, the argument checks of RunGpuCollective and of the NCCL
// communicator cache and the ring kernels. Runs everywhere.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/gpu/cuda_status.h"
#include "runtime/gpu/gpu_collective.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/gpu/gpu_ring_reduce.h"
#include "runtime/gpu/nccl_communicator.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

std::string Gpu(int id) {
  return "/job:localhost/replica:0/task:0/device:GPU:" + std::to_string(id);
}

// Members GPU:0.. on the given physical GPUs.
std::vector<GpuCollectiveMember> OnGpus(const std::vector<int>& ordinals) {
  std::vector<GpuCollectiveMember> members;
  for (size_t i = 0; i < ordinals.size(); ++i) {
    GpuCollectiveMember m;
    m.device = Gpu(static_cast<int>(i));
    m.physical_ordinal = ordinals[i];
    members.push_back(m);
  }
  return members;
}

// Stand-ins for device pointers: never dereferenced by the checks.
float fake_in[4], fake_out[4];

std::vector<GpuCollectiveMember> WithBuffers(
    std::vector<GpuCollectiveMember> members) {
  for (GpuCollectiveMember& m : members) {
    m.input = fake_in;
    m.output = fake_out;
  }
  return members;
}

TEST(GpuCollectivePathTest, DistinctGpusUseNccl) {
  EXPECT_EQ(ChooseGpuCollectivePath(OnGpus({0, 1}), true),
            GpuCollectivePath::kNccl);
  EXPECT_EQ(ChooseGpuCollectivePath(OnGpus({3, 1, 2, 0}), true),
            GpuCollectivePath::kNccl);
  // One member has a GPU to itself too.
  EXPECT_EQ(ChooseGpuCollectivePath(OnGpus({5}), true),
            GpuCollectivePath::kNccl);
}

TEST(GpuCollectivePathTest, VirtualGpusSharingOneUseTheDeviceRing) {
  EXPECT_EQ(ChooseGpuCollectivePath(OnGpus({0, 0}), true),
            GpuCollectivePath::kDeviceRing);
  // Any two members sharing is enough, wherever they are in rank order.
  EXPECT_EQ(ChooseGpuCollectivePath(OnGpus({0, 1, 2, 1}), true),
            GpuCollectivePath::kDeviceRing);
}

TEST(GpuCollectivePathTest, WithoutNcclEveryGroupUsesTheDeviceRing) {
  EXPECT_EQ(ChooseGpuCollectivePath(OnGpus({0, 1}), false),
            GpuCollectivePath::kDeviceRing);
  EXPECT_EQ(ChooseGpuCollectivePath(OnGpus({0}), false),
            GpuCollectivePath::kDeviceRing);
}

TEST(GpuCollectivePathTest, TheDefaultFollowsTheBuild) {
  EXPECT_EQ(BuiltWithNccl(), DFLOW_HAVE_CUDA && DFLOW_HAVE_NCCL);
  EXPECT_EQ(ChooseGpuCollectivePath(OnGpus({0, 1})),
            BuiltWithNccl() ? GpuCollectivePath::kNccl
                            : GpuCollectivePath::kDeviceRing);
  const std::string version = NcclVersionString();
  if (BuiltWithNccl()) {
    EXPECT_THAT(version, ::testing::MatchesRegex("[0-9]+\\.[0-9]+\\.[0-9]+"));
  } else {
    EXPECT_EQ(version, "none");
  }
}

TEST(GpuCollectivePathTest, PathNames) {
  EXPECT_STREQ(GpuCollectivePathName(GpuCollectivePath::kNccl), "nccl");
  EXPECT_STREQ(GpuCollectivePathName(GpuCollectivePath::kDeviceRing),
               "device_ring");
}

TEST(GpuCollectivePathTest, DescriptionsForThePlacementSummary) {
  EXPECT_EQ(DescribeGpuCollectivePath(OnGpus({0, 1}), true),
            "nccl over physical GPUs 0, 1 (GPU:0, GPU:1)");
  EXPECT_EQ(DescribeGpuCollectivePath(OnGpus({2}), true),
            "nccl over physical GPU 2 (GPU:0)");
  EXPECT_EQ(DescribeGpuCollectivePath(OnGpus({0, 0, 1, 1, 2}), true),
            "device_ring: GPU:0, GPU:1 share physical GPU 0; GPU:2, GPU:3 "
            "share physical GPU 1 (NCCL takes one rank per physical GPU)");
  EXPECT_EQ(DescribeGpuCollectivePath(OnGpus({0, 1}), false),
            "device_ring over physical GPUs 0, 1 (GPU:0, GPU:1): this build "
            "has no NCCL");
}

TEST(GpuCollectiveValidateTest, AGroupNeedsMembers) {
  GpuCollectiveSpec spec;
  spec.label = "collective all-reduce (group 1, instance 2, step 3)";
  absl::Status s = ValidateGpuCollective(spec, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("collective all-reduce (group 1, instance 2, step 3): "
                        "a GPU all-reduce has no members"));
}

TEST(GpuCollectiveValidateTest, BroadcastNeedsASenderInTheGroup) {
  GpuCollectiveSpec spec;
  spec.op = GpuCollectiveOp::kBroadcast;
  spec.count = 4;
  for (int source : {-1, 2}) {
    spec.source = source;
    absl::Status s = ValidateGpuCollective(spec, WithBuffers(OnGpus({0, 1})));
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr("the group has ranks 0..1"));
  }
}

TEST(GpuCollectiveValidateTest, BuffersMustBeThereWhereTheOpUsesThem) {
  GpuCollectiveSpec spec;
  spec.count = 4;
  std::vector<GpuCollectiveMember> members = WithBuffers(OnGpus({0, 1}));
  members[1].input = nullptr;
  absl::Status s = ValidateGpuCollective(spec, members);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("rank 1 (" + Gpu(1) + ") gave no input"));

  members = WithBuffers(OnGpus({0, 1}));
  members[0].output = nullptr;
  s = ValidateGpuCollective(spec, members);
  EXPECT_THAT(s.message(), HasSubstr("rank 0 (" + Gpu(0) + ") gave no output"));

  // A broadcast's sender writes nothing and its receivers read nothing: the
  // check moves past the buffers and stops at the missing streams.
  spec.op = GpuCollectiveOp::kBroadcast;
  spec.source = 1;
  members = WithBuffers(OnGpus({0, 1}));
  members[1].output = nullptr;
  members[0].input = nullptr;
  s = ValidateGpuCollective(spec, members);
  EXPECT_THAT(s.message(), HasSubstr("has no GPU streams"));

  // Nothing to move: no buffers needed.
  spec = GpuCollectiveSpec();
  spec.count = 0;
  s = ValidateGpuCollective(spec, OnGpus({0, 1}));
  EXPECT_THAT(s.message(), HasSubstr("has no GPU streams"));
}

TEST(GpuCollectiveValidateTest, MembersNeedAPhysicalGpu) {
  GpuCollectiveSpec spec;
  absl::Status s = ValidateGpuCollective(spec, OnGpus({0, -1}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("rank 1 (" + Gpu(1) +
                                     ") has no physical GPU (ordinal -1)"));
}

TEST(GpuCollectiveValidateTest, NcclIsRefusedForVirtualGpus) {
  GpuCollectiveSpec spec;
  spec.count = 4;
  spec.label = "my all-reduce";
  spec.path = GpuCollectivePath::kNccl;
  absl::Status s = ValidateGpuCollective(spec, WithBuffers(OnGpus({0, 0})));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("my all-reduce: "));
  EXPECT_THAT(s.message(), HasSubstr("GPU 0 is listed twice"));
  EXPECT_THAT(s.message(), HasSubstr("device-memory ring"));
  // The ring takes them.
  spec.path = GpuCollectivePath::kDeviceRing;
  s = ValidateGpuCollective(spec, WithBuffers(OnGpus({0, 0})));
  EXPECT_THAT(s.message(), HasSubstr("has no GPU streams"));
}

TEST(GpuCollectiveRunTest, CheckFailuresAreReportedThroughTheCallback) {
  GpuCollectiveSpec spec;
  spec.label = "run";
  spec.count = 4;
  absl::Status got;
  int calls = 0;
  RunGpuCollective(spec, WithBuffers(OnGpus({0, 0})), [&](absl::Status s) {
    got = std::move(s);
    ++calls;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(got.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(got.message(), HasSubstr("run: rank 0"));
}

TEST(NcclCommunicatorTest, OrdinalsAreChecked) {
  EXPECT_TRUE(ValidateNcclOrdinals({0}).ok());
  EXPECT_TRUE(ValidateNcclOrdinals({2, 0, 1}).ok());
  EXPECT_EQ(ValidateNcclOrdinals({}).code(),
            absl::StatusCode::kInvalidArgument);
  absl::Status s = ValidateNcclOrdinals({0, -2});
  EXPECT_THAT(s.message(), HasSubstr("-2 is not a GPU ordinal"));
  s = ValidateNcclOrdinals({1, 0, 1});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("GPUs 1, 0, 1: GPU 1 is listed twice"));
  // The cache checks before anything else.
  NcclCommunicatorCache cache;
  EXPECT_EQ(cache.Get({0, 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cache.Get({}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cache.size(), 0);
}

TEST(NcclCommunicatorTest, WithoutAGpuNothingIsCachedAndTheReasonIsGiven) {
  if (GpusAvailable().ok()) GTEST_SKIP() << "this machine has a GPU";
  NcclCommunicatorCache cache;
  for (int attempt = 0; attempt < 2; ++attempt) {
    absl::Status s = cache.Get({0}).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  }
  EXPECT_EQ(cache.size(), 0);
}

TEST(GpuRingReduceTest, ElementSizes) {
  EXPECT_EQ(RingElementSize(RingElementType::kFloat), 4);
  EXPECT_EQ(RingElementSize(RingElementType::kInt32), 4);
  EXPECT_EQ(RingElementSize(RingElementType::kDouble), 8);
  EXPECT_EQ(RingElementSize(RingElementType::kInt64), 8);
}

TEST(GpuRingReduceTest, ArgumentsAreCheckedBeforeAnyLaunch) {
  const void* in[2] = {fake_in, nullptr};
  void* out[1] = {fake_out};
  // Nothing to do is fine (and touches nothing) in a build with CUDA.
  if (BuiltWithCuda()) {
    EXPECT_TRUE(LaunchRingReduce(RingElementType::kFloat, RingCombine::kSum, in,
                                 2, out, 1, 0, 0, nullptr)
                    .ok());
    EXPECT_TRUE(
        LaunchRingDivide(RingElementType::kFloat, fake_out, 4, 1, nullptr)
            .ok());
  }
  absl::Status s = LaunchRingReduce(RingElementType::kFloat, RingCombine::kSum,
                                    in, 2, out, 1, 4, 0, nullptr);
  EXPECT_FALSE(s.ok());
  if (BuiltWithCuda()) {
    EXPECT_THAT(s.message(), HasSubstr("input 1 is null"));
  }
  s = LaunchRingReduce(RingElementType::kFloat, RingCombine::kMax, in, 0, out,
                       1, 4, 0, nullptr);
  EXPECT_FALSE(s.ok());
  s = LaunchRingDivide(RingElementType::kInt64, nullptr, 4, 3, nullptr);
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace dflow
