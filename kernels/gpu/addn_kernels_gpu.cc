// The GPU implementation of AddN (kernels/gpu/kernel_defs_math.cc): the
// element-wise Add launcher (cwise_ops_gpu.h) applied input by input on the
// compute stream, grouped as the CPU kernel groups its sums
// (kernels/cpu/cwise_ops_unary.cc: out = ((x0 + x1) + x2) + x3, then
// out += ((x4 + x5) + x6) + x7, ...), so every element rounds the same way.
// The int32 definition keeps every argument in host memory and sums there.
//
// Only built with CUDA (DFLOW_HAVE_CUDA); in other builds this file
// registers nothing and the definitions stay unimplemented.
#include "third_party/cuda/cuda_config.h"

#if DFLOW_HAVE_CUDA

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "kernels/gpu/cwise_ops_gpu.h"
#include "kernels/gpu/gpu_kernel_util.h"
#include "kernels/gpu/gpu_shape_plans.h"
#include "kernels/gpu/gpu_type_of.h"
#include "kernels/gpu/kernel_defs_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class AddNGpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return num_inputs() > 1; }

  void Compute(OpKernelContext* ctx) override {
    DFLOW_GPU_KERNEL_PREAMBLE(ctx, gpu);
    const int n = ctx->num_inputs();
    absl::InlinedVector<Tensor, 8> inputs;
    inputs.reserve(n);
    for (int i = 0; i < n; ++i) {
      inputs.push_back(ctx->input(i));
      OP_REQUIRES(ctx, inputs[i].shape() == inputs[0].shape(),
                  absl::InvalidArgumentError(absl::StrCat(
                      "AddN needs inputs of one shape (it does not broadcast): "
                      "input 0 has shape ",
                      inputs[0].shape().ToString(), " but input ", i,
                      " has shape ", inputs[i].shape().ToString())));
    }
    if (n == 1) {
      ctx->set_output(0, inputs[0]);
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, inputs[0].shape(), &out));
    const int64_t count = out->NumElements();
    if (count == 0) return;
    if (output_in_host_memory(0)) {
      // The int32 definition: host memory, wrapping as the CPU kernel.
      int32_t* o = out->data<int32_t>();
      for (int64_t e = 0; e < count; ++e) {
        uint32_t sum = 0;
        for (int i = 0; i < n; ++i) {
          sum += static_cast<uint32_t>(inputs[i].data<int32_t>()[e]);
        }
        o[e] = static_cast<int32_t>(sum);
      }
      return;
    }
    const std::optional<GpuType> type = GpuTypeOf(out->dtype());
    OP_REQUIRES(ctx, type.has_value(),
                absl::UnimplementedError(absl::StrCat(
                    "AddN on a GPU has no ", DataTypeName(out->dtype()),
                    " implementation; place it on the CPU")));
    const std::vector<int64_t> dims = {count};
    std::vector<int64_t> out_shape;
    absl::StatusOr<BroadcastPlan> plan =
        MakeBroadcastPlan({dims, dims}, &out_shape);
    OP_REQUIRES_OK(ctx, plan.status());
    const auto add = [&](const void* a, const void* b, void* z) {
      return LaunchBinary(GpuBinaryOp::kAdd, *type, *plan, a, b, z,
                          GpuStreamOf(ctx));
    };
    // Groups of up to four: g = ((x_i + x_i+1) + x_i+2) + x_i+3, summed
    // into `out` directly for the first group, else into `group` and then
    // out = out + group.
    Tensor group;
    for (int i = 0; i < n; i += 4) {
      const int k = std::min(n - i, 4);
      void* dst = out->raw_data();
      if (i > 0) {
        if (!group.IsInitialized()) {
          OP_REQUIRES_OK(ctx, ctx->allocate_temp(out->dtype(), out->shape(),
                                                 &group));
        }
        dst = group.raw_data();
      }
      if (k == 1) {  // a last group of one (i > 0, since n > 1): out += x_i
        OP_REQUIRES_OK(ctx, add(out->raw_data(), inputs[i].raw_data(),
                                out->raw_data()));
        continue;
      }
      OP_REQUIRES_OK(ctx,
                     add(inputs[i].raw_data(), inputs[i + 1].raw_data(), dst));
      for (int j = 2; j < k; ++j) {
        OP_REQUIRES_OK(ctx, add(dst, inputs[i + j].raw_data(), dst));
      }
      if (i > 0) {
        OP_REQUIRES_OK(ctx, add(out->raw_data(), dst, out->raw_data()));
      }
    }
  }
};

DFLOW_REGISTER_GPU_KERNEL(
    KernelDefBuilder("AddN")
        .Device(kDeviceGpu)
        .TypeConstraint("T", gpu_kernel_defs::Concat(
                                 {gpu_kernel_defs::GpuFloat(), {DT_INT64}})),
    AddNGpuOp);
DFLOW_REGISTER_GPU_KERNEL(KernelDefBuilder("AddN")
                              .Device(kDeviceGpu)
                              .TypeConstraint("T", {DT_INT32})
                              .HostMemory("inputs")
                              .HostMemory("sum"),
                          AddNGpuOp);

}  // namespace
}  // namespace dflow

#endif  // DFLOW_HAVE_CUDA
