// CUDA, cuBLAS, cuDNN and NCCL result codes as absl::Status.
//
// Each conversion names the failing call and the library's own name and text
// for the code, and adds a hint about what to do where one is known:
//   CudaStatus(cudaMalloc(&p, n), "cudaMalloc of 1.5 GiB on GPU:0")
//   -> RESOURCE_EXHAUSTED "cudaMalloc of 1.5 GiB on GPU:0:
//      cudaErrorMemoryAllocation (out of memory); the GPU is out of memory:
//      ..."
// Header-only: a conversion is only compiled (and its library only linked)
// where it is used, so depending on this header costs nothing more than
// cudart. Every CUDA type is behind DFLOW_HAVE_CUDA (and the library's own
// DFLOW_HAVE_*), so CPU-only builds include it too; BuiltWithoutCudaError()
// is what the GPU APIs answer there.
#ifndef DFLOW_RUNTIME_GPU_CUDA_STATUS_H_
#define DFLOW_RUNTIME_GPU_CUDA_STATUS_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#if DFLOW_HAVE_CUBLAS
#include <cublas_v2.h>
#endif
#if DFLOW_HAVE_CUDNN
#include <cudnn.h>
#endif
#if DFLOW_HAVE_NCCL
#include <nccl.h>
#endif

namespace dflow {

// Unavailable "<what>: dflow was built without CUDA (...)": the answer of
// every GPU API in a CPU-only build.
inline absl::Status BuiltWithoutCudaError(absl::string_view what) {
  return absl::UnavailableError(absl::StrCat(
      what, ": dflow was built without CUDA (", DFLOW_CUDA_CONFIG_NOTE,
      "); rebuild where the CUDA toolkit is installed (set CUDA_PATH if it "
      "is not at /usr/local/cuda) to use GPUs, or place the work on CPU"));
}

#if DFLOW_HAVE_CUDA

// OK for cudaSuccess; otherwise "<call>: <cudaErrorName> (<text>)[; hint]"
// with a code saying what kind of failure it is.
inline absl::Status CudaStatus(cudaError_t err, absl::string_view call) {
  if (err == cudaSuccess) return absl::OkStatus();
  absl::StatusCode code = absl::StatusCode::kInternal;
  absl::string_view hint;
  switch (err) {
    case cudaErrorNoDevice:
      code = absl::StatusCode::kUnavailable;
      hint =
          "no CUDA GPU is visible to this process: check nvidia-smi and "
          "CUDA_VISIBLE_DEVICES, or place the work on CPU";
      break;
    case cudaErrorInsufficientDriver:
      code = absl::StatusCode::kUnavailable;
      hint =
          "the NVIDIA driver (libcuda.so.1) is missing or older than the "
          "CUDA runtime dflow was built with: install a newer driver, or "
          "place the work on CPU";
      break;
    case cudaErrorInitializationError:
    case cudaErrorDevicesUnavailable:
      code = absl::StatusCode::kUnavailable;
      hint =
          "the GPU could not be initialized or is in exclusive use by "
          "another process (nvidia-smi shows which)";
      break;
    case cudaErrorMemoryAllocation:
      code = absl::StatusCode::kResourceExhausted;
      hint =
          "the GPU (or pinned host memory) is out of memory: lower the "
          "batch size or the per-device memory limit of other processes";
      break;
    case cudaErrorInvalidDevice:
      code = absl::StatusCode::kInvalidArgument;
      hint =
          "no GPU has that ordinal: the visible GPUs are 0..count-1 "
          "(CUDA_VISIBLE_DEVICES renumbers them)";
      break;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidMemcpyDirection:
      code = absl::StatusCode::kInvalidArgument;
      break;
    case cudaErrorPeerAccessUnsupported:
      code = absl::StatusCode::kFailedPrecondition;
      hint =
          "these GPUs cannot map each other's memory: copies between "
          "them go through host memory";
      break;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
      code = absl::StatusCode::kFailedPrecondition;
      hint =
          "dflow's kernels were compiled for sm_90 (+ compute_90 PTX): "
          "this GPU needs another -gencode in "
          "third_party/cuda/build_defs.bzl.tpl, or a newer driver";
      break;
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
      hint =
          "a kernel faulted; the CUDA context of this process is now "
          "unusable: restart the process (compute-sanitizer finds the "
          "kernel)";
      break;
    default:
      break;
  }
  std::string message = absl::StrCat(call, ": ", cudaGetErrorName(err), " (",
                                     cudaGetErrorString(err), ")");
  if (!hint.empty()) absl::StrAppend(&message, "; ", hint);
  return absl::Status(code, message);
}

#endif  // DFLOW_HAVE_CUDA

#if DFLOW_HAVE_CUBLAS
inline absl::Status CublasStatus(cublasStatus_t status,
                                 absl::string_view call) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  absl::StatusCode code = absl::StatusCode::kInternal;
  absl::string_view hint;
  switch (status) {
    case CUBLAS_STATUS_NOT_INITIALIZED:
      code = absl::StatusCode::kUnavailable;
      hint = "cuBLAS could not start: no usable GPU or driver";
      break;
    case CUBLAS_STATUS_ALLOC_FAILED:
      code = absl::StatusCode::kResourceExhausted;
      hint = "cuBLAS could not allocate its workspace: the GPU is full";
      break;
    case CUBLAS_STATUS_INVALID_VALUE:
      code = absl::StatusCode::kInvalidArgument;
      break;
    case CUBLAS_STATUS_NOT_SUPPORTED:
    case CUBLAS_STATUS_ARCH_MISMATCH:
      code = absl::StatusCode::kUnimplemented;
      hint = "this GPU or cuBLAS version does not support the operation";
      break;
    default:
      break;
  }
  std::string message = absl::StrCat(call, ": ", cublasGetStatusName(status),
                                     " (", cublasGetStatusString(status), ")");
  if (!hint.empty()) absl::StrAppend(&message, "; ", hint);
  return absl::Status(code, message);
}
#endif  // DFLOW_HAVE_CUBLAS

#if DFLOW_HAVE_CUDNN
inline absl::Status CudnnStatus(cudnnStatus_t status, absl::string_view call) {
  if (status == CUDNN_STATUS_SUCCESS) return absl::OkStatus();
  absl::StatusCode code = absl::StatusCode::kInternal;
  absl::string_view hint;
  switch (status) {
    case CUDNN_STATUS_NOT_INITIALIZED:
      code = absl::StatusCode::kUnavailable;
      hint =
          "cuDNN could not start: no usable GPU, or the cuDNN and CUDA "
          "versions do not match";
      break;
    case CUDNN_STATUS_ALLOC_FAILED:
      code = absl::StatusCode::kResourceExhausted;
      hint = "cuDNN could not allocate memory: the GPU is full";
      break;
    case CUDNN_STATUS_BAD_PARAM:
      code = absl::StatusCode::kInvalidArgument;
      break;
    case CUDNN_STATUS_NOT_SUPPORTED:
      code = absl::StatusCode::kUnimplemented;
      hint = "cuDNN has no algorithm for this configuration on this GPU";
      break;
    default:
      break;
  }
  std::string message =
      absl::StrCat(call, ": ", cudnnGetErrorString(status), " (cudnnStatus_t ",
                   static_cast<int>(status), ")");
  if (!hint.empty()) absl::StrAppend(&message, "; ", hint);
  return absl::Status(code, message);
}
#endif  // DFLOW_HAVE_CUDNN

#if DFLOW_HAVE_NCCL
inline absl::Status NcclStatus(ncclResult_t result, absl::string_view call) {
  if (result == ncclSuccess) return absl::OkStatus();
  absl::StatusCode code = absl::StatusCode::kInternal;
  absl::string_view hint;
  switch (result) {
    case ncclUnhandledCudaError:
      hint = "a CUDA call inside NCCL failed (NCCL_DEBUG=WARN says which)";
      break;
    case ncclSystemError:
      code = absl::StatusCode::kUnavailable;
      hint = "a system call inside NCCL failed (NCCL_DEBUG=WARN says which)";
      break;
    case ncclInvalidArgument:
    case ncclInvalidUsage:
      code = absl::StatusCode::kInvalidArgument;
      hint =
          "an argument or the order of NCCL calls is wrong (two ranks "
          "of one communicator on one physical GPU is one cause); "
          "NCCL_DEBUG=WARN says which";
      break;
    default:
      break;
  }
  std::string message =
      absl::StrCat(call, ": ", ncclGetErrorString(result), " (ncclResult_t ",
                   static_cast<int>(result), ")");
  if (!hint.empty()) absl::StrAppend(&message, "; ", hint);
  return absl::Status(code, message);
}
#endif  // DFLOW_HAVE_NCCL

}  // namespace dflow

// Returns from the enclosing function (which returns absl::Status or a
// StatusOr) when the CUDA call fails:
//   DFLOW_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal), "cudaSetDevice");
#define DFLOW_CUDA_RETURN_IF_ERROR(expr, call)                             \
  do {                                                                     \
    absl::Status _dflow_cuda_status = ::dflow::CudaStatus((expr), (call)); \
    if (!_dflow_cuda_status.ok()) return _dflow_cuda_status;               \
  } while (0)

#endif  // DFLOW_RUNTIME_GPU_CUDA_STATUS_H_
