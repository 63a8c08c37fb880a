// The collective kernels' GPU implementations (kernels/gpu/
// collective_kernels_gpu.cc): in CUDA builds every collective op is built
// on GPUs for every dtype of its definition (runs everywhere); and on two
// virtual GPUs of GPU 0 (the GPU backend's device ring) all-reduce,
// all-gather, broadcast and the fused all-reduce give what the same graph
// gives on two fake GPUs (the CPU ring), bitwise: with two members every
// element is one addition (needs a GPU; skips without one).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops/ops.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "runtime/gpu/gpu_discovery.h"
#include "runtime/kernel_registry.h"
#include "runtime/session.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

bool Built(const Output& o) {
  return KernelRegistry::Global()->IsKernelBuilt(*o.node(), kDeviceGpu);
}

TEST(CollectiveKernelsGpuTest, ImplementationsMatchTheirDefinitions) {
  // Only the collective ops' problems are this test's (other families'
  // implementations are linked too).
  absl::Status s = KernelRegistry::Global()->Validate();
  if (!s.ok()) {
    EXPECT_THAT(std::string(s.message()),
                ::testing::Not(::testing::HasSubstr("Collective")))
        << s;
  }
}

TEST(CollectiveKernelsGpuTest, EveryCollectiveIsBuiltOnGpus) {
  if (!BuiltWithCuda()) GTEST_SKIP() << "a build without CUDA";
  Scope root = Scope::NewRootScope();
  for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64}) {
    SCOPED_TRACE(DataTypeName(t));
    auto x = ops::Placeholder(root, t);
    EXPECT_TRUE(Built(ops::CollectiveAllReduce(root, x, 2, 1, 1)));
    EXPECT_TRUE(Built(ops::CollectiveAllGather(root, x, 2, 1, 2)));
    EXPECT_TRUE(Built(ops::CollectiveBroadcastSend(root, x, 2, 1, 3)));
    EXPECT_TRUE(Built(ops::CollectiveBroadcastRecv(root, t, TensorShape({2}),
                                                   2, 1, 3)));
  }
  ASSERT_TRUE(root.ok()) << root.status();
}

// Member i on /gpu:i: three float all-reduces (fused when fusion is on),
// an int32 all-reduce, an all-gather and a broadcast from member 0.
GraphDef CollectiveGraph() {
  Scope root = Scope::NewRootScope();
  for (int i = 0; i < 2; ++i) {
    Scope m = root.NewSubScope(absl::StrCat("m", i))
                  .WithDevice(absl::StrCat("/gpu:", i));
    const float f = static_cast<float>(i + 1);
    Output a = ops::Const(m.WithOpName("a"), {0.1f * f, 0.2f * f, 0.3f * f});
    Output b = ops::Const(m.WithOpName("b"), {1.5f * f, -2.25f * f},
                          TensorShape({1, 2}));
    Output c = ops::Const(m.WithOpName("c"), 7.0f * f);
    Output n = ops::Const(m.WithOpName("n"), {i + 1, 10 * (i + 1)});
    ops::CollectiveAllReduce(m.WithOpName("sum_a"), a, 2, 1, 1);
    ops::CollectiveAllReduce(m.WithOpName("sum_b"), b, 2, 1, 2);
    ops::CollectiveAllReduce(m.WithOpName("mean_c"), c, 2, 1, 3, "mean");
    ops::CollectiveAllReduce(m.WithOpName("max_n"), n, 2, 1, 4, "max");
    ops::CollectiveAllGather(m.WithOpName("gather"), a, 2, 1, 5);
    if (i == 0) {
      ops::CollectiveBroadcastSend(m.WithOpName("bcast"), b, 2, 1, 6);
    } else {
      ops::CollectiveBroadcastRecv(m.WithOpName("bcast"), DT_FLOAT,
                                   TensorShape({1, 2}), 2, 1, 6);
    }
  }
  GraphDef def;
  EXPECT_TRUE(root.ToGraphDef(&def).ok()) << root.status();
  return def;
}

std::vector<std::string> Fetches() {
  std::vector<std::string> fetches;
  for (int i = 0; i < 2; ++i) {
    for (const char* name :
         {"sum_a", "sum_b", "mean_c", "max_n", "gather", "bcast"}) {
      fetches.push_back(absl::StrCat("m", i, "/", name));
    }
  }
  return fetches;
}

void ExpectBitwiseEqual(const Tensor& got, const Tensor& want,
                        const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  ASSERT_EQ(got.TotalBytes(), want.TotalBytes()) << what;
  EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), got.TotalBytes()), 0)
      << what << ": GPU " << got.DebugString() << ", CPU ring "
      << want.DebugString();
}

TEST(CollectiveKernelsGpuTest, VirtualGpusAgreeWithTheCpuRing) {
  DFLOW_SKIP_WITHOUT_GPU();
  for (int64_t fusion : {int64_t{0}, int64_t{64} << 20}) {
    SCOPED_TRACE(absl::StrCat("tensor_fusion_threshold_bytes ", fusion));
    std::vector<std::vector<Tensor>> results;
    for (bool real : {false, true}) {
      SessionOptions options;
      options.tensor_fusion_threshold_bytes = fusion;
      if (real) {
        options.gpu_virtual_devices = 2;
      } else {
        options.fake_gpus = 2;
      }
      absl::StatusOr<std::unique_ptr<Session>> session =
          Session::Create(CollectiveGraph(), options);
      ASSERT_TRUE(session.ok()) << session.status();
      std::vector<Tensor> out;
      absl::Status s = (*session)->Run({}, Fetches(), {}, &out);
      ASSERT_TRUE(s.ok()) << (real ? "virtual GPUs: " : "fake GPUs: ") << s;
      results.push_back(out);
    }
    const std::vector<std::string> fetches = Fetches();
    for (size_t i = 0; i < fetches.size(); ++i) {
      ExpectBitwiseEqual(results[1][i], results[0][i], fetches[i]);
    }
  }
}

}  // namespace
}  // namespace dflow
