// CUDA, cuBLAS, cuDNN and NCCL codes as absl::Status. Needs the libraries,
// not a GPU: runs in every build with CUDA (and skips in CPU-only ones).
#include "runtime/gpu/cuda_status.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace dflow {
namespace {

#if DFLOW_HAVE_CUDA

TEST(CudaStatusTest, SuccessIsOk) {
  EXPECT_TRUE(CudaStatus(cudaSuccess, "cudaMalloc").ok());
}

TEST(CudaStatusTest, NamesTheCallTheErrorAndAHint) {
  absl::Status s =
      CudaStatus(cudaErrorMemoryAllocation, "cudaMalloc of 3 GiB on GPU 0");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StartsWith(s.message(), "cudaMalloc of 3 GiB on GPU 0: "))
      << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "cudaErrorMemoryAllocation")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "out of memory")) << s;
}

TEST(CudaStatusTest, CodesSayWhatKindOfFailure) {
  EXPECT_EQ(CudaStatus(cudaErrorNoDevice, "x").code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(CudaStatus(cudaErrorInsufficientDriver, "x").code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(CudaStatus(cudaErrorInvalidDevice, "x").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CudaStatus(cudaErrorInvalidValue, "x").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CudaStatus(cudaErrorPeerAccessUnsupported, "x").code(),
            absl::StatusCode::kFailedPrecondition);
  absl::Status fault = CudaStatus(cudaErrorIllegalAddress, "kernel");
  EXPECT_EQ(fault.code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(fault.message(), "restart the process"))
      << fault;
  absl::Status image = CudaStatus(cudaErrorNoKernelImageForDevice, "launch");
  EXPECT_TRUE(absl::StrContains(image.message(), "sm_90")) << image;
}

TEST(CudaStatusTest, ReturnIfErrorMacro) {
  auto f = [](cudaError_t err) -> absl::Status {
    DFLOW_CUDA_RETURN_IF_ERROR(err, "step one");
    return absl::CancelledError("reached the end");
  };
  EXPECT_EQ(f(cudaSuccess).code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(absl::StartsWith(f(cudaErrorInvalidValue).message(), "step one"));
}

#if DFLOW_HAVE_CUBLAS
TEST(CublasStatusTest, NamesTheStatus) {
  EXPECT_TRUE(CublasStatus(CUBLAS_STATUS_SUCCESS, "cublasSgemm").ok());
  absl::Status s = CublasStatus(CUBLAS_STATUS_ALLOC_FAILED, "cublasCreate");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(s.message(), "cublasCreate: ")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "CUBLAS_STATUS_ALLOC_FAILED"))
      << s;
  EXPECT_EQ(CublasStatus(CUBLAS_STATUS_INVALID_VALUE, "x").code(),
            absl::StatusCode::kInvalidArgument);
}
#endif

#if DFLOW_HAVE_CUDNN
TEST(CudnnStatusTest, NamesTheStatus) {
  EXPECT_TRUE(CudnnStatus(CUDNN_STATUS_SUCCESS, "cudnnCreate").ok());
  absl::Status s =
      CudnnStatus(CUDNN_STATUS_BAD_PARAM, "cudnnSetTensor4dDescriptor");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "CUDNN_STATUS_BAD_PARAM")) << s;
  EXPECT_EQ(CudnnStatus(CUDNN_STATUS_NOT_SUPPORTED, "x").code(),
            absl::StatusCode::kUnimplemented);
}
#endif

#if DFLOW_HAVE_NCCL
TEST(NcclStatusTest, NamesTheResult) {
  EXPECT_TRUE(NcclStatus(ncclSuccess, "ncclAllReduce").ok());
  absl::Status s = NcclStatus(ncclInvalidArgument, "ncclCommInitAll");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(s.message(), "ncclCommInitAll: ")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "NCCL_DEBUG")) << s;
}
#endif

#else  // !DFLOW_HAVE_CUDA

TEST(CudaStatusTest, NeedsCuda) {
  GTEST_SKIP() << "dflow was built without CUDA: no CUDA codes to convert";
}

#endif  // DFLOW_HAVE_CUDA

}  // namespace
}  // namespace dflow
