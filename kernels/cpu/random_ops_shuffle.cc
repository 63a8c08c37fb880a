// RandomShuffle and StatelessShuffle on the CPU: TensorFlow's permutation of
// the first dimension for a given seed. Fisher-Yates from the front: for i
// = 0 .. n-2, swap slice i with slice i + (w % (n - i)) for the next 32-bit
// word w of the generator (words in order, four per block). RandomShuffle
// reserves ceil((n - 1) / 4) blocks of its stream per run, as TensorFlow
// does; StatelessShuffle starts at its key and counter. Slices move whole,
// of any dtype; a tensor with at most one element or one slice is passed
// through without drawing.
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/kernel_util_array.h"
#include "kernels/cpu/random_ops_philox.h"
#include "kernels/cpu/random_ops_stateless_util.h"
#include "kernels/cpu/random_ops_words.h"
#include "runtime/kernel_registry.h"
#include "runtime/op_kernel.h"

namespace dflow {
namespace {

// Whether `input` needs shuffling at all (TensorFlow passes the rest on).
bool NeedsShuffle(const Tensor& input) {
  return input.NumElements() > 1 && input.shape().dim(0) > 1;
}

// Output 0: `input` with its first dimension permuted by words from `gen`.
void ShuffleInto(OpKernelContext* ctx, const Tensor& input,
                 PhiloxRandom gen) {
  const int64_t n = input.shape().dim(0);
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), int64_t{0});
  PhiloxWords words(&gen);
  for (int64_t i = 0; i + 1 < n; ++i) {
    const uint32_t left = static_cast<uint32_t>(n - i);
    std::swap(order[i], order[i + words.Rand32() % left]);
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
  const int64_t slice = input.NumElements() / n;
  array_kernels::VisitCopyType(input.dtype(), [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    const T* src = array_kernels::CopyData<T>(input);
    T* dst = array_kernels::CopyData<T>(out);
    for (int64_t i = 0; i < n; ++i) {
      std::copy_n(src + order[i] * slice, slice, dst + i * slice);
    }
  });
}

// TensorFlow draws 32-bit words per swap, so it shuffles at most 2^32 - 1
// slices faithfully.
absl::Status CheckSize(const Tensor& input) {
  if (input.shape().dim(0) > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot shuffle ", input.shape().dim(0),
        " slices: at most 2^32 - 1 are supported"));
  }
  return absl::OkStatus();
}

class RandomShuffleOp : public OpKernel {
 public:
  explicit RandomShuffleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), stream_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    if (input.shape().rank() == 0 || !NeedsShuffle(input)) {
      ctx->set_output(0, input);
      return;
    }
    OP_REQUIRES_OK(ctx, CheckSize(input));
    const uint64_t swaps = static_cast<uint64_t>(input.shape().dim(0) - 1);
    ShuffleInto(ctx, input, stream_.ReserveWords(swaps));
  }

 private:
  PhiloxReservations stream_;
};

class StatelessShuffleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    PhiloxRandom gen;
    OP_REQUIRES_OK(ctx, PhiloxFromKeyCounterAlg(ctx->input(1), ctx->input(2),
                                                ctx->input(3), &gen));
    if (input.shape().rank() == 0 || !NeedsShuffle(input)) {
      ctx->set_output(0, input);
      return;
    }
    OP_REQUIRES_OK(ctx, CheckSize(input));
    ShuffleInto(ctx, input, gen);
  }
};

DFLOW_REGISTER_KERNEL(KernelDefBuilder("RandomShuffle").Device(kDeviceCpu),
                      RandomShuffleOp);
DFLOW_REGISTER_KERNEL(KernelDefBuilder("StatelessShuffle").Device(kDeviceCpu),
                      StatelessShuffleOp);

}  // namespace
}  // namespace dflow
