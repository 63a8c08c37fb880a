// InTopKV2 on the CPU, with TensorFlow's rules (in_topk_op.cc): a target
// is in the top k when fewer than k classes have a strictly larger
// prediction; a target out of [0, classes) or any non-finite prediction in
// its row gives false.
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

template <typename T>
class InTopKOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& predictions = ctx->input(0);
    const Tensor& targets = ctx->input(1);
    const Tensor& k_tensor = ctx->input(2);
    OP_REQUIRES(ctx, predictions.shape().rank() == 2,
                absl::InvalidArgumentError(absl::StrCat(
                    "'predictions' must be a matrix, got shape ",
                    predictions.shape().ToString())));
    OP_REQUIRES(ctx,
                targets.shape().rank() == 1 &&
                    targets.shape().dim(0) == predictions.shape().dim(0),
                absl::InvalidArgumentError(absl::StrCat(
                    "'targets' must be a vector of the batch size ",
                    predictions.shape().dim(0), ", got shape ",
                    targets.shape().ToString())));
    OP_REQUIRES(ctx, k_tensor.NumElements() == 1,
                absl::InvalidArgumentError(absl::StrCat(
                    "'k' must be a scalar, got shape ",
                    k_tensor.shape().ToString())));
    const int64_t batch = predictions.shape().dim(0);
    const int64_t classes = predictions.shape().dim(1);
    const int64_t k = static_cast<int64_t>(*k_tensor.data<T>());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &out));
    const float* p = predictions.data<float>();
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t target = static_cast<int64_t>(targets.data<T>()[b]);
      const float* row = p + b * classes;
      bool cannot_say = target < 0 || target >= classes ||
                        !std::isfinite(row[target]);
      int64_t more_probable = 0;
      for (int64_t i = 0; !cannot_say && i < classes; ++i) {
        if (!std::isfinite(row[i])) {
          cannot_say = true;
        } else if (row[i] > row[target]) {
          ++more_probable;
        }
      }
      out->data<bool>()[b] = !cannot_say && more_probable < k;
    }
  }
};

DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("InTopKV2").Device(kDeviceCpu).TypeConstraint<int32_t>("T"),
    InTopKOp<int32_t>);
DFLOW_REGISTER_KERNEL(
    KernelDefBuilder("InTopKV2").Device(kDeviceCpu).TypeConstraint<int64_t>("T"),
    InTopKOp<int64_t>);

}  // namespace
}  // namespace dflow
