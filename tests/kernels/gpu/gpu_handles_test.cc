// The cuBLAS/cuDNN handle caches (kernels/gpu/blas_handles.h,
// dnn_handles.h) and what the launchers answer without a GPU.
//
// The NoGpu tests run where there is no GPU (or no CUDA): every entry point
// answers Unavailable naming the library and the GPU, runs no callback and
// caches nothing, while bad arguments are still InvalidArgument (checked on
// the host first). The Gpu tests need one: one handle per (GPU, stream),
// reused; Forget; one caller at a time per stream.
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/gpu/blas_handles.h"
#include "kernels/gpu/conv_ops_gpu.h"
#include "kernels/gpu/dnn_handles.h"
#include "kernels/gpu/lrn_ops_gpu.h"
#include "kernels/gpu/matmul_gpu.h"
#include "kernels/gpu/pooling_ops_gpu.h"
#include "runtime/gpu/gpu_discovery.h"
#include "tests/runtime/gpu/gpu_test_util.h"

namespace dflow {
namespace {

using ::testing::HasSubstr;

#define SKIP_WITH_GPU()                                             \
  do {                                                              \
    if (GpusAvailable().ok()) GTEST_SKIP() << "a GPU is available"; \
  } while (0)

TEST(NoGpuTest, HandleCachesAnswerUnavailable) {
  SKIP_WITH_GPU();
  BlasHandles blas;
  bool called = false;
  absl::Status s = blas.With(0, nullptr, [&](const BlasContext&) {
    called = true;
    return absl::OkStatus();
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("cuBLAS handle for GPU:0"));
  EXPECT_FALSE(called);
  EXPECT_EQ(blas.size(), 0);
  EXPECT_TRUE(blas.Forget(0, nullptr).ok());

  DnnHandles dnn;
  s = dnn.With(1, nullptr, [&](const DnnContext&) {
    called = true;
    return absl::OkStatus();
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("cuDNN handle for GPU:1"));
  EXPECT_FALSE(called);
  EXPECT_EQ(dnn.size(), 0);
}

TEST(NoGpuTest, NegativeOrdinalIsInvalidArgumentEverywhere) {
  auto fn = [](const auto&) { return absl::OkStatus(); };
  EXPECT_EQ(BlasHandles::Global()->With(-1, nullptr, fn).code(),
            BuiltWithCuda() ? absl::StatusCode::kInvalidArgument
                            : absl::StatusCode::kUnavailable);
  EXPECT_EQ(DnnHandles::Global()->With(-1, nullptr, fn).code(),
            BuiltWithCuda() ? absl::StatusCode::kInvalidArgument
                            : absl::StatusCode::kUnavailable);
}

TEST(NoGpuTest, LaunchersAnswerUnavailable) {
  SKIP_WITH_GPU();
  GpuMatMulParams mm;
  mm.m = mm.n = mm.k = 4;
  absl::Status s = LaunchMatMul(0, nullptr, mm, nullptr, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("GPU"));

  GpuConvParams conv;
  conv.batch = 1;
  conv.in_rows = conv.in_cols = 4;
  conv.in_depth = conv.filter_depth = 2;
  conv.filter_rows = conv.filter_cols = 3;
  conv.out_depth = 3;
  conv.out_rows = conv.out_cols = 2;  // VALID
  s = LaunchConv2D(0, nullptr, conv, nullptr, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  s = LaunchConv2DBackpropInput(0, nullptr, conv, nullptr, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  s = LaunchConv2DBackpropFilter(0, nullptr, conv, nullptr, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  EXPECT_EQ(ConvAlgorithmCacheSize(), 0);

  GpuPoolParams pool;
  pool.batch = 1;
  pool.in_rows = pool.in_cols = 4;
  pool.depth = pool.out_depth = 2;
  pool.window_rows = pool.window_cols = pool.stride_rows = pool.stride_cols = 2;
  pool.out_rows = pool.out_cols = 2;
  s = LaunchMaxPool(0, nullptr, pool, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  s = LaunchAvgPoolGrad(0, nullptr, pool, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;

  s = LaunchLrn(0, nullptr, DT_FLOAT, {1, 2, 2, 5}, GpuLrnParams(), nullptr,
                nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;

  StreamOrderedScratch scratch(0, nullptr);
  EXPECT_FALSE(scratch.Allocate(1024).ok());
}

TEST(NoGpuTest, BadArgumentsAreCheckedBeforeTheGpu) {
  // The same answers with or without a GPU: nothing reaches CUDA.
  GpuMatMulParams mm;
  mm.dtype = DT_INT32;
  mm.m = mm.n = mm.k = 4;
  EXPECT_EQ(LaunchMatMul(0, nullptr, mm, nullptr, nullptr, nullptr).code(),
            absl::StatusCode::kUnimplemented);
  mm.dtype = DT_FLOAT;
  mm.k = int64_t{1} << 31;
  EXPECT_EQ(LaunchMatMul(0, nullptr, mm, nullptr, nullptr, nullptr).code(),
            absl::StatusCode::kInvalidArgument);

  GpuConvParams conv;
  conv.batch = 1;
  conv.in_rows = conv.in_cols = 4;
  conv.in_depth = conv.filter_depth = 2;
  conv.filter_rows = conv.filter_cols = 3;
  conv.out_depth = 3;
  conv.out_rows = 1;  // VALID gives 2
  conv.out_cols = 2;
  absl::Status s = LaunchConv2D(0, nullptr, conv, nullptr, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("output height 1"));

  GpuLrnParams lrn;
  lrn.depth_radius = 8;
  s = LaunchLrn(0, nullptr, DT_FLOAT, {1, 2, 2, 5}, lrn, nullptr, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

#if DFLOW_HAVE_CUBLAS && DFLOW_HAVE_CUDNN

class GpuHandlesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DFLOW_SKIP_WITHOUT_GPU();
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    for (cudaStream_t& s : streams_) {
      ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
                cudaSuccess);
    }
  }
  void TearDown() override {
    for (cudaStream_t s : streams_) {
      if (s != nullptr) cudaStreamDestroy(s);
    }
  }
  cudaStream_t streams_[2] = {nullptr, nullptr};
};

TEST_F(GpuHandlesTest, OneBlasHandlePerStreamReused) {
  BlasHandles cache;
  cublasHandle_t first[2] = {nullptr, nullptr};
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(cache
                      .With(0, streams_[i],
                            [&](const BlasContext& c) {
                              EXPECT_EQ(c.ordinal, 0);
                              EXPECT_EQ(c.stream, streams_[i]);
                              EXPECT_NE(c.lt_handle, nullptr);
                              EXPECT_NE(c.workspace, nullptr);
                              EXPECT_EQ(c.workspace_bytes,
                                        BlasHandles::kWorkspaceBytes);
                              cudaStream_t bound = nullptr;
                              EXPECT_EQ(cublasGetStream(c.handle, &bound),
                                        CUBLAS_STATUS_SUCCESS);
                              EXPECT_EQ(bound, streams_[i]);
                              if (round == 0) first[i] = c.handle;
                              EXPECT_EQ(c.handle, first[i]);
                              return absl::OkStatus();
                            })
                      .ok());
    }
  }
  EXPECT_NE(first[0], first[1]);
  EXPECT_EQ(cache.size(), 2);
  EXPECT_TRUE(cache.Forget(0, streams_[0]).ok());
  EXPECT_EQ(cache.size(), 1);
  // The callback's error comes back as is.
  absl::Status s = cache.With(0, streams_[1], [](const BlasContext&) {
    return absl::DataLossError("from the callback");
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
}

TEST_F(GpuHandlesTest, OneDnnHandlePerStreamReused) {
  DnnHandles cache;
  cudnnHandle_t first = nullptr;
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(cache
                    .With(0, streams_[0],
                          [&](const DnnContext& c) {
                            cudaStream_t bound = nullptr;
                            EXPECT_EQ(cudnnGetStream(c.handle, &bound),
                                      CUDNN_STATUS_SUCCESS);
                            EXPECT_EQ(bound, streams_[0]);
                            if (round == 0) first = c.handle;
                            EXPECT_EQ(c.handle, first);
                            return absl::OkStatus();
                          })
                    .ok());
  }
  EXPECT_EQ(cache.size(), 1);
  EXPECT_TRUE(cache.Forget(0, streams_[0]).ok());
  EXPECT_EQ(cache.size(), 0);
}

TEST_F(GpuHandlesTest, OneCallerAtATimePerStream) {
  BlasHandles cache;
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        absl::Status s = cache.With(0, streams_[0], [&](const BlasContext&) {
          if (inside.fetch_add(1) != 0) overlaps.fetch_add(1);
          std::this_thread::yield();
          inside.fetch_sub(1);
          return absl::OkStatus();
        });
        EXPECT_TRUE(s.ok()) << s;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(cache.size(), 1);
}

#endif  // DFLOW_HAVE_CUBLAS && DFLOW_HAVE_CUDNN

}  // namespace
}  // namespace dflow
