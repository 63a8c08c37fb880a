// Element-wise GPU launchers: unary math and activations, their gradients,
// binary arithmetic and comparisons with NumPy broadcasting, and select.
//
// Each launcher enqueues work on `stream` over device pointers and returns
// at once; an error status means nothing was enqueued (an unsupported
// type, a failed launch). Formulas are the CPU kernels'
// (kernels/cpu/cwise_ops_*.cc, activations.cc) and TensorFlow's for the
// ops dflow has no CPU kernel of (Abs, Relu6, Elu, Softplus and their
// gradients, Select, LessEqual, GreaterEqual, NotEqual):
//   Relu      max(x, 0), NaN stays NaN       ReluGrad(g, f)     f > 0 ? g : 0
//   Relu6     min(max(x, 0), 6)              Relu6Grad(g, f)    0 < f < 6 ? g :
//   0 Elu       x < 0 ? exp(x) - 1 : x         EluGrad(g, y)      y < 0 ? g (y
//   + 1) : g Softplus  log(1 + exp(x)), stable        SoftplusGrad(g, f) g / (1
//   + exp(-f)) Sigmoid   1 / (1 + exp(-x))              SigmoidGrad(y, dy) dy y
//   (1 - y) Tanh                                     TanhGrad(y, dy)    dy (1 -
//   y y) Rsqrt     1 / sqrt(x)   Maximum/Minimum: NaN wins   Pow of integers: a
//   negative exponent gives 0 (the CPU kernel rejects it; the GPU cannot
//   read the exponent without a copy).
// Integer results wrap (two's complement). Comparisons write bool (one
// byte, 0 or 1).
//
// Types: every op takes half, bfloat16, float and double; int64 where the
// op makes sense for integers (Neg, Abs, Square, Relu, Relu6, the binary
// arithmetic but RealDiv, Maximum/Minimum, SquaredDifference, Pow and the
// comparisons); int8 for Relu; bool for Equal/NotEqual and Select's
// values. Others answer Unimplemented.
//
// In CPU-only builds every launcher answers Unavailable
// (cwise_ops_gpu_stub.cc).
#ifndef DFLOW_KERNELS_GPU_CWISE_OPS_GPU_H_
#define DFLOW_KERNELS_GPU_CWISE_OPS_GPU_H_

#include <cstdint>

#include "absl/status/status.h"
#include "kernels/gpu/gpu_launch_util.h"
#include "kernels/gpu/gpu_shape_plans.h"

namespace dflow {

enum class GpuUnaryOp : int {
  kNeg,
  kAbs,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kSquare,
  kTanh,
  kSigmoid,
  kRelu,
  kRelu6,
  kElu,
  kSoftplus,
};

// Gradients of activations: two same-shaped inputs in the op's order.
enum class GpuGradOp : int {
  kReluGrad,      // (gradients, features)
  kRelu6Grad,     // (gradients, features)
  kEluGrad,       // (gradients, outputs)
  kSoftplusGrad,  // (gradients, features)
  kSigmoidGrad,   // (y, dy)
  kTanhGrad,      // (y, dy)
};

enum class GpuBinaryOp : int {
  kAdd,  // Add and AddV2
  kSub,
  kMul,
  kRealDiv,
  kMaximum,
  kMinimum,
  kSquaredDifference,
  kPow,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kEqual,
  kNotEqual,
};

const char* GpuUnaryOpName(GpuUnaryOp op);
const char* GpuGradOpName(GpuGradOp op);
const char* GpuBinaryOpName(GpuBinaryOp op);
// Comparisons write bool.
inline bool ReturnsBool(GpuBinaryOp op) { return op >= GpuBinaryOp::kLess; }

// y[i] = op(x[i]) for i < n. y may be x (in place).
absl::Status LaunchUnary(GpuUnaryOp op, GpuType type, const void* x, void* y,
                         int64_t n, cudaStream_t stream);

// out[i] = op(a[i], b[i]) for i < n. out may alias a or b.
absl::Status LaunchGrad(GpuGradOp op, GpuType type, const void* a,
                        const void* b, void* out, int64_t n,
                        cudaStream_t stream);

// z = op(x, y) over `plan` (a 2-operand MakeBroadcastPlan). `type` is the
// inputs' type; z is bool for comparisons. z may alias an input that has
// the output's elements (plan.same).
absl::Status LaunchBinary(GpuBinaryOp op, GpuType type,
                          const BroadcastPlan& plan, const void* x,
                          const void* y, void* z, cudaStream_t stream);

// out = cond ? x : y over `plan` (3 operands: cond (bool), x, y), as
// TensorFlow's SelectV2.
absl::Status LaunchSelect(GpuType type, const BroadcastPlan& plan,
                          const void* cond, const void* x, const void* y,
                          void* out, cudaStream_t stream);

}  // namespace dflow

#endif  // DFLOW_KERNELS_GPU_CWISE_OPS_GPU_H_
