// The host side of cwise_ops_gpu.h: op names, and in builds without CUDA
// the launchers' stubs (answering Unavailable).
#include "absl/strings/str_cat.h"
#include "kernels/gpu/cwise_ops_gpu.h"
#include "runtime/gpu/cuda_status.h"

namespace dflow {

const char* GpuUnaryOpName(GpuUnaryOp op) {
  switch (op) {
    case GpuUnaryOp::kNeg:
      return "Neg";
    case GpuUnaryOp::kAbs:
      return "Abs";
    case GpuUnaryOp::kExp:
      return "Exp";
    case GpuUnaryOp::kLog:
      return "Log";
    case GpuUnaryOp::kSqrt:
      return "Sqrt";
    case GpuUnaryOp::kRsqrt:
      return "Rsqrt";
    case GpuUnaryOp::kSquare:
      return "Square";
    case GpuUnaryOp::kTanh:
      return "Tanh";
    case GpuUnaryOp::kSigmoid:
      return "Sigmoid";
    case GpuUnaryOp::kRelu:
      return "Relu";
    case GpuUnaryOp::kRelu6:
      return "Relu6";
    case GpuUnaryOp::kElu:
      return "Elu";
    case GpuUnaryOp::kSoftplus:
      return "Softplus";
  }
  return "unknown unary op";
}

const char* GpuGradOpName(GpuGradOp op) {
  switch (op) {
    case GpuGradOp::kReluGrad:
      return "ReluGrad";
    case GpuGradOp::kRelu6Grad:
      return "Relu6Grad";
    case GpuGradOp::kEluGrad:
      return "EluGrad";
    case GpuGradOp::kSoftplusGrad:
      return "SoftplusGrad";
    case GpuGradOp::kSigmoidGrad:
      return "SigmoidGrad";
    case GpuGradOp::kTanhGrad:
      return "TanhGrad";
  }
  return "unknown gradient op";
}

const char* GpuBinaryOpName(GpuBinaryOp op) {
  switch (op) {
    case GpuBinaryOp::kAdd:
      return "Add";
    case GpuBinaryOp::kSub:
      return "Sub";
    case GpuBinaryOp::kMul:
      return "Mul";
    case GpuBinaryOp::kRealDiv:
      return "RealDiv";
    case GpuBinaryOp::kMaximum:
      return "Maximum";
    case GpuBinaryOp::kMinimum:
      return "Minimum";
    case GpuBinaryOp::kSquaredDifference:
      return "SquaredDifference";
    case GpuBinaryOp::kPow:
      return "Pow";
    case GpuBinaryOp::kLess:
      return "Less";
    case GpuBinaryOp::kLessEqual:
      return "LessEqual";
    case GpuBinaryOp::kGreater:
      return "Greater";
    case GpuBinaryOp::kGreaterEqual:
      return "GreaterEqual";
    case GpuBinaryOp::kEqual:
      return "Equal";
    case GpuBinaryOp::kNotEqual:
      return "NotEqual";
  }
  return "unknown binary op";
}

#if !DFLOW_HAVE_CUDA

absl::Status LaunchUnary(GpuUnaryOp op, GpuType, const void*, void*, int64_t,
                         cudaStream_t) {
  return BuiltWithoutCudaError(
      absl::StrCat("the GPU kernel of ", GpuUnaryOpName(op)));
}

absl::Status LaunchGrad(GpuGradOp op, GpuType, const void*, const void*, void*,
                        int64_t, cudaStream_t) {
  return BuiltWithoutCudaError(
      absl::StrCat("the GPU kernel of ", GpuGradOpName(op)));
}

absl::Status LaunchBinary(GpuBinaryOp op, GpuType, const BroadcastPlan&,
                          const void*, const void*, void*, cudaStream_t) {
  return BuiltWithoutCudaError(
      absl::StrCat("the GPU kernel of ", GpuBinaryOpName(op)));
}

absl::Status LaunchSelect(GpuType, const BroadcastPlan&, const void*,
                          const void*, const void*, void*, cudaStream_t) {
  return BuiltWithoutCudaError("the GPU kernel of Select");
}

#endif  // !DFLOW_HAVE_CUDA

}  // namespace dflow
