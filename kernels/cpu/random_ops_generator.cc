// RngReadAndSkip on the CPU: tf.random.Generator's read of its state. The
// state variable's first three words (counter low, counter high, key) come
// out as they were, and the counter moves on by 256 * delta blocks, as
// TensorFlow moves it (so a generator's later draws are TensorFlow's).
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/tensor.h"
#include "kernels/cpu/random_ops_philox.h"
#include "kernels/cpu/random_ops_stateless_util.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

class RngReadAndSkipOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& alg = ctx->input(1);
    const Tensor& delta = ctx->input(2);
    OP_REQUIRES(ctx, alg.shape().rank() == 0 && delta.shape().rank() == 0,
                absl::InvalidArgumentError(absl::StrCat(
                    "alg and delta must be scalars, got shapes ",
                    alg.shape().ToString(), " and ",
                    delta.shape().ToString())));
    OP_REQUIRES_OK(ctx, CheckPhiloxAlgorithm(alg.data<int32_t>()[0]));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({3}), &out));
    PhiloxRandom before;
    // 256 blocks per element, the room every TensorFlow random op reserves
    // (wrapping like TensorFlow's uint64 product).
    OP_REQUIRES_OK(ctx, ReadAndSkipGeneratorState(
                            ctx, ctx->input_var(0),
                            delta.data<uint64_t>()[0] * 256, &before,
                            out->data<int64_t>()));
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("RngReadAndSkip").Device(kDeviceCpu),
                      RngReadAndSkipOp);

}  // namespace
}  // namespace dflow
