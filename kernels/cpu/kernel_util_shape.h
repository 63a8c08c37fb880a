// The kernels that only read or relabel a tensor's shape, whose CPU and GPU
// versions are the same code: Shape, Size, Rank and BroadcastGradientArgs
// (small int32/int64 outputs, which the GPU definitions keep in host memory,
// kernels/gpu/kernel_defs_shape.cc) and Reshape, ExpandDims, Squeeze (the
// output is the input's buffer under another shape, host or device memory
// alike: nothing is copied). kernels/cpu/shape_ops.cc and
// kernels/gpu/array_kernels_gpu.cc register these classes, so the checks and
// error messages live in one place.
#ifndef DFLOW_KERNELS_CPU_KERNEL_UTIL_SHAPE_H_
#define DFLOW_KERNELS_CPU_KERNEL_UTIL_SHAPE_H_

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "graph/tensor.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace shape_kernels {

// Sets output 0 to `input` viewed with `shape` (same element count).
void SetReshaped(OpKernelContext* ctx, const Tensor& input,
                 const TensorShape& shape);

// Writes `values` into output i, a new int32 or int64 tensor of `shape`,
// failing (naming `what`) when a value does not fit in int32.
void OutputIndexVector(OpKernelContext* ctx, int i,
                       absl::Span<const int64_t> values,
                       const TensorShape& shape, absl::string_view what);

class ReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

class ShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

class SizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

class RankOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

class ExpandDimsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx);
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }

 private:
  absl::InlinedVector<int64_t, 8> squeeze_dims_;
};

// For z = x op y with NumPy broadcasting, the axes of z that the gradients
// of x (r0) and y (r1) must be summed over. Like TensorFlow, an axis where
// both shapes are 1 is listed for both.
class BroadcastGradientArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

}  // namespace shape_kernels
}  // namespace dflow

#endif  // DFLOW_KERNELS_CPU_KERNEL_UTIL_SHAPE_H_
