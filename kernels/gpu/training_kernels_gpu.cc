// The GPU kernels of ApplyGradientDescent, ApplyMomentum, ApplyAdam and
// their ResourceApply* twins (float and double; the definitions' half,
// bfloat16 and complex types are not implemented), over
// training_ops_gpu.h. Variables are handled as the CPU kernel handles them
// (kernels/cpu/training_ops.cc): values read first, every variable locked
// at once, one shape for a variable and its slots, the same variable twice
// updated in place statement after statement, and copy on write when a
// reader still holds a buffer (the launch reads the old buffer and writes a
// fresh one, which then replaces the value). The update itself is enqueued
// on the compute stream; later kernels and copies are ordered after it.
//
// Only built with CUDA; other builds register nothing here.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <algorithm>
#include <array>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/gpu/math_kernels_gpu_util.h"
#include "kernels/gpu/training_ops_gpu.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"
#include "runtime/variables.h"

namespace dflow {
namespace {

using gpu_kernels::LauncherType;
using gpu_kernels::LaunchStream;

struct Layout {
  int num_vars;
  std::vector<int> scalars;
  int grad;
};

Layout LayoutOf(GpuOptimizer opt) {
  switch (opt) {
    case GpuOptimizer::kGradientDescent:
      return {1, {1}, 2};
    case GpuOptimizer::kMomentum:
      return {2, {2, 4}, 3};
    case GpuOptimizer::kAdam:
      return {3, {3, 4, 5, 6, 7, 8}, 9};
  }
  return {1, {1}, 2};
}

// Locks up to three variables' mutexes at once, each distinct one once.
class VarLocks {
 public:
  explicit VarLocks(const std::vector<Var*>& vars) {
    for (Var* v : vars) {
      std::mutex* mu = &v->mu();
      if (std::find(mus_.begin(), mus_.begin() + n_, mu) == mus_.begin() + n_) {
        mus_[n_++] = mu;
      }
    }
    if (n_ == 1) {
      mus_[0]->lock();
    } else if (n_ == 2) {
      std::lock(*mus_[0], *mus_[1]);
    } else {
      std::lock(*mus_[0], *mus_[1], *mus_[2]);
    }
  }
  ~VarLocks() {
    for (int i = 0; i < n_; ++i) mus_[i]->unlock();
  }
  VarLocks(const VarLocks&) = delete;
  VarLocks& operator=(const VarLocks&) = delete;

 private:
  std::array<std::mutex*, 3> mus_{};
  int n_ = 0;
};

template <GpuOptimizer kOpt>
class ApplyGpuOp : public OpKernel {
 public:
  explicit ApplyGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->node().FindAttr("use_nesterov") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov_));
    }
    is_ref_ = IsRefType(ctx->node().input_type(0));
    const OpDef& def = ctx->node().op_def();
    for (int i = 0; i < def.input_arg_size(); ++i) {
      arg_names_.push_back(def.input_arg(i).name());
    }
  }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, stream, LaunchStream(ctx));
    const Layout layout = LayoutOf(kOpt);
    const Tensor& grad = ctx->input(layout.grad);
    const DataType dtype = grad.dtype();
    DFLOW_GPU_ASSIGN_OR_RETURN(ctx, type, LauncherType(*this, dtype));
    GpuApplyOperands o;
    o.use_nesterov = use_nesterov_;
    // Values first (see the file comment), then the variables' locks. The
    // scalar tensors stay alive (inputs) until Compute returns, and their
    // buffers until the launch has read them (stream order).
    for (size_t k = 0; k < layout.scalars.size(); ++k) {
      const int i = layout.scalars[k];
      const Tensor& s = ctx->input(i);
      OP_REQUIRES(ctx, s.dtype() == dtype, WrongType(i, s.dtype(), dtype));
      OP_REQUIRES(ctx, s.shape().rank() == 0,
                  absl::InvalidArgumentError(absl::StrCat(
                      "'", arg_names_[i], "' must be a scalar but has shape ",
                      s.shape().ToString())));
      o.scalars[k] = s.raw_data();
    }
    std::vector<Var*> vars(layout.num_vars);
    for (int k = 0; k < layout.num_vars; ++k) {
      vars[k] = ctx->input_var(k);
      OP_REQUIRES(ctx, vars[k] != nullptr,
                  absl::InternalError(absl::StrCat("input '", arg_names_[k],
                                                   "' is not a variable")));
      OP_REQUIRES(
          ctx, vars[k]->dtype() == dtype,
          absl::InvalidArgumentError(absl::StrCat(
              "variable '", vars[k]->name(), "' ('", arg_names_[k], "') holds ",
              DataTypeName(vars[k]->dtype()), " but this op updates ",
              DataTypeName(dtype), " variables; make T the variable's dtype")));
    }
    std::vector<Tensor> fresh(layout.num_vars);
    {
      VarLocks locks(vars);
      const TensorShape shape = vars[0]->value()->shape();
      for (int k = 0; k < layout.num_vars; ++k) {
        Var* var = vars[k];
        OP_REQUIRES(ctx, var->initialized(),
                    UninitializedValueError(
                        var->name(),
                        absl::StrCat("input '", arg_names_[k], "'")));
        OP_REQUIRES(ctx, var->value()->shape() == shape,
                    absl::InvalidArgumentError(absl::StrCat(
                        "variable '", var->name(), "' ('", arg_names_[k],
                        "') has shape ", var->value()->shape().ToString(),
                        " but variable '", vars[0]->name(), "' ('",
                        arg_names_[0], "') has shape ", shape.ToString(),
                        "; a variable and its slots must have one shape")));
      }
      OP_REQUIRES(
          ctx, grad.shape() == shape,
          absl::InvalidArgumentError(absl::StrCat(
              "'", arg_names_[layout.grad], "' has shape ",
              grad.shape().ToString(), " but variable '", vars[0]->name(),
              "' ('", arg_names_[0], "') has shape ", shape.ToString(),
              "; the update must have the variable's shape")));
      for (int k = 0; k < layout.num_vars; ++k) {
        Tensor* value = vars[k]->value();
        bool repeated = false;
        int first = k;
        for (int j = layout.num_vars - 1; j >= 0; --j) {
          if (j != k && vars[j] == vars[k]) {
            repeated = true;
            if (j < k) first = j;
          }
        }
        if (first < k) {
          o.in[k] = o.out[k] = o.out[first];
        } else if (value->RefCount() > 1) {
          OP_REQUIRES_OK(ctx, ctx->allocate_temp(dtype, shape, &fresh[k]));
          o.out[k] = fresh[k].raw_data();
          if (repeated) {
            const size_t bytes = static_cast<size_t>(value->NumElements()) *
                                 static_cast<size_t>(DataTypeSize(dtype));
            OP_REQUIRES_OK(
                ctx,
                CudaStatus(cudaMemcpyAsync(o.out[k], value->raw_data(), bytes,
                                           cudaMemcpyDeviceToDevice, stream),
                           "copying a shared variable before its update"));
            o.in[k] = o.out[k];
          } else {
            o.in[k] = value->raw_data();
          }
        } else {
          o.in[k] = o.out[k] = value->raw_data();
        }
      }
      o.grad = grad.raw_data();
      o.n = shape.num_elements();
      OP_REQUIRES_OK(ctx, LaunchApply(kOpt, type, o, stream));
      for (int k = 0; k < layout.num_vars; ++k) {
        if (fresh[k].IsInitialized()) *vars[k]->value() = std::move(fresh[k]);
      }
    }
    if (is_ref_) ctx->set_output_var(0, vars[0]);
  }

 private:
  absl::Status WrongType(int i, DataType got, DataType want) const {
    return absl::InvalidArgumentError(
        absl::StrCat("'", arg_names_[i], "' is ", DataTypeName(got),
                     " but T is ", DataTypeName(want)));
  }

  bool use_nesterov_ = false;
  bool is_ref_ = true;
  std::vector<std::string> arg_names_;
};

#define DFLOW_GPU_APPLY(T)                                                     \
  DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("ApplyGradientDescent")           \
                                .Device(kDeviceGpu)                            \
                                .TypeConstraint<T>("T"),                       \
                            ApplyGpuOp<GpuOptimizer::kGradientDescent>);       \
  DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("ApplyMomentum")                  \
                                .Device(kDeviceGpu)                            \
                                .TypeConstraint<T>("T"),                       \
                            ApplyGpuOp<GpuOptimizer::kMomentum>);              \
  DFLOW_REGISTER_GPU_KERNEL(                                                   \
      KernelDefBuilder("ApplyAdam").Device(kDeviceGpu).TypeConstraint<T>("T"), \
      ApplyGpuOp<GpuOptimizer::kAdam>);                                        \
  DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("ResourceApplyGradientDescent")   \
                                .Device(kDeviceGpu)                            \
                                .TypeConstraint<T>("T")                        \
                                .HostMemory("var"),                            \
                            ApplyGpuOp<GpuOptimizer::kGradientDescent>);       \
  DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("ResourceApplyMomentum")          \
                                .Device(kDeviceGpu)                            \
                                .TypeConstraint<T>("T")                        \
                                .HostMemory("var")                             \
                                .HostMemory("accum"),                          \
                            ApplyGpuOp<GpuOptimizer::kMomentum>);              \
  DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("ResourceApplyAdam")              \
                                .Device(kDeviceGpu)                            \
                                .TypeConstraint<T>("T")                        \
                                .HostMemory("var")                             \
                                .HostMemory("m")                               \
                                .HostMemory("v"),                              \
                            ApplyGpuOp<GpuOptimizer::kAdam>)

DFLOW_GPU_APPLY(float);
DFLOW_GPU_APPLY(double);

#undef DFLOW_GPU_APPLY

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
